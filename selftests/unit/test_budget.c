// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the budget-cycle share policy (budget.c), in user space.
 * Every fairness test states the expected share and its tolerance.
 */
#include <stdlib.h>
#include <string.h>

#include <fairnvme/budget.h>
#include "tap.h"

#define MAXF 16

struct sim {
	struct fnv_sched s;
	struct fnv_flow f[MAXF];
	u64 cost[MAXF];		/* cost of each request of the flow */
	u64 served[MAXF];	/* cost served */
	int nflows;
};

static void sim_init(struct sim *sm, u64 budget, int nflows,
		     const u32 *weights, const u64 *cost)
{
	int i;

	memset(sm, 0, sizeof(*sm));
	fnv_sched_init(&sm->s, budget);
	sm->nflows = nflows;
	for (i = 0; i < nflows; i++) {
		fnv_flow_init(&sm->f[i], weights[i]);
		sm->cost[i] = cost[i];
		fnv_flow_activate(&sm->s, &sm->f[i]);
	}
}

/* @n dispatches, every flow continuously backlogged. 0 if pick failed. */
static int sim_run(struct sim *sm, long n)
{
	long k;

	for (k = 0; k < n; k++) {
		struct fnv_flow *f = fnv_sched_pick(&sm->s);
		int i;

		if (!f)
			return 0;
		i = (int)(f - sm->f);
		fnv_sched_charge(&sm->s, f, sm->cost[i]);
		sm->served[i] += sm->cost[i];
	}
	return 1;
}

static double sim_share(struct sim *sm, int i)
{
	u64 total = 0;
	int j;

	for (j = 0; j < sm->nflows; j++)
		total += sm->served[j];
	return total ? (double)sm->served[i] / (double)total : 0;
}

static u64 sum_backlogged_weight(struct sim *sm)
{
	u64 w = 0;
	int i;

	for (i = 0; i < sm->nflows; i++)
		if (sm->f[i].backlogged)
			w += sm->f[i].weight;
	return w;
}

static void test_empty(void)
{
	struct fnv_sched s;

	fnv_sched_init(&s, 1 << 20);
	tap_ok(fnv_sched_pick(&s) == NULL, "pick with nothing backlogged is NULL");
}

static void test_two_weights(void)
{
	static const u32 w[] = { 100, 300 };
	static const u64 c[] = { 8192, 8192 };
	struct sim sm;

	sim_init(&sm, 2 << 20, 2, w, c);
	tap_ok(sim_run(&sm, 200000), "100:300 always picks a flow");
	tap_near(sim_share(&sm, 0), 0.25, 0.01, "100:300 share of weight 100");
	tap_near(sim_share(&sm, 1), 0.75, 0.01, "100:300 share of weight 300");

	sim_init(&sm, 2 << 20, 2, (const u32[]){ 100, 100 }, c);
	sim_run(&sm, 200000);
	tap_near(sim_share(&sm, 0), 0.5, 0.01, "100:100 share of first flow");
}

static void test_four_weights(void)
{
	static const u32 w[] = { 800, 600, 400, 200 };
	static const u64 c[] = { 8192, 8192, 8192, 8192 };
	static const double want[] = { 0.4, 0.3, 0.2, 0.1 };
	struct sim sm;
	char what[64];
	int i;

	sim_init(&sm, 2 << 20, 4, w, c);
	sim_run(&sm, 400000);
	for (i = 0; i < 4; i++) {
		snprintf(what, sizeof(what), "800:600:400:200 share of %u", w[i]);
		tap_near(sim_share(&sm, i), want[i], 0.01, what);
	}
}

static void test_mixed_sizes(void)
{
	/* 4 KiB vs 256 KiB requests (plus 4 KiB per-request charge) */
	static const u32 w[] = { 100, 100 };
	static const u64 c[] = { 8192, 266240 };
	struct sim sm;

	sim_init(&sm, 2 << 20, 2, w, c);
	sim_run(&sm, 200000);
	tap_near(sim_share(&sm, 0), 0.5, 0.02,
		 "equal weights, 8 KiB vs 260 KiB cost: cost share");
}

static void test_extreme_weights(void)
{
	static const u32 w[] = { 1, 10000 };
	static const u64 c[] = { 8192, 8192 };
	struct sim sm;

	/* quantum of weight 1 is ~210 bytes: it must wait ~40 cycles */
	sim_init(&sm, 2 << 20, 2, w, c);
	tap_ok(sim_run(&sm, 2000000), "1:10000 always picks a flow");
	tap_near(sim_share(&sm, 0), 1.0 / 10001, 0.10, "1:10000 share of weight 1");
}

