#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-extended: the cost model on the extreme mix; t29 covers the cost
# model in ./run check (one case per device)
# fnv-timeout: 600
#
# What a request costs (cost_model): t10's mix on the NVMe throttled at
# 2000 commands/s whatever their size (lib.sh's nvme_dev), equal weights, A 4 KiB
# random reads n1d1, B 4 KiB random writes n8d32, C and D 70/30 random
# read/write n4d4, plus E, 64 KiB sequential reads n1d1. Each runs alone
# (under none), then all together under none and fairnvme as it is
# (cost_model=time, the default). With fnv.args=peers=1 (lib.sh's
# peer_scheds), also under bfq and fairnvme with cost_model=bytes (what
# D2FQ charged before the learned model), printed.
# Slowdown = shared mean latency / alone mean latency.
#
# A and E both read one request at a time; on this device E's 64 KiB
# read costs what A's 4 KiB read costs. Charged by bytes, E paid 16 times
# A's price and was slowed 26.8 times against A's 5.5 (fairness index
# 0.146); charged by the learned device time, 7.3 against 6.7 (fairness
# index 0.55). Asserted: E's slowdown under the default at most 1.5 times
# A's, the fairness index (min / max slowdown) at least 0.6 and at least
# 2x none's, and total IOPS at least 99 % of none's. Not 100 %: both runs
# keep the device at its throttle, and what a run counts there varies with
# the throttle's bursts (none alone: 1992 to 2011 over five CI runs at
# 2000; fairnvme 2000 against none's 2011 failed an exact comparison
# once). A scheduler that loses throughput (idling, a depth too small)
# loses several times that.
# Counted over the whole run (B's requests draining alone after the others
# stopped), the fairness index spread from 0.34 to 0.80 over 12 runs;
# counted within the runtime (FNV_WINDOW): 0.868, 0.832 and 0.814 on 6.1.
# Printed: each run's fairness index, and E's slowdown over A's under each.
# Printed on both devices, each tenant: the latency the cost model
# predicts for it alone (debugfs tenant_dump's alone_us, read during the
# run under fairnvme) against its mean latency alone, by fio (issue 35,
# item 2; lib.sh's alone_print says why not asserted yet).
#
# Then the same mix on the NVMe throttled at 2000
# commands/s and 40 MB/s
# (serial fnv0004), where E's 64 KiB reads, alone, take 2.6 times A's 4 KiB
# ones (1.6 ms against 0.6), BFQ beside it with fnv.args=peers=1 (issue
# 35: none 30.4, fairnvme with the per-request fit 18.3: E's merged reads
# were charged one command each, and it took the device). Asserted: the
# worst slowdown under fairnvme at most 1.1 times what equal shares of
# the run's IOPS give (lib.sh's fair_slowdown: A, one request at a time,
# 0.40 ms alone at 2,000 IOPS, waits 2.46 ms for a fifth of 2,030, less
# the host's 0.10 ms between requests: 5.9). Not the issue's 5: there A
# would need more than its equal share, and BFQ, in the same boots, had
# 5.34 to 49.7 (slowdown-aware shares are issue 39's).
. /tests/lib.sh

# IOPS and latency within the runtime only: B's 256 requests in flight
# would otherwise drain alone after the others stop (lib.sh, _tenant_win)
FNV_WINDOW=1
# tenant_dump each second, for alone_print
FNV_DUMP_TENANTS=1
RT=${FNV_T20_RUNTIME:-12}
RT_ALONE=${FNV_T20_ALONE:-6}
extreme_mix
FNV_TARGS_E="--bs=64k --direct=1 --ioengine=libaio --ramp_time=2 --rw=read --numjobs=1 --iodepth=1"
TENANTS="A B C D E"

EXT=${FNV_extended:-0}
tap_plan $(((EXT == 1 ? 6 + $(npeers bfq fairnvme-bytes) : 0) + 3 + $(npeers bfq)))
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
io=/sys/block/$dev/queue/iosched

