/* The car's smoothing problem as a direct transcription (sp_car_plan.h, car_tx_*): its
 * unknowns, energy, defects, clearance, rate constraints and bounds with their exact
 * derivatives, the constraints' selection, the starting point from the route and the path
 * of a solution. car_smooth.c solves it.
 *
 * The transcription. The travel time T (car_route_duration: the route's length at the
 * speed, and with a rate bound the time to turn the wheel through the route's steering
 * changes) is fixed (with T free the energy would fall without bound as T grows) and cut
 * into N intervals of equal duration h. Interval k carries one signed travel s_k (speed
 * v_k = s_k / h, its sign the route's gear, so the gear pattern is the route's while the
 * cusps may move) and a steering rate ω_k = (δ_{k+1} − δ_k)/h. Within the interval the
 * car drives CAR_SUB exact arcs of s_k/CAR_SUB each at the steering of their midpoints,
 * δ_k + (j + ½)/CAR_SUB · (δ_{k+1} − δ_k): a symmetric scheme (reversing the interval, s
 * → −s, gives the same map) of second order for the linear steering, whose discrete path
 * is itself a path of the bicycle. So the rows of the result are exact arcs of the model
 * between the rows, the steering moves in steps of ω h / CAR_SUB, and the goal is reached
 * to the accuracy of the defect constraints: nothing is re-projected after the solve.
 *
 * Clearance is required at every node and at every joint of the arcs within an interval
 * (the interval's midpoint among them), against each polygon that was near there when the
 * constraints were picked, with the exact footprint–polygon distance and its gradient
 * (problems/car/car_geometry.c), or, where two of its pieces (a corner against the
 * polygon, a vertex against the footprint) tie within TIE, with each piece: at the nodes
 * and midpoints alone, 0.2 m apart, a corner of the car swinging past a vertex of an
 * obstacle went 0.1 m into it between them. An interval marked swept asks each of its
 * rows over the whole arc after its point (the least distance along it, found by a search
 * in one dimension), so that nothing dips between its points: smooth where the least
 * distance is unique, as its gradient is the distance's at the minimiser. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/sp_car_plan.h"
#include "planner/sp_parallel.h"
#include "problems/car/sp_car_geometry.h"

/* Pieces of the footprint–polygon distance (car_world_feature_distance) this close to
 * the least one count as tied with it. */
#define TIE 0.1
/* (no such clearance row) */
#define NO_ROW ((size_t)-1)
/* the longest interval of car_tx_init_pieces, metres */
#define PIECE_STEP 0.3

/* sin φ / φ and its derivative, accurate near 0 */
static double sinc(double phi) { return fabs(phi) < 1e-4 ? 1.0 - phi * phi / 6.0 : sin(phi) / phi; }
static double dsinc(double phi)
{
    return fabs(phi) < 1e-3 ? -phi / 3.0 + phi * phi * phi / 30.0 : (phi * cos(phi) - sin(phi)) / (phi * phi);
}

/* Arc j of an interval (steering δ0 → δ1, travel s), driven for `frac` of its length from
 * p (in place); with jac, G (3 × 6, the derivative of p in (x, y, θ, δ0, δ1, s)) follows. */
static void arc_step(double p[3], double G[18], double d0, double d1, double s, int j, double frac, double wheelbase,
                     int jac)
{
    const double u = (j + 0.5) / CAR_SUB, d = d0 + u * (d1 - d0), t = tan(d), kappa = t / wheelbase;
    const double ss = frac * s / CAR_SUB;
    const double phi = 0.5 * kappa * ss, c = ss * sinc(phi), a = p[2] + phi, ca = cos(a), sa = sin(a);
    const double q[3] = {p[0] + c * ca, p[1] + c * sa, p[2] + 2.0 * phi};
    if (jac) {
        /* the arc's derivatives: in its start pose (a rigid motion), its curvature, its travel */
        const double dx = q[0] - p[0], dy = q[1] - p[1];
        const double dc_dk = 0.5 * ss * ss * dsinc(phi);
        const double pk[3] = {dc_dk * ca - c * sa * 0.5 * ss, dc_dk * sa + c * ca * 0.5 * ss, ss};
        const double ps[3] = {cos(phi) * ca - c * sa * 0.5 * kappa, cos(phi) * sa + c * ca * 0.5 * kappa, kappa};
        const double dk = (1.0 + t * t) / wheelbase;
        for (int col = 0; col < 6; ++col) {
            const double g0 = G[col], g1 = G[6 + col], g2 = G[12 + col];
            G[col] = g0 - dy * g2;
            G[6 + col] = g1 + dx * g2;
            G[12 + col] = g2;
        }
        for (int r = 0; r < 3; ++r) {
            G[6 * r + 3] += pk[r] * dk * (1.0 - u);
            G[6 * r + 4] += pk[r] * dk * u;
            G[6 * r + 5] += ps[r] * frac / CAR_SUB;
        }
    }
    p[0] = q[0], p[1] = q[1], p[2] = q[2];
}

/* car_tx_interval, and when trail is given the pose after each of the arcs with its
 * derivative (CAR_TRAIL values an arc: pose, then J as car_tx_interval's; J only when
 * `jac`). */
static void interval_steps(const double pose[3], double d0, double d1, double s, int upto, double wheelbase,
                           double out[3], double J[18], double *trail, int jac)
{
    double p[3] = {pose[0], pose[1], pose[2]}, G[18] = {0};
    G[0] = G[7] = G[14] = 1.0;
    for (int j = 0; j < upto; ++j) {
        arc_step(p, G, d0, d1, s, j, 1.0, wheelbase, J || (trail && jac));
        if (trail) {
            memcpy(trail + CAR_TRAIL * j, p, sizeof p);
            if (jac) memcpy(trail + CAR_TRAIL * j + 3, G, sizeof G);
        }
    }
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
    if (J) memcpy(J, G, sizeof G);
}

