// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the simulator (tools/sim): the link's latency model, the
 * scanner's arithmetic against a step-by-step scanner, page conservation
 * and capacity under every policy, INDIGO's gate promoting into a full
 * local tier, the oracle against an exhaustive search and against every
 * policy, the online bound against every policy and against one that
 * knows the hot pages, determinism, traces on disk, and a committed
 * trace of a real program (tests/sim/traces, found via SIM_TEST_TRACES)
 * through every policy; the table's refusals and errors. Inputs are small
 * so that valgrind runs fast.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bound.h"
#include "config.h"
#include "epoch.h"
#include "gen.h"
#include "oracle.h"
#include "pol.h"
#include "table.h"

#define T_PAGES		400
#define T_RECS		10000

static struct sim_params small_params(double frac, double cont)
{
	struct sim_params p;

	sim_params_default(&p);
	p.local_frac = frac;
	p.link.contention = cont;
	/* short runs: scan and decide often enough to matter */
	p.scan_period_ns = 200e3;
	p.epoch_ns = 1e6;
	return p;
}

START_TEST(latency_monotonic)
{
	struct link_params p;
	double u, prev;

	link_preset_paper(&p);
	ck_assert_double_eq(link_far_ns(&p, 0), p.far_ns);
	ck_assert_double_eq_tol(link_far_ns(&p, 0.5), 1.5 * p.far_ns, 1e-9);
	prev = link_far_ns(&p, 0);
	for (u = 0.01; u <= 1.2; u += 0.01) {
		double l = link_far_ns(&p, u);

		ck_assert(l >= prev);
		if (u <= LINK_U_MAX)
			ck_assert(l > prev);
		prev = l;
	}
	link_preset_cxl(&p);
	ck_assert_int_eq(link_check(&p), 0);
	ck_assert(link_far_ns(&p, 0) < 900.0);
	p.contention = 1.0;
	ck_assert_int_eq(link_check(&p), -EINVAL);
}
END_TEST

/* A contender and our own traffic both raise the far latency we see. */
START_TEST(load_raises_latency)
{
	struct link_params p;
	struct link l, busy;

	link_preset_paper(&p);
	link_init(&l, &p);
	link_advance(&l, p.window_ns * 1.5);
	ck_assert_double_eq(l.far_now, p.far_ns);
	link_init(&busy, &p);
	link_add(&busy, (uint64_t)(link_bytes_per_ns(&p) * p.window_ns / 4));
	link_advance(&busy, p.window_ns * 1.5);
	ck_assert(busy.far_now > l.far_now);
	ck_assert(link_avail_bytes_per_ns(&busy) < link_avail_bytes_per_ns(&l));
	p.contention = 0.5;
	link_init(&l, &p);
	ck_assert(l.far_now > busy.far_now);
}
END_TEST

/* sim_fault_mark against a scanner that marks page by page */
START_TEST(scan_arithmetic)
{
	struct sim_params p = small_params(0.5, 0);
	const uint32_t np = 10;
	double marked[10], last[10];
	uint32_t pg, step, j, k;

	p.scan_pages = 3;
	p.scan_period_ns = 100;
	for (pg = 0; pg < np; pg++) {
		marked[pg] = -1;
		last[pg] = -1;
	}
	for (step = 0; step < 40; step++) {
		uint32_t chunk = step % 4;	/* ceil(10 / 3) chunks */

		for (j = chunk * 3; j < chunk * 3 + 3 && j < np; j++)
			if (marked[j] < 0)
				marked[j] = step * 100.0;
		/* touch some pages in between scans */
		for (k = 0; k < 3; k++) {
			double now = step * 100.0 + 10 + 30 * k;

			pg = (step * 7 + k * 3) % np;
			ck_assert_double_eq(sim_fault_mark(&p, np, pg, last[pg], now),
					    marked[pg]);
			marked[pg] = -1;
			last[pg] = now;
		}
	}
}
END_TEST

/*
 * kswapd's high watermark (twice its low one) can be the whole local
 * tier: one local page (low 1), or -K 0.5. It must still not demote
 * everything, the page just promoted with it: TPP, promoting these first
 * touches, keeps the page it then uses on local.
 */
START_TEST(kswapd_never_empties)
{
	struct sim_params p = small_params(0.25, 0);
	struct pol_cfg c = { .kind = POL_TPP };
	struct sim_result r;
	struct trace t;
	uint64_t i;

	/* one local page, used on */
	ck_assert_int_eq(trace_alloc(&t, 4, 100), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = 0;
		t.r[i].insns = 1;
	}
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 1);
	ck_assert_int_eq(table_run_one(&t, &p, &c, &r, NULL, 0), 0);
	ck_assert_uint_eq(r.promotions, 1);
	ck_assert_uint_eq(r.demotions, 0);
	ck_assert_uint_eq(r.local_hits, t.n - 1);
	trace_free(&t);
	/* four local pages, half kept free: three promotions leave one */
	ck_assert_int_eq(trace_alloc(&t, 16, 100), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = i < 3 ? (uint32_t)i : 2;
		t.r[i].insns = 1;
	}
	p.kswapd_frac = 0.5;
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 4);
	ck_assert_int_eq(table_run_one(&t, &p, &c, &r, NULL, 0), 0);
	ck_assert_uint_eq(r.promotions, 3);
	ck_assert_uint_eq(r.demotions, 2);
	trace_free(&t);
}
END_TEST

/*
 * Wraps a policy and checks the host at every call: local capacity never
 * exceeded, and pages conserved: local pages are exactly those promoted
 * and not demoted (everything starts far), far ones the rest. Violations
 * are counted and asserted once (a Check assertion per fault is slow).
 */
struct audit {
	struct sim_policy inner;
	uint64_t calls, bad;
};

static bool view_ok(const struct sim_view *v)
{
	const struct sim_result *r = v->res;
	uint64_t local = r->promotions - r->demotions;

	return v->local_used <= v->local_pages && local == v->local_used &&
	       r->demotions <= r->promotions && local <= v->npages &&
	       r->local_hits + r->far_accesses <= UINT64_MAX / 2;
}

static enum sim_verdict audit_fault(struct sim_policy *pol,
				    const struct sim_view *v,
				    const struct sim_fault *f)
{
	struct audit *a = pol->st;

	a->bad += !view_ok(v) || f->mark_ns > f->now_ns || f->page >= v->npages;
	a->calls++;
	return a->inner.ops->fault(&a->inner, v, f);
}

static int audit_epoch(struct sim_policy *pol, const struct sim_view *v,
		       double now_ns)
{
	struct audit *a = pol->st;

	a->bad += !view_ok(v);
	a->calls++;
	return sim_policy_epoch(&a->inner, v, now_ns);
}

static void audit_destroy(struct sim_policy *pol)
{
	(void)pol;
}

static const struct sim_policy_ops audit_ops = {
	.fault = audit_fault, .epoch = audit_epoch,
	.destroy = audit_destroy,
};

