/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: what the module's files share (fairnvme-iosched.c, the
 * elevator; fairnvme-ctl.c, the control period; fairnvme-sysfs.c, the
 * tunables; fairnvme-cgroup.c, the blkcg policy): the per-device and
 * per-tenant data, the tunables' defaults, the request's private word.
 * Private to the module, as block/bfq-iosched.h is to BFQ.
 */
#ifndef _FAIRNVME_H
#define _FAIRNVME_H

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/backing-dev.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-cgroup.h>
#include <linux/blktrace_api.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/llist.h>
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
#include "blk-mq-debugfs.h"

#include <fairnvme/budget.h>
#include <fairnvme/state.h>
#include <fairnvme/d2fq.h>
#include <fairnvme/cost.h>
#include <fairnvme/depth.h>
#include <fairnvme/tabs.h>
#include <fairnvme/compat.h>
#include <fairnvme/tunables.h>

/* The depth, the controller and D2FQ (the tunables: <fairnvme/tunables.h>) */
/*
 * dev_target_us: "auto" (FNV_DEPTH_MULT times the device time of a request
 * sent alone, <fairnvme/depth.h>), or a number of us
 */

/*
 * The least depth while requests wait: with one request at the device, the
 * device idles from each completion until the next dispatch.
 */
#define FNV_DEPTH_MIN		2U
/* fnv_data.acc_dev1: the count above bit 44, summed ns below */
#define FNV_DEV1_SHIFT		44
#define FNV_DEV1_ONE		BIT_ULL(FNV_DEV1_SHIFT)
#define FNV_DEV1_MASK		(FNV_DEV1_ONE - 1)
#define FNV_THRESH_MIN_US_DEF	600
#define FNV_THRESH_MAX_US_DEF	3500
/*
 * thresh_*_us = auto: multiples of the device's time for one request alone
 * (dev_floor, smoothed: fnv_auto_thresh()), in 1/4: idle below 5/4 of it,
 * saturated from 8 times it. On the emulated NVMe (about 450 us alone)
 * that is the paper's 600 and 3500 us.
 */
#define FNV_THRESH_MIN_Q	5
#define FNV_THRESH_MAX_Q	32
#define FNV_THRESH_AUTO_MIN_NS	(20 * NSEC_PER_USEC)
/* D2FQ: tau_l per unit of weight, 8 MiB at the default weight 100 */
#define FNV_TAU_L_DEF		(8388608 / FNV_WEIGHT_DEFAULT)
/*
 * tau_l_bytes = auto: the lead, in virtual time, that a tenant served at
 * its fair rate covers in FNV_TAU_L_MS: the device's measured bytes per
 * second times FNV_TAU_L_MS, over the summed weight of the busy tenants.
 */
#define FNV_TAU_L_MS		50
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

extern const struct fnv_ctl_params fnv_ctl_defaults;

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
#define FNV_RQ_TABS		BIT(6)	/* counted by TABS (tabs_inserted()) */
#define FNV_RQ_HELD		BIT(7)	/* on fnv_data.tabs_held */
/* One request in FNV_SAMPLE_EVERY of each tenant is measured. */
#define FNV_SAMPLE_EVERY	4
/*
 * A tenant's requests outstanding (alone_q16) are over its latencies and
 * busy time, each older period's weighing 1/256 less a sample in a newer
 * one, 32 samples a period at most (fairnvme-ctl.c).
 */
