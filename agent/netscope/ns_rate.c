// SPDX-License-Identifier: GPL-2.0
/* The DCQCN-style rate loop: see ns_rate.h. */
#include <math.h>

#include "ns_rate.h"

void ns_rate_init(struct ns_rate *r, const struct ns_rate_params *p)
{
	r->alpha = 0;
	r->rate_Bps = p->capacity_Bps;
}

bool ns_rate_step(struct ns_rate *r, const struct ns_rate_params *p,
		  const struct ns_rate_obs *o, double c, bool sensitive)
{
	bool queued = o->ce > 0 ||
		      (o->base_us > 0 && o->delay_us - o->base_us > p->queue_thresh_us);
	bool phantom = p->util_max > 0 && o->util > p->util_max;
	bool congested = queued || phantom;
	double lo = sensitive && p->floor_Bps > p->min_Bps ? p->floor_Bps : p->min_Bps;
	double cut;

	if (c < 0)
		c = 0;
	r->alpha = (1 - p->g) * r->alpha + p->g * (congested ? 1 : 0);
	cut = r->alpha / (2 + c);
	/* no queue yet: an insensitive app cuts no more than brings the
	 * link back to util_max, so the loop does not swing far below it;
	 * a sensitive one by as much less as alpha's cut has it */
	if (phantom && !queued)
		cut = fmin(cut, 2 * (1 - p->util_max / o->util) / (2 + c));
	if (congested)
		r->rate_Bps *= 1 - cut;
	else
		r->rate_Bps += p->step_Bps;
	if (r->rate_Bps < lo)
		r->rate_Bps = lo;
	if (r->rate_Bps > p->capacity_Bps)
		r->rate_Bps = p->capacity_Bps;
	return congested;
}
