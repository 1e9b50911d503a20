// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: FairNVMe's state-driven tenant controller.
 *
 * Once per control period each tenant is classified by the mean latency of
 * its requests against three thresholds: idle below Thresh_min, balanced
 * below the adaptive Thresh_cur, unbalanced below Thresh_max, saturated
 * above (FairNVMe, section 3.2).
 *
 * Which latency: by default the head latency, from the moment a request
 * became the oldest of its tenant (its insertion, or the dispatch of the
 * tenant's previous request, whichever came later) to its completion. It
 * is what the scheduler and the device made the tenant wait. Its part
 * before dispatch is scaled by the tenant's weight over the mean weight of
 * the busy tenants (the kernel's head_scale): under weighted sharing a
 * tenant with half the weight is served half as often and waits twice as
 * long at the head, which is its due, not a sign of unfairness (D2FQ's
 * classes; budget cycles leave that wait out instead). The latency
 * from insertion (FNV_LAT_QUEUE, the paper's) also counts the time a
 * request waits behind its own tenant's earlier ones: a tenant that keeps
 * 256 requests queued looks saturated however it is served, and a tenant
 * with one request at a time looks balanced however little it gets, so the
 * controller would move weight from light tenants to deep ones.
 * Thresh_cur follows the latency with the asymmetric EWMA of Eq. 3-4, fast
 * up (k_u) and slow down (k_d), so that it settles where the tenant's
 * latency usually is.
 *
 * The actions are those of Algorithm 1, applied to a multiplier of the
 * configured weight rather than to the weight itself:
 *
 *   idle        mult -= beta, not below FNV_MULT_MIN: give capacity away
 *   balanced    mult closes half of its gap to 1 each period: the
 *               effective weight decays back to the configured one
 *   unbalanced  mult += beta, Thresh_cur halfway to Thresh_max, and ask
 *               for budget compensation
 *   saturated   mult += 2 beta, Thresh_cur = Thresh_max, compensation
 *
 * mult stays within [FNV_MULT_MIN, FNV_MULT_MAX]: no tenant is driven to
 * zero, none can take more than four times its configured weight.
 *
 * Except for a backlogged tenant: one that had a request waiting in the
 * scheduler behind another of its own in the period (a reader at queue
 * depth 1 never has). Such a tenant
 * takes all the policy gives it, which is its weight's share of what the
 * others leave; its latency is its own queue's, and a multiplier would
 * only move share between tenants that all want more: with every tenant
 * of a host backlogged, a new one (mult 1) got a quarter of its weight
 * against the saturated ones (mult 4), and one whose latency dipped into
 * balanced for a few periods lost a third of its share (8 weighted
 * tenants, 5 s windows, shares 10 % to 49 % off their weights). Its
 * multiplier is one; it is still classified, and still asks for budget
 * compensation. The multiplier is for the tenants that are not: a reader
 * at queue depth 1 that waits too long is raised, one that sits idle
 * gives way.
 *
 * A tenant is judged on enough samples. One in FNV_SAMPLE_EVERY requests is
 * measured, so a tenant served 170 times a second has about 4 samples per
 * 100 ms period; the mean of 4 is noise, and a period with none is not
 * idleness while the tenant has requests queued. Each noisy "saturated"
 * raises that tenant's weight by half, each "idle" cuts it, so the noise
 * did not cancel out: under host CPU load, weights 800:600:400:200 got
 * 0.426/0.303/0.184/0.087. A busy tenant's periods are therefore pooled
 * until they hold FNV_CTL_MIN_NR samples (or FNV_CTL_MAX_DEFER periods
 * passed); a tenant with nothing outstanding is judged at once, so that
 * idleness is seen within a period.
 *
 * Cost estimation learns, per tenant, the service time of a read and of a
 * write (device time divided by the requests at the device when it was
 * dispatched: what the request cost the device, not how long it queued
 * there). Budget compensation is Eq. 5-7: budgets in proportion to weight
 * times the device time of the tenant's demand.
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <fairnvme/state.h>

static const char * const fnv_state_names[FNV_NR_STATES] = {
	[FNV_IDLE] = "idle",
	[FNV_BALANCED] = "balanced",
	[FNV_UNBALANCED] = "unbalanced",
	[FNV_SATURATED] = "saturated",
};

const char *fnv_ctl_state_name(enum fnv_state s)
{
	return s < FNV_NR_STATES ? fnv_state_names[s] : "?";
}

void fnv_ctl_init(struct fnv_ctl *c, const struct fnv_ctl_params *p,
		  u64 default_cost)
{
	c->thresh_cur = p->thresh_min + (p->thresh_max - p->thresh_min) / 2;
	c->lat = 0;
	c->head = 0;
	c->dev = 0;
	c->cost[0] = default_cost;
	c->cost[1] = default_cost;
	c->mult = FNV_MULT_ONE;
	c->ratio_w = 0;
	c->state = FNV_BALANCED;
	memset(&c->pend, 0, sizeof(c->pend));
	c->deferred = 0;
}

static void fnv_sample_add(struct fnv_sample *a, const struct fnv_sample *s)
{
	int t;

	a->nr += s->nr;
	a->lat_sum += s->lat_sum;
	a->head_sum += s->head_sum;
	a->head_nr += s->head_nr;
	a->dev_sum += s->dev_sum;
	for (t = 0; t < 2; t++) {
		a->nr_type[t] += s->nr_type[t];
		a->svc_sum[t] += s->svc_sum[t];
	}
	a->head_scale = s->head_scale;
	a->busy = s->busy;
	a->queued = s->queued;
}

enum fnv_state fnv_ctl_classify(u64 lat, u64 thresh_min, u64 thresh_cur,
				u64 thresh_max)
{
	if (lat < thresh_min)
		return FNV_IDLE;
	if (lat >= thresh_max)
		return FNV_SATURATED;
	if (lat >= thresh_cur)
		return FNV_UNBALANCED;
	return FNV_BALANCED;
}

/* (1 - k)^n in 32.32 fixed point, k in ppm, 1 <= k < 10^6 */
static u64 fnv_pow_q32(u32 k_ppm, u64 n)
{
	u64 base = div64_u64((u64)(1000000 - k_ppm) << 32, 1000000);
	u64 r = 1ULL << 32;

	while (n && r) {
		if (n & 1)
			r = mul_u64_u32_shr(r, (u32)base, 32);
		base = mul_u64_u32_shr(base, (u32)base, 32);
		n >>= 1;
	}
	return r;
}

/*
 * Eq. 3 applied to n samples of the same latency: the threshold moves
 * monotonically toward it, so k (Eq. 4) is the same for all n steps and
 * Thresh_n = lat + (Thresh_0 - lat) * (1 - k)^n.
 */
u64 fnv_ctl_thresh_ewma(u64 thresh, u64 lat, u64 n, u32 ku_ppm, u32 kd_ppm)
{
	u32 k = lat > thresh ? ku_ppm : kd_ppm;
	u64 f;

	if (!n || !k)
		return thresh;
	if (k >= 1000000)
		return lat;
	f = fnv_pow_q32(k, n);		/* < 2^32 */
	if (thresh > lat)
		return lat + mul_u64_u32_shr(thresh - lat, (u32)f, 32);
	return lat - mul_u64_u32_shr(lat - thresh, (u32)f, 32);
}

static u64 fnv_clamp_u64(u64 v, u64 lo, u64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

bool fnv_ctl_period(struct fnv_ctl *c, const struct fnv_sample *period,
		    const struct fnv_ctl_params *p)
{
	const struct fnv_sample *smp = &c->pend;
	enum fnv_state state;
	bool compensate = false;
	u64 lat = 0, head;
	int t;

	fnv_sample_add(&c->pend, period);
	if (period->queued)
		c->mult = FNV_MULT_ONE;
	if (smp->busy && smp->nr < FNV_CTL_MIN_NR &&
	    (!smp->nr || ++c->deferred < FNV_CTL_MAX_DEFER))
		return false;

	if (!smp->nr) {
		/* nothing completed: the tenant used nothing of its share */
		state = FNV_IDLE;
	} else {
		c->lat = div64_u64(smp->lat_sum, smp->nr);
		c->dev = div64_u64(smp->dev_sum, smp->nr);
		/* head latency = wait at the head + device time */
		head = smp->head_nr ?
		       div64_u64(smp->head_sum, smp->head_nr) : 0;
		c->head = smp->head_scale ?
			  mul_u64_u32_shr(head, smp->head_scale, 10) : head;
		head += c->dev;
		c->head += c->dev;
		c->ratio_w = (u32)div64_u64(smp->nr_type[1] * 1000, smp->nr);
		for (t = 0; t < 2; t++) {
			u64 svc;
			u32 k;

			if (!smp->nr_type[t])
				continue;
			svc = div64_u64(smp->svc_sum[t], smp->nr_type[t]);
			/*
			 * EWMA by sample, not by period: a tenant with few
			 * samples would otherwise have the noisiest cost, and
			 * since its share goes as 1 / cost, noise alone would
			 * hand it more than its weight (a light tenant got
			 * 0.114 of the device for a weight share of 0.1).
			 */
			k = min_t(u32, smp->nr_type[t], FNV_COST_SAMPLES);
			if (svc >= c->cost[t])
				c->cost[t] += div_u64((svc - c->cost[t]) * k,
						      FNV_COST_SAMPLES);
			else
				c->cost[t] -= div_u64((c->cost[t] - svc) * k,
						      FNV_COST_SAMPLES);
			if (!c->cost[t])
				c->cost[t] = 1;
		}
		if (p->signal == FNV_LAT_QUEUE) {
			lat = c->lat;
			state = fnv_ctl_classify(lat, p->thresh_min, c->thresh_cur,
						 p->thresh_max);
		} else {
			/*
			 * Idle is about what the tenant itself waited: scaled
			 * down by a low weight, a busy tenant's head latency
			 * could fall below Thresh_min.
			 */
			lat = max(c->head, p->thresh_min);
			state = head < p->thresh_min ? FNV_IDLE :
				fnv_ctl_classify(lat, p->thresh_min,
						 c->thresh_cur, p->thresh_max);
		}
	}

	switch (state) {
	case FNV_IDLE:
		c->mult = c->mult > FNV_MULT_MIN + p->beta ?
			  c->mult - p->beta : FNV_MULT_MIN;
		c->thresh_cur = fnv_ctl_thresh_ewma(c->thresh_cur, lat, smp->nr,
						    p->ku_ppm, p->kd_ppm);
		break;
	case FNV_BALANCED:
		if (c->mult > FNV_MULT_ONE)
			c->mult -= (c->mult - FNV_MULT_ONE + 1) / 2;
		else
			c->mult += (FNV_MULT_ONE - c->mult + 1) / 2;
		c->thresh_cur = fnv_ctl_thresh_ewma(c->thresh_cur, lat, smp->nr,
						    p->ku_ppm, p->kd_ppm);
		break;
	case FNV_UNBALANCED:
		c->mult += p->beta;
		c->thresh_cur = c->thresh_cur +
				(p->thresh_max - c->thresh_cur) / 2;
		compensate = true;
		break;
	default:
		c->mult += 2 * p->beta;
		c->thresh_cur = p->thresh_max;
		compensate = true;
		break;
	}
	if (period->queued)
		c->mult = FNV_MULT_ONE;
	if (c->mult > FNV_MULT_MAX)
		c->mult = FNV_MULT_MAX;
	if (c->mult < FNV_MULT_MIN)
		c->mult = FNV_MULT_MIN;
	c->thresh_cur = fnv_clamp_u64(c->thresh_cur, p->thresh_min,
				      p->thresh_max);
	c->state = state;
	memset(&c->pend, 0, sizeof(c->pend));
	c->deferred = 0;
	return compensate;
}

u32 fnv_ctl_weight(const struct fnv_ctl *c, u32 weight)
{
	u64 w = div64_u64((u64)weight * c->mult, FNV_MULT_ONE);

	return w ? (u32)w : 1;
}

/* Eq. 6-7, summed: Req * ((1 - Ratio_w) * Time_r + Ratio_w * Time_w), us */
u64 fnv_ctl_demand_us(u64 req, u32 ratio_w, const u64 cost[2])
{
	u64 tr = cost[0] < 1000000000 ? cost[0] : 1000000000;
	u64 tw = cost[1] < 1000000000 ? cost[1] : 1000000000;

	if (ratio_w > 1000)
		ratio_w = 1000;
	if (req > 1000000)
		req = 1000000;
	/* <= 10^6 * 10^3 * 10^9 = 10^18 < 2^64 */
	return div64_u64(req * ((1000 - ratio_w) * tr + ratio_w * tw),
			 1000000);
}

u64 fnv_ctl_eq5_x(u32 weight, u64 demand_us)
{
	/* weight < 2^21, demand < 10^15: a few tenants' sum fits 2^64 */
	if (demand_us > 1000000000000000ULL)
		demand_us = 1000000000000000ULL;
	return (u64)weight * demand_us;
}

u64 fnv_ctl_eq5_add(u64 sum, u64 x)
{
	return sum + x < sum ? U64_MAX : sum + x;
}

u64 fnv_ctl_eq5_budget(u64 b_total, u64 x, u64 sum, u32 n)
{
	if (!sum)
		return n ? div64_u64(b_total, n) : 0;
	if (x >= sum)
		return b_total;
	return mul_u64_u64_div_u64(b_total, x, sum);
}
