// SPDX-License-Identifier: GPL-2.0
/*
 * indigo.ko: /sys/kernel/debug/indigo/{stats,policy,decisions,emit}.
 *
 * One record per line, fields separated by spaces, a header line naming
 * the columns of each table: readable as it is, and by awk.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "indigo.h"

static struct dentry *dir;
static atomic64_t emit_failed;		/* batches "emit" could not deliver */

static int stats_show(struct seq_file *m, void *v)
{
	struct indigo_node_stats *s;
	int nid, r;

	s = kvcalloc(nr_node_ids, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	indigo_stats_sum(s);
	seq_printf(m, "hook %s\n", indigo_hook_symbol());
	seq_printf(m, "marks %s\n", indigo.have_marks ? "scan" : "interval");
	seq_printf(m, "tracked_pages %u\n", indigo_tracked_pages());
	seq_printf(m, "capacity_pages %u\n", indigo.capacity);
	seq_printf(m, "table_bytes %llu\n", indigo_table_bytes());
	seq_printf(m, "bytes_per_page %zu\n", sizeof(struct indigo_page));
	seq_printf(m, "probe_missed %lu\n", indigo_hook_missed());
	seq_printf(m, "candidates_dropped %lld\n",
		   (long long)atomic64_read(&indigo.cand_dropped));
	seq_printf(m, "epoch %llu\n", READ_ONCE(indigo.epoch_seq));
	seq_printf(m, "emit_failed_batches %lld\n",
		   (long long)atomic64_read(&emit_failed));
	seq_puts(m, "node faults allowed");
	for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++)
		seq_printf(m, " veto_%s", indigo_reason_name(r));
	seq_puts(m, " evictions allowed_pages\n");
	for_each_node_mask(nid, indigo.far) {
		seq_printf(m, "%d %llu %llu", nid, s[nid].faults,
			   s[nid].reason[INDIGO_REASON_OBSERVE] +
			   s[nid].reason[INDIGO_REASON_PASS]);
		for (r = INDIGO_REASON_DENY; r <= INDIGO_REASON_MAX; r++)
			seq_printf(m, " %llu", s[nid].reason[r]);
		seq_printf(m, " %llu %llu\n", s[nid].evictions,
			   s[nid].allowed_pages);
	}
	kvfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int policy_show(struct seq_file *m, void *v)
{
	struct indigo_policy p;
	u64 gen = indigo_policy_get(&p);

	seq_printf(m, "mode %s\n", indigo_mode_name(p.mode));
	seq_printf(m, "rate_min_mhz %u\n", p.rate_min);
	seq_printf(m, "burst_min_ms %u\n", p.burst_min);
	seq_printf(m, "free_min_kib %llu\n", p.free_min);
	seq_printf(m, "rate_cap_pps %u\n", p.rate_cap);
	seq_printf(m, "burst_tol_pct %u\n", p.burst_tol);
	seq_printf(m, "burst_gap_ms %u\n", p.burst_gap);
	seq_printf(m, "generation %llu\n", gen);
	seq_printf(m, "far_nodes %*pbl\n", nodemask_pr_args(&indigo.far));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(policy);

static int decisions_show(struct seq_file *m, void *v)
{
	struct indigo_decision *d;
	u32 n, i;

	d = kvcalloc(INDIGO_DECISIONS, sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	n = indigo_decisions_copy(d, INDIGO_DECISIONS);
	seq_puts(m, "time_ns pid addr node target rate_mhz burst_ms verdict reason\n");
	for (i = 0; i < n; i++)
		seq_printf(m, "%llu %u 0x%llx %d %d %u %u %s %s\n", d[i].t_ns,
			   d[i].pid, d[i].addr, d[i].node, d[i].target,
			   d[i].rate, d[i].burst_ms,
			   indigo_allows(d[i].reason) ? "allow" : "veto",
			   indigo_reason_name(d[i].reason));
	kvfree(d);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(decisions);

#define EMIT_MAX	(64U << 20)

/*
 * "echo N > emit": N synthetic candidates to the telemetry listeners as
 * fast as the module can send them, for benchmarks of the agent's
 * ingestion (tools/bench/ingest.sh). Listeners ignore pid 0.
 */
static ssize_t emit_write(struct file *f, const char __user *buf, size_t len,
			  loff_t *pos)
{
	u64 failed = 0;
	u32 n;
	int ret;

	ret = kstrtou32_from_user(buf, len, 0, &n);
	if (ret)
		return ret;
	if (n > EMIT_MAX)
		return -ERANGE;
	ret = indigo_genl_emit(n, &failed);
	atomic64_add(failed, &emit_failed);
	return ret ? ret : len;
}

static const struct file_operations emit_fops = {
	.owner = THIS_MODULE,
	.write = emit_write,
	.llseek = noop_llseek,
};

void indigo_debugfs_init(void)
{
	/* debugfs is for people; the module works without it */
	dir = debugfs_create_dir("indigo", NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("policy", 0400, dir, NULL, &policy_fops);
	debugfs_create_file("decisions", 0400, dir, NULL, &decisions_fops);
	debugfs_create_file("emit", 0200, dir, NULL, &emit_fops);
}

void indigo_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
}
