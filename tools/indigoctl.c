// SPDX-License-Identifier: GPL-2.0
/*
 * indigoctl: look at and steer indigo.ko and indigod from the command line.
 *
 *   indigoctl [--json] status               the module and the agent
 *   indigoctl [--json] policy               the gate's policy
 *   indigoctl [--json] policy set KEY=VALUE...
 *   indigoctl [--json] stats                per-node counters and the table
 *   indigoctl [--json] decisions [N]        the module's last N gate decisions
 *   indigoctl [--json] watch [EPOCHS]       telemetry as the module sends it
 *   indigoctl [--json] eval LOG             off-policy evaluation of a log
 *
 * Everything but eval talks to the module and needs root. See indigoctl(8).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "indigoctl_netscope.h"

static int usage(FILE *f)
{
	fprintf(f,
		"usage: indigoctl [--json] [--status-file PATH] COMMAND\n"
		"commands:\n"
		"  status                 the module's policy and counters, the agent's state\n"
		"  policy                 the gate's policy\n"
		"  policy set KEY=VALUE...  change it; keys: mode=observe|gate|deny\n"
		"                         rate_min_mhz burst_min_ms free_min_kib rate_cap_pps\n"
		"                         burst_tol_pct burst_gap_ms\n"
		"  stats                  per-node counters and the page table\n"
		"  decisions [N]          the module's last N gate decisions (default 20)\n"
		"  watch [EPOCHS]         telemetry as the module sends it\n"
		"  eval LOG               estimate each arm's reward from a decision log\n"
		"  netscope [set|clear]   Netscope's per-cgroup view and policy (see -h there)\n");
	return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "status-file", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl c = {
		.status_path = "/run/indigo/status.json",
		.debugfs = "/sys/kernel/debug/indigo",
	};
	const char *cmd;
	int o;

	while ((o = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			c.json = true;
			break;
		case 's':
			c.status_path = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind >= argc)
		return usage(stderr);
	cmd = argv[optind];
	argc -= optind + 1;
	argv += optind + 1;
	if (!strcmp(cmd, "eval"))
		return ctl_eval(&c, argc, argv);
	if (!strcmp(cmd, "netscope"))
		return indigoctl_netscope(c.json, argc, argv);
	if (strcmp(cmd, "status") && strcmp(cmd, "policy") &&
	    strcmp(cmd, "stats") && strcmp(cmd, "decisions") &&
	    strcmp(cmd, "watch"))
		return usage(stderr);
	/* reading the policy works unprivileged; the rest would half-work */
	if (geteuid() && strcmp(cmd, "policy")) {
		fprintf(stderr, "indigoctl: %s: needs root (netlink with CAP_NET_ADMIN, debugfs)\n",
			cmd);
		return 1;
	}
	if (!strcmp(cmd, "status"))
		return argc ? usage(stderr) : ctl_status(&c);
	if (!strcmp(cmd, "policy"))
		return ctl_policy(&c, argc, argv);
	if (!strcmp(cmd, "stats"))
		return argc ? usage(stderr) : ctl_stats(&c);
	if (!strcmp(cmd, "decisions"))
		return ctl_decisions(&c, argc, argv);
	return ctl_watch(&c, argc, argv);
}
