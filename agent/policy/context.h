/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigod's per-epoch context: the features the learners see, built from
 * one epoch's telemetry, the nodes' memory (sysfs) and the link figures.
 * Plain C with no netlink: the daemon copies the module's EPOCH message
 * into struct ctx_epoch, so everything here is unit tested without a kernel.
 *
 * The features, CTX_DIM of them, each normalised to [0, 1] (clamped):
 *
 *  0 CTX_F_BIAS	1, always (the linear models' intercept)
 *  1 CTX_F_FAULTS	far hinting faults per second, log10(1 + f) / 6
 *			(1e6 faults/s and more read as 1)
 *  2 CTX_F_PROMOTE	promotions allowed / far faults of the epoch (0 when
 *			there were no faults)
 *  3 CTX_F_VETO	vetoes (every reason) / far faults of the epoch
 *  4 CTX_F_RATE_P50	access-rate quantiles, log10(1 + mHz) / 10
 *  5 CTX_F_RATE_P90	(the module's u32 mHz range is below 10^10)
 *  6 CTX_F_RATE_P99
 *  7 CTX_F_BURST_P50	burst-duration quantiles, log10(1 + ms) / 6
 *  8 CTX_F_BURST_P90	(1000 s and longer read as 1)
 *  9 CTX_F_BURST_P99
 * 10 CTX_F_LOCAL_USED	local (CPU) nodes: used / total memory
 * 11 CTX_F_FAR_USED	far nodes: used / total memory
 * 12 CTX_F_LOCAL_FREE	local nodes' free memory, log2(1 + GiB) / 12
 * 13 CTX_F_FAR_FREE	far nodes' free memory, likewise (4 TiB reads as 1)
 * 14 CTX_F_BANDWIDTH	available link bandwidth, log10(1 + Gb/s) / 4
 * 15 CTX_F_DELAY	far - local latency, log10(1 + ns) / 7
 *
 * Memory features are 0 when the nodes could not be read (no sysfs).
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_CONTEXT_H
#define INDIGO_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctx_feature {
	CTX_F_BIAS,
	CTX_F_FAULTS,
	CTX_F_PROMOTE,
	CTX_F_VETO,
	CTX_F_RATE_P50,
	CTX_F_RATE_P90,
	CTX_F_RATE_P99,
	CTX_F_BURST_P50,
	CTX_F_BURST_P90,
	CTX_F_BURST_P99,
	CTX_F_LOCAL_USED,
	CTX_F_FAR_USED,
	CTX_F_LOCAL_FREE,
	CTX_F_FAR_FREE,
	CTX_F_BANDWIDTH,
	CTX_F_DELAY,
	CTX_DIM
};

#define CTX_NODE_IDS	1024	/* node ids 0..CTX_NODE_IDS-1 are looked at */
/*
 * Far nodes of an epoch (= MODLINK_MAX_NODES): as many as there can be
 * nodes (the kernel's MAX_NUMNODES is at most 1024), for the module takes
 * hundreds; a far node left out would count as local memory.
 */
#define CTX_MAX_NODES	CTX_NODE_IDS

/* One epoch's telemetry, summed over the far nodes by ctx_epoch_add_node. */
struct ctx_epoch {
	uint64_t seq;
	uint32_t ms;				/* length of the epoch */
	uint32_t rate_p50, rate_p90, rate_p99;	/* mHz */
	uint32_t burst_p50, burst_p90, burst_p99;	/* ms */
	uint64_t faults, allowed, vetoes;	/* sums over far nodes */
	uint64_t allowed_pages;			/* base pages @allowed move */
	uint32_t nfar;
	uint32_t far[CTX_MAX_NODES];		/* far node ids */
};

/*
 * Adds one far node's counters of the epoch: @allowed promotions moving
 * @allowed_pages base pages (a huge page counts once in @allowed, as all
 * its pages in @allowed_pages). @veto has @nveto entries
 * indexed by enum indigo_reason; only the real veto reasons (DENY and
 * above, i.e. index >= 2) are counted. -ENOSPC beyond CTX_MAX_NODES.
 */
int ctx_epoch_add_node(struct ctx_epoch *e, uint32_t id, uint64_t faults,
		       uint64_t allowed, uint64_t allowed_pages,
		       const uint64_t *veto, size_t nveto);

/*
 * The base pages @e's allowed promotions move: its page count, or, from a
 * module without one, a page a promotion.
 */
uint64_t ctx_epoch_pages(const struct ctx_epoch *e);

/* Memory of local and far nodes, KiB. */
struct ctx_mem {
	uint64_t local_total, local_free;
	uint64_t far_total, far_free;
	uint32_t nlocal, nfar;			/* nodes read */
	/*
	 * The smallest local node with memory (0: none): what a per-node
	 * watermark (the module's free_min, checked against the target
	 * node's free memory) is a share of, where local_total sums them.
	 */
	uint64_t local_node_min;
};

/*
 * Parses one node's meminfo text ("Node 0 MemTotal:  16384 kB" lines) for
 * MemTotal and MemFree. -EINVAL when either is missing or malformed or
 * free exceeds total.
 */
int ctx_parse_meminfo(const char *text, uint64_t *total_kib,
		      uint64_t *free_kib);

/*
 * Reads every SYSFS/devices/system/node/nodeN/meminfo (@sysfs_root is
 * where sysfs is mounted: "/sys", or a fake tree in tests) and sums the
 * nodes in @far[0..@nfar) as far, the others as local. -ENOENT when the node directory is missing, -EINVAL if a node's
 * meminfo is malformed, -errno on read errors.
 */
int ctx_read_mem(const char *sysfs_root, const uint32_t *far, uint32_t nfar,
		 struct ctx_mem *m);

/* The link as configured (fixed source). */
struct ctx_link {
	double bandwidth_gbps;
	double far_ns, local_ns;
};

/*
 * Fills @x[CTX_DIM]. @mem may be NULL (memory features 0). -EINVAL for a
 * NULL @e or @x or a link with non-finite figures.
 */
int ctx_build(const struct ctx_epoch *e, const struct ctx_mem *mem,
	      const struct ctx_link *link, double *x);

/*
 * Link source "counter": a file holding one unsigned decimal byte counter
 * of the link's traffic (e.g. /sys/class/net/eth0/statistics/tx_bytes, an
 * RDMA port's data counter scaled to bytes). -EINVAL if it holds anything
 * else, -errno if it cannot be read.
 */
int ctx_read_counter(const char *path, uint64_t *bytes);

/*
 * Pages demoted from local memory so far, all nodes: the sum of
 * /proc/vmstat's pgdemote_* counters ("name value" lines; pgdemote_kswapd
 * and pgdemote_direct since Linux 5.18, others added later), the running
 * count the reward's residence estimate takes (epoch.h). -ENOENT when
 * there is none (an older kernel), -EINVAL for a malformed one, -errno if
 * the file cannot be read.
 */
#define CTX_VMSTAT	"/proc/vmstat"
#define CTX_VMSTAT_MAX	65536	/* bytes read; 6.12's file is about 6 KiB */
int ctx_parse_vmstat_demoted(const char *text, uint64_t *pages);
int ctx_read_vmstat_demoted(const char *path, uint64_t *pages);

#define CTX_AVAIL_FLOOR	0.01	/* share of the capacity always available */

/*
 * Available bandwidth (Gb/s) of a link of @capacity_gbps whose counter went
 * from @prev to @now bytes in @dt_s, @own_bytes of them our own
 * promotions: capacity minus the rate of the rest, at least
 * CTX_AVAIL_FLOOR * capacity (the cost model needs a bandwidth above 0).
 * Our promotions are left out because they are the action being priced,
 * not load it meets: counted, a burst of them would read as a full link
 * and be charged its transfer at the floor, a hundred times over, and cut
 * the next epoch's rate cap to the floor. -ERANGE when the counter went
 * backwards (reset or wrapped: no figure this time), -EINVAL for a bad
 * capacity or interval.
 */
int ctx_available_gbps(double capacity_gbps, uint64_t prev, uint64_t now,
		       uint64_t own_bytes, double dt_s, double *avail_gbps);

/* Short names of the features ("faults", "rate_p50", ...), for logs. */
const char *ctx_feature_name(unsigned int f);

#endif /* INDIGO_CONTEXT_H */
