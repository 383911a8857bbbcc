/* Multiple shooting with a banded Newton solver (see sp_multiple_shooting.h): the object,
 * its unknowns and starts, and the Newton and Levenberg–Marquardt iterations; the system
 * is multiple_shooting_system.c, the reported trajectory multiple_shooting_report.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/multiple_shooting_internal.h"


const char *sp_start_name(sp_start_kind kind)
{
    static const char *const names[] = {"spline", "geodesic", "uniform"};
    return kind < SP_START_COUNT ? names[kind] : "?";
}

int sp_ms_unknowns(const sp_ms *ms) { return ms->nx; }
double sp_ms_sigma(const sp_ms *ms) { return ms->cubic.sigma; }

/* Row count before join j's continuity rows, and the layout of rows:
 * [start: 2n] [join j: (nc if exact keyframe) + nz] … [end: (nc) + 2n]. */
static int keyframe_at_join(const sp_ms *ms, int j) { return ms->grid.target_at[ms->kb[j + 1]]; }

static void layout(sp_ms *ms)
{
    int x = 0;
    for (size_t i = 0; i < ms->cubic.n_targets; ++i) ms->off_lam[i] = -1;
    for (int j = 0; j < ms->M; ++j) {
        int i = j > 0 ? ms->grid.target_at[ms->kb[j]] : -1;
        if (ms->exact && i >= 0) ms->off_lam[i] = x, x += ms->nc;
        ms->off_s[j] = x, x += ms->nz;
    }
    int i_end = ms->grid.target_at[ms->N];
    if (ms->exact && i_end >= 0) ms->off_lam[i_end] = x, x += ms->nc;
    ms->nx = x;
    /* bandwidths: every row group touches a contiguous range of columns */
    int row = 0, kl = 0, ku = 0;
    const int n = ms->n, nz = ms->nz;
    /* start rows touch s_0 */
    for (int r = 0; r < 2 * n; ++r) {
        kl = fmax(kl, row + r - ms->off_s[0]);
        ku = fmax(ku, ms->off_s[0] + nz - 1 - (row + r));
    }
    row += 2 * n;
    for (int j = 0; j + 1 < ms->M; ++j) {
        int rows = nz + (ms->exact && keyframe_at_join(ms, j) >= 0 ? ms->nc : 0);
        int c0 = ms->off_s[j], c1 = ms->off_s[j + 1] + nz - 1;
        for (int r = 0; r < rows; ++r) kl = fmax(kl, row + r - c0), ku = fmax(ku, c1 - (row + r));
        row += rows;
    }
    int c0 = ms->off_s[ms->M - 1], c1 = ms->nx - 1;
    for (int r = row; r < ms->nx; ++r) kl = fmax(kl, r - c0), ku = fmax(ku, c1 - r);
    ms->kl = kl, ms->ku = ku;
}


sp_ms *sp_ms_alloc(const sp_problem *pb, double sigma) { return sp_ms_alloc_segments(pb, sigma, NULL); }

