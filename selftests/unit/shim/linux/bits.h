/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/bits.h>: what the cores use. */
#ifndef _FNV_SHIM_BITS_H
#define _FNV_SHIM_BITS_H

#define BIT_ULL(nr)	(1ULL << (nr))

#endif
