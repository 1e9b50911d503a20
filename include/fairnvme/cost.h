/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: the device time a request costs, learned online (policy core).
 *
 * Free of blk-mq types: the kernel feeds it, once per control period, the
 * period as a window of completed work (commands and sectors per type,
 * and how long the device was busy, at which depth), and asks it each tenant's tilt for
 * the next period; it charges what the model returns. The user-space unit
 * tests run it in a closed loop with synthetic devices.
 */
#ifndef _FAIRNVME_COST_H
#define _FAIRNVME_COST_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/minmax.h>

#define FNV_CM_READ		0
#define FNV_CM_WRITE		1	/* ... without FUA, and other commands */
#define FNV_CM_FUA		2	/* a write with REQ_FUA */
#define FNV_CM_TYPES		3
/* The regressors: per type, its commands (2t) and its sectors (2t + 1). */
#define FNV_CM_NX		(2 * FNV_CM_TYPES)
/*
 * Each twice: at the full device (FNV_CM_NX more than its index: alone,
 * at depth 1), in proportion to the window's mean depth (cost.c)
 */
#define FNV_CM_NU		(2 * FNV_CM_NX)
/* Charged coefficients are in 1/2^FNV_CM_SHIFT of a sector of a read */
#define FNV_CM_SHIFT		16
/* The unit: a 4 KiB read costs what its 8 sectors would under bytes. */
#define FNV_CM_REF_SECT		8
/* Commands a window needs to count */
#define FNV_CM_MIN_NR		16
/*
 * Windows counted before the fit's ratios are charged (cost.c); fewer
 * once full windows that hold a size probe's pair judged the held ones
 * out
 */
#define FNV_CM_MIN_WINDOWS	16
/* One window's weight in the sums (n) */
#define FNV_CM_N_ONE		BIT_ULL(32)
/*
 * Windows at max_inflight (decayed) before they judge the others (cost.c):
 * two size probes' windows, decayed the third's. At 8 (a rate trial's), t29
 * c/eq's held windows counted for its first 8 s, at 1.1 to 1.4 times a
 * 4 KiB read for a 64 KiB one, and the 4 KiB reader's share over the run
 * was 0.448 to 0.476 (0.5 due).
 */
#define FNV_CM_FULL_MIN		4
/*
 * A window at a lower depth counts if its busy time is within 1/16 of
 * what the full windows' fit predicts (in 1/1024: a held window's busy
 * time over the fit's, from FNV_CM_HELD_MIN to FNV_CM_HELD_MAX): above,
 * that depth did not use the device; below, the held windows' sizes and
 * busy times do not follow the full ones' fit (fnvssd's, 0.52 of it where
 * the size probes told 64 KiB at four times 4 KiB).
 */
#define FNV_CM_HELD_MIN		960U
#define FNV_CM_HELD_MAX		1088U
/*
 * Sums lose 1/2^FNV_CM_DECAY_SHIFT per window: half-life 10.7 windows.
 * Each window's edges are off by what the device held (behind QEMU's
 * bytes throttle, a few 64 KiB requests of 4 ms in a window of 100): a
 * fit over fewer windows moved from one to the next, and a tenant whose
 * charge moves gets more than its due on average (1/charge is convex):
 * a 4 KiB tenant had 0.456 of the bytes beside a 64 KiB one at a half-life
 * of 5.2 windows, 0.483 at 10.7 (unit test, edges off by 6 requests).
 */
#define FNV_CM_DECAY_SHIFT	4
/* A window's regressors, in 1/2^FNV_CM_U_SHIFT of its busy time */
#define FNV_CM_U_SHIFT		16
/* ... at most this (a device 4096 times as fast as the prior) */
#define FNV_CM_U_MAX		0x10000000ULL
/*
 * The prior weighs 1/2^FNV_CM_RIDGE_SHIFT of each regressor's own sum, and
 * at least FNV_CM_RIDGE_MIN: the sums cut to 30 bits each are off by less
 * than 1 each, a matrix of 12 regressors of norm under 12, and a floor of
 * 16 keeps the system positive definite (a floor of 1 let a first window
 * of 8 reads among 8803 writes come out indefinite, and divide by a pivot
 * of 0); a pivot that still comes out under FNV_CM_PIVOT_MIN drops its
 * regressor
 */
