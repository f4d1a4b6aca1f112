// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the promotion gate, its rate cap and the mode/reason names
 * (indigo_gate, indigo_allows, indigo_bucket_take, indigo_mode_*,
 * indigo_reason_name, indigo_policy_default).
 */
#include "unit.h"

#define MS	1000000ULL		/* ns */
#define SEC	1000000000ULL		/* ns */

/* Gate mode, thresholds rate 1 Hz, burst 500 ms, 1 MiB free, no cap. */
static struct indigo_policy gate_pol(u32 rate_cap)
{
	struct indigo_policy p;

	indigo_policy_default(&p);
	p.mode = INDIGO_MODE_GATE;
	p.rate_min = 1000;
	p.burst_min = 500;
	p.free_min = 1024;
	p.rate_cap = rate_cap;
	return p;
}

/* A page that meets every threshold of gate_pol(). */
static const struct indigo_gate_in hot = {
	.rate = 5000, .burst_ms = 2000, .free_kib = 1 << 20,
};

/* Gate calls at @now with @in that pass; counts them. */
static int passes(const struct indigo_policy *p, const struct indigo_gate_in *in,
		  struct indigo_bucket *b, u64 now, int calls)
{
	int i, n = 0;

	for (i = 0; i < calls; i++) {
		int r = indigo_gate(p, in, b, now);

		/* by hand: a ck_assert per call is slow under valgrind */
		if (r != INDIGO_REASON_PASS && r != INDIGO_REASON_RATECAP)
			ck_abort_msg("gate at %llu: %s", (unsigned long long)now,
				     indigo_reason_name(r));
		n += r == INDIGO_REASON_PASS;
	}
	return n;
}

START_TEST(policy_defaults)
{
	struct indigo_policy p;

	memset(&p, 0xa5, sizeof(p));
	indigo_policy_default(&p);
	ck_assert_uint_eq(p.mode, INDIGO_MODE_OBSERVE);
	ck_assert_uint_eq(p.rate_min, 1000);
	ck_assert_uint_eq(p.burst_min, 0);
	ck_assert_uint_eq(p.free_min, 0);
	ck_assert_uint_eq(p.rate_cap, 0);
	ck_assert_uint_eq(p.burst_tol, 50);
	ck_assert_uint_eq(p.burst_gap, 10000);
}
END_TEST

START_TEST(observe_mode)
{
	static const struct indigo_gate_in in[] = {
		{ 0, 0, 0, 1 },
		{ 5000, 2000, 1 << 20, 1 },
		{ INDIGO_RATE_MAX, 0xffffffffU, ~0ULL, 1 },
	};
	struct indigo_policy p = gate_pol(1);
	struct indigo_bucket b = { 0 };
	unsigned int i;
	int n;

	p.mode = INDIGO_MODE_OBSERVE;
	/* whatever the page, passed through, and no token taken */
	for (n = 0; n < 100; n++)
		for (i = 0; i < ARRAY_SIZE(in); i++)
			ck_assert_int_eq(indigo_gate(&p, &in[i], &b, 1 * SEC),
					 INDIGO_REASON_OBSERVE);
	/* cap 1: a bucket of one; the first gated page still gets it */
	p.mode = INDIGO_MODE_GATE;
	ck_assert_int_eq(indigo_gate(&p, &hot, &b, 1 * SEC), INDIGO_REASON_PASS);
	ck_assert_int_eq(indigo_gate(&p, &hot, &b, 1 * SEC),
			 INDIGO_REASON_RATECAP);
}
END_TEST

