#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - boot a QEMU guest with Debian's kernel, the fairnvme module and the
# guest tests, collect the TAP output and check dmesg.
#
# usage: selftests/vm/run.sh [--run tests|demo|bench|shell] [--tests t01,t03]
#                            [--timeout SEC] [--out DIR] [--sched NAME --mod MODULE]
#                            [--image busybox|full]
#
#   --image     busybox (default): the busybox initramfs runs selftests/guest;
#               full: Debian 12 with systemd, bpftrace, blktrace, python3
#               (selftests/vm/mkrootfs.sh, cached in .build/full-image; its
#               first build needs mmdebstrap and a Debian mirror) runs
#               selftests/full/f[0-9]*.sh; --run tests or shell only
#   --run       what the guest runs (default tests)
#   --tests     comma-separated test prefixes (default: all /tests/t[0-9]*.sh)
#   --timeout   hard timeout of the whole guest run in seconds (default: the
#               sum of the selected scripts' limits, plus 120)
#   --out       output directory: serial.log, tap.txt, dmesg.txt, images
#               (default ${TMPDIR:-/tmp}/fnv-vm)
#   --sched/--mod  run the tests against another scheduler (e.g. --sched kyber
#               --mod kyber-iosched; --mod "" for a built-in one) to check the
#               harness itself
#
# Environment: KVER (default newest /boot/vmlinuz-6.1.*), FAIRNVME_KO,
#   FAIRNVME_EXTRA_FILES, FNV_QEMU_EXTRA (extra qemu args, word-split),
#   FNV_NVME_IOPS (QEMU throttling of the first two NVMe drives, default
#   2000; the third, fnv0003, is throttled at 4000 commands/s and 16 MB/s,
#   the fourth, fnv0004, at 2000 commands/s and 40 MB/s: the cost model's
#   devices, where the bytes bind),
#   FNV_NVME_CACHE (QEMU cache mode of the first NVMe drive, default unsafe:
#   the guest still sees a volatile write cache and sends flushes and FUA
#   writes, but QEMU does not turn them into the host's fdatasync, whose
#   tens of milliseconds under load are not the emulated device's),
#   FNV_NVME_SIZE (default 1G; t18 needs 1008M), FNV_SMP (2), FNV_MEM (2G), FNV_TEST_TIMEOUT
#   (per-test guest timeout, default 420), FNV_QEMU_NICE (QEMU's nice value,
#   default -10 as root), FNV_CMDLINE_EXTRA, FNV_GUEST_ARGS
#   (k=v,k=v exported as FNV_k in the guest), FNV_KERNEL (the kernel image
#   to boot, default /boot/vmlinuz-$KVER), FNV_MODROOT (the root its modules
#   are under: <root>/lib/modules/$KVER, default /), FNV_TIMEOUT_SCALE
#   (integer factor on every test's time limit, default 1: for slow debug
#   kernels).
#
# Exit status 0 only if every TAP point passed, every script's plan matched,
# FNV-END rc=0 was seen and dmesg is clean. The last line of output is
# "N passed, M failed".
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

RUN=tests TESTS="" TIMEOUT="" OUT="${TMPDIR:-/tmp}/fnv-vm" SCHED="" MOD="" MOD_SET=0 IMAGE=busybox
usage() {
	sed -n '4,40p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case "$1" in
	--run) RUN=${2:?}; shift 2 ;;
	--tests) TESTS=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--sched) SCHED=${2:?}; shift 2 ;;
	--mod) MOD=${2?}; MOD_SET=1; shift 2 ;;
	--image) IMAGE=${2:?}; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$RUN" in tests | demo | bench | shell) ;; *) echo "run.sh: --run must be tests, demo, bench or shell" >&2; exit 2 ;; esac
case "$IMAGE" in
busybox) TDIR=$REPO/selftests/guest TPFX=t SUITE=guest ;;
full)
	TDIR=$REPO/selftests/full TPFX=f SUITE=full
	case "$RUN" in tests | shell) ;; *) echo "run.sh: --image full runs tests or shell only" >&2; exit 2 ;; esac
	;;
