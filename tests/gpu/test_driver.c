// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/gpu/driver.c, the CUDA backend, over a stand-in libcuda
 * (fakecuda.c, path in $INDIGO_FAKECUDA): the real dlopen, symbol lookup,
 * version check, discovery and probe, a driver too old, no device, a code
 * the driver cannot name, and a device lost mid-probe, with everything the
 * backend allocated in the driver released each time. Built only when
 * cuda.h is.
 */
#include "check_main.h"
#include <dlfcn.h>
#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "sysfs.h"

static struct gpu_config cfg;
static void *lib;
static int (*live)(void);
static int (*host_policy)(int pinned, unsigned long *mask);

static void setup(void)
{
	const char *path = getenv("INDIGO_FAKECUDA");

	ck_assert_msg(path && *path, "INDIGO_FAKECUDA: path of libfakecuda.so (make check-gpu sets it)");
	/* Our own reference keeps the fake's counters across the tier's dlclose */
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(lib, "%s", dlerror());
	live = (int (*)(void))dlsym(lib, "fakecuda_live");
	ck_assert_ptr_nonnull(live);
	host_policy = (int (*)(int, unsigned long *))dlsym(lib, "fakecuda_host_policy");
	ck_assert_ptr_nonnull(host_policy);
	gpu_config_defaults(&cfg);
	strcpy(cfg.driver, path);
	cfg.probe_share = 1;
	cfg.probe_batch_kib = 64;
	cfg.probe_reps = 3;
	sysfs_new("0\n", "0-1\n");
	strcpy(cfg.sysfs_root, sysfs);
	sysfs_put("bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
	unsetenv("FAKECUDA_VERSION");
	unsetenv("FAKECUDA_VERSION_RESULT");
	unsetenv("FAKECUDA_INIT");
	unsetenv("FAKECUDA_DEVICES");
	unsetenv("FAKECUDA_NUMA");
	unsetenv("FAKECUDA_HOST_NUMA");
	unsetenv("FAKECUDA_FAIL_COPY");
}

static void teardown(void)
{
	sysfs_drop();
	if (lib)
		dlclose(lib);
}

static int start(char *err, size_t n)
{
	struct gpu_tier *t;
	int e = gpu_tier_start(&cfg, &t, err, n);

	if (!e)
		gpu_tier_stop(t);
	ck_assert_int_eq(live(), 0);
	return e;
}

START_TEST(discover_and_probe)
{
	const struct gpu_info *g;
	struct gpu_tier *t;
	char err[256] = "";
	int d, m;

	setenv("FAKECUDA_DEVICES", "2", 1);
	setenv("FAKECUDA_NUMA", "1", 1);
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(gpu_tier_driver_version(t), 12080);
	ck_assert_uint_eq(gpu_tier_gpus(t, &g), 2);
	ck_assert_str_eq(g[0].name, "Fake H200 #0");
	ck_assert_str_eq(g[0].pci, "0000:3b:00.0");
	ck_assert_str_eq(g[1].pci, "0000:3c:00.0");
	ck_assert_uint_eq(g[0].mem_bytes, (uint64_t)141 << 30);
	ck_assert_int_eq(g[0].cc_major, 9);
	ck_assert_int_eq(g[0].host_node, 0);	/* sysfs */
	ck_assert_int_eq(g[1].host_node, 0);	/* not in sysfs: the driver's */
	ck_assert_int_eq(g[0].mem_node, 1);	/* NUMA_CONFIG + NUMA_ID */
	ck_assert_int_eq(g[1].mem_node, -1);
	ck_assert(gpu_nodeset_test(&gpu_tier_nodes(t)->far, 1));
	for (d = 0; d < GPU_NDIR; d++)
		for (m = 0; m < GPU_NMEM; m++)
			ck_assert(g[1].link.x[d][m].batch_bw > 0 &&
				  g[1].link.x[d][m].lat_ns > 0);
	/* between probes the driver holds nothing: no context, no buffers */
	ck_assert_int_eq(live(), 0);
	ck_assert_int_eq(gpu_tier_probe(t, err, sizeof(err)), 0);
	ck_assert_int_eq(live(), 0);
	gpu_tier_stop(t);
}
END_TEST

/*
 * The probe copies from host memory on the GPU's nearest node (0, from
 * sysfs), pinned and pageable both bound to it, the thread's own policy
 * left alone; with no node known (sysfs and driver say -1) it is unbound.
 */
START_TEST(host_memory_on_gpu_node)
{
	unsigned long mask;
	char err[256];
	int m, mode;

	ck_assert_int_eq(start(err, sizeof(err)), 0);
	for (m = 0; m < 2; m++) {
		ck_assert_int_eq(host_policy(m, &mask), MPOL_BIND);
		ck_assert_uint_eq(mask, 1);
	}
	ck_assert_int_eq(get_mempolicy(&mode, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(mode, MPOL_DEFAULT);
	sysfs_put("bus/pci/devices/0000:3b:00.0/numa_node", "-1\n");
	setenv("FAKECUDA_HOST_NUMA", "-1", 1);
	ck_assert_int_eq(start(err, sizeof(err)), 0);
	for (m = 0; m < 2; m++)
		ck_assert_int_eq(host_policy(m, &mask), MPOL_DEFAULT);
}
END_TEST

START_TEST(too_old)
{
	char err[256];

	setenv("FAKECUDA_VERSION", "10020", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EPROTO);
	ck_assert_str_eq(err, "CUDA driver 10.2 is too old: INDIGO needs 11.0 or newer");
}
END_TEST

/*
 * The toolkit's stub libcuda fails its very first call: the message must
 * say so (it is a search-path mistake the operator can fix), not only
 * that cuDriverGetVersion failed.
 */
START_TEST(stub_library)
{
	char err[256];

	setenv("FAKECUDA_VERSION_RESULT", "34", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "cuDriverGetVersion: CUDA_ERROR_STUB_LIBRARY: "
			      "a stub libcuda was loaded, not the driver's"),
		      "%s", err);
	ck_assert_ptr_null(strchr(err, '\n'));
	setenv("FAKECUDA_VERSION_RESULT", "999", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "cuDriverGetVersion: CUDA_ERROR_UNKNOWN"), "%s", err);
}
END_TEST

START_TEST(no_device)
{
	char err[256];

	setenv("FAKECUDA_INIT", "100", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -ENODEV);
	/* the driver's own words */
	ck_assert_str_eq(err, "cuInit: CUDA_ERROR_NO_DEVICE: fake: no CUDA-capable device is detected");
	setenv("FAKECUDA_INIT", "0", 1);
	setenv("FAKECUDA_DEVICES", "0", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -ENODEV);
	ck_assert_str_eq(err, "no GPU found");
}
END_TEST

/* Codes the driver does not name come from INDIGO's table */
START_TEST(unnamed_codes)
{
	char err[256];

	setenv("FAKECUDA_INIT", "803", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EPROTO);
	ck_assert_str_eq(err, "cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: "
			 "kernel driver and libcuda versions differ");
	setenv("FAKECUDA_INIT", "4321", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EIO);
	ck_assert_str_eq(err, "cuInit: CUresult 4321: unknown code (a driver newer than INDIGO?)");
}
END_TEST

START_TEST(lost_mid_probe)
{
	char err[256];
	int k;

	for (k = 1; k <= 4 * (2 * 3 + 1); k += 5) {
		char v[32];

		snprintf(v, sizeof(v), "%d:999", k);
		setenv("FAKECUDA_FAIL_COPY", v, 1);
		ck_assert_int_eq(start(err, sizeof(err)), -ENODEV);
		ck_assert_ptr_nonnull(strstr(err, "GPU 0: "));
		ck_assert_ptr_nonnull(strstr(err, "CUDA_ERROR_UNKNOWN: fake: device fell off the bus"));
	}
	setenv("FAKECUDA_FAIL_COPY", "1:999", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -ENODEV);
	ck_assert_str_eq(err, "GPU 0: h2d pinned copy of 1 x 4096 bytes: "
			 "CUDA_ERROR_UNKNOWN: fake: device fell off the bus");
	/* busy (another process holds it in exclusive-process mode): not lost */
	setenv("FAKECUDA_FAIL_COPY", "1:46", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -EBUSY);
	ck_assert_str_eq(err, "GPU 0: h2d pinned copy of 1 x 4096 bytes: "
			 "CUDA_ERROR_DEVICE_UNAVAILABLE: fake: device busy or unavailable");
}
END_TEST

/*
 * A driver library that is there but needs one that is not (a driver
 * half installed) is a driver that cannot load, not "no NVIDIA driver".
 */
START_TEST(missing_dependency)
{
	char err[512], *slash;

	slash = strrchr(cfg.driver, '/');
	ck_assert_ptr_nonnull(slash);
	strcpy(slash + 1, "libindigo-needsgone.so");
	ck_assert_int_eq(start(err, sizeof(err)), -EPROTO);
	ck_assert_msg(!strncmp(err, "cannot load the CUDA driver: libindigo-gone.so: ", 48),
		      "%s", err);
}
END_TEST

/*
 * After cuInit the driver is never unloaded (libcuda's threads run its
 * code): stopping the tier, or a start that fails past cuInit, leaves it
 * mapped once this test's own reference is gone too.
 */
START_TEST(driver_stays_loaded)
{
	const char *path = getenv("INDIGO_FAKECUDA");
	struct gpu_tier *t;
	char err[256];
	void *h;

	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), 0);
	gpu_tier_stop(t);
	setenv("FAKECUDA_INIT", "100", 1);
	ck_assert_int_eq(start(err, sizeof(err)), -ENODEV);
	dlclose(lib);
	lib = NULL;
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	ck_assert_msg(h, "the driver was unloaded after cuInit");
	dlclose(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-driver");
	TCase *tc = tcase_create("driver");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, discover_and_probe);
	tcase_add_test(tc, host_memory_on_gpu_node);
	tcase_add_test(tc, too_old);
	tcase_add_test(tc, stub_library);
	tcase_add_test(tc, no_device);
	tcase_add_test(tc, unnamed_codes);
	tcase_add_test(tc, lost_mid_probe);
	tcase_add_test(tc, missing_dependency);
	tcase_add_test(tc, driver_stays_loaded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
