/* Dense linear solves for Newton iterations and adjoint sweeps (LAPACK LU). */
#ifndef SP_LINSOLVE_H
#define SP_LINSOLVE_H

#include "lie/sp_status.h"

/* Solves A x = b (transpose = 0) or Aᵀ x = b (transpose = 1) for a row-major n x n A
 * and `nrhs` right-hand sides stored one after another in b (n doubles each).
 * A is overwritten by its LU factors and b by the solutions; `pivots` holds n ints.
 * Allocates nothing. Returns SP_ERR_SINGULAR for an exactly singular matrix and
 * SP_ERR_NONFINITE when the solution is not finite. */
sp_status sp_linsolve(int n, double *A, double *b, int nrhs, int *pivots, int transpose);

/* The two halves of sp_linsolve, for a matrix factored once and solved with many times
 * (simplified Newton, sp_newton.h): sp_lu_factor overwrites A by its LU factors (the
 * same statuses as above); sp_lu_solve solves with them. Neither allocates. */
sp_status sp_lu_factor(int n, double *A, int *pivots);
sp_status sp_lu_solve(int n, const double *LU, double *b, int nrhs, const int *pivots, int transpose);

/* The Cholesky factor L (lower, row-major, n x n) of a symmetric positive definite M:
 * 1, or 0 when M is not symmetric, not positive definite or not finite (L then holds
 * nothing useful). Then x ← M⁻¹x from L. Neither allocates. */
int sp_cholesky_factor(int n, const double *M, double *L);
void sp_cholesky_solve(int n, const double *L, double *x);

#endif
