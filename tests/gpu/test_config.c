// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/gpu/gpuconfig.c: defaults, every key, every refusal. */
#include "check_main.h"
#include <errno.h>
#include <string.h>

#include "gpu.h"

START_TEST(defaults)
{
	struct gpu_config c;

	memset(&c, 0x55, sizeof(c));
	gpu_config_defaults(&c);
	ck_assert(c.enable);
	ck_assert_str_eq(c.driver, "libcuda.so.1");
	ck_assert_str_eq(c.sysfs_root, "/sys");
	ck_assert_int_eq(c.nodes, GPU_NODES_FAR);
	ck_assert(c.probe_share == 0.05);
	ck_assert_uint_eq(c.probe_page_bytes, 4096);
	ck_assert_uint_eq(c.probe_batch_kib, 16384);
	ck_assert_uint_eq(c.probe_reps, 8);
}
END_TEST

START_TEST(keys)
{
	struct gpu_config c;
	char err[128] = "";

	gpu_config_defaults(&c);
	ck_assert_int_eq(gpu_config_set(&c, "enable", "no", err, sizeof(err)), 0);
	ck_assert(!c.enable);
	ck_assert_int_eq(gpu_config_set(&c, "enable", "yes", err, sizeof(err)), 0);
	ck_assert(c.enable);
	ck_assert_int_eq(gpu_config_set(&c, "driver", "/opt/nv/libcuda.so.1", err,
					sizeof(err)), 0);
	ck_assert_str_eq(c.driver, "/opt/nv/libcuda.so.1");
	ck_assert_int_eq(gpu_config_set(&c, "sysfs_root", "/tmp/sys", err,
					sizeof(err)), 0);
	ck_assert_str_eq(c.sysfs_root, "/tmp/sys");
	ck_assert_int_eq(gpu_config_set(&c, "nodes", "fast", err, sizeof(err)), 0);
	ck_assert_int_eq(c.nodes, GPU_NODES_FAST);
	ck_assert_int_eq(gpu_config_set(&c, "nodes", "ignore", err, sizeof(err)), 0);
	ck_assert_int_eq(c.nodes, GPU_NODES_IGNORE);
	ck_assert_int_eq(gpu_config_set(&c, "probe_share", "1", err, sizeof(err)), 0);
	ck_assert(c.probe_share == 1);
	ck_assert_int_eq(gpu_config_set(&c, "probe_share", "0.01", err, sizeof(err)), 0);
	ck_assert(c.probe_share == 0.01);
	ck_assert_int_eq(gpu_config_set(&c, "probe_page_bytes", "65536", err,
					sizeof(err)), 0);
	ck_assert_uint_eq(c.probe_page_bytes, 65536);
	ck_assert_int_eq(gpu_config_set(&c, "probe_batch_kib", "64", err,
					sizeof(err)), 0);
	ck_assert_uint_eq(c.probe_batch_kib, 64);
	ck_assert_int_eq(gpu_config_set(&c, "probe_reps", "1000", err, sizeof(err)), 0);
	ck_assert_uint_eq(c.probe_reps, 1000);
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(refusals)
{
	static const char *const bad[][3] = {
		{ "enable", "true", "enable: \"true\" is not one of yes, no" },
		{ "nodes", "slow", "nodes: \"slow\" is not one of far, fast, ignore" },
		{ "driver", "", "driver: an empty path" },
		{ "probe_share", "0", "probe_share: 0 is out of range [0.01, 1]" },
		/* a probe 500 times its copies' time: minutes at a start */
		{ "probe_share", "0.002", "probe_share: 0.002 is out of range [0.01, 1]" },
		{ "probe_share", "1e-30", "probe_share: 1e-30 is out of range [0.01, 1]" },
		{ "probe_share", "1.5", "probe_share: 1.5 is out of range [0.01, 1]" },
		{ "probe_share", "nan", "probe_share: \"nan\" is not a number" },
		{ "probe_share", "1e999", "probe_share: 1e999 is out of range [0.01, 1]" },
		{ "probe_share", "", "probe_share: \"\" is not a number" },
		{ "probe_share", " 0.1", "probe_share: \" 0.1\" is not a number" },
		{ "probe_share", "0.1x", "probe_share: \"0.1x\" is not a number" },
		{ "probe_reps", "0", "probe_reps: 0 is out of range 1-1000" },
		{ "probe_reps", "-1", "probe_reps: \"-1\" is not a whole number" },
		{ "probe_reps", "99999999999999999999999",
		  "probe_reps: 99999999999999999999999 is out of range 1-1000" },
		{ "probe_page_bytes", "256", "probe_page_bytes: 256 is out of range 512-2097152" },
		{ "probe_batch_kib", "1048577", "probe_batch_kib: 1048577 is out of range 64-1048576" },
		{ "gpu_nodes", "far", "gpu_nodes: unknown key" },
		{ "probe_reps", "1\x01", "probe_reps: \"1?\" is not a whole number" },
	};
	struct gpu_config c, keep;
	char err[128], longpath[GPU_PATH_MAX + 1];
	size_t i;

	gpu_config_defaults(&keep);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = keep;
		err[0] = '\0';
		ck_assert_int_eq(gpu_config_set(&c, bad[i][0], bad[i][1], err,
						sizeof(err)), -EINVAL);
		ck_assert_str_eq(err, bad[i][2]);
		ck_assert(!memcmp(&c, &keep, sizeof(c)));
	}
	/*
	 * a batch smaller than a page is refused once all keys are set, not
	 * by the key that makes it so on the way: a page raised first and
	 * the batch after is as good as the other order
	 */
	c = keep;
	ck_assert_int_eq(gpu_config_set(&c, "probe_batch_kib", "64", err, sizeof(err)), 0);
	ck_assert_int_eq(gpu_config_set(&c, "probe_page_bytes", "131072", err,
					sizeof(err)), 0);
	ck_assert_int_eq(gpu_config_check(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "probe_batch_kib (64 KiB) is below probe_page_bytes "
			 "(131072 bytes)");
	ck_assert_int_eq(gpu_config_set(&c, "probe_batch_kib", "128", err,
					sizeof(err)), 0);
	ck_assert_int_eq(gpu_config_check(&c, err, sizeof(err)), 0);
	ck_assert_int_eq(gpu_config_set(&c, "probe_batch_kib", "63", err,
					sizeof(err)), -EINVAL);
	memset(longpath, 'a', GPU_PATH_MAX);
	longpath[GPU_PATH_MAX] = '\0';
	ck_assert_int_eq(gpu_config_set(&c, "driver", longpath, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "is longer than 255 bytes"));
	ck_assert_int_eq(gpu_config_set(&c, "driver", NULL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(gpu_config_set(&c, "probe_reps", "0", NULL, 0), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, keys);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
