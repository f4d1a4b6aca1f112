// SPDX-License-Identifier: GPL-2.0
/*
 * indigod's epoch: each EPOCH message of the module becomes a context
 * (with the link figures and the last action's reward), a decision and a
 * policy for the module, a decision-log record, metrics and the state file
 * for indigoctl. Candidates are counted per process and, with the agent
 * executor, promoted by it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon.h"

void dlog_start(struct daemon *d)
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

void dlog_stop(struct daemon *d)
{
	if (d->dlog)
		dlog_close(d->dlog);
	d->dlog = NULL;
}

/*
 * A metrics file that cannot be written, said once for each path and
 * error (they are written every epoch); a success clears it.
 */
static void metrics_error(const char *path, int err)
{
	static char said_path[CONFIG_PATH_MAX];
	static int said_err;

	if (!err) {
		said_err = 0;
		return;
	}
	if (err == said_err && !strcmp(path, said_path))
		return;
	said_err = err;
	snprintf(said_path, sizeof(said_path), "%s", path);
	logmsg(LOG_WARNING, "metrics %s: %s; not written%s", path, strerror(err),
	       err == EROFS || err == EACCES ?
	       " (as a systemd service the unit writes only under /run/indigo, /var/lib/indigo and /var/log/indigo: add the directory with ReadWritePaths= in a drop-in)" :
	       "");
}

/*
 * Prometheus text format, written whole then renamed into place. Mode 0644
 * whatever the umask (the unit's is 0027): node_exporter's textfile
 * collector runs as a user of its own, and the counters are no secret.
 */
