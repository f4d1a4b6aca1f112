// SPDX-License-Identifier: GPL-2.0
/*
 * indigo.ko: the shared state and the only code that allocates, frees and
 * locks it. The fault path (hook.c) and the interfaces (netlink.c,
 * debugfs.c) go through these functions.
 *
 * Locks are plain spinlocks: every user runs in process context (the fault
 * path runs with preemption off), and none holds them across a user copy,
 * which could itself take a hinting fault.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "indigo.h"

struct indigo_state indigo;

/*
 * Each CPU's node counters, [nr_node_ids] of them, in memory of its own
 * node. Not one per-CPU area of that size: a per-CPU allocation holds 32
 * KiB at most (PCPU_MIN_UNIT_SIZE), 455 nodes' counters, and kernels are
 * built for 1024. Sized a power of two, so that no two CPUs' counters
 * share a cache line.
 */
static int stats_alloc(void)
{
	size_t size = array_size(nr_node_ids, sizeof(struct indigo_node_stats));
	int cpu;

	indigo.stats = alloc_percpu(struct indigo_node_stats *);
	if (!indigo.stats)
		return -ENOMEM;
	size = roundup_pow_of_two(max_t(size_t, size, SMP_CACHE_BYTES));
	for_each_possible_cpu(cpu) {
		*per_cpu_ptr(indigo.stats, cpu) =
			kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));
		if (!*per_cpu_ptr(indigo.stats, cpu))
			return -ENOMEM;
	}
	return 0;
}

static void stats_free(void)
{
	int cpu;

	if (!indigo.stats)
		return;
	for_each_possible_cpu(cpu)
		kvfree(*per_cpu_ptr(indigo.stats, cpu));
	free_percpu(indigo.stats);
	indigo.stats = NULL;
}

int indigo_state_init(u32 max_pages, u32 cand_max)
{
	struct indigo_policy_rcu *pol;
	size_t bytes;
	u32 per_shard, i;

	mutex_init(&indigo.policy_mutex);
	spin_lock_init(&indigo.bucket_lock);
	seqlock_init(&indigo.marks_lock);
	spin_lock_init(&indigo.ring_lock);
	spin_lock_init(&indigo.cand_lock);

	pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (!pol)
		return -ENOMEM;
	indigo_policy_default(&pol->p);
	RCU_INIT_POINTER(indigo.policy, pol);

	per_shard = indigo_table_size(max_pages / INDIGO_SHARDS);
	indigo.capacity = per_shard * INDIGO_SHARDS;
	/*
	 * A table larger than the host can spare fails the load: the OOM
	 * killer is not to make room for it. Nor is it tried where it cannot
	 * fit, as an attempt takes all there is before it fails, and other
	 * allocations meanwhile (7.3: a kernel thread's stack) get the OOM
	 * killer.
	 */
	bytes = array_size(indigo.capacity, sizeof(*indigo.slots));
	if (bytes >> PAGE_SHIFT < si_mem_available())
		indigo.slots = __vmalloc(bytes, GFP_KERNEL |
					 __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!indigo.slots) {
		pr_err("no memory for a table of %u pages (%zu KiB): lower max_pages\n",
		       indigo.capacity, bytes >> 10);
		/* nothing more is asked of a host this short of memory */
		indigo_state_free();
		return -ENOMEM;
	}
	indigo.cand_max = cand_max;
	indigo.cands = kvcalloc(cand_max, sizeof(*indigo.cands), GFP_KERNEL);
	indigo.rate_hist = alloc_percpu(struct indigo_hist);
	indigo.burst_hist = alloc_percpu(struct indigo_hist);
	if (!indigo.cands || stats_alloc() ||
	    !indigo.rate_hist || !indigo.burst_hist) {
		indigo_state_free();
		return -ENOMEM;
	}
	for (i = 0; i < INDIGO_SHARDS; i++) {
		spin_lock_init(&indigo.shards[i].lock);
		indigo_table_init(&indigo.shards[i].table,
				  indigo.slots + (size_t)i * per_shard, per_shard);
	}
	return 0;
}

void indigo_state_free(void)
{
	kfree(rcu_dereference_protected(indigo.policy, true));
	RCU_INIT_POINTER(indigo.policy, NULL);
	vfree(indigo.slots);
	kvfree(indigo.cands);
	stats_free();
	free_percpu(indigo.rate_hist);
	free_percpu(indigo.burst_hist);
	indigo.slots = NULL;
	indigo.cands = NULL;
	indigo.rate_hist = NULL;
	indigo.burst_hist = NULL;
}

u64 indigo_policy_get(struct indigo_policy *p)
{
	struct indigo_policy_rcu *pol;
	u64 gen;

	rcu_read_lock();
	pol = rcu_dereference(indigo.policy);
	*p = pol->p;
	gen = pol->gen;
	rcu_read_unlock();
	return gen;
}

