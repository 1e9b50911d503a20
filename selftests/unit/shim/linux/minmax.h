/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/minmax.h> (see types.h). */
#ifndef FNV_SHIM_MINMAX_H
#define FNV_SHIM_MINMAX_H

#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
		     _a > _b ? _a : _b; })
#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
		     _a < _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	clamp((t)(v), (t)(lo), (t)(hi))
#define max3(a, b, c)		max(max(a, b), c)
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))

#endif
