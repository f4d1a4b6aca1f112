// SPDX-License-Identifier: GPL-2.0
/* The host's network namespaces, one after another: see ns_netns.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ns_netns.h"

/* The namespaces met so far, by their nsfs inode. */
struct seen {
	ino_t *ino;
	size_t n, cap;
};

/* Whether @ino is new, noting it; -ENOMEM where it cannot be noted. */
static int seen_add(struct seen *s, ino_t ino)
{
	ino_t *more;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return 0;
	if (s->n == s->cap) {
		more = realloc(s->ino, (s->cap ? s->cap * 2 : 64) * sizeof(*more));
		if (!more)
			return -ENOMEM;
		s->ino = more;
		s->cap = s->cap ? s->cap * 2 : 64;
	}
	s->ino[s->n++] = ino;
	return 1;
}

struct walk {
	struct seen seen;
	int (*fn)(void *arg);
	void *arg;
	unsigned int skipped;
	int ret;		/* the first error */
};

/* @fn in the namespace at @path, if not met already; @enter: not the
 * thread's own (which a unit that allows no other may enter too). */
static void visit(struct walk *w, const char *path, bool enter)
{
	struct stat st;
	int fd, ret;

	/* a process gone meanwhile has none */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ret = fstat(fd, &st) ? -errno : seen_add(&w->seen, st.st_ino);
	if (ret == 1 && enter && setns(fd, CLONE_NEWNET)) {
		w->skipped++;
		ret = 0;
	}
	close(fd);
	if (ret == 1)
		ret = w->fn(w->arg);
	if (ret < 0 && !w->ret)
		w->ret = ret;
}

/* Each entry of @dir that @want takes, as @fmt names its namespace. */
static void visit_dir(struct walk *w, const char *dir, const char *fmt,
		      bool (*want)(const char *name))
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (want(e->d_name) &&
		    (size_t)snprintf(path, sizeof(path), fmt, dir, e->d_name) <
		    sizeof(path))
			visit(w, path, true);
	}
	closedir(d);
}

static bool is_pid(const char *name)
{
	return isdigit((unsigned char)name[0]);
}

static bool is_named(const char *name)
{
	return name[0] != '.';
}

static void *walk(void *arg)
{
	struct walk *w = arg;

	visit(w, "/proc/thread-self/ns/net", false);
	visit_dir(w, "/proc", "%s/%s/ns/net", is_pid);
	visit_dir(w, "/run/netns", "%s/%s", is_named);
	return NULL;
}

int ns_netns_each(int (*fn)(void *arg), void *arg, unsigned int *skipped)
{
	struct walk w = { .fn = fn, .arg = arg };
	pthread_t t;
	int ret;

	ret = pthread_create(&t, NULL, walk, &w);
	if (ret)
		return -ret;
	pthread_join(t, NULL);
	free(w.seen.ino);
	*skipped = w.skipped;
	return w.ret;
}
