/* Lobatto IIIA–IIIB nonholonomic RKMK integrator on Lie groups (sp_nh_lie.h).
 *
 * Everything is written with the right-trivialised maps of sp_lie.h, using
 * d^Lτ_ξ = dτ_{−ξ} (valid because τ(−ξ) = τ(ξ)⁻¹ for exp and Cayley):
 *
 *     V^i  = dτ_{−ξ^i} η_i,          P_i = dτ_{−ξ^i}ᵀ μ_i,
 *     W_i  = dτ_{−ξ^i}ᵀ F_i − D_τ(−ξ^i, μ_i)ᵀ η_i        (D_τ(x, v) = ∂ₓ[dτ_xᵀ v]),
 *     ν    = dτ_{ξ̄}ᵀ σ,   σ = μ_k + h Σ_j b_j Ad*_{τ(ξ^j)⁻¹} F_j,
 *     μ̃_i  = Ad*_{τ(ξ^i)} (μ_k + h Σ_j a_ij Ad*_{τ(ξ^j)⁻¹} F_j).
 *
 * The chart term of W_i: ∂_ξ⟨μ, dτ_{−ξ} η⟩ = ∂_ξ⟨dτ_{−ξ}ᵀ μ, η⟩ = −D_τ(−ξ, μ)ᵀ η.
 *
 * Residual rows: (P_i − ν + h Σ_j (b_j a_ji / b_i) W_j), i = 1..s (dim rows each), then
 * the constraints ⟨α(g^i), 𝕁⁻¹(μ̃_i)⟩, i = 2..s (m rows each). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

#define S_MAX SP_NH_LIE_MAX_STAGES
#define D_MAX SP_LIE_MAX_DIM
#define M_MAX (SP_LIE_MAX_DIM - 1)
#define E_MAX SP_LIE_MAX_ELEM
#define X_MAX (S_MAX * D_MAX + (S_MAX - 1) * M_MAX)

/* The finite-difference Jacobian is computed at the first Newton iterate of a step and
 * refreshed only when the residual did not fall by this factor since the previous
 * iterate (and is not yet at round-off level, JACOBIAN_FLOOR relative to |μ_k|). */
#define JACOBIAN_CONTRACTION 0.1
#define JACOBIAN_FLOOR 1e-12
/* The default opt.newton.stale_updates (read with warm_start only). */
#define STALE_UPDATES 12

/* Everything one evaluation of the stage system computes, kept for the step's output. */
typedef struct stage_values {
    double g[S_MAX][E_MAX];        /* g^i */
    double V[S_MAX][D_MAX];        /* body velocities V^i */
    double mu_tilde[S_MAX][D_MAX]; /* IIIA momenta μ̃_i */
    double Lambda[S_MAX][M_MAX];   /* Λ_i */
    double xi_bar[D_MAX];          /* ξ̄ */
    double residual;               /* max |⟨α(g^i), 𝕁⁻¹(μ̃_i)⟩|, i = 1..s */
} stage_values;

struct sp_nh_lie {
    const sp_nh_lie_model *model;
    const sp_retraction *tau;
    sp_nh_lie_options opt;
    int s, n, m, elem, nx;
    double a[S_MAX][S_MAX], b[S_MAX], c[S_MAX];
    sp_newton *newton;
    /* the step being solved */
    double h, g0[E_MAX], mu0[D_MAX], lam0[M_MAX];
    int calls;
    int simplified;          /* a simplified solve: a Jacobian asked for is one to factor */
    int jacobians;           /* finite-difference Jacobians of the step */
    double last_rnorm;       /* max |r| at the previous Newton iterate */
    double J[X_MAX * X_MAX]; /* the finite-difference Jacobian, kept between iterations */
    stage_values work, last;
    int have_last;
    /* for the predictor: the last step is continued only if it succeeded (have_prev); its
     * size and the state it returned */
    int have_prev;
    double last_h, last_g[E_MAX], last_mu[D_MAX], last_lam[M_MAX];
    sp_nh_lie_step_info info;
};

