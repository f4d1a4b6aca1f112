// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Netscope's controller loop per application
 * (agent/netscope/ns_agent.c), on maps and a loader stubbed here. An
 * interval whose progress figure cannot be read is still an interval: its
 * rate loop runs, and neither it nor the next one is read as one interval
 * of what two intervals did.
 */
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the code under test, for its static functions */
#include "../../agent/netscope/ns_agent.c"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* the one cgroup's counters, and what the controller wrote */
static struct ns_cg_stats stats;
static int stats_err;		/* what ns_stats_get() fails with, 0: none */
static unsigned int ctrl_puts;
static struct ns_ctrl ctrl_last;	/* what the last put wrote */
static int keys_err;		/* what ns_stats_keys() fails with, 0: none */
static int keys_n = 1;		/* how many cgroups ns_cg_stats holds */
static uint64_t gone_key;	/* a cgroup that is gone, 0: none */
static uint64_t path_id = 1;	/* the cgroup the application's path names */
static uint64_t forgot, released;	/* the last ones dropped, released */

int ns_stats_get(const struct ns_maps *m, uint64_t cgid, struct ns_cg_stats *s)
{
	if (stats_err)
		return stats_err;
	*s = stats;
	return 0;
}

/* the one cgroup's ns_policy entry, which another writer may hold locked */
static struct ns_policy policy;
static bool have_policy, policy_locked;
static int policy_wait_ms = -1;	/* what the last update would wait */

int ns_policy_update(const struct ns_maps *m, uint64_t cgid, ns_policy_fn fn,
		     void *arg, int wait_ms)
{
	struct ns_policy p = have_policy ? policy : (struct ns_policy){ 0 };
	int ret;

	policy_wait_ms = wait_ms;
	if (policy_locked)
		return -EWOULDBLOCK;
	ret = fn(&p, have_policy ? &policy : NULL, arg);
	if (ret > 0) {
		p.gen = policy.gen + 1;
		policy = p;
		have_policy = true;
	}
	return ret;
}

int ns_ctrl_put(const struct ns_maps *m, uint64_t cgid, const struct ns_ctrl *c)
{
	ctrl_puts++;
	ctrl_last = *c;
	return 0;
}

int ns_policy_release(const struct ns_maps *m, uint32_t owner)
{
	return 0;
}

int ns_policy_release_one(const struct ns_maps *m, uint64_t cgid,
			  uint32_t owner)
{
	released = cgid;
	return 0;
}

int ns_link_view_put(const struct ns_maps *m, const struct ns_link_view *v)
{
	return 0;
}

void ns_maps_forget(const struct ns_maps *m, uint64_t cgid)
{
	forgot = cgid;
}

int ns_stats_keys(const struct ns_maps *m, uint64_t *keys)
{
	int i;

	if (keys_err)
		return keys_err;
	for (i = 0; i < keys_n; i++)
		keys[i] = i + 1;
	return keys_n;
}

/* the one cgroup with an ns_policy entry, the one with an ns_ctrl entry
 * (0: none), where the maps are fds 3 and 4 */
static uint64_t policy_key, ctrl_key;

int ns_map_keys(int fd, uint64_t *keys)
{
	uint64_t key = fd == 3 ? policy_key : fd == 4 ? ctrl_key : 0;

	keys[0] = key;
	return !!key;
}

/* a directory that is not on cgroup v2 (a hybrid host's tmpfs root) */
#define NOT_CGROUP2	"/sys/fs/cgroup"

int ns_cgroup_id(const char *path, uint64_t *id)
{
	if (!strcmp(path, NOT_CGROUP2))
		return -EMEDIUMTYPE;
	*id = path_id;
	return 0;
}

int ns_cgroup_alive(int rootfd, uint64_t id)
{
	return id != gone_key;
}

/* the applications' cgroups the loader was given, and ns_apps' moves */
static struct ns_load_opts loaded;
static uint64_t moved_from, moved_to;
static unsigned int moves;
static int move_err;		/* what a move fails with, 0: none */

int ns_loader_open(struct ns_loader **out, const struct ns_load_opts *o,
		   const char **why)
{
	loaded = *o;
	return -ENOSYS;
}

int ns_loader_app_move(struct ns_loader *l, uint64_t from, uint64_t to)
{
	moves++;
	if (move_err)
		return move_err;
	moved_from = from;
	moved_to = to;
	return 0;
}

