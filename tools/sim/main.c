// SPDX-License-Identifier: GPL-2.0
/*
 * indigo-sim: the trace-driven far-memory simulator (README.md here).
 *
 *   indigo-sim gen KIND OUT [-p PAGES] [-n RECORDS] [-s SEED]
 *   indigo-sim run TRACE [-P POLICY] [-a ARM] [-m MODEL] [-L RESIDENCE]
 *		[-C CAP_SHARE] [HOST OPTIONS]
 *   indigo-sim train TRACE MODEL [-P BANDIT] [-m MODEL_IN] [-L RESIDENCE]
 *		[-C CAP_SHARE] [HOST OPTIONS]
 *
 * -L: the bandits' reward.residence in epochs (1-64); default auto, as
 * indigod's. -C: INDIGO's rate cap as a share of the available link
 * (indigod's policy.rate_cap_share, (0, 1]); default indigod's, 0.3.
 *   indigo-sim table OUTDIR [-p PAGES] [-n RECORDS] [-R REPEAT] [-T THREADS]
 *		[-s SEED] [REAL.trace...]
 *
 * Host options: -f LOCAL_FRACTION, -c CONTENTION, -r REPEAT, -x (the CXL
 * link preset instead of the paper's), -s SEED, -g PAGE_BYTES, -k K_NS
 * (fixed cost of a migration), -S SCAN_PERIOD_MS, -E EPOCH_MS, -T THREADS
 * (threads alike sharing the link), -K KSWAPD_FRACTION (of local memory
 * kept free).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epoch.h"
#include "gen.h"
#include "num.h"
#include "pol.h"
#include "table.h"

static int usage(void)
{
	int k;

	fprintf(stderr,
		"usage: indigo-sim gen KIND OUT [-p PAGES] [-n RECORDS] [-s SEED]\n"
		"       indigo-sim run TRACE [-P POLICY] [-a ARM] [-m MODEL] [-L RESIDENCE] [-C CAP_SHARE] [host options]\n"
		"       indigo-sim train TRACE MODEL [-P BANDIT] [-m MODEL_IN] [-L RESIDENCE] [-C CAP_SHARE] [host options]\n"
		"       indigo-sim table OUTDIR [-p PAGES] [-n RECORDS] [-R REPEAT] [-T THREADS] [-s SEED] [REAL.trace...]\n"
		"host options: -f LOCAL_FRACTION -c CONTENTION -r REPEAT -x (CXL link) -s SEED\n"
		"              -g PAGE_BYTES -k K_NS -S SCAN_PERIOD_MS -E EPOCH_MS -T THREADS\n"
		"              -K KSWAPD_FRACTION\n"
		"kinds: gups zipf phase stream; policies:");
	/* from the plug-ins' own names, so that the list cannot fall behind */
	for (k = 0; k < POL_COUNT; k++)
		fprintf(stderr, " %s", pol_name(k));
	fprintf(stderr, " oracle\n");
	return 2;
}

struct args {
	struct sim_params p;
	struct pol_cfg c;
	uint32_t npages;
	uint64_t n;
	unsigned int real_repeat;
};

/*
 * Milliseconds typed, in ns: a finite number that overflows on the way
 * (-S 1e305) is refused, not made infinite (an infinite scan period marks
 * no page ever, so no policy could promote).
 */
static int num_ms(const char *s, double *ns)
{
	double ms;
	int ret = num_double(s, &ms);

	if (!ret && !isfinite(ms * 1e6))
		ret = -ERANGE;
	if (!ret)
		*ns = ms * 1e6;
	return ret;
}

static int num_uint(const char *s, unsigned int *v)
{
	uint64_t x;
	int ret = num_u64(s, UINT_MAX, &x);

	if (!ret)
		*v = (unsigned int)x;
	return ret;
}

/*
 * Each command takes the options it uses and no other: one it ignored
 * would be accepted silently (`table -x` made the paper link's table).
 */
#define HOST_OPTS	"f:c:r:xs:g:k:S:E:T:K:"
#define GEN_OPTS	"p:n:s:"
#define RUN_OPTS	"P:a:m:L:C:" HOST_OPTS
#define TRAIN_OPTS	"P:m:L:C:" HOST_OPTS
#define TABLE_OPTS	"p:n:s:R:T:"