static void run_audited(const struct trace *t, const struct sim_params *p,
			const struct pol_cfg *c, struct sim_result *r)
{
	struct audit a = { 0 };
	struct sim_policy w = { .ops = &audit_ops, .st = &a };
	char err[256];

	ck_assert_int_eq(pol_create(&a.inner, c, p, t->npages, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_run(t, p, &w, r), 0);
	ck_assert_int_eq(pol_finish(&a.inner, err, sizeof(err)), 0);
	ck_assert_uint_gt(a.calls, 0);
	ck_assert_uint_eq(a.bad, 0);
	ck_assert_uint_le(r->promotions - r->demotions, sim_local_pages(p, t->npages));
	ck_assert_uint_eq(r->local_hits + r->far_accesses, t->n * p->repeat);
	ck_assert(r->stall_ns > 0 && r->time_ns >= r->stall_ns);
}

/* Every policy (and a few fixed arms) vs the oracle, and none vs it. */
static void bound_all(const struct trace *t, const struct sim_params *p)
{
	static const unsigned int arms[] = { 0, 5, 15, 16, 17 };
	struct sim_result o, r, none = { 0 };
	int k;
	unsigned int a;

	ck_assert_int_eq(oracle_run(t, p, &o), 0);
	for (k = 0; k < POL_COUNT; k++)
		for (a = 0; a < (k == POL_FIXED ? 4 : 1); a++) {
			struct pol_cfg c = { .kind = k, .arm = arms[a], .warmup = 5 };

			run_audited(t, p, &c, &r);
			ck_assert_msg(r.stall_ns >= o.stall_ns,
				      "%s beats the oracle: %g < %g", pol_name(k),
				      r.stall_ns, o.stall_ns);
			ck_assert_uint_ge(r.far_accesses, o.far_accesses);
			if (k == POL_NONE)
				none = r;
		}
	ck_assert(none.stall_ns >= o.stall_ns);
	ck_assert_uint_eq(none.promotions, 0);
	ck_assert_uint_eq(none.local_hits, 0);
	/* link bytes count every thread's lines, the oracle's as the host's */
	ck_assert_uint_eq(none.link_bytes,
			  none.far_accesses * LINK_LINE_BYTES * p->threads);
	ck_assert_uint_eq(o.link_bytes,
			  o.far_accesses * LINK_LINE_BYTES * p->threads);
}

START_TEST(oracle_bounds_synthetic)
{
	static const double fr[] = { 0.1, 0.5 }, co[] = { 0, 0.5 };
	struct trace t;
	unsigned int i, j;

	ck_assert_int_eq(gen_trace(&t, _i, T_PAGES, T_RECS, 3 + _i), 0);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			struct sim_params p = small_params(fr[i], co[j]);

			p.threads = 1 + 3 * j;
			bound_all(&t, &p);
		}
	trace_free(&t);
}
END_TEST

/* the workloads whose records are independent draws: bound_online()'s */
static const int irm_kinds[] = { GEN_GUPS, GEN_ZIPF, GEN_PHASE };
#define B_PAGES		400
#define B_RECS		100000
#define B_RECS_REACH	1000000	/* long enough for the bound to be close */

/*
 * A run strays from the bound's expectation by its hits' spread, about
 * sqrt(n q (1 - q)) hits each F_c - L apart: four of those, in ns (the
 * traces' seeds are fixed, so this is no flakiness margin, just the room
 * a fair draw needs).
 */
static double bound_slack(const struct sim_params *p, int kind, uint64_t n)
{
	double q, far = link_far_ns(&p->link, p->link.contention);

	ck_assert_int_eq(gen_top_share(kind, B_PAGES, sim_local_pages(p, B_PAGES), &q), 0);
	return 4 * sqrt((double)n * q * (1 - q)) * (far - p->link.local_ns);
}

/* No policy (nor a few fixed arms) beats the online bound. */
START_TEST(online_bound_holds)
{
	static const unsigned int arms[] = { 0, 5, 15, 16 };
	static const double fr[] = { 0.25, 0.5 }, co[] = { 0.5, 0 };
	int kind = irm_kinds[_i];
	struct sim_result r;
	struct trace t;
	unsigned int j, a;
	int k;

	ck_assert_int_eq(gen_trace(&t, kind, B_PAGES, B_RECS, 11 + _i), 0);
	for (j = 0; j < 2; j++) {
		struct sim_params p = small_params(fr[j], co[j]);
		double b;

		p.threads = 1 + 3 * j;
		ck_assert_int_eq(bound_online(&p, kind, t.npages, t.n, &b), 0);
		for (k = 0; k < POL_COUNT; k++)
			for (a = 0; a < (k == POL_FIXED ? 4 : 1); a++) {
				struct pol_cfg c = { .kind = k, .arm = arms[a], .warmup = 5 };

				run_audited(&t, &p, &c, &r);
				ck_assert_msg(r.stall_ns >= b - bound_slack(&p, kind, t.n),
					      "%s beats the online bound on %s: %g < %g",
					      pol_name(k), gen_name(kind), r.stall_ns, b);
			}
	}
	trace_free(&t);
}
END_TEST

/*
 * A policy that knows the distribution each record draws from (not the
 * draws): it promotes in the background, at its first fault, each of the
 * pages most likely in the current phase (the whole trace but for phase),
 * as many as kswapd lets stay local; a past phase's leave as kswapd
 * demotes them. It pays a far access for each page it brings in and holds
 * one page fewer than the bound's set; it must come within 2 % of the
 * bound, or the bound is too low to say what a policy could reach, and,
 * knowing no draw, must not beat it.
 */
struct prescient {
	uint8_t *hot;			/* [phase][page] */
	uint32_t npages;
	uint64_t n;			/* records */
	unsigned int phases;
};

static enum sim_verdict prescient_fault(struct sim_policy *pol,
					const struct sim_view *v,
					const struct sim_fault *f)
{
	struct prescient *ps = pol->st;
	/* the counters include this access */
	uint64_t i = v->res->local_hits + v->res->far_accesses - 1;
	uint64_t ph = i * ps->phases / ps->n;

	return f->far && ps->hot[ph * ps->npages + f->page] ? SIM_PROMOTE_BG : SIM_STAY;
}

static const struct sim_policy_ops prescient_ops = {
	.fault = prescient_fault,
	.destroy = audit_destroy,
};

/* @ps->hot for phase @ph: the @keep pages most likely in it */
static void prescient_phase(struct prescient *ps, int kind, unsigned int ph,
			    uint32_t keep)
{
	uint64_t i0 = (ph * ps->n + ps->phases - 1) / ps->phases;
	uint32_t r, pg;

	for (r = 0; r < keep; r++) {
		pg = gen_rank_page(kind, ps->npages, ps->n, i0, r);
		ck_assert_uint_lt(pg, ps->npages);
		ps->hot[(size_t)ph * ps->npages + pg] = 1;
	}
}

