// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the control period: every ctl_period_ms a worker takes the
 * completions sampled since the last period, runs the FairNVMe state
 * controller per tenant (state.c), adapts the dispatch depth, the latency
 * thresholds and tau_l, and does D2FQ's periodic upkeep (d2fq.c).
 */
#include "fairnvme.h"
#include <trace/events/fairnvme.h>

const struct fnv_ctl_params fnv_ctl_defaults = {
	.thresh_min = FNV_THRESH_MIN_US_DEF * NSEC_PER_USEC,
	.thresh_max = FNV_THRESH_MAX_US_DEF * NSEC_PER_USEC,
	.ku_ppm = FNV_KU_PPM_DEF,
	.kd_ppm = FNV_KD_PPM_DEF,
	.beta = FNV_BETA_DEF,
	.signal = FNV_LAT_HEAD,
};

/* Policy callback: tracepoint on every budget refill. */
void fnv_flow_refilled(struct fnv_sched *s, struct fnv_flow *f)
{
	struct fnv_data *fd = container_of(s, struct fnv_data, sched);
	struct fnv_tenant *tn = container_of(f, struct fnv_tenant, flow);

	trace_fairnvme_refill(disk_devt(fd->q->disk), fnv_tenant_cgid(tn),
			      s->cycle, f->weight, f->budget);
	fnv_msg(fd, tn, "refill cycle=%u weight=%u budget=%lld", s->cycle,
		f->weight, f->budget);
}

/* Move the completions accounted since the last period into @smp. */
static void fnv_take_sample(struct fnv_tenant *tn, struct fnv_sample *smp)
{
	int t;

	smp->lat_sum = atomic64_xchg(&tn->acc_lat, 0);
	smp->head_sum = tn->head_acc;
	smp->head_nr = tn->head_nr;
	tn->head_acc = 0;
	tn->head_nr = 0;
	smp->dev_sum = atomic64_xchg(&tn->acc_dev, 0);
	smp->nr = 0;
	for (t = 0; t < 2; t++) {
		smp->svc_sum[t] = atomic64_xchg(&tn->acc_svc[t], 0);
		smp->sect_sum[t] = atomic64_xchg(&tn->acc_sect[t], 0);
		smp->nr_type[t] = atomic_xchg(&tn->acc_nr[t], 0);
		smp->nr += smp->nr_type[t];
	}
	smp->nr_fua = atomic_xchg(&tn->acc_fua, 0);
}

static void fnv_read_params(struct fnv_data *fd, struct fnv_ctl_params *p)
{
	p->thresh_min = READ_ONCE(fd->ctl.thresh_min);
	p->thresh_max = READ_ONCE(fd->ctl.thresh_max);
	p->ku_ppm = READ_ONCE(fd->ctl.ku_ppm);
	p->kd_ppm = READ_ONCE(fd->ctl.kd_ppm);
	p->beta = READ_ONCE(fd->ctl.beta);
	p->signal = READ_ONCE(fd->ctl.signal);
	if (p->thresh_min >= p->thresh_max)	/* mid-update: keep going */
		p->thresh_max = p->thresh_min + 1;
}

/*
 * Budget compensation (Eq. 5-7) for every tenant of the device. Req_i is
 * what the tenant has outstanding (queued and at the device), at least 1
 * and at most the dispatch depth: the requests it can have served in
 * parallel. Its demand D_i = Req_i * ((1 - Ratio_w) * Time_r + Ratio_w *
 * Time_w) in learned device time. Compensation only adds: a tenant keeps at
 * least its weight's share of B_total (a tenant with one request in flight
 * at a time has a small demand but must not wait cycles for each request),
 * and at least one request per cycle. The budgets reach the policy as
 * scheduling weights; only their ratios matter.
 */
static void fnv_compensate(struct fnv_data *fd, u64 b_total)
{
	u32 cap = max(READ_ONCE(fd->depth), 1U);
	struct fnv_tenant *tn;
	u64 sum = 0, wsum = 0;
	u32 n = 0;

	list_for_each_entry(tn, &fd->active, active_node) {
		u32 req;

		req = READ_ONCE(tn->nr_queued) + atomic_read(&tn->inflight);
		req = clamp(req, 1U, cap);
		tn->eq5_x = fnv_ctl_eq5_x(tn->eff_weight,
					  fnv_ctl_demand_us(req, tn->ctl.ratio_w,
							    tn->ctl.cost));
		sum = fnv_ctl_eq5_add(sum, tn->eq5_x);
		wsum += tn->eff_weight;
		n++;
	}
	list_for_each_entry(tn, &fd->active, active_node) {
		u64 budget, floor, w;

		budget = fnv_ctl_eq5_budget(b_total, tn->eq5_x, sum, n);
		floor = fd->cost_model == FNV_COST_BYTES ?
			4096 + READ_ONCE(fd->req_cost_bytes) :
			max(tn->ctl.cost[0], tn->ctl.cost[1]);
		floor = max(floor, div64_u64(b_total * tn->eff_weight, wsum));
		budget = clamp(budget, min(floor, b_total), b_total);
		tn->eq5_budget = budget;
		w = div64_u64(budget << 16, b_total);
		WRITE_ONCE(tn->flow.new_weight,
			   clamp_t(u64, w, 1, FNV_SCHED_WEIGHT_MAX));
	}
}

/* fnv_depth_fair() where the weights are alike: by the distance */
static u32 fnv_fair_alike(struct fnv_data *fd, u64 s, u64 w)
{
	struct fnv_tenant *tn;
	u64 d = 0, sq = 0, p, q;

	list_for_each_entry(tn, &fd->active, active_node) {
		if (!tn->svc_win || !tn->cfg_weight)
			continue;
		/* at most 1 each: a weight stored since the first walk */
		p = min(div64_u64(tn->svc_win << 20, s), 1ULL << 20);
		q = min(div64_u64((u64)READ_ONCE(tn->cfg_weight) << 20, w),
			1ULL << 20);
		d += (p > q ? p - q : q - p) * (p > q ? p - q : q - p);
		sq += q * q;
	}
	if (!sq)
		return FNV_FAIR_NONE;
	return FNV_FAIR_ONE - min_t(u64, div64_u64(d << 10, sq), FNV_FAIR_ONE);
}

