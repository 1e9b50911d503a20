// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the FairNVMe controller (state.c): classification, Eq. 3-4,
 * Algorithm 1's actions on synthetic latency sequences, cost learning and
 * the Eq. 5-7 arithmetic.
 */
#include <string.h>

#include <fairnvme/state.h>
#include "tap.h"

#define US 1000ULL

static const struct fnv_ctl_params P = {
	.thresh_min = 600 * US,
	.thresh_max = 3500 * US,
	.ku_ppm = 10000,
	.kd_ppm = 1000,
	.beta = 500,
};

/* @n completions of latency @lat (ns), reads, service time @svc */
static struct fnv_sample period(u64 n, u64 lat, u64 svc)
{
	struct fnv_sample s;

	memset(&s, 0, sizeof(s));
	s.nr = n;
	s.lat_sum = n * lat;
	s.dev_sum = n * lat / 2;
	s.head_sum = n * lat - s.dev_sum;	/* wait + device = lat */
	s.head_nr = n;
	s.nr_type[0] = n;
	s.svc_sum[0] = n * svc;
	return s;
}

static void test_classify(void)
{
	u64 min = 600 * US, cur = 2000 * US, max = 3500 * US;

	tap_ok(fnv_ctl_classify(min - 1, min, cur, max) == FNV_IDLE &&
	       fnv_ctl_classify(min, min, cur, max) == FNV_BALANCED &&
	       fnv_ctl_classify(cur - 1, min, cur, max) == FNV_BALANCED &&
	       fnv_ctl_classify(cur, min, cur, max) == FNV_UNBALANCED &&
	       fnv_ctl_classify(max - 1, min, cur, max) == FNV_UNBALANCED &&
	       fnv_ctl_classify(max, min, cur, max) == FNV_SATURATED &&
	       fnv_ctl_classify(0, min, cur, max) == FNV_IDLE,
	       "states at the threshold boundaries");
}

/* Eq. 3-4 sample by sample, in floating point */
static double ewma_ref(double t, double lat, int n, double ku, double kd)
{
	while (n--)
		t += (lat > t ? ku : kd) * (lat - t);
	return t;
}

static void test_eq34(void)
{
	u64 t;
	double ref;

	t = fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 50, 10000, 1000);
	ref = ewma_ref(2000e3, 3000e3, 50, 0.01, 0.001);
	tap_near((double)t, ref, 1e-6, "Eq. 3 up, 50 samples, k_u = 0.01");
	t = fnv_ctl_thresh_ewma(2000 * US, 1000 * US, 500, 10000, 1000);
	ref = ewma_ref(2000e3, 1000e3, 500, 0.01, 0.001);
	tap_near((double)t, ref, 1e-6, "Eq. 3 down, 500 samples, k_d = 0.001");
	t = fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 100000, 10000, 1000);
	tap_near((double)t, 3000e3, 1e-6, "Eq. 3 converges to the latency");
	tap_ok(fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 0, 10000, 1000) == 2000 * US,
	       "no sample, no change");
	tap_ok(fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 10, 0, 0) == 2000 * US,
	       "k = 0, no change");
	tap_ok(fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 1, 1000000, 0) == 3000 * US,
	       "k = 1 jumps to the latency");
	t = fnv_ctl_thresh_ewma(1, 1000000000000ULL, 1ULL << 40, 10000, 1000);
	tap_ok(t == 1000000000000ULL, "huge n and latency: no overflow (%llu)",
	       (unsigned long long)t);
	/* the asymmetry: 100 samples move 10x further up than down */
	tap_ok(fnv_ctl_thresh_ewma(2000 * US, 3000 * US, 100, 10000, 1000) - 2000 * US >
	       5 * (2000 * US - fnv_ctl_thresh_ewma(2000 * US, 1000 * US, 100, 10000, 1000)),
	       "k_u >> k_d: fast up, slow down");
}

