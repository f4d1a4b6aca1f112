// SPDX-License-Identifier: GPL-2.0
/*
 * indigoctl: look at and steer indigo.ko from the command line.
 *
 *   indigoctl policy                     show the gate's policy
 *   indigoctl policy set KEY=VALUE...    change it (needs CAP_NET_ADMIN)
 *   indigoctl stats                      per-node counters and the table
 *   indigoctl watch [EPOCHS]             print telemetry as the module sends it
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modlink.h"

static int usage(FILE *f)
{
	fprintf(f,
		"usage: indigoctl policy\n"
		"       indigoctl policy set KEY=VALUE...\n"
		"       indigoctl stats\n"
		"       indigoctl watch [EPOCHS]\n"
		"policy keys: mode=observe|gate|deny rate_min_mhz=N burst_min_ms=N\n"
		"             free_min_kib=N rate_cap_pps=N burst_tol_pct=N burst_gap_ms=N\n");
	return f == stderr ? 2 : 0;
}

static int fail(const char *what, int err, const struct modlink *l)
{
	const char *why = l ? modlink_error(l) : "";

	if (err == -ENOENT)
		fprintf(stderr, "indigoctl: the indigo module is not loaded (no generic netlink family \"%s\")\n",
			INDIGO_GENL_NAME);
	else if (err == -EPERM)
		fprintf(stderr, "indigoctl: %s: permission denied: needs CAP_NET_ADMIN\n",
			what);
	else
		fprintf(stderr, "indigoctl: %s: %s%s%s\n", what, strerror(-err),
			*why ? ": " : "", why);
	return 1;
}

static void print_policy(const struct indigo_policy *p, u64 gen)
{
	printf("mode %s\n", indigo_mode_name(p->mode));
	printf("rate_min_mhz %u\n", p->rate_min);
	printf("burst_min_ms %u\n", p->burst_min);
	printf("free_min_kib %llu\n", (unsigned long long)p->free_min);
	printf("rate_cap_pps %u\n", p->rate_cap);
	printf("burst_tol_pct %u\n", p->burst_tol);
	printf("burst_gap_ms %u\n", p->burst_gap);
	printf("generation %llu\n", (unsigned long long)gen);
}

static int cmd_policy(struct modlink *l, int argc, char **argv)
{
	struct modlink_policy_req req = { .set = 0 };
	struct indigo_policy p;
	u64 gen;
	int i, err;

	if (argc == 0) {
		err = modlink_get_policy(l, &p, &gen);
		if (err)
			return fail("get policy", err, l);
		print_policy(&p, gen);
		return 0;
	}
	if (strcmp(argv[0], "set") || argc < 2)
		return usage(stderr);
	for (i = 1; i < argc; i++) {
		if (modlink_policy_parse(&req, argv[i])) {
			fprintf(stderr, "indigoctl: bad policy setting '%s'\n",
				argv[i]);
			return usage(stderr);
		}
	}
	err = modlink_set_policy(l, &req, &gen);
	if (err)
		return fail("set policy", err, l);
	err = modlink_get_policy(l, &p, &gen);
	if (err)
		return fail("get policy", err, l);
	print_policy(&p, gen);
	return 0;
}

static int cmd_stats(struct modlink *l)
{
	struct modlink_stats st;
	u32 i;
	int r, err;

	err = modlink_get_stats(l, &st);
	if (err)
		return fail("get stats", err, l);
	printf("tracked_pages %u\ncapacity_pages %u\ntable_bytes %llu\n",
	       st.tracked, st.capacity, (unsigned long long)st.table_bytes);
	printf("probe_missed %llu\ncandidates_dropped %llu\n",
	       (unsigned long long)st.missed,
	       (unsigned long long)st.cand_dropped);
	printf("node faults allowed");
	for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++)
		printf(" veto_%s", indigo_reason_name(r));
	printf(" evictions\n");
	for (i = 0; i < st.nnodes; i++) {
		const struct modlink_node *n = &st.node[i];

		printf("%u %llu %llu", n->id, (unsigned long long)n->faults,
		       (unsigned long long)n->allowed);
		for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++)
			printf(" %llu", (unsigned long long)n->veto[r]);
		printf(" %llu\n", (unsigned long long)n->evictions);
	}
	return 0;
}

static void print_epoch(const struct modlink_epoch *e, void *arg)
{
	u32 i;

	(*(long *)arg)++;
	printf("epoch %llu ms %u rate_mhz_p50/p90/p99 %u/%u/%u burst_ms_p50/p90/p99 %u/%u/%u\n",
	       (unsigned long long)e->seq, e->ms, e->rate_p50, e->rate_p90,
	       e->rate_p99, e->burst_p50, e->burst_p90, e->burst_p99);
	for (i = 0; i < e->nnodes; i++)
		printf("  node %u faults %llu allowed %llu\n", e->node[i].id,
		       (unsigned long long)e->node[i].faults,
		       (unsigned long long)e->node[i].allowed);
	fflush(stdout);
}

static void print_cands(u64 seq, const struct modlink_cand *c, u32 n,
			void *arg)
{
	u32 i;

	(void)arg;
	for (i = 0; i < n; i++)
		printf("cand epoch %llu pid %u addr 0x%llx node %u rate_mhz %u burst_ms %u\n",
		       (unsigned long long)seq, c[i].pid,
		       (unsigned long long)c[i].addr, c[i].node, c[i].rate,
		       c[i].burst_ms);
	fflush(stdout);
}

static int cmd_watch(struct modlink *l, int argc, char **argv)
{
	long epochs = 0, limit = argc > 0 ? atol(argv[0]) : 0;
	const struct modlink_events ev = {
		.epoch = print_epoch, .cands = print_cands, .arg = &epochs,
	};
	int err;

	err = modlink_subscribe(l);
	if (err)
		return fail("watch", err, l);
	while (!limit || epochs < limit) {
		err = modlink_poll(l, &ev, 1000);
		if (err == -ENOBUFS) {
			fprintf(stderr, "indigoctl: events lost (receive buffer overrun)\n");
			continue;
		}
		if (err < 0)
			return fail("watch", err, l);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct modlink *l;
	int err, rc;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (strcmp(argv[1], "policy") && strcmp(argv[1], "stats") &&
	    strcmp(argv[1], "watch"))
		return usage(stderr);
	err = modlink_open(&l);
	if (err)
		return fail("connect", err, NULL);
	if (!strcmp(argv[1], "policy"))
		rc = cmd_policy(l, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "watch"))
		rc = cmd_watch(l, argc - 2, argv + 2);
	else
		rc = cmd_stats(l);
	modlink_close(l);
	return rc;
}