/* ------------------------------------------------------------- model helpers -- */

static int model_valid(const sp_nh_lie_model *md)
{
    if (!md || !md->group || !md->constraints) return 0;
    const sp_group *G = md->group;
    if (G->dim < 2 || G->dim > SP_LIE_MAX_DIM || G->elem_size < 1 || G->elem_size > SP_LIE_MAX_ELEM) return 0;
    if (md->m < 1 || md->m >= G->dim) return 0;
    if (!md->inertia) {
        if (!md->inertia_diag) return 0;
        for (int i = 0; i < G->dim; ++i)
            if (!(md->inertia_diag[i] > 0.0) || !isfinite(md->inertia_diag[i])) return 0;
    }
    return 1;
}

/* μ = 𝕁(ξ) and (when dmu is not NULL) D𝕁(ξ). */
static sp_status inertia(const sp_nh_lie_model *md, const double *xi, double *mu, double *dmu)
{
    const int n = md->group->dim;
    if (md->inertia) {
        if (md->inertia(xi, mu, dmu, md->params) != 0) return SP_ERR_CALLBACK;
        if ((mu && !sp_vec_isfinite(n, mu)) || (dmu && !sp_vec_isfinite(n * n, dmu))) return SP_ERR_NONFINITE;
        return SP_OK;
    }
    if (mu)
        for (int i = 0; i < n; ++i) mu[i] = md->inertia_diag[i] * xi[i];
    if (dmu) {
        sp_vec_zero(n * n, dmu);
        for (int i = 0; i < n; ++i) dmu[i * n + i] = md->inertia_diag[i];
    }
    return SP_OK;
}

sp_status sp_nh_lie_velocity(const sp_nh_lie_model *md, const double *mu, const double *xi_guess, double *xi)
{
    if (!model_valid(md) || !mu || !xi) return SP_ERR_INVALID;
    const int n = md->group->dim;
    if (!md->inertia) {
        for (int i = 0; i < n; ++i) xi[i] = mu[i] / md->inertia_diag[i];
        return sp_vec_isfinite(n, xi) ? SP_OK : SP_ERR_NONFINITE;
    }
    /* Newton on 𝕁(ξ) = μ: one iteration solves a linear 𝕁; the loop ends when the update
     * is at round-off or stops shrinking there. */
    double x[D_MAX], r[D_MAX], K[D_MAX * D_MAX], previous = INFINITY;
    int piv[D_MAX];
    if (xi_guess)
        sp_vec_copy(n, xi_guess, x);
    else
        sp_vec_zero(n, x);
    for (int it = 0; it < 50; ++it) {
        sp_status st = inertia(md, x, r, K);
        if (st != SP_OK) return st;
        for (int i = 0; i < n; ++i) r[i] -= mu[i];
        st = sp_linsolve(n, K, r, 1, piv, 0);
        if (st != SP_OK) return st;
        for (int i = 0; i < n; ++i) x[i] -= r[i];
        double step = sp_vec_norm(n, r), scale = fmax(1.0, sp_vec_norm(n, x));
        if (step <= 4e-16 * scale || (step >= previous && step <= 1e-12 * scale)) {
            sp_vec_copy(n, x, xi);
            return SP_OK;
        }
        previous = step;
    }
    return SP_ERR_NO_CONVERGENCE;
}

static sp_status potential_force(const sp_nh_lie_model *md, const double *g, double *f)
{
    const int n = md->group->dim;
    sp_vec_zero(n, f);
    if (md->potential && md->potential(g, NULL, f, md->params) != 0) return SP_ERR_CALLBACK;
    return sp_vec_isfinite(n, f) ? SP_OK : SP_ERR_NONFINITE;
}

