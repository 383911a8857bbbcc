/* make bench, part index1: the Gauss–Legendre index-1 scheme (integrators/sp_index1.h) on
 * the vakonomic models of problems/vakonomic/sp_vak_models.h.
 *
 *  1. Cost per step for s = 1 … 6 on the Heisenberg data (h = 0.1) and on the vehicle
 *     data of Fig. 3 of McLachlan, Modin, Verdier & Wilkins (2013) (V = 0 and
 *     V = −cos r): microseconds, updates (Newton iterations and fixed-point sweeps),
 *     sweeps and LU factorisations per step for each stage solver (sp_index1_solver):
 *     full Newton from (q0, p0, λ(q0, p0)) at every step (the default), the predictor with
 *     simplified Newton, the predictor with the fixed point, and auto.
 *  2. Work-precision on Heisenberg, T = 10: error at T against a Gauss s = 6 reference,
 *     max |ΔĤ|, and the time of each predictive solver for each s = 1 … 6 and h, with
 *     classical RK4 on the eliminated ODE (λ(q, p) substituted) as the non-geometric
 *     baseline; then the time each method needs for a given accuracy, Gauss with the
 *     fastest of its solvers at each step size.
 *  3. Long run, T = 1000, h = 0.1 (auto): the energy error of the symplectic scheme stays
 *     put, RK4's grows.
 * Times are the best of several repeats (clock_gettime, CLOCK_MONOTONIC). No verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "integrators/sp_index1.h"
#include "lie/sp_linalg.h"
#include "problems/vakonomic/sp_vak_models.h"

#define NMAX SP_VAK_MAX_N
#define MMAX SP_VAK_MAX_M
#define REPEATS 7
#define MIN_BATCH 0.02 /* seconds: shorter batches are repeated more often */

/* A model bound to its parameters, with its initial state. Initialised in place (the
 * bound model points into the struct). */
typedef struct bench_model {
    const char *name;
    sp_param_values prm;
    double mass[NMAX];
    sp_vakonomic_model model;
    double q0[NMAX], p0[NMAX];
    double h; /* the step used for it */
} bench_model;

static void bind(bench_model *b, const char *name, const sp_vak_model_type *type, int potential, const double *q0,
                 const double *p0, double h)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    sp_params_default(SP_PARAM_SPEC(type), &b->prm);
    b->prm.potential = potential;
    sp_vak_model_bind(type, &b->prm, b->mass, &b->model);
    sp_vec_copy(type->n, q0, b->q0);
    sp_vec_copy(type->n, p0, b->p0);
    b->h = h;
}

static sp_index1 *gauss_with(const sp_vakonomic_model *model, int s, sp_index1_solver solver)
{
    sp_tableau t;
    if (sp_tableau_get("gauss", s, &t) != SP_OK) return NULL;
    sp_index1 *st = sp_index1_alloc(model, &t);
    if (st) sp_index1_set_solver(st, solver);
    return st;
}

/* The stage solvers, in the order of sp_index1_solver. */
#define SOLVERS 4
static const char *const solver_names[SOLVERS] = {"newton", "simplified", "fixed_point", "auto"};

/* ------------------------------------------------------------ one run -- */

typedef enum { METHOD_GAUSS, METHOD_RK4 } method;

typedef struct run_spec {
    method kind;
    bench_model *b;
    sp_index1 *st;          /* METHOD_GAUSS */
    sp_vakonomic_point *pt; /* λ(q, p), the RK4 field and Ĥ */
    double h;
    int N;
    int monitor; /* track max |ΔĤ| (not while timing) */
    /* what a run leaves */
    sp_status status;
    double z[2 * NMAX];
    double dH, dH_at[3]; /* max |ΔĤ| overall and up to t_mark[k] */
    double t_mark[3];
    long iterations, sweeps, factorizations;
} run_spec;

