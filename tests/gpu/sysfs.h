/* SPDX-License-Identifier: GPL-2.0 */
/* A fake sysfs tree for tests: nodes' masks and PCI devices' numa_node. */
#ifndef INDIGO_TEST_GPU_SYSFS_H
#define INDIGO_TEST_GPU_SYSFS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sysfs[64];

/* Writes ROOT/REL, creating its directories. */
static inline void sysfs_put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* A fresh tree with node masks @cpu and @mem. */
static inline void sysfs_new(const char *cpu, const char *mem)
{
	strcpy(sysfs, "/tmp/indigo-gpu-sysfs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(sysfs));
	sysfs_put("devices/system/node/has_cpu", cpu);
	sysfs_put("devices/system/node/has_memory", mem);
}

static inline void sysfs_drop(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysfs);
	ck_assert_int_eq(system(cmd), 0);
}

#endif /* INDIGO_TEST_GPU_SYSFS_H */
