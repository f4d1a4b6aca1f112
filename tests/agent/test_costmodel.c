// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/costmodel.c on cases worked out by hand.
 *
 * The reference link throughout: the paper's 100 Gb/s OpenCAPI link,
 * 900 ns far vs 100 ns local, 4 KiB pages, k = 2 us:
 *	bandwidth  = 100e9 / 8           = 12.5e9 B/s
 *	transfer   = 4096 / 12.5e9       = 327.68 ns
 *	cost       = 327.68 ns + 2000 ns = 2327.68 ns = 2.32768e-6 s
 *	d_latency  = 900 - 100           = 800 ns     = 8e-7 s
 *	break-even over dT = 1 s: 2.32768e-6 / (1 * 8e-7) = 2.9096 accesses/s
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "costmodel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* |a - b| within @rel of |b| */
#define ck_near(a, b, rel) \
	ck_assert_double_eq_tol((a), (b), fabs(b) * (rel) + 1e-300)

static struct cm_link ref_link(void)
{
	struct cm_link l = {
		.bandwidth = cm_gbps_to_bytes_per_s(100.0),
		.far_ns = 900.0,
		.local_ns = 100.0,
		.page_bytes = CM_PAGE_BYTES_DEFAULT,
		.k_ns = 2000.0,
	};

	return l;
}

START_TEST(unit_helpers)
{
	ck_near(cm_gbps_to_bytes_per_s(100.0), 12.5e9, 1e-15);
	ck_near(cm_mhz_to_hz(2500), 2.5, 1e-15);
}
END_TEST

START_TEST(cost_and_breakeven_reference)
{
	struct cm_link l = ref_link();
	double c, r;

	ck_assert_int_eq(cm_link_check(&l), 0);
	ck_assert_int_eq(cm_promotion_cost(&l, &c), 0);
	ck_near(c, 2.32768e-6, 1e-12);
	ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &r), 0);
	ck_near(r, 2.9096, 1e-12);
	/* dT = 100 ms: ten times the rate, 29.096 accesses/s */
	ck_assert_int_eq(cm_breakeven_rate(&l, 0.1, &r), 0);
	ck_near(r, 29.096, 1e-12);
	/* k = 0: transfer only, 3.2768e-7 / 8e-7 = 0.4096 accesses/s */
	l.k_ns = 0.0;
	ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &r), 0);
	ck_near(r, 0.4096, 1e-12);
}
END_TEST

START_TEST(benefit_and_gain)
{
	struct cm_link l = ref_link();
	double b, g;
	bool pays;

	/* (10 - 2) * 1 s * 8e-7 s = 6.4e-6 s */
	ck_assert_int_eq(cm_promotion_benefit(&l, 10.0, 2.0, 1.0, &b), 0);
	ck_near(b, 6.4e-6, 1e-12);
	/* 6.4e-6 - 2.32768e-6 = 4.07232e-6 s */
	ck_assert_int_eq(cm_promotion_gain(&l, 10.0, 2.0, 1.0, &g, &pays), 0);
	ck_near(g, 4.07232e-6, 1e-12);
	ck_assert(pays);
	/* just below and above the break-even of 2.9096/s */
	ck_assert_int_eq(cm_promotion_gain(&l, 2.909, 0.0, 1.0, &g, &pays), 0);
	ck_assert(!pays);
	ck_assert_int_eq(cm_promotion_gain(&l, 2.910, 0.0, 1.0, &g, &pays), 0);
	ck_assert(pays);
	/* a colder page than the one it displaces: negative benefit */
	ck_assert_int_eq(cm_promotion_benefit(&l, 1.0, 3.0, 1.0, &b), 0);
	ck_near(b, -1.6e-6, 1e-12);
	/* dT = 0: nothing gained, everything paid */
	ck_assert_int_eq(cm_promotion_gain(&l, 1e6, 0.0, 0.0, &g, &pays), 0);
	ck_near(g, -2.32768e-6, 1e-12);
	ck_assert(!pays);
}
END_TEST

