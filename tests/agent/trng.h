/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent tests' own random numbers: splitmix64, independent of the
 * learners' generator, so a test's data does not move with the code under
 * test.
 */
#ifndef INDIGO_TRNG_H
#define INDIGO_TRNG_H

#include <math.h>
#include <stdint.h>

struct trng {
	uint64_t s;
};

static inline uint64_t trng_next(struct trng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* (0, 1) */
static inline double trng_unit(struct trng *g)
{
	return ((double)(trng_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

/* [-1, 1) */
static inline double trng_sym(struct trng *g)
{
	return (double)(trng_next(g) >> 11) * 0x1.0p-52 - 1;
}

/* N(0, 1), Box-Muller */
static inline double trng_normal(struct trng *g)
{
	double u = trng_unit(g), v = trng_unit(g);

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static inline void rand_vec(struct trng *g, double *x, unsigned int d)
{
	unsigned int i;

	for (i = 0; i < d; i++)
		x[i] = trng_sym(g);
}

#endif /* INDIGO_TRNG_H */
