// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: access rate of one observation and burst segmentation
 * (indigo_rate_mhz, indigo_burst_observe, indigo_burst_ms), and a fault's
 * interval (indigo_page_fault).
 */
#include "unit.h"

#define MS	1000000ULL		/* ns */
#define SEC	1000000000ULL		/* ns */

/* Policy with the load defaults: burst_tol 50 %, burst_gap 10 s. */
static struct indigo_policy pol(void)
{
	struct indigo_policy p;

	indigo_policy_default(&p);
	return p;
}

/*
 * One hinting fault, as hook.c records it: the burst sees the observation
 * first, then last_ns moves to the fault time.
 */
static bool observe(struct indigo_page *pg, const struct indigo_policy *p,
		    u64 now, u32 rate)
{
	bool fresh = indigo_burst_observe(pg, p, now, rate);

	pg->last_ns = now;
	return fresh;
}

/* A fault @delta_ns after the previous one, with the rate that implies. */
static bool fault_after(struct indigo_page *pg, const struct indigo_policy *p,
			u64 *now, u64 delta_ns)
{
	*now += delta_ns;
	return observe(pg, p, *now, indigo_rate_mhz(delta_ns));
}

START_TEST(rate_units)
{
	ck_assert_uint_eq(indigo_rate_mhz(SEC), 1000);		/* 1 Hz */
	ck_assert_uint_eq(indigo_rate_mhz(MS), 1000000);	/* 1 kHz */
	ck_assert_uint_eq(indigo_rate_mhz(1000), 1000000000);	/* 1 MHz */
	ck_assert_uint_eq(indigo_rate_mhz(2 * SEC), 500);
	ck_assert_uint_eq(indigo_rate_mhz(100 * MS), 10000);
	/* truncates, does not round */
	ck_assert_uint_eq(indigo_rate_mhz(3 * SEC), 333);
	ck_assert_uint_eq(indigo_rate_mhz(3 * MS), 333333);
}
END_TEST

START_TEST(rate_saturates_high)
{
	ck_assert_uint_eq(indigo_rate_mhz(0), INDIGO_RATE_MAX);
	ck_assert_uint_eq(indigo_rate_mhz(1), INDIGO_RATE_MAX);
	/* 1e12 / 232 = 4310344827 does not fit in u32 */
	ck_assert_uint_eq(indigo_rate_mhz(232), INDIGO_RATE_MAX);
	/* 1e12 / 233 = 4291845493 just fits: no early saturation */
	ck_assert_uint_eq(indigo_rate_mhz(233), 4291845493U);
}
END_TEST

START_TEST(rate_long_intervals)
{
	/* below 1 mHz the rate of one access in 1000 s rounds to 0 */
	ck_assert_uint_eq(indigo_rate_mhz(1000 * SEC), 1);
	ck_assert_uint_eq(indigo_rate_mhz(1000 * SEC + 1), 0);
	ck_assert_uint_eq(indigo_rate_mhz(3600 * SEC), 0);
	ck_assert_uint_eq(indigo_rate_mhz(500 * SEC), 2);
	ck_assert_uint_eq(indigo_rate_mhz(~0ULL), 0);
}
END_TEST

START_TEST(rate_monotonic)
{
	u64 d;
	u32 prev = INDIGO_RATE_MAX;

	/* a longer interval never gives a higher rate */
	for (d = 1; d < 100 * SEC; d = d * 3 / 2 + 1) {
		u32 r = indigo_rate_mhz(d);

		ck_assert_uint_le(r, prev);
		prev = r;
	}
}
END_TEST

START_TEST(first_observation_starts_burst)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	ck_assert_uint_eq(indigo_burst_ms(&pg, 5 * SEC), 0);
	ck_assert(observe(&pg, &p, 5 * SEC, 1000));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.rate, 1000);
	ck_assert_uint_eq(pg.burst_start_ns, 5 * SEC);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 5 * SEC), 0);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 5 * SEC + 250 * MS), 250);
}
END_TEST

START_TEST(first_observation_ignores_stale_fields)
{
	struct indigo_policy p = pol();
	/* nobs == 0: rate and last_ns would otherwise let it merge */
	struct indigo_page pg = {
		.key = 1, .last_ns = 5 * SEC, .burst_start_ns = 1 * SEC,
		.rate = 0,
	};

	ck_assert(indigo_burst_observe(&pg, &p, 5 * SEC, 0));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.burst_start_ns, 5 * SEC);
}
END_TEST

