/* Simulations of the nonholonomic models through their problem files (problems/
 * nh_problem_file.c, planner/nonholonomic/sp_nh_run.h):
 *
 *   - the data files hold the default data of sp_nh_models.h, defaults apply, and the forms of the
 *     initial state (p0 or v0; g0 as (x, y, θ) or a matrix; mu0 or xi0) agree; a state
 *     within 1e-9 of the constraint is projected onto it;
 *   - the contact oscillator file's energy error and constraint residual are the
 *     integrator's own figures (the same run made directly through sp_nonholonomic.h),
 *     within the bounds of the C7 check of test_nonholonomic.c (|ΔH| ≤ 6e-3 for s = 2, 2e-6 for s = 3 over
 *     T = 2000, flat between the quarters), while the recomputed multiplier drifts;
 *   - the sleigh on SE(2) and the sleigh in coordinates, run from their files, agree to
 *     the method's order;
 *   - rows every record_every steps, interruption, a failed Newton solve, and pictures
 *     that recompute the invariants.
 * Every check prints what it measured. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "planner/plot/sp_plot.h"
#include "planner/sp_solve.h"
#include "problems/sp_problem.h"
#include "tests/support.h"

#define CONTACT                                                                                                        \
    "{\"task\": \"simulate\", \"model\": \"contact_oscillator\", \"q0\": [1.18133634311129, 1, 0.5],"                  \
    " \"p0\": [-0.3, 0, 0.3]"

static void parse(const char *text, sp_problem *pb)
{
    sp_input_error err;
    sp_status st = sp_problem_parse(text, strlen(text), pb, &err);
    cr_assert_eq(st, SP_OK, "%s: %s\n%s", err.path, err.message, text);
}

static void read_data(const char *name, sp_problem *pb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, name);
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(path, pb, &err), SP_OK, "%s: %s: %s", name, err.path, err.message);
}

static double max_abs_diff(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return isnan(e) ? INFINITY : e;
}

/* ------------------------------------------------------------- problem files -- */

Test(nh_run, data_files_say_what_they_say)
{
    sp_problem pb;
    read_data("contact_oscillator.json", &pb);
    cr_expect_eq(pb.kind, SP_KIND_NONHOLONOMIC);
    cr_expect_eq(pb.nh.type, &sp_nh_contact_oscillator);
    cr_expect_eq(pb.nh.stages, 3);
    cr_expect_not(pb.nh.recompute);
    cr_expect_eq(pb.steps, 20000);
    cr_expect_float_eq(pb.T, 2000.0, 1e-9);
    cr_expect_eq(pb.record_every, 20);
    double H;
    sp_nh_model md;
    sp_nh_model_bind(pb.nh.type, &pb.nh.params, &md);
    cr_assert_eq(sp_nh_energy(&md, pb.nh.q0, pb.nh.p0, &H), SP_OK);
    cr_expect_float_eq(H, 1.5, 1e-14, "default data: H0 = 1.5 (got %.17g)", H);

    read_data("rolling_disk.json", &pb); /* v0 (1, 0, 2, 1) with unit parameters: p0 = v0 */
    const double disk_p0[4] = {1, 0, 2, 1};
    cr_expect_leq(max_abs_diff(4, pb.nh.p0, disk_p0), 0.0);

    read_data("chaplygin_sleigh.json", &pb); /* q̇0 = (1, 0, 1): p0 = M(0) q̇0 = (1, 0.5, 0.55) */
    const double sleigh_p0[3] = {1, 0.5, 0.55};
    cr_expect_leq(max_abs_diff(3, pb.nh.p0, sleigh_p0), 1e-16);
    cr_expect(pb.nh.recompute, "the long sleigh run recomputes the multiplier");

    read_data("knife_edge.json", &pb);
    cr_expect_eq(pb.nh.type, &sp_nh_knife_edge);
    cr_expect_float_eq(pb.T, 30.0, 1e-12);

    read_data("sleigh_se2.json", &pb); /* ξ0 = (1, 1, 0): μ0 = 𝕀ξ0 = (I + ma², m, ma)·… = (0.55, 1, 0.5) */
    cr_expect_eq(pb.kind, SP_KIND_NONHOLONOMIC_LIE);
    cr_expect_eq(pb.nh.lie_type, &sp_nh_lie_sleigh_se2);
    cr_expect_eq(pb.nh.retraction, sp_retraction_cayley);
    cr_expect(pb.nh.recompute);
    const double se2_mu0[3] = {0.55, 1, 0.5}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    cr_expect_leq(max_abs_diff(3, pb.nh.mu0, se2_mu0), 1e-16);
    cr_expect_leq(max_abs_diff(9, pb.nh.g0, I3), 0.0);

    read_data("suslov.json", &pb); /* μ0 = J Ω0 = (0.8, 0, −1.05), R0 = exp((0.4, −0.3, 1)) */
    cr_expect_eq(pb.nh.lie_type, &sp_nh_lie_suslov);
    const double suslov_mu0[3] = {0.8, 0, -1.05};
    cr_expect_leq(max_abs_diff(3, pb.nh.mu0, suslov_mu0), 1e-15);
    double R0[9];
    sp_group_so3->exp(sp_group_so3, (const double[]){0.4, -0.3, 1.0}, R0);
    cr_expect_leq(max_abs_diff(9, pb.nh.g0, R0), 1e-15, "|R0 − exp(0.4, −0.3, 1)| = %.2e",
                  max_abs_diff(9, pb.nh.g0, R0));
}

