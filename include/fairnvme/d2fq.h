/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: D2FQ, virtual time mapped onto NVMe arbitration classes
 * (policy core; free of blk-mq types, see budget.h).
 *
 * Each flow (tenant) has a virtual time that advances, on completion, by
 * the bytes it was served divided by its weight. The global virtual time
 * (gvt) follows the smallest virtual time of the active flows, sloppily:
 * one 64-bit word holds the id of the flow that set it (the holder) and
 * its value; only the holder raises it, any flow lowers it (D2FQ, Fig. 9).
 * A flow's gap to gvt picks the arbitration class of its next request
 * (Eq. 1), and a weighted round robin over the classes, with an urgent
 * class above them, decides what is dispatched (NVMe WRR, in software).
 * Once per period the weight ratio of the high and low classes (the H/L
 * ratio) is raised when the flows drift apart (Eq. 2) and lowered to the
 * largest virtual slowdown (Eq. 3) otherwise.
 */
#ifndef _FAIRNVME_D2FQ_H
#define _FAIRNVME_D2FQ_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/atomic.h>

enum d2fq_class {
	D2FQ_URGENT,		/* strict priority over the others */
	D2FQ_HIGH,
	D2FQ_MEDIUM,
	D2FQ_LOW,
	D2FQ_NR_CLASSES,
};

/*
 * Virtual time: bytes served per unit of weight, in 1/2^D2FQ_VT_SHIFT
 * units, modulo 2^48 (the width it has in the gvt word). Two virtual times
 * are compared through their signed 48-bit difference, so they wrap
 * safely as long as active flows stay within 2^47 units of each other.
 */
#define D2FQ_VT_SHIFT		8
#define D2FQ_VT_BITS		48
#define D2FQ_VT_MASK		((1ULL << D2FQ_VT_BITS) - 1)
/* Flow ids are 16 bits; 0 is "no holder" (and "no id": never holds). */
#define D2FQ_ID_NONE		0U
#define D2FQ_ID_MAX		0xffffU

/* The H/L ratio stays within these bounds (the paper's code does too). */
#define D2FQ_HL_MIN		3U
#define D2FQ_HL_MAX		256U

struct d2fq_flow {
	struct list_head node;	/* on a class list of the arbiter */
	atomic64_t vt;		/* virtual time, full 64 bits (low 48 used) */
	u64 vt_prev;		/* vt at the last H/L period */
	u64 bytes[D2FQ_NR_CLASSES];	/* dispatched this period, per class */
	u64 nr[D2FQ_NR_CLASSES];	/* dispatched since creation */
	u64 charged;		/* bytes charged since creation, all classes */
	u32 weight;		/* weight vt advances by, >= 1 */
	u16 id;			/* D2FQ_ID_NONE: never holds gvt */
	s8 cls;			/* class list it is on, -1: none */
	bool active;		/* counted in gvt (queued, in flight, grace) */
	bool parked;		/* on a class list with nothing queued */
};

/*
 * The software arbiter: one list of flows per class, in the order the
 * round robin within the class serves them. A flow is on the list of the
 * class of its next request while it has requests queued; after each
 * dispatch it goes to the tail of its (new) class. A flow whose last
 * request was dispatched stays on its list, parked: like an empty NVMe
 * submission queue it keeps its turn, so that a tenant with one request
 * at a time is served when the rotation comes back to it instead of
 * queueing up behind every other flow again. The arbiter takes a parked
 * flow off when it reaches it still empty, so each park costs at most one
 * extra step: O(1) amortized.
 */
