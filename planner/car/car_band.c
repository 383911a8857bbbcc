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

/* The groups differenced at a time: their gradients' changes are kept (BATCH × n) and
 * added into hb afterwards in group order, so that hb is the same to the bit whatever the
 * number of workers that found them. */
#define BATCH 16

/* A batch of groups for the workers (car_tx_shared): groups first … first + count − 1. */
typedef struct band_job {
    const car_tx *t;
    const double *x, *g0;
    car_band_grad_fn grad;
    void *ctx;
    double step;
    int grouped;
    size_t first;
    double *diff;         /* BATCH × n: a group's gradient less the base (g0, or the one the other way) */
    unsigned char *any;   /* BATCH: the group has unknowns */
    double *y, *g1;       /* workers × n */
    unsigned char *moved; /* workers × (N + 1) */
} band_job;

static int member(const band_job *b, size_t j, size_t g) { return b->grouped ? in_group(b->t, j, g) : j == g; }

/* y = x with group g's unknowns moved by sign · step · max(1, |x_j|), and their intervals'
 * CAR_MOVED_* bits in moved; whether the group has any. */
static int move_group(const band_job *b, size_t g, double sign, double *y, unsigned char *moved)
{
    const car_tx *t = b->t;
    const size_t n = t->n, lo = b->grouped ? 0 : g, hi = b->grouped ? n : g + 1;
    memcpy(y, b->x, n * sizeof *y);
    memset(moved, 0, t->N + 1);
    int any = 0;
    for (size_t j = lo; j < hi; ++j)
        if (member(b, j, g)) {
            y[j] = b->x[j] + sign * b->step * fmax(1.0, fabs(b->x[j])), any = 1;
            moved[car_tx_owner(t, j)] |= moved_bit(t, j);
        }
    return any;
}

static sp_status band_piece(void *ctx, int begin, int end, int worker)
{
    const band_job *b = ctx;
    const size_t n = b->t->n;
    double *y = b->y + (size_t)worker * n, *g1 = b->g1 + (size_t)worker * n;
    unsigned char *moved = b->moved + (size_t)worker * (b->t->N + 1);
    for (int i = begin; i < end; ++i) {
        const size_t g = b->first + (size_t)i;
        double *d = b->diff + (size_t)i * n;
        b->any[i] = (unsigned char)move_group(b, g, 1.0, y, moved);
        if (!b->any[i]) continue;
        b->grad(b->ctx, worker, y, moved, d);
        if (b->g0) {
            for (size_t j = 0; j < n; ++j) d[j] -= b->g0[j];
        } else {
            move_group(b, g, -1.0, y, moved);
            b->grad(b->ctx, worker, y, moved, g1);
            for (size_t j = 0; j < n; ++j) d[j] -= g1[j];
        }
    }
    return SP_OK;
}

/* hb += group g's columns, from its gradient's change d */
static void add_group(const band_job *b, size_t g, const double *d, double *hb)
{
    const car_tx *t = b->t;
    const double *x = b->x;
    const size_t n = t->n, ld = CAR_TX_BAND + 1, lo = b->grouped ? 0 : g, hi = b->grouped ? n : g + 1;
    for (size_t j = lo; j < hi; ++j) {
        if (!member(b, j, g)) continue;
        const double e = b->step * fmax(1.0, fabs(x[j]));
        /* the step as the unknowns hold it, not as asked */
        const double hj = b->g0 ? (x[j] + e) - x[j] : (x[j] + e) - (x[j] - e);
        const size_t pj = car_tx_place(t, j), oj = car_tx_owner(t, j);
        const size_t pa = pj > CAR_TX_BAND ? pj - CAR_TX_BAND : 0, pb = pj + CAR_TX_BAND < n ? pj + CAR_TX_BAND : n - 1;
        for (size_t p = pa; p <= pb; ++p) {
            const size_t i = unknown_at(t, p), oi = car_tx_owner(t, i);
            if (oi + 1 < oj || oi > oj + 1) continue; /* shares no term with j */
            const double est = d[i] / hj;
            const size_t hi_p = p > pj ? p : pj, lo_p = p > pj ? pj : p;
            hb[(hi_p - lo_p) + lo_p * ld] += p == pj ? est : 0.5 * est;
        }
    }
}

