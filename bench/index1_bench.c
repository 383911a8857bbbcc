/* make bench, part index1: the Gauss–Legendre index-1 scheme (integrators/sp_index1.h) on
 * the vakonomic models of problems/vakonomic/sp_vak_models.h.
 *
 *  1. Cost per step for s = 1, 2, 3 on the Heisenberg data (h = 0.1) and on the
 *     vehicle data of Fig. 3 of McLachlan, Modin, Verdier & Wilkins (2013) (V = 0 and
 *     V = −cos r): microseconds, Newton iterations and LU factorisations per step, for
 *     full Newton from (q0, p0, λ(q0, p0)) at every step (the default) and with the
 *     predictor + simplified Newton (sp_newton_options.warm_start). Sections 2 and 3 run
 *     the warm-started stepper.
 *  2. Work-precision on Heisenberg, T = 10: error at T against a Gauss s = 6 reference,
 *     wall time and max |ΔĤ| for each s and h, with classical RK4 on the eliminated ODE
 *     (λ(q, p) substituted) as the non-geometric baseline; then the time each method needs
 *     for a given accuracy.
 *  3. Long run, T = 1000, h = 0.1: the energy error of the symplectic scheme stays put,
 *     RK4's grows.
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

static sp_index1 *gauss_with(const sp_vakonomic_model *model, int s, int warm_start)
{
    sp_tableau t;
    if (sp_tableau_get("gauss", s, &t) != SP_OK) return NULL;
    sp_index1 *st = sp_index1_alloc(model, &t);
    sp_newton_options o = sp_newton_options_default();
    o.warm_start = warm_start;
    if (st) sp_index1_set_options(st, &o);
    return st;
}

/* The work-precision and long-run tables run the warm-started stepper. */
static sp_index1 *gauss(const sp_vakonomic_model *model, int s) { return gauss_with(model, s, 1); }

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
    long iterations, factorizations;
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
    r->iterations = r->factorizations = 0;
    r->dH = 0.0;
    for (int k = 0; k < 3; ++k) r->dH_at[k] = 0.0;
    const double H0 = r->monitor ? energy(r, r->z) : 0.0;
    for (int k = 1; k <= r->N && r->status == SP_OK; ++k) {
        if (r->kind == METHOD_GAUSS) {
            r->status = sp_index1_step(r->st, r->h, r->z, r->z + n, r->z, r->z + n, NULL);
            r->iterations += sp_index1_iterations(r->st);
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
           "best of %d;\nfull Newton from (q0, p0, lambda(q0, p0)) every step (before, the default) against the "
           "predictor + simplified Newton (now, sp_newton_options.warm_start)\n",
           REPEATS);
    printf("%-24s %6s %2s %8s | %9s %7s %7s | %9s %7s %7s | %7s\n", "problem", "h", "s", "unknowns", "us/step",
           "it/step", "LU/step", "us/step", "it/step", "LU/step", "speedup");
    printf("%-24s %6s %2s %8s | %25s | %25s |\n", "", "", "", "", "before (full Newton)", "now");
    for (int k = 0; k < n_models; ++k) {
        bench_model *b = &models[k];
        sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&b->model);
        for (int s = 1; s <= 3; ++s) {
            run_spec r[2];
            double t[2];
            int ok = pt != NULL;
            for (int v = 0; v < 2; ++v) {
                r[v] = (run_spec){.kind = METHOD_GAUSS, .b = b, .st = gauss_with(&b->model, s, v == 1), .pt = pt,
                                  .h = b->h, .N = 200};
                ok &= r[v].st != NULL;
            }
            if (ok)
                for (int v = 0; v < 2; ++v) t[v] = bench_best_time(run, &r[v], REPEATS, MIN_BATCH) / r[v].N;
            if (!ok)
                printf("%-24s allocation failed\n", b->name);
            else if (r[0].status != SP_OK || r[1].status != SP_OK)
                printf("%-24s %6.3g %2d failed: %s / %s\n", b->name, b->h, s, sp_status_name(r[0].status),
                       sp_status_name(r[1].status));
            else
                printf("%-24s %6.3g %2d %8d | %9.2f %7.2f %7.2f | %9.2f %7.2f %7.2f | %7.2f\n", b->name, b->h, s,
                       s * (2 * b->model.n + b->model.m), 1e6 * t[0], (double)r[0].iterations / r[0].N,
                       (double)r[0].factorizations / r[0].N, 1e6 * t[1], (double)r[1].iterations / r[1].N,
                       (double)r[1].factorizations / r[1].N, t[0] / t[1]);
            for (int v = 0; v < 2; ++v) sp_index1_free(r[v].st);
            if (!ok) break;
        }
        sp_vakonomic_point_free(pt);
    }
}

/* ------------------------------------------------- 2. work-precision -- */

#define WP_H 8
static const double wp_h[WP_H] = {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625};

typedef struct wp_row {
    double err, seconds, dH, iters, lus;
    int ok;
} wp_row;

