// SPDX-License-Identifier: GPL-2.0
/*
 * indigod: INDIGO's agent. Each epoch of the module's telemetry it builds a
 * context (policy/context.h), lets the learner or the heuristic choose the
 * gate's thresholds (policy/epoch.h, policy/actions.h), sets them in the
 * module and logs the decision (policy/dlog.h). The learned model is kept
 * under the state directory (policy/modelfile.h). This file: options,
 * signals, the module link and the loop; daemon.h says where the rest is.
 *
 *	indigod [-c FILE] [--set section.key=value]... [--app KEY]
 *		[--save-every N] [--sysfs DIR]
 *
 * Logs go to stderr with syslog priority prefixes ("<6>indigod: ..."), which
 * journald files by priority. SIGUSR1 probes the GPU links again (gpu/),
 * or starts the GPU tier where it is off.
 * SIGHUP reloads the configuration, SIGTERM and
 * SIGINT save the model and exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "num.h"

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

#define RETRY_MS		1000	/* between reconnection attempts */
#define PROBE_MS		3000	/* silence after which the link is probed */
#define WAIT_MS			500	/* telemetry wait, at most, per loop */
#define SAVE_EVERY_DEFAULT	60

volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t hup_sig, usr1_sig;

void logmsg(int prio, const char *fmt, ...)
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

/* The signals on_signal() turns into flags for the loop. */
static void loop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR1);
}

void signals_hold(sigset_t *old)
{
	sigset_t set;

	loop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void signals_release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int setup_signals(void)
{
	struct sigaction sa;
	sigset_t set;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	loop_signals(&set);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&set, sig) == 1 && sigaction(sig, &sa, NULL))
			return -errno;
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		return -errno;
	/* a parent (not systemd) may have left them blocked: SIGTERM would
	 * then stop it only as SIGKILL does, without saving or handing back */
	return pthread_sigmask(SIG_UNBLOCK, &set, NULL) ? -EINVAL : 0;
}

double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_s(void)
{
	return clock_s(CLOCK_REALTIME);
}

int64_t ms_since(const struct timespec *t)
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
	uint64_t n;
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
			if (num_u64(optarg, 1000000000, &n) || !n) {
				logmsg(LOG_ERR, "--save-every: bad number '%s'",
				       optarg);
				return -EINVAL;
			}
			d->save_every = (unsigned int)n;
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

static void warn_unsupported(const struct indigod_config *c)
{
	if (c->link.source == CONFIG_LINK_NETSCOPE && !c->netscope.enable)
		logmsg(LOG_WARNING,
		       "link source=netscope needs [netscope] enable = on: using the configured fixed figures");
}

static void link_close(struct daemon *d, int err)
{
	d->link_err = 0;
	if (!d->ml)
		return;
	logmsg(LOG_WARNING, "lost the module (%s); reconnecting every %d ms",
	       strerror(-err), RETRY_MS);
	modlink_close(d->ml);
	d->ml = NULL;
}

int apply_policy(struct daemon *d)
{
	struct modlink_policy_req req;
	u64 gen = 0;
	int ret;

	if (!d->have_pol)
		return 0;
	if (!d->ml || d->link_err)
		return -ENOTCONN;
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
		return 0;
	d->set_errors++;
	if (ret == -EINVAL || ret == -ERANGE) {
		const char *why = modlink_error(d->ml);

		logmsg(LOG_ERR, "the module refused the policy: %s",
		       why && *why ? why : strerror(-ret));
		return ret;
	}
	/*
	 * Not closed here: this may run inside modlink_poll()'s callbacks,
	 * which go on reading the link's socket.
	 */
	d->link_err = ret;
	return ret;
}

/*
 * The module sees only the hinting faults NUMA balancing takes: switched
 * off, it takes none, and every epoch would report nothing without a word
 * why. (A kernel without it has no such file; the module refuses to load.)
 */
static void warn_numa_balancing_off(void)
{
	FILE *f = fopen("/proc/sys/kernel/numa_balancing", "re");
	int mode = -1;

	if (!f)
		return;
	if (fscanf(f, "%d", &mode) != 1)
		mode = -1;
	fclose(f);
	if (!mode)
		logmsg(LOG_WARNING,
		       "kernel.numa_balancing is 0: the kernel takes no hinting faults, so the module sees none (set it to 1, or 2 for memory tiering)");
}

