// SPDX-License-Identifier: GPL-2.0
/*
 * INDIGO core: the log of recent hinting-scan marks. Pure C, see core.h.
 */
#include "core.h"

void indigo_marks_add(struct indigo_marks *ms, u64 mm, u64 start, u64 end,
		      u64 t_ns)
{
	u32 b = indigo_marks_bucket(mm);
	struct indigo_mark *m = &ms->m[b][ms->next[b]];

	m->mm = mm;
	m->start = start;
	m->end = end;
	m->t_ns = t_ns;
	ms->next[b] = (ms->next[b] + 1) % INDIGO_MARK_WAYS;
}

u64 indigo_marks_find(const struct indigo_marks *ms, u64 mm, u64 addr,
		      u64 prev_ns)
{
	const struct indigo_mark *m = ms->m[indigo_marks_bucket(mm)];
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
