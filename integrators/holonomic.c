/* Constrained symplectic Euler A/B, RATTLE, SHAKE and compositions (sp_holonomic.h).
 * Every method rests on one solve: given q0, a trial momentum p̃ and G0 = G(q0), find Λ
 * with g(q0 + h M⁻¹(p̃ − G0ᵀΛ)) = 0. Newton solves for the position correction x = hΛ,
 * g(q0 + h M⁻¹p̃ − M⁻¹G0ᵀx) = 0 with Jacobian −G(q1) M⁻¹ G0ᵀ: x is resolved to round-off
 * relative to q whatever h, whereas Λ itself is only determined to ε/h, which no fixed
 * tolerance on Λ meets for small steps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_holonomic.h"
#include "integrators/sp_hol_mass.h"
#include "integrators/sp_hol_lobatto.h"
#include "lie/sp_registry.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

/* Composition coefficients: triple jump γ = (a, 1 − 2a, a), a = 1/(2 − 2^{1/3});
 * Suzuki γ = (a, a, 1 − 4a, a, a), a = 1/(4 − 4^{1/3}); order 6: the triple jump with
 * b = 1/(2 − 2^{1/5}) applied to the order-4 triple jump. */
static const double one[1] = {1.0};
static const double tj4[3] = {1.3512071919596578, -1.7024143839193155, 1.3512071919596578};
static const double suzuki5[5] = {0.4144907717943757, 0.4144907717943757, -0.6579630871775028, 0.4144907717943757,
                                  0.4144907717943757};
static const double tj6[9] = {1.5872249277222432,  -1.9997780973551231, 1.5872249277222432,
                              -1.8232426634848289, 2.2971418107909307,  -1.8232426634848289,
                              1.5872249277222432,  -1.9997780973551231, 1.5872249277222432};

/* Kahan & Li, "Composition constants for raising the orders of unconventional schemes
 * for ordinary differential equations", Math. Comp. 66 (1997) 1089-1099: the symmetric
 * compositions s17odr8a (17 stages, order 8) and s35odr10a (35 stages, order 10), with the
 * digits Hairer, Lubich & Wanner reprint (Geometric Numerical Integration, 2006, V.3.2). */
static const double kahan_li8[17] = {
    0.13020248308889008087881763, 0.56116298177510838456196441, -0.38947496264484728640807860,
    0.15884190655515560089621075, -0.39590389413323757733623154, 0.18453964097831570709183254,
    0.25837438768632204729397911, 0.29501172360931029887096624, -0.60550853383003451169892108,
    0.29501172360931029887096624, 0.25837438768632204729397911, 0.18453964097831570709183254,
    -0.39590389413323757733623154, 0.15884190655515560089621075, -0.38947496264484728640807860,
    0.56116298177510838456196441, 0.13020248308889008087881763,
};
static const double kahan_li10[35] = {
    0.07879572252168641926390768, 0.31309610341510852776481247, 0.02791838323507806610952027,
    -0.22959284159390709415121340, 0.13096206107716486317465686, -0.26973340565451071434460973,
    0.07497334315589143566613711, 0.11199342399981020488957508, 0.36613344954622675119314812,
    -0.39910563013603589787862981, 0.10308739852747107731580277, 0.41143087395589023782070412,
    -0.00486636058313526176219566, -0.39203335370863990644808194, 0.05194250296244964703718290,
    0.05066509075992449633587434, 0.04967437063972987905456880, 0.04931773575959453791768001,
    0.04967437063972987905456880, 0.05066509075992449633587434, 0.05194250296244964703718290,
    -0.39203335370863990644808194, -0.00486636058313526176219566, 0.41143087395589023782070412,
    0.10308739852747107731580277, -0.39910563013603589787862981, 0.36613344954622675119314812,
    0.11199342399981020488957508, 0.07497334315589143566613711, -0.26973340565451071434460973,
    0.13096206107716486317465686, -0.22959284159390709415121340, 0.02791838323507806610952027,
    0.31309610341510852776481247, 0.07879572252168641926390768,
};

static const sp_holonomic_method methods[] = {
    {"se_a", SP_HOL_SE_A, 1, 1, one},          {"se_b", SP_HOL_SE_B, 1, 1, one},
    {"se_ab", SP_HOL_SE_AB, 2, 1, one},        {"rattle", SP_HOL_RATTLE, 2, 1, one},
    {"shake", SP_HOL_SHAKE, 2, 1, one},        {"rattle_tj4", SP_HOL_RATTLE, 4, 3, tj4},
    {"rattle_suzuki5", SP_HOL_RATTLE, 4, 5, suzuki5}, {"rattle_tj6", SP_HOL_RATTLE, 6, 9, tj6},
    {"rattle_kl8", SP_HOL_RATTLE, 8, 17, kahan_li8},   {"rattle_kl10", SP_HOL_RATTLE, 10, 35, kahan_li10},
    {"lobatto3", SP_HOL_LOBATTO, 4, 1, one},          {"lobatto4", SP_HOL_LOBATTO, 6, 1, one},
    {"lobatto5", SP_HOL_LOBATTO, 8, 1, one},
};

