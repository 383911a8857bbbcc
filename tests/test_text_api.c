/* The JSON text entry points for foreign callers (planner/api/sp_text_api.h): their codes,
 * the one error line (and its truncation), problems and studies told apart by check, the
 * stop flag of solve and study; a plan's curve (sp_plan_curve_text): through the result's
 * rows at the grid's nodes, ω the derivative of its rotations, bad input and bad times. The Python package's tests (python/tests/) drive them
 * further and compare with the command. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/api/sp_text_api.h"

#include "tests/support.h"

#define HEISENBERG "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1], " \
                   "\"scheme\": \"gauss\", \"stages\": 2, \"h\": 0.1, \"steps\": %s}"

static const char *problem(const char *steps)
{
    static char text[512];
    snprintf(text, sizeof text, HEISENBERG, steps);
    return text;
}

/* A study over steps with the problem inline (no base file to find). */
static const char *study(const char *steps_list)
{
    static char text[1024];
    char base[512];
    snprintf(base, sizeof base, HEISENBERG, "10");
    snprintf(text, sizeof text, "{\"name\": \"t\", \"base\": %s, \"vary\": {\"steps\": %s}}", base, steps_list);
    return text;
}

Test(text_api, solve_returns_the_result)
{
    char *result = NULL, error[256] = "untouched";
    const char *text = problem("20");
    cr_assert_eq(sp_solve_text(text, strlen(text), NULL, &result, error, sizeof error), SP_TEXT_OK);
    cr_assert_not_null(result);
    cr_assert(strstr(result, "\"status\":\"ok\"") && strstr(result, "\"steps\":20"), "%s", result);
    cr_assert_str_eq(error, "untouched");
    sp_free_text(result);
    sp_free_text(NULL);
}

Test(text_api, bad_input_is_one_line_with_the_path)
{
    char *result = (char *)"not NULL", error[256];
    const char *text = problem("-1");
    cr_assert_eq(sp_solve_text(text, strlen(text), NULL, &result, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert_null(result);
    cr_assert(strncmp(error, "steps: ", 7) == 0, "%s", error);
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strncmp(error, "steps: ", 7) == 0, "%s", error);
    /* truncated, and terminated; no buffer at all is allowed */
    char tiny[5];
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, tiny, sizeof tiny), SP_TEXT_BAD_INPUT);
    cr_assert_str_eq(tiny, "step");
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, NULL, 0), SP_TEXT_BAD_INPUT);
    cr_assert_eq(sp_check_text("{\"task\": ", 9, NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strstr(error, "malformed JSON at line 1"), "%s", error);
}

Test(text_api, check_tells_a_study_by_its_base)
{
    char error[256];
    const char *good = study("[10, 20]");
    cr_assert_eq(sp_check_text(good, strlen(good), NULL, error, sizeof error), SP_TEXT_OK);
    const char *bad = study("[10, 0]");
    cr_assert_eq(sp_check_text(bad, strlen(bad), NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strncmp(error, "cases[1]: steps: ", 17) == 0, "%s", error);
    const char *missing = "{\"base\": \"absent.json\", \"vary\": {\"steps\": [1]}}";
    cr_assert_eq(sp_check_text(missing, strlen(missing), "/nonexistent", error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert_str_eq(error, "base: /nonexistent/absent.json: cannot read: No such file or directory");
}

Test(text_api, stop_flag)
{
    volatile sig_atomic_t stop = 1; /* set before the start: nothing runs */
    char *result = NULL, error[256];
    const char *text = problem("20");
    cr_assert_eq(sp_solve_text(text, strlen(text), &stop, &result, error, sizeof error), SP_TEXT_OK);
    cr_assert(strstr(result, "\"status\":\"interrupted\""), "%s", result);
    sp_free_text(result);

    char dir[PATH_SIZE], path[PATH_SIZE];
    sp_test_scratch_dir(dir, "text_api", "stop_flag");
    const char *s = study("[10, 20]");
    cr_assert_eq(sp_study_text(s, strlen(s), NULL, dir, &stop, error, sizeof error), SP_TEXT_INTERRUPTED);
    join(path, dir, "summary.json");
    cr_assert_eq(access(path, F_OK), 0, "the summary of a stopped study is written");
    join(path, dir, "case-0000.json");
    cr_assert_neq(access(path, F_OK), 0, "no case ran");
    stop = 0; /* the same call resumes */
    cr_assert_eq(sp_study_text(s, strlen(s), NULL, dir, &stop, error, sizeof error), SP_TEXT_OK);
    cr_assert_eq(access(path, F_OK), 0);
    remove_tree(dir);
}

/* ---- a plan's curve (sp_plan_curve_text) */

/* data/NAME with "steps" removed (the grid chosen for the accuracy) and the members of
 * `extra` (a JSON object, may be NULL) set; printed, to be freed. */
static char *plan_file(const char *name, const char *extra)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, name);
    char *text = slurp(path);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(doc);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "steps");
    cJSON *more = extra ? cJSON_Parse(extra) : NULL, *item;
    cJSON_ArrayForEach(item, more)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, item->string);
        cJSON_AddItemToObject(doc, item->string, cJSON_Duplicate(item, 1));
    }
    cJSON_Delete(more);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

