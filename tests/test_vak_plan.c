/* Endpoint planning for the vakonomic models (planner/vakonomic/endpoint.c, planner/vakonomic/vak_run.c):
 * find p0 such that the discrete geodesic from q0 (s-stage Gauss–Legendre, N steps of T/N)
 * reaches q1 at T.
 *
 *  - The gradient NLopt sees, ∇f = (∂q_N/∂p0)ᵀ(q_N − q1) for f = ½|q_N(p0) − q1|², is
 *    exact: the tangent-linear sweep (sp_vak_integrate with sensitivity) agrees with
 *    central differences of the discrete map, and so does the whole ∂z_N/∂p0.
 *  - The shipped parallel-parking plan is solved from zero momenta, reaches q1, keeps
 *    the first integrals, and reports a length and an energy consistent with each other.
 *  - Targets not in data/ (Heisenberg, one of them purely vertical; parking with and
 *    without the bowl) are reached, also with derivative-free NLopt algorithms; a
 *    request that one start cannot satisfy says so instead of claiming convergence.
 *  - The multi-start is deterministic: the same file gives bitwise the same momenta.
 *
 * Problems are built as JSON text and read by sp_problem_parse, as a file would be. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "problems/sp_problem.h"
#include "tests/support.h"

/* ------------------------------------------------------------------ helpers -- */

static void parse(const char *text, sp_problem *pb)
{
    sp_input_error err;
    sp_status st = sp_problem_parse(text, strlen(text), pb, &err);
    cr_assert_eq(st, SP_OK, "problem refused: %s: %s\n%s", err.path, err.message, text);
}

/* The n numbers of the array `key`, as stored (cJSON keeps the doubles it was given). */
static void vector_at(const cJSON *obj, const char *key, int n, double *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "'%s' is not an array of %d numbers", key, n);
    for (int i = 0; i < n; ++i) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        cr_assert(cJSON_IsNumber(x), "%s[%d] is not a number", key, i);
        out[i] = x->valuedouble;
    }
}

static double max_abs_diff(int n, const double *x, const double *y)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(x[i] - y[i]));
    return d;
}

static double max_abs(int n, const double *x)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(x[i]));
    return d;
}

/* The plan's result, which must exist. */
static cJSON *plan(const sp_problem *pb)
{
    cJSON *res = sp_vak_plan_json(pb);
    cr_assert_not_null(res, "sp_vak_plan_json returned NULL");
    cr_expect_str_eq(string_at(res, "task"), "plan");
    return res;
}

/* A converged plan reaches q1: by the result's own numbers, and again by integrating
 * from the momenta it reports. Its diagnostics are those of an exact-to-round-off
 * structure-preserving run: constraints and every declared first integral. */
