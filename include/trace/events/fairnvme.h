/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fairnvme

#if !defined(_TRACE_FAIRNVME_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_FAIRNVME_H

#include <linux/tracepoint.h>

/*
 * fairnvme_dispatch - a request leaves the scheduler for the device
 * @dev:	device (MKDEV of the disk)
 * @cgid:	cgroup id of the tenant (bpftrace: cgroup_path(args->cgid))
 * @weight:	weight the tenant is scheduled with
 * @vtime:	wrr_mode=off: tenant's virtual time (cost units at weight
 *		100) after charge; soft: D2FQ virtual time (1/256 byte per
 *		unit of weight, advanced at completion)
 * @budget:	tenant's budget left in the current cycle (negative: debt;
 *		0 in wrr_mode=soft)
 * @cost:	cost charged for this request (ns or bytes, see cost_model)
 * @cycle:	budget cycle number
 * @inflight:	requests at the device after this dispatch
 * @cls:	D2FQ class it was served through (1 high, 2 medium, 3 low),
 *		-1 by the budget cycles (wrr_mode=off), -2 for a
 *		requeue/at-head insertion, -3 from the urgent list
 */
TRACE_EVENT(fairnvme_dispatch,

	TP_PROTO(dev_t dev, u64 cgid, u32 weight, u64 vtime, s64 budget,
		 u64 cost, u32 cycle, int inflight, int cls),

	TP_ARGS(dev, cgid, weight, vtime, budget, cost, cycle, inflight, cls),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(u64, vtime)
		__field(s64, budget)
		__field(u64, cost)
		__field(u32, weight)
		__field(u32, cycle)
		__field(int, inflight)
		__field(int, cls)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->cgid = cgid;
		__entry->vtime = vtime;
		__entry->budget = budget;
		__entry->cost = cost;
		__entry->weight = weight;
		__entry->cycle = cycle;
		__entry->inflight = inflight;
		__entry->cls = cls;
	),

	TP_printk("%d,%d cgid=%llu weight=%u vtime=%llu budget=%lld cost=%llu cycle=%u inflight=%d class=%s",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid, __entry->weight,
		  (unsigned long long)__entry->vtime,
		  (long long)__entry->budget,
		  (unsigned long long)__entry->cost, __entry->cycle,
		  __entry->inflight,
		  __print_symbolic(__entry->cls, { -3, "urgent" }, { -2, "head" }, { -1, "budget" },
				   { 0, "urgent" }, { 1, "high" },
				   { 2, "medium" }, { 3, "low" }))
);

#define fnv_show_state(s)						\
	__print_symbolic(s, { 0, "idle" }, { 1, "balanced" },		\
			 { 2, "unbalanced" }, { 3, "saturated" })

/*
 * fairnvme_state - a tenant's state changed at the end of a control period
 * @mult:	effective weight / configured weight, in 1/1000
 * @weight:	effective weight (configured * mult)
 * @lat_us:	mean latency of the period (completion - insertion)
 * @thresh_us:	Thresh_cur after the period's action
 */
TRACE_EVENT(fairnvme_state,

	TP_PROTO(dev_t dev, u64 cgid, int old, int new, u32 mult, u32 weight,
		 u64 lat_us, u64 thresh_us),

	TP_ARGS(dev, cgid, old, new, mult, weight, lat_us, thresh_us),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(u64, lat_us)
		__field(u64, thresh_us)
		__field(int, old)
		__field(int, new)
		__field(u32, mult)
		__field(u32, weight)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->cgid = cgid;
		__entry->lat_us = lat_us;
		__entry->thresh_us = thresh_us;
		__entry->old = old;
		__entry->new = new;
		__entry->mult = mult;
		__entry->weight = weight;
	),

	TP_printk("%d,%d cgid=%llu %s -> %s mult=%u weight=%u lat_us=%llu thresh_cur_us=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid,
		  fnv_show_state(__entry->old), fnv_show_state(__entry->new),
		  __entry->mult, __entry->weight,
		  (unsigned long long)__entry->lat_us,
		  (unsigned long long)__entry->thresh_us)
);

