// SPDX-License-Identifier: GPL-2.0
/* Node masks and PCI locality from sysfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

#define LINE_MAX_B	4096	/* a node list of 1024 ids fits */

/* Reads the small text file ROOT/REL into @buf. -errno, or -EINVAL if it does not fit. */
static int read_small(const char *root, const char *rel, char *buf, size_t n)
{
	char path[512];
	size_t got;
	FILE *f;
	int e;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	got = fread(buf, 1, n - 1, f);
	e = ferror(f) ? -EIO : 0;
	if (!e && !feof(f))
		e = -EINVAL;
	fclose(f);
	if (e)
		return e;
	buf[got] = '\0';
	return 0;
}

static int read_set(const char *root, const char *rel, struct gpu_nodeset *s)
{
	char buf[LINE_MAX_B];
	int e = read_small(root, rel, buf, sizeof(buf));

	return e ? e : gpu_nodeset_parse(buf, s);
}

int gpu_topo_read(const char *sysfs_root, struct gpu_topo *t)
{
	struct gpu_topo r;
	int e;

	if (!sysfs_root || !t)
		return -EINVAL;
	e = read_set(sysfs_root, "devices/system/node/has_cpu", &r.cpu);
	if (!e)
		e = read_set(sysfs_root, "devices/system/node/has_memory", &r.mem);
	if (!e)
		*t = r;
	return e;
}

int gpu_pci_name(const char *busid, char *out, size_t n)
{
	unsigned int dom, bus, dev, fn;
	int used = 0;

	/*
	 * Only hex digits and separators: scanf's %x would take "0x" too.
	 * The domain is 32 bits, as the kernel's (Intel VMD's start at
	 * 0x10000) and the driver's 8 digits have it. The widths keep a
	 * longer field from wrapping into a valid one.
	 */
	if (!busid || !out ||
	    busid[strspn(busid, "0123456789abcdefABCDEF:.")] ||
	    sscanf(busid, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 ||
	    busid[used] || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	if (snprintf(out, n, "%04x:%02x:%02x.%x", dom, bus, dev, fn) >= (int)n)
		return -EINVAL;
	return 0;
}

int gpu_pci_numa_node(const char *sysfs_root, const char *pci, int *node)
{
	char rel[128], buf[32], *end;
	long v;
	int e;

	if (!sysfs_root || !pci || !node || strchr(pci, '/'))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/numa_node", pci);
	e = read_small(sysfs_root, rel, buf, sizeof(buf));
	if (e)
		return e;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && strcmp(end, "\n")) || errno ||
	    v < -1 || v >= GPU_NODE_IDS)
		return -EINVAL;
	*node = (int)v;
	return 0;
}
