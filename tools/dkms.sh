#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh - fairnvme under DKMS (dkms.conf at the root), for make's targets:
#
#   dkms.sh install KVER...  make dkms-install: copy the sources DKMS needs to
#                            /usr/src/fairnvme-<version>, then dkms add, build
#                            and install for each KVER; every version already
#                            registered with DKMS is removed first, so that DKMS
#                            has one to rebuild for a new kernel (DKMS 3.0
#                            rebuilds none while there are several)
#   dkms.sh uninstall        make dkms-uninstall: dkms remove every version from
#                            every kernel, and its sources in /usr/src
#   dkms.sh check KVER...    make dkms-build-check: dkms add and build in a
#                            scratch DKMS tree under .build/, nothing installed,
#                            each module copied (uncompressed) to
#                            .build/dkms/<kver>/fairnvme.ko and checked with
#                            modinfo; TAP, one point per kernel
#
# The sources copied are Kbuild, Makefile, *.c, *.h, include/, dkms.conf with
# PACKAGE_VERSION filled in, and VERSION, which gives the Makefile the
# version since the copy has no .git.
#
# The check builds as a real DKMS install does, signing included: DKMS signs
# with /var/lib/dkms/mok.key when sign-file is there, and creates that key
# with openssl on first use.
#
# Environment: FNV_VERSION (the version; default: what "make version"
# prints), BUILD (default <repo>/.build).
set -euo pipefail
# dkms, depmod and modinfo, for a user whose PATH lacks the sbin directories
PATH=$PATH:/usr/sbin:/sbin

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/.build}
PKG=fairnvme

die() {
	echo "dkms: error: $*" >&2
	exit 1
}

usage() {
	sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

need_dkms() {
	command -v dkms >/dev/null 2>&1 ||
		die "dkms is not installed: apt-get install --no-install-recommends dkms"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root: dkms $1 writes /usr/src, /var/lib/dkms and /lib/modules"
}

version() {
	local v=${FNV_VERSION:-}

	[ -n "$v" ] || v=$(make -s --no-print-directory -C "$REPO" version)
	case "$v" in
	"" | *[!A-Za-z0-9._+~-]*) die "bad version '$v'" ;;
	esac
	echo "$v"
}

# stage DIR VERSION: the sources DKMS builds, in DIR
stage() {
	local dir=$1 v=$2

	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$REPO" && cp -r Kbuild Makefile dkms.conf ./*.c ./*.h include "$dir/")
	echo "$v" >"$dir/VERSION"
	sed -i "s/@VERSION@/$v/" "$dir/dkms.conf"
	grep -q "^PACKAGE_VERSION=\"$v\"\$" "$dir/dkms.conf" ||
		die "$dir/dkms.conf: no PACKAGE_VERSION=\"$v\""
}

# the versions of fairnvme registered with DKMS, from "dkms status"
# ("fairnvme/1.0, 6.1.0-56-amd64, x86_64: installed", "fairnvme/1.0: added")
registered() {
	dkms status -m "$PKG" 2>/dev/null |
		sed -n "s|^$PKG/\\([^,: ]*\\)[,:].*|\\1|p" | sort -u
}

# remove_src DIR: remove DIR if it is sources make dkms-install copied
remove_src() {
	if [ -f "$1/dkms.conf" ] && grep -q "^PACKAGE_NAME=\"$PKG\"\$" "$1/dkms.conf"; then
		echo "dkms: removing $1"
		rm -rf "$1"
	fi
}

# remove VERSION: from DKMS (every kernel), and its sources
remove() {
	echo "dkms: removing $PKG/$1"
	dkms remove "$PKG/$1" --all
	remove_src "/usr/src/$PKG-$1"
}

# what DKMS needs for kernel $1, checked before anything is changed: its
# headers (DKMS's own check) and the same series' linux-source (the Makefile
# checks the two packages' versions match)
check_kernel() {
	local k=$1 series

	[ -e "/lib/modules/$k/build/include" ] ||
		die "no headers for kernel $k at /lib/modules/$k/build: apt-get install linux-headers-$k"
	series=$(echo "$k" | cut -d. -f1-2)
	[ -f "/usr/src/linux-source-$series.tar.xz" ] ||
		die "/usr/src/linux-source-$series.tar.xz missing (fairnvme needs the kernel's private block/ headers from it): apt-get install linux-source-$series"
}

# after a failed dkms build: the reason from make.log in the DKMS tree $1,
# the Makefile's own "fairnvme: ..." message when there is one
show_make_log() {
	local log=$1/$PKG/$2/build/make.log

	[ -f "$log" ] || return 0
	if grep -q '^fairnvme: ' "$log"; then
		grep '^fairnvme: ' "$log"
	else
		tail -n 20 "$log"
	fi
}