sp_ms *sp_ms_alloc_segments(const sp_problem *pb, double sigma, const int *segment_steps)
{
    sp_ms *ms = calloc(1, sizeof *ms);
    if (!ms) return NULL;
    ms->pb = pb;
    ms->G = pb->cubic.group;
    ms->n = ms->G->dim;
    ms->nz = 4 * ms->n;
    if (sp_plan_setup(pb, sigma, segment_steps, &ms->cubic, &ms->N, &ms->grid) != SP_OK) goto fail;
    ms->exact = sigma == 0.0;
    ms->max_iterations = pb->plan.max_iterations > 0 ? pb->plan.max_iterations : 100;
    ms->nc = pb->cubic.space == SP_SPACE_SPHERE ? 2 : ms->n;
    sp_hohp_config cfg = {.group = ms->G,
                          .retraction = pb->retraction,
                          .theta = pb->scheme->theta,
                          .solver = pb->solver,
                          .solve = {.tol = pb->solver_tol, .max_iter = 50}};
    ms->workers = sp_parallel_workers();
    int steppers = 1;
    for (int w = 0; w < ms->workers; ++w)
        steppers &= pb->scheme->rk_table ? (ms->rk[w] = sp_hohp_rk_alloc(ms->G, pb->scheme->rk_table)) != NULL
                                         : (ms->stepper[w] = sp_hohp_alloc(&cfg)) != NULL;
    size_t N = (size_t)ms->N, m = pb->cubic.n_targets;
    ms->off_lam = malloc((m ? m : 1) * sizeof *ms->off_lam);
    if (!steppers || !ms->off_lam) goto fail;

    /* blocks: cut at every keyframe, long stretches into even blocks */
    int B = pb->plan.block_steps > 0 ? pb->plan.block_steps : 64, M = 0;
    ms->kb = malloc((N + 2) * sizeof *ms->kb);
    if (!ms->kb) goto fail;
    ms->kb[0] = 0;
    for (size_t i = 0, k0 = 0; i <= m; ++i) {
        size_t k1 = i < m ? (size_t)ms->grid.target_step[i] : N;
        if (k1 <= k0) continue;
        size_t len = k1 - k0, pieces = (len + (size_t)B - 1) / (size_t)B;
        for (size_t q = 1; q <= pieces; ++q) ms->kb[++M] = (int)(k0 + len * q / pieces);
        k0 = k1;
    }
    ms->M = M;
    ms->block_run = malloc((size_t)M * sizeof *ms->block_run);
    ms->block_cost = malloc((size_t)M * sizeof *ms->block_cost);
    if (!ms->block_run || !ms->block_cost) goto fail;
    for (int j = 0; j < M; ++j) ms->block_cost[j] = ms->kb[j + 1] - ms->kb[j];
    ms->off_s = malloc((size_t)M * sizeof *ms->off_s);
    ms->S = calloc((size_t)M, sizeof *ms->S);
    ms->S_trial = calloc((size_t)M, sizeof *ms->S_trial);
    ms->E = calloc((size_t)M, sizeof *ms->E);
    ms->E_trial = calloc((size_t)M, sizeof *ms->E_trial);
    ms->lam = calloc((m ? m : 1) * (size_t)ms->nc, sizeof *ms->lam);
    ms->lam_trial = calloc((m ? m : 1) * (size_t)ms->nc, sizeof *ms->lam_trial);
    if (!ms->off_s || !ms->S || !ms->S_trial || !ms->E || !ms->E_trial || !ms->lam ||
        !ms->lam_trial)
        goto fail;
    layout(ms);
    size_t nx = (size_t)ms->nx;
    ms->F = malloc(nx * sizeof *ms->F);
    ms->dx = malloc(nx * sizeof *ms->dx);
    ms->dxb = malloc(nx * sizeof *ms->dxb);
    ms->weight = malloc(nx * sizeof *ms->weight);
    ms->rscale = malloc(nx * sizeof *ms->rscale);
    if (!ms->F || !ms->dx || !ms->dxb || !ms->weight || !ms->rscale)
        goto fail;

    if (pb->cubic.space == SP_SPACE_SPHERE) {
        double a[3], b[3];
        sp_ms_plane_basis(pb->cubic.y0, a, b);
        for (int r = 0; r < 3; ++r) ms->W[r * 2 + 0] = a[r], ms->W[r * 2 + 1] = b[r];
    } else {
        sp_mat_identity(ms->n, ms->W);
    }
    return ms;
fail:
    sp_ms_free(ms);
    return NULL;
}

void sp_ms_free(sp_ms *ms)
{
    if (!ms) return;
    for (int w = 0; w < SP_PARALLEL_MAX; ++w) sp_hohp_free(ms->stepper[w]), sp_hohp_rk_free(ms->rk[w]);
    free(ms->block_run), free(ms->block_cost);
    sp_plan_grid_free(&ms->grid), free(ms->off_lam), free(ms->kb);
    free(ms->off_s), free(ms->S), free(ms->S_trial), free(ms->E), free(ms->E_trial), free(ms->Jb);
    free(ms->Jb_trial), free(ms->lam), free(ms->lam_trial), sp_band_free(ms->band), free(ms->F);
    free(ms->dx), free(ms->dxb), free(ms->weight), free(ms->rscale);
    sp_band_lm_free(ms->lm);
    free(ms);
}

/* The block Jacobians and the banded Newton matrix, allocated when first needed: a solve
 * whose start is already a solution (the condensed solver's check) never needs them. */
