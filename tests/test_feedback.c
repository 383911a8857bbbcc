/* Feedback integrators (Chang, Perlmutter & Vankerschaver, Sensors 22 (2022) 6487; checks
 * D1–D6 below) and the modules they rest on:
 *   - the explicit tables of sp_tableau.h (row sums, order conditions of b and of both
 *     DOP853 estimators);
 *   - explicit Runge–Kutta (sp_explicit_rk.h): measured order = declared order for every
 *     table on a smooth ODE with a known solution, DOP853's step control (tolerance
 *     reached, evaluations ~ tol^(−1/8), exact evaluation count), every failure status;
 *   - the Dirac-extended field and the feedback potential (sp_feedback.h): golden values,
 *     first integrals of X off the manifold for the pendulum and for a model with two
 *     constraints, ∇V_fb against finite differences;
 *   - splitting with exact flows on T*S² (sp_splitting.h): golden flows, invariants,
 *     orders, symplecticity, with feedback + Euler as the non-symplectic control. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_feedback.h"
#include "integrators/sp_symplecticity.h"
#include "integrators/sp_holonomic.h"
#include "integrators/sp_splitting.h"
#include "lie/sp_linalg.h"
#include "step_fixtures.h"

/* ------------------------------------------------------------------------------------
 * The spherical pendulum of the shared fixtures (step_fixtures.h), m = g = l = 1: V = q₃,
 * g(q) = ½(|q|² − 1). */

/* L₃ = q₁p₂ − q₂p₁ and its gradient (∂/∂q, ∂/∂p). */
static int vertical_momentum(const double *q, const double *p, double *I, double *grad, void *params)
{
    (void)params;
    *I = q[0] * p[1] - q[1] * p[0];
    if (grad) {
        grad[0] = p[1], grad[1] = -p[0], grad[2] = 0.0;
        grad[3] = -q[1], grad[4] = q[0], grad[5] = 0.0;
    }
    return 0;
}

static const sp_first_integral L3 = {vertical_momentum, NULL};
/* the normalisation of Chang, Perlmutter & Vankerschaver: s₁ g = |q|² − 1, s₂ G M⁻¹ p = q·p */
static const sp_feedback_gains gains50 = {50, 50, 50, 50, 2, 1};
static const sp_spherical_pendulum unit_pendulum = {1, 1, 1};
static const double z_start[6] = {0, 1, 0, 1, 0, 1};
/* the state at T = 10, computed independently */
static const double y_ref_10[6] = {0.34441893954461666, -0.6799604623641684, -0.6473247745158558,
                                   -0.8034844840761062, -1.3171816837508794, 0.9560829696622056};

static sp_feedback *pendulum_feedback(const sp_feedback_gains *k)
{
    sp_feedback *fb = sp_feedback_alloc(&fixture_pendulum, k, &L3);
    cr_assert_not_null(fb);
    cr_assert_eq(sp_feedback_set_reference(fb, z_start), SP_OK);
    return fb;
}

