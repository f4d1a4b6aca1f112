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

u64 indigo_marks_find(const struct indigo_marks *ms, u64 mm, u64 addr,
		      u64 prev_ns)
{
	const struct indigo_mark *m = ms->m[indigo_marks_bucket(mm, addr)];
	u64 best = 0;
	int i;

	for (i = 0; i < INDIGO_MARK_WAYS; i++) {
		if (m[i].mm != mm || addr < m[i].start || addr >= m[i].end)
			continue;
		if (m[i].t_ns <= prev_ns)
			continue;
		if (!best || m[i].t_ns < best)
			best = m[i].t_ns;
	}
	return best;
}
