#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest.sh - weighted sharing demo, run inside the test guest
# (selftests/vm/run.sh --run demo). Three tenants (cgroups gold/silver/bronze,
# io.fairnvme.weight 600/300/100) run 4 KiB random reads concurrently on the
# throttled emulated NVMe, first under fairnvme, then under none.
#
# Knobs: FNV_demo_runtime (default 30 s: D2FQ's H/L ratio needs a few of
# its 1 s periods to settle), FNV_demo_iodepth (64).
set -u
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

FNV_SCHED=${FNV_SCHED:-fairnvme}
RUNTIME=${FNV_demo_runtime:-30}
IODEPTH=${FNV_demo_iodepth:-64}
TENANTS="gold silver bronze"
weight_of() {
	case "$1" in
	gold) echo 600 ;;
	silver) echo 300 ;;
	bronze) echo 100 ;;
	esac
}
cleanup() {
	for t in $TENANTS; do cg_destroy "$t" 2>/dev/null; done
}
trap cleanup EXIT

dev=$(nvme_dev) || exit 1
if ! err=$(fnv_load 2>&1); then
	echo "demo: $FNV_SCHED unavailable: $err"
	exit 1
fi
wsum=0
for t in $TENANTS; do
	cg_create "$t"
	w=$(weight_of "$t")
	wsum=$((wsum + w))
	if ! cg_set_weight "$t" "$w"; then
		echo "demo: cannot set io.fairnvme.weight of $t"
		exit 1
	fi
done

ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=$IODEPTH --numjobs=1 --ramp_time=2 --randrepeat=0"
rc=0
for s in "$FNV_SCHED" none; do
	if ! err=$(set_sched "$dev" "$s" 2>&1); then
		echo "demo: $err"
		exit 1
	fi
	echo
	echo "demo: $dev scheduler $s, $RUNTIME s of 4 KiB random reads, iodepth $IODEPTH per tenant"
	[ "$s" = "$FNV_SCHED" ] && echo "demo: every tunable at its default (nothing written to queue/iosched)"
	if [ -r "/sys/block/$dev/queue/iosched/max_inflight" ]; then
		mi=$(cat "/sys/block/$dev/queue/iosched/max_inflight")
		echo "demo: at most $mi requests at the device (the depth adapts below that); weights decide the order of the rest"
	fi
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RUNTIME" "$ARGS" $TENANTS || rc=1
	[ "$s" = "$FNV_SCHED" ] && echo "demo: as learned (debugfs): depth $(fnv_dbg "$dev" depth 2>/dev/null), tau_l $(fnv_dbg "$dev" tau_l_eff_bytes 2>/dev/null) bytes per unit of weight"
	printf '%-8s %6s %8s %9s %9s %11s\n' tenant weight IOPS share expected clat_ms
	total=0
	for t in $TENANTS; do
		total=$(fcalc "$total + $(tenant_iops "$t")")
	done
	# shellcheck disable=SC2086
	for t in $TENANTS; do
		w=$(weight_of "$t")
		printf '%-8s %6s %8.0f %9s %9.3f %11.2f\n' "$t" "$w" "$(tenant_iops "$t")" \
			"$(tenant_share "$t" $TENANTS)" "$(fcalc "$w / $wsum")" \
			"$(fcalc "$(tenant_lat "$t" read mean) / 1000")"
	done
	printf '%-8s %6s %8.0f\n' total "" "$total"
	# shellcheck disable=SC2086
	for t in $TENANTS; do
		w=$(weight_of "$t")
		echo "DEMO $s $t weight=$w iops=$(tenant_iops "$t") share=$(tenant_share "$t" $TENANTS) expected=$(fcalc "$w / $wsum")"
	done
done
set_sched "$dev" none
[ $rc = 0 ] || echo "demo: a fio run failed (see $FNV_WORK/tenant-*.terse.err)"
exit $rc