static void expect_reached(const sp_problem *pb, const cJSON *res, const char *what)
{
    const int n = pb->vak.type->n;
    cr_assert_str_eq(string_at(res, "status"), "converged", "%s: not converged (residual %g)", what,
                     cJSON_IsNumber(cJSON_GetObjectItem(res, "residual")) ? number_at(res, "residual") : NAN);
    double residual = number_at(res, "residual");
    cr_expect_leq(residual, pb->vak.tolerance, "%s: residual %g above the tolerance", what, residual);
    cr_expect_leq(residual, 1e-9, "%s: residual %g", what, residual);

    double target[SP_VAK_MAX_N], reached[SP_VAK_MAX_N], p0[SP_VAK_MAX_N];
    vector_at(res, "target", n, target);
    vector_at(res, "reached", n, reached);
    vector_at(res, "initial_momenta", n, p0);
    cr_expect_eq(max_abs_diff(n, target, pb->vak.q1), 0.0, "%s: the target is not q1", what);
    cr_expect_leq(max_abs_diff(n, reached, pb->vak.q1), 1e-9, "%s: reached differs from q1 by %g", what,
                  max_abs_diff(n, reached, pb->vak.q1));

    /* independently: the reported momenta take q0 to q1 */
    sp_vak_system sys;
    cr_assert_eq(sp_vak_system_init(&sys, pb), SP_OK);
    sp_vak_run run;
    cr_assert_eq(sp_vak_integrate(&sys, pb->vak.q0, p0, 0, 0, &run), SP_OK, "%s", what);
    cr_expect_leq(max_abs_diff(n, run.q_end, pb->vak.q1), 1e-9, "%s: integrating the reported momenta misses q1 by %g",
                  what, max_abs_diff(n, run.q_end, pb->vak.q1));
    cr_expect_eq(max_abs_diff(n, run.q_end, reached), 0.0, "%s: 'reached' is not where the momenta lead", what);
    cr_expect_eq(run.steps_done, pb->steps);

    const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
    cr_assert_not_null(diag, "%s: no diagnostics", what);
    cr_expect_leq(number_at(diag, "constraint_residual"), 1e-12, "%s", what);
    const char *names[SP_VAK_MAX_INTEGRALS];
    double values[SP_VAK_MAX_INTEGRALS];
    size_t count = pb->vak.type->integral_names(&pb->vak.params, names);
    cr_expect_eq(pb->vak.type->integrals(pb->vak.q0, p0, &pb->vak.params, values), count);
    cr_expect_eq(count, run.n_integrals);
    for (size_t i = 0; i < count; ++i) {
        char key[64];
        snprintf(key, sizeof key, "%s_drift", names[i]);
        cr_expect_leq(number_at(diag, key), 1e-12 * fmax(1.0, fabs(values[i])), "%s: %s = %g", what, key,
                      number_at(diag, key));
        cr_expect_leq(run.integral_drift[i], 1e-12 * fmax(1.0, fabs(values[i])), "%s: %s drifts by %g", what, names[i],
                      run.integral_drift[i]);
    }
    sp_vak_run_release(&run);
    sp_vak_system_release(&sys);
}

/* ------------------------------------------------- the gradient is exact -- */

/* f(p0) = ½|q_N − q1|² and q_N, p_N (no sensitivity). */
static double mismatch(sp_vak_system *sys, const sp_problem *pb, const double *p0, double *zN)
{
    const int n = pb->vak.type->n;
    sp_vak_run run;
    sp_status st = sp_vak_integrate(sys, pb->vak.q0, p0, 0, 0, &run);
    cr_assert_eq(st, SP_OK, "integration failed: %s", sp_status_name(st));
    double f = 0.0;
    for (int i = 0; i < n; ++i) f += 0.5 * (run.q_end[i] - pb->vak.q1[i]) * (run.q_end[i] - pb->vak.q1[i]);
    if (zN) {
        sp_vec_copy(n, run.q_end, zN);
        sp_vec_copy(n, run.p_end, zN + n);
    }
    sp_vak_run_release(&run);
    return f;
}

typedef struct gradient_case {
    const char *name;
    const char *model_fields; /* "model", "params", "q0", "q1" members */
    int n;
    double p0[3][SP_VAK_MAX_N]; /* momenta to check at */
} gradient_case;

static const gradient_case gradient_cases[] = {
    {"heisenberg",
     "\"model\": \"heisenberg\", \"q0\": [0.1, -0.2, 0.05], \"q1\": [0.4, 0.1, -0.3]",
     3,
     {{0.1, 0.3, 1.0}, {-0.6, 0.2, 2.5}, {0.8, -0.5, -1.5}}},
    {"parking",
     "\"model\": \"parking\", \"q0\": [0.3, 0, 0, 3.141592653589793], \"q1\": [0.5, 0.4, 0.3, -0.2]",
     4,
     {{0, 0, 1.09, 1}, {0.5, -0.3, 0.8, -0.4}, {1.2, 2.1, -3.0, 1.4}}},
    {"parking_cos_bowl",
     "\"model\": \"parking\", \"params\": {\"L\": 0.4, \"alpha\": 1.5, \"beta\": 0.7, \"potential\": \"cos_bowl\"},"
     " \"q0\": [0.3, 0, 0, 3.141592653589793], \"q1\": [0.5, 0.4, 0.3, -0.2]",
     4,
     {{0, 0, 1.09, 1}, {0.5, -0.3, 0.8, -0.4}, {1.2, 2.1, -3.0, 1.4}}},
};

