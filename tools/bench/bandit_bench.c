// SPDX-License-Identifier: GPL-2.0
/*
 * bandit_bench: nanoseconds per decision (choose + update) of each online
 * learner at d = 16 features and K = 32 arms, printed as a Markdown table.
 *
 *	bandit_bench [rounds]		(default 200000, after 20000 warm-up)
 *
 * Contexts and rewards come from a fixed synthetic linear problem computed
 * before timing, so only the learner is measured. Each figure is the best
 * of 5 timed passes (the least disturbed by anything else on the machine),
 * with the median alongside for choose+update. "choose only" repeats the
 * pass without updates (the state frozen after the warm-up), so update
 * cost = total - choose.
 */
#define _POSIX_C_SOURCE 199309L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bandit.h"
#include "num.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "(not recorded: build with -DBENCH_CFLAGS='\"...\"')"
#endif

#define D	16
#define K	32
#define RING	4096	/* distinct contexts, cycled */
#define WARMUP	20000
#define PASSES	5

struct problem {
	double x[RING][D];
	double r[RING][K];	/* reward of each arm for each context */
};

struct variant {
	const char *name;
	enum bandit_kind kind;
	int want_prop;		/* ask bandit_choose for a propensity */
	double forget;		/* bandit_params.forget */
};

static const struct variant variants[] = {
	{ "LinUCB (alpha 1)", BANDIT_LINUCB, 1, 1 },
	/* indigod's default: every update refactors A */
	{ "LinUCB, forget 0.5", BANDIT_LINUCB, 1, 0.5 },
	{ "Thompson, no propensity (hot path)", BANDIT_THOMPSON, 0, 1 },
	{ "Thompson + propensity (M = 32)", BANDIT_THOMPSON, 1, 1 },
	{ "epsilon-greedy (0.1)", BANDIT_EGREEDY, 1, 1 },
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
	double u = ((double)(splitmix64(s) >> 11) + 0.5) * 0x1.0p-53;
	double v = (double)(splitmix64(s) >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Unit-norm contexts, Gaussian arm weights, rewards with N(0, 0.1^2) noise */
static void problem_init(struct problem *p)
{
	double theta[K][D], n;
	uint64_t s = 12345;
	unsigned int c, k, i;

	for (k = 0; k < K; k++)
		for (i = 0; i < D; i++)
			theta[k][i] = normal(&s);
	for (c = 0; c < RING; c++) {
		n = 0;
		for (i = 0; i < D; i++) {
			p->x[c][i] = normal(&s);
			n += p->x[c][i] * p->x[c][i];
		}
		for (i = 0; i < D; i++)
			p->x[c][i] /= sqrt(n);
		for (k = 0; k < K; k++) {
			double m = 0;

			for (i = 0; i < D; i++)
				m += theta[k][i] * p->x[c][i];
			p->r[c][k] = m + 0.1 * normal(&s);
		}
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* @rounds decisions from context *@c on; updates unless @learn is 0. */
static int run(struct bandit *b, const struct problem *p, unsigned int *c,
	       unsigned long rounds, int want_prop, int learn)
{
	double prop;
	unsigned int arm;
	int err;

	while (rounds--) {
		const double *x = p->x[*c % RING];

		err = bandit_choose(b, x, &arm, want_prop ? &prop : NULL);
		if (!err && learn)
			err = bandit_update(b, x, arm, p->r[*c % RING][arm]);
		if (err)
			return err;
		++*c;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Best and median over PASSES timed passes of ns per round. */
static int timed(struct bandit *b, const struct problem *p, unsigned int *c,
		 unsigned long rounds, int want_prop, int learn, double *best,
		 double *median)
{
	double t[PASSES], t0;
	int i, err;

	for (i = 0; i < PASSES; i++) {
		t0 = now_ns();
		err = run(b, p, c, rounds, want_prop, learn);
		if (err)
			return err;
		t[i] = (now_ns() - t0) / rounds;
	}
	qsort(t, PASSES, sizeof(t[0]), cmp_double);
	*best = t[0];
	*median = t[PASSES / 2];
	return 0;
}

static int bench(const struct variant *v, const struct problem *p,
		 unsigned long rounds)
{
	struct bandit_params bp;
	struct bandit *b;
	double total, total_med, choose, choose_med;
	unsigned int c = 0;
	int err;

	bandit_params_default(&bp);
	bp.forget = v->forget;
	err = bandit_new(&b, v->kind, D, K, &bp);
	if (err)
		return err;
	err = run(b, p, &c, WARMUP, v->want_prop, 1);
	if (!err)
		err = timed(b, p, &c, rounds, v->want_prop, 1, &total,
			    &total_med);
	if (!err)
		err = timed(b, p, &c, rounds, v->want_prop, 0, &choose,
			    &choose_med);
	bandit_free(b);
	if (err)
		return err;
	printf("| %s | %u | %u | %lu | %.0f | %.0f | %.0f | %.0f |\n", v->name,
	       D, K, rounds, total, total_med, choose, total - choose);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 200000;
	struct problem *p;
	unsigned int i;
	int err = 0;

	if (argc > 1) {
		uint64_t n;

		if (num_u64(argv[1], ULONG_MAX, &n) || !n) {
			fprintf(stderr, "usage: %s [rounds]\n", argv[0]);
			return 2;
		}
		rounds = n;
	}
	p = malloc(sizeof(*p));
	if (!p) {
		fprintf(stderr, "bandit_bench: out of memory\n");
		return 1;
	}
	problem_init(p);
	printf("compiler: gcc %s; flags: %s\n\n", __VERSION__, BENCH_CFLAGS);
	puts("| learner | d | K | rounds | choose+update ns | (median) | choose ns | update ns |");
	puts("|---|---|---|---|---|---|---|---|");
	for (i = 0; i < ARRAY_SIZE(variants) && !err; i++)
		err = bench(&variants[i], p, rounds);
	free(p);
	if (err) {
		fprintf(stderr, "bandit_bench: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
