/* Cubics of the round sphere through keyframes, condensed multiple shooting (see
 * sp_round.h; the structure follows exact.c with two position rows and four knot unknowns). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "integrators/sp_round_sphere.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_round.h"
#include "planner/sp_clock.h"
#include "planner/sp_parallel.h"

enum { NG = 2, NW = 4, NX = SP_RS_TANGENT, COLS = NW + NG };

int sp_round_applies(const sp_problem *pb)
{
    const sp_cubic_spline *c = &pb->cubic;
    return pb->task == SP_TASK_PLAN && c->space == SP_SPACE_SPHERE && c->metric == SP_SPHERE_ROUND && c->sigma == 0.0 &&
           pb->steps == 0 && c->n_targets > 0 && sp_cubic_segments(c, pb->T) == c->n_targets;
}

/* What one segment's linearisation leaves for the condensed solve: δμ = −Ainv (r_g + Aw δw),
 * and B_μ to carry r_g into the recurrence. */
typedef struct segment {
    double Ainv[NG * NG], Aw[NG * NW], Bmu[NW * NG];
} segment;

typedef struct round_solver {
    const sp_problem *pb;
    sp_round_sphere rk;
    int workers;
    int K;
    double *tk;   /* K+1 knot times */
    double *Y;    /* K+1 knot points */
    double *E;    /* K+1 tangent bases (e1, e2) */
    double *w;    /* (K+1)·NW: (v, a) at every knot in its basis */
    double *mu;   /* K·NG: j leaving every knot but the last */
    double *r;    /* K·(NG + NW) residuals */
    double *xend; /* K·NX: the state at the end of every segment */
    double *seg_run, *seg_worst;
    int *cost;
    size_t *first_node;
    segment *seg;
    sp_band *band;
    double *rhs, *dw, *dmu, *w_old, *mu_old;
    double start_v[3]; /* prescribed ẏ(0), in R³ */
    int iterations, jacobians, sweeps;
    sp_time_parts times;
} round_solver;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* An orthonormal basis (e1, e2) of the plane normal to the unit vector y, e1 × e2 = y. */
static void tangent_basis(const double *y, double *e)
{
    int m = 0; /* the axis least aligned with y */
    for (int k = 1; k < 3; ++k)
        if (fabs(y[k]) < fabs(y[m])) m = k;
    double u[3] = {0, 0, 0}, e1[3];
    u[m] = 1.0;
    sp_cross(y, u, e1);
    const double s = sp_vec_norm(3, e1);
    for (int k = 0; k < 3; ++k) e[k] = e1[k] / s;
    sp_cross(y, e, e + 3);
}

static void round_free(round_solver *e)
{
    free(e->tk), free(e->Y), free(e->E), free(e->w), free(e->mu), free(e->r), free(e->xend);
    free(e->seg_run), free(e->seg_worst), free(e->cost), free(e->first_node), free(e->seg);
    sp_band_free(e->band);
    free(e->rhs), free(e->dw), free(e->dmu), free(e->w_old), free(e->mu_old);
}

static sp_status round_init(round_solver *e, const sp_problem *pb)
{
    memset(e, 0, sizeof *e);
    e->pb = pb;
    const size_t K = pb->cubic.n_targets;
    e->K = (int)K;
    if (sp_round_sphere_init(&e->rk) != SP_OK) return SP_ERR_INVALID;
    e->workers = sp_parallel_workers();
    e->tk = malloc((K + 1) * sizeof *e->tk);
    e->Y = malloc((K + 1) * 3 * sizeof *e->Y);
    e->E = malloc((K + 1) * 6 * sizeof *e->E);
    e->w = malloc((K + 1) * NW * sizeof *e->w);
    e->w_old = malloc((K + 1) * NW * sizeof *e->w_old);
    e->mu = malloc(K * NG * sizeof *e->mu);
    e->mu_old = malloc(K * NG * sizeof *e->mu_old);
    e->r = malloc(K * (NG + NW) * sizeof *e->r);
    e->xend = malloc(K * NX * sizeof *e->xend);
    e->seg_run = malloc(K * sizeof *e->seg_run);
    e->seg_worst = malloc(K * sizeof *e->seg_worst);
    e->cost = malloc(K * sizeof *e->cost);
    e->first_node = malloc((K + 1) * sizeof *e->first_node);
    e->seg = malloc(K * sizeof *e->seg);
    e->rhs = malloc((K + 1) * NW * sizeof *e->rhs);
    e->dw = malloc((K + 1) * NW * sizeof *e->dw);
    e->dmu = malloc(K * NG * sizeof *e->dmu);
    /* rows: start (NG), segment i (NW), end (NG); unknowns w_0 … w_K */
    e->band = sp_band_alloc((int)((K + 1) * NW), NG + NW - 1, NG + NW - 1);
    if (!e->tk || !e->Y || !e->E || !e->w || !e->w_old || !e->mu || !e->mu_old || !e->r || !e->xend || !e->seg_run ||
        !e->seg_worst || !e->cost || !e->first_node || !e->seg || !e->rhs || !e->dw || !e->dmu || !e->band) {
        round_free(e);
        return SP_ERR_NOMEM;
    }
    /* the start y(0) = g0·y0 and its prescribed velocity ẏ(0) = g0 (ξ0 × y0) (the spin ξ0·y0
     * moves no point) */
    const sp_cubic_spline *c = &pb->cubic;
    double u[3];
    e->tk[0] = 0.0;
    sp_mat_vec(3, 3, pb->g0, c->y0, e->Y);
    sp_cross(pb->xi0, c->y0, u);
    sp_mat_vec(3, 3, pb->g0, u, e->start_v);
    for (size_t i = 0; i < K; ++i) {
        e->tk[i + 1] = c->targets[i].t;
        sp_vec_copy(3, c->targets[i].y, e->Y + 3 * (i + 1));
    }
    for (size_t i = 0; i <= K; ++i) {
        double *y = e->Y + 3 * i;
        const double s = sp_vec_norm(3, y);
        for (int k = 0; k < 3; ++k) y[k] /= s;
        tangent_basis(y, e->E + 6 * i);
    }
    return SP_OK;
}

