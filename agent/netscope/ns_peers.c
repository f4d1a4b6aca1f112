// SPDX-License-Identifier: GPL-2.0
/* Prefixes of peers on this host: see ns_peers.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "ns_peers.h"
#include "num.h"

#define TOKEN_MAX	64	/* longer than any IPv6 prefix */

/* One "ADDR[/LEN]" (cut at the slash) into @p; NULL, or why not. */
static const char *parse_one(char *addr, struct ns_peer_prefix *p)
{
	char *slash = strchr(addr, '/');
	unsigned int bits, i;
	uint64_t len;
	int v4;

	if (slash)
		*slash++ = '\0';
	memset(p, 0, sizeof(*p));
	v4 = inet_pton(AF_INET, addr, &p->addr[12]) == 1;
	if (v4)
		p->addr[10] = p->addr[11] = 0xff;
	else if (inet_pton(AF_INET6, addr, p->addr) != 1)
		return "is not an IPv4 or IPv6 address prefix";
	bits = v4 ? 32 : 128;
	len = bits;
	if (slash && num_u64(slash, bits, &len))
		return v4 ? "has a length that is not 0-32" :
			    "has a length that is not 0-128";
	p->prefixlen = len + 128 - bits;
	/* the trie would ignore them; a typo for another prefix is likelier */
	for (i = p->prefixlen; i < 128; i++)
		if (p->addr[i / 8] & (0x80 >> (i % 8)))
			return "has address bits set past its length";
	return NULL;
}

int ns_peers_add(struct ns_peers *peers, const char *list, char *err,
		 size_t errlen)
{
	const char *s = list, *why;
	size_t len, k = peers->n;
	char tok[TOKEN_MAX];

	for (;;) {
		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (!len)
			break;
		if (k == NS_HOST_PEERS_MAX)
			return errbuf_set(err, errlen, -E2BIG,
					  "more than %d prefixes", NS_HOST_PEERS_MAX);
		if (len >= sizeof(tok))
			return errbuf_set(err, errlen, -EINVAL,
					  "\"%.32s...\" is too long for an address prefix",
					  s);
		memcpy(tok, s, len);
		tok[len] = '\0';
		why = parse_one(tok, &peers->p[k]);
		if (why)
			return errbuf_set(err, errlen, -EINVAL, "\"%.*s\" %s",
					  (int)len, s, why);
		k++;
		s += len;
	}
	peers->n = k;
	return 0;
}