static void write_metrics(const struct daemon *d)
{
	const char *path = d->cfg.agent.metrics_path;
	char tmp[CONFIG_PATH_MAX + 32];
	FILE *f = NULL;
	int fd, err;

	if (!path[0])
		return;
	/* fits: the path is shorter than CONFIG_PATH_MAX */
	status_tmp_name(tmp, sizeof(tmp), path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 && (fchmod(fd, 0644) || !(f = fdopen(fd, "w")))) {
		err = errno;
		close(fd);
		unlink(tmp);
		metrics_error(path, err);
		return;
	}
	if (fd < 0) {
		metrics_error(path, errno);
		return;
	}
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
		"# HELP indigod_decision_log_errors_total Decisions not logged (only the first is in the journal).\n"
		"# TYPE indigod_decision_log_errors_total counter\n"
		"indigod_decision_log_errors_total %" PRIu64 "\n"
		"# HELP indigod_telemetry_malformed_total Telemetry messages that did not parse, skipped (only the first is in the journal).\n"
		"# TYPE indigod_telemetry_malformed_total counter\n"
		"indigod_telemetry_malformed_total %" PRIu64 "\n"
		"# HELP indigod_reward_seconds Reward of the last complete epoch.\n"
		"# TYPE indigod_reward_seconds gauge\n"
		"indigod_reward_seconds %.9g\n"
		"# HELP indigod_learner_updates Learner updates so far.\n"
		"# TYPE indigod_learner_updates gauge\n"
		"indigod_learner_updates %" PRIu64 "\n"
		"# HELP indigod_agent_promoted_pages_total Base pages the agent executor moved near.\n"
		"# TYPE indigod_agent_promoted_pages_total counter\n"
		"indigod_agent_promoted_pages_total %" PRIu64 "\n"
		"# HELP indigod_agent_promote_failed_pages_total Base pages the agent executor asked to move that stayed.\n"
		"# TYPE indigod_agent_promote_failed_pages_total counter\n"
		"indigod_agent_promote_failed_pages_total %" PRIu64 "\n"
		"# HELP indigod_agent_candidates_held_total Candidates the agent executor held back for the free memory floor.\n"
		"# TYPE indigod_agent_candidates_held_total counter\n"
		"indigod_agent_candidates_held_total %" PRIu64 "\n"
		"# HELP indigod_agent_candidates_over_cap_total Candidates the agent executor left for the rate cap.\n"
		"# TYPE indigod_agent_candidates_over_cap_total counter\n"
		"indigod_agent_candidates_over_cap_total %" PRIu64 "\n"
		"# HELP indigod_agent_candidates_dropped_total Candidates beyond the agent executor's buffer.\n"
		"# TYPE indigod_agent_candidates_dropped_total counter\n"
		"indigod_agent_candidates_dropped_total %" PRIu64 "\n",
		d->epochs, d->enobufs, d->reconnects, d->set_errors,
		d->log_errors, d->malformed, d->last_reward,
		d->have_es ? d->es.updates : 0, d->agent_moved,
		d->agent_failed, d->agent_held, d->agent_over_cap,
		d->agent_dropped);
	errno = 0;
	if (fclose(f) || rename(tmp, path)) {
		err = errno ? errno : EIO;
		unlink(tmp);
		metrics_error(path, err);
		return;
	}
	metrics_error(path, 0);
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
				   m->node[i].allowed, m->node[i].allowed_pages,
				   veto, __INDIGO_REASON_MAX);
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
 * since the last epoch, less the @own_pages we promoted in it (the kernel's
 * and the agent executor's); the configured bandwidth is the link's
 * capacity.
 */
static void measure_link(struct daemon *d, uint64_t own_pages)
{
	struct epoch_params p;
	uint64_t now, prev;
	double dt, avail;

	if (d->cfg.link.source == CONFIG_LINK_NETSCOPE && d->ns) {
		if (ns_indigod_link(d->ns, &d->cfg, &d->avail_gbps, &d->ns_far_ns))
			return;		/* not measured yet: the fixed figures */
		epoch_params_from(&d->cfg, &p);
		p.link.bandwidth = cm_gbps_to_bytes_per_s(d->avail_gbps);
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
				       own_pages * (uint64_t)host_page_bytes(),
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

/*
 * Whether the last decision was in force for less than half of epoch @m:
 * epochs queued while the loop was held up (a GPU probe, a long
 * move_pages) are handled back to back, and what each reports, or a
 * counter's growth over the microseconds since the last, is not the doing
 * of the decision the last one took.
 */
static bool decided_just_now(struct daemon *d, const struct modlink_epoch *m)
{
	double now = clock_s(CLOCK_MONOTONIC), last = d->epoch_at;

	d->epoch_at = now;
	return last > 0 && now - last < m->ms / 2000.0;
}

/* What the last action's reward is made of, at epoch @m. */
static void feedback(struct daemon *d, const struct modlink_epoch *m,
		     struct epoch_feedback *fb)
{
	bool brief = decided_just_now(d, m);
	struct exec_totals t;

	memset(fb, 0, sizeof(*fb));
	fb->kind = EPOCH_FB_TELEMETRY;
	if (d->ex) {
		executor_take(d->ex, &t);
		d->agent_moved += t.moved;
		d->agent_failed += t.failed;
		d->agent_held += t.held;
		d->agent_over_cap += t.over_budget;
		d->agent_dropped += t.dropped;
		fb->kind = EPOCH_FB_PROMOTED;
		fb->npromoted = t.moved;
		fb->nmoves = t.moves;
		fb->rate_sum_hz = t.rate_sum_hz;
	}
	if (d->cfg.reward.source == CONFIG_REWARD_PROGRESS)
		read_progress(d, fb);
	/*
	 * An executor switched mid-epoch (a reload): part of the epoch's
	 * promotions were the other one's, which this reward would leave out
	 * or charge as pages left far. Neither learned from nor logged, as
	 * a decision in force for next to no time.
	 */
	if (d->ex_switched || brief)
		fb->kind = EPOCH_FB_NONE;
	d->ex_switched = false;
}

/*
 * How long a promoted page stays local, for the cost-model reward: the
 * configured residence, or (auto) what epoch_residence estimates it from:
 * the local pages in use (@mem, NULL when unread) and the kernel's count
 * of demotions. Pages freed in local memory also leave it, but no counter
 * tells them apart per node; leaving them out errs towards a longer
 * residence, which the estimate's upper bound limits.
 */
static void measure_residence(struct daemon *d, const struct ctx_mem *mem,
			      struct epoch_feedback *fb)
{
	int ret;

	fb->residence = d->cfg.reward.residence;
	if (fb->residence > 0 || !mem)
		return;
	ret = ctx_read_vmstat_demoted(CTX_VMSTAT, &fb->out_total);
	if (ret) {
		if (!d->vmstat_warned)
			logmsg(LOG_INFO, "%s: no demotion counters (%s); reward credits one epoch of residence",
			       CTX_VMSTAT, strerror(-ret));
		d->vmstat_warned = true;
		return;
	}
	fb->have_out = true;
	fb->local_used = (double)(mem->local_total - mem->local_free) * 1024 /
			 host_page_bytes();
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
		.agent_held = d->agent_held,
		.agent_over_cap = d->agent_over_cap,
		.agent_dropped = d->agent_dropped,
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

/* The link's figures: the configured ones, or what was measured. */
static void link_now(const struct daemon *d, struct ctx_link *link)
{
	link->bandwidth_gbps = d->avail_gbps > 0 ? d->avail_gbps :
			       d->cfg.link.bandwidth_gbps;
	link->far_ns = d->ns_far_ns > 0 ? d->ns_far_ns :
		       d->cfg.link.far_latency_ns;
	link->local_ns = d->cfg.link.local_latency_ns;
}

/*
 * Metrics and state file, each epoch (one that fails too), each probe of a
 * quiet module and, without the module (no epochs then), each connection
 * attempt: the file must say so, and stay fresh, for indigoctl status
 * judges the agent gone by its age.
 */
void write_state(const struct daemon *d)
{
	struct ctx_link link;

	link_now(d, &link);
	write_metrics(d);
	write_status(d, &link);
}

void on_epoch(const struct modlink_epoch *m, void *arg)
{
	struct daemon *d = arg;
	struct ctx_link link;
	struct epoch_feedback fb;
	struct ctx_epoch e;
	struct ctx_mem mem;
	struct epoch_out o;
	double x[CTX_DIM];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &d->last_event);
	if (!d->have_es)
		return;
	feedback(d, m, &fb);
	to_ctx_epoch(m, &e);
	measure_link(d, ctx_epoch_pages(&e) + fb.npromoted);
	link_now(d, &link);
	if (d->ex)
		executor_set_far(d->ex, e.far, e.nfar);
	ret = ctx_read_mem(d->sysfs, e.far, e.nfar, &mem);
	if (ret && !d->mem_warned) {
		logmsg(LOG_WARNING, "%s/devices/system/node: %s; memory features are 0",
		       d->sysfs, strerror(-ret));
		d->mem_warned = true;
	}
	measure_residence(d, ret ? NULL : &mem, &fb);
	/* the fill arm's floor is the module's, per target node */
	d->es.p.local_total_kib = ret ? 0 : mem.local_node_min;
	ret = ctx_build(&e, ret ? NULL : &mem, &link, x);
	if (!ret)
		ret = epoch_step_fb(&d->es, &e, &fb, x, now_s(), &o);
	if (ret) {
		logmsg(LOG_ERR, "epoch %" PRIu64 ": %s", e.seq, strerror(-ret));
		write_state(d);
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
	write_state(d);
	follow_app(d);
}

void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg)
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
		pc[i].pages = c[i].pages;
		/* only a model keyed by application needs to know whose */
		if (d->cfg.agent.model_key != CONFIG_MODEL_FIXED &&
		    d->npids < PIDS_MAX)
			d->pids[d->npids++] = c[i].pid;
	}
	if (d->ex)
		executor_add(d->ex, pc, i);
}

/*
 * A message the module's uAPI does not describe: skipped, so that one bad
 * message (a module of another version, another root process on the
 * group) costs neither the batch behind it nor the link.
 */
void on_malformed(void *arg)
{
	struct daemon *d = arg;

	if (!d->malformed++)
		logmsg(LOG_WARNING,
		       "telemetry: a malformed message skipped (does the module match this indigod?); counting the rest");
}

/* Executor "agent": promote what the chosen arm lets through, now. */
void agent_promote(struct daemon *d)
{
	int ret;

	if (!d->ex)
		return;
	if (!d->have_pol || d->pol.mode != ACT_MODE_GATE) {
		executor_clear(d->ex);	/* the arm promotes nothing */
		return;
	}
	ret = executor_run(d->ex, d->pol.rate_min_mhz, d->pol.burst_min_ms,
			   d->pol.free_min_kib, d->pol.rate_cap_pps,
			   d->cfg.agent.epoch_ms / 1000.0, clock_s(CLOCK_MONOTONIC));
	if (ret && ret != d->ex_err)
		logmsg(LOG_WARNING, "move_pages: %s%s", strerror(-ret),
		       ret == -EPERM ? " (needs CAP_SYS_NICE and CAP_SYS_PTRACE)" : "");
	d->ex_err = ret;
}
