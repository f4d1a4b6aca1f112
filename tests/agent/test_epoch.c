// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/epoch.c: one agent epoch without a kernel.
 *
 * The reference link of test_costmodel.c: 100 Gb/s, 900 vs 100 ns, 4 KiB
 * pages, k = 2 us; over 1 s the break-even rate is 2.9096 accesses/s, so the
 * heuristic's threshold is 2910 mHz and its arm in the default grid is the
 * one with rate 1000 mHz (log-nearest; 3163 is the midpoint to 10000) and
 * burst 0: arm 1. Rate cap at share 0.1: floor(0.1 * 12.5e9 / 4096) =
 * 305175 pages/s. The low watermark is free_min_kib as configured, 262144
 * KiB here, whatever the cap and the epoch: an epoch of promotions at the
 * cap (1220700 KiB) must not be added to it, or the gate would veto
 * promotions the kernel makes room for (costmodel.h).
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "epoch.h"
#include "modelfile.h"

static struct epoch_params ref_params(int learner, unsigned int warmup)
{
	struct epoch_params p = {
		.learner = learner,
		.warmup = warmup,
		.link = {
			.bandwidth = cm_gbps_to_bytes_per_s(100.0),
			.far_ns = 900.0,
			.local_ns = 100.0,
			.page_bytes = CM_PAGE_BYTES_DEFAULT,
			.k_ns = 2000.0,
		},
		.epoch_s = 1.0,
		.rate_cap_share = 0.1,
		.free_min_kib = 262144,
		.fill_share = ACT_FILL_SHARE_DEFAULT,
	};

	return p;
}

/* context: the bias and one more feature */
static void ctx(double *x, double f)
{
	memset(x, 0, sizeof(double) * CTX_DIM);
	x[CTX_F_BIAS] = 1.0;
	x[CTX_F_FAULTS] = f;
}

START_TEST(heuristic_steps)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_HEURISTIC, 0);
	struct ctx_epoch e = { .ms = 1000 };
	struct epoch_state s;
	struct epoch_out o;
	double x0[CTX_DIM], x1[CTX_DIM];
	double want;

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ck_assert_ptr_null(s.b);
	ctx(x0, 0.25);
	ck_assert_int_eq(epoch_step(&s, &e, x0, 100.0, &o), 0);
	ck_assert(!o.have_rec);
	ck_assert_uint_eq(o.arm, 1);
	ck_assert_double_eq(o.propensity, 1.0);
	ck_assert_str_eq(o.by, "heuristic");
	ck_assert_uint_eq(o.pol.mode, ACT_MODE_GATE);
	ck_assert_uint_eq(o.pol.rate_min_mhz, 1000);
	ck_assert_uint_eq(o.pol.burst_min_ms, 0);
	ck_assert_uint_eq(o.pol.rate_cap_pps, 305175);
	ck_assert_uint_eq(o.pol.free_min_kib, 262144);

	/*
	 * 100 promotions at p50 5000 mHz (above the arm's 1000): 100 * 5 Hz *
	 * 800 ns * 1 s saved, 100 * 2.32768 us spent.
	 */
	e.allowed = 100;
	e.rate_p50 = 5000;
	ctx(x1, 0.5);
	ck_assert_int_eq(epoch_step(&s, &e, x1, 101.0, &o), 0);
	ck_assert(o.have_rec);
	want = 100 * 5 * 800e-9 - 100 * 2.32768e-6;
	ck_assert_double_eq_tol(o.rec.reward, want, 1e-15);
	ck_assert_uint_eq(o.rec.epoch, 0);
	ck_assert_double_eq(o.rec.ts, 100.0);
	ck_assert_uint_eq(o.rec.action, 1);
	ck_assert_double_eq(o.rec.propensity, 1.0);
	ck_assert_str_eq(o.rec.learner, "heuristic");
	ck_assert_uint_eq(o.rec.ncontext, CTX_DIM);
	ck_assert_double_eq(o.rec.context[CTX_F_FAULTS], 0.25);

	/*
	 * p50 below the threshold: still the rate estimate (a page passes
	 * the threshold on one reading, lucky as often as not)
	 */
	e.rate_p50 = 10;
	e.allowed = 1000;
	ck_assert_int_eq(epoch_step(&s, &e, x1, 102.0, &o), 0);
	want = 1000 * 0.01 * 800e-9 - 1000 * 2.32768e-6;
	ck_assert_double_eq_tol(o.rec.reward, want, 1e-15);
	ck_assert(o.rec.reward < 0);
	ck_assert_uint_eq(o.rec.epoch, 1);

	/* after deny nothing was promoted: reward 0 whatever is reported */
	s.last_pol.mode = ACT_MODE_DENY;
	ck_assert_int_eq(epoch_step(&s, &e, x1, 103.0, &o), 0);
	ck_assert_double_eq(o.rec.reward, 0.0);

	/* half-second epoch: the heuristic's threshold doubles to 5820 mHz */
	e.ms = 500;
	ck_assert_int_eq(epoch_step(&s, &e, x1, 104.0, &o), 0);
	ck_assert_uint_eq(o.arm, 2);
	ck_assert_uint_eq(o.pol.rate_min_mhz, 10000);
	ck_assert_uint_eq(o.pol.rate_cap_pps, 305175);
	ck_assert_uint_eq(o.pol.free_min_kib, 262144);
	ck_assert_uint_eq(s.decisions, 5);
	epoch_free(&s);
}
END_TEST

