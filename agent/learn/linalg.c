// SPDX-License-Identifier: GPL-2.0
/*
 * Small dense linear algebra for the online learners. See linalg.h.
 *
 * Every loop that can walks rows, so the inner loops are unit-stride and
 * free of loop-carried dependencies; with d <= 64 a matrix fits in L1 and
 * that is what decides speed.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "linalg.h"

static int la_bad_order(unsigned int d)
{
	return d == 0 || d > LA_DMAX;
}

void la_eye(double *m, unsigned int d, double s)
{
	unsigned int i;

	memset(m, 0, sizeof(*m) * d * d);
	for (i = 0; i < d; i++)
		m[i * d + i] = s;
}

void la_matvec(const double *m, const double *x, double *y, unsigned int d)
{
	size_t i;

	for (i = 0; i < d; i++)
		y[i] = la_dot(m + i * d, x, d);
}

/* a . x and b . x in one pass over x, two partial sums each */
static inline void dot2(const double *restrict a, const double *restrict b,
			const double *restrict x, size_t n, double *sa,
			double *sb)
{
	double a0 = 0, a1 = 0, b0 = 0, b1 = 0;
	size_t j = 0;

	for (; j + 2 <= n; j += 2) {
		a0 += a[j] * x[j];
		a1 += a[j + 1] * x[j + 1];
		b0 += b[j] * x[j];
		b1 += b[j + 1] * x[j + 1];
	}
	if (j < n) {
		a0 += a[j] * x[j];
		b0 += b[j] * x[j];
	}
	*sa = a0 + a1;
	*sb = b0 + b1;
}

/*
 * Upper triangle only: x^T M x = sum_i x_i (m_ii x_i + 2 sum_{j>i} m_ij x_j).
 * Half the multiplies of a full mat-vec, and the result does not depend on
 * whether the lower triangle has kept in step. Rows go in pairs, sharing
 * the loads of x and halving the loop overhead, which at these sizes costs
 * as much as the arithmetic.
 */
double la_quad(const double *m, const double *x, unsigned int d)
{
	double q0 = 0, q1 = 0, s0, s1;
	size_t i;

	for (i = 0; i + 2 <= d; i += 2) {
		const double *r0 = m + i * d, *r1 = r0 + d;

		dot2(r0 + i + 2, r1 + i + 2, x + i + 2, d - i - 2, &s0, &s1);
		s0 += r0[i + 1] * x[i + 1];
		q0 += x[i] * (r0[i] * x[i] + 2 * s0);
		q1 += x[i + 1] * (r1[i + 1] * x[i + 1] + 2 * s1);
	}
	if (i < d)
		q0 += x[i] * x[i] * m[i * d + i];
	return q0 + q1;
}

/* x_i * x_j == x_j * x_i in IEEE arithmetic, so M stays exactly symmetric. */
void la_syr(double *m, const double *x, unsigned int d)
{
	size_t i;

	for (i = 0; i < d; i++)
		la_axpy(m + i * d, x, x[i], d);
}

/* row -= (ui u) s, the products formed as in la_sherman_morrison */
static inline void sm_row(double *restrict row, const double *restrict u,
			  double ui, double s, size_t n)
{
	size_t j = 0;

	for (; j + 4 <= n; j += 4) {
		row[j] -= (ui * u[j]) * s;
		row[j + 1] -= (ui * u[j + 1]) * s;
		row[j + 2] -= (ui * u[j + 2]) * s;
		row[j + 3] -= (ui * u[j + 3]) * s;
	}
	for (; j < n; j++)
		row[j] -= (ui * u[j]) * s;
}

int la_sherman_morrison(double *ainv, const double *x, unsigned int d)
{
	double u[LA_DMAX];
	double den;
	size_t i;

	if (la_bad_order(d))
		return -EINVAL;
	la_matvec(ainv, x, u, d);	/* u = A^-1 x = (x^T A^-1)^T */
	den = 1 + la_dot(x, u, d);
	if (!isfinite(den) || !(den > 0))
		return -EDOM;
	/*
	 * (u_i u_j) s rather than u_i (u_j s): the product is formed the same
	 * way for (i, j) and (j, i), so the inverse stays exactly symmetric.
	 */
	for (i = 0; i < d; i++)
		sm_row(ainv + i * d, u, u[i], 1 / den, d);
	return 0;
}

/*
 * Right-looking (outer-product) Cholesky on the upper triangle: after
 * pivot k is taken, row k of R is final and the trailing block is reduced
 * by its outer product. All accesses are along rows.
 */
int la_chol(const double *a, double *r, unsigned int d)
{
	size_t i, j, k;

	if (la_bad_order(d))
		return -EINVAL;
	for (i = 0; i < d; i++) {
		for (j = 0; j < i; j++)
			r[i * d + j] = 0;
		if (r != a)
			memcpy(r + i * d + i, a + i * d + i,
			       sizeof(*r) * (d - i));
	}
	for (k = 0; k < d; k++) {
		double *rk = r + k * d;
		double piv = rk[k], inv;

		/* also rejects NaN and infinity */
		if (!(piv > 0) || !isfinite(piv))
			return -EDOM;
		rk[k] = sqrt(piv);
		inv = 1 / rk[k];
		for (j = k + 1; j < d; j++)
			rk[j] *= inv;
		for (i = k + 1; i < d; i++)
			la_axpy(r + i * d + i, rk + i, -rk[i], d - i);
	}
	return 0;
}

