// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme - weighted fair sharing of an NVMe device between cgroups.
 *
 * A tenant is a cgroup on one device: the blkcg policy data of the blkg a
 * request's bio belongs to (requests without one go to the root cgroup's
 * tenant). Each tenant queues its requests in arrival order. Which tenant is
 * served next is decided by one of two policies (iosched/wrr_mode):
 *
 * - soft (default): D2FQ (d2fq.c). A tenant's virtual time, bytes completed
 *   over weight, against the sloppy global virtual time picks the NVMe
 *   arbitration class of its next request; a software weighted round robin
 *   over the classes, with a dynamic high/low weight ratio, dispatches.
 * - off: budget cycles (budget.c). Every cycle hands out a budget of cost
 *   units (learned device time, or bytes) in proportion to the weights of
 *   the backlogged tenants; a tenant that spent its budget waits until all
 *   others spent theirs.
 *
 * Under both, the FairNVMe controller (state.c, run from a periodic worker)
 * moves each tenant's effective weight according to its latency state.
 *
 * A scheduler's order only decides service if the device does not hold most
 * of the requests itself: an NVMe queue accepts ~1000 commands and serves
 * them as it likes. Dispatch therefore stops at a depth of requests at the
 * device and resumes from the completion path. The depth adapts, between 1
 * and max_inflight, so that the device time of a request stays within a
 * few times what the device takes for a request alone (dev_target_us).
 *
 * Weights come from the cgroup file io.fairnvme.weight (blkio.fairnvme.weight
 * on cgroup v1), with the syntax of io.weight. Tunables are in
 * /sys/block/<dev>/queue/iosched/; Documentation/fairnvme.rst describes them.
 *
 * Locking: one spinlock per device (fnv_data.lock) covers the tenant queues
 * and the policy state. The completion path takes no lock: the in-flight
 * count, the virtual times and gvt are atomic, and the requests hold a
 * reference on their blkg, so a tenant outlives its cgroup until its last
 * request is freed.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/backing-dev.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-cgroup.h"
#include "blk-wbt.h"

#include <fairnvme/budget.h>
#include <fairnvme/state.h>
#include <fairnvme/d2fq.h>
#include <fairnvme/compat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/fairnvme.h>

/* The policy core is shared with the user-space unit tests. */
#include "budget.c"
#include "state.c"
#include "d2fq.c"
#include "cost.c"

/* Defaults and ranges of the iosched tunables. */
#define FNV_MAX_INFLIGHT_DEF	32
#define FNV_MAX_INFLIGHT_MAX	4096
#define FNV_REQ_COST_DEF	4096
#define FNV_REQ_COST_MAX	1048576
#define FNV_BUDGET_KIB_DEF	2048
#define FNV_BUDGET_KIB_MIN	64
#define FNV_BUDGET_KIB_MAX	1048576
/*
 * dev_target_us: "auto" (FNV_DEPTH_MULT times the device time of a request
 * sent alone), or a number of us
 */
#define FNV_DEV_TARGET_AUTO	U32_MAX
#define FNV_DEPTH_MULT		2
/*
 * The least depth while requests wait: with one request at the device, the
 * device idles from each completion until the next dispatch.
 */
#define FNV_DEPTH_MIN		2U
/* fnv_data.acc_dev1: the count above bit 44, summed ns below */
#define FNV_DEV1_SHIFT		44
#define FNV_DEV1_ONE		BIT_ULL(FNV_DEV1_SHIFT)
#define FNV_DEV1_MASK		(FNV_DEV1_ONE - 1)
/* lone requests a period needs before its mean may lower the floor */
#define FNV_DEV1_MIN_NR		4
#define FNV_DEV_TARGET_US_MAX	10000000
#define FNV_GRACE_US_DEF	1000
#define FNV_GRACE_US_MAX	1000000
#define FNV_BUDGET_US_DEF	10000
#define FNV_BUDGET_US_MIN	100
#define FNV_BUDGET_US_MAX	1000000
#define FNV_THRESH_MIN_US_DEF	600
#define FNV_THRESH_MAX_US_DEF	3500
#define FNV_THRESH_US_MAX	10000000
/*
 * thresh_*_us = auto: multiples of the device's time for one request alone
 * (dev_floor, smoothed: fnv_auto_thresh()), in 1/4: idle below 5/4 of it,
 * saturated from 8 times it. On the emulated NVMe (about 450 us alone)
 * that is the paper's 600 and 3500 us.
 */
#define FNV_THRESH_AUTO		0U
#define FNV_THRESH_MIN_Q	5
#define FNV_THRESH_MAX_Q	32
#define FNV_THRESH_AUTO_MIN_NS	(20 * NSEC_PER_USEC)
#define FNV_KU_PPM_DEF		10000
#define FNV_KD_PPM_DEF		1000
#define FNV_PPM_MAX		1000000
#define FNV_BETA_DEF		500
#define FNV_BETA_MAX		3000
#define FNV_PERIOD_MS_DEF	100
#define FNV_PERIOD_MS_MIN	10
#define FNV_PERIOD_MS_MAX	10000
/* D2FQ: tau_l per unit of weight, 8 MiB at the default weight 100 */
#define FNV_TAU_L_DEF		(8388608 / FNV_WEIGHT_DEFAULT)
/*
 * tau_l_bytes = auto: the lead, in virtual time, that a tenant served at
 * its fair rate covers in FNV_TAU_L_MS: the device's measured bytes per
 * second times FNV_TAU_L_MS, over the summed weight of the busy tenants.
 */
#define FNV_TAU_AUTO		0U
#define FNV_TAU_L_MS		50
#define FNV_TAU_L_MIN		512
#define FNV_TAU_L_MAX		1073741824U
#define FNV_HL_PERIOD_MS_DEF	1000
#define FNV_HL_PERIOD_MS_MIN	100
#define FNV_HL_PERIOD_MS_MAX	60000
#define FNV_WRR_BURST_MAX	256
/* Cost of a request before its tenant's costs are learned */
#define FNV_COST_DEF_NS		(100 * NSEC_PER_USEC)
/* Requests served before the tenants' (fnv_urgent_next()) */
#define FNV_URGENT_FLAGS	(REQ_META | REQ_PRIO | REQ_SWAP)
#define FNV_URGENT_BATCH	8U
/* Sync requests of a tenant in a row while its async ones wait */
#define FNV_SYNC_BATCH		4U

enum fnv_wrr_mode {
	FNV_WRR_SOFT,		/* D2FQ classes, arbitrated here (d2fq.c) */
	FNV_WRR_OFF,		/* FairNVMe budget cycles (budget.c) */
};

enum fnv_cost_model {
	FNV_COST_TIME,		/* learned device time per request, ns */
	FNV_COST_BYTES,		/* size + req_cost_bytes */
};

static const struct fnv_ctl_params fnv_ctl_defaults = {
	.thresh_min = FNV_THRESH_MIN_US_DEF * NSEC_PER_USEC,
	.thresh_max = FNV_THRESH_MAX_US_DEF * NSEC_PER_USEC,
	.ku_ppm = FNV_KU_PPM_DEF,
	.kd_ppm = FNV_KD_PPM_DEF,
	.beta = FNV_BETA_DEF,
	.signal = FNV_LAT_HEAD,
};

/*
 * rq->elv.priv[1]: flags in the low byte, in bits 8-23 the number of
 * requests at the device when this one was dispatched (to turn its device
 * time into a service time), in bits 24-43 its size in sectors at dispatch
 * (for the cost model), in bits 44-63 what it was charged (cost.c, in
 * sectors of a 4 KiB read: the virtual time it costs when it completes).
 * Both saturate.
 */
#define FNV_RQ_FIFO		BIT(0)	/* on its tenant's fifo */
#define FNV_RQ_HEAD		BIT(1)	/* on fnv_data.head or .urgent */
#define FNV_RQ_INFLIGHT		BIT(2)	/* counted in fnv_data.inflight */
#define FNV_RQ_SAMPLE		BIT(3)	/* its latency feeds the controller */
#define FNV_RQ_D2FQ		BIT(4)	/* advances its tenant's virtual time */
#define FNV_RQ_URGENT		BIT(5)	/* on fnv_data.urgent */
/* One request in FNV_SAMPLE_EVERY of each tenant is measured. */
#define FNV_SAMPLE_EVERY	4
#define FNV_RQ_FLAGS		0xffUL
#define FNV_RQ_DEPTH_SHIFT	8
#define FNV_RQ_DEPTH_MASK	0xffffUL
#define FNV_RQ_SECT_SHIFT	24
#define FNV_RQ_COST_SHIFT	44
#define FNV_RQ_SECT_MASK	0xfffffUL

/* Per cgroup (blkcg) data: the cgroup-wide default weight. */
struct fnv_cgroup {
	struct blkcg_policy_data cpd;
	u32 weight;
};

/* Per cgroup and device (blkg) data: the tenant. */
struct fnv_tenant {
	struct blkg_policy_data pd;
	struct fnv_flow flow;
	struct d2fq_flow d2;		/* under fnv_data.lock but .vt */
	/* queued requests in arrival order: [0] sync, [1] async */
	struct list_head fifo[2];
	u32 sync_run;			/* sync dispatches while async waited */
	struct rb_root sort[2];		/* queued requests by sector */
	atomic_t inflight;		/* dispatched, not yet completed */
	atomic_t nr_rqs;		/* scheduler tags held, from insertion */
	u64 idle_at;			/* ns: inflight last dropped to 0 */
	u64 disp_at;			/* ns: last dispatch, under fnv_data.lock */
	u32 nr_disp;			/* dispatches, under fnv_data.lock */
	bool offline;			/* cgroup removed, under fnv_data.lock */
	bool root;			/* the root cgroup's: never holds gvt */
	/* a request was queued behind another in this control period */
	bool queued_behind;
	u32 nr_queued;
	u32 dev_weight;			/* io.fairnvme.weight MAJ:MIN, 0: unset */
	u32 cfg_weight;			/* dev_weight, else the cgroup's */

	/* completions of the current control period (lockless) */
	atomic64_t acc_lat;		/* sum of completion - insertion */
	atomic64_t acc_head;		/* sum of dispatch - reaching head */
	atomic64_t acc_dev;		/* sum of completion - dispatch */
	atomic64_t acc_svc[2];		/* sum of service time, read/write */
	atomic64_t acc_sect[2];		/* sum of their sectors */
	atomic_t acc_nr[2];		/* completions, read/write */

	/*
	 * On fnv_data.active, holding a blkg reference, from its first
	 * request until the control worker finds it idle (FNV_IDLE_LEAVE
	 * periods): the worker walks only these.
	 */
	struct list_head active_node;
	u32 idle_periods;

	/* the control worker's, under fnv_data.lock; read racily elsewhere */
	struct fnv_ctl ctl;
	u32 eff_weight;			/* cfg_weight as the controller moved it */
	u64 eq5_x;			/* W_i * D_i of Eq. 5 */
	u64 eq5_budget;			/* Budget_i of Eq. 5, 0 if not compensating */
	struct rcu_head rcu;		/* fnv_pd_free() to fnv_tenant_free() */
};

/* Per device data. */
struct fnv_data {
	/*
	 * Everything but the lockless fields at the end. Nested inside
	 * q->queue_lock (fnv_pd_offline()), which blk-throttle takes from a
	 * timer: so taken with interrupts off everywhere else, as BFQ takes
	 * its lock, or a softirq on the CPU that holds it could spin on
	 * queue_lock while the queue_lock holder spins on this.
	 */
	spinlock_t lock;
	struct request_queue *q;
	struct fnv_sched sched;
	struct d2fq_arb arb;		/* wrr_mode=soft: tenants by class */
	u64 hl_last;			/* ns: last H/L period */
	struct list_head head;		/* at-head insertions: served first */
	struct list_head urgent;	/* metadata, swap: served next */
	u32 nr_urgent;			/* requests on urgent */
	u32 urgent_run;			/* urgent dispatches in a row */
	struct list_head bypass;	/* requests without elevator data */
	u32 nr_queued;			/* requests held, all lists */
	u64 seq;			/* insertion order, for fifo_time */
	/*
	 * Soft mode: a tenant that had nothing queued or in flight and came
	 * back in the high class; its first request may pass the depth
	 * (fnv_lone_ready). Cleared when the tenant drains: its queued
	 * requests hold its blkg while it is here.
	 */
	struct fnv_tenant *lone;
	u32 depth;			/* dispatch depth now, <= max_inflight */
	/*
	 * Requests that reached the device past the elevator (on 6.1, FUA
	 * writes): completions counted racily on the completion path, and
	 * the control period's estimate of how many are at the device,
	 * which the depth leaves room for (fnv_may_dispatch()).
	 */
	u32 bypass_done;
	u32 bypass_depth;
	u32 cycle_seen;			/* wrr_mode=off: budget cycle, and */
	u64 cycle_start;		/* ... when it began (ns) */
	u64 dev_floor;			/* ns: device time alone (auto depth) */

