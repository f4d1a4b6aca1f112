/* SPDX-License-Identifier: GPL-2.0 */
/*
 * INDIGO's network-aware cost model: when does promoting a far page to local
 * DRAM pay for the trip across the link that the application itself uses?
 *
 * Units, everywhere in this header:
 *	access rates		accesses per second (Hz); the module's mHz / 1000
 *	latencies, k		nanoseconds
 *	bandwidth		bytes per second (100 Gb/s = 12.5e9 B/s)
 *	intervals (dT, epoch)	seconds
 *	benefits, costs, reward	seconds (of memory stall time)
 *
 * Promoting page p (and demoting page d, the local page that makes room for
 * it; rate_d = 0 when free memory does) over an interval dT pays off when
 *
 *	(rate_p - rate_d) * dT * d_latency  >  page_size / bandwidth + k
 *
 * with d_latency = far - local latency and bandwidth the *available* link
 * bandwidth. The paper writes the same inequality divided by d_latency
 * (so its k counts accesses); here both sides are stall time so that k is
 * a time one can measure (fault + remap + TLB shootdown).
 *
 * Every function checks its inputs and returns 0 or -EINVAL (zero, negative
 * or non-finite bandwidth, latency or page size; far latency not above the
 * local one; negative rates, intervals or k). None prints, none allocates.
 */
#ifndef INDIGO_COSTMODEL_H
#define INDIGO_COSTMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/indigo.h>

#define CM_PAGE_BYTES_DEFAULT	4096.0

/* The link as the cost model sees it during one decision. */
struct cm_link {
	double bandwidth;	/* available bandwidth, bytes/s, > 0 */
	double far_ns;		/* far-memory access latency, ns, > local_ns */
	double local_ns;	/* local DRAM access latency, ns, > 0 */
	double page_bytes;	/* migration unit, bytes, > 0 (4096) */
	double k_ns;		/* fixed cost of one migration, ns, >= 0 */
};

/* Convenience: Gb/s (decimal, as links are sold) to bytes/s. */
static inline double cm_gbps_to_bytes_per_s(double gbps)
{
	return gbps * 1e9 / 8.0;
}

/* Convenience: the module's mHz to accesses/s. */
static inline double cm_mhz_to_hz(uint32_t mhz)
{
	return mhz / 1000.0;
}

/* 0 when @l describes a usable link, else -EINVAL. */
int cm_link_check(const struct cm_link *l);

/* Cost of one promotion: page_bytes / bandwidth + k, in seconds. */
int cm_promotion_cost(const struct cm_link *l, double *cost_s);

/*
 * Stall time one promotion saves over @dt_s: (rate_p - rate_d) * dT *
 * d_latency, in seconds. Negative when p is colder than d.
 */
int cm_promotion_benefit(const struct cm_link *l, double rate_p, double rate_d,
			 double dt_s, double *benefit_s);

/* Benefit minus cost (seconds); *pays is true when strictly positive. */
int cm_promotion_gain(const struct cm_link *l, double rate_p, double rate_d,
		      double dt_s, double *gain_s, bool *pays);

/*
 * The rate difference rate_p - rate_d (accesses/s) at which one promotion
 * over @dt_s (> 0) exactly breaks even: (page/bandwidth + k) / (dT * d_lat).
 * Less bandwidth or a smaller latency gap raises it.
 */
int cm_breakeven_rate(const struct cm_link *l, double dt_s, double *rate);

/*
 * One epoch's reward, in seconds: the stall time the epoch's @npromoted
 * promotions save, estimated as (sum of their access rates) * d_latency *
 * @local_s (how long they are expected to stay local; the epoch length is
 * the usual estimate), minus their transfer cost npromoted * (page_bytes /
 * bandwidth + k). @rate_sum is in accesses/s.
 */
int cm_epoch_reward(const struct cm_link *l, double rate_sum, uint64_t npromoted,
		    double local_s, double *reward_s);

/*
 * The same for @nmoves migrations that moved @npages base pages in all (a
 * huge page is one migration of many): each migration costs k once, each
 * page its transfer. cm_epoch_reward() is the case of one page a move.
 */
int cm_epoch_reward_moves(const struct cm_link *l, double rate_sum,
			  uint64_t nmoves, uint64_t npages, double local_s,
			  double *reward_s);

/* The same from the promoted pages' individual rates (accesses/s). */
int cm_epoch_reward_rates(const struct cm_link *l, const double *rates, size_t n,
			  double local_s, double *reward_s);

/*
 * The largest rate cap the module takes: SET_POLICY refuses a larger
 * INDIGO_A_POLICY_RATE_CAP with ERANGE, and with it the whole policy
 * (include/uapi/linux/indigo.h).
 */
#define CM_RATE_CAP_MAX	((uint32_t)INDIGO_RATE_CAP_MAX)

/*
 * Promotions per second that use at most @share (0 < share <= 1) of the
 * available bandwidth: floor(share * bandwidth / page_bytes), clamped to
 * [1, CM_RATE_CAP_MAX]. Never 0, because the module reads a cap of 0 as
 * "no cap".
 */
int cm_rate_cap(const struct cm_link *l, double share, uint32_t *pps);

/*
 * There is deliberately no low-watermark function here. The module's gate
 * vetoes a promotion while the target node has less free memory than the
 * policy's free_min, and a veto rewrites the kernel's target before its
 * own migration path runs: a vetoed promotion never reaches the kernel's
 * check of the node's watermarks, which in NUMA-balancing tiering mode is
 * what wakes kswapd to demote and make room. A floor derived from the rate
 * cap (one epoch of promotions at the cap: gigabytes on a fast link) sits
 * far above what kswapd keeps free, and would stop promotion for good once
 * local memory is full. So the agent passes the operator's free_min_kib
 * unchanged (default 0: the kernel's own watermarks decide) and bounds
 * the promotion rate with cm_rate_cap() only.
 */

/*
 * INDIGO's untrained "network-adaptive heuristic": promote p when
 *
 *	(rate_p - rate_d) * bandwidth * d_latency  >  threshold
 *
 * with rates in accesses/s, bandwidth in bytes/s and d_latency in seconds,
 * so @threshold is in bytes/s. *promote is the verdict.
 */
int cm_heuristic_promote(const struct cm_link *l, double rate_p, double rate_d,
			 double threshold, bool *promote);

/*
 * The same rule as the module's access-rate threshold: the module promotes
 * pages whose rate (mHz) is at or above rate_min, and the heuristic wants
 * rate_p > rate_d + threshold / (bandwidth * d_latency) strictly, so
 * rate_min = floor(1000 * that) + 1, saturating at UINT32_MAX. For integer
 * mHz rates the two rules then agree (up to floating-point rounding of a
 * rate that falls exactly on the edge).
 */
int cm_heuristic_rate_min_mhz(const struct cm_link *l, double rate_d,
			      double threshold, uint32_t *rate_min_mhz);

/*
 * Calibration: the heuristic threshold that, on link @l, puts the heuristic's
 * break-even at the cost model's for interval @dt_s, i.e. breakeven_rate *
 * bandwidth * d_latency. On other links the heuristic then scales as
 * 1 / (bandwidth * d_latency).
 */
int cm_heuristic_threshold(const struct cm_link *l, double dt_s,
			   double *threshold);

#endif /* INDIGO_COSTMODEL_H */
