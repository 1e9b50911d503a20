// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme - weighted fair sharing of an NVMe device between cgroups.
 *
 * A tenant is a cgroup on one device: the blkcg policy data of the blkg a
 * request's bio belongs to (requests without one go to the root cgroup's
 * tenant). Tenants with I/O waiting share the device in proportion to
 * their weights, whatever their queue depths, and the device never idles
 * while a tenant has a request queued. Weights come from io.fairnvme.weight
 * (blkio.fairnvme.weight on cgroup v1) with the syntax of io.weight: 1 to
 * 10000, default 100, flat across the hierarchy. Tunables are in
 * /sys/block/<dev>/queue/iosched/; Documentation/fairnvme.rst has them all.
 *
 * 1. Cost
 *
 * Shares are shares of cost. With cost_model=time (the default) a request
 * costs the device time it takes, per operation type (read, write),
 * learned online rather than configured (cost.c):
 *
 * - Each control period is a window: what completed (commands and sectors
 *   per type) and how long the device had requests of ours. While it is
 *   full, the busy time is the sum of the requests' costs, a cost per
 *   command plus a cost per sector per type: blk-iocost's linear model,
 *   fitted by least squares over decayed windows, towards blk-iocost's
 *   default SSD model where the windows cannot tell the costs apart. Each
 *   period tilts the charge of the tenants larger than the window's mean
 *   (or with more writes) one way and the smaller ones the other, the
 *   reverse the next period, so that the windows can. Windows at the
 *   depth held count while those at max_inflight (the rate trials) find
 *   the device as full there. The unit is a 4 KiB
 *   read, charged its 8 sectors, so a device whose time goes with bytes is
 *   shared by bytes; discards and write zeroes cost one write command.
 * - wrr_mode=off: the same line, in ns of device time (budget_us is in
 *   time), once a window counted; until then the tenant's own moving
 *   average of service time per type (state.c: one request in four is
 *   sampled, its service time from the device's previous completion or
 *   its own dispatch; rcost_us and wcost_us in io.fairnvme.stat).
 *
 * With cost_model=bytes a request costs its size, plus req_cost_bytes
 * (4096) under budget cycles.
 *
 * 2. Shares
 *
 * wrr_mode=soft (the default, d2fq.c) is D2FQ with its arbiter in
 * software. A tenant's virtual time (vt) advances on completion by the
 * request's charge over the tenant's effective weight (3.). The global
 * virtual time (gvt) follows the smallest vt of the active tenants,
 * sloppily: one 64-bit word holds gvt and the id of its holder; the holder
 * raises it once more than tau_l / 16 ahead, any tenant below lowers it
 * and takes it over, by cmpxchg on completion; a released gvt is taken
 * only by a tenant that was within tau_l / 16 of it before the completion,
 * and every control period anchors gvt on the smallest vt of the active
 * tenants that may hold it (3.). A tenant is active while it
 * has requests queued or in flight and for grace_us (1000) after; back, it
 * restarts at gvt, or keeps a lead of at most tau_l. The root cgroup's
 * tenant never holds gvt, and its lead stays under tau_l / 2.
 *
 * The gap vt - gvt picks the class of a tenant's next request (Eq. 1):
 * high below tau_l / 2, medium below tau_l, low beyond. By default tau_l
 * is the lead a tenant served at its fair rate covers in 50 ms: the
 * device's learned bytes per second times 50 ms over the summed effective
 * weight of the busy tenants (83886 bytes per unit of weight, 8 MiB at
 * weight 100, until the rate is known). A weighted round robin over the
 * classes, as an NVMe controller arbitrates its queues (HPW = H/L ratio,
 * MPW = its integer square root, LPW = 1, wrr_burst (1) in a row), picks
 * the class; its tenants take turns, and one whose queue ran empty keeps
 * its turn (parked), as an empty submission queue does. Before each
 * arbiter pick one waiting tenant of the medium class and one of the low
 * class, in turn, move up if gvt came close enough (fnv_d2fq_promote()),
 * and every control period re-classes them all. Every hl_period_ms
 * (1000) the H/L ratio is raised by Eq. 2 if the tenant furthest ahead
 * leads gvt by more than tau_w = 2 tau_l, else set to the largest virtual
 * slowdown (Eq. 3); it starts at 256 and stays within 3..256. Far-ahead
 * rule: a tenant more than 2 tau_l ahead passes its turn while others
 * have requests queued (WF2Q's eligibility); the last of a pick's three
 * tries serves it anyway, so the device is never left idle.
 *
 * wrr_mode=off (budget.c) is FairNVMe's time budgets as deficit round
 * robin: each cycle hands out B_total (budget_us, 10000 us; budget_kib,
 * 2048, under bytes) in proportion to the scheduling weights. A tenant
 * that spent its quantum waits until every backlogged tenant has spent
 * its own; then all are refilled, and a debt (one cycle plus one request
 * at most) carries over. A tenant that ran empty with budget left keeps
 * the cycle open while it has requests in flight or completed one within
 * grace_us; meanwhile the others are served on credit.
 *
 * Requests without elevator data pass straight through. Ahead of either
 * policy go requeues and at-head insertions, then urgent requests
 * (REQ_META, REQ_PRIO, REQ_SWAP: journal, metadata and swap, which any
 * tenant may be waiting for), still charged to their tenant; after 8
 * urgent requests in a row while others wait, a tenant gets a turn.
 * Within a tenant, synchronous requests go before its writeback, with one
 * asynchronous request after every 4 synchronous ones.
 *
 * 3. Control
 *
 * FairNVMe's state-driven controller (state.c) runs from a delayed work
 * every ctl_period_ms (100) while the device has active tenants, and walks
 * only those (a tenant leaves the walk after 10 idle periods; an idle
 * device has no timer). With so many tenants that the walk takes more
 * than 1/32 of the period, the period stretches to 32 times the walk. A
 * tenant's latency is by default its head latency: from the moment a
 * request became its tenant's oldest to its completion, the wait before
 * dispatch scaled by weight over the mean weight under soft and counted
 * from the cycle's start at most under off (state_latency=queue: the
 * paper's latency from insertion). A busy tenant is judged on at least 16
 * samples, pooled over up to 8 periods.
 * Against thresh_min, its own adaptive thresh_cur (Eq. 3-4: k_u = 0.01
 * up, k_d = 0.001 down) and thresh_max, it is idle, balanced, unbalanced
 * or saturated. The thresholds follow the device: by default 5/4 and 8
 * times a lone request's device time (dev_floor, smoothed), the paper's
 * 600 and 3500 us until that is measured.
 *
 * The state moves a multiplier of the configured weight (Algorithm 1,
 * beta = 0.5): idle -beta, balanced halfway back to 1, unbalanced +beta,
 * saturated +2 beta, kept within 1/4..4; weight times multiplier is the
 * effective weight. A backlogged tenant (a request queued behind another
 * of its own in the period) keeps its weight: it already takes all its
 * weight gives it. An unbalanced or saturated tenant asks for budget
 * compensation: for the next 10 periods budget cycles use Eq. 5-7,
 * B_total * W_i * D_i / sum(W_j * D_j), D_i the device time of its
 * outstanding requests, never below the weight's share. The same worker
 * updates the cost model, the depth (4.), tau_l and the thresholds, and
 * runs D2FQ's period: gvt released by tenants idle past grace_us, gvt
 * anchored on the smallest vt of the active tenants, each waiting tenant
 * moved to the class of its gap now, the H/L ratio recomputed.
 *
 * 4. Depth
 *
 * The order chosen only decides service if the device does not hold most
 * requests itself: an NVMe device takes hundreds of commands and serves
 * them in its own order. Dispatch stops at a depth of requests at the
 * device and resumes from the completion path. Each period the depth
 * shrinks by a quarter if the mean device time of a request exceeded the
 * target, grows by an eighth if it stayed under 3/4 of it while the depth
 * held requests back, between 1 and max_inflight (32). The target is
 * dev_target_us, by default twice dev_floor, the learned device time of a
 * request sent alone: a request waits behind about one other. The depth
 * starts at 1 to measure it and, with auto, stays at 2 or more while it
 * holds requests back (0 fixes the depth at max_inflight). With auto, a
 * deeper queue is also tried for its rate (depth.c): max_inflight is kept
 * if over 32 periods it completed 9/8 of the depth before and the
 * service still followed the weights (fnv_depth_fair()); the time's own depth, hold_depth, moves
 * only while it is the one in force. Under soft the
 * first request of a tenant back in the high class with nothing queued
 * or in flight may pass the depth, up to twice it, one tenant at a time
 * (the lone-tenant exception). Requests that bypassed the elevator (on 6.1,
 * FUA writes) get room beside the depth, estimated each period from their
 * completions (Little's law). For grace_us after a synchronous tenant's
 * last completion, tenants ahead of it in vt dispatch only below a quarter
 * of hold_depth, or of a depth the trials kept or try upwards. While the
 * depth is past hold_depth (a trial's, or one kept), a tenant more than 2
 * tau_l ahead of gvt dispatches only below hold_depth while other
 * requests are at the device (fnv_ahead_out()). Asynchronous requests may
 * take 3/4 of the scheduler tags; once 3/4 of nr_requests are in use, a
 * tenant over its weight's share of them (8 at least; the root cgroup's
 * aside) gets only the first eighth of the tags. Writeback
 * throttling is off while fairnvme is used.
 * With one tenant busy in the last control period the depth is
 * max_inflight until another tenant queues a request (fnv_depth()).
 *
 * 5. Reads and FUA writes (tabs.c, TABS)
 *
 * Where FUA writes reach the elevator (6.5 on), TABS gives reads and FUA
 * writes their fair bandwidth per device, FBW_x = BWmax_x * I_x / I_total:
 * IDLE counts issued requests per type; past tabs_threshold in a reset
 * period, with both types, SCHED holds the FUA writes of tenants with reads
 * of their own outstanding on fd->tabs_held (off their tenants' queues: a
 * held write costs its tenant nothing and its reads go first) and lets
 * them go at alpha per read dispatched, at once when their tenant has no
 * read outstanding, after tabs_max_wait_ms at most; between tenants the
 * weights share the device, a FUA write charged its device time. Every epoch
 * in which the types' BW / FBW differ by more than 5 % moves alpha by
 * their ratio; SCHED ends after tabs_sched_ms.
 * Requeues and urgent requests are never held. Completions reach TABS
 * through one atomic per type, folded under the lock.
 *
 * 6. Monitoring
 *
 * io.fairnvme.stat has a line per device: state, configured, effective and
 * scheduling weights, budget, compensated budget, latencies, thresholds,
 * learned costs, write ratio, D2FQ class, vt gap and dispatches per class.
 * Tracepoints: fairnvme_dispatch (each dispatch), fairnvme_state (state
 * changes), fairnvme_refill (budget refills), fairnvme_hl (H/L changes),
 * fairnvme_tabs (TABS phase and alpha); the same decisions are blktrace
 * notes (fnv_msg()) beside the inserts and dispatches. The scheduler's
 * state is in debugfs, /sys/kernel/debug/block/<dev>/sched/
 * (fairnvme-debugfs.c): hl_ratio, gvt, inflight, depth, hold_depth,
 * slot_depth, depth_trials, dev_floor_us, tau_l_eff_bytes, ctl_walk_us,
 * thresh_{min,max}_eff_us, cost_learned,
 * tenants, tenant_dump, a line per tenant the control period walks, and
 * tabs. queue/iosched has the tunables
 * only, made from one table (include/fairnvme/tunables-table.h).
 *
 * The module's files: this one, the elevator (insertion, dispatch,
 * completion, merges, init and exit); fairnvme-ctl.c, the control period
 * (3., 4.); fairnvme-sysfs.c, the tunables; fairnvme-debugfs.c;
 * fairnvme-cgroup.c, the blkcg policy and its cgroup files; fairnvme.h,
 * what they share. The policy cores, free of blk-mq types and also built
 * into the user-space unit tests, each with its prefix: cost.c (fnv_cm_),
 * budget.c (fnv_sched_, fnv_flow_), state.c (fnv_ctl_), d2fq.c (d2fq_),
 * tabs.c (tabs_), depth.c (fnv_depth_probe).
 *
 * Locking and lifetime: one spinlock per device, fd->lock, covers the
 * tenant queues, both policies and the controller state, taken with
 * interrupts on, as mq-deadline and kyber take theirs: no interrupt path
 * takes it (completions are lockless, below, and blk-mq never inserts or
 * dispatches from interrupt context: both kernels warn, 6.1 in
 * __blk_mq_run_hw_queue(), 6.12 in blk_mq_run_hw_queue()).
 * With interrupts off it bought nothing, and a CPU spinning on it kept
 * its completions' interrupts waiting. An interrupt-safe lock is never
 * held around it (the first rule below).
 * The completion path takes no lock: in-flight counts, virtual times and
 * period sums are atomic, gvt a cmpxchg'd word. The lock rule:
 *
 *  - fd->lock is never taken inside q->queue_lock or a blkcg's lock.
 *    pd_offline_fn runs inside both (blkg_destroy(), policy
 *    deactivation): fnv_pd_offline() only marks the tenant, releases gvt
 *    (lock-free) and queues it for fnv_offline_work(), which takes it off
 *    our lists under fd->lock. blkcg_print_blkgs() callbacks
 *    (io.fairnvme.stat) read racily, and the weight writes take the
 *    blkcg's lock without fd->lock.
 *  - Nothing that may take q->queue_lock or a blkcg's lock runs while
 *    fd->lock is held: no blk_mq_run_hw_queue(s)() (on 6.12 it takes
 *    queue_lock when has_work is false, to re-check quiescing), no
 *    blkcg_* or blkg_conf/lookup call. Whoever changes what may let
 *    requests go under fd->lock says so and runs the queues after the
 *    unlock (the control period's kick, the sysfs stores).
 *  - Allowed under fd->lock: blkg_get() / blkg_put() (a percpu ref; the
 *    last put takes only the blkcg rstat lock on 6.12, a leaf, and queues
 *    an RCU callback); schedule_delayed_work(); ida_alloc(GFP_NOWAIT); the
 *    elevator merge helpers (blk_mq_sched_try_merge(),
 *    blk_mq_sched_try_insert_merge()), as mq-deadline calls them under its
 *    own lock; requests to free are freed after the unlock.
 *
 * Every list a tenant sits on holds a blkg reference (queued requests one
 * each; class lists, parked or not, the cycles' waiting list, the worker's
 * active list and fd->offlined their own), so a removed cgroup's tenant
 * lives until its last request is freed, and is then freed after an RCU
 * grace period.
 *
 * References:
 *
 * [FairNVMe] Z. Huang, Y. Zhu, X. Kuang, Y. Tan, H. Tan, K. Li.
 *   State-driven fairness control for efficient I/O queue scheduling in
 *   NVMe virtualization. Future Generation Computer Systems, 2025,
 *   doi:10.1016/j.future.2025.107902. Used: 2.2 (slowdown fairness,
 *   Eq. 1-2, in the tests), 3.2 (states, Eq. 3-4), 3.3 (Algorithm 1),
 *   3.4 (budget compensation, Eq. 5-7).
 * [D2FQ] J. Woo, M. Ahn, G. Lee, J. Jeong. D2FQ: Device-Direct Fair
 *   Queueing for NVMe SSDs. 19th USENIX Conference on File and Storage
 *   Technologies (FAST '21), 2021. Used: 2.3 (NVMe WRR), 3.1 (classes,
 *   Eq. 1), 3.2 (H/L ratio, Eq. 2-3), 3.3 (tau_m = tau_l / 2), 3.4 (gvt,
 *   Fig. 9), 3.5 (grace period).
 * [TABS] J. Kim, D. Kim, Y. Won. Fair I/O Scheduler for Alleviating
 *   Read/Write Interference by Forced Unit Access in Flash Memory.
 *   HotStorage '22, ACM, 2022. To come: 4.2 (two-phase FUA throttling,
 *   Eq. 1), 4.3 (software feedback).
 * [LPNS] B. Peng, C. Guo, J. Yao, H. Guan. LPNS: Scalable and
 *   Latency-Predictable Local Storage Virtualization for Unpredictable
 *   NVMe SSDs in Clouds. USENIX ATC '23, 2023. To come: 4.3 (command
 *   throttling, network-calculus bound), 4.4.
 * [GoFair] J. Li, Y. Xie, D. Feng, H. Zhang. GoFair: Global-Oriented
 *   Fairness Framework for Shared NVMe SSDs (venue and year not in our
 *   copy). To come: IV.B (slowdown estimation), IV.E (slowdown-aware
 *   suspending); its fairness metrics (V.B) are used in the tests.
 */
