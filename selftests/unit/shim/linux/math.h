/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/math.h> (see types.h). */
#ifndef FNV_SHIM_MATH_H
#define FNV_SHIM_MATH_H

#include <linux/types.h>

/* the largest r with r * r <= x, as lib/math/int_sqrt.c */
static inline u32 int_sqrt64(u64 x)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return (u32)r;
}

#endif
