// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: rate trials of the automatic dispatch depth.
 *
 * Under TCG, and on any host whose CPU completes the requests, a
 * request's device time also grows with the depth when the device is not
 * what queues them: on null_blk completing from a timer, 1008 QD1 tenants
 * ran at depth 2 (device time above the target) at 6600 IOPS, at depth 4
 * at 8100, at depth 8 at 8700 to 10000, at max_inflight at 10500 to 13000
 * (none: 20000). The device time alone cannot tell that from a device
 * that serves one request at a time; the rate of completions can.
 *
 * While the depth holds requests back (limited), max_inflight is tried for
 * a window once pr->wait limited periods have passed (FNV_PROBE_FIRST at
 * first): if its first window completed 9/8 of the rate at the depth
 * held and kept the weights' effect, it runs on to FNV_PROBE_HALF_NR
 * periods; if over them it still completed 9/8 of that rate and, from
 * the end of its first window, kept the weights' effect within
 * FNV_FAIR_SLACK and at least half of it, it stays, as the least depth
 * the rule may shrink to (keep); else (at once when its first window
 * fails) the depth goes back and the next trial waits FNV_PROBE_WAIT periods, twice as
 * long after each further failure (up to FNV_PROBE_WAIT_MAX); a first
 * window that gained 17/16 but not 9/8 is tried again after
 * FNV_PROBE_RETRY periods, once per step of the backoff. A kept
 * depth is tried by half after FNV_PROBE_KEEP periods, and at once again
 * after a half that kept 15/16 of max_inflight's rate over
 * FNV_PROBE_HALF_NR periods: the depth comes down to the least that loses
 * a sixteenth at most. A half that lost more (judged after a window) is
 * tried again twice as late each time (up to FNV_PROBE_KEEP_MAX). A
 * device that queues the requests itself (QEMU's throttle, one command at
 * a time) completes as many at any depth and keeps the rule's; there each
 * trial makes the requests wait behind max_inflight others for its
 * window, which is why trials are rare: on the emulated NVMe at 2000 IOPS,
 * trials every 2 s made a QD1 reader's p99 3 times longer (t10: 12 to 14
 * ms against 4.4).
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <fairnvme/depth.h>

/*
 * A period longer than cap_us (a worker that ran late, the first period
 * after idle) counts as cap_us, its completions scaled alike: one period
 * three times late in a window of four otherwise made a flat device's
 * rate look 20 % higher, past the 9/8 a trial must gain.
 */
static void fnv_rate_add(struct fnv_rate *r, const struct fnv_dperiod *per)
{
	u64 nr = per->nr, dt = per->dt_us;

	if (per->cap_us && dt > per->cap_us) {
		nr = div64_u64(nr * per->cap_us, dt);
		dt = per->cap_us;
	}
	r->nr += nr;
	r->dt += dt;
	r->n++;
	if (per->fair != FNV_FAIR_NONE) {
		r->fair = min(per->fair, 2 * FNV_FAIR_ONE);
		r->fn++;
	}
}

/* a period at the depth held, @d */
static void fnv_base_add(struct fnv_dprobe *pr, u32 d,
			 const struct fnv_dperiod *per)
{
	if (!pr->base.n) {
		pr->base_lo = d;
		pr->base_hi = d;
	}
	pr->base_lo = min(pr->base_lo, d);
	pr->base_hi = max(pr->base_hi, d);
	fnv_rate_add(&pr->base, per);
}

static bool fnv_rate_full(const struct fnv_rate *r)
{
	return r->n >= FNV_PROBE_MAX_NR ||
	       (r->n >= FNV_PROBE_NR && r->nr >= FNV_PROBE_MIN_NR);
}

/* rate(a) * den >= rate(b) * num; false while b has no window */
static bool fnv_rate_ge(const struct fnv_rate *a, const struct fnv_rate *b,
			u32 num, u32 den)
{
	return b->n && (u64)den * a->nr * b->dt >= (u64)num * b->nr * a->dt;
}

/*
 * fair(a) + FNV_FAIR_SLACK >= fair(b) (@up) or fair(a) > fair(b) +
 * FNV_FAIR_SLACK (!@up); true for @up, false for !@up, while either has
 * no fairness measured.
 */