static int parse(int argc, char **argv, const char *opts, struct args *a)
{
	int o, ret;

	sim_params_default(&a->p);
	memset(&a->c, 0, sizeof(a->c));
	a->c.kind = POL_BANDIT;
	a->c.warmup = EPOCH_WARMUP_DEFAULT;
	a->npages = 65536;
	a->n = 8000000;
	a->real_repeat = 16;
	while ((o = getopt(argc, argv, opts)) != -1) {
		switch (o) {
		/*
		 * gen_trace's limits, said here: its -EINVAL would read as the
		 * output file's error (gen), or with no cause at all (table)
		 */
		case 'p':
			ret = num_uint(optarg, &a->npages);
			if (!ret && a->npages < GEN_MIN_PAGES) {
				fprintf(stderr, "indigo-sim: -p %s: a synthetic trace has at least %d pages\n",
					optarg, GEN_MIN_PAGES);
				return -EINVAL;
			}
			break;
		case 'n':
			ret = num_u64(optarg, TRACE_MAX_RECS, &a->n);
			if (!ret && !a->n) {
				fprintf(stderr, "indigo-sim: -n 0: a trace has at least one record\n");
				return -EINVAL;
			}
			break;
		case 's': ret = num_u64(optarg, UINT64_MAX, &a->p.seed); break;
		case 'P':
			a->c.kind = strcmp(optarg, "oracle") ? pol_parse(optarg) : -1;
			ret = a->c.kind < 0 && strcmp(optarg, "oracle") ? -EINVAL : 0;
			break;
		case 'a': ret = num_uint(optarg, &a->c.arm); break;
		case 'm': a->c.model_in = optarg; ret = 0; break;
		case 'f': ret = num_double(optarg, &a->p.local_frac); break;
		case 'c': ret = num_double(optarg, &a->p.link.contention); break;
		case 'r': ret = num_uint(optarg, &a->p.repeat); break;
		case 'T': ret = num_uint(optarg, &a->p.threads); break;
		case 'K': ret = num_double(optarg, &a->p.kswapd_frac); break;
		case 'g': ret = num_double(optarg, &a->p.page_bytes); break;
		case 'k': ret = num_double(optarg, &a->p.k_ns); break;
		case 'S':
			ret = num_ms(optarg, &a->p.scan_period_ns);
			break;
		case 'E':
			ret = num_ms(optarg, &a->p.epoch_ns);
			break;
		case 'L': ret = num_double(optarg, &a->c.residence); break;
		case 'C': ret = num_double(optarg, &a->c.rate_cap_share); break;
		case 'R':
			ret = num_uint(optarg, &a->real_repeat);
			if (!ret && !a->real_repeat)
				ret = -EINVAL;
			break;
		case 'x': {
			double c = a->p.link.contention;

			link_preset_cxl(&a->p.link);
			a->p.link.contention = c;
			ret = 0;
			break;
		}
		default: return -EINVAL;
		}
		if (ret) {
			fprintf(stderr, "indigo-sim: -%c %s: not a valid value\n", o, optarg);
			return ret;
		}
	}
	/* the scan's step is bytes of address space: -g changes its pages */
	a->p.scan_pages = sim_scan_pages(a->p.page_bytes);
	return sim_params_check(&a->p);
}

static void print_result(const char *name, const struct sim_result *r)
{
	printf("%s: stall %.3f ms, time %.3f ms, accesses %" PRIu64
	       " (local %" PRIu64 ", far %" PRIu64 "), faults %" PRIu64
	       " (far %" PRIu64 "), promotions %" PRIu64 ", demotions %" PRIu64
	       ", link %.3f MB, epochs %" PRIu64 "\n",
	       name, r->stall_ns / 1e6, r->time_ns / 1e6, r->accesses,
	       r->local_hits, r->far_accesses, r->faults, r->far_faults,
	       r->promotions, r->demotions, r->link_bytes / 1e6, r->epochs);
}

