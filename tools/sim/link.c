// SPDX-License-Identifier: GPL-2.0
/* The far tier's link: see link.h. */
#include "link.h"

#include <errno.h>
#include <math.h>

/* a migration never sees less than this share of the capacity */
#define AVAIL_FLOOR	0.01

void link_preset_paper(struct link_params *p)
{
	p->local_ns = 100.0;
	p->far_ns = 900.0;
	p->gbps = 100.0;
	p->contention = 0.0;
	p->window_ns = 1e6;
}

void link_preset_cxl(struct link_params *p)
{
	link_preset_paper(p);
	p->far_ns = 250.0;
	p->gbps = 256.0;	/* a PCIe 5.0 x8 expander, one direction */
}

int link_check(const struct link_params *p)
{
	if (!(p->local_ns > 0) || !(p->far_ns > p->local_ns) ||
	    !isfinite(p->far_ns) || !(p->gbps > 0) || !isfinite(p->gbps) ||
	    !(p->contention >= 0) || !(p->contention < 1) ||
	    !(p->window_ns > 0) || !isfinite(p->window_ns))
		return -EINVAL;
	return 0;
}

double link_far_ns(const struct link_params *p, double u)
{
	if (!(u > 0))
		u = 0;
	if (u > LINK_U_MAX)
		u = LINK_U_MAX;
	return p->far_ns * (1.0 + u / (2.0 * (1.0 - u)));
}

void link_init(struct link *l, const struct link_params *p)
{
	l->p = *p;
	l->u_last = p->contention;
	l->far_now = link_far_ns(p, l->u_last);
	l->win_end = p->window_ns;
	l->win_bytes = 0;
	l->bytes = 0;
}

void link_roll(struct link *l, double now_ns)
{
	double cap = link_bytes_per_ns(&l->p) * l->p.window_ns;

	l->u_last = l->p.contention + l->win_bytes / cap;
	l->win_bytes = 0;
	l->win_end += l->p.window_ns;
	/* idle windows skipped over (a long stall) carry only the contender */
	if (now_ns >= l->win_end) {
		l->u_last = l->p.contention;
		l->win_end += l->p.window_ns *
			      floor((now_ns - l->win_end) / l->p.window_ns + 1);
	}
	l->far_now = link_far_ns(&l->p, l->u_last);
}

double link_avail_bytes_per_ns(const struct link *l)
{
	double u = l->u_last > 1.0 ? 1.0 : l->u_last;
	double share = 1.0 - u;

	return link_bytes_per_ns(&l->p) * (share > AVAIL_FLOOR ? share : AVAIL_FLOOR);
}