int ns_loader_cc_status(const struct ns_loader *l)
{
	return -ENOSYS;
}

bool ns_loader_cc_replaced(const struct ns_loader *l)
{
	return false;
}

/* what the loader found of the flows established before it attached */
static struct ns_adopt adopted;

const struct ns_adopt *ns_loader_adopt(const struct ns_loader *l)
{
	return &adopted;
}

int ns_loader_map_fd(const struct ns_loader *l, enum ns_map m)
{
	return -1;
}

uint32_t ns_loader_prog_id(const struct ns_loader *l)
{
	return 0;
}

void ns_loader_close(struct ns_loader *l)
{
}

static char dir[64], progress[96];

static void setup(void)
{
	strcpy(dir, "/tmp/ns-agent.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(progress, sizeof(progress), "%s/progress", dir);
	memset(&stats, 0, sizeof(stats));
	stats_err = 0;
	ctrl_puts = 0;
	keys_err = 0;
	keys_n = 1;
	gone_key = 0;
	path_id = 1;
	forgot = released = 0;
	policy_key = ctrl_key = 0;
	memset(&policy, 0, sizeof(policy));
	have_policy = policy_locked = false;
	policy_wait_ms = -1;
	memset(&loaded, 0, sizeof(loaded));
	moved_from = moved_to = 0;
	moves = 0;
	move_err = 0;
}

static void teardown(void)
{
	unlink(progress);
	rmdir(dir);
}

static void figure(const char *text)
{
	FILE *f = fopen(progress, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* an agent of one application, its figure in progress, on a link whose
 * last interval was congested */
static struct ns_agent *agent_new(void)
{
	struct ns_agent *a = calloc(1, sizeof(*a));

	ck_assert_ptr_nonnull(a);
	ns_agent_defaults(&a->o, 100);
	a->o.napps = 1;
	snprintf(a->o.apps[0].progress, NS_SRC_MAX, "%s", progress);
	a->o.apps[0].known_c = NAN;
	a->apps[0].cgid = 1;
	a->apps[0].listed = 1;
	ns_app_init(&a->apps[0].app, &a->o.params, NAN);
	a->cgroot_fd = -1;
	a->link.delay_us = 5000;
	a->link.base_us = 100;
	return a;
}

START_TEST(unreadable_figure_is_an_interval)
{
	struct ns_agent *a = agent_new();
	struct ns_ctl_app *c = &a->apps[0];
	const char *why = NULL;
	double alpha;

	figure("100\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	/* 1 MB an interval, 100 units */
	stats.delivered_bytes += 1000000;
	figure("");	/* caught mid-rewrite */
	alpha = c->app.rate.alpha;
	ck_assert_int_eq(step_app(a, c, 0.2, &why), -EINVAL);
	ck_assert_str_eq(why, progress);
	/* the congested interval still ran the loop, and was published */
	ck_assert_double_gt(c->app.rate.alpha, alpha);
	ck_assert_uint_eq(ctrl_puts, 2);
	ck_assert_double_eq_tol(c->use_Bps, 1000000 / 0.2, 1);
	stats.delivered_bytes += 1000000;
	figure("300\n");
	why = NULL;
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	/* one interval's bytes, not two's; and 200 units, of two intervals,
	 * not learnt as one's */
	ck_assert_double_eq_tol(c->use_Bps, 1000000 / 0.2, 1);
	ck_assert_double_eq(c->app.blr[0].n, 0);
	stats.delivered_bytes += 1000000;
	figure("400\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	ck_assert_double_eq(c->app.blr[0].n, 1);
	free(a);
}
END_TEST

/*
 * A figure that went back (read mid-rewrite, "2" of "250"; or the
 * application restarted) is no start: the next interval does not learn
 * the whole figure as its own progress, an outlier that costs the
 * estimate its trust. The one after learns again.
 */
START_TEST(figure_gone_back_is_no_start)
{
	struct ns_agent *a = agent_new();
	struct ns_ctl_app *c = &a->apps[0];
	const char *why = NULL;
	static const char *const figs[] = { "100\n", "200\n", "2\n", "300\n",
					    "400\n" };
	static const double learnt[] = { 0, 1, 1, 1, 2 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		stats.delivered_bytes += 1000000;
		figure(figs[i]);
		ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
		/* (n decays: a forgetting factor of 0.99) */
		ck_assert_msg(fabs(c->app.blr[0].n - learnt[i]) < 0.05,
			      "after figure %u: %g learnt", i, c->app.blr[0].n);
	}
	free(a);
}
END_TEST

/* an interval whose cgroups could not be listed measures nothing; the next
 * must not read two intervals' bytes as one's (a link at 40 % read as 80 %,
 * past util_max at a higher load: a phantom queue that cuts everyone) */
START_TEST(unlisted_interval_is_not_half_as_long)
{
	struct ns_agent *a = agent_new();
	const char *why = NULL;

	ck_assert_int_eq(measure_link(a, 0.2, &why), 0);	/* starts */
	stats.delivered_bytes += 1000000;
	ck_assert_int_eq(measure_link(a, 0.2, &why), 0);
	ck_assert_double_eq_tol(a->link.util, 1e6 / 0.2 / 12.5e6, 1e-9);
	stats.delivered_bytes += 1000000;
	keys_err = -EPERM;
	ck_assert_int_eq(measure_link(a, 0.2, &why), -EPERM);
	ck_assert_str_eq(why, "reading ns_cg_stats");
	keys_err = 0;
	stats.delivered_bytes += 1000000;
	ck_assert_int_eq(measure_link(a, 0.2, &why), 0);
	ck_assert_double_eq_tol(a->link.util, 1e6 / 0.2 / 12.5e6, 1e-9);
	ck_assert_double_eq_tol(a->link.avail_Bps, 12.5e6 - 1e6 / 0.2, 1e-3);
	free(a);
}
END_TEST

/*
 * A tick whose cgroups could not be listed measures no link: its apps
 * must not act on the last interval's congestion a second time, nor learn
 * this interval's progress against that interval's delay.
 */
START_TEST(unmeasured_link_is_not_acted_on)
{
	struct ns_agent *a = agent_new();
	struct ns_ctl_app *c = &a->apps[0];
	const char *why = NULL;
	double alpha;
	double n;

	figure("100\n");
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);	/* starts */
	/* a congested interval: 5 ms RTTs on a 100 us path */
	stats.delivered_bytes += 1000000;
	stats.rtt_samples += 10;
	stats.rtt_sum_us += 50000;
	stats.min_rtt_us = 100;
	stats.base[0] = (struct ns_base_slot){ ns_base_win_now(), 100 };
	figure("200\n");
	a->last.tv_sec = 0;
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_double_gt(a->link.queue_us, 4000);
	alpha = c->app.rate.alpha;
	n = c->app.blr[0].n;
	ck_assert_double_gt(alpha, 0);
	/* unlisted: the link keeps the last interval's figures */
	keys_err = -EPERM;
	stats.delivered_bytes += 1000000;
	figure("300\n");
	a->last.tv_sec = 0;
	ck_assert_int_eq(ns_agent_tick(a, &why), -EPERM);
	ck_assert_double_eq(c->app.rate.alpha, alpha);
	ck_assert_double_eq(c->app.blr[0].n, n);
	/* measured again: acted on */
	keys_err = 0;
	stats.delivered_bytes += 1000000;
	stats.rtt_samples += 10;
	stats.rtt_sum_us += 50000;
	figure("400\n");
	a->last.tv_sec = 0;
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_double_gt(c->app.rate.alpha, alpha);
	free(a);
}
END_TEST

/* an interval whose counters could not be read: the next one's have grown
 * over two intervals, and must not be read as one's (twice the use, and
 * twice the progress learnt against one interval's delay and time) */
START_TEST(unread_counters_are_not_one_interval)
{
	struct ns_agent *a = agent_new();
	struct ns_ctl_app *c = &a->apps[0];
	const char *why = NULL;

	figure("100\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	stats.delivered_bytes += 1000000;
	figure("200\n");
	stats_err = -EIO;
	ck_assert_int_eq(step_app(a, c, 0.2, &why), -EIO);
	ck_assert_str_eq(why, "reading ns_cg_stats");
	stats_err = 0;
	stats.delivered_bytes += 1000000;
	figure("300\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	ck_assert_double_lt(c->use_Bps, 1000000 / 0.2 + 1);
	ck_assert_double_eq(c->app.blr[0].n, 0);
	/* and counting goes on from there */
	stats.delivered_bytes += 1000000;
	figure("400\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	ck_assert_double_eq_tol(c->use_Bps, 1000000 / 0.2, 1);
	ck_assert_double_eq(c->app.blr[0].n, 1);
	free(a);
}
END_TEST

/* a full ns_cg_stats leaves every cgroup past it unmeasured, and its flows
 * without their policy (the program counts and applies both from a flow's
 * cgroup entry): said, not silent; and not once the entries of gone
 * cgroups made room */
START_TEST(full_stats_map_is_reported)
{
	struct ns_agent *a = agent_new();
	const char *why = NULL;

	a->cgroot_fd = 0;	/* gone cgroups can be told */
	keys_n = NS_CGROUPS_MAX - 1;
	ck_assert_int_eq(measure_link(a, 0.2, &why), 0);
	keys_n = NS_CGROUPS_MAX;
	ck_assert_int_eq(measure_link(a, 0.2, &why), -ENOSPC);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "ns_cg_stats full"));
	/* the link is still measured over the cgroups it holds */
	ck_assert_uint_eq(a->link.intervals, 1);
	gone_key = 7;
	why = NULL;
	ck_assert_int_eq(measure_link(a, 0.2, &why), 0);
	a->cgroot_fd = -1;
	free(a);
}
END_TEST

/* an application's cgroup made again at its path (a service restarted):
 * the old one is gone, and its entries go with it, not only those of one
 * with flows, which measure_link() finds in ns_cg_stats (one without left
 * a neutral ns_policy and its ns_ctrl entry behind at every restart, until
 * the maps were full); one that lives on elsewhere is released */
START_TEST(gone_cgroup_followed_is_forgotten)
{
	struct ns_agent *a = agent_new();
	const char *why = NULL;

	figure("100\n");
	a->cgroot_fd = 0;	/* gone cgroups can be told */
	path_id = 2;
	gone_key = 1;
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), 0);
	ck_assert_uint_eq(a->apps[0].cgid, 2);
	ck_assert_uint_eq(forgot, 1);
	ck_assert_uint_ne(released, 1);
	/* moved (renamed), not gone: no longer its, released */
	path_id = 3;
	gone_key = 0;
	forgot = 0;
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), 0);
	ck_assert_uint_eq(a->apps[0].cgid, 3);
	ck_assert_uint_eq(released, 2);
	ck_assert_uint_eq(forgot, 0);
	a->cgroot_fd = -1;
	free(a);
}
END_TEST

/*
 * The program counts flows in cgroups below an application under its id
 * (ns_apps): its cgroup made again, the new id takes the old one's place
 * there, or flows of the restarted service's child cgroups would count as
 * their own. A write that failed is said, and tried again the next
 * interval; an unchanged cgroup is not written again.
 */
START_TEST(cgroup_made_again_moves_in_ns_apps)
{
	struct ns_agent *a = agent_new();
	const char *why = NULL;

	figure("100\n");
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), 0);
	ck_assert_uint_eq(moves, 0);
	path_id = 2;
	move_err = -ENOMEM;
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), -ENOMEM);
	ck_assert_str_eq(why, "writing the application's cgroup into ns_apps");
	/* the interval itself went on */
	ck_assert_uint_eq(ctrl_puts, 2);
	move_err = 0;
	why = NULL;
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), 0);
	ck_assert_uint_eq(moved_from, 1);
	ck_assert_uint_eq(moved_to, 2);
	ck_assert_uint_eq(a->apps[0].listed, 2);
	ck_assert_int_eq(step_app(a, &a->apps[0], 0.2, &why), 0);
	ck_assert_uint_eq(moves, 2);
	free(a);
}
END_TEST

