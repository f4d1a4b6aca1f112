// SPDX-License-Identifier: GPL-2.0
/*
 * modlink: request/reply with the indigo.ko generic netlink family over
 * libnl-genl-3. See modlink.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include "modlink.h"
#include "num.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct modlink {
	struct nl_sock *sk;
	struct nl_sock *ev;	/* telemetry, once subscribed */
	int family;
	int error;		/* of the last request, from the kernel's ack */
	char msg[256];		/* its extack message, or "" */
};

/* What a reply may carry; the kernel is trusted no more than any peer. */
static struct nla_policy reply_policy[INDIGO_A_MAX + 1] = {
	[INDIGO_A_POLICY_MODE] = { .type = NLA_U8 },
	[INDIGO_A_POLICY_RATE_MIN] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_BURST_MIN] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_FREE_MIN] = { .type = NLA_U64 },
	[INDIGO_A_POLICY_RATE_CAP] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_BURST_TOL] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_BURST_GAP] = { .type = NLA_U32 },
	[INDIGO_A_POLICY_GEN] = { .type = NLA_U64 },
	[INDIGO_A_TABLE_PAGES] = { .type = NLA_U32 },
	[INDIGO_A_TABLE_CAPACITY] = { .type = NLA_U32 },
	[INDIGO_A_TABLE_BYTES] = { .type = NLA_U64 },
	[INDIGO_A_MISSED] = { .type = NLA_U64 },
	[INDIGO_A_CAND_DROPPED] = { .type = NLA_U64 },
	[INDIGO_A_NODES] = { .type = NLA_NESTED },
	[INDIGO_A_EPOCH_SEQ] = { .type = NLA_U64 },
	[INDIGO_A_EPOCH_MS] = { .type = NLA_U32 },
	[INDIGO_A_RATE_P50] = { .type = NLA_U32 },
	[INDIGO_A_RATE_P90] = { .type = NLA_U32 },
	[INDIGO_A_RATE_P99] = { .type = NLA_U32 },
	[INDIGO_A_BURST_P50] = { .type = NLA_U32 },
	[INDIGO_A_BURST_P90] = { .type = NLA_U32 },
	[INDIGO_A_BURST_P99] = { .type = NLA_U32 },
	[INDIGO_A_CANDS] = { .type = NLA_NESTED },
};

static struct nla_policy cand_policy[INDIGO_CAND_A_MAX + 1] = {
	[INDIGO_CAND_A_PID] = { .type = NLA_U32 },
	[INDIGO_CAND_A_ADDR] = { .type = NLA_U64 },
	[INDIGO_CAND_A_NODE] = { .type = NLA_U32 },
	[INDIGO_CAND_A_RATE] = { .type = NLA_U32 },
	[INDIGO_CAND_A_BURST] = { .type = NLA_U32 },
	[INDIGO_CAND_A_PAGES] = { .type = NLA_U32 },
};

static struct nla_policy node_policy[INDIGO_NODE_A_MAX + 1] = {
	[INDIGO_NODE_A_ID] = { .type = NLA_U32 },
	[INDIGO_NODE_A_FAULTS] = { .type = NLA_U64 },
	[INDIGO_NODE_A_ALLOWED] = { .type = NLA_U64 },
	[INDIGO_NODE_A_VETO_DENY] = { .type = NLA_U64 },
	[INDIGO_NODE_A_VETO_RATE] = { .type = NLA_U64 },
	[INDIGO_NODE_A_VETO_BURST] = { .type = NLA_U64 },
	[INDIGO_NODE_A_VETO_LOWMEM] = { .type = NLA_U64 },
	[INDIGO_NODE_A_VETO_RATECAP] = { .type = NLA_U64 },
	[INDIGO_NODE_A_EVICTIONS] = { .type = NLA_U64 },
	[INDIGO_NODE_A_ALLOWED_PAGES] = { .type = NLA_U64 },
};

