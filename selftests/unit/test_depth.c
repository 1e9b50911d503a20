// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the automatic depth's rate trials (depth.c): synthetic
 * devices whose completion rate is flat in the depth (a throttle), grows
 * with it up to a point (a device, or a host CPU, that serves requests in
 * parallel), or grows all the way; driven period by period as
 * fnv_adapt_depth() drives it, with a device-time rule that always wants
 * the least depth (the case the trials are for) and, as in the kernel,
 * moves only while its depth is the one in force.
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
/* periods in a row at max_inflight, the one driven included */
static unsigned int lim_run;

/* uniform in [-1, 1) */
static double noise(void)
{
	seed = seed * 1103515245 + 12345;
	return ((seed >> 8) & 0xffff) / 32768.0 - 1;
}

struct run {
	unsigned int d, at_lim, at8, trials, last_trial;
	unsigned int hold;	/* the rule's own depth (0: d) */
	double done;		/* completions */
	/* the load: the depth holds requests back below @need (0: never) */
	unsigned int need;
	bool keep_d;		/* the rule keeps the depth, else wants less */
	u64 period_us;		/* 0: 100 ms */
	/* the weights' effect kept at depth d (FNV_FAIR_ONE = 1), NULL: none */
	double (*fair)(unsigned int d);
	/* every late-th period at max_inflight runs 3 times late */
	unsigned int late;
	/* the rule steps between DMIN + 1 and DMIN every dither periods */
	unsigned int dither;
	/* the fairness fed: the mean of fair() since the probe's last mark */
	double fsum;
	unsigned int fn;
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
		double rate;
		bool limited = r->d < r->need;
		u64 nr;
		unsigned int want = r->d, prev = r->d;
		struct fnv_dperiod p;

		/* before f(): the rate functions read it */
		lim_run = r->d == lim ? lim_run + 1 : 0;
		rate = f(r->d) * (1 + jitter * noise());
		nr = (u64)(rate * per / 1e6 / 4);
		/* a mark starts the caller's fairness over (fnv_adapt_depth()) */
		if (pr->mark) {
			pr->mark = false;
			r->fsum = 0;
			r->fn = 0;
		}
		if (r->fair) {
			r->fsum += r->fair(r->d);
			r->fn++;
		}
		p = (struct fnv_dperiod){
			.nr = nr, .dt_us = per, .cap_us = 2 * per,
			.limited = limited,
			.fair = r->fair ? (u32)(r->fsum / r->fn * FNV_FAIR_ONE) :
				FNV_FAIR_NONE,
		};

		/*
		 * The rule's own depth moves only while it is the depth in
		 * force (fnv_adapt_depth()); it is never above it.
		 */
		if (!r->hold || r->hold > r->d)
			r->hold = r->d;
		want = r->hold;
		if (!r->keep_d && r->hold == r->d)
			want = r->hold - max(r->hold / 4, 1U);
		if (r->dither && r->hold == r->d)
			want = DMIN + ((i / r->dither) & 1);
		if (limited)
			want = max(want, DMIN);
		want = clamp(want, 1U, lim);
		r->done += rate * per / 1e6;
		/* a worker 3 times late: 3 periods' completions */
		if (r->late && r->d == lim && i % r->late == r->late - 1) {
			p.nr = 3 * nr;
			p.dt_us = 3 * per;
		}
		r->d = fnv_depth_probe(pr, r->d, want, &p, lim, DMIN);
		r->d = clamp(r->d, 1U, lim);
		pr->set = r->d;
		r->hold = min(want, r->d);
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
	lim_run = 0;
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
	/* tried by half after 50, 100, 200 periods: windows of FNV_PROBE_NR */
	tap_ok(pr.keep == 8 && r.at8 >= 600 - 5 * FNV_PROBE_NR,
	       "... and stays there: kept %u, at 8 in %u of the next 600 periods (>= %u)",
	       pr.keep, r.at8, 600 - 5 * FNV_PROBE_NR);
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

/*
 * A device time about the target: the rule steps its depth up and down
 * every few periods (t26 on 6.12: between 2 and 3 every 1 to 3 periods).
 * Its rate is what the trial competes with, whatever depth it is at: a
 * window that started over at each step filled only by chance, and the
 * first trial came after 19 s instead of 10.
 */
static void test_dither(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .dither = 2 };

