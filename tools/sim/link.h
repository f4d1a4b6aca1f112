/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The far tier's link: what one access costs given how busy the link is.
 *
 * Far accesses (a 64-byte line each), promotions and demotions (a page
 * each) and a background contender (a STREAM-like flow taking a fixed share
 * of the capacity, as in INDIGO's evaluation) share the link's bandwidth.
 * Its utilisation u is measured over fixed windows; the far latency of
 * window w is computed from u of window w-1 (a causal estimate, as the
 * hardware's queues also react to past load), by an M/D/1 queue whose
 * service time is the idle round trip:
 *
 *	far(u) = far_idle * (1 + u / (2 (1 - u))),  u clamped to LINK_U_MAX
 *
 * so far(0) = far_idle, far(0.5) = 1.5 far_idle, and it rises
 * monotonically with load. Time is in ns throughout.
 */
#ifndef INDIGO_SIM_LINK_H
#define INDIGO_SIM_LINK_H

#include <stdint.h>

#define LINK_U_MAX	0.95
#define LINK_LINE_BYTES	64

struct link_params {
	double local_ns;	/* local DRAM access */
	double far_ns;		/* far access on an idle link */
	double gbps;		/* capacity, Gb/s */
	double contention;	/* contender's share of the capacity, [0, 1) */
	double window_ns;	/* utilisation window */
};

/* The INDIGO paper's link: 900 ns, 100 Gb/s. And a CXL expander's. */
void link_preset_paper(struct link_params *p);
void link_preset_cxl(struct link_params *p);
/* 0 or -EINVAL. */
int link_check(const struct link_params *p);

/* Far latency at utilisation @u (clamped to [0, LINK_U_MAX]). */
double link_far_ns(const struct link_params *p, double u);

/* Bytes per ns of capacity. */
static inline double link_bytes_per_ns(const struct link_params *p)
{
	return p->gbps / 8.0;
}

struct link {
	struct link_params p;
	double far_now;		/* this window's far latency */
	double u_last;		/* last window's utilisation */
	double win_end;		/* end of the current window, ns */
	double win_bytes;	/* our own bytes in it */
	uint64_t bytes;		/* our own bytes ever (not the contender's) */
};

void link_init(struct link *l, const struct link_params *p);

/* Accounts @bytes of our own traffic now. */
static inline void link_add(struct link *l, uint64_t bytes)
{
	l->win_bytes += (double)bytes;
	l->bytes += bytes;
}

/* Closes the windows that ended by @now_ns; rare, so not inline. */
void link_roll(struct link *l, double now_ns);

static inline void link_advance(struct link *l, double now_ns)
{
	if (now_ns >= l->win_end)
		link_roll(l, now_ns);
}

/* Bandwidth (bytes/ns) left for us now: capacity * (1 - u), floored. */
double link_avail_bytes_per_ns(const struct link *l);

#endif /* INDIGO_SIM_LINK_H */