struct d2fq_arb {
	struct list_head cls[D2FQ_NR_CLASSES];
	/* per class, the flow d2fq_arb_scan() looked at last (or the list) */
	struct list_head *scan[D2FQ_NR_CLASSES];
	u32 weight[D2FQ_NR_CLASSES];	/* HPW, MPW, LPW; [URGENT] unused */
	u32 credit[D2FQ_NR_CLASSES];	/* of the current round */
	u32 burst;		/* requests per class before moving on */
	u32 cur;		/* class being served */
	u32 run;		/* requests served from @cur in a row */
	u32 hl;			/* H/L ratio: weight[HIGH] / weight[LOW] */
	u32 nr_flows;		/* flows on the class lists, parked or not */
	u32 nr_parked;		/* of which parked */
	/*
	 * Optional: called with true when a flow joins the class lists and
	 * with false when it leaves them (also when d2fq_arb_pick() drops a
	 * parked flow), so that the owner can pin what the flow lives in.
	 */
	void (*hold)(struct d2fq_arb *a, struct d2fq_flow *f, bool hold);
};

/* Signed distance from @b to @a in virtual time (wrap safe). */
static inline s64 d2fq_vt_diff(u64 a, u64 b)
{
	return (s64)((a - b) << (64 - D2FQ_VT_BITS)) >> (64 - D2FQ_VT_BITS);
}

/*
 * @f had a request of @charge bytes dispatched through class @c: counted
 * in the period's bytes of the class (Eq. 3), its requests per class and
 * its charge since creation (io.fairnvme.stat).
 */
static inline void d2fq_flow_served(struct d2fq_flow *f, int c, u64 charge)
{
	f->bytes[c] += charge;
	f->charged += charge;
	f->nr[c]++;
}

/* The gvt word: holder id in the top 16 bits, virtual time below. */
static inline u64 d2fq_gvt_pack(u16 id, u64 vt)
{
	return ((u64)id << D2FQ_VT_BITS) | (vt & D2FQ_VT_MASK);
}

static inline u16 d2fq_gvt_id(u64 word)
{
	return word >> D2FQ_VT_BITS;
}

static inline u64 d2fq_gvt_vt(u64 word)
{
	return word & D2FQ_VT_MASK;
}

/* Virtual time a flow of @weight advances by for @bytes. */
u64 d2fq_vt_delta(u64 bytes, u32 weight);
/*
 * Fig. 9 update_gvt(): @id completed a request that advanced it by @step
 * and is at @vt. The holder only raises gvt once it is more than @slack
 * ahead of it (0: always), which saves a compare-and-swap per completion
 * at the price of gvt lagging the holder by up to @slack. With no holder,
 * @id takes gvt if it was within @slack of it before @step, never from
 * further ahead (see d2fq_gvt_anchor()).
 */
void d2fq_gvt_update(atomic64_t *gvt, u16 id, u64 vt, u64 step,
		     u64 slack);
/*
 * Fig. 9 release_gvt(): @id went idle; gvt keeps its value and the next
 * flow to complete at or below it takes it over.
 */
void d2fq_gvt_release(atomic64_t *gvt, u16 id);
/*
 * gvt is @vt, held by @id: the owner's periodic walk sets it to the
 * smallest virtual time of the active flows, which the sloppy updates only
 * approximate (a holder that left, a flow behind that has not completed).
 */
void d2fq_gvt_anchor(atomic64_t *gvt, u16 id, u64 vt);

/*
 * Eq. 1: the class for a flow @gap ahead of gvt, tau_m = tau_l / 2
 * (virtual time units).
 */
enum d2fq_class d2fq_class_of(s64 gap, u64 tau_l);

/*
 * Eq. 2: the H/L ratio after a period in which the flow furthest ahead
 * advanced by @d_max and the flow at gvt by @d_min, under ratio @hl.
 */
u32 d2fq_hl_raise(u64 d_max, u64 d_min, u32 hl);
/*
 * Eq. 3: virtual slowdown, in 1/1000, of a flow that had @bytes served
 * through each class under class weights @w (p_h, p_m, p_l).
 */
u64 d2fq_slowdown(const u64 bytes[D2FQ_NR_CLASSES],
		  const u32 w[D2FQ_NR_CLASSES]);

/*
 * The H/L period: d2fq_period_begin(), d2fq_period_flow() for every flow of
 * the device, then d2fq_period_end() gives the next H/L ratio.
 */