static wp_row wp_measure(method kind, int s, bench_model *b, sp_vakonomic_point *pt, double T, double h,
                         const double *ref)
{
    wp_row row = {0};
    run_spec r = {.kind = kind, .b = b, .pt = pt, .h = h, .N = (int)lround(T / h), .t_mark = {T, T, T}};
    if (kind == METHOD_GAUSS && !(r.st = gauss(&b->model, s))) return row;
    r.monitor = 0;
    row.seconds = bench_best_time(run, &r, REPEATS, MIN_BATCH);
    row.ok = r.status == SP_OK;
    row.err = bench_max_abs_diff(2 * b->model.n, r.z, ref);
    row.iters = (double)r.iterations / r.N;
    row.lus = (double)r.factorizations / r.N;
    r.monitor = 1;
    run(&r);
    row.dH = r.dH;
    sp_index1_free(r.st);
    return row;
}

static void work_precision(bench_model *b)
{
    const double T = 10.0;
    const int n = b->model.n;
    sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&b->model);
    if (!pt) return;
    /* reference: Gauss s = 6 (order 12) at h = 0.01, checked against h = 0.005 and against
     * an independently computed DOP853 value (rtol 1e-13) */
    double ref[2 * NMAX], ref2[2 * NMAX];
    run_spec r = {.kind = METHOD_GAUSS, .b = b, .st = gauss(&b->model, 6), .pt = pt, .h = 0.01, .N = 1000};
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
    printf("%-14s %10s %6s %12s %12s %12s %10s %8s %8s\n", "method", "h", "steps", "error(T)", "time [ms]", "max|dH|",
           "it/step", "LU/step", "order");
    wp_row rows[4][WP_H];
    const char *names[4] = {"gauss s=1", "gauss s=2", "gauss s=3", "rk4 (elim.)"};
    for (int m = 0; m < 4; ++m) {
        for (int k = 0; k < WP_H; ++k) {
            rows[m][k] = wp_measure(m < 3 ? METHOD_GAUSS : METHOD_RK4, m + 1, b, pt, T, wp_h[k], ref);
            const wp_row *w = &rows[m][k];
            char order[16] = "";
            if (k && w->ok && rows[m][k - 1].ok && w->err > 0 && rows[m][k - 1].err > 0)
                snprintf(order, sizeof order, "%.2f", log2(rows[m][k - 1].err / w->err));
            if (!w->ok) {
                printf("%-14s %10.7g %6d   failed\n", names[m], wp_h[k], (int)lround(T / wp_h[k]));
                continue;
            }
            if (m < 3)
                printf("%-14s %10.7g %6d %12.3e %12.4f %12.3e %10.2f %8.2f %8s\n", names[m], wp_h[k],
                       (int)lround(T / wp_h[k]), w->err, 1e3 * w->seconds, w->dH, w->iters, w->lus, order);
            else
                printf("%-14s %10.7g %6d %12.3e %12.4f %12.3e %10s %8s %8s\n", names[m], wp_h[k],
                       (int)lround(T / wp_h[k]), w->err, 1e3 * w->seconds, w->dH, "-", "-", order);
        }
    }
    /* the cheapest run of each method reaching a given accuracy */
    static const double targets[4] = {1e-3, 1e-6, 1e-9, 1e-12};
    printf("\ncheapest run reaching error(T) <= target (time in ms; ratio to the fastest method)\n");
    printf("%-10s", "target");
    for (int m = 0; m < 4; ++m) printf(" %16s", names[m]);
    printf("\n");
    for (int t = 0; t < 4; ++t) {
        double best[4], fastest = INFINITY;
        for (int m = 0; m < 4; ++m) {
            best[m] = INFINITY;
            for (int k = 0; k < WP_H; ++k)
                if (rows[m][k].ok && rows[m][k].err <= targets[t]) best[m] = fmin(best[m], rows[m][k].seconds);
            fastest = fmin(fastest, best[m]);
        }
        printf("%-10.0e", targets[t]);
        for (int m = 0; m < 4; ++m) {
            if (isinf(best[m]))
                printf(" %16s", "not reached");
            else
                printf(" %9.4f (x%4.1f)", 1e3 * best[m], best[m] / fastest);
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
    printf("\nlong run, %s, T = %g, h = %g: max|dH| over [0, t]\n", b->name, T, h);
    printf("%-14s %12s %12s %12s %14s %12s\n", "method", "t = 10", "t = 100", "t = 1000", "1000 / 100", "time [ms]");
    const char *names[4] = {"gauss s=1", "gauss s=2", "gauss s=3", "rk4 (elim.)"};
    for (int m = 0; m < 4; ++m) {
        run_spec r = {.kind = m < 3 ? METHOD_GAUSS : METHOD_RK4,
                      .b = b,
                      .pt = pt,
                      .h = h,
                      .N = (int)lround(T / h),
                      .t_mark = {10, 100, 1000}};
        if (m < 3 && !(r.st = gauss(&b->model, m + 1))) break;
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
