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
 * journald files by priority. SIGUSR1 probes the GPU links again (gpu/).
 * SIGHUP reloads the configuration, SIGTERM and
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
#include "executor.h"
#include "status.h"
#include "actions.h"
#include "appkey.h"
#include "counter.h"
#include "config.h"
#include "context.h"
#include "costmodel.h"
#include "dlog.h"
#include "epoch.h"
#include "modelfile.h"
#include "ns_indigod.h"
#include "gpu.h"

#include <json-c/json.h>

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
#define APP_HOLD		3	/* epochs before following a new application */
#define PIDS_MAX		65536	/* candidates' pids looked at per epoch */

#define LOG_ERR		3
#define LOG_WARNING	4
#define LOG_NOTICE	5
#define LOG_INFO	6
#define LOG_DEBUG	7

static volatile sig_atomic_t stop_sig, hup_sig, usr1_sig;

struct daemon {
	const char *conf_path;
	const char *sets[MAX_SETS];
	size_t nsets;
	char app[APPKEY_MAX];		/* whose model is in use */
	const char *sysfs;
	unsigned int save_every;

	struct indigod_config cfg;
	struct epoch_state es;
	bool have_es;
	char model_path[CONFIG_PATH_MAX + MODELFILE_NAME_MAX + 2];
	struct dlog *dlog;
	struct modlink *ml;
	struct ns_agent *ns;		/* [netscope]; NULL when off */
	struct gpu_tier *gpu;		/* [gpu]; NULL without GPUs */
	int ns_err;			/* its last error, said once */
	double ns_far_ns;		/* link.source netscope: measured */

	bool have_pol;
	struct act_policy pol;		/* the last policy chosen */
	unsigned int arm;
	const char *by;
	double propensity;

	/* executor "agent" */
	struct executor *ex;
	uint64_t agent_moved, agent_failed;
	int ex_err;			/* last move_pages error logged */

	/* reward source "progress" */
	struct counter_src prog;
	bool prog_warned;

	/* agent.model_key cgroup or comm: the candidates' processes */
	uint32_t pids[PIDS_MAX];
	size_t npids;
	bool app_seen;			/* an application was identified */
	struct appkey_switch sw;
	uint64_t epochs, enobufs, reconnects, set_errors, log_errors;
	uint64_t since_save;
	double last_reward;
	struct timespec last_event;
	bool mem_warned;

