#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh - build the lockdep/KASAN test kernel of `make check-debug`.
#
# Usage: build-debug-kernel.sh [SERIES]   (6.1, the default, or 6.12)
#
# Extracts Debian's linux-source-SERIES tarball, configures it as
# allnoconfig plus selftests/vm/debug.config (PROVE_LOCKING,
# DEBUG_ATOMIC_SLEEP, KASAN and only what the test guest needs) and
# selftests/vm/debug-SERIES.config when there is one (what that series
# needs on top), builds bzImage and modules niced, and installs the modules
# into a private root. Each series is cached apart, under
# .build/debug-kernel/SERIES/<key>, the key being a hash of the tarball, the
# fragments and this recipe; .build/debug-kernel/SERIES/current points at it
# and .build/debug-kernel/SERIES/current/env holds, as shell assignments:
#   KVER         the debug kernel's release (e.g. 6.1.192-fnvdebug)
#   KDIR         its build tree (also the KSRC of the module build)
#   FNV_KERNEL   its bzImage
#   FNV_MODROOT  the root its modules are installed under (lib/modules/$KVER)
#
# Environment: FNV_DEBUG_TARBALL (the series' source, default
#   /usr/src/linux-source-SERIES.tar.xz; its kernel version must be of
#   SERIES), FNV_DEBUG_KERNEL_DIR (default <repo>/.build/debug-kernel;
#   SERIES is a directory under it),
#   JOBS (make -j, default: the number of CPUs), FNV_BUILD_NICE (default 19).
# Needs gcc, make, bc, bison, flex, libelf-dev (tools/install-deps.sh
# --debug-kernel installs them).
set -euo pipefail

# bump when the way the kernel is configured or built changes
RECIPE=2

die() { echo "build-debug-kernel: error: $*" >&2; exit 1; }
say() { echo "build-debug-kernel: $*" >&2; }

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SERIES=${1:-6.1}
case "$SERIES" in
6.1 | 6.12) ;;
*) die "unknown series '$SERIES': 6.1 or 6.12" ;;
esac
TARBALL=${FNV_DEBUG_TARBALL:-/usr/src/linux-source-$SERIES.tar.xz}
ROOT=${FNV_DEBUG_KERNEL_DIR:-$REPO/.build/debug-kernel}
TOP=$ROOT/$SERIES
JOBS=${JOBS:-$(nproc)}

[ -f "$TARBALL" ] || die "$TARBALL missing: apt-get install linux-source-$SERIES, or set FNV_DEBUG_TARBALL="
for t in gcc make bc bison flex xz tar depmod; do
	command -v "$t" >/dev/null 2>&1 || die "$t missing: run tools/install-deps.sh --debug-kernel"
done
[ -e /usr/include/gelf.h ] || die "libelf headers missing (objtool): run tools/install-deps.sh --debug-kernel"

# Before recipe 2 one kernel (6.1) was cached right under $ROOT: its
# tree (<key>/, 16 hex digits) and the current link go.
for d in "$ROOT"/*; do
	case "${d##*/}" in
	current) rm -f "$d" ;;
	[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])
		say "removing the old layout's $d"
		rm -rf "$d"
		;;
	esac
done

# The fragments, merged: the common one, then the series' own, which may
# only add lines (every line of the result must be in .config, below).
mkdir -p "$TOP"
FRAG=$TOP/fragment.config
cat "$HERE/debug.config" >"$FRAG.tmp"
[ ! -f "$HERE/debug-$SERIES.config" ] || cat "$HERE/debug-$SERIES.config" >>"$FRAG.tmp"
mv "$FRAG.tmp" "$FRAG"

tsum=$(sha256sum <"$TARBALL" | cut -d' ' -f1)
key=$( { echo "$tsum"; sha256sum <"$FRAG"; echo "recipe $RECIPE"; } |
	sha256sum | cut -c1-16)
DIR=$TOP/$key
if [ -f "$DIR/env" ]; then
	ln -sfn "$key" "$TOP/current"
	say "cached: $DIR ($(sed -n 's/^KVER=//p' "$DIR/env"))"
	exit 0
fi

# Keep one tree on disk. A build of another key from the same tarball
# (another fragment or recipe) is reused: make then rebuilds only what the
# new configuration changes.
for d in "$TOP"/*/; do
	d=${d%/}
	[ -L "$d" ] || [ "$(basename "$d")" = "$key" ] && continue
	if [ ! -d "$TOP/$key" ] && [ "$(cat "$d/tarball.sha256" 2>/dev/null)" = "$tsum" ] &&
		[ -f "$d/linux/Makefile" ]; then
		say "reusing the tree of $(basename "$d")"
		rm -f "$d/env"
		mv "$d" "$TOP/$key"
	else
		rm -rf "$d"
	fi
done

start=$(date +%s)
SRC=$DIR/linux
if [ ! -f "$SRC/Makefile" ]; then
	say "extracting $TARBALL"
	rm -rf "$DIR"
	mkdir -p "$DIR/linux.tmp"
	tar -xJf "$TARBALL" -C "$DIR/linux.tmp" --strip-components=1
	mv "$DIR/linux.tmp" "$SRC"
	echo "$tsum" >"$DIR/tarball.sha256"
fi
kv=$(make -s -C "$SRC" kernelversion)
case "$kv" in
"$SERIES".*) ;;
*) die "$TARBALL is Linux $kv, not $SERIES.x" ;;
esac

NICE=(nice -n "${FNV_BUILD_NICE:-19}")
say "configuring: allnoconfig + $FRAG"
"${NICE[@]}" make -C "$SRC" -s KCONFIG_ALLCONFIG="$FRAG" allnoconfig
# every line of the fragment must have survived Kconfig's dependencies
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$SRC/.config" || { say "not in .config: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set") grep -qxF "$line" "$SRC/.config" || { say "not in .config: $line"; bad=1; } ;;
	esac
done <"$FRAG"
[ $bad = 0 ] || die "$FRAG asks for options Kconfig dropped (missing dependencies?)"
say "$(grep -c '=[ym]$' "$SRC/.config") options set (=y/=m)"

say "building with make -j$JOBS (nice ${FNV_BUILD_NICE:-19}); this takes a while"
"${NICE[@]}" make -C "$SRC" -s -j"$JOBS" bzImage modules >"$DIR/build.log" 2>&1 || {
	tail -n 30 "$DIR/build.log" >&2
	die "kernel build failed (log: $DIR/build.log)"
}
rm -rf "$DIR/mod"
make -C "$SRC" -s INSTALL_MOD_PATH="$DIR/mod" modules_install >>"$DIR/build.log" 2>&1 ||
	die "modules_install failed (log: $DIR/build.log)"
KREL=$(cat "$SRC/include/config/kernel.release")
[ -d "$DIR/mod/lib/modules/$KREL" ] || die "no $DIR/mod/lib/modules/$KREL after modules_install"
# the build and source links point into the tree: not needed in the guest
rm -f "$DIR/mod/lib/modules/$KREL/build" "$DIR/mod/lib/modules/$KREL/source"

cat >"$DIR/env.tmp" <<EOF
KVER=$KREL
KDIR=$SRC
FNV_KERNEL=$SRC/arch/x86/boot/bzImage
FNV_MODROOT=$DIR/mod
EOF
mv "$DIR/env.tmp" "$DIR/env"
ln -sfn "$key" "$TOP/current"
say "built $KREL in $(($(date +%s) - start))s: $DIR"