/*
 * For the depth's rate trials (depth.c): how much of the weights' effect
 * the service dispatched since the window began (fd->svc_gen) kept, over
 * the tenants served in it. With p_i a tenant's share of the service, q_i
 * its weight's share and u = 1 / n: the slope of p on q about u, sum (p_i
 * - u) (q_i - u) / sum (q_i - u)^2, FNV_FAIR_ONE when the service follows
 * the weights, 0 when it ignores them (clamped to 0 .. 2 FNV_FAIR_ONE).
 * FNV_FAIR_NONE with fewer than two tenants served. Chance differences
 * between tenants do not follow the weights, so they do not lower it: an
 * overlap of the shares did, and 1008 QD1 tenants of equal weight lost
 * 0.05 of it at max_inflight, in a window of 10 requests each. Where the
 * weights are too alike for a slope (sum (q_i - u)^2 under 1/64 of sum
 * q_i^2), the distance instead: FNV_FAIR_ONE less sum (p_i - q_i)^2 over
 * sum q_i^2 (at least 0). A deeper queue can take shares among equal
 * weights too: on fnvssd at max_inflight the device's order gave a
 * 64 KiB reader 0.7 to 0.8 of the die time beside a 4 KiB one (0.84 to
 * 0.64), where the depth held kept 0.5; at half that distance a trial
 * that gave it 0.7 was kept (6.1). Chance lowers this one, by about 1/k
 * for tenants of k requests each in the window (0.1 at 10): more in a
 * trial's first, shorter window.
 * Two walks over the active tenants (three with weights alike), in the
 * period's. A tenant back on
 * the walk after idle counts from its return: it was served nothing
 * between.
 */
static u32 fnv_depth_fair(struct fnv_data *fd)
{
	struct fnv_tenant *tn;
	u64 s = 0, w = 0;
	s64 num = 0, den = 0, sq = 0, u;
	u32 n = 0;

	list_for_each_entry(tn, &fd->active, active_node) {
		if (tn->svc_gen != fd->svc_gen) {
			tn->svc_gen = fd->svc_gen;
			tn->svc_win = 0;
		}
		tn->svc_win += tn->svc - tn->svc_seen;
		tn->svc_seen = tn->svc;
		if (!tn->svc_win || !tn->cfg_weight)
			continue;
		s += tn->svc_win;
		w += tn->cfg_weight;
		n++;
	}
	if (n < 2)
		return FNV_FAIR_NONE;
	u = div_u64(1ULL << 20, n);
	list_for_each_entry(tn, &fd->active, active_node) {
		s64 p, q;

		if (!tn->svc_win || !tn->cfg_weight)
			continue;
		p = div64_u64(tn->svc_win << 20, s);
		q = div64_u64((u64)tn->cfg_weight << 20, w);
		num += (p - u) * (q - u);
		den += (q - u) * (q - u);
		sq += q * q;
	}
	if (!den || den < sq / 64)
		return fnv_fair_alike(fd, s, w);
	if (num <= 0)
		return 0;
	return min_t(u64, div64_u64((u64)num << 10, den), 2 * FNV_FAIR_ONE);
}

/*
 * What the period did, for the rate trials (depth.c): its completions
 * sampled (one in FNV_SAMPLE_EVERY) or, with cost_model=time, the work the
 * cost model counts in them, in 4 KiB reads per sample. In requests, a
 * trial at max_inflight on fnvssd, where the device's order served the
 * 64 KiB reader more than the depth held did, completed fewer requests
 * while its four dies did more work.
 */
static u64 fnv_depth_work(struct fnv_data *fd, u64 nr)
{
	if (fd->cost_model != FNV_COST_TIME || !fd->cm.windows)
		return nr;
	return div_u64(fd->win_work, FNV_CM_REF_SECT * FNV_SAMPLE_EVERY);
}

/*
 * Dispatch depth: the more requests wait at the device, the less the order
 * the scheduler chose matters and the longer a request of a light tenant
 * waits behind those of heavy ones; too few, and the device idles while
 * the host turns a completion into the next dispatch. Once per control
 * period, if the mean device time of a request (completion minus
 * dispatch) exceeded the target, the depth shrinks by a quarter (at least
 * 1); if it stayed below three quarters of it and the depth held requests
 * back in the period, the depth grows by an eighth (at least 1), up to
 * max_inflight. A device that serves requests in parallel keeps a short
 * device time at depth and keeps its depth.
 *
 * The target is dev_target_us, or by default (auto) FNV_DEPTH_MULT times
 * the device's own time for one request (dev_floor): a request then waits
 * at the device behind about FNV_DEPTH_MULT - 1 others that it cannot
 * overtake, whatever the device. dev_floor is learned from the sampled
 * requests dispatched while nothing else was in flight, and raised where
 * even the least depth exceeds the target (fnv_depth_floor(), depth.c).
 * Until it is known the depth is 1, so that it is measured first. Periods
 * of an upward rate trial (@trial: in it or just after) and @solo ones
 * only lower it.
 *
 * While the depth holds requests back it stays at FNV_DEPTH_MIN or above:
 * at a depth of 1 the device idles from each completion until the next
 * dispatch (a completion runs the queue asynchronously, from kblockd); on
 * the emulated NVMe that lost up to 43 % of its IOPS.
 *
 * Under fd->lock: true if the depth changed, and the caller runs the
 * queues once it has let go of the lock (the lock rule, fairnvme-iosched.c).
 */
