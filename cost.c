// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the device time a request costs.
 *
 * A request is charged the device time it costs, per type (read, write
 * with FUA, other write), a linear model as blk-iocost's: a cost per
 * command plus a cost per sector, measured rather than configured. A FUA
 * write is a type of its own: it completes once programmed, and on flash
 * holds a die for the program (6.1 ms on fnvssd, four times a read) where
 * a cached write takes a transfer; as one type, a FUA writer beside a
 * cached one was charged their mean.
 *
 * What is measured: windows of completed work, not a request's own time.
 * A request's completion interval is its own time only on a device that
 * serves one request at a time and in order. QEMU's throttle makes the
 * request after a large one wait for its bytes, and an SSD serves many at
 * once: there the intervals carry other requests' sizes, the slope of a fit
 * through them came out 0, and every request was charged one command (a
 * 64 KiB sequential reader took the device from 4 KiB tenants). A window
 * does not care which request waited for which: while the device is busy,
 *
 *   busy time = sum over types t of  a_t * commands_t + b_t * sectors_t
 *
 * for the work completed in it. Each control period is one window (one
 * equation), if the device was busy for at least 3/4 of it with at least
 * FNV_CM_MIN_NR commands: an idle device's time says nothing of its costs.
 * Completed, not dispatched: a window of dispatches is off by what the
 * device held at its edges, up to the depth's worth, and at a rate trial's
 * depth of 32 behind QEMU's 16 MB/s (64 KiB reads of 4 ms) that was more
 * than the window's own work; one of completions is off by the part done
 * of what was in service (one request on a device that serves in order).
 * The fit is least squares over the windows, in sums that lose 1/16 per
 * window (the model follows a changed device within a few seconds).
 *
 * Which windows: busy time is cost only where the depth keeps the device
 * full. A window at the depth the latency rule holds (held) on a device
 * that serves more at a deeper queue measures latency: fnvssd's 64 KiB
 * read, striped over four dies in one tR, fitted 1.01 to 2.8 times a
 * 4 KiB read where it takes four times the die time. The windows at
 * max_inflight (full: the depth's rate trials, a depth they kept) judge
 * the held ones: see fnv_cm_held_in().
 *
 * The depth: on a device of parallel parts (dies, channels), requests at
 * a depth that does not fill it leave parts idle while the device is
 * busy. fnvssd's 4 KiB reads, each on one of four dies at random: N of
 * them in flight keep N/(N + 3) of the dies busy (a closed queue over
 * four servers), and a read takes 375 us * (1 + 3/N) of busy time, 445 us
 * at the 16 a tenant keeps in a size probe, where its die time is 375;
 * a 64 KiB read, over all four, 1500 us at any depth. Fitted at one
 * depth, the 64 KiB read cost 3.39 to 3.56 times the 4 KiB one, and the
 * 4 KiB reader had 0.443 to 0.482 of the die time (t29 c/eq, 0.5 due).
 * That queue's time per request at depth N is (1 - 1/N) times its cost
 * at the full device plus 1/N times its time alone (at depth 1): each
 * regressor counts twice, (1 - 1/N) of it for the cost (charged) and 1/N
 * for the time alone (the alone estimator's), N the window's mean depth
 * at dispatch. A device of one part (QEMU's throttle) has the two equal,
 * and windows of one depth cannot tell them apart. What tells them
 * apart: the full windows' depths, max_inflight's and those of every
 * other size probe, run at 1/FNV_CM_PROBE_LOW of it (the same classes at
 * two depths); where they did not, the two are one regressor again
 * (fnv_cm_sys_tie()), the model as it was.
 *
 * Where the windows cannot tell a and b apart (every window completed the
 * same mix), the prior decides: blk-iocost's default SSD model's reads
 * (its autop table: 488,636,629 B/s and 8,518 4 KiB IOPS), for reads and
 * writes alike, whose 128 KiB request costs 3.2 times a 4 KiB one. The
 * fit is kept as multiples z of the prior's coefficients, and a ridge of
 * 1/65536 of each regressor's own sum pulls each z towards their common
 * scale (the one multiple that fits the windows best): a direction the
 * windows measure is theirs, one they do not keep the prior's ratios (a
 * ridge of 1/1024 took a third off what the windows measured where one
 * tenant had 1/6 of the device). Each z is at least 1/64 of that scale: a
 * 4 KiB read, the unit of every charge, never costs nothing.
 * Before the first window the prior's ratios are charged.
 *
 * The probe: under a fair scheduler the mix hardly changes from one window
 * to the next, so the scheduler makes it change. Each period tilts the
 * charge of the tenants whose mean request is larger than the window's by
 * +1/4, the smaller ones' by -1/4, then the other way the next period;
 * every other pair of periods tilts by the share of writes instead. What
 * the tilt charged a tenant over its untilted charge in a period goes back
 * to its virtual time at the period's end (fnv_tilt_refund() says why), so
 * a tenant's service over periods is what its weight gives; the windows'
 * mixes differ by about the tilt, enough for the fit (tilts of 1/4 found
 * the cost of 128 KiB against 4 KiB within 5 % in simulation, where 1/8
 * left it a third short). Only a window that counted (a busy device, where
 * the order is the scheduler's) is followed by a tilt.
 *
 * The solve: the normal equations with the ridge, scaled to a unit
 * diagonal, by Gaussian elimination in 1/2^30; a z that comes out negative
 * is 0 and the others are solved for again (blk-iocost's model has no
 * negative cost either), each z at most 4096 times the prior. The fit's
 * residual, the rms error of a window's predicted busy time, and whether
 * each type's sizes were told apart (else the prior's ratio) are in
 * debugfs (cost_learned).
 *
 * The unit: a 4 KiB read costs 8, the sectors it would cost under the
 * bytes model, so tau_l keeps its unit (bytes of 4 KiB reads) and a device
 * whose time is proportional to bytes is charged bytes: time-fair is
 * byte-fair there.
 *
 * Limits: requests that go around the scheduler (a flush's empty write;
 * FUA writes on 6.1) count as one command of their type each (a FUA write
 * as a FUA command), their sizes unknown at completion. At max_inflight
 * the scheduler no longer sets the mix (two tenants of 16 requests each
 * are all at the device), so the tilt does not move it: full windows may
 * give the scale and not the ratios, and
 * then the held windows count, latency and all (fnv_cm_held_in()). A
 * device that is full only past max_inflight has no full window.
 * Commands other than reads and writes (discard, write zeroes) are charged
 * as one write command, whatever their size.
 */
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <fairnvme/cost.h>

/*
 * The prior, in 1/16 ns per command and per sector: blk-iocost's default
 * SSD model's reads, 512e9 / 488636629 = 1047.8 ns per sector, 1e9 / 8518
 * = 117398 ns per 4 KiB read, less its 8 sectors: 109016 ns per command.
 * A write's prior is a read's of its size. blk-iocost's own prices a 4 KiB
 * write at a third of a read (21,940 IOPS: its cache); where the windows
 * told reads from writes poorly (a reader at depth 1 beside a writer, the
 * mix steady), that ratio was what the fit kept, and gave the writer
 * twice the reader's requests on a device where both cost the same (t16:
 * 4 KiB writes charged 350 us, reads 700 us, at 2000 commands a second).
 * Alike, neither type gets a share the device did not show.
 */
static const u64 fnv_cm_prior16[FNV_CM_NX] = {
	109016 * 16, 16765, 109016 * 16, 16765, 109016 * 16, 16765
};

static void fnv_cm_coef(struct fnv_cm *m)
{
	u64 ref16, c;
	int t;

	for (t = 0; t < FNV_CM_TYPES; t++) {
		m->cmd_ns[t] = mul_u64_u64_shr(m->z16[2 * t],
					       fnv_cm_prior16[2 * t], 20);
		m->sect_ns16[t] = mul_u64_u64_shr(m->z16[2 * t + 1],
						  fnv_cm_prior16[2 * t + 1], 4);
	}
	for (t = 0; t < FNV_CM_TYPES; t++) {
		m->lat_cmd_ns[t] = mul_u64_u64_shr(m->z16[FNV_CM_NX + 2 * t],
						   fnv_cm_prior16[2 * t], 20);
		m->lat_sect_ns16[t] =
			mul_u64_u64_shr(m->z16[FNV_CM_NX + 2 * t + 1],
					fnv_cm_prior16[2 * t + 1], 4);
	}
	/* the reference: a 4 KiB read */
	ref16 = (m->cmd_ns[FNV_CM_READ] << 16) +
		m->sect_ns16[FNV_CM_READ] * FNV_CM_REF_SECT;
	for (t = 0; t < FNV_CM_TYPES; t++) {
		if (!ref16) {		/* a read costs nothing: bytes */
			m->c_cmd[t] = 0;
			m->c_sect[t] = 1U << FNV_CM_SHIFT;
			continue;
		}
		/* (cmd * 8 / ref) << SHIFT, ref in 1/2^16 ns */
		c = mul_u64_u64_div_u64(m->cmd_ns[t] << 16,
					(u64)FNV_CM_REF_SECT << FNV_CM_SHIFT,
					ref16);
		m->c_cmd[t] = min_t(u64, c, U32_MAX);
		c = mul_u64_u64_div_u64(m->sect_ns16[t],
					(u64)FNV_CM_REF_SECT << FNV_CM_SHIFT,
					ref16);
		m->c_sect[t] = min_t(u64, c, U32_MAX);
	}
}

void fnv_cm_init(struct fnv_cm *m)
{
	int j;

	*m = (struct fnv_cm){};
	m->s16 = 1ULL << 16;
	for (j = 0; j < FNV_CM_NU; j++)
		m->z16[j] = 1ULL << 16;
	fnv_cm_coef(m);
}

/* Count a window: false if it says nothing of the costs. */
/* Add a window's regressors @u, 1/2^@sh of them */
static void fnv_cm_sums_add(struct fnv_cm_sums *S, const u64 *u,
			    unsigned int sh)
{
	int i, j;

	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++)
			S->a[i][j] += (u[i] * u[j]) >> sh;
		S->g[i] += (u[i] << FNV_CM_U_SHIFT) >> sh;
	}
	S->n += FNV_CM_N_ONE >> sh;
	S->windows++;
}

