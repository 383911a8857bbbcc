/* RATTLE / variational Störmer–Verlet on a Lie group, left trivialisation
 * (sp_lie_rattle.h). The implicit equation (dτ⁻¹_{hξ})ᵀ𝕁(ξ) = r is multiplied by dτ_{hξ}ᵀ:
 *
 *     F(ξ) = 𝕁(ξ) − dτ_{hξ}ᵀ r = 0,   ∂F/∂ξ = D𝕁(ξ) − h D_τ(hξ, r),
 *
 * with D_τ(x, v) = ∂ₓ[dτ_xᵀ v] from the group table. Both forms have the same root; this
 * one needs no derivative of dτ⁻¹. (At the root the Jacobian equals dτ_{hξ}ᵀ K(ξ), K
 * being the Jacobian of the equation's explicit form, e.g. K(ξ) for the Cayley map.) */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_lie_rattle.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

#define D_MAX SP_LIE_MAX_DIM

struct sp_lie_rattle {
    const sp_lie_rattle_model *model;
    const sp_retraction *tau;
    int dim, elem;
    sp_newton *newton;
    sp_newton_options opt;
    int iterations;
    double xi[D_MAX]; /* ξ of the last successful step */
    /* the force at the configuration the last step ended on, where the next one starts
     * (a composition's stages would otherwise evaluate it twice) */
    int have_force_at;
    double at[SP_LIE_MAX_ELEM], force_at[D_MAX];
    /* the implicit solve of the current step */
    double h, r[D_MAX];
};

sp_lie_rattle *sp_lie_rattle_alloc(const sp_lie_rattle_model *model, const sp_retraction *retraction)
{
    if (!model || !retraction || !model->group || (!model->inertia_diag && !model->inertia)) return NULL;
    const sp_group *G = model->group;
    if (G->dim < 1 || G->dim > SP_LIE_MAX_DIM || G->elem_size < 1 || G->elem_size > SP_LIE_MAX_ELEM) return NULL;
    if (!model->inertia)
        for (int i = 0; i < G->dim; ++i)
            if (!(model->inertia_diag[i] > 0.0) || !isfinite(model->inertia_diag[i])) return NULL;
    sp_lie_rattle *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->tau = retraction;
    s->dim = G->dim;
    s->elem = G->elem_size;
    const sp_newton_options defaults = sp_newton_options_default();
    sp_lie_rattle_set_options(s, &defaults);
    s->newton = sp_newton_alloc(G->dim);
    if (!s->newton) {
        free(s);
        return NULL;
    }
    return s;
}

void sp_lie_rattle_free(sp_lie_rattle *s)
{
    if (!s) return;
    sp_newton_free(s->newton);
    free(s);
}

/* The Jacobian of F is exact, so the solve may also stop by Newton's measured rate: one
 * evaluation fewer once the updates shrink quadratically. */
void sp_lie_rattle_set_options(sp_lie_rattle *s, const sp_newton_options *opt)
{
    s->opt = *opt;
    s->opt.rate_stop = SP_NEWTON_STOP_BY_QUADRATIC_RATE;
}
int sp_lie_rattle_iterations(const sp_lie_rattle *s) { return s->iterations; }
void sp_lie_rattle_velocity(const sp_lie_rattle *s, double *xi) { sp_vec_copy(s->dim, s->xi, xi); }

/* μ = 𝕁(ξ) and (when dmu is not NULL) D𝕁(ξ). */
static sp_status inertia(const sp_lie_rattle *s, const double *xi, double *mu, double *dmu)
{
    const int d = s->dim;
    const sp_lie_rattle_model *md = s->model;
    if (md->inertia) {
        if (md->inertia(xi, mu, dmu, md->params) != 0) return SP_ERR_CALLBACK;
        if ((mu && !sp_vec_isfinite(d, mu)) || (dmu && !sp_vec_isfinite(d * d, dmu))) return SP_ERR_NONFINITE;
        return SP_OK;
    }
    if (mu)
        for (int i = 0; i < d; ++i) mu[i] = md->inertia_diag[i] * xi[i];
    if (dmu) {
        sp_vec_zero(d * d, dmu);
        for (int i = 0; i < d; ++i) dmu[i * d + i] = md->inertia_diag[i];
    }
    return SP_OK;
}

/* f(g), zero without a potential. */
static sp_status force(const sp_lie_rattle *s, const double *g, double *f)
{
    sp_vec_zero(s->dim, f);
    const sp_lie_rattle_model *md = s->model;
    if (md->potential && md->potential(g, NULL, f, md->params) != 0) return SP_ERR_CALLBACK;
    return sp_vec_isfinite(s->dim, f) ? SP_OK : SP_ERR_NONFINITE;
}

