// SPDX-License-Identifier: GPL-2.0
/* A counter's growth between readings (counter.h). */
#include "counter.h"

int counter_step(struct counter_src *c, uint64_t v, double t_s,
		 uint64_t *prev, double *dt_s)
{
	int ok = c->have && v >= c->prev && t_s > c->at;

	if (ok) {
		*prev = c->prev;
		*dt_s = t_s - c->at;
	}
	c->have = true;
	c->prev = v;
	c->at = t_s;
	return ok;
}

void counter_reset(struct counter_src *c)
{
	c->have = false;
}