/* For s = 1, 2, 3 at three momenta each: ∇f from the tangent-linear sweep against
 * central differences of f, and the whole ∂z_N/∂p0 (2n x n) against central
 * differences of z_N. With ε = 1e-5·max(1, |p_j|) the truncation error is O(ε²) ≈ 1e-10
 * and round-off (Newton solved to 1e-15) about 1e-15/ε = 1e-10, far below 1e-7. */
static void check_gradient(const gradient_case *c)
{
    const int n = c->n;
    for (int s = 1; s <= 3; ++s) {
        char text[1024];
        snprintf(text, sizeof text, "{\"task\": \"plan\", %s, \"T\": 1, \"steps\": 20, \"stages\": %d}",
                 c->model_fields, s);
        sp_problem pb;
        parse(text, &pb);
        sp_vak_system sys;
        cr_assert_eq(sp_vak_system_init(&sys, &pb), SP_OK);
        for (int k = 0; k < 3; ++k) {
            const double *p0 = c->p0[k];
            sp_vak_run run;
            sp_status st = sp_vak_integrate(&sys, pb.vak.q0, p0, 0, 1, &run);
            cr_assert_eq(st, SP_OK, "%s s=%d p0 #%d: %s", c->name, s, k, sp_status_name(st));
            cr_assert_not_null(run.jacobian);
            /* the sensitivity sweep does not perturb the trajectory it differentiates */
            double zN[2 * SP_VAK_MAX_N];
            double f = mismatch(&sys, &pb, p0, zN);
            cr_expect_eq(max_abs_diff(n, run.q_end, zN), 0.0, "%s s=%d: q_N changes with the sensitivity", c->name, s);
            cr_expect_eq(max_abs_diff(n, run.p_end, zN + n), 0.0, "%s s=%d: p_N changes", c->name, s);
            cr_expect_gt(f, 1e-3, "%s s=%d: the check needs a mismatch", c->name, s);

            double F[SP_VAK_MAX_N], grad[SP_VAK_MAX_N], grad_fd[SP_VAK_MAX_N];
            double jac_fd[2 * SP_VAK_MAX_N * SP_VAK_MAX_N];
            for (int i = 0; i < n; ++i) F[i] = run.q_end[i] - pb.vak.q1[i];
            sp_mat_tvec(n, n, run.jacobian, F, grad); /* the first n rows: ∂q_N/∂p0 */
            for (int j = 0; j < n; ++j) {
                double pp[SP_VAK_MAX_N], pm[SP_VAK_MAX_N], zp[2 * SP_VAK_MAX_N], zm[2 * SP_VAK_MAX_N];
                const double eps = 1e-5 * fmax(1.0, fabs(p0[j]));
                sp_vec_copy(n, p0, pp);
                sp_vec_copy(n, p0, pm);
                pp[j] += eps;
                pm[j] -= eps;
                double fp = mismatch(&sys, &pb, pp, zp), fm = mismatch(&sys, &pb, pm, zm);
                grad_fd[j] = (fp - fm) / (2.0 * eps);
                for (int r = 0; r < 2 * n; ++r) jac_fd[r * n + j] = (zp[r] - zm[r]) / (2.0 * eps);
            }
            double gerr = max_abs_diff(n, grad, grad_fd) / max_abs(n, grad);
            double jerr = max_abs_diff(2 * n * n, run.jacobian, jac_fd) / max_abs(2 * n * n, run.jacobian);
            cr_expect_leq(gerr, 1e-7, "%s s=%d p0 #%d: gradient relative error %.3g", c->name, s, k, gerr);
            cr_expect_leq(jerr, 1e-7, "%s s=%d p0 #%d: dz_N/dp0 relative error %.3g", c->name, s, k, jerr);
            sp_vak_run_release(&run);
        }
        sp_vak_system_release(&sys);
        sp_problem_free(&pb);
    }
}

Test(vak_plan, gradient_is_exact_heisenberg) { check_gradient(&gradient_cases[0]); }
Test(vak_plan, gradient_is_exact_parking) { check_gradient(&gradient_cases[1]); }
Test(vak_plan, gradient_is_exact_parking_in_the_bowl) { check_gradient(&gradient_cases[2]); }