void car_tx_interval(const double pose[3], double d0, double d1, double s, int upto, double wheelbase, double out[3],
                     double J[18])
{
    interval_steps(pose, d0, d1, s, upto, wheelbase, out, J, NULL, 0);
}

void car_tx_interval_trail(const double pose[3], double d0, double d1, double s, double wheelbase, double *trail)
{
    double end[3];
    interval_steps(pose, d0, d1, s, CAR_SUB, wheelbase, end, NULL, trail, 1);
}

static void node_pose(const car_tx *t, const double *x, size_t k, double pose[3])
{
    const double *q = k == 0 ? t->start : k == t->N ? t->goal : x + car_tx_pose(t, k);
    pose[0] = q[0], pose[1] = q[1], pose[2] = q[2];
}

long car_tx_column(const car_tx *t, size_t k, int col)
{
    if (col < 3) return k == 0 ? -1 : (long)(car_tx_pose(t, k) + (size_t)col);
    if (col == 3) return (long)car_tx_delta(t, k);
    if (col == 4) return (long)car_tx_delta(t, k + 1);
    return (long)car_tx_s(t, k);
}

void car_tx_point(const car_tx *t, const double *x, size_t p, double pose[3], double J[18])
{
    const size_t k = p / CAR_SUB;
    const int j = (int)(p % CAR_SUB);
    double q[3];
    node_pose(t, x, k, q);
    if (j == 0) {
        pose[0] = q[0], pose[1] = q[1], pose[2] = q[2];
        if (J) {
            memset(J, 0, 18 * sizeof *J);
            J[0] = J[7] = J[14] = 1.0;
        }
        return;
    }
    car_tx_interval(q, x[car_tx_delta(t, k)], x[car_tx_delta(t, k + 1)], x[car_tx_s(t, k)], j,
                    t->c->vehicle.wheelbase, pose, J);
}

double car_tx_energy(const car_tx *t, const double *x, double *grad)
{
    const double wv = t->c->settings.travel_weight, ws = t->c->settings.steering_weight;
    double e = 0.0;
    if (grad) memset(grad, 0, t->n * sizeof *grad);
    for (size_t k = 0; k < t->N; ++k) {
        const double s = x[car_tx_s(t, k)], dd = x[car_tx_delta(t, k + 1)] - x[car_tx_delta(t, k)];
        e += (wv * s * s + ws * dd * dd) / t->h;
        if (grad) {
            grad[car_tx_s(t, k)] += 2.0 * wv * s / t->h;
            grad[car_tx_delta(t, k + 1)] += 2.0 * ws * dd / t->h;
            grad[car_tx_delta(t, k)] -= 2.0 * ws * dd / t->h;
        }
    }
    return e;
}

/* The three rows of interval k's defects (interval end minus next node): values f, and
 * when col is given their nonzeros, CAR_TX_NZ places a row (col −1: unused). */
static void defect_rows(const car_tx *t, const double *x, size_t k, double f[3], long *col, double *val,
                        const double *trail)
{
    double p[3], q[3], end[3], J[18];
    node_pose(t, x, k, p);
    node_pose(t, x, k + 1, q);
    if (trail) {
        const double *e = trail + ((k + 1) * CAR_SUB - 1) * CAR_TRAIL;
        memcpy(end, e, sizeof end);
        if (col) memcpy(J, e + 3, sizeof J);
    } else
        car_tx_interval(p, x[car_tx_delta(t, k)], x[car_tx_delta(t, k + 1)], x[car_tx_s(t, k)], CAR_SUB,
                        t->c->vehicle.wheelbase, end, col ? J : NULL);
    for (int r = 0; r < 3; ++r) f[r] = end[r] - q[r];
    if (!col) return;
    for (int r = 0; r < 3; ++r) {
        long *cr = col + r * CAR_TX_NZ;
        double *vr = val + r * CAR_TX_NZ;
        int e = 0;
        for (int c = 0; c < 6; ++c) {
            const long v = car_tx_column(t, k, c);
            if (v >= 0) cr[e] = v, vr[e++] = J[6 * r + c];
        }
        if (k + 1 < t->N) cr[e] = (long)(car_tx_pose(t, k + 1) + (size_t)r), vr[e++] = -1.0;
        for (; e < CAR_TX_NZ; ++e) cr[e] = -1, vr[e] = 0.0;
    }
}

/* A feature's distance at τ ∈ [0, 1] of arc j of an interval (steering δ0 → δ1, travel
 * s) from pose a, and in *slope its derivative in τ: the pose moves by s/CAR_SUB · (cos θ,
 * sin θ, κ) per unit of τ. */
static double distance_along(const car_tx *t, const double a[3], double d0, double d1, double s, int j, double tau,
                             size_t poly, int feature, double *slope)
{
    const double L = t->c->vehicle.wheelbase, kappa = tan(d0 + (j + 0.5) / CAR_SUB * (d1 - d0)) / L;
    double r[3] = {a[0], a[1], a[2]}, g[3];
    arc_step(r, NULL, d0, d1, s, j, tau, L, 0);
    const double d = car_world_feature_distance(t->w, poly, feature, r, g, NULL);
    *slope = s / CAR_SUB * (g[0] * cos(r[2]) + g[1] * sin(r[2]) + g[2] * kappa);
    return d;
}