/* the full sums hold enough to judge the held windows (fnv_cm_held_in()) */
static bool fnv_cm_full_enough(const struct fnv_cm *m)
{
	return m->s[FNV_CM_FULL].n >= FNV_CM_FULL_MIN * FNV_CM_N_ONE;
}

static bool fnv_cm_add(struct fnv_cm *m, const struct fnv_cm_win *w)
{
	struct fnv_cm_sums *S = &m->s[w->full ? FNV_CM_FULL : FNV_CM_HELD];
	u64 x[FNV_CM_NX], u[FNV_CM_NU], nr;
	int j, t;

	nr = w->nr[FNV_CM_READ] + w->nr[FNV_CM_WRITE] + w->nr[FNV_CM_FUA];
	if (nr < FNV_CM_MIN_NR || !w->busy_ns || w->busy_ns * 4 < w->dt_ns * 3)
		return false;
	for (t = 0; t < FNV_CM_TYPES; t++) {
		x[2 * t] = w->nr[t];
		x[2 * t + 1] = w->sect[t];
	}
	/*
	 * u: the prior's time for each regressor, over the busy time; the
	 * part 1/depth of it alone, the rest at the full device (the depth
	 * not known: all of it)
	 */
	for (j = 0; j < FNV_CM_NX; j++) {
		u[j] = min(mul_u64_u64_div_u64(x[j], fnv_cm_prior16[j] <<
					       (FNV_CM_U_SHIFT - 4),
					       w->busy_ns), FNV_CM_U_MAX);
		u[FNV_CM_NX + j] = w->depth16 < 16 ? 0 :
				   div64_u64(u[j] << 4, w->depth16);
		u[j] -= u[FNV_CM_NX + j];
	}
	fnv_cm_sums_add(S, u, 0);
	/*
	 * The long sums take a held window only while full windows can
	 * judge them (a held window leaves the full sums as they are): the
	 * unjudged ones of the first seconds, merged once the first rate
	 * trial judged, would bring back the ratio between types their tie
	 * kept out
	 */
	if (w->full || fnv_cm_full_enough(m))
		fnv_cm_sums_add(&m->slow[w->full ? FNV_CM_FULL : FNV_CM_HELD],
				u, FNV_CM_SLOW_IN);
	/* the tilt's reference */
	m->win_sect16 = div64_u64((w->sect[FNV_CM_READ] +
				   w->sect[FNV_CM_WRITE] +
				   w->sect[FNV_CM_FUA]) << 4, nr);
	m->win_wr = div64_u64((w->nr[FNV_CM_WRITE] + w->nr[FNV_CM_FUA]) << 10,
			      nr);
	/*
	 * The mix over the windows, for the size probe: the tilt evens out.
	 * The held ones only: a probe's one class, or a trial's mix in the
	 * device's order, would make the next probe come early.
	 */
	if (w->full)
		return true;
	if (!m->mix_sect16) {
		m->mix_sect16 = m->win_sect16;
		m->mix_wr = m->win_wr;
	}
	m->mix_sect16 = m->mix_sect16 - (m->mix_sect16 >> 4) +
			(m->win_sect16 >> 4);
	m->mix_wr = m->mix_wr - (m->mix_wr >> 4) + (m->win_wr >> 4);
	return true;
}

/* @S gets @H's windows too */
static void fnv_cm_sums_merge(struct fnv_cm_sums *S,
			      const struct fnv_cm_sums *H)
{
	int i, j;

	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++)
			S->a[i][j] += H->a[i][j];
		S->g[i] += H->g[i];
	}
	S->n += H->n;
}