#define FNV_CM_RIDGE_SHIFT	16
#define FNV_CM_RIDGE_MIN	16ULL
/* ... and a request's time alone to its cost (cost.c's depth) */
#define FNV_CM_LAT_RIDGE	12
/* ... so a pivot (in 1/2^30) under this is a bug's: its regressor is 0 */
#define FNV_CM_PIVOT_MIN	256
/* The fit over the prior, in 1/2^16: at most 4096 times it */
#define FNV_CM_Z_MAX		0x10000000ULL
/*
 * A tilted tenant's charge, in 1/1024: over 1 - 1/4 and over 1 + 1/4 in
 * turn, so that its service (1 / its charge) is +-1/4 of its due, and even
 * over two periods if its service follows at once (a charge of 1 +- 1/4
 * gave it 1/15 more than its due). What it charged over the untilted goes
 * back at each period's end (fnv_tilt_refund()): service follows late.
 */
#define FNV_CM_TILT_ONE		1024U
#define FNV_CM_TILT_UP		1365U
#define FNV_CM_TILT_DOWN	819U

/*
 * The size probe (cost.c): one period with only the tenants of smaller
 * requests dispatched, at max_inflight, then one with only the larger
 * ones. Periods from one to the next while the full windows have not told
 * sizes apart (FNV_CM_PROBE_SOON), and once they have (FNV_CM_PROBE_EVERY).
 */
#define FNV_CM_PROBE_SMALL	1
#define FNV_CM_PROBE_LARGE	2
/*
 * ... or by type, where the sizes make no classes (a FUA writer beside a
 * reader, 4 KiB each): the tenants without FUA writes, then those of FUA
 * writes only (fnv_cm_probe_tclass())
 */
#define FNV_CM_PROBE_NOFUA	FNV_CM_PROBE_SMALL
#define FNV_CM_PROBE_FUA	FNV_CM_PROBE_LARGE
/* which classes a probe holds (fnv_cm_probe_kind()) */
#define FNV_CM_PROBE_BY_SIZE	1
#define FNV_CM_PROBE_BY_TYPE	2
#define FNV_CM_PROBE_SOON	16U
#define FNV_CM_PROBE_EVERY	64U
/*
 * ... and for the first three while the full windows hold too few to
 * judge at all (before FNV_CM_FULL_MIN windows' worth): until then every type
 * costs a read (fnv_cm_sys_tie_types()), and at 16 periods apart a FUA
 * writer at weight 100 beside a reader at 300 on fnvssd had 0.334 of the
 * die time over a run of 15 s, 0.25 due
 */
#define FNV_CM_PROBE_FIRST	8U
#define FNV_CM_PROBE_FIRST_NR	3U
/*
 * Every other size probe (from the second) runs at 1/FNV_CM_PROBE_LOW of
 * max_inflight, 2 at least: the same requests at two depths tell what
 * they cost a parallel device from their time alone (cost.c)
 */
#define FNV_CM_PROBE_LOW	8U

/* A control period, as the kernel feeds it: what completed in it */
struct fnv_cm_win {
	u64 nr[FNV_CM_TYPES];		/* commands */
	u64 sect[FNV_CM_TYPES];		/* ... their sectors */
	u64 busy_ns;			/* the device had requests */
	u64 dt_ns;			/* the period's length */
	u32 depth16;			/* mean depth at dispatch, 1/16; 0: unknown */
	bool full;			/* ... at max_inflight */
	bool probe;			/* ... a size probe's */
};

/* The kinds of window: at max_inflight (full), at a lower depth (held) */
#define FNV_CM_FULL		0
#define FNV_CM_HELD		1
#define FNV_CM_KINDS		2

/* decayed sums over windows: u_i * u_j, u_j (y = 1), y * y */
struct fnv_cm_sums {
	u64 a[FNV_CM_NU][FNV_CM_NU];
	u64 g[FNV_CM_NU];
	u64 n;
	u32 windows;			/* counted, ever */
};

/*
 * The long sums: every window that counts, per kind, losing
 * 1/2^FNV_CM_SLOW_SHIFT per window (half-life 177 windows, about 18 s):
 * what one type costs against another, from every mix they saw
 * (fnv_cm_types()), the held kind only while in the short fit and the
 * full sums hold enough to judge them (full_min);
 * used once they hold FNV_CM_SLOW_MIN windows' worth. Each window adds
 * 1/2^FNV_CM_SLOW_IN of itself, so that they hold what the short sums
 * do at most (16 times less decay).
 */
#define FNV_CM_SLOW_SHIFT	8
#define FNV_CM_SLOW_IN		4
#define FNV_CM_SLOW_MIN		32

