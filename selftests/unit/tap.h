/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP producer for the fairnvme unit tests. */
#ifndef FNV_TAP_H
#define FNV_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static void tap_result(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* @got within @tol (relative) of @want */
static void tap_near(double got, double want, double tol, const char *what)
{
	int pass = fabs(got - want) <= tol * want;

	tap_result(pass, "%s: %.4f, expected %.4f +-%.1f%%", what, got, want,
		   tol * 100);
}

#define tap_ok(cond, ...) tap_result(!!(cond), __VA_ARGS__)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("%d passed, %d failed\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