int modlink_open(struct modlink **out)
{
	struct modlink *l = calloc(1, sizeof(*l));
	int one = 1, err;

	if (!l)
		return -ENOMEM;
	l->sk = nl_socket_alloc();
	if (!l->sk) {
		free(l);
		return -ENOMEM;
	}
	err = genl_connect(l->sk);
	if (err) {
		modlink_close(l);
		return -ENOTCONN;
	}
	l->family = genl_ctrl_resolve(l->sk, INDIGO_GENL_NAME);
	if (l->family < 0) {
		modlink_close(l);
		return -ENOENT;
	}
	/* a reply alone answers a request; errors come without asking */
	nl_socket_disable_auto_ack(l->sk);
	/* ask for the kernel's explanation of errors; older kernels ignore it */
	setsockopt(nl_socket_get_fd(l->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	*out = l;
	return 0;
}

void modlink_close(struct modlink *l)
{
	if (!l)
		return;
	if (l->ev)
		nl_socket_free(l->ev);
	nl_socket_free(l->sk);
	free(l);
}

const char *modlink_error(const struct modlink *l)
{
	return l->msg;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *hdr = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct modlink *l = arg;
	size_t ack_len = sizeof(*e);
	struct nlattr *a;
	int rem;

	(void)nla;
	l->error = e->error;
	if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(hdr->nlmsg_flags & NLM_F_CAPPED))
		ack_len += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (NLMSG_HDRLEN + ack_len >= hdr->nlmsg_len)
		return NL_STOP;
	rem = (int)(hdr->nlmsg_len - NLMSG_HDRLEN - ack_len);
	nla_for_each_attr(a, (struct nlattr *)((char *)e + ack_len), rem, rem) {
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0)
			snprintf(l->msg, sizeof(l->msg), "%.*s", nla_len(a),
				 (char *)nla_data(a));
	}
	return NL_STOP;
}

struct reply_ctx {
	int (*parse)(struct nlattr **tb, void *out);
	void *out;
	int err;
};

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct reply_ctx *rc = arg;
	struct nlattr *tb[INDIGO_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, INDIGO_A_MAX, reply_policy))
		rc->err = -EBADMSG;
	else
		rc->err = rc->parse(tb, rc->out);
	return NL_OK;
}

typedef int (*put_fn)(struct nl_msg *msg, const void *in);

/* Sends @cmd with attributes from @put, parses the reply with @parse. */
static int request(struct modlink *l, u8 cmd, put_fn put, const void *in,
		   int (*parse)(struct nlattr **tb, void *out), void *out)
{
	struct reply_ctx rc = { .parse = parse, .out = out, .err = -ENODATA };
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = NULL;
	int err = -ENOMEM;

	l->error = 0;
	l->msg[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, l->family, 0,
			 NLM_F_REQUEST, cmd, INDIGO_GENL_VERSION))
		goto out;
	if (put && put(msg, in)) {
		err = -EMSGSIZE;
		goto out;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &rc);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, l);
	err = nl_send_auto(l->sk, msg);
	if (err < 0) {
		err = -EIO;
		goto out;
	}
	/* one datagram: the reply, or an error */
	err = nl_recvmsgs(l->sk, cb);
	if (l->error)
		err = l->error;
	else if (err < 0)
		err = -EIO;
	else
		err = rc.err;
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return err;
}

