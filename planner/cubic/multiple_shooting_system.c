/* The multiple-shooting system (sp_multiple_shooting.h): the sweep of every block with
 * its tangents, the conditions at the keyframes, the residual with its banded Jacobian,
 * and the retraction of a correction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/multiple_shooting_internal.h"

/* Orthonormal basis of the plane ⊥ u (columns a, b). */
void sp_ms_plane_basis(const double *u, double *a, double *b)
{
    double e[3] = {0, 0, 0};
    e[fabs(u[0]) < 0.6 ? 0 : fabs(u[1]) < 0.6 ? 1 : 2] = 1.0;
    sp_cross(u, e, a);
    double na = sp_vec_norm(3, a);
    for (int k = 0; k < 3; ++k) a[k] /= na;
    sp_cross(u, a, b);
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
sp_status sp_ms_step(sp_ms *ms, int worker, double h, sp_hohp_state *z, double *running, double *J)
{
    if (ms->rk[worker]) return sp_hohp_rk_step(ms->rk[worker], h, z, z, running, J ? ms->nz : 0, J);
    sp_hohp *stepper = ms->stepper[worker];
    sp_hohp_interval iv;
    sp_status st = sp_hohp_step(stepper, h, z, z, &iv);
    if (st == SP_OK && J) st = sp_hohp_tangent(stepper, &iv, ms->nz, J);
    *running = 0.5 * h * sp_vec_dot(ms->n, iv.pi, iv.pi);
    return st;
}

sp_status sp_ms_sweep_piece(void *ctx, int begin, int end, int worker)
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
            sp_status st = sp_ms_step(ms, worker, ms->grid.h[k], &z, &c, Jj);
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
sp_status sp_ms_sweep(sp_ms *ms, const sp_hohp_state *S, sp_hohp_state *E, double *J, double *running)
{
    const double t0 = sp_clock_seconds();
    sweep_job job = {.ms = ms, .S = S, .E = E, .J = J};
    sp_status st = sp_parallel_run(ms->workers, ms->M, ms->block_cost, sp_ms_sweep_piece, &job);
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
        sp_ms_plane_basis(tg->y, u[0], u[1]);
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
void sp_ms_kick(const sp_ms *ms, size_t i, const double *g, double *kappa, double *K)
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
void sp_ms_multiplier_kick(const sp_ms *ms, const double *lam, size_t i, double *kappa)
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
sp_status sp_ms_system_residual(sp_ms *ms, const sp_hohp_state *S, const double *lam, const sp_hohp_state *E,
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
            sp_ms_multiplier_kick(ms, lam, (size_t)i, kappa);
        } else if (i >= 0) {
            sp_ms_kick(ms, (size_t)i, e->g, kappa, assemble ? K : NULL);
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
void sp_ms_retract(const sp_ms *ms, const sp_hohp_state *S, const double *lam, const double *dx, double alpha,
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

void sp_ms_move(sp_ms *ms, const double *dx, double alpha) { sp_ms_retract(ms, ms->S, ms->lam, dx, alpha, ms->S, ms->lam); }