static void test_algorithm1(void)
{
	struct fnv_ctl c;
	struct fnv_sample s;
	u64 cur0;
	int i;
	bool comp;

	fnv_ctl_init(&c, &P, 100 * US);
	tap_ok(c.mult == FNV_MULT_ONE && c.state == FNV_BALANCED &&
	       c.thresh_cur == 2050 * US, "initial: balanced, mult 1, thresh_cur midway");

	s = period(100, 300 * US, 50 * US);
	comp = fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_IDLE && c.mult == 500 && !comp,
	       "idle: weight - beta (mult %u)", c.mult);
	fnv_ctl_period(&c, &s, &P);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == FNV_MULT_MIN, "idle: not below the floor (mult %u)", c.mult);
	memset(&s, 0, sizeof(s));
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_IDLE, "a period without completions is idle");

	s = period(100, 1000 * US, 50 * US);
	for (i = 0; i < 20 && c.mult != FNV_MULT_ONE; i++) {
		fnv_ctl_period(&c, &s, &P);
		if (c.state != FNV_BALANCED)
			break;
	}
	tap_ok(c.state == FNV_BALANCED && c.mult == FNV_MULT_ONE && i <= 12,
	       "balanced: weight decays back to the configured one in %d periods", i);

	fnv_ctl_init(&c, &P, 100 * US);
	cur0 = c.thresh_cur;
	s = period(100, 3000 * US, 50 * US);
	comp = fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_UNBALANCED && c.mult == 1500 && comp &&
	       c.thresh_cur == cur0 + (3500 * US - cur0) / 2,
	       "unbalanced: weight + beta, thresh_cur halfway to max, compensation");

	s = period(100, 5000 * US, 50 * US);
	comp = fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_SATURATED && c.mult == 2500 && comp &&
	       c.thresh_cur == 3500 * US,
	       "saturated: weight + 2 beta, thresh_cur = max, compensation");
	for (i = 0; i < 10; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == FNV_MULT_MAX, "saturated: not above the cap (mult %u)",
	       c.mult);
	tap_ok(fnv_ctl_weight(&c, 100) == 400 && fnv_ctl_weight(&c, 10000) == 40000,
	       "effective weight = configured * mult");
	c.mult = FNV_MULT_MIN;
	tap_ok(fnv_ctl_weight(&c, 1) == 1, "effective weight is never 0");

	/* Thresh_cur adapts: a tenant that sits at 2.5 ms becomes balanced */
	fnv_ctl_init(&c, &P, 100 * US);
	s = period(1000, 2500 * US, 50 * US);
	for (i = 0; i < 50; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_ok(c.thresh_cur > 2500 * US && c.thresh_cur <= 3500 * US,
	       "thresh_cur settles above a steady 2.5 ms (%llu us), state %s",
	       (unsigned long long)(c.thresh_cur / US), fnv_ctl_state_name(c.state));
}

/*
 * The head latency against the latency from insertion: a tenant with 256
 * requests queued waits 200 ms from insertion but 2 ms from the head of its
 * queue; a tenant with one request at a time waits 2 ms either way.
 */
static void deep_and_light(const struct fnv_ctl_params *p,
			   struct fnv_ctl *deep, struct fnv_ctl *light)
{
	struct fnv_sample s;
	int i;

	fnv_ctl_init(deep, p, 100 * US);
	fnv_ctl_init(light, p, 100 * US);
	for (i = 0; i < 20; i++) {
		s = period(100, 200000 * US, 500 * US);
		s.head_sum = 100 * 1500 * US;
		s.dev_sum = 100 * 500 * US;
		fnv_ctl_period(deep, &s, p);
		s = period(100, 2000 * US, 500 * US);
		fnv_ctl_period(light, &s, p);
	}
}

static void test_signal(void)
{
	struct fnv_ctl_params q = P;
	struct fnv_ctl deep, light;

	deep_and_light(&P, &deep, &light);
	tap_ok(deep.state == FNV_BALANCED && light.state == FNV_BALANCED &&
	       fnv_ctl_weight(&deep, 100) == fnv_ctl_weight(&light, 100),
	       "head latency: deep and light tenant both balanced, equal weights (%u, %u)",
	       fnv_ctl_weight(&deep, 100), fnv_ctl_weight(&light, 100));
	tap_ok(deep.head == 2000 * US && deep.lat == 200000 * US,
	       "both latencies kept (head %llu us, from insertion %llu us)",
	       (unsigned long long)(deep.head / US),
	       (unsigned long long)(deep.lat / US));

	q.signal = FNV_LAT_QUEUE;
	deep_and_light(&q, &deep, &light);
	tap_ok(deep.state == FNV_SATURATED && light.state == FNV_BALANCED &&
	       fnv_ctl_weight(&deep, 100) == 400 &&
	       fnv_ctl_weight(&light, 100) == 100,
	       "latency from insertion: the deep tenant saturated at 4x, the light one at 1x (%u, %u)",
	       fnv_ctl_weight(&deep, 100), fnv_ctl_weight(&light, 100));
}

/* @n completions that waited @wait at the head and @dev at the device */
static struct fnv_sample hperiod(u64 n, u64 wait, u64 dev, u32 scale)
{
	struct fnv_sample s = period(n, 10 * (wait + dev), 500 * US);

