// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO in the simulator: the module's fault path and indigod's epoch,
 * with the very code they run.
 *
 * Fault (kmod/hook.c, observe() and fault_return()): the page's record in
 * the module's bounded table (table.c), one rate observation from the
 * marking time (indigo_page_fault), then the gate (indigo_gate with the
 * module's token bucket) on the free local memory.
 * As in the module, a fault with no usable interval is not observed, and
 * the per-epoch telemetry counts faults, verdicts and the rate and burst
 * histograms. The kernel's own decision is numa_balancing=1's: every far
 * fault would migrate, and the gate vetoes.
 *
 * Epoch (agent/indigod.c, on_epoch()): the link's available bandwidth from
 * a byte counter of the link (ours plus the contender's, ctx_available_gbps,
 * less our promotions)
 * reconfigures the glue, ctx_build makes the context, epoch_step scores
 * the last policy, teaches the learner and gives the next policy, which
 * goes into the gate. The heuristic is the glue with learner "heuristic";
 * the fixed policy asks for the same cap (costmodel.c) and watermark
 * (free_min) and its one arm (actions.c) every epoch.
 *
 * Settings: what a host runs. indigod's defaults for the rate cap's share
 * of the link and for free_min (0: the module's gate never vetoes for low
 * memory, and the kernel's own watermarks decide, as on a host); the
 * module's burst_gap divided by SIM_TIME_SCALE. The simulated kernel
 * (sim.c, promote()) is the same for every policy: a promotion into a
 * nearly full local tier makes kswapd demote, as tiering mode does.
 */
#include "pol.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "context.h"
#include "core.h"
#include "epoch.h"
#include "errbuf.h"

#define INDIGO_MAX_PAGES	65536	/* the module's max_pages default */
#define INDIGO_FAR_NODE		1

struct indigo_sim {
	int kind;
	unsigned int arm;		/* fixed */
	const char *model_out;
	struct pol_log *log;
	struct indigo_policy ip;
	struct indigo_bucket bucket;
	struct indigo_table table;
	struct indigo_page *slots;
	/* this epoch's telemetry, as the module sums it */
	uint64_t faults, allowed, reason[__INDIGO_REASON_MAX];
	struct indigo_hist rate_h, burst_h;
	uint64_t seq;
	uint64_t accesses_prev;		/* for the progress reward */
	/* link byte counter at the last epoch */
	uint64_t ctr_prev;
	double ctr_at;
	double avail_gbps;
	struct epoch_state es;
	struct epoch_params ep;
	double residence;		/* reward.residence, 0: auto */
	struct act_grid grid;
	unsigned int cur_arm;
};

static uint64_t u64_ns(double ns)
{
	return ns > 0 ? (uint64_t)ns : 0;
}

/* the kernel's own migration, on the fault path, when the gate allows it */
static enum sim_verdict indigo_fault(struct sim_policy *pol,
				     const struct sim_view *v,
				     const struct sim_fault *f)
{
	struct indigo_sim *s = pol->st;
	uint64_t now = u64_ns(f->now_ns);
	struct indigo_gate_in in = { 0 };
	struct indigo_page *pg;
	int evicted, reason;
	bool seen;

	if (!f->far)
		return SIM_STAY;
	/* a trace's page is one page throughout: one tag */
	pg = indigo_table_get(&s->table, f->page, 0, &evicted);
	seen = indigo_page_fault(pg, &s->ip, now, u64_ns(f->mark_ns));
	pg->node = INDIGO_FAR_NODE;
	in.rate = pg->nobs ? pg->rate : 0;
	in.burst_ms = indigo_burst_ms(pg, now);
	s->faults++;
	if (seen) {
		indigo_hist_add(&s->rate_h, in.rate);
		indigo_hist_add(&s->burst_h, in.burst_ms);
	}
	/*
	 * The module's bucket is the host's: every thread alike promotes its
	 * own page now, so the cap counts them all, as it does a huge page.
	 */
	in.npages = v->p->threads;
	in.free_kib = (uint64_t)((v->local_pages - v->local_used) *
				 v->p->page_bytes / 1024);
	reason = indigo_gate(&s->ip, &in, &s->bucket, now);
	s->reason[reason]++;
	if (!indigo_allows(reason))
		return SIM_STAY;
	s->allowed++;
	return SIM_PROMOTE;
}

/* The module's policy from the agent's (indigod's apply_policy). */
static void apply(struct indigo_sim *s, const struct act_policy *a)
{
	if (a->set & ACT_SET_MODE)
		s->ip.mode = a->mode;
	if (a->set & ACT_SET_RATE_MIN)
		s->ip.rate_min = a->rate_min_mhz;
	if (a->set & ACT_SET_BURST_MIN)
		s->ip.burst_min = a->burst_min_ms;
	if (a->set & ACT_SET_FREE_MIN)
		s->ip.free_min = a->free_min_kib;
	if (a->set & ACT_SET_RATE_CAP)
		s->ip.rate_cap = a->rate_cap_pps;
}

/* The fixed arm's policy, with the cap and watermark epoch_step would give. */
static int fixed_policy(struct indigo_sim *s, struct act_policy *a)
{
	uint32_t cap;
	int ret;

	ret = cm_rate_cap(&s->ep.link, s->ep.rate_cap_share, &cap);
	if (!ret)
		ret = actions_policy(&s->grid, s->arm, cap, s->ep.free_min_kib,
				     s->ep.local_total_kib, s->ep.fill_share, a);
	return ret;
}

static void telemetry(const struct indigo_sim *s, const struct sim_view *v,
		      struct ctx_epoch *e, struct ctx_mem *m)
{
	double kib = v->p->page_bytes / 1024;

	memset(e, 0, sizeof(*e));
	e->seq = s->seq;
	e->ms = (uint32_t)(v->p->epoch_ns / 1e6 + 0.5);
	e->rate_p50 = indigo_hist_quantile(&s->rate_h, 50);
	e->rate_p90 = indigo_hist_quantile(&s->rate_h, 90);
	e->rate_p99 = indigo_hist_quantile(&s->rate_h, 99);
	e->burst_p50 = indigo_hist_quantile(&s->burst_h, 50);
	e->burst_p90 = indigo_hist_quantile(&s->burst_h, 90);
	e->burst_p99 = indigo_hist_quantile(&s->burst_h, 99);
	/* a simulated page moves as one */
	ctx_epoch_add_node(e, INDIGO_FAR_NODE, s->faults, s->allowed,
			   s->allowed, s->reason, __INDIGO_REASON_MAX);
	m->local_total = (uint64_t)(v->local_pages * kib);
	m->local_free = (uint64_t)((v->local_pages - v->local_used) * kib);
	m->far_total = (uint64_t)(v->npages * kib);
	m->far_free = (uint64_t)(v->local_used * kib);
	m->nlocal = m->nfar = 1;
}

static int log_epoch(struct indigo_sim *s, const struct sim_view *v,
		     double now_ns, uint64_t accesses)
{
	struct pol_log *l = s->log;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		void *r = realloc(l->rec, cap * sizeof(*l->rec));

		if (!r)
			return -ENOMEM;
		l->rec = r;
		l->cap = cap;
	}
	l->rec[l->n++] = (struct pol_epoch_rec){
		.t_ns = now_ns, .stall_ns = v->res->stall_ns,
		.accesses = accesses, .arm = s->cur_arm,
		.rate_min_mhz = s->ip.rate_min, .burst_min_ms = s->ip.burst_min,
	};
	return 0;
}

static int indigo_epoch(struct sim_policy *pol, const struct sim_view *v,
			double now_ns)
{
	struct indigo_sim *s = pol->st;
	const struct link_params *lp = &v->p->link;
	/* the link's counter: our bytes and the contender's */
	uint64_t ctr = v->link->bytes +
		       (uint64_t)(lp->contention * link_bytes_per_ns(lp) * now_ns);
	/* our promotions in it, as indigod counts them: every thread's page */
	uint64_t own = (uint64_t)((double)s->allowed * v->p->threads *
				  v->p->page_bytes);
	struct ctx_link cl = { .far_ns = lp->far_ns, .local_ns = lp->local_ns };
	uint64_t accesses = v->res->local_hits + v->res->far_accesses;
	/*
	 * The reward's residence as indigod measures it: local pages in use
	 * and the kernel's running count of demotions (/proc/vmstat's
	 * pgdemote_*); the simulated host frees no pages.
	 */
	struct epoch_feedback fb = {
		.kind = EPOCH_FB_TELEMETRY,
		.residence = s->residence,
		.have_out = true,
		.out_total = v->res->demotions,
		.local_used = v->local_used,
	};
	double dt_s = (now_ns - s->ctr_at) / 1e9;
	struct act_policy a;
	struct epoch_out o;
	struct ctx_epoch e;
	struct ctx_mem m;
	double x[CTX_DIM], avail;
	int ret;

	if (!ctx_available_gbps(lp->gbps, s->ctr_prev, ctr, own, dt_s, &avail))
		s->avail_gbps = avail;
	if (s->kind == POL_BANDIT_PROGRESS && dt_s > 0) {
		fb.kind = EPOCH_FB_PROGRESS;
		fb.progress = (double)(accesses - s->accesses_prev) / dt_s;
		/*
		 * indigod's default (reward.progress_scale = 0), what a host
		 * runs: the gain over the running mean of progress, within
		 * [-1, 1], with no scale to tune to the simulator's rates.
		 */
		fb.progress_scale = 0;
	}
	s->accesses_prev = accesses;
	s->ctr_prev = ctr;
	s->ctr_at = now_ns;
	s->ep.link.bandwidth = cm_gbps_to_bytes_per_s(s->avail_gbps);
	/* as indigod reads it from the local nodes' meminfo (telemetry) */
	s->ep.local_total_kib = (uint64_t)(v->local_pages *
					   (v->p->page_bytes / 1024));
	if (s->kind == POL_FIXED) {
		ret = fixed_policy(s, &a);
		s->cur_arm = s->arm;
	} else {
		ret = epoch_reconfigure(&s->es, &s->ep);
		cl.bandwidth_gbps = s->avail_gbps;
		telemetry(s, v, &e, &m);
		if (!ret)
			ret = ctx_build(&e, &m, &cl, x);
		if (!ret)
			ret = epoch_step_fb(&s->es, &e, &fb, x, now_ns / 1e9, &o);
		if (!ret) {
			a = o.pol;
			s->cur_arm = o.arm;
		}
	}
	if (ret)
		return ret;
	apply(s, &a);
	s->seq++;
	s->faults = s->allowed = 0;
	memset(s->reason, 0, sizeof(s->reason));
	memset(&s->rate_h, 0, sizeof(s->rate_h));
	memset(&s->burst_h, 0, sizeof(s->burst_h));
	return s->log ? log_epoch(s, v, now_ns, accesses) : 0;
}

static int indigo_finish(struct sim_policy *pol, char *err, size_t errlen)
{
	struct indigo_sim *s = pol->st;

	if (!s->model_out || !s->es.b)
		return 0;
	return epoch_model_save(&s->es, s->model_out, err, errlen);
}

static void indigo_destroy(struct sim_policy *pol)
{
	struct indigo_sim *s = pol->st;

	epoch_free(&s->es);
	free(s->slots);
	free(s);
}

static const struct sim_policy_ops indigo_ops = {
	.fault = indigo_fault,
	.epoch = indigo_epoch,
	.finish = indigo_finish,
	.destroy = indigo_destroy,
};

static int setup(struct indigo_sim *s, const struct pol_cfg *c,
		 const struct sim_params *p, uint32_t npages, char *err,
		 size_t errlen)
{
	struct indigod_config host;
	struct bandit_params bp;
	/* the module's default, or less for a small working set */
	uint32_t size = indigo_table_size(npages < INDIGO_MAX_PAGES / 4 ?
					  4 * npages : INDIGO_MAX_PAGES);
	int ret;

	s->kind = c->kind;
	s->arm = c->arm;
	s->model_out = c->model_out;
	s->log = c->log;
	pol_grid(&s->grid);
	if (c->kind == POL_FIXED && c->arm >= actions_count(&s->grid))
		return errbuf_set(err, errlen, -EINVAL, "arm %u: the grid has arms 0-%u",
			       c->arm, actions_count(&s->grid) - 1);
	/* indigod's reward.residence: auto (0) or epochs within its range */
	s->residence = c->residence;
	if (s->residence != 0 && !(s->residence >= EPOCH_RES_MIN &&
				   s->residence <= EPOCH_RES_MAX))
		return errbuf_set(err, errlen, -EINVAL, "residence %g: 0 (auto) or %g-%g epochs",
			       s->residence, (double)EPOCH_RES_MIN,
			       (double)EPOCH_RES_MAX);
	if (!(c->rate_cap_share >= 0 && c->rate_cap_share <= 1))
		return errbuf_set(err, errlen, -EINVAL, "rate cap share %g: 0 (indigod's default) or in (0, 1]",
			       c->rate_cap_share);
	/*
	 * The module's telemetry gives its epoch in whole ms (telemetry()),
	 * and indigod turns counts into rates by it: any other epoch would
	 * feed the learner rates off by the rounding (a 0.4 ms epoch reads as
	 * 0 ms, which the context takes for 1 s).
	 */
	if (c->kind != POL_FIXED && (!(p->epoch_ns >= 1e6) ||
	    fabs(p->epoch_ns / 1e6 - round(p->epoch_ns / 1e6)) > 1e-6))
		return errbuf_set(err, errlen, -EINVAL, "epoch %g ms: the learners need whole ms",
			       p->epoch_ns / 1e6);
	s->slots = malloc(size * sizeof(*s->slots));
	if (!s->slots)
		return -ENOMEM;
	indigo_table_init(&s->table, s->slots, size);
	indigo_policy_default(&s->ip);
	s->ip.burst_gap = (uint32_t)(s->ip.burst_gap / SIM_TIME_SCALE);
	s->avail_gbps = p->link.gbps * (1 - p->link.contention);
	config_defaults(&host);
	s->ep = (struct epoch_params){
		.learner = c->kind >= POL_BANDIT ? CONFIG_LEARNER_LINUCB :
						   CONFIG_LEARNER_HEURISTIC,
		.warmup = c->warmup,
		.link = {
			.bandwidth = cm_gbps_to_bytes_per_s(s->avail_gbps),
			.far_ns = p->link.far_ns,
			.local_ns = p->link.local_ns,
			.page_bytes = p->page_bytes,
			.k_ns = p->k_ns,
		},
		.epoch_s = p->epoch_ns / 1e9,
		/* indigod's defaults, as a host runs it, but for -C */
		.rate_cap_share = c->rate_cap_share > 0 ? c->rate_cap_share :
				  host.policy.rate_cap_share,
		.free_min_kib = host.policy.free_min_kib,
		.fill_share = host.policy.fill_share,
	};
	bandit_params_default(&bp);
	bp.seed = p->seed;
	/* indigod's default, auto, for this policy's reward */
	bp.forget = host.bandit.forget ? host.bandit.forget :
		    epoch_forget_auto(c->kind == POL_BANDIT_PROGRESS ?
				      CONFIG_REWARD_PROGRESS :
				      CONFIG_REWARD_COSTMODEL);
	ret = epoch_init(&s->es, &s->ep, &s->grid, &bp);
	if (!ret && c->model_in && s->es.b)
		ret = epoch_model_load(&s->es, c->model_in, err, errlen);
	return ret;
}

int pol_indigo_create(struct sim_policy *pol, const struct pol_cfg *c,
		      const struct sim_params *p, uint32_t npages, char *err,
		      size_t errlen)
{
	struct indigo_sim *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = setup(s, c, p, npages, err, errlen);
	if (ret) {
		epoch_free(&s->es);
		free(s->slots);
		free(s);
		return ret;
	}
	pol->ops = &indigo_ops;
	pol->st = s;
	return 0;
}
