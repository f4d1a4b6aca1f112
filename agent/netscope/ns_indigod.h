/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netscope inside indigod: the [netscope] section of indigod.conf turned
 * into a running ns_agent, and its link figures turned into INDIGO's
 * (link.source = netscope).
 *
 *	[netscope]
 *	enable = on
 *	cgroup = /sys/fs/cgroup		; attach point ("": the cgroup2 root)
 *	apps = /sys/fs/cgroup/db=/run/db.progress /sys/fs/cgroup/batch
 *	capacity_mbit = 1000
 *	floor_mbit = 100
 *	interval_ms = 200
 *	cc = netscope			; or cubic, bbr, reno, keep
 */
#ifndef INDIGO_NS_INDIGOD_H
#define INDIGO_NS_INDIGOD_H

#include <stddef.h>

#include "config.h"
#include "ns_agent.h"

/*
 * 0 with *a NULL when Netscope is off, 0 with it running, or -errno with
 * @err holding one line ("netscope.apps: ...", "netscope: STEP: why").
 * *cc_err is 0 when the "netscope" CC registered, else why not.
 */
int ns_indigod_start(struct ns_agent **a, const struct indigod_config *c,
		     int *cc_err, char *err, size_t errlen);
/*
 * The link as Netscope measures it: the bandwidth left (Gb/s, at least
 * CTX_AVAIL_FLOOR of netscope.capacity_mbit) and the far latency (ns): the
 * configured one plus the link's one-way queueing delay.
 * -EAGAIN until measured.
 */
int ns_indigod_link(const struct ns_agent *a, const struct indigod_config *c,
		    double *avail_gbps, double *far_ns);

#endif /* INDIGO_NS_INDIGOD_H */
