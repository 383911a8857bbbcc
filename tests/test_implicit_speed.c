/* The warm start of the Gauss index-1 stepper and of the Lobatto IIIA–IIIB nonholonomic
 * stepper (sp_newton_options.warm_start): the predictor from the last step's stages and
 * simplified Newton with a kept factorisation (sp_newton_solve_simplified) reach the
 * solution full Newton from the plain start reaches, with fewer factorisations, and a
 * kept Jacobian that fails on a hard step gives way to a fresh one instead of a failure;
 * the problem files choose it with "solver": "simplified_newton". */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrators/sp_index1.h"
#include "integrators/sp_nonholonomic.h"
#include "lie/sp_linalg.h"
#include "planner/sp_solve.h"
#include "problems/sp_problem.h"
#include "problems/nonholonomic/sp_nh_models.h"
#include "problems/vakonomic/sp_vak_models.h"

typedef struct inst {
    sp_param_values prm;
    double mass[SP_VAK_MAX_N];
    sp_vakonomic_model model;
} inst;

static const double heis_q0[3] = {0, 0, 0}, heis_p0[3] = {0.1, 0.3, 1}; /* as bench/index1_bench.c */

static void bind_heisenberg(inst *I)
{
    memset(I, 0, sizeof *I);
    sp_params_default(SP_PARAM_SPEC(&sp_vak_heisenberg), &I->prm);
    sp_vak_model_bind(&sp_vak_heisenberg, &I->prm, I->mass, &I->model);
}

static sp_index1 *stepper(const sp_vakonomic_model *model, int s, int warm)
{
    sp_tableau t;
    cr_assert_eq(sp_tableau_get("gauss", s, &t), SP_OK);
    sp_index1 *st = sp_index1_alloc(model, &t);
    cr_assert_not_null(st);
    sp_newton_options o = sp_newton_options_default();
    o.warm_start = warm;
    sp_index1_set_options(st, &o);
    return st;
}

static double max_abs_diff(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

typedef struct run_out {
    double q[3], p[3];
    double iterations, factorizations; /* per step, over the steps after the first */
} run_out;

static run_out integrate(sp_index1 *st, double h, int N)
{
    run_out r;
    sp_vec_copy(3, heis_q0, r.q), sp_vec_copy(3, heis_p0, r.p);
    long it = 0, lu = 0;
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_index1_step(st, h, r.q, r.p, r.q, r.p, NULL), SP_OK, "step %d", k);
        if (k) it += sp_index1_iterations(st), lu += sp_index1_factorizations(st);
    }
    r.iterations = (double)it / (N - 1), r.factorizations = (double)lu / (N - 1);
    return r;
}

Test(implicit_speed, warm_start_reaches_the_full_newton_solution)
{
    inst I;
    bind_heisenberg(&I);
    for (int s = 1; s <= 3; ++s) {
        sp_index1 *full = stepper(&I.model, s, 0), *warm = stepper(&I.model, s, 1);
        /* one step after a continued one: the warm stepper predicts the second step */
        double qf[3], pf[3], qw[3], pw[3];
        sp_vec_copy(3, heis_q0, qf), sp_vec_copy(3, heis_p0, pf);
        sp_vec_copy(3, heis_q0, qw), sp_vec_copy(3, heis_p0, pw);
        for (int k = 0; k < 2; ++k) {
            cr_assert_eq(sp_index1_step(full, 0.1, qf, pf, qf, pf, NULL), SP_OK);
            cr_assert_eq(sp_index1_step(warm, 0.1, qw, pw, qw, pw, NULL), SP_OK);
        }
        const double d1 = fmax(max_abs_diff(3, qf, qw), max_abs_diff(3, pf, pw));
        cr_expect_leq(d1, 1e-15, "s=%d: two steps differ by %.2e", s, d1);
        /* a whole run, T = 10 */
        run_out a = integrate(full, 0.1, 100), b = integrate(warm, 0.1, 100);
        const double d = fmax(max_abs_diff(3, a.q, b.q), max_abs_diff(3, a.p, b.p));
        cr_log_info("Heisenberg s=%d h=0.1 T=10: |warm − full| %.1e; per step: full %.2f it %.2f LU, warm %.2f it "
                    "%.2f LU",
                    s, d, a.iterations, a.factorizations, b.iterations, b.factorizations);
        cr_expect_leq(d, 1e-13, "s=%d: the runs differ by %.2e", s, d);
        sp_index1_free(full), sp_index1_free(warm);
    }
}

/* At the bench's settings (h = 0.1, tolerance 1e-15) a warm step needs about one
 * factorisation every other step, where full Newton takes one per iteration. (The goal of
 * at most two iterations per step is not met at this tolerance: the extrapolation is
 * O(h^(s+1)) ≈ 6e-5 off, and three updates are needed to certify 1e-15.) */