START_TEST(deny_mode)
{
	struct indigo_policy p = gate_pol(1);
	struct indigo_gate_in cold = { 0, 0, 0, 1 };
	struct indigo_bucket b = { 0 };
	int n;

	p.mode = INDIGO_MODE_DENY;
	for (n = 0; n < 100; n++) {
		ck_assert_int_eq(indigo_gate(&p, &hot, &b, 1 * SEC),
				 INDIGO_REASON_DENY);
		ck_assert_int_eq(indigo_gate(&p, &cold, &b, 1 * SEC),
				 INDIGO_REASON_DENY);
	}
	p.mode = INDIGO_MODE_GATE;
	ck_assert_int_eq(indigo_gate(&p, &hot, &b, 1 * SEC), INDIGO_REASON_PASS);
	ck_assert_int_eq(indigo_gate(&p, &hot, &b, 1 * SEC),
			 INDIGO_REASON_RATECAP);
}
END_TEST

/* Rate first, then burst, then free memory, then the cap. */
START_TEST(gate_order)
{
	struct indigo_policy p = gate_pol(1);
	struct indigo_bucket b = { 0 };
	struct indigo_gate_in in = { 0, 0, 0, 1 };

	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_RATE);
	in.rate = hot.rate;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_BURST);
	in.burst_ms = hot.burst_ms;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_LOWMEM);
	in.free_kib = hot.free_kib;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_PASS);
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_RATECAP);
	/* an empty bucket does not hide an earlier veto */
	in.free_kib = 0;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_LOWMEM);
	in.burst_ms = 0;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_BURST);
	in.free_kib = hot.free_kib;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_BURST);
	in.rate = 0;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_RATE);
}
END_TEST

/* "At or above" passes: each threshold is inclusive. */
START_TEST(thresholds_inclusive)
{
	struct indigo_policy p = gate_pol(0);
	struct indigo_bucket b = { 0 };
	struct indigo_gate_in in = { 1000, 500, 1024, 1 };

	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_PASS);
	in.rate = 999;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_RATE);
	in.rate = 1000;
	in.burst_ms = 499;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_BURST);
	in.burst_ms = 500;
	in.free_kib = 1023;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_LOWMEM);
	in.free_kib = 1024;
	ck_assert_int_eq(indigo_gate(&p, &in, &b, 1 * SEC), INDIGO_REASON_PASS);
}
END_TEST

START_TEST(thresholds_zero_and_max)
{
	struct indigo_policy p = gate_pol(0);
	struct indigo_bucket b = { 0 };
	struct indigo_gate_in none = { 0, 0, 0, 1 };
	struct indigo_gate_in top = { INDIGO_RATE_MAX, 0xffffffffU, ~0ULL, 1 };

	/* all-zero thresholds let even a page without a rate through */
	p.rate_min = 0;
	p.burst_min = 0;
	p.free_min = 0;
	ck_assert_int_eq(indigo_gate(&p, &none, &b, 1 * SEC), INDIGO_REASON_PASS);
	/* maximal thresholds pass only maximal values */
	p.rate_min = INDIGO_RATE_MAX;
	p.burst_min = 0xffffffffU;
	p.free_min = ~0ULL;
	ck_assert_int_eq(indigo_gate(&p, &top, &b, 1 * SEC), INDIGO_REASON_PASS);
	top.free_kib--;
	ck_assert_int_eq(indigo_gate(&p, &top, &b, 1 * SEC), INDIGO_REASON_LOWMEM);
}
END_TEST

START_TEST(allows)
{
	ck_assert(indigo_allows(INDIGO_REASON_OBSERVE));
	ck_assert(indigo_allows(INDIGO_REASON_PASS));
	ck_assert(!indigo_allows(INDIGO_REASON_DENY));
	ck_assert(!indigo_allows(INDIGO_REASON_RATE));
	ck_assert(!indigo_allows(INDIGO_REASON_BURST));
	ck_assert(!indigo_allows(INDIGO_REASON_LOWMEM));
	ck_assert(!indigo_allows(INDIGO_REASON_RATECAP));
	ck_assert(!indigo_allows(-1));
	ck_assert(!indigo_allows(__INDIGO_REASON_MAX));
}
END_TEST