SP_REGISTRY_OF_TABLES(sp_holonomic_method, methods, sp_holonomic_method_at, sp_holonomic_method_by_name)

struct sp_holonomic {
    const sp_holonomic_model *model;
    const sp_holonomic_method *method;
    sp_hol_mass mass;
    sp_newton_options opt;
    int iterations;
    /* the predictor: the last solve's x = hΛ and its h (x scales like h² along a motion) */
    int have_last;
    double h_last, x_last[SP_HOL_MAX_M];
    /* G and ∇V at the position the last substep ended on, where the next one starts: a
     * composition's substeps, and consecutive steps, would otherwise evaluate them twice.
     * Within a step they belong to the current position when have_* is set; between steps,
     * to the position `at` the last step ended on. */
    int have_G_at, have_grad_at;
    double at[SP_HOL_MAX_N], G_at[SP_HOL_MAX_M * SP_HOL_MAX_N], grad_at[SP_HOL_MAX_N];
    /* SHAKE: the previous position, when there is one */
    int have_previous;
    double q_previous[SP_HOL_MAX_N];
    sp_hol_lobatto *lobatto; /* the Lobatto IIIA–IIIB stage solver, for those methods */
};

sp_holonomic *sp_holonomic_alloc(const sp_holonomic_model *model, const sp_holonomic_method *method)
{
    if (!model || !method || model->n < 1 || model->n > SP_HOL_MAX_N || model->m < 1 || model->m > SP_HOL_MAX_M ||
        !model->constraints)
        return NULL;
    sp_holonomic *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (!sp_hol_mass_init(&s->mass, model)) {
        free(s);
        return NULL;
    }
    s->model = model;
    s->method = method;
    const sp_newton_options defaults = sp_newton_options_default();
    sp_holonomic_set_options(s, &defaults);
    if (method->base == SP_HOL_LOBATTO && !(s->lobatto = sp_hol_lobatto_alloc(model, method->order / 2 + 1))) {
        sp_holonomic_free(s);
        return NULL;
    }
    return s;
}

void sp_holonomic_free(sp_holonomic *s)
{
    if (!s) return;
    sp_hol_lobatto_free(s->lobatto);
    free(s);
}

/* The multiplier solve is Newton with the exact Jacobian and stops by its measured rate
 * too: from the predicted start it then takes two iterations where the size of the last
 * correction alone would ask for three or four. */
void sp_holonomic_set_options(sp_holonomic *s, const sp_newton_options *opt)
{
    s->opt = *opt;
    s->opt.rate_stop = SP_NEWTON_STOP_BY_QUADRATIC_RATE;
}
void sp_holonomic_reset(sp_holonomic *s)
{
    s->have_previous = s->have_last = s->have_G_at = s->have_grad_at = 0;
    if (s->lobatto) sp_hol_lobatto_reset(s->lobatto);
}
int sp_holonomic_iterations(const sp_holonomic *s) { return s->iterations; }

static sp_status constraints(const sp_holonomic *s, const double *q, double *g, double *G)
{
    if (s->model->constraints(q, g, G, NULL, s->model->params) != 0) return SP_ERR_CALLBACK;
    if ((g && !sp_vec_isfinite(s->model->m, g)) || (G && !sp_vec_isfinite(s->model->m * s->model->n, G)))
        return SP_ERR_NONFINITE;
    return SP_OK;
}

static sp_status gradient(const sp_holonomic *s, const double *q, double *grad)
{
    sp_vec_zero(s->model->n, grad);
    if (s->model->potential && s->model->potential(q, NULL, grad, NULL, s->model->params) != 0)
        return SP_ERR_CALLBACK;
    return sp_vec_isfinite(s->model->n, grad) ? SP_OK : SP_ERR_NONFINITE;
}

/* aᵀM⁻¹b (the diagonal case summed in the order of the formula). */
static double form(const sp_holonomic *s, const double *a, const double *b)
{
    const int n = s->model->n;
    double v = 0.0;
    if (!s->mass.full) {
        for (int i = 0; i < n; ++i) v += a[i] * s->mass.minv[i] * b[i];
        return v;
    }
    for (int i = 0; i < n; ++i) v += a[i] * sp_vec_dot(n, s->mass.Minv + i * n, b);
    return v;
}

