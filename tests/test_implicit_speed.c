/* The warm start of the Gauss index-1 stepper and of the Lobatto IIIA–IIIB nonholonomic
 * stepper (sp_newton_options.warm_start): the predictor from the last step's stages and
 * simplified Newton with a kept factorisation (sp_newton_solve_simplified) reach the
 * solution full Newton from the plain start reaches, with fewer factorisations, and a
 * kept Jacobian that fails on a hard step gives way to a fresh one instead of a failure;
 * the problem files choose it with "solver": "simplified_newton".
 *
 * The fixed point of the Gauss stepper (SP_INDEX1_FIXED_POINT, SP_INDEX1_AUTO): every step
 * lands where full Newton from the same state lands, the prediction is O(h^(s+2)) off, a
 * fixed point that does not contract hands its step to Newton (and a step nothing solves
 * is a status), auto leaves slow steps to Newton; the guarded fixed point of sp_newton.h
 * on maps with known answers; the vakonomic problem files take "fixed_point" and "auto". */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_index1.h"
#include "integrators/sp_nonholonomic.h"
#include "lie/sp_linalg.h"
#include "planner/sp_solve.h"
#include "problems/sp_problem.h"
#include "tests/support.h"
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

static const double fig3_q0[4] = {0.3, 0, 0, 3.141592653589793}, fig3_p0[4] = {0, 0, 1.09, 1}; /* the bench's */

