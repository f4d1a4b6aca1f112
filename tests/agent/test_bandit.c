// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the online contextual bandits (agent/learn/bandit.c):
 * argument checks, drift control of the maintained inverse and factor,
 * regret on a synthetic linear bandit, forgetting, propensities, and
 * snapshots.
 *
 * Every random draw comes from fixed seeds, so every number here is the
 * same on every run; statistical checks use 4-5 standard errors of margin
 * around exactly computed expectations.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bandit.h"
#include "linalg.h"
#include "trng.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const enum bandit_kind kinds[] = {
	BANDIT_LINUCB, BANDIT_THOMPSON, BANDIT_EGREEDY,
};

/*
 * Check logs every passing ck_assert (a write to its message file), which
 * in loops of 10^4-10^5 rounds costs more than the code under test, most of
 * all under valgrind. Hot loops therefore count failures and assert once.
 */

static struct bandit *mk(enum bandit_kind kind, unsigned int d, unsigned int K,
			 const struct bandit_params *p)
{
	struct bandit *b = NULL;

	ck_assert_int_eq(bandit_new(&b, kind, d, K, p), 0);
	ck_assert_ptr_nonnull(b);
	return b;
}

static double max_rel_diff(const double *x, const double *y, unsigned int n)
{
	double e = 0, m = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		e = fmax(e, fabs(x[i] - y[i]));
		m = fmax(m, fabs(y[i]));
	}
	return e / m;
}

/* ---- arguments */

START_TEST(new_rejects_bad_shape)
{
	struct bandit *b = NULL;

	ck_assert_int_eq(bandit_new(&b, BANDIT_LINUCB, 0, 4, NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, BANDIT_LINUCB, 4, 0, NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, BANDIT_LINUCB, BANDIT_DMAX + 1, 4,
				    NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, BANDIT_THOMPSON, 65, 4, NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, BANDIT_EGREEDY, 4, BANDIT_KMAX + 1,
				    NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, 0, 4, 4, NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(&b, 4, 4, 4, NULL), -EINVAL);
	ck_assert_int_eq(bandit_new(NULL, BANDIT_LINUCB, 4, 4, NULL), -EINVAL);
	ck_assert_ptr_null(b);
	/* the limits themselves are fine */
	ck_assert_int_eq(bandit_new(&b, BANDIT_LINUCB, BANDIT_DMAX, 1, NULL),
			 0);
	bandit_free(b);
	b = NULL;
	ck_assert_int_eq(bandit_new(&b, BANDIT_EGREEDY, 1, BANDIT_KMAX, NULL),
			 0);
	bandit_free(b);
	bandit_free(NULL);
}
END_TEST

START_TEST(new_rejects_bad_params)
{
	struct bandit_params p[14];
	struct bandit *b = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		bandit_params_default(&p[i]);
	p[0].lambda = 0;
	p[1].lambda = -1;
	p[2].lambda = NAN;
	p[3].alpha = -0.5;
	p[4].alpha = NAN;
	p[5].v = INFINITY;
	p[6].v = -1;
	p[7].epsilon = 1.5;
	p[8].epsilon = NAN;
	p[9].prop_samples = 0;
	p[10].forget = 0;
	p[11].forget = -0.5;
	p[12].forget = 1.5;
	p[13].forget = NAN;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		ck_assert_int_eq(bandit_new(&b, BANDIT_THOMPSON, 3, 3, &p[i]),
				 -EINVAL);
		ck_assert_ptr_null(b);
	}
}
END_TEST

START_TEST(choose_update_reject_bad_input)
{
	const double ok[3] = { 0.1, 0.2, 0.3 };
	const double has_nan[3] = { 0.1, NAN, 0.3 };
	const double has_inf[3] = { INFINITY, 0, 0 };
	const double huge[3] = { 1e200, 1e200, 0 };	/* |x|^2 overflows */
	double a0[9], a1[9], th0[3], th1[3], theta[3];
	unsigned int k, arm;
	double prop;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct bandit *b = mk(kinds[k], 3, 4, NULL);

		ck_assert_int_eq(bandit_update(b, ok, 1, 1.0), 0);
		ck_assert_int_eq(bandit_arm_a(b, 1, a0), 0);
		ck_assert_int_eq(bandit_arm_theta(b, 1, th0), 0);

		ck_assert_int_eq(bandit_choose(b, has_nan, &arm, &prop),
				 -EINVAL);
		ck_assert_int_eq(bandit_choose(b, has_inf, &arm, &prop),
				 -EINVAL);
		ck_assert_int_eq(bandit_choose(b, huge, &arm, &prop), -EINVAL);
		ck_assert_int_eq(bandit_choose(b, NULL, &arm, &prop), -EINVAL);
		ck_assert_int_eq(bandit_choose(b, ok, NULL, &prop), -EINVAL);
		ck_assert_int_eq(bandit_choose(NULL, ok, &arm, &prop), -EINVAL);

		ck_assert_int_eq(bandit_update(b, ok, 4, 1.0), -EINVAL);
		ck_assert_int_eq(bandit_update(b, ok, 1000, 1.0), -EINVAL);
		ck_assert_int_eq(bandit_update(b, ok, 1, NAN), -EINVAL);
		ck_assert_int_eq(bandit_update(b, ok, 1, INFINITY), -EINVAL);
		ck_assert_int_eq(bandit_update(b, ok, 1, 1e308), -EINVAL);
		ck_assert_int_eq(bandit_update(b, has_nan, 1, 1.0), -EINVAL);
		ck_assert_int_eq(bandit_update(b, has_inf, 1, 1.0), -EINVAL);
		ck_assert_int_eq(bandit_update(b, NULL, 1, 1.0), -EINVAL);
		ck_assert_int_eq(bandit_update(NULL, ok, 1, 1.0), -EINVAL);

		/* nothing moved */
		ck_assert_int_eq(bandit_arm_a(b, 1, a1), 0);
		ck_assert_int_eq(bandit_arm_theta(b, 1, th1), 0);
		ck_assert_mem_eq(a0, a1, sizeof(a0));
		ck_assert_mem_eq(th0, th1, sizeof(th0));

		ck_assert_int_eq(bandit_arm_a(b, 4, a1), -EINVAL);
		ck_assert_int_eq(bandit_arm_ainv(b, 4, a1), -EINVAL);
		ck_assert_int_eq(bandit_arm_chol(b, 4, a1), -EINVAL);
		ck_assert_int_eq(bandit_arm_theta(b, 4, th1), -EINVAL);
		ck_assert_int_eq(bandit_arm_a(b, 0, NULL), -EINVAL);
		if (kinds[k] != BANDIT_THOMPSON)
			ck_assert_int_eq(bandit_sample_theta(b, 0, theta),
					 -EINVAL);
		else
			ck_assert_int_eq(bandit_sample_theta(b, 4, theta),
					 -EINVAL);
		bandit_free(b);
	}
}
END_TEST

