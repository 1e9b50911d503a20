#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 300
#
# A database beside a batch job on one filesystem: ext4 on the throttled
# NVMe (~2000 IOPS), tenant A (weight 100) writes 4 KiB with O_SYNC, one at
# a time (each write waits for its data, and when its mtime changed for a
# jbd2 commit: REQ_META journal blocks, sent by jbd2 from the root cgroup,
# then a flush and a FUA commit block); tenant B (weight 800) reads the raw
# device at depth 64. Under fairnvme, nothing tuned (and none and bfq,
# printed only, with fnv.args=peers=1: lib.sh's peer_scheds).
#
# What we expect under fairnvme: A wants far more than its share (alone it
# does about 1700 writes/s), so it gets its weight's share of the device,
# 100 / 900 of the requests, and no more: its p99 is then set by that share
# (one request per ~4.5 ms on average), not by B's queue. The journal's
# metadata blocks do not wait in A's or root's class: they go out as urgent
# requests (charged to their tenant) before the tenants' requests.
#
# Every number below was measured while A also wrote the device's first
# 32 MiB directly, past ext4 and its journal (lib.sh's tenant_start gave
# fio both the device and A's file, until 70bcff4). With A writing only
# its file, on 6.12: A's share 0.082 (below its 1/9 now: each O_SYNC
# write waits for a journal commit) and its p99 3.33 turns at its weight.
#
# Asserted: A's share of the requests under fairnvme is at most twice its
# weight's, 2/9 (0.158 to 0.185 in six runs of one day on 6.1 and 6.12;
# 0.140 on 6.1 and 0.147 on 6.12 once a write sent while reads were at
# the device was charged the whole interval since the completion before
# it, not the rest of it: fnv_svc_time()). It
# used to be asserted nearer 1/9 than none's and bfq's, but bfq's share
# for A is bimodal (0.115 and 0.120 in two runs of one day, 0.28 to 0.33
# in others), and none's moved from 0.18 to 0.32: a comparison with them
# failed whenever they had a good run. Not yet asserted, an open bug: its
# share within 10 % of 1/9. A got 0.112 to 0.116 before the learned cost
# model and 0.13 to 0.18 with it (none 0.08 to 0.32, bfq 0.12 to 0.33):
# jbd2's commits, in the root cgroup, are not charged to A, and A and B
# both end up in the low class and take turns there whatever
# their weights. The journal is the rest of the gap: on ext4 without one
# (-O ^has_journal) A got 0.102 and 0.094, in the boot where it got 0.142
# to 0.151 with one.
#
# The p99 of A's writes, the bound we state: at most 4 turns of A at its
# weight, a turn being 9 / (A's + B's IOPS), the mean time between A's
# requests were it served exactly its 1/9 (4.5 ms at 2000 IOPS, so 18
# ms). Why: served its share, A's mean latency is one turn (its requests
# are one at a time); the p99 of these O_SYNC writes is about 2.5 times
# their mean under every scheduler (the journal commit some of them wait
# for: none 2.2 to 3.2, bfq 2.1 to 2.8, fairnvme 2.4 to 2.6 in seven runs);
# so about 2.5 turns, and 4 with room for a TCG guest's noise. A tenant
# kept in the low class while B runs, the failure this guards against,
# waits tens of turns. Measured on 6.1 in five runs: fairnvme 1.75, 1.66,
# 1.74, 2.37 and 2.02 turns (7.5 to 10.7 ms; 2.37 in the run where A's
# share was 0.116, its weight's); none 1.30, 0.85, 1.24, 0.94, 1.22; bfq
# 1.33, 0.85, 0.87, 0.82, 0.80: both give A 1.6 to 3 times its weight and
# with it a shorter wait. On 6.12, two runs: fairnvme 1.75 and 1.99, none
# 1.28 and 1.17, bfq 0.98 and 0.69. In absolute terms the p99 moves with the host's load
# (18 ms unloaded, 56 ms with both host cores busy, in earlier versions),
# hence turns, measured in the same run.
#
# The p99 is asserted in turns, not against none's and bfq's: they give A
# more than its weight (QEMU's throttle serves reads and writes in
# alternation), fairnvme does not.
. /tests/lib.sh

RT=${FNV_T19_RUNTIME:-15}
MNT=/mnt/fnv-t19

