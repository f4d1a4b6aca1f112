/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace access to Netscope's pinned maps (indigod and indigoctl), and
 * the cgroup id <-> path mapping their keys need.
 */
#ifndef INDIGO_NS_MAPS_H
#define INDIGO_NS_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "linux/indigo_netscope.h"


struct ns_maps {
	int stats, policy, ctrl, link, epoch;
};

struct bpf_object;

/*
 * Opens the maps pinned under NS_PIN_DIR: 0 or -errno, @which naming the
 * map that failed. -EPROTO where one is not this version's layout (another
 * version pinned it): sizes other than this version's structs, or, where
 * the pinned map has BTF, types other than those of @ref, this build's
 * sock_ops object (opened, not loaded: its maps are those opened here).
 */
int ns_maps_open(struct ns_maps *m, const struct bpf_object *ref,
		 const char **which);
void ns_maps_close(struct ns_maps *m);

/* 0, -ENOENT when the cgroup has no entry, or -errno. Live and bulk flows
 * counted in an earlier epoch than ns_epoch's read as none. */
int ns_stats_get(const struct ns_maps *m, uint64_t cgid, struct ns_cg_stats *s);
int ns_policy_get(const struct ns_maps *m, uint64_t cgid, struct ns_policy *p);
int ns_ctrl_get(const struct ns_maps *m, uint64_t cgid, struct ns_ctrl *c);

/*
 * Every read-modify-write of ns_policy (indigoctl netscope set and clear,
 * a controller's policy each interval and its release of them) holds an
 * exclusive flock on this file: a map has no compare-and-swap from
 * userspace, and a write between another writer's read and its update
 * would be lost (an operator's fixed policy overwritten by a controller,
 * and the gen flows go by stepping back). Not the pin directory, which
 * the agent holds for as long as it runs (ns_loader.c), nor a file in
 * it: the BPF filesystem has none. Its directory is made where missing.
 */
#ifndef NS_POLICY_LOCK
#define NS_POLICY_LOCK		"/run/indigo/ns_policy.lock"
#endif
/* The longest a writer that waits for the lock waits (one that holds it
 * holds it for a few map operations): then -EWOULDBLOCK. */
#define NS_POLICY_LOCK_WAIT_MS	2000

/*
 * Decides the cgroup's next policy from its current one, @old (NULL: it
 * has none), into @p (a copy of @old, or all zero): 1 to store it at the
 * generation after @old's, 0 to leave the entry as it is, or -errno.
 */
typedef int (*ns_policy_fn)(struct ns_policy *p, const struct ns_policy *old,
			    void *arg);
/* Runs @fn over the cgroup's policy and stores what it decided, under
 * NS_POLICY_LOCK, waiting at most @wait_ms for it: @fn's answer (1: stored),
 * -EWOULDBLOCK while another writer held it, or another -errno. */
int ns_policy_update(const struct ns_maps *m, uint64_t cgid, ns_policy_fn fn,
		     void *arg, int wait_ms);
/* Replaces the cgroup's policy with a neutral one (all zero: its flows lift
 * what Netscope set), at the next generation: 0, -ENOENT when it has
 * none, or -errno. */
int ns_policy_neutral(const struct ns_maps *m, uint64_t cgid);
/* Makes the controller policies (not NS_POLICY_FIXED) of @owner, and those
 * whose owner is gone, neutral: as a controller starts and stops, so that
 * none outlives its controller. 0 or the first -errno. */
int ns_policy_release(const struct ns_maps *m, uint32_t owner);
/* The same for one cgroup's policy: 0 (also when it had none to release)
 * or -errno. */
int ns_policy_release_one(const struct ns_maps *m, uint64_t cgid,
			  uint32_t owner);
int ns_ctrl_put(const struct ns_maps *m, uint64_t cgid, const struct ns_ctrl *c);
int ns_link_view_get(const struct ns_maps *m, struct ns_link_view *v);
int ns_link_view_put(const struct ns_maps *m, const struct ns_link_view *v);
/* Drops every entry of the cgroup (it is gone). */
void ns_maps_forget(const struct ns_maps *m, uint64_t cgid);
/*
 * The cgroups that have an entry in the per-cgroup map @fd (of struct
 * ns_maps), each once (an entry deleted under the walk, by an agent
 * dropping a gone cgroup, sends the kernel's walk back to the first key),
 * into @keys of NS_CGROUPS_MAX: how many, or -errno.
 */
int ns_map_keys(int fd, uint64_t *keys);
/* ns_map_keys() of ns_cg_stats: the cgroups that have aggregates. */
int ns_stats_keys(const struct ns_maps *m, uint64_t *keys);

/* Where cgroup v2 is mounted (the first such mount): 0 or -ENOENT. */
int ns_cgroup_root(char *buf, size_t len);
/* A cgroup v2 directory's id (its inode number): 0 or -errno (-EMEDIUMTYPE:
 * a directory, but not on cgroup v2). */
int ns_cgroup_id(const char *path, uint64_t *id);
/* 1 if the cgroup with @id still exists, 0 if not, or -errno; @rootfd an
 * open cgroup v2 mount (ids are file handles there). */
int ns_cgroup_alive(int rootfd, uint64_t id);
/* Finds the directory under @root with id @id: 0 or -ENOENT. */
int ns_cgroup_path(const char *root, uint64_t id, char *buf, size_t len);

#endif /* INDIGO_NS_MAPS_H */
