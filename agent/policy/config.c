// SPDX-License-Identifier: GPL-2.0
/*
 * indigod's configuration file and --set overrides.
 *
 * inih does the INI syntax; a table of keys does the rest. inih's handler
 * does not get line numbers (Debian builds it without INI_HANDLER_LINENO),
 * so the text is fed through our own line reader, which counts lines and
 * also sees what the handler never does: section headers (an unknown
 * section with no keys is still an error), indentation (inih would join an
 * indented line to the previous value) and over-long lines (inih would cut
 * them silently).
 *
 * Everything is parsed into a private copy; the caller's configuration is
 * replaced only when the whole input is valid.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "config.h"
#include "epoch.h"	/* reward.residence's and policy.fill_share's bounds */
#include "num.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SHOW_MAX	48	/* characters of a bad value quoted back */

enum ktype { K_U32, K_U64, K_DBL, K_ENUM, K_PATH, K_PEERS, K_APPS };

#define KF_EMPTY_OK	1	/* a path or list may be "" (feature off) */
#define KF_LO_OPEN	2	/* a double must be above dmin, not equal */
#define KF_AUTO		4	/* a double may be "auto", stored as 0 */

struct key {
	const char *section;
	const char *name;
	enum ktype type;
	unsigned int flags;
	size_t off;
	uint64_t umin, umax;		/* K_U32, K_U64 */
	double dmin, dmax;		/* K_DBL */
	const char *const *choices;	/* K_ENUM, NULL-terminated */
	const char *def;		/* default, in the file's syntax */
};

static const char *const sections[] = { "agent", "link", "bandit", "policy",
					"reward", "netscope", "gpu" };

static const char *const learners[] = { "linucb", "thompson", "heuristic",
					NULL };
static const char *const executors[] = { "kernel", "agent", NULL };
static const char *const sources[] = { "fixed", "counter", "netscope", "gpu",
				       NULL };
static const char *const model_keys[] = { "fixed", "cgroup", "comm", NULL };
static const char *const rewards[] = { "costmodel", "progress", NULL };
static const char *const offon[] = { "off", "on", NULL };
static const char *const ns_ccs[] = { "netscope", "cubic", "bbr", "reno",
				      "keep", NULL };

#define OFF(f)	offsetof(struct indigod_config, f)
#define UKEY(s, n, t, lo, hi, d) \
	{ .section = #s, .name = #n, .type = t, .off = OFF(s.n), \
	  .umin = lo, .umax = hi, .def = d }
#define DKEY(s, n, fl, lo, hi, d) \
	{ .section = #s, .name = #n, .type = K_DBL, .flags = fl, \
	  .off = OFF(s.n), .dmin = lo, .dmax = hi, .def = d }
#define EKEY(s, n, c, d) \
	{ .section = #s, .name = #n, .type = K_ENUM, .off = OFF(s.n), \
	  .choices = c, .def = d }
#define PKEY(s, n, fl, d) \
	{ .section = #s, .name = #n, .type = K_PATH, .flags = fl, \
	  .off = OFF(s.n), .def = d }