	u32 max_inflight;
	u32 dev_target_us;		/* 0: depth = max_inflight; or _AUTO */
	u32 req_cost_bytes;
	u32 budget_kib;
	u32 grace_us;
	u32 budget_us;
	u32 cost_model;			/* enum fnv_cost_model */
	u32 ctl_period_ms;
	struct fnv_ctl_params ctl;	/* thresholds in force, and gains */
	u32 thresh_min_cfg;		/* us, or FNV_THRESH_AUTO */
	u32 thresh_max_cfg;		/* us, or FNV_THRESH_AUTO */
	u64 lat_base;			/* ns: dev_floor, smoothed */
	u32 wrr_mode;			/* enum fnv_wrr_mode, under lock */
	u32 tau_l_bytes;		/* per unit of weight, in force */
	u32 tau_l_cfg;			/* the tunable; FNV_TAU_AUTO */
	u64 disp_bytes;			/* charged at dispatch, all time */
	u64 rate_bytes;			/* seen by the worker last period */
	u64 rate_at;			/* ... when (ns) */
	u64 rate;			/* device bytes/s at saturation, learned */
	struct fnv_cm cm;		/* wrr_mode=soft: what requests cost */
	u32 hl_period_ms;
	u32 wrr_burst;

	struct delayed_work ctl_work;	/* the FairNVMe control period */
	struct list_head active;	/* tenants the worker walks */
	bool ctl_armed;			/* ctl_work queued or running */
	/* mean configured weight of the busy tenants */
	u32 w_mean;
	u32 w_sum;			/* ... and their sum */
	u32 comp_left;			/* periods of compensation left */
	u32 async_depth;		/* scheduler tags async I/O may take, per word */
	u32 over_depth;			/* ... a tenant over its share, per word */

	/*
	 * Lockless, written on completion: on their own cache line, away
	 * from what dispatch and insertion write under the lock.
	 */
	atomic64_t gvt ____cacheline_aligned_in_smp; /* D2FQ holder word */
	atomic_t inflight;		/* dispatched, not yet completed */
	int kick;			/* dispatch stopped at the depth */
	int limited;			/* ... at least once this period */
	atomic64_t acc_dev1;		/* lone requests: count << 44 | ns */
	u64 last_done;			/* ns: the last completion */
	u64 sync_done;			/* ns: a sync request's completion */
	u64 sync_vt;			/* ... its tenant's virtual time */
};

/* Control periods a tenant stays on the active list once it is idle. */
#define FNV_IDLE_LEAVE		10

static struct blkcg_policy fnv_policy;
static struct elevator_type fnv_elevator;
/* D2FQ flow ids, unique among live tenants (0 = none: never holds gvt) */
static DEFINE_IDA(fnv_ida);

static struct fnv_tenant *pd_to_tenant(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct fnv_tenant, pd) : NULL;
}

static struct fnv_cgroup *blkcg_to_fnvcg(struct blkcg *blkcg)
{
	struct blkcg_policy_data *cpd = blkcg_to_cpd(blkcg, &fnv_policy);

	return cpd ? container_of(cpd, struct fnv_cgroup, cpd) : NULL;
}

static unsigned long fnv_rq_flags(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] & FNV_RQ_FLAGS;
}

static void fnv_rq_set_flags(struct request *rq, unsigned long flags)
{
	unsigned long v = (unsigned long)rq->elv.priv[1] & ~FNV_RQ_FLAGS;

	rq->elv.priv[1] = (void *)(v | flags);
}

static unsigned long fnv_rq_depth(struct request *rq)
{
	return ((unsigned long)rq->elv.priv[1] >> FNV_RQ_DEPTH_SHIFT) &
	       FNV_RQ_DEPTH_MASK;
}

static u64 fnv_rq_sect(struct request *rq)
{
	return ((unsigned long)rq->elv.priv[1] >> FNV_RQ_SECT_SHIFT) &
	       FNV_RQ_SECT_MASK;
}

/* What it was charged, in bytes of 4 KiB reads */
static u64 fnv_rq_charged(struct request *rq)
{
	return (u64)((unsigned long)rq->elv.priv[1] >> FNV_RQ_COST_SHIFT) <<
	       SECTOR_SHIFT;
}

/* At dispatch: the depth it went out at, its size and its charge. */
static void fnv_rq_set_depth(struct request *rq, unsigned long depth,
			     u64 charge)
{
	unsigned long sect = blk_rq_sectors(rq);

	rq->elv.priv[1] = (void *)(fnv_rq_flags(rq) |
				   (min(depth, FNV_RQ_DEPTH_MASK) <<
				    FNV_RQ_DEPTH_SHIFT) |
				   (min(sect, FNV_RQ_SECT_MASK) <<
				    FNV_RQ_SECT_SHIFT) |
				   ((unsigned long)min_t(u64, charge,
							 FNV_RQ_SECT_MASK) <<
				    FNV_RQ_COST_SHIFT));
}

/*
 * wrr_mode=soft: what @rq costs, in sectors of a 4 KiB read (cost.c); its
 * size under cost_model=bytes. Other commands than reads and writes
 * (discard, write zeroes) cost one write command, not their size.
 */
static u64 fnv_charge(struct fnv_data *fd, struct request *rq)
{
	const struct fnv_cm *m = &fd->cm;
	u64 sect = blk_rq_sectors(rq);
	int t = FNV_CM_WRITE;

	if (fd->cost_model == FNV_COST_BYTES)
		return max(sect, 1ULL);
	switch (req_op(rq)) {
	case REQ_OP_READ:
		t = FNV_CM_READ;
		break;
	case REQ_OP_WRITE:
		break;
	default:
		sect = 0;
	}
	return fnv_cm_charge(m->c_cmd[t], m->c_sect[t], sect);
}

/* Our data, if @q uses fairnvme (callers hold q->queue_lock). */
static struct fnv_data *fnv_q_data(struct request_queue *q)
{
	struct elevator_queue *e = q->elevator;

	return e && e->type == &fnv_elevator ? e->elevator_data : NULL;
}

static u64 fnv_tenant_cgid(struct fnv_tenant *tn)
{
	return cgroup_id(tn->pd.blkg->blkcg->css.cgroup);
}

static struct fnv_tenant *fnv_rq_tenant(struct request *rq)
{
	return rq->elv.priv[0];
}

/* Tenant of @bio on @q: its blkg's, else the root cgroup's. */
static struct fnv_tenant *fnv_bio_tenant(struct request_queue *q,
					 struct bio *bio)
{
	struct blkcg_gq *blkg = bio ? bio->bi_blkg : NULL;
	struct blkg_policy_data *pd = NULL;

	if (blkg && blkg->q == q)
		pd = blkg_to_pd(blkg, &fnv_policy);
	if (!pd && q->root_blkg)
		pd = blkg_to_pd(q->root_blkg, &fnv_policy);
	return pd_to_tenant(pd);
}

static u64 fnv_rq_cost(struct fnv_data *fd, struct fnv_tenant *tn,
		       struct request *rq)
{
	if (READ_ONCE(fd->cost_model) == FNV_COST_BYTES || !tn)
		return (u64)blk_rq_bytes(rq) + READ_ONCE(fd->req_cost_bytes);
	return READ_ONCE(tn->ctl.cost[op_is_write(req_op(rq)) ? 1 : 0]);
}

/* B_total in the units of the cost model; fd->lock or sysfs_lock held */
static u64 fnv_cycle_budget(struct fnv_data *fd)
{
	if (fd->cost_model == FNV_COST_BYTES)
		return (u64)fd->budget_kib << 10;
	return (u64)fd->budget_us * NSEC_PER_USEC;
}

/*
 * Fewer than @max requests at the device? When not, ask the completion path
 * to run the queue once the in-flight count drops; the barrier orders the
 * flag store before the re-read and pairs with atomic_dec_return() there.
 */
static bool fnv_inflight_below(struct fnv_data *fd, int max)
{
	if (atomic_read(&fd->inflight) < max)
		return true;
	if (!READ_ONCE(fd->kick))
		WRITE_ONCE(fd->kick, 1);
	smp_mb(); /* kick before re-reading inflight; see fnv_inflight_dec() */
	return atomic_read(&fd->inflight) < max;
}

/* May another request go to the device? */
static bool fnv_may_dispatch(struct fnv_data *fd)
{
	if (fnv_inflight_below(fd, READ_ONCE(fd->depth) +
			       READ_ONCE(fd->bypass_depth)))
		return true;
	/* the depth held a request back in this control period */
	if (!READ_ONCE(fd->limited))
		WRITE_ONCE(fd->limited, 1);
	return false;
}

/*
 * A tenant with one request at a time (a QD1 reader, a database's log
 * writes) has nothing at the device when it sends the next one. Held at a
 * full depth, that request waits for some other tenant's completion and for
 * the queue run it schedules (kblockd, a context switch the host's CPU load
 * makes longer), and the tenant's whole throughput is that latency: under
 * one busy host core a QD1 reader of equal weight got 0.158 of the device
 * where none gave it 0.23. So the first request of a tenant that returns in
 * the high class, with nothing in flight, may pass the depth, up to twice
 * the depth in all: it is the request D2FQ would serve next anyway, and at
 * most one such tenant waits at a time.
 */
static bool fnv_lone_ready(struct fnv_data *fd)
{
	return READ_ONCE(fd->lone) &&
	       atomic_read(&fd->inflight) < 2 * READ_ONCE(fd->depth);
}

/*
 * Policy callback: a tenant with no queued request but budget left keeps the
 * budget cycle open while it has requests at the device or completed its
 * last one less than grace_us ago: it is about to send more.
 */
static bool fnv_flow_busy(struct fnv_sched *s, struct fnv_flow *f)
{
	struct fnv_data *fd = container_of(s, struct fnv_data, sched);
	struct fnv_tenant *tn = container_of(f, struct fnv_tenant, flow);
	u64 grace = (u64)READ_ONCE(fd->grace_us) * NSEC_PER_USEC;

	if (atomic_read(&tn->inflight))
		return true;
	return grace && ktime_get_ns() - READ_ONCE(tn->idle_at) < grace;
}

/* A reference on the tenant's blkg, for each list the tenant sits on. */
static void fnv_tenant_hold(struct fnv_tenant *tn, bool hold)
{
	if (hold)
		blkg_get(tn->pd.blkg);
	else
		blkg_put(tn->pd.blkg);
}

/* @tn leaves the control worker's active list, and drops what it held. */
static void fnv_tenant_leave(struct fnv_tenant *tn)
{
	list_del_init(&tn->active_node);
	fnv_tenant_hold(tn, false);
}

/* Policy callback: a tenant on the waiting list holds a blkg reference. */
static void fnv_flow_pin(struct fnv_sched *s, struct fnv_flow *f, bool pin)
{
	fnv_tenant_hold(container_of(f, struct fnv_tenant, flow), pin);
}

/*
 * Arbiter callback: a tenant on a class list, parked ones too, holds a
 * blkg reference, so that no list can point to a freed tenant.
 */
static void fnv_d2fq_hold(struct d2fq_arb *a, struct d2fq_flow *f, bool hold)
{
	fnv_tenant_hold(container_of(f, struct fnv_tenant, d2), hold);
}

static void fnv_inflight_dec(struct fnv_data *fd, struct fnv_tenant *tn,
			     struct blk_mq_hw_ctx *hctx)
{
	/*
	 * Start of the grace period (budget.c's busy, D2FQ's release), read
	 * by whoever sees inflight at 0: stamped before the decrement that
	 * may make it 0, and again after it in case two completions raced
	 * from 2.
	 */
	if (tn && atomic_read(&tn->inflight) == 1) {
		WRITE_ONCE(tn->idle_at, ktime_get_ns());
		/* idle_at before the decrement that lets it be read */
		smp_mb__before_atomic();
	}
	if (tn && atomic_dec_and_test(&tn->inflight))
		WRITE_ONCE(tn->idle_at, ktime_get_ns());
	if (atomic_dec_return(&fd->inflight) < READ_ONCE(fd->depth) &&
	    READ_ONCE(fd->kick) && xchg(&fd->kick, 0))
		/*
		 * Any hardware queue dispatches for the whole device
		 * (QUEUE_FLAG_SQ_SCHED): run the completing one only, not
		 * a walk over all of them.
		 */
		blk_mq_run_hw_queue(hctx, true);
}

/*
 * wrr_mode=soft: the class of @f's next request (Eq. 1). A tenant that was
 * not active (idle past its grace period, or new) starts at gvt, or where
 * it was if that is ahead of gvt, by tau_l at most: it brings no credit,
 * and it keeps its lead. Forgetting the lead let a tenant that waits more
 * than grace_us between requests (an O_SYNC writer waiting for each
 * journal commit) restart at gvt every time and escape its weight: 0.179
 * of the device at weight 100 beside a weight-800 reader, 0.111 due. The
 * cap keeps a vt from long ago (or wrapped) from holding a tenant back.
 */
static enum d2fq_class fnv_d2fq_class(struct fnv_data *fd,
				      struct d2fq_flow *f)
{
	u64 gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	u64 tau_l = (u64)fd->tau_l_bytes << D2FQ_VT_SHIFT;

