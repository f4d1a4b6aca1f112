// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Netscope's rate loop and per-application controller
 * (agent/netscope/ns_rate.c, ns_app.c). Under the same congestion an
 * insensitive application is cut first and hardest; a sensitive one keeps
 * its floor; an application whose sensitivity is still uncertain counts as
 * sensitive; rates recover additively when congestion ends; a rate is
 * enforced by pacing only where it binds; once trusted, an estimate does
 * not learn from intervals the loop held the application in.
 */
#include "check_main.h"
#include <math.h>
#include "linux/indigo_netscope.h"
#include "ns_app.h"
#include "trng.h"

static const struct ns_rate_params rp = {
	.g = 1.0 / 16, .capacity_Bps = 12.5e6, .step_Bps = 0.25e6,
	.min_Bps = 0.125e6, .floor_Bps = 5e6, .queue_thresh_us = 500,
};

static const struct ns_app_params ap = {
	.rate = rp, .lambda = 1e-3, .forget = 0.995, .max_width = 0.5,
	.c_untrusted = 4, .c_sensitive = 0.5,
};

static const struct ns_rate_obs jam = { .delay_us = 5000, .base_us = 100 };
static const struct ns_rate_obs calm = { .delay_us = 150, .base_us = 100 };

START_TEST(cut_by_alpha_over_2_plus_c)
{
	struct ns_rate r;

	ns_rate_init(&r, &rp);
	ck_assert(ns_rate_step(&r, &rp, &jam, 0, false));
	ck_assert_double_eq_tol(r.alpha, 1.0 / 16, 1e-12);
	ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 * (1 - 1.0 / 32), 1e-3);
	ns_rate_init(&r, &rp);
	ns_rate_step(&r, &rp, &jam, 6, false);
	ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 * (1 - 1.0 / 128), 1e-3);
}
END_TEST

START_TEST(ce_marks_are_congestion)
{
	struct ns_rate_obs o = calm;
	struct ns_rate r;

	ns_rate_init(&r, &rp);
	ck_assert(!ns_rate_step(&r, &rp, &o, 0, false));
	o.ce = 3;
	ck_assert(ns_rate_step(&r, &rp, &o, 0, false));
}
END_TEST

START_TEST(phantom_queue_is_congestion)
{
	struct ns_rate_params p = rp;
	struct ns_rate_obs o = calm;
	struct ns_rate r;

	ns_rate_init(&r, &p);
	o.util = 0.95;
	ck_assert(!ns_rate_step(&r, &p, &o, 0, false));
	p.util_max = 0.9;
	ck_assert(ns_rate_step(&r, &p, &o, 0, false));
	o.util = 0.85;
	ck_assert(!ns_rate_step(&r, &p, &o, 0, false));
}
END_TEST

START_TEST(phantom_queue_cuts_to_its_share)
{
	struct ns_rate_params p = rp;
	struct ns_rate_obs o = calm;
	struct ns_rate r;
	int i;

	p.util_max = 0.95;
	ns_rate_init(&r, &p);
	/* a high alpha from earlier congestion would cut half the rate */
	r.alpha = 1;
	o.util = 0.97;
	ck_assert(ns_rate_step(&r, &p, &o, 0, false));
	ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 * 0.95 / 0.97, 1e-3);
	/* a sensitive one is cut less, as alpha's cut would */
	ns_rate_init(&r, &p);
	r.alpha = 1;
	ns_rate_step(&r, &p, &o, 4, true);
	ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 * (1 - (1 - 0.95 / 0.97) / 3), 1e-3);
	/* a real queue on top: the full cut, alpha / (2 + c) */
	for (i = 0; i < 2; i++) {
		ns_rate_init(&r, &p);
		r.alpha = 1;
		o.delay_us = i ? 5000 : 150;
		o.ce = i ? 0 : 1;
		ck_assert(ns_rate_step(&r, &p, &o, 0, false));
		ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 / 2, 1e-3);
	}
	/* a small alpha cuts less than the overshoot: alpha's cut holds */
	ns_rate_init(&r, &p);
	o = calm;
	o.util = 1.5;
	ns_rate_step(&r, &p, &o, 0, false);
	ck_assert_double_eq_tol(r.rate_Bps, 12.5e6 * (1 - 1.0 / 32), 1e-3);
}
END_TEST

