// SPDX-License-Identifier: GPL-2.0
/* Netscope's controller loop in the agent: see ns_agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ns_agent.h"
#include "ns_link.h"
#include "ns_maps.h"
#include "ns_progress.h"

struct ns_ctl_app {
	uint64_t cgid;
	uint64_t listed;		/* its id in ns_apps, 0: none */
	struct ns_app app;
	bool have_prev;
	struct ns_cg_mark mark;		/* counters at the last interval */
	double units;			/* progress figure at the last interval */
	double use_Bps;			/* its bytes on the wire, last interval */
	double paced_Bps;		/* the pacing rate it set, 0: none */
	int64_t live;			/* its live flows at the last interval */
};

struct ns_agent {
	struct ns_agent_opts o;
	struct ns_loader *ld;
	struct ns_maps maps;
	struct ns_ctl_app apps[NS_APPS_MAX];
	struct timespec last;
	struct timespec last_sweep;	/* sweep_gone()'s last run */
	struct ns_link link;
	double link_dt;			/* since the link's last interval ended */
	bool link_stale;		/* this tick did not end one: its
					 * figures are the last interval's */
	int cgroot_fd;			/* to tell cgroups that are gone */
	uint32_t owner;			/* names its ns_policy entries */
	int last_ret;			/* the last interval's result */
	const char *last_why;
	uint64_t keys[NS_CGROUPS_MAX];	/* measure_link()'s, sweep_gone()'s */
};

void ns_agent_defaults(struct ns_agent_opts *o, double capacity_mbit)
{
	double cap = capacity_mbit * 1e6 / 8;

	memset(o, 0, sizeof(*o));
	o->load.want_cc = 1;
	o->interval_ms = 200;
	o->control = true;
	snprintf(o->cc, sizeof(o->cc), "%s", NS_CC_NAME);
	o->params = (struct ns_app_params){
		/* DCQCN's g; 1/50 of capacity back per interval; nobody
		 * below 1 %; a queue of 300 us is congestion (a few packets
		 * at 100 Mbit/s, where a sensitive request feels it); the
		 * loop sits at util_max (its cuts stop there), so a margin
		 * for TSO's bursts: at 0.95 the queue's tail at 1 Gbit/s
		 * doubled */
		.rate = { .g = 1.0 / 16, .capacity_Bps = cap, .step_Bps = cap / 50,
			  .min_Bps = cap / 100, .floor_Bps = cap / 4,
			  .queue_thresh_us = 300,
			  .util_max = 0.93 },
		.lambda = 1e-3, .forget = 0.99, .max_width = 0.5,
		/* sensitive: a quarter or more of any rise in delay shows in
		 * its progress time (log-log). Bulk transfers measure about 0;
		 * a request/response application 0.3 to 1, as much of a turn
		 * as is not the server's own work */
		.c_untrusted = 4, .c_sensitive = 0.25,
	};
}

