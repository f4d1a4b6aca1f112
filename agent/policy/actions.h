/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigod's actions: a grid of (burst_min_ms, rate_min_mhz) threshold pairs
 * for the module's gate, plus "no promotion" (the module's deny mode) and
 * "fill" as the last two arms. Arm i < nburst * nrate is burst[i / nrate],
 * rate[i % nrate]; arm nburst * nrate is deny, arm nburst * nrate + 1 fill.
 * The rate cap does not vary with the arm: it comes from the cost model
 * (costmodel.h) each epoch and goes into every gate policy. The low
 * watermark is the operator's free_min_kib for every gate arm but fill.
 *
 * Fill admits every far fault (both thresholds 0) while the local node
 * has more than max(free_min_kib, local_total_kib * fill_share) free,
 * then stops: it fills local memory once and keeps what it promoted, as
 * TPP's fill phase does. A rate gate cannot express "keep a fixed
 * subset": on a cyclic scan every page has the same rate, so a gate
 * either admits none or admits all, and admitting all with local memory
 * full makes kswapd demote, to make room, the pages the scan will reach
 * next, so nothing promoted is still local when it is touched again.
 * Stopping above kswapd's watermarks (the default share, 1/16 of local
 * memory, is far above them: a fraction of a percent by default) means
 * promotion never wakes kswapd, and the promoted subset stays. With
 * local_total_kib unknown (0) the watermark is the operator's free_min_kib
 * alone: a gate with no thresholds.
 *
 * No netlink here: actions_policy() fills a struct act_policy, whose mode
 * values and attribute mask mirror the module's uAPI (the daemon checks
 * that at compile time and copies it into a struct modlink_policy_req).
 * Functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_ACTIONS_H
#define INDIGO_ACTIONS_H

#include <stdint.h>

#define ACT_GRID_MAX	16	/* values per axis */

/* = enum indigo_mode */
#define ACT_MODE_OBSERVE	0
#define ACT_MODE_GATE		1
#define ACT_MODE_DENY		2

/* = 1 << INDIGO_A_POLICY_* */
#define ACT_SET_MODE		(1U << 1)
#define ACT_SET_RATE_MIN	(1U << 2)
#define ACT_SET_BURST_MIN	(1U << 3)
#define ACT_SET_FREE_MIN	(1U << 4)
#define ACT_SET_RATE_CAP	(1U << 5)

#define ACT_FILL_SHARE_DEFAULT	0.0625	/* of local memory: 1/16 */
#define ACT_FILL_SHARE_MAX	0.5	/* at most half of it held free */

struct act_grid {
	unsigned int nburst, nrate;
	uint32_t burst_ms[ACT_GRID_MAX];	/* strictly increasing */
	uint32_t rate_mhz[ACT_GRID_MAX];	/* strictly increasing */
};

/* The policy for one arm, as the module takes it. */
struct act_policy {
	uint8_t mode;
	uint32_t rate_min_mhz;
	uint32_t burst_min_ms;
	uint64_t free_min_kib;
	uint32_t rate_cap_pps;
	uint32_t set;			/* ACT_SET_* of the fields to send */
};

/*
 * The default grid: bursts 0, 50, 200, 1000 ms by rates 100, 1000, 10000,
 * 100000 mHz (0.1 to 100 accesses/s): 16 gate arms, deny and fill, 18 in
 * all.
 */
void actions_grid_default(struct act_grid *g);

/*
 * A grid from the given axes (1..ACT_GRID_MAX values each, strictly
 * increasing). -EINVAL otherwise, @g untouched.
 */
int actions_grid_init(struct act_grid *g, const uint32_t *burst_ms,
		      unsigned int nburst, const uint32_t *rate_mhz,
		      unsigned int nrate);

/* Number of arms, deny and fill included: nburst * nrate + 2. */
unsigned int actions_count(const struct act_grid *g);

/* The deny arm's index. */
unsigned int actions_deny_arm(const struct act_grid *g);

/* The fill arm's index. */
unsigned int actions_fill_arm(const struct act_grid *g);

/*
 * The policy for @arm with the cost model's @rate_cap_pps and the
 * operator's @free_min_kib (the low watermark). Gate arms set mode, both
 * thresholds, the cap and the watermark; the fill arm is a gate arm with
 * both thresholds 0 and the watermark max(@free_min_kib, @local_total_kib
 * * @fill_share), @local_total_kib the local nodes' memory (0: unknown);
 * the deny arm sets mode only, so the thresholds the module holds are
 * kept. -EINVAL for a bad arm.
 */
int actions_policy(const struct act_grid *g, unsigned int arm,
		   uint32_t rate_cap_pps, uint64_t free_min_kib,
		   uint64_t local_total_kib, double fill_share,
		   struct act_policy *p);

/*
 * The gate arm with the lowest burst threshold whose rate threshold is
 * nearest @rate_min_mhz on a log scale (ties to the higher rate): how a
 * threshold computed elsewhere (the heuristic) becomes an arm.
 */
unsigned int actions_nearest_rate(const struct act_grid *g,
				  uint32_t rate_min_mhz);

#endif /* INDIGO_ACTIONS_H */
