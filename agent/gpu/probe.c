// SPDX-License-Identifier: GPL-2.0
/* Link probing over a backend; see probe.h for the plan and the pacing. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe.h"

struct run {
	struct gpu_backend *b;
	void *s;
	int dev;
	const struct gpu_probe_plan *p;
	double busy, wall;
	char *err;
	size_t errlen;
};

void gpu_probe_plan_from(const struct gpu_config *cfg, struct gpu_probe_plan *p)
{
	p->page_bytes = cfg->probe_page_bytes;
	p->batch_bytes = (size_t)cfg->probe_batch_kib * 1024;
	p->reps = cfg->probe_reps;
	p->share = cfg->probe_share;
}

/*
 * A SIGTERM or SIGINT held while the probe runs: indigod holds them over
 * it (the driver's threads must not take them), and stopping must not wait
 * for the rest of a probe that pauses minutes at a small share.
 */
static bool stop_pending(void)
{
	sigset_t s;

	return !sigpending(&s) &&
	       (sigismember(&s, SIGTERM) == 1 || sigismember(&s, SIGINT) == 1);
}

/* One timed copy, then the pause that keeps the probe within its share. */
static int timed(struct run *r, enum gpu_dir dir, enum gpu_host_mem mem,
		 size_t bytes, unsigned int n, double *sec)
{
	int code = r->b->ops->copy(r->b, r->s, dir, mem, bytes, n, sec);

	if (code)
		return gpu_backend_fail(r->b, code, r->err, r->errlen,
					"GPU %d: %s %s copy of %u x %zu bytes",
					r->dev, gpu_dir_name(dir),
					gpu_host_mem_name(mem), n, bytes);
	if (!isfinite(*sec) || *sec <= 0) {
		if (r->err && r->errlen)
			snprintf(r->err, r->errlen,
				 "GPU %d: %s %s copy: implausible time %g s",
				 r->dev, gpu_dir_name(dir),
				 gpu_host_mem_name(mem), *sec);
		return -EIO;
	}
	r->busy += *sec;
	r->wall += *sec / r->p->share;
	if (r->p->share < 1)
		r->b->ops->pause(r->b, *sec * (1 / r->p->share - 1));
	if (stop_pending()) {
		if (r->err && r->errlen)
			snprintf(r->err, r->errlen,
				 "GPU %d: probe stopped: asked to stop", r->dev);
		return -ECANCELED;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median time of @reps single copies of @bytes. */
static int median_copy(struct run *r, enum gpu_dir dir, enum gpu_host_mem mem,
		       size_t bytes, double *sec)
{
	double t[PROBE_REPS_MAX];
	unsigned int i;
	int e;

	for (i = 0; i < r->p->reps; i++) {
		e = timed(r, dir, mem, bytes, 1, &t[i]);
		if (e)
			return e;
	}
	*sec = median(t, r->p->reps);
	return 0;
}

static int probe_one(struct run *r, enum gpu_dir dir, enum gpu_host_mem mem,
		     struct gpu_xfer *x)
{
	const struct gpu_probe_plan *p = r->p;
	double lat, burst, batch;
	int e;

	e = median_copy(r, dir, mem, p->page_bytes, &lat);
	if (!e)
		e = timed(r, dir, mem, p->page_bytes, PROBE_PAGE_BURST, &burst);
	if (!e)
		e = median_copy(r, dir, mem, p->batch_bytes, &batch);
	if (e)
		return e;
	x->lat_ns = lat * 1e9;
	x->page_bw = (double)p->page_bytes * PROBE_PAGE_BURST / burst;
	x->batch_bw = (double)p->batch_bytes / batch;
	return 0;
}

static bool plan_ok(const struct gpu_probe_plan *p)
{
	return p->page_bytes && p->batch_bytes >= p->page_bytes &&
	       p->reps >= 1 && p->reps <= PROBE_REPS_MAX &&
	       isfinite(p->share) && p->share > 0 && p->share <= 1;
}

int gpu_probe_dev(struct gpu_backend *b, int dev, int node,
		  const struct gpu_probe_plan *p, struct gpu_link *link,
		  char *err, size_t errlen)
{
	struct run r = { .b = b, .dev = dev, .p = p, .err = err,
			 .errlen = errlen };
	struct gpu_link l;
	int d, m, e, code;

	if (!b || !p || !link || !plan_ok(p))
		return -EINVAL;
	memset(&l, 0, sizeof(l));
	code = b->ops->open_dev(b, dev, p->batch_bytes, node, &r.s);
	if (code)
		return gpu_backend_fail(b, code, err, errlen,
					"GPU %d: setting up the probe", dev);
	e = 0;
	for (d = 0; d < GPU_NDIR && !e; d++)
		for (m = 0; m < GPU_NMEM && !e; m++)
			e = probe_one(&r, d, m, &l.x[d][m]);
	b->ops->close_dev(b, r.s);
	if (e)
		return e;
	l.busy_s = r.busy;
	l.wall_s = r.wall;
	l.probed_at = (int64_t)time(NULL);
	*link = l;
	return 0;
}