static int cmd_gen(int argc, char **argv)
{
	struct args a;
	struct trace t;
	int kind, ret;

	if (argc < 3 || (kind = gen_parse(argv[1])) < 0)
		return usage();
	optind = 3;
	/* an operand more would be ignored */
	if (parse(argc, argv, GEN_OPTS, &a) || optind != argc)
		return usage();
	/* trace_load refuses more pages than records could name */
	if (a.npages > a.n) {
		fprintf(stderr, "indigo-sim: -p %" PRIu32 ": more pages than the %"
			PRIu64 " records (-n) can name\n", a.npages, a.n);
		return 2;
	}
	ret = gen_trace(&t, kind, a.npages, a.n, a.p.seed);
	if (!ret) {
		ret = trace_save(&t, argv[2]);
		trace_free(&t);
	}
	if (ret)
		fprintf(stderr, "indigo-sim: %s: %s\n", argv[2], strerror(-ret));
	return ret ? 1 : 0;
}

/* run and train: one policy over one trace */
static int cmd_run(int argc, char **argv, const char *model_out)
{
	struct sim_result r;
	struct trace t;
	struct args a;
	char err[256];
	int ret;

	optind = model_out ? 3 : 2;
	if (parse(argc, argv, model_out ? TRAIN_OPTS : RUN_OPTS, &a) ||
	    optind != argc)
		return usage();
	/* what train saves is a bandit's learner: another policy has none */
	if (model_out && a.c.kind < POL_BANDIT) {
		fprintf(stderr, "indigo-sim: train: only the bandit policies learn a model\n");
		return 2;
	}
	/* only the bandits load a model: any other policy would ignore it */
	if (a.c.model_in && a.c.kind < POL_BANDIT) {
		fprintf(stderr, "indigo-sim: -m: only the bandit policies load a model\n");
		return 2;
	}
	a.c.model_out = model_out;
	ret = trace_load(&t, argv[1], err, sizeof(err));
	if (ret) {
		fprintf(stderr, "indigo-sim: %s\n", err);
		return 1;
	}
	ret = table_run_one(&t, &a.p, &a.c, &r, err, sizeof(err));
	trace_free(&t);
	if (ret) {
		fprintf(stderr, "indigo-sim: %s\n", *err ? err : strerror(-ret));
		return 1;
	}
	print_result(a.c.kind < 0 ? "oracle" : pol_name(a.c.kind), &r);
	return 0;
}

static int cmd_table(int argc, char **argv)
{
	struct table_opts o = { 0 };
	char cmd[1024], err[1024];
	struct args a;
	int ret, i;
	size_t len = 0;

	optind = 2;
	if (parse(argc, argv, TABLE_OPTS, &a))
		return usage();
	for (i = 0; i < argc && len < sizeof(cmd); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s%s",
					i ? " " : "", argv[i]);
	o.outdir = argv[1];
	/* the results are written after minutes of runs: refuse a bad place now */
	if (access(o.outdir, W_OK | X_OK)) {
		fprintf(stderr, "indigo-sim: %s: %s\n", o.outdir, strerror(errno));
		return 1;
	}
	o.npages = a.npages;
	o.n = a.n;
	o.real = (const char *const *)argv + optind;
	o.nreal = (size_t)(argc - optind);
	o.real_repeat = a.real_repeat;
	o.seed = a.p.seed;
	o.threads = a.p.threads;
	o.command = getenv("SIM_TABLE_COMMAND") ? getenv("SIM_TABLE_COMMAND") : cmd;
	ret = table_make(&o, stderr, err, sizeof(err));
	if (ret)
		fprintf(stderr, "indigo-sim: table: %s\n", *err ? err : strerror(-ret));
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	argc--;
	argv++;
	if (!strcmp(argv[0], "gen"))
		return cmd_gen(argc, argv);
	if (!strcmp(argv[0], "run"))
		return cmd_run(argc, argv, NULL);
	if (!strcmp(argv[0], "train"))
		return argc < 3 ? usage() : cmd_run(argc, argv, argv[2]);
	if (!strcmp(argv[0], "table"))
		return cmd_table(argc, argv);
	return usage();
}