/* Coordinates of the R³ vector u in the basis of knot i. */
static void to_basis(const round_solver *e, int i, const double *u, double *c)
{
    c[0] = dot3(e->E + 6 * i, u), c[1] = dot3(e->E + 6 * i + 3, u);
}

static void from_basis(const round_solver *e, int i, const double *c, double *u)
{
    const double *e1 = e->E + 6 * i, *e2 = e1 + 3;
    for (int k = 0; k < 3; ++k) u[k] = c[0] * e1[k] + c[1] * e2[k];
}

/* The start: the C² cubic spline of R³ through the knots (second derivatives M_i by the
 * tridiagonal system of the spline; natural or clamped ends as the plan's), its velocity,
 * acceleration and third derivative at the knots projected onto the tangent planes. */
static sp_status spline_start(round_solver *e)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    const int K = e->K, n = K + 1;
    const sp_problem *pb = e->pb;
    double *sub = malloc((size_t)n * sizeof *sub), *diag = malloc((size_t)n * sizeof *diag);
    double *sup = malloc((size_t)n * sizeof *sup), *M = malloc((size_t)n * 3 * sizeof *M);
    if (!sub || !diag || !sup || !M) {
        free(sub), free(diag), free(sup), free(M);
        return SP_ERR_NOMEM;
    }
    const double *P = e->Y, *t = e->tk;
    for (int i = 0; i < n; ++i) {
        sub[i] = sup[i] = 0.0, diag[i] = 1.0;
        for (int k = 0; k < 3; ++k) M[3 * i + k] = 0.0;
        if (i > 0 && i < K) {
            const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
            sub[i] = h0, diag[i] = 2.0 * (h0 + h1), sup[i] = h1;
            for (int k = 0; k < 3; ++k)
                M[3 * i + k] =
                    6.0 * ((P[3 * (i + 1) + k] - P[3 * i + k]) / h1 - (P[3 * i + k] - P[3 * (i - 1) + k]) / h0);
        }
    }
    if (!pb->plan.xi0_free) { /* clamped start: s'(0) = v0 */
        const double h = t[1] - t[0];
        diag[0] = 2.0 * h, sup[0] = h;
        for (int k = 0; k < 3; ++k) M[k] = 6.0 * ((P[3 + k] - P[k]) / h - e->start_v[k]);
    }
    if (pb->plan.has_xiT) { /* at rest at T: s'(T) = 0 */
        const double h = t[K] - t[K - 1];
        sub[K] = h, diag[K] = 2.0 * h;
        for (int k = 0; k < 3; ++k) M[3 * K + k] = 6.0 * (0.0 - (P[3 * K + k] - P[3 * (K - 1) + k]) / h);
    }
    /* Thomas's algorithm (the matrix is diagonally dominant) */
    for (int i = 1; i < n; ++i) {
        const double f = sub[i] / diag[i - 1];
        diag[i] -= f * sup[i - 1];
        for (int k = 0; k < 3; ++k) M[3 * i + k] -= f * M[3 * (i - 1) + k];
    }
    for (int i = n - 1; i >= 0; --i)
        for (int k = 0; k < 3; ++k)
            M[3 * i + k] = (M[3 * i + k] - (i + 1 < n ? sup[i] * M[3 * (i + 1) + k] : 0.0)) / diag[i];
    for (int i = 0; i <= K; ++i) {
        double v[3], a[3], j[3];
        for (int k = 0; k < 3; ++k) {
            if (i < K) {
                const double h = t[i + 1] - t[i];
                v[k] = (P[3 * (i + 1) + k] - P[3 * i + k]) / h - h * (2.0 * M[3 * i + k] + M[3 * (i + 1) + k]) / 6.0;
                j[k] = (M[3 * (i + 1) + k] - M[3 * i + k]) / h;
            } else {
                const double h = t[K] - t[K - 1];
                v[k] = (P[3 * K + k] - P[3 * (K - 1) + k]) / h + h * (M[3 * (K - 1) + k] + 2.0 * M[3 * K + k]) / 6.0;
            }
            a[k] = M[3 * i + k];
        }
        to_basis(e, i, v, e->w + NW * i);
        to_basis(e, i, a, e->w + NW * i + 2);
        if (i < K) to_basis(e, i, j, e->mu + NG * i);
    }
    free(sub), free(diag), free(sup), free(M);
    e->times.start += sp_clock_seconds() - t0;
    return SP_OK;
}


