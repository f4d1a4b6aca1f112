/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netscope on the host: the layouts of the maps that INDIGO's eBPF programs
 * (bpf/netscope_*.bpf.c) share with userspace (indigod, indigoctl). One
 * definition for both sides; every map is pinned under NS_PIN_DIR with its
 * BTF, so "bpftool map dump pinned /sys/fs/bpf/indigo/<map>" names fields.
 *
 * Maps (key: the cgroup v2 id, i.e. the inode number of its directory):
 *	ns_cg_stats	struct ns_cg_stats, written by the sock_ops program
 *			under the flow's id (ns_flow.cgid): an application's
 *			(ns_apps) for a flow in its cgroup or one below,
 *			else its socket's own cgroup's; ns_policy, by the
 *			same id, is what the flow is given
 *	ns_policy	struct ns_policy, written by the agent or indigoctl
 *	ns_ctrl		struct ns_ctrl, the controller's view, for indigoctl
 *	ns_link		struct ns_link_view (one entry, key 0): the shared
 *			link as the controller last measured it
 *	ns_flows	socket storage, struct ns_flow (per-flow state)
 *	ns_epoch	__u32 (one entry, key 0): the epoch that live and
 *			bulk flows are counted in, which each loader moves on
 *			before it attaches
 *
 * And one map each program keeps to itself, not pinned (each agent's own
 * configuration; "bpftool map dump name ns_host_peers" shows it):
 *	ns_host_peers	LPM trie, struct ns_peer_prefix to __u8 (1): peers
 *			on this host (containers', VMs' subnets), whose flows
 *			cross no link
 *	ns_apps		hash, cgroup id to __u8 (1): the applications'
 *			cgroups (the controller's); a flow whose socket is in
 *			a cgroup below one, at most NS_APP_DEPTH levels down,
 *			is counted and policed under the nearest one's id
 *	ns_attached	hash, cgroup id to __u8 (1): the cgroups the sock_ops
 *			program is attached to, for the iterator that takes
 *			in flows established before it was (netscope_adopt)
 */
#ifndef _UAPI_LINUX_INDIGO_NETSCOPE_H
#define _UAPI_LINUX_INDIGO_NETSCOPE_H

#ifndef __VMLINUX_H__		/* BPF programs get these from vmlinux.h */
#include <linux/types.h>
#include <linux/bpf.h>		/* struct bpf_spin_lock */
#endif

#define NS_PIN_DIR		"/sys/fs/bpf/indigo"
#define NS_CGROUPS_MAX		1024	/* entries of each per-cgroup map */
#define NS_HIST_SLOTS		24	/* log2 buckets of RTT in us: 1 us - 8 s */
#define NS_CC_NAME_MAX		16	/* TCP_CA_NAME_MAX */
#define NS_CC_NAME		"netscope"
#define NS_BULK_BYTES		(1 << 20)	/* a flow that sent this much
						 * shares the cgroup's rate */
#define NS_CLAMP_QUEUE_US	150	/* a paced flow's window: its pacing
					 * rate over its least RTT plus this
					 * much, */
#define NS_CLAMP_MIN		4	/* and at least this many segments */
#define NS_HOST_PEERS_MAX	64	/* prefixes in ns_host_peers */
#define NS_ATTACH_MAX		16	/* cgroups one agent attaches to */
#define NS_ATTACH_DEPTH		32	/* a flow's cgroup's ancestors looked
					 * up in ns_attached */
#define NS_APPS_MAX		16	/* applications' cgroups in ns_apps */
#define NS_APP_DEPTH		8	/* a flow's cgroup's ancestors looked
					 * up in ns_apps, the nearest first */
#define NS_BASE_WIN_NS		10000000000ULL	/* base RTT window: 10 s */
#define NS_CC_RETRY_MS		500	/* a CC not registered yet: a flow
					 * tries it again this often */

/*
 * A cgroup's least RTT sample in one window of NS_BASE_WIN_NS of
 * CLOCK_MONOTONIC (bpf_ktime_get_ns()): window number w is the time in ns
 * over NS_BASE_WIN_NS, kept in slot w & 1 of ns_cg_stats.base. The least
 * of the slots of the current window and the one before it is the path's
 * base RTT over the last one to two windows, as BBR's min_rtt filter: it
 * follows a path change that lengthens the RTT (a reroute, a VM moving)
 * within two windows. The controller's base (ns_link_view.base_us) is the
 * least over every cgroup, or the last one while none took a sample in
 * two windows.
 */
struct ns_base_slot {
	__u32 win;			/* window number of rtt_us */
	__u32 rtt_us;			/* least sample in it; 0: none */
};

/* Per-cgroup aggregates over its TCP flows (the sending side's view). */
struct ns_cg_stats {
	__u64 rtt_samples;
	__u64 rtt_sum_us;		/* of the samples: their mean over any
					 * interval, where srtt_us is the
					 * last few */
	__u32 srtt_us;			/* EWMA of RTT samples, gain 1/8 */
	/*
	 * The least of its flows' own minimum RTTs ever (the kernel's, each
	 * windowed over 5 min); 0: no sample yet. It never goes up: the
	 * controller takes its queue above base, which follows the path.
	 */
	__u32 min_rtt_us;
	struct ns_base_slot base[2];	/* see struct ns_base_slot */
	__u64 delivered_bytes;		/* bytes acked by the peers */
	__u64 retrans;			/* retransmitted segments */
	__u64 ce_marks;			/* segments delivered with CE */
	__s64 live_flows;		/* established, not yet closed, */
	__s64 bulk_flows;		/* live ones past NS_BULK_BYTES, */
	__u64 flows;			/* ever established */
	__u64 segs_out;			/* segments sent, data and pure ACKs
					 * alike: with delivered_bytes, what
					 * the cgroup puts on the wire */
	__u64 turns;			/* ACKs of new data that left nothing
					 * in flight and nothing unsent: the
					 * requests (or responses) a
					 * request/response flow completed;
					 * rare for a bulk flow, paced or not */
	__u32 rtt_hist[NS_HIST_SLOTS];	/* slot i: RTT in [2^i, 2^(i+1)) us */
	/*
	 * The epoch (ns_epoch) the two counts above are of. A flow that
	 * closes while no program is attached (its agent restarting) is
	 * never uncounted, so each start begins a new epoch: a cgroup's
	 * first count in it starts from zero, and each flow still open is
	 * counted in again at its next acknowledged data. Counts of an
	 * epoch that is not the current one are stale: none seen since.
	 */
	__u32 count_epoch;
	struct bpf_spin_lock lock;	/* the program's, over the counts */
};

/* ns_policy.flags */
#define NS_POLICY_FIXED		0x1	/* set by hand: the controller keeps off */
#define NS_POLICY_SENS		0x2	/* sens_milli holds a sensitivity; without
					 * it the netscope CC takes c = 1 */
#define NS_SENS_MAX_MILLI	1000000	/* c = 1000: far past any measured one */

/*
 * What new flows of the cgroup get, and existing ones at their next
 * callback once gen changes. Zero fields are left as the kernel has them,
 * or as they were before Netscope set them. An entry that is not
 * NS_POLICY_FIXED is the controller's named in owner: it makes its own
 * entries neutral (all zero but gen) when it stops, and any controller
 * makes those of a controller that is gone neutral when it starts, so that
 * none outlives its controller while another's stay; "indigoctl netscope
 * clear" writes a neutral one too, and no entry is deleted while its
 * cgroup lives, so gen never goes back to one that flows have already
 * applied.
 */
struct ns_policy {
	char cc[NS_CC_NAME_MAX];	/* congestion control, "" to leave */
	__u64 rate_Bps;			/* the cgroup's rate in bytes/s, split
					 * evenly across its bulk flows with
					 * SO_MAX_PACING_RATE (a flow is paced
					 * at its share once it is bulk, at the
					 * whole rate before; a share takes 32
					 * bits, NS_SHARE_MAX at most), or at
					 * the application's own
					 * SO_MAX_PACING_RATE where that is
					 * lower; 0: not paced by Netscope (a
					 * rate it set is lifted, the
					 * application's own kept or put back);
					 * 64 bits: past 34 Gbit/s, 32 wrap */
	__u32 cwnd_clamp;		/* segments; 0: a paced flow's
					 * window is held to its pacing
					 * rate's bandwidth-delay product (see
					 * NS_CLAMP_QUEUE_US): pacing spaces
					 * sends, but at a low RTT TCP still
					 * sends up to 64 KB at once (TSO
					 * autosizing), which the bottleneck
					 * queues in front of everyone */
	__u32 sens_milli;		/* delay sensitivity c * 1000, for the
					 * netscope CC (NS_POLICY_SENS), at
					 * most NS_SENS_MAX_MILLI */
	__u32 flags;			/* NS_POLICY_* */
	__u32 gen;			/* bumped on every change */
	__u32 owner;			/* the id of the sock_ops program of
					 * the controller that set it, which
					 * lives as long as that controller;
					 * 0: none (fixed or neutral) */
	__u32 pad;
};

/*
 * A flow's pacing rate at most, bytes/s (34.4 Gbit/s): SO_MAX_PACING_RATE
 * takes 32 bits, and ~0U is "unlimited".
 */
#define NS_SHARE_MAX		0xfffffffeULL

/* ns_ctrl.flags */
#define NS_CTRL_TRUSTED		0x1	/* the interval was narrow enough */
#define NS_CTRL_BY_TURNS	0x2	/* progress is counted in turns, not
					 * in delivered bytes (no figure) */
#define NS_CTRL_SENSITIVE	0x4	/* counts as sensitive: its rate keeps
					 * the floor (not yet trusted, or its
					 * interval reaches the line) */

/* The controller's state per cgroup, published for indigoctl. */
struct ns_ctrl {
	__s32 sens_milli;		/* posterior mean of c, * 1000 */
	__s32 sens_lo_milli;		/* 95 % credible interval */
	__s32 sens_hi_milli;
	__u32 alpha_milli;		/* DCQCN congestion estimate */
	__u64 rate_Bps;			/* the rate the controller set */
	__u32 samples;			/* regression samples so far */
	__u32 flags;			/* NS_CTRL_* */
};

/* The shared link over the controller's last interval (every cgroup's
 * flows), for indigoctl and bpftool: what its congestion signal saw. */
struct ns_link_view {
	__u64 intervals;		/* measured so far; 0: none yet */
	__u64 rtt_samples;		/* taken in the interval */
	__u32 delay_us;			/* their mean; base_us if none */
	__u32 base_us;			/* any cgroup's: see ns_base_slot */
	__u32 queue_us;			/* delay_us above base_us */
	__u32 util_milli;		/* bytes on the wire over capacity */
	__u32 interval_ms;		/* the interval's length */
	__u32 pad;
};

/* Per-flow state in socket storage. */
struct ns_flow {
	__u64 cgid;			/* the id it is counted and policed
					 * under (see ns_apps), set when it is
					 * established and again in each new
					 * ns_epoch (an agent started) */
	__u64 acked;			/* bytes_acked at the last callback */
	__u32 retrans;			/* total_retrans at the last callback */
	__u32 ce;			/* delivered_ce at the last callback */
	__u32 segs_out;			/* segs_out at the last callback */
	__u32 gen;			/* policy generation applied, 0: none */
	__u16 live;			/* established, not yet closed */
	__u16 bulk;			/* past NS_BULK_BYTES */
	__u32 clamp;			/* the window clamp it was given */
	__u32 paced;			/* given a SO_MAX_PACING_RATE: only
					 * then is it Netscope's to lift */
	__u32 split;			/* bulk_flows its share was cut for */
	__u32 rtt_seen;			/* snd_una + delivered at the last RTT
					 * sample counted: each sample once */
	__u32 epoch;			/* the count_epoch it is counted in;
					 * 0: none */
	__u32 own_rate;			/* while paced: the application's own
					 * SO_MAX_PACING_RATE (~0U: none), its
					 * ceiling, put back when Netscope
					 * lifts its rate */
	__u32 set_rate;			/* while paced: the one Netscope set
					 * last; another found there is one the
					 * application set since, its own */
	__u32 cc_retry_ms;		/* the policy's CC could not be set
					 * (not registered yet: BPF loads no
					 * module): at an RTT callback from
					 * this CLOCK_MONOTONIC ms (odd,
					 * wrapping) on, it is tried again,
					 * every NS_CC_RETRY_MS, until it is
					 * set or a new generation comes; 0:
					 * none pending */
};

/* A prefix of peer addresses: IPv6, or IPv4 mapped (::ffff:a.b.c.d/96+n). */
struct ns_peer_prefix {
	__u32 prefixlen;		/* bits of addr that count, 0-128 */
	__u8 addr[16];			/* network order, zero past prefixlen */
};

#endif /* _UAPI_LINUX_INDIGO_NETSCOPE_H */
