/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: TABS, per-type fair bandwidth between reads and FUA writes
 * (policy core; the model is described at the top of tabs.c).
 *
 * Free of blk-mq types: the kernel tells it what happens to each request
 * (inserted, dispatched, completed, finished), asks it whether a FUA write
 * is held and when a held one may go, and runs tabs_tick() every control
 * period; the user-space unit tests do the same with synthetic devices.
 * Times are ns passed by the caller, who also serializes every call.
 */
#ifndef _FAIRNVME_TABS_H
#define _FAIRNVME_TABS_H

#include <linux/types.h>

/* Request types. Other writes (and discards...) are never held. */
enum tabs_type {
	TABS_READ,
	TABS_FUA,
	TABS_WRITE,
	TABS_NR_TYPES,
};

/* The parties to Eq. 1 and 2: TABS_READ and TABS_FUA. */
#define TABS_NR_FAIR		2

enum tabs_phase {
	TABS_IDLE,		/* counting issued requests, nothing held */
	TABS_SCHED,		/* FUA writes held, released by credit */
};

/* Why tabs_may_release() let a FUA write go (counted in nr_released). */
enum tabs_release {
	TABS_REL_IDLE,		/* IDLE phase: the delay queue drains */
	TABS_REL_LONE,		/* no read of its tenant outstanding */
	TABS_REL_CREDIT,	/* credit of dispatched reads */
	TABS_REL_FORCED,	/* held max_wait_ms */
	TABS_NR_REL,
};

/* Tunables (validated by the caller against these ranges). */
#define TABS_DEF_RESET_MS	500
#define TABS_MIN_RESET_MS	10
#define TABS_MAX_RESET_MS	60000
#define TABS_DEF_THRESHOLD	64
#define TABS_MIN_THRESHOLD	1
#define TABS_MAX_THRESHOLD	1000000
#define TABS_DEF_EPOCH_MS	1000
#define TABS_MIN_EPOCH_MS	10
#define TABS_MAX_EPOCH_MS	60000
#define TABS_DEF_SCHED_MS	10000
#define TABS_MIN_SCHED_MS	100
#define TABS_MAX_SCHED_MS	3600000
#define TABS_DEF_MAX_WAIT_MS	1000
#define TABS_MIN_MAX_WAIT_MS	1
#define TABS_MAX_MAX_WAIT_MS	10000
/* BWmax, bytes/s: 0 = auto (measured); at most 1 TiB/s */
#define TABS_DEF_BWMAX		0
#define TABS_MIN_BWMAX		0
#define TABS_MAX_BWMAX		1099511627776ULL	/* 2^40 */

struct tabs_params {
	u32 reset_ms;		/* IDLE: counting period */
	u32 threshold;		/* issued in one reset period to start SCHED */
	u32 epoch_ms;		/* SCHED: feedback period */
	u32 sched_ms;		/* SCHED: length before counting again */
	u32 max_wait_ms;	/* the most a FUA write is held */
	u64 bwmax[TABS_NR_FAIR];	/* BWmax_x, bytes/s; 0 = auto */
};

/*
 * The throttling factor alpha: FUA writes released per read dispatched,
 * in 1/TABS_ALPHA_ONE, from 1/1024 to 1024.
 */
#define TABS_ALPHA_SHIFT	10
#define TABS_ALPHA_ONE		1024U	/* 1 << TABS_ALPHA_SHIFT */
#define TABS_ALPHA_MIN		1U
#define TABS_ALPHA_MAX		1048576U	/* 1024 << TABS_ALPHA_SHIFT */
/*
 * Feedback: with both FBW known, an epoch whose fairness factor (Eq. 2) is
 * below TABS_FEEDBACK_PCT % moves alpha by q_read / q_fua (q_x = BW_x /
 * FBW_x), bounded to 1/TABS_RATIO_MAX..TABS_RATIO_MAX (tabs.c, 5.); with
 * one, the paper's rule: a type below TABS_FEEDBACK_PCT % of its FBW
 * moves alpha by its change ratio BW / FBW, floored at 1/16
 * (TABS_RATIO_MIN, in 1/TABS_ALPHA_ONE). One bad epoch (a type that got
 * nothing through) moves alpha by at most 16 times. 90 %, the paper's
 * threshold: where the tenants' weights already give each type its
 * share (a FUA-only tenant beside a read-only one), TABS acts only on a
 * gap wider than its own BWmax and epoch noise, and the weights decide.
 */
