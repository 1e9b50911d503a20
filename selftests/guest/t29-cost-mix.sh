#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 900
# fnv-timeout-extended: 2400
#
# Shares of tenants that mix request sizes and types, at the defaults
# (nothing written to iosched: the cost model learns each device), on
# devices bound by different things (issue 35):
#   a  the emulated NVMe throttled at 2000 commands/s whatever their size
#      (nvme_dev): a request costs a command, shares are IOPS;
#   b  the emulated NVMe throttled at 4000 commands/s and 16 MB/s (serial
#      fnv0003): from 4 KiB up the bytes bind, shares are bytes;
#   c  fnvssd at its defaults (16 KiB pages on 4 dies, tR 1500 us, tPROG
#      6000 us): shares are die time from its timing model, counted from
#      fio's requests: a read holds one die for tR per 16 KiB page it
#      covers (aligned: a 4, 8 or 16 KiB read one page, 64 KiB four), a
#      write one tPROG per 16 KiB it dirties;
#   d  null_blk with mbps=10 (check-extended): shares are bytes. It
#      grants 205 KiB each 20 ms at once: a tenant is served in a burst
#      what it has queued, so each keeps 64 requests outstanding (256 KiB
#      of 4 KiB ones) to be owed its share. At 16 the 4 KiB reader of w15
#      (weight 500) had its 16 (64 KiB) served per burst and no more:
#      0.668 to the 16 KiB one (0.167 due; BFQ, which idles for it, 0.236
#      on 6.1 but 0.681 on 6.12); at 64, 0.174 (BFQ 0.186). fairnvme is
#      work conserving (Documentation/fairnvme.rst, Limits).
#      Its alone latency is printed, not asserted: alone, a 128 KiB
#      writer got 128 KiB a burst, the 77 KiB left too few for the next,
#      so 6.4 MiB/s (fio alone 1.25 s at depth 64, 0.8 s by 10 MiB/s;
#      predicted 0.68 to 0.82 of it), and a burst's waste is no request's
#      cost.
# The cases, two tenants each at iodepth 16 (64 on d; libaio, direct):
#   eq   4 KiB vs 64 KiB random readers, weights 100:100;
#   w15  16 KiB random reads at 100 vs 4 KiB at 500; on b the 4 KiB
#        reader runs two fio jobs (of 16, or of t29_iodepth). Its 5/6 of
#        the bytes is about 3,250 IOPS there, and the guest's fio, under
#        TCG, holds some of its requests between their completion and
#        their next submission. With one job of 16 (6.1) the scheduler
#        saw a median of 9 to 11 of them each second (tenant_dump's
#        outstanding) where fio counted 15.4 (its mean latency times its
#        IOPS); the reader's queue ran empty, the 16 KiB one was served
#        meanwhile, as a work-conserving scheduler must, and had 0.194 to
#        0.288 of the bytes in four runs. With two jobs of 16 it saw 24
#        to 25 of the 32 on 6.1 (0.173 to 0.200 in six runs, three of
#        them within 10 %), 26 to 27 on 6.12 (0.171 and 0.169). Alone,
#        one job's 16 took 3.95 ms each (16 times the throttle's 250 us:
#        all of them at the device);
#   rw   70/30 8 KiB random read/write at 1000 vs an 8 KiB reader at 100;
#   wr   4 KiB vs 128 KiB random writers, 100:100;
#   fua  (fnvssd) 4 KiB random writes with O_SYNC (each a FUA write: it
#        holds a die for a program, tPROG + the transfer) at 300 vs a
#        4 KiB reader at 100; fua3 the same at 100 vs 300. From 6.5 only:
#        before, FUA writes pass every elevator (skipped on 6.1).
# ./run check runs eq on a, b and c; check-extended every case on every
# device (fnv.args=t29_runs=c:fua+c:fua3 picks some). Asserted per run:
# the first tenant's share within 10 % of its weight's (fua, fua3: 15 %,
# issue 35), and on a and b the bound resource's total (IOPS, bytes) at
# least 0.95 of none's in the same boot. Printed: the shares under none
# (and bfq, its io.bfq.weight the same, with peers=1), debugfs
# cost_learned, and the learned costs beside the configured ones.
# In check-extended (or with fnv.args=t29_alone=1), each tenant also runs
# alone under none, and the cost model's alone estimator (debugfs
# tenant_dump's alone_us during the shared run, from 10 s on: lib.sh's
# alone_pred) is asserted within 25 % of fio's mean latency alone (issue
# 35, item 2; lib.sh's alone_print).
. /tests/lib.sh