START_TEST(similar_rates_merge)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	ck_assert(observe(&pg, &p, 1 * SEC, 1000));
	/* |1400 - 1000| = 40 % of 1000: merges, mean (1000 + 1400) / 2 */
	ck_assert(!observe(&pg, &p, 2 * SEC, 1400));
	ck_assert_uint_eq(pg.nobs, 2);
	ck_assert_uint_eq(pg.rate, 1200);
	/* 300 below 1200 is 25 %: mean 1200 - 300 / 3 = 1100 */
	ck_assert(!observe(&pg, &p, 3 * SEC, 900));
	ck_assert_uint_eq(pg.nobs, 3);
	ck_assert_uint_eq(pg.rate, 1100);
	/* 1100 + (1500 - 1100) / 4 = 1200 */
	ck_assert(!observe(&pg, &p, 4 * SEC, 1500));
	ck_assert_uint_eq(pg.nobs, 4);
	ck_assert_uint_eq(pg.rate, 1200);
	/* a merge keeps the burst's start */
	ck_assert_uint_eq(pg.burst_start_ns, 1 * SEC);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 4 * SEC), 3000);
}
END_TEST

START_TEST(running_mean_truncates)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	observe(&pg, &p, 1 * SEC, 1000);
	/* 1000 + 3 / 2 = 1001, then 1001 - 2 / 3 = 1001 */
	observe(&pg, &p, 2 * SEC, 1003);
	ck_assert_uint_eq(pg.rate, 1001);
	observe(&pg, &p, 3 * SEC, 999);
	ck_assert_uint_eq(pg.rate, 1001);
	ck_assert_uint_eq(pg.nobs, 3);
}
END_TEST

/* The tolerance is inclusive: exactly burst_tol % away still merges. */
START_TEST(tolerance_edges)
{
	static const struct {
		u32 rate;
		bool fresh;
	} c[] = {
		{ 1500, false }, { 1501, true }, { 500, false }, { 499, true },
		{ 1000, false }, { 2000, true }, { 0, true },
	};
	struct indigo_policy p = pol();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct indigo_page pg = { .key = 1 };

		observe(&pg, &p, 1 * SEC, 1000);
		ck_assert_msg(observe(&pg, &p, 2 * SEC, c[i].rate) == c[i].fresh,
			      "rate %u after 1000", c[i].rate);
		ck_assert_uint_eq(pg.nobs, c[i].fresh ? 1 : 2);
		ck_assert_uint_eq(pg.burst_start_ns,
				  c[i].fresh ? 2 * SEC : 1 * SEC);
	}
}
END_TEST

START_TEST(tolerance_from_policy)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	/* 10 %: 1100 merges with 1000, 1200 does not */
	p.burst_tol = 10;
	observe(&pg, &p, 1 * SEC, 1000);
	ck_assert(!observe(&pg, &p, 2 * SEC, 1100));
	ck_assert_uint_eq(pg.rate, 1050);
	ck_assert(observe(&pg, &p, 3 * SEC, 1200));
	/* 0 %: only the very same rate merges */
	p.burst_tol = 0;
	ck_assert(!observe(&pg, &p, 4 * SEC, 1200));
	ck_assert(observe(&pg, &p, 5 * SEC, 1201));
}
END_TEST

START_TEST(outside_tolerance_restarts)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	observe(&pg, &p, 1 * SEC, 1000);
	observe(&pg, &p, 2 * SEC, 1000);
	observe(&pg, &p, 3 * SEC, 1000);
	ck_assert_uint_eq(pg.nobs, 3);
	ck_assert(observe(&pg, &p, 3 * SEC + 10 * MS, 100000));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.rate, 100000);
	ck_assert_uint_eq(pg.burst_start_ns, 3 * SEC + 10 * MS);
}
END_TEST

START_TEST(gap_restarts)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	/* same rate throughout: only the silence decides */
	observe(&pg, &p, 1 * SEC, 1000);
	/* exactly burst_gap (10 s) of silence still belongs to the burst */
	ck_assert(!observe(&pg, &p, 11 * SEC, 1000));
	ck_assert_uint_eq(pg.nobs, 2);
	/* one ns longer does not */
	ck_assert(observe(&pg, &p, 21 * SEC + 1, 1000));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.burst_start_ns, 21 * SEC + 1);
}
END_TEST