#define TABS_FEEDBACK_PCT	90
#define TABS_RATIO_MAX		16U
#define TABS_RATIO_MIN		(TABS_ALPHA_ONE / TABS_RATIO_MAX)
/* BWmax auto: a lower measurement moves it down by 1/64 of the gap. */
#define TABS_BWMAX_DOWN_SHIFT	6
/* Intervals and epochs shorter than this (ns) measure nothing. */
#define TABS_MIN_INTERVAL_NS	1000000ULL
/*
 * ... with at least this many of the type completed, and the interval
 * before it lone too: a run's first and last moments (a FUA writer's
 * first request before the reader's, its last ones after the reader
 * ended) are a type alone for part of an interval. One FUA write alone in
 * a 100 ms interval set BWmax_fua to 39 KB/s on fnvssd, which does
 * 2.7 MB/s, and TABS held a FUA writer of weight 300 to a third of its
 * share; a writer's tail of requests after its reader ended set it low
 * enough on the emulated NVMe to hold one to 0.149 of the IOPS (0.75 due).
 */
#define TABS_LONE_MIN_NR	8

/* tabs_tick() returns what changed: */
#define TABS_EV_PHASE		0x1	/* phase */
#define TABS_EV_ALPHA		0x2	/* alpha */

/*
 * All the state, for one device. Fields marked (debugfs) are what the
 * kernel shows; the caller only reads them. Bandwidths in bytes/s.
 */
struct tabs {
	enum tabs_phase phase;		/* (debugfs) */
	u64 start;	/* IDLE: reset period's start; SCHED: phase's start */
	u64 epoch_start;		/* SCHED: the epoch's start */
	/* inserted since @start; the I_x of the next SCHED (debugfs) */
	u64 nr_issued[TABS_NR_TYPES];
	u64 nr_epoch[TABS_NR_TYPES];	/* inserted in the epoch */
	/* IDLE: outstanding requests per type, summed at each tick */
	u64 out_sum[TABS_NR_FAIR];
	/* IDLE: the caller's demand by weight (tabs_demand()), summed */
	u64 dem[TABS_NR_FAIR];
	u64 dem_sum[TABS_NR_FAIR];
	u64 dem_epoch[TABS_NR_FAIR];	/* SCHED: summed over the epoch */
	bool dem_set;			/* tabs_demand() since the last tick */
	u64 bytes_epoch[TABS_NR_FAIR];	/* completed in the epoch */
	u64 disp_epoch[TABS_NR_FAIR];	/* dispatched in the epoch */
	u64 credit_epoch;	/* FUA writes let go by credit in the epoch */
	u64 held_epoch;		/* FUA writes tabs_holds() took in it */
	/* inserted and not finished; dispatched and not completed */
	u64 nr_outstanding[TABS_NR_TYPES];	/* (debugfs) */
	u64 nr_inflight[TABS_NR_TYPES];		/* (debugfs) */

	/*
	 * The goal of the SCHED phase (debugfs): the counts it started from,
	 * FBW_x by Eq. 1 with the BWmax in use (updated every tick).
	 */
	u64 i[TABS_NR_FAIR];		/* I_x */
	u64 fbw[TABS_NR_FAIR];		/* FBW_x; 0: BWmax_x unknown */
	u64 bwmax[TABS_NR_FAIR];	/* BWmax_x in use: set, or measured */
	u32 alpha;			/* in 1/TABS_ALPHA_ONE (debugfs) */
	/* alpha as the feedback left it, and the I_x it was for */
	u32 alpha_fb;
	u64 i_fb[TABS_NR_FAIR];		/* 0: no feedback yet */
	u64 credit;			/* FUA writes, 1/TABS_ALPHA_ONE */

	/* the last epoch (debugfs) */
	u64 bw[TABS_NR_FAIR];
	u32 fairness;	/* Eq. 2 in 1/1000, inverted above 1; 0: unknown */

	/* BWmax auto (see tabs.c) */
	u64 bwmax_auto[TABS_NR_FAIR];	/* 0 until measured (debugfs) */
	u64 ival_start;			/* the interval's start */
	u64 bytes_ival[TABS_NR_FAIR];	/* completed in the interval */
	u64 nr_ival[TABS_NR_FAIR];	/* ... requests */
	bool lone_prev[TABS_NR_FAIR];	/* the last interval was the type's */
	/* ... and its rate, if it measured one (else 0) */
	u64 rate_prev[TABS_NR_FAIR];
	bool seen[TABS_NR_TYPES];	/* in flight during the interval */

	/* statistics since tabs_init() (debugfs) */
	u64 nr_sched;			/* SCHED phases started */
	u64 nr_regoal;			/* SCHED goals moved to a new mix */
	u64 nr_epochs;			/* epochs ended */
	u64 nr_dispatched[TABS_NR_TYPES];
	u64 bytes_dispatched[TABS_NR_TYPES];
	/* FUA writes tabs_holds() took: held, unless let go at once */
	u64 nr_held;
	u64 nr_released[TABS_NR_REL];	/* by reason: [TABS_REL_FORCED]... */
};

