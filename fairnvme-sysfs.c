// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the iosched tunables, /sys/block/<dev>/queue/iosched/.
 */
#include "fairnvme.h"
#include <trace/events/fairnvme.h>

/* iosched sysfs attributes */

int fnv_parse_u32(const char *page, u32 min, u32 max, u32 *val)
{
	u32 v;

	if (kstrtou32(page, 10, &v) || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* A tunable that is "auto" (@auto_v) or a number in [@min, @max]. */
static ssize_t fnv_show_auto(char *page, u32 v, u32 auto_v)
{
	if (v == auto_v)
		return sysfs_emit(page, "auto\n");
	return sysfs_emit(page, "%u\n", v);
}

static int fnv_parse_auto(const char *page, u32 min, u32 max, u32 auto_v,
			  u32 *val)
{
	if (sysfs_streq(page, "auto")) {
		*val = auto_v;
		return 0;
	}
	return fnv_parse_u32(page, min, max, val);
}

/*
 * Plain u32 tunables. A store runs under the elevator's sysfs_lock, which
 * serialises it against the other stores; @apply (may be NULL) makes a
 * change take effect where a plain WRITE_ONCE() is not enough.
 */
#define FNV_U32_ATTR(name, field, min, max, apply)			\
static ssize_t fnv_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct fnv_data *fd = e->elevator_data;				\
									\
	return sysfs_emit(page, "%u\n", READ_ONCE(fd->field));		\
}									\
static ssize_t fnv_##name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	struct fnv_data *fd = e->elevator_data;				\
	void (*fn)(struct fnv_data *fd) = apply;			\
	u32 v;								\
									\
	if (fnv_parse_u32(page, min, max, &v))				\
		return -EINVAL;						\
	WRITE_ONCE(fd->field, v);					\
	if (fn)								\
		fn(fd);							\
	return count;							\
}

/* A new max_inflight bounds the depth at once; a raise may let requests go. */
static void fnv_apply_depth(struct fnv_data *fd)
{
	u32 max = READ_ONCE(fd->max_inflight);

	if (READ_ONCE(fd->depth) > max || !READ_ONCE(fd->dev_target_us))
		WRITE_ONCE(fd->depth, max);
	blk_mq_run_hw_queues(fd->q, true);
}

static void fnv_apply_budget(struct fnv_data *fd)
{
	spin_lock_irq(&fd->lock);
	fd->sched.cycle_budget = fnv_cycle_budget(fd);
	spin_unlock_irq(&fd->lock);
}

FNV_U32_ATTR(max_inflight, max_inflight, 1, FNV_MAX_INFLIGHT_MAX,
	     fnv_apply_depth)

static ssize_t fnv_dev_target_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->dev_target_us),
			     FNV_DEV_TARGET_AUTO);
}

/* "auto", or device time in us (0: fixed depth) */
static ssize_t fnv_dev_target_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_auto(page, 0, FNV_DEV_TARGET_US_MAX, FNV_DEV_TARGET_AUTO,
			   &v))
		return -EINVAL;
	/* (back) to auto: measure the device again, from depth 1 */
	if (v == FNV_DEV_TARGET_AUTO && READ_ONCE(fd->dev_target_us) != v)
		WRITE_ONCE(fd->dev_floor, 0);
	WRITE_ONCE(fd->dev_target_us, v);
	fnv_apply_depth(fd);
	return count;
}

FNV_U32_ATTR(req_cost_bytes, req_cost_bytes, 0, FNV_REQ_COST_MAX, NULL)
FNV_U32_ATTR(budget_kib, budget_kib, FNV_BUDGET_KIB_MIN, FNV_BUDGET_KIB_MAX,
	     fnv_apply_budget)
FNV_U32_ATTR(budget_us, budget_us, FNV_BUDGET_US_MIN, FNV_BUDGET_US_MAX,
	     fnv_apply_budget)
FNV_U32_ATTR(grace_us, grace_us, 0, FNV_GRACE_US_MAX, NULL)
FNV_U32_ATTR(ctl_period_ms, ctl_period_ms, FNV_PERIOD_MS_MIN,
	     FNV_PERIOD_MS_MAX, NULL)
FNV_U32_ATTR(ku_ppm, ctl.ku_ppm, 0, FNV_PPM_MAX, NULL)
FNV_U32_ATTR(kd_ppm, ctl.kd_ppm, 0, FNV_PPM_MAX, NULL)
FNV_U32_ATTR(beta_permille, ctl.beta, 0, FNV_BETA_MAX, NULL)

static ssize_t fnv_tau_l_bytes_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->tau_l_cfg), FNV_TAU_AUTO);
}

