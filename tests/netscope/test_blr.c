// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Netscope's online Bayesian regression (agent/netscope/ns_blr.c)
 * recovers a known slope within its credible interval, the interval covers
 * the truth about as often as it claims, narrows with data, does not change
 * with the units of x and y, and refuses to guess when x never varied.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include "ns_blr.h"
#include "trng.h"

/* y = k + c x + N(0, sd^2), x uniform in [1, 4) */
static void feed(struct ns_blr *r, struct trng *g, int n, double k, double c,
		 double sd)
{
	for (int i = 0; i < n; i++) {
		double x = 1 + 3 * trng_unit(g);

		ns_blr_add(r, x, k + c * x + sd * trng_normal(g));
	}
}

START_TEST(known_slope_recovered)
{
	static const double slopes[] = { 0, 0.3, 1, 6.67 };
	struct trng g = { 42 };

	for (unsigned int i = 0; i < sizeof(slopes) / sizeof(slopes[0]); i++) {
		struct ns_blr r;
		struct ns_slope s;

		ns_blr_init(&r, 1e-3, 1);
		feed(&r, &g, 400, 2.5, slopes[i], 0.2);
		ck_assert_int_eq(ns_blr_slope(&r, &s), 0);
		ck_assert_msg(s.lo <= slopes[i] && slopes[i] <= s.hi,
			      "c=%g outside [%g, %g]", slopes[i], s.lo, s.hi);
		/* narrow enough to tell the slopes apart */
		ck_assert_double_lt(s.hi - s.lo, 0.1);
		ck_assert_double_lt(fabs(s.mean - slopes[i]), 0.05);
	}
}
END_TEST

/* A 95 % interval must cover the truth in about 95 % of replications. */
START_TEST(interval_coverage)
{
	struct trng g = { 7 };
	int covered = 0, reps = 400;

	for (int i = 0; i < reps; i++) {
		struct ns_blr r;
		struct ns_slope s;

		ns_blr_init(&r, 1e-3, 1);
		feed(&r, &g, 12, -1, 0.8, 0.5);
		ck_assert_int_eq(ns_blr_slope(&r, &s), 0);
		covered += s.lo <= 0.8 && 0.8 <= s.hi;
	}
	ck_assert_msg(covered >= reps * 0.91 && covered <= reps * 0.99,
		      "coverage %d/%d", covered, reps);
}
END_TEST

/* And with few samples, where the slope and intercept are most of what
 * they can tell: too narrow an interval there is trusted too soon. */
START_TEST(interval_coverage_few)
{
	for (int n = 4; n <= 8; n += 2) {
		struct trng g = { 7 };
		int covered = 0, reps = 2000;

		for (int i = 0; i < reps; i++) {
			struct ns_blr r;
			struct ns_slope s;

			ns_blr_init(&r, 1e-3, 1);
			feed(&r, &g, n, -1, 0.8, 0.5);
			ck_assert_int_eq(ns_blr_slope(&r, &s), 0);
			covered += s.lo <= 0.8 && 0.8 <= s.hi;
		}
		ck_assert_msg(covered >= reps * 0.93 && covered <= reps * 0.97,
			      "n=%d: coverage %d/%d", n, covered, reps);
	}
}
END_TEST

START_TEST(narrows_with_data)
{
	struct trng g = { 3 };
	struct ns_blr r;
	struct ns_slope s10, s1000;

	/* the width shrinks like 1 / sqrt(n): 10x here, 4x asked */
	ns_blr_init(&r, 1e-3, 1);
	feed(&r, &g, 10, 0, 1, 0.3);
	ck_assert_int_eq(ns_blr_slope(&r, &s10), 0);
	feed(&r, &g, 990, 0, 1, 0.3);
	ck_assert_int_eq(ns_blr_slope(&r, &s1000), 0);
	ck_assert_double_lt((s1000.hi - s1000.lo) * 4, s10.hi - s10.lo);
}
END_TEST

START_TEST(no_spread_no_slope)
{
	struct ns_blr r;
	struct ns_slope s;

	ns_blr_init(&r, 1e-3, 1);
	ck_assert_int_eq(ns_blr_slope(&r, &s), -EDOM);
	for (int i = 0; i < 50; i++)
		ns_blr_add(&r, 2, i);
	ck_assert_int_eq(ns_blr_slope(&r, &s), -EDOM);
	ck_assert(isinf(s.hi - s.lo));
}
END_TEST

/* With forgetting, a changed slope replaces the old one. */
START_TEST(forgets_old_slope)
{
	struct trng g = { 11 };
	struct ns_blr r;
	struct ns_slope s;

	ns_blr_init(&r, 1e-3, 0.95);
	feed(&r, &g, 300, 0, 0, 0.1);
	feed(&r, &g, 300, 0, 2, 0.1);
	ck_assert_int_eq(ns_blr_slope(&r, &s), 0);
	ck_assert_msg(s.lo <= 2 && 2 <= s.hi, "[%g, %g]", s.lo, s.hi);
	ck_assert_double_lt(s.n, 25);
}
END_TEST

/*
 * c is a log-log slope: progress counted in bytes or in MB, delay in us or
 * in ms, shift y and x and must leave it and its interval as they were.
 * The controller's y is log time per byte, near -18: a zero-mean prior on
 * the intercept read its distance from 0 as noise.
 */
START_TEST(slope_independent_of_units)
{
	static const double ky[] = { 0, -log(1e6), -18 }, kx[] = { 0, log(1e3) };
	struct ns_slope ref = { 0 };

	for (unsigned int i = 0; i < 3; i++) {
		for (unsigned int j = 0; j < 2; j++) {
			struct trng g = { 13 };
			struct ns_blr r;
			struct ns_slope s;

			ns_blr_init(&r, 1e-3, 0.99);
			for (int n = 0; n < 8; n++) {
				double x = 1 + 3 * trng_unit(&g);

				ns_blr_add(&r, x + kx[j], ky[i] + 0.5 * x +
					   0.05 * trng_normal(&g));
			}
			ck_assert_int_eq(ns_blr_slope(&r, &s), 0);
			if (!i && !j)
				ref = s;
			ck_assert_msg(fabs(s.mean - ref.mean) < 1e-6 &&
				      fabs(s.lo - ref.lo) < 1e-6 &&
				      fabs(s.hi - ref.hi) < 1e-6,
				      "y + %g, x + %g: %g [%g, %g], not %g [%g, %g]",
				      ky[i], kx[j], s.mean, s.lo, s.hi,
				      ref.mean, ref.lo, ref.hi);
		}
	}
}
END_TEST

START_TEST(t_quantiles)
{
	/* tables: t(0.975; 2) = 4.303, 5: 2.571, 30: 2.042 */
	ck_assert_double_lt(fabs(ns_t975(2) - 4.303), 0.05);
	ck_assert_double_lt(fabs(ns_t975(5) - 2.571), 0.01);
	ck_assert_double_lt(fabs(ns_t975(30) - 2.042), 0.002);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_blr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_slope_recovered);
	tcase_add_test(tc, interval_coverage);
	tcase_add_test(tc, interval_coverage_few);
	tcase_add_test(tc, narrows_with_data);
	tcase_add_test(tc, no_spread_no_slope);
	tcase_add_test(tc, forgets_old_slope);
	tcase_add_test(tc, slope_independent_of_units);
	tcase_add_test(tc, t_quantiles);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