/* The default tunables. */
void tabs_params_init(struct tabs_params *p);
/* IDLE, alpha 1, nothing counted or measured. */
void tabs_init(struct tabs *t, u64 now);
/*
 * Switched on again after a time off (no calls meanwhile, but for the
 * completions of what was counted before): IDLE from @now, no credit.
 * Kept: the outstanding and in-flight counts (their tabs_done() and
 * tabs_finished() are still to come), BWmax measured, alpha, the last
 * goal and epoch, the statistics. The interval from @now to the next tick
 * measures no BWmax (what was dispatched while off went unseen).
 */
void tabs_restart(struct tabs *t, u64 now);

/* A request of @type reached the scheduler (issued by the host). */
void tabs_inserted(struct tabs *t, int type);
/*
 * Should a request of @type, just inserted by a tenant with @own_reads
 * reads outstanding (its share of what tabs_inserted() counts), go to the
 * caller's FIFO delay queue? True for FUA writes in SCHED of a tenant with
 * reads of its own outstanding; never for reads or other writes. TABS
 * protects a tenant's reads from its own FUA writes; between tenants the
 * weights share the device, a FUA write charged its device time.
 */
bool tabs_holds(struct tabs *t, int type, u64 own_reads);
/*
 * May the FUA write at the head of the delay queue, held since
 * @held_since, its tenant having @own_reads reads outstanding, go now?
 * The caller asks for each head in turn until it says false. True
 * (consuming a write of credit if it used credit) in IDLE, when its
 * tenant has no read outstanding, with a write of credit, or once it
 * waited max_wait_ms. The caller must also ask when max_wait_ms of its
 * head runs out (a timer, or the control period) and after a tick ends
 * SCHED. Compares @now with @held_since only: they need a clock of their
 * own, not tabs_tick()'s.
 */
bool tabs_may_release(struct tabs *t, const struct tabs_params *p, u64 now,
		      u64 held_since, u64 own_reads);
/* Sent to the device; a read adds alpha FUA writes of credit (in SCHED). */
void tabs_dispatched(struct tabs *t, int type, u32 bytes);
/* Completed by the device. */
void tabs_completed(struct tabs *t, int type, u32 bytes);
/* A request tabs_inserted() counted leaves for good (done, or merged). */
void tabs_finished(struct tabs *t, int type);
/*
 * Batched tabs_completed() and tabs_finished(): @nr requests of @type that
 * were dispatched left the device and the scheduler with @bytes in all
 * (a requeued one: 0 bytes; tabs_inserted() counts it again when it comes
 * back). For a completion path that only adds to counters, folded in under
 * the caller's lock before tabs_tick() and tabs_may_release().
 */
void tabs_done(struct tabs *t, int type, u64 nr, u64 bytes);
/*
 * The demand per type as the caller's tenants weigh it, for the next
 * tabs_tick(): each tenant's weight split by its outstanding reads and FUA
 * writes, summed, in any unit (only the ratio counts). In IDLE, tabs_tick()
 * sums it as it sums the outstanding counts, and SCHED's I_x is that sum
 * when both types had some; without calls, I_x is the outstanding counts.
 * In SCHED it is summed over each epoch: a mix that moved away from the
 * goal's (I_fua / I_read by more than TABS_REGOAL_PCT %) moves the goal to
 * it at the epoch's end, alpha rescaled as at a phase's start.
 */
#define TABS_REGOAL_PCT		25
void tabs_demand(struct tabs *t, const u64 d[TABS_NR_FAIR]);
/*
 * The control period (about 100 ms, may stretch): BWmax measurement, the
 * phase machine, the feedback. Returns TABS_EV_* of what changed.
 */
unsigned int tabs_tick(struct tabs *t, const struct tabs_params *p, u64 now);

/* Eq. 1: FBW_x = BWmax_x * I_x / I_total; 0 if I_total is 0. */
u64 tabs_fbw(u64 bwmax, u64 i_x, u64 i_total);
/*
 * Eq. 2 in 1/1000, as (BW_read / FBW_read) / (BW_fua / FBW_fua) (I_total
 * cancels), inverted when above 1; 0 when a term is 0.
 */
u32 tabs_fairness(const u64 bw[TABS_NR_FAIR], const u64 fbw[TABS_NR_FAIR]);

const char *tabs_phase_name(int phase);

#endif /* _FAIRNVME_TABS_H */