START_TEST(veto_spends_no_token)
{
	struct indigo_policy p = gate_pol(10);	/* bucket of 10 / 10 + 1 = 2 */
	struct indigo_bucket b = { 0 };
	struct indigo_gate_in slow = hot, brief = hot, tight = hot;
	int i;

	slow.rate = 1;
	brief.burst_ms = 1;
	tight.free_kib = 1;
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(indigo_gate(&p, &slow, &b, 1 * SEC),
				 INDIGO_REASON_RATE);
		ck_assert_int_eq(indigo_gate(&p, &brief, &b, 1 * SEC),
				 INDIGO_REASON_BURST);
		ck_assert_int_eq(indigo_gate(&p, &tight, &b, 1 * SEC),
				 INDIGO_REASON_LOWMEM);
	}
	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 10), 2);
}
END_TEST

/* At one instant a full bucket gives exactly rate_cap / 10 + 1. */
START_TEST(cap_same_instant)
{
	static const u32 caps[] = { 1, 9, 10, 11, 100, 999, 1000, 12345 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		struct indigo_policy p = gate_pol(caps[i]);
		struct indigo_bucket b = { 0 };
		int depth = caps[i] / 10 + 1;

		ck_assert_int_eq(passes(&p, &hot, &b, 7 * SEC, 2 * depth + 10),
				 depth);
	}
}
END_TEST

/*
 * The very first call may come at time 0 (a simulator's clock); the cap
 * must hold there as well.
 */
START_TEST(cap_at_time_zero)
{
	struct indigo_policy p = gate_pol(100);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 0, 100), 11);
	/* 1 ms later: 0.1 token earned, not a fresh bucket */
	ck_assert_int_eq(passes(&p, &hot, &b, 1 * MS, 100), 0);
	ck_assert_int_eq(passes(&p, &hot, &b, 10 * MS, 100), 1);
}
END_TEST

START_TEST(cap_refills_over_a_second)
{
	struct indigo_policy p = gate_pol(100);
	struct indigo_bucket b = { 0 };
	u64 t;
	int n = 0;

	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 50), 11);
	/* 0.1 page per ms: one pass every 10 ms, 100 over the second */
	for (t = 1 * SEC + MS; t <= 2 * SEC; t += MS) {
		int k = passes(&p, &hot, &b, t, 3);

		ck_assert_int_eq(k, (t / MS) % 10 == 0);
		n += k;
	}
	ck_assert_int_eq(n, 100);
}
END_TEST

START_TEST(cap_refill_clipped_to_depth)
{
	struct indigo_policy p = gate_pol(100);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 50), 11);
	/* 50 tokens earned in 0.5 s, but the bucket holds 11 */
	ck_assert_int_eq(passes(&p, &hot, &b, 1500 * MS, 50), 11);
	/* after a long idle time: full, not more */
	ck_assert_int_eq(passes(&p, &hot, &b, 1000 * SEC, 50), 11);
	/* 25 ms: 2.5 tokens */
	ck_assert_int_eq(passes(&p, &hot, &b, 1000 * SEC + 25 * MS, 50), 2);
	ck_assert_int_eq(passes(&p, &hot, &b, 1000 * SEC + 30 * MS, 50), 1);
}
END_TEST

/*
 * Calls every ms for 10 s, @per_tick of them each ms: the total is exact,
 * never above C * T + C / 10 + 1, and no 1 s window gets more than
 * C + C / 10 + 1.
 */
static void cap_run(u32 cap, int per_tick, int want)
{
	struct indigo_policy p = gate_pol(cap);
	struct indigo_bucket b = { 0 };
	static int per_ms[10001];
	int total = 0, window = 0;
	int t;

	for (t = 1; t <= 10000; t++) {
		per_ms[t] = passes(&p, &hot, &b, t * MS, per_tick);
		total += per_ms[t];
		window += per_ms[t];
		if (t > 1000)
			window -= per_ms[t - 1000];
		if (window > (int)(cap + cap / 10 + 1))
			ck_abort_msg("%d passes in the second to %d ms", window, t);
	}
	ck_assert_int_le(total, cap * 10 + cap / 10 + 1);
	ck_assert_int_eq(total, want);
}

