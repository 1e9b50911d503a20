// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme - weighted fair sharing of an NVMe device between cgroups.
 *
 * A tenant is a cgroup on one device: the blkcg policy data of the blkg a
 * request's bio belongs to (requests without one go to the root cgroup's
 * tenant). Each tenant queues its requests in arrival order. Which tenant is
 * served next is decided by the budget-cycle policy in budget.c: every cycle
 * hands out a budget of cost units in proportion to the weights of the
 * backlogged tenants, and a tenant that spent its budget waits until all
 * others spent theirs. The cost of a request is its size in bytes plus a
 * fixed per-request charge (req_cost_bytes).
 *
 * A scheduler's order only decides service if the device does not hold most
 * of the requests itself: an NVMe queue accepts ~1000 commands and serves
 * them as it likes. Dispatch therefore stops at max_inflight requests at the
 * device and resumes from the completion path.
 *
 * Weights come from the cgroup file io.fairnvme.weight (blkio.fairnvme.weight
 * on cgroup v1), with the syntax of io.weight. Tunables are in
 * /sys/block/<dev>/queue/iosched/; Documentation/fairnvme.rst describes them.
 *
 * Locking: one spinlock per device (fnv_data.lock) covers the tenant queues
 * and the policy state. The completion path takes no lock: the in-flight
 * count is atomic and the requests hold a reference on their blkg, so a
 * tenant outlives its cgroup until its last request is freed.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-cgroup.h"

#include <fairnvme/budget.h>
#include <fairnvme/compat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/fairnvme.h>

/* The policy core is shared with the user-space unit tests. */
#include "budget.c"

/* Defaults and ranges of the iosched tunables. */
#define FNV_MAX_INFLIGHT_DEF	32
#define FNV_MAX_INFLIGHT_MAX	4096
#define FNV_REQ_COST_DEF	4096
#define FNV_REQ_COST_MAX	1048576
#define FNV_BUDGET_KIB_DEF	2048
#define FNV_BUDGET_KIB_MIN	64
#define FNV_BUDGET_KIB_MAX	1048576
#define FNV_GRACE_US_DEF	1000
#define FNV_GRACE_US_MAX	1000000

/* rq->elv.priv[1] flags */
#define FNV_RQ_FIFO		BIT(0)	/* on its tenant's fifo */
#define FNV_RQ_HEAD		BIT(1)	/* on fnv_data.head */
#define FNV_RQ_INFLIGHT		BIT(2)	/* counted in fnv_data.inflight */

/* Per cgroup (blkcg) data: the cgroup-wide default weight. */
struct fnv_cgroup {
	struct blkcg_policy_data cpd;
	u32 weight;
};

/* Per cgroup and device (blkg) data: the tenant. */
struct fnv_tenant {
	struct blkg_policy_data pd;
	struct fnv_flow flow;
	struct list_head fifo;		/* queued requests, arrival order */
	struct rb_root sort[2];		/* queued requests by sector */
	atomic_t inflight;		/* dispatched, not yet completed */
	u64 idle_at;			/* ns: inflight last dropped to 0 */
	u32 nr_queued;
	u32 dev_weight;			/* io.fairnvme.weight MAJ:MIN, 0: unset */
};

/* Per device data. */
struct fnv_data {
	spinlock_t lock;		/* everything but the atomics below */
	struct request_queue *q;
	struct fnv_sched sched;
	struct list_head head;		/* at-head insertions: served first */
	struct list_head bypass;	/* requests without elevator data */
	u32 nr_queued;			/* requests held, all lists */
	u64 seq;			/* insertion order, for fifo_time */
	atomic_t inflight;		/* dispatched, not yet completed */
	int kick;			/* dispatch stopped at max_inflight */

	u32 max_inflight;
	u32 req_cost_bytes;
	u32 budget_kib;
	u32 grace_us;
};

static struct blkcg_policy fnv_policy;

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
	return (unsigned long)rq->elv.priv[1];
}

