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

#define LA_DMAX	64

/* m = s * I */
void la_eye(double *m, unsigned d, double s);

/* x . y */
double la_dot(const double *x, const double *y, unsigned d);

/* y = M x (y must not alias x) */
void la_matvec(const double *m, const double *x, double *y, unsigned d);

/* x^T M x for a symmetric M (reads only the upper triangle) */
double la_quad(const double *m, const double *x, unsigned d);

/* M += x x^T, kept exactly symmetric */
void la_syr(double *m, const double *x, unsigned d);

/*
 * Sherman-Morrison: replace @ainv = A^-1 (symmetric) by (A + x x^T)^-1,
 * i.e. A^-1 - (A^-1 x)(A^-1 x)^T / (1 + x^T A^-1 x), in O(d^2).
 * -EDOM (and @ainv untouched) if the denominator is not finite or not
 * positive, which a positive definite A^-1 never gives.
 */
int la_sherman_morrison(double *ainv, const double *x, unsigned d);

/*
 * Cholesky: upper @r with A = R^T R from symmetric @a (upper triangle read),
 * strictly lower part of @r zeroed. -EDOM if A is not positive definite.
 * @r may alias @a.
 */
int la_chol(const double *a, double *r, unsigned d);

/* Solve R^T y = b (forward substitution, R upper from la_chol). */
void la_solve_rt(const double *r, const double *b, double *y, unsigned d);

/* Solve R x = y (back substitution). @x may alias @y. */
void la_solve_r(const double *r, const double *y, double *x, unsigned d);

/* A^-1 = R^-1 R^-T from the factor; exactly symmetric. @inv != @r. */
int la_chol_inverse(const double *r, double *inv, unsigned d);

/*
 * Rank-one update of the factor: afterwards R^T R = (old R^T R) + x x^T,
 * in O(d^2). @x is used as scratch and clobbered. -EDOM, with @r
 * untouched, if @r has a non-positive diagonal (not a factor from la_chol);
 * -ERANGE if the result overflowed, after which @r must be refactored.
 */
int la_chol_update(double *r, double *x, unsigned d);

#endif /* INDIGO_LINALG_H */