START_TEST(turns_or_bytes)
{
	struct ns_app a;
	double n_bytes;
	int i;

	ns_app_init(&a, &ap, NAN);
	ck_assert_double_eq(ns_app_flow_units(&a, 8e6, 2), 8e6);
	ck_assert(!a.by_turns);
	/* a transfer starting: its control connection's few exchanges */
	ck_assert_double_eq(ns_app_flow_units(&a, 600, 3), 600);
	ck_assert(!a.by_turns);
	for (i = 0; i < 20; i++)
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
			    .delay_us = 100 + i * 50, .base_us = 100, .units = 1e6 });
	ck_assert_double_gt(a.slope.n, 10);
	n_bytes = a.slope.n;
	/* 100 bytes a turn: request/response, a regression of its own */
	ck_assert_double_eq(ns_app_flow_units(&a, 1e5, 1000), 1000);
	ck_assert(a.by_turns);
	ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1, .delay_us = 100,
		    .base_us = 100, .units = 1000 });
	ck_assert_double_eq_tol(a.slope.n, 1, 1e-9);
	/* in the margin, and idle: it stays */
	ck_assert_double_eq(ns_app_flow_units(&a, 64e3, 1), 1);
	ck_assert_double_eq(ns_app_flow_units(&a, 0, 0), 0);
	ck_assert(a.by_turns);
	/* a transfer that never drains: bytes again, and what was learnt
	 * in bytes is there still */
	ck_assert_double_eq(ns_app_flow_units(&a, 5e6, 0), 5e6);
	ck_assert(!a.by_turns);
	ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1, .delay_us = 100,
		    .base_us = 100, .units = 1e6 });
	ck_assert_double_gt(a.slope.n, n_bytes);
}
END_TEST

START_TEST(paced_only_where_it_binds)
{
	struct ns_app a;

	ns_app_init(&a, &ap, NAN);
	/* at capacity: held to it once it uses half, for the clamp it brings */
	ck_assert_double_eq(ns_app_pacing(&a, 1e6), 0);
	ck_assert_double_eq(ns_app_pacing(&a, rp.capacity_Bps / 2), rp.capacity_Bps);
	a.rate.rate_Bps = rp.capacity_Bps / 2;
	/* a bulk application using all of its rate is held to it */
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps), a.rate.rate_Bps);
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps / NS_PACE_SLACK),
			    a.rate.rate_Bps);
	/* one using a tenth of it, or idle, is not paced */
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps / 10), 0);
	ck_assert_double_eq(ns_app_pacing(&a, 0), 0);
	/* nor is a request/response one, clocked by its round trips */
	ns_app_flow_units(&a, 1e5, 1000);
	ck_assert(a.by_turns);
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps), 0);
}
END_TEST

/* A fast link: rates past 32 bits of bytes/s are enforced all the same */
START_TEST(pacing_past_34_gbit)
{
	struct ns_app_params p = ap;
	struct ns_app a;

	p.rate.capacity_Bps = 100e9 / 8;
	ns_app_init(&a, &p, NAN);
	a.rate.rate_Bps = 80e9 / 8;
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps), 80e9 / 8);
	a.rate.rate_Bps = 40e9 / 8;
	ck_assert_double_eq(ns_app_pacing(&a, a.rate.rate_Bps), 40e9 / 8);
	/* what the policy map holds */
	ck_assert_uint_eq((__typeof__(((struct ns_policy *)0)->rate_Bps))
			  ns_app_pacing(&a, a.rate.rate_Bps), 5000000000ULL);
}
END_TEST