/* The defaults here are the ones agent/indigod.conf.example documents. */
static const struct key keys[] = {
	UKEY(agent, epoch_ms, K_U32, 10, 60000, "1000"),
	EKEY(agent, learner, learners, "heuristic"),
	EKEY(agent, executor, executors, "kernel"),
	PKEY(agent, state_dir, 0, "/var/lib/indigo"),
	PKEY(agent, log_path, 0, "/var/log/indigo/decisions.jsonl"),
	UKEY(agent, log_max_bytes, K_U64, 4096, 1ULL << 40, "67108864"),
	PKEY(agent, metrics_path, KF_EMPTY_OK, "/run/indigo/metrics.prom"),
	PKEY(agent, status_path, KF_EMPTY_OK, "/run/indigo/status.json"),
	EKEY(agent, model_key, model_keys, "fixed"),
	UKEY(agent, netlink_rcvbuf, K_U32, 4096, 1U << 30, "4194304"),
	EKEY(link, source, sources, "fixed"),
	/* 1 Mb/s at least: below, a page's transfer cost overflows */
	DKEY(link, bandwidth_gbps, 0, 0.001, 10000, "100"),
	DKEY(link, far_latency_ns, KF_LO_OPEN, 0, 1e7, "900"),
	DKEY(link, local_latency_ns, KF_LO_OPEN, 0, 1e7, "100"),
	PKEY(link, counter_path, KF_EMPTY_OK, ""),
	DKEY(bandit, alpha, 0, 0, 100, "1"),
	/*
	 * A's smallest eigenvalue is lambda along features that move together
	 * (bias, bandwidth and delay of a fixed link), and rounding takes it
	 * under 0 after some lambda * 1e14 updates of an arm (1e-9: a day of
	 * 1 s epochs), from when LinUCB's updates fail: 1e-3 lasts for ages
	 */
	DKEY(bandit, lambda, 0, 1e-3, 1e6, "1"),
	DKEY(bandit, v, 0, 0, 100, "1"),
	UKEY(bandit, seed, K_U64, 0, UINT64_MAX, "0"),
	UKEY(bandit, rebuild_every, K_U32, 1, 1000000, "100"),
	DKEY(bandit, forget, KF_LO_OPEN | KF_AUTO, 0, 1, "auto"),
	UKEY(bandit, warmup, K_U32, 0, 1000000, "20"),
	DKEY(policy, rate_cap_share, KF_LO_OPEN, 0, 1, "0.3"),
	UKEY(policy, free_min_kib, K_U64, 0, 1ULL << 32, "0"),
	DKEY(policy, fill_share, KF_LO_OPEN, 0, ACT_FILL_SHARE_MAX, "0.0625"),
	EKEY(reward, source, rewards, "costmodel"),
	PKEY(reward, progress_path, KF_EMPTY_OK, ""),
	DKEY(reward, progress_scale, 0, 0, 1e15, "0"),
	DKEY(reward, residence, KF_AUTO, EPOCH_RES_MIN, EPOCH_RES_MAX, "auto"),
	EKEY(netscope, enable, offon, "off"),
	PKEY(netscope, cgroup, KF_EMPTY_OK, ""),
	/* checked here, not only when Netscope starts: a reload with a bad
	 * list would stop the running Netscope and start none */
	{ .section = "netscope", .name = "apps", .type = K_APPS,
	  .flags = KF_EMPTY_OK, .off = OFF(netscope.apps), .def = "" },
	/* at least 1, as indigo-netscope's --capacity-mbit: a capacity near
	 * 0 made the link's page-transfer cost infinite */
	DKEY(netscope, capacity_mbit, 0, 1, 4e5, "1000"),
	DKEY(netscope, floor_mbit, 0, 0, 4e5, "100"),
	UKEY(netscope, interval_ms, K_U32, 10, 60000, "200"),
	EKEY(netscope, cc, ns_ccs, "netscope"),
	EKEY(netscope, loopback, offon, "off"),
	{ .section = "netscope", .name = "host_peers", .type = K_PEERS,
	  .flags = KF_EMPTY_OK, .off = OFF(netscope.host_peers), .def = "" },
};

#define NKEYS ARRAY_SIZE(keys)

/* One parse: of a file or of a list of overrides. */
struct parse {
	struct indigod_config cfg;	/* what is being built */
	const char *name;		/* file name, or "--set" */
	bool cli;			/* overrides: no line numbers */
	const char *pos;		/* reader: rest of the text */
	int lineno;			/* reader: line just handed to inih */
	bool indented;			/* that line starts with a blank */
	bool have_prev;			/* a key seen since the last header */
	int set_at[NKEYS];		/* line (or override #) of each key */
	char gpu_set[GPU_KEYS][32];	/* [gpu] keys seen, for duplicates */
	int gpu_at[GPU_KEYS];
	unsigned int ngpu;
	int err_line;			/* first error's line; 0: none */
	char *err;
	size_t errlen;
};

