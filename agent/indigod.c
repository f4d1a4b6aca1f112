// SPDX-License-Identifier: GPL-2.0
/*
 * indigod: INDIGO's agent. Each epoch of the module's telemetry it builds a
 * context (policy/context.h), lets the learner or the heuristic choose the
 * gate's thresholds (policy/epoch.h, policy/actions.h), sets them in the
 * module and logs the decision (policy/dlog.h). The learned model is kept
 * under the state directory (policy/modelfile.h).
 *
 *	indigod [-c FILE] [--set section.key=value]... [--app KEY]
 *		[--save-every N] [--sysfs DIR]
 *
 * Logs go to stderr with syslog priority prefixes ("<6>indigod: ..."), which
 * journald files by priority. SIGHUP reloads the configuration, SIGTERM and
 * SIGINT save the model and exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "modlink.h"
#include "actions.h"
#include "config.h"
#include "context.h"
#include "costmodel.h"
#include "dlog.h"
#include "epoch.h"
#include "modelfile.h"

/* actions.h mirrors the uAPI without including it */
_Static_assert(ACT_MODE_GATE == INDIGO_MODE_GATE, "mode gate");
_Static_assert(ACT_MODE_DENY == INDIGO_MODE_DENY, "mode deny");
_Static_assert(ACT_MODE_OBSERVE == INDIGO_MODE_OBSERVE, "mode observe");
_Static_assert(ACT_SET_MODE == 1U << INDIGO_A_POLICY_MODE, "set mode");
_Static_assert(ACT_SET_RATE_MIN == 1U << INDIGO_A_POLICY_RATE_MIN, "set rate");
_Static_assert(ACT_SET_BURST_MIN == 1U << INDIGO_A_POLICY_BURST_MIN, "burst");
_Static_assert(ACT_SET_FREE_MIN == 1U << INDIGO_A_POLICY_FREE_MIN, "free");
_Static_assert(ACT_SET_RATE_CAP == 1U << INDIGO_A_POLICY_RATE_CAP, "cap");
_Static_assert(CTX_MAX_NODES == MODLINK_MAX_NODES, "nodes");
_Static_assert(CTX_DIM <= DLOG_CONTEXT_MAX, "context fits the log");

#define MAX_SETS		64
#define RETRY_MS		1000	/* between reconnection attempts */
#define PROBE_MS		3000	/* silence after which the link is probed */
#define K_NS			2000.0	/* fixed cost of one migration */
#define SAVE_EVERY_DEFAULT	60

#define LOG_ERR		3
#define LOG_WARNING	4
#define LOG_NOTICE	5
#define LOG_INFO	6
#define LOG_DEBUG	7

static volatile sig_atomic_t stop_sig, hup_sig;

struct daemon {
	const char *conf_path;
	const char *sets[MAX_SETS];
	size_t nsets;
	const char *app;
	const char *sysfs;
	unsigned int save_every;

	struct indigod_config cfg;
	struct epoch_state es;
	bool have_es;
	char model_path[CONFIG_PATH_MAX + MODELFILE_NAME_MAX + 2];
	struct dlog *dlog;
	struct modlink *ml;

	bool have_pol;
	struct act_policy pol;		/* the last policy chosen */
	uint64_t epochs, enobufs, reconnects, set_errors, log_errors;
	uint64_t since_save;
	double last_reward;
	struct timespec last_event;
	bool mem_warned;

	/* link source "counter" */
	bool have_ctr, ctr_warned;
	uint64_t ctr_prev;
	struct timespec ctr_at;
	double avail_gbps;		/* 0: not measured, use the capacity */
};

static void logmsg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logmsg(int prio, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "<%d>indigod: %s\n", prio, buf);
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_sig = 1;
	else
		stop_sig = 1;
}

static int setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		return -errno;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int64_t ms_since(const struct timespec *t)
{
	struct timespec n;

	clock_gettime(CLOCK_MONOTONIC, &n);
	return (int64_t)(n.tv_sec - t->tv_sec) * 1000 +
	       (n.tv_nsec - t->tv_nsec) / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: indigod [-c FILE] [--set section.key=value]... [--app KEY]\n"
		"               [--save-every N] [--sysfs DIR]\n"
		"  -c, --config FILE   configuration (default %s; missing: defaults)\n"
		"  --set S.K=V         override one key, with the file's checks\n"
		"  --app KEY           application whose model to use (default \"default\")\n"
		"  --save-every N      epochs between model saves (default %d)\n"
		"  --sysfs DIR         where sysfs is mounted (default /sys)\n",
		CONFIG_DEFAULT_PATH, SAVE_EVERY_DEFAULT);
}

