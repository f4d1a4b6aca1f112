// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what indigod parses from indigo.ko's telemetry (an
 * epoch or a batch of candidates, modlink_dispatch) and the "key=value"
 * policy settings indigoctl takes (modlink_policy_parse). The kernel is
 * trusted no more than any peer: a malformed message is refused, never a
 * crash. The first byte picks the target.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/msg.h>

#include "modlink.h"

struct seen {
	unsigned int calls;
	u64 sum;
};

static void on_epoch(const struct modlink_epoch *e, void *arg)
{
	struct seen *s = arg;

	if (e->nnodes > MODLINK_MAX_NODES)
		abort();
	s->calls++;
}

static void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg)
{
	struct seen *s = arg;
	u32 i;

	if (n > MODLINK_MAX_CANDS)
		abort();
	/* every candidate handed over must be readable (ASan checks) */
	for (i = 0; i < n; i++)
		s->sum += seq + c[i].addr + c[i].rate;
	s->calls++;
}

/*
 * An accepted number is what it reads as in decimal: digits only, so that
 * " -1" does not become 2^64 - 1 by strtoull's negation.
 */
static void check_policy(const struct modlink_policy_req *req, const char *kv)
{
	const char *v = strchr(kv, '=') + 1, *p;
	unsigned long long want = 0;
	u64 got;

	if (req->set == 1U << INDIGO_A_POLICY_MODE)
		return;
	for (p = v; *p; p++) {
		if (!isdigit((unsigned char)*p))
			abort();
		want = want * 10 + (unsigned long long)(*p - '0');
	}
	if (p == v)
		abort();
	switch (req->set) {
	case 1U << INDIGO_A_POLICY_RATE_MIN:
		got = req->p.rate_min;
		break;
	case 1U << INDIGO_A_POLICY_BURST_MIN:
		got = req->p.burst_min;
		break;
	case 1U << INDIGO_A_POLICY_FREE_MIN:
		got = req->p.free_min;
		break;
	case 1U << INDIGO_A_POLICY_RATE_CAP:
		got = req->p.rate_cap;
		break;
	case 1U << INDIGO_A_POLICY_BURST_TOL:
		got = req->p.burst_tol;
		break;
	case 1U << INDIGO_A_POLICY_BURST_GAP:
		got = req->p.burst_gap;
		break;
	default:
		abort();	/* one setting sets one bit */
	}
	if (got != want)
		abort();
}

static void policy(const uint8_t *data, size_t size)
{
	struct modlink_policy_req req;
	char *kv = malloc(size + 1);

	if (!kv)
		return;
	memcpy(kv, data, size);
	kv[size] = '\0';
	memset(&req, 0, sizeof(req));
	if (!modlink_policy_parse(&req, kv))
		check_policy(&req, kv);
	free(kv);
}

static void event(const uint8_t *data, size_t size)
{
	struct seen seen = { 0 };
	const struct modlink_events ev = {
		.epoch = on_epoch, .cands = on_cands, .arg = &seen,
	};
	struct nlmsghdr *h;
	struct nl_msg *msg;

	if (size < NLMSG_HDRLEN)
		return;
	h = calloc(1, NLMSG_ALIGN(size));
	if (!h)
		return;
	memcpy(h, data, size);
	/* the socket layer hands over whole messages */
	h->nlmsg_len = size;
	msg = nlmsg_convert(h);
	if (msg) {
		modlink_dispatch(msg, &ev);
		nlmsg_free(msg);
	}
	free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		policy(data + 1, size - 1);
	else
		event(data + 1, size - 1);
	return 0;
}