START_TEST(invalid_link)
{
	static const struct { double bw, far, local, page, k; } bad[] = {
		{ 0.0, 900, 100, 4096, 2000 },		/* no bandwidth */
		{ -1e9, 900, 100, 4096, 2000 },		/* negative bandwidth */
		{ NAN, 900, 100, 4096, 2000 },
		{ INFINITY, 900, 100, 4096, 2000 },
		{ 12.5e9, 0, 100, 4096, 2000 },		/* zero far latency */
		{ 12.5e9, -900, 100, 4096, 2000 },
		{ 12.5e9, 900, 0, 4096, 2000 },		/* zero local latency */
		{ 12.5e9, 900, -100, 4096, 2000 },
		{ 12.5e9, 100, 100, 4096, 2000 },	/* no latency gap */
		{ 12.5e9, 90, 100, 4096, 2000 },	/* far faster than local */
		{ 12.5e9, 900, 100, 0, 2000 },		/* zero page */
		{ 12.5e9, 900, 100, 4096, -1 },		/* negative k */
		{ 12.5e9, 900, 100, 4096, NAN },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cm_link l = {
			bad[i].bw, bad[i].far, bad[i].local, bad[i].page, bad[i].k
		};
		double v = 42.0;
		uint32_t u = 42;
		bool p;

		ck_assert_msg(cm_link_check(&l) == -EINVAL, "case %zu", i);
		ck_assert_int_eq(cm_promotion_cost(&l, &v), -EINVAL);
		ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &v), -EINVAL);
		ck_assert_int_eq(cm_promotion_benefit(&l, 5, 0, 1, &v), -EINVAL);
		ck_assert_int_eq(cm_promotion_gain(&l, 5, 0, 1, &v, &p), -EINVAL);
		ck_assert_int_eq(cm_epoch_reward(&l, 5, 1, 1, &v), -EINVAL);
		ck_assert_int_eq(cm_rate_cap(&l, 0.5, &u), -EINVAL);
		ck_assert_int_eq(cm_heuristic_promote(&l, 5, 0, 1, &p), -EINVAL);
		ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0, 1, &u),
				 -EINVAL);
		ck_assert_int_eq(cm_heuristic_threshold(&l, 1, &v), -EINVAL);
		/* outputs untouched on error */
		ck_assert(v == 42.0 && u == 42);
	}
	ck_assert_int_eq(cm_link_check(NULL), -EINVAL);
}
END_TEST

START_TEST(invalid_arguments)
{
	struct cm_link l = ref_link();
	double v;
	uint32_t u;
	bool p;

	ck_assert_int_eq(cm_breakeven_rate(&l, 0.0, &v), -EINVAL);
	ck_assert_int_eq(cm_breakeven_rate(&l, -1.0, &v), -EINVAL);
	ck_assert_int_eq(cm_promotion_benefit(&l, -1, 0, 1, &v), -EINVAL);
	ck_assert_int_eq(cm_promotion_benefit(&l, 1, -1, 1, &v), -EINVAL);
	ck_assert_int_eq(cm_promotion_benefit(&l, 1, 0, -1, &v), -EINVAL);
	ck_assert_int_eq(cm_promotion_benefit(&l, NAN, 0, 1, &v), -EINVAL);
	ck_assert_int_eq(cm_epoch_reward(&l, -1, 1, 1, &v), -EINVAL);
	ck_assert_int_eq(cm_epoch_reward(&l, 1, 1, -1, &v), -EINVAL);
	ck_assert_int_eq(cm_epoch_reward_rates(&l, NULL, 3, 1, &v), -EINVAL);
	ck_assert_int_eq(cm_rate_cap(&l, 0.0, &u), -EINVAL);
	ck_assert_int_eq(cm_rate_cap(&l, -0.1, &u), -EINVAL);
	ck_assert_int_eq(cm_rate_cap(&l, 1.01, &u), -EINVAL);
	ck_assert_int_eq(cm_rate_cap(&l, NAN, &u), -EINVAL);
	ck_assert_int_eq(cm_heuristic_promote(&l, 1, 0, -1, &p), -EINVAL);
	ck_assert_int_eq(cm_heuristic_promote(&l, -1, 0, 1, &p), -EINVAL);
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, -1, 1, &u), -EINVAL);
	ck_assert_int_eq(cm_heuristic_threshold(&l, 0, &v), -EINVAL);
}
END_TEST