static sp_status ensure_linear(sp_ms *ms)
{
    const size_t jb = (size_t)ms->M * ms->nz * ms->nz;
    if (!ms->Jb) ms->Jb = malloc(jb * sizeof *ms->Jb);
    if (!ms->Jb_trial) ms->Jb_trial = malloc(jb * sizeof *ms->Jb_trial);
    if (!ms->band) ms->band = sp_band_alloc(ms->nx, ms->kl, ms->ku);
    return ms->Jb && ms->Jb_trial && ms->band ? SP_OK : SP_ERR_NOMEM;
}

sp_status sp_ms_start(sp_ms *ms, sp_start_kind kind)
{
    sp_start_curve *c = sp_start_curve_new(ms->pb, kind);
    if (!c) return SP_ERR_NOMEM;
    for (int j = 0; j < ms->M; ++j) sp_start_curve_eval(c, ms->grid.t[ms->kb[j]], &ms->S[j]);
    memset(ms->lam, 0, ms->cubic.n_targets * (size_t)ms->nc * sizeof *ms->lam);
    sp_start_curve_free(c);
    return SP_OK;
}

void sp_ms_cap_iterations(sp_ms *ms, int max_iterations)
{
    const int own = ms->pb->plan.max_iterations > 0 ? ms->pb->plan.max_iterations : 100;
    ms->max_iterations = max_iterations < own ? max_iterations : own;
}

const int *sp_ms_block_nodes(const sp_ms *ms, int *count)
{
    *count = ms->M;
    return ms->kb;
}

void sp_ms_set_states(sp_ms *ms, const sp_hohp_state *S) { memcpy(ms->S, S, (size_t)ms->M * sizeof *ms->S); }

int sp_ms_set_ends(sp_ms *ms, const sp_hohp_state *E, const double *running, int count)
{
    if (count != ms->M || (size_t)count != ms->cubic.n_targets) return -1;
    for (int j = 0; j < count; ++j)
        if (ms->grid.target_at[ms->kb[j + 1]] != j) return -1; /* block j ends at keyframe j */
    memcpy(ms->E, E, (size_t)count * sizeof *E);
    memcpy(ms->block_run, running, (size_t)count * sizeof *running);
    ms->ends_given = 1;
    return 0;
}

void sp_ms_set_kicks(sp_ms *ms, const double *kicks)
{
    for (size_t i = 0; ms->exact && i < ms->cubic.n_targets; ++i)
        for (int a = 0; a < ms->nc; ++a) {
            double s = 0.0;
            for (int r = 0; r < ms->n; ++r) s += ms->W[r * ms->nc + a] * kicks[i * (size_t)ms->n + (size_t)r];
            ms->lam[i * (size_t)ms->nc + (size_t)a] = s;
        }
}

void sp_ms_take_states(sp_ms *ms, const sp_ms *from)
{
    memcpy(ms->S, from->S, (size_t)ms->M * sizeof *ms->S);
    if (ms->exact && from->exact) memcpy(ms->lam, from->lam, ms->cubic.n_targets * (size_t)ms->nc * sizeof *ms->lam);
    if (ms->exact && !from->exact) {
        /* the kicks of the weighted plan, expressed in the multiplier directions */
        for (size_t i = 0; i < ms->cubic.n_targets; ++i) {
            double kick[SP_LIE_MAX_DIM];
            int b = 0;
            while (b + 1 < from->M && from->kb[b + 1] < ms->grid.target_step[i]) ++b;
            sp_cubic_target_gradient(&from->cubic, i, from->E[b].g, kick);
            for (int a = 0; a < ms->nc; ++a) {
                double s = 0.0;
                for (int r = 0; r < ms->n; ++r) s += ms->W[r * ms->nc + a] * kick[r];
                ms->lam[i * (size_t)ms->nc + (size_t)a] = s;
            }
        }
    }
}

void sp_ms_take_curve(sp_ms *ms, const sp_ms *from, sp_curve *curve)
{
    for (int j = 0; j < ms->M; ++j) sp_curve_state(curve, ms->grid.t[ms->kb[j]], &ms->S[j]);
    if (ms->exact && from->exact) memcpy(ms->lam, from->lam, ms->cubic.n_targets * (size_t)ms->nc * sizeof *ms->lam);
}

