/* make bench, part holonomic: work-precision of the holonomic integrators against
 * their non-geometric peers measured in the same run.
 *
 *  1. Planar pendulum (m = g = l = 1, released at rest from 1 rad): the error
 *     after one period T = 4K(sin ½) — where the exact state is the initial one — against
 *     the model evaluations (calls of the potential or constraint callbacks; one
 *     evaluation of the feedback field calls each once) and against time, for RATTLE and
 *     its compositions (orders 2, 4, 4, 6) and the feedback integrator on Euler, RK4 and
 *     adaptive DOP853 (gains 50, as in Chang, Perlmutter & Vankerschaver, 2022).
 *  2. Spherical pendulum, the state of Chang, Perlmutter & Vankerschaver (2022), T = 10, 100
 *     and 1000, in
 *     ambient coordinates: GSL's rk8pd (gsl_odeiv2 driver, error control on both
 *     tolerances) and our DOP853 on the index-reduced ODE q̇ = p/m, ṗ = −∇V − qλ,
 *     λ = m(|v|² − g q₃)/|q|², against the
 *     RATTLE family on T*S² (up to Kahan & Li's orders 8 and 10) and Lobatto IIIA–IIIB with 4
 *     and 5 stages: the time each needs for a
 *     global error of 1e-6, 1e-8 (and 1e-10 at T = 10) — the cheapest setting that reaches
 *     it (number of steps, or tolerance, searched to within a few per cent), best of
 *     repeats — its Newton iterations per step, and the constraint drift ||q|² − l²| and
 *     |q·p| that run ends with.
 * Times are clock_gettime(CLOCK_MONOTONIC), the best of 5 batches of ≥ 20 ms. No verdicts. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_feedback.h"
#include "integrators/sp_holonomic.h"
#include "lie/sp_linalg.h"

#define REPEATS 5
#define MIN_BATCH 0.02

/* ---- pendulums of unit mass, gravity and length in R^d, with a counter of model calls */

typedef struct pendulum {
    int d;
    long calls;
    long newton; /* Newton iterations of the constrained methods' multiplier solves */
} pendulum;

static int pend_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    pendulum *P = params;
    P->calls++;
    if (V) *V = q[P->d - 1];
    if (grad) {
        memset(grad, 0, (size_t)P->d * sizeof *grad);
        grad[P->d - 1] = 1.0;
    }
    if (hess) memset(hess, 0, (size_t)P->d * P->d * sizeof *hess);
    return 0;
}

static int pend_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    pendulum *P = params;
    P->calls++;
    if (g) g[0] = 0.5 * (sp_vec_dot(P->d, q, q) - 1.0);
    if (G) memcpy(G, q, (size_t)P->d * sizeof *G);
    if (d2g) {
        memset(d2g, 0, (size_t)P->d * P->d * sizeof *d2g);
        for (int i = 0; i < P->d; ++i) d2g[i * P->d + i] = 1.0;
    }
    return 0;
}

static const double unit_mass[3] = {1, 1, 1};

static sp_holonomic_model pendulum_model(pendulum *P)
{
    return (sp_holonomic_model){P->d, 1, unit_mass, pend_potential, pend_constraint, P, NULL};
}

/* One run of a method from z0 over [0, T]: the final state, the model calls. */
typedef struct method {
    const char *name;
    enum { M_HOLONOMIC, M_FEEDBACK_FIXED, M_FEEDBACK_ADAPTIVE, M_GSL, M_ERK_REDUCED } kind;
    const char *integrator; /* holonomic method or explicit RK table */
    double gain;
} method;

static double reduced_lambda(const double *z)
{
    const double *q = z, *p = z + 3;
    return (sp_vec_dot(3, p, p) - q[2]) / sp_vec_dot(3, q, q);
}

/* The index-reduced spherical pendulum (m = g = l = 1) for GSL and for our DOP853. */
static int reduced_gsl(double t, const double *z, double *dz, void *params)
{
    (void)t;
    long *calls = params;
    ++*calls;
    const double lam = reduced_lambda(z);
    for (int i = 0; i < 3; ++i) dz[i] = z[3 + i], dz[3 + i] = -lam * z[i];
    dz[5] -= 1.0;
    return GSL_SUCCESS;
}

static int reduced_sp(const double *z, double *dz, void *params) { return reduced_gsl(0.0, z, dz, params); }