/* The embedded state leaving knot i (cost 0). */
static void knot_state(const round_solver *e, const double *w, const double *mu, int i, double *x)
{
    memset(x, 0, SP_RS_PLAIN * sizeof *x);
    sp_vec_copy(3, e->Y + 3 * i, x + SP_RS_Y);
    from_basis(e, i, w + NW * i, x + SP_RS_V);
    from_basis(e, i, w + NW * i + 2, x + SP_RS_A);
    if (mu) from_basis(e, i, mu + NG * i, x + SP_RS_J);
}

/* Inverts the 2 x 2 matrix A in place; -1 if singular. */
static int invert2(double *A)
{
    const double d = A[0] * A[3] - A[1] * A[2];
    if (!(fabs(d) > 0.0) || !isfinite(d)) return -1;
    const double a = A[0];
    A[0] = A[3] / d, A[1] = -A[1] / d, A[2] = -A[2] / d, A[3] = a / d;
    return 0;
}

typedef struct sweep_job {
    round_solver *e;
    const int *steps;
    const double *w, *mu;
    int linearise;
    double *nodes; /* NX per node, or NULL */
} sweep_job;

static sp_status sweep_segment(const sweep_job *job, int i)
{
    round_solver *e = job->e;
    const int linearise = job->linearise;
    double x[SP_RS_PLAIN], dx[COLS * NX];
    knot_state(e, job->w, job->mu, i, x);
    if (linearise) {
        /* columns: δv (2), δa (2) of w_i, then δj (2) of μ_i, each along a basis vector */
        memset(dx, 0, sizeof dx);
        const double *E = e->E + 6 * i;
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k) {
                dx[c * NX + SP_RS_V + k] = E[3 * c + k];
                dx[(2 + c) * NX + SP_RS_A + k] = E[3 * c + k];
                dx[(4 + c) * NX + SP_RS_J + k] = E[3 * c + k];
            }
    }
    const int steps = job->steps[i];
    const double h = (e->tk[i + 1] - e->tk[i]) / steps;
    double *node = job->nodes ? job->nodes + NX * e->first_node[i] : NULL;
    for (int k = 0; k < steps; ++k) {
        if (node) memcpy(node, x, NX * sizeof *x), node += NX;
        sp_status st = sp_round_sphere_step(&e->rk, h, x, x, 0, linearise ? COLS : 0, dx);
        if (st != SP_OK) return st;
    }
    memcpy(e->xend + (size_t)NX * i, x, NX * sizeof *x);
    double *r = e->r + (size_t)(NG + NW) * i, d[3];
    const double *w1 = job->w + NW * (i + 1);
    for (int k = 0; k < 3; ++k) d[k] = x[SP_RS_Y + k] - e->Y[3 * (i + 1) + k];
    to_basis(e, i + 1, d, r);
    to_basis(e, i + 1, x + SP_RS_V, r + NG);
    to_basis(e, i + 1, x + SP_RS_A, r + NG + 2);
    double worst = 0.0;
    for (int k = 0; k < NW; ++k) r[NG + k] -= w1[k];
    /* the tangential part of the mismatch: its normal part is the step's drift off the
     * sphere (its local error, which the error estimate measures), not a condition */
    worst = fmax(worst, fmax(fabs(r[0]), fabs(r[1])));
    for (int k = 0; k < NW; ++k) worst = fmax(worst, fabs(r[NG + k]) / fmax(1.0, fabs(w1[k])));
    e->seg_run[i] = x[SP_RS_COST], e->seg_worst[i] = worst;
    if (!linearise) return SP_OK;
    segment *sg = &e->seg[i];
    const double *E1 = e->E + 6 * (i + 1);
    double A[NG * COLS], Bw[NW * NW];
    for (int c = 0; c < COLS; ++c) {
        const double *col = dx + c * NX;
        for (int a = 0; a < NG; ++a) A[a * COLS + c] = dot3(E1 + 3 * a, col + SP_RS_Y);
        for (int a = 0; a < NW; ++a) {
            const double s = dot3(E1 + 3 * (a % 2), col + (a < 2 ? SP_RS_V : SP_RS_A));
            if (c < NW)
                Bw[a * NW + c] = s;
            else
                sg->Bmu[a * NG + (c - NW)] = s;
        }
    }
    for (int a = 0; a < NG; ++a) {
        for (int c = 0; c < NW; ++c) sg->Aw[a * NW + c] = A[a * COLS + c];
        for (int c = 0; c < NG; ++c) sg->Ainv[a * NG + c] = A[a * COLS + NW + c];
    }
    if (invert2(sg->Ainv) != 0) return SP_ERR_SINGULAR;
    /* Φ = B_w − B_μ Ainv Aw; rows NG + NW·i …: −Φ δw_i + δw_{i+1} */
    double Y[NG * NW];
    sp_mat_mul(NG, NG, NW, sg->Ainv, sg->Aw, Y);
    const int row = NG + NW * i;
    for (int a = 0; a < NW; ++a) {
        for (int c = 0; c < NW; ++c) {
            double s = Bw[a * NW + c];
            for (int q = 0; q < NG; ++q) s -= sg->Bmu[a * NG + q] * Y[q * NW + c];
            sp_band_add(e->band, row + a, NW * i + c, -s);
        }
        sp_band_add(e->band, row + a, NW * (i + 1) + a, 1.0);
    }
    return SP_OK;
}

