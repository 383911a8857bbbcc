/* "RATTLE outer, midpoint inner" for holonomic plus index-1 constraints (sp_prop7.h;
 * written after an independent Python implementation). Newton unknowns
 * x = (q1, p_{1/2}, ν0) with ν0 = (h/2)μ0, residual
 *
 *     r1 = p_{1/2} − p0 + (h/2) H_q(q̄, p_{1/2}, λ̄) + Dh(q0)ᵀν0,
 *     r2 = q1 − q0 − h H_p(q̄, p_{1/2}, λ̄),
 *     r3 = h(q1),
 *
 * λ̄ = λ(q̄, p_{1/2}) eliminated: from H_λ(q, p, λ(q, p)) = 0,
 * ∂λ/∂q = −C_λ⁻¹C_q and ∂λ/∂p = −C_λ⁻¹G M⁻¹ (C = H_λ, C_λ = G M⁻¹Gᵀ), so the total
 * derivatives of H_q and H_p are their partial ones plus (∂/∂λ)(∂λ/∂(q, p)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_prop7.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

#define NMAX SP_VAK_MAX_N
#define MMAX SP_VAK_MAX_M
#define KMAX SP_PROP7_MAX_K

/* Steps the predictor extrapolates from: a cubic through the last four. */
#define HISTORY 4

struct sp_prop7 {
    const sp_prop7_model *model;
    int n, m, k, N;
    sp_vakonomic_point *pt;  /* the midpoint of the Newton solve */
    sp_vakonomic_point *aux; /* every other evaluation */
    sp_newton *newton;
    sp_newton_options opt;
    int iterations;
    /* the Newton solve of the current step */
    double h, q0[NMAX], p0[NMAX], Dh0[KMAX * NMAX];
    /* the predictor: the last steps of the trajectory that ends at (last_q, last_p), newest
     * first, each by its rates d = ((q1 − q0)/h, (u − p0)/h, w/h²) (see predict) */
    int history;
    int trusted; /* the last prediction came closer than the plain guess */
    double rate[HISTORY][2 * NMAX + KMAX], hist_h[HISTORY];
    double last_q[NMAX], last_p[NMAX], last_v[NMAX]; /* and H_p there */
};

sp_prop7 *sp_prop7_alloc(const sp_prop7_model *model)
{
    if (!model || model->k < 1 || model->k > KMAX || !model->holonomic || model->vak.n < 1 || model->vak.n > NMAX)
        return NULL;
    sp_prop7 *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->n = model->vak.n, s->m = model->vak.m, s->k = model->k;
    s->N = 2 * s->n + s->k;
    s->opt = sp_newton_options_default();
    s->pt = sp_vakonomic_point_alloc(&model->vak);
    s->aux = sp_vakonomic_point_alloc(&model->vak);
    s->newton = sp_newton_alloc(s->N);
    if (!s->pt || !s->aux || !s->newton) {
        sp_prop7_free(s);
        return NULL;
    }
    return s;
}

void sp_prop7_free(sp_prop7 *s)
{
    if (!s) return;
    sp_vakonomic_point_free(s->pt);
    sp_vakonomic_point_free(s->aux);
    sp_newton_free(s->newton);
    free(s);
}

/* The Jacobian is exact, yet the solve keeps the stop by the size of the update: Newton's
 * quadratic-rate stop (sp_newton.h) ends a step within the tolerance but not at round-off,
 * and the multiplier that a Hopf-invariant potential conserves then drifts by 4.5e-14 over
 * 2000 steps on S³ (5e-15 with the full solve; tests/test_lie_rattle.c). */
void sp_prop7_set_options(sp_prop7 *s, const sp_newton_options *opt) { s->opt = *opt; }
int sp_prop7_iterations(const sp_prop7 *s) { return s->iterations; }
void sp_prop7_reset(sp_prop7 *s) { s->history = s->trusted = 0; }

static sp_status holonomic(const sp_prop7 *s, const double *q, double *h, double *Dh)
{
    if (s->model->holonomic(q, h, Dh, NULL, s->model->params) != 0) return SP_ERR_CALLBACK;
    if ((h && !sp_vec_isfinite(s->k, h)) || (Dh && !sp_vec_isfinite(s->k * s->n, Dh))) return SP_ERR_NONFINITE;
    return SP_OK;
}

