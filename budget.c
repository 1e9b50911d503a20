// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: budget-cycle proportional share between tenants.
 *
 * Every backlogged tenant (flow) sits on one of two lists. A cycle hands out
 * cycle_budget cost units in proportion to weights: a flow is given its
 * quantum, cycle_budget * w / W, lazily, when it first reaches the head of
 * the active list in a cycle. Dispatch serves the head of the active list one
 * request at a time and charges the request's cost; a flow that still has
 * budget rotates to the tail of the active list (requests of different
 * tenants interleave), a flow that spent its budget moves to the expired
 * list. When the active list is empty, every backlogged flow has spent its
 * budget: the lists swap and a new cycle begins. Nothing waits while a flow
 * has work (work conserving), each call is O(1), and a debt (budget below
 * zero) carries into the next cycle, so the share of each continuously
 * backlogged flow converges to w / W whatever its request sizes.
 *
 * A flow whose queue runs empty while its budget is not spent usually has
 * requests in flight and resubmits as they complete (deceptive idleness, as
 * D2FQ calls it). Starting a new cycle then would forfeit its budget and cap
 * its share far below its weight. While such a flow is busy (the caller
 * decides: requests in flight, or a completion within a grace period), the
 * cycle stays open and the expired flows are served on credit: they go into
 * debt, which the next cycle's quantum pays back. The device never idles.
 *
 * W is the summed weight of the flows refilled in the previous cycle, plus
 * that of flows refilled in this one that were not, and at least the weight
 * of the flows backlogged now. It is deliberately not just the latter: a
 * tenant with a few requests in flight empties its queue between completions
 * and submissions many times a cycle, and it must not lose its share, nor
 * hand others a whole cycle's budget, each time it does.
 *
 * This is deficit round robin (Shreedhar and Varghese, 1996) with quanta
 * normalised to the active weight, which is also the time budget model of
 * FairNVMe (budgets refilled once every backlogged tenant has spent its own).
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <fairnvme/budget.h>

u32 fnv_sched_weight_clamp(u32 weight)
{
	if (weight < FNV_WEIGHT_MIN)
		return FNV_WEIGHT_MIN;
	if (weight > FNV_SCHED_WEIGHT_MAX)
		return FNV_SCHED_WEIGHT_MAX;
	return weight;
}

void fnv_sched_init(struct fnv_sched *s, u64 cycle_budget)
{
	INIT_LIST_HEAD(&s->active);
	INIT_LIST_HEAD(&s->expired);
	INIT_LIST_HEAD(&s->waiting);
	s->busy = NULL;
	s->pin = NULL;
	s->refilled = NULL;
	s->cycle_budget = cycle_budget ? cycle_budget : 1;
	s->cycle_weight = 0;
	s->next_weight = 0;
	s->backlog_weight = 0;
	s->nr_backlogged = 0;
	s->cycle = 1;
}

void fnv_flow_init(struct fnv_flow *f, u32 weight)
{
	INIT_LIST_HEAD(&f->node);
	INIT_LIST_HEAD(&f->wnode);
	f->budget = 0;
	f->vtime = 0;
	f->weight = fnv_sched_weight_clamp(weight);
	f->new_weight = f->weight;
	f->cycle = 0;
	f->backlogged = false;
}

u64 fnv_sched_quantum(u64 cycle_budget, u32 weight, u64 cycle_weight)
{
	u64 q;

	if (weight >= cycle_weight)
		return cycle_budget;
	/* cycle_budget <= 2^40 and weight <= 2^20: no overflow */
	q = div64_u64(cycle_budget * weight, cycle_weight);
	return q ? q : 1;
}

/* Give @f its quantum for the current cycle, picking up a new weight. */
static void fnv_flow_refill(struct fnv_sched *s, struct fnv_flow *f)
{
	u32 w = fnv_sched_weight_clamp(READ_ONCE(f->new_weight));

	if (w != f->weight) {
		s->backlog_weight = s->backlog_weight - f->weight + w;
		f->weight = w;
	}
	/* Not refilled last cycle: not yet in this cycle's weight. */
	if (f->cycle + 1 != s->cycle)
		s->cycle_weight += w;
	s->next_weight += w;
	/* Unspent budget does not carry over: no hoarding across cycles. */
	if (f->budget > 0)
		f->budget = 0;
	f->budget += fnv_sched_quantum(s->cycle_budget, w,
				 max(s->cycle_weight, s->backlog_weight));
	f->cycle = s->cycle;
	if (s->refilled)
		s->refilled(s, f);
}

