// SPDX-License-Identifier: GPL-2.0
/*
 * indigo.ko: parameters, load and unload, and the epoch worker that sends
 * telemetry to the agent.
 *
 * Load order makes every part ready before the fault path can reach it:
 * state, the memory hotplug notifier (before the far set is taken; it drops
 * page records, so after the state), netlink, debugfs (its "emit" file
 * sends on the netlink family), epoch worker, and the probes last. Unload
 * runs in reverse, so no probe fires into freed state. The module loads in
 * observe mode: loading it alone changes no placement.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "compat.h"
#include "indigo.h"

static char *far_nodes;
module_param(far_nodes, charp, 0444);
MODULE_PARM_DESC(far_nodes, "Far-memory nodes, e.g. 1,3-4 (default: memory nodes without CPUs, also those onlined later, until their memory is all offline; listed ones are kept while they have no memory)");

static unsigned int max_pages = 65536;
module_param(max_pages, uint, 0444);
MODULE_PARM_DESC(max_pages, "Pages tracked at most (rounded down to a power of two; 32 bytes each)");

static unsigned int epoch_ms = 1000;
module_param(epoch_ms, uint, 0444);
MODULE_PARM_DESC(epoch_ms, "Telemetry epoch in ms (10-60000)");

static unsigned int cand_max = 1024;
module_param(cand_max, uint, 0444);
MODULE_PARM_DESC(cand_max, "Hot-page candidates sent per epoch at most (16-65536)");

/* epoch worker's own memory: last epoch's totals, to send differences */
static struct indigo_node_stats *ep_prev, *ep_now, *ep_delta;
static u64 ep_prev_ns;		/* when ep_prev was taken */
static struct indigo_hist ep_rate_prev, ep_burst_prev;
static struct indigo_cand *ep_cands;

/*
 * This epoch's part of the running sums. They are read without locks while
 * faults add, so a delta's total may differ from its counts' sum; the
 * quantiles use only the counts.
 */
static void hist_delta(struct indigo_hist *now, struct indigo_hist *prev)
{
	struct indigo_hist cur = *now;
	int i;

	for (i = 0; i < INDIGO_HIST_BUCKETS; i++)
		now->count[i] -= prev->count[i];
	now->total -= prev->total;
	*prev = cur;
}

static void epoch_work(struct work_struct *work)
{
	u64 now_ns = ktime_get_ns();
	struct indigo_hist rate, burst;
	u32 n, ms;
	int nid, r;

	indigo_stats_sum(ep_now);
	/*
	 * The span the deltas cover, not epoch_ms: the work runs whole ticks
	 * and its own run time late (12-16 ms for 10 at HZ=250), and rates
	 * divided by the setting would read that much high.
	 */
	ms = max_t(u64, 1, div_u64(now_ns - ep_prev_ns + NSEC_PER_MSEC / 2,
				   NSEC_PER_MSEC));
	ep_prev_ns = now_ns;
	for (nid = 0; nid < nr_node_ids; nid++) {
		ep_delta[nid].faults = ep_now[nid].faults - ep_prev[nid].faults;
		ep_delta[nid].evictions = ep_now[nid].evictions -
					  ep_prev[nid].evictions;
		ep_delta[nid].allowed_pages = ep_now[nid].allowed_pages -
					      ep_prev[nid].allowed_pages;
		for (r = 0; r < __INDIGO_REASON_MAX; r++)
			ep_delta[nid].reason[r] = ep_now[nid].reason[r] -
						  ep_prev[nid].reason[r];
	}
	swap(ep_prev, ep_now);
	indigo_hist_sum(&rate, &burst);
	hist_delta(&rate, &ep_rate_prev);
	hist_delta(&burst, &ep_burst_prev);
	n = indigo_cands_take(ep_cands);

	WRITE_ONCE(indigo.epoch_seq, indigo.epoch_seq + 1);
	indigo_genl_epoch(indigo.epoch_seq, ms, ep_delta, &rate, &burst,
			  ep_cands, n);
	schedule_delayed_work(&indigo.epoch_work, msecs_to_jiffies(epoch_ms));
}

static bool far_nodes_given(void)
{
	return far_nodes && *far_nodes;
}

/* How CXL and disaggregated memory appear: memory nodes without CPUs. */
static bool far_by_default(int nid)
{
	return node_state(nid, N_MEMORY) && !node_state(nid, N_CPU);
}