static sp_status sweep_piece(void *ctx, int begin, int end, int worker)
{
    (void)worker; /* the stepper is a table read by every thread */
    const sweep_job *job = ctx;
    for (int i = begin; i < end; ++i) {
        sp_status st = sweep_segment(job, i);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The start and end rows: their residual (what the plan sets to zero) and columns. */
static double start_residual(const round_solver *e, const double *w, int k)
{
    double c[2];
    to_basis(e, 0, e->start_v, c);
    return e->pb->plan.xi0_free ? w[2 + k] : w[k] - c[k];
}
static int start_column(const round_solver *e, int k) { return e->pb->plan.xi0_free ? 2 + k : k; }
static double end_residual(const round_solver *e, const double *w, int k)
{
    return w[NW * e->K + (e->pb->plan.has_xiT ? k : 2 + k)];
}
static int end_column(const round_solver *e, int k) { return NW * e->K + (e->pb->plan.has_xiT ? k : 2 + k); }

/* One sweep over every segment from (w, μ): the residuals, the largest scaled one, the
 * cost; with `linearise` the condensed band (unfactored) and the segments' blocks. */
/* LU of the condensed band, its time counted in e->times. */
static sp_status factor(round_solver *e)
{
    const double t0 = sp_clock_seconds();
    sp_status st = sp_band_factor(e->band);
    e->jacobians++;
    e->times.linear_algebra += sp_clock_seconds() - t0;
    return st;
}

static sp_status sweep(round_solver *e, const int *steps, const double *w, const double *mu, int linearise,
                       double *scaled, double *cost, double *nodes)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    if (linearise) sp_band_zero(e->band);
    e->first_node[0] = 0;
    for (int i = 0; i < e->K; ++i) e->first_node[i + 1] = e->first_node[i] + (size_t)steps[i];
    for (int i = 0; i < e->K; ++i) e->cost[i] = steps[i] * (linearise ? 6 : 1);
    sweep_job job = {.e = e, .steps = steps, .w = w, .mu = mu, .linearise = linearise, .nodes = nodes};
    sp_status st = sp_parallel_run(e->workers, e->K, e->cost, sweep_piece, &job);
    e->sweeps++;
    if (st != SP_OK) return st;
    double worst = 0.0, run = 0.0;
    for (int i = 0; i < e->K; ++i) run += e->seg_run[i], worst = fmax(worst, e->seg_worst[i]);
    if (nodes) {
        double x[SP_RS_PLAIN];
        knot_state(e, w, NULL, e->K, x);
        memcpy(nodes + NX * e->first_node[e->K], x, NX * sizeof *x);
    }
    for (int k = 0; k < NG; ++k) {
        worst = fmax(worst, fmax(fabs(start_residual(e, w, k)), fabs(end_residual(e, w, k))));
        if (linearise) {
            sp_band_add(e->band, k, start_column(e, k), 1.0);
            sp_band_add(e->band, NG + NW * e->K + k, end_column(e, k), 1.0);
        }
    }
    *scaled = worst, *cost = run;
    *(linearise ? &e->times.derivative_sweeps : &e->times.plain_sweeps) += sp_clock_seconds() - t0;
    return isfinite(run) && isfinite(worst) ? SP_OK : SP_ERR_NONFINITE;
}


/* The correction (δw, δμ) from the kept factors and the residuals of the last sweep. */
static sp_status correction(round_solver *e)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    const int K = e->K;
    for (int k = 0; k < NG; ++k) {
        e->rhs[k] = -start_residual(e, e->w, k);
        e->rhs[NG + NW * K + k] = -end_residual(e, e->w, k);
    }
    for (int i = 0; i < K; ++i) {
        const segment *sg = &e->seg[i];
        const double *r = e->r + (size_t)(NG + NW) * i;
        double y[NG];
        sp_mat_vec(NG, NG, sg->Ainv, r, y);
        for (int a = 0; a < NW; ++a) {
            double s = r[NG + a];
            for (int q = 0; q < NG; ++q) s -= sg->Bmu[a * NG + q] * y[q];
            e->rhs[NG + NW * i + a] = s;
        }
    }
    memcpy(e->dw, e->rhs, (size_t)NW * (K + 1) * sizeof *e->dw);
    sp_status st = sp_band_solve(e->band, e->dw);
    if (st != SP_OK) return st;
    for (int i = 0; i < K; ++i) {
        const segment *sg = &e->seg[i];
        const double *r = e->r + (size_t)(NG + NW) * i;
        double v[NG], y[NG];
        sp_mat_vec(NG, NW, sg->Aw, e->dw + NW * i, v);
        for (int k = 0; k < NG; ++k) v[k] += r[k];
        sp_mat_vec(NG, NG, sg->Ainv, v, y);
        for (int k = 0; k < NG; ++k) e->dmu[NG * i + k] = -y[k];
    }
    e->times.linear_algebra += sp_clock_seconds() - t0;
    return SP_OK;
}


