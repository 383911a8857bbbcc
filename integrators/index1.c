/* Gauss–Legendre RK on the index-1 DAE (McLachlan, Modin, Verdier & Wilkins, "Symplectic
 * integrators for index one constraints", 2013). Unknowns are laid out as
 * x = (Q_1 … Q_s, P_1 … P_s, Λ_1 … Λ_s).
 *
 * A step that continues the last one starts from the last step's collocation polynomial
 * extrapolated to the new stage times, and solves by simplified Newton with the Jacobian
 * factored at an earlier step (sp_newton.h); see sp_index1_step. */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_index1.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

struct sp_index1 {
    const sp_vakonomic_model *model;
    sp_tableau tab;
    int n, m, s, N; /* N = s(2n + m) unknowns */
    sp_vakonomic_point *stage[SP_TABLEAU_MAX_STAGES];
    sp_newton *newton;
    sp_newton_options opt;
    double *x, *J, *X; /* unknowns; Jacobian; sensitivities N x 2n */
    int *pivots;
    double h, q0[SP_VAK_MAX_N], p0[SP_VAK_MAX_N];
    int iterations, factorizations, have_step;
    /* The last successful step, for the predictor: its stages, its start
     * (q0, p0, λ(q0, p0)), its size and where it ended. */
    int have_prev;
    double *prev_x, prev_z0[2 * SP_VAK_MAX_N + SP_VAK_MAX_M], prev_h;
    double prev_q1[SP_VAK_MAX_N], prev_p1[SP_VAK_MAX_N];
};

sp_index1 *sp_index1_alloc(const sp_vakonomic_model *model, const sp_tableau *tableau)
{
    if (!model || !tableau || tableau->stages < 1 || tableau->stages > SP_TABLEAU_MAX_STAGES) return NULL;
    sp_index1 *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->tab = *tableau;
    s->n = model->n, s->m = model->m, s->s = tableau->stages;
    s->N = s->s * (2 * s->n + s->m);
    s->opt = sp_newton_options_default();
    int ok = 1;
    for (int i = 0; i < s->s; ++i) ok &= (s->stage[i] = sp_vakonomic_point_alloc(model)) != NULL;
    size_t N = (size_t)s->N;
    s->newton = sp_newton_alloc(s->N);
    s->x = malloc(N * sizeof *s->x);
    s->prev_x = malloc(N * sizeof *s->prev_x);
    s->J = malloc(N * N * sizeof *s->J);
    s->X = malloc(N * 2 * (size_t)s->n * sizeof *s->X);
    s->pivots = malloc(N * sizeof *s->pivots);
    if (!ok || !s->newton || !s->x || !s->prev_x || !s->J || !s->X || !s->pivots) {
        sp_index1_free(s);
        return NULL;
    }
    return s;
}

void sp_index1_free(sp_index1 *s)
{
    if (!s) return;
    for (int i = 0; i < SP_TABLEAU_MAX_STAGES; ++i) sp_vakonomic_point_free(s->stage[i]);
    sp_newton_free(s->newton);
    free(s->x);
    free(s->prev_x);
    free(s->J);
    free(s->X);
    free(s->pivots);
    free(s);
}

void sp_index1_set_options(sp_index1 *s, const sp_newton_options *opt) { s->opt = *opt; }
int sp_index1_iterations(const sp_index1 *s) { return s->iterations; }
int sp_index1_factorizations(const sp_index1 *s) { return s->factorizations; }

static double *stage_Q(const sp_index1 *s, double *x, int i) { return x + i * s->n; }
static double *stage_P(const sp_index1 *s, double *x, int i) { return x + (s->s + i) * s->n; }
static double *stage_L(const sp_index1 *s, double *x, int i) { return x + 2 * s->s * s->n + i * s->m; }