START_TEST(bad_input)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 0);
	struct ctx_epoch e = { .ms = 1000 };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	ctx(x, 0.5);
	p.link.far_ns = 50;	/* not above local */
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), -EINVAL);
	p = ref_params(CONFIG_LEARNER_LINUCB, 0);
	p.rate_cap_share = 0;
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), -EINVAL);
	p = ref_params(CONFIG_LEARNER_LINUCB, 0);
	p.fill_share = 0;
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), -EINVAL);
	p.fill_share = ACT_FILL_SHARE_MAX + 0.01;
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), -EINVAL);
	p = ref_params(CONFIG_LEARNER_LINUCB, 0);
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	x[3] = NAN;
	ck_assert_int_eq(epoch_step(&s, &e, x, 1.0, &o), -EINVAL);
	ck_assert_uint_eq(s.decisions, 0);
	ck_assert(!s.have_last);
	x[3] = 0;
	ck_assert_int_eq(epoch_step(&s, &e, x, INFINITY, &o), -EINVAL);
	/* another learner kind cannot be swapped in by reconfiguring */
	p.learner = CONFIG_LEARNER_THOMPSON;
	ck_assert_int_eq(epoch_reconfigure(&s, &p), -EINVAL);
	p = ref_params(CONFIG_LEARNER_LINUCB, 7);
	ck_assert_int_eq(epoch_reconfigure(&s, &p), 0);
	ck_assert_uint_eq(s.p.warmup, 7);
	epoch_free(&s);
}
END_TEST

START_TEST(learner_takes_over)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 2);
	struct ctx_epoch e = { .ms = 1000, .allowed = 100, .rate_p50 = 5000 };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM], theta[CTX_DIM], r;
	uint64_t n;

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ck_assert_ptr_nonnull(s.b);
	ck_assert_uint_eq(bandit_arms(s.b), 18);
	ck_assert_uint_eq(bandit_dim(s.b), CTX_DIM);
	ctx(x, 0.0);		/* x = e0 */
	ck_assert_int_eq(epoch_step(&s, &e, x, 1.0, &o), 0);
	ck_assert_str_eq(o.by, "heuristic");
	ck_assert_int_eq(epoch_step(&s, &e, x, 2.0, &o), 0);
	ck_assert_str_eq(o.by, "heuristic");
	ck_assert_int_eq(o.update_err, 0);
	ck_assert_uint_eq(s.updates, 1);
	/*
	 * One update of arm 1 at x = e0 with lambda 1: theta_0 = r / 2, r the
	 * reward in ms per s of epoch.
	 */
	r = (100 * 5 * 800e-9 - 100 * 2.32768e-6) * 1000.0;
	ck_assert_int_eq(bandit_arm_theta(s.b, 1, theta), 0);
	ck_assert_double_eq_tol(theta[0], r / 2, 1e-12);
	ck_assert_double_eq_tol(theta[1], 0.0, 1e-15);
	ck_assert_int_eq(epoch_step(&s, &e, x, 3.0, &o), 0);
	ck_assert_uint_eq(s.updates, 2);
	ck_assert_str_eq(o.by, "linucb");
	ck_assert_double_eq(o.propensity, 1.0);
	ck_assert_int_eq(bandit_arm_updates(s.b, 1, &n), 0);
	ck_assert_uint_eq(n, 2);
	/* the record of a learner decision names it */
	ck_assert_int_eq(epoch_step(&s, &e, x, 4.0, &o), 0);
	ck_assert_str_eq(o.rec.learner, "linucb");
	ck_assert_uint_eq(s.updates, 3);
	epoch_free(&s);
}
END_TEST