Test(nh_run, defaults_apply)
{
    sp_problem pb;
    parse(CONTACT ", \"h\": 0.1, \"steps\": 3}", &pb);
    cr_expect_eq(pb.nh.stages, 3);
    cr_expect_not(pb.nh.recompute, "vector spaces carry the multiplier by default");
    cr_expect_eq(pb.record_every, 1);
    cr_expect_float_eq(pb.solver_tol, 1e-15, 0);
    cr_expect_float_eq(pb.nh.params.value[0], 0.5, 0, "eps = 0.5");
    cr_expect_float_eq(pb.T, 0.3, 1e-15);
    parse("{\"task\": \"simulate\", \"model\": \"suslov\", \"xi0\": [0.8, 0, -0.3], \"T\": 1, \"steps\": 10}", &pb);
    cr_expect(pb.nh.recompute, "Lie groups recompute the multiplier by default");
    cr_expect_eq(pb.nh.retraction, sp_retraction_cayley);
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, J[3] = {1, 2, 3.5}, e[3] = {0.3, 0.5, 0.8};
    cr_expect_leq(max_abs_diff(9, pb.nh.g0, I3), 0.0);
    cr_expect_leq(max_abs_diff(3, pb.nh.lie_params.value, J), 0.0);
    cr_expect_leq(max_abs_diff(3, pb.nh.lie_params.value + 3, e), 0.0);
    parse("{\"task\": \"simulate\", \"model\": \"sleigh_se2\", \"mu0\": [0.55, 1, 0.5], \"lambda1\": \"carry\","
          " \"retraction\": \"exp\", \"stages\": 4, \"h\": 0.1, \"steps\": 10}",
          &pb);
    cr_expect_not(pb.nh.recompute);
    cr_expect_eq(pb.nh.retraction, sp_retraction_exp);
    cr_expect_eq(pb.nh.stages, 4);
    const double sleigh[4] = {1, 0.5, 0.3, 0};
    cr_expect_leq(max_abs_diff(4, pb.nh.lie_params.value, sleigh), 0.0);
}

/* p0 or v0; g0 as (x, y, θ) or as a matrix; mu0 or xi0: the same state. A state 1e-12 off
 * the constraint is moved onto it. */