/* The least distance of a feature (car_world_feature_distance) over the arc from point p
 * to the next, which the car drives at the steering of the arc's midpoint: at pose
 * q(τ), τ ∈ [0, 1] of the arc's length, where dd/dτ = 0 inside or at an end. Its
 * derivative in x is the feature's at that τ (a minimum's value moves with x as the
 * function at its minimiser does), so q gets the pose there and, with jac, J (3 × 6 as
 * car_tx_interval's) its derivative; g the distance's gradient in the pose. */
static double swept_distance(const car_tx *t, const double *x, size_t p, size_t poly, int feature,
                             const double *trail, double q[3], double J[18], double g[3])
{
    const size_t k = p / CAR_SUB;
    const int j = (int)(p % CAR_SUB), jac = J != NULL;
    const double d0 = x[car_tx_delta(t, k)], d1 = x[car_tx_delta(t, k + 1)], s = x[car_tx_s(t, k)];
    double a[3], G[18] = {0}; /* the arc's start and its derivative */
    if (j == 0) {
        node_pose(t, x, k, a);
        G[0] = G[7] = G[14] = 1.0;
    } else if (trail) {
        const double *e = trail + (p - 1) * CAR_TRAIL;
        memcpy(a, e, sizeof a);
        if (jac) memcpy(G, e + 3, sizeof G);
    } else
        car_tx_point(t, x, p, a, jac ? G : NULL);
    double slope[2], value[2];
    for (int e = 0; e < 2; ++e) value[e] = distance_along(t, a, d0, d1, s, j, e, poly, feature, &slope[e]);
    double at = value[1] < value[0] ? 1.0 : 0.0;
    if (slope[0] < 0.0 && slope[1] > 0.0) {
        /* a minimum inside: the root of the slope by regula falsi (Illinois), safeguarded */
        double lo = 0.0, hi = 1.0, flo = slope[0], fhi = slope[1];
        int side = 0;
        for (int it = 0; it < 60 && hi - lo > 1e-13; ++it) {
            double m = (lo * fhi - hi * flo) / (fhi - flo), fm;
            if (!(m > lo && m < hi)) m = 0.5 * (lo + hi);
            distance_along(t, a, d0, d1, s, j, m, poly, feature, &fm);
            if (fm == 0.0) {
                lo = hi = m;
                break;
            }
            if (fm < 0.0) {
                lo = m, flo = fm;
                if (side == -1) fhi *= 0.5;
                side = -1;
            } else {
                hi = m, fhi = fm;
                if (side == 1) flo *= 0.5;
                side = 1;
            }
        }
        /* (where the distance along the arc has more than one minimum, the root found may
         * not be the least: an end nearer still is taken) */
        const double m = 0.5 * (lo + hi);
        double unused;
        if (distance_along(t, a, d0, d1, s, j, m, poly, feature, &unused) < fmin(value[0], value[1])) at = m;
    }
    memcpy(q, a, sizeof a);
    arc_step(q, jac ? G : NULL, d0, d1, s, j, at, t->c->vehicle.wheelbase, jac);
    if (jac) memcpy(J, G, sizeof G);
    return car_world_feature_distance(t->w, poly, feature, q, g, NULL);
}

/* Clearance constraint i: its value, and when col is given its row as defect_rows'. In an
 * interval marked swept the row asks the clearance over the whole arc from its point to
 * the next, not at the point alone (swept_distance). */
static double clearance_row(const car_tx *t, const double *x, size_t i, long *col, double *val,
                            const double *trail)
{
    const size_t p = t->obs_point[i], k = p / CAR_SUB;
    const int swept = t->swept[k], inner = swept || p % CAR_SUB != 0;
    double pose[3], J[18], g[3], d;
    if (swept)
        d = swept_distance(t, x, p, t->obs_poly[i], t->obs_feature[i], trail, pose, col ? J : NULL, g);
    else {
        if (trail && inner) {
            const double *e = trail + (p - 1) * CAR_TRAIL;
            memcpy(pose, e, sizeof pose);
            if (col) memcpy(J, e + 3, sizeof J);
        } else
            car_tx_point(t, x, p, pose, col ? J : NULL);
        d = car_world_feature_distance(t->w, t->obs_poly[i], t->obs_feature[i], pose, col ? g : NULL, NULL);
    }
    const double margin = inner ? t->margin[k] : k == 0 ? t->margin[0] : fmax(t->margin[k], t->margin[k - 1]);
    const double f = t->w->clearance + margin - d;
    if (!col) return f;
    int e = 0;
    for (int c = 0; c < (inner ? 6 : 3); ++c) {
        const long v =
            inner ? car_tx_column(t, k, c) : (k == 0 || k == t->N ? -1 : (long)(car_tx_pose(t, k) + (size_t)c));
        if (v >= 0) col[e] = v, val[e++] = -(g[0] * J[c] + g[1] * J[6 + c] + g[2] * J[12 + c]);
    }
    for (; e < CAR_TX_NZ; ++e) col[e] = -1, val[e] = 0.0;
    return f;
}

double car_tx_clearance_row(const car_tx *t, const double *x, size_t i, long *col, double *val)
{
    return clearance_row(t, x, i, col, val, NULL);
}