/* The momentum M(q1 − q0)/h of a step from q0 to q1. */
static void momentum_of_step(const sp_holonomic *s, const double *q1, const double *q0, double h, double *p)
{
    const int n = s->model->n;
    if (!s->mass.full) {
        for (int i = 0; i < n; ++i) p[i] = (q1[i] - q0[i]) / (h * s->mass.minv[i]);
        return;
    }
    double d[SP_HOL_MAX_N];
    for (int i = 0; i < n; ++i) d[i] = q1[i] - q0[i];
    for (int i = 0; i < n; ++i) p[i] = sp_vec_dot(n, s->mass.M + i * n, d) / h;
}

/* G(q0) at the current position q0: the remembered one, or evaluated into G. */
static sp_status jacobian_at(sp_holonomic *s, const double *q, double *G, const double **at)
{
    *at = s->have_G_at ? s->G_at : G;
    return s->have_G_at ? SP_OK : constraints(s, q, NULL, G);
}

/* ∇V at the current position, likewise. */
static sp_status gradient_at(sp_holonomic *s, const double *q, double *grad, const double **at)
{
    *at = s->have_grad_at ? s->grad_at : grad;
    return s->have_grad_at ? SP_OK : gradient(s, q, grad);
}

/* The constrained drift from q0 with the trial momentum p̃ and G0 = G(q0): q1 = q̃ − Bx on
 * g = 0, with q̃ = q0 + hM⁻¹p̃, B = M⁻¹G0ᵀ (n × m) and x = hΛ, and p_half = p̃ − G0ᵀx/h.
 * Newton on g(q̃ − Bx) = 0 with Jacobian −G(q1)B, in place: the system is m × m (often
 * 1 × 1) and the general solver's bookkeeping would cost more than the model's callbacks.
 * It starts from the last solve's x scaled by (h/h_last)² — Λ is the impulse of the
 * constraint force over the step, ≈ (h/2)λ(t), and λ changes little from one (sub)step to
 * the next, so the start is off by O(h³) instead of O(h²) from zero — and stops by the
 * shared rule of sp_newton.h with Newton's measured quadratic rate (two iterations a
 * substep where the size of the last update alone would ask for three). */
static sp_status constrained_drift(sp_holonomic *s, double h, const double *q0, const double *G0, const double *pt,
                                   double *q1, double *p_half)
{
    const int n = s->model->n, m = s->model->m;
    double qt[SP_HOL_MAX_N], B[SP_HOL_MAX_N * SP_HOL_MAX_M], hpt[SP_HOL_MAX_N], x[SP_HOL_MAX_M] = {0};
    for (int i = 0; i < n; ++i) hpt[i] = h * pt[i];
    if (s->mass.full) {
        for (int i = 0; i < n; ++i) {
            qt[i] = q0[i] + sp_vec_dot(n, s->mass.Minv + i * n, hpt);
            for (int a = 0; a < m; ++a) {
                double c = 0.0;
                for (int k = 0; k < n; ++k) c += s->mass.Minv[i * n + k] * G0[a * n + k];
                B[i * m + a] = c;
            }
        }
    } else {
        for (int i = 0; i < n; ++i) {
            qt[i] = q0[i] + s->mass.minv[i] * hpt[i];
            for (int a = 0; a < m; ++a) B[i * m + a] = s->mass.minv[i] * G0[a * n + i];
        }
    }
    if (s->have_last) {
        const double r = h / s->h_last;
        for (int a = 0; a < m; ++a) x[a] = s->x_last[a] * r * r;
    }
    s->have_last = 0;
    double g[SP_HOL_MAX_M], G1[SP_HOL_MAX_M * SP_HOL_MAX_N], J[SP_HOL_MAX_M * SP_HOL_MAX_M];
    int pivots[SP_HOL_MAX_M];
    double previous = INFINITY;
    for (int it = 1;; ++it) {
        if (it > s->opt.max_iter) return SP_ERR_NO_CONVERGENCE;
        for (int i = 0; i < n; ++i) {
            double c = 0.0;
            for (int a = 0; a < m; ++a) c += B[i * m + a] * x[a];
            q1[i] = qt[i] - c;
        }
        sp_status st = constraints(s, q1, g, G1);
        for (int a = 0; st == SP_OK && a < m; ++a)
            for (int b = 0; b < m; ++b) {
                double c = 0.0;
                for (int i = 0; i < n; ++i) c += G1[a * n + i] * B[i * m + b];
                J[a * m + b] = -c;
            }
        if (st == SP_OK) st = sp_linsolve(m, J, g, 1, pivots, 0);
        if (st != SP_OK) return st;
        for (int a = 0; a < m; ++a) x[a] -= g[a];
        ++s->iterations;
        if (!sp_vec_isfinite(m, x)) return SP_ERR_NONFINITE;
        const double step = sp_vec_norm(m, g);
        if (sp_newton_converged(m, x, step, previous, &s->opt)) break;
        previous = step;
    }
    s->have_last = 1;
    s->h_last = h;
    sp_vec_copy(m, x, s->x_last);
    for (int i = 0; i < n; ++i) {
        double c = 0.0, d = 0.0;
        for (int a = 0; a < m; ++a) c += B[i * m + a] * x[a], d += G0[a * n + i] * x[a];
        q1[i] = qt[i] - c;
        if (p_half) p_half[i] = pt[i] - d / h;
    }
    return SP_OK;
}

