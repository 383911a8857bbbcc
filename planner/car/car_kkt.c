/* The optimality conditions of the car's transcription (sp_car_plan.h): the KKT residual
 * that decides `converged`, and Newton's method on those conditions for a fixed active
 * set, which finishes what SLSQP leaves.
 *
 * Why the Newton steps. SLSQP (NLopt's LD_SLSQP) keeps a quasi-Newton matrix and judges its
 * steps by an L1 merit function. Near a solution the defects' curvature makes a full step
 * raise the constraint violation at second order, about as much as it lowers the energy
 * (the Maratos effect), so the line search cuts the steps short and SLSQP stops on its
 * step-size test with the stationarity still at 1e-5 (TPCAP case 12). Here the Hessian of
 * the Lagrangian is the exact one (car_tx_hessian), the KKT system
 * of the active constraints (as equalities) is solved, and each step is followed by a
 * second-order correction back onto those constraints (J. Nocedal & S. J. Wright,
 * Numerical Optimization, 2nd ed., 2006, §18.3 and §15.6): quadratic convergence once the
 * active set is SLSQP's. A step is kept only when the residual falls.
 *
 * Up to DENSE unknowns the systems are dense (LAPACK's least squares by the SVD, and a
 * symmetric indefinite factorisation).
 * Above, their cost (the cube of the unknowns plus active constraints: minutes a step at
 * 1613 unknowns; 1.1 s at 308, where the band takes 0.01 s) gives way to the band: the
 * unknowns and the active constraints are numbered interval by interval, each constraint
 * after the last unknown it touches, so that [W M; Mᵀ 0] and the least-squares systems
 * lie within a band as wide as the constraints of two intervals, and are solved by
 * Gaussian elimination on it (car_band_solve); the least squares then go by the
 * augmented system [I M; Mᵀ −εI] (Å. Björck, Numerical Methods for Least Squares
 * Problems, 1996, §2.5), whose small ε stands in for the SVD's cut of a rank-deficient
 * M. The residual is the same full one either way: the stationarity is that of the
 * multipliers found, measured over all unknowns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
/* last: it brings complex.h, whose macro I the project headers must not see */
#include <lapacke.h>

/* Up to this many unknowns the systems are dense (see above). */
#define DENSE 200
/* the regularisation of the augmented least-squares systems */
#define EPS 1e-12
/* the rounds of dropping inequalities with negative multipliers (car_kkt_eval) */
#define DROP_ROUNDS 16

void car_kkt_free(car_kkt *k)
{
    free(k->g), free(k->mcol), free(k->mval), free(k->mu), free(k->c), free(k->row);
    *k = (car_kkt){0};
}

/* The active constraints' gradients as a dense n × na column-major matrix (zeroed here). */
static void dense_columns(const car_kkt *k, double *M)
{
    const size_t n = k->n;
    memset(M, 0, k->na * n * sizeof *M);
    for (size_t a = 0; a < k->na; ++a)
        for (size_t e = a * CAR_TX_NZ; e < (a + 1) * CAR_TX_NZ; ++e)
            if (k->mcol[e] >= 0) M[a * n + (size_t)k->mcol[e]] += k->mval[e];
}

typedef struct keyed {
    size_t key, index;
} keyed;
static int by_key(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    return p->key != q->key ? (p->key < q->key ? -1 : 1) : (p->index < q->index ? -1 : p->index > q->index);
}

