// SPDX-License-Identifier: GPL-2.0
/*
 * Online contextual bandits with disjoint linear arms. See bandit.h.
 *
 * Per arm, LinUCB and epsilon-greedy keep A^-1 by Sherman-Morrison and
 * Thompson keeps the Cholesky factor R (A = R^T R) by rank-one updates, so
 * choose and update cost O(K d^2) and O(d^2). Both drift with rounding, so
 * every rebuild_every updates of an arm the maintained matrix is recomputed
 * from A, which itself is an exact running sum.
 *
 * Thompson sampling, as chosen here: for disjoint arms what decides the
 * argmax is only the sampled score theta_k^T x of each arm. With
 * theta_k = theta_hat_k + v R_k^-1 z, z ~ N(0, I_d), that score is
 *
 *	theta_hat_k^T x + v z^T (R_k^-T x)  ~  N(theta_hat_k^T x, v^2 |w_k|^2),
 *
 * w_k = R_k^-T x (so |w_k|^2 = x^T A_k^-1 x), independently across arms. So
 * one forward solve and one scalar normal per arm give exactly the
 * distribution of choices that drawing the whole theta_k would, for d times
 * fewer normal draws. bandit_sample_theta still draws the full vector.
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
	double spare;		/* second normal of the last polar pair */
	int has_spare;
};

struct bandit_arm {
	uint64_t n;		/* updates so far */
	double *a;		/* A, d x d */
	double *m;		/* A^-1, or R with A = R^T R for Thompson */
	double *bv;		/* b = sum r x */
	double *theta;		/* theta_hat = A^-1 b, kept current */
};

struct bandit {
	enum bandit_kind kind;
	unsigned d, K;
	struct bandit_params p;
	struct bandit_rng rng;
	double *mu, *sd, *s;	/* per-arm score: mean, spread, draw (K each) */
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
	g->spare = 0;
	g->has_spare = 0;
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

/* [0, 1) with 53 random bits */
static double rng_uniform(struct bandit_rng *g)
{
	return (double)(rng_next(g) >> 11) * 0x1.0p-53;
}

/* [0, n) without modulo bias (Lemire's multiply-and-reject), n >= 1 */
static unsigned rng_below(struct bandit_rng *g, unsigned n)
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
	return (unsigned)(m >> 32);
}

