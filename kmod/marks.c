// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO core: the log of recent hinting-scan marks. Pure C, see core.h.
 */
#include "core.h"

static void bucket_add(struct indigo_marks *ms, u32 b,
		       const struct indigo_mark *mark)
{
	ms->m[b][ms->next[b]] = *mark;
	ms->next[b] = (ms->next[b] + 1) % INDIGO_MARK_WAYS;
}

void indigo_marks_add(struct indigo_marks *ms, u64 mm, u64 start, u64 end,
		      u64 t_ns)
{
	const struct indigo_mark mark = {
		.mm = mm, .start = start, .end = end, .t_ns = t_ns,
	};
	u64 region = start >> INDIGO_MARK_REGION_SHIFT;
	u64 last;
	int i;

	if (end <= start)
		return;
	last = (end - 1) >> INDIGO_MARK_REGION_SHIFT;
	for (i = 0; i < INDIGO_MARK_SPAN && region + i <= last; i++)
		bucket_add(ms, indigo_marks_bucket(mm, (region + i) <<
						   INDIGO_MARK_REGION_SHIFT),
			   &mark);
}

/*
 * The first mark of @m[from, to) that covers @addr after @prev_ns, or 0;
 * sets *@stale when one covers it at or before @prev_ns.
 */
static u64 first_after(const struct indigo_mark *m, u32 from, u32 to, u64 mm,
		       u64 addr, u64 prev_ns, bool *stale)
{
	for (; from < to; from++) {
		if (m[from].mm != mm || addr < m[from].start ||
		    addr >= m[from].end)
			continue;
		if (m[from].t_ns > prev_ns)
			return m[from].t_ns;
		*stale = true;
	}
	return 0;
}

u64 indigo_marks_find(const struct indigo_marks *ms, u64 mm, u64 addr,
		      u64 prev_ns)
{
	u32 b = indigo_marks_bucket(mm, addr);
	u32 oldest = ms->next[b];
	bool stale = false;
	u64 t;

	/*
	 * Oldest first: marks are filed in time order, so the first one that
	 * covers @addr after @prev_ns is the earliest, and the walk stops there.
	 */
	t = first_after(ms->m[b], oldest, INDIGO_MARK_WAYS, mm, addr, prev_ns,
			&stale);
	if (!t)
		t = first_after(ms->m[b], 0, oldest, mm, addr, prev_ns, &stale);
	/*
	 * A mark at or before @prev_ns survives, so every later one of this
	 * bucket does too: none was lost, the page was not marked again
	 */
	return t ? t : stale ? INDIGO_MARK_STALE : 0;
}
