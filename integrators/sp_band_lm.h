/* Levenberg–Marquardt steps for a square nonlinear system F(x) = 0 whose Jacobian is
 * banded (sp_band.h): for where Newton's linear model is not to be trusted (far from a
 * solution, or along a nearly singular direction of J). A step minimises the scaled
 * merit ½ Σ_r (F_r / s_r)² along (JᵀWJ + μ D) Δx = −JᵀWF, W = diag(1/s_r²),
 * D = diag(JᵀWJ) (floored at 1e-12), and adapts μ by the ratio of actual to predicted
 * decrease (Nielsen's rule). The solver owns its work space (the normal matrix, of
 * bandwidths kl + ku) and allocates nothing per step; the caller owns x and evaluates
 * trial points through a callback (docs/methods.md §3.4). */
#ifndef SP_BAND_LM_H
#define SP_BAND_LM_H

#include "integrators/sp_band.h"

typedef struct sp_band_lm sp_band_lm;

/* Work space for systems of n unknowns whose Jacobian has kl sub- and ku
 * super-diagonals. NULL for n < 1, negative bandwidths, or out of memory. */
sp_band_lm *sp_band_lm_alloc(int n, int kl, int ku);
void sp_band_lm_free(sp_band_lm *lm); /* NULL is a no-op */

/* The residual at the trial point x + dx, into F (n values). Returns SP_OK, or a failure
 * status, which counts as no decrease. The caller keeps the trial point it made: the
 * one of the last call is the accepted one when sp_band_lm_step accepts. */
typedef sp_status (*sp_band_lm_trial_fn)(void *ctx, const double *dx, double *F);

/* One step from x, where F (n values) is the residual and J (n x n, the shape of `lm`,
 * unfactored; read only) its Jacobian; scale holds the row scales s_r (> 0). *mu is the
 * damping and *mu_growth its growth after a rejected trial (start with 1e-3 and 2, say);
 * both are updated. Tries at most 40 dampings, each through one call of `trial`.
 * Returns SP_OK with *accepted = 1 when a trial lowered the merit (the last trial is the
 * new point), SP_OK with *accepted = 0 when none did (a stall: the caller's x stands);
 * SP_ERR_SINGULAR when the damped normal matrix is singular (μ = 0 and a column of J
 * zero), SP_ERR_NONFINITE when JᵀWF is not finite, SP_ERR_INVALID for NULL arguments. */
sp_status sp_band_lm_step(sp_band_lm *lm, const sp_band *J, const double *F, const double *scale, double *mu,
                          double *mu_growth, sp_band_lm_trial_fn trial, void *ctx, int *accepted);

/* The step Δx of the last trial (n values; valid until the next call). */
const double *sp_band_lm_last_step(const sp_band_lm *lm);

#endif
