// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the bounded page table (indigo_table_size, indigo_table_init,
 * indigo_table_get). Where the probe window matters, the tests assume the
 * linear probing of table.c: pfn's window is the INDIGO_TABLE_PROBE slots
 * from indigo_table_hash(pfn) & (size - 1) on.
 */
#include "unit.h"
#include <stdint.h>

#define GUARD	16			/* slots of poison on either side */

/* A table whose slots sit between two guard zones of poison. */
struct fixture {
	struct indigo_table t;
	struct indigo_page *mem;	/* GUARD + size + GUARD */
};

static void fixture_init(struct fixture *f, u32 size)
{
	f->mem = malloc((size + 2 * GUARD) * sizeof(*f->mem));
	ck_assert_ptr_nonnull(f->mem);
	memset(f->mem, 0x5a, (size + 2 * GUARD) * sizeof(*f->mem));
	indigo_table_init(&f->t, f->mem + GUARD, size);
}

static void fixture_fini(struct fixture *f)
{
	static const unsigned char poison[sizeof(struct indigo_page)] = {
		[0 ... sizeof(struct indigo_page) - 1] = 0x5a,
	};
	u32 i;

	for (i = 0; i < GUARD; i++) {
		ck_assert_mem_eq(&f->mem[i], poison, sizeof(poison));
		ck_assert_mem_eq(&f->mem[GUARD + f->t.size + i], poison,
				 sizeof(poison));
	}
	free(f->mem);
}

/* Index of @pg in @t's slots; fails unless it is one of them. */
static u32 slot_of(const struct indigo_table *t, const struct indigo_page *pg)
{
	uintptr_t base = (uintptr_t)t->slots, p = (uintptr_t)pg;

	ck_assert_uint_ge(p, base);
	ck_assert_uint_lt(p, base + (uintptr_t)t->size * sizeof(*pg));
	ck_assert_uint_eq((p - base) % sizeof(*pg), 0);
	return (u32)((p - base) / sizeof(*pg));
}

static u32 home_of(const struct indigo_table *t, u64 pfn)
{
	return indigo_table_hash(pfn) & (t->size - 1);
}

/* The @n-th pfn from @from on whose home slot is @home. */
static u64 pfn_at_home(const struct indigo_table *t, u32 home, u64 from, int n)
{
	u64 pfn;

	for (pfn = from;; pfn++)
		if (home_of(t, pfn) == home && n-- == 0)
			return pfn;
}

/* @pg a new record of @pfn, of whichever page (tag) */
static void assert_fresh(const struct indigo_page *pg, u64 pfn)
{
	ck_assert_uint_eq(pg->key & INDIGO_KEY_PFN_MASK, pfn + 1);
	ck_assert_uint_eq(pg->last_ns, 0);
	ck_assert_uint_eq(pg->burst_start_ns, 0);
	ck_assert_uint_eq(pg->rate, 0);
	ck_assert_uint_eq(pg->nobs, 0);
	ck_assert_uint_eq(pg->node, 0);
}

