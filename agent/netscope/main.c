// SPDX-License-Identifier: GPL-2.0
/*
 * indigo-netscope: Netscope alone, in the foreground, without the rest of
 * indigod (tests, benchmarks, hosts without the module). It loads and
 * attaches the programs, registers the "netscope" congestion control,
 * runs the controller for the applications named, and on SIGINT, SIGTERM
 * or SIGHUP (unless started with it ignored, under nohup) detaches and
 * unregisters, leaving the pinned maps. Output that cannot be written (a
 * reader gone) is lost; the controller runs on.
 *
 *	indigo-netscope [--cgroup DIR]... [--app DIR[=PROGRESS] [--sens C]]...
 *		[--capacity-mbit N] [--floor-mbit N] [--interval-ms N]
 *		[--cc NAME] [--no-cc] [--observe] [--queue-us N] [--cc-target-us N]
 *		[--util-max F] [--loopback] [--host-peer PREFIX]...
 *
 * --app: an application's cgroup, whose flows in cgroups below it (up to
 * NS_APP_DEPTH levels) count and are policed as its own; --floor-mbit: a
 * sensitive application's least rate, not above
 * --capacity-mbit (default a quarter of it); --queue-us: queueing delay above the path's base that counts as
 * congestion (default 300); --util-max: the share of the capacity in use
 * (bytes on the wire, every cgroup) that counts as congestion, 0 for none
 * (default 0.93); --cc-target-us: the netscope CC's queueing
 * target for an insensitive flow (default 100); --loopback: also measure
 * and steer flows that stay on this host (to 127/8, ::1 or its own
 * addresses, or to a --host-peer), which cross no link: for tests on a
 * single network namespace; --host-peer: peers on this host that no
 * loopback device leads to (a bridge's containers or VMs), ADDR[/LEN],
 * whose flows are left alone too.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ns_agent.h"
#include "ns_maps.h"
#include "ns_peers.h"
#include "num.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * SIGHUP (its terminal gone) stops it as SIGTERM does, where it killed it
 * with the programs attached and the CC registered; under nohup it stays
 * ignored. A reader of its output gone must not kill it either: the write
 * fails instead (SIGPIPE ignored). The stopping signals are unblocked: a
 * parent that left them blocked would leave only SIGKILL, and the CC
 * registered.
 */
static void set_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, hup;
	sigset_t set;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!sigaction(SIGHUP, NULL, &hup) && hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: indigo-netscope [--cgroup DIR]... [--app DIR[=PROGRESS] [--sens C]]...\n"
		"\t[--capacity-mbit N] [--floor-mbit N] [--interval-ms N]\n"
		"\t[--cc NAME] [--no-cc] [--observe] [--queue-us N] [--cc-target-us N]\n"
		"\t[--util-max F] [--loopback] [--host-peer PREFIX]...\n");
	return 2;
}

static int parse_num(const char *s, double lo, double hi, double *v)
{
	return num_double(s, v) || *v < lo || *v > hi ? -EINVAL : 0;
}