/* Newton on `steps` from the current (w, μ), the factors refreshed at the start and when
 * a step contracts the residual by less than 4; a step that does not reduce the residual
 * is retried with fresh factors, then halved. *converged when the scaled residual reaches
 * tol. */
static sp_status newton(round_solver *e, const int *steps, double tol, const sp_progress *progress, int *converged,
                        double *residual, double *cost)
{
    const int max_iterations = e->pb->plan.max_iterations > 0 ? e->pb->plan.max_iterations : 40;
    const size_t nw = (size_t)NW * (e->K + 1), nm = (size_t)NG * e->K;
    *converged = 0;
    double res;
    sp_status st = sweep(e, steps, e->w, e->mu, 1, &res, cost, NULL);
    if (st == SP_OK) st = factor(e);
    int fresh = 1;
    for (int it = 0; st == SP_OK && it < max_iterations; ++it) {
        if (res <= tol) {
            *converged = 1;
            break;
        }
        if (sp_progress_stopped(progress)) return SP_ERR_INTERRUPTED;
        st = correction(e);
        if (st != SP_OK) break;
        memcpy(e->w_old, e->w, nw * sizeof *e->w), memcpy(e->mu_old, e->mu, nm * sizeof *e->mu);
        double lambda = 1.0, next = HUGE_VAL, next_cost = HUGE_VAL;
        for (;;) {
            for (size_t k = 0; k < nw; ++k) e->w[k] = e->w_old[k] + lambda * e->dw[k];
            for (size_t k = 0; k < nm; ++k) e->mu[k] = e->mu_old[k] + lambda * e->dmu[k];
            sp_status s = sweep(e, steps, e->w, e->mu, 0, &next, &next_cost, NULL);
            if (s == SP_ERR_INTERRUPTED || s == SP_ERR_NOMEM) return s;
            if (s == SP_OK && next < res) break;
            memcpy(e->w, e->w_old, nw * sizeof *e->w), memcpy(e->mu, e->mu_old, nm * sizeof *e->mu);
            if (!fresh) {
                /* the kept factors misled: fresh ones at this point, and the full step again */
                st = sweep(e, steps, e->w, e->mu, 1, &res, cost, NULL);
                if (st == SP_OK) st = factor(e);
                if (st == SP_OK) st = correction(e);
                if (st != SP_OK) break;
                fresh = 1, lambda = 1.0;
                continue;
            }
            lambda *= 0.5;
            if (lambda < 1.0 / 1024) {
                st = SP_ERR_NO_CONVERGENCE;
                break;
            }
        }
        if (st != SP_OK) break;
        e->iterations++;
        const double previous = res;
        res = next, *cost = next_cost;
        fresh = 0;
        if (res > tol && !(res < 0.25 * previous)) {
            /* slow: factors at the new point (this sweep also leaves its residuals) */
            st = sweep(e, steps, e->w, e->mu, 1, &res, cost, NULL);
            if (st == SP_OK) st = factor(e);
            fresh = 1;
        }
    }
    *residual = res;
    if (st == SP_ERR_NO_CONVERGENCE || st == SP_ERR_NONFINITE || st == SP_ERR_SINGULAR) st = SP_OK, *converged = 0;
    return st;
}

/* The angle between two unit vectors, accurate for small ones. */
static double angle(const double *a, const double *b)
{
    double c[3];
    sp_cross(a, b, c);
    return atan2(sp_vec_norm(3, c), dot3(a, b));
}

typedef struct distance_job {
    round_solver *e;
    const int *coarse;
    const double *wc, *muc, *fine_nodes;
    double *dist;
} distance_job;

