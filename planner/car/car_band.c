/* Banded linear algebra for the car's smoothing (sp_car_plan.h, car_band_*): the
 * transcription's Hessians by grouped differences, and sparse systems solved on their
 * band. Why: with the unknowns numbered interval by interval (car_tx_place) every term
 * of the transcription lies within a band of CAR_TX_BAND, so a Newton step costs work in
 * proportion to the intervals where the dense factorisations cost their cube (a route
 * of 1613 unknowns out of a tight slot: 0.2 s an evaluation of the augmented
 * Lagrangian with its dense Jacobian, minutes a dense KKT step). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "planner/car/sp_car_plan.h"

/* The unknown at place p (the inverse of car_tx_place). */
static size_t unknown_at(const car_tx *t, size_t p)
{
    if (p < 2) return p == 0 ? car_tx_delta(t, 0) : car_tx_s(t, 0);
    const size_t o = (p + 3) / 5, s = (p + 3) % 5;
    if (s == 0) return car_tx_delta(t, o);
    if (s == 1) return car_tx_s(t, o);
    return car_tx_pose(t, o) + (s - 2);
}

/* Unknown j's CAR_MOVED_* bit (its slot: δ, s or a pose's). */
static unsigned char moved_bit(const car_tx *t, size_t j)
{
    const size_t slot = car_tx_slot(t, j);
    return slot == 0 ? CAR_MOVED_DELTA : slot == 1 ? CAR_MOVED_S : CAR_MOVED_POSE;
}

/* g += w r for the sparse row r (col, val: CAR_TX_NZ places, col −1 unused). */
static void add_sparse(const long *col, const double *val, double w, double *g)
{
    for (int e = 0; e < CAR_TX_NZ; ++e)
        if (col[e] >= 0) g[col[e]] += w * val[e];
}

/* Whether unknown j is differenced in group g (of 15: owner mod 3, slot). */
static int in_group(const car_tx *t, size_t j, size_t g)
{
    return car_tx_owner(t, j) % 3 == g / 5 && car_tx_slot(t, j) == g % 5;
}

void car_band_hessian(const car_tx *t, const double *x, car_band_grad_fn grad, void *ctx, double step, int grouped,
                      const double *g0, double *hb, double *y, double *g1, double *g2)
{
    const size_t n = t->n, ld = CAR_TX_BAND + 1, groups = grouped ? 15 : n;
    unsigned char *moved = malloc(t->N + 1);
    memcpy(y, x, n * sizeof *y);
    for (size_t g = 0; g < groups; ++g) {
        const size_t lo = grouped ? 0 : g, hi = grouped ? n : g + 1;
        int any = 0;
        if (moved) memset(moved, 0, t->N + 1);
        for (size_t j = lo; j < hi; ++j)
            if (!grouped || in_group(t, j, g)) {
                y[j] = x[j] + step * fmax(1.0, fabs(x[j])), any = 1;
                if (moved) moved[car_tx_owner(t, j)] |= moved_bit(t, j);
            }
        if (!any) continue;
        grad(ctx, y, moved, g1);
        const double *base = g0;
        if (!g0) {
            for (size_t j = lo; j < hi; ++j)
                if (!grouped || in_group(t, j, g)) y[j] = x[j] - step * fmax(1.0, fabs(x[j]));
            grad(ctx, y, moved, g2);
            base = g2;
        }
        for (size_t j = lo; j < hi; ++j) {
            if (grouped && !in_group(t, j, g)) continue;
            const double e = step * fmax(1.0, fabs(x[j]));
            /* the step as the unknowns hold it, not as asked */
            const double hj = g0 ? (x[j] + e) - x[j] : (x[j] + e) - (x[j] - e);
            y[j] = x[j];
            const size_t pj = car_tx_place(t, j), oj = car_tx_owner(t, j);
            const size_t pa = pj > CAR_TX_BAND ? pj - CAR_TX_BAND : 0, pb = pj + CAR_TX_BAND < n ? pj + CAR_TX_BAND : n - 1;
            for (size_t p = pa; p <= pb; ++p) {
                const size_t i = unknown_at(t, p), oi = car_tx_owner(t, i);
                if (oi + 1 < oj || oi > oj + 1) continue; /* shares no term with j */
                const double est = (g1[i] - base[i]) / hj;
                const size_t hi_p = p > pj ? p : pj, lo_p = p > pj ? pj : p;
                hb[(hi_p - lo_p) + lo_p * ld] += p == pj ? est : 0.5 * est;
            }
        }
    }
    free(moved);
}

/* car_band_grad_fn of E + Σ w_i c_i: first (h->at_base) every row at x, kept with the
 * sum Σ w_i ∇c_i there as the base; then the base with the change of the rows that
 * depend on a moved unknown (the others are the base's exactly; all of them when moved
 * is NULL). */
