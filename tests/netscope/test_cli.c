// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: indigo-netscope's arguments (agent/netscope/main.c), parsed
 * without starting anything (the agent is stubbed here). A cgroup,
 * progress source or congestion control too long to be kept is refused,
 * not cut short into the name of another. And its signals: SIGHUP stops it
 * as SIGTERM does, and a closed output pipe does not kill it.
 */
#include "check_main.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* the code under test, for its static parse_args() */
#define main netscope_main
#include "../../agent/netscope/main.c"
#undef main

#pragma GCC diagnostic ignored "-Wunused-parameter"

void ns_agent_defaults(struct ns_agent_opts *o, double capacity_mbit)
{
	memset(o, 0, sizeof(*o));
}

static int start_ret = -ENOSYS;	/* what the agent's start returns */
static int ticks;		/* intervals the loop ran */
static bool stopped;		/* whether it was stopped */
static bool started;		/* whether main() started it */
static void (*on_tick)(void);	/* what happens at each interval */

int ns_agent_start(struct ns_agent **out, const struct ns_agent_opts *o,
		   const char **why)
{
	*out = NULL;
	*why = "stub";
	started = true;
	return start_ret;
}

int ns_agent_tick(struct ns_agent *a, const char **why)
{
	ticks++;
	if (on_tick)
		on_tick();
	*why = "stub";
	return ticks == 1 ? -EIO : 0;	/* a line on stderr */
}

int ns_agent_cc_status(const struct ns_agent *a)
{
	return 0;
}

bool ns_agent_cc_replaced(const struct ns_agent *a)
{
	return false;
}

bool ns_agent_adopt_say(const struct ns_agent *a, char *buf, size_t len)
{
	buf[0] = '\0';
	return false;
}

void ns_agent_stop(struct ns_agent *a)
{
	stopped = true;
}

int ns_peers_add(struct ns_peers *peers, const char *list, char *err,
		 size_t errlen)
{
	return 0;
}

static int root_ret;	/* what finding the cgroup v2 mount returns */

int ns_cgroup_root(char *buf, size_t len)
{
	snprintf(buf, len, "/sys/fs/cgroup");
	return root_ret;
}

static struct ns_agent_opts opts;

/* parse_args() on "indigo-netscope @a @b" */
static int parse2(const char *a, const char *b)
{
	static char arg0[] = "indigo-netscope", x[1024], y[1024];
	char *argv[] = { arg0, x, y, NULL };

	snprintf(x, sizeof(x), "%s", a);
	snprintf(y, sizeof(y), "%s", b);
	memset(&opts, 0, sizeof(opts));
	optind = 0;	/* getopt starts over */
	opterr = 0;
	return parse_args(3, argv, &opts);
}

/* parse_args() on "indigo-netscope @a @b @c @d" */
static int parse4(const char *a, const char *b, const char *c, const char *d)
{
	static char arg0[] = "indigo-netscope", x[4][64];
	char *argv[] = { arg0, x[0], x[1], x[2], x[3], NULL };

	snprintf(x[0], sizeof(x[0]), "%s", a);
	snprintf(x[1], sizeof(x[1]), "%s", b);
	snprintf(x[2], sizeof(x[2]), "%s", c);
	snprintf(x[3], sizeof(x[3]), "%s", d);
	memset(&opts, 0, sizeof(opts));
	optind = 0;
	opterr = 0;
	return parse_args(5, argv, &opts);
}

/* a sensitive app's floor within the link's capacity, in either order */
START_TEST(floor_above_capacity_refused)
{
	ck_assert_int_eq(parse4("--capacity-mbit", "100", "--floor-mbit", "100"), 0);
	ck_assert(opts.params.rate.floor_Bps == 100e6 / 8);
	ck_assert_int_eq(parse4("--floor-mbit", "30", "--capacity-mbit", "100"), 0);
	ck_assert(opts.params.rate.floor_Bps == 30e6 / 8);
	ck_assert_int_ne(parse4("--capacity-mbit", "100", "--floor-mbit", "200"), 0);
	ck_assert_int_ne(parse4("--floor-mbit", "200", "--capacity-mbit", "100"), 0);
}
END_TEST

/* as indigod's netscope.apps: "DIR=" names no figure, and is refused */
START_TEST(app_with_empty_figure_refused)
{
	ck_assert_int_ne(parse2("--app", "/sys/fs/cgroup/db="), 0);
	ck_assert_int_eq(parse2("--app", "/sys/fs/cgroup/db"), 0);
}
END_TEST

START_TEST(names_that_fit)
{
	char path[NS_SRC_MAX];

	ck_assert_int_eq(parse2("--app", "/sys/fs/cgroup/db=/run/db.progress"), 0);
	ck_assert_str_eq(opts.apps[0].cgroup, "/sys/fs/cgroup/db");
	ck_assert_str_eq(opts.apps[0].progress, "/run/db.progress");
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	ck_assert_int_eq(parse2("--app", path), 0);
	ck_assert_str_eq(opts.apps[0].cgroup, path);
	ck_assert_int_eq(parse2("--cc", "bbr"), 0);
	ck_assert_str_eq(opts.cc, "bbr");
}
END_TEST

