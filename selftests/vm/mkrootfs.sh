#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkrootfs.sh - build (once) the root file system of the "full" test guest:
# Debian 12 with systemd, bpftrace, blktrace, python3, fio, as an ext4 image
# that selftests/vm/run.sh --image full boots read-only (QEMU snapshot=on:
# the guest's writes go to a temporary overlay, the image stays as built).
#
# usage: selftests/vm/mkrootfs.sh [--force]
#
# Prints the image's path on stdout. The image is cached in
# $FNV_FULL_CACHE/<key>/root.img, <key> being a hash of the package list and
# of this script (which holds every setting of the image): an unchanged
# list and script reuse the image at once, any change builds a new one
# (older ones are removed). --force rebuilds even so.
#
# mmdebstrap --mode=root (as root; no user namespaces, so that it works in
# .ci/run's chroot too), variant apt, no Recommends, no documentation;
# then mke2fs -d turns the directory into the image: no loop device, no
# mount. The guest needs no network: everything it runs is in the image or
# on the per-run payload disk (selftests/vm/mkpayload.sh).
#
# Environment:
#   FNV_FULL_CACHE     cache directory (default <repo>/.build/full-image)
#   FNV_FULL_MIRROR    Debian mirror (default http://deb.debian.org)
#   FNV_FULL_PACKAGES  extra packages, space-separated (part of the key)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${FNV_FULL_CACHE:-$REPO/.build/full-image}
MIRROR=${FNV_FULL_MIRROR:-http://deb.debian.org}
SUITE=bookworm

die() { echo "mkrootfs: error: $*" >&2; exit 1; }
say() { echo "mkrootfs: $*" >&2; }

force=0
case "${1:-}" in
--force) force=1 ;;
"") ;;
*) die "usage: $0 [--force]" ;;
esac

# What the guest needs: systemd as PID 1 (systemd-run, transient units with
# IOWeight=), the operator tools' interpreters and tracers, the tests' fio.
# No udev: the initramfs loads the drivers, and nothing waits for a device
# unit. No dbus: systemctl and systemd-run talk to PID 1's private socket.
PACKAGES="systemd bpftrace blktrace python3 fio kmod util-linux procps e2fsprogs
	${FNV_FULL_PACKAGES:-}"
PACKAGES=$(echo "$PACKAGES" | tr -s ' \t\n' '\n' | sed '/^$/d' | LC_ALL=C sort -u | tr '\n' ' ')
PACKAGES=${PACKAGES% }

KEY=$({ echo "$SUITE $PACKAGES"; cat "$0"; } | sha256sum | cut -c1-16)
DIR=$CACHE/$KEY
IMG=$DIR/root.img

if [ $force = 0 ] && [ -s "$IMG" ] && [ -e "$DIR/done" ]; then
	say "cached: $IMG ($PACKAGES)"
	echo "$IMG"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (mmdebstrap --mode=root)"
command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap missing (apt-get install mmdebstrap)"
command -v mke2fs >/dev/null 2>&1 || die "mke2fs missing (apt-get install e2fsprogs)"

mkdir -p "$CACHE"
# one build at a time
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
	# built by another run while we waited
	if [ $force = 0 ] && [ -s "$IMG" ] && [ -e "$DIR/done" ]; then
		echo "$IMG"
		exit 0
	fi
fi

t0=$(date +%s)
rm -rf --one-file-system "$DIR"
mkdir -p "$DIR"
ROOT=$DIR/root
say "building $IMG: $SUITE + $PACKAGES (mirror $MIRROR)"

# the packages' documentation, manuals and translations are not needed
# (copyright files stay)
mmdebstrap --mode=root --variant=apt --quiet \
	--aptopt='APT::Install-Recommends "false"' \
	--aptopt='APT::Install-Suggests "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-include=/usr/share/locale/locale.alias' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--include="$(echo "$PACKAGES" | tr ' ' ',')" \
	"$SUITE" "$ROOT" \
	"deb $MIRROR/debian $SUITE main" \
	"deb $MIRROR/debian $SUITE-updates main" \
	"deb $MIRROR/debian-security $SUITE-security main" >&2 ||
	die "mmdebstrap failed"
t1=$(date +%s)

