// SPDX-License-Identifier: GPL-2.0
/* indigod's action grid: see actions.h. */
#include "actions.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const uint32_t def_burst[] = { 0, 50, 200, 1000 };
static const uint32_t def_rate[] = { 100, 1000, 10000, 100000 };

void actions_grid_default(struct act_grid *g)
{
	actions_grid_init(g, def_burst, 4, def_rate, 4);
}

static int increasing(const uint32_t *v, unsigned int n)
{
	unsigned int i;

	if (!v || n < 1 || n > ACT_GRID_MAX)
		return 0;
	for (i = 1; i < n; i++)
		if (v[i] <= v[i - 1])
			return 0;
	return 1;
}

int actions_grid_init(struct act_grid *g, const uint32_t *burst_ms,
		      unsigned int nburst, const uint32_t *rate_mhz,
		      unsigned int nrate)
{
	if (!g || !increasing(burst_ms, nburst) || !increasing(rate_mhz, nrate))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->nburst = nburst;
	g->nrate = nrate;
	memcpy(g->burst_ms, burst_ms, nburst * sizeof(*burst_ms));
	memcpy(g->rate_mhz, rate_mhz, nrate * sizeof(*rate_mhz));
	return 0;
}

unsigned int actions_count(const struct act_grid *g)
{
	return g->nburst * g->nrate + 2;
}

unsigned int actions_deny_arm(const struct act_grid *g)
{
	return g->nburst * g->nrate;
}

unsigned int actions_fill_arm(const struct act_grid *g)
{
	return g->nburst * g->nrate + 1;
}

int actions_policy(const struct act_grid *g, unsigned int arm,
		   uint32_t rate_cap_pps, uint64_t free_min_kib,
		   uint64_t local_total_kib, double fill_share,
		   struct act_policy *p)
{
	if (!g || !p || arm >= actions_count(g))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (arm == actions_deny_arm(g)) {
		p->mode = ACT_MODE_DENY;
		p->set = ACT_SET_MODE;
		return 0;
	}
	p->mode = ACT_MODE_GATE;
	p->rate_cap_pps = rate_cap_pps;
	p->free_min_kib = free_min_kib;
	if (arm == actions_fill_arm(g)) {
		/* thresholds 0; the operator's floor wins when it is higher */
		double fill = (double)local_total_kib * fill_share;

		if (fill > (double)free_min_kib)
			p->free_min_kib = (uint64_t)fill;
	} else {
		p->burst_min_ms = g->burst_ms[arm / g->nrate];
		p->rate_min_mhz = g->rate_mhz[arm % g->nrate];
	}
	p->set = ACT_SET_MODE | ACT_SET_RATE_MIN | ACT_SET_BURST_MIN |
		 ACT_SET_FREE_MIN | ACT_SET_RATE_CAP;
	return 0;
}

unsigned int actions_nearest_rate(const struct act_grid *g,
				  uint32_t rate_min_mhz)
{
	double want = log((double)rate_min_mhz + 1.0), best = INFINITY;
	unsigned int i, arm = 0;

	for (i = 0; i < g->nrate; i++) {
		double d = fabs(log((double)g->rate_mhz[i] + 1.0) - want);

		if (d <= best) {
			best = d;
			arm = i;
		}
	}
	return arm;	/* burst index 0 */
}
