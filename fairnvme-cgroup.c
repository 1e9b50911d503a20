// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the blkcg policy: a tenant per cgroup and device, the cgroup
 * files io.fairnvme.weight and io.fairnvme.stat (blkio.* on cgroup v1).
 */
#include "fairnvme.h"
#include <trace/events/fairnvme.h>

/* blkcg policy: io.fairnvme.weight */

static struct blkcg_policy_data *fnv_cpd_alloc(gfp_t gfp)
{
	struct fnv_cgroup *cg = kzalloc(sizeof(*cg), gfp);

	if (!cg)
		return NULL;
	cg->weight = FNV_WEIGHT_DEFAULT;
	return &cg->cpd;
}

static void fnv_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct fnv_cgroup, cpd));
}

static struct blkg_policy_data *fnv_pd_alloc(FNV_PD_ALLOC_ARGS)
{
	struct fnv_tenant *tn;
	int id;

	tn = kzalloc_node(sizeof(*tn), gfp, FNV_PD_ALLOC_NODE);
	if (!tn)
		return NULL;
	/*
	 * A tenant of a removed cgroup can outlive the scheduler instance
	 * (blkcg_deactivate_policy() only frees the tenants of live blkgs;
	 * the others are freed when their last reference goes). Until then
	 * pd_free_fn is ours to run: the module must stay.
	 */
	__module_get(THIS_MODULE);
	INIT_LIST_HEAD(&tn->fifo[0]);
	INIT_LIST_HEAD(&tn->fifo[1]);
	INIT_LIST_HEAD(&tn->active_node);
	atomic_set(&tn->inflight, 0);
	tn->sort[READ] = RB_ROOT;
	tn->sort[WRITE] = RB_ROOT;
	fnv_flow_init(&tn->flow, FNV_WEIGHT_DEFAULT);
	id = ida_alloc_range(&fnv_ida, 1, D2FQ_ID_MAX, gfp);
	d2fq_flow_init(&tn->d2, id > 0 ? id : D2FQ_ID_NONE,
		       FNV_WEIGHT_DEFAULT);
	fnv_ctl_init(&tn->ctl, &fnv_ctl_defaults, FNV_COST_DEF_NS);
	tn->cfg_weight = FNV_WEIGHT_DEFAULT;
	tn->eff_weight = FNV_WEIGHT_DEFAULT;
	tn->cm_tilt = FNV_CM_TILT_ONE;
	return &tn->pd;
}

static void fnv_pd_init(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct fnv_cgroup *cg = blkcg_to_fnvcg(pd->blkg->blkcg);

	tn->cfg_weight = cg ? cg->weight : FNV_WEIGHT_DEFAULT;
	tn->eff_weight = tn->cfg_weight;
	fnv_flow_init(&tn->flow, tn->cfg_weight);
	tn->d2.weight = tn->cfg_weight;
	/*
	 * The root cgroup's tenant sends the journal, the flusher's
	 * writeback and I/O issued on behalf of root: a few requests at a
	 * time, all the time. Holding gvt, it kept gvt behind every real
	 * tenant, they all sat in the low class and the arbiter took turns
	 * among them whatever their weights (a weight-100 O_SYNC writer
	 * beside a weight-800 reader on ext4: .19 to .24 of the device, .111
	 * due). It is still scheduled by its virtual time (its lead
	 * bounded, see fnv_d2fq_class()); it only never holds gvt.
	 */
	if (!pd->blkg->parent) {
		tn->root = true;
		if (tn->d2.id != D2FQ_ID_NONE)
			ida_free(&fnv_ida, tn->d2.id);
		tn->d2.id = D2FQ_ID_NONE;
	}
}

/*
 * The cgroup is being removed (or the policy deactivated), under
 * q->queue_lock and the blkcg's lock: fd->lock may not be taken here (the
 * lock rule, fairnvme-iosched.c). The tenant is marked, lets go of gvt
 * (lock-free), and goes on fd->offlined with a blkg reference for
 * fnv_offline_work() to take off our lists: from then on it never parks or
 * joins the active list again, and one with requests stays on a class list
 * until they are gone; they hold its blkg.
 */