static sp_status factor(sp_ms *ms)
{
    const double t0 = sp_clock_seconds();
    ms->stats.factorizations++;
    sp_status st = sp_band_factor(ms->band);
    ms->band_factored = st == SP_OK;
    ms->stats.algebra_seconds += sp_clock_seconds() - t0;
    return st;
}

/* x ← −J⁻¹x with the factored band matrix. */
static sp_status back_solve(sp_ms *ms, double *x)
{
    const double t0 = sp_clock_seconds();
    for (int k = 0; k < ms->nx; ++k) x[k] = -x[k];
    sp_status st = sp_band_solve(ms->band, x);
    ms->stats.algebra_seconds += sp_clock_seconds() - t0;
    return st;
}

/* Sweeps the current states with their block Jacobians and assembles the band: F and the
 * scaled residual at the current point, J in the band (unfactored). */
static sp_status linearise(sp_ms *ms, double *F, double *scaled)
{
    sp_status st = ensure_linear(ms);
    if (st == SP_OK) st = sp_ms_sweep(ms, ms->S, ms->E, ms->Jb, &ms->running);
    if (st != SP_OK) return st;
    const double t0 = sp_clock_seconds(); /* Newton's banded system from the block Jacobians */
    st = sp_ms_system_residual(ms, ms->S, ms->lam, ms->E, ms->Jb, F, 1, scaled);
    ms->stats.algebra_seconds += sp_clock_seconds() - t0;
    return st;
}

sp_status sp_ms_residual(sp_ms *ms, double *F)
{
    double run, scaled;
    sp_status st = sp_ms_sweep(ms, ms->S, ms->E, NULL, &run);
    return st != SP_OK ? st : sp_ms_system_residual(ms, ms->S, ms->lam, ms->E, NULL, F, 0, &scaled);
}

sp_status sp_ms_correction(sp_ms *ms, double *dx)
{
    double scaled;
    sp_status st = linearise(ms, dx, &scaled);
    if (st == SP_OK) st = factor(ms);
    return st != SP_OK ? st : back_solve(ms, dx);
}

sp_status sp_ms_jacobian_dense(sp_ms *ms, double *J)
{
    double scaled;
    sp_status st = linearise(ms, ms->F, &scaled);
    if (st != SP_OK) return st;
    const int nx = ms->nx;
    for (int r = 0; r < nx; ++r)
        for (int c = 0; c < nx; ++c) J[(size_t)r * nx + c] = sp_band_get(ms->band, r, c);
    return SP_OK;
}

/* Weighted RMS norm of a correction: unknowns in units of max(1, |x|). */
static double wnorm(const sp_ms *ms, const double *v)
{
    double s = 0.0;
    for (int k = 0; k < ms->nx; ++k) s += (v[k] * ms->weight[k]) * (v[k] * ms->weight[k]);
    return sqrt(s / ms->nx);
}

static void set_weights(sp_ms *ms)
{
    const int n = ms->n;
    for (int j = 0; j < ms->M; ++j) {
        double *w = ms->weight + ms->off_s[j];
        for (int k = 0; k < n; ++k) {
            w[k] = 1.0;
            w[n + k] = 1.0 / fmax(1.0, fabs(ms->S[j].xi[k]));
            w[2 * n + k] = 1.0 / fmax(1.0, fabs(ms->S[j].nu[k]));
            w[3 * n + k] = 1.0 / fmax(1.0, fabs(ms->S[j].p[k]));
        }
    }
    for (size_t i = 0; i < ms->cubic.n_targets; ++i)
        if (ms->off_lam[i] >= 0)
            for (int a = 0; a < ms->nc; ++a)
                ms->weight[ms->off_lam[i] + a] = 1.0 / fmax(1.0, fabs(ms->lam[i * (size_t)ms->nc + (size_t)a]));
}

static void swap_trial(sp_ms *ms)
{
    sp_hohp_state *S = ms->S, *E = ms->E;
    double *lam = ms->lam, *Jb = ms->Jb;
    ms->S = ms->S_trial, ms->S_trial = S;
    ms->E = ms->E_trial, ms->E_trial = E;
    ms->lam = ms->lam_trial, ms->lam_trial = lam;
    ms->Jb = ms->Jb_trial, ms->Jb_trial = Jb;
    ms->running = ms->running_trial;
}

