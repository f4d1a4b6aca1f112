// SPDX-License-Identifier: GPL-2.0
/* indigoctl policy [set], stats, watch: the module over netlink. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctl_out.h"
#include "num.h"

int ctl_fail(const char *what, int err, const struct modlink *l)
{
	const char *why = l ? modlink_error(l) : "";

	if (err == -ENOENT)
		fprintf(stderr, "indigoctl: %s: the indigo module is not loaded (no generic netlink family \"%s\")\n",
			what, INDIGO_GENL_NAME);
	else if (err == -EPERM || err == -EACCES)
		fprintf(stderr, "indigoctl: %s: permission denied: run as root (needs CAP_NET_ADMIN)\n",
			what);
	else
		fprintf(stderr, "indigoctl: %s: %s%s%s\n", what, strerror(-err),
			why && *why ? ": " : "", why ? why : "");
	return 1;
}

int ctl_connect(struct modlink **l)
{
	int err = modlink_open(l);

	return err ? ctl_fail("connect", err, NULL) : 0;
}

static struct json_object *policy_json(const struct indigo_policy *p, u64 gen)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	ctl_add_str(o, "mode", indigo_mode_name(p->mode));
	ctl_add_u64(o, "rate_min_mhz", p->rate_min);
	ctl_add_u64(o, "burst_min_ms", p->burst_min);
	ctl_add_u64(o, "free_min_kib", p->free_min);
	ctl_add_u64(o, "rate_cap_pps", p->rate_cap);
	ctl_add_u64(o, "burst_tol_pct", p->burst_tol);
	ctl_add_u64(o, "burst_gap_ms", p->burst_gap);
	ctl_add_u64(o, "generation", gen);
	return o;
}

struct json_object *ctl_policy_json(struct modlink *l)
{
	struct indigo_policy p;
	u64 gen;
	int err = modlink_get_policy(l, &p, &gen);

	if (err) {
		ctl_fail("get policy", err, l);
		return NULL;
	}
	return policy_json(&p, gen);
}

/*
 * What SET_POLICY refuses (ERANGE, include/uapi/linux/indigo.h) beyond the
 * attribute's type: refused here, naming the key and its range, rather
 * than sent for the kernel's "integer out of range" and exit 1.
 */
static const struct {
	const char *key;
	u32 min, max;
} policy_ranges[] = {
	{ "rate_cap_pps", 0, INDIGO_RATE_CAP_MAX },
	{ "burst_tol_pct", INDIGO_BURST_TOL_MIN, INDIGO_BURST_TOL_MAX },
	{ "burst_gap_ms", INDIGO_BURST_GAP_MIN, INDIGO_BURST_GAP_MAX },
};

static int setting_in_range(const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t i, klen = eq ? (size_t)(eq - kv) : 0;
	uint64_t v;

	for (i = 0; i < sizeof(policy_ranges) / sizeof(policy_ranges[0]); i++) {
		if (strlen(policy_ranges[i].key) != klen ||
		    strncmp(policy_ranges[i].key, kv, klen))
			continue;
		/* modlink_policy_parse() took it: a number within u32 */
		if (num_u64(eq + 1, UINT32_MAX, &v) ||
		    v < policy_ranges[i].min || v > policy_ranges[i].max) {
			fprintf(stderr, "indigoctl: policy setting '%s' out of range: the module takes %s from %u to %u\n",
				kv, policy_ranges[i].key,
				policy_ranges[i].min, policy_ranges[i].max);
			return 0;
		}
	}
	return 1;
}

static int parse_settings(struct modlink_policy_req *req, int argc,
			  char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (modlink_policy_parse(req, argv[i])) {
			fprintf(stderr, "indigoctl: bad policy setting '%s' (keys: mode=observe|gate|deny rate_min_mhz burst_min_ms free_min_kib rate_cap_pps burst_tol_pct burst_gap_ms)\n",
				argv[i]);
			return 2;
		}
		if (!setting_in_range(argv[i]))
			return 2;
	}
	return 0;
}

static int set_policy(struct modlink *l, const struct modlink_policy_req *req)
{
	u64 gen;
	int err = modlink_set_policy(l, req, &gen);

	return err ? ctl_fail("set policy", err, l) : 0;
}

int ctl_policy(const struct ctl *c, int argc, char **argv)
{
	struct modlink_policy_req req = { .set = 0 };
	struct json_object *o;
	struct modlink *l;
	int rc;

	if (argc > 0 && (strcmp(argv[0], "set") || argc < 2)) {
		fprintf(stderr, "indigoctl: usage: policy [set KEY=VALUE...]\n");
		return 2;
	}
	/* bad usage is exit 2 whether or not the module is there */
	if (argc > 0 && parse_settings(&req, argc - 1, argv + 1))
		return 2;
	if (ctl_connect(&l))
		return 1;
	rc = argc > 0 ? set_policy(l, &req) : 0;
	if (!rc) {
		o = ctl_policy_json(l);
		rc = o ? ctl_print(o, c->json) : 1;
		json_object_put(o);
	}
	modlink_close(l);
	return rc;
}

static struct json_object *node_json(const struct modlink_node *n)
{
	struct json_object *o = json_object_new_object();
	char key[40];
	int r;

	if (!o)
		return NULL;
	ctl_add_u64(o, "node", n->id);
	ctl_add_u64(o, "faults", n->faults);
	ctl_add_u64(o, "allowed", n->allowed);
	ctl_add_u64(o, "allowed_pages", n->allowed_pages);
	for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++) {
		snprintf(key, sizeof(key), "veto_%s", indigo_reason_name(r));
		ctl_add_u64(o, key, n->veto[r]);
	}
	ctl_add_u64(o, "evictions", n->evictions);
	return o;
}

