// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what indigod parses from indigo.ko's telemetry (an
 * epoch or a batch of candidates, modlink_dispatch) and the "key=value"
 * policy settings indigoctl takes (modlink_policy_parse). The kernel is
 * trusted no more than any peer: a malformed message is refused, never a
 * crash. The first byte picks the target.
 */
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

static void policy(const uint8_t *data, size_t size)
{
	struct modlink_policy_req req;
	char *kv = malloc(size + 1);

	if (!kv)
		return;
	memcpy(kv, data, size);
	kv[size] = '\0';
	memset(&req, 0, sizeof(req));
	modlink_policy_parse(&req, kv);
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
