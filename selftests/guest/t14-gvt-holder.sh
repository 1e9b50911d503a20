#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 180
#
# The cgroup that holds D2FQ's gvt is removed under I/O (a container
# stopped on a busy host). Tenants A (weight 300) and B (weight 100)
# saturate the throttled NVMe with 4 KiB random reads; C (weight 100)
# reads at depth 1 with a think time, so its virtual time is the smallest
# and it holds gvt. C is killed and its cgroup removed; in the 10 s that
# follow, gvt must keep advancing and A and B must keep their 3:1 split:
# 0.75 / 0.25 of their summed reads, +-10 %. Before the fix gvt froze at
# C's virtual time, both drifted into the low class and were served round
# robin (0.488 / 0.512).
. /tests/lib.sh

tap_plan 7
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme
majmin=$(cat "/sys/block/$dev/dev")

for t in A B C; do cg_create t14$t; done
cg_set_weight t14A 300
cg_set_weight t14B 100
cg_set_weight t14C 100

ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --randrepeat=0"
# shellcheck disable=SC2086
tenant_start t14A "$dev" 24 $ARGS --iodepth=32
# shellcheck disable=SC2086
tenant_start t14B "$dev" 24 $ARGS --iodepth=32
(run_in_cg t14C fio --name=t14C --filename="/dev/$dev" $ARGS --iodepth=1 \
	--thinktime=4000 --time_based --runtime=60 --output=/dev/null) &
pc=$!

rios() { # rios of cgroup $1 on the device
	sed -n "s/^$majmin .*rios=\([0-9]*\).*/\1/p" "$CG_ROOT/$1/io.stat"
}

sleep 8
check "C is reading beside A and B" test "$(rios t14C)" -gt 0
# debugfs's tenant_dump has a line for each, by its cgroup's inode number
dump=$(fnv_dbg "$dev" tenant_dump)
diag "tenant_dump: $(echo "$dump" | tr '\n' ';')"
ino() { ls -di "$CG_ROOT/$1" | awk '{ print $1 }'; }
ia=$(ino t14A) ib=$(ino t14B) ic=$(ino t14C)
check "tenant_dump lists A (weight 300), B and C (weight 100)" sh -c \
	"echo '$dump' | grep -q '^cgroup=$ia weight=300 ' && echo '$dump' | grep -q '^cgroup=$ib weight=100 ' && echo '$dump' | grep -q '^cgroup=$ic weight=100 '"
echo 1 >"$CG_ROOT/t14C/cgroup.kill" 2>/dev/null || kill -9 $pc
wait $pc 2>/dev/null
check "C's cgroup removed under I/O" wait_until 20 rmdir "$CG_ROOT/t14C"
sleep 2
g0=$(fnv_dbg "$dev" gvt)
a0=$(rios t14A) b0=$(rios t14B)
sleep 10
g1=$(fnv_dbg "$dev" gvt)
a1=$(rios t14A) b1=$(rios t14B)
diag "gvt $g0 -> $g1; reads in 10 s: A $((a1 - a0)), B $((b1 - b0))"
check "gvt advances after the holder's cgroup is gone ($g0 -> $g1)" test "$g1" -gt "$g0"
share=$(fcalc "($a1 - $a0) / ($a1 - $a0 + $b1 - $b0)")
if timing_off; then
	skip "A's share of A+B after C left ($share)" "no shares on a debug kernel (timing=0)"
else
	assert_near "A's share of A+B after C left" "$share" 0.75 10
fi
tenants_wait
check "A and B's fio finished without error" test "$(tenant_rc t14A)$(tenant_rc t14B)" = 00
for t in A B; do cg_destroy t14$t; done
tap_done