/* ---------------------------------------------------------- parallel parking -- */

/* data/parallel_parking.json: half a unit sideways with the same heading, from zero
 * momenta, where f is stationary (the mismatch is across the constraints) and only
 * the further starts and continuation can move. */
Test(vak_plan, parallel_parking_from_a_cold_start)
{
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(SP_TEST_DATA "/parallel_parking.json", &pb, &err), SP_OK, "%s: %s", err.path,
                 err.message);
    cr_assert_eq(pb.task, SP_TASK_PLAN);
    cr_assert_eq(pb.has_initial_momenta, 0, "the file must give no starting guess");
    cr_assert_eq(pb.vak.params.potential, 0, "the checks below are for V = 0");
    const int n = 4;
    cJSON *res = plan(&pb);
    expect_reached(&pb, res, "parallel_parking");
    cr_expect_leq(number_at(res, "starts"), pb.vak.starts);
    cr_expect_geq(number_at(res, "starts"), 2, "zero momenta cannot move the car sideways");

    /* the trajectory: from q0, ending where 'reached' says, momenta conserved row by row */
    const cJSON *tr = cJSON_GetObjectItem(res, "trajectory");
    cr_assert_not_null(tr);
    const cJSON *qs = cJSON_GetObjectItem(tr, "q"), *ps = cJSON_GetObjectItem(tr, "p");
    cr_assert_eq(cJSON_GetArraySize(qs), pb.steps + 1);
    cr_assert_eq(cJSON_GetArraySize(ps), pb.steps + 1);
    double p0[4], reached[4], J0 = 0.0, worst_px = 0.0, worst_py = 0.0, worst_J = 0.0;
    vector_at(res, "initial_momenta", n, p0);
    vector_at(res, "reached", n, reached);
    for (int k = 0; k <= pb.steps; ++k) {
        double q[4], p[4];
        for (int i = 0; i < n; ++i) {
            q[i] = cJSON_GetArrayItem(cJSON_GetArrayItem(qs, k), i)->valuedouble;
            p[i] = cJSON_GetArrayItem(cJSON_GetArrayItem(ps, k), i)->valuedouble;
        }
        if (k == 0) {
            cr_expect_eq(max_abs_diff(n, q, pb.vak.q0), 0.0);
            cr_expect_eq(max_abs_diff(n, p, p0), 0.0);
        }
        if (k == pb.steps) cr_expect_eq(max_abs_diff(n, q, reached), 0.0);
        double J = q[0] * p[1] - q[1] * p[0] + p[2] + p[3]; /* rotation momentum */
        if (k == 0) J0 = J;
        worst_px = fmax(worst_px, fabs(p[0] - p0[0]));
        worst_py = fmax(worst_py, fabs(p[1] - p0[1]));
        worst_J = fmax(worst_J, fabs(J - J0));
    }
    cr_expect_leq(worst_px, 1e-13, "p_x drifts by %g", worst_px);
    cr_expect_leq(worst_py, 1e-13, "p_y drifts by %g", worst_py);
    cr_expect_leq(worst_J, 1e-12, "the rotation momentum drifts by %g", worst_J);

    /* Length and energy. With V = 0 the kinetic energy K_k at each step point is Ĥ, kept
     * within e = energy_error of Ĥ(0) = H0; the trapezoidal energy ∫K dt is therefore
     * H0·T to within T·e. With the speeds s_k = √(2K_k), energy − ½ length²/T is
     * ½ Σ w_k (s_k − s̄)² ≥ 0 (s̄ = length/T, trapezoidal weights w_k), and every
     * |s_k − s̄| ≤ 2e/√(2(H0 − e)), so the gap is at most T e²/(H0 − e). */
    const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
    const double T = pb.T, length = number_at(res, "length"), energy = number_at(res, "energy");
    const double H0 = number_at(diag, "hamiltonian"), herr = number_at(diag, "energy_error");
    cr_expect_leq(herr, 1e-3 * H0, "the plan must be resolved: energy error %g of %g", herr, H0);
    cr_expect_leq(fabs(energy - H0 * T), T * herr + 1e-12 * energy, "energy %.15g, H0 T = %.15g, energy_error %g",
                  energy, H0 * T, herr);
    const double gap = energy - 0.5 * length * length / T;
    cr_expect_geq(gap, -1e-12 * energy, "energy %.15g below length^2/2T = %.15g", energy, 0.5 * length * length / T);
    cr_expect_leq(gap, T * herr * herr / (H0 - herr) + 1e-12 * energy,
                  "energy %.15g and length^2/2T = %.15g differ by %g, more than T e^2/(H0 - e) = %g", energy,
                  0.5 * length * length / T, gap, T * herr * herr / (H0 - herr));
    cr_expect_geq(length, sp_vec_dist(n, pb.vak.q0, pb.vak.q1), "no path is shorter than the straight line");
    /* H0 = ½ v0ᵀ M v0 at q0, from the reported momenta */
    sp_vak_system sys;
    cr_assert_eq(sp_vak_system_init(&sys, &pb), SP_OK);
    double H, lam[2], v[4];
    cr_assert_eq(sp_vakonomic_hamiltonian(&sys.model, sys.point, pb.vak.q0, p0, &H, lam, v), SP_OK);
    cr_expect_eq(H, H0);
    cr_expect_float_eq(0.5 * sp_vec_dot(n, v, v), H0, 1e-12 * H0);
    sp_vak_system_release(&sys);

    /* Warm start: given the solution as initial_momenta, one start and a few sweeps do. */
    pb.has_initial_momenta = 1;
    sp_vec_copy(n, p0, pb.initial_momenta);
    cJSON *warm = plan(&pb);
    expect_reached(&pb, warm, "parallel_parking warm");
    cr_expect_eq(number_at(warm, "starts"), 1);
    cr_expect_leq(number_at(warm, "forward_sweeps"), 10, "a warm start took %g sweeps",
                  number_at(warm, "forward_sweeps"));
    double p0_warm[4];
    vector_at(warm, "initial_momenta", n, p0_warm);
    cr_expect_leq(max_abs_diff(n, p0_warm, p0), 1e-8 * max_abs(n, p0));
    cJSON_Delete(warm);
    cJSON_Delete(res);
    sp_problem_free(&pb);
}