START_TEST(gap_from_policy)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	p.burst_gap = 50;	/* ms */
	observe(&pg, &p, 1 * SEC, 20000);
	ck_assert(!observe(&pg, &p, 1 * SEC + 50 * MS, 20000));
	ck_assert(observe(&pg, &p, 1 * SEC + 101 * MS, 20000));
}
END_TEST

START_TEST(clock_backwards_restarts)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	observe(&pg, &p, 10 * SEC, 1000);
	observe(&pg, &p, 11 * SEC, 1000);
	/* no "negative" gap that would wrap around to a merge */
	ck_assert(observe(&pg, &p, 9 * SEC, 1000));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.burst_start_ns, 9 * SEC);
}
END_TEST

START_TEST(page_fault_interval)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	/* the first fault has nothing to measure from */
	ck_assert(!indigo_page_fault(&pg, &p, 1 * SEC, 0));
	ck_assert_uint_eq(pg.last_ns, 1 * SEC);
	ck_assert(indigo_page_fault(&pg, &p, 1 * SEC + 100 * MS, 0));
	ck_assert_uint_eq(pg.rate, 10000);		/* 10 Hz */
	/* a mark, where known, is where the interval starts */
	ck_assert(indigo_page_fault(&pg, &p, 2 * SEC, 2 * SEC - 50 * MS));
	ck_assert_uint_eq(pg.nobs, 1);			/* 20 Hz: a new burst */
	ck_assert_uint_eq(pg.rate, 20000);
	/* no time, no observation */
	ck_assert(!indigo_page_fault(&pg, &p, 2 * SEC, 0));
}
END_TEST

START_TEST(page_fault_late_reading)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };

	indigo_page_fault(&pg, &p, 1 * SEC, 0);
	indigo_page_fault(&pg, &p, 2 * SEC, 0);
	/* another CPU's fault that read the clock earlier, locked later */
	ck_assert(!indigo_page_fault(&pg, &p, 2 * SEC - 10 * MS, 0));
	ck_assert_uint_eq(pg.last_ns, 2 * SEC);
	/* the next interval runs from 2 s: 1 Hz, not 0.99 Hz */
	ck_assert(indigo_page_fault(&pg, &p, 3 * SEC, 0));
	ck_assert_uint_eq(pg.rate, 1000);
	ck_assert_uint_eq(pg.nobs, 2);
}
END_TEST

START_TEST(burst_ms_grows_and_resets)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };
	u64 now = 1 * SEC;
	int i;

	observe(&pg, &p, now, 10000);
	/* one fault every 100 ms: the burst lengthens by 100 ms each time */
	for (i = 1; i <= 20; i++) {
		ck_assert(!fault_after(&pg, &p, &now, 100 * MS));
		ck_assert_uint_eq(indigo_burst_ms(&pg, now), i * 100);
	}
	/* the burst also "lasts" between faults */
	ck_assert_uint_eq(indigo_burst_ms(&pg, now + 37 * MS), 2037);
	/* a jump to 1 kHz starts over */
	ck_assert(fault_after(&pg, &p, &now, 1 * MS));
	ck_assert_uint_eq(indigo_burst_ms(&pg, now), 0);
	ck_assert(!fault_after(&pg, &p, &now, 1 * MS));
	ck_assert(!fault_after(&pg, &p, &now, 1 * MS));
	ck_assert_uint_eq(indigo_burst_ms(&pg, now), 2);
	ck_assert_uint_eq(pg.rate, 1000000);
}
END_TEST