static sp_status constraint_matrix(const sp_nh_lie_model *md, const double *g, double *alpha, double *dalpha)
{
    const int n = md->group->dim, m = md->m;
    if (md->constraints(g, alpha, dalpha, md->params) != 0) return SP_ERR_CALLBACK;
    if (!sp_vec_isfinite(m * n, alpha) || (dalpha && !sp_vec_isfinite(m * n * n, dalpha))) return SP_ERR_NONFINITE;
    return SP_OK;
}

sp_status sp_nh_lie_constraint(const sp_nh_lie_model *md, const double *g, const double *mu, double *psi)
{
    if (!model_valid(md) || !g || !mu || !psi) return SP_ERR_INVALID;
    double xi[D_MAX], alpha[M_MAX * D_MAX];
    sp_status st = sp_nh_lie_velocity(md, mu, NULL, xi);
    if (st == SP_OK) st = constraint_matrix(md, g, alpha, NULL);
    if (st != SP_OK) return st;
    sp_mat_vec(md->m, md->group->dim, alpha, xi, psi);
    return SP_OK;
}

sp_status sp_nh_lie_constraint_residual(const sp_nh_lie_model *md, const double *g, const double *mu, double *residual)
{
    double psi[M_MAX];
    if (!residual) return SP_ERR_INVALID;
    sp_status st = sp_nh_lie_constraint(md, g, mu, psi);
    if (st != SP_OK) return st;
    double r = 0.0;
    for (int a = 0; a < md->m; ++a) r = fmax(r, fabs(psi[a]));
    *residual = r;
    return SP_OK;
}

sp_status sp_nh_lie_energy(const sp_nh_lie_model *md, const double *g, const double *mu, double *E)
{
    if (!model_valid(md) || !g || !mu || !E) return SP_ERR_INVALID;
    double xi[D_MAX], V = 0.0;
    sp_status st = sp_nh_lie_velocity(md, mu, NULL, xi);
    if (st != SP_OK) return st;
    if (md->potential && md->potential(g, &V, NULL, md->params) != 0) return SP_ERR_CALLBACK;
    *E = 0.5 * sp_vec_dot(md->group->dim, mu, xi) + V;
    return isfinite(*E) ? SP_OK : SP_ERR_NONFINITE;
}

sp_status sp_nh_lie_multiplier(const sp_nh_lie_model *md, const double *g, const double *mu, double *lam)
{
    if (!model_valid(md) || !g || !mu || !lam) return SP_ERR_INVALID;
    const sp_group *G = md->group;
    const int n = G->dim, m = md->m;
    double xi[D_MAX], K[D_MAX * D_MAX], f[D_MAX], adm[D_MAX], alpha[M_MAX * D_MAX], dalpha[M_MAX * D_MAX * D_MAX];
    double rhs[D_MAX * (M_MAX + 1)], S[M_MAX * M_MAX], r[M_MAX];
    int piv[D_MAX];
    sp_status st = sp_nh_lie_velocity(md, mu, NULL, xi);
    if (st == SP_OK) st = inertia(md, xi, NULL, K);
    if (st == SP_OK) st = potential_force(md, g, f);
    if (st == SP_OK) st = constraint_matrix(md, g, alpha, dalpha);
    if (st != SP_OK) return st;
    /* columns of D𝕁⁻¹ [f − ad*_ξ μ, α₁ᵀ, …, α_mᵀ], solved together */
    G->ad_star(G, xi, mu, adm);
    for (int i = 0; i < n; ++i) rhs[i] = f[i] - adm[i];
    for (int a = 0; a < m; ++a) sp_vec_copy(n, alpha + a * n, rhs + (a + 1) * n);
    st = sp_linsolve(n, K, rhs, m + 1, piv, 0);
    if (st != SP_OK) return st;
    for (int a = 0; a < m; ++a) {
        /* r_a = ⟨α_a, D𝕁⁻¹(f − ad*_ξ μ)⟩ − Σ_ik dα_ai[e_k] ξ_k ξ_i */
        double dterm = 0.0;
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < n; ++k) dterm += dalpha[(a * n + i) * n + k] * xi[k] * xi[i];
        r[a] = sp_vec_dot(n, alpha + a * n, rhs) - dterm;
        for (int c = 0; c < m; ++c) S[a * m + c] = sp_vec_dot(n, alpha + a * n, rhs + (c + 1) * n);
    }
    st = sp_linsolve(m, S, r, 1, piv, 0);
    if (st != SP_OK) return st;
    sp_vec_copy(m, r, lam);
    return SP_OK;
}

