// SPDX-License-Identifier: GPL-2.0
/*
 * indigod's learner and its models: one per application (--app, or the
 * cgroup or command behind most hot-page candidates), loaded at start,
 * saved every --save-every epochs, on exit and before switching.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

/*
 * The module's promotions, the rate cap it enforces and the kernel's
 * pgdemote_* counters are all in base pages: 64 KiB on arm64 kernels built
 * so, where 4 KiB would make the cap 16 times too high and each page's
 * transfer 16 times too cheap.
 */
double host_page_bytes(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (double)n : CM_PAGE_BYTES_DEFAULT;
}

void epoch_params_from(const struct indigod_config *c,
			      struct epoch_params *p)
{
	memset(p, 0, sizeof(*p));
	p->learner = c->agent.learner;
	p->warmup = c->bandit.warmup;
	p->link.bandwidth = cm_gbps_to_bytes_per_s(c->link.bandwidth_gbps);
	p->link.far_ns = c->link.far_latency_ns;
	p->link.local_ns = c->link.local_latency_ns;
	p->link.page_bytes = host_page_bytes();
	p->link.k_ns = K_NS;
	p->epoch_s = c->agent.epoch_ms / 1000.0;
	p->rate_cap_share = c->policy.rate_cap_share;
	p->free_min_kib = c->policy.free_min_kib;
	p->fill_share = c->policy.fill_share;
}

static uint64_t pick_seed(void)
{
	uint64_t seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed ? seed : 1;
}

/* The forgetting factor @c gives the learner: bandit.forget, or auto's. */
double learner_forget(const struct indigod_config *c)
{
	return c->bandit.forget ? c->bandit.forget :
	       epoch_forget_auto(c->reward.source);
}

/* The learner (and its saved model) for d->cfg. */
int learner_start(struct daemon *d)
{
	struct bandit_params bp;
	struct epoch_params p;
	char key[APPKEY_MAX + 16], name[MODELFILE_NAME_MAX], err[512];
	int ret;

	epoch_params_from(&d->cfg, &p);
	bandit_params_default(&bp);
	bp.alpha = d->cfg.bandit.alpha;
	bp.lambda = d->cfg.bandit.lambda;
	bp.v = d->cfg.bandit.v;
	bp.rebuild_every = d->cfg.bandit.rebuild_every;
	bp.forget = learner_forget(&d->cfg);
	bp.seed = d->cfg.bandit.seed;
	if (!bp.seed && p.learner != CONFIG_LEARNER_HEURISTIC) {
		bp.seed = pick_seed();
		logmsg(LOG_INFO, "learner seed %" PRIu64, bp.seed);
	}
	ret = epoch_init(&d->es, &p, NULL, &bp);
	if (ret) {
		logmsg(LOG_ERR, "learner: %s", strerror(-ret));
		return ret;
	}
	d->have_es = true;
	d->model_path[0] = '\0';
	logmsg(LOG_INFO, "learner %s, %u features, %u actions, warmup %u, forget %g",
	       epoch_learner_name(p.learner), (unsigned int)CTX_DIM,
	       actions_count(&d->es.grid), p.warmup, bp.forget);
	if (!d->es.b)
		return 0;

	snprintf(key, sizeof(key), "%s-%s", d->app,
		 epoch_learner_name(p.learner));
	ret = modelfile_name(key, name, sizeof(name));
	if (ret) {
		logmsg(LOG_ERR, "model name for '%s': %s", key,
		       strerror(-ret));
		return ret;
	}
	snprintf(d->model_path, sizeof(d->model_path), "%s/%s",
		 d->cfg.agent.state_dir, name);
	err[0] = '\0';
	ret = epoch_model_load(&d->es, d->model_path, err, sizeof(err));
	if (!ret)
		logmsg(LOG_INFO, "warm start: loaded %s (%" PRIu64 " updates)",
		       d->model_path, d->es.updates);
	else if (ret == -ENOENT)
		logmsg(LOG_INFO, "cold start: no model at %s", d->model_path);
	else if (ret == -EINVAL)
		logmsg(LOG_WARNING, "%s; starting fresh", err);
	else {
		/* it may be sound: a save must not replace what was not read */
		logmsg(LOG_WARNING, "%s: cannot read (%s); starting fresh, and not saving over it",
		       d->model_path, strerror(-ret));
		d->model_path[0] = '\0';
	}
	return 0;
}

void model_save(struct daemon *d)
{
	char err[512];
	int ret;

	if (!d->have_es || !d->es.b || !d->model_path[0])
		return;
	err[0] = '\0';
	ret = epoch_model_save(&d->es, d->model_path, err, sizeof(err));
	if (ret)
		logmsg(LOG_ERR, "saving the model: %s",
		       err[0] ? err : strerror(-ret));
	else
		logmsg(LOG_DEBUG, "model saved to %s", d->model_path);
	d->since_save = 0;
}

void learner_stop(struct daemon *d)
{
	if (!d->have_es)
		return;
	model_save(d);
	epoch_free(&d->es);
	d->have_es = false;
}

/*
 * agent.model_key cgroup or comm: the process behind most of the epoch's
 * candidates names the application; when that changes (for APP_HOLD
 * epochs with candidates; the first one at once) the agent saves the old
 * model and loads the new one's.
 */
void follow_app(struct daemon *d)
{
	char path[64], key[APPKEY_MAX];
	bool cg = d->cfg.agent.model_key == CONFIG_MODEL_CGROUP;
	uint32_t pid;
	int ret;

	pid = d->cfg.agent.model_key == CONFIG_MODEL_FIXED ? 0 :
	      appkey_top_pid(d->pids, d->npids);
	d->npids = 0;
	if (!pid)
		return;
	snprintf(path, sizeof(path), "/proc/%u/%s", pid, cg ? "cgroup" : "comm");
	ret = appkey_from_file(path, cg, key, sizeof(key));
	if (ret == -ENAMETOOLONG && !d->app_long_warned) {
		logmsg(LOG_WARNING, "%s of pid %u is longer than %d bytes: its pages stay with model %s",
		       cg ? "cgroup" : "command", pid, APPKEY_MAX - 1, d->app);
		d->app_long_warned = true;
	}
	/* the first application seen is taken at once: nothing to settle */
	if (ret || !appkey_observe(&d->sw, key, d->app_seen ? APP_HOLD : 1))
		return;	/* gone, unreadable, or not yet settled */
	d->app_seen = true;
	logmsg(LOG_INFO, "application now %s (pid %u): switching models", key,
	       pid);
	learner_stop(d);
	snprintf(d->app, sizeof(d->app), "%s", key);
	if (learner_start(d)) {
		d->failed = true;
		stop_sig = 1;
	}
}
