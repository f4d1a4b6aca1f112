// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO core: the bounded per-page table. Pure C, see core.h.
 */
#include "core.h"

u32 indigo_table_size(u32 want)
{
	u32 size = INDIGO_TABLE_PROBE;

	while (size <= want / 2)
		size <<= 1;
	return size;
}

void indigo_table_init(struct indigo_table *t, struct indigo_page *slots,
		       u32 size)
{
	t->slots = slots;
	t->size = size;
	t->used = 0;
	memset(slots, 0, (size_t)size * sizeof(*slots));
}

struct indigo_page *indigo_table_get(struct indigo_table *t, u64 pfn, u32 tag,
				     int *evicted_node)
{
	u64 key = (pfn + 1) | (u64)tag << INDIGO_KEY_PFN_BITS;
	u32 mask = t->size - 1;
	u32 home = indigo_table_hash(pfn) & mask;
	struct indigo_page *victim = NULL, *free = NULL, *pg;
	u32 i;

	*evicted_node = -1;
	for (i = 0; i < INDIGO_TABLE_PROBE; i++) {
		pg = &t->slots[(home + i) & mask];
		if ((pg->key & INDIGO_KEY_PFN_MASK) == pfn + 1) {
			if (pg->key == key)
				return pg;
			goto anew;	/* a page there before, since freed */
		}
		if (!pg->key) {
			if (!free)
				free = pg;
			continue;
		}
		if (!victim || pg->last_ns < victim->last_ns)
			victim = pg;
	}
	if (free) {
		t->used++;
		pg = free;
	} else {
		*evicted_node = victim->node;
		pg = victim;
	}
anew:
	memset(pg, 0, sizeof(*pg));
	pg->key = key;
	return pg;
}

u32 indigo_table_drop_node(struct indigo_table *t, u16 node)
{
	u32 i, n = 0;

	/* lookups search their whole window, so a freed slot breaks no chain */
	for (i = 0; i < t->size; i++) {
		if (!t->slots[i].key || t->slots[i].node != node)
			continue;
		memset(&t->slots[i], 0, sizeof(t->slots[i]));
		n++;
	}
	t->used -= n;
	return n;
}
