// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/context.c: meminfo parsing, a fake sysfs node tree,
 * and every feature of the context vector on hand-computed values.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions.h"
#include "context.h"

#define TOL 1e-12

static const char node0[] =
	"Node 0 MemTotal:       16777216 kB\n"
	"Node 0 MemFree:         4194304 kB\n"
	"Node 0 MemUsed:        12582912 kB\n"
	"Node 0 HugePages_Total:     0\n";

static const char node1[] =
	"Node 1 MemTotal:        8388608 kB\n"
	"Node 1 MemFree:         6291456 kB\n";

START_TEST(parse_meminfo)
{
	uint64_t t = 7, f = 7;

	ck_assert_int_eq(ctx_parse_meminfo(node0, &t, &f), 0);
	ck_assert_uint_eq(t, 16777216);
	ck_assert_uint_eq(f, 4194304);
	/* MemFree missing */
	ck_assert_int_eq(ctx_parse_meminfo("Node 3 MemTotal: 5 kB\n", &t, &f),
			 -EINVAL);
	/* no unit, not a number, free above total */
	ck_assert_int_eq(ctx_parse_meminfo("Node 3 MemTotal: 5\n"
					   "Node 3 MemFree: 1 kB\n", &t, &f),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_meminfo("Node 3 MemTotal: x kB\n"
					   "Node 3 MemFree: 1 kB\n", &t, &f),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_meminfo("Node 3 MemTotal: 5 kB\n"
					   "Node 3 MemFree: 6 kB\n", &t, &f),
			 -EINVAL);
	/* "MemFreeX" is not "MemFree" */
	ck_assert_int_eq(ctx_parse_meminfo("Node 3 MemTotal: 5 kB\n"
					   "Node 3 MemFreeX: 1 kB\n", &t, &f),
			 -EINVAL);
	ck_assert_uint_eq(t, 16777216);	/* untouched on error */
	ck_assert_int_eq(ctx_parse_meminfo(NULL, &t, &f), -EINVAL);
}
END_TEST

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void rmtree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* Node @n's directory in the fake sysfs, with @meminfo as its meminfo. */
static void mk_node(unsigned int n, const char *meminfo)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "devices/system/node/node%u", n);
	mk(rel);
	snprintf(rel, sizeof(rel), "devices/system/node/node%u/meminfo", n);
	put(rel, meminfo);
}