static int parse_policy(struct nlattr **tb, void *out)
{
	struct { struct indigo_policy *p; u64 *gen; } *o = out;

	if (!tb[INDIGO_A_POLICY_MODE] || !tb[INDIGO_A_POLICY_RATE_MIN] ||
	    !tb[INDIGO_A_POLICY_BURST_MIN] || !tb[INDIGO_A_POLICY_FREE_MIN] ||
	    !tb[INDIGO_A_POLICY_RATE_CAP] || !tb[INDIGO_A_POLICY_BURST_TOL] ||
	    !tb[INDIGO_A_POLICY_BURST_GAP] || !tb[INDIGO_A_POLICY_GEN])
		return -EBADMSG;
	o->p->mode = nla_get_u8(tb[INDIGO_A_POLICY_MODE]);
	o->p->rate_min = nla_get_u32(tb[INDIGO_A_POLICY_RATE_MIN]);
	o->p->burst_min = nla_get_u32(tb[INDIGO_A_POLICY_BURST_MIN]);
	o->p->free_min = nla_get_u64(tb[INDIGO_A_POLICY_FREE_MIN]);
	o->p->rate_cap = nla_get_u32(tb[INDIGO_A_POLICY_RATE_CAP]);
	o->p->burst_tol = nla_get_u32(tb[INDIGO_A_POLICY_BURST_TOL]);
	o->p->burst_gap = nla_get_u32(tb[INDIGO_A_POLICY_BURST_GAP]);
	*o->gen = nla_get_u64(tb[INDIGO_A_POLICY_GEN]);
	return 0;
}

int modlink_get_policy(struct modlink *l, struct indigo_policy *p, u64 *gen)
{
	struct { struct indigo_policy *p; u64 *gen; } o = { p, gen };

	return request(l, INDIGO_CMD_GET_POLICY, NULL, NULL, parse_policy, &o);
}

static int put_policy(struct nl_msg *msg, const void *in)
{
	const struct modlink_policy_req *r = in;
	const struct indigo_policy *p = &r->p;

#define WANT(a) (r->set & (1U << (a)))
	if (WANT(INDIGO_A_POLICY_MODE) &&
	    nla_put_u8(msg, INDIGO_A_POLICY_MODE, p->mode))
		return -1;
	if (WANT(INDIGO_A_POLICY_RATE_MIN) &&
	    nla_put_u32(msg, INDIGO_A_POLICY_RATE_MIN, p->rate_min))
		return -1;
	if (WANT(INDIGO_A_POLICY_BURST_MIN) &&
	    nla_put_u32(msg, INDIGO_A_POLICY_BURST_MIN, p->burst_min))
		return -1;
	if (WANT(INDIGO_A_POLICY_FREE_MIN) &&
	    nla_put_u64(msg, INDIGO_A_POLICY_FREE_MIN, p->free_min))
		return -1;
	if (WANT(INDIGO_A_POLICY_RATE_CAP) &&
	    nla_put_u32(msg, INDIGO_A_POLICY_RATE_CAP, p->rate_cap))
		return -1;
	if (WANT(INDIGO_A_POLICY_BURST_TOL) &&
	    nla_put_u32(msg, INDIGO_A_POLICY_BURST_TOL, p->burst_tol))
		return -1;
	if (WANT(INDIGO_A_POLICY_BURST_GAP) &&
	    nla_put_u32(msg, INDIGO_A_POLICY_BURST_GAP, p->burst_gap))
		return -1;
#undef WANT
	return 0;
}

int modlink_set_policy(struct modlink *l, const struct modlink_policy_req *req,
		       u64 *gen)
{
	struct indigo_policy now;
	struct { struct indigo_policy *p; u64 *gen; } o = { &now, gen };

	return request(l, INDIGO_CMD_SET_POLICY, put_policy, req, parse_policy,
		       &o);
}