/* agent.netlink_rcvbuf on the telemetry socket, at connect and reload. */
static void apply_rcvbuf(struct daemon *d)
{
	int ret = modlink_set_rcvbuf(d->ml, (int)d->cfg.agent.netlink_rcvbuf);

	if (ret)
		logmsg(LOG_WARNING, "telemetry receive buffer of %u bytes: %s",
		       d->cfg.agent.netlink_rcvbuf, strerror(-ret));
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
	apply_rcvbuf(d);
	last_err = 0;
	d->reconnects++;
	/*
	 * No epochs came while the module was away: the counters' growth
	 * since would be the outage's, credited to the last decision before
	 * it (its policy was not even in force). They start again, as after
	 * a reload.
	 */
	counter_reset(&d->ctr);
	counter_reset(&d->prog);
	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	logmsg(LOG_INFO, "connected to the module, telemetry subscribed");
	warn_numa_balancing_off();
	apply_policy(d);	/* after a reload the module is back in observe */
}

static void app_restart(struct daemon *d)
{
	snprintf(d->app, sizeof(d->app), "%s", d->app_fixed);
	memset(&d->sw, 0, sizeof(d->sw));
	snprintf(d->sw.cur, sizeof(d->sw.cur), "%s", d->app);
	d->app_seen = false;
	d->npids = 0;
}

static void reload(struct daemon *d)
{
	struct indigod_config cfg;
	struct epoch_params p;
	bool ns_changed, gpu_changed, key_changed, rcvbuf_changed;

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
	key_changed = cfg.agent.model_key != d->cfg.agent.model_key;
	rcvbuf_changed = cfg.agent.netlink_rcvbuf != d->cfg.agent.netlink_rcvbuf;
	/*
	 * bandit.forget = auto follows reward.source: a new source with the
	 * same [bandit] section still changes the learner's tuning.
	 */
	if (cfg.agent.learner != d->cfg.agent.learner ||
	    strcmp(cfg.agent.state_dir, d->cfg.agent.state_dir) ||
	    memcmp(&cfg.bandit, &d->cfg.bandit, sizeof(cfg.bandit)) ||
	    learner_forget(&cfg) != learner_forget(&d->cfg) || key_changed) {
		learner_stop(d);
		d->cfg = cfg;
		/* another key names applications anew: --app's model until
		 * the first one is known (with fixed, for good) */
		if (key_changed)
			app_restart(d);
		if (learner_start(d)) {
			d->failed = true;
			stop_sig = 1;
		}
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
	if (d->ml && rcvbuf_changed)
		apply_rcvbuf(d);
	counter_reset(&d->ctr);
	counter_reset(&d->prog);
	d->ctr_warned = d->prog_warned = false;
	/*
	 * What the last link source measured: a source that no longer
	 * measures (netscope -> fixed with [netscope] still on) must not
	 * leave its figures in every later context and status.
	 */
	d->avail_gbps = 0;
	d->ns_far_ns = 0;
	/* one that could not start is tried again: its cause (bpffs not
	 * mounted, an application's cgroup not made yet) may be gone */
	if (ns_changed || (d->cfg.netscope.enable && !d->ns)) {
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

/* How long the loop may wait for telemetry: Netscope's control interval. */
static int wait_ms(const struct daemon *d)
{
	if (d->ns && d->cfg.netscope.interval_ms < WAIT_MS)
		return (int)d->cfg.netscope.interval_ms;
	return WAIT_MS;
}

static int run(struct daemon *d)
{
	const struct modlink_events ev = {
		.epoch = on_epoch, .cands = on_cands, .malformed = on_malformed,
		.arg = d,
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
		if (d->link_err)
			link_close(d, d->link_err);
		if (!d->ml) {
			if (last_try.tv_sec && ms_since(&last_try) < RETRY_MS) {
				usleep(100 * 1000);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &last_try);
			link_try_open(d);
			if (!d->ml)
				write_state(d);
			if (!notified) {
				sd_notify(0, "READY=1\nSTATUS=running");
				notified = true;
			}
			continue;
		}
		ret = modlink_poll(d->ml, &ev, wait_ms(d));
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
			link_close(d, ret);
			continue;
		}
		/* quiet: is the module still there? (an unload is silent) */
		if (ms_since(&d->last_event) >= PROBE_MS) {
			clock_gettime(CLOCK_MONOTONIC, &d->last_event);
			ret = modlink_get_policy(d->ml, &pol, &gen);
			if (ret)
				link_close(d, ret);
			else	/* epochs up to a minute apart: stay fresh */
				write_state(d);
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
	/* not configured (systemd's 6): the unit does not restart on it */
	if (read_config(&d, &d.cfg))
		return 6;
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
	snprintf(d.app_fixed, sizeof(d.app_fixed), "%s", d.app);
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
	executor_hand_back(&d);
	if (d.ml)
		modlink_close(d.ml);
	return d.failed ? 1 : 0;
}
