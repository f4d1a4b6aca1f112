// SPDX-License-Identifier: GPL-2.0
/*
 * indigo.ko: the hinting-fault probes.
 *
 * A return probe on the kernel's "where should this page go" function (see
 * compat.h) sees every NUMA-hinting fault. For pages on a far node it
 * records an access-rate observation and, when the kernel wants to promote
 * the page to a near node, applies the gate; a veto rewrites the return
 * value to NUMA_NO_NODE, so the kernel's own migration simply does not
 * happen. Nothing here sleeps or waits for userspace.
 *
 * Access rate: INDIGO's is 1 / (fault time - marking time). The marking time
 * is not stored in the page in the default NUMA-balancing mode, so a second
 * probe on the scanner's change_prot_numa() logs which ranges of which
 * address space were marked when (core.h: indigo_marks). Where no mark is
 * known (the mark was overwritten, or that probe could not be placed) the
 * observation falls back to the interval since the page's previous fault,
 * which bounds the rate from below by the scan period. A fault for which
 * the log holds no marking since the page's previous fault (a second
 * thread's, on the marking the first one's fault counted) is no observation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/vmstat.h>
#include <linux/utsname.h>
#include "compat.h"
#include "indigo.h"

struct fault_ctx {
	struct page *page;
	struct mm_struct *mm;
	unsigned long addr;
	int nid;
};

static char *hook;
module_param(hook, charp, 0444);
MODULE_PARM_DESC(hook, "Hinting-fault hook point (default: the first of numa_migrate_check, numa_migrate_prep that exists)");

static bool marks = true;
module_param(marks, bool, 0444);
MODULE_PARM_DESC(marks, "Probe change_prot_numa() for marking times (default on; off: rates from fault intervals, no probe on the NUMA scanner)");

static const struct indigo_hook_site *site;

static int fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fault_ctx *c = (struct fault_ctx *)ri->data;
	struct vm_area_struct *vma;

	c->page = (struct page *)regs_get_kernel_argument(regs, 0);
	c->nid = page_to_nid(c->page);
	/* near pages: no return handler at all */
	if (!node_isset(c->nid, indigo.far))
		return 1;
	vma = indigo_compat_vma(site, regs_get_kernel_argument(regs, 1));
	c->mm = vma->vm_mm;
	c->addr = regs_get_kernel_argument(regs, 2);
	return 0;
}

static u64 node_free_kib(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++)
		pages += zone_page_state(&pgdat->node_zones[z], NR_FREE_PAGES);
	return (u64)pages << (PAGE_SHIFT - 10);
}

/*
 * Which page holds the pfn: its mapping and offset in it, fixed while the
 * page lives (a COW page moved to its own anon_vma changes tag once, and
 * its record starts anew). Another page at the pfn after this one is freed
 * has another tag, and does not inherit this one's record.
 */
static u32 page_tag(struct page *page)
{
	struct folio *folio = page_folio(page);

	return hash_64((unsigned long)READ_ONCE(folio->mapping) ^
		       READ_ONCE(folio->index), INDIGO_KEY_TAG_BITS);
}

/* Records the observation; fills @in with the page's rate and burst. */
static bool observe(const struct fault_ctx *c, const struct indigo_policy *p,
		    u64 now, struct indigo_gate_in *in)
{
	struct indigo_node_stats *st = this_cpu_read(*indigo.stats);
	u64 pfn = page_to_pfn(c->page);
	struct indigo_shard *sh;
	struct indigo_page *pg;
	unsigned int seq;
	u64 mark = 0;
	bool seen;
	int evicted;

	/* top bits pick the shard; the table's slot uses the low ones */
	sh = &indigo.shards[indigo_table_hash(pfn) >> (32 - INDIGO_SHARD_BITS)];
	spin_lock(&sh->lock);
	pg = indigo_table_get(&sh->table, pfn, page_tag(c->page), &evicted);
	if (indigo.have_marks) {
		do {
			seq = read_seqbegin(&indigo.marks_lock);
			mark = indigo_marks_find(&indigo.marks,
						 (unsigned long)c->mm, c->addr,
						 pg->last_ns);
		} while (read_seqretry(&indigo.marks_lock, seq));
	}
	seen = indigo_page_fault(pg, p, now, mark);
	pg->node = c->nid;
	in->rate = pg->nobs ? pg->rate : 0;
	in->burst_ms = indigo_burst_ms(pg, now);
	spin_unlock(&sh->lock);

	if (evicted >= 0 && evicted < nr_node_ids)
		st[evicted].evictions++;
	st[c->nid].faults++;
	if (seen) {
		indigo_hist_add(this_cpu_ptr(indigo.rate_hist), in->rate);
		indigo_hist_add(this_cpu_ptr(indigo.burst_hist), in->burst_ms);
	}
	return seen;
}

