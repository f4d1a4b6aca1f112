// SPDX-License-Identifier: GPL-2.0
/*
 * ingest: how many telemetry events per second indigod's netlink path
 * takes (modlink.c, the code the agent runs), on one core.
 *
 *   ingest native EVENTS
 *	the userspace half alone, on this machine: one CANDIDATES message of
 *	64 candidates (the module's batch) built once with libnl, handed to
 *	modlink_dispatch() until EVENTS events were parsed
 *   ingest module EVENTS CHUNK [RCVBUF]
 *	end to end, with indigo.ko loaded: the module sends EVENTS synthetic
 *	candidates through its real multicast path (debugfs "emit"), CHUNK at
 *	a time (CHUNK = EVENTS: all at once); the receiver is modlink_poll()
 *	with the agent's 4 MiB buffer (or RCVBUF bytes). Events lost to an
 *	overrun must show up as ENOBUFS: the line says whether every loss was
 *	counted.
 *
 * Prints one line of key=value pairs; in module mode also the receiving
 * thread's own CPU time, so that events per CPU-second say what one core
 * takes whatever the sender (the same machine) costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "modlink.h"
#include "num.h"

#define BATCH		64
#define RCVBUF		(4 << 20)
#define EMIT_PATH	"/sys/kernel/debug/indigo/emit"
#define IDLE_MS		3000	/* silence after which the rest is lost */
#define RUN_MAX_S	120	/* a run gives up after this long */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct count {
	atomic_ullong events;
	double first, last;
};

static void on_cands(u64 seq, const struct modlink_cand *c, u32 n, void *arg)
{
	struct count *k = arg;

	(void)c;
	if (seq != UINT64_MAX)
		return;	/* real telemetry of the running workload, if any */
	if (!k->first)
		k->first = now_s();
	k->last = now_s();
	atomic_fetch_add(&k->events, n);
}

static struct nl_msg *batch_msg(void)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *list, *one;
	int i;

	if (!m || !genlmsg_put(m, 0, 0, 0x20, 0, 0, INDIGO_CMD_CANDIDATES,
			       INDIGO_GENL_VERSION) ||
	    nla_put_u64(m, INDIGO_A_EPOCH_SEQ, UINT64_MAX))
		goto fail;
	list = nla_nest_start(m, INDIGO_A_CANDS);
	for (i = 0; list && i < BATCH; i++) {
		one = nla_nest_start(m, 1);
		if (!one || nla_put_u32(m, INDIGO_CAND_A_PID, 0) ||
		    nla_put_u64(m, INDIGO_CAND_A_ADDR, (u64)i << 12) ||
		    nla_put_u32(m, INDIGO_CAND_A_NODE, 1) ||
		    nla_put_u32(m, INDIGO_CAND_A_RATE, i) ||
		    nla_put_u32(m, INDIGO_CAND_A_BURST, 0))
			goto fail;
		nla_nest_end(m, one);
	}
	if (!list)
		goto fail;
	nla_nest_end(m, list);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

static int native(unsigned long long events)
{
	struct count k = { 0 };
	const struct modlink_events ev = { .cands = on_cands, .arg = &k };
	struct nl_msg *m = batch_msg();
	double t0, t;
	unsigned long long i;

	if (!m) {
		fprintf(stderr, "ingest: cannot build the message\n");
		return 1;
	}
	t0 = now_s();
	for (i = 0; i < events; i += BATCH) {
		if (modlink_dispatch(m, &ev) != 1) {
			fprintf(stderr, "ingest: the message did not parse\n");
			nlmsg_free(m);
			return 1;
		}
	}
	t = now_s() - t0;
	nlmsg_free(m);
	printf("mode=native events=%llu seconds=%.3f events_per_s=%.0f ns_per_event=%.1f\n",
	       (unsigned long long)atomic_load(&k.events), t,
	       atomic_load(&k.events) / t, t * 1e9 / atomic_load(&k.events));
	return 0;
}