static int fail(struct parse *ps, int line, const char *what,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * A key of the [gpu] section: agent/gpu/ owns and checks those
 * (gpu_config_set); here only duplicates are caught. @label names the key
 * in messages.
 */
static int set_gpu(struct parse *ps, const char *key, const char *label,
		   const char *value, int line)
{
	char msg[256];
	const char *why;
	unsigned int i;

	for (i = 0; i < ps->ngpu; i++) {
		if (strcmp(ps->gpu_set[i], key))
			continue;
		if (ps->cli)
			return fail(ps, line, label, "given twice");
		return fail(ps, line, label, "duplicate key (first set on line %d)",
			    ps->gpu_at[i]);
	}
	if (gpu_config_set(&ps->cfg.gpu, key, value, msg, sizeof(msg))) {
		/* "key: what is wrong": the key is in the label already */
		why = strstr(msg, ": ");
		if (!strncmp(msg, key, strlen(key)) && why)
			return fail(ps, line, label, "%s", why + 2);
		return fail(ps, line, label, "%s", msg);
	}
	if (ps->ngpu < GPU_KEYS && strlen(key) < sizeof(ps->gpu_set[0])) {
		strcpy(ps->gpu_set[ps->ngpu], key);
		ps->gpu_at[ps->ngpu++] = line;
	}
	return 0;
}

/* Copies @v into @dst quoted-safe: printable, one line, bounded. */
static void show(char *dst, size_t n, const char *v)
{
	size_t i;

	for (i = 0; v[i] && i + 1 < n && i < SHOW_MAX; i++)
		dst[i] = isprint((unsigned char)v[i]) ? v[i] : '?';
	dst[i] = '\0';
	if (v[i] && n > 4 && i >= 3)
		memcpy(dst + i - 3, "...", 3);
}

/*
 * Records the error "NAME:LINE: WHAT: msg" (or "--set WHAT: msg") if it is
 * the first one. Always "fails": returns -EINVAL for the caller to pass up.
 */
static int __attribute__((format(printf, 4, 5)))
fail(struct parse *ps, int line, const char *what, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err_line)
		return -EINVAL;
	ps->err_line = line > 0 ? line : 1;
	if (!ps->err || !ps->errlen)
		return -EINVAL;
	if (ps->cli)
		n = snprintf(ps->err, ps->errlen, "%s %s: ", ps->name, what);
	else
		n = snprintf(ps->err, ps->errlen, "%s:%d: %s: ", ps->name, line,
			     what);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool known_section(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sections); i++)
		if (!strcmp(s, sections[i]))
			return true;
	return false;
}

static int find_key(const char *section, const char *name)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].section, section) &&
		    !strcmp(keys[i].name, name))
			return (int)i;
	return -1;
}

static int set_uint(struct parse *ps, const struct key *k, const char *what,
		    const char *v, int line)
{
	char s[SHOW_MAX + 1];
	char *base = (char *)&ps->cfg + k->off;
	uint64_t u = 0;
	int err;

	show(s, sizeof(s), v);
	err = num_u64(v, k->umax, &u);
	if (err == -EINVAL)
		return fail(ps, line, what, "\"%s\" is not a whole number", s);
	if (err || u < k->umin)
		return fail(ps, line, what, "%s is out of range %llu-%llu", s,
			    (unsigned long long)k->umin,
			    (unsigned long long)k->umax);
	if (k->type == K_U32) {
		uint32_t u32 = (uint32_t)u;

		memcpy(base, &u32, sizeof(u32));
	} else {
		memcpy(base, &u, sizeof(u));
	}
	return 0;
}

static int set_double(struct parse *ps, const struct key *k, const char *what,
		      const char *v, int line)
{
	char s[SHOW_MAX + 1];
	double d = 0;
	bool lo_ok;
	int err;

	show(s, sizeof(s), v);
	if ((k->flags & KF_AUTO) && !strcmp(v, "auto")) {
		d = 0;
		memcpy((char *)&ps->cfg + k->off, &d, sizeof(d));
		return 0;
	}
	err = num_double(v, &d);
	if (err == -EINVAL)
		return fail(ps, line, what, "\"%s\" is not a number%s", s,
			    k->flags & KF_AUTO ? " or auto" : "");
	lo_ok = k->flags & KF_LO_OPEN ? d > k->dmin : d >= k->dmin;
	if (err || !lo_ok || d > k->dmax)
		return fail(ps, line, what, "%s is out of range %c%g, %g]%s", s,
			    k->flags & KF_LO_OPEN ? '(' : '[', k->dmin,
			    k->dmax, k->flags & KF_AUTO ? " (or auto)" : "");
	memcpy((char *)&ps->cfg + k->off, &d, sizeof(d));
	return 0;
}

