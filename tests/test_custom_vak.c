/* Expression models of kind vakonomic ("model": "custom", "kind": "vakonomic"):
 *   - the built-in Heisenberg and parking models written as expressions
 *     (data/custom/heisenberg.json, parking.json, parallel_parking.json) run the same
 *     trajectories, diagnostics and endpoint plans as the built-ins;
 *   - the sub-Riemannian geodesics of SE(2) (data/custom/se2_geodesics.json) converge at
 *     order 2s to an independent reference, classical RK4 on the eliminated ODE written
 *     out here, keep Ĥ bounded and the constraint at round-off;
 *   - the car with a trailer (data/custom/car_trailer_plan.json) is parked sideways;
 *   - malformed files are refused by the command with status 2 and one line naming
 *     the place. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/sp_solve.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "problems/custom/sp_custom_model.h"
#include "problems/sp_problem.h"
#include "tests/support.h"

static void read_data(const char *name, sp_problem *pb)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, name);
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(path, pb, &err), SP_OK, "%s: %s: %s", name, err.path, err.message);
    cr_assert_eq(pb->kind, SP_KIND_VAKONOMIC, "%s", name);
}

/* The result of a data file's task through the library. */
static cJSON *solve_data(const char *name)
{
    sp_problem pb;
    read_data(name, &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cr_assert_not_null(res, "%s: no result", name);
    return res;
}

/* max |a − b| over two arrays of numbers or of rows of numbers, of the same shape. */
static double max_difference(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a)) {
        cr_assert(cJSON_IsNumber(b));
        return fabs(a->valuedouble - b->valuedouble);
    }
    cr_assert(cJSON_IsArray(a) && cJSON_IsArray(b));
    cr_assert_eq(cJSON_GetArraySize(a), cJSON_GetArraySize(b), "arrays of different lengths");
    double d = 0.0;
    for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next) {
        const double e = max_difference(x, y);
        d = isnan(e) ? NAN : fmax(d, e);
    }
    return d;
}

/* The expression model against the built-in: every recorded q and p to 1e-12, and the
 * same diagnostics (the same names in the same order, the same values). */
