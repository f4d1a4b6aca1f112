// SPDX-License-Identifier: GPL-2.0
/* One indigod epoch: see epoch.h. */
#include "epoch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "modelfile.h"

const char *epoch_learner_name(int learner)
{
	return config_learner_name(learner);
}

static int params_ok(const struct epoch_params *p)
{
	if (!p || cm_link_check(&p->link))
		return 0;
	if (p->learner != CONFIG_LEARNER_LINUCB &&
	    p->learner != CONFIG_LEARNER_THOMPSON &&
	    p->learner != CONFIG_LEARNER_HEURISTIC)
		return 0;
	if (!(p->epoch_s > 0) || !isfinite(p->epoch_s))
		return 0;
	if (!(p->fill_share > 0 && p->fill_share <= ACT_FILL_SHARE_MAX))
		return 0;
	return p->rate_cap_share > 0 && p->rate_cap_share <= 1;
}

static enum bandit_kind kind_of(int learner)
{
	return learner == CONFIG_LEARNER_THOMPSON ? BANDIT_THOMPSON :
						    BANDIT_LINUCB;
}

int epoch_init(struct epoch_state *s, const struct epoch_params *p,
	       const struct act_grid *grid, const struct bandit_params *bp)
{
	int ret;

	if (!s || !params_ok(p))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->p = *p;
	if (grid)
		s->grid = *grid;
	else
		actions_grid_default(&s->grid);
	if (s->grid.nburst < 1 || s->grid.nrate < 1 ||
	    s->grid.nburst > ACT_GRID_MAX || s->grid.nrate > ACT_GRID_MAX)
		return -EINVAL;
	if (p->learner == CONFIG_LEARNER_HEURISTIC)
		return 0;
	ret = bandit_new(&s->b, kind_of(p->learner), CTX_DIM,
			 actions_count(&s->grid), bp);
	return ret;
}

void epoch_free(struct epoch_state *s)
{
	if (!s)
		return;
	bandit_free(s->b);
	s->b = NULL;
}

int epoch_reconfigure(struct epoch_state *s, const struct epoch_params *p)
{
	if (!s || !params_ok(p) || p->learner != s->p.learner)
		return -EINVAL;
	s->p = *p;
	return 0;
}

/* The heuristic's arm on @link over @dt_s. */
static int heuristic_arm(const struct epoch_state *s, double dt_s,
			 unsigned int *arm)
{
	double thr;
	uint32_t rmin;
	int ret;

	ret = cm_heuristic_threshold(&s->p.link, dt_s, &thr);
	if (!ret)
		ret = cm_heuristic_rate_min_mhz(&s->p.link, 0.0, thr, &rmin);
	if (ret)
		return ret;
	*arm = actions_nearest_rate(&s->grid, rmin);
	return 0;
}

double epoch_forget_auto(int reward_source)
{
	return reward_source == CONFIG_REWARD_PROGRESS ?
		       EPOCH_FORGET_PROGRESS : EPOCH_FORGET_COSTMODEL;
}

double epoch_residence(struct epoch_state *s, const struct epoch_feedback *fb)
{
	double used, out;

	if (fb->residence > 0)
		return fb->residence;
	if (!fb->have_out) {
		/* a gap in the count: its next reading starts it afresh */
		s->have_out_prev = false;
	} else if (!s->have_out_prev || fb->out_total < s->out_prev) {
		s->out_prev = fb->out_total;
		s->have_out_prev = true;
	} else {
		used = fb->local_used;
		out = (double)(fb->out_total - s->out_prev);
		s->out_prev = fb->out_total;
		if (!s->have_res_mean) {
			s->used_mean = used;
			s->out_mean = out;
			s->have_res_mean = true;
		} else {
			s->used_mean += EPOCH_RES_EWMA * (used - s->used_mean);
			s->out_mean += EPOCH_RES_EWMA * (out - s->out_mean);
		}
	}
	if (!s->have_res_mean)
		return EPOCH_RES_MIN;
	/* nothing leaves: pages stay until the tier fills, as long as we credit */
	if (!(s->out_mean > 0))
		return EPOCH_RES_MAX;
	return fmin(fmax(s->used_mean / s->out_mean, EPOCH_RES_MIN),
		    EPOCH_RES_MAX);
}

