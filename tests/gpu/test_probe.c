// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/gpu/probe.c over the fake backend: the figures from
 * known copy times, the pacing that keeps a probe within its share of the
 * link, and a device lost mid-probe.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "fake.h"
#include "probe.h"

static const struct gpu_probe_plan plan = {
	.page_bytes = 4096, .batch_bytes = 1 << 20, .reps = 5, .share = 0.1,
};

/* Copies per probe: 2 directions x 2 memories x (reps + 1 burst + reps) */
#define COPIES	(GPU_NDIR * GPU_NMEM * (2 * 5 + 1))

static void near(double got, double want)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%.12g != %.12g",
		      got, want);
}

START_TEST(figures)
{
	struct gpu_link l;
	struct fake f;
	char err[256] = "";
	int d, m;

	fake_init(&f);
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, 1, &plan, &l, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	for (d = 0; d < GPU_NDIR; d++)
		for (m = 0; m < GPU_NMEM; m++) {
			double bw = f.bw[d][m], page = 10e-6 + 4096 / bw;

			near(l.x[d][m].lat_ns, page * 1e9);
			near(l.x[d][m].page_bw, 4096 / page);
			near(l.x[d][m].batch_bw, (1 << 20) / (10e-6 + (1 << 20) / bw));
			ck_assert(l.x[d][m].batch_bw < bw);
		}
	/* pinned batches are the fastest here, as on real links */
	ck_assert(l.x[GPU_H2D][GPU_PINNED].batch_bw >
		  l.x[GPU_H2D][GPU_PAGEABLE].batch_bw);
	ck_assert_int_eq(f.copies, COPIES);
	ck_assert_int_eq(f.opens, 1);
	ck_assert_int_eq(f.dev_closes, 1);
	ck_assert_uint_eq(f.open_bytes, 1 << 20);
	ck_assert_int_eq(f.open_node[0], 1);	/* host memory on the GPU's node */
	ck_assert(l.probed_at > 0);
}
END_TEST

/* The link is busy at most share of the probe's time */
START_TEST(share)
{
	static const double shares[] = { 0.01, 0.1, 0.5, 1 };
	struct gpu_probe_plan p = plan;
	struct gpu_link l;
	struct fake f;
	size_t i;

	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		fake_init(&f);
		p.share = shares[i];
		ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), 0);
		near(l.busy_s, f.busy);
		near(l.busy_s / (l.busy_s + f.paused), shares[i]);
		near(l.wall_s, l.busy_s + f.paused);
		if (shares[i] == 1)
			ck_assert(f.paused == 0);
	}
}
END_TEST

/*
 * A SIGTERM held while the probe runs (indigod holds it over the driver's
 * calls) ends the probe after the copy at hand, every resource released,
 * where stopping waited for the whole probe: minutes at a small share.
 */
START_TEST(held_stop_ends_it)
{
	struct gpu_link l = { 0 };
	sigset_t term, old;
	struct fake f;
	char err[256] = "";

	fake_init(&f);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &term, &old), 0);
	ck_assert_int_eq(raise(SIGTERM), 0);
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
			 -ECANCELED);
	ck_assert_int_eq(f.copies, 1);
	ck_assert_int_eq(f.dev_closes, 1);
	ck_assert_msg(strstr(err, "probe stopped"), "%s", err);
	ck_assert(l.probed_at == 0);
	/* the pending one let go unseen: ignored while unblocked */
	signal(SIGTERM, SIG_IGN);
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	signal(SIGTERM, SIG_DFL);

	/* nothing pending: the whole probe */
	fake_init(&f);
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)), 0);
	ck_assert_int_eq(f.copies, COPIES);
}
END_TEST

/* The median, not the mean: one slow copy does not move the latency */
START_TEST(median_latency)
{
	struct gpu_probe_plan p = plan;
	struct gpu_link l;
	struct fake f;

	fake_init(&f);
	p.reps = 1;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), 0);
	near(l.x[GPU_H2D][GPU_PINNED].lat_ns, (10e-6 + 4096 / 50e9) * 1e9);
}
END_TEST