/* --------------------------------------------------------- unseen targets -- */

typedef struct target_case {
    const char *name;
    const char *text;
    int min_starts; /* 2 where the zero start is stationary */
} target_case;

#define HEIS "{\"task\": \"plan\", \"model\": \"heisenberg\", \"T\": 1, \"steps\": 20, "
#define PARK "{\"task\": \"plan\", \"model\": \"parking\", \"T\": 1, "
#define BOWL "\"params\": {\"potential\": \"cos_bowl\"}, "

static const target_case target_cases[] = {
    {"heisenberg_oblique", HEIS "\"q0\": [0, 0, 0], \"q1\": [0.2, -0.1, 0.05]}", 1},
    /* straight up: at zero momenta the mismatch is orthogonal to every horizontal
     * direction, so the gradient vanishes there and a further start is needed */
    {"heisenberg_vertical", HEIS "\"q0\": [0, 0, 0], \"q1\": [0, 0, 0.1]}", 2},
    {"heisenberg_vertical_down_s3", HEIS "\"stages\": 3, \"q0\": [0, 0, 0], \"q1\": [0, 0, -0.1]}", 2},
    {"heisenberg_off_origin_s3", HEIS "\"stages\": 3, \"q0\": [0.1, 0.2, 0], \"q1\": [-0.3, 0.1, -0.2]}", 1},
    {"parking_offset_and_heading", PARK "\"steps\": 20, \"q0\": [0, 0, 0, 0], \"q1\": [0.4, 0.2, 0.5, 0.5]}", 1},
    {"parking_sideways_turned", PARK "\"steps\": 20, \"q0\": [0, 0, 0, 0], \"q1\": [0.3, -0.2, 0.2, 0.4]}", 1},
    {"parking_turn_in_place", PARK "\"steps\": 20, \"q0\": [0, 0, 0, 0], \"q1\": [0.1, 0.3, 0.8, 0.8]}", 1},
    {"parking_sideways_s1", PARK "\"steps\": 20, \"stages\": 1, \"q0\": [0, 0, 0, 0], \"q1\": [0, 0.5, 0, 0]}", 2},
    {"bowl_off_centre", PARK BOWL "\"steps\": 20, \"q0\": [0.5, 0, 0, 0], \"q1\": [0.8, 0.2, 0.6, 0.6]}", 1},
    {"bowl_s3", PARK BOWL "\"steps\": 30, \"stages\": 3, \"q0\": [0, 0, 0, 0], \"q1\": [0.2, -0.3, -0.5, -0.2]}", 1},
    {"bowl_long_car",
     PARK "\"params\": {\"L\": 0.5, \"potential\": \"cos_bowl\"}, \"steps\": 20, \"q0\": [0, 0, 0, 0],"
          " \"q1\": [0.4, 0.3, 0.3, 0]}",
     1},
};

