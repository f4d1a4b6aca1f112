/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two-tier host the policies run on, driven by a page trace.
 *
 * Memory: every page of the trace starts on the far node (the application
 * was placed there, as INDIGO's evaluation does with migratepages); local
 * DRAM holds at most `local_pages`. Pages move only by promotion on a
 * hinting fault, when the policy says so, and by demotion: kswapd keeps
 * `kswapd_low` pages free by demoting the least recently used local pages
 * (CLOCK over the pages' referenced bits, the kernel's approximation of
 * LRU) until `2 * kswapd_low` are free. Demotions cost link bandwidth, not
 * application time (kswapd runs on another CPU).
 *
 * Time: each record first advances the clock by its instructions *
 * ns_per_insn, then by its memory access: local_ns if the page is local,
 * else the link's current far latency (link.h). A promotion made on the
 * fault path stalls the faulting access further by k_ns plus the page's
 * transfer at the link's available bandwidth; one made by a background
 * thread costs link bandwidth only, as a demotion does. Stall time is the
 * sum of these memory costs.
 *
 * Hinting faults as Linux delivers them: the scanner marks `scan_pages`
 * pages every `scan_period_ns`, walking the address space round robin (so
 * with scan_pages >= the working set, everything is marked every period);
 * the first touch of a marked page faults, and the policy sees the page,
 * the time and when it was first marked since its previous touch (Linux
 * skips pages that are still marked) or its demotion (migration drops the
 * mark and tiering mode's access time). Both tiers are scanned; policies that
 * follow Linux's tiering mode ignore local faults. A page's last marking
 * time is computed from the scan's arithmetic, not stored, so marking
 * costs nothing per page.
 *
 * The trace is one thread of the application; `threads` (default 1) says
 * how many threads do alike, so the link carries that many times the
 * trace's far lines, promotions and demotions (one serialised access
 * stream alone cannot load a 100 Gb/s link; a multi-threaded one can),
 * and the host's promotion limits (TPP's rate limit, INDIGO's rate cap)
 * count each of the trace's promotions once per thread.
 *
 * The policy also gets a call every `epoch_ns` (its telemetry epoch).
 *
 * Default time scale: hinting scans every 10 ms and 20 ms epochs, a
 * hundredth of Linux's 1 s scan period, so a trace of a few seconds of
 * simulated time spans hundreds of scans and epochs. Policies' time
 * constants are scaled alike (see the policies).
 */
#ifndef INDIGO_SIM_SIM_H
#define INDIGO_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "trace.h"

#define SIM_TIME_SCALE	100.0	/* Linux's time constants / the sim's */

struct sim_params {
	struct link_params link;
	double local_frac;		/* local capacity / working set */
	double page_bytes;
	double k_ns;			/* fixed cost of one migration */
	double ns_per_insn;
	double scan_period_ns;
	uint32_t scan_pages;
	double epoch_ns;
	double kswapd_frac;		/* kswapd_low / local_pages */
	unsigned int repeat;		/* the trace is walked this often */
	unsigned int threads;		/* the link carries this many alike */
	uint64_t seed;			/* for policies that draw */
};

void sim_params_default(struct sim_params *p);
int sim_params_check(const struct sim_params *p);

struct sim_result {
	double time_ns;			/* simulated run time */
	double stall_ns;		/* memory stall time */
	uint64_t accesses, local_hits, far_accesses;
	uint64_t faults, far_faults;
	uint64_t promotions, demotions;
	uint64_t link_bytes;		/* ours: far lines + migrations, all threads */
	uint64_t epochs;
};

/* What a policy sees of the host: read only. */
struct sim_view {
	const struct sim_params *p;
	uint32_t npages;
	uint32_t local_pages;		/* capacity */
	uint32_t local_used;
	uint32_t kswapd_low;
	const struct link *link;
	const struct sim_result *res;	/* counters so far */
};

struct sim_fault {
	uint32_t page;
	bool far;
	double now_ns;
	double mark_ns;			/* when the scanner marked it */
};

struct sim_policy;

/* What a policy makes of a fault; only a far page can be promoted. */
enum sim_verdict {
	SIM_STAY,
	/* migrated on the fault path (tiering mode): the access waits */
	SIM_PROMOTE,
	/*
	 * migrated by a background thread (MEMTIS's kmigraterd): the link
	 * carries the page, the application waits for none of it
	 */
	SIM_PROMOTE_BG,
};

struct sim_policy_ops {
	enum sim_verdict (*fault)(struct sim_policy *pol,
				  const struct sim_view *v,
				  const struct sim_fault *f);
	/*
	 * optional: every epoch_ns (a policy that decides at faults alone
	 * has none); 0 or a negative errno, which stops the run
	 */
	int (*epoch)(struct sim_policy *pol, const struct sim_view *v,
		     double now_ns);
	/* optional: at the end of a run (saving a model); 0 or -errno */
	int (*finish)(struct sim_policy *pol, char *err, size_t errlen);
	void (*destroy)(struct sim_policy *pol);
};

struct sim_policy {
	const struct sim_policy_ops *ops;
	void *st;
};

/* @pol's epoch call, where it has one: 0 or its negative errno. */
int sim_policy_epoch(struct sim_policy *pol, const struct sim_view *v,
		     double now_ns);

/*
 * Runs @t under @pol. 0, -EINVAL for bad parameters, -ENOMEM, or the
 * policy's error.
 */
int sim_run(const struct trace *t, const struct sim_params *p,
	    struct sim_policy *pol, struct sim_result *r);

/*
 * Pages of @page_bytes the scanner marks a period: Linux's scan step is
 * 256 MiB of address space (numa_balancing_scan_size_mb), whatever the
 * page size. At least 1.
 */
uint32_t sim_scan_pages(double page_bytes);

/* local_pages for @p and @npages: at least 1, at most npages. */
uint32_t sim_local_pages(const struct sim_params *p, uint32_t npages);
/* kswapd's low watermark, pages: at least 1. */
uint32_t sim_kswapd_low(const struct sim_params *p, uint32_t npages);

/*
 * The marking that makes an access at @now_ns to @page fault: the first
 * one after its previous touch at @last_ns (-1: never touched), as the
 * scanner skips pages that are still marked and Linux keeps the time of
 * the first marking. The scan marks chunk j (pages [j*scan_pages, ...))
 * at periods s with s mod nchunks == j. Returns its time, or -1 when the
 * page was not marked in (@last_ns, @now_ns] (no fault).
 */
double sim_fault_mark(const struct sim_params *p, uint32_t npages,
		      uint32_t page, double last_ns, double now_ns);

#endif /* INDIGO_SIM_SIM_H */