/* Evaluates every stage at x (with Jacobian blocks when asked). */
static sp_status eval_stages(sp_index1 *s, const double *x, int derivatives)
{
    for (int i = 0; i < s->s; ++i) {
        double *xx = (double *)x;
        sp_status st = sp_vakonomic_eval(s->model, s->stage[i], stage_Q(s, xx, i), stage_P(s, xx, i),
                                         stage_L(s, xx, i), derivatives);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The Jacobian of the stage equations at the evaluated stages (row-major N x N). */
static void stage_jacobian(const sp_index1 *s, double h, double *J)
{
    const int n = s->n, m = s->m, S = s->s, N = s->N;
    memset(J, 0, (size_t)N * (size_t)N * sizeof *J);
    for (int i = 0; i < S; ++i) {
        const int rQ = i * n, rP = (S + i) * n, rL = 2 * S * n + i * m;
        for (int j = 0; j < S; ++j) {
            const sp_vakonomic_point *pt = s->stage[j];
            const double ha = h * s->tab.A[i][j];
            const int cQ = j * n, cP = (S + j) * n, cL = 2 * S * n + j * m;
            for (int r = 0; r < n; ++r) {
                /* R_Q = Q_i − q0 − h Σ a_ij v_j */
                for (int c = 0; c < n; ++c) {
                    J[(rQ + r) * N + cQ + c] -= ha * pt->Vq[r * n + c];
                    J[(rP + r) * N + cQ + c] += ha * pt->Hqq[r * n + c];
                    J[(rP + r) * N + cP + c] += ha * pt->Hqp[r * n + c];
                }
                J[(rQ + r) * N + cP + r] -= ha * pt->minv[r];
                for (int c = 0; c < m; ++c) {
                    J[(rQ + r) * N + cL + c] -= ha * pt->minv[r] * pt->G[c * n + r];
                    J[(rP + r) * N + cL + c] += ha * pt->Hql[r * m + c];
                }
            }
        }
        const sp_vakonomic_point *pt = s->stage[i];
        for (int r = 0; r < n; ++r) J[(rQ + r) * N + rQ + r] += 1.0, J[(rP + r) * N + rP + r] += 1.0;
        /* R_Λ = H_λ(Q_i, P_i, Λ_i) */
        for (int r = 0; r < m; ++r) {
            for (int c = 0; c < n; ++c) {
                J[(rL + r) * N + rQ + c] = pt->Cq[r * n + c];
                J[(rL + r) * N + rP + c] = pt->G[r * n + c] * pt->minv[c];
            }
            for (int c = 0; c < m; ++c) J[(rL + r) * N + rL + c] = pt->Cl[r * m + c];
        }
    }
}

static sp_status residual(void *ctx, const double *x, double *r, double *J)
{
    sp_index1 *s = ctx;
    const int n = s->n, m = s->m, S = s->s;
    sp_status st = eval_stages(s, x, J != NULL);
    if (st != SP_OK) return st;
    double *xx = (double *)x;
    for (int i = 0; i < S; ++i) {
        double *rQ = r + i * n, *rP = r + (S + i) * n, *rL = r + 2 * S * n + i * m;
        const double *Q = stage_Q(s, xx, i), *P = stage_P(s, xx, i);
        for (int k = 0; k < n; ++k) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) {
                dq += s->tab.A[i][j] * s->stage[j]->v[k];
                dp += s->tab.A[i][j] * s->stage[j]->Hq[k];
            }
            rQ[k] = Q[k] - s->q0[k] - s->h * dq;
            rP[k] = P[k] - s->p0[k] + s->h * dp;
        }
        sp_vec_copy(m, s->stage[i]->Hl, rL);
    }
    if (J) stage_jacobian(s, s->h, J);
    return SP_OK;
}

/* The stages of a step of size h that continues the last one: the polynomial through the
 * last step's start and stages (nodes 0, c_1 … c_s in units of its step), evaluated at
 * 1 + (h/h_last) c_j; for Gauss it is the collocation polynomial, so the prediction is
 * O(h^(s+1)) from the solution (Hairer, Lubich & Wanner, Geometric Numerical Integration,
 * 2006, Sect. VIII.6.1). The multipliers are extrapolated alike from λ(q0, p0) and Λ_i. */
static void predict(sp_index1 *s, double h)
{
    const int n = s->n, m = s->m, S = s->s;
    double t[SP_TABLEAU_MAX_STAGES + 1], w[SP_TABLEAU_MAX_STAGES + 1];
    t[0] = 0.0;
    for (int i = 0; i < S; ++i) t[i + 1] = s->tab.c[i];
    const double *q0 = s->prev_z0, *p0 = s->prev_z0 + n, *l0 = s->prev_z0 + 2 * n;
    for (int j = 0; j < S; ++j) {
        sp_lagrange_weights(S + 1, t, 1.0 + h / s->prev_h * s->tab.c[j], w);
        double *Q = stage_Q(s, s->x, j), *P = stage_P(s, s->x, j), *L = stage_L(s, s->x, j);
        for (int k = 0; k < n; ++k) Q[k] = w[0] * q0[k], P[k] = w[0] * p0[k];
        for (int k = 0; k < m; ++k) L[k] = w[0] * l0[k];
        for (int i = 0; i < S; ++i) {
            const double *Qi = stage_Q(s, s->prev_x, i), *Pi = stage_P(s, s->prev_x, i), *Li = stage_L(s, s->prev_x, i);
            for (int k = 0; k < n; ++k) Q[k] += w[i + 1] * Qi[k], P[k] += w[i + 1] * Pi[k];
            for (int k = 0; k < m; ++k) L[k] += w[i + 1] * Li[k];
        }
    }
}

