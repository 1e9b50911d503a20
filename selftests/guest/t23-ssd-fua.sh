#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-extended: the emulated SSD's own interference; t24 covers TABS in
# ./run check
# fnv-timeout: 300
#
# Read/program interference on the emulated SSD (fnvssd.ko, at its
# defaults), as in section 3 of the TABS paper: a 16 KiB random reader at
# queue depth 4 alone, then beside a writer of 4 KiB blocks at random at
# depth 16 with FUA (fio sync=1), then beside the same writer without FUA,
# whose writes the write cache takes and programs when the dies have no
# read to do. Under none and fairnvme (and mq-deadline with
# fnv.args=peers=1: lib.sh's peer_scheds; all in the root
# cgroup, at the defaults), the reader keeps at most 30 % of its
# bandwidth alone beside the FUA writer, and beside the cached writer at
# least 1.5 times what it kept beside the FUA one. From 6.5 the FUA writes
# pass the elevator; on 6.1 they go to the device past it
# (blk_insert_flush()): the device sees them the same. fairnvme runs with
# tabs off, the one tunable written: this test measures the device's
# interference, which TABS (on by default from 6.5) is there to undo; t24
# tests TABS.
. /tests/lib.sh

RT=${FNV_T23_RUNTIME:-6}
tap_plan $((4 + $(npeers mq-deadline)))
ssd_prereq
fnv_load || tap_fail_rest "fairnvme not available"
W="$FNV_WORK/t23"
rm -rf "$W"
mkdir -p "$W"
trap 'ssd_destroy t23' EXIT
dev=$(ssd_create t23) || tap_fail_rest "cannot create an fnvssd device"

READER="--name=r --filename=/dev/$dev --rw=randread --bs=16k --direct=1 --ioengine=libaio --iodepth=4 --offset=0 --size=256M --runtime=$RT --time_based --randrepeat=0"
WRITER="--name=w --filename=/dev/$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --offset=512M --size=256M --runtime=$((RT + 2)) --time_based --randrepeat=0"

# phase NAME alone|fua|cached : the reader, alone or beside the writer
phase() {
	_wp=""
	if [ "$2" != alone ]; then
		_x=""
		[ "$2" = fua ] && _x=--sync=1
		# shellcheck disable=SC2086
		fio_run "$W/$1.w" $WRITER $_x &
		_wp=$!
		sleep 1
	fi
	# shellcheck disable=SC2086
	fio_run "$W/$1" $READER
	[ -z "$_wp" ] || wait "$_wp"
}

for s in none $(peer_scheds mq-deadline) fairnvme; do
	check "select $s on $dev" set_sched "$dev" "$s"
	[ "$s" = fairnvme ] && echo off >"/sys/block/$dev/queue/iosched/tabs"
	phase "$s.alone" alone
	phase "$s.fua" fua
	phase "$s.cached" cached
	a=$(fio_kb "$W/$s.alone" read) f=$(fio_kb "$W/$s.fua" read) c=$(fio_kb "$W/$s.cached" read)
	kf=$(fcalc "$f / $a") kc=$(fcalc "$c / $a")
	diag "$s: reader KiB/s alone $((a / RT)), beside FUA $((f / RT)) (kept $kf, writer $(fio_iops "$W/$s.fua.w" write) IOPS), beside cached $((c / RT)) (kept $kc, writer $(fio_iops "$W/$s.cached.w" write) IOPS)"
	eval "kf_$(echo $s | tr - _)=$kf kc_$(echo $s | tr - _)=$kc"
done
diag "device: $(tr '\n' ' ' <"/sys/kernel/debug/fnvssd/t23/stats")"
ok_all=1
for s in none $(peer_scheds mq-deadline | tr - _) fairnvme; do
	eval "kf=\$kf_$s kc=\$kc_$s"
	awk -v f="$kf" -v c="$kc" 'BEGIN { exit !(f <= 0.30 && c >= 1.5 * f) }' || ok_all=0
	diag "$s: kept beside FUA $kf, beside cached $kc"
done
check "beside the FUA writer the reader keeps at most 0.30, beside the cached one 1.5x that (none $kf_none/$kc_none,${kf_mq_deadline:+ mq-deadline $kf_mq_deadline/$kc_mq_deadline,} fairnvme $kf_fairnvme/$kc_fairnvme)" test "$ok_all" = 1
sf=$(ssd_stat t23 writes_fua)
sc=$(ssd_stat t23 writes_cached)
check "the device saw FUA writes ($sf), cached ones ($sc) and reads that waited for a program ($(ssd_stat t23 read_interference))" test "${sf:-0}" -gt 0 -a "${sc:-0}" -gt 0
ssd_destroy t23
tap_done