# On d, shares, totals and alone latencies count the I/Os completed within
# the runtime (lib.sh's FNV_WINDOW, as t20): fio's own totals also count
# what a job had outstanding when its runtime ended, drained afterwards
# with the device to itself. There the 128 KiB writer of wr has 8 MiB
# outstanding, 0.8 s of the device: by fio's totals the 4 KiB writer got
# 0.449 to 0.467 of the bytes on 6.1, and 0.495 of those moved while both
# ran (printed beside each share). Not on a, b and c, where the drain
# takes 65 ms at most: fio logging each I/O costs the guest's CPUs, and
# b/w15's 4 KiB reader (then one job of 16, about 3,000 IOPS) was seen
# with 12 requests outstanding where it had 13 without the log (6.1).
# fnv.args=t29_window=1 or 0: on every device, or none.

RT=${FNV_T29_RUNTIME:-15}
# fnv.args=t29_iodepth=N: each tenant's depth (16; 64 on d)
base_of() {
	_qd=16
	[ "$1" = d ] && _qd=64
	echo "--direct=1 --ioengine=libaio --iodepth=${FNV_t29_iodepth:-$_qd} --numjobs=1 --ramp_time=3 --randrepeat=0 --norandommap --size=256m"
}
RUNS="a:eq b:eq c:eq"
[ "${FNV_extended:-0}" = 1 ] &&
	RUNS="a:eq a:w15 a:rw a:wr b:eq b:w15 b:rw b:wr c:eq c:w15 c:rw c:wr c:fua c:fua3 d:eq d:w15 d:wr"
[ -n "${FNV_t29_runs:-}" ] && RUNS=$(echo "$FNV_t29_runs" | tr + ' ')
case "$(uname -r)" in
6.1.*) fua_sched=0 ;;
*) fua_sched=1 ;;
esac
ALONE=${FNV_t29_alone:-${FNV_extended:-0}}
RT_ALONE=${FNV_T29_ALONE:-6}
# tenant_dump each second, for alone_print
FNV_DUMP_TENANTS=$ALONE
n=0
for r in $RUNS; do
	case $r in
	*:fua*) n=$((n + 1)) ;;
	a:* | b:*) n=$((n + 2)) ;;
	*) n=$((n + 1)) ;;
	esac
	case $r in
	*:fua*) [ $fua_sched = 0 ] || n=$((n + 2 * ALONE)) ;;
	d:*) ;;
	*) n=$((n + 2 * ALONE)) ;;
	esac
done
tap_plan $((n + 1))
fnv_load || tap_fail_rest "fairnvme not available"
W="$FNV_WORK/t29"
rm -rf "$W"
mkdir -p "$W"
trap 'ssd_destroy t29; nullb_destroy t29' EXIT

# case NAME : the tenants' fio arguments and weights
case_set() {
	case $1 in
	eq)
		FNV_TARGS_A="--rw=randread --bs=4k"
		FNV_TARGS_B="--rw=randread --bs=64k"
		WA=100 WB=100 ;;
	w15)
		FNV_TARGS_A="--rw=randread --bs=16k"
		FNV_TARGS_B="--rw=randread --bs=4k"
		# on b, B's 5/6 is about 3,250 IOPS: two submitters (the top)
		[ "$d" != b ] || FNV_TARGS_B="$FNV_TARGS_B --numjobs=2"
		WA=100 WB=500 ;;
	rw)
		FNV_TARGS_A="--rw=randrw --rwmixread=70 --bs=8k"
		FNV_TARGS_B="--rw=randread --bs=8k"
		WA=1000 WB=100 ;;
	wr)
		FNV_TARGS_A="--rw=randwrite --bs=4k"
		FNV_TARGS_B="--rw=randwrite --bs=128k"
		WA=100 WB=100 ;;
	fua | fua3)
		FNV_TARGS_A="--rw=randwrite --bs=4k --sync=1"
		FNV_TARGS_B="--rw=randread --bs=4k"
		WA=300 WB=100
		[ "$1" = fua ] || WA=100 WB=300 ;;
	esac
	FUA_A=0
	case $1 in fua*) FUA_A=1 ;; esac
	echo "default $WA" >"$CG_ROOT/A/io.fairnvme.weight"
	echo "default $WB" >"$CG_ROOT/B/io.fairnvme.weight"
}