/*
 * The far pages an action saw fault and left far (@e's faults less its
 * @promoted pages) cost their accesses until the next decision, one epoch
 * of @dt_s: what a promotion at no transfer cost would have saved, at the
 * epoch's median rate (they were not picked by a threshold, so their
 * readings are not the lucky ones). Without it, deny and a threshold that
 * admits nothing would earn 0 however hot the pages left.
 */
static int left_far_cost(const struct epoch_state *s,
			 const struct ctx_epoch *e, uint64_t promoted,
			 double dt_s, double *cost)
{
	uint64_t left = e->faults > promoted ? e->faults - promoted : 0;

	*cost = 0.0;
	if (!left)
		return 0;
	return cm_epoch_reward(&s->p.link,
			       cm_mhz_to_hz(e->rate_p50) * (double)left, 0,
			       dt_s, cost);
}

/*
 * The cost-model reward (s) of the last action given epoch @e, its
 * promotions staying local for @local_s, the epoch lasting @dt_s. Promoted
 * and left pages alike are taken at the epoch's median rate: the pages a
 * threshold admits read above it once, but a threshold selects the lucky
 * readings, so crediting it overrates high thresholds (in tools/sim on
 * sqlite the 10^5 mHz arm was taught 10 s saved over a run whose whole
 * stall was 2.4 s: tools/sim/results-notes.md).
 */
static int telemetry_reward(const struct epoch_state *s,
			    const struct ctx_epoch *e, double local_s,
			    double dt_s, double *reward)
{
	bool deny = s->last_pol.mode == ACT_MODE_DENY;
	uint64_t promoted = deny ? 0 : e->allowed;
	double rate_hz = cm_mhz_to_hz(e->rate_p50), cost;
	int ret;

	*reward = 0.0;
	if (promoted) {
		/* a huge page is one fault at its region's rate, all its
		 * pages' transfer */
		ret = cm_epoch_reward_moves(&s->p.link,
					    rate_hz * (double)promoted,
					    promoted, ctx_epoch_pages(e),
					    local_s, reward);
		if (ret)
			return ret;
	}
	ret = left_far_cost(s, e, promoted, dt_s, &cost);
	*reward -= cost;
	return ret;
}

/*
 * The agent executor's: the pages it moved, at their own rates (it knows
 * them), and the charge for what it left far.
 */
static int promoted_reward(const struct epoch_state *s,
			   const struct ctx_epoch *e,
			   const struct epoch_feedback *fb, double local_s,
			   double dt_s, double *reward)
{
	/* faults and k count migrations, a huge page's one; its transfer
	 * is all its pages' */
	uint64_t moves = fb->nmoves ? fb->nmoves : fb->npromoted;
	double cost;
	int ret;

	ret = cm_epoch_reward_moves(&s->p.link, fb->rate_sum_hz, moves,
				    fb->npromoted, local_s, reward);
	if (!ret)
		ret = left_far_cost(s, e, moves, dt_s, &cost);
	if (!ret)
		*reward -= cost;
	return ret;
}

static bool feedback_ok(const struct epoch_feedback *fb)
{
	if (!isfinite(fb->residence) || fb->residence < 0 ||
	    (fb->residence > 0 && (fb->residence < EPOCH_RES_MIN ||
				   fb->residence > EPOCH_RES_MAX)) ||
	    !isfinite(fb->local_used) || fb->local_used < 0)
		return false;
	switch (fb->kind) {
	case EPOCH_FB_TELEMETRY:
	case EPOCH_FB_NONE:
		return true;
	case EPOCH_FB_PROMOTED:
		return isfinite(fb->rate_sum_hz) && fb->rate_sum_hz >= 0 &&
		       fb->nmoves <= fb->npromoted;
	case EPOCH_FB_PROGRESS:
		return isfinite(fb->progress) && fb->progress >= 0 &&
		       isfinite(fb->progress_scale) && fb->progress_scale >= 0;
	}
	return false;
}

