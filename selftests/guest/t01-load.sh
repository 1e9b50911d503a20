#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t01-load: module load, scheduler selection on nvme and null_blk, the module
# cannot be removed while in use, unload, reload: by the kernel's own
# request_module("fairnvme-iosched") when the scheduler is selected with the
# module unloaded, and by "modprobe fairnvme-iosched", the module's alias
# (the module is fairnvme.ko, as bfq.ko is "bfq-iosched").
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

tap_plan 20

NB=fnv_t01
cleanup() {
	[ -n "${ndev:-}" ] && echo none >"/sys/block/$ndev/queue/scheduler" 2>/dev/null
	[ -n "${bdev:-}" ] && echo none >"/sys/block/$bdev/queue/scheduler" 2>/dev/null
	nullb_destroy "$NB" 2>/dev/null
}
trap cleanup EXIT

MODN=$(echo "$FNV_MOD" | tr - _)

# 1
if err=$(fnv_load 2>&1); then
	ok "modprobe $FNV_MOD"
else
	not_ok "modprobe $FNV_MOD" "$err"
	tap_fail_rest "$FNV_SCHED unavailable: $err"
fi
# 2
if grep -q "^$MODN " /proc/modules; then
	ok "$MODN listed in /proc/modules"
else
	not_ok "$MODN listed in /proc/modules" "$(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
fi
# 3
ndev=$(nvme_dev) || tap_fail_rest "no nvme namespace"
if grep -qw "$FNV_SCHED" "/sys/block/$ndev/queue/scheduler"; then
	ok "$FNV_SCHED offered by $ndev: $(cat "/sys/block/$ndev/queue/scheduler")"
else
	not_ok "$FNV_SCHED offered by $ndev" "$(cat "/sys/block/$ndev/queue/scheduler")"
fi
# 4
if bdev=$(nullb_create "$NB" memory_backed=0 irqmode=0 submit_queues=2 hw_queue_depth=64 size=1024); then
	ok "null_blk device $bdev created via configfs"
else
	not_ok "null_blk device created via configfs"
	bdev=""
fi
# 5, 6: select on both devices
for d in "$ndev" "$bdev"; do
	if [ -z "$d" ]; then
		not_ok "select $FNV_SCHED on null_blk" "no null_blk device"
		continue
	fi
	if err=$(set_sched "$d" "$FNV_SCHED" 2>&1) &&
		grep -q "\[$FNV_SCHED\]" "/sys/block/$d/queue/scheduler"; then
		ok "select $FNV_SCHED on $d: $(cat "/sys/block/$d/queue/scheduler")"
	else
		not_ok "select $FNV_SCHED on $d" "$err"
	fi
done
# 7, 8: iosched directory populated
for d in "$ndev" "$bdev"; do
	files=$(ls "/sys/block/$d/queue/iosched/" 2>/dev/null | tr '\n' ' ')
	if [ -n "$d" ] && [ -n "$files" ]; then
		ok "/sys/block/$d/queue/iosched has files: $files"
	else
		not_ok "/sys/block/${d:-nullb?}/queue/iosched has files" "empty or missing"
	fi
done
# 9: I/O through the scheduler on both devices (short, read-only)
rc=0
fio_run "$FNV_WORK/t01-nvme.terse" --name=t01n --filename="/dev/$ndev" --rw=randread --bs=4k \
	--direct=1 --ioengine=libaio --iodepth=16 --size=16M --io_size=4M || rc=$?
[ -n "$bdev" ] && { fio_run "$FNV_WORK/t01-nullb.terse" --name=t01b --filename="/dev/$bdev" --rw=randrw \
	--bs=4k --direct=1 --ioengine=libaio --iodepth=16 --size=64M --io_size=32M || rc=$?; }
e1=$(fio_err "$FNV_WORK/t01-nvme.terse")
e2=$(fio_err "$FNV_WORK/t01-nullb.terse")
if [ $rc = 0 ] && [ "$e1" = 0 ] && [ "$e2" = 0 ]; then
	ok "fio I/O through $FNV_SCHED on $ndev ($(fio_iops "$FNV_WORK/t01-nvme.terse") IOPS) and $bdev ($(fio_iops "$FNV_WORK/t01-nullb.terse") IOPS)"
