#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every writable sysfs tunable and cgroup file rejects input that does not
# parse or is out of range with EINVAL and keeps its old value; valid input
# is accepted (so that the rejections are not just a read-only file).
. /tests/lib.sh

tap_plan 137
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
# a fresh instance, with every tunable at its default
set_sched "$dev" none
check "select fairnvme on $dev" set_sched "$dev" fairnvme
io=/sys/block/$dev/queue/iosched
dbg=/sys/kernel/debug/block/$dev/sched
majmin=$(cat /sys/block/"$dev"/dev)
# the tunables written below stay with this instance: leave none behind
# (the runner also takes every disk off fairnvme between tests)
trap 'cg_destroy bad; set_sched "$dev" none' EXIT

# iosched tunables: bad values
for v in abc -1 0 4097 1.5 99999999999999999999 "" "8 8" 0x10; do
	expect_einval "$io/max_inflight" "$v"
done
for v in abc -1 1048577 4096k; do
	expect_einval "$io/req_cost_bytes" "$v"
done
for v in autox -1 10000001 "auto 5" x; do
	expect_einval "$io/dev_target_us" "$v"
done
for v in 0 63 1048577 x; do
	expect_einval "$io/budget_kib" "$v"
done
for v in 0 99 1000001 1ms; do
	expect_einval "$io/budget_us" "$v"
done
for v in "" tim timex 0 "time bytes"; do
	expect_einval "$io/cost_model" "$v"
done
for v in -1 1000001 1e3; do
	expect_einval "$io/grace_us" "$v"
done
for v in 0 9 10001; do
	expect_einval "$io/ctl_period_ms" "$v"
done
for v in 1000001 -1 0.01; do
	expect_einval "$io/ku_ppm" "$v"
	expect_einval "$io/kd_ppm" "$v"
done
for v in 3001 -1; do
	expect_einval "$io/beta_permille" "$v"
done
# thresholds: range, and thresh_min_us < thresh_max_us (set as numbers
# first: auto, the default, follows the device)
check "thresholds default to auto" sh -c \
	"grep -qx auto $io/thresh_min_us && grep -qx auto $io/thresh_max_us"
echo 3500 >"$io/thresh_max_us"
echo 600 >"$io/thresh_min_us"
for v in 0 3500 4000 10000001 x; do
	expect_einval "$io/thresh_min_us" "$v"
done
for v in 0 600 500 10000001 x; do
	expect_einval "$io/thresh_max_us" "$v"
done
# and good ones
for v in "" sof hard 1 "soft off"; do
	expect_einval "$io/wrr_mode" "$v"
done
for v in "" insertion "head queue"; do
	expect_einval "$io/state_latency" "$v"
done
for v in 0 127 1073741825 8k x autox; do
	expect_einval "$io/tau_l_bytes" "$v"
done
for v in 0 99 60001 1s; do
	expect_einval "$io/hl_period_ms" "$v"
done
for v in 0 257 -1; do
	expect_einval "$io/wrr_burst" "$v"
done
for v in maybe 2 ""; do
	expect_einval "$io/tabs" "$v"
done
for v in 9 60001 x; do
	expect_einval "$io/tabs_reset_ms" "$v"
done
for v in 0 1000001; do
	expect_einval "$io/tabs_threshold" "$v"
done
for v in 9 60001; do
	expect_einval "$io/tabs_epoch_ms" "$v"
done
for v in 99 3600001; do
	expect_einval "$io/tabs_sched_ms" "$v"
done
for v in 0 10001; do
	expect_einval "$io/tabs_max_wait_ms" "$v"
done
for v in 0 1073741825 autox; do
	expect_einval "$io/tabs_read_bwmax" "$v"
done
for v in 0 x; do
	expect_einval "$io/tabs_fua_bwmax" "$v"
done
check "tabs_max_wait_ms accepts 500, tabs_read_bwmax 40000 and auto" sh -c \
	"echo 500 >$io/tabs_max_wait_ms && grep -qx 500 $io/tabs_max_wait_ms && echo 40000 >$io/tabs_read_bwmax && grep -qx 40000 $io/tabs_read_bwmax && echo auto >$io/tabs_read_bwmax && grep -qx auto $io/tabs_read_bwmax"
# queue/iosched has the tunables only, the state is in debugfs
TUNABLES="beta_permille budget_kib budget_us ctl_period_ms cost_model dev_target_us grace_us hl_period_ms kd_ppm ku_ppm max_inflight req_cost_bytes state_latency tabs tabs_epoch_ms tabs_fua_bwmax tabs_max_wait_ms tabs_read_bwmax tabs_reset_ms tabs_sched_ms tabs_threshold tau_l_bytes thresh_max_us thresh_min_us wrr_burst wrr_mode"
check "iosched holds the 26 tunables, nothing else" test "$(ls "$io" | sort | tr '\n' ' ')" = "$(echo $TUNABLES | tr ' ' '\n' | sort | tr '\n' ' ')"
check "debugfs hl_ratio and gvt refuse writes, hl_ratio in 3..256" sh -c \
	"! (echo 5 >$dbg/hl_ratio) 2>/dev/null && ! (echo 5 >$dbg/gvt) 2>/dev/null && [ \$(cat $dbg/hl_ratio) -ge 3 ] && [ \$(cat $dbg/hl_ratio) -le 256 ]"
