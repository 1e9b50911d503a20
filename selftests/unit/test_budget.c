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

/* test_four_weights' flows: one point each */
static const u32 four_w[] = { 800, 600, 400, 200 };

static void test_four_weights(void)
{
	static const u64 c[TAP_ARRAY_SIZE(four_w)] = { 8192, 8192, 8192, 8192 };
	static const double want[TAP_ARRAY_SIZE(four_w)] = { 0.4, 0.3, 0.2, 0.1 };
	struct sim sm;
	char what[64];
	int i;

	sim_init(&sm, 2 << 20, TAP_ARRAY_SIZE(four_w), four_w, c);
	sim_run(&sm, 400000);
	for (i = 0; i < (int)TAP_ARRAY_SIZE(four_w); i++) {
		snprintf(what, sizeof(what), "800:600:400:200 share of %u", four_w[i]);
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

static int churn_pins;

static bool churn_busy(struct fnv_sched *s, struct fnv_flow *f)
{
	(void)s;
	(void)f;
	return random() % 4 != 0;
}

static void churn_pin(struct fnv_sched *s, struct fnv_flow *f, bool pin)
{
	(void)s;
	(void)f;
	churn_pins += pin ? 1 : -1;
}

static int list_len(struct list_head *h)
{
	struct list_head *p;
	int n = 0;

	list_for_each(p, h)
		n++;
	return n;
}

/* Random arrivals and departures: invariants and work conservation. */
static void test_churn(void)
{
	static const u32 w[MAXF] = { 1, 2, 50, 100, 100, 300, 800, 1000,
				     5000, 10000, 7, 9, 100, 250, 400, 600 };
	static const u64 c[MAXF] = { 0 };
	struct sim sm;
	int k, bad_pick = 0, bad_budget = 0, bad_weight = 0, bad_pins = 0;

	sim_init(&sm, 1 << 20, MAXF, w, c);
	for (k = 0; k < MAXF; k++)
		fnv_flow_deactivate(&sm.s, &sm.f[k]);
	sm.s.busy = churn_busy;
	sm.s.pin = churn_pin;
	churn_pins = 0;
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
			/* a refill never hands out more than one cycle */
			if (f && f->budget > (s64)sm.s.cycle_budget)
				bad_budget++;
			if (f)
				fnv_sched_charge(&sm.s, f,
						 512 + (u64)(random() % (1 << 20)));
			break;
		}
		if (sum_backlogged_weight(&sm) != sm.s.backlog_weight)
			bad_weight++;
		if (churn_pins != list_len(&sm.s.waiting))
			bad_pins++;
	}
	fnv_sched_drain(&sm.s);
	tap_ok(!bad_pins && !churn_pins,
	       "churn: a flow is pinned exactly while it waits (%d bad, %d left)",
	       bad_pins, churn_pins);
	tap_ok(!bad_weight, "churn: backlog weight is the sum of backlogged weights (%d bad)",
	       bad_weight);
	tap_ok(!bad_pick, "churn: pick returns a backlogged flow iff one exists (%d bad)",
	       bad_pick);
	tap_ok(!bad_budget, "churn: no budget above one cycle's (%d bad)",
	       bad_budget);
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
	quantum = fnv_sched_quantum(sm.s.cycle_budget, sm.f[0].weight,
			      sm.s.cycle_weight);
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
	tap_ok(sm.s.cycle_weight == 400, "cycle weight follows: %llu",
	       (unsigned long long)sm.s.cycle_weight);
}

static void test_quantum_arith(void)
{
	struct fnv_sched s;

	tap_ok(fnv_sched_quantum(1ULL << 30, 10000, 10000) == 1ULL << 30,
	       "quantum of the only weight is the whole budget");
	tap_ok(fnv_sched_quantum(1ULL << 30, 10000, 10001) ==
	       (1ULL << 30) * 10000 / 10001,
	       "quantum at max budget and weight does not overflow: %llu",
	       (unsigned long long)fnv_sched_quantum(1ULL << 30, 10000, 10001));
	tap_ok(fnv_sched_quantum(1, 1, 10001) == 1, "quantum is never 0");
	tap_ok(fnv_sched_quantum(4096, 100, 0) == 4096,
	       "quantum with no cycle weight is the whole budget");
	fnv_sched_init(&s, 0);
	tap_ok(s.cycle_budget == 1, "zero budget is raised to 1");
	tap_ok(fnv_sched_weight_clamp(0) == 1 &&
	       fnv_sched_weight_clamp(~0U) == FNV_SCHED_WEIGHT_MAX &&
	       fnv_sched_weight_clamp(40000) == 40000,
	       "scheduling weights clamp to 1..2^20");
	tap_ok(fnv_sched_quantum(1ULL << 40, FNV_SCHED_WEIGHT_MAX,
			   2ULL * FNV_SCHED_WEIGHT_MAX) == 1ULL << 39,
	       "quantum at the largest budget and weight does not overflow");
}

