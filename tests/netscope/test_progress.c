// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: an application's progress figure (agent/netscope/ns_progress.c)
 * read from a file and from a Unix socket; anything but one non-negative
 * number is refused with -EINVAL, a missing source with its errno, a
 * figure too long to be one with -EOVERFLOW; one that comes in pieces is
 * read whole, within a read's timeout in all.
 */
#include "check_main.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "ns_progress.h"

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/ns-progress.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *file_with(const char *text)
{
	static char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/progress", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(file_number)
{
	double v = -1;

	ck_assert_int_eq(ns_progress_read(file_with("12345\n"), &v), 0);
	ck_assert_double_eq(v, 12345);
	ck_assert_int_eq(ns_progress_read(file_with("  7.5"), &v), 0);
	ck_assert_double_eq(v, 7.5);
}
END_TEST

START_TEST(file_bad)
{
	static const char *const bad[] = { "", "abc", "12abc", "-3", "nan",
					   "inf", "1e999", "5 6" };
	double v = 42;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(ns_progress_read(file_with(bad[i]), &v) == -EINVAL,
			      "accepted \"%s\"", bad[i]);
	ck_assert_double_eq(v, 42);	/* untouched */
	ck_assert_int_eq(ns_progress_read("/nonexistent/progress", &v), -ENOENT);
	ck_assert_int_eq(ns_progress_read("unix:/nonexistent/sock", &v), -ENOENT);
}
END_TEST

static void *serve_once(void *arg)
{
	int fd = accept(*(int *)arg, NULL, NULL);

	if (fd >= 0) {
		ck_assert_int_eq(write(fd, "987\n", 4), 4);
		close(fd);
	}
	return NULL;
}

/* ns_progress_read() of a unix: source that @serve answers: its return,
 * with the figure in *@v and the seconds it took in *@secs */
static int read_served_timed(void *(*serve)(void *), double *v, double *secs)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec t0, t1;
	char src[128];
	pthread_t t;
	int l, ret;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, serve, &l), 0);
	snprintf(src, sizeof(src), "unix:%s", sa.sun_path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ns_progress_read(src, v);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	close(l);
	*secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return ret;
}

/* What ns_progress_read() makes of a socket that @serve answers from. */
static double read_served(void *(*serve)(void *))
{
	double v = 0, secs;

	ck_assert_int_eq(read_served_timed(serve, &v, &secs), 0);
	return v;
}

START_TEST(socket_number)
{
	ck_assert_double_eq(read_served(serve_once), 987);
}
END_TEST

/* what a single read() would cut: a figure past its buffer, or blanks
 * then a second number, must not read as the part that fitted */
START_TEST(file_too_long)
{
	char text[160];
	double v = 42;

	memset(text, ' ', sizeof(text));
	text[0] = '5';
	strcpy(&text[sizeof(text) - 3], "6\n");
	ck_assert_int_eq(ns_progress_read(file_with(text), &v), -EOVERFLOW);
	memset(text, '1', 100);
	text[100] = '\0';
	ck_assert_int_eq(ns_progress_read(file_with(text), &v), -EOVERFLOW);
	ck_assert_double_eq(v, 42);
	/* the longest that fits still reads */
	memset(text, ' ', 63);
	text[62] = '9';
	text[63] = '\0';
	ck_assert_int_eq(ns_progress_read(file_with(text), &v), 0);
	ck_assert_double_eq(v, 9);
}
END_TEST

/* a stream has no message boundaries: a figure written in two pieces */
static void *serve_split(void *arg)
{
	int fd = accept(*(int *)arg, NULL, NULL);

	if (fd >= 0) {
		ck_assert_int_eq(write(fd, "98", 2), 2);
		usleep(20 * 1000);
		/* a reader that stopped at "98" is gone: no SIGPIPE */
		send(fd, "7\n", 2, MSG_NOSIGNAL);
		close(fd);
	}
	return NULL;
}

START_TEST(socket_split)
{
	ck_assert_double_eq(read_served(serve_split), 987);
}
END_TEST

/* a figure sent a byte at a time, slower than a read's timeout adds up */
static void *serve_dribble(void *arg)
{
	int fd = accept(*(int *)arg, NULL, NULL);

	if (fd >= 0) {
		/* until the reader is gone, or the whole of 30 ones */
		for (int i = 0; i < 30; i++) {
			usleep(40 * 1000);
			if (send(fd, "1", 1, MSG_NOSIGNAL) != 1)
				break;
		}
		send(fd, "\n", 1, MSG_NOSIGNAL);
		close(fd);
	}
	return NULL;
}

/* the control loop waits on a slow figure at most a read's timeout, not
 * one for each of its bytes */
START_TEST(socket_dribble_bounded)
{
	double v = 42, secs;

	ck_assert_int_eq(read_served_timed(serve_dribble, &v, &secs), -EAGAIN);
	ck_assert_double_eq(v, 42);
	/* unfixed: 1.2 s, and 30 ones read */
	ck_assert_double_lt(secs, 0.6);
}
END_TEST

static void on_alarm(int sig)
{
	(void)sig;
}

/* an application that stopped accepting, its backlog full: the connect
 * would wait for it as long as it hangs, and the control loop with it */
START_TEST(socket_backlog_full)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no restart */
	struct sockaddr_un sa_un = { .sun_family = AF_UNIX };
	struct timespec t0, t1;
	int l, fds[64], n = 0, ret;
	char src[128];
	double v = 42;

	snprintf(sa_un.sun_path, sizeof(sa_un.sun_path), "%s/sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa_un, sizeof(sa_un)), 0);
	ck_assert_int_eq(listen(l, 0), 0);
	for (;;) {
		ck_assert_int_lt(n, 64);
		fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		ck_assert_int_ge(fds[n], 0);
		if (connect(fds[n], (struct sockaddr *)&sa_un, sizeof(sa_un))) {
			ck_assert_int_eq(errno, EAGAIN);
			close(fds[n]);
			break;
		}
		n++;
	}
	snprintf(src, sizeof(src), "unix:%s", sa_un.sun_path);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	alarm(3);	/* unfixed, it waits until interrupted */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ns_progress_read(src, &v);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	ck_assert_int_eq(ret, -EAGAIN);
	ck_assert_double_lt((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
			    1.5);
	ck_assert_double_eq(v, 42);
	while (n--)
		close(fds[n]);
	close(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_progress");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, file_number);
	tcase_add_test(tc, file_bad);
	tcase_add_test(tc, socket_number);
	tcase_add_test(tc, file_too_long);
	tcase_add_test(tc, socket_split);
	tcase_add_test(tc, socket_backlog_full);
	tcase_add_test(tc, socket_dribble_bounded);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
