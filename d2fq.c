// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: D2FQ policy core (virtual time, sloppy gvt, class mapper, H/L
 * ratio, software WRR arbiter). See include/fairnvme/d2fq.h.
 *
 * Free of blk-mq types: builds into the module (included by
 * fairnvme-iosched.c) and into the user-space unit tests. The arbiter is
 * serialised by its caller; the gvt word and flow virtual times are
 * lockless (updated from the completion path on any CPU).
 */
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include <fairnvme/d2fq.h>

u64 d2fq_vt_delta(u64 bytes, u32 weight)
{
	return div64_u64(bytes << D2FQ_VT_SHIFT, max(weight, 1U));
}

/*
 * Fig. 9: the holder raises gvt to its own virtual time; any other flow
 * lowers it to its own (and becomes the holder). With no holder, a flow
 * that was at or below gvt (within @slack) before this completion's @step
 * takes it at its vt now; a flow that was ahead does not, or gvt would
 * jump to wherever the first flow to complete after a release happens to
 * be: the owner re-anchors gvt on the smallest virtual time of its active
 * flows (d2fq_gvt_anchor()) instead. Lock free: retried while the word
 * changes.
 */
void d2fq_gvt_update(atomic64_t *gvt, u16 id, u64 vt, u64 step, u64 slack)
{
	u64 new = d2fq_gvt_pack(id, vt);
	u64 old = atomic64_read(gvt);

	if (id == D2FQ_ID_NONE)
		return;
	for (;;) {
		u16 holder = d2fq_gvt_id(old);
		s64 d = d2fq_vt_diff(vt, d2fq_gvt_vt(old));
		u64 cur;

		if (!((holder == D2FQ_ID_NONE && d - (s64)step <= (s64)slack) ||
		      (holder == id && d > (s64)slack) ||
		      (holder != id && d < 0)))
			return;
		cur = atomic64_cmpxchg(gvt, old, new);
		if (cur == old)
			return;
		old = cur;
	}
}

void d2fq_gvt_anchor(atomic64_t *gvt, u16 id, u64 vt)
{
	if (id != D2FQ_ID_NONE)
		atomic64_set(gvt, d2fq_gvt_pack(id, vt));
}

void d2fq_gvt_release(atomic64_t *gvt, u16 id)
{
	u64 old = atomic64_read(gvt);

	while (id != D2FQ_ID_NONE && d2fq_gvt_id(old) == id) {
		u64 new = d2fq_gvt_pack(D2FQ_ID_NONE, d2fq_gvt_vt(old));
		u64 cur = atomic64_cmpxchg(gvt, old, new);

		if (cur == old)
			return;
		old = cur;
	}
}

enum d2fq_class d2fq_class_of(s64 gap, u64 tau_l)
{
	if (gap < (s64)(tau_l / 2))
		return D2FQ_HIGH;
	if (gap < (s64)tau_l)
		return D2FQ_MEDIUM;
	return D2FQ_LOW;
}

/*
 * Eq. 2: next = floor(d_max / d_min * hl) + 1. The flow at gvt did not
 * advance at all: no finite ratio closes the gap, take the largest.
 */
u32 d2fq_hl_raise(u64 d_max, u64 d_min, u32 hl)
{
	u64 next;

	if (!d_min || d_max > U64_MAX / D2FQ_HL_MAX)
		return D2FQ_HL_MAX;
	next = div64_u64(d_max * hl, d_min) + 1;
	return clamp_t(u64, next, D2FQ_HL_MIN, D2FQ_HL_MAX);
}

/*
 * Eq. 3: bytes through a class of weight p_x count p_h / p_x times, the
 * penalty of not using the high class; urgent bytes count as high ones.
 * Bytes per period stay far below 2^40, weights at most 2^8, so the sums
 * cannot overflow.
 */
u64 d2fq_slowdown(const u64 bytes[D2FQ_NR_CLASSES],
		  const u32 w[D2FQ_NR_CLASSES])
{
	u64 ph = max(w[D2FQ_HIGH], 1U);
	u64 total = bytes[D2FQ_URGENT] + bytes[D2FQ_HIGH];
	u64 sum = total * 1000;
	int c;

	for (c = D2FQ_MEDIUM; c <= D2FQ_LOW; c++) {
		total += bytes[c];
		sum += div64_u64(bytes[c] * 1000 * ph, max(w[c], 1U));
	}
	return total ? div64_u64(sum, total) : 1000;
}