int car_kkt_augmented_solve(const car_tx *t, const car_kkt *k, const double *hb, double eps, double *rhs)
{
    const size_t n = k->n, na = k->na, dim = n + na, ld = CAR_TX_BAND + 1;
    const size_t cap = (hb ? n * (2 * CAR_TX_BAND + 1) : n) + 2 * na * CAR_TX_NZ + na;
    size_t *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci), *order = malloc(dim * sizeof *order);
    double *v = malloc(cap * sizeof *v);
    keyed *keys = malloc(dim * sizeof *keys);
    int ok = -1;
    if (!ri || !ci || !order || !v || !keys) goto done;
    size_t nz = 0;
    for (size_t j = 0; j < n; ++j) keys[j] = (keyed){2 * car_tx_place(t, j), j};
    if (!hb)
        for (size_t j = 0; j < n; ++j) ri[nz] = ci[nz] = j, v[nz++] = 1.0;
    if (hb) {
        /* the band's entries, from places back to unknowns */
        size_t *at = malloc(n * sizeof *at);
        if (!at) goto done;
        for (size_t j = 0; j < n; ++j) at[car_tx_place(t, j)] = j;
        for (size_t q = 0; q < n; ++q)
            for (size_t r = 0; r < ld && q + r < n; ++r) {
                const double h = hb[r + q * ld];
                if (h == 0.0) continue;
                ri[nz] = at[q + r], ci[nz] = at[q], v[nz++] = h;
                if (r) ri[nz] = at[q], ci[nz] = at[q + r], v[nz++] = h;
            }
        free(at);
    }
    for (size_t a = 0; a < na; ++a) {
        size_t last = 0;
        for (size_t e = a * CAR_TX_NZ; e < (a + 1) * CAR_TX_NZ; ++e) {
            if (k->mcol[e] < 0) continue;
            const size_t j = (size_t)k->mcol[e], pj = car_tx_place(t, j);
            last = pj > last ? pj : last;
            ri[nz] = j, ci[nz] = n + a, v[nz++] = k->mval[e];
            ri[nz] = n + a, ci[nz] = j, v[nz++] = k->mval[e];
        }
        if (eps != 0.0) ri[nz] = ci[nz] = n + a, v[nz++] = -eps;
        keys[n + a] = (keyed){2 * last + 1, n + a};
    }
    qsort(keys, dim, sizeof *keys, by_key);
    for (size_t i = 0; i < dim; ++i) order[keys[i].index] = i;
    ok = car_band_solve(dim, nz, ri, ci, v, order, rhs);
done:
    free(ri), free(ci), free(order), free(v), free(keys);
    return ok;
}

/* The least-squares multipliers of ∇f + M μ = 0 into k->mu; 0, or −1 when they cannot be
 * found (or out of memory). */
static int multipliers(const car_tx *t, car_kkt *k)
{
    const size_t n = k->n, na = k->na;
    if (n > DENSE) {
        double *rhs = malloc((n + na) * sizeof *rhs);
        if (!rhs) return -1;
        memcpy(rhs, k->g, n * sizeof *rhs);
        memset(rhs + n, 0, na * sizeof *rhs);
        /* [I M; Mᵀ −εI] (r; z) = (∇f; 0): r = ∇f − M z with Mᵀ r = ε z, so μ = −z */
        const int ok = car_kkt_augmented_solve(t, k, NULL, EPS, rhs);
        for (size_t a = 0; a < na && ok == 0; ++a) k->mu[a] = -rhs[n + a];
        free(rhs);
        return ok;
    }
    double *Mc = malloc((na ? na : 1) * n * sizeof *Mc), *sv = malloc((n + na) * sizeof *sv);
    int ok = -1;
    if (Mc && sv) {
        dense_columns(k, Mc);
        for (size_t j = 0; j < n; ++j) k->mu[j] = -k->g[j];
        for (size_t j = n; j < na; ++j) k->mu[j] = 0.0;
        lapack_int rank = 0;
        ok = LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)na, 1, Mc, (lapack_int)n, k->mu,
                            (lapack_int)(na > n ? na : n), sv, 1e-12, &rank) == 0 ? 0 : -1;
    }
    free(Mc), free(sv);
    return ok;
}

