/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The placement policies, each a plug-in for sim_run():
 *
 *  none	never promotes: everything stays on the far node
 *  tpp		Linux NUMA balancing in tiering mode (TPP upstream):
 *		promotes a far page whose hinting-fault latency is under a
 *		hot threshold that adjusts itself to the promotion rate
 *		limit, as kernel/sched/fair.c does (pol_tpp.c)
 *  memtis	MEMTIS-like: per-page access counts in a log2 histogram; the
 *		hot threshold is the lowest bin whose pages still fit local
 *		memory; periodic cooling (pol_memtis.c)
 *  colloid	Colloid-like: MEMTIS's hotness, with promotions allowed only
 *		while the far tier's loaded latency exceeds the local one, at
 *		a rate proportional to the gap (pol_memtis.c)
 *  heuristic	INDIGO's network-adaptive heuristic, through indigod's epoch
 *		glue (epoch.c) and the module's gate (core.c)
 *  fixed	INDIGO with one fixed arm of the action grid (gate arms,
 *		deny, fill: see actions.h) for the whole run: the table
 *		searches every arm and keeps the best, the paper's
 *		offline-trained policy at its best
 *  bandit	INDIGO's online learner (LinUCB) through the same glue, with
 *		indigod's default reward (the cost model on the telemetry)
 *  bandit-progress  the same learner rewarded by the application's
 *		progress (indigod's reward.source = progress with its default
 *		progress_scale 0): accesses per second of the epoch, as their
 *		gain over their running mean, within [-1, 1]
 *
 * The oracle is not a plug-in: see oracle.h.
 */
#ifndef INDIGO_SIM_POL_H
#define INDIGO_SIM_POL_H

#include <stddef.h>
#include <stdint.h>

#include "actions.h"
#include "sim.h"

enum pol_kind {
	POL_NONE,
	POL_TPP,
	POL_MEMTIS,
	POL_COLLOID,
	POL_HEURISTIC,
	POL_FIXED,
	POL_BANDIT,
	POL_BANDIT_PROGRESS,
	POL_COUNT
};

/* One epoch of an INDIGO policy, for plots and the settling measure. */
struct pol_epoch_rec {
	double t_ns;
	double stall_ns;		/* stall so far */
	uint64_t accesses;		/* so far */
	unsigned int arm;
	uint32_t rate_min_mhz, burst_min_ms;
};

struct pol_log {
	struct pol_epoch_rec *rec;
	size_t n, cap;
};

struct pol_cfg {
	int kind;			/* enum pol_kind */
	unsigned int arm;		/* fixed: the arm */
	unsigned int warmup;		/* bandits: updates before they decide */
	const char *model_in;		/* bandits: warm start from this model */
	const char *model_out;		/* bandits: save the model here at the end */
	struct pol_log *log;		/* INDIGO kinds: per-epoch record, or NULL */
	double residence;		/* bandits: reward.residence, 0: auto */
	/* INDIGO kinds: indigod's policy.rate_cap_share, 0: its default */
	double rate_cap_share;
};

/* "none", "tpp", ...; NULL for a bad kind. */
const char *pol_name(int kind);
/* The kind named @name, or -1. */
int pol_parse(const char *name);

/*
 * Makes @pol for a run of @p over @npages pages. -EINVAL, -ENOMEM, or a
 * model file's error (@err says which, when not NULL).
 */
int pol_create(struct sim_policy *pol, const struct pol_cfg *c,
	       const struct sim_params *p, uint32_t npages, char *err,
	       size_t errlen);
/* Saves the bandit's model if asked to, then frees @pol. */
int pol_finish(struct sim_policy *pol, char *err, size_t errlen);

/* The action grid INDIGO's plug-ins use, scaled to the sim's time. */
void pol_grid(struct act_grid *g);

/* Per-kind constructors (pol.c dispatches). */
int pol_none_create(struct sim_policy *pol);
int pol_tpp_create(struct sim_policy *pol, const struct sim_params *p);
int pol_memtis_create(struct sim_policy *pol, const struct sim_params *p,
		      uint32_t npages, int colloid);
int pol_indigo_create(struct sim_policy *pol, const struct pol_cfg *c,
		      const struct sim_params *p, uint32_t npages, char *err,
		      size_t errlen);

#endif /* INDIGO_SIM_POL_H */