Test(nh_run, initial_state_forms_agree)
{
    char text[1024];
    sp_problem a, b;
    /* the coordinate sleigh at θ = 0.7 driving along its axis at speed 1.3 and turning */
    const double th = 0.7, v0[3] = {1.3 * cos(th), 1.3 * sin(th), 0.4};
    double M[9], p0[3];
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"chaplygin_sleigh\", \"q0\": [0.3, -1, %.17g],"
             " \"v0\": [%.17g, %.17g, %.17g], \"h\": 0.1, \"steps\": 1}",
             th, v0[0], v0[1], v0[2]);
    parse(text, &a);
    sp_sleigh_se2 sl = {.m = 1, .a = 0.5, .I = 0.3};
    sp_sleigh_se2_mass_matrix(&sl, th, M);
    sp_mat_vec(3, 3, M, v0, p0);
    cr_expect_leq(max_abs_diff(3, a.nh.p0, p0), 1e-15, "p0 = M(q0) v0");
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"chaplygin_sleigh\", \"q0\": [0.3, -1, %.17g],"
             " \"p0\": [%.17g, %.17g, %.17g], \"h\": 0.1, \"steps\": 1}",
             th, p0[0], p0[1], p0[2]);
    parse(text, &b);
    cr_expect_leq(max_abs_diff(3, a.nh.p0, b.nh.p0), 1e-15);

    /* a momentum 1e-12 off the constraint is projected onto it (to round-off) */
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"chaplygin_sleigh\", \"q0\": [0.3, -1, %.17g],"
             " \"p0\": [%.17g, %.17g, %.17g], \"h\": 0.1, \"steps\": 1}",
             th, p0[0] + 1e-12, p0[1], p0[2]);
    parse(text, &b);
    sp_nh_model md;
    sp_nh_model_bind(&sp_nh_chaplygin_sleigh, &b.nh.params, &md);
    double before, after;
    const double p_off[3] = {p0[0] + 1e-12, p0[1], p0[2]};
    cr_assert_eq(sp_nh_constraint_residual(&md, b.nh.q0, p_off, &before), SP_OK);
    cr_assert_eq(sp_nh_constraint_residual(&md, b.nh.q0, b.nh.p0, &after), SP_OK);
    cr_log_info("sleigh p0 1e-12 off the constraint: |Ψ| %.1e before, %.1e after the projection", before, after);
    cr_expect_geq(before, 1e-13);
    cr_expect_leq(after, 4e-16);

    /* the sleigh on SE(2): g0 as (x, y, θ) and as its matrix; ξ0 and μ0 = 𝕀ξ0 */
    const double xi0[3] = {0.4, 1.3, 0.0};
    double Ib[9], mu0[3];
    sp_sleigh_se2_inertia(&sl, Ib);
    sp_mat_vec(3, 3, Ib, xi0, mu0);
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"sleigh_se2\", \"g0\": [0.3, -1, %.17g],"
             " \"xi0\": [%.17g, %.17g, %.17g], \"h\": 0.1, \"steps\": 1}",
             th, xi0[0], xi0[1], xi0[2]);
    parse(text, &a);
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"sleigh_se2\","
             " \"g0\": [[%.17g, %.17g, 0.3], [%.17g, %.17g, -1], [0, 0, 1]],"
             " \"mu0\": [%.17g, %.17g, %.17g], \"h\": 0.1, \"steps\": 1}",
             cos(th), -sin(th), sin(th), cos(th), mu0[0], mu0[1], mu0[2]);
    parse(text, &b);
    cr_expect_leq(max_abs_diff(9, a.nh.g0, b.nh.g0), 1e-16, "g0 from (x, y, θ) and from the matrix: %.1e",
                  max_abs_diff(9, a.nh.g0, b.nh.g0));
    cr_expect_leq(max_abs_diff(3, a.nh.mu0, b.nh.mu0), 1e-15, "μ0 from ξ0 and given: %.1e",
                  max_abs_diff(3, a.nh.mu0, b.nh.mu0));
    /* and the coordinate sleigh's momentum at that state is the body momentum: π = B(θ) p = 𝕀 (θ̇, v_x, 0) */
    double g[9], mu[3];
    sp_sleigh_se2_from_coordinates((const double[]){0.3, -1, th}, p0, g, mu);
    const double v_body[3] = {v0[2], 1.3, 0.0};
    double mu_body[3];
    sp_mat_vec(3, 3, Ib, v_body, mu_body);
    cr_expect_leq(max_abs_diff(3, mu, mu_body), 1e-15);
}