	if (!f->active) {
		s64 lead = d2fq_vt_diff(atomic64_read(&f->vt), gvt);
		u64 vt = gvt + (lead > 0 ? min_t(u64, lead, tau_l) : 0);

		atomic64_set(&f->vt, vt);
		f->vt_prev = vt;
		f->active = true;
	}
	/*
	 * The root cgroup's tenant never holds gvt (fnv_pd_init()), so
	 * nothing pulls gvt up to it: alone for a while, it would get far
	 * ahead and then wait in the low class behind any tenant that
	 * comes. Its lead stays under tau_l / 2: the medium class at most.
	 */
	if (unlikely(container_of(f, struct fnv_tenant, d2)->root)) {
		s64 lead = d2fq_vt_diff(atomic64_read(&f->vt), gvt);

		if (lead >= (s64)(tau_l / 2))
			atomic64_set(&f->vt, gvt + tau_l / 2 - 1);
	}
	return d2fq_class_of(d2fq_vt_diff(atomic64_read(&f->vt), gvt), tau_l);
}

/* Queue @tn, which has requests, on the class list of its next request. */
static void fnv_d2fq_enqueue(struct fnv_data *fd, struct fnv_tenant *tn)
{
	lockdep_assert_held(&fd->lock);
	d2fq_arb_add(&fd->arb, &tn->d2, fnv_d2fq_class(fd, &tn->d2));
}

/*
 * Take every tenant off the class lists, handing those with requests to
 * @moved (parked ones just leave).
 */
static void fnv_d2fq_clear(struct fnv_data *fd,
			   void (*moved)(struct fnv_data *fd,
					 struct fnv_tenant *tn))
{
	struct fnv_tenant *tn;
	int i;

	lockdep_assert_held(&fd->lock);
	for (i = 0; i < D2FQ_NR_CLASSES; i++) {
		while (!list_empty(&fd->arb.cls[i])) {
			bool parked;

			tn = list_first_entry(&fd->arb.cls[i],
					      struct fnv_tenant, d2.node);
			parked = tn->d2.parked;
			d2fq_arb_del(&fd->arb, &tn->d2);
			if (!parked && moved)
				moved(fd, tn);
		}
	}
}

/* @tn got its first queued request: join the policy of the mode. */
static void fnv_tenant_backlogged(struct fnv_data *fd, struct fnv_tenant *tn)
{
	if (fd->wrr_mode != FNV_WRR_SOFT) {
		fnv_flow_activate(&fd->sched, &tn->flow);
	} else if (!d2fq_arb_unpark(&fd->arb, &tn->d2,
				    fnv_d2fq_class(fd, &tn->d2))) {
		fnv_d2fq_enqueue(fd, tn);
	}
}

/*
 * @tn has no queued request left: leave whichever policy holds it. Under
 * D2FQ it keeps its turn (parked) while its cgroup is online: no request
 * holds its blkg then, and fnv_pd_offline() takes it off before the blkg
 * can go.
 */
static void fnv_tenant_drained(struct fnv_data *fd, struct fnv_tenant *tn)
{
	if (fd->lone == tn)
		WRITE_ONCE(fd->lone, NULL);
	if (tn->d2.cls >= 0) {
		if (tn->offline)
			d2fq_arb_del(&fd->arb, &tn->d2);
		else
			d2fq_arb_park(&fd->arb, &tn->d2);
	} else {
		fnv_flow_deactivate(&fd->sched, &tn->flow);
	}
}

/*
 * @tn has a request: on the active list if it was not (an offline tenant
 * never joins again), and the control worker armed if it was not: it stops
 * when no tenant is left, so an idle device has no timer.
 */
static void fnv_tenant_active(struct fnv_data *fd, struct fnv_tenant *tn)
{
	lockdep_assert_held(&fd->lock);
	tn->idle_periods = 0;
	if (list_empty(&tn->active_node) && !tn->offline) {
		fnv_tenant_hold(tn, true);
		list_add_tail(&tn->active_node, &fd->active);
	}
	if (!fd->ctl_armed) {
		fd->ctl_armed = true;
		schedule_delayed_work(&fd->ctl_work,
				      msecs_to_jiffies(READ_ONCE(fd->ctl_period_ms)));
	}
}

static void fnv_urgent_add(struct fnv_data *fd, struct request *rq)
{
	list_add_tail(&rq->queuelist, &fd->urgent);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_URGENT);
	fd->nr_urgent++;
}

static void fnv_insert_request(struct fnv_data *fd, struct request *rq,
			       bool at_head, struct list_head *free)
{
	struct request_queue *q = fd->q;
	struct fnv_tenant *tn;

	lockdep_assert_held(&fd->lock);

	if (!(rq->rq_flags & FNV_RQF_SCHED)) {
		/* No elevator data (rq->elv is not ours): pass it through. */
		if (at_head)
			list_add(&rq->queuelist, &fd->bypass);
		else
			list_add_tail(&rq->queuelist, &fd->bypass);
		WRITE_ONCE(fd->nr_queued, fd->nr_queued + 1);
		return;
	}

	tn = fnv_rq_tenant(rq);
	if (!tn) {
		tn = fnv_bio_tenant(q, rq->bio);
		if (tn) {
			/* Dropped in fnv_finish_request(). */
			blkg_get(tn->pd.blkg);
			rq->elv.priv[0] = tn;
			atomic_inc(&tn->nr_rqs);
		}
	}
	if (tn)
		fnv_tenant_active(fd, tn);

	/* a requeue goes back first as it is: never merged */
	if (!at_head && blk_mq_sched_try_insert_merge(q, rq, free))
		return;

	trace_block_rq_insert(rq);
	rq->fifo_time = fd->seq++;
	WRITE_ONCE(fd->nr_queued, fd->nr_queued + 1);

	if (at_head || !tn || (rq->cmd_flags & FNV_URGENT_FLAGS)) {
		/*
		 * Requeues and at-head insertions go first, unmerged, then
		 * urgent requests (fnv_urgent_next()). A driver may have used
		 * the rb_node space (special_vec) meanwhile.
		 */
		RB_CLEAR_NODE(&rq->rb_node);
		if (at_head)
			list_add(&rq->queuelist, &fd->head);
		else if (!tn)
			list_add_tail(&rq->queuelist, &fd->head);
		else
			fnv_urgent_add(fd, rq);
		fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_HEAD);
		return;
	}

	elv_rb_add(&tn->sort[rq_data_dir(rq)], rq);
	/*
	 * Discards are not hashed: a chain of insert merges would merge two
	 * queued discards without telling the elevator (attempt_merge() skips
	 * elv_merge_requests() for them) and free one still on our lists.
	 */
	if (rq_mergeable(rq) && !blk_discard_mergable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	list_add_tail(&rq->queuelist, &tn->fifo[op_is_sync(rq->cmd_flags) ?
						0 : 1]);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_FIFO);
	if (!tn->nr_queued++) {
		fnv_tenant_backlogged(fd, tn);
		if (fd->wrr_mode == FNV_WRR_SOFT && !fd->lone &&
		    tn->d2.cls >= 0 && tn->d2.cls <= D2FQ_HIGH &&
		    !atomic_read(&tn->inflight))
			WRITE_ONCE(fd->lone, tn);
	} else {
		tn->queued_behind = true;
	}
}

/* Take @rq out of the scheduler: dispatched, or merged into another. */
static void fnv_remove_request(struct fnv_data *fd, struct request *rq)
{
	struct request_queue *q = fd->q;
	unsigned long flags = fnv_rq_flags(rq);
	struct fnv_tenant *tn = fnv_rq_tenant(rq);

	lockdep_assert_held(&fd->lock);

	list_del_init(&rq->queuelist);
	if (flags & FNV_RQ_FIFO)
		elv_rb_del(&tn->sort[rq_data_dir(rq)], rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	fnv_rq_set_flags(rq, flags & ~(FNV_RQ_FIFO | FNV_RQ_HEAD |
				       FNV_RQ_URGENT));
	if (flags & FNV_RQ_URGENT)
		fd->nr_urgent--;
	WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);

	if ((flags & FNV_RQ_FIFO) && !--tn->nr_queued)
		fnv_tenant_drained(fd, tn);
}

static void fnv_insert_requests(FNV_INSERT_ARGS)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;
	LIST_HEAD(free);

	spin_lock_irq(&fd->lock);
	while (!list_empty(list)) {
		struct request *rq;

		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		fnv_insert_request(fd, rq, FNV_INSERT_AT_HEAD, &free);
	}
	spin_unlock_irq(&fd->lock);

	blk_mq_free_requests(&free);
}

static void fnv_trace_dispatch(struct fnv_data *fd, struct fnv_tenant *tn,
			       u64 cost, int cls)
{
	u64 cgid = 0, vtime = 0;
	s64 budget = 0;
	u32 weight = 0;

	if (tn && cls >= 0) {
		cgid = cgroup_id(tn->pd.blkg->blkcg->css.cgroup);
		weight = tn->d2.weight;
		vtime = atomic64_read(&tn->d2.vt);
	} else if (tn) {
		cgid = cgroup_id(tn->pd.blkg->blkcg->css.cgroup);
		weight = tn->flow.weight;
		vtime = tn->flow.vtime;
		budget = tn->flow.budget;
	}
	trace_fairnvme_dispatch(disk_devt(fd->q->disk), cgid, weight, vtime,
				budget, cost, fd->sched.cycle,
				atomic_read(&fd->inflight), cls);
}

/*
 * A tenant's next request: its oldest synchronous one (reads, O_DIRECT and
 * O_DSYNC writes, fsync's writes), which a process waits for, before its
 * writeback; but after FNV_SYNC_BATCH synchronous requests in a row its
 * oldest asynchronous one goes, so that writeback is not starved within the
 * tenant (mq-deadline's writes_starved, per tenant). A merge can move a
 * request to the other list: the lists only order, they do not classify.
 */
static struct request *fnv_tenant_next(struct fnv_tenant *tn)
{
	struct list_head *sync = &tn->fifo[0], *async = &tn->fifo[1];

	if (list_empty(async)) {
		tn->sync_run = 0;
		return list_first_entry(sync, struct request, queuelist);
	}
	if (!list_empty(sync) && tn->sync_run < FNV_SYNC_BATCH) {
		tn->sync_run++;
		return list_first_entry(sync, struct request, queuelist);
	}
	tn->sync_run = 0;
	return list_first_entry(async, struct request, queuelist);
}

/*
 * Urgent requests: filesystem metadata and journal blocks (REQ_META,
 * REQ_PRIO: jbd2 commits, directory and inode reads) and swap. Every
 * process of every tenant can end up waiting for them (a journal commit
 * holds every fsync on the filesystem), and the block layer issues them as
 * the root cgroup's (bio_issue_as_root_blkg()), whatever cgroup sent them.
 * They go before the tenants' requests, still charged to their tenant (its
 * virtual time or budget: paid for later by its other requests, as
 * blk-iocost charges them as debt). A flood of them (a swap storm) cannot
 * starve the others: after FNV_URGENT_BATCH in a row while other requests
 * wait, the arbiter serves one of those.
 */
static struct request *fnv_urgent_next(struct fnv_data *fd)
{
	if (list_empty(&fd->urgent)) {
		fd->urgent_run = 0;
		return NULL;
	}
	if (fd->urgent_run >= FNV_URGENT_BATCH &&
	    fd->nr_queued > fd->nr_urgent) {
		fd->urgent_run = 0;
		return NULL;
	}
	fd->urgent_run++;
	return list_first_entry(&fd->urgent, struct request, queuelist);
}

/*
 * A slot kept for a synchronous tenant that is behind. A tenant with one
 * request at a time (a QD1 reader, a database's log) has nothing queued
 * between its requests; a busier tenant fills the depth then, and on a
 * device that serves in order each of the lone tenant's requests waits
 * behind all of those: a QD1 reader of equal weight got 0.28 of the
 * device's requests beside a page-cache writer (none 0.40; BFQ, which
 * idles for it, 0.73). So for grace_us after such a tenant's last request
 * completed (it is about to send the next, and its completions come that
 * close while it keeps going), a tenant ahead of it in virtual time may
 * have requests at the device only while fewer than a quarter of the depth
 * (one at least) are there. Once it has caught up, or gone quiet, the
 * others have the whole depth again: the shares follow the weights. The
 * depth follows the device, and a completion runs the queue again: the
 * device is never left idle. fairnvme turns wbt off (as BFQ does); this,
 * with the tag limits, does wbt's job for readers. The clock is read only
 * when the last completion of all was that recent.
 */
#define FNV_HOLD_DEPTH_SHIFT	2

static bool fnv_held(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u64 grace = (u64)fd->grace_us * NSEC_PER_USEC;
	u64 sync_done = READ_ONCE(fd->sync_done);
	int cap = max(READ_ONCE(fd->depth) >> FNV_HOLD_DEPTH_SHIFT, 1U);

	if (atomic_read(&fd->inflight) < cap ||
	    READ_ONCE(fd->last_done) - sync_done >= grace ||
	    d2fq_vt_diff(atomic64_read(&tn->d2.vt),
			 READ_ONCE(fd->sync_vt)) <= 0 ||
	    ktime_get_ns() - sync_done >= grace)
		return false;
	return !fnv_inflight_below(fd, cap);
}