/*
 * The gate's low watermark is the operator's floor, never more: with the
 * default floor 0 the module never vetoes for low memory, however large
 * the cap, the epoch or the link, so the kernel's own watermark check
 * (which wakes kswapd in tiering mode) decides. The cap still bounds the
 * rate.
 */
START_TEST(watermark_is_the_floor)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_HEURISTIC, 0);
	struct ctx_epoch e = { .ms = 60000 };
	struct indigod_config c;
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	config_defaults(&c);
	p.free_min_kib = c.policy.free_min_kib;
	p.rate_cap_share = c.policy.rate_cap_share;
	p.link.bandwidth = cm_gbps_to_bytes_per_s(400.0);
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ctx(x, 0.5);
	ck_assert_int_eq(epoch_step(&s, &e, x, 1.0, &o), 0);
	ck_assert_uint_eq(o.pol.mode, ACT_MODE_GATE);
	ck_assert_uint_eq(o.pol.free_min_kib, 0);
	/* the default share: floor(0.3 * 50e9 / 4096) pages/s */
	ck_assert_uint_eq(o.pol.rate_cap_pps, 3662109);
	/* an operator's floor goes through as it is */
	p.free_min_kib = 7;
	ck_assert_int_eq(epoch_reconfigure(&s, &p), 0);
	ck_assert_int_eq(epoch_step(&s, &e, x, 2.0, &o), 0);
	ck_assert_uint_eq(o.pol.free_min_kib, 7);
	epoch_free(&s);
}
END_TEST

/* The agent executor, too, pays for the faulting pages it left far. */
START_TEST(executor_left_far_charged)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = { .ms = 1000, .faults = 110, .rate_p50 = 5000 };
	struct epoch_feedback fb = {
		.kind = EPOCH_FB_PROMOTED, .npromoted = 10, .rate_sum_hz = 400,
	};
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ctx(x, 0.0);
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 1.0, &o), 0);
	/* 100 left at p50, 5 Hz, for the 1 s epoch */
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 2.0, &o), 0);
	ck_assert(o.have_rec);
	ck_assert_double_eq_tol(o.rec.reward, 400 * 800e-9 - 10 * 2.32768e-6 -
				5.0 * 100 * 800e-9, 1e-15);
	/* nothing moved: every fault is charged */
	fb.npromoted = 0;
	fb.rate_sum_hz = 0;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, -5.0 * 110 * 800e-9, 1e-15);
	/* more moved than faulted (earlier candidates): no charge */
	fb.npromoted = 200;
	fb.rate_sum_hz = 1000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 4.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward,
				1000 * 800e-9 - 200 * 2.32768e-6, 1e-15);
	/* a huge page is one move of 512 pages: k (2 us) once, the transfer
	 * (0.32768 us a page) of all, one fault off those left (charged as
	 * 512 moves, its k alone outweighed what it saved, and it cleared
	 * the charge for 511 pages left far) */
	fb.npromoted = 512;
	fb.nmoves = 1;
	fb.rate_sum_hz = 3;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 5.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, 3 * 800e-9 - 512 * 0.32768e-6 -
				2e-6 - 5.0 * 109 * 800e-9, 1e-15);
	/* more moves than pages: no such feedback */
	fb.nmoves = 513;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 6.0, &o), -EINVAL);
	epoch_free(&s);
}
END_TEST

