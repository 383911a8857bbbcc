/* The trust-region subproblem of Newton's method with a dense symmetric Hessian that may
 * be indefinite or nearly singular:
 *
 *     minimise  m(p) = gᵀp + ½ pᵀHp   over   |p| ≤ Δ   (Euclidean norm).
 *
 * Solved exactly through H's eigen-decomposition H = QΛQᵀ: the minimiser is
 * p(λ) = −(H + λI)⁻¹g with λ ≥ max(0, −λ_min), λ = 0 when the Newton step of a positive
 * definite H lies inside, else the λ with |p(λ)| = Δ, found by bisection on the secular
 * equation; in the "hard case" (g orthogonal to the eigenspace of λ_min) p(−λ_min) is
 * completed to the boundary along that eigenspace. This is the characterisation of
 * Moré and Sorensen, "Computing a trust region step" (1983). The cost is one symmetric
 * eigen-decomposition, O(n³): it serves problems of up to a few hundred unknowns. */
#ifndef SP_TRUST_REGION_H
#define SP_TRUST_REGION_H

#include "lie/sp_status.h"

typedef struct sp_trust_step {
    double predicted; /* −m(p) ≥ 0: the decrease the model promises */
    double length;    /* |p| */
    int interior;     /* p is the Newton step of a positive definite H, inside the region */
    double lowest;    /* H's smallest eigenvalue */
} sp_trust_step;

/* p (n values) for H (n x n, row-major, symmetric; only read) and g within `radius`.
 * SP_ERR_NOMEM, or SP_ERR_SINGULAR when the eigen-decomposition fails. */
sp_status sp_trust_region_step(int n, const double *H, const double *g, double radius, double *p,
                               sp_trust_step *info);

#endif
