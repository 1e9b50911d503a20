#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every debugfs file and cgroup file the module defines is described in the
# admin guide (TAP). The iosched tunables are checked, with their units,
# defaults and ranges, by doc_check_tunables against their table.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/fairnvme-debugfs.c
cgsrc=$top/fairnvme-cgroup.c
doc=$top/Documentation/fairnvme.rst
attrs=$(sed -n 's/^[[:space:]]*FNV_DBG_ATTR(\([a-z_]*\)),$/\1/p' "$src")
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
# the parsers must have found the debugfs files and the cgroup files
[ "$n" -gt 10 ] && [ "$fail" -eq 0 ]
