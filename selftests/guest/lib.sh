# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh - helpers for the fairnvme in-guest tests (busybox sh). Source it:
#     . /tests/lib.sh
#
# Environment (set by /init from the kernel command line):
#   FNV_SCHED  scheduler under test (default fairnvme)
#   FNV_MOD    module providing it (default fairnvme; "" if built in)
#   FNV_timing 0 on a slow debug kernel (make check-debug: fnv.args=timing=0):
#              timing_off is then true, and the tests that assert a speed or a
#              share skip or relax those points and keep the others
#
# TAP: tap_plan N; ok DESC; not_ok DESC REASON; skip DESC REASON; check DESC CMD...;
#      assert_near DESC MEASURED EXPECTED TOLPCT; assert_ge/assert_le DESC VALUE LIMIT;
#      tap_fail_rest REASON; tap_skip_rest REASON; tap_done (exit status: 0 only if all planned points passed)
# Devices: nvme_dev [SERIAL]; nvme_bw_dev; have_nullb; nullb_create NAME [key=val...]; nullb_destroy NAME;
#      set_sched DEV NAME; get_sched DEV; dev_sched_busy DEV; dev_sched_busy_wait DEV SEC [MIN]
# Emulated SSD: ssd_prereq; ssd_load; ssd_create NAME [attr=val...] (prints the disk); ssd_destroy NAME;
#      ssd_stat NAME KEY
# Module: fnv_load; fnv_unload; mod_loaded MODNAME
# Cgroups: cg_create NAME; cg_destroy NAME; cg_procs NAME; cg_set_weight NAME W [FILE];
#      run_in_cg NAME CMD...
# fio: fio_run OUT ARGS...; fio_iops FILE [read|write|total]; fio_lat FILE [read|write] [mean|p99];
#      fio_err FILE; fio_kb FILE [read|write]; fio_check DESC OUT RC
# Tenants: tenant_start NAME DEV RUNTIME ARGS...; tenants_wait; tenants_run DEV RUNTIME "ARGS" NAME...;
#      tenant_iops NAME; tenant_rc NAME; tenant_share NAME ALLNAMES...; tenants_report NAME...
#      tenant_kb NAME; tenant_kb_share NAME ALLNAMES...
#      fnv_nvme_setup WORKDIR; pair_cgroups; pair_start RUNTIME [ARGS...]
# Misc: expect_einval FILE VALUE; fcalc EXPR; ratio A B; wait_until TIMEOUT CMD...; now_ms; timing_off; extreme_mix;
#      depth_watch_start DEV; depth_watch_stop; worst_slowdown PREFIX NAME...
# Tracing: fnv_quiet [SEC]; fnv_trace_event 0|1 EVENT...

FNV_SCHED=${FNV_SCHED-fairnvme}
# A fixed tau_l for the emulated devices (4 to 8 MB/s): 1 KiB per unit of
# weight, about what tau_l_bytes=auto finds there. Only t13, which tests
# D2FQ's mechanics at set values of the tunable, writes it; every share
# test runs at the defaults.
FNV_TAU_EMU=1024
FNV_MOD=${FNV_MOD-fairnvme}
CG_ROOT=${CG_ROOT:-/sys/fs/cgroup}
NULLB_CFS=/sys/kernel/config/nullb
FNV_WORK=${FNV_WORK:-/tmp/fnv}
mkdir -p "$FNV_WORK"

# ---------------------------------------------------------------- TAP ----
_tap_n=0
_tap_fail=0
_tap_skip=0
_tap_plan=0

# tap_plan N : the version line and the plan, first, as kselftest.h does
tap_plan() {
	_tap_plan=$1
	echo "TAP version 13"
	echo "1..$1"
}

# skip DESC REASON : a point whose prerequisite (kernel option, device,
# module, tool) is missing: "ok N - DESC # SKIP REASON", not a failure
skip() {
	_tap_n=$((_tap_n + 1))
	_tap_skip=$((_tap_skip + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}

# tap_skip_rest REASON : skip every remaining planned point and end the
# script (a missing prerequisite for all of them)
tap_skip_rest() {
	while [ "$_tap_n" -lt "$_tap_plan" ]; do
		skip "not run" "$1"
	done
	tap_done
}

ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1"
}

# not_ok DESC [REASON]
not_ok() {
	_tap_n=$((_tap_n + 1))
	_tap_fail=$((_tap_fail + 1))
	if [ -n "${2:-}" ]; then
		echo "not ok $_tap_n - $1 ($2)"
	else
		echo "not ok $_tap_n - $1"
	fi
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# peer_scheds SCHED... : the schedulers a test runs beside fairnvme only
# to print their numbers, nothing asserted on them. None unless the run
# asks for them (FNV_GUEST_ARGS=peers=1 make guest-tests, which /init
# exports as FNV_peers=1): make check spends its time on what it asserts;
# comparing schedulers is the benchmark's job.
peer_scheds() {
	[ "${FNV_peers:-0}" = 1 ] && echo "$@"
	return 0
}

# peers_on : true if the run asks for the printed-only comparisons
peers_on() {
	[ "${FNV_peers:-0}" = 1 ]
}

# npeers SCHED... : how many of them peer_scheds runs (for tap_plan)
npeers() {
	peer_scheds "$@" | wc -w
}

# check DESC CMD... : ok if CMD succeeds; otherwise not ok with its stderr/stdout
check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_d"
	else
		not_ok "$_d" "'$*' failed: $(echo "$_out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# timing_off : true on a kernel too slow for assertions on speed or shares
# (KASAN and lockdep under TCG, make check-debug)
timing_off() {
	[ "${FNV_timing:-1}" = 0 ]
}

# fcalc EXPR : floating point arithmetic through awk, prints the result
fcalc() {
	awk "BEGIN { printf \"%.6g\n\", ($1) }"
}

# ratio A B : A / B; nothing (which fails any assert_*) unless both are
# numbers and B > 0: a ratio against a failed, empty or zero reference
# must fail the point that uses it
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = "^[0-9]*[.]?[0-9]+([eE][-+]?[0-9]+)?$"
		if (a !~ n || b !~ n || b + 0 <= 0) exit
		printf "%.6g\n", a / b }'
}

