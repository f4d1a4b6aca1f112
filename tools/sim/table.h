/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side-by-side table: every policy on every workload, at local memory
 * of 25 % and 50 % of the working set, with the link idle and with a
 * contender taking half of it. Writes sim.md, sim.csv and the plots' data
 * (sim-stall.dat, sim-phase.dat) into a directory.
 */
#ifndef INDIGO_SIM_TABLE_H
#define INDIGO_SIM_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pol.h"
#include "sim.h"

struct table_opts {
	const char *outdir;
	uint32_t npages;		/* synthetic working set */
	uint64_t n;			/* synthetic records */
	const char *const *real;	/* real-program traces (files) */
	size_t nreal;
	unsigned int real_repeat;	/* walks of a real trace */
	uint64_t seed;
	unsigned int threads;		/* > 1: also a table with this many */
	const char *command;		/* how it was run, for the results */
};

/*
 * One policy run; the fixed kind with @c->arm. For the oracle, pass
 * kind = -1. 0 or a negative errno; then @err (or NULL) says why where the
 * policy or its model file did ("" otherwise).
 */
int table_run_one(const struct trace *t, const struct sim_params *p,
		  const struct pol_cfg *c, struct sim_result *r, char *err,
		  size_t errlen);

/*
 * The whole table; progress lines go to @log. 0 or a negative errno; then
 * @err (or NULL) says why where a trace or model file did, or where two
 * real traces would be one workload name (refused before any run).
 */
int table_make(const struct table_opts *o, FILE *log, char *err, size_t errlen);

#endif /* INDIGO_SIM_TABLE_H */