Test(implicit_speed, warm_start_factors_less)
{
    inst I;
    bind_heisenberg(&I);
    for (int s = 2; s <= 3; ++s) {
        sp_index1 *full = stepper(&I.model, s, 0), *warm = stepper(&I.model, s, 1);
        run_out a = integrate(full, 0.1, 200), b = integrate(warm, 0.1, 200);
        cr_log_info("Heisenberg s=%d: warm %.2f it/step %.2f LU/step; full %.2f it/step", s, b.iterations,
                    b.factorizations, a.iterations);
        cr_expect_leq(b.factorizations, 0.75, "s=%d: %.2f factorisations per step", s, b.factorizations);
        cr_expect_leq(b.iterations, 6.0, "s=%d: %.2f iterations per step", s, b.iterations);
        sp_index1_free(full), sp_index1_free(warm);
    }
}

/* A kept factorisation from steps of h = 0.1 on a continued step of h = 2: it does not
 * converge with the old Jacobian (h enters the Jacobian), so the solve refactors and
 * lands where full Newton from the same start lands. */
Test(implicit_speed, stale_jacobian_on_a_hard_step_refactors)
{
    inst I;
    bind_heisenberg(&I);
    for (int s = 2; s <= 3; ++s) {
        sp_index1 *warm = stepper(&I.model, s, 1);
        double q[3], p[3];
        sp_vec_copy(3, heis_q0, q), sp_vec_copy(3, heis_p0, p);
        for (int k = 0; k < 5; ++k) cr_assert_eq(sp_index1_step(warm, 0.1, q, p, q, p, NULL), SP_OK);
        /* the same hard step by full Newton from its plain start */
        sp_index1 *full = stepper(&I.model, s, 0);
        double qf[3], pf[3];
        cr_assert_eq(sp_index1_step(full, 2.0, q, p, qf, pf, NULL), SP_OK);
        sp_status rc = sp_index1_step(warm, 2.0, q, p, q, p, NULL);
        const int it = sp_index1_iterations(warm), lu = sp_index1_factorizations(warm);
        cr_log_info("s=%d h=2 after h=0.1: %s, %d iterations, %d factorisations", s, sp_status_name(rc), it, lu);
        cr_expect_eq(rc, SP_OK, "s=%d: the hard step failed", s);
        cr_expect_geq(lu, 1, "s=%d: the hard step never refactored", s);
        const double d = fmax(max_abs_diff(3, q, qf), max_abs_diff(3, p, pf));
        cr_expect_leq(d, 1e-12, "s=%d: |warm − full| = %.2e on the hard step", s, d);
        sp_index1_free(warm), sp_index1_free(full);
    }
}

/* ------------------------------------------- Lobatto IIIA–IIIB, nonholonomic -- */

/* A nonholonomic model at its default parameters and initial data, λ0 = λ(q0, p0). */
typedef struct nh_inst {
    sp_param_values prm;
    sp_nh_model model;
    int n, m;
    double q0[SP_NH_MAX_N], p0[SP_NH_MAX_N], lam0[SP_NH_MAX_M];
} nh_inst;

static const sp_nh_model_type *const nh_types[] = {&sp_nh_rolling_disk, &sp_nh_contact_oscillator};

static void bind_nh(nh_inst *I, const sp_nh_model_type *type)
{
    memset(I, 0, sizeof *I);
    I->n = type->n, I->m = type->m;
    sp_params_default(SP_PARAM_SPEC(type), &I->prm);
    sp_nh_model_bind(type, &I->prm, &I->model);
    type->initial(&I->prm, I->q0, I->p0);
    cr_assert_eq(sp_nh_multiplier(&I->model, I->q0, I->p0, I->lam0), SP_OK);
}

static sp_nh *nh_stepper(const nh_inst *I, int s, int warm)
{
    sp_nh_options o = sp_nh_options_default();
    o.newton.warm_start = warm;
    sp_nh *st = sp_nh_alloc(&I->model, s, &o);
    cr_assert_not_null(st);
    return st;
}

typedef struct nh_state {
    double q[SP_NH_MAX_N], p[SP_NH_MAX_N], lam[SP_NH_MAX_M];
} nh_state;

static nh_state nh_start(const nh_inst *I)
{
    nh_state z;
    sp_vec_copy(I->n, I->q0, z.q), sp_vec_copy(I->n, I->p0, z.p), sp_vec_copy(I->m, I->lam0, z.lam);
    return z;
}

