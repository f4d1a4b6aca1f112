/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page traces for the simulator: one record per memory access that reached
 * memory (a last-level-cache miss), at page granularity, with the retired
 * instructions since the previous record as the clock.
 *
 * File format (little-endian, as the machines we run on), built for speed:
 * the records are read with one fread into the array the simulator walks.
 *	0	8	magic "INDIGOTR"
 *	8	4	version (1)
 *	12	4	npages: page ids are dense, 0..npages-1; at most n
 *	16	8	n: records
 *	24	8	reserved (0)
 *	32	8*n	records: u32 page, u32 instructions since the last record
 *
 * n records name at most n pages: a larger npages is damage, refused on
 * load before the simulator allocates per page for it.
 *
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_SIM_TRACE_H
#define INDIGO_SIM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAGIC	"INDIGOTR"
#define TRACE_VERSION	1
#define TRACE_HDR_BYTES	32
#define TRACE_MAX_RECS	(1ULL << 31)

struct trace_rec {
	uint32_t page;
	uint32_t insns;
};

struct trace {
	uint32_t npages;
	uint64_t n;
	struct trace_rec *r;		/* malloc'd, n records */
};

/* An empty trace with room for @n records. -ENOMEM, -EINVAL (too long). */
int trace_alloc(struct trace *t, uint32_t npages, uint64_t n);
void trace_free(struct trace *t);

/* Header then records. -EIO on a write error. */
int trace_write(const struct trace *t, FILE *f);
int trace_save(const struct trace *t, const char *path);

/*
 * Reads a whole trace. -EINVAL for a foreign, truncated or inconsistent
 * file (more pages than records, a page id >= npages), -ENODATA for one
 * without records, -EIO, -ENOMEM, or fopen's errno; then @err (or NULL)
 * gets the path and why.
 */
int trace_load(struct trace *t, const char *path, char *err, size_t errlen);

/* Writes the header of a trace of @npages pages and @n records. */
int trace_write_header(FILE *f, uint32_t npages, uint64_t n);

#endif /* INDIGO_SIM_TRACE_H */