/*
 * Closed loop, as in the kernel: a device holding @inflight requests that
 * complete in FIFO order, tenants that resubmit each completed request after
 * a random think time of up to @think completions (a CPU-bound fio under
 * TCG), and so empty their queue (and leave the lists) again and again.
 */
#define WHEEL 256

static int cl_inflight[MAXF];
static struct fnv_flow *cl_flows;

static bool cl_busy(struct fnv_sched *s, struct fnv_flow *f)
{
	(void)s;
	return cl_inflight[f - cl_flows] > 0;
}

static void closed_loop(const u32 *w, const int *depth, int n, int inflight,
			int think, bool wait, long completions, double *share)
{
	static int wheel[WHEEL][MAXF];
	struct fnv_sched s;
	struct fnv_flow f[MAXF];
	int queued[MAXF], fifo[4096], head = 0, tail = 0, i;
	long done[MAXF] = { 0 }, total = 0, k;

	memset(wheel, 0, sizeof(wheel));
	memset(cl_inflight, 0, sizeof(cl_inflight));
	cl_flows = f;
	srandom(7);
	fnv_sched_init(&s, 2 << 20);
	if (wait)
		s.busy = cl_busy;
	for (i = 0; i < n; i++) {
		fnv_flow_init(&f[i], w[i]);
		queued[i] = depth[i];
		fnv_flow_activate(&s, &f[i]);
	}
	for (k = 0; k < completions + 4 * inflight; k++) {
		for (i = 0; i < n; i++) {
			int back = wheel[k % WHEEL][i];

			wheel[k % WHEEL][i] = 0;
			if (back && !queued[i])
				fnv_flow_activate(&s, &f[i]);
			queued[i] += back;
		}
		while (tail - head < inflight) {
			struct fnv_flow *p = fnv_sched_pick(&s);

			if (!p)
				break;
			i = (int)(p - f);
			/* as the kernel: charge, then dequeue */
			fnv_sched_charge(&s, p, 8192);
			if (!--queued[i])
				fnv_flow_deactivate(&s, p);
			cl_inflight[i]++;
			fifo[tail++ % 4096] = i;
		}
		if (tail == head)
			continue;	/* everything is thinking */
		i = fifo[head++ % 4096];
		cl_inflight[i]--;
		if (k >= 4 * inflight) {	/* skip the warm-up */
			done[i]++;
			total++;
		}
		wheel[(k + 1 + random() % think) % WHEEL][i]++;
	}
	for (i = 0; i < n; i++)
		share[i] = (double)done[i] / (double)total;
}

static void test_closed_loop(void)
{
	double share[4];

	closed_loop((const u32[]){ 100, 300 }, (const int[]){ 32, 32 }, 2, 32,
		    1, true, 200000, share);
	tap_near(share[1] / share[0], 3.0, 0.02,
		 "closed loop, 32 in flight, depth 32:32, 100:300: ratio");
	closed_loop((const u32[]){ 100, 300 }, (const int[]){ 32, 32 }, 2, 32,
		    8, true, 200000, share);
	tap_near(share[1] / share[0], 3.0, 0.05,
		 "closed loop with think time, depth 32:32, 100:300: ratio");
	closed_loop((const u32[]){ 100, 300 }, (const int[]){ 32, 32 }, 2, 32,
		    8, false, 200000, share);
	tap_ok(share[1] / share[0] < 2.0,
	       "... and without keeping the cycle open for busy flows, only %.2f",
	       share[1] / share[0]);
	closed_loop((const u32[]){ 100, 300 }, (const int[]){ 16, 48 }, 2, 32,
		    16, true, 200000, share);
	tap_near(share[1] / share[0], 3.0, 0.05,
		 "closed loop with think time, depth 16:48, 100:300: ratio");
	closed_loop((const u32[]){ 800, 600, 400, 200 },
		    (const int[]){ 32, 32, 32, 32 }, 4, 32, 8, true, 400000,
		    share);
	tap_near(share[3], 0.1, 0.05,
		 "closed loop with think time, 800:600:400:200: share of 200");
	tap_near(share[0], 0.4, 0.05,
		 "closed loop with think time, 800:600:400:200: share of 800");
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
	tap_plan(1 +				/* test_empty */
		 4 +				/* test_two_weights */
		 TAP_ARRAY_SIZE(four_w) +	/* test_four_weights */
		 1 +				/* test_mixed_sizes */
		 2 +				/* test_extreme_weights */
		 2 +				/* test_single_flow */
		 2 +				/* test_debt_bounded */
		 1 +				/* test_refill_when_all_spent */
		 4 +				/* test_churn */
		 1 +				/* test_return_same_cycle */
		 1 +				/* test_no_hoarding */
		 2 +				/* test_weight_change */
		 7 +				/* test_quantum_arith */
		 6 +				/* test_closed_loop */
		 1);				/* test_vtime */
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
	test_closed_loop();
	test_vtime();
	return tap_done();
}