static sp_status residual(sp_lie_rattle *s, double h, const double *r, const double *xi, double *F, double *K)
{
    const int d = s->dim;
    const sp_group *G = s->model->group;
    double x[D_MAX], A[D_MAX * D_MAX], Atr[D_MAX];
    for (int i = 0; i < d; ++i) x[i] = h * xi[i];
    sp_status st = inertia(s, xi, F, K);
    if (st != SP_OK) return st;
    s->tau->dtau(G, x, A);
    sp_mat_tvec(d, d, A, r, Atr);
    for (int i = 0; i < d; ++i) F[i] -= Atr[i];
    if (K) {
        s->tau->dtau_T_deriv(G, x, r, A);
        for (int i = 0; i < d * d; ++i) K[i] -= h * A[i];
    }
    return sp_vec_isfinite(d, F) && (!K || sp_vec_isfinite(d * d, K)) ? SP_OK : SP_ERR_NONFINITE;
}

static sp_status newton_residual(void *ctx, const double *xi, double *F, double *K)
{
    sp_lie_rattle *s = ctx;
    return residual(s, s->h, s->r, xi, F, K);
}

sp_status sp_lie_rattle_residual(sp_lie_rattle *s, double h, const double *r, const double *xi, double *F, double *K)
{
    return residual(s, h, r, xi, F, K);
}

/* The initial guess: ξ = J⁻¹r for a diagonal inertia, else one Newton step of
 * 𝕁(ξ) = r from ξ = 0. */
static sp_status initial_guess(sp_lie_rattle *s, const double *r, double *xi)
{
    const int d = s->dim;
    if (!s->model->inertia) {
        for (int i = 0; i < d; ++i) xi[i] = r[i] / s->model->inertia_diag[i];
        return SP_OK;
    }
    double zero[D_MAX] = {0}, mu[D_MAX], K[D_MAX * D_MAX];
    int piv[D_MAX];
    sp_status st = inertia(s, zero, mu, K);
    if (st != SP_OK) return st;
    for (int i = 0; i < d; ++i) xi[i] = r[i] - mu[i];
    return sp_linsolve(d, K, xi, 1, piv, 0);
}

sp_status sp_lie_rattle_step(sp_lie_rattle *s, double h, double *g, double *mu)
{
    const int d = s->dim, ne = s->elem;
    const sp_group *G = s->model->group;
    double f[D_MAX], xi[D_MAX], x[D_MAX], m[D_MAX], A[D_MAX * D_MAX], g1[SP_LIE_MAX_ELEM], step[SP_LIE_MAX_ELEM],
        mu1[D_MAX];
    s->iterations = 0;
    sp_status st = SP_OK;
    if (s->have_force_at && memcmp(g, s->at, (size_t)ne * sizeof *g) == 0)
        sp_vec_copy(d, s->force_at, f);
    else
        st = force(s, g, f);
    if (st != SP_OK) return st;
    s->h = h;
    for (int i = 0; i < d; ++i) s->r[i] = mu[i] - 0.5 * h * f[i];
    st = initial_guess(s, s->r, xi);
    if (st != SP_OK) return st;
    st = sp_newton_solve(s->newton, newton_residual, s, xi, &s->opt, &s->iterations);
    if (st != SP_OK) return st;

    /* g_{k+1} = g_k τ(hξ) */
    for (int i = 0; i < d; ++i) x[i] = h * xi[i];
    s->tau->tau(G, x, step);
    G->compose(G, g, step, g1);
    /* μ_{k+1} = (dτ⁻¹_{−hξ})ᵀ 𝕁(ξ) − (h/2) f(g_{k+1}) */
    st = inertia(s, xi, m, NULL);
    if (st == SP_OK) st = force(s, g1, f);
    if (st != SP_OK) return st;
    for (int i = 0; i < d; ++i) x[i] = -h * xi[i];
    s->tau->dtau_inv(G, x, A);
    sp_mat_tvec(d, d, A, m, mu1);
    sp_vec_axpy(d, -0.5 * h, f, mu1);
    if (!sp_vec_isfinite(ne, g1) || !sp_vec_isfinite(d, mu1)) return SP_ERR_NONFINITE;
    sp_vec_copy(ne, g1, g);
    sp_vec_copy(d, mu1, mu);
    sp_vec_copy(d, xi, s->xi);
    sp_vec_copy(ne, g1, s->at);
    sp_vec_copy(d, f, s->force_at);
    s->have_force_at = 1;
    return SP_OK;
}

sp_status sp_lie_rattle_energy(sp_lie_rattle *s, const double *g, const double *mu, double *E)
{
    const sp_lie_rattle_model *md = s->model;
    if (md->inertia) return SP_ERR_INVALID;
    double V = 0.0, T = 0.0;
    if (md->potential && md->potential(g, &V, NULL, md->params) != 0) return SP_ERR_CALLBACK;
    for (int i = 0; i < s->dim; ++i) T += mu[i] * mu[i] / md->inertia_diag[i];
    *E = 0.5 * T + V;
    return isfinite(*E) ? SP_OK : SP_ERR_NONFINITE;
}
