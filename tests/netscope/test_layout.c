// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: agent/netscope/ns_layout.c, on BTF built here as two builds'
 * objects would carry it: a pinned map is reused only by a build that lays
 * its values out alike, not by one whose layout merely has the same size.
 */
#include "check_main.h"
#include "ns_layout.h"

/* struct v { __u64 a; __u32 b[2]; __u32 c; __u32 d; }, as @names says */
static struct btf *build(const char *const names[4], int b_count, int c_bits)
{
	struct btf *btf = btf__new_empty();
	int u32, u64, arr, s;

	ck_assert_ptr_nonnull(btf);
	u32 = btf__add_int(btf, "__u32", 4, 0);
	u64 = btf__add_int(btf, "__u64", 8, 0);
	arr = btf__add_array(btf, u32, u32, b_count);
	ck_assert_int_gt(btf__add_typedef(btf, "u64_t", u64), 0);
	s = btf__add_struct(btf, "v", 24);
	ck_assert_int_gt(s, 0);
	ck_assert_int_eq(btf__add_field(btf, names[0], u64, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, names[1], arr, 64, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, names[2], u32, 64 + 32 * b_count,
					c_bits), 0);
	ck_assert_int_eq(btf__add_field(btf, names[3], u32, 160, 0), 0);
	return btf;
}

static int struct_id(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "v", BTF_KIND_STRUCT);

	ck_assert_int_gt(id, 0);
	return id;
}

static const char *const abcd[4] = { "a", "b", "c", "d" };

START_TEST(same_build_is_alike)
{
	struct btf *x = build(abcd, 2, 0), *y = build(abcd, 2, 0);

	ck_assert(ns_btf_same_layout(x, struct_id(x), y, struct_id(y)));
	btf__free(x);
	btf__free(y);
}
END_TEST

/* 24 bytes either way: a size check takes each for the other */
START_TEST(renamed_or_reshaped_fields_of_one_size_differ)
{
	static const char *const swapped[4] = { "a", "b", "d", "c" };
	struct btf *x = build(abcd, 2, 0), *y = build(swapped, 2, 0);
	struct btf *bits = build(abcd, 2, 16);

	ck_assert(!ns_btf_same_layout(x, struct_id(x), y, struct_id(y)));
	ck_assert(!ns_btf_same_layout(x, struct_id(x), bits, struct_id(bits)));
	btf__free(x);
	btf__free(y);
	btf__free(bits);
}
END_TEST

START_TEST(an_array_of_another_count_differs)
{
	struct btf *x = build(abcd, 2, 0), *y = build(abcd, 1, 0);

	ck_assert(!ns_btf_same_layout(x, struct_id(x), y, struct_id(y)));
	btf__free(x);
	btf__free(y);
}
END_TEST

/* a typedef is seen through; an integer of another width is not alike */
START_TEST(typedefs_are_seen_through)
{
	struct btf *x = build(abcd, 2, 0);
	int u64 = btf__find_by_name_kind(x, "__u64", BTF_KIND_INT);
	int td = btf__find_by_name_kind(x, "u64_t", BTF_KIND_TYPEDEF);
	int u32 = btf__find_by_name_kind(x, "__u32", BTF_KIND_INT);

	ck_assert(ns_btf_same_layout(x, td, x, u64));
	ck_assert(!ns_btf_same_layout(x, u32, x, u64));
	ck_assert(!ns_btf_same_layout(x, 9999, x, u64));
	btf__free(x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ns_layout");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, same_build_is_alike);
	tcase_add_test(tc, renamed_or_reshaped_fields_of_one_size_differ);
	tcase_add_test(tc, an_array_of_another_count_differs);
	tcase_add_test(tc, typedefs_are_seen_through);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