static void test_single_flow(void)
{
	static const u32 w[] = { 1 };
	static const u64 c[] = { 1 << 20 };
	struct sim sm;
	u32 cycle0;

	sim_init(&sm, 64 << 10, 1, w, c);
	cycle0 = sm.s.cycle;
	tap_ok(sim_run(&sm, 1000) && sm.served[0] == 1000ULL << 20,
	       "a lone flow with requests larger than the budget is always served");
	tap_ok(sm.s.cycle > cycle0, "budget refilled: cycle %u -> %u", cycle0,
	       sm.s.cycle);
}

/* A lone flow with huge requests must not starve a newcomer later. */
static void test_debt_bounded(void)
{
	static const u32 w[] = { 100, 100 };
	static const u64 c[] = { 4 << 20, 4 << 20 };
	struct sim sm;

	sim_init(&sm, 64 << 10, 2, w, c);
	fnv_flow_deactivate(&sm.s, &sm.f[1]);
	sim_run(&sm, 10000);
	tap_ok(sm.f[0].budget >= -(s64)((64 << 10) + (4 << 20)),
	       "debt of a lone flow stays bounded: %lld",
	       (long long)sm.f[0].budget);
	fnv_flow_activate(&sm.s, &sm.f[1]);
	sm.served[0] = 0;
	sm.served[1] = 0;
	sim_run(&sm, 1000);
	tap_near(sim_share(&sm, 1), 0.5, 0.05,
		 "newcomer after a lone debtor: share over the next 1000");
}

/* A cycle ends only when every backlogged flow has spent its budget. */
static void test_refill_when_all_spent(void)
{
	static const u32 w[] = { 100, 200, 300 };
	static const u64 c[] = { 4096, 8192, 12288 };
	struct sim sm;
	int k, i, bad = 0, cycles = 0;

	sim_init(&sm, 256 << 10, 3, w, c);
	for (k = 0; k < 100000; k++) {
		u32 before = sm.s.cycle;
		int all_spent = 1;
		struct fnv_flow *f;

		for (i = 0; i < 3; i++)
			if (sm.f[i].cycle == before && sm.f[i].budget > 0)
				all_spent = 0;
		f = fnv_sched_pick(&sm.s);
		if (sm.s.cycle != before) {
			cycles++;
			if (!all_spent)
				bad++;
		}
		i = (int)(f - sm.f);
		fnv_sched_charge(&sm.s, f, sm.cost[i]);
	}
	tap_ok(cycles > 100 && bad == 0,
	       "refill only when all spent: %d cycles, %d early", cycles, bad);
}

/* Random arrivals and departures: invariants and work conservation. */
static void test_churn(void)
{
	static const u32 w[MAXF] = { 1, 2, 50, 100, 100, 300, 800, 1000,
				     5000, 10000, 7, 9, 100, 250, 400, 600 };
	static const u64 c[MAXF] = { 0 };
	struct sim sm;
	int k, bad_pick = 0, bad_weight = 0;

	sim_init(&sm, 1 << 20, MAXF, w, c);
	for (k = 0; k < MAXF; k++)
		fnv_flow_deactivate(&sm.s, &sm.f[k]);
	srandom(42);
	for (k = 0; k < 1000000; k++) {
		int i = (int)(random() % MAXF);
		struct fnv_flow *f;

		switch (random() % 3) {
		case 0:
			fnv_flow_activate(&sm.s, &sm.f[i]);
			break;
		case 1:
			fnv_flow_deactivate(&sm.s, &sm.f[i]);
			break;
		default:
			f = fnv_sched_pick(&sm.s);
			if (!f != !sm.s.nr_backlogged || (f && !f->backlogged))
				bad_pick++;
			if (f)
				fnv_sched_charge(&sm.s, f,
						 512 + (u64)(random() % (1 << 20)));
			break;
		}
		if (sum_backlogged_weight(&sm) != sm.s.backlog_weight)
			bad_weight++;
	}
	tap_ok(!bad_pick, "churn: pick returns a backlogged flow iff one exists (%d bad)",
	       bad_pick);
	tap_ok(!bad_weight, "churn: backlog weight stays the sum of backlogged weights (%d bad)",
	       bad_weight);
}

static void test_return_same_cycle(void)
{
	static const u32 w[] = { 100, 100 };
	static const u64 c[] = { 4096, 4096 };
	struct sim sm;
	struct fnv_flow *f;
	s64 left;

	sim_init(&sm, 1 << 20, 2, w, c);
	f = fnv_sched_pick(&sm.s);
	fnv_sched_charge(&sm.s, f, 4096);
	left = f->budget;
	fnv_flow_deactivate(&sm.s, f);
	fnv_flow_activate(&sm.s, f);
	tap_ok(f->budget == left && left > 0 && f->cycle == sm.s.cycle,
	       "a flow back within its cycle keeps its budget (%lld)",
	       (long long)left);
}

