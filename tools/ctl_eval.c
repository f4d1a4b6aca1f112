// SPDX-License-Identifier: GPL-2.0
/*
 * indigoctl eval LOG: what each fixed arm of the action grid would have
 * earned, estimated from indigod's decision log by IPS, SNIPS and doubly
 * robust estimation (policy/ope.h), next to what the logged policy earned.
 * A narrow effective sample size (ess) says the log knows little about an
 * arm: the agent rarely tried it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "ctl.h"
#include "ctl_out.h"
#include "dlog.h"
#include "ope.h"

struct log {
	struct dlog_rec *rec;
	struct ope_sample *s;
	size_t n, cap;
	uint64_t malformed;
	struct act_grid grid;	/* indigod's: the default one */
	unsigned int nactions;	/* its arms */
};

static int grow(struct log *g)
{
	size_t cap = g->cap ? g->cap * 2 : 1024;
	void *r = realloc(g->rec, cap * sizeof(*g->rec));

	if (!r)
		return -ENOMEM;
	g->rec = r;
	g->cap = cap;
	return 0;
}

static int read_log(const char *path, struct log *g)
{
	struct dlog_reader *r;
	size_t i;
	int ret;

	ret = dlog_reader_open(&r, path);
	if (ret)
		return ret;
	for (;;) {
		if (g->n == g->cap && (ret = grow(g)))
			break;
		ret = dlog_reader_next(r, &g->rec[g->n]);
		if (ret <= 0)
			break;
		/* not an arm of indigod's grid: a damaged line, which would
		 * cost a row, and a pass over the log for each arm up to it */
		if (g->rec[g->n].action >= g->nactions) {
			g->malformed++;
			continue;
		}
		g->n++;
	}
	g->malformed += dlog_reader_malformed(r);
	dlog_reader_close(r);
	if (ret < 0)
		return ret;
	g->s = calloc(g->n ? g->n : 1, sizeof(*g->s));
	if (!g->s)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		g->s[i].x = g->rec[i].context;
		g->s[i].d = g->rec[i].ncontext;
		g->s[i].action = g->rec[i].action;
		g->s[i].propensity = g->rec[i].propensity;
		g->s[i].reward = g->rec[i].reward;
	}
	return 0;
}

/* pi(a | x) of "always arm *user". */
static double always(void *user, const double *x, size_t d, unsigned int a)
{
	(void)x;
	(void)d;
	return a == *(unsigned int *)user ? 1.0 : 0.0;
}

static void arm_name(const struct act_grid *grid, unsigned int arm, char *buf,
		     size_t len)
{
	struct act_policy p = { 0 };

	if (arm == actions_deny_arm(grid)) {
		snprintf(buf, len, "deny");
	} else if (arm == actions_fill_arm(grid)) {
		snprintf(buf, len, "fill");
	} else {
		/* a gate arm: the log holds no other (read_log()) */
		actions_policy(grid, arm, 1, 0, 0, 0, &p);
		snprintf(buf, len, "rate>=%u mHz, burst>=%u ms", p.rate_min_mhz,
			 p.burst_min_ms);
	}
}

/* @v, or null where its estimator had none (@err) */
static void estimate(struct json_object *o, const char *key, int err,
		     double v)
{
	if (err)
		json_object_object_add(o, key, NULL);
	else
		ctl_add(o, key, json_object_new_double(v));
}

static struct json_object *arm_json(const struct log *g, unsigned int arm,
				    const double *mean)
{
	struct ope_policy pi = { .prob = always, .user = &arm };
	struct ope_model m = { .predict = ope_action_mean_predict,
			       .user = (void *)mean };
	struct ope_result ips, snips, dr;
	struct json_object *o;
	int no_ips, no_snips, no_dr;
	char name[64];

	/* an arm the log never took has no self-normalised estimate (its
	 * weights sum to 0), and a log whose weights overflow (a tiny
	 * propensity) none that is finite: null there, a row all the same */
	no_ips = ope_ips(g->s, g->n, &pi, &ips);
	no_snips = ope_snips(g->s, g->n, &pi, &snips);
	no_dr = ope_dr(g->s, g->n, g->nactions, &pi, &m, &dr);
	if ((no_ips && no_ips != -ERANGE) ||
	    (no_snips && no_snips != -EDOM && no_snips != -ERANGE) ||
	    (no_dr && no_dr != -ERANGE))
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	arm_name(&g->grid, arm, name, sizeof(name));
	ctl_add_u64(o, "arm", arm);
	ctl_add_str(o, "thresholds", name);
	estimate(o, "ips", no_ips, ips.value);
	estimate(o, "snips", no_snips, snips.value);
	estimate(o, "dr", no_dr, dr.value);
	estimate(o, "dr_se", no_dr, dr.se);
	estimate(o, "ess", no_ips, ips.ess);
	return o;
}

static int report(const struct ctl *c, const char *path, struct log *g)
{
	struct json_object *o, *arms;
	double *mean, logged = 0;
	unsigned int a;
	size_t i;
	int rc = 1;

	mean = calloc(g->nactions, sizeof(*mean));
	o = json_object_new_object();
	arms = json_object_new_array();
	if (!mean || !o || !arms) {
		fprintf(stderr, "indigoctl: eval: out of memory\n");
		goto out;
	}
	if (ope_fit_action_means(g->s, g->n, g->nactions, mean)) {
		fprintf(stderr, "indigoctl: eval: %s: the decisions cannot be fitted\n",
			path);
		goto out;
	}
	/* a running mean: a sum of finite rewards can overflow to inf,
	 * which json-c prints as Infinity (not JSON) */
	for (i = 0; i < g->n; i++)
		logged += (g->s[i].reward - logged) / (double)(i + 1);
	ctl_add_str(o, "log", path);
	ctl_add_u64(o, "records", g->n);
	ctl_add_u64(o, "malformed_lines", g->malformed);
	estimate(o, "logged_mean_reward", !isfinite(logged), logged);
	for (a = 0; a < g->nactions; a++)
		json_object_array_add(arms, arm_json(g, a, mean));
	ctl_add(o, "estimates", arms);
	arms = NULL;
	rc = ctl_print(o, c->json);
out:
	json_object_put(arms);
	json_object_put(o);
	free(mean);
	return rc;
}

int ctl_eval(const struct ctl *c, int argc, char **argv)
{
	struct log g = { 0 };
	int ret, rc;

	if (argc != 1) {
		fprintf(stderr, "indigoctl: usage: eval LOG (an indigod decision log, JSON lines)\n");
		return 2;
	}
	actions_grid_default(&g.grid);
	g.nactions = actions_count(&g.grid);
	ret = read_log(argv[0], &g);
	if (ret) {
		fprintf(stderr, "indigoctl: eval: %s: %s\n", argv[0],
			strerror(-ret));
		rc = 1;
	} else if (!g.n) {
		fprintf(stderr, "indigoctl: eval: %s: no complete decisions (%llu malformed lines)\n",
			argv[0], (unsigned long long)g.malformed);
		rc = 1;
	} else {
		rc = report(c, argv[0], &g);
	}
	free(g.rec);
	free(g.s);
	return rc;
}
