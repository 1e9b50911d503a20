/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: differences between the kernel versions we build for.
 *
 * Supported: the two LTS kernels Debian 12 ships, 6.1 (its default) and
 * 6.12 (Debian 13's, in Debian 12's archive as linux-image-6.12.*+deb12).
 * Every version-dependent construct of the elevator and blkcg policy APIs
 * lives here, so that adding a kernel is a change to this file only; and
 * so does every one of the block driver API that selftests/ssdsim's
 * emulated SSD uses, in a section of its own (FNV_COMPAT_BLKDEV, below).
 */
#ifndef _FAIRNVME_COMPAT_H
#define _FAIRNVME_COMPAT_H

/*
 * The elevator and blkcg section, for fairnvme.ko. Left out of the test
 * driver, which defines FNV_COMPAT_BLKDEV and does not include the
 * kernel's private block/ headers this section needs.
 */
#ifndef FNV_COMPAT_BLKDEV

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

#endif /* !FNV_COMPAT_BLKDEV */

#ifdef FNV_COMPAT_BLKDEV
/*
 * The block driver API, for selftests/ssdsim/fnvssd.c (the emulated SSD of
 * the guest tests) alone: it defines FNV_COMPAT_BLKDEV before including
 * this file.
 *
 * fnv_alloc_disk(): a disk on a new request queue of @set, with the given
 * logical and physical block sizes and largest request (in sectors), that
 * is non-rotational and advertises a volatile write cache and FUA, so that
 * the block layer passes flush requests and REQ_FUA writes down to the
 * driver. The queue limits are an argument of blk_mq_alloc_disk() from 6.9,
 * and the write cache and FUA are queue_limits features (BLK_FEAT_*) from
 * 6.11, where a queue is non-rotational unless BLK_FEAT_ROTATIONAL is set;
 * 6.1 sets all of them on the queue once it is allocated.
 *
 * The same on both, so not here: the teardown, as virtio_blk's
 * (del_gendisk(), blk_mq_free_tag_set(), then put_disk(); neither calls
 * blk_mq_destroy_queue(), the disk owns its queue), the blk_mq_ops the
 * driver uses, and hrtimer_init() (hrtimer_setup() comes in 6.13).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#if FNV_KVER == 601

static inline struct gendisk *fnv_alloc_disk(struct blk_mq_tag_set *set,
					     void *queuedata, unsigned int lbs,
					     unsigned int pbs,
					     unsigned int max_hw_sectors)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, queuedata);
	struct request_queue *q;

	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, lbs);
	blk_queue_physical_block_size(q, pbs);
	blk_queue_max_hw_sectors(q, max_hw_sectors);
	blk_queue_write_cache(q, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	return disk;
}

#elif FNV_KVER == 612

static inline struct gendisk *fnv_alloc_disk(struct blk_mq_tag_set *set,
					     void *queuedata, unsigned int lbs,
					     unsigned int pbs,
					     unsigned int max_hw_sectors)
{
	struct queue_limits lim = {
		.logical_block_size	= lbs,
		.physical_block_size	= pbs,
		.max_hw_sectors		= max_hw_sectors,
		.features		= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA,
	};

	return blk_mq_alloc_disk(set, &lim, queuedata);
}

#else
#error "fairnvme: this kernel version is not supported (6.1 and 6.12 LTS are)"
#endif

#endif /* FNV_COMPAT_BLKDEV */

#endif /* _FAIRNVME_COMPAT_H */