/* The two rate rows of interval k, as defect_rows'. */
static void rate_rows(const car_tx *t, const double *x, size_t k, double f[2], long *col, double *val)
{
    const double bound = t->h * t->c->vehicle.max_steering_rate;
    const size_t a = car_tx_delta(t, k + 1), b = car_tx_delta(t, k);
    const double dd = x[a] - x[b];
    f[0] = dd - bound;
    f[1] = -dd - bound;
    if (!col) return;
    for (int r = 0; r < 2; ++r) {
        long *cr = col + r * CAR_TX_NZ;
        double *vr = val + r * CAR_TX_NZ;
        cr[0] = (long)a, vr[0] = r ? -1.0 : 1.0;
        cr[1] = (long)b, vr[1] = r ? 1.0 : -1.0;
        for (int e = 2; e < CAR_TX_NZ; ++e) cr[e] = -1, vr[e] = 0.0;
    }
}

/* Rows of CAR_TX_NZ nonzeros into a dense row-major matrix of n columns (zeroed here). */
static void scatter(size_t rows, size_t n, const long *col, const double *val, double *dense)
{
    memset(dense, 0, rows * n * sizeof *dense);
    for (size_t i = 0; i < rows; ++i)
        for (int e = 0; e < CAR_TX_NZ; ++e)
            if (col[i * CAR_TX_NZ + (size_t)e] >= 0) dense[i * n + (size_t)col[i * CAR_TX_NZ + (size_t)e]] += val[i * CAR_TX_NZ + (size_t)e];
}

void car_tx_defects(const car_tx *t, const double *x, double *f, double *jac)
{
    long col[3 * CAR_TX_NZ];
    double val[3 * CAR_TX_NZ];
    for (size_t k = 0; k < t->N; ++k) {
        defect_rows(t, x, k, f + 3 * k, jac ? col : NULL, val, NULL);
        if (jac) scatter(3, t->n, col, val, jac + 3 * k * t->n);
    }
}

void car_tx_clearance(const car_tx *t, const double *x, double *f, double *jac)
{
    long col[CAR_TX_NZ];
    double val[CAR_TX_NZ];
    for (size_t i = 0; i < t->n_obs; ++i) {
        f[i] = clearance_row(t, x, i, jac ? col : NULL, val, NULL);
        if (jac) scatter(1, t->n, col, val, jac + i * t->n);
    }
}

void car_tx_rate(const car_tx *t, const double *x, double *f, double *jac)
{
    long col[2 * CAR_TX_NZ];
    double val[2 * CAR_TX_NZ];
    for (size_t k = 0; k < t->N; ++k) {
        rate_rows(t, x, k, f + 2 * k, jac ? col : NULL, val);
        if (jac) scatter(2, t->n, col, val, jac + 2 * k * t->n);
    }
}

size_t car_tx_n_constraints(const car_tx *t)
{
    return 3 * t->N + t->n_obs + (t->c->vehicle.max_steering_rate > 0 ? 2 * t->N : 0);
}

double car_rows_work(const car_tx *t) { return (double)t->N + 0.15 * (double)t->n_obs; }

/* Items [0, count) cut into as many even chunks as workers, for sp_parallel_run (the
 * caller has judged the work worth the threads: car_tx_shared). */
typedef struct chunks {
    sp_piece_fn fn;
    void *ctx;
    int count, n;
    double cpu[SP_PARALLEL_MAX]; /* each worker's processor time on its chunks */
} chunks;

static sp_status chunk_piece(void *ctx, int begin, int end, int worker)
{
    chunks *c = ctx;
    const double cpu0 = car_cpu_seconds();
    const sp_status st =
        c->fn(c->ctx, (int)((long)begin * c->count / c->n), (int)((long)end * c->count / c->n), worker);
    c->cpu[worker] += car_cpu_seconds() - cpu0;
    return st;
}

void car_tx_shared(const car_tx *t, int workers, int count, sp_piece_fn fn, void *ctx)
{
    if (workers > SP_PARALLEL_MAX) workers = SP_PARALLEL_MAX;
    if (workers <= 1 || count < 2) {
        fn(ctx, 0, count, 0);
        return;
    }
    chunks c = {.fn = fn, .ctx = ctx, .count = count, .n = workers};
    int cost[SP_PARALLEL_MAX];
    for (int i = 0; i < workers; ++i) cost[i] = SP_PARALLEL_MIN_COST;
    const double cpu0 = car_cpu_seconds();
    sp_parallel_run(workers, workers, cost, chunk_piece, &c);
    /* (a chunk whose thread could not start ran on the calling thread: counted in both) */
    double helpers = 0.0;
    for (int i = 1; i < workers; ++i) helpers = fmax(helpers, c.cpu[i]);
    car_wait_add(t->waited, helpers, car_cpu_seconds() - cpu0);
}

/* One evaluation of the rows (car_tx_constraints_sparse) for the workers: first the
 * intervals' arcs and defects, then the clearance rows, which read the arcs. */
typedef struct rows_job {
    const car_tx *t;
    const double *x;
    double *f, *val, *trail;
    long *col;
} rows_job;

/* The arcs of intervals [begin, end) into the trail (every arc of every interval once,
 * with its derivative when the rows are asked: a point carries some five clearance rows
 * in a tight slot, each of which would drive the interval to it again), and their defect
 * rows. */