START_TEST(online_bound_is_reached)
{
	static const double fr[] = { 0.25, 0.5 }, co[] = { 0.5, 0 };
	int kind = irm_kinds[_i];
	struct prescient ps = { .npages = B_PAGES, .n = B_RECS_REACH,
				.phases = kind == GEN_PHASE ? GEN_PHASES : 1 };
	struct sim_policy pol = { .ops = &prescient_ops, .st = &ps };
	struct sim_result r;
	struct trace t;
	unsigned int j, ph;

	ck_assert_int_eq(gen_trace(&t, kind, B_PAGES, B_RECS_REACH, 21 + _i), 0);
	ps.hot = calloc((size_t)ps.phases * t.npages, 1);
	ck_assert_ptr_nonnull(ps.hot);
	for (j = 0; j < 2; j++) {
		struct sim_params p = small_params(fr[j], co[j]);
		double b;

		/* kswapd's reserve at its least (one page): a set the size of
		 * the bound's, less one */
		p.kswapd_frac = 1e-3;
		memset(ps.hot, 0, (size_t)ps.phases * t.npages);
		for (ph = 0; ph < ps.phases; ph++)
			prescient_phase(&ps, kind, ph, sim_local_pages(&p, t.npages) -
					sim_kswapd_low(&p, t.npages));
		ck_assert_int_eq(sim_run(&t, &p, &pol, &r), 0);
		ck_assert_int_eq(bound_online(&p, kind, t.npages, t.n, &b), 0);
		/* it is an online policy too: no better than the bound */
		ck_assert_msg(r.stall_ns >= b - bound_slack(&p, kind, t.n),
			      "%s, local %.2f: knowing the hot pages beats the bound: %g < %g",
			      gen_name(kind), fr[j], r.stall_ns, b);
		ck_assert_msg(r.stall_ns <= 1.02 * b,
			      "%s, local %.2f: knowing the hot pages gives %g, bound %g",
			      gen_name(kind), fr[j], r.stall_ns, b);
	}
	free(ps.hot);
	trace_free(&t);
}
END_TEST

/* Only where records are independent draws, and the shares add up. */
START_TEST(online_bound_where_defined)
{
	struct sim_params p = small_params(0.25, 0.5);
	double b, q, prev = 0;
	uint32_t k;

	ck_assert_int_eq(bound_online(&p, GEN_STREAM, B_PAGES, B_RECS, &b), -EINVAL);
	p.repeat = 2;
	ck_assert_int_eq(bound_online(&p, GEN_GUPS, B_PAGES, B_RECS, &b), -EINVAL);
	p.repeat = 1;
	ck_assert_int_eq(bound_online(&p, GEN_GUPS, 5, B_RECS, &b), -EINVAL);
	/* gups: 90 % on the hot tenth, plus the uniform tenth's share */
	ck_assert_int_eq(gen_top_share(GEN_GUPS, 1000, 100, &q), 0);
	ck_assert_double_eq_tol(q, 0.91, 1e-12);
	ck_assert_int_eq(gen_top_share(GEN_PHASE, 1000, 250, &q), 0);
	ck_assert_double_eq_tol(q, 0.925, 1e-12);
	for (k = 0; k <= 1000; k += 50) {
		ck_assert_int_eq(gen_top_share(GEN_ZIPF, 1000, k, &q), 0);
		ck_assert(q >= prev && q <= 1);
		prev = q;
	}
	ck_assert_double_eq_tol(prev, 1, 1e-12);
	/* all local: every access at local_ns */
	p.local_frac = 1;
	ck_assert_int_eq(bound_online(&p, GEN_ZIPF, B_PAGES, B_RECS, &b), 0);
	ck_assert_double_eq_tol(b, B_RECS * p.link.local_ns, 1e-6);
}
END_TEST

/*
 * The INDIGO glue runs indigod's defaults, free_min_kib 0 among them: once
 * local memory is full the gate keeps letting promotions through and the
 * simulated kswapd (the same for every policy) makes room, as for TPP. A
 * low watermark of one epoch at the default cap (305 pages here, more
 * than the 100 local pages) would veto every promotion once the module
 * leaves observe mode.
 */
START_TEST(gate_keeps_promoting_when_full)
{
	struct sim_params p = small_params(0.25, 0.5);
	struct pol_cfg c = { .kind = POL_HEURISTIC };
	struct pol_cfg tpp = { .kind = POL_TPP };
	struct indigod_config host;
	struct sim_result r, rt;
	struct trace t;
	uint32_t local;

	config_defaults(&host);
	ck_assert_uint_eq(host.policy.free_min_kib, 0);
	ck_assert_int_eq(gen_trace(&t, GEN_PHASE, T_PAGES, 4 * T_RECS, 11), 0);
	local = sim_local_pages(&p, t.npages);
	run_audited(&t, &p, &c, &r);
	run_audited(&t, &p, &tpp, &rt);
	/* the hot set moves three times: each move is promoted and demoted */
	ck_assert_uint_gt(r.demotions, 2 * local);
	ck_assert_uint_gt(r.promotions, 3 * local);
	/* the same kernel made room for TPP */
	ck_assert_uint_gt(rt.demotions, 2 * local);
	trace_free(&t);
}
END_TEST

/*
 * A cyclic scan over four times local memory: every page has the same
 * rate, so the lowest gate arm admits them all and, once local memory is
 * full, kswapd demotes the pages the scan reaches next, so what it
 * promoted is gone before it is touched again. The fill arm stops while
 * 1/16 of local memory is still free, above the simulated kswapd's
 * watermark (1/32): once it has filled (the first epoch runs in the
 * module's observe mode, which promotes everything), a second walk of the
 * trace demotes nothing more, and its subset hits on every pass.
 */
START_TEST(fill_keeps_a_subset)
{
	struct sim_params p = small_params(0.25, 0);
	struct pol_cfg fill = { .kind = POL_FIXED }, low = { .kind = POL_FIXED };
	struct sim_result rf1, rf2, rl1, rl2;
	struct act_grid g;
	struct trace t;

	pol_grid(&g);
	fill.arm = actions_fill_arm(&g);
	low.arm = 0;			/* lowest burst and rate thresholds */
	ck_assert_int_eq(gen_trace(&t, GEN_STREAM, T_PAGES, T_RECS, 3), 0);
	p.repeat = 1;
	run_audited(&t, &p, &fill, &rf1);
	run_audited(&t, &p, &low, &rl1);
	p.repeat = 2;
	run_audited(&t, &p, &fill, &rf2);
	run_audited(&t, &p, &low, &rl2);
	ck_assert_uint_ge(rf1.promotions, sim_local_pages(&p, t.npages) / 2);
	ck_assert_uint_eq(rf2.demotions, rf1.demotions);
	ck_assert_uint_eq(rf2.promotions, rf1.promotions);
	ck_assert_uint_gt(rl2.demotions, rl1.demotions);
	ck_assert_msg(rf2.stall_ns < rl2.stall_ns, "fill %g ns, lowest gate %g ns",
		      rf2.stall_ns, rl2.stall_ns);
	trace_free(&t);
}
END_TEST