struct json_object *ctl_stats_json(struct modlink *l)
{
	struct json_object *o, *nodes;
	struct modlink_stats st;
	u32 i;
	int err = modlink_get_stats(l, &st);

	if (err) {
		ctl_fail("get stats", err, l);
		return NULL;
	}
	o = json_object_new_object();
	nodes = json_object_new_array();
	if (!o || !nodes) {
		json_object_put(o);
		json_object_put(nodes);
		return NULL;
	}
	ctl_add_u64(o, "tracked_pages", st.tracked);
	ctl_add_u64(o, "capacity_pages", st.capacity);
	ctl_add_u64(o, "table_bytes", st.table_bytes);
	ctl_add_u64(o, "probe_missed", st.missed);
	ctl_add_u64(o, "candidates_dropped", st.cand_dropped);
	for (i = 0; i < st.nnodes; i++)
		json_object_array_add(nodes, node_json(&st.node[i]));
	ctl_add(o, "nodes", nodes);
	return o;
}

int ctl_stats(const struct ctl *c)
{
	struct json_object *o;
	struct modlink *l;
	int rc;

	if (ctl_connect(&l))
		return 1;
	o = ctl_stats_json(l);
	rc = o ? ctl_print(o, c->json) : 1;
	json_object_put(o);
	modlink_close(l);
	return rc;
}

struct watch {
	const struct ctl *c;
	uint64_t epochs, limit;	/* limit 0: until interrupted */
	u64 last;			/* the last epoch shown */
};

/*
 * One poll hands over everything queued (up to 256 messages): when the
 * output stalled, that is several epochs, which must not run past EPOCHS.
 * The last epoch's candidates, sent after it, still belong to the watch.
 */
static bool watch_done(const struct watch *w)
{
	return w->limit && w->epochs >= w->limit;
}

/* One format per output kind (0: people, 1: JSON lines), same arguments. */
static const char *const epoch_fmt[2] = {
	"epoch %llu ms %u rate_mhz_p50/p90/p99 %u/%u/%u burst_ms_p50/p90/p99 %u/%u/%u\n",
	"{\"epoch\":%llu,\"ms\":%u,\"rate_mhz\":[%u,%u,%u],\"burst_ms\":[%u,%u,%u],\"nodes\":[",
};
static const char *const node_fmt[2] = {
	"%s  node %u faults %llu allowed %llu pages %llu\n",
	"%s{\"node\":%u,\"faults\":%llu,\"allowed\":%llu,\"allowed_pages\":%llu}",
};

static void print_epoch(const struct modlink_epoch *e, void *arg)
{
	struct watch *w = arg;
	int j = w->c->json;
	u32 i;

	if (watch_done(w))
		return;
	w->epochs++;
	w->last = e->seq;
	printf(epoch_fmt[j], (unsigned long long)e->seq, e->ms, e->rate_p50,
	       e->rate_p90, e->rate_p99, e->burst_p50, e->burst_p90,
	       e->burst_p99);
	for (i = 0; i < e->nnodes; i++)
		printf(node_fmt[j], j && i ? "," : "", e->node[i].id,
		       (unsigned long long)e->node[i].faults,
		       (unsigned long long)e->node[i].allowed,
		       (unsigned long long)e->node[i].allowed_pages);
	if (j)
		printf("]}\n");
}

static void print_cands(u64 seq, const struct modlink_cand *c, u32 n,
			void *arg)
{
	struct watch *w = arg;
	const char *fmt = w->c->json ?
		"{\"cand_epoch\":%llu,\"pid\":%u,\"addr\":%llu,\"node\":%u,\"rate_mhz\":%u,\"burst_ms\":%u,\"pages\":%u}\n" :
		"cand epoch %llu pid %u addr 0x%llx node %u rate_mhz %u burst_ms %u pages %u\n";
	u32 i;

	if (watch_done(w) && seq != w->last)
		return;
	for (i = 0; i < n; i++)
		printf(fmt, (unsigned long long)seq, c[i].pid,
		       (unsigned long long)c[i].addr, c[i].node, c[i].rate,
		       c[i].burst_ms, c[i].pages);
}

static void print_malformed(void *arg)
{
	(void)arg;
	fprintf(stderr, "indigoctl: a malformed telemetry message skipped\n");
}

int ctl_watch(const struct ctl *c, int argc, char **argv)
{
	struct watch w = { .c = c };
	const struct modlink_events ev = {
		.epoch = print_epoch, .cands = print_cands,
		.malformed = print_malformed, .arg = &w,
	};
	struct indigo_policy pol;
	struct modlink *l;
	u64 gen;
	int err;

	if (argc > 1) {
		fprintf(stderr, "indigoctl: usage: watch [EPOCHS]\n");
		return 2;
	}
	if (argc > 0 && num_u64(argv[0], UINT64_MAX, &w.limit)) {
		fprintf(stderr, "indigoctl: watch: EPOCHS is a count, not \"%s\"\n",
			argv[0]);
		return 2;
	}
	if (ctl_connect(&l))
		return 1;
	err = modlink_subscribe(l);
	while (!err && !watch_done(&w)) {
		err = modlink_poll(l, &ev, 1000);
		if (err == -ENOBUFS) {
			fprintf(stderr, "indigoctl: events lost (receive buffer overrun)\n");
			err = 0;
		}
		if (err > 0)
			err = 0;
		/* a quiet second: is the module still there? (an unload is silent) */
		else if (!err)
			err = modlink_get_policy(l, &pol, &gen);
		/* what a poll printed, shown now; output gone ends the watch */
		if (ctl_flush()) {
			modlink_close(l);
			return 1;
		}
	}
	if (err)
		ctl_fail("watch", err, l);
	modlink_close(l);
	return err ? 1 : 0;
}
