/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle: future knowledge and free migration. It bounds every policy
 * the simulator runs from below (the argument is in oracle.c), so a
 * policy's stall over the oracle's is how far from optimal it is.
 */
#ifndef INDIGO_SIM_ORACLE_H
#define INDIGO_SIM_ORACLE_H

#include "sim.h"

/*
 * Fills @r for @t on the host @p: stall_ns, time_ns, accesses, local_hits,
 * far_accesses, promotions (free insertions), demotions, link_bytes (its
 * far lines only, all threads). 0, -EINVAL, -ENOMEM.
 */
int oracle_run(const struct trace *t, const struct sim_params *p,
	       struct sim_result *r);

#endif /* INDIGO_SIM_ORACLE_H */