static void fnv_pd_offline(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct request_queue *q = pd->blkg->q;
	struct fnv_data *fd;

	lockdep_assert_held(&q->queue_lock);
	WRITE_ONCE(tn->offline, true);
	fd = fnv_q_data(q);
	if (!fd)
		return;
	/*
	 * Let go of gvt: the control period walks the active list, which
	 * this tenant is about to leave, so nothing else would, and every
	 * other tenant would drift to the low class (weights 300:100 gave
	 * 0.488:0.512). Paired with the read of ->offline after
	 * d2fq_gvt_update().
	 */
	smp_mb();
	d2fq_gvt_release(&fd->gvt, tn->d2.id);
	/*
	 * Not while the policy is activated or deactivated (pd_free_fn
	 * follows at once there): then no tenant is on our lists.
	 */
	if (!fd->live)
		return;
	/* blkg_destroy() holds a reference: this one is not the first */
	blkg_get(pd->blkg);
	llist_add(&tn->off_node, &fd->offlined);
	queue_work(system_wq, &fd->off_work);
}

/*
 * The tenants fnv_pd_offline() marked leave the class lists (parked ones;
 * one with requests leaves when it drains, fnv_tenant_drained()) and the
 * control worker's active list, and drop the references those lists and
 * fd->offlined held. Then gvt, if no one holds it, is anchored on the
 * tenants left, rather than at the next control period: a tenant takes a
 * released gvt only from within tau_l / 16 of it, and until one does gvt
 * stands still, every tenant drifts to the low class and newcomers start
 * behind. Process context; also called by fnv_exit_sched() for what a
 * cancelled work left.
 */
void fnv_offline_drain(struct fnv_data *fd)
{
	struct llist_node *list = llist_del_all(&fd->offlined);
	struct fnv_tenant *tn, *next;

	if (!list)
		return;
	spin_lock(&fd->lock);
	llist_for_each_entry(tn, list, off_node) {
		/*
		 * A control period may have anchored gvt on it between
		 * fnv_pd_offline() and here (fnv_d2fq_anchor() skips it
		 * only once it is marked): off the active list, nothing
		 * else would release it.
		 */
		d2fq_gvt_release(&fd->gvt, tn->d2.id);
		if (tn->d2.parked)
			d2fq_arb_del(&fd->arb, &tn->d2);
		tn->d2.active = false;
		/*
		 * fd->solo holds no reference: never the address of a
		 * tenant that may be freed (another one allocated there
		 * would be taken for it)
		 */
		if (fd->solo == tn)
			WRITE_ONCE(fd->solo, NULL);
		/* not the last reference: fd->offlined holds one */
		if (!list_empty(&tn->active_node))
			fnv_tenant_leave(tn);
	}
	if (d2fq_gvt_id(atomic64_read(&fd->gvt)) == D2FQ_ID_NONE)
		fnv_d2fq_anchor(fd);
	spin_unlock(&fd->lock);
	llist_for_each_entry_safe(tn, next, list, off_node)
		blkg_put(tn->pd.blkg);
}

void fnv_offline_work(struct work_struct *work)
{
	fnv_offline_drain(container_of(work, struct fnv_data, off_work));
}

/*
 * The module reference a tenant holds is dropped from an RCU callback, not
 * from pd_free_fn: a work item of the block layer runs that, and after a
 * module_put() there it would still have our code to return through while
 * the module went away. fnv_exit()'s rcu_barrier() waits for this callback
 * to have returned.
 */
static void fnv_tenant_free(struct rcu_head *head)
{
	kfree(container_of(head, struct fnv_tenant, rcu));
	module_put(THIS_MODULE);
}

static void fnv_pd_free(struct blkg_policy_data *pd)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);

	/* Requests hold a blkg reference: none can be left here. */
	WARN_ON_ONCE(tn->nr_queued || tn->flow.backlogged ||
		     !list_empty(&tn->flow.wnode) || tn->d2.cls >= 0 ||
		     !list_empty(&tn->active_node) ||
		     atomic_read(&tn->inflight));
	if (tn->d2.id != D2FQ_ID_NONE)
		ida_free(&fnv_ida, tn->d2.id);
	call_rcu(&tn->rcu, fnv_tenant_free);
}

