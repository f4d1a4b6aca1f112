// SPDX-License-Identifier: GPL-2.0
/* Synthetic page traces: see gen.h. */
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ZIPF_S		0.99
#define HOT_SHARE	0.9

static const char *const names[GEN_COUNT] = {
	[GEN_GUPS] = "gups", [GEN_ZIPF] = "zipf",
	[GEN_PHASE] = "phase", [GEN_STREAM] = "stream",
};

const char *gen_name(int kind)
{
	return kind >= 0 && kind < GEN_COUNT ? names[kind] : NULL;
}

int gen_parse(const char *name)
{
	int k;

	for (k = 0; k < GEN_COUNT; k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static uint32_t below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((splitmix(s) >> 32) * n) >> 32);
}

static double unit(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * 0x1.0p-53;
}

/* gups' and phase's hot set: a tenth of the pages */
static uint32_t hot_pages(uint32_t npages)
{
	return npages / 10;
}

/* hot tenth starting at @base (wrapping), else anywhere */
static uint32_t hot_or_cold(uint64_t *s, uint32_t npages, uint32_t base)
{
	uint32_t hot = hot_pages(npages);

	if (unit(s) < HOT_SHARE)
		return (base + below(s, hot)) % npages;
	return below(s, npages);
}

/* phase: where record @i's hot tenth starts */
static uint32_t phase_base(uint32_t npages, uint64_t n, uint64_t i)
{
	return (uint32_t)(i * GEN_PHASES / n * hot_pages(npages));
}

/* a multiplier coprime with @n, to scatter ranks over page ids */
static uint64_t scatter(uint32_t n)
{
	uint64_t m = 40503;

	while (n % m == 0 || (n % 2 == 0 && m % 2 == 0))
		m += 2;
	for (;;) {
		uint64_t a = m, b = n;

		while (b) {
			uint64_t r = a % b;

			a = b;
			b = r;
		}
		if (a == 1)
			return m;
		m += 2;
	}
}

/* rank i (0-based) is drawn with weight 1 / (i + 1)^ZIPF_S */
static double zipf_weight(uint32_t i)
{
	return 1.0 / pow((double)i + 1, ZIPF_S);
}

static int gen_zipf(struct trace *t, uint64_t *s)
{
	uint32_t np = t->npages, lo, hi, mid;
	double *cdf = malloc(np * sizeof(*cdf)), sum = 0;
	uint64_t i, mul = scatter(np);

	if (!cdf)
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		sum += zipf_weight((uint32_t)i);
		cdf[i] = sum;
	}
	for (i = 0; i < t->n; i++) {
		double u = unit(s) * sum;

		for (lo = 0, hi = np - 1; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		t->r[i].page = (uint32_t)((lo * mul) % np);
	}
	free(cdf);
	return 0;
}

int gen_trace(struct trace *t, int kind, uint32_t npages, uint64_t n,
	      uint64_t seed)
{
	uint64_t s = seed, i;
	int ret;

	if (npages < GEN_MIN_PAGES || !n || !gen_name(kind))
		return -EINVAL;
	ret = trace_alloc(t, npages, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		t->r[i].insns = GEN_INSNS;
	switch (kind) {
	case GEN_GUPS:
		for (i = 0; i < n; i++)
			t->r[i].page = hot_or_cold(&s, npages, 0);
		break;
	case GEN_PHASE:
		for (i = 0; i < n; i++)
			t->r[i].page = hot_or_cold(&s, npages, phase_base(npages, n, i));
		break;
	case GEN_STREAM:
		for (i = 0; i < n; i++)
			t->r[i].page = (uint32_t)((i / GEN_STREAM_LINES) % npages);
		break;
	default:
		ret = gen_zipf(t, &s);
		break;
	}
	if (ret)
		trace_free(t);
	return ret;
}

int gen_top_share(int kind, uint32_t npages, uint32_t k, double *share)
{
	double top = 0, all = 0;
	uint32_t hot = hot_pages(npages), i;

	if (npages < GEN_MIN_PAGES || !share)
		return -EINVAL;
	if (k > npages)
		k = npages;
	switch (kind) {
	case GEN_GUPS:
	case GEN_PHASE:
		/* a hot page: HOT_SHARE / hot, and the uniform rest's part */
		if (k <= hot)
			*share = k * (HOT_SHARE / hot + (1 - HOT_SHARE) / npages);
		else
			*share = HOT_SHARE + (1 - HOT_SHARE) * k / npages;
		return 0;
	case GEN_ZIPF:
		/* ranks in order of weight: the first k are the top */
		for (i = 0; i < npages; i++) {
			all += zipf_weight(i);
			if (i + 1 == k)
				top = all;
		}
		*share = top / all;
		return 0;
	default:
		return -EINVAL;
	}
}

uint32_t gen_rank_page(int kind, uint32_t npages, uint64_t n, uint64_t i,
		       uint32_t rank)
{
	if (npages < GEN_MIN_PAGES || rank >= npages || i >= n)
		return UINT32_MAX;
	switch (kind) {
	case GEN_GUPS:
		/* the hot tenth first, then the rest, each in page order */
		return rank;
	case GEN_PHASE:
		return (uint32_t)(((uint64_t)phase_base(npages, n, i) + rank) % npages);
	case GEN_ZIPF:
		return (uint32_t)(rank * scatter(npages) % npages);
	default:
		return UINT32_MAX;
	}
}