# assert_near DESC MEASURED EXPECTED TOLPCT : |measured-expected| <= expected*tol/100
assert_near() {
	if awk -v m="$2" -v e="$3" -v t="$4" 'BEGIN {
		if (m == "" || e == "" || m !~ /^-?[0-9.eE+-]+$/) exit 1
		d = m - e; if (d < 0) d = -d
		a = e; if (a < 0) a = -a
		exit !(d <= a * t / 100.0) }'; then
		ok "$1 $2 expected $3 +-$4%"
	else
		not_ok "$1 $2 expected $3 +-$4%" "outside tolerance"
	fi
}

# assert_ge DESC VALUE MIN / assert_le DESC VALUE MAX (numbers, may be floats)
assert_ge() {
	if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v != "" && v + 0 >= l + 0) }'; then
		ok "$1 $2 >= $3"
	else
		not_ok "$1 $2 >= $3" "measured ${2:-nothing}"
	fi
}
assert_le() {
	if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v != "" && v + 0 <= l + 0) }'; then
		ok "$1 $2 <= $3"
	else
		not_ok "$1 $2 <= $3" "measured ${2:-nothing}"
	fi
}

# tap_fail_rest REASON : report every remaining planned point as failed, exit 1
tap_fail_rest() {
	diag "fatal: $1"
	_r=$(echo "$1" | head -n 1 | cut -c1-100)
	while [ "$_tap_n" -lt "$_tap_plan" ]; do
		not_ok "not run after fatal error" "$_r"
	done
	tap_done
}

# tap_done : end of a test script
tap_done() {
	echo "# Totals: pass:$((_tap_n - _tap_fail - _tap_skip)) fail:$_tap_fail xfail:0 xpass:0 skip:$_tap_skip error:0"
	if [ "$_tap_n" -ne "$_tap_plan" ]; then
		echo "# planned $_tap_plan tests but ran $_tap_n"
		exit 1
	fi
	[ "$_tap_fail" -eq 0 ] && exit 0
	echo "# $_tap_fail of $_tap_n failed"
	exit 1
}

# ------------------------------------------------------------- misc ------
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# wait_until TIMEOUT_SEC CMD... : poll CMD every 0.1 s
wait_until() {
	_t=$(($1 * 10))
	shift
	while [ "$_t" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

# expect_einval FILE VALUE : ok only if writing VALUE fails with EINVAL and
# FILE's content is unchanged afterwards.
expect_einval() {
	_f=$1 _v=$2
	_d="write '$_v' to $_f rejected with EINVAL, content unchanged"
	if [ ! -e "$_f" ]; then
		not_ok "$_d" "$_f does not exist"
		return 1
	fi
	_before=$(cat "$_f" 2>&1)
	# dd reports the errno of the failed write(2); a shell redirection
	# in busybox sh does not say why it failed
	_err=$(printf '%s\n' "$_v" | dd of="$_f" conv=notrunc 2>&1 >/dev/null)
	_rc=$?
	_after=$(cat "$_f" 2>&1)
	if [ $_rc -eq 0 ]; then
		not_ok "$_d" "write succeeded, content now '$(echo "$_after" | head -n 3 | tr '\n' ' ')'"
		return 1
	fi
	case "$_err" in
	*"Invalid argument"*) ;;
	*)
		not_ok "$_d" "write failed but not with EINVAL: $_err"
		return 1
		;;
	esac
	if [ "$_before" != "$_after" ]; then
		not_ok "$_d" "content changed from '$_before' to '$_after'"
		return 1
	fi
	ok "$_d"
}

# ------------------------------------------------------------ devices ----
_blkname() { # accept nvme0n1 or /dev/nvme0n1
	echo "${1#/dev/}"
}

# nvme_dev [SERIAL] : name of the emulated NVMe namespace whose controller
# has SERIAL: fnv0001 (default) is throttled by IOPS only, fnv0002 (see
# nvme_bw_dev) by IOPS and bandwidth. Probe order, hence nvmeX, may vary.
nvme_dev() {
	_serial=${1:-fnv0001}
	_i=0
	while [ $_i -lt 50 ]; do
		for _d in /sys/block/nvme*n*; do
			[ -e "$_d" ] || continue
			[ "$(cat "$_d/device/serial" 2>/dev/null | tr -d ' ')" = "$_serial" ] || continue
			basename "$_d"
			return 0
		done
		sleep 0.2
		_i=$((_i + 1))
	done
	echo "nvme_dev: no nvme namespace with serial $_serial in /sys/block" >&2
	return 1
}

# nvme_bw_dev : the namespace throttled by IOPS and bandwidth (4 MiB/s by
# default), on which a request's cost grows with its size
nvme_bw_dev() {
	nvme_dev fnv0002
}

get_sched() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$(_blkname "$1")/queue/scheduler"
}

# set_sched DEV NAME : select scheduler NAME, fail unless it is then active;
# for fairnvme, then apply $FNV_TUNE (see below)
set_sched() {
	_dev=$(_blkname "$1")
	_f=/sys/block/$_dev/queue/scheduler
	if ! _err=$( (echo "$2" >"$_f") 2>&1); then
		echo "set_sched $_dev $2: write failed: $_err (available: $(cat "$_f"))" >&2
		return 1
	fi
	_cur=$(get_sched "$_dev")
	if [ "$_cur" != "$2" ]; then
		echo "set_sched $_dev $2: active scheduler is '$_cur' ($(cat "$_f"))" >&2
		return 1
	fi
	[ "$2" = fairnvme ] || return 0
	# FNV_TUNE="ATTR=VALUE ...": iosched settings for each new instance
	for _kv in ${FNV_TUNE:-}; do
		echo "${_kv#*=}" >"/sys/block/$_dev/queue/iosched/${_kv%%=*}" || return 1
	done
}

# dev_sched_busy DEV : requests currently holding a scheduler tag (queued in
# the elevator or in flight at the driver), summed over hardware queues.
# Prints 0 when no scheduler is attached.
dev_sched_busy() {
	_dev=$(_blkname "$1")
	cat /sys/kernel/debug/block/"$_dev"/hctx*/sched_tags 2>/dev/null |
		awk -F= '/^busy=/ { s += $2 } END { print s + 0 }'
}

