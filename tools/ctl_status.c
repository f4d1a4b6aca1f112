// SPDX-License-Identifier: GPL-2.0
/*
 * indigoctl status: the module (netlink) and the agent (its status file)
 * side by side; indigoctl decisions: the module's latest gate decisions
 * (debugfs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "ctl_out.h"
#include "num.h"

#define DECISIONS_DEFAULT	20
#define LINE_MAX_		512

static struct json_object *module_json(void)
{
	struct json_object *o = json_object_new_object(), *v;
	struct modlink *l;
	int err;

	if (!o)
		return NULL;
	err = modlink_open(&l);
	ctl_add(o, "loaded", json_object_new_boolean(!err));
	if (err) {
		if (err != -ENOENT)
			ctl_add_str(o, "error", strerror(-err));
		return o;
	}
	v = ctl_policy_json(l);
	if (v)
		ctl_add(o, "policy", v);
	v = ctl_stats_json(l);
	if (v)
		ctl_add(o, "stats", v);
	modlink_close(l);
	return o;
}

/* No status to show: the agent is not running, for @why. */
static struct json_object *agent_absent(const char *path, const char *why)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		ctl_add(o, "running", json_object_new_boolean(0));
		ctl_add_str(o, "status_file", path);
		ctl_add_str(o, "error", why);
	}
	return o;
}

/* The agent's own status file, with its age; "running" says if it is fresh. */
static struct json_object *agent_json(const char *path)
{
	struct json_object *o;
	struct stat st;
	double age;

	if (stat(path, &st))
		return agent_absent(path, strerror(errno));
	o = json_object_from_file(path);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return agent_absent(path, "status file is not a JSON object");
	}
	age = difftime(time(NULL), st.st_mtime);
	/* the agent rewrites it every epoch; a minute of silence means gone */
	ctl_add(o, "running", json_object_new_boolean(age < 60));
	ctl_add(o, "status_age_s", json_object_new_double(age));
	return o;
}

int ctl_status(const struct ctl *c)
{
	struct json_object *o = json_object_new_object();
	int rc;

	if (!o)
		return 1;
	ctl_add(o, "module", module_json());
	ctl_add(o, "agent", agent_json(c->status_path));
	rc = ctl_print(o, c->json);
	json_object_put(o);
	return rc;
}

/* "a b c" into at most @max words (in place); returns how many. */
static int split(char *s, char **w, int max)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \n", &save); t && n < max;
	     t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	return n;
}

/* A column's value: its number where it is a decimal one, as in stats. */
static struct json_object *decision_value(const char *s)
{
	const char *d = s + (*s == '-');
	char *end;

	if (*d >= '0' && *d <= '9') {
		errno = 0;
		if (*s == '-') {
			long long v = strtoll(s, &end, 10);

			if (!errno && !*end)
				return json_object_new_int64(v);
		} else {
			unsigned long long v = strtoull(s, &end, 10);

			if (!errno && !*end)
				return json_object_new_uint64(v);
		}
	}
	return json_object_new_string(s);	/* addr (hex), verdict, reason */
}

static int decisions_fail(const char *path, int err)
{
	if (err == ENOENT && access("/sys/module/indigo", F_OK))
		fprintf(stderr, "indigoctl: decisions: the indigo module is not loaded\n");
	else if (err == ENOENT)
		fprintf(stderr, "indigoctl: decisions: %s: not found (is debugfs mounted? mount -t debugfs none /sys/kernel/debug)\n",
			path);
	else
		fprintf(stderr, "indigoctl: decisions: %s: %s%s\n", path,
			strerror(err), err == EACCES ? " (run as root)" : "");
	return 1;
}

int ctl_decisions(const struct ctl *c, int argc, char **argv)
{
	char path[512], line[LINE_MAX_], head[LINE_MAX_], *col[16], *val[16];
	struct json_object *o, *rows;
	uint64_t want = DECISIONS_DEFAULT;
	int ncol = 0, i, rc, err;
	size_t n, skip;
	FILE *f;

	if (argc > 1 || (argc == 1 && (num_u64(argv[0], UINT64_MAX, &want) || !want))) {
		fprintf(stderr, "indigoctl: usage: decisions [N] (the last N, default %d)\n",
			DECISIONS_DEFAULT);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/decisions", c->debugfs);
	f = fopen(path, "r");
	if (!f)
		return decisions_fail(path, errno);
	rows = json_object_new_array();
	errno = 0;
	if (rows && fgets(head, sizeof(head), f))
		ncol = split(head, col, 16);
	while (rows && ncol && fgets(line, sizeof(line), f)) {
		if (split(line, val, 16) != ncol)
			continue;	/* not a decision line */
		o = json_object_new_object();
		for (i = 0; o && i < ncol; i++)
			ctl_add(o, col[i], decision_value(val[i]));
		if (o && json_object_array_add(rows, o))
			json_object_put(o);
	}
	/* the module's read failing (-ENOMEM for its copy) is no "shown 0" */
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (!rows)
		return 1;
	if (err) {
		json_object_put(rows);
		return decisions_fail(path, err);
	}
	/* the ring is oldest first: keep the newest @want */
	n = json_object_array_length(rows);
	skip = n > want ? n - want : 0;
	if (skip)
		json_object_array_del_idx(rows, 0, skip);
	o = json_object_new_object();
	if (!o) {
		json_object_put(rows);
		return 1;
	}
	ctl_add_u64(o, "shown", json_object_array_length(rows));
	ctl_add(o, "decisions", rows);
	rc = ctl_print(o, c->json);
	json_object_put(o);
	return rc;
}
