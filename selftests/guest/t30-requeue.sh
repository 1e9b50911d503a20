#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 300
#
# Requeues (issue 36, item 3). The nvme driver gives a request back on a
# retryable error status or a controller reset (blk_mq_requeue_request());
# it set RQF_DONTPREP when it first prepared the request, so blk-mq
# retries it from the hardware queue's dispatch list and it never comes
# back through the elevator's insert. fairnvme finishes such a request
# when it is given back, as BFQ and kyber do: charged and accounted once,
# its retry's completion not counted again. Before, a requeued request
# left the depth's count at the requeue and was never charged: a tenant
# whose requests the device gave back took more of it.
#
# fnvssd at its defaults (16 KiB pages on 4 dies: a 4 KiB and an 8 KiB
# read each hold a die for one tR), with requeue_every=2 and
# requeue_min_kb=8: every second request of 8 KiB or more (here: A's) is
# given back once, RQF_DONTPREP set, as nvme does. Two tenants, 8 KiB (A)
# and 4 KiB (B) random readers at iodepth 16, weights 100:100, nothing
# tuned. Asserted:
#  1. bad values of the two attributes: EINVAL, the old value kept;
#  2. the device gave requests back (its debugfs requeued count), and fio
#     completed every read without error, on both devices;
#  3. A gains nothing by its requests given back: its share of the reads
#     completed (fio) at most 1.1 times its share on a device that gives
#     nothing back (the same run before it, same boot). A retry's device
#     time is charged to no one (it is in the cost model's windows, so
#     every tenant's cost per request rises with it), so A may get a
#     little less. Before the fix, half of A's reads were charged nothing:
#     1.28 times (6.1);
#  4. after the run, nothing counted at the device and no request held by
#     a tenant: debugfs inflight 0, and every tenant's inflight and tags
#     (its requests, until they are freed) 0 in tenant_dump;
#  5. the scheduler switched to none and back four times while requests
#     are given back: fio ends without error, and the counts are 0 again.
# Shares are printed only, not asserted, under make check-debug
# (fnv.args=timing=0).
. /tests/lib.sh

RT=${FNV_T30_RUNTIME:-12}
BASE="--direct=1 --ioengine=libaio --iodepth=16 --numjobs=1 --ramp_time=3"
BASE="$BASE --randrepeat=0 --norandommap --size=256m --rw=randread"
tap_plan 9
ssd_prereq
fnv_load || tap_fail_rest "fairnvme not available"
W="$FNV_WORK/t30"
rm -rf "$W"
mkdir -p "$W"
trap 'ssd_destroy t30n; ssd_destroy t30r; ssd_destroy t30x' EXIT

# --- 1: bad input
mkdir "$SSD_CFS/t30x"
expect_einval "$SSD_CFS/t30x/requeue_every" 1000001
expect_einval "$SSD_CFS/t30x/requeue_min_kb" 129
expect_einval "$SSD_CFS/t30x/requeue_every" two
ssd_destroy t30x

cg_create A && cg_create B
echo "default 100" >"$CG_ROOT/A/io.fairnvme.weight"
echo "default 100" >"$CG_ROOT/B/io.fairnvme.weight"
FNV_TARGS_A="--bs=8k"
FNV_TARGS_B="--bs=4k"

# run DEV : the two tenants under fairnvme; prints A's share of the reads
run() {
	set_sched "$1" fairnvme >&2 || return 1
	tenants_run "$1" "$RT" "$BASE" A B >&2
	tenants_report A B >&2
	_share tenant_iops A A B
}

# inflight_zero DEV : nothing counted at the device, nor for any tenant
inflight_zero() {
	test "$(fnv_dbg "$1" inflight)" = 0 &&
		! fnv_dbg "$1" tenant_dump | grep -Eq ' (inflight|tags)=[1-9-]'
}

# --- 3: the share without requeues, then with
dev=$(ssd_create t30n size_mb=1024) || tap_fail_rest "cannot create an fnvssd device"
share0=$(run "$dev" 2>"$W/n.report")
rc0="$(tenant_rc A)$(tenant_rc B)"
sed 's/^# //; s/^/# t30n: /' "$W/n.report"
set_sched "$dev" none
ssd_destroy t30n

dev=$(ssd_create t30r size_mb=1024 requeue_every=2 requeue_min_kb=8) ||
	tap_fail_rest "cannot create an fnvssd device that gives requests back"
echo 1 >"/sys/kernel/debug/fnvssd/t30r/stats"
share1=$(run "$dev" 2>"$W/r.report")
sed 's/^# //; s/^/# t30r: /' "$W/r.report"
rq=$(ssd_stat t30r requeued)
rd=$(ssd_stat t30r reads)
diag "t30r: the device gave back $rq of $rd read commands (retries" \
	"included); A's share of the reads" \
	"$share1, $share0 with nothing given back"
check "the device gave requests back ($rq of $rd read commands)" \
	test "${rq:-0}" -gt 0
rc1="$(tenant_rc A)$(tenant_rc B)"
check "fio completed every read (rc $rc0 without requests given back, $rc1 with)" \
	test "$rc0$rc1" = 0000
if timing_off; then
	skip "A's share with requests given back" "timing=0"
else
	assert_le "A's share of the reads with every second one given back, over without" \
		"$(ratio "$share1" "$share0")" 1.1
fi
# --- 4: the counts balance once the I/O is done
check "after the run: inflight $(fnv_dbg "$dev" inflight), every tenant's 0" \
	inflight_zero "$dev"

# --- 5: scheduler switches while requests are given back
echo 1 >"/sys/kernel/debug/fnvssd/t30r/stats"
tenant_start A "$dev" 8 $BASE --bs=8k
tenant_start B "$dev" 8 $BASE --bs=4k
for s in 3 1 1 1; do
	sleep "$s"
	set_sched "$dev" none
	sleep 1
	set_sched "$dev" fairnvme
done
tenants_wait
rq=$(ssd_stat t30r requeued)
d="switches under requeues: fio without error"
check "$d (rc $(tenant_rc A) and $(tenant_rc B)), $rq given back" \
	test "$(tenant_rc A)$(tenant_rc B)" = 00 -a "${rq:-0}" -gt 0
check "after the switches: inflight $(fnv_dbg "$dev" inflight), every tenant's 0" \
	inflight_zero "$dev"
set_sched "$dev" none
cg_destroy A
cg_destroy B
tap_done
