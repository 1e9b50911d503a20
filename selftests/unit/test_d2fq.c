// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the D2FQ policy core (d2fq.c): virtual time arithmetic and
 * its wrap, the gvt holder scheme (sequential and under concurrent updates
 * from several threads), Eq. 1 boundaries, Eq. 2 and 3 arithmetic, the
 * software WRR arbiter, and closed-loop simulations of the whole policy.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/limits.h>
#include <fairnvme/d2fq.h>
#include "tap.h"

static void test_vt(void)
{
	tap_ok(d2fq_vt_delta(4096, 1) == 4096ULL << D2FQ_VT_SHIFT,
	       "4 KiB at weight 1 is 4096 bytes per unit weight");
	tap_ok(d2fq_vt_delta(8192, 200) == (8192ULL << D2FQ_VT_SHIFT) / 200,
	       "vt delta is bytes / weight in 1/2^%d units", D2FQ_VT_SHIFT);
	tap_ok(d2fq_vt_delta(4096, 0) == d2fq_vt_delta(4096, 1),
	       "weight 0 counts as 1 (no division by zero)");
	tap_ok(d2fq_vt_diff(5, D2FQ_VT_MASK - 4) == 10,
	       "vt diff across the 48-bit wrap: 10");
	tap_ok(d2fq_vt_diff(D2FQ_VT_MASK - 4, 5) == -10,
	       "vt diff across the 48-bit wrap: -10");
	tap_ok(d2fq_vt_diff((1ULL << 60) + 7, 7) == 0,
	       "vt diff ignores bits above 48");
	tap_ok(d2fq_gvt_id(d2fq_gvt_pack(0xabcd, D2FQ_VT_MASK)) == 0xabcd &&
	       d2fq_gvt_vt(d2fq_gvt_pack(0xabcd, ~0ULL)) == D2FQ_VT_MASK,
	       "gvt word packs a 16-bit holder and a 48-bit vt");
}

/* gvt @g holds @id at @vt */
static bool gvt_is(atomic64_t *g, u16 id, u64 vt)
{
	u64 w = atomic64_read(g);

	return d2fq_gvt_id(w) == id && d2fq_gvt_vt(w) == vt;
}

static void test_gvt_seq(void)
{
	atomic64_t g;

	atomic64_set(&g, (s64)d2fq_gvt_pack(D2FQ_ID_NONE, 0));
	d2fq_gvt_update(&g, 1, 1000, 0, 0);
	tap_ok(gvt_is(&g, D2FQ_ID_NONE, 0),
	       "with no holder, a flow ahead of gvt does not take it");
	d2fq_gvt_anchor(&g, 1, 1000);
	tap_ok(gvt_is(&g, 1, 1000),
	       "the anchor gives gvt a holder");
	d2fq_gvt_update(&g, 2, 2000, 0, 0);
	tap_ok(gvt_is(&g, 1, 1000),
	       "a flow ahead of gvt that does not hold it cannot raise it");
	d2fq_gvt_update(&g, 1, 1500, 0, 0);
	tap_ok(gvt_is(&g, 1, 1500),
	       "the holder raises gvt");
	d2fq_gvt_update(&g, 3, 1200, 0, 0);
	tap_ok(gvt_is(&g, 3, 1200),
	       "a flow behind gvt lowers it and becomes the holder");
	d2fq_gvt_release(&g, 1);
	tap_ok(d2fq_gvt_id(atomic64_read(&g)) == 3,
	       "release by a flow that is not the holder changes nothing");
	d2fq_gvt_release(&g, 3);
	tap_ok(gvt_is(&g, D2FQ_ID_NONE, 1200),
	       "release keeps the value and clears the holder");
	d2fq_gvt_update(&g, 2, 2000, 0, 0);
	tap_ok(gvt_is(&g, D2FQ_ID_NONE, 1200),
	       "a released gvt is not taken by a flow ahead of it (no jump)");
	d2fq_gvt_update(&g, 2, 1300, 0, 100);
	tap_ok(gvt_is(&g, 2, 1300),
	       "a released gvt is taken by a flow within the slack of it");
	d2fq_gvt_release(&g, 2);
	d2fq_gvt_update(&g, 3, 1700, 340, 50);
	tap_ok(gvt_is(&g, D2FQ_ID_NONE, 1300),
	       "not by one that was past the slack before its step (1360 > 1300 + 50)");
	d2fq_gvt_update(&g, 3, 1700, 400, 50);
	tap_ok(gvt_is(&g, 3, 1700),
	       "but by one that was at it before its step, at its vt after it");
	d2fq_gvt_release(&g, 3);
	d2fq_gvt_anchor(&g, 2, 1300);
	d2fq_gvt_release(&g, 2);
	d2fq_gvt_update(&g, 4, 1100, 0, 0);
	tap_ok(gvt_is(&g, 4, 1100),
	       "a released gvt is taken by a flow behind it");
	d2fq_gvt_release(&g, 4);
	d2fq_gvt_anchor(&g, 2, 2000);
	tap_ok(gvt_is(&g, 2, 2000),
	       "the anchor sets gvt and its holder");
	d2fq_gvt_anchor(&g, D2FQ_ID_NONE, 5);
	tap_ok(d2fq_gvt_vt(atomic64_read(&g)) == 2000,
	       "the anchor ignores a flow without an id");
	d2fq_gvt_update(&g, D2FQ_ID_NONE, 10, 0, 0);
	tap_ok(d2fq_gvt_vt(atomic64_read(&g)) == 2000,
	       "a flow without an id never updates gvt");
	d2fq_gvt_update(&g, 2, 2100, 0, 100);
	tap_ok(d2fq_gvt_vt(atomic64_read(&g)) == 2000,
	       "slack 100: the holder 100 ahead does not raise gvt");
	d2fq_gvt_update(&g, 2, 2101, 0, 100);
	tap_ok(d2fq_gvt_vt(atomic64_read(&g)) == 2101,
	       "slack 100: the holder 101 ahead raises gvt");
	d2fq_gvt_update(&g, 3, 2100, 0, 100);
	tap_ok(d2fq_gvt_vt(atomic64_read(&g)) == 2100 &&
	       d2fq_gvt_id(atomic64_read(&g)) == 3,
	       "slack does not stop a flow behind from lowering gvt");

	atomic64_set(&g, (s64)d2fq_gvt_pack(4, D2FQ_VT_MASK - 100));
	d2fq_gvt_update(&g, 4, (D2FQ_VT_MASK + 1) + 50, 0, 0);
	tap_ok(gvt_is(&g, 4, 50),
	       "the holder raises gvt across the 48-bit wrap");
	d2fq_gvt_update(&g, 5, D2FQ_VT_MASK - 10, 0, 0);
	tap_ok(gvt_is(&g, 5, D2FQ_VT_MASK - 10),
	       "a flow behind across the wrap lowers gvt");
}

/*
 * Concurrent updates: NTHR threads each own a flow and, in every round,
 * advance its vt by a random step and call update_gvt(); a barrier ends
 * the round. The holder only raises gvt to its own vt and every flow
 * lowers it once per round, so at the end of each round gvt is at most
 * one holder step above the true minimum. Flow 0 lets go of gvt now and
 * then; a round that ends without a holder is re-anchored on the minimum,
 * as the control period does. The vts start just below the 48-bit wrap,
 * so the comparisons cross it.
 */
#define NTHR	4
#define ROUNDS	20000
#define STEP	1000

static atomic64_t cgvt;
static u64 cvt[NTHR];
static pthread_barrier_t bar;
static int c_bad, c_above, c_below, c_holders, c_nohold, c_rel;
static unsigned int c_seen;

