// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the log of recent hinting-scan marks (indigo_marks_add,
 * indigo_marks_find). Marks are filed per (address space, 1 GiB region)
 * bucket, a ring of the newest INDIGO_MARK_WAYS.
 */
#include "unit.h"

#define KiB	1024ULL
#define MiB	(1024 * KiB)
#define GiB	(1024 * MiB)
#define REGION	(1ULL << INDIGO_MARK_REGION_SHIFT)

#define MM	0xffff888012345600ULL	/* looks like a struct mm_struct * */

static struct indigo_marks *ms;

static void setup(void)
{
	ms = calloc(1, sizeof(*ms));
	ck_assert_ptr_nonnull(ms);
}

static void teardown(void)
{
	free(ms);
	ms = NULL;
}

static u32 bucket(u64 mm, u64 addr)
{
	return indigo_marks_bucket(mm, addr);
}

/* The @n-th address space after @mm whose @addr shares @mm's bucket. */
static u64 mm_sharing(u64 mm, u64 addr, int n)
{
	u64 other;

	for (other = mm + 0x40;; other += 0x40)
		if (bucket(other, addr) == bucket(mm, addr) && n-- == 0)
			return other;
}

/* The first address space from @mm whose @addr does not share @mm's. */
static u64 mm_apart(u64 mm, u64 addr)
{
	u64 other;

	for (other = mm + 0x40;; other += 0x40)
		if (bucket(other, addr) != bucket(mm, addr))
			return other;
}

/* Slots in use, over all buckets. */
static int filed(void)
{
	int b, w, n = 0;

	for (b = 0; b < INDIGO_MARK_BUCKETS; b++)
		for (w = 0; w < INDIGO_MARK_WAYS; w++)
			n += ms->m[b][w].mm != 0;
	return n;
}

START_TEST(empty_finds_nothing)
{
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, 1, ~0ULL, 0), 0);
	/* 0 is the free marker, not an address space with marks at 0..0 */
	ck_assert_uint_eq(indigo_marks_find(ms, 0, 0, 0), 0);
}
END_TEST

START_TEST(covering_mark)
{
	indigo_marks_add(ms, MM, 0x400000, 0x500000, 100);
	ck_assert_int_eq(filed(), 1);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 100);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x480123, 0), 100);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x4fffff, 0), 100);
	/* [start, end): end is outside, as is start - 1 */
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x500000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x3fffff, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0, 0), 0);
}
END_TEST

START_TEST(other_mm_not_found)
{
	u64 near = mm_sharing(MM, 0x400000, 0);
	u64 far = mm_apart(MM, 0x400000);

	indigo_marks_add(ms, MM, 0x400000, 0x500000, 100);
	/* neither through the same bucket nor through another */
	ck_assert_uint_eq(indigo_marks_find(ms, near, 0x400000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, far, 0x400000, 0), 0);
	/* a second address space's own mark over the same range */
	indigo_marks_add(ms, near, 0x400000, 0x500000, 200);
	ck_assert_uint_eq(indigo_marks_find(ms, near, 0x400000, 0), 200);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 100);
}
END_TEST

/* The earliest mark strictly after prev_ns: when the page was marked. */
START_TEST(earliest_after_prev)
{
	const u64 a = 0x7f0000001000ULL;

	indigo_marks_add(ms, MM, a, a + 0x1000, 100);
	indigo_marks_add(ms, MM, a - 0x10000, a + 0x10000, 200);
	indigo_marks_add(ms, MM, a - 0x1000, a + 0x1000, 300);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 0), 100);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 99), 100);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 100), 200);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 199), 200);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 200), 300);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 299), 300);
	/* covering marks known, none after prev: not marked since */
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, 300), INDIGO_MARK_STALE);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a, ~0ULL),
			  INDIGO_MARK_STALE);
	/* below a only the 300 and 200 marks cover */
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a - 1, 0), 200);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a - 0x1001, 0), 200);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a - 0x1001, 200),
			  INDIGO_MARK_STALE);
	/* no mark covers it at all: unknown, not stale */
	ck_assert_uint_eq(indigo_marks_find(ms, MM, a - 0x10001, 300), 0);
}
END_TEST

