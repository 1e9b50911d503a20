// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: TABS, per-type fair bandwidth between reads and FUA writes.
 *
 * A write with FUA set makes the SSD program flash before it completes,
 * and a read behind a program on the same die waits for it: a few FUA
 * writers cut a reader's bandwidth to that of a writer (TABS, section 3).
 * TABS (Kim, Kim, Won, HotStorage '22) holds FUA writes back so that each
 * type gets its fair bandwidth:
 *
 * 1. The goal (Eq. 1). FBW_x = BWmax_x * I_x / I_total, x being reads or
 *    FUA writes, BWmax_x the bandwidth of type x alone on the device, I_x
 *    the host's demand of type x in the period the phase started from and
 *    I_total = I_read + I_fua. The paper takes I_x as the issue rate, and
 *    in its evaluation as the number of workers of the type. What the host
 *    issues of a type while the device is unfair is what the device gave
 *    it, not what it wants; what it has outstanding (inserted and not
 *    finished), sampled at each tick of the IDLE period, is its workers
 *    times their queue depths. With issued counts, one writer and three
 *    readers at the same depth on fnvssd gave I_fua 0.19 rather than 0.25,
 *    and FUA writes got 0.75 of their share. Where the host is made of
 *    weighted tenants, a type's fair share is what the tenants' weights
 *    give it: the caller passes (tabs_demand()) each tenant's weight split
 *    by its outstanding reads and FUA writes, summed over its tenants, and
 *    I_x is that, summed over the ticks. Then a FUA-only tenant of weight
 *    300 beside a reader of weight 100 has FBW_fua = 0.75 BWmax_fua and
 *    TABS holds it to what its weight gives it, no lower (with the
 *    outstanding counts, 0.5: TABS cut it to 0.1 to 0.56 of the device).
 *    Equal weights, one worker a tenant, is the paper's count of workers;
 *    one tenant is the outstanding counts. Without tabs_demand() calls,
 *    I_x is the outstanding counts, and the issued counts if they were
 *    never sampled. Other writes count towards the threshold that starts
 *    scheduling but are no party to it.
 *
 * 2. What is held. Only FUA writes, only in the SCHED phase, and only
 *    those of a tenant that has reads of its own outstanding: TABS keeps
 *    a tenant's reads from its own FUA writes (a database's lookups
 *    behind its O_DSYNC log), while between tenants the weights share the
 *    device, each request charged its device time by the cost model (a
 *    FUA write holding a die for a program is charged that, what it takes
 *    from the reads beside it). Held between tenants too, on Eq. 1's
 *    goal, a FUA-only tenant was held to its share of BWmax_fua, and a
 *    BWmax_fua measured at 1.05 MB/s where fio alone did 2.4 held a FUA
 *    writer of weight 300 beside a reader of weight 100 to 0.41 of the
 *    die time on fnvssd (0.75 due; t29 c:fua). The caller puts them in a
 *    FIFO delay queue (tabs_holds()) and releases its head while
 *    tabs_may_release() allows (and may ask it first for a write that
 *    arrives to an empty queue, held since now: it then never waits).
 *    Each read dispatched adds alpha FUA writes of credit, the throttling
 *    factor, so FUA writes go at about alpha per read (N_fua = alpha *
 *    N_read); a release takes one write of credit. Credit is capped at
 *    max(2, 2 * alpha) writes, so that reads dispatched while no FUA
 *    write waits do not bank a burst. Reads are never held: they are
 *    what is protected, and holding them would only slow the credit the
 *    FUA writes wait for.
 *
 * 3. No deadlock, no starvation. A held FUA write is released without
 *    credit when its tenant has no read outstanding (inserted and not
 *    finished: a lone FUA writer is never throttled, there is no read to
 *    protect and none to bring credit), and once it was held max_wait_ms
 *    (a "forced" release: the bound on what TABS adds to a FUA write's
 *    latency). In IDLE every FUA write is released, so the end of a SCHED
 *    phase drains the delay queue. The caller asks again when its head's
 *    max_wait_ms runs out and after a tick that returned TABS_EV_PHASE.
 *    The queue is one FIFO: a write behind a head still held waits for
 *    it, though its own tenant's reads may have ended (max_wait_ms bounds
 *    that too).
 *
 * 4. The phases (section 4.2). IDLE schedules nothing and counts the
 *    requests issued per type since the reset period started. When at
 *    least threshold requests were issued in it, reads and FUA writes
 *    among them, and both BWmax are known (set, or measured: without them
 *    there is no goal, and a SCHED phase on the paper's alpha alone held
 *    a FUA writer of weight 300 beside a reader of weight 100 to 0.256 of
 *    the IOPS for good), SCHED starts from those counts: I_x, FBW_x by
 *    Eq. 1, alpha
 *    = I_read / I_fua (the paper's "number of read requests divided by the
 *    number of write requests"), no credit. Once an epoch's feedback ran,
 *    a later SCHED phase starts from the alpha it left instead, rescaled
 *    to the new mix: at the fair point FUA writes go per read as
 *    FBW_fua / FBW_read, that is as I_fua / I_read (BWmax and the sizes
 *    being the device's), the inverse of the paper's start; without this
 *    every phase (sched_ms) started far from the point and spent epochs
 *    finding it again. Otherwise the counts restart
 *    every reset_ms. A lone type never starts SCHED. SCHED lasts sched_ms,
 *    then IDLE measures the mix again; it ends early at the end of an epoch
 *    in which reads or FUA writes were not issued at all (the mix is gone).
 *    Meanwhile the caller's demand is summed over each epoch, and a mix
 *    that moved (I_fua / I_read by more than TABS_REGOAL_PCT %) moves the
 *    goal at the epoch's end, alpha rescaled as at a phase's start
 *    (tabs_regoal()).
 *
 * 5. The feedback (section 4.3). Every epoch_ms of SCHED, the bandwidth of
 *    each type (bytes completed over the epoch's length) is compared with
 *    its FBW: q_x = BW_x / FBW_x. In the paper a type below 90 % of its
 *    FBW moves alpha by its change ratio q_x (below 1): reads multiply
 *    alpha by it (fewer FUA writes), FUA writes divide alpha by it (more).
 *    Then a type between 90 % and 100 % is left there, the other type
 *    taking the rest: the shares settle anywhere in a band below the goal
 *    on one side only (t21: a FUA writer due 0.25 of the IOPS got 0.212 to
 *    0.250). Here, with both FBW known, an epoch whose fairness factor
 *    (Eq. 2: min over max of the q_x) is below TABS_FEEDBACK_PCT (90 %)
 *    moves alpha by q_read / q_fua, whichever type is behind: the paper's
 *    two moves in one where both are behind, and a band around the goal.
 *    FUA writes ahead lower alpha from the FUA writes per read that went,
 *    if fewer (alpha did not hold them), and not at all while most of
 *    them went without credit (a reader that pauses: alpha did not hold
 *    them, and would fall to its least and stay). The ratio is bounded
 *    to 1/16..16, and so is the move, so one bad epoch (a type that got
 *    nothing through) moves alpha at most 16 times; alpha always moves by
 *    at least 1/1024 and stays within TABS_ALPHA_MIN..TABS_ALPHA_MAX. With
 *    one FBW only (a BWmax not known), the paper's rule on that type. An
 *    epoch in which tabs_holds() took no FUA write (FUA-only tenants
 *    beside readers, which the weights share: see 2.) moves nothing.
 *    The epoch's fairness factor is kept for debugfs, in 1/1000 and
 *    inverted when above 1 as the paper shows it.
 *
 * 6. BWmax. Set per type, or measured (0, auto): over the intervals
 *    between ticks in which type x was in flight (dispatched in it, or in
 *    flight when it began) and no other type was (reads, FUA writes, other
 *    writes), and x completed bytes, its rate is bytes / interval. A rate
 *    above BWmax_x replaces it; a lower one moves it down by 1/64 of the
 *    gap, so a device that slows down is followed, slowly. An interval
 *    with fewer than TABS_LONE_MIN_NR of the type's requests, or after
 *    one that was not the type's alone (a run's first and last moments),
 *    measures nothing; and a rate counts only as the lower of it and the
 *    previous interval's, so BWmax rises only when two lone intervals in
 *    a row were faster (tabs_bwmax_lone()). 0 (unknown) until three lone
 *    intervals in a row (the first measures nothing). Limits: a type
 *    only ever seen beside others is never measured; a lone workload
 *    too shallow to saturate the device underestimates it; it is the best
 *    seen, not a guarantee. TABS
 *    schedules only while both are known: set them on a host where one
 *    type never runs alone.
 *
 * The core keeps no clock and takes no lock: the caller passes ns
 * timestamps and serializes the calls. All arithmetic is u64, the products
 * done by mul_u64_u64_div_u64() with bounded quotients: bandwidths are
 * clamped to TABS_MAX_BWMAX, and no rate is taken over less than
 * TABS_MIN_INTERVAL_NS.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <fairnvme/tabs.h>

#define TABS_NSEC_PER_MSEC	1000000ULL
#define TABS_NSEC_PER_SEC	1000000000ULL
/* Bytes counted at most in a rate: with 1 ms, a quotient below 2^60. */
#define TABS_BYTES_MAX		1125899906842624ULL	/* 2^50 */
/* I_x counted at most when alpha is rescaled to a new mix */
#define TABS_I_MAX		1048576ULL	/* 2^20 */
/* tabs_fairness(): BW / FBW in parts per million */
#define TABS_PPM		1000000ULL

static inline u64 tabs_ms(u32 ms)
{
	return ms * TABS_NSEC_PER_MSEC;
}

/* @now - @from, 0 if the clock seems to have gone back */
static inline u64 tabs_elapsed(u64 from, u64 now)
{
	return now > from ? now - from : 0;
}

static inline bool tabs_type_ok(int type)
{
	return type >= 0 && type < TABS_NR_TYPES;
}

/* Bytes per second over @ns (0 under TABS_MIN_INTERVAL_NS) */
static u64 tabs_rate(u64 bytes, u64 ns)
{
	u64 r;

	if (ns < TABS_MIN_INTERVAL_NS)
		return 0;
	r = mul_u64_u64_div_u64(min_t(u64, bytes, TABS_BYTES_MAX),
				TABS_NSEC_PER_SEC, ns);
	return min_t(u64, r, TABS_MAX_BWMAX);
}

void tabs_params_init(struct tabs_params *p)
{
	*p = (struct tabs_params){
		.reset_ms = TABS_DEF_RESET_MS,
		.threshold = TABS_DEF_THRESHOLD,
		.epoch_ms = TABS_DEF_EPOCH_MS,
		.sched_ms = TABS_DEF_SCHED_MS,
		.max_wait_ms = TABS_DEF_MAX_WAIT_MS,
		.bwmax = { TABS_DEF_BWMAX, TABS_DEF_BWMAX },
	};
}

void tabs_init(struct tabs *t, u64 now)
{
	*t = (struct tabs){};
	t->phase = TABS_IDLE;
	t->start = now;
	t->epoch_start = now;
	t->ival_start = now;
	t->alpha = TABS_ALPHA_ONE;
}

void tabs_restart(struct tabs *t, u64 now)
{
	int x;

	t->phase = TABS_IDLE;
	t->credit = 0;
	t->start = now;
	t->epoch_start = now;
	t->ival_start = now;
	for (x = 0; x < TABS_NR_TYPES; x++) {
		t->nr_issued[x] = 0;
		t->nr_epoch[x] = 0;
		/* requests dispatched while off went unseen: measure nothing */
		t->seen[x] = true;
	}
	for (x = 0; x < TABS_NR_FAIR; x++) {
		t->bytes_epoch[x] = 0;
		t->disp_epoch[x] = 0;
		t->bytes_ival[x] = 0;
		t->nr_ival[x] = 0;
		t->lone_prev[x] = false;
		t->rate_prev[x] = 0;
		t->out_sum[x] = 0;
		t->dem_sum[x] = 0;
	}
	t->credit_epoch = 0;
	t->held_epoch = 0;
	t->dem_set = false;
}

u64 tabs_fbw(u64 bwmax, u64 i_x, u64 i_total)
{
	if (!i_total)
		return 0;
	/* I_x <= I_total: the quotient is at most BWmax */
	return mul_u64_u64_div_u64(bwmax, min(i_x, i_total), i_total);
}

u32 tabs_fairness(const u64 bw[TABS_NR_FAIR], const u64 fbw[TABS_NR_FAIR])
{
	u64 q[TABS_NR_FAIR];
	int x;

	for (x = 0; x < TABS_NR_FAIR; x++) {
		if (!fbw[x])
			return 0;
		/* below 2^40 * 10^6 < 2^60 */
		q[x] = mul_u64_u64_div_u64(min_t(u64, bw[x], TABS_MAX_BWMAX),
					   TABS_PPM, fbw[x]);
		if (!q[x])
			return 0;
	}
	if (q[TABS_READ] <= q[TABS_FUA])
		return mul_u64_u64_div_u64(q[TABS_READ], 1000, q[TABS_FUA]);
	return mul_u64_u64_div_u64(q[TABS_FUA], 1000, q[TABS_READ]);
}

const char *tabs_phase_name(int phase)
{
	switch (phase) {
	case TABS_IDLE:
		return "idle";
	case TABS_SCHED:
		return "sched";
	}
	return "?";
}

void tabs_inserted(struct tabs *t, int type)
{
	if (!tabs_type_ok(type))
		return;
	t->nr_issued[type]++;
	t->nr_epoch[type]++;
	t->nr_outstanding[type]++;
}

bool tabs_holds(struct tabs *t, int type, u64 own_reads)
{
	if (type != TABS_FUA || t->phase != TABS_SCHED || !own_reads)
		return false;
	t->nr_held++;
	t->held_epoch++;
	return true;
}

bool tabs_may_release(struct tabs *t, const struct tabs_params *p, u64 now,
		      u64 held_since, u64 own_reads)
{
	enum tabs_release why;

	if (t->phase == TABS_IDLE) {
		why = TABS_REL_IDLE;
	} else if (!own_reads || !t->nr_outstanding[TABS_READ]) {
		why = TABS_REL_LONE;
	} else if (t->credit >= TABS_ALPHA_ONE) {
		t->credit -= TABS_ALPHA_ONE;
		t->credit_epoch++;
		why = TABS_REL_CREDIT;
	} else if (tabs_elapsed(held_since, now) >= tabs_ms(p->max_wait_ms)) {
		why = TABS_REL_FORCED;
	} else {
		return false;
	}
	t->nr_released[why]++;
	return true;
}

void tabs_dispatched(struct tabs *t, int type, u32 bytes)
{
	u64 cap;

	if (!tabs_type_ok(type))
		return;
	t->nr_inflight[type]++;
	t->seen[type] = true;
	t->nr_dispatched[type]++;
	t->bytes_dispatched[type] += bytes;
	if (type < TABS_NR_FAIR)
		t->disp_epoch[type]++;
	if (type != TABS_READ || t->phase != TABS_SCHED)
		return;
	cap = 2 * (u64)max(t->alpha, TABS_ALPHA_ONE);
	t->credit = min(t->credit + t->alpha, cap);
}

/* @nr requests of @type (valid) completed @bytes: never below 0 */
static void tabs_account(struct tabs *t, int type, u64 nr, u64 bytes)
{
	t->nr_inflight[type] -= min(nr, t->nr_inflight[type]);
	if (type >= TABS_NR_FAIR)
		return;
	t->bytes_epoch[type] += bytes;
	t->bytes_ival[type] += bytes;
	t->nr_ival[type] += nr;
}

void tabs_completed(struct tabs *t, int type, u32 bytes)
{
	if (tabs_type_ok(type))
		tabs_account(t, type, 1, bytes);
}

void tabs_finished(struct tabs *t, int type)
{
	if (tabs_type_ok(type) && t->nr_outstanding[type])
		t->nr_outstanding[type]--;
}

void tabs_done(struct tabs *t, int type, u64 nr, u64 bytes)
{
	if (!tabs_type_ok(type))
		return;
	tabs_account(t, type, nr, bytes);
	t->nr_outstanding[type] -= min(nr, t->nr_outstanding[type]);
}

/* One BWmax measurement of a type: up at once, down by 1/64 of the gap */
static void tabs_bwmax_sample(u64 *bwmax, u64 rate)
{
	if (rate >= *bwmax)
		*bwmax = rate;
	else
		*bwmax -= (*bwmax - rate) >> TABS_BWMAX_DOWN_SHIFT;
}

/*
 * Type @x ran alone over an interval at @rate: BWmax moves to the lower
 * of it and the type's previous lone interval, so one interval does not
 * raise it alone. Taken one interval at a time, a burst above the device's
 * sustained rate (QEMU's throttle lets a bucket of requests through after
 * an idle moment; completions are folded in at a tick, not when they end)
 * set BWmax_read to 9.8 and 10.2 MB/s on a device that does 8.2 MB/s of
 * 4 KiB reads and FUA writes alike (2000 commands/s), in two of five t21
 * runs on 6.12; TABS then held a FUA writer of weight 100 beside a reader
 * of 300 to 0.211 of the IOPS, 0.25 due.
 */
static void tabs_bwmax_lone(struct tabs *t, int x, u64 rate)
{
	if (t->rate_prev[x])
		tabs_bwmax_sample(&t->bwmax_auto[x], min(rate, t->rate_prev[x]));
	t->rate_prev[x] = rate;
}

/* End the interval since the last tick: measure the types that ran alone */
static void tabs_measure(struct tabs *t, u64 now)
{
	u64 len = tabs_elapsed(t->ival_start, now);
	int x, y;

	if (now < t->ival_start) {	/* the clock went back: start again */
		t->ival_start = now;
		return;
	}
	if (len < TABS_MIN_INTERVAL_NS)	/* too short: keep counting */
		return;
	for (x = 0; x < TABS_NR_FAIR; x++) {
		bool lone = t->seen[x] && t->bytes_ival[x];

		for (y = 0; y < TABS_NR_TYPES; y++)
			if (y != x && t->seen[y])
				lone = false;
		if (lone && t->lone_prev[x] &&
		    t->nr_ival[x] >= TABS_LONE_MIN_NR)
			tabs_bwmax_lone(t, x, tabs_rate(t->bytes_ival[x], len));
		else
			t->rate_prev[x] = 0;
		t->bytes_ival[x] = 0;
		t->nr_ival[x] = 0;
		t->lone_prev[x] = lone;
	}
	for (y = 0; y < TABS_NR_TYPES; y++)
		t->seen[y] = t->nr_inflight[y] > 0;
	t->ival_start = now;
}

static void tabs_set_fbw(struct tabs *t)
{
	u64 total = t->i[TABS_READ] + t->i[TABS_FUA];
	int x;

	for (x = 0; x < TABS_NR_FAIR; x++)
		t->fbw[x] = tabs_fbw(t->bwmax[x], t->i[x], total);
}

static void tabs_reset_counts(struct tabs *t, u64 now)
{
	int x;

	t->start = now;
	for (x = 0; x < TABS_NR_TYPES; x++)
		t->nr_issued[x] = 0;
	for (x = 0; x < TABS_NR_FAIR; x++) {
		t->out_sum[x] = 0;
		t->dem_sum[x] = 0;
	}
}

static void tabs_reset_epoch(struct tabs *t, u64 now)
{
	int x;

	t->epoch_start = now;
	t->credit_epoch = 0;
	t->held_epoch = 0;
	for (x = 0; x < TABS_NR_TYPES; x++)
		t->nr_epoch[x] = 0;
	for (x = 0; x < TABS_NR_FAIR; x++) {
		t->bytes_epoch[x] = 0;
		t->disp_epoch[x] = 0;
		t->dem_epoch[x] = 0;
	}
}

static void tabs_to_idle(struct tabs *t, u64 now)
{
	t->phase = TABS_IDLE;
	t->credit = 0;
	tabs_reset_counts(t, now);
}

/*
 * The feedback found alpha_fb for the mix i_fb it ran on: at a fair point
 * N_fua / N_read = FBW_fua / FBW_read goes as I_fua / I_read, so that alpha
 * is rescaled to the mix t->i rather than learned again from I_read /
 * I_fua (its inverse).
 */
static u64 tabs_rescale(const struct tabs *t)
{
	u64 num = min_t(u64, t->i[TABS_FUA], TABS_I_MAX) *
		  min_t(u64, t->i_fb[TABS_READ], TABS_I_MAX);
	u64 den = min_t(u64, t->i[TABS_READ], TABS_I_MAX) *
		  min_t(u64, t->i_fb[TABS_FUA], TABS_I_MAX);

	/* below 2^20 * 2^40: the quotient fits */
	return mul_u64_u64_div_u64(t->alpha_fb, num, max(den, 1ULL));
}

/* Both I_x below TABS_I_MAX, in the same ratio */
static void tabs_i_fit(u64 i[TABS_NR_FAIR])
{
	while (i[TABS_READ] > TABS_I_MAX || i[TABS_FUA] > TABS_I_MAX) {
		i[TABS_READ] = max(i[TABS_READ] >> 1, 1ULL);
		i[TABS_FUA] = max(i[TABS_FUA] >> 1, 1ULL);
	}
}

/* IDLE -> SCHED from the counts of the reset period: Eq. 1 and alpha */
static unsigned int tabs_to_sched(struct tabs *t, u64 now)
{
	u32 old = t->alpha;
	u64 a;

	/*
	 * The demand: by the tenants' weights, else outstanding requests
	 * per type, else issued counts.
	 */
	if (t->dem_sum[TABS_READ] && t->dem_sum[TABS_FUA]) {
		t->i[TABS_READ] = t->dem_sum[TABS_READ];
		t->i[TABS_FUA] = t->dem_sum[TABS_FUA];
	} else if (t->out_sum[TABS_READ] && t->out_sum[TABS_FUA]) {
		t->i[TABS_READ] = t->out_sum[TABS_READ];
		t->i[TABS_FUA] = t->out_sum[TABS_FUA];
	} else {
		t->i[TABS_READ] = t->nr_issued[TABS_READ];
		t->i[TABS_FUA] = t->nr_issued[TABS_FUA];
	}
	/* a long reset period */
	tabs_i_fit(t->i);
	tabs_set_fbw(t);
	if (t->i_fb[TABS_READ] && t->i_fb[TABS_FUA]) {
		a = tabs_rescale(t);
	} else {
		/* alpha = I_read / I_fua, I_fua > 0: no overflow */
		a = div64_u64(min_t(u64, t->i[TABS_READ], 1ULL << 40) <<
			      TABS_ALPHA_SHIFT, t->i[TABS_FUA]);
	}
	t->alpha = clamp_t(u64, a, TABS_ALPHA_MIN, TABS_ALPHA_MAX);
	t->credit = 0;
	t->phase = TABS_SCHED;
	t->nr_sched++;
	tabs_reset_counts(t, now);
	tabs_reset_epoch(t, now);
	return TABS_EV_PHASE | (t->alpha != old ? TABS_EV_ALPHA : 0);
}

/* Section 4.3: the type's change ratio applied to alpha, if it is behind */
static u64 tabs_feedback(const struct tabs *t, int x, u64 a)
{
	u64 ratio;

	if (!t->fbw[x] ||
	    t->bw[x] * 100 >= t->fbw[x] * TABS_FEEDBACK_PCT)
		return a;
	/* BW < FBW: below TABS_ALPHA_ONE */
	ratio = mul_u64_u64_div_u64(t->bw[x], TABS_ALPHA_ONE, t->fbw[x]);
	if (ratio < TABS_RATIO_MIN)
		ratio = TABS_RATIO_MIN;
	/* floor down, ceiling up: alpha always moves */
	if (x == TABS_READ)
		a = (a * ratio) >> TABS_ALPHA_SHIFT;
	else
		a = div64_u64((a << TABS_ALPHA_SHIFT) + ratio - 1, ratio);
	return clamp_t(u64, a, TABS_ALPHA_MIN, TABS_ALPHA_MAX);
}

/*
 * Both FBW known: alpha moves by q_read / q_fua, q_x = BW_x / FBW_x, when
 * the epoch's fairness factor is below TABS_FEEDBACK_PCT %, whichever type
 * is ahead. Where only the type behind moved it (the paper's rule, kept
 * for a lone FBW), a type anywhere between 90 % and 100 % of its FBW was
 * left there while the other took the rest: t21's FUA writer at 100
 * beside a reader at 300 settled at 0.212 to 0.250 of the IOPS (0.25
 * due), never above. Both types behind is the paper's two moves in one
 * (alpha * q_read / q_fua). @disp: the reads and FUA writes dispatched in
 * the epoch, @credit the FUA writes of them let go by credit.
 *
 * FUA writes ahead:
 * - while most of them went without credit (no read of their tenant
 *   outstanding: a reader that pauses; FUA-only tenants, never held;
 *   held max_wait_ms), alpha did not hold them and
 *   a lower one would not: it stays. Else it fell to TABS_ALPHA_MIN for
 *   a reader paced just under its FBW, and stayed there.
 * - while fewer went per read than alpha allows, the credit did not hold
 *   them either, and alpha above what went moves nothing (the first
 *   phase's alpha = I_read / I_fua, 3 for a FUA writer at 100 beside a
 *   reader at 300, where 0.37 went: down by 6 % an epoch it held nothing
 *   for a whole t21 run). The move starts from what went, once both
 *   types dispatched TABS_LONE_MIN_NR in the epoch.
 * Either way alpha moves by at most TABS_RATIO_MAX times an epoch.
 */
static u64 tabs_feedback_rel(const struct tabs *t, u64 a,
			     const u64 disp[TABS_NR_FAIR], u64 credit)
{
	u64 q[TABS_NR_FAIR], ratio, old = a;
	int x;

	for (x = 0; x < TABS_NR_FAIR; x++)
		/* below 2^40 * 10^6 < 2^60 */
		q[x] = mul_u64_u64_div_u64(min_t(u64, t->bw[x], TABS_MAX_BWMAX),
					   TABS_PPM, t->fbw[x]);
	if (!q[TABS_READ] && !q[TABS_FUA])
		return a;	/* nothing completed: nothing learned */
	if (t->fairness * 100 >= 1000 * TABS_FEEDBACK_PCT)
		return a;
	if (q[TABS_READ] / TABS_RATIO_MAX >= q[TABS_FUA])
		ratio = TABS_ALPHA_ONE * TABS_RATIO_MAX;
	else if (q[TABS_FUA] / TABS_RATIO_MAX >= q[TABS_READ])
		ratio = TABS_ALPHA_ONE / TABS_RATIO_MAX;
	else	/* 1/16..16: below 2^14 */
		ratio = mul_u64_u64_div_u64(q[TABS_READ], TABS_ALPHA_ONE,
					    q[TABS_FUA]);
	if (ratio < TABS_ALPHA_ONE) {
		if (disp[TABS_FUA] >= TABS_LONE_MIN_NR &&
		    credit * 2 < disp[TABS_FUA])
			return a;
		if (disp[TABS_READ] >= TABS_LONE_MIN_NR &&
		    disp[TABS_FUA] >= TABS_LONE_MIN_NR)
			/* counts of one epoch: the product below 2^64 */
			a = min(a, mul_u64_u64_div_u64(disp[TABS_FUA],
						       TABS_ALPHA_ONE,
						       disp[TABS_READ]));
		/* floor down: alpha always moves; a * ratio < 2^34 */
		a = max((a * ratio) >> TABS_ALPHA_SHIFT,
			old / TABS_RATIO_MAX);
	} else {
		/* ceiling up */
		a = (a * ratio + TABS_ALPHA_ONE - 1) >> TABS_ALPHA_SHIFT;
	}
	return clamp_t(u64, a, TABS_ALPHA_MIN, TABS_ALPHA_MAX);
}

/*
 * The mix the epoch's demand @dem shows (both types in it) moved away from
 * the goal's: I_fua / I_read changed by more than TABS_REGOAL_PCT %. The
 * goal moves to it, and alpha with it as at a phase's start. Without this
 * a workload that changed under a SCHED phase was held to the old mix's
 * FBW until the phase ended (up to sched_ms): in t24, 2w1r after 1w2r
 * kept reads at 1w2r's FBW for 7 s and its fairness factor fell from 0.96
 * (alone) to 0.67 to 0.73.
 */
static void tabs_regoal(struct tabs *t, const u64 dem[TABS_NR_FAIR])
{
	u64 d[TABS_NR_FAIR] = { dem[TABS_READ], dem[TABS_FUA] };
	u64 lhs, rhs;

	if (!d[TABS_READ] || !d[TABS_FUA] || !t->i[TABS_READ] ||
	    !t->i[TABS_FUA])
		return;
	tabs_i_fit(d);
	/*
	 * (d_fua / d_read) / (i_fua / i_read) = lhs / rhs, each below 2^40:
	 * within 1 / (1 + PCT / 100) .. 1 + PCT / 100, the goal stays.
	 */
	lhs = d[TABS_FUA] * t->i[TABS_READ];
	rhs = t->i[TABS_FUA] * d[TABS_READ];
	if (lhs * 100 <= rhs * (100 + TABS_REGOAL_PCT) &&
	    lhs * (100 + TABS_REGOAL_PCT) >= rhs * 100)
		return;
	t->i[TABS_READ] = d[TABS_READ];
	t->i[TABS_FUA] = d[TABS_FUA];
	tabs_set_fbw(t);
	if (t->i_fb[TABS_READ] && t->i_fb[TABS_FUA]) {
		t->alpha = clamp_t(u64, tabs_rescale(t), TABS_ALPHA_MIN,
				   TABS_ALPHA_MAX);
		t->alpha_fb = t->alpha;
		t->i_fb[TABS_READ] = t->i[TABS_READ];
		t->i_fb[TABS_FUA] = t->i[TABS_FUA];
	}
	t->nr_regoal++;
}

/* The end of an epoch of @len ns: bandwidths, fairness, feedback */
static unsigned int tabs_epoch_end(struct tabs *t, u64 now, u64 len)
{
	bool mix = t->nr_epoch[TABS_READ] && t->nr_epoch[TABS_FUA];
	u64 dem[TABS_NR_FAIR] = { t->dem_epoch[TABS_READ],
				  t->dem_epoch[TABS_FUA] };
	u64 disp[TABS_NR_FAIR] = { t->disp_epoch[TABS_READ],
				   t->disp_epoch[TABS_FUA] };
	u64 credit = t->credit_epoch;
	bool held = t->held_epoch;
	u32 old = t->alpha;
	u64 a = old;
	int x;

	for (x = 0; x < TABS_NR_FAIR; x++)
		t->bw[x] = tabs_rate(t->bytes_epoch[x], len);
	t->fairness = tabs_fairness(t->bw, t->fbw);
	t->nr_epochs++;
	tabs_reset_epoch(t, now);
	if (!mix) {
		tabs_to_idle(t, now);
		return TABS_EV_PHASE;
	}
	/*
	 * No FUA write was TABS' to hold (FUA-only tenants beside readers:
	 * the weights share them): alpha governed nothing, and what the
	 * epoch measured says nothing of it.
	 */
	if (!held) {
		tabs_regoal(t, dem);
		return t->alpha != old ? TABS_EV_ALPHA : 0;
	}
	if (t->fbw[TABS_READ] && t->fbw[TABS_FUA])
		a = tabs_feedback_rel(t, a, disp, credit);
	else
		for (x = 0; x < TABS_NR_FAIR; x++)
			a = tabs_feedback(t, x, a);
	t->alpha = a;
	if (t->fbw[TABS_READ] || t->fbw[TABS_FUA]) {
		t->alpha_fb = a;
		t->i_fb[TABS_READ] = t->i[TABS_READ];
		t->i_fb[TABS_FUA] = t->i[TABS_FUA];
	}
	tabs_regoal(t, dem);
	return t->alpha != old ? TABS_EV_ALPHA : 0;
}

/* Both BWmax known: FBW and the feedback have a goal (see 4.) */
static bool tabs_have_bwmax(const struct tabs *t)
{
	return t->bwmax[TABS_READ] && t->bwmax[TABS_FUA];
}

void tabs_demand(struct tabs *t, const u64 d[TABS_NR_FAIR])
{
	u64 sum = d[TABS_READ] + d[TABS_FUA];
	int x;

	/* the split, in 1/TABS_ALPHA_ONE; a type with a share has one */
	for (x = 0; x < TABS_NR_FAIR; x++)
		t->dem[x] = d[x] ? max(mul_u64_u64_div_u64(d[x], TABS_ALPHA_ONE,
							   sum), 1ULL) : 0;
	t->dem_set = true;
}

unsigned int tabs_tick(struct tabs *t, const struct tabs_params *p, u64 now)
{
	bool dem = t->dem_set;
	unsigned int ev = 0;
	u64 len;
	int x;

	t->dem_set = false;
	tabs_measure(t, now);
	for (x = 0; x < TABS_NR_FAIR; x++)
		t->bwmax[x] = p->bwmax[x] ?
			min_t(u64, p->bwmax[x], TABS_MAX_BWMAX) :
			t->bwmax_auto[x];

	if (t->phase == TABS_IDLE) {
		u64 total = t->nr_issued[TABS_READ] + t->nr_issued[TABS_FUA] +
			    t->nr_issued[TABS_WRITE];

		for (x = 0; x < TABS_NR_FAIR; x++) {
			t->out_sum[x] += min_t(u64, t->nr_outstanding[x],
					       TABS_I_MAX);
			if (dem)
				t->dem_sum[x] += min_t(u64, t->dem[x],
						       TABS_I_MAX);
		}

		if (total >= p->threshold && t->nr_issued[TABS_READ] &&
		    t->nr_issued[TABS_FUA] && tabs_have_bwmax(t))
			return tabs_to_sched(t, now);
		if (tabs_elapsed(t->start, now) >= tabs_ms(p->reset_ms))
			tabs_reset_counts(t, now);
		return 0;
	}

	/* no goal without BWmax (set back to auto, not measured): stop */
	if (!tabs_have_bwmax(t)) {
		tabs_to_idle(t, now);
		return TABS_EV_PHASE;
	}
	/* the epoch's demand, for a moved mix (tabs_regoal()) */
	for (x = 0; x < TABS_NR_FAIR && dem; x++)
		t->dem_epoch[x] += min_t(u64, t->dem[x], TABS_I_MAX);
	/* BWmax may have been set, or measured, since the phase started */
	tabs_set_fbw(t);
	len = tabs_elapsed(t->epoch_start, now);
	if (len >= max(tabs_ms(p->epoch_ms), TABS_MIN_INTERVAL_NS))
		ev |= tabs_epoch_end(t, now, len);
	if (t->phase == TABS_SCHED &&
	    tabs_elapsed(t->start, now) >= tabs_ms(p->sched_ms)) {
		tabs_to_idle(t, now);
		ev |= TABS_EV_PHASE;
	}
	return ev;
}
