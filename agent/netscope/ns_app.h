/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One application (cgroup) under Netscope's control: its delay sensitivity
 * estimated online, and its rate loop fed with that sensitivity.
 *
 * Sensitivity c is the slope of log progress time (seconds per unit of
 * progress) against log delay: 1 for a ping-pong, whose every turn waits a
 * round trip; 0 for a transfer limited elsewhere. A unit of progress is the
 * application's own figure when it has one, else a request/response turn
 * or a delivered byte, as its flows show (ns_agent.c). The
 * controller acts on c only once its credible interval is narrower than
 * max_width; until then the application counts as sensitive, and after,
 * unless the whole interval lies below c_sensitive.
 */
#ifndef INDIGO_NS_APP_H
#define INDIGO_NS_APP_H

#include <stdbool.h>

#include "ns_blr.h"
#include "ns_rate.h"

struct ns_app_params {
	struct ns_rate_params rate;
	double lambda, forget;		/* the regression's prior, discount */
	double max_width;		/* widest interval acted on */
	double c_untrusted;		/* c used until then */
	double c_sensitive;		/* c from which the floor applies */
};

struct ns_app_obs {
	double dt_s;			/* the interval's length */
	double delay_us, base_us;	/* the interval's mean and least RTT */
	double ce;			/* CE marks in the interval */
	double util;			/* the link's use, a share of capacity */
	double units;			/* progress in the interval */
	bool held;			/* paced below the link's capacity by
					 * this controller over the interval */
};

struct ns_app {
	struct ns_blr blr[2];		/* in bytes, in turns (by_turns) */
	struct ns_rate rate;
	struct ns_slope slope;		/* the last estimate */
	bool trust[2];			/* each regression's: its interval
					 * <= max_width, or twice that once
					 * trusted */
	bool trusted;			/* the one in use's (by_turns) */
	double c;			/* the sensitivity acted on */
	double known_c;			/* NAN, or the operator's figure */
	bool by_turns;			/* ns_app_flow_units counts turns */
};

#define NS_TURN_BYTES_RR	(32 << 10)	/* per turn, below: request/response */
#define NS_TURN_BYTES_BULK	(128 << 10)	/* per turn, above: bulk */
#define NS_TURNS_RR_MIN		16	/* and turns enough in an interval to
						 * tell: a transfer's handshake on
						 * its control connection is a few */

/* @known_c: NAN to estimate c, else the operator's figure, acted on as is
 * (the published Netscope fits c offline from past runs). */
void ns_app_init(struct ns_app *a, const struct ns_app_params *p,
		 double known_c);
/* One interval: learn from @o, then run the rate loop. Returns whether the
 * interval was congested. */
bool ns_app_step(struct ns_app *a, const struct ns_app_params *p,
		 const struct ns_app_obs *o);
/*
 * Whether the floor guards it: the operator's c at or above c_sensitive;
 * learnt, unless the estimate is trusted and its whole interval lies below.
 */
bool ns_app_sensitive(const struct ns_app *a, const struct ns_app_params *p);
/*
 * The pacing rate to enforce on the application's flows, 0 for none: its
 * rate, unless that does not bind, being above NS_PACE_SLACK times what
 * the application put on the wire in the last interval (@use_Bps), or the
 * application progresses in turns. At the link's capacity too: pacing
 * brings the window clamp (NS_CLAMP_QUEUE_US) that keeps a bulk flow's
 * TSO bursts short, which matters most when nothing is being cut and the
 * delay-based CC alone holds the queue (at 1 Gbit/s, 5 + 5 rounds: the
 * queue's echo p99 0.134 ms against 0.164 ms unpaced, bulk unchanged). A
 * request/response application is clocked by its own round trips: what it
 * can have queued is bounded by its requests outstanding, so a queue slows
 * it without pacing, while pacing delays every send that follows another
 * within a packet's time at its share of the rate (the rate is split across
 * its flows). Measured on redis: pacing at twice its use raised its p99 by
 * a quarter, and it was worse the more its rate was cut.
 */
#define NS_PACE_SLACK	2.0
double ns_app_pacing(const struct ns_app *a, double use_Bps);
/*
 * Without a progress figure: the interval's progress from its flows' bytes
 * and turns (ns_cg_stats.turns). A request/response application progresses
 * by turns, a bulk one by bytes; which it is comes from the bytes per turn,
 * with a margin either way so that it does not flip. Each unit has its
 * own regression, the two differing in intercept: a bulk application whose
 * restart looks request/response for an interval (a control connection's
 * handshake) comes back to what it had learnt in bytes.
 */
double ns_app_flow_units(struct ns_app *a, double bytes, double turns);

#endif /* INDIGO_NS_APP_H */
