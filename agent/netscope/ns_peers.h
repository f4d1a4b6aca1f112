/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peers on this host: the address prefixes (containers' and VMs' subnets
 * behind a bridge) whose flows cross no link, in the form the sock_ops
 * program's ns_host_peers map takes them.
 */
#ifndef INDIGO_NS_PEERS_H
#define INDIGO_NS_PEERS_H

#include <stddef.h>

#include <linux/indigo_netscope.h>

struct ns_peers {
	struct ns_peer_prefix p[NS_HOST_PEERS_MAX];
	size_t n;
};

/*
 * Appends the prefixes of @list ("ADDR[/LEN] ...", IPv4 or IPv6, blank
 * separated; an address alone is one host) to @peers. 0, or -EINVAL /
 * -E2BIG with @err saying which prefix and why, and @peers->n as it was.
 */
int ns_peers_add(struct ns_peers *peers, const char *list, char *err,
		 size_t errlen);

#endif /* INDIGO_NS_PEERS_H */