START_TEST(overlapping_ranges)
{
	indigo_marks_add(ms, MM, 0, 100, 10);
	indigo_marks_add(ms, MM, 50, 150, 20);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 10, 0), 10);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 10, 10), INDIGO_MARK_STALE);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 60, 0), 10);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 60, 10), 20);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 120, 0), 20);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 149, 0), 20);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 150, 0), 0);
}
END_TEST

/* Each bucket keeps the newest INDIGO_MARK_WAYS marks. */
START_TEST(ring_overwrites_oldest)
{
	const u32 b = bucket(MM, 0);
	int i;

	/* WAYS + 1 disjoint pages in one region: the first is gone */
	for (i = 0; i <= INDIGO_MARK_WAYS; i++)
		indigo_marks_add(ms, MM, i * 0x1000, (i + 1) * 0x1000,
				 10 * (i + 1));
	ck_assert_int_eq(filed(), INDIGO_MARK_WAYS);
	ck_assert_uint_eq(ms->next[b], 1 % INDIGO_MARK_WAYS);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0, 0), 0);
	for (i = 1; i <= INDIGO_MARK_WAYS; i++)
		ck_assert_uint_eq(indigo_marks_find(ms, MM, i * 0x1000, 0),
				  10 * (i + 1));
	/* one more pushes out the second */
	indigo_marks_add(ms, MM, 0x100000, 0x101000, 1000);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x1000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x2000, 0), 30);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x100000, 0), 1000);
}
END_TEST

/*
 * One scan pass marks a buffer, then a dozen mappings above it in its
 * region (libraries' data, anonymous areas): the buffer's mark is still
 * there when its page first faults (with 8 ways it was pushed out).
 */
START_TEST(pass_keeps_first_mapping)
{
	const u64 buf = 0x7f0000000000ULL;
	u64 i, at;

	indigo_marks_add(ms, MM, buf, buf + 16 * MiB, 100);
	for (i = 1; i <= 12; i++) {
		at = buf + 16 * MiB + i * MiB;
		indigo_marks_add(ms, MM, at, at + 64 * KiB, 100 + i);
	}
	ck_assert_uint_eq(indigo_marks_find(ms, MM, buf + 2 * MiB, 0), 100);
}
END_TEST

START_TEST(ring_earliest_survivor)
{
	int i;

	/* WAYS + 2 marks of one page: the two oldest are overwritten */
	for (i = 1; i <= INDIGO_MARK_WAYS + 2; i++)
		indigo_marks_add(ms, MM, 0x5000, 0x6000, i);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x5000, 0), 3);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x5000, 5), 6);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x5000,
					    INDIGO_MARK_WAYS + 1),
			  INDIGO_MARK_WAYS + 2);
}
END_TEST

/* Address spaces that share a bucket share its ring. */
START_TEST(ring_shared_by_bucket)
{
	u64 other = mm_sharing(MM, 0x400000, 0);
	int i;

	indigo_marks_add(ms, MM, 0x400000, 0x401000, 5);
	for (i = 0; i < INDIGO_MARK_WAYS - 1; i++)
		indigo_marks_add(ms, other, 0x400000, 0x401000, 10 + i);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 5);
	indigo_marks_add(ms, other, 0x400000, 0x401000, 100);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, other, 0x400000, 0), 10);
}
END_TEST

/* Another bucket's traffic does not push a mark out. */
START_TEST(other_bucket_untouched)
{
	u64 busy = mm_apart(MM, 0x400000);
	int i;

	indigo_marks_add(ms, MM, 0x400000, 0x401000, 5);
	for (i = 0; i < 100 * INDIGO_MARK_WAYS; i++)
		indigo_marks_add(ms, busy, 0x400000, 0x401000, 10 + i);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x400000, 0), 5);
	ck_assert_uint_eq(indigo_marks_find(ms, busy, 0x400000, 0),
			  10 + 99 * INDIGO_MARK_WAYS);
}
END_TEST