# dev_sched_busy_wait DEV SEC [MIN] : dev_sched_busy, sampled every 200 ms
# for up to SEC seconds until it is MIN (default 1) or more (one sample can
# fall between two of fio's batches on a slow guest, and fio's jobs reach
# their full depth at their own pace); prints the largest sample
dev_sched_busy_wait() {
	_n=$(($2 * 5))
	_m=0
	while _b=$(dev_sched_busy "$1"); do
		[ "$_b" -gt "$_m" ] && _m=$_b
		[ "$_m" -ge "${3:-1}" ] || [ "$_n" -le 0 ] && break
		sleep 0.2
		_n=$((_n - 1))
	done
	echo "$_m"
}

# dev_inflight DEV : requests in flight at the driver (reads + writes)
dev_inflight() {
	awk '{ print $1 + $2 }' "/sys/block/$(_blkname "$1")/inflight"
}

# nullb_create NAME [key=val ...] : create and power on a null_blk device
# through configfs; prints the block device name (nullbN).
# have_nullb : is null_blk (with configfs) available in this kernel?
have_nullb() {
	[ -d "$NULLB_CFS" ] || modprobe null_blk nr_devices=0 >/dev/null 2>&1
	[ -d "$NULLB_CFS" ]
}

# cfs_power_on DIR [ATTR=VALUE...] : a configfs device (null_blk's, fnvssd's):
# make DIR, set each attribute, power it on; DIR removed again on failure
cfs_power_on() {
	_c=$1
	shift
	mkdir "$_c" || return 1
	for _kv in "$@"; do
		if ! echo "${_kv#*=}" >"$_c/${_kv%%=*}"; then
			echo "cfs_power_on: cannot set ${_kv} in $_c" >&2
			rmdir "$_c"
			return 1
		fi
	done
	if ! echo 1 >"$_c/power"; then
		rmdir "$_c"
		return 1
	fi
}

nullb_create() {
	_n=$1
	shift
	if [ ! -d "$NULLB_CFS" ]; then
		modprobe null_blk nr_devices=0 >/dev/null 2>&1
		[ -d "$NULLB_CFS" ] || { echo "nullb_create: $NULLB_CFS missing" >&2; return 1; }
	fi
	cfs_power_on "$NULLB_CFS/$_n" "$@" || return 1
	# the disk is named after the configfs item on newer kernels, nullb<index> on older ones
	_idx=$(cat "$NULLB_CFS/$_n/index")
	if wait_until 5 _nullb_appeared "$_n" "$_idx"; then
		_nullb_appeared "$_n" "$_idx"
		return 0
	fi
	echo "nullb_create: neither /dev/$_n nor /dev/nullb$_idx appeared ($(ls /sys/block | tr '\n' ' '))" >&2
	return 1
}

_nullb_appeared() {
	for _c in "$1" "nullb$2"; do
		if [ -e "/sys/block/$_c" ] && [ -b "/dev/$_c" ]; then
			echo "$_c"
			return 0
		fi
	done
	return 1
}

nullb_destroy() {
	[ -d "$NULLB_CFS/$1" ] || return 0
	echo 0 >"$NULLB_CFS/$1/power" 2>/dev/null
	rmdir "$NULLB_CFS/$1"
}

# ------------------------------------------------- emulated SSD (fnvssd) ----
# selftests/ssdsim's fnvssd.ko, shipped as /extra/fnvssd.ko for this kernel
SSD_KO=${SSD_KO:-/extra/fnvssd.ko}
SSD_CFS=/sys/kernel/config/fnvssd

# ssd_load : load fnvssd.ko once; fails (reason on stderr) without it
ssd_load() {
	[ -d "$SSD_CFS" ] && return 0
	[ -e "$SSD_KO" ] || { echo "ssd_load: $SSD_KO not shipped" >&2; return 1; }
	insmod "$SSD_KO" || return 1
	[ -d "$SSD_CFS" ] || { echo "ssd_load: $SSD_CFS missing" >&2; return 1; }
}

# ssd_prereq : the start of a test on it: SKIP all without fnvssd.ko in
# the guest, fail all if it does not load
ssd_prereq() {
	[ -e "$SSD_KO" ] || tap_skip_rest "fnvssd.ko not shipped in the guest (make guest-tests builds it)"
	ssd_load || tap_fail_rest "fnvssd.ko did not load"
}

# ssd_create NAME [ATTR=VALUE...] : configure and power on; prints the disk
ssd_create() {
	_n=$1
	shift
	cfs_power_on "$SSD_CFS/$_n" "$@" || return 1
	_d=fnvssd$(cat "$SSD_CFS/$_n/index")
	wait_until 5 test -b "/dev/$_d" || { echo "ssd_create: /dev/$_d did not appear" >&2; return 1; }
	echo "$_d"
}

# ssd_destroy NAME : power off and remove
ssd_destroy() {
	[ -d "$SSD_CFS/$1" ] || return 0
	echo 0 >"$SSD_CFS/$1/power" 2>/dev/null
	rmdir "$SSD_CFS/$1"
}

# ssd_stat NAME KEY : one value of the device's debugfs stats
ssd_stat() {
	sed -n "s/^$2=//p" "/sys/kernel/debug/fnvssd/$1/stats"
}

# ------------------------------------------------------------- module ----
_modname() { echo "$1" | tr - _; }

mod_loaded() {
	grep -q "^$(_modname "$1") " /proc/modules
}

# fnv_load : make sure $FNV_SCHED is available (modprobe $FNV_MOD); prints the
# reason on stderr when it is not.
fnv_load() {
	if [ -n "$FNV_MOD" ] && ! mod_loaded "$FNV_MOD"; then
		if ! _err=$(modprobe "$FNV_MOD" 2>&1); then
			_m1=$(echo "$FNV_MOD" | tr _ -)
			_m2=$(echo "$FNV_MOD" | tr - _)
			if ! grep -qE "/($_m1|$_m2)\.ko:" "/lib/modules/$(uname -r)/modules.dep"; then
				echo "module $FNV_MOD is not in the initramfs (no $FNV_MOD.ko was built: run make at the repo root)" >&2
			else
				echo "modprobe $FNV_MOD failed: $_err; dmesg: $(dmesg | tail -n 3 | tr '\n' ' ')" >&2
			fi
			return 1
		fi
	fi
	_s=$(nvme_dev 2>/dev/null) || _s=""
	if [ -n "$_s" ] && ! grep -qw "$FNV_SCHED" "/sys/block/$_s/queue/scheduler"; then
		echo "scheduler $FNV_SCHED not offered by $_s: $(cat "/sys/block/$_s/queue/scheduler")" >&2
		return 1
	fi
	return 0
}

