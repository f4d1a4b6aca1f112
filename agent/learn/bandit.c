// SPDX-License-Identifier: GPL-2.0
/*
 * Online contextual bandits with disjoint linear arms. See bandit.h.
 *
 * Per arm, LinUCB and epsilon-greedy keep A^-1 by Sherman-Morrison (and
 * theta_hat = A^-1 b from it); Thompson keeps the Cholesky factor R
 * (A = R^T R) by rank-one Givens updates, and with it p = R^-T b, carried
 * through the same rotations (the QR form of recursive least squares), so
 * that theta_hat = R^-1 p needs no solve on the way. Choose costs
 * O(K d^2), update O(d^2). The maintained matrices drift with rounding, so
 * every rebuild_every updates of an arm they are recomputed from A and b,
 * which are exact running sums.
 *
 * Thompson sampling, as done here: for disjoint arms what decides the
 * argmax is only the sampled score theta_k^T x of each arm. With
 * theta_k = theta_hat_k + v R_k^-1 z, z ~ N(0, I_d), that score is
 *
 *	theta_hat_k^T x + v z^T (R_k^-T x)  ~  N(p_k^T w_k, v^2 |w_k|^2),
 *
 * w_k = R_k^-T x (so |w_k|^2 = x^T A_k^-1 x), independently across arms. So
 * one forward solve and one scalar normal per arm give exactly the
 * distribution of choices that drawing the whole theta_k would, for d times
 * fewer normal draws. bandit_sample_theta still draws the full vector.
 *
 * Normals come from a ziggurat over the xoshiro256** stream: a decision
 * needs K of them and a Thompson propensity M K more, and the ziggurat
 * takes a fraction of the time of the polar method's logarithm.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bandit.h"
#include "linalg.h"

#if BANDIT_DMAX != LA_DMAX
#error "BANDIT_DMAX must equal LA_DMAX"
#endif

#define PROP_SAMPLES_MAX	65536

struct bandit_rng {
	uint64_t s[4];		/* xoshiro256** state, never all zero */
};

/*
 * Ziggurat for N(0, 1) (Marsaglia & Tsang 2000): 256 layers of equal area
 * V under exp(-x^2/2), layer i spanning [0, x[i]]; the base layer includes
 * the tail beyond R. Derived from R and V alone, so it is rebuilt rather
 * than saved.
 */
#define ZIG_LAYERS	256
#define ZIG_R		3.6541528853610088
#define ZIG_V		4.92867323399e-3

struct bandit_zig {
	double x[ZIG_LAYERS + 1];
	double f[ZIG_LAYERS + 1];	/* exp(-x^2/2) at each x */
};

struct bandit_arm {
	uint64_t n;		/* updates so far */
	double *a;		/* A, d x d */
	double *m;		/* A^-1, or R with A = R^T R for Thompson */
	double *bv;		/* b = sum r x */
	/* theta_hat = A^-1 b; for Thompson p = R^-T b, so theta_hat = R^-1 p */
	double *t;
	double *dinv;		/* Thompson: 1 / diag(R), for the hot path */
};

struct bandit {
	enum bandit_kind kind;
	unsigned int d, K;
	struct bandit_params p;
	struct bandit_rng rng;
	struct bandit_zig zig;
	double *mu, *sd, *s;	/* per-arm score: mean, spread, draw (K each) */
	double *w;		/* Thompson: R_k^-T x of every arm (K x d) */
	double *work;		/* d x d scratch for rebuilds */
	struct bandit_arm arm[];
};

/* ---- generator: xoshiro256** (Blackman & Vigna), seeded by splitmix64 */

static uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64 is a bijection of its counter, so four outputs are never all 0 */
static void rng_seed(struct bandit_rng *g, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		g->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(struct bandit_rng *g)
{
	uint64_t *s = g->s;
	uint64_t r = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return r;
}

/*
 * [0, 1) with 53 random bits. They fit an int64_t, and converting that is
 * one instruction where a uint64_t takes a branchy sequence.
 */
static double rng_uniform(struct bandit_rng *g)
{
	return (double)(int64_t)(rng_next(g) >> 11) * 0x1.0p-53;
}

/* [0, n) without modulo bias (Lemire's multiply-and-reject), n >= 1 */
static unsigned int rng_below(struct bandit_rng *g, unsigned int n)
{
	uint64_t m = (rng_next(g) >> 32) * (uint64_t)n;
	uint32_t lo = (uint32_t)m;

	if (lo < n) {
		uint32_t t = (uint32_t)-n % n;

		while (lo < t) {
			m = (rng_next(g) >> 32) * (uint64_t)n;
			lo = (uint32_t)m;
		}
	}
	return (unsigned int)(m >> 32);
}

static double gauss(double x)
{
	return exp(-0.5 * x * x);
}

/* x[i + 1] from x[i]: the layer above has the same area V */
static void zig_init(struct bandit_zig *z)
{
	int i;

	z->x[0] = ZIG_V / gauss(ZIG_R);
	z->x[1] = ZIG_R;
	for (i = 2; i < ZIG_LAYERS; i++) {
		double h = ZIG_V / z->x[i - 1] + gauss(z->x[i - 1]);

		z->x[i] = h < 1 ? sqrt(-2 * log(h)) : 0;
	}
	z->x[ZIG_LAYERS] = 0;
	for (i = 0; i <= ZIG_LAYERS; i++)
		z->f[i] = gauss(z->x[i]);
}

/* Beyond R, by Marsaglia's exponential rejection (1964). */
static double zig_tail(struct bandit_rng *g)
{
	double a, e;

	do {
		/* 1 - u is in (0, 1], so the logarithms are finite */
		a = -log(1 - rng_uniform(g)) / ZIG_R;
		e = -log(1 - rng_uniform(g));
	} while (2 * e < a * a);
	return ZIG_R + a;
}

/*
 * N(0, 1). One 64-bit draw gives the layer (bits 0-7), the sign (bit 8)
 * and the abscissa (bits 11-63); about 99 % of draws are accepted right
 * there, without a transcendental function. That matters: a Thompson
 * decision takes K of them, its propensity M K more.
 */
static double rng_normal(struct bandit_rng *g, const struct bandit_zig *z)
{
	for (;;) {
		uint64_t u = rng_next(g);
		unsigned int i = u & 0xff;
		/* arithmetic, not a branch: the sign is a coin flip */
		double sign = 1 - (double)((u >> 7) & 2);
		double y = (double)(int64_t)(u >> 11) * 0x1.0p-53 * z->x[i];

		if (y < z->x[i + 1])
			return sign * y;
		if (i == 0)
			return sign * zig_tail(g);
		/* in the wedge between the layer's box and the curve? */
		if (z->f[i] + rng_uniform(g) * (z->f[i + 1] - z->f[i]) <
		    gauss(y))
			return sign * y;
	}
}

/* ---- construction */

void bandit_params_default(struct bandit_params *p)
{
	p->lambda = 1;
	p->alpha = 1;
	p->v = 0.5;
	p->epsilon = 0.1;
	p->seed = 1;
	p->rebuild_every = 1000;
	p->prop_samples = 32;
	p->forget = 1;
}

static int forget_ok(double f)
{
	return f > 0 && f <= 1;	/* false for NaN */
}

static int params_ok(const struct bandit_params *p)
{
	return isfinite(p->lambda) && p->lambda > 0 &&
	       isfinite(p->alpha) && p->alpha >= 0 &&
	       isfinite(p->v) && p->v >= 0 &&
	       p->epsilon >= 0 && p->epsilon <= 1 &&
	       p->prop_samples >= 1 && p->prop_samples <= PROP_SAMPLES_MAX &&
	       forget_ok(p->forget);
}

static int kind_ok(unsigned int kind)
{
	return kind == BANDIT_LINUCB || kind == BANDIT_THOMPSON ||
	       kind == BANDIT_EGREEDY;
}

static int shape_ok(unsigned int kind, unsigned int d, unsigned int K)
{
	return kind_ok(kind) && d >= 1 && d <= BANDIT_DMAX &&
	       K >= 1 && K <= BANDIT_KMAX;
}

/* doubles per arm in a snapshot: A, the maintained matrix, b, t */
static size_t arm_saved_doubles(unsigned int d)
{
	return 2 * (size_t)d * d + 2 * (size_t)d;
}

/* and in memory, with dinv */
static size_t arm_doubles(unsigned int d)
{
	return arm_saved_doubles(d) + d;
}

/*
 * One allocation holds the learner, its arm table and every matrix, so
 * there is exactly one owner and one free. The matrices start on a cache
 * line.
 */
static struct bandit *bandit_alloc(unsigned int kind, unsigned int d,
				   unsigned int K)
{
	size_t head = sizeof(struct bandit) + K * sizeof(struct bandit_arm);
	size_t pool = (K * arm_doubles(d) + 3 * (size_t)K + (size_t)K * d +
		       (size_t)d * d) * sizeof(double);
	size_t size, k;
	struct bandit *b;
	double *q;

	head = (head + 63) & ~(size_t)63;
	size = (head + pool + 63) & ~(size_t)63;
	b = aligned_alloc(64, size);
	if (!b)
		return NULL;
	memset(b, 0, size);
	zig_init(&b->zig);
	b->kind = kind;
	b->d = d;
	b->K = K;
	q = (double *)((char *)b + head);
	for (k = 0; k < K; k++) {
		struct bandit_arm *a = &b->arm[k];

		a->a = q;
		a->m = q + (size_t)d * d;
		a->bv = q + 2 * (size_t)d * d;
		a->t = a->bv + d;
		a->dinv = a->t + d;
		q += arm_doubles(d);
	}
	b->mu = q;
	b->sd = q + K;
	b->s = q + 2 * (size_t)K;
	b->w = q + 3 * (size_t)K;
	b->work = b->w + (size_t)K * d;
	return b;
}

/* Thompson's cached pivot reciprocals, after any change to R */
static void arm_refresh_dinv(const struct bandit *b, struct bandit_arm *a)
{
	la_pivot_reciprocals(a->m, a->dinv, b->d);
}

int bandit_new(struct bandit **bp, enum bandit_kind kind, unsigned int d,
	       unsigned int K, const struct bandit_params *p)
{
	struct bandit_params def;
	struct bandit *b;
	unsigned int k;

	if (!bp)
		return -EINVAL;
	if (!p) {
		bandit_params_default(&def);
		p = &def;
	}
	if (!shape_ok(kind, d, K) || !params_ok(p))
		return -EINVAL;
	b = bandit_alloc(kind, d, K);
	if (!b)
		return -ENOMEM;
	b->p = *p;
	rng_seed(&b->rng, p->seed);
	/* A = lambda I; A^-1 = I / lambda, R = sqrt(lambda) I; b = t = 0 */
	for (k = 0; k < K; k++) {
		la_eye(b->arm[k].a, d, p->lambda);
		la_eye(b->arm[k].m, d, kind == BANDIT_THOMPSON ?
		       sqrt(p->lambda) : 1 / p->lambda);
		arm_refresh_dinv(b, &b->arm[k]);
	}
	*bp = b;
	return 0;
}

void bandit_free(struct bandit *b)
{
	free(b);
}

/* ---- choosing */

/*
 * Inputs are bounded, |x| <= 1e100 and |r| |x| <= 1e100, so that A and b,
 * sums of at most 2^64 such terms, can never overflow.
 */
#define VAL_MAX		1e100

/* |x|^2, or -1 if @x has a non-finite entry or is out of range */
static double vec_norm2(const double *x, unsigned int d)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < d; i++) {
		if (!isfinite(x[i]))
			return -1;
		s += x[i] * x[i];
	}
	return s <= VAL_MAX * VAL_MAX ? s : -1;
}