/* ---- drift control */

#define DRIFT_D		16
#define DRIFT_N		10000
#define DRIFT_EVERY	1000

/*
 * Feed DRIFT_N bounded contexts to arm 0 and check, at every multiple of
 * DRIFT_EVERY and half-way between, that the maintained matrix agrees with
 * one computed from A directly. Where a rebuild has just happened it must
 * agree bit for bit; that can only hold if the rebuild ran, as the
 * companion test with rebuilds off shows.
 */
static void drift_run(enum bandit_kind kind, unsigned int every,
		      double *worst_rel, double *worst_theta, int *exact)
{
	static double a[DRIFT_D * DRIFT_D], m[DRIFT_D * DRIFT_D];
	static double ref[DRIFT_D * DRIFT_D], r[DRIFT_D * DRIFT_D];
	double x[DRIFT_D], bv[DRIFT_D] = { 0 }, th[DRIFT_D], y[DRIFT_D];
	double th_ref[DRIFT_D], rd[DRIFT_D];
	struct bandit_params p;
	struct trng g = { 2024 };
	struct bandit *b;
	unsigned int i, n, bad = 0;
	uint64_t cnt;

	bandit_params_default(&p);
	p.rebuild_every = every;
	b = mk(kind, DRIFT_D, 2, &p);
	*worst_rel = *worst_theta = 0;
	*exact = 1;
	for (n = 1; n <= DRIFT_N; n++) {
		double rew = trng_normal(&g);

		rand_vec(&g, x, DRIFT_D);
		for (i = 0; i < DRIFT_D; i++)
			bv[i] += rew * x[i];
		bad += bandit_update(b, x, 0, rew) != 0;
		if (n % (DRIFT_EVERY / 2))
			continue;
		ck_assert_int_eq(bandit_arm_a(b, 0, a), 0);
		ck_assert_int_eq(la_chol(a, r, DRIFT_D), 0);
		if (kind == BANDIT_THOMPSON) {
			ck_assert_int_eq(bandit_arm_chol(b, 0, m), 0);
			memcpy(ref, r, sizeof(r));
		} else {
			ck_assert_int_eq(bandit_arm_ainv(b, 0, m), 0);
			ck_assert_int_eq(la_chol_inverse(r, ref, DRIFT_D), 0);
		}
		*worst_rel = fmax(*worst_rel,
				  max_rel_diff(m, ref, DRIFT_D * DRIFT_D));
		if (n % DRIFT_EVERY == 0 && memcmp(m, ref, sizeof(m)))
			*exact = 0;
		/* theta_hat = A^-1 b with b summed here independently */
		la_pivot_reciprocals(r, rd, DRIFT_D);
		la_solve_rt_rd(r, rd, bv, y, DRIFT_D);
		la_solve_r_rd(r, rd, y, th_ref, DRIFT_D);
		ck_assert_int_eq(bandit_arm_theta(b, 0, th), 0);
		*worst_theta = fmax(*worst_theta,
				    max_rel_diff(th, th_ref, DRIFT_D));
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(bandit_arm_updates(b, 0, &cnt), 0);
	ck_assert_uint_eq(cnt, DRIFT_N);
	ck_assert_int_eq(bandit_arm_updates(b, 1, &cnt), 0);
	ck_assert_uint_eq(cnt, 0);
	bandit_free(b);
}

START_TEST(linucb_inverse_tracks_a_without_rebuild)
{
	double rel, th;
	int exact;

	drift_run(BANDIT_LINUCB, 0, &rel, &th, &exact);
	printf("LinUCB A^-1 by Sherman-Morrison alone, %d updates: max rel "
	       "error %.2g, theta %.2g\n", DRIFT_N, rel, th);
	ck_assert_double_le(rel, 1e-9);
	ck_assert_double_le(th, 1e-9);
	/* Sherman-Morrison alone is not bit-exact: the check below can fail */
	ck_assert_int_eq(exact, 0);
}
END_TEST

START_TEST(linucb_rebuild_restores_exact_inverse)
{
	double rel, th;
	int exact;

	drift_run(BANDIT_LINUCB, DRIFT_EVERY, &rel, &th, &exact);
	ck_assert_double_le(rel, 1e-9);
	ck_assert_double_le(th, 1e-9);
	ck_assert_int_eq(exact, 1);
}
END_TEST

START_TEST(thompson_factor_tracks_a)
{
	double rel, th;
	int exact;

	drift_run(BANDIT_THOMPSON, 0, &rel, &th, &exact);
	ck_assert_double_le(rel, 1e-9);
	ck_assert_double_le(th, 1e-9);
	ck_assert_int_eq(exact, 0);
	drift_run(BANDIT_THOMPSON, DRIFT_EVERY, &rel, &th, &exact);
	ck_assert_double_le(rel, 1e-9);
	ck_assert_double_le(th, 1e-9);
	ck_assert_int_eq(exact, 1);
}
END_TEST

/* ---- regret on a synthetic linear bandit */

#define ENV_D		8
#define ENV_K		10
#define ENV_T		20000
#define ENV_NOISE	0.1

struct env {
	double theta[ENV_K][ENV_D];
	struct trng g;
};

static void env_init(struct env *e, uint64_t seed)
{
	unsigned int k, i;

	e->g.s = seed;
	for (k = 0; k < ENV_K; k++)
		for (i = 0; i < ENV_D; i++)
			e->theta[k][i] = trng_normal(&e->g);
}

/* a uniformly random direction */
static void env_context(struct env *e, double *x)
{
	double n;
	unsigned int i;

	for (i = 0; i < ENV_D; i++)
		x[i] = trng_normal(&e->g);
	n = sqrt(la_dot(x, x, ENV_D));
	for (i = 0; i < ENV_D; i++)
		x[i] /= n;
}

/* Cumulative pseudo-regret after each quarter of the run. */
static void regret_run(enum bandit_kind kind, const struct bandit_params *p,
		       double q[4])
{
	struct bandit *b = mk(kind, ENV_D, ENV_K, p);
	double x[ENV_D], best, mean, reg = 0;
	struct env e;
	unsigned int t, k, arm, bad = 0;

	env_init(&e, 99);
	for (t = 1; t <= ENV_T; t++) {
		env_context(&e, x);
		arm = ENV_K;
		bad += bandit_choose(b, x, &arm, NULL) != 0;
		if (arm >= ENV_K)
			break;
		best = -INFINITY;
		for (k = 0; k < ENV_K; k++)
			best = fmax(best, la_dot(e.theta[k], x, ENV_D));
		mean = la_dot(e.theta[arm], x, ENV_D);
		reg += best - mean;
		bad += bandit_update(b, x, arm, mean +
				     ENV_NOISE * trng_normal(&e.g)) != 0;
		if (t % (ENV_T / 4) == 0)
			q[t / (ENV_T / 4) - 1] = reg;
	}
	ck_assert_uint_lt(arm, ENV_K);
	ck_assert_uint_eq(bad, 0);
	bandit_free(b);
}

START_TEST(regret_sublinear_and_beats_egreedy)
{
	struct bandit_params p;
	double ucb[4], ts[4], eg[4];

	bandit_params_default(&p);
	p.seed = 3;
	p.alpha = 0.5;
	regret_run(BANDIT_LINUCB, &p, ucb);
	/*
	 * v well above the noise (0.1): smaller v explores too little on
	 * some seeds and can sit for thousands of rounds on a wrong arm
	 */
	p.v = 0.5;
	regret_run(BANDIT_THOMPSON, &p, ts);
	p.epsilon = 0.1;
	regret_run(BANDIT_EGREEDY, &p, eg);
	printf("regret at T/4 T/2 3T/4 T: linucb %.1f %.1f %.1f %.1f; "
	       "thompson %.1f %.1f %.1f %.1f; egreedy %.1f %.1f %.1f %.1f\n",
	       ucb[0], ucb[1], ucb[2], ucb[3], ts[0], ts[1], ts[2], ts[3],
	       eg[0], eg[1], eg[2], eg[3]);

	/* sublinear: the second half adds far less than the first */
	ck_assert_double_lt(ucb[3] - ucb[1], 0.6 * ucb[1]);
	ck_assert_double_lt(ts[3] - ts[1], 0.6 * ts[1]);
	/* and the last quarter less than the first */
	ck_assert_double_lt(ucb[3] - ucb[2], 0.5 * ucb[0]);
	ck_assert_double_lt(ts[3] - ts[2], 0.5 * ts[0]);
	/* epsilon-greedy explores forever: its regret keeps growing linearly */
	ck_assert_double_gt(eg[3] - eg[1], 0.6 * eg[1]);
	/* both well below the baseline */
	ck_assert_double_lt(ucb[3], 0.5 * eg[3]);
	ck_assert_double_lt(ts[3], 0.5 * eg[3]);
}
END_TEST

/* ---- propensities */

/* ---- forgetting */

/*
 * One feature, x = 1, lambda 1: after rewards 4 then 2, an arm holds
 * A = 1 + f + 1 and b = 4 f + 2, whatever the kind.
 */
START_TEST(forget_weights_recent_updates)
{
	static const double fs[] = { 1, 0.5, 0.25 };
	struct bandit_params p;
	const double x = 1;
	unsigned int k, i;

	bandit_params_default(&p);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		for (i = 0; i < ARRAY_SIZE(fs); i++) {
			double f = fs[i], a, t;
			struct bandit *b;

			p.forget = f;
			b = mk(kinds[k], 1, 2, &p);
			ck_assert_int_eq(bandit_update(b, &x, 1, 4), 0);
			ck_assert_int_eq(bandit_update(b, &x, 1, 2), 0);
			ck_assert_int_eq(bandit_arm_a(b, 1, &a), 0);
			ck_assert_int_eq(bandit_arm_theta(b, 1, &t), 0);
			ck_assert_double_eq_tol(a, 2 + f, 1e-12);
			ck_assert_double_eq_tol(t, (4 * f + 2) / (2 + f), 1e-12);
			/* the arm not taught keeps its prior */
			ck_assert_int_eq(bandit_arm_a(b, 0, &a), 0);
			ck_assert_double_eq(a, 1);
			bandit_free(b);
		}
	}
}
END_TEST

