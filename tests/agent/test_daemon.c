// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for indigod's epochs (agent/telemetry.c with components.c and
 * learner.c) without the module: the test hands on_epoch() the EPOCH
 * messages modlink would. The rest of indigod (indigod.c's loop and
 * link, modlink), the agent executor, Netscope and the GPU tier are the
 * stand-ins below.
 */
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/components.c"
#include "../../agent/learner.c"
#include "../../agent/status.c"
#include "../../agent/telemetry.c"

/* indigod.c */
volatile sig_atomic_t stop_sig;

void logmsg(int prio, const char *fmt, ...)
{
	(void)prio;
	(void)fmt;
}

/* The monotonic clock as the test sets it: when each epoch is handled. */
static double mono_s;

double clock_s(clockid_t clk)
{
	struct timespec ts;

	if (clk == CLOCK_MONOTONIC)
		return mono_s;
	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_s(void)
{
	return clock_s(CLOCK_REALTIME);
}

/*
 * The link to the module: a stand-in object, opened and closed as told;
 * apply_policy() as indigod.c's, which needs a working link, counting the
 * policies the module took.
 */
static int fake_link, link_opens, link_closes, open_err, applied;

int modlink_open(struct modlink **out)
{
	link_opens++;
	if (open_err)
		return open_err;
	*out = (struct modlink *)&fake_link;
	return 0;
}

void modlink_close(struct modlink *l)
{
	if (l)
		link_closes++;
}

int apply_policy(struct daemon *d)
{
	if (!d->have_pol)
		return 0;
	if (!d->ml || d->link_err)
		return -ENOTCONN;
	applied++;
	return 0;
}

void signals_hold(sigset_t *old)
{
	sigemptyset(old);
}

void signals_release(const sigset_t *old)
{
	(void)old;
}

/* The agent executor: what it moved since the last executor_take(). */
static struct exec_totals moved;
static int ex_open;
static uint32_t far_told[4];	/* the far nodes executor_set_far() was told */
static size_t nfar_told;

int executor_open(struct executor **out)
{
	*out = (struct executor *)&moved;
	ex_open = 1;
	return 0;
}

void executor_close(struct executor *x)
{
	if (x)
		ex_open = 0;
}

void executor_add(struct executor *x, const struct promote_cand *c, size_t n)
{
	(void)x, (void)c, (void)n;
}

void executor_clear(struct executor *x)
{
	(void)x;
}

void executor_set_far(struct executor *x, const uint32_t *far, size_t n)
{
	(void)x;
	ck_assert_uint_le(n, 4);
	memcpy(far_told, far, n * sizeof(*far));
	nfar_told = n;
}

int executor_run(struct executor *x, uint32_t rate_min_mhz,
		 uint32_t burst_min_ms, uint64_t free_min_kib,
		 uint32_t rate_cap_pps, double epoch_s, double now)
{
	(void)x, (void)rate_min_mhz, (void)burst_min_ms, (void)free_min_kib;
	(void)rate_cap_pps, (void)epoch_s, (void)now;
	return 0;
}

void executor_take(struct executor *x, struct exec_totals *t)
{
	(void)x;
	*t = moved;
	memset(&moved, 0, sizeof(moved));
}

/* Netscope and the GPU tier: never there. */
int ns_indigod_start(struct ns_agent **a, const struct indigod_config *c,
		     int *cc_err, char *err, size_t errlen)
{
	(void)c, (void)err, (void)errlen;
	*a = NULL;
	*cc_err = 0;
	return 0;
}

int ns_indigod_link(const struct ns_agent *a, const struct indigod_config *c,
		    double *avail_gbps, double *far_ns)
{
	(void)a, (void)c, (void)avail_gbps, (void)far_ns;
	return -ENODEV;
}

int ns_agent_tick(struct ns_agent *a, const char **why)
{
	(void)a, (void)why;
	return 0;
}

bool ns_agent_cc_replaced(const struct ns_agent *a)
{
	(void)a;
	return false;
}

void ns_agent_stop(struct ns_agent *a)
{
	(void)a;
}

int gpu_tier_start(const struct gpu_config *cfg, struct gpu_tier **out,
		   char *err, size_t errlen)
{
	(void)cfg;
	*out = NULL;
	snprintf(err, errlen, "no GPU");
	return -ENODEV;
}

int gpu_tier_probe(struct gpu_tier *t, char *err, size_t errlen)
{
	(void)t, (void)err, (void)errlen;
	return -ENODEV;
}

size_t gpu_tier_gpus(const struct gpu_tier *t, const struct gpu_info **gpus)
{
	(void)t;
	*gpus = NULL;
	return 0;
}

const struct gpu_tier_map *gpu_tier_nodes(const struct gpu_tier *t)
{
	(void)t;
	return NULL;
}

int gpu_nodeset_format(const struct gpu_nodeset *set, char *buf, size_t n)
{
	(void)set, (void)buf, (void)n;
	return -EINVAL;
}

int gpu_tier_cm_link(const struct gpu_tier *t, size_t gpu, enum gpu_dir dir,
		     const struct cm_link *base, struct cm_link *out)
{
	(void)t, (void)gpu, (void)dir, (void)base, (void)out;
	return -ENODEV;
}

int gpu_tier_json(const struct gpu_tier *t, struct json_object *obj)
{
	(void)t, (void)obj;
	return -ENODEV;
}

void gpu_tier_stop(struct gpu_tier *t)
{
	(void)t;
}

static struct daemon d;
static char dir[] = "/tmp/test_daemon.XXXXXX";
static u64 seq;
static u64 node_pages;		/* base pages the kernel's promotions moved */

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&d, 0, sizeof(d));
	config_defaults(&d.cfg);
	snprintf(d.cfg.agent.state_dir, CONFIG_PATH_MAX, "%s", dir);
	snprintf(d.cfg.agent.log_path, CONFIG_PATH_MAX, "%s/d.jsonl", dir);
	d.cfg.agent.metrics_path[0] = d.cfg.agent.status_path[0] = '\0';
	d.cfg.gpu.enable = false;
	snprintf(d.app, sizeof(d.app), "default");
	snprintf(d.app_fixed, sizeof(d.app_fixed), "default");
	d.sysfs = dir;			/* no nodes: memory features 0 */
	d.save_every = 1000000;
	seq = 0;
	node_pages = 0;
	mono_s = 100;
	link_opens = link_closes = open_err = applied = 0;
	nfar_told = 0;
}