/* p ← p − Gᵀν with G M⁻¹(p − Gᵀν) = 0, G = G(q) given. */
static sp_status project_with(const sp_holonomic *s, const double *G, double *p)
{
    const int n = s->model->n, m = s->model->m;
    double A[SP_HOL_MAX_M * SP_HOL_MAX_M], nu[SP_HOL_MAX_M];
    int piv[SP_HOL_MAX_M];
    for (int a = 0; a < m; ++a) {
        nu[a] = form(s, G + a * n, p);
        for (int b = 0; b < m; ++b) A[a * m + b] = form(s, G + a * n, G + b * n);
    }
    sp_status st = sp_linsolve(m, A, nu, 1, piv, 0);
    if (st != SP_OK) return st;
    for (int i = 0; i < n; ++i)
        for (int a = 0; a < m; ++a) p[i] -= G[a * n + i] * nu[a];
    return SP_OK;
}

sp_status sp_holonomic_project(sp_holonomic *s, const double *q, double *p)
{
    double G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    sp_status st = constraints(s, q, NULL, G);
    return st != SP_OK ? st : project_with(s, G, p);
}

/* The base maps with potential kicks of weight `before` at q0 and `after` at
 * q1 (SE-A: 1, 0; SE-B: 0, 1; RATTLE: ½, ½), the projection last. G and ∇V at q1 are
 * remembered for the substep that starts there. */
static sp_status kick_drift_kick(sp_holonomic *s, double h, double before, double after, double *q, double *p)
{
    const int n = s->model->n;
    double grad[SP_HOL_MAX_N], pt[SP_HOL_MAX_N], q1[SP_HOL_MAX_N], p1[SP_HOL_MAX_N], G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    const double *G0, *grad0;
    sp_vec_copy(n, p, pt);
    sp_status st = jacobian_at(s, q, G, &G0);
    if (st == SP_OK && before != 0.0 && (st = gradient_at(s, q, grad, &grad0)) == SP_OK)
        sp_vec_axpy(n, -before * h, grad0, pt);
    if (st == SP_OK) st = constrained_drift(s, h, q, G0, pt, q1, p1);
    /* G0 and ∇V(q0) are used up: what is remembered now belongs to q1 */
    s->have_G_at = s->have_grad_at = 0;
    if (st == SP_OK && after != 0.0 && (st = gradient(s, q1, s->grad_at)) == SP_OK)
        sp_vec_axpy(n, -after * h, s->grad_at, p1);
    if (st == SP_OK) st = constraints(s, q1, NULL, s->G_at);
    if (st == SP_OK) st = project_with(s, s->G_at, p1);
    if (st == SP_OK && (!sp_vec_isfinite(n, q1) || !sp_vec_isfinite(n, p1))) st = SP_ERR_NONFINITE;
    if (st != SP_OK) return st;
    sp_vec_copy(n, q1, q);
    sp_vec_copy(n, p1, p);
    s->have_G_at = 1;
    s->have_grad_at = after != 0.0;
    return SP_OK;
}

/* SHAKE: q_{n+1} = 2q_n − q_{n−1} − h² M⁻¹(∇V(q_n) + G(q_n)ᵀΛ), g(q_{n+1}) = 0, written as
 * the constrained drift from q_n with p̃ = M(q_n − q_{n−1})/h − h∇V(q_n). */
