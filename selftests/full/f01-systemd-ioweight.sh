#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# f01: systemd's IOWeight= drives fairnvme through fairnvme-weightd.
#
# In the full guest (Debian 12 with systemd, selftests/vm/run.sh --image
# full): fairnvme is selected on the first emulated NVMe, and
# tools/fairnvme-weightd runs in daemon mode as a systemd service
# (fnv-weightd.service), started BEFORE the tenants: it must mirror the
# io.weight that systemd writes into each new unit's cgroup into
# io.fairnvme.weight as the unit starts (its inotify path, not a rescan).
# Two transient units, systemd-run -p IOWeight=100 and -p IOWeight=300,
# each run fio (4 KiB random reads, O_DIRECT, iodepth 16) on the device
# for FNV_f01_runtime seconds (15) after a 2 s ramp. Expected: the 300
# unit completes 0.75 of the I/Os (fio's own counts), +-10 %.
# The same two units under "none" are printed only, with fnv.args=peers=1
# (about 0.5).
#
# Environment: FNV_f01_runtime (fnv.args=f01_runtime=N), FNV_f01_iodepth (16).
# fnv-timeout: 180
. /tests/lib.sh

RT=${FNV_f01_runtime:-15}
FIO_ARGS="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=${FNV_f01_iodepth:-16}
	--randrepeat=0 --ramp_time=2 --time_based --runtime=$RT --eta=never
	--output-format=terse --terse-version=3"
SLICE=$CG_ROOT/system.slice

tap_plan $((7 + 2 * $(npeers none)))

for t in systemd-run systemctl fio python3; do
	command -v $t >/dev/null 2>&1 || tap_skip_rest "$t missing in the guest"
done
[ -x /tools/fairnvme-weightd ] || tap_skip_rest "/tools/fairnvme-weightd not shipped"
[ -d /run/systemd/system ] || tap_skip_rest "not booted with systemd"
fnv_load || tap_fail_rest "fairnvme not available"
dev=$(nvme_dev) || tap_fail_rest "no nvme device"
check "select fairnvme on $dev" set_sched "$dev" fairnvme

# --- weightd, a service as an operator would run it ----------------------
systemd-run --quiet --unit=fnv-weightd --property=Restart=no \
	/tools/fairnvme-weightd --verbose >/dev/null 2>&1
# it has synced every existing cgroup once its watches are set: it is ready
# when it is active and has been running for a moment
if wait_until 10 systemctl is-active --quiet fnv-weightd.service; then
	sleep 2
fi
if systemctl is-active --quiet fnv-weightd.service; then
	ok "fairnvme-weightd runs as fnv-weightd.service"
else
	not_ok "fairnvme-weightd runs as fnv-weightd.service" \
		"$(systemctl status --no-pager fnv-weightd.service 2>&1 | tail -n 3 | tr '\n' ' ')"
fi

# unit_wait UNIT TIMEOUT : wait for the service's main process to exit,
# print its exit status ("timeout" if it did not, "none" if the unit never
# ran), stop the unit
unit_wait() {
	_n=$(($2 * 2))
	while [ "$_n" -gt 0 ]; do
		case "$(systemctl show -p SubState --value "$1.service" 2>/dev/null)" in
		exited | failed | dead) break ;;
		esac
		sleep 0.5
		_n=$((_n - 1))
	done
	_st=$(systemctl show -p ExecMainStatus,ExecMainPID,SubState "$1.service" 2>/dev/null)
	systemctl stop "$1.service" >/dev/null 2>&1
	systemctl reset-failed "$1.service" >/dev/null 2>&1
	case "$_st" in
	*SubState=exited* | *SubState=failed*) echo "$_st" | sed -n 's/^ExecMainStatus=//p' ;;
	*SubState=dead*) echo none ;;
	*) echo timeout ;;
	esac
}

