/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: budget-cycle proportional share (policy core).
 *
 * This header and budget.c are free of blk-mq types: the same source builds
 * into the kernel module and into the user-space unit tests under
 * selftests/unit (which provide their own minimal <linux/...> headers).
 */
#ifndef _FAIRNVME_BUDGET_H
#define _FAIRNVME_BUDGET_H

#include <linux/types.h>
#include <linux/list.h>

/* Configured weights (io.fairnvme.weight) */
#define FNV_WEIGHT_MIN		1U
#define FNV_WEIGHT_MAX		10000U
#define FNV_WEIGHT_DEFAULT	100U
/*
 * Scheduling weights: the configured weight as the controller adjusted it
 * (up to 4x) or budget compensation rescaled it; only ratios matter.
 */
#define FNV_SCHED_WEIGHT_MAX	1048576U

/*
 * Upper bound on the flows fnv_sched_pick() may skip in one call. Skipping
 * only happens when a flow's per-cycle quantum is smaller than the debt its
 * last request left; when the bound is hit the head flow is served anyway and
 * its debt carries over, so long-run shares are preserved and a pick stays
 * O(1).
 */
#define FNV_PICK_MAX_SKIP	8

/* One tenant (cgroup) on one device, as seen by the share policy. */
struct fnv_flow {
	struct list_head node;	/* on fnv_sched.active or .expired */
	struct list_head wnode;	/* on fnv_sched.waiting */
	s64 budget;		/* cost left in @cycle; negative = debt */
	u64 vtime;		/* service received, cost units at weight 100 */
	u32 weight;		/* weight of the current cycle */
	u32 new_weight;		/* scheduling weight to use from next refill */
	u32 cycle;		/* cycle whose quantum @budget holds */
	bool backlogged;	/* on one of the two lists */
};

/* Per-device share state; the caller serialises all calls on it. */
struct fnv_sched {
	struct list_head active;	/* backlogged, budget left this cycle */
	struct list_head expired;	/* backlogged, waiting for next cycle */
	struct list_head waiting;	/* not backlogged, budget left, busy */
	/*
	 * Optional: does @f, which has no queued request, still have I/O in
	 * flight (or did it within a grace period)? Such a flow will very
	 * likely send more soon; the cycle is kept open for it.
	 */
	bool (*busy)(struct fnv_sched *s, struct fnv_flow *f);
	/* Pin (@pin) or unpin the memory of @f while it is on .waiting. */
	void (*pin)(struct fnv_sched *s, struct fnv_flow *f, bool pin);
	/* Optional: @f was given its quantum for a new cycle. */
	void (*refilled)(struct fnv_sched *s, struct fnv_flow *f);
	u64 cycle_budget;		/* B_total: cost handed out per cycle */
	u64 cycle_weight;		/* weight the quanta of this cycle share */
	u64 next_weight;		/* weight of the flows refilled so far */
	u64 backlog_weight;		/* weight of the backlogged flows */
	u32 nr_backlogged;
	u32 cycle;			/* advanced when all budgets are spent */
};

void fnv_sched_init(struct fnv_sched *s, u64 cycle_budget);
void fnv_flow_init(struct fnv_flow *f, u32 weight);
u32 fnv_sched_weight_clamp(u32 weight);

/* @f got its first queued request. */
void fnv_flow_activate(struct fnv_sched *s, struct fnv_flow *f);
/* @f has no queued request left. */
void fnv_flow_deactivate(struct fnv_sched *s, struct fnv_flow *f);
/* Empty the waiting list (teardown). */
void fnv_sched_drain(struct fnv_sched *s);
/* The backlogged flow to serve next, or NULL when none is backlogged. */
struct fnv_flow *fnv_sched_pick(struct fnv_sched *s);
/*
 * Charge @cost for a request of @f that is being dispatched. A backlogged
 * flow is then rotated: to the tail of the active list while it has budget,
 * to the expired list once it has spent it.
 */
void fnv_sched_charge(struct fnv_sched *s, struct fnv_flow *f, u64 cost);
/* Quantum of a flow of @weight in a cycle shared by @cycle_weight. */
u64 fnv_sched_quantum(u64 cycle_budget, u32 weight, u64 cycle_weight);

#endif /* _FAIRNVME_BUDGET_H */
