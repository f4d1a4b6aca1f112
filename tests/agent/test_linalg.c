// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the learners' dense linear algebra (agent/learn/linalg.c).
 *
 * Tolerances are relative to the scale of what is compared (see
 * max_rel_diff), because the inverses here shrink like 1/n as updates
 * accumulate and an absolute bound would pass whatever the code did.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linalg.h"
#include "trng.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define D	16
#define N_SM	10000

/* A = B B^T + d I: symmetric positive definite, condition number modest */
static void rand_spd(struct trng *g, double *a, unsigned int d)
{
	double *bm = malloc(sizeof(*bm) * d * d);
	unsigned int i, j, k;

	ck_assert_ptr_nonnull(bm);
	rand_vec(g, bm, d * d);
	for (i = 0; i < d; i++) {
		for (j = 0; j < d; j++) {
			double s = i == j ? d : 0;

			for (k = 0; k < d; k++)
				s += bm[i * d + k] * bm[j * d + k];
			a[i * d + j] = s;
		}
	}
	free(bm);
}

static double max_abs(const double *m, unsigned int n)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s = fmax(s, fabs(m[i]));
	return s;
}

/* max |x - y| / max |y|: the error in units of the reference's own scale */
static double max_rel_diff(const double *x, const double *y, unsigned int n)
{
	double e = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		e = fmax(e, fabs(x[i] - y[i]));
	return e / max_abs(y, n);
}

/* max |A X - I|: scale-free, zero exactly when X = A^-1 */
static double inverse_residual(const double *a, const double *x, unsigned int d)
{
	double e = 0;
	unsigned int i, j, k;

	for (i = 0; i < d; i++) {
		for (j = 0; j < d; j++) {
			double s = 0;

			for (k = 0; k < d; k++)
				s += a[i * d + k] * x[k * d + j];
			e = fmax(e, fabs(s - (i == j)));
		}
	}
	return e;
}

static void transpose_mul(const double *r, double *out, unsigned int d)
{
	unsigned int i, j, k;

	for (i = 0; i < d; i++) {
		for (j = 0; j < d; j++) {
			double s = 0;

			for (k = 0; k < d; k++)
				s += r[k * d + i] * r[k * d + j];
			out[i * d + j] = s;
		}
	}
}

static int is_symmetric(const double *m, unsigned int d)
{
	unsigned int i, j;

	for (i = 0; i < d; i++)
		for (j = 0; j < i; j++)
			if (m[i * d + j] != m[j * d + i])
				return 0;
	return 1;
}

/* Direct inverse of A through Cholesky, the reference for Sherman-Morrison */
static void direct_inverse(const double *a, double *inv, unsigned int d)
{
	double r[LA_DMAX * LA_DMAX];

	ck_assert_int_eq(la_chol(a, r, d), 0);
	ck_assert_int_eq(la_chol_inverse(r, inv, d), 0);
}

START_TEST(sm_tracks_direct_inverse)
{
	static double a[D * D], ainv[D * D], ref[D * D];
	struct trng g = { 42 };
	double x[D], worst = 0, worst_res = 0;
	int n, bad = 0;

	la_eye(a, D, 1);
	la_eye(ainv, D, 1);
	for (n = 1; n <= N_SM; n++) {
		rand_vec(&g, x, D);
		la_syr(a, x, D);
		/* Check logs every passing assertion: count in the hot loop */
		bad += la_sherman_morrison(ainv, x, D) != 0;
		if (n % 1000)
			continue;
		direct_inverse(a, ref, D);
		worst = fmax(worst, max_rel_diff(ainv, ref, D * D));
		worst_res = fmax(worst_res, inverse_residual(a, ainv, D));
		ck_assert(is_symmetric(ainv, D));
	}
	printf("Sherman-Morrison after %d updates, d = %d: max |E| / max |A^-1| "
	       "= %.2g, max |A X - I| = %.2g\n", N_SM, D, worst, worst_res);
	ck_assert_int_eq(bad, 0);
	ck_assert_double_le(worst, 1e-9);
	ck_assert_double_le(worst_res, 1e-9);
	/* the inverse really is small: an absolute 1e-9 would prove nothing */
	ck_assert_double_lt(max_abs(ref, D * D), 1e-2);
}
END_TEST

