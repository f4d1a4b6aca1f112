/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigo.ko internals: the one state object and the interfaces between the
 * module's parts.
 *
 *   main.c      parameters, load and unload, the epoch worker
 *   hook.c      the hinting-fault probes: telemetry and the gate
 *   state.c     owners of the shared state: policy, tables, rings, counters
 *   netlink.c   the generic netlink family
 *   debugfs.c   /sys/kernel/debug/indigo/
 *   compat.h    what differs between kernel versions
 *   core*.c     the pure, userspace-testable logic (core.h)
 */
#ifndef _INDIGO_H
#define _INDIGO_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "core.h"

#define INDIGO_SHARD_BITS	6
#define INDIGO_SHARDS		BIT(INDIGO_SHARD_BITS)
#define INDIGO_DECISIONS	1024

struct indigo_node_stats {
	u64 faults;
	u64 reason[__INDIGO_REASON_MAX];	/* gate decisions by reason */
	u64 allowed_pages;			/* base pages of allowed ones */
	u64 evictions;
};

struct indigo_decision {
	u64 t_ns;
	u64 addr;
	u32 pid;
	u32 rate;
	u32 burst_ms;
	s16 node;
	s16 target;
	u8 reason;
};

struct indigo_cand {
	u64 addr;
	u32 pid;
	u32 rate;
	u32 burst_ms;
	u32 node;
	u32 pages;	/* base pages of the page or folio it is on */
};

struct indigo_policy_rcu {
	struct indigo_policy p;
	u64 gen;
	struct rcu_head rcu;
};

struct indigo_shard {
	spinlock_t lock;			/* protects table */
	struct indigo_table table;
};

struct indigo_state {
	/*
	 * The far nodes. The default set grows as a node without CPUs gets
	 * its first memory and shrinks as one loses its last (main.c); the
	 * fault path reads it without locks.
	 */
	nodemask_t far;
	struct mutex far_mutex;	/* serialises changes and messages sized by it */

	struct indigo_policy_rcu __rcu *policy;
	struct mutex policy_mutex;		/* serialises setters */

	spinlock_t bucket_lock;			/* protects bucket */
	struct indigo_bucket bucket;

	struct indigo_shard shards[INDIGO_SHARDS];
	struct indigo_page *slots;		/* all shards' slots, vmalloc */
	u32 capacity;

	seqlock_t marks_lock;	/* marks: one writer (the scan), many readers */
	struct indigo_marks marks;
	bool have_marks;			/* marking-time probe in place */

	/* each CPU's counters: [nr_node_ids], allocated apart (state.c) */
	struct indigo_node_stats * __percpu *stats;
	struct indigo_hist __percpu *rate_hist;
	struct indigo_hist __percpu *burst_hist;

	spinlock_t ring_lock;			/* protects ring, ring_next */
	struct indigo_decision ring[INDIGO_DECISIONS];
	u64 ring_next;				/* decisions recorded so far */

	spinlock_t cand_lock;			/* protects cands, ncands */
	struct indigo_cand *cands;
	u32 ncands, cand_max;
	atomic64_t cand_dropped;

	struct delayed_work epoch_work;
	u64 epoch_seq;
	u32 epoch_ms;
};

extern struct indigo_state indigo;

/* state.c */
int indigo_state_init(u32 max_pages, u32 cand_max);
void indigo_state_free(void);
u64 indigo_policy_get(struct indigo_policy *p);
int indigo_policy_set(const struct indigo_policy *p, u64 *gen);
void indigo_stats_sum(struct indigo_node_stats *out);	/* [nr_node_ids] */
void indigo_hist_sum(struct indigo_hist *rate, struct indigo_hist *burst);
u32 indigo_tracked_pages(void);
u64 indigo_table_bytes(void);
void indigo_decision_add(const struct indigo_decision *d);
/* Copies up to @max most recent decisions, oldest first; returns count. */
u32 indigo_decisions_copy(struct indigo_decision *out, u32 max);
void indigo_cand_add(const struct indigo_cand *c);
/* Takes the pending candidates into @out (cand_max entries); returns count. */
u32 indigo_cands_take(struct indigo_cand *out);
/*
 * Drops what is kept of the pages of @nid, which has no memory left: their
 * records and unsent candidates. Returns how many records it dropped.
 */
u32 indigo_node_forget(int nid);

/* hook.c */
/* 0, or -EOPNOTSUPP (said why) when this kernel takes no hinting faults */
int indigo_hook_supported(void);
int indigo_hook_init(void);
void indigo_hook_exit(void);
unsigned long indigo_hook_missed(void);
const char *indigo_hook_symbol(void);

/* netlink.c */
int indigo_genl_init(void);
/* Far nodes that one INDIGO_A_NODES nest can hold (606 on x86) */
u32 indigo_genl_nodes_max(void);
/*
 * Sends @n synthetic candidates (pid 0, epoch U64_MAX) through the real
 * path, for measuring what listeners can take; counts the batches that did
 * not reach every listener in *@failed.
 */
int indigo_genl_emit(u32 n, u64 *failed);
void indigo_genl_exit(void);
void indigo_genl_epoch(u64 seq, u32 epoch_ms,
		       const struct indigo_node_stats *delta,
		       const struct indigo_hist *rate,
		       const struct indigo_hist *burst,
		       const struct indigo_cand *cands, u32 ncands);

/* debugfs.c */
void indigo_debugfs_init(void);
void indigo_debugfs_exit(void);

#endif /* _INDIGO_H */
