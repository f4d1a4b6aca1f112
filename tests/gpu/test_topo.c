// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/gpu/topo.c over a fake sysfs tree. */
#include "check_main.h"
#include <errno.h>
#include <string.h>

#include "sysfs.h"
#include "topo.h"

START_TEST(nodes)
{
	struct gpu_topo t;
	char buf[64];

	sysfs_new("0-1\n", "0-2,4\n");
	ck_assert_int_eq(gpu_topo_read(sysfs, &t), 0);
	gpu_nodeset_format(&t.cpu, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-1");
	gpu_nodeset_format(&t.mem, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-2,4");
	sysfs_put("devices/system/node/has_memory", "zero\n");
	ck_assert_int_eq(gpu_topo_read(sysfs, &t), -EINVAL);
	sysfs_drop();
	ck_assert_int_eq(gpu_topo_read(sysfs, &t), -ENOENT);
	ck_assert_int_eq(gpu_topo_read(NULL, &t), -EINVAL);
}
END_TEST

START_TEST(pci_names)
{
	static const char *const ok[][2] = {
		{ "00000000:3B:00.0", "0000:3b:00.0" },
		{ "0000:3b:00.0", "0000:3b:00.0" },
		{ "0001:C1:1F.7", "0001:c1:1f.7" },
		/* domains past 16 bits (Intel VMD's start at 0x10000) */
		{ "00010000:01:00.0", "10000:01:00.0" },
		{ "10000:3b:00.0", "10000:3b:00.0" },
		{ "FFFFFFFF:3B:00.0", "ffffffff:3b:00.0" },
	};
	static const char *const bad[] = {
		"", "3b:00.0", "0000:3b:00", "0000:3b:20.0", "0000:3b:00.8",
		"0000:100:00.0", "100000000:3b:00.0", "000000000:3b:00.0",
		"0000:3b:00.0x", "zz:3b:00.0", ":3b:00.0", "0000:10000003b:00.0",
	};
	char out[GPU_NODE_IDS];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(gpu_pci_name(ok[i][0], out, sizeof(out)), 0);
		ck_assert_str_eq(out, ok[i][1]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(gpu_pci_name(bad[i], out, sizeof(out)) == -EINVAL,
			      "\"%s\"", bad[i]);
	ck_assert_int_eq(gpu_pci_name(ok[0][0], out, 12), -EINVAL);
}
END_TEST

START_TEST(pci_node)
{
	int node = 99;

	sysfs_new("0", "0");
	sysfs_put("bus/pci/devices/0000:3b:00.0/numa_node", "1\n");
	sysfs_put("bus/pci/devices/0000:3c:00.0/numa_node", "-1\n");
	sysfs_put("bus/pci/devices/0000:3d:00.0/numa_node", "one\n");
	sysfs_put("bus/pci/devices/0000:3e:00.0/numa_node", "5000\n");
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "0000:3b:00.0", &node), 0);
	ck_assert_int_eq(node, 1);
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "0000:3c:00.0", &node), 0);
	ck_assert_int_eq(node, -1);
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "0000:3d:00.0", &node), -EINVAL);
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "0000:3e:00.0", &node), -EINVAL);
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "0000:3f:00.0", &node), -ENOENT);
	ck_assert_int_eq(gpu_pci_numa_node(sysfs, "../../x", &node), -EINVAL);
	ck_assert_int_eq(node, -1);
	sysfs_drop();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-topo");
	TCase *tc = tcase_create("topo");

	tcase_add_test(tc, nodes);
	tcase_add_test(tc, pci_names);
	tcase_add_test(tc, pci_node);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
