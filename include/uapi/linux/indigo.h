/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * INDIGO: far-memory promotion gate, generic netlink interface.
 *
 * Family "indigo", version 1. Every command carries its arguments as
 * top-level attributes of enum indigo_attr; lists are nested.
 *
 * INDIGO_CMD_GET_POLICY
 *	Request: no attributes.
 *	Reply:   all INDIGO_A_POLICY_* attributes and INDIGO_A_POLICY_GEN.
 *
 * INDIGO_CMD_SET_POLICY		(needs CAP_NET_ADMIN)
 *	Request: one or more INDIGO_A_POLICY_* attributes; the others keep
 *	their value. The change is applied atomically or not at all.
 *	Reply:   as INDIGO_CMD_GET_POLICY, with the new generation.
 *
 * INDIGO_CMD_GET_STATS
 *	Request: no attributes.
 *	Reply:   INDIGO_A_TABLE_*, INDIGO_A_MISSED, INDIGO_A_CAND_DROPPED and
 *	INDIGO_A_NODES, a nest of INDIGO_A_NODE entries (enum indigo_node_attr),
 *	one per far node, with counters since the module was loaded.
 *
 * Multicast group "telemetry" (INDIGO_GENL_MCGRP), sent by the module;
 * joining it needs CAP_NET_ADMIN (EPERM otherwise). Nothing is sent while
 * the group has no listener, but INDIGO_A_EPOCH_SEQ counts every epoch,
 * and the candidates of an epoch nobody listened to are discarded:
 *
 * INDIGO_CMD_EPOCH	once per epoch (module parameter epoch_ms):
 *	INDIGO_A_EPOCH_SEQ, INDIGO_A_EPOCH_MS, INDIGO_A_NODES (counters of this
 *	epoch only), INDIGO_A_RATE_Pxx and INDIGO_A_BURST_Pxx (quantiles of the
 *	access rates and burst durations observed during the epoch, each the
 *	upper bound 2^k - 1 of the power-of-two bucket that holds it, so at
 *	most twice the true value; 0 when the epoch had no observation).
 *
 * INDIGO_CMD_CANDIDATES	batches of sampled hot-page candidates:
 *	INDIGO_A_EPOCH_SEQ and INDIGO_A_CANDS, a nest of INDIGO_A_CAND entries
 *	(enum indigo_cand_attr).
 *	Batches with epoch U64_MAX and pid 0 are synthetic: sent on demand
 *	(debugfs file "emit") to measure what listeners can take; agents
 *	ignore them.
 *
 * Units: access rates are in mHz (observations per 1000 s), so that pages
 * touched less than once a second still get a non-zero rate. Durations are
 * in milliseconds, memory in KiB (but INDIGO_A_TABLE_BYTES in bytes), the
 * promotion cap in pages per second (0: no cap).
 *
 * SET_POLICY refuses (ERANGE) INDIGO_A_POLICY_MODE above INDIGO_MODE_MAX,
 * INDIGO_A_POLICY_RATE_CAP above INDIGO_RATE_CAP_MAX, INDIGO_A_POLICY_BURST_TOL
 * outside INDIGO_BURST_TOL_MIN-MAX and INDIGO_A_POLICY_BURST_GAP outside
 * INDIGO_BURST_GAP_MIN-MAX.
 */
#ifndef _UAPI_LINUX_INDIGO_H
#define _UAPI_LINUX_INDIGO_H

#define INDIGO_RATE_CAP_MAX	100000000	/* pages/s */
#define INDIGO_BURST_TOL_MIN	1		/* % */
#define INDIGO_BURST_TOL_MAX	1000
#define INDIGO_BURST_GAP_MIN	1		/* ms */
#define INDIGO_BURST_GAP_MAX	86400000	/* a day */

#define INDIGO_GENL_NAME	"indigo"
#define INDIGO_GENL_VERSION	1
#define INDIGO_GENL_MCGRP	"telemetry"

enum indigo_cmd {
	INDIGO_CMD_UNSPEC,
	INDIGO_CMD_GET_POLICY,
	INDIGO_CMD_SET_POLICY,
	INDIGO_CMD_GET_STATS,
	INDIGO_CMD_EPOCH,
	INDIGO_CMD_CANDIDATES,
	__INDIGO_CMD_MAX
};

#define INDIGO_CMD_MAX (__INDIGO_CMD_MAX - 1)

/* enum indigo_mode: what the gate does with a promotion from a far node */
enum indigo_mode {
	INDIGO_MODE_OBSERVE,	/* record only, the kernel decides (load default) */
	INDIGO_MODE_GATE,	/* promote only what passes the thresholds */
	INDIGO_MODE_DENY,	/* never promote from a far node */
	__INDIGO_MODE_MAX
};

#define INDIGO_MODE_MAX (__INDIGO_MODE_MAX - 1)