START_TEST(insensitive_cut_before_sensitive)
{
	struct ns_rate bulk, rr;
	int i, t_bulk = -1, t_rr = -1;

	ns_rate_init(&bulk, &rp);
	ns_rate_init(&rr, &rp);
	for (i = 0; i < 200; i++) {
		ns_rate_step(&bulk, &rp, &jam, 0, false);
		ns_rate_step(&rr, &rp, &jam, 4, true);
		if (t_bulk < 0 && bulk.rate_Bps < rp.capacity_Bps / 2)
			t_bulk = i;
		if (t_rr < 0 && rr.rate_Bps < rp.capacity_Bps / 2)
			t_rr = i;
		ck_assert_double_le(bulk.rate_Bps, rr.rate_Bps);
	}
	ck_assert_int_ge(t_bulk, 0);
	ck_assert(t_rr < 0 || t_rr > t_bulk);
	ck_assert_double_eq_tol(rr.rate_Bps, rp.floor_Bps, 1);
	ck_assert_double_eq_tol(bulk.rate_Bps, rp.min_Bps, 1);
}
END_TEST

START_TEST(recovers_additively)
{
	struct ns_rate r;

	ns_rate_init(&r, &rp);
	for (int i = 0; i < 100; i++)
		ns_rate_step(&r, &rp, &jam, 0, false);
	double low = r.rate_Bps;

	ns_rate_step(&r, &rp, &calm, 0, false);
	ck_assert_double_eq_tol(r.rate_Bps, low + rp.step_Bps, 1e-6);
	for (int i = 0; i < 100; i++)
		ns_rate_step(&r, &rp, &calm, 0, false);
	ck_assert_double_eq(r.rate_Bps, rp.capacity_Bps);
}
END_TEST

/*
 * A bulk transfer first learnt as insensitive (c = 0, free), then held by
 * the loop, whose cuts follow delay, so that its time per byte rises with
 * delay (c = 1 in the data). Held intervals teach a trusted estimate
 * nothing: it stays insensitive. Taught them (held = false), the same
 * intervals make it sensitive, which spares it and slows it: what a
 * two-minute run did before.
 */
static struct ns_app held_bulk(bool held)
{
	struct trng g = { 21 };
	struct ns_app a;
	int i;

	ns_app_init(&a, &ap, NAN);
	for (i = 0; i < 400; i++) {
		double d = 100 * exp(log(20) * trng_unit(&g));
		bool later = i >= 100;

		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
			    .delay_us = d, .base_us = 100,
			    .units = 1e6 * (later ? 100 / d : 1) *
				     exp(0.05 * trng_normal(&g)),
			    .held = later && held });
		if (i == 99) {
			ck_assert(a.trusted);
			ck_assert_double_lt(a.c, ap.c_sensitive);
		}
	}
	return a;
}

START_TEST(held_intervals_do_not_teach)
{
	struct ns_app kept = held_bulk(true), taught = held_bulk(false);
	struct ns_app a;

	ck_assert(kept.trusted);
	ck_assert_double_lt(kept.c, ap.c_sensitive);
	ck_assert(!ns_app_sensitive(&kept, &ap));
	ck_assert(taught.trusted);
	ck_assert_double_gt(taught.c, ap.c_sensitive);
	ck_assert(ns_app_sensitive(&taught, &ap));
	/* untrusted, it learns from held intervals: it has nothing else */
	ns_app_init(&a, &ap, NAN);
	ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
		    .delay_us = 200, .base_us = 100, .units = 1e6,
		    .held = true });
	ck_assert_double_eq(a.blr[0].n, 1);
}
END_TEST

/*
 * Each regression has its own trust. A bulk transfer learnt as insensitive
 * in bytes, whose restarts look request/response for an interval each
 * (a control connection's handshake), then is held by the loop: the turns
 * regression, untrusted while it has few samples, is no reason for the
 * bytes one to learn from held intervals (with one flag shared, it learnt
 * one after each restart until the turns regression was trusted too).
 */