/*
 * wrr_mode=soft: the next request by the software arbiter; @cls is set to
 * the class it was served through. The tenant then goes to the tail of the
 * class of its next request, if it has one.
 */
static struct request *fnv_d2fq_take(struct fnv_data *fd,
				     struct fnv_tenant *tn, int *cls)
{
	struct d2fq_flow *f = &tn->d2;
	struct request *rq;

	rq = fnv_tenant_next(tn);
	*cls = f->cls;
	f->bytes[f->cls] += fnv_charge(fd, rq) << SECTOR_SHIFT;
	f->nr[f->cls]++;
	if (tn->nr_queued > 1) {
		enum d2fq_class c = fnv_d2fq_class(fd, f);

		if (c == f->cls) {
			list_move_tail(&f->node, &fd->arb.cls[c]);
		} else {
			d2fq_arb_del(&fd->arb, f);
			d2fq_arb_add(&fd->arb, f, c);
		}
	} else {
		/* its last request: parked at the end of the rotation */
		list_move_tail(&f->node, &fd->arb.cls[f->cls]);
	}
	return rq;
}

/*
 * Is @tn more than 2 tau_l ahead of gvt while other tenants have requests
 * queued? Then its turn passes to them. The classes alone let a tenant's
 * lead grow for as long as the low class is served faster than its fair
 * rate: D2FQ raises the H/L ratio at the next hl_period_ms, when the lead
 * is already there (2 tau_l is Eq. 2's trigger). A weight-100 tenant among
 * eight of weights 100 to 800, alone in the low class, got 6 tau_l ahead
 * and then lost a fifth of its share in the next 5 s while it was paid
 * back. This bounds the lead, as the eligibility test of WF2Q does, and is
 * work conserving: a tenant alone with requests is served however far
 * ahead it is.
 */
static bool fnv_far_ahead(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u64 gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	u64 tau_w = (u64)fd->tau_l_bytes << (D2FQ_VT_SHIFT + 1);

	return fd->nr_queued > tn->nr_queued &&
	       d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) > (s64)tau_w;
}

static struct request *fnv_d2fq_next(struct fnv_data *fd, int *cls)
{
	struct d2fq_flow *f;
	struct fnv_tenant *tn;
	int tries;

	/*
	 * Past a held or far-ahead tenant: one try per class at most, and
	 * the last try serves a tenant that is only ahead (work conserving).
	 */
	for (tries = 0; tries < 3; tries++) {
		f = d2fq_arb_pick(&fd->arb);
		if (!f)
			return NULL;
		tn = container_of(f, struct fnv_tenant, d2);
		if (!fnv_held(fd, tn) &&
		    (tries == 2 || !fnv_far_ahead(fd, tn)))
			return fnv_d2fq_take(fd, tn, cls);
		d2fq_arb_unpick(&fd->arb, f);
	}
	return NULL;
}

/* The lone tenant's request, past the depth (see fnv_lone_ready()). */
static struct request *fnv_d2fq_lone(struct fnv_data *fd, int *cls)
{
	struct fnv_tenant *tn = fd->lone;

	WRITE_ONCE(fd->lone, NULL);
	if (!tn || !tn->nr_queued || tn->d2.parked || tn->d2.cls < 0 ||
	    atomic_read(&tn->inflight))
		return NULL;
	return fnv_d2fq_take(fd, tn, cls);
}

/*
 * The clock at @rq's dispatch: the tenant's last dispatch time, the start
 * of a budget cycle, and for a @sample the device time's start and the
 * wait at the head.
 */
static void fnv_dispatch_stamp(struct fnv_data *fd, struct fnv_tenant *tn,
			       struct request *rq, bool cycle, bool sample)
{
	u64 now = ktime_get_ns();
	u64 head = max(rq->start_time_ns, tn->disp_at);

	/*
	 * Budget cycles: a tenant that spent its budget waits for the next
	 * cycle by design, that wait is its share. Its head latency counts
	 * from the start of the cycle at most, or the controller would read
	 * the share as unfairness and raise the weights of the lightest
	 * tenants (whose few requests per cycle wait longest between
	 * cycles).
	 */
	if (cycle) {
		if (fd->cycle_seen != fd->sched.cycle) {
			fd->cycle_seen = fd->sched.cycle;
			fd->cycle_start = now;
		}
		head = max(head, fd->cycle_start);
	}
	tn->disp_at = now;
	if (sample) {
		/*
		 * The device time starts now (blk-stat would stamp it too);
		 * fifo_time, ours and unused once the request left our lists,
		 * keeps how long it waited since it became the oldest of its
		 * tenant.
		 */
		rq->io_start_time_ns = now;
		rq->fifo_time = now > head ? now - head : 0;
	}
}

/*
 * The next request, in this order: past the depth only a lone tenant's
 * (fnv_lone_ready()); requeues and at-head insertions; urgent requests;
 * then the policy's choice among the tenants.
 */
static struct request *fnv_pick(struct fnv_data *fd, int *cls)
{
	struct fnv_flow *f;
	struct request *rq;

	if (!fnv_may_dispatch(fd))
		return fnv_lone_ready(fd) ? fnv_d2fq_lone(fd, cls) : NULL;
	if (!list_empty(&fd->head)) {
		*cls = -2;
		return list_first_entry(&fd->head, struct request, queuelist);
	}
	rq = fnv_urgent_next(fd);
	if (rq) {
		*cls = -3;
		return rq;
	}
	/* parked tenants or with requests: NULL if only parked ones */
	if (fd->arb.nr_flows)
		return fnv_d2fq_next(fd, cls);
	f = fnv_sched_pick(&fd->sched);
	if (!f)
		return NULL;
	return fnv_tenant_next(container_of(f, struct fnv_tenant, flow));
}

/*
 * Called from blk_mq_run_hw_queue(). The state is per device, not per
 * hardware queue (QUEUE_FLAG_SQ_SCHED), so the request returned may belong
 * to another hardware queue than @hctx, as with mq-deadline.
 */
static struct request *fnv_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;
	struct fnv_tenant *tn;
	struct request *rq;
	int cls = -1;		/* D2FQ class; -2: at head; -3: urgent */
	u64 cost = 0;

	spin_lock_irq(&fd->lock);
	rq = list_first_entry_or_null(&fd->bypass, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);
		goto unlock;
	}

	rq = fnv_pick(fd, &cls);
	if (!rq)
		goto unlock;

	tn = fnv_rq_tenant(rq);
	if (cls == -3) {	/* counted as the urgent class in io.fairnvme.stat */
		tn->d2.bytes[D2FQ_URGENT] += fnv_charge(fd, rq) << SECTOR_SHIFT;
		tn->d2.nr[D2FQ_URGENT]++;
	}
	if (fd->wrr_mode == FNV_WRR_SOFT) {
		cost = fnv_charge(fd, rq);
	} else {
		/*
		 * Charge first: a tenant left without budget need not wait.
		 * Requeues (at head) were charged when first dispatched.
		 */
		cost = fnv_rq_cost(fd, tn, rq);
		if (tn && cls != -2)
			fnv_sched_charge(&fd->sched, &tn->flow, cost);
	}
	fnv_remove_request(fd, rq);
	/* in the units of D2FQ's virtual time, for tau_l = auto */
	fd->disp_bytes += fd->wrr_mode == FNV_WRR_SOFT ?
			  cost << SECTOR_SHIFT : blk_rq_bytes(rq);
	fnv_rq_set_depth(rq, atomic_inc_return(&fd->inflight),
			 fd->wrr_mode == FNV_WRR_SOFT ? cost : 0);
	if (tn && fd->wrr_mode == FNV_WRR_SOFT)
		fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_D2FQ);
	if (tn) {
		/*
		 * Sampled by the tenant's own count: the scheduler tag would
		 * alias (a tenant at depth 1 reuses the same tag).
		 */
		u32 k = tn->nr_disp++ % FNV_SAMPLE_EVERY;
		bool cycle = cls == -1 && fd->wrr_mode == FNV_WRR_OFF;

		/*
		 * The clock is read for a sampled request, for the tenant's
		 * dispatch before one (its time starts the sampled request's
		 * head wait) and at the start of a budget cycle: half the
		 * dispatches, not all.
		 */
		if (!k || k == FNV_SAMPLE_EVERY - 1 ||
		    (cycle && fd->cycle_seen != fd->sched.cycle))
			fnv_dispatch_stamp(fd, tn, rq, cycle, !k);
		fnv_rq_set_flags(rq, (fnv_rq_flags(rq) & ~FNV_RQ_SAMPLE) |
				 FNV_RQ_INFLIGHT | (k ? 0 : FNV_RQ_SAMPLE));
		atomic_inc(&tn->inflight);
	} else {
		fnv_rq_set_flags(rq, (fnv_rq_flags(rq) & ~FNV_RQ_SAMPLE) |
				 FNV_RQ_INFLIGHT);
	}
	if (trace_fairnvme_dispatch_enabled())
		fnv_trace_dispatch(fd, tn, cost, cls);
unlock:
	spin_unlock_irq(&fd->lock);
	return rq;
}

/*
 * Scheduler tags: asynchronous requests (writeback) may take at most
 * FNV_ASYNC_PERCENT of them, as under kyber. A tenant with a thousand
 * buffered writes in flight would otherwise hold every tag, and another
 * tenant's read would wait for a tag before we ever saw it, whatever the
 * weights (the BFQ bug fixed by "bfq: Limit number of requests consumed by
 * each cgroup").
 */
#define FNV_ASYNC_PERCENT	75U
#define FNV_TAGS_MIN		8U

/*
 * And each tenant may hold its weight's share of them, as BFQ limits each
 * cgroup ("bfq: Limit number of requests consumed by each cgroup"): a
 * tenant whose writes are synchronous (a page-cache writer throttled into
 * writing its own dirty pages issues them with REQ_SYNC) otherwise took
 * every tag, and a QD1 reader of equal weight waited up to 480 ms in
 * submission for one. The limit applies once three quarters of a hardware
 * queue's worth of tags are taken (requests queued and in flight): short
 * of that there are tags for everyone, and a limit would only make a deep
 * tenant wait in submission. Over its share, a tenant may only take a tag
 * among the first eighth of each bitmap word (BFQ: the first one). The
 * tenant is the allocating task's cgroup's (the bio is not known yet); the
 * root cgroup's, which also writes back for everyone, is not limited.
 */
static bool fnv_tags_over(struct fnv_data *fd, struct request_queue *q)
{
	u32 w_sum = READ_ONCE(fd->w_sum);
	struct blkcg_gq *blkg;
	struct fnv_tenant *tn;
	bool over = false;

	/* tags to spare: the cheap test first */
	if (!w_sum || READ_ONCE(fd->nr_queued) + atomic_read(&fd->inflight) <
		      q->nr_requests * 3 / 4)
		return false;
	rcu_read_lock();
	blkg = blkg_lookup(css_to_blkcg(task_css(current, io_cgrp_id)), q);
	if (blkg && blkg != q->root_blkg) {
		tn = pd_to_tenant(blkg_to_pd(blkg, &fnv_policy));
		if (tn && READ_ONCE(tn->cfg_weight) < w_sum)
			over = atomic_read(&tn->nr_rqs) >=
			       max_t(u64, div_u64((u64)q->nr_requests *
						  READ_ONCE(tn->cfg_weight),
						  w_sum), FNV_TAGS_MIN);
	}
	rcu_read_unlock();
	return over;
}

static void fnv_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct fnv_data *fd = data->q->elevator->elevator_data;

	if (!op_is_sync(opf))
		data->shallow_depth = READ_ONCE(fd->async_depth);
	if (fnv_tags_over(fd, data->q))
		data->shallow_depth = READ_ONCE(fd->over_depth);
}

/* Called by blk_mq_update_nr_requests(), and for each new hctx. */
static void fnv_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;
	struct blk_mq_tags *tags = hctx->sched_tags;
	unsigned int shift = tags->bitmap_tags.sb.shift;

	WRITE_ONCE(fd->async_depth,
		   max((1U << shift) * FNV_ASYNC_PERCENT / 100U, 1U));
	WRITE_ONCE(fd->over_depth, max((1U << shift) >> 3, 1U));
	/* the wake batch must suit the smallest depth ever asked */
	sbitmap_queue_min_shallow_depth(&tags->bitmap_tags, fd->over_depth);
}

static int fnv_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	fnv_depth_updated(hctx);
	return 0;
}

static bool fnv_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;

	if (!list_empty_careful(&fd->bypass))
		return true;
	if (!READ_ONCE(fd->nr_queued))
		return false;
	return fnv_may_dispatch(fd) || fnv_lone_ready(fd);
}

