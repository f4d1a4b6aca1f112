// SPDX-License-Identifier: GPL-2.0
/*
 * indigoctl netscope: what Netscope's programs measured per cgroup and what
 * its controller decided, from the maps pinned under /sys/fs/bpf/indigo.
 *
 *   indigoctl [--json] netscope [--json]     one row per cgroup (text: after
 *       a line on the shared link, as the controller last measured it)
 *   indigoctl netscope set CGROUP KEY=VALUE...
 *       cc=NAME rate_mbit=N clamp=SEGMENTS sens=C (0 to 1000): a fixed
 *       policy that the controller leaves alone
 *   indigoctl netscope clear CGROUP          hands the cgroup back: a
 *       neutral policy, which its flows apply (lifting what was set)
 *
 * set and clear hold NS_POLICY_LOCK (ns_maps.h) around their read and
 * update, as the controller does: waiting for it at most
 * NS_POLICY_LOCK_WAIT_MS, then failing with nothing written.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_out.h"
#include "indigoctl_netscope.h"
#include "ns_link.h"
#include "ns_maps.h"
#include "num.h"
#include "netscope_sockops.skel.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: indigoctl netscope [--json]\n"
		"       indigoctl netscope set CGROUP KEY=VALUE...\n"
		"       indigoctl netscope clear CGROUP\n"
		"keys: cc=NAME rate_mbit=N (0: unpaced) clamp=SEGMENTS sens=C (0-1000)\n");
	return 2;
}

static int fail(const char *what, int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "indigoctl: netscope: %s: not found (is indigod's netscope running? maps live in %s)\n",
			what, NS_PIN_DIR);
	else if (err == -EPROTO)
		fprintf(stderr, "indigoctl: netscope: %s: layout not this build's, pinned by another version of Netscope (restart this version's agent to re-pin it, or use that version's indigoctl); nothing read or written\n",
			what);
	else if (err == -EWOULDBLOCK)
		fprintf(stderr, "indigoctl: netscope: %s: %s held by another writer for %d s; nothing written\n",
			what, NS_POLICY_LOCK, NS_POLICY_LOCK_WAIT_MS / 1000);
	else if (err == -EMEDIUMTYPE)
		fprintf(stderr, "indigoctl: netscope: %s: not a cgroup v2 directory\n",
			what);
	else
		fprintf(stderr, "indigoctl: netscope: %s: %s\n", what, strerror(-err));
	return 1;
}

struct row {
	uint64_t cgid;
	char path[512];
	struct ns_cg_stats st;
	struct ns_policy pol;
	struct ns_ctrl ctl;
	int have_pol, have_ctl;
	uint32_t base_us;	/* least RTT of the last one to two windows */
};

