// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/gpu/gpu.c: the tier from start to stop over the fake
 * backend and a fake sysfs (discovery, node map, probe, JSON, the cost
 * model's link), every way it can fail, and gpu_tier_start() without a
 * driver.
 */
#include "check_main.h"
#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "costmodel.h"
#include "fake.h"
#include "sysfs.h"

static struct gpu_config cfg;
static struct fake f;

static void setup(void)
{
	gpu_config_defaults(&cfg);
	sysfs_new("0-1\n", "0-1\n");
	strcpy(cfg.sysfs_root, sysfs);
	sysfs_put("bus/pci/devices/0000:3b:00.0/numa_node", "1\n");
	fake_init(&f);
	cfg.probe_share = 1;	/* the fake's pauses cost nothing anyway */
	cfg.probe_batch_kib = 1024;
}

static void teardown(void)
{
	sysfs_drop();
}

static struct json_object *at(struct json_object *o, const char *path)
{
	char buf[128], *key, *save = NULL;
	struct json_object *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(v, json_type_array))
			v = json_object_array_get_idx(v, atoi(key));
		else
			ck_assert_msg(json_object_object_get_ex(v, key, &v), "%s", path);
		ck_assert_ptr_nonnull(v);
	}
	return v;
}

START_TEST(pcie_gpu)
{
	const struct gpu_info *g;
	struct gpu_tier *t;
	struct json_object *o;
	char err[256] = "";

	ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(gpu_tier_gpus(t, &g), 1);
	ck_assert_str_eq(g->name, "NVIDIA H200");
	ck_assert_str_eq(g->pci, "0000:3b:00.0");
	ck_assert_int_eq(g->host_node, 1);	/* from sysfs */
	ck_assert_int_eq(f.open_node[0], 1);	/* and probed from there */
	ck_assert_int_eq(g->mem_node, -1);
	ck_assert_int_eq(g->cc_major, 9);
	ck_assert(g->link.x[GPU_D2H][GPU_PINNED].batch_bw > 0);
	ck_assert_int_eq(gpu_tier_driver_version(t), 12080);
	ck_assert_int_eq(gpu_nodeset_count(&gpu_tier_nodes(t)->local), 2);
	ck_assert_int_eq(gpu_nodeset_count(&gpu_tier_nodes(t)->far), 0);

	o = json_object_new_object();
	ck_assert_int_eq(gpu_tier_json(t, o), 0);
	ck_assert_int_eq(json_object_get_int(at(o, "gpu.driver_version")), 12080);
	ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes_mode")), "far");
	ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.local")), "0-1");
	ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.far")), "");
	ck_assert_str_eq(json_object_get_string(at(o, "gpu.gpus.0.name")), "NVIDIA H200");
	ck_assert_int_eq(json_object_get_int64(at(o, "gpu.gpus.0.mem_bytes")),
			 150754820096LL);
	ck_assert(json_object_get_double(at(o, "gpu.gpus.0.link.h2d.pinned.batch_bw")) ==
		  g->link.x[GPU_H2D][GPU_PINNED].batch_bw);
	ck_assert(json_object_get_double(at(o, "gpu.gpus.0.link.d2h.pageable.lat_ns")) ==
		  g->link.x[GPU_D2H][GPU_PAGEABLE].lat_ns);
	json_object_put(o);

	gpu_tier_stop(t);
	ck_assert_int_eq(f.closes, 1);
	ck_assert_int_eq(f.opens, f.dev_closes);
}
END_TEST

START_TEST(cost_model_link)
{
	const struct cm_link base = {
		.bandwidth = 12.5e9, .far_ns = 900, .local_ns = 100,
		.page_bytes = 4096, .k_ns = 1000,
	};
	const struct gpu_info *g;
	struct gpu_tier *t;
	struct cm_link l;
	double bw, lat, cost;

	ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, NULL, 0), 0);
	gpu_tier_gpus(t, &g);
	bw = g->link.x[GPU_D2H][GPU_PINNED].batch_bw;
	lat = g->link.x[GPU_D2H][GPU_PINNED].lat_ns;
	ck_assert_int_eq(gpu_tier_cm_link(t, 0, GPU_D2H, &base, &l), 0);
	ck_assert(l.bandwidth == bw);
	ck_assert(fabs(l.k_ns - (1000 + lat - 4096 / bw * 1e9)) < 1e-6);
	ck_assert(l.far_ns == 900 && l.local_ns == 100 && l.page_bytes == 4096);
	/* a page's cost is then the page copy's latency plus the base k */
	ck_assert_int_eq(cm_promotion_cost(&l, &cost), 0);
	ck_assert(fabs(cost - (lat + 1000) / 1e9) < 1e-15);
	ck_assert_int_eq(gpu_tier_cm_link(t, 0, GPU_H2D, &base, &l), 0);
	ck_assert(l.bandwidth == g->link.x[GPU_H2D][GPU_PINNED].batch_bw);
	ck_assert_int_eq(gpu_tier_cm_link(t, 1, GPU_D2H, &base, &l), -EINVAL);
	ck_assert_int_eq(gpu_tier_cm_link(t, 0, GPU_NDIR, &base, &l), -EINVAL);
	ck_assert_int_eq(gpu_tier_cm_link(NULL, 0, GPU_D2H, &base, &l), -EINVAL);
	gpu_tier_stop(t);
}
END_TEST