	fresh(&pr);
	seed = 5;
	drive(&pr, &r, grows, 150, 0.05, LIM);
	tap_ok(r.d == LIM && r.trials == 1,
	       "the rule steps 2, 3, 2 ...: max_inflight within 15 s (%u), 1 trial (%u)",
	       r.d, r.trials);
	fresh(&pr);
	r = (struct run){ .d = DMIN, .need = ALWAYS, .dither = 2 };
	drive(&pr, &r, flat, 150, 0.05, LIM);
	tap_ok(r.d <= DMIN + 1 && !pr.keep && r.trials == 1,
	       "... on a flat rate, the rule's depth (%u) after one trial (%u)",
	       r.d, r.trials);
}

/*
 * Under TCG a window's rate is off by up to a tenth (here each period's by
 * up to a half). A half that kept 15/16 of max_inflight's rate by chance
 * in one window was kept, and tried by half again at once: t26 on 6.12
 * went 32, 16, 8 in 2 s, where 8 lost a fifth, and an upward trial needs
 * 9/8 to come back. Ten runs of 30 s, each after 12 s at the start.
 */
static void test_noisy_halves(void)
{
	double done = 0, worst = 1e9;
	int k;

	for (k = 0; k < 10; k++) {
		struct fnv_dprobe pr;
		struct run r = { .d = DMIN, .need = ALWAYS };

		fresh(&pr);
		seed = 100 + k;
		drive(&pr, &r, grows, 120, 0.5, LIM);
		r.done = 0;
		drive(&pr, &r, grows, 300, 0.5, LIM);
		done += r.done / 30;
		worst = min(worst, r.done / 30);
	}
	tap_ok(done / 10 >= 0.95 * grows(LIM) && worst >= 0.8 * grows(LIM),
	       "rate off by a tenth: %.0f IOPS on average, %.0f the least run (%.0f at max_inflight; 95 %%, 80 %%)",
	       done / 10, worst, grows(LIM));
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
	{
		struct fnv_dperiod p = { .nr = 100, .dt_us = PERIOD_US,
					 .fair = FNV_FAIR_NONE, .limited = true };

		r.d = fnv_depth_probe(&pr, r.d, DMIN, &p, LIM, DMIN);
	}
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

/*
 * Weights 100 and 300, 32 QD1 readers each (t27): a deeper queue completes
 * more but leaves the order to the device, the shares go towards half
 * each: the weights' effect kept 0.8 at the time's depth, 0.2 less per
 * doubling past 4 (more than FNV_FAIR_SLACK), 0.2 at max_inflight.
 */
static double unfair_deep(unsigned int d)
{
	return d <= 4 ? 0.8 : 0.8 - 0.2 * (log2(d) - 2);
}

/* as much kept at any depth */
static double fair_any(unsigned int d __attribute__((unused)))
{
	return 0.9;
}

static void test_fairness(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .fair = unfair_deep };

	fresh(&pr);
	seed = 5;
	drive(&pr, &r, grows, 600, 0.05, LIM);
	tap_ok(r.d == DMIN && !pr.keep && r.trials >= 1 && r.at_lim <= 600 / 20,
	       "rate grows, fairness falls with the depth: %u trials, none kept (depth %u, at max_inflight %u of 600 periods)",
	       r.trials, r.d, r.at_lim);
	fresh(&pr);
	r.d = DMIN;
	r.fair = fair_any;
	drive(&pr, &r, grows, 150, 0.05, LIM);
	tap_ok(r.d == LIM, "rate grows, fairness holds: max_inflight kept (%u)", r.d);
	/* the mix changes: the deep queue now costs fairness */
	r.fair = unfair_deep;
	r.at_lim = 0;
	drive(&pr, &r, grows, 600, 0.05, LIM);
	tap_ok(r.d < LIM && r.at_lim <= 600 / 2,
	       "... then it falls at depth: the kept depth halves back (depth %u, at max_inflight %u of 600)",
	       r.d, r.at_lim);
}