START_TEST(breakeven_monotone_in_bandwidth)
{
	struct cm_link l = ref_link();
	double prev = 0.0, r;
	int i;

	/* 400 Gb/s down to 0.1 Gb/s: every halving raises the break-even */
	for (i = 0, l.bandwidth = 50e9; i < 12; i++) {
		ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &r), 0);
		ck_assert_msg(r > prev, "bw %g: %g <= %g", l.bandwidth, r,
			      prev);
		prev = r;
		l.bandwidth /= 2.0;
	}
	/* 50 Gb/s by hand: (8192e-11 * 4 + 2e-6) / 8e-7 = 2.65536e-6 / 8e-7 */
	l.bandwidth = cm_gbps_to_bytes_per_s(50.0);
	ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &r), 0);
	ck_near(r, 3.3192, 1e-12);
}
END_TEST

START_TEST(breakeven_monotone_in_latency)
{
	struct cm_link l = ref_link();
	double prev = INFINITY, r;

	/* a wider latency gap makes each local hit worth more: lower rate */
	for (l.far_ns = 150.0; l.far_ns < 5000.0; l.far_ns *= 1.5) {
		ck_assert_int_eq(cm_breakeven_rate(&l, 1.0, &r), 0);
		ck_assert(r < prev);
		prev = r;
	}
}
END_TEST

START_TEST(epoch_reward)
{
	struct cm_link l = ref_link();
	const double rates[] = { 100.0, 50.0, 10.0 };
	double a, b;

	/*
	 * saved: (100 + 50 + 10) * 8e-7 s * 1 s = 1.28e-4 s
	 * paid:  3 * 2.32768e-6 s                = 6.98304e-6 s
	 * reward                                 = 1.2101696e-4 s
	 */
	ck_assert_int_eq(cm_epoch_reward(&l, 160.0, 3, 1.0, &a), 0);
	ck_near(a, 1.2101696e-4, 1e-12);
	ck_assert_int_eq(cm_epoch_reward_rates(&l, rates, 3, 1.0, &b), 0);
	ck_near(b, a, 1e-15);
	/* no promotions: no reward */
	ck_assert_int_eq(cm_epoch_reward_rates(&l, NULL, 0, 1.0, &b), 0);
	ck_assert(b == 0.0);
	/* cold promotions lose: 10 pages at 0.1/s over 1 s */
	ck_assert_int_eq(cm_epoch_reward(&l, 1.0, 10, 1.0, &a), 0);
	ck_near(a, 1.0 * 8e-7 - 10 * 2.32768e-6, 1e-12);
	ck_assert(a < 0.0);
	/* a huge page: one move (k = 2 us once) of 512 pages' transfer */
	ck_assert_int_eq(cm_epoch_reward_moves(&l, 160.0, 1, 512, 1.0, &a), 0);
	ck_near(a, 1.28e-4 - 512 * 0.32768e-6 - 2e-6, 1e-12);
	ck_assert_int_eq(cm_epoch_reward_moves(&l, 160.0, 3, 3, 1.0, &b), 0);
	ck_assert_int_eq(cm_epoch_reward(&l, 160.0, 3, 1.0, &a), 0);
	ck_near(b, a, 1e-15);
	/* half the bandwidth: each transfer costs 655.36 ns, not 327.68 */
	l.bandwidth /= 2.0;
	ck_assert_int_eq(cm_epoch_reward(&l, 160.0, 3, 1.0, &a), 0);
	ck_near(a, 1.28e-4 - 3 * 2.65536e-6, 1e-12);
}
END_TEST