/* "auto", or bytes per unit of weight */
static ssize_t fnv_tau_l_bytes_store(struct elevator_queue *e,
				     const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	u32 v;

	if (fnv_parse_auto(page, FNV_TAU_L_MIN, FNV_TAU_L_MAX, FNV_TAU_AUTO, &v))
		return -EINVAL;
	spin_lock_irq(&fd->lock);
	fd->tau_l_cfg = v;
	if (v != FNV_TAU_AUTO)
		WRITE_ONCE(fd->tau_l_bytes, v);
	spin_unlock_irq(&fd->lock);
	return count;
}

/* the tau_l in force: the tunable's, or auto's last */
static ssize_t fnv_tau_l_eff_bytes_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->tau_l_bytes));
}

/*
 * The learned cost model (cost.c): per type, the device time of a command
 * and of each KiB, in ns, and whether it is known yet (else it is charged
 * as the other type, or by bytes).
 */
static ssize_t fnv_cost_learned_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;
	const struct fnv_cm *m = &fd->cm;
	ssize_t n = 0;
	int t;

	spin_lock_irq(&fd->lock);
	for (t = 0; t < FNV_CM_TYPES; t++)
		n += sysfs_emit_at(page, n, "%s%s_cmd_ns=%llu %s_kib_ns=%llu %s_known=%d",
				   t ? " " : "", t ? "write" : "read",
				   m->cmd_ns[t], t ? "write" : "read",
				   (m->sect_ns16[t] * 2) >> 16,
				   t ? "write" : "read", m->known[t]);
	spin_unlock_irq(&fd->lock);
	n += sysfs_emit_at(page, n, "\n");
	return n;
}

FNV_U32_ATTR(hl_period_ms, hl_period_ms, FNV_HL_PERIOD_MS_MIN,
	     FNV_HL_PERIOD_MS_MAX, NULL)

static void fnv_apply_burst(struct fnv_data *fd)
{
	spin_lock_irq(&fd->lock);
	fd->arb.burst = fd->wrr_burst;
	spin_unlock_irq(&fd->lock);
}

FNV_U32_ATTR(wrr_burst, wrr_burst, 1, FNV_WRR_BURST_MAX, fnv_apply_burst)

/* Thresholds, in us; thresh_min_us must stay below thresh_max_us. */
static ssize_t fnv_thresh_show(u64 ns, char *page)
{
	return sysfs_emit(page, "%llu\n", div_u64(ns, NSEC_PER_USEC));
}

static ssize_t fnv_thresh_min_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->thresh_min_cfg),
			     FNV_THRESH_AUTO);
}

static ssize_t fnv_thresh_max_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_auto(page, READ_ONCE(fd->thresh_max_cfg),
			     FNV_THRESH_AUTO);
}

static ssize_t fnv_thresh_min_eff_us_show(struct elevator_queue *e,
					  char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_thresh_show(READ_ONCE(fd->ctl.thresh_min), page);
}

static ssize_t fnv_thresh_max_eff_us_show(struct elevator_queue *e,
					  char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_thresh_show(READ_ONCE(fd->ctl.thresh_max), page);
}

/*
 * A number must stay below (min) or above (max) the other threshold as it
 * is in force; auto always goes. The values in force follow at once.
 */
static ssize_t fnv_thresh_store(struct elevator_queue *e, const char *page,
				size_t count, bool is_max)
{
	struct fnv_data *fd = e->elevator_data;
	u64 ns;
	u32 v;

	if (fnv_parse_auto(page, 1, FNV_THRESH_US_MAX, FNV_THRESH_AUTO, &v))
		return -EINVAL;
	ns = (u64)v * NSEC_PER_USEC;
	spin_lock_irq(&fd->lock);
	if (v != FNV_THRESH_AUTO &&
	    (is_max ? ns <= fd->ctl.thresh_min : ns >= fd->ctl.thresh_max)) {
		spin_unlock_irq(&fd->lock);
		return -EINVAL;
	}
	if (is_max)
		WRITE_ONCE(fd->thresh_max_cfg, v);
	else
		WRITE_ONCE(fd->thresh_min_cfg, v);
	fnv_auto_thresh(fd, false);
	spin_unlock_irq(&fd->lock);
	return count;
}

static ssize_t fnv_thresh_min_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	return fnv_thresh_store(e, page, count, false);
}

static ssize_t fnv_thresh_max_us_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	return fnv_thresh_store(e, page, count, true);
}

/* The @n choices in @names, the current one (@cur) in brackets. */
static ssize_t fnv_show_choice(char *page, const char * const *names, int n,
			       u32 cur)
{
	int i, len = 0;

	for (i = 0; i < n; i++)
		len += sysfs_emit_at(page, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", names[i]);
	return len + sysfs_emit_at(page, len, "\n");
}

static const char * const fnv_cost_models[] = {
	[FNV_COST_TIME] = "time",
	[FNV_COST_BYTES] = "bytes",
};

static ssize_t fnv_cost_model_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_cost_models,
			       ARRAY_SIZE(fnv_cost_models),
			       READ_ONCE(fd->cost_model));
}