static int set_enum(struct parse *ps, const struct key *k, const char *what,
		    const char *v, int line)
{
	char s[SHOW_MAX + 1], list[128] = "";
	size_t used = 0;
	int i;

	for (i = 0; k->choices[i]; i++) {
		if (!strcmp(v, k->choices[i])) {
			memcpy((char *)&ps->cfg + k->off, &i, sizeof(i));
			return 0;
		}
	}
	for (i = 0; k->choices[i] && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "", k->choices[i]);
	show(s, sizeof(s), v);
	return fail(ps, line, what, "\"%s\" is not one of %s", s, list);
}

static int set_path(struct parse *ps, const struct key *k, const char *what,
		    const char *v, int line)
{
	char s[SHOW_MAX + 1];
	size_t len = strlen(v), i;

	show(s, sizeof(s), v);
	if (!len && (k->flags & KF_EMPTY_OK)) {
		memset((char *)&ps->cfg + k->off, 0, CONFIG_PATH_MAX);
		return 0;
	}
	/* the daemon runs with cwd "/": a relative path is a surprise */
	if (v[0] != '/')
		return fail(ps, line, what, "\"%s\" is not an absolute path", s);
	if (len >= CONFIG_PATH_MAX)
		return fail(ps, line, what, "path is longer than %d bytes",
			    CONFIG_PATH_MAX - 1);
	for (i = 0; i < len; i++)
		if (iscntrl((unsigned char)v[i]))
			return fail(ps, line, what,
				    "path has a control character");
	memcpy((char *)&ps->cfg + k->off, v, len + 1);
	return 0;
}

/* Address prefixes, all or none: agent/netscope/ns_peers.h says how. */
static int set_peers(struct parse *ps, const struct key *k, const char *what,
		     const char *v, int line)
{
	struct ns_peers peers = { .n = 0 };
	char why[128];

	if (ns_peers_add(&peers, v, why, sizeof(why)))
		return fail(ps, line, what, "%s", why);
	memcpy((char *)&ps->cfg + k->off, &peers, sizeof(peers));
	return 0;
}

int config_ns_apps_check(const char *list, char *why, size_t len)
{
	const char *p = list, *dirs[CONFIG_NS_APPS_MAX];
	size_t n = 0, tl, dl[CONFIG_NS_APPS_MAX], i;
	char s[SHOW_MAX + 1], tok[CONFIG_PATH_MAX];
	const char *eq;

	for (;;) {
		p += strspn(p, " \t");
		if (!*p)
			return 0;
		tl = strcspn(p, " \t");
		snprintf(tok, sizeof(tok), "%.*s", (int)tl, p);
		show(s, sizeof(s), tok);
		eq = memchr(p, '=', tl);
		if (p[0] != '/' || (eq && eq == p + tl - 1)) {
			snprintf(why, len, "\"%s\" is not DIR[=PROGRESS] with an absolute DIR",
				 s);
			return -EINVAL;
		}
		if (n == CONFIG_NS_APPS_MAX) {
			snprintf(why, len, "more than %d applications",
				 CONFIG_NS_APPS_MAX);
			return -E2BIG;
		}
		dirs[n] = p;
		dl[n] = eq ? (size_t)(eq - p) : tl;
		/* two controllers of one cgroup: the last one's policy holds */
		for (i = 0; i < n; i++) {
			if (dl[i] == dl[n] && !memcmp(dirs[i], p, dl[n])) {
				snprintf(tok, sizeof(tok), "%.*s", (int)dl[n], p);
				show(s, sizeof(s), tok);
				snprintf(why, len, "\"%s\" is named twice", s);
				return -EINVAL;
			}
		}
		n++;
		p += tl;
	}
}