/* -------------------------------------------------------------------- stepper -- */

sp_nh_lie_options sp_nh_lie_options_default(void)
{
    sp_nh_lie_options o = {.lambda1 = SP_NH_LIE_LAMBDA_CARRY, .newton = sp_newton_options_default()};
    /* With the warm start: a Jacobian by central differences costs 2·unknowns evaluations
     * of the stage system (14 to 30 on SE(2) and SO(3) with one constraint, s = 2 … 4), an
     * update one; kept factors are refreshed once they would need more than STALE_UPDATES
     * further updates (see sp_newton_solve_simplified). */
    o.newton.stale_updates = STALE_UPDATES;
    return o;
}

sp_nh_lie *sp_nh_lie_alloc(const sp_nh_lie_model *model, const sp_retraction *retraction, int stages,
                           const sp_nh_lie_options *opt)
{
    if (!model_valid(model) || !retraction) return NULL;
    if (stages < SP_NH_LIE_MIN_STAGES || stages > SP_NH_LIE_MAX_STAGES) return NULL;
    sp_tableau A;
    if (sp_tableau_get("lobatto_iiia", stages, &A) != SP_OK) return NULL;
    sp_nh_lie *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->tau = retraction;
    s->opt = opt ? *opt : sp_nh_lie_options_default();
    s->s = stages;
    s->n = model->group->dim;
    s->m = model->m;
    s->elem = model->group->elem_size;
    s->nx = stages * s->n + (stages - 1) * s->m;
    for (int i = 0; i < stages; ++i) {
        s->b[i] = A.b[i], s->c[i] = A.c[i];
        for (int j = 0; j < stages; ++j) s->a[i][j] = A.A[i][j];
    }
    s->newton = sp_newton_alloc(s->nx);
    if (!s->newton) {
        free(s);
        return NULL;
    }
    return s;
}

void sp_nh_lie_free(sp_nh_lie *s)
{
    if (!s) return;
    sp_newton_free(s->newton);
    free(s);
}

int sp_nh_lie_stages(const sp_nh_lie *s) { return s->s; }
int sp_nh_lie_order(const sp_nh_lie *s) { return 2 * s->s - 2; }
int sp_nh_lie_unknowns(const sp_nh_lie *s) { return s->nx; }
sp_nh_lie_options sp_nh_lie_get_options(const sp_nh_lie *s) { return s->opt; }
void sp_nh_lie_set_options(sp_nh_lie *s, const sp_nh_lie_options *opt) { s->opt = *opt; }
sp_nh_lie_step_info sp_nh_lie_last_step(const sp_nh_lie *s) { return s->info; }
void sp_nh_lie_reset(sp_nh_lie *s) { s->have_prev = 0; }

/* The stage system at x for the step (h, g0, mu0, lam0): fills r (when not NULL) and the
 * stage values v. */
