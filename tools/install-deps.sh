#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building fairnvme and running its
# guest tests need, and only those that are missing. Idempotent; needs root
# when something is missing.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }

have_cmd gcc || need+=(gcc)
# the unit tests are user-space C: libc headers (gcc only recommends them)
[ -e /usr/include/stdio.h ] || need+=(libc6-dev)
have_cmd make || need+=(make)
have_cmd qemu-system-x86_64 || need+=(qemu-system-x86)
have_cmd fio || need+=(fio)
have_cmd cpio || need+=(cpio)
have_cmd xz || need+=(xz-utils)
have_cmd depmod || need+=(kmod)
have_cmd gzip || need+=(gzip)
# a static busybox for the guest initramfs
if ! { [ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q static; } &&
	! dpkg -s busybox-static >/dev/null 2>&1; then
	need+=(busybox-static)
fi
have_cmd file || need+=(file)

# Kernel: headers to build against, the same version's image for the guest,
# and the same series' source for the private block/ headers.
kver=${KVER:-}
if [ -z "$kver" ]; then
	kver=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null |
		sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
fi
if [ -z "$kver" ]; then
	need+=(linux-headers-amd64 linux-image-amd64)
	series=6.1
else
	[ -e "/boot/vmlinuz-$kver" ] || need+=("linux-image-$kver")
	[ -d "/lib/modules/$kver/kernel" ] || need+=("linux-image-$kver")
	series=$(echo "$kver" | cut -d. -f1-2)
fi
[ -f "/usr/src/linux-source-$series.tar.xz" ] || need+=("linux-source-$series")

if [ ${#need[@]} -eq 0 ]; then
	echo "install-deps: everything is installed (kernel ${kver})"
	exit 0
fi
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
echo "install-deps: installing ${need[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: not root; run: sudo apt-get install ${need[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${need[@]}"