static enum sim_verdict always_fault(struct sim_policy *pol,
				     const struct sim_view *v,
				     const struct sim_fault *f)
{
	(void)pol;
	(void)v;
	return f->far ? SIM_PROMOTE : SIM_STAY;
}

static const struct sim_policy_ops always_ops = {
	.fault = always_fault,
	.destroy = audit_destroy,
};

/*
 * kswapd demotes by CLOCK, least recently used first: three local pages,
 * one kept free; promoting pages 0, 1, 2 in turn wakes kswapd, which must
 * demote 0 and 1 and keep 2, the page just promoted and then used on.
 */
START_TEST(kswapd_keeps_newest)
{
	struct sim_params p = small_params(0.25, 0);
	struct sim_policy pol = { .ops = &always_ops };
	struct sim_result r;
	struct trace t;
	uint64_t i;

	ck_assert_int_eq(trace_alloc(&t, 12, 100), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = i < 3 ? (uint32_t)i : 2;
		t.r[i].insns = 1;
	}
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 3);
	ck_assert_uint_eq(sim_kswapd_low(&p, t.npages), 1);
	ck_assert_int_eq(sim_run(&t, &p, &pol, &r), 0);
	ck_assert_uint_eq(r.promotions, 3);
	ck_assert_uint_eq(r.demotions, 2);
	ck_assert_uint_eq(r.local_hits, t.n - 3);
	trace_free(&t);
}
END_TEST

/*
 * CLOCK gives every page one second chance in ring order, so pages that
 * are promoted and never touched again leave in the order they came, as
 * from the kernel's LRU lists. Eight local pages, kswapd freeing two at a
 * time: after 16 single touches the newest six, 10 to 15, are local, and
 * touching 12 and 13 again hits.
 */
START_TEST(kswapd_demotes_oldest_first)
{
	struct sim_params p = small_params(0.25, 0);
	struct sim_policy pol = { .ops = &always_ops };
	struct sim_result r;
	struct trace t;
	uint64_t i;

	ck_assert_int_eq(trace_alloc(&t, 32, 18), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = i < 16 ? (uint32_t)i : (uint32_t)i - 4;
		t.r[i].insns = 1;
	}
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 8);
	ck_assert_uint_eq(sim_kswapd_low(&p, t.npages), 1);
	ck_assert_int_eq(sim_run(&t, &p, &pol, &r), 0);
	ck_assert_uint_eq(r.promotions, 16);
	ck_assert_uint_eq(r.demotions, 10);
	ck_assert_uint_eq(r.local_hits, 2);
	trace_free(&t);
}
END_TEST

/* always_fault, keeping each far fault's page and marking time */
struct fault_log {
	uint32_t page[8];
	double mark[8];
	unsigned int n;
};

static enum sim_verdict log_fault(struct sim_policy *pol,
				  const struct sim_view *v,
				  const struct sim_fault *f)
{
	struct fault_log *l = pol->st;

	(void)v;
	if (f->far && l->n < 8) {
		l->page[l->n] = f->page;
		l->mark[l->n++] = f->mark_ns;
	}
	return f->far ? SIM_PROMOTE : SIM_STAY;
}

static const struct sim_policy_ops log_ops = {
	.fault = log_fault,
	.destroy = audit_destroy,
};

/*
 * A demoted page is not marked: migration rebuilds its PTE from the VMA's
 * protection (remove_migration_pte()), and tiering mode resets its access
 * time when it changes tier (folio_migrate_flags()). Page 0, promoted at
 * once, is passed by the scan at 1 ms while local, demoted at 1.2 ms and
 * touched right after: no fault until the scan at 2 ms marks it again,
 * and that fault reports the 2 ms marking.
 */
START_TEST(demotion_clears_mark)
{
	static const uint32_t pages[] = { 0, 1, 2, 0, 0 };
	static const uint32_t insns[] = { 1, 4000000, 1, 1, 4000000 };
	struct sim_params p = small_params(0.25, 0);
	struct fault_log l = { .n = 0 };
	struct sim_policy pol = { .ops = &log_ops, .st = &l };
	struct sim_result r;
	struct trace t;
	uint64_t i;

	p.scan_period_ns = 1e6;
	ck_assert_int_eq(trace_alloc(&t, 12, 5), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = pages[i];
		t.r[i].insns = insns[i];
	}
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 3);
	ck_assert_int_eq(sim_run(&t, &p, &pol, &r), 0);
	/* promoting 2 made kswapd demote 0 and 1 */
	ck_assert_uint_eq(r.demotions, 2);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_uint_eq(l.page[3], 0);
	ck_assert_double_eq(l.mark[3], 2e6);
	ck_assert_uint_eq(r.far_faults, 4);
	ck_assert_uint_eq(r.local_hits, 0);
	trace_free(&t);
}
END_TEST

/* minimal misses of any demand schedule with bypass, by exhaustive search */
static uint64_t brute_misses(const struct trace *t, unsigned int c)
{
	uint64_t best[1 << 6], next[1 << 6], i, inf = UINT64_MAX / 2;
	unsigned int s, sub, np = t->npages;

	for (s = 0; s < (1U << np); s++)
		best[s] = s ? inf : 0;
	for (i = 0; i < t->n; i++) {
		unsigned int bit = 1U << t->r[i].page;

		for (s = 0; s < (1U << np); s++)
			next[s] = inf;
		for (s = 0; s < (1U << np); s++) {
			uint64_t cost;
			unsigned int after;

			if (best[s] >= inf)
				continue;
			cost = best[s] + !(s & bit);
			after = s | bit;
			/* keep any subset of what is there now, the page or not */
			for (sub = after;; sub = (sub - 1) & after) {
				if ((unsigned int)__builtin_popcount(sub) <= c &&
				    ((sub & ~s) == 0 || (sub & ~s) == bit) &&
				    cost < next[sub])
					next[sub] = cost;
				if (!sub)
					break;
			}
		}
		memcpy(best, next, sizeof(best));
	}
	for (s = 1, i = best[0]; s < (1U << np); s++)
		if (best[s] < i)
			i = best[s];
	return i;
}

START_TEST(oracle_is_optimal)
{
	uint64_t seed = 99;
	unsigned int round;

	for (round = 0; round < 200; round++) {
		struct sim_params p = small_params(0.5, 0);
		struct sim_result r;
		struct trace t;
		uint32_t np = 3 + round % 4;
		uint64_t i;

		ck_assert_int_eq(trace_alloc(&t, np, 6 + round % 9), 0);
		for (i = 0; i < t.n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			t.r[i].page = (uint32_t)((seed >> 33) % np);
			t.r[i].insns = 1;
		}
		p.local_frac = (double)(1 + round % 3) / np;
		p.repeat = 1 + round % 2;
		ck_assert_int_eq(oracle_run(&t, &p, &r), 0);
		if (p.repeat == 1)
			ck_assert_uint_eq(r.far_accesses,
					  brute_misses(&t, sim_local_pages(&p, np)));
		trace_free(&t);
	}
}
END_TEST

