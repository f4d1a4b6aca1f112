/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigod's configuration: /etc/indigo/indigod.conf (INI, read with inih)
 * plus command-line overrides "section.key=value".
 *
 * Every key has a default, so an empty file is a valid configuration; every
 * value is checked (type, range, choice). A file is applied whole or not at
 * all: on any error the caller's configuration is left untouched and the
 * caller's buffer holds one line, "FILE:LINE: KEY: what is wrong", e.g.
 *
 *	indigod.conf:12: epoch_ms: 0 is out of range 10-60000
 *
 * Errors: unknown section or key, a key outside any section, a key given
 * twice, an unparsable or out-of-range value, an indented line (inih would
 * join it to the previous value; indigod has no multi-line values), a line
 * longer than inih's limit, a syntax error, and the cross-key checks
 * (far_latency_ns above local_latency_ns; counter_path for source=counter;
 * progress_path for reward source=progress).
 * The first error in file order is the one reported.
 *
 * Numbers are parsed in the C locale's format (indigod does not call
 * setlocale), decimal only; ';' starts an inline comment, '#' does not.
 */
#ifndef INDIGO_CONFIG_H
#define INDIGO_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"	/* [gpu]: struct gpu_config, checked by agent/gpu/ */
#include "ns_peers.h"	/* [netscope] host_peers, parsed by agent/netscope/ */

#define GPU_KEYS	8	/* keys of [gpu] (gpu_config_set), all in the example */

#define CONFIG_DEFAULT_PATH	"/etc/indigo/indigod.conf"
#define CONFIG_PATH_MAX		256	/* bytes of a path value, with NUL */
#define CONFIG_FILE_MAX		65536	/* a larger file is refused */
#define CONFIG_NS_APPS_MAX	16	/* [netscope] apps: ns_agent.h's NS_APPS_MAX */

enum config_learner {
	CONFIG_LEARNER_LINUCB,
	CONFIG_LEARNER_THOMPSON,
	CONFIG_LEARNER_HEURISTIC,
};

enum config_executor {
	CONFIG_EXECUTOR_KERNEL,	/* the module's gate applies the thresholds */
	CONFIG_EXECUTOR_AGENT,	/* the agent migrates pages itself */
};

enum config_link_source {
	CONFIG_LINK_FIXED,	/* the figures below, as configured */
	CONFIG_LINK_COUNTER,	/* live bandwidth from counter_path */
	CONFIG_LINK_NETSCOPE,	/* live figures from the netscope programs */
	CONFIG_LINK_GPU,	/* the probed host<-GPU link (agent/gpu/) */
};

/* Which application's model the agent uses. */
enum config_model_key {
	CONFIG_MODEL_FIXED,	/* the one named by --app ("default") */
	CONFIG_MODEL_CGROUP,	/* the cgroup of the hottest process */
	CONFIG_MODEL_COMM,	/* its command name */
};

enum config_reward {
	CONFIG_REWARD_COSTMODEL,	/* stall time saved minus transfer cost */
	CONFIG_REWARD_PROGRESS,		/* the application's own progress */
};

enum config_ns_cc {		/* the CC Netscope gives controlled apps */
	CONFIG_NS_CC_NETSCOPE,
	CONFIG_NS_CC_CUBIC,
	CONFIG_NS_CC_BBR,
	CONFIG_NS_CC_RENO,
	CONFIG_NS_CC_KEEP,		/* leave each flow's own */
};