START_TEST(rate_cap)
{
	struct cm_link l = ref_link();
	uint32_t cap;

	/* 0.1 * 12.5e9 / 4096 = 305175.78 -> 305175 pages/s */
	ck_assert_int_eq(cm_rate_cap(&l, 0.1, &cap), 0);
	ck_assert_uint_eq(cap, 305175);
	/* all of it: 12.5e9 / 4096 = 3051757.8 */
	ck_assert_int_eq(cm_rate_cap(&l, 1.0, &cap), 0);
	ck_assert_uint_eq(cap, 3051757);
	/* a tiny share floors to 0, which the module would read as "no cap" */
	ck_assert_int_eq(cm_rate_cap(&l, 1e-12, &cap), 0);
	ck_assert_uint_eq(cap, 1);
	/*
	 * The largest link the configuration takes (link.bandwidth_gbps =
	 * 10000) at half of it: 1.25e12 * 0.5 / 4096 = 152587890 pages/s,
	 * above what the module's SET_POLICY takes (100000000, else ERANGE
	 * for the whole policy): the cap stops at the module's maximum.
	 */
	l.bandwidth = cm_gbps_to_bytes_per_s(10000);
	ck_assert_int_eq(cm_rate_cap(&l, 0.5, &cap), 0);
	ck_assert_uint_eq(cap, 100000000);
	ck_assert_uint_eq(cap, CM_RATE_CAP_MAX);
	/* absurd bandwidth saturates there too */
	l.bandwidth = 1e30;
	ck_assert_int_eq(cm_rate_cap(&l, 1.0, &cap), 0);
	ck_assert_uint_eq(cap, CM_RATE_CAP_MAX);
}
END_TEST

START_TEST(heuristic)
{
	struct cm_link l = ref_link();
	double th;
	uint32_t mhz;
	bool p;

	/*
	 * Calibrated on the reference link for dT = 1 s:
	 * 2.9096 /s * 12.5e9 B/s * 8e-7 s = 2.9096 * 1e4 = 29096 B/s.
	 */
	ck_assert_int_eq(cm_heuristic_threshold(&l, 1.0, &th), 0);
	ck_near(th, 29096.0, 1e-12);
	ck_assert_int_eq(cm_heuristic_promote(&l, 3.0, 0.0, th, &p), 0);
	ck_assert(p);
	ck_assert_int_eq(cm_heuristic_promote(&l, 2.9, 0.0, th, &p), 0);
	ck_assert(!p);
	/* rate_min: floor(2909.6) + 1 = 2910 mHz */
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0.0, th, &mhz), 0);
	ck_assert_uint_eq(mhz, 2910);
	/* a displaced page at 1.5/s: floor(4409.6) + 1 = 4410 mHz */
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 1.5, th, &mhz), 0);
	ck_assert_uint_eq(mhz, 4410);
	/* half the bandwidth, same threshold: 29096 / 5000 = 5.8192/s */
	l.bandwidth /= 2.0;
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0.0, th, &mhz), 0);
	ck_assert_uint_eq(mhz, 5820);
	/* threshold 0: anything faster than the displaced page */
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0.0, 0.0, &mhz), 0);
	ck_assert_uint_eq(mhz, 1);
	/* unreachable threshold saturates */
	ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0.0, 1e30, &mhz), 0);
	ck_assert_uint_eq(mhz, UINT32_MAX);
}
END_TEST

/* The module's rule on integer mHz rates matches the heuristic's verdict. */
START_TEST(heuristic_matches_rate_min)
{
	struct cm_link l = ref_link();
	const double ths[] = { 1000.0, 29096.0, 123456.7 };
	size_t i;
	uint32_t m;

	for (i = 0; i < ARRAY_SIZE(ths); i++) {
		uint32_t rmin;

		ck_assert_int_eq(cm_heuristic_rate_min_mhz(&l, 0.25, ths[i],
							   &rmin), 0);
		for (m = rmin - 50; m < rmin + 50; m++) {
			bool p;

			ck_assert_int_eq(cm_heuristic_promote(&l, m / 1000.0,
							      0.25, ths[i],
							      &p), 0);
			if (p != (m >= rmin))
				ck_abort_msg("th %g: %u mHz vs rate_min %u",
					     ths[i], m, rmin);
		}
	}
}
END_TEST

static Suite *costmodel_suite(void)
{
	Suite *s = suite_create("costmodel");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, unit_helpers);
	tcase_add_test(tc, cost_and_breakeven_reference);
	tcase_add_test(tc, benefit_and_gain);
	tcase_add_test(tc, invalid_link);
	tcase_add_test(tc, invalid_arguments);
	tcase_add_test(tc, breakeven_monotone_in_bandwidth);
	tcase_add_test(tc, breakeven_monotone_in_latency);
	tcase_add_test(tc, epoch_reward);
	tcase_add_test(tc, rate_cap);
	tcase_add_test(tc, heuristic);
	tcase_add_test(tc, heuristic_matches_rate_min);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(costmodel_suite());
}