/* ------------------------------------------------- the integrator's own figures -- */

typedef struct direct_figures {
    double energy, constraint, stage, quarter[4];
} direct_figures;

/* The contact oscillator integrated directly through sp_nonholonomic.h, as the run should. */
static direct_figures direct_contact(int stages, int recompute, double h, int N)
{
    sp_param_values prm;
    sp_params_default(SP_PARAM_SPEC(&sp_nh_contact_oscillator), &prm);
    sp_nh_model md;
    sp_nh_model_bind(&sp_nh_contact_oscillator, &prm, &md);
    sp_nh_options opt = sp_nh_options_default();
    opt.lambda1 = recompute ? SP_NH_LAMBDA_RECOMPUTE : SP_NH_LAMBDA_CARRY;
    sp_nh *st = sp_nh_alloc(&md, stages, &opt);
    cr_assert_not_null(st);
    double q[3] = {1.18133634311129, 1, 0.5}, p[3] = {-0.3, 0, 0.3}, lam[1], H0, H;
    cr_assert_eq(sp_nh_multiplier(&md, q, p, lam), SP_OK);
    cr_assert_eq(sp_nh_energy(&md, q, p, &H0), SP_OK);
    direct_figures f = {0};
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_nh_step(st, h, q, p, lam), SP_OK, "step %d", k);
        double r;
        cr_assert_eq(sp_nh_energy(&md, q, p, &H), SP_OK);
        cr_assert_eq(sp_nh_constraint_residual(&md, q, p, &r), SP_OK);
        f.energy = fmax(f.energy, fabs(H - H0));
        f.quarter[4 * k / N] = fmax(f.quarter[4 * k / N], fabs(H - H0));
        f.constraint = fmax(f.constraint, r);
        f.stage = fmax(f.stage, sp_nh_last_step(st).stage_residual);
    }
    sp_nh_free(st);
    return f;
}

/* The C7 check of test_nonholonomic.c through the file: data/contact_oscillator.json (h = 0.1, T = 2000) with s = 2
 * and 3 gives the integrator's own figures, within the C7 bounds and flat between
 * the quarters; with the recomputed multiplier (s = 2) the energy drifts. */
Test(nh_run, contact_oscillator_file_matches_the_integrator, .timeout = 120)
{
    for (int s = 2; s <= 3; ++s)
        for (int recompute = 0; recompute <= (s == 2); ++recompute) {
            sp_problem pb;
            read_data("contact_oscillator.json", &pb);
            pb.nh.stages = s;
            pb.nh.recompute = recompute;
            cJSON *res = sp_solve_json(&pb, NULL);
            cr_assert_not_null(res);
            cr_expect_str_eq(string_at(res, "status"), "ok");
            const cJSON *diag = result_member(res, "diagnostics"), *quarters = result_member(res, "energy_error_quarters");
            const double energy = number_at(diag, "energy_error"), constraint = number_at(diag, "constraint_residual");
            double q[4];
            for (int i = 0; i < 4; ++i) q[i] = cJSON_GetArrayItem(quarters, i)->valuedouble;
            direct_figures d = direct_contact(s, recompute, 0.1, 20000);
            cr_log_info("contact oscillator T = 2000, h = 0.1, s = %d, %s Λ1: max|ΔH| %.3e (direct %.3e), per quarter "
                        "%.2e %.2e %.2e %.2e; constraint %.2e (direct: steps %.2e, stages %.2e); H_y drift %.2e",
                        s, recompute ? "recomputed" : "carried", energy, d.energy, q[0], q[1], q[2], q[3], constraint,
                        d.constraint, d.stage, number_at(diag, "H_y_drift"));
            cr_expect_leq(fabs(energy - d.energy), 1e-15, "energy_error %.17g, the integrator's %.17g", energy,
                          d.energy);
            cr_expect_leq(fabs(constraint - fmax(d.constraint, d.stage)), 1e-18);
            for (int i = 0; i < 4; ++i) cr_expect_leq(fabs(q[i] - d.quarter[i]), 1e-15, "quarter %d", i);
            cr_expect_leq(constraint, 1e-14, "check C5");
            if (!recompute) {
                const double bound = s == 2 ? 6e-3 : 2e-6;
                cr_expect_leq(energy, bound, "check C7: max|ΔH| %.3e > %.0e", energy, bound);
                cr_expect_leq(q[3], 1.2 * q[0], "check C7: the energy error grows: %.3e then %.3e", q[0], q[3]);
            } else {
                cr_expect_geq(q[3], 2.0 * q[0], "the recomputed multiplier drifts: %.3e then %.3e", q[0], q[3]);
            }
            cJSON_Delete(res);
        }
}