	/* link source "counter" */
	struct counter_src ctr;
	bool ctr_warned;
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
	else if (sig == SIGUSR1)
		usr1_sig = 1;
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
	    sigaction(SIGHUP, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		return -errno;
	return 0;
}

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	return clock_s(CLOCK_REALTIME);
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
			if (!*optarg || strlen(optarg) >= sizeof(d->app)) {
				logmsg(LOG_ERR, "--app: empty or longer than %zu bytes",
				       sizeof(d->app) - 1);
				return -EINVAL;
			}
			snprintf(d->app, sizeof(d->app), "%s", optarg);
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
	if (c->link.source == CONFIG_LINK_NETSCOPE && !c->netscope.enable)
		logmsg(LOG_WARNING,
		       "link source=netscope needs [netscope] enable = on: using the configured fixed figures");
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
	/* executor "agent": the kernel must not move the pages the agent does */
	req.p.mode = d->ex ? ACT_MODE_DENY : d->pol.mode;
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
 * Reads the counter file @path into @c: 0 with its growth from *@prev to
 * *@now over *@dt_s; -EAGAIN with nothing to compare yet (first reading,
 * a restarted counter); another -errno when unreadable, said once (@why
 * tells what the agent does meanwhile) until it reads again.
 */
static int read_counter(struct counter_src *c, const char *path,
			const char *why, bool *warned, uint64_t *now,
			uint64_t *prev, double *dt_s)
{
	int ret = ctx_read_counter(path, now);

	if (ret) {
		if (!*warned)
			logmsg(LOG_WARNING, "%s: %s; %s", path, strerror(-ret),
			       why);
		*warned = true;
		counter_reset(c);
		return ret;
	}
	*warned = false;
	return counter_step(c, *now, clock_s(CLOCK_MONOTONIC), prev, dt_s) ?
	       0 : -EAGAIN;
}

/*
 * Link source "counter": the available bandwidth from the counter's growth
 * since the last epoch; the configured bandwidth is the link's capacity.
 */
static void measure_link(struct daemon *d)
{
	struct epoch_params p;
	uint64_t now, prev;
	double dt, avail;

	if (d->cfg.link.source == CONFIG_LINK_NETSCOPE && d->ns) {
		if (ns_indigod_link(d->ns, &d->cfg, &d->avail_gbps, &d->ns_far_ns))
			return;		/* not measured yet: the fixed figures */
		epoch_params_from(&d->cfg, &p);
		p.link.bandwidth = cm_gbps_to_bytes_per_s(fmax(d->avail_gbps, 1e-3));
		p.link.far_ns = d->ns_far_ns;
		epoch_reconfigure(&d->es, &p);
		return;
	}
	if (d->cfg.link.source == CONFIG_LINK_GPU && d->gpu) {
		epoch_params_from(&d->cfg, &p);
		/* promotion from GPU memory: the GPU -> host direction */
		if (!gpu_tier_cm_link(d->gpu, 0, GPU_D2H, &p.link, &p.link)) {
			d->avail_gbps = p.link.bandwidth * 8 / 1e9;
			epoch_reconfigure(&d->es, &p);
		}
		return;
	}
	if (d->cfg.link.source != CONFIG_LINK_COUNTER)
		return;
	if (read_counter(&d->ctr, d->cfg.link.counter_path,
			 "using the configured bandwidth", &d->ctr_warned,
			 &now, &prev, &dt)) {
		d->avail_gbps = 0;
	} else if (!ctx_available_gbps(d->cfg.link.bandwidth_gbps, prev, now,
				       dt, &avail)) {
		d->avail_gbps = avail;
	}
	epoch_params_from(&d->cfg, &p);
	if (d->avail_gbps > 0)
		p.link.bandwidth = cm_gbps_to_bytes_per_s(d->avail_gbps);
	epoch_reconfigure(&d->es, &p);
}

/* Reward source "progress": the application's counter per second. */
static void read_progress(struct daemon *d, struct epoch_feedback *fb)
{
	uint64_t now, prev;
	double dt;

	fb->kind = EPOCH_FB_NONE;
	if (read_counter(&d->prog, d->cfg.reward.progress_path,
			 "no reward until it can be read", &d->prog_warned,
			 &now, &prev, &dt))
		return;
	fb->kind = EPOCH_FB_PROGRESS;
	fb->progress = (now - prev) / dt;
	fb->progress_scale = d->cfg.reward.progress_scale;
}

/* What the last action's reward is made of. */
static void feedback(struct daemon *d, struct epoch_feedback *fb)
{
	struct exec_totals t;

	memset(fb, 0, sizeof(*fb));
	fb->kind = EPOCH_FB_TELEMETRY;
	if (d->ex) {
		executor_take(d->ex, &t);
		d->agent_moved += t.moved;
		d->agent_failed += t.failed;
		fb->kind = EPOCH_FB_PROMOTED;
		fb->npromoted = t.moved;
		fb->rate_sum_hz = t.rate_sum_hz;
	}
	if (d->cfg.reward.source == CONFIG_REWARD_PROGRESS)
		read_progress(d, fb);
}

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n ? 0 : -EINVAL;
}

/*
 * agent.model_key cgroup or comm: the process behind most of the epoch's
 * candidates names the application; when that changes (for APP_HOLD
 * epochs with candidates; the first one at once) the agent saves the old
 * model and loads the new one's.
 */
static void follow_app(struct daemon *d)
{
	char path[64], text[4096], key[APPKEY_MAX];
	bool cg = d->cfg.agent.model_key == CONFIG_MODEL_CGROUP;
	uint32_t pid;
	int ret;

	pid = appkey_top_pid(d->pids, d->npids);
	d->npids = 0;
	if (d->cfg.agent.model_key == CONFIG_MODEL_FIXED || !pid)
		return;
	snprintf(path, sizeof(path), "/proc/%u/%s", pid, cg ? "cgroup" : "comm");
	ret = read_text(path, text, sizeof(text));
	if (!ret)
		ret = cg ? appkey_from_cgroup(text, key, sizeof(key)) :
			   appkey_from_comm(text, key, sizeof(key));
	/* the first application seen is taken at once: nothing to settle */
	if (ret || !appkey_observe(&d->sw, key, d->app_seen ? APP_HOLD : 1))
		return;	/* gone, unreadable, or not yet settled */
	d->app_seen = true;
	logmsg(LOG_INFO, "application now %s (pid %u): switching models", key,
	       pid);
	learner_stop(d);
	snprintf(d->app, sizeof(d->app), "%s", key);
	if (learner_start(d))
		stop_sig = 1;
}

