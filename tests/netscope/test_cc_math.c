// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the netscope CC's window arithmetic (bpf/netscope_cc_math.h),
 * compiled as the BPF program compiles it. A cut happens whenever the RTT
 * is above target, small windows included; an insensitive flow is cut
 * harder than a sensitive one; no cut more than halves the window or takes
 * it below two segments.
 */
#include "check_main.h"
#include <linux/types.h>
#include "linux/indigo_netscope.h"
#include "netscope_cc_math.h"

START_TEST(target_grows_with_sensitivity)
{
	/* c = 0: the base queueing allowance; c = 2: twice it */
	ck_assert_uint_eq(ns_cc_target_us(1000, 100, 0), 1100);
	ck_assert_uint_eq(ns_cc_target_us(1000, 100, 1000), 1150);
	ck_assert_uint_eq(ns_cc_target_us(1000, 100, 2000), 1200);
}
END_TEST

/* cut = 500 * (110 - 100) / 110 = 45 per mille: under one segment of 10 */
START_TEST(small_windows_shrink)
{
	unsigned int cwnd = 19, rtts;

	ck_assert_uint_eq(ns_cc_cut(10, 110, 100, 0), 9);
	ck_assert_uint_eq(ns_cc_cut(5, 200, 100, 0), 3);
	/* a delay that stays above target brings the window to its floor */
	for (rtts = 0; rtts < 100 && cwnd > 2; rtts++)
		cwnd = ns_cc_cut(cwnd, 110, 100, 0);
	ck_assert_uint_eq(cwnd, 2);
	ck_assert_uint_eq(rtts, 17);
	ck_assert_uint_eq(ns_cc_cut(3, 101, 100, 0), 2);
	ck_assert_uint_eq(ns_cc_cut(2, 10000, 100, 0), 2);
	ck_assert_uint_eq(ns_cc_cut(1, 10000, 100, 0), 2);
}
END_TEST

START_TEST(insensitive_cut_harder)
{
	/* c = 0: beta 0.5; c = 1: 0.333 (a drop of 166.7, rounded up) */
	ck_assert_uint_eq(ns_cc_cut(1000, 200, 100, 0), 750);
	ck_assert_uint_eq(ns_cc_cut(1000, 200, 100, 1000), 833);
	ck_assert_uint_lt(ns_cc_cut(1000, 200, 100, 0),
			  ns_cc_cut(1000, 200, 100, 1000));
}
END_TEST

/* a cut of under one per mille still takes a segment */
START_TEST(cut_near_target)
{
	/* c = 1, 3 us above a 1150 us target: 0.87 per mille */
	ck_assert_uint_eq(ns_cc_cut(100, 1153, 1150, 1000), 99);
	/* c = 0, 1 us above a 1000 us target */
	ck_assert_uint_eq(ns_cc_cut(10, 1001, 1000, 0), 9);
}
END_TEST

/* c = 1000, beta 0.1 %: a delay well above its target still cuts */
START_TEST(most_sensitive_still_cut)
{
	__u64 target = ns_cc_target_us(1000, 100, NS_SENS_MAX_MILLI);

	ck_assert_uint_eq(target, 51100);
	ck_assert_uint_eq(ns_cc_cut(100, 60000, target, NS_SENS_MAX_MILLI), 99);
	ck_assert_uint_eq(ns_cc_cut(100000, 102200, target, NS_SENS_MAX_MILLI),
			  99950);
}
END_TEST

START_TEST(never_more_than_half)
{
	ck_assert_uint_ge(ns_cc_cut(1000, 4000000000U, 100, 0), 500);
	ck_assert_uint_ge(ns_cc_cut(0xffffffffU, 4000000000U, 100, 0),
			  0xffffffffU / 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cc_math");
	TCase *tc = tcase_create("cc_math");

	tcase_add_test(tc, target_grows_with_sensitivity);
	tcase_add_test(tc, small_windows_shrink);
	tcase_add_test(tc, insensitive_cut_harder);
	tcase_add_test(tc, cut_near_target);
	tcase_add_test(tc, most_sensitive_still_cut);
	tcase_add_test(tc, never_more_than_half);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
