#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 300
#
# Tag hog: tenant W dirties page cache with 4 KiB random writes and keeps a
# thousand and more writes queued (throttled into writing its own dirty
# pages, fio's processes send them as synchronous writes: WS in blktrace);
# tenant R, of equal weight, reads 4 KiB at random at depth 1 with
# O_DIRECT. Without a limit on the scheduler tags one tenant may take, W
# holds them all and R waits for a tag before the scheduler ever sees its
# read (up to 480 ms); with one, each of R's reads still finds the whole
# dispatch depth of W's writes ahead of it at the device unless a slot is
# kept for R. Asserted under fairnvme (at its defaults, as a user runs it:
# nothing written to queue/iosched): R gets at least 40 % of the device's
# requests in the window
# (counted in /sys/block/DEV/stat: R is the only reader, W the only
# writer; io.stat would count W's bios, which writeback merges into far
# fewer requests). With fnv.args=peers=1 (lib.sh's peer_scheds), none,
# mq-deadline and bfq run the same in the same boot, printed. With
# fnv.args=t16_sec=1, each second of fairnvme's window prints R's and W's
# requests, the depth, dev_floor and the rate trials' state (the window
# then runs a little longer than RT).
. /tests/lib.sh

RT=${FNV_T16_RUNTIME:-15}
tap_plan $((2 + $(npeers none mq-deadline bfq)))
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
mnt=$FNV_WORK/t16

old_dirty=$(cat /proc/sys/vm/dirty_bytes) old_dratio=$(cat /proc/sys/vm/dirty_ratio)
cleanup() {
	cg_destroy t16W; cg_destroy t16R
	umount "$mnt" 2>/dev/null
	if [ "$old_dirty" != 0 ]; then echo "$old_dirty" >/proc/sys/vm/dirty_bytes; else echo "$old_dratio" >/proc/sys/vm/dirty_ratio; fi
}
trap cleanup EXIT
# enough dirty memory for a thousand and more writes queued at once
echo $((256 << 20)) >/proc/sys/vm/dirty_bytes

reqs() { # requests completed on the device: reads writes
	awk '{print $1, $5}' "/sys/block/$dev/stat"
}

# one run under scheduler $1: sets share_<sched>
run_one() {
	s=$1
	set_sched "$dev" "$s" || return 1
	cg_create t16W; cg_create t16R
	(run_in_cg t16W fio --name=w --filename="/dev/$dev" --offset=512M --size=256M \
		--rw=randwrite --bs=4k --ioengine=psync --direct=0 --numjobs=2 \
		--time_based --runtime=$((RT + 6)) --output=/dev/null) &
	pw=$!
	(run_in_cg t16R fio --name=r --filename="/dev/$dev" --size=256M \
		--rw=randread --bs=4k --ioengine=libaio --iodepth=1 --direct=1 \
		--randrepeat=0 --time_based --runtime=$((RT + 6)) --output=/dev/null) &
	pr=$!
	sleep 5
	# shellcheck disable=SC2046
	set -- $(reqs); r0=$1 w0=$2
	if [ "$s" = fairnvme ]; then
		if [ "${FNV_t16_sec:-0}" = 1 ]; then
			_k=0
			while [ $_k -lt "$RT" ]; do
				sleep 1
				_k=$((_k + 1))
				# shellcheck disable=SC2046
				set -- $(reqs)
				diag "sec $_k: R $(($1 - ${_pr:-$r0})) W $(($2 - ${_pw:-$w0})) depth $(fnv_dbg "$dev" depth) floor $(fnv_dbg "$dev" dev_floor_us) $(fnv_dbg "$dev" depth_trials)"
				_pr=$1 _pw=$2
			done
		else
		for _i in 1 2 3 4 5; do sleep $((RT / 5)); diag "tags: nr_requests $(cat "/sys/block/$dev/queue/nr_requests") $(fnv_dbg "$dev" tag_depths); depth $(fnv_dbg "$dev" depth) inflight $(fnv_dbg "$dev" inflight) dev_floor $(fnv_dbg "$dev" dev_floor_us) $(fnv_dbg "$dev" cost_learned)"; done
		sleep $((RT % 5))
		fi
	else
		sleep "$RT"
	fi
	# shellcheck disable=SC2046
	set -- $(reqs); r1=$1 w1=$2
	wait $pr $pw
	eval "share_$(echo "$s" | tr - _)=$(fcalc "($r1 - $r0) / ($r1 - $r0 + $w1 - $w0 + 1e-9)")"
	diag "$s: R read $((r1 - r0)) requests, W wrote $((w1 - w0)) in ${RT} s"
	cg_destroy t16W; cg_destroy t16R
	sync
}

# fairnvme last, after a switch: a new instance, not one a test before left
for s in $(peer_scheds none mq-deadline bfq) fairnvme; do
	[ "$s" = fairnvme ] && set_sched "$dev" none
	if run_one $s; then ok "run under $s"; else not_ok "run under $s" "cannot select $s"; fi
	eval "diag \"R's share under $s: \$share_$(echo "$s" | tr - _)\""
done
# shellcheck disable=SC2154
assert_ge "R's share of requests under fairnvme" "$share_fairnvme" 0.4
trap - EXIT
cleanup
tap_done
