// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of TABS (tabs.c): the phase machine, FUA throttling by read
 * credit, the no-deadlock releases, the feedback on a simulated device
 * where FUA writes hog it (and one where reads do), Eq. 1 and 2, BWmax
 * measured from lone intervals, and bad or extreme input.
 */
#include <string.h>

#include <linux/limits.h>
#include <fairnvme/tabs.h>
#include "tap.h"

#define MS		1000000ULL	/* ns */
#define SEC		(1000 * MS)
#define KIB16		16384U

static void insert(struct tabs *t, int type, int n)
{
	while (n-- > 0)
		tabs_inserted(t, type);
}

/* Release the delay queue's heads (all held since @held) until refused. */
static int release_all(struct tabs *t, const struct tabs_params *p, u64 now,
		       u64 held)
{
	int n = 0;

	while (n < 1000000 && tabs_may_release(t, p, now, held, 1))
		n++;
	return n;
}

/* IDLE at 0, @nr_read reads and @nr_fua FUA writes issued, SCHED at 100 ms */
static unsigned int sched_with(struct tabs *t, const struct tabs_params *p,
			       int nr_read, int nr_fua)
{
	tabs_init(t, 0);
	insert(t, TABS_READ, nr_read);
	insert(t, TABS_FUA, nr_fua);
	return tabs_tick(t, p, 100 * MS);
}

/* Defaults, with BWmax set: 1.6 GB/s of reads, 400 MB/s of FUA writes */
static void params_set(struct tabs_params *p)
{
	tabs_params_init(p);
	p->bwmax[TABS_READ] = 1600000000;
	p->bwmax[TABS_FUA] = 400000000;
}

static void test_params(void)
{
	struct tabs_params p;

	tabs_params_init(&p);
	tap_ok(p.reset_ms == 500 && p.threshold == 64 && p.epoch_ms == 1000 &&
	       p.sched_ms == 10000 && p.max_wait_ms == 1000 && !p.bwmax[0] &&
	       !p.bwmax[1],
	       "defaults: reset 500 ms, threshold 64, epoch 1 s, SCHED 10 s, max wait 1 s, BWmax auto");
	tap_ok(!strcmp(tabs_phase_name(TABS_IDLE), "idle") &&
	       !strcmp(tabs_phase_name(TABS_SCHED), "sched") &&
	       !strcmp(tabs_phase_name(7), "?"),
	       "phase names: idle, sched, ? for anything else");
}

/* 1. The phase machine */
static void test_phases(void)
{
	struct tabs_params p;
	struct tabs t;
	unsigned int ev;
	u64 now;
	int i;

	params_set(&p);
	tabs_init(&t, 0);
	tap_ok(t.phase == TABS_IDLE && t.alpha == TABS_ALPHA_ONE &&
	       !tabs_holds(&t, TABS_FUA, 1),
	       "init: IDLE, alpha 1 (1024), FUA writes not held");
	insert(&t, TABS_READ, 30);
	insert(&t, TABS_FUA, 30);
	ev = tabs_tick(&t, &p, 100 * MS);
	tap_ok(t.phase == TABS_IDLE && ev == 0,
	       "60 issued < threshold 64: stays IDLE, no event");

	tabs_init(&t, 0);
	for (now = 100 * MS, i = 0; i < 30; i++, now += 100 * MS) {
		insert(&t, TABS_READ, 1000);
		insert(&t, TABS_WRITE, 1000);
		tabs_tick(&t, &p, now);
	}
	tap_ok(t.phase == TABS_IDLE,
	       "reads (and other writes) only, 1000/100 ms for 3 s: never SCHED");
	tabs_init(&t, 0);
	for (now = 100 * MS, i = 0; i < 30; i++, now += 100 * MS) {
		insert(&t, TABS_FUA, 1000);
		tabs_tick(&t, &p, now);
	}
	tap_ok(t.phase == TABS_IDLE,
	       "FUA writes only, 1000/100 ms for 3 s: never SCHED");

	tabs_init(&t, 0);
	insert(&t, TABS_READ, 300);
	insert(&t, TABS_FUA, 100);
	insert(&t, TABS_WRITE, 20);
	ev = tabs_tick(&t, &p, 100 * MS);
	tap_ok(t.phase == TABS_SCHED && ev == (TABS_EV_PHASE | TABS_EV_ALPHA) &&
	       t.nr_sched == 1,
	       "300 reads + 100 FUA + 20 writes >= 64: SCHED, events PHASE|ALPHA");
	tap_ok(t.i[TABS_READ] == 300 && t.i[TABS_FUA] == 100,
	       "I_read 300, I_fua 100 (other writes not a party)");
	tap_ok(t.fbw[TABS_READ] == 1200000000 && t.fbw[TABS_FUA] == 100000000,
	       "Eq. 1: FBW_read = 1.6e9 * 300/400 = 1.2e9, FBW_fua = 4e8 * 100/400 = 1e8 (got %llu, %llu)",
	       (unsigned long long)t.fbw[TABS_READ],
	       (unsigned long long)t.fbw[TABS_FUA]);
	tap_ok(t.alpha == 3 * TABS_ALPHA_ONE,
	       "alpha = N_read / N_fua = 3 (3072), got %u", t.alpha);
	tap_ok(tabs_holds(&t, TABS_FUA, 1) && !tabs_holds(&t, TABS_READ, 1) &&
	       !tabs_holds(&t, TABS_WRITE, 1),
	       "SCHED holds FUA writes, never reads or other writes");

	/* the mix goes on: SCHED lasts sched_ms = 10 s from 100 ms */
	for (now = 200 * MS; now < 10100 * MS; now += 100 * MS) {
		insert(&t, TABS_READ, 10);
		insert(&t, TABS_FUA, 10);
		ev = tabs_tick(&t, &p, now);
		if (t.phase != TABS_SCHED)
			break;
	}
	tap_ok(t.phase == TABS_SCHED && now == 10100 * MS,
	       "still SCHED at 10.0 s (9.9 s into it)");
	insert(&t, TABS_READ, 10);
	insert(&t, TABS_FUA, 10);
	ev = tabs_tick(&t, &p, 10100 * MS);
	tap_ok(t.phase == TABS_IDLE && (ev & TABS_EV_PHASE) &&
	       t.nr_epochs == 10,
	       "SCHED ends after sched_ms (10 s, 10 epochs): IDLE, event PHASE");
	tap_ok(!tabs_holds(&t, TABS_FUA, 1) && t.nr_issued[TABS_READ] == 0,
	       "back in IDLE: FUA not held, counts reset");

	/* the mix goes: an epoch with no FUA write issued ends SCHED */
	sched_with(&t, &p, 100, 100);
	for (now = 200 * MS; now <= 1100 * MS; now += 100 * MS) {
		insert(&t, TABS_READ, 10);
		ev = tabs_tick(&t, &p, now);
	}
	tap_ok(t.phase == TABS_IDLE && ev == TABS_EV_PHASE && t.nr_epochs == 1,
	       "an epoch without FUA writes issued: back to IDLE at its end (1.1 s)");
	sched_with(&t, &p, 100, 100);
	insert(&t, TABS_FUA, 10);
	ev = tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.phase == TABS_IDLE && ev == TABS_EV_PHASE,
	       "an epoch without reads issued: back to IDLE");

	/* IDLE counts restart every reset_ms (500 ms) */
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 40);
	insert(&t, TABS_FUA, 20);
	tabs_tick(&t, &p, 400 * MS);
	tap_ok(t.phase == TABS_IDLE && t.nr_issued[TABS_READ] == 40,
	       "400 ms: 60 issued, counting (40 reads)");
	tabs_tick(&t, &p, 500 * MS);
	tap_ok(t.nr_issued[TABS_READ] == 0 && t.nr_issued[TABS_FUA] == 0 &&
	       t.start == 500 * MS,
	       "500 ms = reset_ms: counts reset, period restarts");
	insert(&t, TABS_READ, 40);
	insert(&t, TABS_FUA, 20);
	tabs_tick(&t, &p, 600 * MS);
	tap_ok(t.phase == TABS_IDLE,
	       "600 ms: 60 in this period (120 without the reset): IDLE");
	insert(&t, TABS_FUA, 4);
	tabs_tick(&t, &p, 700 * MS);
	/* none finished: outstanding 80/40 at 600 ms, 80/44 at 700 ms */
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 160 &&
	       t.i[TABS_FUA] == 84,
	       "700 ms: 64 in this period: SCHED, I = outstanding summed at its ticks, 160, 84");
}