static void fnv_rq_set_flags(struct request *rq, unsigned long flags)
{
	rq->elv.priv[1] = (void *)flags;
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

static u64 fnv_rq_cost(struct fnv_data *fd, struct request *rq)
{
	return (u64)blk_rq_bytes(rq) + READ_ONCE(fd->req_cost_bytes);
}

/*
 * May another request go to the device? When not, ask the completion path to
 * run the queue once the in-flight count drops; the barrier orders the flag
 * store before the re-read and pairs with atomic_dec_return() there.
 */
static bool fnv_may_dispatch(struct fnv_data *fd)
{
	int max = READ_ONCE(fd->max_inflight);

	if (atomic_read(&fd->inflight) < max)
		return true;
	if (!READ_ONCE(fd->kick))
		WRITE_ONCE(fd->kick, 1);
	smp_mb(); /* kick before re-reading inflight; see fnv_inflight_dec() */
	return atomic_read(&fd->inflight) < max;
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

/* Policy callback: a tenant on the waiting list holds a blkg reference. */
static void fnv_flow_pin(struct fnv_sched *s, struct fnv_flow *f, bool pin)
{
	struct fnv_tenant *tn = container_of(f, struct fnv_tenant, flow);

	if (pin)
		blkg_get(tn->pd.blkg);
	else
		blkg_put(tn->pd.blkg);
}

static void fnv_inflight_dec(struct fnv_data *fd, struct fnv_tenant *tn)
{
	/* The time only matters to a tenant waiting with budget left. */
	if (tn && atomic_dec_and_test(&tn->inflight) &&
	    !list_empty_careful(&tn->flow.wnode))
		WRITE_ONCE(tn->idle_at, ktime_get_ns());
	if (atomic_dec_return(&fd->inflight) < READ_ONCE(fd->max_inflight) &&
	    READ_ONCE(fd->kick) && xchg(&fd->kick, 0))
		blk_mq_run_hw_queues(fd->q, true);
}

static void fnv_insert_request(struct fnv_data *fd, struct request *rq,
			       bool at_head, struct list_head *free)
{
	struct request_queue *q = fd->q;
	struct fnv_tenant *tn;

	lockdep_assert_held(&fd->lock);

	if (!(rq->rq_flags & RQF_ELVPRIV)) {
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
		}
	}

	if (blk_mq_sched_try_insert_merge(q, rq, free))
		return;

	trace_block_rq_insert(rq);
	rq->fifo_time = fd->seq++;
	WRITE_ONCE(fd->nr_queued, fd->nr_queued + 1);

	if (at_head || !tn) {
		/*
		 * Requeues and at-head insertions go first, unmerged. A driver
		 * may have used the rb_node space (special_vec) meanwhile.
		 */
		RB_CLEAR_NODE(&rq->rb_node);
		if (at_head)
			list_add(&rq->queuelist, &fd->head);
		else
			list_add_tail(&rq->queuelist, &fd->head);
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
	list_add_tail(&rq->queuelist, &tn->fifo);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_FIFO);
	if (!tn->nr_queued++)
		fnv_flow_activate(&fd->sched, &tn->flow);
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
	fnv_rq_set_flags(rq, flags & ~(FNV_RQ_FIFO | FNV_RQ_HEAD));
	WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);

	if ((flags & FNV_RQ_FIFO) && !--tn->nr_queued)
		fnv_flow_deactivate(&fd->sched, &tn->flow);
}

static void fnv_insert_requests(FNV_INSERT_ARGS)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;
	LIST_HEAD(free);

	spin_lock(&fd->lock);
	while (!list_empty(list)) {
		struct request *rq;

		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		fnv_insert_request(fd, rq, FNV_INSERT_AT_HEAD, &free);
	}
	spin_unlock(&fd->lock);

	blk_mq_free_requests(&free);
}

static void fnv_trace_dispatch(struct fnv_data *fd, struct fnv_tenant *tn,
			       u64 cost, bool head)
{
	u64 cgid = 0, vtime = 0;
	s64 budget = 0;
	u32 weight = 0;

	if (tn) {
		cgid = cgroup_id(tn->pd.blkg->blkcg->css.cgroup);
		weight = tn->flow.weight;
		vtime = tn->flow.vtime;
		budget = tn->flow.budget;
	}
	trace_fairnvme_dispatch(disk_devt(fd->q->disk), cgid, weight, vtime,
				budget, cost, fd->sched.cycle,
				atomic_read(&fd->inflight), head);
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
	bool head = false;
	u64 cost;

	spin_lock(&fd->lock);
	rq = list_first_entry_or_null(&fd->bypass, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);
		goto unlock;
	}

	if (!fnv_may_dispatch(fd))
		goto unlock;

	rq = list_first_entry_or_null(&fd->head, struct request, queuelist);
	if (rq) {
		head = true;
	} else {
		struct fnv_flow *f = fnv_sched_pick(&fd->sched);

		if (!f)
			goto unlock;
		tn = container_of(f, struct fnv_tenant, flow);
		rq = list_first_entry(&tn->fifo, struct request, queuelist);
	}

	/* Charge first: a tenant left without budget need not wait. */
	tn = fnv_rq_tenant(rq);
	cost = fnv_rq_cost(fd, rq);
	if (tn)
		fnv_sched_charge(&fd->sched, &tn->flow, cost);
	fnv_remove_request(fd, rq);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_INFLIGHT);
	atomic_inc(&fd->inflight);
	if (tn)
		atomic_inc(&tn->inflight);
	if (trace_fairnvme_dispatch_enabled())
		fnv_trace_dispatch(fd, tn, cost, head);