/*
 * The per-copy fixed cost comes from the probe's own page copy: its
 * latency less the transfer time of probe_page_bytes, not of the cost
 * model's page, which may differ (here 64 KiB probed, 4 KiB migrated).
 */
START_TEST(cost_model_link_probe_page)
{
	const struct cm_link base = {
		.bandwidth = 12.5e9, .far_ns = 900, .local_ns = 100,
		.page_bytes = 4096, .k_ns = 0,
	};
	const struct gpu_info *g;
	struct gpu_tier *t;
	struct cm_link l;
	double bw, lat;

	cfg.probe_page_bytes = 65536;
	ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, NULL, 0), 0);
	gpu_tier_gpus(t, &g);
	bw = g->link.x[GPU_D2H][GPU_PINNED].batch_bw;
	lat = g->link.x[GPU_D2H][GPU_PINNED].lat_ns;
	ck_assert_int_eq(gpu_tier_cm_link(t, 0, GPU_D2H, &base, &l), 0);
	ck_assert_msg(fabs(l.k_ns - (lat - 65536 / bw * 1e9)) < 1e-6,
		      "k_ns %g, want %g", l.k_ns, lat - 65536 / bw * 1e9);
	/* the fake's copies cost 10 us each besides their bytes */
	ck_assert_msg(fabs(l.k_ns - 10e3) < 1e3, "k_ns %g, want about 10000", l.k_ns);
	ck_assert(l.page_bytes == 4096);
	gpu_tier_stop(t);
}
END_TEST

/* GPU memory as node 2; the bus id is not in sysfs: the driver's host node */
START_TEST(coherent_gpu)
{
	static const int modes[] = { GPU_NODES_FAR, GPU_NODES_FAST, GPU_NODES_IGNORE };
	struct json_object *o;
	const struct gpu_info *g;
	struct gpu_tier *t;
	size_t i;

	sysfs_put("devices/system/node/has_memory", "0-2\n");
	for (i = 0; i < 3; i++) {
		fake_init(&f);
		strcpy(f.desc[0].busid, "0009:01:00.0");
		f.desc[0].mem_node = 2;
		f.desc[0].host_node = 0;
		cfg.nodes = modes[i];
		ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, NULL, 0), 0);
		gpu_tier_gpus(t, &g);
		ck_assert_int_eq(g->host_node, 0);
		ck_assert_int_eq(g->mem_node, 2);
		o = json_object_new_object();
		ck_assert_int_eq(gpu_tier_json(t, o), 0);
		ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.local")), "0-1");
		ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.far")),
				 i == 0 ? "2" : "");
		ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.fast")),
				 i == 1 ? "2" : "");
		ck_assert_str_eq(json_object_get_string(at(o, "gpu.nodes.ignored")),
				 i == 2 ? "2" : "");
		ck_assert_int_eq(json_object_get_int(at(o, "gpu.gpus.0.mem_node")), 2);
		json_object_put(o);
		gpu_tier_stop(t);
	}
}
END_TEST

/* Starts over the fake; expects @e and a message containing @msg. */
static void fails(int e, const char *msg)
{
	struct gpu_tier *t = (struct gpu_tier *)&f;
	char err[256] = "";

	ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, err, sizeof(err)), e);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, msg), "\"%s\" lacks \"%s\"", err, msg);
	ck_assert_ptr_null(strchr(err, '\n'));
	ck_assert_int_eq(f.closes, 1);	/* the backend closed, once */
	ck_assert_int_eq(f.opens, f.dev_closes);
	fake_init(&f);
}

START_TEST(failures)
{
	f.ndev = 0;
	fails(-ENODEV, "no GPU found");
	f.count_code = 100;
	fails(-ENODEV, "counting GPUs: CUDA_ERROR_NO_DEVICE: no CUDA-capable device detected");
	f.describe_code = 999;
	fails(-ENODEV, "GPU 0: reading its properties: CUDA_ERROR_UNKNOWN");
	strcpy(f.desc[0].busid, "what");
	fails(-EIO, "GPU 0: unreadable PCI bus id \"what\"");
	f.desc[0].mem_node = 0;		/* a node with CPUs */
	fails(-EINVAL, "GPU 0: memory node 0 has CPUs");
	f.fail_at = 5;
	f.fail_code = 999;
	fails(-ENODEV, "GPU 0: h2d pinned copy of 1 x 4096 bytes: CUDA_ERROR_UNKNOWN");
	/* a GPU another process holds (exclusive-process mode) is busy, not lost */
	f.open_code = 46;
	fails(-EBUSY, "GPU 0: setting up the probe: CUDA_ERROR_DEVICE_UNAVAILABLE");
	f.open_code = 2;
	fails(-ENOMEM, "GPU 0: setting up the probe: CUDA_ERROR_OUT_OF_MEMORY");
	strcpy(cfg.sysfs_root, "/nonexistent");
	fails(-ENOENT, "reading NUMA nodes under /nonexistent/devices/system/node");
}
END_TEST