/* The vehicle at its default parameters, free (potential 0) or in the bowl (1). */
static void bind_vehicle(inst *I, int potential)
{
    memset(I, 0, sizeof *I);
    sp_params_default(SP_PARAM_SPEC(&sp_vak_parking), &I->prm);
    I->prm.potential = potential;
    sp_vak_model_bind(&sp_vak_parking, &I->prm, I->mass, &I->model);
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

/* Runs `check` on every nonholonomic model and stage count with a full-Newton stepper and
 * a warm-started one, freed after it. */
typedef void (*nh_pair_check)(const nh_inst *I, const char *name, int s, sp_nh *full, sp_nh *warm);

static void for_each_nh_pair(nh_pair_check check)
{
    for (size_t t = 0; t < sizeof nh_types / sizeof *nh_types; ++t) {
        nh_inst I;
        bind_nh(&I, nh_types[t]);
        for (int s = 2; s <= SP_NH_MAX_STAGES; ++s) {
            sp_nh *full = nh_stepper(&I, s, 0), *warm = nh_stepper(&I, s, 1);
            check(&I, nh_types[t]->name, s, full, warm);
            sp_nh_free(full), sp_nh_free(warm);
        }
    }
}

static void warm_reaches_full(const nh_inst *I, const char *name, int s, sp_nh *full, sp_nh *warm)
{
    /* one step after a continued one: the warm stepper predicts the second step */
    nh_state a = nh_start(I), b = nh_start(I);
    for (int k = 0; k < 2; ++k) {
        cr_assert_eq(sp_nh_step(full, 0.1, a.q, a.p, a.lam), SP_OK);
        cr_assert_eq(sp_nh_step(warm, 0.1, b.q, b.p, b.lam), SP_OK);
    }
    /* the solver's tolerance is 1e-15 relative to |x|, the size of all stages together:
     * about 6 on the disk at s = 4 and 10 at s = 6, so 1.5e-14 is still round-off */
    const double d1 = nh_distance(I, &a, &b);
    cr_log_info("%s s=%d: two steps differ by %.2e", name, s, d1);
    cr_expect_leq(d1, 3e-14, "%s s=%d: two steps differ by %.2e", name, s, d1);
    /* a whole run, T = 10 */
    nh_run_out x = nh_integrate(I, full, 0.1, 100), y = nh_integrate(I, warm, 0.1, 100);
    const double d = nh_distance(I, &x.z, &y.z);
    cr_log_info("%s s=%d h=0.1 T=10: |warm − full| %.1e; per step: full %.2f it %.2f LU, warm %.2f it %.2f LU", name,
                s, d, x.iterations, x.factorizations, y.iterations, y.factorizations);
    cr_expect_leq(d, 1e-12, "%s s=%d: the runs differ by %.2e", name, s, d);
}

Test(implicit_speed, nh_warm_start_reaches_the_full_newton_solution) { for_each_nh_pair(warm_reaches_full); }

/* At h = 0.1 and tolerance 1e-15 full Newton factors at every iteration (3 to 5 a step);
 * the warm start factors about once a step, at the predicted stages, from where Newton
 * needs fewer iterations (a kept Jacobian contracts at θ ≈ 1e-2 here and is refreshed as
 * soon as it would need more than three updates: sp_nh_options_default). */
static void warm_factors_less(const nh_inst *I, const char *name, int s, sp_nh *full, sp_nh *warm)
{
    nh_run_out a = nh_integrate(I, full, 0.1, 200), b = nh_integrate(I, warm, 0.1, 200);
    cr_log_info("%s s=%d: warm %.2f it/step %.2f LU/step; full %.2f it/step %.2f LU/step", name, s, b.iterations,
                b.factorizations, a.iterations, a.factorizations);
    cr_expect_leq(b.factorizations, 1.1, "%s s=%d: %.2f factorisations per step", name, s, b.factorizations);
    cr_expect_geq(a.factorizations, 3.0, "%s s=%d: full Newton %.2f", name, s, a.factorizations);
}

Test(implicit_speed, nh_warm_start_factors_less) { for_each_nh_pair(warm_factors_less); }

/* A kept factorisation from steps of h = 0.1 on a continued step of h = 1: the old
 * Jacobian (h enters it) does not carry the solve, which refactors and lands where full
 * Newton from the plain start lands. */
static void stale_jacobian_refactors(const nh_inst *I, const char *name, int s, sp_nh *full, sp_nh *warm)
{
    nh_state z = nh_start(I);
    for (int k = 0; k < 5; ++k) cr_assert_eq(sp_nh_step(warm, 0.1, z.q, z.p, z.lam), SP_OK);
    nh_state zf = z;
    cr_assert_eq(sp_nh_step(full, 1.0, zf.q, zf.p, zf.lam), SP_OK);
    sp_status rc = sp_nh_step(warm, 1.0, z.q, z.p, z.lam);
    const sp_nh_step_info info = sp_nh_last_step(warm);
    cr_log_info("%s s=%d h=1 after h=0.1: %s, %d iterations, %d factorisations", name, s, sp_status_name(rc),
                info.iterations, info.factorizations);
    cr_expect_eq(rc, SP_OK, "%s s=%d: the hard step failed", name, s);
    cr_expect_geq(info.factorizations, 1, "%s s=%d: the hard step never refactored", name, s);
    const double d = nh_distance(I, &z, &zf);
    cr_expect_leq(d, 1e-12, "%s s=%d: |warm − full| = %.2e on the hard step", name, s, d);
}

Test(implicit_speed, nh_stale_jacobian_on_a_hard_step_refactors) { for_each_nh_pair(stale_jacobian_refactors); }

/* ------------------------------------------------------------ problem files -- */

/* The last row of a trajectory column into out (n values); returns n. */
static int last_row(const cJSON *res, const char *column, double *out)
{
    const cJSON *rows = result_member(result_member(res, "trajectory"), column);
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
            cr_expect_str_eq(cJSON_GetStringValue(result_member(res, "status")), "ok", "%s", files[f]);
            cr_expect_str_eq(cJSON_GetStringValue(result_member(result_member(res, "settings"), "solver")),
                             v ? "simplified_newton" : "newton");
            const cJSON *work = result_member(res, "work");
            lu[v] = result_member(work, "factorizations")->valuedouble, it[v] = result_member(work, "newton_iterations")->valuedouble;
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

/* ------------------------------------- Gauss index-1: fixed point and auto -- */

static sp_index1 *stepper_with(const sp_vakonomic_model *model, int s, sp_index1_solver solver)
{
    sp_index1 *st = stepper(model, s, 0);
    sp_index1_set_solver(st, solver);
    return st;
}

/* A case of the runs below: a model, its start and a step. */
typedef struct solver_case {
    const char *name;
    int model; /* 0 Heisenberg, 1 vehicle, 2 vehicle in the bowl */
    double h;
    int steps;
} solver_case;

static void bind_case(inst *I, const solver_case *c, const double **q0, const double **p0)
{
    if (c->model == 0)
        bind_heisenberg(I), *q0 = heis_q0, *p0 = heis_p0;
    else
        bind_vehicle(I, c->model == 2), *q0 = fig3_q0, *p0 = fig3_p0;
}

typedef struct solver_run {
    double z[2 * SP_VAK_MAX_N];
    double worst_step;             /* the largest |step − full Newton's step from the same state| */
    double sweeps, factorizations; /* per step */
} solver_run;

/* A run by `solver`; after every step, full Newton takes the same step from the same
 * state, and the two ends are compared. */
static solver_run run_against_newton(inst *I, const solver_case *c, int s, sp_index1_solver solver)
{
    const double *q0, *p0;
    bind_case(I, c, &q0, &p0);
    const int n = I->model.n;
    sp_index1 *st = stepper_with(&I->model, s, solver), *full = stepper_with(&I->model, s, SP_INDEX1_NEWTON);
    solver_run r = {.worst_step = 0.0};
    sp_vec_copy(n, q0, r.z), sp_vec_copy(n, p0, r.z + n);
    long sweeps = 0, lu = 0;
    for (int k = 0; k < c->steps; ++k) {
        double w[2 * SP_VAK_MAX_N];
        cr_assert_eq(sp_index1_step(full, c->h, r.z, r.z + n, w, w + n, NULL), SP_OK, "%s s=%d step %d", c->name, s, k);
        cr_assert_eq(sp_index1_step(st, c->h, r.z, r.z + n, r.z, r.z + n, NULL), SP_OK, "%s s=%d step %d", c->name, s,
                     k);
        sweeps += sp_index1_sweeps(st), lu += sp_index1_factorizations(st);
        r.worst_step = fmax(r.worst_step, max_abs_diff(2 * n, r.z, w));
    }
    r.sweeps = (double)sweeps / c->steps, r.factorizations = (double)lu / c->steps;
    sp_index1_free(st), sp_index1_free(full);
    return r;
}

/* Every step of the fixed point and of auto lands where full Newton from the same state
 * lands, to the tolerance (1e-15 relative to stage vectors of norm up to about 10); the
 * fixed point sweeps, and the Heisenberg runs are solved by sweeps alone. */
Test(implicit_speed, fixed_point_steps_land_where_newton_lands, .timeout = 60)
{
    static const solver_case cases[] = {{"Heisenberg h=0.1", 0, 0.1, 100},
                                        {"vehicle h=0.05", 1, 0.05, 100},
                                        {"vehicle h=0.2", 1, 0.2, 50},
                                        {"vehicle in the bowl h=0.01", 2, 0.01, 100}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (int s = 1; s <= 6; ++s)
            for (int v = 0; v < 2; ++v) {
                const sp_index1_solver solver = v ? SP_INDEX1_AUTO : SP_INDEX1_FIXED_POINT;
                inst I;
                solver_run r = run_against_newton(&I, &cases[c], s, solver);
                cr_log_info("%s s=%d %s: worst step %.1e off full Newton; %.2f sweeps, %.2f LU per step", cases[c].name,
                            s, v ? "auto" : "fixed point", r.worst_step, r.sweeps, r.factorizations);
                cr_expect_leq(r.worst_step, 1e-13, "%s s=%d %s: a step %.2e off full Newton's", cases[c].name, s,
                              v ? "auto" : "fixed point", r.worst_step);
                if (solver == SP_INDEX1_FIXED_POINT)
                    cr_expect_gt(r.sweeps, 2.0, "%s s=%d: the fixed point did not run", cases[c].name, s);
                if (cases[c].model == 0)
                    cr_expect_eq(r.factorizations, 0.0, "%s s=%d %s: Newton took over", cases[c].name, s,
                                 v ? "auto" : "fixed point");
            }
}

/* A whole run, T = 10 on Heisenberg: the ends of fixed point, auto and full Newton agree. */
Test(implicit_speed, fixed_point_reaches_the_full_newton_solution)
{
    inst I;
    bind_heisenberg(&I);
    for (int s = 1; s <= 6; ++s) {
        sp_index1 *full = stepper_with(&I.model, s, SP_INDEX1_NEWTON);
        run_out a = integrate(full, 0.1, 100);
        for (int v = 0; v < 2; ++v) {
            sp_index1 *st = stepper_with(&I.model, s, v ? SP_INDEX1_AUTO : SP_INDEX1_FIXED_POINT);
            run_out b = integrate(st, 0.1, 100);
            const double d = fmax(max_abs_diff(3, a.q, b.q), max_abs_diff(3, a.p, b.p));
            cr_log_info("Heisenberg s=%d T=10 %s: |end − full Newton's| %.1e, %.2f sweeps/step", s,
                        v ? "auto" : "fixed point", d, b.iterations);
            cr_expect_leq(d, 1e-14, "s=%d %s: the runs end %.2e apart", s, v ? "auto" : "fixed point", d);
            sp_index1_free(st);
        }
        sp_index1_free(full);
    }
}

/* The prediction of a continued step is O(h^(s+2)) off the solved stages (one order more
 * than extrapolating the last collocation polynomial): the largest start distance over
 * T = 2 of Heisenberg at h = 0.1 and 0.05, for each predictive solver. */
Test(implicit_speed, prediction_is_of_order_s_plus_2)
{
    inst I;
    bind_heisenberg(&I);
    static const sp_index1_solver solvers[] = {SP_INDEX1_SIMPLIFIED_NEWTON, SP_INDEX1_FIXED_POINT};
    for (int s = 1; s <= 6; ++s)
        for (int v = 0; v < 2; ++v) {
            double d[2];
            for (int k = 0; k < 2; ++k) {
                const double h = 0.1 / (1 << k);
                sp_index1 *st = stepper_with(&I.model, s, solvers[v]);
                double q[3], p[3];
                sp_vec_copy(3, heis_q0, q), sp_vec_copy(3, heis_p0, p);
                cr_assert_eq(sp_index1_step(st, h, q, p, q, p, NULL), SP_OK);
                d[k] = 0.0;
                for (int j = 1; j < (int)lround(2.0 / h); ++j) {
                    cr_assert_eq(sp_index1_step(st, h, q, p, q, p, NULL), SP_OK);
                    d[k] = fmax(d[k], sp_index1_start_distance(st));
                }
                sp_index1_free(st);
            }
            const double order = log2(d[0] / d[1]);
            cr_log_info("s=%d solver %d: prediction off by %.2e (h = 0.1), %.2e (h = 0.05): order %.2f", s, solvers[v],
                        d[0], d[1], order);
            cr_expect(order >= s + 1.7 && order <= s + 2.3, "s=%d: the prediction is of order %.2f, not %d", s, order,
                      s + 2);
        }
}

/* A step the fixed point cannot contract on (h = 2 on Heisenberg, continued from h = 0.1,
 * and alone) goes to Newton and lands where full Newton lands; a step nothing solves
 * (h = 1e4) is a status and leaves the outputs alone. */
Test(implicit_speed, a_fixed_point_that_does_not_contract_hands_over_to_newton)
{
    inst I;
    bind_heisenberg(&I);
    for (int s = 1; s <= 6; ++s)
        for (int v = 0; v < 2; ++v) {
            const char *name = v ? "auto" : "fixed point";
            sp_index1 *st = stepper_with(&I.model, s, v ? SP_INDEX1_AUTO : SP_INDEX1_FIXED_POINT);
            sp_index1 *full = stepper_with(&I.model, s, SP_INDEX1_NEWTON);
            double q[3], p[3];
            sp_vec_copy(3, heis_q0, q), sp_vec_copy(3, heis_p0, p);
            for (int k = 0; k < 5; ++k) cr_assert_eq(sp_index1_step(st, 0.1, q, p, q, p, NULL), SP_OK);
            for (int alone = 0; alone < 2; ++alone) {
                double qf[3], pf[3], q1[3], p1[3];
                cr_assert_eq(sp_index1_step(full, 2.0, q, p, qf, pf, NULL), SP_OK);
                if (alone) { /* a step that does not continue the last one */
                    double qa[3], pa[3];
                    cr_assert_eq(sp_index1_step(st, 0.1, heis_q0, heis_p0, qa, pa, NULL), SP_OK);
                }
                const sp_status rc = sp_index1_step(st, 2.0, q, p, q1, p1, NULL);
                const int sweeps = sp_index1_sweeps(st), lu = sp_index1_factorizations(st);
                cr_log_info("s=%d %s h=2 (%s): %s, %d sweeps, %d iterations, %d LU", s, name,
                            alone ? "alone" : "continued", sp_status_name(rc), sweeps, sp_index1_iterations(st), lu);
                cr_expect_eq(rc, SP_OK, "s=%d %s: the hard step failed", s, name);
                cr_expect_geq(lu, 1, "s=%d %s: Newton never took the hard step", s, name);
                cr_expect_lt(sweeps, 10, "s=%d %s: %d sweeps before giving up", s, name, sweeps);
                const double d = fmax(max_abs_diff(3, q1, qf), max_abs_diff(3, p1, pf));
                cr_expect_leq(d, 1e-12, "s=%d %s: |step − full Newton's| = %.2e on the hard step", s, name, d);
            }
            /* nothing converges at h = 1e4 (full Newton neither: tests/test_index1.c) */
            double q1[3] = {7, 7, 7}, p1[3] = {7, 7, 7};
            const sp_status rc = sp_index1_step(st, 1e4, q, p, q1, p1, NULL);
            cr_expect_neq(rc, SP_OK, "s=%d %s: h = 1e4 converged", s, name);
            cr_expect(q1[0] == 7 && q1[2] == 7 && p1[1] == 7, "s=%d %s: a failed step wrote its outputs", s, name);
            cr_expect(isnan(sp_index1_start_distance(st)), "s=%d %s: a failed step reports a start distance", s, name);
            /* and the next step is a fresh start that works */
            cr_expect_eq(sp_index1_step(st, 0.1, q, p, q1, p1, NULL), SP_OK);
            sp_index1_free(st), sp_index1_free(full);
        }
}

/* Where sweeps contract slowly (Heisenberg at h = 1: about 40 sweeps a step for s = 2, 3,
 * which the fixed point does within its 50) auto leaves the steps to simplified Newton; at
 * h = 0.1 it sweeps. Both land where full Newton lands. */
Test(implicit_speed, auto_leaves_slow_steps_to_newton)
{
    static const solver_case slow = {"Heisenberg h=1", 0, 1.0, 20}, quick = {"Heisenberg h=0.1", 0, 0.1, 50};
    for (int s = 2; s <= 3; ++s) {
        inst I;
        solver_run fp = run_against_newton(&I, &slow, s, SP_INDEX1_FIXED_POINT);
        solver_run au = run_against_newton(&I, &slow, s, SP_INDEX1_AUTO);
        solver_run au_quick = run_against_newton(&I, &quick, s, SP_INDEX1_AUTO);
        cr_log_info("s=%d h=1: fixed point %.2f sweeps %.2f LU, auto %.2f sweeps %.2f LU per step; h=0.1: auto %.2f "
                    "sweeps %.2f LU",
                    s, fp.sweeps, fp.factorizations, au.sweeps, au.factorizations, au_quick.sweeps,
                    au_quick.factorizations);
        cr_expect_gt(fp.sweeps, 20.0, "s=%d: the fixed point at h = 1 took %.2f sweeps only", s, fp.sweeps);
        cr_expect_lt(au.sweeps, 5.0, "s=%d: auto swept %.2f times a step at h = 1", s, au.sweeps);
        cr_expect_geq(au.factorizations, 0.5, "s=%d: auto factored %.2f times a step at h = 1", s, au.factorizations);
        cr_expect_eq(au_quick.factorizations, 0.0, "s=%d: auto used Newton at h = 0.1", s);
        cr_expect_leq(fmax(fp.worst_step, fmax(au.worst_step, au_quick.worst_step)), 1e-13,
                      "s=%d: a step off full Newton's", s);
    }
}

/* -------------------------------------------- the guarded fixed point itself -- */

/* x ← M x + b in the plane: the fixed point x* = (I − M)⁻¹ b. */
typedef struct affine {
    double M[4], b[2];
} affine;

static sp_status affine_map(void *ctx, const double *x, double *x_new)
{
    const affine *a = ctx;
    x_new[0] = a->M[0] * x[0] + a->M[1] * x[1] + a->b[0];
    x_new[1] = a->M[2] * x[0] + a->M[3] * x[1] + a->b[1];
    return SP_OK;
}

Test(implicit_speed, guarded_fixed_point_converges_or_gives_up)
{
    sp_newton *w = sp_newton_alloc(2);
    cr_assert_not_null(w);
    const sp_newton_options opt = sp_newton_options_default();
    /* a rotation scaled by 0.3: the updates shrink by 0.3 but turn, the solution of
     * (I − M) x = b is (1, 2) */
    const double c = 0.3 * cos(1.3), sn = 0.3 * sin(1.3);
    affine rot = {.M = {c, -sn, sn, c}};
    rot.b[0] = 1 - (c * 1 - sn * 2), rot.b[1] = 2 - (sn * 1 + c * 2);
    double x[2] = {0, 0}, rate = -1;
    int it = 0;
    cr_expect_eq(sp_fixed_point_solve_guarded(w, affine_map, &rot, x, &opt, 0, &rate, &it), SP_OK);
    cr_log_info("rotating contraction: %d updates, mean rate %.3f, x = (%.17g, %.17g)", it, rate, x[0], x[1]);
    cr_expect_leq(fabs(x[0] - 1) + fabs(x[1] - 2), 1e-15, "x = (%.17g, %.17g)", x[0], x[1]);
    cr_expect(fabs(rate - 0.3) < 0.05, "mean rate %.3f, the map's 0.3", rate);
    /* expanding (1.5): gives up at the second update, x at its last iterate */
    affine grow = {.M = {1.5, 0, 0, 1.5}, .b = {1, 1}};
    x[0] = x[1] = 0;
    cr_expect_eq(sp_fixed_point_solve_guarded(w, affine_map, &grow, x, &opt, 0, &rate, &it), SP_ERR_NO_CONVERGENCE);
    cr_expect_eq(it, 2, "%d updates on an expanding map", it);
    cr_expect(rate >= 1.0 && isfinite(x[0]), "rate %.3f, x %g", rate, x[0]);
    /* a slow contraction (0.95) needs about 700 updates to 1e-17: with max_to_go = 5 it
     * gives up at the third; without, it runs into max_iter */
    affine slow = {.M = {0.95, 0, 0, 0.95}, .b = {0.05, 0.1}};
    x[0] = x[1] = 0;
    cr_expect_eq(sp_fixed_point_solve_guarded(w, affine_map, &slow, x, &opt, 5, &rate, &it), SP_ERR_NO_CONVERGENCE);
    cr_expect_eq(it, 3, "%d updates with max_to_go = 5", it);
    x[0] = x[1] = 0;
    cr_expect_eq(sp_fixed_point_solve_guarded(w, affine_map, &slow, x, &opt, 0, &rate, &it), SP_ERR_NO_CONVERGENCE);
    cr_expect_eq(it, opt.max_iter);
    /* and a quick one converges to round-off */
    affine quick = {.M = {0.1, 0.05, 0, 0.1}, .b = {1, 1}};
    x[0] = x[1] = 0;
    cr_expect_eq(sp_fixed_point_solve_guarded(w, affine_map, &quick, x, &opt, 0, &rate, &it), SP_OK);
    const double x1 = 1 / 0.9, x0 = (1 + 0.05 * x1) / 0.9;
    cr_expect_leq(fabs(x[0] - x0) + fabs(x[1] - x1), 4e-16, "x = (%.17g, %.17g)", x[0], x[1]);
    sp_newton_free(w);
}

/* ------------------------------------------------ vakonomic problem files -- */

/* heisenberg.json and parking_fig3.json with "solver" set to each of the four: the file is
 * read, the run ends where full Newton's does, settings.solver says which ran, and the
 * fixed point factors nothing on Heisenberg. */
Test(implicit_speed, vakonomic_files_take_the_fixed_point_and_auto, .timeout = 60)
{
    static const char *const files[] = {"heisenberg.json", "parking_fig3.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, files[f]);
        FILE *in = fopen(path, "rb");
        cr_assert_not_null(in, "%s", path);
        char text[1 << 16];
        const size_t len = fread(text, 1, sizeof text - 1, in);
        fclose(in);
        text[len] = '\0';
        double end[4][2 * SP_VAK_MAX_N], lu[4];
        int n = 0;
        for (size_t v = 0; v < 4; ++v) {
            cJSON *doc = cJSON_Parse(text);
            cr_assert_not_null(doc);
            cJSON_DeleteItemFromObjectCaseSensitive(doc, "solver");
            cJSON_AddStringToObject(doc, "solver", sp_stage_solver_at(v));
            char *edited = cJSON_PrintUnformatted(doc);
            cJSON_Delete(doc);
            sp_problem pb;
            sp_input_error err;
            cr_assert_eq(sp_problem_parse(edited, strlen(edited), &pb, &err), SP_OK, "%s solver %s: %s: %s", files[f],
                         sp_stage_solver_at(v), err.path, err.message);
            cJSON_free(edited);
            cr_expect_eq(pb.stage_solver, (sp_stage_solver)v);
            if (pb.steps > 2000) pb.T *= 2000.0 / pb.steps, pb.steps = 2000;
            cJSON *res = sp_solve_json(&pb, NULL);
            cr_assert_not_null(res);
            cr_expect_str_eq(cJSON_GetStringValue(result_member(res, "status")), "ok", "%s", files[f]);
            cr_expect_str_eq(cJSON_GetStringValue(result_member(result_member(res, "settings"), "solver")), sp_stage_solver_at(v));
            lu[v] = result_member(result_member(res, "work"), "factorizations")->valuedouble;
            n = last_row(res, "q", end[v]);
            n += last_row(res, "p", end[v] + n);
            cJSON_Delete(res);
            sp_problem_free(&pb);
        }
        for (int v = 1; v < 4; ++v) {
            const double d = max_abs_diff(n, end[0], end[v]);
            cr_log_info("%s %s: |end − full Newton's| %.1e, %g factorisations", files[f], sp_stage_solver_at(v), d,
                        lu[v]);
            cr_expect_leq(d, 1e-11, "%s %s: the ends are %.2e apart", files[f], sp_stage_solver_at(v), d);
        }
        if (f == 0) cr_expect_eq(lu[SP_STAGE_FIXED_POINT], 0.0, "heisenberg.json: the fixed point factored");
    }
}