/* 0, -ENOENT when the cgroup's entry went meanwhile, or -errno */
static int load_row(const struct ns_maps *m, const char *root, uint64_t cgid,
		    struct row *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->cgid = cgid;
	ret = ns_stats_get(m, cgid, &r->st);
	if (ret)
		return ret;
	r->base_us = ns_cg_base_us(&r->st, ns_base_win_now());
	if (!*root || ns_cgroup_path(root, cgid, r->path, sizeof(r->path)))
		snprintf(r->path, sizeof(r->path), "(gone)");
	r->have_pol = !ns_policy_get(m, cgid, &r->pol);
	r->have_ctl = !ns_ctrl_get(m, cgid, &r->ctl);
	return 0;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json(const struct row *r, int first)
{
	printf("%s{\"cgroup\":", first ? "" : ",\n ");
	json_str(r->path);
	printf(",\"cgroup_id\":%llu,\"flows_live\":%lld,\"flows_bulk\":%lld,\"flows\":%llu,"
	       "\"srtt_us\":%u,\"min_rtt_us\":%u,\"base_rtt_us\":%u,"
	       "\"rtt_samples\":%llu,"
	       "\"delivered_bytes\":%llu,\"segs_out\":%llu,\"wire_bytes\":%llu,"
	       "\"turns\":%llu,"
	       "\"retrans\":%llu,\"ce_marks\":%llu,\"rtt_hist_log2_us\":[",
	       (unsigned long long)r->cgid, (long long)r->st.live_flows,
	       (long long)r->st.bulk_flows, (unsigned long long)r->st.flows, r->st.srtt_us, r->st.min_rtt_us,
	       r->base_us, (unsigned long long)r->st.rtt_samples,
	       (unsigned long long)r->st.delivered_bytes,
	       (unsigned long long)r->st.segs_out,
	       (unsigned long long)ns_wire_bytes(&r->st),
	       (unsigned long long)r->st.turns,
	       (unsigned long long)r->st.retrans,
	       (unsigned long long)r->st.ce_marks);
	for (int i = 0; i < NS_HIST_SLOTS; i++)
		printf("%s%u", i ? "," : "", r->st.rtt_hist[i]);
	printf("]");
	if (r->have_ctl)
		printf(",\"sensitivity\":{\"mean\":%.3f,\"lo\":%.3f,\"hi\":%.3f,"
		       "\"samples\":%u,\"trusted\":%s,\"sensitive\":%s,"
		       "\"progress\":\"%s\"},"
		       "\"alpha\":%.3f,\"rate_bps\":%llu",
		       r->ctl.sens_milli / 1e3, r->ctl.sens_lo_milli / 1e3,
		       r->ctl.sens_hi_milli / 1e3, r->ctl.samples,
		       r->ctl.flags & NS_CTRL_TRUSTED ? "true" : "false",
		       r->ctl.flags & NS_CTRL_SENSITIVE ? "true" : "false",
		       r->ctl.flags & NS_CTRL_BY_TURNS ? "turns" : "bytes",
		       r->ctl.alpha_milli / 1e3,
		       (unsigned long long)r->ctl.rate_Bps * 8);
	if (r->have_pol) {
		printf(",\"policy\":{\"cc\":");
		json_str(r->pol.cc);
		printf(",\"rate_bps\":%llu,\"cwnd_clamp\":%u,\"sensitivity\":",
		       (unsigned long long)r->pol.rate_Bps * 8, r->pol.cwnd_clamp);
		/* unset: the netscope CC takes 1, but nobody said so */
		if (r->pol.flags & NS_POLICY_SENS)
			printf("%.3f", r->pol.sens_milli / 1e3);
		else
			printf("null");
		printf(",\"fixed\":%s,\"gen\":%u,\"owner\":%u}",
		       r->pol.flags & NS_POLICY_FIXED ? "true" : "false", r->pol.gen,
		       r->pol.owner);
	}
	printf("}");
}

static void print_text(const struct row *r)
{
	char sens[48] = "-", rate[24] = "-", flows[32];

	if (r->have_ctl)
		snprintf(sens, sizeof(sens), "%.2f[%.2f,%.2f]%s",
			 r->ctl.sens_milli / 1e3, r->ctl.sens_lo_milli / 1e3,
			 r->ctl.sens_hi_milli / 1e3,
			 !(r->ctl.flags & NS_CTRL_TRUSTED) ? "?" :
			 r->ctl.flags & NS_CTRL_SENSITIVE ? "*" : "");
	if (r->have_pol && r->pol.rate_Bps)
		snprintf(rate, sizeof(rate), "%.1f", r->pol.rate_Bps * 8 / 1e6);
	snprintf(flows, sizeof(flows), "%lld/%llu", (long long)r->st.live_flows,
		 (unsigned long long)r->st.flows);
	printf("%-36s %12s %9u %9u %10.1f %7llu %6llu %-24s %9s %s\n",
	       r->path, flows, r->st.srtt_us, r->st.min_rtt_us,
	       r->st.delivered_bytes / 1e6, (unsigned long long)r->st.retrans,
	       (unsigned long long)r->st.ce_marks, sens, rate,
	       r->have_pol && r->pol.cc[0] ? r->pol.cc : "-");
}

/* the controller's congestion signal; nothing before its first interval */
static void print_link(const struct ns_maps *m)
{
	struct ns_link_view v;

	if (ns_link_view_get(m, &v) || !v.intervals)
		return;
	printf("link: queue %u us (mean RTT %u us of %llu samples, least %u us), %.1f %% of capacity in use, over %u ms\n",
	       v.queue_us, v.delay_us,
	       (unsigned long long)v.rtt_samples, v.base_us, v.util_milli / 10.0,
	       v.interval_ms);
}

static int cmd_show(const struct ns_maps *m, int json)
{
	static uint64_t keys[NS_CGROUPS_MAX];
	char root[PATH_MAX] = "";
	struct row r;
	int ret, err, i, n = 0;

	ns_cgroup_root(root, sizeof(root));	/* none: ids without paths */
	if (json) {
		printf("[");
	} else {
		print_link(m);
		printf("%-36s %12s %9s %9s %10s %7s %6s %-24s %9s %s\n", "cgroup",
		       "flows", "srtt_us", "min_us", "sent_MB", "retrans", "ce",
		       "sensitivity[95%]", "rate_Mbps", "cc");
	}
	ret = ns_stats_keys(m, keys);
	for (i = 0; i < ret; i++) {
		err = load_row(m, root, keys[i], &r);
		if (err == -ENOENT)
			continue;	/* gone since the walk */
		if (err) {
			ret = err;
			break;
		}
		if (json)
			print_json(&r, !n);
		else
			print_text(&r);
		n++;
	}
	if (json)
		printf("]\n");
	if (ret < 0)
		return fail("ns_cg_stats", ret);
	/* a full disk or a closed pipe: exit 1 and why, as every command */
	return ctl_flush();
}

static int parse_num(const char *s, double scale, double max, double *v)
{
	double d;

	if (num_double(s, &d) || d < 0 || d * scale > max)
		return -EINVAL;
	*v = d * scale;
	return 0;
}

static int parse_u32(const char *s, double scale, uint32_t max, uint32_t *v)
{
	double d;
	int ret = parse_num(s, scale, max, &d);

	if (!ret)
		*v = d;
	return ret;
}

/* as indigo-netscope --capacity-mbit: 400 Gbit/s */
#define RATE_MAX_BPS	(400000 * 1e6 / 8)

/* The congestion controls a flow can be given: bpf_setsockopt() loads no
 * module, so the registered ones only. */
static bool cc_available(const char *name)
{
	char buf[512], *tok, *save = NULL;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "re");
	bool found = false;

	if (!f)
		return true;	/* cannot tell */
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok && !found;
		     tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, name);
	fclose(f);
	return found;
}