/* Runs `m` with accuracy parameter `acc` (steps N for fixed-step methods, tolerance for
 * adaptive ones) on the d-dimensional pendulum from z0 to T; z gets the end state.
 * Returns the model calls (right-hand sides for the reduced ODE), or −1 on failure. */
static long run_method_counting(const method *m, int d, const double *z0, double T, double acc, double *z,
                                long *newton)
{
    pendulum P = {d, 0, 0};
    sp_holonomic_model md = pendulum_model(&P);
    memcpy(z, z0, 2 * (size_t)d * sizeof *z);
    long calls = 0;
    int ok = 1;
    switch (m->kind) {
    case M_HOLONOMIC: {
        sp_holonomic *s = sp_holonomic_alloc(&md, sp_holonomic_method_by_name(m->integrator));
        const long N = lround(acc);
        for (long k = 0; ok && k < N; ++k) {
            ok = sp_holonomic_step(s, T / N, z, z + d) == SP_OK;
            P.newton += sp_holonomic_iterations(s);
        }
        sp_holonomic_free(s);
        calls = P.calls;
        break;
    }
    case M_FEEDBACK_FIXED:
    case M_FEEDBACK_ADAPTIVE: {
        const double k = m->gain;
        sp_feedback_gains gains = {k, k, k, 0.0, 2.0, 1.0};
        sp_feedback *fb = sp_feedback_alloc(&md, &gains, NULL);
        sp_feedback_set_reference(fb, z0);
        P.calls = 0;
        sp_ode_system sys = sp_feedback_system(fb, 1);
        sp_erk *e = sp_erk_alloc(m->integrator, &sys);
        if (m->kind == M_FEEDBACK_FIXED) {
            ok = sp_erk_fixed(e, 0.0, T, lround(acc), z) == SP_OK;
        } else {
            sp_erk_control c = sp_erk_control_default();
            c.rtol = c.atol = acc;
            c.max_steps = 10000000;
            double t = 0.0;
            ok = sp_erk_integrate(e, &c, &t, T, z) == SP_OK;
        }
        calls = P.calls;
        sp_erk_free(e);
        sp_feedback_free(fb);
        break;
    }
    case M_ERK_REDUCED: {
        sp_ode_system sys = {reduced_sp, 6, &calls};
        sp_erk *e = sp_erk_alloc(m->integrator, &sys);
        sp_erk_control c = sp_erk_control_default();
        c.rtol = c.atol = acc;
        c.max_steps = 10000000;
        double t = 0.0;
        ok = sp_erk_integrate(e, &c, &t, T, z) == SP_OK;
        sp_erk_free(e);
        break;
    }
    case M_GSL: {
        gsl_odeiv2_system sys = {reduced_gsl, NULL, 6, &calls};
        gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3, acc, acc);
        double t = 0.0;
        ok = gsl_odeiv2_driver_apply(drv, &t, T, z) == GSL_SUCCESS;
        gsl_odeiv2_driver_free(drv);
        break;
    }
    }
    if (newton) *newton = P.newton;
    return ok && sp_vec_isfinite(2 * d, z) ? calls : -1;
}

static long run_method(const method *m, int d, const double *z0, double T, double acc, double *z)
{
    return run_method_counting(m, d, z0, T, acc, z, NULL);
}

/* Seconds per run: best of REPEATS batches of at least MIN_BATCH. */
static double time_method(const method *m, int d, const double *z0, double T, double acc)
{
    double z[6], best = INFINITY;
    int reps = 1;
    for (int b = 0; b < REPEATS; ++b) {
        double t0 = bench_clock();
        for (int r = 0; r < reps; ++r) run_method(m, d, z0, T, acc, z);
        double dt = bench_clock() - t0;
        if (dt < MIN_BATCH) {
            reps *= 2;
            --b;
            continue;
        }
        best = fmin(best, dt / reps);
    }
    return best;
}

static double max_dist(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

/* K(k) by the arithmetic–geometric mean: K = π / (2 AGM(1, √(1 − k²))). */
static double elliptic_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-17 * a; ++i) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return 3.14159265358979323846 / (2.0 * a);
}

/* ---- 1. planar pendulum, one period */

