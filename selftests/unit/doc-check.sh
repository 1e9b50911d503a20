#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every iosched attribute and cgroup file the module defines is described in
# the admin guide (TAP).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/fairnvme-sysfs.c
cgsrc=$top/fairnvme-cgroup.c
doc=$top/Documentation/fairnvme.rst
attrs=$(sed -n 's/^[[:space:]]*FNV_ATTR_R[OW](\([a-z_]*\)),$/\1/p' "$src")
files=$(sed -n 's/^[[:space:]]*\.name = "\(fairnvme\.[a-z]*\)",$/io.\1/p' "$cgsrc" | sort -u)
n=0 fail=0
echo "TAP version 13"
echo "1..$(echo $attrs $files | wc -w)"
for a in $attrs $files; do
	n=$((n + 1))
	if grep -q "^$a[[:space:]]" "$doc" || grep -q "^$a\$" "$doc"; then
		echo "ok $n - $a is documented"
	else
		echo "not ok $n - $a is not in $(basename "$doc")"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
# the parsers must have found the attribute table and the cgroup files
[ "$n" -gt 10 ] && [ "$fail" -eq 0 ]