static int fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fault_ctx *c = (struct fault_ctx *)ri->data;
	int target = (int)regs_return_value(regs);
	struct indigo_node_stats *st = this_cpu_read(*indigo.stats);
	struct indigo_policy_rcu *pol;
	struct indigo_gate_in in = {};
	struct indigo_decision d;
	u64 now = ktime_get_ns();
	bool observed;
	int reason;

	/* a THP (6.1) or large folio (6.12) moves all its pages at once */
	in.npages = compound_nr(c->page);
	rcu_read_lock();
	pol = rcu_dereference(indigo.policy);
	observed = observe(c, &pol->p, now, &in);
	if (observed) {
		/*
		 * The process, not the thread: the agent dedups pages, batches
		 * move_pages() and keys its model (/proc/PID/comm) by it, and a
		 * worker thread may be gone by then while its process is not.
		 */
		struct indigo_cand cand = {
			.addr = c->addr, .pid = current->tgid, .node = c->nid,
			.rate = in.rate, .burst_ms = in.burst_ms,
			.pages = in.npages,
		};

		indigo_cand_add(&cand);
	}
	/* only promotions, i.e. moves to a near node, pass the gate */
	if (target == NUMA_NO_NODE || target < 0 || target >= nr_node_ids ||
	    node_isset(target, indigo.far)) {
		rcu_read_unlock();
		return 0;
	}
	in.free_kib = node_free_kib(target);
	spin_lock(&indigo.bucket_lock);
	reason = indigo_gate(&pol->p, &in, &indigo.bucket, now);
	spin_unlock(&indigo.bucket_lock);
	rcu_read_unlock();

	st[c->nid].reason[reason]++;
	if (indigo_allows(reason))
		st[c->nid].allowed_pages += in.npages;
	else
		regs_set_return_value(regs, NUMA_NO_NODE);

	d = (struct indigo_decision){
		.t_ns = now, .addr = c->addr, .pid = current->tgid,
		.rate = in.rate, .burst_ms = in.burst_ms,
		.node = c->nid, .target = target, .reason = reason,
	};
	indigo_decision_add(&d);
	return 0;
}

static int mark_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	write_seqlock(&indigo.marks_lock);
	/* the time under the lock, so that marks are filed in time order */
	indigo_marks_add(&indigo.marks, (unsigned long)vma->vm_mm,
			 regs_get_kernel_argument(regs, 1),
			 regs_get_kernel_argument(regs, 2), ktime_get_ns());
	write_sequnlock(&indigo.marks_lock);
	return 0;
}

static struct kretprobe fault_probe = {
	.entry_handler = fault_entry,
	.handler = fault_return,
	.data_size = sizeof(struct fault_ctx),
};

static struct kprobe mark_probe = {
	.symbol_name = INDIGO_MARK_SYMBOL,
	.pre_handler = mark_entry,
};

int indigo_hook_supported(void)
{
	if (INDIGO_HAVE_HINTING_FAULTS)
		return 0;
	pr_err("kernel %s has no NUMA balancing (CONFIG_NUMA_BALANCING), so no hinting faults to watch\n",
	       init_utsname()->release);
	return -EOPNOTSUPP;
}

int indigo_hook_init(void)
{
	char tried[128] = "";
	size_t len = 0;
	int i, err = -ENOENT;

	/* the mark log first, so the first faults already find marks */
	indigo.have_marks = marks && !register_kprobe(&mark_probe);
	if (!indigo.have_marks)
		pr_info("no probe on %s%s: access rates use fault intervals\n",
			INDIGO_MARK_SYMBOL, marks ? "" : " (marks=0)");

	/* one instance per fault in flight; faults nest at most per CPU */
	fault_probe.maxactive = max_t(int, 16, 2 * num_possible_cpus());
	for (i = 0; i < ARRAY_SIZE(indigo_hook_sites); i++) {
		site = &indigo_hook_sites[i];
		if (hook && *hook && strcmp(hook, site->symbol))
			continue;
		fault_probe.kp.symbol_name = site->symbol;
		fault_probe.kp.addr = NULL;
		fault_probe.kp.flags = 0;
		err = register_kretprobe(&fault_probe);
		if (!err) {
			pr_info("hinting faults hooked at %s\n", site->symbol);
			return 0;
		}
		len += scnprintf(tried + len, sizeof(tried) - len, "%s%s (%d)",
				 len ? ", " : "", site->symbol, err);
	}
	site = NULL;
	if (!len) {
		pr_err("hook=%s is not a known hook point (numa_migrate_check, numa_migrate_prep)\n",
		       hook);
		err = -EINVAL;
		goto out;
	}
	pr_err("kernel %s: no usable hinting-fault hook point; tried %s\n",
	       init_utsname()->release, tried);
	err = -ENOENT;
out:
	if (indigo.have_marks)
		unregister_kprobe(&mark_probe);
	indigo.have_marks = false;
	return err;
}

void indigo_hook_exit(void)
{
	unregister_kretprobe(&fault_probe);
	if (indigo.have_marks)
		unregister_kprobe(&mark_probe);
}

unsigned long indigo_hook_missed(void)
{
	/*
	 * the return probe's: no free instance (an int the kernel lets wrap:
	 * read as unsigned, not sign-extended); its entry's: re-entered
	 */
	return (unsigned int)fault_probe.nmissed + fault_probe.kp.nmissed +
	       mark_probe.nmissed;
}

const char *indigo_hook_symbol(void)
{
	return site ? site->symbol : "none";
}
