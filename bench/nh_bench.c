/* make bench, part nonholonomic: the Lobatto IIIA–IIIB method (integrators/sp_nonholonomic.h)
 * on the models of problems/nonholonomic/sp_nh_models.h, against classical RK4
 * on the index-reduced ODE (λ(q, p) substituted; sp_nh_reduced_field with sp_explicit_rk.h).
 *
 *  1. Cost per step, h = 0.1, for s = 2 … 6 and RK4 on every model: microseconds, Newton
 *     iterations and LU factorisations per step, for full Newton from (q, p, Λ_1) at every
 *     step (the default of sp_nh_options) and with the predictor + simplified Newton
 *     (sp_newton_options.warm_start, "solver": "simplified_newton" in problem files), in
 *     the same run.
 *  2. Work-precision on the contact oscillator (T = 5, against an independently
 *     computed DOP853 value) and the rolling disk (T = 2, against the exact solution): error at T,
 *     wall time, Newton iterations and factorisations per step, |Ψ(T)| and max |ΔH| for each
 *     method and h; then, for a few target errors, the cheapest run of each method (ms of
 *     wall time per unit of simulated time) and the constraint residual that run ends with.
 *     Every method at its best: Lobatto with the warm-start solver (the tables say so).
 *  3. Long run, contact oscillator, T = 1000, h = 0.1: constraint and energy drift (the
 *     warm-start solver too).
 * Times are the best of several repeats (clock_gettime, CLOCK_MONOTONIC). No verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_nonholonomic.h"
#include "lie/sp_linalg.h"
#include "problems/nonholonomic/sp_nh_models.h"

#define NMAX SP_NH_MAX_N
#define MMAX SP_NH_MAX_M
#define REPEATS 5
#define MIN_BATCH 0.01 /* seconds: shorter batches are repeated more often */
#define N_LOBATTO (SP_NH_MAX_STAGES - 1) /* lobatto s = 2 … 6 */
#define RK4 N_LOBATTO                     /* the method index of RK4 */
#define N_METHODS (N_LOBATTO + 1)

static const char *const method_names[N_METHODS] = {"lobatto s=2", "lobatto s=3", "lobatto s=4",
                                                    "lobatto s=5", "lobatto s=6", "rk4 (reduced)"};
_Static_assert(sizeof method_names / sizeof *method_names == N_METHODS, "one name per method");

/* The solver sections 2 and 3 run Lobatto with: the predictor + simplified Newton. */
#define WP_WARM_START 1
#define WP_SOLVER "simplified_newton (predictor + kept factorisation)"

/* A model bound to its default parameters, with its default initial data. Initialised in
 * place (the bound model points into the struct). */
typedef struct nh_instance {
    const sp_nh_model_type *type;
    sp_param_values prm;
    sp_nh_model model;
    int n, m;
    double q0[NMAX], p0[NMAX], lam0[MMAX], H0;
} nh_instance;

static int instance_init(nh_instance *I, const sp_nh_model_type *type)
{
    memset(I, 0, sizeof *I);
    I->type = type;
    I->n = type->n, I->m = type->m;
    sp_params_default(SP_PARAM_SPEC(type), &I->prm);
    sp_nh_model_bind(type, &I->prm, &I->model);
    type->initial(&I->prm, I->q0, I->p0);
    if (sp_nh_multiplier(&I->model, I->q0, I->p0, I->lam0) != SP_OK) return -1;
    return sp_nh_energy(&I->model, I->q0, I->p0, &I->H0) == SP_OK ? 0 : -1;
}

/* One run of N steps of size h; method 0 … N_LOBATTO − 1 = Lobatto s = 2 … 6, RK4 = RK4. */
typedef struct nh_run {
    nh_instance *I;
    int method;
    sp_nh *st;
    sp_erk *rk;
    double h;
    int N;
    int monitor; /* track max |ΔH| and max |Ψ| (not while timing) */
    /* what a run leaves */
    sp_status status;
    double z[2 * NMAX];
    long iterations, factorizations;
    double dH, psi_max;
} nh_run;

