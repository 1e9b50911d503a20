#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkrootfs.sh - build (once) the root file system of the "full" test guest:
# Debian 12 with systemd, bpftrace, blktrace, python3, fio, as an ext4 image
# that selftests/vm/run.sh --image full boots read-only (QEMU snapshot=on:
# the guest's writes go to a temporary overlay, the image stays as built).
#
# usage: selftests/vm/mkrootfs.sh [--force | --sources]
#
# Prints the image's path on stdout (--sources: only the apt sources it
# would build the root from, one "deb URI SUITE main" line each, and
# nothing else). The image is cached in $FNV_FULL_CACHE/<key>/root.img,
# <key> being a hash of the package list and of this script (which holds
# every setting of the image): an unchanged list and script reuse the
# image at once, any change builds a new one (older ones are removed).
# --force rebuilds even so.
#
# mmdebstrap --mode=root (as root; no user namespaces, so that it works in
# .ci/run's chroot too), variant apt, no Recommends, no documentation;
# then mke2fs -d turns the directory into the image: no loop device, no
# mount. The guest needs no network: everything it runs is in the image or
# on the per-run payload disk (selftests/vm/mkpayload.sh).
#
# The packages come from the host's apt sources (/etc/apt/sources.list and
# sources.list.d/*.list or deb822 *.sources, as apt reads them: apt-get
# indextargets): their entries for bookworm, bookworm-updates and
# bookworm-security, component main, leaving out those whose Release file
# (if the host has it from an apt-get update) names an origin other than
# Debian (mmdebstrap given no mirror would not use them: it takes
# deb.debian.org). A host with no such entry (not Debian 12) gets
# http://deb.debian.org's. --sources prints what it takes.
#
# Environment:
#   FNV_FULL_CACHE     cache directory (default <repo>/.build/full-image)
#   FNV_FULL_MIRROR    a Debian mirror to use instead of the host's sources
#                      (e.g. http://ftp.de.debian.org: its /debian and
#                      /debian-security, bookworm, -updates, -security)
#   FNV_FULL_PACKAGES  extra packages, space-separated (part of the key)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${FNV_FULL_CACHE:-$REPO/.build/full-image}
SUITE=bookworm

die() { echo "mkrootfs: error: $*" >&2; exit 1; }
say() { echo "mkrootfs: $*" >&2; }

# host_sources: "deb URI SUITE main" for each of the host's apt sources
# entries of $SUITE, -updates and -security (component main) that are not
# known to be another origin's than Debian (a vendor's "bookworm main")
host_sources() {
	command -v apt-get >/dev/null 2>&1 || return 0
	{
		# the origins the host's downloaded Release files name
		apt-get indextargets --format 'ORIGIN $(REPO_URI) $(RELEASE) $(ORIGIN)' \
			'Identifier: Packages' 2>/dev/null
		# every entry, downloaded or not
		apt-get indextargets --no-release-info \
			--format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' \
			'Identifier: Packages' 2>/dev/null
	} | awk -v s="$SUITE" '
		$1 == "ORIGIN" {
			if ($4 != "Debian" && $4 != "$(ORIGIN)") other[$2 " " $3] = 1
			next
		}
		$1 == "deb" && $4 == "main" &&
		($3 == s || $3 == s "-updates" || $3 == s "-security") &&
		!(($2 " " $3) in other) && !seen[$2 " " $3]++ { print "deb " $2 " " $3 " main" }'
}

# sources: the root's apt sources, one line each: FNV_FULL_MIRROR's, else
# the host's, else (none for $SUITE) deb.debian.org's
sources() {
	local m=${FNV_FULL_MIRROR:-} lines s
	if [ -z "$m" ]; then
		lines=$(host_sources)
		if [ -n "$lines" ]; then
			for s in "$SUITE-updates" "$SUITE-security"; do
				echo "$lines" | grep -q " $s main\$" ||
					say "warning: no $s in the host's apt sources: the root gets none either"
			done
			echo "$lines"
			return
		fi
		m=http://deb.debian.org
		say "no $SUITE entry in the host's apt sources: using $m (FNV_FULL_MIRROR= picks another)"
	fi
	m=${m%/}
	echo "deb $m/debian $SUITE main"
	echo "deb $m/debian $SUITE-updates main"
	echo "deb $m/debian-security $SUITE-security main"
}

force=0
case "${1:-}" in
--force) force=1 ;;
--sources) sources; exit 0 ;;
"") ;;
*) die "usage: $0 [--force | --sources]" ;;
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
mapfile -t SOURCES < <(sources)
say "building $IMG: $SUITE + $PACKAGES, from:"
printf 'mkrootfs:   %s\n' "${SOURCES[@]}" >&2

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
	"$SUITE" "$ROOT" "${SOURCES[@]}" >&2 ||
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
