// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: hostile clients of the "indigo" generic netlink family.
 *
 *   nlfuzz fuzz N SEED   N random and malformed messages (valid headers with
 *                        garbage attributes, wrong lengths, nesting, unknown
 *                        commands, truncated messages); exit 0 if every one
 *                        was answered or dropped without the socket dying
 *   nlfuzz invalid       well-formed requests with bad values: each must be
 *                        refused (ERANGE out of range, EINVAL malformed)
 *   nlfuzz unpriv        drops to uid/gid 65534 without capabilities; setting
 *                        the policy and joining the telemetry group must be
 *                        refused with EPERM, reading must still work
 *   nlfuzz spoof         sends three malformed telemetry messages to the
 *                        telemetry group (root may): what a listener must
 *                        skip without losing its link
 *
 * Raw sockets on purpose: libnl would refuse to build most of these.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/indigo.h>

#define BUFSZ 8192

static int sock_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("nlfuzz: socket");
		exit(1);
	}
	return fd;
}

static struct nlattr *put_attr(char *p, uint16_t type, const void *data,
			       uint16_t len)
{
	struct nlattr *a = (struct nlattr *)p;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(p + NLA_HDRLEN, data, len);
	return a;
}

/*
 * Sends one request; returns the errno of the answer (0: a reply came).
 * The kernel handles a request inside send(), so any answer is queued by
 * the time it returns: @wait_ms only covers a slow machine.
 */
static int transact(int fd, const void *msg, size_t len, int wait_ms)
{
	char buf[BUFSZ];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct nlmsghdr *h;
	ssize_t n;

	if (send(fd, msg, len, 0) < 0)
		return errno;
	if (poll(&pfd, 1, wait_ms) <= 0)
		return ETIMEDOUT;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_HDRLEN)
		return EIO;
	h = (struct nlmsghdr *)buf;
	if (h->nlmsg_type == NLMSG_ERROR)
		return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
	return 0;
}