/* [netscope] apps: a path value, and a list Netscope can start with. */
static int set_apps(struct parse *ps, const struct key *k, const char *what,
		    const char *v, int line)
{
	char why[128];
	int ret = set_path(ps, k, what, v, line);

	if (ret)
		return ret;
	if (config_ns_apps_check(v, why, sizeof(why)))
		return fail(ps, line, what, "%s", why);
	return 0;
}

static int set_value(struct parse *ps, const struct key *k, const char *what,
		     const char *v, int line)
{
	if (!*v && !(k->flags & KF_EMPTY_OK))
		return fail(ps, line, what, "empty value (default: %s)",
			    *k->def ? k->def : "\"\"");
	switch (k->type) {
	case K_U32:
	case K_U64:
		return set_uint(ps, k, what, v, line);
	case K_DBL:
		return set_double(ps, k, what, v, line);
	case K_ENUM:
		return set_enum(ps, k, what, v, line);
	case K_PATH:
		return set_path(ps, k, what, v, line);
	case K_PEERS:
		return set_peers(ps, k, what, v, line);
	case K_APPS:
		return set_apps(ps, k, what, v, line);
	}
	return -EINVAL;
}

/* Records where key @i was set; a second time is an error. */
static int mark_set(struct parse *ps, int i, const char *what, int line)
{
	if (ps->set_at[i]) {
		if (ps->cli)
			return fail(ps, line, what, "given twice");
		return fail(ps, line, what, "duplicate key (first set on line %d)",
			    ps->set_at[i]);
	}
	ps->set_at[i] = line;
	return 0;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse *ps = user;
	int line = ps->lineno, i;
	char what[SHOW_MAX + 1];

	/*
	 * Always 1: errors are recorded here, so that inih's return value
	 * means syntax errors only.
	 */
	show(what, sizeof(what), name);
	if (ps->indented && ps->have_prev) {
		fail(ps, line, what,
		     "indented line continues the previous value (multi-line values are not supported)");
		return 1;
	}
	ps->have_prev = true;
	/* "= 5": inih hands over an empty name, which a message cannot show */
	if (!*name) {
		fail(ps, line, "line", "no key before the '='");
		return 1;
	}
	if (!*section) {
		fail(ps, line, what, "key outside a section");
		return 1;
	}
	/* check_header() has normally reported this at the header already */
	if (!known_section(section)) {
		fail(ps, line, what, "in unknown section [%s]", section);
		return 1;
	}
	if (!strcmp(section, "gpu")) {
		set_gpu(ps, name, what, value, line);
		return 1;
	}
	i = find_key(section, name);
	if (i < 0) {
		fail(ps, line, what, "unknown key in [%s]", section);
		return 1;
	}
	if (!mark_set(ps, i, name, line))
		set_value(ps, &keys[i], name, value, line);
	return 1;
}

/* Section headers, as inih reads them: '[' up to ']'. */
static void check_header(struct parse *ps, const char *line)
{
	const char *p = line, *end;
	char name[SHOW_MAX + 2];
	size_t len;

	while (isspace((unsigned char)*p))
		p++;
	if (*p != '[')
		return;
	ps->have_prev = false;
	end = strchr(p, ']');
	if (!end)
		return;		/* inih reports the syntax error */
	len = end - p - 1;
	if (len > SHOW_MAX)
		len = SHOW_MAX;
	name[0] = '[';
	memcpy(name + 1, p + 1, len);
	name[len + 1] = '\0';
	if (!known_section(name + 1)) {
		char s[SHOW_MAX + 3], known[128] = "";
		size_t i;

		show(s, sizeof(s) - 1, name);
		strcat(s, "]");
		for (i = 0; i < ARRAY_SIZE(sections); i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known),
				 "%s%s", i ? ", " : "", sections[i]);
		fail(ps, ps->lineno, s, "unknown section (known: %s)", known);
		return;
	}
	/* inih drops whatever follows the ']': "[agent] epoch_ms = 5" */
	for (p = end + 1; isspace((unsigned char)*p); p++)
		;
	if (*p && *p != ';') {
		char s[SHOW_MAX + 3], rest[SHOW_MAX + 1];

		show(s, sizeof(s) - 1, name);
		strcat(s, "]");
		show(rest, sizeof(rest), p);
		fail(ps, ps->lineno, s,
		     "\"%s\" after the section header (one key = value per line)",
		     rest);
	}
}