/* 2. Throttling by read credit */
static void test_throttle(void)
{
	struct tabs_params p;
	struct tabs t;
	int i, n;

	params_set(&p);
	sched_with(&t, &p, 100, 200);
	tap_ok(t.alpha == TABS_ALPHA_ONE / 2, "100 reads / 200 FUA: alpha 0.5 (512)");
	for (n = 0, i = 0; i < 1000; i++) {
		tabs_dispatched(&t, TABS_READ, KIB16);
		n += release_all(&t, &p, 100 * MS, 100 * MS);
	}
	tap_ok(n >= 498 && n <= 502 &&
	       t.nr_released[TABS_REL_CREDIT] == (u64)n,
	       "alpha 0.5, 1000 reads, a FUA write always waiting: 500 +-2 released (%d)",
	       n);

	sched_with(&t, &p, 200, 100);
	tap_ok(t.alpha == 2 * TABS_ALPHA_ONE, "200 reads / 100 FUA: alpha 2 (2048)");
	for (n = 0, i = 0; i < 1000; i++) {
		tabs_dispatched(&t, TABS_READ, KIB16);
		n += release_all(&t, &p, 100 * MS, 100 * MS);
	}
	tap_ok(n >= 1998 && n <= 2002,
	       "alpha 2, 1000 reads: 2000 +-2 released (%d)", n);

	/* no FUA write waiting while 1000 reads go: credit stays capped */
	sched_with(&t, &p, 100, 200);
	for (i = 0; i < 1000; i++)
		tabs_dispatched(&t, TABS_READ, KIB16);
	tap_ok(t.credit == 2 * TABS_ALPHA_ONE,
	       "alpha 0.5: credit capped at 2 FUA writes (2048), got %llu",
	       (unsigned long long)t.credit);
	n = release_all(&t, &p, 100 * MS, 100 * MS);
	tap_ok(n == 2, "... then 2 FUA writes released, not 500 (%d)", n);
	sched_with(&t, &p, 800, 100);
	for (i = 0; i < 1000; i++)
		tabs_dispatched(&t, TABS_READ, KIB16);
	n = release_all(&t, &p, 100 * MS, 100 * MS);
	tap_ok(t.alpha == 8 * TABS_ALPHA_ONE && n == 16,
	       "alpha 8: cap 2 * alpha = 16 FUA writes, not 8000 (%d)", n);

	/* IDLE: no credit taken or given */
	tabs_init(&t, 0);
	tabs_dispatched(&t, TABS_READ, KIB16);
	tap_ok(t.credit == 0 && t.nr_dispatched[TABS_READ] == 1 &&
	       t.bytes_dispatched[TABS_READ] == KIB16,
	       "IDLE: a read dispatched gives no credit; counted");
}

/* 3. No deadlock */
static void test_no_deadlock(void)
{
	struct tabs_params p;
	struct tabs t;
	int i;

	params_set(&p);
	p.max_wait_ms = 100;	/* the timings below */
	sched_with(&t, &p, 100, 200);
	tap_ok(!tabs_may_release(&t, &p, 100 * MS, 100 * MS, 1),
	       "SCHED, reads outstanding, no credit, just held: refused");
	for (i = 0; i < 100; i++)
		tabs_finished(&t, TABS_READ);
	tap_ok(t.nr_outstanding[TABS_READ] == 0 &&
	       release_all(&t, &p, 100 * MS, 100 * MS) == 1000000 &&
	       t.credit == 0,
	       "no read outstanding: a lone FUA writer is never held (10^6 released, no credit)");
	tap_ok(t.nr_released[TABS_REL_LONE] == 1000000,
	       "... counted as lone releases");

	sched_with(&t, &p, 100, 200);
	tap_ok(!tabs_may_release(&t, &p, 200 * MS - 1, 100 * MS, 1),
	       "held 99.999999 ms < max_wait 100 ms: refused");
	tap_ok(tabs_may_release(&t, &p, 200 * MS, 100 * MS, 1) &&
	       t.nr_released[TABS_REL_FORCED] == 1 && t.credit == 0,
	       "held max_wait_ms = 100 ms with no credit: released, 1 forced");
	tap_ok(tabs_may_release(&t, &p, 200 * MS, 0, 1) &&
	       tabs_may_release(&t, &p, 200 * MS, 50 * MS, 1) &&
	       !tabs_may_release(&t, &p, 200 * MS, 150 * MS, 1) &&
	       t.nr_released[TABS_REL_FORCED] == 3,
	       "FIFO: heads held 200 and 150 ms go, the one held 50 ms waits");
	tabs_dispatched(&t, TABS_READ, KIB16);
	tabs_dispatched(&t, TABS_READ, KIB16);
	tap_ok(tabs_may_release(&t, &p, 300 * MS, 0, 1) &&
	       t.nr_released[TABS_REL_FORCED] == 3 &&
	       t.nr_released[TABS_REL_CREDIT] == 1,
	       "credit is used before the max wait: not counted as forced");
	p.max_wait_ms = 5;
	tap_ok(tabs_may_release(&t, &p, 300 * MS, 295 * MS, 1),
	       "max_wait_ms 5: released after 5 ms");

	tabs_init(&t, 0);
	tap_ok(release_all(&t, &p, 0, 0) == 1000000 &&
	       t.nr_released[TABS_REL_IDLE] == 1000000,
	       "IDLE releases everything (10^6)");
	params_set(&p);
	sched_with(&t, &p, 100, 200);
	tabs_tick(&t, &p, 10100 * MS);
	tap_ok(t.phase == TABS_IDLE && !tabs_holds(&t, TABS_FUA, 1) &&
	       release_all(&t, &p, 10100 * MS, 10100 * MS) == 1000000,
	       "end of SCHED: the delay queue drains");
}