struct fnv_cm {
	struct fnv_cm_sums s[FNV_CM_KINDS];
	struct fnv_cm_sums slow[FNV_CM_KINDS];
	struct fnv_cm_sums tmp;		/* cost.c's, off the stack */
	/* the held windows' busy time over the full ones' fit, 1/1024 */
	u32 held_ratio;
	bool held_in;			/* ... within FNV_CM_HELD_MIN.._MAX */
	bool full_sep;			/* the full windows told sizes apart */
	bool full_min;			/* ... held FNV_CM_FULL_MIN windows */
	u32 depth_apart;		/* ... cost from time alone, by regressor */
	u32 probe_wait;			/* periods since the last size probe */
	u32 probe_soon;			/* ... before the next, sizes not apart */
	u32 probes;			/* ... run, ever (debugfs) */
	u32 probe_windows;		/* ... their windows counted, ever */
	u64 probe_sect16;		/* ... mix_sect16 then */
	u32 probe_wr;			/* ... and mix_wr */
	u64 mix_sect16;			/* the windows' mean size, 1/16 per */
	u32 mix_wr;			/* ... and writes, 1/1024 */
	/* the fit: each coefficient over the prior's, and their scale */
	u64 z16[FNV_CM_NU];
	u64 s16;
	/* ... as ns per command, and ns per sector in 1/2^16 */
	u64 cmd_ns[FNV_CM_TYPES];
	u64 sect_ns16[FNV_CM_TYPES];
	/* ... a request's alone, at depth 1 (not charged) */
	u64 lat_cmd_ns[FNV_CM_TYPES];
	u64 lat_sect_ns16[FNV_CM_TYPES];
	bool known[FNV_CM_TYPES];	/* a window was fitted */
	bool sep[FNV_CM_TYPES];		/* ... sizes separated: not the prior's */
	u32 resid;			/* rms error, 1/1024 of a window */
	/*
	 * each type's mean request over a read's by the long sums' fit
	 * (1/1024), 0: not used
	 */
	u32 type_ratio[FNV_CM_TYPES];
	/* what a request is charged, in 1/2^FNV_CM_SHIFT sectors */
	u32 c_cmd[FNV_CM_TYPES];
	u32 c_sect[FNV_CM_TYPES];
	/* the tilt: windows counted, the last one's mean size and writes */
	u32 windows;
	u32 win_wr;			/* writes, 1/1024 of its commands */
	u64 win_sect16;			/* sectors per command, 1/16 */
	bool tilting;			/* the last window counted */
};

/* Nothing learned: a request costs what the prior says, scaled to 8. */
void fnv_cm_init(struct fnv_cm *m);
/* End of a period: count its window, fit, set c_cmd and c_sect, decay. */
void fnv_cm_update(struct fnv_cm *m, const struct fnv_cm_win *w);
/*
 * A tenant's tilt for the next period, in 1/FNV_CM_TILT_ONE of its charge,
 * from its own period (sampled): @nr commands, @nr_wr of them writes (FUA
 * or not), @sect sectors.
 */
u32 fnv_cm_tilt(const struct fnv_cm *m, u64 nr, u64 nr_wr, u64 sect);
/*
 * A tenant's class for the size probe, from its period (@nr requests of
 * @sect sectors): FNV_CM_PROBE_SMALL if its mean request is at most 2/3
 * of the last window's, _LARGE if at least 3/2 of it, else 0 (in neither).
 */
u32 fnv_cm_probe_class(const struct fnv_cm *m, u64 nr, u64 sect);
/*
 * ... and for the type probe, from its @nr requests, @nr_fua of them FUA
 * writes: FNV_CM_PROBE_FUA if at least 7/8 of them are, _NOFUA if at most
 * 1/8, else 0 (in neither: it runs in both periods).
 */
u32 fnv_cm_probe_tclass(u64 nr, u64 nr_fua);
/*
 * Which probe can run: FNV_CM_PROBE_BY_SIZE if each size class keeps
 * @min requests queued or in flight (@need, by class), else
 * FNV_CM_PROBE_BY_TYPE if each type class does (@tneed), else 0.
 */
u32 fnv_cm_probe_kind(const u32 *need, const u32 *tneed, u32 min);
/*
 * One more period: true if a size probe is due (FNV_CM_PROBE_FIRST periods
 * after the last ended for the first FNV_CM_PROBE_FIRST_NR while the full
 * windows cannot judge, then FNV_CM_PROBE_SOON periods
 * after the last ended, doubled each time one left the sizes not told
 * apart, up to FNV_CM_PROBE_EVERY, while the full windows have not told
 * them apart, or the
 * windows' mean size (mix_sect16, over the windows, 1/16 from each) moved
 * by a quarter or their share of writes by an eighth since: a new mix;
 * else FNV_CM_PROBE_EVERY);
 * the caller runs one only where each class can fill the device, and
 * says so with fnv_cm_probe_ran().
 */
