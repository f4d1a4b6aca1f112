/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netscope's eBPF programs on the host: loads them, pins their maps under
 * NS_PIN_DIR (reusing maps a previous run left there, so state survives a
 * restart), attaches the sock_ops program to cgroups, takes in the flows
 * established before it was, and registers the "netscope" congestion
 * control. Closing detaches and unregisters; the
 * pinned maps stay.
 */
#ifndef INDIGO_NS_LOADER_H
#define INDIGO_NS_LOADER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "ns_peers.h"

struct ns_loader;

struct ns_load_opts {
	const char *cgroups[NS_ATTACH_MAX];	/* cgroup v2 directories */
	size_t ncgroups;
	int want_cc;				/* register "netscope" */
	uint32_t cc_target_us;			/* its target delay at c = 0 */
	bool loopback;				/* also flows that stay on
						 * the host (tests) */
	struct ns_peers host_peers;		/* flows to them stay on the
						 * host too */
	uint64_t apps[NS_APPS_MAX];		/* applications' cgroup ids:
						 * flows below are counted
						 * under them (ns_apps) */
	size_t napps;
};

/* What became of the flows established before the program was attached. */
struct ns_adopt {
	unsigned int taken;		/* taken in: counted and policed */
	unsigned int missed;		/* this kernel (before 6.12) cannot */
	unsigned int netns_skipped;	/* namespaces not entered */
	int err;			/* 0, or why they were not looked
					 * for, or not in every namespace */
};

enum ns_map {
	NS_MAP_STATS,
	NS_MAP_POLICY,
	NS_MAP_CTRL,
	NS_MAP_LINK,
	NS_MAP_EPOCH,
};

/* 0 or -errno; *why names the step that failed (static text). */
int ns_loader_open(struct ns_loader **out, const struct ns_load_opts *o,
		   const char **why);
/* 0 when "netscope" is registered; else why not (-errno). */
int ns_loader_cc_status(const struct ns_loader *l);
const struct ns_adopt *ns_loader_adopt(const struct ns_loader *l);
/* Whether registering it took the place of one that a killed agent left. */
bool ns_loader_cc_replaced(const struct ns_loader *l);
int ns_loader_map_fd(const struct ns_loader *l, enum ns_map m);
/* Replaces application cgroup @from (0: none) with @to in ns_apps (an
 * application's cgroup made again): 0 or -errno. */
int ns_loader_app_move(struct ns_loader *l, uint64_t from, uint64_t to);
/* The sock_ops program's id (0 if unknown): it lives as long as this
 * loader, so it names what this agent writes (ns_policy.owner). */
uint32_t ns_loader_prog_id(const struct ns_loader *l);
void ns_loader_close(struct ns_loader *l);
/* Mounts bpffs on /sys/fs/bpf if needed and makes NS_PIN_DIR. */
int ns_pin_dir_make(void);

#endif /* INDIGO_NS_LOADER_H */