/* ẏ = (v, −H_q) at λ = λ(q, p) */
static sp_status eliminated_field(const sp_vakonomic_model *m, sp_vakonomic_point *pt, const double *y, double *dy)
{
    const int n = m->n;
    double lam[MMAX] = {0};
    sp_status st = sp_vakonomic_multiplier(m, pt, y, y + n, lam);
    if (st == SP_OK) st = sp_vakonomic_eval(m, pt, y, y + n, lam, 0);
    if (st != SP_OK) return st;
    for (int i = 0; i < n; ++i) dy[i] = pt->v[i], dy[n + i] = -pt->Hq[i];
    return SP_OK;
}

static sp_status rk4_step(const sp_vakonomic_model *m, sp_vakonomic_point *pt, double h, double *y)
{
    const int d = 2 * m->n;
    double k1[2 * NMAX], k2[2 * NMAX], k3[2 * NMAX], k4[2 * NMAX], t[2 * NMAX];
    sp_status st = eliminated_field(m, pt, y, k1);
    for (int i = 0; i < d; ++i) t[i] = y[i] + 0.5 * h * k1[i];
    if (st == SP_OK) st = eliminated_field(m, pt, t, k2);
    for (int i = 0; i < d; ++i) t[i] = y[i] + 0.5 * h * k2[i];
    if (st == SP_OK) st = eliminated_field(m, pt, t, k3);
    for (int i = 0; i < d; ++i) t[i] = y[i] + h * k3[i];
    if (st == SP_OK) st = eliminated_field(m, pt, t, k4);
    if (st != SP_OK) return st;
    for (int i = 0; i < d; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    return SP_OK;
}

static double energy(run_spec *r, const double *z)
{
    double H = NAN;
    sp_vakonomic_hamiltonian(&r->b->model, r->pt, z, z + r->b->model.n, &H, NULL, NULL);
    return H;
}

static void run(void *ctx)
{
    run_spec *r = ctx;
    const int n = r->b->model.n;
    sp_vec_copy(n, r->b->q0, r->z);
    sp_vec_copy(n, r->b->p0, r->z + n);
    r->status = SP_OK;
    r->iterations = r->sweeps = r->factorizations = 0;
    r->dH = 0.0;
    for (int k = 0; k < 3; ++k) r->dH_at[k] = 0.0;
    const double H0 = r->monitor ? energy(r, r->z) : 0.0;
    for (int k = 1; k <= r->N && r->status == SP_OK; ++k) {
        if (r->kind == METHOD_GAUSS) {
            r->status = sp_index1_step(r->st, r->h, r->z, r->z + n, r->z, r->z + n, NULL);
            r->iterations += sp_index1_iterations(r->st);
            r->sweeps += sp_index1_sweeps(r->st);
            r->factorizations += sp_index1_factorizations(r->st);
        } else {
            r->status = rk4_step(&r->b->model, r->pt, r->h, r->z);
        }
        if (r->monitor) {
            const double e = fabs(energy(r, r->z) - H0);
            r->dH = fmax(r->dH, e);
            for (int j = 0; j < 3; ++j)
                if (k * r->h <= r->t_mark[j] * (1 + 1e-12)) r->dH_at[j] = fmax(r->dH_at[j], e);
        }
    }
}

/* ---------------------------------------------------- 1. cost per step -- */

static void cost_per_step(bench_model *models, int n_models)
{
    printf("\nindex-1 Gauss-Legendre (integrators/sp_index1.h): cost per step, 200 steps from the default data, "
           "best of %d;\nthe stage solvers (sp_index1_solver): full Newton from (q0, p0, lambda(q0, p0)) every step "
           "(the default), and from\nthe prediction simplified Newton, the fixed point, auto; it/step counts Newton "
           "iterations and fixed-point sweeps\n",
           REPEATS);
    printf("%-24s %5s %2s %8s %-12s %9s %8s %8s %8s %10s\n", "problem", "h", "s", "unknowns", "solver", "us/step",
           "it/step", "sweeps", "LU/step", "vs newton");
    for (int k = 0; k < n_models; ++k) {
        bench_model *b = &models[k];
        sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&b->model);
        for (int s = 1; s <= 6 && pt; ++s) {
            double t_newton = NAN;
            for (int v = 0; v < SOLVERS; ++v) {
                run_spec r = {.kind = METHOD_GAUSS,
                              .b = b,
                              .st = gauss_with(&b->model, s, (sp_index1_solver)v),
                              .pt = pt,
                              .h = b->h,
                              .N = 200};
                if (!r.st) {
                    printf("%-24s allocation failed\n", b->name);
                    continue;
                }
                const double t = bench_best_time(run, &r, REPEATS, MIN_BATCH) / r.N;
                if (v == 0) t_newton = t;
                if (r.status != SP_OK)
                    printf("%-24s %5.3g %2d %8s %-12s failed: %s\n", v ? "" : b->name, b->h, s, "",
                           solver_names[v], sp_status_name(r.status));
                else
                    printf("%-24s %5.3g %2d %8d %-12s %9.2f %8.2f %8.2f %8.2f %10.2f\n", v ? "" : b->name, b->h, s,
                           s * (2 * b->model.n + b->model.m), solver_names[v], 1e6 * t, (double)r.iterations / r.N,
                           (double)r.sweeps / r.N, (double)r.factorizations / r.N, t_newton / t);
                sp_index1_free(r.st);
            }
        }
        sp_vakonomic_point_free(pt);
    }
}

