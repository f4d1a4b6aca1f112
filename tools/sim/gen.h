/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic page traces. All draw from splitmix64 seeded by the caller, so
 * a (kind, npages, n, seed) always gives the same trace. Every record
 * carries GEN_INSNS instructions of compute before it.
 *
 *  gups	GUPS-style: 90 % of accesses uniform over a hot tenth of the
 *		pages, 10 % uniform over all of them
 *  zipf	Zipf (s = 0.99) over all pages, ranks scattered over the ids
 *  phase	gups whose hot tenth moves to the next disjoint tenth every
 *		quarter of the trace (GEN_PHASES phases)
 *  stream	sequential scans over all pages, GEN_STREAM_LINES consecutive
 *		line accesses per page, over and over
 */
#ifndef INDIGO_SIM_GEN_H
#define INDIGO_SIM_GEN_H

#include <stdint.h>

#include "trace.h"

#define GEN_INSNS		100
#define GEN_PHASES		4
#define GEN_STREAM_LINES	4
#define GEN_MIN_PAGES		10	/* a hot tenth of at least one page */

enum gen_kind { GEN_GUPS, GEN_ZIPF, GEN_PHASE, GEN_STREAM, GEN_COUNT };

const char *gen_name(int kind);
int gen_parse(const char *name);

/* Fills a new @t (trace_free it). -EINVAL (npages < GEN_MIN_PAGES, n 0), -ENOMEM. */
int gen_trace(struct trace *t, int kind, uint32_t npages, uint64_t n,
	      uint64_t seed);

/*
 * The share of a record's draws that fall on the @k most likely of @npages
 * pages, for the kinds whose records are independent draws from a known
 * distribution (gups, zipf; phase: independent given the phase, each phase
 * the same shape moved). Exact for the distributions above; the
 * generators' integer draws stray from them by under 2^-32 per page.
 * 0, or -EINVAL for stream (each record follows from the last) or bad
 * arguments.
 */
int gen_top_share(int kind, uint32_t npages, uint32_t k, double *share);

/*
 * The page of rank @rank (0: the most likely) in the distribution that
 * record @i of an @n-record trace of @kind draws from, ties in a fixed
 * order: the pages gen_top_share() counts are ranks 0 to k - 1. UINT32_MAX
 * for stream or bad arguments.
 */
uint32_t gen_rank_page(int kind, uint32_t npages, uint64_t n, uint64_t i,
		       uint32_t rank);

#endif /* INDIGO_SIM_GEN_H */
