/* Levenberg–Marquardt steps on banded systems (see sp_band_lm.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band_lm.h"

struct sp_band_lm {
    int n, kl, ku;
    sp_band *normal; /* JᵀWJ + μD, bandwidths kl + ku */
    double *scale;   /* the row scales of the step's point, kept for every trial's merit */
    double *grad;    /* JᵀWF */
    double *diag;    /* D, the Marquardt scaling */
    double *dx, *F_trial;
};

sp_band_lm *sp_band_lm_alloc(int n, int kl, int ku)
{
    if (n < 1 || kl < 0 || ku < 0) return NULL;
    sp_band_lm *lm = calloc(1, sizeof *lm);
    if (!lm) return NULL;
    lm->n = n, lm->kl = kl, lm->ku = ku;
    lm->normal = sp_band_alloc(n, kl + ku, kl + ku);
    const size_t sz = (size_t)n * sizeof(double);
    lm->scale = malloc(sz), lm->grad = malloc(sz), lm->diag = malloc(sz);
    lm->dx = malloc(sz), lm->F_trial = malloc(sz);
    if (!lm->normal || !lm->scale || !lm->grad || !lm->diag || !lm->dx || !lm->F_trial) {
        sp_band_lm_free(lm);
        return NULL;
    }
    return lm;
}

void sp_band_lm_free(sp_band_lm *lm)
{
    if (!lm) return;
    sp_band_free(lm->normal);
    free(lm->scale), free(lm->grad), free(lm->diag), free(lm->dx), free(lm->F_trial);
    free(lm);
}

const double *sp_band_lm_last_step(const sp_band_lm *lm) { return lm->dx; }

/* ½ Σ (F_r / s_r)² with the row scales kept from the step's point. */
static double merit(const sp_band_lm *lm, const double *F)
{
    double m = 0.0;
    for (int r = 0; r < lm->n; ++r) m += 0.5 * (F[r] / lm->scale[r]) * (F[r] / lm->scale[r]);
    return m;
}

sp_status sp_band_lm_step(sp_band_lm *lm, const sp_band *J, const double *F, const double *scale, double *mu,
                          double *mu_growth, sp_band_lm_trial_fn trial, void *ctx, int *accepted)
{
    if (!lm || !J || !F || !scale || !mu || !mu_growth || !trial || !accepted) return SP_ERR_INVALID;
    const int n = lm->n, kl = lm->kl, ku = lm->ku, w = kl + ku;
    *accepted = 0;
    memcpy(lm->scale, scale, (size_t)n * sizeof *scale);
    const double phi0 = merit(lm, F);
    /* g = JᵀWF */
    for (int c = 0; c < n; ++c) {
        double g = 0.0;
        for (int r = c - ku < 0 ? 0 : c - ku; r <= c + kl && r < n; ++r)
            g += sp_band_get(J, r, c) * F[r] / (lm->scale[r] * lm->scale[r]);
        if (!isfinite(g)) return SP_ERR_NONFINITE;
        lm->grad[c] = g;
    }
    for (int tries = 0; tries < 40; ++tries) {
        sp_band_zero(lm->normal);
        for (int c1 = 0; c1 < n; ++c1)
            for (int c2 = c1; c2 <= c1 + w && c2 < n; ++c2) {
                double a = 0.0;
                for (int r = c2 - ku < 0 ? 0 : c2 - ku; r <= c1 + kl && r < n; ++r)
                    a += sp_band_get(J, r, c1) * sp_band_get(J, r, c2) / (lm->scale[r] * lm->scale[r]);
                if (c1 == c2) {
                    lm->diag[c1] = fmax(a, 1e-12); /* the Marquardt scaling, kept for the prediction */
                    a += *mu * lm->diag[c1];
                }
                sp_band_add(lm->normal, c1, c2, a);
                if (c2 != c1) sp_band_add(lm->normal, c2, c1, a);
            }
        sp_status st = sp_band_factor(lm->normal);
        if (st != SP_OK) return st;
        for (int c = 0; c < n; ++c) lm->dx[c] = -lm->grad[c];
        st = sp_band_solve(lm->normal, lm->dx);
        if (st != SP_OK) return st;
        double predicted = 0.0;
        for (int c = 0; c < n; ++c) predicted += 0.5 * lm->dx[c] * (*mu * lm->diag[c] * lm->dx[c] - lm->grad[c]);
        sp_status ts = trial(ctx, lm->dx, lm->F_trial);
        double rho = ts == SP_OK && predicted > 0.0 ? (phi0 - merit(lm, lm->F_trial)) / predicted : -1.0;
        if (rho > 0.0) {
            double q = 2.0 * rho - 1.0;
            *mu *= fmax(1.0 / 3.0, 1.0 - q * q * q);
            *mu_growth = 2.0;
            *accepted = 1;
            return SP_OK;
        }
        *mu *= *mu_growth;
        *mu_growth *= 2.0;
    }
    return SP_OK;
}