static double target_cost(const sp_ms *ms)
{
    if (ms->exact) return 0.0;
    double J = 0.0;
    for (int j = 0; j < ms->M; ++j) {
        int i = ms->grid.target_at[ms->kb[j + 1]];
        if (i >= 0) J += sp_cubic_target_cost(&ms->cubic, (size_t)i, ms->E[j].g);
    }
    return J;
}

/* A trial point of a Levenberg–Marquardt step: S + dx swept, its residual into F. */
static sp_status lm_trial(void *ctx, const double *dx, double *F)
{
    sp_ms *ms = ctx;
    const double t0 = sp_clock_seconds();
    double res_trial;
    sp_ms_retract(ms, ms->S, ms->lam, dx, 1.0, ms->S_trial, ms->lam_trial);
    sp_status ts = sp_ms_sweep(ms, ms->S_trial, ms->E_trial, NULL, &ms->running_trial);
    if (ts == SP_OK) ts = sp_ms_system_residual(ms, ms->S_trial, ms->lam_trial, ms->E_trial, NULL, F, 0, &res_trial);
    ms->lm_trial_seconds += sp_clock_seconds() - t0;
    return ts;
}

/* One Levenberg–Marquardt step on the scaled residual (sp_band_lm.h), for where Newton's
 * linear model is not to be trusted (far from a solution, or along a nearly singular
 * direction of J: a sphere plan's spin about y0 over a long horizon is one). The band
 * holds J at the current point, unfactored. Returns SP_OK with *accepted set when the
 * merit decreased; the trial point then becomes current. */
static sp_status lm_step(sp_ms *ms, double *mu, double *mu_growth, int *accepted)
{
    *accepted = 0;
    if (!ms->lm) ms->lm = sp_band_lm_alloc(ms->nx, ms->kl, ms->ku);
    if (!ms->lm) return SP_ERR_NOMEM;
    ms->lm_trial_seconds = 0.0;
    const double t0 = sp_clock_seconds();
    sp_status st = sp_band_lm_step(ms->lm, ms->band, ms->F, ms->rscale, mu, mu_growth, lm_trial, ms, accepted);
    ms->stats.algebra_seconds += sp_clock_seconds() - t0 - ms->lm_trial_seconds;
    if (st == SP_OK && *accepted) swap_trial(ms);
    return st;
}

/* Newton's method on the whole system. The band holds J at some point, factored or not.
 * A step that contracts fast (full step, simplified correction J⁻¹F(x + Δx) at most a
 * quarter of Δx) keeps the factors for the next correction, which is then that simplified
 * correction, already computed: simplified Newton, whose rate the test keeps judging. A
 * step that the kept factors cannot make refreshes J at the current point first. */
