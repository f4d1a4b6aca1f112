// SPDX-License-Identifier: GPL-2.0
/* An application's progress figure from a file or socket: see ns_progress.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ns_progress.h"

#define NS_PROGRESS_TMO_MS	100	/* the most a socket's figure takes */

/* The socket's path of a "unix:" source, or NULL for a file. */
static const char *sock_path(const char *source)
{
	return strncmp(source, "unix:", 5) ? NULL : source + 5;
}

static int open_source(const char *source)
{
	static const struct timeval tmo = { .tv_usec = NS_PROGRESS_TMO_MS * 1000 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = sock_path(source);
	int fd;

	if (!path) {
		fd = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		return fd < 0 ? -errno : fd;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a figure that is slow to come would stall the control loop; so
	 * would a connect to an application that stopped accepting, once
	 * its backlog is full (a Unix connect waits as long as SO_SNDTIMEO) */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The whole figure: a stream has no message boundaries (a figure written in
 * two pieces would read as its first), so a socket's is read up to its
 * newline or end, a file's to its end. Less than @len bytes, or -EOVERFLOW:
 * a prefix of more would read as another number.
 */
static ssize_t read_whole(int fd, bool sock, char *buf, size_t len)
{
	struct timespec t0, t;
	size_t got = 0;
	ssize_t n;
	long left;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* SO_RCVTIMEO bounds each read, not the figure: one sent a
		 * byte at a time held the loop up to 63 times as long */
		if (sock) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			clock_gettime(CLOCK_MONOTONIC, &t);
			left = NS_PROGRESS_TMO_MS - (t.tv_sec - t0.tv_sec) * 1000 -
			       (t.tv_nsec - t0.tv_nsec) / 1000000;
			if (left <= 0)
				return -EAGAIN;
			ret = poll(&p, 1, left);
			if (ret < 0 && errno == EINTR)
				continue;
			if (ret < 0)
				return -errno;
			if (!ret)
				return -EAGAIN;
		}
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += n;
		if (got == len)
			return -EOVERFLOW;
		if (!n || (sock && buf[got - 1] == '\n'))
			return got;
	}
}

int ns_progress_read(const char *source, double *units)
{
	char buf[64], *end;
	ssize_t n;
	double v;
	int fd;

	fd = open_source(source);
	if (fd < 0)
		return fd;
	n = read_whole(fd, sock_path(source), buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end == buf || errno || !isfinite(v) || v < 0 ||
	    end[strspn(end, " \t\r\n")])
		return -EINVAL;
	*units = v;
	return 0;
}
