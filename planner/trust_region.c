/* The trust-region subproblem on a band Hessian (see sp_trust_region.h). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/sp_trust_region.h"

typedef struct subproblem {
    int n, kd;
    const double *ab, *g;
    double *factor, *p, *q; /* the Cholesky factor of H + λI, p(λ), and U⁻ᵀp */
} subproblem;

/* p(λ) = −(H + λI)⁻¹g by the band Cholesky factorisation H + λI = UᵀU, and q = U⁻ᵀp;
 * -1 when H + λI is not positive definite. */
static int solve_shifted(subproblem *s, double lambda)
{
    const int n = s->n, kd = s->kd, ld = kd + 1;
    memcpy(s->factor, s->ab, (size_t)ld * n * sizeof *s->factor);
    for (int j = 0; j < n; ++j) s->factor[sp_sym_band_index(kd, j, j)] += lambda;
    if (LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, kd, s->factor, ld) != 0) return -1;
    for (int k = 0; k < n; ++k) s->p[k] = -s->g[k];
    if (LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'U', n, kd, 1, s->factor, ld, s->p, n) != 0) return -1;
    memcpy(s->q, s->p, (size_t)n * sizeof *s->q);
    return LAPACKE_dtbtrs(LAPACK_COL_MAJOR, 'U', 'T', 'N', n, kd, 1, s->factor, ld, s->q, n) == 0 ? 0 : -1;
}

/* y = Hx on the band. */
static void band_mul(int n, int kd, const double *ab, const double *x, double *y)
{
    for (int i = 0; i < n; ++i) y[i] = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j; ++i) {
            const double a = ab[sp_sym_band_index(kd, i, j)];
            y[i] += a * x[j];
            if (i != j) y[j] += a * x[i];
        }
}

/* A lower bound of the smallest eigenvalue (Gershgorin's discs). */
static double lowest_bound(int n, int kd, const double *ab)
{
    double lowest = HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        double off = 0.0;
        for (int j = i - kd > 0 ? i - kd : 0; j <= i + kd && j < n; ++j)
            if (j != i) off += fabs(ab[sp_sym_band_index(kd, i < j ? i : j, i < j ? j : i)]);
        lowest = fmin(lowest, ab[sp_sym_band_index(kd, i, i)] - off);
    }
    return lowest;
}

sp_status sp_trust_region_step(int n, int kd, const double *ab, const double *g, double radius, double *p,
                               sp_trust_step *info)
{
    memset(info, 0, sizeof *info);
    const size_t band = (size_t)(kd + 1) * n;
    double *factor = malloc(band * sizeof *factor), *q = malloc((size_t)n * sizeof *q);
    double *v = malloc((size_t)n * sizeof *v), *Hp = malloc((size_t)n * sizeof *Hp);
    subproblem s = {.n = n, .kd = kd, .ab = ab, .g = g, .factor = factor, .p = p, .q = q};
    sp_status st = factor && q && v && Hp ? SP_OK : SP_ERR_NOMEM;
    if (st == SP_OK) {
        const double gnorm = sp_vec_norm(n, g), floor = fmax(0.0, -lowest_bound(n, kd, ab));
        if (solve_shifted(&s, 0.0) == 0 && sp_vec_norm(n, p) <= radius) {
            info->interior = 1; /* H is positive definite (its Cholesky factor exists) */
        } else {
            /* λ lies above max(0, −λ_min), which is at most the Gershgorin floor: |p(λ)| is
             * at most Δ at floor + |g|/Δ, where every eigenvalue of H + λI is ≥ |g|/Δ. Below
             * that, a λ where the factorisation fails or |p| > Δ is too small. */
            double lo = 0.0, hi = floor + gnorm / radius, lambda = hi;
            int have = 0; /* p, q hold p(λ) */
            for (int it = 0; it < 200; ++it) {
                if (!(lambda > lo && lambda <= hi)) lambda = 0.5 * (lo + hi);
                if (solve_shifted(&s, lambda) != 0) {
                    lo = lambda, have = 0, lambda = 0.5 * (lo + hi);
                    continue;
                }
                have = 1;
                const double np = sp_vec_norm(n, p), nq = sp_vec_norm(n, q);
                if (fabs(np - radius) <= 1e-10 * radius) break;
                if (np > radius) lo = lambda;
                else hi = lambda;
                if (hi - lo <= 1e-15 * fmax(hi, 1e-300)) break;
                /* Newton's step on 1/|p(λ)| − 1/Δ */
                lambda += (np / nq) * (np / nq) * (np - radius) / radius;
            }
            if (!have && solve_shifted(&s, hi) != 0) st = SP_ERR_SINGULAR;
            info->shift = hi;
            const double np = st == SP_OK ? sp_vec_norm(n, p) : 0.0;
            /* on the boundary to the secular equation's tolerance: never outside it */
            for (int k = 0; np > radius && k < n; ++k) p[k] *= radius / np;
            if (st == SP_OK && np < radius * (1.0 - 1e-8)) {
                /* the hard case: H + hi·I is positive definite only just (the bisection
                 * closed on −λ_min with |p| below Δ): an eigenvector of λ_min by inverse
                 * iteration there, p completed to the boundary along it */
                const double shift = hi;
                for (int k = 0; k < n; ++k) v[k] = 1.0 + 0.1 * sin(k + 1.0);
                memcpy(factor, ab, band * sizeof *factor);
                for (int j = 0; j < n; ++j) factor[sp_sym_band_index(kd, j, j)] += shift;
                if (LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, kd, factor, kd + 1) == 0) {
                    for (int round = 0; round < 4; ++round) {
                        LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'U', n, kd, 1, factor, kd + 1, v, n);
                        const double nv = sp_vec_norm(n, v);
                        for (int k = 0; k < n; ++k) v[k] /= nv;
                    }
                    /* |p + τv| = Δ: τ² + 2(p·v)τ + |p|² − Δ² = 0, the root of the lower model */
                    const double pv = sp_vec_dot(n, p, v), c = np * np - radius * radius;
                    const double disc = sqrt(fmax(0.0, pv * pv - c));
                    double best = HUGE_VAL, tau = 0.0;
                    for (int r = 0; r < 2; ++r) {
                        const double t = r ? -pv - disc : -pv + disc;
                        for (int k = 0; k < n; ++k) q[k] = p[k] + t * v[k];
                        band_mul(n, kd, ab, q, Hp);
                        const double m = sp_vec_dot(n, g, q) + 0.5 * sp_vec_dot(n, q, Hp);
                        if (m < best) best = m, tau = t;
                    }
                    for (int k = 0; k < n; ++k) p[k] += tau * v[k];
                }
            }
        }
    }
    if (st == SP_OK) {
        band_mul(n, kd, ab, p, Hp);
        info->predicted = -(sp_vec_dot(n, g, p) + 0.5 * sp_vec_dot(n, p, Hp));
        info->length = sp_vec_norm(n, p);
    }
    free(factor), free(q), free(v), free(Hp);
    return st;
}