bool fnv_cm_probe_due(struct fnv_cm *m);
void fnv_cm_probe_ran(struct fnv_cm *m);

/* The probe that fnv_cm_probe_ran() started runs low */
static inline bool fnv_cm_probe_low(const struct fnv_cm *m)
{
	return m->probes && !(m->probes & 1);
}

/*
 * The mean latency of a tenant's request were the tenant alone, in ns:
 * @q16 its requests outstanding (their mean, in 1/2^16), @nr requests of
 * each type (read, write) and @sect their sectors (its mix), @nr_fua of
 * the writes with FUA (priced as FUA writes, their sectors in proportion),
 * @l1_ns the device's time for one request with nothing else at it
 * (dev_floor):
 * the larger of it and (q - 1) times its mean request's cost by the fit
 * plus once its time alone (a closed queue over the device's parts,
 * cost.c). The LPNS bound and the slowdown policy read it.
 */
u64 fnv_cm_alone_ns(const struct fnv_cm *m, u64 q16, const u64 *nr,
		    const u64 *sect, u64 nr_fua, u64 l1_ns);

/*
 * The device time, in ns, of a request of type @t and @sect sectors by the
 * fit; 0 until a window was fitted. Budget cycles (wrr_mode=off) charge
 * this.
 */
static inline u64 fnv_cm_time_ns(const struct fnv_cm *m, int t, u64 sect)
{
	if (!m->known[t])
		return 0;
	return m->cmd_ns[t] + ((m->sect_ns16[t] * sect) >> 16);
}

/*
 * What a request of @sect sectors costs, in 1/2^FNV_CM_SHIFT sectors of a
 * 4 KiB read's (a 4 KiB read: 8 << FNV_CM_SHIFT), times @tilt /
 * FNV_CM_TILT_ONE (the probe's), not rounded. Below 2^60: c_cmd and c_sect
 * are u32, @sect at most 2^16 counted, @tilt below 2^11.
 */
static inline u64 fnv_cm_charge_fine(u32 c_cmd, u32 c_sect, u64 sect,
				     u32 tilt)
{
	u64 c = (u64)c_cmd + (u64)c_sect * min_t(u64, sect, 1ULL << 16);

	return (c * tilt) >> 10;
}

/*
 * ... rounded to sectors, at least 1. A sector is an eighth of a 4 KiB
 * read: rounded per request, a tilt of 8 to 10 and 6 gained its tenant
 * 1/15 over two periods, and a 4 KiB FUA write fitted at 1.07 reads costs
 * 9 sectors, 1.125 reads. The virtual time takes fnv_cm_carry()'s.
 */
static inline u64 fnv_cm_round(u64 fine)
{
	u64 c = (fine + (1ULL << (FNV_CM_SHIFT - 1))) >> FNV_CM_SHIFT;

	return c ? c : 1;
}

static inline u64 fnv_cm_charge(u32 c_cmd, u32 c_sect, u64 sect, u32 tilt)
{
	return fnv_cm_round(fnv_cm_charge_fine(c_cmd, c_sect, sect, tilt));
}

/*
 * A charge @fine of fnv_cm_charge_fine()'s in whole sectors, what it has
 * below one carried in @carry (a tenant's) to the next: over its requests
 * the tenant pays what the model says, to a sector. One may cost 0 where
 * the carry is short of a sector; the next pays it.
 */
static inline u64 fnv_cm_carry(u32 *carry, u64 fine)
{
	fine += *carry;
	*carry = fine & ((1U << FNV_CM_SHIFT) - 1);
	return fine >> FNV_CM_SHIFT;
}

/*
 * The work of window @w priced by charges @c_cmd and @c_sect (a model's):
 * what its requests cost, in sectors of a 4 KiB read's (a 4 KiB read 8).
 * The depth's rate trials compare rates in it, not in requests: a deeper
 * queue that serves the larger requests more completes fewer of them for
 * more work.
 */
static inline u64 fnv_cm_work(const u32 *c_cmd, const u32 *c_sect,
			      const struct fnv_cm_win *w)
{
	u64 c = 0;
	int t;

	for (t = 0; t < FNV_CM_TYPES; t++)
		c += (u64)c_cmd[t] * w->nr[t] + (u64)c_sect[t] * w->sect[t];
	return c >> FNV_CM_SHIFT;
}

#endif /* _FAIRNVME_COST_H */