static void lagrangian_gradient(void *ctx, const double *x, const unsigned char *moved, double *g)
{
    car_lagrangian *h = ctx;
    const car_tx *t = h->t;
    const size_t n = t->n, m = h->m;
    const int base = h->at_base;
    h->at_base = 0;
    car_tx_energy(t, x, g);
    if (base) {
        car_tx_constraints_sparse(t, x, NULL, h->f, h->col, h->val);
        memset(h->gc, 0, n * sizeof *h->gc);
        for (size_t i = 0; i < m; ++i)
            if (h->w[i] != 0.0) add_sparse(h->col + i * CAR_TX_NZ, h->val + i * CAR_TX_NZ, h->w[i], h->gc);
    } else
        car_tx_constraints_sparse(t, x, moved, h->f2, h->col2, h->val2);
    for (size_t j = 0; j < n; ++j) g[j] += h->gc[j];
    if (base) return;
    for (size_t i = 0; i < m; ++i)
        if (h->w[i] != 0.0 && car_tx_row_moved(t, i, moved)) {
            add_sparse(h->col2 + i * CAR_TX_NZ, h->val2 + i * CAR_TX_NZ, h->w[i], g);
            add_sparse(h->col + i * CAR_TX_NZ, h->val + i * CAR_TX_NZ, -h->w[i], g);
        }
}

sp_status car_lagrangian_hessian(car_lagrangian *h, const car_tx *t, const double *x, const double *w, double step,
                                 int grouped, int central, double *hb)
{
    const size_t n = t->n, m = car_tx_n_constraints(t), mm = m ? m : 1;
    if (mm > h->cap_m) {
        free(h->f), free(h->f2), free(h->val), free(h->val2), free(h->col), free(h->col2);
        h->f = malloc(mm * sizeof *h->f), h->f2 = malloc(mm * sizeof *h->f2);
        h->val = malloc(mm * CAR_TX_NZ * sizeof *h->val), h->val2 = malloc(mm * CAR_TX_NZ * sizeof *h->val2);
        h->col = malloc(mm * CAR_TX_NZ * sizeof *h->col), h->col2 = malloc(mm * CAR_TX_NZ * sizeof *h->col2);
        h->cap_m = mm;
    }
    if (n > h->cap_n) {
        free(h->gc), free(h->g0), free(h->y), free(h->g1), free(h->g2);
        h->gc = malloc(n * sizeof *h->gc), h->g0 = malloc(n * sizeof *h->g0), h->y = malloc(n * sizeof *h->y);
        h->g1 = malloc(n * sizeof *h->g1), h->g2 = malloc(n * sizeof *h->g2);
        h->cap_n = n;
    }
    if (!h->f || !h->f2 || !h->val || !h->val2 || !h->col || !h->col2 || !h->gc || !h->g0 || !h->y || !h->g1 ||
        !h->g2) {
        car_lagrangian_free(h);
        return SP_ERR_NOMEM;
    }
    h->t = t, h->w = w, h->m = m, h->at_base = 1;
    lagrangian_gradient(h, x, NULL, h->g0);
    car_band_hessian(t, x, lagrangian_gradient, h, step, grouped, central ? NULL : h->g0, hb, h->y, h->g1, h->g2);
    return SP_OK;
}

void car_lagrangian_free(car_lagrangian *h)
{
    free(h->f), free(h->f2), free(h->val), free(h->val2), free(h->col), free(h->col2);
    free(h->gc), free(h->g0), free(h->y), free(h->g1), free(h->g2);
    *h = (car_lagrangian){0};
}

void car_band_add_row(const car_tx *t, const long *col, const double *val, double w, double *hb)
{
    const size_t ld = CAR_TX_BAND + 1;
    for (int p = 0; p < CAR_TX_NZ && col[p] >= 0; ++p)
        for (int q = 0; q < CAR_TX_NZ && col[q] >= 0; ++q) {
            const size_t pp = car_tx_place(t, (size_t)col[p]), pq = car_tx_place(t, (size_t)col[q]);
            if (pp >= pq) hb[(pp - pq) + pq * ld] += w * val[p] * val[q];
        }
}

void car_band_hold(const car_tx *t, size_t j, double *hb)
{
    const size_t ld = CAR_TX_BAND + 1, n = t->n, p = car_tx_place(t, j);
    for (size_t q = p > CAR_TX_BAND ? p - CAR_TX_BAND : 0; q < p; ++q) hb[(p - q) + q * ld] = 0.0;
    for (size_t r = 1; r < ld && p + r < n; ++r) hb[r + p * ld] = 0.0;
    hb[p * ld] = 1.0;
}

int car_band_solve(size_t dim, size_t nz, const size_t *ri, const size_t *ci, const double *v, const size_t *order,
                   double *rhs)
{
    size_t kl = 0, ku = 0;
    for (size_t e = 0; e < nz; ++e) {
        const size_t r = order[ri[e]], c = order[ci[e]];
        if (r > c && r - c > kl) kl = r - c;
        if (c > r && c - r > ku) ku = c - r;
    }
    sp_band *band = sp_band_alloc((int)dim, (int)kl, (int)ku);
    double *b = malloc((dim ? dim : 1) * sizeof *b);
    int ok = -1;
    if (band && b) {
        for (size_t e = 0; e < nz; ++e) sp_band_add(band, (int)order[ri[e]], (int)order[ci[e]], v[e]);
        for (size_t i = 0; i < dim; ++i) b[order[i]] = rhs[i];
        if (sp_band_factor(band) == SP_OK && sp_band_solve(band, b) == SP_OK) {
            for (size_t i = 0; i < dim; ++i) rhs[i] = b[order[i]];
            ok = 0;
        }
    }
    sp_band_free(band);
    free(b);
    return ok;
}
