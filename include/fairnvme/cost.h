/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: the device time a request costs, learned online (policy core).
 *
 * Free of blk-mq types: the kernel feeds it, once per control period, each
 * tenant's sampled completions per type (count, sectors, service time) and
 * charges what it returns; the user-space unit tests feed it synthetic
 * devices.
 */
#ifndef _FAIRNVME_COST_H
#define _FAIRNVME_COST_H

#include <linux/types.h>

#define FNV_CM_READ		0
#define FNV_CM_WRITE		1
#define FNV_CM_TYPES		2
/* Charged coefficients are in 1/2^FNV_CM_SHIFT of a sector of a read */
#define FNV_CM_SHIFT		16
/* The unit: a 4 KiB read costs what its 8 sectors would under bytes. */
#define FNV_CM_REF_SECT		8
/* Samples of a type before its fit is used */
#define FNV_CM_MIN_NR		16
/* ns: the most a mean service time counts for */
#define FNV_CM_SVC_MAX		100000000ULL
/* Sums lose 1/2^FNV_CM_DECAY_SHIFT per period: half-life 2.4 periods */
#define FNV_CM_DECAY_SHIFT	2

/* Decayed sums of one type's samples (per-tenant means as points). */
#define FNV_CM_N_SHIFT		8
struct fnv_cm_sums {
	u64 n;			/* samples, in 1/2^FNV_CM_N_SHIFT */
	u64 sx;			/* sectors */
	u64 sy;			/* service time, ns */
	u64 sxy;		/* sectors * mean service time of its tenant */
	u64 sxx;		/* sectors * mean sectors of its tenant */
};

struct fnv_cm {
	struct fnv_cm_sums s[FNV_CM_TYPES];
	/* the fit: ns per command, and ns per sector in 1/2^16 */
	u64 cmd_ns[FNV_CM_TYPES];
	u64 sect_ns16[FNV_CM_TYPES];
	bool known[FNV_CM_TYPES];	/* fitted once: the fit holds */
	/* what a request is charged, in 1/2^FNV_CM_SHIFT sectors */
	u32 c_cmd[FNV_CM_TYPES];
	u32 c_sect[FNV_CM_TYPES];
};

/* Nothing learned: a request costs its sectors (the bytes model). */
void fnv_cm_init(struct fnv_cm *m);
/* One tenant's period: @n sampled completions of type @t. */
void fnv_cm_add(struct fnv_cm *m, int t, u64 n, u64 sect, u64 svc_ns);
/* End of a period: fit each type, set c_cmd and c_sect, decay the sums. */
void fnv_cm_update(struct fnv_cm *m);
/*
 * The device time, in ns, of a request of type @t and @sect sectors by the
 * fit: the other type's while @t has none, 0 while neither is known.
 * Budget cycles (wrr_mode=off) charge this.
 */
static inline u64 fnv_cm_time_ns(const struct fnv_cm *m, int t, u64 sect)
{
	if (!m->known[t])
		t = !t;
	if (!m->known[t])
		return 0;
	return m->cmd_ns[t] + ((m->sect_ns16[t] * sect) >> 16);
}

/* What a request of @sect sectors costs, in sectors of a 4 KiB read's. */
static inline u64 fnv_cm_charge(u32 c_cmd, u32 c_sect, u64 sect)
{
	u64 c = ((u64)c_cmd + (u64)c_sect * sect +
		 (1ULL << (FNV_CM_SHIFT - 1))) >> FNV_CM_SHIFT;

	return c ? c : 1;
}

#endif /* _FAIRNVME_COST_H */
