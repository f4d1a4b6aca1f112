// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: log2 histograms and their quantiles (indigo_hist_add,
 * indigo_hist_quantile, indigo_hist_merge), torn per-CPU sums included.
 */
#include "unit.h"

static void add_n(struct indigo_hist *h, u32 v, int n)
{
	while (n--)
		indigo_hist_add(h, v);
}

START_TEST(empty_is_zero)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	ck_assert_uint_eq(indigo_hist_quantile(&h, 0), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 99), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 1000), 0);
}
END_TEST

START_TEST(zero_in_bucket_zero)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	indigo_hist_add(&h, 0);
	ck_assert_uint_eq(h.count[0], 1);
	ck_assert_uint_eq(h.count[1], 0);
	ck_assert_uint_eq(h.total, 1);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 0);
	/* with a 1 above it, the median is still 0, the max is 1 */
	add_n(&h, 0, 2);
	indigo_hist_add(&h, 1);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 75), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 76), 1);
}
END_TEST

/* Bucket i holds [2^(i-1), 2^i - 1], i.e. fls(v) == i. */
START_TEST(bucket_of_value)
{
	int i;

	for (i = 0; i < 32; i++) {
		struct indigo_hist h;
		u32 lo = 1U << i, hi = (u32)((2ULL << i) - 1);

		memset(&h, 0, sizeof(h));
		indigo_hist_add(&h, lo);
		indigo_hist_add(&h, hi);
		ck_assert_msg(h.count[i + 1] == 2, "2^%d and 2^%d - 1 in %d",
			      i, i + 1, i + 1);
		ck_assert_uint_eq(h.total, 2);
		ck_assert_uint_eq(indigo_hist_quantile(&h, 50), hi);
		ck_assert_uint_eq(indigo_hist_quantile(&h, 100), hi);
	}
}
END_TEST

START_TEST(max_value)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	indigo_hist_add(&h, 0xffffffffU);
	ck_assert_uint_eq(h.count[32], 1);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 0), 0xffffffffU);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 0xffffffffU);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 0xffffffffU);
	/* the top bucket with something below it */
	add_n(&h, 3, 3);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 75), 3);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 76), 0xffffffffU);
}
END_TEST

START_TEST(two_modes)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	add_n(&h, 10, 90);		/* bucket 4: 8..15 */
	add_n(&h, 1000, 10);		/* bucket 10: 512..1023 */
	ck_assert_uint_eq(h.count[4], 90);
	ck_assert_uint_eq(h.count[10], 10);
	ck_assert_uint_eq(h.total, 100);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 0), 15);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 15);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 90), 15);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 91), 1023);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 99), 1023);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 1023);
	/* above 100 is read as 100 */
	ck_assert_uint_eq(indigo_hist_quantile(&h, 250), 1023);
}
END_TEST

/* Quantiles round the sample count up: p34 of 3 samples is the 2nd. */
START_TEST(rank_rounds_up)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	indigo_hist_add(&h, 1);		/* bucket 1 */
	indigo_hist_add(&h, 100);	/* bucket 7: 64..127 */
	indigo_hist_add(&h, 10000);	/* bucket 14: 8192..16383 */
	ck_assert_uint_eq(indigo_hist_quantile(&h, 0), 1);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 33), 1);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 34), 127);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 66), 127);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 67), 16383);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 16383);
}
END_TEST

/* 0..1023 once each: bucket k >= 1 holds 2^(k-1), the first k hold 2^k. */
START_TEST(uniform)
{
	struct indigo_hist h;
	u32 v;

	memset(&h, 0, sizeof(h));
	for (v = 0; v < 1024; v++)
		indigo_hist_add(&h, v);
	ck_assert_uint_eq(h.total, 1024);
	ck_assert_uint_eq(h.count[10], 512);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 511);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 51), 1023);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 25), 255);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 26), 511);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 1), 15);
}
END_TEST

START_TEST(quantile_monotonic)
{
	struct indigo_hist h;
	u32 x = 12345, prev = 0;
	unsigned int pct;
	int i;

	memset(&h, 0, sizeof(h));
	for (i = 0; i < 10000; i++) {
		x = x * 1103515245 + 12345;
		indigo_hist_add(&h, x >> (x & 31));
	}
	for (pct = 0; pct <= 100; pct++) {
		u32 q = indigo_hist_quantile(&h, pct);

		ck_assert_uint_ge(q, prev);
		prev = q;
	}
}
END_TEST