static int family_id(int fd, uint32_t *mcgrp)
{
	char msg[256] = { 0 }, buf[BUFSZ];
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct nlattr *a;
	int id = -1, rem;
	ssize_t n;

	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr((char *)(g + 1), CTRL_ATTR_FAMILY_NAME, INDIGO_GENL_NAME,
		 sizeof(INDIGO_GENL_NAME));
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN +
		       NLA_ALIGN(NLA_HDRLEN + sizeof(INDIGO_GENL_NAME));
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	if (send(fd, msg, h->nlmsg_len, 0) < 0)
		return -1;
	n = recv(fd, buf, sizeof(buf), 0);
	h = (struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_HDRLEN || h->nlmsg_type == NLMSG_ERROR)
		return -1;
	rem = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	for (a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	     rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			id = *(uint16_t *)((char *)a + NLA_HDRLEN);
		if (a->nla_type == CTRL_ATTR_MCAST_GROUPS && mcgrp) {
			/* first group, first nest: its CTRL_ATTR_MCAST_GRP_ID */
			struct nlattr *grp = (struct nlattr *)((char *)a + NLA_HDRLEN);
			struct nlattr *in = (struct nlattr *)((char *)grp + NLA_HDRLEN);
			int r = grp->nla_len - NLA_HDRLEN;

			for (; r >= NLA_HDRLEN && in->nla_len >= NLA_HDRLEN;
			     r -= NLA_ALIGN(in->nla_len),
			     in = (struct nlattr *)((char *)in + NLA_ALIGN(in->nla_len)))
				if (in->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					*mcgrp = *(uint32_t *)((char *)in + NLA_HDRLEN);
		}
	}
	return id;
}

/* A request for @cmd with one attribute; returns its errno. */
static int one_attr(int fd, int fam, uint8_t cmd, uint16_t type,
		    const void *v, uint16_t len)
{
	char msg[256] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct genlmsghdr *g = NLMSG_DATA(h);

	g->cmd = cmd;
	g->version = INDIGO_GENL_VERSION;
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	/* type 0: no attribute at all */
	if (type) {
		put_attr((char *)(g + 1), type, v, len);
		h->nlmsg_len += NLA_ALIGN(NLA_HDRLEN + len);
	}
	h->nlmsg_type = fam;
	h->nlmsg_flags = NLM_F_REQUEST;
	return transact(fd, msg, h->nlmsg_len, 2000);
}

static int fuzz(int fd, int fam, long n, unsigned int seed)
{
	long i, answered = 0, timeouts = 0;
	char msg[1024];

	srandom(seed);
	for (i = 0; i < n; i++) {
		struct nlmsghdr *h = (struct nlmsghdr *)msg;
		struct genlmsghdr *g = NLMSG_DATA(h);
		size_t len = NLMSG_HDRLEN + GENL_HDRLEN, j;
		int nattr = random() % 6, k, err;

		for (j = 0; j < sizeof(msg); j++)
			msg[j] = (char)random();
		g->cmd = random() % (INDIGO_CMD_MAX + 3);
		g->version = random() % 4 ? INDIGO_GENL_VERSION : random();
		g->reserved = random() % 8 ? 0 : random();
		for (k = 0; k < nattr && len < sizeof(msg) - 80; k++) {
			struct nlattr *a = (struct nlattr *)(msg + len);
			uint16_t plen = random() % 24;

			a->nla_type = random() % (INDIGO_A_MAX + 4);
			if (random() % 4 == 0)
				a->nla_type |= NLA_F_NESTED;
			a->nla_len = NLA_HDRLEN + plen;
			/* sometimes lie about the length */
			if (random() % 8 == 0)
				a->nla_len = random() % 200;
			len += NLA_ALIGN(NLA_HDRLEN + plen);
		}
		h->nlmsg_len = len;
		if (random() % 10 == 0)
			h->nlmsg_len = random() % (len + 16);
		h->nlmsg_type = random() % 16 ? fam : random() % 64;
		h->nlmsg_flags = NLM_F_REQUEST | (random() % 4 ? 0 : NLM_F_ACK);
		h->nlmsg_seq = i;
		/* malformed ones may rightly get no answer at all */
		err = transact(fd, msg, len, 0);
		if (err == ETIMEDOUT)
			timeouts++;
		else
			answered++;
		/* drop whatever else came (acks after replies) */
		while (recv(fd, msg, sizeof(msg), MSG_DONTWAIT) > 0)
			;
	}
	printf("nlfuzz sent=%ld answered=%ld unanswered=%ld\n", n, answered,
	       timeouts);
	return 0;
}

static int expect(const char *what, int got, int want)
{
	if (got == want) {
		printf("nlfuzz ok %s: %s\n", what, want ? strerror(want) : "accepted");
		return 0;
	}
	printf("nlfuzz FAIL %s: got %s, want %s\n", what,
	       got ? strerror(got) : "success", want ? strerror(want) : "success");
	return 1;
}

/* Requests the module must refuse, each with the errno it must give. */
static int invalid(int fd, int fam)
{
	static const uint8_t mode = INDIGO_MODE_MAX + 1;
	static const uint32_t zero, big = 100000001, one = 1;
	static const uint32_t tol_big = 1001, gap_big = 86400001;
	static const uint64_t gen64 = 1;
	static const struct {
		const char *what;
		uint8_t cmd;
		uint16_t type, len;
		const void *v;
		int err;
	} cases[] = {
		{ "mode out of range", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_MODE, 1, &mode, ERANGE },
		{ "burst_tol 0", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_BURST_TOL, 4, &zero, ERANGE },
		{ "rate_cap too big", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_RATE_CAP, 4, &big, ERANGE },
		/* the other bounds include/uapi/linux/indigo.h states */
		{ "burst_tol too big", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_BURST_TOL, 4, &tol_big, ERANGE },
		{ "burst_gap 0", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_BURST_GAP, 4, &zero, ERANGE },
		{ "burst_gap too big", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_BURST_GAP, 4, &gap_big, ERANGE },
		{ "u32 attribute too short", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_RATE_MIN, 2, &one, EINVAL },
		{ "read-only attribute", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_POLICY_GEN, 8, &gen64, EINVAL },
		{ "unknown attribute", INDIGO_CMD_SET_POLICY,
		  INDIGO_A_MAX + 1, 4, &one, EINVAL },
		{ "no attribute", INDIGO_CMD_SET_POLICY, 0, 0, NULL, EINVAL },
		{ "unknown command", INDIGO_CMD_MAX + 1,
		  INDIGO_A_POLICY_RATE_MIN, 4, &one, EOPNOTSUPP },
	};
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad += expect(cases[i].what,
			      one_attr(fd, fam, cases[i].cmd, cases[i].type,
				       cases[i].v, cases[i].len),
			      cases[i].err);
	return bad ? 1 : 0;
}

static int unpriv(int fd, int fam, uint32_t grp)
{
	uint8_t mode = INDIGO_MODE_DENY;
	int bad = 0, err;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("nlfuzz: drop privileges");
		return 1;
	}
	bad += expect("unprivileged set",
		      one_attr(fd, fam, INDIGO_CMD_SET_POLICY,
			       INDIGO_A_POLICY_MODE, &mode, 1), EPERM);
	bad += expect("unprivileged get",
		      one_attr(fd, fam, INDIGO_CMD_GET_POLICY, 0, NULL, 0), 0);
	err = setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
			 sizeof(grp)) ? errno : 0;
	bad += expect("unprivileged telemetry join", err, EPERM);
	return bad ? 1 : 0;
}

