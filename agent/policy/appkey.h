/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which application's model indigod uses: one model per application, named
 * by its cgroup (v2 path) or its command name, of the process behind most
 * of the epoch's hot-page candidates. A change of application is followed
 * only after it held for a few epochs, so that a passing process does not
 * make the agent swap models back and forth.
 *
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_APPKEY_H
#define INDIGO_APPKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define APPKEY_MAX	512	/* a key, with its NUL: a Kubernetes pod's
				   container cgroup is some 200 bytes */

/*
 * The key of a process from its /proc/PID/cgroup text: the cgroup v2 line
 * ("0::/system.slice/redis.service") as "system.slice/redis.service", or
 * "root" for "/". -ENOENT when there is no v2 line, -EINVAL when it is
 * malformed, -ENAMETOOLONG when the key does not fit @outlen.
 */
int appkey_from_cgroup(const char *text, char *out, size_t outlen);

/*
 * The key from /proc/PID/comm text: the name without its newline. -EINVAL
 * for an empty name or one with a control character (a newline inside).
 */
int appkey_from_comm(const char *text, char *out, size_t outlen);

/*
 * The key from the /proc/PID/cgroup (@cgroup) or /proc/PID/comm file at
 * @path, read whole: a hybrid host lists its v1 hierarchies before the v2
 * line, and their paths can take more than a page. -errno when the file
 * cannot be read, -EINVAL when it is empty, else as above.
 */
int appkey_from_file(const char *path, bool cgroup, char *out, size_t outlen);

/*
 * The pid seen most often in @pid[0..n) (the lowest on ties; 0 if none).
 * Sorts @pid.
 */
uint32_t appkey_top_pid(uint32_t *pid, size_t n);

struct appkey_switch {
	char cur[APPKEY_MAX];		/* the application now modelled */
	char next[APPKEY_MAX];		/* a different one seen lately */
	unsigned int streak;		/* epochs in a row it was seen */
};

/*
 * One epoch's application @key. True when the agent should switch to it
 * now: it differs from the current one and was seen @hold epochs in a row.
 * On true, sw->cur becomes @key.
 */
bool appkey_observe(struct appkey_switch *sw, const char *key,
		    unsigned int hold);

#endif /* INDIGO_APPKEY_H */