/*
 * t27 on 6.12: the time's depth kept 0.34 of the weights' effect, the
 * first window at max_inflight 0.30 (within FNV_FAIR_SLACK: the requests
 * held back dispatched in the weights' order), the rest of the run at
 * max_inflight about 0.1.
 */
static double unfair_later(unsigned int d)
{
	if (d < LIM)
		return 0.34;
	return lim_run <= FNV_PROBE_NR ? 0.30 : 0.1;
}

static void test_fair_later(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .fair = unfair_later };

	fresh(&pr);
	seed = 7;
	drive(&pr, &r, grows, 600, 0.05, LIM);
	/* ref: the last trial, judged after its first window */
	tap_ok(r.d == DMIN && !pr.keep && pr.nr_up >= 1 && !pr.nr_kept &&
	       pr.ref.n > FNV_PROBE_NR && r.at_lim <= 600 / 10,
	       "fair in a trial's first window, not after: %u trials, none kept (depth %u, at max_inflight %u of 600 periods, the last judged after %u)",
	       pr.nr_up, r.d, r.at_lim, pr.ref.n);
}

/*
 * t27 on 6.12, another run: the depth held kept only 0.14 of the weights'
 * effect (the QD1 readers' threads wait for the guest's CPUs), the first
 * window at max_inflight 0.3, then 0.04: within FNV_FAIR_SLACK of 0.14,
 * but not half of it.
 */
static double unfair_weak(unsigned int d)
{
	if (d < LIM)
		return 0.14;
	return lim_run <= FNV_PROBE_NR ? 0.30 : 0.04;
}

static void test_fair_weak(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .fair = unfair_weak };

	fresh(&pr);
	seed = 13;
	drive(&pr, &r, grows, 600, 0.05, LIM);
	tap_ok(r.d == DMIN && !pr.keep && pr.nr_up >= 1 && !pr.nr_kept,
	       "weights' effect 0.14 held, 0.04 deep after a first window of 0.3: %u trials, %u kept (depth %u)",
	       pr.nr_up, pr.nr_kept, r.d);
}

/*
 * t26 on 6.1 in CI: the first trial's window at max_inflight completed
 * 1.10 of the depth held (1217 / 1109), the run at max_inflight 1.32 of
 * it; the first trial of the round before gained 1.35 in its window.
 */
static unsigned int nr_trials;

static double unlucky_first(unsigned int d)
{
	if (d < LIM)
		return 5000;
	if (lim_run == 1)
		nr_trials++;
	return nr_trials == 1 ? 5450 : 6600;
}

static double gain_110(unsigned int d)
{
	return d < LIM ? 2000 : 2200;
}

static double fades(unsigned int d)
{
	if (d < LIM)
		return 2000;
	return lim_run <= FNV_PROBE_NR ? 2700 : 1500;
}

static void test_retry(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	nr_trials = 0;
	seed = 17;
	drive(&pr, &r, unlucky_first, 200, 0.02, LIM);
	tap_ok(pr.nr_up == 2 && pr.nr_kept == 1 && r.d == LIM,
	       "a first window at 1.09 by chance: tried again %u periods on, kept (%u of %u, depth %u)",
	       FNV_PROBE_RETRY, pr.nr_kept, pr.nr_up, r.d);
	fresh(&pr);
	r.d = DMIN;
	r.at_lim = 0;
	drive(&pr, &r, gain_110, 600, 0, LIM);
	tap_ok(pr.nr_up == 4 && !pr.nr_kept && r.d == DMIN &&
	       r.at_lim <= 4 * FNV_PROBE_MAX_NR,
	       "1.10 at max_inflight: a trial and one soon after, per step of the backoff (%u trials in 600 periods, at max_inflight %u, depth %u)",
	       pr.nr_up, r.at_lim, r.d);
	/* one that passed its first window and lost later: the backoff */
	fresh(&pr);
	r.d = DMIN;
	drive(&pr, &r, fades, FNV_PROBE_FIRST + FNV_PROBE_HALF_NR, 0, LIM);
	tap_ok(pr.nr_up == 1 && !pr.nr_kept && !pr.retry &&
	       pr.wait > FNV_PROBE_RETRY,
	       "1.35 in the first window, 0.75 after: no quick retry (wait %u periods)",
	       pr.wait);
}