START_TEST(trust_is_per_regression)
{
	struct trng g = { 21 };
	struct ns_app a;
	double n_bytes;
	int i;

	ns_app_init(&a, &ap, NAN);
	for (i = 0; i < 100; i++)
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
			    .delay_us = 100 * exp(log(20) * trng_unit(&g)),
			    .base_us = 100,
			    .units = 1e6 * exp(0.05 * trng_normal(&g)) });
	ck_assert(a.trusted);
	ck_assert(!ns_app_sensitive(&a, &ap));
	n_bytes = a.blr[0].n;
	for (i = 0; i < 300; i++) {
		double d = 100 * exp(log(20) * trng_unit(&g));

		ns_app_flow_units(&a, 1e5, 1000);
		ck_assert(a.by_turns);
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
			    .delay_us = d, .base_us = 100, .units = 1000 });
		if (!i)
			ck_assert(!a.trusted);
		ns_app_flow_units(&a, 5e6, 0);
		ck_assert(!a.by_turns);
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 0.1,
			    .delay_us = d, .base_us = 100,
			    .units = 1e6 * 100 / d, .held = true });
		ck_assert_double_eq(a.blr[0].n, n_bytes);
	}
	ck_assert(a.trusted);
	ck_assert(!ns_app_sensitive(&a, &ap));
}
END_TEST

/*
 * The floor guards an application unless it is known to be insensitive:
 * an estimate whose mean is under the line but whose interval reaches it
 * keeps the floor; one wholly under it, or an operator's figure under it,
 * does not; untrusted, it always does.
 */
START_TEST(sensitive_unless_interval_below)
{
	struct ns_app a;

	ns_app_init(&a, &ap, NAN);
	ck_assert(!a.trusted);
	ck_assert(ns_app_sensitive(&a, &ap));
	a.trusted = true;
	a.slope.mean = ap.c_sensitive - 0.1;
	a.slope.lo = ap.c_sensitive - 0.2;
	a.slope.hi = ap.c_sensitive + 0.05;
	ck_assert(ns_app_sensitive(&a, &ap));
	a.slope.hi = ap.c_sensitive - 0.01;
	ck_assert(!ns_app_sensitive(&a, &ap));
	ns_app_init(&a, &ap, ap.c_sensitive - 0.1);
	ck_assert(!ns_app_sensitive(&a, &ap));
	ns_app_init(&a, &ap, ap.c_sensitive);
	ck_assert(ns_app_sensitive(&a, &ap));
}
END_TEST

/* Trust, once earned, holds until the interval is twice as wide as it
 * takes to earn it. */
START_TEST(trust_has_hysteresis)
{
	struct trng g = { 9 };
	bool held = false;
	double width = 0;
	struct ns_app a;
	int i;

	ns_app_init(&a, &ap, NAN);
	for (i = 0; i < 100; i++)	/* c = 0, little noise */
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 1,
			    .delay_us = 1000 * exp(log(8) * trng_unit(&g)),
			    .base_us = 100,
			    .units = 1e5 * exp(0.05 * trng_normal(&g)) });
	ck_assert(a.trusted);
	/* then much noise: the interval widens */
	for (i = 0; i < 1000 && a.trusted; i++) {
		ns_app_step(&a, &ap, &(struct ns_app_obs){ .dt_s = 1,
			    .delay_us = 1000 * exp(log(8) * trng_unit(&g)),
			    .base_us = 100,
			    .units = 1e5 * exp(4 * trng_normal(&g)) });
		width = a.slope.hi - a.slope.lo;
		if (a.trusted) {
			ck_assert_double_le(width, 2 * ap.max_width);
			held |= width > ap.max_width;
		}
	}
	ck_assert(held);
	ck_assert(!a.trusted);
	ck_assert_double_gt(width, 2 * ap.max_width);
}
END_TEST

/*
 * Two applications under the controller, fed telemetry from a toy path:
 * delay swings between 1 and 8 ms; the ping-pong's time per unit follows
 * the delay (c = 1), the bulk's does not (c = 0). Both get learnt, and the
 * bulk is cut below the ping-pong under congestion.
 */