/*
 * 4. The feedback on a simulated device: one server, FIFO, a read takes
 * 10 us and a FUA write 40 us (a read costs 1 unit, a FUA write 4), all
 * 16 KiB: BWmax_read 1638.4 MB/s, BWmax_fua 409.6 MB/s. A closed-loop
 * reader and writer keep qd requests each; the writer's go through the
 * delay queue. Without throttling FIFO serves as many writes as reads:
 * 20000/s each, reads at 0.4 of their FBW, FUA at 1.6: F = 0.25.
 */
#define SIM_RING	256
#define SIM_TICK	(100 * MS)

struct sim {
	struct tabs t;
	struct tabs_params p;
	u64 now, next_tick;
	u64 cost[TABS_NR_FAIR];		/* ns */
	int dev[SIM_RING], dev_head, dev_n;	/* dispatched types, FIFO */
	u64 done_at;			/* the device's head completes */
	u64 held[SIM_RING];		/* the delay queue: held since */
	int held_head, held_n;
	bool fua_alone;		/* the writer a tenant of its own */
};

/* The FUA writer's tenant's reads outstanding: none if it is alone. */
static u64 sim_own_reads(const struct sim *s)
{
	return s->fua_alone ? 0 : s->t.nr_outstanding[TABS_READ];
}

static void sim_dispatch(struct sim *s, int type)
{
	tabs_dispatched(&s->t, type, KIB16);
	if (!s->dev_n)
		s->done_at = s->now + s->cost[type];
	s->dev[(s->dev_head + s->dev_n++) % SIM_RING] = type;
}

static void sim_release(struct sim *s)
{
	while (s->held_n &&
	       tabs_may_release(&s->t, &s->p, s->now, s->held[s->held_head],
				sim_own_reads(s))) {
		s->held_head = (s->held_head + 1) % SIM_RING;
		s->held_n--;
		sim_dispatch(s, TABS_FUA);
	}
}

static void sim_issue(struct sim *s, int type)
{
	tabs_inserted(&s->t, type);
	if (tabs_holds(&s->t, type, sim_own_reads(s)))
		s->held[(s->held_head + s->held_n++) % SIM_RING] = s->now;
	else
		sim_dispatch(s, type);
}

static void sim_init(struct sim *s, int qd_read, int qd_fua)
{
	int i;

	memset(s, 0, sizeof(*s));
	params_set(&s->p);
	s->p.bwmax[TABS_READ] = 1638400000;	/* 100000 reads/s */
	s->p.bwmax[TABS_FUA] = 409600000;	/* 25000 FUA/s */
	s->p.sched_ms = 600000;
	s->cost[TABS_READ] = 10000;
	s->cost[TABS_FUA] = 40000;
	s->next_tick = SIM_TICK;
	tabs_init(&s->t, 0);
	for (i = 0; i < qd_read; i++)
		sim_issue(s, TABS_READ);
	for (i = 0; i < qd_fua; i++)
		sim_issue(s, TABS_FUA);
}

static void sim_run(struct sim *s, u64 until)
{
	while (s->now < until) {
		if (s->dev_n && s->done_at < s->next_tick) {
			int type = s->dev[s->dev_head];

			s->now = s->done_at;
			s->dev_head = (s->dev_head + 1) % SIM_RING;
			if (--s->dev_n)
				s->done_at = s->now + s->cost[s->dev[s->dev_head]];
			tabs_completed(&s->t, type, KIB16);
			tabs_finished(&s->t, type);
			sim_issue(s, type);	/* closed loop */
		} else {
			s->now = s->next_tick;
			s->next_tick += SIM_TICK;
			tabs_tick(&s->t, &s->p, s->now);
		}
		sim_release(s);
	}
}

/* Run epochs @from..@to of a SCHED phase started at 100 ms */
static void sim_epochs(struct sim *s, int from, int to, const char *name)
{
	int e;

	for (e = from; e <= to; e++) {
		sim_run(s, 100 * MS + e * SEC);
		tap_diag("%s epoch %d: alpha %u/1024, bw %llu %llu (fbw %llu %llu), F %u/1000",
			 name, e, s->t.alpha,
			 (unsigned long long)s->t.bw[TABS_READ],
			 (unsigned long long)s->t.bw[TABS_FUA],
			 (unsigned long long)s->t.fbw[TABS_READ],
			 (unsigned long long)s->t.fbw[TABS_FUA], s->t.fairness);
	}
}

static void test_feedback_sim(void)
{
	static struct sim s;
	u32 a0, f1;

	/* FUA writes hog the device */
	sim_init(&s, 32, 32);
	sim_run(&s, 100 * MS);
	tap_ok(s.t.phase == TABS_SCHED, "sim: SCHED at the first tick (100 ms)");
	/* closed loops at depth 32 each: 32 outstanding of each type */
	tap_ok(s.t.i[TABS_READ] == 32 && s.t.i[TABS_FUA] == 32,
	       "sim: I_x = the depths, 32 each (%llu, %llu)",
	       (unsigned long long)s.t.i[TABS_READ],
	       (unsigned long long)s.t.i[TABS_FUA]);
	a0 = s.t.alpha;
	tap_ok(a0 >= 1000 && a0 <= 1050, "sim: alpha starts at about 1 (%u)", a0);
	sim_epochs(&s, 1, 1, "FUA hog");
	f1 = s.t.fairness;
	tap_ok(f1 >= 225 && f1 <= 275 && s.t.alpha < a0,
	       "FUA hog, epoch 1 at alpha 1: F 0.25 +-0.025 (%u), alpha goes down (%u)",
	       f1, s.t.alpha);
	sim_epochs(&s, 2, 7, "FUA hog");
	tap_ok(s.t.alpha >= 240 && s.t.alpha <= 320,
	       "FUA hog: after 6 more epochs alpha near 1/4, the fair FUA/read ratio (%u/1024, 240..320)",
	       s.t.alpha);
	tap_ok(s.t.fairness >= 850,
	       "FUA hog: F >= 0.85 after 7 epochs (%u/1000)", s.t.fairness);
	tap_ok(s.t.bw[TABS_READ] * 10 >= s.t.fbw[TABS_READ] * 9,
	       "FUA hog: reads get >= 90 %% of FBW_read (%llu of %llu)",
	       (unsigned long long)s.t.bw[TABS_READ],
	       (unsigned long long)s.t.fbw[TABS_READ]);
	tap_ok(s.t.nr_released[TABS_REL_FORCED] == 0,
	       "FUA hog: no forced release (%llu)",
	       (unsigned long long)s.t.nr_released[TABS_REL_FORCED]);

	/*
	 * I 3:1 (48 reads, 16 FUA writes outstanding): FBW 1228.8 and
	 * 102.4 MB/s, fair at 1/12 FUA write per read. The paper's rule
	 * left reads anywhere from 90 % of their FBW up (F 0.7 there).
	 */
	sim_init(&s, 48, 16);
	sim_run(&s, 100 * MS);
	sim_epochs(&s, 1, 7, "3:1");
	tap_ok(s.t.fairness >= 950,
	       "I 3:1: F >= 0.95 after 7 epochs (%u/1000, alpha %u/1024)",
	       s.t.fairness, s.t.alpha);

	/* reads hog: alpha far too low (as after a change of workload) */
	sim_init(&s, 32, 32);
	sim_run(&s, 100 * MS);
	s.t.alpha = TABS_ALPHA_ONE / 64;
	sim_epochs(&s, 1, 1, "read hog");
	tap_ok(s.t.fairness <= 200 && s.t.alpha > TABS_ALPHA_ONE / 64,
	       "reads hog, epoch 1 at alpha 1/64: F <= 0.2 (%u), alpha goes up (%u)",
	       s.t.fairness, s.t.alpha);
	sim_epochs(&s, 2, 7, "read hog");
	tap_ok(s.t.alpha >= 200 && s.t.alpha <= 320,
	       "reads hog: after 6 more epochs alpha near 1/4 (%u/1024, 200..320)",
	       s.t.alpha);
	tap_ok(s.t.fairness >= 850,
	       "reads hog: F >= 0.85 after 7 epochs (%u/1000)", s.t.fairness);
	tap_ok(s.t.bw[TABS_FUA] * 10 >= s.t.fbw[TABS_FUA] * 9,
	       "reads hog: FUA writes get >= 90 %% of FBW_fua (%llu of %llu)",
	       (unsigned long long)s.t.bw[TABS_FUA],
	       (unsigned long long)s.t.fbw[TABS_FUA]);
}

