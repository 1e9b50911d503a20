#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-tap.sh TEST... - run the unit tests the way the kernel's kselftest
# runner (tools/testing/selftests/kselftest/runner.sh) runs a collection:
# "TAP version 13", the plan (one point per test program), each program's
# own TAP nested as "# " comments, then "ok N name" or "not ok N name".
# A program declares its points up front, as kselftest.h's ksft_set_plan:
# it fails if it prints no plan, or more than one, or a plan after its
# first point (a count taken after the fact), or numbers its points other
# than 1..N in order, or if its points do not match its plan (it crashed
# or stopped early, or ran more), or it bails out, or it exits non-zero. The closing lines are a "# Totals:" line over
# the programs and "P passed, F failed" over every test point of every
# program.
set -u
echo "TAP version 13"
echo "1..$#"
n=0 bad=0 pts_pass=0 pts_fail=0 pts_skip=0
out=$(mktemp "${TMPDIR:-/tmp}/fnv-unit.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	n=$((n + 1))
	name=$(basename "$t")
	echo "# selftests: fairnvme/unit: $name"
	./"$t" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	set -- $(awk '
		/^1\.\.[0-9]+([ \t]*#.*)?$/ {
			if (!plans++) plan = substr($0, 4) + 0
			if (p + f + s) late = 1
		}
		/^Bail out!/ { bail = 1 }
		/^(not )?ok [0-9]+/ {
			num = $1 == "not" ? $3 : $2
			if (num + 0 != p + f + s + 1) order = 1
		}
		/^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok [0-9]+/ { p++ }
		/^not ok [0-9]+/ { f++ }
		END {
			printf "%d %d %d %d %d %d %d %d\n", (plan == "" ? -1 : plan),
			       p, f, s, plans + 0, late + 0, bail + 0, order + 0
		}' "$out")
	plan=$1 p=$2 f=$3 s=$4 plans=$5 late=$6 bail=$7 order=$8
	pts_pass=$((pts_pass + p)) pts_fail=$((pts_fail + f)) pts_skip=$((pts_skip + s))
	why=""
	if [ "$bail" -ne 0 ]; then
		why="bailed out (exit $rc)"
		pts_fail=$((pts_fail + 1))
	elif [ "$plan" -lt 0 ]; then
		why="no plan: crashed or killed before it (exit $rc)"
		pts_fail=$((pts_fail + 1))
	elif [ "$plans" -ne 1 ]; then
		why="$plans plans"
		pts_fail=$((pts_fail + 1))
	elif [ "$late" -ne 0 ]; then
		why="the plan after the points, not declared up front"
		pts_fail=$((pts_fail + 1))
	elif [ "$order" -ne 0 ]; then
		why="points not numbered 1..N in order"
		pts_fail=$((pts_fail + 1))
	elif [ "$plan" -ne $((p + f + s)) ]; then
		why="planned $plan points, $((p + f + s)) ran"
		pts_fail=$((pts_fail + 1))
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		why="exit $rc without a failed point"
		pts_fail=$((pts_fail + 1))
	elif [ "$f" -ne 0 ]; then
		why="$f of $plan points failed"
	fi
	if [ -z "$why" ]; then
		echo "ok $n selftests: fairnvme/unit: $name"
	else
		echo "not ok $n selftests: fairnvme/unit: $name # $why"
		bad=$((bad + 1))
	fi
done
echo "# Totals: pass:$((n - bad)) fail:$bad xfail:0 xpass:0 skip:0 error:0"
if [ $pts_skip -gt 0 ]; then
	echo "$pts_pass passed, $pts_fail failed, $pts_skip skipped"
else
	echo "$pts_pass passed, $pts_fail failed"
fi
[ $bad -eq 0 ]
