#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building fairnvme and running its
# tests need, and only those that are missing. Idempotent; needs root when
# something is missing. Says what it installs and, on any failure, prints
# one line that says why before it exits non-zero.
#
# Environment: KVER picks the kernel (e.g. 6.1.0-41-amd64); default: the
# newest installed linux-headers-6.1.*-amd64, else Debian 12's default
# kernel (linux-image-amd64, linux-headers-amd64).
#
# --debug-kernel: also what building the lockdep/KASAN kernel of
# `make check-debug` from linux-source needs (selftests/vm/build-debug-kernel.sh).
set -euo pipefail

debug_kernel=0
case "${1:-}" in
--debug-kernel) debug_kernel=1 ;;
"") ;;
*) echo "usage: $0 [--debug-kernel]" >&2; exit 2 ;;
esac

die() {
	echo "install-deps: error: $*" >&2
	exit 1
}
trap 'rc=$?; echo "install-deps: error: \"$BASH_COMMAND\" failed (exit $rc, line $LINENO)" >&2; exit $rc' ERR

[ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1 ||
	die "this is not a Debian system with apt-get: install by hand what README.md lists"

need=()
why=()
want() { # want PACKAGE REASON
	need+=("$1")
	why+=("$1 ($2)")
}
have_cmd() { command -v "$1" >/dev/null 2>&1; }

have_cmd make || want make "the build and test entry points"
have_cmd gcc || want gcc "module and unit tests"
# gcc only recommends the libc headers, and --no-install-recommends skips them
[ -e /usr/include/stdio.h ] || want libc6-dev "the user-space unit tests"
have_cmd qemu-system-x86_64 || want qemu-system-x86 "the test guest"
have_cmd fio || want fio "the I/O load in the guest"
have_cmd mke2fs || want e2fsprogs "the journal test's ext4"
have_cmd cpio || want cpio "the guest initramfs"
have_cmd xz || want xz-utils "unpacking linux-source"
have_cmd depmod || want kmod "the guest's module tree"
have_cmd python3 || want python3 "tools/fairnvme-weightd and its unit test"
have_cmd blkparse || want blktrace "tools/fairnvme-blknotes' unit test (blkparse)"
have_cmd gzip || want gzip "the guest initramfs"
have_cmd mmdebstrap || want mmdebstrap "the full test guest's Debian root (make full-image)"
# root's PATH has /usr/sbin, a user's may not
{ have_cmd dkms || [ -x /usr/sbin/dkms ]; } ||
	want dkms "make dkms-build-check, make dkms-install"
# a static busybox is the guest's userland
if ! [ -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
	want busybox-static "the guest's shell and tools"
fi

# Kernel: headers to build against, the same version's image for the guest,
# and the same series' source for the private block/ headers.
newest_headers() { # newest installed /usr/src/linux-headers-6.1.*-amd64, or nothing
	local d best=""
	for d in /usr/src/linux-headers-6.1.*-amd64; do
		[ -d "$d" ] || continue
		best=$(printf '%s\n%s\n' "$best" "${d#/usr/src/linux-headers-}" |
			sed '/^$/d' | sort -V | tail -n 1)
	done
	echo "$best"
}
# the Makefile's choice: the running kernel when it is a 6.1 with its
# build tree there, else the newest installed 6.1 headers
kver=${KVER:-}
case "$(uname -r)" in
6.1.*)
	if [ -z "$kver" ] && [ -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		kver=$(uname -r)
	fi
	;;
esac
[ -n "$kver" ] || kver=$(newest_headers)
if [ -z "$kver" ]; then
	want linux-headers-amd64 "Debian 12's kernel headers, to build the module"
	want linux-image-amd64 "Debian 12's kernel, booted in the test guest"
	series=6.1
else
	[ -e "/usr/src/linux-headers-$kver/Makefile" ] ||
		want "linux-headers-$kver" "to build the module"
	{ [ -e "/boot/vmlinuz-$kver" ] && [ -d "/lib/modules/$kver/kernel" ]; } ||
		want "linux-image-$kver" "booted in the test guest"
	series=$(echo "$kver" | cut -d. -f1-2)
fi
[ -f "/usr/src/linux-source-$series.tar.xz" ] ||
	want "linux-source-$series" "the kernel's private block/ headers"

# The second LTS kernel the guest tests run on: 6.12 (Debian 13's), in
# Debian 12's archive as linux-image-6.12.*+deb12-amd64. KVER2 picks it;
# default: the newest installed 6.12 headers, else the newest the archive
# has (known only after apt-get update, below).
kver2=${KVER2:-}
if [ -z "$kver2" ]; then
	for d in /usr/src/linux-headers-6.12.*-amd64; do
		[ -d "$d" ] || continue
		kver2=$(printf '%s\n%s\n' "$kver2" "${d#/usr/src/linux-headers-}" |
			sed '/^$/d' | sort -V | tail -n 1)
	done
fi
k2_pkgs() { # the packages kernel $1 needs that are missing
	[ -e "/usr/src/linux-headers-$1/Makefile" ] || echo "linux-headers-$1"
	{ [ -e "/boot/vmlinuz-$1" ] && [ -d "/lib/modules/$1/kernel" ]; } ||
		echo "linux-image-$1"
	[ -f /usr/src/linux-source-6.12.tar.xz ] || echo linux-source-6.12
}
if [ -n "$kver2" ]; then
	for p in $(k2_pkgs "$kver2"); do
		want "$p" "the second kernel the guest tests run on"
	done
fi

# linux-source-X.Y is one package per series, and the archive can carry a
# newer Debian revision of it than the headers the metapackage picks (the
# security archive publishes them at different times). The Makefile
# refuses a mismatch: the block/ headers taken from the source fix struct
# layouts. So the source is installed at the headers' version.
pkg_ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
cand_ver() { # apt's candidate version of package $1, or nothing
	apt-cache policy "$1" 2>/dev/null |
		awk '$1 == "Candidate:" && $2 != "(none)" { print $2; exit }'
}
src_pins() { # the linux-source=VERSION specs the installed headers need
	local k s h v
	for k in "$@"; do
		[ -n "$k" ] || continue
		s=$(echo "$k" | cut -d. -f1-2)
		h=$(pkg_ver "linux-headers-$k")
		v=$(pkg_ver "linux-source-$s")
		[ -n "$h" ] && [ -n "$v" ] && [ "$h" != "$v" ] &&
			echo "linux-source-$s=$h"
	done
	return 0
}

for p in $(src_pins "$kver" "$kver2"); do
	want "$p" "the source at its headers' Debian version"
done

if [ $debug_kernel = 1 ]; then
	have_cmd bc || want bc "the kernel build (debug kernel)"
	have_cmd bison || want bison "the kernel's Kconfig (debug kernel)"
	have_cmd flex || want flex "the kernel's Kconfig (debug kernel)"
	[ -e /usr/include/gelf.h ] || want libelf-dev "the kernel's objtool (debug kernel)"
fi

if [ ${#need[@]} -eq 0 ] && [ -n "$kver2" ]; then
	echo "install-deps: everything is installed (kernels $kver and $kver2)"
	exit 0
fi
echo "install-deps: missing:"
[ ${#need[@]} -eq 0 ] || printf '  %s\n' "${why[@]}"
[ -n "$kver2" ] || echo "  a 6.12 kernel, the second the guest tests run on (the newest in the archive)"
if [ "$(id -u)" != 0 ]; then
	die "not root; run as root, or: apt-get install --allow-downgrades ${need[*]}"
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: apt-get update"
apt-get update -q >/tmp/fairnvme-apt-update.log 2>&1 ||
	die "apt-get update failed (no network or no Debian mirror?): $(tail -n 1 /tmp/fairnvme-apt-update.log)"
if [ -z "$kver2" ]; then
	kver2=$(apt-cache pkgnames linux-headers-6.12. 2>/dev/null |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\)$/\1/p' |
		sort -V | tail -n 1)
	[ -n "$kver2" ] ||
		die "Debian's archive has no linux-headers-6.12.*+deb12-amd64 (is bookworm-updates or the security archive missing from sources.list?)"
	for p in $(k2_pkgs "$kver2"); do
		need+=("$p")
		why+=("$p (the second kernel the guest tests run on)")
	done
	echo "install-deps: second kernel: $kver2"
fi
# a linux-source to install comes at its headers' version (the candidate
# of the headers to be installed), not the archive's newest
for i in "${!need[@]}"; do
	case "${need[$i]}" in
	linux-source-6.1) h=linux-headers-${kver:-amd64} ;;
	linux-source-6.12) h=linux-headers-$kver2 ;;
	*) continue ;;
	esac
	v=$(pkg_ver "$h")
	[ -n "$v" ] || v=$(cand_ver "$h")
	[ -z "$v" ] || need[$i]="${need[$i]}=$v"
done
if [ ${#need[@]} -gt 0 ]; then
	echo "install-deps: apt-get install ${need[*]}"
	apt-get install -y -q --no-install-recommends --allow-downgrades "${need[@]}" ||
		die "apt-get install ${need[*]} failed (see apt's messages above)"
fi

# The metapackages pick the kernel: check that what was installed matches.
[ -n "$kver" ] || kver=$(newest_headers)
pins=$(src_pins "$kver" "$kver2" | tr '\n' ' ')
if [ -n "$pins" ]; then
	# shellcheck disable=SC2086 # one word per package
	echo "install-deps: linux-source at the headers' version:" $pins
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends --allow-downgrades $pins ||
		die "apt-get install $pins failed: the archive no longer has the source at the headers' version; install matching linux-headers and linux-source by hand, or set KSRC="
fi
[ -n "$kver" ] || die "no /usr/src/linux-headers-6.1.*-amd64 after installing linux-headers-amd64"
{ [ -e "/boot/vmlinuz-$kver" ] && [ -d "/lib/modules/$kver/kernel" ]; } ||
	die "/boot/vmlinuz-$kver or /lib/modules/$kver missing: apt-get install linux-image-$kver"
series=$(echo "$kver" | cut -d. -f1-2)
[ -f "/usr/src/linux-source-$series.tar.xz" ] ||
	die "/usr/src/linux-source-$series.tar.xz missing: apt-get install linux-source-$series"
[ -e "/usr/src/linux-headers-$kver2/Makefile" ] && [ -e "/boot/vmlinuz-$kver2" ] &&
	[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	die "kernel $kver2's headers, image or linux-source-6.12 missing after apt-get install"
echo "install-deps: done (kernels $kver and $kver2)"
