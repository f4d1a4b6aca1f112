// SPDX-License-Identifier: GPL-2.0
/* Alike BTF layouts: see ns_layout.h. */
#include <string.h>

#include "ns_layout.h"

/* deeper than any map value here: a cycle (through pointers) stops here */
#define LAYOUT_DEPTH_MAX	8

static bool same_str(const struct btf *a, __u32 a_off, const struct btf *b,
		     __u32 b_off)
{
	const char *x = btf__str_by_offset(a, a_off);
	const char *y = btf__str_by_offset(b, b_off);

	return x && y && !strcmp(x, y);
}

static bool same(const struct btf *a, __u32 a_id, const struct btf *b,
		 __u32 b_id, int depth)
{
	const struct btf_type *x, *y;
	__u16 i, n;

	if (depth > LAYOUT_DEPTH_MAX)
		return false;
	a_id = btf__resolve_type(a, a_id);
	b_id = btf__resolve_type(b, b_id);
	if ((int)a_id < 0 || (int)b_id < 0)
		return false;
	x = btf__type_by_id(a, a_id);
	y = btf__type_by_id(b, b_id);
	if (!x || !y || btf_kind(x) != btf_kind(y) || btf_vlen(x) != btf_vlen(y))
		return false;
	switch (btf_kind(x)) {
	case BTF_KIND_INT:
		return x->size == y->size && *(const __u32 *)(x + 1) ==
					     *(const __u32 *)(y + 1);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		return x->size == y->size;
	case BTF_KIND_PTR:
		return true;	/* a pointer's size is the machine's */
	case BTF_KIND_ARRAY:
		return btf_array(x)->nelems == btf_array(y)->nelems &&
		       same(a, btf_array(x)->type, b, btf_array(y)->type,
			    depth + 1);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (x->size != y->size)
			return false;
		n = btf_vlen(x);
		for (i = 0; i < n; i++) {
			const struct btf_member *mx = btf_members(x) + i;
			const struct btf_member *my = btf_members(y) + i;

			if (!same_str(a, mx->name_off, b, my->name_off) ||
			    btf_member_bit_offset(x, i) !=
			    btf_member_bit_offset(y, i) ||
			    btf_member_bitfield_size(x, i) !=
			    btf_member_bitfield_size(y, i) ||
			    !same(a, mx->type, b, my->type, depth + 1))
				return false;
		}
		return true;
	default:
		return false;
	}
}

bool ns_btf_same_layout(const struct btf *a, __u32 a_id, const struct btf *b,
			__u32 b_id)
{
	return same(a, a_id, b, b_id, 0);
}

bool ns_map_same_btf(const struct bpf_map_info *info,
		     const struct bpf_object *obj, const char *name)
{
	const struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
	const struct btf *mine = bpf_object__btf(obj);
	struct btf *theirs;
	bool same;

	if (!map)
		return false;
	if (!info->btf_id || !mine || !bpf_map__btf_value_type_id(map))
		return true;
	theirs = btf__load_from_kernel_by_id(info->btf_id);
	if (!theirs)
		return false;
	same = ns_btf_same_layout(theirs, info->btf_value_type_id, mine,
				  bpf_map__btf_value_type_id(map)) &&
	       (!info->btf_key_type_id || !bpf_map__btf_key_type_id(map) ||
		ns_btf_same_layout(theirs, info->btf_key_type_id, mine,
				   bpf_map__btf_key_type_id(map)));
	btf__free(theirs);
	return same;
}