static void write_status(const struct daemon *d, const struct ctx_link *link)
{
	struct status_info si = {
		.app = d->app,
		.learner = config_learner_name(d->cfg.agent.learner),
		.executor = config_executor_name(d->cfg.agent.executor),
		.link_source = config_link_source_name(d->cfg.link.source),
		.reward_source = d->cfg.reward.source == CONFIG_REWARD_PROGRESS ?
				 "progress" : "costmodel",
		.connected = d->ml != NULL,
		.epochs = d->epochs, .enobufs = d->enobufs,
		.reconnects = d->reconnects,
		.updates = d->have_es ? d->es.updates : 0,
		.have_pol = d->have_pol, .pol = d->pol, .arm = d->arm,
		.by = d->by, .propensity = d->propensity,
		.reward = d->last_reward,
		.bandwidth_gbps = link->bandwidth_gbps,
		.far_ns = link->far_ns, .local_ns = link->local_ns,
		.agent_moved = d->agent_moved,
		.agent_failed = d->agent_failed,
	};
	int ret;

	if (!d->cfg.agent.status_path[0])
		return;
	/* what the GPU tier knows, for indigoctl status */
	si.extra = d->gpu ? json_object_new_object() : NULL;
	if (si.extra && gpu_tier_json(d->gpu, si.extra)) {
		json_object_put(si.extra);
		si.extra = NULL;
	}
	ret = status_write(d->cfg.agent.status_path, &si);
	json_object_put(si.extra);
	if (ret)
		logmsg(LOG_DEBUG, "%s: %s", d->cfg.agent.status_path,
		       strerror(-ret));
}

static void on_epoch(const struct modlink_epoch *m, void *arg)
{
	struct daemon *d = arg;
	struct ctx_link link = {
		.bandwidth_gbps = d->cfg.link.bandwidth_gbps,
		.far_ns = d->cfg.link.far_latency_ns,
		.local_ns = d->cfg.link.local_latency_ns,
	};
	struct epoch_feedback fb;
	struct ctx_epoch e;
	struct ctx_mem mem;
	struct epoch_out o;
	double x[CTX_DIM];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	if (!d->have_es)
		return;
	feedback(d, &fb);
	measure_link(d);
	if (d->avail_gbps > 0)
		link.bandwidth_gbps = d->avail_gbps;
	if (d->ns_far_ns > 0)
		link.far_ns = d->ns_far_ns;
	to_ctx_epoch(m, &e);
	ret = ctx_read_mem(d->sysfs, e.far, e.nfar, &mem);
	if (ret && !d->mem_warned) {
		logmsg(LOG_WARNING, "%s/devices/system/node: %s; memory features are 0",
		       d->sysfs, strerror(-ret));
		d->mem_warned = true;
	}
	ret = ctx_build(&e, ret ? NULL : &mem, &link, x);
	if (!ret)
		ret = epoch_step_fb(&d->es, &e, &fb, x, now_s(), &o);
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
	d->arm = o.arm;
	d->by = o.by;
	d->propensity = o.propensity;
	logmsg(LOG_DEBUG,
	       "epoch %" PRIu64 ": arm %u by %s (p %.3g): mode %u rate_min %u mHz burst_min %u ms cap %u/s free_min %" PRIu64 " KiB, link %.4g Gb/s",
	       e.seq, o.arm, o.by, o.propensity, o.pol.mode,
	       o.pol.rate_min_mhz, o.pol.burst_min_ms, o.pol.rate_cap_pps,
	       o.pol.free_min_kib, link.bandwidth_gbps);
	apply_policy(d);
	if (d->since_save >= d->save_every)
		model_save(d);
	write_metrics(d);
	write_status(d, &link);
	follow_app(d);
}