static void run(void *ctx)
{
    nh_run *r = ctx;
    const int n = r->I->n;
    double lam[MMAX];
    sp_vec_copy(n, r->I->q0, r->z);
    sp_vec_copy(n, r->I->p0, r->z + n);
    sp_vec_copy(r->I->m, r->I->lam0, lam);
    r->status = SP_OK;
    r->iterations = r->factorizations = 0;
    r->dH = r->psi_max = 0.0;
    for (int k = 0; k < r->N && r->status == SP_OK; ++k) {
        if (r->method < RK4) {
            r->status = sp_nh_step(r->st, r->h, r->z, r->z + n, lam);
            r->iterations += sp_nh_last_step(r->st).iterations;
            r->factorizations += sp_nh_last_step(r->st).factorizations;
        } else {
            r->status = sp_erk_step(r->rk, r->h, r->z);
        }
        if (r->monitor && r->status == SP_OK) {
            double H = NAN, psi = NAN;
            sp_nh_energy(&r->I->model, r->z, r->z + n, &H);
            sp_nh_constraint_residual(&r->I->model, r->z, r->z + n, &psi);
            r->dH = fmax(r->dH, fabs(H - r->I->H0));
            r->psi_max = fmax(r->psi_max, psi);
        }
    }
}

/* Allocates the method's stepper into r (Lobatto with the warm start when asked); 0 on
 * success. */
static int run_open_with(nh_run *r, nh_instance *I, int method, double h, int N, int warm_start)
{
    memset(r, 0, sizeof *r);
    r->I = I, r->method = method, r->h = h, r->N = N;
    if (method < RK4) {
        sp_nh_options o = sp_nh_options_default();
        o.newton.warm_start = warm_start;
        r->st = sp_nh_alloc(&I->model, method + 2, &o);
        return r->st ? 0 : -1;
    }
    const sp_ode_system sys = {.function = sp_nh_reduced_field, .dim = 2 * I->n, .params = &I->model};
    r->rk = sp_erk_alloc("rk4", &sys);
    return r->rk ? 0 : -1;
}

/* The work-precision and long-run tables run every method at its best. */
static int run_open(nh_run *r, nh_instance *I, int method, double h, int N)
{
    return run_open_with(r, I, method, h, N, WP_WARM_START);
}

static void run_close(nh_run *r)
{
    sp_nh_free(r->st);
    sp_erk_free(r->rk);
}

/* ---------------------------------------------------- 1. cost per step -- */

