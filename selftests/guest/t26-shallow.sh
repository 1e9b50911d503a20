#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 300
#
# Many shallow tenants: 64 cgroups of equal weight, each with one O_DIRECT
# QD1 4 KiB random reader (/extra/qd1read), on a null_blk device that
# completes each request by timer after 20 us, as an NVMe device completes
# by interrupt. Each tenant has one request to serve at a time, and is
# served once in a round whatever the order, so the dispatch depth keeps
# no share: fairnvme, at its defaults (nothing written to queue/iosched),
# must not hold requests back then. Before it knew this, the automatic
# depth went to 2 there (the emulated device's time grows with the
# requests in flight under TCG), and with 1008 such tenants fairnvme
# served 0.28 of none's IOPS where mq-deadline served 0.79.
# Asserted, from debugfs' depth (the depth in force):
#   1. with the 64 equal shallow tenants, the depth is max_inflight;
#   2. the tenants' reads are even: the least-served tenant gets at least
#      half the mean (diag: fairnvme's IOPS over mq-deadline's, same boot);
#   3. one tenant given another weight (300): the depth below max_inflight
#      within 3 s, the shares then need the order;
#   4. weights equal again, depth back at max_inflight; then a tenant with
#      8 requests in flight (fio, iodepth=8) comes: the depth below
#      max_inflight within 3 s.
. /tests/lib.sh

N=${FNV_T26_TENANTS:-64}
RT=${FNV_T26_RUNTIME:-6}
tap_plan 5
fnv_load || tap_fail_rest "fairnvme not available"
[ -x /extra/qd1read ] || tap_skip_rest "/extra/qd1read not shipped"
have_nullb || tap_skip_rest "null_blk not available"
[ -d /sys/kernel/debug/block ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
T=$CG_ROOT/t26

cleanup() {
	cg_destroy t26deep
	for c in "$T"/t*; do
		[ -d "$c" ] && echo 1 >"$c/cgroup.kill" 2>/dev/null
	done
	for c in "$T"/t*; do
		[ -d "$c" ] && wait_until 30 rmdir "$c"
	done
	rmdir "$T" 2>/dev/null
	nullb_destroy fnv_t26
}
trap cleanup EXIT

dev=$(nullb_create fnv_t26 memory_backed=0 irqmode=2 completion_nsec=20000 \
	submit_queues=2 hw_queue_depth=64 size=4096 blocksize=4096) ||
	tap_fail_rest "cannot create the null_blk device"
set_sched "$dev" fairnvme || tap_fail_rest "cannot select fairnvme on $dev"
D=/sys/kernel/debug/block/$dev/sched
max=$(cat "/sys/block/$dev/queue/iosched/max_inflight")
[ -r "$D/depth" ] || tap_skip_rest "no debugfs for $dev"

mkdir -p "$T"
echo "+io" >"$T/cgroup.subtree_control"
# shellcheck disable=SC2046
cgs=$(printf "$T/t%03d\n" $(seq 1 "$N"))
# shellcheck disable=SC2086
mkdir $cgs || tap_fail_rest "cannot create $N cgroups"
# shellcheck disable=SC2086
/extra/qd1read "/dev/$dev" $cgs || tap_fail_rest "cannot start $N readers"

depth_is() { [ "$(cat "$D/depth")" -eq "$1" ]; }
depth_below() { [ "$(cat "$D/depth")" -lt "$1" ]; }

# reads of each tenant (io.stat), one per line, in cgroup order
tenant_reads() {
	awk -v d="$(cat "/sys/block/$dev/dev")" '$1 == d {
		for (i = 2; i <= NF; i++) if ($i ~ /^rios=/) print substr($i, 6) + 0 }' \
		"$T"/t*/io.stat
}
dev_reads() { awk '{ print $1 }' "/sys/block/$dev/stat"; }

# measure SCHED : "IOPS MIN/MEAN" over RT seconds, after 2 s to settle
measure() {
	set_sched "$dev" "$1" || return 1
	sleep 2
	tenant_reads >"$FNV_WORK/t26.a"
	r0=$(dev_reads) t0=$(now_ms)
	sleep "$RT"
	tenant_reads >"$FNV_WORK/t26.b"
	r1=$(dev_reads) t1=$(now_ms)
	paste "$FNV_WORK/t26.a" "$FNV_WORK/t26.b" | awk -v r=$((r1 - r0)) -v t=$((t1 - t0)) '
		{ d = $2 - $1; s += d; n++; if (min == "" || d < min) min = d }
		END { printf "%.0f %.3f\n", r * 1000 / t, n && s ? min / (s / n) : 0 }'
}

wait_until 10 depth_is "$max"
d=$(cat "$D/depth")
if [ "$d" -eq "$max" ]; then
	ok "$N equal shallow tenants: depth $d = max_inflight"
else
	not_ok "$N equal shallow tenants: depth $d = max_inflight $max" \
		"dev_floor_us $(cat "$D/dev_floor_us")"
fi

m1=$(measure mq-deadline) f1=$(measure fairnvme)
m2=$(measure mq-deadline) f2=$(measure fairnvme)
diag "IOPS, least tenant/mean: mq-deadline $m1, $m2; fairnvme $f1, $f2"
diag "fairnvme/mq-deadline IOPS: $(fcalc "(${f1%% *} + ${f2%% *}) / (${m1%% *} + ${m2%% *})")"
assert_ge "fairnvme: least-served of $N equal tenants over the mean" \
	"$(fcalc "(${f1#* } < ${f2#* }) ? ${f1#* } : ${f2#* }")" 0.5

wait_until 10 depth_is "$max"
echo "default 300" >"$T/t001/io.fairnvme.weight"
if wait_until 3 depth_below "$max"; then
	ok "a tenant of weight 300 among them: depth $(cat "$D/depth") < $max"
else
	not_ok "a tenant of weight 300 among them: depth below $max" "still $(cat "$D/depth")"
fi

echo "default 100" >"$T/t001/io.fairnvme.weight"
if wait_until 10 depth_is "$max"; then
	ok "weights equal again: depth $max"
else
	not_ok "weights equal again: depth $max" "$(cat "$D/depth")"
fi
cg_create t26deep
(run_in_cg t26deep fio --name=t26deep --filename="/dev/$dev" --rw=randread \
	--bs=4k --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=30 \
	--output=/dev/null >/dev/null 2>&1 &)
if wait_until 3 depth_below "$max"; then
	ok "a tenant with 8 in flight comes: depth $(cat "$D/depth") < $max"
else
	not_ok "a tenant with 8 in flight comes: depth below $max" "still $(cat "$D/depth")"
fi
cg_destroy t26deep
tap_done