static bool fnv_rate_fair(const struct fnv_rate *a, const struct fnv_rate *b,
			  bool up)
{
	if (!a->fn || !b->fn)
		return up;
	return up ? a->fair + FNV_FAIR_SLACK >= b->fair :
		    a->fair > b->fair + FNV_FAIR_SLACK;
}

static void fnv_rate_zero(struct fnv_rate *r)
{
	memset(r, 0, sizeof(*r));
}

/* a new window: the caller's fairness starts over with the next period */
static void fnv_window_new(struct fnv_dprobe *pr, struct fnv_rate *r)
{
	fnv_rate_zero(r);
	pr->mark = true;
}

/* an upward trial gained nothing (or was cut short): wait twice as long */
static void fnv_probe_backoff(struct fnv_dprobe *pr)
{
	pr->wait = pr->wait_next;
	pr->wait_next = min(2 * pr->wait_next, FNV_PROBE_WAIT_MAX);
}

/* a half trial's window keeps max_inflight's rate, or is fairer */
static bool fnv_half_keeps(const struct fnv_dprobe *pr)
{
	return fnv_rate_ge(&pr->trial, &pr->ref, 15, 16) ||
	       fnv_rate_fair(&pr->trial, &pr->ref, false);
}

/* the weights' effect, as fnv_up_keeps() wants it */
static bool fnv_up_fair(const struct fnv_rate *t, const struct fnv_rate *b)
{
	return fnv_rate_fair(t, b, true) &&
	       (!t->fn || !b->fn || 2 * t->fair >= b->fair);
}

/*
 * An upward trial gains 9/8 of the base's rate over all its periods, and
 * its fairness, measured from the end of its first window, kept the
 * weights' effect within FNV_FAIR_SLACK and at least half of it: at
 * max_inflight on 6.12, weights 100 and 300 kept 0.04 of their effect
 * where the depth held kept 0.14 (t27), within the slack but not a gain
 * worth the weights.
 */
static bool fnv_up_keeps(const struct fnv_dprobe *pr)
{
	const struct fnv_rate *t = &pr->trial, *b = &pr->base;

	return fnv_rate_ge(t, b, 9, 8) && fnv_up_fair(t, b);
}

/*
 * An upward trial's first window: lost at once if it gained less than 9/8
 * or lost the weights' effect; else the trial runs on to
 * FNV_PROBE_HALF_NR periods. Its fairness starts over (mark) at the end
 * of the first window: the requests the depth held back, queued in the
 * weights' order, kept their effect for a window before the device's
 * order took over (t27 on 6.12: 0.3 of the weights' effect in the first
 * window, 0.04 to 0.1 after).
 */
static bool fnv_up_first(struct fnv_dprobe *pr)
{
	if (!fnv_rate_ge(&pr->trial, &pr->base, 9, 8) ||
	    !fnv_rate_fair(&pr->trial, &pr->base, true))
		return false;
	pr->first = false;
	pr->trial.fn = 0;
	pr->mark = true;
	return true;
}

/* an upward trial past its first window runs on */
static bool fnv_up_running(const struct fnv_dprobe *pr)
{
	const struct fnv_rate *t = &pr->trial, *b = &pr->base;

	return fnv_rate_ge(t, b, 9, 8) &&
	       (t->fn < FNV_PROBE_NR || fnv_up_fair(t, b));
}

/* the end of a trial's window: its depth, or back to where it came from */
static u32 fnv_probe_judge(struct fnv_dprobe *pr, u32 dmin)
{
	u32 d = pr->from;

	if (pr->up) {
		pr->ref = pr->trial;
		pr->was = pr->base;
		pr->nr_up++;
		if (fnv_up_keeps(pr)) {
			pr->nr_kept++;
			pr->retry = false;
			d = pr->to;
			pr->keep = d;
			pr->keep_left = FNV_PROBE_KEEP;
			pr->keep_next = FNV_PROBE_KEEP;
			pr->wait_next = FNV_PROBE_WAIT;
		} else if (!pr->retry && pr->first &&
			   fnv_rate_ge(&pr->trial, &pr->base, 17, 16) &&
			   !fnv_rate_ge(&pr->trial, &pr->base, 9, 8) &&
			   fnv_rate_fair(&pr->trial, &pr->base, true)) {
			/*
			 * A first window that gained 17/16 but not 9/8, and
			 * kept the weights' effect: the next trial comes soon,
			 * once per step of the backoff. Under TCG one window's
			 * rate is off by a tenth: a trial gained 1.10 in its
			 * window where the run at max_inflight gained 1.32,
			 * and the next trial, 200 periods on, came after the
			 * run (t26 on 6.1).
			 */
			pr->retry = true;
			pr->wait = FNV_PROBE_RETRY;
		} else {
			pr->retry = false;
			fnv_probe_backoff(pr);
		}
	} else if (fnv_half_keeps(pr)) {
		d = pr->to;
		pr->keep = d > dmin ? d : 0;
		pr->keep_left = 0;		/* and half again */
	} else {
		/* the next half waits twice as long */
		pr->keep_left = pr->keep_next;
		pr->keep_next = min(2 * pr->keep_next, FNV_PROBE_KEEP_MAX);
	}
	pr->to = 0;
	pr->first = false;
	if (d != pr->from)
		pr->base = pr->trial;
	pr->mark = true;
	return d;
}