static void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg)
{
	struct promote_cand pc[MODLINK_MAX_CANDS];
	struct daemon *d = arg;
	u32 i;

	if (seq == UINT64_MAX)
		return;	/* synthetic, for benchmarks (uAPI) */
	for (i = 0; i < n && i < MODLINK_MAX_CANDS; i++) {
		pc[i].addr = c[i].addr;
		pc[i].pid = c[i].pid;
		pc[i].node = c[i].node;
		pc[i].rate_mhz = c[i].rate;
		pc[i].burst_ms = c[i].burst_ms;
		if (d->npids < PIDS_MAX)
			d->pids[d->npids++] = c[i].pid;
	}
	if (d->ex)
		executor_add(d->ex, pc, i);
}

/* Executor "agent": promote what the chosen arm lets through, now. */
static void agent_promote(struct daemon *d)
{
	int ret;

	if (!d->ex)
		return;
	if (!d->have_pol || d->pol.mode != ACT_MODE_GATE) {
		executor_clear(d->ex);	/* the arm promotes nothing */
		return;
	}
	ret = executor_run(d->ex, d->pol.rate_min_mhz, d->pol.burst_min_ms,
			   d->pol.rate_cap_pps, d->cfg.agent.epoch_ms / 1000.0,
			   clock_s(CLOCK_MONOTONIC));
	if (ret && ret != d->ex_err)
		logmsg(LOG_WARNING, "move_pages: %s%s", strerror(-ret),
		       ret == -EPERM ? " (needs CAP_SYS_NICE and CAP_SYS_PTRACE)" : "");
	d->ex_err = ret;
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
	ret = modlink_set_rcvbuf(d->ml, (int)d->cfg.agent.netlink_rcvbuf);
	if (ret)
		logmsg(LOG_WARNING, "telemetry receive buffer of %u bytes: %s",
		       d->cfg.agent.netlink_rcvbuf, strerror(-ret));
	last_err = 0;
	d->reconnects++;
	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	logmsg(LOG_INFO, "connected to the module, telemetry subscribed");
	apply_policy(d);	/* after a reload the module is back in observe */
}

/* Opens or closes the agent executor to match d->cfg. */
static int executor_sync(struct daemon *d)
{
	int ret;

	if (d->cfg.agent.executor != CONFIG_EXECUTOR_AGENT) {
		executor_close(d->ex);
		d->ex = NULL;
		return 0;
	}
	if (d->ex)
		return 0;
	ret = executor_open(&d->ex);
	if (ret) {
		d->ex = NULL;
		logmsg(LOG_ERR, "executor agent: %s%s", strerror(-ret),
		       ret == -ENOSYS ? " (the kernel has no NUMA support)" :
		       ret == -ENOENT ? " (no node has CPUs to promote to)" : "");
	}
	return ret;
}

/* [gpu]: GPU memory as a tier; without one the agent goes on as it was. */
static void gpu_start(struct daemon *d)
{
	const struct gpu_info *g;
	char err[512], nodes[128];
	size_t i, n;
	int ret;

	d->gpu = NULL;
	if (!d->cfg.gpu.enable)
		return;
	ret = gpu_tier_start(&d->cfg.gpu, &d->gpu, err, sizeof(err));
	if (ret) {
		logmsg(ret == -ENOENT || ret == -ENODEV || ret == -ENOTSUP ?
		       LOG_NOTICE : LOG_WARNING,
		       "gpu: %s; going on without the GPU tier", err);
		return;
	}
	n = gpu_tier_gpus(d->gpu, &g);
	for (i = 0; i < n; i++)
		logmsg(LOG_INFO,
		       "gpu %d: %s %s, %.1f GiB, host node %d, memory node %d; pinned batch %.3g GB/s to the GPU, %.3g GB/s back",
		       g[i].ordinal, g[i].name, g[i].pci,
		       g[i].mem_bytes / 1073741824.0, g[i].host_node,
		       g[i].mem_node,
		       g[i].link.x[GPU_H2D][GPU_PINNED].batch_bw / 1e9,
		       g[i].link.x[GPU_D2H][GPU_PINNED].batch_bw / 1e9);
	if (!gpu_nodeset_format(&gpu_tier_nodes(d->gpu)->far, nodes,
				sizeof(nodes)))
		logmsg(LOG_INFO, "gpu: far nodes for the module: %s", nodes);
}

