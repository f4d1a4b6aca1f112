// SPDX-License-Identifier: GPL-2.0
/* An application's sensitivity estimate and rate loop: see ns_app.h. */
#include <math.h>

#include "ns_app.h"

/* The sensitivity to act on: the estimate's once @trust, the operator's
 * whenever given (from the first policy published, not the first
 * interval's end) */
static void act_on(struct ns_app *a, const struct ns_app_params *p, bool trust)
{
	a->trusted = trust;
	a->c = trust ? fmax(a->slope.mean, 0) : p->c_untrusted;
	if (!isnan(a->known_c)) {
		a->trusted = true;
		a->c = a->known_c;
	}
}

void ns_app_init(struct ns_app *a, const struct ns_app_params *p,
		 double known_c)
{
	a->known_c = known_c;
	a->by_turns = false;
	ns_blr_init(&a->blr[0], p->lambda, p->forget);
	ns_blr_init(&a->blr[1], p->lambda, p->forget);
	ns_rate_init(&a->rate, &p->rate);
	ns_blr_slope(&a->blr[0], &a->slope);
	a->trust[0] = a->trust[1] = false;
	act_on(a, p, false);
}

double ns_app_flow_units(struct ns_app *a, double bytes, double turns)
{
	bool rr = a->by_turns;

	if (turns >= NS_TURNS_RR_MIN && bytes / turns < NS_TURN_BYTES_RR)
		rr = true;
	else if (bytes > 0 && (!turns || bytes / turns > NS_TURN_BYTES_BULK))
		rr = false;
	a->by_turns = rr;
	return rr ? turns : bytes;
}

bool ns_app_step(struct ns_app *a, const struct ns_app_params *p,
		 const struct ns_app_obs *o)
{
	struct ns_rate_obs ro = {
		.delay_us = o->delay_us, .base_us = o->base_us, .ce = o->ce,
		.util = o->util,
	};
	struct ns_blr *blr = &a->blr[a->by_turns];
	bool *trust = &a->trust[a->by_turns];

	/*
	 * An idle interval says nothing about progress; nor, once the
	 * estimate is trusted, does one in which the loop held the
	 * application below the link's capacity: its cuts follow delay, so
	 * they would read as its sensitivity (a bulk drifted from 0 to 0.8
	 * over two minutes that way, then was spared as sensitive)
	 */
	if (o->units > 0 && o->delay_us > 0 && o->dt_s > 0 &&
	    !(o->held && *trust))
		ns_blr_add(blr, log(o->delay_us), log(o->dt_s / o->units));
	/* trust, once earned, goes only at twice the width: an interval
	 * that caught an application starting or stopping widens it for a
	 * while, and the controller should not swing on that */
	*trust = !ns_blr_slope(blr, &a->slope) &&
		 a->slope.hi - a->slope.lo <= p->max_width * (*trust ? 2 : 1);
	act_on(a, p, *trust);
	return ns_rate_step(&a->rate, &p->rate, &ro, a->c,
			    ns_app_sensitive(a, p));
}

bool ns_app_sensitive(const struct ns_app *a, const struct ns_app_params *p)
{
	if (!isnan(a->known_c))
		return a->known_c >= p->c_sensitive;
	/*
	 * Learnt: insensitive only when the whole interval says so, not its
	 * mean; a mean just under the line (redis read 0.24, 0.13 to 0.35,
	 * after two minutes at 100 Mbit/s) may well be sensitive.
	 */
	return !a->trusted || a->slope.hi >= p->c_sensitive;
}

double ns_app_pacing(const struct ns_app *a, double use_Bps)
{
	double r = a->rate.rate_Bps;

	if (a->by_turns || r > NS_PACE_SLACK * use_Bps)
		return 0;
	return r;
}
