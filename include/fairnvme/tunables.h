/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: the iosched tunables (/sys/block/<dev>/queue/iosched/): their
 * kinds, defaults and ranges. The table that declares each tunable once is
 * <fairnvme/tunables-table.h>. Free of kernel types: the unit tests
 * include both.
 */
#ifndef _FAIRNVME_TUNABLES_H
#define _FAIRNVME_TUNABLES_H

#include <linux/limits.h>
#include <fairnvme/tabs.h>

/*
 * Kinds of tunable:
 *   kind     FNV_TK_U32: a number in [min, max];
 *            FNV_TK_AUTO: that, or "auto" (stored as @def: the default);
 *            FNV_TK_CHOICE: one of the space-separated words of @choices
 *            (stored as its index; @def indexes the default);
 *   field    the u32 in struct fnv_data that holds it;
 *   unit     as the documentation's table shows it ("\\-": none);
 *   apply    NULL: a plain store; else int apply(struct fnv_data *fd,
 *            u32 *field, u32 v), which stores @v and makes it take effect,
 *            or refuses it with -EINVAL (the old value kept).
 */
enum fnv_tunable_kind {
	FNV_TK_U32,
	FNV_TK_AUTO,
	FNV_TK_CHOICE,
};

#define FNV_MAX_INFLIGHT_DEF	32
#define FNV_MAX_INFLIGHT_MAX	4096
/* dev_target_us = auto: twice the learned device time of a lone request */
#define FNV_DEV_TARGET_AUTO	U32_MAX
#define FNV_DEV_TARGET_US_MAX	10000000
#define FNV_REQ_COST_DEF	4096
#define FNV_REQ_COST_MAX	1048576
#define FNV_BUDGET_KIB_DEF	2048
#define FNV_BUDGET_KIB_MIN	64
#define FNV_BUDGET_KIB_MAX	1048576
#define FNV_BUDGET_US_DEF	10000
#define FNV_BUDGET_US_MIN	100
#define FNV_BUDGET_US_MAX	1000000
#define FNV_GRACE_US_DEF	1000
#define FNV_GRACE_US_MAX	1000000
#define FNV_PERIOD_MS_DEF	100
#define FNV_PERIOD_MS_MIN	10
#define FNV_PERIOD_MS_MAX	10000
/* thresh_*_us = auto: from the device's lone-request time (fairnvme.h) */
#define FNV_THRESH_AUTO		0U
#define FNV_THRESH_US_MAX	10000000
#define FNV_KU_PPM_DEF		10000
#define FNV_KD_PPM_DEF		1000
#define FNV_PPM_MAX		1000000
#define FNV_BETA_DEF		500
#define FNV_BETA_MAX		3000
/* tau_l_bytes = auto: 50 ms of a tenant's fair service (fairnvme-ctl.c) */
#define FNV_TAU_AUTO		0U
#define FNV_TAU_L_MIN		128
#define FNV_TAU_L_MAX		1073741824U
#define FNV_HL_PERIOD_MS_DEF	1000
#define FNV_HL_PERIOD_MS_MIN	100
#define FNV_HL_PERIOD_MS_MAX	60000
#define FNV_WRR_BURST_MAX	256
/* TABS' BWmax tunables, KiB/s (a u32 in bytes/s would stop at 4 GiB/s) */
#define FNV_TABS_BWMAX_AUTO	0U
#define FNV_TABS_BWMAX_MAX	1073741824U	/* 1 TiB/s: TABS_MAX_BWMAX */

#endif /* _FAIRNVME_TUNABLES_H */
