/* SPDX-License-Identifier: GPL-2.0 */
/*
 * INDIGO core: the pure part of the module. No locking, no allocation, no
 * kernel calls: the callers own memory and locks. Compiled into indigo.ko
 * and, unchanged, into the userspace unit tests and the simulator, so what
 * is tested and simulated is what runs in the kernel.
 *
 *  - burst segmentation of a page's access-rate observations
 *  - the promotion gate (policy + page record -> verdict and reason)
 *  - the promotion rate cap (token bucket)
 *  - log2 histograms for per-epoch quantiles
 *  - the bounded page table (open addressing, evicts the stalest record)
 *  - the log of recent hinting-scan marks, which gives marking times
 */
#ifndef _INDIGO_CORE_H
#define _INDIGO_CORE_H

#include "core_types.h"
#include <linux/indigo.h>

struct indigo_policy {
	u8 mode;		/* enum indigo_mode */
	u32 rate_min;		/* mHz */
	u32 burst_min;		/* ms */
	u64 free_min;		/* KiB */
	u32 rate_cap;		/* pages promoted/s (a THP: 512), 0: no cap */
	u32 burst_tol;		/* % */
	u32 burst_gap;		/* ms */
};

void indigo_policy_default(struct indigo_policy *p);

/*
 * What the table keeps per far page: 32 bytes, the whole per-page cost.
 * A burst is a run of observations whose rates stay within burst_tol % of
 * the burst's mean, with no silence longer than burst_gap between them.
 */
struct indigo_page {
	u64 key;		/* pfn + 1, its page's tag above; 0: free */
	u64 last_ns;		/* last hinting fault */
	u64 burst_start_ns;	/* first observation of the current burst */
	u32 rate;		/* mean rate of the current burst, mHz */
	u16 nobs;		/* observations in the burst, saturating */
	u16 node;
};

#define INDIGO_RATE_MAX 0xffffffffU

/* Rate of one observation: one access in @delta_ns, in mHz, saturating. */
u32 indigo_rate_mhz(u64 delta_ns);

/*
 * Adds one observation of @rate (mHz) at @now_ns to @pg's burst record.
 * Returns true when it started a new burst.
 */
bool indigo_burst_observe(struct indigo_page *pg, const struct indigo_policy *p,
			  u64 now_ns, u32 rate);

/*
 * Records a hinting fault on @pg at @now_ns: the interval since @mark_ns,
 * when the page was last marked (0: no mark known), or else since the last
 * fault, is one observation; INDIGO_MARK_STALE (no marking since the last
 * fault) brings none, unless burst_gap has passed since that fault. Returns
 * true when there was one (not on the page's first fault, nor on one that
 * brought no time).
 */
bool indigo_page_fault(struct indigo_page *pg, const struct indigo_policy *p,
		       u64 now_ns, u64 mark_ns);

/* Length of @pg's current burst at @now_ns, in ms (0 without a burst). */
u32 indigo_burst_ms(const struct indigo_page *pg, u64 now_ns);

/*
 * Token bucket for the promotion cap, in pages. Tokens are kept in 1/1e9
 * pages; a promotion of a huge page may take more than the bucket holds
 * and leaves it in debt (tokens below 0), which the cap then pays back.
 */
struct indigo_bucket {
	s64 tokens;
	u64 last_ns;
	bool primed;		/* false: full at the first take */
};

/*
 * Takes the tokens of a promotion of @npages base pages (0 counts as 1);
 * false when the cap is reached.
 */
bool indigo_bucket_take_pages(struct indigo_bucket *b, u32 rate_cap,
			      u64 now_ns, u32 npages);

/* Takes one page's token; false when the cap is reached. */
static inline bool indigo_bucket_take(struct indigo_bucket *b, u32 rate_cap,
				      u64 now_ns)
{
	return indigo_bucket_take_pages(b, rate_cap, now_ns, 1);
}

struct indigo_gate_in {
	u32 rate;		/* page's burst rate, mHz (0: none yet) */
	u32 burst_ms;		/* page's burst duration */
	u64 free_kib;		/* free memory on the promotion target */
	u32 npages;		/* base pages the promotion moves (0: 1) */
};

/* Returns enum indigo_reason; a promotion proceeds iff indigo_allows(). */
int indigo_gate(const struct indigo_policy *p, const struct indigo_gate_in *in,
		struct indigo_bucket *b, u64 now_ns);

static inline bool indigo_allows(int reason)
{
	return reason == INDIGO_REASON_OBSERVE || reason == INDIGO_REASON_PASS;
}

const char *indigo_reason_name(int reason);
const char *indigo_mode_name(int mode);
/* Returns the enum indigo_mode of @name, or -1. */
int indigo_mode_parse(const char *name);

/*
 * Log2 histogram: bucket i counts values v with fls(v) == i. @total counts
 * the samples added; in a copy read without locks (per-CPU histograms while
 * their CPUs add) it can disagree with the sum of @count, so quantiles use
 * only @count.
 */
#define INDIGO_HIST_BUCKETS 33
struct indigo_hist {
	u64 count[INDIGO_HIST_BUCKETS];
	u64 total;
};