START_TEST(deterministic)
{
	struct sim_params p = small_params(0.25, 0.5);
	struct pol_cfg c = { .kind = _i, .arm = 6, .warmup = 5 };
	struct sim_result a, b;
	struct trace t, u;

	ck_assert_int_eq(gen_trace(&t, GEN_PHASE, T_PAGES, T_RECS, 5), 0);
	ck_assert_int_eq(gen_trace(&u, GEN_PHASE, T_PAGES, T_RECS, 5), 0);
	ck_assert_mem_eq(t.r, u.r, t.n * sizeof(*t.r));
	ck_assert_int_eq(table_run_one(&t, &p, &c, &a, NULL, 0), 0);
	ck_assert_int_eq(table_run_one(&u, &p, &c, &b, NULL, 0), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	trace_free(&u);
	ck_assert_int_eq(gen_trace(&u, GEN_PHASE, T_PAGES, T_RECS, 6), 0);
	ck_assert(memcmp(t.r, u.r, t.n * sizeof(*t.r)) != 0);
	trace_free(&t);
	trace_free(&u);
}
END_TEST

START_TEST(gen_shapes)
{
	struct trace t;
	uint64_t i, hot = 0, seq = 0;

	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, 1000, 50000, 1), 0);
	for (i = 0; i < t.n; i++)
		hot += t.r[i].page < 100;
	/* 90 % to the hot tenth, plus a tenth of the uniform rest */
	ck_assert(hot > 0.90 * t.n && hot < 0.92 * t.n);
	trace_free(&t);
	ck_assert_int_eq(gen_trace(&t, GEN_STREAM, 1000, 50000, 1), 0);
	for (i = 1; i < t.n; i++)
		seq += t.r[i].page == (t.r[i - 1].page + (i % GEN_STREAM_LINES == 0)) % 1000;
	ck_assert_uint_eq(seq, t.n - 1);
	trace_free(&t);
	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, 5, 10, 1), -EINVAL);
	ck_assert_int_eq(gen_parse("zipf"), GEN_ZIPF);
	ck_assert_int_eq(gen_parse("nope"), -1);
}
END_TEST

static char *tmp_path(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "/tmp/indigo-sim-test-%d-%s", (int)getpid(), name);
	return path;
}

/* overwrites the header's page count of the trace at @path */
static void set_npages(const char *path, uint32_t npages)
{
	FILE *f = fopen(path, "r+");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 12, SEEK_SET), 0);
	ck_assert_int_eq(fwrite(&npages, 4, 1, f), 1);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(trace_files)
{
	struct trace t, u;
	char *path = tmp_path("trace"), err[256] = "";
	FILE *f;

	ck_assert_int_eq(gen_trace(&t, GEN_ZIPF, 100, 1000, 2), 0);
	ck_assert_int_eq(trace_save(&t, path), 0);
	ck_assert_int_eq(trace_load(&u, path, NULL, 0), 0);
	ck_assert_uint_eq(u.npages, 100);
	ck_assert_uint_eq(u.n, 1000);
	ck_assert_mem_eq(t.r, u.r, t.n * sizeof(*t.r));
	trace_free(&u);
	/* a page id out of range */
	t.r[10].page = 100;
	ck_assert_int_eq(trace_save(&t, path), 0);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "page 100"), "err '%s'", err);
	/* truncated */
	t.r[10].page = 1;
	ck_assert_int_eq(trace_save(&t, path), 0);
	ck_assert_int_eq(truncate(path, TRACE_HDR_BYTES + 8 * 999 + 4), 0);
	ck_assert_int_eq(trace_load(&u, path, NULL, 0), -EINVAL);
	/* a header that claims more records than the file holds */
	ck_assert_int_eq(trace_save(&t, path), 0);
	f = fopen(path, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 16, SEEK_SET), 0);
	ck_assert_int_eq(fwrite(&(uint64_t){ TRACE_MAX_RECS - 1 }, 8, 1, f), 1);
	fclose(f);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "records"), "err '%s'", err);
	/* foreign */
	f = fopen(path, "w");
	fputs("not a trace at all, just some text..........", f);
	fclose(f);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, path), "err '%s'", err);
	/* no records: refused, not a table of zeros */
	t.n = 0;
	ck_assert_int_eq(trace_save(&t, path), 0);
	ck_assert_int_eq(trace_load(&u, path, NULL, 0), -ENODATA);
	t.n = 1000;
	unlink(path);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, path), "err '%s'", err);
	trace_free(&t);
}
END_TEST

/*
 * A header that claims billions of pages for a few records: every policy
 * allocates per page, so it is refused on load, before anything is
 * allocated for it, and says why. As many pages as records is the most a
 * trace can name.
 */
START_TEST(trace_claims_too_many_pages)
{
	struct trace t, u;
	char *path = tmp_path("pages"), err[256] = "";

	ck_assert_int_eq(gen_trace(&t, GEN_ZIPF, 100, 1000, 2), 0);
	ck_assert_int_eq(trace_save(&t, path), 0);
	trace_free(&t);
	set_npages(path, UINT32_MAX);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "4294967295 pages") && strstr(err, "1000 records"),
		      "err '%s'", err);
	ck_assert_int_eq(trace_load(&u, path, NULL, 0), -EINVAL);
	set_npages(path, 1001);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), -EINVAL);
	set_npages(path, 1000);
	ck_assert_int_eq(trace_load(&u, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(u.npages, 1000);
	trace_free(&u);
	unlink(path);
}
END_TEST

/* train saves a model the agent's glue loads; a broken one is refused */
START_TEST(train_and_load)
{
	struct sim_params p = small_params(0.25, 0.5);
	char *path = tmp_path("model"), err[256];
	struct pol_cfg c = { .kind = POL_BANDIT, .warmup = 5 };
	struct sim_policy pol;
	struct sim_result r;
	struct trace t;
	struct epoch_state es;
	struct epoch_params ep = {
		.learner = CONFIG_LEARNER_LINUCB, .epoch_s = 1, .rate_cap_share = 0.1,
		.fill_share = ACT_FILL_SHARE_DEFAULT,
		.link = { .bandwidth = 1e10, .far_ns = 900, .local_ns = 100,
			  .page_bytes = 4096 },
	};
	struct act_grid g;
	FILE *f;

	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, T_PAGES, T_RECS, 8), 0);
	c.model_out = path;
	ck_assert_int_eq(table_run_one(&t, &p, &c, &r, NULL, 0), 0);
	pol_grid(&g);
	ck_assert_int_eq(epoch_init(&es, &ep, &g, NULL), 0);
	ck_assert_int_eq(epoch_model_load(&es, path, err, sizeof(err)), 0);
	ck_assert(es.updates > 0);
	epoch_free(&es);
	c.model_out = NULL;
	c.model_in = path;
	ck_assert_int_eq(table_run_one(&t, &p, &c, &r, NULL, 0), 0);
	f = fopen(path, "r+");
	fseek(f, 40, SEEK_SET);
	fputc('X', f);
	fclose(f);
	ck_assert_int_eq(pol_create(&pol, &c, &p, t.npages, err, sizeof(err)), -EINVAL);
	ck_assert(strlen(err) > 0);
	trace_free(&t);
	/* modelfile moved the corrupt file aside */
	ck_assert_int_eq(access(path, F_OK), -1);
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -f %s.corrupt-*", path);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