/* Why the gate decided as it did; also the index of the veto counters. */
enum indigo_reason {
	INDIGO_REASON_OBSERVE,	/* observe mode: passed through */
	INDIGO_REASON_PASS,	/* gate mode: every threshold met */
	INDIGO_REASON_DENY,	/* deny mode */
	INDIGO_REASON_RATE,	/* access rate below the threshold */
	INDIGO_REASON_BURST,	/* burst shorter than the threshold */
	INDIGO_REASON_LOWMEM,	/* free memory on the target below the watermark */
	INDIGO_REASON_RATECAP,	/* promotion rate cap reached */
	__INDIGO_REASON_MAX
};

#define INDIGO_REASON_MAX (__INDIGO_REASON_MAX - 1)

enum indigo_attr {
	INDIGO_A_UNSPEC,
	INDIGO_A_POLICY_MODE,		/* u8, enum indigo_mode */
	INDIGO_A_POLICY_RATE_MIN,	/* u32, mHz: promote at or above */
	INDIGO_A_POLICY_BURST_MIN,	/* u32, ms: promote at or above */
	INDIGO_A_POLICY_FREE_MIN,	/* u64, KiB free on the target node */
	INDIGO_A_POLICY_RATE_CAP,	/* u32, pages promoted per second, 0: none */
	INDIGO_A_POLICY_BURST_TOL,	/* u32, %: rates this close share a burst */
	INDIGO_A_POLICY_BURST_GAP,	/* u32, ms: a longer silence ends a burst */
	INDIGO_A_POLICY_GEN,		/* u64, read only: bumped by every set */
	INDIGO_A_TABLE_PAGES,		/* u32: pages tracked now */
	INDIGO_A_TABLE_CAPACITY,	/* u32: max_pages, rounded down to 2^n */
	INDIGO_A_TABLE_BYTES,		/* u64: page table's memory, bytes */
	INDIGO_A_MISSED,		/* u64: probe hits missed (both probes) */
	INDIGO_A_CAND_DROPPED,		/* u64: candidates not sent (full) */
	INDIGO_A_NODES,			/* nest of INDIGO_A_NODE */
	INDIGO_A_EPOCH_SEQ,		/* u64 */
	INDIGO_A_EPOCH_MS,		/* u32: this epoch's measured length */
	INDIGO_A_RATE_P50,		/* u32, mHz */
	INDIGO_A_RATE_P90,		/* u32, mHz */
	INDIGO_A_RATE_P99,		/* u32, mHz */
	INDIGO_A_BURST_P50,		/* u32, ms */
	INDIGO_A_BURST_P90,		/* u32, ms */
	INDIGO_A_BURST_P99,		/* u32, ms */
	INDIGO_A_CANDS,			/* nest of INDIGO_A_CAND */
	INDIGO_A_PAD,
	__INDIGO_A_MAX
};

#define INDIGO_A_MAX (__INDIGO_A_MAX - 1)

/* Inside INDIGO_A_NODES: INDIGO_A_NODE entries, each a nest of these. */
#define INDIGO_A_NODE 1
enum indigo_node_attr {
	INDIGO_NODE_A_UNSPEC,
	INDIGO_NODE_A_ID,		/* u32 */
	INDIGO_NODE_A_FAULTS,		/* u64: hinting faults on far pages */
	INDIGO_NODE_A_ALLOWED,		/* u64: promotions let through */
	INDIGO_NODE_A_VETO_DENY,	/* u64: vetoes by reason ... */
	INDIGO_NODE_A_VETO_RATE,	/* u64 */
	INDIGO_NODE_A_VETO_BURST,	/* u64 */
	INDIGO_NODE_A_VETO_LOWMEM,	/* u64 */
	INDIGO_NODE_A_VETO_RATECAP,	/* u64 */
	INDIGO_NODE_A_EVICTIONS,	/* u64: its pages evicted from the table */
	INDIGO_NODE_A_PAD,
	/*
	 * u64: the base pages those promotions move, a huge page's all of
	 * them (ALLOWED counts it once). A module without it: as ALLOWED.
	 */
	INDIGO_NODE_A_ALLOWED_PAGES,
	__INDIGO_NODE_A_MAX
};

#define INDIGO_NODE_A_MAX (__INDIGO_NODE_A_MAX - 1)

/* Inside INDIGO_A_CANDS: INDIGO_A_CAND entries, each a nest of these. */
#define INDIGO_A_CAND 1
enum indigo_cand_attr {
	INDIGO_CAND_A_UNSPEC,
	INDIGO_CAND_A_PID,		/* u32: process (thread group) id */
	INDIGO_CAND_A_ADDR,		/* u64: user virtual address */
	INDIGO_CAND_A_NODE,		/* u32: node the page is on */
	INDIGO_CAND_A_RATE,		/* u32, mHz */
	INDIGO_CAND_A_BURST,		/* u32, ms */
	INDIGO_CAND_A_PAD,
	INDIGO_CAND_A_PAGES,		/* u32: base pages it moves as (absent: 1) */
	__INDIGO_CAND_A_MAX
};

#define INDIGO_CAND_A_MAX (__INDIGO_CAND_A_MAX - 1)

#endif /* _UAPI_LINUX_INDIGO_H */
