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

static int la_bad_order(unsigned d)
{
	return d == 0 || d > LA_DMAX;
}

void la_eye(double *m, unsigned d, double s)
{
	unsigned i;

	memset(m, 0, sizeof(*m) * d * d);
	for (i = 0; i < d; i++)
		m[i * d + i] = s;
}

/*
 * Four partial sums: one running sum would serialise every add on the FP
 * add latency, and with d <= 64 that latency, not the arithmetic, is what
 * a dot product costs. (The summation order is fixed, so results stay
 * reproducible.)
 */
static double dot4(const double *x, const double *y, unsigned n)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	unsigned i = 0;

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

double la_dot(const double *x, const double *y, unsigned d)
{
	return dot4(x, y, d);
}

void la_matvec(const double *m, const double *x, double *y, unsigned d)
{
	unsigned i;

	for (i = 0; i < d; i++)
		y[i] = dot4(m + (size_t)i * d, x, d);
}

/*
 * Upper triangle only: x^T M x = sum_i x_i (m_ii x_i + 2 sum_{j>i} m_ij x_j).
 * Half the multiplies of a full mat-vec, and the result does not depend on
 * whether the lower triangle has kept in step.
 */
double la_quad(const double *m, const double *x, unsigned d)
{
	double q = 0;
	unsigned i;

	for (i = 0; i < d; i++) {
		const double *row = m + (size_t)i * d;
		double s = dot4(row + i + 1, x + i + 1, d - i - 1);

		q += x[i] * (row[i] * x[i] + 2 * s);
	}
	return q;
}

/* x_i * x_j == x_j * x_i in IEEE arithmetic, so M stays exactly symmetric. */
void la_syr(double *m, const double *x, unsigned d)
{
	unsigned i, j;

	for (i = 0; i < d; i++) {
		double *row = m + (size_t)i * d;

		for (j = 0; j < d; j++)
			row[j] += x[i] * x[j];
	}
}

int la_sherman_morrison(double *ainv, const double *x, unsigned d)
{
	double u[LA_DMAX];
	double den, s;
	unsigned i, j;

	if (la_bad_order(d))
		return -EINVAL;
	la_matvec(ainv, x, u, d);	/* u = A^-1 x = (x^T A^-1)^T */
	den = 1 + la_dot(x, u, d);
	if (!isfinite(den) || !(den > 0))
		return -EDOM;
	s = 1 / den;
	/*
	 * (u_i u_j) s rather than u_i (u_j s): the product is formed the same
	 * way for (i, j) and (j, i), so the inverse stays exactly symmetric.
	 */
	for (i = 0; i < d; i++) {
		double *row = ainv + (size_t)i * d;

		for (j = 0; j < d; j++)
			row[j] -= (u[i] * u[j]) * s;
	}
	return 0;
}

/*
 * Right-looking (outer-product) Cholesky on the upper triangle: after
 * pivot k is taken, row k of R is final and the trailing block is reduced
 * by its outer product. All accesses are along rows.
 */
int la_chol(const double *a, double *r, unsigned d)
{
	unsigned i, j, k;

	if (la_bad_order(d))
		return -EINVAL;
	for (i = 0; i < d; i++) {
		for (j = 0; j < i; j++)
			r[(size_t)i * d + j] = 0;
		if (r != a)
			memcpy(r + (size_t)i * d + i, a + (size_t)i * d + i,
			       sizeof(*r) * (d - i));
	}
	for (k = 0; k < d; k++) {
		double *rk = r + (size_t)k * d;
		double piv = rk[k], inv;

		/* also rejects NaN and infinity */
		if (!(piv > 0) || !isfinite(piv))
			return -EDOM;
		rk[k] = sqrt(piv);
		inv = 1 / rk[k];
		for (j = k + 1; j < d; j++)
			rk[j] *= inv;
		for (i = k + 1; i < d; i++) {
			double *ri = r + (size_t)i * d;

			for (j = i; j < d; j++)
				ri[j] -= rk[i] * rk[j];
		}
	}
	return 0;
}

/*
 * R^T is lower triangular and its column k is row k of R: substitute
 * column by column (axpy form) so the inner loop runs along that row.
 */
void la_solve_rt(const double *r, const double *b, double *y, unsigned d)
{
	unsigned i, k;

	if (y != b)
		memcpy(y, b, sizeof(*y) * d);
	for (k = 0; k < d; k++) {
		const double *rk = r + (size_t)k * d;
		double yk = y[k] / rk[k];

		y[k] = yk;
		for (i = k + 1; i < d; i++)
			y[i] -= rk[i] * yk;
	}
}

void la_solve_r(const double *r, const double *y, double *x, unsigned d)
{
	unsigned i = d, j;

	while (i--) {
		const double *ri = r + (size_t)i * d;
		double s = y[i];

		for (j = i + 1; j < d; j++)
			s -= ri[j] * x[j];
		x[i] = s / ri[i];
	}
}

/*
 * Column j of A^-1 solves A x = e_j. The two triangular solves leave the
 * result symmetric only to rounding; averaging with the transpose makes it
 * exact, which Sherman-Morrison then preserves.
 */
int la_chol_inverse(const double *r, double *inv, unsigned d)
{
	double e[LA_DMAX], x[LA_DMAX];
	unsigned i, j;

	if (la_bad_order(d))
		return -EINVAL;
	for (j = 0; j < d; j++) {
		memset(e, 0, sizeof(*e) * d);
		e[j] = 1;
		la_solve_rt(r, e, x, d);
		la_solve_r(r, x, x, d);
		for (i = 0; i < d; i++)
			inv[(size_t)i * d + j] = x[i];
	}
	for (i = 0; i < d; i++) {
		for (j = i + 1; j < d; j++) {
			double s = 0.5 * (inv[(size_t)i * d + j] +
					  inv[(size_t)j * d + i]);

			inv[(size_t)i * d + j] = s;
			inv[(size_t)j * d + i] = s;
		}
	}
	return 0;
}

/*
 * The classic Givens-style update (Stewart; also Golub & Van Loan 6.5.4):
 * at step k, rotate row k of R against x so x_k vanishes. The rotation
 * only grows the pivot (r' = hypot(r_kk, x_k) >= r_kk > 0), so it cannot
 * break down on a valid factor.
 */
int la_chol_update(double *r, double *x, unsigned d)
{
	unsigned j, k;

	if (la_bad_order(d))
		return -EINVAL;
	for (k = 0; k < d; k++)
		if (!(r[(size_t)k * d + k] > 0))
			return -EDOM;
	for (k = 0; k < d; k++) {
		double *rk = r + (size_t)k * d;
		double rkk = rk[k], xk = x[k];
		double nr = sqrt(rkk * rkk + xk * xk);
		double c = nr / rkk, s = xk / rkk, ic = rkk / nr;

		rk[k] = nr;
		for (j = k + 1; j < d; j++) {
			rk[j] = (rk[j] + s * x[j]) * ic;
			x[j] = c * x[j] - s * rk[j];
		}
	}
	for (k = 0; k < d; k++)
		if (!isfinite(r[(size_t)k * d + k]))
			return -ERANGE;
	return 0;
}
