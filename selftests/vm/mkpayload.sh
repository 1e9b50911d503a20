#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkpayload.sh OUT.img - the per-run disk of the "full" test guest
# (selftests/vm/run.sh --image full): an ext4 image, made with mke2fs -d,
# that the initramfs (selftests/vm/init, fnv.root=) mounts on /fnv of the
# cached Debian root (selftests/vm/mkrootfs.sh) before it starts systemd.
#
# Contents:
#   modules/        the whole module tree of $KVER (<FNV_MODROOT>/lib/modules/$KVER),
#                   fairnvme.ko in extra/, depmod'ed: bound on /lib/modules/$KVER
#   tests/          selftests/full/* and selftests/guest/lib.sh (the guest's /tests)
#   tools/          tools/fairnvme-top, fairnvme-weightd, tools/*.bt and
#                   tools/bpftrace/* (the guest's /tools, /tools/bpftrace)
#   extra/          FAIRNVME_EXTRA_FILES (the guest's /extra)
#   fnv-full.service, full-runner.sh, runlib.sh   the unit that runs the tests
#   fnv-build       what was built from what
#
# Environment: KVER (default newest /boot/vmlinuz-6.1.*), FAIRNVME_KO
# (default <repo>/fairnvme.ko), FAIRNVME_EXTRA_FILES, FNV_MODROOT (as for
# mkinitramfs.sh).
set -euo pipefail

die() { echo "mkpayload: error: $*" >&2; exit 1; }
warn() { echo "mkpayload: warning: $*" >&2; }

[ $# -eq 1 ] || die "usage: $0 OUT.img"
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# shellcheck source=selftests/vm/kver.sh
. "$HERE/kver.sh"
KVER=${KVER:-$(default_kver)}
[ -n "$KVER" ] || die "no /boot/vmlinuz-6.1.* found (apt-get install linux-image-amd64)"
MODDIR=${FNV_MODROOT:-}/lib/modules/$KVER
[ -d "$MODDIR/kernel" ] || die "$MODDIR/kernel missing (apt-get install linux-image-$KVER)"
FAIRNVME_KO=${FAIRNVME_KO:-$REPO/fairnvme.ko}
for t in mke2fs depmod modinfo; do
	command -v "$t" >/dev/null || die "$t missing"
done

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/fnv-payload.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/modules/lib/modules" "$STAGE/tests" "$STAGE/tools" "$STAGE/extra"

# --- modules: the kernel's, as they are (kmod reads .ko.xz), and ours ----
cp -a "$MODDIR" "$STAGE/modules/lib/modules/$KVER"
rm -rf "$STAGE/modules/lib/modules/$KVER/build" "$STAGE/modules/lib/modules/$KVER/source" \
	"$STAGE/modules/lib/modules/$KVER/updates/dkms"
FNV_STATUS=absent
if [ -f "$FAIRNVME_KO" ]; then
	vermagic=$(modinfo -F vermagic "$FAIRNVME_KO" 2>/dev/null | awk '{print $1}')
	[ "$vermagic" = "$KVER" ] ||
		warn "$FAIRNVME_KO vermagic '$vermagic' != '$KVER' (shipped anyway, loading will likely fail)"
	mkdir -p "$STAGE/modules/lib/modules/$KVER/extra"
	# a fairnvme.ko the host installed (make install, DKMS) must not shadow ours
	find "$STAGE/modules/lib/modules/$KVER" -name 'fairnvme.ko*' -delete
	cp "$FAIRNVME_KO" "$STAGE/modules/lib/modules/$KVER/extra/"
	FNV_STATUS="present $(basename "$FAIRNVME_KO") vermagic=$vermagic sha256=$(sha256sum "$FAIRNVME_KO" | cut -c1-16) mtime=$(date -u -r "$FAIRNVME_KO" +%Y-%m-%dT%H:%M:%SZ)"
else
	warn "$FAIRNVME_KO not found: the payload has no fairnvme (tests needing it will fail)"
fi
depmod -b "$STAGE/modules" "$KVER" || die "depmod failed"

# --- tests, tools, extra files --------------------------------------------
for f in "$REPO"/selftests/full/* "$REPO/selftests/guest/lib.sh"; do
	[ -f "$f" ] && cp "$f" "$STAGE/tests/"
done
for f in "$REPO/tools/fairnvme-top" "$REPO/tools/fairnvme-weightd" "$REPO"/tools/*.bt; do
	[ -f "$f" ] && cp "$f" "$STAGE/tools/"
done
if [ -d "$REPO/tools/bpftrace" ]; then
	mkdir -p "$STAGE/tools/bpftrace"
	for f in "$REPO"/tools/bpftrace/*; do
		[ -f "$f" ] && cp "$f" "$STAGE/tools/bpftrace/"
	done
fi
chmod 0755 "$STAGE"/tests/* "$STAGE"/tools/* "$STAGE"/tools/bpftrace/* 2>/dev/null || true
for f in ${FAIRNVME_EXTRA_FILES:-}; do
	[ -e "$f" ] || die "FAIRNVME_EXTRA_FILES: $f not found"
	cp -r "$f" "$STAGE/extra/"
done
cp "$HERE/full-runner.sh" "$HERE/runlib.sh" "$STAGE/"
chmod 0755 "$STAGE/full-runner.sh"
cp "$HERE/fnv-full.service" "$STAGE/fnv-full.service"
{
	echo "KVER=$KVER"
	echo "FAIRNVME_KO=$FNV_STATUS"
	echo "BUILT=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	if git -C "$REPO" rev-parse --short HEAD >/dev/null 2>&1; then
		echo "GIT=$(git -C "$REPO" rev-parse --short HEAD)"
	fi
} >"$STAGE/fnv-build"

# --- the image: the files plus a quarter, at least 64 MiB ------------------
kb=$(du -sk "$STAGE" | cut -f1)
size=$((kb * 5 / 4 / 1024 + 64))
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT" "$OUT.tmp"
truncate -s "${size}M" "$OUT.tmp"
# no journal: the guest mounts it read-only
mke2fs -q -t ext4 -O ^has_journal -L fnvpayload -d "$STAGE" -E root_owner=0:0 "$OUT.tmp" "${size}M" ||
	die "mke2fs -d failed"
mv "$OUT.tmp" "$OUT"
echo "mkpayload: wrote $OUT (${size} MiB, KVER=$KVER, fairnvme: $FNV_STATUS)" >&2