/* the committed real-program traces through every policy and the oracle */
START_TEST(real_traces)
{
	static const char *const names[] = { "redis-small.trace", "sqlite-small.trace" };
	const char *dir = getenv("SIM_TEST_TRACES");
	char path[512];
	unsigned int i;

	ck_assert_msg(dir, "SIM_TEST_TRACES unset (run via make check-sim)");
	for (i = 0; i < 2; i++) {
		struct sim_params p = small_params(0.25, 0.5);
		struct trace t;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ck_assert_int_eq(trace_load(&t, path, NULL, 0), 0);
		ck_assert(t.n >= 10000 && t.npages >= 100);
		bound_all(&t, &p);
		p.local_frac = 0.5;
		p.link.contention = 0;
		bound_all(&t, &p);
		trace_free(&t);
	}
}
END_TEST

START_TEST(bad_params)
{
	struct sim_params p = small_params(0.25, 0);
	struct sim_policy pol;
	struct sim_result r;
	struct pol_cfg c = { .kind = POL_FIXED, .arm = 18 };
	struct trace t;

	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, 100, 100, 1), 0);
	ck_assert_int_eq(pol_create(&pol, &c, &p, t.npages, NULL, 0), -EINVAL);
	c.kind = POL_NONE;
	p.local_frac = 0;
	ck_assert_int_eq(pol_create(&pol, &c, &p, t.npages, NULL, 0), -EINVAL);
	ck_assert_int_eq(oracle_run(&t, &p, &r), -EINVAL);
	p.local_frac = 0.5;
	p.link.far_ns = 50;
	ck_assert_int_eq(oracle_run(&t, &p, &r), -EINVAL);
	ck_assert_int_eq(pol_parse("tpp"), POL_TPP);
	ck_assert_int_eq(pol_parse("x"), -1);
	trace_free(&t);
	/*
	 * The run calls the policy once per elapsed epoch: a vanishing epoch
	 * or scan period, or a migration stalling for ages, would never end.
	 */
	p = small_params(0.25, 0);
	ck_assert_int_eq(sim_params_check(&p), 0);
	p.epoch_ns = 1e-294;
	ck_assert_int_eq(sim_params_check(&p), -EINVAL);
	p = small_params(0.25, 0);
	p.scan_period_ns = 1e-24;
	ck_assert_int_eq(sim_params_check(&p), -EINVAL);
	p = small_params(0.25, 0);
	p.page_bytes = 1e19;
	ck_assert_int_eq(sim_params_check(&p), -EINVAL);
	p = small_params(0.25, 0);
	p.k_ns = 1e300;
	ck_assert_int_eq(sim_params_check(&p), -EINVAL);
	/* bytes x threads into the link's counter: wrapped within 10^8
	 * accesses at 2^32 threads */
	p = small_params(0.25, 0);
	p.threads = 4096;
	ck_assert_int_eq(sim_params_check(&p), 0);
	p.threads = UINT32_MAX;
	ck_assert_int_eq(sim_params_check(&p), -EINVAL);
}
END_TEST

/* a policy's refusal says why; a model that cannot be saved, where */
START_TEST(errors_say_why)
{
	struct sim_params p = small_params(0.25, 0);
	struct pol_cfg c = { .kind = POL_FIXED, .arm = 18 };
	struct sim_policy pol;
	struct sim_result r;
	struct trace t;
	char err[256] = "";

	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, 100, 1000, 1), 0);
	ck_assert_int_eq(pol_create(&pol, &c, &p, t.npages, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "arm 18"), "err '%s'", err);
	c.kind = POL_BANDIT;
	c.model_out = "/nonexistent-indigo-dir/m.model";
	ck_assert_int_eq(table_run_one(&t, &p, &c, &r, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, c.model_out), "err '%s'", err);
	trace_free(&t);
}
END_TEST

/* a small table into @outdir, its progress lines thrown away */
static int small_table(const char *outdir, const char *const *real, size_t nreal,
		       char *err, size_t errlen)
{
	struct table_opts o = {
		.outdir = outdir, .npages = 100, .n = 2000, .real = real,
		.nreal = nreal, .real_repeat = 1, .seed = 1, .threads = 1,
		.command = "test_sim",
	};
	FILE *log = fopen("/dev/null", "w");
	int ret;

	ck_assert_ptr_nonnull(log);
	ret = table_make(&o, log, err, errlen);
	fclose(log);
	return ret;
}

/* @name in the test's directory @dir, made if missing */
static char *in_dir(const char *dir, const char *name)
{
	static char path[512];

	mkdir(tmp_path(dir), 0700);
	snprintf(path, sizeof(path), "%s/%s", tmp_path(dir), name);
	return path;
}

/*
 * Two real traces that would be one workload name in the table (the same
 * base name in two directories, or a synthetic workload's name) would
 * give rows nobody can tell apart: refused, naming both, before any run
 * and before anything is written.
 */
START_TEST(table_names_unique)
{
	char a[512], b[512], syn[512], err[1024] = "";
	const char *real[2];
	struct trace t;

	ck_assert_int_eq(gen_trace(&t, GEN_ZIPF, 100, 2000, 4), 0);
	snprintf(a, sizeof(a), "%s", in_dir("d1", "w.trace"));
	snprintf(b, sizeof(b), "%s", in_dir("d2", "w.trace"));
	snprintf(syn, sizeof(syn), "%s", in_dir("d2", "gups.trace"));
	ck_assert_int_eq(trace_save(&t, a), 0);
	ck_assert_int_eq(trace_save(&t, b), 0);
	ck_assert_int_eq(trace_save(&t, syn), 0);
	trace_free(&t);
	mkdir(tmp_path("out"), 0700);
	real[0] = a;
	real[1] = b;
	ck_assert_int_eq(small_table(tmp_path("out"), real, 2, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, a) && strstr(err, b), "err '%s'", err);
	real[0] = syn;
	ck_assert_int_eq(small_table(tmp_path("out"), real, 1, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, syn) && strstr(err, "gups"), "err '%s'", err);
	ck_assert_int_eq(access(in_dir("out", "sim.md"), F_OK), -1);
	unlink(a);
	unlink(b);
	unlink(syn);
	rmdir(tmp_path("d1"));
	rmdir(tmp_path("d2"));
	rmdir(tmp_path("out"));
}
END_TEST

