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
	/* pid 7's page 1 seen twice: once, at its hottest, where seen */
	ck_assert_uint_eq(c[0].pid, 7);
	ck_assert_uint_eq(c[0].addr, 1 * PG + 64);
	ck_assert_uint_eq(c[0].start, 1 * PG);
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

/* A huge page's sightings at different addresses are one page. */
START_TEST(pick_dedups_a_huge_page)
{
	struct promote_cand c[] = {
		{ .pid = 7, .addr = 512 * PG + 3 * PG, .rate_mhz = 900, .pages = 512 },
		{ .pid = 7, .addr = 512 * PG + 200 * PG, .rate_mhz = 700, .pages = 512 },
		{ .pid = 7, .addr = 513 * PG, .rate_mhz = 800 },
		/* not a power of two: its base page, not a span */
		{ .pid = 7, .addr = 2048 * PG + 5 * PG, .rate_mhz = 600, .pages = 3 },
	};

	ck_assert_uint_eq(promote_pick(c, 4, 0, 0, PG), 3);
	ck_assert_uint_eq(c[0].start, 512 * PG);
	ck_assert_uint_eq(c[0].addr, 515 * PG);
	ck_assert_uint_eq(c[0].rate_mhz, 900);
	ck_assert_uint_eq(c[1].addr, 513 * PG);
	ck_assert_uint_eq(c[2].addr, 2053 * PG);
}
END_TEST

/*
 * A large folio mapped by PTEs at an unaligned address (a file's, or a
 * huge page moved by mremap): 16 pages from page 8. Its aligned start,
 * page 0, is another folio's or nothing; the move goes where it was seen,
 * where it went to page 0 and moved the wrong page or none.
 */
START_TEST(pick_moves_where_seen)
{
	struct promote_cand c[] = {
		{ .pid = 7, .addr = 10 * PG, .rate_mhz = 900, .pages = 16 },
	};

	ck_assert_uint_eq(promote_pick(c, 1, 0, 0, PG), 1);
	ck_assert_uint_eq(c[0].addr, 10 * PG);
}
END_TEST

static struct promote_cand of(uint32_t pages)
{
	return (struct promote_cand){ .pages = pages };
}

START_TEST(budget_is_a_token_bucket)
{
	struct promote_bucket b = { 0 };
	struct promote_cand c[200];
	size_t i;

	for (i = 0; i < 200; i++)
		c[i] = of(i % 2);	/* 0: one page too */
	/* primed full: one epoch's worth (100 pages) */
	ck_assert_int_eq(promote_refill(&b, 10.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 80), 80);
	ck_assert_uint_eq(promote_take(&b, c, 200), 20);
	/* 0.25 s at 100/s: 25 more */
	ck_assert_int_eq(promote_refill(&b, 10.25, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 200), 25);
	/* a long pause fills it only to the cap */
	ck_assert_int_eq(promote_refill(&b, 100.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 200), 100);
	/* time going backwards adds nothing */
	ck_assert_int_eq(promote_refill(&b, 50.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 200), 0);

	ck_assert_int_eq(promote_refill(&b, 1.0, 0.0, 100.0), -EINVAL);
	ck_assert_int_eq(promote_refill(&b, NAN, 1.0, 100.0), -EINVAL);
	ck_assert_int_eq(promote_refill(&b, 1.0, 1.0, 0.5), -EINVAL);
}
END_TEST

/*
 * A huge page costs all its base pages: under a cap smaller than it, it
 * needs a full bucket and leaves debt, which the refills pay off before
 * anything else moves; it goes in order, so pages after it wait too.
 */
START_TEST(a_huge_page_costs_its_pages)
{
	struct promote_bucket b = { 0 };
	struct promote_cand c[] = { of(1), of(512), of(1) };

	ck_assert_int_eq(promote_refill(&b, 0.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 3), 1);		/* 99 left */
	ck_assert_uint_eq(promote_take(&b, c + 1, 2), 0);	/* not full */
	ck_assert_int_eq(promote_refill(&b, 1.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c + 1, 2), 1);	/* 100 - 512 */
	ck_assert_double_eq_tol(b.tokens, -412.0, 1e-9);
	/* 4 s pay the debt back, the fifth brings one page's worth and more */
	ck_assert_int_eq(promote_refill(&b, 5.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c + 2, 1), 0);
	ck_assert_int_eq(promote_refill(&b, 5.2, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c + 2, 1), 1);
	/* under a cap larger than it: its pages, as any page's */
	b = (struct promote_bucket){ 0 };
	ck_assert_int_eq(promote_refill(&b, 0.0, 1000.0, 1000.0), 0);
	ck_assert_uint_eq(promote_take(&b, c, 3), 3);
	ck_assert_double_eq_tol(b.tokens, 1000.0 - 514.0, 1e-9);
}
END_TEST