/* The sleigh on SE(2) (data/sleigh_se2.json's state) and in coordinates (data/
 * chaplygin_sleigh.json's), both with the recomputed multiplier, over T = 5: (q, p)
 * differ by O(h^(2s−2)). */
Test(nh_run, lie_sleigh_agrees_with_the_coordinate_sleigh_to_the_method_order, .timeout = 60)
{
    for (int s = 2; s <= 3; ++s) {
        double diff[2];
        for (int r = 0; r < 2; ++r) {
            const int N = 50 << r;
            char text[512];
            sp_problem a, b;
            snprintf(text, sizeof text,
                     "{\"task\": \"simulate\", \"model\": \"chaplygin_sleigh\", \"q0\": [0, 0, 0], \"v0\": [1, 0, 1],"
                     " \"stages\": %d, \"lambda1\": \"recompute\", \"T\": 5, \"steps\": %d}",
                     s, N);
            parse(text, &a);
            snprintf(text, sizeof text,
                     "{\"task\": \"simulate\", \"model\": \"sleigh_se2\", \"g0\": [0, 0, 0], \"xi0\": [1, 1, 0],"
                     " \"stages\": %d, \"T\": 5, \"steps\": %d}",
                     s, N);
            parse(text, &b);
            cJSON *ra = sp_solve_json(&a, NULL), *rb = sp_solve_json(&b, NULL);
            cr_assert_not_null(ra);
            cr_assert_not_null(rb);
            const cJSON *ta = result_member(ra, "trajectory"), *tb = result_member(rb, "trajectory");
            diff[r] = 0.0;
            for (int k = 0; k <= N; ++k)
                for (int i = 0; i < 3; ++i) {
                    const char *f[2] = {"q", "p"};
                    for (int j = 0; j < 2; ++j) {
                        double x = cJSON_GetArrayItem(cJSON_GetArrayItem(result_member(ta, f[j]), k), i)->valuedouble,
                               y = cJSON_GetArrayItem(cJSON_GetArrayItem(result_member(tb, f[j]), k), i)->valuedouble;
                        diff[r] = fmax(diff[r], fabs(x - y));
                    }
                }
            cr_expect_leq(number_at(result_member(rb, "diagnostics"), "group_error"), 1e-14);
            cJSON_Delete(ra);
            cJSON_Delete(rb);
        }
        const double rate = log2(diff[0] / diff[1]);
        cr_log_info("sleigh on SE(2) vs in coordinates, s = %d, T = 5: max |Δ(q, p)| %.3e (h = 0.1), %.3e (h = 0.05): "
                    "rate %.2f (order %d)",
                    s, diff[0], diff[1], rate, 2 * s - 2);
        cr_expect_geq(rate, 2 * s - 2 - 0.3);
        cr_expect_leq(diff[0], s == 2 ? 1e-2 : 1e-5);
    }
}

/* ---------------------------------------------------- rows, stops and failures -- */

