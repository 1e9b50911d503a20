// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the scheduler's state that is not a tunable, in debugfs, as
 * mq-deadline and kyber show theirs: /sys/kernel/debug/block/<dev>/sched/
 * (blk-mq's debugfs, CONFIG_BLK_DEBUG_FS). Read-only; queue/iosched keeps
 * the tunables.
 */
#include "fairnvme.h"

static struct fnv_data *fnv_dbg_data(void *data)
{
	struct request_queue *q = data;

	return q->elevator->elevator_data;
}

/* H/L ratio of the D2FQ arbiter now */
static int fnv_hl_ratio_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(fnv_dbg_data(data)->arb.hl));
	return 0;
}

/* global virtual time, in bytes per unit of weight */
static int fnv_gvt_show(void *data, struct seq_file *m)
{
	u64 w = atomic64_read(&fnv_dbg_data(data)->gvt);

	seq_printf(m, "%llu\n", d2fq_gvt_vt(w) >> D2FQ_VT_SHIFT);
	return 0;
}

static int fnv_inflight_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%d\n", atomic_read(&fnv_dbg_data(data)->inflight));
	return 0;
}

static int fnv_depth_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", fnv_depth(fnv_dbg_data(data)));
	return 0;
}

/* The depth by device time alone. */
static int fnv_hold_depth_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(fnv_dbg_data(data)->hold_depth));
	return 0;
}

/*
 * Scheduler tags: the shallow depth writeback gets, then a tenant over its
 * share, and "map" or "word": which they limit (fnv_shallow_whole).
 */
static int fnv_tag_depths_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);

	seq_printf(m, "async=%u over=%u per=%s\n", READ_ONCE(fd->async_depth),
		   READ_ONCE(fd->over_depth),
		   fnv_shallow_whole ? "map" : "word");
	return 0;
}

/* fnv_held()'s slot is a quarter of this: hold_depth, or a kept depth. */
static int fnv_slot_depth_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(fnv_dbg_data(data)->slot_depth));
	return 0;
}

/* The device time of a lone request, as learned; 0 until measured. */
static int fnv_dev_floor_us_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%llu\n",
		   div_u64(READ_ONCE(fnv_dbg_data(data)->dev_floor),
			   NSEC_PER_USEC));
	return 0;
}

/*
 * The control period's walk over the active tenants: what the last one
 * took with fd->lock held, and the delay to the next (ctl_period_ms, or
 * longer for a long walk: fnv_ctl_delay()). Racy: for a human.
 */
static int fnv_ctl_walk_us_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);

	seq_printf(m, "%llu period_ms=%u\n",
		   div_u64(READ_ONCE(fd->ctl_last), NSEC_PER_USEC),
		   jiffies_to_msecs(fnv_ctl_delay(fd)));
	return 0;
}

/* the tau_l in force: the tunable's, or auto's last */
static int fnv_tau_l_eff_bytes_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(fnv_dbg_data(data)->tau_l_bytes));
	return 0;
}

static int fnv_thresh_min_eff_us_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%llu\n",
		   div_u64(READ_ONCE(fnv_dbg_data(data)->ctl.thresh_min),
			   NSEC_PER_USEC));
	return 0;
}

static int fnv_thresh_max_eff_us_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%llu\n",
		   div_u64(READ_ONCE(fnv_dbg_data(data)->ctl.thresh_max),
			   NSEC_PER_USEC));
	return 0;
}

/*
 * The learned cost model (cost.c): per type (read, write, fua: a write
 * with FUA), the device time of a command and of each KiB in force, in ns,
 * and where it comes from: "fit" if the windows told the two apart, else
 * "prior" (blk-iocost's default SSD model's ratio, scaled to the windows);
 * then the fit's residual (rms error of a window's busy time, in 1/1024),
 * the scale of the prior that fits the windows (in 1/1024), the windows
 * counted, whether the tenants are tilted this period (the probe), the
 * windows counted at max_inflight (full) and below (held), the held ones'
 * busy time over the full ones' fit (1/1024; 0: not judged), whether
 * the held ones are in the fit, whether the full ones told sizes apart,
 * the size probes run (type_probes of them by type: a FUA writer beside a
 * reader) and the probe's step now (0: none); then the last
 * window: commands/sectors of reads, writes and FUA writes, busy and
 * length (us), and whether it was at max_inflight; then the long sums'
 * windows' worth (long) and, by their fit, a write's and a FUA write's
 * mean request over a read's (1/1024; 0: not in use), the ratios the
 * charges take (fnv_cm_types()).
 */