static double max_dist(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* (|q|² − 1, q·p, H − 1, L₃ + 1) for the unit pendulum started at z_start */
static void invariants(const double *z, double dev[4])
{
    const double *q = z, *p = z + 3;
    dev[0] = sp_vec_dot(3, q, q) - 1.0;
    dev[1] = sp_vec_dot(3, q, p);
    dev[2] = 0.5 * sp_vec_dot(3, p, p) + q[2] - 1.0;
    dev[3] = q[0] * p[1] - q[1] * p[0] + 1.0;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------
 * Explicit tables */

Test(explicit_tableau, order_conditions_and_estimators)
{
    static const struct {
        const char *name;
        int stages, order, estimators, e_order, e2_order;
    } tables[] = {{"euler", 1, 1, 0, 0, 0}, {"rk4", 4, 4, 0, 0, 0}, {"dop853", 12, 8, 2, 5, 3}};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; ++t) {
        sp_tableau_explicit T;
        cr_assert_eq(sp_tableau_explicit_get(tables[t].name, &T), SP_OK, "%s", tables[t].name);
        cr_assert_str_eq(T.name, tables[t].name);
        cr_expect_eq(T.stages, tables[t].stages, "%s", T.name);
        cr_expect_eq(T.order, tables[t].order, "%s", T.name);
        cr_expect_eq(T.estimators, tables[t].estimators, "%s", T.name);
        cr_expect_eq(T.c[0], 0.0);
        double rows = 0.0, upper = 0.0;
        for (int i = 0; i < T.stages; ++i) {
            long double r = 0.0L;
            for (int j = 0; j < T.stages; ++j) {
                r += T.A[i][j];
                if (j >= i) upper = fmax(upper, fabs(T.A[i][j]));
            }
            rows = fmax(rows, fabs((double)(r - T.c[i])));
        }
        cr_expect_leq(rows, 2e-15, "%s: row sums differ from c by %.2e", T.name, rows);
        cr_expect_eq(upper, 0.0, "%s is not explicit", T.name);
        /* B(p): Σ b_i c_i^{k−1} = 1/k up to the order, and not beyond (for the order-8 table) */
        for (int k = 1; k <= T.order + 1; ++k) {
            long double s = 0.0L, se = 0.0L, se2 = 0.0L;
            for (int i = 0; i < T.stages; ++i) {
                s += T.b[i] * powl(T.c[i], k - 1);
                se += T.e[i] * powl(T.c[i], k - 1);
                se2 += T.e2[i] * powl(T.c[i], k - 1);
            }
            double d = fabs((double)(s - 1.0L / k));
            if (k <= T.order)
                cr_expect_leq(d, 1e-14, "%s: B(%d) defect %.2e", T.name, k, d);
            else if (T.order == 8)
                cr_expect_geq(d, 1e-6, "%s satisfies B(%d): the table is not order 8", T.name, k);
            if (T.estimators > 0 && k <= tables[t].e_order)
                cr_expect_leq(fabs((double)se), 1e-14, "%s: order-%d estimator fails B(%d)", T.name, tables[t].e_order,
                              k);
            if (T.estimators > 0 && k == tables[t].e_order + 1)
                cr_expect_geq(fabs((double)se), 1e-5, "%s: first estimator is of higher order", T.name);
            if (T.estimators > 1 && k <= tables[t].e2_order)
                cr_expect_leq(fabs((double)se2), 1e-14, "%s: order-%d estimator fails B(%d)", T.name,
                              tables[t].e2_order, k);
            if (T.estimators > 1 && k == tables[t].e2_order + 1)
                cr_expect_geq(fabs((double)se2), 1e-3, "%s: second estimator is of higher order", T.name);
        }
    }
    const char *bad[] = {NULL, "", "RK4", "dopri5", "dop853 ", "gauss"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        sp_tableau_explicit T;
        cr_expect_eq(sp_tableau_explicit_get(bad[i], &T), SP_ERR_INVALID, "%s accepted", bad[i] ? bad[i] : "NULL");
    }
}

/* ------------------------------------------------------------------------------------
 * Explicit Runge–Kutta on y = (τ, u, v): τ' = 1, u' = u cos τ, v' = −v², y(0) = (0, 1, 1),
 * solution (t, exp(sin t), 1/(1 + t)). */

static int smooth_rhs(const double *y, double *dy, void *params)
{
    (void)params;
    dy[0] = 1.0;
    dy[1] = y[1] * cos(y[0]);
    dy[2] = -y[2] * y[2];
    return 0;
}

static void smooth_exact(double t, double *y)
{
    y[0] = t;
    y[1] = exp(sin(t));
    y[2] = 1.0 / (1.0 + t);
}

static const sp_ode_system smooth = {smooth_rhs, 3, NULL};

static sp_erk *erk(const char *method, const sp_ode_system *sys)
{
    sp_erk *s = sp_erk_alloc(method, sys);
    cr_assert_not_null(s, "sp_erk_alloc(%s)", method);
    return s;
}

Test(explicit_rk, measured_order_is_declared_order)
{
    static const struct {
        const char *name;
        long N0;
    } cases[] = {{"euler", 200}, {"rk4", 10}, {"dop853", 3}};
    const double T = 2.0;
    double exact[3];
    smooth_exact(T, exact);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sp_erk *s = erk(cases[c].name, &smooth);
        const int order = sp_erk_tableau(s)->order, stages = sp_erk_tableau(s)->stages;
        double e[4];
        for (int l = 0; l < 4; ++l) {
            const long N = cases[c].N0 << l;
            double y[3] = {0, 1, 1};
            sp_erk_reset_stats(s);
            cr_assert_eq(sp_erk_fixed(s, 0.0, T, N, y), SP_OK);
            e[l] = max_dist(3, y, exact);
            sp_erk_stats st = sp_erk_get_stats(s);
            cr_expect_eq(st.evaluations, N * stages, "%s: %ld evaluations for %ld steps", cases[c].name, st.evaluations,
                         N);
        }
        double p = log2(e[2] / e[3]);
        cr_log_info("%s errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f", cases[c].name, e[0], e[1], e[2], e[3],
                    log2(e[0] / e[1]), log2(e[1] / e[2]), p);
        cr_expect(fabs(p - order) <= 0.1 * order / 2 + 0.05, "%s: measured order %.3f, declared %d", cases[c].name, p,
                  order);
        sp_erk_free(s);
    }
}

/* DOP853 with step control on the harmonic oscillator over [0, 20]: the global error
 * follows the tolerance, the work grows like tol^(−1/8), and the count of evaluations is
 * exactly 11 per attempt, one per accepted step and one for the starting-step estimate. */
static int oscillator_rhs(const double *y, double *dy, void *params)
{
    (void)params;
    dy[0] = y[1];
    dy[1] = -y[0];
    return 0;
}

static const sp_ode_system oscillator = {oscillator_rhs, 2, NULL};

Test(explicit_rk, dop853_step_control)
{
    const double T = 20.0, tols[3] = {1e-6, 1e-9, 1e-12}, exact[2] = {cos(T), -sin(T)};
    double err[3];
    long evals[3];
    sp_erk *s = erk("dop853", &oscillator);
    cr_assert(sp_erk_adaptive(s));
    for (int k = 0; k < 3; ++k) {
        sp_erk_control ctl = sp_erk_control_default();
        ctl.rtol = ctl.atol = tols[k];
        double y[2] = {1, 0}, t = 0.0;
        sp_erk_reset(s);
        sp_erk_reset_stats(s);
        cr_assert_eq(sp_erk_integrate(s, &ctl, &t, T, y), SP_OK);
        cr_expect_eq(t, T);
        cr_expect_eq(sp_erk_stop(s), SP_ERK_DONE);
        sp_erk_stats st = sp_erk_get_stats(s);
        err[k] = max_dist(2, y, exact);
        evals[k] = st.evaluations;
        cr_log_info("dop853 tol %.0e: error %.2e, %ld evaluations, %ld steps (%ld rejected)", tols[k], err[k],
                    st.evaluations, st.steps, st.rejected);
        cr_expect_eq(st.evaluations, 11 * st.steps + st.accepted + 1,
                     "evaluation count %ld for %ld steps, %ld accepted", st.evaluations, st.steps, st.accepted);
        cr_expect_eq(st.steps, st.accepted + st.rejected);
        cr_expect_leq(err[k], 10.0 * tols[k], "tol %.0e: error %.2e", tols[k], err[k]);
        cr_expect_geq(err[k], 1e-2 * tols[k], "tol %.0e: error %.2e, the control is far too cautious", tols[k], err[k]);
    }
    for (int k = 0; k < 2; ++k) {
        double ratio = (double)evals[k + 1] / (double)evals[k];
        cr_expect(ratio >= 1.8 && ratio <= 3.0, "evaluations grow by %.2f for tol/1000 (1000^(1/8) = 2.37)", ratio);
    }
    /* back from T to 0 */
    sp_erk_control ctl = sp_erk_control_default();
    ctl.rtol = ctl.atol = 1e-12;
    double y[2] = {exact[0], exact[1]}, t = T;
    cr_assert_eq(sp_erk_integrate(s, &ctl, &t, 0.0, y), SP_OK);
    cr_expect_eq(t, 0.0);
    cr_expect_leq(fabs(y[0] - 1.0) + fabs(y[1]), 1e-10, "backwards: error %.2e", fabs(y[0] - 1.0) + fabs(y[1]));
    cr_expect_lt(sp_erk_get_stats(s).h_last, 0.0);
    sp_erk_free(s);
}