#define FNV_ALONE_NR		32
#define FNV_ALONE_SHIFT		8
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
	u64 svc;			/* their cost, under fnv_data.lock */
	u32 cm_tilt;			/* cost.c's probe: charge, 1/1024 */
	s64 cm_tilt_paid;		/* ... over the untilted, fnv_data.lock */
	/* below a sector of its charges, to its next (fnv_cm_carry()) */
	u32 cm_carry;
	u8 cm_class;			/* ... its size probe's class, or 0 */
	u8 cm_tclass;			/* ... its type probe's, or 0 */
	/*
	 * Were it alone: its requests outstanding (1/2^16, by Little's law
	 * from the two sums after it) and its mean latency (ns, cost.c); and
	 * how long the requests inserted this period waited before their
	 * allocation (ns, under fnv_data.lock: fnv_rq_tag_wait())
	 */
	u64 alone_q16;
	u64 alone_lat;			/* its sums: latencies, ns */
	u64 alone_dt;			/* ... time busy, ns */
	u64 alone_ns;
	u64 tag_wait;
	/*
	 * The cgroup is removed: set by fnv_pd_offline() without
	 * fnv_data.lock, read under it (a tenant seen online there a last
	 * time is taken off the lists by fnv_offline_work() after).
	 */
	bool offline;
	/* on fnv_data.offlined, holding a blkg reference */
	struct llist_node off_node;
	bool root;			/* the root cgroup's: never holds gvt */
	/* a request was queued behind another in this control period */
	bool queued_behind;
	u32 nr_queued;			/* on its fifos; fd->lock, READ_ONCE without */
	u32 dev_weight;			/* io.fairnvme.weight MAJ:MIN, 0: unset */
	u32 cfg_weight;			/* dev_weight, else the cgroup's */

	/*
	 * Sampled reads and writes dispatched in the current control period:
	 * the sum of their waits at the head, dispatch - reaching head, and
	 * how many (under fnv_data.lock)
	 */
	u64 head_acc;
	u32 head_nr;
	/* completions of the current control period (lockless) */
	atomic64_t acc_lat;		/* sum of completion - insertion */
	atomic64_t acc_dev;		/* sum of completion - dispatch */
	atomic64_t acc_svc[2];		/* sum of service time, read/write */
	atomic64_t acc_sect[2];		/* sum of their sectors */
	atomic_t acc_nr[2];		/* completions, read/write */
	atomic_t acc_fua;		/* ... writes of them with FUA */

	/*
	 * On fnv_data.active, holding a blkg reference, from its first
	 * request until the control worker finds it idle (FNV_IDLE_LEAVE
	 * periods): the worker walks only these.
	 */
	struct list_head active_node;
	u32 idle_periods;
	/* the period's service, for fnv_depth_fair(), under fnv_data.lock */
	u64 svc_seen, svc_win;
	u32 svc_gen;

	/* the control worker's, under fnv_data.lock; read racily elsewhere */
	struct fnv_ctl ctl;
	u32 eff_weight;			/* cfg_weight as the controller moved it */
	u64 eq5_x;			/* W_i * D_i of Eq. 5 */
	u64 eq5_budget;			/* Budget_i of Eq. 5, 0 if not compensating */
	u32 nr_held;			/* FUA writes TABS holds, fnv_data.lock */
	/* TABS: reads and FUA writes it counted and not finished */
	atomic_t tabs_out[TABS_NR_FAIR];
	struct rcu_head rcu;		/* fnv_pd_free() to fnv_tenant_free() */
};

/* Per device data. */
/* fnv_data.last_done: the completion left requests at the device */
#define FNV_DONE_BUSY		1ULL

struct fnv_data {
	/*
	 * Everything but the lockless fields at the end. The lock rule is
	 * at the top of fairnvme-iosched.c: never taken inside
	 * q->queue_lock or a blkcg's lock, and nothing that may take either
	 * runs while it is held.
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
	u32 hold_depth;			/* ... by device time alone, <= depth */
	u32 slot_depth;			/* fnv_held()'s: or one trials kept */
	/*
	 * The one tenant that was busy in the last control period, or NULL:
	 * then the depth is max_inflight (fnv_depth()). Only compared, never
	 * followed: no reference; cleared when its tenant goes offline
	 * (fnv_offline_drain()), so never a freed tenant's address.
	 */
	void *solo;
	bool solo_seen;			/* ... in force at all this period */
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
	struct fnv_dfloor dfloor;	/* ... how it is learned */
	struct fnv_dprobe dprobe;	/* the auto depth's rate trials */
	bool dtrial_was;		/* ... one ran in the last period */
	u32 svc_gen;			/* ... their window (fnv_depth_fair) */

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
	/*
	 * The period's window for it: what completed, per type (commands
	 * << FNV_CM_DONE_SHIFT | sectors, added by the completions, taken
	 * by the worker), and under the lock how long the device was idle
	 */
	atomic64_t cm_done[FNV_CM_TYPES];
	u64 win_at;			/* ns: the window's start */
	u64 win_idle;			/* ns: ... idle since */
	u64 win_mark;			/* ns: idle counted up to */
	u64 win_dsum;			/* ... the depths its dispatches made */
	u32 win_dnr;			/* ... over this many */
	u64 win_work;			/* ... the last one's, fnv_cm_work() */
	struct fnv_cm_win win_last;	/* ... itself (debugfs) */
	u32 win_c_cmd[FNV_CM_TYPES];	/* ... priced by these */
	u32 win_c_sect[FNV_CM_TYPES];
	/*
	 * The size probe (cost.c): the class dispatched (0: none), its step
	 * (1, 2: the classes' periods, 3: the one after) and the depths it
	 * put back; the classes by size or by type (FNV_CM_PROBE_BY_*), and
	 * how many ran by type (debugfs)
	 */
	u8 cm_probe;
	u8 cm_pkind;
	u32 cm_tprobes;
	u8 cm_step;
	u32 cm_depth[3];
	u32 hl_period_ms;
	u32 wrr_burst;

