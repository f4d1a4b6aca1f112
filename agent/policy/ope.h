/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-policy evaluation: what reward would a target policy pi have earned,
 * judged from a log of decisions another (logging) policy took, each with
 * the probability (propensity) it had of taking its action.
 *
 * With w_i = pi(a_i | x_i) / p_i for logged (x_i, a_i, p_i, r_i), i < n:
 *
 *	IPS	(1/n) sum w_i r_i
 *		unbiased if every p_i is right and p > 0 wherever pi > 0
 *	SNIPS	sum w_i r_i / sum w_i
 *		slightly biased, much less variance when weights are large
 *	DR	(1/n) sum [ sum_a pi(a | x_i) rhat(x_i, a)
 *			    + w_i (r_i - rhat(x_i, a_i)) ]
 *		unbiased if either the propensities or the reward model rhat
 *		are right; low variance when rhat is good
 *
 * Each also reports a standard error (of the mean of its per-record terms;
 * for SNIPS the delta-method approximation) and the effective sample size
 * of the weights, (sum w)^2 / sum w^2: far below n means the log says
 * little about pi.
 *
 * Nothing here depends on the log format: the caller hands in samples
 * (from dlog.h records, or synthetic ones). Returns 0 or a negative errno;
 * nothing prints, nothing allocates.
 */
#ifndef INDIGO_OPE_H
#define INDIGO_OPE_H

#include <stddef.h>

struct ope_sample {
	const double *x;	/* context, d features (not copied) */
	size_t d;
	unsigned int action;	/* the logged action */
	double propensity;	/* logging policy's P(action | x), (0, 1] */
	double reward;
};

/* Target policy: pi(a | x), in [0, 1], summing to 1 over the actions. */
struct ope_policy {
	double (*prob)(void *user, const double *x, size_t d, unsigned int a);
	void *user;
};

/* Reward model: rhat(x, a), the expected reward of action a in context x. */
struct ope_model {
	double (*predict)(void *user, const double *x, size_t d,
			  unsigned int a);
	void *user;
};

struct ope_result {
	double value;		/* estimated mean reward per decision of pi */
	double se;		/* its standard error */
	double ess;		/* effective sample size, 0..n */
	size_t n;		/* records used */
};

/*
 * -EINVAL: n == 0, a propensity outside (0, 1] or not finite, a reward not
 * finite, pi or rhat returning something not finite (or pi outside [0, 1]).
 * -ERANGE: the estimate overflowed (a weight pi/p or a reward so large that
 * value, se or ess is not finite); @out is then untouched.
 */
int ope_ips(const struct ope_sample *s, size_t n, const struct ope_policy *pi,
	    struct ope_result *out);

/* As ope_ips(); -EDOM when every weight is 0 (pi never agrees with the log). */
int ope_snips(const struct ope_sample *s, size_t n, const struct ope_policy *pi,
	      struct ope_result *out);

/*
 * Doubly robust over actions 0..nactions-1. Also -EINVAL for a logged
 * action >= nactions, or pi(. | x) not summing to 1 (within 1e-6).
 */
int ope_dr(const struct ope_sample *s, size_t n, unsigned int nactions,
	   const struct ope_policy *pi, const struct ope_model *m,
	   struct ope_result *out);

/*
 * The simplest reward model: each action's mean logged reward (the overall
 * mean for an action never logged), into @mean[nactions]. -EINVAL as above,
 * -ERANGE when a mean overflowed.
 * Use it with ope_action_mean_predict and user = @mean.
 */
int ope_fit_action_means(const struct ope_sample *s, size_t n,
			 unsigned int nactions, double *mean);

double ope_action_mean_predict(void *user, const double *x, size_t d,
			       unsigned int a);

#endif /* INDIGO_OPE_H */