static void teardown(void)
{
	char cmd[64];

	learner_stop(&d);
	dlog_stop(&d);
	executor_close(d.ex);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(dir, sizeof(dir), "/tmp/test_daemon.XXXXXX");
}

static void start(int executor)
{
	d.cfg.agent.executor = executor;
	ck_assert_int_eq(executor_sync(&d), 0);
	ck_assert_int_eq(learner_start(&d), 0);
	dlog_start(&d);
	ck_assert_ptr_nonnull(d.dlog);
}

/*
 * One EPOCH of 1 s, handled @after_s after the last: node 1 far, 100
 * faults, 40 of them promoted by the kernel.
 */
static void epoch_after(double after_s)
{
	struct modlink_epoch m = {
		.seq = ++seq, .ms = 1000, .rate_p50 = 5000, .rate_p90 = 9000,
		.rate_p99 = 20000, .burst_p50 = 10, .burst_p90 = 20,
		.burst_p99 = 40, .nnodes = 1,
	};
	u64 epochs = d.epochs;

	m.node[0].id = 1;
	m.node[0].faults = 100;
	m.node[0].allowed = 40;
	m.node[0].allowed_pages = node_pages;
	moved.moved = moved.moves = 30;	/* what the agent's executor moved */
	moved.rate_sum_hz = 30 * 5.0;
	mono_s += after_s;
	on_epoch(&m, &d);
	ck_assert_uint_eq(d.epochs, epochs + 1);
}

/* One EPOCH, handled an epoch after the last, as they come. */
static void epoch(void)
{
	epoch_after(1.0);
}