/* Every copy of the probe, failing in turn, fails the probe cleanly */
START_TEST(device_lost_mid_probe)
{
	struct gpu_link l, before;
	struct fake f;
	char err[256];
	int k;

	memset(&before, 0x7f, sizeof(before));
	for (k = 1; k <= COPIES; k++) {
		fake_init(&f);
		f.fail_at = k;
		f.fail_code = 999;	/* CUDA_ERROR_UNKNOWN: what a GPU off the bus gives */
		l = before;
		err[0] = '\0';
		ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
				 -ENODEV);
		ck_assert_int_eq(f.copies, k);
		ck_assert_int_eq(f.dev_closes, 1);
		ck_assert(!memcmp(&l, &before, sizeof(l)));
		ck_assert_ptr_nonnull(strstr(err, "GPU 0: "));
		ck_assert_ptr_nonnull(strstr(err, " copy of "));
		ck_assert_ptr_nonnull(strstr(err, "CUDA_ERROR_UNKNOWN"));
		ck_assert_ptr_null(strchr(err, '\n'));
	}
	fake_init(&f);
	f.fail_at = 3;
	f.fail_code = 719;	/* LAUNCH_FAILED: sticky, the context is gone */
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
			 -ENODEV);
	ck_assert_str_eq(err, "GPU 0: h2d pinned copy of 1 x 4096 bytes: "
		"CUDA_ERROR_LAUNCH_FAILED: device exception; the context is unusable");
	fake_init(&f);
	f.fail_at = 2 * 11 + 1;	/* the first d2h copy */
	f.fail_code = 1;	/* INVALID_VALUE: an error, not a lost device */
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
			 -EIO);
	ck_assert_ptr_nonnull(strstr(err, "d2h pinned"));
}
END_TEST

START_TEST(setup_fails)
{
	struct gpu_link l;
	struct fake f;
	char err[256];

	fake_init(&f);
	f.open_code = 2;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
			 -ENOMEM);
	ck_assert_str_eq(err, "GPU 0: setting up the probe: "
			 "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
	ck_assert_int_eq(f.copies, 0);
	ck_assert_int_eq(f.dev_closes, 0);
}
END_TEST

START_TEST(implausible_timing)
{
	static const double bad[] = { -1e-3, NAN, INFINITY };
	struct gpu_link l;
	struct fake f;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_init(&f);
		f.seconds_override = bad[i];
		ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &plan, &l, err, sizeof(err)),
				 -EIO);
		ck_assert_ptr_nonnull(strstr(err, "implausible time"));
		ck_assert_int_eq(f.dev_closes, 1);
	}
}
END_TEST

START_TEST(bad_plan)
{
	struct gpu_probe_plan p;
	struct gpu_link l;
	struct fake f;

	fake_init(&f);
	p = plan;
	p.share = 0;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), -EINVAL);
	p.share = 1.5;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), -EINVAL);
	p = plan;
	p.reps = 0;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), -EINVAL);
	p.reps = PROBE_REPS_MAX + 1;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), -EINVAL);
	p = plan;
	p.batch_bytes = 1024;
	ck_assert_int_eq(gpu_probe_dev(&f.b, 0, -1, &p, &l, NULL, 0), -EINVAL);
	ck_assert_int_eq(f.opens, 0);
}
END_TEST

START_TEST(plan_from_config)
{
	struct gpu_probe_plan p;
	struct gpu_config c;

	gpu_config_defaults(&c);
	gpu_probe_plan_from(&c, &p);
	ck_assert_uint_eq(p.page_bytes, 4096);
	ck_assert_uint_eq(p.batch_bytes, 16 << 20);
	ck_assert_uint_eq(p.reps, 8);
	ck_assert(p.share == 0.05);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-probe");
	TCase *tc = tcase_create("probe");

	tcase_add_test(tc, figures);
	tcase_add_test(tc, share);
	tcase_add_test(tc, held_stop_ends_it);
	tcase_add_test(tc, median_latency);
	tcase_add_test(tc, device_lost_mid_probe);
	tcase_add_test(tc, setup_fails);
	tcase_add_test(tc, implausible_timing);
	tcase_add_test(tc, bad_plan);
	tcase_add_test(tc, plan_from_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