fnv_unload() {
	[ -n "$FNV_MOD" ] || return 0
	rmmod "$FNV_MOD"
}

# ------------------------------------------------------------ cgroups ----
cg_create() {
	mkdir -p "$CG_ROOT/$1"
}

cg_procs() {
	cat "$CG_ROOT/$1/cgroup.procs" 2>/dev/null
}

# cg_destroy NAME : kill whatever is left inside and remove the cgroup
cg_destroy() {
	_cg=$CG_ROOT/$1
	[ -d "$_cg" ] || return 0
	if [ -e "$_cg/cgroup.kill" ]; then
		echo 1 >"$_cg/cgroup.kill" 2>/dev/null
	else
		for _p in $(cat "$_cg/cgroup.procs"); do kill -9 "$_p" 2>/dev/null; done
	fi
	wait_until 30 rmdir "$_cg" || { rmdir "$_cg"; return 1; }
}

# cg_set_weight NAME W [FILE] : write "default W" into FILE (io.fairnvme.weight)
cg_set_weight() {
	_file=${3:-io.fairnvme.weight}
	if [ ! -e "$CG_ROOT/$1/$_file" ]; then
		echo "cg_set_weight: $CG_ROOT/$1/$_file does not exist" >&2
		return 1
	fi
	echo "default $2" >"$CG_ROOT/$1/$_file"
}

# run_in_cg NAME CMD... : run CMD inside cgroup NAME (the subshell moves itself,
# then execs CMD, so the pid of a background run_in_cg is the pid of CMD)
run_in_cg() {
	_cg=$CG_ROOT/$1
	shift
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" || exit 125; exec "$@"' "$_cg" "$@"
}

# ---------------------------------------------------------------- fio ----
# Terse v3 fields (1-based, ';' separated): 5 error; read: 6 kb, 8 iops, 16 clat
# mean (us), 30 clat p99 ("99.000000%=N"); write fields are read fields + 41.

# fio_run OUT ARGS... : fio with terse output into OUT (stderr into OUT.err)
fio_run() {
	_o=$1
	shift
	fio --eta=never --output-format=terse --terse-version=3 --output="$_o" "$@" 2>"$_o.err"
}

_fio_lines() {
	grep '^3;' "$1" 2>/dev/null
}

# fio_iops FILE [read|write|total] : IOPS summed over all result lines
fio_iops() {
	_fio_lines "$1" | awk -F';' -v w="${2:-total}" '
		{ r += $8; wr += $49 }
		END { v = (w == "read") ? r : (w == "write") ? wr : r + wr; printf "%.1f\n", v }'
}

# fio_kb FILE [read|write|total] : KiB transferred
fio_kb() {
	_fio_lines "$1" | awk -F';' -v w="${2:-total}" '
		{ r += $6; wr += $47 }
		END { v = (w == "read") ? r : (w == "write") ? wr : r + wr; printf "%d\n", v }'
}

# fio_lat FILE [read|write] [mean|p99] : completion latency in usec
# (mean: average over result lines, p99: max over result lines)
fio_lat() {
	_fio_lines "$1" | awk -F';' -v w="${2:-read}" -v k="${3:-mean}" '
		{
			o = (w == "write") ? 41 : 0
			if (k == "p99") { split($(30 + o), a, "="); if (a[2] + 0 > v) v = a[2] + 0 }
			else { v += $(16 + o); n++ }
		}
		END { if (k != "p99" && n) v /= n; printf "%.1f\n", v }'
}

# fio_err FILE : first non-zero fio error code over result lines, 0 if none,
# "noresult" if fio produced no terse line
fio_err() {
	_fio_lines "$1" | awk -F';' '
		{ n++; if ($5 != 0 && e == 0) e = $5 }
		END { if (!n) print "noresult"; else print e + 0 }'
}

# fio_check DESC OUT RC : ok if fio exited 0 and reported no error
fio_check() {
	_e=$(fio_err "$2")
	if [ "$3" = 0 ] && [ "$_e" = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "fio rc=$3 err=$_e: $(grep -v '^3;' "$2" "$2.err" 2>/dev/null | grep -iE 'err|fail|bad|verify' | head -n 3 | tr '\n' ' ')"
	fi
}

# ------------------------------------------------------------ tenants ----
# A tenant is a cgroup running one fio. Results in $FNV_WORK/tenant-NAME.{terse,rc}.
_tenant_pids=""
_tenant_names=""

# tenant_start NAME DEV RUNTIME ARGS... : start fio for RUNTIME seconds in cgroup
# NAME (created if missing) on DEV in the background. ARGS are extra fio options
# (e.g. --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32); a
# --filename among them (a file on DEV's filesystem) replaces DEV: fio adds
# each --filename to the job's files, and t19's O_SYNC writer, given its
# file after the device, wrote both, the device's first 32 MiB buffered,
# over the filesystem mounted on it (EXT4-fs error: Corrupt filesystem).
tenant_start() {
	local name dev rt a
	name=$1 dev=/dev/$(_blkname "$2") rt=$3
	shift 3
	for a; do
		case "$a" in --filename=*) dev= ;; esac
	done
	cg_create "$name"
	rm -f "$FNV_WORK/tenant-$name.terse" "$FNV_WORK/tenant-$name.rc" \
		"$FNV_WORK/tenant-$name.win" "$FNV_WORK/lat-$name"_*.log
	(
		# fio leaves an --exec_prerun's output in the current directory
		cd "$FNV_WORK" || exit 1
		run_in_cg "$name" fio --eta=never --output-format=terse --terse-version=3 \
			--output="$FNV_WORK/tenant-$name.terse" --name="$name" \
			${dev:+--filename="$dev"} --time_based --runtime="$rt" \
			--group_reporting "$@" 2>"$FNV_WORK/tenant-$name.terse.err"
		echo $? >"$FNV_WORK/tenant-$name.rc"
	) &
	_tenant_pids="$_tenant_pids $!"
	_tenant_names="$_tenant_names $name"
}