/*
 * @d: the depth in force; @want: what the device-time rule wants (the
 * least the depth goes to); @per: the period; @lim: max_inflight; @dmin:
 * the least depth while requests wait. Returns the depth to set; the
 * caller records it in pr->set (any other depth found in force next time,
 * set through sysfs, starts the trials over).
 */
u32 fnv_depth_probe(struct fnv_dprobe *pr, u32 d, u32 want,
		    const struct fnv_dperiod *per, u32 lim, u32 dmin)
{
	if (pr->set != d) {
		u32 up = pr->nr_up, kept = pr->nr_kept;

		memset(pr, 0, sizeof(*pr));
		pr->nr_up = up;
		pr->nr_kept = kept;
		pr->wait = FNV_PROBE_FIRST;
		pr->wait_next = FNV_PROBE_WAIT;
		pr->keep_next = FNV_PROBE_KEEP;
		pr->mark = true;
	}
	pr->keep = min(pr->keep, lim);
	pr->last_fair = per->fair;
	if (pr->to > lim) {			/* max_inflight lowered */
		pr->to = 0;
		fnv_window_new(pr, &pr->base);
		return min(pr->from, lim);
	}
	if (pr->to) {
		/*
		 * Every period counts: at the depth on trial, what it did not
		 * hold back is what the tenants asked for.
		 */
		fnv_rate_add(&pr->trial, per);
		if (!fnv_rate_full(&pr->trial))
			return pr->to;
		if (pr->up && pr->first) {
			if (fnv_up_first(pr))
				return pr->to;
			return fnv_probe_judge(pr, dmin);
		}
		/*
		 * A trial is judged after FNV_PROBE_HALF_NR periods; before,
		 * a half goes at once when it loses (it kept the rate by
		 * chance in one window under TCG: t26 on 6.12), an upward one
		 * when it no longer gains 9/8, or lost the weights' effect
		 * over FNV_PROBE_NR periods since its first window.
		 */
		if (pr->trial.n < FNV_PROBE_HALF_NR &&
		    (pr->up ? fnv_up_running(pr) : fnv_half_keeps(pr)))
			return pr->to;
		return fnv_probe_judge(pr, dmin);
	}
	if (!per->limited || !per->nr) {
		/*
		 * Demand set the rate, not the depth: measure again. A kept
		 * depth the load has not needed for FNV_PROBE_KEEP periods in
		 * a row goes.
		 */
		fnv_window_new(pr, &pr->base);
		if (pr->keep_left)
			pr->keep_left--;
		if (++pr->calm >= FNV_PROBE_KEEP)
			pr->keep = 0;
		return max(want, pr->keep);
	}
	pr->calm = 0;
	if (pr->keep_left)
		pr->keep_left--;
	if (pr->wait)
		pr->wait--;
	fnv_base_add(pr, d, per);
	if (pr->base.n > FNV_PROBE_MAX_NR) {	/* the recent periods */
		pr->base.nr /= 2;
		pr->base.dt /= 2;
		pr->base.n /= 2;
		pr->base.fn = (pr->base.fn + 1) / 2;
	}
	if (want > d || (want < d && d > pr->keep)) {
		u32 to = max(want, pr->keep);

		/*
		 * The rule moves the depth. Stepping about its own (2, 3, 2
		 * ...), its rate is what a trial competes with, and the
		 * window goes on: one that started over at each step filled
		 * only by chance, and t26's first trial came after 19 s, not
		 * 10. A depth off the window's by more than twice (a trend,
		 * a kept depth let go) starts a new one.
		 */
		if (to > 2 * pr->base_lo || 2 * to < pr->base_hi)
			fnv_window_new(pr, &pr->base);
		return to;
	}
	if (!fnv_rate_full(&pr->base))
		return d;
	if (d == lim)
		pr->ref = pr->base;
	if (want < d && !pr->keep_left && pr->ref.n)
		pr->to = max(max(d / 2, want), dmin);	/* kept: try half */
	else if (d < lim && !pr->wait)
		pr->to = lim;
	else
		return d;
	pr->up = pr->to > d;
	pr->first = pr->up;
	pr->from = d;
	fnv_window_new(pr, &pr->trial);
	return pr->to;
}

