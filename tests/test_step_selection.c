/* Step selection from an error tolerance (planner/sp_step_selection.h): on one model of
 * each fixed-step family, the run the planner picks reaches the asked global error at T
 * — not above 10·tol, not wastefully below tol/1000 — measured against the same scheme
 * with four times the steps, or the exact solution (knife edge); the step is one h for
 * the whole run; the "step_selection" block and "work" count the trial runs; bad input
 * is refused with its path. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "support.h"

#define PENDULUM                                                                                                       \
    "\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1], \"T\": 4"
#define HEISENBERG                                                                                                     \
    "\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1], \"stages\": 2, "     \
    "\"T\": 10"
/* exact solution x = sin²(t)/2, y = (t − sin(2t)/2)/2, φ = t (data/knife_edge.json) */
#define KNIFE_EDGE                                                                                                     \
    "\"task\": \"simulate\", \"model\": \"knife_edge\", \"params\": {\"m\": 1, \"J\": 1, \"g_sin_alpha\": 1}, "        \
    "\"q0\": [0, 0, 0], \"p0\": [0, 0, 1], \"stages\": 3, \"T\": 30"

static cJSON *solve_text(const char *text)
{
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_OK, "%s: %s\n%s", err.path, err.message, text);
    cJSON *result = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cr_assert_not_null(result);
    return result;
}

/* The last row of field `name` into z (returns its width). */
static int last_row(const cJSON *result, const char *name, double *z)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "trajectory"), name);
    cr_assert(cJSON_IsArray(rows) && cJSON_GetArraySize(rows) > 0, "no trajectory field %s", name);
    const cJSON *row = cJSON_GetArrayItem(rows, cJSON_GetArraySize(rows) - 1);
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, row) z[n++] = x->valuedouble;
    return n;
}

/* The final (q, p) of a result. */
static int final_state(const cJSON *result, double *z)
{
    int n = last_row(result, "q", z);
    return n + last_row(result, "p", z + n);
}

/* Every recorded t is a multiple of the one step: min(i·every, N)·h. */
static void expect_even_steps(const cJSON *result, int every)
{
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(result, "step_selection");
    const double h = number_at(sel, "h");
    const int N = (int)number_at(sel, "steps");
    cr_expect_eq((int)number_at(cJSON_GetObjectItemCaseSensitive(result, "settings"), "steps"), N);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "trajectory"), "t");
    int i = 0;
    const cJSON *ti;
    cJSON_ArrayForEach(ti, t)
    {
        const int k = i * every < N ? i * every : N;
        cr_expect(fabs(ti->valuedouble - k * h) <= 1e-12 * N * h, "t[%d] = %.17g, not %d h", i, ti->valuedouble, k);
        ++i;
    }
}

/* Solves `body` with the tolerance; checks the block, the work and the even steps; leaves
 * the chosen steps in *N and returns the result. */
static cJSON *solve_to_tolerance(const char *body, double tol, int *N)
{
    char text[1024];
    snprintf(text, sizeof text, "{%s, \"error_tolerance\": %g, \"record_every\": 100}", body, tol);
    cJSON *result = solve_text(text);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status")), "ok", "%s", text);
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(result, "step_selection");
    cr_assert(cJSON_IsObject(sel));
    cr_expect_eq(number_at(sel, "tolerance"), tol);
    cr_expect_leq(number_at(sel, "estimated_error"), tol);
    *N = (int)number_at(sel, "steps");
    /* the work counts the trial runs: at least the final run and the pair that chose it */
    const double attempts = number_at(cJSON_GetObjectItemCaseSensitive(result, "work"), "attempted_steps");
    cr_expect_geq(attempts, 2.5 * *N, "attempted %g for %d steps", attempts, *N);
    cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sel, "trial_runs")), 2);
    expect_even_steps(result, 100);
    return result;
}

/* The error at T of the run the tolerance chose, against the same problem with four
 * times its steps (whose own error is 2^p times smaller at least). */