check "debugfs dev_floor_us refuses writes and keeps its value" sh -c \
	"v=\$(cat $dbg/dev_floor_us) && ! (echo 5 >$dbg/dev_floor_us) 2>/dev/null && [ \"\$(cat $dbg/dev_floor_us)\" = \"\$v\" ]"
# "US period_ms=MS": the walk's time, and a period of ctl_period_ms or more
check "debugfs ctl_walk_us reads US period_ms=MS (MS >= ctl_period_ms), refuses writes" sh -c \
	"l=\$(cat $dbg/ctl_walk_us) && echo \"\$l\" | grep -Eqx '[0-9]+ period_ms=[0-9]+' && [ \"\${l#*=}\" -ge \$(cat $io/ctl_period_ms) ] && ! (echo 5 >$dbg/ctl_walk_us) 2>/dev/null"
check "wrr_mode accepts off and soft" sh -c \
	"echo off >$io/wrr_mode && grep -qx 'soft \[off\]' $io/wrr_mode && echo soft >$io/wrr_mode && grep -qx '\[soft\] off' $io/wrr_mode"
check "state_latency defaults to head, accepts queue and head" sh -c \
	"grep -qx '\[head\] queue' $io/state_latency && echo queue >$io/state_latency && grep -qx 'head \[queue\]' $io/state_latency && echo head >$io/state_latency && grep -qx '\[head\] queue' $io/state_latency"
check "tau_l_bytes defaults to auto, accepts 128 (then in force) and auto" sh -c \
	"grep -qx auto $io/tau_l_bytes && echo 128 >$io/tau_l_bytes && grep -qx 128 $io/tau_l_bytes && grep -qx 128 $dbg/tau_l_eff_bytes && echo auto >$io/tau_l_bytes && grep -qx auto $io/tau_l_bytes"
check "debugfs tau_l_eff_bytes refuses writes and keeps its value" sh -c \
	"v=\$(cat $dbg/tau_l_eff_bytes) && ! (echo 5 >$dbg/tau_l_eff_bytes) 2>/dev/null && [ \"\$(cat $dbg/tau_l_eff_bytes)\" = \"\$v\" ]"
check "dev_target_us defaults to auto, accepts 600, 0 and auto" sh -c \
	"grep -qx auto $io/dev_target_us && echo 600 >$io/dev_target_us && grep -qx 600 $io/dev_target_us && echo 0 >$io/dev_target_us && grep -qx 0 $io/dev_target_us && echo auto >$io/dev_target_us && grep -qx auto $io/dev_target_us"
check "max_inflight accepts 64" sh -c "echo 64 >$io/max_inflight && grep -qx 64 $io/max_inflight"
check "req_cost_bytes accepts 0" sh -c "echo 0 >$io/req_cost_bytes && grep -qx 0 $io/req_cost_bytes"
check "budget_kib accepts 4096" sh -c "echo 4096 >$io/budget_kib && grep -qx 4096 $io/budget_kib"
check "cost_model accepts bytes and time" sh -c \
	"echo bytes >$io/cost_model && grep -qx 'time \[bytes\]' $io/cost_model && echo time >$io/cost_model && grep -qx '\[time\] bytes' $io/cost_model"
check "thresholds move within each other's bounds" sh -c \
	"echo 5000 >$io/thresh_max_us && echo 4000 >$io/thresh_min_us && grep -qx 4000 $io/thresh_min_us && grep -qx 4000 $dbg/thresh_min_eff_us && echo 600 >$io/thresh_min_us && echo 3500 >$io/thresh_max_us"
check "thresholds go back to auto, values in force readable" sh -c \
	"echo auto >$io/thresh_min_us && echo auto >$io/thresh_max_us && grep -qx auto $io/thresh_min_us && grep -qx auto $io/thresh_max_us && [ \$(cat $dbg/thresh_min_eff_us) -ge 20 ] && [ \$(cat $dbg/thresh_max_eff_us) -gt \$(cat $dbg/thresh_min_eff_us) ]"
echo 32 >"$io/max_inflight"
echo 4096 >"$io/req_cost_bytes"
echo 2048 >"$io/budget_kib"

# io.fairnvme.weight
cg_create bad
w=$CG_ROOT/bad/io.fairnvme.weight
check "default weight reads 'default 100'" grep -qx 'default 100' "$w"
echo "default 250" >"$w"
echo "$majmin 700" >"$w"
check "per-device weight listed" grep -qx "$majmin 700" "$w"
for v in 0 10001 -5 abc default "default abc" "default 0" \
	"default 10001" "default 100 junk" "$majmin 0" "$majmin 10001" \
	"$majmin abc" "$majmin" "$majmin -1" "$majmin 100 junk" ":" "1:" \
	"x:y 100" "100 default"; do
	expect_einval "$w" "$v"
done
check "content is still 'default 250' + device 700" sh -c \
	"grep -qx 'default 250' $w && grep -qx '$majmin 700' $w"
check "MAJ:MIN default removes the override" sh -c \
	"echo '$majmin default' >$w && ! grep -q '^$majmin ' $w"
check "bare number sets the default" sh -c "echo 10000 >$w && grep -qx 'default 10000' $w"
tap_done
