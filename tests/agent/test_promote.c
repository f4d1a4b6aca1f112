// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/policy/promote.c: the agent executor's page choice. */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "promote.h"

#define PG 4096ULL

START_TEST(pick_filters_dedups_sorts)
{
	struct promote_cand c[] = {
		{ .pid = 7, .addr = 3 * PG + 12, .rate_mhz = 500, .burst_ms = 9 },
		{ .pid = 7, .addr = 1 * PG, .rate_mhz = 9000, .burst_ms = 9 },
		{ .pid = 7, .addr = 1 * PG + 64, .rate_mhz = 12000, .burst_ms = 9 },
		{ .pid = 5, .addr = 1 * PG, .rate_mhz = 9000, .burst_ms = 9 },
		{ .pid = 5, .addr = 2 * PG, .rate_mhz = 20000, .burst_ms = 1 },
		{ .pid = 5, .addr = 4 * PG, .rate_mhz = 1000, .burst_ms = 50 },
	};
	size_t n;

	/* rate >= 1000, burst >= 5: drops 500 mHz and the 1 ms burst */
	n = promote_pick(c, 6, 1000, 5, PG);
	ck_assert_uint_eq(n, 3);
	/* pid 7's page 1 seen twice: once, at its hottest, address aligned */
	ck_assert_uint_eq(c[0].pid, 7);
	ck_assert_uint_eq(c[0].addr, 1 * PG);
	ck_assert_uint_eq(c[0].rate_mhz, 12000);
	/* equal rates: lower pid first */
	ck_assert_uint_eq(c[1].pid, 5);
	ck_assert_uint_eq(c[1].addr, 1 * PG);
	ck_assert_uint_eq(c[2].pid, 5);
	ck_assert_uint_eq(c[2].addr, 4 * PG);

	/* nothing passes a threshold above every rate */
	ck_assert_uint_eq(promote_pick(c, 3, 100000, 0, PG), 0);
	ck_assert_uint_eq(promote_pick(c, 0, 0, 0, PG), 0);
}
END_TEST

START_TEST(budget_is_a_token_bucket)
{
	struct promote_bucket b = { 0 };
	uint64_t n;

	/* primed full: one epoch's worth (100 pages) */
	ck_assert_int_eq(promote_budget(&b, 10.0, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 100);
	promote_spend(&b, 80);
	ck_assert_int_eq(promote_budget(&b, 10.0, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 20);
	/* 0.25 s at 100/s: 25 more */
	ck_assert_int_eq(promote_budget(&b, 10.25, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 45);
	/* a long pause fills it only to the cap */
	ck_assert_int_eq(promote_budget(&b, 100.0, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 100);
	promote_spend(&b, 500);
	ck_assert_int_eq(promote_budget(&b, 100.0, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* time going backwards adds nothing */
	ck_assert_int_eq(promote_budget(&b, 50.0, 100.0, 100.0, &n), 0);
	ck_assert_uint_eq(n, 0);

	ck_assert_int_eq(promote_budget(&b, 1.0, 0.0, 100.0, &n), -EINVAL);
	ck_assert_int_eq(promote_budget(&b, NAN, 1.0, 100.0, &n), -EINVAL);
	ck_assert_int_eq(promote_budget(&b, 1.0, 1.0, 0.5, &n), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("promote");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pick_filters_dedups_sorts);
	tcase_add_test(tc, budget_is_a_token_bucket);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
