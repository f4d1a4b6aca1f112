/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's network namespaces, one after another: for what the kernel
 * shows only from inside each (its socket iterators).
 */
#ifndef INDIGO_NS_NETNS_H
#define INDIGO_NS_NETNS_H

/*
 * Runs @fn(@arg) in each network namespace that a process is in or that
 * /run/netns names (ip netns), the caller's own first, from a thread of
 * its own that setns() moves (the caller's threads stay where they are).
 * Returns 0, or the first -errno of @fn or of the walk. *@skipped counts
 * the namespaces it could not enter: a systemd unit must allow them
 * (RestrictNamespaces=net).
 */
int ns_netns_each(int (*fn)(void *arg), void *arg, unsigned int *skipped);

#endif /* INDIGO_NS_NETNS_H */