/*
 * Arm 0 pays 1 for 200 rounds and 0 after; arm 1 always 0.5 and, never
 * tried before the change, scores LinUCB's bonus alone (0.1). LinUCB that
 * forgets (0.8) leaves arm 0 once 0.8^k of its mean is below that, a dozen
 * rounds after the change; one that does not keeps choosing it while
 * 200 / (201 + k) is above it, for some 1,900 rounds.
 * Returns the rounds after the change until arm 1 is chosen, 401 if it is
 * not within 400.
 */
static unsigned int rounds_to_leave(double forget)
{
	struct bandit_params p;
	struct bandit *b;
	const double x = 1;
	unsigned int t, arm;

	bandit_params_default(&p);
	p.alpha = 0.1;
	p.forget = forget;
	b = mk(BANDIT_LINUCB, 1, 2, &p);
	for (t = 0; t < 600; t++) {
		ck_assert_int_eq(bandit_choose(b, &x, &arm, NULL), 0);
		if (t >= 200 && arm == 1)
			break;
		ck_assert_int_eq(bandit_update(b, &x, arm,
					       arm ? 0.5 : t < 200), 0);
	}
	bandit_free(b);
	return t - 199;
}

START_TEST(forget_follows_a_change)
{
	unsigned int quick = rounds_to_leave(0.8), slow = rounds_to_leave(1);

	ck_assert_uint_ge(quick, 1);
	ck_assert_uint_le(quick, 20);
	ck_assert_uint_eq(slow, 401);
}
END_TEST