/* KEY=VALUE settings, checked before any map is touched */
struct setting {
	struct ns_policy p;
	bool cc, rate, clamp, sens;
};

static int parse_setting(struct setting *s, const char *arg)
{
	const char *v = strchr(arg, '=');
	double d;

	if (!v)
		return -EINVAL;
	v++;
	if (!strncmp(arg, "cc=", 3)) {
		if (strlen(v) >= NS_CC_NAME_MAX)
			return -EINVAL;
		strcpy(s->p.cc, v);
		s->cc = true;
		if (*v && !cc_available(v))
			fprintf(stderr, "indigoctl: netscope set: warning: congestion control '%s' is not registered (yet): until it is, flows keep theirs; running ones take it within 0.5 s of its registration, as they send\n",
				v);
		return 0;
	}
	if (!strncmp(arg, "rate_mbit=", 10)) {
		/* one that rounds to 0 would read "unpaced" */
		if (parse_num(v, 1e6 / 8, RATE_MAX_BPS, &d) || (d > 0 && d < 1))
			return -EINVAL;
		s->p.rate_Bps = d;
		s->rate = true;
		return 0;
	}
	if (!strncmp(arg, "clamp=", 6)) {
		/* the kernel takes an int; 0x7fffffff is "no clamp" */
		if (parse_num(v, 1, 0x7ffffffe, &d) || d != (uint32_t)d)
			return -EINVAL;
		s->p.cwnd_clamp = d;
		s->clamp = true;
		return 0;
	}
	if (!strncmp(arg, "sens=", 5)) {
		/* as indigo-netscope --sens */
		if (parse_u32(v, 1000, NS_SENS_MAX_MILLI, &s->p.sens_milli))
			return -EINVAL;
		s->sens = true;
		return 0;
	}
	return -EINVAL;
}

