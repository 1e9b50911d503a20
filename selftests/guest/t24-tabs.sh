#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 600
#
# TABS on the emulated SSD (fnvssd.ko at its defaults), fairnvme untuned
# (tabs on is the default), beside none in one boot (and mq-deadline,
# printed only, with fnv.args=peers=1: lib.sh's peer_scheds). The
# workers are the TABS paper's (Table 2): 16 KiB random readers and
# writers with libaio, direct; writers with sync=1, so their writes carry
# FUA; queue depth 16 each (what the guest sustains). Workload 1w1r in
# ./run check, and 1w2r, 2w1r, 3w1r, 1w3r too in check-extended (each
# of the five 0.88 to 0.99 under fairnvme, 0.26 to 0.28 under none, in
# four runs on 6.12), all workers in one cgroup, so that only TABS tells
# reads from FUA writes. BWmax per type is measured alone under none
# first (and each type alone under fairnvme, for BWmax auto); I_x is the
# share of workers of type x (the paper's assumption).
# The fairness factor is Eq. 2, inverted when above 1. Each run measures
# after a 4 s ramp (for every scheduler alike): TABS' IDLE phase and the
# feedback's first epochs (1 s each) come first; its trajectory in the
# first fairnvme run is printed. 12 s each: over 8 s, one workload's
# fairness factor varied from 0.74 to 0.98 between runs as alpha moved
# epoch by epoch.
#
# Targets: fairnvme's mean fairness factor >= 0.85 and each workload's
# >= 0.7, at least 3 times none's mean; the readers' bandwidth in 1w1r at
# least twice none's; the bytes moved over all workloads at least 80 % of
# none's. Then two tenants of weights 300:100, each a reader and a FUA
# writer: each tenant's share of the device time within +-10 % of its
# weight's, TABS on; the device time counted outside the scheduler (each
# tenant's reads and writes in io.stat, priced as fnvssd's configuration
# holds the device for them).
#
# FUA writes pass the elevator from 6.5 on; on 6.1 (blk_insert_flush())
# there is nothing to hold, tabs cannot be turned on and this test skips
# (decided by the kernel's version: from 6.5 on, tabs must be on).
. /tests/lib.sh

RT=${FNV_T24_RUNTIME:-12}
tap_plan 13
ssd_prereq
fnv_load || tap_fail_rest "fairnvme not available"
W="$FNV_WORK/t24"
rm -rf "$W"
mkdir -p "$W"
trap 'cg_destroy t24; cg_destroy t24a; cg_destroy t24b; ssd_destroy t24' EXIT
dev=$(ssd_create t24) || tap_fail_rest "cannot create an fnvssd device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme
# the kernel, not the module, says whether FUA writes reach the elevator
case "$(uname -r)" in
[1-5].* | 6.[0-4].* | 6.[0-4]) fua_sched=0 ;;
*) fua_sched=1 ;;
esac
if [ $fua_sched = 0 ]; then
	# 6.1: off, and "on" refused with the reason in the kernel log
	if (echo on >"/sys/block/$dev/queue/iosched/tabs") 2>"$W/tabs.err"; then
		not_ok "tabs on refused on $(uname -r)" "the write succeeded"
	else
		check "tabs off on $(uname -r), on refused ($(cat "$W/tabs.err")), the log says why" \
			sh -c "grep -q 'not supported' '$W/tabs.err' && dmesg | grep -q 'fairnvme: tabs stays off' && test \"\$(cat /sys/block/$dev/queue/iosched/tabs)\" = '[off] on'"
	fi
	tap_skip_rest "FUA writes bypass the elevator before 6.5: nothing for TABS to hold on $(uname -r)"
fi
check "tabs on by default on $dev ($(uname -r))" test "$(cat "/sys/block/$dev/queue/iosched/tabs")" = "off [on]"

COMMON="--filename=/dev/$dev --bs=16k --direct=1 --ioengine=libaio --iodepth=16 --time_based --runtime=$RT --ramp_time=4 --randrepeat=0 --size=128M"

