// SPDX-License-Identifier: GPL-2.0
/*
 * indigo.ko: the "indigo" generic netlink family (uAPI and semantics in
 * include/uapi/linux/indigo.h).
 *
 * Every attribute is validated by a strict policy before a handler runs;
 * handlers then only check what a policy cannot express. Operations are
 * serialised by the genetlink mutex (no parallel_ops), which makes the
 * read-modify-write of SET_POLICY atomic against other setters.
 */
#include <linux/nodemask.h>
#include <net/genetlink.h>
#include "indigo.h"

/* not const: 6.1's nla_policy points to them without const */
static struct netlink_range_validation rate_cap_range __ro_after_init = {
	.max = INDIGO_RATE_CAP_MAX,
};

static struct netlink_range_validation burst_gap_range __ro_after_init = {
	.min = INDIGO_BURST_GAP_MIN,
	.max = INDIGO_BURST_GAP_MAX,
};

static const struct nla_policy indigo_nl_policy[INDIGO_A_MAX + 1] = {
	[INDIGO_A_POLICY_MODE] = NLA_POLICY_MAX(NLA_U8, INDIGO_MODE_MAX),
	[INDIGO_A_POLICY_RATE_MIN] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_BURST_MIN] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_FREE_MIN] = { .type = NLA_U64 },
	[INDIGO_A_POLICY_RATE_CAP] = NLA_POLICY_FULL_RANGE(NLA_U32, &rate_cap_range),
	[INDIGO_A_POLICY_BURST_TOL] = NLA_POLICY_RANGE(NLA_U32, INDIGO_BURST_TOL_MIN,
						       INDIGO_BURST_TOL_MAX),
	[INDIGO_A_POLICY_BURST_GAP] = NLA_POLICY_FULL_RANGE(NLA_U32, &burst_gap_range),
	/* read-only attributes: the module reports them, never takes them */
	[INDIGO_A_POLICY_GEN] = { .type = NLA_REJECT },
	[INDIGO_A_TABLE_PAGES] = { .type = NLA_REJECT },
	[INDIGO_A_TABLE_CAPACITY] = { .type = NLA_REJECT },
	[INDIGO_A_TABLE_BYTES] = { .type = NLA_REJECT },
	[INDIGO_A_MISSED] = { .type = NLA_REJECT },
	[INDIGO_A_CAND_DROPPED] = { .type = NLA_REJECT },
	[INDIGO_A_NODES] = { .type = NLA_REJECT },
	[INDIGO_A_EPOCH_SEQ] = { .type = NLA_REJECT },
	[INDIGO_A_EPOCH_MS] = { .type = NLA_REJECT },
	[INDIGO_A_RATE_P50] = { .type = NLA_REJECT },
	[INDIGO_A_RATE_P90] = { .type = NLA_REJECT },
	[INDIGO_A_RATE_P99] = { .type = NLA_REJECT },
	[INDIGO_A_BURST_P50] = { .type = NLA_REJECT },
	[INDIGO_A_BURST_P90] = { .type = NLA_REJECT },
	[INDIGO_A_BURST_P99] = { .type = NLA_REJECT },
	[INDIGO_A_CANDS] = { .type = NLA_REJECT },
	[INDIGO_A_PAD] = { .type = NLA_REJECT },
};

static struct genl_family indigo_family;

