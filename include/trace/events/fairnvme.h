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
 * @vtime:	tenant's virtual time (cost units at weight 100) after charge
 * @budget:	tenant's budget left in the current cycle (negative: debt)
 * @cost:	cost charged for this request (ns or bytes, see cost_model)
 * @cycle:	budget cycle number
 * @inflight:	requests at the device after this dispatch
 * @at_head:	1 if the request was a requeue/at-head insertion
 */
TRACE_EVENT(fairnvme_dispatch,

	TP_PROTO(dev_t dev, u64 cgid, u32 weight, u64 vtime, s64 budget,
		 u64 cost, u32 cycle, int inflight, bool at_head),

	TP_ARGS(dev, cgid, weight, vtime, budget, cost, cycle, inflight, at_head),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, cgid)
		__field(u64, vtime)
		__field(s64, budget)
		__field(u64, cost)
		__field(u32, weight)
		__field(u32, cycle)
		__field(int, inflight)
		__field(bool, at_head)
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
		__entry->at_head = at_head;
	),

	TP_printk("%d,%d cgid=%llu weight=%u vtime=%llu budget=%lld cost=%llu cycle=%u inflight=%d%s",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->cgid, __entry->weight,
		  (unsigned long long)__entry->vtime,
		  (long long)__entry->budget,
		  (unsigned long long)__entry->cost, __entry->cycle,
		  __entry->inflight, __entry->at_head ? " head" : "")
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

#endif /* _TRACE_FAIRNVME_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trace/events
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fairnvme
#include <trace/define_trace.h>
