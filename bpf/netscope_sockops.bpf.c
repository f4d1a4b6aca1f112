// SPDX-License-Identifier: GPL-2.0
/*
 * Netscope's sock_ops program: per-flow state in socket storage, per-cgroup
 * (an application's, for its flows in cgroups below it: see flow_cgid())
 * aggregates (RTT sum and count, EWMA, log2 histogram, minimum and windowed
 * minimum, delivered bytes, segments sent, request/response turns,
 * retransmits, CE marks, live flows, these in the loader's epoch), and
 * the cgroup's policy applied to each flow when it is established and
 * again at its first RTT callback after the policy's generation changes
 * (its CC, where that was not registered then, again every
 * NS_CC_RETRY_MS until it is).
 * Flows that stay on the host are left alone; flows established before
 * the program was attached are taken in at their next ACK, once the
 * iterator netscope_adopt has asked their callbacks.
 */
#include "netscope_defs.h"
#include "netscope_sockops_math.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NS_CGROUPS_MAX);
	__type(key, __u64);
	__type(value, struct ns_cg_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_cg_stats SEC(".maps");

/* Written by the controller; here only so that its layout has BTF. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NS_CGROUPS_MAX);
	__type(key, __u64);
	__type(value, struct ns_ctrl);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_ctrl SEC(".maps");

/* Written by the controller, as ns_ctrl. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ns_link_view);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_link SEC(".maps");

/* Moved on by each loader before it attaches: see ns_cg_stats.count_epoch. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_epoch SEC(".maps");

static __always_inline __u32 log2_slot(__u32 v)
{
	__u32 r = 0;

	if (v >= 1 << 16) { v >>= 16; r += 16; }
	if (v >= 1 << 8) { v >>= 8; r += 8; }
	if (v >= 1 << 4) { v >>= 4; r += 4; }
	if (v >= 1 << 2) { v >>= 2; r += 2; }
	if (v >= 1 << 1) r += 1;
	return r < NS_HIST_SLOTS ? r : NS_HIST_SLOTS - 1;
}

static struct ns_cg_stats *cg_stats(__u64 cgid)
{
	static const struct ns_cg_stats zero;
	struct ns_cg_stats *st;

	st = bpf_map_lookup_elem(&ns_cg_stats, &cgid);
	if (st)
		return st;
	bpf_map_update_elem(&ns_cg_stats, &cgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ns_cg_stats, &cgid);
}

static __always_inline __u32 epoch_now(void)
{
	__u32 zero = 0, *e = bpf_map_lookup_elem(&ns_epoch, &zero);

	return e ? *e : 0;
}

/*
 * Counts the flow in its cgroup's live (and bulk) flows of epoch @e, which
 * start from zero at the cgroup's first count in a newer epoch. Not where
 * the cgroup already counts in a newer one (a loader moved it on since @e
 * was read): the flow's next callback counts it in there.
 */
static __always_inline void flow_count_in(struct ns_cg_stats *st,
					  struct ns_flow *fl, __u32 e)
{
	bool in = true;

	bpf_spin_lock(&st->lock);
	if (st->count_epoch != e) {
		in = (__s32)(e - st->count_epoch) > 0;
		if (in) {
			st->count_epoch = e;
			st->live_flows = 0;
			st->bulk_flows = 0;
		}
	}
	if (in) {
		st->live_flows++;
		st->bulk_flows += !!fl->bulk;
	}
	bpf_spin_unlock(&st->lock);
	if (in)
		fl->epoch = e;
}

/* Changes the counts the flow is in, where it is counted in their epoch. */
static __always_inline void flow_count_add(struct ns_cg_stats *st,
					   const struct ns_flow *fl,
					   int live, int bulk)
{
	bpf_spin_lock(&st->lock);
	if (fl->epoch && fl->epoch == st->count_epoch) {
		st->live_flows += live;
		st->bulk_flows += bulk;
	}
	bpf_spin_unlock(&st->lock);
}

static __always_inline bool cc_is(const char *a, const char *b)
{
	for (int i = 0; i < NS_CC_NAME_MAX; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

/* A paced flow's window clamp, in segments: see NS_CLAMP_QUEUE_US. */
static __always_inline __u32 paced_clamp(__u64 share_Bps, __u32 rtt_min_us,
					 __u32 mss)
{
	__u64 segs = NS_CLAMP_MIN;

	if (mss)
		segs = share_Bps * (rtt_min_us + NS_CLAMP_QUEUE_US) / 1000000 / mss + 1;
	if (segs < NS_CLAMP_MIN)
		segs = NS_CLAMP_MIN;
	return segs < 0x7fffffff ? segs : 0x7fffffff;
}

/*
 * SO_MAX_PACING_RATE at the flow's share of @rate_Bps, returned; with no
 * rate, lifted only where Netscope set it: an application's own limit
 * (iperf3 --fq-rate) is not Netscope's to remove. That limit (@cur, what
 * the socket holds where Netscope has not set it) stays the flow's
 * ceiling while Netscope paces it, and is what a lift puts back.
 */
static __u64 set_pacing(struct bpf_sock_ops *skops, struct ns_flow *fl,
			const struct ns_cg_stats *st, __u64 rate_Bps, __u32 cur)
{
	/* small flows (requests, control connections) do not dilute the bulk
	 * ones' shares */
	__u64 n = fl->bulk && st->bulk_flows > 0 ? st->bulk_flows : 1;
	__u64 share = rate_Bps / n;
	__u32 own = fl->own_rate, val, cap;

	if (!rate_Bps && !fl->paced)
		return 0;
	/* not yet paced by Netscope, or the application set another since */
	if (!fl->paced || cur != fl->set_rate)
		own = cur;
	val = own;
	if (rate_Bps) {
		/* a share past 32 bits is held at their most, not wrapped */
		cap = share < NS_SHARE_MAX ? share : NS_SHARE_MAX;
		if (cap < val)
			val = cap;
	}
	bpf_setsockopt(skops, SOL_SOCKET, SO_MAX_PACING_RATE, &val, sizeof(val));
	fl->paced = !!rate_Bps;
	fl->own_rate = own;
	fl->set_rate = val;
	fl->split = n;
	return rate_Bps ? val : 0;
}

/* CLOCK_MONOTONIC in ms, wrapping: see ns_flow.cc_retry_ms */
static __always_inline __u32 now_ms(void)
{
	return bpf_ktime_get_ns() / 1000000;
}

static void apply_policy(struct bpf_sock_ops *skops, struct ns_flow *fl,
			 const struct ns_cg_stats *st, struct tcp_sock *tp)
{
	/* context fields read once: see on_rtt() */
	__u32 rtt_min = skops->rtt_min, mss = skops->mss_cache;
	char cur[NS_CC_NAME_MAX] = {};
	struct ns_policy *p, pol;
	__u32 clamp, gen, max_pacing;
	__u64 share;
	bool retry;
	int val;

	p = bpf_map_lookup_elem(&ns_policy, &fl->cgid);
	if (!p)
		return;
	gen = *(volatile __u32 *)&p->gen;
	/* applied: only a CC that failed is tried again, once it is due */
	retry = gen == fl->gen;
	if (retry && (!fl->cc_retry_ms ||
		      (__s32)(now_ms() - fl->cc_retry_ms) < 0))
		return;
	/* a copy, taken at once and checked: the element an update replaced
	 * goes back to the allocator's per-CPU free list and the next update
	 * (any cgroup's) takes it again at once, RCU or not, and setting a CC
	 * takes long enough for that. Changed under the copy: left to the next
	 * callback, which finds the new element. */
	__builtin_memcpy(&pol, p, sizeof(pol));
	asm volatile("" ::: "memory");
	if (pol.gen != gen || *(volatile __u32 *)&p->gen != gen)
		return;
	fl->gen = gen;
	fl->cc_retry_ms = 0;
	/* re-setting the same CC would reset its state: only on a change.
	 * One not registered (yet) fails: tried again later, see
	 * ns_flow.cc_retry_ms */
	if (pol.cc[0] &&
	    (bpf_getsockopt(skops, SOL_TCP, TCP_CONGESTION, cur, sizeof(cur)) ||
	     !cc_is(cur, pol.cc)) &&
	    bpf_setsockopt(skops, SOL_TCP, TCP_CONGESTION, pol.cc,
			   sizeof(pol.cc)))
		fl->cc_retry_ms = (now_ms() + NS_CC_RETRY_MS) | 1;
	if (retry)
		return;
	/* the socket's pacing limit in SO_MAX_PACING_RATE's 32 bits (~0U:
	 * none; an application's 64-bit one past them reads as none) */
	share = BPF_CORE_READ(tp, inet_conn.icsk_inet.sk.sk_max_pacing_rate);
	max_pacing = share < ~0U ? share : ~0U;
	share = set_pacing(skops, fl, st, pol.rate_Bps, max_pacing);
	/* from the start: the kernel does not shrink a window to a new clamp,
	 * it only stops its growth (the initial window, 10, stays) */
	clamp = pol.cwnd_clamp;
	if (!clamp && pol.rate_Bps) {
		/* no RTT sample yet (~0U): its bandwidth-delay product is
		 * unknown, so the clamp waits for the first RTT callback */
		if (rtt_min == ~0U)
			fl->gen = 0;
		else
			clamp = paced_clamp(share, rtt_min, mss);
	}
	/* a clamp no longer wanted is lifted (the kernel's default is ~0) */
	if (!clamp && fl->clamp)
		clamp = 0x7fffffff;
	if (clamp && clamp != fl->clamp) {
		val = clamp;
		bpf_setsockopt(skops, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &val,
			       sizeof(val));
		fl->clamp = clamp == 0x7fffffff ? 0 : clamp;
	}
}

/*
 * Peers on this host that no loopback device leads to (containers and VMs
 * behind a bridge): their prefixes, written by the loader before it
 * attaches. Not pinned: each agent's configuration is its own.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, NS_HOST_PEERS_MAX);
	__type(key, struct ns_peer_prefix);
	__type(value, __u8);
} ns_host_peers SEC(".maps");

/*
 * A flow routed through a loopback device (to 127/8, ::1 or one of the
 * host's own addresses), or to a peer in ns_host_peers, crosses no link:
 * counted, it would pull the link's base delay down to microseconds and its
 * use up, and a link share would pace it. Set by the loader
 * (indigo-netscope --loopback: single-host tests).
 */
const volatile bool with_loopback;

static __always_inline bool on_host(struct tcp_sock *tp)
{
	struct sock_common *skc = &tp->inet_conn.icsk_inet.sk.__sk_common;
	struct ns_peer_prefix key = { .prefixlen = 128 };
	__u32 *words = (__u32 *)key.addr;
	__u16 family;

	if (BPF_CORE_READ(tp, inet_conn.icsk_inet.sk.sk_dst_cache, dev,
			  flags) & IFF_LOOPBACK)
		return true;
	family = BPF_CORE_READ(skc, skc_family);
	if (family == AF_INET) {
		key.addr[10] = 0xff;
		key.addr[11] = 0xff;
		words[3] = BPF_CORE_READ(skc, skc_daddr);
	} else if (family == AF_INET6) {
		bpf_core_read(key.addr, sizeof(key.addr), &skc->skc_v6_daddr);
	} else {
		return false;
	}
	return bpf_map_lookup_elem(&ns_host_peers, &key);
}

/*
 * The applications' cgroups, written by the loader before it attaches and
 * by the controller when one is made again. Not pinned, as ns_host_peers:
 * under two agents on one cgroup path, the program that sees a flow
 * established first (on_established()) counts it under its own agent's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NS_APPS_MAX);
	__type(key, __u64);
	__type(value, __u8);
} ns_apps SEC(".maps");

/*
 * The nearest of cgroup @cg and its @up ancestors that @map holds, or 0.
 * Up through each cgroup's css parent, the same in every kernel, where the
 * ancestor array changed type (ids in 6.1, pointers since 6.2).
 */
static __always_inline __u64 cg_nearest_in(void *map, struct cgroup *cg,
					   int up)
{
	__u64 id;

	for (int i = 0; i <= up && cg; i++) {
		id = BPF_CORE_READ(cg, kn, id);
		if (bpf_map_lookup_elem(map, &id))
			return id;
		cg = BPF_CORE_READ(cg, self.parent, cgroup);
	}
	return 0;
}

/*
 * The id a flow is counted and policed under: the nearest application's
 * among its socket's cgroup's NS_APP_DEPTH ancestors (its processes in
 * child cgroups: a service's, containers'), else its socket's own.
 */
static __always_inline __u64 flow_cgid(struct sock *sk)
{
	struct cgroup *cg = BPF_CORE_READ(sk, sk_cgrp_data.cgroup);
	__u64 id = cg_nearest_in(&ns_apps, cg, NS_APP_DEPTH);

	return id ? id : BPF_CORE_READ(cg, kn, id);
}

/*
 * The stats of the id a flow open across an agent's restart is counted
 * under from now on: the new agent's applications (ns_apps) may put it
 * under another one than it was. Its counts under the old one are of the
 * old epoch, which reads as none already.
 */
static __always_inline struct ns_cg_stats *
flow_rehome(struct ns_flow *fl, struct sock *sk, struct ns_cg_stats *st)
{
	__u64 id = flow_cgid(sk);

	if (id == fl->cgid)
		return st;
	st = cg_stats(id);
	if (!st)
		return NULL;
	fl->cgid = id;
	__sync_fetch_and_add(&st->flows, 1);
	fl->gen = 0;	/* the new id's policy */
	return st;
}

/*
 * Tells one RTT sample from the next: the kernel takes a sample only from an
 * ACK that moves snd_una (data acknowledged) or delivered (data SACKed), and
 * both only grow.
 */
static __always_inline __u32 rtt_key(struct tcp_sock *tp)
{
	return BPF_CORE_READ(tp, snd_una) + BPF_CORE_READ(tp, delivered);
}

/*
 * What the flow did since its last callback, into its cgroup's counters:
 * at each RTT sample, and at its close, which takes no sample (its FIN and
 * last ACKs, retransmits after the last sample, a flow that gives up on its
 * timeouts, a receiver's pure ACKs).
 */
static __always_inline void count_progress(struct ns_cg_stats *st,
					   struct ns_flow *fl, __u64 acked,
					   __u32 retrans, __u32 segs_out,
					   __u32 ce)
{
	__sync_fetch_and_add(&st->delivered_bytes, acked - fl->acked);
	fl->acked = acked;
	__sync_fetch_and_add(&st->retrans, retrans - fl->retrans);
	fl->retrans = retrans;
	__sync_fetch_and_add(&st->segs_out, segs_out - fl->segs_out);
	fl->segs_out = segs_out;
	__sync_fetch_and_add(&st->ce_marks, ce - fl->ce);
	fl->ce = ce;
}

static void on_established(struct bpf_sock_ops *skops, struct bpf_sock *sk,
			   struct tcp_sock *tp)
{
	struct ns_cg_stats *st;
	struct ns_flow *fl;

	/* without storage, its later callbacks find nothing to do */
	if (!with_loopback && on_host(tp))
		return;
	fl = bpf_sk_storage_get(&ns_flows, sk, NULL,
				BPF_SK_STORAGE_GET_F_CREATE);
	/* counted already: the program runs once for each attachment on the
	 * socket's cgroup path (nested cgroups, indigod and indigo-netscope
	 * both), and on_state() uncounts a flow once */
	if (!fl || fl->live)
		return;
	fl->cgid = flow_cgid(&tp->inet_conn.icsk_inet.sk);
	fl->acked = skops->bytes_acked;
	fl->retrans = skops->total_retrans;
	fl->segs_out = skops->segs_out;
	fl->ce = BPF_CORE_READ(tp, delivered_ce);
	fl->rtt_seen = rtt_key(tp);
	st = cg_stats(fl->cgid);
	if (!st)
		return;
	__sync_fetch_and_add(&st->flows, 1);
	fl->live = 1;
	flow_count_in(st, fl, epoch_now());
	/* the helper replaces the socket's flags: those another sock_ops
	 * program on the cgroup path asked for (RTO, retransmit, header
	 * option callbacks) stay */
	bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
				  BPF_SOCK_OPS_RTT_CB_FLAG |
				  BPF_SOCK_OPS_STATE_CB_FLAG);
	apply_policy(skops, fl, st, tp);
}

static void on_rtt(struct bpf_sock_ops *skops, struct bpf_sock *sk,
		   struct tcp_sock *tp)
{
	/* each context field read once, here: the verifier refuses a
	 * context pointer that the compiler offsets to share a load */
	__u64 acked = skops->bytes_acked;
	__u32 in_flight = skops->packets_out;
	struct ns_cg_stats *st;
	struct ns_flow *fl;
	__u32 rtt, v, e;

	fl = bpf_sk_storage_get(&ns_flows, sk, NULL, 0);
	if (!fl) {
		/* established before any program was attached: its
		 * callbacks are netscope_adopt's doing */
		on_established(skops, sk, tp);
		return;
	}
	/* no entry: the agent dropped it when the cgroup went away */
	st = bpf_map_lookup_elem(&ns_cg_stats, &fl->cgid);
	if (!st)
		return;
	/* newer kernels pass the sample; older ones only the smoothed RTT */
	rtt = skops->args[0] ? skops->args[0] : skops->srtt_us >> 3;
	/* counted already when this callback ran the program for another
	 * attachment on the socket's cgroup path */
	v = rtt_key(tp);
	if (rtt && v != fl->rtt_seen) {
		fl->rtt_seen = v;
		__sync_fetch_and_add(&st->rtt_samples, 1);
		__sync_fetch_and_add(&st->rtt_sum_us, rtt);
		__sync_fetch_and_add(&st->rtt_hist[log2_slot(rtt)], 1);
		/* racy read-modify-write across CPUs: a lost EWMA step is harmless */
		st->srtt_us = ns_srtt_next(st->srtt_us, rtt);
		v = skops->rtt_min;
		if (v && (!st->min_rtt_us || v < st->min_rtt_us))
			st->min_rtt_us = v;
		/* unlocked, and benign: CPUs racing on one slot may keep a
		 * higher sample than its least (until its next lower one), or
		 * pair its new window with an RTT of the window before (one
		 * window more of a base that spans two anyway) */
		ns_base_take(st->base, bpf_ktime_get_ns() / NS_BASE_WIN_NS, rtt);
	}
	/* the peer has all we sent and the application has given no more: a
	 * request (or response) completed. A paced or window-clamped bulk
	 * flow drains too, but with data still waiting in its socket. */
	if (acked != fl->acked && !in_flight &&
	    BPF_CORE_READ(tp, write_seq) == BPF_CORE_READ(tp, snd_nxt))
		__sync_fetch_and_add(&st->turns, 1);
	count_progress(st, fl, acked, skops->total_retrans, skops->segs_out,
		       BPF_CORE_READ(tp, delivered_ce));
	/* open across an agent's restart: counted in the new epoch, where
	 * the new agent's applications put it */
	e = epoch_now();
	if (fl->live && fl->epoch != e) {
		st = flow_rehome(fl, &tp->inet_conn.icsk_inet.sk, st);
		if (!st)
			return;
		flow_count_in(st, fl, e);
	}
	if (!fl->bulk && fl->live && acked >= NS_BULK_BYTES) {
		fl->bulk = 1;
		flow_count_add(st, fl, 0, 1);
		fl->gen = 0;	/* its pacing is now a share: re-apply */
	}
	/* bulk flows came or went: the shares are cut anew, or together they
	 * would pace at up to rate x (1 + 1/2 + ... + 1/n). A count of 0
	 * (the entry made anew under a live flow) would re-cut at every RTT */
	if (fl->bulk && fl->paced && st->bulk_flows > 0 &&
	    fl->split != st->bulk_flows)
		fl->gen = 0;
	apply_policy(skops, fl, st, tp);
}

static void on_state(struct bpf_sock_ops *skops, struct bpf_sock *sk,
		     struct tcp_sock *tp)
{
	/* context fields read once: see on_rtt() */
	__u64 acked = skops->bytes_acked;
	__u32 retrans = skops->total_retrans, segs_out = skops->segs_out;
	struct ns_cg_stats *st;
	struct ns_flow *fl;

	if (skops->args[1] != BPF_TCP_CLOSE)
		return;
	fl = bpf_sk_storage_get(&ns_flows, sk, NULL, 0);
	if (!fl || !fl->live)
		return;
	fl->live = 0;
	st = bpf_map_lookup_elem(&ns_cg_stats, &fl->cgid);
	if (!st)
		return;
	count_progress(st, fl, acked, retrans, segs_out,
		       BPF_CORE_READ(tp, delivered_ce));
	flow_count_add(st, fl, -1, fl->bulk ? -1 : 0);
	fl->bulk = 0;
}

SEC("sockops")
int netscope_sockops(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		on_established(skops, sk, tp);
		break;
	case BPF_SOCK_OPS_RTT_CB:
		on_rtt(skops, sk, tp);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		on_state(skops, sk, tp);
		break;
	}
	return 1;
}

/* The cgroups the loader attached the sock_ops program to; not pinned. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NS_ATTACH_MAX);
	__type(key, __u64);
	__type(value, __u8);
} ns_attached SEC(".maps");

/* What netscope_adopt did, for the loader to say. */
__u32 adopt_taken, adopt_missed;

/*
 * Flows established before any Netscope program was attached (the agent
 * started after them) have neither state nor callbacks. The loader runs
 * this iterator once it has attached, in each network namespace: it asks
 * RTT and state callbacks for such a flow on an attached cgroup path, and
 * at its next RTT callback on_rtt() takes it in as on_established() would.
 * Only kernels since 6.12 let a program set a socket's callbacks
 * (TCP_BPF_SOCK_OPS_CB_FLAGS); on older ones the flow counts as missed.
 */
SEC("iter/tcp")
int netscope_adopt(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	struct cgroup *cg;
	int flags;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || BPF_CORE_READ(tp, inet_conn.icsk_inet.sk.__sk_common.skc_state) !=
		   BPF_TCP_ESTABLISHED)
		return 0;
	if (bpf_sk_storage_get(&ns_flows, tp, NULL, 0))
		return 0;
	if (!with_loopback && on_host(tp))
		return 0;
	cg = BPF_CORE_READ(tp, inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup);
	if (!cg_nearest_in(&ns_attached, cg, NS_ATTACH_DEPTH))
		return 0;
	flags = BPF_CORE_READ(tp, bpf_sock_ops_cb_flags) |
		BPF_SOCK_OPS_RTT_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG;
	if (bpf_setsockopt(tp, SOL_TCP, NS_TCP_BPF_SOCK_OPS_CB_FLAGS, &flags,
			   sizeof(flags)))
		__sync_fetch_and_add(&adopt_missed, 1);
	else
		__sync_fetch_and_add(&adopt_taken, 1);
	return 0;
}
