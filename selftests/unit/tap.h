/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP producer for the fairnvme unit tests, in the output format
 * of the kernel's tools/testing/selftests/kselftest.h: "TAP version 13", the
 * plan, one line per test point ("ok N - desc", "not ok N - desc",
 * "ok N - desc # SKIP reason"), then a "# Totals:" line.
 *
 * The tests are loops over cases whose number is only known once they ran,
 * so the points are collected in memory and printed, plan first, by
 * tap_done(). Diagnostics (tap_diag) and anything a test prints itself go
 * to stdout as they happen, as TAP comments; a test that crashes before
 * tap_done() prints no plan, which the runner (run-tap.sh) reports as a
 * failure.
 */
#ifndef FNV_TAP_H
#define FNV_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_skipped;
static char *tap_buf;
static size_t tap_len, tap_cap;

static inline void tap_vappend(const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		abort();
	if (tap_len + n + 1 > tap_cap) {
		tap_cap = (tap_len + n + 1) * 2;
		tap_buf = realloc(tap_buf, tap_cap);
		if (!tap_buf)
			abort();
	}
	vsnprintf(tap_buf + tap_len, n + 1, fmt, ap);
	tap_len += n;
}

static inline void tap_append(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vappend(fmt, ap);
	va_end(ap);
}

static inline void tap_result(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	tap_append("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	tap_vappend(fmt, ap);
	va_end(ap);
	tap_append("\n");
}

/* A point that could not run: a missing prerequisite, not a failure. */
static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	tap_skipped++;
	tap_append("ok %d - ", tap_n);
	va_start(ap, fmt);
	tap_vappend(fmt, ap);
	va_end(ap);
	tap_append(" # SKIP %s\n", reason);
}

/* A "# ..." comment among the points, in order. */
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	tap_append("# ");
	va_start(ap, fmt);
	tap_vappend(fmt, ap);
	va_end(ap);
	tap_append("\n");
}

/* @got within @tol (relative) of @want */
static inline void tap_near(double got, double want, double tol, const char *what)
{
	int pass = fabs(got - want) <= tol * want;

	tap_result(pass, "%s: %.4f, expected %.4f +-%.1f%%", what, got, want,
		   tol * 100);
}

#define tap_ok(cond, ...) tap_result(!!(cond), __VA_ARGS__)

static inline int tap_done(void)
{
	int passed = tap_n - tap_failed - tap_skipped;

	printf("TAP version 13\n1..%d\n", tap_n);
	if (tap_len)
		fwrite(tap_buf, 1, tap_len, stdout);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       passed, tap_failed, tap_skipped);
	fflush(stdout);
	free(tap_buf);
	return tap_failed ? 1 : 0;
}

#endif
