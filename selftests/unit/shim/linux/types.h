/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal user-space stand-ins for the kernel types the fairnvme policy core
 * uses, so that its sources build unchanged in the unit tests. Written for
 * this project; not a copy of the kernel's headers.
 */
#ifndef FNV_SHIM_TYPES_H
#define FNV_SHIM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;


#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#endif