static sp_status interval_rows(void *ctx, int begin, int end, int worker)
{
    (void)worker;
    const rows_job *r = ctx;
    const car_tx *t = r->t;
    const double *x = r->x;
    for (size_t k = (size_t)begin; k < (size_t)end; ++k) {
        if (r->trail) {
            double p[3], tip[3];
            node_pose(t, x, k, p);
            interval_steps(p, x[car_tx_delta(t, k)], x[car_tx_delta(t, k + 1)], x[car_tx_s(t, k)], CAR_SUB,
                           t->c->vehicle.wheelbase, tip, NULL, r->trail + k * CAR_SUB * CAR_TRAIL, r->col != NULL);
        }
        defect_rows(t, x, k, r->f + 3 * k, r->col ? r->col + 3 * k * CAR_TX_NZ : NULL,
                    r->col ? r->val + 3 * k * CAR_TX_NZ : NULL, r->trail);
    }
    return SP_OK;
}

/* The clearance rows [begin, end). */
static sp_status clearance_rows(void *ctx, int begin, int end, int worker)
{
    (void)worker;
    const rows_job *r = ctx;
    const size_t me = 3 * r->t->N;
    for (size_t i = (size_t)begin; i < (size_t)end; ++i)
        r->f[me + i] = clearance_row(r->t, r->x, i, r->col ? r->col + (me + i) * CAR_TX_NZ : NULL,
                                     r->col ? r->val + (me + i) * CAR_TX_NZ : NULL, r->trail);
    return SP_OK;
}

void car_tx_constraints_sparse(const car_tx *t, const double *x, double *f, long *col, double *val)
{
    const size_t me = 3 * t->N, mi = t->n_obs;
    rows_job r = {.t = t, .x = x, .f = f, .val = val, .col = col,
                  .trail = malloc(t->N * CAR_SUB * CAR_TRAIL * sizeof *r.trail)};
    /* (an evaluation is shared among the workers, each row found by one of them as it
     * would be alone) */
    const int workers = car_rows_work(t) >= t->parallel_work ? t->workers : 1;
    car_tx_shared(t, workers, (int)t->N, interval_rows, &r);
    car_tx_shared(t, workers, (int)mi, clearance_rows, &r);
    free(r.trail);
    if (t->c->vehicle.max_steering_rate > 0)
        for (size_t k = 0; k < t->N; ++k) {
            const size_t i = me + mi + 2 * k;
            rate_rows(t, x, k, f + i, col ? col + i * CAR_TX_NZ : NULL, col ? val + i * CAR_TX_NZ : NULL);
        }
}

void car_tx_constraints(const car_tx *t, const double *x, double *f, double *jac)
{
    const size_t n = t->n, me = 3 * t->N, mi = t->n_obs;
    car_tx_defects(t, x, f, jac);
    car_tx_clearance(t, x, f + me, jac ? jac + me * n : NULL);
    if (t->c->vehicle.max_steering_rate > 0) car_tx_rate(t, x, f + me + mi, jac ? jac + (me + mi) * n : NULL);
}

size_t car_tx_owner(const car_tx *t, size_t j)
{
    const size_t N = t->N;
    if (j <= N) return j;
    if (j < 2 * N + 1) return j - (N + 1);
    return (j - (2 * N + 1)) / 3 + 1;
}

size_t car_tx_slot(const car_tx *t, size_t j)
{
    const size_t N = t->N;
    if (j <= N) return 0;
    if (j < 2 * N + 1) return 1;
    return 2 + (j - (2 * N + 1)) % 3;
}

size_t car_tx_place(const car_tx *t, size_t j)
{
    const size_t o = car_tx_owner(t, j), s = car_tx_slot(t, j);
    return o == 0 ? s : 5 * o - 3 + s;
}

static sp_status grow_constraints(car_tx *t)
{
    const size_t cap = t->cap_obs ? 2 * t->cap_obs : 64;
    size_t *a = realloc(t->obs_point, cap * sizeof *a);
    if (!a) return SP_ERR_NOMEM;
    t->obs_point = a;
    size_t *b = realloc(t->obs_poly, cap * sizeof *b);
    if (!b) return SP_ERR_NOMEM;
    t->obs_poly = b;
    int *f = realloc(t->obs_feature, cap * sizeof *f);
    if (!f) return SP_ERR_NOMEM;
    t->obs_feature = f;
    t->cap_obs = cap;
    return SP_OK;
}

/* Whether the pair (point p, polygon i, feature f) is a constraint already: among the
 * `had` there before the selection began (indexed by point in first, by), or among those
 * it added since (the last ones, their points ascending). */
static size_t constrained(const car_tx *t, size_t had, const size_t *first, const size_t *by, size_t p, size_t i,
                          int f)
{
    for (size_t e = first[p]; e < first[p + 1]; ++e)
        if (t->obs_poly[by[e]] == i && t->obs_feature[by[e]] == f) return by[e];
    for (size_t e = t->n_obs; e > had && t->obs_point[e - 1] >= p; --e)
        if (t->obs_point[e - 1] == p && t->obs_poly[e - 1] == i && t->obs_feature[e - 1] == f) return e - 1;
    return NO_ROW;
}