START_TEST(learns_and_separates)
{
	struct ns_app pp, bulk;
	struct trng g = { 5 };

	ns_app_init(&pp, &ap, NAN);
	ns_app_init(&bulk, &ap, NAN);
	ck_assert(!pp.trusted);
	ck_assert_double_eq(pp.c, ap.c_untrusted);
	for (int i = 0; i < 300; i++) {
		double d = 1000 * exp(log(8) * trng_unit(&g));
		double noise = exp(0.05 * trng_normal(&g));
		struct ns_app_obs o = {
			.dt_s = 1, .delay_us = d, .base_us = 100,
			.units = 1e6 / (2 * d) * noise,
		};

		ns_app_step(&pp, &ap, &o);
		o.units = 1e5 * noise;
		ns_app_step(&bulk, &ap, &o);
	}
	ck_assert(pp.trusted && bulk.trusted);
	ck_assert_msg(pp.slope.lo <= 1 && 1 <= pp.slope.hi, "pp [%g, %g]",
		      pp.slope.lo, pp.slope.hi);
	ck_assert_msg(bulk.slope.lo <= 0 && 0 <= bulk.slope.hi, "bulk [%g, %g]",
		      bulk.slope.lo, bulk.slope.hi);
	ck_assert_double_lt(bulk.rate.rate_Bps, pp.rate.rate_Bps);
	ck_assert_double_ge(pp.rate.rate_Bps, rp.floor_Bps);
}
END_TEST

/* Too few samples to trust: treated as sensitive, floor and all. */
START_TEST(uncertain_is_sensitive)
{
	struct ns_app a;
	struct ns_app_obs o = { .dt_s = 1, .delay_us = 5000, .base_us = 100,
				.units = 10 };

	ns_app_init(&a, &ap, NAN);
	for (int i = 0; i < 300; i++)
		ns_app_step(&a, &ap, &o);	/* x never varies */
	ck_assert(!a.trusted);
	ck_assert_double_eq(a.c, ap.c_untrusted);
	ck_assert_double_eq_tol(a.rate.rate_Bps, rp.floor_Bps, 1);
}
END_TEST

/* A sensitivity the operator knows is acted on at once. */
START_TEST(known_sensitivity)
{
	struct ns_app a;
	struct ns_app_obs o = { .dt_s = 1, .delay_us = 5000, .base_us = 100 };

	ns_app_init(&a, &ap, 0);
	ns_app_step(&a, &ap, &o);
	ck_assert(a.trusted);
	ck_assert_double_eq(a.c, 0);
	ck_assert_double_eq_tol(a.rate.rate_Bps, rp.capacity_Bps * (1 - 1.0 / 32), 1e-3);
}
END_TEST

/* and from the first policy published, before any interval is over:
 * that one went out with c_untrusted, untrusted, for an application the
 * operator called insensitive */
START_TEST(known_sensitivity_from_the_start)
{
	struct ns_app a;

	ns_app_init(&a, &ap, 0.1);
	ck_assert(a.trusted);
	ck_assert_double_eq(a.c, 0.1);
	ck_assert(!ns_app_sensitive(&a, &ap));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_rate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cut_by_alpha_over_2_plus_c);
	tcase_add_test(tc, ce_marks_are_congestion);
	tcase_add_test(tc, phantom_queue_is_congestion);
	tcase_add_test(tc, phantom_queue_cuts_to_its_share);
	tcase_add_test(tc, turns_or_bytes);
	tcase_add_test(tc, paced_only_where_it_binds);
	tcase_add_test(tc, trust_has_hysteresis);
	tcase_add_test(tc, pacing_past_34_gbit);
	tcase_add_test(tc, insensitive_cut_before_sensitive);
	tcase_add_test(tc, recovers_additively);
	tcase_add_test(tc, learns_and_separates);
	tcase_add_test(tc, uncertain_is_sensitive);
	tcase_add_test(tc, known_sensitivity);
	tcase_add_test(tc, known_sensitivity_from_the_start);
	tcase_add_test(tc, held_intervals_do_not_teach);
	tcase_add_test(tc, trust_is_per_regression);
	tcase_add_test(tc, sensitive_unless_interval_below);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