	/* TABS (tabs.c): FUA writes held while reads wait for the device */
	struct tabs tabs;
	struct tabs_params tabs_p;	/* from the tunables below */
	struct list_head tabs_held;	/* the FUA delay queue, FIFO */
	u32 nr_held;			/* requests on it (in nr_queued too) */
	u32 tabs_on;
	u32 tabs_reset_ms;
	u32 tabs_threshold;
	u32 tabs_epoch_ms;
	u32 tabs_sched_ms;
	u32 tabs_max_wait_ms;
	u32 tabs_read_bwmax;		/* KiB/s, 0: auto */
	u32 tabs_fua_bwmax;

	struct delayed_work ctl_work;	/* the FairNVMe control period */
	/*
	 * Tenants whose cgroup was removed (fnv_pd_offline(), under
	 * q->queue_lock), for fnv_offline_work() to take off our lists
	 * under fd->lock. live: tenants may be on our lists, from the
	 * policy's activation to fnv_exit_sched(), which set it under
	 * q->queue_lock; fnv_pd_offline() adds to offlined only then.
	 */
	struct llist_head offlined;
	struct work_struct off_work;
	bool live;
	u64 ctl_at;			/* ns: when the last period began */
	u64 ctl_spent;			/* ns: what its work took (the less */
	u64 ctl_last;			/* ... of the last two walks) */
	struct list_head active;	/* tenants the worker walks */
	bool ctl_armed;			/* ctl_work queued or running */
	/* mean configured weight of the busy tenants */
	u32 w_mean;
	u32 w_sum;			/* ... and their sum */
	u32 comp_left;			/* periods of compensation left */
	/* shallow depths: of each tag word, or the map (fnv_shallow_whole) */
	u32 async_depth;		/* scheduler tags async I/O may take */
	u32 over_depth;			/* ... a tenant over its share */

	/*
	 * Lockless, written on completion: on their own cache line, away
	 * from what dispatch and insertion write under the lock.
	 */
	atomic64_t gvt ____cacheline_aligned_in_smp; /* D2FQ holder word */
	atomic_t inflight;		/* dispatched, not yet completed */
	int kick;			/* dispatch stopped at this in flight */
	int limited;			/* ... at least once this period */
	atomic64_t acc_dev1;		/* lone requests: count << 44 | ns */
	/* ns: the last completion, FNV_DONE_BUSY if it left requests */
	u64 last_done;
	u64 sync_done;			/* ns: a sync request's completion */
	u64 sync_vt;			/* ... its tenant's virtual time */
	u64 sync_cgid;			/* ... its cgroup: never held for itself */
	/* TABS: completed (and requeued), count << 40 | bytes, per type */
	atomic64_t tabs_done[TABS_NR_TYPES];
};

/*
 * The control period stretches so that its work takes at most 1 /
 * FNV_CTL_DUTY of a CPU (fnv_ctl_delay()).
 */
#define FNV_CTL_DUTY		32
/* Control periods a tenant stays on the active list once it is idle. */
#define FNV_IDLE_LEAVE		10

extern struct blkcg_policy fnv_policy;
extern struct elevator_type fnv_elevator;
extern struct ida fnv_ida;
/* a shallow tag depth limits the whole bitmap, not each word */
extern bool fnv_shallow_whole;
extern struct elv_fs_entry fnv_attrs[];

/* fairnvme-iosched.c */
void fnv_tenant_leave(struct fnv_tenant *tn);
void fnv_d2fq_enqueue(struct fnv_data *fd, struct fnv_tenant *tn);
void fnv_d2fq_reclass(struct fnv_data *fd, struct fnv_tenant *tn);
void fnv_d2fq_clear(struct fnv_data *fd,
		    void (*moved)(struct fnv_data *fd, struct fnv_tenant *tn));

