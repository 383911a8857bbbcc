/* The optimality conditions of the car's transcription (sp_car_plan.h): the KKT residual
 * that decides `converged`, and Newton's method on those conditions for a fixed active
 * set, which finishes what SLSQP leaves.
 *
 * Why the Newton steps. SLSQP (NLopt's LD_SLSQP) keeps a quasi-Newton matrix and judges its
 * steps by an L1 merit function. Near a solution the defects' curvature makes a full step
 * raise the constraint violation at second order, about as much as it lowers the energy
 * (the Maratos effect), so the line search cuts the steps short and SLSQP stops on its
 * step-size test with the stationarity still at 1e-5 (TPCAP case 12). Here the Hessian of
 * the Lagrangian is formed from central differences of its exact gradient, the KKT system
 * of the active constraints (as equalities) is solved, and each step is followed by a
 * second-order correction back onto those constraints (J. Nocedal & S. J. Wright,
 * Numerical Optimization, 2nd ed., 2006, §18.3 and §15.6): quadratic convergence once the
 * active set is SLSQP's. A step is kept only when the residual falls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
/* last: it brings complex.h, whose macro I the project headers must not see */
#include <lapacke.h>

void car_tx_constraints(const car_tx *t, const double *x, double *f, double *jac)
{
    const size_t n = t->n, me = 3 * t->N, mi = t->n_obs;
    car_tx_defects(t, x, f, jac);
    car_tx_clearance(t, x, f + me, jac ? jac + me * n : NULL);
    if (t->c->vehicle.max_steering_rate > 0) car_tx_rate(t, x, f + me + mi, jac ? jac + (me + mi) * n : NULL);
}

size_t car_tx_n_constraints(const car_tx *t)
{
    return 3 * t->N + t->n_obs + (t->c->vehicle.max_steering_rate > 0 ? 2 * t->N : 0);
}

void car_kkt_free(car_kkt *k)
{
    free(k->g), free(k->M), free(k->mu), free(k->c), free(k->row);
    *k = (car_kkt){0};
}

sp_status car_kkt_eval(const car_tx *t, const double *x, const double *lb, const double *ub, car_kkt *k)
{
    const size_t n = t->n, me = 3 * t->N, m = car_tx_n_constraints(t), mall = m + n;
    *k = (car_kkt){.n = n};
    double *f = malloc(m * sizeof *f), *jac = malloc(m * n * sizeof *jac);
    double *sv = malloc((mall < n ? mall : n) * sizeof *sv), *Mc = NULL;
    k->g = malloc(n * sizeof *k->g);
    k->M = malloc(mall * n * sizeof *k->M);
    k->mu = malloc((mall > n ? mall : n) * sizeof *k->mu);
    k->c = malloc(mall * sizeof *k->c);
    k->row = malloc(mall * sizeof *k->row);
    sp_status st = SP_ERR_NOMEM;
    if (!f || !jac || !sv || !k->g || !k->M || !k->mu || !k->c || !k->row) goto done;
    car_tx_energy(t, x, k->g);
    car_tx_constraints(t, x, f, jac);
    /* the active columns of M (column-major n × na): every equality, the inequalities
     * within `active` of their bound, the bounds x sits on */
    const double active = 1e-6;
    double v = 0.0;
    size_t na = 0;
    for (size_t i = 0; i < m; ++i) {
        v = fmax(v, i < me ? fabs(f[i]) : f[i]);
        if (i >= me && f[i] < -active) continue;
        memcpy(k->M + na * n, jac + i * n, n * sizeof *k->M);
        k->c[na] = f[i];
        k->row[na++] = (long)i;
    }
    for (size_t j = 0; j < n; ++j) {
        v = fmax(v, fmax(lb[j] - x[j], x[j] - ub[j]));
        const int at_lb = x[j] - lb[j] <= 1e-9, at_ub = ub[j] - x[j] <= 1e-9;
        if (!at_lb && !at_ub) continue;
        memset(k->M + na * n, 0, n * sizeof *k->M);
        k->M[na * n + j] = at_ub ? 1.0 : -1.0;
        k->c[na] = at_ub ? x[j] - ub[j] : lb[j] - x[j];
        k->row[na++] = -1 - (long)j;
    }
    k->na = na;
    k->m_eq = me;
    /* least-squares multipliers of ∇f + M μ = 0 */
    double gmax = 0.0;
    for (size_t j = 0; j < n; ++j) gmax = fmax(gmax, fabs(k->g[j])), k->mu[j] = -k->g[j];
    for (size_t j = n; j < na; ++j) k->mu[j] = 0.0;
    Mc = malloc((na ? na : 1) * n * sizeof *Mc);
    if (!Mc) goto done;
    memcpy(Mc, k->M, na * n * sizeof *Mc);
    lapack_int rank = 0;
    const lapack_int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)na, 1, Mc, (lapack_int)n,
                                           k->mu, (lapack_int)(na > n ? na : n), sv, 1e-12, &rank);
    const double scale = fmax(1.0, gmax);
    double s = 0.0, dual = 0.0;
    if (info != 0) {
        s = HUGE_VAL;
    } else {
        for (size_t j = 0; j < n; ++j) {
            double r = k->g[j];
            for (size_t i = 0; i < na; ++i) r += k->M[i * n + j] * k->mu[i];
            s = fmax(s, fabs(r));
        }
        for (size_t i = me; i < na; ++i) dual = fmax(dual, -k->mu[i]);
    }
    k->stationarity = fmax(s, dual) / scale;
    k->violation = v;
    k->residual = fmax(k->stationarity, v);
    st = SP_OK;