/* N(0, 1) by Marsaglia's polar method; the pair's second value is kept. */
static double rng_normal(struct bandit_rng *g)
{
	double u, v, s, f;

	if (g->has_spare) {
		g->has_spare = 0;
		return g->spare;
	}
	do {
		u = 2 * rng_uniform(g) - 1;
		v = 2 * rng_uniform(g) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	f = sqrt(-2 * log(s) / s);
	g->spare = v * f;
	g->has_spare = 1;
	return u * f;
}

/* ---- construction */

void bandit_params_default(struct bandit_params *p)
{
	p->lambda = 1;
	p->alpha = 1;
	p->v = 0.1;
	p->epsilon = 0.1;
	p->seed = 1;
	p->rebuild_every = 1000;
	p->prop_samples = 32;
}

static int params_ok(const struct bandit_params *p)
{
	return isfinite(p->lambda) && p->lambda > 0 &&
	       isfinite(p->alpha) && p->alpha >= 0 &&
	       isfinite(p->v) && p->v >= 0 &&
	       p->epsilon >= 0 && p->epsilon <= 1 &&
	       p->prop_samples >= 1 && p->prop_samples <= PROP_SAMPLES_MAX;
}

static int kind_ok(unsigned kind)
{
	return kind == BANDIT_LINUCB || kind == BANDIT_THOMPSON ||
	       kind == BANDIT_EGREEDY;
}

static int shape_ok(unsigned kind, unsigned d, unsigned K)
{
	return kind_ok(kind) && d >= 1 && d <= BANDIT_DMAX &&
	       K >= 1 && K <= BANDIT_KMAX;
}

/* doubles per arm: A, the maintained matrix, b, theta */
static size_t arm_doubles(unsigned d)
{
	return 2 * (size_t)d * d + 2 * (size_t)d;
}

/*
 * One allocation holds the learner, its arm table and every matrix, so
 * there is exactly one owner and one free. The matrices start on a cache
 * line (64 bytes = 8 doubles), and with d even each row stays aligned.
 */
static struct bandit *bandit_alloc(unsigned kind, unsigned d, unsigned K)
{
	size_t head = sizeof(struct bandit) + K * sizeof(struct bandit_arm);
	size_t pool = (K * arm_doubles(d) + 3 * (size_t)K + (size_t)d * d) *
		      sizeof(double);
	size_t size, k;
	struct bandit *b;
	double *q;

	head = (head + 63) & ~(size_t)63;
	size = (head + pool + 63) & ~(size_t)63;
	b = aligned_alloc(64, size);
	if (!b)
		return NULL;
	memset(b, 0, size);
	b->kind = kind;
	b->d = d;
	b->K = K;
	q = (double *)((char *)b + head);
	for (k = 0; k < K; k++) {
		struct bandit_arm *a = &b->arm[k];

		a->a = q;
		a->m = q + (size_t)d * d;
		a->bv = q + 2 * (size_t)d * d;
		a->theta = a->bv + d;
		q += arm_doubles(d);
	}
	b->mu = q;
	b->sd = q + K;
	b->s = q + 2 * (size_t)K;
	b->work = q + 3 * (size_t)K;
	return b;
}

int bandit_new(struct bandit **bp, enum bandit_kind kind, unsigned d,
	       unsigned K, const struct bandit_params *p)
{
	struct bandit_params def;
	struct bandit *b;
	unsigned k;

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
	/* A = lambda I; A^-1 = I / lambda, R = sqrt(lambda) I; b = theta = 0 */
	for (k = 0; k < K; k++) {
		la_eye(b->arm[k].a, d, p->lambda);
		la_eye(b->arm[k].m, d, kind == BANDIT_THOMPSON ?
		       sqrt(p->lambda) : 1 / p->lambda);
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
static double vec_norm2(const double *x, unsigned d)
{
	double s = 0;
	unsigned i;

	for (i = 0; i < d; i++) {
		if (!isfinite(x[i]))
			return -1;
		s += x[i] * x[i];
	}
	return s <= VAL_MAX * VAL_MAX ? s : -1;
}

/* Strict '>' keeps the lowest index on ties; a NaN score never wins. */
static unsigned argmax(const double *s, unsigned n)
{
	double best = -INFINITY;
	unsigned i, arg = 0;

	for (i = 0; i < n; i++) {
		if (s[i] > best) {
			best = s[i];
			arg = i;
		}
	}
	return arg;
}

static unsigned greedy_arm(struct bandit *b, const double *x)
{
	unsigned k;

	for (k = 0; k < b->K; k++)
		b->mu[k] = la_dot(b->arm[k].theta, x, b->d);
	return argmax(b->mu, b->K);
}

static unsigned linucb_choose(struct bandit *b, const double *x)
{
	unsigned k;

	for (k = 0; k < b->K; k++) {
		const struct bandit_arm *a = &b->arm[k];
		/* A^-1 is positive definite; rounding may still dip below 0 */
		double q = fmax(la_quad(a->m, x, b->d), 0);

		b->mu[k] = la_dot(a->theta, x, b->d) + b->p.alpha * sqrt(q);
	}
	return argmax(b->mu, b->K);
}

static unsigned egreedy_choose(struct bandit *b, const double *x,
			       double *prop)
{
	double eps = b->p.epsilon;
	unsigned g = greedy_arm(b, x), arm = g;

	/* draw even when eps is 0, so the stream does not depend on eps */
	if (rng_uniform(&b->rng) < eps)
		arm = rng_below(&b->rng, b->K);
	if (prop)
		*prop = arm == g ? 1 - eps + eps / b->K : eps / b->K;
	return arm;
}

/* One posterior draw of every arm's score; the winner. */
static unsigned thompson_draw(struct bandit *b, double *s)
{
	unsigned k;

	for (k = 0; k < b->K; k++)
		s[k] = b->mu[k] + b->sd[k] * rng_normal(&b->rng);
	return argmax(s, b->K);
}

/*
 * Monte Carlo estimate of P(arm wins | x, state) from M fresh draws,
 * floored at 1/(M+1): an arm that was just chosen has positive
 * probability, and the floor bounds an importance weight by M + 1.
 */
static double thompson_propensity(struct bandit *b, unsigned arm, double *s)
{
	unsigned M = b->p.prop_samples, i, won = 0;
	double p;

	for (i = 0; i < M; i++)
		won += thompson_draw(b, s) == arm;
	p = (double)won / M;
	return fmax(p, 1.0 / (M + 1));
}

static unsigned thompson_choose(struct bandit *b, const double *x,
				double *prop)
{
	double w[BANDIT_DMAX];
	unsigned k, arm;

	for (k = 0; k < b->K; k++) {
		const struct bandit_arm *a = &b->arm[k];

		la_solve_rt(a->m, x, w, b->d);
		b->mu[k] = la_dot(a->theta, x, b->d);
		b->sd[k] = b->p.v * sqrt(la_dot(w, w, b->d));
	}
	arm = thompson_draw(b, b->s);
	if (prop)
		*prop = thompson_propensity(b, arm, b->s);
	return arm;
}

int bandit_choose(struct bandit *b, const double *x, unsigned *arm,
		  double *propensity)
{
	unsigned k;

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
	if (b->kind != BANDIT_THOMPSON)
		return la_chol_inverse(b->work, a->m, b->d);
	memcpy(a->m, b->work, sizeof(*a->m) * b->d * b->d);
	return 0;
}

static void arm_refresh_theta(const struct bandit *b, struct bandit_arm *a)
{
	double y[BANDIT_DMAX];

	if (b->kind == BANDIT_THOMPSON) {
		la_solve_rt(a->m, a->bv, y, b->d);
		la_solve_r(a->m, y, a->theta, b->d);
	} else {
		la_matvec(a->m, a->bv, a->theta, b->d);
	}
}

/* Bring the maintained matrix along with A += x x^T. */
static int arm_track(struct bandit *b, struct bandit_arm *a,
		     const double *x)
{
	double xs[BANDIT_DMAX];
	int err;

	if (b->p.rebuild_every && a->n % b->p.rebuild_every == 0)
		return arm_rebuild(b, a);
	if (b->kind == BANDIT_THOMPSON) {
		memcpy(xs, x, sizeof(*xs) * b->d);
		err = la_chol_update(a->m, xs, b->d);
	} else {
		err = la_sherman_morrison(a->m, x, b->d);
	}
	/* a rank-one step that broke down: start afresh from A */
	return err ? arm_rebuild(b, a) : 0;
}

int bandit_update(struct bandit *b, const double *x, unsigned arm, double r)
{
	struct bandit_arm *a;
	unsigned i;
	double n2;
	int err;

	if (!b || !x || arm >= b->K || !isfinite(r))
		return -EINVAL;
	n2 = vec_norm2(x, b->d);
	if (n2 < 0 || fabs(r) * sqrt(n2) > VAL_MAX)
		return -EINVAL;
	a = &b->arm[arm];
	la_syr(a->a, x, b->d);
	for (i = 0; i < b->d; i++)
		a->bv[i] += r * x[i];
	a->n++;
	err = arm_track(b, a, x);
	if (err)
		return err;
	arm_refresh_theta(b, a);
	return 0;
}

int bandit_sample_theta(struct bandit *b, unsigned arm, double *theta)
{
	double z[BANDIT_DMAX];
	const struct bandit_arm *a;
	unsigned i;

	if (!b || !theta || b->kind != BANDIT_THOMPSON || arm >= b->K)
		return -EINVAL;
	a = &b->arm[arm];
	for (i = 0; i < b->d; i++)
		z[i] = rng_normal(&b->rng);
	la_solve_r(a->m, z, z, b->d);	/* cov(R^-1 z) = (R^T R)^-1 = A^-1 */
	for (i = 0; i < b->d; i++)
		theta[i] = a->theta[i] + b->p.v * z[i];
	return 0;
}

/* ---- accessors */

enum bandit_kind bandit_kind(const struct bandit *b)
{
	return b->kind;
}

unsigned bandit_dim(const struct bandit *b)
{
	return b->d;
}

unsigned bandit_arms(const struct bandit *b)
{
	return b->K;
}

void bandit_get_params(const struct bandit *b, struct bandit_params *p)
{
	*p = b->p;
}

static const struct bandit_arm *arm_of(const struct bandit *b, unsigned arm,
				       const void *out)
{
	return b && out && arm < b->K ? &b->arm[arm] : NULL;
}

int bandit_arm_a(const struct bandit *b, unsigned arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	memcpy(out, a->a, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_ainv(const struct bandit *b, unsigned arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	if (b->kind == BANDIT_THOMPSON)
		return la_chol_inverse(a->m, out, b->d);
	memcpy(out, a->m, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_chol(const struct bandit *b, unsigned arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	if (b->kind != BANDIT_THOMPSON)
		return la_chol(a->a, out, b->d);
	memcpy(out, a->m, sizeof(*out) * b->d * b->d);
	return 0;
}

int bandit_arm_theta(const struct bandit *b, unsigned arm, double *out)
{
	const struct bandit_arm *a = arm_of(b, arm, out);

	if (!a)
		return -EINVAL;
	memcpy(out, a->theta, sizeof(*out) * b->d);
	return 0;
}

int bandit_arm_updates(const struct bandit *b, unsigned arm, uint64_t *n)
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
 *   header, 132 bytes
 *	0   magic "INDGBNDT"		8 bytes
 *	8   u32 version (1)		12  u32 kind
 *	16  u32 d			20  u32 K
 *	24  f64 lambda, alpha, v, epsilon
 *	56  u64 seed
 *	64  u32 rebuild_every		68  u32 prop_samples
 *	72  u64 xoshiro state[4]
 *	104 u32 has_spare		108 u32 zero
 *	112 f64 spare normal
 *	120 u64 payload bytes = K * (8 + 8 * (2 d^2 + 2 d))
 *	128 u32 CRC-32 of bytes 0..127
 *   payload, per arm: u64 n; f64 A[d*d], M[d*d], b[d], theta[d]
 *	(M = A^-1, or R with A = R^T R for Thompson)
 *   trailer: u32 CRC-32 of the payload
 *
 * The header has its own CRC so that nothing is allocated on the word of
 * a damaged header, and states the payload size so that dimensions that do
 * not match the data are caught before reading it. CRC-32 is the IEEE
 * (zlib, Ethernet) one.
 */
#define SNAP_MAGIC	"INDGBNDT"
#define SNAP_VERSION	1
#define SNAP_HEADER	132

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

static uint64_t payload_bytes(unsigned d, unsigned K)
{
	return (uint64_t)K * (8 + 8 * (uint64_t)arm_doubles(d));
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
	le_put(h + 104, b->rng.has_spare, 4);
	le_put(h + 112, f64_bits(b->rng.spare), 8);
	le_put(h + 120, payload_bytes(b->d, b->K), 8);
}

int bandit_save(const struct bandit *b, FILE *f)
{
	struct snap_io io;
	unsigned char h[SNAP_HEADER], w[8];
	unsigned k, d;

	if (!b || !f)
		return -EINVAL;
	d = b->d;
	crc_init(&io);
	io.f = f;
	header_encode(b, h);
	le_put(h + 128, crc_feed(&io, 0, h, 128), 4);
	snap_write(&io, h, SNAP_HEADER);
	io.crc = 0;
	for (k = 0; k < b->K; k++) {
		const struct bandit_arm *a = &b->arm[k];

		le_put(w, a->n, 8);
		snap_write(&io, w, 8);
		snap_write_f64s(&io, a->a, (size_t)d * d);
		snap_write_f64s(&io, a->m, (size_t)d * d);
		snap_write_f64s(&io, a->bv, d);
		snap_write_f64s(&io, a->theta, d);
	}
	le_put(w, io.crc, 4);
	snap_write(&io, w, 4);
	if (!io.err && fflush(f))
		io.err = -EIO;
	return io.err;
}

/*
 * Everything the header claims is checked before anything is allocated:
 * its CRC, magic, version, a known kind, dimensions in range, valid
 * parameters, a usable generator state and a payload size that matches.
 */
static int header_decode(const struct snap_io *io, const unsigned char *h,
			 unsigned *kind, unsigned *d, unsigned *K,
			 struct bandit_params *p, struct bandit_rng *g)
{
	int i;

	if (le_get(h + 128, 4) != crc_feed(io, 0, h, 128) ||
	    memcmp(h, SNAP_MAGIC, 8) || le_get(h + 8, 4) != SNAP_VERSION)
		return -EINVAL;
	*kind = (unsigned)le_get(h + 12, 4);
	*d = (unsigned)le_get(h + 16, 4);
	*K = (unsigned)le_get(h + 20, 4);
	p->lambda = bits_f64(le_get(h + 24, 8));
	p->alpha = bits_f64(le_get(h + 32, 8));
	p->v = bits_f64(le_get(h + 40, 8));
	p->epsilon = bits_f64(le_get(h + 48, 8));
	p->seed = le_get(h + 56, 8);
	p->rebuild_every = (unsigned)le_get(h + 64, 4);
	p->prop_samples = (unsigned)le_get(h + 68, 4);
	for (i = 0; i < 4; i++)
		g->s[i] = le_get(h + 72 + 8 * i, 8);
	g->has_spare = (int)le_get(h + 104, 4);
	g->spare = bits_f64(le_get(h + 112, 8));
	if (!shape_ok(*kind, *d, *K) || !params_ok(p) ||
	    !(g->s[0] | g->s[1] | g->s[2] | g->s[3]) ||
	    (g->has_spare != 0 && g->has_spare != 1) ||
	    le_get(h + 108, 4) != 0 || !isfinite(g->spare) ||
	    le_get(h + 120, 8) != payload_bytes(*d, *K))
		return -EINVAL;
	return 0;
}

/*
 * A and a factor need a positive diagonal: the solves divide by R's, and
 * a learner built by bandit_new never has anything else.
 */
static int arm_sane(const struct bandit *b, const struct bandit_arm *a)
{
	unsigned i, d = b->d;

	for (i = 0; i < d; i++) {
		if (!(a->a[i * d + i] > 0) || !(a->m[i * d + i] > 0))
			return 0;
	}
	return 1;
}

static int load_arms(struct snap_io *io, struct bandit *b)
{
	unsigned char w[8];
	unsigned k, d = b->d;
	uint32_t crc;

	io->crc = 0;
	for (k = 0; k < b->K && !io->err; k++) {
		struct bandit_arm *a = &b->arm[k];

		snap_read(io, w, 8);
		a->n = le_get(w, 8);
		snap_read_f64s(io, a->a, (size_t)d * d);
		snap_read_f64s(io, a->m, (size_t)d * d);
		snap_read_f64s(io, a->bv, d);
		snap_read_f64s(io, a->theta, d);
		if (!io->err && !arm_sane(b, a))
			io->err = -EINVAL;
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
	unsigned kind, d, K;
	struct bandit *b;
	int err;

	if (!bp || !f)
		return -EINVAL;
	crc_init(&io);
	io.f = f;
	snap_read(&io, h, SNAP_HEADER);
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