START_TEST(burst_ms_edges)
{
	struct indigo_page none = { .key = 1, .burst_start_ns = 1 * SEC };
	struct indigo_page pg = {
		.key = 1, .nobs = 1, .burst_start_ns = 2 * SEC,
	};

	/* no burst: 0 whatever the times say */
	ck_assert_uint_eq(indigo_burst_ms(&none, 100 * SEC), 0);
	/* before the start, 0; sub-ms parts are dropped */
	ck_assert_uint_eq(indigo_burst_ms(&pg, 1 * SEC), 0);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 2 * SEC + MS - 1), 0);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 2 * SEC + MS), 1);
	/* 2^32 ms and more saturate */
	pg.burst_start_ns = 0;
	ck_assert_uint_eq(indigo_burst_ms(&pg, 0xffffffffULL * MS), 0xffffffffU);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 0x100000000ULL * MS), 0xffffffffU);
	ck_assert_uint_eq(indigo_burst_ms(&pg, ~0ULL), 0xffffffffU);
}
END_TEST

START_TEST(nobs_saturates)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };
	u64 now = 1 * SEC;
	int i, fresh = 0;

	observe(&pg, &p, now, 1000000);
	for (i = 1; i < 70000; i++)
		fresh += fault_after(&pg, &p, &now, 1 * MS);
	ck_assert_int_eq(fresh, 0);
	ck_assert_uint_eq(pg.nobs, 0xffff);
	ck_assert_uint_eq(pg.rate, 1000000);
	ck_assert_uint_eq(indigo_burst_ms(&pg, now), 69999);
	/* a saturated count still moves the mean: 400000 / 65535 = 6 */
	ck_assert(!observe(&pg, &p, now + 1 * MS, 1400000));
	ck_assert_uint_eq(pg.nobs, 0xffff);
	ck_assert_uint_eq(pg.rate, 1000006);
}
END_TEST

START_TEST(nobs_saturates_from_edge)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = {
		.key = 1, .last_ns = 1 * SEC, .burst_start_ns = 1 * SEC,
		.rate = 1000, .nobs = 0xfffe,
	};

	ck_assert(!observe(&pg, &p, 2 * SEC, 1000));
	ck_assert_uint_eq(pg.nobs, 0xffff);
	ck_assert(!observe(&pg, &p, 3 * SEC, 1000));
	ck_assert_uint_eq(pg.nobs, 0xffff);
	/* a new burst resets a saturated count */
	ck_assert(observe(&pg, &p, 4 * SEC, 9000));
	ck_assert_uint_eq(pg.nobs, 1);
}
END_TEST

START_TEST(stationary_page_long_burst)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };
	u64 now = 1 * SEC;
	int i, fresh = 0;

	observe(&pg, &p, now, indigo_rate_mhz(1 * SEC));
	/* ten minutes of one fault a second, +-10 % jitter */
	for (i = 1; i < 600; i++)
		fresh += fault_after(&pg, &p, &now, i % 2 ? 900 * MS : 1100 * MS);
	ck_assert_int_eq(fresh, 0);
	ck_assert_uint_eq(pg.nobs, 600);
	/* 300 * 0.9 s + 299 * 1.1 s */
	ck_assert_uint_eq(indigo_burst_ms(&pg, now), 598900);
	/* mean of 1111 and 909 mHz, give or take the running mean's error */
	ck_assert_uint_ge(pg.rate, 990);
	ck_assert_uint_le(pg.rate, 1030);
}
END_TEST

START_TEST(alternating_page_keeps_restarting)
{
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };
	u64 now = 1 * SEC;
	u32 longest = 0;
	int i, fresh = 0;

	observe(&pg, &p, now, indigo_rate_mhz(1 * SEC));
	/* 10 ms and 1 s apart in turn: 100 Hz then 1 Hz, never close */
	for (i = 1; i < 600; i++) {
		u64 delta = i % 2 ? 10 * MS : 1 * SEC;
		/* how long the burst got, just before the next fault */
		u32 ms = indigo_burst_ms(&pg, now + delta - 1);

		if (ms > longest)
			longest = ms;
		fresh += fault_after(&pg, &p, &now, delta);
	}
	ck_assert_int_eq(fresh, 599);
	ck_assert_uint_eq(pg.nobs, 1);
	/* a burst never outlives the interval after its one fault */
	ck_assert_uint_le(longest, 999);
}
END_TEST

/* One hinting fault as hook.c takes it: the page's mark, then the fault. */
static bool hook_fault(const struct indigo_marks *ms, struct indigo_page *pg,
		       const struct indigo_policy *p, u64 mm, u64 addr, u64 now)
{
	return indigo_page_fault(pg, p, now,
				 indigo_marks_find(ms, mm, addr, pg->last_ns));
}