done:
    free(f), free(jac), free(sv), free(Mc);
    if (st != SP_OK) car_kkt_free(k);
    return st;
}

/* The gradient of the Lagrangian f + Σ μ_a c_a over the active constraints of k, at x
 * (fc, jac: scratch for all constraints). */
static void lagrangian_gradient(const car_tx *t, const car_kkt *k, const double *x, double *fc, double *jac,
                                double *out)
{
    const size_t n = t->n;
    car_tx_energy(t, x, out);
    car_tx_constraints(t, x, fc, jac);
    for (size_t a = 0; a < k->na; ++a) {
        if (k->row[a] < 0) { /* a bound: linear */
            out[(size_t)(-1 - k->row[a])] += k->M[a * n + (size_t)(-1 - k->row[a])] * k->mu[a];
            continue;
        }
        const double *r = jac + (size_t)k->row[a] * n;
        for (size_t j = 0; j < n; ++j) out[j] += k->mu[a] * r[j];
    }
}

/* The active constraints' values at x (fc: scratch for all constraints). */
static void active_values(const car_tx *t, const car_kkt *k, const double *x, const double *lb, const double *ub,
                          double *fc, double *out)
{
    car_tx_constraints(t, x, fc, NULL);
    for (size_t a = 0; a < k->na; ++a) {
        if (k->row[a] >= 0) {
            out[a] = fc[k->row[a]];
        } else {
            const size_t j = (size_t)(-1 - k->row[a]);
            out[a] = k->M[a * t->n + j] > 0 ? x[j] - ub[j] : lb[j] - x[j];
        }
    }
}