/* A slope of any size (delays that hardly varied) is shown held, not as
 * a float past 32 bits converted */
/* two applications on one cgroup (two spellings of its path, or one
 * given twice) are refused before anything is loaded; one goes on to the
 * loader (stubbed: -ENOSYS) */
START_TEST(one_cgroup_twice_is_refused)
{
	struct ns_agent_opts o;
	struct ns_agent *a = NULL;
	const char *why = "";

	ns_agent_defaults(&o, 100);
	o.napps = 1;
	snprintf(o.apps[0].cgroup, NS_SRC_MAX, "/sys/fs/cgroup/a");
	o.apps[0].known_c = NAN;
	ck_assert_int_eq(ns_agent_start(&a, &o, &why), -ENOSYS);
	/* its cgroup's id goes into ns_apps before the program attaches */
	ck_assert_uint_eq(loaded.napps, 1);
	ck_assert_uint_eq(loaded.apps[0], path_id);
	o.napps = 2;
	snprintf(o.apps[1].cgroup, NS_SRC_MAX, "/sys/fs/cgroup/a/");
	o.apps[1].known_c = 0;
	ck_assert_int_eq(ns_agent_start(&a, &o, &why), -EEXIST);
	ck_assert_str_eq(why, "one cgroup given as two applications");
	ck_assert_ptr_null(a);
}
END_TEST