/*
 * A period in which one tenant ran alone, at max_inflight: its rate says
 * nothing of the depth. Returns the depth a trial that ran came from, to
 * set again (the caller clamps it to max_inflight), or 0.
 */
u32 fnv_depth_probe_solo(struct fnv_dprobe *pr)
{
	fnv_window_new(pr, &pr->base);
	if (!pr->to)
		return 0;
	if (pr->up)
		fnv_probe_backoff(pr);
	pr->to = 0;
	pr->set = pr->from;
	return pr->from;
}

/*
 * The device's time for one request alone (dev_floor), once per control
 * period: @floor the one in force (0: not known yet), @n1 requests of the
 * period that were dispatched with nothing else in flight and @sum1 their
 * device times (ns), @dev_mean the period's mean device time (sampled),
 * @at_min whether the period ran at the least depth under the automatic
 * target, @judge false for a period that says nothing of the depth (one
 * tenant ran at max_inflight). Returns the floor to put in force.
 *
 * The lone requests' mean, over FNV_DEV1_MIN_NR of them at least, lowers
 * the floor at once, by half at most a period. The floor rises only where
 * even the least depth exceeds FNV_DEPTH_MULT times it, in a period at
 * that depth that follows another at it (the first after a deeper depth
 * completes what that depth sent), by an eighth of the gap to the floor
 * that would make that depth's time the target: the device, or the mix of
 * requests, got slower. A floor so raised comes back towards the lone
 * requests' by 1/2^FNV_FLOOR_BACK_SHIFT of the gap in every other judged
 * period (also at a fixed dev_target_us, where only the thresholds read
 * it): at a deeper depth no request is alone, and nothing else would
 * lower it. The caller does not judge a depth trial's periods either.
 * fnvssd's 4 KiB writer beside a 128 KiB one (t29 c/wr, 6.1), at the
 * least depth, saw each write wait for the 128 KiB ones ahead of it for
 * cache room: the floor went from 1.9 to 13.8 ms, the target let the
 * depth grow to 8 to 13, where no request was ever alone, and the floor
 * stayed for the rest of the run: the 4 KiB writer got 0.34 of the die
 * time (0.5 due; 0.50 in runs where the floor came back).
 *
 * The lone requests' own value follows their mean: down as the floor
 * does, up by an eighth of the gap, never above the floor.
 */
u64 fnv_depth_floor(struct fnv_dfloor *f, u64 floor, u32 n1, u64 sum1,
		    u64 dev_mean, bool at_min, bool judge)
{
	/* a floor measured again: nothing before it counts */
	bool was_min = f->at_min && floor;

	f->at_min = at_min && judge;
	if (n1 >= FNV_DEV1_MIN_NR || (n1 && !floor)) {
		u64 m1 = max(div_u64(sum1, n1), 1ULL);

		if (!floor) {
			floor = m1;
			f->lone = m1;
		} else {
			if (m1 < floor)
				floor = max(m1, floor / 2);
			if (!f->lone || m1 < f->lone)
				f->lone = max(m1, f->lone / 2);
			else
				f->lone += (m1 - f->lone) >> 3;
		}
	}
	if (!floor)
		return 0;
	f->lone = min(f->lone, floor);
	if (!judge)
		return floor;
	if (at_min && was_min && dev_mean > floor * FNV_DEPTH_MULT)
		floor += (div_u64(dev_mean, FNV_DEPTH_MULT) - floor) >> 3;
	else if (f->lone && floor > f->lone)
		floor -= (floor - f->lone) >> FNV_FLOOR_BACK_SHIFT;
	return floor;
}
