// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO's network-aware cost model. See costmodel.h for the units and the
 * inequality; everything here is plain arithmetic on checked inputs.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "costmodel.h"

#define NS_PER_S 1e9

/* finite and > 0 */
static bool positive(double v)
{
	return isfinite(v) && v > 0.0;
}

/* finite and >= 0 */
static bool nonnegative(double v)
{
	return isfinite(v) && v >= 0.0;
}

int cm_link_check(const struct cm_link *l)
{
	if (!l || !positive(l->bandwidth) || !positive(l->page_bytes) ||
	    !positive(l->local_ns) || !positive(l->far_ns) ||
	    !nonnegative(l->k_ns))
		return -EINVAL;
	/* no latency gap: promoting gains nothing and break-even divides by 0 */
	if (!(l->far_ns > l->local_ns))
		return -EINVAL;
	return 0;
}

/* d_latency in seconds; @l already checked */
static double dlat_s(const struct cm_link *l)
{
	return (l->far_ns - l->local_ns) / NS_PER_S;
}

/* a page's transfer, seconds; @l already checked */
static double transfer_s(const struct cm_link *l)
{
	return l->page_bytes / l->bandwidth;
}

/* a migration's fixed cost k, seconds */
static double k_s(const struct cm_link *l)
{
	return l->k_ns / NS_PER_S;
}

/* page_bytes / bandwidth + k, seconds; @l already checked */
static double cost_s(const struct cm_link *l)
{
	return transfer_s(l) + k_s(l);
}

int cm_promotion_cost(const struct cm_link *l, double *out)
{
	int err = cm_link_check(l);

	if (err)
		return err;
	*out = cost_s(l);
	return 0;
}

int cm_promotion_benefit(const struct cm_link *l, double rate_p, double rate_d,
			 double dt_s, double *out)
{
	int err = cm_link_check(l);

	if (err)
		return err;
	if (!nonnegative(rate_p) || !nonnegative(rate_d) || !nonnegative(dt_s))
		return -EINVAL;
	*out = (rate_p - rate_d) * dt_s * dlat_s(l);
	return 0;
}

int cm_promotion_gain(const struct cm_link *l, double rate_p, double rate_d,
		      double dt_s, double *gain_s, bool *pays)
{
	double b;
	int err = cm_promotion_benefit(l, rate_p, rate_d, dt_s, &b);

	if (err)
		return err;
	*gain_s = b - cost_s(l);
	*pays = *gain_s > 0.0;
	return 0;
}

int cm_breakeven_rate(const struct cm_link *l, double dt_s, double *rate)
{
	int err = cm_link_check(l);

	if (err)
		return err;
	if (!positive(dt_s))
		return -EINVAL;
	*rate = cost_s(l) / (dt_s * dlat_s(l));
	return 0;
}

int cm_epoch_reward_moves(const struct cm_link *l, double rate_sum,
			  uint64_t nmoves, uint64_t npages, double local_s,
			  double *reward_s)
{
	int err = cm_link_check(l);

	if (err)
		return err;
	if (!nonnegative(rate_sum) || !nonnegative(local_s))
		return -EINVAL;
	*reward_s = rate_sum * dlat_s(l) * local_s -
		    (double)npages * transfer_s(l) - (double)nmoves * k_s(l);
	return 0;
}

int cm_epoch_reward(const struct cm_link *l, double rate_sum, uint64_t npromoted,
		    double local_s, double *reward_s)
{
	return cm_epoch_reward_moves(l, rate_sum, npromoted, npromoted,
				     local_s, reward_s);
}

int cm_epoch_reward_rates(const struct cm_link *l, const double *rates, size_t n,
			  double local_s, double *reward_s)
{
	double sum = 0.0;
	size_t i;

	if (n && !rates)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!nonnegative(rates[i]))
			return -EINVAL;
		sum += rates[i];
	}
	return cm_epoch_reward(l, sum, n, local_s, reward_s);
}

/* an integral, non-NaN @v clamped into [0, UINT32_MAX] */
static uint32_t clamp_u32(double v)
{
	if (!(v < (double)UINT32_MAX))
		return UINT32_MAX;
	return v < 0.0 ? 0 : (uint32_t)v;
}

int cm_rate_cap(const struct cm_link *l, double share, uint32_t *pps)
{
	int err = cm_link_check(l);
	uint32_t cap;

	if (err)
		return err;
	if (!positive(share) || share > 1.0)
		return -EINVAL;
	cap = clamp_u32(floor(share * l->bandwidth / l->page_bytes));
	/* above its maximum the module would refuse the arm's whole policy */
	if (cap > CM_RATE_CAP_MAX)
		cap = CM_RATE_CAP_MAX;
	/* 0 would switch the module's cap off: the opposite of what we want */
	*pps = cap ? cap : 1;
	return 0;
}

/* the rate difference above which the heuristic promotes */
static int heuristic_edge(const struct cm_link *l, double threshold,
			  double *edge)
{
	int err = cm_link_check(l);

	if (err)
		return err;
	if (!nonnegative(threshold))
		return -EINVAL;
	*edge = threshold / (l->bandwidth * dlat_s(l));
	return 0;
}

int cm_heuristic_promote(const struct cm_link *l, double rate_p, double rate_d,
			 double threshold, bool *promote)
{
	double edge;
	int err = heuristic_edge(l, threshold, &edge);

	if (err)
		return err;
	if (!nonnegative(rate_p) || !nonnegative(rate_d))
		return -EINVAL;
	/*
	 * (rate_p - rate_d) * bandwidth * d_lat > threshold, divided through
	 * as cm_heuristic_rate_min_mhz() does, so that both round alike.
	 */
	*promote = rate_p - rate_d > edge;
	return 0;
}

int cm_heuristic_rate_min_mhz(const struct cm_link *l, double rate_d,
			      double threshold, uint32_t *rate_min_mhz)
{
	double edge, mhz;
	int err = heuristic_edge(l, threshold, &edge);

	if (err)
		return err;
	if (!nonnegative(rate_d))
		return -EINVAL;
	mhz = floor((rate_d + edge) * 1000.0);
	*rate_min_mhz = mhz >= (double)UINT32_MAX ? UINT32_MAX :
			clamp_u32(mhz) + 1;
	return 0;
}

int cm_heuristic_threshold(const struct cm_link *l, double dt_s,
			   double *threshold)
{
	double r;
	int err = cm_breakeven_rate(l, dt_s, &r);

	if (err)
		return err;
	*threshold = r * l->bandwidth * dlat_s(l);
	return 0;
}