static void test_no_hoarding(void)
{
	static const u32 w[] = { 100, 100 };
	static const u64 c[] = { 4096, 4096 };
	struct sim sm;
	u64 quantum;

	sim_init(&sm, 1 << 20, 2, w, c);
	/* flow 0 is served once, then idles while flow 1 runs many cycles */
	sim_run(&sm, 1);
	fnv_flow_deactivate(&sm.s, &sm.f[0]);
	sm.f[1].backlogged = true;
	sim_run(&sm, 10000);
	fnv_flow_activate(&sm.s, &sm.f[0]);
	/* the next pick that reaches flow 0 refills it */
	while (fnv_sched_pick(&sm.s) != &sm.f[0])
		fnv_sched_charge(&sm.s, &sm.f[1], 4096);
	quantum = fnv_flow_quantum(&sm.s, &sm.f[0]);
	tap_ok(sm.f[0].budget <= (s64)quantum,
	       "an idle flow does not hoard budget: %lld <= quantum %llu",
	       (long long)sm.f[0].budget, (unsigned long long)quantum);
}

static void test_weight_change(void)
{
	static const u32 w[] = { 100, 100 };
	static const u64 c[] = { 8192, 8192 };
	struct sim sm;

	sim_init(&sm, 2 << 20, 2, w, c);
	sim_run(&sm, 10000);
	WRITE_ONCE(sm.f[1].new_weight, 300);
	sim_run(&sm, 1000);	/* one cycle to pick it up */
	sm.served[0] = 0;
	sm.served[1] = 0;
	sim_run(&sm, 200000);
	tap_near(sim_share(&sm, 1), 0.75, 0.01,
		 "weight 100 -> 300 while backlogged: new share");
	tap_ok(sm.s.backlog_weight == 400, "backlog weight follows: %llu",
	       (unsigned long long)sm.s.backlog_weight);
}

static void test_quantum_arith(void)
{
	struct fnv_sched s;
	struct fnv_flow a, b;

	fnv_sched_init(&s, 1ULL << 30);
	fnv_flow_init(&a, 10000);
	fnv_flow_init(&b, 1);
	tap_ok(fnv_flow_quantum(&s, &a) == 1ULL << 30,
	       "quantum with no backlog is the whole budget");
	fnv_flow_activate(&s, &a);
	fnv_flow_activate(&s, &b);
	tap_ok(fnv_flow_quantum(&s, &a) == (1ULL << 30) * 10000 / 10001,
	       "quantum at max budget and weight does not overflow: %llu",
	       (unsigned long long)fnv_flow_quantum(&s, &a));
	fnv_sched_init(&s, 1);
	fnv_flow_init(&a, 1);
	fnv_flow_init(&b, 10000);
	fnv_flow_activate(&s, &a);
	fnv_flow_activate(&s, &b);
	tap_ok(fnv_flow_quantum(&s, &a) == 1, "quantum is never 0");
	fnv_sched_init(&s, 0);
	tap_ok(s.cycle_budget == 1, "zero budget is raised to 1");
	tap_ok(fnv_weight_clamp(0) == 1 && fnv_weight_clamp(20000) == 10000 &&
	       fnv_weight_clamp(500) == 500, "weights clamp to 1..10000");
}

static void test_vtime(void)
{
	struct fnv_sched s;
	struct fnv_flow a, b;

	fnv_sched_init(&s, 1 << 20);
	fnv_flow_init(&a, 100);
	fnv_flow_init(&b, 400);
	fnv_flow_activate(&s, &a);
	fnv_flow_activate(&s, &b);
	fnv_sched_charge(&s, &a, 8192);
	fnv_sched_charge(&s, &b, 8192);
	tap_ok(a.vtime == 8192 && b.vtime == 2048,
	       "vtime advances by cost * 100 / weight (%llu, %llu)",
	       (unsigned long long)a.vtime, (unsigned long long)b.vtime);
}

int main(void)
{
	test_empty();
	test_two_weights();
	test_four_weights();
	test_mixed_sizes();
	test_extreme_weights();
	test_single_flow();
	test_debt_bounded();
	test_refill_when_all_spent();
	test_churn();
	test_return_same_cycle();
	test_no_hoarding();
	test_weight_change();
	test_quantum_arith();
	test_vtime();
	return tap_done();
}