#include "fairnvme.h"

#define CREATE_TRACE_POINTS
#include <trace/events/fairnvme.h>

/* D2FQ flow ids, unique among live tenants (0 = none: never holds gvt) */
DEFINE_IDA(fnv_ida);

/*
 * Fewer than @max requests at the device? When not, ask the completion path
 * to run the queue once the in-flight count drops below @max (the largest
 * limit that stopped a dispatch: a lone request may pass the depth), or
 * below the depth (fnv_inflight_dec()); the barrier orders that store
 * before the re-read and pairs with atomic_dec_return() there.
 */
static bool fnv_inflight_below(struct fnv_data *fd, int max)
{
	if (atomic_read(&fd->inflight) < max)
		return true;
	if (READ_ONCE(fd->kick) < max)
		WRITE_ONCE(fd->kick, max);
	smp_mb(); /* kick before re-reading inflight; see fnv_inflight_dec() */
	return atomic_read(&fd->inflight) < max;
}

/* May another request go to the device? */
static bool fnv_may_dispatch(struct fnv_data *fd)
{
	if (fnv_inflight_below(fd, fnv_depth(fd) +
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
void fnv_tenant_leave(struct fnv_tenant *tn)
{
	tn->cm_tilt = FNV_CM_TILT_ONE;	/* the probe walks the active list */
	tn->cm_tilt_paid = 0;
	tn->cm_class = 0;
	tn->cm_tclass = 0;
	tn->alone_q16 = 0;		/* it comes back with another queue */
	tn->alone_lat = 0;
	tn->alone_dt = 0;
	tn->tag_wait = 0;
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
	u64 now = 0;
	int left, kick;

	/*
	 * Start of the grace period (budget.c's busy, D2FQ's release), read
	 * by whoever sees inflight at 0: stamped before the decrement that
	 * may make it 0, and again after it in case two completions raced
	 * from 2 (the clock read once when it can be).
	 */
	if (tn && atomic_read(&tn->inflight) == 1) {
		now = ktime_get_ns();
		WRITE_ONCE(tn->idle_at, now);
		/* idle_at before the decrement that lets it be read */
		smp_mb__before_atomic();
	}
	if (tn && atomic_dec_and_test(&tn->inflight))
		WRITE_ONCE(tn->idle_at, now ?: ktime_get_ns());
	left = atomic_dec_return(&fd->inflight);
	/*
	 * The device is idle: the next request's service starts at its
	 * dispatch, whatever the last completion said (two completions that
	 * raced from 2 both saw the other in flight). Rounded up, as
	 * fnv_completed_request() rounds, so that last_done never goes back.
	 */
	if (!left) {
		u64 done = READ_ONCE(fd->last_done);

		if (done & FNV_DONE_BUSY)
			WRITE_ONCE(fd->last_done, done + 1);
	}
	kick = READ_ONCE(fd->kick);
	/*
	 * Below the largest limit that stopped a dispatch, and below the
	 * depth in any case: a tenant held for a synchronous one
	 * (fnv_held()) stops at a quarter of the depth, and may go once
	 * the grace period is over, which only a run of the queue sees.
	 */
	if (kick && left < max_t(int, kick, fnv_depth(fd)) &&
	    xchg(&fd->kick, 0))
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
 * it was if that is ahead of gvt, by tau_w = 2 tau_l at most: it brings no
 * credit, and it keeps its lead. Forgetting the lead let a tenant that
 * waits more than grace_us between requests (an O_SYNC writer waiting for
 * each journal commit) restart at gvt every time and escape its weight:
 * 0.179 of the device at weight 100 beside a weight-800 reader, 0.111 due.
 * The cap is the lead fnv_far_ahead() lets a busy tenant have: with tau_l
 * instead, a weight-100 tenant, which runs up to 2 tau_l ahead in the low
 * class, lost the rest of its lead each time its fio drained its queue to
 * read back what it wrote (verify_backlog) for longer than grace_us, and
 * took 9.8 % over its share in a 5 s window of t18 (a tenant whose virtual
 * time moved within 1 % of the others'). The cap keeps a vt from long ago
 * (or wrapped) from holding a tenant back.
 */
static enum d2fq_class fnv_d2fq_class(struct fnv_data *fd,
				      struct d2fq_flow *f)
{
	u64 gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	u64 tau_l = (u64)fd->tau_l_bytes << D2FQ_VT_SHIFT;

	if (!f->active)
		d2fq_flow_restart(f, gvt, 2 * tau_l);
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
void fnv_d2fq_enqueue(struct fnv_data *fd, struct fnv_tenant *tn)
{
	lockdep_assert_held(&fd->lock);
	d2fq_arb_add(&fd->arb, &tn->d2, fnv_d2fq_class(fd, &tn->d2));
}

/* Tracepoint fairnvme_class: @tn goes from class @old to @new (@why) */
static void fnv_trace_class(struct fnv_data *fd, struct fnv_tenant *tn,
			    int old, int new, int why)
{
	u64 gvt;

	if (old == new || !trace_fairnvme_class_enabled())
		return;
	gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	trace_fairnvme_class(disk_devt(fd->q->disk), fnv_tenant_cgid(tn), old,
			     new, d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) >>
			     D2FQ_VT_SHIFT, tn->d2.weight, why);
}

/*
 * A waiting tenant's class is chosen when it joins the class lists and
 * after each of its dispatches, and raised by fnv_d2fq_promote()'s scan.
 * One left in the low class while gvt moved past it would wait there at 1
 * turn in H/L ratio, complete nothing and so never pull gvt back: the
 * tenant holding gvt ran on, its lead and the H/L ratio grew (to 256
 * within 2 s), and a weight-100 tenant took 27 % more than its share for
 * 5 s. The control period gives each waiting tenant the class of its gap
 * now (fnv_d2fq_period()).
 */
void fnv_d2fq_reclass(struct fnv_data *fd, struct fnv_tenant *tn)
{
	struct d2fq_flow *f = &tn->d2;
	enum d2fq_class c;

	lockdep_assert_held(&fd->lock);
	if (f->cls < D2FQ_HIGH || f->parked || !f->active || !tn->nr_queued)
		return;
	c = fnv_d2fq_class(fd, f);
	if (c != f->cls) {
		fnv_msg(fd, tn, "class %d->%d (1 high, 2 medium, 3 low)",
			f->cls, c);
		fnv_trace_class(fd, tn, f->cls, c, 1);
		d2fq_arb_move(&fd->arb, f, c);
	}
}

/*
 * Take every tenant off the class lists, handing those with requests to
 * @moved (parked ones just leave).
 */
void fnv_d2fq_clear(struct fnv_data *fd,
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
 * holds its blkg then, but the class list does, and fnv_offline_drain()
 * takes it off once the cgroup is removed.
 */
static void fnv_tenant_drained(struct fnv_data *fd, struct fnv_tenant *tn)
{
	if (fd->lone == tn)
		WRITE_ONCE(fd->lone, NULL);
	if (tn->d2.cls >= 0) {
		if (READ_ONCE(tn->offline))
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
	if (list_empty(&tn->active_node) && !READ_ONCE(tn->offline)) {
		fnv_tenant_hold(tn, true);
		list_add_tail(&tn->active_node, &fd->active);
	}
	if (!fd->ctl_armed) {
		fd->ctl_armed = true;
		/* the cost model's window starts with the first period */
		fd->win_at = 0;
		atomic64_set(&fd->cm_done[FNV_CM_READ], 0);
		atomic64_set(&fd->cm_done[FNV_CM_WRITE], 0);
		atomic64_set(&fd->cm_done[FNV_CM_FUA], 0);
		schedule_delayed_work(&fd->ctl_work, fnv_ctl_delay(fd));
	}
}

static void fnv_urgent_add(struct fnv_data *fd, struct request *rq)
{
	list_add_tail(&rq->queuelist, &fd->urgent);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_URGENT);
	fd->nr_urgent++;
}

/* @rq on its tenant's queues: the policy of the mode serves it from there. */
static void fnv_enqueue(struct fnv_data *fd, struct fnv_tenant *tn,
			struct request *rq)
{
	struct request_queue *q = fd->q;

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
	/* written under fd->lock, read without it (READ_ONCE) */
	WRITE_ONCE(tn->nr_queued, tn->nr_queued + 1);
	if (tn->nr_queued == 1) {
		/* another tenant: the depth holds again (fnv_depth()) */
		if (fd->solo && fd->solo != tn)
			WRITE_ONCE(fd->solo, NULL);
		fnv_tenant_backlogged(fd, tn);
		if (fd->wrr_mode == FNV_WRR_SOFT && !fd->lone &&
		    tn->d2.cls >= 0 && tn->d2.cls <= D2FQ_HIGH &&
		    !atomic_read(&tn->inflight))
			WRITE_ONCE(fd->lone, tn);
	} else {
		tn->queued_behind = true;
	}
}

/*
 * TABS' FUA delay queue: a FUA write held there is on none of its tenant's
 * queues, so its tenant's reads go ahead of it and it costs its tenant
 * nothing until it is let go (fnv_tabs_release()). Stamped with the jiffy
 * it came, for max_wait_ms: no clock read.
 */
static void fnv_tabs_hold(struct fnv_data *fd, struct request *rq)
{
	RB_CLEAR_NODE(&rq->rb_node);
	rq->fifo_time = get_jiffies_64();
	list_add_tail(&rq->queuelist, &fd->tabs_held);
	fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_HELD);
	fd->nr_held++;
	fnv_rq_tenant(rq)->nr_held++;
}

/*
 * A FUA write TABS holds (SCHED) goes to its tenant's queue at once if
 * TABS would let it go now (credit, no read of its tenant outstanding) and
 * none waits before it. Through the delay queue, a write that had credit
 * still left its tenant's queue empty until the next dispatch, and a
 * FUA-only tenant (then held too) went idle and came back behind gvt over
 * and over: t21's writer at 100 beside a reader at 300 got 0.212 to 0.226
 * of the IOPS in SCHED phases that held nothing (alpha 1.17 where 0.29
 * went per read), 0.233 to 0.256 with TABS idle.
 */
static bool fnv_tabs_must_wait(struct fnv_data *fd, struct fnv_tenant *tn)
{
	lockdep_assert_held(&fd->lock);
	if (fnv_probe_fua(fd))
		return false;
	if (!list_empty(&fd->tabs_held))
		return true;
	/* the reads outstanding, as fnv_tabs_release() counts them */
	fnv_tabs_fold(fd);
	/*
	 * Held since now: never a forced release, so no clock. Spends the
	 * credit it finds: the caller's last test before it enqueues.
	 */
	return !tabs_may_release(&fd->tabs, &fd->tabs_p, 0, 0,
				 fnv_tabs_own_reads(tn));
}

/*
 * Let held FUA writes go to their tenants' queues: as many as TABS allows
 * (tabs_may_release(): IDLE, no read of the write's tenant outstanding,
 * credit from reads, or max_wait_ms reached), or all of them. When
 * dispatch finds nothing to send but held writes, blk-mq runs the queue again 3 ms later
 * (BLK_MQ_BUDGET_DELAY): that is what lets max_wait_ms run out while the
 * device is idle, without a timer of ours.
 */
void fnv_tabs_release(struct fnv_data *fd, bool all)
{
	u64 now = jiffies64_to_nsecs(get_jiffies_64()), clock = 0;
	struct fnv_tenant *tn;

	lockdep_assert_held(&fd->lock);
	if (!all)
		fnv_tabs_fold(fd);
	while (!list_empty(&fd->tabs_held)) {
		struct request *rq = list_first_entry(&fd->tabs_held,
						      struct request,
						      queuelist);

		tn = fnv_rq_tenant(rq);
		if (!all && !tabs_may_release(&fd->tabs, &fd->tabs_p, now,
					      jiffies64_to_nsecs(rq->fifo_time),
					      fnv_tabs_own_reads(tn)))
			break;
		list_del_init(&rq->queuelist);
		fnv_rq_set_flags(rq, fnv_rq_flags(rq) & ~FNV_RQ_HELD);
		rq->fifo_time = fd->seq++;
		fd->nr_held--;
		tn->nr_held--;
		/*
		 * Its wait at the head of its tenant starts now: the hold is
		 * TABS', not a share the controller should make up for. And
		 * the tenant, idle while only held, is walked again.
		 */
		if (!clock)
			clock = ktime_get_ns();
		tn->disp_at = max(tn->disp_at, clock);
		fnv_tenant_active(fd, tn);
		fnv_enqueue(fd, tn, rq);
	}
}

/* Completions counted on the completion path, into TABS. */
void fnv_tabs_fold(struct fnv_data *fd)
{
	int t;

	lockdep_assert_held(&fd->lock);
	for (t = 0; t < TABS_NR_TYPES; t++) {
		u64 v;

		if (!atomic64_read(&fd->tabs_done[t]))
			continue;
		v = atomic64_xchg(&fd->tabs_done[t], 0);
		tabs_done(&fd->tabs, t, v >> FNV_TABS_NR_SHIFT,
			  v & FNV_TABS_BYTES_MASK);
	}
}

/* The tunables into TABS' parameters (fd->lock held, or not yet shared). */
void fnv_tabs_params(struct fnv_data *fd)
{
	struct tabs_params *p = &fd->tabs_p;

	p->reset_ms = fd->tabs_reset_ms;
	p->threshold = fd->tabs_threshold;
	p->epoch_ms = fd->tabs_epoch_ms;
	p->sched_ms = fd->tabs_sched_ms;
	p->max_wait_ms = fd->tabs_max_wait_ms;
	p->bwmax[TABS_READ] = (u64)fd->tabs_read_bwmax << 10;
	p->bwmax[TABS_FUA] = (u64)fd->tabs_fua_bwmax << 10;
}

static void fnv_insert_request(struct fnv_data *fd, struct request *rq,
			       bool at_head, struct list_head *free)
{
	struct request_queue *q = fd->q;
	struct fnv_tenant *tn;
	int type;

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
	if (tn && !at_head)
		tn->tag_wait += fnv_rq_tag_wait(rq);

	/*
	 * TABS counts what the host issues (a requeue was counted done,
	 * fnv_requeue()), and holds FUA writes of tenants
	 * with reads of their own outstanding in its SCHED phase; not a
	 * requeue nor an urgent one (a journal commit is FUA and REQ_META).
	 */
	type = fd->tabs_on ? fnv_tabs_type(rq) : -1;
	if (type >= 0 && !(fnv_rq_flags(rq) & FNV_RQ_TABS)) {
		tabs_inserted(&fd->tabs, type);
		fnv_tabs_out(tn, type, 1);
		fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_TABS);
		if (tn && !at_head && !(rq->cmd_flags & FNV_URGENT_FLAGS) &&
		    tabs_holds(&fd->tabs, type, fnv_tabs_own_reads(tn)) &&
		    fnv_tabs_must_wait(fd, tn)) {
			fnv_tabs_hold(fd, rq);
			return;
		}
	}

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
	fnv_enqueue(fd, tn, rq);
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
				       FNV_RQ_URGENT | FNV_RQ_HELD));
	if (flags & FNV_RQ_URGENT)
		fd->nr_urgent--;
	WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);

	if (flags & FNV_RQ_FIFO) {
		WRITE_ONCE(tn->nr_queued, tn->nr_queued - 1);
		if (!tn->nr_queued)
			fnv_tenant_drained(fd, tn);
	}
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
	    fd->nr_queued - fd->nr_held > fd->nr_urgent) {
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
 * by device time (hold_depth; one at least) are there, or of a deeper
 * depth the trials kept or try upwards (slot_depth, depth.c): the
 * device, or the host, serves that many faster in parallel, as measured,
 * and a trial measures what keeping its depth would give; four tenants of
 * 16 QD1 readers each, whose queues ran dry for moments under TCG, held
 * each other back at a slot of 1 and lost 10 % of the IOPS at a kept depth
 * of 32 (t26). Once it has caught
 * up, or gone quiet, the others have the whole depth again: the shares
 * follow the weights. The
 * depth follows the device, and a completion runs the queue again: the
 * device is never left idle. fairnvme turns wbt off (as BFQ does); this,
 * with the tag limits, does wbt's job for readers. The clock is read only
 * when the last completion of all was that recent. Never for the tenant's
 * own last request (sync_cgid): one whose queue ran dry for a moment held
 * its next requests back behind itself, one at a time, each let go by a
 * queue run on kblockd (two QD32 readers in one cgroup on null_blk:
 * 3,500 to 4,700 context switches a second and 15 to 21 K IOPS, against
 * 930 and 23 K without, mq-deadline 830 and 23 to 36 K).
 */
#define FNV_HOLD_DEPTH_SHIFT	2

static bool fnv_held(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u64 grace = (u64)fd->grace_us * NSEC_PER_USEC;
	u64 sync_done = READ_ONCE(fd->sync_done);
	int cap = max(READ_ONCE(fd->slot_depth) >> FNV_HOLD_DEPTH_SHIFT, 1U);

	if (fd->cm_probe || atomic_read(&fd->inflight) < cap ||
	    fnv_tenant_cgid(tn) == READ_ONCE(fd->sync_cgid) ||
	    (s64)(READ_ONCE(fd->last_done) - sync_done) >= (s64)grace ||
	    d2fq_vt_diff(atomic64_read(&tn->d2.vt),
			 READ_ONCE(fd->sync_vt)) <= 0 ||
	    ktime_get_ns() - sync_done >= grace)
		return false;
	return !fnv_inflight_below(fd, cap);
}

/* more than 2 tau_l ahead of gvt (fnv_far_ahead(), fnv_ahead_out()) */
static bool fnv_far_ahead_gvt(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u64 gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	u64 tau_w = (u64)READ_ONCE(fd->tau_l_bytes) << (D2FQ_VT_SHIFT + 1);

	return d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) > (s64)tau_w;
}

/*
 * While the depth is past the depth by device time (hold_depth: the depth
 * is then one an upward trial tries, or one the trials kept), a tenant
 * more than 2 tau_l ahead of gvt (fnv_far_ahead()'s lead; vt moves at
 * completion, so it may overshoot by what it sent before) may have
 * requests sent only while fewer than hold_depth are at the device, if
 * other requests than its own are there. Beyond hold_depth the device
 * serves whatever was sent in its own order: at a trial's max_inflight, a
 * reader at weight 100 beside a 70/30 tenant at 1000 (t29 c/rw, fnvssd)
 * had all 16 of its requests at the device and completed 830 in the
 * trial's second where its share was 130; its virtual time then held it
 * back for 6 s, nothing sent, while it was paid back (and a trial in the
 * last seconds of a run left it over its share: t29 w15). The extra depth
 * is for the tenants that are owed service; the device keeps hold_depth,
 * full by device time, and a completion runs the queue again (below the
 * depth, fnv_inflight_dec()). Not during a size probe (see
 * fnv_probe_out()), nor while no tenant holds gvt (it does not move: a
 * removed cgroup's tenant beside only the root's), nor for a removed
 * cgroup's tenant.
 */
static bool fnv_ahead_out(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u32 hold = max(READ_ONCE(fd->hold_depth), 1U);
	int in = atomic_read(&fd->inflight);

	if (in < (int)hold || hold >= READ_ONCE(fd->depth) || fd->cm_probe ||
	    READ_ONCE(tn->offline) || in <= atomic_read(&tn->inflight) ||
	    !d2fq_gvt_id(atomic64_read(&fd->gvt)) ||
	    !fnv_far_ahead_gvt(fd, tn))
		return false;
	return !fnv_inflight_below(fd, hold);
}

/*
 * The cost model's size probe (cost.c, fairnvme-ctl.c) dispatches one
 * class of tenants for a period: a tenant of the other class waits (one
 * in neither, or new, does not). Not with nothing at the device: a
 * completion runs the queue again, and a probe whose class ran dry must
 * not hold the rest back. Meanwhile no tenant passes its turn for being
 * ahead (fnv_far_ahead()) or keeps a slot for one behind (fnv_held()):
 * those it would wait for may be the ones held. A reader far ahead of
 * the held class completed 35 reads in a probe's 100 ms where 16 in
 * flight on fnvssd's four dies complete 260.
 */
static bool fnv_probe_out(struct fnv_data *fd, struct fnv_tenant *tn)
{
	u8 c = fd->cm_probe, t;

	if (likely(!c))
		return false;
	t = fd->cm_pkind == FNV_CM_PROBE_BY_TYPE ? tn->cm_tclass :
						  tn->cm_class;
	if (!t || t == c)
		return false;
	/*
	 * a completion runs the queue again (fnv_inflight_dec()): asked for
	 * before inflight is read again, or one that took it to 0 in
	 * between would not
	 */
	return !fnv_inflight_below(fd, 1);
}

/* Tenants a probe holds that one pick may pass (fnv_d2fq_next()) */
#define FNV_PROBE_PASS		16

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
	enum d2fq_class to;

	rq = fnv_tenant_next(tn);
	/* counted as served through it by fnv_dispatch_request() */
	*cls = f->cls;
	/* with its last request, it is parked at the end of the rotation */
	to = tn->nr_queued > 1 ? fnv_d2fq_class(fd, f) : f->cls;
	fnv_trace_class(fd, tn, f->cls, to, 0);
	d2fq_arb_move(&fd->arb, f, to);
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
	return fd->nr_queued - fd->nr_held > tn->nr_queued &&
	       fnv_far_ahead_gvt(fd, tn);
}

