#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-extended: slowdown fairness, as t10, with eight tenants
#
# Eight tenants, one each of FairNVMe's Table 3 cases (4 KiB; n1d1, n4d4
# and n4d32; random read, random write, 70/30 mixed), equal weights, on the
# throttled NVMe. Each runs alone under none, then all together under none
# and fairnvme in the same boot (and mq-deadline and bfq, printed only,
# with fnv.args=peers=1: lib.sh's peer_scheds). Fairness index = min / max
# slowdown. Asserted: fairnvme's total IOPS at least 90 % of none's, its
# fairness index at least 1.5x none's (the issue's target; none's index is
# ~0.007 here, fairnvme's 0.47 to 0.50) and at least 0.3 (a floor: the
# ratio alone passes against a none index near 0); every scheduler's index
# is printed. A failed fio run (alone or shared) fails the points using it.
. /tests/lib.sh


RT=${FNV_T11_RUNTIME:-12}
RT_ALONE=${FNV_T11_ALONE:-6}
COMMON="--bs=4k --direct=1 --ioengine=libaio --randrepeat=0 --ramp_time=2"
FNV_TARGS_r1="$COMMON --rw=randread --numjobs=1 --iodepth=1"
FNV_TARGS_w1="$COMMON --rw=randwrite --numjobs=1 --iodepth=1"
FNV_TARGS_m1="$COMMON --rw=randrw --rwmixread=70 --numjobs=1 --iodepth=1"
FNV_TARGS_r4="$COMMON --rw=randread --numjobs=4 --iodepth=4"
FNV_TARGS_w4="$COMMON --rw=randwrite --numjobs=4 --iodepth=4"
FNV_TARGS_m4="$COMMON --rw=randrw --rwmixread=70 --numjobs=4 --iodepth=4"
FNV_TARGS_r32="$COMMON --rw=randread --numjobs=4 --iodepth=32"
FNV_TARGS_w32="$COMMON --rw=randwrite --numjobs=4 --iodepth=32"
TENANTS="r1 w1 m1 r4 w4 m4 r32 w32"

tap_plan $((5 + $(npeers mq-deadline bfq)))
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"

set_sched "$dev" none
# shellcheck disable=SC2086
measure_alone alone8 "$dev" "$RT_ALONE" $TENANTS

for s in none $(peer_scheds mq-deadline bfq) fairnvme; do
	# shellcheck disable=SC2086
	shared_run alone8 "$dev" "$RT" "$s" $TENANTS
done
# shellcheck disable=SC2154
diag "fairness index vs none: fairnvme $(ratio "$fi_fairnvme" "$fi_none") (target 1.5)"
assert_ge "total IOPS fairnvme/none" "$(ratio "$iops_fairnvme" "$iops_none")" 0.9
assert_ge "fairness index fairnvme/none" "$(ratio "$fi_fairnvme" "$fi_none")" 1.5
assert_ge "fairness index, fairnvme" "$fi_fairnvme" 0.3
for t in $TENANTS; do
	cg_destroy $t
done
tap_done
