#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# FairNVMe's idle state, read through io.fairnvme.stat: a tenant that goes
# quiet is classified idle and its effective weight drops (to 1/4 of its
# configured weight at most); busy again with a latency between thresh_min
# and thresh_cur, it is balanced and its effective weight returns to the
# configured weight. The thresholds are set for the emulated device (its
# service time alone is ~0.5 ms, so the paper's 600 us would call a busy
# tenant idle): thresh_min 300 us, thresh_max 200 ms.
. /tests/lib.sh

tap_plan 8
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme
io=/sys/block/$dev/queue/iosched
echo 200000 >"$io/thresh_max_us"
echo 300 >"$io/thresh_min_us"
echo 100 >"$io/ctl_period_ms"
majmin=$(cat /sys/block/"$dev"/dev)
cg_create q
echo "default 200" >"$CG_ROOT/q/io.fairnvme.weight"
st=$CG_ROOT/q/io.fairnvme.stat

# field FIELD : value of FIELD= in q's stat line for the device
field() {
	grep "^$majmin " "$st" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

busy() { # RUNTIME: 4 KiB random reads, 4 in flight (~2 ms latency)
	tenant_start q "$dev" "$1" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=4 --randrepeat=0
}

# A balanced tenant's multiplier closes half its gap to 1 each period, so
# its effective weight reaches the configured one within a few periods.
busy 5
sleep 1
if wait_until 3 sh -c "grep -q '^$majmin state=balanced weight=200 eff_weight=200 ' $st"; then
	ok "busy tenant is balanced at its configured weight"
else
	not_ok "busy tenant is balanced at its configured weight" "$(grep "^$majmin " "$st")"
fi
diag "busy: $(grep "^$majmin " "$st")"
tenants_wait

sleep 1.5
diag "quiet: $(grep "^$majmin " "$st")"
check "quiet tenant is idle" sh -c "grep -q '^$majmin state=idle ' $st"
assert_le "effective weight of the idle tenant" "$(field eff_weight)" 100
assert_ge "effective weight of the idle tenant (floor 1/4)" "$(field eff_weight)" 50

tr=/sys/kernel/tracing
echo >"$tr/trace"
fnv_trace_event 1 fairnvme_state
echo 1 >"$tr/tracing_on"
busy 4
if wait_until 4 sh -c "grep -q '^$majmin state=balanced weight=200 eff_weight=200 ' $st"; then
	ok "busy again: balanced, effective weight back to 200"
else
	not_ok "busy again: balanced, effective weight back to 200" "$(grep "^$majmin " "$st")"
fi
tenants_wait
fnv_trace_event 0 fairnvme_state
cgid=$(stat -c %i "$CG_ROOT/q")
check "fairnvme_state traced the return from idle" grep -qE \
	"cgid=$cgid idle -> (balanced|unbalanced|saturated)" /sys/kernel/tracing/trace
check "root cgroup's io.fairnvme.stat lists the device" grep -q "^$majmin state=" \
	"$CG_ROOT/io.fairnvme.stat"
echo auto >"$io/thresh_min_us"
echo auto >"$io/thresh_max_us"
cg_destroy q
tap_done