/*
 * Before each pick, one waiting tenant of the medium class and one of the
 * low class, each in turn (d2fq_arb_scan()), moves up if gvt came within
 * tau_l / 2 or tau_l of it (its class by fnv_d2fq_class()). A tenant's
 * class is otherwise redone only at its own dispatch, which in the low
 * class comes once in H/L ratio turns per tenant there: the gvt holder,
 * alone in the high class, ran past the tenants waiting in the low one,
 * and they pulled gvt back only when their turn came: the classes swung,
 * the H/L ratio rose to 256 and made the swings wider. t18 (8 tenants,
 * weights 100 to 800, tau_l at its floor) failed 1 run in 4, a 5 s window
 * up to 18 % off the weights; in a simulation of it (test_d2fq) the worst
 * window was 22 % off, and 0.6 % with this. O(1): two tenants looked at
 * per pick, and only ever moved up (one that gvt fell behind is moved
 * down at its next dispatch, which in the high class comes soon).
 */
static void fnv_d2fq_promote(struct fnv_data *fd)
{
	enum d2fq_class c, to;
	struct d2fq_flow *f;

	lockdep_assert_held(&fd->lock);
	for (c = D2FQ_MEDIUM; c <= D2FQ_LOW; c++) {
		f = d2fq_arb_scan(&fd->arb, c);
		/* as fnv_d2fq_reclass(): not a removed cgroup's tenant */
		if (!f || f->parked || !f->active)
			continue;
		to = fnv_d2fq_class(fd, f);
		if (to < c) {
			fnv_trace_class(fd, container_of(f, struct fnv_tenant,
							 d2), c, to, 2);
			d2fq_arb_move(&fd->arb, f, to);
		}
	}
}