static sp_status stage_system(const sp_nh_lie *s, double h, const double *g0, const double *mu0, const double *lam0,
                              const double *x, double *r, stage_values *v)
{
    const sp_nh_lie_model *md = s->model;
    const sp_group *G = md->group;
    const sp_retraction *T = s->tau;
    const int ns = s->s, n = s->n, m = s->m;
    if (ns < SP_NH_LIE_MIN_STAGES || ns > S_MAX) return SP_ERR_INVALID; /* (alloc guarantees it) */
    const double *eta = x, *lam_unknown = x + ns * n;
    double xi[S_MAX][D_MAX], P[S_MAX][D_MAX], W[S_MAX][D_MAX], AdF[S_MAX][D_MAX], alpha[S_MAX][M_MAX * D_MAX];
    double E[S_MAX][E_MAX];
    sp_status st;

    for (int i = 0; i < ns; ++i) {
        double mxi[D_MAX], Dm[D_MAX * D_MAX], mu_i[D_MAX], f[D_MAX], F[D_MAX], t[D_MAX], Einv[E_MAX];
        for (int c = 0; c < n; ++c) {
            double acc = 0.0;
            for (int j = 0; j < ns; ++j) acc += s->a[i][j] * eta[j * n + c];
            xi[i][c] = h * acc;
            mxi[c] = -xi[i][c];
        }
        T->tau(G, xi[i], E[i]);
        G->compose(G, g0, E[i], v->g[i]);
        /* V^i = dτ_{−ξ^i} η_i, μ_i = 𝕁(V^i), P_i = dτ_{−ξ^i}ᵀ μ_i */
        T->dtau(G, mxi, Dm);
        sp_mat_vec(n, n, Dm, eta + i * n, v->V[i]);
        if ((st = inertia(md, v->V[i], mu_i, NULL)) != SP_OK) return st;
        sp_mat_tvec(n, n, Dm, mu_i, P[i]);
        /* F_i = −f(g^i) + α(g^i)ᵀ Λ_i */
        if ((st = potential_force(md, v->g[i], f)) != SP_OK) return st;
        if ((st = constraint_matrix(md, v->g[i], alpha[i], NULL)) != SP_OK) return st;
        const double *Li = i == 0 ? lam0 : lam_unknown + (i - 1) * m;
        sp_vec_copy(m, Li, v->Lambda[i]);
        for (int c = 0; c < n; ++c) F[c] = -f[c];
        for (int a = 0; a < m; ++a) sp_vec_axpy(n, Li[a], alpha[i] + a * n, F);
        /* W_i = dτ_{−ξ^i}ᵀ F_i − D_τ(−ξ^i, μ_i)ᵀ η_i */
        sp_mat_tvec(n, n, Dm, F, W[i]);
        T->dtau_T_deriv(G, mxi, mu_i, Dm);
        sp_mat_tvec(n, n, Dm, eta + i * n, t);
        for (int c = 0; c < n; ++c) W[i][c] -= t[c];
        /* Ad*_{τ(ξ^i)⁻¹} F_i */
        G->inverse(G, E[i], Einv);
        G->Ad_star(G, Einv, F, AdF[i]);
    }
    sp_vec_copy(n, xi[ns - 1], v->xi_bar);

    /* ν = dτ_{ξ̄}ᵀ σ, σ = μ_k + h Σ b_j Ad*F_j */
    double sigma[D_MAX], nu[D_MAX], Dbar[D_MAX * D_MAX];
    sp_vec_copy(n, mu0, sigma);
    for (int j = 0; j < ns; ++j) sp_vec_axpy(n, h * s->b[j], AdF[j], sigma);
    T->dtau(G, v->xi_bar, Dbar);
    sp_mat_tvec(n, n, Dbar, sigma, nu);

    if (r)
        for (int i = 0; i < ns; ++i) {
            double *ri = r + i * n;
            for (int c = 0; c < n; ++c) ri[c] = P[i][c] - nu[c];
            for (int j = 0; j < ns; ++j) {
                double w = h * s->b[j] * s->a[j][i] / s->b[i];
                if (w != 0.0) sp_vec_axpy(n, w, W[j], ri);
            }
        }

    /* IIIA momenta μ̃_i = Ad*_{τ(ξ^i)} (μ_k + h Σ_j a_ij Ad*F_j) and their constraints */
    v->residual = 0.0;
    for (int i = 0; i < ns; ++i) {
        double rho[D_MAX], Vt[D_MAX], psi[M_MAX];
        sp_vec_copy(n, mu0, rho);
        for (int j = 0; j < ns; ++j)
            if (s->a[i][j] != 0.0) sp_vec_axpy(n, h * s->a[i][j], AdF[j], rho);
        G->Ad_star(G, E[i], rho, v->mu_tilde[i]);
        if ((st = sp_nh_lie_velocity(md, v->mu_tilde[i], v->V[i], Vt)) != SP_OK) return st;
        sp_mat_vec(m, n, alpha[i], Vt, psi);
        for (int a = 0; a < m; ++a) v->residual = fmax(v->residual, fabs(psi[a]));
        if (r && i > 0) sp_vec_copy(m, psi, r + ns * n + (i - 1) * m);
    }
    if (r && !sp_vec_isfinite(s->nx, r)) return SP_ERR_NONFINITE;
    return SP_OK;
}

