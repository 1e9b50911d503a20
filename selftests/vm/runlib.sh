# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# runlib.sh - the run part shared by the two test guests: sourced by the
# busybox guest's /init (as /runlib.sh) and by the full guest's
# full-runner.sh (as /fnv/runlib.sh). POSIX sh, for busybox ash and bash.
#
# The caller sets FNV_TESTS, FNV_TEST_TIMEOUT and FNV_TIMEOUT_SCALE (from
# the kernel command line) and may define run_one_cleanup NAME, called
# after each script, for what its own guest must clean up. The console
# protocol is selftests/vm/run.sh's: FNV-TEST-BEGIN NAME, the script's TAP,
# FNV-TEST-END NAME rc=N time=Ts. run_tests sets the caller's "failed";
# every other variable these functions set starts with "_".

# gone_within SEC PID: true once PID has exited (or is a zombie), false
# if it is still running after SEC seconds
gone_within() {
	_w=0
	while kill -0 "$2" 2>/dev/null; do
		[ "$(awk '{print $3}' "/proc/$2/stat" 2>/dev/null)" = Z ] && return 0
		[ "$_w" -ge "$1" ] && return 1
		sleep 1
		_w=$((_w + 1))
	done
	return 0
}

# session_live SID: the processes of session SID, zombies aside
session_live() {
	_sid=$1
	for _p in /proc/[0-9]*; do
		_st=$(cat "$_p/stat" 2>/dev/null) || continue
		# after "(comm) ": state ppid pgrp session ...
		_st=${_st##*) }
		# shellcheck disable=SC2086
		set -- $_st
		[ "$4" = "$_sid" ] && [ "$1" != Z ] && echo "${_p#/proc/}/$(cat "$_p/comm" 2>/dev/null)"
	done
	return 0
}

dump_dmesg() {
	echo "FNV-DMESG-BEGIN"
	dmesg
	echo "FNV-DMESG-END"
}

# modload MODULE [PARAM...]: modprobe, a failure logged (the caller's log)
modload() {
	if ! _out=$(modprobe "$@" 2>&1); then
		log "modprobe $* failed: $_out"
		return 1
	fi
}

# load_test_modules: what both guests load before the tests: the crypto
# helpers first (crc-t10dif and crc64-rocksoft request them through
# request_module), configfs (mounted, for null_blk), nvme, null_blk with
# no device, and the peer schedulers
load_test_modules() {
	modload crct10dif_generic
	modload crc64_rocksoft_generic
	modload configfs
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config 2>/dev/null
	modload nvme
	modload null_blk nr_devices=0
	modload bfq
	modload kyber-iosched
}

# no_cmdline_record: trace events are enabled without the comm recorder.
# The first event a test enables (and the last it disables) otherwise
# registers (unregisters) tracing's probe on sched_switch, a static key
# whose site is in __schedule(), which every CPU runs all the time:
# text_poke() rewrites it while the other vCPU executes it. Under TCG
# (QEMU 7.2, MTTCG) that vCPU can hang there: one reproduction (event
# enable and disable under fio load, about one in a hundred) had CPU 1
# stuck at one RIP in exc_int3(), IRQs off, for 45 s, and CPU 0 in
# text_poke_bp_batch() waiting for it in smp_call_function_many_cond() --
# CI's soft lockups in t08 and t13 (tracing_stop_cmdline_record() in the
# stack). Trace lines then show "<...>" for the task's name; no test
# reads it.
no_cmdline_record() {
	_o=/sys/kernel/tracing/options/record-cmd
	[ -w "$_o" ] && echo 0 >"$_o"
	return 0
}

# run_one NAME FILE: run a script in its own session with a time limit
# (its "# fnv-timeout: SEC" line, under fnv.args extended=1 its
# "# fnv-timeout-extended: SEC" line if it has one, else FNV_TEST_TIMEOUT,
# times FNV_TIMEOUT_SCALE), then kill whatever it left behind (background fio
# etc.) so that the next test starts clean. Returns 0 if it passed, 1 if
# not, 2 if it left processes blocked in the kernel (stop the run: I/O is
# stuck, and what comes after would not be meaningful).
run_one() {
	_name=$1 _file=$2
	no_cmdline_record
	_lim=$(sed -n 's/^# fnv-timeout: *\([0-9][0-9]*\).*/\1/p' "$_file" | head -n 1)
	[ "${FNV_extended:-0}" = 1 ] &&
		_lim=$(sed -n 's/^# fnv-timeout-extended: *\([0-9][0-9]*\).*/\1/p' "$_file" | head -n 1 | grep . || echo "$_lim")
	_lim=$((${_lim:-$FNV_TEST_TIMEOUT} * FNV_TIMEOUT_SCALE))
	echo "FNV-TEST-BEGIN $_name"
	_t0=$(cut -d. -f1 /proc/uptime)
	# Every disk a test left on fairnvme goes back to none first, so that
	# each test starts from a new instance at the defaults (writing the
	# name of the scheduler in force keeps its instance and tunables);
	# in the script's session, under its time limit: a switch that hangs
	# is the script's failure.
	# shellcheck disable=SC2016
	(cd /tmp && exec setsid sh -c '
		for q in /sys/block/*/queue/scheduler; do
			grep -q "\[fairnvme\]" "$q" 2>/dev/null || continue
			echo none >"$q" 2>/dev/null ||
				echo "# FNV: cannot take $q back to none"
		done
		exec sh "$0"' "$_file") </dev/null &
	_pid=$!
	_timed_out=0
	while kill -0 "$_pid" 2>/dev/null; do
		# the leader may be a zombie we have not reaped yet
		[ "$(awk '{print $3}' "/proc/$_pid/stat" 2>/dev/null)" = Z ] && break
		sleep 1
		# the clock, not the turns of this loop: each also forks, and
		# the host's watch counts in time (run.sh)
		if [ $(($(cut -d. -f1 /proc/uptime) - _t0)) -ge "$_lim" ]; then
			echo "# FNV: $_name exceeded its limit of ${_lim}s, killing it"
			echo "not ok - $_name: timeout after ${_lim}s"
			echo w >/proc/sysrq-trigger
			kill -9 "-$_pid" 2>/dev/null
			_timed_out=1
			break
		fi
	done
	# A task blocked in the kernel does not die of SIGKILL, and waiting
	# for it would hang the whole run: give the script's processes 30 s.
	if [ $_timed_out = 1 ]; then
		_w=0
		while [ -n "$(session_live "$_pid")" ] && [ $_w -lt 30 ]; do
			sleep 1
			_w=$((_w + 1))
		done
		_left=$(session_live "$_pid" | tr '\n' ' ')
		if [ -n "$_left" ]; then
			echo "not ok - $_name: still alive 30 s after SIGKILL (blocked in the kernel): ${_left}stopping the run"
			echo w >/proc/sysrq-trigger
			echo "FNV-TEST-END $_name rc=125 time=$(($(cut -d. -f1 /proc/uptime) - _t0))s"
			return 2
		fi
	fi
	wait "$_pid"
	_rc=$?
	[ $_timed_out = 1 ] && _rc=124
	kill -9 "-$_pid" 2>/dev/null
	# a filesystem a test mounted (/mnt/fnv-*) and could not unmount,
	# killed at its limit: the next tests write the raw devices
	for _m in $(awk '$2 ~ "^/mnt/fnv-" { print $2 }' /proc/mounts); do
		umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
	done
	command -v run_one_cleanup >/dev/null 2>&1 && run_one_cleanup "$_name"
	echo "FNV-TEST-END $_name rc=$_rc time=$(($(cut -d. -f1 /proc/uptime) - _t0))s"
	[ "$_rc" = 0 ]
}

# selected FILE: is the test script FILE selected by fnv.tests (FNV_TESTS,
# comma-separated prefixes; empty selects all)? A script with a line
# "# fnv-extended" (a further case of a feature another script covers) runs
# only in ./run check-extended (fnv.args=extended=1), or when fnv.tests
# names it.
selected() {
	if [ -z "$FNV_TESTS" ]; then
		[ "${FNV_extended:-0}" = 1 ] && return 0
		! grep -q '^# fnv-extended' "$1"
		return
	fi
	_b=$(basename "$1" .sh)
	for _t in $(echo "$FNV_TESTS" | tr ',' ' '); do
		case "$_b" in
		"$_t" | "$_t"-*) return 0 ;;
		esac
	done
	return 1
}

# run_tests GLOB...: run_one each selected script; prints "not ok" if none
# matched. Sets failed to the number of scripts that failed.
run_tests() {
	_found=0
	failed=0
	for _f in "$@"; do
		[ -f "$_f" ] || continue
		selected "$_f" || continue
		_found=1
		run_one "$(basename "$_f" .sh)" "$_f"
		_r=$?
		[ $_r = 0 ] || failed=$((failed + 1))
		[ $_r = 2 ] && break
	done
	if [ $_found = 0 ]; then
		echo "not ok - no test matched fnv.tests='$FNV_TESTS'"
		failed=1
	fi
}
