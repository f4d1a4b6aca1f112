// SPDX-License-Identifier: GPL-2.0
/* indigod's [netscope] section to a running controller: see ns_indigod.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "ns_indigod.h"
#include "ns_maps.h"

static const char *cc_name(int cc)
{
	switch (cc) {
	case CONFIG_NS_CC_NETSCOPE:
		return NS_CC_NAME;
	case CONFIG_NS_CC_CUBIC:
		return "cubic";
	case CONFIG_NS_CC_BBR:
		return "bbr";
	case CONFIG_NS_CC_RENO:
		return "reno";
	}
	return "";
}

_Static_assert(CONFIG_NS_APPS_MAX == NS_APPS_MAX,
	       "config.c checks netscope.apps against ns_agent.h's bound");

/* "DIR[=PROGRESS] ..." into o->apps (config.c has checked it, as here) */
static int parse_apps(const char *list, struct ns_agent_opts *o, char *err,
		      size_t errlen)
{
	char buf[CONFIG_PATH_MAX], why[128], *save = NULL, *tok, *eq;
	int ret = config_ns_apps_check(list, why, sizeof(why));

	if (ret) {
		snprintf(err, errlen, "netscope.apps: %s", why);
		return ret;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		snprintf(o->apps[o->napps].cgroup, NS_SRC_MAX, "%s", tok);
		snprintf(o->apps[o->napps].progress, NS_SRC_MAX, "%s", eq ? eq : "");
		o->apps[o->napps].known_c = NAN;
		o->napps++;
	}
	return 0;
}

int ns_indigod_start(struct ns_agent **a, const struct indigod_config *c,
		     int *cc_err, char *err, size_t errlen)
{
	char root[CONFIG_PATH_MAX];	/* o.load points into it: start only */
	struct ns_agent_opts o;
	const char *why = "";
	int ret;

	*a = NULL;
	*cc_err = 0;
	if (!c->netscope.enable)
		return 0;
	ns_agent_defaults(&o, c->netscope.capacity_mbit);
	o.params.rate.floor_Bps = c->netscope.floor_mbit * 1e6 / 8;
	o.interval_ms = c->netscope.interval_ms;
	o.load.loopback = c->netscope.loopback;
	o.load.host_peers = c->netscope.host_peers;
	o.load.ncgroups = 1;
	ret = parse_apps(c->netscope.apps, &o, err, errlen);
	if (ret)
		return ret;
	snprintf(o.cc, sizeof(o.cc), "%s", cc_name(c->netscope.cc));
	if (c->netscope.cgroup[0])
		snprintf(root, sizeof(root), "%s", c->netscope.cgroup);
	else if (ns_cgroup_root(root, sizeof(root))) {
		snprintf(err, errlen, "netscope: no cgroup v2 mount found");
		return -ENOENT;
	}
	o.load.cgroups[0] = root;
	ret = ns_agent_start(a, &o, &why);
	if (ret) {
		snprintf(err, errlen, "netscope: %s: %s", why, strerror(-ret));
		return ret;
	}
	*cc_err = ns_agent_cc_status(*a);
	return 0;
}

int ns_indigod_link(const struct ns_agent *a, const struct indigod_config *c,
		    double *avail_gbps, double *far_ns)
{
	double queue_us, avail_Bps;
	int ret = ns_agent_link(a, &queue_us, &avail_Bps);

	if (ret)
		return ret;
	/* floored as the counter source's is: 0 would read "not measured",
	 * and a full link is the one whose figure matters most */
	*avail_gbps = fmax(avail_Bps * 8 / 1e9,
			   CTX_AVAIL_FLOOR * c->netscope.capacity_mbit / 1e3);
	/* a far access crosses the link once: half the round trip's queue */
	*far_ns = c->link.far_latency_ns + queue_us * 1000 / 2;
	return 0;
}
