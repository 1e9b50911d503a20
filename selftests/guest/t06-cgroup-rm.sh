#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t06-cgroup-rm: cgroups disappear while their I/O is queued in the scheduler.
#  A) fio's processes are moved out of cgroup X to the root and X is removed
#     while I/O it issued is in flight; fio finishes without errors.
#  B) rmdir of a populated cgroup fails with EBUSY; fio (direct + buffered
#     writer) is killed with SIGKILL inside Y and Y is removed in a retry loop
#     as soon as possible. A killed aio process waits for its requests, so
#     what Y may still have queued then is its writeback: the requests still
#     holding tags are printed, not asserted (with 32 or 128 MB dirty, and a
#     sync before the kill or none, Y went after the flusher had written it
#     all: 1 run in 7 at 32 MB on 6.1, on the 6.12 debug kernel, and at
#     128 MB, where the writeback delayed the dying readers' I/O, and Y went
#     6 s after the kill). C asserts the writeback a removed cgroup leaves.
#     The device then still works, also across a scheduler switch.
#  C) the same with a buffered writer alone: the cgroup is gone while its
#     dirty pages are still being written back on its behalf.
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

tap_plan 15

# keep writeback running and the dirty set small, so that the buffered
# writer's pages are being written back (attributed to its cgroup) when it dies
old_dirty_bytes=$(cat /proc/sys/vm/dirty_bytes)
old_dirty_ratio=$(cat /proc/sys/vm/dirty_ratio)
old_bg_bytes=$(cat /proc/sys/vm/dirty_background_bytes)
old_bg_ratio=$(cat /proc/sys/vm/dirty_background_ratio)
cleanup() {
	for c in t06x t06y t06w; do cg_destroy "$c" 2>/dev/null; done
	if [ "$old_dirty_bytes" != 0 ]; then echo "$old_dirty_bytes" >/proc/sys/vm/dirty_bytes; else echo "$old_dirty_ratio" >/proc/sys/vm/dirty_ratio; fi
	if [ "$old_bg_bytes" != 0 ]; then echo "$old_bg_bytes" >/proc/sys/vm/dirty_background_bytes; else echo "$old_bg_ratio" >/proc/sys/vm/dirty_background_ratio; fi
}
trap cleanup EXIT
echo $((32 << 20)) >/proc/sys/vm/dirty_bytes
echo $((8 << 20)) >/proc/sys/vm/dirty_background_bytes

# 1
ndev=$(nvme_dev) || tap_fail_rest "no nvme namespace"
if err=$(fnv_load 2>&1) && err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1); then
	ok "$FNV_SCHED selected on $ndev"
else
	not_ok "$FNV_SCHED selected on $ndev" "$err"
	tap_fail_rest "$FNV_SCHED unavailable: $err"
fi

# ---- A: move out, rmdir, I/O continues --------------------------------
cg_create t06x
(
	run_in_cg t06x fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t06x.terse" \
		--name=t06x --filename="/dev/$ndev" --offset=0 --size=256M --rw=randrw --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=64 --numjobs=2 --group_reporting \
		--time_based --runtime=12 2>"$FNV_WORK/t06x.terse.err"
	echo $? >"$FNV_WORK/t06x.rc"
) &
px=$!
# wait until all fio processes (main + 2 jobs) are in the cgroup and I/O is queued
wait_until 10 sh -c "[ \$(wc -l < $CG_ROOT/t06x/cgroup.procs) -ge 3 ]"
sleep 3
# sampled until requests hold tags (a debug kernel's fio starts its jobs
# late: one sample 3 s in saw none on 6.1 with KASAN and lockdep)
busy=$(dev_sched_busy_wait "$ndev" 10)
procs=$(cg_procs t06x | tr '\n' ' ')
moved=0
for p in $procs; do
	echo "$p" >"$CG_ROOT/cgroup.procs" 2>/dev/null && moved=$((moved + 1))
done
rm_ms0=$(now_ms)
if wait_until 10 rmdir "$CG_ROOT/t06x"; then
	rm_ms=$(($(now_ms) - rm_ms0))
	# 2
	if [ "$moved" -ge 3 ] && [ "$busy" -gt 0 ]; then
		ok "moved $moved fio processes out of t06x and removed it (${rm_ms} ms) with $busy requests holding scheduler tags"
	else
		not_ok "moved fio out of t06x and removed it with I/O in flight" "moved=$moved busy=$busy (precondition: >=3 processes, requests queued)"
	fi
