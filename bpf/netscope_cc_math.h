/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netscope CC's window arithmetic: plain C, no helpers, so that the
 * unit tests (tests/netscope/test_cc_math.c) compile what the BPF program
 * runs. The includer provides __u32 and __u64 (vmlinux.h, linux/types.h).
 */
#ifndef INDIGO_NETSCOPE_CC_MATH_H
#define INDIGO_NETSCOPE_CC_MATH_H

#define NS_CC_BETA_MAX_MILLI	500	/* largest cut per RTT */
#define NS_CC_CWND_MIN		2

/*
 * The RTT above which a flow backs off: the path's plus the queueing
 * allowed, which grows with its cgroup's sensitivity c as 1 + c / 2.
 */
static inline __u64 ns_cc_target_us(__u32 base_us, __u32 target_base_us,
				    __u32 sens_milli)
{
	return base_us + (__u64)target_base_us * (2000 + sens_milli) / 2000;
}

/*
 * @cwnd after one cut at an RTT of @delay_us, above @target_us: by
 * beta * (delay - target) / delay, with beta = BETA_MAX / (1 + c / 2), so
 * an insensitive flow backs off hardest. Each step rounds up, in units of
 * 2^-32, so that a cut drops one segment at least: rounded down, a small
 * window never shrank however long the delay stayed above target, and in
 * per mille the cut itself came to 0 near the target (within 0.2 % of it
 * at c = 0, 11 % at c = 100) and at any delay from c = 998 on.
 */
static inline __u32 ns_cc_cut(__u32 cwnd, __u32 delay_us, __u64 target_us,
			      __u32 sens_milli)
{
	__u64 den = 2000 + (__u64)sens_milli;
	/* (delay - target) / delay, at most 2^32 */
	__u64 excess = (((__u64)(delay_us - target_us) << 32) + delay_us - 1) /
		       delay_us;
	/* times beta: BETA_MAX * 2000 / 1000 over den, at most 2^31 */
	__u64 cut = (excess * NS_CC_BETA_MAX_MILLI * 2 + den - 1) / den;
	__u64 drop = ((__u64)cwnd * cut + 0xffffffffULL) >> 32;

	cwnd = drop < cwnd ? cwnd - (__u32)drop : 0;
	return cwnd > NS_CC_CWND_MIN ? cwnd : NS_CC_CWND_MIN;
}

#endif /* INDIGO_NETSCOPE_CC_MATH_H */
