// SPDX-License-Identifier: GPL-2.0
/*
 * MEMTIS-like and Colloid-like policies.
 *
 * MEMTIS (SOSP'23) counts each page's sampled accesses (PEBS there; here
 * the hinting faults of both tiers, the only access samples this host
 * has), keeps a histogram of log2(count), and sets the hot threshold to the
 * lowest bin whose pages, with every hotter bin's, still fit local memory
 * (less kswapd's reserve). A far page is promoted when its count reaches
 * that bin. Counts are halved every MEMTIS_COOL_EPOCHS epochs (MEMTIS
 * cools after a fixed number of samples) so that the threshold follows
 * phase changes. The histogram is the module's (indigo_hist, core.c).
 * MEMTIS migrates from a kernel thread of its own (kmigraterd), off the
 * application's path: its promotions load the link, as kswapd's
 * demotions do, but no access waits for them.
 *
 * Colloid (SOSP'24) balances the *loaded* latencies of the tiers instead of
 * packing local memory: on top of a base system's hotness (MEMTIS's here)
 * it promotes only while the far tier's loaded latency exceeds the local
 * one, at most COLLOID_SHARE of local memory per epoch scaled by the
 * relative gap (far - local) / far. In this host local DRAM is never
 * congested, so the gap never closes: Colloid differs from MEMTIS by how
 * fast it moves pages, which it speeds up as the link gets busier. It
 * moves them with its base system's migration, kmigraterd's here.
 */
#include "pol.h"

#include <errno.h>
#include <stdlib.h>

#include "core.h"

#define MEMTIS_COOL_EPOCHS	10
#define COLLOID_SHARE		(1.0 / 8)

struct memtis {
	uint16_t *count;
	uint32_t npages;
	unsigned int thr_bin;		/* promote at fls(count) >= thr_bin */
	unsigned int epochs;
	int colloid;
	uint64_t quota;			/* colloid: promotions left this epoch */
};

static unsigned int fls32(uint32_t v)
{
	return v ? 32 - __builtin_clz(v) : 0;
}

/* promotions by kmigraterd, in the background: see the top of the file */
static enum sim_verdict memtis_fault(struct sim_policy *pol,
				     const struct sim_view *v,
				     const struct sim_fault *f)
{
	struct memtis *s = pol->st;
	uint16_t *c = &s->count[f->page];

	(void)v;
	if (*c < UINT16_MAX)
		(*c)++;
	if (!f->far || fls32(*c) < s->thr_bin)
		return SIM_STAY;
	if (!s->colloid)
		return SIM_PROMOTE_BG;
	if (!s->quota)
		return SIM_STAY;
	s->quota--;
	return SIM_PROMOTE_BG;
}

/* Colloid's promotions for an epoch whose far latency is @far */
static uint64_t colloid_quota(uint32_t local_pages, double far, double local)
{
	return far > local ?
	       (uint64_t)(COLLOID_SHARE * local_pages * (far - local) / far) : 0;
}

/* the lowest bin whose pages and all hotter ones fit @room pages */
static unsigned int threshold(const struct indigo_hist *h, uint64_t room)
{
	uint64_t sum = 0;
	unsigned int b;

	for (b = INDIGO_HIST_BUCKETS; b-- > 1;) {
		if (sum + h->count[b] > room)
			return b + 1;
		sum += h->count[b];
	}
	return 1;
}

static int memtis_epoch(struct sim_policy *pol, const struct sim_view *v,
			double now_ns)
{
	struct memtis *s = pol->st;
	struct indigo_hist h = { 0 };
	bool cool = ++s->epochs % MEMTIS_COOL_EPOCHS == 0;
	uint32_t i, room = v->local_pages > 2 * v->kswapd_low ?
			   v->local_pages - 2 * v->kswapd_low : 1;

	(void)now_ns;
	for (i = 0; i < s->npages; i++) {
		if (cool)
			s->count[i] /= 2;
		if (s->count[i])
			indigo_hist_add(&h, s->count[i]);
	}
	s->thr_bin = threshold(&h, room);
	if (s->colloid)
		s->quota = colloid_quota(v->local_pages, v->link->far_now,
					 v->p->link.local_ns);
	return 0;
}

static void memtis_destroy(struct sim_policy *pol)
{
	struct memtis *s = pol->st;

	free(s->count);
	free(s);
}

static const struct sim_policy_ops memtis_ops = {
	.fault = memtis_fault,
	.epoch = memtis_epoch,
	.destroy = memtis_destroy,
};

int pol_memtis_create(struct sim_policy *pol, const struct sim_params *p,
		      uint32_t npages, int colloid)
{
	struct memtis *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->count = calloc(npages, sizeof(*s->count));
	if (!s->count) {
		free(s);
		return -ENOMEM;
	}
	s->npages = npages;
	s->colloid = colloid;
	s->thr_bin = 1;		/* until the first epoch: any sampled page */
	/*
	 * the first epoch's share too, at the latency the link starts with
	 * (link_init()): with none, Colloid sat out the first epoch, in which
	 * local memory is empty and promotions pay off most
	 */
	s->quota = colloid ? colloid_quota(sim_local_pages(p, npages),
					   link_far_ns(&p->link, p->link.contention),
					   p->link.local_ns) : UINT64_MAX;
	pol->ops = &memtis_ops;
	pol->st = s;
	return 0;
}