static int parse_far_nodes(void)
{
	nodemask_t waiting;
	int nid, err;

	if (!far_nodes_given()) {
		nodes_clear(indigo.far);
		nodes_clear(waiting);
		for_each_node(nid) {
			if (far_by_default(nid))
				node_set(nid, indigo.far);
			else if (!node_state(nid, N_CPU))
				node_set(nid, waiting);
		}
		if (!nodes_empty(indigo.far))
			return 0;
		if (nodes_empty(waiting))
			pr_err("no far node: every memory node has CPUs; name the far nodes with far_nodes=\n");
		else
			pr_err("no far node yet: nodes %*pbl have neither CPUs nor memory online; to watch them from when their memory comes online, name them with far_nodes=\n",
			       nodemask_pr_args(&waiting));
		return -EINVAL;
	}
	err = nodelist_parse(far_nodes, indigo.far);
	if (err) {
		pr_err("far_nodes=%s is not a node list (e.g. 1,3-4)\n",
		       far_nodes);
		return -EINVAL;
	}
	if (nodes_empty(indigo.far)) {
		pr_err("far_nodes=%s names no node\n", far_nodes);
		return -EINVAL;
	}
	for_each_node_mask(nid, indigo.far) {
		if (nid >= nr_node_ids || !node_possible(nid)) {
			pr_err("far_nodes=%s: node %d does not exist on this machine\n",
			       far_nodes, nid);
			return -EINVAL;
		}
		/* CXL memory is often onlined after boot (daxctl, dax_kmem) */
		if (!node_state(nid, N_MEMORY))
			pr_info("node %d has no memory yet: watched from when it has\n",
				nid);
	}
	return 0;
}

/* With the default far set: nodes without CPUs whose memory came online */
static void far_memory_online(void)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		if (!far_by_default(nid) || node_isset(nid, indigo.far))
			continue;
		if (nodes_weight(indigo.far) >= indigo_genl_nodes_max()) {
			pr_warn("node %d has memory online and no CPUs, but %u far nodes are all one report holds: not watched\n",
				nid, indigo_genl_nodes_max());
			continue;
		}
		node_set(nid, indigo.far);
		pr_info("node %d has memory online and no CPUs: watched as far memory\n",
			nid);
	}
}

/*
 * Far node @nid has no memory left (a CXL region torn down, a DIMM
 * unplugged): the records of its pages are of no page now. A node of the
 * default set leaves it first, so that no fault records it again.
 */
static void far_memory_gone(int nid)
{
	u32 dropped;

	if (far_nodes_given()) {
		dropped = indigo_node_forget(nid);
		pr_info("node %d has no memory left: %u page records dropped; still watched, as far_nodes= names it\n",
			nid, dropped);
		return;
	}
	node_clear(nid, indigo.far);
	dropped = indigo_node_forget(nid);
	pr_info("node %d has no memory left: no longer watched as far memory, %u page records dropped\n",
		nid, dropped);
}

/*
 * With the default far set, a node without CPUs whose memory comes online
 * after the load is watched from then on, until its memory is all offline
 * again. A far_nodes= list stays as given: a listed node whose memory goes
 * is watched again when it returns.
 */
static int far_memory_notify(struct notifier_block *nb, unsigned long action,
			     void *arg)
{
	int emptied = indigo_compat_node_emptied(action, arg);

	mutex_lock(&indigo.far_mutex);
	if (indigo_compat_memory_added(action) && !far_nodes_given())
		far_memory_online();
	else if (emptied != NUMA_NO_NODE && node_isset(emptied, indigo.far))
		far_memory_gone(emptied);
	mutex_unlock(&indigo.far_mutex);
	return NOTIFY_OK;
}

static struct notifier_block far_memory_nb = {
	.notifier_call = far_memory_notify,
};

/* Whether a memory node is left outside the far ones, to promote to */
static bool near_node_left(void)
{
	int nid;

	for_each_node_state(nid, N_MEMORY)
		if (!node_isset(nid, indigo.far))
			return true;
	return false;
}

static int check_params(void)
{
	/* every shard needs one probe window */
	const u32 pages_min = INDIGO_SHARDS * INDIGO_TABLE_PROBE;
	const u32 pages_max = BIT(26);

	if (max_pages < pages_min || max_pages > pages_max) {
		pr_err("max_pages=%u out of range %u-%u\n", max_pages,
		       pages_min, pages_max);
		return -EINVAL;
	}
	if (epoch_ms < 10 || epoch_ms > 60000) {
		pr_err("epoch_ms=%u out of range 10-60000\n", epoch_ms);
		return -EINVAL;
	}
	if (cand_max < 16 || cand_max > 65536) {
		pr_err("cand_max=%u out of range 16-65536\n", cand_max);
		return -EINVAL;
	}
	return 0;
}