unlock:
	spin_unlock(&fd->lock);
	return rq;
}

static bool fnv_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;

	if (!list_empty_careful(&fd->bypass))
		return true;
	if (!READ_ONCE(fd->nr_queued))
		return false;
	return fnv_may_dispatch(fd);
}

static void fnv_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/* The request is back from the driver and will be inserted again. */
static void fnv_requeue_request(struct request *rq)
{
	struct fnv_data *fd = rq->q->elevator->elevator_data;
	unsigned long flags = fnv_rq_flags(rq);

	if (flags & FNV_RQ_INFLIGHT) {
		fnv_rq_set_flags(rq, flags & ~FNV_RQ_INFLIGHT);
		fnv_inflight_dec(fd, fnv_rq_tenant(rq));
	}
}

/* Called when the request is freed: completed, or merged into another. */
static void fnv_finish_request(struct request *rq)
{
	struct fnv_tenant *tn = fnv_rq_tenant(rq);

	/* Freed while still queued: our lists would now be corrupt. */
	WARN_ON_ONCE(fnv_rq_flags(rq) & (FNV_RQ_FIFO | FNV_RQ_HEAD));

	fnv_requeue_request(rq);
	if (tn) {
		rq->elv.priv[0] = NULL;
		blkg_put(tn->pd.blkg);
	}
}

static bool fnv_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct fnv_data *fd = q->elevator->elevator_data;
	struct request *free = NULL;
	bool ret;

	spin_lock(&fd->lock);
	ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	spin_unlock(&fd->lock);

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
	INIT_LIST_HEAD(&fd->bypass);
	atomic_set(&fd->inflight, 0);
	fd->max_inflight = FNV_MAX_INFLIGHT_DEF;
	fd->req_cost_bytes = FNV_REQ_COST_DEF;
	fd->budget_kib = FNV_BUDGET_KIB_DEF;
	fd->grace_us = FNV_GRACE_US_DEF;
	fnv_sched_init(&fd->sched, (u64)fd->budget_kib << 10);
	fd->sched.busy = fnv_flow_busy;
	fd->sched.pin = fnv_flow_pin;

	ret = fnv_activate_policy(q, &fnv_policy);
	if (ret)
		goto free_fd;

	/* We dispatch from request queue wide instead of hw queue */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);

	q->elevator = eq;
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

	WARN_ON_ONCE(fd->nr_queued || fd->sched.nr_backlogged);
	spin_lock(&fd->lock);
	fnv_sched_drain(&fd->sched);
	spin_unlock(&fd->lock);
	fnv_deactivate_policy(fd->q, &fnv_policy);
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

static ssize_t fnv_max_inflight_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->max_inflight));
}

static ssize_t fnv_max_inflight_store(struct elevator_queue *e,
				      const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_u32(page, 1, FNV_MAX_INFLIGHT_MAX, &v))
		return -EINVAL;
	WRITE_ONCE(fd->max_inflight, v);
	/* A raised limit may let held requests go now. */
	blk_mq_run_hw_queues(fd->q, true);
	return count;
}

static ssize_t fnv_req_cost_bytes_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->req_cost_bytes));
}

static ssize_t fnv_req_cost_bytes_store(struct elevator_queue *e,
					const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_u32(page, 0, FNV_REQ_COST_MAX, &v))
		return -EINVAL;
	WRITE_ONCE(fd->req_cost_bytes, v);
	return count;
}

static ssize_t fnv_budget_kib_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->budget_kib));
}