else
	not_ok "fio I/O through $FNV_SCHED on $ndev and $bdev" "rc=$rc err=$e1/$e2"
fi
# 10: rmmod while selected must fail
if [ -z "$FNV_MOD" ]; then
	not_ok "rmmod while in use fails" "FNV_MOD empty (built-in scheduler?)"
elif out=$(rmmod "$FNV_MOD" 2>&1); then
	not_ok "rmmod $FNV_MOD while selected on $ndev/$bdev fails" "rmmod succeeded"
else
	ok "rmmod $FNV_MOD while selected fails: $(echo "$out" | head -n 1)"
fi
# 11
if grep -q "^$MODN " /proc/modules; then
	ok "$MODN still in /proc/modules (refcount $(awk -v m="$MODN" '$1 == m {print $3}' /proc/modules))"
else
	not_ok "$MODN still in /proc/modules" "module is gone"
fi
# 12: scheduler still attached and working after the failed rmmod
if [ "$(get_sched "$ndev")" = "$FNV_SCHED" ] &&
	dd if="/dev/$ndev" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null; then
	ok "$ndev still on $FNV_SCHED and readable after failed rmmod"
else
	not_ok "$ndev still on $FNV_SCHED and readable after failed rmmod" "$(cat "/sys/block/$ndev/queue/scheduler")"
fi
# 13, 14: back to none
for d in "$ndev" "$bdev"; do
	if [ -n "$d" ] && err=$(set_sched "$d" none 2>&1); then
		ok "switch $d back to none"
	else
		not_ok "switch ${d:-nullb?} back to none" "${err:-no device}"
	fi
done
# 15: rmmod now succeeds
if out=$(rmmod "$FNV_MOD" 2>&1); then
	ok "rmmod $FNV_MOD with no user succeeds"
else
	not_ok "rmmod $FNV_MOD with no user succeeds" "$out; refcount $(awk -v m="$MODN" '$1 == m {print $3}' /proc/modules)"
fi
# 16
if grep -q "^$MODN " /proc/modules || grep -qw "$FNV_SCHED" "/sys/block/$ndev/queue/scheduler"; then
	not_ok "$MODN gone from /proc/modules and from the scheduler list" "$(cat "/sys/block/$ndev/queue/scheduler")"
else
	ok "$MODN gone from /proc/modules and from the scheduler list"
fi
# 17, 18: selecting the scheduler loads the module (elevator_get()'s
# request_module("<name>-iosched"), through the guest's /sbin/modprobe)
ALIAS=$FNV_SCHED-iosched
if [ -z "$FNV_MOD" ]; then
	not_ok "echo $FNV_SCHED > scheduler loads the module" "FNV_MOD empty (built-in scheduler?)"
elif err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1) && grep -q "^$MODN " /proc/modules &&
	dd if="/dev/$ndev" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null; then
	ok "echo $FNV_SCHED > scheduler loads $MODN (request_module $ALIAS), reads go through it"
else
	not_ok "echo $FNV_SCHED > scheduler loads $MODN (request_module $ALIAS)" \
		"${err:-} scheduler: $(cat "/sys/block/$ndev/queue/scheduler"); modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
fi
if set_sched "$ndev" none && rmmod "$FNV_MOD" 2>/dev/null && ! grep -q "^$MODN " /proc/modules; then
	ok "deselect and rmmod $FNV_MOD again"
else
	not_ok "deselect and rmmod $FNV_MOD again" "$(cat "/sys/block/$ndev/queue/scheduler")"
fi
# 19: load by its alias, as a user does, and it works again
if err=$(modprobe "$ALIAS" 2>&1) && grep -q "^$MODN " /proc/modules &&
	err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1) &&
	dd if="/dev/$ndev" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null &&
	err=$(set_sched "$ndev" none 2>&1); then
	ok "modprobe $ALIAS loads $MODN; select, read, deselect"
else
	not_ok "modprobe $ALIAS loads $MODN; select, read, deselect" "$err"
fi
# 20
if [ -n "$bdev" ] && nullb_destroy "$NB"; then
	ok "null_blk device $bdev removed"
else
	not_ok "null_blk device removed"
fi
bdev=""
tap_done
