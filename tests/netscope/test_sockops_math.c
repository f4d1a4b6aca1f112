// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the sock_ops program's per-cgroup arithmetic
 * (bpf/netscope_sockops_math.h), compiled as the BPF program compiles it.
 * The smoothed RTT (ns_cg_stats.srtt_us) follows its samples at a gain of
 * 1/8 and comes to a steady RTT, small ones included. The base slots keep
 * each window's least sample, a window's own slot taken over by the next
 * window but one.
 */
#include "check_main.h"
#include <linux/types.h>
#include <linux/indigo_netscope.h>
#include "netscope_sockops_math.h"

static __u32 after(__u32 srtt_us, __u32 rtt_us, int n)
{
	while (n--)
		srtt_us = ns_srtt_next(srtt_us, rtt_us);
	return srtt_us;
}

START_TEST(first_sample_taken)
{
	ck_assert_uint_eq(ns_srtt_next(0, 1234), 1234);
}
END_TEST

START_TEST(gain_one_eighth)
{
	ck_assert_uint_eq(ns_srtt_next(1000, 1800), 1100);
	ck_assert_uint_eq(ns_srtt_next(1800, 1000), 1700);
}
END_TEST

/* an average taken from one RTT settles on another, however small */
START_TEST(small_rtt_reached)
{
	ck_assert_uint_eq(after(8, 15, 100), 15);
	ck_assert_uint_eq(after(40, 5, 100), 5);
	ck_assert_uint_eq(after(3, 7, 100), 7);
	ck_assert_uint_eq(after(1000, 20, 100), 20);
	ck_assert_uint_eq(after(20, 1000, 100), 1000);
}
END_TEST

START_TEST(no_wrap)
{
	ck_assert_uint_eq(ns_srtt_next(1, 0xffffffffU), 0x20000001);
	ck_assert_uint_eq(ns_srtt_next(0xffffffffU, 1), 0xdfffffff);
	ck_assert_uint_eq(after(1, 0xffffffffU, 400), 0xffffffffU);
}
END_TEST

START_TEST(base_slot_per_window)
{
	struct ns_base_slot b[2] = { 0 };

	ns_base_take(b, 6, 300);
	ns_base_take(b, 6, 200);
	ns_base_take(b, 6, 250);
	ck_assert_uint_eq(b[0].win, 6);
	ck_assert_uint_eq(b[0].rtt_us, 200);
	/* the next window has its own slot: the last one's stays */
	ns_base_take(b, 7, 400);
	ck_assert_uint_eq(b[1].rtt_us, 400);
	ck_assert_uint_eq(b[0].rtt_us, 200);
	/* the one after takes the first slot over, higher or not */
	ns_base_take(b, 8, 500);
	ck_assert_uint_eq(b[0].win, 8);
	ck_assert_uint_eq(b[0].rtt_us, 500);
	ck_assert_uint_eq(b[1].win, 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sockops_math");
	TCase *tc = tcase_create("sockops_math");

	tcase_add_test(tc, first_sample_taken);
	tcase_add_test(tc, gain_one_eighth);
	tcase_add_test(tc, small_rtt_reached);
	tcase_add_test(tc, no_wrap);
	tcase_add_test(tc, base_slot_per_window);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