/* sp_erk_evolve takes one accepted step, never beyond t1, and proposes the next one. */
Test(explicit_rk, evolve_steps_to_the_end_point)
{
    sp_erk *s = erk("dop853", &smooth);
    sp_erk_control ctl = sp_erk_control_default();
    ctl.rtol = ctl.atol = 1e-8;
    double y[3] = {0, 1, 1}, t = 0.0, h = 0.0, exact[3];
    int steps = 0;
    while (t < 3.0) {
        double t_before = t;
        cr_assert_eq(sp_erk_evolve(s, &ctl, &t, 3.0, &h, y), SP_OK);
        cr_assert(t > t_before && t <= 3.0);
        cr_assert(h > 0.0);
        cr_assert_eq(y[0], y[0]);
        cr_expect_leq(fabs(y[0] - t), 1e-13 * (1 + t), "τ = %.17g at t = %.17g", y[0], t);
        ++steps;
    }
    smooth_exact(3.0, exact);
    cr_expect_eq(t, 3.0);
    cr_expect_leq(max_dist(3, y, exact), 1e-7);
    cr_expect_eq(sp_erk_get_stats(s).accepted, steps);
    sp_erk_free(s);
}

/* Failing callbacks of every kind. */
typedef struct {
    long calls, fail_at;
    int code;
} flaky;

static int flaky_rhs(const double *y, double *dy, void *params)
{
    flaky *f = params;
    if (++f->calls == f->fail_at) return f->code;
    return smooth_rhs(y, dy, NULL);
}

static int nan_rhs(const double *y, double *dy, void *params)
{
    (void)params;
    dy[0] = y[0] > 0.5 ? NAN : 1.0;
    return 0;
}

static int blowup_rhs(const double *y, double *dy, void *params)
{
    (void)params;
    dy[0] = y[0] * y[0];
    return 0;
}

Test(explicit_rk, failures_come_back_as_statuses)
{
    sp_erk_control ctl = sp_erk_control_default();
    const char *methods[] = {"euler", "rk4", "dop853"};
    for (int m = 0; m < 3; ++m) {
        /* a fatal callback failure in a fixed step: y untouched */
        flaky f = {0, 2, -1};
        sp_ode_system sys = {flaky_rhs, 3, &f};
        sp_erk *s = erk(methods[m], &sys);
        double y[3] = {0, 1, 1};
        sp_status st = sp_erk_fixed(s, 0, 1, 10, y);
        cr_expect_eq(st, SP_ERR_CALLBACK, "%s: %s", methods[m], sp_status_name(st));
        cr_expect_eq(sp_erk_stop(s), SP_ERK_CALLBACK);
        if (m == 0)
            cr_expect_eq(y[0], 0.1, "euler: the first step stands");
        else
            cr_expect(y[0] == 0 && y[1] == 1 && y[2] == 1, "%s: y changed by a failed step", methods[m]);
        /* a recoverable failure is still a failure in a fixed step */
        f.calls = 0, f.fail_at = 1, f.code = 1;
        cr_expect_eq(sp_erk_step(s, 0.1, y), SP_ERR_CALLBACK, "%s", methods[m]);
        sp_erk_free(s);
        /* non-finite values */
        sp_ode_system ns = {nan_rhs, 1, NULL};
        s = erk(methods[m], &ns);
        double x = 0.0;
        cr_expect_eq(sp_erk_fixed(s, 0, 1, 10, &x), SP_ERR_NONFINITE, "%s", methods[m]);
        cr_expect_eq(sp_erk_stop(s), SP_ERK_NONFINITE);
        cr_expect(isfinite(x) && x <= 0.61, "%s: the state became %g", methods[m], x);
        cr_expect_str_eq(sp_erk_stop_name(sp_erk_stop(s)), "non_finite");
        /* adaptive stepping needs an estimator */
        double t = 0.0;
        x = 0.0;
        if (!sp_erk_adaptive(s))
            cr_expect_eq(sp_erk_integrate(s, &ctl, &t, 1.0, &x), SP_ERR_INVALID, "%s", methods[m]);
        else {
            cr_expect_eq(sp_erk_integrate(s, &ctl, &t, 1.0, &x), SP_ERR_NONFINITE);
            cr_expect(t <= 0.5 && fabs(x - t) < 1e-12, "stopped at t = %g with x = %g", t, x);
        }
        sp_erk_free(s);
    }

    /* DOP853: a recoverable failure is retried with a smaller step */
    flaky f = {0, 30, 1};
    sp_ode_system sys = {flaky_rhs, 3, &f};
    sp_erk *s = erk("dop853", &sys);
    double y[3] = {0, 1, 1}, t = 0.0, exact[3];
    ctl.rtol = ctl.atol = 1e-10;
    cr_expect_eq(sp_erk_integrate(s, &ctl, &t, 2.0, y), SP_OK);
    smooth_exact(2.0, exact);
    cr_expect_leq(max_dist(3, y, exact), 1e-9);
    cr_expect_geq(sp_erk_get_stats(s).rejected, 1);
    /* … and a fatal one is not */
    f.calls = 0, f.fail_at = 30, f.code = -7;
    memcpy(y, (double[3]){0, 1, 1}, sizeof y);
    t = 0.0;
    cr_expect_eq(sp_erk_integrate(s, &ctl, &t, 2.0, y), SP_ERR_CALLBACK);
    cr_expect(t < 2.0 && fabs(y[0] - t) < 1e-12, "stopped at t = %g, τ = %g", t, y[0]);
    sp_erk_free(s);

    /* step-size underflow: y' = y², y(0) = 1 blows up at t = 1 */
    sp_ode_system bs = {blowup_rhs, 1, NULL};
    s = erk("dop853", &bs);
    double x = 1.0;
    t = 0.0;
    ctl = sp_erk_control_default();
    sp_status st = sp_erk_integrate(s, &ctl, &t, 2.0, &x);
    cr_expect_eq(st, SP_ERR_STEP_UNDERFLOW, "blow-up: %s", sp_status_name(st));
    cr_expect_eq(sp_erk_stop(s), SP_ERK_STEP_UNDERFLOW, "blow-up stopped by %s", sp_erk_stop_name(sp_erk_stop(s)));
    cr_expect(t > 0.999 && t < 1.001 && x > 1e3, "blow-up stopped at t = %.17g, y = %g", t, x);
    sp_erk_free(s);

    /* the step cap */
    sp_ode_system os = {oscillator_rhs, 2, NULL};
    s = erk("dop853", &os);
    double z[2] = {1, 0};
    t = 0.0;
    ctl.rtol = ctl.atol = 1e-10;
    ctl.max_steps = 20;
    cr_expect_eq(sp_erk_integrate(s, &ctl, &t, 100.0, z), SP_ERR_TOO_MANY_STEPS);
    cr_expect_eq(sp_erk_stop(s), SP_ERK_MAX_STEPS);
    cr_expect_eq(sp_erk_get_stats(s).steps, 20);
    cr_expect(t > 0.0 && t < 100.0);
    cr_expect_leq(fabs(z[0] - cos(t)), 1e-9);

    /* bad arguments */
    z[0] = 1, z[1] = 0, t = 0.0;
    sp_erk_control bad[6];
    for (int i = 0; i < 6; ++i) bad[i] = sp_erk_control_default();
    bad[0].rtol = -1;
    bad[1].rtol = bad[1].atol = 0;
    bad[2].safety = 1.5;
    bad[3].fac_min = 2;
    bad[4].max_steps = 0;
    bad[5].atol = NAN;
    for (int i = 0; i < 6; ++i) {
        cr_expect_eq(sp_erk_integrate(s, &bad[i], &t, 1.0, z), SP_ERR_INVALID, "control #%d accepted", i);
        cr_expect_eq(sp_erk_stop(s), SP_ERK_BAD_ARGUMENT);
    }
    cr_expect_eq(sp_erk_integrate(s, NULL, &t, 1.0, z), SP_ERR_INVALID);
    cr_expect_eq(sp_erk_fixed(s, 0, 1, 0, z), SP_ERR_INVALID);
    cr_expect_eq(sp_erk_step(s, NAN, z), SP_ERR_INVALID);
    cr_expect(z[0] == 1 && z[1] == 0 && t == 0.0);
    sp_erk_free(s);
    cr_expect_null(sp_erk_alloc("rk5", &os));
    cr_expect_null(sp_erk_alloc(NULL, &os));
    sp_ode_system empty = {oscillator_rhs, 0, NULL}, nofn = {NULL, 2, NULL};
    cr_expect_null(sp_erk_alloc("rk4", &empty));
    cr_expect_null(sp_erk_alloc("rk4", &nofn));
    cr_expect_null(sp_erk_alloc("rk4", NULL));
    sp_erk_free(NULL);
}