START_TEST(cap_10s_100)
{
	/* 11 in the bucket + 9.999 s * 100/s */
	cap_run(100, 1, 1010);
	cap_run(100, 5, 1010);
}
END_TEST

START_TEST(cap_10s_1000)
{
	/* one call a ms is the cap itself: all pass */
	cap_run(1000, 1, 10000);
	/* 101 in the bucket + 9.999 s * 1000/s */
	cap_run(1000, 5, 10100);
}
END_TEST

START_TEST(cap_zero_unlimited)
{
	struct indigo_policy p = gate_pol(0);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 100000), 100000);
	ck_assert_int_eq(passes(&p, &hot, &b, 0, 1000), 1000);
	/* and leaves the bucket alone: a cap set now starts full */
	p.rate_cap = 100;
	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 100), 11);
}
END_TEST

START_TEST(cap_clock_backwards)
{
	struct indigo_policy p = gate_pol(100);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 10 * SEC, 50), 11);
	/* earlier times earn nothing, and do not move the clock back */
	ck_assert_int_eq(passes(&p, &hot, &b, 5 * SEC, 50), 0);
	ck_assert_int_eq(passes(&p, &hot, &b, 1, 50), 0);
	ck_assert_int_eq(passes(&p, &hot, &b, 10 * SEC - 1, 50), 0);
	ck_assert_int_eq(passes(&p, &hot, &b, 10 * SEC, 50), 0);
	/* 10 ms after the newest time seen: exactly one token */
	ck_assert_int_eq(passes(&p, &hot, &b, 10 * SEC + 10 * MS, 50), 1);
}
END_TEST

START_TEST(cap_backwards_keeps_tokens)
{
	struct indigo_policy p = gate_pol(100);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 10 * SEC, 5), 5);
	/* a late caller with an older time still gets what is left */
	ck_assert_int_eq(passes(&p, &hot, &b, 9 * SEC, 50), 6);
}
END_TEST

START_TEST(cap_huge_no_overflow)
{
	const u64 depth = (0xffffffffULL / 10 + 1) * SEC;
	struct indigo_bucket b = { 0 };

	ck_assert(indigo_bucket_take(&b, 0xffffffffU, 1 * SEC));
	ck_assert_uint_eq(b.tokens, depth - SEC);
	/* 2 s of the largest cap, 8.6e18: fits in u64, then clipped */
	b.tokens = 0;
	ck_assert(indigo_bucket_take(&b, 0xffffffffU, 3 * SEC));
	ck_assert_uint_eq(b.tokens, depth - SEC);
	/* longer: straight to full */
	b.tokens = 0;
	ck_assert(indigo_bucket_take(&b, 0xffffffffU, 3 * SEC + 100 * SEC));
	ck_assert_uint_eq(b.tokens, depth - SEC);
}
END_TEST

START_TEST(bucket_take_accounting)
{
	struct indigo_bucket b = { 0 };

	/* cap 10: 2 pages deep, 1e9 units per page, 10 units per ns */
	ck_assert(indigo_bucket_take(&b, 10, 1 * SEC));
	ck_assert_uint_eq(b.tokens, 1 * SEC);
	ck_assert(indigo_bucket_take(&b, 10, 1 * SEC));
	ck_assert_uint_eq(b.tokens, 0);
	ck_assert(!indigo_bucket_take(&b, 10, 1 * SEC + 99 * MS));
	ck_assert_uint_eq(b.tokens, 990 * MS);
	ck_assert(indigo_bucket_take(&b, 10, 1 * SEC + 100 * MS));
	ck_assert_uint_eq(b.tokens, 0);
}
END_TEST