/* Strict '>' keeps the lowest index on ties; a NaN score never wins. */
static unsigned int argmax(const double *s, unsigned int n)
{
	double best = -INFINITY;
	unsigned int i, arg = 0;

	for (i = 0; i < n; i++) {
		if (s[i] > best) {
			best = s[i];
			arg = i;
		}
	}
	return arg;
}

static unsigned int greedy_arm(struct bandit *b, const double *x)
{
	unsigned int k;

	for (k = 0; k < b->K; k++)
		b->mu[k] = la_dot(b->arm[k].t, x, b->d);
	return argmax(b->mu, b->K);
}

static unsigned int linucb_choose(struct bandit *b, const double *x)
{
	unsigned int k;

	for (k = 0; k < b->K; k++) {
		const struct bandit_arm *a = &b->arm[k];
		/* A^-1 is positive definite; rounding may still dip below 0 */
		double q = fmax(la_quad(a->m, x, b->d), 0);

		b->mu[k] = la_dot(a->t, x, b->d) + b->p.alpha * sqrt(q);
	}
	return argmax(b->mu, b->K);
}

static unsigned int egreedy_choose(struct bandit *b, const double *x,
				   double *prop)
{
	double eps = b->p.epsilon;
	unsigned int g = greedy_arm(b, x), arm = g;

	/* draw even when eps is 0, so the stream does not depend on eps */
	if (rng_uniform(&b->rng) < eps)
		arm = rng_below(&b->rng, b->K);
	if (prop)
		*prop = arm == g ? 1 - eps + eps / b->K : eps / b->K;
	return arm;
}