/* inih's fgets(): one line of the text per call, counting lines. */
static char *reader(char *buf, int num, void *stream)
{
	struct parse *ps = stream;
	const char *p = ps->pos, *nl;
	size_t len, take;

	if (!*p || num < 2)
		return NULL;
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) : strlen(p);
	ps->pos = nl ? nl + 1 : p + len;
	ps->lineno++;
	take = len;
	if (take > (size_t)num - 1) {
		fail(ps, ps->lineno, "line", "longer than %d characters",
		     num - 1);
		take = num - 1;
	}
	memcpy(buf, p, take);
	buf[take] = '\0';
	ps->indented = take && isspace((unsigned char)buf[0]);
	/* inih's rule: an indented line after a key continues its value */
	if (!(ps->indented && ps->have_prev))
		check_header(ps, buf);
	return buf;
}

/* @base: the configuration to start from; NULL: all zero */
static void parse_init(struct parse *ps, const struct indigod_config *base,
		       const char *name, bool cli, char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	if (base)
		ps->cfg = *base;
	ps->name = name;
	ps->cli = cli;
	ps->err = err;
	ps->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

static const struct key *key_by_field(size_t off, int *idx)
{
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		if (keys[i].off == off) {
			*idx = (int)i;
			return &keys[i];
		}
	}
	return NULL;
}

/* The error's subject: "name" in a file, "section.name" for --set. */
static void key_label(const struct parse *ps, const struct key *k, char *buf,
		      size_t n)
{
	if (ps->cli)
		snprintf(buf, n, "%s.%s", k->section, k->name);
	else
		snprintf(buf, n, "%s", k->name);
}

/*
 * A source that needs a path: "@choice = @name needs a @path_key" when the
 * enum at @src_off is @val and the path at @path_off is empty. The error
 * goes to whichever of the two keys was set last.
 */
static int check_needs_path(struct parse *ps, size_t src_off, int val,
			    size_t path_off)
{
	const struct key *ks, *kp;
	int isrc = 0, ipath = 0;
	bool src_last;
	char label[64];

	ks = key_by_field(src_off, &isrc);
	kp = key_by_field(path_off, &ipath);
	if (!ks || !kp)
		return -EINVAL;
	if (*(const int *)((const char *)&ps->cfg + src_off) != val ||
	    *((const char *)&ps->cfg + path_off))
		return 0;
	src_last = ps->set_at[isrc] >= ps->set_at[ipath];
	key_label(ps, src_last ? ks : kp, label, sizeof(label));
	return fail(ps, src_last ? ps->set_at[isrc] : ps->set_at[ipath], label,
		    "%s = %s needs a %s", ks->name, ks->choices[val], kp->name);
}

/*
 * netscope.floor_mbit within capacity_mbit: a sensitive application's rate
 * stays within [floor, capacity], and with the floor above it would never
 * be cut at all (its rate held at the capacity), whatever its flows queue.
 */
static int check_floor(struct parse *ps)
{
	const struct indigod_config *c = &ps->cfg;
	const struct key *kc, *kf;
	int icap = 0, iflo = 0;
	char label[64];

	kc = key_by_field(OFF(netscope.capacity_mbit), &icap);
	kf = key_by_field(OFF(netscope.floor_mbit), &iflo);
	if (!kc || !kf)
		return -EINVAL;
	if (c->netscope.floor_mbit <= c->netscope.capacity_mbit)
		return 0;
	if (ps->set_at[iflo] >= ps->set_at[icap]) {
		key_label(ps, kf, label, sizeof(label));
		return fail(ps, ps->set_at[iflo], label,
			    "%g is above capacity_mbit (%g)",
			    c->netscope.floor_mbit, c->netscope.capacity_mbit);
	}
	key_label(ps, kc, label, sizeof(label));
	return fail(ps, ps->set_at[icap], label,
		    "%g is below floor_mbit (%g)", c->netscope.capacity_mbit,
		    c->netscope.floor_mbit);
}

