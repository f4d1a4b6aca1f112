// SPDX-License-Identifier: GPL-2.0
/*
 * The agent executor's choice of pages and its promotion budget
 * (promote.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "promote.h"

/* Hottest first; ties by pid, then address, so equal pages are adjacent. */
static int hotter(const void *pa, const void *pb)
{
	const struct promote_cand *a = pa, *b = pb;

	if (a->rate_mhz != b->rate_mhz)
		return a->rate_mhz > b->rate_mhz ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

/* Same process and (huge) page: the hottest sighting first. */
static int by_page(const void *pa, const void *pb)
{
	const struct promote_cand *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->rate_mhz != b->rate_mhz)
		return a->rate_mhz > b->rate_mhz ? -1 : 1;
	return 0;
}

/* The start of the (huge) page @c is on: its sightings' common address. */
static uint64_t page_start(const struct promote_cand *c, uint64_t page_bytes)
{
	uint64_t span = page_bytes * promote_pages(c);

	/* huge pages are a power of two of base pages, aligned as large */
	if (!page_bytes || span / page_bytes != promote_pages(c) ||
	    (span & (span - 1)))
		span = page_bytes;
	return span ? c->addr & ~(span - 1) : c->addr;
}

size_t promote_pick(struct promote_cand *c, size_t n, uint32_t rate_min_mhz,
		    uint32_t burst_min_ms, uint64_t page_bytes)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (c[i].rate_mhz < rate_min_mhz || c[i].burst_ms < burst_min_ms)
			continue;
		c[kept] = c[i];
		c[kept].start = page_start(&c[i], page_bytes);
		kept++;
	}
	/* a page seen twice in the epoch: keep its hottest sighting */
	qsort(c, kept, sizeof(*c), by_page);
	n = kept;
	kept = 0;
	for (i = 0; i < n; i++) {
		if (kept && c[kept - 1].pid == c[i].pid &&
		    c[kept - 1].start == c[i].start)
			continue;
		c[kept++] = c[i];
	}
	qsort(c, kept, sizeof(*c), hotter);
	return kept;
}

int promote_refill(struct promote_bucket *b, double now_s, double rate_pps,
		   double max_tokens)
{
	if (!b || !isfinite(now_s) || !isfinite(rate_pps) || rate_pps <= 0 ||
	    !isfinite(max_tokens) || max_tokens < 1)
		return -EINVAL;
	if (!b->primed) {
		/* a fresh agent may use one full epoch's worth at once */
		b->tokens = max_tokens;
		b->at = now_s;
		b->primed = 1;
	} else if (now_s > b->at) {
		b->tokens += (now_s - b->at) * rate_pps;
		b->at = now_s;
	}
	if (b->tokens > max_tokens)
		b->tokens = max_tokens;
	b->depth = max_tokens;
	return 0;
}

size_t promote_take(struct promote_bucket *b, const struct promote_cand *c,
		    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double cost = promote_pages(&c[i]);

		if (b->tokens < (cost < b->depth ? cost : b->depth))
			break;
		b->tokens -= cost;
	}
	return i;
}

void promote_refund(struct promote_bucket *b, uint64_t pages)
{
	b->tokens += (double)pages;
	if (b->tokens > b->depth)
		b->tokens = b->depth;
}

uint64_t promote_room(uint64_t free_bytes, uint64_t free_min_kib,
		      uint64_t page_bytes)
{
	uint64_t min_bytes = free_min_kib > UINT64_MAX / 1024 ? UINT64_MAX :
			     free_min_kib * 1024;

	if (!page_bytes || free_bytes <= min_bytes)
		return 0;
	return (free_bytes - min_bytes) / page_bytes;
}

int promote_dest(uint32_t node, const int *to, int nnodes)
{
	return node < (uint32_t)nnodes ? to[node] : -1;
}

size_t promote_fit(struct promote_cand *c, size_t n, const int *to,
		   int nnodes, uint64_t *room)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		int dest = promote_dest(c[i].node, to, nnodes);

		if (dest >= 0) {
			if (room[dest] < promote_pages(&c[i]))
				continue;
			room[dest] -= promote_pages(&c[i]);
		}
		c[kept++] = c[i];
	}
	return kept;
}