Test(nh_run, rows_every_record_every_steps_and_the_last)
{
    sp_problem pb;
    parse(CONTACT ", \"h\": 0.1, \"steps\": 20, \"record_every\": 7}", &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    const cJSON *tr = result_member(res, "trajectory"), *t = result_member(tr, "t");
    const double expect[4] = {0.0, 0.7, 1.4, 2.0};
    cr_assert_eq(cJSON_GetArraySize(t), 4);
    for (int k = 0; k < 4; ++k) cr_expect_float_eq(cJSON_GetArrayItem(t, k)->valuedouble, expect[k], 1e-14);
    static const char *const fields[] = {"q", "p", "lambda"};
    for (int i = 0; i < 3; ++i) cr_expect_eq(cJSON_GetArraySize(result_member(tr, fields[i])), 4, "%s", fields[i]);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(result_member(tr, "lambda"), 0)), 1);
    cr_expect_eq(number_at(res, "steps"), 20);
    cJSON_Delete(res);

    /* Suslov: the rotation rows, the body momentum and the multiplier, the entries named */
    parse("{\"task\": \"simulate\", \"model\": \"suslov\", \"xi0\": [0.8, 0, -0.3], \"h\": 0.1, \"steps\": 5}", &pb);
    res = sp_solve_json(&pb, NULL);
    tr = result_member(res, "trajectory");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(result_member(tr, "g"), 5)), 9);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(result_member(tr, "mu"), 5)), 3);
    cr_expect_null(cJSON_GetObjectItem(tr, "q"), "Suslov has no coordinates");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(result_member(tr, "coordinates"), 8)), "R33");
    cr_expect_str_eq(string_at(result_member(res, "settings"), "lambda1"), "recompute");
    cr_expect_str_eq(string_at(result_member(res, "settings"), "retraction"), "cayley");
    cJSON_Delete(res);
}

Test(nh_run, a_stop_ends_the_run_with_what_it_has)
{
    sp_problem pb;
    parse(CONTACT ", \"h\": 0.1, \"steps\": 100}", &pb);
    volatile sig_atomic_t stop = 1;
    sp_progress progress = {.stop = &stop};
    cJSON *res = sp_solve_json(&pb, &progress);
    cr_assert_not_null(res);
    cr_expect_str_eq(string_at(res, "status"), "interrupted");
    cr_expect_eq(number_at(res, "interrupted_at_step"), 0);
    cr_expect_eq(cJSON_GetArraySize(result_member(result_member(res, "trajectory"), "t")), 1, "the initial row");
    cr_expect_eq(sp_result_outcome(res), SP_OUTCOME_INTERRUPTED);
    cJSON_Delete(res);
}

/* h = 100 is far beyond what Newton converges for: the run ends at step 1 with the
 * status and the first row. */