sp_status car_tx_select(car_tx *t, const double *x, double near)
{
    const car_world *w = t->w;
    const size_t had = t->n_obs, points = CAR_SUB * t->N;
    /* the pairs there already, by point (a counting sort): looking each candidate up
     * among all of them made a selection quadratic in the intervals */
    size_t *first = calloc(points + 1, sizeof *first), *by = malloc((had ? had : 1) * sizeof *by);
    /* a pair's distances by piece, found once for the tie and the rows */
    int most = 1;
    for (size_t i = 0; i < w->n; ++i) most = car_world_features(w, i) > most ? car_world_features(w, i) : most;
    double *piece = malloc((size_t)most * sizeof *piece);
    if (!first || !by || !piece) {
        free(first), free(by), free(piece);
        return SP_ERR_NOMEM;
    }
    for (size_t e = 0; e < had; ++e) ++first[t->obs_point[e] + 1];
    for (size_t p = 0; p < points; ++p) first[p + 1] += first[p];
    for (size_t e = 0; e < had; ++e) by[first[t->obs_point[e]]++] = e;
    for (size_t p = points; p > 0; --p) first[p] = first[p - 1];
    first[0] = 0;
    sp_status st = SP_OK;
    for (size_t p = 1; p < points && st == SP_OK; ++p) {
        double pose[3], c[2];
        car_tx_point(t, x, p, pose, NULL);
        sp_car_footprint_centre(w->vehicle, pose, c);
        for (size_t i = 0; i < w->n && st == SP_OK; ++i) {
            const double *b = w->box + 4 * i;
            const double dx = fmax(0.0, fmax(b[0] - c[0], c[0] - b[2])), dy = fmax(0.0, fmax(b[1] - c[1], c[1] - b[3]));
            if (sqrt(dx * dx + dy * dy) - w->radius >= w->clearance + near) continue;
            const double dmin = car_world_polygon_distance(w, i, pose, NULL);
            if (dmin >= w->clearance + near) continue;
            /* the pair's least distance, one constraint; where another piece is nearly as
             * near (two corners along a kerb), the pieces within TIE of the least instead */
            const int nf = car_world_features(w, i);
            int tied = 0, least = 0;
            double dleast = HUGE_VAL;
            for (int f = 0; f < nf; ++f) {
                const double d = piece[f] = car_world_feature_distance(w, i, f, pose, NULL, NULL);
                tied += d < dmin + TIE;
                if (d < dleast) dleast = d, least = f;
            }
            for (int f = tied < 2 ? -1 : 0; f < (tied < 2 ? 0 : nf); ++f) {
                if (f >= 0 && piece[f] >= fmin(dmin + TIE, w->clearance + near)) continue;
                /* in a swept interval a row covers the arc after its point: the pair on
                 * the arc before the point too */
                for (size_t q = t->swept[(p - 1) / CAR_SUB] ? p - 1 : p; q <= p && st == SP_OK; ++q) {
                    if (constrained(t, had, first, by, q, i, f) != NO_ROW) continue;
                    /* (where the least piece has a row of its own, from an earlier tie,
                     * it holds the pair: no row of the whole polygon beside it) */
                    const size_t own = constrained(t, had, first, by, q, i, least);
                    if (f < 0 && own != NO_ROW) continue;
                    /* The pair's row of the whole polygon, picked where one piece was the
                     * nearest by far, now that pieces tie: the distance, their least, has
                     * a kink there, on which Newton's steps cycle (scene 200000: nine
                     * such rows held the interior-point method at stationarity 0.3–2 for
                     * 300 steps). It becomes the least piece's row (the same value at x),
                     * or another tied piece's where the least has one, and the others
                     * tied join it. */
                    const size_t whole =
                        f == least || own != NO_ROW ? constrained(t, had, first, by, q, i, -1) : NO_ROW;
                    if (whole != NO_ROW) {
                        t->obs_feature[whole] = f;
                        ++t->refined;
                        continue;
                    }
                    if (t->n_obs == t->cap_obs && grow_constraints(t) != SP_OK) {
                        st = SP_ERR_NOMEM;
                        break;
                    }
                    t->obs_point[t->n_obs] = q;
                    t->obs_poly[t->n_obs] = i;
                    t->obs_feature[t->n_obs++] = f;
                }
            }
        }
    }
    free(first), free(by), free(piece);
    return st;
}

/* What both layouts begin with: t cleared to its scene, start and goal; the route's
 * length. */
static double layout_begin(car_tx *t, const car_world *w, const sp_car_problem *c, const car_route *r,
                           const double goal[3])
{
    *t = (car_tx){.w = w, .c = c, .workers = sp_parallel_workers(), .parallel_work = CAR_PARALLEL_WORK};
    memcpy(t->start, c->scene.start, sizeof t->start);
    memcpy(t->goal, goal, sizeof t->goal);
    double total = 0.0;
    for (size_t i = 0; i < r->n; ++i) total += r->pieces[i].length;
    return total;
}

/* N intervals over route r's duration: the sizes, h, and the arrays by interval (joint
 * with `joints`). SP_ERR_NOMEM or SP_OK. */
static sp_status layout_alloc(car_tx *t, const car_route *r, size_t N, int joints)
{
    t->N = N;
    t->n = 5 * N - 2;
    t->h = car_route_duration(r, t->c) / (double)N;
    t->gear = malloc(N * sizeof *t->gear);
    t->margin = calloc(N, sizeof *t->margin);
    t->swept = calloc(N, 1);
    t->joint = joints ? calloc(N, 1) : NULL;
    return t->gear && t->margin && t->swept && (t->joint || !joints) ? SP_OK : SP_ERR_NOMEM;
}

