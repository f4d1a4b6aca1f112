// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO core: burst segmentation, the promotion gate, the rate cap and
 * histograms. Pure C, see core.h.
 */
#include "core.h"

void indigo_policy_default(struct indigo_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = INDIGO_MODE_OBSERVE;
	p->rate_min = 1000;		/* 1 access/s */
	p->burst_min = 0;
	p->free_min = 0;
	p->rate_cap = 0;
	p->burst_tol = 50;
	p->burst_gap = 10000;
}

u32 indigo_rate_mhz(u64 delta_ns)
{
	/* 1e12 mHz*ns: one access per delta_ns */
	const u64 one = 1000ULL * CORE_NSEC_PER_SEC;
	u64 r;

	if (delta_ns == 0)
		return INDIGO_RATE_MAX;
	r = core_div_u64(one, delta_ns);
	return r > INDIGO_RATE_MAX ? INDIGO_RATE_MAX : (u32)r;
}

static bool rate_close(u32 mean, u32 rate, u32 tol_pct)
{
	u64 diff = mean > rate ? mean - rate : rate - mean;

	return diff * 100 <= (u64)mean * tol_pct;
}

bool indigo_burst_observe(struct indigo_page *pg, const struct indigo_policy *p,
			  u64 now_ns, u32 rate)
{
	u64 gap_ns = (u64)p->burst_gap * CORE_NSEC_PER_MSEC;
	bool gap_ok = pg->nobs && now_ns >= pg->last_ns &&
		      now_ns - pg->last_ns <= gap_ns;

	if (!gap_ok || !rate_close(pg->rate, rate, p->burst_tol)) {
		pg->burst_start_ns = now_ns;
		pg->rate = rate;
		pg->nobs = 1;
		return true;
	}
	/* running mean; the count saturates so old bursts still adapt */
	if (pg->nobs < 0xffff)
		pg->nobs++;
	if (rate >= pg->rate)
		pg->rate += (rate - pg->rate) / pg->nobs;
	else
		pg->rate -= (pg->rate - rate) / pg->nobs;
	return false;
}

bool indigo_page_fault(struct indigo_page *pg, const struct indigo_policy *p,
		       u64 now_ns, u64 mark_ns)
{
	u64 since = pg->last_ns && pg->last_ns < now_ns ? now_ns - pg->last_ns : 0;
	u64 delta = since;

	/*
	 * No marking since the last fault: a second thread's fault on the
	 * marking that one counted, unless a silence long enough to end the
	 * burst says the log missed a mark
	 */
	if (mark_ns == INDIGO_MARK_STALE) {
		if (since <= (u64)p->burst_gap * CORE_NSEC_PER_MSEC)
			delta = 0;
	} else if (mark_ns && mark_ns <= now_ns) {
		delta = now_ns - mark_ns;
	}
	if (delta)
		indigo_burst_observe(pg, p, now_ns, indigo_rate_mhz(delta));
	/*
	 * Faults on a shared page read the clock before they queue for the
	 * shard's lock: an earlier reading may come second, and must not
	 * take last_ns back (the next interval would be measured too long).
	 */
	if (now_ns > pg->last_ns)
		pg->last_ns = now_ns;
	return delta != 0;
}

u32 indigo_burst_ms(const struct indigo_page *pg, u64 now_ns)
{
	u64 ms;

	if (!pg->nobs || now_ns < pg->burst_start_ns)
		return 0;
	ms = core_div_u64(now_ns - pg->burst_start_ns, CORE_NSEC_PER_MSEC);
	return ms > 0xffffffffULL ? 0xffffffffU : (u32)ms;
}