sp_status car_kkt_eval(const car_tx *t, const double *x, const double *lb, const double *ub, car_kkt *k)
{
    const size_t n = t->n, me = 3 * t->N, m = car_tx_n_constraints(t), mall = m + n;
    *k = (car_kkt){.n = n};
    double *f = malloc((m ? m : 1) * sizeof *f), *r = malloc(n * sizeof *r);
    long *col = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *col);
    double *val = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *val);
    k->g = malloc(n * sizeof *k->g);
    k->mcol = malloc(mall * CAR_TX_NZ * sizeof *k->mcol);
    k->mval = malloc(mall * CAR_TX_NZ * sizeof *k->mval);
    k->mu = malloc((mall > n ? mall : n) * sizeof *k->mu);
    k->c = malloc(mall * sizeof *k->c);
    k->row = malloc(mall * sizeof *k->row);
    sp_status st = SP_ERR_NOMEM;
    if (!f || !r || !col || !val || !k->g || !k->mcol || !k->mval || !k->mu || !k->c || !k->row) goto done;
    car_tx_energy(t, x, k->g);
    car_tx_constraints_sparse(t, x, f, col, val);
    /* the active rows of M: every equality, the inequalities within `active` of their
     * bound, the bounds x is as near (an interior-point solution keeps a slack of the
     * order of μ/z from each) */
    const double active = 1e-6;
    double v = 0.0;
    size_t na = 0;
    for (size_t i = 0; i < m; ++i) {
        v = fmax(v, i < me ? fabs(f[i]) : f[i]);
        if (i >= me && f[i] < -active) continue;
        memcpy(k->mcol + na * CAR_TX_NZ, col + i * CAR_TX_NZ, CAR_TX_NZ * sizeof *col);
        memcpy(k->mval + na * CAR_TX_NZ, val + i * CAR_TX_NZ, CAR_TX_NZ * sizeof *val);
        k->c[na] = f[i];
        k->row[na++] = (long)i;
    }
    for (size_t j = 0; j < n; ++j) {
        v = fmax(v, fmax(lb[j] - x[j], x[j] - ub[j]));
        const int at_lb = x[j] - lb[j] <= active, at_ub = ub[j] - x[j] <= active;
        if (!at_lb && !at_ub) continue;
        long *c = k->mcol + na * CAR_TX_NZ;
        double *w = k->mval + na * CAR_TX_NZ;
        for (int e = 0; e < CAR_TX_NZ; ++e) c[e] = -1, w[e] = 0.0;
        c[0] = (long)j, w[0] = at_ub ? 1.0 : -1.0;
        k->c[na] = at_ub ? x[j] - ub[j] : lb[j] - x[j];
        k->row[na++] = -1 - (long)j;
    }
    k->na = na;
    k->m_eq = me;
    double gmax = 0.0;
    for (size_t j = 0; j < n; ++j) gmax = fmax(gmax, fabs(k->g[j]));
    const double scale = fmax(1.0, gmax);
    double s = 0.0, dual = 0.0;
    /* Where the active rows are degenerate (the points of a short interval crowd against
     * one polygon, two pieces of a distance tie), the least-squares multipliers are one
     * choice among many, and may give an inequality a negative multiplier where another
     * choice would not. The inequalities given one are dropped and the multipliers found
     * again, up to DROP_ROUNDS times: KKT asks only that some nonnegative multipliers
     * exist (those found, with zero for the rows dropped, are such multipliers when the
     * stationarity still holds). In a tight slot the rounds needed grow with the rows
     * that crowd: scene 300099's interior-point solution (280 active rows) took 6, each
     * with the stationarity at 5e-12. */
    for (int round = 0; round < DROP_ROUNDS; ++round) {
        double s1 = 0.0, dual1 = 0.0;
        if (multipliers(t, k) != 0) {
            s1 = HUGE_VAL;
        } else {
            /* the stationarity of these multipliers over all unknowns */
            memcpy(r, k->g, n * sizeof *r);
            for (size_t a = 0; a < k->na; ++a)
                for (size_t e = a * CAR_TX_NZ; e < (a + 1) * CAR_TX_NZ; ++e)
                    if (k->mcol[e] >= 0) r[k->mcol[e]] += k->mval[e] * k->mu[a];
            for (size_t j = 0; j < n; ++j) s1 = fmax(s1, fabs(r[j]));
            for (size_t i = me; i < k->na; ++i) dual1 = fmax(dual1, -k->mu[i]);
        }
        s = s1, dual = dual1;
        if (dual <= 1e-9 * scale || !isfinite(s)) break;
        size_t kept = me;
        for (size_t i = me; i < k->na; ++i) {
            if (k->mu[i] < 0.0) continue;
            memmove(k->mcol + kept * CAR_TX_NZ, k->mcol + i * CAR_TX_NZ, CAR_TX_NZ * sizeof *k->mcol);
            memmove(k->mval + kept * CAR_TX_NZ, k->mval + i * CAR_TX_NZ, CAR_TX_NZ * sizeof *k->mval);
            k->c[kept] = k->c[i], k->row[kept] = k->row[i], k->mu[kept] = k->mu[i];
            ++kept;
        }
        k->na = kept;
    }
    k->stationarity = fmax(s, dual) / scale;
    k->violation = v;
    k->residual = fmax(k->stationarity, v);
    st = SP_OK;