/*
 * A new configured weight. The scheduling weight follows at once (scaled by
 * the controller's multiplier); the control worker refines it next period.
 */
static void fnv_tenant_set_weight(struct fnv_tenant *tn, u32 cgroup_weight)
{
	u32 w = tn->dev_weight ?: cgroup_weight;

	WRITE_ONCE(tn->cfg_weight, w);
	WRITE_ONCE(tn->flow.new_weight, fnv_ctl_weight(&tn->ctl, w));
	WRITE_ONCE(tn->d2.weight, max(fnv_ctl_weight(&tn->ctl, w), 1U));
}

static u64 fnv_prfill_dev_weight(struct seq_file *sf,
				 struct blkg_policy_data *pd, int off)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);

	if (!tn->dev_weight)
		return 0;
	return __blkg_prfill_u64(sf, pd, tn->dev_weight);
}

static int fnv_weight_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);

	seq_printf(sf, "default %u\n", cg ? cg->weight : FNV_WEIGHT_DEFAULT);
	blkcg_print_blkgs(sf, blkcg, fnv_prfill_dev_weight, &fnv_policy, 0,
			  false);
	return 0;
}

static int fnv_parse_weight(const char *s, u32 *weight)
{
	return fnv_parse_u32(s, FNV_WEIGHT_MIN, FNV_WEIGHT_MAX, weight);
}

/* "W" or "default W": the cgroup's weight on every device. */
static int fnv_set_default_weight(struct blkcg *blkcg, char *body)
{
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);
	struct blkcg_gq *blkg;
	u32 weight;

	if (!strncmp(body, "default", 7) && isspace(body[7]))
		body = skip_spaces(body + 7);
	if (!cg || fnv_parse_weight(body, &weight))
		return -EINVAL;

	spin_lock_irq(&blkcg->lock);
	cg->weight = weight;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct fnv_tenant *tn;

		tn = pd_to_tenant(blkg_to_pd(blkg, &fnv_policy));
		if (tn)
			fnv_tenant_set_weight(tn, weight);
	}
	spin_unlock_irq(&blkcg->lock);
	return 0;
}

/* "MAJ:MIN W" or "MAJ:MIN default": a per-device override. */
static int fnv_set_dev_weight(struct blkcg *blkcg, char *body)
{
	struct fnv_cgroup *cg = blkcg_to_fnvcg(blkcg);
	struct blkg_conf_ctx ctx;
	struct fnv_tenant *tn;
	u32 weight = 0;
	int ret;

	ret = fnv_conf_prep(blkcg, &fnv_policy, body, &ctx);
	if (ret) {
		fnv_conf_failed(&ctx);
		return ret;
	}

	body = strim(ctx.body);
	if (strcmp(body, "default") && fnv_parse_weight(body, &weight)) {
		ret = -EINVAL;
		goto out;
	}
	tn = pd_to_tenant(blkg_to_pd(ctx.blkg, &fnv_policy));
	if (!tn || !cg) {
		ret = -EINVAL;
		goto out;
	}
	/* blkcg->lock orders us against a "default W" write */
	spin_lock(&blkcg->lock);
	tn->dev_weight = weight;
	fnv_tenant_set_weight(tn, cg->weight);
	spin_unlock(&blkcg->lock);
out:
	fnv_conf_done(&ctx);
	return ret;
}

static ssize_t fnv_weight_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	char *body = strim(buf);
	int ret;

	if (strchr(body, ':'))
		ret = fnv_set_dev_weight(blkcg, body);
	else
		ret = fnv_set_default_weight(blkcg, body);
	return ret ?: nbytes;
}

