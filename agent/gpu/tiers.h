/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tier map: which NUMA nodes are local DRAM, which are far memory that
 * the module gates, and which are GPU memory (on coherent systems such as
 * Grace Hopper a GPU's memory is a CPU-less node) treated, as the config's
 * gpu.nodes says, as far memory, a fast tier, or not at all.
 *
 * Pure C over described topologies: tests build maps without a GPU.
 * Functions return 0 or a negative errno and never print.
 */
#ifndef INDIGO_GPU_TIERS_H
#define INDIGO_GPU_TIERS_H

#include <stddef.h>
#include <stdint.h>

#define GPU_NODE_IDS	1024	/* node ids 0..GPU_NODE_IDS-1, as context.h */

struct gpu_nodeset {
	uint64_t w[GPU_NODE_IDS / 64];
};

/* Parses a kernel node list ("0-1,3\n"; "" or "\n" is empty). -EINVAL. */
int gpu_nodeset_parse(const char *s, struct gpu_nodeset *set);

/* Writes @set as a node list ("0-1,3", "" if empty). -ENOSPC if @n is short. */
int gpu_nodeset_format(const struct gpu_nodeset *set, char *buf, size_t n);

int gpu_nodeset_test(const struct gpu_nodeset *set, int node);
void gpu_nodeset_add(struct gpu_nodeset *set, int node);
int gpu_nodeset_count(const struct gpu_nodeset *set);

/* What sysfs says of the nodes. */
struct gpu_topo {
	struct gpu_nodeset cpu;		/* nodes with CPUs (has_cpu) */
	struct gpu_nodeset mem;		/* nodes with memory (has_memory) */
};

enum gpu_nodes_mode {
	GPU_NODES_FAR,		/* GPU memory is far memory, gated like CXL */
	GPU_NODES_FAST,		/* a fast tier: not gated, a promotion target */
	GPU_NODES_IGNORE,	/* neither: the module and agent leave it alone */
};

struct gpu_tier_map {
	struct gpu_nodeset local;	/* memory and CPUs */
	struct gpu_nodeset far;		/* the module's far_nodes */
	struct gpu_nodeset fast;	/* GPU memory with gpu.nodes = fast */
	struct gpu_nodeset ignored;	/* GPU memory with gpu.nodes = ignore */
};

/*
 * Builds @m from @t and the NUMA node of each GPU's memory
 * (@gpu_mem_node[0..@ngpu), -1 for a GPU whose memory is no node). Nodes
 * with CPUs and memory are local; CPU-less memory nodes are far, except GPU
 * memory, which goes where @mode says. A GPU node not (yet) online with
 * memory is left out. -EINVAL, with the reason in @err, when a GPU's node
 * is out of range, has CPUs, or is claimed by two GPUs.
 */
int gpu_tiers_build(const struct gpu_topo *t, const int *gpu_mem_node,
		    size_t ngpu, enum gpu_nodes_mode mode,
		    struct gpu_tier_map *m, char *err, size_t errlen);

/* "far", "fast", "ignore": the config's spelling. */
const char *gpu_nodes_mode_name(int mode);

#endif /* INDIGO_GPU_TIERS_H */