static sp_status shake(sp_holonomic *s, double h, double *q, double *p)
{
    const int n = s->model->n;
    if (!s->have_previous) {
        double q_before[SP_HOL_MAX_N];
        sp_vec_copy(n, q, q_before);
        sp_status st = kick_drift_kick(s, h, 0.5, 0.5, q, p);
        if (st != SP_OK) return st;
        momentum_of_step(s, q, q_before, h, p);
        sp_vec_copy(n, q_before, s->q_previous);
        s->have_previous = 1;
        return SP_OK;
    }
    double grad[SP_HOL_MAX_N], pt[SP_HOL_MAX_N], q1[SP_HOL_MAX_N], p_half[SP_HOL_MAX_N];
    double G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    const double *G0, *grad0;
    sp_status st = gradient_at(s, q, grad, &grad0);
    if (st == SP_OK) st = jacobian_at(s, q, G, &G0);
    if (st != SP_OK) return st;
    momentum_of_step(s, q, s->q_previous, h, pt);
    sp_vec_axpy(n, -h, grad0, pt);
    st = constrained_drift(s, h, q, G0, pt, q1, p_half);
    if (st == SP_OK && !sp_vec_isfinite(n, q1)) st = SP_ERR_NONFINITE;
    if (st != SP_OK) return st;
    sp_vec_copy(n, q, s->q_previous);
    momentum_of_step(s, q1, q, h, p);
    sp_vec_copy(n, q1, q);
    s->have_G_at = s->have_grad_at = 0;
    return SP_OK;
}

static sp_status base_step(sp_holonomic *s, double h, double *q, double *p)
{
    switch (s->method->base) {
    case SP_HOL_SE_A:
        return kick_drift_kick(s, h, 1.0, 0.0, q, p);
    case SP_HOL_SE_B:
        return kick_drift_kick(s, h, 0.0, 1.0, q, p);
    case SP_HOL_SE_AB: {
        sp_status st = kick_drift_kick(s, 0.5 * h, 1.0, 0.0, q, p);
        return st != SP_OK ? st : kick_drift_kick(s, 0.5 * h, 0.0, 1.0, q, p);
    }
    case SP_HOL_RATTLE:
        return kick_drift_kick(s, h, 0.5, 0.5, q, p);
    case SP_HOL_SHAKE:
        return shake(s, h, q, p);
    case SP_HOL_LOBATTO: {
        /* its Newton matrix takes the curvature by differences: not the exact Jacobian that
         * Newton's quadratic rate needs, so the stop uses the linear rate */
        sp_newton_options opt = s->opt;
        opt.rate_stop = SP_NEWTON_STOP_BY_RATE;
        int it = 0;
        sp_status st = sp_hol_lobatto_step(s->lobatto, h, q, p, &opt, &it);
        s->iterations += it;
        s->have_G_at = s->have_grad_at = 0; /* it moved q without remembering G and ∇V there */
        return st;
    }
    }
    return SP_ERR_INVALID;
}

sp_status sp_holonomic_step(sp_holonomic *s, double h, double *q, double *p)
{
    const int n = s->model->n;
    double qs[SP_HOL_MAX_N], ps[SP_HOL_MAX_N];
    s->iterations = 0;
    if (!isfinite(h)) return SP_ERR_INVALID;
    if (h == 0.0) return SP_OK; /* the identity */
    sp_vec_copy(n, q, qs);
    sp_vec_copy(n, p, ps);
    if (!sp_vec_equal(n, q, s->at)) s->have_G_at = s->have_grad_at = 0;
    for (size_t i = 0; i < s->method->stages; ++i) {
        sp_status st = base_step(s, s->method->gamma[i] * h, qs, ps);
        if (st != SP_OK) {
            s->have_G_at = s->have_grad_at = 0;
            return st;
        }
    }
    sp_vec_copy(n, qs, q);
    sp_vec_copy(n, ps, p);
    sp_vec_copy(n, qs, s->at);
    return SP_OK;
}

sp_status sp_holonomic_residuals(sp_holonomic *s, const double *q, const double *p, double *position,
                                 double *hidden)
{
    const int n = s->model->n, m = s->model->m;
    double g[SP_HOL_MAX_M], G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    sp_status st = constraints(s, q, g, G);
    if (st != SP_OK) return st;
    *position = *hidden = 0.0;
    for (int a = 0; a < m; ++a) {
        *position = fmax(*position, fabs(g[a]));
        *hidden = fmax(*hidden, fabs(form(s, G + a * n, p)));
    }
    return SP_OK;
}

sp_status sp_holonomic_energy(sp_holonomic *s, const double *q, const double *p, double *H)
{
    double V = 0.0;
    if (s->model->potential && s->model->potential(q, &V, NULL, NULL, s->model->params) != 0) return SP_ERR_CALLBACK;
    *H = 0.5 * form(s, p, p) + V;
    return isfinite(*H) ? SP_OK : SP_ERR_NONFINITE;
}