else
	not_ok "moved fio out of t06x and removed it with I/O in flight" "rmdir failed: $(rmdir "$CG_ROOT/t06x" 2>&1), procs left: $(cg_procs t06x | tr '\n' ' ')"
fi
wait "$px"
# 3
fio_check "fio continued after its cgroup was removed: rc=$(cat "$FNV_WORK/t06x.rc" 2>/dev/null) $(fio_iops "$FNV_WORK/t06x.terse") IOPS" \
	"$FNV_WORK/t06x.terse" "$(cat "$FNV_WORK/t06x.rc" 2>/dev/null || echo missing)"

# ---- B: SIGKILL inside, rmdir as soon as possible ----------------------
# Hold the device open from here: the last close of a block device syncs it
# (blkdev_put), which would make the dying fio wait for its own writeback.
exec 9<"/dev/$ndev"
cg_create t06y
run_in_cg t06y fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t06y.terse" \
	--name=t06yd --filename="/dev/$ndev" --offset=0 --size=256M --rw=randread --bs=4k \
	--direct=1 --ioengine=libaio --iodepth=128 --numjobs=2 --time_based --runtime=60 \
	--name=t06yb --filename="/dev/$ndev" --offset=384M --size=256M --rw=randwrite --bs=4k \
	--direct=0 --ioengine=psync --time_based --runtime=60 \
	>/dev/null 2>&1 &
py=$!
wait_until 10 sh -c "[ \$(wc -l < $CG_ROOT/t06y/cgroup.procs) -ge 4 ]"
sleep 4
# 4: a populated cgroup cannot be removed
if err=$(rmdir "$CG_ROOT/t06y" 2>&1); then
	not_ok "rmdir of populated cgroup t06y fails with EBUSY" "rmdir succeeded"
else
	case "$err" in
	*"busy"* | *"Busy"*) ok "rmdir of populated cgroup t06y fails with EBUSY" ;;
	*) not_ok "rmdir of populated cgroup t06y fails with EBUSY" "$err" ;;
	esac
fi
busy=$(dev_sched_busy_wait "$ndev" 4)
dirty=$(awk '/^Dirty:/ {print $2}' /proc/meminfo)
# 5: precondition for the rest: requests queued and dirty pages pending
if [ "$busy" -gt 0 ]; then
	ok "t06y has I/O queued before the kill: $busy requests hold scheduler tags, Dirty ${dirty} kB"
else
	not_ok "t06y has I/O queued before the kill" "busy=$busy dirty=${dirty}kB"
fi
# shellcheck disable=SC2046
kill -9 $(cg_procs t06y) 2>/dev/null
kill_ms=$(now_ms)
tries=0
while ! rmdir "$CG_ROOT/t06y" 2>/dev/null; do
	tries=$((tries + 1))
	[ $(($(now_ms) - kill_ms)) -lt 60000 ] || break
	sleep 0.01
done
rm_ms=$(($(now_ms) - kill_ms))
busy_after=$(dev_sched_busy "$ndev")
# 6
if [ ! -d "$CG_ROOT/t06y" ]; then
	ok "t06y removed ${rm_ms} ms after SIGKILL ($tries retries); requests still holding tags then: $busy_after"
else
	not_ok "t06y removed after SIGKILL" "still there after ${rm_ms} ms: procs $(cg_procs t06y | tr '\n' ' ')"
fi
wait "$py" 2>/dev/null

# ---- C: buffered writer only: its dirty pages outlive the cgroup --------
# A killed aio process waits for its requests before it exits, so Y's direct
# I/O has completed once Y is gone; dirty page cache does not: its writeback
# is issued on behalf of the removed cgroup.
cg_create t06w
run_in_cg t06w fio --eta=never --name=t06w --filename="/dev/$ndev" --offset=384M --size=256M \
	--rw=randwrite --bs=4k --direct=0 --ioengine=psync --time_based --runtime=60 \
	>/dev/null 2>&1 &
