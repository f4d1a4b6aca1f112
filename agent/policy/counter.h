/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing counter read now and then (a link's byte counter, an
 * application's progress): its growth between two readings. Pure C: the
 * caller reads the file (ctx_read_counter) and the clock.
 */
#ifndef INDIGO_COUNTER_H
#define INDIGO_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

struct counter_src {
	bool have;		/* a reading to compare with */
	uint64_t prev;
	double at;		/* its time, s */
};

/*
 * Takes reading @v at @t_s. 1 with the previous reading in *@prev and the
 * time between them in *@dt_s; 0 when there is nothing to compare with:
 * the first reading, a counter that went back (restarted: it starts over)
 * or a clock that did not advance.
 */
int counter_step(struct counter_src *c, uint64_t v, double t_s,
		 uint64_t *prev, double *dt_s);

/* Forgets the last reading (the counter is unreadable, or replaced). */
void counter_reset(struct counter_src *c);

#endif /* INDIGO_COUNTER_H */
