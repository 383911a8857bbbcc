/* Multiple shooting with a banded Newton solver (see sp_multiple_shooting.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_parallel.h"
#include "integrators/sp_band.h"
#include "integrators/sp_band_lm.h"
#include "integrators/sp_hohp_rk.h"
#include "planner/cubic/sp_multiple_shooting.h"
#include "lie/sp_linalg.h"
#include "lie/sp_lie.h"

#define NZ_MAX (4 * SP_LIE_MAX_DIM)

struct sp_ms {
    const sp_problem *pb;
    sp_cubic_spline cubic; /* the problem's, with the σ of this object */
    const sp_group *G;
    int workers;                          /* threads of a sweep (sp_parallel.h), each with */
    sp_hohp *stepper[SP_PARALLEL_MAX];    /* a stepper of the θ-family, or */
    sp_hohp_rk *rk[SP_PARALLEL_MAX];      /* of the RKMK scheme of the continuous equations */
    double *block_run;                    /* per block: running cost of the last sweep */
    int *block_cost;                      /* per block: its steps (for sp_parallel_run) */
    int n, nz, N, M; /* algebra dim, 4n, steps, blocks */
    int exact, nc;   /* σ = 0; rows of one interpolation condition (3, or 2 on the sphere) */
    sp_plan_grid grid;
    int *kb; /* M+1 block boundaries (grid indices) */
    /* unknowns */
    int nx;
    int *off_s;   /* offset of s_j in x */
    int *off_lam; /* per keyframe: offset of its multiplier (exact), else −1 */
    sp_hohp_state *S, *S_trial;
    double *lam, *lam_trial; /* n_targets x nc */
    double W[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM]; /* n x nc, columns: multiplier directions (y0⊥ on the sphere) */
    /* per block: end state and Jacobian ∂e_j/∂s_j (nz x nz, column c at c·nz) */
    sp_hohp_state *E, *E_trial;
    double *Jb, *Jb_trial;
    double running, running_trial;
    /* banded system */
    int kl, ku;
    sp_band *band;
    double *F, *dx, *dxb, *weight;
    double *rscale;  /* scale of every residual row (optimality residual, LM merit) */
    sp_band_lm *lm;  /* Levenberg–Marquardt steps, allocated when first needed */
    double lm_trial_seconds; /* in the trial sweeps of the last LM step */
    int max_iterations; /* Newton iterations allowed (the problem's unless capped) */
    int kept_factors;   /* the band holds factors taken from another object (sp_ms_take_factors) */
    int band_factored;  /* the band holds LU factors (else J or nothing) */
    int ends_given;     /* E and block_run hold the sweep from S (sp_ms_set_ends) */
    sp_ms_stats stats;
};


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

/* Orthonormal basis of the plane ⊥ u (columns a, b). */
static void plane_basis(const double *u, double *a, double *b)
{
    double e[3] = {0, 0, 0};
    e[fabs(u[0]) < 0.6 ? 0 : fabs(u[1]) < 0.6 ? 1 : 2] = 1.0;
    sp_cross(u, e, a);
    double na = sp_vec_norm(3, a);
    for (int k = 0; k < 3; ++k) a[k] /= na;
    sp_cross(u, a, b);
}

sp_ms *sp_ms_alloc(const sp_problem *pb, double sigma) { return sp_ms_alloc_segments(pb, sigma, NULL); }

