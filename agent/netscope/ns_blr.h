/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Online Bayesian linear regression y = k + c x with unknown noise variance
 * (normal-inverse-gamma prior: flat on k, zero mean on c), kept as discounted
 * sufficient statistics so that old evidence fades at rate 1 - forget.
 * The posterior of the slope c is a Student t; ns_blr_slope() gives its
 * mean and central credible interval.
 */
#ifndef INDIGO_NS_BLR_H
#define INDIGO_NS_BLR_H

struct ns_blr {
	double lambda;			/* prior precision of c */
	double a0, b0;			/* inverse-gamma prior of the noise */
	double forget;			/* weight kept per update, (0, 1] */
	double n, sx, sy, sxx, sxy, syy;
};

struct ns_slope {
	double mean, lo, hi;		/* posterior mean, 95 % interval */
	double n;			/* effective samples */
};

void ns_blr_init(struct ns_blr *r, double lambda, double forget);
void ns_blr_add(struct ns_blr *r, double x, double y);
/* 0, or -EDOM while the data cannot tell a slope (fewer than 3 samples,
 * or x never varied): then *s is the prior's (0 in an infinite interval). */
int ns_blr_slope(const struct ns_blr *r, struct ns_slope *s);
/* The 0.975 quantile of Student's t with @dof degrees of freedom. */
double ns_t975(double dof);

#endif /* INDIGO_NS_BLR_H */