#define N_TARGET_CASES (sizeof target_cases / sizeof target_cases[0])

SP_TABLE_PARAMETERS(vak_plan, unseen_targets, N_TARGET_CASES)

ParameterizedTest(size_t *i, vak_plan, unseen_targets)
{
    const target_case *c = &target_cases[*i];
    sp_problem pb;
    parse(c->text, &pb);
    cJSON *res = plan(&pb);
    expect_reached(&pb, res, c->name);
    cr_expect_geq(number_at(res, "starts"), c->min_starts, "%s", c->name);
    cJSON_Delete(res);
    sp_problem_free(&pb);
}

/* Derivative-free algorithms named in the file: NLopt gets the search close, the
 * Gauss–Newton polish (which uses the exact Jacobian) finishes it. */
typedef struct algorithm_case {
    const char *algorithm;
    const char *text; /* without the closing brace */
} algorithm_case;

static const algorithm_case algorithm_cases[] = {
    {"LN_BOBYQA", HEIS "\"q0\": [0, 0, 0], \"q1\": [0.2, -0.1, 0.05]"},
    {"LN_NELDERMEAD", HEIS "\"q0\": [0, 0, 0], \"q1\": [0.2, -0.1, 0.05]"},
    {"LN_BOBYQA", HEIS "\"q0\": [0, 0, 0], \"q1\": [0, 0, 0.1]"},
    {"LN_BOBYQA", PARK "\"steps\": 20, \"q0\": [0, 0, 0, 0], \"q1\": [0.4, 0.2, 0.5, 0.5]"},
    {"LN_SBPLX", PARK BOWL "\"steps\": 20, \"q0\": [0.5, 0, 0, 0], \"q1\": [0.8, 0.2, 0.6, 0.6]"},
};

Test(vak_plan, derivative_free_algorithms_reach_the_target)
{
    for (size_t i = 0; i < sizeof algorithm_cases / sizeof algorithm_cases[0]; ++i) {
        const algorithm_case *c = &algorithm_cases[i];
        char text[1024], what[64];
        snprintf(text, sizeof text, "%s, \"optimizer\": {\"algorithm\": \"%s\"}}", c->text, c->algorithm);
        snprintf(what, sizeof what, "case %zu (%s)", i, c->algorithm);
        sp_problem pb;
        parse(text, &pb);
        cr_assert_str_eq(pb.optimizer.algorithm, c->algorithm);
        cJSON *res = plan(&pb);
        expect_reached(&pb, res, what);
        const char *code = string_at(res, "optimizer_result");
        cr_expect(strcmp(code, "FORCED_STOP") != 0 && strcmp(code, "FAILURE") != 0, "%s: NLopt ended %s", what, code);
        cr_expect_leq(number_at(res, "iterations"), number_at(res, "starts") * pb.optimizer.maxeval, "%s", what);
        cJSON_Delete(res);
        sp_problem_free(&pb);
    }
}

/* ------------------------------------------------------- unreachable asks -- */

/* One start from zero momenta, for targets straight across the constraints: the
 * gradient vanishes there and the Jacobian is singular, so neither NLopt, the polish
 * nor continuation can move. The result must say so, with the best residual found
 * (the distance itself: the path stays at q0). */