/* H_p, H_q, … at (q, p, λ(q, p)) into pt; the multiplier into lam when not NULL. */
static sp_status eliminated(const sp_prop7 *s, sp_vakonomic_point *pt, const double *q, const double *p,
                            int derivatives, double *lam)
{
    double l[MMAX] = {0};
    sp_status st = sp_vakonomic_multiplier(&s->model->vak, pt, q, p, l);
    if (st == SP_OK) st = sp_vakonomic_eval(&s->model->vak, pt, q, p, l, derivatives);
    if (st == SP_OK && lam) sp_vec_copy(s->m, l, lam);
    return st;
}

/* Total derivatives at the evaluated point (λ eliminated): dHq = ∂H_q/∂(q, p) and
 * dv = ∂H_p/∂(q, p), each n x 2n (columns q, then p). */
static sp_status total_derivatives(const sp_prop7 *s, const sp_vakonomic_point *pt, double *dHq, double *dv)
{
    const int n = s->n, m = s->m, n2 = 2 * n;
    double L[MMAX * 2 * NMAX]; /* ∂λ/∂(q, p): m x 2n */
    if (m > 0) {
        double Cl[MMAX * MMAX], B[2 * NMAX * MMAX]; /* 2n right-hand sides of length m */
        int piv[MMAX];
        sp_vec_copy(m * m, pt->Cl, Cl);
        for (int c = 0; c < n2; ++c)
            for (int j = 0; j < m; ++j)
                B[c * m + j] = c < n ? pt->Cq[j * n + c] : pt->G[j * n + c - n] * pt->minv[c - n];
        sp_status st = sp_linsolve(m, Cl, B, n2, piv, 0);
        if (st != SP_OK) return st;
        for (int j = 0; j < m; ++j)
            for (int c = 0; c < n2; ++c) L[j * n2 + c] = -B[c * m + j];
    }
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < n2; ++c) {
            double hq = c < n ? pt->Hqq[i * n + c] : pt->Hqp[i * n + c - n];
            double v = c < n ? pt->Vq[i * n + c] : (c - n == i ? pt->minv[i] : 0.0);
            for (int j = 0; j < m; ++j) {
                hq += pt->Hql[i * m + j] * L[j * n2 + c];
                v += pt->minv[i] * pt->G[j * n + i] * L[j * n2 + c];
            }
            dHq[i * n2 + c] = hq;
            dv[i * n2 + c] = v;
        }
    return SP_OK;
}

static sp_status residual(sp_prop7 *s, double h, const double *q0, const double *p0, const double *Dh0, const double *x,
                          double *F, double *J)
{
    const int n = s->n, k = s->k, N = s->N, n2 = 2 * n;
    const double *q1 = x, *ph = x + n, *nu = x + n2;
    double qb[NMAX], Dh1[KMAX * NMAX];
    for (int i = 0; i < n; ++i) qb[i] = 0.5 * (q0[i] + q1[i]);
    sp_status st = eliminated(s, s->pt, qb, ph, J != NULL, NULL);
    if (st == SP_OK) st = holonomic(s, q1, F + n2, J ? Dh1 : NULL);
    if (st != SP_OK) return st;
    const sp_vakonomic_point *pt = s->pt;
    for (int i = 0; i < n; ++i) {
        double impulse = 0.0;
        for (int a = 0; a < k; ++a) impulse += Dh0[a * n + i] * nu[a];
        F[i] = ph[i] - p0[i] + 0.5 * h * pt->Hq[i] + impulse;
        F[n + i] = q1[i] - q0[i] - h * pt->v[i];
    }
    if (!J) return sp_vec_isfinite(N, F) ? SP_OK : SP_ERR_NONFINITE;

    double dHq[NMAX * 2 * NMAX], dv[NMAX * 2 * NMAX];
    st = total_derivatives(s, pt, dHq, dv);
    if (st != SP_OK) return st;
    sp_vec_zero(N * N, J);
    for (int i = 0; i < n; ++i) {
        double *r1 = J + i * N, *r2 = J + (n + i) * N;
        for (int l = 0; l < n; ++l) {
            r1[l] = 0.25 * h * dHq[i * n2 + l]; /* ∂q̄/∂q1 = ½ */
            r1[n + l] = 0.5 * h * dHq[i * n2 + n + l] + (i == l);
            r2[l] = (i == l) - 0.5 * h * dv[i * n2 + l];
            r2[n + l] = -h * dv[i * n2 + n + l];
        }
        for (int a = 0; a < k; ++a) r1[n2 + a] = Dh0[a * n + i];
    }
    for (int a = 0; a < k; ++a) sp_vec_copy(n, Dh1 + a * n, J + (n2 + a) * N);
    return sp_vec_isfinite(N, F) && sp_vec_isfinite(N * N, J) ? SP_OK : SP_ERR_NONFINITE;
}