sp_ms *sp_ms_alloc_segments(const sp_problem *pb, double sigma, const int *segment_steps)
{
    sp_ms *ms = calloc(1, sizeof *ms);
    if (!ms) return NULL;
    ms->pb = pb;
    ms->cubic = pb->cubic;
    ms->cubic.sigma = sigma;
    ms->G = pb->cubic.group;
    ms->n = ms->G->dim;
    ms->nz = 4 * ms->n;
    ms->N = sp_plan_grid_steps(&pb->cubic, pb->T, pb->steps, segment_steps);
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
    if (!steppers || !ms->off_lam || sp_plan_grid_init_steps(&ms->grid, &ms->cubic, pb->T, ms->N, segment_steps) != SP_OK)
        goto fail;

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
        plane_basis(pb->cubic.y0, a, b);
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

/* The unknowns of a block are the correction δθ of g (g ← g exp(δθ)) and corrections
 * of ξ, ν, p in the SPATIAL frame (Ad_g ξ, Ad*_{g⁻¹} ν, Ad*_{g⁻¹} p), not the body frame:
 * turning g then carries its velocity and momenta along, so the spin of a sphere plan
 * about y0 (nearly free in the cost, and large over long horizons) enters the Newton
 * system linearly instead of through the rotation of every body vector. T (nz x nz,
 * column c at c·nz) maps these unknowns to body-frame perturbations of z. */
static void frame_change(const sp_ms *ms, const sp_hohp_state *z, double *T)
{
    const sp_group *G = ms->G;
    const int n = ms->n, nz = ms->nz;
    double g_inv[SP_LIE_MAX_ELEM];
    G->inverse(G, z->g, g_inv);
    memset(T, 0, (size_t)nz * nz * sizeof *T);
    for (int c = 0; c < n; ++c) {
        double e[SP_LIE_MAX_DIM] = {0}, v[SP_LIE_MAX_DIM];
        e[c] = 1.0;
        double *col = T + (size_t)c * nz; /* ∂z/∂δθ_c: ξ − ad_{e} ξ, ν + ad*_e ν, p + ad*_e p */
        col[c] = 1.0;
        G->ad(G, e, z->xi, v);
        for (int r = 0; r < n; ++r) col[n + r] = -v[r];
        G->ad_star(G, e, z->nu, v);
        for (int r = 0; r < n; ++r) col[2 * n + r] = v[r];
        G->ad_star(G, e, z->p, v);
        for (int r = 0; r < n; ++r) col[3 * n + r] = v[r];
        /* ∂ξ/∂(spatial ξ) = Ad_{g⁻¹}; ∂ν/∂(spatial ν) = Ad*_g, and the same for p */
        G->Ad(G, g_inv, e, v);
        for (int r = 0; r < n; ++r) T[(size_t)(n + c) * nz + n + r] = v[r];
        G->Ad_star(G, z->g, e, v);
        for (int r = 0; r < n; ++r) {
            T[(size_t)(2 * n + c) * nz + 2 * n + r] = v[r];
            T[(size_t)(3 * n + c) * nz + 3 * n + r] = v[r];
        }
    }
}

/* Jj ← Jj·T (both with column c at c·nz). */
static void change_columns(int nz, double *Jj, const double *T)
{
    double out[NZ_MAX * NZ_MAX];
    for (int c2 = 0; c2 < nz; ++c2)
        for (int r = 0; r < nz; ++r) {
            double acc = 0.0;
            for (int c = 0; c < nz; ++c) acc += Jj[c * nz + r] * T[c2 * nz + c];
            out[c2 * nz + r] = acc;
        }
    memcpy(Jj, out, (size_t)nz * nz * sizeof *Jj);
}

/* One step of the plan's scheme in place, with its running cost and, when J is not NULL,
 * the nz tangent columns of J carried along. */
static sp_status step(sp_ms *ms, int worker, double h, sp_hohp_state *z, double *running, double *J)
{
    if (ms->rk[worker]) return sp_hohp_rk_step(ms->rk[worker], h, z, z, running, J ? ms->nz : 0, J);
    sp_hohp *stepper = ms->stepper[worker];
    sp_hohp_interval iv;
    sp_status st = sp_hohp_step(stepper, h, z, z, &iv);
    if (st == SP_OK && J) st = sp_hohp_tangent(stepper, &iv, ms->nz, J);
    *running = 0.5 * h * sp_vec_dot(ms->n, iv.pi, iv.pi);
    return st;
}

/* What the pieces of a sweep share. */
typedef struct sweep_job {
    sp_ms *ms;
    const sp_hohp_state *S;
    sp_hohp_state *E;
    double *J;
    sp_hohp_state *nodes; /* or every node instead of E and J (sp_ms_nodes) */
} sweep_job;

static sp_status sweep_piece(void *ctx, int begin, int end, int worker)
{
    const sweep_job *job = ctx;
    sp_ms *ms = job->ms;
    const int nz = ms->nz;
    for (int j = begin; j < end; ++j) {
        sp_hohp_state z = job->S[j];
        double *Jj = job->J ? job->J + (size_t)j * nz * nz : NULL;
        if (Jj) {
            memset(Jj, 0, (size_t)nz * nz * sizeof *Jj);
            for (int c = 0; c < nz; ++c) Jj[c * nz + c] = 1.0;
        }
        double run = 0.0;
        for (int k = ms->kb[j]; k < ms->kb[j + 1]; ++k) {
            if (job->nodes) job->nodes[k] = z;
            if (!job->E && k + 1 == ms->kb[j + 1]) break; /* the next block's first node */
            double c;
            sp_status st = step(ms, worker, ms->grid.h[k], &z, &c, Jj);
            if (st != SP_OK) return st;
            run += c;
        }
        if (Jj) {
            double T[NZ_MAX * NZ_MAX];
            frame_change(ms, &job->S[j], T);
            change_columns(nz, Jj, T);
        }
        if (job->E) job->E[j] = z;
        ms->block_run[j] = run;
    }
    return SP_OK;
}

/* Integrates every block from S (and its tangents when J is not NULL) into E, J. */
static sp_status sweep(sp_ms *ms, const sp_hohp_state *S, sp_hohp_state *E, double *J, double *running)
{
    const double t0 = sp_clock_seconds();
    sweep_job job = {.ms = ms, .S = S, .E = E, .J = J};
    sp_status st = sp_parallel_run(ms->workers, ms->M, ms->block_cost, sweep_piece, &job);
    if (st != SP_OK) return st;
    double run = 0.0;
    for (int j = 0; j < ms->M; ++j) run += ms->block_run[j];
    ms->stats.evaluations++;
    if (J)
        ms->stats.linearised++, ms->stats.linearised_seconds += sp_clock_seconds() - t0;
    else
        ms->stats.forward_seconds += sp_clock_seconds() - t0;
    *running = run;
    return isfinite(run) ? SP_OK : SP_ERR_NONFINITE;
}

/* The interpolation condition of keyframe i at g (nc values) and its derivative C
 * (nc x n) under g → g exp(δ). */
static sp_status interpolation_condition(const sp_ms *ms, size_t i, const double *g, double *c, double *C)
{
    const sp_cubic_target *tg = &ms->cubic.targets[i];
    if (ms->cubic.space == SP_SPACE_SPHERE) {
        double u[2][3], y[3];
        plane_basis(tg->y, u[0], u[1]);
        sp_mat_vec(3, 3, g, ms->cubic.y0, y);
        for (int a = 0; a < 2; ++a) {
            c[a] = sp_vec_dot(3, u[a], y);
            if (C) {
                double w[3], row[3];
                sp_mat_tvec(3, 3, g, u[a], w);
                sp_cross(ms->cubic.y0, w, row);
                sp_vec_copy(3, row, C + a * 3);
            }
        }
        return SP_OK;
    }
    return sp_group_log_mismatch(ms->G, tg->R, g, c, NULL, C);
}

/* Kick κ at keyframe i reached at g (σ > 0) and its Jacobian K (n x n, row-major). */
static void kick(const sp_ms *ms, size_t i, const double *g, double *kappa, double *K)
{
    const int n = ms->n;
    sp_cubic_target_gradient(&ms->cubic, i, g, kappa);
    if (!K) return;
    for (int r = 0; r < n; ++r) {
        double e[SP_LIE_MAX_DIM] = {0};
        e[r] = 1.0;
        sp_cubic_target_jacobian_T(&ms->cubic, i, g, e, K + r * n); /* row r of K = Kᵀ e_r */
    }
}

/* The multiplier kick W λ_i (exact). */
static void multiplier_kick(const sp_ms *ms, const double *lam, size_t i, double *kappa)
{
    for (int r = 0; r < ms->n; ++r) {
        kappa[r] = 0.0;
        for (int a = 0; a < ms->nc; ++a) kappa[r] += ms->W[r * ms->nc + a] * lam[i * (size_t)ms->nc + (size_t)a];
    }
}

static void put(sp_ms *ms, int r, int c, double v) { sp_band_add(ms->band, r, c, v); }

/* A dense block (rows x cols, row-major) times the block Jacobian rows: adds A·Jb[rows
 * r0.., all nz columns] at (row, col). */
static void put_product(sp_ms *ms, int row, int col, int rows, int inner, const double *A, const double *Jj, int r0)
{
    const int nz = ms->nz;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < nz; ++c) {
            double s = 0.0;
            for (int q = 0; q < inner; ++q) s += A[r * inner + q] * Jj[c * nz + r0 + q];
            put(ms, row + r, col + c, s);
        }
}

