/* The Hessian of the transcription's Lagrangian E + Σ w_i c_i (sp_car_plan.h,
 * car_tx_hessian) from the structure of its rows rather than by differencing its
 * gradient.
 *
 * Why. Every clearance row is c = clearance − d(P(u)): a footprint–polygon distance d at
 * the pose P of a point of interval k, itself a function of the interval's six unknowns
 * u = (x, y, θ of node k, δ_k, δ_{k+1}, s_k). So
 *     ∇²c = −(Jᵀ ∇²d J + Σ_r ∂d/∂P_r ∇²P_r),     J = ∂P/∂u,
 * with ∇²d the distance's own curvature in the pose (car_geometry.c: exact for the pair of
 * closest points) and ∇²P the curvature of the arcs, which every row at a point shares
 * with its neighbours and with the interval's defects. The rows' weights in the pose, λ_j
 * = −Σ w_i ∂d_i/∂P (and the defects' multipliers at the interval's end), are summed a
 * point at a time, and Σ_j λ_j · ∇²P_j found by central differences of the arcs' J alone,
 * which need no distance. Differencing the whole gradient instead (15 groups of unknowns)
 * evaluated every distance some ten times a Hessian: on TPCAP case 7 that was three
 * quarters of the interior-point method's time.
 *
 * A row of an interval marked swept is the least distance over an arc, whose minimiser
 * moves with u: its curvature is differenced from its own gradient (such rows are few).
 *
 * The convexified Hessian (CAR_HESSIAN_CONVEX) is what the interior-point method steps on
 * far from a solution (car_ip.c). The Lagrangian is a sum of terms each of which touches
 * one interval's six unknowns (the energy's, the arcs' curvature, the rows' at its points)
 * or one node's pose, so its Hessian is a sum of small blocks; each interval's block,
 * with its share of the energy, has its negative eigenvalues set to zero, and a sum of
 * positive semidefinite blocks is positive semidefinite. Where the Lagrangian is convex
 * interval by interval nothing changes; elsewhere the steps no longer follow directions of
 * negative curvature (as in the partitioned updates of A. Griewank & Ph. L. Toint, Partitioned
 * variable metric updates for large structured optimization problems, 1982). The
 * distances' own curvature is left out of it: it is exact only while the pair of closest
 * points keeps its kind, and it is large and of either sign (a vertex against a vertex
 * bends as 1/d): far from a solution, where the pairs change kind from step to step, it
 * misleads. The distances then count by their first derivatives, as in sequential convex
 * programming. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/sp_car_plan.h"

#include <lapacke.h>

/* the central differences of the arcs' J: a step of this times max(1, |u|) */
#define ARC_STEP 1e-5
/* the central differences of a swept row's gradient */
#define SWEPT_STEP 1e-6

typedef struct hess_job {
    const car_tx *t;
    const double *x, *w;
    car_hessian_kind kind;
    const size_t *first, *by; /* the clearance rows of interval k: by[first[k]] … by[first[k + 1] − 1] */
    double *block;            /* N × 36: interval k's block in its six local unknowns (row-major) */
    double *node;             /* (N + 1) × 9: the rows at node k, in its pose */
    double *scratch;          /* workers × n: a copy of x for the swept rows' differences */
} hess_job;

/* B += w × the curvature of swept row i in interval k's local unknowns, by central
 * differences of its gradient (made symmetric). */
static void swept_row(const hess_job *h, size_t k, size_t i, double w, double *xs, double B[36])
{
    const car_tx *t = h->t;
    long col[2][CAR_TX_NZ];
    double val[2][CAR_TX_NZ], S[36] = {0};
    for (int b = 0; b < 6; ++b) {
        const long v = car_tx_column(t, k, b);
        if (v < 0) continue;
        const double e = SWEPT_STEP * fmax(1.0, fabs(h->x[v]));
        for (int side = 0; side < 2; ++side) {
            xs[v] = h->x[v] + (side ? -e : e);
            car_tx_clearance_row(t, xs, i, col[side], val[side]);
        }
        const double step = (h->x[v] + e) - (h->x[v] - e);
        xs[v] = h->x[v];
        /* (both sides' rows have the same columns: the interval's) */
        for (int a = 0; a < 6; ++a) {
            const long u = car_tx_column(t, k, a);
            for (int q = 0; q < CAR_TX_NZ && u >= 0; ++q)
                if (col[0][q] == u) S[6 * a + b] = w * (val[0][q] - val[1][q]) / step;
        }
    }
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) B[6 * a + b] += 0.5 * (S[6 * a + b] + S[6 * b + a]);
}

/* The symmetric block B (6 × 6, row-major) with its negative eigenvalues set to zero, in
 * the unknowns that are there (`present`); the others' rows and columns are zero. */
