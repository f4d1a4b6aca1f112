// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle, and why no policy beats it.
 *
 * It is Belady's MIN with bypass over local capacity C = sim_local_pages():
 * local starts empty, as in the simulator; on an access to a far page it
 * may move the page local for free, which it does iff the page's next use
 * comes sooner than that of the local page used furthest in the future
 * (evicting that one when local is full); a page never used again is not
 * brought in. Accesses cost local_ns if local, else far_ns of the idle
 * link; nothing else costs anything.
 *
 * Claim: for every policy P run by sim_run() with the same parameters,
 * stall(P) >= stall(oracle).
 *  1. In the simulator an access costs local_ns when its page is local and
 *     at least the idle far_ns otherwise (link_far_ns() >= far_ns at any
 *     load); promotions add k_ns and a transfer on the fault path, nothing
 *     in the background. With N accesses, m_P of which found their page
 *     far, L = local_ns, F = far_ns > L:
 *	stall(P) >= L (N - m_P) + F m_P = L N + (F - L) m_P.
 *  2. Under P the local set holds at most C pages (kswapd keeps even fewer),
 *     starts empty and gains a page only on an access to that page while it
 *     is far (a promotion happens on a hinting fault, i.e. on an access,
 *     and that access is charged as far). So P's placement is a demand
 *     caching schedule with optional bypass and capacity C, and m_P is its
 *     number of misses. MIN with bypass minimises misses over all such
 *     schedules (Belady 1966; by exchange: a schedule that keeps a page
 *     used later than one it drops can swap them without an extra miss,
 *     and evicting early or fetching a page with no next use never saves
 *     one). So m_oracle <= m_P.
 *  3. L N + (F - L) m grows with m, so stall(oracle) <= stall(P).
 * "none" is such a P (it never moves a page), so it is bounded too; the
 * tests check both on every policy.
 */
#include "oracle.h"

#include <errno.h>
#include <stdlib.h>

#define NEVER	UINT64_MAX
#define NONE	UINT32_MAX

/* max-heap of local pages keyed by next use; pos[] finds a page in it */
struct heap {
	uint32_t *pg;
	uint64_t *key;
	uint32_t *pos;
	uint32_t n;
};

static void heap_set(struct heap *h, uint32_t i, uint32_t pg, uint64_t key)
{
	h->pg[i] = pg;
	h->key[i] = key;
	h->pos[pg] = i;
}

static void sift_up(struct heap *h, uint32_t i)
{
	uint32_t pg = h->pg[i];
	uint64_t key = h->key[i];

	while (i > 0 && h->key[(i - 1) / 2] < key) {
		heap_set(h, i, h->pg[(i - 1) / 2], h->key[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(h, i, pg, key);
}

static void sift_down(struct heap *h, uint32_t i)
{
	uint32_t pg = h->pg[i], c;
	uint64_t key = h->key[i];

	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[c + 1] > h->key[c])
			c++;
		if (h->key[c] <= key)
			break;
		heap_set(h, i, h->pg[c], h->key[c]);
		i = c;
	}
	heap_set(h, i, pg, key);
}

/* the local page's next use moved later: it can only go up */
static void heap_raise(struct heap *h, uint32_t pg, uint64_t key)
{
	uint32_t i = h->pos[pg];

	h->key[i] = key;
	sift_up(h, i);
}

static void heap_pop(struct heap *h)
{
	h->pos[h->pg[0]] = NONE;
	if (--h->n) {
		heap_set(h, 0, h->pg[h->n], h->key[h->n]);
		sift_down(h, 0);
	}
}

static void heap_push(struct heap *h, uint32_t pg, uint64_t key)
{
	heap_set(h, h->n++, pg, key);
	sift_up(h, h->n - 1);
}

/* next[i]: index of the next access to r[i].page in the same pass, or NONE;
 * first[pg]: its first access in a pass */
static int next_uses(const struct trace *t, uint32_t **next, uint32_t **first)
{
	uint32_t *nx = malloc((t->n ? t->n : 1) * sizeof(*nx));
	uint32_t *fi = malloc(t->npages * sizeof(*fi));
	uint64_t i;
	uint32_t pg;

	if (!nx || !fi) {
		free(nx);
		free(fi);
		return -ENOMEM;
	}
	for (pg = 0; pg < t->npages; pg++)
		fi[pg] = NONE;
	for (i = t->n; i-- > 0;) {
		pg = t->r[i].page;
		nx[i] = fi[pg];
		fi[pg] = (uint32_t)i;
	}
	*next = nx;
	*first = fi;
	return 0;
}

int oracle_run(const struct trace *t, const struct sim_params *p,
	       struct sim_result *r)
{
	uint32_t c, *next, *first, pg;
	struct heap h = { 0 };
	uint64_t i, insns = 0, misses = 0, k;
	int ret;

	if (!t || !p || !r || sim_params_check(p) || !t->npages ||
	    t->n >= NONE)
		return -EINVAL;
	c = sim_local_pages(p, t->npages);
	ret = next_uses(t, &next, &first);
	if (ret)
		return ret;
	h.pg = malloc(c * sizeof(*h.pg));
	h.key = malloc(c * sizeof(*h.key));
	h.pos = malloc(t->npages * sizeof(*h.pos));
	if (!h.pg || !h.key || !h.pos) {
		ret = -ENOMEM;
		goto out;
	}
	for (pg = 0; pg < t->npages; pg++)
		h.pos[pg] = NONE;
	*r = (struct sim_result){ 0 };
	for (k = 0; k < p->repeat; k++) {
		for (i = 0; i < t->n; i++) {
			uint64_t nu;

			pg = t->r[i].page;
			insns += t->r[i].insns;
			if (next[i] != NONE)
				nu = k * t->n + next[i];
			else
				nu = k + 1 < p->repeat ? (k + 1) * t->n + first[pg] : NEVER;
			if (h.pos[pg] != NONE) {
				heap_raise(&h, pg, nu);
				continue;
			}
			misses++;
			if (nu == NEVER)
				continue;
			if (h.n == c) {
				if (h.key[0] <= nu)
					continue;	/* bypass */
				heap_pop(&h);
				r->demotions++;
			}
			heap_push(&h, pg, nu);
			r->promotions++;
		}
	}
	r->accesses = t->n * p->repeat;
	r->far_accesses = misses;
	r->local_hits = r->accesses - misses;
	r->stall_ns = (double)r->local_hits * p->link.local_ns +
		      (double)misses * p->link.far_ns;
	r->time_ns = r->stall_ns + (double)insns * p->ns_per_insn;
	/* as sim_run counts it: every thread alike puts its lines on the link */
	r->link_bytes = misses * LINK_LINE_BYTES * p->threads;
out:
	free(h.pg);
	free(h.key);
	free(h.pos);
	free(next);
	free(first);
	return ret;
}
