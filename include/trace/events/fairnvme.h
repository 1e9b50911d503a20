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
 * @cost:	cost charged for this request (bytes + req_cost_bytes)
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

#endif /* _TRACE_FAIRNVME_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trace/events
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fairnvme
#include <trace/define_trace.h>