/* Pages paid for and not moved give their tokens back, up to the depth. */
START_TEST(a_refund_fills_up_to_the_depth)
{
	struct promote_bucket b = { 0 };
	struct promote_cand c[] = { of(1), of(512) };

	ck_assert_int_eq(promote_refill(&b, 0.0, 100.0, 100.0), 0);
	ck_assert_uint_eq(promote_take(&b, c + 1, 1), 1);	/* -412 */
	promote_refund(&b, 512);
	ck_assert_double_eq_tol(b.tokens, 100.0, 1e-9);
	ck_assert_uint_eq(promote_take(&b, c, 1), 1);
	promote_refund(&b, 7);
	ck_assert_double_eq_tol(b.tokens, 100.0, 1e-9);
}
END_TEST

START_TEST(room_is_free_memory_above_the_floor)
{
	ck_assert_uint_eq(promote_room(10 * PG, 0, PG), 10);
	ck_assert_uint_eq(promote_room(10 * PG + 1, 0, PG), 10);
	ck_assert_uint_eq(promote_room(10 * PG, PG * 4 / 1024, PG), 6);
	/* at or below the floor, and a floor beyond any figure: nothing */
	ck_assert_uint_eq(promote_room(10 * PG, PG * 10 / 1024, PG), 0);
	ck_assert_uint_eq(promote_room(PG, UINT64_MAX, PG), 0);
	ck_assert_uint_eq(promote_room(10 * PG, 0, 0), 0);
}
END_TEST

START_TEST(fit_spends_each_destinations_room)
{
	/* nodes 0 and 1 have CPUs; 2 goes to 0, 3 to 1, 4 has none */
	static const int to[] = { 0, 1, 0, 1, -1 };
	struct promote_cand c[] = {
		{ .addr = 1, .node = 2 }, { .addr = 2, .node = 3 },
		{ .addr = 3, .node = 2 }, { .addr = 4, .node = 4 },
		{ .addr = 5, .node = 2 }, { .addr = 6, .node = 9 },
		{ .addr = 7, .node = 3 },
	};
	uint64_t room[] = { 2, 0, 0, 0, 0 };
	size_t n = promote_fit(c, 7, to, 5, room);

	/* node 0 takes two, node 1 none; no destination or an unknown
	 * node: kept, for the move to fail and be counted */
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(c[0].addr, 1);
	ck_assert_uint_eq(c[1].addr, 3);
	ck_assert_uint_eq(c[2].addr, 4);
	ck_assert_uint_eq(c[3].addr, 6);
	ck_assert_uint_eq(room[0], 0);
	/* one more page's room on node 0: the first of its two goes */
	room[0] = 1;
	ck_assert_uint_eq(promote_fit(c, 4, to, 5, room), 3);
	ck_assert_uint_eq(c[1].addr, 4);
	ck_assert_uint_eq(promote_fit(c, 0, to, 5, room), 0);
}
END_TEST

/* A huge page needs room for all its base pages. */
START_TEST(fit_counts_a_huge_pages_room)
{
	static const int to[] = { 0, 0 };
	struct promote_cand c[] = {
		{ .addr = 1, .node = 1, .pages = 512 },
		{ .addr = 2, .node = 1 },
		{ .addr = 3, .node = 1, .pages = 512 },
	};
	uint64_t room[] = { 600, 0 };

	ck_assert_uint_eq(promote_fit(c, 3, to, 2, room), 2);
	ck_assert_uint_eq(c[1].addr, 2);
	ck_assert_uint_eq(room[0], 600 - 513);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("promote");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pick_filters_dedups_sorts);
	tcase_add_test(tc, pick_dedups_a_huge_page);
	tcase_add_test(tc, pick_moves_where_seen);
	tcase_add_test(tc, budget_is_a_token_bucket);
	tcase_add_test(tc, a_huge_page_costs_its_pages);
	tcase_add_test(tc, a_refund_fills_up_to_the_depth);
	tcase_add_test(tc, room_is_free_memory_above_the_floor);
	tcase_add_test(tc, fit_spends_each_destinations_room);
	tcase_add_test(tc, fit_counts_a_huge_pages_room);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