/*
 * The warm-start section's model file (OUTDIR/.sim-warm.model), here a
 * directory that no model can be renamed onto: the error says which file
 * and why, as the other model-file errors do.
 */
START_TEST(table_warm_error_says_why)
{
	static const char *const outs[] = { "sim.md", "sim.csv", "sim-stall.dat",
					    "sim-phase.dat" };
	char model[512], err[1024] = "";
	unsigned int i;

	snprintf(model, sizeof(model), "%s", in_dir("warm", ".sim-warm.model"));
	ck_assert_int_eq(mkdir(model, 0700), 0);
	ck_assert_int_lt(small_table(tmp_path("warm"), NULL, 0, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "warm start") && strstr(err, model) &&
		      strstr(err, strerror(EISDIR)), "err '%s'", err);
	for (i = 0; i < 4; i++)
		unlink(in_dir("warm", outs[i]));
	rmdir(model);
	ck_assert_int_eq(rmdir(tmp_path("warm")), 0);
}
END_TEST

/*
 * The module's telemetry gives the epoch in whole ms, the unit indigod's
 * context turns counts into rates by: a 0.4 ms epoch would read as 0 ms,
 * taken for 1 s, and the learners would see rates 2500 times too low.
 */
START_TEST(epoch_whole_ms)
{
	struct sim_params p = small_params(0.25, 0);
	struct pol_cfg c = { .kind = _i + POL_HEURISTIC, .warmup = 5 };
	struct sim_policy pol;
	char err[256] = "";
	int want = c.kind == POL_FIXED ? 0 : -EINVAL;

	p.epoch_ns = 0.4e6;
	ck_assert_int_eq(pol_create(&pol, &c, &p, 100, err, sizeof(err)), want);
	if (!want)
		ck_assert_int_eq(pol_finish(&pol, NULL, 0), 0);
	p.epoch_ns = 1.5e6;
	ck_assert_int_eq(pol_create(&pol, &c, &p, 100, err, sizeof(err)), want);
	if (!want)
		ck_assert_int_eq(pol_finish(&pol, NULL, 0), 0);
	p.epoch_ns = 3e6;
	ck_assert_int_eq(pol_create(&pol, &c, &p, 100, err, sizeof(err)), 0);
	ck_assert_int_eq(pol_finish(&pol, NULL, 0), 0);
}
END_TEST

/*
 * A host for bursts of far faults on distinct hot pages, local memory
 * full: one epoch at 1 ms has taken INDIGO out of observe mode for its
 * arm, with its cap. Every part points into the struct: keep it in place.
 */
struct burst_host {
	struct sim_params p;
	struct sim_result res;
	struct link l;
	struct sim_view v;
	struct sim_policy pol;
};

#define BURST_PAGES	(1u << 18)

static void burst_host_init(struct burst_host *h, int kind,
			    unsigned int threads, double cap_share)
{
	struct pol_cfg c = { .kind = kind, .arm = 0, .rate_cap_share = cap_share };

	memset(h, 0, sizeof(*h));
	h->p = small_params(0.25, 0);
	h->p.threads = threads;
	link_init(&h->l, &h->p.link);
	h->v = (struct sim_view){
		.p = &h->p, .npages = 2 * BURST_PAGES, .local_pages = 1 << 16,
		.local_used = 1 << 16, .kswapd_low = 1 << 11, .link = &h->l,
		.res = &h->res,
	};
	ck_assert_int_eq(pol_create(&h->pol, &c, &h->p, h->v.npages, NULL, 0),
			 0);
	ck_assert_int_eq(sim_policy_epoch(&h->pol, &h->v, 1e6), 0);
}

/* faults at @now_ns on BURST_PAGES pages from @first: how many pass */
static uint64_t burst(struct burst_host *h, uint32_t first, double now_ns)
{
	uint64_t n = 0;
	uint32_t pg;

	for (pg = first; pg < first + BURST_PAGES; pg++) {
		struct sim_fault f = { .page = pg, .far = true, .now_ns = now_ns,
				       .mark_ns = now_ns - 0.5e6 };

		n += h->pol.ops->fault(&h->pol, &h->v, &f) != SIM_STAY;
	}
	return n;
}

/* @kind's passes in one burst on a host of @threads threads alike */
static uint64_t burst_passes(int kind, unsigned int threads, double cap_share)
{
	struct burst_host h;
	uint64_t n;

	burst_host_init(&h, kind, threads, cap_share);
	n = burst(&h, 0, 2e6);
	ck_assert_int_eq(pol_finish(&h.pol, NULL, 0), 0);
	return n;
}

/*
 * TPP's promotion rate limit and INDIGO's rate cap are the host's: with
 * threads alike, each promotion of the trace's thread is one per thread,
 * so the trace's own share of either is 1/threads of it. Counted per
 * trace promotion, the cap let the host promote threads times its limit.
 */
START_TEST(rate_limits_count_every_thread)
{
	static const int kinds[] = { POL_TPP, POL_FIXED };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		uint64_t one = burst_passes(kinds[i], 1, 0);
		uint64_t many = burst_passes(kinds[i], 16, 0);

		ck_assert_uint_gt(one, 1000);
		ck_assert_msg(many * 16 <= one + 16,
			      "%s: %llu pages at once with one thread, %llu x 16 with 16",
			      pol_name(kinds[i]), (unsigned long long)one,
			      (unsigned long long)many);
		ck_assert_uint_gt(many * 16, one / 2);
	}
}
END_TEST

/*
 * indigod's policy.rate_cap_share (indigo-sim -C) sets INDIGO's cap: five
 * times the default share lets five times the pages through at once; a
 * share outside (0, 1] is refused, 0 is indigod's default.
 */
START_TEST(rate_cap_share_sets_the_cap)
{
	struct sim_params p = small_params(0.25, 0);
	struct pol_cfg c = { .kind = POL_BANDIT, .rate_cap_share = 1.5 };
	struct sim_policy pol;
	char err[128];
	uint64_t def = burst_passes(POL_FIXED, 1, 0);
	uint64_t tenth = burst_passes(POL_FIXED, 1, 0.1);
	uint64_t half = burst_passes(POL_FIXED, 1, 0.5);

	ck_assert_uint_eq(def, burst_passes(POL_FIXED, 1, 0.3));
	ck_assert_uint_ge(half, 5 * tenth - 5);
	ck_assert_uint_le(half, 5 * tenth + 5);
	ck_assert_int_eq(pol_create(&pol, &c, &p, 1000, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "rate cap share 1.5"));
	c.rate_cap_share = -0.1;
	ck_assert_int_eq(pol_create(&pol, &c, &p, 1000, err, sizeof(err)), -EINVAL);
}
END_TEST

