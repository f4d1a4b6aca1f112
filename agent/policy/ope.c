// SPDX-License-Identifier: GPL-2.0
/*
 * Off-policy evaluation: IPS, self-normalised IPS and doubly robust. See
 * ope.h. One pass over the samples each; the callbacks are called once per
 * sample (DR: once per sample and action), never twice for the same input.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "ope.h"

#define PI_SUM_TOL 1e-6

/* Running mean and variance (Welford): stable for long logs. */
struct moments {
	size_t n;
	double mean, m2;
};

static void moments_add(struct moments *m, double v)
{
	double delta = v - m->mean;

	m->n++;
	m->mean += delta / (double)m->n;
	m->m2 += delta * (v - m->mean);
}

/* Standard error of the mean; 0 with fewer than two values. */
static double moments_se(const struct moments *m)
{
	if (m->n < 2)
		return 0.0;
	return sqrt(m->m2 / (double)(m->n - 1) / (double)m->n);
}

/* Sums for the effective sample size of the weights. */
struct wsum {
	double w, w2;
};

static void wsum_add(struct wsum *ws, double w)
{
	ws->w += w;
	ws->w2 += w * w;
}

static double wsum_ess(const struct wsum *ws)
{
	return ws->w2 > 0.0 ? ws->w * ws->w / ws->w2 : 0.0;
}

/*
 * Finite inputs can still overflow: a propensity of 1e-310, which (0, 1]
 * admits, makes a weight infinite, and the estimate NaN. Writes @r to
 * @out only when every figure is finite.
 */
static int result(const struct ope_result *r, struct ope_result *out)
{
	if (!isfinite(r->value) || !isfinite(r->se) || !isfinite(r->ess))
		return -ERANGE;
	*out = *r;
	return 0;
}

static bool sample_ok(const struct ope_sample *s)
{
	return isfinite(s->propensity) && s->propensity > 0.0 &&
	       s->propensity <= 1.0 && isfinite(s->reward);
}

static bool prob_ok(double p)
{
	return isfinite(p) && p >= 0.0 && p <= 1.0;
}

static bool args_ok(const struct ope_sample *s, size_t n,
		    const struct ope_policy *pi, struct ope_result *out)
{
	return s && n && pi && pi->prob && out;
}

/* w = pi(a | x) / p for sample @s; false if either is unusable. */
static bool weight(const struct ope_sample *s, const struct ope_policy *pi,
		   double *w)
{
	double p;

	if (!sample_ok(s))
		return false;
	p = pi->prob(pi->user, s->x, s->d, s->action);
	if (!prob_ok(p))
		return false;
	*w = p / s->propensity;
	return true;
}

int ope_ips(const struct ope_sample *s, size_t n, const struct ope_policy *pi,
	    struct ope_result *out)
{
	struct moments m = { 0 };
	struct wsum ws = { 0 };
	struct ope_result r;
	size_t i;
	double w;

	if (!args_ok(s, n, pi, out))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!weight(&s[i], pi, &w))
			return -EINVAL;
		moments_add(&m, w * s[i].reward);
		wsum_add(&ws, w);
	}
	r.value = m.mean;
	r.se = moments_se(&m);
	r.ess = wsum_ess(&ws);
	r.n = n;
	return result(&r, out);
}

int ope_snips(const struct ope_sample *s, size_t n, const struct ope_policy *pi,
	      struct ope_result *out)
{
	double swr = 0.0, sw2r = 0.0, sw2r2 = 0.0, w, v, var;
	struct wsum ws = { 0 };
	struct ope_result res;
	size_t i;

	if (!args_ok(s, n, pi, out))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		double r = s[i].reward;

