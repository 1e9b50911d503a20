#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 240
#
# t28-depth-rmdir: cgroups removed under I/O while the control period keeps
# changing the dispatch depth: the lock rule of fairnvme-iosched.c, on the
# paths that broke it.
#
# A cgroup's removal runs fairnvme's pd_offline_fn inside q->queue_lock;
# a control period that changes the depth lets held requests go by running
# the hardware queues, and on 6.12 blk_mq_run_hw_queue() takes queue_lock
# when the elevator has no work. Before the fix the period ran the queues
# with fd->lock held and pd_offline took fd->lock inside queue_lock: an
# AB-BA deadlock between two CPUs with interrupts off, which lockdep on the
# 6.12 debug kernel (make check-debug) reports as "possible circular
# locking dependency detected" (fd->lock -> queue_lock -> fd->lock); 6.1
# takes no queue_lock there. This runs both paths many times over:
#  - a steady tenant reads 4 KiB at depth 4 on the emulated NVMe (2000
#    commands/s) for the whole run, so that the control worker runs and
#    the depth, above what is queued, often holds nothing back (the
#    queues' has_work is then false);
#  - dev_target_us alternates between 1 us (below any device time: the
#    depth shrinks by a quarter each period) and 100 ms (the depth grows
#    while it holds requests back) every 300 ms. This is the one tunable
#    written, and only because a depth that settles, as it does at the
#    default, changes too seldom to meet a removal within a short test;
#  - meanwhile, three at a time, round after round, a cgroup starts four
#    direct 4 KiB readers (busybox dd), does I/O (its io.stat counts
#    some), is killed (cgroup.kill) and removed at once. 20 s (40 s on a debug
#    kernel), FNV_T28_RUNTIME.
# Points: the depth changed at least 10 times (debugfs, the premise, not
# the result); at least 9 cgroups removed after they did I/O (io.stat);
# the steady fio completed without error; no lockdep, WARN, BUG or
# hung-task line in the kernel log since the test began, and lockdep (on a
# debug kernel) still on; the device drains, at the driver and in the
# scheduler; a switch away and back works.
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

tap_plan 7

# a debug kernel (timing=0) starts and kills fio several times slower:
# twice the time, for as many removals
RT=20
timing_off && RT=40
RT=${FNV_T28_RUNTIME:-$RT}
ndev=$(nvme_dev) || tap_fail_rest "no nvme namespace"
iosched=/sys/block/$ndev/queue/iosched
mover=""
watch=""
cleanup() {
	[ -z "$mover" ] || kill "$mover" 2>/dev/null
	[ -z "$watch" ] || kill "$watch" 2>/dev/null
	for c in $(cd "$CG_ROOT" && ls -d t28* 2>/dev/null); do cg_destroy "$c"; done
	set_sched "$ndev" none 2>/dev/null
}
trap cleanup EXIT

# 1
if err=$(fnv_load 2>&1) && err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1); then
	ok "$FNV_SCHED selected on $ndev"
else
	not_ok "$FNV_SCHED selected on $ndev" "$err"
	tap_fail_rest "$FNV_SCHED unavailable: $err"
fi
dmesg_from=$(dmesg | wc -l)
# lockdep's state (a debug kernel): "1" on, "0" turned off by a report
# (it reports once, then stops), "" not built in
debug_locks() { awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats 2>/dev/null; }
locks0=$(debug_locks)

cg_create t28s
(
	run_in_cg t28s fio --eta=never --output-format=terse --terse-version=3 \
		--output="$FNV_WORK/t28s.terse" --name=t28s --filename="/dev/$ndev" \
		--offset=0 --size=256M --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=4 --time_based --runtime="$RT" \
		2>"$FNV_WORK/t28s.terse.err"
	echo $? >"$FNV_WORK/t28s.rc"
) &
steady=$!
wait_until 10 sh -c "[ -n \"\$(cat $CG_ROOT/t28s/cgroup.procs)\" ]"

# the depth, sampled every 100 ms
(
	while :; do
		fnv_dbg "$ndev" depth 2>/dev/null
		sleep 0.1
	done
) >"$FNV_WORK/t28.depth" &
watch=$!
(
	while :; do
		echo 1 >"$iosched/dev_target_us"
		sleep 0.3
		echo 100000 >"$iosched/dev_target_us"
		sleep 0.3
	done
) 2>"$FNV_WORK/t28.mover.err" &
mover=$!