static int same_vec(int n, const double *a, const double *b)
{
    for (int i = 0; i < n; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

sp_status sp_index1_step(sp_index1 *s, double h, const double *q0, const double *p0, double *q1, double *p1,
                         double *lam1)
{
    const int n = s->n, m = s->m, S = s->s;
    /* a step that fails before Newton reports 0; a failed step is not continued */
    s->have_step = 0, s->iterations = 0, s->factorizations = 0;
    const int continues = s->have_prev && s->opt.warm_start && isfinite(h / s->prev_h) &&
                          same_vec(n, q0, s->prev_q1) && same_vec(n, p0, s->prev_p1);
    s->have_prev = 0;
    /* a step that does not continue the last one owes nothing to it: its result depends on
     * its own data only */
    if (!continues) sp_newton_forget_jacobian(s->newton);
    s->h = h;
    sp_vec_copy(n, q0, s->q0);
    sp_vec_copy(n, p0, s->p0);
    /* Start from the prediction, or else every stage at (q0, p0, λ(q0, p0)). */
    double lam0[SP_VAK_MAX_M] = {0};
    sp_status st = sp_vakonomic_multiplier(s->model, s->stage[0], q0, p0, lam0);
    if (st != SP_OK) return st;
    if (continues) {
        predict(s, h);
        st = sp_newton_solve_simplified(s->newton, residual, s, s->x, &s->opt, &s->iterations);
        s->factorizations = sp_newton_factorizations(s->newton);
    }
    if (!continues || st != SP_OK) { /* the plain start; also when a prediction led nowhere */
        int it = 0;
        for (int i = 0; i < S; ++i) {
            sp_vec_copy(n, q0, stage_Q(s, s->x, i));
            sp_vec_copy(n, p0, stage_P(s, s->x, i));
            sp_vec_copy(m, lam0, stage_L(s, s->x, i));
        }
        st = s->opt.warm_start ? sp_newton_solve_simplified(s->newton, residual, s, s->x, &s->opt, &it)
                               : sp_newton_solve(s->newton, residual, s, s->x, &s->opt, &it);
        s->iterations += it;
        s->factorizations += sp_newton_factorizations(s->newton);
    }
    if (st == SP_OK) st = eval_stages(s, s->x, 0);
    if (st != SP_OK) return st;
    double q[SP_VAK_MAX_N], p[SP_VAK_MAX_N];
    for (int k = 0; k < n; ++k) {
        double dq = 0.0, dp = 0.0;
        for (int j = 0; j < S; ++j) {
            dq += s->tab.b[j] * s->stage[j]->v[k];
            dp += s->tab.b[j] * s->stage[j]->Hq[k];
        }
        q[k] = q0[k] + h * dq;
        p[k] = p0[k] - h * dp;
    }
    if (!sp_vec_isfinite(n, q) || !sp_vec_isfinite(n, p)) return SP_ERR_NONFINITE;
    if (lam1) {
        st = sp_vakonomic_multiplier(s->model, s->stage[0], q, p, lam1);
        if (st != SP_OK) return st;
    }
    /* what the next step needs to continue this one */
    sp_vec_copy(s->N, s->x, s->prev_x);
    sp_vec_copy(n, q0, s->prev_z0), sp_vec_copy(n, p0, s->prev_z0 + n), sp_vec_copy(m, lam0, s->prev_z0 + 2 * n);
    sp_vec_copy(n, q, s->prev_q1), sp_vec_copy(n, p, s->prev_p1);
    s->prev_h = h;
    s->have_prev = 1;
    sp_vec_copy(n, q, q1);
    sp_vec_copy(n, p, p1);
    s->have_step = 1;
    return SP_OK;
}

sp_status sp_index1_step_jacobian(sp_index1 *s, double *Phi)
{
    if (!s->have_step) return SP_ERR_INVALID;
    const int n = s->n, m = s->m, S = s->s, N = s->N, n2 = 2 * n;
    sp_status st = eval_stages(s, s->x, 1);
    if (st != SP_OK) return st;
    stage_jacobian(s, s->h, s->J);
    /* ∂R/∂(q0, p0) = −[I 0; 0 I; 0 0], so dx/dz0 solves J X = [I 0; 0 I; 0 0]: one LU
     * and 2n right-hand sides; column c of X is stored at X + c N. */
    memset(s->X, 0, (size_t)N * (size_t)n2 * sizeof *s->X);
    for (int c = 0; c < n2; ++c)
        for (int i = 0; i < S; ++i) s->X[(size_t)c * N + (c < n ? i * n : (S + i) * n) + c % n] = 1.0;
    st = sp_linsolve(N, s->J, s->X, n2, s->pivots, 0);
    if (st != SP_OK) return st;
    /* q1 = q0 + h Σ b_j v_j, p1 = p0 − h Σ b_j H_q,j: chain rule through the stages */
    const double h = s->h;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n2; ++c) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) {
                const sp_vakonomic_point *pt = s->stage[j];
                const double *X = s->X + (size_t)c * N;
                const double *XQ = X + j * n, *XP = X + (S + j) * n, *XL = X + 2 * S * n + j * m;
                double vq = pt->minv[r] * XP[r], hq = 0.0;
                for (int k = 0; k < n; ++k) {
                    vq += pt->Vq[r * n + k] * XQ[k];
                    hq += pt->Hqq[r * n + k] * XQ[k] + pt->Hqp[r * n + k] * XP[k];
                }
                for (int k = 0; k < m; ++k) {
                    vq += pt->minv[r] * pt->G[k * n + r] * XL[k];
                    hq += pt->Hql[r * m + k] * XL[k];
                }
                dq += s->tab.b[j] * vq;
                dp += s->tab.b[j] * hq;
            }
            Phi[r * n2 + c] = (r == c ? 1.0 : 0.0) + h * dq;
            Phi[(n + r) * n2 + c] = (n + r == c ? 1.0 : 0.0) - h * dp;
        }
    return SP_OK;
}