/* The reward from what the caller knows: its promotions, or progress. */
START_TEST(feedback_rewards)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = { .ms = 1000, .allowed = 100, .rate_p50 = 5000 };
	struct epoch_feedback fb = {
		.kind = EPOCH_FB_PROMOTED, .npromoted = 10, .rate_sum_hz = 400,
	};
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM], theta[CTX_DIM], want;

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ctx(x, 0.0);
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 1.0, &o), 0);
	ck_assert(!o.have_rec);

	/* 10 pages at 400 Hz in all, not the module's 100 at p50 */
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 2.0, &o), 0);
	want = 400 * 800e-9 - 10 * 2.32768e-6;
	ck_assert(o.have_rec);
	ck_assert_double_eq_tol(o.rec.reward, want, 1e-15);

	/* no reward known: neither an update nor a record */
	fb.kind = EPOCH_FB_NONE;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.0, &o), 0);
	ck_assert(!o.have_rec);
	ck_assert_uint_eq(s.updates, 1);

	/* progress: 5000 units/s at a scale of 1000 is a reward of 5 */
	fb.kind = EPOCH_FB_PROGRESS;
	fb.progress = 5000;
	fb.progress_scale = 1000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 4.0, &o), 0);
	ck_assert(o.have_rec);
	ck_assert_double_eq(o.rec.reward, 5.0);
	ck_assert_uint_eq(s.updates, 2);
	/* the learner got 5 as it is: arm 1 saw r1 then 5 at x = e0 */
	ck_assert_int_eq(bandit_arm_theta(s.b, o.rec.action, theta), 0);
	ck_assert_double_eq_tol(theta[0], (want * 1000.0 + 5.0) / 3, 1e-12);

	/*
	 * scale 0: the gain over the running mean. The first figure is the
	 * mean (reward 0); 1100 against it is +0.1, and the mean moves a
	 * tenth of the way: 1010; then 909 is 909 / 1010 - 1 = -0.1.
	 */
	fb.progress_scale = 0;
	fb.progress = 1000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 5.0, &o), 0);
	ck_assert_double_eq(o.rec.reward, 0.0);
	fb.progress = 1100;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 6.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, 0.1, 1e-12);
	fb.progress = 909;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 7.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, -0.1, 1e-12);
	ck_assert_uint_eq(s.updates, 5);
	/* far above the mean: clipped to 1 */
	fb.progress = 5000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 8.0, &o), 0);
	ck_assert_double_eq(o.rec.reward, 1.0);
	/* idle, then working: no credit for the restart */
	s.prog_mean = 0;
	fb.progress = 700;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 9.0, &o), 0);
	ck_assert_double_eq(o.rec.reward, 0.0);
	ck_assert_double_eq(s.prog_mean, 700.0);

	/* a bad scale or figure changes nothing */
	fb.progress_scale = -1;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.progress_scale = 0;
	fb.progress = -5;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.kind = EPOCH_FB_PROMOTED;
	fb.rate_sum_hz = NAN;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.kind = 42;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	ck_assert_uint_eq(s.updates, 7);
	ck_assert_uint_eq(s.decisions, 9);
	epoch_free(&s);
}
END_TEST

/*
 * scale 0 across a pause: the drop to no progress is -1 once, the idle
 * epochs after it 0, and the work resuming at its old pace 0, not +1
 * over a mean that decayed while idle (0.9^20 of 1000 is 122: 1000
 * against it is a "gain" of 7, clipped to 1).
 */