/* a kind's sums lose 1/2^@sh */
static void fnv_cm_decay(struct fnv_cm_sums *S, unsigned int sh)
{
	int i, j;

	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++)
			S->a[i][j] -= S->a[i][j] >> sh;
		S->g[i] -= S->g[i] >> sh;
	}
	S->n -= S->n >> sh;
}

#define FNV_CM_BIT(j)	(1U << (j))

/* regressor @j's of a read: the same part (command, sectors) and block */
static int fnv_cm_read_of(int j)
{
	return j / FNV_CM_NX * FNV_CM_NX + (j & 1);
}

/* regressor @j's other half: cost, time alone */
static int fnv_cm_twin(int j)
{
	return j < FNV_CM_NX ? j + FNV_CM_NX : j - FNV_CM_NX;
}

/* @a * @b >> @sh, signed, through 128 bits */
static s64 fnv_cm_mul(s64 a, s64 b, unsigned int sh)
{
	u64 r = mul_u64_u64_shr(a < 0 ? -(u64)a : (u64)a,
				 b < 0 ? -(u64)b : (u64)b, sh);

	return (a < 0) ^ (b < 0) ? -(s64)r : (s64)r;
}

/* @a << 30 / @d, signed (@d > 0) */
static s64 fnv_cm_div(s64 a, s64 d)
{
	u64 r = mul_u64_u64_div_u64(a < 0 ? -(u64)a : (u64)a,
				     1ULL << 30, d);

	return a < 0 ? -(s64)r : (s64)r;
}

/*
 * Solve (A + L) z = g + L s over the regressors in @free (the others are
 * 0), L the ridge: A scaled to a unit diagonal (D^-1/2 (A + L) D^-1/2, in
 * 1/2^30: every entry at most 1, every pivot at least about the ridge's
 * 1/65536), Gaussian elimination without pivoting (stable on a positive
 * definite matrix, which FNV_CM_RIDGE_MIN keeps it), z back in 1/2^16.
 * Returns the index of the free z that came out most negative (in the
 * scaled unknowns), or of a pivot under FNV_CM_PIVOT_MIN, to be dropped;
 * -1 when every free z is at least 0.
 */
struct fnv_cm_sys {
	u64 a[FNV_CM_NU][FNV_CM_NU];	/* the sums, scaled */
	u64 g[FNV_CM_NU];
	u64 lam[FNV_CM_NU];		/* the ridge */
	u64 cpl[FNV_CM_NX];		/* ... of each time alone to its cost */
	u64 amax;			/* the largest diagonal */
	u32 tied;			/* halves summed into the cost's */
	u32 typed;			/* ... a type's into the read's */
	u64 n;
	u64 s16;			/* the prior's scale */
	unsigned int free;		/* regressors seen */
};

static int fnv_cm_solve_set(const struct fnv_cm_sys *q, unsigned int free,
			    u64 *z)
{
	const u64 *g = q->g, *lam = q->lam;
	s64 mm[FNV_CM_NU][FNV_CM_NU], h[FNV_CM_NU], w[FNV_CM_NU];
	u64 d[FNV_CM_NU], c[FNV_CM_NX], v;
	int i, j, k, neg = -1;

	/* the pull of each time alone to its cost, where both are free */
	for (j = 0; j < FNV_CM_NX; j++)
		c[j] = (free & FNV_CM_BIT(j)) &&
		       (free & FNV_CM_BIT(FNV_CM_NX + j)) ? q->cpl[j] : 0;
	for (j = 0; j < FNV_CM_NU; j++) {
		z[j] = 0;
		if (!(free & FNV_CM_BIT(j)))
			continue;
		/* sqrt(a_jj + l_j + c_j) in 1/2^16 */
		d[j] = max(int_sqrt64((q->a[j][j] + lam[j] +
				       c[j % FNV_CM_NX]) << 32), 1U);
		/* (g_j + l_j s) / sqrt(a_jj + l_j + c_j), in 1/2^16 */
		h[j] = mul_u64_u64_div_u64((g[j] << 16) + lam[j] * q->s16,
					   1ULL << 16, d[j]);
	}
	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++) {
			if (!(free & FNV_CM_BIT(i)) || !(free & FNV_CM_BIT(j)))
				continue;
			v = q->a[i][j] + (i == j ? lam[i] + c[i % FNV_CM_NX] : 0);
			mm[i][j] = mul_u64_u64_div_u64(v << 30, 1ULL << 32,
						       d[i] * d[j]);
			/* c (z_j - z'_j)^2: -c between the two */
			if (i - j == FNV_CM_NX || j - i == FNV_CM_NX)
				mm[i][j] -= mul_u64_u64_div_u64(c[min(i, j)] <<
								30, 1ULL << 32,
								d[i] * d[j]);
		}
	}
	for (j = 0; j < FNV_CM_NU; j++) {
		if (!(free & FNV_CM_BIT(j)))
			continue;
		for (i = j + 1; i < FNV_CM_NU; i++) {
			s64 f;

			if (!(free & FNV_CM_BIT(i)))
				continue;
			if (mm[j][j] < FNV_CM_PIVOT_MIN)
				return j;
			f = fnv_cm_div(mm[i][j], mm[j][j]);
			for (k = j; k < FNV_CM_NU; k++)
				if (free & FNV_CM_BIT(k))
					mm[i][k] -= fnv_cm_mul(f, mm[j][k], 30);
			h[i] -= fnv_cm_mul(f, h[j], 30);
		}
	}
	for (j = FNV_CM_NU - 1; j >= 0; j--) {
		s64 v;

		if (!(free & FNV_CM_BIT(j)))
			continue;
		v = h[j];
		for (k = j + 1; k < FNV_CM_NU; k++)
			if (free & FNV_CM_BIT(k))
				v -= fnv_cm_mul(mm[j][k], w[k], 30);
		/* a pivot the ridge should have kept from 0: drop it */
		if (mm[j][j] < FNV_CM_PIVOT_MIN)
			return j;
		w[j] = fnv_cm_div(v, mm[j][j]);
		if (w[j] < 0 && (neg < 0 || w[j] < w[neg]))
			neg = j;
		z[j] = w[j] > 0 ? min(mul_u64_u64_div_u64(w[j], 1ULL << 16,
							  d[j]),
				      FNV_CM_Z_MAX) : 0;
	}
	return neg;
}

/* regressor @j summed into @i, row and column: @j no longer free */
static void fnv_cm_sys_merge(struct fnv_cm_sys *q, int i, int j)
{
	int k;

	for (k = 0; k < FNV_CM_NU; k++)
		q->a[i][k] += q->a[j][k];
	for (k = 0; k < FNV_CM_NU; k++)
		q->a[k][i] += q->a[k][j];
	for (k = 0; k < FNV_CM_NU; k++) {
		q->a[j][k] = 0;
		q->a[k][j] = 0;
	}
	q->g[i] += q->g[j];
	q->g[j] = 0;
	q->free &= ~FNV_CM_BIT(j);
}

