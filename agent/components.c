// SPDX-License-Identifier: GPL-2.0
/*
 * indigod's optional parts, each on when its config asks and each going
 * on without it when it cannot start: the agent executor (executor.h), the
 * GPU tier (gpu/gpu.h) and Netscope (netscope/ns_indigod.h).
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"

static int executor_match(struct daemon *d)
{
	int ret;

	if (d->cfg.agent.executor != CONFIG_EXECUTOR_AGENT) {
		executor_close(d->ex);
		d->ex = NULL;
		return 0;
	}
	if (d->ex)
		return 0;
	ret = executor_open(&d->ex);
	if (ret) {
		d->ex = NULL;
		logmsg(LOG_ERR, "executor agent: %s%s", strerror(-ret),
		       ret == -ENOSYS ? " (the kernel has no NUMA support)" :
		       ret == -ENOENT ? " (no node has CPUs to promote to)" : "");
	}
	return ret;
}

/* Opens or closes the agent executor to match d->cfg. */
int executor_sync(struct daemon *d)
{
	bool had = d->ex;
	int ret = executor_match(d);

	/* the epoch in flight ran under both: its reward is neither one's */
	if (had != !!d->ex)
		d->ex_switched = true;
	return ret;
}

/*
 * Executor "agent" holds the module in deny while it moves pages itself:
 * leaving, it hands the last policy it chose back to the kernel, so that
 * far pages are promoted again after the agent stops. A link that failed
 * (its error is only acted on between polls) or was lost is opened anew
 * for it: the module may well be there, in deny, with no one to lift it.
 */
void executor_hand_back(struct daemon *d)
{
	int ret = 0;

	if (!d->ex)
		return;
	executor_close(d->ex);
	d->ex = NULL;
	if (!d->have_pol)
		return;
	if (!d->ml || d->link_err) {
		modlink_close(d->ml);
		d->ml = NULL;
		d->link_err = 0;
		ret = modlink_open(&d->ml);
		if (ret)
			d->ml = NULL;
		if (ret == -ENOENT)
			return;		/* no module, no deny to lift */
	}
	if (!ret)
		ret = apply_policy(d);
	if (ret)
		logmsg(LOG_WARNING,
		       "executor agent stopped, but the module did not take the last policy back (%s): it denies promotions until one is set (indigoctl policy set mode=gate)",
		       strerror(-ret));
	else
		logmsg(LOG_INFO, "executor agent stopped: the module applies the last policy (mode %u)",
		       d->pol.mode);
}

/* [gpu]: GPU memory as a tier; without one the agent goes on as it was. */
void gpu_start(struct daemon *d)
{
	const struct gpu_info *g;
	char err[512], nodes[128];
	size_t i, n;
	sigset_t old;
	int ret;

	d->gpu = NULL;
	if (!d->cfg.gpu.enable)
		return;
	signals_hold(&old);	/* the driver starts its threads (daemon.h) */
	ret = gpu_tier_start(&d->cfg.gpu, &d->gpu, err, sizeof(err));
	signals_release(&old);
	if (ret) {
		logmsg(ret == -ENOENT || ret == -ENODEV || ret == -ENOTSUP ||
		       ret == -ECANCELED ? LOG_NOTICE : LOG_WARNING,
		       "gpu: %s; going on without the GPU tier", err);
		return;
	}
	n = gpu_tier_gpus(d->gpu, &g);
	for (i = 0; i < n; i++)
		logmsg(LOG_INFO,
		       "gpu %d: %s %s, %.1f GiB, host node %d, memory node %d; pinned batch %.3g GB/s to the GPU, %.3g GB/s back",
		       g[i].ordinal, g[i].name, g[i].pci,
		       g[i].mem_bytes / 1073741824.0, g[i].host_node,
		       g[i].mem_node,
		       g[i].link.x[GPU_H2D][GPU_PINNED].batch_bw / 1e9,
		       g[i].link.x[GPU_D2H][GPU_PINNED].batch_bw / 1e9);
	if (!gpu_nodeset_format(&gpu_tier_nodes(d->gpu)->far, nodes,
				sizeof(nodes)))
		logmsg(LOG_INFO, "gpu: far nodes for the module: %s", nodes);
}

/*
 * SIGUSR1: measure the GPU links again; a lost device ends the tier. A
 * tier that is off (no driver at start, a device lost) is tried again: the
 * driver may have been loaded since.
 */
void gpu_reprobe(struct daemon *d)
{
	struct epoch_params p;
	char err[512];
	sigset_t old;
	int ret;

	if (!d->gpu) {
		gpu_start(d);
		return;
	}
	signals_hold(&old);	/* as in gpu_start() */
	ret = gpu_tier_probe(d->gpu, err, sizeof(err));
	signals_release(&old);
	if (!ret) {
		logmsg(LOG_INFO, "gpu: links probed again");
		return;
	}
	logmsg(LOG_WARNING, "gpu: %s%s", err,
	       ret == -ENODEV ? "; going on without the GPU tier" :
				"; keeping the last figures");
	if (ret == -ENODEV) {
		gpu_tier_stop(d->gpu);
		d->gpu = NULL;
		if (d->cfg.link.source != CONFIG_LINK_GPU)
			return;
		/* back to the configured figures, as a reload would give,
		 * not the lost device's last */
		d->avail_gbps = 0;
		epoch_params_from(&d->cfg, &p);
		epoch_reconfigure(&d->es, &p);
	}
}

/* [netscope]: the eBPF programs and their controller (agent/netscope/). */
void netscope_start(struct daemon *d)
{
	char err[512];
	int cc_err, ret;

	d->ns_err = 0;
	d->ns_far_ns = 0;
	ret = ns_indigod_start(&d->ns, &d->cfg, &cc_err, err, sizeof(err));
	if (ret == -EROFS || ret == -EPERM || ret == -EACCES)
		/* what indigod.service without its Netscope drop-in gives */
		logmsg(LOG_ERR, "%s; running without Netscope (as a systemd service it needs the unit's Netscope drop-in: make install-netscope)",
		       err);
	else if (ret)
		logmsg(LOG_ERR, "%s; running without Netscope", err);
	else if (d->ns && cc_err)
		logmsg(LOG_WARNING, "netscope: congestion control \"netscope\" not registered (%s); measuring and pacing without it",
		       strerror(-cc_err));
	else if (d->ns)
		logmsg(LOG_INFO, "netscope: programs attached, congestion control \"netscope\" registered%s",
		       ns_agent_cc_replaced(d->ns) ?
		       " in place of one that a killed agent left" : "");
	if (d->ns) {
		bool warn = ns_agent_adopt_say(d->ns, err, sizeof(err));

		if (err[0])
			logmsg(warn ? LOG_WARNING : LOG_INFO, "netscope: %s", err);
	}
}

void netscope_tick(struct daemon *d)
{
	const char *why = "";
	int ret;

	if (!d->ns)
		return;
	ret = ns_agent_tick(d->ns, &why);
	if (ret && ret != d->ns_err)
		logmsg(LOG_WARNING, "netscope: %s: %s", why, strerror(-ret));
	d->ns_err = ret;
}
