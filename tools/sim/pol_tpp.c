// SPDX-License-Identifier: GPL-2.0
/*
 * Linux NUMA balancing in tiering mode (numa_balancing=2, TPP upstream), as
 * should_numa_migrate_memory(), numa_promotion_adjust_threshold() and
 * numa_promotion_rate_limit() in kernel/sched/fair.c (6.1 to 6.12) do it:
 *
 *  - while the local node has plenty of free memory (pgdat_free_space_enough:
 *    more than the promotion watermark plus max(1 GiB, a sixteenth of the
 *    node); here kswapd's high watermark plus a sixteenth, as the
 *    simulated nodes are far smaller than 16 GiB), every far fault promotes
 *    and the threshold resets;
 *  - otherwise a far page is hot when its hinting-fault latency (fault time
 *    minus scan time) is under the hot threshold (sysctl
 *    numa_balancing_hot_threshold_ms, default 1000 ms);
 *  - hot pages count as promotion candidates; once more than the rate
 *    limit's worth of candidates (numa_balancing_promote_rate_limit_MBps,
 *    default 65536) arrived within the current second, no more promote;
 *  - every scan_period_max (60 s) the threshold moves by a sixteenth of
 *    twice the default: down when candidates exceeded 110 % of the rate
 *    limit's share of the period, up (to at most twice the default) when
 *    they fell under 90 %.
 *
 * Time constants are divided by SIM_TIME_SCALE like the scan period; the
 * rate limit is a bandwidth and stays as it is. Local faults are ignored:
 * tiering mode does not scan the top tier.
 */
#include "pol.h"

#include <errno.h>
#include <stdlib.h>

#define TPP_HOT_MS		1000.0
#define TPP_PERIOD_MAX_MS	60000.0
#define TPP_RATE_LIMIT_MBPS	65536.0
#define TPP_ADJUST_STEPS	16

struct tpp {
	double def_th, th;		/* ns; th 0: not set yet */
	double th_start, th_period;
	uint64_t nr_cand, th_nr_cand;	/* candidates ever, at last adjust */
	double rl_start, rl_window;
	uint64_t rl_nr_cand;		/* candidates at the window's start */
	double rate_limit;		/* pages/s */
	unsigned int threads;		/* candidates per fault: see rate_limited */
};

static void adjust_threshold(struct tpp *s, double now)
{
	double ref_cand, unit_th, th;
	uint64_t diff;

	if (now - s->th_start <= s->th_period)
		return;
	s->th_start = now;
	ref_cand = s->rate_limit * s->th_period / 1e9;
	diff = s->nr_cand - s->th_nr_cand;
	unit_th = s->def_th * 2 / TPP_ADJUST_STEPS;
	th = s->th > 0 ? s->th : s->def_th;
	if (diff > ref_cand * 11 / 10)
		th = th - unit_th > unit_th ? th - unit_th : unit_th;
	else if (diff < ref_cand * 9 / 10)
		th = th + unit_th < s->def_th * 2 ? th + unit_th : s->def_th * 2;
	s->th_nr_cand = s->nr_cand;
	s->th = th;
}

/*
 * true: the rate limit is reached. The node's candidate counter is the
 * host's: every thread alike brings its own page, as a large folio counts
 * all its pages (folio_nr_pages()).
 */
static bool rate_limited(struct tpp *s, double now)
{
	s->nr_cand += s->threads;
	if (now - s->rl_start > s->rl_window) {
		s->rl_start = now;
		s->rl_nr_cand = s->nr_cand;
	}
	return (double)(s->nr_cand - s->rl_nr_cand) >=
	       s->rate_limit * s->rl_window / 1e9;
}

/* promotions on the fault path: migrate_misplaced_*() from do_numa_page() */
static enum sim_verdict tpp_fault(struct sim_policy *pol,
				  const struct sim_view *v,
				  const struct sim_fault *f)
{
	struct tpp *s = pol->st;
	uint32_t free_pages = v->local_pages - v->local_used;

	if (!f->far)
		return SIM_STAY;
	if (free_pages > 2 * v->kswapd_low + v->local_pages / 16) {
		s->th = 0;
		return SIM_PROMOTE;
	}
	adjust_threshold(s, f->now_ns);
	if (f->now_ns - f->mark_ns >= (s->th > 0 ? s->th : s->def_th))
		return SIM_STAY;
	return rate_limited(s, f->now_ns) ? SIM_STAY : SIM_PROMOTE;
}

static void tpp_destroy(struct sim_policy *pol)
{
	free(pol->st);
}

static const struct sim_policy_ops tpp_ops = {
	.fault = tpp_fault,
	.destroy = tpp_destroy,
};

int pol_tpp_create(struct sim_policy *pol, const struct sim_params *p)
{
	struct tpp *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->def_th = TPP_HOT_MS * 1e6 / SIM_TIME_SCALE;
	s->th_period = TPP_PERIOD_MAX_MS * 1e6 / SIM_TIME_SCALE;
	s->rl_window = 1e9 / SIM_TIME_SCALE;
	s->rate_limit = TPP_RATE_LIMIT_MBPS * 1048576.0 / p->page_bytes;
	s->threads = p->threads;
	pol->ops = &tpp_ops;
	pol->st = s;
	return 0;
}