/*
 * A request's time alone is its cost (a device of one part) but where
 * the full windows' depths told the two apart (@apart, by regressor):
 * those are pulled together by 1/2^FNV_CM_LAT_RIDGE of the larger of
 * their sums, the others are one regressor again (their halves summed,
 * the model as it was). Only the full windows tell: their depths are
 * max_inflight's and the low size probes'. Held windows at depth 1 are
 * all time alone, and beside a rate trial's they told a FUA write's cost
 * from its time alone by a few windows at depth 2 (t21 on 6.12: a FUA
 * write charged half a read where both take a command); pulled together
 * by their larger sum only, held windows at depth 1 to 3 fitted a QD1
 * reader's 4 KiB read at 2.7 to 39 times a writer's (t16, 6.1). Behind
 * QEMU's 2000 commands/s, windows whose mean depth moved from 29 to 32 (a
 * rate trial's) fitted a 4 KiB read alone at 6 us to 2.3 ms with no pull.
 */
static void fnv_cm_sys_tie(struct fnv_cm_sys *q, u32 apart)
{
	int i, j;

	for (i = 0; i < FNV_CM_NX; i++) {
		j = FNV_CM_NX + i;
		q->cpl[i] = 0;
		if (apart & FNV_CM_BIT(i)) {
			q->cpl[i] = max(q->a[i][i], q->a[j][j]) >>
				    FNV_CM_LAT_RIDGE;
			continue;
		}
		/* the halves summed: below 2^31 (2^29 each, Cauchy-Schwarz) */
		fnv_cm_sys_merge(q, i, j);
		if (q->a[i][i])
			q->free |= FNV_CM_BIT(i);
		q->lam[i] = max(int_sqrt64(q->a[i][i] * q->amax) >>
				FNV_CM_RIDGE_SHIFT, FNV_CM_RIDGE_MIN);
		q->lam[j] = 0;
		q->tied |= FNV_CM_BIT(i);
	}
}

/*
 * Every type one cost: each regressor of a write or a FUA write summed
 * into the read's of the same part and half (fnv_cm_fit() copies the
 * read's z back), for held windows no full ones judge (their sums under
 * FNV_CM_FULL_MIN windows' worth: before the first rate trial, or long
 * after the last; every half tied then, depth_apart 0). Below max_inflight
 * a tenant's share of a window moves with its latency as much as with its
 * cost: a QD1 reader beside writeback, both a command on QEMU's throttle,
 * had its reads run alone at depth 1.3 in the windows where it had more of
 * them, and the first seconds fitted a read at 1.2 to 2.1 ms and a write
 * at 0.1 to 0.3 (t16, 6.1), which the long sums then kept. Such windows
 * keep the prior's ratio between types, a write a read of its size; they
 * still give the scale and each type's sizes. The sums are first halved
 * thrice: a diagonal is under 2^31 with the halves tied, three types'
 * summed (cross terms and all) under 9 * 2^28 < 2^32.
 */
static void fnv_cm_sys_tie_types(struct fnv_cm_sys *q)
{
	int i, j;

	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++)
			q->a[i][j] >>= 3;
		q->g[i] >>= 3;
	}
	q->n >>= 3;
	for (j = 0; j < FNV_CM_NU; j++) {
		int r = fnv_cm_read_of(j);

		if (r == j)
			continue;
		/* the read's halves tied: into its cost's */
		if (r >= FNV_CM_NX && q->tied & FNV_CM_BIT(r - FNV_CM_NX))
			r -= FNV_CM_NX;
		fnv_cm_sys_merge(q, r, j);
		q->typed |= FNV_CM_BIT(j);
	}
	q->amax = 0;
	for (j = 0; j < FNV_CM_NU; j++)
		q->amax = max(q->amax, q->a[j][j]);
	for (j = 0; j < FNV_CM_NU; j++) {
		if (q->a[j][j])
			q->free |= FNV_CM_BIT(j);
		q->lam[j] = q->a[j][j] ?
			    max(int_sqrt64(q->a[j][j] * q->amax) >>
				FNV_CM_RIDGE_SHIFT, FNV_CM_RIDGE_MIN) : 0;
	}
	for (i = 0; i < FNV_CM_NX; i++)
		if (q->cpl[i])
			q->cpl[i] = max(q->a[i][i], q->a[FNV_CM_NX + i]
					[FNV_CM_NX + i]) >> FNV_CM_LAT_RIDGE;
}

/*
 * The regressors whose two halves the windows of @q told apart, by type:
 * its commands' halves' squared cosine under 1 - 1/64 (the sectors' are
 * too small a part of the sums, cut to 30 bits, to tell: windows all at
 * depth 29 to 32 told them apart)
 */
static u32 fnv_cm_apart(const struct fnv_cm_sys *q)
{
	u32 apart = 0;
	int t;

	for (t = 0; t < FNV_CM_TYPES; t++) {
		int i = 2 * t;
		u64 cc = q->a[i][i], ll = q->a[FNV_CM_NX + i][FNV_CM_NX + i];
		u64 cl = q->a[i][FNV_CM_NX + i];

		if (cc && ll && cl * cl < cc * ll - ((cc * ll) >> 6))
			apart |= FNV_CM_BIT(i) | FNV_CM_BIT(i + 1);
	}
	return apart;
}

/*
 * The system of the sums @S: scaled to 29 bits, the ridge, the prior's
 * scale (the one multiple of it that fits best); its halves apart, until
 * fnv_cm_sys_tie()
 */
static void fnv_cm_sys_set(struct fnv_cm_sys *q, const struct fnv_cm_sums *S)
{
	u64 top = S->n, sa = 0, sg = 0, amax = 0;
	int i, j, sh = 0;

	for (j = 0; j < FNV_CM_NU; j++)
		top = max3(top, S->a[j][j], S->g[j]);
	/* 29 bits: two halves tied, a_jj + l_j below 2^32 (solve_set) */
	while ((top >> sh) >= (1ULL << 29))
		sh++;
	q->free = 0;
	for (i = 0; i < FNV_CM_NU; i++) {
		for (j = 0; j < FNV_CM_NU; j++) {
			q->a[i][j] = S->a[i][j] >> sh;
			sa += q->a[i][j];
		}
		q->g[i] = S->g[i] >> sh;
		sg += q->g[i];
		amax = max(amax, q->a[i][i]);
		if (q->a[i][i])
			q->free |= FNV_CM_BIT(i);
	}
	q->n = S->n >> sh;
	/*
	 * The ridge of each regressor goes with its size (the root of its
	 * sum), not its sum: where the windows see only the total of two
	 * regressors (one size), the prior's ratio between them is kept (the
	 * total's error is shared in proportion to each one's part of it). A
	 * ridge that went with the sum moved the smaller one most: 4 KiB
	 * writes alone were fitted 2 us per command and 100 us per KiB where
	 * the prior's ratio is 36 us to 2.4 us.
	 */
	for (i = 0; i < FNV_CM_NU; i++)
		q->lam[i] = max(int_sqrt64(q->a[i][i] * amax) >>
				FNV_CM_RIDGE_SHIFT, FNV_CM_RIDGE_MIN);
	q->amax = amax;
	q->tied = 0;
	q->typed = 0;
	for (i = 0; i < FNV_CM_NX; i++)
		q->cpl[i] = 0;
	q->s16 = sa ? clamp_t(u64, div64_u64(sg << 16, sa), 1,
			      FNV_CM_Z_MAX) : 1ULL << 16;
}