cmd_install() {
	local v src k old

	[ $# -gt 0 ] || die "no kernel to install for"
	need_dkms
	need_root install
	v=$(version)
	for k; do
		check_kernel "$k"
	done
	for old in $(registered); do
		remove "$old"
	done
	src=/usr/src/$PKG-$v
	echo "dkms: sources in $src"
	stage "$src" "$v"
	dkms add "$PKG/$v"
	for k; do
		if ! dkms build "$PKG/$v" -k "$k"; then
			show_make_log /var/lib/dkms "$v" >&2
			die "dkms build $PKG/$v -k $k failed"
		fi
		dkms install "$PKG/$v" -k "$k"
	done
	echo "dkms: $PKG $v installed for $*; DKMS rebuilds it for each new kernel" \
		"whose headers and linux-source-X.Y are installed. To load it: modprobe fairnvme-iosched"
}

cmd_uninstall() {
	local v d n=0

	need_dkms
	need_root remove
	for v in $(registered); do
		remove "$v"
		n=$((n + 1))
	done
	# and the sources of any version no longer registered
	for d in "/usr/src/$PKG"-*; do
		remove_src "$d"
	done
	[ $n -gt 0 ] || echo "dkms: no version of $PKG was registered with DKMS"
	if [ -d /sys/module/$PKG ]; then
		echo "dkms: the loaded module stays until 'modprobe -r $PKG'" \
			"(once no queue uses the fairnvme scheduler) or a reboot"
	fi
}

cmd_check() {
	local v tree k n=0 fail=0 out log ko t0 why ver vermagic aliases
	local -a opts

	[ $# -gt 0 ] || die "no kernel to build for: install linux-headers, or set DKMS_KVERS="
	need_dkms
	v=$(version)
	tree=$BUILD/dkms-tree
	opts=(--dkmstree "$tree/var" --sourcetree "$tree/src")
	rm -rf "$tree"
	mkdir -p "$tree/var"
	stage "$tree/src/$PKG-$v" "$v"
	echo "TAP version 13"
	echo "1..$#"
	echo "# $PKG $v, DKMS $(dkms --version 2>/dev/null | sed 's/^dkms-//'), tree $tree"
	if ! dkms add "$PKG/$v" "${opts[@]}" >"$tree/add.log" 2>&1; then
		sed 's/^/# /' "$tree/add.log"
		for k; do
			n=$((n + 1))
			echo "not ok $n - dkms builds $PKG for $k # dkms add failed"
		done
		fail=$n
	else
		for k; do
			n=$((n + 1))
			out=$BUILD/dkms/$k
			log=$out/dkms.log
			rm -rf "$out"
			mkdir -p "$out"
			t0=$(date +%s)
			why=""
			if ! dkms build "$PKG/$v" -k "$k" "${opts[@]}" >"$log" 2>&1; then
				why="dkms build failed"
				sed 's/^/# /' "$log"
				show_make_log "$tree/var" "$v" | sed 's/^/# /'
			else
				# DKMS compresses the module as the kernel's own are
				# (6.12: xz); the guest tests want it as built
				ko=$(find "$tree/var/$PKG/$v/$k" -path '*/module/*' \
					-name "$PKG.ko*" 2>/dev/null | head -n 1 || :)
				cp "$tree/var/$PKG/$v/$k"/*/log/make.log "$out/" 2>/dev/null || :
				case "$ko" in
				"") why="no $PKG.ko in the DKMS tree" ;;
				*.ko.xz) xz -dc "$ko" >"$out/$PKG.ko" || why="xz -d failed" ;;
				*.ko.gz) gzip -dc "$ko" >"$out/$PKG.ko" || why="gzip -d failed" ;;
				*.ko.zst) zstd -qdc "$ko" >"$out/$PKG.ko" || why="zstd -d failed" ;;
				*) cp "$ko" "$out/$PKG.ko" ;;
				esac
			fi
			if [ -z "$why" ]; then
				ver=$(modinfo -F version "$out/$PKG.ko" || :)
				vermagic=$(modinfo -F vermagic "$out/$PKG.ko" | sed 's/ *$//' || :)
				aliases=$(modinfo -F alias "$out/$PKG.ko" | paste -sd ' ' || :)
				echo "# $out/$PKG.ko (DKMS: ${ko#"$tree"/var/}):" \
					"version $ver, alias $aliases, vermagic $vermagic," \
					"built in $(($(date +%s) - t0)) s"
				if [ "$ver" != "$v" ]; then
					why="version '$ver', not '$v'"
				elif [ "${vermagic%% *}" != "$k" ]; then
					why="vermagic '$vermagic' is not kernel $k's"
				elif [[ " $aliases " != *" fairnvme-iosched "* ]]; then
					why="no alias fairnvme-iosched"
				fi
			fi
			if [ -z "$why" ]; then
				echo "ok $n - dkms builds $PKG for $k"
			else
				echo "not ok $n - dkms builds $PKG for $k # $why"
				fail=$((fail + 1))
			fi
		done
	fi
	echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
	echo "$((n - fail)) passed, $fail failed"
	[ $fail -eq 0 ]
}

# dkms runs make: not with the flags and jobserver of the make that ran us
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
install) cmd_install "$@" ;;
uninstall) [ $# -eq 0 ] || usage; cmd_uninstall ;;
check) cmd_check "$@" ;;
*) usage ;;
esac