/* Decision-log records so far. */
static unsigned int records(void)
{
	char path[CONFIG_PATH_MAX + 16];
	unsigned int n = 0;
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%s/d.jsonl", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * A reload that switches the executor mid-epoch: the epoch in flight ran
 * under both, so its reward (the new one's way, on half of its moves) is
 * neither one's: not learned from, not logged. The next epoch's is.
 */
static void switch_executor(int from, int to)
{
	start(from);
	epoch();
	epoch();
	ck_assert_uint_eq(records(), 1);
	d.cfg.agent.executor = to;
	ck_assert_int_eq(executor_sync(&d), 0);
	ck_assert_int_eq(ex_open, to == CONFIG_EXECUTOR_AGENT);
	epoch();
	ck_assert_uint_eq(records(), 1);
	epoch();
	ck_assert_uint_eq(records(), 2);
}

START_TEST(kernel_to_agent)
{
	switch_executor(CONFIG_EXECUTOR_KERNEL, CONFIG_EXECUTOR_AGENT);
}
END_TEST

START_TEST(agent_to_kernel)
{
	switch_executor(CONFIG_EXECUTOR_AGENT, CONFIG_EXECUTOR_KERNEL);
}
END_TEST

/*
 * The same executor kept across a reload: every epoch's reward counts.
 * Each epoch tells it the far nodes, which it must not promote to.
 */
START_TEST(executor_kept)
{
	start(CONFIG_EXECUTOR_AGENT);
	epoch();
	ck_assert_uint_eq(nfar_told, 1);
	ck_assert_uint_eq(far_told[0], 1);
	epoch();
	ck_assert_int_eq(executor_sync(&d), 0);
	epoch();
	ck_assert_uint_eq(records(), 2);
}
END_TEST

static void progress_is(const char *v)
{
	FILE *f = fopen(d.cfg.reward.progress_path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(v, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Epochs queued while the loop was held up come back to back: the
 * decision each takes is in force for microseconds, and the application's
 * progress over them (100 units in 10 us: 10^7 a second) is not its
 * doing. Neither learned from nor logged; the next epoch in its time
 * reads the progress since the last reading.
 */
START_TEST(queued_epoch_not_learned)
{
	d.cfg.agent.learner = CONFIG_LEARNER_LINUCB;
	d.cfg.reward.source = CONFIG_REWARD_PROGRESS;
	d.cfg.reward.progress_scale = 1;
	snprintf(d.cfg.reward.progress_path, CONFIG_PATH_MAX, "%s/progress",
		 dir);
	progress_is("0\n");
	start(CONFIG_EXECUTOR_KERNEL);
	epoch();
	progress_is("100\n");
	epoch();
	ck_assert_uint_eq(records(), 1);
	ck_assert_double_eq_tol(d.last_reward, 100, 1e-9);
	ck_assert_uint_eq(d.es.updates, 1);

	progress_is("200\n");
	epoch_after(1e-5);
	ck_assert_uint_eq(records(), 1);
	ck_assert_double_eq_tol(d.last_reward, 100, 1e-9);
	ck_assert_uint_eq(d.es.updates, 1);

	progress_is("300\n");
	epoch();
	ck_assert_uint_eq(records(), 2);
	ck_assert_double_eq_tol(d.last_reward, 100, 1e-9);
	ck_assert_uint_eq(d.es.updates, 2);
}
END_TEST

/*
 * Executor "agent" stopping hands the module the last policy back, lifting
 * its deny: over the link as it is, or, where the link failed in the last
 * epoch's callbacks (its error not yet acted on) or was lost, over one
 * opened for it. Before, a failed link left the module denying every
 * promotion after the agent had gone, without a word.
 */
START_TEST(hand_back_over_a_failed_link)
{
	start(CONFIG_EXECUTOR_AGENT);
	epoch();
	ck_assert(d.have_pol);

	d.ml = (struct modlink *)&fake_link;
	executor_hand_back(&d);
	ck_assert_int_eq(ex_open, 0);
	ck_assert_int_eq(applied, 1);
	ck_assert_int_eq(link_opens, 0);

	/* a failed link: closed, opened anew, the policy taken */
	ck_assert_int_eq(executor_sync(&d), 0);
	d.link_err = -EIO;
	executor_hand_back(&d);
	ck_assert_int_eq(link_closes, 1);
	ck_assert_int_eq(link_opens, 1);
	ck_assert_int_eq(d.link_err, 0);
	ck_assert_ptr_eq(d.ml, (struct modlink *)&fake_link);
	ck_assert_int_eq(applied, 2);

	/* lost, and the module gone: nothing to lift */
	ck_assert_int_eq(executor_sync(&d), 0);
	d.ml = NULL;
	open_err = -ENOENT;
	executor_hand_back(&d);
	ck_assert_int_eq(link_opens, 2);
	ck_assert_ptr_null(d.ml);
	ck_assert_int_eq(applied, 2);

	/* the kernel's executor holds no deny: nothing to hand back */
	d.ml = (struct modlink *)&fake_link;
	executor_hand_back(&d);
	ck_assert_int_eq(applied, 2);
}
END_TEST

static bool file_has(const char *name, const char *what)
{
	char path[CONFIG_PATH_MAX + 16], buf[8192];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, what);
}

/*
 * The agent executor's totals reach status.json and the metrics: where it
 * left candidates for the rate cap or dropped them beyond its buffer, an
 * operator saw only fewer promotions, without why.
 */
START_TEST(executor_totals_shown)
{
	snprintf(d.cfg.agent.status_path, CONFIG_PATH_MAX, "%s/status.json", dir);
	snprintf(d.cfg.agent.metrics_path, CONFIG_PATH_MAX, "%s/metrics.prom", dir);
	start(CONFIG_EXECUTOR_AGENT);
	moved.held = 1;
	moved.over_budget = 4;
	moved.dropped = 2;
	epoch();
	moved.over_budget = 3;
	epoch();
	ck_assert(file_has("status.json", "\"agent_promoted\":60,"));
	ck_assert(file_has("status.json", "\"agent_promote_over_cap\":7,"));
	ck_assert(file_has("status.json", "\"agent_candidates_dropped\":2"));
	ck_assert(file_has("metrics.prom", "\nindigod_agent_promoted_pages_total 60\n"));
	ck_assert(file_has("metrics.prom", "\nindigod_agent_candidates_held_total 1\n"));
	ck_assert(file_has("metrics.prom", "\nindigod_agent_candidates_over_cap_total 7\n"));
	ck_assert(file_has("metrics.prom", "\nindigod_agent_candidates_dropped_total 2\n"));
}
END_TEST

/*
 * Link source "counter": the available bandwidth is the capacity less
 * what others put on the link. Our own promotions, the kernel's (the
 * module's page count) and the agent executor's, are the action the cost
 * model prices, so they are left out: counted, a burst of them read as a
 * full link and was charged its transfer at the 1 % floor.
 */
START_TEST(counter_leaves_out_our_promotions)
{
	int executor = _i ? CONFIG_EXECUTOR_AGENT : CONFIG_EXECUTOR_KERNEL;
	uint64_t psz = (uint64_t)host_page_bytes(), ours;
	char path[CONFIG_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/counter", dir);
	d.cfg.link.source = CONFIG_LINK_COUNTER;
	snprintf(d.cfg.link.counter_path, CONFIG_PATH_MAX, "%s", path);
	/* a million pages a second: 32 Gb/s of the 100 at 4 KiB */
	node_pages = 1000000;
	ours = node_pages + (executor == CONFIG_EXECUTOR_AGENT ? 30 : 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("1000\n", f);
	ck_assert_int_eq(fclose(f), 0);
	start(executor);
	epoch();		/* the counter's first reading */
	/* ours, and others' 1.25e9 bytes: 10 Gb/s over the epoch's 1 s */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%llu\n", (unsigned long long)(1000 + ours * psz +
						   1250000000ULL));
	ck_assert_int_eq(fclose(f), 0);
	epoch();
	ck_assert_double_eq_tol(d.avail_gbps, 90.0, 1e-6);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("daemon");
	TCase *tc = tcase_create("epochs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, kernel_to_agent);
	tcase_add_test(tc, agent_to_kernel);
	tcase_add_test(tc, executor_kept);
	tcase_add_test(tc, queued_epoch_not_learned);
	tcase_add_test(tc, hand_back_over_a_failed_link);
	tcase_add_test(tc, executor_totals_shown);
	tcase_add_loop_test(tc, counter_leaves_out_our_promotions, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
