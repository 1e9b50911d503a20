#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh - scheduler CPU-overhead benchmark, run inside the test guest
# (selftests/vm/run.sh --run bench). Creates a null_blk device through configfs
# and measures 4 KiB random-read IOPS with fio under each scheduler, in
# interleaved rounds (none, mq-deadline, ..., none, mq-deadline, ...), and
# prints the mean IOPS and the ratio to "none". It does not assert anything;
# it exits non-zero only if something failed to run.
#
# Knobs (environment, or fnv.args=bench_runtime=5,bench_rounds=3 on the
# kernel command line, which /init exports as FNV_bench_*):
#   FNV_bench_scheds   default "none mq-deadline kyber bfq $FNV_SCHED
#                      $FNV_SCHED:off"; NAME:MODE selects NAME and writes
#                      MODE to its iosched/wrr_mode
#   FNV_bench_rounds   default 2
#   FNV_bench_runtime  seconds per measurement, default 10 (plus 2 s ramp)
#   FNV_bench_engine   libaio (default) or io_uring
#   FNV_bench_irqmode  null_blk irqmode, default 0 (complete inline: the most
#                      stable numbers under TCG)
#   FNV_bench_numjobs / FNV_bench_iodepth   default 2 / 32
set -u
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

FNV_SCHED=${FNV_SCHED:-fairnvme}
SCHEDS=${FNV_bench_scheds:-none mq-deadline kyber bfq $FNV_SCHED $FNV_SCHED:off}
ROUNDS=${FNV_bench_rounds:-2}
RUNTIME=${FNV_bench_runtime:-10}
RAMP=${FNV_bench_ramp:-2}
ENGINE=${FNV_bench_engine:-libaio}
IRQMODE=${FNV_bench_irqmode:-0}
NUMJOBS=${FNV_bench_numjobs:-2}
IODEPTH=${FNV_bench_iodepth:-32}
NB=fnv_bench
W=$FNV_WORK/bench
mkdir -p "$W"
failed=0

cleanup() {
	[ -n "${dev:-}" ] && echo none >"/sys/block/$dev/queue/scheduler" 2>/dev/null
	nullb_destroy "$NB" 2>/dev/null
}
trap cleanup EXIT

# make sure every scheduler is available (modules)
for s in $SCHEDS; do
	case "${s%%:*}" in
	none | mq-deadline) ;;
	bfq) modprobe bfq 2>/dev/null ;;
	kyber) modprobe kyber-iosched 2>/dev/null ;;
	"$FNV_SCHED")
		if ! err=$(fnv_load 2>&1); then
			echo "bench: $FNV_SCHED unavailable: $err"
			failed=1
		fi
		;;
	*) modprobe "$s-iosched" 2>/dev/null || modprobe "$s" 2>/dev/null ;;
	esac
done

if ! dev=$(nullb_create "$NB" memory_backed=0 irqmode="$IRQMODE" submit_queues=2 \
	hw_queue_depth=64 size=4096 blocksize=4096); then
	echo "bench: cannot create the null_blk device"
	exit 1
fi
echo "bench: kernel $(uname -r), $(nproc) cpus; device $dev: null_blk memory_backed=0 irqmode=$IRQMODE submit_queues=2 hw_queue_depth=64"
echo "bench: fio 4k randread direct=1 ioengine=$ENGINE numjobs=$NUMJOBS iodepth=$IODEPTH runtime=${RUNTIME}s ramp=${RAMP}s, $ROUNDS interleaved rounds"
echo "bench: offered: $(cat "/sys/block/$dev/queue/scheduler")"

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for s in $SCHEDS; do
		f=$W/$s.$r.terse
		if ! err=$(set_sched "$dev" "${s%%:*}" 2>&1) || { [ "$s" != "${s%%:*}" ] &&
			! err=$( (echo "${s#*:}" >"/sys/block/$dev/queue/iosched/wrr_mode") 2>&1); }; then
			echo "bench: round $r $s: cannot select: $err"
			echo "FAILED" >"$f"
			failed=1
			continue
		fi
		if fio --eta=never --output-format=terse --terse-version=3 --output="$f" \
			--name=bench --filename="/dev/$dev" --rw=randread --bs=4k --direct=1 \
			--ioengine="$ENGINE" --numjobs="$NUMJOBS" --iodepth="$IODEPTH" --group_reporting \
			--time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --randrepeat=0 \
			--norandommap 2>"$f.err" && [ "$(fio_err "$f")" = 0 ]; then
			echo "bench: round $r $s: $(fio_iops "$f" read) IOPS, clat mean $(fio_lat "$f" read mean) us"
		else
			echo "bench: round $r $s: fio failed: $(head -n 3 "$f.err" | tr '\n' ' ')"
			echo "FAILED" >"$f"
			failed=1
		fi
	done
	r=$((r + 1))
done
set_sched "$dev" none

# mean IOPS per scheduler over the rounds that ran
mean_iops() {
	for f in "$W/$1".*.terse; do
		[ -f "$f" ] && grep -q '^3;' "$f" && fio_iops "$f" read
	done | awk '{ s += $1; n++ } END { if (n) printf "%.0f\n", s / n; else print "" }'
}
rounds_of() {
	for f in "$W/$1".*.terse; do
		if [ -f "$f" ] && grep -q '^3;' "$f"; then
			printf '%.0f ' "$(fio_iops "$f" read)"
		else
			printf 'FAILED '
		fi
	done
}
base=$(mean_iops none)
echo
printf '%-12s %10s %8s   %s\n' scheduler IOPS ratio "per round"
for s in $SCHEDS; do
	m=$(mean_iops "$s")
	if [ -z "$m" ]; then
		printf '%-12s %10s %8s   %s\n' "$s" "-" "-" "$(rounds_of "$s")"
		echo "BENCH $s FAILED -"
		continue
	fi
	ratio=$(awk -v a="$m" -v b="${base:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
	printf '%-12s %10s %8s   %s\n' "$s" "$m" "$ratio" "$(rounds_of "$s")"
	echo "BENCH $s $m $ratio"
done
exit $failed