/* fairnvme-ctl.c */
void fnv_d2fq_anchor(struct fnv_data *fd);
void fnv_flow_refilled(struct fnv_sched *s, struct fnv_flow *f);
void fnv_ctl_workfn(struct work_struct *work);
unsigned long fnv_ctl_delay(struct fnv_data *fd);
void fnv_auto_thresh(struct fnv_data *fd, bool period);

void fnv_tabs_release(struct fnv_data *fd, bool all);
void fnv_tabs_fold(struct fnv_data *fd);
void fnv_tabs_params(struct fnv_data *fd);

/* fairnvme-cgroup.c */
void fnv_offline_work(struct work_struct *work);
void fnv_offline_drain(struct fnv_data *fd);

/* fairnvme-sysfs.c */
int fnv_parse_u32(const char *page, u32 min, u32 max, u32 *val);
void fnv_tunables_init(struct fnv_data *fd);

/* fairnvme-debugfs.c */
extern const struct blk_mq_debugfs_attr fnv_debugfs_attrs[];

static inline struct fnv_tenant *pd_to_tenant(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct fnv_tenant, pd) : NULL;
}

static inline struct fnv_cgroup *blkcg_to_fnvcg(struct blkcg *blkcg)
{
	struct blkcg_policy_data *cpd = blkcg_to_cpd(blkcg, &fnv_policy);

	return cpd ? container_of(cpd, struct fnv_cgroup, cpd) : NULL;
}

/*
 * The FUA writers' period of a type probe (fairnvme-ctl.c): TABS holds no
 * FUA write in it. The readers' reads wait queued, which TABS counts as
 * outstanding, so it would let a held write go only for a read
 * dispatched, which the probe holds: the period would run at a depth of
 * a few writes, reads among them.
 */
static inline bool fnv_probe_fua(const struct fnv_data *fd)
{
	return fd->cm_probe == FNV_CM_PROBE_FUA &&
	       fd->cm_pkind == FNV_CM_PROBE_BY_TYPE;
}

static inline unsigned long fnv_rq_flags(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] & FNV_RQ_FLAGS;
}

static inline void fnv_rq_set_flags(struct request *rq, unsigned long flags)
{
	unsigned long v = (unsigned long)rq->elv.priv[1] & ~FNV_RQ_FLAGS;

	rq->elv.priv[1] = (void *)(v | flags);
}

static inline unsigned long fnv_rq_depth(struct request *rq)
{
	return ((unsigned long)rq->elv.priv[1] >> FNV_RQ_DEPTH_SHIFT) &
	       FNV_RQ_DEPTH_MASK;
}

static inline u64 fnv_rq_sect(struct request *rq)
{
	return ((unsigned long)rq->elv.priv[1] >> FNV_RQ_SECT_SHIFT) &
	       FNV_RQ_SECT_MASK;
}

/* What it was charged, in bytes of 4 KiB reads */
static inline u64 fnv_rq_charged(struct request *rq)
{
	return (u64)((unsigned long)rq->elv.priv[1] >> FNV_RQ_COST_SHIFT) <<
	       SECTOR_SHIFT;
}

/* At dispatch: the depth it went out at, its size and its charge. */
static inline void fnv_rq_set_depth(struct request *rq,
				    unsigned long depth, u64 charge)
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

static inline struct fnv_tenant *fnv_rq_tenant(struct request *rq)
{
	return rq->elv.priv[0];
}

/* The most one request's wait before its allocation counts for. */
#define FNV_TAG_WAIT_MAX	NSEC_PER_SEC

/*
 * How long a read or write @rq's first bio waited between its submission
 * and the request's allocation: mostly for a scheduler tag (our
 * limit_depth, or all taken), also in an rq_qos throttle or a queue
 * freeze (not io.max's: blk-throttle stamps a bio again when it lets it
 * go). The tenant had that much more outstanding than it had requests;
 * alone, it would have sent them. Both stamps are the block layer's
 * (bio_issue_init(), blk_mq_rq_ctx_init()), on the same clock: no clock
 * read. 0 where the first bio has no stamp of its own (a split's front
 * part, a front merge of a later bio) or for another command.
 */