/* [gpu]'s between its keys, on whichever of them was set last. */
static int check_gpu(struct parse *ps)
{
	const char *key = "probe_batch_kib";
	char msg[160], label[64];
	unsigned int i;
	int at = 0;

	if (!gpu_config_check(&ps->cfg.gpu, msg, sizeof(msg)))
		return 0;
	for (i = 0; i < ps->ngpu; i++)
		if ((!strcmp(ps->gpu_set[i], "probe_batch_kib") ||
		     !strcmp(ps->gpu_set[i], "probe_page_bytes")) &&
		    ps->gpu_at[i] >= at) {
			at = ps->gpu_at[i];
			key = ps->gpu_set[i];
		}
	snprintf(label, sizeof(label), "%s%s", ps->cli ? "gpu." : "", key);
	return fail(ps, at, label, "%s", msg);
}

/*
 * Checks between keys, once everything is read. The error goes to whichever
 * of the keys involved was set last, since that is the one to look at.
 */
static int cross_check(struct parse *ps)
{
	const struct indigod_config *c = &ps->cfg;
	const struct key *kf, *kl;
	int ifar = 0, iloc = 0, ret;
	char label[64];

	kf = key_by_field(OFF(link.far_latency_ns), &ifar);
	kl = key_by_field(OFF(link.local_latency_ns), &iloc);
	if (!kf || !kl)
		return -EINVAL;
	if (!(c->link.far_latency_ns > c->link.local_latency_ns)) {
		if (ps->set_at[ifar] >= ps->set_at[iloc]) {
			key_label(ps, kf, label, sizeof(label));
			return fail(ps, ps->set_at[ifar], label,
				    "%g is not above local_latency_ns (%g)",
				    c->link.far_latency_ns,
				    c->link.local_latency_ns);
		}
		key_label(ps, kl, label, sizeof(label));
		return fail(ps, ps->set_at[iloc], label,
			    "%g is not below far_latency_ns (%g)",
			    c->link.local_latency_ns, c->link.far_latency_ns);
	}
	ret = check_floor(ps);
	if (!ret)
		ret = check_needs_path(ps, OFF(link.source), CONFIG_LINK_COUNTER,
				       OFF(link.counter_path));
	if (!ret)
		ret = check_needs_path(ps, OFF(reward.source),
				       CONFIG_REWARD_PROGRESS,
				       OFF(reward.progress_path));
	if (!ret)
		ret = check_gpu(ps);
	return ret;
}

size_t config_key_count(void)
{
	return NKEYS + GPU_KEYS;
}

void config_defaults(struct indigod_config *cfg)
{
	struct parse ps;
	size_t i;

	/* the table's defaults are valid: tests/agent/test_config.c checks */
	parse_init(&ps, NULL, "defaults", true, NULL, 0);
	for (i = 0; i < NKEYS; i++)
		set_value(&ps, &keys[i], keys[i].name, keys[i].def, 0);
	gpu_config_defaults(&ps.cfg.gpu);
	*cfg = ps.cfg;
}

int config_parse_string(struct indigod_config *cfg, const char *text,
			const char *name, char *err, size_t errlen)
{
	struct indigod_config defaults;
	struct parse ps;
	int line;

	config_defaults(&defaults);
	parse_init(&ps, &defaults, name, false, err, errlen);
	ps.pos = text;
	line = ini_parse_stream(reader, &ps, handler, &ps);
	if (line < 0)
		return line == -2 ? -ENOMEM : -EIO;
	/* a syntax error before our first error is the first error */
	if (line > 0 && (!ps.err_line || line < ps.err_line)) {
		ps.err_line = 0;
		return fail(&ps, line, "syntax error",
			    "expected [section], key = value or a ; comment");
	}
	if (ps.err_line || cross_check(&ps))
		return -EINVAL;
	*cfg = ps.cfg;
	return 0;
}

