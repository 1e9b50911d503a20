#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 200
#
# Churn. Eight weighted tenants on the throttled NVMe; once a second, for
# 60 s, one of them is stopped under I/O, its cgroup removed, and a new
# cgroup created with another weight and a new fio started in it. On
# purpose, the first removal of every 5 s window is the tenant holding
# D2FQ's gvt. Each tenant writes 4 KiB blocks at random into its own
# 32 MiB region of the device at depth 32 and reads them back and checks
# them as it goes (verify=crc32c, verify_backlog=32: about half its
# requests are reads). Weights: the first eight 100..800, then 100 * (1 + 3n mod 8)
# for the n-th tenant. Depth 32, not 16: the shares are the scheduler's
# only while every tenant has requests queued, and in the emulated guest a
# fio waits for the CPU now and then (the churn starts fio processes); at
# depth 16 a weight-800 tenant's queue drained in about 40 ms, and the
# snapshot taken mid-window found none queued at all.
#
# Schedule, from T0 (2 s after the first eight all issue I/O): window j is
# [T0 + 5j, T0 + 5j + 5) s, j = 0..11; its five churn events are at
# +0.5, +1.5, ..., +4.5 s, clear of its edges. Event 1 removes the gvt
# holder: the tenant whose vt_gap in io.fairnvme.stat is the smallest (the
# holder's is 0 to tau_l/16; the module does not show the holder's id).
# Events 2 and 3 remove the two oldest tenants, events 4 and 5 the tenants
# started by events 1 and 2. Each event starts one new tenant. So 3 of the
# 8 tenants present at a window's start leave during it and 5 are present
# for the whole window; 3 tenants start and stay, 2 start and leave.
#
# Asserted, in every window:
# - shares: the window's completed requests (reads + writes, the deltas of
#   rios + wios in each cgroup's io.stat between the snapshots at the
#   window's edges) of the tenants present for the whole window (started
#   before the window, already with I/O at its start, not stopped before
#   its end; at least 4 of them). Tenants that started or stopped within
#   the window are left out, and so is their I/O. Tenant i's share
#   d_i / sum(d) must be within 10 % (relative) of w_i / sum(w), both sums
#   over those tenants only: |share - expected| <= 0.10 * expected;
# - gvt (queue/iosched/gvt) is larger at the window's end than at its start.
# And over the run: no fio reported an error (verify included), and every
# removed cgroup could be removed. Everything runs at default tunables.
. /tests/lib.sh

NW=${FNV_T18_WINDOWS:-12}
TOL=10
ARGS="--rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --randrepeat=0 --verify=crc32c --verify_backlog=32 --verify_fatal=1"
W=$FNV_WORK/t18
rm -rf "$W"
mkdir -p "$W"

tap_plan $((2 * NW + 3))
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme
majmin=$(cat "/sys/block/$dev/dev")

# A tenant's fio is started ahead of its turn, with its cgroup and weight,
# and waits before its first I/O in exec_prerun on a fifo (no CPU): fio
# takes seconds to start in an emulated guest under load, and a tenant
# must be issuing from the second of its turn. "Start" below is the
# release, by a write to the fifo; until then the cgroup has done no I/O
# and is no tenant of the scheduler. Tenant k writes in region k mod 32
# (32 MiB each): the tenant before it there started 32 events earlier and
# lives at most about 15. Stopping is SIGTERM to its fio (which then
# reports, verify errors included); the cgroup is removed in the
# background as soon as its processes have left, so that the next events
# keep their time.
# The script runs in a cgroup of its own with cpu.weight 10000: the guest's
# CPU is short (TCG), and at the default weight the script would get one
# share among 12 tenant cgroups and fall seconds behind its schedule. Its
# children move themselves into their tenants' cgroups before exec'ing fio.
CTL=$CG_ROOT/t18ctl
mkdir -p "$CTL"
echo 10000 >"$CTL/cpu.weight" 2>/dev/null
echo $$ >"$CTL/cgroup.procs"