START_TEST(mode_names)
{
	int m;

	ck_assert_str_eq(indigo_mode_name(INDIGO_MODE_OBSERVE), "observe");
	ck_assert_str_eq(indigo_mode_name(INDIGO_MODE_GATE), "gate");
	ck_assert_str_eq(indigo_mode_name(INDIGO_MODE_DENY), "deny");
	ck_assert_str_eq(indigo_mode_name(-1), "unknown");
	ck_assert_str_eq(indigo_mode_name(__INDIGO_MODE_MAX), "unknown");
	ck_assert_str_eq(indigo_mode_name(1000), "unknown");
	for (m = 0; m <= INDIGO_MODE_MAX; m++)
		ck_assert_int_eq(indigo_mode_parse(indigo_mode_name(m)), m);
	ck_assert_int_eq(indigo_mode_parse("gate"), INDIGO_MODE_GATE);
	ck_assert_int_eq(indigo_mode_parse("unknown"), -1);
	ck_assert_int_eq(indigo_mode_parse(""), -1);
	ck_assert_int_eq(indigo_mode_parse("gat"), -1);
	ck_assert_int_eq(indigo_mode_parse("gates"), -1);
	ck_assert_int_eq(indigo_mode_parse("pass"), -1);
}
END_TEST

START_TEST(reason_names)
{
	static const char *const want[] = {
		[INDIGO_REASON_OBSERVE] = "observe",
		[INDIGO_REASON_PASS] = "pass",
		[INDIGO_REASON_DENY] = "deny",
		[INDIGO_REASON_RATE] = "rate",
		[INDIGO_REASON_BURST] = "burst",
		[INDIGO_REASON_LOWMEM] = "lowmem",
		[INDIGO_REASON_RATECAP] = "ratecap",
	};
	int r;

	ck_assert_int_eq(ARRAY_SIZE(want), __INDIGO_REASON_MAX);
	for (r = 0; r <= INDIGO_REASON_MAX; r++)
		ck_assert_str_eq(indigo_reason_name(r), want[r]);
	ck_assert_str_eq(indigo_reason_name(-1), "unknown");
	ck_assert_str_eq(indigo_reason_name(__INDIGO_REASON_MAX), "unknown");
	ck_assert_str_eq(indigo_reason_name(0x7fffffff), "unknown");
}
END_TEST

/*
 * The cap is in pages per second: a THP promotion (512 pages) spends 512
 * pages' tokens, not one. At 1000 pages/s over 10 s, THP faults every ms
 * may move 10,000 pages and the 101 of a full bucket, not 10,100 THPs.
 */
START_TEST(cap_counts_huge_pages)
{
	struct indigo_policy p = gate_pol(1000);
	struct indigo_gate_in thp = hot;
	struct indigo_bucket b = { 0 };
	u64 pages = 0;
	int t;

	thp.npages = 512;
	/* a full bucket holds 101 pages: one THP, in debt */
	ck_assert_int_eq(passes(&p, &thp, &b, 1 * SEC, 10), 1);
	for (t = 1; t <= 10000; t++)
		pages += 512 * passes(&p, &thp, &b, 1 * SEC + t * MS, 1);
	ck_assert_uint_le(pages, 1000 * 10 + 1000 / 10 + 1);
	/* and not starved: the debt is paid back, THPs keep passing */
	ck_assert_uint_ge(pages, 1000 * 10 - 512);
}
END_TEST

/* A huge page needs one page's tokens, as a base page does, and owes the rest. */
START_TEST(cap_huge_page_needs_one_page)
{
	struct indigo_bucket b = { 0 };

	ck_assert(indigo_bucket_take_pages(&b, 100, 1 * SEC, 512));
	/* 11 - 512 pages: 501 in debt, paid back at 100 pages/s */
	ck_assert(!indigo_bucket_take_pages(&b, 100, 1 * SEC, 1));
	ck_assert(!indigo_bucket_take_pages(&b, 100, 6 * SEC, 512));
	ck_assert(indigo_bucket_take_pages(&b, 100, 6 * SEC + 20 * MS, 512));
	/* 1 - 512: paid back at 11.14 s; 0 pages counts as one */
	ck_assert(!indigo_bucket_take_pages(&b, 100, 11 * SEC + 100 * MS, 0));
	ck_assert(indigo_bucket_take_pages(&b, 100, 11 * SEC + 150 * MS, 0));
	/* long idle: full, the debt long gone, not more */
	ck_assert(indigo_bucket_take_pages(&b, 0xffffffffU, 1000 * SEC,
					   0xffffffffU));
	ck_assert(!indigo_bucket_take_pages(&b, 0xffffffffU, 1000 * SEC, 1));
}
END_TEST