static void fnv_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/*
 * A request's service time, what it cost the device: the time from the
 * device's previous completion (@prev), or from its own dispatch if that
 * came later, to its completion. On a device that serves one request at a
 * time that is its own time, whatever was ahead of it and in whatever
 * order the device took them: its device time over the requests at the
 * device (the mean of theirs), or its device time less a mean wait for
 * those ahead, made a request the device served out of order (QEMU's
 * throttle alternates reads and writes) look cheaper than the others and
 * a large request among small ones look like the mean. On a device that
 * serves many at once the intervals are its time over its parallelism,
 * for every request alike: only the ratios of the costs matter.
 */
static u64 fnv_svc_time(struct request *rq, u64 now, u64 prev)
{
	u64 start = max(rq->io_start_time_ns, prev);

	return now > start ? now - start : 0;
}

/*
 * Completion (hard irq or softirq): account the request's latency to its
 * tenant for the control period. Lockless; the worker consumes the sums.
 * Only sampled requests (one in FNV_SAMPLE_EVERY) are measured: the clock
 * read at dispatch and the atomics here are the controller's whole cost on
 * the hot path.
 */
static void fnv_completed_request(struct request *rq, u64 now)
{
	struct fnv_data *fd = rq->q->elevator->elevator_data;
	struct fnv_tenant *tn;
	u64 lat, dev, prev;
	int t;

	/* a plain store, on the line completions write anyway */
	prev = READ_ONCE(fd->last_done);
	if (now > prev)
		WRITE_ONCE(fd->last_done, now);
	if (!(rq->rq_flags & FNV_RQF_SCHED)) {
		/* rq->elv is not ours: a request that passed the elevator */
		WRITE_ONCE(fd->bypass_done, READ_ONCE(fd->bypass_done) + 1);
		return;
	}
	tn = fnv_rq_tenant(rq);
	/*
	 * For fnv_held(): a tenant's last synchronous request, nothing else
	 * queued or in flight. Not the root cgroup's (the journal, writeback
	 * for everyone: not a tenant that is owed the device) nor an urgent
	 * request (served first anyway). Written once per 1/16 of grace_us
	 * at most.
	 */
	if (tn && op_is_sync(rq->cmd_flags) &&
	    !(rq->cmd_flags & FNV_URGENT_FLAGS) &&
	    tn->pd.blkg != rq->q->root_blkg &&
	    atomic_read(&tn->inflight) == 1 && !READ_ONCE(tn->nr_queued) &&
	    now - READ_ONCE(fd->sync_done) >
	    (u64)READ_ONCE(fd->grace_us) * (NSEC_PER_USEC / 16)) {
		/* its virtual time once this request is charged, at finish */
		u64 vt = atomic64_read(&tn->d2.vt);

		if (fnv_rq_flags(rq) & FNV_RQ_D2FQ)
			vt += d2fq_vt_delta(fnv_rq_charged(rq),
					    READ_ONCE(tn->d2.weight));
		WRITE_ONCE(fd->sync_vt, vt);
		WRITE_ONCE(fd->sync_done, now);
	}
	if (!tn || (fnv_rq_flags(rq) & (FNV_RQ_INFLIGHT | FNV_RQ_SAMPLE)) !=
		   (FNV_RQ_INFLIGHT | FNV_RQ_SAMPLE))
		return;
	dev = rq->io_start_time_ns && now > rq->io_start_time_ns ?
	      now - rq->io_start_time_ns : 0;
	if (fnv_rq_depth(rq) == 1) {
		/*
		 * Nothing else was at the device: its own time for one
		 * request. Count and sum in one word, so that the worker
		 * never reads one without the other.
		 */
		atomic64_add(FNV_DEV1_ONE | min_t(u64, dev, FNV_DEV1_MASK),
			     &fd->acc_dev1);
	}
	switch (req_op(rq)) {
	case REQ_OP_READ:
		t = 0;
		break;
	case REQ_OP_WRITE:
		t = 1;
		break;
	default:
		return;
	}
	lat = now > rq->start_time_ns ? now - rq->start_time_ns : 0;
	atomic64_add(lat, &tn->acc_lat);
	atomic64_add(rq->fifo_time, &tn->acc_head);
	atomic64_add(dev, &tn->acc_dev);
	atomic64_add(fnv_svc_time(rq, now, prev), &tn->acc_svc[t]);
	atomic64_add(fnv_rq_sect(rq), &tn->acc_sect[t]);
	atomic_inc(&tn->acc_nr[t]);
}

/* The request is back from the driver and will be inserted again. */
static void fnv_requeue_request(struct request *rq)
{
	struct fnv_data *fd = rq->q->elevator->elevator_data;
	unsigned long flags = fnv_rq_flags(rq);

	if (flags & FNV_RQ_INFLIGHT) {
		fnv_rq_set_flags(rq, flags & ~FNV_RQ_INFLIGHT);
		fnv_inflight_dec(fd, fnv_rq_tenant(rq), rq->mq_hctx);
	}
}

/*
 * D2FQ's complete_request(): the tenant's virtual time advances by the size
 * the request had at dispatch over its weight, and gvt follows. Lockless.
 */
static void fnv_d2fq_complete(struct request *rq, struct fnv_tenant *tn)
{
	struct fnv_data *fd = rq->q->elevator->elevator_data;
	u64 vt;

	vt = atomic64_add_return(d2fq_vt_delta(fnv_rq_charged(rq),
					       READ_ONCE(tn->d2.weight)),
				 &tn->d2.vt);
	/* the holder raises gvt in steps of tau_l / 16 */
	d2fq_gvt_update(&fd->gvt, tn->d2.id, vt,
			(u64)READ_ONCE(fd->tau_l_bytes) << (D2FQ_VT_SHIFT - 4));
	/*
	 * A removed cgroup's tenant lets go at once (fnv_pd_offline() did,
	 * but this completion may have taken gvt after it): it is off the
	 * active list, no period walk would release it and gvt would
	 * freeze. The update's cmpxchg orders the read after it.
	 */
	if (unlikely(READ_ONCE(tn->offline)))
		d2fq_gvt_release(&fd->gvt, tn->d2.id);
}

/* Called when the request is freed: completed, or merged into another. */
static void fnv_finish_request(struct request *rq)
{
	struct fnv_tenant *tn = fnv_rq_tenant(rq);
	unsigned long flags = fnv_rq_flags(rq);

	/* Freed while still queued: our lists would now be corrupt. */
	WARN_ON_ONCE(flags & (FNV_RQ_FIFO | FNV_RQ_HEAD));

	if (tn && (flags & (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ)) ==
		  (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ))
		fnv_d2fq_complete(rq, tn);
	fnv_requeue_request(rq);
	if (tn) {
		rq->elv.priv[0] = NULL;
		atomic_dec(&tn->nr_rqs);
		blkg_put(tn->pd.blkg);
	}
}

static bool fnv_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct fnv_data *fd = q->elevator->elevator_data;
	struct request *free = NULL;
	bool ret;

	spin_lock_irq(&fd->lock);
	ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	spin_unlock_irq(&fd->lock);

	if (free)
		blk_mq_free_request(free);

	return ret;
}

/* Front merge candidate for @bio among its tenant's queued requests. */
static int fnv_request_merge(struct request_queue *q, struct request **rq,
			     struct bio *bio)
{
	struct fnv_tenant *tn = fnv_bio_tenant(q, bio);
	struct request *__rq;

	if (!tn)
		return ELEVATOR_NO_MERGE;

	__rq = elv_rb_find(&tn->sort[bio_data_dir(bio)], bio_end_sector(bio));
	if (__rq && elv_bio_merge_ok(__rq, bio)) {
		*rq = __rq;
		if (blk_discard_mergable(__rq))
			return ELEVATOR_DISCARD_MERGE;
		return ELEVATOR_FRONT_MERGE;
	}
	return ELEVATOR_NO_MERGE;
}

static void fnv_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct fnv_tenant *tn = fnv_rq_tenant(rq);

	/* A front merge moves the start sector: reposition. */
	if (type == ELEVATOR_FRONT_MERGE && !RB_EMPTY_NODE(&rq->rb_node)) {
		elv_rb_del(&tn->sort[rq_data_dir(rq)], rq);
		elv_rb_add(&tn->sort[rq_data_dir(rq)], rq);
	}
}

/* @next was merged into @rq and is about to be freed. */
static void fnv_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct fnv_data *fd = q->elevator->elevator_data;
	unsigned long nflags = fnv_rq_flags(next);

	lockdep_assert_held(&fd->lock);

	if (!(nflags & (FNV_RQ_FIFO | FNV_RQ_HEAD)))
		return;	/* merged at insertion, never queued */

	/* @rq inherits @next's place if @next was queued earlier. */
	if ((fnv_rq_flags(rq) & FNV_RQ_FIFO) && (nflags & FNV_RQ_FIFO) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	fnv_remove_request(fd, next);
}

/* Policy callback: tracepoint on every budget refill. */
static void fnv_flow_refilled(struct fnv_sched *s, struct fnv_flow *f)
{
	struct fnv_data *fd = container_of(s, struct fnv_data, sched);
	struct fnv_tenant *tn = container_of(f, struct fnv_tenant, flow);

	trace_fairnvme_refill(disk_devt(fd->q->disk), fnv_tenant_cgid(tn),
			      s->cycle, f->weight, f->budget);
}

