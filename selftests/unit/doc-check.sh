#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# doc-check.sh [RST] - every debugfs file and cgroup file the module
# defines is documented where the admin guide (by default
# Documentation/fairnvme.rst) documents them, and nothing else is (TAP):
# a debugfs file by its row in the table of the "State in debugfs"
# section, a cgroup file by its section title (io.fairnvme.weight,
# underlined) in the "cgroup interface" section. A name in the prose
# does not count, so deleting a row or an entry fails. The iosched
# tunables are checked, with their units, defaults and ranges, by
# doc_check_tunables against their table.
set -uf
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/fairnvme-debugfs.c
cgsrc=$top/fairnvme-cgroup.c
doc=${1:-$top/Documentation/fairnvme.rst}
attrs=$(sed -n 's/^[[:space:]]*FNV_DBG_ATTR(\([a-z_]*\)),$/\1/p' "$src")
files=$(sed -n 's/^[[:space:]]*\.name = "\(fairnvme\.[a-z]*\)",$/io.\1/p' "$cgsrc" | sort -u)

# The first column of the rows of the first simple table in section $1:
# the rows are the lines between the table's second and third rules that
# start in the first column (the others continue a row).
table_rows() {
	awk -v title="$1" '
		!sec { if (prev == title && /^=+$/) sec = 1; prev = $0; next }
		/^=+$/ { exit }			# the next section
		/^=+  +=/ { if (++rules == 3) exit; next }
		rules == 2 && /^[^ \t]/ { print $1 }
	' "$doc" 2>/dev/null
}

# The titles of the subsections of section $1 (underlined with "-").
subsections() {
	awk -v title="$1" '
		!sec { if (prev == title && /^=+$/) sec = 1; prev = $0; next }
		/^=+$/ { exit }
		/^-+$/ && prev != "" && length($0) >= length(prev) { print prev }
		{ prev = $0 }
	' "$doc" 2>/dev/null
}

rows=$(table_rows "State in debugfs")
titles=$(subsections "cgroup interface" | grep '^io\.fairnvme\.')
nattrs=$(echo $attrs | wc -w)
nfiles=$(echo $files | wc -w)
n=0 fail=0

point() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}

# one word of the list $2 is $1
has() {
	for w in $2; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

echo "TAP version 13"
# the sources, one a file, no other row or entry
echo "1..$((1 + nattrs + nfiles + 1))"
[ "$nattrs" -gt 0 ] && [ "$nfiles" -gt 0 ]
point $? "the sources define $nattrs debugfs files and $nfiles cgroup files"
for a in $attrs; do
	has "$a" "$rows"
	point $? "debugfs $a has a row in the debugfs table of $(basename "$doc")"
done
for f in $files; do
	has "$f" "$titles"
	point $? "cgroup file $f has an entry in the cgroup interface of $(basename "$doc")"
done
extra=""
for r in $rows; do
	has "$r" "$attrs" || extra="$extra $r"
done
for t in $titles; do
	has "$t" "$files" || extra="$extra $t"
done
[ -z "$extra" ]
point $? "no row or entry documents a file the module does not have${extra:+:$extra}"
echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