	s.head_sum = n * wait;
	s.dev_sum = n * dev;
	s.head_scale = scale;
	return s;
}

/*
 * Weights 800 and 200 (mean 500) sharing 2000 IOPS 4:1: the heavy tenant
 * is served every 1.25 ms, the light one every 5 ms; both see 0.7 ms at
 * the device. Their waits at the head scaled to the mean weight are equal
 * (2 ms), so are their head latencies (2.7 ms): both balanced, no weight
 * moves. Unscaled, the light one (5.7 ms) would read as saturated.
 */
static void test_head_scale(void)
{
	struct fnv_ctl heavy, light;
	struct fnv_sample s;
	int i;

	fnv_ctl_init(&heavy, &P, 100 * US);
	fnv_ctl_init(&light, &P, 100 * US);
	for (i = 0; i < 20; i++) {
		s = hperiod(100, 1250 * US, 700 * US, 800 * 1024 / 500);
		fnv_ctl_period(&heavy, &s, &P);
		s = hperiod(100, 5000 * US, 700 * US, 200 * 1024 / 500);
		fnv_ctl_period(&light, &s, &P);
	}
	tap_ok(heavy.head > 2690 * US && heavy.head <= 2700 * US &&
	       light.head > 2690 * US && light.head <= 2700 * US,
	       "head latency with the wait scaled to the mean weight: %llu and %llu us",
	       (unsigned long long)(heavy.head / US),
	       (unsigned long long)(light.head / US));
	tap_ok(heavy.state == FNV_BALANCED && light.state == FNV_BALANCED &&
	       fnv_ctl_weight(&heavy, 800) == 800 &&
	       fnv_ctl_weight(&light, 200) == 200,
	       "weights 800 and 200 served 4:1: both balanced, weights kept (%u, %u)",
	       fnv_ctl_weight(&heavy, 800), fnv_ctl_weight(&light, 200));
	fnv_ctl_init(&light, &P, 100 * US);
	for (i = 0; i < 20; i++) {
		s = hperiod(100, 5000 * US, 700 * US, 0);
		fnv_ctl_period(&light, &s, &P);
	}
	/*
	 * The waits are summed at dispatch: over the period's dispatches, not
	 * its completions (here half as many dispatches, a burst ending)
	 */
	fnv_ctl_init(&heavy, &P, 100 * US);
	for (i = 0; i < 20; i++) {
		s = hperiod(100, 1250 * US, 700 * US, 0);
		s.head_nr = 50;
		s.head_sum = 50 * 1250 * US;
		fnv_ctl_period(&heavy, &s, &P);
	}
	tap_ok(heavy.head > 1940 * US && heavy.head <= 1950 * US,
	       "head latency: the waits over the dispatches that had them, %llu us",
	       (unsigned long long)(heavy.head / US));
	tap_ok(light.state == FNV_SATURATED,
	       "unscaled, the weight-200 tenant would read as saturated");

	/* weight 100 against a mean of 400: 1 ms wait scaled to 0.25 ms */
	fnv_ctl_init(&light, &P, 100 * US);
	for (i = 0; i < 20; i++) {
		s = hperiod(100, 1000 * US, 100 * US, 100 * 1024 / 400);
		fnv_ctl_period(&light, &s, &P);
	}
	tap_ok(light.state == FNV_BALANCED && fnv_ctl_weight(&light, 100) == 100,
	       "a busy low-weight tenant scaled below Thresh_min is not idle (%s)",
	       fnv_ctl_state_name(light.state));
	s = hperiod(100, 200 * US, 100 * US, 100 * 1024 / 400);
	fnv_ctl_period(&light, &s, &P);
	tap_ok(light.state == FNV_IDLE,
	       "idle when its own head latency is below Thresh_min");
}

/*
 * A light tenant has a few sampled completions per period. While it has
 * requests outstanding, a period without any is not idleness, and a few
 * are pooled with the next periods' until FNV_CTL_MIN_NR: one noisy period
 * must not move its weight.
 */