/*
 * One process's many small mappings in one region do not push out the
 * marks of its big buffer in another.
 */
START_TEST(regions_kept_apart)
{
	const u64 buf = 5 * REGION;
	u64 mm = MM;
	int i;

	while (bucket(mm, buf) == bucket(mm, 0))
		mm += 0x40;
	indigo_marks_add(ms, mm, buf, buf + 256 * MiB, 7);
	for (i = 0; i < 100; i++)
		indigo_marks_add(ms, mm, 0x400000 + i * 0x10000,
				 0x400000 + i * 0x10000 + 0x1000, 10 + i);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, buf + 100 * MiB, 0), 7);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, 0x400000 + 99 * 0x10000, 0),
			  109);
}
END_TEST

/* A mark across a region boundary is found on both sides. */
START_TEST(mark_spans_regions)
{
	u64 mm = MM;

	while (bucket(mm, 0) == bucket(mm, REGION))
		mm += 0x40;
	indigo_marks_add(ms, mm, REGION - 0x1000, REGION + 0x1000, 42);
	ck_assert_int_eq(filed(), 2);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, REGION - 0x1000, 0), 42);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, REGION - 1, 0), 42);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, REGION, 0), 42);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, REGION + 0xfff, 0), 42);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, REGION + 0x1000, 0), 0);
	/* ending right at a boundary does not file it in the next region */
	indigo_marks_add(ms, mm, 2 * REGION + 0x1000, 3 * REGION, 43);
	ck_assert_int_eq(filed(), 3);
	ck_assert_uint_eq(indigo_marks_find(ms, mm, 3 * REGION - 1, 0), 43);
}
END_TEST

/* Filing is bounded: a huge range costs INDIGO_MARK_SPAN slots, no more. */
START_TEST(span_bounded)
{
	int r;

	indigo_marks_add(ms, MM, 0, ~0ULL, 9);
	ck_assert_int_eq(filed(), INDIGO_MARK_SPAN);
	for (r = 0; r < INDIGO_MARK_SPAN; r++) {
		ck_assert_uint_eq(indigo_marks_find(ms, MM, r * REGION, 0), 9);
		ck_assert_uint_eq(indigo_marks_find(ms, MM, (r + 1) * REGION - 1,
						    0), 9);
	}
	indigo_marks_add(ms, MM, 40 * REGION + 1, 48 * REGION, 10);
	ck_assert_int_eq(filed(), 2 * INDIGO_MARK_SPAN);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 40 * REGION + 1, 0), 10);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 40 * REGION, 0), 0);
	/* near the top of the address space: no wrap-around */
	indigo_marks_add(ms, MM, ~0ULL - 2 * REGION, ~0ULL, 11);
	ck_assert_int_eq(filed(), 2 * INDIGO_MARK_SPAN + 3);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, ~0ULL - 1, 0), 11);
}
END_TEST

START_TEST(empty_range_ignored)
{
	const u32 b = bucket(MM, 0x5000);

	indigo_marks_add(ms, MM, 0x5000, 0x5000, 1);
	indigo_marks_add(ms, MM, 0x6000, 0x5000, 2);
	ck_assert_int_eq(filed(), 0);
	ck_assert_uint_eq(ms->next[b], 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x5000, 0), 0);
	ck_assert_uint_eq(indigo_marks_find(ms, MM, 0x5fff, 0), 0);
}
END_TEST

/* Many address spaces and regions at once: each finds its own newest. */
START_TEST(many_address_spaces)
{
	u64 mm;
	int i;

	for (i = 0; i < 64; i++) {
		mm = MM + i * 0x1000;
		indigo_marks_add(ms, mm, (u64)i * REGION + 0x1000,
				 (u64)i * REGION + 0x2000, 1000 + i);
	}
	ck_assert_int_eq(filed(), 64);
	for (i = 0; i < 64; i++) {
		mm = MM + i * 0x1000;
		/* at most 64 marks over 256 buckets: no ring is full */
		ck_assert_uint_eq(indigo_marks_find(ms, mm, (u64)i * REGION +
						    0x1800, 0), 1000 + i);
		ck_assert_uint_eq(indigo_marks_find(ms, mm + 0x1000,
						    (u64)i * REGION + 0x1800,
						    0), 0);
	}
}
END_TEST

