// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the automatic depth's rate trials (depth.c): synthetic
 * devices whose completion rate is flat in the depth (a throttle), grows
 * with it up to a point (a device, or a host CPU, that serves requests in
 * parallel), or grows all the way; driven period by period as
 * fnv_adapt_depth() drives it, with a device-time rule that always wants
 * the least depth (the case the trials are for).
 */
#include <string.h>

#include <linux/minmax.h>
#include <fairnvme/depth.h>
#include "tap.h"

#define PERIOD_US	100000ULL	/* ctl_period_ms = 100 */
#define LIM		32U
#define DMIN		2U

/* the device: completions per second at depth @d */
typedef double (*rate_fn)(unsigned int d);

static double flat(unsigned int d __attribute__((unused)))
{
	return 2000;
}

static double knee8(unsigned int d)	/* parallel up to 8 */
{
	return 1000.0 * min(d, 8U);
}

static double grows(unsigned int d)	/* the bench's null_blk under TCG */
{
	return 6600 * pow(d / 2.0, 0.25);
}

static unsigned int seed = 1;

/* uniform in [-1, 1) */
static double noise(void)
{
	seed = seed * 1103515245 + 12345;
	return ((seed >> 8) & 0xffff) / 32768.0 - 1;
}

struct run {
	unsigned int d, at_lim, at8, trials, last_trial;
	double done;		/* completions */
	/* the load: the depth holds requests back below @need (0: never) */
	unsigned int need;
	bool keep_d;		/* the rule keeps the depth, else wants less */
	u64 period_us;		/* 0: 100 ms */
};

/*
 * @periods control periods, one in four completions sampled as the kernel
 * does; @jitter: each period's rate off by up to that fraction at random.
 * The rule wants the least depth (the device time above its target) unless
 * r->keep_d, as fnv_adapt_depth() computes it.
 */
static void drive(struct fnv_dprobe *pr, struct run *r, rate_fn f,
		  int periods, double jitter, unsigned int lim)
{
	u64 per = r->period_us ? r->period_us : PERIOD_US;
	int i;

	for (i = 0; i < periods; i++) {
		double rate = f(r->d) * (1 + jitter * noise());
		bool limited = r->d < r->need;
		u64 nr = (u64)(rate * per / 1e6 / 4);
		unsigned int want = r->d, prev = r->d;

		if (!r->keep_d) {
			want = r->d - max(r->d / 4, 1U);
			if (limited)
				want = max(want, DMIN);
			want = clamp(want, 1U, lim);
		}
		r->done += rate * per / 1e6;
		r->d = fnv_depth_probe(pr, r->d, want, nr, per, limited,
				       lim, DMIN);
		r->d = clamp(r->d, 1U, lim);
		pr->set = r->d;
		if (r->d == lim && prev != lim) {
			r->trials++;
			r->last_trial = i;
		}
		if (r->d == lim)
			r->at_lim++;
		if (r->d == 8)
			r->at8++;
	}
}

/* a fresh probe, as fnv_init_sched() leaves it (zeroed) */
static void fresh(struct fnv_dprobe *pr)
{
	memset(pr, 0, sizeof(*pr));
}

#define ALWAYS	(~0U)

static void test_flat(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, flat, 600, 0, LIM);
	tap_ok(r.d == DMIN, "flat rate: the depth stays at the rule's (%u)", r.d);
	tap_ok(r.trials == 2 && r.last_trial >= 300,
	       "flat rate: %u trials in 60 s, the first after 10 s, the last at %u (2, 30 s)",
	       r.trials, r.last_trial);
	tap_ok(r.at_lim <= 600 / 30,
	       "... at max_inflight %u of 600 periods (<= 3.3 %%)", r.at_lim);
	r.trials = 0;
	r.at_lim = 0;
	drive(&pr, &r, flat, 36000, 0, LIM);
	tap_ok(r.at_lim <= 36000 / 200,
	       "flat rate, the next hour: at max_inflight %u of 36000 periods (<= 0.5 %%)",
	       r.at_lim);
}

static void test_flat_noisy(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	seed = 7;
	drive(&pr, &r, flat, 6000, 0.10, LIM);
	tap_ok(r.at_lim <= 6000 / 50,
	       "flat rate, 10 %% jitter per period: at max_inflight %u of 6000 periods (<= 2 %%)",
	       r.at_lim);
}

static void test_knee(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, knee8, 300, 0, LIM);
	tap_ok(r.d == 8, "parallel up to 8: the depth settles at 8 (%u)", r.d);
	r.done = 0;
	r.at8 = 0;
	drive(&pr, &r, knee8, 600, 0, LIM);
	tap_ok(pr.keep == 8 && r.at8 >= 600 * 95 / 100,
	       "... and stays there: kept %u, at 8 in %u of the next 600 periods (>= 95 %%)",
	       pr.keep, r.at8);
	tap_ok(r.done / 60 >= 0.97 * 8000,
	       "... at %.0f IOPS over those 60 s (8000 at depth 8)", r.done / 60);
}

