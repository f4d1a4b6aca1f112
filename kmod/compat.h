/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels indigo.ko supports (6.1 to
 * 6.12) lives here, so the rest of the module has no version checks.
 *
 * The hinting-fault hook is a return probe on the function that decides
 * where a NUMA-hinting fault's page should go: it returns the target node,
 * or NUMA_NO_NODE for "stay". Its first argument is the page (6.1) or the
 * folio (later), whose first member is that page; its third is the faulting
 * address. Its second is the VMA up to 6.9, and from 6.10 the vm_fault,
 * whose member vma is the VMA: 6.10 made numa_migrate_prep() and
 * mpol_misplaced() take the vm_fault, and 6.11 renamed the former
 * numa_migrate_check().
 *
 * The memory hotplug notifier (main.c) is alike in all of them: at
 * MEM_OFFLINE, struct memory_notify's status_change_nid names the node the
 * offlining left without memory (else it is NUMA_NO_NODE), and N_MEMORY is
 * already cleared for it. Later kernels move that news to a node notifier.
 */
#ifndef _INDIGO_COMPAT_H
#define _INDIGO_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>
#include <net/genetlink.h>

struct indigo_hook_site {
	const char *symbol;
	bool arg1_is_vmf;
};

/* numa_migrate_prep() takes the vm_fault from 6.10 */
#define INDIGO_PREP_TAKES_VMF						\
	(LINUX_VERSION_MAJOR > 6 ||					\
	 (LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL >= 10))

/* Tried in order; the first that registers is used. */
static const struct indigo_hook_site indigo_hook_sites[] = {
	{ "numa_migrate_check", true },			/* 6.11+ */
	{ "numa_migrate_prep", INDIGO_PREP_TAKES_VMF },	/* up to 6.10 */
};

static inline struct vm_area_struct *
indigo_compat_vma(const struct indigo_hook_site *site, unsigned long arg1)
{
	if (site->arg1_is_vmf)
		return ((struct vm_fault *)arg1)->vma;
	return (struct vm_area_struct *)arg1;
}

/*
 * Hinting faults come from NUMA balancing alone. A kernel built without it
 * (PREEMPT_RT ones: it depends on !PREEMPT_RT) still has the hook points,
 * so the probes would register and never fire.
 */
#define INDIGO_HAVE_HINTING_FAULTS IS_ENABLED(CONFIG_NUMA_BALANCING)

/*
 * Telemetry subscribers need CAP_NET_ADMIN (netlink.c): genetlink checks it
 * for a group flagged so from 6.7 on, and in the 6.1 stable updates since
 * its backport. Without the flag any user could read which pages other
 * processes touch, so the module is not built rather than built open.
 */
#ifndef GENL_MCAST_CAP_NET_ADMIN
#error "this kernel's genetlink lacks GENL_MCAST_CAP_NET_ADMIN: update it"
#endif

/* The hinting scan's marking: change_prot_numa(vma, start, end) in all. */
#define INDIGO_MARK_SYMBOL "change_prot_numa"

#endif /* _INDIGO_COMPAT_H */