static sp_status distance_piece(void *ctx, int begin, int end, int worker)
{
    (void)worker;
    const distance_job *job = ctx;
    round_solver *e = job->e;
    for (int i = begin; i < end; ++i) {
        double xc[SP_RS_PLAIN], xh[SP_RS_PLAIN];
        knot_state(e, job->wc, job->muc, i, xc);
        const int steps = job->coarse[i];
        const double hc = (e->tk[i + 1] - e->tk[i]) / steps;
        const double *fine = job->fine_nodes + (size_t)NX * 2 * e->first_node[i];
        double d = 0.0;
        for (int j = 0; j < steps; ++j) {
            sp_status st = sp_round_sphere_step(&e->rk, hc / 2, xc, xh, 0, 0, NULL);
            if (st == SP_OK) d = fmax(d, angle(xh + SP_RS_Y, fine + NX * (2 * (size_t)j + 1) + SP_RS_Y));
            if (st == SP_OK && j + 1 < steps) {
                st = sp_round_sphere_step(&e->rk, hc, xc, xc, 0, 0, NULL);
                if (st == SP_OK) d = fmax(d, angle(xc + SP_RS_Y, fine + NX * (2 * (size_t)j + 2) + SP_RS_Y));
            }
            if (st != SP_OK) return st;
        }
        job->dist[i] = d;
    }
    return SP_OK;
}

/* Per segment, the largest angle between the curve of (wc, μc) on `coarse` and the nodes
 * of the solution on twice as many steps (its midpoints reached by half steps). */
static sp_status distance(round_solver *e, const int *coarse, const double *wc, const double *muc,
                          const double *fine_nodes, double *dist)
{
    e->first_node[0] = 0;
    for (int i = 0; i < e->K; ++i) e->first_node[i + 1] = e->first_node[i] + (size_t)coarse[i];
    for (int i = 0; i < e->K; ++i) e->cost[i] = coarse[i];
    distance_job job = {.e = e, .coarse = coarse, .wc = wc, .muc = muc, .fine_nodes = fine_nodes, .dist = dist};
    return sp_parallel_run(e->workers, e->K, e->cost, distance_piece, &job);
}

void sp_round_from_lift(const double *y0, const sp_hohp_state *z, double *x)
{
    /* y = g y0, ẏ = g (ξ × y0), ∇ₜẏ = g (π × y0), and y × j = −g ν, so j = (y × j) × y */
    double u[3], yj[3];
    memset(x, 0, SP_RS_DIM * sizeof *x);
    sp_mat_vec(3, 3, z->g, y0, x + SP_RS_Y);
    sp_cross(z->xi, y0, u);
    sp_mat_vec(3, 3, z->g, u, x + SP_RS_V);
    sp_cross(z->p, y0, u);
    sp_mat_vec(3, 3, z->g, u, x + SP_RS_A);
    sp_mat_vec(3, 3, z->g, z->nu, yj);
    for (int k = 0; k < 3; ++k) yj[k] = -yj[k];
    sp_cross(yj, x + SP_RS_Y, x + SP_RS_J);
    sp_vec_copy(9, z->g, x + SP_RS_G);
}

/* The rotation by the smallest angle taking the unit vector a to b, applied to g from the
 * left: the lift, carried across a segment by the integrator, is put back onto the knot
 * exactly (g y0 = y_i), a correction of the order of the integration error. */
static void align(const double *a, const double *b, double *g)
{
    double k[3], R[9], out[9];
    sp_cross(a, b, k);
    /* sine and cosine of the angle (a and b need not be unit vectors: R must be a rotation) */
    const double ab = sp_vec_norm(3, a) * sp_vec_norm(3, b);
    const double s = sp_vec_norm(3, k) / ab, c = dot3(a, b) / ab;
    if (!(s > 0.0)) return;
    for (int q = 0; q < 3; ++q) k[q] /= s * ab;
    const double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    double K2[9];
    sp_mat_mul(3, 3, 3, K, K, K2);
    for (int q = 0; q < 9; ++q) R[q] = (q % 4 == 0 ? 1.0 : 0.0) + s * K[q] + (1.0 - c) * K2[q];
    sp_mat_mul(3, 3, 3, R, g, out);
    memcpy(g, out, sizeof out);
}