# tenants_wait : wait for every started tenant; returns the number that failed
tenants_wait() {
	local p name bad
	for p in $_tenant_pids; do wait "$p"; done
	bad=0
	for name in $_tenant_names; do
		[ "$(tenant_rc "$name")" = 0 ] || bad=$((bad + 1))
	done
	_tenant_pids=""
	_tenant_names=""
	return $bad
}

# tenants_run DEV RUNTIME "FIO ARGS" NAME... : run one fio per tenant
# concurrently (same ARGS for all), wait for all. Per-tenant extra arguments
# can be given in variables FNV_TARGS_<NAME> (word-split).
# The tenants start their I/O together: each fio job, once set up, waits
# in --exec_prerun (before its runtime starts) until all jobs of all the
# tenants are ready, for up to 60 s. Started one after another, under TCG
# they began up to seconds apart, and the last one ran alone at the end:
# t04's weight-200 tenant had 0.119 of the IOPS where 0.100 is due (the
# others had theirs of 2000 IOPS, it had 44 IOPS more). All jobs, not one
# per tenant: a fio's jobs set up one by one (t20's B has 8), and those
# still setting up when the rest started ran past their end (t20 summed
# 2177 IOPS of a device throttled at 2000).
tenants_run() {
	local dev rt args name extra go n nj lat
	dev=$1 rt=$2 args=$3
	shift 3
	go=$FNV_WORK/tenants-go
	rm -f "$go" "$FNV_WORK"/tenants-ready.*
	# the barrier, a script: fio's option values take no shell quoting
	cat >"$FNV_WORK/tenants-barrier" <<-EOF
		touch "$FNV_WORK/tenants-ready.\$1.\$\$"
		n=0
		while [ ! -e "$go" ] && [ \$n -lt 1200 ]; do
			sleep 0.05
			n=\$((n + 1))
		done
	EOF
	n=0
	for name in "$@"; do
		eval "extra=\${FNV_TARGS_$name:-}"
		# jobs: the last --numjobs= given, else 1
		nj=$(echo " $args $extra" | tr -s ' \t\n' '\n\n\n' |
			sed -n 's/^--numjobs=\([0-9][0-9]*\)$/\1/p' | tail -n 1)
		n=$((n + ${nj:-1}))
		lat=
		[ -z "${FNV_WINDOW:-}" ] ||
			lat="--write_lat_log=$FNV_WORK/lat-$name --log_avg_msec=0"
		# shellcheck disable=SC2086
		tenant_start "$name" "$dev" "$rt" $args $extra \
			"--exec_prerun=sh $FNV_WORK/tenants-barrier $name" $lat
		[ -z "$lat" ] || echo "$rt" >"$FNV_WORK/tenant-$name.win"
	done
	wait_until 60 _tenants_ready "$n"
	touch "$go"
	tenants_wait
}

# With FNV_WINDOW set, tenant_iops, tenant_kb and tenant_mlat count only
# the I/Os that completed within the runtime, from fio's per-I/O latency
# log (time since the ramp ended, ms; latency, ns). fio's own totals also
# count what a job had in flight when its runtime ended, completed
# afterwards and over a runtime stretched to match: for a tenant with many
# requests queued (t20's B, 256) that drain runs alone on the device once
# the others have stopped, at its full rate (64 requests in flight added
# 65 ms to a 3 s run). With t20 on the NVMe throttled at 500 IOPS,
# fairnvme dispatched B 7 % more requests than C (tenant_dump), and fio
# counted B 1.5 to 2.4 times C's IOPS.
# _tenant_win NAME FIELD [read|write|total] : FIELD (iops, kb or mlat) of
# NAME's last run in the window, of its reads, its writes or both (fio's
# log: time, latency, direction 0 or 1, block size in bytes); empty
# without a latency log
_tenant_win() {
	local win
	win=$(cat "$FNV_WORK/tenant-$1.win" 2>/dev/null) || return 0
	cat "$FNV_WORK/lat-$1"_clat.*.log 2>/dev/null | awk -F', *' \
		-v w="$win" -v f="$2" -v d="${3:-total}" '
		d == "read" && $3 != 0 { next }
		d == "write" && $3 != 1 { next }
		$1 + 0 < w * 1000 { n++; s += $2; b += $4 }
		END { if (f == "iops") printf "%.1f\n", n / w
		      else if (f == "kb") printf "%d\n", b / 1024
		      else if (n) printf "%.1f\n", s / n / 1000 }'
}

_tenants_ready() { # JOBS: that many jobs wait at the barrier
	[ "$(ls "$FNV_WORK"/tenants-ready.* 2>/dev/null | wc -l)" -ge "$1" ]
}

tenant_rc() {
	cat "$FNV_WORK/tenant-$1.rc" 2>/dev/null || echo missing
}

tenant_iops() {
	if [ -n "${FNV_WINDOW:-}" ] && [ -e "$FNV_WORK/tenant-$1.win" ]; then
		_tenant_win "$1" iops "${2:-total}"
		return
	fi
	fio_iops "$FNV_WORK/tenant-$1.terse" "${2:-total}"
}

tenant_lat() {
	fio_lat "$FNV_WORK/tenant-$1.terse" "${2:-read}" "${3:-mean}"
}

# _share FN NAME ALLNAMES... : NAME's fraction of the sum of FN over ALLNAMES
_share() {
	local fn me sum name
	fn=$1 me=$($1 "$2")
	shift 2
	sum=0
	for name in "$@"; do
		sum=$(fcalc "$sum + $($fn "$name")")
	done
	awk -v a="$me" -v s="$sum" 'BEGIN { if (s > 0) printf "%.3f\n", a / s; else print "0.000" }'
}

# tenant_share NAME ALLNAMES... : NAME's fraction of the summed IOPS
tenant_share() {
	_share tenant_iops "$@"
}

tenant_kb() {
	if [ -n "${FNV_WINDOW:-}" ] && [ -e "$FNV_WORK/tenant-$1.win" ]; then
		_tenant_win "$1" kb "${2:-total}"
		return
	fi
	fio_kb "$FNV_WORK/tenant-$1.terse" "${2:-total}"
}

# tenant_kb_share NAME ALLNAMES... : NAME's fraction of the bytes moved
tenant_kb_share() {
	_share tenant_kb "$@"
}