/* Newton runs in the unknowns y = (q1, u, w), u = p_{1/2} + Dh(q0)ᵀν0 and w = hν0, so that
 * x = (q1, u − Dh(q0)ᵀw/h, w/h). Every unknown of y is then fixed to round-off relative
 * to the state whatever h, whereas p_{1/2} and ν0 are only fixed to ε/h along Dh(q0)ᵀ
 * (only h·H_p(p_{1/2}) reaches the constraint), which no fixed tolerance on x meets for
 * small steps. J_y = J_x ∂x/∂y. */
static void unscale(const sp_prop7 *s, const double *y, double *x)
{
    const int n = s->n, k = s->k, n2 = 2 * n;
    sp_vec_copy(n2 + k, y, x);
    for (int a = 0; a < k; ++a) {
        x[n2 + a] = y[n2 + a] / s->h;
        sp_vec_axpy(n, -x[n2 + a], s->Dh0 + a * n, x + n);
    }
}

static sp_status newton_residual(void *ctx, const double *y, double *F, double *J)
{
    sp_prop7 *s = ctx;
    const int n = s->n, k = s->k, N = s->N, n2 = 2 * n;
    double x[2 * NMAX + KMAX];
    unscale(s, y, x);
    sp_status st = residual(s, s->h, s->q0, s->p0, s->Dh0, x, F, J);
    if (st != SP_OK || !J) return st;
    /* column n2 + a of J_y: (J_x[:, n2 + a] − J_x[:, n..n2) Dh0_aᵀ) / h */
    for (int r = 0; r < N; ++r)
        for (int a = 0; a < k; ++a) {
            double c = J[r * N + n2 + a];
            for (int i = 0; i < n; ++i) c -= J[r * N + n + i] * s->Dh0[a * n + i];
            J[r * N + n2 + a] = c / s->h;
        }
    return SP_OK;
}

sp_status sp_prop7_residual(sp_prop7 *s, double h, const double *q0, const double *p0, const double *x, double *F,
                            double *J)
{
    double Dh0[KMAX * NMAX];
    sp_status st = holonomic(s, q0, NULL, Dh0);
    return st != SP_OK ? st : residual(s, h, q0, p0, Dh0, x, F, J);
}

/* The closing impulse: p1 = p̃ − Dh(q1)ᵀν1 with Dh(q1) H_p(q1, p1, λ(q1, p1)) = 0. Since
 * w ↦ H_p(q1, w, λ(q1, w)) =: P w is linear, ν1 solves (Dh P Dhᵀ) ν1 = Dh P p̃; and
 * v1 = P p1 = P p̃ − Σ_b ν1_b P Dh_bᵀ, the velocity at the end, comes with it (the plain
 * guess of the next step, against which its prediction is judged). */
static sp_status closing_impulse(sp_prop7 *s, const double *q1, const double *pt, double *p1, double *v1)
{
    const int n = s->n, k = s->k;
    double Dh[KMAX * NMAX], A[KMAX * KMAX], nu[KMAX], P_Dh[KMAX][NMAX];
    int piv[KMAX];
    sp_status st = holonomic(s, q1, NULL, Dh);
    if (st == SP_OK) st = eliminated(s, s->aux, q1, pt, 0, NULL);
    if (st != SP_OK) return st;
    sp_vec_copy(n, s->aux->v, v1);
    for (int a = 0; a < k; ++a) nu[a] = sp_vec_dot(n, Dh + a * n, s->aux->v);
    for (int b = 0; b < k; ++b) {
        st = eliminated(s, s->aux, q1, Dh + b * n, 0, NULL);
        if (st != SP_OK) return st;
        sp_vec_copy(n, s->aux->v, P_Dh[b]);
        for (int a = 0; a < k; ++a) A[a * k + b] = sp_vec_dot(n, Dh + a * n, s->aux->v);
    }
    st = sp_linsolve(k, A, nu, 1, piv, 0);
    if (st != SP_OK) return st;
    sp_vec_copy(n, pt, p1);
    for (int a = 0; a < k; ++a) {
        sp_vec_axpy(n, -nu[a], Dh + a * n, p1);
        sp_vec_axpy(n, -nu[a], P_Dh[a], v1);
    }
    return SP_OK;
}