/*
 * An epoch of SCHED ending at @end_ms: a read and a FUA write inserted
 * (both types issued: the phase goes on), the write TABS' to hold (its
 * tenant has reads outstanding), @rd and @fua bytes completed
 */
static unsigned int epoch(struct tabs *t, const struct tabs_params *p,
			  u64 rd, u64 fua, u64 end_ms)
{
	insert(t, TABS_READ, 1);
	insert(t, TABS_FUA, 1);
	tabs_holds(t, TABS_FUA, 1);
	tabs_completed(t, TABS_READ, rd);
	tabs_completed(t, TABS_FUA, fua);
	return tabs_tick(t, p, end_ms * MS);
}

/* Eq. 1 and 2 by hand, and one epoch's feedback computed exactly */
static void test_equations(void)
{
	u64 fbw[2], bw[2];
	struct tabs_params p;
	struct tabs t;
	unsigned int ev;
	int i;

	fbw[0] = tabs_fbw(1600000000, 300, 400);
	fbw[1] = tabs_fbw(400000000, 100, 400);
	tap_ok(fbw[0] == 1200000000 && fbw[1] == 100000000,
	       "Eq. 1: 1.6e9 * 300/400 = 1.2e9, 4e8 * 100/400 = 1e8");
	bw[0] = 600000000;
	bw[1] = 100000000;
	/* (6e8 / (1.6e9 * 300)) / (1e8 / (4e8 * 100)) = 1.25e-6 / 2.5e-6 */
	tap_ok(tabs_fairness(bw, fbw) == 500,
	       "Eq. 2: reads 6e8, FUA 1e8: F = 0.5 (500), got %u",
	       tabs_fairness(bw, fbw));
	bw[0] = 1200000000;
	bw[1] = 50000000;
	tap_ok(tabs_fairness(bw, fbw) == 500,
	       "Eq. 2: reads 1.2e9, FUA 5e7: F = 2, inverted 0.5 (500), got %u",
	       tabs_fairness(bw, fbw));
	bw[0] = 900000000;
	bw[1] = 100000000;
	tap_ok(tabs_fairness(bw, fbw) == 750,
	       "Eq. 2: reads 9e8, FUA 1e8: F = 0.75 (750), got %u",
	       tabs_fairness(bw, fbw));
	tap_ok(tabs_fairness(fbw, fbw) == 1000, "Eq. 2: both at FBW: F = 1");

	/* one epoch: reads at half their FBW, FUA writes at theirs */
	params_set(&p);
	sched_with(&t, &p, 300, 100);
	ev = epoch(&t, &p, 600000000, 100000000, 1100);
	tap_ok(t.bw[TABS_READ] == 600000000 && t.bw[TABS_FUA] == 100000000 &&
	       t.fairness == 500,
	       "epoch of 1 s: bw 6e8 and 1e8, F 500 (got %u)", t.fairness);
	tap_ok(t.alpha == 1536 && ev == TABS_EV_ALPHA,
	       "feedback: reads at 0.5 of FBW, FUA at 1: alpha 3 * 0.5 / 1 = 1.5 (1536), got %u",
	       t.alpha);
	ev = epoch(&t, &p, 1080000000, 90000000, 2100);
	tap_ok(t.alpha == 1536 && ev == 0,
	       "both at 90 %% of FBW (F 1): alpha unchanged");
	ev = epoch(&t, &p, 1200000000, 25000000, 3100);
	tap_ok(t.alpha == 6144 && ev == TABS_EV_ALPHA,
	       "FUA at 1/4 of FBW: alpha / 0.25 = 6 (6144), got %u", t.alpha);
	ev = epoch(&t, &p, 600000000, 50000000, 4100);
	tap_ok(t.alpha == 6144 && ev == 0,
	       "both at half their FBW (F 1): alpha unchanged (%u)",
	       t.alpha);
	/* each type's q = BW / FBW: reads 1.03, FUA 0.92 (F 0.893) */
	ev = epoch(&t, &p, 1236000000, 92000000, 5100);
	tap_ok(t.alpha == 6876 && ev == TABS_EV_ALPHA,
	       "FUA at 0.92 of FBW, reads above theirs (1.03): alpha * 1.03 / 0.92 (6876; the paper's rule left it), got %u",
	       t.alpha);
	ev = epoch(&t, &p, 1140000000, 120000000, 6100);
	tap_ok(t.alpha == 5439 && ev == TABS_EV_ALPHA,
	       "FUA ahead (1.2), reads at 0.95 of FBW: alpha * 0.95 / 1.2 (5439; the paper's rule left it), got %u",
	       t.alpha);
	ev = epoch(&t, &p, 1200000000, 97000000, 7100);
	tap_ok(t.alpha == 5439 && ev == 0,
	       "F 0.97, within 90 %%: alpha unchanged (%u)", t.alpha);
	/*
	 * FUA ahead (1.2, reads 0.95) while 60 went by credit per 100 reads,
	 * alpha 5.3: from 0.6 (614), * 0.95 / 1.2: 485
	 */
	for (i = 0; i < 100; i++) {
		tabs_dispatched(&t, TABS_READ, 0);
		if (i % 5 < 3 && tabs_may_release(&t, &p, 8000 * MS, 8000 * MS, 1))
			tabs_dispatched(&t, TABS_FUA, 0);
	}
	ev = epoch(&t, &p, 1140000000, 120000000, 8100);
	tap_ok(t.alpha == 485 && ev == TABS_EV_ALPHA,
	       "FUA ahead, 0.6 of a write per read gone by credit, alpha 5.3: 0.6 * 0.95 / 1.2 (485), got %u",
	       t.alpha);
	/* the same, 8 by credit per 1000 reads: at most 16 times, 485 / 16 */
	for (i = 0; i < 1000; i++) {
		tabs_dispatched(&t, TABS_READ, 0);
		if (i % 125 == 0 &&
		    tabs_may_release(&t, &p, 9000 * MS, 9000 * MS, 1))
			tabs_dispatched(&t, TABS_FUA, 0);
	}
	ev = epoch(&t, &p, 1140000000, 120000000, 9100);
	tap_ok(t.alpha == 30 && ev == TABS_EV_ALPHA,
	       "FUA ahead, 8 writes per 1000 reads gone: alpha down 16 times at most (485 / 16 = 30), got %u",
	       t.alpha);
	/* 60 FUA writes gone, none by credit (a reader that pauses): kept */
	for (i = 0; i < 100; i++)
		tabs_dispatched(&t, TABS_READ, 0);
	for (i = 0; i < 60; i++)
		tabs_dispatched(&t, TABS_FUA, 0);
	ev = epoch(&t, &p, 1140000000, 120000000, 10100);
	tap_ok(t.alpha == 30 && !(ev & TABS_EV_ALPHA),
	       "FUA ahead, most writes gone without credit: alpha kept (30), got %u",
	       t.alpha);
}