/* Reads at most CONFIG_FILE_MAX bytes of @f into a new NUL-ended buffer. */
static int slurp(FILE *f, char **out, size_t *len)
{
	char *buf = malloc(CONFIG_FILE_MAX + 2);
	size_t n;

	if (!buf)
		return -ENOMEM;
	errno = 0;
	n = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
	if (ferror(f)) {
		int ret = errno ? -errno : -EIO;	/* EISDIR, ... */

		free(buf);
		return ret;
	}
	if (n > CONFIG_FILE_MAX) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int read_error(const char *path, int ret, char *err, size_t errlen)
{
	if (!err || !errlen)
		return ret;
	if (ret == -EFBIG)
		snprintf(err, errlen, "%s: larger than %d bytes", path,
			 CONFIG_FILE_MAX);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

int config_load(struct indigod_config *cfg, const char *path, char *err,
		size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text, *nul;
	size_t len;
	int ret;

	if (!f)
		return read_error(path, -errno, err, errlen);
	ret = slurp(f, &text, &len);
	fclose(f);
	if (ret)
		return read_error(path, ret, err, errlen);
	/* a NUL would end the text early and hide the rest of the file */
	nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		const char *p;

		for (p = text; p < nul; p++)
			line += *p == '\n';
		if (err && errlen)
			snprintf(err, errlen, "%s:%d: line: contains a NUL byte",
				 path, line);
		free(text);
		return -EINVAL;
	}
	ret = config_parse_string(cfg, text, path, err, errlen);
	free(text);
	return ret;
}

/* Copies [s, e) without surrounding blanks into @buf; false if too long. */
static bool trimmed(const char *s, const char *e, char *buf, size_t n)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if ((size_t)(e - s) >= n)
		return false;
	memcpy(buf, s, e - s);
	buf[e - s] = '\0';
	return true;
}

/* One "section.key=value"; @nr numbers it (for "set last" in messages). */
static int apply_one(struct parse *ps, const char *set, int nr)
{
	char name[64], value[CONFIG_PATH_MAX + 64], s[SHOW_MAX + 1];
	const char *eq = strchr(set, '='), *dot;
	int i;

	show(s, sizeof(s), set);
	if (!eq || !trimmed(set, eq, name, sizeof(name)))
		return fail(ps, nr, s, "expected section.key=value");
	if (!trimmed(eq + 1, eq + strlen(eq), value, sizeof(value)))
		return fail(ps, nr, name, "value is too long");
	dot = strchr(name, '.');
	if (!dot)	/* "=5" has no name to show: the whole argument */
		return fail(ps, nr, *name ? name : s,
			    "expected section.key=value");
	name[dot - name] = '\0';
	if (!known_section(name)) {
		name[dot - name] = '.';
		return fail(ps, nr, name, "unknown section");
	}
	if (!strcmp(name, "gpu")) {
		name[dot - name] = '.';
		return set_gpu(ps, dot + 1, name, value, nr);
	}
	i = find_key(name, dot + 1);
	name[dot - name] = '.';
	if (i < 0)
		return fail(ps, nr, name, "unknown key");
	if (mark_set(ps, i, name, nr))
		return -EINVAL;
	return set_value(ps, &keys[i], name, value, nr);
}

int config_apply_overrides(struct indigod_config *cfg,
			   const char *const *sets, size_t n, char *err,
			   size_t errlen)
{
	struct parse ps;
	size_t i;

	parse_init(&ps, cfg, "--set", true, err, errlen);
	for (i = 0; i < n; i++)
		if (apply_one(&ps, sets[i], (int)i + 1))
			return -EINVAL;
	if (cross_check(&ps))
		return -EINVAL;
	*cfg = ps.cfg;
	return 0;
}

static const char *choice(const char *const *c, size_t n, int v)
{
	return v >= 0 && (size_t)v < n - 1 ? c[v] : "?";
}

const char *config_learner_name(int learner)
{
	return choice(learners, ARRAY_SIZE(learners), learner);
}

const char *config_executor_name(int executor)
{
	return choice(executors, ARRAY_SIZE(executors), executor);
}

const char *config_link_source_name(int source)
{
	return choice(sources, ARRAY_SIZE(sources), source);
}
