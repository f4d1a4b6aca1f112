/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where GPUs and nodes are, as sysfs tells it. @sysfs_root is where sysfs
 * is mounted: "/sys", or a fake tree in tests. 0 or a negative errno; none
 * prints.
 */
#ifndef INDIGO_GPU_TOPO_H
#define INDIGO_GPU_TOPO_H

#include <stddef.h>

#include "tiers.h"

/*
 * Reads SYSFS/devices/system/node/has_cpu and has_memory. -ENOENT when
 * the kernel has no NUMA nodes directory, -EINVAL for a malformed list,
 * -errno on read errors.
 */
int gpu_topo_read(const char *sysfs_root, struct gpu_topo *t);

/*
 * The sysfs name of a PCI function from the driver's bus id: "00000000:3B:00.0"
 * or "0000:3b:00.0" both give "0000:3b:00.0"; a domain past 16 bits keeps
 * its digits ("00010000:01:00.0" gives "10000:01:00.0", as the kernel
 * names it). -EINVAL if @busid is not one.
 */
int gpu_pci_name(const char *busid, char *out, size_t n);

/*
 * The NUMA node nearest PCI function @pci (sysfs name):
 * SYSFS/bus/pci/devices/PCI/numa_node; -1 where the kernel knows none.
 * -ENOENT if there is no such device, -EINVAL for a malformed file.
 */
int gpu_pci_numa_node(const char *sysfs_root, const char *pci, int *node);

#endif /* INDIGO_GPU_TOPO_H */