/*
 * The last action's reward as the learner sees it (@learn) and as it is
 * logged (@reward).
 */
/* Progress as a reward: scaled, or relative to its running mean. */
static double progress_reward(struct epoch_state *s,
			      const struct epoch_feedback *fb)
{
	double r;

	if (fb->progress_scale > 0)
		return fb->progress / fb->progress_scale;
	/* an application that was idle starts its mean afresh */
	if (!s->have_prog_mean || !(s->prog_mean > 0)) {
		s->prog_mean = fb->progress;
		s->have_prog_mean = true;
	}
	r = s->prog_mean > 0 ? fb->progress / s->prog_mean - 1 : 0;
	s->prog_mean += EPOCH_PROG_EWMA * (fb->progress - s->prog_mean);
	/*
	 * Idle now: the EWMA would only decay, never to 0, and the work
	 * resuming would read as a gain over a shrunken mean (+1 to whatever
	 * arm is then in force); the next progress starts it afresh.
	 */
	if (!(fb->progress > 0))
		s->have_prog_mean = false;
	/* a restart after a pause is not a hundredfold gain of the arm */
	return fmin(fmax(r, -1), 1);
}

static int last_reward(struct epoch_state *s, const struct ctx_epoch *e,
		       const struct epoch_feedback *fb, double dt_s,
		       double res, double *reward, double *learn)
{
	int ret;

	switch (fb->kind) {
	case EPOCH_FB_PROMOTED:
		ret = promoted_reward(s, e, fb, res * dt_s, dt_s, reward);
		break;
	case EPOCH_FB_PROGRESS:
		*reward = progress_reward(s, fb);
		*learn = *reward;
		return 0;
	default:
		ret = telemetry_reward(s, e, res * dt_s, dt_s, reward);
		break;
	}
	*learn = *reward * 1000.0 / dt_s;
	return ret;
}

int epoch_step(struct epoch_state *s, const struct ctx_epoch *e,
	       const double *x, double ts, struct epoch_out *o)
{
	return epoch_step_fb(s, e, NULL, x, ts, o);
}

int epoch_step_fb(struct epoch_state *s, const struct ctx_epoch *e,
		  const struct epoch_feedback *fb, const double *x, double ts,
		  struct epoch_out *o)
{
	static const struct epoch_feedback telemetry = {
		.kind = EPOCH_FB_TELEMETRY,
	};
	double dt_s, res, reward = 0.0, learn = 0.0, prop = 1.0;
	unsigned int arm, i;
	uint32_t cap;
	const char *by;
	int ret;