static inline u64 fnv_rq_tag_wait(struct request *rq)
{
	u64 issue, start;

	if (!rq->bio || (req_op(rq) != REQ_OP_READ &&
			 req_op(rq) != REQ_OP_WRITE))
		return 0;
	issue = bio_issue_time(&rq->bio->bi_issue);
	start = __bio_issue_time(rq->start_time_ns);
	if (!issue || start <= issue)
		return 0;
	return min_t(u64, start - issue, FNV_TAG_WAIT_MAX);
}

/*
 * The cost model's type of @rq (cost.c): a read, a write with FUA (it
 * completes once programmed: on flash it holds a die for a program where
 * a cached write takes a transfer), or any other write or command. Its
 * sectors count (@sect) for reads and writes only.
 */
static inline int fnv_cm_type(struct request *rq, bool *sect)
{
	*sect = true;
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return FNV_CM_READ;
	case REQ_OP_WRITE:
		return rq->cmd_flags & REQ_FUA ? FNV_CM_FUA : FNV_CM_WRITE;
	default:
		*sect = false;
		return FNV_CM_WRITE;
	}
}

/*
 * wrr_mode=soft: what @rq costs, in 1/2^FNV_CM_SHIFT sectors of a 4 KiB
 * read (cost.c), not rounded; its size under cost_model=bytes. Other
 * commands than reads and writes (discard, write zeroes) cost one write
 * command, not their size. Times @tilt, the tenant's for the period: the
 * probe that lets the model tell a command's cost from a sector's.
 */
static inline u64 fnv_charge_at(struct fnv_data *fd, struct request *rq,
				u32 tilt)
{
	const struct fnv_cm *m = &fd->cm;
	u64 sect = blk_rq_sectors(rq);
	bool by_sect;
	int t;

	if (fd->cost_model == FNV_COST_BYTES)
		return max(sect, 1ULL) << FNV_CM_SHIFT;
	t = fnv_cm_type(rq, &by_sect);
	if (!by_sect)
		sect = 0;
	return fnv_cm_charge_fine(m->c_cmd[t], m->c_sect[t], sect, tilt);
}

/* ... at the tenant's tilt this period (cost.c's probe) */
static inline u64 fnv_charge(struct fnv_data *fd, struct request *rq)
{
	struct fnv_tenant *tn = fnv_rq_tenant(rq);

	return fnv_charge_at(fd, rq, tn ? tn->cm_tilt : FNV_CM_TILT_ONE);
}

/* A charge of fnv_charge_at()'s in bytes (of 4 KiB reads), at least 1 */
static inline u64 fnv_charge_bytes(u64 fine)
{
	return max(fine >> (FNV_CM_SHIFT - SECTOR_SHIFT), 1ULL);
}

/*
 * ... in sectors, for the virtual time: what a request's charge has below
 * a sector is carried to @tn's next one (fnv_cm_carry(), fd->lock held).
 * Rounded one by one, a 4 KiB request costs a whole number of eighths of a
 * read: a FUA write fitted at 1.07 reads costs 9 sectors, 1.125.
 */
static inline u64 fnv_charge_carry(struct fnv_tenant *tn, u64 fine)
{
	return tn ? fnv_cm_carry(&tn->cm_carry, fine) : fnv_cm_round(fine);
}

/*
 * The dispatch depth in force. With one tenant busy there is no order
 * between tenants to keep, and the depth would only hold the tenant below
 * what the device does with its queue: a lone 16 KiB reader at depth 16 on
 * fnvssd's 4 dies got 22 MB/s where none gave 37, a lone FUA writer 4.1
 * where none gave 9.6 (the depth stops where a request's device time
 * doubles, here about the number of dies). A second tenant ends it at its
 * first request (fnv_enqueue()).
 */
static inline u32 fnv_depth(struct fnv_data *fd)
{
	return READ_ONCE(fd->solo) ? READ_ONCE(fd->max_inflight) :
	       READ_ONCE(fd->depth);
}

/*
 * A note in blktrace's stream (blkparse prints it beside the requests, as
 * BFQ's), for a decision that changes behaviour: only when blktrace runs
 * on the device (the macro tests q->blk_trace), never per request; with
 * the tenant's cgroup (fnv_msg), or the device's (fnv_msg_dev).
 */