START_TEST(progress_restart_after_idle)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = { .ms = 1000 };
	struct epoch_feedback fb = {
		.kind = EPOCH_FB_PROGRESS, .progress = 1000,
	};
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];
	int i;

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ctx(x, 0.0);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, i, &o), 0);
		if (i)
			ck_assert_double_eq(o.rec.reward, 0.0);
	}
	fb.progress = 0;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 5, &o), 0);
	ck_assert_double_eq(o.rec.reward, -1.0);
	for (i = 6; i < 26; i++) {
		ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, i, &o), 0);
		ck_assert_double_eq(o.rec.reward, 0.0);
	}
	fb.progress = 1000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 26, &o), 0);
	ck_assert_double_eq(o.rec.reward, 0.0);
	ck_assert_double_eq(s.prog_mean, 1000.0);
	/* and the mean goes on from there */
	fb.progress = 1100;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 27, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, 0.1, 1e-12);
	epoch_free(&s);
}
END_TEST

/*
 * The residence the cost-model reward credits: fixed, or Little's law on
 * the local tier's EWMAs. 100 promotions at p50 5000 mHz over a 1 s epoch
 * save 100 * 5 * 800e-9 s per second local and cost 100 * 2.32768 us.
 */
static double ref_reward(double res)
{
	return 100 * 5 * 800e-9 * res - 100 * 2.32768e-6;
}

/*
 * Sets up @s with @p and takes its first two steps on epoch @e with @fb,
 * so that @o holds the reward of the first action.
 */
static void first_reward(struct epoch_state *s, const struct epoch_params *p,
			 const struct ctx_epoch *e,
			 const struct epoch_feedback *fb, double *x,
			 struct epoch_out *o)
{
	ck_assert_int_eq(epoch_init(s, p, NULL, NULL), 0);
	ctx(x, 0.0);
	ck_assert_int_eq(epoch_step_fb(s, e, fb, x, 1.0, o), 0);
	ck_assert_int_eq(epoch_step_fb(s, e, fb, x, 2.0, o), 0);
}

START_TEST(residence)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = { .ms = 1000, .allowed = 100, .rate_p50 = 5000 };
	struct epoch_feedback fb = { .kind = EPOCH_FB_TELEMETRY };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	/* nothing measured: one epoch, as indigod credited before */
	first_reward(&s, &p, &e, &fb, x, &o);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(1), 1e-15);

	/* the operator's: 8 epochs */
	fb.residence = 8;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(8), 1e-15);

	/*
	 * auto: the first count of pages out only starts it (one epoch);
	 * then 1000 pages in use, 100 out per epoch: 10 epochs; then none
	 * out: the EWMAs 1000 and 90, 11.1 epochs.
	 */
	fb.residence = 0;
	fb.have_out = true;
	fb.out_total = 5000;
	fb.local_used = 1000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 4.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(1), 1e-15);
	fb.out_total = 5100;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 5.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(10), 1e-15);
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 6.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(1000.0 / 90), 1e-12);
	ck_assert_double_eq_tol(epoch_residence(&s, &fb), 1000.0 / 81, 1e-12);

	/* a count that went back (reset) starts afresh, the means kept */
	fb.out_total = 7;
	ck_assert_double_eq_tol(epoch_residence(&s, &fb), 1000.0 / 81, 1e-12);
	ck_assert_uint_eq(s.out_prev, 7);
	/* a flood of demotions: at least one epoch */
	fb.out_total = 7 + 1000000;
	ck_assert_double_eq(epoch_residence(&s, &fb), EPOCH_RES_MIN);
	/* the deny arm is still worth 0, however long pages stay */
	s.last_pol.mode = ACT_MODE_DENY;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 7.0, &o), 0);
	ck_assert_double_eq(o.rec.reward, 0.0);
	epoch_free(&s);

	/* nothing ever leaves: as long as is credited */
	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	fb.out_total = 0;
	ck_assert_double_eq(epoch_residence(&s, &fb), EPOCH_RES_MIN);
	ck_assert_double_eq(epoch_residence(&s, &fb), EPOCH_RES_MAX);
	/* a gap in the measurement: the next reading only restarts the count */
	fb.have_out = false;
	ck_assert_double_eq(epoch_residence(&s, &fb), EPOCH_RES_MAX);
	ck_assert(!s.have_out_prev);
	fb.have_out = true;
	fb.out_total = 1000000;
	ck_assert_double_eq(epoch_residence(&s, &fb), EPOCH_RES_MAX);

	/* the agent executor's promotions are credited alike */
	fb.kind = EPOCH_FB_PROMOTED;
	fb.npromoted = 10;
	fb.rate_sum_hz = 400;
	fb.residence = 4;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 8.0, &o), 0);
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 9.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward,
				400 * 800e-9 * 4 - 10 * 2.32768e-6, 1e-15);

	/* out of range or not a number: rejected, nothing changes */
	fb.residence = 0.5;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.residence = EPOCH_RES_MAX + 1;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.residence = NAN;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	fb.residence = 0;
	fb.local_used = -1;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 10.0, &o), -EINVAL);
	ck_assert_uint_eq(s.decisions, 2);
	epoch_free(&s);
}
END_TEST

