#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t02-verify: data integrity through the scheduler. Three cgroups write and
# verify (crc32c) their own disjoint regions of the nvme namespace at the same
# time with mixed block sizes 512 B..1 MiB, direct I/O; then a buffered write
# (merged by the block layer) read back with O_DIRECT.
# shellcheck source=selftests/guest/lib.sh disable=SC1091
. /tests/lib.sh

tap_plan 9

REGION_MB=${FNV_t02_region_mb:-48}
CGS="t02a t02b t02c"
cleanup() {
	for c in $CGS t02buf; do cg_destroy "$c" 2>/dev/null; done
}
trap cleanup EXIT

# 1
ndev=$(nvme_dev) || tap_fail_rest "no nvme namespace"
if err=$(fnv_load 2>&1) && err=$(set_sched "$ndev" "$FNV_SCHED" 2>&1); then
	ok "$FNV_SCHED selected on $ndev"
else
	not_ok "$FNV_SCHED selected on $ndev" "$err"
	tap_fail_rest "$FNV_SCHED unavailable: $err"
fi

engine=libaio
fio --enghelp 2>/dev/null | grep -qw libaio || engine=psync
diag "ioengine $engine, region ${REGION_MB} MiB per cgroup"

# 2-4: three cgroups, concurrent randrw + verify on disjoint regions
i=0
pids=""
for c in $CGS; do
	cg_create "$c"
	(
		run_in_cg "$c" fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/$c.terse" \
			--name="$c" --filename="/dev/$ndev" --offset=$((i * (REGION_MB + 16)))M --size="${REGION_MB}M" \
			--rw=randrw --rwmixread=30 --bssplit=512/10:4k/30:16k/15:64k/20:256k/15:1m/10 --blockalign=512 \
			--direct=1 --ioengine=$engine --iodepth=16 \
			--verify=crc32c --verify_fatal=1 --verify_dump=0 --do_verify=1 \
			--randseed=$((1234 + i)) 2>"$FNV_WORK/$c.terse.err"
		echo $? >"$FNV_WORK/$c.rc"
	) &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do wait "$p"; done
for c in $CGS; do
	rc=$(cat "$FNV_WORK/$c.rc" 2>/dev/null || echo missing)
	e=$(fio_err "$FNV_WORK/$c.terse")
	wkb=$(fio_kb "$FNV_WORK/$c.terse" write)
	rkb=$(fio_kb "$FNV_WORK/$c.terse" read)
	eval "wkb_$c=\${wkb:-0}"
	if [ "$rc" = 0 ] && [ "$e" = 0 ] && [ "${wkb:-0}" -gt 0 ]; then
		ok "cgroup $c: randrw 512B-1M direct verify=crc32c rc=0 err=0 (wrote ${wkb} KiB, read ${rkb} KiB)"
	else
		not_ok "cgroup $c: randrw 512B-1M direct verify=crc32c" "rc=$rc err=$e wrote=${wkb}KiB: $(grep -iE 'verify|error|bad|fail' "$FNV_WORK/$c.terse" "$FNV_WORK/$c.terse.err" 2>/dev/null | head -n 3 | tr '\n' ' ')"
	fi
done

# 5: the regions must not bleed into each other: re-verify all three from the
# root cgroup after everything finished (verify_only, same seeds and layout),
# each reading back all it wrote (sectors read, counted by the disk's stat,
# not by fio; verify_only reads each block the run wrote once: measured
# equal to the KiB fio wrote, for each region)
i=0
bad=""
vsum=""
for c in $CGS; do
	s0=$(awk '{print $3}' "/sys/block/$ndev/stat")
	if ! fio_run "$FNV_WORK/$c-re.terse" --name="$c" --filename="/dev/$ndev" \
		--offset=$((i * (REGION_MB + 16)))M --size="${REGION_MB}M" \
		--rw=randrw --rwmixread=30 --bssplit=512/10:4k/30:16k/15:64k/20:256k/15:1m/10 --blockalign=512 \
		--direct=1 --ioengine=$engine --iodepth=16 --verify=crc32c --verify_fatal=1 --verify_dump=0 \
		--verify_only=1 --randseed=$((1234 + i)) || [ "$(fio_err "$FNV_WORK/$c-re.terse")" != 0 ]; then
		bad="$bad $c"
	fi
	vkb=$((($(awk '{print $3}' "/sys/block/$ndev/stat") - s0) / 2))
	eval "w=\$wkb_$c"
	vsum="$vsum $c:${vkb}/${w}KiB"
	[ "$vkb" -ge "$w" ] && [ "$w" -gt 0 ] || bad="$bad $c(read ${vkb} of ${w} KiB)"
	i=$((i + 1))
