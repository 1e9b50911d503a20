# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# kver.sh - sourced by run.sh, mkinitramfs.sh and mkpayload.sh: the kernel
# release the guest boots when KVER is not given.

# default_kver : the newest /boot/vmlinuz-6.1.* release, or nothing
default_kver() {
	# shellcheck disable=SC2012
	ls /boot/vmlinuz-6.1.* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1
}
