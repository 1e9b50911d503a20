#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 180
#
# fairnvme's decisions as blktrace notes beside the requests, through the
# kernel's blk tracer (ftrace: current_tracer blk, /sys/block/DEV/trace),
# at the defaults: a tenant busy for 3 s, then quiet, is seen going idle.
# Notes are per decision, not per request: fewer than a tenth of the
# requests dispatched in the same trace. Then the same with blktrace and
# blkparse, through tools/fairnvme-blknotes (Debian 12's blkparse drops
# every note of a kernel with CONFIG_BLK_CGROUP without it).
. /tests/lib.sh

tap_plan 7
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

echo 1 >"$tr/tracing_on"
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

# The same through blktrace and blkparse, as an operator runs them.
# Debian 12's blkparse (blktrace 1.2.0) drops every note a kernel with
# CONFIG_BLK_CGROUP writes (the cgroup flag, see Documentation); through
# fairnvme-blknotes it shows them.
if command -v blktrace >/dev/null && command -v blkparse >/dev/null &&
	[ -x /extra/fairnvme-blknotes ]; then
	blktrace -d "/dev/$dev" -o - >"$W/bt.bin" 2>"$W/bt.err" &
	btp=$!
	sleep 1
	tenant_start b25 "$dev" 3 --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=8 --randrepeat=0
	tenants_wait
	sleep 2
	kill -INT "$btp"
	wait "$btp"
	blkparse -i - <"$W/bt.bin" >"$W/bp.raw" 2>&1
	/extra/fairnvme-blknotes <"$W/bt.bin" | blkparse -i - >"$W/bp.txt" 2>"$W/bp.err"
	raw=$(grep -cE ' m +N .*fairnvme ' "$W/bp.raw")
	n=$(grep -cE ' m +N .*fairnvme ' "$W/bp.txt")
	d=$(grep -cE ' D +R' "$W/bp.txt")
	diag "blktrace: $(wc -c <"$W/bt.bin") bytes; blkparse alone shows $raw fairnvme notes, through fairnvme-blknotes $n beside $d dispatches"
	grep -E ' m +N .*fairnvme ' "$W/bp.txt" | head -n 4 | while read -r l; do diag "$l"; done
	check "blktrace | fairnvme-blknotes | blkparse: the tenant's state change to idle ($n notes)" \
		grep -qE ' m +N .*fairnvme state [a-z]+->idle ' "$W/bp.txt"
	check "blktrace | fairnvme-blknotes | blkparse: the requests beside the notes ($d dispatches)" \
		test "$d" -gt 100
else
	skip "blktrace | fairnvme-blknotes | blkparse: state change" "no blktrace, blkparse or /extra/fairnvme-blknotes in the guest"
	skip "blktrace | fairnvme-blknotes | blkparse: requests" "no blktrace, blkparse or /extra/fairnvme-blknotes in the guest"
fi
cg_destroy b25
tap_done