static bool fnv_adapt_depth(struct fnv_data *fd, u64 dev_mean, u64 nr,
			    u64 dt, bool limited, bool solo, bool trial)
{
	u32 tgt = READ_ONCE(fd->dev_target_us);
	u64 target = (u64)tgt * NSEC_PER_USEC;
	u32 lim = READ_ONCE(fd->max_inflight);
	u32 dmin = min(FNV_DEPTH_MIN, lim);
	u32 d = READ_ONCE(fd->depth);
	bool auto_ = tgt == FNV_DEV_TARGET_AUTO;
	u32 want, r;
	u64 acc = atomic64_xchg(&fd->acc_dev1, 0);
	u64 floor;

	lockdep_assert_held(&fd->lock);

	floor = fnv_depth_floor(&fd->dfloor, READ_ONCE(fd->dev_floor),
				acc >> FNV_DEV1_SHIFT, acc & FNV_DEV1_MASK,
				dev_mean, auto_ && d <= dmin, !solo && !trial);
	WRITE_ONCE(fd->dev_floor, floor);
	/* a lone tenant ran at max_inflight: its device time says nothing */
	if (solo) {
		d = fnv_depth_probe_solo(&fd->dprobe);
		if (d) {
			d = min(d, lim);
			fd->dprobe.set = d;
			WRITE_ONCE(fd->depth, d);
			if (READ_ONCE(fd->hold_depth) > d)
				WRITE_ONCE(fd->hold_depth, d);
			WRITE_ONCE(fd->slot_depth, READ_ONCE(fd->hold_depth));
		}
		return false;
	}
	if (auto_)
		target = floor * FNV_DEPTH_MULT;

	/*
	 * With auto, the rule runs on its own depth (hold_depth), and only
	 * while that is the depth in force: a device time measured at a
	 * deeper queue a trial tries or kept says nothing of it. fnv_held()
	 * sizes the slot for a synchronous tenant from it.
	 */
	r = auto_ ? min(READ_ONCE(fd->hold_depth), d) : d;
	want = r;
	if (!tgt)
		want = lim;
	else if (!target)
		want = 1;
	else if (r == d && dev_mean > target)
		want -= max(r / 4, 1U);
	else if (r == d && limited && dev_mean &&
		 dev_mean < target - target / 4)
		want += max(r / 8, 1U);
	if (limited && target && auto_)
		want = max(want, dmin);
	want = clamp(want, 1U, lim);
	if (auto_ && target) {
		/* a period counts up to twice the delay in force */
		struct fnv_dperiod per = {
			.nr = fnv_depth_work(fd, nr),
			.dt_us = div_u64(dt, NSEC_PER_USEC),
			.cap_us = 2ULL * jiffies_to_msecs(fnv_ctl_delay(fd)) *
				  USEC_PER_MSEC,
			.fair = fnv_depth_fair(fd),
			.limited = limited,
		};

		r = want;
		want = fnv_depth_probe(&fd->dprobe, d, r, &per, lim, dmin);
		if (fd->dprobe.mark) {
			fd->dprobe.mark = false;
			fd->svc_gen++;
		}
		want = clamp(want, 1U, lim);
		fd->dprobe.set = want;
		WRITE_ONCE(fd->hold_depth, min(r, want));
		/*
		 * fnv_held()'s slot: from a depth the trials kept, or the one
		 * an upward trial is trying: it must measure what keeping its
		 * depth would give. At the time's slot (1 at depth 2 to 7)
		 * t26's 64 QD1 readers held each other back, and trials
		 * gained 1.10 to 1.13 where max_inflight with its own slot
		 * gained 1.32 to 1.75 (6.1 and 6.12). A half keeps the
		 * time's slot, as before.
		 */
		WRITE_ONCE(fd->slot_depth,
			   (fd->dprobe.to && fd->dprobe.up) ||
			   (!fd->dprobe.to && want == fd->dprobe.keep) ?
			   want : min(r, want));
	} else {
		/* the trials start over with auto; none runs meanwhile */
		fd->dprobe.set = 0;
		fd->dprobe.to = 0;
		WRITE_ONCE(fd->hold_depth, want);
		WRITE_ONCE(fd->slot_depth, want);
	}
	d = want;
	if (d == READ_ONCE(fd->depth))
		return false;
	WRITE_ONCE(fd->depth, d);
	return true;
}

/*
 * thresh_min_us / thresh_max_us = auto (once per control period): relative
 * to what the device measurably does, its time for one request alone
 * (dev_floor), through a slow filter (1/32 of the gap per period, a time
 * constant of about 3 s at the default period), so that a second of host
 * noise in dev_floor does not reclassify every tenant. Until dev_floor is
 * known, the paper's values hold.
 */
void fnv_auto_thresh(struct fnv_data *fd, bool period)
{
	u64 floor = READ_ONCE(fd->dev_floor);
	u64 base = fd->lat_base, lo, hi;

	lockdep_assert_held(&fd->lock);
	if (period && floor) {
		if (!base)
			base = floor;
		else if (floor > base)
			base += (floor - base) >> 5;
		else
			base -= (base - floor) >> 5;
		fd->lat_base = base;
	}
	lo = base ? max(base * FNV_THRESH_MIN_Q / 4, FNV_THRESH_AUTO_MIN_NS) :
	     fnv_ctl_defaults.thresh_min;
	hi = base ? max(base * FNV_THRESH_MAX_Q / 4, 4 * lo) :
	     fnv_ctl_defaults.thresh_max;
	lo = min_t(u64, lo, (u64)FNV_THRESH_US_MAX * NSEC_PER_USEC);
	hi = min_t(u64, hi, (u64)FNV_THRESH_US_MAX * NSEC_PER_USEC);
	if (fd->thresh_min_cfg != FNV_THRESH_AUTO)
		lo = (u64)fd->thresh_min_cfg * NSEC_PER_USEC;
	if (fd->thresh_max_cfg != FNV_THRESH_AUTO)
		hi = (u64)fd->thresh_max_cfg * NSEC_PER_USEC;
	/* one set, the other auto: the set one wins (fnv_read_params) */
	WRITE_ONCE(fd->ctl.thresh_min, lo);
	WRITE_ONCE(fd->ctl.thresh_max, hi);
}

/*
 * tau_l_bytes = auto (under fd->lock, once per control period): the device's
 * rate is learned from the bytes dispatched in periods when the depth held
 * requests back (the device, not the tenants, was the limit): a faster
 * period raises it at once, a slower one lowers it by an eighth of the
 * gap. tau_l is then the virtual time a tenant served at its fair share
 * covers in FNV_TAU_L_MS, rate * FNV_TAU_L_MS / (summed effective weight
 * of the busy tenants): a few requests of lead on a slow device, tens of
 * megabytes per unit of weight on a fast NVMe SSD. Until the rate is known,
 * the fixed default holds.
 */