static ssize_t fnv_budget_kib_store(struct elevator_queue *e,
				    const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_u32(page, FNV_BUDGET_KIB_MIN, FNV_BUDGET_KIB_MAX, &v))
		return -EINVAL;
	spin_lock(&fd->lock);
	fd->budget_kib = v;
	fd->sched.cycle_budget = (u64)v << 10;
	spin_unlock(&fd->lock);
	return count;
}

static ssize_t fnv_grace_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->grace_us));
}

static ssize_t fnv_grace_us_store(struct elevator_queue *e,
				  const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_u32(page, 0, FNV_GRACE_US_MAX, &v))
		return -EINVAL;
	WRITE_ONCE(fd->grace_us, v);
	return count;
}

static ssize_t fnv_inflight_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%d\n", atomic_read(&fd->inflight));
}

static ssize_t fnv_tenants_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->sched.nr_backlogged));
}

#define FNV_ATTR_RW(name) \
	__ATTR(name, 0644, fnv_##name##_show, fnv_##name##_store)
#define FNV_ATTR_RO(name) \
	__ATTR(name, 0444, fnv_##name##_show, NULL)

static struct elv_fs_entry fnv_attrs[] = {
	FNV_ATTR_RW(max_inflight),
	FNV_ATTR_RW(req_cost_bytes),
	FNV_ATTR_RW(budget_kib),
	FNV_ATTR_RW(grace_us),
	FNV_ATTR_RO(inflight),
	FNV_ATTR_RO(tenants),
	__ATTR_NULL
};

static struct elevator_type fnv_elevator = {
	.ops = {
		.insert_requests	= fnv_insert_requests,
		.dispatch_request	= fnv_dispatch_request,
		.has_work		= fnv_has_work,
		.prepare_request	= fnv_prepare_request,
		.finish_request		= fnv_finish_request,
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

static void fnv_cpd_init(struct blkcg_policy_data *cpd)
{
	struct fnv_cgroup *cg = container_of(cpd, struct fnv_cgroup, cpd);

	cg->weight = FNV_WEIGHT_DEFAULT;
}

static void fnv_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct fnv_cgroup, cpd));
}

static struct blkg_policy_data *fnv_pd_alloc(FNV_PD_ALLOC_ARGS)
{
	struct fnv_tenant *tn;

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
	INIT_LIST_HEAD(&tn->fifo);
	atomic_set(&tn->inflight, 0);
	tn->sort[READ] = RB_ROOT;
	tn->sort[WRITE] = RB_ROOT;
	fnv_flow_init(&tn->flow, FNV_WEIGHT_DEFAULT);
	return &tn->pd;
}

static void fnv_pd_init(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct fnv_cgroup *cg = blkcg_to_fnvcg(pd->blkg->blkcg);

	fnv_flow_init(&tn->flow, cg ? cg->weight : FNV_WEIGHT_DEFAULT);
}

static void fnv_pd_free(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);

	/* Requests hold a blkg reference: none can be left here. */
	WARN_ON_ONCE(tn->nr_queued || tn->flow.backlogged ||
		     !list_empty(&tn->flow.wnode) ||
		     atomic_read(&tn->inflight));
	kfree(tn);
	module_put(THIS_MODULE);
}

static void fnv_tenant_set_weight(struct fnv_tenant *tn, u32 cgroup_weight)
{
	WRITE_ONCE(tn->flow.new_weight, tn->dev_weight ?: cgroup_weight);
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

	ret = blkg_conf_prep(blkcg, &fnv_policy, body, &ctx);
	if (ret)
		return ret;

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
	blkg_conf_finish(&ctx);
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

static struct cftype fnv_dfl_files[] = {
	{
		.name = "fairnvme.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = fnv_weight_show,
		.write = fnv_weight_write,
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
	{ }
};

static struct blkcg_policy fnv_policy = {
	.dfl_cftypes	= fnv_dfl_files,
	.legacy_cftypes	= fnv_legacy_files,
	.cpd_alloc_fn	= fnv_cpd_alloc,
	.cpd_init_fn	= fnv_cpd_init,
	.cpd_free_fn	= fnv_cpd_free,
	.pd_alloc_fn	= fnv_pd_alloc,
	.pd_init_fn	= fnv_pd_init,
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
}

module_init(fnv_init);
module_exit(fnv_exit);

MODULE_AUTHOR("The fairnvme developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Weighted fair I/O scheduler for NVMe devices shared by cgroups");