/* type @t's sizes told apart: its columns' squared cosine under 1 - 1/64 */
static bool fnv_cm_sep(const struct fnv_cm_sys *q, int t)
{
	u64 cc = q->a[2 * t][2 * t], ss = q->a[2 * t + 1][2 * t + 1];
	u64 cs = q->a[2 * t][2 * t + 1];

	return cc && ss && cs * cs < cc * ss - ((cc * ss) >> 6);
}

/* Fit @q: z of each regressor, 0 where it came out negative */
static void fnv_cm_fit(const struct fnv_cm_sys *q, u64 *z)
{
	unsigned int free = q->free;
	int j;

	for (;;) {
		if (!free) {
			for (j = 0; j < FNV_CM_NU; j++)
				z[j] = 0;
			return;
		}
		j = fnv_cm_solve_set(q, free, z);
		if (j < 0)
			break;
		free &= ~FNV_CM_BIT(j);
	}
	for (j = 0; j < FNV_CM_NX; j++)
		if (q->tied & FNV_CM_BIT(j))
			z[FNV_CM_NX + j] = z[j];
	for (j = 0; j < FNV_CM_NU; j++)
		if (q->typed & FNV_CM_BIT(j))
			z[j] = z[fnv_cm_read_of(j)];
}

/*
 * How far the fit @z is from the windows of @q, in their own sums' units:
 * @zg = z.g / 2^16 and @zaz = z.A.z / 2^32, both 2^32 times the sums over
 * the windows of the predicted busy time (1: the window's) and its
 * square.
 */
static void fnv_cm_fit_sums(const struct fnv_cm_sys *q, const u64 *z,
			    u64 *zg, u64 *zaz)
{
	u64 v;
	int i, j;

	*zg = 0;
	*zaz = 0;
	for (j = 0; j < FNV_CM_NU; j++) {
		v = 0;
		for (i = 0; i < FNV_CM_NU; i++)
			v += q->a[j][i] * z[i];
		*zg += mul_u64_u64_shr(z[j], q->g[j], 16);
		*zaz += mul_u64_u64_shr(z[j], v, 32);
	}
}

/*
 * Type @t's mean request (weighed by busy time) in @F and @H within 1/8,
 * or not in @H at all
 */
static bool fnv_cm_same_size(const struct fnv_cm_sums *F,
			     const struct fnv_cm_sums *H, int t)
{
	u64 cf = F->g[2 * t] + F->g[FNV_CM_NX + 2 * t];
	u64 ch = H->g[2 * t] + H->g[FNV_CM_NX + 2 * t];
	u64 rf, rh;

	/* both halves: held windows at depth 1 are all time alone */
	if (!ch || !cf)
		return true;
	rf = mul_u64_u64_div_u64(F->g[2 * t + 1] + F->g[FNV_CM_NX + 2 * t + 1],
				 1ULL << 16, cf);
	rh = mul_u64_u64_div_u64(H->g[2 * t + 1] + H->g[FNV_CM_NX + 2 * t + 1],
				 1ULL << 16, ch);
	return rf * 8 <= rh * 9 && rh * 8 <= rf * 9;
}

/*
 * Do the held windows count? A window counts where the device was busy
 * with the work completed in it, for as long as that work takes: at a
 * depth that uses the device. At a depth that does not (fnvssd's four
 * dies at depth 3, a 64 KiB read striped over all four beside 4 KiB reads
 * on one each), the busy time is the requests' latency, not their cost:
 * the windows there fitted a 64 KiB read at 1.01 times a 4 KiB one where
 * it takes four times the die time. The windows at max_inflight (the
 * depth's rate trials, a kept max_inflight) judge: while their decayed
 * sums hold FNV_CM_FULL_MIN windows' worth and told sizes apart (the
 * size probes' windows do), the held windows count only if their busy
 * time is within 1/16 of what the full ones' fit predicts (held_ratio,
 * the one multiple of the prediction that fits them best, from
 * FNV_CM_HELD_MIN to FNV_CM_HELD_MAX). Above: latency added to their busy
 * time. Below: their sizes do not follow the full fit (fnvssd's held
 * windows, latency-bound, at 0.52 of it), and in the fit they would pull
 * it back to latency. A type the full windows never saw costs a read of
 * its size in that fit (the prior's rule). With the held windows out,
 * the fit is the full ones' alone (fnv_cm_solve()).
 */
static bool fnv_cm_held_in(struct fnv_cm *m)
{
	struct fnv_cm_sys q;
	u64 z[FNV_CM_NU], zg, zaz;
	int j, t;

	m->held_ratio = 0;
	m->full_sep = false;
	m->full_min = false;
	m->depth_apart = 0;
	if (!fnv_cm_full_enough(m))
		return true;
	m->full_min = true;
	fnv_cm_sys_set(&q, &m->s[FNV_CM_FULL]);
	m->depth_apart = fnv_cm_apart(&q);
	fnv_cm_sys_tie(&q, m->depth_apart);
	/*
	 * Only full windows that told sizes apart judge: at max_inflight
	 * the device's order sets the mix, and where it did not change (two
	 * tenants of 16 requests each, all at the device) their fit keeps the
	 * prior's ratios, and would judge the held windows by them. A type
	 * of the same mean size in both kinds needs no ratio (a writer of
	 * 4 KiB only): its cost per request is what the full windows saw.
	 */
	for (t = 0; t < FNV_CM_TYPES; t++)
		if (q.a[2 * t + 1][2 * t + 1] && !fnv_cm_sep(&q, t) &&
		    !fnv_cm_same_size(&m->s[FNV_CM_FULL], &m->s[FNV_CM_HELD], t))
			return true;
	m->full_sep = true;
	if (!m->s[FNV_CM_HELD].n)
		return true;
	fnv_cm_fit(&q, z);
	/*
	 * A type they never saw (a FUA writer idle in the trial) costs a
	 * read of its size, the prior's rule; the prior's scale without reads
	 */
	for (j = 0; j < FNV_CM_NU; j++) {
		int r = fnv_cm_read_of(j), w = fnv_cm_twin(j);

		if (q.free & FNV_CM_BIT(j))
			continue;
		if (q.free & FNV_CM_BIT(w))
			z[j] = z[w];
		else
			z[j] = j != r && q.free & FNV_CM_BIT(r) ? z[r] : q.s16;
	}
	fnv_cm_sys_set(&q, &m->s[FNV_CM_HELD]);
	fnv_cm_fit_sums(&q, z, &zg, &zaz);
	if (!zaz)
		return true;
	m->held_ratio = min_t(u64, div64_u64(zg << 10, zaz), U32_MAX);
	return m->held_ratio >= FNV_CM_HELD_MIN &&
	       m->held_ratio <= FNV_CM_HELD_MAX;
}

