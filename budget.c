// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: budget-cycle proportional share between tenants.
 *
 * Every backlogged tenant (flow) sits on one of two lists. A cycle hands out
 * cycle_budget cost units in proportion to the weights of the backlogged
 * flows: a flow is given its quantum, cycle_budget * w / W, lazily, when it
 * first reaches the head of the active list in a cycle. Dispatch serves the
 * head of the active list one request at a time and charges the request's
 * cost; a flow that still has budget rotates to the tail of the active list
 * (requests of different tenants interleave), a flow that spent its budget
 * moves to the expired list. When the active list is empty, every backlogged
 * flow has spent its budget: the lists swap and a new cycle begins. Nothing
 * waits while a flow has work (work conserving), each call is O(1), and a
 * debt (budget below zero) carries into the next cycle, so the share of each
 * continuously backlogged flow converges to w / W whatever its request sizes.
 *
 * This is deficit round robin (Shreedhar and Varghese, 1996) with quanta
 * normalised to the backlogged weight, which is also the time budget model of
 * FairNVMe (budgets refilled once every backlogged tenant has spent its own).
 */
#include <linux/math64.h>
#include <fairnvme/budget.h>

u32 fnv_weight_clamp(u32 weight)
{
	if (weight < FNV_WEIGHT_MIN)
		return FNV_WEIGHT_MIN;
	if (weight > FNV_WEIGHT_MAX)
		return FNV_WEIGHT_MAX;
	return weight;
}

void fnv_sched_init(struct fnv_sched *s, u64 cycle_budget)
{
	INIT_LIST_HEAD(&s->active);
	INIT_LIST_HEAD(&s->expired);
	s->backlog_weight = 0;
	s->nr_backlogged = 0;
	s->cycle_budget = cycle_budget ? cycle_budget : 1;
	s->cycle = 1;
}

void fnv_flow_init(struct fnv_flow *f, u32 weight)
{
	INIT_LIST_HEAD(&f->node);
	f->budget = 0;
	f->vtime = 0;
	f->weight = fnv_weight_clamp(weight);
	f->new_weight = f->weight;
	f->cycle = 0;
	f->backlogged = false;
}

u64 fnv_flow_quantum(const struct fnv_sched *s, const struct fnv_flow *f)
{
	u64 q;

	if (!s->backlog_weight || f->weight >= s->backlog_weight)
		return s->cycle_budget;
	/* cycle_budget <= 2^40 and weight <= 10^4: no overflow */
	q = div64_u64(s->cycle_budget * f->weight, s->backlog_weight);
	return q ? q : 1;
}

/* Give @f its quantum for the current cycle, picking up a new weight. */
static void fnv_flow_refill(struct fnv_sched *s, struct fnv_flow *f)
{
	u32 w = fnv_weight_clamp(READ_ONCE(f->new_weight));

	if (w != f->weight) {
		s->backlog_weight = s->backlog_weight - f->weight + w;
		f->weight = w;
	}
	/* Unspent budget does not carry over: no hoarding across cycles. */
	if (f->budget > 0)
		f->budget = 0;
	f->budget += fnv_flow_quantum(s, f);
	f->cycle = s->cycle;
}

void fnv_flow_activate(struct fnv_sched *s, struct fnv_flow *f)
{
	if (f->backlogged)
		return;
	f->backlogged = true;
	f->weight = fnv_weight_clamp(READ_ONCE(f->new_weight));
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
		list_add_tail(&f->node, &s->active);
}

void fnv_flow_deactivate(struct fnv_sched *s, struct fnv_flow *f)
{
	if (!f->backlogged)
		return;
	list_del_init(&f->node);
	f->backlogged = false;
	s->backlog_weight -= f->weight;
	s->nr_backlogged--;
}

struct fnv_flow *fnv_sched_pick(struct fnv_sched *s)
{
	struct fnv_flow *f;
	unsigned int skipped = 0;

	for (;;) {
		if (list_empty(&s->active)) {
			if (list_empty(&s->expired))
				return NULL;
			list_splice_init(&s->expired, &s->active);
			s->cycle++;
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