/* 5. BWmax measured from the intervals where one type ran alone */
static void run_ival(struct tabs *t, int type, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		tabs_dispatched(t, type, KIB16);
		tabs_completed(t, type, KIB16);
	}
}

static void test_bwmax_auto(void)
{
	struct tabs_params p;
	struct tabs t;

	tabs_params_init(&p);
	tabs_init(&t, 0);
	tabs_tick(&t, &p, 100 * MS);
	tap_ok(!t.bwmax_auto[0] && !t.bwmax_auto[1] && !t.bwmax[0],
	       "nothing ran: BWmax unknown (0)");
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 200 * MS);
	tap_ok(!t.bwmax_auto[TABS_READ],
	       "reads alone for one interval, the one before not theirs: nothing measured");
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 300 * MS);
	tap_ok(!t.bwmax_auto[TABS_READ] && !t.bwmax[TABS_READ],
	       "reads alone again: one rate, not two in a row, still unknown");
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 400 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000 &&
	       t.bwmax[TABS_READ] == 163840000 && !t.bwmax_auto[TABS_FUA],
	       "reads alone a third time, 1000 x 16 KiB in 100 ms each: BWmax_read 163840000, in use (got %llu)",
	       (unsigned long long)t.bwmax_auto[TABS_READ]);
	run_ival(&t, TABS_READ, 3000);
	run_ival(&t, TABS_FUA, 1);
	tabs_tick(&t, &p, 500 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000 && !t.bwmax_auto[TABS_FUA],
	       "reads and FUA writes together, reads 3x faster: unchanged");
	run_ival(&t, TABS_READ, 3000);
	run_ival(&t, TABS_WRITE, 1);
	tabs_tick(&t, &p, 600 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000,
	       "reads beside one other write: unchanged");
	/* a run's tail: the reader ended, the writer's last requests alone */
	run_ival(&t, TABS_FUA, 16);
	tabs_tick(&t, &p, 700 * MS);
	tap_ok(!t.bwmax_auto[TABS_FUA],
	       "16 FUA writes alone after a mixed interval: nothing measured");
	run_ival(&t, TABS_FUA, 100);
	tabs_tick(&t, &p, 800 * MS);
	run_ival(&t, TABS_FUA, 100);
	tabs_tick(&t, &p, 900 * MS);
	tap_ok(t.bwmax_auto[TABS_FUA] == 16384000 &&
	       t.bwmax_auto[TABS_READ] == 163840000,
	       "FUA writes alone two intervals more, 100 in 100 ms each: BWmax_fua 16384000");
	run_ival(&t, TABS_FUA, TABS_LONE_MIN_NR - 1);
	tabs_tick(&t, &p, 1000 * MS);
	tap_ok(t.bwmax_auto[TABS_FUA] == 16384000,
	       "FUA writes alone, %d in 100 ms: too few, nothing measured",
	       TABS_LONE_MIN_NR - 1);
	run_ival(&t, TABS_READ, 100);
	tabs_tick(&t, &p, 1100 * MS);
	run_ival(&t, TABS_READ, 100);
	tabs_tick(&t, &p, 1200 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000,
	       "reads alone at 16384000, the first rate of a run of them: unchanged");
	run_ival(&t, TABS_READ, 100);
	tabs_tick(&t, &p, 1300 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 161536000,
	       "... and again: down 1/64 of the gap once, to 161536000 (got %llu)",
	       (unsigned long long)t.bwmax_auto[TABS_READ]);

	/* a FUA write in flight across the tick: the next interval is mixed */
	tabs_dispatched(&t, TABS_FUA, KIB16);
	tabs_tick(&t, &p, 1400 * MS);
	run_ival(&t, TABS_READ, 3000);
	tabs_completed(&t, TABS_FUA, KIB16);
	tabs_tick(&t, &p, 1500 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 161536000,
	       "FUA in flight when the interval began: reads not alone, unchanged");
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 1600 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 161536000,
	       "reads alone after it, faster: the first interval measures nothing");
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 1700 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 161536000,
	       "one faster interval (3000 in 100 ms), a burst: not raised");
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 1800 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000,
	       "the next at 1000: up to the lower of the two, 163840000 (got %llu)",
	       (unsigned long long)t.bwmax_auto[TABS_READ]);
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 1900 * MS);
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2000 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 491520000,
	       "3000 in two intervals in a row: up, 491520000 (got %llu)",
	       (unsigned long long)t.bwmax_auto[TABS_READ]);
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2000 * MS + MS / 2);
	tap_ok(t.bwmax_auto[TABS_READ] == 491520000,
	       "a tick 0.5 ms later: too short, nothing measured");
	tabs_tick(&t, &p, 2100 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 491520000,
	       "... the interval went on to 100 ms: 3000 reads, 491520000");
	p.bwmax[TABS_READ] = 1000000000;
	tabs_tick(&t, &p, 2200 * MS);
	tap_ok(t.bwmax[TABS_READ] == 1000000000 &&
	       t.bwmax_auto[TABS_READ] == 491520000 &&
	       t.bwmax[TABS_FUA] == 16384000,
	       "BWmax_read set: in use; measured kept; FUA still auto");
}

