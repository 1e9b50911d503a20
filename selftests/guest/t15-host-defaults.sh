#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What fairnvme changes on a device beside its own scheduling, and gives
# back: writeback throttling (wbt) is off while fairnvme is selected, as
# under BFQ (it would hold a tenant's writeback back before the scheduler
# sees it, whatever its weight), and on again at its default once another
# scheduler is selected. Read from debugfs (block/DEV/rqos/wbt/enabled:
# 1 on by default, 3 off by default); queue/wbt_lat_usec shows the
# latency target whatever the state on 6.1.
. /tests/lib.sh

tap_plan 6
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
st=/sys/kernel/debug/block/$dev/rqos/wbt/enabled
set_sched "$dev" none
[ -r "$st" ] || { tap_skip_rest "no $st (no debugfs, or a kernel without CONFIG_BLK_WBT)"; exit 0; }

check "wbt on by default under none ($(cat "$st"))" test "$(cat "$st")" = 1
# BFQ, the model, printed only: this test asserts what fairnvme does
if [ -n "$(peer_scheds bfq)" ] && set_sched "$dev" bfq; then
	diag "bfq, the reference: wbt $(cat "$st")"
	set_sched "$dev" none
fi
check "select fairnvme on $dev" set_sched "$dev" fairnvme
check "wbt off under fairnvme ($(cat "$st"))" test "$(cat "$st")" = 3
set_sched "$dev" none
check "wbt on again under none ($(cat "$st"))" test "$(cat "$st")" = 1
set_sched "$dev" fairnvme
set_sched "$dev" none
check "fairnvme unloaded (rmmod)" fnv_unload
check "... wbt on after a second round and rmmod ($(cat "$st"))" test "$(cat "$st")" = 1
tap_done
