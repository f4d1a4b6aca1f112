/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The online bound: the least expected stall of any policy that does not
 * know which pages the trace will draw next, on the synthetic workloads
 * whose records are independent draws (gups, zipf, phase). The oracle
 * (oracle.h) bounds every policy; this bounds every policy but the oracle,
 * and is higher: how far a policy could still get, and which goals no
 * policy can reach (the argument is in bound.c).
 */
#ifndef INDIGO_SIM_BOUND_H
#define INDIGO_SIM_BOUND_H

#include "sim.h"

/*
 * The bound, in ns of stall, for @n records of synthetic kind @kind over
 * @npages pages on the host @p. 0, or -EINVAL where there is none: stream
 * (each record follows from the last), a trace walked more than once (the
 * later walks replay the first's draws), bad parameters.
 */
int bound_online(const struct sim_params *p, int kind, uint32_t npages,
		 uint64_t n, double *stall_ns);

#endif /* INDIGO_SIM_BOUND_H */