/*
 * What type @t's requests cost by the fit @z, summed over the windows of
 * @q as its commands and sectors came in them (the type's mean request,
 * not one size), both halves (at depth 1 there is no cost half): in the
 * units of the sums, below 2^61
 */
static u64 fnv_cm_type_cost(const struct fnv_cm_sys *q, const u64 *z, int t)
{
	u64 c = 0;
	int j;

	for (j = 2 * t; j < FNV_CM_NU; j += FNV_CM_NX)
		c += min(z[j], FNV_CM_Z_MAX) * q->g[j] +
		     min(z[j + 1], FNV_CM_Z_MAX) * q->g[j + 1];
	return c;
}

/* type @t's commands in @q (both halves), 0 if it has none to fit */
static u64 fnv_cm_type_nr(const struct fnv_cm_sys *q, int t)
{
	if (!(q->free & (FNV_CM_BIT(2 * t) | FNV_CM_BIT(FNV_CM_NX + 2 * t))))
		return 0;
	return q->g[2 * t] + q->g[FNV_CM_NX + 2 * t];
}

/* @x / @y in 1/2^16 (@y > 0), at most 2^32 */
static u64 fnv_cm_ratio16(u64 x, u64 y)
{
	if (div64_u64(x, y) >= 1ULL << 16)
		return 1ULL << 32;
	return mul_u64_u64_div_u64(x, 1ULL << 16, y);
}

/*
 * One type against another, from the long sums. Within one mix the type
 * of a window tells little: the tilt moves the share of writes by a
 * quarter, and what else moves with it the fit takes for a cost. t21's
 * FUA writer beside a reader, on a device where both cost a command:
 * the short sums (a second of windows, one mix) fitted a FUA write at
 * 0.83 to 1.26 reads from one second to the next, and at 0.85 for the
 * whole of a run where the writer had weight 300 and the reader 100
 * (the reader, charged 1.18 times its cost, got 0.221 of the IOPS, 0.25
 * due); over both mixes, 1.04. So the ratio of each type's cost to a
 * read's, at the type's mean request, is the long sums' fit's (every mix
 * of the last minute or so; the held windows only while they are in, as
 * in the short fit), and the short fit keeps the level, the reads and
 * each type's sizes. Types the long sums did not see, or no reads
 * there: the short fit's. A change in one type's cost against a read's
 * (a write cache that fills) is followed at the long sums' pace. The
 * ratio is at the type's mean request in the long sums' windows: a type
 * that changed its sizes (a writer of 4 KiB, then of 128 KiB) keeps the
 * short fit's size line, scaled.
 */
static void fnv_cm_types(struct fnv_cm *m)
{
	struct fnv_cm_sums *all = &m->tmp;
	struct fnv_cm_sys q;
	u64 z[FNV_CM_NU], rs, rf, a, b, k;
	int t, j;

	*all = m->slow[FNV_CM_FULL];
	/*
	 * the held windows as the short fit takes them (fnv_cm_held_in()),
	 * where they may tell one type from another: full windows to judge
	 */
	if (m->held_in && m->full_min)
		fnv_cm_sums_merge(all, &m->slow[FNV_CM_HELD]);
	if (all->n < FNV_CM_SLOW_MIN * (FNV_CM_N_ONE >> FNV_CM_SLOW_IN))
		return;
	fnv_cm_sys_set(&q, all);
	fnv_cm_sys_tie(&q, m->depth_apart);
	if (!fnv_cm_type_nr(&q, FNV_CM_READ))
		return;
	fnv_cm_fit(&q, z);
	rs = fnv_cm_type_cost(&q, z, FNV_CM_READ);
	rf = fnv_cm_type_cost(&q, m->z16, FNV_CM_READ);
	if (!rs || !rf)
		return;
	for (t = 1; t < FNV_CM_TYPES; t++) {
		/* a type that left: its sums decay unevenly, g first */
		if (!fnv_cm_type_nr(&q, t))
			continue;
		/* the long ratio, the short one, in 1/2^16, within 2^32 */
		a = fnv_cm_ratio16(fnv_cm_type_cost(&q, z, t), rs);
		b = fnv_cm_ratio16(fnv_cm_type_cost(&q, m->z16, t), rf);
		if (!a || !b)
			continue;
		/* by at most 16 times either way */
		k = clamp_t(u64, mul_u64_u64_div_u64(a, 1ULL << 16, b),
			    1ULL << 12, 1ULL << 20);
		/* its cost, and its time alone alike */
		for (j = 0; j < FNV_CM_NU; j++)
			if (j % FNV_CM_NX / 2 == t)
				m->z16[j] = clamp_t(u64,
						    mul_u64_u64_shr(m->z16[j],
								    k, 16),
						    max(m->s16 >> 6, 1ULL),
						    FNV_CM_Z_MAX);
		/* per request: over the types' commands (one prior) */
		k = mul_u64_u64_div_u64(a >> 6, fnv_cm_type_nr(&q, FNV_CM_READ),
					fnv_cm_type_nr(&q, t));
		m->type_ratio[t] = min_t(u64, k, U32_MAX);
	}
	m->type_ratio[FNV_CM_READ] = 1024;
}