void d2fq_flow_init(struct d2fq_flow *f, u16 id, u32 weight)
{
	int c;

	INIT_LIST_HEAD(&f->node);
	atomic64_set(&f->vt, 0);
	f->vt_prev = 0;
	for (c = 0; c < D2FQ_NR_CLASSES; c++) {
		f->bytes[c] = 0;
		f->nr[c] = 0;
	}
	f->charged = 0;
	f->weight = max(weight, 1U);
	f->id = id;
	f->cls = -1;
	f->active = false;
	f->parked = false;
}

void d2fq_flow_restart(struct d2fq_flow *f, u64 gvt, u64 cap)
{
	s64 lead = d2fq_vt_diff(atomic64_read(&f->vt), gvt);
	u64 vt = gvt + (lead > 0 ? min_t(u64, lead, cap) : 0);

	atomic64_set(&f->vt, vt);
	f->vt_prev = vt;
	f->active = true;
}

void d2fq_arb_set_hl(struct d2fq_arb *a, u32 hl)
{
	u32 m = 1;

	hl = clamp(hl, D2FQ_HL_MIN, D2FQ_HL_MAX);
	while ((m + 1) * (m + 1) <= hl)
		m++;
	a->hl = hl;
	a->weight[D2FQ_HIGH] = hl;
	a->weight[D2FQ_MEDIUM] = m;
	a->weight[D2FQ_LOW] = 1;
}

void d2fq_arb_init(struct d2fq_arb *a, u32 hl, u32 burst)
{
	int c;

	for (c = 0; c < D2FQ_NR_CLASSES; c++) {
		INIT_LIST_HEAD(&a->cls[c]);
		a->scan[c] = &a->cls[c];
		a->credit[c] = 0;
	}
	a->weight[D2FQ_URGENT] = 0;
	d2fq_arb_set_hl(a, hl);
	a->burst = max(burst, 1U);
	a->cur = D2FQ_HIGH;
	a->run = 0;
	a->nr_flows = 0;
	a->nr_parked = 0;
	a->hold = NULL;
}

void d2fq_arb_add(struct d2fq_arb *a, struct d2fq_flow *f, enum d2fq_class c)
{
	list_add_tail(&f->node, &a->cls[c]);
	f->cls = c;
	a->nr_flows++;
	if (a->hold)
		a->hold(a, f, true);
}

/* @f leaves its class list: the scan of it goes on from the flow before. */
static void d2fq_arb_unlink(struct d2fq_arb *a, struct d2fq_flow *f)
{
	if (a->scan[f->cls] == &f->node)
		a->scan[f->cls] = f->node.prev;
}

void d2fq_arb_del(struct d2fq_arb *a, struct d2fq_flow *f)
{
	if (f->cls < 0)
		return;
	d2fq_arb_unlink(a, f);
	list_del_init(&f->node);
	f->cls = -1;
	if (f->parked)
		a->nr_parked--;
	f->parked = false;
	a->nr_flows--;
	if (a->hold)
		a->hold(a, f, false);
}

void d2fq_arb_park(struct d2fq_arb *a, struct d2fq_flow *f)
{
	if (f->cls >= 0 && !f->parked && !list_empty(&a->cls[f->cls])) {
		f->parked = true;
		a->nr_parked++;
	}
}

bool d2fq_arb_unpark(struct d2fq_arb *a, struct d2fq_flow *f,
		     enum d2fq_class c)
{
	if (!f->parked)
		return false;
	f->parked = false;
	a->nr_parked--;
	if (f->cls != (s8)c)
		d2fq_arb_move(a, f, c);
	return true;
}

void d2fq_arb_move(struct d2fq_arb *a, struct d2fq_flow *f, enum d2fq_class c)
{
	d2fq_arb_unlink(a, f);
	list_move_tail(&f->node, &a->cls[c]);
	f->cls = c;
}

struct d2fq_flow *d2fq_arb_scan(struct d2fq_arb *a, enum d2fq_class c)
{
	struct list_head *pos = a->scan[c]->next;

	if (pos == &a->cls[c])		/* past the tail: from the head */
		pos = pos->next;
	if (pos == &a->cls[c])
		return NULL;
	a->scan[c] = pos;
	return list_entry(pos, struct d2fq_flow, node);
}

static bool d2fq_arb_ready(struct d2fq_arb *a, u32 c)
{
	return a->credit[c] && !list_empty(&a->cls[c]);
}

