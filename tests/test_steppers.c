/* The conformance suite of the step types (integrators/sp_step.h): every registered type,
 * with the fixture model of its kind (step_fixtures.h), is checked for what every method
 * promises: its measured order is its declared order, the quantity it is built to keep
 * is kept at its level, a failure comes back as a status with the state bitwise
 * untouched, h = 0 and a non-finite h are refused, reset is deterministic, a symmetric
 * method is reversible, and its work is counted. A type added to the registry is checked
 * here with no new test code. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_step.h"
#include "step_fixtures.h"

static void fixture_of(const sp_step_type *t, step_fixture *f)
{
    cr_assert_eq(step_fixture_init(f, t->model), SP_OK, "%s: the fixture of its kind", t->name);
}

static sp_step *stepper_of(const sp_step_type *t, const step_fixture *f)
{
    sp_step *s = sp_step_alloc(t, f->model, &f->options, NULL);
    cr_assert_not_null(s, "%s: alloc on its fixture", t->name);
    cr_assert_eq(sp_step_layout_of(s)->dim, f->dim, "%s: the layout has the fixture's size", t->name);
    return s;
}

/* Largest difference over the parts the order bounds (not the aux ones); NaN passes through. */
static double state_error(const sp_step_layout *L, const double *a, const double *b)
{
    double e = 0.0;
    int k = 0;
    for (int i = 0; i < L->n_parts; ++i)
        for (int j = 0; j < L->part[i].size; ++j, ++k)
            if (!L->part[i].aux) e = fixture_worse(e, fabs(a[k] - b[k]));
    return e;
}

/* N steps of T/N from the fixture's start into x. */
static sp_status integrate(const sp_step_type *t, const step_fixture *f, int N, double *x)
{
    sp_step *s = stepper_of(t, f);
    memcpy(x, f->x0, sizeof f->x0);
    sp_status st = SP_OK;
    for (int i = 0; i < N && st == SP_OK; ++i) st = sp_step_apply(s, f->T / N, x);
    sp_step_free(s);
    return st;
}

#define FOR_EACH_TYPE(t) for (size_t i_ = 0; (t = sp_step_type_at(i_)) != NULL; ++i_)

/* One check of one type: its fixture, a fresh stepper on it and the state at the start. */
typedef void (*check_fn)(const sp_step_type *t, step_fixture *f, sp_step *s, double *x);

/* Runs a check on every registered type whose flags include `needs`. */
static void for_each_type(unsigned needs, check_fn check)
{
    const sp_step_type *t;
    FOR_EACH_TYPE(t)
    {
        if ((t->flags & needs) != needs) continue;
        step_fixture f;
        fixture_of(t, &f);
        sp_step *s = stepper_of(t, &f);
        double x[SP_STEP_MAX_DIM];
        memcpy(x, f.x0, sizeof x);
        check(t, &f, s, x);
        sp_step_free(s);
    }
}

/* n steps of h on x, each of which must succeed. */
static void steps(const sp_step_type *t, sp_step *s, int n, double h, double *x)
{
    for (int k = 0; k < n; ++k) {
        const sp_status st = sp_step_apply(s, h, x);
        cr_assert_eq(st, SP_OK, "%s: step %d of %g: %s", t->name, k, h, sp_status_name(st));
    }
}

Test(steppers, registry_lists_every_type_once_by_name)
{
    const sp_step_type *t;
    size_t count = 0;
    FOR_EACH_TYPE(t)
    {
        ++count;
        cr_expect(t->name && t->alloc && t->step && t->reset && t->free, "%zu: a complete table", i_);
        cr_expect_eq(sp_step_type_named(t->name), t, "%s: found by its name, and only it", t->name);
        cr_expect(t->order >= 1, "%s: declares its order", t->name);
        cr_expect(t->model < SP_STEP_MODEL_KINDS, "%s: a model kind", t->name);
        cr_expect(!(t->flags & SP_STEP_ADAPTIVE) == !t->evolve, "%s: adaptive exactly when it can evolve", t->name);
        cr_expect(t->keeps == SP_STEP_KEEPS_NOTHING || t->invariant, "%s: measures what it keeps", t->name);
        if (t->model != SP_STEP_MODEL_ROUND_SPHERE) {
            sp_status why = SP_OK;
            cr_expect_null(sp_step_alloc(t, NULL, NULL, &why), "%s: no model, no stepper", t->name);
            cr_expect_neq(why, SP_OK, "%s: and a status that says so", t->name);
        }
    }
    cr_expect_geq(count, 47, "every method of the library is registered (%zu)", count);
    cr_expect_null(sp_step_type_named("no_such_method"));
    cr_expect_null(sp_step_type_named(NULL));
}

