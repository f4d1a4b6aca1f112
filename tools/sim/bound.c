// SPDX-License-Identifier: GPL-2.0
/*
 * The online bound, and why no policy that knows only the past beats it.
 *
 * Setting: a trace of gen_trace() kind gups, zipf or phase, walked once.
 * Its record t draws page X_t from a distribution pi_t independently of
 * every other record (pi_t is the same for all t, or for phase the same
 * shape moved once per quarter); q = the share pi_t puts on its C most
 * likely pages, C = sim_local_pages() (gen_top_share(); the same for every
 * t). L = local_ns, F_c = link_far_ns(contention): the far latency with
 * the contender and none of our own traffic.
 *
 * Claim: for every policy P that sim_run() runs (every plug-in; not the
 * oracle, which reads the future), E[stall(P)] >= n (q L + (1 - q) F_c).
 *  1. An access costs L when its page is local, else the link's far
 *     latency of the moment, which is link_far_ns() of a utilisation at
 *     least the contender's, so at least F_c (link_far_ns() rises with
 *     load); promotions only add to that. So stall(P) >= sum over t of
 *     L 1[X_t local] + F_c 1[X_t far].
 *  2. When record t is accessed, the local set S_t was made by the records
 *     before it (a page moves on a fault, i.e. an access, which is charged
 *     as far) and holds at most C pages. X_t is independent of the records
 *     before it, and of the policy's own draws (its seed), so
 *     P(X_t in S_t | the past) = pi_t(S_t) <= q: no C pages hold more.
 *  3. So each access's expected cost is L h + F_c (1 - h) with h <= q,
 *     and F_c > L makes that at least q L + (1 - q) F_c. Sum over t.
 * The bound also holds with free, instant migration and with every page
 * placed before the first access: it charges no promotion and no warm-up,
 * so it is what knowing each page's probability exactly could reach, and
 * a policy that knows it gets close (tests/sim/test_sim.c:
 * online_bound_is_reached). More threads only load the link more.
 *
 * A run is one draw of the trace, not the expectation: its hits stray from
 * their expectation by about sqrt(n q (1 - q)) (one standard deviation),
 * some 750 of 8 M records, about 0.06 % of the stall.
 */
#include "bound.h"

#include <errno.h>

#include "gen.h"

int bound_online(const struct sim_params *p, int kind, uint32_t npages,
		 uint64_t n, double *stall_ns)
{
	double q, far;
	int ret;

	if (!p || !stall_ns || sim_params_check(p) || p->repeat != 1)
		return -EINVAL;
	ret = gen_top_share(kind, npages, sim_local_pages(p, npages), &q);
	if (ret)
		return ret;
	far = link_far_ns(&p->link, p->link.contention);
	*stall_ns = (double)n * (q * p->link.local_ns + (1 - q) * far);
	return 0;
}