/*
 * Weighted round robin as an NVMe controller arbitrates its queue classes:
 * each round, class c may be served weight[c] times, at most burst in a
 * row before the next class with requests gets its turn; a round ends when
 * no class with requests has credit left. An empty class forfeits its turn
 * (work conserving). At most three classes are looked at per pick.
 */
static u32 d2fq_arb_class(struct d2fq_arb *a)
{
	u32 c = a->cur, i;

	if (!list_empty(&a->cls[D2FQ_URGENT]))
		return D2FQ_URGENT;
	if (!a->nr_flows)
		return D2FQ_NR_CLASSES;
	if (a->run >= a->burst || !d2fq_arb_ready(a, c)) {
		u32 from = a->cur - D2FQ_HIGH + 1;

		a->run = 0;
		if (!d2fq_arb_ready(a, D2FQ_HIGH) &&
		    !d2fq_arb_ready(a, D2FQ_MEDIUM) &&
		    !d2fq_arb_ready(a, D2FQ_LOW)) {
			/* a new round, from the high class */
			for (i = D2FQ_HIGH; i <= D2FQ_LOW; i++)
				a->credit[i] = a->weight[i];
			from = 0;
		}
		for (i = 0; i < 3; i++) {
			c = D2FQ_HIGH + (from + i) % 3;
			if (d2fq_arb_ready(a, c))
				break;
		}
		a->cur = c;
	}
	return c;
}

struct d2fq_flow *d2fq_arb_pick(struct d2fq_arb *a)
{
	struct d2fq_flow *f;
	u32 c;

	for (;;) {
		c = d2fq_arb_class(a);
		if (c == D2FQ_NR_CLASSES)
			return NULL;
		f = list_first_entry(&a->cls[c], struct d2fq_flow, node);
		if (!f->parked)
			break;
		/* its turn came and it has nothing: it leaves the rotation */
		d2fq_arb_del(a, f);
	}
	if (c != D2FQ_URGENT) {
		a->credit[c]--;
		a->run++;
	}
	return f;
}

void d2fq_arb_unpick(struct d2fq_arb *a, struct d2fq_flow *f)
{
	if (f->cls < 0 || f->cls == D2FQ_URGENT)
		return;
	/*
	 * The class keeps the credit spent (a turn a held flow lost), and
	 * the next pick moves on to the next class that is ready: were the
	 * credit given back, a class whose flows are all held would stay
	 * ready and the round, and the others' credit, never come.
	 */
	a->run = a->burst;
	d2fq_arb_move(a, f, f->cls);
}

void d2fq_period_begin(struct d2fq_period *p, u64 gvt)
{
	p->gvt = gvt;
	p->gap_max = 0;
	p->d_max = 0;
	p->gap_min = 0;
	p->d_min = 0;
	p->sd_max = 0;
	p->nr = 0;
}

void d2fq_period_flow(struct d2fq_period *p, struct d2fq_flow *f,
		      const u32 w[D2FQ_NR_CLASSES])
{
	u64 vt = atomic64_read(&f->vt);
	/*
	 * Its advance, 0 if it went back: the cost model's probe gives a
	 * tenant back what its tilt charged over at the control period's end
	 * (fnv_tilt_refund()), and a flow whose completions came late went
	 * back over the period; unsigned, that was 2^64 and Eq. 2 took the
	 * ratio to its largest.
	 */
	s64 adv = d2fq_vt_diff(vt, f->vt_prev);
	u64 d = adv > 0 ? adv : 0;
	s64 gap = d2fq_vt_diff(vt, p->gvt);
	int c;

	if (f->active) {
		if (!p->nr || gap > p->gap_max) {
			p->gap_max = gap;
			p->d_max = d;
		}
		if (!p->nr || gap < p->gap_min) {
			p->gap_min = gap;
			p->d_min = d;
		}
		p->sd_max = max(p->sd_max, d2fq_slowdown(f->bytes, w));
		p->nr++;
	}
	f->vt_prev = vt;
	for (c = 0; c < D2FQ_NR_CLASSES; c++)
		f->bytes[c] = 0;
}

u32 d2fq_period_end(const struct d2fq_period *p, u32 hl, u64 tau_w)
{
	if (!p->nr)		/* nothing to learn from an idle period */
		return hl;
	if (p->nr > 1 && p->gap_max > (s64)tau_w)
		return max(hl, d2fq_hl_raise(p->d_max, p->d_min, hl));
	return clamp_t(u64, div_u64(p->sd_max + 500, 1000), D2FQ_HL_MIN,
		       D2FQ_HL_MAX);
}
