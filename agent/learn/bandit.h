/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Online contextual bandits with disjoint linear arms: LinUCB, linear
 * Thompson sampling and epsilon-greedy (the baseline). One learner holds
 * K arms over d features; each arm keeps the ridge statistics
 *
 *	A = lambda I + sum x x^T,	b = sum r x,	theta_hat = A^-1 b,
 *
 * or, with a forgetting factor f < 1, the same sums with an arm's j-th most
 * recent update weighted f^(j-1) (its prior lambda I is not discounted).
 *
 * All randomness comes from a xoshiro256** generator seeded from
 * params.seed and held in the learner (normals by the ziggurat method), so
 * a run is reproducible and a saved learner continues exactly where it
 * stopped.
 *
 * Functions return 0 or a negative errno; nothing is printed. A learner is
 * not thread-safe: one caller at a time.
 */
#ifndef INDIGO_BANDIT_H
#define INDIGO_BANDIT_H

#include <stdint.h>
#include <stdio.h>

#define BANDIT_DMAX	64	/* = LA_DMAX */
#define BANDIT_KMAX	1024

struct bandit;

enum bandit_kind {
	BANDIT_LINUCB = 1,
	BANDIT_THOMPSON = 2,
	BANDIT_EGREEDY = 3,
};

/*
 * lambda	ridge, > 0: every A starts as lambda I
 * alpha	LinUCB: width of the confidence bonus, >= 0
 * v		Thompson: posterior scale, theta ~ N(theta_hat, v^2 A^-1), >= 0
 * epsilon	epsilon-greedy: explore with this probability, in [0, 1]
 * seed		of the learner's generator
 * rebuild_every  recompute an arm's inverse or factor from A after this
 *		many of its updates, against drift; 0: never
 * prop_samples	Thompson: M, the extra draws behind a propensity, >= 1
 * forget	weight an arm's statistics keep at each of its own updates,
 *		in (0, 1]; 1: never forget. Below 1 an arm's estimate follows
 *		its recent rewards, so rewards of a passing phase (a tier
 *		filling up) stop ruling it, and its confidence width stays
 *		open; every update then refactors A (O(d^3)).
 */
struct bandit_params {
	double lambda;
	double alpha;
	double v;
	double epsilon;
	uint64_t seed;
	unsigned int rebuild_every;
	unsigned int prop_samples;
	double forget;
};

/*
 * lambda 1, alpha 1, v 0.5, epsilon 0.1, seed 1, rebuild 1000, M 32,
 * forget 1.
 * alpha and v are in units of the reward: scale them with its noise.
 * Linear Thompson sampling wants v well above the noise level; at v near
 * it, it can sit on a wrong arm for thousands of rounds.
 */
void bandit_params_default(struct bandit_params *p);

/*
 * A learner of @kind for @d features (1..BANDIT_DMAX) and @K arms
 * (1..BANDIT_KMAX); @p NULL means the defaults. -EINVAL on a bad argument,
 * -ENOMEM. *@b is set only on success.
 */
int bandit_new(struct bandit **b, enum bandit_kind kind, unsigned int d,
	       unsigned int K, const struct bandit_params *p);
void bandit_free(struct bandit *b);

/*
 * Contexts are d finite values with |x| <= 1e100, rewards finite with
 * |r| |x| <= 1e100 (so the running sums cannot overflow); -EINVAL if not.
 *
 * Pick an arm for context @x. @propensity, if not NULL,
 * receives the probability with which the learner's own randomisation
 * picks this arm given @x and its state, for off-policy evaluation:
 *   LinUCB      1 (deterministic argmax; ties go to the lowest index);
 *   epsilon     1 - eps + eps/K for the greedy arm, eps/K for any other;
 *   Thompson    estimated: M more posterior draws are made and the share
 *               won by the chosen arm is returned, floored at 1/(M+1) so
 *               importance weights stay bounded by M+1. This costs M*K
 *               normal draws; pass NULL on a hot path that does not log.
 * Whether @propensity is asked for changes the generator's stream, not
 * the arm chosen by this call.
 */
int bandit_choose(struct bandit *b, const double *x, unsigned int *arm,
		  double *propensity);

/*
 * Learn reward @r of @arm for context @x. -EINVAL on bad input,
 * with nothing changed. -EDOM if A stopped being numerically positive
 * definite, which needs contexts near the overflow range: A and b keep the
 * update, the arm's inverse or factor and theta_hat may be stale until the
 * next successful rebuild.
 */
int bandit_update(struct bandit *b, const double *x, unsigned int arm,
		  double r);

/*
 * Thompson only: draw one full theta ~ N(theta_hat, v^2 A^-1) for @arm as
 * theta_hat + v R^-1 z, z ~ N(0, I), with A = R^T R. bandit_choose does not
 * need the vector (see bandit.c), but callers that want it can have it.
 */
int bandit_sample_theta(struct bandit *b, unsigned int arm, double *theta);

/* Shape and parameters. */
enum bandit_kind bandit_kind(const struct bandit *b);
unsigned int bandit_dim(const struct bandit *b);
unsigned int bandit_arms(const struct bandit *b);
void bandit_get_params(const struct bandit *b, struct bandit_params *p);

/*
 * Takes @p's tuning (alpha, v, epsilon, rebuild_every, prop_samples,
 * forget) from the next decision or update on; keeps its own lambda, which
 * its statistics' prior holds, and its random state: for a learner loaded
 * from a snapshot that should go on as its owner is configured to. The
 * history already learnt is weighed no differently. -EINVAL if @p is not
 * valid, and then nothing changes.
 */
int bandit_set_tuning(struct bandit *b, const struct bandit_params *p);

/*
 * Copies of one arm's state for tests and diagnostics (d*d row-major or d
 * values); -EINVAL for a bad arm. bandit_arm_ainv gives the maintained
 * inverse for LinUCB/epsilon-greedy; Thompson keeps none, so there it is
 * computed from the factor. bandit_arm_chol gives the factor R (A = R^T R)
 * that Thompson maintains, and a fresh factorisation of A otherwise.
 */
int bandit_arm_a(const struct bandit *b, unsigned int arm, double *a);
int bandit_arm_ainv(const struct bandit *b, unsigned int arm, double *ainv);
int bandit_arm_chol(const struct bandit *b, unsigned int arm, double *r);
int bandit_arm_theta(const struct bandit *b, unsigned int arm, double *theta);
int bandit_arm_updates(const struct bandit *b, unsigned int arm, uint64_t *n);

/*
 * Exact snapshot: parameters, generator state and every arm's statistics
 * bit for bit (format in bandit.c). A record is self-delimiting, so a
 * stream may carry several. save: -EIO on a write error. load: -EINVAL on
 * any corruption, truncation or inconsistent dimensions, -EIO on a read
 * error, -ENOMEM; nothing is allocated unless it returns 0.
 */
int bandit_save(const struct bandit *b, FILE *f);
int bandit_load(struct bandit **b, FILE *f);

#endif /* INDIGO_BANDIT_H */