Test(vak_plan, one_start_that_cannot_move_does_not_claim_convergence)
{
    static const struct {
        const char *text;
        double distance;
    } cases[] = {
        {HEIS "\"q0\": [0, 0, 0], \"q1\": [0, 0, 0.1], \"starts\": 1}", 0.1},
        {PARK "\"steps\": 50, \"q0\": [0, 0, 0, 0], \"q1\": [0, 0.5, 0, 0], \"starts\": 1}", 0.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sp_problem pb;
        parse(cases[i].text, &pb);
        const int n = pb.vak.type->n;
        cJSON *res = plan(&pb);
        cr_expect_str_eq(string_at(res, "status"), "target_not_reached", "case %zu", i);
        cr_expect_eq(number_at(res, "starts"), 1, "case %zu", i);
        double residual = number_at(res, "residual");
        cr_expect_gt(residual, pb.vak.tolerance, "case %zu", i);
        cr_expect_float_eq(residual, cases[i].distance, 1e-12, "case %zu: residual %.17g", i, residual);
        double reached[SP_VAK_MAX_N], p0[SP_VAK_MAX_N];
        vector_at(res, "reached", n, reached);
        vector_at(res, "initial_momenta", n, p0);
        cr_expect_float_eq(sp_vec_dist(n, reached, pb.vak.q1), residual, 1e-15, "case %zu", i);
        cr_expect_not_null(cJSON_GetObjectItem(res, "diagnostics"), "case %zu", i);
        cJSON_Delete(res);
        sp_problem_free(&pb);
    }
}

/* -------------------------------------------------------- determinism -- */

/* Starting points are drawn from a fixed sequence, NLopt's local algorithms are
 * deterministic: the same problem read twice gives bitwise the same plan. The cases
 * all need several starts (and continuation). */
Test(vak_plan, endpoint_plans_are_deterministic)
{
    static const char *const texts[] = {
        HEIS "\"q0\": [0, 0, 0], \"q1\": [0, 0, 0.1]}",
        PARK "\"steps\": 20, \"stages\": 1, \"q0\": [0, 0, 0, 0], \"q1\": [0, 0.5, 0, 0]}",
        PARK BOWL "\"steps\": 30, \"stages\": 3, \"q0\": [0, 0, 0, 0], \"q1\": [0.2, -0.3, -0.5, -0.2]}",
        NULL, /* data/parallel_parking.json, read from the file */
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        sp_problem a, b;
        if (texts[i]) {
            parse(texts[i], &a);
            parse(texts[i], &b);
        } else {
            sp_input_error err;
            cr_assert_eq(sp_problem_read_file(SP_TEST_DATA "/parallel_parking.json", &a, &err), SP_OK);
            cr_assert_eq(sp_problem_read_file(SP_TEST_DATA "/parallel_parking.json", &b, &err), SP_OK);
        }
        const int n = a.vak.type->n;
        cJSON *r1 = plan(&a), *r2 = plan(&b);
        cr_expect_str_eq(string_at(r1, "status"), "converged", "case %zu", i);
        cr_expect_geq(number_at(r1, "starts"), 2, "case %zu", i);
        double p1[SP_VAK_MAX_N], p2[SP_VAK_MAX_N];
        vector_at(r1, "initial_momenta", n, p1);
        vector_at(r2, "initial_momenta", n, p2);
        cr_expect_eq(memcmp(p1, p2, (size_t)n * sizeof *p1), 0, "case %zu: a second solve differs", i);
        cr_expect_eq(number_at(r1, "forward_sweeps"), number_at(r2, "forward_sweeps"), "case %zu", i);
        cr_expect_eq(number_at(r1, "starts"), number_at(r2, "starts"), "case %zu", i);
        double res1 = number_at(r1, "residual"), res2 = number_at(r2, "residual");
        cr_expect_eq(memcmp(&res1, &res2, sizeof res1), 0, "case %zu", i);
        cJSON_Delete(r1);
        cJSON_Delete(r2);
        sp_problem_free(&a);
        sp_problem_free(&b);
    }
}