# jobs NW NR : fio job options for NW FUA writers and NR readers
jobs() {
	_j="" _i=0
	while [ $_i -lt "$1" ]; do
		_j="$_j --name=w$_i --rw=randwrite --sync=1 --offset=$((512 + _i * 128))M"
		_i=$((_i + 1))
	done
	_i=0
	while [ $_i -lt "$2" ]; do
		_j="$_j --name=r$_i --rw=randread --offset=$((_i * 128))M"
		_i=$((_i + 1))
	done
	echo "$_j"
}

# run OUT NW NR : the workload in cgroup t24
run() {
	# shellcheck disable=SC2046,SC2086
	run_in_cg t24 fio --eta=never --output-format=terse --terse-version=3 \
		--output="$1" $COMMON $(jobs "$2" "$3") 2>"$1.err"
}

# ff BWR BWF NW NR : Eq. 2 with I_x the share of workers, inverted above 1
ff() {
	awk -v r="$1" -v f="$2" -v nw="$3" -v nr="$4" -v mr="$bwmax_r" -v mf="$bwmax_f" 'BEGIN {
		n = nw + nr
		if (!r || !f) { print 0; exit }
		x = (r / (mr * nr / n)) / (f / (mf * nw / n))
		if (x > 1) x = 1 / x
		printf "%.3f\n", x }'
}

cg_create t24
set_sched "$dev" none
run "$W/alone.r" 0 1
run "$W/alone.w" 1 0
bwmax_r=$(($(fio_kb "$W/alone.r" read) / RT))
bwmax_f=$(($(fio_kb "$W/alone.w" write) / RT))
diag "BWmax alone (none): read $bwmax_r KiB/s, FUA write $bwmax_f KiB/s"
check "BWmax measured (read $bwmax_r, FUA $bwmax_f KiB/s)" test "$bwmax_r" -gt 0 -a "$bwmax_f" -gt 0

