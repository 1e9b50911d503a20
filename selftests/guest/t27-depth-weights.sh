#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 420
#
# The rate trials of the automatic depth (t26) keep a deeper queue only if
# the weights keep their shares: at a deep queue the device, not the
# scheduler, orders the requests. On t26's null_blk (each request completed
# by a timer after 20 us), tenants of weights 100 and 300, each two libaio
# readers of 4 KiB at iodepth 16 (32 requests a tenant, always queued):
# max_inflight completed 1.2 to 2.4 times the time's depth's IOPS and gave
# the weight-300 tenant 0.51 to 0.58 of them (mq-deadline 0.48 to 0.51),
# where the time's depth gave it 0.73 to 0.75 (0.75 due) on 6.1 and 6.12.
# The tenants were 32 QD1 psync readers each before: their threads waited
# for the guest's two CPUs under TCG, so a tenant's queue was often empty
# and no depth could give the weights their effect (0.12 of it at the
# time's depth on a CI machine's 6.12, 0.19 at max_inflight): a trial kept
# there was right, and the test's premise was the guest's CPU.
#
# Asserted at the defaults (nothing written to queue/iosched), in each of
# FNV_T27_ROUNDS (2; 4 in check-extended) rounds: a trial at max_inflight
# came (the first after 10 s of requests held back, within fio's 14 s
# ramp) and was not kept (debugfs depth_trials: up >= 1, kept 0). Over
# the rounds, the weight-300 tenant's mean share at the defaults is above
# its share at dev_target_us=0 (the depth fixed at max_inflight, what a
# kept trial gives: written only as that reference) by 0.1 or more: it was
# 0.17 above on 6.1 and 0.23 on 6.12 (2 rounds each), and a kept trial
# takes it to 0. Printed: the same under mq-deadline, with
# fnv.args=peers=1.
. /tests/lib.sh

RT=${FNV_T27_RUNTIME:-8}
# check-extended (fnv.args extended=1): 4 rounds, a longer run
ROUNDS=2
[ "${FNV_extended:-0}" = 1 ] && ROUNDS=4
ROUNDS=${FNV_T27_ROUNDS:-$ROUNDS}
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --numjobs=2 --ramp_time=14 --randrepeat=0"
# the reference (dev_target_us=0) and the peers have no depth to learn:
# a ramp for fio's threads only
ARGS_REF="${ARGS% --ramp_time=14 *} --ramp_time=4 --randrepeat=0"
TENANTS="lo hi"

tap_plan $((ROUNDS + 4))
fnv_load || tap_fail_rest "fairnvme not available"
have_nullb || tap_skip_rest "null_blk not available"
dev=$(nullb_create fnv_t27 memory_backed=0 irqmode=2 completion_nsec=20000 \
	submit_queues=2 hw_queue_depth=64 size=1024 blocksize=4096) ||
	tap_fail_rest "cannot create the null_blk device"
cleanup() {
	for t in $TENANTS; do cg_destroy "$t"; done
	set_sched "$dev" none 2>/dev/null
	nullb_destroy fnv_t27
}
trap cleanup EXIT
io=/sys/block/$dev/queue/iosched
dbg=/sys/kernel/debug/block/$dev/sched

# t27_run LABEL [TARGET] : a new elevator (its depth learned from the
# start), TARGET written to dev_target_us if given; prints hi's share
t27_run() {
	set_sched "$dev" none && set_sched "$dev" fairnvme || return 1
	[ -z "${2:-}" ] || echo "$2" >"$io/dev_target_us" || return 1
	if [ -z "${2:-}" ]; then
		# shellcheck disable=SC2086
		tenants_run "$dev" "$RT" "$ARGS" $TENANTS >&2
	else
		# shellcheck disable=SC2086
		tenants_run "$dev" "$RT" "$ARGS_REF" $TENANTS >&2
	fi
	diag "$1: hi's share $(tenant_share hi $TENANTS), $(tenants_total_iops $TENANTS) IOPS, depth $(cat "$dbg/depth" 2>/dev/null)" >&2
	tenant_share hi $TENANTS
}

check "select fairnvme on $dev" set_sched "$dev" fairnvme
cg_create lo && cg_create hi && cg_set_weight lo 100 && cg_set_weight hi 300 ||
	tap_fail_rest "cannot set up the tenants"
def=0 deep=0 rc=0 refbad=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	hs=$(t27_run "round $r, defaults") || hs=0
	tr=$(cat "$dbg/depth_trials" 2>/dev/null)
	fl=$(cat "$dbg/dev_floor_us" 2>/dev/null)
	diag "round $r, defaults: depth_trials $tr; dev_floor_us $fl"
	up=$(echo "$tr" | sed -n 's/.* up=\([0-9]*\).*/\1/p')
	kept=$(echo "$tr" | sed -n 's/.* kept=\([0-9]*\).*/\1/p')
	if [ "${up:-0}" -ge 1 ] && [ "$kept" = 0 ]; then
		ok "round $r: a trial at max_inflight, not kept"
	else
		not_ok "round $r: a trial at max_inflight, not kept" "up=$up kept=$kept"
	fi
	[ "$(tenant_rc lo)" = 0 ] && [ "$(tenant_rc hi)" = 0 ] || rc=1
	def=$(fcalc "$def + ${hs:-0}")
	# a reference that did not run must not lower the bar
	hs=$(t27_run "round $r, dev_target_us=0" 0) && [ -n "$hs" ] &&
		[ "$(tenant_rc lo)" = 0 ] && [ "$(tenant_rc hi)" = 0 ] || refbad=1
	deep=$(fcalc "$deep + ${hs:-0}")
	for s in $(peer_scheds mq-deadline); do
		set_sched "$dev" "$s"
		# shellcheck disable=SC2086
		tenants_run "$dev" "$RT" "$ARGS_REF" $TENANTS
		diag "round $r, $s: hi's share $(tenant_share hi $TENANTS), $(tenants_total_iops $TENANTS) IOPS"
	done
	r=$((r + 1))
done
def=$(fcalc "$def / $ROUNDS")
deep=$(fcalc "$deep / $ROUNDS")
diag "weight-300 share, mean of $ROUNDS rounds: defaults $def, dev_target_us=0 $deep"
if [ "$refbad" = 0 ]; then
	assert_ge "weight-300 share at the defaults, against dev_target_us=0's $deep + 0.1" \
		"$def" "$(fcalc "$deep + 0.1")"
else
	not_ok "weight-300 share at the defaults, against dev_target_us=0's" \
		"a run at dev_target_us=0 failed"
fi
if [ "$rc" = 0 ]; then
	ok "fio of the tenants exited 0 at the defaults"
else
	not_ok "fio of the tenants exited 0 at the defaults" "a tenant's fio failed"
fi
check "back to none" set_sched "$dev" none
tap_done