sp_status car_band_hessian(const car_tx *t, const double *x, car_band_grad_fn grad, void *ctx, int workers,
                           double step, int grouped, const double *g0, double *hb)
{
    const size_t n = t->n, groups = grouped ? 15 : n;
    if (workers < 1) workers = 1;
    if (workers > BATCH) workers = BATCH;
    band_job b = {.t = t, .x = x, .g0 = g0, .grad = grad, .ctx = ctx, .step = step, .grouped = grouped,
                  .diff = malloc(BATCH * n * sizeof *b.diff), .any = malloc(BATCH),
                  .y = malloc((size_t)workers * n * sizeof *b.y), .g1 = malloc((size_t)workers * n * sizeof *b.g1),
                  .moved = malloc((size_t)workers * (t->N + 1))};
    const sp_status st = b.diff && b.any && b.y && b.g1 && b.moved ? SP_OK : SP_ERR_NOMEM;
    for (b.first = 0; b.first < groups && st == SP_OK; b.first += BATCH) {
        const size_t count = groups - b.first < BATCH ? groups - b.first : BATCH;
        car_tx_shared(t, workers, (int)count, band_piece, &b);
        for (size_t i = 0; i < count; ++i)
            if (b.any[i]) add_group(&b, b.first + i, b.diff + i * n, hb);
    }
    free(b.diff), free(b.any), free(b.y), free(b.g1), free(b.moved);
    return st;
}

/* car_band_grad_fn of E + Σ w_i c_i: x's gradient (h->g0, with the rows at x and their
 * weighted sum h->gc) with the change of the rows that depend on a moved unknown, found
 * in the worker's own rows (the others are x's exactly; all of them when moved is NULL). */
static void lagrangian_gradient(void *ctx, int worker, const double *x, const unsigned char *moved, double *g)
{
    const car_lagrangian *h = ctx;
    const car_tx *t = h->t;
    const size_t n = t->n, m = h->m, rows = (size_t)worker * h->cap_m;
    double *f2 = h->f2 + rows, *val2 = h->val2 + rows * CAR_TX_NZ;
    long *col2 = h->col2 + rows * CAR_TX_NZ;
    car_tx_energy(t, x, g);
    car_tx_constraints_sparse(t, x, moved, f2, col2, val2);
    for (size_t j = 0; j < n; ++j) g[j] += h->gc[j];
    for (size_t i = 0; i < m; ++i)
        if (h->w[i] != 0.0 && car_tx_row_moved(t, i, moved)) {
            add_sparse(col2 + i * CAR_TX_NZ, val2 + i * CAR_TX_NZ, h->w[i], g);
            add_sparse(h->col + i * CAR_TX_NZ, h->val + i * CAR_TX_NZ, -h->w[i], g);
        }
}

sp_status car_lagrangian_hessian(car_lagrangian *h, const car_tx *t, const double *x, const double *w,
                                 const long *col, const double *val, double step, int grouped, int central, double *hb)
{
    const size_t n = t->n, m = car_tx_n_constraints(t), mm = m ? m : 1;
    if (!h->workers) h->workers = t->workers > 0 ? t->workers : 1;
    const size_t W = (size_t)h->workers;
    if (mm > h->cap_m) {
        free(h->f), free(h->f2), free(h->own_val), free(h->val2), free(h->own_col), free(h->col2);
        h->f = malloc(mm * sizeof *h->f), h->f2 = malloc(W * mm * sizeof *h->f2);
        h->own_val = malloc(mm * CAR_TX_NZ * sizeof *h->own_val);
        h->val2 = malloc(W * mm * CAR_TX_NZ * sizeof *h->val2);
        h->own_col = malloc(mm * CAR_TX_NZ * sizeof *h->own_col);
        h->col2 = malloc(W * mm * CAR_TX_NZ * sizeof *h->col2);
        h->cap_m = mm;
    }
    if (n > h->cap_n) {
        free(h->gc), free(h->g0);
        h->gc = malloc(n * sizeof *h->gc), h->g0 = malloc(n * sizeof *h->g0);
        h->cap_n = n;
    }
    if (!h->f || !h->f2 || !h->own_val || !h->val2 || !h->own_col || !h->col2 || !h->gc || !h->g0) {
        car_lagrangian_free(h);
        return SP_ERR_NOMEM;
    }
    h->t = t, h->w = w, h->m = m;
    /* the gradient at x, with the caller's rows there or every row evaluated */
    car_tx_energy(t, x, h->g0);
    h->col = col ? col : h->own_col, h->val = val ? val : h->own_val;
    if (!col) car_tx_constraints_sparse(t, x, NULL, h->f, h->own_col, h->own_val);
    memset(h->gc, 0, n * sizeof *h->gc);
    for (size_t i = 0; i < m; ++i)
        if (w[i] != 0.0) add_sparse(h->col + i * CAR_TX_NZ, h->val + i * CAR_TX_NZ, w[i], h->gc);
    for (size_t j = 0; j < n; ++j) h->g0[j] += h->gc[j];
    /* (a group's gradient evaluates about half the intervals and of the rows) */
    const double work = (grouped ? 15.0 : (double)n) * (central ? 2.0 : 1.0) * 0.5 * car_rows_work(t);
    return car_band_hessian(t, x, lagrangian_gradient, h, work >= t->parallel_work ? h->workers : 1, step, grouped,
                            central ? NULL : h->g0, hb);
}

void car_lagrangian_free(car_lagrangian *h)
{
    free(h->f), free(h->f2), free(h->own_val), free(h->val2), free(h->own_col), free(h->col2);
    free(h->gc), free(h->g0);
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