START_TEST(sm_first_step_exact)
{
	/* A = I, x = (1, 1): (I + x x^T)^-1 = I - x x^T / 3 */
	double ainv[4] = { 1, 0, 0, 1 }, x[2] = { 1, 1 };
	const double want[4] = { 2.0 / 3, -1.0 / 3, -1.0 / 3, 2.0 / 3 };
	int i;

	ck_assert_int_eq(la_sherman_morrison(ainv, x, 2), 0);
	for (i = 0; i < 4; i++)
		ck_assert_double_eq_tol(ainv[i], want[i], 1e-15);
}
END_TEST

START_TEST(sm_rejects_bad_denominator)
{
	/* -I is not a valid inverse: 1 + x^T (-I) x = 0 for a unit x */
	double ainv[4] = { -1, 0, 0, -1 }, x[2] = { 1, 0 };
	const double keep[4] = { -1, 0, 0, -1 };
	double nan_x[2] = { NAN, 0 };

	ck_assert_int_eq(la_sherman_morrison(ainv, x, 2), -EDOM);
	ck_assert_mem_eq(ainv, keep, sizeof(keep));
	ck_assert_int_eq(la_sherman_morrison(ainv, nan_x, 2), -EDOM);
	ck_assert_mem_eq(ainv, keep, sizeof(keep));
	ck_assert_int_eq(la_sherman_morrison(ainv, x, 0), -EINVAL);
	ck_assert_int_eq(la_sherman_morrison(ainv, x, LA_DMAX + 1), -EINVAL);
}
END_TEST

START_TEST(chol_known_factor)
{
	/* the textbook example: L = [2 0 0; 6 1 0; -8 5 3] */
	const double a[9] = { 4, 12, -16, 12, 37, -43, -16, -43, 98 };
	const double r_want[9] = { 2, 6, -8, 0, 1, 5, 0, 0, 3 };
	double r[9];
	int i;

	ck_assert_int_eq(la_chol(a, r, 3), 0);
	for (i = 0; i < 9; i++)
		ck_assert_double_eq_tol(r[i], r_want[i], 1e-14);
}
END_TEST

START_TEST(chol_round_trip)
{
	static const unsigned int dims[] = { 1, 2, 3, 7, 16, 33, 64 };
	static double a[LA_DMAX * LA_DMAX], r[LA_DMAX * LA_DMAX];
	static double back[LA_DMAX * LA_DMAX];
	struct trng g = { 7 };
	unsigned int t, i, j;

	for (t = 0; t < ARRAY_SIZE(dims); t++) {
		unsigned int d = dims[t];

		rand_spd(&g, a, d);
		ck_assert_int_eq(la_chol(a, r, d), 0);
		for (i = 0; i < d; i++) {
			ck_assert_double_gt(r[i * d + i], 0);
			for (j = 0; j < i; j++)
				ck_assert_double_eq(r[i * d + j], 0);
		}
		transpose_mul(r, back, d);
		ck_assert_double_le(max_rel_diff(back, a, d * d), 1e-13);
		/* in place gives the same factor */
		memcpy(back, a, sizeof(*a) * d * d);
		ck_assert_int_eq(la_chol(back, back, d), 0);
		ck_assert_mem_eq(back, r, sizeof(*r) * d * d);
	}
}
END_TEST

