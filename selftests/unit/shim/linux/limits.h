/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/limits.h>: the kernel's type limits. */
#ifndef _FNV_SHIM_LIMITS_H
#define _FNV_SHIM_LIMITS_H

#include <stdint.h>

#define U64_MAX			UINT64_MAX
#define U32_MAX			UINT32_MAX

#endif