static void convexify(double B[36], const int present[6])
{
    int at[6], m = 0;
    for (int a = 0; a < 6; ++a)
        if (present[a]) at[m++] = a;
    double V[36], ev[6], work[64];
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) V[m * a + b] = B[6 * at[a] + at[b]];
    if (m == 0 || LAPACKE_dsyev_work(LAPACK_ROW_MAJOR, 'V', 'U', m, V, m, ev, work, 64) != 0 || ev[0] >= 0.0) return;
    /* (ascending: ev[0] the least) */
    for (int q = 0; q < m; ++q) ev[q] = fmax(ev[q], 0.0);
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) {
            double v = 0.0;
            for (int q = 0; q < m; ++q) v += V[m * a + q] * ev[q] * V[m * b + q];
            B[6 * at[a] + at[b]] = v;
        }
}

/* B += the curvature of interval k's arcs (from pose, with u = δ_k, δ_{k+1}, s_k)
 * weighted by their poses' weights lam: Σ_j λ_j · ∂J_j/∂u_b, by central differences in θ,
 * δ_k, δ_{k+1}, s_k (J does not change with x and y: the arcs move rigidly with the
 * node) */
static void arcs_curvature(const car_tx *t, size_t k, const double pose[3], const double u[3],
                           const double lam[CAR_SUB][3], double B[36])
{
    const double L = t->c->vehicle.wheelbase;
    double C[6][6] = {{0}};
    for (int b = 2; b < 6; ++b) {
        if (car_tx_column(t, k, b) < 0) continue;
        double plus[CAR_SUB * CAR_TRAIL], minus[CAR_SUB * CAR_TRAIL], at[3] = {pose[0], pose[1], pose[2]};
        double v[3] = {u[0], u[1], u[2]};
        const double ref = b == 2 ? pose[2] : u[b - 3], e = ARC_STEP * fmax(1.0, fabs(ref));
        for (int side = 0; side < 2; ++side) {
            const double moved = ref + (side ? -e : e);
            if (b == 2) at[2] = moved;
            else v[b - 3] = moved;
            car_tx_interval_trail(at, v[0], v[1], v[2], L, side ? minus : plus);
        }
        const double step = (ref + e) - (ref - e);
        for (int j = 0; j < CAR_SUB; ++j) {
            const double *Jp = plus + j * CAR_TRAIL + 3, *Jm = minus + j * CAR_TRAIL + 3;
            for (int a = 0; a < 6; ++a)
                for (int r = 0; r < 3; ++r) C[a][b] += lam[j][r] * (Jp[6 * r + a] - Jm[6 * r + a]) / step;
        }
    }
    for (int a = 2; a < 6; ++a)
        for (int b = 2; b < 6; ++b) B[6 * a + b] += 0.5 * (C[a][b] + C[b][a]);
}

/* Interval k's block: its rows' curvature in the distance, the arcs' curvature weighted by
 * the rows and the defects, and its share of the energy Σ (w_v s_k² + w_s (δ_{k+1} −
 * δ_k)²)/h; convexified for CAR_HESSIAN_CONVEX. */
static void interval_block(const hess_job *h, size_t k, double *xs)
{
    const car_tx *t = h->t;
    const double *x = h->x, L = t->c->vehicle.wheelbase;
    const size_t me = 3 * t->N;
    const int distances = h->kind == CAR_HESSIAN_WHOLE;
    double *B = h->block + 36 * k, *nodeH = h->node + 9 * k;
    const double wv = 2.0 * t->c->settings.travel_weight / t->h, ws = 2.0 * t->c->settings.steering_weight / t->h;
    B[6 * 5 + 5] += wv;
    B[6 * 3 + 3] += ws, B[6 * 4 + 4] += ws, B[6 * 3 + 4] -= ws, B[6 * 4 + 3] -= ws;
    double pose[3], trail[CAR_SUB * CAR_TRAIL], lam[CAR_SUB][3] = {{0}};
    car_tx_point(t, x, k * CAR_SUB, pose, NULL);
    const double u[3] = {x[car_tx_delta(t, k)], x[car_tx_delta(t, k + 1)], x[car_tx_s(t, k)]};
    car_tx_interval_trail(pose, u[0], u[1], u[2], L, trail);
    int curved = 0;
    for (int r = 0; r < 3; ++r) curved |= (lam[CAR_SUB - 1][r] = h->w[3 * k + r]) != 0.0;
    for (size_t e = h->first[k]; e < h->first[k + 1]; ++e) {
        const size_t i = h->by[e], p = t->obs_point[i];
        const int j = (int)(p % CAR_SUB);
        const double w = h->w[me + i];
        if (w == 0.0) continue;
        if (t->swept[k]) {
            swept_row(h, k, i, w, xs, B);
            continue;
        }
        double g[3], H[9];
        const double *at = j ? trail + (j - 1) * CAR_TRAIL : pose;
        if (j == 0) { /* a node's row: its pose is its own unknowns */
            if (!distances) continue;
            car_world_feature_distance(t->w, t->obs_poly[i], t->obs_feature[i], at, g, H);
            for (int q = 0; q < 9; ++q) nodeH[q] -= w * H[q];
            continue;
        }
        car_world_feature_distance(t->w, t->obs_poly[i], t->obs_feature[i], at, g, distances ? H : NULL);
        const double *J = at + 3;
        for (int r = 0; r < 3; ++r) lam[j - 1][r] -= w * g[r];
        curved = 1;
        if (!distances) continue;
        /* −w Jᵀ H J */
        double HJ[18];
        for (int r = 0; r < 3; ++r)
            for (int b = 0; b < 6; ++b)
                HJ[6 * r + b] = H[3 * r] * J[b] + H[3 * r + 1] * J[6 + b] + H[3 * r + 2] * J[12 + b];
        for (int a = 0; a < 6; ++a)
            for (int b = 0; b < 6; ++b)
                B[6 * a + b] -= w * (J[a] * HJ[b] + J[6 + a] * HJ[6 + b] + J[12 + a] * HJ[12 + b]);
    }
    if (curved) arcs_curvature(t, k, pose, u, (const double(*)[3])lam, B);
    /* (the energy's share alone is convex) */
    if (h->kind == CAR_HESSIAN_CONVEX && (curved || t->swept[k])) {
        int present[6];
        for (int a = 0; a < 6; ++a) present[a] = car_tx_column(t, k, a) >= 0;
        convexify(B, present);
    }
}