static int parse_node(struct nlattr *nest, struct modlink_node *n)
{
	struct nlattr *tb[INDIGO_NODE_A_MAX + 1];
	int r;

	if (nla_parse_nested(tb, INDIGO_NODE_A_MAX, nest, node_policy) ||
	    !tb[INDIGO_NODE_A_ID] || !tb[INDIGO_NODE_A_FAULTS])
		return -EBADMSG;
	memset(n, 0, sizeof(*n));
	n->id = nla_get_u32(tb[INDIGO_NODE_A_ID]);
	n->faults = nla_get_u64(tb[INDIGO_NODE_A_FAULTS]);
	if (tb[INDIGO_NODE_A_ALLOWED])
		n->allowed = nla_get_u64(tb[INDIGO_NODE_A_ALLOWED]);
	/* a module from before the attribute: one page a promotion */
	n->allowed_pages = tb[INDIGO_NODE_A_ALLOWED_PAGES] ?
		nla_get_u64(tb[INDIGO_NODE_A_ALLOWED_PAGES]) : n->allowed;
	if (tb[INDIGO_NODE_A_EVICTIONS])
		n->evictions = nla_get_u64(tb[INDIGO_NODE_A_EVICTIONS]);
	for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++) {
		struct nlattr *v = tb[INDIGO_NODE_A_VETO_DENY +
				      (r - INDIGO_REASON_DENY)];

		if (v)
			n->veto[r] = nla_get_u64(v);
	}
	return 0;
}

static int parse_nodes(struct nlattr *list, struct modlink_node *node,
		       u32 *nnodes)
{
	struct nlattr *a;
	int rem;

	*nnodes = 0;
	nla_for_each_nested(a, list, rem) {
		if (*nnodes == MODLINK_MAX_NODES)
			break;
		if (parse_node(a, &node[*nnodes]))
			return -EBADMSG;
		(*nnodes)++;
	}
	return 0;
}

static int parse_stats(struct nlattr **tb, void *out)
{
	struct modlink_stats *st = out;

	memset(st, 0, sizeof(*st));
	if (!tb[INDIGO_A_TABLE_PAGES] || !tb[INDIGO_A_TABLE_CAPACITY] ||
	    !tb[INDIGO_A_NODES])
		return -EBADMSG;
	st->tracked = nla_get_u32(tb[INDIGO_A_TABLE_PAGES]);
	st->capacity = nla_get_u32(tb[INDIGO_A_TABLE_CAPACITY]);
	if (tb[INDIGO_A_TABLE_BYTES])
		st->table_bytes = nla_get_u64(tb[INDIGO_A_TABLE_BYTES]);
	if (tb[INDIGO_A_MISSED])
		st->missed = nla_get_u64(tb[INDIGO_A_MISSED]);
	if (tb[INDIGO_A_CAND_DROPPED])
		st->cand_dropped = nla_get_u64(tb[INDIGO_A_CAND_DROPPED]);
	return parse_nodes(tb[INDIGO_A_NODES], st->node, &st->nnodes);
}

int modlink_get_stats(struct modlink *l, struct modlink_stats *st)
{
	return request(l, INDIGO_CMD_GET_STATS, NULL, NULL, parse_stats, st);
}

static const struct {
	const char *key;
	int attr;
} policy_keys[] = {
	{ "mode", INDIGO_A_POLICY_MODE },
	{ "rate_min_mhz", INDIGO_A_POLICY_RATE_MIN },
	{ "burst_min_ms", INDIGO_A_POLICY_BURST_MIN },
	{ "free_min_kib", INDIGO_A_POLICY_FREE_MIN },
	{ "rate_cap_pps", INDIGO_A_POLICY_RATE_CAP },
	{ "burst_tol_pct", INDIGO_A_POLICY_BURST_TOL },
	{ "burst_gap_ms", INDIGO_A_POLICY_BURST_GAP },
};