sp_status car_tx_init(car_tx *t, const car_world *w, const sp_car_problem *c, const car_route *r,
                      const double goal[3])
{
    const double total = layout_begin(t, w, c, r, goal);
    /* intervals of about 0.6 m, about 24 of them, but none longer than about 0.9 m, and at
     * least two per gear. SLSQP's work grows with the cube of the unknowns: on the TPCAP
     * cases 36 intervals of 0.4 m took four times the processor time of 24 for an energy
     * 0.5–1.6 % lower; but intervals of 1.2 m and more (24 on a path of 30 m) let the swept
     * footprint dip so far between the checked points that the margins' solves cost more
     * than the unknowns saved. */
    const double step = fmin(0.9, fmax(0.6, total / 24.0));
    size_t N = 0;
    for (size_t i = 0; i < r->n;) {
        double len = 0.0;
        size_t j = i;
        for (; j < r->n && r->pieces[j].gear == r->pieces[i].gear; ++j) len += r->pieces[j].length;
        const size_t m = (size_t)ceil(len / step - 1e-9);
        N += m < 2 ? 2 : m;
        i = j;
    }
    if (layout_alloc(t, r, N, 0) != SP_OK) return SP_ERR_NOMEM;
    N = 0;
    double longest = 0.0;
    for (size_t i = 0; i < r->n;) {
        double len = 0.0;
        size_t j = i;
        for (; j < r->n && r->pieces[j].gear == r->pieces[i].gear; ++j) len += r->pieces[j].length;
        size_t m = (size_t)ceil(len / step - 1e-9);
        if (m < 2) m = 2;
        for (size_t k = 0; k < m; ++k) t->gear[N++] = r->pieces[i].gear;
        longest = fmax(longest, len / (double)m);
        i = j;
    }
    /* the travel of one interval may grow, but not so far that the points where the
     * clearance is checked drift far apart */
    t->smax = 1.5 * longest;
    return SP_OK;
}

sp_status car_tx_init_pieces(car_tx *t, const car_world *w, const sp_car_problem *c, const car_route *r,
                             const double goal[3])
{
    layout_begin(t, w, c, r, goal);
    /* intervals of at most PIECE_STEP: in a tight slot the path must keep the clearance
     * between its checked points too, which lie CAR_SUB to an interval */
    const double step = PIECE_STEP;
    /* two passes: count, then fill. Pieces of one gear and steering in a row (none, as the
     * search builds its routes, but a route given by hand may have them) join without a
     * joint, their intervals counted for their sum. */
    size_t N = 0;
    double longest = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        N = 0;
        for (size_t i = 0; i < r->n;) {
            const car_piece *pc = r->pieces + i;
            double len = 0.0;
            size_t j = i;
            for (; j < r->n && r->pieces[j].gear == pc->gear && r->pieces[j].delta == pc->delta; ++j)
                len += r->pieces[j].length;
            size_t m = (size_t)ceil(len / step - 1e-9);
            if (m < 1) m = 1;
            if (i > 0) {
                if (pass) t->joint[N] = 1, t->gear[N] = r->pieces[i - 1].gear == pc->gear ? pc->gear : 0;
                ++N;
            }
            for (size_t k = 0; k < m; ++k, ++N)
                if (pass) t->gear[N] = pc->gear;
            longest = fmax(longest, len / (double)m);
            i = j;
        }
        if (pass) break;
        if (layout_alloc(t, r, N, 1) != SP_OK) return SP_ERR_NOMEM;
    }
    t->smax = 1.5 * fmax(longest, 0.5 * step);
    return SP_OK;
}

/* The route's pose and steering at travel tau (steering: the piece's there, the mean of
 * both pieces where tau is a joint). */
static void route_at(const car_route *r, const sp_car_problem *c, double tau, double pose[3], double *delta)
{
    double q[3] = {c->scene.start[0], c->scene.start[1], c->scene.start[2]}, at = 0.0;
    const double L = c->vehicle.wheelbase, eps = 1e-9;
    for (size_t i = 0; i < r->n; ++i) {
        const car_piece *pc = r->pieces + i;
        const double kappa = tan(pc->delta) / L;
        if (tau <= at + pc->length + eps || i + 1 == r->n) {
            const double u = fmin(pc->length, fmax(0.0, tau - at));
            car_arc(q, kappa, pc->gear * u, pose);
            double d = pc->delta;
            if (u < eps && i > 0) d = 0.5 * (d + r->pieces[i - 1].delta);
            else if (u > pc->length - eps && i + 1 < r->n) d = 0.5 * (d + r->pieces[i + 1].delta);
            *delta = d;
            return;
        }
        car_arc(q, kappa, pc->gear * pc->length, q);
        at += pc->length;
    }
}

/* car_tx_guess for car_tx_init_pieces' intervals: the route's pieces in order. */
static void guess_pieces(const car_tx *t, const car_route *r, double *x)
{
    const double L = t->c->vehicle.wheelbase;
    double q[3] = {t->start[0], t->start[1], t->start[2]};
    size_t k = 0;
    for (size_t i = 0; i < r->n && k < t->N;) {
        const car_piece *pc = r->pieces + i;
        double len = 0.0;
        size_t j = i;
        for (; j < r->n && r->pieces[j].gear == pc->gear && r->pieces[j].delta == pc->delta; ++j) len += r->pieces[j].length;
        if (i > 0) { /* the joint: the wheel turns where the last piece ended */
            memcpy(x + car_tx_pose(t, k), q, sizeof q);
            x[car_tx_delta(t, k)] = r->pieces[i - 1].delta;
            x[car_tx_s(t, k++)] = 0.0;
        }
        size_t m = 0;
        while (k + m < t->N && !t->joint[k + m]) ++m;
        for (size_t e = 0; e < m; ++e, ++k) {
            if (k > 0) memcpy(x + car_tx_pose(t, k), q, sizeof q);
            x[car_tx_delta(t, k)] = pc->delta;
            x[car_tx_s(t, k)] = pc->gear * len / (double)m;
            car_arc(q, tan(pc->delta) / L, pc->gear * len / (double)m, q);
        }
        i = j;
    }
    x[car_tx_delta(t, t->N)] = r->pieces[r->n - 1].delta;
}