*) echo "run.sh: --image must be busybox or full" >&2; exit 2 ;;
esac
case "$TIMEOUT" in *[!0-9]*) echo "run.sh: --timeout needs seconds" >&2; exit 2 ;; esac
[ -z "$TIMEOUT" ] || [ "$TIMEOUT" -ge 60 ] || { echo "run.sh: --timeout must be >= 60" >&2; exit 2; }

# The scripts the guest will run (the selection of selftests/vm/runlib.sh), and
# the sum of their own time limits ("# fnv-timeout: SEC", else
# FNV_TEST_TIMEOUT): the default hard limit of the whole run, so that one
# hung script is killed by the guest and the others still run.
selected() {
	local b t
	if [ -z "$TESTS" ]; then
		# "# fnv-extended" scripts: only with fnv.args extended=1
		case ",${FNV_GUEST_ARGS:-}," in *,extended=1,*) return 0 ;; esac
		! grep -q '^# fnv-extended' "$1"
		return
	fi
	b=$(basename "$1" .sh)
	for t in ${TESTS//,/ }; do
		case "$b" in "$t" | "$t"-*) return 0 ;; esac
	done
	return 1
}
SCALE=${FNV_TIMEOUT_SCALE:-1}
case "$SCALE" in '' | *[!0-9]* | 0) echo "run.sh: FNV_TIMEOUT_SCALE must be a positive integer" >&2; exit 2 ;; esac
NPLAN=0 LIMITS=0
declare -A TLIM=() # each script's limit, for the stall check below
if [ "$RUN" = tests ]; then
	for f in "$TDIR"/"$TPFX"[0-9]*.sh; do
		selected "$f" || continue
		NPLAN=$((NPLAN + 1))
		lim=$(sed -n 's/^# fnv-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
		# the guest's limit under extended=1 (runlib.sh's run_one)
		case ",${FNV_GUEST_ARGS:-}," in *,extended=1,*)
			lim=$(sed -n 's/^# fnv-timeout-extended: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1 | grep . || echo "$lim") ;;
		esac
		lim=$((${lim:-${FNV_TEST_TIMEOUT:-420}} * SCALE))
		TLIM[$(basename "$f" .sh)]=$lim
		LIMITS=$((LIMITS + lim))
	done
	[ "$NPLAN" -gt 0 ] || { echo "run.sh: no guest test matches --tests $TESTS" >&2; exit 2; }
elif [ "$RUN" != shell ]; then
	lim=$(sed -n 's/^# fnv-timeout: *\([0-9][0-9]*\).*/\1/p' "$REPO/tools/$RUN-guest.sh" | head -n 1)
	NPLAN=1 LIMITS=$((${lim:-${FNV_TEST_TIMEOUT:-420}} * SCALE))
	TLIM[$RUN-guest]=$LIMITS
fi
TIMEOUT=${TIMEOUT:-$((LIMITS + 120))}

# ---------------------------------------------------------- host tools ----
missing=0
need() { # need CMD PACKAGE
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "run.sh: error: '$1' not found: apt-get install $2" >&2
		missing=1
	fi
}
need qemu-system-x86_64 qemu-system-x86
need fio fio
need cpio cpio
need gzip gzip
need depmod kmod
need modprobe kmod
need timeout coreutils
if [ "$IMAGE" = full ]; then
	need mke2fs e2fsprogs
fi
if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
	echo "run.sh: error: static /bin/busybox not found: apt-get install busybox-static" >&2
	missing=1
fi
# shellcheck source=selftests/vm/kver.sh
. "$HERE/kver.sh"
KVER=${KVER:-$(default_kver)}
MODROOT=${FNV_MODROOT:-}
KERNEL=${FNV_KERNEL:-/boot/vmlinuz-$KVER}
if [ -n "${FNV_KERNEL:-}" ] || [ -n "$MODROOT" ]; then
	# a kernel of our own (make check-debug): say what is missing of it
	if [ -z "$KVER" ] || [ ! -r "$KERNEL" ] || [ ! -d "$MODROOT/lib/modules/$KVER/kernel" ]; then
		echo "run.sh: error: FNV_KERNEL=$KERNEL or $MODROOT/lib/modules/${KVER:-<KVER>}/kernel missing" >&2
		missing=1
	fi
elif [ -z "$KVER" ] || [ ! -r "/boot/vmlinuz-$KVER" ] || [ ! -d "/lib/modules/$KVER/kernel" ]; then
	echo "run.sh: error: no Debian kernel in /boot (/boot/vmlinuz-${KVER:-6.1.*}) with /lib/modules/${KVER:-<ver>}: apt-get install linux-image-amd64 (or linux-image-${KVER:-6.1.0-NN-amd64})" >&2
	missing=1
fi
[ $missing = 0 ] || exit 2
export KVER FNV_MODROOT

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# one run per output directory at a time
if command -v flock >/dev/null 2>&1; then
	exec 8>"$OUT/.lock"
	if ! flock -n 8; then
		echo "run.sh: error: another run.sh is using $OUT; use --out DIR" >&2
		exit 2
	fi
fi
others=$(pgrep -c -f '^qemu-system-x86_64 ' 2>/dev/null || true)
if [ "${others:-0}" -gt 0 ]; then
	echo "run.sh: warning: $others other qemu-system-x86_64 process(es) running on this host: guest timing and bench numbers will be disturbed" >&2
fi
LOG=$OUT/serial.log
TAP=$OUT/tap.txt
DMESG=$OUT/dmesg.txt
INITRD=$OUT/initramfs.cpio.gz
IMG=$OUT/nvme.img
IMG2=$OUT/nvme-bw.img
IMG3=$OUT/nvme-3.img
IMG4=$OUT/nvme-4.img
rm -f "$LOG" "$TAP" "$DMESG"

# ------------------------------------------------------------- build ------
FULL_DRIVES=()
if [ "$IMAGE" = full ]; then
	# the cached Debian root (built the first time, minutes), booted with
	# snapshot=on: the guest writes to a temporary overlay only; the
	# per-run payload (modules, fairnvme.ko, tests, tools) read-only
	t0=$(date +%s)
	ROOTIMG=$("$HERE/mkrootfs.sh") || { echo "run.sh: error: selftests/vm/mkrootfs.sh failed" >&2; exit 2; }
	PAYLOAD=$OUT/payload.img
	"$HERE/mkpayload.sh" "$PAYLOAD"
	FNV_INITRAMFS_MODS="virtio_pci virtio_blk" "$HERE/mkinitramfs.sh" "$INITRD"
	echo "run.sh: full image and payload ready in $(($(date +%s) - t0)) s" >&2
	# shellcheck disable=SC2054
	FULL_DRIVES=(-drive "file=$ROOTIMG,if=none,id=root,format=raw,snapshot=on,cache=unsafe"
		-device virtio-blk-pci,drive=root,serial=fnvroot
		-drive "file=$PAYLOAD,if=none,id=payload,format=raw,readonly=on"
		-device virtio-blk-pci,drive=payload,serial=fnvpayload)
else
	"$HERE/mkinitramfs.sh" "$INITRD"
fi

rm -f "$IMG" "$IMG2" "$IMG3" "$IMG4"
for i in "$IMG" "$IMG2" "$IMG3" "$IMG4"; do
	truncate -s "${FNV_NVME_SIZE:-1G}" "$i"
done

GUEST_TIMEOUT=$((TIMEOUT - 30))
# hung-task reports after 60 s in D state (Debian's default is 120 s). The
# timeout is a sysctl, not a kernel parameter: "hung_task_timeout_secs=60"
# alone was passed to /init as an environment variable and changed nothing
# ("Unknown kernel command line parameters" in the log); the sysctl.
# prefix (fs/proc/proc_sysctl.c, 5.8 on) sets it on 6.1 and 6.12.
CMDLINE="console=ttyS0 loglevel=4 panic=-1 sysctl.kernel.hung_task_timeout_secs=60 sysctl.kernel.hung_task_panic=0"
# A soft lockup panics: the guest is wedged anyway, and the panic replays
# the kernel log at full verbosity (panic_print=0x20), so the stacks the
# report and the NMI backtrace of the other CPUs print at KERN_DEFAULT,
# which loglevel=4 keeps off the console, reach the serial log (a wedged
# guest never dumps its dmesg). Same parameters on 6.1 and 6.12.
CMDLINE="$CMDLINE softlockup_panic=1 sysctl.kernel.softlockup_all_cpu_backtrace=1 panic_print=0x20"
CMDLINE="$CMDLINE fnv.run=$RUN fnv.timeout=$GUEST_TIMEOUT fnv.test_timeout=${FNV_TEST_TIMEOUT:-420}"
# 6.12 under TCG (-cpu max) trusts the TSC at boot; about 90 s in, the
# clocksource watchdog finds it skewed against the HPET (whose reads TCG
# makes slow) and switches, flipping static keys by text_poke() while the
# other vCPU runs: twice now a guest died in sched_clock_cpu() with
# "Oops: int3" (TCG's cross-modifying code), once in CI in t04, no
# fairnvme frame. tsc=reliable leaves the TSC in use and the keys alone.
# 6.1 finds the TSCs unsynchronized at boot and uses the HPET throughout.
case "$KVER" in
6.1.*) ;;
*) CMDLINE="$CMDLINE tsc=reliable" ;;
esac
[ "$SCALE" != 1 ] && CMDLINE="$CMDLINE fnv.timeout_scale=$SCALE"
[ -n "$TESTS" ] && CMDLINE="$CMDLINE fnv.tests=$TESTS"
# systemd's status lines would interleave with the tests' on the console
[ "$IMAGE" = full ] && CMDLINE="$CMDLINE fnv.root=fnvroot systemd.show_status=0 systemd.log_level=notice"
[ -n "$SCHED" ] && CMDLINE="$CMDLINE fnv.sched=$SCHED"
[ "$MOD_SET" = 1 ] && CMDLINE="$CMDLINE fnv.mod=$MOD"
[ -n "${FNV_GUEST_ARGS:-}" ] && CMDLINE="$CMDLINE fnv.args=$FNV_GUEST_ARGS"
[ -n "${FNV_CMDLINE_EXTRA:-}" ] && CMDLINE="$CMDLINE $FNV_CMDLINE_EXTRA"