/* The batched completion of the kernel's counters, and switching on again */
static void test_done_restart(void)
{
	struct tabs_params p;
	struct tabs t;
	int i;

	tabs_params_init(&p);
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 10);
	for (i = 0; i < 10; i++)
		tabs_dispatched(&t, TABS_READ, KIB16);
	tabs_done(&t, TABS_READ, 4, 4 * KIB16);
	tap_ok(t.nr_outstanding[TABS_READ] == 6 &&
	       t.nr_inflight[TABS_READ] == 6 &&
	       t.bytes_epoch[TABS_READ] == 4 * KIB16,
	       "tabs_done(4 reads, 64 KiB): 6 outstanding, 6 in flight, 64 KiB counted");
	tabs_done(&t, TABS_READ, 100, 0);
	tabs_done(&t, TABS_NR_TYPES, 1, 1);
	tap_ok(!t.nr_outstanding[TABS_READ] && !t.nr_inflight[TABS_READ] &&
	       t.bytes_epoch[TABS_READ] == 4 * KIB16,
	       "tabs_done(100 requeued, 0 bytes) of 6: 0, no wrap; bad type ignored");

	/* measured, in SCHED with credit and reads in flight, then restarted */
	params_set(&p);
	p.bwmax[TABS_READ] = 0;
	tabs_init(&t, 0);
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 50 * MS);
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 150 * MS);
	run_ival(&t, TABS_READ, 1000);
	tabs_tick(&t, &p, 250 * MS);
	insert(&t, TABS_READ, 300);
	insert(&t, TABS_FUA, 100);
	tabs_tick(&t, &p, 300 * MS);
	for (i = 0; i < 5; i++)
		tabs_dispatched(&t, TABS_READ, KIB16);
	tap_ok(t.phase == TABS_SCHED && t.credit == 6 * TABS_ALPHA_ONE &&
	       t.bwmax_auto[TABS_READ] == 163840000,
	       "before: SCHED, credit 5 reads * alpha 3 capped at 6 writes, BWmax_read measured");
	tabs_restart(&t, 2000 * MS);
	tap_ok(t.phase == TABS_IDLE && !t.credit && !t.nr_issued[TABS_READ] &&
	       t.start == 2000 * MS && t.alpha == 3072 &&
	       t.nr_inflight[TABS_READ] == 5 &&
	       t.nr_outstanding[TABS_READ] == 300 &&
	       t.bwmax_auto[TABS_READ] == 163840000,
	       "restart: IDLE, no credit, counting from now; alpha, outstanding, in flight and BWmax kept");
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2100 * MS);
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2200 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000,
	       "first two intervals after restart: nothing measured (3x faster reads ignored)");
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2300 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 163840000,
	       "the next one: a first rate, kept (unchanged)");
	run_ival(&t, TABS_READ, 3000);
	tabs_tick(&t, &p, 2400 * MS);
	tap_ok(t.bwmax_auto[TABS_READ] == 491520000,
	       "and one more: two in a row, 491520000");
}

/* 6. Bad and extreme input */
static void test_edges(void)
{
	struct tabs_params p;
	struct tabs t;
	unsigned int ev;
	u64 zero[2] = { 0, 0 }, one[2] = { 1, 1 };
	int i;

	params_set(&p);
	p.epoch_ms = 0;
	sched_with(&t, &p, 300, 100);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	ev = tabs_tick(&t, &p, 100 * MS);
	ev |= tabs_tick(&t, &p, 100 * MS);
	tap_ok(ev == 0 && t.nr_epochs == 0 && t.alpha == 3072 &&
	       t.phase == TABS_SCHED,
	       "epoch_ms 0, ticks at the epoch's start: zero-length epoch not ended");
	tabs_tick(&t, &p, 101 * MS);
	tap_ok(t.nr_epochs == 1, "epoch_ms 0: an epoch lasts at least 1 ms");

	/* FUA writes issued, none completed: ratio floored at 1/16 */
	params_set(&p);
	sched_with(&t, &p, 300, 100);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_holds(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 1200000000);
	ev = tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.bw[TABS_FUA] == 0 && t.alpha == 3072 * 16 &&
	       ev == TABS_EV_ALPHA && t.fairness == 0,
	       "FUA bw 0: alpha * 16 (49152), not infinite; F 0 (got %u, %u)",
	       t.alpha, t.fairness);
	sched_with(&t, &p, 300, 100);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_holds(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 12000000);	/* 1 % of FBW */
	tabs_completed(&t, TABS_FUA, 100000000);
	tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.alpha == 3072 / 16,
	       "read bw 1 %% of FBW: ratio floored, alpha / 16 (192), got %u",
	       t.alpha);

	/* alpha clamps */
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 2000000);
	insert(&t, TABS_FUA, 1);
	tabs_tick(&t, &p, 100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_MAX,
	       "2e6 reads / 1 FUA: alpha clamped to 1024 (2^20)");
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 2000000000);
	ev = tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_MAX && ev == 0,
	       "at the max, FUA bw 0: stays at the max, no event");
	for (i = 0; i < 100000; i++)
		tabs_dispatched(&t, TABS_READ, KIB16);
	tap_ok(t.credit == 2ULL * TABS_ALPHA_MAX,
	       "alpha max: credit capped at 2048 FUA writes");
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 2000);
	tabs_tick(&t, &p, 100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_MIN,
	       "1 read / 2000 FUA: alpha clamped to 1/1024 (1)");
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_FUA, 400000000);
	tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_MIN, "at the min, read bw 0: stays at 1");

	/*
	 * BWmax unknown: no goal, nothing held. Without it alpha stayed at
	 * the paper's start, I_read / I_fua, for good: a FUA writer of
	 * weight 300 beside a reader of weight 100 was held to a third of
	 * the reads' count and got 0.256 of the IOPS, not 0.75.
	 */
	tabs_params_init(&p);
	ev = sched_with(&t, &p, 300, 100);
	tap_ok(t.phase == TABS_IDLE && ev == 0 && !tabs_holds(&t, TABS_FUA, 1),
	       "BWmax auto, not measured: IDLE past the threshold, nothing held");
	p.bwmax[TABS_READ] = 1600000000;
	ev = sched_with(&t, &p, 300, 100);
	tap_ok(t.phase == TABS_IDLE && ev == 0,
	       "BWmax of reads only: still IDLE");
	p.bwmax[TABS_FUA] = 400000000;
	ev = sched_with(&t, &p, 300, 100);
	tap_ok(t.phase == TABS_SCHED && ev & TABS_EV_PHASE,
	       "both BWmax set: SCHED");
	p.bwmax[TABS_FUA] = 0;
	ev = tabs_tick(&t, &p, 200 * MS);
	tap_ok(t.phase == TABS_IDLE && ev == TABS_EV_PHASE &&
	       tabs_may_release(&t, &p, 200 * MS, 200 * MS, 1),
	       "FUA BWmax back to auto, never measured: IDLE at the next tick, held writes go");

	/* counts never wrap, bad types are ignored */
	tabs_init(&t, 0);
	tabs_finished(&t, TABS_READ);
	tabs_completed(&t, TABS_FUA, KIB16);
	tabs_inserted(&t, -1);
	tabs_inserted(&t, TABS_NR_TYPES);
	tabs_dispatched(&t, 99, KIB16);
	tabs_completed(&t, -5, KIB16);
	tabs_finished(&t, TABS_NR_TYPES);
	tap_ok(!t.nr_outstanding[TABS_READ] && !t.nr_inflight[TABS_FUA] &&
	       !t.nr_issued[0] && !t.nr_issued[1] && !t.nr_issued[2] &&
	       !tabs_holds(&t, -1, 1),
	       "finished/completed without insert/dispatch, bad types: no wrap, ignored");

	/* the clock goes back */
	params_set(&p);
	sched_with(&t, &p, 300, 100);
	ev = tabs_tick(&t, &p, 50 * MS);
	tap_ok(t.phase == TABS_SCHED && ev == 0 &&
	       !tabs_may_release(&t, &p, 50 * MS, 100 * MS, 1),
	       "a tick and a release check in the past: nothing happens");

	/* huge completions in a short epoch: bandwidth clamped */
	p.epoch_ms = 10;
	sched_with(&t, &p, 300, 100);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	for (i = 0; i < 1000; i++) {
		tabs_completed(&t, TABS_READ, U32_MAX);
		tabs_completed(&t, TABS_FUA, U32_MAX);
	}
	tabs_tick(&t, &p, 110 * MS);
	tap_ok(t.bw[0] == TABS_MAX_BWMAX && t.bw[1] == TABS_MAX_BWMAX &&
	       t.fairness == 83,
	       "4.3e12 bytes of each in 10 ms: bw clamped to 2^40; F (1/1.2e9) / (1/1e8) = 1/12 (83), got %u",
	       t.fairness);

	tap_ok(!tabs_fairness(zero, one) && !tabs_fairness(one, zero) &&
	       !tabs_fbw(1000, 1, 0) && tabs_fbw(1000, 5, 4) == 1000,
	       "Eq. 1 and 2 guards: a 0 gives 0; I_x > I_total is I_total");
}

