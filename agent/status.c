// SPDX-License-Identifier: GPL-2.0
/* indigod's state file for indigoctl (status.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <json-c/json.h>

#include "status.h"

static int add(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, k, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_str(struct json_object *o, const char *k, const char *v)
{
	return add(o, k, json_object_new_string(v ? v : ""));
}

static int add_u64(struct json_object *o, const char *k, uint64_t v)
{
	return add(o, k, json_object_new_uint64(v));
}

static int add_dbl(struct json_object *o, const char *k, double v)
{
	return add(o, k, json_object_new_double(v));
}

static struct json_object *policy_json(const struct status_info *s)
{
	struct json_object *p = json_object_new_object();

	if (!p)
		return NULL;
	if (add_str(p, "mode", s->pol.mode == ACT_MODE_GATE ? "gate" :
			       s->pol.mode == ACT_MODE_DENY ? "deny" : "observe") ||
	    add_u64(p, "rate_min_mhz", s->pol.rate_min_mhz) ||
	    add_u64(p, "burst_min_ms", s->pol.burst_min_ms) ||
	    add_u64(p, "rate_cap_pps", s->pol.rate_cap_pps) ||
	    add_u64(p, "free_min_kib", s->pol.free_min_kib) ||
	    add_u64(p, "arm", s->arm) || add_str(p, "by", s->by) ||
	    add_dbl(p, "propensity", s->propensity) ||
	    add_dbl(p, "last_reward", s->reward)) {
		json_object_put(p);
		return NULL;
	}
	return p;
}

static struct json_object *to_json(const struct status_info *s)
{
	struct json_object *o = json_object_new_object(), *link;
	int ret;

	if (!o)
		return NULL;
	ret = add_str(o, "app", s->app) || add_str(o, "learner", s->learner) ||
	      add_str(o, "executor", s->executor) ||
	      add_str(o, "reward", s->reward_source) ||
	      add(o, "module_connected", json_object_new_boolean(s->connected)) ||
	      add_u64(o, "epochs", s->epochs) ||
	      add_u64(o, "enobufs", s->enobufs) ||
	      add_u64(o, "reconnects", s->reconnects) ||
	      add_u64(o, "learner_updates", s->updates) ||
	      add_u64(o, "agent_promoted", s->agent_moved) ||
	      add_u64(o, "agent_promote_failed", s->agent_failed) ||
	      add_u64(o, "agent_promote_held", s->agent_held) ||
	      add_u64(o, "agent_promote_over_cap", s->agent_over_cap) ||
	      add_u64(o, "agent_candidates_dropped", s->agent_dropped);
	/* made only when it can be added: add() owns it from there */
	link = ret ? NULL : json_object_new_object();
	ret = ret || add(o, "link", link) ||
	      add_str(link, "source", s->link_source) ||
	      add_dbl(link, "bandwidth_gbps", s->bandwidth_gbps) ||
	      add_dbl(link, "far_latency_ns", s->far_ns) ||
	      add_dbl(link, "local_latency_ns", s->local_ns);
	if (!ret && s->have_pol)
		ret = add(o, "policy", policy_json(s));
	if (!ret && s->extra) {
		json_object_object_foreach(s->extra, k, v)
			if (add(o, k, json_object_get(v)))
				ret = 1;
	}
	if (ret) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int status_tmp_name(char *buf, size_t n, const char *path)
{
	return snprintf(buf, n, "%s.tmp.%ld", path, (long)getpid()) >= (int)n ?
	       -ENAMETOOLONG : 0;
}

int status_write(const char *path, const struct status_info *s)
{
	struct json_object *o = to_json(s);
	char tmp[4096];
	int ret;

	if (!o)
		return -ENOMEM;
	ret = status_tmp_name(tmp, sizeof(tmp), path);
	if (ret) {
		json_object_put(o);
		return ret;
	}
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY))
		ret = errno ? -errno : -EIO;
	else if (rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	json_object_put(o);
	return ret;
}
