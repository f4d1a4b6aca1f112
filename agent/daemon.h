/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigod's state, one struct daemon, and what its files do with it:
 *	indigod.c	main, options, signals, the module link, reload, the loop
 *	learner.c	the learner and its models, per application
 *	telemetry.c	each epoch: context, reward, decision, logs, status
 *	components.c	optional parts: agent executor, GPU tier, Netscope
 * Everything runs on the one thread of the loop in indigod.c.
 */
#ifndef INDIGO_DAEMON_H
#define INDIGO_DAEMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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

#define MAX_SETS		64
#define K_NS			2000.0	/* fixed cost of one migration */
#define APP_HOLD		3	/* epochs before following a new application */
#define PIDS_MAX		65536	/* candidates' pids looked at per epoch */

#define LOG_ERR		3
#define LOG_WARNING	4
#define LOG_NOTICE	5
#define LOG_INFO	6
#define LOG_DEBUG	7


struct daemon {
	const char *conf_path;
	const char *sets[MAX_SETS];
	size_t nsets;
	char app[APPKEY_MAX];		/* whose model is in use */
	char app_fixed[APPKEY_MAX];	/* --app: the one of model_key fixed,
					 * and the first of the others */
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
	uint64_t agent_moved, agent_failed, agent_held;
	uint64_t agent_over_cap, agent_dropped;
	int ex_err;			/* last move_pages error logged */
	bool ex_switched;		/* opened or closed mid-epoch */

	/* reward source "progress" */
	struct counter_src prog;
	bool prog_warned;

	/* agent.model_key cgroup or comm: the candidates' processes */
	uint32_t pids[PIDS_MAX];
	size_t npids;
	bool app_seen;			/* an application was identified */
	bool app_long_warned;		/* a key too long, said once */
	struct appkey_switch sw;
	uint64_t epochs, enobufs, reconnects, set_errors, log_errors;
	uint64_t malformed;		/* telemetry messages skipped */
	int link_err;			/* the link failed: run() closes it */
	bool failed;			/* a part could not go on: exit 1 */
	uint64_t since_save;
	double last_reward;
	struct timespec last_event;
	double epoch_at;		/* the last epoch handled, monotonic s */
	bool mem_warned;
	bool vmstat_warned;		/* no demotion counters, said once */

	/* link source "counter" */
	struct counter_src ctr;
	bool ctr_warned;
	double avail_gbps;		/* 0: not measured, use the capacity */
};


/* Set by SIGTERM, SIGINT, or a part that cannot go on: the loop ends. */
extern volatile sig_atomic_t stop_sig;

/* indigod.c */
void logmsg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double clock_s(clockid_t clk);
double now_s(void);			/* CLOCK_REALTIME, s */
int64_t ms_since(const struct timespec *t);	/* CLOCK_MONOTONIC */
int apply_policy(struct daemon *d);	/* 0, or why the module lacks it */
/*
 * Holds the signals the loop handles off the calling thread, *@old the
 * mask to release them to: threads a library starts meanwhile (the CUDA
 * driver's) take this mask, so never take one, where its handler would
 * run there, cut their calls short (EINTR) and leave the loop to see the
 * flag only at its next timeout. Any that came are taken at the release.
 */
void signals_hold(sigset_t *old);
void signals_release(const sigset_t *old);

/* learner.c */
double host_page_bytes(void);		/* the unit the kernel counts pages in */
void epoch_params_from(const struct indigod_config *c, struct epoch_params *p);
double learner_forget(const struct indigod_config *c);
int learner_start(struct daemon *d);
void model_save(struct daemon *d);
void learner_stop(struct daemon *d);
void follow_app(struct daemon *d);

/* telemetry.c */
void dlog_start(struct daemon *d);
void dlog_stop(struct daemon *d);
void on_epoch(const struct modlink_epoch *m, void *arg);
void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg);
void on_malformed(void *arg);
void write_state(const struct daemon *d);
void agent_promote(struct daemon *d);

/* components.c */
int executor_sync(struct daemon *d);
void executor_hand_back(struct daemon *d);
void gpu_start(struct daemon *d);
void gpu_reprobe(struct daemon *d);
void netscope_start(struct daemon *d);
void netscope_tick(struct daemon *d);

#endif /* INDIGO_DAEMON_H */