static void *gvt_thread(void *arg)
{
	long me = (long)arg;
	unsigned int seed = 12345 + me;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		u64 step = 1 + rand_r(&seed) % STEP;

		if (me == 0 && r % 5000 == 4999) {
			/* whoever holds gvt lets go of it */
			d2fq_gvt_release(&cgvt,
					 d2fq_gvt_id(atomic64_read(&cgvt)));
			c_rel++;
		}
		cvt[me] += step;
		d2fq_gvt_update(&cgvt, me + 1, cvt[me], step, 0);
		pthread_barrier_wait(&bar);
		if (me == 0) {
			u64 w = atomic64_read(&cgvt);
			u64 mn = cvt[0];
			s64 d;
			int i;

			for (i = 1; i < NTHR; i++)
				if (d2fq_vt_diff(cvt[i], mn) < 0)
					mn = cvt[i];
			d = d2fq_vt_diff(d2fq_gvt_vt(w), mn);
			if (d > STEP)
				c_above++;
			if (d < 0)
				c_below++;
			if (d2fq_gvt_id(w) > NTHR)
				c_bad++;
			if (d2fq_gvt_id(w) == D2FQ_ID_NONE) {
				c_nohold++;
				for (i = 0; i < NTHR; i++)
					if (cvt[i] == mn)
						break;
				d2fq_gvt_anchor(&cgvt, i + 1, mn);
				w = atomic64_read(&cgvt);
			}
			c_seen |= 1U << d2fq_gvt_id(w);
		}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static void test_gvt_threads(void)
{
	pthread_t t[NTHR];
	long i;

	atomic64_set(&cgvt, 0);
	for (i = 0; i < NTHR; i++)
		cvt[i] = D2FQ_VT_MASK - 3 * ROUNDS;
	pthread_barrier_init(&bar, NULL, NTHR);
	for (i = 0; i < NTHR; i++)
		pthread_create(&t[i], NULL, gvt_thread, (void *)i);
	for (i = 0; i < NTHR; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (i = 0; i < NTHR; i++)
		c_holders += !!(c_seen & (1U << (i + 1)));
	tap_ok(!c_above, "%d threads x %d rounds: gvt never more than one step (%d) above the true minimum (%d times)",
	       NTHR, ROUNDS, STEP, c_above);
	tap_ok(!c_bad, "gvt never held by an unknown flow (%d times)", c_bad);
	tap_ok(c_rel == ROUNDS / 5000 && c_nohold <= c_rel,
	       "a round ends without a holder only after a release (%d, %d releases)",
	       c_nohold, c_rel);
	tap_ok(c_below < ROUNDS, "gvt below the true minimum in %d of %d rounds (sloppy, allowed)",
	       c_below, ROUNDS);
	tap_ok(c_holders >= 2, "holder changed hands: %d of %d flows held gvt",
	       c_holders, NTHR);
	tap_ok(d2fq_vt_diff(cvt[0], D2FQ_VT_MASK) > 0 &&
	       (cvt[0] & D2FQ_VT_MASK) < 3 * ROUNDS * STEP,
	       "the flows' vts wrapped during the run");
}

static void test_eq1(void)
{
	u64 tl = 1000;

	tap_ok(d2fq_class_of(-5000, tl) == D2FQ_HIGH, "Eq.1: behind gvt: high");
	tap_ok(d2fq_class_of(0, tl) == D2FQ_HIGH, "Eq.1: at gvt: high");
	tap_ok(d2fq_class_of(499, tl) == D2FQ_HIGH, "Eq.1: tau_m - 1: high");
	tap_ok(d2fq_class_of(500, tl) == D2FQ_MEDIUM, "Eq.1: tau_m: medium");
	tap_ok(d2fq_class_of(999, tl) == D2FQ_MEDIUM, "Eq.1: tau_l - 1: medium");
	tap_ok(d2fq_class_of(1000, tl) == D2FQ_LOW, "Eq.1: tau_l: low");
	tap_ok(d2fq_class_of(1LL << 46, tl) == D2FQ_LOW, "Eq.1: far ahead: low");
}

static void test_eq23(void)
{
	u32 w[D2FQ_NR_CLASSES] = { 0, 16, 4, 1 };
	u64 b[D2FQ_NR_CLASSES] = { 0 };

	tap_ok(d2fq_hl_raise(3, 1, 7) == 22,
	       "Eq.2: gap widened 3x under 7: floor(21) + 1 = 22 (paper, Fig. 6)");
	tap_ok(d2fq_hl_raise(5, 2, 10) == 26, "Eq.2: floor(2.5 * 10) + 1 = 26");
	tap_ok(d2fq_hl_raise(1, 0, 10) == D2FQ_HL_MAX,
	       "Eq.2: flow at gvt did not advance: the maximum");
	tap_ok(d2fq_hl_raise(1000, 1, 100) == D2FQ_HL_MAX,
	       "Eq.2: bounded by %u", D2FQ_HL_MAX);
	tap_ok(d2fq_hl_raise(1, 10, 3) == D2FQ_HL_MIN,
	       "Eq.2: bounded below by %u", D2FQ_HL_MIN);
	tap_ok(d2fq_hl_raise(~0ULL, 1, 256) == D2FQ_HL_MAX,
	       "Eq.2: no overflow on a huge advance");
	tap_ok(d2fq_slowdown(b, w) == 1000, "Eq.3: no bytes: slowdown 1");
	b[D2FQ_HIGH] = 4096;
	b[D2FQ_URGENT] = 4096;
	tap_ok(d2fq_slowdown(b, w) == 1000, "Eq.3: high and urgent only: 1");
	b[D2FQ_HIGH] = 0;
	b[D2FQ_URGENT] = 0;
	b[D2FQ_LOW] = 4096;
	tap_ok(d2fq_slowdown(b, w) == 16000, "Eq.3: low only: p_h/p_l = 16");
	b[D2FQ_HIGH] = 4096;
	b[D2FQ_MEDIUM] = 8192;
	/* (4096 * 1 + 8192 * 4 + 4096 * 16) / 16384 = 6.25 */
	tap_ok(d2fq_slowdown(b, w) == 6250, "Eq.3: mixed classes: %llu/1000",
	       (unsigned long long)d2fq_slowdown(b, w));
	b[D2FQ_HIGH] = 1ULL << 40;
	b[D2FQ_LOW] = 1ULL << 40;
	tap_ok(d2fq_slowdown(b, w) > 8000 && d2fq_slowdown(b, w) < 8600,
	       "Eq.3: 2^40 bytes per class do not overflow");
}

/* a period over flows @a and @b, from vt_prev @pa, @pb to vt @va, @vb */
static void period2(struct d2fq_period *p, struct d2fq_flow *a, u64 pa,
		    u64 va, struct d2fq_flow *b, u64 pb, u64 vb, u64 gvt,
		    const u32 *w)
{
	a->vt_prev = pa;
	b->vt_prev = pb;
	atomic64_set(&a->vt, va);
	atomic64_set(&b->vt, vb);
	d2fq_period_begin(p, gvt);
	d2fq_period_flow(p, a, w);
	d2fq_period_flow(p, b, w);
}

static void test_period(void)
{
	u32 w[D2FQ_NR_CLASSES] = { 0, 16, 4, 1 };
	struct d2fq_flow a, b;
	struct d2fq_period p;

	d2fq_flow_init(&a, 1, 100);
	d2fq_flow_init(&b, 2, 100);
	a.active = b.active = true;
	atomic64_set(&a.vt, 1000);
	atomic64_set(&b.vt, 1000 + 5000);
	a.vt_prev = 0;
	b.vt_prev = 1000;
	b.bytes[D2FQ_LOW] = 4096;
	d2fq_period_begin(&p, 1000);
	d2fq_period_flow(&p, &a, w);
	d2fq_period_flow(&p, &b, w);
	tap_ok(p.gap_max == 5000 && p.d_max == 5000 && p.gap_min == 0 &&
	       p.d_min == 1000 && p.sd_max == 16000,
	       "period: flow furthest ahead, flow at gvt, their advances");
	tap_ok(d2fq_period_end(&p, 16, 4000) == 81,
	       "gap 5000 > tau_w 4000: Eq.2 raises 16 to 81");
	p.d_max = 500;
	tap_ok(d2fq_period_end(&p, 100, 4000) == 100,
	       "gap above tau_w but closing (Eq.2 gives 51): ratio kept at 100");
	p.d_max = 5000;
	tap_ok(d2fq_period_end(&p, 16, 8000) == 16,
	       "gap within tau_w: largest virtual slowdown (16)");
	tap_ok(a.vt_prev == 1000 && !b.bytes[D2FQ_LOW],
	       "period restarts each flow's counters");
	d2fq_flow_served(&b, D2FQ_LOW, 4096);
	d2fq_flow_served(&b, D2FQ_URGENT, 8192);
	tap_ok(b.bytes[D2FQ_LOW] == 4096 && b.bytes[D2FQ_URGENT] == 8192 &&
	       b.nr[D2FQ_LOW] == 1 && b.nr[D2FQ_URGENT] == 1 &&
	       b.charged == 12288,
	       "served: bytes and requests per class, charge over all classes");
	d2fq_period_begin(&p, 1000);
	d2fq_period_flow(&p, &b, w);
	tap_ok(!b.bytes[D2FQ_LOW] && b.nr[D2FQ_LOW] == 1 && b.charged == 12288,
	       "the period restarts the bytes, not the requests or the charge");
	d2fq_period_begin(&p, 1000);
	d2fq_period_flow(&p, &a, w);
	d2fq_period_flow(&p, &b, w);
	tap_ok(d2fq_period_end(&p, 64, 8000) == D2FQ_HL_MIN,
	       "nothing served through low or medium: falls back to %u",
	       D2FQ_HL_MIN);
	/*
	 * A flow that went back (the probe's tilt given back) advanced 0,
	 * not 2^64: the one at gvt, as one that stalled; the one furthest
	 * ahead does not take the ratio to its largest.
	 */
	period2(&p, &a, 1000, 900, &b, 6000, 10000, 900, w);
	tap_ok(p.d_min == 0 && p.gap_min == 0 && p.d_max == 4000,
	       "the flow at gvt went back: advanced %llu (0)",
	       (unsigned long long)p.d_min);
	period2(&p, &a, 0, 1000, &b, 10500, 10000, 1000, w);
	tap_ok(p.d_max == 0 && p.d_min == 1000 &&
	       d2fq_period_end(&p, 16, 8000) < D2FQ_HL_MAX,
	       "the flow furthest ahead went back: advanced %llu (0), the ratio %u stays under %u",
	       (unsigned long long)p.d_max, d2fq_period_end(&p, 16, 8000),
	       D2FQ_HL_MAX);
	b.active = false;
	d2fq_period_begin(&p, 1000);
	d2fq_period_flow(&p, &b, w);
	tap_ok(!p.nr, "inactive flows are not counted");
	tap_ok(d2fq_period_end(&p, 40, 8000) == 40,
	       "a period without active flows keeps the ratio");
}

static void test_arb(void)
{
	struct d2fq_flow f[4];
	struct d2fq_arb a;
	int n[D2FQ_NR_CLASSES] = { 0 };
	int i;

	d2fq_arb_init(&a, 16, 2);
	tap_ok(a.weight[D2FQ_HIGH] == 16 && a.weight[D2FQ_MEDIUM] == 4 &&
	       a.weight[D2FQ_LOW] == 1, "H/L 16: weights 16:4:1");
	d2fq_arb_set_hl(&a, 1000);
	tap_ok(a.hl == D2FQ_HL_MAX && a.weight[D2FQ_MEDIUM] == 16,
	       "H/L clamped to 256, medium weight sqrt = 16");
	d2fq_arb_set_hl(&a, 1);
	tap_ok(a.hl == D2FQ_HL_MIN && a.weight[D2FQ_MEDIUM] == 1,
	       "H/L clamped to 3, medium weight 1");
	d2fq_arb_set_hl(&a, 16);
	tap_ok(!d2fq_arb_pick(&a), "empty arbiter picks nothing");

	for (i = 0; i < 4; i++)
		d2fq_flow_init(&f[i], i + 1, 100);
	d2fq_arb_add(&a, &f[0], D2FQ_HIGH);
	d2fq_arb_add(&a, &f[1], D2FQ_MEDIUM);
	d2fq_arb_add(&a, &f[2], D2FQ_LOW);
	for (i = 0; i < 21 * 100; i++) {
		struct d2fq_flow *p = d2fq_arb_pick(&a);
		int c = p->cls;

		n[c]++;
		d2fq_arb_del(&a, p);
		d2fq_arb_add(&a, p, c);
	}
	tap_ok(n[D2FQ_HIGH] == 1600 && n[D2FQ_MEDIUM] == 400 &&
	       n[D2FQ_LOW] == 100,
	       "all classes backlogged: served 16:4:1 (%d:%d:%d)",
	       n[D2FQ_HIGH], n[D2FQ_MEDIUM], n[D2FQ_LOW]);

	/* burst: within a round, at most 2 in a row while others wait */
	d2fq_arb_init(&a, 16, 2);
	d2fq_arb_add(&a, &f[0], D2FQ_HIGH);
	d2fq_arb_add(&a, &f[1], D2FQ_MEDIUM);
	d2fq_arb_add(&a, &f[2], D2FQ_LOW);
	{
		int seq[8], k;

		for (k = 0; k < 8; k++) {
			struct d2fq_flow *p = d2fq_arb_pick(&a);

			seq[k] = p->cls;
		}
		tap_ok(seq[0] == D2FQ_HIGH && seq[1] == D2FQ_HIGH &&
		       seq[2] == D2FQ_MEDIUM && seq[3] == D2FQ_MEDIUM &&
		       seq[4] == D2FQ_LOW && seq[5] == D2FQ_HIGH &&
		       seq[6] == D2FQ_HIGH && seq[7] == D2FQ_MEDIUM,
		       "burst 2: H H M M L H H M");
	}

	d2fq_arb_del(&a, &f[0]);
	d2fq_arb_del(&a, &f[1]);
	for (i = 0; i < 10; i++)
		if (d2fq_arb_pick(&a) != &f[2])
			break;
	tap_ok(i == 10, "only low backlogged: low served every time (work conserving)");

	d2fq_arb_add(&a, &f[3], D2FQ_URGENT);
	d2fq_arb_add(&a, &f[0], D2FQ_HIGH);
	for (i = 0; i < 10; i++)
		if (d2fq_arb_pick(&a) != &f[3])
			break;
	tap_ok(i == 10, "urgent served with strict priority");
	d2fq_arb_del(&a, &f[3]);
	d2fq_arb_del(&a, &f[3]);
	tap_ok(a.nr_flows == 2 && f[3].cls == -1,
	       "del of a flow on no list is a no-op");
}

/*
 * Parking: a flow whose last request went keeps its turn in the rotation
 * of its class; the arbiter drops it when it gets there still empty.
 */
static void test_park(void)
{
	struct d2fq_flow f[4], *p;
	struct d2fq_arb a;
	int i;

	d2fq_arb_init(&a, 3, 1);
	for (i = 0; i < 4; i++) {
		d2fq_flow_init(&f[i], i + 1, 100);
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	/* f0 served with its last request: to the tail, parked */
	p = d2fq_arb_pick(&a);
	list_move_tail(&p->node, &a.cls[D2FQ_HIGH]);
	d2fq_arb_park(&a, p);
	tap_ok(p == &f[0] && f[0].parked && f[0].cls == D2FQ_HIGH &&
	       a.nr_flows == 4 && a.nr_parked == 1,
	       "a drained flow stays on its list, parked");
	/* f1 served (stays backlogged): order now f2 f3 f0 f1 */
	p = d2fq_arb_pick(&a);
	list_move_tail(&p->node, &a.cls[D2FQ_HIGH]);
	tap_ok(d2fq_arb_unpark(&a, &f[0], D2FQ_HIGH) && !f[0].parked &&
	       !a.nr_parked, "a new request unparks it in place");
	tap_ok(!d2fq_arb_unpark(&a, &f[0], D2FQ_HIGH),
	       "unpark of a flow that is not parked returns false");
	{
		int seq[4], k;

		for (k = 0; k < 4; k++) {
			p = d2fq_arb_pick(&a);
			list_move_tail(&p->node, &a.cls[p->cls]);
			seq[k] = p - f;
		}
		tap_ok(seq[0] == 2 && seq[1] == 3 && seq[2] == 0 &&
		       seq[3] == 1,
		       "it is served in its turn, before the flow served after it (%d %d %d %d)",
		       seq[0], seq[1], seq[2], seq[3]);
	}

	/* still empty when its turn comes: dropped, no credit spent */
	d2fq_arb_init(&a, 3, 1);
	for (i = 0; i < 3; i++) {
		d2fq_flow_init(&f[i], i + 1, 100);
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	d2fq_arb_park(&a, &f[0]);
	p = d2fq_arb_pick(&a);
	tap_ok(p == &f[1] && f[0].cls == -1 && !f[0].parked &&
	       a.nr_flows == 2 && !a.nr_parked,
	       "a parked flow reached empty is dropped and the next one served");
	tap_ok(a.credit[D2FQ_HIGH] == 2,
	       "the dropped flow spent no credit (%u of 3 left)",
	       a.credit[D2FQ_HIGH]);

	/* unparked into another class: tail of that class */
	d2fq_arb_add(&a, &f[3], D2FQ_LOW);
	d2fq_arb_park(&a, &f[1]);
	tap_ok(d2fq_arb_unpark(&a, &f[1], D2FQ_LOW) && f[1].cls == D2FQ_LOW &&
	       list_last_entry(&a.cls[D2FQ_LOW], struct d2fq_flow, node) ==
	       &f[1] && a.nr_flows == 3,
	       "unparked with another class: at the tail of that class");

	/* only parked flows: nothing to serve, all dropped */
	for (i = 1; i < 4; i++)
		d2fq_arb_park(&a, &f[i]);
	d2fq_arb_park(&a, &f[1]);
	tap_ok(a.nr_parked == 3, "parking twice counts once (%u parked)",
	       a.nr_parked);
	tap_ok(!d2fq_arb_pick(&a) && a.nr_flows == 0 &&
	       !a.nr_parked &&
	       list_empty(&a.cls[D2FQ_HIGH]) && list_empty(&a.cls[D2FQ_LOW]),
	       "only parked flows: pick returns NULL and drops them all");
	d2fq_arb_park(&a, &f[0]);
	tap_ok(!f[0].parked, "a flow on no list cannot be parked");
}

/*
 * A flow with one request at a time (QD1) among three always-backlogged
 * flows of the same class, device depth 1, one tick per request; the QD1
 * flow's next request arrives one tick after its previous one was
 * dispatched. Counts the dispatches it waits for. Parked, it keeps its
 * turn: it waits for the two flows ahead of it. Without parking (taken
 * off the list and queued at the tail again) it waits for all three.
 */
static void qd1_waits(bool park, int *max_wait, double *share)
{
	struct d2fq_flow f[4];
	struct d2fq_arb a;
	int i, t, arrive = -1, wait = 0, mine = 0, n = 0;
	bool queued = true;

	d2fq_arb_init(&a, 3, 1);
	*max_wait = 0;
	for (i = 0; i < 4; i++) {
		d2fq_flow_init(&f[i], i + 1, 100);
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	for (t = 0; t < 4000; t++) {
		struct d2fq_flow *p;

		if (!queued && t == arrive) {
			queued = true;
			if (!d2fq_arb_unpark(&a, &f[0], D2FQ_HIGH))
				d2fq_arb_add(&a, &f[0], D2FQ_HIGH);
			wait = 0;
		}
		p = d2fq_arb_pick(&a);
		list_move_tail(&p->node, &a.cls[D2FQ_HIGH]);
		n++;
		if (p != &f[0]) {
			wait += queued;
			continue;
		}
		mine++;
		if (wait > *max_wait)
			*max_wait = wait;
		queued = false;
		arrive = t + 2;
		if (park)
			d2fq_arb_park(&a, p);
		else
			d2fq_arb_del(&a, p);
	}
	*share = (double)mine / n;
}

/* The owner's hold callback: one reference per flow on the class lists. */
static int holds[4];

static void count_hold(struct d2fq_arb *a, struct d2fq_flow *f, bool hold)
{
	(void)a;
	holds[f->id - 1] += hold ? 1 : -1;
}

static void test_hold(void)
{
	struct d2fq_flow f[4], *p;
	struct d2fq_arb a;
	int i, bad = 0;

	d2fq_arb_init(&a, 3, 1);
	a.hold = count_hold;
	for (i = 0; i < 4; i++) {
		d2fq_flow_init(&f[i], i + 1, 100);
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	for (i = 0; i < 4; i++)
		bad |= holds[i] != 1;
	tap_ok(!bad, "each flow on a class list holds one reference");
	/* class change: del then add keeps one */
	d2fq_arb_del(&a, &f[3]);
	d2fq_arb_add(&a, &f[3], D2FQ_LOW);
	tap_ok(holds[3] == 1, "a class change keeps it at one (%d)", holds[3]);
	/* f0 parked, dropped by the arbiter when its turn comes */
	d2fq_arb_park(&a, &f[0]);
	tap_ok(holds[0] == 1, "a parked flow keeps its reference");
	p = d2fq_arb_pick(&a);
	tap_ok(p == &f[1] && holds[0] == 0 && f[0].cls == -1,
	       "the arbiter dropping a parked flow releases it (%d)", holds[0]);
	d2fq_arb_del(&a, &f[0]);
	tap_ok(holds[0] == 0, "a second del of a flow off the lists releases nothing");
	for (i = 1; i < 4; i++)
		d2fq_arb_del(&a, &f[i]);
	bad = 0;
	for (i = 0; i < 4; i++)
		bad |= holds[i] != 0;
	tap_ok(!bad && !a.nr_flows, "all off the lists: no reference left");
}

static void test_park_qd1(void)
{
	double share;
	int w;

	qd1_waits(true, &w, &share);
	tap_ok(w == 2, "QD1 flow, parked: waits for at most 2 dispatches (%d)",
	       w);
	tap_near(share, 0.25, 0.01, "QD1 flow, parked: a quarter of the dispatches");
	qd1_waits(false, &w, &share);
	tap_ok(w == 3, "QD1 flow, not parked: waits for 3 (%d)", w);
}

/*
 * The scan: one flow of a class a step, each in turn, whatever is served,
 * moved or removed in between.
 */
static void test_scan(void)
{
	struct d2fq_flow f[4], *seq[6];
	struct d2fq_arb a;
	int i;

	d2fq_arb_init(&a, 16, 1);
	tap_ok(!d2fq_arb_scan(&a, D2FQ_LOW), "scan of an empty class: NULL");
	for (i = 0; i < 4; i++) {
		d2fq_flow_init(&f[i], i + 1, 100);
		d2fq_arb_add(&a, &f[i], D2FQ_LOW);
	}
	for (i = 0; i < 6; i++)
		seq[i] = d2fq_arb_scan(&a, D2FQ_LOW);
	tap_ok(seq[0] == &f[0] && seq[1] == &f[1] && seq[2] == &f[2] &&
	       seq[3] == &f[3] && seq[4] == &f[0] && seq[5] == &f[1],
	       "scan visits the flows in turn and wraps");
	/* at f1: f1 moves up, f2 removed, f0 served (to the tail) */
	d2fq_arb_move(&a, &f[1], D2FQ_HIGH);
	tap_ok(f[1].cls == D2FQ_HIGH &&
	       list_last_entry(&a.cls[D2FQ_HIGH], struct d2fq_flow, node) ==
	       &f[1], "move to another class: at its tail");
	tap_ok(d2fq_arb_scan(&a, D2FQ_LOW) == &f[2],
	       "the scan goes on after a moved flow");
	d2fq_arb_del(&a, &f[2]);
	tap_ok(d2fq_arb_scan(&a, D2FQ_LOW) == &f[3],
	       "the scan goes on after a removed flow");
	/* at f3, now f0 f3: f0 served, then f3 */
	d2fq_arb_move(&a, &f[0], D2FQ_LOW);
	d2fq_arb_move(&a, &f[3], D2FQ_LOW);
	tap_ok(d2fq_arb_scan(&a, D2FQ_LOW) == &f[0] &&
	       d2fq_arb_scan(&a, D2FQ_LOW) == &f[3] &&
	       d2fq_arb_scan(&a, D2FQ_LOW) == &f[0],
	       "flows moved to the tail of their own class stay in the scan");
	d2fq_arb_del(&a, &f[0]);
	d2fq_arb_del(&a, &f[3]);
	tap_ok(!d2fq_arb_scan(&a, D2FQ_LOW) && a.scan[D2FQ_LOW] ==
	       &a.cls[D2FQ_LOW], "all removed: NULL, the scan back at the list");
	d2fq_arb_add(&a, &f[2], D2FQ_LOW);
	tap_ok(d2fq_arb_scan(&a, D2FQ_LOW) == &f[2],
	       "a flow added to an emptied class is scanned");
}

/*
 * Closed-loop simulation of the policy as the elevator runs it: flows
 * always backlogged; the arbiter picks, the flow's next class follows
 * Eq. 1; the device holds @depth requests and serves them in order, 4 KiB
 * per tick plus half that per request; vt advances and gvt is updated at
 * completion (with @elevator, the holder raises it once tau_l / 16 ahead);
 * gvt is anchored on the smallest vt every @anchor ticks (and, with
 * @elevator, each flow whose class changed moved) and the H/L period runs
 * every @period ticks. With @elevator, the picks are
 * the elevator's (fnv_d2fq_next()): a flow more than 2 tau_l ahead passes
 * its turn (two tries at most), and before each pick one waiting flow of
 * the medium and of the low class each is re-classed if gvt moved past it
 * (fnv_d2fq_promote()), unless @no_scan.
 * Gives each flow's share of the bytes served in the second half and the
 * worst relative deviation from the weights' shares in any window of
 * @win ticks there.
 */
#define SIM_TICKS	400000

struct sim {
	int nf;
	const u32 *wt, *size;
	u64 tau_l;
	int depth;
	u64 anchor, period, win;
	bool elevator, no_scan;
	/* out */
	double share[8], worst;
	u32 hl;
};

static struct d2fq_flow *sim_pick(struct sim *m, struct d2fq_arb *a,
				  atomic64_t *gvt)
{
	u64 g = d2fq_gvt_vt(atomic64_read(gvt));
	struct d2fq_flow *p;
	enum d2fq_class c, to;
	int tries;

	if (!m->elevator)
		return d2fq_arb_pick(a);
	for (c = D2FQ_MEDIUM; c <= D2FQ_LOW && !m->no_scan; c++) {
		p = d2fq_arb_scan(a, c);
		if (!p)
			continue;
		to = d2fq_class_of(d2fq_vt_diff(atomic64_read(&p->vt), g),
				   m->tau_l);
		if (to < c)
			d2fq_arb_move(a, p, to);
	}
	for (tries = 0; ; tries++) {
		p = d2fq_arb_pick(a);
		if (tries == 2 ||
		    d2fq_vt_diff(atomic64_read(&p->vt), g) <= 2 * (s64)m->tau_l)
			return p;
		d2fq_arb_unpick(a, p);
	}
}

/*
 * The control period: gvt anchored on the smallest vt of the active flows
 * among @n, and with @reclass each of them moved to the class of its gap.
 */
static void sim_anchor(struct d2fq_flow *f, int n, atomic64_t *gvt,
		       struct d2fq_arb *a, u64 tau_l, bool reclass)
{
	int i, lo = -1;

	for (i = 0; i < n; i++)
		if (f[i].active &&
		    (lo < 0 || d2fq_vt_diff(atomic64_read(&f[i].vt),
					    atomic64_read(&f[lo].vt)) < 0))
			lo = i;
	if (lo < 0)
		return;
	d2fq_gvt_anchor(gvt, f[lo].id, atomic64_read(&f[lo].vt));
	for (i = 0; i < n && reclass; i++) {
		enum d2fq_class c;

		if (!f[i].active || f[i].cls < 0)	/* or drained */
			continue;
		c = d2fq_class_of(d2fq_vt_diff(atomic64_read(&f[i].vt),
					       atomic64_read(&f[lo].vt)), tau_l);
		if ((s8)c != f[i].cls)
			d2fq_arb_move(a, &f[i], c);
	}
}

/* The H/L period over @n flows (the inactive ones are not counted). */
static void sim_period(struct d2fq_flow *f, int n, atomic64_t *gvt,
		       struct d2fq_arb *a, u64 tau_l)
{
	struct d2fq_period p;
	int i;

	d2fq_period_begin(&p, d2fq_gvt_vt(atomic64_read(gvt)));
	for (i = 0; i < n; i++)
		d2fq_period_flow(&p, &f[i], a->weight);
	d2fq_arb_set_hl(a, d2fq_period_end(&p, a->hl, 2 * tau_l));
}

static void simulate(struct sim *m)
{
	struct d2fq_flow f[8];
	struct d2fq_arb a;
	atomic64_t gvt;
	u64 served[8] = { 0 }, wserved[8] = { 0 };
	struct { int f; u64 left; } dev[64];
	int nd = 0, i, head = 0;
	u64 t, total = 0, wtotal = 0, wsum = 0;

	m->worst = 0;
	for (i = 0; i < m->nf; i++)
		wsum += m->wt[i];
	atomic64_set(&gvt, 0);
	d2fq_arb_init(&a, D2FQ_HL_MAX, 1);
	for (i = 0; i < m->nf; i++) {
		d2fq_flow_init(&f[i], i + 1, m->wt[i]);
		f[i].active = true;
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	for (t = 0; t < SIM_TICKS; t++) {
		while (nd < m->depth) {
			struct d2fq_flow *p = sim_pick(m, &a, &gvt);
			int k = p - f, slot = (head + nd) % m->depth;
			u64 g = d2fq_gvt_vt(atomic64_read(&gvt));
			s64 gap = d2fq_vt_diff(atomic64_read(&p->vt), g);

			d2fq_flow_served(p, p->cls, m->size[k]);
			d2fq_arb_move(&a, p, d2fq_class_of(gap, m->tau_l));
			dev[slot].f = k;
			dev[slot].left = m->size[k] + 2048;
			nd++;
		}
		/* the device: 4 KiB per tick, in order */
		if (dev[head].left > 4096) {
			dev[head].left -= 4096;
		} else {
			int k = dev[head].f;
			u64 step = d2fq_vt_delta(m->size[k], f[k].weight);
			u64 vt = atomic64_add_return(step, &f[k].vt);

			d2fq_gvt_update(&gvt, f[k].id, vt, step,
					m->elevator ? m->tau_l >> 4 : 0);
			if (t >= SIM_TICKS / 2) {
				served[k] += m->size[k];
				total += m->size[k];
				wserved[k] += m->size[k];
				wtotal += m->size[k];
			}
			head = (head + 1) % m->depth;
			nd--;
		}
		if (t % m->anchor == m->anchor - 1)
			sim_anchor(f, m->nf, &gvt, &a, m->tau_l, m->elevator);
		if (t % m->period == m->period - 1)
			sim_period(f, m->nf, &gvt, &a, m->tau_l);
		if (t >= SIM_TICKS / 2 && t % m->win == m->win - 1) {
			for (i = 0; i < m->nf; i++) {
				double due = (double)m->wt[i] / wsum;
				double d = (double)wserved[i] / wtotal / due;

				m->worst = fmax(m->worst, fabs(d - 1));
				wserved[i] = 0;
			}
			wtotal = 0;
		}
	}
	for (i = 0; i < m->nf; i++)
		m->share[i] = (double)served[i] / total;
	m->hl = a.hl;
}

static void test_sim(void)
{
	struct sim m = {
		.tau_l = 65536ULL << D2FQ_VT_SHIFT,	/* 64 KiB per weight */
		.depth = 4, .anchor = 2000, .period = 20000, .win = 20000,
	};

	{
		const u32 w[] = { 100, 100 }, sz[] = { 4096, 8192 };

		m.nf = 2, m.wt = w, m.size = sz;
		simulate(&m);
		tap_near(m.share[0], 0.5, 0.05, "sim 4 KiB vs 8 KiB, equal weights: byte share of the 4 KiB flow");
	}
	{
		const u32 w[] = { 300, 100 }, sz[] = { 4096, 4096 };

		m.nf = 2, m.wt = w, m.size = sz;
		simulate(&m);
		tap_near(m.share[0], 0.75, 0.05, "sim weights 300:100: share of the heavier flow");
		tap_diag("H/L ratio after 300:100: %u", m.hl);
	}
	{
		const u32 w[] = { 800, 600, 400, 200 };
		const u32 sz[] = { 8192, 8192, 8192, 8192 };

		m.nf = 4, m.wt = w, m.size = sz;
		simulate(&m);
		tap_near(m.share[0], 0.4, 0.1, "sim 8:6:4:2 share of w800");
		tap_near(m.share[1], 0.3, 0.1, "sim 8:6:4:2 share of w600");
		tap_near(m.share[2], 0.2, 0.1, "sim 8:6:4:2 share of w400");
		tap_near(m.share[3], 0.1, 0.1, "sim 8:6:4:2 share of w200");
		tap_ok(m.hl >= 4, "sim 8:6:4:2: H/L ratio %u >= 4 (w800/w200)",
		       m.hl);
	}
	{
		const u32 w[] = { 100, 100, 100 }, sz[] = { 8192, 8192, 8192 };

		m.nf = 3, m.wt = w, m.size = sz;
		simulate(&m);
		tap_near(m.share[0], 1.0 / 3, 0.05, "sim three equal flows: share");
		tap_ok(m.hl == D2FQ_HL_MIN, "sim equal flows: H/L ratio falls back to %u (%u)",
		       D2FQ_HL_MIN, m.hl);
	}
}

/*
 * t18's tenants at the default tunables: weights 100 to 800, 4 KiB each,
 * tau_l at its floor (128 bytes per unit of weight: 3 requests of the
 * weight-100 flow), 32 requests at the device, the anchor every 200
 * requests (100 ms at 2000 IOPS), the H/L period every 2000, windows of
 * 10000 (t18's 5 s). Without the scan, a flow left in the low class while
 * the gvt holder ran past it waited there, 1 turn in H/L ratio, until its
 * next dispatch or the next anchor: the H/L ratio went to 256 and the
 * worst window was 22 % off (38 % at depth 64); with the scan, 0.6 %.
 * Also a deeper device and a coarser tau_l.
 */
static const struct { int depth; u64 tau_l; } sim_scan_cfg[] = {
	{ 32, 128 }, { 64, 128 }, { 64, 2048 },
};

/* one point a configuration, one more for the first without the scan */
#define SIM_SCAN_POINTS (TAP_ARRAY_SIZE(sim_scan_cfg) + 1)

static void test_sim_scan(void)
{
	const u32 w[] = { 100, 200, 300, 400, 500, 600, 700, 800 };
	const u32 sz[] = { 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096 };
	struct sim m = {
		.nf = 8, .wt = w, .size = sz,
		.anchor = 400, .period = 4000, .win = 20000,
		.elevator = true,
	};
	unsigned int i;

	for (i = 0; i < TAP_ARRAY_SIZE(sim_scan_cfg); i++) {
		m.depth = sim_scan_cfg[i].depth;
		m.tau_l = sim_scan_cfg[i].tau_l << D2FQ_VT_SHIFT;
		m.no_scan = false;
		simulate(&m);
		tap_ok(m.worst <= 0.05 && m.hl < D2FQ_HL_MAX,
		       "sim 8 flows, depth %d, tau_l %llu: worst window %.3f <= 0.05 off the weights, H/L %u",
		       m.depth, (unsigned long long)sim_scan_cfg[i].tau_l, m.worst,
		       m.hl);
		m.no_scan = true;
		simulate(&m);
		tap_diag("without the scan: worst window %.3f, H/L %u",
			 m.worst, m.hl);
		if (i == 0)
			tap_ok(m.worst > 0.10,
			       "the simulation reproduces the stale low class without the scan (%.3f > 0.10)",
			       m.worst);
	}
}

/*
 * t18 in the simulator: 8 flows of weights 100 to 800 at a time, 4 KiB
 * each, always backlogged, the elevator's picks (sim_pick()); every @churn
 * ticks one flow leaves (every other time the gvt holder, else the
 * oldest): its completions no longer move gvt, gvt is released and
 * anchored on the flows left (fnv_pd_offline()); a newcomer of its weight
 * starts 1 to 2 @start ticks later (fio's start-up, drawn from @seed) at
 * gvt. Windows of @win ticks compare the flows there at both edges and
 * dispatching before the first, by requests dispatched (all cost the same
 * here), as t18 does. Gives the worst window's deviation from the
 * weights, the windows compared and the largest H/L ratio.
 */
#define CHURN_SLOTS	16

struct churn {
	struct sim *m;
	u64 churn, start, ticks;
	unsigned int seed;
	/*
	 * fio's verify_backlog: after @drain requests (0: never) a flow stops
	 * until they completed, and resumes @pause ticks later; one idle for
	 * more than @grace ticks at a control period is no longer active, and
	 * restarts with a lead of at most @cap_tau times tau_l (as
	 * fnv_d2fq_class()).
	 */
	u64 drain, pause, grace, cap_tau;
	/* out */
	double worst;
	int nwin;
	u32 hl_max;
};

static void simulate_churn(struct churn *c)
{
	struct sim *m = c->m;
	struct d2fq_flow f[CHURN_SLOTS];
	bool live[CHURN_SLOTS] = { 0 };
	u32 wt[CHURN_SLOTS];
	u64 born[CHURN_SLOTS], startat[CHURN_SLOTS];
	u64 cnt[CHURN_SLOTS] = { 0 }, cnt0[CHURN_SLOTS] = { 0 };
	bool inwin[CHURN_SLOTS] = { 0 };
	/* verify drains: requests since the last, in flight, resume tick */
	u64 ndisp[CHURN_SLOTS] = { 0 }, resume[CHURN_SLOTS] = { 0 };
	int infl[CHURN_SLOTS] = { 0 };
	bool drained[CHURN_SLOTS] = { 0 };
	struct { int f; u64 left; } dev[64];
	int nd = 0, head = 0, i, next = 0, nchurn = 0;
	struct d2fq_arb a;
	atomic64_t gvt;
	u64 t;
	unsigned int rnd = c->seed;

	c->worst = 0;
	c->nwin = 0;
	c->hl_max = 0;
	atomic64_set(&gvt, 0);
	d2fq_arb_init(&a, D2FQ_HL_MAX, 1);
	for (i = 0; i < CHURN_SLOTS; i++)
		d2fq_flow_init(&f[i], i + 1, 100);
	for (i = 0; i < 8; i++) {
		wt[i] = 100 * (i + 1);
		f[i].weight = wt[i];
		live[i] = true;
		born[i] = 0;
		startat[i] = 0;
		f[i].active = true;
		d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
	}
	next = 8;
	for (t = 0; t < c->ticks; t++) {
		/* newcomers start: at gvt, in the class of gap 0 */
		for (i = 0; i < CHURN_SLOTS; i++) {
			if (!live[i] || f[i].active || drained[i] ||
			    t < startat[i])
				continue;
			atomic64_set(&f[i].vt, d2fq_gvt_vt(atomic64_read(&gvt)));
			f[i].vt_prev = atomic64_read(&f[i].vt);
			f[i].active = true;
			d2fq_arb_add(&a, &f[i], D2FQ_HIGH);
		}
		/* drained flows resume: inactive ones restart (the elevator) */
		for (i = 0; i < CHURN_SLOTS; i++) {
			u64 g = d2fq_gvt_vt(atomic64_read(&gvt));

			if (!live[i] || !drained[i] || infl[i] || t < resume[i])
				continue;
			if (!f[i].active)
				d2fq_flow_restart(&f[i], g,
						  c->cap_tau * m->tau_l);
			drained[i] = false;
			ndisp[i] = 0;
			d2fq_arb_add(&a, &f[i], d2fq_class_of(d2fq_vt_diff(
				atomic64_read(&f[i].vt), g), m->tau_l));
		}
		while (nd < m->depth && a.nr_flows) {
			struct d2fq_flow *p = sim_pick(m, &a, &gvt);
			int k = p - f, slot = (head + nd) % m->depth;
			u64 g = d2fq_gvt_vt(atomic64_read(&gvt));
			s64 gap = d2fq_vt_diff(atomic64_read(&p->vt), g);

			d2fq_flow_served(p, p->cls, 4096);
			cnt[k]++;
			infl[k]++;
			if (c->drain && ++ndisp[k] == c->drain) {
				/* its last before the read-back: it waits */
				d2fq_arb_del(&a, p);
				drained[k] = true;
				resume[k] = U64_MAX;
			} else {
				d2fq_arb_move(&a, p,
					      d2fq_class_of(gap, m->tau_l));
			}
			dev[slot].f = k;
			dev[slot].left = 4096 + 2048;
			nd++;
		}
		if (nd && dev[head].left > 4096) {
			dev[head].left -= 4096;
		} else if (nd) {
			int k = dev[head].f;

			if (live[k]) {
				u64 step = d2fq_vt_delta(4096, f[k].weight);
				u64 vt = atomic64_add_return(step, &f[k].vt);

				d2fq_gvt_update(&gvt, f[k].id, vt, step,
						m->tau_l >> 4);
			}
			if (infl[k])
				infl[k]--;
			if (drained[k] && !infl[k])
				resume[k] = t + c->pause;
			head = (head + 1) % m->depth;
			nd--;
		}
		/*
		 * flows that left, or have not started, are not active; nor
		 * are those drained and idle for more than @grace
		 */
		if (t % m->anchor == m->anchor - 1) {
			for (i = 0; i < CHURN_SLOTS; i++) {
				if (!live[i] || !drained[i] || infl[i] ||
				    !f[i].active ||
				    t < resume[i] - c->pause + c->grace)
					continue;
				f[i].active = false;
				d2fq_gvt_release(&gvt, f[i].id);
			}
			sim_anchor(f, CHURN_SLOTS, &gvt, &a, m->tau_l, true);
		}
		if (t % m->period == m->period - 1) {
			sim_period(f, CHURN_SLOTS, &gvt, &a, m->tau_l);
			if (t > c->churn * 2 && a.hl > c->hl_max)
				c->hl_max = a.hl;
		}
		/* a window ends (and the next begins) */
		if (t % m->win == m->win - 1) {
			double sw = 0, sc = 0;
			int n = 0;

			for (i = 0; i < CHURN_SLOTS; i++) {
				if (!live[i] || !inwin[i])
					continue;
				sw += wt[i];
				sc += cnt[i] - cnt0[i];
				n++;
			}
			for (i = 0; i < CHURN_SLOTS && n >= 2 && sc; i++) {
				double d;

				if (!live[i] || !inwin[i])
					continue;
				d = (cnt[i] - cnt0[i]) / sc / (wt[i] / sw) - 1;
				c->worst = fmax(c->worst, fabs(d));
			}
			if (n >= 2)
				c->nwin++;
			for (i = 0; i < CHURN_SLOTS; i++) {
				cnt0[i] = cnt[i];
				inwin[i] = live[i] && cnt[i] > 0 &&
					   t >= c->churn * 2;
			}
		}
		/* the churn: a flow leaves, a newcomer of its weight comes */
		if (t % c->churn == c->churn - 1) {
			int v = -1;
			u64 w = atomic64_read(&gvt);

			if (nchurn++ % 2)
				for (i = 0; i < CHURN_SLOTS; i++)
					if (live[i] && f[i].active &&
					    f[i].id == d2fq_gvt_id(w))
						v = i;
			if (v < 0)
				for (i = 0; i < CHURN_SLOTS; i++)
					if (live[i] &&
					    (v < 0 || born[i] < born[v]))
						v = i;
			live[v] = false;
			inwin[v] = false;
			drained[v] = false;
			d2fq_arb_del(&a, &f[v]);
			f[v].active = false;
			d2fq_gvt_release(&gvt, f[v].id);
			if (d2fq_gvt_id(atomic64_read(&gvt)) == D2FQ_ID_NONE)
				sim_anchor(f, CHURN_SLOTS, &gvt, &a, m->tau_l,
					   true);
			while (live[next % CHURN_SLOTS] ||
			       next % CHURN_SLOTS == v)
				next++;
			i = next % CHURN_SLOTS;
			next++;
			d2fq_flow_init(&f[i], i + 1, wt[v]);
			wt[i] = wt[v];
			live[i] = true;
			born[i] = t;
			/* fio's start-up: 1 to 2 @start */
			rnd = rnd * 1103515245 + 12345;
			startat[i] = t + c->start + (rnd >> 8) % c->start;
			cnt[i] = cnt0[i] = 0;
			ndisp[i] = 0;
			infl[i] = 0;
		}
	}
}

/*
 * 20 runs (seeds 1 to 20) of t18's churn at depth 2, tau_l 192 bytes per
 * weight unit, with fio's drains every @drain requests (0: none) resuming
 * @pause ticks later, a restart keeping @cap_tau tau_l of lead: the worst
 * window, and the largest H/L ratio and the windows compared over them.
 */
static double sim_churn20(u64 drain, u64 pause, u64 cap_tau, u32 *hl,
			  int *nw)
{
	static const u32 w[] = { 100, 200, 300, 400, 500, 600, 700, 800 };
	struct sim m = {
		.nf = 8, .wt = w, .depth = 2, .tau_l = 192 << D2FQ_VT_SHIFT,
		.anchor = 120, .period = 1200, .win = 6000, .elevator = true,
	};
	struct churn c = {
		.m = &m, .churn = 1200, .start = 1200, .ticks = 1200 * 75,
		.drain = drain, .pause = pause, .grace = 1, .cap_tau = cap_tau,
	};
	double worst = 0;
	int s;

	*hl = 0;
	*nw = 0;
	for (s = 1; s <= 20; s++) {
		c.seed = s;
		simulate_churn(&c);
		worst = fmax(worst, c.worst);
		*hl = *hl > c.hl_max ? *hl : c.hl_max;
		*nw += c.nwin;
	}
	return worst;
}

static void test_sim_churn(void)
{
	u32 hl;
	int nw;
	double worst = sim_churn20(0, 0, 2, &hl, &nw);

	tap_ok(nw >= 20 * 12 && worst <= 0.10,
	       "sim churn, 20 runs: worst of %d windows %.3f <= 0.10 off the weights (H/L up to %u)",
	       nw, worst, hl);
}

/* d2fq_flow_restart(): no credit, a lead kept up to the cap */
static void test_restart(void)
{
	struct d2fq_flow f;
	const u64 g = 1000000;

	d2fq_flow_init(&f, 1, 100);
	atomic64_set(&f.vt, g - 5000);
	d2fq_flow_restart(&f, g, 400);
	tap_ok(atomic64_read(&f.vt) == g && f.vt_prev == g && f.active,
	       "restart: a flow behind gvt starts at gvt, active");
	atomic64_set(&f.vt, g + 300);
	d2fq_flow_restart(&f, g, 400);
	tap_ok(atomic64_read(&f.vt) == g + 300,
	       "restart: a lead under the cap is kept");
	atomic64_set(&f.vt, g + 900);
	d2fq_flow_restart(&f, g, 400);
	tap_ok(atomic64_read(&f.vt) == g + 400, "restart: a lead over the cap is cut to it");
	/* gvt wrapped past 2^48, the flow not yet: it is ahead by 300 */
	atomic64_set(&f.vt, 200);
	d2fq_flow_restart(&f, D2FQ_VT_MASK - 99, 400);
	tap_ok(d2fq_vt_diff(atomic64_read(&f.vt), D2FQ_VT_MASK - 99) == 300,
	       "restart: the lead is measured across the wrap");
}

/*
 * t18's fio verify: each flow drains its queue every 64 requests and
 * resumes 12 ticks after its last completed (10 ms at t18's rate; the
 * time fio takes under TCG to start its read-back is not measured); one
 * idle at a control period for more than a tick (grace_us) restarts as
 * fnv_d2fq_class() restarts it. A light flow runs up to 2 tau_l ahead in
 * the low class, and each restart kept at most @cap_tau tau_l of its lead:
 * the rest was handed back to it as service.
 */
static double sim_churn_drain(u64 cap_tau)
{
	u32 hl;
	int nw;

	return sim_churn20(64, 12, cap_tau, &hl, &nw);
}

static void test_sim_churn_drain(void)
{
	double w0 = sim_churn_drain(0), w1 = sim_churn_drain(1);
	double w2 = sim_churn_drain(2), wn = sim_churn_drain(1 << 20);

	tap_diag("sim churn with verify drains, 20 runs each, worst window: lead forgotten %.3f, capped at tau_l %.3f, at 2 tau_l %.3f, not capped %.3f",
		 w0, w1, w2, wn);
	tap_ok(w0 > 0.10,
	       "sim churn with drains: a restart that forgets the lead is seen (%.3f > 0.10)",
	       w0);
	tap_ok(w2 <= 0.10 && w2 <= wn + 0.005,
	       "sim churn with drains: the lead capped at 2 tau_l, worst window %.3f <= 0.10 and no worse than not capped (%.3f)",
	       w2, wn);
}

/*
 * A held flow: the owner gives its pick back (fairnvme holds a tenant
 * ahead of a lone synchronous one). The other classes must still be
 * served: were the held class's credit given back, it would stay ready
 * and the round (the others' credit) never come.
 */
static void test_unpick(void)
{
	struct d2fq_flow f[3];
	struct d2fq_arb a;
	int got_low = 0, got_other = 0, i;

	d2fq_arb_init(&a, 16, 4);
	d2fq_flow_init(&f[0], 1, 100);
	d2fq_flow_init(&f[1], 2, 100);
	d2fq_flow_init(&f[2], 3, 100);
	d2fq_arb_add(&a, &f[0], D2FQ_HIGH);
	d2fq_arb_add(&a, &f[1], D2FQ_HIGH);
	d2fq_arb_add(&a, &f[2], D2FQ_LOW);
	/* f[0] is always held: f[1] and f[2] share what is left */
	for (i = 0; i < 300; i++) {
		struct d2fq_flow *p = d2fq_arb_pick(&a);

		if (p == &f[0]) {
			d2fq_arb_unpick(&a, p);
			continue;
		}
		if (p == &f[2])
			got_low++;
		else
			got_other++;
		/* served: to the tail of its class, as fairnvme moves it */
		d2fq_arb_del(&a, p);
		d2fq_arb_add(&a, p, p == &f[2] ? D2FQ_LOW : D2FQ_HIGH);
	}
	tap_ok(got_low > 0, "a held high flow does not keep the low class waiting (%d picks)",
	       got_low);
	tap_ok(got_other > 2 * got_low,
	       "the high flow not held is still served first (%d vs %d)",
	       got_other, got_low);
	tap_ok(f[0].cls == D2FQ_HIGH && !list_empty(&f[0].node),
	       "the held flow stays on its class list");
	/* every flow of the high class held: the low class's rounds go on */
	d2fq_arb_del(&a, &f[1]);
	got_low = 0;
	for (i = 0; i < 340; i++) {
		struct d2fq_flow *p = d2fq_arb_pick(&a);

		if (p == &f[0]) {
			d2fq_arb_unpick(&a, p);
			continue;
		}
		got_low++;
		d2fq_arb_del(&a, p);
		d2fq_arb_add(&a, p, D2FQ_LOW);
	}
	/* a round is 16 high turns (lost) and 1 low: 340 / 17 = 20 */
	tap_ok(got_low >= 18 && got_low <= 22,
	       "a class of held flows spends its turns: low served %d times of 340 (20)",
	       got_low);
	d2fq_arb_add(&a, &f[1], D2FQ_HIGH);
	/* a flow held goes to the tail of its class */
	tap_ok(d2fq_arb_pick(&a) != NULL, "the arbiter still picks");
	list_del_init(&f[0].node);
	list_add(&f[0].node, &a.cls[D2FQ_HIGH]);
	d2fq_arb_unpick(&a, &f[0]);
	tap_ok(list_last_entry(&a.cls[D2FQ_HIGH], struct d2fq_flow, node) == &f[0],
	       "an unpicked flow goes to the tail of its class");
}

int main(void)
{
	tap_plan(7 +			/* test_vt */
		 20 +			/* test_gvt_seq */
		 6 +			/* test_gvt_threads */
		 7 +			/* test_eq1 */
		 11 +			/* test_eq23 */
		 12 +			/* test_period */
		 9 +			/* test_arb */
		 10 +			/* test_park */
		 6 +			/* test_hold */
		 3 +			/* test_park_qd1 */
		 6 +			/* test_unpick */
		 8 +			/* test_scan */
		 9 +			/* test_sim */
		 SIM_SCAN_POINTS +	/* test_sim_scan */
		 1 +			/* test_sim_churn */
		 4 +			/* test_restart */
		 2);			/* test_sim_churn_drain */
	test_vt();
	test_gvt_seq();
	test_gvt_threads();
	test_eq1();
	test_eq23();
	test_period();
	test_arb();
	test_park();
	test_hold();
	test_park_qd1();
	test_unpick();
	test_scan();
	test_sim();
	test_sim_scan();
	test_sim_churn();
	test_restart();
	test_sim_churn_drain();
	return tap_done();
}