/* Solves the problem text; the result tree and the curve (asserted present). */
static cJSON *plan_with_curve(const char *text, sp_plan_curve **curve)
{
    char *result = NULL, error[256] = "";
    cr_assert_eq(sp_plan_curve_text(text, strlen(text), NULL, &result, curve, error, sizeof error), SP_TEXT_OK, "%s",
                 error);
    cr_assert_not_null(*curve, "no curve: %s", result);
    cJSON *root = cJSON_Parse(result);
    sp_free_text(result);
    cr_assert_not_null(root);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "status")), "converged");
    return root;
}

static const cJSON *trajectory_item(const cJSON *root, const char *name)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "trajectory"), name);
    cr_assert(cJSON_IsArray(a), "trajectory.%s", name);
    return a;
}

/* The largest difference between the numbers of row k of the array of rows `rows` and
 * v[0..n). */
static double row_distance(const cJSON *rows, int k, const double *v, int n)
{
    const cJSON *row = cJSON_GetArrayItem(rows, k);
    cr_assert_eq(cJSON_GetArraySize(row), n);
    double d = 0.0;
    for (int j = 0; j < n; ++j) d = fmax(d, fabs(cJSON_GetArrayItem(row, j)->valuedouble - v[j]));
    return d;
}

/* The curve read at the grid's node times (the trajectory's rows) against those rows. */
static double curve_against_rows(sp_plan_curve *c, const cJSON *root)
{
    const cJSON *t = trajectory_item(root, "t");
    const int n = cJSON_GetArraySize(t), pose = sp_plan_curve_kind(c) == SP_PLAN_CURVE_POSE;
    const int e = sp_plan_curve_elem_size(c), d = sp_plan_curve_dim(c);
    double *times = malloc((size_t)n * sizeof *times), *g = malloc((size_t)n * e * sizeof *g),
           *w = malloc((size_t)n * d * sizeof *w), *a = malloc((size_t)n * d * sizeof *a);
    for (int k = 0; k < n; ++k) times[k] = cJSON_GetArrayItem(t, k)->valuedouble;
    cr_assert_eq(sp_plan_curve_sample(c, (size_t)n, times, g, w, a), SP_TEXT_OK);
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        worst = fmax(worst, row_distance(trajectory_item(root, "q"), k, g + k * e, pose ? 9 : e));
        if (pose) worst = fmax(worst, row_distance(trajectory_item(root, "x"), k, g + k * e + 9, 3));
        worst = fmax(worst, row_distance(trajectory_item(root, "xi"), k, w + k * d, d));
        worst = fmax(worst, row_distance(trajectory_item(root, "p"), k, a + k * d, d));
    }
    free(times), free(g), free(w), free(a);
    return worst;
}

Test(text_api, plan_curve_passes_through_the_grid_nodes)
{
    static const struct {
        const char *file;
        int kind, elem_size, dim;
    } cases[] = {
        {"keyframes_exact.json", SP_PLAN_CURVE_ROTATION, 9, 3},
        {"keyframes_sphere.json", SP_PLAN_CURVE_SPHERE, 9, 3},
        {"keyframes_pose.json", SP_PLAN_CURVE_POSE, 12, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *text = plan_file(cases[i].file, NULL);
        sp_plan_curve *c;
        cJSON *root = plan_with_curve(text, &c);
        cr_assert_eq(sp_plan_curve_kind(c), cases[i].kind, "%s", cases[i].file);
        cr_assert_eq(sp_plan_curve_elem_size(c), cases[i].elem_size);
        cr_assert_eq(sp_plan_curve_dim(c), cases[i].dim);
        const cJSON *input = cJSON_GetObjectItem(root, "input");
        cr_assert_eq(sp_plan_curve_start(c), 0.0);
        cr_assert_eq(sp_plan_curve_end(c), cJSON_GetObjectItem(input, "T")->valuedouble);
        double y0[3];
        cr_assert_eq(sp_plan_curve_y0(c, y0), cases[i].kind == SP_PLAN_CURVE_SPHERE);
        const double worst = curve_against_rows(c, root);
        /* exactly the rows, but at a keyframe of exact interpolation: the curve passes
         * through the keyframe itself, the row is where the segment before ends (within the
         * solver's tolerance of it) */
        cr_assert(worst <= 1e-11, "%s: the curve is %.3g off the trajectory's rows at the nodes", cases[i].file, worst);
        sp_plan_curve_free(c);
        cJSON_Delete(root);
        free(text);
    }
}

/* ω against the central differences of the sampled rotations, (Rᵀ (R(t+h) − R(t−h))/2h)^∨
 * (its skew part), Richardson-extrapolated from h and h/2: error O(h⁴). */
static void central_omega(sp_plan_curve *c, double t, double h, double omega[3])
{
    double D[2][3];
    for (int r = 0; r < 2; ++r) {
        const double s = r ? h / 2 : h, times[3] = {t - s, t, t + s};
        double g[27];
        cr_assert_eq(sp_plan_curve_sample(c, 3, times, g, NULL, NULL), SP_TEXT_OK);
        double A[9] = {0};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 3; ++k) A[3 * i + j] += g[9 + 3 * k + i] * (g[18 + 3 * k + j] - g[3 * k + j]) / (2 * s);
        D[r][0] = 0.5 * (A[7] - A[5]), D[r][1] = 0.5 * (A[2] - A[6]), D[r][2] = 0.5 * (A[3] - A[1]);
    }
    for (int k = 0; k < 3; ++k) omega[k] = (4.0 * D[1][k] - D[0][k]) / 3.0;
}