/*
 * The far pages an action saw fault and left far are charged one epoch of
 * their accesses at the epoch's median rate: 300 faults, 100 promoted at
 * p50 5000 mHz, so 200 left at 5 Hz for 1 s, 800 ns each; the promoted are
 * credited at the median too, whatever the arm's threshold. Under deny all
 * 300 are left, whatever is reported promoted; more promoted than faulted
 * (faults counted per node, promotions racing the count) charges nothing.
 */
START_TEST(left_far_charged)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = {
		.ms = 1000, .faults = 300, .allowed = 100, .rate_p50 = 5000,
	};
	struct epoch_feedback fb = { .kind = EPOCH_FB_TELEMETRY, .residence = 4 };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	first_reward(&s, &p, &e, &fb, x, &o);
	ck_assert_double_eq_tol(o.rec.reward,
				ref_reward(4) - 200 * 5 * 800e-9, 1e-15);

	/* a half-second epoch halves the charge, not the credit */
	e.ms = 500;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, 100 * 5 * 800e-9 * 2 -
				100 * 2.32768e-6 - 200 * 5 * 800e-9 * 0.5,
				1e-15);
	e.ms = 1000;

	/* an arm's threshold above the median credits the median */
	s.last_pol.mode = ACT_MODE_GATE;
	s.last_pol.rate_min_mhz = 100000;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.5, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward,
				ref_reward(4) - 200 * 5 * 800e-9, 1e-15);

	s.last_pol.mode = ACT_MODE_DENY;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 4.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, -300 * 5 * 800e-9, 1e-15);

	e.faults = 50;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 5.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(4), 1e-15);
	epoch_free(&s);
}
END_TEST

/*
 * The kernel executor with huge pages: a THP is one fault and one
 * promotion at its region's rate, but its transfer is its 512 pages'.
 * 99 base pages and one huge page: 100 migrations' k, 611 pages' transfer
 * (3.2768e-7 s each at 100 Gb/s), where counting the huge page as one
 * page made low thresholds look cheap wherever THPs are in play.
 */
START_TEST(huge_pages_cost_their_pages)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 100);
	struct ctx_epoch e = {
		.ms = 1000, .faults = 100, .allowed = 100,
		.allowed_pages = 99 + 512, .rate_p50 = 5000,
	};
	struct epoch_feedback fb = { .kind = EPOCH_FB_TELEMETRY, .residence = 4 };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];

	first_reward(&s, &p, &e, &fb, x, &o);
	ck_assert_double_eq_tol(o.rec.reward, 100 * 5 * 800e-9 * 4 -
				611 * 3.2768e-7 - 100 * 2e-6, 1e-15);

	/* a module without the count (0): a page a promotion */
	e.allowed_pages = 0;
	ck_assert_int_eq(epoch_step_fb(&s, &e, &fb, x, 3.0, &o), 0);
	ck_assert_double_eq_tol(o.rec.reward, ref_reward(4), 1e-15);
	epoch_free(&s);
}
END_TEST