#define fnv_msg(fd, tn, fmt, ...)					\
	blk_add_cgroup_trace_msg((fd)->q, &(tn)->pd.blkg->blkcg->css,	\
				 "fairnvme " fmt, ##__VA_ARGS__)
#define fnv_msg_dev(fd, fmt, ...)					\
	blk_add_trace_msg((fd)->q, "fairnvme " fmt, ##__VA_ARGS__)

/* Our data, if @q uses fairnvme (callers hold q->queue_lock). */
static inline struct fnv_data *fnv_q_data(struct request_queue *q)
{
	struct elevator_queue *e = q->elevator;

	return e && e->type == &fnv_elevator ? e->elevator_data : NULL;
}

static inline u64 fnv_tenant_cgid(struct fnv_tenant *tn)
{
	return cgroup_id(tn->pd.blkg->blkcg->css.cgroup);
}

/* Tenant of @bio on @q: its blkg's, else the root cgroup's. */
static inline struct fnv_tenant *fnv_bio_tenant(struct request_queue *q,
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

/*
 * wrr_mode=off: what @rq costs, in ns of device time. The device's learned
 * line (cost.c), the same for every tenant, as soon as it is known; the
 * tenant's own moving average of service time only until then. Charged
 * its own average, each tenant's share went as 1 / a noisy estimate of the
 * same device time: weights 800:600:400:200 of one device gave the lightest
 * tenant 0.112 of it in one 20 s run, and its rcost_us moved by +-15 %
 * from one second to the next. fd->lock held (the fit changes under it).
 */
static inline u64 fnv_rq_cost(struct fnv_data *fd,
			      struct fnv_tenant *tn, struct request *rq)
{
	bool by_sect;
	int t = fnv_cm_type(rq, &by_sect);
	u64 ns;

	if (READ_ONCE(fd->cost_model) == FNV_COST_BYTES || !tn)
		return (u64)blk_rq_bytes(rq) + READ_ONCE(fd->req_cost_bytes);
	ns = fnv_cm_time_ns(&fd->cm, t, by_sect ? blk_rq_sectors(rq) : 0);
	/* state.c's own costs are per read and write, FUA among writes */
	return ns ? ns : max(READ_ONCE(tn->ctl.cost[t == FNV_CM_READ ? 0 : 1]),
			     1ULL);
}

/*
 * TABS' type of @rq: reads, FUA writes, other writes; -1 for anything else
 * (discards, ...). A write's REQ_PREFLUSH never reaches an elevator
 * (blk_insert_flush() takes it off, and its data part comes back at head),
 * and on a device without FUA REQ_FUA is gone too: then no write is one.
 */
static inline int fnv_tabs_type(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return TABS_READ;
	case REQ_OP_WRITE:
		return rq->cmd_flags & REQ_FUA ? TABS_FUA : TABS_WRITE;
	default:
		return -1;
	}
}

/*
 * A tenant's reads and FUA writes TABS counted (tabs_inserted()) and not
 * finished, for its weight's split in tabs_demand(): changed where TABS'
 * own outstanding counts are, by @d (1 or -1).
 */
static inline void fnv_tabs_out(struct fnv_tenant *tn, int type, int d)
{
	if (tn && type >= 0 && type < TABS_NR_FAIR)
		atomic_add(d, &tn->tabs_out[type]);
}

/*
 * @tn's reads outstanding, for tabs_holds() and tabs_may_release(): TABS
 * holds a tenant's FUA writes only while it has reads of its own.
 */
static inline u64 fnv_tabs_own_reads(struct fnv_tenant *tn)
{
	return tn ? max(atomic_read(&tn->tabs_out[TABS_READ]), 0) : 0;
}

/* cm_done: sectors below, commands above (2^28 in a period at most) */
#define FNV_CM_DONE_SHIFT	36
#define FNV_CM_DONE_SECT	((1ULL << FNV_CM_DONE_SHIFT) - 1)
#define FNV_TABS_NR_SHIFT	40
#define FNV_TABS_BYTES_MASK	((1ULL << FNV_TABS_NR_SHIFT) - 1)

/* B_total in the units of the cost model; fd->lock or sysfs_lock held */
static inline u64 fnv_cycle_budget(struct fnv_data *fd)
{
	if (fd->cost_model == FNV_COST_BYTES)
		return (u64)fd->budget_kib << 10;
	return (u64)fd->budget_us * NSEC_PER_USEC;
}

#endif /* _FAIRNVME_H */