/*
 * Two threads that touch a shared page at once both fault on its one
 * marking: the second takes the PTE lock after the first's hook ran, while
 * the PTE is still the marked one. That fault brings no new marking; it
 * must not read as an access a few microseconds after the first fault,
 * whose rate would end the page's burst.
 */
START_TEST(repeat_fault_same_marking)
{
	const u64 mm = 0xffff888012345600ULL, addr = 0x7f0000001000ULL;
	struct indigo_marks *ms = calloc(1, sizeof(*ms));
	struct indigo_policy p = pol();
	struct indigo_page pg = { .key = 1 };
	u64 t;

	ck_assert_ptr_nonnull(ms);
	/* marked every second, touched 1 ms after each marking: 1 kHz */
	for (t = 1 * SEC; t <= 5 * SEC; t += SEC) {
		indigo_marks_add(ms, mm, addr, addr + 0x100000, t);
		ck_assert(hook_fault(ms, &pg, &p, mm, addr, t + MS));
	}
	ck_assert_uint_eq(pg.nobs, 5);
	ck_assert_uint_eq(pg.rate, 1000000);
	/* the second thread, 3 us later, on the 5 s marking */
	ck_assert(!hook_fault(ms, &pg, &p, mm, addr, 5 * SEC + MS + 3000));
	ck_assert_uint_eq(pg.nobs, 5);
	ck_assert_uint_eq(pg.rate, 1000000);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 5 * SEC + MS + 3000), 4000);
	/* the next marking is measured as ever */
	indigo_marks_add(ms, mm, addr, addr + 0x100000, 6 * SEC);
	ck_assert(hook_fault(ms, &pg, &p, mm, addr, 6 * SEC + MS));
	ck_assert_uint_eq(pg.nobs, 6);
	ck_assert_uint_eq(pg.rate, 1000000);
	/*
	 * No mark since the last fault, but after a silence longer than
	 * burst_gap (a marking the log missed): not a repeat; the burst ends
	 */
	ck_assert(hook_fault(ms, &pg, &p, mm, addr, 26 * SEC + MS));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.rate, 50);
	ck_assert_uint_eq(indigo_burst_ms(&pg, 26 * SEC + MS), 0);
	/* no mark known for an address at all: the last fault's interval */
	ck_assert(hook_fault(ms, &pg, &p, mm, addr + 0x100000, 27 * SEC + MS));
	ck_assert_uint_eq(pg.nobs, 1);
	ck_assert_uint_eq(pg.rate, 1000);
	free(ms);
}
END_TEST

static Suite *burst_suite(void)
{
	Suite *s = suite_create("burst");
	TCase *rate = tcase_create("rate");
	TCase *burst = tcase_create("burst");
	TCase *pages = tcase_create("pages");

	tcase_add_test(rate, rate_units);
	tcase_add_test(rate, rate_saturates_high);
	tcase_add_test(rate, rate_long_intervals);
	tcase_add_test(rate, rate_monotonic);
	suite_add_tcase(s, rate);

	tcase_add_test(burst, first_observation_starts_burst);
	tcase_add_test(burst, first_observation_ignores_stale_fields);
	tcase_add_test(burst, similar_rates_merge);
	tcase_add_test(burst, running_mean_truncates);
	tcase_add_test(burst, tolerance_edges);
	tcase_add_test(burst, tolerance_from_policy);
	tcase_add_test(burst, outside_tolerance_restarts);
	tcase_add_test(burst, gap_restarts);
	tcase_add_test(burst, gap_from_policy);
	tcase_add_test(burst, clock_backwards_restarts);
	tcase_add_test(burst, page_fault_interval);
	tcase_add_test(burst, page_fault_late_reading);
	tcase_add_test(burst, burst_ms_grows_and_resets);
	tcase_add_test(burst, burst_ms_edges);
	tcase_add_test(burst, nobs_saturates);
	tcase_add_test(burst, nobs_saturates_from_edge);
	suite_add_tcase(s, burst);

	tcase_add_test(pages, stationary_page_long_burst);
	tcase_add_test(pages, alternating_page_keeps_restarting);
	tcase_add_test(pages, repeat_fault_same_marking);
	suite_add_tcase(s, pages);
	return s;
}

int main(void)
{
	return unit_run(burst_suite());
}