static void planar_work_precision(void)
{
    const double z0[4] = {sin(1.0), -cos(1.0), 0.0, 0.0}, T = 4.0 * elliptic_k(sin(0.5));
    static const method methods[] = {
        {"rattle", M_HOLONOMIC, "rattle", 0},
        {"rattle_tj4", M_HOLONOMIC, "rattle_tj4", 0},
        {"rattle_suzuki5", M_HOLONOMIC, "rattle_suzuki5", 0},
        {"rattle_tj6", M_HOLONOMIC, "rattle_tj6", 0},
        {"feedback_euler", M_FEEDBACK_FIXED, "euler", 50},
        {"feedback_rk4", M_FEEDBACK_FIXED, "rk4", 50},
        {"feedback_dop853", M_FEEDBACK_ADAPTIVE, "dop853", 50},
    };
    static const double steps_low[] = {16, 32, 64, 128, 256, 512, 1024, 2048};
    static const double steps_euler[] = {1000, 4000, 16000, 64000, 256000};
    static const double steps_rk4[] = {512, 1024, 2048, 4096, 8192};
    static const double tolerances[] = {1e-4, 1e-6, 1e-8, 1e-10, 1e-12};
    printf("\nholonomic: planar pendulum, m = g = l = 1, from rest at 1 rad; error after one period T = %.15f\n", T);
    printf("(model evaluations = calls of V or g; feedback gains k1 = k2 = k3 = 50)\n");
    printf("%-16s %10s %12s %12s %12s\n", "method", "steps/tol", "evaluations", "time [us]", "error");
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; ++i) {
        const method *m = &methods[i];
        const double *acc = steps_low;
        size_t na = sizeof steps_low / sizeof steps_low[0];
        if (m->kind == M_FEEDBACK_ADAPTIVE) acc = tolerances, na = sizeof tolerances / sizeof tolerances[0];
        if (m->kind == M_FEEDBACK_FIXED && strcmp(m->integrator, "euler") == 0)
            acc = steps_euler, na = sizeof steps_euler / sizeof steps_euler[0];
        if (m->kind == M_FEEDBACK_FIXED && strcmp(m->integrator, "rk4") == 0)
            acc = steps_rk4, na = sizeof steps_rk4 / sizeof steps_rk4[0];
        if (strcmp(m->integrator, "rattle_tj6") == 0) acc = steps_low, na = 6;
        for (size_t a = 0; a < na; ++a) {
            double z[4];
            long calls = run_method(m, 2, z0, T, acc[a], z);
            char setting[32];
            if (m->kind == M_FEEDBACK_ADAPTIVE)
                snprintf(setting, sizeof setting, "%.0e", acc[a]);
            else
                snprintf(setting, sizeof setting, "%ld", lround(acc[a]));
            if (calls < 0) {
                printf("%-16s %10s %12s %12s %12s\n", m->name, setting, "-", "-", "failed");
                continue;
            }
            double t = time_method(m, 2, z0, T, acc[a]);
            printf("%-16s %10s %12ld %12.1f %12.3e\n", m->name, setting, calls, 1e6 * t, max_dist(4, z, z0));
        }
    }
}

/* ---- 2. spherical pendulum against GSL's rk8pd */

typedef struct reached {
    double seconds, drift_q, drift_qp, error;
    long calls, newton;
    double acc;
    int ok;
} reached;

/* A run of a method at setting acc: its end state's error, or INFINITY when it fails. */
static double run_error(const method *m, const double *z0, double T, const double *ref, double acc, long *calls,
                        long *newton)
{
    double z[6];
    *calls = run_method_counting(m, 3, z0, T, acc, z, newton);
    return *calls < 0 ? INFINITY : max_dist(6, z, ref);
}

/* The cheapest setting of a method whose error at T is within the target, found by a
 * search rather than read off a coarse grid, so that neither side of a comparison pays for
 * the grid's spacing: a fixed-step method's N grows by the factor its order predicts from
 * the error until the target is met, then the integer N is bisected to within 2 %; an
 * adaptive method's tolerance falls by half decades, then log10(tol) is bisected to
 * 1/32 of a decade. *from holds the setting where a looser target was met (0: none yet):
 * a tighter one starts there. */