/* A fresh fake sysfs root with an empty node directory. */
static void mk_node_root(void)
{
	snprintf(root, sizeof(root), "/tmp/indigo-ctx-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mk("devices");
	mk("devices/system");
	mk("devices/system/node");
}

START_TEST(read_fake_sysfs)
{
	uint32_t far[] = { 1 };
	struct ctx_mem m;

	snprintf(root, sizeof(root), "/tmp/indigo-ctx-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_int_eq(ctx_read_mem(root, far, 1, &m), -ENOENT);
	mk("devices");
	mk("devices/system");
	mk("devices/system/node");
	mk_node(0, node0);
	mk_node(1, node1);
	mk("devices/system/node/power");	/* not a node */
	put("devices/system/node/possible", "0-1\n");

	ck_assert_int_eq(ctx_read_mem(root, far, 1, &m), 0);
	ck_assert_uint_eq(m.nlocal, 1);
	ck_assert_uint_eq(m.nfar, 1);
	ck_assert_uint_eq(m.local_total, 16777216);
	ck_assert_uint_eq(m.local_free, 4194304);
	ck_assert_uint_eq(m.far_total, 8388608);
	ck_assert_uint_eq(m.far_free, 6291456);
	ck_assert_uint_eq(m.local_node_min, 16777216);

	/* no far node named: both local */
	ck_assert_int_eq(ctx_read_mem(root, NULL, 0, &m), 0);
	ck_assert_uint_eq(m.nlocal, 2);
	ck_assert_uint_eq(m.nfar, 0);
	ck_assert_uint_eq(m.local_total, 16777216 + 8388608);
	ck_assert_uint_eq(m.local_node_min, 8388608);

	/* a malformed node fails the read and leaves @m alone */
	mk("devices/system/node/node2");
	put("devices/system/node/node2/meminfo", "garbage\n");
	ck_assert_int_eq(ctx_read_mem(root, far, 1, &m), -EINVAL);
	ck_assert_uint_eq(m.local_total, 16777216 + 8388608);
	rmtree();
}
END_TEST

/*
 * Two sockets of 16 GiB, a far node and a memoryless node: the module
 * compares the fill arm's floor with one target node's free memory, so
 * the floor is a share of one node, not of both (a floor of half of the
 * sum, fill_share's most, is a whole node: fill would admit nothing).
 */
START_TEST(fill_floor_per_node)
{
	static const char sock[] = "Node 0 MemTotal: 16777216 kB\n"
				   "Node 0 MemFree:  16000000 kB\n";
	uint32_t far[] = { 2 };
	struct act_policy p;
	struct act_grid g;
	struct ctx_mem m;

	mk_node_root();
	mk_node(0, sock);
	mk_node(1, sock);
	mk_node(2, node1);
	mk_node(3, "Node 3 MemTotal: 0 kB\nNode 3 MemFree: 0 kB\n");
	ck_assert_int_eq(ctx_read_mem(root, far, 1, &m), 0);
	rmtree();
	ck_assert_uint_eq(m.nlocal, 3);
	ck_assert_uint_eq(m.local_total, 2 * 16777216ULL);
	ck_assert_uint_eq(m.local_node_min, 16777216);

	actions_grid_default(&g);
	ck_assert_int_eq(actions_policy(&g, actions_fill_arm(&g), 1, 0,
					m.local_node_min, ACT_FILL_SHARE_MAX,
					&p), 0);
	/* a socket with almost all of its memory free takes promotions */
	ck_assert_uint_lt(p.free_min_kib, 16000000);
	ck_assert_uint_eq(p.free_min_kib, 16777216 / 2);
}
END_TEST

START_TEST(add_nodes)
{
	struct ctx_epoch e = { 0 };
	/* observe, pass, deny, rate, burst, lowmem, ratecap */
	uint64_t v1[7] = { 100, 200, 1, 2, 3, 4, 5 };
	uint64_t v2[7] = { 0, 0, 10, 0, 0, 0, 20 };
	unsigned int i;

	ck_assert_int_eq(ctx_epoch_add_node(&e, 1, 1000, 40, 40 + 511, v1, 7), 0);
	ck_assert_int_eq(ctx_epoch_add_node(&e, 3, 500, 60, 60, v2, 7), 0);
	ck_assert_uint_eq(e.nfar, 2);
	ck_assert_uint_eq(e.far[0], 1);
	ck_assert_uint_eq(e.far[1], 3);
	ck_assert_uint_eq(e.faults, 1500);
	ck_assert_uint_eq(e.allowed, 100);
	/* node 1's 40 promotions were a huge page and 39 base pages */
	ck_assert_uint_eq(e.allowed_pages, 100 + 511);
	ck_assert_uint_eq(e.vetoes, 15 + 30);
	for (i = 2; i < CTX_MAX_NODES; i++)
		ck_assert_int_eq(ctx_epoch_add_node(&e, i, 1, 0, 0, NULL, 0), 0);
	ck_assert_int_eq(ctx_epoch_add_node(&e, 99, 1, 0, 0, NULL, 0), -ENOSPC);
	/* saturation */
	e.faults = UINT64_MAX - 1;
	e.nfar = 0;
	ck_assert_int_eq(ctx_epoch_add_node(&e, 1, 5, 0, 0, NULL, 0), 0);
	ck_assert_uint_eq(e.faults, UINT64_MAX);
}
END_TEST

/*
 * The module takes as many far nodes as one netlink attribute holds (some
 * 600): one local socket and 80 far nodes (CXL devices, fake NUMA). Every
 * far node must count as far, its faults in the epoch and its memory out
 * of the local figures and the fill arm's floor.
 */
#define MANY_FAR	80

START_TEST(many_far_nodes)
{
	struct ctx_epoch e = { 0 };
	char text[128];
	struct ctx_mem m;
	unsigned int i;

	mk_node_root();
	mk_node(0, node0);
	for (i = 1; i <= MANY_FAR; i++) {
		snprintf(text, sizeof(text),
			 "Node %u MemTotal: 1048576 kB\nNode %u MemFree: 1024 kB\n",
			 i, i);
		mk_node(i, text);
		ck_assert_int_eq(ctx_epoch_add_node(&e, i, 10, 1, 1, NULL, 0), 0);
	}
	ck_assert_uint_eq(e.nfar, MANY_FAR);
	ck_assert_uint_eq(e.faults, 10 * MANY_FAR);
	ck_assert_int_eq(ctx_read_mem(root, e.far, e.nfar, &m), 0);
	rmtree();
	ck_assert_uint_eq(m.nfar, MANY_FAR);
	ck_assert_uint_eq(m.nlocal, 1);
	ck_assert_uint_eq(m.local_total, 16777216);
	ck_assert_uint_eq(m.far_total, 1048576ULL * MANY_FAR);
	ck_assert_uint_eq(m.local_node_min, 16777216);
}
END_TEST

START_TEST(build_values)
{
	struct ctx_epoch e = {
		.ms = 500, .faults = 4999, .allowed = 1250, .vetoes = 2500,
		.rate_p50 = 99, .rate_p90 = 9999, .rate_p99 = UINT32_MAX,
		.burst_p50 = 9, .burst_p90 = 999, .burst_p99 = 99999999,
	};
	struct ctx_mem m = {
		.local_total = 16777216, .local_free = 4194304,	/* 4 GiB */
		.far_total = 8388608, .far_free = 1048576 * 15ULL / 16,
	};
	struct ctx_link l = { .bandwidth_gbps = 99, .far_ns = 1099,
			      .local_ns = 99 };
	double x[CTX_DIM];
	unsigned int i;

	ck_assert_int_eq(ctx_build(&e, &m, &l, x), 0);
	ck_assert_double_eq_tol(x[CTX_F_BIAS], 1.0, TOL);
	/* 4999 faults in 0.5 s: 9998/s, log10(9999) / 6 */
	ck_assert_double_eq_tol(x[CTX_F_FAULTS], log10(9999.0) / 6, TOL);
	ck_assert_double_eq_tol(x[CTX_F_PROMOTE], 1250.0 / 4999, TOL);
	ck_assert_double_eq_tol(x[CTX_F_VETO], 2500.0 / 4999, TOL);
	ck_assert_double_eq_tol(x[CTX_F_RATE_P50], 0.2, TOL);
	ck_assert_double_eq_tol(x[CTX_F_RATE_P90], 0.4, TOL);
	ck_assert_double_eq_tol(x[CTX_F_RATE_P99],
				log10(4294967296.0) / 10, TOL);
	ck_assert_double_eq_tol(x[CTX_F_BURST_P50], 1.0 / 6, TOL);
	ck_assert_double_eq_tol(x[CTX_F_BURST_P90], 0.5, TOL);
	ck_assert_double_eq_tol(x[CTX_F_BURST_P99], 1.0, TOL);	/* clamped */
	ck_assert_double_eq_tol(x[CTX_F_LOCAL_USED], 0.75, TOL);
	ck_assert_double_eq_tol(x[CTX_F_FAR_USED], 1.0 - 15.0 / 128, TOL);
	/* 4 GiB free: log2(5) / 12; 0.9375 GiB: log2(1.9375) / 12 */
	ck_assert_double_eq_tol(x[CTX_F_LOCAL_FREE], log2(5.0) / 12, TOL);
	ck_assert_double_eq_tol(x[CTX_F_FAR_FREE], log2(1.9375) / 12, TOL);
	ck_assert_double_eq_tol(x[CTX_F_BANDWIDTH], 0.5, TOL);
	ck_assert_double_eq_tol(x[CTX_F_DELAY], log10(1001.0) / 7, TOL);
	for (i = 0; i < CTX_DIM; i++) {
		ck_assert(x[i] >= 0.0 && x[i] <= 1.0);
		ck_assert_str_ne(ctx_feature_name(i), "?");
	}
	ck_assert_str_eq(ctx_feature_name(CTX_DIM), "?");

	/* an empty epoch, no memory figures, huge link: all in [0, 1] */
	memset(&e, 0, sizeof(e));
	l.bandwidth_gbps = 1e9;
	ck_assert_int_eq(ctx_build(&e, NULL, &l, x), 0);
	ck_assert_double_eq_tol(x[CTX_F_FAULTS], 0.0, TOL);
	ck_assert_double_eq_tol(x[CTX_F_PROMOTE], 0.0, TOL);
	ck_assert_double_eq_tol(x[CTX_F_LOCAL_USED], 0.0, TOL);
	ck_assert_double_eq_tol(x[CTX_F_BANDWIDTH], 1.0, TOL);
	l.far_ns = NAN;
	ck_assert_int_eq(ctx_build(&e, NULL, &l, x), -EINVAL);
}
END_TEST

START_TEST(counter_source)
{
	char path[64];
	double a;
	uint64_t v = 7;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/indigo-counter-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	f = fopen(path, "w");
	fputs("18446744073709551615\n", f);
	fclose(f);
	ck_assert_int_eq(ctx_read_counter(path, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	f = fopen(path, "w");
	fputs("12 34\n", f);
	fclose(f);
	ck_assert_int_eq(ctx_read_counter(path, &v), -EINVAL);
	f = fopen(path, "w");
	fputs("-1\n", f);
	fclose(f);
	ck_assert_int_eq(ctx_read_counter(path, &v), -EINVAL);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(ctx_read_counter(path, &v), -ENOENT);

	/* 1.25e9 bytes in 1 s = 10 Gb/s of a 100 Gb/s link used */
	ck_assert_int_eq(ctx_available_gbps(100, 1000, 1000 + 1250000000ULL,
					    0, 1.0, &a), 0);
	ck_assert_double_eq_tol(a, 90.0, 1e-9);
	/* the same bytes over 0.5 s: 20 Gb/s */
	ck_assert_int_eq(ctx_available_gbps(100, 0, 1250000000ULL, 0, 0.5, &a),
			 0);
	ck_assert_double_eq_tol(a, 80.0, 1e-9);
	/* saturated: the floor, 1 % */
	ck_assert_int_eq(ctx_available_gbps(100, 0, 20000000000ULL, 0, 1.0, &a),
			 0);
	ck_assert_double_eq_tol(a, 1.0, 1e-12);
	/*
	 * saturated by our own promotions (1.5e10 of the 2e10 bytes): the
	 * others' 40 Gb/s is what counts, not the floor
	 */
	ck_assert_int_eq(ctx_available_gbps(100, 0, 20000000000ULL,
					    15000000000ULL, 1.0, &a), 0);
	ck_assert_double_eq_tol(a, 60.0, 1e-9);
	/* a counter that saw less than we promoted: all of it */
	ck_assert_int_eq(ctx_available_gbps(100, 0, 1000, 5000, 1.0, &a), 0);
	ck_assert_double_eq_tol(a, 100.0, 1e-12);
	/* idle: all of it */
	ck_assert_int_eq(ctx_available_gbps(25, 5, 5, 0, 1.0, &a), 0);
	ck_assert_double_eq_tol(a, 25.0, 1e-12);
	ck_assert_int_eq(ctx_available_gbps(100, 10, 9, 0, 1.0, &a), -ERANGE);
	ck_assert_int_eq(ctx_available_gbps(0, 0, 1, 0, 1.0, &a), -EINVAL);
	ck_assert_int_eq(ctx_available_gbps(100, 0, 1, 0, 0, &a), -EINVAL);
}
END_TEST

/*
 * A FIFO as counter_path or progress_path (meant to be fed by the
 * application) with no writer: an unreadable counter, not an agent hung
 * in open() every epoch.
 */
START_TEST(counter_fifo_does_not_block)
{
	char dir[] = "/tmp/indigo-counter-XXXXXX", path[64];
	uint64_t v = 7;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(ctx_read_counter(path, &v), -EINVAL);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* /proc/vmstat's demotion counters, summed: 6.12's four here */
START_TEST(vmstat_demoted)
{
	static const char v612[] =
		"nr_free_pages 3921\n"
		"pgpromote_success 77\n"
		"pgdemote_kswapd 1000\n"
		"pgdemote_direct 20\n"
		"pgdemote_khugepaged 3\n"
		"pgdemote_proactive 0\n"
		"pgsteal_kswapd 5\n";
	char path[64];
	uint64_t v = 7;
	FILE *f;
	int fd;

	ck_assert_int_eq(ctx_parse_vmstat_demoted(v612, &v), 0);
	ck_assert_uint_eq(v, 1023);
	/* the last line without its newline */
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgdemote_kswapd 9", &v), 0);
	ck_assert_uint_eq(v, 9);
	/* a kernel before 5.18: none, and @pages untouched */
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgpromote_success 1\n"
						  "pgsteal_direct 2\n", &v),
			 -ENOENT);
	ck_assert_int_eq(ctx_parse_vmstat_demoted("", &v), -ENOENT);
	ck_assert_uint_eq(v, 9);
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgdemote_kswapd x\n", &v),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgdemote_kswapd -1\n", &v),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgdemote_kswapd 12 3\n", &v),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_vmstat_demoted("pgdemote_kswapd\n", &v),
			 -EINVAL);
	ck_assert_int_eq(ctx_parse_vmstat_demoted(NULL, &v), -EINVAL);

	snprintf(path, sizeof(path), "/tmp/indigo-vmstat-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	f = fopen(path, "w");
	fputs(v612, f);
	fclose(f);
	ck_assert_int_eq(ctx_read_vmstat_demoted(path, &v), 0);
	ck_assert_uint_eq(v, 1023);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(ctx_read_vmstat_demoted(path, &v), -ENOENT);
}
END_TEST

static Suite *context_suite(void)
{
	Suite *s = suite_create("context");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_meminfo);
	tcase_add_test(tc, read_fake_sysfs);
	tcase_add_test(tc, fill_floor_per_node);
	tcase_add_test(tc, add_nodes);
	tcase_add_test(tc, many_far_nodes);
	tcase_add_test(tc, build_values);
	tcase_add_test(tc, counter_source);
	tcase_add_test(tc, counter_fifo_does_not_block);
	tcase_add_test(tc, vmstat_demoted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(context_suite());
}