/* a failed trial goes back to where it came from, a rule above dmin */
static void test_back(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = 6, .need = ALWAYS, .keep_d = true };
	int i, after = -1;
	bool seen = false;

	fresh(&pr);
	for (i = 0; i < 200; i++) {
		drive(&pr, &r, flat, 1, 0, LIM);
		if (r.d == LIM)
			seen = true;
		else if (seen && after < 0)
			after = r.d;
	}
	tap_ok(seen && after == 6 && r.d == 6,
	       "flat rate, the rule at 6: a trial, then back to %d (6), at %u", after, r.d);
}

/*
 * A worker that runs late where the queue is deep (the host's CPUs busier)
 * does not make a flat device look faster there.
 */
static void test_late(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS, .late = 4 };

	fresh(&pr);
	seed = 11;
	drive(&pr, &r, flat, 1200, 0.05, LIM);
	tap_ok(r.d == DMIN && !pr.keep,
	       "flat rate, every 4th period at max_inflight 3 times late: nothing kept (depth %u)",
	       r.d);
}

/*
 * The caller's fairness window starts over (mark) where the probe's
 * windows do: when a trial starts, at the end of an upward trial's first
 * window if it runs on, and when a trial is judged.
 */
static double gain_130(unsigned int d)
{
	return d < LIM ? 2000 : 2600;
}

static void test_mark(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };
	int i, start = 0, judged = 0, first = 0, other = 0;
	rate_fn f = flat;

	for (int k = 0; k < 2; k++, f = gain_130) {
		fresh(&pr);
		r.d = DMIN;
		for (i = 0; i < 400; i++) {	/* trials at 10 s and 30 s */
			unsigned int to = pr.to;
			bool was_first = pr.first;

			pr.mark = false;
			drive(&pr, &r, f, 1, 0, LIM);
			if (!to && pr.to)
				start += pr.mark;
			else if (to && !pr.to)
				judged += pr.mark;
			else if (to && pr.mark && was_first && !pr.first)
				first++;
			else if (to && pr.mark)
				other++;
		}
	}
	/*
	 * flat: two trials, lost at their first window; 1.30: one runs on
	 * and is kept, then halves are tried
	 */
	tap_ok(start == judged && start >= 3 && first == 1 && !other,
	       "mark: at each trial's start (%d), end (%d), first window of one that runs on (%d of 1), not elsewhere (%d)",
	       start, judged, first, other);
}

/* one period that held nothing back does not release a kept depth */
static void test_keep_calm(void)
{
	struct fnv_dprobe pr;
	struct run r = { .d = DMIN, .need = ALWAYS };

	fresh(&pr);
	drive(&pr, &r, grows, 200, 0, LIM);
	r.need = 0;
	drive(&pr, &r, grows, 1, 0, LIM);
	r.need = ALWAYS;
	tap_ok(pr.keep == LIM && r.d == LIM,
	       "one period not limited: the kept depth stays (kept %u, depth %u)", pr.keep, r.d);
}

/*
 * fnv_depth_floor(): US(x) in ns. A lone request is @lone_ns, the device
 * time at the least depth @dev_ns; @n1 lone requests a period.
 */
#define US(x)	((u64)(x) * 1000)

static u64 floor_run(struct fnv_dfloor *f, u64 floor, int periods, u32 n1,
		     u64 lone_ns, u64 dev_ns, bool at_min)
{
	int i;

	for (i = 0; i < periods; i++)
		floor = fnv_depth_floor(f, floor, n1, n1 * lone_ns, dev_ns,
					at_min, true);
	return floor;
}

