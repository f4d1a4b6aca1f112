/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executor "agent": indigod promotes the module's hot-page candidates
 * itself, with batched move_pages(2) calls (libnuma), instead of letting
 * the kernel's NUMA balancing do it through the module's gate. For kernels
 * whose own promotion does not act (no tiering mode, or a policy that
 * keeps pages where they are); the module is then set to deny so the two
 * never move the same page.
 *
 * Each page goes to the CPU node nearest (numa_distance) to the far node
 * it is on, of those that are not far. Which pages, and how many, is promote.h's choice.
 */
#ifndef INDIGO_EXECUTOR_H
#define INDIGO_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

#include "promote.h"

struct executor;

/* What the executor did since the last executor_take(). */
struct exec_totals {
	uint64_t moved;			/* base pages now on a near node */
	uint64_t moves;			/* the migrations that moved them: a
					 * huge page is one */
	double rate_sum_hz;		/* their (huge) pages' access rates,
					 * summed */
	uint64_t tried, failed;		/* base pages asked for, not moved
					 * (one no longer where it was seen
					 * is neither) */
	uint64_t over_budget;		/* candidates left for the rate cap */
	uint64_t held;			/* candidates left for the free memory
					 * floor */
	uint64_t dropped;		/* candidates beyond the buffer */
};

/*
 * -ENOSYS without NUMA support in the kernel, -ENOENT when no node has
 * CPUs, -ENOMEM.
 */
int executor_open(struct executor **out);
void executor_close(struct executor *x);

/* Queues candidates until the next executor_run (beyond its room: counted). */
void executor_add(struct executor *x, const struct promote_cand *c, size_t n);

/* Forgets the queued candidates (an arm that promotes nothing). */
void executor_clear(struct executor *x);

/*
 * The module's far nodes (@far[0..n), each epoch's), which no page goes to:
 * until told, a page goes anywhere but the node it is on. One whose memory
 * came online after executor_open() counts too (the module watches such a
 * node): its distances are read from sysfs, libnuma's being those of the
 * start.
 */
void executor_set_far(struct executor *x, const uint32_t *far, size_t n);

/*
 * Moves the queued candidates that pass @rate_min_mhz and @burst_min_ms,
 * hottest first, as many as their destination nodes take before their
 * free memory is down to @free_min_kib (the policy's floor, which the
 * module's gate keeps for the kernel's promotions), at most what @cap_pps
 * over @epoch_s allows (token bucket, @now_s monotonic; a page that does
 * not move gives its tokens back), then empties the queue. 0, or the first move_pages
 * error other than a process that went away (-ESRCH), for the caller to
 * log; the totals count every page either way.
 */
int executor_run(struct executor *x, uint32_t rate_min_mhz,
		 uint32_t burst_min_ms, uint64_t free_min_kib, uint32_t cap_pps,
		 double epoch_s, double now_s);

/* The totals so far, then zeroed. */
void executor_take(struct executor *x, struct exec_totals *t);

#endif /* INDIGO_EXECUTOR_H */