# the churn, until the steady tenant's run is over: three cgroups a round
removed=0
idle=0
failed=""
end=$(($(now_ms) + RT * 1000 - 2000))
i=0
while [ "$(now_ms)" -lt "$end" ]; do
	i=$((i + 1))
	pids=""
	for k in 1 2 3; do
		c=t28c${i}_$k
		cg_create "$c"
		# four QD1 direct readers (busybox dd: a fio would take
		# seconds to start under TCG)
		# each in its own 16 MiB from 256 MiB on (4 KiB blocks)
		base=$((65536 + (k - 1) * 4 * 4096))
		run_in_cg "$c" sh -c "for j in 0 1 2 3; do dd if=/dev/$ndev of=/dev/null bs=4k count=4096 skip=\$(($base + j * 4096)) iflag=direct 2>/dev/null & done; wait" &
		pids="$pids $!"
	done
	for k in 1 2 3; do
		c=t28c${i}_$k
		# until its I/O shows in its io.stat
		wait_until 10 sh -c "awk '{ for (i = 2; i <= NF; i++) if (\$i ~ /^(rios|wios)=[1-9]/) f = 1 } END { exit !f }' $CG_ROOT/$c/io.stat"
	done
	sleep 0.2
	for k in 1 2 3; do
		c=t28c${i}_$k
		ios=$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(rios|wios)=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }' "$CG_ROOT/$c/io.stat")
		echo 1 >"$CG_ROOT/$c/cgroup.kill"
		if wait_until 20 rmdir "$CG_ROOT/$c"; then
			if [ "$ios" -gt 0 ]; then
				removed=$((removed + 1))
			else
				idle=$((idle + 1))
			fi
		else
			failed="$failed $c"
		fi
	done
	# shellcheck disable=SC2086
	wait $pids 2>/dev/null
done
kill "$mover" 2>/dev/null
wait "$mover" 2>/dev/null
mover=""
wait "$steady"
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
watch=""

# 2: the premise
changes=$(awk 'NR > 1 && $1 != last { n++ } { last = $1 } END { print n + 0 }' "$FNV_WORK/t28.depth")
depths=$(sort -n "$FNV_WORK/t28.depth" | uniq | tr '\n' ' ')
if [ "$changes" -ge 10 ]; then
	ok "the depth changed $changes times in ${RT} s under load (depths seen: $depths)"
else
	not_ok "the depth changed at least 10 times under load" "$changes changes (depths seen: $depths; mover: $(head -c 200 "$FNV_WORK/t28.mover.err"))"
fi
# 3
if [ "$removed" -ge 9 ] && [ -z "$failed" ]; then
	ok "$removed cgroups removed right after they did I/O ($idle without I/O)"
else
	not_ok "at least 9 cgroups removed right after they did I/O" "removed=$removed idle=$idle not removed:${failed:- none}"
fi
# 4
fio_check "the steady tenant's fio completed ($(fio_iops "$FNV_WORK/t28s.terse") IOPS)" \
	"$FNV_WORK/t28s.terse" "$(cat "$FNV_WORK/t28s.rc" 2>/dev/null || echo missing)"
# 5
bad=$(dmesg | tail -n +"$((dmesg_from + 1))" |
	grep -E 'WARNING:|BUG:|possible circular locking|possible recursive locking|inconsistent lock state|irq lock inversion|blocked for more than|soft lockup|Oops' | head -n 3)
locks1=$(debug_locks)
desc="no lockdep, WARN, BUG or hung-task line in the kernel log"
if [ -n "$bad" ]; then
	not_ok "$desc" "$(echo "$bad" | tr '\n' '|')"
elif [ "$locks0" = 0 ]; then
	skip "$desc, lockdep on" "lockdep was off before this test began (an earlier report turned it off)"
elif [ "$locks1" = 0 ]; then
	not_ok "$desc" "lockdep turned itself off during the test (debug_locks 0): see the kernel log"
else
	ok "$desc${locks0:+ (lockdep on throughout)}"
fi
# 6: nothing left at the driver, nor held in the scheduler
drained() {
	[ "$(dev_inflight "$ndev")" = 0 ] && [ "$(dev_sched_busy "$ndev")" = 0 ]
}
if wait_until 20 drained; then
	ok "$ndev drained (nothing in flight, no scheduler tag held)"
else
	not_ok "$ndev drained" "inflight $(cat "/sys/block/$ndev/inflight"), scheduler tags busy $(dev_sched_busy "$ndev")"
fi
# 7
cg_destroy t28s
rc=0
{ set_sched "$ndev" none && set_sched "$ndev" "$FNV_SCHED" &&
	dd if="/dev/$ndev" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null; } || rc=$?
check "switch away and back, and read" test "$rc" = 0
tap_done