static void fnv_auto_tau(struct fnv_data *fd, u64 now, bool limited,
			 u64 wsum)
{
	u64 bytes = fd->disp_bytes - fd->rate_bytes;
	u64 dt = now - fd->rate_at;
	u64 r, tau;

	fd->rate_bytes = fd->disp_bytes;
	fd->rate_at = now;

	if (limited && dt >= NSEC_PER_MSEC && bytes) {
		r = mul_u64_u64_div_u64(bytes, NSEC_PER_SEC, dt);
		if (r > fd->rate)
			fd->rate = r;
		else
			fd->rate -= (fd->rate - r) >> 3;
	}
	if (fd->tau_l_cfg != FNV_TAU_AUTO || !fd->rate || !wsum)
		return;
	tau = div64_u64(fd->rate * FNV_TAU_L_MS, MSEC_PER_SEC * wsum);
	WRITE_ONCE(fd->tau_l_bytes,
		   clamp_t(u64, tau, FNV_TAU_L_MIN, FNV_TAU_L_MAX));
}

/*
 * gvt is set to the smallest virtual time of the active tenants that may
 * hold it (not the root cgroup's, not one without an id), held by that
 * tenant; with none, it stays as it is. O(active tenants), under fd->lock:
 * from the control period, and when the holder's cgroup is removed.
 */
void fnv_d2fq_anchor(struct fnv_data *fd)
{
	u64 gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	struct fnv_tenant *tn, *low = NULL;
	s64 low_gap = 0;

	lockdep_assert_held(&fd->lock);
	list_for_each_entry(tn, &fd->active, active_node) {
		s64 gap;

		/* a removed cgroup's: fnv_offline_drain() releases it */
		if (!tn->d2.active || tn->d2.id == D2FQ_ID_NONE ||
		    READ_ONCE(tn->offline))
			continue;
		gap = d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt);
		if (!low || gap < low_gap) {
			low = tn;
			low_gap = gap;
		}
	}
	if (low)
		d2fq_gvt_anchor(&fd->gvt, low->d2.id, gvt + low_gap);
}

/*
 * D2FQ upkeep, every control period (under fd->lock): a
 * tenant's virtual time advances at its effective weight; a tenant with
 * nothing queued or in flight for grace_us is no longer active and lets
 * go of gvt (it restarts at gvt when it comes back); gvt is set to the
 * smallest virtual time of the active tenants that may hold it, and each
 * waiting tenant moved to the class of its gap to that; every
 * hl_period_ms the H/L ratio is recomputed from the period's virtual
 * times and class usage (Eq. 2 and 3). O(tenants), off the I/O path.
 *
 * The anchor: between periods gvt is D2FQ's sloppy word, raised by its
 * holder and lowered by any tenant behind it on completion. Left to
 * itself it drifted from the minimum by tens of tau_l under churn (t18:
 * the gvt holder's cgroup removed every other second): after a release,
 * the first tenant to complete took gvt at its own virtual time, however
 * far ahead, the tenants behind it waited in the class they had (low)
 * until they completed, tenants that joined then started at that gvt,
 * and in a 5 s window a weight-100 tenant got 27 % over its share while
 * sharing the high class, round robin, with tenants of weight 200 to 600.
 */
static void fnv_d2fq_period(struct fnv_data *fd, u64 now)
{
	struct request_queue *q = fd->q;
	u64 grace = (u64)READ_ONCE(fd->grace_us) * NSEC_PER_USEC;
	u64 period = (u64)READ_ONCE(fd->hl_period_ms) * NSEC_PER_MSEC;
	bool hl = now - fd->hl_last >= period;
	struct fnv_tenant *tn;
	struct d2fq_period p;

	lockdep_assert_held(&fd->lock);
	d2fq_period_begin(&p, d2fq_gvt_vt(atomic64_read(&fd->gvt)));
	list_for_each_entry(tn, &fd->active, active_node) {
		WRITE_ONCE(tn->d2.weight, max(tn->eff_weight, 1U));
		if (tn->d2.active && !tn->nr_queued &&
		    !atomic_read(&tn->inflight) &&
		    now - READ_ONCE(tn->idle_at) > grace) {
			tn->d2.active = false;
			d2fq_gvt_release(&fd->gvt, tn->d2.id);
		}
		if (hl)
			d2fq_period_flow(&p, &tn->d2, fd->arb.weight);
	}
	fnv_d2fq_anchor(fd);
	list_for_each_entry(tn, &fd->active, active_node)
		fnv_d2fq_reclass(fd, tn);
	if (hl) {
		u64 tau_w = (u64)fd->tau_l_bytes << (D2FQ_VT_SHIFT + 1);
		u32 old = fd->arb.hl;
		u32 new = d2fq_period_end(&p, old, tau_w);

		fd->hl_last = now;
		if (fd->wrr_mode == FNV_WRR_SOFT && new != old) {
			bool eq2 = p.nr > 1 && p.gap_max > (s64)tau_w;

			d2fq_arb_set_hl(&fd->arb, new);
			fnv_msg_dev(fd, "hl %u->%u %s gap_max=%lld", old, new,
				    eq2 ? "eq2" : "eq3", p.gap_max);
			trace_fairnvme_hl(disk_devt(q->disk), old, new,
					  p.gap_max, p.d_max, p.d_min,
					  p.sd_max, p.nr > 1 &&
					  p.gap_max > (s64)tau_w);
		}
	}
}

/*
 * The delay to the next control period: ctl_period_ms, or FNV_CTL_DUTY
 * times what the last one took if that is longer. The walk is O(active
 * tenants) with fd->lock held and interrupts off: with 1008 QD1 readers on
 * null_blk (TCG) it took fairnvme from 0.113 to 0.079 of none's IOPS, and
 * to 0.107 at a 1 s period. Its cost per tenant stays bounded instead;
 * with many tenants each is judged less often. (fd->lock held, or the
 * worker not yet armed; debugfs reads it racily, for display.)
 */
