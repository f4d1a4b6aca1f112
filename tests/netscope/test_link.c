// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the shared link's figures per interval (agent/netscope/
 * ns_link.c). The delay is the mean of the RTT samples the interval took,
 * from every cgroup; a cgroup that took none (a transfer that ended in a
 * full queue, an idle connection) does not hold the link congested; the
 * wire rate counts what each cgroup added, a new cgroup whole, a gone one
 * not at all; the base RTT is the least of the last one to two windows,
 * and follows a path that got longer.
 */
#include "check_main.h"
#include <stdlib.h>
#include "ns_link.h"
#include "netscope_sockops_math.h"

#define WIN	1000	/* the base's window, where a test keeps to one */

/* a cgroup that has so far taken @n samples of @rtt_us and sent @bytes,
 * its least RTT 10 us */
static struct ns_cg_stats cg(uint64_t n, uint32_t rtt_us, uint64_t bytes)
{
	struct ns_cg_stats st = {
		.rtt_samples = n, .rtt_sum_us = n * rtt_us, .srtt_us = rtt_us,
		.min_rtt_us = n ? 10 : 0, .delivered_bytes = bytes,
		.live_flows = 1,
	};

	if (n)
		ns_base_take(st.base, WIN, 10);
	return st;
}

/* @n samples of @rtt_us in window @win, counted as the program counts
 * them (the kernel's own minimum, min_rtt_us, is the least ever) */
static void take(struct ns_cg_stats *st, uint32_t win, uint64_t n,
		 uint32_t rtt_us)
{
	st->rtt_samples += n;
	st->rtt_sum_us += n * rtt_us;
	if (!st->min_rtt_us || rtt_us < st->min_rtt_us)
		st->min_rtt_us = rtt_us;
	while (n--)
		ns_base_take(st->base, win, rtt_us);
}

static struct ns_link *link_new(void)
{
	struct ns_link *l = malloc(sizeof(*l));

	ck_assert_ptr_nonnull(l);
	ns_link_init(l);
	return l;
}

