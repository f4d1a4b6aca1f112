// SPDX-License-Identifier: GPL-2.0
/* Policy plug-ins: names and dispatch. See pol.h. */
#include "pol.h"

#include <errno.h>
#include <string.h>

static const char *const names[POL_COUNT] = {
	[POL_NONE] = "none",
	[POL_TPP] = "tpp",
	[POL_MEMTIS] = "memtis",
	[POL_COLLOID] = "colloid",
	[POL_HEURISTIC] = "heuristic",
	[POL_FIXED] = "fixed",
	[POL_BANDIT] = "bandit",
	[POL_BANDIT_PROGRESS] = "bandit-progress",
};

const char *pol_name(int kind)
{
	return kind >= 0 && kind < POL_COUNT ? names[kind] : NULL;
}

int pol_parse(const char *name)
{
	int k;

	for (k = 0; k < POL_COUNT; k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

/*
 * indigod's default grid with time divided by SIM_TIME_SCALE: bursts 0, 50,
 * 200, 1000 ms become 0, 1 (0.5 rounded up), 2, 10 ms and rates 0.1 to 100
 * accesses/s become 10 to 10,000.
 */
void pol_grid(struct act_grid *g)
{
	static const uint32_t burst[] = { 0, 1, 2, 10 };
	static const uint32_t rate[] = { 10000, 100000, 1000000, 10000000 };

	actions_grid_init(g, burst, 4, rate, 4);
}

static enum sim_verdict none_fault(struct sim_policy *pol,
				   const struct sim_view *v,
				   const struct sim_fault *f)
{
	(void)pol;
	(void)v;
	(void)f;
	return SIM_STAY;
}

static void none_destroy(struct sim_policy *pol)
{
	(void)pol;
}

static const struct sim_policy_ops none_ops = {
	.fault = none_fault,
	.destroy = none_destroy,
};

int pol_none_create(struct sim_policy *pol)
{
	pol->ops = &none_ops;
	pol->st = NULL;
	return 0;
}

int pol_create(struct sim_policy *pol, const struct pol_cfg *c,
	       const struct sim_params *p, uint32_t npages, char *err,
	       size_t errlen)
{
	if (!pol || !c || !p || sim_params_check(p) || !npages)
		return -EINVAL;
	switch (c->kind) {
	case POL_NONE:
		return pol_none_create(pol);
	case POL_TPP:
		return pol_tpp_create(pol, p);
	case POL_MEMTIS:
	case POL_COLLOID:
		return pol_memtis_create(pol, p, npages, c->kind == POL_COLLOID);
	case POL_HEURISTIC:
	case POL_FIXED:
	case POL_BANDIT:
	case POL_BANDIT_PROGRESS:
		return pol_indigo_create(pol, c, p, npages, err, errlen);
	default:
		return -EINVAL;
	}
}

int pol_finish(struct sim_policy *pol, char *err, size_t errlen)
{
	int ret = 0;

	if (!pol || !pol->ops)
		return -EINVAL;
	if (pol->ops->finish)
		ret = pol->ops->finish(pol, err, errlen);
	pol->ops->destroy(pol);
	pol->ops = NULL;
	return ret;
}
