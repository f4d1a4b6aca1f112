/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace end of the "indigo" generic netlink family: get and set the
 * module's policy, read its counters. Used by indigod and indigoctl.
 * Every function returns 0 or a negative errno; none prints.
 */
#ifndef INDIGO_MODLINK_H
#define INDIGO_MODLINK_H

#include <stddef.h>
#include "core.h"

/* every node the kernel can have (MAX_NUMNODES): the module takes hundreds */
#define MODLINK_MAX_NODES 1024

struct modlink;

struct modlink_node {
	u32 id;
	u64 faults, allowed, evictions;
	u64 allowed_pages;		/* base pages the allowed ones move */
	u64 veto[__INDIGO_REASON_MAX];	/* indexed by enum indigo_reason */
};

struct modlink_stats {
	u32 tracked, capacity;
	u64 table_bytes, missed, cand_dropped;
	u32 nnodes;
	struct modlink_node node[MODLINK_MAX_NODES];
};

/* A policy change: only the attributes whose bit (1 << INDIGO_A_*) is set. */
struct modlink_policy_req {
	struct indigo_policy p;
	u32 set;
};

/* -ENOENT: the module is not loaded (no "indigo" family). */
int modlink_open(struct modlink **out);
void modlink_close(struct modlink *l);

int modlink_get_policy(struct modlink *l, struct indigo_policy *p, u64 *gen);
/* On error, the kernel's explanation (extack), if any, is in modlink_error(). */
int modlink_set_policy(struct modlink *l, const struct modlink_policy_req *req,
		       u64 *gen);
int modlink_get_stats(struct modlink *l, struct modlink_stats *st);
const char *modlink_error(const struct modlink *l);

/* One epoch's telemetry summary: counters of the epoch only. */
struct modlink_epoch {
	u64 seq;
	u32 ms;
	u32 rate_p50, rate_p90, rate_p99;	/* mHz */
	u32 burst_p50, burst_p90, burst_p99;	/* ms */
	u32 nnodes;
	struct modlink_node node[MODLINK_MAX_NODES];
};

struct modlink_cand {
	u64 addr;
	u32 pid, node, rate, burst_ms;
	u32 pages;		/* base pages it moves as, at least 1 */
};

#define MODLINK_MAX_CANDS 256

struct modlink_events {
	void (*epoch)(const struct modlink_epoch *e, void *arg);
	void (*cands)(u64 seq, const struct modlink_cand *c, u32 n, void *arg);
	/* a message that did not parse, skipped (optional) */
	void (*malformed)(void *arg);
	void *arg;
};

/* Joins the telemetry group (needs CAP_NET_ADMIN). */
int modlink_subscribe(struct modlink *l);
/*
 * Sizes the telemetry socket's receive buffer (after modlink_subscribe):
 * above net.core.rmem_max when the caller has CAP_NET_ADMIN, else capped
 * there. A whole epoch's candidates arrive at once, so the default (32 KiB
 * with libnl) overruns easily.
 */
int modlink_set_rcvbuf(struct modlink *l, int bytes);

/*
 * Waits up to @timeout_ms for telemetry and hands each message to @ev.
 * Returns the number of messages handled, 0 on timeout, or a negative
 * errno; -ENOBUFS means the socket overran and events were lost: the caller
 * counts it and carries on. A malformed message (a module of another
 * version, another sender) goes to @ev->malformed and is skipped: the rest
 * of the batch is still read, and the link stays usable.
 */
int modlink_poll(struct modlink *l, const struct modlink_events *ev,
		 int timeout_ms);

/*
 * Hands one telemetry message to @ev: 1 when it was an EPOCH or CANDIDATES
 * message, 0 for a command this version does not know, -EBADMSG when
 * malformed. What modlink_poll does with each message it receives.
 */
struct nl_msg;
int modlink_dispatch(struct nl_msg *msg, const struct modlink_events *ev);

/* Parses "key=value" into @req (keys as in debugfs policy); -EINVAL if bad. */
int modlink_policy_parse(struct modlink_policy_req *req, const char *kv);

#endif /* INDIGO_MODLINK_H */