struct emitter {
	unsigned long long events, chunk;
	struct count *k;
	atomic_int done;
	int err;
};

/* Writes the chunks, each once the receiver has the one before. */
static void *emit(void *arg)
{
	struct emitter *e = arg;
	unsigned long long sent = 0, n;
	char buf[32];
	int fd = open(EMIT_PATH, O_WRONLY);

	if (fd < 0)
		e->err = errno;
	while (fd >= 0 && sent < e->events) {
		double t0 = now_s();

		while (e->chunk < e->events &&
		       atomic_load(&e->k->events) < sent && now_s() - t0 < 1)
			usleep(50);
		n = e->events - sent < e->chunk ? e->events - sent : e->chunk;
		snprintf(buf, sizeof(buf), "%llu", n);
		if (write(fd, buf, strlen(buf)) < 0) {
			e->err = errno;
			break;
		}
		sent += n;
	}
	if (fd >= 0)
		close(fd);
	atomic_store(&e->done, 1);
	return NULL;
}

static int module(unsigned long long events, unsigned long long chunk,
		  int rcvbuf)
{
	struct count k = { 0 };
	const struct modlink_events ev = { .cands = on_cands, .arg = &k };
	struct emitter e = { .events = events, .chunk = chunk, .k = &k };
	unsigned long long got, lost;
	unsigned long enobufs = 0;
	struct modlink *l;
	struct rusage ru;
	pthread_t th;
	double quiet, start, cpu;
	int ret;

	ret = modlink_open(&l);
	if (!ret)
		ret = modlink_subscribe(l);
	if (!ret)
		ret = modlink_set_rcvbuf(l, rcvbuf);
	if (ret) {
		fprintf(stderr, "ingest: the module: %s\n", strerror(-ret));
		return 1;
	}
	if (pthread_create(&th, NULL, emit, &e)) {
		modlink_close(l);
		return 1;
	}
	quiet = start = now_s();
	while (atomic_load(&k.events) < events && now_s() - quiet < IDLE_MS / 1e3 &&
	       now_s() - start < RUN_MAX_S) {
		ret = modlink_poll(l, &ev, 100);
		if (ret == -ENOBUFS)
			enobufs++;
		else if (ret < 0)
			break;
		if (ret > 0 || !atomic_load(&e.done))
			quiet = now_s();
	}
	getrusage(RUSAGE_THREAD, &ru);
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	pthread_join(th, NULL);
	modlink_close(l);
	if (e.err) {
		fprintf(stderr, "ingest: %s: %s\n", EMIT_PATH, strerror(e.err));
		return 1;
	}
	got = atomic_load(&k.events);
	lost = events > got ? events - got : 0;
	printf("mode=module events=%llu chunk=%llu received=%llu lost=%llu enobufs=%lu seconds=%.3f events_per_s=%.0f receiver_cpu_s=%.3f events_per_cpu_s=%.0f loss_counted=%s\n",
	       events, chunk, got, lost, enobufs, k.last - k.first,
	       k.last > k.first ? got / (k.last - k.first) : 0.0, cpu,
	       cpu > 0 ? got / cpu : 0.0, !lost || enobufs ? "yes" : "no");
	return !lost || enobufs ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t events, chunk, rcvbuf = RCVBUF;

	if (argc == 3 && !strcmp(argv[1], "native") &&
	    !num_u64(argv[2], UINT64_MAX, &events))
		return native(events);
	/* a chunk of 0 would never finish */
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "module") &&
	    !num_u64(argv[2], UINT64_MAX, &events) &&
	    !num_u64(argv[3], UINT64_MAX, &chunk) && chunk &&
	    (argc == 4 || !num_u64(argv[4], INT_MAX, &rcvbuf)))
		return module(events, chunk, (int)rcvbuf);
	fprintf(stderr, "usage: ingest native EVENTS | ingest module EVENTS CHUNK [RCVBUF]\n");
	return 2;
}