/* the kernel refuses to attach to a directory that is no cgroup v2 one
 * with EBADF, which says nothing of the path: it is refused before
 * anything is loaded, named, as an application's cgroup is */
START_TEST(attach_point_not_cgroup2_is_refused)
{
	struct ns_agent_opts o;
	struct ns_agent *a = NULL;
	const char *why = "";

	ns_agent_defaults(&o, 100);
	o.load.cgroups[o.load.ncgroups++] = "/sys/fs/cgroup/unified";
	ck_assert_int_eq(ns_agent_start(&a, &o, &why), -ENOSYS);
	o.load.cgroups[o.load.ncgroups++] = NOT_CGROUP2;
	ck_assert_int_eq(ns_agent_start(&a, &o, &why), -EMEDIUMTYPE);
	ck_assert_str_eq(why, NOT_CGROUP2);
	ck_assert_ptr_null(a);
}
END_TEST

START_TEST(huge_slope_is_held_in_the_ctrl_map)
{
	struct ns_agent *a = agent_new();
	struct ns_slope *s = &a->apps[0].app.slope;

	*s = (struct ns_slope){ .mean = 3e9, .lo = -5e12, .hi = INFINITY };
	ck_assert_int_eq(publish(a, &a->apps[0]), 0);
	ck_assert_int_eq(ctrl_last.sens_milli, 1000000000);
	ck_assert_int_eq(ctrl_last.sens_lo_milli, -1000000000);
	ck_assert_int_eq(ctrl_last.sens_hi_milli, 1000000000);
	*s = (struct ns_slope){ .mean = 0.4567, .lo = -0.25, .hi = NAN };
	ck_assert_int_eq(publish(a, &a->apps[0]), 0);
	ck_assert_int_eq(ctrl_last.sens_milli, 456);
	ck_assert_int_eq(ctrl_last.sens_lo_milli, -250);
	ck_assert_int_eq(ctrl_last.sens_hi_milli, 0);
	free(a);
}
END_TEST