START_TEST(first_interval_only_starts_counting)
{
	struct ns_link *l = link_new();
	struct ns_cg_stats a = cg(1000, 5000, 1 << 30);

	ns_link_add(l, 7, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_uint_eq(l->intervals, 0);
	ns_link_add(l, 7, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_uint_eq(l->intervals, 1);
	ck_assert_double_eq(l->util, 0);
	ck_assert_double_eq(l->avail_Bps, 12.5e6);
	free(l);
}
END_TEST

START_TEST(delay_is_the_intervals_samples_mean)
{
	struct ns_link *l = link_new();
	struct ns_cg_stats a = cg(100, 1000, 0), b = cg(10, 100, 0);

	ns_link_add(l, 1, &a, WIN);
	ns_link_add(l, 2, &b, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	/* a: 30 samples of 200 us; b: 10 of 400 us */
	a.rtt_samples += 30;
	a.rtt_sum_us += 30 * 200;
	b.rtt_samples += 10;
	b.rtt_sum_us += 10 * 400;
	ns_link_add(l, 2, &b, WIN);
	ns_link_add(l, 1, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq_tol(l->delay_us, (30 * 200 + 10 * 400) / 40.0, 1e-9);
	ck_assert_uint_eq(l->base_us, 10);
	free(l);
}
END_TEST

START_TEST(stale_rtt_holds_nothing)
{
	struct ns_link *l = link_new();
	/* the bulk ended in a full queue: 9 ms its last RTTs, flows still
	 * counted live, and no sample since */
	struct ns_cg_stats bulk = cg(5000, 9000, 1 << 20), rr = cg(10, 40, 0);

	ns_link_add(l, 1, &bulk, WIN);
	ns_link_add(l, 2, &rr, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	rr.rtt_samples += 500;
	rr.rtt_sum_us += 500 * 40;
	ns_link_add(l, 1, &bulk, WIN);
	ns_link_add(l, 2, &rr, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq_tol(l->delay_us, 40, 1e-9);
	ck_assert_double_eq_tol(l->queue_us, 40 - 10, 1e-9);
	/* and no samples at all: no queue, the delay is the base */
	ns_link_add(l, 1, &bulk, WIN);
	ns_link_add(l, 2, &rr, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq(l->delay_us, l->base_us);
	ck_assert_double_eq(l->queue_us, 0);
	free(l);
}
END_TEST

START_TEST(wire_counts_what_each_cgroup_added)
{
	struct ns_link *l = link_new();
	struct ns_cg_stats a = cg(1, 100, 1000000), gone = cg(1, 100, 5000000);
	struct ns_cg_stats fresh = cg(0, 0, 250000);

	ns_link_add(l, 1, &a, WIN);
	ns_link_add(l, 9, &gone, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	a.delivered_bytes += 500000;
	a.segs_out += 100;
	/* 9 went (its entry dropped); 5 came within the interval */
	ns_link_add(l, 5, &fresh, WIN);
	ns_link_add(l, 1, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq_tol(l->util, (500000 + 100 * 66 + 250000) / 0.1 / 12.5e6, 1e-9);
	/* 9 back with counters it cannot have had: all of them are new */
	gone = cg(0, 0, 1000);
	ns_link_add(l, 9, &gone, WIN);
	ns_link_add(l, 5, &fresh, WIN);
	ns_link_add(l, 1, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq_tol(l->util, 1000 / 0.1 / 12.5e6, 1e-9);
	free(l);
}
END_TEST

START_TEST(counter_restart_counts_from_zero)
{
	struct ns_link *l = link_new();
	struct ns_cg_stats a = cg(1000, 100, 1 << 20);

	ns_link_add(l, 3, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	/* its entry cleared and made again (indigoctl netscope clear) */
	a = cg(20, 300, 4096);
	ns_link_add(l, 3, &a, WIN);
	ns_link_end(l, 0.1, 12.5e6);
	ck_assert_double_eq_tol(l->delay_us, 300, 1e-9);
	ck_assert_double_eq_tol(l->util, 4096 / 0.1 / 12.5e6, 1e-9);
	free(l);
}
END_TEST

/* one interval in window @win, of cgroup 1 alone */
static void interval(struct ns_link *l, const struct ns_cg_stats *st,
		     uint32_t win)
{
	ns_link_add(l, 1, st, win);
	ns_link_end(l, 0.1, 12.5e6);
}

START_TEST(base_follows_a_path_change)
{
	struct ns_link *l = link_new();
	struct ns_cg_stats a = { 0 };
	uint32_t w = UINT32_MAX;	/* window numbers wrap in the test */

	interval(l, &a, w);
	take(&a, w, 50, 100);
	interval(l, &a, w);
	ck_assert_uint_eq(l->base_us, 100);
	ck_assert_double_eq_tol(l->queue_us, 0, 1e-9);
	/* rerouted: 300 us from the next window on. The window before's
	 * lower minimum still holds: a queue, for all the link knows */
	take(&a, w + 1, 50, 300);
	interval(l, &a, w + 1);
	ck_assert_uint_eq(l->base_us, 100);
	ck_assert_double_eq_tol(l->queue_us, 200, 1e-9);
	/* the old path out of both windows: no standing queue */
	take(&a, w + 2, 50, 300);
	interval(l, &a, w + 2);
	ck_assert_uint_eq(l->base_us, 300);
	ck_assert_double_eq_tol(l->delay_us, 300, 1e-9);
	ck_assert_double_eq_tol(l->queue_us, 0, 1e-9);
	/* and a queue on the new path reads from there */
	take(&a, w + 2, 10, 900);
	interval(l, &a, w + 2);
	ck_assert_double_eq_tol(l->queue_us, 600, 1e-9);
	/* no sample for two windows: the last base stays */
	interval(l, &a, w + 5);
	ck_assert_uint_eq(l->base_us, 300);
	/* a lower one takes over at once */
	take(&a, w + 5, 10, 250);
	interval(l, &a, w + 5);
	ck_assert_uint_eq(l->base_us, 250);
	free(l);
}
END_TEST

/* The controller's own differences of an application's counters */
START_TEST(app_counters_gone_back_tell_nothing)
{
	struct ns_cg_stats a = cg(1000, 100, 1 << 20), zero = { 0 };
	struct ns_cg_mark was, d;

	a.ce_marks = 7;
	a.turns = 40;
	a.segs_out = 900;
	ns_cg_mark_take(&was, &a);
	a.delivered_bytes += 3000;
	a.ce_marks += 2;
	a.turns += 5;
	a.segs_out += 10;
	ck_assert(ns_cg_mark_since(&was, &a, &d));
	ck_assert_uint_eq(d.delivered, 3000);
	ck_assert_uint_eq(d.ce, 2);
	ck_assert_uint_eq(d.turns, 5);
	ck_assert_uint_eq(d.wire, 3000 + 10 * 66);
	/* the cgroup went (its entry dropped, read as zeros): no 2^64 - 7
	 * CE marks, no exabytes on the wire */
	ns_cg_mark_take(&was, &a);
	ck_assert(!ns_cg_mark_since(&was, &zero, &d));
	ck_assert_uint_eq(d.ce, 0);
	ck_assert_uint_eq(d.wire, 0);
	ck_assert_uint_eq(d.delivered, 0);
	ck_assert_uint_eq(d.turns, 0);
	/* made anew with a few counts: still a restart, whichever went back */
	zero.ce_marks = 100;
	ck_assert(!ns_cg_mark_since(&was, &zero, &d));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_link");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, first_interval_only_starts_counting);
	tcase_add_test(tc, delay_is_the_intervals_samples_mean);
	tcase_add_test(tc, stale_rtt_holds_nothing);
	tcase_add_test(tc, wire_counts_what_each_cgroup_added);
	tcase_add_test(tc, counter_restart_counts_from_zero);
	tcase_add_test(tc, base_follows_a_path_change);
	tcase_add_test(tc, app_counters_gone_back_tell_nothing);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