static void expect_error_met(const char *body, double tol)
{
    int N;
    cJSON *chosen = solve_to_tolerance(body, tol, &N);
    char text[1024];
    snprintf(text, sizeof text, "{%s, \"steps\": %d, \"record_every\": %d}", body, 4 * N, 4 * N);
    cJSON *ref = solve_text(text);
    double z[64], r[64];
    const int n = final_state(chosen, z);
    cr_assert_eq(final_state(ref, r), n);
    double err = 0.0;
    for (int i = 0; i < n; ++i) err = fmax(err, fabs(z[i] - r[i]));
    cr_log_info("%s: tol %g, %d steps, error %.3g\n", body, tol, N, err);
    cr_expect_leq(err, 10.0 * tol, "tol %g: error %.3g with %d steps", tol, err, N);
    cr_expect_geq(err, tol / 1000.0, "tol %g: error %.3g with %d steps is wastefully small", tol, err, N);
    cJSON_Delete(chosen);
    cJSON_Delete(ref);
}

Test(step_selection, rattle_spherical_pendulum)
{
    expect_error_met(PENDULUM ", \"scheme\": \"rattle\"", 1e-6);
    expect_error_met(PENDULUM ", \"scheme\": \"rattle\"", 1e-9);
}

Test(step_selection, rattle_suzuki5_spherical_pendulum)
{
    expect_error_met(PENDULUM ", \"scheme\": \"rattle_suzuki5\"", 1e-6);
    expect_error_met(PENDULUM ", \"scheme\": \"rattle_suzuki5\"", 1e-9);
}

Test(step_selection, gauss_heisenberg)
{
    expect_error_met(HEISENBERG, 1e-6);
    expect_error_met(HEISENBERG, 1e-9);
}

/* Against the exact positions; the estimate bounds the momenta too, so the positions'
 * error may sit a little lower, not below tol/1000. */
Test(step_selection, lobatto_knife_edge_exact)
{
    const double tols[] = {1e-6, 1e-9};
    for (int i = 0; i < 2; ++i) {
        int N;
        cJSON *result = solve_to_tolerance(KNIFE_EDGE, tols[i], &N);
        double q[3];
        cr_assert_eq(last_row(result, "q", q), 3);
        const double T = 30.0, exact[3] = {0.5 * sin(T) * sin(T), 0.5 * (T - 0.5 * sin(2.0 * T)), T};
        double err = 0.0;
        for (int k = 0; k < 3; ++k) err = fmax(err, fabs(q[k] - exact[k]));
        cr_log_info("knife edge: tol %g, %d steps, error %.3g\n", tols[i], N, err);
        cr_expect_leq(err, 10.0 * tols[i], "tol %g: error %.3g", tols[i], err);
        cr_expect_geq(err, tols[i] / 1000.0, "tol %g: error %.3g is wastefully small", tols[i], err);
        cJSON_Delete(result);
    }
}

/* An expression model goes through its family's reader and gets the same treatment. */
Test(step_selection, expression_model)
{
    int N;
    cJSON *result = solve_to_tolerance("\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"holonomic\", "
                                       "\"coordinates\": [\"x\", \"y\"], \"mass\": [1, 1], \"potential\": \"y\", "
                                       "\"constraints\": [\"0.5*(x^2 + y^2 - 1)\"], \"scheme\": \"rattle_tj4\", "
                                       "\"q0\": [1, 0], \"p0\": [0, 0], \"T\": 3",
                                       1e-7, &N);
    cr_expect_gt(N, 16);
    cJSON_Delete(result);
}