/* A second GPU lost while the first probed fine: no figures change */
START_TEST(reprobe)
{
	const struct gpu_info *g;
	struct gpu_link before;
	struct gpu_tier *t;
	char err[256];

	f.ndev = 2;
	f.desc[1] = f.desc[0];
	strcpy(f.desc[1].busid, "0000:3c:00.0");
	ck_assert_int_eq(gpu_tier_start_backend(&cfg, &f.b, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(gpu_tier_gpus(t, &g), 2);
	ck_assert_int_eq(g[1].host_node, -1);	/* neither sysfs nor driver know */
	ck_assert_int_eq(f.open_node[1], -1);
	before = g[0].link;
	f.bw[GPU_H2D][GPU_PINNED] = 25e9;
	/* the second GPU's first copy */
	f.fail_at = f.copies + GPU_NDIR * GPU_NMEM * (2 * cfg.probe_reps + 1) + 1;
	f.fail_code = 719;
	ck_assert_int_eq(gpu_tier_probe(t, err, sizeof(err)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(err, "GPU 1: h2d pinned copy"));
	ck_assert(!memcmp(&g[0].link, &before, sizeof(before)));
	/*
	 * The second GPU busy (another process holds it in exclusive-process
	 * mode) is not lost: the caller keeps the tier and its figures.
	 */
	f.fail_at = f.copies + GPU_NDIR * GPU_NMEM * (2 * cfg.probe_reps + 1) + 1;
	f.fail_code = 46;
	ck_assert_int_eq(gpu_tier_probe(t, err, sizeof(err)), -EBUSY);
	ck_assert_ptr_nonnull(strstr(err, "CUDA_ERROR_DEVICE_UNAVAILABLE"));
	ck_assert(!memcmp(&g[0].link, &before, sizeof(before)));
	f.fail_at = 0;
	ck_assert_int_eq(gpu_tier_probe(t, err, sizeof(err)), 0);
	ck_assert(g[0].link.x[GPU_H2D][GPU_PINNED].batch_bw <
		  before.x[GPU_H2D][GPU_PINNED].batch_bw);
	gpu_tier_stop(t);
	ck_assert_int_eq(gpu_tier_probe(NULL, err, sizeof(err)), -EINVAL);
}
END_TEST

/* gpu_tier_start() itself: switched off, no driver, not a driver */
START_TEST(no_driver)
{
	struct gpu_tier *t = (struct gpu_tier *)&f;
	char err[512];

	cfg.enable = false;
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), -ENOTSUP);
	ck_assert_str_eq(err, "GPU tier switched off (gpu.enable = no)");
	ck_assert_ptr_null(t);
	cfg.enable = true;
	strcpy(cfg.driver, "/nonexistent/libcuda.so.1");
#ifdef INDIGO_GPU
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), -ENOENT);
	ck_assert_msg(!strncmp(err, "no NVIDIA driver: /nonexistent/libcuda.so.1: ", 44),
		      "%s", err);
	strcpy(cfg.driver, "libm.so.6");
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), -EPROTO);
	ck_assert_str_eq(err, "libm.so.6 is not a usable CUDA driver: it lacks cuDriverGetVersion");
	strcpy(cfg.driver, "/etc/hostname");
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), -EPROTO);
	ck_assert_msg(!strncmp(err, "cannot load the CUDA driver: ", 29), "%s", err);
#else
	ck_assert_int_eq(gpu_tier_start(&cfg, &t, err, sizeof(err)), -ENOTSUP);
	ck_assert_str_eq(err, "GPU backend left out at build time (no cuda.h)");
#endif
	ck_assert_ptr_null(t);
	ck_assert_ptr_null(strchr(err, '\n'));
	ck_assert_int_eq(gpu_tier_start(NULL, &t, err, sizeof(err)), -EINVAL);
	gpu_tier_stop(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-tier");
	TCase *tc = tcase_create("tier");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pcie_gpu);
	tcase_add_test(tc, cost_model_link);
	tcase_add_test(tc, cost_model_link_probe_page);
	tcase_add_test(tc, coherent_gpu);
	tcase_add_test(tc, failures);
	tcase_add_test(tc, reprobe);
	tcase_add_test(tc, no_driver);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
