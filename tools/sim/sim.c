// SPDX-License-Identifier: GPL-2.0
/* The two-tier host: see sim.h. */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAR_SLOT	UINT32_MAX

void sim_params_default(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	link_preset_paper(&p->link);
	p->local_frac = 0.25;
	p->page_bytes = 4096.0;
	p->k_ns = 2000.0;		/* as indigod's cost model */
	p->ns_per_insn = 0.3;
	p->scan_period_ns = 1000e6 / SIM_TIME_SCALE;
	p->scan_pages = sim_scan_pages(p->page_bytes);
	p->epoch_ns = 2000e6 / SIM_TIME_SCALE;
	p->kswapd_frac = 1.0 / 32;
	p->repeat = 1;
	p->threads = 1;
	p->seed = 1;
}

/*
 * The run calls the policy once per elapsed epoch and computes scan
 * periods as integers: an epoch or scan period under a microsecond, or a
 * single migration that stalls for ages (a page over 1 GiB, the largest
 * huge page, or a fixed cost over a second), would make it loop for ever.
 */
#define SIM_MIN_PERIOD_NS	1e3
#define SIM_MAX_PAGE_BYTES	1073741824.0
#define SIM_MAX_K_NS		1e9
/* the link's byte counter adds bytes x threads: more would wrap it soon */
#define SIM_MAX_THREADS		4096

int sim_params_check(const struct sim_params *p)
{
	if (link_check(&p->link) || !(p->local_frac > 0) ||
	    !(p->local_frac <= 1) || !(p->page_bytes >= LINK_LINE_BYTES) ||
	    !(p->page_bytes <= SIM_MAX_PAGE_BYTES) ||
	    !(p->k_ns >= 0) || !(p->k_ns <= SIM_MAX_K_NS) ||
	    !(p->ns_per_insn >= 0) ||
	    !(p->scan_period_ns >= SIM_MIN_PERIOD_NS) || !p->scan_pages ||
	    !(p->epoch_ns >= SIM_MIN_PERIOD_NS) || !(p->kswapd_frac > 0) ||
	    !(p->kswapd_frac <= 0.5) || !p->repeat || !p->threads ||
	    p->threads > SIM_MAX_THREADS)
		return -EINVAL;
	return 0;
}