/*
 * A later SCHED phase starts from the alpha the feedback left, rescaled to
 * the new mix (alpha goes as I_fua / I_read at the fair point); the first
 * one from the paper's I_read / I_fua.
 */
static void test_alpha_carry(void)
{
	struct tabs_params p;
	struct tabs t;
	u64 now;

	params_set(&p);
	sched_with(&t, &p, 100, 100);
	tap_ok(t.alpha == TABS_ALPHA_ONE, "first SCHED, I 100/100: alpha 1 (paper), got %u",
	       t.alpha);
	/* an epoch: reads at 1/4 of their FBW (8e8), FUA at it (2e8) */
	tabs_dispatched(&t, TABS_READ, 0);
	tabs_dispatched(&t, TABS_FUA, 0);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_holds(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 200000000);
	tabs_completed(&t, TABS_FUA, 200000000);
	tabs_tick(&t, &p, 1100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_ONE / 4 && t.alpha_fb == t.alpha,
	       "feedback: reads at 0.25 of FBW: alpha 1/4 (256), got %u", t.alpha);
	/* SCHED ends; the mix is now three FUA writes per read */
	tabs_done(&t, TABS_READ, 101, 0);
	tabs_done(&t, TABS_FUA, 101, 0);
	tabs_tick(&t, &p, 10100 * MS);
	tap_ok(t.phase == TABS_IDLE, "SCHED over at 10.1 s");
	insert(&t, TABS_READ, 100);
	insert(&t, TABS_FUA, 300);
	now = 10200 * MS;
	tabs_tick(&t, &p, now);
	tap_ok(t.phase == TABS_SCHED && t.alpha == 3 * TABS_ALPHA_ONE / 4,
	       "next SCHED, I 100/300: alpha 1/4 * 3 (768), not 1/3 (paper), got %u",
	       t.alpha);
}

/*
 * TABS holds a tenant's FUA writes only while that tenant has reads of its
 * own outstanding: between tenants the weights share the device.
 */
static void test_own_reads(void)
{
	static struct sim s;
	struct tabs_params p;
	unsigned int ev;
	struct tabs t;
	u32 a0;

	params_set(&p);
	sched_with(&t, &p, 100, 200);
	tap_ok(!tabs_holds(&t, TABS_FUA, 0) && t.nr_held == 0 &&
	       t.held_epoch == 0,
	       "SCHED, 100 reads outstanding, none the writer's: not held, not counted");
	tap_ok(tabs_holds(&t, TABS_FUA, 3) && t.nr_held == 1 &&
	       t.held_epoch == 1,
	       "... its tenant with 3 reads outstanding: held, counted");
	tap_ok(tabs_may_release(&t, &p, 100 * MS, 100 * MS, 0) &&
	       t.nr_released[TABS_REL_LONE] == 1 && t.credit == 0,
	       "held, no credit, its tenant's reads done (100 others outstanding): released as lone");

	/* an epoch with reads at 1/4 of their FBW: moves alpha only if held */
	sched_with(&t, &p, 100, 100);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 200000000);
	tabs_completed(&t, TABS_FUA, 200000000);
	ev = tabs_tick(&t, &p, 1100 * MS);
	tap_ok(ev == 0 && t.nr_epochs == 1 &&
	       t.fairness == 250 && t.alpha == TABS_ALPHA_ONE &&
	       t.phase == TABS_SCHED,
	       "epoch, F 0.25, no FUA write held: alpha stays 1 (%u), F kept (%u)",
	       t.alpha, t.fairness);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_holds(&t, TABS_FUA, 1);
	tabs_completed(&t, TABS_READ, 200000000);
	tabs_completed(&t, TABS_FUA, 200000000);
	tabs_tick(&t, &p, 2100 * MS);
	tap_ok(t.alpha == TABS_ALPHA_ONE / 4,
	       "next epoch, F 0.25, a FUA write held: alpha 1/4 (256), got %u",
	       t.alpha);
	/* held_epoch is the epoch's: it starts over with each */
	tabs_holds(&t, TABS_FUA, 1);
	tabs_restart(&t, 2200 * MS);
	tap_ok(t.held_epoch == 0 && t.credit_epoch == 0,
	       "restart: the epoch's held count starts over");
	t.phase = TABS_SCHED;
	tabs_holds(&t, TABS_FUA, 1);
	insert(&t, TABS_READ, 1);
	insert(&t, TABS_FUA, 1);
	tabs_tick(&t, &p, 3300 * MS);
	tap_ok(t.nr_epochs == 3 && t.held_epoch == 0,
	       "an epoch's end: its held count starts over (%llu)",
	       (unsigned long long)t.held_epoch);

	/* the sim's FUA hog, the writer a tenant of its own */
	sim_init(&s, 32, 32);
	s.fua_alone = true;
	sim_run(&s, 100 * MS);
	a0 = s.t.alpha;
	sim_epochs(&s, 1, 5, "FUA tenant");
	tap_ok(s.t.phase == TABS_SCHED && s.t.nr_held == 0 &&
	       s.t.alpha == a0 && s.t.fairness >= 225 && s.t.fairness <= 275,
	       "a FUA-only tenant beside a reader, 5 epochs: nothing held, alpha at its start (%u), F as FIFO gives (%u)",
	       s.t.alpha, s.t.fairness);
}