START_TEST(chol_not_pd)
{
	const double indef[4] = { 1, 2, 2, 1 };		/* eigenvalues 3, -1 */
	const double zero[4] = { 0, 0, 0, 0 };
	const double neg[4] = { -1, 0, 0, 1 };
	const double semi[9] = { 1, 1, 0, 1, 1, 0, 0, 0, 1 };	/* singular */
	const double ones[4] = { 1, 1, 1, 1 };	/* last pivot exactly 0 */
	const double has_nan[4] = { 1, 0, 0, NAN };
	const double has_inf[4] = { INFINITY, 0, 0, 1 };
	double r[9];

	ck_assert_int_eq(la_chol(indef, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(zero, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(neg, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(semi, r, 3), -EDOM);
	ck_assert_int_eq(la_chol(ones, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(has_nan, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(has_inf, r, 2), -EDOM);
	ck_assert_int_eq(la_chol(indef, r, 0), -EINVAL);
	ck_assert_int_eq(la_chol(indef, r, LA_DMAX + 1), -EINVAL);
}
END_TEST

START_TEST(chol_update_matches_refactor)
{
	static const unsigned int dims[] = { 1, 2, 5, 16, 64 };
	static double a[LA_DMAX * LA_DMAX], r[LA_DMAX * LA_DMAX];
	static double ref[LA_DMAX * LA_DMAX];
	struct trng g = { 11 };
	double x[LA_DMAX], worst = 0;
	unsigned int t, n, i, j, bad = 0;

	for (t = 0; t < ARRAY_SIZE(dims); t++) {
		unsigned int d = dims[t];

		rand_spd(&g, a, d);
		ck_assert_int_eq(la_chol(a, r, d), 0);
		for (n = 0; n < 200; n++) {
			rand_vec(&g, x, d);
			la_syr(a, x, d);
			bad += la_chol_update(r, x, NULL, 0, d) != 0;
		}
		ck_assert_uint_eq(bad, 0);
		ck_assert_int_eq(la_chol(a, ref, d), 0);
		worst = fmax(worst, max_rel_diff(r, ref, d * d));
		for (i = 0; i < d; i++)
			for (j = 0; j < i; j++)
				ck_assert_double_eq(r[i * d + j], 0);
	}
	ck_assert_double_le(worst, 1e-12);
}
END_TEST

START_TEST(chol_update_one_step_exact)
{
	/*
	 * R = I (A = I), x = (3, 4): A' = [10 12; 12 17], so
	 * R' = [sqrt(10) 12/sqrt(10); 0 sqrt(17 - 14.4)]
	 */
	double r[4] = { 1, 0, 0, 1 }, x[2] = { 3, 4 };

	ck_assert_int_eq(la_chol_update(r, x, NULL, 0, 2), 0);
	ck_assert_double_eq_tol(r[0], sqrt(10), 1e-15);
	ck_assert_double_eq_tol(r[1], 12 / sqrt(10), 1e-14);
	ck_assert_double_eq(r[2], 0);
	ck_assert_double_eq_tol(r[3], sqrt(17 - 14.4), 1e-14);
}
END_TEST

/*
 * Carrying p = R^-T b through the rotations: after many updates with
 * b += r x, R^-1 p must solve the least-squares system A theta = b.
 */
START_TEST(chol_update_carries_rhs)
{
	static double a[D * D], r[D * D];
	double x[D], xs[D], p[D] = { 0 }, bv[D] = { 0 }, y[D], th[D], th2[D];
	double rd[D];
	struct trng g = { 13 };
	unsigned int n, i, bad = 0;

	la_eye(a, D, 1);
	la_eye(r, D, 1);
	for (n = 0; n < 2000; n++) {
		double rew;

		rand_vec(&g, x, D);
		rew = x[0] - 0.5 * x[3] + 0.1 * trng_sym(&g);
		la_syr(a, x, D);
		for (i = 0; i < D; i++)
			bv[i] += rew * x[i];
		memcpy(xs, x, sizeof(x));
		bad += la_chol_update(r, xs, p, rew, D) != 0;
	}
	ck_assert_uint_eq(bad, 0);
	la_pivot_reciprocals(r, rd, D);
	la_solve_r_rd(r, rd, p, th, D);
	/* reference: factor A afresh and solve A theta = b */
	ck_assert_int_eq(la_chol(a, r, D), 0);
	la_pivot_reciprocals(r, rd, D);
	la_solve_rt_rd(r, rd, bv, y, D);
	la_solve_r_rd(r, rd, y, th2, D);
	ck_assert_double_le(max_rel_diff(th, th2, D), 1e-10);
	ck_assert_double_gt(max_abs(th2, D), 0.1);
}
END_TEST

START_TEST(chol_update_rejects_bad_factor)
{
	double r[4] = { 1, 0, 0, 0 }, x[2] = { 1, 1 };
	const double keep[4] = { 1, 0, 0, 0 };

	ck_assert_int_eq(la_chol_update(r, x, NULL, 0, 2), -EDOM);
	ck_assert_mem_eq(r, keep, sizeof(keep));
	ck_assert_int_eq(la_chol_update(r, x, NULL, 0, 0), -EINVAL);
}
END_TEST

START_TEST(solves_and_inverse)
{
	static double a[LA_DMAX * LA_DMAX], r[LA_DMAX * LA_DMAX];
	static double inv[LA_DMAX * LA_DMAX];
	double b[LA_DMAX], y[LA_DMAX], x[LA_DMAX], ax[LA_DMAX];
	double rd[LA_DMAX];
	struct trng g = { 5 };
	unsigned int d;

	for (d = 1; d <= LA_DMAX; d += 9) {
		rand_spd(&g, a, d);
		rand_vec(&g, b, d);
		ck_assert_int_eq(la_chol(a, r, d), 0);
		la_pivot_reciprocals(r, rd, d);
		la_solve_rt_rd(r, rd, b, y, d);
		la_solve_r_rd(r, rd, y, x, d);
		la_matvec(a, x, ax, d);
		ck_assert_double_le(max_rel_diff(ax, b, d), 1e-12);
		ck_assert_int_eq(la_chol_inverse(r, inv, d), 0);
		ck_assert(is_symmetric(inv, d));
		ck_assert_double_le(inverse_residual(a, inv, d), 1e-12);
	}
	ck_assert_int_eq(la_chol_inverse(r, inv, 0), -EINVAL);
}
END_TEST

START_TEST(small_kernels)
{
	const double m[9] = { 2, 1, 0, 1, 3, -1, 0, -1, 4 };
	const double x[3] = { 1, -2, 3 };
	double y[3], s[9] = { 0 };
	int i;

	ck_assert_double_eq(la_dot(x, x, 3), 14);
	la_matvec(m, x, y, 3);
	ck_assert_double_eq(y[0], 0);
	ck_assert_double_eq(y[1], -8);
	ck_assert_double_eq(y[2], 14);
	/* x^T M x = x . (M x) = 0 + 16 + 42 */
	ck_assert_double_eq(la_quad(m, x, 3), 58);
	la_syr(s, x, 3);
	for (i = 0; i < 9; i++)
		ck_assert_double_eq(s[i], x[i / 3] * x[i % 3]);
	la_eye(s, 3, 2.5);
	for (i = 0; i < 9; i++)
		ck_assert_double_eq(s[i], i % 4 ? 0 : 2.5);
}
END_TEST

static Suite *linalg_suite(void)
{
	Suite *s = suite_create("linalg");
	TCase *sm = tcase_create("sherman_morrison");
	TCase *ch = tcase_create("cholesky");
	TCase *k = tcase_create("kernels");

	tcase_set_timeout(sm, 60);
	tcase_add_test(sm, sm_tracks_direct_inverse);
	tcase_add_test(sm, sm_first_step_exact);
	tcase_add_test(sm, sm_rejects_bad_denominator);
	suite_add_tcase(s, sm);
	tcase_set_timeout(ch, 60);
	tcase_add_test(ch, chol_known_factor);
	tcase_add_test(ch, chol_round_trip);
	tcase_add_test(ch, chol_not_pd);
	tcase_add_test(ch, chol_update_matches_refactor);
	tcase_add_test(ch, chol_update_one_step_exact);
	tcase_add_test(ch, chol_update_carries_rhs);
	tcase_add_test(ch, chol_update_rejects_bad_factor);
	tcase_add_test(ch, solves_and_inverse);
	suite_add_tcase(s, ch);
	tcase_add_test(k, small_kernels);
	suite_add_tcase(s, k);
	return s;
}

int main(void)
{
	return unit_run(linalg_suite());
}