# tenants_report NAME... : diagnostic table (TAP comments)
tenants_report() {
	local name
	for name in "$@"; do
		echo "# tenant $name: rc=$(tenant_rc "$name") iops=$(tenant_iops "$name") share=$(tenant_share "$name" "$@") clat_mean_us=$(tenant_lat "$name" read mean) clat_p99_us=$(tenant_lat "$name" read p99)"
	done
}

# ---------------------------------------------------- slowdown metrics ----
# tenant_mlat NAME : mean completion latency (us) over reads and writes,
# weighted by their IOPS (fio terse: read iops 8, clat mean 16; write +41)
tenant_mlat() {
	if [ -n "${FNV_WINDOW:-}" ] && [ -e "$FNV_WORK/tenant-$1.win" ]; then
		_tenant_win "$1" mlat
		return
	fi
	_fio_lines "$FNV_WORK/tenant-$1.terse" | awk -F';' '
		{ n += $8 + $49; s += $8 * $16 + $49 * $57 }
		END { if (n > 0) printf "%.1f\n", s / n; else print "" }'
}

# tenant_p99 NAME : p99 completion latency (us), max of read and write
# tenant_slat NAME : mean submission latency (us) over NAME's reads and
# writes, weighted by their IOPS (fio terse: read slat mean 12; write +41)
tenant_slat() {
	_fio_lines "$FNV_WORK/tenant-$1.terse" | awk -F';' '
		{ n += $8 + $49; s += $8 * $12 + $49 * $53 }
		END { if (n > 0) printf "%.1f\n", s / n; else print "" }'
}

tenant_p99() {
	_fio_lines "$FNV_WORK/tenant-$1.terse" | awk -F';' '
		{ split($30, a, "="); split($71, b, "=")
		  v = a[2] + 0; if (b[2] + 0 > v) v = b[2] + 0
		  if (v > m) m = v }
		END { printf "%.1f\n", m }'
}

# fairness_index ALONE_PREFIX NAME... : min / max slowdown (GoFair, FairNVMe
# Eq. 1-2), slowdown = mean latency shared / mean latency alone, where the
# alone latency of NAME was saved in $FNV_WORK/ALONE_PREFIX-NAME.lat
fairness_index() {
	local pre name sh al
	pre=$1
	shift
	for name in "$@"; do
		sh=$(tenant_mlat "$name")
		al=$(cat "$FNV_WORK/$pre-$name.lat" 2>/dev/null)
		echo "$name $sh $al"
	done | awk '{ if ($3 == "" || $3 <= 0 || $2 == "" || $2 <= 0) { bad = 1; next }
		      s = $2 / $3; if (min == "" || s < min) min = s
		      if (s > max) max = s }
		    END { if (!bad && max > 0) printf "%.4f\n", min / max }'
}

# worst_slowdown PREFIX NAME... : the largest shared / alone mean latency
# of the tenants' last runs (measure_alone PREFIX); nothing if one is
# missing, which fails any assert_*
worst_slowdown() {
	local pre name
	pre=$1
	shift
	for name in "$@"; do
		echo "$(tenant_mlat "$name") $(cat "$FNV_WORK/$pre-$name.lat" 2>/dev/null)"
	done | awk '{ if ($2 == "" || $2 <= 0 || $1 == "" || $1 <= 0) { bad = 1; next }
		      s = $1 / $2; if (s > max) max = s }
		    END { if (!bad && max > 0) printf "%.3f\n", max }'
}

# fair_slowdown PREFIX NAME... : the worst slowdown that equal shares of
# what the tenants' last run completed give, by Little's law: a tenant of
# d requests in flight (its fio --numjobs times --iodepth) takes d / IOPS
# per request, its latency plus what the host adds between one and the
# next; at 1/N of the run's total X, where alone it did IOPS_a at mean
# latency L_a (measure_alone PREFIX), its latency becomes
# L_a + d (N / X - 1 / IOPS_a). Empty if an alone run failed.
fair_slowdown() {
	local pre name total a d j
	pre=$1
	shift
	total=$(tenants_total_iops "$@")
	for name in "$@"; do
		eval "a=\${FNV_TARGS_$name:-}"
		d=$(echo "$a" | sed -n 's/.*--iodepth=\([0-9]*\).*/\1/p')
		j=$(echo "$a" | sed -n 's/.*--numjobs=\([0-9]*\).*/\1/p')
		echo "$((${d:-1} * ${j:-1})) $(cat "$FNV_WORK/$pre-$name.iops" 2>/dev/null) $(cat "$FNV_WORK/$pre-$name.lat" 2>/dev/null)"
	done | awk -v n=$# -v x="$total" '
		{ if ($2 == "" || $2 <= 0 || $3 == "" || $3 <= 0) { bad = 1; next }
		  s = 1 + $1 * (n / x - 1 / $2) * 1e6 / $3
		  if (s > max) max = s }
		END { if (!bad && x > 0 && max > 0) printf "%.3f\n", max }'
}

# alone_pred NAME : after a run under fairnvme watched by depth_watch_start
# with FNV_DUMP_TENANTS=1, the cost model's alone_us for the tenant
# (debugfs tenant_dump, the median of its lines for the tenant's cgroup,
# one a second, those with requests outstanding, from the 11th on: the
# model settles within 10 s, issue 35; all of them if that leaves fewer
# than 3), a space, and its median requests outstanding. Before fnvssd's
# first rate trial (10 s in) no full window judges the held ones, and a
# 8 KiB read was priced 600 to 750 us where it costs 375 (t29 c/rw: 1.36
# of fio's alone over the whole run, 0.85 to 1.0 after the trial)
alone_pred() {
	local id
	id=$(stat -c %i "$CG_ROOT/$1" 2>/dev/null)
	sed -n "s/^cgroup=$id .* outstanding=\([1-9][0-9]*\) alone_us=\([0-9]*\).*/\2 \1/p" \
		"$FNV_WORK/dump.all" 2>/dev/null >"$FNV_WORK/alone-pred.$1"
	[ "$(wc -l <"$FNV_WORK/alone-pred.$1")" -ge 13 ] &&
		sed -i 1,10d "$FNV_WORK/alone-pred.$1"
	set -- "$FNV_WORK/alone-pred.$1"
	echo "$(cut -d' ' -f1 "$1" | _median) $(cut -d' ' -f2 "$1" | _median)"
}