START_TEST(merge_adds_up)
{
	struct indigo_hist a, b, all, m;
	int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&all, 0, sizeof(all));
	for (i = 0; i < 300; i++) {
		u32 v = (u32)i * 7919;

		indigo_hist_add(i % 3 ? &a : &b, v);
		indigo_hist_add(&all, v);
	}
	indigo_hist_add(&b, 0xffffffffU);
	indigo_hist_add(&all, 0xffffffffU);

	/* into an empty one: a copy */
	memset(&m, 0, sizeof(m));
	indigo_hist_merge(&m, &a);
	ck_assert_mem_eq(&m, &a, sizeof(m));
	indigo_hist_merge(&m, &b);
	ck_assert_uint_eq(m.total, 301);
	ck_assert_uint_eq(m.count[32], 1);
	ck_assert_uint_eq(m.count[0], 1);
	ck_assert_mem_eq(&m, &all, sizeof(m));
	/* the source is left alone */
	ck_assert_uint_eq(a.total, 200);
	ck_assert_uint_eq(b.total, 101);
	ck_assert_uint_eq(indigo_hist_quantile(&m, 50),
			  indigo_hist_quantile(&all, 50));
}
END_TEST

START_TEST(merge_shifts_quantile)
{
	struct indigo_hist lo, hi;

	memset(&lo, 0, sizeof(lo));
	memset(&hi, 0, sizeof(hi));
	add_n(&lo, 5, 60);		/* bucket 3 */
	add_n(&hi, 5000, 40);		/* bucket 13 */
	ck_assert_uint_eq(indigo_hist_quantile(&lo, 99), 7);
	indigo_hist_merge(&lo, &hi);
	ck_assert_uint_eq(lo.total, 100);
	ck_assert_uint_eq(lo.count[3], 60);
	ck_assert_uint_eq(lo.count[13], 40);
	ck_assert_uint_eq(indigo_hist_quantile(&lo, 60), 7);
	ck_assert_uint_eq(indigo_hist_quantile(&lo, 61), 8191);
	/* merging an empty one changes nothing */
	memset(&hi, 0, sizeof(hi));
	indigo_hist_merge(&lo, &hi);
	ck_assert_uint_eq(lo.total, 100);
	ck_assert_uint_eq(indigo_hist_quantile(&lo, 60), 7);
}
END_TEST

/*
 * The epoch worker sums per-CPU histograms without locks while faults add
 * to them, and indigo_hist_add() bumps a count before the total: a copy can
 * hold a total above its counts' sum. Quantiles must still come from the
 * counts, never the "not found" 0xffffffff.
 */
START_TEST(torn_total)
{
	struct indigo_hist h;

	memset(&h, 0, sizeof(h));
	add_n(&h, 10, 90);		/* bucket 4: 8..15 */
	add_n(&h, 1000, 10);		/* bucket 10: 512..1023 */
	h.total += 7;			/* adds whose counts were not read */
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 15);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 90), 15);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 91), 1023);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 99), 1023);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 100), 1023);

	/* an epoch delta can be all total and no count: empty, 0 */
	memset(&h, 0, sizeof(h));
	h.total = 3;
	ck_assert_uint_eq(indigo_hist_quantile(&h, 50), 0);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 99), 0);

	/* and a total below the counts' sum changes nothing either */
	memset(&h, 0, sizeof(h));
	add_n(&h, 5, 60);		/* bucket 3 */
	add_n(&h, 5000, 40);		/* bucket 13 */
	h.total = 50;
	ck_assert_uint_eq(indigo_hist_quantile(&h, 60), 7);
	ck_assert_uint_eq(indigo_hist_quantile(&h, 61), 8191);
}
END_TEST

static Suite *hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, empty_is_zero);
	tcase_add_test(tc, zero_in_bucket_zero);
	tcase_add_test(tc, bucket_of_value);
	tcase_add_test(tc, max_value);
	tcase_add_test(tc, two_modes);
	tcase_add_test(tc, rank_rounds_up);
	tcase_add_test(tc, uniform);
	tcase_add_test(tc, quantile_monotonic);
	tcase_add_test(tc, merge_adds_up);
	tcase_add_test(tc, merge_shifts_quantile);
	tcase_add_test(tc, torn_total);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(hist_suite());
}