void sp_round_to_lift(const double *y0, const double *x, sp_hohp_state *z)
{
    /* The step keeps g orthogonal and g y0 = y only to its local error: g is put back on
     * SO(3) (Gram–Schmidt on its rows) and turned onto the unit point, so that every node and
     * sample is a rotation and lies on the sphere. Then ξ = gᵀ(y × v), π = ξ̇ = gᵀ(y × a),
     * ν = −ξ̈ = −gᵀ(y × j): ξ̈ = gᵀ(v × a + y × j) − ξ × π, and v × a (normal, ∥ y) equals
     * g(ξ × π). The cross products drop the normal parts of v, a, j. */
    double y[3], g[9], gy[3], u[3];
    const double n = sp_vec_norm(3, x + SP_RS_Y);
    for (int k = 0; k < 3; ++k) y[k] = x[SP_RS_Y + k] / n;
    sp_vec_copy(9, x + SP_RS_G, g);
    for (int r = 0; r < 2; ++r) {
        double *row = g + 3 * r;
        for (int q = 0; q < r; ++q) {
            const double c = dot3(row, g + 3 * q);
            for (int k = 0; k < 3; ++k) row[k] -= c * g[3 * q + k];
        }
        const double s = sp_vec_norm(3, row);
        for (int k = 0; k < 3; ++k) row[k] /= s;
    }
    sp_cross(g, g + 3, g + 6);
    sp_mat_vec(3, 3, g, y0, gy);
    align(gy, y, g);
    memset(z, 0, sizeof *z);
    sp_vec_copy(9, g, z->g);
    sp_cross(y, x + SP_RS_V, u);
    sp_mat_tvec(3, 3, g, u, z->xi);
    sp_cross(y, x + SP_RS_A, u);
    sp_mat_tvec(3, 3, g, u, z->p);
    sp_cross(y, x + SP_RS_J, u);
    sp_mat_tvec(3, 3, g, u, z->nu);
    for (int k = 0; k < 3; ++k) z->nu[k] = -z->nu[k];
}

/* The returned grid as lift states: one serial sweep that carries g from g0 (the lift
 * depends on the whole curve before), each segment started from its knot state. */
static sp_status export_solution(round_solver *e, const int *steps, sp_round_solution *out)
{
    const int K = e->K;
    const sp_problem *pb = e->pb;
    size_t count = 1;
    for (int i = 0; i < K; ++i) count += (size_t)steps[i];
    out->nodes = malloc(count * sizeof *out->nodes);
    out->t = malloc(count * sizeof *out->t);
    out->kicks = malloc((size_t)K * 3 * sizeof *out->kicks);
    out->segment_steps = malloc((size_t)K * sizeof *out->segment_steps);
    out->target_node = malloc((size_t)K * sizeof *out->target_node);
    if (!out->nodes || !out->t || !out->kicks || !out->segment_steps || !out->target_node) return SP_ERR_NOMEM;
    out->node_count = (int)count;
    memcpy(out->segment_steps, steps, (size_t)K * sizeof *steps);
    double x[SP_RS_DIM], g[9];
    sp_vec_copy(9, pb->g0, g);
    size_t node = 0;
    for (int i = 0; i <= K; ++i) {
        double y_lift[3];
        knot_state(e, e->w, i < K ? e->mu : NULL, i, x);
        sp_mat_vec(3, 3, g, pb->cubic.y0, y_lift);
        align(y_lift, x + SP_RS_Y, g);
        sp_vec_copy(9, g, x + SP_RS_G);
        if (i > 0) {
            /* the jump of ν = −gᵀ(y × j): the multiplier of keyframe i */
            double dj[3], u[3], *kick = out->kicks + 3 * (i - 1);
            for (int k = 0; k < 3; ++k) dj[k] = x[SP_RS_J + k] - e->xend[(size_t)NX * (i - 1) + SP_RS_J + k];
            sp_cross(x + SP_RS_Y, dj, u);
            sp_mat_tvec(3, 3, g, u, kick);
            for (int k = 0; k < 3; ++k) kick[k] = -kick[k];
            out->target_node[i - 1] = (int)node;
        }
        if (i == K) {
            out->t[node] = e->tk[K];
            sp_round_to_lift(pb->cubic.y0, x, &out->nodes[node]);
            sp_vec_copy(3, x + SP_RS_V, out->end_velocity);
            memset(out->terminal, 0, sizeof out->terminal);
            sp_vec_copy(3, pb->plan.has_xiT ? out->nodes[node].xi : out->nodes[node].p, out->terminal + 3);
            break;
        }
        if (i == 0) sp_vec_copy(3, x + SP_RS_V, out->start_velocity);
        const double h = (e->tk[i + 1] - e->tk[i]) / steps[i];
        for (int k = 0; k < steps[i]; ++k) {
            out->t[node] = e->tk[i] + k * h;
            /* carry on from the lift put back on SO(3), so that the step's drift does not add up */
            sp_round_to_lift(pb->cubic.y0, x, &out->nodes[node]);
            sp_vec_copy(9, out->nodes[node++].g, x + SP_RS_G);
            sp_status st = sp_round_sphere_step(&e->rk, h, x, x, 1, 0, NULL);
            if (st != SP_OK) return st;
        }
        sp_vec_copy(9, x + SP_RS_G, g);
    }
    return SP_OK;
}

/* First steps per segment: about one per radian between keyframes at accuracy 1e-6,
 * scaled by (accuracy/1e-6)^(1/8); the refinement does the rest. */
