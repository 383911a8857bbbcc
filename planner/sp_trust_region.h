/* The trust-region subproblem of Newton's method with a symmetric band Hessian that may be
 * indefinite or nearly singular:
 *
 *     minimise  m(p) = gᵀp + ½ pᵀHp   over   |p| ≤ Δ   (Euclidean norm).
 *
 * The minimiser is p(λ) = −(H + λI)⁻¹g with λ ≥ max(0, −λ_min): λ = 0 when H is positive
 * definite and its Newton step lies inside, else the λ with |p(λ)| = Δ; in the "hard case"
 * (g orthogonal to the eigenvectors of λ_min) p(−λ_min) is completed to the boundary along
 * such an eigenvector (Moré and Sorensen, "Computing a trust region step", 1983). λ comes
 * from Newton's method on 1/|p(λ)| − 1/Δ safeguarded by bisection between a failed and a
 * successful trial, each trial one band Cholesky factorisation (which also tells whether
 * H + λI is positive definite, so no eigenvalue is computed): the cost is O(n·kd²) per
 * trial, so banded Hessians of thousands of unknowns are cheap (kd = n − 1 is a dense
 * matrix). */
#ifndef SP_TRUST_REGION_H
#define SP_TRUST_REGION_H

#include "lie/sp_status.h"

/* H(i, j) of a symmetric band matrix with kd super-diagonals in LAPACK's upper band
 * storage, column-major: the index in `ab` of row i ≤ column j, j − i ≤ kd. */
static inline int sp_sym_band_index(int kd, int i, int j) { return kd + i - j + j * (kd + 1); }

typedef struct sp_trust_step {
    double predicted; /* −m(p) ≥ 0: the decrease the model promises */
    double length;    /* |p| */
    int interior;     /* p is the Newton step of a positive definite H, inside the region */
    double shift;     /* λ, the multiplier of the boundary (0 inside) */
} sp_trust_step;

/* p (n values) for H (n x n, kd super-diagonals, (kd + 1)·n values in `ab`, only read) and
 * g within `radius` > 0. SP_ERR_NOMEM, or SP_ERR_SINGULAR when LAPACK fails. */
sp_status sp_trust_region_step(int n, int kd, const double *ab, const double *g, double radius, double *p,
                               sp_trust_step *info);

#endif