static void test_pooling(void)
{
	struct fnv_ctl c;
	struct fnv_sample s;
	bool comp;
	int i;

	fnv_ctl_init(&c, &P, 100 * US);
	memset(&s, 0, sizeof(s));
	s.busy = true;
	for (i = 0; i < 20; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_BALANCED && c.mult == FNV_MULT_ONE,
	       "busy, no completion for 20 periods: not idle, weight kept (%s, mult %u)",
	       fnv_ctl_state_name(c.state), c.mult);

	/* 4 samples at 5 ms, then 3 periods of 4 at 1 ms: 2 ms pooled */
	fnv_ctl_init(&c, &P, 100 * US);
	s = period(4, 5000 * US, 50 * US);
	s.busy = true;
	comp = fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_BALANCED && c.mult == FNV_MULT_ONE && !comp,
	       "busy with 4 samples at 5 ms: no judgement yet (%s, mult %u)",
	       fnv_ctl_state_name(c.state), c.mult);
	s = period(4, 1000 * US, 50 * US);
	s.busy = true;
	fnv_ctl_period(&c, &s, &P);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == FNV_MULT_ONE && c.head == 0,
	       "... nor with 12 (mult %u)", c.mult);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_BALANCED && c.mult == FNV_MULT_ONE &&
	       c.head == 2000 * US,
	       "16 samples pooled: judged on their mean, %llu us: %s",
	       (unsigned long long)(c.head / US), fnv_ctl_state_name(c.state));

	/* one sample a period: judged after FNV_CTL_MAX_DEFER periods */
	fnv_ctl_init(&c, &P, 100 * US);
	s = period(1, 5000 * US, 50 * US);
	s.busy = true;
	for (i = 1; i <= 20 && c.state == FNV_BALANCED; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_SATURATED && i - 1 == FNV_CTL_MAX_DEFER,
	       "one sample per period: judged after %d periods (%s)", i - 1,
	       fnv_ctl_state_name(c.state));

	/* nothing outstanding: judged at once, however few the samples */
	fnv_ctl_init(&c, &P, 100 * US);
	s = period(2, 300 * US, 50 * US);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_IDLE, "not busy, 2 samples: judged at once (%s)",
	       fnv_ctl_state_name(c.state));
	memset(&s, 0, sizeof(s));
	fnv_ctl_init(&c, &P, 100 * US);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_IDLE, "not busy, no completion: idle");
}

/*
 * A backlogged tenant (a request queued behind another) keeps the
 * configured weight whatever its latency: the policy already gives it its
 * share. Without the rule, saturated tenants climb to 4x and a new one
 * starts at 1x: a quarter of its due.
 */
static void test_backlog(void)
{
	struct fnv_ctl c;
	struct fnv_sample s;
	int i;

	fnv_ctl_init(&c, &P, 100 * US);
	s = period(100, 5000 * US, 50 * US);
	s.busy = true;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_SATURATED && c.mult == 2000,
	       "saturated, not backlogged: weight + 2 beta (mult %u)", c.mult);
	s.queued = true;
	for (i = 0; i < 10; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_SATURATED && c.mult == FNV_MULT_ONE,
	       "backlogged and saturated: mult 1 (%u)", c.mult);

	s.queued = false;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == 2000,
	       "nothing queued behind at the period's end: raised again (%u)",
	       c.mult);
	s.queued = true;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == FNV_MULT_ONE,
	       "backlogged again: back to 1 at once (%u)", c.mult);

	/* a backlogged tenant whose samples are pooled: reset at once */
	fnv_ctl_init(&c, &P, 100 * US);
	c.mult = FNV_MULT_MIN;
	s = period(1, 5000 * US, 50 * US);
	s.busy = true;
	s.queued = true;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.mult == FNV_MULT_ONE && c.deferred == 1,
	       "backlogged while its samples are pooled: mult 1 (%u), deferred",
	       c.mult);

	/* an idle tenant (nothing queued) is still cut */
	fnv_ctl_init(&c, &P, 100 * US);
	s = period(100, 300 * US, 50 * US);
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.state == FNV_IDLE && c.mult == 500,
	       "not backlogged, idle: weight - beta (%u)", c.mult);
}

static void test_costs(void)
{
	struct fnv_ctl c;
	struct fnv_sample s;
	int i;

	fnv_ctl_init(&c, &P, 100 * US);
	memset(&s, 0, sizeof(s));
	s.nr = 100;
	s.lat_sum = 100 * 1000 * US;
	s.nr_type[0] = 70;
	s.nr_type[1] = 30;
	s.svc_sum[0] = 70 * 80 * US;
	s.svc_sum[1] = 30 * 400 * US;
	for (i = 0; i < 40; i++)
		fnv_ctl_period(&c, &s, &P);
	tap_near((double)c.cost[0], 80e3, 0.01, "learned read cost (ns)");
	tap_near((double)c.cost[1], 400e3, 0.01, "learned write cost (ns)");
	tap_ok(c.ratio_w == 300, "write ratio 0.3 (%u/1000)", c.ratio_w);

	/* each sample counts the same: 4 samples move it 4/64 of the gap */
	fnv_ctl_init(&c, &P, 100 * US);
	s.nr = 4;
	s.nr_type[0] = 4;
	s.nr_type[1] = 0;
	s.svc_sum[0] = 4 * 36 * US;
	s.lat_sum = 4 * 1000 * US;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.cost[0] == 96 * US, "4 samples of 36 us move 100 us to 96 us (%llu ns)",
	       (unsigned long long)c.cost[0]);
	s.nr = 200;
	s.nr_type[0] = 200;
	s.svc_sum[0] = 200 * 36 * US;
	fnv_ctl_period(&c, &s, &P);
	tap_ok(c.cost[0] == 36 * US, "64 samples or more: the period's mean (%llu ns)",
	       (unsigned long long)c.cost[0]);
}

