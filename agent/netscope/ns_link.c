// SPDX-License-Identifier: GPL-2.0
/* The shared link's figures per interval: see ns_link.h. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ns_link.h"

/* Ethernet, IPv4 and TCP with timestamps: a segment's bytes beyond its
 * payload. Small requests are mostly header: without it a request/response
 * application would look a third as busy on the link as it is. */
#define NS_WIRE_HDR_BYTES	66

uint64_t ns_wire_bytes(const struct ns_cg_stats *st)
{
	return st->delivered_bytes + st->segs_out * NS_WIRE_HDR_BYTES;
}

void ns_cg_mark_take(struct ns_cg_mark *m, const struct ns_cg_stats *st)
{
	*m = (struct ns_cg_mark){
		.delivered = st->delivered_bytes, .ce = st->ce_marks,
		.turns = st->turns, .wire = ns_wire_bytes(st),
	};
}

bool ns_cg_mark_since(const struct ns_cg_mark *was, const struct ns_cg_stats *st,
		      struct ns_cg_mark *d)
{
	struct ns_cg_mark now;

	ns_cg_mark_take(&now, st);
	memset(d, 0, sizeof(*d));
	/* unsigned differences would read a restart as 2^64 less a little */
	if (now.delivered < was->delivered || now.ce < was->ce ||
	    now.turns < was->turns || now.wire < was->wire)
		return false;
	*d = (struct ns_cg_mark){
		.delivered = now.delivered - was->delivered,
		.ce = now.ce - was->ce, .turns = now.turns - was->turns,
		.wire = now.wire - was->wire,
	};
	return true;
}

uint32_t ns_base_win_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ((uint64_t)t.tv_sec * 1000000000 + t.tv_nsec) / NS_BASE_WIN_NS;
}

uint32_t ns_cg_base_us(const struct ns_cg_stats *st, uint32_t win)
{
	uint32_t base = 0;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const struct ns_base_slot *b = &st->base[i];

		/* unsigned: a window number that wrapped is still one back */
		if (b->rtt_us && win - b->win <= 1 &&
		    (!base || b->rtt_us < base))
			base = b->rtt_us;
	}
	return base;
}

void ns_link_init(struct ns_link *l)
{
	memset(l, 0, sizeof(*l));
}

static int cg_cmp(const void *a, const void *b)
{
	const struct ns_link_cg *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* what a counter gained since it read @was (all of it if it restarted) */
static uint64_t gained(uint64_t now, uint64_t was)
{
	return now >= was ? now - was : now;
}

void ns_link_add(struct ns_link *l, uint64_t cgid, const struct ns_cg_stats *st,
		 uint32_t win)
{
	static const struct ns_link_cg none;
	struct ns_link_cg key = { .cgid = cgid }, *c;
	const struct ns_link_cg *old;
	uint32_t base;

	if (l->ncur == NS_CGROUPS_MAX)
		return;
	base = ns_cg_base_us(st, win);
	if (base && (!l->acc.base_us || base < l->acc.base_us))
		l->acc.base_us = base;
	c = &l->cur[l->ncur++];
	*c = (struct ns_link_cg){
		.cgid = cgid, .samples = st->rtt_samples,
		.sum_us = st->rtt_sum_us, .wire = ns_wire_bytes(st),
	};
	/* the first interval only sets where counting starts */
	if (!l->have_prev)
		return;
	old = bsearch(&key, l->prev, l->nprev, sizeof(key), cg_cmp);
	if (!old)
		old = &none;
	l->acc.wire += gained(c->wire, old->wire);
	l->acc.samples += gained(c->samples, old->samples);
	l->acc.sum_us += gained(c->sum_us, old->sum_us);
}

void ns_link_end(struct ns_link *l, double dt_s, double cap_Bps)
{
	if (l->acc.base_us)
		l->base_us = l->acc.base_us;
	if (l->have_prev && dt_s > 0 && cap_Bps > 0) {
		double used = l->acc.wire / dt_s;

		l->util = used / cap_Bps;
		l->avail_Bps = used < cap_Bps ? cap_Bps - used : 0;
		l->samples = l->acc.samples;
		l->delay_us = l->samples ? (double)l->acc.sum_us / l->samples :
			      l->base_us;
		l->queue_us = l->delay_us > l->base_us ? l->delay_us - l->base_us : 0;
		l->intervals++;
	}
	qsort(l->cur, l->ncur, sizeof(l->cur[0]), cg_cmp);
	memcpy(l->prev, l->cur, l->ncur * sizeof(l->cur[0]));
	l->nprev = l->ncur;
	l->ncur = 0;
	memset(&l->acc, 0, sizeof(l->acc));
	l->have_prev = true;
}