static void cost_per_step(void)
{
    enum { STEPS = 200 };
    printf("\nnonholonomic Lobatto IIIA-IIIB (integrators/sp_nonholonomic.h): cost per step, %d steps of h = 0.1 from "
           "the default data, best of %d;\nfull Newton from (q, p, Lambda_1) every step (solver newton, the default) "
           "against the predictor + simplified Newton (solver simplified_newton)\n",
           STEPS, REPEATS);
    printf("%-20s %-14s %8s | %9s %7s %7s | %9s %7s %7s | %7s %7s\n", "problem", "method", "unknowns", "us/step",
           "it/step", "LU/step", "us/step", "it/step", "LU/step", "speedup", "vs RK4");
    printf("%-20s %-14s %8s | %25s | %25s |\n", "", "", "", "newton", "simplified_newton");
    for (size_t k = 0; sp_nh_model_at(k); ++k) {
        nh_instance I;
        if (instance_init(&I, sp_nh_model_at(k))) continue;
        nh_run rk;
        if (run_open(&rk, &I, RK4, 0.1, STEPS)) return;
        const double t_rk = bench_best_time(run, &rk, REPEATS, MIN_BATCH) / STEPS;
        for (int m = 0; m < N_LOBATTO; ++m) {
            nh_run r[2];
            double t[2];
            int ok = 1;
            for (int v = 0; v < 2; ++v) ok &= run_open_with(&r[v], &I, m, 0.1, STEPS, v == 1) == 0;
            if (ok)
                for (int v = 0; v < 2; ++v) t[v] = bench_best_time(run, &r[v], REPEATS, MIN_BATCH) / STEPS;
            if (!ok)
                printf("%-20s %-14s allocation failed\n", I.type->name, method_names[m]);
            else if (r[0].status != SP_OK || r[1].status != SP_OK)
                printf("%-20s %-14s failed: %s / %s\n", I.type->name, method_names[m], sp_status_name(r[0].status),
                       sp_status_name(r[1].status));
            else
                printf("%-20s %-14s %8d | %9.2f %7.2f %7.2f | %9.2f %7.2f %7.2f | %7.2f %7.1f\n", I.type->name,
                       method_names[m], sp_nh_unknowns(r[0].st), 1e6 * t[0], (double)r[0].iterations / STEPS,
                       (double)r[0].factorizations / STEPS, 1e6 * t[1], (double)r[1].iterations / STEPS,
                       (double)r[1].factorizations / STEPS, t[0] / t[1], t[1] / t_rk);
            for (int v = 0; v < 2; ++v) run_close(&r[v]);
            if (!ok) break;
        }
        if (rk.status != SP_OK)
            printf("%-20s %-14s failed: %s\n", I.type->name, method_names[RK4], sp_status_name(rk.status));
        else
            printf("%-20s %-14s %8s | %9.2f %7s %7s | %25s | %7s %7.1f\n", I.type->name, method_names[RK4], "-",
                   1e6 * t_rk, "-", "-", "", "", 1.0);
        run_close(&rk);
    }
}

/* ------------------------------------------------- 2. work-precision -- */

#define WP_H 9
static const double wp_h[WP_H] = {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.001953125};

typedef struct wp_row {
    double err, seconds, psi, dH;
    double it, lu; /* Newton iterations and factorisations per step (Lobatto) */
    int ok;
} wp_row;

static wp_row wp_measure(nh_instance *I, int method, double T, double h, const double *ref)
{
    wp_row row = {0};
    nh_run r;
    if (run_open(&r, I, method, h, (int)lround(T / h))) return row;
    row.seconds = bench_best_time(run, &r, REPEATS, MIN_BATCH);
    row.ok = r.status == SP_OK;
    row.err = bench_max_abs_diff(2 * I->n, r.z, ref);
    row.it = (double)r.iterations / r.N, row.lu = (double)r.factorizations / r.N;
    double psi = NAN;
    sp_nh_constraint_residual(&I->model, r.z, r.z + I->n, &psi);
    row.psi = psi;
    r.monitor = 1;
    run(&r);
    row.dH = r.dH;
    run_close(&r);
    return row;
}