/* tabs_demand() of @read:@fua, then tabs_tick() at @now */
static unsigned int demand_tick(struct tabs *t, const struct tabs_params *p,
				u64 read, u64 fua, u64 now)
{
	u64 d[TABS_NR_FAIR] = { [TABS_READ] = read, [TABS_FUA] = fua };

	tabs_demand(t, d);
	return tabs_tick(t, p, now);
}

/*
 * Eq. 1's I_x from the tenants' weights (tabs_demand()): a FUA-only tenant
 * of weight 300 beside a reader of weight 100 is owed 3/4 of the FUA
 * bandwidth whatever its queue depth.
 */
static void test_demand(void)
{
	struct tabs_params p;
	struct tabs t;

	params_set(&p);
	tabs_init(&t, 0);
	/* outstanding: the reader at depth 32, the writer at depth 4 */
	insert(&t, TABS_READ, 32);
	insert(&t, TABS_FUA, 4);
	insert(&t, TABS_READ, 28);
	demand_tick(&t, &p, 100, 300, 100 * MS);
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 256 &&
	       t.i[TABS_FUA] == 768,
	       "I from weights 100:300, not outstanding 60:4: 256/768, got %llu/%llu",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);
	tap_ok(t.fbw[TABS_FUA] == 300000000 && t.fbw[TABS_READ] == 400000000,
	       "Eq. 1 by weight: FBW_fua 3/4 of 4e8, FBW_read 1/4 of 1.6e9");

	/* a demand given in IDLE counts for that tick only */
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 10);
	insert(&t, TABS_FUA, 10);
	demand_tick(&t, &p, 1, 0, 100 * MS);
	insert(&t, TABS_READ, 30);
	insert(&t, TABS_FUA, 20);
	tabs_tick(&t, &p, 200 * MS);
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 50 &&
	       t.i[TABS_FUA] == 40,
	       "a demand with no FUA share: I = outstanding summed (10+40, 10+30), got %llu/%llu",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);

	/* weights far apart, huge sums: the ratio survives */
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 64);
	insert(&t, TABS_FUA, 1);
	demand_tick(&t, &p, ~0ULL >> 2, ~0ULL >> 12, 100 * MS);
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 1023 &&
	       t.i[TABS_FUA] == 1,
	       "demand 2^62:2^52: I 1023/1, got %llu/%llu",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);
	/* restart forgets a demand summed before */
	tabs_init(&t, 0);
	demand_tick(&t, &p, 1, 1, 100 * MS);
	tabs_restart(&t, 200 * MS);
	insert(&t, TABS_READ, 48);
	insert(&t, TABS_FUA, 16);
	tabs_tick(&t, &p, 300 * MS);
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 48 &&
	       t.i[TABS_FUA] == 16,
	       "after tabs_restart(): I from this period's counts 48/16, got %llu/%llu",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);
}

/*
 * A mix that moves under a SCHED phase moves its goal at the epoch's end
 * (tabs_regoal()); one within TABS_REGOAL_PCT does not.
 */
static void test_regoal(void)
{
	struct tabs_params p;
	struct tabs t;
	u64 now;
	int i;

	params_set(&p);
	tabs_init(&t, 0);
	insert(&t, TABS_READ, 64);
	insert(&t, TABS_FUA, 32);
	demand_tick(&t, &p, 200, 100, 100 * MS);
	tap_ok(t.phase == TABS_SCHED && t.i[TABS_READ] == 682 &&
	       t.i[TABS_FUA] == 341,
	       "SCHED from a 2:1 demand (682/341), got %llu/%llu",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);
	/* the epoch: FUA at FBW, reads at it: no feedback; mix 2:1 to 1:2 */
	for (now = 200 * MS, i = 0; now <= 1100 * MS; now += 100 * MS, i++) {
		insert(&t, TABS_READ, 1);
		insert(&t, TABS_FUA, 1);
		tabs_holds(&t, TABS_FUA, 1);
		if (now == 1100 * MS) {
			tabs_completed(&t, TABS_READ, 1066666666);
			tabs_completed(&t, TABS_FUA, 133333333);
		}
		demand_tick(&t, &p, 100, 200, now);
	}
	tap_ok(t.phase == TABS_SCHED && t.nr_regoal == 1 &&
	       t.i[TABS_READ] * 2 == t.i[TABS_FUA],
	       "the mix went 2:1 -> 1:2: goal moved at the epoch's end (I %llu/%llu)",
	       (unsigned long long)t.i[TABS_READ],
	       (unsigned long long)t.i[TABS_FUA]);
	tap_ok(t.fbw[TABS_FUA] == 266666666 && t.fbw[TABS_READ] == 533333333,
	       "FBW follows: FUA 2/3 of 4e8, reads 1/3 of 1.6e9 (%llu, %llu)",
	       (unsigned long long)t.fbw[TABS_FUA],
	       (unsigned long long)t.fbw[TABS_READ]);
	/* alpha 1/2 (paper's start 2:1 -> 2048; fed back, then x4) */
	tap_ok(t.alpha == t.alpha_fb && t.i_fb[TABS_FUA] == t.i[TABS_FUA],
	       "alpha rescaled to the new mix and kept as the fed-back one (%u)",
	       t.alpha);
	/* a drift within 25 %: 1:2 -> 1:2.4 keeps the goal */
	for (now = 1200 * MS; now <= 2100 * MS; now += 100 * MS) {
		insert(&t, TABS_READ, 1);
		insert(&t, TABS_FUA, 1);
		demand_tick(&t, &p, 100, 240, now);
	}
	tap_ok(t.nr_regoal == 1 && t.nr_epochs == 2,
	       "a drift of 20 %% keeps the goal (regoals %llu, epochs %llu)",
	       (unsigned long long)t.nr_regoal,
	       (unsigned long long)t.nr_epochs);
	/* no demand given in SCHED (caller without tenants): goal stays */
	for (now = 2200 * MS; now <= 3100 * MS; now += 100 * MS) {
		insert(&t, TABS_READ, 1);
		insert(&t, TABS_FUA, 5);
		tabs_tick(&t, &p, now);
	}
	tap_ok(t.nr_regoal == 1 && t.nr_epochs == 3,
	       "no demand in the epoch: goal stays");
}

int main(void)
{
	tap_plan(2 +		/* test_params */
		 18 +		/* test_phases */
		 8 +		/* test_throttle */
		 10 +		/* test_no_deadlock */
		 13 +		/* test_feedback_sim */
		 16 +		/* test_equations */
		 4 +		/* test_alpha_carry */
		 8 +		/* test_own_reads */
		 5 +		/* test_demand */
		 6 +		/* test_regoal */
		 19 +		/* test_bwmax_auto */
		 7 +		/* test_done_restart */
		 17);		/* test_edges */
	test_params();
	test_phases();
	test_throttle();
	test_no_deadlock();
	test_feedback_sim();
	test_equations();
	test_alpha_carry();
	test_own_reads();
	test_demand();
	test_regoal();
	test_bwmax_auto();
	test_done_restart();
	test_edges();
	return tap_done();
}