Test(text_api, plan_curve_rate_is_the_derivative_of_its_rotations)
{
    char *text = plan_file("keyframes_exact.json", NULL);
    sp_plan_curve *c;
    cJSON *root = plan_with_curve(text, &c);
    const cJSON *t = trajectory_item(root, "t");
    double worst = 0.0, at = 0.0;
    /* inside each step of the grid (the curve is smooth there), and at the nodes */
    for (int k = 0; k + 1 < cJSON_GetArraySize(t); ++k) {
        const double a = cJSON_GetArrayItem(t, k)->valuedouble, b = cJSON_GetArrayItem(t, k + 1)->valuedouble;
        for (int q = 1; q <= 3; ++q) {
            const double tq = a + (b - a) * q / 4.0;
            double w[3], fd[3];
            cr_assert_eq(sp_plan_curve_sample(c, 1, &tq, NULL, w, NULL), SP_TEXT_OK);
            central_omega(c, tq, 1e-3, fd);
            for (int j = 0; j < 3; ++j)
                if (fabs(w[j] - fd[j]) > worst) worst = fabs(w[j] - fd[j]), at = tq;
        }
    }
    /* what remains is the curve's own: the τ-derivative of one step's local error, which
     * the scheme's ξ does not carry (2e-9 at the default accuracy, the same for h from
     * 5e-4 to 4e-3, whose differences are 1e-13 off after extrapolation) */
    cr_log_info("plan curve: |ω − central differences| ≤ %.3g (at t = %.6g)", worst, at);
    /* the curve and its rates are accurate to the plan's accuracy, 1e-6 rad by default */
    cr_assert(worst < 1e-6, "ω is %.3g off the derivative of the rotations at t = %.17g", worst, at);
    sp_plan_curve_free(c);
    cJSON_Delete(root);
    free(text);
}

Test(text_api, plan_curve_refuses_bad_input)
{
    /* the problem: as sp_solve_text, the usual code and "path: message"; no curve */
    char *result = (char *)"not NULL", error[256];
    sp_plan_curve *c = (sp_plan_curve *)error;
    char *text = plan_file("keyframes_exact.json", "{\"sigma\": -1}");
    cr_assert_eq(sp_plan_curve_text(text, strlen(text), NULL, &result, &c, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert_null(result);
    cr_assert_null(c);
    cr_assert(strncmp(error, "sigma: must not be negative", 27) == 0, "%s", error);
    free(text);
    cr_assert_eq(sp_plan_curve_text("{\"task\": ", 9, NULL, &result, &c, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strstr(error, "malformed JSON at line 1") && !c, "%s", error);

    /* a task without a curve: the result, and no curve */
    const char *sim = problem("20");
    cr_assert_eq(sp_plan_curve_text(sim, strlen(sim), NULL, &result, &c, error, sizeof error), SP_TEXT_OK);
    cr_assert(result && strstr(result, "\"status\":\"ok\"") && !c);
    sp_free_text(result);
    sp_plan_curve_free(NULL);

    /* times outside [0, T] or not numbers: refused, nothing written */
    text = plan_file("keyframes_exact.json", NULL);
    cJSON_Delete(plan_with_curve(text, &c));
    const double T = sp_plan_curve_end(c);
    const double bad[][2] = {{0.0, -1e-9}, {T, nextafter(T, 2 * T)}, {1.0, NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        double g[18] = {0}, w[6] = {0};
        cr_assert_eq(sp_plan_curve_sample(c, 2, bad[i], g, w, NULL), SP_TEXT_BAD_INPUT);
        cr_assert(g[0] == 0.0 && w[0] == 0.0, "nothing written");
    }
    const double ends[2] = {0.0, T};
    cr_assert_eq(sp_plan_curve_sample(c, 2, ends, NULL, NULL, NULL), SP_TEXT_OK);
    sp_plan_curve_free(c);
    free(text);
}

/* A path too long for the caller's buffer is cut, with an ellipsis, and the reason kept. */
Test(text_api, a_long_path_is_cut_and_the_reason_kept)
{
    char key[301], text[512], error[200];
    memset(key, 'k', 300);
    key[300] = '\0';
    snprintf(text, sizeof text, "{\"task\": \"simulate\", \"model\": \"parking\", \"params\": {\"%s\": 1}}", key);
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    const char *tail = "\xe2\x80\xa6: unknown field";
    cr_assert(strlen(error) > strlen(tail) && strcmp(error + strlen(error) - strlen(tail), tail) == 0, "%s", error);
}
