/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: differences between the kernel versions we build for.
 *
 * Supported: 6.1 LTS (Debian 12's default kernel). Every version-dependent
 * construct of the elevator and blkcg policy APIs lives here, so that adding
 * a kernel is a change to this file only.
 */
#ifndef _FAIRNVME_COMPAT_H
#define _FAIRNVME_COMPAT_H

/* FNV_KVER is VERSION * 100 + PATCHLEVEL of the target kernel (Kbuild). */
#if FNV_KVER != 601
#error "fairnvme: this kernel version is not supported yet (6.1 LTS is)"
#endif

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

#endif /* _FAIRNVME_COMPAT_H */