static void first_steps(const round_solver *e, double accuracy, int *steps)
{
    const double step = pow(accuracy / 1e-6, 1.0 / 8.0);
    for (int i = 0; i < e->K; ++i)
        steps[i] = (int)fmin(64.0, fmax(1.0, ceil(angle(e->Y + 3 * i, e->Y + 3 * (i + 1)) / step)));
}

sp_status sp_round_solve(const sp_problem *pb, const sp_progress *progress, sp_round_solution *out)
{
    memset(out, 0, sizeof *out);
    out->error_estimate = HUGE_VAL;
    round_solver e;
    sp_status st = round_init(&e, pb);
    if (st != SP_OK) return st;
    const size_t K = (size_t)e.K, nw = (size_t)NW * (K + 1), nm = (size_t)NG * K;
    const double tol = pb->plan.tolerance > 0.0 ? pb->plan.tolerance : 1e-10;
    const double accuracy = pb->plan.accuracy > 0.0 ? pb->plan.accuracy : 1e-6;
    const int p = 8;
    /* The distance between the coarser and the finer curve over `ratio` estimates the
     * finer's error. Richardson's factor for order 8 would be 2^8 − 1 and exact.c takes 2^6;
     * here, at the one to three steps per segment the accuracy asks for, the error is not
     * yet in its asymptotic regime, and on random walks the distance over 2^6 fell short
     * of the true error (against a run 100 times as accurate) by up to 1.5 times: 2^4 keeps
     * it above (about 1.2 times the steps). */
    const double ratio = ldexp(1.0, p - 4);
    /* as in exact.c: the coarser solution serves as the finer one's start and the estimate's
     * reference, which compares curves some ratio·accuracy apart */
    const double coarse_tol = fmax(tol, 0.05 * accuracy * ratio);
    int *coarse = malloc(K * sizeof *coarse), *fine = malloc(K * sizeof *fine);
    double *wc = malloc(nw * sizeof *wc), *muc = malloc(nm * sizeof *muc), *dist = malloc(K * sizeof *dist);
    double *fine_nodes = NULL;
    if (!coarse || !fine || !wc || !muc || !dist) st = SP_ERR_NOMEM;
    if (st == SP_OK) st = spline_start(&e);
    int converged = 0;
    double residual = HUGE_VAL, cost = HUGE_VAL;
    if (st == SP_OK) {
        first_steps(&e, accuracy, coarse);
        st = newton(&e, coarse, coarse_tol, progress, &converged, &residual, &cost);
    }
    for (int round = 0; st == SP_OK && converged && round < 6; ++round) {
        out->rounds++;
        size_t count = 1;
        for (size_t i = 0; i < K; ++i) fine[i] = 2 * coarse[i], count += (size_t)fine[i];
        free(fine_nodes);
        fine_nodes = malloc(count * NX * sizeof *fine_nodes);
        if (!fine_nodes) {
            st = SP_ERR_NOMEM;
            break;
        }
        memcpy(wc, e.w, nw * sizeof *wc), memcpy(muc, e.mu, nm * sizeof *muc);
        st = newton(&e, fine, tol, progress, &converged, &residual, &cost);
        double scaled;
        if (st == SP_OK && converged) st = sweep(&e, fine, e.w, e.mu, 0, &scaled, &cost, fine_nodes);
        if (st == SP_OK && converged) st = distance(&e, coarse, wc, muc, fine_nodes, dist);
        if (st != SP_OK || !converged) break;
        double worst = 0.0;
        for (size_t i = 0; i < K; ++i) worst = fmax(worst, dist[i]);
        out->error_estimate = worst / ratio;
        if (out->error_estimate <= accuracy) break;
        for (size_t i = 0; i < K; ++i) {
            const double est = dist[i] / ratio;
            coarse[i] = est > accuracy ? (int)ceil(fine[i] * 0.55 * pow(est / accuracy, 1.0 / p)) : fine[i] / 2;
            coarse[i] = coarse[i] < 1                               ? 1
                        : coarse[i] > SP_PLAN_MAX_SEGMENT_STEPS / 2 ? SP_PLAN_MAX_SEGMENT_STEPS / 2
                                                                    : coarse[i];
        }
        st = newton(&e, coarse, coarse_tol, progress, &converged, &residual, &cost);
    }
    out->converged = converged && out->error_estimate < HUGE_VAL;
    out->residual = residual, out->cost = cost;
    /* the last sweep was at this solution on `fine`: its segment ends are the ones exported */
    if (st == SP_OK && out->converged) st = export_solution(&e, fine, out);
    out->iterations = e.iterations, out->jacobians = e.jacobians, out->sweeps = e.sweeps, out->times = e.times;
    free(coarse), free(fine), free(wc), free(muc), free(dist), free(fine_nodes);
    round_free(&e);
    return st;
}

void sp_round_solution_free(sp_round_solution *s)
{
    if (!s) return;
    free(s->segment_steps), free(s->target_node), free(s->t), free(s->nodes), free(s->kicks);
    memset(s, 0, sizeof *s);
}