/* Move the completions accounted since the last period into @smp. */
static void fnv_take_sample(struct fnv_tenant *tn, struct fnv_sample *smp)
{
	int t;

	smp->lat_sum = atomic64_xchg(&tn->acc_lat, 0);
	smp->head_sum = atomic64_xchg(&tn->acc_head, 0);
	smp->dev_sum = atomic64_xchg(&tn->acc_dev, 0);
	smp->nr = 0;
	for (t = 0; t < 2; t++) {
		smp->svc_sum[t] = atomic64_xchg(&tn->acc_svc[t], 0);
		smp->sect_sum[t] = atomic64_xchg(&tn->acc_sect[t], 0);
		smp->nr_type[t] = atomic_xchg(&tn->acc_nr[t], 0);
		smp->nr += smp->nr_type[t];
	}
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
		tn->eq5_x = fnv_eq5_x(tn->eff_weight,
				      fnv_demand_us(req, tn->ctl.ratio_w,
						    tn->ctl.cost));
		sum = fnv_eq5_add(sum, tn->eq5_x);
		wsum += tn->eff_weight;
		n++;
	}
	list_for_each_entry(tn, &fd->active, active_node) {
		u64 budget, floor, w;

		budget = fnv_eq5_budget(b_total, tn->eq5_x, sum, n);
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
 * requests dispatched while nothing else was in flight: a period's mean
 * of at least FNV_DEV1_MIN_NR of them lowers it, by half at most. It
 * rises only when even the least depth exceeds the target (the device, or
 * the mix of requests, got slower), by an eighth of the gap to the floor
 * that would make that depth's time the target. Until it is known the
 * depth is 1, so that it is measured first.
 *
 * While the depth holds requests back it stays at FNV_DEPTH_MIN or above:
 * at a depth of 1 the device idles from each completion until the next
 * dispatch (a completion runs the queue asynchronously, from kblockd); on
 * the emulated NVMe that lost up to 43 % of its IOPS.
 */
static void fnv_adapt_depth(struct fnv_data *fd, u64 dev_mean, bool limited)
{
	u32 tgt = READ_ONCE(fd->dev_target_us);
	u64 target = (u64)tgt * NSEC_PER_USEC;
	u32 lim = READ_ONCE(fd->max_inflight);
	u32 dmin = min(FNV_DEPTH_MIN, lim);
	u32 d = READ_ONCE(fd->depth);
	u64 acc = atomic64_xchg(&fd->acc_dev1, 0);
	u32 n1 = acc >> FNV_DEV1_SHIFT;
	u64 floor = READ_ONCE(fd->dev_floor);

	if (n1 >= FNV_DEV1_MIN_NR || (n1 && !floor)) {
		u64 m1 = max(div_u64(acc & FNV_DEV1_MASK, n1), 1ULL);

		/* lower at once, but by half at most per period */
		if (!floor)
			floor = m1;
		else if (m1 < floor)
			floor = max(m1, floor / 2);
	}
	if (tgt == FNV_DEV_TARGET_AUTO && floor && d <= dmin &&
	    dev_mean > floor * FNV_DEPTH_MULT)
		floor += (div_u64(dev_mean, FNV_DEPTH_MULT) - floor) >> 3;
	WRITE_ONCE(fd->dev_floor, floor);
	if (tgt == FNV_DEV_TARGET_AUTO)
		target = floor * FNV_DEPTH_MULT;

	if (!tgt)
		d = lim;
	else if (!target)
		d = 1;
	else if (dev_mean > target)
		d -= max(d / 4, 1U);
	else if (limited && dev_mean && dev_mean < target - target / 4)
		d += max(d / 8, 1U);
	if (limited && target && tgt == FNV_DEV_TARGET_AUTO)
		d = max(d, dmin);
	d = clamp(d, 1U, lim);
	if (d != READ_ONCE(fd->depth)) {
		WRITE_ONCE(fd->depth, d);
		/* a deeper queue may let held requests go now */
		blk_mq_run_hw_queues(fd->q, true);
	}
}

/*
 * thresh_min_us / thresh_max_us = auto (once per control period): relative
 * to what the device measurably does, its time for one request alone
 * (dev_floor), through a slow filter (1/32 of the gap per period, a time
 * constant of about 3 s at the default period), so that a second of host
 * noise in dev_floor does not reclassify every tenant. Until dev_floor is
 * known, the paper's values hold.
 */
static void fnv_auto_thresh(struct fnv_data *fd, bool period)
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
 * D2FQ upkeep, every control period (under fd->lock): a
 * tenant's virtual time advances at its effective weight; a tenant with
 * nothing queued or in flight for grace_us is no longer active and lets
 * go of gvt (it restarts at gvt when it comes back); every hl_period_ms
 * the H/L ratio is recomputed from the period's virtual times and class
 * usage (Eq. 2 and 3). O(tenants), off the I/O path.
 */
static void fnv_d2fq_period(struct fnv_data *fd, u64 now)
{
	struct request_queue *q = fd->q;
	u64 grace = (u64)READ_ONCE(fd->grace_us) * NSEC_PER_USEC;
	u64 period = (u64)READ_ONCE(fd->hl_period_ms) * NSEC_PER_MSEC;
	bool hl = now - fd->hl_last >= period;
	struct d2fq_period p;
	struct fnv_tenant *tn;

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
	if (hl) {
		u64 tau_w = (u64)fd->tau_l_bytes << (D2FQ_VT_SHIFT + 1);
		u32 old = fd->arb.hl;
		u32 new = d2fq_period_end(&p, old, tau_w);

		fd->hl_last = now;
		if (fd->wrr_mode == FNV_WRR_SOFT && new != old) {
			d2fq_arb_set_hl(&fd->arb, new);
			trace_fairnvme_hl(disk_devt(q->disk), old, new,
					  p.gap_max, p.d_max, p.d_min,
					  p.sd_max, p.nr > 1 &&
					  p.gap_max > (s64)tau_w);
		}
	}
}

/*
 * The FairNVMe control period: for every tenant of the device, turn the
 * period's completions into a state, an effective weight and learned costs
 * (state.c), then hand the policy the weights: the effective weights, or
 * the compensated budgets while a tenant asked for compensation in the last
 * FNV_COMP_HOLD periods. Runs in process context every ctl_period_ms while
 * the device has active tenants, and walks only those (fd->active), under
 * fd->lock: not every cgroup that ever did I/O on the device, and no timer
 * on an idle device.
 */
static void fnv_ctl_workfn(struct work_struct *work)
{
	struct fnv_data *fd = container_of(to_delayed_work(work),
					   struct fnv_data, ctl_work);
	struct request_queue *q = fd->q;
	struct fnv_ctl_params p;
	struct fnv_tenant *tn, *next;
	u64 dev_sum = 0, nr = 0, wsum = 0, esum = 0, bypass;
	bool comp = false, limited;
	u32 wn = 0, mode;
	u64 b_total;

	fnv_read_params(fd, &p);
	mode = READ_ONCE(fd->wrr_mode);
	spin_lock_irq(&fd->lock);
	list_for_each_entry(tn, &fd->active, active_node) {
		struct fnv_sample smp;
		enum fnv_state old;
		u32 w;

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
		/* backlogged: see fnv_ctl_period() */
		smp.queued = tn->queued_behind || tn->nr_queued > 1;
		tn->queued_behind = false;
		smp.busy = READ_ONCE(tn->nr_queued) ||
			   atomic_read(&tn->inflight);
		dev_sum += smp.dev_sum;
		nr += smp.nr;
		fnv_cm_add(&fd->cm, FNV_CM_READ, smp.nr_type[0],
			   smp.sect_sum[0], smp.svc_sum[0]);
		fnv_cm_add(&fd->cm, FNV_CM_WRITE, smp.nr_type[1],
			   smp.sect_sum[1], smp.svc_sum[1]);
		w = READ_ONCE(tn->cfg_weight);
		/*
		 * The busy tenants, also one without a sample this period:
		 * a light tenant's sampled completions come a few per
		 * period, and the mean must not jump when none came.
		 */
		if (smp.nr || smp.busy) {
			wsum += w;
			wn++;
		}
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
		if (fnv_ctl_period(&tn->ctl, &smp, &p))
			comp = true;
		tn->eff_weight = fnv_ctl_weight(&tn->ctl,
						READ_ONCE(tn->cfg_weight));
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
	fnv_cm_update(&fd->cm);
	limited = xchg(&fd->limited, 0);
	fnv_adapt_depth(fd, nr ? div64_u64(dev_sum, nr) : 0, limited);
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
				   (u64)READ_ONCE(fd->ctl_period_ms) *
				   NSEC_PER_MSEC);
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

	/*
	 * A tenant with nothing queued or in flight, out of gvt, for
	 * FNV_IDLE_LEAVE periods leaves the walk (its controller state
	 * stays as it was). The reference it held cannot be the blkg's last:
	 * a removed cgroup's tenant left in fnv_pd_offline().
	 */
	list_for_each_entry_safe(tn, next, &fd->active, active_node) {
		if (tn->nr_queued || atomic_read(&tn->inflight) ||
		    tn->d2.active || ++tn->idle_periods < FNV_IDLE_LEAVE)
			continue;
		fnv_tenant_leave(tn);
	}
	if (list_empty(&fd->active) && !fd->nr_queued)
		fd->ctl_armed = false;
	else
		schedule_delayed_work(&fd->ctl_work,
				      msecs_to_jiffies(READ_ONCE(fd->ctl_period_ms)));
	spin_unlock_irq(&fd->lock);
}

static int fnv_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct fnv_data *fd;
	int ret = -ENOMEM;

	eq = elevator_alloc(q, e);
	if (!eq)
		return ret;

	fd = kzalloc_node(sizeof(*fd), GFP_KERNEL, q->node);
	if (!fd)
		goto put_eq;
	eq->elevator_data = fd;

	spin_lock_init(&fd->lock);
	fd->q = q;
	INIT_LIST_HEAD(&fd->head);
	INIT_LIST_HEAD(&fd->urgent);
	INIT_LIST_HEAD(&fd->bypass);
	atomic_set(&fd->inflight, 0);
	fd->max_inflight = FNV_MAX_INFLIGHT_DEF;
	fd->depth = 1;			/* auto: measure dev_floor first */
	fd->dev_target_us = FNV_DEV_TARGET_AUTO;
	fd->req_cost_bytes = FNV_REQ_COST_DEF;
	fd->budget_kib = FNV_BUDGET_KIB_DEF;
	fd->grace_us = FNV_GRACE_US_DEF;
	fd->budget_us = FNV_BUDGET_US_DEF;
	fd->cost_model = FNV_COST_TIME;
	fd->ctl_period_ms = FNV_PERIOD_MS_DEF;
	fd->ctl = fnv_ctl_defaults;
	fd->wrr_mode = FNV_WRR_SOFT;
	fd->tau_l_bytes = FNV_TAU_L_DEF;
	fd->tau_l_cfg = FNV_TAU_AUTO;
	fd->rate_at = ktime_get_ns();
	fd->hl_period_ms = FNV_HL_PERIOD_MS_DEF;
	fd->wrr_burst = 1;
	/* the paper starts at the largest ratio */
	d2fq_arb_init(&fd->arb, D2FQ_HL_MAX, fd->wrr_burst);
	fd->arb.hold = fnv_d2fq_hold;
	atomic64_set(&fd->gvt, d2fq_gvt_pack(D2FQ_ID_NONE, 0));
	fd->hl_last = ktime_get_ns();
	fnv_sched_init(&fd->sched, fnv_cycle_budget(fd));
	fd->sched.busy = fnv_flow_busy;
	fd->sched.pin = fnv_flow_pin;
	fd->sched.refilled = fnv_flow_refilled;
	INIT_DELAYED_WORK(&fd->ctl_work, fnv_ctl_workfn);
	INIT_LIST_HEAD(&fd->active);
	fnv_cm_init(&fd->cm);

	/*
	 * The elevator first, then the policy (BFQ's order): activation
	 * creates tenants, and fnv_pd_offline() finds our data through
	 * q->elevator; without it an early offline left a tenant on our lists
	 * unmarked.
	 */
	spin_lock_irq(&q->queue_lock);
	q->elevator = eq;
	spin_unlock_irq(&q->queue_lock);

	ret = fnv_activate_policy(q, &fnv_policy);
	if (ret) {
		spin_lock_irq(&q->queue_lock);
		q->elevator = NULL;
		spin_unlock_irq(&q->queue_lock);
		goto free_fd;
	}

	/* We dispatch from request queue wide instead of hw queue */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	/*
	 * Writeback throttling would hold a tenant's writeback back
	 * before it reaches us, whatever its weight (BFQ turns it off too).
	 */
	fnv_wbt_disable(q);
	return 0;

free_fd:
	kfree(fd);
put_eq:
	kobject_put(&eq->kobj);
	return ret;
}

static void fnv_exit_sched(struct elevator_queue *e)
{
	struct fnv_data *fd = e->elevator_data;

	struct fnv_tenant *tn, *next;

	cancel_delayed_work_sync(&fd->ctl_work);
	spin_lock_irq(&fd->lock);
	fnv_d2fq_clear(fd, NULL);	/* parked tenants only, or a bug */
	WARN_ON_ONCE(fd->nr_queued || fd->sched.nr_backlogged);
	fnv_sched_drain(&fd->sched);
	list_for_each_entry_safe(tn, next, &fd->active, active_node)
		fnv_tenant_leave(tn);
	spin_unlock_irq(&fd->lock);
	fnv_deactivate_policy(fd->q, &fnv_policy);
	/*
	 * The tenants it freed drop their module references from RCU
	 * callbacks (fnv_tenant_free()): wait for them, or an rmmod right
	 * after the switch would find the module still in use. The
	 * elevator's own reference keeps the module here meanwhile.
	 */
	rcu_barrier();
	fnv_wbt_enable(fd->q);
	kfree(fd);
}

/* iosched sysfs attributes */

static int fnv_parse_u32(const char *page, u32 min, u32 max, u32 *val)
{
	u32 v;

	if (kstrtou32(page, 10, &v) || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* A tunable that is "auto" (@auto_v) or a number in [@min, @max]. */
static ssize_t fnv_show_auto(char *page, u32 v, u32 auto_v)
{
	if (v == auto_v)
		return sysfs_emit(page, "auto\n");
	return sysfs_emit(page, "%u\n", v);
}

static int fnv_parse_auto(const char *page, u32 min, u32 max, u32 auto_v,
			  u32 *val)
{
	if (sysfs_streq(page, "auto")) {
		*val = auto_v;
		return 0;
	}
	return fnv_parse_u32(page, min, max, val);
}

/*
 * Plain u32 tunables. A store runs under the elevator's sysfs_lock, which
 * serialises it against the other stores; @apply (may be NULL) makes a
 * change take effect where a plain WRITE_ONCE() is not enough.
 */
#define FNV_U32_ATTR(name, field, min, max, apply)			\
static ssize_t fnv_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct fnv_data *fd = e->elevator_data;				\
									\
	return sysfs_emit(page, "%u\n", READ_ONCE(fd->field));		\
}									\
static ssize_t fnv_##name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	struct fnv_data *fd = e->elevator_data;				\
	void (*fn)(struct fnv_data *fd) = apply;			\
	u32 v;								\
									\
	if (fnv_parse_u32(page, min, max, &v))				\
		return -EINVAL;						\
	WRITE_ONCE(fd->field, v);					\
	if (fn)								\
		fn(fd);							\
	return count;							\
}

/* A new max_inflight bounds the depth at once; a raise may let requests go. */
static void fnv_apply_depth(struct fnv_data *fd)
{
	u32 max = READ_ONCE(fd->max_inflight);

	if (READ_ONCE(fd->depth) > max || !READ_ONCE(fd->dev_target_us))
		WRITE_ONCE(fd->depth, max);
	blk_mq_run_hw_queues(fd->q, true);
}

static void fnv_apply_budget(struct fnv_data *fd)
{
	spin_lock_irq(&fd->lock);
	fd->sched.cycle_budget = fnv_cycle_budget(fd);
	spin_unlock_irq(&fd->lock);
}

FNV_U32_ATTR(max_inflight, max_inflight, 1, FNV_MAX_INFLIGHT_MAX,
	     fnv_apply_depth)

static ssize_t fnv_dev_target_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->dev_target_us),
			     FNV_DEV_TARGET_AUTO);
}

/* "auto", or device time in us (0: fixed depth) */
static ssize_t fnv_dev_target_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_auto(page, 0, FNV_DEV_TARGET_US_MAX, FNV_DEV_TARGET_AUTO,
			   &v))
		return -EINVAL;
	/* (back) to auto: measure the device again, from depth 1 */
	if (v == FNV_DEV_TARGET_AUTO && READ_ONCE(fd->dev_target_us) != v)
		WRITE_ONCE(fd->dev_floor, 0);
	WRITE_ONCE(fd->dev_target_us, v);
	fnv_apply_depth(fd);
	return count;
}

