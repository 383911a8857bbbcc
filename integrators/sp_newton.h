/* The one nonlinear solver of symplan: Newton's method with LAPACK solves, and the
 * fixed-point iteration some implicit steps prefer, sharing one stopping rule.
 *
 * Stopping rule: the update is small, |Δx| ≤ tol·max(1, |x|); or the iteration has
 * stagnated at round-off (the update stopped shrinking while already below
 * 1000·tol·max(1, |x|)). Anything else after max_iter iterations is a failure,
 * reported as SP_ERR_NO_CONVERGENCE. */
#ifndef SP_NEWTON_H
#define SP_NEWTON_H

#include "lie/sp_status.h"

typedef struct sp_newton_options {
    double tol;   /* relative size of the last update; ~1e-15 for exact adjoints */
    int max_iter; /* iterations before giving up */
} sp_newton_options;

/* tol 1e-15 and 50 iterations: what every stepper of symplan starts from, and what a
 * zero sp_hohp_config.solve stands for. */
sp_newton_options sp_newton_options_default(void);

/* Residual r(x) and, when J is not NULL, its row-major n x n Jacobian. A non-zero
 * status aborts the solve and is passed back. */
typedef sp_status (*sp_newton_fn)(void *ctx, const double *x, double *r, double *J);

/* Fixed-point map x ← Φ(x). */
typedef sp_status (*sp_fixed_point_fn)(void *ctx, const double *x, double *x_new);

typedef struct sp_newton sp_newton;

sp_newton *sp_newton_alloc(int n);
void sp_newton_free(sp_newton *w);
int sp_newton_dim(const sp_newton *w);

/* Solves r(x) = 0 from the initial guess in x; on return x holds the last iterate and
 * *iterations (may be NULL) the number of updates taken. */
sp_status sp_newton_solve(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                          int *iterations);
sp_status sp_fixed_point_solve(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x, const sp_newton_options *opt,
                               int *iterations);

#endif