static int fnv_cost_learned_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);
	static const char * const name[FNV_CM_TYPES] = {
		[FNV_CM_READ] = "read",
		[FNV_CM_WRITE] = "write",
		[FNV_CM_FUA] = "fua",
	};
	const struct fnv_cm *cm = &fd->cm;
	const struct fnv_cm_win *w = &fd->win_last;
	int t;

	spin_lock(&fd->lock);
	for (t = 0; t < FNV_CM_TYPES; t++)
		seq_printf(m, "%s%s_cmd_ns=%llu %s_kib_ns=%llu %s_from=%s",
			   t ? " " : "", name[t], cm->cmd_ns[t], name[t],
			   (cm->sect_ns16[t] * 2) >> 16, name[t],
			   cm->sep[t] ? "fit" : "prior");
	seq_printf(m, " resid=%u scale=%llu windows=%u tilting=%d full=%u held=%u held_ratio=%u held_in=%d full_min=%d full_sep=%d probes=%u type_probes=%u probe_step=%u",
		   cm->resid, cm->s16 >> 6, cm->windows, cm->tilting,
		   cm->s[FNV_CM_FULL].windows, cm->s[FNV_CM_HELD].windows,
		   cm->held_ratio, cm->held_in, cm->full_min, cm->full_sep,
		   cm->probes, fd->cm_tprobes, fd->cm_step);
	/* the long sums' ratios in force (1/1024 of a read), 0: not used */
	seq_printf(m, " long=%llu write_ratio=%u fua_ratio=%u",
		   div_u64(cm->slow[FNV_CM_FULL].n + cm->slow[FNV_CM_HELD].n,
			   FNV_CM_N_ONE >> FNV_CM_SLOW_IN),
		   cm->type_ratio[FNV_CM_WRITE],
		   cm->type_ratio[FNV_CM_FUA]);
	/* a 4 KiB read's time alone, at depth 1 (not charged) */
	seq_printf(m, " read_lat_ns=%llu apart=%#x",
		   cm->lat_cmd_ns[FNV_CM_READ] +
		   ((cm->lat_sect_ns16[FNV_CM_READ] * 8) >> 16),
		   cm->depth_apart);
	seq_printf(m, " last=%llu/%llu,%llu/%llu,%llu/%llu busy_us=%llu dt_us=%llu last_full=%d last_depth=%u\n",
		   w->nr[FNV_CM_READ], w->sect[FNV_CM_READ],
		   w->nr[FNV_CM_WRITE], w->sect[FNV_CM_WRITE],
		   w->nr[FNV_CM_FUA], w->sect[FNV_CM_FUA],
		   div_u64(w->busy_ns, NSEC_PER_USEC),
		   div_u64(w->dt_ns, NSEC_PER_USEC), w->full,
		   w->depth16 >> 4);
	spin_unlock(&fd->lock);
	return 0;
}

/* tenants with queued requests now, under either policy */
static int fnv_tenants_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);

	seq_printf(m, "%u\n", READ_ONCE(fd->sched.nr_backlogged) +
		   READ_ONCE(fd->arb.nr_flows) - READ_ONCE(fd->arb.nr_parked));
	return 0;
}

/*
 * One line per tenant the control period walks (active, or idle for less
 * than FNV_IDLE_LEAVE periods): its cgroup's id (the inode number of its
 * directory), weights, state, D2FQ class and lead over gvt, requests
 * queued and at the device, whether it holds gvt, its requests holding
 * scheduler tags and its virtual time.
 */
static int fnv_tenant_dump_show(void *data, struct seq_file *m)
{
	static const char * const cls[] = { "urgent", "high", "medium", "low" };
	struct fnv_data *fd = fnv_dbg_data(data);
	u64 word = atomic64_read(&fd->gvt);
	u64 gvt = d2fq_gvt_vt(word);
	u16 holder = d2fq_gvt_id(word);
	struct fnv_tenant *tn;

	spin_lock(&fd->lock);
	list_for_each_entry(tn, &fd->active, active_node) {
		s8 c = tn->d2.cls;
		const u64 *nr = tn->d2.nr;

		seq_printf(m, "cgroup=%llu%s weight=%u eff_weight=%u state=%s class=%s vt_gap=%lld queued=%u inflight=%d requests=%llu charged=%llu holder=%d outstanding=%llu alone_us=%llu tags=%d vt=%llu\n",
			   fnv_tenant_cgid(tn), tn->root ? "(root)" : "",
			   READ_ONCE(tn->cfg_weight), tn->eff_weight,
			   fnv_ctl_state_name(tn->ctl.state),
			   c >= 0 && c < D2FQ_NR_CLASSES ? cls[c] : "none",
			   d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) >>
			   D2FQ_VT_SHIFT, tn->nr_queued,
			   atomic_read(&tn->inflight),
			   nr[D2FQ_URGENT] + nr[D2FQ_HIGH] + nr[D2FQ_MEDIUM] +
			   nr[D2FQ_LOW], tn->d2.charged,
			   holder != D2FQ_ID_NONE && tn->d2.id == holder,
			   (tn->alone_q16 + (1ULL << 15)) >> 16,
			   div_u64(tn->alone_ns, NSEC_PER_USEC),
			   atomic_read(&tn->nr_rqs),
			   ((u64)atomic64_read(&tn->d2.vt) & D2FQ_VT_MASK) >>
			   D2FQ_VT_SHIFT);
	}
	spin_unlock(&fd->lock);
	return 0;
}