static void fnv_cm_solve(struct fnv_cm *m)
{
	const struct fnv_cm_sums *F = &m->s[FNV_CM_FULL];
	const struct fnv_cm_sums *H = &m->s[FNV_CM_HELD];
	struct fnv_cm_sums *all = &m->tmp;
	struct fnv_cm_sys q;
	u64 z[FNV_CM_NU], zg, zaz, rss;
	u32 seen;
	int j, t;

	*all = *F;
	/*
	 * Held windows judged out by full ones that hold a size probe's
	 * pair: that fit told the sizes apart by the probe's own windows; it
	 * is the fit, however few they are. Left to FNV_CM_MIN_WINDOWS, six
	 * full windows (probes, a rate trial) that judged them out charged
	 * the prior's ratios until there were sixteen (t29 c/eq on 6.1:
	 * 64 KiB at 2.07 times 4 KiB for 4 s of 15, 3.8 before and after;
	 * the 4 KiB reader got 0.42 of the die time). A rate trial's windows
	 * alone keep the rule: one mix, told apart by the noise at their
	 * edges only (a 64 KiB read fitted at 1 to 15 times a 4 KiB one from
	 * eight of them, in a simulation).
	 */
	seen = F->windows;
	if (!m->held_in && m->probe_windows >= 2)
		seen = max_t(u32, seen, FNV_CM_MIN_WINDOWS);
	if (m->held_in) {
		fnv_cm_sums_merge(all, H);
		seen += H->windows;
	}
	fnv_cm_sys_set(&q, all);
	fnv_cm_sys_tie(&q, m->depth_apart);
	/* held windows no full ones judge: one cost for every type */
	if (!m->full_min && H->windows)
		fnv_cm_sys_tie_types(&q);
	m->s16 = q.s16;
	fnv_cm_fit(&q, z);
	/*
	 * Never seen: the prior's. At least 1/64 of the prior's scaled, so
	 * that a 4 KiB read never costs nothing: the unit of every charge.
	 * Over the first FNV_CM_MIN_WINDOWS windows the prior's ratios at
	 * the windows' scale: three windows fitted a 64 KiB read at 16 times
	 * a 4 KiB one where both cost a command (t20), and a tenant charged
	 * so in its first periods stays that far ahead of the others' virtual
	 * time, served last, until they catch up.
	 */
	for (j = 0; j < FNV_CM_NU; j++)
		m->z16[j] = q.a[j][j] && seen >= FNV_CM_MIN_WINDOWS ?
			    max(z[j], m->s16 >> 6) : m->s16;
	/*
	 * The full windows' fit alone: a type they did not see (a writer
	 * seen only at the held depth) costs a read of its size, as it did
	 * when they judged the held windows (fnv_cm_held_in()), not the
	 * prior at their scale (1.12 to 1.25 times a read, moving with each
	 * probe).
	 */
	for (j = 0; j < FNV_CM_NU && !m->held_in; j++) {
		int r = fnv_cm_read_of(j);

		if (j != r && !q.a[j][j] && q.a[r][r] &&
		    seen >= FNV_CM_MIN_WINDOWS)
			m->z16[j] = m->z16[r];
	}
	/*
	 * One half of a regressor seen, the other not (every window at
	 * depth 1: no cost; the depth not known: no time alone): its own
	 * other half, as the tie in fnv_cm_sys_tie() would have it
	 */
	for (j = 0; j < FNV_CM_NU && seen >= FNV_CM_MIN_WINDOWS; j++) {
		int w = fnv_cm_twin(j);

		if (!q.a[j][j] && q.a[w][w])
			m->z16[j] = m->z16[w];
	}
	/* a type tied into the read's (fnv_cm_sys_tie_types()): the read's */
	for (j = 0; j < FNV_CM_NU && seen >= FNV_CM_MIN_WINDOWS; j++)
		if (q.typed & FNV_CM_BIT(j))
			m->z16[j] = m->z16[fnv_cm_read_of(j)];
	for (t = 0; t < FNV_CM_TYPES; t++)
		m->type_ratio[t] = 0;
	if (seen >= FNV_CM_MIN_WINDOWS)
		fnv_cm_types(m);
	for (t = 0; t < FNV_CM_TYPES; t++)
		m->sep[t] = seen >= FNV_CM_MIN_WINDOWS &&
			    fnv_cm_sep(&q, q.typed & FNV_CM_BIT(2 * t) ?
					   FNV_CM_READ : t);
	/* the residual: n - 2 z.g + z.a.z, over n */
	fnv_cm_fit_sums(&q, z, &zg, &zaz);
	rss = q.n + zaz;
	rss = rss > 2 * zg ? rss - 2 * zg : 0;
	m->resid = q.n ? int_sqrt64(mul_u64_u64_div_u64(rss, 1ULL << 20,
							q.n)) : 0;
}

void fnv_cm_update(struct fnv_cm *m, const struct fnv_cm_win *w)
{
	int t;

	m->tilting = w && fnv_cm_add(m, w);
	/* a device with nothing to measure keeps its last fit */
	if (!m->tilting)
		return;
	m->windows++;
	if (w->full && w->probe)
		m->probe_windows++;
	m->held_in = fnv_cm_held_in(m);
	fnv_cm_solve(m);
	fnv_cm_coef(m);
	for (t = 0; t < FNV_CM_TYPES; t++)
		m->known[t] = true;
	/*
	 * Each kind loses 1/16 with its own windows; the full ones also
	 * 1/1024 with each held one: they come from rate trials and size
	 * probes, which may be minutes apart, and a fit they froze would
	 * judge every held window by a device that has changed since
	 * (half-life about 71 s at the default period, after which the held
	 * windows count unjudged). A probe each FNV_CM_PROBE_EVERY periods
	 * keeps them over FNV_CM_FULL_MIN windows' worth (11.6 of them);
	 * at 1/256, they were not.
	 */
	fnv_cm_decay(&m->slow[FNV_CM_FULL], FNV_CM_SLOW_SHIFT);
	fnv_cm_decay(&m->slow[FNV_CM_HELD], FNV_CM_SLOW_SHIFT);
	if (w->full) {
		fnv_cm_decay(&m->s[FNV_CM_FULL], FNV_CM_DECAY_SHIFT);
	} else {
		fnv_cm_decay(&m->s[FNV_CM_HELD], FNV_CM_DECAY_SHIFT);
		fnv_cm_decay(&m->s[FNV_CM_FULL], FNV_CM_DECAY_SHIFT + 6);
	}
}

u32 fnv_cm_tilt(const struct fnv_cm *m, u64 n, u64 nr_wr, u64 sect)
{
	u64 x, ref;
	bool up, down;

	if (!m->tilting || !n)
		return FNV_CM_TILT_ONE;
	if (!(m->windows & 2)) {	/* by size: 9/8 of the window's mean */
		x = div64_u64(sect << 6, n);
		ref = m->win_sect16 << 2;
		up = x * 8 > ref * 9;
		down = x * 9 < ref * 8;
	} else {			/* by writes: a tenth of the commands */
		x = div64_u64(nr_wr << 10, n);
		ref = m->win_wr;
		up = x > ref + 102;
		down = x + 102 < ref;
	}
	if (!up && !down)
		return FNV_CM_TILT_ONE;
	return up ^ !(m->windows & 1) ? FNV_CM_TILT_UP : FNV_CM_TILT_DOWN;
}

/*
 * The size probe. At max_inflight the device's order sets the mix (two
 * tenants of 16 requests each are all at the device): the full windows
 * saw one mix, and could not judge the held ones, which on fnvssd measure
 * latency (a 64 KiB read striped over four dies fitted 1.06 to 1.43 times
 * a 4 KiB one where it takes four times the die time). So the windows are
 * made to differ: for one period only the tenants of smaller requests are
 * dispatched, at max_inflight, then for one only the larger ones. Each is
 * a full window of one class; two of them tell the sizes apart. Classes
 * by size only, and by 3/2 of the mean: classes by the share of writes
 * (a FUA writer beside a reader) took t18's tenants, whose fio verifies
 * what it wrote in phases of 64 writes and 64 reads, now in one class and
 * now in the other, and held them in turn (3 windows of 12 kept two of
 * them running through, 12 before); merges move a 4 KiB writer's mean by
 * less. The held
 * class waits for a period: its virtual time did not move, and it is
 * served first after (its share over the probe is what its weight gives),
 * and its controller does not judge the periods it waited in
 * (fairnvme-ctl.c).
 */
u32 fnv_cm_probe_class(const struct fnv_cm *m, u64 n, u64 sect)
{
	u64 x, ref;

	if (!n || !m->win_sect16)
		return 0;
	x = div64_u64(sect << 6, n);
	ref = m->win_sect16 << 2;
	if (x * 2 >= ref * 3)
		return FNV_CM_PROBE_LARGE;
	if (x * 3 <= ref * 2)
		return FNV_CM_PROBE_SMALL;
	return 0;
}