static struct request *fnv_d2fq_next(struct fnv_data *fd, int *cls)
{
	struct d2fq_flow *f;
	struct fnv_tenant *tn;
	int tries, passed = 0;

	fnv_d2fq_promote(fd);
	/*
	 * Past a held or far-ahead tenant: one try per class at most, and
	 * the last try serves a tenant that is only ahead (work conserving).
	 * Tenants a size probe holds, or fnv_ahead_out() does, are not
	 * tries (up to FNV_PROBE_PASS): three of them at the heads would
	 * leave the probed class, or a tenant owed service, one request per
	 * queue run.
	 */
	for (tries = 0; tries < 3; tries++) {
		f = d2fq_arb_pick(&fd->arb);
		if (!f)
			return NULL;
		tn = container_of(f, struct fnv_tenant, d2);
		if (fnv_probe_out(fd, tn) || fnv_ahead_out(fd, tn)) {
			d2fq_arb_unpick(&fd->arb, f);
			if (++passed < FNV_PROBE_PASS)
				tries--;
			continue;
		}
		if (!fnv_held(fd, tn) &&
		    (tries == 2 || fd->cm_probe || !fnv_far_ahead(fd, tn)))
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
	    atomic_read(&tn->inflight) || fnv_probe_out(fd, tn))
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
		 * The device time starts now (blk-stat would stamp it too).
		 * How long it waited since it became the oldest of its
		 * tenant is summed now, not kept in the request: on 6.1
		 * fifo_time shares its room with the csd a completion on
		 * another CPU sends (blk_mq_complete_send_ipi()). A mean
		 * over the dispatches: a requeued sample completes uncounted,
		 * and a period's completions are of earlier dispatches.
		 */
		rq->io_start_time_ns = now;
		if (req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE) {
			tn->head_acc += now > head ? now - head : 0;
			tn->head_nr++;
		}
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
 * The first request at an idle device: the window was idle since the last
 * completion (or its own start), once: a requeue takes inflight to 0
 * without a completion, and the idle time before it was counted already
 * (win_mark). The one clock read the window costs, on a device that was
 * idle only. Requests from fd->bypass are counted in the window but not in
 * inflight: time with only them at the device counts as idle.
 */
static void fnv_win_idle(struct fnv_data *fd)
{
	u64 now = ktime_get_ns();
	u64 from = max3(READ_ONCE(fd->last_done) & ~FNV_DONE_BUSY,
			fd->win_at, fd->win_mark);

	if (fd->win_at && now > from)
		fd->win_idle += now - from;
	fd->win_mark = now;
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
	u64 cost = 0, fine = 0;
	int depth;

	spin_lock(&fd->lock);
	rq = list_first_entry_or_null(&fd->bypass, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		WRITE_ONCE(fd->nr_queued, fd->nr_queued - 1);
		goto unlock;
	}

	if (unlikely(!list_empty(&fd->tabs_held)))
		fnv_tabs_release(fd, false);
	rq = fnv_pick(fd, &cls);
	if (!rq)
		goto unlock;
	if (fnv_rq_flags(rq) & FNV_RQ_TABS)
		tabs_dispatched(&fd->tabs, fnv_tabs_type(rq), blk_rq_bytes(rq));

	tn = fnv_rq_tenant(rq);
	/* what it costs, once: the classes' counts, then the virtual time */
	if (cls == -3 || fd->wrr_mode == FNV_WRR_SOFT)
		fine = fnv_charge(fd, rq);
	/* through a D2FQ class, or the urgent one (io.fairnvme.stat) */
	if (cls >= 0 || cls == -3)
		d2fq_flow_served(&tn->d2, cls == -3 ? D2FQ_URGENT : cls,
				 fnv_charge_bytes(fine));
	if (fd->wrr_mode == FNV_WRR_SOFT) {
		/*
		 * The probe's part, given back at the period's end; a
		 * requeue's was counted at its first dispatch
		 */
		if (tn && cls != -2 && tn->cm_tilt != FNV_CM_TILT_ONE)
			tn->cm_tilt_paid += (s64)fine -
				(s64)fnv_charge_at(fd, rq, FNV_CM_TILT_ONE);
		cost = fnv_charge_carry(tn, fine);
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
	depth = atomic_inc_return(&fd->inflight);
	fnv_rq_set_depth(rq, depth, fd->wrr_mode == FNV_WRR_SOFT ? cost : 0);
	if (depth == 1)
		fnv_win_idle(fd);
	/* the window's mean depth, for the cost model (cost.c) */
	fd->win_dsum += depth;
	fd->win_dnr++;
	if (tn && fd->wrr_mode == FNV_WRR_SOFT)
		fnv_rq_set_flags(rq, fnv_rq_flags(rq) | FNV_RQ_D2FQ);
	if (tn) {
		/*
		 * Sampled by the tenant's own count: the scheduler tag would
		 * alias (a tenant at depth 1 reuses the same tag).
		 */
		u32 k = tn->nr_disp++ % FNV_SAMPLE_EVERY;

		tn->svc += cost;
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
	spin_unlock(&fd->lock);
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
 * submission for one. The limit applies once three quarters of the tags
 * of the hardware queue the request takes its tag from are taken (below):
 * short of that there are tags for everyone, and a limit would only make
 * a deep tenant wait in submission. Its share is of one queue's tags, its
 * count over all of them: a tenant whose tasks run on several CPUs meets
 * it sooner. Over its share, a tenant may only take one
 * of an eighth of the tags, the first of each bitmap word (BFQ: the first
 * one; fnv_shallow_whole says how the depth is given). The tenant is the
 * allocating task's cgroup's (the bio is not known yet); the root
 * cgroup's, which also writes back for everyone, is not limited.
 *
 * Over is past the share, not at it: blk-mq asks once per allocation,
 * and one that waits keeps the limit it was given. A 4 KiB writer at
 * depth 64 beside a 128 KiB one (each write two requests; null_blk,
 * nr_requests 128, t29 d/wr on 6.12), at its share of 64, was limited to
 * 4 tags (a depth meant per word, given for the whole map), which the
 * other tenant held; fio's job thread waited there while its 64 requests
 * completed, and 45 tags were free. The tenant then had nothing queued
 * for up to a second, and came back without credit: 0.40 to 0.45 of the
 * bytes, 0.5 due.
 */
static bool fnv_tags_over(struct fnv_data *fd, struct blk_mq_alloc_data *data)
{
	struct sbitmap *sb = &data->hctx->sched_tags->bitmap_tags.sb;
	u32 w_sum = READ_ONCE(fd->w_sum);
	struct request_queue *q = data->q;
	unsigned int full = sb->depth * 3 / 4;
	struct blkcg_gq *blkg;
	struct fnv_tenant *tn;
	bool over = false;

	/*
	 * Tags to spare in the hardware queue this request takes one from:
	 * the cheap test first (fewer of ours queued and in flight, on all
	 * queues, than that queue's three quarters; it misses tags taken
	 * and not yet inserted, in a plug, as before), then that queue's
	 * own count. An NVMe device has up to a hardware queue per CPU,
	 * each with its nr_requests tags: counted over the device, a tenant
	 * was limited while every queue had most of its tags free (t10 on
	 * two queues: 289 requests of 512 tags, the depth-32 writer limited
	 * to 32 tags a queue, its eight jobs waiting 10 to 14 ms in
	 * submission for them, and every wait a context switch the QD1
	 * reader's share paid for).
	 */
	if (!w_sum || READ_ONCE(fd->nr_queued) + atomic_read(&fd->inflight) <
		      full || sbitmap_weight(sb) < full)
		return false;
	rcu_read_lock();
	blkg = blkg_lookup(css_to_blkcg(task_css(current, io_cgrp_id)), q);
	if (blkg && blkg != q->root_blkg) {
		tn = pd_to_tenant(blkg_to_pd(blkg, &fnv_policy));
		if (tn && READ_ONCE(tn->cfg_weight) < w_sum)
			over = atomic_read(&tn->nr_rqs) >
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
	if (fnv_tags_over(fd, data))
		data->shallow_depth = READ_ONCE(fd->over_depth);
}

/*
 * A shallow depth limits each word of the tag bitmap (6.1), or the whole
 * bitmap: "lib/sbitmap: convert shallow_depth from one word to the whole
 * sbitmap" (6.17) was backported (Debian's 6.12.117 has it), and a
 * kernel's version does not tell which. Asked once at load:
 * a map of 8 words of 8 bits gives 8 bits at a shallow depth of 1 per
 * word, 1 over the whole map. Taken per word on 6.12, the limits were
 * 24 of null_blk's 128 tags for writeback where 96 were meant, and 4 for
 * a tenant over its share where 16 were.
 */
bool fnv_shallow_whole __read_mostly;

static int __init fnv_shallow_probe(void)
{
	struct sbitmap sb;
	int n = 0;
	int ret;

	ret = sbitmap_init_node(&sb, 64, 3, GFP_KERNEL, NUMA_NO_NODE, false,
				true);
	if (ret)
		return ret;
	while (n < 64 && sbitmap_get_shallow(&sb, 1) >= 0)
		n++;
	sbitmap_free(&sb);
	fnv_shallow_whole = n < 8;
	return 0;
}

/* Called by blk_mq_update_nr_requests(), and for each new hctx. */
static void fnv_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct fnv_data *fd = hctx->queue->elevator->elevator_data;
	struct blk_mq_tags *tags = hctx->sched_tags;
	unsigned int depth = fnv_shallow_whole ? tags->bitmap_tags.sb.depth :
			     1U << tags->bitmap_tags.sb.shift;

	WRITE_ONCE(fd->async_depth,
		   max(depth * FNV_ASYNC_PERCENT / 100U, 1U));
	WRITE_ONCE(fd->over_depth, max(depth >> 3, 1U));
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
 * device's previous completion (@prev) to its completion if the device has
 * been busy since (that completion left requests at it: bit 0 of @prev),
 * else from the later of that completion and its own dispatch. On a device
 * that serves one request at a time that is its own time, whatever was
 * ahead of it and in whatever order the device took them. A request
 * dispatched while others were at the device and served before them (QEMU's
 * throttle takes a lone write between queued reads) cost the whole
 * interval: timed from its dispatch it was charged only what was left of
 * the device's slot, and a weight-100 tenant of O_SYNC writes beside a
 * weight-800 reader got 0.158 of the requests instead of 1/9 (t19). Its
 * device time over the requests at the device, or less a mean wait for
 * those ahead, made such a request look cheaper still, and a large request
 * among small ones look like the mean. On a device that serves many at
 * once the intervals are its time over its parallelism, for every request
 * alike: only the ratios of the costs matter.
 */
static u64 fnv_svc_time(struct request *rq, u64 now, u64 prev)
{
	u64 start = prev & FNV_DONE_BUSY ? prev :
		    max(rq->io_start_time_ns, prev);

	return now > start ? now - start : 0;
}

/* fairnvme_complete: what it needs is read only while it is enabled */
static void fnv_trace_complete(struct fnv_data *fd, struct fnv_tenant *tn,
			       struct request *rq, u64 now)
{
	int write = req_op(rq) == REQ_OP_READ ? 0 :
		    req_op(rq) == REQ_OP_WRITE ? 1 : 2;

	trace_fairnvme_complete(disk_devt(fd->q->disk),
				tn ? fnv_tenant_cgid(tn) : 0, write,
				!!(rq->cmd_flags & REQ_FUA),
				fnv_rq_sect(rq) << SECTOR_SHIFT,
				now > rq->start_time_ns ?
				now - rq->start_time_ns : 0);
}

/*
 * The cost model's window (cost.c): what the period completed, per type,
 * counted as the request was charged: a read or a write by its sectors at
 * dispatch (@ours: fnv_rq_sect()), any other command as one write command,
 * a request that passed the elevator or was dispatched around it (flushes;
 * FUA writes on 6.1) as one command of its type, its sectors unknown here. Completions,
 * not dispatches: a window of dispatches was off by what the device held
 * at its edges, up to max_inflight requests (64 KiB reads at 16 MB/s
 * behind a trial's depth of 32: more than the window's own work).
 */
static void fnv_cm_done(struct fnv_data *fd, struct request *rq, bool ours)
{
	u64 v = 1ULL << FNV_CM_DONE_SHIFT;
	bool by_sect;
	int t = fnv_cm_type(rq, &by_sect);

	if (ours && by_sect)
		v |= fnv_rq_sect(rq);
	atomic64_add(v, &fd->cm_done[t]);
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

	/*
	 * A plain store, on the line completions write anyway: the time
	 * rounded up to even (never before sync_done, see fnv_held()), odd
	 * if this completion leaves requests at the device, for
	 * fnv_svc_time(). A request we dispatched is still counted in
	 * inflight (fnv_finish_request() comes after this).
	 */
	prev = READ_ONCE(fd->last_done);
	if (now > prev) {
		bool counted = (rq->rq_flags & FNV_RQF_SCHED) &&
			       (fnv_rq_flags(rq) & FNV_RQ_INFLIGHT);

		WRITE_ONCE(fd->last_done, ((now + 1) & ~FNV_DONE_BUSY) |
			   (atomic_read(&fd->inflight) > counted));
	}
	if (!(rq->rq_flags & FNV_RQF_SCHED)) {
		/* rq->elv is not ours: a request that passed the elevator */
		WRITE_ONCE(fd->bypass_done, READ_ONCE(fd->bypass_done) + 1);
		fnv_cm_done(fd, rq, false);
		return;
	}
	/* ours: dispatched by us, or retried after fnv_requeue() */
	fnv_cm_done(fd, rq, (fnv_rq_flags(rq) & FNV_RQ_INFLIGHT) ||
		    fnv_rq_sect(rq));
	tn = fnv_rq_tenant(rq);
	/* only what we dispatched: not a flush sequence's data request */
	if (trace_fairnvme_complete_enabled() &&
	    (fnv_rq_flags(rq) & FNV_RQ_INFLIGHT))
		fnv_trace_complete(fd, tn, rq, now);
	/* TABS: sectors as dispatched (the request is done with its bytes) */
	if (fnv_rq_flags(rq) & FNV_RQ_TABS) {
		atomic64_add((1ULL << FNV_TABS_NR_SHIFT) |
			     (fnv_rq_sect(rq) << SECTOR_SHIFT),
			     &fd->tabs_done[fnv_tabs_type(rq)]);
		fnv_tabs_out(tn, fnv_tabs_type(rq), -1);
	}
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
		WRITE_ONCE(fd->sync_cgid, fnv_tenant_cgid(tn));
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
	atomic64_add(dev, &tn->acc_dev);
	atomic64_add(fnv_svc_time(rq, now, prev), &tn->acc_svc[t]);
	atomic64_add(fnv_rq_sect(rq), &tn->acc_sect[t]);
	atomic_inc(&tn->acc_nr[t]);
	if (t && (rq->cmd_flags & REQ_FUA))
		atomic_inc(&tn->acc_fua);
}

/* The request left the device (completed, or given back): out of inflight */
static void fnv_inflight_done(struct request *rq)
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
	u64 step = d2fq_vt_delta(fnv_rq_charged(rq), READ_ONCE(tn->d2.weight));
	u64 vt = atomic64_add_return(step, &tn->d2.vt);

	/* the holder raises gvt in steps of tau_l / 16 */
	d2fq_gvt_update(&fd->gvt, tn->d2.id, vt, step,
			(u64)READ_ONCE(fd->tau_l_bytes) << (D2FQ_VT_SHIFT - 4));
	/*
	 * A removed cgroup's tenant lets go at once (fnv_pd_offline() did,
	 * but this completion may have taken gvt after it): it is, or soon
	 * will be, off the active list, no period walk would release it and
	 * gvt would freeze. The update's cmpxchg orders the read after it.
	 */
	if (unlikely(READ_ONCE(tn->offline)))
		d2fq_gvt_release(&fd->gvt, tn->d2.id);
}

/*
 * Called when the request is freed: completed (a retry after fnv_requeue()
 * too), or merged into another.
 */
static void fnv_finish_request(struct request *rq)
{
	struct fnv_tenant *tn = fnv_rq_tenant(rq);
	unsigned long flags = fnv_rq_flags(rq);

	/* Freed while still queued: our lists would now be corrupt. */
	WARN_ON_ONCE(flags & (FNV_RQ_FIFO | FNV_RQ_HEAD | FNV_RQ_HELD));

	if (tn && (flags & (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ)) ==
		  (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ))
		fnv_d2fq_complete(rq, tn);
	fnv_inflight_done(rq);
	if (tn) {
		rq->elv.priv[0] = NULL;
		atomic_dec(&tn->nr_rqs);
		blkg_put(tn->pd.blkg);
	}
}

/*
 * .requeue_request: the driver gave the request back (nvme does on a
 * retryable error status and on a controller reset).
 *
 * Where the driver set RQF_DONTPREP, as nvme does, blk-mq retries it from
 * the hardware queue's dispatch list, around the scheduler: it never comes
 * back through insert. The request is then finished here, once, as BFQ
 * and kyber finish it: TABS counts it done, its tenant's virtual time is
 * charged what it was charged at dispatch, and it leaves inflight. Its
 * flags go, its size stays: the retry's completion counts in the cost
 * model's window with its sectors (fnv_completed_request()) and nothing
 * else, and its finish only lets go of the tenant, which keeps the request
 * (and its scheduler tag) counted until then.
 *
 * Without RQF_DONTPREP it is inserted again, at the head: only what it
 * holds at the device is undone (inflight, TABS' count), and it is
 * charged once, at its next dispatch (wrr_mode off: at its first).
 */
static void fnv_requeue(struct request *rq)
{
	struct fnv_data *fd = rq->q->elevator->elevator_data;
	struct fnv_tenant *tn = fnv_rq_tenant(rq);
	unsigned long flags = fnv_rq_flags(rq);

	if (flags & FNV_RQ_TABS) {
		atomic64_add(1ULL << FNV_TABS_NR_SHIFT,
			     &fd->tabs_done[fnv_tabs_type(rq)]);
		fnv_tabs_out(tn, fnv_tabs_type(rq), -1);
		fnv_rq_set_flags(rq, flags & ~FNV_RQ_TABS);
	}
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		fnv_inflight_done(rq);
		return;
	}
	if (tn && (flags & (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ)) ==
		  (FNV_RQ_INFLIGHT | FNV_RQ_D2FQ))
		fnv_d2fq_complete(rq, tn);
	fnv_inflight_done(rq);
	fnv_rq_set_flags(rq, 0);
}

static bool fnv_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct fnv_data *fd = q->elevator->elevator_data;
	struct request *free = NULL;
	bool ret;

	/*
	 * Nothing queued, nothing to merge into: no lock. A request queued
	 * meanwhile only misses a merge, which is an optimisation.
	 */
	if (!READ_ONCE(fd->nr_queued))
		return false;
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

	/* never merged: FUA writes are REQ_NOMERGE_FLAGS, and not hashed */
	if (WARN_ON_ONCE(nflags & FNV_RQ_HELD))
		return;
	if (!(nflags & (FNV_RQ_FIFO | FNV_RQ_HEAD)))
		return;	/* merged at insertion, never queued */
	if (nflags & FNV_RQ_TABS) {
		tabs_finished(&fd->tabs, fnv_tabs_type(next));
		fnv_tabs_out(fnv_rq_tenant(next), fnv_tabs_type(next), -1);
		fnv_rq_set_flags(next, nflags & ~FNV_RQ_TABS);
	}

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
	INIT_LIST_HEAD(&fd->urgent);
	INIT_LIST_HEAD(&fd->bypass);
	INIT_LIST_HEAD(&fd->tabs_held);
	atomic_set(&fd->inflight, 0);
	fd->ctl = fnv_ctl_defaults;
	fnv_tunables_init(fd);
	/* nothing to hold where FUA writes pass every elevator (6.1) */
	if (!FNV_FUA_SCHEDULED)
		fd->tabs_on = 0;
	fnv_tabs_params(fd);
	tabs_init(&fd->tabs, ktime_get_ns());
	fd->depth = 1;			/* auto: measure dev_floor first */
	fd->hold_depth = 1;
	fd->slot_depth = 1;
	fd->tau_l_bytes = FNV_TAU_L_DEF;
	fd->rate_at = ktime_get_ns();
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
	init_llist_head(&fd->offlined);
	INIT_WORK(&fd->off_work, fnv_offline_work);
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
	/* from here a removed cgroup's tenant goes to fnv_offline_work() */
	spin_lock_irq(&q->queue_lock);
	fd->live = true;
	spin_unlock_irq(&q->queue_lock);

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

	/*
	 * No removed cgroup's tenant is queued for fnv_offline_work() from
	 * here (fnv_pd_offline() runs under queue_lock); those queued before
	 * are handled now, in case the work was cancelled.
	 */
	spin_lock_irq(&fd->q->queue_lock);
	fd->live = false;
	spin_unlock_irq(&fd->q->queue_lock);
	cancel_work_sync(&fd->off_work);
	cancel_delayed_work_sync(&fd->ctl_work);
	fnv_offline_drain(fd);
	spin_lock(&fd->lock);
	fnv_d2fq_clear(fd, NULL);	/* parked tenants only, or a bug */
	WARN_ON_ONCE(fd->nr_queued || fd->sched.nr_backlogged ||
		     !list_empty(&fd->tabs_held));
	fnv_sched_drain(&fd->sched);
	list_for_each_entry_safe(tn, next, &fd->active, active_node)
		fnv_tenant_leave(tn);
	spin_unlock(&fd->lock);
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

struct elevator_type fnv_elevator = {
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
		.requeue_request	= fnv_requeue,
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
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = fnv_debugfs_attrs,
#endif
	.elevator_name = "fairnvme",
	.elevator_owner = THIS_MODULE,
};

static int __init fnv_init(void)
{
	int ret;

	/* rq->elv.priv[1]'s fields (fairnvme.h) fit, in order, in a long */
	BUILD_BUG_ON(FNV_RQ_FLAGS >= 1UL << FNV_RQ_DEPTH_SHIFT);
	BUILD_BUG_ON(FNV_RQ_DEPTH_SHIFT + ilog2(FNV_RQ_DEPTH_MASK + 1) >
		     FNV_RQ_SECT_SHIFT);
	BUILD_BUG_ON(FNV_RQ_SECT_SHIFT + ilog2(FNV_RQ_SECT_MASK + 1) >
		     FNV_RQ_COST_SHIFT);
	BUILD_BUG_ON(FNV_RQ_COST_SHIFT + ilog2(FNV_RQ_SECT_MASK + 1) >
		     BITS_PER_LONG);
	ret = fnv_shallow_probe();
	if (ret)
		return ret;
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

MODULE_ALIAS("fairnvme-iosched");
MODULE_AUTHOR("The fairnvme developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Weighted fair I/O scheduler for NVMe devices shared by cgroups");
MODULE_VERSION(FNV_VERSION);

