/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU memory as a tier: what indigod sees of the host's NVIDIA GPUs.
 *
 * gpu_tier_start() loads the CUDA driver at run time (dlopen of
 * libcuda.so.1, so one indigod runs with and without GPUs), finds every
 * GPU, its memory, the host NUMA node nearest to it and, on coherent
 * systems (Grace Hopper), the NUMA node that *is* its memory; builds the
 * tier map (which nodes are far, which a fast tier); and probes each
 * host<->GPU link, from host memory bound to the GPU's nearest node where
 * that is known (so never across sockets or from a far node). The
 * figures feed the cost model as a struct cm_link.
 *
 * Every failure (backend left out at build time, no driver, a driver too
 * old, no GPU, a device lost mid-probe) is a negative errno with one
 * readable line in the caller's buffer; the agent logs it and goes on
 * without the GPU tier. Nothing here prints.
 *
 * Units: bandwidth bytes/s, latency ns, memory bytes, as in costmodel.h.
 */
#ifndef INDIGO_GPU_H
#define INDIGO_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tiers.h"

struct cm_link;
struct json_object;

#define GPU_PATH_MAX	256
#define GPU_NAME_MAX	96
#define GPU_PCI_MAX	32
#define GPU_MAX		64	/* GPUs handled per host */

/*
 * The least probe_share: a probe keeps a link busy about 0.04 s (H200,
 * tools/bench/results/gpu.md) and takes that over the share, while the
 * agent does nothing else; at 1 % that is about 4 s a GPU.
 */
#define GPU_PROBE_SHARE_MIN	0.01

/* Plain data: copy it by assignment. Keys of the [gpu] section. */
struct gpu_config {
	bool enable;			/* enable: yes|no, yes */
	char driver[GPU_PATH_MAX];	/* driver: libcuda.so.1 */
	char sysfs_root[GPU_PATH_MAX];	/* sysfs_root: /sys */
	int nodes;			/* nodes: far|fast|ignore (gpu_nodes_mode) */
	double probe_share;		/* probe_share: [0.01, 1], 0.05 */
	uint32_t probe_page_bytes;	/* probe_page_bytes: 512-2097152, 4096 */
	uint32_t probe_batch_kib;	/* probe_batch_kib: 64-1048576, 16384 */
	uint32_t probe_reps;		/* probe_reps: 1-1000, 8 */
};

/* Fills @cfg with every default. */
void gpu_config_defaults(struct gpu_config *cfg);

/*
 * Sets one key of the [gpu] section from its text @value, checked (type,
 * range, choice). 0, or -EINVAL with "KEY: what is wrong" in @err (e.g.
 * "probe_share: 0 is out of range [0.01, 1]") and @cfg untouched.
 */
int gpu_config_set(struct gpu_config *cfg, const char *key, const char *value,
		   char *err, size_t errlen);

/*
 * What holds between keys, checked once all are set (so that the order
 * they come in does not matter): a probe batch at least a page. 0, or
 * -EINVAL with why in @err.
 */
int gpu_config_check(const struct gpu_config *cfg, char *err, size_t errlen);

enum gpu_dir { GPU_H2D, GPU_D2H, GPU_NDIR };		/* host->GPU, GPU->host */
enum gpu_host_mem { GPU_PINNED, GPU_PAGEABLE, GPU_NMEM };

/* One direction and kind of host memory, as measured. */
struct gpu_xfer {
	double lat_ns;		/* one page copy, median of probe_reps */
	double page_bw;		/* back-to-back page copies, bytes/s */
	double batch_bw;	/* probe_batch_kib copies, bytes/s */
};

/* One host<->GPU link's figures. */
struct gpu_link {
	struct gpu_xfer x[GPU_NDIR][GPU_NMEM];
	double busy_s;		/* time the last probe kept the link busy */
	double wall_s;		/* its length, pauses included */
	int64_t probed_at;	/* CLOCK_REALTIME seconds */
};

struct gpu_info {
	int ordinal;			/* CUDA device ordinal */
	char name[GPU_NAME_MAX];	/* "NVIDIA H200" */
	char pci[GPU_PCI_MAX];		/* sysfs form, "0000:3b:00.0" */
	uint64_t mem_bytes;
	int cc_major, cc_minor;		/* compute capability */
	int host_node;			/* nearest host NUMA node; -1 unknown */
	int mem_node;			/* NUMA node of its memory; -1 none */
	struct gpu_link link;
};

struct gpu_tier;

/*
 * Loads the driver, discovers, builds the tier map and probes every GPU
 * once. 0 and *@out on success (gpu_tier_stop() frees it); otherwise
 * *@out is NULL, @err holds one line, and the result is
 *	-ENOTSUP	backend left out at build time, or enable = no
 *	-ENOENT		no driver library (no NVIDIA driver installed)
 *	-EPROTO		not a CUDA driver, or one older than CUDA 11.0
 *	-ENODEV		no GPU, or a device lost during discovery or probing
 *	-EBUSY		a GPU unavailable for now (another process holds it in
 *			exclusive-process mode, or compute is prohibited)
 *	-EIO		any other CUDA error (the message names it)
 *	-EINVAL		bad config or an inconsistent NUMA topology
 *	-ENOMEM, or -errno reading sysfs
 */
int gpu_tier_start(const struct gpu_config *cfg, struct gpu_tier **out,
		   char *err, size_t errlen);

/*
 * Probes every GPU again (on demand). 0, or the errors above with the
 * old figures kept; after -ENODEV the caller stops the tier.
 */
int gpu_tier_probe(struct gpu_tier *t, char *err, size_t errlen);

/* The GPUs found, in ordinal order: *@gpus gets the array, the count is returned. */
size_t gpu_tier_gpus(const struct gpu_tier *t, const struct gpu_info **gpus);

/* The node map: which nodes are local, far (gated) or a fast tier. */
const struct gpu_tier_map *gpu_tier_nodes(const struct gpu_tier *t);

/* The driver's version, e.g. 12080 for CUDA 12.8. */
int gpu_tier_driver_version(const struct gpu_tier *t);

/*
 * The cost model's view of GPU @gpu's link in direction @dir (a promotion
 * from GPU memory to host DRAM moves D2H): @base with bandwidth replaced
 * by the measured pinned batch bandwidth and k_ns raised by the measured
 * page-copy latency less the transfer time of the probed page
 * (probe_page_bytes, whatever @base's page_bytes): the per-copy fixed
 * cost. 0, or -EINVAL (bad index or direction, or the result fails
 * cm_link_check()).
 */
int gpu_tier_cm_link(const struct gpu_tier *t, size_t gpu, enum gpu_dir dir,
		     const struct cm_link *base, struct cm_link *out);

/*
 * Adds "gpu" to @obj: driver version, the GPUs with their figures, and the
 * node lists ("far", "fast", "ignored", "local", in far_nodes syntax). 0 or
 * -ENOMEM.
 */
int gpu_tier_json(const struct gpu_tier *t, struct json_object *obj);

/* Releases the driver's resources and @t; NULL is fine. */
void gpu_tier_stop(struct gpu_tier *t);

/* Names, for logs: "h2d", "pinned", ... */
const char *gpu_dir_name(enum gpu_dir d);
const char *gpu_host_mem_name(enum gpu_host_mem m);

#endif /* INDIGO_GPU_H */
