/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executor "agent": which of the module's hot-page candidates the agent
 * promotes itself, and how many it may promote. Pure C, no system calls:
 * agent/executor.c does the moving.
 *
 * The module sends every page it observed (up to its cand_max per epoch),
 * with the page's access rate and burst duration. The agent keeps those
 * that pass the chosen policy's thresholds, one entry per page, hottest
 * first, and moves at most what the cost model's rate cap allows: a token
 * bucket of rate_cap_pps pages per second holding at most one epoch's worth.
 * A huge page (THP, or a large folio) moves whole: it counts as all its
 * base pages, for the cap and for the room on its destination.
 *
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_PROMOTE_H
#define INDIGO_PROMOTE_H

#include <stddef.h>
#include <stdint.h>

struct promote_cand {
	uint64_t addr;			/* user virtual address */
	uint32_t pid, node;		/* process, the far node it is on */
	uint32_t rate_mhz, burst_ms;
	uint32_t pages;			/* base pages it moves as (0: 1) */
	uint64_t start;			/* promote_pick()'s: its (huge)
					 * page's start, one per pid */
};

/* The base pages @c moves as. */
static inline uint32_t promote_pages(const struct promote_cand *c)
{
	return c->pages ? c->pages : 1;
}

/*
 * Keeps in @c[0..n) the candidates with rate >= @rate_min_mhz and burst >=
 * @burst_min_ms, one per (pid, page of @page_bytes, or the huge page it
 * is part of), the hottest first
 * (then by pid and address, so the order is deterministic). Each keeps
 * the address it was seen at, which is in its folio wherever the folio
 * is mapped; the huge page's start, aligned as large, need not be (a
 * large folio mapped by PTEs at an unaligned address). Returns how many
 * are kept; the entries beyond are left in unspecified order.
 */
size_t promote_pick(struct promote_cand *c, size_t n, uint32_t rate_min_mhz,
		    uint32_t burst_min_ms, uint64_t page_bytes);

struct promote_bucket {
	double tokens;			/* pages that may move now; below
					 * 0: a huge page's debt */
	double depth;			/* the most it holds */
	double at;			/* time of the last refill, s */
	int primed;			/* at is valid */
};

/*
 * Refills @b at @rate_pps (> 0) up to @max_tokens (>= 1) for the time
 * since the last call (@now_s, monotonic seconds); the first call fills
 * it. -EINVAL for bad figures.
 */
int promote_refill(struct promote_bucket *b, double now_s, double rate_pps,
		   double max_tokens);

/*
 * How many of @c[0..n), in their order, @b's tokens pay for, spent: each
 * costs its base pages' tokens and needs as many, or a full bucket where
 * it has more, leaving the rest as debt, so that a huge page can move
 * under a cap smaller than it and the cap holds on average. The first it
 * cannot pay for stops it: what follows waits, so the bucket fills. (The
 * module's gate has no order to keep; there, base pages faulting at the
 * cap would keep the bucket from filling, so it admits a huge page on
 * one page's worth.)
 */
size_t promote_take(struct promote_bucket *b, const struct promote_cand *c,
		    size_t n);

/*
 * Gives back to @b the tokens of @pages that were paid for and did not
 * move (up to its depth).
 */
void promote_refund(struct promote_bucket *b, uint64_t pages);

/*
 * Pages a node with @free_bytes free may take before it is down to
 * @free_min_kib, the floor the module's gate keeps (the policy's).
 */
uint64_t promote_room(uint64_t free_bytes, uint64_t free_min_kib,
		      uint64_t page_bytes);

/* Where a page on @node goes by @to (of @nnodes entries); -1: nowhere. */
int promote_dest(uint32_t node, const int *to, int nnodes);

/*
 * Keeps, of @c[0..n) in their order, those whose destination still has
 * room: @to[node] is the node a page on @node goes to, @room[dest] the
 * base pages it may take, spent as pages are kept. A page on a node outside
 * [0, @nnodes) or without a destination is kept (moving it fails, and is
 * counted as such). Returns how many are kept, at the front in order.
 */
size_t promote_fit(struct promote_cand *c, size_t n, const int *to,
		   int nnodes, uint64_t *room);

#endif /* INDIGO_PROMOTE_H */