static int parse_args(int argc, char **argv, struct ns_agent_opts *o)
{
	static const struct option lo[] = {
		{ "cgroup", required_argument, NULL, 'g' },
		{ "app", required_argument, NULL, 'a' },
		{ "sens", required_argument, NULL, 's' },
		{ "capacity-mbit", required_argument, NULL, 'C' },
		{ "floor-mbit", required_argument, NULL, 'F' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "cc", required_argument, NULL, 'c' },
		{ "queue-us", required_argument, NULL, 'q' },
		{ "cc-target-us", required_argument, NULL, 't' },
		{ "util-max", required_argument, NULL, 'u' },
		{ "no-cc", no_argument, NULL, 'N' },
		{ "observe", no_argument, NULL, 'o' },
		{ "loopback", no_argument, NULL, 'l' },
		{ "host-peer", required_argument, NULL, 'p' },
		{ 0 }
	};
	struct ns_rate_params *rp = &o->params.rate;
	double v, floor_mbit = -1;	/* applied last: capacity resets it */
	char *eq, err[128];
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (o->load.ncgroups == NS_ATTACH_MAX)
				return -E2BIG;
			o->load.cgroups[o->load.ncgroups++] = optarg;
			break;
		case 'a':
			if (o->napps == NS_APPS_MAX)
				return -E2BIG;
			eq = strchr(optarg, '=');
			if (eq)
				*eq++ = '\0';
			/* as indigod's netscope.apps: "=" says a figure follows */
			if (eq && !*eq) {
				fprintf(stderr, "indigo-netscope: --app %s=: no progress figure after '='\n",
					optarg);
				return -EINVAL;
			}
			/* cut short, either would name another cgroup or file */
			if (strlen(optarg) >= NS_SRC_MAX ||
			    (eq && strlen(eq) >= NS_SRC_MAX)) {
				fprintf(stderr, "indigo-netscope: --app: longer than %d bytes\n",
					NS_SRC_MAX - 1);
				return -ENAMETOOLONG;
			}
			snprintf(o->apps[o->napps].cgroup, NS_SRC_MAX, "%s", optarg);
			snprintf(o->apps[o->napps].progress, NS_SRC_MAX, "%s", eq ? eq : "");
			o->apps[o->napps].known_c = NAN;
			o->napps++;
			break;
		case 's':	/* the sensitivity of the last --app */
			if (!o->napps || parse_num(optarg, 0, 1000, &v))
				return -EINVAL;
			o->apps[o->napps - 1].known_c = v;
			break;
		case 'C':
			if (parse_num(optarg, 1, 400000, &v))
				return -EINVAL;
			rp->capacity_Bps = v * 1e6 / 8;
			rp->step_Bps = rp->capacity_Bps / 50;
			rp->min_Bps = rp->capacity_Bps / 100;
			rp->floor_Bps = rp->capacity_Bps / 4;
			break;
		case 'F':
			if (parse_num(optarg, 0, 400000, &floor_mbit))
				return -EINVAL;
			break;
		case 'i':
			if (parse_num(optarg, 10, 60000, &v))
				return -EINVAL;
			o->interval_ms = v;
			break;
		case 'c':
			/* cut short, it would name another congestion control */
			if (strlen(optarg) >= sizeof(o->cc)) {
				fprintf(stderr, "indigo-netscope: --cc: longer than %zu bytes\n",
					sizeof(o->cc) - 1);
				return -ENAMETOOLONG;
			}
			snprintf(o->cc, sizeof(o->cc), "%s", optarg);
			break;
		case 'q':
			if (parse_num(optarg, 1, 1e7, &v))
				return -EINVAL;
			rp->queue_thresh_us = v;
			break;
		case 'u':
			if (parse_num(optarg, 0, 1, &v))
				return -EINVAL;
			rp->util_max = v;
			break;
		case 't':
			if (parse_num(optarg, 1, 1e6, &v))
				return -EINVAL;
			o->load.cc_target_us = v;
			break;
		case 'N':
			o->load.want_cc = 0;
			break;
		case 'o':
			o->control = false;
			break;
		case 'l':
			o->load.loopback = true;
			break;
		case 'p':
			if (ns_peers_add(&o->load.host_peers, optarg, err,
					 sizeof(err))) {
				fprintf(stderr, "indigo-netscope: --host-peer: %s\n", err);
				return -EINVAL;
			}
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind != argc)
		return -EINVAL;
	if (floor_mbit >= 0)
		rp->floor_Bps = floor_mbit * 1e6 / 8;
	/* a sensitive app's rate stays within [floor, capacity]: above it,
	 * it would never be cut */
	if (rp->floor_Bps > rp->capacity_Bps) {
		fprintf(stderr, "indigo-netscope: --floor-mbit: above the capacity (--capacity-mbit)\n");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char root[PATH_MAX];	/* o.load points into it */
	char line[512];
	struct ns_agent_opts o;
	struct ns_agent *a;
	const char *why = "";
	int ret, last = 0;

	ns_agent_defaults(&o, 100);
	if (parse_args(argc, argv, &o))
		return usage();
	/* the arguments were right: not the usage, but why */
	if (!o.load.ncgroups) {
		if (ns_cgroup_root(root, sizeof(root))) {
			fprintf(stderr, "indigo-netscope: no cgroup v2 mount found: name one with --cgroup DIR\n");
			return 1;
		}
		o.load.cgroups[o.load.ncgroups++] = root;
	}
	set_signals();
	ret = ns_agent_start(&a, &o, &why);
	if (ret) {
		fprintf(stderr, "indigo-netscope: %s: %s\n", why, strerror(-ret));
		return 1;
	}
	ret = ns_agent_cc_status(a);
	if (ret)
		fprintf(stderr, "indigo-netscope: congestion control \"%s\" not registered: %s\n",
			NS_CC_NAME, strerror(-ret));
	if (!ret && ns_agent_cc_replaced(a))
		printf("indigo-netscope: replaced a \"%s\" congestion control that a killed agent left registered\n",
		       NS_CC_NAME);
	printf("indigo-netscope: attached to %zu cgroup(s), %u app(s), cc %s\n",
	       o.load.ncgroups, o.napps, ret ? "unavailable" : NS_CC_NAME);
	if (ns_agent_adopt_say(a, line, sizeof(line)))
		fprintf(stderr, "indigo-netscope: %s\n", line);
	else if (line[0])
		printf("indigo-netscope: %s\n", line);
	fflush(stdout);
	while (!stop) {
		ret = ns_agent_tick(a, &why);
		/* say a failure once, not every interval */
		if (ret && ret != last)
			fprintf(stderr, "indigo-netscope: %s: %s\n", why, strerror(-ret));
		last = ret;
		usleep(20 * 1000);
	}
	ns_agent_stop(a);
	printf("indigo-netscope: detached\n");
	return 0;
}
