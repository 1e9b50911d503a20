/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the 64-bit atomics of <linux/atomic.h> (see
 * types.h), on the compiler's __atomic builtins: sequentially consistent,
 * which is at least as strong as the kernel's fully ordered operations.
 */
#ifndef FNV_SHIM_ATOMIC_H
#define FNV_SHIM_ATOMIC_H

#include <linux/types.h>

typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline s64 atomic64_add_return(s64 i, atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline s64 atomic64_cmpxchg(atomic64_t *v, s64 old, s64 new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}

#endif