# bs NAME : the tenant's request size, KiB
bs() {
	eval "echo \"\$FNV_TARGS_$1\"" | sed -n 's/.*--bs=\([0-9]*\)k.*/\1/p'
}

# die_us NAME : fnvssd's die time for the tenant's last run (us per s)
die_us() {
	_fua=0
	[ "$1" = A ] && _fua=$FUA_A
	awk -v r="$(tenant_iops "$1" read)" -v w="$(tenant_iops "$1" write)" \
		-v b="$(bs "$1")" -v fua="$_fua" 'BEGIN {
		p = int((b + 15) / 16); if (p < 1) p = 1
		# a FUA write programs each page it covers, in the foreground
		printf "%.1f\n", r * p * 1500 + (fua ? w * p * 6100 : w * b / 16 * 6000) }'
}

# what DEV : the share's unit on device DEV (IOPS, KiB or die time)
unit_of() {
	case $1 in
	a) echo tenant_iops ;;
	b | d) echo tenant_kb ;;
	c) echo die_us ;;
	esac
}

# accuracy DEV CASE LEARNED : the learned costs beside the device's
# configured ones (issue 35, item 5), from debugfs cost_learned; of writes
# where the case has no reads (wr)
accuracy() {
	_t=read
	[ "$2" = wr ] && _t=write
	echo "$3" | tr ' ' '\n' | awk -F= -v d="$1" -v fua="$FUA_A" -v t="$_t" '
	{ v[$1] = $2 }
	END {
		c = v["read_cmd_ns"] / 1000; k = v["read_kib_ns"] / 1000
		if (d != "c") {
			c = v[t "_cmd_ns"] / 1000; k = v[t "_kib_ns"] / 1000
		}
		if (d == "a")
			printf "a %s command %.0f us (configured 500: %.2f); a 4 KiB %s'"'"'s bytes %.1f us (%.3f of a command), from the %s", t, c, c / 500, t, 4 * k, c ? 4 * k / c : 0, v[t "_from"]
		else if (d == "b" || d == "d") {
			want = d == "b" ? 64 : 97.7
			printf "a KiB %s %.1f us (configured %.1f, %s: %.2f); a %s command %.0f us, from the %s", t, k, want, d == "b" ? "16 MB/s" : "10 MiB/s", k / want, t, c, v[t "_from"]
		} else if (d == "c" && fua) {
			f = v["fua_cmd_ns"] / 1000 + 4 * v["fua_kib_ns"] / 1000; r4 = c + 4 * k
			printf "a 4 KiB FUA write %.0f us, a 4 KiB read %.0f us: %.2f times (die time: 1525 and 375 us, 4.07 times)", f, r4, r4 ? f / r4 : 0
		} else if (d == "c" && t == "write") {
			c = v["write_cmd_ns"] / 1000; k = v["write_kib_ns"] / 1000
			w4 = c + 4 * k; w128 = c + 128 * k
			printf "a 4 KiB write %.0f us, a 128 KiB write %.0f us: %.2f times (die time: 375 and 12000 us, 32 times), from the %s", w4, w128, w4 ? w128 / w4 : 0, v["write_from"]
		} else if (d == "c") {
			r4 = c + 4 * k; r64 = c + 64 * k
			printf "a 4 KiB read %.0f us, a 64 KiB read %.0f us: %.2f times (die time: 375 and 1500 us, 4 times)", r4, r64, r4 ? r64 / r4 : 0
		}
	}'
}

