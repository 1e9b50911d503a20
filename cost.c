// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme: the device time a request costs.
 *
 * D2FQ's virtual time charged bytes. On a device bound by commands rather
 * than bytes that overcharges large requests: on the emulated NVMe limited
 * to 2000 commands/s a tenant reading 64 KiB sequentially among 4 KiB
 * tenants of equal weight was slowed 13.7 times against 2.5 to 5 for the
 * others. A request is charged instead by the device time it costs, a
 * linear model per type as blk-iocost's (a cost per command plus a cost
 * per byte), but measured rather than configured:
 *
 * - The samples: a sampled request's service time (the interval from the
 *   device's previous completion, or its own dispatch, to its completion:
 *   what the state controller learns its costs from too), with its size
 *   in sectors. The kernel sums them per tenant and type.
 * - The fit: each tenant's mean size and mean service time over a period
 *   is one point, weighted by its count, in sums that lose a quarter each
 *   period (a half-life of 2.4 periods: the model follows a device that
 *   changed within a second or two); a
 *   least-squares line through them gives the cost per command (the
 *   intercept) and per sector (the slope), clamped to be non-negative.
 *   Tenants that all use one size leave the slope undetermined: it is then
 *   0, which charges them per command, the same as per byte for one size.
 * - The unit: a 4 KiB read costs 8, the sectors it would cost under the
 *   bytes model, so tau_l keeps its unit (bytes of 4 KiB reads) and a
 *   device whose time is proportional to bytes is charged bytes: time-fair
 *   is byte-fair there.
 * - Until a type has had FNV_CM_MIN_NR samples in the sums it is charged
 *   as the other type, and with neither, by bytes; a type that goes quiet
 *   keeps its last fit.
 *
 * Limits: completion intervals are a request's own time on a device that
 * serves one request at a time; on one that serves many in parallel they
 * are its time over the parallelism, and overlapping requests of different
 * sizes make the slope look flatter than it is.
 * Commands other than reads and writes (discard,
 * write zeroes) are charged as one write command, whatever their size.
 */
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <fairnvme/cost.h>

void fnv_cm_init(struct fnv_cm *m)
{
	int t;

	*m = (struct fnv_cm){};
	for (t = 0; t < FNV_CM_TYPES; t++)
		m->c_sect[t] = 1U << FNV_CM_SHIFT;
}

void fnv_cm_add(struct fnv_cm *m, int t, u64 n, u64 sect, u64 svc_ns)
{
	struct fnv_cm_sums *s = &m->s[t];

	u64 y;

	if (!n)
		return;
	/* a mean service time over FNV_CM_SVC_MAX is a stall, not a cost */
	y = min_t(u64, div64_u64(svc_ns, n), FNV_CM_SVC_MAX);
	s->n += n << FNV_CM_N_SHIFT;
	s->sx += sect;
	s->sy += y * n;
	s->sxy += sect * y;
	s->sxx += sect * div64_u64(sect, n);
}

/* Fit one type: false while it has too few samples. */
static bool fnv_cm_fit(struct fnv_cm *m, int t)
{
	const struct fnv_cm_sums *s = &m->s[t];
	u64 xm, ym, var, ex2, exy, cov, b16 = 0;

	if (s->n < (FNV_CM_MIN_NR << FNV_CM_N_SHIFT))
		return false;
	/* means (n is in 1/2^8), x in 1/256 sector */
	xm = mul_u64_u64_div_u64(s->sx, 256 << FNV_CM_N_SHIFT, s->n);
	ym = mul_u64_u64_div_u64(s->sy, 1 << FNV_CM_N_SHIFT, s->n);
	ex2 = mul_u64_u64_div_u64(s->sxx, 1ULL << (16 + FNV_CM_N_SHIFT), s->n);
	exy = mul_u64_u64_div_u64(s->sxy, 256 << FNV_CM_N_SHIFT, s->n);
	var = ex2 > xm * xm ? ex2 - xm * xm : 0;
	cov = exy > xm * ym ? exy - xm * ym : 0;
	/*
	 * One size (a spread under 1/8 of the mean): no slope to find. Else
	 * slope = cov / var, in ns per sector, kept in 1/2^16 ns.
	 */
	if (var > (xm * xm >> 6) && cov)
		b16 = mul_u64_u64_div_u64(cov, 256ULL << 16, var);
	/* the intercept ym - b * xm, at least 0 */
	if (mul_u64_u64_div_u64(b16, xm, 256ULL << 16) > ym)
		b16 = mul_u64_u64_div_u64(ym, 256ULL << 16, max(xm, 1ULL));
	m->sect_ns16[t] = b16;
	m->cmd_ns[t] = ym - mul_u64_u64_div_u64(b16, xm, 256ULL << 16);
	return true;
}

void fnv_cm_update(struct fnv_cm *m)
{
	u64 ref16, c;
	int t, r;

	/* a type that goes quiet keeps its last fit */
	for (t = 0; t < FNV_CM_TYPES; t++)
		if (fnv_cm_fit(m, t))
			m->known[t] = true;
	/* the reference: a 4 KiB read, or a 4 KiB write if no read is known */
	r = m->known[FNV_CM_READ] ? FNV_CM_READ : FNV_CM_WRITE;
	ref16 = ((u64)m->cmd_ns[r] << 16) + m->sect_ns16[r] * FNV_CM_REF_SECT;
	for (t = 0; t < FNV_CM_TYPES; t++) {
		int k = m->known[t] ? t : r;

		if (!m->known[r] || !ref16) {	/* bytes until known */
			m->c_cmd[t] = 0;
			m->c_sect[t] = 1U << FNV_CM_SHIFT;
			continue;
		}
		/* (cmd * 8 / ref) << SHIFT, ref in 1/2^16 ns */
		c = mul_u64_u64_div_u64(m->cmd_ns[k] << 16,
					(u64)FNV_CM_REF_SECT << FNV_CM_SHIFT,
					ref16);
		m->c_cmd[t] = min_t(u64, c, U32_MAX);
		c = mul_u64_u64_div_u64(m->sect_ns16[k],
					(u64)FNV_CM_REF_SECT << FNV_CM_SHIFT,
					ref16);
		m->c_sect[t] = min_t(u64, c, U32_MAX);
	}
	for (t = 0; t < FNV_CM_TYPES; t++) {
		struct fnv_cm_sums *s = &m->s[t];

		s->n -= s->n >> FNV_CM_DECAY_SHIFT;
		s->sx -= s->sx >> FNV_CM_DECAY_SHIFT;
		s->sy -= s->sy >> FNV_CM_DECAY_SHIFT;
		s->sxy -= s->sxy >> FNV_CM_DECAY_SHIFT;
		s->sxx -= s->sxx >> FNV_CM_DECAY_SHIFT;
	}
}
