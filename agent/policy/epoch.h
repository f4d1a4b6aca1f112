/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One indigod epoch, without a kernel: what the daemon does with each of
 * the module's EPOCH messages.
 *
 * The telemetry of epoch t reports what happened under the action chosen
 * at step t-1 (for context x[t-1]). So step t
 *   1. computes that action's reward from the cost model (costmodel.h):
 *	npromoted = the far nodes' allowed promotions of the epoch, each
 *	assumed to have the access rate rate_p50 (the module reports
 *	quantiles, not each promoted page's rate; the arm's threshold is no
 *	better, since a page passes it on one lucky reading), staying local
 *	for R epochs:
 *	   reward = cm_epoch_reward(link, npromoted * rate_p50, npromoted,
 *				    R * epoch)
 *	in seconds of stall time, less one epoch (until the next decision)
 *	of the accesses of the far pages it saw fault and left far
 *	(left = faults - npromoted):
 *	   reward -= cm_epoch_reward(link, left * rate_p50, 0, epoch)
 *	(negative when promotions cost more than they save, or when it
 *	leaves hot pages far; under the deny arm only that charge). R is the
 *	operator's (reward.residence) or, by default, Little's law on the
 *	local tier: pages in use / pages leaving it per epoch, both as
 *	EWMAs of weight EPOCH_RES_EWMA, within [EPOCH_RES_MIN,
 *	EPOCH_RES_MAX] (epoch_residence below). A promoted page is credited
 *	with what it saves while it stays, not with one epoch of it: one
 *	epoch is below the migration cost for all but the hottest pages, so
 *	a learner would see every low threshold as a loss. Without a
 *	measurement of the pages leaving (an old kernel without pgdemote_*
 *	counters) R is one epoch;
 *	When the caller knows better (struct epoch_feedback), the reward is
 *	instead the cost model on the pages the agent itself promoted, with
 *	their own rates (executor "agent": cm_epoch_reward_moves, a huge
 *	page one migration of its pages, and one fault off those left), or
 *	the application's progress per second divided by a scale (reward
 *	source "progress"), or with
 *	scale 0 its gain over its running mean (progress / mean - 1, within
 *	[-1, 1], the mean an EWMA of weight EPOCH_PROG_EWMA, started afresh
 *	at the first progress after none): centred and free of the
 *	application's units, so the learner's exploration keeps its weight;
 *   2. teaches the learner (x[t-1], a[t-1], r) with a cost-model r scaled
 *	to milliseconds saved per second of epoch (reward * 1000 / epoch), so
 *	that alpha and v of the config are in sensible units (a progress
 *	reward goes in as it is);
 *   3. completes the decision-log record of step t-1 (dlog.h);
 *   4. chooses a[t] for x[t] with its propensity: the learner's, or the
 *	network-adaptive heuristic (propensity 1) when the learner is
 *	"heuristic" or has had fewer than `warmup` updates. The heuristic's
 *	rate threshold (cm_heuristic_rate_min_mhz with the threshold
 *	calibrated to the cost model's break-even on the link over one epoch)
 *	becomes the grid arm nearest to it, lowest burst threshold;
 *   5. gives the module policy for a[t], with the cost model's rate cap
 *	(rate_cap_share of the bandwidth) and the operator's free_min_kib
 *	as the low watermark, unchanged (see costmodel.h), except for the
 *	fill arm's, which is raised to fill_share of local_total_kib (see
 *	actions.h).
 *
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_EPOCH_H
#define INDIGO_EPOCH_H

#include <stdbool.h>
#include <stdint.h>

#include "actions.h"
#include "bandit.h"
#include "context.h"
#include "costmodel.h"
#include "dlog.h"

#define EPOCH_MODEL_VERSION	1
#define EPOCH_WARMUP_DEFAULT	20
#define EPOCH_PROG_EWMA		0.1	/* weight of the newest progress */
/*
 * Residence of a promoted page, in epochs. The estimate is a long-run
 * average (Little's law), so both its inputs are smoothed over about ten
 * epochs, as progress is. The bounds keep one misreading from dominating
 * the learner: at least the epoch the page was promoted in; at most 64,
 * where the break-even rate (about 0.05 accesses/s on indigod's default
 * link, 1 s epochs) is already below the default grid's lowest threshold
 * (0.1/s), so every arm's promotions are credited as paying and a longer
 * credit would mostly magnify a reading taken while almost nothing leaves
 * local memory (an idle host, a tier not yet full).
 */
#define EPOCH_RES_MIN		1.0
#define EPOCH_RES_MAX		64.0
#define EPOCH_RES_EWMA		0.1
/*
 * bandit.forget = auto, by reward source. The cost model's reward is an
 * absolute figure that swings by orders of magnitude with the host's phase
 * (a tier filling up earns 10^5 an epoch, a full one 0-10): without
 * forgetting, the arm taught during the fill keeps its mean for good and
 * LinUCB never tries another. The progress reward is already a gain over
 * its own running mean; forgetting on top leaves each arm a noisy estimate
 * of its last few epochs. tools/bench/results/sim.md measures both.
 */
#define EPOCH_FORGET_COSTMODEL	0.5
#define EPOCH_FORGET_PROGRESS	1.0

struct epoch_params {
	int learner;			/* enum config_learner */
	unsigned int warmup;		/* learner updates before it decides */
	struct cm_link link;
	double epoch_s;			/* used when the telemetry has no length */
	double rate_cap_share;		/* (0, 1] */
	uint64_t free_min_kib;		/* the gate's low watermark, as is */
	double fill_share;		/* (0, ACT_FILL_SHARE_MAX] */
	/*
	 * Local memory, for the fill arm: set by the caller each epoch. The
	 * module holds its floor per target node, so this is one local
	 * node's memory (the smallest, ctx_mem.local_node_min), not the sum.
	 */
	uint64_t local_total_kib;	/* 0: unknown */
};

