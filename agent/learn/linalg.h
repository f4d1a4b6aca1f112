/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small dense linear algebra for the online learners: row-major double
 * matrices of order d <= LA_DMAX, no allocation, no globals.
 *
 * Cholesky factors are kept as the upper triangle R with A = R^T R
 * (R = L^T for the usual lower factor L). Storing it that way round makes
 * every column of L a contiguous row, which is what the rank-one update and
 * the forward solve walk, so those loops stream through memory.
 *
 * Functions returning int validate d and report -EINVAL; the void helpers
 * are the hot path and expect 1 <= d <= LA_DMAX from their caller.
 */
#ifndef INDIGO_LINALG_H
#define INDIGO_LINALG_H

#include <stddef.h>

#define LA_DMAX	64

/*
 * The two kernels everything else is built from, inline because they run
 * K * d times per decision. Four independent partial sums (or lanes) in
 * blocks of four, indexed by size_t and with restrict pointers, is the
 * shape GCC vectorises at plain -O2; a single running sum would serialise
 * every add on the FP latency, and with d <= 64 that, not the arithmetic,
 * is what a dot product would cost. The order of operations is fixed, so
 * results are reproducible bit for bit.
 */

/* x . y */
static inline double la_dot(const double *restrict x,
			    const double *restrict y, size_t n)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		s0 += x[i] * y[i];
		s1 += x[i + 1] * y[i + 1];
		s2 += x[i + 2] * y[i + 2];
		s3 += x[i + 3] * y[i + 3];
	}
	for (; i < n; i++)
		s0 += x[i] * y[i];
	return (s0 + s1) + (s2 + s3);
}

/* y += a x, for y and x that do not overlap */
static inline void la_axpy(double *restrict y, const double *restrict x,
			   double a, size_t n)
{
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		y[i] += a * x[i];
		y[i + 1] += a * x[i + 1];
		y[i + 2] += a * x[i + 2];
		y[i + 3] += a * x[i + 3];
	}
	for (; i < n; i++)
		y[i] += a * x[i];
}

/* m = s * I */
void la_eye(double *m, unsigned int d, double s);

/* y = M x (y must not alias x) */
void la_matvec(const double *m, const double *x, double *y, unsigned int d);

/* x^T M x for a symmetric M (reads only the upper triangle) */
double la_quad(const double *m, const double *x, unsigned int d);

/* M += x x^T, kept exactly symmetric */
void la_syr(double *m, const double *x, unsigned int d);

/*
 * Sherman-Morrison: replace @ainv = A^-1 (symmetric) by (A + x x^T)^-1,
 * i.e. A^-1 - (A^-1 x)(A^-1 x)^T / (1 + x^T A^-1 x), in O(d^2).
 * -EDOM (and @ainv untouched) if the denominator is not finite or not
 * positive, which a positive definite A^-1 never gives.
 */
int la_sherman_morrison(double *ainv, const double *x, unsigned int d);

/*
 * Cholesky: upper @r with A = R^T R from symmetric @a (upper triangle read),
 * strictly lower part of @r zeroed. -EDOM if A is not positive definite.
 * @r may alias @a.
 */
int la_chol(const double *a, double *r, unsigned int d);

/*
 * Solves R^T y = b (forward substitution, R upper from la_chol) and
 * R x = y (back substitution; @x may alias @y), with the pivots'
 * reciprocals @rd = 1 / diag(R) from la_pivot_reciprocals: a substitution
 * is a chain of dependent steps, and a multiply in that chain is much
 * shorter than a division.
 */
void la_pivot_reciprocals(const double *r, double *rd, unsigned int d);
void la_solve_rt_rd(const double *r, const double *rd, const double *b,
		    double *y, unsigned int d);
void la_solve_r_rd(const double *r, const double *rd, const double *y,
		   double *x, unsigned int d);

/* A^-1 = R^-1 R^-T from the factor; exactly symmetric. @inv != @r. */
int la_chol_inverse(const double *r, double *inv, unsigned int d);

/*
 * Rank-one update of the factor: afterwards R^T R = (old R^T R) + x x^T,
 * in O(d^2). @x is used as scratch and clobbered. If @p is not NULL, the
 * same rotations carry it along so that afterwards
 * R^T p = (old R^T p) + pr x: kept as p = R^-T b, it follows b += pr x and
 * gives the least-squares solution as R^-1 p (the QR form of recursive
 * least squares). -EDOM, with nothing changed, if @r has a non-positive
 * diagonal (not a factor from la_chol); -ERANGE if the result overflowed,
 * after which @r must be refactored.
 */
int la_chol_update(double *r, double *x, double *p, double pr, unsigned int d);

#endif /* INDIGO_LINALG_H */