/* One posterior draw of every arm's score; the winner. */
static unsigned int thompson_draw(struct bandit *b, double *s)
{
	unsigned int k;

	for (k = 0; k < b->K; k++)
		s[k] = b->mu[k] + b->sd[k] * rng_normal(&b->rng, &b->zig);
	return argmax(s, b->K);
}

/*
 * Monte Carlo estimate of P(arm wins | x, state) from M fresh draws,
 * floored at 1/(M+1): an arm that was just chosen has positive
 * probability, and the floor bounds an importance weight by M + 1.
 */
static double thompson_propensity(struct bandit *b, unsigned int arm, double *s)
{
	unsigned int M = b->p.prop_samples, i, won = 0;
	double p;

	for (i = 0; i < M; i++)
		won += thompson_draw(b, s) == arm;
	p = (double)won / M;
	return fmax(p, 1.0 / (M + 1));
}

/* y -= a * ca + b * cb, for y apart from a and b */
static inline void sub2(double *restrict y, const double *restrict a,
			double ca, const double *restrict b, double cb,
			size_t n)
{
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		y[i] -= a[i] * ca + b[i] * cb;
		y[i + 1] -= a[i + 1] * ca + b[i + 1] * cb;
	}
	if (i < n)
		y[i] -= a[i] * ca + b[i] * cb;
}

/*
 * Steps j and j + 1 of the forward substitution R^T w = x for one arm
 * (w overwritten in place, pivots by a->dinv). Adds w_j^2 + w_{j+1}^2 to
 * *@ss and p_j w_j + p_{j+1} w_{j+1} to *@mu. Two steps per pass over the
 * rest of w halve the passes.
 */
static inline void fsub2(const struct bandit_arm *a, double *w, size_t j,
			 size_t d, double *ss, double *mu)
{
	const double *rj = a->m + j * d, *rj1 = rj + d;
	double wj = w[j] * a->dinv[j], wj1;

	wj1 = (w[j + 1] - rj[j + 1] * wj) * a->dinv[j + 1];
	sub2(w + j + 2, rj + j + 2, wj, rj1 + j + 2, wj1, d - j - 2);
	*ss += wj * wj + wj1 * wj1;
	*mu += a->t[j] * wj + a->t[j + 1] * wj1;
}

/*
 * Score mean and spread of every arm: with w_k = R_k^-T x, the mean is
 * theta_hat_k . x = p_k . w_k and the spread v |w_k|.
 *
 * The forward substitution is a chain of d dependent steps per arm;
 * taking all K arms through steps j, j + 1 before any goes further gives
 * the CPU K independent chains to overlap, where arm after arm it would
 * mostly wait. Pivots are multiplied by their cached reciprocals.
 */
static void thompson_scores(struct bandit *b, const double *x)
{
	size_t d = b->d, K = b->K, j, k;
	double *w = b->w, *ss = b->sd, *mu = b->mu;

	for (k = 0; k < K; k++) {
		memcpy(w + k * d, x, sizeof(*w) * d);
		ss[k] = 0;
		mu[k] = 0;
	}
	for (j = 0; j + 2 <= d; j += 2)
		for (k = 0; k < K; k++)
			fsub2(&b->arm[k], w + k * d, j, d, &ss[k], &mu[k]);
	if (j < d) {
		for (k = 0; k < K; k++) {
			const struct bandit_arm *a = &b->arm[k];
			double wj = w[k * d + j] * a->dinv[j];

			ss[k] += wj * wj;
			mu[k] += a->t[j] * wj;
		}
	}
	for (k = 0; k < K; k++)
		b->sd[k] = b->p.v * sqrt(ss[k]);
}

static unsigned int thompson_choose(struct bandit *b, const double *x,
				    double *prop)
{
	unsigned int arm;

	thompson_scores(b, x);
	arm = thompson_draw(b, b->s);
	if (prop)
		*prop = thompson_propensity(b, arm, b->s);
	return arm;
}

