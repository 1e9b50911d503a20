/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: rate trials of the automatic dispatch depth (policy core).
 *
 * Free of blk-mq types: the control period feeds it the depth in force,
 * the depth its device-time rule wants, and the period's sampled
 * completions and length; it returns the depth to set. The user-space
 * unit tests feed it synthetic devices.
 */
#ifndef _FAIRNVME_DEPTH_H
#define _FAIRNVME_DEPTH_H

#include <linux/types.h>

/*
 * Auto depth, rate trials (fnv_depth_probe()), in control periods: a
 * window to measure a depth's completion rate over (at least FNV_PROBE_NR
 * periods and FNV_PROBE_MIN_NR sampled completions, at most 4 *
 * FNV_PROBE_NR periods); the limited periods before the first trial at
 * max_inflight, after one that gained nothing (doubled each time, up to
 * FNV_PROBE_WAIT_MAX); the periods before a kept depth is tried by half
 * (doubled after each half that lost rate, up to FNV_PROBE_KEEP_MAX).
 * A trial at max_inflight makes a request wait behind that many at a
 * device that queues them: at 2000 IOPS and the defaults, about 0.8 s
 * each 320 s once the trials keep failing, 0.25 % of the time.
 */
#define FNV_PROBE_NR		4U
#define FNV_PROBE_MIN_NR	400U
#define FNV_PROBE_FIRST		100U
#define FNV_PROBE_WAIT		200U
#define FNV_PROBE_WAIT_MAX	3200U
#define FNV_PROBE_KEEP		50U
#define FNV_PROBE_KEEP_MAX	320U

/* a window of a depth's completions (sampled) and time (us) */
struct fnv_rate {
	u64 nr, dt;
	u32 n;				/* periods */
};

struct fnv_dprobe {
	struct fnv_rate base;		/* at the depth held */
	struct fnv_rate trial;		/* at the depth on trial */
	struct fnv_rate ref;		/* at max_inflight, the last measured */
	u32 from, to;			/* trial: from, to depth (0: none) */
	bool up;			/* ... to max_inflight */
	u32 set;			/* the depth this set last */
	u32 keep, keep_left;		/* least depth, periods until tried */
	u32 keep_next;			/* ... the next time */
	u32 wait, wait_next;		/* periods until the next max trial */
};

u32 fnv_depth_probe(struct fnv_dprobe *pr, u32 d, u32 want, u64 nr,
		    u64 dt_us, bool limited, u32 lim, u32 dmin);
u32 fnv_depth_probe_solo(struct fnv_dprobe *pr);

#endif /* _FAIRNVME_DEPTH_H */