done:
    free(f), free(r), free(col), free(val);
    if (st != SP_OK) car_kkt_free(k);
    return st;
}

/* The active constraints' values at x (fc: scratch for all constraints). */
static void active_values(const car_tx *t, const car_kkt *k, const double *x, const double *lb, const double *ub,
                          double *fc, double *out)
{
    car_tx_constraints_sparse(t, x, fc, NULL, NULL);
    for (size_t a = 0; a < k->na; ++a) {
        if (k->row[a] >= 0) {
            out[a] = fc[k->row[a]];
        } else {
            const size_t j = (size_t)(-1 - k->row[a]);
            out[a] = k->mval[a * CAR_TX_NZ] > 0 ? x[j] - ub[j] : lb[j] - x[j];
        }
    }
}

/* One Newton step on the KKT conditions of k's active set from x into y. */
static sp_status newton_step(const car_tx *t, const car_kkt *k, const double *x, const double *lb,
                             const double *ub, double *y)
{
    const size_t n = t->n, na = k->na, dim = n + na, m = car_tx_n_constraints(t), ld = CAR_TX_BAND + 1;
    const int dense = n <= DENSE;
    double *K = dense ? calloc(dim * dim, sizeof *K) : NULL, *rhs = malloc(dim * sizeof *rhs);
    double *hb = calloc(ld * n, sizeof *hb), *w = calloc(m ? m : 1, sizeof *w);
    double *fc = malloc((m ? m : 1) * sizeof *fc), *cv = malloc((na ? na : 1) * sizeof *cv);
    double *M = dense ? malloc((na ? na : 1) * n * sizeof *M) : NULL, *A = dense ? malloc((na ? na : 1) * n * sizeof *A) : NULL;
    double *b = malloc((dim > n ? dim : n) * sizeof *b), *sv = dense ? malloc(dim * sizeof *sv) : NULL;
    lapack_int *piv = dense ? malloc(dim * sizeof *piv) : NULL;
    sp_status st = SP_ERR_NOMEM;
    if (!rhs || !hb || !w || !fc || !cv || !b ||
        (dense && (!K || !M || !A || !sv || !piv)))
        goto done;
    /* W = ∇²L, with the distances' own curvature: near a solution, with its active set
     * fixed, Newton's steps want the whole of it */
    for (size_t a = 0; a < na; ++a)
        if (k->row[a] >= 0) w[k->row[a]] += k->mu[a]; /* (a bound's row is linear: no curvature) */
    const sp_status hs = car_tx_hessian(t, x, w, CAR_HESSIAN_WHOLE, hb);
    if (hs != SP_OK) goto done;
    /* rhs: −(∇f + M μ) and −c, for the step and the change of μ */
    memcpy(rhs, k->g, n * sizeof *rhs);
    for (size_t a = 0; a < na; ++a)
        for (size_t e = a * CAR_TX_NZ; e < (a + 1) * CAR_TX_NZ; ++e)
            if (k->mcol[e] >= 0) rhs[k->mcol[e]] += k->mval[e] * k->mu[a];
    for (size_t i = 0; i < n; ++i) rhs[i] = -rhs[i];
    for (size_t a = 0; a < na; ++a) rhs[n + a] = -k->c[a];
    if (dense) {
        /* K = [W M; Mᵀ 0] (column-major) */
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) {
                const size_t pi = car_tx_place(t, i), pj = car_tx_place(t, j);
                const size_t hi = pi > pj ? pi : pj, lo = pi > pj ? pj : pi;
                K[j * dim + i] = hi - lo <= CAR_TX_BAND ? hb[(hi - lo) + lo * ld] : 0.0;
            }
        dense_columns(k, M);
        for (size_t a = 0; a < na; ++a)
            for (size_t i = 0; i < n; ++i) K[(n + a) * dim + i] = K[i * dim + n + a] = M[a * n + i];
        if (LAPACKE_dsysv(LAPACK_COL_MAJOR, 'L', (lapack_int)dim, 1, K, (lapack_int)dim, piv, rhs, (lapack_int)dim) != 0) {
            st = SP_ERR_SINGULAR;
            goto done;
        }
    } else if (car_kkt_augmented_solve(t, k, hb, 0.0, rhs) != 0) {
        st = SP_ERR_SINGULAR;
        goto done;
    }
    for (size_t i = 0; i < n; ++i) y[i] = fmin(ub[i], fmax(lb[i], x[i] + rhs[i]));
    /* second-order correction: the least-norm move back onto the active constraints */
    active_values(t, k, y, lb, ub, fc, cv);
    if (dense) {
        for (size_t a = 0; a < na; ++a)
            for (size_t i = 0; i < n; ++i) A[i * na + a] = M[a * n + i];
        /* LAPACKE reads all max(na, n) rows of b, not only the na it solves for */
        memset(b, 0, (dim > n ? dim : n) * sizeof *b);
        for (size_t a = 0; a < na; ++a) b[a] = -cv[a];
        lapack_int rank = 0;
        if (na && LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)na, (lapack_int)n, 1, A, (lapack_int)na, b,
                                 (lapack_int)(dim > n ? dim : n), sv, 1e-12, &rank) == 0)
            for (size_t i = 0; i < n; ++i) y[i] = fmin(ub[i], fmax(lb[i], y[i] + b[i]));
    } else if (na) {
        /* [I M; Mᵀ −εI] (b; z) = (0; −c): b = −M z with Mᵀ b = −c + ε z */
        memset(b, 0, n * sizeof *b);
        for (size_t a = 0; a < na; ++a) b[n + a] = -cv[a];
        if (car_kkt_augmented_solve(t, k, NULL, EPS, b) == 0)
            for (size_t i = 0; i < n; ++i) y[i] = fmin(ub[i], fmax(lb[i], y[i] + b[i]));
    }
    st = SP_OK;