START_TEST(thompson_propensity)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_THOMPSON, 0);
	struct ctx_epoch e = { .ms = 1000, .allowed = 10, .rate_p50 = 5000 };
	struct epoch_state s;
	struct epoch_out o;
	double x[CTX_DIM];
	int i;

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ctx(x, 0.5);
	for (i = 0; i < 20; i++) {
		ck_assert_int_eq(epoch_step(&s, &e, x, i, &o), 0);
		ck_assert_str_eq(o.by, "thompson");	/* warmup 0 */
		ck_assert(o.propensity > 0 && o.propensity <= 1);
		ck_assert_uint_lt(o.arm, 18);
	}
	ck_assert_uint_eq(s.updates, 19);
	epoch_free(&s);
}
END_TEST

START_TEST(forget_auto_by_reward)
{
	ck_assert(epoch_forget_auto(CONFIG_REWARD_COSTMODEL) ==
		  EPOCH_FORGET_COSTMODEL);
	ck_assert(epoch_forget_auto(CONFIG_REWARD_PROGRESS) ==
		  EPOCH_FORGET_PROGRESS);
	ck_assert(EPOCH_FORGET_COSTMODEL < 1);
	ck_assert(EPOCH_FORGET_PROGRESS == 1);
}
END_TEST

static char dir[64];