/* ------------------------------------------------------------------------------------
 * D1: the Dirac-extended field at an off-manifold point, against golden
 * values computed independently (H₀ = 1, L₃₀ = −1, k = 50). */

static const double yoff[6] = {0.1, 1.05, 0.02, 0.98, 0.03, 1.01};

Test(feedback, D1_field_at_off_manifold_point)
{
    static const double X_gold[6] = {0.9665486566627729,    -0.11123910504088419, 1.0073097313325545,
                                     -0.044419085272710934, -1.8465082217629614,  -0.8993898822895139};
    static const double F_gold[6] = {-7.4587513433372274, -13.464289105040885, -7.313340268667442,
                                     -2.682219085272709,  -9.591808221762962,  -1.5894398822895104};
    sp_feedback *fb = pendulum_feedback(&gains50);
    double X[6], F[6];
    cr_assert_eq(sp_feedback_field(fb, yoff, X), SP_OK);
    cr_assert_eq(sp_feedback_eval(fb, yoff, F), SP_OK);
    cr_expect_leq(max_dist(6, X, X_gold), 1e-14, "X off by %.2e", max_dist(6, X, X_gold));
    cr_expect_leq(max_dist(6, F, F_gold), 1e-14, "X − ∇V off by %.2e", max_dist(6, F, F_gold));
    /* the ODE callbacks give the same vectors */
    double Fc[6], Xc[6];
    cr_expect_eq(sp_feedback_rhs(yoff, Fc, fb), 0);
    cr_expect_eq(sp_feedback_rhs_plain(yoff, Xc, fb), 0);
    cr_expect(memcmp(Fc, F, sizeof F) == 0 && memcmp(Xc, X, sizeof X) == 0);
    /* d/dt of |q|², q·p, H, L₃ along X */
    const double *q = yoff, *p = yoff + 3, *qd = X, *pd = X + 3;
    double rates[4] = {2 * sp_vec_dot(3, q, qd), sp_vec_dot(3, qd, p) + sp_vec_dot(3, q, pd),
                       sp_vec_dot(3, p, pd) + qd[2], qd[0] * p[1] + q[0] * pd[1] - qd[1] * p[0] - q[1] * pd[0]};
    for (int i = 0; i < 4; ++i) cr_expect_leq(fabs(rates[i]), 1e-14, "invariant %d changes at rate %.2e", i, rates[i]);
    /* on T*S² the field is the constrained equation of motion:
     * q̇ = p, ṗ = −e₃ − λq, λ = |p|² − q₃ */
    double X0[6];
    cr_assert_eq(sp_feedback_field(fb, z_start, X0), SP_OK);
    const double lambda = sp_vec_dot(3, z_start + 3, z_start + 3) - z_start[2];
    double dae[6] = {z_start[3],           z_start[4],           z_start[5],
                     -lambda * z_start[0], -lambda * z_start[1], -1.0 - lambda * z_start[2]};
    cr_expect_leq(max_dist(6, X0, dae), 1e-15);
    /* V_fb vanishes at z0, its gradient too, so the feedback field is X there */
    double V, grad[6], F0[6];
    cr_assert_eq(sp_feedback_potential(fb, z_start, &V, grad), SP_OK);
    cr_assert_eq(sp_feedback_eval(fb, z_start, F0), SP_OK);
    cr_expect_eq(V, 0.0);
    cr_expect_leq(max_dist(6, F0, X0), 0.0);
    double dev[4];
    cr_assert_eq(sp_feedback_deviations(fb, yoff, dev), SP_OK);
    double inv[4];
    invariants(yoff, inv);
    cr_expect_leq(fabs(dev[0] - fabs(inv[0])) + fabs(dev[1] - fabs(inv[1])) + fabs(dev[2] - inv[2]) +
                      fabs(dev[3] - inv[3]),
                  1e-15, "deviations differ from (|q|² − 1, q·p, ΔH, ΔL₃)");
    sp_feedback_free(fb);
}

