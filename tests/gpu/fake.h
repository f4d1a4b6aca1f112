/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake GPU backend for tests: devices as described, copies that "take"
 * a fixed latency plus bytes / bandwidth, and a failure injected at the
 * Nth copy, as a device lost mid-probe would return. Counts every call so
 * that tests can check what was opened is closed.
 */
#ifndef INDIGO_TEST_GPU_FAKE_H
#define INDIGO_TEST_GPU_FAKE_H

#include <string.h>

#include "backend.h"
#include "cuerr.h"

struct fake {
	struct gpu_backend b;		/* first: the backend is the fake */
	int ndev, count_code, describe_code, open_code;
	struct gpu_dev_desc desc[4];
	double lat_s;			/* per copy */
	double bw[GPU_NDIR][GPU_NMEM];	/* bytes/s */
	int fail_at, fail_code;		/* copy number (from 1) that fails */
	double seconds_override;	/* when not 0: every copy's time */
	/* what happened */
	int copies, opens, dev_closes, closes;
	double paused, busy;
	size_t open_bytes;
	int open_node[4];		/* host node each device was opened for */
};

static inline struct fake *fake_of(struct gpu_backend *b)
{
	return (struct fake *)b;
}

static inline int fake_count(struct gpu_backend *b, int *n)
{
	*n = fake_of(b)->ndev;
	return fake_of(b)->count_code;
}

static inline int fake_describe(struct gpu_backend *b, int dev,
				struct gpu_dev_desc *d)
{
	struct fake *f = fake_of(b);

	if (f->describe_code)
		return f->describe_code;
	*d = f->desc[dev];
	return 0;
}

static inline int fake_open_dev(struct gpu_backend *b, int dev, size_t bytes,
				int node, void **s)
{
	struct fake *f = fake_of(b);

	if (f->open_code)
		return f->open_code;
	f->opens++;
	f->open_bytes = bytes;
	f->open_node[dev] = node;
	*s = f;
	return 0;
}

static inline int fake_copy(struct gpu_backend *b, void *s, enum gpu_dir dir,
			    enum gpu_host_mem mem, size_t bytes, unsigned int n,
			    double *seconds)
{
	struct fake *f = fake_of(b);

	(void)s;
	if (++f->copies == f->fail_at)
		return f->fail_code;
	*seconds = f->seconds_override ? f->seconds_override :
		   n * (f->lat_s + bytes / f->bw[dir][mem]);
	f->busy += *seconds;
	return 0;
}

static inline void fake_close_dev(struct gpu_backend *b, void *s)
{
	(void)s;
	fake_of(b)->dev_closes++;
}

static inline void fake_pause(struct gpu_backend *b, double seconds)
{
	fake_of(b)->paused += seconds;
}

static inline const char *fake_strerror(struct gpu_backend *b, int code,
					char *buf, size_t n)
{
	(void)b;
	return gpu_cuerr_describe(code, NULL, NULL, buf, n);
}

static inline void fake_close(struct gpu_backend *b)
{
	fake_of(b)->closes++;
}

static const struct gpu_backend_ops fake_ops = {
	.count = fake_count,
	.describe = fake_describe,
	.open_dev = fake_open_dev,
	.copy = fake_copy,
	.close_dev = fake_close_dev,
	.pause = fake_pause,
	.strerror = fake_strerror,
	.close = fake_close,
};

/* One H200-like device on PCIe: 10 us per copy, 50/40/20/15 GB/s. */
static inline void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->b.ops = &fake_ops;
	f->b.version = 12080;
	f->ndev = 1;
	strcpy(f->desc[0].name, "NVIDIA H200");
	strcpy(f->desc[0].busid, "00000000:3B:00.0");
	f->desc[0].mem_bytes = 150754820096ULL;
	f->desc[0].cc_major = 9;
	f->desc[0].mem_node = -1;
	f->desc[0].host_node = -1;
	f->lat_s = 10e-6;
	f->bw[GPU_H2D][GPU_PINNED] = 50e9;
	f->bw[GPU_D2H][GPU_PINNED] = 40e9;
	f->bw[GPU_H2D][GPU_PAGEABLE] = 20e9;
	f->bw[GPU_D2H][GPU_PAGEABLE] = 15e9;
}

#endif /* INDIGO_TEST_GPU_FAKE_H */