static double nh_distance(const nh_inst *I, const nh_state *a, const nh_state *b)
{
    return fmax(fmax(max_abs_diff(I->n, a->q, b->q), max_abs_diff(I->n, a->p, b->p)),
                max_abs_diff(I->m, a->lam, b->lam));
}

typedef struct nh_run_out {
    nh_state z;
    double iterations, factorizations; /* per step, over the steps after the first */
} nh_run_out;

static nh_run_out nh_integrate(const nh_inst *I, sp_nh *st, double h, int N)
{
    nh_run_out r = {.z = nh_start(I)};
    long it = 0, lu = 0;
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_nh_step(st, h, r.z.q, r.z.p, r.z.lam), SP_OK, "step %d", k);
        if (k) it += sp_nh_last_step(st).iterations, lu += sp_nh_last_step(st).factorizations;
    }
    r.iterations = (double)it / (N - 1), r.factorizations = (double)lu / (N - 1);
    return r;
}

Test(implicit_speed, nh_warm_start_reaches_the_full_newton_solution)
{
    for (size_t t = 0; t < sizeof nh_types / sizeof *nh_types; ++t) {
        nh_inst I;
        bind_nh(&I, nh_types[t]);
        for (int s = 2; s <= SP_NH_MAX_STAGES; ++s) {
            sp_nh *full = nh_stepper(&I, s, 0), *warm = nh_stepper(&I, s, 1);
            /* one step after a continued one: the warm stepper predicts the second step */
            nh_state a = nh_start(&I), b = nh_start(&I);
            for (int k = 0; k < 2; ++k) {
                cr_assert_eq(sp_nh_step(full, 0.1, a.q, a.p, a.lam), SP_OK);
                cr_assert_eq(sp_nh_step(warm, 0.1, b.q, b.p, b.lam), SP_OK);
            }
            /* the solver's tolerance is 1e-15 relative to |x|, the size of all stages together:
             * about 6 on the disk at s = 4 and 10 at s = 6, so 1.5e-14 is still round-off */
            const double d1 = nh_distance(&I, &a, &b);
            cr_log_info("%s s=%d: two steps differ by %.2e", nh_types[t]->name, s, d1);
            cr_expect_leq(d1, 3e-14, "%s s=%d: two steps differ by %.2e", nh_types[t]->name, s, d1);
            /* a whole run, T = 10 */
            nh_run_out x = nh_integrate(&I, full, 0.1, 100), y = nh_integrate(&I, warm, 0.1, 100);
            const double d = nh_distance(&I, &x.z, &y.z);
            cr_log_info("%s s=%d h=0.1 T=10: |warm − full| %.1e; per step: full %.2f it %.2f LU, warm %.2f it "
                        "%.2f LU",
                        nh_types[t]->name, s, d, x.iterations, x.factorizations, y.iterations, y.factorizations);
            cr_expect_leq(d, 1e-12, "%s s=%d: the runs differ by %.2e", nh_types[t]->name, s, d);
            sp_nh_free(full), sp_nh_free(warm);
        }
    }
}

/* At h = 0.1 and tolerance 1e-15 full Newton factors at every iteration (3 to 5 a step);
 * the warm start factors about once a step, at the predicted stages, from where Newton
 * needs fewer iterations (a kept Jacobian contracts at θ ≈ 1e-2 here and is refreshed as
 * soon as it would need more than three updates: sp_nh_options_default). */
Test(implicit_speed, nh_warm_start_factors_less)
{
    for (size_t t = 0; t < sizeof nh_types / sizeof *nh_types; ++t) {
        nh_inst I;
        bind_nh(&I, nh_types[t]);
        for (int s = 2; s <= SP_NH_MAX_STAGES; ++s) {
            sp_nh *full = nh_stepper(&I, s, 0), *warm = nh_stepper(&I, s, 1);
            nh_run_out a = nh_integrate(&I, full, 0.1, 200), b = nh_integrate(&I, warm, 0.1, 200);
            cr_log_info("%s s=%d: warm %.2f it/step %.2f LU/step; full %.2f it/step %.2f LU/step", nh_types[t]->name, s,
                        b.iterations, b.factorizations, a.iterations, a.factorizations);
            cr_expect_leq(b.factorizations, 1.1, "%s s=%d: %.2f factorisations per step", nh_types[t]->name, s,
                          b.factorizations);
            cr_expect_geq(a.factorizations, 3.0, "%s s=%d: full Newton %.2f", nh_types[t]->name, s, a.factorizations);
            sp_nh_free(full), sp_nh_free(warm);
        }
    }
}

/* A kept factorisation from steps of h = 0.1 on a continued step of h = 1: the old
 * Jacobian (h enters it) does not carry the solve, which refactors and lands where full
 * Newton from the plain start lands. */
