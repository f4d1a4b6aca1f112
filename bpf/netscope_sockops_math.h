/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sock_ops program's per-cgroup arithmetic: plain C, no helpers, so
 * that the unit tests (tests/netscope/test_sockops_math.c) compile what the
 * BPF program runs. The includer provides __u32 and __u64 (vmlinux.h,
 * linux/types.h), and linux/indigo_netscope.h.
 */
#ifndef INDIGO_NETSCOPE_SOCKOPS_MATH_H
#define INDIGO_NETSCOPE_SOCKOPS_MATH_H

/*
 * The cgroup's smoothed RTT after a sample of @rtt_us, gain 1/8 (@srtt_us
 * 0: none yet, the sample is taken). The step is rounded away from the
 * average, so that a steady RTT is reached: as srtt - srtt / 8 + rtt / 8,
 * each eighth rounded down, it stopped up to 7 us away (at 8 us for an RTT
 * of 15 us), and samples under 8 us added nothing.
 */
static inline __u32 ns_srtt_next(__u32 srtt_us, __u32 rtt_us)
{
	if (!srtt_us)
		return rtt_us;
	if (rtt_us > srtt_us)
		return srtt_us + (__u32)(((__u64)rtt_us - srtt_us + 7) >> 3);
	return srtt_us - (__u32)(((__u64)srtt_us - rtt_us + 7) >> 3);
}

/*
 * A sample of @rtt_us in window @win into the cgroup's base slots
 * (ns_cg_stats.base): the least in slot @win & 1, which a sample of a
 * newer window takes over.
 */
static inline void ns_base_take(struct ns_base_slot *base, __u32 win,
				__u32 rtt_us)
{
	struct ns_base_slot *b = &base[win & 1];

	if (b->win != win || !b->rtt_us || rtt_us < b->rtt_us) {
		b->rtt_us = rtt_us;
		b->win = win;
	}
}

#endif /* INDIGO_NETSCOPE_SOCKOPS_MATH_H */