# run_units LABEL : the two units, concurrently, each fio into
# $FNV_WORK/LABEL-wN.terse; checks their cgroup files while they run
# (sets weights_ok, mirror_ok); returns non-zero if a unit failed
run_units() {
	_l=$1
	for w in 100 300; do
		rm -f "$FNV_WORK/$_l-w$w.terse"
		# RemainAfterExit: the unit stays, with its exit status, until
		# unit_wait stops it (systemd-run --wait needs D-Bus, not here)
		# shellcheck disable=SC2086
		systemd-run --quiet --unit="fnv-$_l-w$w" --property=IOWeight=$w \
			--property=RemainAfterExit=yes \
			fio --name="w$w" --filename="/dev/$dev" $FIO_ARGS \
			--output="$FNV_WORK/$_l-w$w.terse" >"$FNV_WORK/$_l-w$w.run" 2>&1
	done
	# the cgroups and their files while the units run (within the ramp)
	weights_ok=1 mirror_ok=1 _why=""
	_t0=$(now_ms)
	for w in 100 300; do
		_cg=$SLICE/fnv-$_l-w$w.service
		if ! wait_until 10 grep -qx "default $w" "$_cg/io.weight"; then
			weights_ok=0
			_why="$_why fnv-$_l-w$w io.weight: '$(tr '\n' ' ' 2>&1 <"$_cg/io.weight")'"
		fi
		if ! wait_until 5 grep -qx "default $w" "$_cg/io.fairnvme.weight"; then
			mirror_ok=0
			_why="$_why fnv-$_l-w$w io.fairnvme.weight: '$(tr '\n' ' ' 2>&1 <"$_cg/io.fairnvme.weight")'"
		fi
	done
	diag "$_l: both units' weights in place $(($(now_ms) - _t0)) ms after systemd-run returned"
	diag "$_l: system.slice controllers: $(cat "$SLICE/cgroup.subtree_control" 2>&1)"
	sleep $((RT / 2))
	for w in 100 300; do
		diag "$_l: fnv-$_l-w$w io.fairnvme.stat: $(grep "^$(cat "/sys/block/$dev/dev") " "$SLICE/fnv-$_l-w$w.service/io.fairnvme.stat" 2>/dev/null | cut -c1-160)"
	done
	_rc100=$(unit_wait "fnv-$_l-w100" $((RT + 60)))
	_rc300=$(unit_wait "fnv-$_l-w300" $((RT + 60)))
	[ "$_rc100" = 0 ] && [ "$_rc300" = 0 ]
}

# share LABEL : the 300 unit's fraction of the I/Os both completed
share() {
	awk -v a="$(fio_iops "$FNV_WORK/$1-w300.terse" read)" \
		-v b="$(fio_iops "$FNV_WORK/$1-w100.terse" read)" \
		'BEGIN { if (a + b > 0) printf "%.3f\n", a / (a + b); else print "0" }'
}

if run_units fnv; then
	ok "fio of both units (IOWeight=100, 300) exited 0"
else
	not_ok "fio of both units (IOWeight=100, 300) exited 0" \
		"rc $_rc100/$_rc300: $(cat "$FNV_WORK"/fnv-w*.run | tail -n 3 | tr '\n' ' ')"
fi
if [ $weights_ok = 1 ]; then
	ok "systemd wrote io.weight 'default 100' and 'default 300'"
else
	not_ok "systemd wrote io.weight 'default 100' and 'default 300'" "$_why"
fi
if [ $mirror_ok = 1 ]; then
	ok "weightd mirrored them into io.fairnvme.weight"
else
	not_ok "weightd mirrored them into io.fairnvme.weight" "$_why"
fi
i100=$(fio_iops "$FNV_WORK/fnv-w100.terse" read)
i300=$(fio_iops "$FNV_WORK/fnv-w300.terse" read)
diag "fairnvme: IOWeight=100 $i100 IOPS, IOWeight=300 $i300 IOPS"
s_fnv=$(share fnv)
assert_near "fairnvme: IOWeight=300's share of the I/Os" "$s_fnv" 0.75 10
assert_ge "fairnvme: both units together IOPS" "$(fcalc "$i100 + $i300")" 1000

# --- the same under none: no weights (printed only, with peers=1) --------
if peers_on; then
	check "select none on $dev" set_sched "$dev" none
	if run_units none; then
		ok "fio of both units under none exited 0"
	else
		not_ok "fio of both units under none exited 0" \
			"rc $_rc100/$_rc300: $(cat "$FNV_WORK"/none-w*.run | tail -n 3 | tr '\n' ' ')"
	fi
	diag "none: IOWeight=100 $(fio_iops "$FNV_WORK/none-w100.terse" read) IOPS, IOWeight=300 $(fio_iops "$FNV_WORK/none-w300.terse" read) IOPS"
	diag "IOWeight=300's share: fairnvme $s_fnv, none $(share none) (expected 0.75 and about 0.5)"
fi

diag "weightd's log: $(journalctl -b -u fnv-weightd.service --no-pager -o cat 2>/dev/null | grep -c fnv- ) lines on fnv-* cgroups"
systemctl stop fnv-weightd.service >/dev/null 2>&1
set_sched "$dev" fairnvme
tap_done