# --------------------------------------------------------- settings ----
# A fixed machine id: not a "first boot" (no presets, no firstboot).
echo 8f3a1c2e5b7d4e6f9a0b1c2d3e4f5a6b >"$ROOT/etc/machine-id"
echo fnv-full >"$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfnv-full\n' >"$ROOT/etc/hosts"
# root is mounted by the initramfs; nothing else
echo "# the initramfs mounts / (selftests/vm/init, fnv.root=)" >"$ROOT/etc/fstab"
passwd -R "$ROOT" -d root >/dev/null 2>&1 || sed -i 's/^root:[^:]*:/root::/' "$ROOT/etc/shadow"
# keep the journal in memory, and off the console
mkdir -p "$ROOT/etc/systemd/journald.conf.d"
cat >"$ROOT/etc/systemd/journald.conf.d/fnv.conf" <<'EOF'
[Journal]
Storage=volatile
RuntimeMaxUse=32M
ForwardToConsole=no
ForwardToWall=no
EOF
# The io controller everywhere, as on a host whose services have
# IOWeight= or IOAccounting=: systemd then keeps +io in the root's and the
# slices' cgroup.subtree_control (it would take back a "+io" written by
# hand), so that io.weight and io.fairnvme.weight exist in every unit's
# cgroup, and in cgroups a test makes by hand under the root.
mkdir -p "$ROOT/etc/systemd/system.conf.d"
cat >"$ROOT/etc/systemd/system.conf.d/fnv.conf" <<'EOF'
[Manager]
DefaultIOAccounting=yes
EOF
# units that cost boot time under TCG and that the tests do not use
mask="getty@tty1.service serial-getty@ttyS0.service console-getty.service
	getty.target systemd-logind.service systemd-timesyncd.service
	networking.service systemd-networkd.service systemd-resolved.service
	apt-daily.timer apt-daily-upgrade.timer apt-daily.service
	apt-daily-upgrade.service dpkg-db-backup.timer dpkg-db-backup.service
	e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer
	logrotate.timer systemd-tmpfiles-clean.timer
	systemd-journal-flush.service systemd-update-utmp.service
	systemd-update-utmp-runlevel.service systemd-random-seed.service
	systemd-pstore.service systemd-hwdb-update.service
	systemd-firstboot.service systemd-machine-id-commit.service
	systemd-ask-password-console.path systemd-ask-password-wall.path
	ldconfig.service remote-fs.target cryptsetup.target
	veritysetup.target integritysetup.target swap.target
	sys-fs-fuse-connections.mount dev-hugepages.mount dev-mqueue.mount"
for u in $mask; do
	ln -sfn /dev/null "$ROOT/etc/systemd/system/$u"
done
# the units the payload brings (fnv-full.service) start from here
mkdir -p "$ROOT/etc/systemd/system/multi-user.target.wants" "$ROOT/fnv"
ln -sfn /lib/systemd/system/multi-user.target "$ROOT/etc/systemd/system/default.target"
# what mmdebstrap leaves for apt is not needed in the guest
rm -rf "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/log/*.log
{
	echo "SUITE=$SUITE"
	echo "PACKAGES=$PACKAGES"
	echo "KEY=$KEY"
	echo "BUILT=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$ROOT/etc/fnv-rootfs"
# shellcheck disable=SC2016
chroot "$ROOT" dpkg-query -W -f='${Package} ${Version}\n' >"$DIR/packages.txt"

# ------------------------------------------------------------- image ----
# room for the guest's writes (logs, fio's files): the root's size plus
# half again plus 512 MiB; the image file is sparse
kb=$(du -sk "$ROOT" | cut -f1)
size=$(((kb * 3 / 2) / 1024 + 512))
rm -f "$IMG.tmp"
truncate -s "${size}M" "$IMG.tmp"
mke2fs -q -t ext4 -L fnvroot -d "$ROOT" -E root_owner=0:0 "$IMG.tmp" "${size}M" >&2 ||
	die "mke2fs -d failed"
mv "$IMG.tmp" "$IMG"
rm -rf --one-file-system "$ROOT"
t2=$(date +%s)
touch "$DIR/done"
say "built $IMG: $((kb / 1024)) MiB of files, image ${size} MiB; mmdebstrap $((t1 - t0)) s, image $((t2 - t1)) s, total $((t2 - t0)) s"

# older images (other keys) are not needed any more
for d in "$CACHE"/*/; do
	d=${d%/}
	[ "$d" = "$DIR" ] && continue
	[ -e "$d/root.img" ] || [ -e "$d/done" ] || [ -d "$d/root" ] || continue
	say "removing the old image $d"
	rm -rf --one-file-system "$d"
done
echo "$IMG"