# alone_ratio PREFIX NAME : the tenant's predicted alone latency
# (alone_pred) over its mean latency alone (measure_alone PREFIX, fio's);
# empty if either is missing
alone_ratio() {
	local p
	p=$(alone_pred "$2")
	ratio "${p%% *}" "$(cat "$FNV_WORK/$1-$2.lat" 2>/dev/null)"
}

# alone_print PREFIX NAME... : print per tenant alone_pred against its mean
# latency alone (measure_alone PREFIX). The estimator sees what a tenant
# has outstanding in the kernel, from its allocation (and its wait for a
# tag before it): requests still in the application's hands are not
# seen, and under TCG a tenant's threads wait for the guest's two CPUs
# longer when it shares the device (t20's B, 256 writes offered by 8 fio
# jobs, 159 to 164 outstanding with the wait for tags counted: -42 to
# -51 %). And a bytes throttle that never binds in the shared run is not
# seen (t20's E at 40 MB/s: 0.46 ms predicted, 1.4 ms alone).
alone_print() {
	local pre name p
	pre=$1
	shift
	for name in "$@"; do
		p=$(alone_pred "$name")
		diag "$name: alone latency predicted ${p%% *} us (outstanding ${p#* }), fio's alone $(cat "$FNV_WORK/$pre-$name.lat" 2>/dev/null) us: $(alone_ratio "$pre" "$name")"
	done
}

# _median : the median of the numbers on stdin, one a line (empty if none)
_median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# measure_alone PREFIX DEV RUNTIME NAME... : run each tenant by itself
# (arguments from FNV_TARGS_<NAME>) and save its mean latency and IOPS; a
# run whose fio failed saves nothing, and every fairness index using it is
# empty
measure_alone() {
	local pre dev rt name
	pre=$1 dev=$2 rt=$3
	shift 3
	for name in "$@"; do
		if tenants_run "$dev" "$rt" "" "$name"; then
			tenant_mlat "$name" >"$FNV_WORK/$pre-$name.lat"
			tenant_iops "$name" >"$FNV_WORK/$pre-$name.iops"
		else
			diag "alone run of $name failed: fio rc=$(tenant_rc "$name"): $(head -c 300 "$FNV_WORK/tenant-$name.terse.err" 2>/dev/null)"
			: >"$FNV_WORK/$pre-$name.lat"
			: >"$FNV_WORK/$pre-$name.iops"
		fi
	done
}

# tenants_total_iops NAME... : summed IOPS of the tenants' last runs
tenants_total_iops() {
	local name sum
	sum=0
	for name in "$@"; do
		sum=$(fcalc "$sum + $(tenant_iops "$name")")
	done
	echo "$sum"
}