		if (!weight(&s[i], pi, &w))
			return -EINVAL;
		wsum_add(&ws, w);
		swr += w * r;
		sw2r += w * w * r;
		sw2r2 += w * w * r * r;
	}
	if (!(ws.w > 0.0))
		return -EDOM;
	v = swr / ws.w;
	/*
	 * Delta method: Var ~ sum w_i^2 (r_i - v)^2 / (sum w)^2, expanded so
	 * that the callbacks run once per sample; rounding can take the
	 * expansion a hair below 0.
	 */
	var = sw2r2 - 2.0 * v * sw2r + v * v * ws.w2;
	res.value = v;
	res.se = var > 0.0 ? sqrt(var) / ws.w : 0.0;
	res.ess = wsum_ess(&ws);
	res.n = n;
	return result(&res, out);
}

/* What DR needs from the callbacks for one sample. */
struct dr_parts {
	double dm;		/* sum_a pi(a | x) rhat(x, a) */
	double p_logged;	/* pi(a_i | x) */
	double rhat_logged;	/* rhat(x, a_i) */
};

/* Calls pi and rhat once per action, checking that pi sums to 1. */
static int dr_parts(const struct ope_sample *s, unsigned int nactions,
		    const struct ope_policy *pi, const struct ope_model *m,
		    struct dr_parts *dp)
{
	double psum = 0.0, sum = 0.0;
	unsigned int a;

	for (a = 0; a < nactions; a++) {
		double p = pi->prob(pi->user, s->x, s->d, a);
		double r = m->predict(m->user, s->x, s->d, a);

		if (!prob_ok(p) || !isfinite(r))
			return -EINVAL;
		psum += p;
		sum += p * r;
		if (a == s->action) {
			dp->p_logged = p;
			dp->rhat_logged = r;
		}
	}
	if (fabs(psum - 1.0) > PI_SUM_TOL)
		return -EINVAL;
	dp->dm = sum;
	return 0;
}

int ope_dr(const struct ope_sample *s, size_t n, unsigned int nactions,
	   const struct ope_policy *pi, const struct ope_model *m,
	   struct ope_result *out)
{
	struct moments mo = { 0 };
	struct wsum ws = { 0 };
	struct dr_parts dp = { 0 };
	struct ope_result r;
	size_t i;
	double w;

	if (!args_ok(s, n, pi, out) || !nactions || !m || !m->predict)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!sample_ok(&s[i]) || s[i].action >= nactions ||
		    dr_parts(&s[i], nactions, pi, m, &dp))
			return -EINVAL;
		w = dp.p_logged / s[i].propensity;
		moments_add(&mo, dp.dm + w * (s[i].reward - dp.rhat_logged));
		wsum_add(&ws, w);
	}
	r.value = mo.mean;
	r.se = moments_se(&mo);
	r.ess = wsum_ess(&ws);
	r.n = n;
	return result(&r, out);
}

int ope_fit_action_means(const struct ope_sample *s, size_t n,
			 unsigned int nactions, double *mean)
{
	double all = 0.0;
	unsigned int a;
	size_t i;

	if (!s || !n || !nactions || !mean)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!sample_ok(&s[i]) || s[i].action >= nactions)
			return -EINVAL;
	for (i = 0; i < n; i++)
		all += (s[i].reward - all) / (double)(i + 1);
	/*
	 * A pass per action: no allocation, and nactions is small. Not a NaN
	 * for "never logged": a mean that overflowed is NaN too, and would
	 * pass for the overall mean.
	 */
	for (a = 0; a < nactions; a++) {
		struct moments m = { 0 };

		for (i = 0; i < n; i++)
			if (s[i].action == a)
				moments_add(&m, s[i].reward);
		mean[a] = m.n ? m.mean : all;
	}
	/* rewards near DBL_MAX of both signs overflow the running means */
	for (a = 0; a < nactions; a++)
		if (!isfinite(mean[a]))
			return -ERANGE;
	return 0;
}

double ope_action_mean_predict(void *user, const double *x, size_t d,
			       unsigned int a)
{
	const double *mean = user;

	(void)x;
	(void)d;
	return mean[a];
}