tap_plan 4
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
# e2fsprogs' mke2fs (the initramfs has it in /usr/sbin), not busybox's
MKE2FS=
for m in /usr/sbin/mke2fs /sbin/mke2fs; do
	"$m" -V 2>&1 | grep -q "EXT2FS Library" && MKE2FS=$m && break
done
[ -n "$MKE2FS" ] || tap_skip_rest "e2fsprogs' mke2fs missing"
modprobe ext4 2>/dev/null || grep -qw ext4 /proc/filesystems ||
	tap_skip_rest "no ext4 in this kernel"

# No lazy init: ext4lazyinit would write the inode tables meanwhile.
$MKE2FS -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$dev" \
	>"$FNV_WORK/mke2fs.out" 2>&1
rc=$?
[ $rc = 0 ] || diag "mke2fs: $(tail -n 3 "$FNV_WORK/mke2fs.out")"
mkdir -p "$MNT"
[ $rc = 0 ] && mount -t ext4 "/dev/$dev" "$MNT"
check "ext4 made and mounted on $dev" test $rc = 0 -a -d "$MNT/lost+found"
# A's file, written out once so that A's writes overwrite blocks
dd if=/dev/zero of="$MNT/a" bs=1M count=32 conv=fsync 2>/dev/null

cg_create A
cg_create B
cg_set_weight A 100
cg_set_weight B 800
bad=0
# fairnvme last, after a switch: a new instance, not one a test before left
for s in $(peer_scheds none bfq) fairnvme; do
	[ "$s" = fairnvme ] && set_sched "$dev" none
	set_sched "$dev" "$s"
	# started together (tenants_run): B alone at either end would
	# inflate B's IOPS, and with them shorten A's turn
	FNV_TARGS_B="--rw=randread --bs=4k --direct=1 --ioengine=libaio
		--iodepth=64 --readonly --randrepeat=0 --ramp_time=2"
	FNV_TARGS_A="--filename=$MNT/a --rw=randwrite --bs=4k --size=32m
		--ioengine=psync --sync=1 --direct=0 --randrepeat=0 --ramp_time=2"
	tenants_run "$dev" "$RT" "" B A || bad=$((bad + 1))
	v=$(echo "$s" | tr - _)
	eval "p99_$v=$(tenant_p99 A) iops_$v=$(tenant_iops A) b_$v=$(tenant_iops B)"
	eval "share_$v=$(tenant_share A A B)"
	# A's turn at its weight: 9 of the requests A and B got, in us
	eval "turn_$v=$(awk -v a="$(tenant_iops A)" -v b="$(tenant_iops B)" \
		'BEGIN { printf "%.1f", (a + b > 0 ? 9e6 / (a + b) : 0) }')"
	eval "tail_$v=$(awk -v p="$(tenant_p99 A)" -v m="$(tenant_lat A write mean)" \
		'BEGIN { printf "%.2f", (m > 0 ? p / m : 0) }')"
	diag "$s: A (weight 100, O_SYNC 4k) $(tenant_iops A) IOPS, mean $(tenant_lat A write mean) us, p99 $(tenant_p99 A) us; B (weight 800) $(tenant_iops B) IOPS"
	eval "diag \"$s: A's share \$share_$v (weight 0.111); A's p99 over its turn at its weight $(awk -v p="$(tenant_p99 A)" -v t="$(eval echo "\$turn_$v")" 'BEGIN { printf "%.2f", (t > 0 ? p / t : 0) }') (turn \$turn_$v us); p99 over mean \$tail_$v\""
done
umount "$MNT"
check "fio ran without error under $(peer_scheds none bfq | sed 's/$/ /')fairnvme" test $bad = 0
diag "A's share within 10 % of 1/9 (not asserted, an open bug): $share_fairnvme"
# shellcheck disable=SC2154
assert_le "A's share under fairnvme, at most twice its 1/9" "$share_fairnvme" 0.222
if timing_off; then
	skip "A's p99 under fairnvme in turns at its weight" "no latencies on a debug kernel (timing=0)"
else
	# shellcheck disable=SC2154
	assert_le "A's p99 under fairnvme in turns at its weight ($p99_fairnvme us, turn $turn_fairnvme us), at most" \
		"$(awk -v p="$p99_fairnvme" -v t="$turn_fairnvme" 'BEGIN { printf "%.2f", (t > 0 ? p / t : 99) }')" 4
fi
cg_destroy A
cg_destroy B
tap_done
