// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/modlink.c's telemetry parsing (modlink_dispatch): epochs
 * built as the module builds them, and as an older module did.
 */
#include "check_main.h"
#include <stdint.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../agent/modlink.c"

/*
 * An epoch message with one far node whose ALLOWED_PAGES is @pages, put
 * as @width bytes (8, as the module does; 2, malformed; 0, left out as an
 * older module did).
 */
static struct nl_msg *epoch_msg(u64 allowed, u64 pages, int width)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *nodes, *node;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(genlmsg_put(m, 0, 0, 1, 0, 0, INDIGO_CMD_EPOCH,
					  INDIGO_GENL_VERSION));
	ck_assert_int_eq(nla_put_u64(m, INDIGO_A_EPOCH_SEQ, 7), 0);
	ck_assert_int_eq(nla_put_u32(m, INDIGO_A_EPOCH_MS, 1000), 0);
	nodes = nla_nest_start(m, INDIGO_A_NODES);
	node = nla_nest_start(m, INDIGO_A_NODE);
	ck_assert_int_eq(nla_put_u32(m, INDIGO_NODE_A_ID, 1), 0);
	ck_assert_int_eq(nla_put_u64(m, INDIGO_NODE_A_FAULTS, 100), 0);
	ck_assert_int_eq(nla_put_u64(m, INDIGO_NODE_A_ALLOWED, allowed), 0);
	if (width == 8)
		ck_assert_int_eq(nla_put_u64(m, INDIGO_NODE_A_ALLOWED_PAGES,
					     pages), 0);
	else if (width == 2)
		ck_assert_int_eq(nla_put_u16(m, INDIGO_NODE_A_ALLOWED_PAGES,
					     (u16)pages), 0);
	nla_nest_end(m, node);
	nla_nest_end(m, nodes);
	return m;
}

struct got {
	int calls;
	struct modlink_node node;
};

static void on_epoch(const struct modlink_epoch *e, void *arg)
{
	struct got *g = arg;

	ck_assert_uint_eq(e->seq, 7);
	ck_assert_uint_eq(e->nnodes, 1);
	g->calls++;
	g->node = e->node[0];
}

START_TEST(allowed_pages)
{
	struct got g = { 0 };
	struct modlink_events ev = { .epoch = on_epoch, .arg = &g };
	struct nl_msg *m = epoch_msg(40, 39 + 512, 8);

	ck_assert_int_eq(modlink_dispatch(m, &ev), 1);
	ck_assert_int_eq(g.calls, 1);
	ck_assert_uint_eq(g.node.faults, 100);
	ck_assert_uint_eq(g.node.allowed, 40);
	ck_assert_uint_eq(g.node.allowed_pages, 39 + 512);
	nlmsg_free(m);

	/* a module from before the count: a page a promotion */
	m = epoch_msg(40, 0, 0);
	ck_assert_int_eq(modlink_dispatch(m, &ev), 1);
	ck_assert_int_eq(g.calls, 2);
	ck_assert_uint_eq(g.node.allowed_pages, 40);
	nlmsg_free(m);
}
END_TEST

/* the attribute of the wrong size: the message is refused, not read */
START_TEST(allowed_pages_malformed)
{
	struct got g = { 0 };
	struct modlink_events ev = { .epoch = on_epoch, .arg = &g };
	struct nl_msg *m = epoch_msg(40, 5, 2);

	ck_assert_int_eq(modlink_dispatch(m, &ev), -EBADMSG);
	ck_assert_int_eq(g.calls, 0);
	nlmsg_free(m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("modlink");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, allowed_pages);
	tcase_add_test(tc, allowed_pages_malformed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
