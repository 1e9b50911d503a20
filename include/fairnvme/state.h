/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: FairNVMe's state-driven tenant controller (policy core).
 *
 * Free of blk-mq types, like budget.h: the kernel feeds it one period's
 * latency samples per tenant and applies what it returns; the user-space
 * unit tests feed it synthetic sequences.
 */
#ifndef _FAIRNVME_STATE_H
#define _FAIRNVME_STATE_H

#include <linux/types.h>

enum fnv_state {
	FNV_IDLE,		/* latency < thresh_min: underused */
	FNV_BALANCED,		/* thresh_min <= latency < thresh_cur */
	FNV_UNBALANCED,		/* thresh_cur <= latency < thresh_max */
	FNV_SATURATED,		/* latency >= thresh_max */
	FNV_NR_STATES,
};

/* Effective weight multiplier, in 1/1000 of the configured weight. */
#define FNV_MULT_ONE		1000U
#define FNV_MULT_MIN		250U	/* an idle tenant keeps 1/4 */
#define FNV_MULT_MAX		4000U	/* a saturated one gets at most 4x */
/* Periods a compensation stays in force after its trigger. */
#define FNV_COMP_HOLD		10U
/*
 * A learned cost moves toward a period's mean by n / FNV_COST_SAMPLES of
 * the gap, n being the period's samples (at most FNV_COST_SAMPLES): each
 * sample counts the same, whoever it belongs to.
 */
#define FNV_COST_SAMPLES	64U
/*
 * A tenant with requests outstanding is judged on at least FNV_CTL_MIN_NR
 * sampled completions: its periods are pooled until it has them, for at
 * most FNV_CTL_MAX_DEFER periods (a light tenant has a few samples per
 * period, and their mean alone is noise, not a state).
 */
#define FNV_CTL_MIN_NR		16U
#define FNV_CTL_MAX_DEFER	8U

/* The latency a tenant's state is judged by. */
enum fnv_lat_signal {
	FNV_LAT_HEAD,		/* completion - max(insertion, previous dispatch) */
	FNV_LAT_QUEUE,		/* completion - insertion */
	FNV_NR_LAT_SIGNALS,
};

/* Tunables, per device. Times in ns, rates in parts per million. */
struct fnv_ctl_params {
	u64 thresh_min;		/* Thresh_min, 600 us */
	u64 thresh_max;		/* Thresh_max, 3500 us */
	u32 ku_ppm;		/* k_u of Eq. 4, 0.01 */
	u32 kd_ppm;		/* k_d of Eq. 4, 0.001 */
	u32 beta;		/* beta, in 1/1000 of the configured weight */
	u32 signal;		/* enum fnv_lat_signal */
};

/* What the kernel measured for one tenant over one control period. */
struct fnv_sample {
	u64 nr;			/* completions */
	u64 lat_sum;		/* sum of completion - insertion, ns */
	u64 head_sum;		/* sum of dispatch - reaching the head, ns */
	u64 head_nr;		/* ... over that many dispatches */
	u32 head_scale;		/* factor of that wait, 1/1024; 0: none */
	u64 dev_sum;		/* sum of completion - dispatch, ns */
	u64 nr_type[2];		/* completions per type: 0 read, 1 write */
	u64 nr_fua;		/* ... writes with FUA (cost.c's probe) */
	u64 svc_sum[2];		/* sum of per-type service time, ns */
	u64 sect_sum[2];	/* sum of their sizes, sectors (cost.c) */
	bool busy;		/* requests queued or in flight at its end */
	bool queued;		/* a request queued behind another in it */
};

/* Controller state of one tenant on one device. */
struct fnv_ctl {
	u64 thresh_cur;		/* Thresh_cur (Eq. 3-4), ns */
	u64 lat;		/* mean latency of the last busy period, ns */
	/* mean head latency of the last busy period, ns: wait at the head
	 * times head_scale, plus device time
	 */
	u64 head;
	u64 dev;		/* mean device time of the last busy period, ns */
	u64 cost[2];		/* learned service time per read / write, ns */
	u32 mult;		/* effective weight / configured, 1/1000 */
	u32 ratio_w;		/* write ratio of the last busy period, 1/1000 */
	enum fnv_state state;
	struct fnv_sample pend;	/* periods pooled, not yet judged */
	u32 deferred;		/* ... how many */
};

void fnv_ctl_init(struct fnv_ctl *c, const struct fnv_ctl_params *p,
		  u64 default_cost);
enum fnv_state fnv_ctl_classify(u64 lat, u64 thresh_min, u64 thresh_cur,
				u64 thresh_max);
/* Eq. 3-4 applied to @n samples of latency @lat. */
u64 fnv_ctl_thresh_ewma(u64 thresh, u64 lat, u64 n, u32 ku_ppm, u32 kd_ppm);
/*
 * One control period (Algorithm 1): classify, move the weight multiplier
 * and Thresh_cur, learn the per-type costs. Returns true when the tenant
 * is unbalanced or saturated, i.e. asks for budget compensation. A busy
 * tenant with too few samples yet (FNV_CTL_MIN_NR) keeps its state and
 * weight; its samples count in the next period's judgement.
 */
bool fnv_ctl_period(struct fnv_ctl *c, const struct fnv_sample *smp,
		    const struct fnv_ctl_params *p);
/* @weight scaled by the multiplier, at least 1. */
u32 fnv_ctl_weight(const struct fnv_ctl *c, u32 weight);
/*
 * Eq. 6-7: device time the tenant's @req requests cost at its write ratio
 * and per-type costs, in us (so that Eq. 5's products fit in 64 bits).
 */
u64 fnv_ctl_demand_us(u64 req, u32 ratio_w, const u64 cost[2]);
/*
 * Eq. 5: Budget_i = W_i * D_i / sum_j W_j * D_j * B_total. The kernel runs
 * it in two passes over a device's tenants: x_i = fnv_ctl_eq5_x(W_i, D_i),
 * summed with fnv_ctl_eq5_add(), then fnv_ctl_eq5_budget(B_total, x_i, sum).
 */
u64 fnv_ctl_eq5_x(u32 weight, u64 demand_us);
u64 fnv_ctl_eq5_add(u64 sum, u64 x);
u64 fnv_ctl_eq5_budget(u64 b_total, u64 x, u64 sum, u32 n);

const char *fnv_ctl_state_name(enum fnv_state s);

#endif /* _FAIRNVME_STATE_H */