/* a cgroup with a policy ("indigoctl netscope set") or controller state
 * (a controller since stopped) but no aggregates, which measure_link()
 * does not see: gone, its entries go too, where they stayed until the
 * maps were full */
START_TEST(gone_cgroup_without_stats_is_forgotten)
{
	struct ns_agent *a = agent_new();
	const char *why = NULL;

	a->o.napps = 0;
	a->cgroot_fd = 0;	/* gone cgroups can be told */
	a->maps.policy = 3;
	a->maps.ctrl = 4;
	policy_key = gone_key = 7;
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_uint_eq(forgot, 7);
	/* its ns_ctrl entry alone, at the next sweep: not the next
	 * interval, a second after the last sweep */
	policy_key = 0;
	ctrl_key = gone_key = 9;
	a->last.tv_sec = 0;	/* the next interval at once */
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_uint_eq(forgot, 7);
	a->last.tv_sec = 0;
	a->last_sweep.tv_sec -= 1;
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_uint_eq(forgot, 9);
	/* one that lives is kept */
	gone_key = 0;
	forgot = 0;
	a->last.tv_sec = 0;
	a->last_sweep.tv_sec = 0;
	ck_assert_int_eq(ns_agent_tick(a, &why), 0);
	ck_assert_uint_eq(forgot, 0);
	a->cgroot_fd = -1;
	free(a);
}
END_TEST

