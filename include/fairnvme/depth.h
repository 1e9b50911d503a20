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
 * periods and FNV_PROBE_MIN_NR sampled completions, at most
 * FNV_PROBE_MAX_NR periods: under TCG a 4-period window's rate was off by
 * a tenth often enough to fail a trial that gained 30 %); the limited
 * periods before the first trial at max_inflight, after one that gained
 * nothing (doubled each time, up to FNV_PROBE_WAIT_MAX), after a first
 * window that gained 17/16 but not 9/8 (once per step of that backoff:
 * FNV_PROBE_RETRY); the periods before a kept depth is tried by half
 * (doubled after each half that lost rate, up to FNV_PROBE_KEEP_MAX);
 * the periods a trial that keeps must keep it for (one window's rate was
 * off by a tenth under TCG, and halves kept on one window each took t26's
 * depth from 32 to 8 in 2 s; a deep queue kept the weights' effect in one
 * window, and lost it over the next).
 * A trial at max_inflight makes a request wait behind that many at a
 * device that queues them: at 2000 IOPS and the defaults, about 0.8 s
 * (one that fails its first window) each 320 s once the trials keep
 * failing, 0.25 % of the time; twice that where each first window comes
 * close to 9/8 (17/16 or more), and is tried again.
 */
#define FNV_PROBE_NR		8U
#define FNV_PROBE_MAX_NR	16U
#define FNV_PROBE_HALF_NR	32U
#define FNV_PROBE_MIN_NR	400U
#define FNV_PROBE_FIRST		100U
#define FNV_PROBE_WAIT		200U
#define FNV_PROBE_RETRY		20U
#define FNV_PROBE_WAIT_MAX	3200U
#define FNV_PROBE_KEEP		50U
#define FNV_PROBE_KEEP_MAX	320U

/*
 * Fairness of a window, as the control period measures it: how much of the
 * weights' effect the service dispatched since the window began kept,
 * FNV_FAIR_ONE when it followed the weights, 0 when it ignored them (up to
 * 2 FNV_FAIR_ONE; among equal weights, how close the shares came to
 * them); FNV_FAIR_NONE when fewer than two tenants were served. The probe
 * sets mark when a window begins: the caller's count starts over with the
 * next period. A
 * trial's depth is kept only if it keeps as much, within FNV_FAIR_SLACK:
 * a deeper queue leaves the order to the device, and tenants of weights
 * 100 and 300, 32 QD1 readers each, got 0.48 and 0.52 of the IOPS at
 * max_inflight (0.30 and 0.70 at the time's depth).
 */
#define FNV_FAIR_ONE		1024U
#define FNV_FAIR_SLACK		128U
#define FNV_FAIR_NONE		(~0U)

/* a control period, as fnv_depth_probe() is fed it */
struct fnv_dperiod {
	u64 nr;				/* sampled completions */
	u64 dt_us;			/* its length */
	u64 cap_us;			/* ... counted up to this (0: all) */
	u32 fair;			/* since mark: 0 .. 2 * _ONE, or _NONE */
	bool limited;			/* the depth held requests back */
};

/* a window of a depth's completions (sampled), time (us) and fairness */
struct fnv_rate {
	u64 nr, dt;
	u32 fair;			/* the window's, as of its last period */
	u32 n;				/* periods */
	u32 fn;				/* ... with a fairness */
};

struct fnv_dprobe {
	struct fnv_rate base;		/* at the depth held */
	u32 base_lo, base_hi;		/* ... its least and largest */
	struct fnv_rate trial;		/* at the depth on trial */
	struct fnv_rate ref;		/* at max_inflight, the last measured */
	struct fnv_rate was;		/* ... and the base it was judged by */
	u32 from, to;			/* trial: from, to depth (0: none) */
	bool up;			/* ... to max_inflight */
	bool first;			/* ... in its first window */
	bool retry;			/* the next one comes soon, once */
	u32 set;			/* the depth this set last */
	u32 keep, keep_left;		/* least depth, periods until tried */
	u32 keep_next;			/* ... the next time */
	u32 wait, wait_next;		/* periods until the next max trial */
	u32 calm;			/* periods in a row not limited */
	bool mark;			/* a window begins: see FNV_FAIR_ONE */
	/* for debugfs: the last period's fairness, upward trials, kept */
	u32 last_fair, nr_up, nr_kept;
};

/*
 * The device's time for one request alone (dev_floor), which the depth's
 * latency rule targets FNV_DEPTH_MULT times: fnv_depth_floor().
 */
#define FNV_DEPTH_MULT		2
/* lone requests a period needs before their mean may lower the floor */
#define FNV_DEV1_MIN_NR		4
/* a raised floor comes back towards the lone requests' by 1/16 a period */
#define FNV_FLOOR_BACK_SHIFT	4

struct fnv_dfloor {
	u64 lone;			/* ns: the lone requests' (0: none yet) */
	bool at_min;			/* the last period ran at the least depth */
};

u64 fnv_depth_floor(struct fnv_dfloor *f, u64 floor, u32 n1, u64 sum1,
		    u64 dev_mean, bool at_min, bool judge);

u32 fnv_depth_probe(struct fnv_dprobe *pr, u32 d, u32 want,
		    const struct fnv_dperiod *per, u32 lim, u32 dmin);
u32 fnv_depth_probe_solo(struct fnv_dprobe *pr);

#endif /* _FAIRNVME_DEPTH_H */