static void work_precision(nh_instance *I, double T, const double *ref, const char *ref_name)
{
    printf("\nwork-precision, %s, T = %g, against %s; Lobatto solver: %s\n", I->type->name, T, ref_name, WP_SOLVER);
    printf("%-14s %10s %6s %12s %12s %7s %7s %12s %12s %8s\n", "method", "h", "steps", "error(T)", "time [ms]",
           "it/step", "LU/step", "|Psi(T)|", "max|dH|", "order");
    wp_row rows[N_METHODS][WP_H];
    for (int m = 0; m < N_METHODS; ++m)
        for (int k = 0; k < WP_H; ++k) {
            rows[m][k] = wp_measure(I, m, T, wp_h[k], ref);
            const wp_row *w = &rows[m][k];
            const int steps = (int)lround(T / wp_h[k]);
            if (!w->ok) {
                printf("%-14s %10.7g %6d   failed\n", method_names[m], wp_h[k], steps);
                continue;
            }
            char order[16] = "";
            if (k && rows[m][k - 1].ok && w->err > 0 && rows[m][k - 1].err > 0)
                snprintf(order, sizeof order, "%.2f", log2(rows[m][k - 1].err / w->err));
            char it[8] = "-", lu[8] = "-";
            if (m < RK4) snprintf(it, sizeof it, "%.2f", w->it), snprintf(lu, sizeof lu, "%.2f", w->lu);
            printf("%-14s %10.7g %6d %12.3e %12.4f %7s %7s %12.1e %12.3e %8s\n", method_names[m], wp_h[k], steps, w->err,
                   1e3 * w->seconds, it, lu, w->psi, w->dH, order);
        }
    /* the cheapest run of each method reaching a given accuracy */
    static const double targets[4] = {1e-3, 1e-6, 1e-9, 1e-11};
    printf("\n%s: cheapest run reaching error(T) <= target: ms of wall time per unit of simulated time "
           "[|Psi(T)| it ends with]; Lobatto solver: %s\n",
           I->type->name, WP_SOLVER);
    printf("%-8s", "target");
    for (int m = 0; m < N_METHODS; ++m) printf(" %24s", method_names[m]);
    printf(" %14s\n", "best Lobatto/RK4");
    for (int t = 0; t < 4; ++t) {
        printf("%-8.0e", targets[t]);
        double per_unit[N_METHODS];
        for (int m = 0; m < N_METHODS; ++m) {
            int best = -1;
            for (int k = 0; k < WP_H; ++k)
                if (rows[m][k].ok && rows[m][k].err <= targets[t] &&
                    (best < 0 || rows[m][k].seconds < rows[m][best].seconds))
                    best = k;
            per_unit[m] = best < 0 ? INFINITY : 1e3 * rows[m][best].seconds / T;
            if (best < 0)
                printf(" %24s", "not reached");
            else
                printf(" %12.4f [%9.1e]", per_unit[m], rows[m][best].psi);
        }
        double lobatto = INFINITY;
        for (int m = 0; m < RK4; ++m) lobatto = fmin(lobatto, per_unit[m]);
        if (isfinite(lobatto) && isfinite(per_unit[RK4]))
            printf(" %14.2f\n", lobatto / per_unit[RK4]);
        else
            printf(" %14s\n", "-");
    }
}

/* ------------------------------------------------------- 3. long run -- */

static void long_run(nh_instance *I)
{
    const double T = 1000.0, h = 0.1;
    printf("\nlong run, %s, T = %g, h = %g (carried multiplier); Lobatto solver: %s\n", I->type->name, T, h,
           WP_SOLVER);
    printf("%-14s %12s %12s %12s\n", "method", "max|Psi|", "max|dH|", "time [ms]");
    for (int m = 0; m < N_METHODS; ++m) {
        nh_run r;
        if (run_open(&r, I, m, h, (int)lround(T / h))) break;
        r.monitor = 1;
        const double t0 = bench_clock();
        run(&r);
        const double dt = bench_clock() - t0;
        if (r.status != SP_OK)
            printf("%-14s failed: %s\n", method_names[m], sp_status_name(r.status));
        else
            printf("%-14s %12.1e %12.3e %12.1f\n", method_names[m], r.psi_max, r.dH, 1e3 * dt);
        run_close(&r);
    }
}

void bench_nonholonomic(void)
{
    /* computed independently (DOP853, rtol 1e-13) */
    static const double contact_ref[6] = {-0.79252527705812092, 0.28366218546322647, -0.76015324537231588,
                                          -0.2135924668617607,  0.95892427466313901, 0.7529818136067814};
    cost_per_step();
    nh_instance I;
    if (instance_init(&I, &sp_nh_contact_oscillator) == 0) {
        work_precision(&I, 5.0, contact_ref, "DOP853 (independent)");
        long_run(&I);
    }
    if (instance_init(&I, &sp_nh_rolling_disk) == 0) {
        double exact[2 * NMAX];
        if (I.type->exact(2.0, I.q0, I.p0, &I.prm, exact, exact + I.n) == SP_OK)
            work_precision(&I, 2.0, exact, "the exact solution");
    }
}