static void same_as_builtin(const char *custom, const char *builtin)
{
    cJSON *a = solve_data(custom), *b = solve_data(builtin);
    const cJSON *ta = result_member(a, "trajectory"), *tb = result_member(b, "trajectory");
    const double dq = max_difference(result_member(ta, "q"), result_member(tb, "q")), dp = max_difference(result_member(ta, "p"), result_member(tb, "p"));
    cr_log_info("%s against %s: max |dq| %.3g, max |dp| %.3g", custom, builtin, dq, dp);
    cr_expect_leq(dq, 1e-12, "%s: max |dq| = %.3g", custom, dq);
    cr_expect_leq(dp, 1e-12, "%s: max |dp| = %.3g", custom, dp);
    const cJSON *da = result_member(a, "diagnostics"), *db = result_member(b, "diagnostics");
    cr_expect_eq(cJSON_GetArraySize(da), cJSON_GetArraySize(db), "%s: %d diagnostics, the built-in %d", custom,
                 cJSON_GetArraySize(da), cJSON_GetArraySize(db));
    for (const cJSON *x = da->child, *y = db->child; x && y; x = x->next, y = y->next) {
        cr_expect_str_eq(x->string, y->string, "%s: diagnostics differ in name", custom);
        const double d = fabs(x->valuedouble - y->valuedouble);
        cr_expect_leq(d, 1e-12, "%s: %s differs by %.3g (%.17g, built-in %.17g)", custom, x->string, d, x->valuedouble,
                      y->valuedouble);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(custom_vak, heisenberg_as_expressions_runs_as_the_builtin)
{
    same_as_builtin("custom/heisenberg.json", "heisenberg.json");
}

Test(custom_vak, parking_as_expressions_runs_as_the_builtin)
{
    same_as_builtin("custom/parking.json", "parking_fig3.json");
}

Test(custom_vak, parking_plan_as_expressions_finds_the_builtin_momenta, .timeout = 120)
{
    cJSON *a = solve_data("custom/parallel_parking.json"), *b = solve_data("parallel_parking.json");
    cr_assert_str_eq(cJSON_GetStringValue(result_member(a, "status")), "converged");
    cr_assert_str_eq(cJSON_GetStringValue(result_member(b, "status")), "converged");
    const double d = max_difference(result_member(a, "initial_momenta"), result_member(b, "initial_momenta"));
    cr_log_info("parallel parking as expressions: max |dp0| %.3g from the built-in's, residual %.3g", d,
                number_at(a, "residual"));
    cr_expect_leq(d, 1e-8, "p0 differs from the built-in's by %.3g", d);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ------------------------------------------------------------------- SE(2) -- */

/* The SE(2) problem written out independently of the expression model: M = diag(1, 1, ξ),
 * g = (sin θ, −cos θ, 0) with g M⁻¹ gᵀ = 1, so λ = −g·M⁻¹p, v = M⁻¹(p + λg) and
 * H_q = (0, 0, λ (cos θ v_x + sin θ v_y)). The eliminated ODE is ẏ = (v, −H_q). */
static void se2_rhs(double xi, const double *y, double *dy)
{
    const double st = sin(y[2]), ct = cos(y[2]);
    const double lam = -(st * y[3] - ct * y[4]);
    const double v[3] = {y[3] + lam * st, y[4] - lam * ct, y[5] / xi};
    dy[0] = v[0], dy[1] = v[1], dy[2] = v[2];
    dy[3] = dy[4] = 0.0;
    dy[5] = -lam * (ct * v[0] + st * v[1]);
}

/* Classical RK4, N steps over T, the increments added by Kahan's compensated summation. */
static void se2_rk4(double xi, double T, int N, const double *y0, double *y)
{
    const double h = T / N;
    double comp[6] = {0}, k1[6], k2[6], k3[6], k4[6], t[6];
    sp_vec_copy(6, y0, y);
    for (int k = 0; k < N; ++k) {
        se2_rhs(xi, y, k1);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + 0.5 * h * k1[i];
        se2_rhs(xi, t, k2);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + 0.5 * h * k2[i];
        se2_rhs(xi, t, k3);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + h * k3[i];
        se2_rhs(xi, t, k4);
        for (int i = 0; i < 6; ++i) {
            const double a = h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) - comp[i], sum = y[i] + a;
            comp[i] = (sum - y[i]) - a;
            y[i] = sum;
        }
    }
}

static double param_of(const sp_problem *pb, const char *name)
{
    for (int i = 0; i < pb->custom->n_params; ++i)
        if (strcmp(pb->custom->param_name[i], name) == 0) return pb->custom->param_value[i];
    cr_assert_fail("no parameter %s", name);
    return NAN;
}

/* The file's problem with s stages and N steps over T, run through the library. */
static sp_vak_run se2_run(sp_problem *pb, int s, double T, int N)
{
    pb->vak.stages = s, pb->T = T, pb->steps = N, pb->record_every = N;
    sp_vak_system sys;
    cr_assert_eq(sp_vak_system_init(&sys, pb), SP_OK);
    sp_vak_run run;
    sp_status st = sp_vak_integrate(&sys, pb->vak.q0, pb->vak.p0, 0, 0, &run);
    cr_assert_eq(st, SP_OK, "s = %d, N = %d: %s", s, N, sp_status_name(st));
    sp_vak_run_release(&run);
    sp_vak_system_release(&sys);
    return run;
}

/* Gauss s = 1, 2 over T = 4 with N0, 2 N0, … steps while the error at T stays above
 * 1e-10 (a hundred times the reference's): the last observed order must be 2s ± 0.3. */
Test(custom_vak, se2_geodesics_converge_at_order_2s, .timeout = 120)
{
    sp_problem pb;
    read_data("custom/se2_geodesics.json", &pb);
    const double xi = param_of(&pb, "xi"), T = 4.0, floor_err = 1e-10;
    double y0[6], ref[6], ref2[6];
    sp_vec_copy(3, pb.vak.q0, y0);
    sp_vec_copy(3, pb.vak.p0, y0 + 3);
    se2_rk4(xi, T, 20000, y0, ref);
    se2_rk4(xi, T, 40000, y0, ref2);
    const double ref_err = sp_vec_dist(6, ref, ref2);
    cr_assert_leq(ref_err, 1e-2 * floor_err, "reference error %.3g", ref_err);
    for (int s = 1; s <= 2; ++s) {
        double err[8], order = NAN;
        int levels = 0;
        char line[512];
        int len = snprintf(line, sizeof line, "SE(2) s=%d, T=%g (reference error %.0e):", s, T, ref_err);
        for (int N = 20; levels < 8; N *= 2, ++levels) {
            const sp_vak_run run = se2_run(&pb, s, T, N);
            double z[6];
            sp_vec_copy(3, run.q_end, z);
            sp_vec_copy(3, run.p_end, z + 3);
            err[levels] = 0.0;
            for (int i = 0; i < 6; ++i) err[levels] = fmax(err[levels], fabs(z[i] - ref2[i]));
            if (!(err[levels] >= floor_err)) break;
            len += snprintf(line + len, sizeof line - (size_t)len, " N=%d %.3e", N, err[levels]);
            if (levels) {
                order = log2(err[levels - 1] / err[levels]);
                len += snprintf(line + len, sizeof line - (size_t)len, " (%.3f)", order);
            }
        }
        cr_log_info("%s", line);
        cr_expect_geq(levels, 3, "%s: fewer than 3 errors above %.0e", line, floor_err);
        cr_expect(fabs(order - 2 * s) <= 0.3, "%s: observed order %.3f, not %d ± 0.3", line, order, 2 * s);
    }
    sp_problem_free(&pb);
}

/* Ĥ oscillates without drift: over ten times as long (h = 0.05, s = 2) its error grows by
 * less than a factor two; the constraint G(q) q̇ = 0 holds to round-off throughout. */
Test(custom_vak, se2_geodesics_keep_the_hamiltonian_and_the_constraint, .timeout = 120)
{
    sp_problem pb;
    read_data("custom/se2_geodesics.json", &pb);
    const double h = pb.T / pb.steps;
    const sp_vak_run shorter = se2_run(&pb, 2, 100.0, (int)lround(100.0 / h));
    const sp_vak_run longer = se2_run(&pb, 2, 1000.0, (int)lround(1000.0 / h));
    cr_log_info("SE(2) h=%g s=2: |dH| %.3g up to T=100, %.3g up to T=1000 (H0 %.3g); constraint residual %.3g; "
                "drifts %.3g %.3g %.3g",
                h, shorter.energy_error, longer.energy_error, longer.H0, longer.constraint_residual,
                longer.integral_drift[0], longer.integral_drift[1], longer.integral_drift[2]);
    cr_expect_leq(longer.energy_error, 1e-6 * fabs(longer.H0), "|dH| %.3g", longer.energy_error);
    cr_expect_leq(longer.energy_error, 2.0 * shorter.energy_error + 1e-14, "|dH| grows from %.3g to %.3g",
                  shorter.energy_error, longer.energy_error);
    cr_expect_leq(longer.constraint_residual, 1e-13, "constraint residual %.3g", longer.constraint_residual);
    cr_expect_eq(longer.n_integrals, 3);
    for (size_t i = 0; i < longer.n_integrals; ++i)
        cr_expect_leq(longer.integral_drift[i], 1e-11, "integral %zu drifts by %.3g", i, longer.integral_drift[i]);
    sp_problem_free(&pb);
}

/* ----------------------------------------------------------- car and trailer -- */

Test(custom_vak, car_with_trailer_is_parked_sideways, .timeout = 180)
{
    cJSON *res = solve_data("custom/car_trailer_plan.json");
    const double residual = number_at(res, "residual");
    const cJSON *diag = result_member(res, "diagnostics");
    cr_log_info("car with trailer: status %s, residual %.3g after %g starts, constraint residual %.3g",
                cJSON_GetStringValue(result_member(res, "status")), residual, number_at(res, "starts"),
                number_at(diag, "constraint_residual"));
    cr_expect_str_eq(cJSON_GetStringValue(result_member(res, "status")), "converged");
    cr_expect_leq(residual, 1e-8);
    cr_expect_leq(number_at(diag, "constraint_residual"), 1e-12);
    cJSON_Delete(res);
}

/* ------------------------------------------------------------- bad input -- */

#define SE2_HEAD                                                                                                       \
    "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"vakonomic\", \"coordinates\": [\"x\", \"y\", "        \
    "\"theta\"], \"q0\": [0, 0, 0], \"p0\": [1, 0, 0], \"h\": 0.1, \"steps\": 10, "

/* The command refuses the file with status 2 and one line on stderr holding each of `parts`. */
static void refused(const char *test, const char *text, const char *const *parts)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE];
    sp_test_scratch_dir(dir, "custom_vak", test);
    join(in, dir, "bad.json");
    join(out, dir, "result.json");
    write_text(in, text);
    run_result r;
    run(dir, (const char *[]){"solve", in, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, 2, "%s: exit status %d (stderr: %s)", test, r.status, r.err);
    cr_expect(is_one_line(r.err), "%s: stderr is not one line: %s", test, r.err);
    for (; *parts; ++parts) cr_expect(strstr(r.err, *parts) != NULL, "%s: '%s' not in: %s", test, *parts, r.err);
    run_free(&r);
    remove_tree(dir);
}

Test(custom_vak, a_mass_that_reads_a_coordinate_is_refused)
{
    refused("mass", SE2_HEAD "\"mass\": [1, 1, \"1 + x^2\"], \"constraints\": [[\"sin(theta)\", \"-cos(theta)\", 0]]}",
            (const char *[]){"mass[2]", "constant", "'x'", NULL});
}

Test(custom_vak, dependent_constraint_rows_are_refused)
{
    refused("dependent",
            SE2_HEAD
            "\"constraints\": [[\"sin(theta)\", \"-cos(theta)\", 0], [\"2*sin(theta)\", \"-2*cos(theta)\", 0]]}",
            (const char *[]){"constraints", "dependent", NULL});
}

Test(custom_vak, an_unparsable_expression_is_refused_with_its_place)
{
    refused("unparsable", SE2_HEAD "\"constraints\": [[\"sin(theta)\", \"-cos(theta\", 0]]}",
            (const char *[]){"constraints[0][1]", "position", NULL});
}