static sp_status hess_piece(void *ctx, int begin, int end, int worker)
{
    const hess_job *h = ctx;
    double *xs = h->scratch + (size_t)worker * h->t->n;
    memcpy(xs, h->x, h->t->n * sizeof *xs);
    for (size_t k = (size_t)begin; k < (size_t)end; ++k) interval_block(h, k, xs);
    return SP_OK;
}

/* hb's entry for unknowns i and j (either order) += v */
static void add_entry(const car_tx *t, double *hb, size_t i, size_t j, double v)
{
    const size_t pi = car_tx_place(t, i), pj = car_tx_place(t, j), hi = pi > pj ? pi : pj, lo = pi > pj ? pj : pi;
    hb[(hi - lo) + lo * (CAR_TX_BAND + 1)] += v;
}

sp_status car_tx_hessian(const car_tx *t, const double *x, const double *w, car_hessian_kind kind, double *hb)
{
    const size_t N = t->N, n = t->n, workers = t->workers > 1 ? (size_t)t->workers : 1;
    size_t *first = calloc(N + 1, sizeof *first), *by = malloc((t->n_obs ? t->n_obs : 1) * sizeof *by);
    size_t *fill = malloc((N + 1) * sizeof *fill);
    hess_job h = {.t = t, .x = x, .w = w, .kind = kind, .first = first, .by = by,
                  .block = calloc(36 * N, sizeof *h.block), .node = calloc(9 * (N + 1), sizeof *h.node),
                  .scratch = malloc(workers * n * sizeof *h.scratch)};
    if (!first || !by || !fill || !h.block || !h.node || !h.scratch) {
        free(first), free(by), free(fill), free(h.block), free(h.node), free(h.scratch);
        return SP_ERR_NOMEM;
    }
    /* the clearance rows by interval (a counting sort) */
    for (size_t i = 0; i < t->n_obs; ++i) ++first[t->obs_point[i] / CAR_SUB + 1];
    for (size_t k = 0; k < N; ++k) first[k + 1] += first[k];
    memcpy(fill, first, (N + 1) * sizeof *fill);
    for (size_t i = 0; i < t->n_obs; ++i) by[fill[t->obs_point[i] / CAR_SUB]++] = i;
    /* (the blocks are found by the workers, each interval's by one as it would be alone,
     * and added in order: the same to the bit for any number of them) */
    car_tx_shared(t, car_rows_work(t) >= t->parallel_work ? t->workers : 1, (int)N, hess_piece, &h);
    for (size_t k = 0; k < N; ++k) {
        const double *B = h.block + 36 * k;
        for (int a = 0; a < 6; ++a) {
            const long i = car_tx_column(t, k, a);
            for (int b = 0; b <= a && i >= 0; ++b) {
                const long j = car_tx_column(t, k, b);
                if (j >= 0 && B[6 * a + b] != 0.0) add_entry(t, hb, (size_t)i, (size_t)j, B[6 * a + b]);
            }
        }
        if (k == 0) continue;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b <= a; ++b)
                if (h.node[9 * k + 3 * a + b] != 0.0)
                    add_entry(t, hb, car_tx_pose(t, k) + (size_t)a, car_tx_pose(t, k) + (size_t)b,
                              h.node[9 * k + 3 * a + b]);
    }
    free(first), free(by), free(fill), free(h.block), free(h.node), free(h.scratch);
    return SP_OK;
}