unsigned long fnv_ctl_delay(struct fnv_data *fd)
{
	unsigned long d = msecs_to_jiffies(READ_ONCE(fd->ctl_period_ms));

	return max(d, nsecs_to_jiffies(READ_ONCE(fd->ctl_spent) *
				       FNV_CTL_DUTY));
}

/*
 * TABS' demand (tabs_demand()): @tn's weight @w split by its outstanding
 * reads and FUA writes, in 1/1024 of a unit of weight, added to @dem.
 */
static void fnv_tabs_weigh(struct fnv_tenant *tn, u32 w, u64 dem[TABS_NR_FAIR])
{
	u64 out[TABS_NR_FAIR], sum = 0;
	int x;

	for (x = 0; x < TABS_NR_FAIR; x++) {
		out[x] = max(atomic_read(&tn->tabs_out[x]), 0);
		sum += out[x];
	}
	if (!sum)
		return;
	for (x = 0; x < TABS_NR_FAIR; x++)
		dem[x] += div64_u64(((u64)w * out[x]) << 10, sum);
}

/*
 * TABS' control period: its phase machine and feedback (tabs_tick()).
 * True if the SCHED phase ended with FUA writes held: they were let go
 * and the queue must run.
 */
static bool fnv_tabs_period(struct fnv_data *fd, const u64 dem[TABS_NR_FAIR],
			    u64 now)
{
	struct tabs *t = &fd->tabs;
	unsigned int ev;

	fnv_tabs_fold(fd);
	tabs_demand(t, dem);
	ev = tabs_tick(t, &fd->tabs_p, now);
	if (ev)
		fnv_msg_dev(fd, "tabs %s alpha=%u/1024 fbw=%llu/%llu bw=%llu/%llu ff=%u/1000",
			    tabs_phase_name(t->phase), t->alpha,
			    t->fbw[TABS_READ], t->fbw[TABS_FUA], t->bw[TABS_READ],
			    t->bw[TABS_FUA], t->fairness);
	if (ev)
		trace_fairnvme_tabs(disk_devt(fd->q->disk), t->phase, t->alpha,
				    t->i[TABS_READ], t->i[TABS_FUA],
				    t->fbw[TABS_READ], t->fbw[TABS_FUA],
				    t->bw[TABS_READ], t->bw[TABS_FUA],
				    t->fairness);
	if (t->phase == TABS_SCHED || list_empty(&fd->tabs_held))
		return false;
	fnv_tabs_release(fd, true);
	return true;
}

/*
 * The period as the cost model's window (cost.c): what completed, and how
 * long the device had requests. A device idle now has been since the
 * later of its last completion, the window's start and the idle time
 * counted already. Under fd->lock.
 */
static void fnv_cm_window(struct fnv_data *fd, u64 now)
{
	struct fnv_cm_win win = {}, *w = &win;
	u64 from, v;
	int t;

	if (!atomic_read(&fd->inflight)) {
		from = max3(READ_ONCE(fd->last_done) & ~FNV_DONE_BUSY,
			    fd->win_at, fd->win_mark);
		if (now > from)
			fd->win_idle += now - from;
	}
	for (t = 0; t < FNV_CM_TYPES; t++) {
		v = atomic64_xchg(&fd->cm_done[t], 0);
		w->nr[t] = v >> FNV_CM_DONE_SHIFT;
		w->sect[t] = v & FNV_CM_DONE_SECT;
	}
	/* the first period after the worker was armed: no window yet */
	w->dt_ns = fd->win_at && now > fd->win_at ? now - fd->win_at : 0;
	w->busy_ns = w->dt_ns > fd->win_idle ? w->dt_ns - fd->win_idle : 0;
	w->depth16 = fd->win_dnr ? min_t(u64, div_u64(fd->win_dsum << 4,
						      fd->win_dnr),
					 U32_MAX) : 0;
	fd->win_dsum = 0;
	fd->win_dnr = 0;
	/*
	 * The depth in force over the period: max_inflight (a rate trial's,
	 * kept, or a size probe's: full even if max_inflight was raised
	 * since) or less. A period that ran solo is not counted: one
	 * tenant at max_inflight, however few requests it keeps there.
	 */
	w->probe = fd->cm_step == 1 || fd->cm_step == 2;
	w->full = READ_ONCE(fd->depth) >= READ_ONCE(fd->max_inflight) ||
		  w->probe;
	/*
	 * The work, priced as when the trial began while one runs: its own
	 * windows at max_inflight may move the fit (the held windows judged
	 * out, a 64 KiB read from 1.4 to 4 times a 4 KiB one), and the same
	 * completions would count as more work than the base's.
	 */
	if (!fd->dprobe.to) {
		memcpy(fd->win_c_cmd, fd->cm.c_cmd, sizeof(fd->win_c_cmd));
		memcpy(fd->win_c_sect, fd->cm.c_sect, sizeof(fd->win_c_sect));
	}
	fd->win_work = fnv_cm_work(fd->win_c_cmd, fd->win_c_sect, w);
	fd->win_last = *w;
	fnv_cm_update(&fd->cm, fd->solo_seen ? NULL : w);
	fd->win_at = now;
	fd->win_mark = now;
	fd->win_idle = 0;
}

/*
 * A size probe's end: its class no longer held, the depths as they were
 * (within a max_inflight stored since; a fixed depth stored since is
 * max_inflight already). Under fd->lock.
 */
static void fnv_probe_end(struct fnv_data *fd)
{
	u32 lim = READ_ONCE(fd->max_inflight);

	lockdep_assert_held(&fd->lock);
	fd->cm_probe = 0;
	fd->cm_step = 0;
	if (!READ_ONCE(fd->dev_target_us))
		return;
	WRITE_ONCE(fd->hold_depth, min(fd->cm_depth[1], lim));
	WRITE_ONCE(fd->slot_depth, min(fd->cm_depth[2], lim));
	WRITE_ONCE(fd->depth, min(fd->cm_depth[0], lim));
}