pw=$!
wait_until 10 sh -c "[ \$(wc -l < $CG_ROOT/t06w/cgroup.procs) -ge 2 ]"
sleep 4
# shellcheck disable=SC2046
kill -9 $(cg_procs t06w) 2>/dev/null
kill_ms=$(now_ms)
while ! rmdir "$CG_ROOT/t06w" 2>/dev/null; do
	[ $(($(now_ms) - kill_ms)) -lt 60000 ] || break
	sleep 0.01
done
rm_ms=$(($(now_ms) - kill_ms))
pending=$(awk '/^(Dirty|Writeback):/ { s += $2 } END { print s + 0 }' /proc/meminfo)
busy_after=$(dev_sched_busy "$ndev")
# 7
if [ ! -d "$CG_ROOT/t06w" ] && [ "$pending" -gt 0 ]; then
	ok "buffered writer t06w removed ${rm_ms} ms after SIGKILL with ${pending} kB dirty/writeback pending ($busy_after requests holding tags)"
elif [ -d "$CG_ROOT/t06w" ]; then
	not_ok "buffered writer t06w removed after SIGKILL" "still there after ${rm_ms} ms: procs $(cg_procs t06w | tr '\n' ' ')"
else
	not_ok "buffered writer t06w removed with writeback pending" "precondition: nothing pending (${pending} kB)"
fi
wait "$pw" 2>/dev/null
# 8: writeback of the dead cgroups' dirty pages completes (the last close of
# the device writes back what the flusher has not yet)
t0=$(now_ms)
exec 9<&-
if timeout 120 sync; then
	ok "close + sync after removal completed in $(($(now_ms) - t0)) ms (Dirty now $(awk '/^Dirty:/ {print $2}' /proc/meminfo) kB)"
else
	not_ok "close + sync after removal completed" "sync did not finish within 120 s"
fi
# 9: everything drained
if wait_until 20 sh -c "[ \$(cat /sys/block/$ndev/inflight | awk '{print \$1+\$2}') = 0 ]"; then
	ok "$ndev drained (inflight 0, sched tags busy $(dev_sched_busy "$ndev"))"
else
	not_ok "$ndev drained" "inflight $(cat "/sys/block/$ndev/inflight") busy $(dev_sched_busy "$ndev")"
fi
# 10: device still works with the scheduler
rc=0
fio_run "$FNV_WORK/t06r.terse" --name=t06r --filename="/dev/$ndev" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=16 --size=64M --io_size=8M || rc=$?
fio_check "short fio read on $ndev after the removals ($(fio_iops "$FNV_WORK/t06r.terse") IOPS)" "$FNV_WORK/t06r.terse" $rc
# 11, 12: switch away and back
check "switch $ndev to none" set_sched "$ndev" none
check "switch $ndev back to $FNV_SCHED" set_sched "$ndev" "$FNV_SCHED"
# 13: new cgroup I/O works after all this
cg_create t06x
rc=0
run_in_cg t06x fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t06z.terse" \
	--name=t06z --filename="/dev/$ndev" --rw=randrw --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=16 --size=64M --io_size=8M 2>"$FNV_WORK/t06z.terse.err" || rc=$?
fio_check "new cgroup does I/O through $FNV_SCHED afterwards" "$FNV_WORK/t06z.terse" $rc
# 14: the module goes once nothing uses it, though tenants of the removed
# cgroups outlived their scheduler instances: each holds a module reference
# until it is freed (an RCU callback after the block layer's free work), so
# rmmod may need a moment, never longer than a few grace periods.
cg_destroy t06x
set_sched "$ndev" none
if [ -z "$FNV_MOD" ]; then
	skip "rmmod after the removals" "scheduler built in"
elif wait_until 10 rmmod "$FNV_MOD" 2>/dev/null; then
	ok "rmmod $FNV_MOD after the removals"
else
	not_ok "rmmod $FNV_MOD after the removals" "refcount $(cat "/sys/module/$(echo "$FNV_MOD" | tr - _)/refcnt" 2>/dev/null)"
fi
# 15: and comes back
rc=0
{ fnv_load && set_sched "$ndev" "$FNV_SCHED" &&
	dd if="/dev/$ndev" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null; } || rc=$?
check "reload, select $FNV_SCHED and read again" test "$rc" = 0
set_sched "$ndev" none
tap_done