/* A model with two constraints and a non-unit mass, so that S = {ψ_a, ψ_b} ≠ 0:
 * g₁ = ½(|q|² − 1), g₂ = q₃ − 0.3 q₁², V = q₁q₂ + q₃. */

static int curve_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    (void)params, (void)hess;
    if (V) *V = q[0] * q[1] + q[2];
    if (grad) grad[0] = q[1], grad[1] = q[0], grad[2] = 1.0;
    return 0;
}

static int curve_constraints(const double *q, double *g, double *G, double *d2g, void *params)
{
    (void)params;
    if (g) g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0), g[1] = q[2] - 0.3 * q[0] * q[0];
    if (G) {
        G[0] = q[0], G[1] = q[1], G[2] = q[2];
        G[3] = -0.6 * q[0], G[4] = 0.0, G[5] = 1.0;
    }
    if (d2g) {
        memset(d2g, 0, 18 * sizeof *d2g);
        d2g[0] = d2g[4] = d2g[8] = 1.0;
        d2g[9] = -0.6;
    }
    return 0;
}

static int curve_integral(const double *q, const double *p, double *I, double *grad, void *params)
{
    (void)params; /* not conserved; only its gradient term is tested */
    *I = q[0] * p[2] + 0.5 * p[1] * p[1];
    if (grad) {
        memset(grad, 0, 6 * sizeof *grad);
        grad[0] = p[2], grad[3 + 2] = q[0], grad[3 + 1] = p[1];
    }
    return 0;
}

static const double curve_mass[3] = {2.0, 0.5, 1.5};
static const sp_holonomic_model curve = {3, 2, curve_mass, curve_potential, curve_constraints, NULL, NULL};

Test(feedback, general_dirac_field_keeps_both_constraints_and_energy)
{
    static const sp_first_integral I = {curve_integral, NULL};
    const sp_feedback_gains k = {3, 5, 7, 11, 1.5, 0.5};
    sp_feedback *fb = sp_feedback_alloc(&curve, &k, &I);
    cr_assert_not_null(fb);
    sp_feedback_set_reference_values(fb, 0.3, -0.2);
    const double z[6] = {0.4, 0.85, 0.2, 0.7, -0.3, 0.45}; /* off both constraints */
    const double *q = z, *p = z + 3;
    double X[6];
    cr_assert_eq(sp_feedback_field(fb, z, X), SP_OK);
    const double *qd = X, *pd = X + 3;
    double v[3], G[6], d2g[18], g[2];
    for (int i = 0; i < 3; ++i) v[i] = p[i] / curve_mass[i];
    curve_constraints(q, g, G, d2g, NULL);
    double worst = 0.0, scale = 0.0;
    for (int a = 0; a < 2; ++a) {
        double dg = sp_vec_dot(3, G + 3 * a, qd), dpsi = 0.0;
        for (int i = 0; i < 3; ++i) {
            double gv = 0.0;
            for (int l = 0; l < 3; ++l) gv += d2g[(a * 3 + i) * 3 + l] * v[l];
            dpsi += gv * qd[i] + G[3 * a + i] / curve_mass[i] * pd[i];
        }
        worst = fmax(worst, fmax(fabs(dg), fabs(dpsi)));
    }
    double gradV[3];
    curve_potential(q, NULL, gradV, NULL, NULL);
    double dH = sp_vec_dot(3, gradV, qd) + sp_vec_dot(3, v, pd);
    worst = fmax(worst, fabs(dH));
    for (int i = 0; i < 6; ++i) scale = fmax(scale, fabs(X[i]));
    cr_expect_leq(worst, 1e-14 * scale, "d/dt (g, ψ, H) along X: %.2e (|X| = %.2f)", worst, scale);
    cr_expect_geq(scale, 0.1);

    /* ∇V_fb against central differences of V_fb */
    double V, grad[6];
    cr_assert_eq(sp_feedback_potential(fb, z, &V, grad), SP_OK);
    cr_expect_gt(V, 0.0);
    double fd_err = 0.0;
    for (int i = 0; i < 6; ++i) {
        double zp[6], zm[6], Vp, Vm, eps = 1e-6;
        memcpy(zp, z, sizeof zp);
        memcpy(zm, z, sizeof zm);
        zp[i] += eps, zm[i] -= eps;
        cr_assert_eq(sp_feedback_potential(fb, zp, &Vp, NULL), SP_OK);
        cr_assert_eq(sp_feedback_potential(fb, zm, &Vm, NULL), SP_OK);
        fd_err = fmax(fd_err, fabs((Vp - Vm) / (2 * eps) - grad[i]) / (1.0 + fabs(grad[i])));
    }
    cr_expect_leq(fd_err, 1e-8, "∇V_fb differs from central differences by %.2e", fd_err);
    /* ∇V_fb · X = 0 for the constraint and energy terms (k₄ = 0: I is not an integral here) */
    sp_feedback_gains k3 = k;
    k3.k4 = 0.0;
    cr_assert_eq(sp_feedback_set_gains(fb, &k3), SP_OK);
    cr_assert_eq(sp_feedback_potential(fb, z, &V, grad), SP_OK);
    double dot = sp_vec_dot(6, grad, X), gn = sp_vec_norm(6, grad) * sp_vec_norm(6, X);
    cr_expect_leq(fabs(dot), 1e-14 * gn, "∇V_fb·X = %.2e", dot);
    /* singular W: q = 0 is outside the field's domain; a recoverable code for the ODE */
    double zero[6] = {0, 0, 0, 1, 1, 1}, out[6];
    cr_expect_eq(sp_feedback_field(fb, zero, out), SP_ERR_SINGULAR);
    cr_expect_eq(sp_feedback_rhs(zero, out, fb), 1);
    sp_feedback_gains negative = k;
    negative.k2 = -1;
    cr_expect_eq(sp_feedback_set_gains(fb, &negative), SP_ERR_INVALID);
    cr_expect_null(sp_feedback_alloc(&curve, &negative, NULL));
    cr_expect_null(sp_feedback_alloc(NULL, &k, NULL));
    sp_feedback_free(fb);
    sp_feedback_free(NULL);
}

