/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probing one host<->GPU link: page-sized and batched copies, each way,
 * from pinned and pageable host memory, timed by the driver's events. The
 * host memory is on the GPU's nearest host node when that is known (what
 * the link is to the application's memory there), wherever the agent's
 * thread gets memory when not.
 *
 * A probe shares the link with the application, so it keeps the link busy
 * at most a share of the time: after a copy that took t seconds it pauses
 * t * (1 / share - 1), so busy time / probe time <= share whatever the
 * link's speed. Its length is fixed by the plan: 2 x 2 x (reps page
 * copies + PROBE_PAGE_BURST page copies + reps batch copies).
 */
#ifndef INDIGO_GPU_PROBE_H
#define INDIGO_GPU_PROBE_H

#include <stddef.h>

#include "backend.h"

#define PROBE_PAGE_BURST	64	/* back-to-back page copies timed together */
#define PROBE_REPS_MAX		1000

struct gpu_probe_plan {
	size_t page_bytes;
	size_t batch_bytes;
	unsigned int reps;	/* 1..PROBE_REPS_MAX */
	double share;		/* (0, 1] */
};

/* The plan the config describes. */
void gpu_probe_plan_from(const struct gpu_config *cfg, struct gpu_probe_plan *p);

/*
 * Probes device @dev of @b into @link (untouched on failure), copying
 * from and to host memory on @node, the GPU's nearest host node (-1:
 * unknown, wherever the thread's memory is; see gpu_host_alloc()). 0, -EINVAL
 * for a bad plan, or the errno of the driver's error (gpu_cuerr_errno:
 * -ENODEV when the device was lost) with "GPU DEV: what: NAME: text" in
 * @err. Implausible timings (zero, negative, not finite) are -EIO; a
 * SIGTERM or SIGINT pending (held) ends it after the copy at hand with
 * -ECANCELED.
 */
int gpu_probe_dev(struct gpu_backend *b, int dev, int node,
		  const struct gpu_probe_plan *p, struct gpu_link *link,
		  char *err, size_t errlen);

#endif /* INDIGO_GPU_PROBE_H */
