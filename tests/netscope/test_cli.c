// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: indigo-netscope's arguments (agent/netscope/main.c), parsed
 * without starting anything (the agent is stubbed here). A cgroup,
 * progress source or congestion control too long to be kept is refused,
 * not cut short into the name of another.
 */
#include "check_main.h"
#include <errno.h>
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

int ns_agent_start(struct ns_agent **out, const struct ns_agent_opts *o,
		   const char **why)
{
	return -ENOSYS;
}

int ns_agent_tick(struct ns_agent *a, const char **why)
{
	return 0;
}

int ns_agent_cc_status(const struct ns_agent *a)
{
	return 0;
}

bool ns_agent_cc_replaced(const struct ns_agent *a)
{
	return false;
}

void ns_agent_stop(struct ns_agent *a)
{
}

int ns_peers_add(struct ns_peers *peers, const char *list, char *err,
		 size_t errlen)
{
	return 0;
}

int ns_cgroup_root(char *buf, size_t len)
{
	snprintf(buf, len, "/sys/fs/cgroup");
	return 0;
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

int main(void)
{
	Suite *s = suite_create("ns_cli");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_that_fit);
	tcase_add_test(tc, names_too_long_refused);
	tcase_add_test(tc, floor_above_capacity_refused);
	tcase_add_test(tc, app_with_empty_figure_refused);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