int ns_agent_start(struct ns_agent **out, const struct ns_agent_opts *o,
		   const char **why)
{
	struct ns_agent *a = calloc(1, sizeof(*a));
	unsigned int i, j;
	uint64_t id;
	int ret;

	if (!a) {
		*why = "memory";
		return -ENOMEM;
	}
	a->o = *o;	/* its cgroup names are used here only, not kept */
	ns_link_init(&a->link);
	for (i = 0; i < o->napps; i++) {
		ret = ns_cgroup_id(o->apps[i].cgroup, &a->apps[i].cgid);
		if (ret) {
			*why = o->apps[i].cgroup;
			free(a);
			return ret;
		}
		/* two controllers of one cgroup would each write its policy
		 * every interval: the last one's would hold, and where they
		 * differ every flow would apply two policies an interval */
		for (j = 0; j < i; j++) {
			if (a->apps[j].cgid == a->apps[i].cgid) {
				*why = "one cgroup given as two applications";
				free(a);
				return -EEXIST;
			}
		}
		ns_app_init(&a->apps[i].app, &o->params, o->apps[i].known_c);
		a->o.load.apps[i] = a->apps[i].cgid;
	}
	a->o.load.napps = o->napps;
	/* the kernel refuses any other directory with EBADF, which names
	 * neither it nor why; the first is also cgroot_fd, for handles */
	for (i = 0; i < o->load.ncgroups; i++) {
		ret = ns_cgroup_id(o->load.cgroups[i], &id);
		if (ret) {
			*why = o->load.cgroups[i];
			free(a);
			return ret;
		}
	}
	ret = ns_loader_open(&a->ld, &a->o.load, why);
	if (ret) {
		free(a);
		return ret;
	}
	for (i = 0; i < o->napps; i++)
		a->apps[i].listed = a->apps[i].cgid;
	a->cgroot_fd = open(o->load.cgroups[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	a->maps.stats = ns_loader_map_fd(a->ld, NS_MAP_STATS);
	a->maps.policy = ns_loader_map_fd(a->ld, NS_MAP_POLICY);
	a->maps.ctrl = ns_loader_map_fd(a->ld, NS_MAP_CTRL);
	a->maps.link = ns_loader_map_fd(a->ld, NS_MAP_LINK);
	a->maps.epoch = ns_loader_map_fd(a->ld, NS_MAP_EPOCH);
	/* the pinned map outlives controllers: what a killed one set must
	 * not hold here, even measuring only; a running one's stays */
	a->owner = ns_loader_prog_id(a->ld);
	ret = a->owner ? ns_policy_release(&a->maps, a->owner) : -EIO;
	if (ret) {
		*why = !a->owner ? "reading the sock_ops program's id" :
		       ret == -EWOULDBLOCK ?
		       "releasing a gone controller's ns_policy entries: " NS_POLICY_LOCK " held by another writer" :
		       "releasing a gone controller's ns_policy entries";
		ns_agent_stop(a);
		return ret;
	}
	/* a congestion control that did not register cannot be chosen */
	if (!strcmp(a->o.cc, NS_CC_NAME) && ns_loader_cc_status(a->ld))
		a->o.cc[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &a->last);
	*out = a;
	return 0;
}

/*
 * A sensitivity * 1000 for the ctrl map's signed fields, held within
 * +-1e9: a slope from delays that hardly varied can be of any size, and
 * one past 32 bits would not convert.
 */
static int32_t milli(double c)
{
	if (isnan(c))
		return 0;
	return c < -1e6 ? -1000000000 : c > 1e6 ? 1000000000 : c * 1000;
}

struct publish_arg {
	struct ns_agent *a;
	struct ns_ctl_app *c;
};

/* publish()'s ns_policy: the controller's own, where none is fixed */
static int controller_policy(struct ns_policy *pol, const struct ns_policy *old,
			     void *arg)
{
	const struct publish_arg *pa = arg;
	struct ns_ctl_app *c = pa->c;

	c->paced_Bps = 0;	/* unless this controller sets its rate, below */
	if (old && old->flags & NS_POLICY_FIXED)
		return 0;
	memcpy(pol->cc, pa->a->o.cc, sizeof(pol->cc));
	pol->rate_Bps = ns_app_pacing(&c->app, c->use_Bps);
	c->paced_Bps = pol->rate_Bps;
	pol->sens_milli = fmin(c->app.c * 1000, NS_SENS_MAX_MILLI);
	pol->flags |= NS_POLICY_SENS;
	pol->owner = pa->a->owner;
	/* an unchanged policy would only make every flow re-apply it */
	return !(old && old->gen && !memcmp(pol->cc, old->cc, sizeof(pol->cc)) &&
		 pol->rate_Bps == old->rate_Bps &&
		 pol->sens_milli == old->sens_milli && pol->owner == old->owner);
}

static int publish(struct ns_agent *a, struct ns_ctl_app *c)
{
	const struct ns_slope *s = &c->app.slope;
	struct ns_ctrl ctl = {
		.sens_milli = milli(s->mean),
		.sens_lo_milli = milli(s->lo),
		.sens_hi_milli = milli(s->hi),
		.alpha_milli = c->app.rate.alpha * 1000,
		.rate_Bps = c->app.rate.rate_Bps,
		.samples = s->n,
		.flags = (c->app.trusted ? NS_CTRL_TRUSTED : 0) |
			 (c->app.by_turns ? NS_CTRL_BY_TURNS : 0) |
			 (ns_app_sensitive(&c->app, &a->o.params) ?
			  NS_CTRL_SENSITIVE : 0),
	};
	struct publish_arg pa = { a, c };
	int ret = ns_ctrl_put(&a->maps, c->cgid, &ctl);

	if (ret || !a->o.control) {
		c->paced_Bps = 0;
		return ret;
	}
	/* under the writers' lock, or indigoctl's fixed policy written
	 * between the read and the update would be lost; not waited for,
	 * the interval goes on: its policy is skipped (the last one holds,
	 * with its pacing) and the next interval's written */
	ret = ns_policy_update(&a->maps, c->cgid, controller_policy, &pa, 0);
	return ret < 0 ? ret : 0;
}

/*
 * The application's cgroup is its directory's: one removed and made again
 * (a service restarted) is a new cgroup, with a new id, at the same path.
 * Returns false while there is none to control: the path names no cgroup
 * and the one it named is gone (whose entries are then dropped, as
 * measure_link() drops those it sees; publishing would make them anew).
 */
static bool follow_cgroup(struct ns_agent *a, struct ns_ctl_app *c)
{
	uint64_t id;

	if (ns_cgroup_id(a->o.apps[c - a->apps].cgroup, &id)) {
		if (a->cgroot_fd < 0 || ns_cgroup_alive(a->cgroot_fd, c->cgid))
			return true;	/* moved, or not known to be gone */
		ns_maps_forget(&a->maps, c->cgid);
		c->have_prev = false;
		return false;
	}
	if (id == c->cgid)
		return true;
	/* the old one gone (a service restarted), its entries go with it:
	 * measure_link() drops only those of cgroups in ns_cg_stats, where
	 * one whose flows never came has none, and its ns_policy and ns_ctrl
	 * entries would stay at every restart until the maps were full; if it
	 * lives on elsewhere, it is no longer this controller's: its flows
	 * lift what it set */
	if (a->cgroot_fd >= 0 && !ns_cgroup_alive(a->cgroot_fd, c->cgid))
		ns_maps_forget(&a->maps, c->cgid);
	else
		ns_policy_release_one(&a->maps, c->cgid, a->owner);
	c->cgid = id;
	c->have_prev = false;
	return true;
}

static int step_app(struct ns_agent *a, struct ns_ctl_app *c, double dt,
		    const char **why)
{
	const char *progress = a->o.apps[c - a->apps].progress;
	struct ns_app_obs obs = { .dt_s = dt };
	struct ns_cg_stats st = { 0 };
	struct ns_cg_mark d;
	double units = 0;
	int ret, perr = 0, app_err = 0;

	if (!follow_cgroup(a, c))
		return 0;
	/* its flows in cgroups below it are counted under its id once the
	 * program finds it in ns_apps; not there, the interval goes on with
	 * those in its own cgroup, and the next one tries again */
	if (c->listed != c->cgid) {
		app_err = ns_loader_app_move(a->ld, c->listed, c->cgid);
		if (!app_err)
			c->listed = c->cgid;
	}
	ret = ns_stats_get(&a->maps, c->cgid, &st);
	if (ret && ret != -ENOENT) {
		/* the marks are now an interval old: counting starts
		 * again, or the next would read two intervals as one */
		c->have_prev = false;
		*why = "reading ns_cg_stats";
		return ret;
	}
	/* no figure (a file caught mid-rewrite): the interval still runs its
	 * loop and moves the marks on, or the next would read two intervals'
	 * bytes and progress as one's; NAN makes it, and the next, whose
	 * figure has no start, teach nothing */
	if (progress[0]) {
		perr = ns_progress_read(progress, &units);
		/* gone back (a restart, or a figure read mid-rewrite: "12" of
		 * "12345"): no start either, or the next interval would learn
		 * the whole figure as its own */
		if (perr || units < c->units)
			units = NAN;
	}
	/*
	 * congestion is the shared link's (as the NIC's stall counter is in
	 * the paper): every app sees the same delay signal, its own CE marks.
	 * A link not measured this interval tells the last one's again: not
	 * acted on twice, nor paired with this interval's progress.
	 */
	if (c->have_prev && !a->link_stale &&
	    ns_cg_mark_since(&c->mark, &st, &d)) {
		obs.delay_us = a->link.delay_us;
		obs.base_us = a->link.base_us;
		obs.ce = d.ce;
		obs.util = a->link.util;
		c->use_Bps = d.wire / dt;
		obs.units = progress[0] ? units - c->units :
			    ns_app_flow_units(&c->app, d.delivered, d.turns);
		/* flows that began or all ended within the interval: part of
		 * it idle, its time per unit an outlier that would cost the
		 * estimate its trust (as idle intervals, not learnt from) */
		if (!progress[0] && (c->live <= 0 || st.live_flows <= 0))
			obs.units = 0;
		obs.held = c->paced_Bps > 0 &&
			   c->paced_Bps < a->o.params.rate.capacity_Bps;
		ns_app_step(&c->app, &a->o.params, &obs);
	} else {
		/* counting starts (again): nothing yet says what it uses */
		c->use_Bps = 0;
	}
	c->have_prev = true;
	ns_cg_mark_take(&c->mark, &st);
	c->live = st.live_flows;
	c->units = units;
	ret = publish(a, c);
	if (ret) {
		*why = ret == -EWOULDBLOCK ?
		       "ns_policy locked by another writer (" NS_POLICY_LOCK "): this interval's policy not written" :
		       "writing ns_policy/ns_ctrl";
		return ret;
	}
	if (app_err) {
		*why = "writing the application's cgroup into ns_apps";
		return app_err;
	}
	if (perr)
		*why = progress;
	return perr;
}

/* The link's figures (ns_link.h) over every cgroup with aggregates, not
 * only controlled ones, published in ns_link; drops the entries of
 * cgroups that are gone, and says (-ENOSPC) when those left fill the map. */
static int measure_link(struct ns_agent *a, double dt, const char **why)
{
	struct ns_link *l = &a->link;
	struct ns_link_view v;
	struct ns_cg_stats st;
	int ret, n, i, alive, alive_err = 0, kept = 0;
	uint32_t win;
	uint64_t key;

	/* an interval that could not be read is not ended: the next one's
	 * counters have grown over both, and so has its time */
	a->link_dt += dt;
	dt = a->link_dt;
	/* each once: a cgroup counted twice would count its traffic twice */
	n = ns_stats_keys(&a->maps, a->keys);
	if (n < 0) {
		*why = "reading ns_cg_stats";
		return n;
	}
	win = ns_base_win_now();
	for (i = 0; i < n; i++) {
		key = a->keys[i];
		if (ns_stats_get(&a->maps, key, &st))
			continue;
		/* its flows may outlive it, but no new ones can come */
		alive = a->cgroot_fd >= 0 ? ns_cgroup_alive(a->cgroot_fd, key) : 1;
		if (!alive) {
			ns_maps_forget(&a->maps, key);
			continue;
		}
		/* not known to be gone: kept, and the error reported */
		if (alive < 0)
			alive_err = alive;
		ns_link_add(l, key, &st, win);
		kept++;
	}
	ns_link_end(l, dt, a->o.params.rate.capacity_Bps);
	a->link_dt = 0;
	if (l->intervals) {
		v = (struct ns_link_view){
			.intervals = l->intervals, .rtt_samples = l->samples,
			.delay_us = l->delay_us, .base_us = l->base_us,
			.queue_us = l->queue_us,
			.util_milli = fmin(l->util * 1000, UINT32_MAX),
			.interval_ms = dt * 1000,
		};
		ret = ns_link_view_put(&a->maps, &v);
		if (ret) {
			*why = "writing ns_link";
			return ret;
		}
	}
	if (alive_err) {
		*why = "telling gone cgroups from live ones (open_by_handle_at)";
		return alive_err;
	}
	/* the program makes no entry past NS_CGROUPS_MAX: a new cgroup's
	 * flows go unmeasured, and without its policy, which they are given
	 * with their cgroup's entry */
	if (kept >= NS_CGROUPS_MAX) {
		*why = "ns_cg_stats full: flows of cgroups past it are neither measured nor controlled";
		return -ENOSPC;
	}
	return 0;
}

/*
 * Drops the entries of gone cgroups in @fd (ns_policy or ns_ctrl), where
 * measure_link() sees only those with aggregates: a cgroup whose flows
 * were never measured (none yet, or all on the host) may have a policy
 * that "indigoctl netscope set" wrote, or one and controller state that a
 * stopped controller left, which stayed once it was gone until the maps
 * were full. One not known to be gone is kept (measure_link() says why).
 */
static int sweep_gone(struct ns_agent *a, int fd)
{
	int n, i;

	if (a->cgroot_fd < 0)
		return 0;
	n = ns_map_keys(fd, a->keys);
	for (i = 0; i < n; i++)
		if (!ns_cgroup_alive(a->cgroot_fd, a->keys[i]))
			ns_maps_forget(&a->maps, a->keys[i]);
	return n < 0 ? n : 0;
}

/*
 * How often sweep_gone() runs: each key costs a handle lookup, and at 100
 * ms intervals two full maps (2048 keys) would cost milliseconds of each;
 * a gone cgroup's entries linger a second at most.
 */
#define NS_SWEEP_S	1.0

static double secs_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

int ns_agent_tick(struct ns_agent *a, const char **why)
{
	struct timespec t;
	uint64_t n0;
	double dt;
	int ret, first = 0;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &t);
	dt = secs_between(&a->last, &t);
	/* between intervals, the last one's result: callers say a change */
	if (dt * 1000 < a->o.interval_ms) {
		*why = a->last_why;
		return a->last_ret;
	}
	a->last = t;
	n0 = a->link.intervals;
	ret = measure_link(a, dt, why);
	a->link_stale = a->link.intervals == n0;
	if (ret)
		first = ret;
	if (secs_between(&a->last_sweep, &t) >= NS_SWEEP_S) {
		a->last_sweep = t;
		ret = sweep_gone(a, a->maps.policy);
		if (!ret)
			ret = sweep_gone(a, a->maps.ctrl);
		if (ret && !first) {
			first = ret;
			*why = "reading ns_policy/ns_ctrl";
		}
	}
	for (i = 0; i < a->o.napps; i++) {
		const char *w = NULL;

		ret = step_app(a, &a->apps[i], dt, &w);
		if (ret && !first) {
			first = ret;
			*why = w;
		}
	}
	a->last_ret = first;
	a->last_why = first ? *why : NULL;
	return first;
}

int ns_agent_link(const struct ns_agent *a, double *queue_us, double *avail_Bps)
{
	if (!a->link.intervals)
		return -EAGAIN;
	*queue_us = a->link.queue_us;
	*avail_Bps = a->link.avail_Bps;
	return 0;
}

int ns_agent_cc_status(const struct ns_agent *a)
{
	return ns_loader_cc_status(a->ld);
}

bool ns_agent_cc_replaced(const struct ns_agent *a)
{
	return ns_loader_cc_replaced(a->ld);
}

bool ns_agent_adopt_say(const struct ns_agent *a, char *buf, size_t len)
{
	const struct ns_adopt *ad = ns_loader_adopt(a->ld);
	size_t n = 0;

	buf[0] = '\0';
	if (ad->taken)
		n += snprintf(buf + n, len - n,
			      "took in %u flow(s) established before it started (each counted from its next ACK)",
			      ad->taken);
	if (ad->missed && n < len)
		n += snprintf(buf + n, len - n,
			      "%s%u flow(s) established before it started are not seen until reopened: this kernel cannot ask for their callbacks (Linux 6.12 can)",
			      n ? "; " : "", ad->missed);
	if (ad->netns_skipped && n < len)
		n += snprintf(buf + n, len - n,
			      "%s%u network namespace(s) not entered: flows established there before it started are not seen until reopened",
			      n ? "; " : "", ad->netns_skipped);
	if (ad->err && n < len)
		snprintf(buf + n, len - n,
			 "%sflows established before it started not looked for everywhere: %s",
			 n ? "; " : "", strerror(-ad->err));
	return ad->missed || ad->netns_skipped || ad->err;
}

void ns_agent_stop(struct ns_agent *a)
{
	if (!a)
		return;
	if (a->cgroot_fd >= 0)
		close(a->cgroot_fd);
	/* flows lift what it set at their next callback (of this program, a
	 * restarted one's or another agent's: the links go next) */
	ns_policy_release(&a->maps, a->owner);
	ns_loader_close(a->ld);
	free(a);
}