/* A budget too small for the search ends it with too_many_steps, the trials shown. */
Test(step_selection, budget_bounds_the_search)
{
    const char text[] = "{" PENDULUM ", \"error_tolerance\": 1e-9}";
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_OK, "%s: %s", err.path, err.message);
    pb.step_budget = 5000;
    cJSON *result = sp_solve_json(&pb, NULL);
    cr_assert_not_null(result);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status")), "too_many_steps");
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(result, "step_selection");
    cr_expect(cJSON_IsObject(sel));
    long spent = 0;
    const cJSON *trial;
    cJSON_ArrayForEach(trial, cJSON_GetObjectItemCaseSensitive(sel, "trial_runs")) spent +=
        (long)number_at(trial, "steps");
    cr_expect_leq(spent, 5000);
    cJSON_Delete(result);
    sp_problem_free(&pb);
}

/* The memory limit holds for the step count the search picks, not only for the file's:
 * a final run whose rows would not fit ends the search with too_many_steps and a message
 * that names the limit, before that run is made. */
Test(step_selection, memory_limit_bounds_the_chosen_steps)
{
    const char text[] = "{" PENDULUM ", \"error_tolerance\": 1e-9}";
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_OK, "%s: %s", err.path, err.message);
    sp_problem small = pb;
    small.steps = 64;
    pb.memory_budget = sp_problem_memory_estimate(&small); /* room for 64 steps' rows, not more */
    cJSON *result = sp_solve_json(&pb, NULL);
    cr_assert_not_null(result);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status")), "too_many_steps");
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "message"));
    cr_expect(message && strstr(message, "--max-memory"), "message: %s", message ? message : "(none)");
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(result, "step_selection");
    const cJSON *trial;
    cJSON_ArrayForEach(trial, cJSON_GetObjectItemCaseSensitive(sel, "trial_runs"))
        cr_expect_leq(number_at(trial, "steps"), 64.0, "a trial run of %g steps", number_at(trial, "steps"));
    cJSON_Delete(result);
    sp_problem_free(&pb);
}

/* Bad input: `symplan solve` exits 2 with one line naming the file and the path. */
Test(step_selection, bad_input_exits_2_with_the_path)
{
    static const struct {
        const char *text, *path;
    } cases[] = {
        {"{" PENDULUM ", \"error_tolerance\": 0}", "error_tolerance"},
        {"{" PENDULUM ", \"error_tolerance\": -1e-6}", "error_tolerance"},
        {"{" PENDULUM ", \"error_tolerance\": 1e-20}", "error_tolerance"},
        {"{" PENDULUM ", \"error_tolerance\": 1e-6, \"steps\": 100}", "steps"},
        {"{" PENDULUM ", \"error_tolerance\": 1e-6, \"h\": 0.01}", "h"},
        {"{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1], "
         "\"error_tolerance\": 1e-6}",
         "T"},
        {"{" PENDULUM ", \"scheme\": \"feedback_dop853\", \"error_tolerance\": 1e-6}", "error_tolerance"},
        {"{" HEISENBERG ", \"error_tolerance\": 1e-6, \"steps\": 10}", "steps"},
        {"{\"task\": \"plan\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"q1\": [1, 0, 0], \"T\": 1, "
         "\"error_tolerance\": 1e-6}",
         "error_tolerance"},
        {"{" KNIFE_EDGE ", \"error_tolerance\": \"small\"}", "error_tolerance"},
    };
    char dir[PATH_SIZE], bad[PATH_SIZE];
    sp_test_scratch_dir(dir, "step_selection", "bad-input");
    join(bad, dir, "bad.json");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        write_text(bad, cases[i].text);
        run_result r;
        run(dir, (const char *[]){"solve", bad, NULL}, &r);
        cr_expect_eq(r.status, 2, "case %zu: exited %d (%s)", i, r.status, r.err);
        char prefix[PATH_SIZE + 64];
        snprintf(prefix, sizeof prefix, "%s: %s: ", bad, cases[i].path);
        cr_expect(is_one_line(r.err) && starts_with(r.err, prefix), "case %zu: stderr '%s', not '%s…'", i, r.err,
                  prefix);
        run_free(&r);
    }
    remove_tree(dir);
}