/* ------------------------------------------------- 2. work-precision -- */

/* Step sizes: Gauss runs the first WP_H_GAUSS, RK4 all (it needs the small ones for 1e-12). */
#define WP_H 10
#define WP_H_GAUSS 8
static const double wp_h[WP_H] = {0.5,       0.25,       0.125,       0.0625,       0.03125,
                                  0.015625,  0.0078125,  0.00390625,  0.001953125,  0.0009765625};
#define WP_STAGES 6
/* the predictive solvers timed in the work-precision table */
#define WP_SOLVERS 3
static const sp_index1_solver wp_solvers[WP_SOLVERS] = {SP_INDEX1_SIMPLIFIED_NEWTON, SP_INDEX1_FIXED_POINT,
                                                        SP_INDEX1_AUTO};

typedef struct wp_row {
    double err, dH;
    double seconds[WP_SOLVERS], iters[WP_SOLVERS], sweeps[WP_SOLVERS], lus[WP_SOLVERS];
    int fastest; /* index into wp_solvers */
    int ok;
} wp_row;

/* One run of method kind (Gauss with s stages: each predictive solver; RK4: once). */
static wp_row wp_measure(method kind, int s, bench_model *b, sp_vakonomic_point *pt, double T, double h,
                         const double *ref)
{
    wp_row row = {.ok = 1};
    const int solvers = kind == METHOD_GAUSS ? WP_SOLVERS : 1;
    for (int v = 0; v < solvers; ++v) {
        run_spec r = {.kind = kind, .b = b, .pt = pt, .h = h, .N = (int)lround(T / h), .t_mark = {T, T, T}};
        if (kind == METHOD_GAUSS && !(r.st = gauss_with(&b->model, s, wp_solvers[v]))) return (wp_row){0};
        row.seconds[v] = bench_best_time(run, &r, REPEATS, MIN_BATCH);
        row.ok &= r.status == SP_OK;
        row.iters[v] = (double)r.iterations / r.N;
        row.sweeps[v] = (double)r.sweeps / r.N;
        row.lus[v] = (double)r.factorizations / r.N;
        if (row.seconds[v] < row.seconds[row.fastest]) row.fastest = v;
        if (v == 0) { /* the solvers reach the same solution to the tolerance */
            row.err = bench_max_abs_diff(2 * b->model.n, r.z, ref);
            r.monitor = 1;
            run(&r);
            row.dH = r.dH;
        }
        sp_index1_free(r.st);
    }
    return row;
}