START_TEST(model_files)
{
	struct epoch_params p = ref_params(CONFIG_LEARNER_LINUCB, 0);
	struct ctx_epoch e = { .ms = 1000, .allowed = 100, .rate_p50 = 5000 };
	static const uint32_t b17[] = { 0, 50, 200 };
	static const uint32_t r17[] = { 100, 1000, 10000, 100000, 1000000 };
	struct epoch_state s, t, u;
	struct epoch_out o, o2;
	struct bandit_params bp;
	struct act_grid g17;
	char path[128], old[128], aside[128], err[256];
	double x[CTX_DIM], th1[CTX_DIM], th2[CTX_DIM];
	struct stat st;
	FILE *f;
	int i;

	snprintf(dir, sizeof(dir), "/tmp/indigo-epoch-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/app.model", dir);

	ck_assert_int_eq(epoch_init(&s, &p, NULL, NULL), 0);
	ck_assert_int_eq(epoch_init(&t, &p, NULL, NULL), 0);
	ck_assert_int_eq(epoch_model_load(&t, path, err, sizeof(err)),
			 -ENOENT);
	ctx(x, 0.3);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(epoch_step(&s, &e, x, i, &o), 0);
	ck_assert_int_eq(epoch_model_save(&s, path, err, sizeof(err)), 0);
	ck_assert_int_eq(epoch_model_load(&t, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.updates, 9);
	ck_assert_int_eq(bandit_arm_theta(s.b, o.arm, th1), 0);
	ck_assert_int_eq(bandit_arm_theta(t.b, o.arm, th2), 0);
	ck_assert_mem_eq(th1, th2, sizeof(th1));
	/*
	 * the loaded learner decides as the saved one would: without the
	 * saved one's pending action, which a loaded learner does not have
	 */
	s.have_last = false;
	ck_assert_int_eq(epoch_step(&s, &e, x, 11, &o), 0);
	ck_assert_int_eq(epoch_step(&t, &e, x, 11, &o2), 0);
	ck_assert_uint_eq(o2.arm, o.arm);

	/* a loaded model learns on as the loading agent is configured */
	bandit_params_default(&bp);
	ck_assert(bp.forget == 1 && bp.alpha == 1);	/* what s saved with */
	bp.forget = 0.5;
	bp.alpha = 2.5;
	ck_assert_int_eq(epoch_init(&u, &p, NULL, &bp), 0);
	ck_assert_int_eq(epoch_model_load(&u, path, err, sizeof(err)), 0);
	bandit_get_params(u.b, &bp);
	ck_assert(bp.forget == 0.5 && bp.alpha == 2.5);
	epoch_free(&u);

	/*
	 * another kind: refused, t keeps its learner, and the file is moved
	 * aside, kept for the agent it is for (a rollback after an upgrade
	 * would find it), where it stayed for the next save to replace
	 */
	p.learner = CONFIG_LEARNER_THOMPSON;
	ck_assert_int_eq(epoch_init(&u, &p, NULL, NULL), 0);
	ck_assert_int_eq(epoch_model_load(&u, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "another shape"));
	ck_assert_ptr_nonnull(strstr(err, "; moved to "));
	ck_assert_ptr_nonnull(strstr(err, "app.model.other-shape-"));
	ck_assert_uint_eq(u.updates, 0);
	ck_assert_int_eq(stat(path, &st), -1);
	snprintf(aside, sizeof(aside), "%s", strstr(err, "moved to ") + 9);
	ck_assert_int_eq(stat(aside, &st), 0);
	ck_assert_int_eq(rename(aside, path), 0);
	epoch_free(&u);

	/*
	 * A model saved before the fill arm (17 arms; here a 3 x 5 grid):
	 * refused, moved aside; the next save starts the file anew.
	 */
	p.learner = CONFIG_LEARNER_LINUCB;
	ck_assert_int_eq(actions_grid_init(&g17, b17, 3, r17, 5), 0);
	ck_assert_uint_eq(actions_count(&g17), 17);
	snprintf(old, sizeof(old), "%s/old.model", dir);
	ck_assert_int_eq(epoch_init(&u, &p, &g17, NULL), 0);
	ck_assert_int_eq(epoch_model_save(&u, old, err, sizeof(err)), 0);
	epoch_free(&u);
	ck_assert_int_eq(epoch_init(&u, &p, NULL, NULL), 0);
	ck_assert_int_eq(epoch_model_load(&u, old, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "another shape"));
	ck_assert_ptr_nonnull(strstr(err, "K 17 arms"));
	ck_assert_ptr_nonnull(strstr(err, "K 18)"));
	ck_assert_int_eq(stat(old, &st), -1);
	ck_assert_int_eq(epoch_model_save(&u, old, err, sizeof(err)), 0);
	ck_assert_int_eq(epoch_model_load(&u, old, err, sizeof(err)), 0);
	ck_assert_int_eq(unlink(old), 0);

	/* corrupt: one byte flipped in the payload; moved aside */
	f = fopen(path, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 40, SEEK_SET), 0);
	ck_assert_int_eq(fputc(0x5a ^ 0xff, f), 0x5a ^ 0xff);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(epoch_model_load(&t, path, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_uint_eq(t.updates, 9);	/* kept its own */
	/*
	 * A sound file whose learner record this agent cannot read (a newer
	 * agent's): moved aside too, so that the next save loses nothing.
	 */
	ck_assert_int_eq(modelfile_save(path, EPOCH_MODEL_VERSION, "record?", 7,
					err, sizeof(err)), 0);
	ck_assert_int_eq(epoch_model_load(&t, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "learner record unreadable"));
	ck_assert_ptr_nonnull(strstr(err, "; moved to "));
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_uint_eq(t.updates, 9);

	/* the heuristic has nothing to save */
	epoch_free(&u);
	p.learner = CONFIG_LEARNER_HEURISTIC;
	ck_assert_int_eq(epoch_init(&u, &p, NULL, NULL), 0);
	ck_assert_int_eq(epoch_model_save(&u, path, err, sizeof(err)), -EINVAL);

	epoch_free(&s);
	epoch_free(&t);
	epoch_free(&u);
	snprintf(aside, sizeof(aside), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(aside), 0);
}
END_TEST

static Suite *epoch_suite(void)
{
	Suite *s = suite_create("epoch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, heuristic_steps);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, forget_auto_by_reward);
	tcase_add_test(tc, learner_takes_over);
	tcase_add_test(tc, watermark_is_the_floor);
	tcase_add_test(tc, feedback_rewards);
	tcase_add_test(tc, progress_restart_after_idle);
	tcase_add_test(tc, executor_left_far_charged);
	tcase_add_test(tc, left_far_charged);
	tcase_add_test(tc, huge_pages_cost_their_pages);
	tcase_add_test(tc, residence);
	tcase_add_test(tc, thompson_propensity);
	tcase_add_test(tc, model_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(epoch_suite());
}
