/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether two BTF types lay memory out alike: what a map pinned by another
 * build must match before this build reads and writes its values. Sizes
 * alone let a build that renamed, moved or retyped fields of the same total
 * size take the old values for its own.
 */
#ifndef INDIGO_NS_LAYOUT_H
#define INDIGO_NS_LAYOUT_H

#include <stdbool.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

/*
 * @a_id in @a and @b_id in @b, typedefs and qualifiers seen through: the
 * same kind and size, and for a struct or union the same members (names,
 * offsets, bitfield sizes) of alike types, for an array the same count of
 * alike elements, for an integer the same encoding. Names of the types
 * themselves do not count; those of members do.
 */
bool ns_btf_same_layout(const struct btf *a, __u32 a_id, const struct btf *b,
			__u32 b_id);

/*
 * Whether the pinned map of @info lays its key and value out as the map
 * @name of @obj (this build's object, opened; loading is not needed) does:
 * by their BTF, the pinned map's read from the kernel by its btf_id. True
 * where either has none (sizes alone decide then); false where @obj has no
 * such map or the pinned map's BTF cannot be read. Both the loader (before
 * it reuses a pin) and ns_maps_open() ask this.
 */
bool ns_map_same_btf(const struct bpf_map_info *info,
		     const struct bpf_object *obj, const char *name);

#endif /* INDIGO_NS_LAYOUT_H */
