#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 120
#
# fairnvme's decisions as blktrace notes beside the requests, through the
# kernel's blk tracer (ftrace: current_tracer blk, /sys/block/DEV/trace),
# at the defaults: a tenant busy for 3 s, then quiet, is seen going idle.
# Notes are per decision, not per request: fewer than a tenth of the
# requests dispatched in the same trace.
. /tests/lib.sh

tap_plan 5
tr=/sys/kernel/tracing
[ -d "$tr" ] || tr=/sys/kernel/debug/tracing
grep -qw blk "$tr/available_tracers" 2>/dev/null ||
	tap_skip_rest "no blk tracer (CONFIG_BLK_DEV_IO_TRACE) in $tr"
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
W="$FNV_WORK/t25"
rm -rf "$W"
mkdir -p "$W"
check "select fairnvme on $dev" set_sched "$dev" fairnvme
cg_create b25
echo "default 200" >"$CG_ROOT/b25/io.fairnvme.weight"

echo blk >"$tr/current_tracer"
echo 1 >"/sys/block/$dev/trace/enable"
echo >"$tr/trace"
tenant_start b25 "$dev" 3 --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=8 --randrepeat=0
tenants_wait
sleep 2
cp "$tr/trace" "$W/trace"
echo 0 >"/sys/block/$dev/trace/enable"
echo nop >"$tr/current_tracer"
notes=$(grep -cE ' m +N +fairnvme ' "$W/trace")
disp=$(grep -cE ' D +R' "$W/trace")
diag "blk tracer: $(wc -l <"$W/trace") lines, $disp dispatches, $notes fairnvme notes"
grep -E ' m +N +fairnvme ' "$W/trace" | head -n 8 | while read -r l; do diag "$l"; done
check "the trace shows the requests (dispatches: $disp)" test "$disp" -gt 100
check "the busy tenant's state change to idle is a note" \
	grep -qE ' m +N +fairnvme state [a-z]+->idle ' "$W/trace"
check "every note names its decision: state, eff_weight, class, hl, refill, tabs ($notes notes)" \
	sh -c "test $notes -gt 0 && ! grep -E ' m +N +fairnvme ' '$W/trace' | grep -qvE 'fairnvme (state|eff_weight|class|hl|refill|tabs) '"
check "fewer notes than a tenth of the dispatches ($notes, $disp)" test $((notes * 10)) -lt "$disp"
cg_destroy b25
tap_done