/*
 * Another writer holding ns_policy's lock (a stuck indigoctl): the
 * controller's interval does not wait for it, writes no policy and says
 * why, its ns_ctrl still written; a fixed policy indigoctl wrote then is
 * left as it is.
 */
START_TEST(locked_policy_is_skipped_and_fixed_one_kept)
{
	struct ns_agent *a = agent_new();
	struct ns_ctl_app *c = &a->apps[0];
	const char *why = NULL;
	uint32_t gen;

	figure("100\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	ck_assert(have_policy && !(policy.flags & NS_POLICY_FIXED));
	ck_assert_int_eq(policy_wait_ms, 0);
	gen = policy.gen;
	policy_locked = true;
	c->app.c = 0.5;		/* a policy that would change */
	figure("200\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), -EWOULDBLOCK);
	ck_assert_ptr_nonnull(strstr(why, NS_POLICY_LOCK));
	ck_assert_int_eq(policy_wait_ms, 0);
	ck_assert_uint_eq(policy.gen, gen);
	ck_assert_uint_eq(ctrl_puts, 2);
	/* indigoctl netscope set, once it has the lock */
	policy_locked = false;
	policy.flags |= NS_POLICY_FIXED;
	policy.rate_Bps = 5000000;
	policy.owner = 0;
	policy.gen++;
	figure("300\n");
	ck_assert_int_eq(step_app(a, c, 0.2, &why), 0);
	ck_assert(policy.flags & NS_POLICY_FIXED);
	ck_assert_uint_eq(policy.rate_Bps, 5000000);
	ck_assert_uint_eq(policy.gen, gen + 1);
	ck_assert_uint_eq(c->paced_Bps, 0);
	free(a);
}
END_TEST

/*
 * Flows established before the agent started: one line says what became
 * of them, a warning only where some are left unseen.
 */
START_TEST(flows_before_start_are_said)
{
	struct ns_agent *a = agent_new();
	char line[512];

	adopted = (struct ns_adopt){ 0 };
	ck_assert(!ns_agent_adopt_say(a, line, sizeof(line)));
	ck_assert_str_eq(line, "");
	adopted.taken = 3;
	ck_assert(!ns_agent_adopt_say(a, line, sizeof(line)));
	ck_assert_str_eq(line, "took in 3 flow(s) established before it started (each counted from its next ACK)");
	adopted = (struct ns_adopt){ .missed = 2 };
	ck_assert(ns_agent_adopt_say(a, line, sizeof(line)));
	ck_assert_str_eq(line, "2 flow(s) established before it started are not seen until reopened: this kernel cannot ask for their callbacks (Linux 6.12 can)");
	adopted = (struct ns_adopt){ .taken = 1, .netns_skipped = 4,
				     .err = -ENOENT };
	ck_assert(ns_agent_adopt_say(a, line, sizeof(line)));
	ck_assert_str_eq(line, "took in 1 flow(s) established before it started (each counted from its next ACK); 4 network namespace(s) not entered: flows established there before it started are not seen until reopened; flows established before it started not looked for everywhere: No such file or directory");
	/* cut, never past the buffer */
	ck_assert(ns_agent_adopt_say(a, line, 40));
	ck_assert_uint_eq(strlen(line), 39);
	adopted = (struct ns_adopt){ 0 };
	free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_agent");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, unreadable_figure_is_an_interval);
	tcase_add_test(tc, unread_counters_are_not_one_interval);
	tcase_add_test(tc, unlisted_interval_is_not_half_as_long);
	tcase_add_test(tc, unmeasured_link_is_not_acted_on);
	tcase_add_test(tc, figure_gone_back_is_no_start);
	tcase_add_test(tc, full_stats_map_is_reported);
	tcase_add_test(tc, huge_slope_is_held_in_the_ctrl_map);
	tcase_add_test(tc, gone_cgroup_followed_is_forgotten);
	tcase_add_test(tc, cgroup_made_again_moves_in_ns_apps);
	tcase_add_test(tc, one_cgroup_twice_is_refused);
	tcase_add_test(tc, attach_point_not_cgroup2_is_refused);
	tcase_add_test(tc, gone_cgroup_without_stats_is_forgotten);
	tcase_add_test(tc, locked_policy_is_skipped_and_fixed_one_kept);
	tcase_add_test(tc, flows_before_start_are_said);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