static void fnv_unwait(struct fnv_sched *s, struct fnv_flow *f)
{
	if (list_empty(&f->wnode))
		return;
	list_del_init(&f->wnode);
	if (s->pin)
		s->pin(s, f, false);
}

void fnv_sched_drain(struct fnv_sched *s)
{
	while (!list_empty(&s->waiting))
		fnv_unwait(s, list_first_entry(&s->waiting, struct fnv_flow,
					       wnode));
}

void fnv_flow_activate(struct fnv_sched *s, struct fnv_flow *f)
{
	if (f->backlogged)
		return;
	f->backlogged = true;
	fnv_unwait(s, f);
	s->backlog_weight += f->weight;
	s->nr_backlogged++;
	/*
	 * A flow that comes back within the cycle in which it was refilled
	 * keeps what is left of its budget (a tenant with one request in
	 * flight goes idle after every dispatch); one that spent it waits for
	 * the next cycle like every other flow.
	 */
	if (f->cycle == s->cycle && f->budget <= 0)
		list_add_tail(&f->node, &s->expired);
	else
		list_add(&f->node, &s->active);
}

void fnv_flow_deactivate(struct fnv_sched *s, struct fnv_flow *f)
{
	if (!f->backlogged)
		return;
	list_del_init(&f->node);
	f->backlogged = false;
	s->backlog_weight -= f->weight;
	/*
	 * With nothing backlogged there is nobody to serve on credit: forget
	 * the waiting flows rather than pin them while the device idles.
	 */
	if (!--s->nr_backlogged) {
		fnv_sched_drain(s);
		return;
	}
	if (s->busy && f->cycle == s->cycle && f->budget > 0) {
		if (list_empty(&f->wnode) && s->pin)
			s->pin(s, f, true);
		list_move_tail(&f->wnode, &s->waiting);
	}
}

/*
 * Is a flow with budget left in this cycle about to come back? Entries that
 * no longer qualify are dropped here, once each: amortised O(1).
 */
static bool fnv_sched_wait(struct fnv_sched *s)
{
	while (!list_empty(&s->waiting)) {
		struct fnv_flow *f;

		f = list_first_entry(&s->waiting, struct fnv_flow, wnode);
		if (!f->backlogged && f->cycle == s->cycle && f->budget > 0 &&
		    s->busy(s, f))
			return true;
		fnv_unwait(s, f);
	}
	return false;
}

struct fnv_flow *fnv_sched_pick(struct fnv_sched *s)
{
	struct fnv_flow *f;
	unsigned int skipped = 0;

	for (;;) {
		if (list_empty(&s->active)) {
			if (list_empty(&s->expired))
				return NULL;
			/* serve on credit, rotating through the expired */
			if (fnv_sched_wait(s))
				return list_first_entry(&s->expired,
							struct fnv_flow, node);
			list_splice_init(&s->expired, &s->active);
			s->cycle++;
			s->cycle_weight = s->next_weight;
			s->next_weight = 0;
		}
		f = list_first_entry(&s->active, struct fnv_flow, node);
		if (f->cycle != s->cycle)
			fnv_flow_refill(s, f);
		if (f->budget > 0 || skipped >= FNV_PICK_MAX_SKIP)
			return f;
		list_move_tail(&f->node, &s->expired);
		skipped++;
	}
}

void fnv_sched_charge(struct fnv_sched *s, struct fnv_flow *f, u64 cost)
{
	s64 floor = -(s64)(s->cycle_budget + cost);

	/*
	 * A flow served past FNV_PICK_MAX_SKIP (its requests cost far more
	 * than its quantum) would pile up debt without bound and later be
	 * starved by it; one cycle plus one request is all it may owe.
	 */
	f->budget -= (s64)cost;
	if (f->budget < floor)
		f->budget = floor;
	f->vtime += div64_u64(cost * FNV_WEIGHT_DEFAULT, f->weight);
	/* A flow not yet refilled in this cycle keeps its place. */
	if (!f->backlogged || f->cycle != s->cycle)
		return;
	if (f->budget > 0)
		list_move_tail(&f->node, &s->active);
	else
		list_move_tail(&f->node, &s->expired);
}
