#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 420
#
# The rate trials of the automatic depth (t26) keep a deeper queue only if
# the weights keep their shares: at a deep queue the device, not the
# scheduler, orders the requests. On t26's null_blk (each request completed
# by a timer after 20 us), tenants of weights 100 and 300, 32 O_DIRECT QD1
# 4 KiB random readers each: max_inflight completed about 25 % more than
# the time's depth, and gave the weight-300 tenant 0.48 to 0.53 of the
# IOPS (mq-deadline the same) where the time's depth gave it 0.65 to 0.71
# (0.75 due; the QD1 readers' threads, which wait for the guest's CPUs,
# keep it from more). Asserted at the defaults (nothing written to
# queue/iosched), in each of two runs: a trial at max_inflight came (the
# first after 10 s of requests held back, within fio's 14 s ramp) and was
# not kept (debugfs depth_trials: up >= 1, kept 0), and the weight-300
# tenant's share over both is at least 0.6 (0.75 due, 0.5 at a kept deep
# queue). Printed: the same with dev_target_us=0 (the depth fixed at
# max_inflight, written only as that reference) and under mq-deadline.
. /tests/lib.sh

RT=${FNV_T27_RUNTIME:-8}
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=32 --ramp_time=14 --randrepeat=0"
TENANTS="lo hi"

tap_plan 6
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

check "select fairnvme on $dev" set_sched "$dev" fairnvme
cg_create lo && cg_create hi && cg_set_weight lo 100 && cg_set_weight hi 300 ||
	tap_fail_rest "cannot set up the tenants"
shares=0
for r in 1 2; do
	# a new elevator, its depth learned from the start
	set_sched "$dev" none && set_sched "$dev" fairnvme
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" $TENANTS
	hs=$(tenant_share hi $TENANTS)
	tr=$(cat "$dbg/depth_trials" 2>/dev/null)
	diag "run $r, defaults: hi's share $hs, $(tenants_total_iops $TENANTS) IOPS; depth_trials $tr"
	up=$(echo "$tr" | sed -n 's/.* up=\([0-9]*\).*/\1/p')
	kept=$(echo "$tr" | sed -n 's/.* kept=\([0-9]*\).*/\1/p')
	if [ "${up:-0}" -ge 1 ] && [ "$kept" = 0 ]; then
		ok "run $r: a trial at max_inflight, not kept"
	else
		not_ok "run $r: a trial at max_inflight, not kept" "up=$up kept=$kept"
	fi
	shares=$(fcalc "$shares + $hs")
	set_sched "$dev" none && set_sched "$dev" fairnvme && echo 0 >"$io/dev_target_us"
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" $TENANTS
	diag "run $r, dev_target_us=0: hi's share $(tenant_share hi $TENANTS), $(tenants_total_iops $TENANTS) IOPS"
	set_sched "$dev" mq-deadline
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" $TENANTS
	diag "run $r, mq-deadline: hi's share $(tenant_share hi $TENANTS), $(tenants_total_iops $TENANTS) IOPS"
done
assert_ge "weight-300 tenant's share at the defaults, mean of two runs" "$(fcalc "$shares / 2")" 0.6
if [ "$(tenant_rc lo)" = 0 ] && [ "$(tenant_rc hi)" = 0 ]; then
	ok "fio of the tenants exited 0"
else
	not_ok "fio of the tenants exited 0" "rc lo=$(tenant_rc lo) hi=$(tenant_rc hi)"
fi
check "back to none" set_sched "$dev" none
tap_done