/* Residual F of the whole system at (S, λ) with block ends E; with `assemble` also the
 * banded Jacobian from the block Jacobians Jb. Also sets the scale of every row for
 * the optimality residual (returned). */
static sp_status residual(sp_ms *ms, const sp_hohp_state *S, const double *lam, const sp_hohp_state *E,
                          const double *Jb, double *F, int assemble, double *scaled)
{
    const sp_group *G = ms->G;
    const int n = ms->n, nz = ms->nz;
    const sp_problem *pb = ms->pb;
    double worst = 0.0;
    double Id[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    sp_mat_identity(n, Id);
    if (assemble) sp_band_zero(ms->band), ms->band_factored = 0;
#define SCALE(r, s) (ms->rscale[r] = fmax(1.0, (s)), worst = fmax(worst, fabs(F[r]) / ms->rscale[r]))
    int row = 0;
    /* start: log(g0⁻¹ g_0) and ξ_0 − ξ0 (or p_0 when ξ_0 is free) */
    {
        double Db[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
        sp_status st = sp_group_log_mismatch(G, pb->g0, S[0].g, F, NULL, Db);
        if (st != SP_OK) return st;
        for (int k = 0; k < n; ++k) SCALE(k, 1.0);
        const double *v = pb->plan.xi0_free ? S[0].p : S[0].xi;
        for (int k = 0; k < n; ++k) {
            F[n + k] = v[k] - (pb->plan.xi0_free ? 0.0 : pb->xi0[k]);
            SCALE(n + k, fabs(v[k]));
        }
        if (assemble) {
            double T[NZ_MAX * NZ_MAX];
            frame_change(ms, &S[0], T);
            put_product(ms, 0, ms->off_s[0], n, n, Db, T, 0);
            put_product(ms, n, ms->off_s[0], n, n, Id, T, pb->plan.xi0_free ? 3 * n : n);
        }
        row = 2 * n;
    }
    for (int j = 0; j < ms->M; ++j) {
        const sp_hohp_state *e = &E[j];
        const double *Jj = Jb ? Jb + (size_t)j * nz * nz : NULL;
        const int last = j + 1 == ms->M;
        const int i = ms->grid.target_at[ms->kb[j + 1]];
        const int cj = ms->off_s[j];
        double kappa[SP_LIE_MAX_DIM] = {0}, K[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
        if (i >= 0 && ms->exact) {
            double C[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM]; /* nc x n: 6 x 6 on SE(3) */
            sp_status st = interpolation_condition(ms, (size_t)i, e->g, F + row, assemble ? C : NULL);
            if (st != SP_OK) return st;
            for (int a = 0; a < ms->nc; ++a) SCALE(row + a, 1.0);
            if (assemble) put_product(ms, row, cj, ms->nc, n, C, Jj, 0);
            row += ms->nc;
            multiplier_kick(ms, lam, (size_t)i, kappa);
        } else if (i >= 0) {
            kick(ms, (size_t)i, e->g, kappa, assemble ? K : NULL);
        }
        double nu_plus[SP_LIE_MAX_DIM];
        for (int k = 0; k < n; ++k) nu_plus[k] = e->nu[k] + kappa[k];
        if (!last) {
            const sp_hohp_state *s1 = &S[j + 1];
            const int c1 = ms->off_s[j + 1];
            double Da[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], Db[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
            sp_status st = sp_group_log_mismatch(G, s1->g, e->g, F + row, Da, Db);
            if (st != SP_OK) return st;
            for (int k = 0; k < n; ++k) {
                SCALE(row + k, 1.0);
                F[row + n + k] = e->xi[k] - s1->xi[k];
                SCALE(row + n + k, fabs(s1->xi[k]));
                F[row + 2 * n + k] = nu_plus[k] - s1->nu[k];
                SCALE(row + 2 * n + k, fmax(fabs(s1->nu[k]), fabs(kappa[k])));
                F[row + 3 * n + k] = e->p[k] - s1->p[k];
                SCALE(row + 3 * n + k, fabs(s1->p[k]));
            }
            if (assemble) {
                double T[NZ_MAX * NZ_MAX], minus[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
                frame_change(ms, s1, T);
                for (int k = 0; k < n * n; ++k) minus[k] = -Id[k];
                put_product(ms, row, cj, n, n, Db, Jj, 0);
                put_product(ms, row, c1, n, n, Da, T, 0);
                for (int b = 1; b < 4; ++b) {
                    put_product(ms, row + b * n, cj, n, n, Id, Jj, b * n);
                    put_product(ms, row + b * n, c1, n, n, minus, T, b * n);
                }
                if (i >= 0 && !ms->exact) put_product(ms, row + 2 * n, cj, n, n, K, Jj, 0);
                if (i >= 0 && ms->exact)
                    for (int r = 0; r < n; ++r)
                        for (int a = 0; a < ms->nc; ++a) put(ms, row + 2 * n + r, ms->off_lam[i] + a, ms->W[r * ms->nc + a]);
            }
            row += nz;
        } else {
            /* end: ν_N⁺ = 0, and p_N = 0 or ξ_N = ξ_T */
            const double *v = pb->plan.has_xiT ? e->xi : e->p;
            for (int k = 0; k < n; ++k) {
                F[row + k] = nu_plus[k];
                SCALE(row + k, fabs(kappa[k]));
                F[row + n + k] = v[k] - (pb->plan.has_xiT ? pb->plan.xiT[k] : 0.0);
                SCALE(row + n + k, fabs(v[k]));
            }
            if (assemble) {
                put_product(ms, row, cj, n, n, Id, Jj, 2 * n);
                if (i >= 0 && !ms->exact) put_product(ms, row, cj, n, n, K, Jj, 0);
                if (i >= 0 && ms->exact)
                    for (int r = 0; r < n; ++r)
                        for (int a = 0; a < ms->nc; ++a) put(ms, row + r, ms->off_lam[i] + a, ms->W[r * ms->nc + a]);
                put_product(ms, row + n, cj, n, n, Id, Jj, pb->plan.has_xiT ? n : 3 * n);
            }
            row += 2 * n;
        }
    }
#undef SCALE
    *scaled = worst;
    return sp_vec_isfinite(ms->nx, F) ? SP_OK : SP_ERR_NONFINITE;
}

/* Applies x ⊕ αΔx from (S, λ) into (S', λ'). */
static void retract(const sp_ms *ms, const sp_hohp_state *S, const double *lam, const double *dx, double alpha,
                    sp_hohp_state *S1, double *lam1)
{
    const sp_group *G = ms->G;
    const int n = ms->n;
    for (int j = 0; j < ms->M; ++j) {
        const double *d = dx + ms->off_s[j];
        double v[SP_LIE_MAX_DIM], R[SP_LIE_MAX_ELEM], g[SP_LIE_MAX_ELEM], g_inv[SP_LIE_MAX_ELEM];
        double xs[SP_LIE_MAX_DIM], ns[SP_LIE_MAX_DIM], ps[SP_LIE_MAX_DIM];
        /* spatial ξ, ν, p of the old state, corrected (see frame_change) */
        G->inverse(G, S[j].g, g_inv);
        G->Ad(G, S[j].g, S[j].xi, xs);
        G->Ad_star(G, g_inv, S[j].nu, ns);
        G->Ad_star(G, g_inv, S[j].p, ps);
        for (int k = 0; k < n; ++k) {
            v[k] = alpha * d[k];
            xs[k] += alpha * d[n + k];
            ns[k] += alpha * d[2 * n + k];
            ps[k] += alpha * d[3 * n + k];
        }
        G->exp(G, v, R);
        G->compose(G, S[j].g, R, g);
        S1[j] = S[j];
        sp_vec_copy(G->elem_size, g, S1[j].g);
        G->inverse(G, g, g_inv);
        G->Ad(G, g_inv, xs, S1[j].xi);
        G->Ad_star(G, g, ns, S1[j].nu);
        G->Ad_star(G, g, ps, S1[j].p);
    }
    size_t nl = ms->cubic.n_targets * (size_t)ms->nc;
    if (lam1 != lam) memcpy(lam1, lam, nl * sizeof *lam);
    for (size_t i = 0; i < ms->cubic.n_targets; ++i)
        if (ms->off_lam[i] >= 0)
            for (int a = 0; a < ms->nc; ++a) lam1[i * (size_t)ms->nc + (size_t)a] += alpha * dx[ms->off_lam[i] + a];
}

void sp_ms_move(sp_ms *ms, const double *dx, double alpha) { retract(ms, ms->S, ms->lam, dx, alpha, ms->S, ms->lam); }

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
    if (st == SP_OK) st = sweep(ms, ms->S, ms->E, ms->Jb, &ms->running);
    if (st != SP_OK) return st;
    const double t0 = sp_clock_seconds(); /* Newton's banded system from the block Jacobians */
    st = residual(ms, ms->S, ms->lam, ms->E, ms->Jb, F, 1, scaled);
    ms->stats.algebra_seconds += sp_clock_seconds() - t0;
    return st;
}

sp_status sp_ms_residual(sp_ms *ms, double *F)
{
    double run, scaled;
    sp_status st = sweep(ms, ms->S, ms->E, NULL, &run);
    return st != SP_OK ? st : residual(ms, ms->S, ms->lam, ms->E, NULL, F, 0, &scaled);
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
    retract(ms, ms->S, ms->lam, dx, 1.0, ms->S_trial, ms->lam_trial);
    sp_status ts = sweep(ms, ms->S_trial, ms->E_trial, NULL, &ms->running_trial);
    if (ts == SP_OK) ts = residual(ms, ms->S_trial, ms->lam_trial, ms->E_trial, NULL, F, 0, &res_trial);
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
        st = sweep(ms, ms->S, ms->E, NULL, &ms->running);
    }
    if (st == SP_OK) st = residual(ms, ms->S, ms->lam, ms->E, NULL, ms->F, 0, &res);
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
                retract(ms, ms->S, ms->lam, ms->dx, alpha, ms->S_trial, ms->lam_trial);
                sp_status ts = sweep(ms, ms->S_trial, ms->E_trial, NULL, &ms->running_trial);
                if (ts == SP_OK)
                    ts = residual(ms, ms->S_trial, ms->lam_trial, ms->E_trial, NULL, ms->dxb, 0, &res_trial);
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
            st = residual(ms, ms->S, ms->lam, ms->E, ms->Jb, ms->F, 1, &r0);
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
static int recorded(const sp_ms *ms, int k, int record_every)
{
    return k % record_every == 0 || k == ms->N || ms->grid.target_at[k] >= 0;
}

/* What the pieces of a report share: per block its first row and the block whose start
 * state sets the momentum map it is compared with (the last one starting after a kick). */
typedef struct report_job {
    sp_ms *ms;
    int record_every;
    const int *first_row, *map_block;
    double *drift; /* per block */
    sp_ms_report *out;
} report_job;

static sp_status report_piece(void *ctx, int begin, int end, int worker)
{
    const report_job *job = ctx;
    sp_ms *ms = job->ms;
    const sp_group *G = ms->G;
    const int n = ms->n;
    for (int j = begin; j < end; ++j) {
        double M0[SP_LIE_MAX_DIM], Mk[SP_LIE_MAX_DIM], drift = 0.0;
        sp_hohp_momentum_map(G, &ms->S[job->map_block[j]], M0);
        sp_hohp_state z = ms->S[j];
        int row = job->first_row[j];
        const int k_end = j + 1 < ms->M ? ms->kb[j + 1] - 1 : ms->N; /* the next block records its first node */
        for (int k = ms->kb[j]; k <= k_end; ++k) {
            if (k > ms->kb[j]) {
                double c;
                sp_status st = step(ms, worker, ms->grid.h[k - 1], &z, &c, NULL);
                if (st != SP_OK) return st;
            }
            sp_hohp_momentum_map(G, &z, Mk);
            drift = fmax(drift, sp_vec_dist(n, Mk, M0) / fmax(sp_vec_norm(n, M0), 1e-300));
            if (recorded(ms, k, job->record_every)) {
                job->out->states[row] = z;
                job->out->t[row++] = ms->grid.t[k];
            }
        }
        job->drift[j] = drift;
    }
    return SP_OK;
}

sp_status sp_ms_report_build(sp_ms *ms, int record_every, sp_ms_report *out)
{
    const sp_group *G = ms->G;
    const int n = ms->n, N = ms->N, M = ms->M;
    const size_t m = ms->cubic.n_targets;
    memset(out, 0, sizeof *out);
    if (record_every < 1) record_every = 1;
    /* rows: every record_every-th node, every keyframe and the last node */
    int count = 0;
    for (int k = 0; k <= N; ++k) count += recorded(ms, k, record_every);
    out->states = malloc((size_t)count * sizeof *out->states);
    out->t = malloc((size_t)count * sizeof *out->t);
    out->target_g = calloc(m ? m * (size_t)G->elem_size : 1, sizeof *out->target_g);
    out->kicks = calloc(m ? m * (size_t)n : 1, sizeof *out->kicks);
    out->target_step = malloc((m ? m : 1) * sizeof *out->target_step);
    int *first_row = malloc((size_t)M * sizeof *first_row), *map_block = malloc((size_t)M * sizeof *map_block);
    double *drift = malloc((size_t)M * sizeof *drift);
    sp_status st = SP_OK;
    if (!out->states || !out->t || !out->target_g || !out->kicks || !out->target_step || !first_row || !map_block ||
        !drift)
        st = SP_ERR_NOMEM;
    if (st == SP_OK) {
        memcpy(out->target_step, ms->grid.target_step, m * sizeof *out->target_step);
        /* each block from its own start state (the solved states agree at the joins); the
         * momentum map restarts after every kick */
        for (int j = 0, row = 0, k = 0; j < M; ++j) {
            first_row[j] = row;
            map_block[j] = j == 0 || ms->grid.target_at[ms->kb[j]] >= 0 ? j : map_block[j - 1];
            for (const int k_end = j + 1 < M ? ms->kb[j + 1] - 1 : N; k <= k_end; ++k)
                row += recorded(ms, k, record_every);
        }
        report_job job = {.ms = ms, .record_every = record_every, .first_row = first_row, .map_block = map_block,
                          .drift = drift, .out = out};
        st = sp_parallel_run(ms->workers, M, ms->block_cost, report_piece, &job);
    }
    if (st == SP_OK)
        for (int j = 0; j < M; ++j) out->momentum_map_drift = fmax(out->momentum_map_drift, drift[j]);
    free(first_row), free(map_block), free(drift);
    if (st != SP_OK) {
        sp_ms_report_free(out);
        return st;
    }
    for (int j = 0; j < M; ++j) {
        int i = ms->grid.target_at[ms->kb[j + 1]];
        if (i >= 0) {
            double kappa[SP_LIE_MAX_DIM];
            if (ms->exact)
                multiplier_kick(ms, ms->lam, (size_t)i, kappa);
            else
                kick(ms, (size_t)i, ms->E[j].g, kappa, NULL);
            sp_vec_copy(n, kappa, out->kicks + (size_t)i * n);
            sp_vec_copy(G->elem_size, ms->E[j].g, out->target_g + (size_t)i * G->elem_size);
        }
    }
    out->count = count;
    sp_vec_copy(n, ms->S[0].nu, out->initial_momenta);
    sp_vec_copy(n, ms->S[0].p, out->initial_momenta + n);
    sp_vec_copy(n, ms->S[0].xi, out->initial_velocity);
    const sp_hohp_state *e = &ms->E[ms->M - 1];
    sp_vec_copy(n, e->xi, out->final_velocity);
    double kappa[SP_LIE_MAX_DIM] = {0};
    int i_end = ms->grid.target_at[N];
    if (i_end >= 0) {
        if (ms->exact)
            multiplier_kick(ms, ms->lam, (size_t)i_end, kappa);
        else
            kick(ms, (size_t)i_end, e->g, kappa, NULL);
    }
    for (int q = 0; q < n; ++q) out->terminal[q] = e->nu[q] + kappa[q], out->terminal[n + q] = e->p[q];
    return SP_OK;
}

sp_status sp_ms_nodes(sp_ms *ms, sp_hohp_state *nodes)
{
    sweep_job job = {.ms = ms, .S = ms->S, .nodes = nodes};
    sp_status st = sp_parallel_run(ms->workers, ms->M, ms->block_cost, sweep_piece, &job);
    if (st != SP_OK) return st;
    /* the end, after its kick */
    sp_hohp_state e = ms->E[ms->M - 1];
    const int i = ms->grid.target_at[ms->N];
    if (i >= 0) {
        double kappa[SP_LIE_MAX_DIM];
        if (ms->exact)
            multiplier_kick(ms, ms->lam, (size_t)i, kappa);
        else
            kick(ms, (size_t)i, e.g, kappa, NULL);
        for (int q = 0; q < ms->n; ++q) e.nu[q] += kappa[q];
    }
    nodes[ms->N] = e;
    return SP_OK;
}

const sp_plan_grid *sp_ms_grid(const sp_ms *ms, int *steps)
{
    *steps = ms->N;
    return &ms->grid;
}

void sp_ms_report_free(sp_ms_report *r)
{
    if (!r) return;
    free(r->states), free(r->t), free(r->target_g), free(r->kicks), free(r->target_step);
    memset(r, 0, sizeof *r);
}