# shellcheck disable=SC2206
QEMU=(qemu-system-x86_64 -accel tcg -cpu max -smp "${FNV_SMP:-2}" -m "${FNV_MEM:-2G}"
	-nographic -no-reboot -monitor none -serial stdio
	-kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
	-drive "file=$IMG,if=none,id=nvm,format=raw,cache=${FNV_NVME_CACHE:-unsafe},aio=threads,throttling.iops-total=${FNV_NVME_IOPS:-2000}"
	-device nvme,serial=fnv0001,drive=nvm,max_ioqpairs=4
	-drive "file=$IMG2,if=none,id=nvm2,format=raw,cache=writeback,aio=threads,throttling.iops-total=${FNV_NVME_IOPS:-2000},throttling.bps-total=${FNV_NVME2_BPS:-4194304}"
	-device nvme,serial=fnv0002,drive=nvm2,max_ioqpairs=4
	-drive "file=$IMG3,if=none,id=nvm3,format=raw,cache=unsafe,aio=threads,throttling.iops-total=4000,throttling.bps-total=16000000"
	-device nvme,serial=fnv0003,drive=nvm3,max_ioqpairs=4
	-drive "file=$IMG4,if=none,id=nvm4,format=raw,cache=unsafe,aio=threads,throttling.iops-total=2000,throttling.bps-total=40000000"
	-device nvme,serial=fnv0004,drive=nvm4,max_ioqpairs=4
	"${FULL_DRIVES[@]+"${FULL_DRIVES[@]}"}"
	-nic none -pidfile "$OUT/qemu.pid" ${FNV_QEMU_EXTRA:-})