struct epoch_state {
	struct epoch_params p;
	struct act_grid grid;
	struct bandit *b;		/* NULL for the heuristic learner */
	uint64_t decisions;		/* steps that chose an action */
	uint64_t updates;		/* learner updates, loaded ones included */
	bool have_last;
	double last_x[CTX_DIM];
	double last_ts;
	unsigned int last_arm;
	double last_prop;
	char last_by[DLOG_LEARNER_MAX];
	struct act_policy last_pol;
	double prog_mean;		/* progress/s, running mean (auto scale) */
	bool have_prog_mean;
	/* residence estimate (epoch_residence) */
	uint64_t out_prev;		/* last running count of pages out */
	bool have_out_prev;
	double used_mean, out_mean;	/* pages in use, pages out per epoch */
	bool have_res_mean;
};

struct epoch_out {
	unsigned int arm;		/* chosen now */
	double propensity;
	const char *by;			/* "linucb", "thompson", "heuristic" */
	struct act_policy pol;		/* to give the module */
	bool have_rec;			/* the previous step's record is done */
	struct dlog_rec rec;
	int update_err;			/* bandit_update's result (-EDOM ...) */
};

/*
 * Sets up @s (zeroed first) with @grid (NULL: the default grid) and, for a
 * learning learner, a fresh bandit over CTX_DIM features with @bp (NULL:
 * bandit defaults). -EINVAL for bad parameters, -ENOMEM.
 */
int epoch_init(struct epoch_state *s, const struct epoch_params *p,
	       const struct act_grid *grid, const struct bandit_params *bp);
void epoch_free(struct epoch_state *s);

/* The learner's name as logged. */
const char *epoch_learner_name(int learner);

/* What the reward of the last action is made of (epoch_step_fb). */
enum epoch_fb_kind {
	EPOCH_FB_TELEMETRY,	/* the module's counters and quantiles */
	EPOCH_FB_PROMOTED,	/* exactly these promotions (executor agent) */
	EPOCH_FB_PROGRESS,	/* the application's progress */
	EPOCH_FB_NONE,		/* no reward known: no update, no record */
};

struct epoch_feedback {
	int kind;			/* enum epoch_fb_kind */
	uint64_t npromoted;		/* EPOCH_FB_PROMOTED: base pages */
	uint64_t nmoves;		/*   the migrations that moved them (a
					 * huge page is one of many pages),
					 * at most npromoted; 0: one a page */
	double rate_sum_hz;		/*   their access rates, summed */
	double progress;		/* EPOCH_FB_PROGRESS: units per second */
	double progress_scale;		/*   units per second worth 1; 0: auto */
	/*
	 * EPOCH_FB_TELEMETRY and EPOCH_FB_PROMOTED: how long a promoted page
	 * stays local. @residence > 0: that many epochs (the operator's
	 * reward.residence, within [EPOCH_RES_MIN, EPOCH_RES_MAX]); 0:
	 * estimated from the local tier, when @have_out says it was measured:
	 * @out_total, a running count of pages that left it (demoted), and
	 * @local_used, the pages in use in it now.
	 */
	double residence;
	bool have_out;
	uint64_t out_total;
	double local_used;
};

/*
 * One step: @e the epoch's telemetry, @x its context (CTX_DIM values from
 * ctx_build), @ts the time (s since 1970). -EINVAL on bad input, with @s
 * unchanged; otherwise 0 even if the learner rejected the update (then
 * o->update_err says why).
 */
int epoch_step(struct epoch_state *s, const struct ctx_epoch *e,
	       const double *x, double ts, struct epoch_out *o);

/* The same with the last action's reward from @fb (NULL: telemetry). */
int epoch_step_fb(struct epoch_state *s, const struct ctx_epoch *e,
		  const struct epoch_feedback *fb, const double *x, double ts,
		  struct epoch_out *o);

/*
 * The residence (epochs) the reward of the last action credits given @fb:
 * fb->residence when set, else Little's law on the EWMAs of the local
 * pages in use and of the pages that left per epoch, which this call
 * updates (the first measurement only starts the count; a count that went
 * backwards starts it afresh), within [EPOCH_RES_MIN, EPOCH_RES_MAX], and
 * EPOCH_RES_MIN until a count of pages leaving has been taken twice.
 * epoch_step_fb calls it every step; exported for tests.
 */
double epoch_residence(struct epoch_state *s, const struct epoch_feedback *fb);

/* The forgetting factor bandit.forget = auto means for a reward source. */
double epoch_forget_auto(int reward_source);

/*
 * Changes the parameters (SIGHUP). The learner kind must stay the same
 * (-EINVAL otherwise: the caller makes a new state).
 */
int epoch_reconfigure(struct epoch_state *s, const struct epoch_params *p);

/*
 * The learner on disk (modelfile.h, version EPOCH_MODEL_VERSION, payload a
 * bandit_save record). Save: -EINVAL without a learner. Load: -ENOENT when
 * there is no file; -EINVAL when it was corrupt or its learner record
 * unreadable (both moved aside) or of another kind or shape, one saved
 * before the fill arm (17 arms) among them (left in place, to be
 * overwritten by the next save), reason in @err; @s keeps its learner unless it returns 0. A
 * loaded learner takes @s's tuning, the configured one (bandit_set_tuning).
 */
int epoch_model_save(const struct epoch_state *s, const char *path, char *err,
		     size_t errlen);
int epoch_model_load(struct epoch_state *s, const char *path, char *err,
		     size_t errlen);

#endif /* INDIGO_EPOCH_H */