static ssize_t fnv_cost_model_store(struct elevator_queue *e,
				    const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_cost_models, page);

	if (m < 0)
		return -EINVAL;
	WRITE_ONCE(fd->cost_model, m);
	fnv_apply_budget(fd);
	return count;
}

static const char * const fnv_lat_signals[] = {
	[FNV_LAT_HEAD] = "head",
	[FNV_LAT_QUEUE] = "queue",
};

static ssize_t fnv_state_latency_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_lat_signals,
			       ARRAY_SIZE(fnv_lat_signals),
			       READ_ONCE(fd->ctl.signal));
}

static ssize_t fnv_state_latency_store(struct elevator_queue *e,
				       const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_lat_signals, page);

	if (m < 0)
		return -EINVAL;
	WRITE_ONCE(fd->ctl.signal, m);
	return count;
}

static const char * const fnv_wrr_modes[] = {
	[FNV_WRR_SOFT] = "soft",
	[FNV_WRR_OFF] = "off",
};

static ssize_t fnv_wrr_mode_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return fnv_show_choice(page, fnv_wrr_modes, ARRAY_SIZE(fnv_wrr_modes),
			       READ_ONCE(fd->wrr_mode));
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

static ssize_t fnv_wrr_mode_store(struct elevator_queue *e,
				  const char *page, size_t count)
{
	struct fnv_data *fd = e->elevator_data;
	int m = sysfs_match_string(fnv_wrr_modes, page);

	if (m < 0)
		return -EINVAL;
	spin_lock_irq(&fd->lock);
	if (fd->wrr_mode != m) {
		WRITE_ONCE(fd->wrr_mode, m);
		fnv_wrr_migrate(fd);
	}
	spin_unlock_irq(&fd->lock);
	blk_mq_run_hw_queues(fd->q, true);
	return count;
}

static ssize_t fnv_hl_ratio_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->arb.hl));
}

static ssize_t fnv_gvt_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;
	u64 w = atomic64_read(&fd->gvt);

	/* bytes per unit of weight */
	return sysfs_emit(page, "%llu\n", d2fq_gvt_vt(w) >> D2FQ_VT_SHIFT);
}

static ssize_t fnv_inflight_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%d\n", atomic_read(&fd->inflight));
}

static ssize_t fnv_depth_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->depth));
}

/* The device time of a lone request, as learned; 0 until measured. */
static ssize_t fnv_dev_floor_us_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%llu\n",
			  div_u64(READ_ONCE(fd->dev_floor), NSEC_PER_USEC));
}

static ssize_t fnv_tenants_show(struct elevator_queue *e, char *page)
{
	struct fnv_data *fd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(fd->sched.nr_backlogged) +
			  READ_ONCE(fd->arb.nr_flows) -
			  READ_ONCE(fd->arb.nr_parked));
}

#define FNV_ATTR_RW(name) \
	__ATTR(name, 0644, fnv_##name##_show, fnv_##name##_store)
#define FNV_ATTR_RO(name) \
	__ATTR(name, 0444, fnv_##name##_show, NULL)

struct elv_fs_entry fnv_attrs[] = {
	FNV_ATTR_RW(max_inflight),
	FNV_ATTR_RW(dev_target_us),
	FNV_ATTR_RW(cost_model),
	FNV_ATTR_RW(budget_us),
	FNV_ATTR_RW(budget_kib),
	FNV_ATTR_RW(req_cost_bytes),
	FNV_ATTR_RW(grace_us),
	FNV_ATTR_RW(ctl_period_ms),
	FNV_ATTR_RW(thresh_min_us),
	FNV_ATTR_RW(thresh_max_us),
	FNV_ATTR_RO(thresh_min_eff_us),
	FNV_ATTR_RO(thresh_max_eff_us),
	FNV_ATTR_RW(ku_ppm),
	FNV_ATTR_RW(kd_ppm),
	FNV_ATTR_RW(beta_permille),
	FNV_ATTR_RW(state_latency),
	FNV_ATTR_RW(wrr_mode),
	FNV_ATTR_RW(tau_l_bytes),
	FNV_ATTR_RW(hl_period_ms),
	FNV_ATTR_RW(wrr_burst),
	FNV_ATTR_RO(hl_ratio),
	FNV_ATTR_RO(gvt),
	FNV_ATTR_RO(inflight),
	FNV_ATTR_RO(depth),
	FNV_ATTR_RO(dev_floor_us),
	FNV_ATTR_RO(tau_l_eff_bytes),
	FNV_ATTR_RO(tenants),
	FNV_ATTR_RO(cost_learned),
	__ATTR_NULL
};