START_TEST(set_tuning_applies_from_the_next_update)
{
	struct bandit_params p, q;
	struct bandit *b;
	const double x = 1;
	double a;

	bandit_params_default(&p);
	p.lambda = 2;
	b = mk(BANDIT_LINUCB, 1, 1, &p);
	ck_assert_int_eq(bandit_update(b, &x, 0, 1), 0);
	ck_assert_int_eq(bandit_arm_a(b, 0, &a), 0);
	ck_assert_double_eq(a, 3);
	bandit_params_default(&q);
	q.forget = 0;
	ck_assert_int_eq(bandit_set_tuning(b, &q), -EINVAL);
	q.forget = 1.01;
	ck_assert_int_eq(bandit_set_tuning(b, &q), -EINVAL);
	q.forget = NAN;
	ck_assert_int_eq(bandit_set_tuning(b, &q), -EINVAL);
	q.forget = 0.5;
	q.alpha = -1;
	ck_assert_int_eq(bandit_set_tuning(b, &q), -EINVAL);
	ck_assert_int_eq(bandit_set_tuning(NULL, &q), -EINVAL);
	ck_assert_int_eq(bandit_set_tuning(b, NULL), -EINVAL);
	bandit_get_params(b, &p);
	ck_assert(p.forget == 1 && p.alpha == 1);	/* nothing changed */

	q.alpha = 3;
	q.lambda = 7;		/* the prior in A: kept */
	q.seed = 99;		/* the random state: kept */
	ck_assert_int_eq(bandit_set_tuning(b, &q), 0);
	bandit_get_params(b, &p);
	ck_assert(p.forget == 0.5 && p.alpha == 3);
	ck_assert(p.lambda == 2 && p.seed == 1);
	ck_assert_int_eq(bandit_update(b, &x, 0, 1), 0);
	ck_assert_int_eq(bandit_arm_a(b, 0, &a), 0);
	ck_assert_double_eq_tol(a, 0.5 * 3 + 0.5 * 2 + 1, 1e-12);
	bandit_free(b);
}
END_TEST

