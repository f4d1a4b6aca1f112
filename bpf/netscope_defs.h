/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What Netscope's eBPF programs share: the constants that BTF lacks (they
 * are #defines in the kernel, so vmlinux.h cannot carry them), defined here
 * once, and the maps both objects use, pinned by name so that the second
 * object to load reuses the first one's map.
 */
#ifndef INDIGO_NETSCOPE_DEFS_H
#define INDIGO_NETSCOPE_DEFS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "linux/indigo_netscope.h"

#define AF_INET			2
#define AF_INET6		10
#define SOL_SOCKET		1
#define SOL_TCP			6
#define SO_MAX_PACING_RATE	47
#define TCP_CONGESTION		13
#define TCP_BPF_SNDCWND_CLAMP	1002
/* an enum since 6.12's uAPI: named apart so as not to meet it there */
#define NS_TCP_BPF_SOCK_OPS_CB_FLAGS	1008

/*
 * An update replaces an entry with another element, and the old one goes
 * to a free list that the next update (any cgroup's) takes from at once,
 * preallocated or not (since 6.1 the BPF allocator's per-CPU lists; only
 * a return to the slab waits for RCU): a program reads a policy through a
 * copy it checks against gen (apply_policy()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NS_CGROUPS_MAX);
	__type(key, __u64);
	__type(value, struct ns_policy);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_policy SEC(".maps");

/*
 * Per-flow state, made by the sock_ops program when a flow is established;
 * the CC reads the id the flow is counted under from it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ns_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_flows SEC(".maps");

/* The cgroup v2 id of a full socket: its cgroup directory's inode number. */
static __always_inline __u64 ns_sk_cgid(struct sock *sk)
{
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
}

#endif /* INDIGO_NETSCOPE_DEFS_H */