struct d2fq_period {
	u64 gvt;		/* when the walk began */
	s64 gap_max;		/* largest vt - gvt of an active flow */
	u64 d_max;		/* vt advance of that flow this period */
	s64 gap_min;		/* smallest vt - gvt of an active flow */
	u64 d_min;		/* vt advance of that flow this period */
	u64 sd_max;		/* largest virtual slowdown (Eq. 3), 1/1000 */
	u32 nr;			/* active flows seen */
};

void d2fq_period_begin(struct d2fq_period *p, u64 gvt);
/* Account @f's period (if active) and start its next one. */
void d2fq_period_flow(struct d2fq_period *p, struct d2fq_flow *f,
		      const u32 w[D2FQ_NR_CLASSES]);
/*
 * Next H/L ratio: when the flow furthest ahead is more than @tau_w ahead
 * of gvt, Eq. 2 (never below @hl: the flows drift apart under it), else
 * the largest virtual slowdown (Eq. 3) rounded; within the bounds. A
 * period without active flows keeps @hl.
 */
u32 d2fq_period_end(const struct d2fq_period *p, u32 hl, u64 tau_w);

void d2fq_flow_init(struct d2fq_flow *f, u16 id, u32 weight);
/*
 * @f, not active (new, or idle past its grace period), has a request
 * again: it becomes active at gvt @gvt, or where it was if that is ahead,
 * by @cap at most. It brings no credit from its idle time, and keeps a
 * lead it had (see fnv_d2fq_class() for the @cap the elevator gives).
 */
void d2fq_flow_restart(struct d2fq_flow *f, u64 gvt, u64 cap);
void d2fq_arb_init(struct d2fq_arb *a, u32 hl, u32 burst);
/* HPW = @hl, MPW = sqrt(@hl), LPW = 1; @hl is clamped to its bounds. */
void d2fq_arb_set_hl(struct d2fq_arb *a, u32 hl);
/* Queue @f (not on any list) at the tail of class @c. */
void d2fq_arb_add(struct d2fq_arb *a, struct d2fq_flow *f, enum d2fq_class c);
/* Take @f off its class list (no-op if it is on none); unparks it. */
void d2fq_arb_del(struct d2fq_arb *a, struct d2fq_flow *f);
/* @f, on a class list, has nothing queued any more: it keeps its turn. */
void d2fq_arb_park(struct d2fq_arb *a, struct d2fq_flow *f);
/*
 * @f has a request again, of class @c. If it is still parked it resumes
 * its turn (at the tail of @c if its class changed) and true is returned;
 * otherwise the caller queues it with d2fq_arb_add().
 */
bool d2fq_arb_unpark(struct d2fq_arb *a, struct d2fq_flow *f,
		     enum d2fq_class c);
/*
 * @f, on a class list, goes to the tail of class @c (its own or another):
 * after it was served, or when its class changed. Any move of a flow on
 * the lists goes through here or d2fq_arb_del(), which keep the scan on
 * its list.
 */
void d2fq_arb_move(struct d2fq_arb *a, struct d2fq_flow *f, enum d2fq_class c);
/*
 * One step of a scan over class @c: the flow after the one the last step
 * returned, from the head again past the tail; NULL when @c is empty.
 * Successive steps visit every flow of @c in turn (one a step, O(1))
 * whatever the arbiter serves or moves in between, so that the owner can
 * re-class waiting flows without a walk over them all.
 */
struct d2fq_flow *d2fq_arb_scan(struct d2fq_arb *a, enum d2fq_class c);
/*
 * The flow to serve next: the head of the urgent list if any, else of the
 * class the weighted round robin is at; parked flows met at a head are
 * dropped. NULL when no flow has requests. O(1) amortized.
 */
struct d2fq_flow *d2fq_arb_pick(struct d2fq_arb *a);
/*
 * The flow d2fq_arb_pick() returned was not served after all (its owner
 * holds it back): the flow goes to the tail of its class list, its class
 * keeps the credit spent and the next pick starts at the next class that
 * is ready, so that a held flow cannot keep the others of any class
 * waiting.
 */
void d2fq_arb_unpick(struct d2fq_arb *a, struct d2fq_flow *f);

#endif /* _FAIRNVME_D2FQ_H */