/*
 * The cost model's size probe (cost.c), one step per period: the class of
 * smaller requests alone at max_inflight, then the larger, then the
 * depths put back and one period more before the next can be due. One
 * starts only while the auto depth is not on trial, with no tenant solo,
 * and where each class keeps half of max_inflight queued or in flight
 * (@need, by class), 2 at least: a class of one request at a time would
 * not fill the device, and its window would measure latency again. Where
 * the sizes make no such classes, the types may (@tneed: the type probe,
 * the tenants without FUA writes, then those of FUA writes only).
 * Under fd->lock: true if the depth changed (the caller runs the queues).
 */
static bool fnv_probe_step(struct fnv_data *fd, u8 closed, bool probe,
			   const u32 *need, const u32 *tneed)
{
	u32 lim = READ_ONCE(fd->max_inflight), kind;

	lockdep_assert_held(&fd->lock);
	switch (closed) {
	case 1:
		fd->cm_probe = FNV_CM_PROBE_LARGE;
		fd->cm_step = 2;
		/* the FUA writers' period: what TABS held goes (fnv_probe_fua()) */
		if (fnv_probe_fua(fd))
			fnv_tabs_release(fd, true);
		return true;
	case 2:
		fnv_probe_end(fd);
		fd->cm_step = 3;
		return true;
	case 3:
		fd->cm_step = 0;
		return false;
	}
	if (!probe || !fnv_cm_probe_due(&fd->cm) || fd->dprobe.to ||
	    READ_ONCE(fd->solo) ||
	    READ_ONCE(fd->dev_target_us) != FNV_DEV_TARGET_AUTO)
		return false;
	kind = fnv_cm_probe_kind(need, tneed, max(lim / 2, 2U));
	if (!kind)
		return false;
	fnv_cm_probe_ran(&fd->cm);
	fd->cm_pkind = kind;
	if (kind == FNV_CM_PROBE_BY_TYPE)
		fd->cm_tprobes++;
	fd->cm_probe = FNV_CM_PROBE_SMALL;
	fd->cm_depth[0] = READ_ONCE(fd->depth);
	fd->cm_depth[1] = READ_ONCE(fd->hold_depth);
	fd->cm_depth[2] = READ_ONCE(fd->slot_depth);
	fd->cm_step = 1;
	/* every other probe low: cost.c's depth */
	if (fnv_cm_probe_low(&fd->cm))
		lim = max(lim / FNV_CM_PROBE_LOW, min(lim, 2U));
	WRITE_ONCE(fd->hold_depth, lim);
	WRITE_ONCE(fd->slot_depth, lim);
	WRITE_ONCE(fd->depth, lim);
	return true;
}

/*
 * The cost model's probe tilts a tenant's charge for a period (cost.c) so
 * that the mix changes from one window to the next; it is the model's, not
 * a share. Tilted by 4/3 and 4/5 in turn, a tenant pays its untilted cost
 * only if its service follows the tilt within the period; it followed a
 * period late: t21's FUA writer at weight 100 beside a reader at 300 on
 * 6.12 paid 9.1 to 9.4 sectors a 4 KiB write, the reader 8.1 to 8.2 a
 * read, priced alike (8), and got 0.227 and 0.228 of the IOPS where 0.25
 * is due. What the tilt charged over the untilted cost in the period is
 * taken off the tenant's virtual time at its end (added back when under):
 * the mix still moves within the period, and over periods the tenant pays
 * its requests' cost. Under fnv_data.lock; the virtual time is the
 * completions' (atomic).
 */
static void fnv_tilt_refund(struct fnv_tenant *tn)
{
	s64 paid = tn->cm_tilt_paid;
	u64 d;

	if (!paid)
		return;
	tn->cm_tilt_paid = 0;
	/* 1/2^FNV_CM_SHIFT sectors (fnv_charge_at()) to bytes */
	d = d2fq_vt_delta((u64)(paid > 0 ? paid : -paid) >>
			  (FNV_CM_SHIFT - SECTOR_SHIFT),
			  READ_ONCE(tn->d2.weight));
	if (paid > 0)
		atomic64_sub(d, &tn->d2.vt);
	else
		atomic64_add(d, &tn->d2.vt);
}

/*
 * The FairNVMe control period: for every tenant of the device, turn the
 * period's completions into a state, an effective weight and learned costs
 * (state.c), then hand the policy the weights: the effective weights, or
 * the compensated budgets while a tenant asked for compensation in the last
 * FNV_COMP_HOLD periods. Runs in process context every ctl_period_ms (or
 * longer, fnv_ctl_delay()) while the device has active tenants, and walks
 * only those (fd->active), under fd->lock: not every cgroup that ever did
 * I/O on the device, and no timer on an idle device.
 */