/* The plain guess: q1 = q0 + h H_p(q0, p0), p_{1/2} = p0, ν0 = 0. */
static sp_status plain_start(sp_prop7 *s, double h, const double *q, const double *p, double *y)
{
    const int n = s->n;
    sp_status st = eliminated(s, s->aux, q, p, 0, NULL);
    if (st != SP_OK) return st;
    sp_vec_zero(s->N, y);
    for (int i = 0; i < n; ++i) y[i] = q[i] + h * s->aux->v[i], y[n + i] = p[i];
    return SP_OK;
}

/* The guess of a step of size h that continues the last ones (Hairer, Lubich & Wanner,
 * Geometric Numerical Integration, 2nd ed., 2006, Sect. VIII.6.1: start from the last
 * steps continued). At the solution the unknowns are increments of the known start:
 * q1 = q0 + h·H_p at the midpoint, u = p0 − (h/2)·H_q at the midpoint (the first residual
 * row), w = h²μ0/2; their rates d = ((q1 − q0)/h, (u − p0)/h, w/h²) vary smoothly along a
 * trajectory (the first two are values at the midpoint of the step, the last at its
 * start), so the polynomial through the last steps' rates, taken at the new step's
 * midpoint and start, gives the guess (q0 + h d_q, p0 + h d_u, h² d_w). The plain guess is
 * off by O(h) in the momentum, this one by O(h^(k+1)) from k steps (on S³, h = 0.1: 4.0
 * Newton iterations per step become 3.2; h = 0.01: 3 become 2). Needs two steps of the same sign
 * and |h| at most twice the last; returns 0 when it makes no guess. */
static int predict(const sp_prop7 *s, double h, const double *q, const double *p, double *y)
{
    const int k = s->history, n = s->n, n2 = 2 * n, N = s->N;
    if (k < 2 || !(fabs(h) <= 2.0 * fabs(s->hist_h[0])) || (h > 0.0) != (s->hist_h[0] > 0.0)) return 0;
    double mid[HISTORY], start[HISTORY], wm[HISTORY], ws[HISTORY], t = 0.0;
    for (int j = 0; j < k; ++j) {
        t -= s->hist_h[j];
        start[j] = t;
        mid[j] = t + 0.5 * s->hist_h[j];
    }
    sp_lagrange_weights(k, mid, 0.5 * h, wm);
    sp_lagrange_weights(k, start, 0.0, ws);
    double d[2 * NMAX + KMAX] = {0};
    for (int j = 0; j < k; ++j) {
        sp_vec_axpy(n2, wm[j], s->rate[j], d);
        sp_vec_axpy(N - n2, ws[j], s->rate[j] + n2, d + n2);
    }
    for (int i = 0; i < n; ++i) y[i] = q[i] + h * d[i], y[n + i] = p[i] + h * d[n + i];
    for (int a = n2; a < N; ++a) y[a] = h * h * d[a];
    return sp_vec_isfinite(N, y);
}

/* Keeps the rates of the step just solved (y from (q0, p0), size h) for the predictor. */
static void remember(sp_prop7 *s, double h, const double *y, int continued)
{
    const int n = s->n, n2 = 2 * n, N = s->N;
    if (!continued || (h > 0.0) != (s->hist_h[0] > 0.0)) s->history = 0;
    const int k = s->history < HISTORY ? s->history : HISTORY - 1;
    for (int j = k; j > 0; --j) {
        sp_vec_copy(N, s->rate[j - 1], s->rate[j]);
        s->hist_h[j] = s->hist_h[j - 1];
    }
    double *d = s->rate[0];
    for (int i = 0; i < n; ++i) d[i] = (y[i] - s->q0[i]) / h, d[n + i] = (y[n + i] - s->p0[i]) / h;
    for (int a = n2; a < N; ++a) d[a] = y[a] / (h * h);
    s->hist_h[0] = h;
    s->history = k + 1;
}