# fnv_quiet [SEC] : wait up to SEC seconds (default 15) until no fairnvme
# code runs: no device under fairnvme has a tenant on its active list
# (debugfs tenant_dump empty: nothing queued or in flight, and the control
# worker, which a tenant keeps armed for 10 idle periods, has let them all
# go and stopped), then one control period more. False if it never was.
fnv_quiet() {
	_n=$((${1:-15} * 5))
	while :; do
		_q=1
		for _f in /sys/kernel/debug/block/*/sched/tenant_dump; do
			[ -e "$_f" ] || continue
			[ -z "$(cat "$_f" 2>/dev/null)" ] || _q=0
		done
		[ $_q = 1 ] && break
		[ "$_n" -le 0 ] && return 1
		sleep 0.2
		_n=$((_n - 1))
	done
	sleep 0.2
}

# fnv_trace_event 0|1 EVENT... : disable or enable fairnvme's trace events,
# once fnv_quiet. Switching an event rewrites its call sites (text_poke());
# under TCG a vCPU running a site while it is rewritten can hang there or
# later trap on a stale int3 ("Oops: int3" in fnv_dispatch_request on
# 6.12, reproduced by switching events under fio load). A real CPU has no
# such problem: only the tests need the quiet moment.
fnv_trace_event() {
	_v=$1
	shift
	fnv_quiet || diag "fnv_trace_event: fairnvme still busy after 15 s; switching $* anyway"
	for _e in "$@"; do
		echo "$_v" >"/sys/kernel/tracing/events/fairnvme/$_e/enable" || return 1
	done
}

# fnv_dbg DEV FILE : fairnvme's state FILE (gvt, depth, ...) from blk-mq's
# debugfs directory of DEV
fnv_dbg() {
	cat "/sys/kernel/debug/block/$(_blkname "$1")/sched/$2"
}

# depth_watch_start DEV / depth_watch_stop : sample debugfs's depth and
# dev_floor_us once a second in the background; stop prints the samples
# as DEPTH/FLOOR_US
depth_watch_start() {
	(
		# read, a builtin: a process forked each second is guest CPU
		# that only fairnvme's runs would pay (a QD1 tenant's share
		# follows the guest's CPU under TCG)
		_dd=/sys/kernel/debug/block/$(_blkname "$1")/sched
		while :; do
			read -r _dp 2>/dev/null <"$_dd/depth" || _dp=-
			read -r _fl 2>/dev/null <"$_dd/dev_floor_us" || _fl=-
			echo "$_dp/$_fl"
			[ "${FNV_DUMP_TENANTS:-0}" = 1 ] &&
				fnv_dbg "$1" tenant_dump >>"$FNV_WORK/dump.all" 2>/dev/null
			if [ "${FNV_watch_dump:-0}" = 1 ]; then
				{
					echo "# $(date +%s) inflight=$(fnv_dbg "$1" inflight) gvt=$(fnv_dbg "$1" gvt) tau_l=$(fnv_dbg "$1" tau_l_eff_bytes) $(fnv_dbg "$1" cost_learned) devinflight=$(cat "/sys/block/$(_blkname "$1")/inflight")"
					echo "#   trials: $(fnv_dbg "$1" depth_trials) hl=$(fnv_dbg "$1" hl_ratio)"
					# the first hardware queue's scheduler tags
					_st=/sys/kernel/debug/block/$(_blkname "$1")/hctx0/sched_tags
					echo "#   sched_tags: $(grep -E 'nr_tags|busy|ws_active' "$_st" 2>/dev/null | tr '\n' ' ')"
					echo "#   tabs: $(fnv_dbg "$1" tabs 2>/dev/null | tr '\n' ' ')"
					fnv_dbg "$1" tenant_dump | sed 's/^/#   /'
				} >>"$FNV_WORK/watch.log"
			fi
			sleep 1
		done
	) >"$FNV_WORK/depth.log" &
	_depth_pid=$!
	: >"$FNV_WORK/dump.all"
}
depth_watch_stop() {
	kill "$_depth_pid" 2>/dev/null
	wait "$_depth_pid" 2>/dev/null
	tr '\n' ' ' <"$FNV_WORK/depth.log"
	[ "${FNV_watch_dump:-0}" = 1 ] && cat "$FNV_WORK/watch.log" >&2 && rm -f "$FNV_WORK/watch.log"
}

# extreme_mix : FairNVMe's "extreme workloads" (paper, 5.4) as t10 and t20
# run them: A 4 KiB random reads n1d1, B 4 KiB random writes n8d32, C and D
# 70/30 random read/write n4d4 (sets COMMON and FNV_TARGS_A..D)
extreme_mix() {
	COMMON="--bs=4k --direct=1 --ioengine=libaio --randrepeat=0 --ramp_time=2"
	FNV_TARGS_A="$COMMON --rw=randread --numjobs=1 --iodepth=1"
	FNV_TARGS_B="$COMMON --rw=randwrite --numjobs=8 --iodepth=32"
	FNV_TARGS_C="$COMMON --rw=randrw --rwmixread=70 --numjobs=4 --iodepth=4"
	FNV_TARGS_D="$FNV_TARGS_C"
}

# cpu_sample / cpu_delta OLD NEW : the guest's CPU time (busy, system,
# irq+softirq, in % of all CPUs) and context switches per second between
# two samples of /proc/stat, for the diag lines of a run
cpu_sample() {
	awk '/^cpu /{ print $2 + $3, $4, $7 + $8, $5 + $6 } /^ctxt/{ c = $2 } END { print c }' /proc/stat | tr '\n' ' '
	now_ms
}
cpu_delta() {
	echo "$1 $2" | awk '{ u = $7 - $1; sy = $8 - $2; i = $9 - $3; id = $10 - $4
		t = u + sy + i + id; if (t <= 0) t = 1; ms = $12 - $6; if (ms <= 0) ms = 1
		printf "busy %.0f%% (user %.0f%%, system %.0f%%, irq %.0f%%), %.0f context switches/s",
		       100 * (u + sy + i) / t, 100 * u / t, 100 * sy / t, 100 * i / t, ($11 - $5) * 1000 / ms }'
}

# shared_run PREFIX DEV RUNTIME SCHED NAME... : select SCHED (a TAP point),
# run the tenants together, print each one's IOPS, latency and slowdown
# against its alone latency (measure_alone PREFIX), and set fi_<SCHED> (the
# fairness index) and iops_<SCHED> (the summed IOPS), '-' in SCHED as '_',
# both empty if any tenant's fio failed (so that a point using them fails);
# FNV_RUN_LABEL, if set, stands for SCHED in those names and lines (one
# scheduler run twice, with another tunable)
shared_run() {
	local pre dev rt s v t bad
	pre=$1 dev=$2 rt=$3 s=$4
	shift 4
	check "select $s" set_sched "$dev" "$s"
	[ "$s" = fairnvme ] && depth_watch_start "$dev"
	bad=0
	# shellcheck disable=SC2086
	_st0=$(cat "/sys/block/$(_blkname "$dev")/stat")
	_cpu0=$(cpu_sample)
	tenants_run "$dev" "$rt" "" "$@" || bad=1
	diag "$s: guest CPU $(cpu_delta "$_cpu0" "$(cpu_sample)")"
	# what the device completed, and merged, counted by the block layer
	echo "$_st0 $(cat "/sys/block/$(_blkname "$dev")/stat")" | awk '{
		printf "# %s at the device: %d reads (%d merged), %d writes (%d merged)\n",
		       s, $18 - $1, $19 - $2, $22 - $5, $23 - $6 }' s="$s"
	if [ "$s" = fairnvme ]; then
		diag "$s: depth/dev_floor_us each second: $(depth_watch_stop)"
		diag "$s: depth_trials $(fnv_dbg "$dev" depth_trials 2>/dev/null)"
	fi
	# a label for the run's numbers, when one scheduler runs twice
	s=${FNV_RUN_LABEL:-$s}
	for t in "$@"; do
		diag "$s $t: rc=$(tenant_rc "$t") iops=$(tenant_iops "$t") mean_us=$(tenant_mlat "$t") p99_us=$(tenant_p99 "$t") slat_us=$(tenant_slat "$t") slowdown=$(ratio "$(tenant_mlat "$t")" "$(cat "$FNV_WORK/$pre-$t.lat" 2>/dev/null)")"
	done
	v=$(echo "$s" | tr - _)
	if [ $bad = 0 ]; then
		eval "fi_$v=$(fairness_index "$pre" "$@")"
		eval "iops_$v=$(tenants_total_iops "$@")"
	else
		diag "$s: a tenant's fio failed: no fairness index or IOPS"
		eval "fi_$v= iops_$v="
	fi
	eval "diag \"$s: fairness index \${fi_$v:-none}, total IOPS \${iops_$v:-none}\""
}

# fnv_nvme_setup WORKDIR : fairnvme loaded and selected on the first NVMe,
# whose name is left in $dev, and WORKDIR made empty; the remaining points
# fail otherwise. Not in $(...): tap_fail_rest must end the script.
fnv_nvme_setup() {
	fnv_load || tap_fail_rest "fairnvme not available"
	dev=$(nvme_dev) || tap_fail_rest "no nvme device"
	rm -rf "$1"
	mkdir -p "$1"
	set_sched "$dev" fairnvme || tap_fail_rest "cannot select fairnvme on $dev"
}

# pair_cgroups : tenants A (weight 100) and B (weight 300)
pair_cgroups() {
	cg_create A
	cg_create B
	cg_set_weight A 100
	cg_set_weight B 300
}

# pair_start RUNTIME [ARGS...] : A and B read $dev at random, 4 KiB, depth
# 16, for RUNTIME seconds (extra fio ARGS appended)
pair_start() {
	_rt=$1
	shift
	for _t in A B; do
		tenant_start "$_t" "$dev" "$_rt" --rw=randread --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=16 --randrepeat=0 "$@"
	done
}