/* The Newton residual; the Jacobian is a central finite difference, see
 * JACOBIAN_CONTRACTION for when it is recomputed. */
static sp_status newton_residual(void *ctx, const double *x, double *r, double *J)
{
    sp_nh_lie *s = ctx;
    const int N = s->nx;
    sp_status st = stage_system(s, s->h, s->g0, s->mu0, s->lam0, x, r, &s->work);
    if (st != SP_OK || !J) return st;
    double rnorm = 0.0;
    for (int i = 0; i < N; ++i) rnorm = fmax(rnorm, fabs(r[i]));
    const double floor = JACOBIAN_FLOOR * fmax(1.0, sp_vec_norm(s->n, s->mu0));
    const int refresh =
        s->simplified || s->calls == 0 || (rnorm > JACOBIAN_CONTRACTION * s->last_rnorm && rnorm > floor);
    s->calls++;
    s->last_rnorm = rnorm;
    if (refresh) {
        s->jacobians++;
        double xp[X_MAX], rp[X_MAX], rm[X_MAX];
        stage_values scratch;
        sp_vec_copy(N, x, xp);
        for (int j = 0; j < N; ++j) {
            const double d = 1e-7 * fmax(1.0, fabs(x[j]));
            xp[j] = x[j] + d;
            st = stage_system(s, s->h, s->g0, s->mu0, s->lam0, xp, rp, &scratch);
            if (st == SP_OK) {
                xp[j] = x[j] - d;
                st = stage_system(s, s->h, s->g0, s->mu0, s->lam0, xp, rm, &scratch);
            }
            if (st != SP_OK) return st;
            xp[j] = x[j];
            for (int i = 0; i < N; ++i) s->J[i * N + j] = (rp[i] - rm[i]) / (2.0 * d);
        }
    }
    memcpy(J, s->J, (size_t)(N * N) * sizeof *J);
    return SP_OK;
}

sp_status sp_nh_lie_stage_system(sp_nh_lie *s, double h, const double *g, const double *mu, const double *lam,
                                 const double *x, double *r)
{
    if (!s || !g || !mu || !lam || !x || !r || !isfinite(h)) return SP_ERR_INVALID;
    return stage_system(s, h, g, mu, lam, x, r, &s->work);
}

/* The plain start: η_i = 𝕁⁻¹(μ_k), Λ_i = Λ_1. */
static sp_status plain_start(const sp_nh_lie *s, double *x)
{
    const int ns = s->s, n = s->n, m = s->m;
    double xi0[D_MAX];
    sp_status st = sp_nh_lie_velocity(s->model, s->mu0, NULL, xi0);
    if (st != SP_OK) return st;
    for (int i = 0; i < ns; ++i) sp_vec_copy(n, xi0, x + i * n);
    for (int i = 1; i < ns; ++i) sp_vec_copy(m, s->lam0, x + ns * n + (i - 1) * m);
    return SP_OK;
}