/* Sends one telemetry message to multicast group @grp, as the module would. */
static int to_group(int fd, uint32_t grp, const void *msg, size_t len)
{
	/* sendto() names groups by bitmask: only the first 32 */
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = 1U << (grp - 1),
	};

	if (sendto(fd, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("nlfuzz: sendto the telemetry group");
		return 1;
	}
	return 0;
}

/*
 * No NLM_F_REQUEST: the kernel's copy (sendmsg also unicasts to port 0) is
 * not processed. Each message breaks the uAPI differently.
 */
static int spoof(int fd, int fam, uint32_t grp)
{
	uint64_t seq = 1;
	uint32_t node = 1;
	uint16_t short_seq = 1;
	char msg[256];
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct genlmsghdr *g = NLMSG_DATA(h);
	char *p = (char *)(g + 1);
	struct nlattr *cands, *cand;
	int bad = 0;

	if (grp < 1 || grp > 32) {
		fprintf(stderr, "nlfuzz: telemetry group %u cannot be sent to\n", grp);
		return 1;
	}
	/* an epoch without its sequence number and nodes */
	memset(msg, 0, sizeof(msg));
	h->nlmsg_type = fam;
	g->cmd = INDIGO_CMD_EPOCH;
	g->version = INDIGO_GENL_VERSION;
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	bad += to_group(fd, grp, msg, h->nlmsg_len);
	/* a sequence number two bytes long: the attribute policy refuses it */
	put_attr(p, INDIGO_A_EPOCH_SEQ, &short_seq, sizeof(short_seq));
	h->nlmsg_len += NLA_ALIGN(NLA_HDRLEN + sizeof(short_seq));
	bad += to_group(fd, grp, msg, h->nlmsg_len);
	/* a candidate without its pid and address */
	g->cmd = INDIGO_CMD_CANDIDATES;
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	put_attr(p, INDIGO_A_EPOCH_SEQ, &seq, sizeof(seq));
	p += NLA_ALIGN(NLA_HDRLEN + sizeof(seq));
	cands = put_attr(p, INDIGO_A_CANDS | NLA_F_NESTED, NULL, 0);
	cand = put_attr(p + NLA_HDRLEN, INDIGO_A_CAND | NLA_F_NESTED, NULL, 0);
	put_attr((char *)cand + NLA_HDRLEN, INDIGO_CAND_A_NODE, &node,
		 sizeof(node));
	cand->nla_len = NLA_HDRLEN + NLA_HDRLEN + sizeof(node);
	cands->nla_len = NLA_HDRLEN + cand->nla_len;
	h->nlmsg_len += NLA_ALIGN(NLA_HDRLEN + sizeof(seq)) + cands->nla_len;
	bad += to_group(fd, grp, msg, h->nlmsg_len);
	printf("nlfuzz spoofed 3 malformed telemetry messages to group %u\n", grp);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint32_t grp = 0;
	int fd = sock_open();
	int fam = family_id(fd, &grp);

	if (fam < 0) {
		fprintf(stderr, "nlfuzz: family %s not found\n", INDIGO_GENL_NAME);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(fd, fam, atol(argv[2]), (unsigned int)atol(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "invalid"))
		return invalid(fd, fam);
	if (argc == 2 && !strcmp(argv[1], "unpriv"))
		return unpriv(fd, fam, grp);
	if (argc == 2 && !strcmp(argv[1], "spoof"))
		return spoof(fd, fam, grp);
	fprintf(stderr, "usage: nlfuzz fuzz N SEED | invalid | unpriv | spoof\n");
	return 2;
}