done:
    free(K), free(rhs), free(hb), free(w), free(fc), free(cv), free(M), free(A),
        free(b), free(sv), free(piv);
    return st;
}

/* The processor time of one gradient of the Lagrangian at x: the energy's gradient and
 * every constraint with its row (0 when out of memory). */
static double gradient_seconds(const car_tx *t, const double *x)
{
    const size_t m = car_tx_n_constraints(t);
    double *g = malloc(t->n * sizeof *g), *f = malloc((m ? m : 1) * sizeof *f);
    double *val = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *val);
    long *col = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *col);
    double seconds = 0.0;
    if (g && f && val && col) {
        const double began = car_cpu_seconds();
        car_tx_energy(t, x, g);
        car_tx_constraints_sparse(t, x, f, col, val);
        seconds = car_cpu_seconds() - began;
    }
    free(g), free(f), free(val), free(col);
    return seconds;
}

sp_status car_kkt_polish(const car_tx *t, double *x, const double *lb, const double *ub, double tolerance,
                         int max_steps, double deadline, int *steps)
{
    const size_t n = t->n;
    double *y = malloc(n * sizeof *y);
    if (!y) return SP_ERR_NOMEM;
    car_kkt k;
    sp_status st = car_kkt_eval(t, x, lb, ub, &k);
    /* a step's time, until one is measured (−1: not yet estimated), in gradients of the
     * Lagrangian: 4 on the band (its Hessian takes 2 to 3.5: scene 100047, the narrow
     * slot, TPCAP case 7), 2n when dense, where the factorisation of the whole KKT matrix,
     * cubic in its size, is the larger part */
    double step_time = -1.0;
    *steps = 0;
    while (st == SP_OK && *steps < max_steps && k.residual > tolerance) {
        if (step_time < 0.0) step_time = (double)(n <= DENSE ? 2 * n : 4) * gradient_seconds(t, x);
        const double now = car_solve_seconds(t->waited);
        if (now + step_time > deadline) break;
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
        step_time = car_solve_seconds(t->waited) - now;
    }
    car_kkt_free(&k);
    free(y);
    return st;
}