int modlink_policy_parse(struct modlink_policy_req *req, const char *kv)
{
	const char *eq = strchr(kv, '=');
	struct indigo_policy *p = &req->p;
	size_t klen, i;
	uint64_t v;

	if (!eq)
		return -EINVAL;
	klen = (size_t)(eq - kv);
	for (i = 0; i < sizeof(policy_keys) / sizeof(policy_keys[0]); i++)
		if (strlen(policy_keys[i].key) == klen &&
		    !strncmp(policy_keys[i].key, kv, klen))
			break;
	if (i == sizeof(policy_keys) / sizeof(policy_keys[0]))
		return -EINVAL;
	if (policy_keys[i].attr == INDIGO_A_POLICY_MODE) {
		int m = indigo_mode_parse(eq + 1);

		if (m < 0)
			return -EINVAL;
		p->mode = (u8)m;
	} else {
		if (num_u64(eq + 1, policy_keys[i].attr ==
			       INDIGO_A_POLICY_FREE_MIN ? UINT64_MAX : UINT32_MAX,
			       &v))
			return -EINVAL;
		switch (policy_keys[i].attr) {
		case INDIGO_A_POLICY_RATE_MIN:
			p->rate_min = (u32)v;
			break;
		case INDIGO_A_POLICY_BURST_MIN:
			p->burst_min = (u32)v;
			break;
		case INDIGO_A_POLICY_FREE_MIN:
			p->free_min = v;
			break;
		case INDIGO_A_POLICY_RATE_CAP:
			p->rate_cap = (u32)v;
			break;
		case INDIGO_A_POLICY_BURST_TOL:
			p->burst_tol = (u32)v;
			break;
		default:
			p->burst_gap = (u32)v;
			break;
		}
	}
	req->set |= 1U << policy_keys[i].attr;
	return 0;
}

int modlink_subscribe(struct modlink *l)
{
	int grp, err;

	if (l->ev)
		return 0;
	grp = genl_ctrl_resolve_grp(l->sk, INDIGO_GENL_NAME, INDIGO_GENL_MCGRP);
	if (grp < 0)
		return -ENOENT;
	l->ev = nl_socket_alloc();
	if (!l->ev)
		return -ENOMEM;
	err = genl_connect(l->ev);
	if (!err)
		err = nl_socket_add_membership(l->ev, grp);
	if (err) {
		nl_socket_free(l->ev);
		l->ev = NULL;
		return err == -NLE_PERM ? -EPERM : -ENOTCONN;
	}
	nl_socket_set_nonblocking(l->ev);
	return 0;
}

int modlink_set_rcvbuf(struct modlink *l, int bytes)
{
	int fd;

	if (!l->ev)
		return -ENOTCONN;
	fd = nl_socket_get_fd(l->ev);
	/* FORCE passes net.core.rmem_max, for CAP_NET_ADMIN (indigod has it) */
	if (!setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) ||
	    !setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)))
		return 0;
	return -errno;
}

static u32 get_u32_or0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static int dispatch_epoch(struct nlattr **tb, const struct modlink_events *ev)
{
	struct modlink_epoch *e;
	int err;

	if (!tb[INDIGO_A_EPOCH_SEQ] || !tb[INDIGO_A_NODES])
		return -EBADMSG;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->seq = nla_get_u64(tb[INDIGO_A_EPOCH_SEQ]);
	e->ms = get_u32_or0(tb[INDIGO_A_EPOCH_MS]);
	e->rate_p50 = get_u32_or0(tb[INDIGO_A_RATE_P50]);
	e->rate_p90 = get_u32_or0(tb[INDIGO_A_RATE_P90]);
	e->rate_p99 = get_u32_or0(tb[INDIGO_A_RATE_P99]);
	e->burst_p50 = get_u32_or0(tb[INDIGO_A_BURST_P50]);
	e->burst_p90 = get_u32_or0(tb[INDIGO_A_BURST_P90]);
	e->burst_p99 = get_u32_or0(tb[INDIGO_A_BURST_P99]);
	err = parse_nodes(tb[INDIGO_A_NODES], e->node, &e->nnodes);
	if (!err && ev->epoch)
		ev->epoch(e, ev->arg);
	free(e);
	return err;
}

