#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Four tenants with weights 800:600:400:200 saturating the throttled NVMe
# with 4 KiB random reads. Expected shares of the summed IOPS:
# 0.4 / 0.3 / 0.2 / 0.1, each within +-10 % of its expected value, with
# D2FQ's classes (wrr_mode=soft, the default) and with FairNVMe's budget
# cycles alone (wrr_mode=off). Both keep the device busy: the summed IOPS of
# each mode are within 5 % of none's in the same boot, and off's within 5 %
# of soft's (the dispatch depth must not cost throughput). Then the same
# shares at the defaults on the second emulated NVMe, throttled by bytes
# as well (4 MiB/s): where bytes are the limit, time-fair is byte-fair.
. /tests/lib.sh


RT=${FNV_T04_RUNTIME:-15}
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=1 --ramp_time=3 --randrepeat=0"

tap_plan 21
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme

for t in w800 w600 w400 w200; do
	cg_create $t
	echo "default ${t#w}" >"$CG_ROOT/$t/io.fairnvme.weight"
done
check "weights written" grep -qx 'default 200' "$CG_ROOT/w200/io.fairnvme.weight"

for mode in soft off; do
	check "wrr_mode=$mode" sh -c "echo $mode >/sys/block/$dev/queue/iosched/wrr_mode"
	depth_watch_start "$dev"
	tenants_run "$dev" "$RT" "$ARGS" w800 w600 w400 w200
	diag "$mode: depth/dev_floor_us each second: $(depth_watch_stop)"
	tenants_report w800 w600 w400 w200
	for t in w800 w600 w400 w200; do
		want=$(fcalc "${t#w} / 2000")
		assert_near "$mode: share of weight ${t#w}" "$(tenant_share $t w800 w600 w400 w200)" "$want" 10
	done
	eval "iops_$mode=$(tenants_total_iops w800 w600 w400 w200)"
done
echo soft >"/sys/block/$dev/queue/iosched/wrr_mode"

check "select none on $dev" set_sched "$dev" none
tenants_run "$dev" "$RT" "$ARGS" w800 w600 w400 w200
iops_none=$(tenants_total_iops w800 w600 w400 w200)
# shellcheck disable=SC2154
diag "total IOPS: none $iops_none, soft $iops_soft, off $iops_off"
assert_near "total IOPS soft/none" "$(fcalc "$iops_soft / $iops_none")" 1 5
assert_near "total IOPS off/none" "$(fcalc "$iops_off / $iops_none")" 1 5
assert_near "total IOPS off/soft" "$(fcalc "$iops_off / $iops_soft")" 1 5

bw=$(nvme_bw_dev) || tap_fail_rest "no second nvme device"
check "select fairnvme on $bw" set_sched "$bw" fairnvme
tenants_run "$bw" "$RT" "$ARGS" w800 w600 w400 w200
tenants_report w800 w600 w400 w200
for t in w800 w600 w400 w200; do
	assert_near "$bw (bytes-bound): share of weight ${t#w}" \
		"$(tenant_share $t w800 w600 w400 w200)" "$(fcalc "${t#w} / 2000")" 10
done

# the module must go at rmmod after the tests (t06): no instance left here
set_sched "$bw" none

for t in w800 w600 w400 w200; do
	cg_destroy $t
done
tap_done