bool indigo_bucket_take_pages(struct indigo_bucket *b, u32 rate_cap,
			      u64 now_ns, u32 npages)
{
	/*
	 * Depth: a tenth of a second of promotions (at least one page), so a
	 * cap holds over any 100 ms window, not just on average. A huge page
	 * costs all its pages and, like a base page, needs one page's tokens:
	 * it leaves the rest as debt, so the cap in pages per second holds on
	 * average. Were it to wait for more, base pages faulting at the cap
	 * would keep the bucket below that and it would never pass; the
	 * kernel's own promotion rate limit admits it the same way.
	 */
	const s64 unit = CORE_NSEC_PER_SEC;
	s64 depth = ((s64)rate_cap / 10 + 1) * unit;
	s64 cost = (s64)(npages ? npages : 1) * unit;
	u64 add;

	if (!rate_cap)
		return true;
	/*
	 * A lowered cap has a shallower bucket: what the old one held would
	 * otherwise pass at once, and the refill below would add to it
	 */
	if (b->tokens > depth)
		b->tokens = depth;
	if (!b->primed) {
		b->tokens = depth;
		b->last_ns = now_ns;
		b->primed = true;
	} else if (now_ns > b->last_ns) {
		/*
		 * tokens never exceed depth: what refills past it, however
		 * long the idle time, fills the bucket
		 */
		if (core_mul_overflow(now_ns - b->last_ns, (u64)rate_cap, &add) ||
		    add >= (u64)(depth - b->tokens))
			b->tokens = depth;
		else
			b->tokens += add;
	}
	b->last_ns = now_ns > b->last_ns ? now_ns : b->last_ns;
	if (b->tokens < unit)
		return false;
	b->tokens -= cost;
	return true;
}

int indigo_gate(const struct indigo_policy *p, const struct indigo_gate_in *in,
		struct indigo_bucket *b, u64 now_ns)
{
	switch (p->mode) {
	case INDIGO_MODE_OBSERVE:
		return INDIGO_REASON_OBSERVE;
	case INDIGO_MODE_DENY:
		return INDIGO_REASON_DENY;
	default:
		break;
	}
	if (in->rate < p->rate_min)
		return INDIGO_REASON_RATE;
	if (in->burst_ms < p->burst_min)
		return INDIGO_REASON_BURST;
	if (in->free_kib < p->free_min)
		return INDIGO_REASON_LOWMEM;
	/* last: a vetoed page must not spend a token */
	if (!indigo_bucket_take_pages(b, p->rate_cap, now_ns, in->npages))
		return INDIGO_REASON_RATECAP;
	return INDIGO_REASON_PASS;
}

static const char *const reason_names[__INDIGO_REASON_MAX] = {
	[INDIGO_REASON_OBSERVE] = "observe",
	[INDIGO_REASON_PASS] = "pass",
	[INDIGO_REASON_DENY] = "deny",
	[INDIGO_REASON_RATE] = "rate",
	[INDIGO_REASON_BURST] = "burst",
	[INDIGO_REASON_LOWMEM] = "lowmem",
	[INDIGO_REASON_RATECAP] = "ratecap",
};

static const char *const mode_names[__INDIGO_MODE_MAX] = {
	[INDIGO_MODE_OBSERVE] = "observe",
	[INDIGO_MODE_GATE] = "gate",
	[INDIGO_MODE_DENY] = "deny",
};

const char *indigo_reason_name(int reason)
{
	if (reason < 0 || reason > INDIGO_REASON_MAX)
		return "unknown";
	return reason_names[reason];
}

const char *indigo_mode_name(int mode)
{
	if (mode < 0 || mode > INDIGO_MODE_MAX)
		return "unknown";
	return mode_names[mode];
}

int indigo_mode_parse(const char *name)
{
	int i;

	for (i = 0; i <= INDIGO_MODE_MAX; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -1;
}

/* on the fault path: one instruction where the CPU has it */
static unsigned int fls32(u32 v)
{
	return v ? 32 - __builtin_clz(v) : 0;
}

void indigo_hist_add(struct indigo_hist *h, u32 v)
{
	h->count[fls32(v)]++;
	h->total++;
}

u32 indigo_hist_quantile(const struct indigo_hist *h, unsigned int pct)
{
	u64 want, n = 0, seen = 0;
	unsigned int i;

	/*
	 * Rank against the counts' own sum, not h->total: a histogram summed
	 * from per-CPU ones without locks can have a total that the counts
	 * do not reach yet, and no bucket would ever hold the rank.
	 */
	for (i = 0; i < INDIGO_HIST_BUCKETS; i++)
		n += h->count[i];
	if (!n)
		return 0;
	if (pct > 100)
		pct = 100;
	/* smallest bucket holding at least pct % of the samples */
	want = core_div_u64(n * pct + 99, 100);
	if (!want)
		want = 1;
	for (i = 0; i < INDIGO_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want)
			return i == 0 ? 0 : (u32)((1ULL << i) - 1);
	}
	return 0xffffffffU;
}

void indigo_hist_merge(struct indigo_hist *dst, const struct indigo_hist *src)
{
	unsigned int i;

	for (i = 0; i < INDIGO_HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->total += src->total;
}