# ./run check: 1w1r (a reader against a FUA writer); check-extended
# (fnv.args extended=1): all five
WL="1w1r"
[ "${FNV_extended:-0}" = 1 ] && WL="1w1r 1w2r 2w1r 3w1r 1w3r"
nwl=$(echo "$WL" | wc -w)
for s in none $(peer_scheds mq-deadline) fairnvme; do
	set_sched "$dev" "$s"
	if [ "$s" = fairnvme ]; then
		# Each type alone first, on this instance: tabs_*_bwmax = auto
		# learns BWmax from the times one type alone is at the device,
		# as on a host whose database and readers are not always busy
		# at once.
		run "$W/alone.fr" 0 1
		run "$W/alone.fw" 1 0
		diag "alone under fairnvme: read $(($(fio_kb "$W/alone.fr" read) / RT)) KiB/s, FUA write $(($(fio_kb "$W/alone.fw" write) / RT)) KiB/s, depth $(fnv_dbg "$dev" depth), dev_floor_us $(fnv_dbg "$dev" dev_floor_us); $(fnv_dbg "$dev" tabs | sed -n 2p)"
	fi
	sum=0
	for w in $WL; do
		nw=${w%%w*} nr=${w#*w}
		nr=${nr%r}
		[ "$s" = fairnvme ] && [ "$w" = 1w1r ] && (
			i=0
			while [ $i -lt $((RT + 4)) ]; do
				sleep 1
				i=$((i + 1))
				echo "$i s: $(fnv_dbg "$dev" tabs | head -n 3 | tr '\n' ' ')"
			done >"$W/alpha"
		) &
		run "$W/$s.$w" "$nw" "$nr"
		wait
		r=$(($(fio_kb "$W/$s.$w" read) / RT))
		f=$(($(fio_kb "$W/$s.$w" write) / RT))
		x=$(ff "$r" "$f" "$nw" "$nr")
		fr=$(awk -v m="$bwmax_r" -v nw="$nw" -v nr="$nr" 'BEGIN { printf "%d", m * nr / (nw + nr) }')
		fw=$(awk -v m="$bwmax_f" -v nw="$nw" -v nr="$nr" 'BEGIN { printf "%d", m * nw / (nw + nr) }')
		diag "$s $w: read $r KiB/s (FBW $fr), FUA $f KiB/s (FBW $fw), fairness $x"
		v=$(echo "$s" | tr - _)
		eval "ff_${v}_$w=$x rd_${v}_$w=$r tot_${v}_$w=$((r + f))"
		sum=$(fcalc "$sum + $x")
	done
	eval "mean_$(echo "$s" | tr - _)=$(fcalc "$sum / $nwl")"
	[ "$s" = fairnvme ] && diag "fairnvme: $(fnv_dbg "$dev" tabs | tr '\n' ' ')"
done
diag "alpha and phase each second, fairnvme 1w1r:"
sed 's/^/  /' "$W/alpha" | while read -r l; do diag "$l"; done
# shellcheck disable=SC2154
diag "mean fairness factor: none $mean_none,${mean_mq_deadline:+ mq-deadline $mean_mq_deadline,} fairnvme $mean_fairnvme (TABS paper: 0.76, noop 0.18)"

assert_ge "fairnvme: mean fairness factor" "$mean_fairnvme" 0.85
lo=1 tn=0 tf=0 each=""
for w in $WL; do
	eval "x=\$ff_fairnvme_$w a=\$tot_none_$w b=\$tot_fairnvme_$w"
	awk -v x="$x" 'BEGIN { exit !(x < 0.7) }' && lo=0
	tn=$((tn + a)) tf=$((tf + b))
	each="$each${each:+, }$w $x"
done
check "fairnvme: each workload's fairness factor >= 0.7 ($each)" test "$lo" = 1
assert_ge "fairnvme's mean fairness factor over none's" "$(ratio "$mean_fairnvme" "$mean_none")" 3
# shellcheck disable=SC2154
assert_ge "1w1r: readers' bandwidth, fairnvme over none" "$(ratio "$rd_fairnvme_1w1r" "$rd_none_1w1r")" 2
assert_ge "bytes moved over the workloads, fairnvme over none" "$(ratio "$tf" "$tn")" 0.8

# Two tenants, weights 300:100, each a reader and a FUA writer (the same
# fairnvme instance: BWmax as learned above).
cg_create t24a
cg_create t24b
echo "default 300" >"$CG_ROOT/t24a/io.fairnvme.weight"
echo "default 100" >"$CG_ROOT/t24b/io.fairnvme.weight"
majmin=$(cat "/sys/block/$dev/dev")
# devtime CG : the device time (us) of CG's requests so far, counted
# outside the scheduler: its reads and writes from io.stat (blk-cgroup's
# count), each priced as fnvssd's configuration makes it hold the device:
# a 16 KiB read (one page) a die for t_read_us and its channel for
# t_xfer_us, a 16 KiB FUA write a die for t_xfer_us + t_prog_us (data in,
# then program: Documentation/fnvssd.rst)
cfg=$SSD_CFS/t24
t_rd=$(($(cat "$cfg/t_read_us") + $(cat "$cfg/t_xfer_us")))
t_wr=$(($(cat "$cfg/t_prog_us") + $(cat "$cfg/t_xfer_us")))
devtime() {
	sed -n "s/^$majmin .*rios=\([0-9]*\) wios=\([0-9]*\).*/\1 \2/p" "$CG_ROOT/$1/io.stat" |
		awk -v r="$t_rd" -v w="$t_wr" '{ printf "%d\n", $1 * r + $2 * w }'
}
wrun() {
	# shellcheck disable=SC2046,SC2086
	run_in_cg "$1" fio --eta=never --output-format=terse --terse-version=3 \
		--output="$W/w.$1" $COMMON --ramp_time=0 --runtime=$((RT + 4)) \
		--name=w --rw=randwrite --sync=1 --offset="$2"M \
		--name=r --rw=randread --offset="$3"M 2>"$W/w.$1.err"
}
wrun t24a 512 0 &
wrun t24b 768 256 &
sleep 3
a0=$(devtime t24a) b0=$(devtime t24b)
sleep "$RT"
a1=$(devtime t24a) b1=$(devtime t24b)
wait
sa=$(ratio "$((a1 - a0))" "$((a1 - a0 + b1 - b0))")
diag "weighted: device time (io.stat, read $t_rd us, FUA write $t_wr us) t24a $((a1 - a0)) us, t24b $((b1 - b0)) us; read/FUA KiB: t24a $(fio_kb "$W/w.t24a" read)/$(fio_kb "$W/w.t24a" write), t24b $(fio_kb "$W/w.t24b" read)/$(fio_kb "$W/w.t24b" write); $(fnv_dbg "$dev" tabs | head -n 3 | tr '\n' ' ')"
assert_near "weights 300:100, TABS on: share of the weight-300 tenant" "$sa" 0.75 10
check "both weighted tenants' fio ran without error" test "$(fio_err "$W/w.t24a")" = 0 -a "$(fio_err "$W/w.t24b")" = 0
check "tabs off is accepted and lets held writes go" sh -c "echo off >/sys/block/$dev/queue/iosched/tabs && grep -q 'enabled=0' /sys/kernel/debug/block/$dev/sched/tabs"

# Teardown with FUA writes held: a scheduler switch, then the device's
# removal (fnvssd power off), each under a reader and a FUA writer.
# held_now: FUA writes on the delay queue now (debugfs tabs)
held_now() {
	fnv_dbg "$dev" tabs 2>/dev/null | sed -n 's/.*held_now=\([0-9]*\).*/\1/p'
}
# held_run OUT : a reader and a FUA writer in t24a until killed
held_run() {
	# shellcheck disable=SC2086
	run_in_cg t24a fio --eta=never --output-format=terse --terse-version=3 \
		--output="$1" $COMMON --ramp_time=0 --runtime=30 \
		--name=w --rw=randwrite --sync=1 --offset=512M \
		--name=r --rw=randread --offset=0 2>"$1.err"
}
held_wait() { # up to 10 s for a held FUA write; prints the most seen
	_m=0 _i=0
	while [ $_i -lt 100 ]; do
		_h=$(held_now)
		[ "${_h:-0}" -gt "$_m" ] && _m=$_h
		[ "$_m" -gt 0 ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_m"
}
echo on >"/sys/block/$dev/queue/iosched/tabs"
held_run "$W/sw" &
hp=$!
h=$(held_wait)
t0=$(now_ms)
set_sched "$dev" none
rc=$?
t1=$(now_ms)
pkill -INT -f "output=$W/sw" 2>/dev/null
wait "$hp"
check "scheduler switched to none with $h FUA writes held (rc $rc, $((t1 - t0)) ms), fio then ended without error" \
	test "$h" -gt 0 -a "$rc" = 0 -a "$(fio_err "$W/sw")" = 0
set_sched "$dev" fairnvme
# A new elevator instance has measured no BWmax, and TABS holds nothing
# without it (it would wait for a type alone at the device): this point
# tests removal with writes held, so it sets the BWmax measured above.
echo "$bwmax_r" >"/sys/block/$dev/queue/iosched/tabs_read_bwmax"
echo "$bwmax_f" >"/sys/block/$dev/queue/iosched/tabs_fua_bwmax"
held_run "$W/rm" &
hp=$!
h=$(held_wait)
t0=$(now_ms)
ssd_destroy t24
t1=$(now_ms)
wait_until 20 sh -c "! pgrep -f 'output=$W/rm' >/dev/null"
gone=$(pgrep -f "output=$W/rm" >/dev/null && echo 0 || echo 1)
wait "$hp"
check "fnvssd powered off with $h FUA writes held ($((t1 - t0)) ms): fio ended, the disk is gone" \
	test "$h" -gt 0 -a "$gone" = 1 -a ! -e "/dev/$dev"
tap_done