sp_status sp_prop7_step(sp_prop7 *s, double h, double *q, double *p)
{
    const int n = s->n, N = s->N;
    double x[2 * NMAX + KMAX], F[2 * NMAX + KMAX], pt[NMAX], p1[NMAX], v1[NMAX];
    s->iterations = 0;
    if (!isfinite(h)) return SP_ERR_INVALID;
    if (h == 0.0) return SP_OK; /* the identity */
    s->h = h;
    sp_vec_copy(n, q, s->q0);
    sp_vec_copy(n, p, s->p0);
    sp_status st = holonomic(s, q, NULL, s->Dh0);
    if (st != SP_OK) return st;
    /* a step from exactly where the last one ended continues it */
    const int continued = s->history > 0 && sp_vec_equal(n, q, s->last_q) && sp_vec_equal(n, p, s->last_p);
    double y[2 * NMAX + KMAX], guess[2 * NMAX + KMAX];
    const int predicted = continued && predict(s, h, q, p, guess);
    st = SP_ERR_NO_CONVERGENCE;
    for (int attempt = predicted && s->trusted ? 0 : 1; attempt < 2 && st != SP_OK; ++attempt) {
        /* the prediction, then (none, or it led nowhere) the plain guess */
        if (attempt == 0)
            sp_vec_copy(N, guess, y);
        else if ((st = plain_start(s, h, q, p, y)) != SP_OK)
            return st;
        int it = 0;
        st = sp_newton_solve(s->newton, newton_residual, s, y, &s->opt, &it);
        s->iterations += it;
    }
    if (st != SP_OK) return st;
    unscale(s, y, x);
    /* H_q at the converged midpoint, then p̃ = p_{1/2} − (h/2) H_q */
    st = residual(s, h, s->q0, s->p0, s->Dh0, x, F, NULL);
    if (st != SP_OK) return st;
    for (int i = 0; i < n; ++i) pt[i] = x[n + i] - 0.5 * h * s->pt->Hq[i];
    st = closing_impulse(s, x, pt, p1, v1);
    if (st != SP_OK) return st;
    if (!sp_vec_isfinite(n, x) || !sp_vec_isfinite(n, p1)) return SP_ERR_NONFINITE;
    /* The next step uses a prediction only if this one came closer to the solution than
     * the plain guess (q0 + h v0, p0, 0) did: where the steps are too long for the
     * polynomial to mean anything (h = 10 on S³) it would take Newton elsewhere. */
    s->trusted = 0;
    if (predicted) {
        double plain[2 * NMAX + KMAX] = {0};
        for (int i = 0; i < n; ++i) plain[i] = q[i] + h * s->last_v[i], plain[n + i] = p[i];
        s->trusted = sp_vec_dist(N, guess, y) < sp_vec_dist(N, plain, y);
    }
    remember(s, h, y, continued);
    sp_vec_copy(n, x, q);
    sp_vec_copy(n, p1, p);
    sp_vec_copy(n, q, s->last_q);
    sp_vec_copy(n, p, s->last_p);
    sp_vec_copy(n, v1, s->last_v);
    return SP_OK;
}

sp_status sp_prop7_residuals(sp_prop7 *s, const double *q, const double *p, double *position, double *hidden)
{
    const int n = s->n, k = s->k;
    double hq[KMAX], Dh[KMAX * NMAX];
    sp_status st = holonomic(s, q, hq, Dh);
    if (st == SP_OK) st = eliminated(s, s->aux, q, p, 0, NULL);
    if (st != SP_OK) return st;
    *position = *hidden = 0.0;
    for (int a = 0; a < k; ++a) {
        *position = fmax(*position, fabs(hq[a]));
        *hidden = fmax(*hidden, fabs(sp_vec_dot(n, Dh + a * n, s->aux->v)));
    }
    return SP_OK;
}

sp_status sp_prop7_energy(sp_prop7 *s, const double *q, const double *p, double *H, double *lam)
{
    return sp_vakonomic_hamiltonian(&s->model->vak, s->aux, q, p, H, lam, NULL);
}