echo "run.sh: booting $KVER (image=$IMAGE, run=$RUN${TESTS:+ tests=$TESTS}${SCHED:+ sched=$SCHED}, timeout ${TIMEOUT}s), log: $LOG" >&2
start=$(date +%s)
# Live output: everything when stdout is a terminal, otherwise only
# progress. It also watches for progress: the guest kills a script at its
# limit and goes on, so a script that has not ended 90 s after its limit,
# or a guest silent for FNV_STALL_SEC (default 300) between scripts, means
# a wedged guest kernel (no task runs, the guest's own watchdog neither).
# QEMU is then killed at once rather than at the hard timeout, which is
# the sum of every script's limit: a CI run must end with a report.
STALLED=$OUT/stalled
rm -f "$STALLED" "$OUT/qemu.pid" "$LOG.boot1" "$OUT/qemu.stderr.boot1"
live() {
	local line part="" now deadline what lim slack killed=0 all=0
	[ -t 1 ] && all=1
	deadline=$(($(date +%s) + ${FNV_STALL_SEC:-300}))
	what="nothing from the guest's boot for ${FNV_STALL_SEC:-300} s"
	while :; do
		if IFS= read -r -t 10 line; then
			line=$part$line part=""
			now=$(date +%s)
			case "$line" in
			FNV-TEST-BEGIN\ *)
				what=${line#FNV-TEST-BEGIN }
				lim=${TLIM[$what]:-$((${FNV_TEST_TIMEOUT:-420} * SCALE))}
				# the guest's own kill comes first: it needs up to
				# 30 s more, its clock may run slow (debug kernels)
				slack=$((lim / 5 > 90 ? lim / 5 : 90))
				what="$what has not ended $slack s after its limit of $lim s"
				deadline=$((now + lim + slack)) ;;
			FNV-TEST-END\ * | FNV-END\ *)
				what="nothing for ${FNV_STALL_SEC:-300} s after \"${line%% rc=*}\""
				deadline=$((now + ${FNV_STALL_SEC:-300})) ;;
			FNV-DMESG-END)
				what="no power-off 60 s after the report"
				deadline=$((now + 60)) ;;
			esac
			if [ $all = 1 ]; then
				printf '%s\n' "$line"
			else
				case "$line" in
				FNV-TEST-BEGIN* | FNV-TEST-END* | FNV-WATCHDOG*) printf '# run.sh: %s\n' "$line" ;;
				esac
			fi
		elif [ $? -gt 128 ]; then # read timed out: no line for 10 s
			part=$part$line # what came of a line so far
			now=$(date +%s)
		else
			break # end of the console output
		fi
		# checked on every line too: a guest printing in a loop (a
		# script's, or the kernel's) is no proof of progress
		if [ "$now" -gt "$deadline" ]; then
			if [ $killed = 0 ]; then
				echo "guest stalled: $what; qemu killed" >"$STALLED"
				echo "# run.sh: $(cat "$STALLED")"
				kill "$(cat "$OUT/qemu.pid" 2>/dev/null)" 2>/dev/null
				killed=$now
			elif [ "$killed" -gt 1 ] && [ "$now" -gt $((killed + 30)) ]; then
				# once: it ignored SIGTERM
				kill -9 "$(cat "$OUT/qemu.pid" 2>/dev/null)" 2>/dev/null
				killed=1
			fi
		fi
	done
}
set +e
if [ "$RUN" = shell ]; then
	"${QEMU[@]}"
	exit $?