Test(implicit_speed, nh_stale_jacobian_on_a_hard_step_refactors)
{
    for (size_t t = 0; t < sizeof nh_types / sizeof *nh_types; ++t) {
        nh_inst I;
        bind_nh(&I, nh_types[t]);
        for (int s = 2; s <= SP_NH_MAX_STAGES; ++s) {
            sp_nh *warm = nh_stepper(&I, s, 1), *full = nh_stepper(&I, s, 0);
            nh_state z = nh_start(&I);
            for (int k = 0; k < 5; ++k) cr_assert_eq(sp_nh_step(warm, 0.1, z.q, z.p, z.lam), SP_OK);
            nh_state zf = z;
            cr_assert_eq(sp_nh_step(full, 1.0, zf.q, zf.p, zf.lam), SP_OK);
            sp_status rc = sp_nh_step(warm, 1.0, z.q, z.p, z.lam);
            const sp_nh_step_info info = sp_nh_last_step(warm);
            cr_log_info("%s s=%d h=1 after h=0.1: %s, %d iterations, %d factorisations", nh_types[t]->name, s,
                        sp_status_name(rc), info.iterations, info.factorizations);
            cr_expect_eq(rc, SP_OK, "%s s=%d: the hard step failed", nh_types[t]->name, s);
            cr_expect_geq(info.factorizations, 1, "%s s=%d: the hard step never refactored", nh_types[t]->name, s);
            const double d = nh_distance(&I, &z, &zf);
            cr_expect_leq(d, 1e-12, "%s s=%d: |warm − full| = %.2e on the hard step", nh_types[t]->name, s, d);
            sp_nh_free(warm), sp_nh_free(full);
        }
    }
}

/* ------------------------------------------------------------ problem files -- */

static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert_not_null(x, "no member %s", key);
    return x;
}

/* The last row of a trajectory column into out (n values); returns n. */
static int last_row(const cJSON *res, const char *column, double *out)
{
    const cJSON *rows = member(member(res, "trajectory"), column);
    const cJSON *row = cJSON_GetArrayItem(rows, cJSON_GetArraySize(rows) - 1);
    int n = 0;
    for (const cJSON *x = row->child; x; x = x->next) out[n++] = x->valuedouble;
    return n;
}

/* The data files run with either solver: the same end to the tolerance, the solver in
 * settings, and the factorisations in work next to the Newton iterations. */
Test(implicit_speed, problem_files_choose_the_solver, .timeout = 60)
{
    static const char *const files[] = {"heisenberg.json", "parking_fig3.json", "rolling_disk.json",
                                        "contact_oscillator.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
        double end[2][2 * SP_VAK_MAX_N + 2 * SP_NH_MAX_N];
        double lu[2], it[2];
        int n = 0;
        for (int v = 0; v < 2; ++v) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, files[f]);
            sp_problem pb;
            sp_input_error err;
            cr_assert_eq(sp_problem_read_file(path, &pb, &err), SP_OK, "%s: %s: %s", files[f], err.path, err.message);
            cr_assert_eq(pb.stage_solver, SP_STAGE_NEWTON, "%s: the default", files[f]);
            pb.stage_solver = v ? SP_STAGE_SIMPLIFIED_NEWTON : SP_STAGE_NEWTON;
            if (pb.steps > 2000) pb.T *= 2000.0 / pb.steps, pb.steps = 2000;
            cJSON *res = sp_solve_json(&pb, NULL);
            cr_assert_not_null(res);
            cr_expect_str_eq(cJSON_GetStringValue(member(res, "status")), "ok", "%s", files[f]);
            cr_expect_str_eq(cJSON_GetStringValue(member(member(res, "settings"), "solver")),
                             v ? "simplified_newton" : "newton");
            const cJSON *work = member(res, "work");
            lu[v] = member(work, "factorizations")->valuedouble, it[v] = member(work, "newton_iterations")->valuedouble;
            n = last_row(res, "q", end[v]);
            n += last_row(res, "p", end[v] + n);
            cJSON_Delete(res);
            sp_problem_free(&pb);
        }
        const double d = max_abs_diff(n, end[0], end[1]);
        cr_log_info("%s: |simplified − full| %.1e at the end; factorisations %g → %g, iterations %g → %g", files[f], d,
                    lu[0], lu[1], it[0], it[1]);
        cr_expect_leq(d, 1e-11, "%s: the solvers end %.2e apart", files[f], d);
        cr_expect_eq(lu[0], it[0], "%s: full Newton factors at every iteration", files[f]);
        cr_expect_lt(lu[1], 0.5 * lu[0], "%s: %g factorisations against %g", files[f], lu[1], lu[0]);
    }
}