/* Fixed-point sweeps of η_i = (dτ_{−ξ^i})⁻¹ V^i, ξ^i = h Σ_j a_ij η_j, in predict: each gains
 * a factor O(h|η|) on the chart velocities. */
#define CHART_SWEEPS 3

/* The unknowns of a step of size h that continues the last one, as sp_nonholonomic.h's
 * predictor does on vector spaces (Hairer, Lubich & Wanner, Geometric Numerical
 * Integration, 2nd ed., 2006, Sect. VIII.6.1): the polynomials through the last step's
 * stage values (nodes c_k in units of its step), evaluated at the new stage times
 * 1 + (h/h_last) c_j. What is extrapolated must not depend on the chart, which is anchored
 * at the start of each step: the body velocities V^j and the multipliers Λ_j (as values).
 * The chart velocities then follow from V^j = dτ_{−ξ^j} η_j, ξ^j = h Σ_i a_ji η_i, by a few
 * fixed-point sweeps from η = V (the plain start is off by O(h) in η; this guess by
 * O(h^s) from the extrapolation and O((h|η|)^CHART_SWEEPS) from the sweeps). */
static void predict(const sp_nh_lie *s, double h, double *x)
{
    const sp_group *G = s->model->group;
    const int ns = s->s, n = s->n, m = s->m;
    double V[S_MAX][D_MAX] = {{0}};
    double *eta = x, *Lam = x + ns * n;
    for (int j = 0; j < ns; ++j) {
        double w[S_MAX];
        sp_lagrange_weights(ns, s->c, 1.0 + h / s->last_h * s->c[j], w);
        if (j > 0) sp_vec_zero(m, Lam + (j - 1) * m);
        for (int k = 0; k < ns; ++k) {
            sp_vec_axpy(n, w[k], s->last.V[k], V[j]);
            if (j > 0) sp_vec_axpy(m, w[k], s->last.Lambda[k], Lam + (j - 1) * m);
        }
        sp_vec_copy(n, V[j], eta + j * n);
    }
    for (int sweep = 0; sweep < CHART_SWEEPS; ++sweep) {
        double next[S_MAX * D_MAX];
        for (int i = 0; i < ns; ++i) {
            double mxi[D_MAX], Dinv[D_MAX * D_MAX];
            for (int c = 0; c < n; ++c) {
                double acc = 0.0;
                for (int j = 0; j < ns; ++j) acc += s->a[i][j] * eta[j * n + c];
                mxi[c] = -h * acc;
            }
            s->tau->dtau_inv(G, mxi, Dinv);
            sp_mat_vec(n, n, Dinv, V[i], next + i * n);
        }
        sp_vec_copy(ns * n, next, eta);
    }
}