/* D2: one feedback-Euler step of h = 1e-3 from yoff (golden values computed
 * independently). */
Test(feedback, D2_one_feedback_euler_step)
{
    static const double gold[6] = {0.09254124865666277, 1.036535710894959,    0.012686659731332558,
                                   0.9773177809147273,  0.020408191778237036, 1.0084105601177105};
    sp_feedback *fb = pendulum_feedback(&gains50);
    sp_ode_system sys = sp_feedback_system(fb, 1);
    sp_erk *s = erk("euler", &sys);
    double z[6];
    memcpy(z, yoff, sizeof z);
    cr_assert_eq(sp_erk_step(s, 1e-3, z), SP_OK);
    cr_expect_leq(max_dist(6, z, gold), 1e-14, "off by %.2e", max_dist(6, z, gold));
    sp_erk_free(s);
    sp_feedback_free(fb);
}

/* D3: the exact flows at t = 0.1 from z0 (golden values computed independently). */
Test(splitting, D3_exact_flows)
{
    static const double h1[6] = {0.09966699984131394, 0.9900166555595229,  0.09966699984131394,
                                 0.9900166555595229,  -0.1993339996826279, 0.9900166555595229};
    static const double h2[6] = {0.0, 1.0, 0.0, 1.0, 0.0, 0.9};
    double z[6];
    memcpy(z, z_start, sizeof z);
    cr_assert_eq(sp_spherical_pendulum_flow_kinetic(0.1, z, (void *)&unit_pendulum), 0);
    cr_expect_leq(max_dist(6, z, h1), 1e-14, "H1 flow off by %.2e", max_dist(6, z, h1));
    memcpy(z, z_start, sizeof z);
    cr_assert_eq(sp_spherical_pendulum_flow_gravity(0.1, z, (void *)&unit_pendulum), 0);
    cr_expect_leq(max_dist(6, z, h2), 1e-14, "H2 flow off by %.2e", max_dist(6, z, h2));
    /* each flow is a group: φ(s)∘φ(t) = φ(s + t), φ(−t) = φ(t)⁻¹ */
    sp_split_flow flows[2] = {sp_spherical_pendulum_flow_kinetic, sp_spherical_pendulum_flow_gravity};
    double on[6]; /* yoff moved onto T*S², where the formulas are the exact flows */
    const double r = sp_vec_norm(3, yoff);
    for (int i = 0; i < 3; ++i) on[i] = yoff[i] / r;
    const double along = sp_vec_dot(3, on, yoff + 3);
    for (int i = 0; i < 3; ++i) on[3 + i] = yoff[3 + i] - along * on[i];
    for (int f = 0; f < 2; ++f) {
        double a[6], b[6];
        memcpy(a, on, sizeof a), memcpy(b, on, sizeof b);
        flows[f](0.3, a, (void *)&unit_pendulum), flows[f](0.4, a, (void *)&unit_pendulum);
        flows[f](0.7, b, (void *)&unit_pendulum);
        cr_expect_leq(max_dist(6, a, b), 1e-15, "flow %d is not a one-parameter group", f);
        flows[f](-0.7, b, (void *)&unit_pendulum);
        cr_expect_leq(max_dist(6, b, on), 1e-15, "flow %d backwards is not the inverse", f);
    }
    /* p = 0: the rotation is the identity */
    double rest[6] = {0, 0, -1, 0, 0, 0};
    cr_assert_eq(sp_spherical_pendulum_flow_kinetic(5.0, rest, (void *)&unit_pendulum), 0);
    cr_expect(rest[2] == -1 && rest[0] == 0 && rest[5] == 0);
    /* the methods are the documented compositions */
    const sp_splitting_method *lt = sp_splitting_method_by_name("lie_trotter"),
                              *st = sp_splitting_method_by_name("strang");
    cr_assert(lt && st);
    cr_expect_eq(lt->order, 1);
    cr_expect_eq(st->order, 2);
    sp_split_system sys = sp_spherical_pendulum_split(&unit_pendulum);
    double a[6], b[6];
    memcpy(a, z_start, sizeof a), memcpy(b, z_start, sizeof b);
    cr_assert_eq(sp_splitting_step(st, &sys, 0.1, a), SP_OK);
    sp_spherical_pendulum_flow_gravity(0.05, b, sys.params);
    sp_spherical_pendulum_flow_kinetic(0.1, b, sys.params);
    sp_spherical_pendulum_flow_gravity(0.05, b, sys.params);
    cr_expect(memcmp(a, b, sizeof a) == 0, "strang is not φ2(h/2)∘φ1(h)∘φ2(h/2)");
    memcpy(a, z_start, sizeof a), memcpy(b, z_start, sizeof b);
    cr_assert_eq(sp_splitting_step(lt, &sys, 0.1, a), SP_OK);
    sp_spherical_pendulum_flow_kinetic(0.1, b, sys.params);
    sp_spherical_pendulum_flow_gravity(0.1, b, sys.params);
    cr_expect(memcmp(a, b, sizeof a) == 0, "lie_trotter is not φ2∘φ1");
    /* failures */
    cr_expect_null(sp_splitting_method_by_name("yoshida"));
    cr_expect_null(sp_splitting_method_by_name(NULL));
    sp_split_system one_part = sys;
    one_part.parts = 1;
    cr_expect_eq(sp_splitting_step(st, &one_part, 0.1, a), SP_ERR_INVALID);
    const sp_spherical_pendulum broken = {1, 1, 0};
    sp_split_system bad = sp_spherical_pendulum_split(&broken);
    cr_expect_eq(sp_splitting_step(st, &bad, 0.1, a), SP_ERR_CALLBACK);
    const sp_spherical_pendulum huge = {1e-300, 1e300, 1};
    sp_split_system inf = sp_spherical_pendulum_split(&huge);
    memcpy(a, z_start, sizeof a);
    cr_expect_eq(sp_splitting_step(lt, &inf, 1e300, a), SP_ERR_NONFINITE);
}

