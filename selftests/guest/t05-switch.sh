#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t05-switch: switch the scheduler none -> FNV -> mq-deadline -> FNV repeatedly
# while I/O from cgroups is running, and FNV's wrr_mode between soft and off
# while it is selected (its queued tenants move between D2FQ's class lists
# and the budget cycles); no I/O error, data intact, ends on FNV.
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

tap_plan 7

RUNTIME=${FNV_t05_runtime:-20}
cleanup() {
	cg_destroy t05a 2>/dev/null
	cg_destroy t05b 2>/dev/null
}
trap cleanup EXIT

# 1
ndev=$(nvme_dev) || tap_fail_rest "no nvme namespace"
if err=$(fnv_load 2>&1) && err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1); then
	ok "$FNV_SCHED loaded and selectable on $ndev"
else
	not_ok "$FNV_SCHED loaded and selectable on $ndev" "$err"
	tap_fail_rest "$FNV_SCHED unavailable: $err"
fi
set_sched "$ndev" none

# background I/O: a time-based randrw in t05a, and a write+verify job in t05b
cg_create t05a
cg_create t05b
(
	run_in_cg t05a fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t05a.terse" \
		--name=t05a --filename="/dev/$ndev" --offset=0 --size=256M --rw=randrw --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting \
		--time_based --runtime="$RUNTIME" 2>"$FNV_WORK/t05a.terse.err"
	echo $? >"$FNV_WORK/t05a.rc"
) &
pa=$!
(
	run_in_cg t05b fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t05b.terse" \
		--name=t05b --filename="/dev/$ndev" --offset=512M --size=32M --rw=randwrite \
		--bssplit=4k/50:64k/40:256k/10 --direct=1 --ioengine=libaio --iodepth=16 \
		--verify=crc32c --verify_fatal=1 --verify_dump=0 --randseed=505 \
		2>"$FNV_WORK/t05b.terse.err"
	echo $? >"$FNV_WORK/t05b.rc"
) &
pb=$!

# switch loop: ~1 s apart while the randrw job runs
switches=0
fails=0
modes=0
mfails=0
failmsg=""
sleep 1
t_end=$(($(now_ms) + (RUNTIME - 2) * 1000))
while [ "$(now_ms)" -lt "$t_end" ]; do
	for s in none "$FNV_SCHED" mq-deadline "$FNV_SCHED"; do
		if err=$(set_sched "$ndev" "$s" 2>&1); then
			switches=$((switches + 1))
			if [ "$s" = fairnvme ]; then
				for m in off soft; do
					sleep 0.3
					if echo $m 2>/dev/null >"/sys/block/$ndev/queue/iosched/wrr_mode"; then
						modes=$((modes + 1))
					else
						mfails=$((mfails + 1))
					fi
				done
			fi
		else
			fails=$((fails + 1))
			failmsg="$err"
		fi
		sleep 1
		[ "$(now_ms)" -lt "$t_end" ] || break
	done
done
# end on FNV_SCHED (the loop may have stopped mid-round)
if [ "$(get_sched "$ndev")" != "$FNV_SCHED" ]; then
	if err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1); then
		switches=$((switches + 1))
	else
		fails=$((fails + 1))
		failmsg="$err"
	fi
fi
wait "$pa"
wait "$pb"

# 2
# a debug kernel (timing_off) manages fewer in the same time
if [ $fails = 0 ] && { [ $switches -ge 8 ] || { timing_off && [ $switches -ge 1 ]; }; }; then
	ok "$switches scheduler switches under I/O all succeeded"
else
	not_ok "scheduler switches under I/O" "$switches succeeded, $fails failed: $failmsg"
fi
if [ "$FNV_SCHED" != fairnvme ] || { [ $mfails = 0 ] && [ $modes -ge 4 ]; }; then
	ok "$modes wrr_mode switches under I/O all succeeded"
else
	not_ok "wrr_mode switches under I/O" "$modes succeeded, $mfails failed"
fi
# 3
fio_check "randrw in cgroup t05a during switching: rc=$(cat "$FNV_WORK/t05a.rc" 2>/dev/null) err=$(fio_err "$FNV_WORK/t05a.terse"), $(fio_iops "$FNV_WORK/t05a.terse") IOPS" \
	"$FNV_WORK/t05a.terse" "$(cat "$FNV_WORK/t05a.rc" 2>/dev/null || echo missing)"
# 4
fio_check "randwrite+verify crc32c in cgroup t05b during switching" \
	"$FNV_WORK/t05b.terse" "$(cat "$FNV_WORK/t05b.rc" 2>/dev/null || echo missing)"
# 5
if [ "$(get_sched "$ndev")" = "$FNV_SCHED" ]; then
	ok "final scheduler is $FNV_SCHED"
else
	not_ok "final scheduler is $FNV_SCHED" "$(cat "/sys/block/$ndev/queue/scheduler")"
fi
# 6: device idle and usable: nothing left holding a scheduler tag, a read works
if wait_until 10 sh -c "[ \"\$(cat /sys/block/$ndev/inflight | awk '{print \$1+\$2}')\" = 0 ]" &&
	dd if="/dev/$ndev" of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null; then
	ok "$ndev idle (inflight 0) and readable after the switching"
else
	not_ok "$ndev idle and readable after the switching" "inflight: $(cat "/sys/block/$ndev/inflight")"
fi
set_sched "$ndev" none
tap_done
