#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Four tenants with weights 800:600:400:200 saturating the throttled NVMe
# with 4 KiB random reads. Expected shares of the summed IOPS:
# 0.4 / 0.3 / 0.2 / 0.1, each within +-10 % of its expected value, with
# D2FQ's classes (wrr_mode=soft, the default) and with FairNVMe's budget
# cycles alone (wrr_mode=off).
. /tests/lib.sh

FNV_TUNE="tau_l_bytes=$FNV_TAU_EMU"

RT=${FNV_T04_RUNTIME:-20}
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=1 --ramp_time=3 --randrepeat=0"

tap_plan 12
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
	tenants_run "$dev" "$RT" "$ARGS" w800 w600 w400 w200
	tenants_report w800 w600 w400 w200
	for t in w800 w600 w400 w200; do
		want=$(fcalc "${t#w} / 2000")
		assert_near "$mode: share of weight ${t#w}" "$(tenant_share $t w800 w600 w400 w200)" "$want" 10
	done
done
echo soft >"/sys/block/$dev/queue/iosched/wrr_mode"

for t in w800 w600 w400 w200; do
	cg_destroy $t
done
tap_done