uint32_t sim_scan_pages(double page_bytes)
{
	double n = floor(256.0 * 1048576 / page_bytes);

	if (!(n >= 1))
		return 1;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

uint32_t sim_local_pages(const struct sim_params *p, uint32_t npages)
{
	double c = floor(p->local_frac * npages);

	if (c < 1)
		return 1;
	return c > npages ? npages : (uint32_t)c;
}

uint32_t sim_kswapd_low(const struct sim_params *p, uint32_t npages)
{
	double low = floor(sim_local_pages(p, npages) * p->kswapd_frac);

	return low < 1 ? 1 : (uint32_t)low;
}

double sim_fault_mark(const struct sim_params *p, uint32_t npages,
		      uint32_t page, double last_ns, double now_ns)
{
	uint64_t nchunks = (npages + (uint64_t)p->scan_pages - 1) / p->scan_pages;
	uint64_t j = page / p->scan_pages, s0, s;
	double t;

	s0 = last_ns < 0 ? 0 : (uint64_t)(last_ns / p->scan_period_ns) + 1;
	s = s0 + (j + nchunks - s0 % nchunks) % nchunks;
	t = (double)s * p->scan_period_ns;
	return t <= now_ns ? t : -1;
}

struct host {
	const struct sim_params *p;
	struct sim_view v;
	struct link link;
	struct sim_result r;
	double *last;		/* last touch or demotion, ns; -1: never */
	uint32_t *slot;		/* 0 if local, FAR_SLOT if far */
	/* the local pages as CLOCK's ring: next and previous page */
	uint32_t *nx, *pv;
	uint8_t *ref;		/* referenced since the clock hand passed */
	uint32_t hand;		/* a local page; FAR_SLOT: none */
};

static void host_free(struct host *h)
{
	free(h->last);
	free(h->slot);
	free(h->nx);
	free(h->pv);
	free(h->ref);
}

static int host_init(struct host *h, const struct trace *t,
		     const struct sim_params *p)
{
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->p = p;
	h->last = malloc(t->npages * sizeof(*h->last));
	h->slot = malloc(t->npages * sizeof(*h->slot));
	h->nx = malloc(t->npages * sizeof(*h->nx));
	h->pv = malloc(t->npages * sizeof(*h->pv));
	h->ref = calloc(t->npages, sizeof(*h->ref));
	if (!h->last || !h->slot || !h->nx || !h->pv || !h->ref) {
		host_free(h);
		return -ENOMEM;
	}
	for (i = 0; i < t->npages; i++) {
		h->last[i] = -1;
		h->slot[i] = FAR_SLOT;
	}
	h->hand = FAR_SLOT;
	link_init(&h->link, &p->link);
	h->v.p = p;
	h->v.npages = t->npages;
	h->v.local_pages = sim_local_pages(p, t->npages);
	h->v.kswapd_low = sim_kswapd_low(p, t->npages);
	h->v.link = &h->link;
	h->v.res = &h->r;
	return 0;
}

/* @bytes of the trace's thread, and as many of every thread alike */
static void traffic(struct host *h, double bytes)
{
	link_add(&h->link, (uint64_t)(bytes * h->p->threads));
}

/* CLOCK: the first local page not referenced since the hand last passed */
static void demote_one(struct host *h, double now)
{
	uint32_t pg = h->hand;

	while (h->ref[pg]) {
		h->ref[pg] = 0;
		pg = h->nx[pg];
	}
	if (h->v.local_used == 1) {
		h->hand = FAR_SLOT;
	} else {
		h->nx[h->pv[pg]] = h->nx[pg];
		h->pv[h->nx[pg]] = h->pv[pg];
		h->hand = h->nx[pg];
	}
	h->slot[pg] = FAR_SLOT;
	/*
	 * Migration leaves no hinting mark (remove_migration_pte() rebuilds
	 * the PTE from vm_page_prot) and tiering mode resets the access time
	 * (folio_migrate_flags()): only a scan after now can make it fault.
	 */
	h->last[pg] = now;
	h->v.local_used--;
	h->r.demotions++;
	traffic(h, h->p->page_bytes);
}

/*
 * A new page goes in just behind the hand, the last the hand reaches, as
 * CLOCK has it: untouched pages then leave in the order they came, as
 * from the kernel's LRU lists. (Appended to an array swept by index, a
 * new page could sit right under the hand and lose its referenced bit
 * before pages promoted earlier.)
 */
static void clock_insert(struct host *h, uint32_t pg)
{
	uint32_t at = h->hand;

	if (at == FAR_SLOT) {
		h->nx[pg] = h->pv[pg] = pg;
		h->hand = pg;
		return;
	}
	h->nx[pg] = at;
	h->pv[pg] = h->pv[at];
	h->nx[h->pv[at]] = pg;
	h->pv[at] = pg;
}

/* Moves @pg local at @now; returns what a migration on the fault costs it. */
static double promote(struct host *h, uint32_t pg, double now)
{
	uint32_t c = h->v.local_pages, high = 2 * h->v.kswapd_low;

	/*
	 * kswapd frees up to its high watermark, which a tiny tier (one or
	 * two pages) or -K 0.5 puts at the whole tier: it would demote even
	 * the page just promoted, and the tier would never hold one.
	 */
	if (high >= c)
		high = c - 1;
	if (h->v.local_used >= c)
		demote_one(h, now);	/* direct reclaim */
	clock_insert(h, pg);
	h->slot[pg] = 0;
	h->v.local_used++;
	h->ref[pg] = 1;
	h->r.promotions++;
	traffic(h, h->p->page_bytes);
	if (c - h->v.local_used < h->v.kswapd_low)
		while (h->v.local_used && c - h->v.local_used < high)
			demote_one(h, now);
	return h->p->k_ns + h->p->page_bytes / link_avail_bytes_per_ns(&h->link);
}

int sim_policy_epoch(struct sim_policy *pol, const struct sim_view *v,
		     double now_ns)
{
	return pol->ops->epoch ? pol->ops->epoch(pol, v, now_ns) : 0;
}

static int run_once(struct host *h, const struct trace *t,
		    struct sim_policy *pol, double *now, double *next_epoch)
{
	const struct sim_params *p = h->p;
	const double lns = p->link.local_ns;
	uint64_t i;
	int ret;

	for (i = 0; i < t->n; i++) {
		uint32_t pg = t->r[i].page;
		struct sim_fault f;
		double cost, mark;
		bool faulted;

		*now += t->r[i].insns * p->ns_per_insn;
		link_advance(&h->link, *now);
		while (*now >= *next_epoch) {
			ret = sim_policy_epoch(pol, &h->v, *now);
			if (ret)
				return ret;
			h->r.epochs++;
			*next_epoch += p->epoch_ns;
		}
		mark = sim_fault_mark(p, t->npages, pg, h->last[pg], *now);
		faulted = mark >= 0;
		h->last[pg] = *now;
		if (faulted) {
			f.page = pg;
			f.now_ns = *now;
			f.mark_ns = mark;
			h->r.faults++;
		}
		if (h->slot[pg] != FAR_SLOT) {
			cost = lns;
			h->ref[pg] = 1;
			h->r.local_hits++;
			if (faulted) {
				f.far = false;
				pol->ops->fault(pol, &h->v, &f);
			}
		} else {
			enum sim_verdict verdict = SIM_STAY;

			cost = h->link.far_now;
			traffic(h, LINK_LINE_BYTES);
			h->r.far_accesses++;
			if (faulted) {
				f.far = true;
				h->r.far_faults++;
				verdict = pol->ops->fault(pol, &h->v, &f);
			}
			if (verdict == SIM_PROMOTE)
				cost += promote(h, pg, *now);
			else if (verdict == SIM_PROMOTE_BG)
				promote(h, pg, *now);
		}
		*now += cost;
		h->r.stall_ns += cost;
	}
	return 0;
}

int sim_run(const struct trace *t, const struct sim_params *p,
	    struct sim_policy *pol, struct sim_result *r)
{
	double now = 0, next_epoch;
	struct host h;
	unsigned int k;
	int ret;

	if (!t || !p || !pol || !r || sim_params_check(p) || !t->npages)
		return -EINVAL;
	ret = host_init(&h, t, p);
	if (ret)
		return ret;
	next_epoch = p->epoch_ns;
	for (k = 0; k < p->repeat && !ret; k++)
		ret = run_once(&h, t, pol, &now, &next_epoch);
	h.r.accesses = h.r.local_hits + h.r.far_accesses;
	h.r.time_ns = now;
	h.r.link_bytes = h.link.bytes;
	*r = h.r;
	host_free(&h);
	return ret;
}