/*
 * Substitution is a chain of d dependent steps. With the reciprocals of
 * the pivots formed beforehand, all at once, each step waits on a multiply
 * rather than on a division.
 */
void la_pivot_reciprocals(const double *r, double *rd, unsigned int d)
{
	size_t k;

	for (k = 0; k < d; k++)
		rd[k] = 1 / r[k * d + k];
}

/*
 * R^T is lower triangular and its column k is row k of R: substitute
 * column by column (axpy form) so the inner loop runs along that row.
 */
void la_solve_rt_rd(const double *r, const double *rd, const double *b,
		    double *y, unsigned int d)
{
	size_t k;

	if (y != b)
		memcpy(y, b, sizeof(*y) * d);
	for (k = 0; k < d; k++) {
		double yk = y[k] * rd[k];

		y[k] = yk;
		la_axpy(y + k + 1, r + k * d + k + 1, -yk, d - k - 1);
	}
}

void la_solve_r_rd(const double *r, const double *rd, const double *y,
		   double *x, unsigned int d)
{
	size_t i = d;

	while (i--) {
		const double *ri = r + i * d;

		double s = la_dot(ri + i + 1, x + i + 1, d - i - 1);

		x[i] = (y[i] - s) * rd[i];
	}
}

/*
 * A^-1 = U U^T with U = R^-1, upper triangular. Column j of U comes by
 * back substitution from the columns before it, so U is built in place in
 * inv's upper triangle with one reciprocal per pivot (no division in the
 * loops); then entry (i, j), j >= i, is row i of U dotted with row j from
 * column j on. Writing it over U[i][j] is safe, as later entries of row i
 * read only columns beyond j and later rows only their own; its mirror
 * goes below the diagonal, where U has nothing. Exactly symmetric.
 */
int la_chol_inverse(const double *r, double *inv, unsigned int d)
{
	double rd[LA_DMAX];
	size_t i, j, k;

	if (la_bad_order(d))
		return -EINVAL;
	la_pivot_reciprocals(r, rd, d);
	for (j = 0; j < d; j++) {
		inv[j * d + j] = rd[j];
		for (i = j; i-- > 0;) {
			double s = 0;

			for (k = i + 1; k <= j; k++)
				s += r[i * d + k] * inv[k * d + j];
			inv[i * d + j] = -s * rd[i];
		}
	}
	for (i = 0; i < d; i++) {
		for (j = i; j < d; j++) {
			double v = la_dot(inv + i * d + j, inv + j * d + j, d - j);

			inv[i * d + j] = v;
			inv[j * d + i] = v;
		}
	}
	return 0;
}

/*
 * One rotation of la_chol_update between row k of R and the rest of x:
 * with s = tan and ic = cos of its angle, both new values follow from
 * the old ones alone, (u + s v) cos and (v - s u) cos, so neither waits
 * on the other.
 */
static inline void rot_row(double *restrict rk, double *restrict x, double s,
			   double ic, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++) {
		double u = rk[j], v = x[j];

		rk[j] = (u + s * v) * ic;
		x[j] = (v - s * u) * ic;
	}
}

/*
 * The Givens-rotation update (Golub & Van Loan 6.5.4; the QR form of
 * recursive least squares when @p is carried): step k rotates row k of
 * [R | p] against [x^T | pr] so that x_k vanishes. The rotation only grows
 * the pivot, r' = r_kk sqrt(1 + s^2) with s = x_k / r_kk, so it cannot
 * break down on a valid factor.
 *
 * The steps form a chain through x. To keep it short, every old pivot's
 * reciprocal is taken up front, and cos = sqrt(q) / q, q = 1 + s^2, lets
 * the square root and the division run side by side.
 */
int la_chol_update(double *r, double *x, double *p, double pr, unsigned int d)
{
	double rd[LA_DMAX];
	size_t k;

	if (la_bad_order(d))
		return -EINVAL;
	for (k = 0; k < d; k++)
		if (!(r[k * d + k] > 0))
			return -EDOM;
	la_pivot_reciprocals(r, rd, d);
	for (k = 0; k < d; k++) {
		double *rk = r + k * d;
		double s = x[k] * rd[k], q = 1 + s * s;
		double t = sqrt(q), ic = t * (1 / q);

		rk[k] *= t;
		rot_row(rk + k + 1, x + k + 1, s, ic, d - k - 1);
		if (p) {
			double u = p[k];

			p[k] = (u + s * pr) * ic;
			pr = (pr - s * u) * ic;
		}
	}
	for (k = 0; k < d; k++)
		if (!isfinite(r[k * d + k]))
			return -ERANGE;
	return 0;
}