	if (!fb)
		fb = &telemetry;
	if (!s || !e || !x || !o || !isfinite(ts) || !feedback_ok(fb))
		return -EINVAL;
	for (i = 0; i < CTX_DIM; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	dt_s = e->ms ? e->ms / 1000.0 : s->p.epoch_s;
	memset(o, 0, sizeof(*o));
	/* every step, so that the count of pages leaving has no gaps */
	res = epoch_residence(s, fb);

	/* 1-3: the previous decision's reward, update and record. */
	if (s->have_last && fb->kind != EPOCH_FB_NONE) {
		ret = last_reward(s, e, fb, dt_s, res, &reward, &learn);
		if (ret)
			return ret;
		if (s->b) {
			o->update_err = bandit_update(s->b, s->last_x,
						      s->last_arm, learn);
			if (!o->update_err)
				s->updates++;
		}
		o->have_rec = true;
		o->rec.epoch = s->decisions - 1;
		o->rec.ts = s->last_ts;
		o->rec.ncontext = CTX_DIM;
		memcpy(o->rec.context, s->last_x, sizeof(s->last_x));
		o->rec.action = s->last_arm;
		o->rec.propensity = s->last_prop;
		o->rec.reward = reward;
		memcpy(o->rec.learner, s->last_by, sizeof(o->rec.learner));
	}

	/* 4: the next action. */
	if (s->b && s->updates >= s->p.warmup) {
		ret = bandit_choose(s->b, x, &arm, &prop);
		by = epoch_learner_name(s->p.learner);
	} else {
		ret = heuristic_arm(s, dt_s, &arm);
		prop = 1.0;
		by = "heuristic";
	}
	if (ret)
		return ret;

	/*
	 * 5: its policy, with the cost model's cap and the operator's floor
	 * as it is: a larger floor would veto promotions before the kernel's
	 * own watermark check, which is what wakes kswapd to make room
	 * (costmodel.h).
	 */
	ret = cm_rate_cap(&s->p.link, s->p.rate_cap_share, &cap);
	if (!ret)
		ret = actions_policy(&s->grid, arm, cap, s->p.free_min_kib,
				     s->p.local_total_kib, s->p.fill_share,
				     &o->pol);
	if (ret)
		return ret;

	o->arm = arm;
	o->propensity = prop;
	o->by = by;
	s->have_last = true;
	memcpy(s->last_x, x, sizeof(s->last_x));
	s->last_ts = ts;
	s->last_arm = arm;
	s->last_prop = prop;
	snprintf(s->last_by, sizeof(s->last_by), "%s", by);
	s->last_pol = o->pol;
	s->decisions++;
	return 0;
}

int epoch_model_save(const struct epoch_state *s, const char *path, char *err,
		     size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!s || !s->b || !path)
		return -EINVAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	ret = bandit_save(s->b, f);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (!ret)
		ret = modelfile_save(path, EPOCH_MODEL_VERSION, buf, len, err,
				     errlen);
	free(buf);
	return ret;
}

static uint64_t total_updates(const struct bandit *b)
{
	unsigned int k, n = bandit_arms(b);
	uint64_t sum = 0, u;

	for (k = 0; k < n; k++)
		if (!bandit_arm_updates(b, k, &u))
			sum += u;
	return sum;
}

int epoch_model_load(struct epoch_state *s, const char *path, char *err,
		     size_t errlen)
{
	struct bandit *nb = NULL;
	struct bandit_params bp;
	uint32_t version;
	void *data = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!s || !s->b || !path)
		return -EINVAL;
	ret = modelfile_load(path, EPOCH_MODEL_VERSION, &data, &len, &version,
			     err, errlen);
	if (ret)
		return ret;
	f = fmemopen(data, len ? len : 1, "r");
	if (!f) {
		ret = -errno;
		free(data);
		return ret;
	}
	ret = bandit_load(&nb, f);
	fclose(f);
	free(data);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		char where[512];

		/* sound file, record this agent cannot read (a newer one's?) */
		modelfile_move_aside(path, MODELFILE_ASIDE_CORRUPT, where,
				     sizeof(where));
		if (err && errlen)
			snprintf(err, errlen, "%s: learner record unreadable (%s); %s",
				 path, strerror(-ret), where);
		return -EINVAL;
	}
	if (bandit_kind(nb) != bandit_kind(s->b) ||
	    bandit_dim(nb) != bandit_dim(s->b) ||
	    bandit_arms(nb) != bandit_arms(s->b)) {
		char where[512];

		/* another agent's (upgraded, rolled back): kept for it */
		modelfile_move_aside(path, MODELFILE_ASIDE_OTHER_SHAPE, where,
				     sizeof(where));
		if (err && errlen)
			snprintf(err, errlen,
				 "%s: model of another shape (kind %d, d %u, K %u arms; want kind %d, d %u, K %u), not loaded; %s",
				 path, bandit_kind(nb), bandit_dim(nb),
				 bandit_arms(nb), bandit_kind(s->b),
				 bandit_dim(s->b), bandit_arms(s->b), where);
		bandit_free(nb);
		return -EINVAL;
	}
	/* it learns on as this agent is configured to */
	bandit_get_params(s->b, &bp);
	ret = bandit_set_tuning(nb, &bp);
	if (ret) {
		bandit_free(nb);
		return ret;
	}
	bandit_free(s->b);
	s->b = nb;
	s->updates = total_updates(nb);
	return 0;
}