/* The order between N and 2N steps over the span T, from the errors against a reference
 * with 64 times the steps, for N = 1, 2, 3, 4, 6, 8, … 128 (steps too long for a solve are
 * skipped), in the window where the errors are below 1e-2 and the finer one above 1e-12
 * (clear of round-off): of these pairs, the one closest to the declared order (NaN when
 * none qualifies). */
static double order_over(const sp_step_type *t, const step_fixture *f, const sp_step_layout *L)
{
    double a[SP_STEP_MAX_DIM], b[SP_STEP_MAX_DIM], ref[SP_STEP_MAX_DIM];
    double measured = NAN;
    for (int N = 1; N <= 128; N = N % 3 == 0 ? 4 * N / 3 : N == 1 ? 2 : 3 * N / 2) {
        if (integrate(t, f, N, a) != SP_OK || integrate(t, f, 2 * N, b) != SP_OK) continue;
        if (integrate(t, f, 64 * N, ref) != SP_OK) break;
        const double ea = state_error(L, a, ref), eb = state_error(L, b, ref);
        if (ea > 1e-2) continue;
        if (eb < 1e-12) break;
        const double m = log2(ea / eb);
        if (isnan(measured) || fabs(m - t->order) < fabs(measured - t->order)) measured = m;
    }
    return measured;
}

/* A high order shows between its pre-asymptotic range and round-off only in a narrow
 * window, which depends on the span: the spans 1, 4 and 16 are measured and the one
 * closest to the declared order counts. Orders up to 8 must match within 0.2; orders 10
 * and up, whose window is narrowest in double precision, within 0.5 (the measured order
 * rounds to the declared one). */
static void check_order(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    (void)x;
    double measured = NAN;
    for (int k = 0; k < 3; ++k, f->T *= 4) {
        const double m = order_over(t, f, sp_step_layout_of(s));
        if (isnan(measured) || fabs(m - t->order) < fabs(measured - t->order)) measured = m;
    }
    cr_log_info("%s: order %.3f (declared %d)", t->name, measured, t->order);
    cr_expect(fabs(measured - t->order) <= (t->order <= 8 ? 0.2 : 0.5), "%s: measured order %.3f, declared %d", t->name,
              measured, t->order);
}

Test(steppers, measured_order_is_declared_order) { for_each_type(0, check_order); }

/* Over 100 steps of 0.05. */
static void check_invariant(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    (void)f;
    if (t->keeps == SP_STEP_KEEPS_NOTHING) return;
    double v0[SP_STEP_MAX_INVARIANTS], v[SP_STEP_MAX_INVARIANTS], worst = 0.0;
    int n0, n;
    cr_assert_eq(sp_step_invariant(s, x, v0, &n0), SP_OK, "%s", t->name);
    cr_assert(n0 >= 1 && n0 <= SP_STEP_MAX_INVARIANTS, "%s: %d kept quantities", t->name, n0);
    for (int k = 0; k < 100; ++k) {
        steps(t, s, 1, 0.05, x);
        cr_assert_eq(sp_step_invariant(s, x, v, &n), SP_OK, "%s", t->name);
        cr_assert_eq(n, n0);
        for (int j = 0; j < n; ++j)
            worst = fixture_worse(worst, t->keeps == SP_STEP_KEEPS_ZERO ? fabs(v[j]) : fabs(v[j] - v0[j]));
    }
    cr_log_info("%s: keeps %.3g (promised %g)", t->name, worst, t->invariant_tol);
    cr_expect(worst <= t->invariant_tol, "%s: kept to %g (promised %g)", t->name, worst, t->invariant_tol);
}

Test(steppers, keeps_its_invariant) { for_each_type(0, check_invariant); }

/* A model that fails, fatally and recoverably (or, with no callbacks, a non-finite state),
 * after a good first step: a status, and the state bitwise as it was; then the stepper
 * goes on once the model does. */
static void check_failure(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    double before[SP_STEP_MAX_DIM];
    steps(t, s, 1, 0.05, x);
    static const int codes[] = {-1, 1};
    for (int c = 0; c < (f->callbacks ? 2 : 1); ++c) {
        if (f->callbacks)
            f->fail = codes[c];
        else
            x[f->dim - 1] = NAN;
        memcpy(before, x, sizeof before);
        const sp_status st = sp_step_apply(s, 0.05, x);
        cr_expect_neq(st, SP_OK, "%s: a failing step (%d) reports it", t->name, codes[c]);
        cr_expect(memcmp(x, before, sizeof before) == 0, "%s: the state is untouched after %s", t->name,
                  sp_status_name(st));
    }
    f->fail = 0;
    memcpy(x, f->x0, sizeof f->x0);
    cr_expect_eq(sp_step_apply(s, 0.05, x), SP_OK, "%s: steps again after a failure", t->name);
}