static void test_floor_lone(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl;

	fl = fnv_depth_floor(&f, 0, 1, US(450), 0, false, true);
	tap_ok(fl == US(450) && f.lone == US(450),
	       "floor: the first lone request sets it (%llu ns)",
	       (unsigned long long)fl);
	fl = fnv_depth_floor(&f, fl, 3, 3 * US(100), 0, true, true);
	fl = fnv_depth_floor(&f, fl, 4, 4 * US(100), 0, true, true);
	tap_ok(fl == US(225),
	       "floor: four lone requests lower it, by half at most a period (%llu)",
	       (unsigned long long)fl);
}

/*
 * A device that serves one request at a time, 450 us each: at depth 2 a
 * request takes 900 to 990 us. The floor stays where the lone requests
 * put it.
 */
static void test_floor_flat(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl = US(450);
	int i;

	fnv_depth_floor(&f, 0, 1, US(450), 0, false, true);
	for (i = 0; i < 600; i++)
		fl = fnv_depth_floor(&f, fl, i % 3 ? 0 : 4, 4 * US(450 + i % 7),
				     US(900 + (i * 37) % 91), true, true);
	tap_ok(fl >= US(450) && fl <= US(495),
	       "floor: one request at a time, 450 us: it stays at 450 to 495 us (%llu)",
	       (unsigned long long)fl);
}

/*
 * t29 c/wr on 6.1: lone 4 KiB writes at 1.9 ms, then at the least depth
 * every write waits for cache room behind 128 KiB ones (30 ms); the floor
 * rises, the depth grows, no request is alone and the device time stays
 * under twice the floor. It comes back; at the least depth again, it
 * settles where that depth's time is the target.
 */
static void test_floor_back(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl, top;

	fl = fnv_depth_floor(&f, 0, 4, 4 * US(1900), 0, false, true);
	fl = floor_run(&f, fl, 10, 0, 0, US(30000), true);
	top = fl;
	fl = floor_run(&f, fl, 30, 0, 0, US(20000), false);
	tap_ok(top >= US(10000) && fl <= US(1900) + (top - US(1900)) / 5 &&
	       fl >= US(1900) + (top - US(1900)) / 10,
	       "floor: raised at the least depth (%llu), back to a tenth to a fifth of the gap in 3 s at a deeper one (%llu)",
	       (unsigned long long)top, (unsigned long long)fl);
	fl = floor_run(&f, fl, 100, 0, 0, US(12000), true);
	tap_ok(fl >= US(5400) && fl <= US(6000),
	       "floor: at the least depth it settles where that depth's time (12 ms) is twice it (%llu)",
	       (unsigned long long)fl);
}

/*
 * The period after a deeper depth completes what that depth sent: its
 * device time does not raise the floor; the next one like it does.
 */
static void test_floor_after_deep(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl, one;

	fl = fnv_depth_floor(&f, 0, 4, 4 * US(500), 0, false, true);
	fl = floor_run(&f, fl, 5, 0, 0, US(800), false);
	one = fnv_depth_floor(&f, fl, 0, 0, US(16000), true, true);
	fl = fnv_depth_floor(&f, one, 0, 0, US(16000), true, true);
	tap_ok(one == US(500) && fl == US(500) + (US(8000) - US(500)) / 8,
	       "floor: not raised by the first period at the least depth (%llu), by the second (%llu)",
	       (unsigned long long)one, (unsigned long long)fl);
}

/*
 * A solo period between two at the least depth: the second is the first
 * after it, and does not raise the floor.
 */
static void test_floor_solo_between(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl;

	fl = fnv_depth_floor(&f, 0, 4, 4 * US(500), 0, false, true);
	fl = floor_run(&f, fl, 3, 0, 0, US(800), true);
	fl = fnv_depth_floor(&f, fl, 0, 0, US(800), true, false);
	fl = fnv_depth_floor(&f, fl, 0, 0, US(16000), true, true);
	tap_ok(fl == US(500),
	       "floor: the first period at the least depth after a solo one does not raise it (%llu)",
	       (unsigned long long)fl);
}