static int fixed_policy(struct ns_policy *p, const struct ns_policy *old,
			void *arg)
{
	const struct setting *s = arg;

	(void)old;		/* keys not given keep their value, in @p */
	p->flags |= NS_POLICY_FIXED;
	p->owner = 0;		/* no controller's now */
	if (s->cc)
		memcpy(p->cc, s->p.cc, sizeof(p->cc));
	if (s->rate)
		p->rate_Bps = s->p.rate_Bps;
	if (s->clamp)
		p->cwnd_clamp = s->p.cwnd_clamp;
	if (s->sens) {
		p->sens_milli = s->p.sens_milli;
		p->flags |= NS_POLICY_SENS;
	}
	return 1;
}

static int cmd_set(const struct ns_maps *m, const char *cgroup,
		   const struct setting *s)
{
	uint64_t cgid;
	int ret;

	ret = ns_cgroup_id(cgroup, &cgid);
	if (ret)
		return fail(cgroup, ret);
	ret = ns_policy_update(m, cgid, fixed_policy, (void *)s,
			       NS_POLICY_LOCK_WAIT_MS);
	return ret < 0 ? fail("ns_policy", ret) : 0;
}

/* A neutral policy, not a deleted one: its flows lift what the fixed one
 * set, and the next policy's generation is one they have not applied. */
static int cmd_clear(const struct ns_maps *m, const char *cgroup)
{
	uint64_t cgid;
	int ret;

	ret = ns_cgroup_id(cgroup, &cgid);
	if (!ret)
		ret = ns_policy_neutral(m, cgid);
	return ret ? fail(cgroup, ret) : 0;
}

int indigoctl_netscope(bool json, int argc, char **argv)
{
	struct setting set = { 0 };
	struct ns_sockops *ref;
	char path[128];
	const char *which;
	struct ns_maps m;
	int ret, rc, i;

	if (argc > 0 && !strcmp(argv[0], "--json")) {
		json = true;
		argc--;
		argv++;
	}
	if (argc > 0 &&
	    !(!strcmp(argv[0], "set") && argc >= 3) &&
	    !(!strcmp(argv[0], "clear") && argc == 2))
		return usage();
	for (i = 2; argc > 0 && !strcmp(argv[0], "set") && i < argc; i++) {
		if (parse_setting(&set, argv[i])) {
			fprintf(stderr, "indigoctl: netscope set: bad or unknown setting '%s'\n",
				argv[i]);
			return usage();
		}
	}
	/* the maps' layouts as this build has them: its sock_ops program's
	 * object, opened only */
	ref = ns_sockops__open();
	if (!ref)
		return fail("this build's sock_ops object", -errno);
	ret = ns_maps_open(&m, ref->obj, &which);
	ns_sockops__destroy(ref);
	if (ret) {
		snprintf(path, sizeof(path), "%s/%s", NS_PIN_DIR, which);
		return fail(path, ret);
	}
	if (argc == 0)
		rc = cmd_show(&m, json);
	else if (!strcmp(argv[0], "set"))
		rc = cmd_set(&m, argv[1], &set);
	else
		rc = cmd_clear(&m, argv[1]);
	ns_maps_close(&m);
	return rc;
}
