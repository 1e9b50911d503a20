/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fairnvme: the iosched tunables, one FNV_TUNABLE() each, for the includer
 * to expand (no include guard, as a trace header): fairnvme-sysfs.c makes
 * the attributes and a new instance's defaults from it, and the unit test
 * doc_check_tunables checks the tunables table of Documentation/
 * fairnvme.rst against it (name, unit, default, range).
 *
 * FNV_TUNABLE(name, kind, field, unit, def, min, max, choices, apply):
 * see <fairnvme/tunables.h> for the kinds; @field is the u32 of struct
 * fnv_data that holds the value; @unit as the documentation shows it.
 */
FNV_TUNABLE(max_inflight, FNV_TK_U32, max_inflight, "requests",
	    FNV_MAX_INFLIGHT_DEF, 1, FNV_MAX_INFLIGHT_MAX, NULL,
	    fnv_set_redepth)
FNV_TUNABLE(dev_target_us, FNV_TK_AUTO, dev_target_us, "us",
	    FNV_DEV_TARGET_AUTO, 0, FNV_DEV_TARGET_US_MAX, NULL,
	    fnv_set_dev_target)
FNV_TUNABLE(cost_model, FNV_TK_CHOICE, cost_model, "\\-", 0, 0, 1,
	    "time bytes", fnv_set_rebudget)
FNV_TUNABLE(budget_us, FNV_TK_U32, budget_us, "us", FNV_BUDGET_US_DEF,
	    FNV_BUDGET_US_MIN, FNV_BUDGET_US_MAX, NULL, fnv_set_rebudget)
FNV_TUNABLE(budget_kib, FNV_TK_U32, budget_kib, "KiB", FNV_BUDGET_KIB_DEF,
	    FNV_BUDGET_KIB_MIN, FNV_BUDGET_KIB_MAX, NULL,
	    fnv_set_rebudget)
FNV_TUNABLE(req_cost_bytes, FNV_TK_U32, req_cost_bytes, "bytes",
	    FNV_REQ_COST_DEF, 0, FNV_REQ_COST_MAX, NULL, NULL)
FNV_TUNABLE(grace_us, FNV_TK_U32, grace_us, "us", FNV_GRACE_US_DEF, 0,
	    FNV_GRACE_US_MAX, NULL, NULL)
FNV_TUNABLE(ctl_period_ms, FNV_TK_U32, ctl_period_ms, "ms",
	    FNV_PERIOD_MS_DEF, FNV_PERIOD_MS_MIN, FNV_PERIOD_MS_MAX, NULL,
	    NULL)
FNV_TUNABLE(thresh_min_us, FNV_TK_AUTO, thresh_min_cfg, "us",
	    FNV_THRESH_AUTO, 1, FNV_THRESH_US_MAX, NULL, fnv_set_thresh_min)
FNV_TUNABLE(thresh_max_us, FNV_TK_AUTO, thresh_max_cfg, "us",
	    FNV_THRESH_AUTO, 1, FNV_THRESH_US_MAX, NULL, fnv_set_thresh_max)
FNV_TUNABLE(ku_ppm, FNV_TK_U32, ctl.ku_ppm, "1/10^6", FNV_KU_PPM_DEF, 0,
	    FNV_PPM_MAX, NULL, NULL)
FNV_TUNABLE(kd_ppm, FNV_TK_U32, ctl.kd_ppm, "1/10^6", FNV_KD_PPM_DEF, 0,
	    FNV_PPM_MAX, NULL, NULL)
FNV_TUNABLE(beta_permille, FNV_TK_U32, ctl.beta, "1/1000 of weight",
	    FNV_BETA_DEF, 0, FNV_BETA_MAX, NULL, NULL)
FNV_TUNABLE(state_latency, FNV_TK_CHOICE, ctl.signal, "\\-", 0, 0, 1,
	    "head queue", NULL)
FNV_TUNABLE(wrr_mode, FNV_TK_CHOICE, wrr_mode, "\\-", 0, 0, 1, "soft off",
	    fnv_set_wrr_mode)
FNV_TUNABLE(tau_l_bytes, FNV_TK_AUTO, tau_l_cfg, "bytes per unit of weight",
	    FNV_TAU_AUTO, FNV_TAU_L_MIN, FNV_TAU_L_MAX, NULL, fnv_set_tau_l)
FNV_TUNABLE(hl_period_ms, FNV_TK_U32, hl_period_ms, "ms",
	    FNV_HL_PERIOD_MS_DEF, FNV_HL_PERIOD_MS_MIN,
	    FNV_HL_PERIOD_MS_MAX, NULL, NULL)
FNV_TUNABLE(wrr_burst, FNV_TK_U32, wrr_burst, "requests", 1, 1,
	    FNV_WRR_BURST_MAX, NULL, fnv_set_wrr_burst)
FNV_TUNABLE(tabs, FNV_TK_CHOICE, tabs_on, "\\-", 1, 0, 1, "off on",
	    fnv_set_tabs)
FNV_TUNABLE(tabs_reset_ms, FNV_TK_U32, tabs_reset_ms, "ms",
	    TABS_DEF_RESET_MS, TABS_MIN_RESET_MS, TABS_MAX_RESET_MS, NULL,
	    fnv_set_tabs_param)
FNV_TUNABLE(tabs_threshold, FNV_TK_U32, tabs_threshold, "requests",
	    TABS_DEF_THRESHOLD, TABS_MIN_THRESHOLD, TABS_MAX_THRESHOLD, NULL,
	    fnv_set_tabs_param)
FNV_TUNABLE(tabs_epoch_ms, FNV_TK_U32, tabs_epoch_ms, "ms",
	    TABS_DEF_EPOCH_MS, TABS_MIN_EPOCH_MS, TABS_MAX_EPOCH_MS, NULL,
	    fnv_set_tabs_param)
FNV_TUNABLE(tabs_sched_ms, FNV_TK_U32, tabs_sched_ms, "ms",
	    TABS_DEF_SCHED_MS, TABS_MIN_SCHED_MS, TABS_MAX_SCHED_MS, NULL,
	    fnv_set_tabs_param)
FNV_TUNABLE(tabs_max_wait_ms, FNV_TK_U32, tabs_max_wait_ms, "ms",
	    TABS_DEF_MAX_WAIT_MS, TABS_MIN_MAX_WAIT_MS, TABS_MAX_MAX_WAIT_MS,
	    NULL, fnv_set_tabs_param)
FNV_TUNABLE(tabs_read_bwmax, FNV_TK_AUTO, tabs_read_bwmax, "KiB/s",
	    FNV_TABS_BWMAX_AUTO, 1, FNV_TABS_BWMAX_MAX, NULL,
	    fnv_set_tabs_param)
FNV_TUNABLE(tabs_fua_bwmax, FNV_TK_AUTO, tabs_fua_bwmax, "KiB/s",
	    FNV_TABS_BWMAX_AUTO, 1, FNV_TABS_BWMAX_MAX, NULL,
	    fnv_set_tabs_param)
