/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fallback for build/bpf/vmlinux.h, used where the build machine has no
 * kernel BTF (/sys/kernel/btf/vmlinux) or no bpftool: the uAPI from
 * <linux/bpf.h> and, of the kernel's own types, only the members Netscope's
 * programs touch. preserve_access_index makes every access a CO-RE
 * relocation, so the layout here need not match any kernel: libbpf finds
 * each member by name in the running kernel's BTF at load time.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include <linux/types.h>
#include <linux/bpf.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct kernfs_node {
	u64 id;
};

struct cgroup;

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
};

struct cgroup {
	struct cgroup_subsys_state self;
	struct kernfs_node *kn;
};

struct sock_cgroup_data {
	struct cgroup *cgroup;
};

enum net_device_flags {
	IFF_LOOPBACK = 8,
};

struct net_device {
	unsigned int flags;
};

struct dst_entry {
	struct net_device *dev;
};

struct in6_addr {
	u8 s6_addr[16];
};

struct sock_common {
	u32 skc_daddr;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
};

struct sock {
	struct sock_common __sk_common;
	struct sock_cgroup_data sk_cgrp_data;
	struct dst_entry *sk_dst_cache;
	unsigned long sk_max_pacing_rate;
};

struct inet_sock {
	struct sock sk;
};

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	u64 icsk_ca_priv[13];
};

struct minmax_sample {
	u32 t;
	u32 v;
};

struct minmax {
	struct minmax_sample s[3];
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 srtt_us;
	u32 snd_ssthresh;
	u32 snd_cwnd;
	u32 snd_cwnd_cnt;
	u32 snd_cwnd_clamp;
	u32 prior_cwnd;
	u32 delivered_ce;
	u32 snd_nxt;
	u32 snd_una;
	u32 delivered;
	u32 write_seq;
	u32 max_packets_out;
	u8 is_cwnd_limited: 1;
	struct minmax rtt_min;
	u8 bpf_sock_ops_cb_flags;
};

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	u64 session_id;
	u64 seq_num;
};

struct bpf_iter__tcp {
	struct bpf_iter_meta *meta;
	struct sock_common *sk_common;
	u32 uid;
};

struct ack_sample {
	u32 pkts_acked;
	s32 rtt_us;
	u32 in_flight;
};

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	u32 (*undo_cwnd)(struct sock *sk);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	void (*init)(struct sock *sk);
	char name[16];
};

#pragma clang attribute pop

#endif /* __VMLINUX_H__ */