static int cheapest(const method *m, const double *z0, double T, const double *ref, double target, double *from,
                    reached *r)
{
    const int adaptive = m->kind == M_GSL || m->kind == M_ERK_REDUCED || m->kind == M_FEEDBACK_ADAPTIVE;
    long calls = 0, newton = 0;
    double pass = NAN, fail = NAN; /* settings known to meet and to miss the target */
    if (adaptive) {
        double lg = *from != 0.0 ? log10(*from) : -3.0;
        for (; lg >= -15.0; lg -= 0.5) {
            if (run_error(m, z0, T, ref, pow(10.0, lg), &calls, &newton) <= target) {
                pass = lg;
                break;
            }
            fail = lg;
        }
        if (isnan(pass)) return 0;
        while (!isnan(fail) && fail - pass > 1.0 / 32) {
            const double mid = 0.5 * (pass + fail);
            if (run_error(m, z0, T, ref, pow(10.0, mid), &calls, &newton) <= target)
                pass = mid;
            else
                fail = mid;
        }
        pass = pow(10.0, pass);
    } else {
        const sp_holonomic_method *method = sp_holonomic_method_by_name(m->integrator);
        double N = *from != 0.0 ? *from : fmax(4.0, round(8.0 * T / 10.0)), last_err = INFINITY;
        for (;;) {
            if (N * (double)method->stages > 2e7) return 0; /* beyond what a bench should run */
            const double err = run_error(m, z0, T, ref, N, &calls, &newton);
            if (err <= target) {
                pass = N;
                break;
            }
            /* more steps no longer help: round-off, accumulated over the run, dominates */
            if (isfinite(last_err) && err >= last_err) return 0;
            fail = N, last_err = err;
            const double grow = isfinite(err) ? 1.05 * pow(err / target, 1.0 / method->order) : 2.0;
            N = ceil(N * fmin(8.0, fmax(1.1, grow)));
        }
        while (!isnan(fail) && pass - fail > fmax(1.0, 0.02 * pass)) {
            const double mid = floor(0.5 * (pass + fail));
            if (run_error(m, z0, T, ref, mid, &calls, &newton) <= target)
                pass = mid;
            else
                fail = mid;
        }
    }
    double z[6];
    newton = 0;
    calls = run_method_counting(m, 3, z0, T, pass, z, &newton);
    *r = (reached){.ok = 1, .error = max_dist(6, z, ref), .calls = calls, .newton = newton, .acc = pass,
                   .drift_q = fabs(sp_vec_dot(3, z, z) - 1.0), .drift_qp = fabs(sp_vec_dot(3, z, z + 3)),
                   .seconds = time_method(m, 3, z0, T, pass)};
    *from = pass;
    return 1;
}

/* Spherical pendulum over [0, T] against GSL's rk8pd: for each target error, the cheapest
 * run of each method, its time relative to rk8pd's and (constrained methods) the Newton
 * iterations per step of the multiplier solves. */