n=0        # tenants created so far (armed or started); tenant k is cgroup t18n<k>
rel=0      # tenants released so far (released in order of creation)
alive=""   # started and not stopped, oldest first
# started: "K WEIGHT MS" per released tenant; stopped: "K MS"; rmfail: K per cgroup not removed
: >"$W/started"
: >"$W/stopped"
: >"$W/rmfail"

# arm [WEIGHT] : create tenant n+1 and start its fio, waiting to be released
arm() {
	n=$((n + 1))
	_w=${1:-$((100 * (1 + (n * 3) % 8)))}
	eval "w_$n=$_w"
	cg_create t18n$n
	cg_set_weight t18n$n "$_w"
	mkfifo "$W/go.$n"
	# shellcheck disable=SC2086
	(run_in_cg t18n$n fio --eta=never --output-format=terse --terse-version=3 \
		--output="$W/t18n$n.terse" --name=t18n$n --filename="/dev/$dev" $ARGS \
		--offset=$(((n % 32) * 32))M --size=32M --time_based --runtime=600 \
		--exec_prerun="cat $W/go.$n" 2>"$W/t18n$n.err"
	 echo $? >"$W/t18n$n.rc") &
}

# release : start the oldest armed tenant's I/O (sets $new)
release() {
	rel=$((rel + 1))
	new=$rel
	eval "_w=\$w_$rel"
	echo "$rel $_w $(now_ms)" >>"$W/started"
	(echo go >"$W/go.$rel") &
	alive="${alive:+$alive }$rel"
}

# retire K : stop tenant K's fio and remove its cgroup once it is empty
retire() {
	echo "$1 $(now_ms)" >>"$W/stopped"
	# shellcheck disable=SC2046
	kill -TERM $(cg_procs t18n$1) 2>/dev/null
	(wait_until 30 rmdir "$CG_ROOT/t18n$1" || echo "$1" >>"$W/rmfail") &
	alive=$(echo " $alive " | sed "s/ $1 / /; s/^ *//; s/ *$//")
}

# snap J : each live cgroup's completed requests (rios + wios) on the
# device, gvt, and the device's completed requests (reads + writes of
# /sys/block/DEV/stat), read by one awk in one pass, into $W/snap.J
snap() {
	_t0=$(now_ms)
	{
		echo "gvt $(cat "/sys/block/$dev/queue/iosched/gvt")"
		awk '{ print "dev", $1 + $5 }' "/sys/block/$dev/stat"
		# grep, not awk, over the files: it goes on past a cgroup that
		# a background rmdir removed after the glob was expanded
		grep -H "^$majmin " "$CG_ROOT"/t18n*/io.stat 2>/dev/null | awk '{
			s = 0
			for (i = 2; i <= NF; i++) {
				split($i, a, "=")
				if (a[1] == "rios" || a[1] == "wios") s += a[2]
			}
			f = $1; sub(/\/io.stat:.*/, "", f); sub(/.*\/t18n/, "", f)
			print f, s
		}'
	} >"$W/snap.$1"
	echo "time $(( (_t0 + $(now_ms)) / 2 ))" >>"$W/snap.$1"
}

# holder : the started tenant with the smallest vt_gap, "K GAP" (then all, for the log)
holder() {
	grep -H "^$majmin " "$CG_ROOT"/t18n*/io.fairnvme.stat 2>/dev/null | awk -v alive=" $alive " '
		{
			for (i = 2; i <= NF; i++) if ($i ~ /^vt_gap=/) g = substr($i, 8) + 0
			f = $1; sub(/\/io.fairnvme.stat:.*/, "", f); sub(/.*\/t18n/, "", f)
			if (!index(alive, " " f " ")) next
			all = all " " f ":" g
			if (best == "" || g < bg) { best = f; bg = g }
		}
		END { print best, bg, all }'
}

sleep_until() {
	_d=$(($1 - $(now_ms)))
	[ "$_d" -gt 0 ] && sleep "$(fcalc "$_d / 1000")"
}

