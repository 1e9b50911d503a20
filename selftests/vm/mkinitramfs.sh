#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio.gz - build the initramfs for the fairnvme in-VM tests.
#
# Contents: busybox-static (applet links), fio and mke2fs with their shared
# libraries, the kernel modules needed by the tests (with a depmod'ed module
# tree so that "modprobe" works in the guest), the fairnvme module (if
# built), the guest scripts (selftests/guest/* -> /tests, tools/*-guest.sh ->
# /tools), /init and the runner library it sources (/runlib.sh).
#
# Environment:
#   KVER                  kernel version (default: newest /boot/vmlinuz-6.1.*)
#   FAIRNVME_KO           module to ship (default: <repo>/fairnvme.ko)
#   FAIRNVME_EXTRA_FILES  space-separated host paths copied into /extra/
#   FNV_GZIP_LEVEL        gzip level (default 1: the archive is mostly binaries)
#   FNV_MODROOT           root the kernel's modules are under
#                         (<root>/lib/modules/$KVER; default /)
#   FNV_INITRAMFS_MODS    more modules to ship, space-separated (run.sh
#                         --image full: virtio_pci virtio_blk)
set -eu

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }
warn() { echo "mkinitramfs: warning: $*" >&2; }

[ $# -eq 1 ] || die "usage: $0 OUT.cpio.gz"
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# shellcheck source=selftests/vm/kver.sh
. "$HERE/kver.sh"
KVER=${KVER:-$(default_kver)}
[ -n "$KVER" ] || die "no /boot/vmlinuz-6.1.* found (apt-get install linux-image-amd64)"
MODROOT=${FNV_MODROOT:-}
MODDIR=$MODROOT/lib/modules/$KVER
[ -d "$MODDIR/kernel" ] || die "$MODDIR/kernel missing (apt-get install linux-image-$KVER)"
FAIRNVME_KO=${FAIRNVME_KO:-$REPO/fairnvme.ko}

BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing (apt-get install busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked (apt-get install busybox-static)"
fi
FIO=$(command -v fio) || die "fio missing (apt-get install fio)"
for t in cpio gzip depmod modprobe modinfo ldd; do
	command -v "$t" >/dev/null || die "$t missing"
done

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/fnv-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

mkdir -p "$STAGE"/bin "$STAGE"/sbin "$STAGE"/usr/bin "$STAGE"/usr/sbin \
	"$STAGE"/lib "$STAGE"/lib64 "$STAGE"/etc "$STAGE"/proc "$STAGE"/sys \
	"$STAGE"/dev "$STAGE"/tmp "$STAGE"/run "$STAGE"/mnt "$STAGE"/root \
	"$STAGE"/var/tmp "$STAGE"/tests "$STAGE"/tools "$STAGE"/extra

# --- busybox ------------------------------------------------------------
cp "$BUSYBOX" "$STAGE/bin/busybox"
# --list-full gives e.g. "sbin/modprobe". The list contains "bin/busybox"
# itself: skip it, or the binary would be replaced by a link to itself.
"$BUSYBOX" --list-full | while read -r applet; do
	case "$applet" in
	bin/busybox | "") continue ;;
	esac
	mkdir -p "$STAGE/$(dirname "$applet")"
	[ -e "$STAGE/$applet" ] || ln -s /bin/busybox "$STAGE/$applet"
done

# --- fio and its shared libraries --------------------------------------
copy_with_path() { # copy host file $1 to the same path in the stage
	mkdir -p "$STAGE/$(dirname "$1")"
	cp -L "$1" "$STAGE/$1"
}
copy_with_libs() { # host binary $1 and the shared libraries it needs
	copy_with_path "$1"
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		sort -u | while read -r lib; do
		copy_with_path "$lib"
	done
}
copy_with_libs "$FIO"
# mke2fs for the journal test (e2fsprogs; the test skips without it)
if MKE2FS=$(command -v mke2fs); then
	copy_with_libs "$MKE2FS"
	[ -e /etc/mke2fs.conf ] && copy_with_path /etc/mke2fs.conf
else
	warn "mke2fs missing (apt-get install e2fsprogs): the journal test will skip"
fi
# blktrace and blkparse for t25 (blktrace; the test skips those points
# without them)
for t in blktrace blkparse; do
	if b=$(command -v $t); then
		copy_with_libs "$b"
	else
		warn "$t missing (apt-get install blktrace): t25 will skip its blktrace points"
	fi
done
# glibc fallbacks if ldd ever prints the loader under another name
[ -e "$STAGE/lib64/ld-linux-x86-64.so.2" ] || copy_with_path /lib64/ld-linux-x86-64.so.2

# --- kernel modules ----------------------------------------------------
MODS="nvme null_blk configfs bfq kyber-iosched crc64_rocksoft_generic crct10dif_generic ext4 ${FNV_INITRAMFS_MODS:-}"
KMODDST=$STAGE/lib/modules/$KVER
mkdir -p "$KMODDST"
add_module_deps() { # add module $1 (name or path) and its dependencies
	local line path rel
	modprobe ${MODROOT:+-d "$MODROOT"} -S "$KVER" --show-depends --ignore-install "$1" >"$STAGE/.deps" ||
		die "modprobe --show-depends $1 failed for $KVER"
	while read -r line; do
		case "$line" in
		builtin*) continue ;;
		insmod*) ;;
		*) continue ;;
		esac
		path=$(echo "$line" | awk '{print $2}')
		case "$path" in
		"$MODDIR"/*) ;;
		*) die "unexpected module path $path" ;;
		esac
		rel=${path#"$MODDIR"/}
		mkdir -p "$KMODDST/$(dirname "$rel")"
		case "$rel" in
		# 6.12's modules are xz-compressed, and busybox's modprobe hands
		# the file to init_module() as it is: ship them unpacked
		*.ko.xz) xz -dc "$path" >"$KMODDST/${rel%.xz}" ||
			die "xz -d $path failed" ;;
		*) cp "$path" "$KMODDST/$rel" ;;
		esac
	done <"$STAGE/.deps"
	rm -f "$STAGE/.deps"
}
for m in $MODS; do
	add_module_deps "$m"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$MODDIR/$f" ] && cp "$MODDIR/$f" "$KMODDST/"
done

FNV_STATUS="absent"
if [ -f "$FAIRNVME_KO" ]; then
	vermagic=$(modinfo -F vermagic "$FAIRNVME_KO" 2>/dev/null | awk '{print $1}')
	if [ "$vermagic" != "$KVER" ]; then
		warn "$FAIRNVME_KO vermagic '$vermagic' != '$KVER' (shipped anyway, loading will likely fail)"
	fi
	mkdir -p "$KMODDST/extra"
	cp "$FAIRNVME_KO" "$KMODDST/extra/"
	deps=$(modinfo -F depends "$FAIRNVME_KO" 2>/dev/null | tr ',' ' ')
	for d in $deps; do
		add_module_deps "$d"
	done
	FNV_STATUS="present $(basename "$FAIRNVME_KO") vermagic=$vermagic sha256=$(sha256sum "$FAIRNVME_KO" | cut -c1-16) mtime=$(date -u -r "$FAIRNVME_KO" +%Y-%m-%dT%H:%M:%SZ)"
else
	warn "$FAIRNVME_KO not found: building the initramfs without it (tests needing it will fail)"
fi
depmod -b "$STAGE" "$KVER" || die "depmod failed"

# --- scripts -------------------------------------------------------------
cp "$HERE/init" "$STAGE/init"
cp "$HERE/runlib.sh" "$STAGE/runlib.sh"
chmod 0755 "$STAGE/init"
if [ -d "$REPO/selftests/guest" ]; then
	for f in "$REPO"/selftests/guest/*; do
		[ -f "$f" ] && cp "$f" "$STAGE/tests/"
	done
fi
for f in "$REPO"/tools/*-guest.sh; do
	[ -f "$f" ] && cp "$f" "$STAGE/tools/"
done
chmod 0755 "$STAGE"/tests/* "$STAGE"/tools/* 2>/dev/null || true
for f in ${FAIRNVME_EXTRA_FILES:-}; do
	[ -e "$f" ] || die "FAIRNVME_EXTRA_FILES: $f not found"
	cp -r "$f" "$STAGE/extra/"
done

# --- small /etc ----------------------------------------------------------
echo "root:x:0:0:root:/root:/bin/sh" >"$STAGE/etc/passwd"
echo "root:x:0:" >"$STAGE/etc/group"
{
	echo "KVER=$KVER"
	echo "FAIRNVME_KO=$FNV_STATUS"
	echo "BUILT=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	if git -C "$REPO" rev-parse --short HEAD >/dev/null 2>&1; then
		echo "GIT=$(git -C "$REPO" rev-parse --short HEAD)"
	fi
} >"$STAGE/etc/fnv-build"

mkdir -p "$(dirname "$OUT")"
(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -"${FNV_GZIP_LEVEL:-1}" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs: wrote $OUT ($(du -h "$OUT" | cut -f1), KVER=$KVER, fairnvme: $FNV_STATUS)" >&2