int bandit_choose(struct bandit *b, const double *x, unsigned int *arm,
		  double *propensity)
{
	unsigned int k;

	if (!b || !x || !arm || vec_norm2(x, b->d) < 0)
		return -EINVAL;
	switch (b->kind) {
	case BANDIT_LINUCB:
		k = linucb_choose(b, x);
		if (propensity)
			*propensity = 1;
		break;
	case BANDIT_THOMPSON:
		k = thompson_choose(b, x, propensity);
		break;
	case BANDIT_EGREEDY:
		k = egreedy_choose(b, x, propensity);
		break;
	default:
		return -EINVAL;
	}
	*arm = k;
	return 0;
}

/* ---- learning */

/*
 * Recompute an arm's maintained matrix from A. The factor goes to scratch
 * first, so a failure leaves the old matrix in place.
 */
static int arm_rebuild(struct bandit *b, struct bandit_arm *a)
{
	int err = la_chol(a->a, b->work, b->d);

	if (err)
		return err;
	if (b->kind != BANDIT_THOMPSON) {
		err = la_chol_inverse(b->work, a->m, b->d);
		la_matvec(a->m, a->bv, a->t, b->d);
		return err;
	}
	memcpy(a->m, b->work, sizeof(*a->m) * b->d * b->d);
	arm_refresh_dinv(b, a);
	la_solve_rt_rd(a->m, a->dinv, a->bv, a->t, b->d);	/* p = R^-T b */
	return 0;
}

/*
 * Bring the maintained state along with A += x x^T, b += r x: A^-1 by
 * Sherman-Morrison and theta_hat = A^-1 b afresh; or R and p by the same
 * Givens rotations, which leaves theta_hat implicit (R^-1 p) and costs no
 * triangular solve at all.
 */
static int arm_track(struct bandit *b, struct bandit_arm *a, const double *x,
		     double r)
{
	double xs[BANDIT_DMAX];
	int err;

	if (b->p.rebuild_every && a->n % b->p.rebuild_every == 0)
		return arm_rebuild(b, a);
	if (b->kind == BANDIT_THOMPSON) {
		memcpy(xs, x, sizeof(*xs) * b->d);
		err = la_chol_update(a->m, xs, a->t, r, b->d);
		if (!err)
			arm_refresh_dinv(b, a);
	} else {
		err = la_sherman_morrison(a->m, x, b->d);
		if (!err)
			la_matvec(a->m, a->bv, a->t, b->d);
	}
	/* a rank-one step that broke down: start afresh from A and b */
	return err ? arm_rebuild(b, a) : 0;
}

/* A = f A + (1 - f) lambda I, b = f b: the history fades, the prior stays */
static void arm_forget(const struct bandit *b, struct bandit_arm *a)
{
	double f = b->p.forget;
	unsigned int i, d = b->d;

	for (i = 0; i < d * d; i++)
		a->a[i] *= f;
	for (i = 0; i < d; i++) {
		a->a[i * d + i] += (1 - f) * b->p.lambda;
		a->bv[i] *= f;
	}
}

int bandit_update(struct bandit *b, const double *x, unsigned int arm, double r)
{
	struct bandit_arm *a;
	unsigned int i;
	double n2;

	if (!b || !x || arm >= b->K || !isfinite(r))
		return -EINVAL;
	n2 = vec_norm2(x, b->d);
	if (n2 < 0 || fabs(r) * sqrt(n2) > VAL_MAX)
		return -EINVAL;
	a = &b->arm[arm];
	if (b->p.forget < 1)
		arm_forget(b, a);
	la_syr(a->a, x, b->d);
	for (i = 0; i < b->d; i++)
		a->bv[i] += r * x[i];
	a->n++;
	/* a scaled A is no rank-one step from the maintained matrix */
	return b->p.forget < 1 ? arm_rebuild(b, a) : arm_track(b, a, x, r);
}

int bandit_sample_theta(struct bandit *b, unsigned int arm, double *theta)
{
	double z[BANDIT_DMAX];
	const struct bandit_arm *a;
	unsigned int i;

	if (!b || !theta || b->kind != BANDIT_THOMPSON || arm >= b->K)
		return -EINVAL;
	a = &b->arm[arm];
	/* theta_hat + v R^-1 z = R^-1 (p + v z); cov(R^-1 z) = (R^T R)^-1 */
	for (i = 0; i < b->d; i++)
		z[i] = a->t[i] + b->p.v * rng_normal(&b->rng, &b->zig);
	la_solve_r_rd(a->m, a->dinv, z, theta, b->d);
	return 0;
}

