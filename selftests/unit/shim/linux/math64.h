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

#endif
