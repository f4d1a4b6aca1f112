// SPDX-License-Identifier: GPL-2.0
/*
 * "netscope": a delay-based AIMD congestion control in the manner of Swift.
 * Below a target delay the window grows by one segment per RTT (slow start
 * below ssthresh); above it, at most once per RTT, it shrinks in proportion
 * to (delay - target) / delay. The flow's cgroup sensitivity c (ns_policy,
 * its application's: see ns_apps) scales both, as Netscope's rate cut by
 * 1 / (2 + c) does: an insensitive flow (c = 0) backs off at a lower delay
 * and harder, leaving the queue short for the sensitive ones. The window
 * never grows past the clamp (snd_cwnd_clamp, as Netscope's sock_ops
 * program sets for a paced flow): the kernel's own CCs honour it in their
 * growth, and a CC that sets snd_cwnd must too.
 */
#include "netscope_defs.h"
#include <bpf/bpf_tracing.h>
#include "netscope_cc_math.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load (configuration). */
const volatile __u32 target_base_us = 100;	/* queueing allowed at c = 0 */

struct ns_ca {
	__u64 cgid;
	__u64 last_cut_ns;
	__u32 delay_us;			/* the last RTT sample */
	__u32 base_us;			/* the least RTT seen: the path's */
	__u32 sens_milli;
};

static __always_inline struct ns_ca *ca_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline __u32 sens_of(struct ns_ca *ca)
{
	__u64 cgid = ca->cgid;	/* helpers take keys from the stack only */
	struct ns_policy *pol = bpf_map_lookup_elem(&ns_policy, &cgid);

	/* an insensitive cgroup's c is 0: only the flag tells it from unset */
	if (!pol || !(pol->flags & NS_POLICY_SENS))
		return 1000;
	/* bounded: 2000 + c must not wrap (the map takes any writer's) */
	return pol->sens_milli < NS_SENS_MAX_MILLI ? pol->sens_milli :
						     NS_SENS_MAX_MILLI;
}

/*
 * As the kernel's tcp_is_cwnd_limited(): a window that the flow does not
 * fill (an application or its pacing limits it) must not grow, or it grows
 * by every ACK without bound (slow start's ssthresh is infinite) and the
 * application's next burst leaves at once, at line rate.
 */
static __always_inline bool cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

SEC("struct_ops/ns_init")
void BPF_PROG(ns_init, struct sock *sk)
{
	struct ns_ca *ca = ca_of(sk);
	/* the least RTT the connection has seen (~0U: none yet): a flow whose
	 * CC becomes netscope mid-transfer (its cgroup's policy changed) would
	 * otherwise take its first sample, taken across the queue its old CC
	 * built, for the path's delay, and hold that queue for good */
	__u32 rtt_min = ((struct tcp_sock *)sk)->rtt_min.s[0].v;
	/* the id the sock_ops program counts and polices the flow under (its
	 * application's), set when it was established, before any CC's
	 * init; a flow it leaves alone (on the host) has none */
	struct ns_flow *fl = bpf_sk_storage_get(&ns_flows, sk, NULL, 0);

	ca->cgid = fl && fl->cgid ? fl->cgid : ns_sk_cgid(sk);
	ca->last_cut_ns = 0;
	ca->delay_us = 0;
	ca->base_us = rtt_min != ~0U ? rtt_min : 0;
	ca->sens_milli = sens_of(ca);
}

SEC("struct_ops/ns_pkts_acked")
void BPF_PROG(ns_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct ns_ca *ca = ca_of(sk);
	__s32 rtt = sample->rtt_us;

	if (rtt <= 0)
		return;
	ca->delay_us = rtt;
	if (!ca->base_us || (__u32)rtt < ca->base_us)
		ca->base_us = rtt;
}

SEC("struct_ops/ns_cong_avoid")
void BPF_PROG(ns_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct ns_ca *ca = ca_of(sk);
	__u64 now = bpf_ktime_get_ns(), target;
	__u32 cwnd = tp->snd_cwnd;

	if (!ca->delay_us)
		return;
	ca->sens_milli = sens_of(ca);
	target = ns_cc_target_us(ca->base_us, target_base_us, ca->sens_milli);
	if (ca->delay_us <= target) {
		/* growth only while the window is what limits the flow; the
		 * clamp is honoured either way */
		if (cwnd_limited(tp)) {
			if (cwnd < tp->snd_ssthresh) {
				cwnd += acked;
			} else {
				tp->snd_cwnd_cnt += acked;
				if (tp->snd_cwnd_cnt >= cwnd) {
					tp->snd_cwnd_cnt -= cwnd;
					cwnd++;
				}
			}
		}
		tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
		return;
	}
	if (now - ca->last_cut_ns < (__u64)(tp->srtt_us >> 3) * 1000)
		return;
	tp->snd_cwnd = ns_cc_cut(cwnd, ca->delay_us, target, ca->sens_milli);
	tp->snd_ssthresh = tp->snd_cwnd;
	tp->snd_cwnd_cnt = 0;
	ca->last_cut_ns = now;
}

SEC("struct_ops/ns_ssthresh")
__u32 BPF_PROG(ns_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tp->snd_cwnd > 4 ? tp->snd_cwnd >> 1 : 2;
}

SEC("struct_ops/ns_undo_cwnd")
__u32 BPF_PROG(ns_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops netscope = {
	.init		= (void *)ns_init,
	.pkts_acked	= (void *)ns_pkts_acked,
	.cong_avoid	= (void *)ns_cong_avoid,
	.ssthresh	= (void *)ns_ssthresh,
	.undo_cwnd	= (void *)ns_undo_cwnd,
	.name		= NS_CC_NAME,
};