/*
 * INDIGO's promotions are the action the cost model prices, not load on
 * the link: indigod leaves them out of the link counter's growth. Counted,
 * a burst that filled the link read as a full link, and the next epoch's
 * cap fell to the 1 % floor (on stream with 16 threads and the cap at the
 * whole link, the bandit then learned to promote almost nothing: 1.55x
 * TPP's stall). A second burst 11 ms after the first passes what the cap
 * refills in that time: the same whether the link carried the first
 * burst's pages or not, and about half as much when another flow took
 * half of the link.
 */
START_TEST(promotions_are_not_load)
{
	uint64_t first[3], second[3];
	double ours = 0, link = 0;
	unsigned int mode;

	for (mode = 0; mode < 3; mode++) {
		struct burst_host h;

		burst_host_init(&h, POL_FIXED, 16, 1);
		first[mode] = burst(&h, 0, 2e6);
		/* the first burst's pages, every thread's; the link's 11 ms */
		ours = (double)first[mode] * h.p.threads * h.p.page_bytes;
		link = link_bytes_per_ns(&h.p.link) * 11e6;
		if (mode == 1)
			link_add(&h.l, (uint64_t)ours);
		if (mode == 2)	/* and another flow at half the link */
			link_add(&h.l, (uint64_t)(ours + link / 2));
		ck_assert_int_eq(sim_policy_epoch(&h.pol, &h.v, 12e6), 0);
		second[mode] = burst(&h, BURST_PAGES, 13e6);
		ck_assert_int_eq(pol_finish(&h.pol, NULL, 0), 0);
	}
	/* the first burst filled the link's 11 ms, and more */
	ck_assert_double_gt(ours, 2 * link);
	ck_assert_uint_gt(second[0], 1000);
	ck_assert_msg(second[1] == second[0],
		      "%llu pass after a burst on the link, %llu without",
		      (unsigned long long)second[1],
		      (unsigned long long)second[0]);
	ck_assert_uint_gt(second[2], 4 * second[0] / 10);
	ck_assert_uint_lt(second[2], 6 * second[0] / 10);
}
END_TEST

/*
 * Who waits for a promotion. Tiering mode (TPP) and INDIGO's gate migrate
 * on the hinting fault: the faulting access waits k_ns and the page's
 * transfer, once. MEMTIS migrates from its kmigrated thread, and Colloid
 * (on MEMTIS here) with it: the link carries the page and the application
 * waits for none of it, as for kswapd's demotions. On a link too wide to
 * load, a far access costs far_ns and a transfer nothing, so the stall
 * is the accesses' own cost plus k_ns per promotion made on a fault.
 */
START_TEST(who_waits_for_promotions)
{
	static const int kinds[] = { POL_TPP, POL_FIXED, POL_MEMTIS, POL_COLLOID };
	struct sim_params p = small_params(0.25, 0);
	struct trace t;
	unsigned int i;

	p.link.gbps = 1e9;
	ck_assert_int_eq(gen_trace(&t, GEN_GUPS, T_PAGES, T_RECS, 5), 0);
	for (i = 0; i < 4; i++) {
		struct pol_cfg c = { .kind = kinds[i], .arm = 0, .warmup = 5 };
		bool on_fault = kinds[i] == POL_TPP || kinds[i] == POL_FIXED;
		struct sim_result r;
		double want;

		run_audited(&t, &p, &c, &r);
		ck_assert_uint_gt(r.promotions, 10);
		want = (double)r.local_hits * p.link.local_ns +
		       (double)r.far_accesses * p.link.far_ns +
		       (on_fault ? (double)r.promotions * p.k_ns : 0);
		ck_assert_msg(fabs(r.stall_ns - want) < 1.0,
			      "%s: stall %.1f ns, %.1f expected (%llu promotions)",
			      pol_name(kinds[i]), r.stall_ns, want,
			      (unsigned long long)r.promotions);
	}
	trace_free(&t);
}
END_TEST

/*
 * Colloid promotes up to its share of local memory in every epoch, the
 * first one included: the link's latency is known from the start (idle,
 * or the contender's load). 2,000 first touches of distinct pages within
 * the first 20 ms epoch, on 500 free local pages: MEMTIS promotes all it
 * can keep, Colloid its first epoch's quota, 1/8 of 500 scaled by the
 * gap, (1350 - 100) / 1350 under 50 % contention: 57.
 */
START_TEST(colloid_first_epoch)
{
	struct sim_params p;
	struct pol_cfg c = { .kind = POL_COLLOID };
	struct sim_result r;
	struct trace t;
	uint64_t i;

	sim_params_default(&p);
	p.link.contention = 0.5;
	ck_assert_int_eq(trace_alloc(&t, 2000, 2000), 0);
	for (i = 0; i < t.n; i++) {
		t.r[i].page = (uint32_t)i;
		t.r[i].insns = 1;
	}
	ck_assert_uint_eq(sim_local_pages(&p, t.npages), 500);
	run_audited(&t, &p, &c, &r);
	ck_assert_uint_eq(r.epochs, 0);
	ck_assert_uint_eq(r.promotions, 57);
	trace_free(&t);
}
END_TEST

/* one case per test, so that CK_RUN_CASE can pick one */
static void add(Suite *s, const char *name, const TTest *t, int lo, int hi)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 600);
	_tcase_add_test(tc, t, 0, 0, lo, hi);
	suite_add_tcase(s, tc);
}

#define ADD(s, t)		add(s, #t, t, 0, 1)
#define ADD_LOOP(s, t, n)	add(s, #t, t, 0, n)

static Suite *suite(void)
{
	Suite *s = suite_create("sim");

	ADD(s, latency_monotonic);
	ADD(s, load_raises_latency);
	ADD(s, scan_arithmetic);
	ADD(s, kswapd_never_empties);
	ADD_LOOP(s, oracle_bounds_synthetic, GEN_COUNT);
	ADD(s, oracle_is_optimal);
	ADD_LOOP(s, online_bound_holds, 3);
	ADD_LOOP(s, online_bound_is_reached, 3);
	ADD(s, online_bound_where_defined);
	ADD(s, gate_keeps_promoting_when_full);
	ADD(s, fill_keeps_a_subset);
	ADD(s, kswapd_keeps_newest);
	ADD(s, demotion_clears_mark);
	ADD(s, kswapd_demotes_oldest_first);
	ADD_LOOP(s, deterministic, POL_COUNT);
	ADD(s, gen_shapes);
	ADD(s, trace_files);
	ADD(s, trace_claims_too_many_pages);
	ADD(s, train_and_load);
	ADD(s, real_traces);
	ADD(s, bad_params);
	ADD(s, errors_say_why);
	ADD(s, table_names_unique);
	ADD(s, table_warm_error_says_why);
	ADD_LOOP(s, epoch_whole_ms, POL_COUNT - POL_HEURISTIC);
	ADD(s, rate_limits_count_every_thread);
	ADD(s, rate_cap_share_sets_the_cap);
	ADD(s, promotions_are_not_load);
	ADD(s, who_waits_for_promotions);
	ADD(s, colloid_first_epoch);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