# armed K : tenant K's fio waits in exec_prerun (its cat is running)
armed() {
	for _p in $(cg_procs t18n$1); do
		[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = cat ] && return 0
	done
	return 1
}
# issuing K : tenant K has completed requests on the device
issuing() {
	grep -q "^$majmin .*[rw]ios=[1-9]" "$CG_ROOT/t18n$1/io.stat"
}

AHEAD=4
for s in 1 2 3 4 5 6 7 8; do
	arm $((100 * s))
done
for s in $(seq $AHEAD); do arm; done
t0=$(now_ms)
for s in 1 2 3 4 5 6 7 8; do
	wait_until 120 armed $s || tap_fail_rest "tenant $s's fio did not start in 120 s"
done
for s in 1 2 3 4 5 6 7 8; do
	release
done
for s in 1 2 3 4 5 6 7 8; do
	wait_until 60 issuing $s || tap_fail_rest "tenant $s did no I/O in 60 s"
done
diag "first 8 tenants armed and issuing after $(($(now_ms) - t0)) ms"
T0=$(($(now_ms) + 2000))
early=0
late=0
j=0
while [ $j -lt "$NW" ]; do
	ws=$((T0 + 5000 * j))
	sleep_until $ws
	snap $j
	e=0
	while [ $e -lt 5 ]; do
		sleep_until $((ws + 500 + 1000 * e))
		l=$(($(now_ms) - ws - 500 - 1000 * e))
		[ $l -gt $late ] && late=$l
		case $e in
		0)
			h=$(holder)
			victim=${h%% *}
			echo "$j $h" >>"$W/holders"
			;;
		1 | 2) victim=${alive%% *} ;;
		3) victim=$b0 ;;
		4) victim=$b1 ;;
		esac
		if [ -z "$victim" ]; then
			diag "window $j event $e: no victim (alive: $alive)"
			victim=${alive%% *}
		fi
		retire "$victim"
		armed $((rel + 1)) || early=$((early + 1))
		release
		arm
		[ $e = 0 ] && b0=$new
		[ $e = 1 ] && b1=$new
		e=$((e + 1))
	done
	diag "window $j done: $rel tenants started, events up to $late ms late, $early released before their fio was ready"
	j=$((j + 1))
done
sleep_until $((T0 + 5000 * NW))
snap "$NW"
for k in $alive; do
	retire "$k"
done
# the armed tenants never released: kill them, no I/O, not counted
k=$((rel + 1))
while [ $k -le $n ]; do
	echo 1 >"$CG_ROOT/t18n$k/cgroup.kill"
	(wait_until 30 rmdir "$CG_ROOT/t18n$k" || echo "$k" >>"$W/rmfail") &
	k=$((k + 1))
done
# a release whose fio died before it read its fifo would wait forever: a
# reader-writer open of each fifo lets it go
k=1
while [ $k -le $n ]; do
	: <>"$W/go.$k"
	k=$((k + 1))
done
# every cgroup gone (the background rmdirs give up after 30 s), not the
# shell's wait: a fio that hangs must fail this test, not time it out
gone() { ! ls -d "$CG_ROOT"/t18n* >/dev/null 2>&1; }
wait_until 40 gone || diag "cgroups left: $(ls -d "$CG_ROOT"/t18n* | tr '\n' ' ')"
sleep 1
rm_fail=$(($(wc -l <"$W/rmfail") + $(ls -d "$CG_ROOT"/t18n* 2>/dev/null | wc -l)))
echo $$ >"$CG_ROOT/cgroup.procs"
rmdir "$CTL"
diag "$rel tenants started in all; churn events up to ${late} ms late; $early released before their fio was ready"