sp_status sp_ms_solve(sp_ms *ms, const sp_progress *progress, sp_ms_stats *out)
{
    const sp_problem *pb = ms->pb;
    const int max_iter = ms->max_iterations;
    const double tol = pb->plan.tolerance > 0.0 ? pb->plan.tolerance : 1e-10;
    memset(&ms->stats, 0, sizeof ms->stats);
    double res = HUGE_VAL, mu = 1e-3, mu_growth = 2.0;
    /* J current at S (the band holds it, unfactored unless `factored`); a correction in dx */
    int jac_current = 0, factored = ms->kept_factors, have_dx = 0;
    ms->kept_factors = 0;
    /* the residual first: a start that is already a solution needs no Jacobian (nor a
     * sweep, when the caller gave the ends of one) */
    sp_status st = SP_OK;
    if (ms->ends_given) {
        ms->running = 0.0;
        for (int j = 0; j < ms->M; ++j) ms->running += ms->block_run[j];
        ms->ends_given = 0;
    } else {
        st = sp_ms_sweep(ms, ms->S, ms->E, NULL, &ms->running);
    }
    if (st == SP_OK) st = sp_ms_system_residual(ms, ms->S, ms->lam, ms->E, NULL, ms->F, 0, &res);
    if (st == SP_OK && res > tol && !factored) {
        st = linearise(ms, ms->F, &res);
        jac_current = 1;
    }
    double alpha = 1.0;
    while (st == SP_OK) {
        sp_progress_info info = {
            .evaluation = ms->stats.iterations + 1, .cost = ms->running + target_cost(ms), .gradient_norm = res};
        sp_progress_report(progress, &info);
        if (res <= tol) {
            ms->stats.converged = 1;
            break;
        }
        if (ms->stats.iterations >= max_iter) break;
        if (sp_progress_stopped(progress)) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        ms->stats.iterations++;
        set_weights(ms);
        if (!have_dx) {
            if (!factored) st = factor(ms);
            factored = 1;
            if (st == SP_OK) {
                memcpy(ms->dx, ms->F, (size_t)ms->nx * sizeof *ms->dx);
                st = back_solve(ms, ms->dx);
            }
        }
        have_dx = 0;
        /* damped by the natural monotonicity test down to α = 1/8 */
        int accepted = 0;
        double trial_residual = HUGE_VAL, rate = HUGE_VAL;
        if (st == SP_OK) {
            const double ndx = wnorm(ms, ms->dx);
            alpha = fmin(1.0, 4.0 * alpha);
            for (; !accepted && alpha >= 0.125; alpha *= 0.5) {
                double res_trial = HUGE_VAL;
                sp_ms_retract(ms, ms->S, ms->lam, ms->dx, alpha, ms->S_trial, ms->lam_trial);
                sp_status ts = sp_ms_sweep(ms, ms->S_trial, ms->E_trial, NULL, &ms->running_trial);
                if (ts == SP_OK)
                    ts = sp_ms_system_residual(ms, ms->S_trial, ms->lam_trial, ms->E_trial, NULL, ms->dxb, 0, &res_trial);
                if (ts == SP_OK) ts = back_solve(ms, ms->dxb);
                rate = ts == SP_OK ? wnorm(ms, ms->dxb) / ndx : HUGE_VAL;
                if (ts == SP_OK && (res_trial <= tol || rate <= 1.0 - 0.25 * alpha)) {
                    accepted = 1;
                    trial_residual = res_trial;
                    swap_trial(ms);
                    mu = fmax(mu / 3.0, 1e-12);
                    break;
                }
            }
        }
        if (!accepted && st == SP_OK && !jac_current) {
            /* kept factors of an older point: refresh J here and try Newton again */
            --ms->stats.iterations;
            alpha = 1.0;
            st = linearise(ms, ms->F, &res);
            jac_current = 1, factored = 0;
            continue;
        }
        if (!accepted) {
            /* Newton's model failed here: a Levenberg–Marquardt step from the same point
             * (the band is rebuilt from the block Jacobians, which are still current) */
            alpha = 0.125;
            double r0;
            st = sp_ms_system_residual(ms, ms->S, ms->lam, ms->E, ms->Jb, ms->F, 1, &r0);
            if (st == SP_OK) st = lm_step(ms, &mu, &mu_growth, &accepted);
            if (st != SP_OK || !accepted) break; /* no decrease at all: stalled */
            rate = HUGE_VAL;
        }
        if (trial_residual <= tol) {
            /* a solution: its residual and ends E are the trial sweep's */
            res = trial_residual;
            jac_current = 0;
            continue;
        }
        if (alpha == 1.0 && rate <= 0.1 && factored) {
            /* contracting fast: keep the factors; the next correction is the simplified
             * one just computed, and F that of the trial sweep */
            memcpy(ms->dx, ms->dxb, (size_t)ms->nx * sizeof *ms->dx);
            have_dx = 1, jac_current = 0;
            res = trial_residual;
            continue;
        }
        /* the accepted point becomes current, with its Jacobian */
        st = linearise(ms, ms->F, &res);
        jac_current = 1, factored = 0;
    }
    ms->stats.residual = res;
    ms->stats.running_cost = ms->running;
    ms->stats.cost = ms->running + target_cost(ms);
    *out = ms->stats;
    return st;
}

int sp_ms_take_factors(sp_ms *ms, const sp_ms *from)
{
    ms->kept_factors = from->band_factored && ensure_linear(ms) == SP_OK && sp_band_copy(ms->band, from->band) == 0;
    ms->band_factored = ms->kept_factors;
    return ms->kept_factors;
}

/* Whether node k is a row of the report. */