/*
 * The type probe. Where every tenant's requests are of one size (a FUA
 * writer beside a reader, 4 KiB each) the sizes make no classes, and
 * nothing tells a FUA write from a read but the full windows: at
 * max_inflight in the device's order, one mix, if the depth ever held
 * requests back (on fnvssd's four dies, t29 c/fua, it did not), so the
 * held windows' tie stood (fnv_cm_sys_tie_types()): a FUA write charged
 * a read where its program takes four times a read's die time, and the
 * writer at 300 beside a reader at 100 had 0.92 of the die time (0.75
 * due). The same two periods then hold the classes by type: the tenants
 * without FUA writes (whatever else they do), then those of FUA writes
 * only. A tenant that mixes reads and FUA writes (a database) is in
 * neither and runs in both: the two windows still differ. Not by the
 * share of writes: t18's tenants, whose fio verifies what it wrote in
 * phases, would be held in turn (above); none of them writes with FUA.
 */
u32 fnv_cm_probe_tclass(u64 n, u64 nr_fua)
{
	if (!n)
		return 0;
	if (nr_fua * 8 >= n * 7)
		return FNV_CM_PROBE_FUA;
	if (nr_fua * 8 <= n)
		return FNV_CM_PROBE_NOFUA;
	return 0;
}

u32 fnv_cm_probe_kind(const u32 *need, const u32 *tneed, u32 min)
{
	if (need[FNV_CM_PROBE_SMALL] >= min && need[FNV_CM_PROBE_LARGE] >= min)
		return FNV_CM_PROBE_BY_SIZE;
	if (tneed[FNV_CM_PROBE_NOFUA] >= min && tneed[FNV_CM_PROBE_FUA] >= min)
		return FNV_CM_PROBE_BY_TYPE;
	return 0;
}

/*
 * The first FNV_CM_PROBE_FIRST_NR probes, while the full windows cannot
 * judge: FNV_CM_PROBE_FIRST periods apart. Only the first: where their
 * windows did not count (a device busy under 3/4 of a period, too few
 * requests) the full windows may never judge, and the probes take their
 * usual course.
 */
static bool fnv_cm_probe_first(const struct fnv_cm *m)
{
	return !m->full_min && m->probes < FNV_CM_PROBE_FIRST_NR;
}

bool fnv_cm_probe_due(struct fnv_cm *m)
{
	u64 a = m->mix_sect16, b = m->probe_sect16;
	bool moved;

	if (m->probe_wait < U32_MAX)
		m->probe_wait++;
	/*
	 * A new mix: the full sums keep the last one's sizes for a minute
	 * (they lose 1/1024 per held window), and a size it never had is
	 * priced on the line through the old ones (a 16 KiB read on fnvssd,
	 * one page like a 4 KiB one, at 4.5 times it after 4 KiB beside
	 * 64 KiB)
	 */
	moved = a * 4 > b * 5 || b * 4 > a * 5 ||
		m->mix_wr > m->probe_wr + 128 || m->probe_wr > m->mix_wr + 128;
	if (fnv_cm_probe_first(m))
		return m->probe_wait >= FNV_CM_PROBE_FIRST;
	return m->probe_wait >= (m->full_sep && !moved ? FNV_CM_PROBE_EVERY :
				 m->probe_soon ?: FNV_CM_PROBE_SOON);
}

void fnv_cm_probe_ran(struct fnv_cm *m)
{
	/*
	 * Sooner while the last ones told sizes apart (a new mix), twice
	 * as late each time they did not, up to FNV_CM_PROBE_EVERY: a type
	 * whose size the probes cannot change (writes merged more at the
	 * depth held than at max_inflight) would keep them coming. Not
	 * before the full windows can judge at all (three probes' worth,
	 * FNV_CM_FULL_MIN; fnv_cm_probe_due()): until then the held
	 * windows' types are tied.
	 */
	m->probe_soon = m->full_sep || fnv_cm_probe_first(m) ||
			!m->probe_soon ?
			FNV_CM_PROBE_SOON :
			min(m->probe_soon * 2, FNV_CM_PROBE_EVERY);
	m->probe_wait = 0;
	m->probes++;
	m->probe_sect16 = m->mix_sect16;
	m->probe_wr = m->mix_wr;
}

/*
 * The alone estimator: by Little's law a tenant of q requests outstanding
 * waits q times what one of them takes of the device at that depth, by
 * the fit (q - 1) times its cost and once its time alone (the
 * depth, above): behind QEMU's 2000 commands/s, where both are 500 us, a tenant
 * of 256 writes outstanding 128 ms; on fnvssd's four dies, a 4 KiB read
 * costs 375 us (a quarter of its 1.5 ms) and 16 of them wait 7.1 ms. At
 * least the device's time for one request (@l1_ns). Its mean request, for
 * the types in @nr, the @nr_fua writes with FUA at a FUA write's cost (a
 * 4 KiB FUA writer on fnvssd holds a die for a program, 1.5 ms; priced as
 * a cached write, its time alone was predicted at 0.35 to 0.53 of fio's,
 * t29 c/fua on 6.12), their sectors a share of the writes' in proportion.
 */
u64 fnv_cm_alone_ns(const struct fnv_cm *m, u64 q16, const u64 *nr,
		    const u64 *sect, u64 nr_fua, u64 l1_ns)
{
	u64 c = 0, l = 0, n = 0, tn[FNV_CM_TYPES], ts[FNV_CM_TYPES];
	int t;

	nr_fua = min(nr_fua, nr[FNV_CM_WRITE]);
	tn[FNV_CM_READ] = nr[FNV_CM_READ];
	ts[FNV_CM_READ] = sect[FNV_CM_READ];
	tn[FNV_CM_FUA] = nr_fua;
	ts[FNV_CM_FUA] = nr_fua ? div64_u64(sect[FNV_CM_WRITE] * nr_fua,
					    nr[FNV_CM_WRITE]) : 0;
	tn[FNV_CM_WRITE] = nr[FNV_CM_WRITE] - nr_fua;
	ts[FNV_CM_WRITE] = sect[FNV_CM_WRITE] - ts[FNV_CM_FUA];
	for (t = 0; t < FNV_CM_TYPES; t++) {
		if (!tn[t])
			continue;
		c += tn[t] * m->cmd_ns[t] +
		     mul_u64_u64_shr(ts[t], m->sect_ns16[t], 16);
		l += tn[t] * m->lat_cmd_ns[t] +
		     mul_u64_u64_shr(ts[t], m->lat_sect_ns16[t], 16);
		n += tn[t];
	}
	if (!n)
		return l1_ns;
	c = q16 > 1ULL << 16 ?
	    mul_u64_u64_div_u64(q16 - (1ULL << 16), c, n << 16) : 0;
	return max(l1_ns, c + div64_u64(l, n));
}
