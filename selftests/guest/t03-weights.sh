#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two tenants saturating the throttled NVMe with 4 KiB random reads.
# Expected: IOPS ratio = weight ratio, 3.0 for 100:300 and 1.0 for 100:100,
# each within +-10 %, at the defaults (nothing written to iosched). In
# check-extended (fnv.args extended=1) also 100:100, and 100:300 on the
# second emulated NVMe, bound by bytes (4 MB/s) rather than commands
# (./run check has t04's four weights on that device, and equal weights
# in t26 and t29). With fnv.args=peers=1 (lib.sh's peer_scheds) the same 100:300
# run under "none" is printed for comparison (it splits ~1:1, as
# blk-iocost does here).
. /tests/lib.sh


RT=${FNV_T03_RUNTIME:-15}
ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 --ramp_time=3 --randrepeat=0"

EXT=${FNV_extended:-0}
tap_plan $((EXT == 1 ? 7 : 4))
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme

cg_create lo && cg_create hi
check "weights 100 and 300 written" sh -c \
	"echo 'default 100' >$CG_ROOT/lo/io.fairnvme.weight && echo 'default 300' >$CG_ROOT/hi/io.fairnvme.weight"

# shellcheck disable=SC2086
tenants_run "$dev" "$RT" "$ARGS" lo hi
tenants_report lo hi
ratio=$(fcalc "$(tenant_iops hi) / $(tenant_iops lo)")
assert_near "fairnvme 100:300 IOPS ratio" "$ratio" 3.0 10
if [ "$(tenant_rc lo)" = 0 ] && [ "$(tenant_rc hi)" = 0 ]; then
	ok "fio of both tenants exited 0"
else
	not_ok "fio of both tenants exited 0" "rc lo=$(tenant_rc lo) hi=$(tenant_rc hi)"
fi

if [ "$EXT" = 1 ]; then
	echo 'default 100' >"$CG_ROOT/hi/io.fairnvme.weight"
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" lo hi
	tenants_report lo hi
	ratio=$(fcalc "$(tenant_iops hi) / $(tenant_iops lo)")
	assert_near "fairnvme 100:100 IOPS ratio" "$ratio" 1.0 10

	echo 'default 300' >"$CG_ROOT/hi/io.fairnvme.weight"
	bw=$(nvme_bw_dev) || tap_fail_rest "no second nvme device"
	check "select fairnvme on $bw" set_sched "$bw" fairnvme
	# shellcheck disable=SC2086
	tenants_run "$bw" "$RT" "$ARGS" lo hi
	tenants_report lo hi
	assert_near "fairnvme 100:300 IOPS ratio on $bw (bytes-bound)" \
		"$(fcalc "$(tenant_iops hi) / $(tenant_iops lo)")" 3.0 10
	set_sched "$bw" none
fi

# reference, not asserted: the same weights under none
for s in $(peer_scheds none); do
	set_sched "$dev" "$s"
	# shellcheck disable=SC2086
	tenants_run "$dev" "$RT" "$ARGS" lo hi
	diag "$s, same cgroups (weights ignored): IOPS ratio hi/lo = $(fcalc "$(tenant_iops hi) / $(tenant_iops lo)")"
done

cg_destroy lo
cg_destroy hi
tap_done
