/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared link as the controller sees it, once per interval, from the
 * counters of every cgroup the sock_ops program measures (controlled or
 * not): the bytes they put on the wire, and the mean RTT of the samples
 * they took in the interval.
 *
 * Only the interval's own samples count. A cgroup's smoothed RTT is the
 * last few samples it took, however long ago: a transfer that ended in a
 * full queue, or an idle connection, would otherwise hold the link
 * "congested" long after the queue drained.
 *
 * The queue is that mean above the base: the least RTT sample any cgroup
 * took over the last one to two windows of NS_BASE_WIN_NS (struct
 * ns_base_slot), not the least ever, which after a path change that
 * lengthens the RTT (a reroute, a VM moving) would read the difference as
 * a standing queue and throttle for good. The price: a queue that stands
 * longer than two windows becomes part of the base and reads as none. The
 * controller holds the link's use below its util_max, so none should
 * stand that long; and where no cgroup took a sample in two windows, the
 * last base stays.
 *
 * Each interval: ns_link_add() for every cgroup, then ns_link_end(). A
 * cgroup not added (gone) is forgotten; one seen for the first time after
 * the first interval counts whole, its counters having begun within it.
 */
#ifndef INDIGO_NS_LINK_H
#define INDIGO_NS_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/indigo_netscope.h>

struct ns_link_cg {
	uint64_t cgid;
	uint64_t samples, sum_us, wire;	/* counters when last read */
};

struct ns_link {
	/* each cgroup's counters at the end of the last interval (sorted by
	 * cgid, for bsearch) and, so far, of this one */
	struct ns_link_cg prev[NS_CGROUPS_MAX], cur[NS_CGROUPS_MAX];
	unsigned int nprev, ncur;
	bool have_prev;			/* an interval is over */
	struct {
		uint64_t wire, samples, sum_us;
		uint32_t base_us;	/* 0: no recent sample yet */
	} acc;				/* this interval's, so far */
	/* results, valid once an interval is measured */
	uint64_t intervals;		/* measured so far */
	uint32_t base_us;		/* the least RTT any cgroup took in
					 * the last one to two windows */
	uint64_t samples;		/* RTT samples the interval took */
	double delay_us;		/* their mean; base_us if none */
	double queue_us;		/* delay_us above base_us */
	double util;			/* wire rate over capacity */
	double avail_Bps;		/* capacity it left */
};

/* Bytes a cgroup put on the wire: payload and every segment's headers. */
uint64_t ns_wire_bytes(const struct ns_cg_stats *st);

/* A cgroup's counters that the controller differences per interval. */
struct ns_cg_mark {
	uint64_t delivered, ce, turns, wire;
};

void ns_cg_mark_take(struct ns_cg_mark *m, const struct ns_cg_stats *st);
/*
 * @d: what each counter of @st gained since @was. False when one went back:
 * the cgroup's entry was dropped (its cgroup gone) and read as zeros, or
 * made anew; the interval then tells nothing, and @d is all zero.
 */
bool ns_cg_mark_since(const struct ns_cg_mark *was, const struct ns_cg_stats *st,
		      struct ns_cg_mark *d);
/* The window of NS_BASE_WIN_NS that CLOCK_MONOTONIC, bpf_ktime_get_ns()'s
 * clock, is in now. */
uint32_t ns_base_win_now(void);
/* A cgroup's least RTT sample in window @win and the one before it; 0:
 * none in either. */
uint32_t ns_cg_base_us(const struct ns_cg_stats *st, uint32_t win);
void ns_link_init(struct ns_link *l);
/* @win: the current window (ns_base_win_now()), for the base. */
void ns_link_add(struct ns_link *l, uint64_t cgid, const struct ns_cg_stats *st,
		 uint32_t win);
/* Closes an interval of @dt_s seconds on a link of @cap_Bps. */
void ns_link_end(struct ns_link *l, double dt_s, double cap_Bps);

#endif /* INDIGO_NS_LINK_H */