/*
 * Against a brute force over random marks, filed as the module files them,
 * in time order (ties too): the earliest covering mark after prev_ns among
 * the newest INDIGO_MARK_WAYS filed in the page's bucket, or
 * INDIGO_MARK_STALE where they hold covering marks at or before prev_ns only. Three address spaces, two
 * of them sharing a bucket, in one region, so each mark has one bucket.
 */
START_TEST(find_matches_brute_force)
{
	enum { N = 4000 };
	struct indigo_mark *log = calloc(N, sizeof(*log));
	const u64 mms[] = { MM, mm_sharing(MM, 0, 0), mm_apart(MM, 0) };
	u64 seed = 12345, t = 0, x, want, prev, addr, mm;
	int i, k, q, seen, stale;

	ck_assert_ptr_nonnull(log);
	for (i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		x = seed >> 16;
		t += x % 3;		/* 0: a tie with the last one */
		log[i].mm = mms[x % 3];
		log[i].start = (x >> 8) % 64 * 0x1000;
		log[i].end = log[i].start + ((x >> 16) % 16 + 1) * 0x1000;
		log[i].t_ns = t + 1;
		indigo_marks_add(ms, log[i].mm, log[i].start, log[i].end,
				 log[i].t_ns);
		for (q = 0; q < 8; q++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			x = seed >> 16;
			mm = mms[x % 3];
			addr = (x >> 8) % 80 * 0x1000;
			prev = (x >> 24) % (t + 2);
			want = 0;
			stale = 0;
			for (k = i, seen = 0; k >= 0 && seen < INDIGO_MARK_WAYS; k--) {
				if (bucket(log[k].mm, 0) != bucket(mm, 0))
					continue;
				seen++;
				if (log[k].mm == mm && addr >= log[k].start &&
				    addr < log[k].end) {
					if (log[k].t_ns > prev)
						want = log[k].t_ns;
					else
						stale = 1;
				}
			}
			if (!want && stale)
				want = INDIGO_MARK_STALE;
			ck_assert_msg(indigo_marks_find(ms, mm, addr, prev) == want,
				      "mark %d: mm %llx addr %llx prev %llu: want %llu",
				      i, (unsigned long long)mm,
				      (unsigned long long)addr,
				      (unsigned long long)prev,
				      (unsigned long long)want);
		}
	}
	free(log);
}
END_TEST

static Suite *marks_suite(void)
{
	Suite *s = suite_create("marks");
	TCase *find = tcase_create("find");
	TCase *ring = tcase_create("ring");
	TCase *regions = tcase_create("regions");

	tcase_add_checked_fixture(find, setup, teardown);
	tcase_add_test(find, empty_finds_nothing);
	tcase_add_test(find, covering_mark);
	tcase_add_test(find, other_mm_not_found);
	tcase_add_test(find, earliest_after_prev);
	tcase_add_test(find, overlapping_ranges);
	tcase_add_test(find, empty_range_ignored);
	tcase_add_test(find, find_matches_brute_force);
	suite_add_tcase(s, find);

	tcase_add_checked_fixture(ring, setup, teardown);
	tcase_add_test(ring, ring_overwrites_oldest);
	tcase_add_test(ring, ring_earliest_survivor);
	tcase_add_test(ring, pass_keeps_first_mapping);
	tcase_add_test(ring, ring_shared_by_bucket);
	tcase_add_test(ring, other_bucket_untouched);
	suite_add_tcase(s, ring);

	tcase_add_checked_fixture(regions, setup, teardown);
	tcase_add_test(regions, regions_kept_apart);
	tcase_add_test(regions, mark_spans_regions);
	tcase_add_test(regions, span_bounded);
	tcase_add_test(regions, many_address_spaces);
	suite_add_tcase(s, regions);
	return s;
}

int main(void)
{
	return unit_run(marks_suite());
}