/* Plain data: copy it by assignment. Paths are "" when switched off. */
struct indigod_config {
	struct {
		uint32_t epoch_ms;		/* 10-60000, 1000 */
		int learner;			/* enum config_learner */
		int executor;			/* enum config_executor */
		char state_dir[CONFIG_PATH_MAX];
		char log_path[CONFIG_PATH_MAX];
		uint64_t log_max_bytes;		/* decision log rotation size */
		char metrics_path[CONFIG_PATH_MAX];
		char status_path[CONFIG_PATH_MAX];	/* for indigoctl */
		int model_key;			/* enum config_model_key */
		uint32_t netlink_rcvbuf;	/* telemetry socket, bytes */
	} agent;
	struct {
		int source;			/* enum config_link_source */
		double bandwidth_gbps;		/* available, Gb/s */
		double far_latency_ns;
		double local_latency_ns;
		char counter_path[CONFIG_PATH_MAX];
	} link;
	struct {
		double alpha;			/* LinUCB exploration */
		double lambda;			/* ridge prior, A = lambda * I */
		double v;			/* Thompson posterior scale */
		uint64_t seed;			/* 0: the agent picks one */
		uint32_t rebuild_every;		/* updates between rebuilds */
		double forget;			/* kept per update; 0: auto */
		uint32_t warmup;		/* updates before it decides */
	} bandit;
	struct {
		double rate_cap_share;		/* (0, 1] of the bandwidth */
		uint64_t free_min_kib;
		double fill_share;		/* (0, 0.5] of local memory */
	} policy;
	struct {
		int source;			/* enum config_reward */
		char progress_path[CONFIG_PATH_MAX];	/* a counter */
		double progress_scale;		/* progress/s worth 1; 0: auto */
		double residence;		/* epochs, 1-64; 0: auto */
	} reward;
	struct {			/* see agent/netscope/ns_indigod.h */
		int enable;			/* 0: off, 1: on */
		char cgroup[CONFIG_PATH_MAX];	/* attach point, "": the root */
		char apps[CONFIG_PATH_MAX];	/* "DIR[=PROGRESS] ..." */
		double capacity_mbit;		/* the link's capacity */
		double floor_mbit;		/* least rate of a sensitive app */
		uint32_t interval_ms;		/* control interval */
		int cc;				/* enum config_ns_cc */
		int loopback;			/* 1: also flows on the host */
		struct ns_peers host_peers;	/* peers on the host */
	} netscope;
	struct gpu_config gpu;		/* [gpu], see agent/gpu/gpu.h */
};

/* Fills @cfg with every default. */
void config_defaults(struct indigod_config *cfg);

/*
 * Parses @text (NUL-terminated INI) over the defaults into @cfg. @name is
 * the file name used in messages. 0 or -EINVAL; on error @cfg is untouched
 * and @err (if not NULL) holds the message.
 */
int config_parse_string(struct indigod_config *cfg, const char *text,
			const char *name, char *err, size_t errlen);

/*
 * Reads and parses the file at @path as config_parse_string() does, naming
 * it @path in messages. -errno when it cannot be read (-ENOENT: missing,
 * which a caller may treat as "all defaults"), -EFBIG beyond
 * CONFIG_FILE_MAX, -EINVAL when it is not valid.
 */
int config_load(struct indigod_config *cfg, const char *path, char *err,
		size_t errlen);

/*
 * Applies @n command-line overrides "section.key=value" (as given to
 * --set) to @cfg, with the file's validation; all or none, and a key may
 * appear only once. Messages read "--set agent.epoch_ms: 0 is out of
 * range 10-60000". 0 or -EINVAL.
 */
int config_apply_overrides(struct indigod_config *cfg,
			   const char *const *sets, size_t n, char *err,
			   size_t errlen);

/* How many keys there are, in every section (each is in the example). */
size_t config_key_count(void);
/*
 * [netscope] apps, "DIR[=PROGRESS] ...": each DIR absolute and named once,
 * a PROGRESS not empty, at most CONFIG_NS_APPS_MAX of them. 0, or -EINVAL
 * or -E2BIG with @why saying what is wrong.
 */
int config_ns_apps_check(const char *list, char *why, size_t len);

/* Names of the enum values, for logs: "linucb", "kernel", "fixed", ... */
const char *config_learner_name(int learner);
const char *config_executor_name(int executor);
const char *config_link_source_name(int source);

#endif /* INDIGO_CONFIG_H */