# window J's verdict, from the snapshots at its edges and the tenants' times
for j in $(seq 0 $((NW - 1))); do
	out=$(awk -v tol="$TOL" -v T="$T0" -v s0="$W/snap.$j" -v s1="$W/snap.$((j + 1))" '
		FILENAME ~ /started$/ { w[$1] = $2; born[$1] = $3; next }
		FILENAME ~ /stopped$/ { gone[$1] = $2; next }
		FILENAME == s0 { c0[$1] = $2; has0[$1] = 1; next }
		FILENAME == s1 { c1[$1] = $2; if ($1 ~ /^[0-9]+$/) ids[$1] = 1 }
		END {
			t0 = c0["time"]; t1 = c1["time"]
			for (k in ids) {
				d = c1[k] - c0[k]
				if (has0[k] && born[k] < t0 && c0[k] > 0 && !(k in gone && gone[k] < t1)) {
					full[k] = d; nf++; D += d; S += w[k]
				} else {
					x = x sprintf(" n%s(w=%d,d=%d)", k, w[k], d)
				}
			}
			bad = 0; worst = 0
			for (k in full) {
				sh = D > 0 ? full[k] / D : 0; ex = w[k] / S
				dv = (sh - ex) / ex * 100
				if (dv > tol || dv < -tol) bad++
				if ((dv < 0 ? -dv : dv) > (worst < 0 ? -worst : worst)) worst = dv
				y = y sprintf(" n%s(w=%d,d=%d,%.3f/%.3f,%+.1f%%)", k, w[k], full[k], sh, ex, dv)
			}
			printf "SUM %d %d %d %s %s %.1f %.1f %.1f %.0f\n", nf, bad, D, c0["gvt"], c1["gvt"], worst, (t0 - T) / 1000, (t1 - t0) / 1000, (c1["dev"] - c0["dev"]) / (t1 - t0) * 1000
			print "FULL" y
			print "OUT" x
		}' "$W/started" "$W/stopped" "$W/snap.$j" "$W/snap.$((j + 1))")
	# shellcheck disable=SC2046
	set -- $(echo "$out" | sed -n 's/^SUM //p')
	nf=$1 bad=$2 D=$3 g0=$4 g1=$5 worst=$6 at=$7 span=$8 iops=$9
	diag "window $j (at ${at} s for ${span} s; device $iops IOPS; $D requests of full-window tenants; gvt $g0 -> $g1):"
	diag "  full-window (weight, requests, share/expected, deviation):$(echo "$out" | sed -n 's/^FULL//p')"
	diag "  left out:$(echo "$out" | sed -n 's/^OUT//p')"
	if [ "$nf" -lt 4 ]; then
		not_ok "window $j: shares of the full-window tenants within ${TOL} % of weight/sum" "only $nf full-window tenants"
	elif [ "$bad" = 0 ]; then
		ok "window $j: shares of $nf full-window tenants within ${TOL} % of weight/sum (worst ${worst} %)"
	else
		not_ok "window $j: shares of $nf full-window tenants within ${TOL} % of weight/sum" "$bad outside, worst ${worst} %"
	fi
	check "window $j: gvt advances ($g0 -> $g1)" test "$g1" -gt "$g0"
done
diag "gvt holder removed at each window's first event (window, tenant, vt_gap, then every tenant's vt_gap):"
diag "$(cat "$W/holders")"

# fio: terse error field 0, exit 0 or 128 (stopped by SIGTERM), no verify complaint
errs=""
for k in $(seq 1 $rel); do
	rc=$(cat "$W/t18n$k.rc" 2>/dev/null)
	e=$(fio_err "$W/t18n$k.terse")
	if [ "$e" != 0 ] || { [ "$rc" != 0 ] && [ "$rc" != 128 ]; } ||
		grep -qiE 'verify|crc|bad magic|error' "$W/t18n$k.err"; then
		errs="$errs n$k(rc=$rc,err=$e: $(grep -v 'terminating on signal' "$W/t18n$k.err" | head -n 2 | tr '\n' ' '))"
	fi
done
if [ -z "$errs" ]; then
	ok "fio (verify=crc32c) of all $rel tenants without error"
else
	not_ok "fio (verify=crc32c) of all $rel tenants without error" "$errs"
fi
check "every cgroup removed under I/O ($rm_fail failed)" test "$rm_fail" = 0
tap_done
