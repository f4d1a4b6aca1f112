// SPDX-License-Identifier: GPL-2.0
/*
 * indigo-gpu: what indigod's GPU tier sees on this host. Discovers the
 * GPUs, builds the node map, probes each link once and prints a table, or
 * with --json the object indigod writes into its status. An operator's
 * check of a host, and what tests/gpu/device-check.sh runs.
 *
 *	indigo-gpu [--json] [--set KEY=VALUE]...
 *
 * KEY is a [gpu] config key (driver, nodes, probe_share, ...). Exit status:
 * 0 GPU tier up, 1 none (the reason on stderr), 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "gpu.h"

#define GB	1e9

static void usage(FILE *f)
{
	fputs("usage: indigo-gpu [--json] [--set KEY=VALUE]...\n"
	      "  KEY: enable driver sysfs_root nodes probe_share probe_page_bytes\n"
	      "       probe_batch_kib probe_reps (the [gpu] section's keys)\n", f);
}

static void print_set(const char *what, const struct gpu_nodeset *s)
{
	char buf[GPU_NODE_IDS * 5];

	gpu_nodeset_format(s, buf, sizeof(buf));
	printf(" %s %s", what, *buf ? buf : "-");
}

static void print_table(const struct gpu_tier *t)
{
	const struct gpu_tier_map *m = gpu_tier_nodes(t);
	const struct gpu_info *g;
	size_t i, n = gpu_tier_gpus(t, &g);
	int v = gpu_tier_driver_version(t), d, k;

	printf("CUDA driver %d.%d; nodes:", v / 1000, v % 1000 / 10);
	print_set("local", &m->local);
	print_set("far", &m->far);
	print_set("fast", &m->fast);
	print_set("ignored", &m->ignored);
	putchar('\n');
	for (i = 0; i < n; i++, g++) {
		printf("\nGPU %d  %s  %s  %.1f GiB  cc %d.%d  host node %d  memory node ",
		       g->ordinal, g->name, g->pci,
		       g->mem_bytes / (1024.0 * 1024 * 1024), g->cc_major,
		       g->cc_minor, g->host_node);
		if (g->mem_node >= 0)
			printf("%d\n", g->mem_node);
		else
			printf("-\n");
		printf("  %-13s %10s %11s %12s\n", "copy", "page us",
		       "page GB/s", "batch GB/s");
		for (d = 0; d < GPU_NDIR; d++)
			for (k = 0; k < GPU_NMEM; k++)
				printf("  %s %-9s %10.2f %11.2f %12.2f\n",
				       gpu_dir_name(d), gpu_host_mem_name(k),
				       g->link.x[d][k].lat_ns / 1e3,
				       g->link.x[d][k].page_bw / GB,
				       g->link.x[d][k].batch_bw / GB);
		printf("  probe: link busy %.3f s of %.3f s\n", g->link.busy_s,
		       g->link.wall_s);
	}
}

static int print_json(const struct gpu_tier *t)
{
	struct json_object *o = json_object_new_object();
	int e = o ? gpu_tier_json(t, o) : -1;

	if (!e)
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return e;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct gpu_config cfg;
	struct gpu_tier *t;
	char err[512], *eq;
	int c, json = 0, e;

	gpu_config_defaults(&cfg);
	while ((c = getopt_long(argc, argv, "js:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 's':
			eq = strchr(optarg, '=');
			if (!eq) {
				fprintf(stderr, "indigo-gpu: --set %s: no '='\n", optarg);
				return 2;
			}
			*eq = '\0';
			if (gpu_config_set(&cfg, optarg, eq + 1, err, sizeof(err))) {
				fprintf(stderr, "indigo-gpu: --set %s\n", err);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (gpu_config_check(&cfg, err, sizeof(err))) {
		fprintf(stderr, "indigo-gpu: --set: %s\n", err);
		return 2;
	}
	e = gpu_tier_start(&cfg, &t, err, sizeof(err));
	if (e) {
		fprintf(stderr, "indigo-gpu: no GPU tier: %s\n", err);
		return 1;
	}
	if (json)
		e = print_json(t);
	else
		print_table(t);
	gpu_tier_stop(t);
	return e ? 1 : 0;
}
