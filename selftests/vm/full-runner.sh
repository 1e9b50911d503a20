#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# full-runner.sh - the test run of the full guest (Debian with systemd;
# selftests/vm/run.sh --image full), started by fnv-full.service from the
# payload disk as /fnv/full-runner.sh, its output on the serial console.
#
# The counterpart of selftests/vm/init's run part (both source runlib.sh
# for how a script is run), with the same kernel command line knobs
# (fnv.run=tests|shell, fnv.tests=f01,..., fnv.timeout, fnv.test_timeout,
# fnv.timeout_scale, fnv.sched, fnv.mod, fnv.args) and the same console
# protocol (FNV-BEGIN, FNV-TEST-BEGIN/END, FNV-END rc=N,
# FNV-DMESG-BEGIN/END); it runs /tests/f[0-9]*.sh (selftests/full) with
# sh, each in its own session with a time limit, then powers off.
set -u

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C LC_ALL=C

log() { echo "fnv-full: $*"; }

FNV_RUN=tests FNV_TESTS="" FNV_TIMEOUT=1700 FNV_TEST_TIMEOUT=420 FNV_TIMEOUT_SCALE=1
FNV_SCHED=fairnvme FNV_MOD=fairnvme
read -r -a words </proc/cmdline
for w in "${words[@]}"; do
	case "$w" in
	fnv.run=*) FNV_RUN=${w#fnv.run=} ;;
	fnv.tests=*) FNV_TESTS=${w#fnv.tests=} ;;
	fnv.timeout=*) FNV_TIMEOUT=${w#fnv.timeout=} ;;
	fnv.test_timeout=*) FNV_TEST_TIMEOUT=${w#fnv.test_timeout=} ;;
	fnv.timeout_scale=*) FNV_TIMEOUT_SCALE=${w#fnv.timeout_scale=} ;;
	fnv.sched=*) FNV_SCHED=${w#fnv.sched=} ;;
	fnv.mod=*) FNV_MOD=${w#fnv.mod=} ;;
	fnv.args=*)
		for kv in $(echo "${w#fnv.args=}" | tr ',' ' '); do
			case "$kv" in
			*=*) export "FNV_${kv%%=*}=${kv#*=}" ;;
			esac
		done
		;;
	esac
done
export FNV_RUN FNV_TESTS FNV_SCHED FNV_MOD FNV_TEST_TIMEOUT

# gone_within, session_live, dump_dmesg, modload, load_test_modules,
# no_cmdline_record, run_one, selected, run_tests
# shellcheck source=selftests/vm/runlib.sh
if ! . "$(dirname "$0")/runlib.sh"; then
	echo "FNV-BEGIN"
	echo "not ok - full guest: cannot source $(dirname "$0")/runlib.sh"
	echo "FNV-END rc=1"
	systemctl --force --force poweroff
	exit 1
fi

power_off() {
	# not waited for beyond 10 s: I/O a killed test left stuck would hold it
	sync &
	gone_within 10 $!
	# the root is a throwaway overlay (QEMU snapshot=on): no need to stop
	# services or unmount
	# in the background: it syncs first, and that may wait for good
	systemctl --force --force poweroff &
	sleep 10
	echo o >/proc/sysrq-trigger
}

# --- watchdog ------------------------------------------------------------
(
	sleep "$FNV_TIMEOUT"
	echo "FNV-WATCHDOG: guest run exceeded ${FNV_TIMEOUT}s, powering off"
	echo w >/proc/sysrq-trigger
	sleep 1
	dump_dmesg
	power_off
) &
WATCHDOG=$!

log "systemd started the runner at $(cut -d' ' -f1 /proc/uptime) s of uptime"
echo 1 >/proc/sys/kernel/sysrq

# --- modules, as selftests/vm/init loads them ----------------------------
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
load_test_modules

# wait for the emulated NVMe namespaces (probe is asynchronous)
i=0
nvme_count() {
	local d n=0
	for d in /sys/block/nvme*n*; do
		case "${d##*/}" in nvme[0-9]*n[0-9]*) [ -e "$d" ] && n=$((n + 1)) ;; esac
	done
	echo $n
}
while [ $i -lt 100 ] && [ "$(nvme_count)" -lt 2 ]; do
	sleep 0.1
	i=$((i + 1))
done

log "kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/{print $2" kB"}' /proc/meminfo), systemd $(systemctl --version | awk 'NR == 1 {print $2}'), hung-task timeout $(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo none) s"
[ -r /fnv/fnv-build ] && sed 's/^/fnv-full: build: /' /fnv/fnv-build
[ -r /etc/fnv-rootfs ] && sed 's/^/fnv-full: rootfs: /' /etc/fnv-rootfs
for d in /sys/block/nvme*n*; do
	[ -e "$d" ] || continue
	log "$(basename "$d"): $(cat "$d/size") sectors, hw queues: $(cd "$d/mq" && echo *), scheduler: $(cat "$d/queue/scheduler")"
done
log "cgroup root controllers: $(cat /sys/fs/cgroup/cgroup.controllers), enabled: $(cat /sys/fs/cgroup/cgroup.subtree_control)"

# --- run -----------------------------------------------------------------
# the transient units a test left (systemd-run --unit=fnv-...), this one
# (fnv-full.service) excepted
run_one_cleanup() {
	local units
	units=$(systemctl list-units --all --plain --no-legend 'fnv-*' 2>/dev/null |
		awk '$1 != "fnv-full.service" { print $1 }')
	[ -n "$units" ] || return 0
	log "stopping what $1 left: $(echo "$units" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	systemctl kill --signal=KILL $units >/dev/null 2>&1
	# shellcheck disable=SC2086
	systemctl stop $units >/dev/null 2>&1
	# shellcheck disable=SC2086
	systemctl reset-failed $units >/dev/null 2>&1
}

echo "FNV-BEGIN"
failed=0
case "$FNV_RUN" in
tests) run_tests /tests/f[0-9]*.sh ;;
shell)
	log "interactive shell (bash) on ttyS0; exit to power off"
	setsid -c -w bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	;;
*)
	echo "not ok - fnv.run=$FNV_RUN is not supported in the full guest"
	failed=1
	;;
esac
echo "FNV-END rc=$failed"
kill "$WATCHDOG" 2>/dev/null
dump_dmesg
power_off
