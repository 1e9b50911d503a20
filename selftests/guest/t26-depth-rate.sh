#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 420
#
# The automatic depth follows the rate, not only the device time: on a
# null_blk device completing each request from a timer after 20 us (as an
# NVMe device completes by interrupt), four tenants of equal weight, 16
# O_DIRECT QD1 4 KiB random readers each. Under TCG the requests' device
# time grows with the requests in flight (the guest's CPUs complete them)
# while the IOPS keep growing too: the time target alone held the depth
# at 2 and lost 40 % and more of the IOPS a full depth gives (the bench's
# 1008 tenants: 6.6k IOPS at depth 2, 10.5k to 13k at 32). Asserted: at
# the defaults (nothing written to queue/iosched), fairnvme's IOPS at
# least 85 % of its IOPS with dev_target_us=0 (the depth fixed at
# max_inflight: the tunable is written only as that reference), both
# summed over ROUNDS (3; 5 in check-extended) interleaved runs each,
# counted after a 14 s ramp (the first trial of a deeper queue comes
# after 10 s held back); and the four tenants' IOPS within 25 % of their
# mean (equal weights, equal loads). Why three rounds: the load is bound
# by the guest's CPUs, and two runs with the depth at 32 in both, one
# after the other, gave 0.71 to 1.21 of each other's IOPS under TCG (28
# rounds); over two rounds 0.84 once (CI's 6.12, both trials kept before
# the runs were measured). Run side by side on two devices alike, the
# tenants took so much of the CPUs that the depth no longer mattered.
# Printed: the depth in force at the end of each run and every 0.5 s
# during it (debugfs).
. /tests/lib.sh

RT=${FNV_T26_RUNTIME:-8}
# fio's ramp: the first rate trial comes after 10 s of requests held back
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=16 --ramp_time=14 --randrepeat=0"
# the reference (dev_target_us=0) has its depth at max_inflight from the
# start: nothing to wait for but fio's threads
ARGS_REF="${ARGS% --ramp_time=14 *} --ramp_time=4 --randrepeat=0"
TENANTS="d1 d2 d3 d4"

tap_plan 5
fnv_load || tap_fail_rest "fairnvme not available"
have_nullb || tap_skip_rest "null_blk not available"
dev=$(nullb_create fnv_t26 memory_backed=0 irqmode=2 completion_nsec=20000 \
	submit_queues=2 hw_queue_depth=64 size=1024 blocksize=4096) ||
	tap_fail_rest "cannot create the null_blk device"
cleanup() {
	for t in $TENANTS; do cg_destroy "$t"; done
	set_sched "$dev" none 2>/dev/null
	nullb_destroy fnv_t26
}
trap cleanup EXIT
io=/sys/block/$dev/queue/iosched
dbg=/sys/kernel/debug/block/$dev/sched

# the depth in force every 0.5 s, as runs ("depth x samples"), and the
# mean of the requests in flight at those samples (diagnostics)
depth_log() {
	while :; do
		echo "$(cat "$dbg/depth" 2>/dev/null || echo -)" \
			"$(cat "$dbg/inflight" 2>/dev/null || echo 0)"
		sleep 0.5
	done >"$FNV_WORK/t26-depth"
}
depth_runs() {
	awk '$1 != p { if (n) printf "%s%sx%d", s, p, n; s = " "; p = $1; n = 0 }
		{ n++; f += $2; m++ }
		END { if (n) printf "%s%sx%d", s, p, n
			if (m) printf "; in flight %.1f on average\n", f / m }' \
		"$FNV_WORK/t26-depth"
}

sum_iops() {
	for t in $TENANTS; do tenant_iops "$t"; done | awk '{ s += $1 } END { printf "%.1f\n", s }'
}

check "select fairnvme on $dev" set_sched "$dev" fairnvme
auto=0 full=0 spread=0
# check-extended (fnv.args extended=1): 5 rounds
ROUNDS=3
[ "${FNV_extended:-0}" = 1 ] && ROUNDS=5
ROUNDS=${FNV_T26_ROUNDS:-$ROUNDS}
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	r=$((r + 1))
	# the default: a new elevator, its depth learned from the start
	set_sched "$dev" none && set_sched "$dev" fairnvme
	depth_log &
	dl=$!
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" $TENANTS
	kill "$dl" 2>/dev/null
	wait "$dl" 2>/dev/null
	diag "round $r: depth each 0.5 s from the start: $(depth_runs)"
	a=$(sum_iops)
	d=$(cat "$dbg/depth" 2>/dev/null || echo -)
	diag "round $r: depth_trials $(cat "$dbg/depth_trials" 2>/dev/null)"
	s=$(for t in $TENANTS; do tenant_iops "$t"; done | awk -v m="$a" '
		{ d = $1 / (m / 4) - 1; if (d < 0) d = -d; if (d > x) x = d } END { printf "%.3f\n", x }')
	spread=$(fcalc "$spread > $s ? $spread : $s")
	set_sched "$dev" none && set_sched "$dev" fairnvme && echo 0 >"$io/dev_target_us"
	depth_log &
	dl=$!
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS_REF" $TENANTS
	kill "$dl" 2>/dev/null
	wait "$dl" 2>/dev/null
	diag "round $r: dev_target_us=0, depth each 0.5 s: $(depth_runs)"
	f=$(sum_iops)
	diag "round $r: defaults $a IOPS (depth $d, tenants within $s of their mean), dev_target_us=0 $f IOPS"
	auto=$(fcalc "$auto + $a")
	full=$(fcalc "$full + $f")
done
ratio=$(fcalc "$full > 0 ? $auto / $full : 0")
assert_ge "IOPS at the defaults over IOPS at dev_target_us=0" "$ratio" 0.85
assert_le "largest tenant's IOPS off the mean, defaults" "$spread" 0.25
if [ "$(tenant_rc d1)" = 0 ] && [ "$(tenant_rc d4)" = 0 ]; then
	ok "fio of the tenants exited 0"
else
	not_ok "fio of the tenants exited 0" "rc d1=$(tenant_rc d1) d4=$(tenant_rc d4)"
fi
check "back to none" set_sched "$dev" none
tap_done