FNV_U32_ATTR(req_cost_bytes, req_cost_bytes, 0, FNV_REQ_COST_MAX, NULL)
FNV_U32_ATTR(budget_kib, budget_kib, FNV_BUDGET_KIB_MIN, FNV_BUDGET_KIB_MAX,
	     fnv_apply_budget)
FNV_U32_ATTR(budget_us, budget_us, FNV_BUDGET_US_MIN, FNV_BUDGET_US_MAX,
	     fnv_apply_budget)
FNV_U32_ATTR(grace_us, grace_us, 0, FNV_GRACE_US_MAX, NULL)
FNV_U32_ATTR(ctl_period_ms, ctl_period_ms, FNV_PERIOD_MS_MIN,
	     FNV_PERIOD_MS_MAX, NULL)
FNV_U32_ATTR(ku_ppm, ctl.ku_ppm, 0, FNV_PPM_MAX, NULL)
FNV_U32_ATTR(kd_ppm, ctl.kd_ppm, 0, FNV_PPM_MAX, NULL)
FNV_U32_ATTR(beta_permille, ctl.beta, 0, FNV_BETA_MAX, NULL)

static ssize_t fnv_tau_l_bytes_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->tau_l_cfg), FNV_TAU_AUTO);
}

/* "auto", or bytes per unit of weight */
static ssize_t fnv_tau_l_bytes_store(struct elevator_queue *e,
				     const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_auto(page, FNV_TAU_L_MIN, FNV_TAU_L_MAX, FNV_TAU_AUTO, &v))
		return -EINVAL;
	spin_lock_irq(&fd->lock);
	fd->tau_l_cfg = v;
	if (v != FNV_TAU_AUTO)
		WRITE_ONCE(fd->tau_l_bytes, v);
	spin_unlock_irq(&fd->lock);
	return count;
}

/* the tau_l in force: the tunable's, or auto's last */
static ssize_t fnv_tau_l_eff_bytes_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->tau_l_bytes));
}

/*
 * The learned cost model (cost.c): per type, the device time of a command
 * and of each KiB, in ns, and whether it is known yet (else it is charged
 * as the other type, or by bytes).
 */
static ssize_t fnv_cost_learned_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;
	const struct fnv_cm *m = &fd->cm;
	ssize_t n = 0;
	int t;

	spin_lock_irq(&fd->lock);
	for (t = 0; t < FNV_CM_TYPES; t++)
		n += sysfs_emit_at(page, n, "%s%s_cmd_ns=%llu %s_kib_ns=%llu %s_known=%d",
				   t ? " " : "", t ? "write" : "read",
				   m->cmd_ns[t], t ? "write" : "read",
				   (m->sect_ns16[t] * 2) >> 16,
				   t ? "write" : "read", m->known[t]);
	spin_unlock_irq(&fd->lock);
	n += sysfs_emit_at(page, n, "\n");
	return n;
}

FNV_U32_ATTR(hl_period_ms, hl_period_ms, FNV_HL_PERIOD_MS_MIN,
	     FNV_HL_PERIOD_MS_MAX, NULL)

static void fnv_apply_burst(struct fnv_data *fd)
{
	spin_lock_irq(&fd->lock);
	fd->arb.burst = fd->wrr_burst;
	spin_unlock_irq(&fd->lock);
}

FNV_U32_ATTR(wrr_burst, wrr_burst, 1, FNV_WRR_BURST_MAX, fnv_apply_burst)

/* Thresholds, in us; thresh_min_us must stay below thresh_max_us. */
static ssize_t fnv_thresh_show(u64 ns, char *page)
{
	return sysfs_emit(page, "%llu\n", div_u64(ns, NSEC_PER_USEC));
}

static ssize_t fnv_thresh_min_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->thresh_min_cfg),
			     FNV_THRESH_AUTO);
}

static ssize_t fnv_thresh_max_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->thresh_max_cfg),
			     FNV_THRESH_AUTO);
}

static ssize_t fnv_thresh_min_eff_us_show(struct elevator_queue *e,
					  char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_thresh_show(READ_ONCE(fd->ctl.thresh_min), page);
}

static ssize_t fnv_thresh_max_eff_us_show(struct elevator_queue *e,
					  char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_thresh_show(READ_ONCE(fd->ctl.thresh_max), page);
}

/*
 * A number must stay below (min) or above (max) the other threshold as it
 * is in force; auto always goes. The values in force follow at once.
 */
static ssize_t fnv_thresh_store(struct elevator_queue *e, const char *page,
				size_t count, bool is_max)
{
	struct fnv_data *fd = e->elevator_data;
	u64 ns;
	u32 v;

	if (fnv_parse_auto(page, 1, FNV_THRESH_US_MAX, FNV_THRESH_AUTO, &v))
		return -EINVAL;
	ns = (u64)v * NSEC_PER_USEC;
	spin_lock_irq(&fd->lock);
	if (v != FNV_THRESH_AUTO &&
	    (is_max ? ns <= fd->ctl.thresh_min : ns >= fd->ctl.thresh_max)) {
		spin_unlock_irq(&fd->lock);
		return -EINVAL;
	}
	if (is_max)
		WRITE_ONCE(fd->thresh_max_cfg, v);
	else
		WRITE_ONCE(fd->thresh_min_cfg, v);
	fnv_auto_thresh(fd, false);
	spin_unlock_irq(&fd->lock);
	return count;
}

static ssize_t fnv_thresh_min_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	return fnv_thresh_store(e, page, count, false);
}

static ssize_t fnv_thresh_max_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	return fnv_thresh_store(e, page, count, true);
}

/* The @n choices in @names, the current one (@cur) in brackets. */
static ssize_t fnv_show_choice(char *page, const char * const *names, int n,
			       u32 cur)
{
	int i, len = 0;

	for (i = 0; i < n; i++)
		len += sysfs_emit_at(page, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", names[i]);
	return len + sysfs_emit_at(page, len, "\n");
}

static const char * const fnv_cost_models[] = {
	[FNV_COST_TIME] = "time",
	[FNV_COST_BYTES] = "bytes",
};

static ssize_t fnv_cost_model_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_cost_models,
			       ARRAY_SIZE(fnv_cost_models),
			       READ_ONCE(fd->cost_model));
}

static ssize_t fnv_cost_model_store(struct elevator_queue *e,
				    const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_cost_models, page);

	if (m < 0)
		return -EINVAL;
	WRITE_ONCE(fd->cost_model, m);
	fnv_apply_budget(fd);
	return count;
}

static const char * const fnv_lat_signals[] = {
	[FNV_LAT_HEAD] = "head",
	[FNV_LAT_QUEUE] = "queue",
};

static ssize_t fnv_state_latency_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_lat_signals,
			       ARRAY_SIZE(fnv_lat_signals),
			       READ_ONCE(fd->ctl.signal));
}

static ssize_t fnv_state_latency_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_lat_signals, page);

	if (m < 0)
		return -EINVAL;
	WRITE_ONCE(fd->ctl.signal, m);
	return count;
}

static const char * const fnv_wrr_modes[] = {
	[FNV_WRR_SOFT] = "soft",
	[FNV_WRR_OFF] = "off",
};

static ssize_t fnv_wrr_mode_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_wrr_modes, ARRAY_SIZE(fnv_wrr_modes),
			       READ_ONCE(fd->wrr_mode));
}

/*
 * Switch policies under load: the backlogged tenants move from one
 * policy's lists to the other's, under the lock, so that every queued
 * request stays reachable.
 */
static void fnv_wrr_activate(struct fnv_data *fd, struct fnv_tenant *tn)
{
	fnv_flow_activate(&fd->sched, &tn->flow);
}

static void fnv_wrr_migrate(struct fnv_data *fd)
{
	struct list_head *drr[] = { &fd->sched.active, &fd->sched.expired };
	struct fnv_tenant *tn;
	int i;

	lockdep_assert_held(&fd->lock);
	WRITE_ONCE(fd->lone, NULL);
	if (fd->wrr_mode == FNV_WRR_OFF) {
		fnv_d2fq_clear(fd, fnv_wrr_activate);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(drr); i++) {
		while (!list_empty(drr[i])) {
			tn = list_first_entry(drr[i], struct fnv_tenant,
					      flow.node);
			fnv_flow_deactivate(&fd->sched, &tn->flow);
			fnv_d2fq_enqueue(fd, tn);
		}
	}
	fnv_sched_drain(&fd->sched);
}

static ssize_t fnv_wrr_mode_store(struct elevator_queue *e,
				  const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_wrr_modes, page);

	if (m < 0)
		return -EINVAL;
	spin_lock_irq(&fd->lock);
	if (fd->wrr_mode != m) {
		WRITE_ONCE(fd->wrr_mode, m);
		fnv_wrr_migrate(fd);
	}
	spin_unlock_irq(&fd->lock);
	blk_mq_run_hw_queues(fd->q, true);
	return count;
}

static ssize_t fnv_hl_ratio_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->arb.hl));
}

static ssize_t fnv_gvt_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;
	u64 w = atomic64_read(&fd->gvt);

	/* bytes per unit of weight */
	return sysfs_emit(page, "%llu\n", d2fq_gvt_vt(w) >> D2FQ_VT_SHIFT);
}

static ssize_t fnv_inflight_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%d\n", atomic_read(&fd->inflight));
}

static ssize_t fnv_depth_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->depth));
}

/* The device time of a lone request, as learned; 0 until measured. */
static ssize_t fnv_dev_floor_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%llu\n",
			  div_u64(READ_ONCE(fd->dev_floor), NSEC_PER_USEC));
}

static ssize_t fnv_tenants_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->sched.nr_backlogged) +
			  READ_ONCE(fd->arb.nr_flows) -
			  READ_ONCE(fd->arb.nr_parked));
}

#define FNV_ATTR_RW(name) \
	__ATTR(name, 0644, fnv_##name##_show, fnv_##name##_store)
#define FNV_ATTR_RO(name) \
	__ATTR(name, 0444, fnv_##name##_show, NULL)

static struct elv_fs_entry fnv_attrs[] = {
	FNV_ATTR_RW(max_inflight),
	FNV_ATTR_RW(dev_target_us),
	FNV_ATTR_RW(cost_model),
	FNV_ATTR_RW(budget_us),
	FNV_ATTR_RW(budget_kib),
	FNV_ATTR_RW(req_cost_bytes),
	FNV_ATTR_RW(grace_us),
	FNV_ATTR_RW(ctl_period_ms),
	FNV_ATTR_RW(thresh_min_us),
	FNV_ATTR_RW(thresh_max_us),
	FNV_ATTR_RO(thresh_min_eff_us),
	FNV_ATTR_RO(thresh_max_eff_us),
	FNV_ATTR_RW(ku_ppm),
	FNV_ATTR_RW(kd_ppm),
	FNV_ATTR_RW(beta_permille),
	FNV_ATTR_RW(state_latency),
	FNV_ATTR_RW(wrr_mode),
	FNV_ATTR_RW(tau_l_bytes),
	FNV_ATTR_RW(hl_period_ms),
	FNV_ATTR_RW(wrr_burst),
	FNV_ATTR_RO(hl_ratio),
	FNV_ATTR_RO(gvt),
	FNV_ATTR_RO(inflight),
	FNV_ATTR_RO(depth),
	FNV_ATTR_RO(dev_floor_us),
	FNV_ATTR_RO(tau_l_eff_bytes),
	FNV_ATTR_RO(tenants),
	FNV_ATTR_RO(cost_learned),
	__ATTR_NULL
};

static struct elevator_type fnv_elevator = {
	.ops = {
		.depth_updated		= fnv_depth_updated,
		.limit_depth		= fnv_limit_depth,
		.init_hctx		= fnv_init_hctx,
		.insert_requests	= fnv_insert_requests,
		.dispatch_request	= fnv_dispatch_request,
		.has_work		= fnv_has_work,
		.prepare_request	= fnv_prepare_request,
		.finish_request		= fnv_finish_request,
		.completed_request	= fnv_completed_request,
		.requeue_request	= fnv_requeue_request,
		.bio_merge		= fnv_bio_merge,
		.request_merge		= fnv_request_merge,
		.request_merged		= fnv_request_merged,
		.requests_merged	= fnv_requests_merged,
		.next_request		= elv_rb_latter_request,
		.former_request		= elv_rb_former_request,
		.init_sched		= fnv_init_sched,
		.exit_sched		= fnv_exit_sched,
	},
	.elevator_attrs = fnv_attrs,
	.elevator_name = "fairnvme",
	.elevator_owner = THIS_MODULE,
};

/* blkcg policy: io.fairnvme.weight */

static struct blkcg_policy_data *fnv_cpd_alloc(gfp_t gfp)
{
	struct fnv_cgroup *cg = kzalloc(sizeof(*cg), gfp);

	if (!cg)
		return NULL;
	cg->weight = FNV_WEIGHT_DEFAULT;
	return &cg->cpd;
}

static void fnv_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct fnv_cgroup, cpd));
}

