/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: differences between the kernel versions we build for.
 *
 * Supported: the two LTS kernels Debian 12 ships, 6.1 (its default) and
 * 6.12 (Debian 13's, in Debian 12's archive as linux-image-6.12.*+deb12).
 * Every version-dependent construct of the elevator and blkcg policy APIs
 * lives here, so that adding a kernel is a change to this file only.
 */
#ifndef _FAIRNVME_COMPAT_H
#define _FAIRNVME_COMPAT_H

/* FNV_KVER is VERSION * 100 + PATCHLEVEL of the target kernel (Kbuild). */
#if FNV_KVER == 601

/* elevator_mq_ops.insert_requests: "bool at_head" until 6.4 */
#define FNV_INSERT_ARGS		struct blk_mq_hw_ctx *hctx, \
				struct list_head *list, bool at_head
#define FNV_INSERT_AT_HEAD	(at_head)

/* blkcg_policy.pd_alloc_fn: (gfp, q, blkcg) until 6.2 */
#define FNV_PD_ALLOC_ARGS	gfp_t gfp, struct request_queue *q, \
				struct blkcg *blkcg
#define FNV_PD_ALLOC_NODE	(q->node)

/* blkcg_(de)activate_policy() take the request_queue until 6.2 */
#define fnv_activate_policy(q, pol)	blkcg_activate_policy((q), (pol))
#define fnv_deactivate_policy(q, pol)	blkcg_deactivate_policy((q), (pol))

/* wbt_{en,dis}able_default() take the request_queue until 6.3 */
#define fnv_wbt_disable(q)		wbt_disable_default(q)
#define fnv_wbt_enable(q)		wbt_enable_default(q)

/*
 * A request that went through the elevator (prepare_request ran, and
 * finish_request will): RQF_ELVPRIV until 6.5, RQF_USE_SCHED from then.
 */
#define FNV_RQF_SCHED			RQF_ELVPRIV

/*
 * blkg_conf_prep() parses the input itself until 6.5; from then
 * blkg_conf_init() comes first and blkg_conf_exit() always last.
 */
static inline int fnv_conf_prep(struct blkcg *blkcg,
				const struct blkcg_policy *pol, char *input,
				struct blkg_conf_ctx *ctx)
{
	return blkg_conf_prep(blkcg, pol, input, ctx);
}

/* after a failed fnv_conf_prep() */
static inline void fnv_conf_failed(struct blkg_conf_ctx *ctx)
{
}

/* after a successful one */
static inline void fnv_conf_done(struct blkg_conf_ctx *ctx)
{
	blkg_conf_finish(ctx);
}

/*
 * FUA writes reach the elevator from 6.5 only: on 6.1 blk_insert_flush()
 * sends a write with REQ_FUA (on a device with a volatile write cache
 * and FUA) straight to the hardware queue, past every elevator.
 */
#define FNV_FUA_SCHEDULED		0

#elif FNV_KVER == 612

#define FNV_INSERT_ARGS		struct blk_mq_hw_ctx *hctx, \
				struct list_head *list, blk_insert_t flags
#define FNV_INSERT_AT_HEAD	((flags) & BLK_MQ_INSERT_AT_HEAD)

#define FNV_PD_ALLOC_ARGS	struct gendisk *disk, struct blkcg *blkcg, \
				gfp_t gfp
#define FNV_PD_ALLOC_NODE	(disk->queue->node)

#define fnv_activate_policy(q, pol)	blkcg_activate_policy((q)->disk, (pol))
#define fnv_deactivate_policy(q, pol)	blkcg_deactivate_policy((q)->disk, (pol))

#define fnv_wbt_disable(q)		wbt_disable_default((q)->disk)
#define fnv_wbt_enable(q)		wbt_enable_default((q)->disk)

#define FNV_RQF_SCHED			RQF_USE_SCHED

static inline int fnv_conf_prep(struct blkcg *blkcg,
				const struct blkcg_policy *pol, char *input,
				struct blkg_conf_ctx *ctx)
{
	blkg_conf_init(ctx, input);
	return blkg_conf_prep(blkcg, pol, ctx);
}

static inline void fnv_conf_failed(struct blkg_conf_ctx *ctx)
{
	blkg_conf_exit(ctx);
}

static inline void fnv_conf_done(struct blkg_conf_ctx *ctx)
{
	blkg_conf_exit(ctx);
}

#define FNV_FUA_SCHEDULED		1

#else
#error "fairnvme: this kernel version is not supported (6.1 and 6.12 LTS are)"
#endif

#endif /* _FAIRNVME_COMPAT_H */