Test(steppers, failure_is_a_status_with_state_untouched) { for_each_type(0, check_failure); }

static void check_refused(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    const double bad[] = {0.0, -0.0, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        cr_expect_eq(sp_step_apply(s, bad[k], x), SP_ERR_INVALID, "%s: h = %g", t->name, bad[k]);
        cr_expect(memcmp(x, f->x0, sizeof f->x0) == 0, "%s: untouched by h = %g", t->name, bad[k]);
    }
    cr_expect_eq(sp_step_stats_of(s).steps, 0, "%s: refused steps are not steps", t->name);
}

Test(steppers, zero_and_nonfinite_steps_are_refused) { for_each_type(0, check_refused); }

static void check_reset(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    double y[SP_STEP_MAX_DIM];
    steps(t, s, 12, 0.05, x);
    sp_step_reset(s);
    memcpy(y, f->x0, sizeof y);
    steps(t, s, 12, 0.05, y);
    cr_expect(memcmp(x, y, sizeof y) == 0, "%s: the same steps after reset give the same state", t->name);
}

Test(steppers, reset_is_deterministic) { for_each_type(0, check_reset); }

/* Five steps of 0.1, then five of −0.1. */
static void check_reversible(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    steps(t, s, 5, 0.1, x);
    steps(t, s, 5, -0.1, x);
    const double e = state_error(sp_step_layout_of(s), x, f->x0);
    cr_expect(e <= 1e-12, "%s: back to %g after h then −h", t->name, e);
}

Test(steppers, symmetric_methods_are_reversible) { for_each_type(SP_STEP_SYMMETRIC, check_reversible); }

static void check_work(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    (void)f;
    steps(t, s, 7, 0.05, x);
    const sp_step_stats w = sp_step_stats_of(s);
    cr_expect_eq(w.steps, 7, "%s: steps", t->name);
    if (t->flags & SP_STEP_IMPLICIT)
        cr_expect(w.newton_iterations >= 7 && w.max_iterations >= 1, "%s: Newton iterations %ld", t->name,
                  w.newton_iterations);
    else
        cr_expect(w.rhs_evaluations + w.exact_flows >= 7, "%s: evaluations %ld, flows %ld", t->name, w.rhs_evaluations,
                  w.exact_flows);
}

Test(steppers, work_is_counted) { for_each_type(0, check_work); }

/* An adaptive type lands on t1 and agrees with its own fine fixed steps. */
static void check_evolve(const sp_step_type *t, step_fixture *f, sp_step *s, double *x)
{
    double ref[SP_STEP_MAX_DIM], time = 0.0, h = 0.0;
    for (int calls = 0; time != f->T && calls < 1000; ++calls)
        cr_assert_eq(sp_step_evolve(s, &time, f->T, &h, 1000, x), SP_OK, "%s at t = %g", t->name, time);
    cr_expect_eq(time, f->T, "%s: lands on t1", t->name);
    cr_assert_eq(integrate(t, f, 64, ref), SP_OK, "%s", t->name);
    const double e = state_error(sp_step_layout_of(s), x, ref);
    cr_expect(e <= 1e-5, "%s: %g from the fixed steps", t->name, e);
    cr_expect_gt(sp_step_stats_of(s).steps, 0, "%s: attempts counted", t->name);
}

Test(steppers, adaptive_types_evolve_to_the_end) { for_each_type(SP_STEP_ADAPTIVE, check_evolve); }

/* A model that fails already where the stepper starts: either the stepper does not look
 * at it before its first step, or alloc says what the model reported, not out of memory. */
Test(steppers, alloc_tells_a_failing_model_from_no_memory)
{
    const sp_step_type *t;
    FOR_EACH_TYPE(t)
    {
        step_fixture f;
        fixture_of(t, &f);
        if (!f.callbacks) continue;
        f.fail = -1;
        sp_status why = SP_OK;
        sp_step *s = sp_step_alloc(t, f.model, &f.options, &why);
        if (s)
            cr_expect_eq(why, SP_OK, "%s", t->name);
        else
            cr_expect_eq(why, SP_ERR_CALLBACK, "%s: %s", t->name, sp_status_name(why));
        sp_step_free(s);
    }
}
