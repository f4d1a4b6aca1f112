/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the GPU tier needs from a driver, as a table of operations: the
 * CUDA driver (driver.c) is one implementation, the tests' fake another,
 * so discovery and probing are tested without a GPU and without cuda.h.
 *
 * Operations return a CUresult (0 success) so that messages can name the
 * driver's error; the few failures that are not the driver's use
 * GPU_BACKEND_HOST_ENOMEM.
 */
#ifndef INDIGO_GPU_BACKEND_H
#define INDIGO_GPU_BACKEND_H

#include <stddef.h>

#include "gpu.h"

#define GPU_BACKEND_HOST_ENOMEM	2	/* = CUDA_ERROR_OUT_OF_MEMORY */

/* What the driver says of one device; the rest of gpu_info is ours. */
struct gpu_dev_desc {
	char name[GPU_NAME_MAX];
	char busid[GPU_PCI_MAX];	/* as the driver writes it */
	unsigned long long mem_bytes;
	int cc_major, cc_minor;
	int mem_node;		/* NUMA node that is its memory; -1 none or unknown */
	int host_node;		/* nearest host node per the driver; -1 unknown */
};

struct gpu_backend;

struct gpu_backend_ops {
	int (*count)(struct gpu_backend *b, int *n);
	int (*describe)(struct gpu_backend *b, int dev, struct gpu_dev_desc *d);
	/*
	 * Makes @dev current and allocates what a probe copies: @bytes of
	 * device memory, of pinned and of pageable host memory (on host node
	 * @node as gpu_host_alloc() puts it), a stream and two events. *@s is
	 * the session for copy() and close_dev().
	 */
	int (*open_dev)(struct gpu_backend *b, int dev, size_t bytes, int node,
			void **s);
	/*
	 * @n back-to-back copies of @bytes in direction @dir from or to host
	 * memory @mem, timed by events around them: *@seconds.
	 */
	int (*copy)(struct gpu_backend *b, void *s, enum gpu_dir dir,
		    enum gpu_host_mem mem, size_t bytes, unsigned int n,
		    double *seconds);
	void (*close_dev)(struct gpu_backend *b, void *s);
	/* The pause between copies that keeps the probe within its share. */
	void (*pause)(struct gpu_backend *b, double seconds);
	/* "NAME: text" for a code this backend returned. */
	const char *(*strerror)(struct gpu_backend *b, int code, char *buf,
				size_t n);
	void (*close)(struct gpu_backend *b);
};

struct gpu_backend {
	const struct gpu_backend_ops *ops;
	int version;		/* driver version, 12080 for 12.8 */
};

/*
 * Writes "WHAT: NAME: text" (WHAT from @fmt) for @code into @err and
 * returns gpu_cuerr_errno(@code).
 */
int gpu_backend_fail(struct gpu_backend *b, int code, char *err, size_t errlen,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * @bytes of page-aligned host memory for a probe's copies, touched. With
 * @node >= 0 it is bound to that NUMA node (mbind, MPOL_BIND, before the
 * first touch), so that the probe measures the GPU's path from its nearest
 * node, not from wherever the calling thread's memory happens to be (the
 * other socket, a far node); the thread's own policy is left as it is.
 * @node -1 (unknown), or a node the agent may not bind to (outside its
 * cpuset, or mbind filtered out), leaves it unbound. NULL when out of
 * memory; gpu_host_free() releases it.
 */
void *gpu_host_alloc(size_t bytes, int node);
void gpu_host_free(void *p, size_t bytes);

/*
 * Opens the CUDA driver @lib as a backend (driver.c). Errors as
 * gpu_tier_start's, message in @err.
 */
int gpu_driver_open(const char *lib, struct gpu_backend **out, char *err,
		    size_t errlen);

/*
 * gpu_tier_start() over a given backend, which the tier then owns (closed
 * by gpu_tier_stop(), or here on failure). For tests and for
 * gpu_tier_start() itself.
 */
int gpu_tier_start_backend(const struct gpu_config *cfg, struct gpu_backend *b,
			   struct gpu_tier **out, char *err, size_t errlen);

#endif /* INDIGO_GPU_BACKEND_H */