static void gsl_work_precision_over(double T, const double *targets, int n_targets, int long_run)
{
    const double z0[6] = {0, 1, 0, 1, 0, 1};
    static const method all[] = {
        {"gsl rk8pd (reduced)", M_GSL, "rk8pd", 0},
        {"sp dop853 (reduced)", M_ERK_REDUCED, "dop853", 0},
        {"rattle", M_HOLONOMIC, "rattle", 0},
        {"rattle_tj4", M_HOLONOMIC, "rattle_tj4", 0},
        {"rattle_suzuki5", M_HOLONOMIC, "rattle_suzuki5", 0},
        {"rattle_tj6", M_HOLONOMIC, "rattle_tj6", 0},
        {"rattle_kl8", M_HOLONOMIC, "rattle_kl8", 0},
        {"rattle_kl10", M_HOLONOMIC, "rattle_kl10", 0},
        {"lobatto4", M_HOLONOMIC, "lobatto4", 0},
        {"lobatto5", M_HOLONOMIC, "lobatto5", 0},
        {"feedback_dop853 k=50", M_FEEDBACK_ADAPTIVE, "dop853", 50},
    };
    /* long runs: the low orders and the feedback field would take minutes */
    static const char *const skipped_on_long_runs[] = {"rattle", "rattle_tj4", "feedback_dop853 k=50"};
    /* reference: lobatto5 with 60 steps per unit time — its truncation error is far below
     * round-off, and with one implicit step where the compositions take 17 or 35 it gathers
     * the least round-off over long runs (at T = 1000: 9e-11 between 30000 and 60000
     * steps, where rattle_kl10's 20000 and 40000 differ by 5e-10). Checked against
     * rattle_kl10 with 20 steps per unit time, GSL rk8pd at 1e-14 and, at T = 10, an
     * independently computed state. */
    static const double golden[6] = {0.34441893954461666, -0.6799604623641684, -0.6473247745158558,
                                     -0.8034844840761062, -1.3171816837508794, 0.9560829696622056};
    double ref[6], check[6], gsl[6];
    const method lobatto_ref = {"ref", M_HOLONOMIC, "lobatto5", 0}, kl10_ref = {"ref", M_HOLONOMIC, "rattle_kl10", 0},
                 gsl_ref = {"ref", M_GSL, "rk8pd", 0};
    run_method(&lobatto_ref, 3, z0, T, 60.0 * T, ref);
    run_method(&kl10_ref, 3, z0, T, 20.0 * T, check);
    run_method(&gsl_ref, 3, z0, T, 1e-14, gsl);
    printf("\nholonomic: spherical pendulum (feedback paper's state: q0 = (0, 1, 0), p0 = (1, 0, 1)), T = %g, "
           "max-abs error in (q, p)\n", T);
    printf("reference: lobatto5, %g steps (differs from rattle_kl10 with %g steps by %.1e, from GSL rk8pd at "
           "tolerance 1e-14 by %.1e",
           60.0 * T, 20.0 * T, max_dist(6, ref, check), max_dist(6, ref, gsl));
    if (T == 10.0) printf(", from the independent reference by %.1e", max_dist(6, ref, golden));
    printf(")\n");
    printf("%-22s %8s %10s %10s %10s %8s %11s %11s  %s\n", "method", "target", "time [ms]", "vs rk8pd", "evals",
           "it/step", "||q|^2-1|", "|q.p|", "setting");
    enum { N_METHODS = sizeof all / sizeof all[0] };
    reached best[N_METHODS][4];
    memset(best, 0, sizeof best);
    for (size_t i = 0; i < N_METHODS; ++i) {
        int skip = 0;
        for (size_t k = 0; long_run && k < sizeof skipped_on_long_runs / sizeof *skipped_on_long_runs; ++k)
            skip |= strcmp(all[i].name, skipped_on_long_runs[k]) == 0;
        double from = 0.0;
        for (int j = 0; !skip && j < n_targets; ++j)
            if (!cheapest(&all[i], z0, T, ref, targets[j], &from, &best[i][j])) break;
    }
    for (int j = 0; j < n_targets; ++j)
        for (size_t i = 0; i < N_METHODS; ++i) {
            const reached *r = &best[i][j];
            const method *m = &all[i];
            if (!r->ok) {
                printf("%-22s %8.0e %10s\n", m->name, targets[j], long_run && i > 1 ? "-" : "not reached");
                continue;
            }
            char setting[48], ratio[16] = "-", per_step[16] = "-";
            if (m->kind == M_HOLONOMIC) {
                snprintf(setting, sizeof setting, "N = %ld", lround(r->acc));
                snprintf(per_step, sizeof per_step, "%.2f", (double)r->newton / r->acc);
            } else {
                snprintf(setting, sizeof setting, "tol %.1e", r->acc);
            }
            if (best[0][j].ok) snprintf(ratio, sizeof ratio, "%.2f", r->seconds / best[0][j].seconds);
            printf("%-22s %8.0e %10.3f %10s %10ld %8s %11.1e %11.1e  %s, error %.1e\n", m->name, targets[j],
                   1e3 * r->seconds, ratio, r->calls, per_step, r->drift_q, r->drift_qp, setting, r->error);
        }
    printf("(vs rk8pd = time / GSL rk8pd's time for the same target; evals: right-hand sides for the reduced ODE,\n"
           " calls of V or g for the constrained methods; it/step: Newton iterations of the multiplier solves per\n"
           " step, over all the composition's stages)\n");
}

static void gsl_work_precision(void)
{
    static const double t10[] = {1e-6, 1e-8, 1e-10}, t100[] = {1e-6, 1e-8}, t1000[] = {1e-6, 1e-8};
    gsl_work_precision_over(10.0, t10, 3, 0);
    gsl_work_precision_over(100.0, t100, 2, 1);
    gsl_work_precision_over(1000.0, t1000, 2, 1);
}

void bench_holonomic(void)
{
    gsl_set_error_handler_off();
    planar_work_precision();
    gsl_work_precision();
}