fi
# The guest measures time: run it ahead of other work on a shared host
# (FNV_QEMU_NICE, default -10 as root). Under TCG a busy host core halves
# the guest's CPU and stalls its vCPUs for whole host time slices; a QD1
# tenant's round trips then measure the host, not the scheduler.
NICE=()
if [ "$(id -u)" = 0 ] && command -v nice >/dev/null 2>&1; then
	NICE=(nice -n "${FNV_QEMU_NICE:--10}")
fi
# A kernel that crashed before /init printed a line is not a test result:
# under TCG a vCPU can trap on an int3 that text_poke() left while it
# patched a static key (6.12, "sched_clock: Marking stable", at 6 s). It
# boots again, once; the first console log is kept beside the second.
for boot in 1 2; do
	timeout -k 10 "$TIMEOUT" "${NICE[@]}" "${QEMU[@]}" </dev/null 2>"$OUT/qemu.stderr" |
		stdbuf -oL tr -s '\r' '\n' | tee "$LOG" | live
	qrc=${PIPESTATUS[0]}
	[ $boot = 1 ] && [ ! -s "$STALLED" ] && ! grep -aq 'fnv-init: ' "$LOG" &&
		grep -aqE 'Oops|Kernel panic|BUG:' "$LOG" || break
	echo "run.sh: the kernel crashed before /init ran ($(grep -aE -m 1 'Oops|Kernel panic|BUG:' "$LOG" | sed 's/^.*\(\[ *[0-9]*\.[0-9]*\] \)/\1/' | tr -d '\r')): booting again; the first log is $LOG.boot1" >&2
	mv "$LOG" "$LOG.boot1"
	mv "$OUT/qemu.stderr" "$OUT/qemu.stderr.boot1"
	rm -f "$OUT/qemu.pid"