/* ------------------------------------------------------------------------------------
 * D4 and D5: [0, 100] with h = 1e-3, maxima of |invariant deviations| over every step. */

typedef int (*step_map)(void *ctx, double h, double *z);

static int erk_map(void *ctx, double h, double *z) { return sp_erk_step(ctx, h, z) != SP_OK; }

typedef struct {
    const sp_splitting_method *method;
    sp_split_system sys;
} split_ctx;

static int split_map(void *ctx, double h, double *z)
{
    split_ctx *c = ctx;
    return sp_splitting_step(c->method, &c->sys, h, z) != SP_OK;
}

static int rattle_map(void *ctx, double h, double *z) { return sp_holonomic_step(ctx, h, z, z + 3) != SP_OK; }

static void long_run(step_map map, void *ctx, double worst[4])
{
    double z[6], dev[4];
    memcpy(z, z_start, sizeof z);
    for (int i = 0; i < 4; ++i) worst[i] = 0.0;
    for (long k = 0; k < 100000; ++k) {
        cr_assert_eq(map(ctx, 1e-3, z), 0, "step %ld failed", k);
        invariants(z, dev);
        for (int i = 0; i < 4; ++i) worst[i] = fmax(worst[i], fabs(dev[i]));
    }
}

Test(feedback, D4_feedback_euler_keeps_invariants_plain_euler_does_not)
{
    sp_feedback *fb = pendulum_feedback(&gains50);
    double worst[4], t0 = seconds();
    for (int with = 1; with >= 0; --with) {
        sp_ode_system sys = sp_feedback_system(fb, with);
        sp_erk *s = erk("euler", &sys);
        long_run(erk_map, s, worst);
        cr_log_info("%s Euler: max |q|²−1 %.2e, q·p %.2e, ΔH %.2e, ΔL3 %.2e", with ? "feedback" : "plain", worst[0],
                    worst[1], worst[2], worst[3]);
        if (with)
            for (int i = 0; i < 4; ++i)
                cr_expect_leq(worst[i], 1e-4, "feedback+Euler: invariant %d off by %.2e", i, worst[i]);
        else
            cr_expect_gt(worst[2], 0.1, "Euler without feedback: |ΔH| only %.2e", worst[2]);
        sp_erk_free(s);
    }
    cr_log_info("D4: two runs of 1e5 Euler steps in %.2f s", seconds() - t0);
    sp_feedback_free(fb);
}

Test(splitting, D5_invariants_of_strang_lie_trotter_rattle)
{
    static const struct {
        const char *name;
        double energy;
    } cases[] = {{"strang", 1e-6}, {"lie_trotter", 2e-3}, {"rattle", 1e-6}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double worst[4], t0 = seconds();
        if (strcmp(cases[c].name, "rattle") == 0) {
            sp_holonomic *r = sp_holonomic_alloc(&fixture_pendulum, sp_holonomic_method_by_name("rattle"));
            cr_assert_not_null(r);
            long_run(rattle_map, r, worst);
            sp_holonomic_free(r);
        } else {
            split_ctx ctx = {sp_splitting_method_by_name(cases[c].name), sp_spherical_pendulum_split(&unit_pendulum)};
            cr_assert_not_null(ctx.method);
            long_run(split_map, &ctx, worst);
        }
        cr_log_info("%s: max |q|²−1 %.2e, q·p %.2e, ΔH %.2e, ΔL3 %.2e (%.2f s)", cases[c].name, worst[0], worst[1],
                    worst[2], worst[3], seconds() - t0);
        cr_expect_leq(worst[0], 1e-12, "%s: |q|² − 1 = %.2e", cases[c].name, worst[0]);
        cr_expect_leq(worst[1], 1e-12, "%s: q·p = %.2e", cases[c].name, worst[1]);
        cr_expect_leq(worst[2], cases[c].energy, "%s: ΔH = %.2e", cases[c].name, worst[2]);
        cr_expect_leq(worst[3], 1e-11, "%s: ΔL3 = %.2e", cases[c].name, worst[3]);
        cr_expect_geq(worst[2], 1e-9, "%s: ΔH = %.2e is implausibly small", cases[c].name, worst[2]);
    }
}

/* ------------------------------------------------------------------------------------
 * D6: orders at T = 10 against y_ref_10, h = T/N exactly. */

static double error_at_10(step_map map, void *ctx, long N)
{
    double z[6];
    memcpy(z, z_start, sizeof z);
    for (long k = 0; k < N; ++k) cr_assert_eq(map(ctx, 10.0 / N, z), 0);
    return max_dist(6, z, y_ref_10);
}