/*
 * Base pages faulting at twice the cap never leave a full bucket; a huge
 * page faulting among them must still pass, at its share of the faults,
 * and the cap still hold.
 */
START_TEST(cap_huge_page_not_starved)
{
	struct indigo_policy p = gate_pol(1000);
	struct indigo_gate_in thp = hot;
	struct indigo_bucket b = { 0 };
	u64 pages = 0;
	int huge = 0, t;

	thp.npages = 512;
	for (t = 0; t < 20000; t++) {
		u64 now = 1 * SEC + (u64)t * 500 * 1000;

		if (t % 100 == 50) {
			huge += passes(&p, &thp, &b, now, 1);
			continue;
		}
		pages += passes(&p, &hot, &b, now, 1);
	}
	ck_assert_int_ge(huge, 1);
	pages += 512 * (u64)huge;
	/* 10 s at 1000 pages/s, the full bucket, and one huge page's debt */
	ck_assert_uint_le(pages, 1000 * 10 + 1000 / 10 + 1 + 511);
	ck_assert_uint_ge(pages, 1000 * 10 - 512);
}
END_TEST

/*
 * Lowering the cap shrinks the bucket: what the old, deeper bucket held
 * must not pass at once under the new cap, nor grow past the new depth.
 */
START_TEST(cap_lowered_clips_tokens)
{
	struct indigo_policy p = gate_pol(100000);
	struct indigo_bucket b = { 0 };

	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC, 1), 1);
	/* cap 10: 10 / 10 + 1 = 2 pages deep */
	p.rate_cap = 10;
	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC + 1 * MS, 1000), 2);
	ck_assert_int_eq(passes(&p, &hot, &b, 1 * SEC + 101 * MS, 1000), 1);
}
END_TEST

static Suite *gate_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *gate = tcase_create("gate");
	TCase *cap = tcase_create("cap");
	TCase *names = tcase_create("names");

	tcase_add_test(gate, policy_defaults);
	tcase_add_test(gate, observe_mode);
	tcase_add_test(gate, deny_mode);
	tcase_add_test(gate, gate_order);
	tcase_add_test(gate, thresholds_inclusive);
	tcase_add_test(gate, thresholds_zero_and_max);
	tcase_add_test(gate, allows);
	tcase_add_test(gate, veto_spends_no_token);
	suite_add_tcase(s, gate);

	/* tens of thousands of calls: room for valgrind */
	tcase_set_timeout(cap, 60);
	tcase_add_test(cap, cap_same_instant);
	tcase_add_test(cap, cap_at_time_zero);
	tcase_add_test(cap, cap_refills_over_a_second);
	tcase_add_test(cap, cap_refill_clipped_to_depth);
	tcase_add_test(cap, cap_10s_100);
	tcase_add_test(cap, cap_10s_1000);
	tcase_add_test(cap, cap_zero_unlimited);
	tcase_add_test(cap, cap_clock_backwards);
	tcase_add_test(cap, cap_backwards_keeps_tokens);
	tcase_add_test(cap, cap_huge_no_overflow);
	tcase_add_test(cap, bucket_take_accounting);
	tcase_add_test(cap, cap_counts_huge_pages);
	tcase_add_test(cap, cap_huge_page_needs_one_page);
	tcase_add_test(cap, cap_huge_page_not_starved);
	tcase_add_test(cap, cap_lowered_clips_tokens);
	suite_add_tcase(s, cap);

	tcase_add_test(names, mode_names);
	tcase_add_test(names, reason_names);
	suite_add_tcase(s, names);
	return s;
}

int main(void)
{
	return unit_run(gate_suite());
}
