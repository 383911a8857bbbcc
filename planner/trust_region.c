/* The trust-region subproblem by eigen-decomposition (see sp_trust_region.h). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_trust_region.h"

/* |p(λ)|² = Σ γ_k² / (λ_k + λ)² in the eigenbasis. */
static double step_length2(int n, const double *eig, const double *gam, double lambda)
{
    double s = 0.0;
    for (int k = 0; k < n; ++k) {
        const double d = eig[k] + lambda;
        s += gam[k] * gam[k] / (d * d);
    }
    return s;
}

sp_status sp_trust_region_step(int n, const double *H, const double *g, double radius, double *p,
                               sp_trust_step *info)
{
    memset(info, 0, sizeof *info);
    double *Q = malloc((size_t)n * n * sizeof *Q), *eig = malloc((size_t)n * sizeof *eig);
    double *gam = malloc((size_t)n * sizeof *gam), *c = malloc((size_t)n * sizeof *c);
    sp_status st = Q && eig && gam && c ? SP_OK : SP_ERR_NOMEM;
    if (st == SP_OK) {
        memcpy(Q, H, (size_t)n * n * sizeof *Q);
        if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', n, Q, n, eig) != 0) st = SP_ERR_SINGULAR;
    }
    if (st != SP_OK) {
        free(Q), free(eig), free(gam), free(c);
        return st;
    }
    /* γ = Qᵀg (the eigenvectors are Q's columns, the eigenvalues ascending) */
    double gnorm2 = 0.0, spread = 0.0;
    for (int k = 0; k < n; ++k) {
        double s = 0.0;
        for (int r = 0; r < n; ++r) s += Q[(size_t)r * n + k] * g[r];
        gam[k] = s;
        gnorm2 += g[k] * g[k];
        spread = fmax(spread, fabs(eig[k]));
    }
    info->lowest = eig[0];
    const double floor = fmax(0.0, -eig[0]);
    if (eig[0] > 0.0 && step_length2(n, eig, gam, 0.0) <= radius * radius) {
        for (int k = 0; k < n; ++k) c[k] = -gam[k] / eig[k];
        info->interior = 1;
    } else {
        /* |p(λ)| falls from +∞ (or from its hard-case value) at the floor to at most Δ at
         * floor + |g|/Δ, where every λ_k + λ ≥ |g|/Δ */
        double lo = floor, hi = floor + sqrt(gnorm2) / radius;
        for (int it = 0; it < 200 && hi - lo > 1e-15 * fmax(hi, 1e-300); ++it) {
            const double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi) break;
            if (step_length2(n, eig, gam, mid) > radius * radius) lo = mid;
            else hi = mid;
        }
        const double tiny = 1e-13 * fmax(spread, 1e-300);
        double used = 0.0;
        for (int k = 0; k < n; ++k) {
            const double d = eig[k] + hi;
            c[k] = d > tiny ? -gam[k] / d : 0.0;
            used += c[k] * c[k];
        }
        /* the hard case: the boundary is out of reach of every λ above the floor, so the
         * step is completed along the eigenvector of the lowest eigenvalue */
        if (eig[0] <= 0.0 && used < radius * radius * (1.0 - 1e-10)) {
            const double rest = used - c[0] * c[0];
            c[0] = copysign(sqrt(fmax(0.0, radius * radius - rest)), c[0]);
        }
    }
    double length2 = 0.0, model = 0.0;
    for (int k = 0; k < n; ++k) length2 += c[k] * c[k], model += gam[k] * c[k] + 0.5 * eig[k] * c[k] * c[k];
    for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += Q[(size_t)r * n + k] * c[k];
        p[r] = s;
    }
    info->predicted = -model;
    info->length = sqrt(length2);
    free(Q), free(eig), free(gam), free(c);
    return SP_OK;
}