static double last_order(step_map map, void *ctx, long N0, const char *name, void (*reset)(void *))
{
    double e[4];
    for (int l = 0; l < 4; ++l) {
        if (reset) reset(ctx);
        e[l] = error_at_10(map, ctx, N0 << l);
    }
    double p = log2(e[2] / e[3]);
    cr_log_info("%s: errors %.4e %.4e %.4e %.4e, orders %.3f %.3f %.3f", name, e[0], e[1], e[2], e[3],
                log2(e[0] / e[1]), log2(e[1] / e[2]), p);
    return p;
}

static void erk_forget(void *ctx) { sp_erk_reset(ctx); }

Test(splitting, D6_orders_against_the_reference)
{
    split_ctx lt = {sp_splitting_method_by_name("lie_trotter"), sp_spherical_pendulum_split(&unit_pendulum)};
    split_ctx st = {sp_splitting_method_by_name("strang"), sp_spherical_pendulum_split(&unit_pendulum)};
    double p = last_order(split_map, &lt, 500, "lie_trotter", NULL); /* h = 0.02 … 0.0025 */
    cr_expect(fabs(p - 1.0) <= 0.05, "Lie–Trotter order %.3f", p);
    p = last_order(split_map, &st, 500, "strang", NULL);
    cr_expect(fabs(p - 2.0) <= 0.05, "Strang order %.3f", p);
    sp_feedback *fb = pendulum_feedback(&gains50);
    sp_ode_system sys = sp_feedback_system(fb, 1);
    sp_erk *s = erk("euler", &sys);
    p = last_order(erk_map, s, 5000, "feedback+euler", erk_forget); /* h = 0.002 … 0.00025 */
    cr_expect(fabs(p - 1.0) <= 0.05, "feedback + Euler order %.3f", p);
    sp_erk_free(s);
    sp_feedback_free(fb);
}

/* Feedback with the higher-order steppers: RK4 converges with order ≈ 4 once h·4k₁ is well
 * inside the stability region (an independent Python implementation measures 4.2–4.5),
 * DOP853 reaches the reference. */
Test(feedback, feedback_with_rk4_and_dop853)
{
    sp_feedback *fb = pendulum_feedback(&gains50);
    sp_ode_system sys = sp_feedback_system(fb, 1);
    sp_erk *s = erk("rk4", &sys);
    double e[3];
    for (int l = 0; l < 3; ++l) e[l] = error_at_10(erk_map, s, 2000L << l); /* h = 0.005 … 0.00125 */
    double p = log2(e[1] / e[2]);
    cr_log_info("feedback+rk4: errors %.3e %.3e %.3e, orders %.2f %.2f", e[0], e[1], e[2], log2(e[0] / e[1]), p);
    cr_expect(p >= 3.9 && p <= 4.8, "feedback + RK4 order %.2f", p);
    sp_erk_free(s);

    s = erk("dop853", &sys);
    sp_erk_control ctl = sp_erk_control_default();
    ctl.rtol = ctl.atol = 1e-10;
    double z[6], t = 0.0, dev[4];
    memcpy(z, z_start, sizeof z);
    cr_assert_eq(sp_erk_integrate(s, &ctl, &t, 10.0, z), SP_OK);
    sp_erk_stats st = sp_erk_get_stats(s);
    invariants(z, dev);
    cr_log_info("feedback+dop853 (tol 1e-10): error %.2e, %ld evaluations, %ld steps, %ld rejected",
                max_dist(6, z, y_ref_10), st.evaluations, st.steps, st.rejected);
    cr_expect_leq(max_dist(6, z, y_ref_10), 1e-8);
    for (int i = 0; i < 4; ++i) cr_expect_leq(fabs(dev[i]), 1e-9, "invariant %d: %.2e", i, dev[i]);
    sp_erk_free(s);
    sp_feedback_free(fb);
}

/* ------------------------------------------------------------------------------------
 * Symplecticity on T*S² at h = 0.05: an orthonormal basis U of ker DC(z0),
 * C = (|q|² − 1, q·p), then ‖(DΦU)ᵀJ(DΦU) − UᵀJU‖∞ with DΦU by central differences. */

/* The library's one implementation (integrators/sp_symplecticity.h). */
static double symplecticity_defect(step_map map, void *ctx, const double *z0, double h)
{
    const double DC[12] = {2 * z0[0], 2 * z0[1], 2 * z0[2], 0, 0, 0, z0[3], z0[4], z0[5], z0[0], z0[1], z0[2]};
    double defect;
    int dim;
    cr_assert_eq(fixture_ts2_defect(map, ctx, h, z0, DC, &defect, &dim), SP_OK);
    cr_assert_eq(dim, 4);
    return defect;
}

Test(splitting, symplecticity_defects_on_TS2)
{
    split_ctx lt = {sp_splitting_method_by_name("lie_trotter"), sp_spherical_pendulum_split(&unit_pendulum)};
    split_ctx st = {sp_splitting_method_by_name("strang"), sp_spherical_pendulum_split(&unit_pendulum)};
    double d_lt = symplecticity_defect(split_map, &lt, z_start, 0.05);
    double d_st = symplecticity_defect(split_map, &st, z_start, 0.05);
    sp_feedback *fb = pendulum_feedback(&gains50);
    sp_ode_system sys = sp_feedback_system(fb, 1);
    sp_erk *s = erk("euler", &sys);
    double d_fb = symplecticity_defect(erk_map, s, z_start, 0.05);
    cr_log_info("symplecticity defects (h = 0.05): strang %.2e, lie_trotter %.2e, feedback+euler %.2e", d_st, d_lt,
                d_fb);
    cr_expect_leq(d_st, 1e-8, "Strang defect %.2e", d_st);
    cr_expect_leq(d_lt, 1e-8, "Lie–Trotter defect %.2e", d_lt);
    cr_expect_geq(d_fb, 1.0, "feedback + Euler defect only %.2e", d_fb);
    sp_erk_free(s);
    sp_feedback_free(fb);
}