static void work_precision(bench_model *b)
{
    const double T = 10.0;
    const int n = b->model.n;
    sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&b->model);
    if (!pt) return;
    /* reference: Gauss s = 6 (order 12) at h = 0.01 by full Newton, checked against
     * h = 0.005 and against an independently computed DOP853 value (rtol 1e-13) */
    double ref[2 * NMAX], ref2[2 * NMAX];
    run_spec r = {
        .kind = METHOD_GAUSS, .b = b, .st = gauss_with(&b->model, 6, SP_INDEX1_NEWTON), .pt = pt, .h = 0.01, .N = 1000};
    if (!r.st) return;
    run(&r);
    sp_vec_copy(2 * n, r.z, ref);
    r.h = 0.005, r.N = 2000;
    run(&r);
    sp_vec_copy(2 * n, r.z, ref2);
    sp_index1_free(r.st);
    static const double dop853[6] = {-0.023095615819168702, -0.060105961675532761, 0.53011854676768477,
                                     0.11105841473973768,   0.28902770432074804,   1};
    printf("\nwork-precision, %s, T = %g; reference Gauss s=6 h=0.01 (|ref - ref(h/2)| = %.1e, |ref - independent "
           "DOP853| = %.1e)\n",
           b->name, T, bench_max_abs_diff(2 * n, ref, ref2), bench_max_abs_diff(2 * n, ref, dop853));
    printf("time [ms] of each predictive stage solver; it/step (Newton iterations and fixed-point sweeps), sweeps "
           "and LU/step of the fastest\n");
    printf("%-12s %10s %6s %10s %10s %9s %9s %9s %-11s %7s %6s %7s %6s\n", "method", "h", "steps", "error(T)",
           "max|dH|", "simplified", "fixed_pt", "auto", "fastest", "it/step", "sweeps", "LU/step", "order");
    enum { METHODS = WP_STAGES + 1 };
    wp_row rows[METHODS][WP_H];
    char names[METHODS][16];
    for (int m = 0; m < METHODS; ++m) {
        const int gauss = m < WP_STAGES;
        if (gauss)
            snprintf(names[m], sizeof names[m], "gauss s=%d", m + 1);
        else
            snprintf(names[m], sizeof names[m], "rk4 (elim.)");
        for (int k = 0; k < WP_H; ++k) {
            if (gauss && k >= WP_H_GAUSS) {
                rows[m][k] = (wp_row){0};
                continue;
            }
            rows[m][k] = wp_measure(gauss ? METHOD_GAUSS : METHOD_RK4, m + 1, b, pt, T, wp_h[k], ref);
            const wp_row *w = &rows[m][k];
            char order[16] = "";
            if (k && w->ok && rows[m][k - 1].ok && w->err > 0 && rows[m][k - 1].err > 0)
                snprintf(order, sizeof order, "%.2f", log2(rows[m][k - 1].err / w->err));
            if (!w->ok) {
                printf("%-12s %10.7g %6d   failed\n", names[m], wp_h[k], (int)lround(T / wp_h[k]));
                continue;
            }
            const int f = w->fastest;
            if (gauss)
                printf("%-12s %10.7g %6d %10.3e %10.3e %9.4f %9.4f %9.4f %-11s %7.2f %6.2f %7.2f %6s\n", names[m],
                       wp_h[k], (int)lround(T / wp_h[k]), w->err, w->dH, 1e3 * w->seconds[0], 1e3 * w->seconds[1],
                       1e3 * w->seconds[2], solver_names[wp_solvers[f]], w->iters[f], w->sweeps[f], w->lus[f], order);
            else
                printf("%-12s %10.7g %6d %10.3e %10.3e %9s %9s %9.4f %-11s %7s %6s %7s %6s\n", names[m], wp_h[k],
                       (int)lround(T / wp_h[k]), w->err, w->dH, "", "", 1e3 * w->seconds[0], "-", "-", "-", "-",
                       order);
        }
    }
    /* the cheapest run of each method reaching a given accuracy (Gauss: its fastest solver) */
    static const double targets[4] = {1e-3, 1e-6, 1e-9, 1e-12};
    printf("\ncheapest run reaching error(T) <= target: time in ms (ratio to the fastest method), h; Gauss with "
           "the fastest solver at that h\n");
    printf("%-8s", "target");
    for (int m = 0; m < METHODS; ++m) printf(" %21s", names[m]);
    printf("\n");
    for (int t = 0; t < 4; ++t) {
        double best[METHODS], best_h[METHODS], fastest = INFINITY;
        for (int m = 0; m < METHODS; ++m) {
            best[m] = INFINITY, best_h[m] = NAN;
            for (int k = 0; k < WP_H; ++k) {
                const wp_row *w = &rows[m][k];
                const double sec = w->seconds[w->fastest];
                if (w->ok && w->err <= targets[t] && sec < best[m]) best[m] = sec, best_h[m] = wp_h[k];
            }
            fastest = fmin(fastest, best[m]);
        }
        printf("%-8.0e", targets[t]);
        for (int m = 0; m < METHODS; ++m) {
            if (isinf(best[m]))
                printf(" %21s", "not reached");
            else
                printf(" %7.4f (x%4.1f) %-6.4g", 1e3 * best[m], best[m] / fastest, best_h[m]);
        }
        printf("\n");
    }
    sp_vakonomic_point_free(pt);
}