/*
 * The auto depth's rate trials (depth.c): the trial under way (to, 0:
 * none), the kept depth, the limited periods until the next trial; the
 * windows at the depth held (base), on trial, at max_inflight (ref) and
 * the base that one was judged by (was):
 * sampled completions per second and fairness (1024: each tenant its
 * weight's share; -1: not measured); the current window's fairness so far;
 * upward trials and those kept.
 */
static void fnv_rate_show(struct seq_file *m, const char *name,
			  const struct fnv_rate *r)
{
	seq_printf(m, " %s=%llu/%lld", name,
		   r->dt ? div64_u64(r->nr * USEC_PER_SEC, r->dt) : 0,
		   r->fn ? (s64)r->fair : -1LL);
}

static int fnv_depth_trials_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);
	const struct fnv_dprobe *pr = &fd->dprobe;

	spin_lock(&fd->lock);
	seq_printf(m, "to=%u keep=%u wait=%u", pr->to, pr->keep, pr->wait);
	fnv_rate_show(m, "base", &pr->base);
	fnv_rate_show(m, "trial", &pr->trial);
	fnv_rate_show(m, "ref", &pr->ref);
	fnv_rate_show(m, "was", &pr->was);
	seq_printf(m, " fair=%d up=%u kept=%u\n",
		   pr->last_fair == FNV_FAIR_NONE ? -1 : (int)pr->last_fair,
		   pr->nr_up, pr->nr_kept);
	spin_unlock(&fd->lock);
	return 0;
}

#define FNV_DBG_ATTR(name) { #name, 0400, fnv_##name##_show }
/*
 * TABS (tabs.c): phase, throttling factor, the goal and the last epoch,
 * per type read/fua; bandwidths in bytes/s.
 */
static int fnv_tabs_show(void *data, struct seq_file *m)
{
	struct fnv_data *fd = fnv_dbg_data(data);
	const struct tabs *t = &fd->tabs;
	unsigned int held = 0;
	struct request *rq;

	spin_lock(&fd->lock);
	list_for_each_entry(rq, &fd->tabs_held, queuelist)
		held++;
	seq_printf(m, "enabled=%u phase=%s alpha=%u.%03u\n", fd->tabs_on,
		   fd->tabs_on ? tabs_phase_name(t->phase) : "off",
		   t->alpha >> TABS_ALPHA_SHIFT,
		   ((t->alpha & (TABS_ALPHA_ONE - 1)) * 1000) >>
		   TABS_ALPHA_SHIFT);
	seq_printf(m, "issued=%llu/%llu fbw=%llu/%llu bwmax=%llu/%llu bwmax_auto=%llu/%llu\n",
		   t->i[TABS_READ], t->i[TABS_FUA], t->fbw[TABS_READ],
		   t->fbw[TABS_FUA], t->bwmax[TABS_READ], t->bwmax[TABS_FUA],
		   t->bwmax_auto[TABS_READ], t->bwmax_auto[TABS_FUA]);
	seq_printf(m, "bw=%llu/%llu fairness=%u.%03u\n", t->bw[TABS_READ],
		   t->bw[TABS_FUA], t->fairness / 1000, t->fairness % 1000);
	seq_printf(m, "held_now=%u held=%llu released_idle=%llu released_lone=%llu released_credit=%llu released_forced=%llu\n",
		   held, t->nr_held, t->nr_released[TABS_REL_IDLE],
		   t->nr_released[TABS_REL_LONE],
		   t->nr_released[TABS_REL_CREDIT],
		   t->nr_released[TABS_REL_FORCED]);
	seq_printf(m, "sched_phases=%llu regoals=%llu epochs=%llu dispatched=%llu/%llu/%llu outstanding=%llu/%llu/%llu\n",
		   t->nr_sched, t->nr_regoal, t->nr_epochs,
		   t->nr_dispatched[TABS_READ],
		   t->nr_dispatched[TABS_FUA], t->nr_dispatched[TABS_WRITE],
		   t->nr_outstanding[TABS_READ], t->nr_outstanding[TABS_FUA],
		   t->nr_outstanding[TABS_WRITE]);
	spin_unlock(&fd->lock);
	return 0;
}

const struct blk_mq_debugfs_attr fnv_debugfs_attrs[] = {
	FNV_DBG_ATTR(hl_ratio),
	FNV_DBG_ATTR(gvt),
	FNV_DBG_ATTR(inflight),
	FNV_DBG_ATTR(depth),
	FNV_DBG_ATTR(hold_depth),
	FNV_DBG_ATTR(slot_depth),
	FNV_DBG_ATTR(tag_depths),
	FNV_DBG_ATTR(depth_trials),
	FNV_DBG_ATTR(dev_floor_us),
	FNV_DBG_ATTR(tau_l_eff_bytes),
	FNV_DBG_ATTR(ctl_walk_us),
	FNV_DBG_ATTR(thresh_min_eff_us),
	FNV_DBG_ATTR(thresh_max_eff_us),
	FNV_DBG_ATTR(cost_learned),
	FNV_DBG_ATTR(tenants),
	FNV_DBG_ATTR(tenant_dump),
	FNV_DBG_ATTR(tabs),
	{},
};