/* One io.fairnvme.stat line: the tenant's controller state on a device. */
static u64 fnv_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd,
			   int off)
{
	struct fnv_tenant *tn = pd_to_tenant(pd);
	struct request_queue *q = pd->blkg->q;
	struct fnv_data *fd = fnv_q_data(q);
	static const char * const cls[] = { "urgent", "high", "medium", "low" };
	u64 thmin = 0, thmax = 0, gvt = 0;
	const char *dname;
	s8 c;

	/* blkg_dev_name(), which is not exported */
	if (!q->disk || !q->disk->bdi->dev)
		return 0;
	dname = bdi_dev_name(q->disk->bdi);
	if (fd) {
		thmin = READ_ONCE(fd->ctl.thresh_min);
		thmax = READ_ONCE(fd->ctl.thresh_max);
		gvt = d2fq_gvt_vt(atomic64_read(&fd->gvt));
	}
	c = READ_ONCE(tn->d2.cls);
	seq_printf(sf, "%s state=%s weight=%u eff_weight=%u sched_weight=%u budget=%lld comp_budget=%llu lat_us=%llu head_us=%llu dev_us=%llu thresh_min_us=%llu thresh_cur_us=%llu thresh_max_us=%llu rcost_us=%llu wcost_us=%llu wratio=%u",
		   dname, fnv_ctl_state_name(tn->ctl.state),
		   READ_ONCE(tn->cfg_weight), tn->eff_weight,
		   READ_ONCE(tn->flow.weight), READ_ONCE(tn->flow.budget),
		   tn->eq5_budget, div_u64(tn->ctl.lat, NSEC_PER_USEC),
		   div_u64(tn->ctl.head, NSEC_PER_USEC),
		   div_u64(tn->ctl.dev, NSEC_PER_USEC),
		   div_u64(thmin, NSEC_PER_USEC),
		   div_u64(tn->ctl.thresh_cur, NSEC_PER_USEC),
		   div_u64(thmax, NSEC_PER_USEC),
		   div_u64(tn->ctl.cost[0], NSEC_PER_USEC),
		   div_u64(tn->ctl.cost[1], NSEC_PER_USEC), tn->ctl.ratio_w);
	/* D2FQ */
	seq_printf(sf, " class=%s vt_gap=%lld nr_urgent=%llu nr_high=%llu nr_medium=%llu nr_low=%llu charged=%llu\n",
		   c >= 0 && c < D2FQ_NR_CLASSES ? cls[c] : "none",
		   d2fq_vt_diff(atomic64_read(&tn->d2.vt), gvt) >>
		   D2FQ_VT_SHIFT,
		   READ_ONCE(tn->d2.nr[D2FQ_URGENT]),
		   READ_ONCE(tn->d2.nr[D2FQ_HIGH]),
		   READ_ONCE(tn->d2.nr[D2FQ_MEDIUM]),
		   READ_ONCE(tn->d2.nr[D2FQ_LOW]),
		   READ_ONCE(tn->d2.charged));
	return 0;
}

static int fnv_stat_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), fnv_prfill_stat,
			  &fnv_policy, 0, false);
	return 0;
}

/* The same files on cgroup v2 (io.*) and v1 (blkio.*); arrays can't be shared */
static struct cftype fnv_dfl_files[] = {
	{
		.name = "fairnvme.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = fnv_weight_show,
		.write = fnv_weight_write,
	},
	{
		.name = "fairnvme.stat",
		.seq_show = fnv_stat_show,
	},
	{ }
};

static struct cftype fnv_legacy_files[] = {
	{
		.name = "fairnvme.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = fnv_weight_show,
		.write = fnv_weight_write,
	},
	{
		.name = "fairnvme.stat",
		.seq_show = fnv_stat_show,
	},
	{ }
};

struct blkcg_policy fnv_policy = {
	.dfl_cftypes	= fnv_dfl_files,
	.legacy_cftypes	= fnv_legacy_files,
	.cpd_alloc_fn	= fnv_cpd_alloc,
	.cpd_free_fn	= fnv_cpd_free,
	.pd_alloc_fn	= fnv_pd_alloc,
	.pd_init_fn	= fnv_pd_init,
	.pd_offline_fn	= fnv_pd_offline,
	.pd_free_fn	= fnv_pd_free,
};