/*
 * The lone requests' value: up by an eighth of the gap, not past the
 * floor; measured again from 0 (dev_target_us back to auto), what came
 * before does not count.
 */
static void test_floor_lone_rises(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl, lone;

	fl = fnv_depth_floor(&f, 0, 4, 4 * US(400), 0, false, true);
	fl = floor_run(&f, fl, 30, 0, 0, US(8000), true);
	fl = fnv_depth_floor(&f, fl, 4, 4 * US(1200), 0, false, true);
	lone = f.lone;
	fl = floor_run(&f, fl, 200, 4, US(90000), 0, false);
	tap_ok(lone == US(400) + (US(1200) - US(400)) / 8 && f.lone == fl,
	       "floor: lone requests slower than it raise their own value by 1/8 of the gap (%llu), never past the floor (%llu, %llu)",
	       (unsigned long long)lone, (unsigned long long)f.lone,
	       (unsigned long long)fl);
	fl = fnv_depth_floor(&f, 0, 1, US(300), US(16000), true, true);
	tap_ok(fl == US(300) && f.lone == US(300),
	       "floor: measured again from 0, it is the first lone request's (%llu)",
	       (unsigned long long)fl);
}

/* a lone tenant at max_inflight: lone requests lower it, nothing else */
static void test_floor_solo(void)
{
	struct fnv_dfloor f = { 0 };
	u64 fl, was;
	int i;

	fl = fnv_depth_floor(&f, 0, 4, 4 * US(500), 0, false, true);
	was = floor_run(&f, fl, 20, 0, 0, US(5000), true);
	fl = was;
	for (i = 0; i < 50; i++)
		fl = fnv_depth_floor(&f, fl, 0, 0, US(90000), false, false);
	tap_ok(fl == was && fl > US(2000),
	       "floor: solo periods neither raise nor lower it (%llu)",
	       (unsigned long long)fl);
	fl = fnv_depth_floor(&f, fl, 4, 4 * US(400), US(90000), false, false);
	tap_ok(fl < US(2000) && f.lone == US(400),
	       "floor: ... but their lone requests do (%llu, lone %llu)",
	       (unsigned long long)fl, (unsigned long long)f.lone);
}

int main(void)
{
	tap_plan(4 +		/* test_flat */
		 1 +		/* test_flat_noisy */
		 3 +		/* test_knee */
		 2 +		/* test_grows */
		 2 +		/* test_dither */
		 1 +		/* test_noisy_halves */
		 1 +		/* test_not_limited */
		 1 +		/* test_lim_lowered */
		 2 +		/* test_solo */
		 1 +		/* test_reset */
		 1 +		/* test_keep_released */
		 2 +		/* test_demand_fits */
		 2 +		/* test_large */
		 3 +		/* test_fairness */
		 1 +		/* test_fair_later */
		 1 +		/* test_fair_weak */
		 3 +		/* test_retry */
		 1 +		/* test_back */
		 1 +		/* test_late */
		 1 +		/* test_keep_calm */
		 1 +		/* test_mark */
		 2 +		/* test_floor_lone */
		 1 +		/* test_floor_flat */
		 2 +		/* test_floor_back */
		 1 +		/* test_floor_after_deep */
		 2 +		/* test_floor_solo */
		 1 +		/* test_floor_solo_between */
		 2);		/* test_floor_lone_rises */
	test_flat();
	test_flat_noisy();
	test_knee();
	test_grows();
	test_dither();
	test_noisy_halves();
	test_not_limited();
	test_lim_lowered();
	test_solo();
	test_reset();
	test_keep_released();
	test_demand_fits();
	test_large();
	test_fairness();
	test_fair_later();
	test_fair_weak();
	test_retry();
	test_back();
	test_late();
	test_keep_calm();
	test_mark();
	test_floor_lone();
	test_floor_flat();
	test_floor_back();
	test_floor_after_deep();
	test_floor_solo();
	test_floor_solo_between();
	test_floor_lone_rises();
	return tap_done();
}