START_TEST(names_too_long_refused)
{
	char path[NS_SRC_MAX + 40], arg[2 * NS_SRC_MAX + 80];

	/* cut at NS_SRC_MAX it would be the cgroup root's directory */
	memset(path, '/', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	memcpy(path, "/sys/fs/cgroup", 14);
	memcpy(&path[sizeof(path) - 4], "db", 2);
	ck_assert_int_ne(parse2("--app", path), 0);
	snprintf(arg, sizeof(arg), "/sys/fs/cgroup/db=%s", path);
	ck_assert_int_ne(parse2("--app", arg), 0);
	/* TCP_CA_NAME_MAX: cut, it would name another congestion control */
	ck_assert_int_ne(parse2("--cc", "netscope-with-a-long-name"), 0);
}
END_TEST

/*
 * indigo-netscope's main() with @hup its SIGHUP at start, its output to
 * /dev/null or (@closed) a pipe nobody reads: the intervals it ran, once
 * it returned 0 having stopped the agent. A signal that kills it kills the
 * test (Check reports it).
 */
static int run_main(void (*tick)(void), void (*hup)(int), bool closed)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGTERM, SIGPIPE };
	static char arg0[] = "indigo-netscope";
	char *argv[] = { arg0, NULL };
	int out, err, fd, p[2], ret;
	unsigned int i;

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	fd = p[1];
	if (!closed) {
		close(fd);
		fd = open("/dev/null", O_WRONLY);
	}
	fflush(stdout);
	fflush(stderr);
	out = dup(STDOUT_FILENO);
	err = dup(STDERR_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	signal(SIGHUP, hup);
	start_ret = 0;
	on_tick = tick;
	ticks = 0;
	stopped = false;
	stop = 0;
	optind = 0;
	ret = netscope_main(1, argv);
	fflush(stdout);	/* its lines go where it wrote them */
	clearerr(stdout);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	ck_assert_int_eq(ret, 0);
	ck_assert(stopped);
	return ticks;
}

static void hangup_then_term(void)
{
	if (ticks == 2)
		raise(SIGHUP);
	if (ticks == 4)
		raise(SIGTERM);
}

/* its terminal gone: stopped as by SIGTERM (detached, the CC unregistered),
 * where it was killed with them left behind */
START_TEST(sighup_stops_cleanly)
{
	ck_assert_int_eq(run_main(hangup_then_term, SIG_DFL, false), 2);
}
END_TEST

/* under nohup it runs on */
START_TEST(sighup_ignored_under_nohup)
{
	ck_assert_int_eq(run_main(hangup_then_term, SIG_IGN, false), 4);
}
END_TEST

static void term_at_third(void)
{
	if (ticks == 3)
		raise(SIGTERM);
}

/* SIGTERM blocked by its parent: unblocked, it still stops it cleanly,
 * where it stayed pending and only SIGKILL could stop it */
START_TEST(term_blocked_by_parent_still_stops)
{
	sigset_t term, old;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &term, &old), 0);
	ck_assert_int_eq(run_main(term_at_third, SIG_DFL, false), 3);
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, &old, NULL), 0);
}
END_TEST

/* a reader of its output gone (indigo-netscope | tee, a closed log pipe):
 * its lines are lost, the controller runs on and stops cleanly */
START_TEST(closed_output_pipe_not_fatal)
{
	ck_assert_int_eq(run_main(term_at_third, SIG_DFL, true), 3);
}
END_TEST

/* no cgroup v2 mounted and none named: the arguments were right, so not
 * the usage and its exit code 2, but why, and 1 as for any failure to
 * start; nothing is started */
START_TEST(no_cgroup2_mount_is_said)
{
	static char arg0[] = "indigo-netscope";
	char *argv[] = { arg0, NULL };
	char line[256] = "";
	int err, p[2], ret;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	fflush(stderr);
	err = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	root_ret = -ENOENT;
	started = false;
	optind = 0;
	ret = netscope_main(1, argv);
	root_ret = 0;
	fflush(stderr);
	dup2(err, STDERR_FILENO);
	close(err);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strstr(line, "no cgroup v2 mount"), "stderr: %s", line);
	ck_assert_int_eq(ret, 1);
	ck_assert(!started);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_cli");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_that_fit);
	tcase_add_test(tc, names_too_long_refused);
	tcase_add_test(tc, floor_above_capacity_refused);
	tcase_add_test(tc, app_with_empty_figure_refused);
	tcase_add_test(tc, sighup_stops_cleanly);
	tcase_add_test(tc, term_blocked_by_parent_still_stops);
	tcase_add_test(tc, sighup_ignored_under_nohup);
	tcase_add_test(tc, closed_output_pipe_not_fatal);
	tcase_add_test(tc, no_cgroup2_mount_is_said);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