static int check_far_nodes(void)
{
	u32 nfar;
	int err;

	err = parse_far_nodes();
	if (err)
		return err;
	/*
	 * The gate sees only moves to a node outside the far ones: with every
	 * memory node far, no promotion would ever reach it
	 */
	if (!near_node_left()) {
		pr_err("far nodes %*pbl are every memory node: no near node left to promote to\n",
		       nodemask_pr_args(&indigo.far));
		return -EINVAL;
	}
	/* each far node has a row in one netlink attribute (64 KiB at most) */
	nfar = nodes_weight(indigo.far);
	if (nfar > indigo_genl_nodes_max()) {
		pr_err("%u far nodes: at most %u can be reported; name them with far_nodes=\n",
		       nfar, indigo_genl_nodes_max());
		return -EINVAL;
	}
	return 0;
}

static void epoch_free(void)
{
	kvfree(ep_prev);
	kvfree(ep_now);
	kvfree(ep_delta);
	kvfree(ep_cands);
}

static int epoch_alloc(void)
{
	ep_prev = kvcalloc(nr_node_ids, sizeof(*ep_prev), GFP_KERNEL);
	ep_now = kvcalloc(nr_node_ids, sizeof(*ep_now), GFP_KERNEL);
	ep_delta = kvcalloc(nr_node_ids, sizeof(*ep_delta), GFP_KERNEL);
	ep_cands = kvcalloc(cand_max, sizeof(*ep_cands), GFP_KERNEL);
	if (!ep_prev || !ep_now || !ep_delta || !ep_cands) {
		epoch_free();
		return -ENOMEM;
	}
	return 0;
}

static int __init indigo_init(void)
{
	int err;

	err = indigo_hook_supported();
	if (err)
		return err;
	err = check_params();
	if (err)
		return err;
	err = indigo_state_init(max_pages, cand_max);
	if (err)
		return err;
	/* before the far set is taken, so that no onlining falls between */
	mutex_init(&indigo.far_mutex);
	err = indigo_compat_register_hotplug(&far_memory_nb);
	if (err)
		goto err_state;
	mutex_lock(&indigo.far_mutex);
	err = check_far_nodes();
	mutex_unlock(&indigo.far_mutex);
	if (err)
		goto err_notifier;
	err = epoch_alloc();
	if (err)
		goto err_notifier;
	err = indigo_genl_init();
	if (err)
		goto err_epoch;
	INIT_DELAYED_WORK(&indigo.epoch_work, epoch_work);
	ep_prev_ns = ktime_get_ns();	/* ep_prev: the counters' zero */
	schedule_delayed_work(&indigo.epoch_work, msecs_to_jiffies(epoch_ms));
	err = indigo_hook_init();
	if (err)
		goto err_work;
	/*
	 * Last, once nothing can fail: a debugfs file opened while the load
	 * fails would hold a module about to be freed, and the stats file
	 * names the hook that indigo_hook_init() chose
	 */
	indigo_debugfs_init();
	pr_info("far nodes %*pbl, %u pages tracked at most (%llu KiB), mode observe\n",
		nodemask_pr_args(&indigo.far), indigo.capacity,
		indigo_table_bytes() >> 10);
	return 0;

err_work:
	cancel_delayed_work_sync(&indigo.epoch_work);
	indigo_genl_exit();
err_epoch:
	epoch_free();
err_notifier:
	indigo_compat_unregister_hotplug(&far_memory_nb);
err_state:
	indigo_state_free();
	return err;
}

static void __exit indigo_exit(void)
{
	indigo_debugfs_exit();
	/* the probes' handlers, readers of the policy, are done on return */
	indigo_hook_exit();
	cancel_delayed_work_sync(&indigo.epoch_work);
	indigo_genl_exit();
	epoch_free();
	indigo_compat_unregister_hotplug(&far_memory_nb);
	/*
	 * No rcu_barrier(): earlier policies are plain kmalloc memory that
	 * kfree_rcu frees without calling into this module
	 */
	indigo_state_free();
}

module_init(indigo_init);
module_exit(indigo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("INDIGO: network-aware gate for far-memory page promotion");
MODULE_VERSION("0.1");