START_TEST(linucb_propensity_is_one)
{
	struct bandit *b = mk(BANDIT_LINUCB, 4, 5, NULL);
	struct trng g = { 8 };
	double x[4], prop;
	unsigned int t, arm, bad = 0, not_one = 0;

	for (t = 0; t < 2000; t++) {
		rand_vec(&g, x, 4);
		prop = -1;
		bad += bandit_choose(b, x, &arm, &prop) != 0;
		not_one += prop != 1.0;
		bad += bandit_update(b, x, arm, x[arm % 4]) != 0;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(not_one, 0);
	bandit_free(b);
}
END_TEST

START_TEST(linucb_ties_go_to_lowest_index)
{
	struct bandit *b = mk(BANDIT_LINUCB, 2, 6, NULL);
	const double x[2] = { 0.5, -0.5 };
	unsigned int arm = 99;

	/* a fresh learner scores every arm the same */
	ck_assert_int_eq(bandit_choose(b, x, &arm, NULL), 0);
	ck_assert_uint_eq(arm, 0);
	/* arm 0 is now better known, hence a smaller bonus: arm 1 next */
	ck_assert_int_eq(bandit_update(b, x, 0, 0), 0);
	ck_assert_int_eq(bandit_choose(b, x, &arm, NULL), 0);
	ck_assert_uint_eq(arm, 1);
	bandit_free(b);
}
END_TEST

/* The greedy arm as the learner sees it, from its theta_hat. */
static unsigned int greedy_of(const struct bandit *b, const double *x)
{
	unsigned int d = bandit_dim(b), k, best = 0;
	double th[BANDIT_DMAX], s, bs = -INFINITY;

	for (k = 0; k < bandit_arms(b); k++) {
		if (bandit_arm_theta(b, k, th))
			return bandit_arms(b);
		s = la_dot(th, x, d);
		if (s > bs) {
			bs = s;
			best = k;
		}
	}
	return best;
}

START_TEST(egreedy_propensity_matches_eps)
{
	const unsigned int K = 8, N = 20000;
	const double eps = 0.2;
	const double p_hi = 1 - eps + eps / K, p_lo = eps / K;
	struct bandit_params p;
	struct bandit *b;
	struct trng g = { 13 };
	double x[3], prop, freq, se;
	unsigned int t, arm, g_arm, hits = 0, bad = 0;
	unsigned int wrong_hi = 0, wrong_lo = 0;

	bandit_params_default(&p);
	p.epsilon = eps;
	b = mk(BANDIT_EGREEDY, 3, K, &p);
	/* teach it distinct arms so the greedy arm varies with x */
	for (t = 0; t < 400; t++) {
		rand_vec(&g, x, 3);
		bad += bandit_update(b, x, t % K,
				     x[t % 3] * (double)(t % K)) != 0;
	}
	for (t = 0; t < N; t++) {
		rand_vec(&g, x, 3);
		g_arm = greedy_of(b, x);
		bad += bandit_choose(b, x, &arm, &prop) != 0;
		if (arm == g_arm) {
			wrong_hi += prop != p_hi;
			hits++;
		} else {
			wrong_lo += prop != p_lo;
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(wrong_hi, 0);
	ck_assert_uint_eq(wrong_lo, 0);
	ck_assert_uint_gt(N - hits, 0);
	/* and the stated probability is what actually happens */
	freq = (double)hits / N;
	se = sqrt(p_hi * (1 - p_hi) / N);
	ck_assert_double_le(fabs(freq - p_hi), 5 * se);
	bandit_free(b);
}
END_TEST

/* E[max(c/M, 1/(M+1))], c ~ Binomial(M, q): what the estimator returns */
static double floored_mean(unsigned int M, double q)
{
	double s = 0, pc;
	unsigned int c;

	for (c = 0; c <= M; c++) {
		pc = exp(lgamma(M + 1.0) - lgamma(c + 1.0) -
			 lgamma(M - c + 1.0)) * pow(q, c) * pow(1 - q, M - c);
		s += pc * fmax((double)c / M, 1.0 / (M + 1));
	}
	return s;
}

START_TEST(thompson_propensity_symmetric_arms)
{
	const unsigned int K = 10, N = 4000, M = 32;
	struct bandit *b = mk(BANDIT_THOMPSON, 3, K, NULL);
	const double x[3] = { 0.3, -0.4, 0.5 };
	double prop, sum = 0, sumsq = 0, mean, sd, want;
	unsigned int t, arm, count[10] = { 0 }, bad = 0, out = 0;

	/* untrained: every arm has the same posterior, so P(win) = 1/K */
	for (t = 0; t < N; t++) {
		bad += bandit_choose(b, x, &arm, &prop) != 0;
		out += !(prop >= 1.0 / (M + 1) && prop <= 1.0);
		sum += prop;
		sumsq += prop * prop;
		count[arm % K]++;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(out, 0);
	mean = sum / N;
	sd = sqrt(sumsq / N - mean * mean);
	want = floored_mean(M, 1.0 / K);
	ck_assert_double_le(fabs(mean - want), 5 * sd / sqrt(N));
	/* not the default LinUCB-like 1, nor the floor */
	ck_assert_double_lt(mean, 0.2);
	for (t = 0; t < K; t++)
		ck_assert_double_le(fabs(count[t] - (double)N / K),
				    5 * sqrt(N * 0.1 * 0.9));
	bandit_free(b);
}
END_TEST

/*
 * Two trained arms: the chosen-arm frequency must match the closed form
 * P(s0 > s1) = Phi((mu0 - mu1) / sqrt(sd0^2 + sd1^2)) that the posterior
 * implies, and the reported propensity must average what the M-sample
 * estimator gives for that probability.
 */
START_TEST(thompson_choice_matches_posterior)
{
	const unsigned int N = 20000, M = 32;
	struct bandit_params p;
	struct bandit *b;
	struct trng g = { 17 };
	const double x[2] = { 0.6, 0.8 };
	double ainv[4], th[2], mu[2], sd[2], z, p0, freq, xi[2];
	double prop, psum = 0, psq = 0, pm, psd;
	unsigned int t, k, arm, n0 = 0, bad = 0, out = 0;

	bandit_params_default(&p);
	p.v = 1;
	b = mk(BANDIT_THOMPSON, 2, 2, &p);
	for (t = 0; t < 12; t++) {
		rand_vec(&g, xi, 2);
		ck_assert_int_eq(bandit_update(b, xi, t % 2,
					       t % 2 ? 0.35 : 0.2), 0);
	}
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(bandit_arm_ainv(b, k, ainv), 0);
		ck_assert_int_eq(bandit_arm_theta(b, k, th), 0);
		mu[k] = la_dot(th, x, 2);
		sd[k] = p.v * sqrt(la_quad(ainv, x, 2));
	}
	z = (mu[0] - mu[1]) / sqrt(sd[0] * sd[0] + sd[1] * sd[1]);
	p0 = 0.5 * erfc(-z / sqrt(2));
	/* a case where both arms are live, so the test has teeth */
	ck_assert_double_gt(p0, 0.1);
	ck_assert_double_lt(p0, 0.9);
	for (t = 0; t < N; t++) {
		bad += bandit_choose(b, x, &arm, &prop) != 0;
		out += !(prop >= 1.0 / (M + 1) && prop <= 1.0);
		if (arm)
			continue;
		n0++;
		psum += prop;
		psq += prop * prop;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(out, 0);
	freq = (double)n0 / N;
	ck_assert_double_le(fabs(freq - p0), 4.5 * sqrt(p0 * (1 - p0) / N));
	pm = psum / n0;
	psd = sqrt(psq / n0 - pm * pm);
	ck_assert_double_le(fabs(pm - floored_mean(M, p0)), 5 * psd / sqrt(n0));
	bandit_free(b);
}
END_TEST

START_TEST(thompson_theta_samples_match_posterior)
{
	const unsigned int N = 20000, d = 3;
	struct bandit_params p;
	struct bandit *b;
	struct trng g = { 21 };
	double ainv[9], th[3], s[3], mean[3] = { 0 }, cov[9] = { 0 }, xi[3];
	unsigned int t, i, j, bad = 0;

	bandit_params_default(&p);
	p.v = 0.5;
	b = mk(BANDIT_THOMPSON, d, 1, &p);
	for (t = 0; t < 5; t++) {
		rand_vec(&g, xi, d);
		ck_assert_int_eq(bandit_update(b, xi, 0, xi[0] - xi[2]), 0);
	}
	ck_assert_int_eq(bandit_arm_ainv(b, 0, ainv), 0);
	ck_assert_int_eq(bandit_arm_theta(b, 0, th), 0);
	for (t = 0; t < N; t++) {
		bad += bandit_sample_theta(b, 0, s) != 0;
		for (i = 0; i < d; i++) {
			mean[i] += s[i] - th[i];
			for (j = 0; j < d; j++)
				cov[i * d + j] +=
					(s[i] - th[i]) * (s[j] - th[j]);
		}
	}
	ck_assert_uint_eq(bad, 0);
	for (i = 0; i < d; i++) {
		double var = p.v * p.v * ainv[i * d + i];

		ck_assert_double_le(fabs(mean[i] / N), 5 * sqrt(var / N));
		for (j = 0; j < d; j++) {
			double want = p.v * p.v * ainv[i * d + j];
			double vj = p.v * p.v * ainv[j * d + j];
			double se = sqrt((var * vj + want * want) / N);

			ck_assert_double_le(fabs(cov[i * d + j] / N - want),
					    5 * se);
		}
	}
	bandit_free(b);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The generator's normals themselves: a fresh one-feature Thompson arm
 * with lambda = v = 1 has theta_hat = 0 and R = 1, so its theta samples
 * are the raw N(0, 1) draws. Moments, tail shares (the last one is the
 * ziggurat's separate tail beyond 3.654) and Kolmogorov-Smirnov. A million
 * draws, because a ziggurat that gets its wedges wrong is off by only
 * about 10 % in P(|z| > 3), which takes that many to see.
 */
START_TEST(normals_are_standard)
{
	const unsigned int N = 1000000;
	static const double cut[] = { 1, 2, 3, 3.6541528853610088 };
	struct bandit_params p;
	struct bandit *b;
	double *z, m = 0, v = 0, dks = 0;
	unsigned int i, c, bad = 0, over[4] = { 0 };

	bandit_params_default(&p);
	p.v = 1;
	b = mk(BANDIT_THOMPSON, 1, 1, &p);
	z = malloc(sizeof(*z) * N);
	ck_assert_ptr_nonnull(z);
	for (i = 0; i < N; i++) {
		bad += bandit_sample_theta(b, 0, &z[i]) != 0;
		m += z[i];
		v += z[i] * z[i];
		for (c = 0; c < 4; c++)
			over[c] += fabs(z[i]) > cut[c];
	}
	ck_assert_uint_eq(bad, 0);
	m /= N;
	v = v / N - m * m;
	ck_assert_double_le(fabs(m), 5 / sqrt(N));
	ck_assert_double_le(fabs(v - 1), 5 * sqrt(2.0 / N));
	for (c = 0; c < 4; c++) {
		double q = erfc(cut[c] / sqrt(2));	/* P(|z| > cut) */

		ck_assert_double_le(fabs((double)over[c] / N - q),
				    5 * sqrt(q * (1 - q) / N));
	}
	ck_assert_uint_gt(over[3], 0);	/* the tail branch did run */
	qsort(z, N, sizeof(*z), cmp_double);
	for (i = 0; i < N; i++) {
		double F = 0.5 * erfc(-z[i] / sqrt(2));

		dks = fmax(dks, fmax(F - (double)i / N,
				     (double)(i + 1) / N - F));
	}
	/* 1.95 / sqrt(N) is the 0.1 % critical value */
	ck_assert_double_lt(dks, 1.95 / sqrt(N));
	free(z);
	bandit_free(b);
}
END_TEST

START_TEST(same_seed_same_run)
{
	struct bandit_params p;
	struct bandit *b1, *b2, *b3;
	struct trng g = { 31 };
	double x[4], p1, p2, p3;
	unsigned int t, a1, a2, a3, differ = 0, bad = 0, same = 0;

	bandit_params_default(&p);
	p.seed = 77;
	b1 = mk(BANDIT_THOMPSON, 4, 6, &p);
	b2 = mk(BANDIT_THOMPSON, 4, 6, &p);
	p.seed = 78;
	b3 = mk(BANDIT_THOMPSON, 4, 6, &p);
	for (t = 0; t < 500; t++) {
		rand_vec(&g, x, 4);
		bad += bandit_choose(b1, x, &a1, &p1) != 0;
		bad += bandit_choose(b2, x, &a2, &p2) != 0;
		bad += bandit_choose(b3, x, &a3, &p3) != 0;
		same += a1 == a2 && p1 == p2;
		differ += a1 != a3;
		bad += bandit_update(b1, x, a1, x[0]) != 0;
		bad += bandit_update(b2, x, a2, x[0]) != 0;
		bad += bandit_update(b3, x, a3, x[0]) != 0;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(same, 500);
	ck_assert_uint_gt(differ, 0);
	bandit_free(b1);
	bandit_free(b2);
	bandit_free(b3);
}
END_TEST

/* ---- snapshots */

/* The whole snapshot of @b in a malloc'ed buffer the caller frees. */
static unsigned char *save_buf(const struct bandit *b, size_t *n)
{
	FILE *f = tmpfile();
	unsigned char *buf;
	long len;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(bandit_save(b, f), 0);
	len = ftell(f);
	ck_assert_int_gt(len, 0);
	buf = malloc((size_t)len);
	ck_assert_ptr_nonnull(buf);
	rewind(f);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static int load_buf(const unsigned char *buf, size_t n, struct bandit **b)
{
	FILE *f = tmpfile();
	int err;

	ck_assert_ptr_nonnull(f);
	if (n)
		ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
	rewind(f);
	err = bandit_load(b, f);
	fclose(f);
	return err;
}

/* An independent CRC-32 (IEEE, reflected, bit at a time). */
static uint32_t crc32_ref(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffU;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320U & -(c & 1));
	}
	return ~c;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Layout facts from bandit.c's format comment, checked independently. */
#define H_LEN		124
#define H_CRC		120
#define H_LEN_V1	116
#define H_CRC_V1	112

static void fix_header_crc(unsigned char *buf)
{
	put32(buf + H_CRC, crc32_ref(buf, H_CRC));
}

static void train(struct bandit *b, struct trng *g, unsigned int rounds)
{
	unsigned int d = bandit_dim(b), t, arm;
	double x[BANDIT_DMAX];

	for (t = 0; t < rounds; t++) {
		rand_vec(g, x, d);
		ck_assert_int_eq(bandit_choose(b, x, &arm, NULL), 0);
		ck_assert_int_eq(bandit_update(b, x, arm,
					       x[0] - 0.5 * x[d - 1] +
					       0.1 * arm), 0);
	}
}

START_TEST(crc_is_ieee)
{
	ck_assert_uint_eq(crc32_ref((const unsigned char *)"123456789", 9),
			  0xcbf43926U);
}
END_TEST

START_TEST(save_load_round_trip)
{
	struct bandit_params p, q;
	unsigned int k;

	bandit_params_default(&p);
	p.seed = 5;
	p.rebuild_every = 64;	/* so rebuilds happen on both sides */
	p.forget = 0.75;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct bandit *b = mk(kinds[k], 5, 7, &p), *c = NULL;
		struct trng g = { 40 + k }, g2;
		unsigned char *buf, *buf2;
		double x[5], pb, pc, mb[25], mc[25];
		unsigned int t, ab, ac, arm;
		size_t n, n2;

		train(b, &g, 300);
		/* use the generator so its state is not the seed's any more */
		if (kinds[k] == BANDIT_THOMPSON) {
			ck_assert_int_eq(bandit_sample_theta(b, 0, x), 0);
			rand_vec(&g, x, 5);
			ck_assert_int_eq(bandit_choose(b, x, &arm, &pb), 0);
		}
		buf = save_buf(b, &n);
		ck_assert_uint_eq(get32(buf + H_CRC), crc32_ref(buf, H_CRC));
		ck_assert_int_eq(load_buf(buf, n, &c), 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(bandit_kind(c), kinds[k]);
		ck_assert_uint_eq(bandit_dim(c), 5);
		ck_assert_uint_eq(bandit_arms(c), 7);
		bandit_get_params(c, &q);
		ck_assert_mem_eq(&p, &q, sizeof(p));
		/* saving the loaded copy gives the same bytes */
		buf2 = save_buf(c, &n2);
		ck_assert_uint_eq(n, n2);
		ck_assert_mem_eq(buf, buf2, n);
		free(buf2);
		free(buf);
		/* and both go on to make the same choices */
		g2 = g;
		for (t = 0; t < 300; t++) {
			rand_vec(&g2, x, 5);
			ck_assert_int_eq(bandit_choose(b, x, &ab, &pb), 0);
			ck_assert_int_eq(bandit_choose(c, x, &ac, &pc), 0);
			ck_assert_uint_eq(ab, ac);
			ck_assert_double_eq(pb, pc);
			ck_assert_int_eq(bandit_update(b, x, ab, x[1]), 0);
			ck_assert_int_eq(bandit_update(c, x, ac, x[1]), 0);
		}
		for (t = 0; t < 7; t++) {
			ck_assert_int_eq(bandit_arm_ainv(b, t, mb), 0);
			ck_assert_int_eq(bandit_arm_ainv(c, t, mc), 0);
			ck_assert_mem_eq(mb, mc, sizeof(mb));
		}
		bandit_free(b);
		bandit_free(c);
	}
}
END_TEST

/* A small saved Thompson learner, the subject of the corruption tests. */
static unsigned char *small_snapshot(size_t *n)
{
	struct bandit *b = mk(BANDIT_THOMPSON, 3, 2, NULL);
	struct trng g = { 50 };
	unsigned char *buf;

	train(b, &g, 20);
	buf = save_buf(b, n);
	bandit_free(b);
	/* 124 header + 2 arms * (8 + 8 * (2*9 + 2*3)) + 4 */
	ck_assert_uint_eq(*n, H_LEN + 2 * (8 + 8 * 24) + 4);
	return buf;
}

static void expect_einval(const unsigned char *buf, size_t n)
{
	struct bandit *c = NULL;

	ck_assert_int_eq(load_buf(buf, n, &c), -EINVAL);
	ck_assert_ptr_null(c);
}

START_TEST(load_rejects_any_flipped_byte)
{
	unsigned char *buf, *bad;
	struct bandit *c = NULL;
	size_t n, i;
	int bit;

	buf = small_snapshot(&n);
	bad = malloc(n);
	ck_assert_ptr_nonnull(bad);
	/* the pristine copy loads: the failures below are the corruption's */
	ck_assert_int_eq(load_buf(buf, n, &c), 0);
	bandit_free(c);
	for (i = 0; i < n; i++) {
		for (bit = 0; bit < 8; bit += 7) {
			memcpy(bad, buf, n);
			bad[i] ^= 1u << bit;
			expect_einval(bad, n);
		}
	}
	free(bad);
	free(buf);
}
END_TEST

START_TEST(load_rejects_truncation)
{
	unsigned char *buf;
	size_t n, len;

	buf = small_snapshot(&n);
	for (len = 0; len < n; len++)
		expect_einval(buf, len);
	free(buf);
}
END_TEST

/*
 * Header fields changed with the header CRC recomputed, so only the
 * field's own check stands between the damage and a load.
 */
START_TEST(load_rejects_bad_header_fields)
{
	unsigned char *buf, *bad;
	struct bandit *c = NULL;
	size_t n;
	unsigned int i;
	static const struct {
		unsigned int off;
		uint32_t val;
	} cases[] = {
		{ 8, 3 },		/* version */
		{ 8, 0 },
		{ 12, 0 },		/* kind */
		{ 12, 4 },
		{ 16, 0 },		/* d */
		{ 16, 4 },
		{ 16, 2 },
		{ 16, BANDIT_DMAX + 1 },
		{ 20, 0 },		/* K */
		{ 20, 3 },
		{ 20, 1 },
		{ 20, BANDIT_KMAX + 1 },
		{ 68, 0 },		/* prop_samples */
		{ 104, 1 },		/* payload bytes, low word */
		{ 108, 1 },		/* payload bytes, high word */
		{ 116, 0 },		/* forget: 0.0 */
		{ 116, 0xbff00000 },	/* -1.0 */
		{ 116, 0x40000000 },	/* 2.0 */
		{ 116, 0x7ff80000 },	/* NaN */
	};

	buf = small_snapshot(&n);
	bad = malloc(n);
	ck_assert_ptr_nonnull(bad);
	/* recomputing the CRC of an unchanged header changes nothing */
	memcpy(bad, buf, n);
	fix_header_crc(bad);
	ck_assert_mem_eq(bad, buf, n);
	ck_assert_int_eq(load_buf(bad, n, &c), 0);
	bandit_free(c);

	/* wrong magic: one letter off, and a foreign file type */
	memcpy(bad, buf, n);
	bad[3] = 'X';
	fix_header_crc(bad);
	expect_einval(bad, n);
	memcpy(bad, buf, n);
	memcpy(bad, "\x89PNG\r\n\x1a\n", 8);
	fix_header_crc(bad);
	expect_einval(bad, n);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(bad, buf, n);
		put32(bad + cases[i].off, cases[i].val);
		fix_header_crc(bad);
		expect_einval(bad, n);
	}
	free(bad);
	free(buf);
}
END_TEST

/*
 * Payload damage that the payload CRC does not see because it was
 * recomputed too: non-finite values and a non-positive diagonal.
 */
START_TEST(load_rejects_bad_payload_values)
{
	unsigned char *buf, *bad;
	struct bandit *c = NULL;
	size_t n, pay = H_LEN, plen;
	const uint64_t nan_bits = 0x7ff8000000000000ULL;
	const uint64_t neg_one = 0xbff0000000000000ULL;	/* -1.0 */
	unsigned int i;
	static const unsigned int offs[] = {
		8,		/* A[0][0] of arm 0 */
		8 + 8 * 4,	/* A[1][1] */
		8 + 8 * 9,	/* R[0][0] */
		8 + 8 * 18,	/* b[0] */
		8 + 8 * 21,	/* theta[0] */
	};

	buf = small_snapshot(&n);
	plen = n - H_LEN - 4;
	bad = malloc(n);
	ck_assert_ptr_nonnull(bad);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		int j;

		memcpy(bad, buf, n);
		for (j = 0; j < 8; j++)
			bad[pay + offs[i] + j] =
				(unsigned char)(nan_bits >> (8 * j));
		put32(bad + n - 4, crc32_ref(bad + pay, plen));
		expect_einval(bad, n);
	}
	/* a negative pivot (A and b entries may be anything finite) */
	for (i = 0; i < 3; i++) {
		int j;

		memcpy(bad, buf, n);
		for (j = 0; j < 8; j++)
			bad[pay + offs[i] + j] =
				(unsigned char)(neg_one >> (8 * j));
		put32(bad + n - 4, crc32_ref(bad + pay, plen));
		expect_einval(bad, n);
	}
	/* control: the payload CRC is recomputed as the loader checks it */
	memcpy(bad, buf, n);
	put32(bad + n - 4, crc32_ref(bad + pay, plen));
	ck_assert_mem_eq(bad, buf, n);
	ck_assert_int_eq(load_buf(bad, n, &c), 0);
	bandit_free(c);
	free(bad);
	free(buf);
}
END_TEST

/*
 * A version 1 snapshot (no forget: a 116-byte header, its CRC at 112),
 * made from a version 2 one of a learner that never forgets, loads as
 * that learner, and saves again as the version 2 original.
 */
START_TEST(load_reads_version_1)
{
	unsigned char *buf, *v1, *again;
	struct bandit *c = NULL;
	struct bandit_params q;
	size_t n, n1, n2;

	buf = small_snapshot(&n);
	n1 = n - (H_LEN - H_LEN_V1);
	v1 = malloc(n1);
	ck_assert_ptr_nonnull(v1);
	memcpy(v1, buf, H_CRC_V1);
	memcpy(v1 + H_LEN_V1, buf + H_LEN, n - H_LEN);
	put32(v1 + 8, 1);
	put32(v1 + H_CRC_V1, crc32_ref(v1, H_CRC_V1));
	ck_assert_int_eq(load_buf(v1, n1, &c), 0);
	bandit_get_params(c, &q);
	ck_assert(q.forget == 1);
	again = save_buf(c, &n2);
	ck_assert_uint_eq(n2, n);
	ck_assert_mem_eq(again, buf, n);
	bandit_free(c);
	/* and it is checked as strictly: a flipped header byte fails */
	v1[30] ^= 1;
	expect_einval(v1, n1);
	free(again);
	free(v1);
	free(buf);
}
END_TEST

START_TEST(save_load_reject_bad_args)
{
	struct bandit *b = mk(BANDIT_LINUCB, 2, 2, NULL), *c = NULL;
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(bandit_save(NULL, f), -EINVAL);
	ck_assert_int_eq(bandit_save(b, NULL), -EINVAL);
	ck_assert_int_eq(bandit_load(NULL, f), -EINVAL);
	ck_assert_int_eq(bandit_load(&c, NULL), -EINVAL);
	/* an empty file is a truncated one */
	ck_assert_int_eq(bandit_load(&c, f), -EINVAL);
	ck_assert_ptr_null(c);
	fclose(f);
	bandit_free(b);
}
END_TEST

/* Two records back to back: each load takes exactly its own. */
START_TEST(records_are_self_delimiting)
{
	struct bandit *b1 = mk(BANDIT_LINUCB, 2, 3, NULL);
	struct bandit *b2 = mk(BANDIT_EGREEDY, 4, 2, NULL);
	struct bandit *c1 = NULL, *c2 = NULL, *c3 = NULL;
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(bandit_save(b1, f), 0);
	ck_assert_int_eq(bandit_save(b2, f), 0);
	rewind(f);
	ck_assert_int_eq(bandit_load(&c1, f), 0);
	ck_assert_int_eq(bandit_load(&c2, f), 0);
	ck_assert_int_eq(bandit_load(&c3, f), -EINVAL);
	ck_assert_uint_eq(bandit_dim(c1), 2);
	ck_assert_uint_eq(bandit_dim(c2), 4);
	ck_assert_int_eq(bandit_kind(c2), BANDIT_EGREEDY);
	fclose(f);
	bandit_free(b1);
	bandit_free(b2);
	bandit_free(c1);
	bandit_free(c2);
}
END_TEST

static Suite *bandit_suite(void)
{
	Suite *s = suite_create("bandit");
	TCase *args = tcase_create("arguments");
	TCase *drift = tcase_create("drift");
	TCase *regret = tcase_create("regret");
	TCase *forget = tcase_create("forget");
	TCase *prop = tcase_create("propensity");
	TCase *snap = tcase_create("snapshot");

	tcase_add_test(args, new_rejects_bad_shape);
	tcase_add_test(args, new_rejects_bad_params);
	tcase_add_test(args, choose_update_reject_bad_input);
	suite_add_tcase(s, args);

	tcase_set_timeout(drift, 60);
	tcase_add_test(drift, linucb_inverse_tracks_a_without_rebuild);
	tcase_add_test(drift, linucb_rebuild_restores_exact_inverse);
	tcase_add_test(drift, thompson_factor_tracks_a);
	suite_add_tcase(s, drift);

	tcase_set_timeout(regret, 120);
	tcase_add_test(regret, regret_sublinear_and_beats_egreedy);
	suite_add_tcase(s, regret);

	tcase_add_test(forget, forget_weights_recent_updates);
	tcase_add_test(forget, forget_follows_a_change);
	tcase_add_test(forget, set_tuning_applies_from_the_next_update);
	suite_add_tcase(s, forget);

	tcase_set_timeout(prop, 60);
	tcase_add_test(prop, linucb_propensity_is_one);
	tcase_add_test(prop, linucb_ties_go_to_lowest_index);
	tcase_add_test(prop, egreedy_propensity_matches_eps);
	tcase_add_test(prop, thompson_propensity_symmetric_arms);
	tcase_add_test(prop, thompson_choice_matches_posterior);
	tcase_add_test(prop, thompson_theta_samples_match_posterior);
	tcase_add_test(prop, normals_are_standard);
	tcase_add_test(prop, same_seed_same_run);
	suite_add_tcase(s, prop);

	tcase_set_timeout(snap, 60);
	tcase_add_test(snap, crc_is_ieee);
	tcase_add_test(snap, save_load_round_trip);
	tcase_add_test(snap, load_rejects_any_flipped_byte);
	tcase_add_test(snap, load_rejects_truncation);
	tcase_add_test(snap, load_rejects_bad_header_fields);
	tcase_add_test(snap, load_rejects_bad_payload_values);
	tcase_add_test(snap, load_reads_version_1);
	tcase_add_test(snap, save_load_reject_bad_args);
	tcase_add_test(snap, records_are_self_delimiting);
	suite_add_tcase(s, snap);
	return s;
}

int main(void)
{
	return unit_run(bandit_suite());
}