static void test_grows(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	seed = 3;
	drive(&pr, &r, grows, 150, 0.05, LIM);
	tap_ok(r.d == LIM, "rate grows with the depth: max_inflight within 15 s (%u)", r.d);
	r.done = 0;
	drive(&pr, &r, grows, 600, 0.05, LIM);
	tap_ok(r.done / 60 >= 0.93 * grows(LIM),
	       "... %.0f IOPS over the next 60 s (%.0f at max_inflight, %.0f at 2)",
	       r.done / 60, grows(LIM), grows(DMIN));
}

static void test_not_limited(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = 4, .keep_d = true };

	fresh(&pr);
	drive(&pr, &r, grows, 300, 0, LIM);
	tap_ok(r.d == 4 && r.trials == 0,
	       "not limited: no trial, the rule's depth (%u, %u trials)", r.d, r.trials);
}

static void test_lim_lowered(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, grows, 200, 0, LIM);
	drive(&pr, &r, grows, 100, 0, 8);
	tap_ok(r.d <= 8 && pr.keep <= 8,
	       "max_inflight lowered to 8: depth %u, kept %u", r.d, pr.keep);
}

static void test_solo(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };
	int i;
	u32 back = 0;

	fresh(&pr);
	/* into the first trial */
	for (i = 0; i < 200 && r.d != LIM; i++)
		drive(&pr, &r, flat, 1, 0, LIM);
	if (pr.to)
		back = fnv_depth_probe_solo(&pr);
	tap_ok(back == DMIN && !pr.to && !pr.base.n,
	       "a solo period ends a trial: back to %u", back);
	tap_ok(fnv_depth_probe_solo(&pr) == 0, "... and with none running, 0");
}

/* dev_target_us set to a number, then auto again: the caller sets 0 */
static void test_reset(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, grows, 200, 0, LIM);
	pr.set = 0;
	r.d = 1;
	r.d = fnv_depth_probe(&pr, r.d, DMIN, 100, PERIOD_US, true, LIM, DMIN);
	tap_ok(r.d == DMIN && !pr.keep && !pr.to,
	       "auto again: the trials start over (depth %u, kept %u)", r.d, pr.keep);
}

/* the load drops: what it kept goes */
static void test_keep_released(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, grows, 200, 0, LIM);
	r.need = 0;
	drive(&pr, &r, grows, FNV_PROBE_KEEP + 20, 0, LIM);
	tap_ok(!pr.keep && r.d < LIM,
	       "load gone: the kept depth is released (depth %u, kept %u)", r.d, pr.keep);
}

/*
 * 20 QD1 tenants: the depth holds requests back below 20 only, so a trial
 * at max_inflight holds none back; it counts all the same, and trials
 * come at most once per FNV_PROBE_KEEP periods.
 */
static void test_demand_fits(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = 20 };

	fresh(&pr);
	drive(&pr, &r, grows, 200, 0, LIM);
	r.done = 0;
	r.trials = 0;
	drive(&pr, &r, grows, 600, 0, LIM);
	tap_ok(r.trials <= 600 / FNV_PROBE_KEEP,
	       "demand within max_inflight: %u trials in 60 s (<= %u)", r.trials,
	       600 / FNV_PROBE_KEEP);
	tap_ok(r.done / 60 >= 0.85 * grows(LIM),
	       "... %.0f IOPS (%.0f at max_inflight, %.0f at 2)", r.done / 60,
	       grows(LIM), grows(DMIN));
}

/* 10 s periods (ctl_period_ms' maximum) of a million IOPS: no overflow */
static double flat_1m(unsigned int d __attribute__((unused)))
{
	return 1e6;
}

static double grows_1m(unsigned int d)
{
	return 1e6 * pow(d / 2.0, 0.25);
}

static void test_large(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .period_us = 10000000 };

	fresh(&pr);
	drive(&pr, &r, flat_1m, 400, 0, LIM);
	tap_ok(r.d == DMIN && !pr.keep,
	       "1M IOPS, 10 s periods, flat: the rule's depth (%u)", r.d);
	fresh(&pr);
	r.d = DMIN;
	drive(&pr, &r, grows_1m, 140, 0, LIM);
	tap_ok(r.d == LIM, "1M IOPS, 10 s periods, growing: max_inflight (%u)", r.d);
}

int main(void)
{
	test_flat();
	test_flat_noisy();
	test_knee();
	test_grows();
	test_not_limited();
	test_lim_lowered();
	test_solo();
	test_reset();
	test_keep_released();
	test_demand_fits();
	test_large();
	return tap_done();
}
