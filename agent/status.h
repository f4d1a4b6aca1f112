/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigod's state for `indigoctl status`: one JSON object, rewritten whole
 * (temporary file, then rename) every epoch, and every connection attempt
 * while the module is away, at agent.status_path, so a
 * reader never sees half of it. The keys are documented in indigoctl(8).
 */
#ifndef INDIGO_STATUS_H
#define INDIGO_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actions.h"

struct json_object;

struct status_info {
	const char *app, *learner, *executor, *link_source, *reward_source;
	bool connected;			/* to the module */
	uint64_t epochs, enobufs, reconnects, updates;
	bool have_pol;
	struct act_policy pol;		/* the arm's policy, as chosen */
	unsigned int arm;
	const char *by;
	double propensity, reward;
	double bandwidth_gbps, far_ns, local_ns;
	/* executor "agent", totals: base pages moved and failed,
	 * candidates held for the floor, left for the rate cap, dropped
	 * beyond its buffer */
	uint64_t agent_moved, agent_failed, agent_held;
	uint64_t agent_over_cap, agent_dropped;
	struct json_object *extra;	/* more members (may be NULL; not freed) */
};

/*
 * The temporary name to write @path under before renaming it into place,
 * "PATH.tmp.PID", into @buf of @n bytes: another indigod writing the same
 * file (a test run beside the service) has its own, so neither renames the
 * other's half-written file into place. 0 or -ENAMETOOLONG.
 */
int status_tmp_name(char *buf, size_t n, const char *path);

/* 0 or a negative errno; nothing is left behind on failure. */
int status_write(const char *path, const struct status_info *s);

#endif /* INDIGO_STATUS_H */