/* ---- accessors */

enum bandit_kind bandit_kind(const struct bandit *b)
{
	return b->kind;
}

unsigned int bandit_dim(const struct bandit *b)
{
	return b->d;
}

unsigned int bandit_arms(const struct bandit *b)
{
	return b->K;
}

void bandit_get_params(const struct bandit *b, struct bandit_params *p)
{
	*p = b->p;
}

int bandit_set_tuning(struct bandit *b, const struct bandit_params *p)
{
	struct bandit_params q;

	if (!b || !p)
		return -EINVAL;
	q = *p;
	q.lambda = b->p.lambda;
	q.seed = b->p.seed;
	if (!params_ok(&q))
		return -EINVAL;
	b->p = q;
	return 0;
}

static const struct bandit_arm *arm_of(const struct bandit *b, unsigned int arm,
				       const void *out)
{
	return b && out && arm < b->K ? &b->arm[arm] : NULL;
}

int bandit_arm_a(const struct bandit *b, unsigned int arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	memcpy(out, a->a, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_ainv(const struct bandit *b, unsigned int arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	if (b->kind == BANDIT_THOMPSON)
		return la_chol_inverse(a->m, out, b->d);
	memcpy(out, a->m, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_chol(const struct bandit *b, unsigned int arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	if (b->kind != BANDIT_THOMPSON)
		return la_chol(a->a, out, b->d);
	memcpy(out, a->m, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_theta(const struct bandit *b, unsigned int arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	if (b->kind == BANDIT_THOMPSON)
		la_solve_r_rd(a->m, a->dinv, a->t, out, b->d);
	else
		memcpy(out, a->t, sizeof(*out) * b->d);
	return 0;
}

int bandit_arm_updates(const struct bandit *b, unsigned int arm, uint64_t *n)
{
	const struct bandit_arm *a = arm_of(b, arm, n);

	if (!a)
		return -EINVAL;
	*n = a->n;
	return 0;
}

/*
 * ---- snapshots
 *
 * Binary, little-endian whatever the host, doubles as their IEEE-754 bit
 * patterns, so a snapshot restores the learner bit for bit:
 *
 *   header, 124 bytes
 *	0   magic "INDGBNDT"		8 bytes
 *	8   u32 version (2)		12  u32 kind
 *	16  u32 d			20  u32 K
 *	24  f64 lambda, alpha, v, epsilon
 *	56  u64 seed
 *	64  u32 rebuild_every		68  u32 prop_samples
 *	72  u64 xoshiro state[4]
 *	104 u64 payload bytes = K * (8 + 8 * (2 d^2 + 2 d))
 *	112 f64 forget
 *	120 u32 CRC-32 of bytes 0..119
 *   payload, per arm: u64 n; f64 A[d*d], M[d*d], b[d], t[d]
 *	(M = A^-1 and t = theta_hat, or for Thompson M = R with A = R^T R
 *	and t = p = R theta_hat)
 *   trailer: u32 CRC-32 of the payload
 *
 * Version 1, written before the forgetting factor, is the same without
 * forget: 116 bytes, its CRC at 112. It still loads, with forget 1, which
 * is how it learnt.
 *
 * The header has its own CRC so that nothing is allocated on the word of
 * a damaged header, and states the payload size so that dimensions that do
 * not match the data are caught before reading it. CRC-32 is the IEEE
 * (zlib, Ethernet) one.
 */
#define SNAP_MAGIC	"INDGBNDT"
#define SNAP_VERSION	2
#define SNAP_HEADER	124
#define SNAP_HEADER_V1	116
#define SNAP_FIXED	12	/* magic and version: what tells the length */

/* the offset of a header's CRC, which is its length less 4 */
static unsigned int snap_hcrc(uint32_t version)
{
	return (version == 1 ? SNAP_HEADER_V1 : SNAP_HEADER) - 4;
}

struct snap_io {
	FILE *f;
	uint32_t crc;
	int err;		/* first error, sticky */
	uint32_t table[256];
};

static void crc_init(struct snap_io *io)
{
	uint32_t i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		io->table[i] = c;
	}
	io->crc = 0;
	io->err = 0;
}

/* Running CRC-32: start from 0, feed bytes, the value is the checksum. */
static uint32_t crc_feed(const struct snap_io *io, uint32_t crc,
			 const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = io->table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void le_put(unsigned char *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_get(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t f64_bits(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

static double bits_f64(uint64_t u)
{
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

static uint64_t payload_bytes(unsigned int d, unsigned int K)
{
	return (uint64_t)K * (8 + 8 * (uint64_t)arm_saved_doubles(d));
}

static void snap_write(struct snap_io *io, const unsigned char *p, size_t n)
{
	if (io->err)
		return;
	if (fwrite(p, 1, n, io->f) != n)
		io->err = -EIO;
	io->crc = crc_feed(io, io->crc, p, n);
}

/* Short reads are truncation (-EINVAL) unless the stream reports an error. */
static void snap_read(struct snap_io *io, unsigned char *p, size_t n)
{
	if (io->err)
		return;
	if (fread(p, 1, n, io->f) != n) {
		io->err = ferror(io->f) ? -EIO : -EINVAL;
		return;
	}
	io->crc = crc_feed(io, io->crc, p, n);
}

/* Doubles travel in blocks so a large learner is not a call per byte. */
static void snap_write_f64s(struct snap_io *io, const double *x, size_t n)
{
	unsigned char buf[8 * 64];
	size_t i, c;

	while (n) {
		c = n < 64 ? n : 64;
		for (i = 0; i < c; i++)
			le_put(buf + 8 * i, f64_bits(x[i]), 8);
		snap_write(io, buf, 8 * c);
		x += c;
		n -= c;
	}
}

/* Reads n doubles; -EINVAL for any that is not finite. */
static void snap_read_f64s(struct snap_io *io, double *x, size_t n)
{
	unsigned char buf[8 * 64];
	size_t i, c;

	while (n && !io->err) {
		c = n < 64 ? n : 64;
		snap_read(io, buf, 8 * c);
		for (i = 0; i < c && !io->err; i++) {
			x[i] = bits_f64(le_get(buf + 8 * i, 8));
			if (!isfinite(x[i]))
				io->err = -EINVAL;
		}
		x += c;
		n -= c;
	}
}

static void header_encode(const struct bandit *b, unsigned char *h)
{
	const struct bandit_params *p = &b->p;
	int i;

	memset(h, 0, SNAP_HEADER);
	memcpy(h, SNAP_MAGIC, 8);
	le_put(h + 8, SNAP_VERSION, 4);
	le_put(h + 12, b->kind, 4);
	le_put(h + 16, b->d, 4);
	le_put(h + 20, b->K, 4);
	le_put(h + 24, f64_bits(p->lambda), 8);
	le_put(h + 32, f64_bits(p->alpha), 8);
	le_put(h + 40, f64_bits(p->v), 8);
	le_put(h + 48, f64_bits(p->epsilon), 8);
	le_put(h + 56, p->seed, 8);
	le_put(h + 64, p->rebuild_every, 4);
	le_put(h + 68, p->prop_samples, 4);
	for (i = 0; i < 4; i++)
		le_put(h + 72 + 8 * i, b->rng.s[i], 8);
	le_put(h + 104, payload_bytes(b->d, b->K), 8);
	le_put(h + 112, f64_bits(p->forget), 8);
}

int bandit_save(const struct bandit *b, FILE *f)
{
	struct snap_io io;
	unsigned char h[SNAP_HEADER], w[8];
	unsigned int k, d;

	if (!b || !f)
		return -EINVAL;
	d = b->d;
	crc_init(&io);
	io.f = f;
	header_encode(b, h);
	le_put(h + snap_hcrc(SNAP_VERSION),
	       crc_feed(&io, 0, h, snap_hcrc(SNAP_VERSION)), 4);
	snap_write(&io, h, SNAP_HEADER);
	io.crc = 0;
	for (k = 0; k < b->K; k++) {
		const struct bandit_arm *a = &b->arm[k];

		le_put(w, a->n, 8);
		snap_write(&io, w, 8);
		snap_write_f64s(&io, a->a, (size_t)d * d);
		snap_write_f64s(&io, a->m, (size_t)d * d);
		snap_write_f64s(&io, a->bv, d);
		snap_write_f64s(&io, a->t, d);
	}
	le_put(w, io.crc, 4);
	snap_write(&io, w, 4);
	if (!io.err && fflush(f))
		io.err = -EIO;
	return io.err;
}

/*
 * Everything the header claims is checked before anything is allocated:
 * its magic and version (by the caller, as they give the header's length),
 * its CRC, a known kind, dimensions in range, valid parameters, a usable
 * generator state and a payload size that matches.
 */
static int header_decode(const struct snap_io *io, const unsigned char *h,
			 unsigned int *kind, unsigned int *d, unsigned int *K,
			 struct bandit_params *p, struct bandit_rng *g)
{
	uint32_t version = (uint32_t)le_get(h + 8, 4);
	unsigned int hcrc = snap_hcrc(version);
	int i;

	if (le_get(h + hcrc, 4) != crc_feed(io, 0, h, hcrc))
		return -EINVAL;
	*kind = (unsigned int)le_get(h + 12, 4);
	*d = (unsigned int)le_get(h + 16, 4);
	*K = (unsigned int)le_get(h + 20, 4);
	p->lambda = bits_f64(le_get(h + 24, 8));
	p->alpha = bits_f64(le_get(h + 32, 8));
	p->v = bits_f64(le_get(h + 40, 8));
	p->epsilon = bits_f64(le_get(h + 48, 8));
	p->seed = le_get(h + 56, 8);
	p->rebuild_every = (unsigned int)le_get(h + 64, 4);
	p->prop_samples = (unsigned int)le_get(h + 68, 4);
	for (i = 0; i < 4; i++)
		g->s[i] = le_get(h + 72 + 8 * i, 8);
	p->forget = version == 1 ? 1 : bits_f64(le_get(h + 112, 8));
	if (!shape_ok(*kind, *d, *K) || !params_ok(p) ||
	    !(g->s[0] | g->s[1] | g->s[2] | g->s[3]) ||
	    le_get(h + 104, 8) != payload_bytes(*d, *K))
		return -EINVAL;
	return 0;
}

/*
 * A and a factor need a positive diagonal: the solves divide by R's, and
 * a learner built by bandit_new never has anything else.
 */
static int arm_sane(const struct bandit *b, const struct bandit_arm *a)
{
	unsigned int i, d = b->d;

	for (i = 0; i < d; i++) {
		if (!(a->a[i * d + i] > 0) || !(a->m[i * d + i] > 0))
			return 0;
	}
	return 1;
}

static int load_arms(struct snap_io *io, struct bandit *b)
{
	unsigned char w[8];
	unsigned int k, d = b->d;
	uint32_t crc;

	io->crc = 0;
	for (k = 0; k < b->K && !io->err; k++) {
		struct bandit_arm *a = &b->arm[k];

		snap_read(io, w, 8);
		a->n = le_get(w, 8);
		snap_read_f64s(io, a->a, (size_t)d * d);
		snap_read_f64s(io, a->m, (size_t)d * d);
		snap_read_f64s(io, a->bv, d);
		snap_read_f64s(io, a->t, d);
		if (!io->err && !arm_sane(b, a))
			io->err = -EINVAL;
		/* derived, so not saved */
		if (!io->err)
			arm_refresh_dinv(b, a);
	}
	if (io->err)
		return io->err;
	crc = io->crc;
	snap_read(io, w, 4);
	if (!io->err && le_get(w, 4) != crc)
		return -EINVAL;
	return io->err;
}

int bandit_load(struct bandit **bp, FILE *f)
{
	struct snap_io io;
	unsigned char h[SNAP_HEADER];
	struct bandit_params p;
	struct bandit_rng g;
	unsigned int kind, d, K;
	uint32_t version;
	struct bandit *b;
	int err;

	if (!bp || !f)
		return -EINVAL;
	crc_init(&io);
	io.f = f;
	snap_read(&io, h, SNAP_FIXED);
	if (io.err)
		return io.err;
	version = (uint32_t)le_get(h + 8, 4);
	if (memcmp(h, SNAP_MAGIC, 8) || version < 1 || version > SNAP_VERSION)
		return -EINVAL;
	snap_read(&io, h + SNAP_FIXED, snap_hcrc(version) + 4 - SNAP_FIXED);
	if (io.err)
		return io.err;
	err = header_decode(&io, h, &kind, &d, &K, &p, &g);
	if (err)
		return err;
	b = bandit_alloc(kind, d, K);
	if (!b)
		return -ENOMEM;
	b->p = p;
	b->rng = g;
	err = load_arms(&io, b);
	if (err) {
		bandit_free(b);
		return err;
	}
	*bp = b;
	return 0;
}