/*
 * fairnvme_refill - a tenant was given its budget for a new cycle
 * @weight:	scheduling weight the quantum was computed with
 * @budget:	budget after the refill (cost units: ns or bytes)
 */
TRACE_EVENT(fairnvme_refill,

	TP_PROTO(dev_t dev, u64 cgid, u32 cycle, u32 weight, s64 budget),

	TP_ARGS(dev, cgid, cycle, weight, budget),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(s64, budget)
		__field(u32, cycle)
		__field(u32, weight)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->cgid = cgid;
		__entry->budget = budget;
		__entry->cycle = cycle;
		__entry->weight = weight;
	),

	TP_printk("%d,%d cgid=%llu cycle=%u weight=%u budget=%lld",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid, __entry->cycle,
		  __entry->weight, (long long)__entry->budget)
);

/**
 * fairnvme_hl - the D2FQ period changed the H/L ratio
 * @dev:	device
 * @old:	H/L ratio before
 * @new:	H/L ratio after (weights then new : sqrt(new) : 1)
 * @gap_max:	largest vt - gvt of an active tenant (vt units)
 * @d_max:	that tenant's vt advance in the period
 * @d_min:	vt advance of the tenant nearest gvt in the period
 * @sd_max:	largest virtual slowdown (Eq. 3), in 1/1000
 * @raised:	1: the gap exceeded tau_w and Eq. 2 applied; 0: Eq. 3
 */
TRACE_EVENT(fairnvme_hl,

	TP_PROTO(dev_t dev, u32 old, u32 new, s64 gap_max, u64 d_max,
		 u64 d_min, u64 sd_max, bool raised),

	TP_ARGS(dev, old, new, gap_max, d_max, d_min, sd_max, raised),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(s64, gap_max)
		__field(u64, d_max)
		__field(u64, d_min)
		__field(u64, sd_max)
		__field(u32, old)
		__field(u32, new)
		__field(bool, raised)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->gap_max = gap_max;
		__entry->d_max = d_max;
		__entry->d_min = d_min;
		__entry->sd_max = sd_max;
		__entry->old = old;
		__entry->new = new;
		__entry->raised = raised;
	),

	TP_printk("%d,%d hl=%u->%u %s gap_max=%lld d_max=%llu d_min=%llu slowdown_max=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->old,
		  __entry->new, __entry->raised ? "eq2" : "eq3",
		  (long long)__entry->gap_max,
		  (unsigned long long)__entry->d_max,
		  (unsigned long long)__entry->d_min,
		  (unsigned long long)__entry->sd_max)
);

/*
 * fairnvme_class - a waiting tenant moved to another D2FQ class
 * @dev:	device
 * @cgid:	cgroup id of the tenant
 * @old:	class before (1 high, 2 medium, 3 low)
 * @new:	class after
 * @gap:	tenant's vt - gvt that decided it (vt units; the class
 *		boundaries: see D2FQ in the docs)
 * @weight:	weight the tenant is scheduled with
 * @why:	0 at its dispatch (class of its next request), 1 the control
 *		period's re-class, 2 raised by the arbiter's scan
 */
TRACE_EVENT(fairnvme_class,

	TP_PROTO(dev_t dev, u64 cgid, int old, int new, s64 gap, u32 weight,
		 int why),

	TP_ARGS(dev, cgid, old, new, gap, weight, why),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(s64, gap)
		__field(int, old)
		__field(int, new)
		__field(u32, weight)
		__field(int, why)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->cgid = cgid;
		__entry->gap = gap;
		__entry->old = old;
		__entry->new = new;
		__entry->weight = weight;
		__entry->why = why;
	),

	TP_printk("%d,%d cgid=%llu class %d->%d gap=%lld weight=%u %s",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid, __entry->old,
		  __entry->new, (long long)__entry->gap, __entry->weight,
		  __print_symbolic(__entry->why, { 0, "dispatch" },
				   { 1, "period" }, { 2, "scan" }))
);