cg_create A && cg_create B
ok "cgroups A and B"
cur=
for r in $RUNS; do
	d=${r%%:*} c=${r#*:}
	if [ "$d" != "$cur" ]; then
		[ -z "$cur" ] || set_sched "$dev" none
		case $d in
		a) dev=$(nvme_dev) ;;
		b) dev=$(nvme_dev fnv0003) ;;
		c)
			ssd_prereq
			dev=$(ssd_create t29 size_mb=1024 memory_backed=0) ;;
		d)
			ssd_destroy t29
			dev=$(nullb_create t29 size=1024 mbps=10 memory_backed=0) ;;
		esac
		[ -n "$dev" ] || { tap_fail_rest "device $d not available"; }
		FNV_WINDOW=
		case ${FNV_t29_window:-} in
		1) FNV_WINDOW=1 ;;
		0) ;;
		*) [ "$d" != d ] || FNV_WINDOW=1 ;;
		esac
		cur=$d
		BASE=$(base_of "$d")
	fi
	case $c in
	fua*)
		if [ $fua_sched = 0 ]; then
			skip "$d/$c" "FUA writes pass the elevator on $(uname -r)"
			continue
		fi
		tol=15 ;;
	*) tol=10 ;;
	esac
	case_set "$c"
	u=$(unit_of "$d")
	desc="$d/$c ($dev): A's share of $(echo "$u" | sed 's/tenant_//; s/die_us/die time/; s/kb/bytes/')"
	due=$(fcalc "$WA / ($WA + $WB)")
	tot_none=
	if [ "$d" = a ] || [ "$d" = b ]; then
		set_sched "$dev" none
		tenants_run "$dev" "$RT" "$BASE" A B
		tot_none=$(fcalc "$($u A) + $($u B)")
		diag "$d/$c under none: A's share $(_share "$u" A A B), total $tot_none"
	fi
	# printed only (peers=1): BFQ with the same weights (io.bfq.weight)
	if peers_on && set_sched "$dev" bfq 2>/dev/null &&
		cg_set_weight A "$WA" io.bfq.weight &&
		cg_set_weight B "$WB" io.bfq.weight; then
		tenants_run "$dev" "$RT" "$BASE" A B
		diag "$d/$c under bfq: A's share $(_share "$u" A A B) (due $due)"
	elif peers_on; then
		diag "$d/$c: bfq not run (no bfq, or no io.bfq.weight)"
	fi
	if [ "$ALONE" = 1 ]; then
		set_sched "$dev" none
		for t in A B; do
			if tenants_run "$dev" "$RT_ALONE" "$BASE" "$t"; then
				tenant_mlat "$t" >"$FNV_WORK/alone-$t.lat"
			else
				: >"$FNV_WORK/alone-$t.lat"
			fi
		done
	fi
	set_sched "$dev" fairnvme
	depth_watch_start "$dev"
	tenants_run "$dev" "$RT" "$BASE" A B
	diag "$d/$c: depth/dev_floor_us each second: $(depth_watch_stop)"
	tenants_report A B
	cl=$(fnv_dbg "$dev" cost_learned)
	diag "$d/$c: $cl"
	diag "$d/$c: learned against configured: $(accuracy "$d" "$c" "$cl")"
	if [ "$ALONE" = 1 ]; then
		alone_print alone A B
		# printed only on d: see the top
		[ "$d" = d ] ||
		for t in A B; do
			assert_near "$d/$c: $t's alone latency predicted over fio's" \
				"$(alone_ratio alone "$t")" 1 25
		done
	fi
	[ "$FUA_A" = 0 ] || diag "$d/$c: tabs: $(fnv_dbg "$dev" tabs | tr '\n' ' ')"
	if [ "$(tenant_rc A)" != 0 ] || [ "$(tenant_rc B)" != 0 ]; then
		not_ok "$desc" "fio exited $(tenant_rc A) and $(tenant_rc B)"
		[ -z "$tot_none" ] || not_ok "$d/$c: total" "fio failed"
		continue
	fi
	diag "$d/$c: A's share by fio's totals (the drain counted) $(
		FNV_WINDOW=
		_share "$u" A A B)"
	assert_near "$desc" "$(_share "$u" A A B)" "$due" "$tol"
	[ -z "$tot_none" ] ||
		assert_ge "$d/$c: total over none's" \
			"$(ratio "$(fcalc "$($u A) + $($u B)")" "$tot_none")" 0.95
done
set_sched "$dev" none
cg_destroy A
cg_destroy B
tap_done
