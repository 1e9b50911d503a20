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
 * Auto depth, rate trials (fnv_depth_probe()): a window of limited periods
 * to measure a depth's completion rate over (at least FNV_PROBE_NR periods
 * and FNV_PROBE_MIN_NR sampled completions, at most 4 * FNV_PROBE_NR
 * periods), the periods before a depth that proved its rate is tried by
 * half again (doubled after each half that lost rate), and the periods
 * between trials at max_inflight (doubled after each that gained nothing,
 * up to the last).
 */
#define FNV_PROBE_NR		4U
#define FNV_PROBE_MIN_NR	400U
#define FNV_PROBE_KEEP		50U
#define FNV_PROBE_WAIT		20U
#define FNV_PROBE_WAIT_MAX	320U

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