# the command-bound device, then the bytes-bound one (./run check has one
# case per device for the cost model: t29's a, b, c and d)
if [ "$EXT" = 1 ]; then
	set_sched "$dev" none
	# shellcheck disable=SC2086
	measure_alone alone "$dev" "$RT_ALONE" $TENANTS

	# e_ratio : E's slowdown over A's, last run
	e_ratio() {
		for t in A E; do
			echo "$t $(tenant_mlat $t) $(cat "$FNV_WORK/alone-$t.lat")"
		done | awk '{ s = 0; if ($3 > 0) s = $2 / $3 }
			$1 == "A" { a = s } $1 == "E" { e = s }
			END { r = 99; if (a > 0) r = e / a; printf "%.3f\n", r }'
	}

	for s in none $(peer_scheds bfq) fairnvme; do
		# shellcheck disable=SC2086
		shared_run alone "$dev" "$RT" "$s" $TENANTS
		eval "er_$s=$(e_ratio)"
		# shellcheck disable=SC2086
		[ "$s" = fairnvme ] && alone_print alone $TENANTS
	done
	diag "fairnvme's cost model: $(fnv_dbg "$dev" cost_learned)"
	# printed only: the same with requests charged their bytes
	for s in $(peer_scheds fairnvme-bytes); do
		echo bytes >"$io/cost_model"
		FNV_RUN_LABEL=$s
		# shellcheck disable=SC2086
		shared_run alone "$dev" "$RT" fairnvme $TENANTS
		unset FNV_RUN_LABEL
		echo time >"$io/cost_model"
		er_bytes=$(e_ratio)
	done
	# shellcheck disable=SC2154
	diag "fairness index: none $fi_none fairnvme $fi_fairnvme${fi_bfq:+ bfq $fi_bfq}${fi_fairnvme_bytes:+ fairnvme-bytes $fi_fairnvme_bytes}; total IOPS: none $iops_none fairnvme $iops_fairnvme${iops_bfq:+ bfq $iops_bfq}${iops_fairnvme_bytes:+ fairnvme-bytes $iops_fairnvme_bytes}"
	diag "E's slowdown over A's: none $er_none fairnvme $er_fairnvme${er_bfq:+ bfq $er_bfq}${er_bytes:+ fairnvme-bytes $er_bytes}"
	assert_le "E's slowdown / A's, fairnvme" "$er_fairnvme" 1.5
	assert_ge "fairness index fairnvme/none" "$(ratio "$fi_fairnvme" "$fi_none")" 2
	assert_ge "fairness index, fairnvme" "$fi_fairnvme" 0.6
	assert_ge "total IOPS fairnvme/none" "$(ratio "$iops_fairnvme" "$iops_none")" 0.99
fi

set_sched "$dev" none
dev=$(nvme_dev fnv0004) || tap_fail_rest "no nvme device fnv0004"
set_sched "$dev" none
# shellcheck disable=SC2086
measure_alone alone40 "$dev" "$RT_ALONE" $TENANTS
for s in $(peer_scheds bfq) fairnvme; do
	# shellcheck disable=SC2086
	shared_run alone40 "$dev" "$RT" "$s" $TENANTS
	# shellcheck disable=SC2086
	eval "ws_$s=$(worst_slowdown alone40 $TENANTS)"
	# shellcheck disable=SC2086
	eval "fs_$s=$(fair_slowdown alone40 $TENANTS)"
	# shellcheck disable=SC2086
	[ "$s" = fairnvme ] && alone_print alone40 $TENANTS
done
check "fairnvme's cost model defaults to time" grep -q '\[time\]' "/sys/block/$dev/queue/iosched/cost_model"
diag "2000 cmd/s + 40 MB/s: fairnvme's cost model: $(fnv_dbg "$dev" cost_learned)"
# shellcheck disable=SC2154
diag "2000 cmd/s + 40 MB/s: worst slowdown (what equal shares give):${ws_bfq:+ bfq $ws_bfq ($fs_bfq)} fairnvme ${ws_fairnvme:-failed} (${fs_fairnvme:-})"
# shellcheck disable=SC2154
assert_le "2000 cmd/s + 40 MB/s: worst slowdown under fairnvme over equal shares'${ws_bfq:+ (bfq: $(ratio "$ws_bfq" "$fs_bfq"))}" "$(ratio "${ws_fairnvme:-}" "${fs_fairnvme:-}")" 1.1
set_sched "$dev" none
for t in $TENANTS; do
	cg_destroy $t
done
tap_done
