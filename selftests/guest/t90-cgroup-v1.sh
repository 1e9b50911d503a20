#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cgroup v1: blkio.fairnvme.weight has the syntax of io.fairnvme.weight and
# its weights decide shares (100:300 -> IOPS ratio 3.0 +-10 %). Runs last:
# the io controller goes back to cgroup v2 only once the kernel has
# destroyed the v1 hierarchy, asynchronously.
. /tests/lib.sh

tap_plan 7
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme

# Hand the io controller over from the v2 hierarchy to a v1 one.
echo "-io" >"$CG_ROOT/cgroup.subtree_control"
V1=/tmp/blkio
mkdir -p $V1
if wait_until 20 mount -t cgroup -o blkio blkio $V1; then
	ok "blkio v1 hierarchy mounted"
else
	not_ok "blkio v1 hierarchy mounted" "$(mount -t cgroup -o blkio blkio $V1 2>&1)"
	tap_fail_rest "no v1 hierarchy"
fi
mkdir $V1/lo $V1/hi
w=$V1/hi/blkio.fairnvme.weight
check "blkio.fairnvme.weight reads 'default 100'" grep -qx "default 100" "$w"
echo "default 300" >"$w"
expect_einval "$w" "0"
expect_einval "$w" "default x"
majmin=$(cat /sys/block/"$dev"/dev)

v1_fio() { # CG OUT
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$V1/$1" \
		fio --eta=never --output-format=terse --terse-version=3 --output="$2" \
		--name="$1" --filename=/dev/"$dev" --rw=randread --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 \
		--ramp_time=3 --time_based --runtime=12 --group_reporting \
		--randrepeat=0 2>"$2.err"
}
v1_fio lo "$FNV_WORK/v1-lo" &
p1=$!
v1_fio hi "$FNV_WORK/v1-hi" &
p2=$!
wait $p1
wait $p2
lo=$(fio_iops "$FNV_WORK/v1-lo")
hi=$(fio_iops "$FNV_WORK/v1-hi")
diag "v1 lo=$lo hi=$hi IOPS"
assert_near "v1 100:300 IOPS ratio" "$(fcalc "$hi / $lo")" 3.0 10
check "per-device v1 weight listed" sh -c \
	"echo '$majmin 50' >$w && grep -qx '$majmin 50' $w"

rmdir $V1/lo $V1/hi
umount $V1
wait_until 20 sh -c "echo +io >$CG_ROOT/cgroup.subtree_control"
tap_done