int indigo_policy_set(const struct indigo_policy *p, u64 *gen)
{
	struct indigo_policy_rcu *old, *pol;

	pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (!pol)
		return -ENOMEM;
	pol->p = *p;
	mutex_lock(&indigo.policy_mutex);
	old = rcu_dereference_protected(indigo.policy,
					lockdep_is_held(&indigo.policy_mutex));
	pol->gen = old->gen + 1;
	*gen = pol->gen;
	rcu_assign_pointer(indigo.policy, pol);
	mutex_unlock(&indigo.policy_mutex);
	kfree_rcu(old, rcu);
	return 0;
}

void indigo_stats_sum(struct indigo_node_stats *out)
{
	int cpu, nid, r;

	memset(out, 0, array_size(nr_node_ids, sizeof(*out)));
	for_each_possible_cpu(cpu) {
		const struct indigo_node_stats *s = *per_cpu_ptr(indigo.stats, cpu);

		for (nid = 0; nid < nr_node_ids; nid++) {
			out[nid].faults += READ_ONCE(s[nid].faults);
			out[nid].evictions += READ_ONCE(s[nid].evictions);
			out[nid].allowed_pages +=
				READ_ONCE(s[nid].allowed_pages);
			for (r = 0; r < __INDIGO_REASON_MAX; r++)
				out[nid].reason[r] += READ_ONCE(s[nid].reason[r]);
		}
	}
}

void indigo_hist_sum(struct indigo_hist *rate, struct indigo_hist *burst)
{
	int cpu;

	memset(rate, 0, sizeof(*rate));
	memset(burst, 0, sizeof(*burst));
	for_each_possible_cpu(cpu) {
		indigo_hist_merge(rate, per_cpu_ptr(indigo.rate_hist, cpu));
		indigo_hist_merge(burst, per_cpu_ptr(indigo.burst_hist, cpu));
	}
}

u32 indigo_tracked_pages(void)
{
	u32 i, used = 0;

	for (i = 0; i < INDIGO_SHARDS; i++)
		used += READ_ONCE(indigo.shards[i].table.used);
	return used;
}

u64 indigo_table_bytes(void)
{
	return (u64)indigo.capacity * sizeof(struct indigo_page);
}

void indigo_decision_add(const struct indigo_decision *d)
{
	spin_lock(&indigo.ring_lock);
	indigo.ring[indigo.ring_next % INDIGO_DECISIONS] = *d;
	indigo.ring_next++;
	spin_unlock(&indigo.ring_lock);
}

u32 indigo_decisions_copy(struct indigo_decision *out, u32 max)
{
	u64 first;
	u32 n, i;

	spin_lock(&indigo.ring_lock);
	n = min_t(u64, indigo.ring_next, min_t(u32, max, INDIGO_DECISIONS));
	first = indigo.ring_next - n;
	for (i = 0; i < n; i++)
		out[i] = indigo.ring[(first + i) % INDIGO_DECISIONS];
	spin_unlock(&indigo.ring_lock);
	return n;
}

void indigo_cand_add(const struct indigo_cand *c)
{
	bool full;

	/*
	 * Once an epoch's buffer is full every further fault would only count
	 * a drop: do that without the lock (a racing take merely costs one
	 * candidate more or less).
	 */
	if (READ_ONCE(indigo.ncands) >= indigo.cand_max) {
		atomic64_inc(&indigo.cand_dropped);
		return;
	}
	spin_lock(&indigo.cand_lock);
	full = indigo.ncands >= indigo.cand_max;
	if (!full) {
		indigo.cands[indigo.ncands] = *c;
		WRITE_ONCE(indigo.ncands, indigo.ncands + 1);
	}
	spin_unlock(&indigo.cand_lock);
	if (full)
		atomic64_inc(&indigo.cand_dropped);
}

u32 indigo_cands_take(struct indigo_cand *out)
{
	u32 n;

	spin_lock(&indigo.cand_lock);
	n = indigo.ncands;
	memcpy(out, indigo.cands, array_size(n, sizeof(*out)));
	WRITE_ONCE(indigo.ncands, 0);
	spin_unlock(&indigo.cand_lock);
	return n;
}

u32 indigo_node_forget(int nid)
{
	u32 i, j, n = 0;

	for (i = 0; i < INDIGO_SHARDS; i++) {
		spin_lock(&indigo.shards[i].lock);
		n += indigo_table_drop_node(&indigo.shards[i].table, nid);
		spin_unlock(&indigo.shards[i].lock);
		cond_resched();		/* 2^20 slots a shard at most */
	}
	/* candidates not sent yet: their pages have been moved off the node */
	spin_lock(&indigo.cand_lock);
	for (i = j = 0; i < indigo.ncands; i++)
		if (indigo.cands[i].node != nid)
			indigo.cands[j++] = indigo.cands[i];
	WRITE_ONCE(indigo.ncands, j);
	spin_unlock(&indigo.cand_lock);
	return n;
}