static void test_eq567(void)
{
	u64 cost[2] = { 100 * US, 300 * US };
	u64 big[2] = { ~0ULL, ~0ULL };
	u64 x[3], sum = 0, b[3], total = 0;
	u32 w[3] = { 100, 200, 100 };
	u64 d[3];
	int i;

	/* 10 requests, 30 % writes: 10 * (0.7 * 100 + 0.3 * 300) us = 1600 us */
	tap_ok(fnv_ctl_demand_us(10, 300, cost) == 1600, "Eq. 6-7: %llu us",
	       (unsigned long long)fnv_ctl_demand_us(10, 300, cost));
	tap_ok(fnv_ctl_demand_us(0, 300, cost) == 0, "Eq. 6-7: no request, no demand");
	tap_ok(fnv_ctl_demand_us(10, 1000, cost) == 3000 &&
	       fnv_ctl_demand_us(10, 0, cost) == 1000, "Eq. 6-7: all writes, all reads");
	tap_ok(fnv_ctl_demand_us(~0ULL, 5000, big) == 1000000ULL * 1000000000 / 1000,
	       "Eq. 6-7: huge inputs are capped, no overflow");

	d[0] = fnv_ctl_demand_us(10, 0, cost);	/* 1000 us */
	d[1] = fnv_ctl_demand_us(10, 0, cost);	/* 1000 us */
	d[2] = fnv_ctl_demand_us(20, 0, cost);	/* 2000 us */
	for (i = 0; i < 3; i++) {
		x[i] = fnv_ctl_eq5_x(w[i], d[i]);
		sum = fnv_ctl_eq5_add(sum, x[i]);
	}
	for (i = 0; i < 3; i++) {
		b[i] = fnv_ctl_eq5_budget(10000000, x[i], sum, 3);
		total += b[i];
	}
	/* W*D = 1e5 : 2e5 : 2e5 -> 0.2 : 0.4 : 0.4 of 10 ms */
	tap_ok(b[0] == 2000000 && b[1] == 4000000 && b[2] == 4000000,
	       "Eq. 5: budgets %llu %llu %llu", (unsigned long long)b[0],
	       (unsigned long long)b[1], (unsigned long long)b[2]);
	tap_ok(total <= 10000000 && total >= 10000000 - 3,
	       "Eq. 5: budgets add up to B_total");
	tap_ok(fnv_ctl_eq5_budget(9000, 0, 0, 3) == 3000,
	       "Eq. 5: no demand anywhere: equal shares");
	tap_ok(fnv_ctl_eq5_budget(9000, 0, 100, 3) == 0,
	       "Eq. 5: no demand, no budget");
	tap_ok(fnv_ctl_eq5_add(~0ULL - 5, 10) == ~0ULL,
	       "Eq. 5: the sum saturates instead of wrapping");
	tap_ok(fnv_ctl_eq5_budget(~0ULL, ~0ULL / 2, ~0ULL, 2) == ~0ULL / 2,
	       "Eq. 5: full-range operands do not overflow");
	tap_ok(fnv_ctl_eq5_x(1 << 20, ~0ULL) == (1ULL << 20) * 1000000000000000ULL,
	       "Eq. 5: W * D is capped below 2^64");
}

int main(void)
{
	tap_plan(1 +		/* test_classify */
		 8 +		/* test_eq34 */
		 11 +		/* test_algorithm1 */
		 3 +		/* test_signal */
		 6 +		/* test_head_scale */
		 7 +		/* test_pooling */
		 6 +		/* test_backlog */
		 5 +		/* test_costs */
		 11);		/* test_eq567 */
	test_classify();
	test_eq34();
	test_algorithm1();
	test_signal();
	test_head_scale();
	test_pooling();
	test_backlog();
	test_costs();
	test_eq567();
	return tap_done();
}