sp_status sp_nh_lie_step(sp_nh_lie *s, double h, double *g, double *mu, double *lam)
{
    if (!s || !g || !mu || !(h != 0.0) || !isfinite(h)) return SP_ERR_INVALID;
    if (s->opt.lambda1 == SP_NH_LIE_LAMBDA_CARRY && !lam) return SP_ERR_INVALID;
    const int ns = s->s, n = s->n, m = s->m;
    const int carry = s->opt.lambda1 == SP_NH_LIE_LAMBDA_CARRY;
    sp_status st;
    /* a step from exactly where the last successful one ended (Λ_1 included when carried)
     * continues it */
    const int continues = s->have_prev && isfinite(h / s->last_h) && sp_vec_equal(s->elem, g, s->last_g) &&
                          sp_vec_equal(n, mu, s->last_mu) && (!carry || sp_vec_equal(m, lam, s->last_lam));
    const int warm = s->opt.newton.warm_start;
    s->have_prev = 0;
    /* a step that does not continue the last one owes nothing to it */
    if (warm && !continues) sp_newton_forget_jacobian(s->newton);
    s->h = h;
    sp_vec_copy(s->elem, g, s->g0);
    sp_vec_copy(n, mu, s->mu0);
    if (!carry) {
        if ((st = sp_nh_lie_multiplier(s->model, g, mu, s->lam0)) != SP_OK) return st;
    } else
        sp_vec_copy(m, lam, s->lam0);

    double x[X_MAX];
    int iterations = 0;
    s->jacobians = 0;
    st = SP_ERR_NO_CONVERGENCE;
    /* The last step continued: from its stages extrapolated, and with warm_start by
     * simplified Newton with the factors kept from the last steps while they contract well
     * enough (sp_newton.h). With two stages the velocities V^1 = V^2 of a step are its
     * midpoint's (the IIIB momenta are constant on it), and extrapolated they lag half a step
     * behind, twice as far as the plain start 𝕁⁻¹(μ_k) (sleigh, h = 0.01: 8e-3 and 4e-3
     * from the solution); nor is a step more than twice the last one extrapolated. */
    const int extrapolate = continues && ns > 2 && fabs(h) <= 2.0 * fabs(s->last_h);
    if (extrapolate || (continues && warm)) {
        if (extrapolate)
            predict(s, h, x);
        else if ((st = plain_start(s, x)) != SP_OK)
            return st;
        s->calls = 0;
        s->simplified = warm;
        st = warm ? sp_newton_solve_simplified(s->newton, newton_residual, s, x, &s->opt.newton, &iterations)
                  : sp_newton_solve(s->newton, newton_residual, s, x, &s->opt.newton, &iterations);
        s->simplified = 0;
    }
    /* the plain start by full Newton: the first step, one after a jump, and one whose
     * start above led nowhere */
    if (st != SP_OK) {
        int it = 0;
        if ((st = plain_start(s, x)) != SP_OK) return st;
        s->calls = 0;
        st = sp_newton_solve(s->newton, newton_residual, s, x, &s->opt.newton, &it);
        iterations += it;
    }
    if (st != SP_OK) return st;
    /* the stage values at the converged x */
    stage_values *v = &s->work;
    if ((st = stage_system(s, h, s->g0, s->mu0, s->lam0, x, NULL, v)) != SP_OK) return st;
    if (!sp_vec_isfinite(s->elem, v->g[ns - 1]) || !sp_vec_isfinite(n, v->mu_tilde[ns - 1]) ||
        !sp_vec_isfinite(m, v->Lambda[ns - 1]))
        return SP_ERR_NONFINITE;
    s->last = *v;
    s->have_last = 1;
    s->info.iterations = iterations;
    s->info.jacobians = s->jacobians;
    s->info.stage_residual = v->residual;
    sp_vec_copy(s->elem, v->g[ns - 1], g);
    sp_vec_copy(n, v->mu_tilde[ns - 1], mu);
    if (lam) sp_vec_copy(m, v->Lambda[ns - 1], lam);
    s->have_prev = 1, s->last_h = h;
    sp_vec_copy(s->elem, g, s->last_g);
    sp_vec_copy(n, mu, s->last_mu);
    sp_vec_copy(m, v->Lambda[ns - 1], s->last_lam);
    return SP_OK;
}

sp_status sp_nh_lie_last_stages(const sp_nh_lie *s, double *g_stages, double *mu_tilde, double *velocity,
                                double *Lambda)
{
    if (!s || !s->have_last) return SP_ERR_INVALID;
    const stage_values *v = &s->last;
    for (int i = 0; i < s->s; ++i) {
        if (g_stages) sp_vec_copy(s->elem, v->g[i], g_stages + i * s->elem);
        if (mu_tilde) sp_vec_copy(s->n, v->mu_tilde[i], mu_tilde + i * s->n);
        if (velocity) sp_vec_copy(s->n, v->V[i], velocity + i * s->n);
        if (Lambda) sp_vec_copy(s->m, v->Lambda[i], Lambda + i * s->m);
    }
    return SP_OK;
}
