// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/gpu/tiers.c: node lists in the kernel's syntax, and tier
 * maps built from described topologies (a plain server, CXL far memory,
 * Grace Hopper, whose GPU memory is a CPU-less node) in each gpu.nodes mode.
 */
#include "check_main.h"
#include <errno.h>
#include <string.h>

#include "tiers.h"

static struct gpu_nodeset set(const char *s)
{
	struct gpu_nodeset r;

	ck_assert_msg(!gpu_nodeset_parse(s, &r), "\"%s\"", s);
	return r;
}

static void is(const struct gpu_nodeset *s, const char *want)
{
	char buf[256];

	ck_assert_int_eq(gpu_nodeset_format(s, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
}

START_TEST(lists)
{
	static const char *const ok[][2] = {
		{ "", "" }, { "\n", "" }, { "0\n", "0" }, { "0-1,3", "0-1,3" },
		{ "3,0-1\n", "0-1,3" }, { "1,2,3,5", "1-3,5" },
		{ "0-1023", "0-1023" }, { "7-7", "7" }, { "2,2", "2" },
	};
	static const char *const bad[] = {
		"a", "1,", ",1", "1-", "-1", "3-1", "1024", "0-1024", "1 2",
		"1\n\n", "1,,2", "99999999999999999999",
	};
	struct gpu_nodeset s, keep;
	char small[4];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		s = set(ok[i][0]);
		is(&s, ok[i][1]);
	}
	keep = set("5");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = keep;
		ck_assert_msg(gpu_nodeset_parse(bad[i], &s) == -EINVAL, "\"%s\"",
			      bad[i]);
		is(&s, "5");	/* untouched */
	}
	s = set("0-1023");
	ck_assert_int_eq(gpu_nodeset_count(&s), 1024);
	ck_assert(gpu_nodeset_test(&s, 1023));
	ck_assert(!gpu_nodeset_test(&s, 1024));
	ck_assert(!gpu_nodeset_test(&s, -1));
	s = set("100,200");
	ck_assert_int_eq(gpu_nodeset_format(&s, small, sizeof(small)), -ENOSPC);
	ck_assert_str_eq(small, "");
}
END_TEST

static struct gpu_topo topo(const char *cpu, const char *mem)
{
	struct gpu_topo t = { .cpu = set(cpu), .mem = set(mem) };

	return t;
}

static void map_is(const struct gpu_tier_map *m, const char *local,
		   const char *far, const char *fast, const char *ignored)
{
	is(&m->local, local);
	is(&m->far, far);
	is(&m->fast, fast);
	is(&m->ignored, ignored);
}

START_TEST(plain_and_cxl)
{
	struct gpu_topo t = topo("0-1", "0-1");
	struct gpu_tier_map m;

	/* two sockets, no GPU, no far memory */
	ck_assert_int_eq(gpu_tiers_build(&t, NULL, 0, GPU_NODES_FAR, &m, NULL, 0), 0);
	map_is(&m, "0-1", "", "", "");
	/* a CXL expander (node 2) and a memoryless CPU node (3) */
	t = topo("0-1,3", "0-2");
	ck_assert_int_eq(gpu_tiers_build(&t, NULL, 0, GPU_NODES_FAST, &m, NULL, 0), 0);
	map_is(&m, "0-1", "2", "", "");
}
END_TEST

/*
 * Grace Hopper: node 0 is Grace's LPDDR, node 1 a CXL expander, and the
 * H200's HBM is node 4; nodes 2-3 and 5-9 are the driver's spare nodes for
 * MIG instances, not online with memory.
 */
START_TEST(grace_hopper)
{
	static const int gpu_node[] = { 4 };
	struct gpu_topo t = topo("0", "0-1,4");
	struct gpu_tier_map m;

	ck_assert_int_eq(gpu_tiers_build(&t, gpu_node, 1, GPU_NODES_FAR, &m,
					 NULL, 0), 0);
	map_is(&m, "0", "1,4", "", "");
	ck_assert_int_eq(gpu_tiers_build(&t, gpu_node, 1, GPU_NODES_FAST, &m,
					 NULL, 0), 0);
	map_is(&m, "0", "1", "4", "");
	ck_assert_int_eq(gpu_tiers_build(&t, gpu_node, 1, GPU_NODES_IGNORE, &m,
					 NULL, 0), 0);
	map_is(&m, "0", "1", "", "4");
}
END_TEST

/* Two GPUs: one coherent (node 2), one on PCIe (-1); a GPU node offline */
START_TEST(mixed_gpus)
{
	static const int gpu_node[] = { 2, -1, 5 };
	struct gpu_topo t = topo("0-1", "0-2");
	struct gpu_tier_map m;

	ck_assert_int_eq(gpu_tiers_build(&t, gpu_node, 3, GPU_NODES_FAST, &m,
					 NULL, 0), 0);
	map_is(&m, "0-1", "", "2", "");
}
END_TEST

START_TEST(inconsistent)
{
	struct gpu_topo t = topo("0", "0-2");
	struct gpu_tier_map m, keep;
	int on_cpu[] = { 0 }, twice[] = { 1, 1 }, range[] = { 1024 },
	    neg[] = { -7 };
	char err[128];

	memset(&keep, 0x33, sizeof(keep));
	m = keep;
	ck_assert_int_eq(gpu_tiers_build(&t, on_cpu, 1, GPU_NODES_FAR, &m, err,
					 sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "GPU 0: memory node 0 has CPUs: it cannot be GPU memory");
	ck_assert_int_eq(gpu_tiers_build(&t, twice, 2, GPU_NODES_FAR, &m, err,
					 sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "GPU 1: memory node 1 is claimed by another GPU too");
	ck_assert_int_eq(gpu_tiers_build(&t, range, 1, GPU_NODES_FAR, &m, err,
					 sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "GPU 0: memory node 1024 is out of range");
	ck_assert_int_eq(gpu_tiers_build(&t, neg, 1, GPU_NODES_FAR, &m, NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(gpu_tiers_build(&t, NULL, 0, 3, &m, NULL, 0), -EINVAL);
	ck_assert_int_eq(gpu_tiers_build(&t, NULL, 1, GPU_NODES_FAR, &m, NULL, 0),
			 -EINVAL);
	ck_assert(!memcmp(&m, &keep, sizeof(m)));	/* untouched */
	ck_assert_str_eq(gpu_nodes_mode_name(GPU_NODES_IGNORE), "ignore");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-tiers");
	TCase *tc = tcase_create("tiers");

	tcase_add_test(tc, lists);
	tcase_add_test(tc, plain_and_cxl);
	tcase_add_test(tc, grace_hopper);
	tcase_add_test(tc, mixed_gpus);
	tcase_add_test(tc, inconsistent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
