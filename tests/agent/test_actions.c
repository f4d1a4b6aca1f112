// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/policy/actions.c: the grid, its policies, nearest arms. */
#include "check_main.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "actions.h"

/* A gate policy with these fields, every one of them sent. */
static void ck_gate(const struct act_policy *p, uint32_t burst_ms,
		    uint32_t rate_mhz, uint32_t cap_pps, uint64_t free_kib)
{
	ck_assert_uint_eq(p->mode, ACT_MODE_GATE);
	ck_assert_uint_eq(p->burst_min_ms, burst_ms);
	ck_assert_uint_eq(p->rate_min_mhz, rate_mhz);
	ck_assert_uint_eq(p->rate_cap_pps, cap_pps);
	ck_assert_uint_eq(p->free_min_kib, free_kib);
	ck_assert_uint_eq(p->set, ACT_SET_MODE | ACT_SET_RATE_MIN |
		ACT_SET_BURST_MIN | ACT_SET_FREE_MIN | ACT_SET_RATE_CAP);
}

START_TEST(default_grid)
{
	struct act_grid g;
	struct act_policy p;

	actions_grid_default(&g);
	ck_assert_uint_eq(actions_count(&g), 18);
	ck_assert_uint_eq(actions_deny_arm(&g), 16);
	ck_assert_uint_eq(actions_fill_arm(&g), 17);
	/* arm 6 = burst[1], rate[2]: local memory does not matter */
	ck_assert_int_eq(actions_policy(&g, 6, 3000, 777, 160000,
					ACT_FILL_SHARE_DEFAULT, &p), 0);
	ck_gate(&p, 50, 10000, 3000, 777);
	/* arm 15 = burst[3], rate[3] */
	ck_assert_int_eq(actions_policy(&g, 15, 1, 2, 0, 0.5, &p), 0);
	ck_assert_uint_eq(p.burst_min_ms, 1000);
	ck_assert_uint_eq(p.rate_min_mhz, 100000);
	/* deny: mode only */
	ck_assert_int_eq(actions_policy(&g, 16, 3000, 777, 160000,
					ACT_FILL_SHARE_DEFAULT, &p), 0);
	ck_assert_uint_eq(p.mode, ACT_MODE_DENY);
	ck_assert_uint_eq(p.set, ACT_SET_MODE);
	ck_assert_uint_eq(p.rate_cap_pps, 0);
	ck_assert_uint_eq(p.free_min_kib, 0);
	ck_assert_int_eq(actions_policy(&g, 18, 3000, 777, 160000,
					ACT_FILL_SHARE_DEFAULT, &p), -EINVAL);
}
END_TEST

/*
 * Fill: a gate with no thresholds that stops at a share of local memory,
 * or at the operator's floor when that is higher or local memory unknown.
 */
START_TEST(fill_arm)
{
	struct act_grid g;
	struct act_policy p;

	actions_grid_default(&g);
	ck_assert_int_eq(actions_policy(&g, 17, 3000, 777, 160000,
					ACT_FILL_SHARE_DEFAULT, &p), 0);
	ck_gate(&p, 0, 0, 3000, 10000);	/* 160000 / 16 */
	ck_assert_int_eq(actions_policy(&g, 17, 3000, 777, 160000, 0.25, &p),
			 0);
	ck_assert_uint_eq(p.free_min_kib, 40000);
	/* the operator's floor wins when it is higher */
	ck_assert_int_eq(actions_policy(&g, 17, 3000, 20000, 160000,
					ACT_FILL_SHARE_DEFAULT, &p), 0);
	ck_assert_uint_eq(p.free_min_kib, 20000);
	ck_assert_uint_eq(p.rate_min_mhz, 0);
	/* local memory unknown: the operator's floor alone */
	ck_assert_int_eq(actions_policy(&g, 17, 3000, 777, 0,
					ACT_FILL_SHARE_DEFAULT, &p), 0);
	ck_assert_uint_eq(p.free_min_kib, 777);
	ck_assert_uint_eq(p.burst_min_ms, 0);
	ck_assert_uint_eq(p.mode, ACT_MODE_GATE);
}
END_TEST

START_TEST(custom_grid)
{
	static const uint32_t b[] = { 10, 20, 30 }, r[] = { 5, 500 };
	static const uint32_t bad[] = { 10, 10 };
	struct act_grid g;
	struct act_policy p;

	ck_assert_int_eq(actions_grid_init(&g, b, 3, r, 2), 0);
	ck_assert_uint_eq(actions_count(&g), 8);
	ck_assert_int_eq(actions_policy(&g, 5, 0, 0, 0, 0.5, &p), 0);
	ck_assert_uint_eq(p.burst_min_ms, 30);
	ck_assert_uint_eq(p.rate_min_mhz, 500);
	ck_assert_int_eq(actions_policy(&g, 6, 0, 0, 0, 0.5, &p), 0);
	ck_assert_uint_eq(p.mode, ACT_MODE_DENY);
	ck_assert_uint_eq(actions_fill_arm(&g), 7);
	ck_assert_int_eq(actions_policy(&g, 7, 0, 0, 1000, 0.5, &p), 0);
	ck_assert_uint_eq(p.mode, ACT_MODE_GATE);
	ck_assert_uint_eq(p.free_min_kib, 500);
	/* refused: not increasing, empty, too long; g untouched */
	ck_assert_int_eq(actions_grid_init(&g, bad, 2, r, 2), -EINVAL);
	ck_assert_int_eq(actions_grid_init(&g, b, 0, r, 2), -EINVAL);
	ck_assert_int_eq(actions_grid_init(&g, b, 3, r, ACT_GRID_MAX + 1),
			 -EINVAL);
	ck_assert_uint_eq(actions_count(&g), 8);
}
END_TEST

START_TEST(nearest)
{
	struct act_grid g;

	actions_grid_default(&g);	/* rates 100 1000 10000 100000 */
	ck_assert_uint_eq(actions_nearest_rate(&g, 0), 0);
	ck_assert_uint_eq(actions_nearest_rate(&g, 100), 0);
	ck_assert_uint_eq(actions_nearest_rate(&g, 250), 0);
	ck_assert_uint_eq(actions_nearest_rate(&g, 400), 1);
	ck_assert_uint_eq(actions_nearest_rate(&g, 2900), 1);
	ck_assert_uint_eq(actions_nearest_rate(&g, 3500), 2);
	ck_assert_uint_eq(actions_nearest_rate(&g, UINT32_MAX), 3);
}
END_TEST

static Suite *actions_suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, default_grid);
	tcase_add_test(tc, fill_arm);
	tcase_add_test(tc, custom_grid);
	tcase_add_test(tc, nearest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(actions_suite());
}