Test(nh_run, a_failed_solve_is_a_status)
{
    sp_problem pb;
    parse(CONTACT ", \"stages\": 4, \"h\": 100, \"steps\": 3}", &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    cr_expect_str_eq(string_at(res, "status"), "newton_failed");
    cr_expect_eq(number_at(res, "failed_at_step"), 1);
    cr_expect_eq(sp_result_outcome(res), SP_OUTCOME_FAILED);
    cJSON_Delete(res);
}

/* ------------------------------------------------------------------ pictures -- */

static char *picture(const char *text)
{
    sp_problem pb;
    parse(text, &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    char *svg = NULL;
    sp_input_error err;
    cr_assert_eq(sp_plot_result(res, &svg, &err), SP_OK, "%s: %s", err.path, err.message);
    cJSON_Delete(res);
    return svg;
}

Test(nh_run, pictures_recompute_the_invariants)
{
    char *svg = picture(CONTACT ", \"h\": 0.1, \"steps\": 50}");
    static const char *const contact[] = {"Drift of the invariants", "energy |H − H0|", "H_y drift",
                                          "constraint |Ψ(q, p)|"};
    for (size_t i = 0; i < sizeof contact / sizeof contact[0]; ++i)
        cr_expect(strstr(svg, contact[i]) != NULL, "contact oscillator picture lacks '%s'", contact[i]);
    cr_expect_null(strstr(svg, "Path in the plane"), "the oscillator does not move in a plane");
    free(svg);
    svg = picture("{\"task\": \"simulate\", \"model\": \"sleigh_se2\", \"g0\": [0, 0, 0], \"xi0\": [1, 1, 0],"
                  " \"h\": 0.1, \"steps\": 50}");
    static const char *const sleigh[] = {"Path in the plane", "energy |E − E0|", "distance from the group", ">theta<"};
    for (size_t i = 0; i < sizeof sleigh / sizeof sleigh[0]; ++i)
        cr_expect(strstr(svg, sleigh[i]) != NULL, "sleigh picture lacks '%s'", sleigh[i]);
    free(svg);
    svg = picture("{\"task\": \"simulate\", \"model\": \"suslov\", \"xi0\": [0.8, 0, -0.3], \"h\": 0.1, \"steps\": 20}");
    cr_expect(strstr(svg, "distance from the group") != NULL);
    cr_expect(strstr(svg, ">R23<") != NULL, "the rotation entries are named");
    cr_expect_null(strstr(svg, "Path in the plane"));
    free(svg);
}

/* Orders 8 and 10 from a problem file: the rolling disk with "stages": 5 and 6 and the
 * warm-start solver, T = 2, h = 0.5 and 0.25, against its exact solution (the disk
 * turns at rate 2 and rolls at rate 1 on a circle; q(2), p(2) as in test_nonholonomic.c);
 * the settings say what ran. */
Test(nh_run, rolling_disk_file_with_five_and_six_stages)
{
    static const double exact[8] = {-0.3784012476539641, 0.82682181043180591, 4, 2, -0.65364362086361194,
                                    -0.7568024953079282, 2, 1};
    for (int s = 5; s <= 6; ++s) {
        double err[2];
        for (int r = 0; r < 2; ++r) {
            char text[512];
            snprintf(text, sizeof text,
                     "{\"task\": \"simulate\", \"model\": \"rolling_disk\", \"q0\": [0, 0, 0, 0], \"v0\": [1, 0, 2, 1],"
                     " \"stages\": %d, \"solver\": \"simplified_newton\", \"T\": 2, \"steps\": %d}",
                     s, 4 << r);
            sp_problem pb;
            parse(text, &pb);
            cJSON *res = sp_solve_json(&pb, NULL);
            cr_assert_not_null(res);
            cr_expect_str_eq(string_at(res, "status"), "ok");
            const cJSON *settings = result_member(res, "settings");
            cr_expect_eq(number_at(settings, "stages"), s);
            cr_expect_eq(number_at(settings, "order"), 2 * s - 2);
            cr_expect_str_eq(string_at(settings, "solver"), "simplified_newton");
            const cJSON *tr = result_member(res, "trajectory");
            err[r] = 0.0;
            for (int j = 0; j < 2; ++j) {
                const cJSON *rows = result_member(tr, j ? "p" : "q");
                const cJSON *last = cJSON_GetArrayItem(rows, cJSON_GetArraySize(rows) - 1);
                for (int i = 0; i < 4; ++i)
                    err[r] = fmax(err[r], fabs(cJSON_GetArrayItem(last, i)->valuedouble - exact[4 * j + i]));
            }
            cJSON_Delete(res);
        }
        const double order = log2(err[0] / err[1]);
        cr_log_info("rolling disk file, s = %d: errors at T = 2 with h = 0.5, 0.25: %.2e %.2e, order %.2f", s, err[0],
                    err[1], order);
        cr_expect(fabs(order - (2 * s - 2)) <= 0.3, "s = %d: observed order %.2f, expected %d", s, order, 2 * s - 2);
        cr_expect_leq(err[1], s == 5 ? 1e-9 : 1e-12, "s = %d: error %.3e at h = 0.25", s, err[1]);
    }
}
