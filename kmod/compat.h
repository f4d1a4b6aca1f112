/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels indigo.ko supports (6.1 to
 * 7.3: tested on Debian's 6.1, 6.12 and 7.3) lives here, so the rest of
 * the module has no version checks.
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
 * A node's first memory coming online and its last going offline (main.c)
 * reach the module through the memory hotplug notifier up to 6.16: at
 * MEM_ONLINE, and at MEM_OFFLINE, where struct memory_notify's
 * status_change_nid names the node the offlining left without memory (else
 * it is NUMA_NO_NODE). 6.17 moved that news to a node notifier
 * (NODE_ADDED_FIRST_MEMORY, NODE_REMOVED_LAST_MEMORY with the node's id)
 * and took status_change_nid away. In both, N_MEMORY is already set or
 * cleared for the node when the notifier runs.
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

/* Tried in order; the first that registers is used (by hook.c alone). */
static const struct indigo_hook_site indigo_hook_sites[] __maybe_unused = {
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

#define INDIGO_NODE_NOTIFIER						\
	(LINUX_VERSION_MAJOR > 6 ||					\
	 (LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL >= 17))

#if INDIGO_NODE_NOTIFIER
#include <linux/node.h>
#define indigo_compat_register_hotplug register_node_notifier
#define indigo_compat_unregister_hotplug unregister_node_notifier
#else
#include <linux/memory.h>
#define indigo_compat_register_hotplug register_memory_notifier
#define indigo_compat_unregister_hotplug unregister_memory_notifier
#endif

/* Whether memory came online: a node may have become far memory. */
static inline bool indigo_compat_memory_added(unsigned long action)
{
#if INDIGO_NODE_NOTIFIER
	return action == NODE_ADDED_FIRST_MEMORY;
#else
	return action == MEM_ONLINE;
#endif
}

/* The node that the event left without memory, else NUMA_NO_NODE. */
static inline int indigo_compat_node_emptied(unsigned long action, void *arg)
{
#if INDIGO_NODE_NOTIFIER
	if (action == NODE_REMOVED_LAST_MEMORY)
		return ((const struct node_notify *)arg)->nid;
#else
	if (action == MEM_OFFLINE)
		return ((const struct memory_notify *)arg)->status_change_nid;
#endif
	return NUMA_NO_NODE;
}

/* The hinting scan's marking: change_prot_numa(vma, start, end) in all. */
#define INDIGO_MARK_SYMBOL "change_prot_numa"

#endif /* _INDIGO_COMPAT_H */
