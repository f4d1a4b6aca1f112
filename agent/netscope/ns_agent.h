/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netscope in the agent: owns the loaded programs and, per configured
 * application (cgroup), the controller that estimates its delay
 * sensitivity and sets its rate, congestion control and sensitivity in
 * ns_policy once per interval. Driven by the caller's loop (ns_agent_tick),
 * so it needs no thread of its own.
 */
#ifndef INDIGO_NS_AGENT_H
#define INDIGO_NS_AGENT_H

#include <stdbool.h>

#include "ns_app.h"
#include "ns_loader.h"

#define NS_SRC_MAX	256

struct ns_agent_opts {
	struct ns_load_opts load;
	struct ns_app_params params;
	unsigned int interval_ms;
	bool control;			/* false: measure only */
	char cc[16];			/* CC for controlled apps; "" to leave */
	struct {
		char cgroup[NS_SRC_MAX];
		char progress[NS_SRC_MAX];	/* "": from flow telemetry */
		double known_c;			/* NAN: estimate it */
	} apps[NS_APPS_MAX];
	unsigned int napps;
};

struct ns_agent;

/* The defaults for a link of @capacity_mbit: attach and register the CC,
 * control every 200 ms, give controlled apps the "netscope" CC; no apps,
 * no cgroups. */
void ns_agent_defaults(struct ns_agent_opts *o, double capacity_mbit);
/* 0 or -errno with *why naming the step that failed; -EEXIST when two
 * of o->apps are one cgroup; -EMEDIUMTYPE when a directory given (to
 * attach to, or an application's) is not on cgroup v2. */
int ns_agent_start(struct ns_agent **out, const struct ns_agent_opts *o,
		   const char **why);
/* Call often; acts once per interval. 0, or the first -errno of the last
 * interval acted on with *why set (the loop carries on). */
int ns_agent_tick(struct ns_agent *a, const char **why);
/* Live link figures for INDIGO's cost model: the queueing delay (the
 * mean RTT of the last interval's samples, every measured cgroup's, above
 * the least RTT of the last one to two windows) and the capacity they
 * left over in it (ns_link.h).
 * -EAGAIN before the first interval. */
int ns_agent_link(const struct ns_agent *a, double *queue_us, double *avail_Bps);
/* 0 when "netscope" is registered; else why not. */
int ns_agent_cc_status(const struct ns_agent *a);
/* Whether it took the place of one that a killed agent left registered. */
bool ns_agent_cc_replaced(const struct ns_agent *a);
/*
 * What became of the flows established before it started, as one line for
 * its log, into @buf (empty: none met). Returns whether any are left
 * unseen, or were not looked for (a warning, not an error: they are seen
 * once reopened).
 */
bool ns_agent_adopt_say(const struct ns_agent *a, char *buf, size_t len);
void ns_agent_stop(struct ns_agent *a);

#endif /* INDIGO_NS_AGENT_H */
