// SPDX-License-Identifier: GPL-2.0
/* The application a model belongs to (appkey.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkey.h"

static int copy_key(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i;

	if (!len)
		return -EINVAL;
	if (len >= outlen)
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return -EINVAL;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

int appkey_from_cgroup(const char *text, char *out, size_t outlen)
{
	const char *line = text, *end;

	if (!text || !out || !outlen)
		return -EINVAL;
	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (strncmp(line, "0::", 3))
			continue;
		line += 3;
		if (*line != '/')
			return -EINVAL;
		if (end - line == 1)
			return copy_key("root", 4, out, outlen);
		return copy_key(line + 1, end - line - 1, out, outlen);
	}
	return -ENOENT;
}

int appkey_from_comm(const char *text, char *out, size_t outlen)
{
	size_t len;

	if (!text || !out || !outlen)
		return -EINVAL;
	/*
	 * The kernel ends the name with one newline. prctl(PR_SET_NAME) lets
	 * a process put one inside it too: cut there, "redis\nx" would be
	 * taken for redis and share its model; it is refused as any other
	 * control character is.
	 */
	len = strlen(text);
	if (len && text[len - 1] == '\n')
		len--;
	return copy_key(text, len, out, outlen);
}

int appkey_from_file(const char *path, bool cgroup, char *out, size_t outlen)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	char *text = NULL;
	ssize_t n;
	int ret;

	if (!f)
		return -errno;
	/* no NUL in a proc text file: up to the end */
	n = getdelim(&text, &cap, '\0', f);
	ret = n < 0 && ferror(f) ? -EIO : n <= 0 ? -EINVAL : 0;
	fclose(f);
	if (!ret)
		ret = cgroup ? appkey_from_cgroup(text, out, outlen) :
			       appkey_from_comm(text, out, outlen);
	free(text);
	return ret;
}

static int by_pid(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

uint32_t appkey_top_pid(uint32_t *pid, size_t n)
{
	uint32_t best = 0;
	size_t i, run = 0, most = 0;

	qsort(pid, n, sizeof(*pid), by_pid);
	for (i = 0; i < n; i++) {
		run = i && pid[i] == pid[i - 1] ? run + 1 : 1;
		if (run > most) {
			most = run;
			best = pid[i];
		}
	}
	return best;
}

bool appkey_observe(struct appkey_switch *sw, const char *key,
		    unsigned int hold)
{
	if (!strcmp(key, sw->cur)) {
		sw->streak = 0;
		return false;
	}
	if (sw->streak && !strcmp(key, sw->next)) {
		sw->streak++;
	} else {
		snprintf(sw->next, sizeof(sw->next), "%s", key);
		sw->streak = 1;
	}
	if (sw->streak < hold)
		return false;
	snprintf(sw->cur, sizeof(sw->cur), "%s", key);
	sw->streak = 0;
	return true;
}