/*
 * fairnvme_complete - a request the scheduler dispatched completed
 * @dev:	device
 * @cgid:	cgroup id of the tenant (0: none, a request without a tenant)
 * @write:	0 read, 1 write, 2 other (flush, discard, ...)
 * @fua:	1 for a FUA write
 * @bytes:	size at dispatch
 * @lat_ns:	its latency: completion - allocation (the wait in the
 *		scheduler and at the device)
 *
 * For per-tenant latency histograms (tools/bpftrace/fairnvme-latency.bt).
 * Nothing is computed for it unless it is enabled.
 */
TRACE_EVENT(fairnvme_complete,

	TP_PROTO(dev_t dev, u64 cgid, int write, int fua, u32 bytes,
		 u64 lat_ns),

	TP_ARGS(dev, cgid, write, fua, bytes, lat_ns),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(u64, lat_ns)
		__field(u32, bytes)
		__field(int, write)
		__field(int, fua)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->cgid = cgid;
		__entry->lat_ns = lat_ns;
		__entry->bytes = bytes;
		__entry->write = write;
		__entry->fua = fua;
	),

	TP_printk("%d,%d cgid=%llu %s%s bytes=%u lat_us=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid,
		  __print_symbolic(__entry->write, { 0, "read" },
				   { 1, "write" }, { 2, "other" }),
		  __entry->fua ? "+fua" : "", __entry->bytes,
		  (unsigned long long)__entry->lat_ns / 1000)
);

/**
 * fairnvme_tabs - TABS changed phase or throttling factor (tabs.c)
 * @dev:	device
 * @phase:	0 IDLE (counting, nothing held), 1 SCHED (FUA writes held)
 * @alpha:	FUA writes let go per read dispatched, in 1/1024
 * @i_read:	I_read SCHED started from: the tenants' weights split by
 *		their outstanding reads and FUA writes, summed over IDLE's
 *		control periods (the outstanding counts without tenants)
 * @i_fua:	I_fua, likewise
 * @fbw_read:	fair bandwidth of reads (Eq. 1), bytes/s; 0 if BWmax unknown
 * @fbw_fua:	fair bandwidth of FUA writes, bytes/s
 * @bw_read:	reads' bandwidth in the last epoch, bytes/s
 * @bw_fua:	FUA writes' bandwidth in the last epoch, bytes/s
 * @fairness:	Eq. 2 of the last epoch in 1/1000, inverted above 1
 */
TRACE_EVENT(fairnvme_tabs,

	TP_PROTO(dev_t dev, int phase, u32 alpha, u64 i_read, u64 i_fua,
		 u64 fbw_read, u64 fbw_fua, u64 bw_read, u64 bw_fua,
		 u32 fairness),

	TP_ARGS(dev, phase, alpha, i_read, i_fua, fbw_read, fbw_fua, bw_read,
		bw_fua, fairness),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, i_read)
		__field(u64, i_fua)
		__field(u64, fbw_read)
		__field(u64, fbw_fua)
		__field(u64, bw_read)
		__field(u64, bw_fua)
		__field(u32, alpha)
		__field(u32, fairness)
		__field(int, phase)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->i_read = i_read;
		__entry->i_fua = i_fua;
		__entry->fbw_read = fbw_read;
		__entry->fbw_fua = fbw_fua;
		__entry->bw_read = bw_read;
		__entry->bw_fua = bw_fua;
		__entry->alpha = alpha;
		__entry->fairness = fairness;
		__entry->phase = phase;
	),

	TP_printk("%d,%d phase=%s alpha=%u/1024 I=%llu/%llu fbw=%llu/%llu bw=%llu/%llu fairness=%u/1000",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  __entry->phase ? "sched" : "idle", __entry->alpha,
		  (unsigned long long)__entry->i_read,
		  (unsigned long long)__entry->i_fua,
		  (unsigned long long)__entry->fbw_read,
		  (unsigned long long)__entry->fbw_fua,
		  (unsigned long long)__entry->bw_read,
		  (unsigned long long)__entry->bw_fua, __entry->fairness)
);

#endif /* _TRACE_FAIRNVME_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trace/events
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fairnvme
#include <trace/define_trace.h>