void indigo_hist_add(struct indigo_hist *h, u32 v);
/*
 * Upper bound of the bucket holding quantile @pct (0..100) of the samples
 * in @h->count; 0 if the counts are all 0.
 */
u32 indigo_hist_quantile(const struct indigo_hist *h, unsigned int pct);
void indigo_hist_merge(struct indigo_hist *dst, const struct indigo_hist *src);

/*
 * Bounded page table. Open addressing over @size slots (a power of two),
 * probing at most INDIGO_TABLE_PROBE slots; a full window evicts the record
 * with the oldest last_ns, so memory never grows with the workload.
 */
#define INDIGO_TABLE_PROBE 8
struct indigo_table {
	struct indigo_page *slots;
	u32 size;		/* power of two */
	u32 used;
};

/* Rounds @want down to a power of two (at least INDIGO_TABLE_PROBE). */
u32 indigo_table_size(u32 want);
void indigo_table_init(struct indigo_table *t, struct indigo_page *slots,
		       u32 size);
/*
 * Finds the record of @pfn, or makes one. A new record has nobs == 0 and
 * last_ns == 0. When a record had to be evicted, *@evicted_node is set to
 * its node, else to -1.
 *
 * @tag tells which page holds the pfn (its low INDIGO_KEY_TAG_BITS are
 * kept): records are never told of a page being freed, so a record of
 * @pfn with another tag was a page since freed, and starts anew rather
 * than lend its last fault and burst to the page now there.
 */
#define INDIGO_KEY_PFN_BITS	41	/* pfn + 1: 52-bit physical addresses */
#define INDIGO_KEY_TAG_BITS	(64 - INDIGO_KEY_PFN_BITS)
#define INDIGO_KEY_PFN_MASK	((1ULL << INDIGO_KEY_PFN_BITS) - 1)
#define INDIGO_PFN_MAX		(INDIGO_KEY_PFN_MASK - 1)
struct indigo_page *indigo_table_get(struct indigo_table *t, u64 pfn, u32 tag,
				     int *evicted_node);
/*
 * Frees the records of pages on @node, whose memory went offline: their
 * pfns hold no page now, and the records would otherwise linger until
 * evicted, counted as that node's evictions. Returns how many it freed.
 */
u32 indigo_table_drop_node(struct indigo_table *t, u16 node);
/* Stripe index for callers that lock the table in stripes. */
static inline u32 indigo_table_hash(u64 pfn)
{
	return (u32)((pfn * 0x9E3779B97F4A7C15ULL) >> 32);
}

/*
 * Recent hinting-scan marks: the scanner protects [start, end) of an address
 * space at time t; the next touch of a page in it faults. Kept in buckets
 * keyed by (address space, 1 GiB region), so the marks of one large buffer
 * are not pushed out by those of the process's many small mappings; each
 * bucket is a ring of the newest INDIGO_MARK_WAYS marks. A scan pass marks
 * a process's mappings in address order, so a buffer mapped below its
 * libraries, in their region, is marked first: with 8 ways the rest of the
 * pass pushed its mark out before its pages faulted (7.3; a huge page
 * faults once, and was never observed). A mark is filed
 * under each region it covers, at most INDIGO_MARK_SPAN of them (scan steps
 * are 256 MiB by default, so this is rarely reached).
 */
#define INDIGO_MARK_BUCKETS 256
#define INDIGO_MARK_WAYS 16
#define INDIGO_MARK_REGION_SHIFT 30
#define INDIGO_MARK_SPAN 4
struct indigo_mark {
	u64 mm;			/* address-space cookie, 0: free */
	u64 start, end;
	u64 t_ns;
};

struct indigo_marks {
	struct indigo_mark m[INDIGO_MARK_BUCKETS][INDIGO_MARK_WAYS];
	u8 next[INDIGO_MARK_BUCKETS];
};

static inline u32 indigo_marks_bucket(u64 mm, u64 addr)
{
	u64 key = mm ^ ((addr >> INDIGO_MARK_REGION_SHIFT) * 0xff51afd7ed558ccdULL);

	return (u32)((key * 0x9E3779B97F4A7C15ULL) >> 56) % INDIGO_MARK_BUCKETS;
}

/*
 * Files a mark. Marks must come in time order (ties allowed): find stops at
 * the first one that answers.
 */
void indigo_marks_add(struct indigo_marks *ms, u64 mm, u64 start, u64 end,
		      u64 t_ns);
/*
 * Marking time of the page at @addr that last faulted at @prev_ns (0: never
 * seen): the earliest mark covering @addr after @prev_ns, since a page is
 * marked once and stays marked until touched. 0 if no mark is known;
 * INDIGO_MARK_STALE if marks of @addr are known but none after @prev_ns, so
 * that no scan marked the page since that fault (a second thread's fault
 * on the marking that fault already counted).
 */
#define INDIGO_MARK_STALE (~0ULL)
u64 indigo_marks_find(const struct indigo_marks *ms, u64 mm, u64 addr,
		      u64 prev_ns);

#endif /* _INDIGO_CORE_H */