static int parse_uint(const char *s, unsigned int *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n > 1000000000UL || *s == '-')
		return -EINVAL;
	*v = (unsigned int)n;
	return 0;
}

static int parse_args(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "app", required_argument, NULL, 'a' },
		{ "save-every", required_argument, NULL, 'e' },
		{ "sysfs", required_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->conf_path = optarg;
			break;
		case 's':
			if (d->nsets == MAX_SETS) {
				logmsg(LOG_ERR, "at most %d --set", MAX_SETS);
				return -EINVAL;
			}
			d->sets[d->nsets++] = optarg;
			break;
		case 'a':
			if (!*optarg) {
				logmsg(LOG_ERR, "--app: empty");
				return -EINVAL;
			}
			d->app = optarg;
			break;
		case 'e':
			if (parse_uint(optarg, &d->save_every) || !d->save_every) {
				logmsg(LOG_ERR, "--save-every: bad number '%s'",
				       optarg);
				return -EINVAL;
			}
			break;
		case 'y':
			d->sysfs = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* The file (missing: defaults) plus the --set overrides; all or nothing. */
static int read_config(const struct daemon *d, struct indigod_config *cfg)
{
	char err[512];
	int ret;

	config_defaults(cfg);
	ret = config_load(cfg, d->conf_path, err, sizeof(err));
	if (ret == -ENOENT) {
		logmsg(LOG_NOTICE, "%s: not found, using the defaults",
		       d->conf_path);
	} else if (ret == -EINVAL) {
		logmsg(LOG_ERR, "%s", err);
		return ret;
	} else if (ret) {
		logmsg(LOG_ERR, "%s: %s", d->conf_path, strerror(-ret));
		return ret;
	}
	ret = config_apply_overrides(cfg, d->sets, d->nsets, err, sizeof(err));
	if (ret) {
		logmsg(LOG_ERR, "%s", err);
		return ret;
	}
	return 0;
}

static void epoch_params_from(const struct indigod_config *c,
			      struct epoch_params *p)
{
	memset(p, 0, sizeof(*p));
	p->learner = c->agent.learner;
	p->warmup = c->bandit.warmup;
	p->link.bandwidth = cm_gbps_to_bytes_per_s(c->link.bandwidth_gbps);
	p->link.far_ns = c->link.far_latency_ns;
	p->link.local_ns = c->link.local_latency_ns;
	p->link.page_bytes = CM_PAGE_BYTES_DEFAULT;
	p->link.k_ns = K_NS;
	p->epoch_s = c->agent.epoch_ms / 1000.0;
	p->rate_cap_share = c->policy.rate_cap_share;
	p->free_min_kib = c->policy.free_min_kib;
}

static uint64_t pick_seed(void)
{
	uint64_t seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed ? seed : 1;
}

static void warn_unsupported(const struct indigod_config *c)
{
	if (c->agent.executor != CONFIG_EXECUTOR_KERNEL)
		logmsg(LOG_WARNING,
		       "executor=%s is not implemented yet: the module's gate applies the policy (kernel)",
		       config_executor_name(c->agent.executor));
	if (c->link.source == CONFIG_LINK_NETSCOPE)
		logmsg(LOG_WARNING,
		       "link source=%s is not implemented yet: using the configured fixed figures",
		       config_link_source_name(c->link.source));
}

/* The learner (and its saved model) for d->cfg. */
static int learner_start(struct daemon *d)
{
	struct bandit_params bp;
	struct epoch_params p;
	char key[CONFIG_PATH_MAX], name[MODELFILE_NAME_MAX], err[512];
	int ret;

	epoch_params_from(&d->cfg, &p);
	bandit_params_default(&bp);
	bp.alpha = d->cfg.bandit.alpha;
	bp.lambda = d->cfg.bandit.lambda;
	bp.v = d->cfg.bandit.v;
	bp.rebuild_every = d->cfg.bandit.rebuild_every;
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
	logmsg(LOG_INFO, "learner %s, %u features, %u actions, warmup %u",
	       epoch_learner_name(p.learner), (unsigned int)CTX_DIM,
	       actions_count(&d->es.grid), p.warmup);
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
	else
		logmsg(LOG_WARNING, "%s: cannot read (%s); starting fresh",
		       d->model_path, strerror(-ret));
	return 0;
}

static void model_save(struct daemon *d)
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

static void learner_stop(struct daemon *d)
{
	if (!d->have_es)
		return;
	model_save(d);
	epoch_free(&d->es);
	d->have_es = false;
}

static void dlog_start(struct daemon *d)
{
	int ret;

	if (!d->cfg.agent.log_path[0])
		return;
	ret = dlog_open(&d->dlog, d->cfg.agent.log_path,
			d->cfg.agent.log_max_bytes, DLOG_KEEP_DEFAULT);
	if (ret) {
		d->dlog = NULL;
		logmsg(LOG_WARNING, "decision log %s: %s; not logging decisions",
		       d->cfg.agent.log_path, strerror(-ret));
	}
}

static void dlog_stop(struct daemon *d)
{
	if (d->dlog)
		dlog_close(d->dlog);
	d->dlog = NULL;
}

/* Prometheus text format, written whole then renamed into place. */
static void write_metrics(const struct daemon *d)
{
	char tmp[CONFIG_PATH_MAX + 8];
	FILE *f;

	if (!d->cfg.agent.metrics_path[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->cfg.agent.metrics_path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f,
		"# HELP indigod_epochs_total Telemetry epochs handled.\n"
		"# TYPE indigod_epochs_total counter\n"
		"indigod_epochs_total %" PRIu64 "\n"
		"# HELP indigod_enobufs_total Netlink overruns (events lost).\n"
		"# TYPE indigod_enobufs_total counter\n"
		"indigod_enobufs_total %" PRIu64 "\n"
		"# HELP indigod_reconnects_total Connections to the module made.\n"
		"# TYPE indigod_reconnects_total counter\n"
		"indigod_reconnects_total %" PRIu64 "\n"
		"# HELP indigod_set_policy_errors_total Failed policy sets.\n"
		"# TYPE indigod_set_policy_errors_total counter\n"
		"indigod_set_policy_errors_total %" PRIu64 "\n"
		"# HELP indigod_reward_seconds Reward of the last complete epoch.\n"
		"# TYPE indigod_reward_seconds gauge\n"
		"indigod_reward_seconds %.9g\n"
		"# HELP indigod_learner_updates Learner updates so far.\n"
		"# TYPE indigod_learner_updates gauge\n"
		"indigod_learner_updates %" PRIu64 "\n",
		d->epochs, d->enobufs, d->reconnects, d->set_errors,
		d->last_reward, d->have_es ? d->es.updates : 0);
	if (fclose(f) || rename(tmp, d->cfg.agent.metrics_path))
		unlink(tmp);
}

static void link_close(struct daemon *d, const char *why)
{
	if (!d->ml)
		return;
	logmsg(LOG_WARNING, "lost the module (%s); reconnecting every %d ms",
	       why, RETRY_MS);
	modlink_close(d->ml);
	d->ml = NULL;
}

static void apply_policy(struct daemon *d)
{
	struct modlink_policy_req req;
	u64 gen = 0;
	int ret;

	if (!d->ml || !d->have_pol)
		return;
	memset(&req, 0, sizeof(req));
	req.p.mode = d->pol.mode;
	req.p.rate_min = d->pol.rate_min_mhz;
	req.p.burst_min = d->pol.burst_min_ms;
	req.p.free_min = d->pol.free_min_kib;
	req.p.rate_cap = d->pol.rate_cap_pps;
	req.set = d->pol.set;
	ret = modlink_set_policy(d->ml, &req, &gen);
	if (!ret)
		return;
	d->set_errors++;
	if (ret == -EINVAL || ret == -ERANGE) {
		const char *why = modlink_error(d->ml);

		logmsg(LOG_ERR, "the module refused the policy: %s",
		       why && *why ? why : strerror(-ret));
		return;
	}
	link_close(d, strerror(-ret));
}

static void to_ctx_epoch(const struct modlink_epoch *m, struct ctx_epoch *c)
{
	u32 i;

	memset(c, 0, sizeof(*c));
	c->seq = m->seq;
	c->ms = m->ms;
	c->rate_p50 = m->rate_p50;
	c->rate_p90 = m->rate_p90;
	c->rate_p99 = m->rate_p99;
	c->burst_p50 = m->burst_p50;
	c->burst_p90 = m->burst_p90;
	c->burst_p99 = m->burst_p99;
	for (i = 0; i < m->nnodes && i < MODLINK_MAX_NODES; i++) {
		uint64_t veto[__INDIGO_REASON_MAX];
		unsigned int r;

		for (r = 0; r < __INDIGO_REASON_MAX; r++)
			veto[r] = m->node[i].veto[r];
		ctx_epoch_add_node(c, m->node[i].id, m->node[i].faults,
				   m->node[i].allowed, veto,
				   __INDIGO_REASON_MAX);
	}
}

/*
 * Link source "counter": the available bandwidth from the counter's growth
 * since the last epoch; the configured bandwidth is the link's capacity.
 */
static void measure_link(struct daemon *d)
{
	struct epoch_params p;
	struct timespec at;
	uint64_t now;
	double avail;
	int ret;

	if (d->cfg.link.source != CONFIG_LINK_COUNTER)
		return;
	clock_gettime(CLOCK_MONOTONIC, &at);
	ret = ctx_read_counter(d->cfg.link.counter_path, &now);
	if (ret) {
		if (!d->ctr_warned)
			logmsg(LOG_WARNING, "%s: %s; using the configured bandwidth",
			       d->cfg.link.counter_path, strerror(-ret));
		d->ctr_warned = true;
		d->have_ctr = false;
		d->avail_gbps = 0;
	} else {
		if (d->have_ctr &&
		    !ctx_available_gbps(d->cfg.link.bandwidth_gbps, d->ctr_prev,
					now, ms_since(&d->ctr_at) / 1000.0,
					&avail))
			d->avail_gbps = avail;
		d->have_ctr = true;
		d->ctr_prev = now;
		d->ctr_at = at;
	}
	epoch_params_from(&d->cfg, &p);
	if (d->avail_gbps > 0)
		p.link.bandwidth = cm_gbps_to_bytes_per_s(d->avail_gbps);
	epoch_reconfigure(&d->es, &p);
}

static void on_epoch(const struct modlink_epoch *m, void *arg)
{
	struct daemon *d = arg;
	struct ctx_link link = {
		.bandwidth_gbps = d->cfg.link.bandwidth_gbps,
		.far_ns = d->cfg.link.far_latency_ns,
		.local_ns = d->cfg.link.local_latency_ns,
	};
	struct ctx_epoch e;
	struct ctx_mem mem;
	struct epoch_out o;
	double x[CTX_DIM];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	if (!d->have_es)
		return;
	measure_link(d);
	if (d->avail_gbps > 0)
		link.bandwidth_gbps = d->avail_gbps;
	to_ctx_epoch(m, &e);
	ret = ctx_read_mem(d->sysfs, e.far, e.nfar, &mem);
	if (ret && !d->mem_warned) {
		logmsg(LOG_WARNING, "%s/devices/system/node: %s; memory features are 0",
		       d->sysfs, strerror(-ret));
		d->mem_warned = true;
	}
	ret = ctx_build(&e, ret ? NULL : &mem, &link, x);
	if (!ret)
		ret = epoch_step(&d->es, &e, x, now_s(), &o);
	if (ret) {
		logmsg(LOG_ERR, "epoch %" PRIu64 ": %s", e.seq, strerror(-ret));
		return;
	}
	d->epochs++;
	d->since_save++;
	if (o.update_err)
		logmsg(LOG_WARNING, "learner update: %s", strerror(-o.update_err));
	if (o.have_rec) {
		d->last_reward = o.rec.reward;
		if (d->dlog) {
			ret = dlog_append(d->dlog, &o.rec);
			if (ret && !d->log_errors++)
				logmsg(LOG_WARNING, "decision log: %s",
				       strerror(-ret));
		}
	}
	d->pol = o.pol;
	d->have_pol = true;
	logmsg(LOG_DEBUG,
	       "epoch %" PRIu64 ": arm %u by %s (p %.3g): mode %u rate_min %u mHz burst_min %u ms cap %u/s free_min %" PRIu64 " KiB, link %.4g Gb/s",
	       e.seq, o.arm, o.by, o.propensity, o.pol.mode,
	       o.pol.rate_min_mhz, o.pol.burst_min_ms, o.pol.rate_cap_pps,
	       o.pol.free_min_kib, link.bandwidth_gbps);
	apply_policy(d);
	if (d->since_save >= d->save_every)
		model_save(d);
	write_metrics(d);
}

static void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg)
{
	(void)seq;
	(void)c;
	(void)n;
	(void)arg;	/* the kernel executor leaves candidates to the module */
}

static void link_try_open(struct daemon *d)
{
	static int last_err;
	int ret;

	ret = modlink_open(&d->ml);
	if (!ret) {
		ret = modlink_subscribe(d->ml);
		if (ret) {
			modlink_close(d->ml);
			d->ml = NULL;
		}
	}
	if (ret) {
		d->ml = NULL;
		if (ret != last_err)
			logmsg(ret == -ENOENT ? LOG_NOTICE : LOG_WARNING,
			       "cannot reach the module: %s%s", strerror(-ret),
			       ret == -ENOENT ? " (not loaded?)" :
			       ret == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
		last_err = ret;
		return;
	}
	last_err = 0;
	d->reconnects++;
	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	logmsg(LOG_INFO, "connected to the module, telemetry subscribed");
	apply_policy(d);	/* after a reload the module is back in observe */
}

static void reload(struct daemon *d)
{
	struct indigod_config cfg;
	struct epoch_params p;

	sd_notify(0, "RELOADING=1");
	logmsg(LOG_INFO, "SIGHUP: reloading %s", d->conf_path);
	if (read_config(d, &cfg)) {
		logmsg(LOG_ERR, "configuration not reloaded; keeping the old one");
		sd_notify(0, "READY=1");
		return;
	}
	warn_unsupported(&cfg);
	if (cfg.agent.learner != d->cfg.agent.learner ||
	    strcmp(cfg.agent.state_dir, d->cfg.agent.state_dir) ||
	    memcmp(&cfg.bandit, &d->cfg.bandit, sizeof(cfg.bandit))) {
		learner_stop(d);
		d->cfg = cfg;
		if (learner_start(d))
			stop_sig = 1;
	} else {
		epoch_params_from(&cfg, &p);
		epoch_reconfigure(&d->es, &p);
		d->cfg = cfg;
	}
	d->have_ctr = d->ctr_warned = false;
	d->avail_gbps = 0;
	dlog_stop(d);
	dlog_start(d);
	sd_notify(0, "READY=1");
}

static int run(struct daemon *d)
{
	const struct modlink_events ev = {
		.epoch = on_epoch, .cands = on_cands, .arg = d,
	};
	struct indigo_policy pol;
	struct timespec last_try = { 0 };
	u64 gen;
	bool notified = false;
	int ret;

	while (!stop_sig) {
		if (hup_sig) {
			hup_sig = 0;
			reload(d);
			continue;
		}
		if (!d->ml) {
			if (last_try.tv_sec && ms_since(&last_try) < RETRY_MS) {
				usleep(100 * 1000);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &last_try);
			link_try_open(d);
			if (!notified) {
				sd_notify(0, "READY=1\nSTATUS=running");
				notified = true;
			}
			continue;
		}
		ret = modlink_poll(d->ml, &ev, 500);
		if (ret == -ENOBUFS) {
			if (!d->enobufs++)
				logmsg(LOG_WARNING,
				       "telemetry overrun (ENOBUFS): events lost, counting and carrying on");
			continue;
		}
		if (ret == -EINTR || ret > 0)
			continue;
		if (ret < 0) {
			link_close(d, strerror(-ret));
			continue;
		}
		/* quiet: is the module still there? (an unload is silent) */
		if (ms_since(&d->last_event) >= PROBE_MS) {
			clock_gettime(CLOCK_MONOTONIC, &d->last_event);
			ret = modlink_get_policy(d->ml, &pol, &gen);
			if (ret)
				link_close(d, strerror(-ret));
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct daemon d;
	int ret;

	d.conf_path = CONFIG_DEFAULT_PATH;
	d.app = "default";
	d.sysfs = "/sys";
	d.save_every = SAVE_EVERY_DEFAULT;
	if (parse_args(&d, argc, argv))
		return 2;
	if (read_config(&d, &d.cfg))
		return 1;
	ret = setup_signals();
	if (ret) {
		logmsg(LOG_ERR, "signals: %s", strerror(-ret));
		return 1;
	}
	logmsg(LOG_INFO, "starting: learner %s, executor %s, link %s %.6g Gb/s %.6g/%.6g ns",
	       config_learner_name(d.cfg.agent.learner),
	       config_executor_name(d.cfg.agent.executor),
	       config_link_source_name(d.cfg.link.source),
	       d.cfg.link.bandwidth_gbps, d.cfg.link.far_latency_ns,
	       d.cfg.link.local_latency_ns);
	warn_unsupported(&d.cfg);
	if (learner_start(&d))
		return 1;
	dlog_start(&d);

	run(&d);

	sd_notify(0, "STOPPING=1");
	logmsg(LOG_INFO, "stopping after %" PRIu64 " epochs (%" PRIu64
	       " overruns, %" PRIu64 " connections)", d.epochs, d.enobufs,
	       d.reconnects);
	learner_stop(&d);
	dlog_stop(&d);
	if (d.ml)
		modlink_close(d.ml);
	return 0;
}