static struct blkg_policy_data *fnv_pd_alloc(FNV_PD_ALLOC_ARGS)
{
	struct fnv_tenant *tn;
	int id;

	tn = kzalloc_node(sizeof(*tn), gfp, FNV_PD_ALLOC_NODE);
	if (!tn)
		return NULL;
	/*
	 * A tenant of a removed cgroup can outlive the scheduler instance
	 * (blkcg_deactivate_policy() only frees the tenants of live blkgs;
	 * the others are freed when their last reference goes). Until then
	 * pd_free_fn is ours to run: the module must stay.
	 */
	__module_get(THIS_MODULE);
	INIT_LIST_HEAD(&tn->fifo[0]);
	INIT_LIST_HEAD(&tn->fifo[1]);
	INIT_LIST_HEAD(&tn->active_node);
	atomic_set(&tn->inflight, 0);
	tn->sort[READ] = RB_ROOT;
	tn->sort[WRITE] = RB_ROOT;
	fnv_flow_init(&tn->flow, FNV_WEIGHT_DEFAULT);
	id = ida_alloc_range(&fnv_ida, 1, D2FQ_ID_MAX, gfp);
	d2fq_flow_init(&tn->d2, id > 0 ? id : D2FQ_ID_NONE,
		       FNV_WEIGHT_DEFAULT);
	fnv_ctl_init(&tn->ctl, &fnv_ctl_defaults, FNV_COST_DEF_NS);
	tn->cfg_weight = FNV_WEIGHT_DEFAULT;
	tn->eff_weight = FNV_WEIGHT_DEFAULT;
	return &tn->pd;
}

static void fnv_pd_init(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct fnv_cgroup *cg = blkcg_to_fnvcg(pd->blkg->blkcg);

	tn->cfg_weight = cg ? cg->weight : FNV_WEIGHT_DEFAULT;
	tn->eff_weight = tn->cfg_weight;
	fnv_flow_init(&tn->flow, tn->cfg_weight);
	tn->d2.weight = tn->cfg_weight;
	/*
	 * The root cgroup's tenant sends the journal, the flusher's
	 * writeback and I/O issued on behalf of root: a few requests at a
	 * time, all the time. Holding gvt, it kept gvt behind every real
	 * tenant, they all sat in the low class and the arbiter took turns
	 * among them whatever their weights (a weight-100 O_SYNC writer
	 * beside a weight-800 reader on ext4: .19 to .24 of the device, .111
	 * due). It is still scheduled by its virtual time (its lead
	 * bounded, see fnv_d2fq_class()); it only never holds gvt.
	 */
	if (!pd->blkg->parent) {
		tn->root = true;
		if (tn->d2.id != D2FQ_ID_NONE)
			ida_free(&fnv_ida, tn->d2.id);
		tn->d2.id = D2FQ_ID_NONE;
	}
}

/*
 * The cgroup is being removed (or the policy deactivated), under the queue
 * lock: a parked tenant leaves the class lists, and none parks again. One
 * with requests stays until they are gone; they hold its blkg.
 */
static void fnv_pd_offline(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct fnv_data *fd = fnv_q_data(pd->blkg->q);

	if (!fd)
		return;
	spin_lock(&fd->lock);
	WRITE_ONCE(tn->offline, true);
	if (tn->d2.parked)
		d2fq_arb_del(&fd->arb, &tn->d2);
	tn->d2.active = false;
	if (!list_empty(&tn->active_node)) {
		/* not the last reference: blkg_destroy() holds its own */
		fnv_tenant_leave(tn);
	}
	spin_unlock(&fd->lock);
	/*
	 * Let go of gvt: the control period walks the active list, which
	 * this tenant just left, so nothing else would, and every other tenant
	 * would drift to the low class (weights 300:100 gave 0.488:0.512).
	 * Paired with the read of ->offline after d2fq_gvt_update().
	 */
	smp_mb();
	d2fq_gvt_release(&fd->gvt, tn->d2.id);
}

/*
 * The module reference a tenant holds is dropped from an RCU callback, not
 * from pd_free_fn: a work item of the block layer runs that, and after a
 * module_put() there it would still have our code to return through while
 * the module went away. fnv_exit()'s rcu_barrier() waits for this callback
 * to have returned.
 */
static void fnv_tenant_free(struct rcu_head *head)
{
	kfree(container_of(head, struct fnv_tenant, rcu));
	module_put(THIS_MODULE);
}

static void fnv_pd_free(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);

	/* Requests hold a blkg reference: none can be left here. */
	WARN_ON_ONCE(tn->nr_queued || tn->flow.backlogged ||
		     !list_empty(&tn->flow.wnode) || tn->d2.cls >= 0 ||
		     !list_empty(&tn->active_node) ||
		     atomic_read(&tn->inflight));
	if (tn->d2.id != D2FQ_ID_NONE)
		ida_free(&fnv_ida, tn->d2.id);
	call_rcu(&tn->rcu, fnv_tenant_free);
}

/*
 * A new configured weight. The scheduling weight follows at once (scaled by
 * the controller's multiplier); the control worker refines it next period.
 */
static void fnv_tenant_set_weight(struct fnv_tenant *tn, u32 cgroup_weight)
{
	u32 w = tn->dev_weight ?: cgroup_weight;

	WRITE_ONCE(tn->cfg_weight, w);
	WRITE_ONCE(tn->flow.new_weight, fnv_ctl_weight(&tn->ctl, w));
	WRITE_ONCE(tn->d2.weight, max(fnv_ctl_weight(&tn->ctl, w), 1U));
}

static u64 fnv_prfill_dev_weight(struct seq_file *sf,
				 struct blkg_policy_data *pd, int off)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);

	if (!tn->dev_weight)
		return 0;
	return __blkg_prfill_u64(sf, pd, tn->dev_weight);
}

static int fnv_weight_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);

	seq_printf(sf, "default %u\n", cg ? cg->weight : FNV_WEIGHT_DEFAULT);
	blkcg_print_blkgs(sf, blkcg, fnv_prfill_dev_weight, &fnv_policy, 0,
			  false);
	return 0;
}

static int fnv_parse_weight(const char *s, u32 *weight)
{
	return fnv_parse_u32(s, FNV_WEIGHT_MIN, FNV_WEIGHT_MAX, weight);
}

/* "W" or "default W": the cgroup's weight on every device. */
static int fnv_set_default_weight(struct blkcg *blkcg, char *body)
{
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);
	struct blkcg_gq *blkg;
	u32 weight;

	if (!strncmp(body, "default", 7) && isspace(body[7]))
		body = skip_spaces(body + 7);
	if (!cg || fnv_parse_weight(body, &weight))
		return -EINVAL;

	spin_lock_irq(&blkcg->lock);
	cg->weight = weight;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct fnv_tenant *tn;

		tn = pd_to_tenant(blkg_to_pd(blkg, &fnv_policy));
		if (tn)
			fnv_tenant_set_weight(tn, weight);
	}
	spin_unlock_irq(&blkcg->lock);
	return 0;
}

/* "MAJ:MIN W" or "MAJ:MIN default": a per-device override. */
static int fnv_set_dev_weight(struct blkcg *blkcg, char *body)
{
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);
	struct blkg_conf_ctx ctx;
	struct fnv_tenant *tn;
	u32 weight = 0;
	int ret;

	ret = fnv_conf_prep(blkcg, &fnv_policy, body, &ctx);
	if (ret) {
		fnv_conf_failed(&ctx);
		return ret;
	}

	body = strim(ctx.body);
	if (strcmp(body, "default") && fnv_parse_weight(body, &weight)) {
		ret = -EINVAL;
		goto out;
	}
	tn = pd_to_tenant(blkg_to_pd(ctx.blkg, &fnv_policy));
	if (!tn || !cg) {
		ret = -EINVAL;
		goto out;
	}
	/* blkcg->lock orders us against a "default W" write */
	spin_lock(&blkcg->lock);
	tn->dev_weight = weight;
	fnv_tenant_set_weight(tn, cg->weight);
	spin_unlock(&blkcg->lock);
out:
	fnv_conf_done(&ctx);
	return ret;
}

static ssize_t fnv_weight_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	char *body = strim(buf);
	int ret;

	if (strchr(body, ':'))
		ret = fnv_set_dev_weight(blkcg, body);
	else
		ret = fnv_set_default_weight(blkcg, body);
	return ret ?: nbytes;
}

/* One io.fairnvme.stat line: the tenant's controller state on a device. */
static u64 fnv_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd,
			   int off)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct request_queue *q = pd->blkg->q;
	struct fnv_data *fd = fnv_q_data(q);
	static const char * const cls[] = { "urgent", "high", "medium", "low" };
	u64 thmin = 0, thmax = 0, gvt = 0;
	const char *dname;
	s8 c;

	/* blkg_dev_name(), which is not exported */
	if (!q->disk || !q->disk->bdi->dev)
		return 0;
	dname = bdi_dev_name(q->disk->bdi);
	if (fd) {
		thmin = READ_ONCE(fd->ctl.thresh_min);
		thmax = READ_ONCE(fd->ctl.thresh_max);
		gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	}
	c = READ_ONCE(tn->d2.cls);
	seq_printf(sf, "%s state=%s weight=%u eff_weight=%u sched_weight=%u budget=%lld comp_budget=%llu lat_us=%llu head_us=%llu dev_us=%llu thresh_min_us=%llu thresh_cur_us=%llu thresh_max_us=%llu rcost_us=%llu wcost_us=%llu wratio=%u",
		   dname, fnv_state_name(tn->ctl.state),
		   READ_ONCE(tn->cfg_weight), tn->eff_weight,
		   READ_ONCE(tn->flow.weight), READ_ONCE(tn->flow.budget),
		   tn->eq5_budget, div_u64(tn->ctl.lat, NSEC_PER_USEC),
		   div_u64(tn->ctl.head, NSEC_PER_USEC),
		   div_u64(tn->ctl.dev, NSEC_PER_USEC),
		   div_u64(thmin, NSEC_PER_USEC),
		   div_u64(tn->ctl.thresh_cur, NSEC_PER_USEC),
		   div_u64(thmax, NSEC_PER_USEC),
		   div_u64(tn->ctl.cost[0], NSEC_PER_USEC),
		   div_u64(tn->ctl.cost[1], NSEC_PER_USEC), tn->ctl.ratio_w);
	/* D2FQ */
	seq_printf(sf, " class=%s vt_gap=%lld nr_urgent=%llu nr_high=%llu nr_medium=%llu nr_low=%llu\n",
		   c >= 0 && c < D2FQ_NR_CLASSES ? cls[c] : "none",
		   d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) >>
		   D2FQ_VT_SHIFT,
		   READ_ONCE(tn->d2.nr[D2FQ_URGENT]),
		   READ_ONCE(tn->d2.nr[D2FQ_HIGH]),
		   READ_ONCE(tn->d2.nr[D2FQ_MEDIUM]),
		   READ_ONCE(tn->d2.nr[D2FQ_LOW]));
	return 0;
}

static int fnv_stat_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), fnv_prfill_stat,
			  &fnv_policy, 0, false);
	return 0;
}

/* The same files on cgroup v2 (io.*) and v1 (blkio.*); arrays can't be shared */
static struct cftype fnv_dfl_files[] = {
	{
		.name = "fairnvme.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = fnv_weight_show,
		.write = fnv_weight_write,
	},
	{
		.name = "fairnvme.stat",
		.seq_show = fnv_stat_show,
	},
	{ }
};

static struct cftype fnv_legacy_files[] = {
	{
		.name = "fairnvme.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = fnv_weight_show,
		.write = fnv_weight_write,
	},
	{
		.name = "fairnvme.stat",
		.seq_show = fnv_stat_show,
	},
	{ }
};

static struct blkcg_policy fnv_policy = {
	.dfl_cftypes	= fnv_dfl_files,
	.legacy_cftypes	= fnv_legacy_files,
	.cpd_alloc_fn	= fnv_cpd_alloc,
	.cpd_free_fn	= fnv_cpd_free,
	.pd_alloc_fn	= fnv_pd_alloc,
	.pd_init_fn	= fnv_pd_init,
	.pd_offline_fn	= fnv_pd_offline,
	.pd_free_fn	= fnv_pd_free,
};

static int __init fnv_init(void)
{
	int ret;

	ret = blkcg_policy_register(&fnv_policy);
	if (ret)
		return ret;
	ret = elv_register(&fnv_elevator);
	if (ret)
		blkcg_policy_unregister(&fnv_policy);
	return ret;
}

static void __exit fnv_exit(void)
{
	elv_unregister(&fnv_elevator);
	blkcg_policy_unregister(&fnv_policy);
	/* the last tenant's fnv_tenant_free() has returned */
	rcu_barrier();
}

module_init(fnv_init);
module_exit(fnv_exit);

MODULE_AUTHOR("The fairnvme developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Weighted fair I/O scheduler for NVMe devices shared by cgroups");
