// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the iosched tunables, /sys/block/<dev>/queue/iosched/, made
 * from their table (include/fairnvme/tunables.h): one show and one store
 * for all, the table's apply hooks where a store must do more than store.
 * The state that is not a tunable is in debugfs (fairnvme-debugfs.c).
 *
 * A store runs under the elevator's sysfs_lock, which serialises it
 * against the other stores. Bad input is refused with -EINVAL and changes
 * nothing.
 */
#include "fairnvme.h"
#include <trace/events/fairnvme.h>

struct fnv_tunable {
	const char *name;
	const char *choices;		/* FNV_TK_CHOICE: space-separated */
	enum fnv_tunable_kind kind;
	size_t off;			/* of its u32 in struct fnv_data */
	u32 def, min, max;
	int (*apply)(struct fnv_data *fd, u32 *p, u32 v);
};

int fnv_parse_u32(const char *page, u32 min, u32 max, u32 *val)
{
	u32 v;

	if (kstrtou32(page, 10, &v) || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/*
 * A new max_inflight bounds the depth at once; a raise may let requests go.
 * Under fd->lock, as the control period moves the depths: a period running
 * meanwhile would otherwise set its own back.
 */
static void fnv_apply_depth(struct fnv_data *fd)
{
	u32 max = READ_ONCE(fd->max_inflight);
	bool fixed = !READ_ONCE(fd->dev_target_us);

	spin_lock(&fd->lock);
	if (fd->depth > max || fixed)
		WRITE_ONCE(fd->depth, max);
	if (fd->hold_depth > max || fixed)
		WRITE_ONCE(fd->hold_depth, max);
	if (fd->slot_depth > max || fixed)
		WRITE_ONCE(fd->slot_depth, max);
	spin_unlock(&fd->lock);
	blk_mq_run_hw_queues(fd->q, true);
}

static void fnv_apply_budget(struct fnv_data *fd)
{
	spin_lock(&fd->lock);
	fd->sched.cycle_budget = fnv_cycle_budget(fd);
	spin_unlock(&fd->lock);
}

/* A store that bounds or frees the depth at once (max_inflight). */
static int fnv_set_redepth(struct fnv_data *fd, u32 *p, u32 v)
{
	WRITE_ONCE(*p, v);
	fnv_apply_depth(fd);
	return 0;
}

/* "auto", or device time in us (0: fixed depth) */
static int fnv_set_dev_target(struct fnv_data *fd, u32 *p, u32 v)
{
	/*
	 * (back) to auto: measure the device again, from depth 1; under the
	 * lock, or the control period (fnv_adapt_depth()) may write the old
	 * floor back
	 */
	if (v == FNV_DEV_TARGET_AUTO && READ_ONCE(fd->dev_target_us) != v) {
		spin_lock(&fd->lock);
		WRITE_ONCE(fd->dev_floor, 0);
		spin_unlock(&fd->lock);
	}
	WRITE_ONCE(fd->dev_target_us, v);
	fnv_apply_depth(fd);
	return 0;
}

/* A store that changes the cycle's budget (cost_model, budget_us/kib). */
static int fnv_set_rebudget(struct fnv_data *fd, u32 *p, u32 v)
{
	WRITE_ONCE(*p, v);
	fnv_apply_budget(fd);
	return 0;
}

/*
 * A number must stay below (min) or above (max) the other threshold as it
 * is in force; auto always goes. The values in force follow at once.
 */
static int fnv_set_thresh(struct fnv_data *fd, u32 v, bool is_max)
{
	u64 ns = (u64)v * NSEC_PER_USEC;

	spin_lock(&fd->lock);
	if (v != FNV_THRESH_AUTO &&
	    (is_max ? ns <= fd->ctl.thresh_min : ns >= fd->ctl.thresh_max)) {
		spin_unlock(&fd->lock);
		return -EINVAL;
	}
	if (is_max)
		WRITE_ONCE(fd->thresh_max_cfg, v);
	else
		WRITE_ONCE(fd->thresh_min_cfg, v);
	fnv_auto_thresh(fd, false);
	spin_unlock(&fd->lock);
	return 0;
}

static int fnv_set_thresh_min(struct fnv_data *fd, u32 *p, u32 v)
{
	return fnv_set_thresh(fd, v, false);
}

static int fnv_set_thresh_max(struct fnv_data *fd, u32 *p, u32 v)
{
	return fnv_set_thresh(fd, v, true);
}

/*
 * Switch policies under load: the backlogged tenants move from one
 * policy's lists to the other's, under the lock, so that every queued
 * request stays reachable.
 */
static void fnv_wrr_activate(struct fnv_data *fd, struct fnv_tenant *tn)
{
	fnv_flow_activate(&fd->sched, &tn->flow);
}

static void fnv_wrr_migrate(struct fnv_data *fd)
{
	struct list_head *drr[] = { &fd->sched.active, &fd->sched.expired };
	struct fnv_tenant *tn;
	int i;

	lockdep_assert_held(&fd->lock);
	WRITE_ONCE(fd->lone, NULL);
	if (fd->wrr_mode == FNV_WRR_OFF) {
		fnv_d2fq_clear(fd, fnv_wrr_activate);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(drr); i++) {
		while (!list_empty(drr[i])) {
			tn = list_first_entry(drr[i], struct fnv_tenant,
					      flow.node);
			fnv_flow_deactivate(&fd->sched, &tn->flow);
			fnv_d2fq_enqueue(fd, tn);
		}
	}
	fnv_sched_drain(&fd->sched);
}

static int fnv_set_wrr_mode(struct fnv_data *fd, u32 *p, u32 v)
{
	spin_lock(&fd->lock);
	if (fd->wrr_mode != v) {
		WRITE_ONCE(fd->wrr_mode, v);
		fnv_wrr_migrate(fd);
	}
	spin_unlock(&fd->lock);
	blk_mq_run_hw_queues(fd->q, true);
	return 0;
}

/* "auto", or bytes per unit of weight */
static int fnv_set_tau_l(struct fnv_data *fd, u32 *p, u32 v)
{
	spin_lock(&fd->lock);
	fd->tau_l_cfg = v;
	if (v != FNV_TAU_AUTO)
		WRITE_ONCE(fd->tau_l_bytes, v);
	spin_unlock(&fd->lock);
	return 0;
}

static int fnv_set_wrr_burst(struct fnv_data *fd, u32 *p, u32 v)
{
	spin_lock(&fd->lock);
	fd->wrr_burst = v;
	fd->arb.burst = v;
	spin_unlock(&fd->lock);
	return 0;
}

/*
 * TABS on or off. Off lets the held FUA writes go at once. On a kernel
 * where FUA writes never reach an elevator (6.1: blk_insert_flush() sends
 * them to the device directly) there is nothing to hold: refused, and the
 * kernel log says why, once.
 */
static int fnv_set_tabs(struct fnv_data *fd, u32 *p, u32 v)
{
	if (v && !FNV_FUA_SCHEDULED) {
		pr_notice_once("fairnvme: tabs stays off: before Linux 6.5 FUA writes go to the device past every I/O scheduler, there are none to hold\n");
		return -EOPNOTSUPP;
	}
	spin_lock(&fd->lock);
	if (v && !fd->tabs_on) {
		fnv_tabs_fold(fd);
		tabs_restart(&fd->tabs, ktime_get_ns());
	}
	fd->tabs_on = v;
	if (!v)
		fnv_tabs_release(fd, true);
	spin_unlock(&fd->lock);
	if (!v)
		blk_mq_run_hw_queues(fd->q, true);
	return 0;
}

static int fnv_set_tabs_param(struct fnv_data *fd, u32 *p, u32 v)
{
	spin_lock(&fd->lock);
	*p = v;
	fnv_tabs_params(fd);
	spin_unlock(&fd->lock);
	return 0;
}

/* The choices' indexes are the enums' values. */
static_assert(FNV_COST_TIME == 0 && FNV_COST_BYTES == 1);
static_assert(FNV_LAT_HEAD == 0 && FNV_LAT_QUEUE == 1);
static_assert(FNV_WRR_SOFT == 0 && FNV_WRR_OFF == 1);

enum {
#define FNV_TUNABLE(name, ...) FNV_T_##name,
#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE
	FNV_NR_TUNABLES
};

/* Every tunable is stored in a u32 (checked at build time). */
static const char fnv_tunable_u32[] __maybe_unused = {
#define FNV_TUNABLE(name, kind, field, ...)				\
	BUILD_BUG_ON_ZERO(sizeof_field(struct fnv_data, field) != 4),
#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE
};

static const struct fnv_tunable fnv_tunables[] = {
#define FNV_TUNABLE(_name, _kind, _field, _unit, _def, _min, _max,	\
		    _choices, _apply)					\
	[FNV_T_##_name] = {						\
		.name = #_name,						\
		.choices = _choices,					\
		.kind = _kind,						\
		.off = offsetof(struct fnv_data, _field),		\
		.def = _def,						\
		.min = _min,						\
		.max = _max,						\
		.apply = _apply,					\
	},
#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE
};

static u32 *fnv_tunable_ptr(struct fnv_data *fd, const struct fnv_tunable *t)
{
	return (u32 *)((char *)fd + t->off);
}

/* A new instance's defaults, from the table. */
void fnv_tunables_init(struct fnv_data *fd)
{
	int i;

	for (i = 0; i < FNV_NR_TUNABLES; i++)
		*fnv_tunable_ptr(fd, &fnv_tunables[i]) = fnv_tunables[i].def;
}

/* The @i-th word of @list, its length in @len; NULL past the last. */
static const char *fnv_choice(const char *list, u32 i, size_t *len)
{
	for (;;) {
		*len = strchrnul(list, ' ') - list;
		if (!i--)
			return *len ? list : NULL;
		if (!list[*len])
			return NULL;
		list += *len + 1;
	}
}

static ssize_t fnv_tunable_show(struct fnv_data *fd,
				const struct fnv_tunable *t, char *page)
{
	u32 v = READ_ONCE(*fnv_tunable_ptr(fd, t));
	const char *w;
	ssize_t n = 0;
	size_t len;
	u32 i;

	switch (t->kind) {
	case FNV_TK_AUTO:
		if (v == t->def)
			return sysfs_emit(page, "auto\n");
		fallthrough;
	case FNV_TK_U32:
		return sysfs_emit(page, "%u\n", v);
	case FNV_TK_CHOICE:
		/* the choices, the current one in brackets */
		for (i = 0; (w = fnv_choice(t->choices, i, &len)); i++)
			n += sysfs_emit_at(page, n, i == v ? "%s[%.*s]" :
					   "%s%.*s", i ? " " : "", (int)len, w);
		return n + sysfs_emit_at(page, n, "\n");
	}
	return -EINVAL;
}

static int fnv_tunable_parse(const struct fnv_tunable *t, const char *page,
			     u32 *v)
{
	const char *w;
	size_t len, n = strlen(page);
	u32 i;

	/* sysfs_streq(): a trailing newline is allowed */
	if (n && page[n - 1] == '\n')
		n--;
	switch (t->kind) {
	case FNV_TK_AUTO:
		if (sysfs_streq(page, "auto")) {
			*v = t->def;
			return 0;
		}
		fallthrough;
	case FNV_TK_U32:
		return fnv_parse_u32(page, t->min, t->max, v);
	case FNV_TK_CHOICE:
		for (i = 0; (w = fnv_choice(t->choices, i, &len)); i++) {
			if (len == n && !strncmp(page, w, n)) {
				*v = i;
				return 0;
			}
		}
	}
	return -EINVAL;
}

static ssize_t fnv_tunable_store(struct fnv_data *fd,
				 const struct fnv_tunable *t,
				 const char *page, size_t count)
{
	u32 v;
	int ret;

	ret = fnv_tunable_parse(t, page, &v);
	if (ret)
		return ret;
	if (t->apply) {
		ret = t->apply(fd, fnv_tunable_ptr(fd, t), v);
		if (ret)
			return ret;
	} else {
		WRITE_ONCE(*fnv_tunable_ptr(fd, t), v);
	}
	return count;
}

#define FNV_TUNABLE(name, ...)						\
static ssize_t fnv_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	return fnv_tunable_show(e->elevator_data,			\
				&fnv_tunables[FNV_T_##name], page);	\
}									\
static ssize_t fnv_##name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	return fnv_tunable_store(e->elevator_data,			\
				 &fnv_tunables[FNV_T_##name], page,	\
				 count);				\
}

#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE

struct elv_fs_entry fnv_attrs[] = {
#define FNV_TUNABLE(name, ...)						\
	__ATTR(name, 0644, fnv_##name##_show, fnv_##name##_store),
#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE
	__ATTR_NULL
};
