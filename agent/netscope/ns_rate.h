/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netscope's DCQCN-style loop on one application's sending rate, run once
 * per interval:
 *
 *	alpha <- (1 - g) alpha + g F
 *	F > 0:	R <- R (1 - alpha / (2 + c))	(insensitive => cut harder)
 *	else:	R <- R + step
 *
 * F is 1 when the interval saw CE marks, a queueing delay (delay above
 * the path's base delay) beyond a threshold, or the link in use beyond a
 * share of its capacity, else 0. The last is a phantom queue (HULL,
 * Alizadeh et al., NSDI 2012): it reacts before a real queue forms, so a
 * sensitive request rarely waits behind a standing one. When only the
 * phantom queue is over, the cut is at most 2 (1 - util_max / util) /
 * (2 + c): for an insensitive app what brings the link back to that
 * share, as there is no queue to drain and a full cut would leave the
 * link idle until R climbs back; less for a sensitive one. R stays within
 * [min, capacity], and within [floor, capacity] for a sensitive one.
 */
#ifndef INDIGO_NS_RATE_H
#define INDIGO_NS_RATE_H

#include <stdbool.h>

struct ns_rate_params {
	double g;			/* alpha's gain, (0, 1] */
	double capacity_Bps;		/* the link: the most any app gets */
	double step_Bps;		/* additive increase per interval */
	double min_Bps;			/* nobody is cut below this */
	double floor_Bps;		/* sensitive apps are not cut below */
	double queue_thresh_us;		/* queueing delay that is congestion */
	double util_max;		/* share of capacity in use that is
					 * congestion; 0: no phantom queue */
};

struct ns_rate {
	double alpha;
	double rate_Bps;
};

struct ns_rate_obs {
	double delay_us;		/* the interval's mean RTT */
	double base_us;			/* the path's least RTT, lately */
	double ce;			/* CE marks in the interval */
	double util;			/* the link's use, a share of capacity */
};

void ns_rate_init(struct ns_rate *r, const struct ns_rate_params *p);
/* One interval; @c the sensitivity to act on, @sensitive whether the
 * floor applies. Returns whether the interval was congested. */
bool ns_rate_step(struct ns_rate *r, const struct ns_rate_params *p,
		  const struct ns_rate_obs *o, double c, bool sensitive);

#endif /* INDIGO_NS_RATE_H */