/* One Newton step on the KKT conditions of k's active set from x into y. */
static sp_status newton_step(const car_tx *t, const car_kkt *k, const double *x, const double *lb,
                             const double *ub, double *y)
{
    const size_t n = t->n, na = k->na, dim = n + na, m = car_tx_n_constraints(t);
    double *K = calloc(dim * dim, sizeof *K), *rhs = malloc(dim * sizeof *rhs), *xp = malloc(n * sizeof *xp);
    double *gp = malloc(n * sizeof *gp), *gm = malloc(n * sizeof *gm), *fc = malloc((m ? m : 1) * sizeof *fc);
    double *jac = malloc((m ? m : 1) * n * sizeof *jac), *cv = malloc((na ? na : 1) * sizeof *cv);
    double *A = malloc((na ? na : 1) * n * sizeof *A), *b = malloc((dim > n ? dim : n) * sizeof *b);
    double *sv = malloc(dim * sizeof *sv);
    lapack_int *piv = malloc(dim * sizeof *piv);
    sp_status st = SP_ERR_NOMEM;
    if (!K || !rhs || !xp || !gp || !gm || !fc || !jac || !cv || !A || !b || !sv || !piv) goto done;
    /* W = ∇²L by central differences of ∇L, symmetrised; K = [W M; Mᵀ 0] (column-major) */
    memcpy(xp, x, n * sizeof *xp);
    for (size_t j = 0; j < n; ++j) {
        const double e = 1e-6 * fmax(1.0, fabs(x[j]));
        xp[j] = x[j] + e;
        lagrangian_gradient(t, k, xp, fc, jac, gp);
        xp[j] = x[j] - e;
        lagrangian_gradient(t, k, xp, fc, jac, gm);
        xp[j] = x[j];
        for (size_t i = 0; i < n; ++i) K[j * dim + i] = (gp[i] - gm[i]) / (2.0 * e);
    }
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < j; ++i) K[j * dim + i] = K[i * dim + j] = 0.5 * (K[j * dim + i] + K[i * dim + j]);
    for (size_t a = 0; a < na; ++a)
        for (size_t i = 0; i < n; ++i) K[(n + a) * dim + i] = K[i * dim + n + a] = k->M[a * n + i];
    /* rhs: −(∇f + M μ) and −c, for the step and the change of μ */
    for (size_t i = 0; i < n; ++i) {
        double r = k->g[i];
        for (size_t a = 0; a < na; ++a) r += k->M[a * n + i] * k->mu[a];
        rhs[i] = -r;
    }
    for (size_t a = 0; a < na; ++a) rhs[n + a] = -k->c[a];
    if (LAPACKE_dsysv(LAPACK_COL_MAJOR, 'L', (lapack_int)dim, 1, K, (lapack_int)dim, piv, rhs, (lapack_int)dim) != 0) {
        st = SP_ERR_SINGULAR;
        goto done;
    }
    for (size_t i = 0; i < n; ++i) y[i] = fmin(ub[i], fmax(lb[i], x[i] + rhs[i]));
    /* second-order correction: the least-norm move back onto the active constraints */
    active_values(t, k, y, lb, ub, fc, cv);
    for (size_t a = 0; a < na; ++a)
        for (size_t i = 0; i < n; ++i) A[i * na + a] = k->M[a * n + i];
    for (size_t a = 0; a < na; ++a) b[a] = -cv[a];
    lapack_int rank = 0;
    if (na && LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)na, (lapack_int)n, 1, A, (lapack_int)na, b,
                             (lapack_int)(dim > n ? dim : n), sv, 1e-12, &rank) == 0)
        for (size_t i = 0; i < n; ++i) y[i] = fmin(ub[i], fmax(lb[i], y[i] + b[i]));
    st = SP_OK;
done:
    free(K), free(rhs), free(xp), free(gp), free(gm), free(fc), free(jac), free(cv), free(A), free(b), free(sv),
        free(piv);
    return st;
}

sp_status car_kkt_polish(const car_tx *t, double *x, const double *lb, const double *ub, double tolerance,
                         int max_steps, int *steps)
{
    const size_t n = t->n;
    double *y = malloc(n * sizeof *y);
    if (!y) return SP_ERR_NOMEM;
    car_kkt k;
    sp_status st = car_kkt_eval(t, x, lb, ub, &k);
    *steps = 0;
    while (st == SP_OK && *steps < max_steps && k.residual > tolerance) {
        const sp_status s = newton_step(t, &k, x, lb, ub, y);
        if (s == SP_ERR_NOMEM) st = s;
        if (s != SP_OK || !sp_vec_isfinite((int)n, y)) break;
        car_kkt ky;
        st = car_kkt_eval(t, y, lb, ub, &ky);
        if (st != SP_OK) break;
        /* the step must lower the residual and keep the active set (no constraint that was
         * inactive comes to its bound: that is SLSQP's work, not Newton's) */
        if (!(ky.residual < k.residual) || ky.na != k.na) {
            car_kkt_free(&ky);
            break;
        }
        memcpy(x, y, n * sizeof *x);
        car_kkt_free(&k);
        k = ky;
        ++*steps;
    }
    car_kkt_free(&k);
    free(y);
    return st;
}