done
diag "re-verify, KiB read back / written:$vsum"
if [ -z "$bad" ]; then
	ok "all three regions re-verified after the concurrent run:$vsum"
else
	not_ok "all three regions re-verified after the concurrent run" "failed:$bad"
fi

# 6-8: buffered sequential write (merged into large requests) from a cgroup,
# flushed, page cache dropped, read back and verified with O_DIRECT
BUF_OFF=$((3 * (REGION_MB + 16) + 64))M
BUFARGS="--name=t02buf --filename=/dev/$ndev --offset=$BUF_OFF --size=${REGION_MB}M --rw=write --bs=4k --verify=crc32c --verify_fatal=1 --verify_dump=0 --randseed=99"
cg_create t02buf
rd0=$(awk '{print $1}' "/sys/block/$ndev/stat")   # reads completed
wr0=$(awk '{print $5}' "/sys/block/$ndev/stat")   # writes completed
wm0=$(awk '{print $6}' "/sys/block/$ndev/stat")   # writes merged
rc=0
# shellcheck disable=SC2086
run_in_cg t02buf fio --eta=never --output-format=terse --terse-version=3 --output="$FNV_WORK/t02buf.terse" \
	$BUFARGS --direct=0 --ioengine=psync --do_verify=0 --end_fsync=1 2>"$FNV_WORK/t02buf.terse.err" || rc=$?
sync
wr1=$(awk '{print $5}' "/sys/block/$ndev/stat")
wm1=$(awk '{print $6}' "/sys/block/$ndev/stat")
fio_check "buffered 4k sequential write of ${REGION_MB} MiB with end_fsync" "$FNV_WORK/t02buf.terse" "$rc"
nreq=$((wr1 - wr0))
nmerge=$((wm1 - wm0))
# 4 KiB writes of REGION_MB MiB would be REGION_MB*256 requests unmerged
if [ "$nreq" -gt 0 ] && [ "$nreq" -lt $((REGION_MB * 256 / 4)) ]; then
	ok "buffered write reached the device merged: $nreq write requests ($nmerge merges) for ${REGION_MB} MiB"
else
	not_ok "buffered write reached the device merged" "$nreq write requests ($nmerge merges) for $((REGION_MB * 256)) pages"
fi
echo 3 >/proc/sys/vm/drop_caches
blockdev --flushbufs "/dev/$ndev" 2>/dev/null
rc=0
# shellcheck disable=SC2086
fio_run "$FNV_WORK/t02buf-v.terse" $BUFARGS --direct=1 --ioengine=$engine --iodepth=8 --verify_only=1 || rc=$?
rd1=$(awk '{print $1}' "/sys/block/$ndev/stat")
if [ "$rc" = 0 ] && [ "$(fio_err "$FNV_WORK/t02buf-v.terse")" = 0 ] && [ $((rd1 - rd0)) -gt 0 ]; then
	ok "buffered data read back with O_DIRECT and verified ($((rd1 - rd0)) read requests)"
else
	not_ok "buffered data read back with O_DIRECT and verified" "rc=$rc err=$(fio_err "$FNV_WORK/t02buf-v.terse") $(grep -iE 'verify|bad' "$FNV_WORK/t02buf-v.terse" "$FNV_WORK/t02buf-v.terse.err" 2>/dev/null | head -n 3 | tr '\n' ' ')"
fi

# 9
if [ "$(get_sched "$ndev")" = "$FNV_SCHED" ]; then
	ok "$ndev still on $FNV_SCHED"
else
	not_ok "$ndev still on $FNV_SCHED" "$(cat "/sys/block/$ndev/queue/scheduler")"
fi
set_sched "$ndev" none
tap_done
