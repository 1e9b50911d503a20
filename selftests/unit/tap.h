/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP producer for the fairnvme unit tests, in the output format
 * of the kernel's tools/testing/selftests/kselftest.h: "TAP version 13" and
 * the plan first (ksft_print_header, ksft_set_plan), one line per test
 * point ("ok N - desc", "not ok N - desc", "ok N - desc # SKIP reason"),
 * then a "# Totals:" line.
 *
 * A test declares its number of points up front, tap_plan(N) at the start
 * of main, before any point; N is counted from the test's code (a loop's
 * points from its bounds), never from a run. Points and diagnostics
 * (tap_diag) are printed as they happen, line-buffered, so a test that
 * crashes leaves the plan and the points it got to: the runner
 * (run-tap.sh) sees fewer points than planned and fails it. tap_done()
 * fails a test (exit status 1, "# Planned N tests but ran M") whose points
 * do not match its plan.
 */
#ifndef FNV_TAP_H
#define FNV_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int tap_planned = -1, tap_n, tap_failed, tap_skipped;

/* "Bail out!": a broken test program, not a failed point */
static inline void tap_bail(const char *why)
{
	printf("Bail out! %s\n", why);
	fflush(stdout);
	exit(1);
}

/* The header and the plan: @n points follow. Once, before any point. */
static inline void tap_plan(int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap_planned >= 0 || tap_n)
		tap_bail("the plan after the plan or a point");
	if (n < 0)
		tap_bail("a plan of a negative number of points");
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
}

static inline void tap_point(void)
{
	if (tap_planned < 0)
		tap_bail("a test point before the plan");
	tap_n++;
}

static inline void tap_result(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_point();
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A point that could not run: a missing prerequisite, not a failure. */
static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	tap_point();
	tap_skipped++;
	printf("ok %d - ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
}

/* A "# ..." comment among the points, in order. */
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* @got within @tol (relative) of @want */
static inline void tap_near(double got, double want, double tol, const char *what)
{
	int pass = fabs(got - want) <= tol * want;

	tap_result(pass, "%s: %.4f, expected %.4f +-%.1f%%", what, got, want,
		   tol * 100);
}

#define tap_ok(cond, ...) tap_result(!!(cond), __VA_ARGS__)

/* The totals; the exit status: 1 if a point failed or the plan was not kept */
static inline int tap_done(void)
{
	int passed = tap_n - tap_failed - tap_skipped;
	int kept = tap_planned == tap_n;

	if (tap_planned < 0)
		tap_bail("the end without a plan");
	if (!kept)
		printf("# Planned %d tests but ran %d\n", tap_planned, tap_n);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:%d\n",
	       passed, tap_failed, tap_skipped, !kept);
	fflush(stdout);
	return tap_failed || !kept ? 1 : 0;
}

#endif