void car_tx_guess(const car_tx *t, const car_route *r, double *x)
{
    if (t->joint) {
        guess_pieces(t, r, x);
        return;
    }
    /* the gear segments of the route are the runs of one gear in t->gear, in order */
    size_t k = 0;
    double at = 0.0;
    for (size_t i = 0; i < r->n;) {
        double len = 0.0;
        size_t j = i;
        for (; j < r->n && r->pieces[j].gear == r->pieces[i].gear; ++j) len += r->pieces[j].length;
        size_t m = 0;
        while (k + m < t->N && t->gear[k + m] == r->pieces[i].gear) ++m;
        for (size_t q = 0; q < m; ++q) {
            double pose[3] = {0, 0, 0}, d = 0.0;
            route_at(r, t->c, at + len * (double)q / (double)m, pose, &d);
            x[car_tx_s(t, k + q)] = r->pieces[i].gear * len / (double)m;
            x[car_tx_delta(t, k + q)] = d;
            if (k + q > 0) memcpy(x + car_tx_pose(t, k + q), pose, sizeof pose);
        }
        at += len;
        k += m;
        i = j;
    }
    x[car_tx_delta(t, t->N)] = r->pieces[r->n - 1].delta;
}

/* How far interval k's points (node k but the start's, then the pose after each arc but
 * the last, walked once) come inside the clearance. */
static double interval_depth(const car_tx *t, const double *x, size_t k)
{
    const double c = t->w->clearance;
    double trail[CAR_SUB * CAR_TRAIL], p[3], tip[3], worst = 0.0;
    node_pose(t, x, k, p);
    if (k > 0) worst = fmax(worst, c - car_world_distance(t->w, p, c, NULL));
    interval_steps(p, x[car_tx_delta(t, k)], x[car_tx_delta(t, k + 1)], x[car_tx_s(t, k)], CAR_SUB - 1,
                   t->c->vehicle.wheelbase, tip, NULL, trail, 0);
    for (int j = 0; j + 1 < CAR_SUB; ++j)
        worst = fmax(worst, c - car_world_distance(t->w, trail + j * CAR_TRAIL, c, NULL));
    return worst;
}

/* car_tx_depth's intervals [begin, end) for the workers, each one's depth into worst[k] */
typedef struct depth_job {
    const car_tx *t;
    const double *x;
    double *worst;
} depth_job;

static sp_status depth_piece(void *ctx, int begin, int end, int worker)
{
    (void)worker;
    const depth_job *d = ctx;
    for (size_t k = (size_t)begin; k < (size_t)end; ++k) d->worst[k] = interval_depth(d->t, d->x, k);
    return SP_OK;
}

double car_tx_depth(const car_tx *t, const double *x)
{
    depth_job d = {.t = t, .x = x, .worst = malloc(t->N * sizeof *d.worst)};
    double worst = 0.0;
    /* (some eight distances to the obstacles an interval, each about a microsecond) */
    const int workers = 8.0 * (double)t->N >= t->parallel_work ? t->workers : 1;
    if (d.worst) car_tx_shared(t, workers, (int)t->N, depth_piece, &d);
    for (size_t k = 0; k < t->N; ++k) worst = fmax(worst, d.worst ? d.worst[k] : interval_depth(t, x, k));
    free(d.worst);
    return worst;
}

void car_tx_free(car_tx *t)
{
    free(t->gear);
    free(t->joint);
    t->joint = NULL;
    free(t->margin);
    t->margin = NULL;
    free(t->swept);
    t->swept = NULL;
    free(t->obs_point);
    free(t->obs_poly);
    free(t->obs_feature);
    t->gear = NULL, t->obs_point = t->obs_poly = NULL, t->obs_feature = NULL;
    t->n_obs = t->cap_obs = 0;
}

sp_status car_tx_path(const car_tx *t, const double *x, car_path *p)
{
    if (car_path_alloc(p, t->N * CAR_SUB) != SP_OK) return SP_ERR_NOMEM;
    for (size_t k = 0; k < t->N; ++k) {
        const double d0 = x[car_tx_delta(t, k)], d1 = x[car_tx_delta(t, k + 1)], s = x[car_tx_s(t, k)] / CAR_SUB;
        for (int j = 0; j < CAR_SUB; ++j) {
            const size_t i = k * CAR_SUB + (size_t)j;
            p->delta[i] = d0 + (j + 0.5) / CAR_SUB * (d1 - d0);
            p->s[i] = s;
            p->m[i] = (int)ceil(fabs(s) / 0.04);
            if (p->m[i] < 1) p->m[i] = 1;
        }
    }
    return SP_OK;
}

void car_tx_bounds(const car_tx *t, double *lb, double *ub)
{
    for (size_t i = 0; i < t->n; ++i) lb[i] = -HUGE_VAL, ub[i] = HUGE_VAL;
    const double dmax = t->c->vehicle.max_steering;
    for (size_t k = 0; k <= t->N; ++k) lb[car_tx_delta(t, k)] = -dmax, ub[car_tx_delta(t, k)] = dmax;
    /* the gear stays the route's: travel at least 1 mm a side of zero */
    for (size_t k = 0; k < t->N; ++k) {
        const size_t i = car_tx_s(t, k);
        const double floor = t->joint && t->joint[k] ? 0.0 : 1e-3;
        if (t->gear[k] > 0) lb[i] = floor, ub[i] = t->smax;
        else if (t->gear[k] < 0) lb[i] = -t->smax, ub[i] = -floor;
        else lb[i] = -t->smax, ub[i] = t->smax;
    }
}
