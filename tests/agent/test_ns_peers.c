// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the prefixes of peers on the host (agent/netscope/ns_peers.c)
 * as the sock_ops program's LPM trie takes them: IPv4 mapped into IPv6,
 * lengths counted over 128 bits; lists appended to, up to the map's size;
 * a bad prefix refused with its reason and nothing appended.
 */
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ns_peers.h"

static const struct ns_peer_prefix v4_24 = {
	.prefixlen = 120, .addr = { [10] = 0xff, [11] = 0xff, 10, 1, 2 } };

START_TEST(ipv4_is_mapped)
{
	struct ns_peers p = { .n = 0 };
	char err[128] = "";

	ck_assert_int_eq(ns_peers_add(&p, "10.1.2.0/24", err, sizeof(err)), 0);
	/* the same prefix written as IPv6 maps to the same key */
	ck_assert_int_eq(ns_peers_add(&p, "::ffff:10.1.2.0/120", err,
				      sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 2);
	ck_assert(!memcmp(&p.p[0], &v4_24, sizeof(v4_24)));
	ck_assert(!memcmp(&p.p[1], &v4_24, sizeof(v4_24)));
}
END_TEST

START_TEST(lengths_and_hosts)
{
	struct ns_peers p = { .n = 0 };
	char err[128] = "";

	ck_assert_int_eq(ns_peers_add(&p, " 0.0.0.0/0\t::/0 fe80::1 1.2.3.4 ",
				      err, sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 4);
	ck_assert_uint_eq(p.p[0].prefixlen, 96);
	ck_assert_uint_eq(p.p[1].prefixlen, 0);
	ck_assert_uint_eq(p.p[2].prefixlen, 128);
	ck_assert_uint_eq(p.p[2].addr[0], 0xfe);
	ck_assert_uint_eq(p.p[2].addr[15], 1);
	ck_assert_uint_eq(p.p[3].prefixlen, 128);
	ck_assert_uint_eq(p.p[3].addr[15], 4);
	/* nothing at all is an empty list, not an error */
	ck_assert_int_eq(ns_peers_add(&p, "  ", err, sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 4);
}
END_TEST

START_TEST(bad_prefix_appends_nothing)
{
	struct ns_peers p = { .n = 0 };
	char err[128] = "";

	ck_assert_int_eq(ns_peers_add(&p, "10.1.2.0/24", err, sizeof(err)), 0);
	ck_assert_int_eq(ns_peers_add(&p, "192.168.0.0/16 10.1.2.3/24", err,
				      sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "\"10.1.2.3/24\" has address bits set past its length");
	ck_assert_uint_eq(p.n, 1);
	ck_assert_int_eq(ns_peers_add(&p, "fd00::1/-1", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "\"fd00::1/-1\" has a length that is not 0-128");
	ck_assert_int_eq(ns_peers_add(&p, "1.2.3.4/032x", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(ns_peers_add(&p, "1.2.3", err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "\"1.2.3\" is not an IPv4 or IPv6 address prefix");
	/* too long for any prefix: quoted, cut short */
	ck_assert_int_eq(ns_peers_add(&p, "fd00:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000/64",
				      err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "\"fd00:0000:0000:0000:0000:0000:00...\" is too long for an address prefix");
	ck_assert_uint_eq(p.n, 1);
	/* no buffer for the reason: the code alone */
	ck_assert_int_eq(ns_peers_add(&p, "x", NULL, 0), -EINVAL);
}
END_TEST

START_TEST(at_most_the_maps_size)
{
	struct ns_peers p = { .n = 0 };
	char err[128] = "", one[32];
	int i;

	for (i = 0; i < NS_HOST_PEERS_MAX; i++) {
		snprintf(one, sizeof(one), "10.0.%d.0/24", i);
		ck_assert_int_eq(ns_peers_add(&p, one, err, sizeof(err)), 0);
	}
	ck_assert_int_eq(ns_peers_add(&p, "10.9.9.0/24", err, sizeof(err)),
			 -E2BIG);
	ck_assert_str_eq(err, "more than 64 prefixes");
	ck_assert_uint_eq(p.n, NS_HOST_PEERS_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_peers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ipv4_is_mapped);
	tcase_add_test(tc, lengths_and_hosts);
	tcase_add_test(tc, bad_prefix_appends_nothing);
	tcase_add_test(tc, at_most_the_maps_size);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