static int dispatch_cands(struct nlattr **tb, const struct modlink_events *ev)
{
	struct nlattr *ct[INDIGO_CAND_A_MAX + 1], *a;
	struct modlink_cand c[MODLINK_MAX_CANDS];	/* 6 KiB, per message */
	u32 n = 0;
	int rem;

	if (!tb[INDIGO_A_EPOCH_SEQ] || !tb[INDIGO_A_CANDS])
		return -EBADMSG;
	nla_for_each_nested(a, tb[INDIGO_A_CANDS], rem) {
		if (n == MODLINK_MAX_CANDS)
			break;
		if (nla_parse_nested(ct, INDIGO_CAND_A_MAX, a, cand_policy) ||
		    !ct[INDIGO_CAND_A_PID] || !ct[INDIGO_CAND_A_ADDR])
			return -EBADMSG;
		c[n].pid = nla_get_u32(ct[INDIGO_CAND_A_PID]);
		c[n].addr = nla_get_u64(ct[INDIGO_CAND_A_ADDR]);
		c[n].node = get_u32_or0(ct[INDIGO_CAND_A_NODE]);
		c[n].rate = get_u32_or0(ct[INDIGO_CAND_A_RATE]);
		c[n].burst_ms = get_u32_or0(ct[INDIGO_CAND_A_BURST]);
		/* a module before huge pages were counted: base pages */
		c[n].pages = get_u32_or0(ct[INDIGO_CAND_A_PAGES]);
		if (!c[n].pages)
			c[n].pages = 1;
		n++;
	}
	if (ev->cands)
		ev->cands(nla_get_u64(tb[INDIGO_A_EPOCH_SEQ]), c, n, ev->arg);
	return 0;
}

struct event_ctx {
	const struct modlink_events *ev;
	int handled, malformed;
	int err;
};

int modlink_dispatch(struct nl_msg *msg, const struct modlink_events *ev)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(h);
	struct nlattr *tb[INDIGO_A_MAX + 1];
	int err;

	if (genlmsg_parse(h, 0, tb, INDIGO_A_MAX, reply_policy))
		return -EBADMSG;
	if (g->cmd == INDIGO_CMD_EPOCH)
		err = dispatch_epoch(tb, ev);
	else if (g->cmd == INDIGO_CMD_CANDIDATES)
		err = dispatch_cands(tb, ev);
	else
		return 0;	/* a newer module's message: skip it */
	return err ? err : 1;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct event_ctx *ec = arg;
	int ret = modlink_dispatch(msg, ec->ev);

	if (ret == -EBADMSG) {
		ec->malformed++;
		if (ec->ev->malformed)
			ec->ev->malformed(ec->ev->arg);
	} else if (ret < 0) {
		ec->err = ret;
	} else {
		ec->handled += ret;
	}
	return NL_OK;
}

static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

#define POLL_BATCH_MAX	256	/* messages handled per modlink_poll() */

int modlink_poll(struct modlink *l, const struct modlink_events *ev,
		 int timeout_ms)
{
	struct event_ctx ec = { .ev = ev };
	struct pollfd pfd;
	struct nl_cb *cb;
	int err;

	if (!l->ev)
		return -ENOTCONN;
	pfd.fd = nl_socket_get_fd(l->ev);
	pfd.events = POLLIN;
	err = poll(&pfd, 1, timeout_ms);
	if (err <= 0)
		return err < 0 ? -errno : 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &ec);
	/* events are not answers to requests: no sequence numbers to check */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	/*
	 * Everything queued, in one go: a burst of candidate batches costs
	 * one poll and one callback set, not one each (bounded, so that the
	 * caller still gets its turn under a flood).
	 */
	do {
		err = nl_recvmsgs(l->ev, cb);
	} while (err >= 0 && !ec.err &&
		 ec.handled + ec.malformed < POLL_BATCH_MAX);
	nl_cb_put(cb);
	/* libnl reports a receive-buffer overrun (ENOBUFS) as NLE_NOMEM */
	if (err == -NLE_NOMEM)
		return -ENOBUFS;
	if (err < 0 && err != -NLE_AGAIN)
		return -EIO;
	return ec.err ? ec.err : ec.handled;
}