void fnv_ctl_workfn(struct work_struct *work)
{
	struct fnv_data *fd = container_of(to_delayed_work(work),
					   struct fnv_data, ctl_work);
	struct request_queue *q = fd->q;
	struct fnv_ctl_params p;
	struct fnv_tenant *tn, *next;
	u64 dev_sum = 0, nr = 0, wsum = 0, esum = 0, bypass, t0, dt, spent;
	u64 dem[TABS_NR_FAIR] = {};
	bool comp = false, limited, kick = false, solo, probe;
	struct fnv_tenant *busy = NULL;
	u32 wn = 0, mode, need[3] = {}, tneed[3] = {};
	u64 b_total;
	bool trial;
	u8 closed;

	fnv_read_params(fd, &p);
	mode = READ_ONCE(fd->wrr_mode);
	spin_lock(&fd->lock);
	t0 = ktime_get_ns();
	/* the time since the last period, for rates (bypass) */
	dt = fd->ctl_at && t0 > fd->ctl_at ? t0 - fd->ctl_at :
	     (u64)READ_ONCE(fd->ctl_period_ms) * NSEC_PER_MSEC;
	fd->ctl_at = t0;
	fnv_cm_window(fd, t0);
	probe = mode == FNV_WRR_SOFT && fd->cost_model == FNV_COST_TIME;
	/* the size probe's step that just ended (0: none) */
	closed = fd->cm_step;
	/*
	 * A depth trial deeper than the depth held ran in the period (the
	 * depth it set last period is still in force), or in the one before,
	 * whose requests completed in this one: a tenant may have all its
	 * requests at the device, not backlogged, and wait the deeper
	 * queue's latency, not what the shares make it. Judged, it moved the
	 * weights: t29 b/w15 (16 KiB reads at weight 100 beside 4 KiB at
	 * 500, behind QEMU's 16 MB/s), the weight-100 tenant at max_inflight
	 * was found unbalanced and ran at 4 times its weight for the trial,
	 * and over the run got 0.187 to 0.215 of the bytes (0.167 due; 0.169
	 * and 0.171 with the trials off, dev_target_us 500): its virtual
	 * time advanced at the raised weight, so what the trial gave it over
	 * its share was never paid back. Nor is its queue the one it would
	 * keep alone (alone_q16). A half trial (shallower) is judged.
	 */
	trial = fd->dprobe.to > fd->dprobe.from || fd->dtrial_was;
	fd->dtrial_was = fd->dprobe.to > fd->dprobe.from;
	list_for_each_entry(tn, &fd->active, active_node) {
		struct fnv_sample smp;
		enum fnv_state old;
		u64 tag_wait;
		u32 w, ew;

		/*
		 * pd_alloc runs atomic: an id it could not get is retried
		 * here (a tenant without one never holds gvt).
		 */
		if (unlikely(tn->d2.id == D2FQ_ID_NONE) && !tn->root) {
			int id = ida_alloc_range(&fnv_ida, 1, D2FQ_ID_MAX,
						 GFP_NOWAIT);

			if (id > 0)
				WRITE_ONCE(tn->d2.id, id);
		}
		fnv_take_sample(tn, &smp);
		tag_wait = tn->tag_wait;
		tn->tag_wait = 0;
		/* backlogged: see fnv_ctl_period() */
		smp.queued = tn->queued_behind || tn->nr_queued > 1;
		tn->queued_behind = false;
		smp.busy = READ_ONCE(tn->nr_queued) ||
			   atomic_read(&tn->inflight) || tn->nr_held;
		dev_sum += smp.dev_sum;
		nr += smp.nr;
		/* the cost model's probe for the next period (cost.c) */
		fnv_tilt_refund(tn);
		tn->cm_tilt = probe ? fnv_cm_tilt(&fd->cm, smp.nr,
						  smp.nr_type[1],
						  smp.sect_sum[0] +
						  smp.sect_sum[1]) :
				      FNV_CM_TILT_ONE;
		/*
		 * Were it alone (cost.c): its requests outstanding, by
		 * Little's law the sum of their latencies (and of the time
		 * the requests inserted waited for a tag: alone it would
		 * have sent them) over the time it was busy, over about the
		 * last 256 samples and 8 periods at least (FNV_ALONE_NR);
		 * its mix this period. Not from a deeper depth trial's
		 * periods. A tenant at weight 100 beside one at 500 (t29
		 * c/w15, fnvssd) had 9 samples a period, their latencies
		 * 45 ms on average and 125 ms at p99: over 8 periods it was
		 * once seen with 21 requests outstanding where it keeps 16
		 * at most. Sums, not a mean of each period's ratio, which
		 * periods of more samples would weigh more.
		 */
		if (dt && !trial && (smp.nr || smp.busy)) {
			u64 a = min_t(u64, smp.nr, FNV_ALONE_NR);

			tn->alone_lat += smp.lat_sum * FNV_SAMPLE_EVERY +
					 tag_wait -
					 (tn->alone_lat * a >> FNV_ALONE_SHIFT);
			tn->alone_dt += dt -
					(tn->alone_dt * a >> FNV_ALONE_SHIFT);
			tn->alone_q16 = div64_u64(tn->alone_lat,
						  max(tn->alone_dt >> 16, 1ULL));
		}
		if (smp.nr && dt && !trial) {
			tn->alone_ns = fnv_cm_alone_ns(&fd->cm, tn->alone_q16,
						       smp.nr_type,
						       smp.sect_sum, smp.nr_fua,
						       READ_ONCE(fd->dev_floor));
		}
		/*
		 * ... and its classes for the size probe and the type probe,
		 * kept while one runs: its FUA writes TABS holds count (the
		 * probe's other class held, no read waits, TABS lets them go)
		 */
		if (!closed) {
			u32 q = tn->nr_queued + tn->nr_held +
				atomic_read(&tn->inflight);
			bool in = probe && !tn->root;

			/* not the root's: the journal, others' writeback */
			tn->cm_class = in ?
				fnv_cm_probe_class(&fd->cm, smp.nr,
						   smp.sect_sum[0] +
						   smp.sect_sum[1]) : 0;
			/* FUA writes reach no elevator before 6.5 */
			tn->cm_tclass = in && FNV_FUA_SCHEDULED ?
				fnv_cm_probe_tclass(smp.nr, smp.nr_fua) : 0;
			need[tn->cm_class] += q;
			tneed[tn->cm_tclass] += q;
		}
		w = READ_ONCE(tn->cfg_weight);
		/*
		 * The busy tenants, also one without a sample this period:
		 * a light tenant's sampled completions come a few per
		 * period, and the mean must not jump when none came.
		 */
		if (smp.nr || smp.busy) {
			wsum += w;
			wn++;
			busy = tn;
		}
		if (fd->tabs_on)
			fnv_tabs_weigh(tn, w, dem);
		/*
		 * Head latency as at the mean weight: weight / mean. Only
		 * under D2FQ, where a tenant's wait at the head is what its
		 * share makes it. Budget cycles count the wait from the start
		 * of the cycle (fnv_dispatch_request), which leaves out the
		 * wait that is the share: what is left does not shrink with
		 * the weight, and scaling it made the heaviest tenant read
		 * 4x the lightest's latency (weights 800:200) and take boosts.
		 */
		smp.head_scale = fd->w_mean && mode == FNV_WRR_SOFT ?
				 div_u64((u64)w << 10, fd->w_mean) : 0;
		old = tn->ctl.state;
		/*
		 * Not on a period a size probe made requests wait in, or the
		 * one after, where they completed: the wait was the probe's,
		 * not a share the controller should correct; and a tenant in
		 * neither class saw max_inflight's latency, without a slot.
		 * Nor on a deeper depth trial's (trial, above).
		 */
		if (!closed && !trial && fnv_ctl_period(&tn->ctl, &smp, &p))
			comp = true;
		ew = tn->eff_weight;
		tn->eff_weight = fnv_ctl_weight(&tn->ctl,
						READ_ONCE(tn->cfg_weight));
		if (old != tn->ctl.state)
			fnv_msg(fd, tn, "state %s->%s mult=%u lat_us=%llu thresh_us=%llu",
				fnv_ctl_state_name(old),
				fnv_ctl_state_name(tn->ctl.state),
				tn->ctl.mult,
				div_u64(p.signal == FNV_LAT_QUEUE ?
					tn->ctl.lat : tn->ctl.head,
					NSEC_PER_USEC),
				div_u64(tn->ctl.thresh_cur, NSEC_PER_USEC));
		if (ew != tn->eff_weight)
			fnv_msg(fd, tn, "eff_weight %u->%u weight=%u", ew,
				tn->eff_weight, READ_ONCE(tn->cfg_weight));
		if (smp.nr || smp.busy)
			esum += tn->eff_weight;
		if (old != tn->ctl.state)
			trace_fairnvme_state(disk_devt(q->disk),
					     fnv_tenant_cgid(tn), old,
					     tn->ctl.state, tn->ctl.mult,
					     tn->eff_weight,
					     div_u64(p.signal == FNV_LAT_QUEUE ?
						     tn->ctl.lat :
						     tn->ctl.head,
						     NSEC_PER_USEC),
					     div_u64(tn->ctl.thresh_cur,
						     NSEC_PER_USEC));
	}

	fd->w_mean = wn ? div_u64(wsum, wn) : 0;
	WRITE_ONCE(fd->w_sum, wsum);
	limited = xchg(&fd->limited, 0);
	/*
	 * One tenant busy in the period: the depth is max_inflight until
	 * another one queues a request (fnv_depth()). Not while the depth is
	 * still measuring the device (dev_floor unknown), nor with no auto
	 * target to come back to.
	 */
	solo = fd->solo_seen;
	WRITE_ONCE(fd->solo, wn == 1 && fd->dev_floor &&
		   fd->dev_target_us == FNV_DEV_TARGET_AUTO ? busy : NULL);
	fd->solo_seen = fd->solo;
	/*
	 * A period that ran solo at all says nothing of the depth. A new
	 * depth may let held requests go: the queues run after the unlock.
	 */
	/*
	 * Nor does the depth rule: the probe's periods are max_inflight's,
	 * and the one after completes what it sent (their device times would
	 * shrink the depth held, and raise dev_floor)
	 */
	if (!closed &&
	    fnv_adapt_depth(fd, nr ? div64_u64(dev_sum, nr) : 0, nr, dt,
			    limited, solo, trial))
		kick = true;
	if (fnv_probe_step(fd, closed, probe, need, tneed))
		kick = true;
	if (fd->solo && !solo)
		kick = true;
	/*
	 * Requests at the device that passed the elevator, by Little's law:
	 * their completion rate times the device time of ours. On 6.1 a
	 * tenant writing with O_DSYNC sends FUA writes straight to the
	 * device; a depth that counted only ours held the other tenants to
	 * a few requests beside its 32, and it got more than under none
	 * (0.598 of the IOPS against a reader of three times its weight,
	 * none 0.503). The depth leaves them room instead: fairnvme cannot
	 * hold such a tenant to its weight, but no longer favours it.
	 */
	bypass = xchg(&fd->bypass_done, 0);
	if (nr)
		bypass = div64_u64(bypass * div64_u64(dev_sum, nr),
				   max(dt, (u64)NSEC_PER_MSEC));
	WRITE_ONCE(fd->bypass_depth, min_t(u64, bypass, fd->max_inflight));
	fnv_auto_thresh(fd, true);
	fnv_auto_tau(fd, ktime_get_ns(), limited, esum);

	if (comp)
		fd->comp_left = FNV_COMP_HOLD;
	else if (fd->comp_left)
		fd->comp_left--;

	b_total = fnv_cycle_budget(fd);
	if (fd->comp_left) {
		fnv_compensate(fd, b_total);
	} else {
		list_for_each_entry(tn, &fd->active, active_node) {
			tn->eq5_budget = 0;
			WRITE_ONCE(tn->flow.new_weight, tn->eff_weight);
		}
	}
	fnv_d2fq_period(fd, ktime_get_ns());
	if (fd->tabs_on && fnv_tabs_period(fd, dem, ktime_get_ns()))
		kick = true;

	/*
	 * A tenant with nothing queued or in flight, out of gvt, for
	 * FNV_IDLE_LEAVE periods leaves the walk (its controller state
	 * stays as it was). The reference it held cannot be the blkg's last:
	 * a removed cgroup's tenant is on fd->offlined, which holds one, until
	 * fnv_offline_drain() took it off this list.
	 */
	list_for_each_entry_safe(tn, next, &fd->active, active_node) {
		if (tn->nr_queued || atomic_read(&tn->inflight) ||
		    tn->nr_held || tn->d2.active ||
		    ++tn->idle_periods < FNV_IDLE_LEAVE)
			continue;
		fnv_tenant_leave(tn);
	}
	/*
	 * What the walk took with the lock held, the less of this period's
	 * and the last: a virtual CPU the host did not run for a moment
	 * must not stretch the period.
	 */
	spent = ktime_get_ns() - t0;
	WRITE_ONCE(fd->ctl_spent, min(spent, fd->ctl_last));
	WRITE_ONCE(fd->ctl_last, spent);
	if (list_empty(&fd->active) && !fd->nr_queued) {
		/* a probe the tenants left: over, and its depths back */
		if (fd->cm_step) {
			if (fd->cm_probe)
				fnv_probe_end(fd);
			fd->cm_step = 0;
		}
		fd->ctl_armed = false;
		fd->ctl_at = 0;		/* the next period is not the idle time */
	} else {
		schedule_delayed_work(&fd->ctl_work, fnv_ctl_delay(fd));
	}
	spin_unlock(&fd->lock);
	if (kick)
		blk_mq_run_hw_queues(q, true);
}

