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

/* Whether unknown j is differenced in group g (of 15: owner mod 3, slot). */
static int in_group(const car_tx *t, size_t j, size_t g)
{
    return car_tx_owner(t, j) % 3 == g / 5 && car_tx_slot(t, j) == g % 5;
}

void car_band_hessian(const car_tx *t, const double *x, car_band_grad_fn grad, void *ctx, double step, int grouped,
                      const double *g0, double *hb, double *y, double *g1, double *g2)
{
    const size_t n = t->n, ld = CAR_TX_BAND + 1, groups = grouped ? 15 : n;
    memcpy(y, x, n * sizeof *y);
    for (size_t g = 0; g < groups; ++g) {
        const size_t lo = grouped ? 0 : g, hi = grouped ? n : g + 1;
        int any = 0;
        for (size_t j = lo; j < hi; ++j)
            if (!grouped || in_group(t, j, g)) y[j] = x[j] + step * fmax(1.0, fabs(x[j])), any = 1;
        if (!any) continue;
        grad(ctx, y, g1);
        const double *base = g0;
        if (!g0) {
            for (size_t j = lo; j < hi; ++j)
                if (!grouped || in_group(t, j, g)) y[j] = x[j] - step * fmax(1.0, fabs(x[j]));
            grad(ctx, y, g2);
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
