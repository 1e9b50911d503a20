/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/math64.h> (see types.h). */
#ifndef FNV_SHIM_MATH64_H
#define FNV_SHIM_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

/* as x86's divq: a zero divisor or a quotient past 64 bits is a fault */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	unsigned __int128 q;

	if (!c)
		__builtin_trap();
	q = (unsigned __int128)a * b / c;
	if (q >> 64)
		__builtin_trap();
	return (u64)q;
}

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#endif
