/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigoctl's commands, one file each group:
 *	ctl_module.c	policy [set], stats, watch: the module over netlink
 *	ctl_status.c	status (module + agent), decisions (debugfs)
 *	ctl_eval.c	eval LOG: off-policy evaluation of a decision log
 * Each returns the process exit status (0, 1 on failure, 2 on bad usage)
 * and prints its own error, naming the command.
 */
#ifndef INDIGO_CTL_H
#define INDIGO_CTL_H

#include <stdbool.h>

#include "modlink.h"

struct ctl {
	bool json;			/* --json */
	const char *status_path;	/* the agent's status file */
	const char *debugfs;		/* where indigo's debugfs files are */
};

/* Prints why @what failed, in words; returns 1. @l may be NULL. */
int ctl_fail(const char *what, int err, const struct modlink *l);

/* Opens the module's netlink family, refusing clearly; 0 or 1. */
int ctl_connect(struct modlink **l);

struct json_object;

/* The module's policy and counters as JSON; NULL with the error printed. */
struct json_object *ctl_policy_json(struct modlink *l);
struct json_object *ctl_stats_json(struct modlink *l);

int ctl_policy(const struct ctl *c, int argc, char **argv);
int ctl_stats(const struct ctl *c);
int ctl_watch(const struct ctl *c, int argc, char **argv);
int ctl_status(const struct ctl *c);
int ctl_decisions(const struct ctl *c, int argc, char **argv);
int ctl_eval(const struct ctl *c, int argc, char **argv);

#endif /* INDIGO_CTL_H */