static int put_policy(struct sk_buff *skb)
{
	struct indigo_policy p;
	u64 gen = indigo_policy_get(&p);

	if (nla_put_u8(skb, INDIGO_A_POLICY_MODE, p.mode) ||
	    nla_put_u32(skb, INDIGO_A_POLICY_RATE_MIN, p.rate_min) ||
	    nla_put_u32(skb, INDIGO_A_POLICY_BURST_MIN, p.burst_min) ||
	    nla_put_u64_64bit(skb, INDIGO_A_POLICY_FREE_MIN, p.free_min,
			      INDIGO_A_PAD) ||
	    nla_put_u32(skb, INDIGO_A_POLICY_RATE_CAP, p.rate_cap) ||
	    nla_put_u32(skb, INDIGO_A_POLICY_BURST_TOL, p.burst_tol) ||
	    nla_put_u32(skb, INDIGO_A_POLICY_BURST_GAP, p.burst_gap) ||
	    nla_put_u64_64bit(skb, INDIGO_A_POLICY_GEN, gen, INDIGO_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static int put_node(struct sk_buff *skb, int nid,
		    const struct indigo_node_stats *s)
{
	struct nlattr *nest = nla_nest_start(skb, INDIGO_A_NODE);
	u64 allowed = s->reason[INDIGO_REASON_OBSERVE] +
		      s->reason[INDIGO_REASON_PASS];
	int r;

	if (!nest || nla_put_u32(skb, INDIGO_NODE_A_ID, nid) ||
	    nla_put_u64_64bit(skb, INDIGO_NODE_A_FAULTS, s->faults,
			      INDIGO_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, INDIGO_NODE_A_ALLOWED, allowed,
			      INDIGO_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, INDIGO_NODE_A_EVICTIONS, s->evictions,
			      INDIGO_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, INDIGO_NODE_A_ALLOWED_PAGES,
			      s->allowed_pages, INDIGO_NODE_A_PAD))
		return -EMSGSIZE;
	for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++)
		if (nla_put_u64_64bit(skb, INDIGO_NODE_A_VETO_DENY +
				      (r - INDIGO_REASON_DENY), s->reason[r],
				      INDIGO_NODE_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One INDIGO_A_NODE nest: its header, the node id and nine u64 counters
 * (FAULTS to EVICTIONS, then ALLOWED_PAGES)
 */
static size_t node_nla_size(void)
{
	return nla_total_size(0) + nla_total_size(sizeof(u32)) +
	       (INDIGO_NODE_A_EVICTIONS - INDIGO_NODE_A_ID + 1) *
	       nla_total_size_64bit(sizeof(u64));
}

/*
 * A message with INDIGO_A_NODES: NLMSG_GOODSIZE is ample for the other
 * attributes, the nodes get room of their own (120 bytes each on x86).
 */
static size_t nodes_msg_size(void)
{
	return NLMSG_GOODSIZE + nla_total_size(0) +
	       nodes_weight(indigo.far) * node_nla_size();
}

u32 indigo_genl_nodes_max(void)
{
	/* nla_len is a u16: the INDIGO_A_NODES nest holds at most 64 KiB */
	return (U16_MAX - nla_total_size(0)) / node_nla_size();
}

static int put_nodes(struct sk_buff *skb, const struct indigo_node_stats *s)
{
	struct nlattr *nest = nla_nest_start(skb, INDIGO_A_NODES);
	int nid;

	if (!nest)
		return -EMSGSIZE;
	for_each_node_mask(nid, indigo.far)
		if (put_node(skb, nid, &s[nid]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int put_stats(struct sk_buff *skb)
{
	struct indigo_node_stats *s;
	int err = -EMSGSIZE;

	s = kvcalloc(nr_node_ids, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	indigo_stats_sum(s);
	if (nla_put_u32(skb, INDIGO_A_TABLE_PAGES, indigo_tracked_pages()) ||
	    nla_put_u32(skb, INDIGO_A_TABLE_CAPACITY, indigo.capacity) ||
	    nla_put_u64_64bit(skb, INDIGO_A_TABLE_BYTES, indigo_table_bytes(),
			      INDIGO_A_PAD) ||
	    nla_put_u64_64bit(skb, INDIGO_A_MISSED, indigo_hook_missed(),
			      INDIGO_A_PAD) ||
	    nla_put_u64_64bit(skb, INDIGO_A_CAND_DROPPED,
			      atomic64_read(&indigo.cand_dropped), INDIGO_A_PAD))
		goto out;
	err = put_nodes(skb, s);
out:
	kvfree(s);
	return err;
}

/* Fills and sends @skb, which it consumes. */
static int reply_skb(struct sk_buff *skb, struct genl_info *info, u8 cmd,
		     int (*fill)(struct sk_buff *skb))
{
	void *hdr;
	int err;

	hdr = genlmsg_put_reply(skb, info, &indigo_family, 0, cmd);
	if (!hdr) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	err = fill(skb);
	if (err) {
		nlmsg_free(skb);
		return err;
	}
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

static int reply(struct genl_info *info, u8 cmd, size_t size,
		 int (*fill)(struct sk_buff *skb))
{
	struct sk_buff *skb = genlmsg_new(size, GFP_KERNEL);

	if (!skb)
		return -ENOMEM;
	return reply_skb(skb, info, cmd, fill);
}

static int indigo_get_policy(struct sk_buff *skb, struct genl_info *info)
{
	return reply(info, INDIGO_CMD_GET_POLICY, NLMSG_GOODSIZE, put_policy);
}

static int indigo_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	mutex_lock(&indigo.far_mutex);
	err = reply(info, INDIGO_CMD_GET_STATS, nodes_msg_size(), put_stats);
	mutex_unlock(&indigo.far_mutex);
	return err;
}

static int indigo_set_policy(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct indigo_policy p;
	struct sk_buff *rskb;
	bool any = false;
	u64 gen;
	int err;

	indigo_policy_get(&p);
	if (a[INDIGO_A_POLICY_MODE]) {
		p.mode = nla_get_u8(a[INDIGO_A_POLICY_MODE]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_RATE_MIN]) {
		p.rate_min = nla_get_u32(a[INDIGO_A_POLICY_RATE_MIN]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_BURST_MIN]) {
		p.burst_min = nla_get_u32(a[INDIGO_A_POLICY_BURST_MIN]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_FREE_MIN]) {
		p.free_min = nla_get_u64(a[INDIGO_A_POLICY_FREE_MIN]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_RATE_CAP]) {
		p.rate_cap = nla_get_u32(a[INDIGO_A_POLICY_RATE_CAP]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_BURST_TOL]) {
		p.burst_tol = nla_get_u32(a[INDIGO_A_POLICY_BURST_TOL]);
		any = true;
	}
	if (a[INDIGO_A_POLICY_BURST_GAP]) {
		p.burst_gap = nla_get_u32(a[INDIGO_A_POLICY_BURST_GAP]);
		any = true;
	}
	if (!any) {
		NL_SET_ERR_MSG(info->extack, "no policy attribute given");
		return -EINVAL;
	}
	/*
	 * The reply's memory before the change: an -ENOMEM after it would
	 * tell the caller that a policy now in force was not set
	 */
	rskb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rskb)
		return -ENOMEM;
	err = indigo_policy_set(&p, &gen);
	if (err) {
		nlmsg_free(rskb);
		return err;
	}
	return reply_skb(rskb, info, INDIGO_CMD_SET_POLICY, put_policy);
}

static const struct genl_small_ops indigo_ops[] = {
	{
		.cmd = INDIGO_CMD_GET_POLICY,
		.doit = indigo_get_policy,
	},
	{
		.cmd = INDIGO_CMD_SET_POLICY,
		.doit = indigo_set_policy,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = INDIGO_CMD_GET_STATS,
		.doit = indigo_get_stats,
	},
};

/* Telemetry names other processes' pages: only for CAP_NET_ADMIN. */
static const struct genl_multicast_group indigo_mcgrps[] = {
	{ .name = INDIGO_GENL_MCGRP, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family indigo_family __ro_after_init = {
	.name = INDIGO_GENL_NAME,
	.version = INDIGO_GENL_VERSION,
	.maxattr = INDIGO_A_MAX,
	.policy = indigo_nl_policy,
	.module = THIS_MODULE,
	.small_ops = indigo_ops,
	.n_small_ops = ARRAY_SIZE(indigo_ops),
	.mcgrps = indigo_mcgrps,
	.n_mcgrps = ARRAY_SIZE(indigo_mcgrps),
};

static void put_quantiles(struct sk_buff *skb, const struct indigo_hist *rate,
			  const struct indigo_hist *burst, int *err)
{
	static const struct { int attr; unsigned int pct; bool rate; } q[] = {
		{ INDIGO_A_RATE_P50, 50, true }, { INDIGO_A_RATE_P90, 90, true },
		{ INDIGO_A_RATE_P99, 99, true }, { INDIGO_A_BURST_P50, 50, false },
		{ INDIGO_A_BURST_P90, 90, false }, { INDIGO_A_BURST_P99, 99, false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(q) && !*err; i++)
		*err = nla_put_u32(skb, q[i].attr,
				   indigo_hist_quantile(q[i].rate ? rate : burst,
							q[i].pct));
}

static void send_epoch(u64 seq, u32 epoch_ms,
		       const struct indigo_node_stats *delta,
		       const struct indigo_hist *rate,
		       const struct indigo_hist *burst)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	mutex_lock(&indigo.far_mutex);
	skb = genlmsg_new(nodes_msg_size(), GFP_KERNEL);
	if (!skb)
		goto out;
	hdr = genlmsg_put(skb, 0, 0, &indigo_family, 0, INDIGO_CMD_EPOCH);
	if (!hdr) {
		nlmsg_free(skb);
		goto out;
	}
	err = nla_put_u64_64bit(skb, INDIGO_A_EPOCH_SEQ, seq, INDIGO_A_PAD) ||
	      nla_put_u32(skb, INDIGO_A_EPOCH_MS, epoch_ms);
	put_quantiles(skb, rate, burst, &err);
	if (err || put_nodes(skb, delta)) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&indigo_family, skb, 0, 0, GFP_KERNEL);
out:
	mutex_unlock(&indigo.far_mutex);
}

#define CANDS_PER_MSG	64
#define CAND_NLA_SIZE	64	/* one nested candidate, padding included */

/* 0, or why the batch did not reach every listener (-ENOBUFS: overrun) */
static int send_cands(u64 seq, const struct indigo_cand *c, u32 n)
{
	struct sk_buff *skb = genlmsg_new(256 + n * CAND_NLA_SIZE, GFP_KERNEL);
	struct nlattr *list, *one;
	void *hdr;
	u32 i;

	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &indigo_family, 0, INDIGO_CMD_CANDIDATES);
	if (!hdr ||
	    nla_put_u64_64bit(skb, INDIGO_A_EPOCH_SEQ, seq, INDIGO_A_PAD))
		goto fail;
	list = nla_nest_start(skb, INDIGO_A_CANDS);
	if (!list)
		goto fail;
	for (i = 0; i < n; i++) {
		one = nla_nest_start(skb, INDIGO_A_CAND);
		if (!one ||
		    nla_put_u32(skb, INDIGO_CAND_A_PID, c[i].pid) ||
		    nla_put_u64_64bit(skb, INDIGO_CAND_A_ADDR, c[i].addr,
				      INDIGO_CAND_A_PAD) ||
		    nla_put_u32(skb, INDIGO_CAND_A_NODE, c[i].node) ||
		    nla_put_u32(skb, INDIGO_CAND_A_RATE, c[i].rate) ||
		    nla_put_u32(skb, INDIGO_CAND_A_BURST, c[i].burst_ms) ||
		    nla_put_u32(skb, INDIGO_CAND_A_PAGES, c[i].pages))
			goto fail;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, list);
	genlmsg_end(skb, hdr);
	return genlmsg_multicast(&indigo_family, skb, 0, 0, GFP_KERNEL);
fail:
	nlmsg_free(skb);
	return -EMSGSIZE;
}

void indigo_genl_epoch(u64 seq, u32 epoch_ms,
		       const struct indigo_node_stats *delta,
		       const struct indigo_hist *rate,
		       const struct indigo_hist *burst,
		       const struct indigo_cand *cands, u32 ncands)
{
	u32 i;

	if (!genl_has_listeners(&indigo_family, &init_net, 0))
		return;
	send_epoch(seq, epoch_ms, delta, rate, burst);
	for (i = 0; i < ncands; i += CANDS_PER_MSG)
		send_cands(seq, cands + i, min_t(u32, CANDS_PER_MSG, ncands - i));
}

int indigo_genl_emit(u32 n, u64 *failed)
{
	struct indigo_cand *c;
	u32 i, j, k;
	int nid = first_node(indigo.far);
	int err;

	c = kcalloc(CANDS_PER_MSG, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < n; i += k) {
		k = min_t(u32, CANDS_PER_MSG, n - i);
		for (j = 0; j < k; j++)
			c[j] = (struct indigo_cand){
				.addr = (u64)(i + j) << PAGE_SHIFT,
				.node = nid, .rate = i + j, .pages = 1,
			};
		/* -ESRCH: no listener, nothing was there to fail */
		err = send_cands(U64_MAX, c, k);
		if (err && err != -ESRCH)
			(*failed)++;
		cond_resched();
		if (fatal_signal_pending(current))
			break;
	}
	kfree(c);
	return 0;
}

int indigo_genl_init(void)
{
	return genl_register_family(&indigo_family);
}

void indigo_genl_exit(void)
{
	genl_unregister_family(&indigo_family);
}