/* SIGUSR1: measure the GPU links again; a lost device ends the tier. */
static void gpu_reprobe(struct daemon *d)
{
	char err[512];
	int ret;

	if (!d->gpu)
		return;
	ret = gpu_tier_probe(d->gpu, err, sizeof(err));
	if (!ret) {
		logmsg(LOG_INFO, "gpu: links probed again");
		return;
	}
	logmsg(LOG_WARNING, "gpu: %s%s", err,
	       ret == -ENODEV ? "; going on without the GPU tier" :
				"; keeping the last figures");
	if (ret == -ENODEV) {
		gpu_tier_stop(d->gpu);
		d->gpu = NULL;
	}
}

/* [netscope]: the eBPF programs and their controller (agent/netscope/). */
static void netscope_start(struct daemon *d)
{
	char err[512];
	int cc_err, ret;

	d->ns_err = 0;
	d->ns_far_ns = 0;
	ret = ns_indigod_start(&d->ns, &d->cfg, &cc_err, err, sizeof(err));
	if (ret)
		logmsg(LOG_ERR, "%s; running without Netscope", err);
	else if (d->ns && cc_err)
		logmsg(LOG_WARNING, "netscope: congestion control \"netscope\" not registered (%s); measuring and pacing without it",
		       strerror(-cc_err));
	else if (d->ns)
		logmsg(LOG_INFO, "netscope: programs attached, congestion control \"netscope\" registered");
}

static void netscope_tick(struct daemon *d)
{
	const char *why = "";
	int ret;

	if (!d->ns)
		return;
	ret = ns_agent_tick(d->ns, &why);
	if (ret && ret != d->ns_err)
		logmsg(LOG_WARNING, "netscope: %s: %s", why, strerror(-ret));
	d->ns_err = ret;
}

static void reload(struct daemon *d)
{
	struct indigod_config cfg;
	struct epoch_params p;
	bool ns_changed, gpu_changed;

	sd_notify(0, "RELOADING=1");
	logmsg(LOG_INFO, "SIGHUP: reloading %s", d->conf_path);
	if (read_config(d, &cfg)) {
		logmsg(LOG_ERR, "configuration not reloaded; keeping the old one");
		sd_notify(0, "READY=1");
		return;
	}
	warn_unsupported(&cfg);
	ns_changed = memcmp(&cfg.netscope, &d->cfg.netscope, sizeof(cfg.netscope));
	gpu_changed = memcmp(&cfg.gpu, &d->cfg.gpu, sizeof(cfg.gpu));
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
	if (executor_sync(d)) {
		logmsg(LOG_WARNING, "keeping executor kernel");
		d->cfg.agent.executor = CONFIG_EXECUTOR_KERNEL;
	}
	apply_policy(d);	/* the executor decides the module's mode */
	counter_reset(&d->ctr);
	counter_reset(&d->prog);
	d->ctr_warned = d->prog_warned = false;
	d->avail_gbps = 0;
	if (ns_changed) {
		ns_agent_stop(d->ns);
		netscope_start(d);
	}
	if (gpu_changed) {
		gpu_tier_stop(d->gpu);
		gpu_start(d);
	}
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
		netscope_tick(d);
		if (usr1_sig) {
			usr1_sig = 0;
			gpu_reprobe(d);
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
		if (ret > 0)
			agent_promote(d);
		if (ret == -ENOBUFS) {
			if (!d->enobufs++)
				logmsg(LOG_WARNING,
				       "telemetry overrun (ENOBUFS): events lost, counting and carrying on");
			/* resynchronise: the module holds what the agent chose */
			apply_policy(d);
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
	snprintf(d.app, sizeof(d.app), "default");
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
	snprintf(d.sw.cur, sizeof(d.sw.cur), "%s", d.app);
	if (executor_sync(&d) || learner_start(&d)) {
		executor_close(d.ex);
		return 1;
	}
	dlog_start(&d);
	netscope_start(&d);
	gpu_start(&d);

	run(&d);

	sd_notify(0, "STOPPING=1");
	logmsg(LOG_INFO, "stopping after %" PRIu64 " epochs (%" PRIu64
	       " overruns, %" PRIu64 " connections)", d.epochs, d.enobufs,
	       d.reconnects);
	learner_stop(&d);
	dlog_stop(&d);
	ns_agent_stop(d.ns);
	gpu_tier_stop(d.gpu);
	executor_close(d.ex);
	if (d.ml)
		modlink_close(d.ml);
	return 0;
}