/* ------------------------------------------------------- 3. long run -- */

static void long_run(bench_model *b)
{
    const double T = 1000.0, h = 0.1;
    sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&b->model);
    if (!pt) return;
    printf("\nlong run, %s, T = %g, h = %g (Gauss: auto): max|dH| over [0, t]\n", b->name, T, h);
    printf("%-14s %12s %12s %12s %14s %12s\n", "method", "t = 10", "t = 100", "t = 1000", "1000 / 100", "time [ms]");
    const char *names[4] = {"gauss s=1", "gauss s=2", "gauss s=3", "rk4 (elim.)"};
    for (int m = 0; m < 4; ++m) {
        run_spec r = {.kind = m < 3 ? METHOD_GAUSS : METHOD_RK4,
                      .b = b,
                      .pt = pt,
                      .h = h,
                      .N = (int)lround(T / h),
                      .t_mark = {10, 100, 1000}};
        if (m < 3 && !(r.st = gauss_with(&b->model, m + 1, SP_INDEX1_AUTO))) break;
        const double t0 = bench_clock();
        r.monitor = 1;
        run(&r);
        const double dt = bench_clock() - t0;
        if (r.status != SP_OK)
            printf("%-14s failed: %s\n", names[m], sp_status_name(r.status));
        else
            printf("%-14s %12.3e %12.3e %12.3e %14.2f %12.1f\n", names[m], r.dH_at[0], r.dH_at[1], r.dH_at[2],
                   r.dH_at[2] / r.dH_at[1], 1e3 * dt);
        sp_index1_free(r.st);
    }
    printf("(ratio 1000/100 near 1: bounded energy error; near 10: linear drift)\n");
    sp_vakonomic_point_free(pt);
}

void bench_index1(void)
{
    static const double heis_q0[3] = {0, 0, 0}, heis_p0[3] = {0.1, 0.3, 1};
    static const double fig3_q0[4] = {0.3, 0, 0, 3.141592653589793}, fig3_p0[4] = {0, 0, 1.09, 1};
    bench_model models[3];
    bind(&models[0], "heisenberg", &sp_vak_heisenberg, 0, heis_q0, heis_p0, 0.1);
    bind(&models[1], "parking fig.3, V=0", &sp_vak_parking, 0, fig3_q0, fig3_p0, 0.05);
    bind(&models[2], "parking fig.3, V=-cos r", &sp_vak_parking, 1, fig3_q0, fig3_p0, 0.01);
    cost_per_step(models, 3);
    work_precision(&models[0]);
    long_run(&models[0]);
}