START_TEST(size_rounds_down)
{
	static const struct {
		u32 want, size;
	} c[] = {
		{ 0, 8 }, { 1, 8 }, { 7, 8 }, { 8, 8 }, { 9, 8 }, { 15, 8 },
		{ 16, 16 }, { 17, 16 }, { 1000, 512 }, { 1023, 512 },
		{ 1024, 1024 }, { 1025, 1024 }, { 65536, 65536 },
		{ 0x7fffffff, 0x40000000 }, { 0x80000000, 0x80000000 },
		{ 0xffffffff, 0x80000000 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		ck_assert_msg(indigo_table_size(c[i].want) == c[i].size,
			      "size(%u) = %u, want %u", c[i].want,
			      indigo_table_size(c[i].want), c[i].size);
}
END_TEST

START_TEST(size_properties)
{
	u32 want = 1;
	int i;

	/* checked by hand: ck_assert per call is slow under valgrind */
	for (i = 0; i < 100000; i++) {
		u32 s = indigo_table_size(want);

		if (s & (s - 1) || s < INDIGO_TABLE_PROBE ||
		    (want >= INDIGO_TABLE_PROBE &&
		     (s > want || 2ULL * s <= want)))
			ck_abort_msg("size(%u) = %u", want, s);
		want = want * 1664525 + 1013904223;
	}
}
END_TEST

START_TEST(init_zeroes)
{
	struct fixture f;
	u32 i;

	fixture_init(&f, 64);
	ck_assert_ptr_eq(f.t.slots, f.mem + GUARD);
	ck_assert_uint_eq(f.t.size, 64);
	ck_assert_uint_eq(f.t.used, 0);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(f.t.slots[i].key, 0);
	fixture_fini(&f);
}
END_TEST

START_TEST(get_same_record)
{
	struct fixture f;
	struct indigo_page *a, *b;
	int ev = 123;

	fixture_init(&f, 64);
	a = indigo_table_get(&f.t, 42, 0, &ev);
	ck_assert_int_eq(ev, -1);
	assert_fresh(a, 42);
	ck_assert_uint_eq(f.t.used, 1);
	a->rate = 777;
	a->nobs = 3;
	a->last_ns = 99;
	a->node = 2;

	ev = 123;
	b = indigo_table_get(&f.t, 42, 0, &ev);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(ev, -1);
	ck_assert_uint_eq(b->rate, 777);
	ck_assert_uint_eq(b->nobs, 3);
	ck_assert_uint_eq(b->last_ns, 99);
	ck_assert_uint_eq(f.t.used, 1);

	/* pfn 0 (key 1) and the largest pfn are ordinary keys */
	b = indigo_table_get(&f.t, 0, 0, &ev);
	assert_fresh(b, 0);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(indigo_table_get(&f.t, 0, 0, &ev), b);
	b = indigo_table_get(&f.t, INDIGO_PFN_MAX, 0, &ev);
	assert_fresh(b, INDIGO_PFN_MAX);
	ck_assert_ptr_eq(indigo_table_get(&f.t, INDIGO_PFN_MAX, 0, &ev), b);
	ck_assert_uint_eq(f.t.used, 3);
	fixture_fini(&f);
}
END_TEST

/*
 * A pfn whose page was freed and taken by another page (another tag): the
 * record starts anew in its slot, neither lending the old page's last fault
 * and burst to the new one nor taking a second slot.
 */
START_TEST(reused_pfn_starts_anew)
{
	struct indigo_page *a, *b;
	struct fixture f;
	int ev;

	fixture_init(&f, 64);
	a = indigo_table_get(&f.t, 42, 7, &ev);
	a->last_ns = 99;
	a->burst_start_ns = 50;
	a->rate = 777;
	a->nobs = 3;
	a->node = 2;
	ck_assert_ptr_eq(indigo_table_get(&f.t, 42, 7, &ev), a);
	ck_assert_uint_eq(a->nobs, 3);
	/* the tag's bits past INDIGO_KEY_TAG_BITS are not kept */
	ck_assert_ptr_eq(indigo_table_get(&f.t, 42, 7 | 1U << INDIGO_KEY_TAG_BITS,
					  &ev), a);
	ck_assert_uint_eq(a->nobs, 3);
	b = indigo_table_get(&f.t, 42, 8, &ev);
	ck_assert_ptr_eq(b, a);
	ck_assert_int_eq(ev, -1);
	assert_fresh(b, 42);
	ck_assert_uint_eq(f.t.used, 1);
	/* other pfns keep their records whatever the tags */
	b = indigo_table_get(&f.t, 43, 8, &ev);
	b->nobs = 5;
	ck_assert_ptr_eq(indigo_table_get(&f.t, 43, 8, &ev), b);
	ck_assert_uint_eq(b->nobs, 5);
	ck_assert_uint_eq(f.t.used, 2);
	fixture_fini(&f);
}
END_TEST

/* With size == PROBE every window is the whole table: plain LRU. */
START_TEST(small_table_evicts_oldest)
{
	struct indigo_page *pg[8], *p;
	struct fixture f;
	int i, ev;

	fixture_init(&f, 8);
	for (i = 0; i < 8; i++) {
		pg[i] = indigo_table_get(&f.t, 100 + i, 0, &ev);
		ck_assert_int_eq(ev, -1);
		ck_assert_uint_eq(f.t.used, i + 1);
		pg[i]->last_ns = 1000 + i * 10;
		pg[i]->node = i;
	}
	for (i = 0; i < 8; i++)
		ck_assert_ptr_eq(indigo_table_get(&f.t, 100 + i, 0, &ev), pg[i]);
	pg[3]->last_ns = 5;

	/* full: the stalest (103) goes, and its node is reported */
	p = indigo_table_get(&f.t, 200, 0, &ev);
	ck_assert_int_eq(ev, 3);
	ck_assert_ptr_eq(p, pg[3]);
	assert_fresh(p, 200);
	ck_assert_uint_eq(f.t.used, 8);
	p->last_ns = 2000;
	p->node = 7;

	/* 103 is new again, and pushes out 100, whose node 0 is not -1 */
	p = indigo_table_get(&f.t, 103, 0, &ev);
	ck_assert_int_eq(ev, 0);
	ck_assert_ptr_eq(p, pg[0]);
	assert_fresh(p, 103);
	p->last_ns = 2001;

	/* then 101 (1010) */
	p = indigo_table_get(&f.t, 300, 0, &ev);
	ck_assert_int_eq(ev, 1);
	ck_assert_ptr_eq(p, pg[1]);
	ck_assert_uint_eq(f.t.used, 8);
	fixture_fini(&f);
}
END_TEST

START_TEST(evicted_node_reset_on_hit)
{
	struct fixture f;
	struct indigo_page *p;
	int i, ev;

	fixture_init(&f, 8);
	for (i = 0; i < 9; i++) {
		p = indigo_table_get(&f.t, i, 0, &ev);
		p->last_ns = i + 1;
		p->node = 5;
	}
	ck_assert_int_eq(ev, 5);
	indigo_table_get(&f.t, 8, 0, &ev);
	ck_assert_int_eq(ev, -1);
	fixture_fini(&f);
}
END_TEST

START_TEST(used_bounded)
{
	struct fixture f;
	struct indigo_page *p;
	u32 i;
	int ev, evictions = 0;

	fixture_init(&f, 8);
	for (i = 0; i < 1000; i++) {
		p = indigo_table_get(&f.t, i * 7919, 0, &ev);
		slot_of(&f.t, p);
		p->last_ns = i + 1;
		ck_assert_uint_eq(f.t.used, i < 8 ? i + 1 : 8);
		evictions += ev >= 0;
	}
	ck_assert_int_eq(evictions, 1000 - 8);
	fixture_fini(&f);
}
END_TEST

/*
 * The stalest record of the window goes, not the stalest of the table: a
 * globally older record elsewhere survives.
 */
START_TEST(eviction_within_window)
{
	struct indigo_page *pg[9], *far;
	struct fixture f;
	u64 pfn[9], far_pfn;
	u32 h;
	int i, ev;

	fixture_init(&f, 64);
	h = 13;
	for (i = 0; i < 9; i++)
		pfn[i] = pfn_at_home(&f.t, h, 1000, i);
	far_pfn = pfn_at_home(&f.t, (h + 32) & 63, 1000, 0);

	far = indigo_table_get(&f.t, far_pfn, 0, &ev);
	far->last_ns = 1;			/* the oldest of all */
	far->node = 9;
	for (i = 0; i < 8; i++) {
		pg[i] = indigo_table_get(&f.t, pfn[i], 0, &ev);
		ck_assert_int_eq(ev, -1);
		pg[i]->last_ns = 100 - i;	/* pfn[7] stalest here */
		pg[i]->node = i;
	}
	ck_assert_uint_eq(f.t.used, 9);

	pg[8] = indigo_table_get(&f.t, pfn[8], 0, &ev);
	ck_assert_int_eq(ev, 7);
	ck_assert_ptr_eq(pg[8], pg[7]);
	assert_fresh(pg[8], pfn[8]);
	ck_assert_uint_eq(f.t.used, 9);
	/* the rest of the window and the far record are all still there */
	for (i = 0; i < 7; i++) {
		ck_assert_ptr_eq(indigo_table_get(&f.t, pfn[i], 0, &ev), pg[i]);
		ck_assert_int_eq(ev, -1);
		ck_assert_uint_eq(pg[i]->last_ns, 100 - i);
	}
	ck_assert_ptr_eq(indigo_table_get(&f.t, far_pfn, 0, &ev), far);
	ck_assert_uint_eq(far->last_ns, 1);
	fixture_fini(&f);
}
END_TEST

/* Colliding homes share slots: a free slot in the window is used first. */
START_TEST(window_takes_free_slot)
{
	struct fixture f;
	struct indigo_page *p;
	int i, ev;

	fixture_init(&f, 64);
	/* slots 24..31 hold pages homed at 24, stalest first */
	for (i = 0; i < 8; i++) {
		p = indigo_table_get(&f.t, pfn_at_home(&f.t, 24, 0, i), 0, &ev);
		ck_assert_uint_eq(slot_of(&f.t, p), 24 + i);
		p->last_ns = 50 + i;
		p->node = 3;
	}
	/* pages homed at 20 fill 20..23 without evicting */
	for (i = 0; i < 4; i++) {
		p = indigo_table_get(&f.t, pfn_at_home(&f.t, 20, 0, i), 0, &ev);
		ck_assert_int_eq(ev, -1);
		ck_assert_uint_eq(slot_of(&f.t, p), 20 + i);
		p->last_ns = 60;
	}
	ck_assert_uint_eq(f.t.used, 12);
	/* 20's window (20..27) is now full: slot 24 is its stalest */
	p = indigo_table_get(&f.t, pfn_at_home(&f.t, 20, 0, 4), 0, &ev);
	ck_assert_int_eq(ev, 3);
	ck_assert_uint_eq(slot_of(&f.t, p), 24);
	ck_assert_uint_eq(f.t.used, 12);
	/* 24's other pages are still where they were */
	for (i = 1; i < 8; i++) {
		p = indigo_table_get(&f.t, pfn_at_home(&f.t, 24, 0, i), 0, &ev);
		ck_assert_int_eq(ev, -1);
		ck_assert_uint_eq(p->last_ns, 50 + i);
	}
	fixture_fini(&f);
}
END_TEST

/*
 * Dropping a node's records frees their slots and keeps the others'
 * records findable, also those past a freed slot in a shared window.
 */
START_TEST(drop_node_keeps_others)
{
	struct indigo_page *pg[8], *p;
	struct fixture f;
	u64 pfn[8];
	int i, ev;

	fixture_init(&f, 64);
	/* slots 24..31 hold pages homed at 24, of nodes 2 and 3 in turn */
	for (i = 0; i < 8; i++) {
		pfn[i] = pfn_at_home(&f.t, 24, 0, i);
		pg[i] = indigo_table_get(&f.t, pfn[i], 0, &ev);
		pg[i]->last_ns = 10 + i;
		pg[i]->node = 2 + i % 2;
	}
	ck_assert_uint_eq(indigo_table_drop_node(&f.t, 2), 4);
	ck_assert_uint_eq(f.t.used, 4);
	ck_assert_uint_eq(indigo_table_drop_node(&f.t, 2), 0);
	for (i = 1; i < 8; i += 2) {
		p = indigo_table_get(&f.t, pfn[i], 0, &ev);
		ck_assert_ptr_eq(p, pg[i]);
		ck_assert_int_eq(ev, -1);
		ck_assert_uint_eq(p->last_ns, 10 + i);
	}
	/* node 2's pages come back as new records, in the freed slots */
	for (i = 0; i < 8; i += 2) {
		p = indigo_table_get(&f.t, pfn[i], 0, &ev);
		ck_assert_int_eq(ev, -1);
		assert_fresh(p, pfn[i]);
		ck_assert_uint_eq(slot_of(&f.t, p), 24 + i);
	}
	ck_assert_uint_eq(f.t.used, 8);
	fixture_fini(&f);
}
END_TEST

/* xorshift64*: fixed seed, same workload on every run. */
static u64 rnd(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

#define W_SIZE		1024
#define W_UNIVERSE	65536
#define W_HOT		700
#define W_STEPS		1000000
#define W_RECENT	(INDIGO_TABLE_PROBE - 1)
#define W_BASE		0x1234500000ULL

static u64 w_pfn(u32 idx)
{
	return W_BASE + (u64)idx * 3;
}

/* Whether @pg is a new record of @pfn: everything but the key zero. */
static bool fresh(const struct indigo_page *pg, u64 pfn)
{
	return pg->key == pfn + 1 && !pg->last_ns && !pg->burst_start_ns &&
	       !pg->rate && !pg->nobs && !pg->node;
}

/*
 * The hot loop checks without ck_assert, which records its location on
 * every success and would make a million steps take a minute.
 */
#define W_CHECK(expr)							\
	do {								\
		if (!(expr))						\
			ck_abort_msg("step %d: %s", step, #expr);	\
	} while (0)

/*
 * A million gets, 3/4 on a hot set, 1/4 spread wide, against a model of
 * what the table should hold: owner[] says which page each slot holds,
 * present[] and last[] what each page should find.
 */
START_TEST(random_workload)
{
	static u32 owner[W_SIZE];		/* idx + 1, 0: free */
	static bool present[W_UNIVERSE];
	static u64 last[W_UNIVERSE];
	u32 recent[W_RECENT] = { 0 };
	u64 seed = 0x9e3779b97f4a7c15ULL, clock = 0;
	long hits = 0, evictions = 0;
	struct fixture f;
	int step, i;

	fixture_init(&f, W_SIZE);
	memset(owner, 0, sizeof(owner));
	memset(present, 0, sizeof(present));
	for (step = 0; step < W_STEPS; step++) {
		u64 r = rnd(&seed);
		u32 idx = (r & 3) ? (r >> 8) % W_HOT : (r >> 8) % W_UNIVERSE;
		u64 pfn = w_pfn(idx);
		u32 used = f.t.used, home = home_of(&f.t, pfn), s, dist, j;
		struct indigo_page *pg;
		int ev = 1234;

		pg = indigo_table_get(&f.t, pfn, 0, &ev);
		/* inside the slots, on a record boundary */
		W_CHECK(pg >= f.t.slots && pg < f.t.slots + W_SIZE);
		s = (u32)(pg - f.t.slots);
		W_CHECK((uintptr_t)pg == (uintptr_t)&f.t.slots[s]);
		dist = (s - home) & (W_SIZE - 1);
		W_CHECK(pg->key == pfn + 1);
		W_CHECK(dist < INDIGO_TABLE_PROBE);

		if (present[idx]) {
			/* the very record we left there */
			W_CHECK(owner[s] == idx + 1);
			W_CHECK(pg->last_ns == last[idx]);
			W_CHECK(pg->node == idx % 4);
			W_CHECK(ev == -1);
			W_CHECK(f.t.used == used);
			hits++;
		} else if (!owner[s]) {
			/* first free slot of the window */
			W_CHECK(fresh(pg, pfn));
			for (j = 0; j < dist; j++)
				W_CHECK(owner[(home + j) % W_SIZE]);
			W_CHECK(ev == -1);
			W_CHECK(f.t.used == used + 1);
		} else {
			/* full window: its stalest record goes */
			u32 victim = owner[s] - 1;

			W_CHECK(fresh(pg, pfn));
			W_CHECK(ev == (int)(victim % 4));
			W_CHECK(f.t.used == used);
			for (j = 0; j < INDIGO_TABLE_PROBE; j++) {
				u32 o = owner[(home + j) % W_SIZE];

				W_CHECK(o);
				W_CHECK(o - 1 == victim || last[o - 1] > last[victim]);
			}
			present[victim] = false;
			evictions++;
		}
		W_CHECK(f.t.used <= W_SIZE);
		owner[s] = idx + 1;
		present[idx] = true;
		last[idx] = ++clock;
		pg->last_ns = clock;
		pg->node = idx % 4;

		/* the PROBE - 1 most recently used pages cannot be evicted */
		for (i = 0; i < W_RECENT - 1 && recent[i] != idx + 1; i++)
			;
		memmove(&recent[1], &recent[0], i * sizeof(recent[0]));
		recent[0] = idx + 1;
		for (i = 0; i < W_RECENT && recent[i]; i++)
			W_CHECK(present[recent[i] - 1]);

		if (step % 4096 == 0) {
			u32 n = 0;

			/* the table agrees with the model slot by slot */
			for (j = 0; j < W_SIZE; j++) {
				u64 want = owner[j] ? w_pfn(owner[j] - 1) + 1 : 0;

				W_CHECK(f.t.slots[j].key == want);
				n += !!owner[j];
			}
			W_CHECK(f.t.used == n);
			/* and finds the recent pages again, untouched */
			for (i = 0; i < W_RECENT && recent[i]; i++) {
				u32 k = recent[i] - 1;

				pg = indigo_table_get(&f.t, w_pfn(k), 0, &ev);
				W_CHECK(ev == -1);
				W_CHECK(pg->last_ns == last[k]);
				W_CHECK(f.t.used == n);
			}
		}
	}
	/* both paths were exercised, and the hot set mostly stayed */
	ck_assert_int_gt(evictions, 100000);
	ck_assert_int_gt(hits, W_STEPS / 2);
	ck_assert_uint_eq(f.t.used, W_SIZE);
	fixture_fini(&f);
}
END_TEST

static Suite *table_suite(void)
{
	Suite *s = suite_create("table");
	TCase *basic = tcase_create("basic");
	TCase *evict = tcase_create("evict");
	TCase *load = tcase_create("load");

	tcase_add_test(basic, size_rounds_down);
	tcase_add_test(basic, size_properties);
	tcase_add_test(basic, init_zeroes);
	tcase_add_test(basic, get_same_record);
	tcase_add_test(basic, reused_pfn_starts_anew);
	suite_add_tcase(s, basic);

	tcase_add_test(evict, small_table_evicts_oldest);
	tcase_add_test(evict, evicted_node_reset_on_hit);
	tcase_add_test(evict, used_bounded);
	tcase_add_test(evict, eviction_within_window);
	tcase_add_test(evict, window_takes_free_slot);
	tcase_add_test(evict, drop_node_keeps_others);
	suite_add_tcase(s, evict);

	/* valgrind runs the million gets 20-50 times slower */
	tcase_set_timeout(load, 300);
	tcase_add_test(load, random_workload);
	suite_add_tcase(s, load);
	return s;
}

int main(void)
{
	return unit_run(table_suite());
}