done
set -e
elapsed=$(($(date +%s) - start))

fail_msgs=()
if [ -s "$STALLED" ]; then
	fail_msgs+=("$(cat "$STALLED") (see $LOG)")
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail_msgs+=("guest did not finish within the hard timeout of ${TIMEOUT}s (qemu killed); see $LOG")
elif [ "$qrc" != 0 ]; then
	fail_msgs+=("qemu exited with status $qrc: $(tail -n 3 "$OUT/qemu.stderr" | tr '\n' ' ')")
fi

# ------------------------------------------------------------- parse ------
# kselftest layout (tools/testing/selftests/kselftest/runner.sh): version,
# plan (one point per script), each script's own TAP nested as "# " lines,
# "ok N selftests: fairnvme/guest: NAME" or "not ok ...", a "# Totals:"
# line over the scripts. A script fails if a point failed, its plan does not
# match, it exited non-zero or it did not finish. In demo and bench mode the
# script's output is shown as it is and its exit status is the point.
awk -v mode="$RUN" -v tapfile="$TAP" -v nplan="$NPLAN" -v suite="$SUITE" '
function emit(s) { print s >> tapfile }
function flush_block(   why) {
	if (name == "") return
	why = ""
	if (!ended) {
		why = "did not finish (guest died or was killed)"
		fail++
	} else if (mode == "tests") {
		if (plan < 0) { why = "no TAP plan"; fail++ }
		else if (plan != pts) { why = sprintf("planned %d test points but %d ran", plan, pts); fail++ }
		else if (rc != 0 && bfail == 0) { why = sprintf("exited with rc=%s although no test point failed", rc); fail++ }
		else if (bfail) why = sprintf("%d of %d points failed", bfail, plan)
	} else if (pts == 0) {
		if (rc == 0) pass++
		else { why = sprintf("exited rc=%s", rc); fail++ }
	}
	n++
	if (why == "") { emit(sprintf("ok %d selftests: fairnvme/%s: %s # time=%s", n, suite, name, tm)); spass++ }
	else { emit(sprintf("not ok %d selftests: fairnvme/%s: %s # %s, time=%s", n, suite, name, why, tm)); sfail++ }
	times = times sprintf(" %s=%s", name, tm)
	name = ""
}
BEGIN { emit("TAP version 13"); emit("1.." nplan) }
/^FNV-BEGIN$/ { inrun = 1; next }
/^FNV-END rc=/ { flush_block(); inrun = 0; endseen = 1; sub(/^FNV-END rc=/, ""); endrc = $0 + 0; next }
!inrun { next }
/^FNV-TEST-BEGIN / {
	flush_block(); name = $2; plan = -1; pts = 0; bfail = 0; ended = 0; rc = "?"; tm = "?"
	emit("# selftests: fairnvme/" suite ": " name); next
}
/^FNV-TEST-END / {
	ended = 1
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^rc=/) rc = substr($i, 4) + 0
		if ($i ~ /^time=/) tm = substr($i, 6)
	}
	next
}
name == "" { if ($0 ~ /^(not )?ok /) { emit("# " $0); if ($0 ~ /^not/) fail++ } next }
/^[ \t]*1\.\.[0-9]+/ { x = $0; sub(/^[ \t]*1\.\./, "", x); plan = x + 0; emit("# " $0); next }
/^[ \t]*ok( |$).*# SKIP/ { pts++; skip++; emit("# " $0); next }
/^[ \t]*ok( |$)/ { pts++; pass++; emit("# " $0); next }
/^[ \t]*not ok( |$)/ { pts++; fail++; bfail++; emit("# " $0); next }
/^[ \t]*#/ { emit("# " $0); next }
/^TAP version/ { emit("# " $0); next }
mode != "tests" { emit("# " $0); next }
END {
	flush_block()
	if (!endseen) { emit("# FNV-END not seen: the guest did not complete the run"); fail++ }
	else if (endrc != 0 && fail == 0) { emit(sprintf("# FNV-END rc=%d", endrc)); fail++ }
	if (n != nplan) { emit(sprintf("# planned %d scripts but %d ran", nplan, n)); fail++ }
	emit(sprintf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:%d", spass, sfail, nplan - n > 0 ? nplan - n : 0))
	emit(sprintf("# test points: pass:%d fail:%d skip:%d", pass, fail, skip))
	emit("# time per script:" times)
	printf "%d %d %d %d %d\n", pass, fail, endseen, endrc, skip
}' "$LOG" >"$OUT/counts" || true
: >>"$TAP"
read -r npass nfail endseen endrc nskip <"$OUT/counts" || { npass=0 nfail=1 endseen=0 endrc=1 nskip=0; }

echo
echo "==== TAP ($RUN) ===="
cat "$TAP"

# ------------------------------------------------------------- dmesg ------
sed -n '/^FNV-DMESG-BEGIN$/,/^FNV-DMESG-END$/p' "$LOG" | sed '1d;$d' >"$DMESG"
if [ ! -s "$DMESG" ]; then
	# no dmesg section (guest crashed?): scan the whole console log instead
	cp "$LOG" "$DMESG"
	fail_msgs+=("no dmesg section in the console log")
fi
# lockdep's reports start with "WARNING:" and KASAN's with "BUG: KASAN:";
# their titles are listed too, in case a report's first line is lost. A
# filesystem that found its metadata corrupt (t19's ext4) is one too: no
# test means to corrupt one. (I/O errors are not: t08 and t22 remove
# devices under I/O.)
BAD_RE='EXT4-fs error|WARNING:|BUG:|Oops|lockdep|possible circular locking|inconsistent lock state|SOFTIRQ-safe|HARDIRQ-safe|irq lock inversion|sleeping function called from invalid context|INFO: task .* blocked for more than|hung_task|general protection|Call Trace|Kernel panic|soft lockup|RCU stall|rcu_sched detected stall|UBSAN|KASAN'
bad=$(grep -E "$BAD_RE" "$DMESG" | grep -v -E '[Cc]ommand line:|RCU lockdep checking is enabled' || true)
if [ -n "$bad" ]; then
	echo
	echo "==== dmesg problems ===="
	# sed, not head: head's early exit would end this script through
	# SIGPIPE under pipefail
	printf '%s\n' "$bad" | sed -n '1,15p'
	[ "$(printf '%s\n' "$bad" | wc -l)" -le 15 ] || echo "[... $(($(printf '%s\n' "$bad" | wc -l) - 15)) more]"
	# the lines above are only what matched; CI keeps no root, so the
	# first report is printed too, with its stack, registers and
	# unreliable ("? ") frames left out, last: CI's summary shows the end.
	# At loglevel=4 a soft lockup's stack and the NMI backtraces
	# (KERN_DEFAULT) reach the console only through a panic's replay
	# (softlockup_panic, panic_print=0x20 on the command line); an Oops
	# and a panic raise the console's level and print theirs live.
	echo
	echo "==== the first report, condensed ===="
	# After a panic, the replay has the reports whole: it is searched
	# rather than the live lines. It starts after the live "Kernel
	# Offset:" line that follows the panic (at "Linux version" if the
	# kernel printed none; not there if its log buffer had wrapped).
	from=$(awk '/Kernel panic - not syncing/ { p = 1 }
		p && !r && /Kernel Offset:|\] Linux version / { r = NR + 1 }
		END { print r ? r : 1 }' "$DMESG")
	# The report: the first title within 40 lines before the first stack,
	# else 5 lines before that stack (sysrq's blocked tasks have no
	# title), else the first title.
	l=$(awk -v re="$BAD_RE" -v from="$from" 'NR < from { next }
		$0 ~ re && !/[Cc]ommand line:|RCU lockdep checking is enabled|Call Trace/ { c[++n] = NR }
		/Call Trace|RIP: / && !l { for (i = 1; i <= n; i++) if (NR - c[i] <= 40) { l = c[i]; break }
			if (!l) l = NR > from + 5 ? NR - 5 : from }
		END { if (l || n) print l ? l : c[1] }' "$DMESG")
	# printed up to its end: "---[ end trace", the kernel's offset line
	# or the next boot's banner, 60 lines at most; only the kernel's
	# lines (a console log has the tests' lines in between)
	[ -z "$l" ] || awk -v a="$((l - 3 > from ? l - 3 : from))" -v b="$((l + 200))" 'NR < a { next }
		NR > b || (NR > a + 3 && /Kernel Offset:|\] Linux version /) { exit }
		!/^\[/ { next }
		!/(RAX|RBX|RCX|RDX|RSI|RDI|RBP|RSP|R[0-9]+|FS|GS|CS|CR[0-9]|DR[0-9]):[ ]*[0-9a-f]|Code: |\] +\? |Modules linked in:/ { print }
		/---\[ end trace/ { exit }' "$DMESG" |
		sed -n '1,60p'
	fail_msgs+=("dmesg contains $(echo "$bad" | wc -l) suspicious line(s) (full dmesg: $DMESG)")
fi

echo
echo "run.sh: guest ran ${elapsed}s; log $LOG; FNV-END $([ "$endseen" = 1 ] && echo "rc=$endrc" || echo "missing")"
for m in "${fail_msgs[@]+"${fail_msgs[@]}"}"; do
	echo "run.sh: FAIL: $m"
done
rc=0
if [ "$nfail" != 0 ] || [ "$endseen" != 1 ] || [ "$endrc" != 0 ] || [ ${#fail_msgs[@]} -ne 0 ]; then
	rc=1
fi
if [ "$RUN" = tests ] && [ "$npass" = 0 ]; then
	echo "run.sh: FAIL: no test point passed"
	rc=1
fi
if [ "${nskip:-0}" -gt 0 ]; then
	echo "$npass passed, $nfail failed, $nskip skipped"
else
	echo "$npass passed, $nfail failed"
fi
exit $rc
