/* The public problem and result objects (planner/api/sp_api.h): names to and from strings,
 * every setter and getter, bad arguments as statuses with the object unchanged, copying
 * setters and borrowed getters (ownership is checked by the sanitizers of `make asan`), a
 * problem built by setters solved exactly as the same file, for a plan and for the
 * simulations of each family, and the JSON a result writes equal to the command's. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/api/sp_api.h"
#include "planner/sp_result.h"
#include "problems/sp_result_file.h"

#include "tests/support.h"

#define DATA(name) SP_TEST_DATA "/" name

/* The problem's document, parsed back (the caller deletes it). */
static cJSON *doc_of(const symplan_problem *pb)
{
    char *text = symplan_problem_json(pb, 0);
    cr_assert_not_null(text);
    cJSON *doc = cJSON_Parse(text);
    sp_free_text(text);
    cr_assert_not_null(doc);
    return doc;
}

static symplan_problem *new_problem(symplan_task task, const char *model)
{
    symplan_problem *pb = NULL;
    cr_assert_eq(symplan_problem_new(task, model, &pb), SP_OK, "%s", model);
    cr_assert_not_null(pb);
    return pb;
}

static symplan_problem *read_problem(const char *path)
{
    symplan_problem *pb = NULL;
    char error[512];
    cr_assert_eq(symplan_problem_read_file(path, &pb, error, sizeof error), SP_OK, "%s: %s", path, error);
    return pb;
}

static symplan_result *solve(const symplan_problem *pb)
{
    symplan_result *r = NULL;
    char error[512] = "";
    cr_assert_eq(symplan_solve(pb, NULL, &r, error, sizeof error), SP_OK, "%s", error);
    cr_assert_not_null(r);
    cr_assert_str_eq(error, "");
    return r;
}

Test(api, names_to_and_from_strings)
{
    symplan_task task;
    for (int i = 0; i < 2; ++i) {
        cr_assert_not_null(symplan_task_name((symplan_task)i));
        cr_assert_eq(symplan_task_from_name(symplan_task_name((symplan_task)i), &task), SP_OK);
        cr_assert_eq(task, (symplan_task)i);
    }
    cr_assert_str_eq(symplan_task_name(SYMPLAN_SIMULATE), "simulate");
    cr_assert_null(symplan_task_name((symplan_task)2));
    cr_assert_eq(symplan_task_from_name("Plan", &task), SP_ERR_INVALID);
    cr_assert_eq(symplan_task_from_name(NULL, &task), SP_ERR_INVALID);
    cr_assert_eq(symplan_task_from_name("plan", NULL), SP_ERR_INVALID);

    symplan_status status;
    for (int i = 0; i < SYMPLAN_STATUS_COUNT; ++i) {
        const char *name = symplan_status_name((symplan_status)i);
        cr_assert_not_null(name);
        cr_assert_eq(symplan_status_from_name(name, &status), SP_OK, "%s", name);
        cr_assert_eq(status, (symplan_status)i);
        cr_assert_eq(symplan_status_done(status), i <= SYMPLAN_STOPVAL_REACHED);
    }
    cr_assert_null(symplan_status_name(SYMPLAN_STATUS_COUNT));
    cr_assert_null(symplan_status_name((symplan_status)-1));
    cr_assert_eq(symplan_status_from_name("converge", &status), SP_ERR_INVALID);
    cr_assert_eq(symplan_status_from_name(NULL, &status), SP_ERR_INVALID);
    /* every failure of the library's own is a result status a program can name */
    for (sp_status st = SP_OK; st <= SP_ERR_INTERRUPTED; ++st)
        cr_assert_eq(symplan_status_from_name(sp_status_name(st), &status), SP_OK, "%s", sp_status_name(st));
    cr_assert_str_eq(symplan_status_name(SYMPLAN_OUT_OF_MEMORY), sp_status_name(SP_ERR_NOMEM));
}

Test(api, constructors_refuse_bad_arguments)
{
    symplan_problem *pb = (symplan_problem *)&pb;
    cr_assert_eq(symplan_problem_new(SYMPLAN_PLAN, "no_such_model", &pb), SP_ERR_INVALID);
    cr_assert_null(pb);
    cr_assert_eq(symplan_problem_new(SYMPLAN_PLAN, NULL, &pb), SP_ERR_INVALID);
    cr_assert_eq(symplan_problem_new((symplan_task)7, "cubic_spline", &pb), SP_ERR_INVALID);
    cr_assert_null(pb);
    cr_assert_eq(symplan_problem_new(SYMPLAN_PLAN, "cubic_spline", NULL), SP_ERR_INVALID);

    char error[256];
    pb = (symplan_problem *)&pb;
    cr_assert_eq(symplan_problem_read_json("{\"task\": \"plan\",", 16, &pb, error, sizeof error), SP_ERR_INVALID);
    cr_assert_null(pb);
    cr_assert(starts_with(error, "malformed JSON"), "%s", error);
    const char *bad = "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0, 0, 1], "
                      "\"h\": 0.1, \"steps\": -1}";
    cr_assert_eq(symplan_problem_read_json(bad, strlen(bad), &pb, error, sizeof error), SP_ERR_INVALID);
    cr_assert(starts_with(error, "steps: "), "%s", error);
    cr_assert_eq(symplan_problem_read_json(NULL, 0, &pb, error, sizeof error), SP_ERR_INVALID);
    cr_assert_eq(symplan_problem_read_file(SP_TEST_DATA "/no_such_file.json", &pb, error, sizeof error), SP_ERR_IO);
    cr_assert_null(pb);
    cr_assert(strstr(error, "cannot read"), "%s", error);
    cr_assert_eq(symplan_problem_read_file(NULL, &pb, NULL, 0), SP_ERR_INVALID);
    cr_assert_eq(symplan_problem_read_file(DATA("heisenberg.json"), NULL, NULL, 0), SP_ERR_INVALID);
    symplan_problem_free(NULL);
    symplan_result_free(NULL);
}

Test(api, setters_write_the_members_a_file_names)
{
    symplan_problem *pb = new_problem(SYMPLAN_PLAN, "cubic_spline");
    cr_assert_eq(symplan_problem_task(pb), SYMPLAN_PLAN);
    cr_assert_str_eq(symplan_problem_model(pb), "cubic_spline");
    double v[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[3] = {1, 2, 3};
    cr_assert_eq(symplan_problem_set_horizon(pb, 2.5), SP_OK);
    cr_assert_eq(symplan_problem_set_steps(pb, 40), SP_OK);
    cr_assert_eq(symplan_problem_set_step_size(pb, 0.25), SP_OK);
    cr_assert_eq(symplan_problem_set_weight(pb, 0.5), SP_OK);
    cr_assert_eq(symplan_problem_set_param(pb, "m", 2.0), SP_OK);
    cr_assert_eq(symplan_problem_set_optimizer(pb, "LD_MMA", 50), SP_OK);
    cr_assert_eq(symplan_problem_set_number(pb, "optimizer.xtol_rel", 1e-9), SP_OK);
    cr_assert_eq(symplan_problem_set_flag(pb, "symplecticity_defect", 1), SP_OK);
    cr_assert_eq(symplan_problem_set_name(pb, "group", "SO3"), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(pb, "xi0", 3, x), SP_OK);
    cr_assert_eq(symplan_problem_add_point_target(pb, 0.5, x), SP_OK);
    cr_assert_eq(symplan_problem_add_rotation_target(pb, 1.0, v), SP_OK);
    cr_assert_eq(symplan_problem_add_pose_target(pb, 1.5, v, x), SP_OK);
    cr_assert_eq(symplan_problem_add_position_target(pb, 2.0, 2, x), SP_OK);
    const double square[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    cr_assert_eq(symplan_problem_add_obstacle(pb, 4, square), SP_OK);
    /* setters copy: what the caller changes afterwards is not the problem's */
    x[0] = 99.0, v[0] = 99.0;
    cr_assert_eq(symplan_problem_set_name(pb, "group", "SE3"), SP_OK); /* replaces */

    cJSON *doc = doc_of(pb);
    const char *expected =
        "{\"task\":\"plan\",\"model\":\"cubic_spline\",\"T\":2.5,\"steps\":40,\"h\":0.25,\"sigma\":0.5,"
        "\"params\":{\"m\":2},\"optimizer\":{\"algorithm\":\"LD_MMA\",\"maxeval\":50,\"xtol_rel\":1e-09},"
        "\"symplecticity_defect\":true,\"group\":\"SE3\",\"xi0\":[1,2,3],"
        "\"targets\":[{\"t\":0.5,\"y\":[1,2,3]},{\"t\":1,\"R\":[1,0,0,0,1,0,0,0,1]},"
        "{\"t\":1.5,\"R\":[1,0,0,0,1,0,0,0,1],\"x\":[1,2,3]},{\"t\":2,\"x\":[1,2]}],"
        "\"obstacles\":[[[0,0],[1,0],[1,1],[0,1]]]}";
    cJSON *want = cJSON_Parse(expected);
    cr_assert_not_null(want);
    char *got = cJSON_PrintUnformatted(doc);
    cr_assert(cJSON_Compare(doc, want, 1), "%s", got);
    free(got);
    cJSON_Delete(want);
    cJSON_Delete(doc);

    cr_assert_eq(symplan_problem_clear_targets(pb), SP_OK);
    doc = doc_of(pb);
    cr_assert_null(cJSON_GetObjectItem(doc, "targets"));
    cJSON_Delete(doc);
    /* the formatted text reads back as the same document */
    char *text = symplan_problem_json(pb, 1);
    cr_assert(strchr(text, '\n'));
    symplan_problem *again = NULL;
    cr_assert_eq(symplan_problem_read_json(text, strlen(text), &again, NULL, 0), SP_ERR_INVALID); /* not a plan yet */
    cr_assert_null(again);
    sp_free_text(text);
    cr_assert_null(symplan_problem_json(NULL, 0));
    symplan_problem_free(pb);
}

Test(api, bad_arguments_are_statuses_and_change_nothing)
{
    symplan_problem *pb = new_problem(SYMPLAN_SIMULATE, "heisenberg");
    cr_assert_eq(symplan_problem_task(pb), SYMPLAN_SIMULATE);
    cr_assert_eq(symplan_problem_set_number(pb, "params.a", 1.0), SP_OK);
    char *before = symplan_problem_json(pb, 0);
    const double x[9] = {1, NAN, 3}, ok[9] = {1, 2, 3};
    sp_status st[] = {
        symplan_problem_set_horizon(pb, 0.0),
        symplan_problem_set_horizon(pb, INFINITY),
        symplan_problem_set_horizon(pb, NAN),
        symplan_problem_set_steps(pb, 0),
        symplan_problem_set_step_size(pb, -1.0),
        symplan_problem_set_weight(pb, -0.1),
        symplan_problem_set_param(pb, "", 1.0),
        symplan_problem_set_param(pb, "a.b", 1.0),
        symplan_problem_set_param(pb, NULL, 1.0),
        symplan_problem_set_optimizer(pb, "", 10),
        symplan_problem_set_optimizer(pb, "LD_LBFGS", -1),
        symplan_problem_set_optimizer(pb, NULL, 10),
        symplan_problem_set_number(pb, "", 1.0),
        symplan_problem_set_number(pb, "a..b", 1.0),
        symplan_problem_set_number(pb, ".a", 1.0),
        symplan_problem_set_number(pb, "a.", 1.0),
        symplan_problem_set_number(pb, NULL, 1.0),
        symplan_problem_set_number(pb, "model.x", 1.0), /* through a member that is not an object */
        symplan_problem_set_number(pb, "params.a.b", 1.0),
        symplan_problem_set_number(pb, "x", NAN),
        symplan_problem_set_name(pb, "scheme", NULL),
        symplan_problem_set_vector(pb, "q0", 3, x),
        symplan_problem_set_vector(pb, "q0", 0, ok),
        symplan_problem_set_vector(pb, "q0", 3, NULL),
        symplan_problem_add_point_target(pb, NAN, ok),
        symplan_problem_add_point_target(pb, 1.0, x),
        symplan_problem_add_point_target(pb, 1.0, NULL),
        symplan_problem_add_pose_target(pb, 1.0, ok, NULL),
        symplan_problem_add_position_target(pb, 1.0, 0, ok),
        symplan_problem_add_obstacle(pb, 0, ok),
        symplan_problem_add_obstacle(pb, 1, x),
        symplan_problem_add_obstacle(pb, 2, NULL),
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; ++i) cr_assert_eq(st[i], SP_ERR_INVALID, "call %zu", i);
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cr_assert_eq(symplan_problem_set_number(pb, long_name, 1.0), SP_ERR_INVALID);
    char *after = symplan_problem_json(pb, 0);
    cr_assert_str_eq(after, before);
    sp_free_text(after);
    /* a member that is there and not an array takes no element */
    cr_assert_eq(symplan_problem_set_number(pb, "targets", 1.0), SP_OK);
    cr_assert_eq(symplan_problem_add_point_target(pb, 1.0, ok), SP_ERR_INVALID);
    cr_assert_eq(symplan_problem_set_number(pb, "obstacles", 1.0), SP_OK);
    cr_assert_eq(symplan_problem_add_obstacle(pb, 1, ok), SP_ERR_INVALID);
    sp_free_text(before);

    /* every function with a NULL object */
    const sp_status null_object[] = {symplan_problem_set_horizon(NULL, 1.0),
                                     symplan_problem_set_steps(NULL, 1),
                                     symplan_problem_set_step_size(NULL, 1.0),
                                     symplan_problem_set_weight(NULL, 1.0),
                                     symplan_problem_set_param(NULL, "m", 1.0),
                                     symplan_problem_set_optimizer(NULL, "LD_LBFGS", 1),
                                     symplan_problem_set_number(NULL, "T", 1.0),
                                     symplan_problem_set_flag(NULL, "x", 1),
                                     symplan_problem_set_name(NULL, "x", "y"),
                                     symplan_problem_set_vector(NULL, "x", 3, ok),
                                     symplan_problem_add_point_target(NULL, 1.0, ok),
                                     symplan_problem_add_rotation_target(NULL, 1.0, ok),
                                     symplan_problem_add_pose_target(NULL, 1.0, ok, ok),
                                     symplan_problem_add_position_target(NULL, 1.0, 2, ok),
                                     symplan_problem_add_obstacle(NULL, 1, ok),
                                     symplan_problem_clear_targets(NULL),
                                     symplan_problem_check(NULL, NULL, 0)};
    for (size_t i = 0; i < sizeof null_object / sizeof null_object[0]; ++i)
        cr_assert_eq(null_object[i], SP_ERR_INVALID, "call %zu", i);
    cr_assert_null(symplan_problem_model(NULL));
    cr_assert_eq(symplan_problem_task(NULL), SYMPLAN_PLAN);
    symplan_result *r = (symplan_result *)&r;
    cr_assert_eq(symplan_solve(NULL, NULL, &r, NULL, 0), SP_ERR_INVALID);
    cr_assert_null(r);
    cr_assert_eq(symplan_solve(pb, NULL, NULL, NULL, 0), SP_ERR_INVALID);
    double value;
    size_t rows, cols;
    const double *data;
    cr_assert_eq(symplan_result_status(NULL), SYMPLAN_INVALID_ARGUMENT);
    cr_assert_str_eq(symplan_result_message(NULL), "");
    cr_assert(isnan(symplan_result_cost(NULL)));
    cr_assert_eq(symplan_result_number(NULL, "cost", &value), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_array(NULL, "trajectory.t", &rows, &cols, &data), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_trajectory(NULL, "t", &rows, &cols, &data), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_samples(NULL, "t", &rows, &cols, &data), SP_ERR_INVALID);
    cr_assert_null(symplan_result_json(NULL, 0));
    cr_assert_eq(symplan_result_write(NULL, "x.json", NULL, 0), SP_ERR_INVALID);
    cr_assert_null(symplan_result_take_curve(NULL));
    symplan_problem_free(pb);
}

Test(api, an_incomplete_problem_is_refused_with_its_path)
{
    symplan_problem *pb = new_problem(SYMPLAN_SIMULATE, "heisenberg");
    char error[256];
    cr_assert_eq(symplan_problem_check(pb, error, sizeof error), SP_ERR_INVALID);
    cr_assert(strchr(error, ':') && !strchr(error, '\n'), "%s", error);
    symplan_result *r = (symplan_result *)&r;
    char error2[256];
    cr_assert_eq(symplan_solve(pb, NULL, &r, error2, sizeof error2), SP_ERR_INVALID);
    cr_assert_null(r);
    cr_assert_str_eq(error2, error);
    const double q0[3] = {0, 0, 0}, p0[3] = {0.1, 0.3, 1};
    cr_assert_eq(symplan_problem_set_vector(pb, "q0", 3, q0), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(pb, "p0", 3, p0), SP_OK);
    cr_assert_eq(symplan_problem_set_step_size(pb, 0.1), SP_OK);
    cr_assert_eq(symplan_problem_set_steps(pb, 10), SP_OK);
    cr_assert_eq(symplan_problem_check(pb, error, sizeof error), SP_OK, "%s", error);
    cr_assert_str_eq(error, "");
    /* a member the reader does not know is named */
    cr_assert_eq(symplan_problem_set_number(pb, "no_such_member", 1.0), SP_OK);
    cr_assert_eq(symplan_problem_check(pb, error, sizeof error), SP_ERR_INVALID);
    cr_assert(strstr(error, "no_such_member"), "%s", error);
    symplan_problem_free(pb);
}

/* data/sphere_interpolation.json, by setters. */
static symplan_problem *sphere_plan_by_setters(void)
{
    static const double y0[3] = {1, 0, 0}, xi0[3] = {0, 0, 1};
    static const double targets[4][3] = {{0.914777049122489, 0.37891306029417393, 0.14002800840280097},
                                         {0.6933752452815364, 0.6933752452815363, 0.19611613513818402},
                                         {0.378913060294174, 0.914777049122489, 0.140028008402801},
                                         {0.0, 1.0, 0.0}};
    symplan_problem *pb = new_problem(SYMPLAN_PLAN, "cubic_spline");
    cr_assert_eq(symplan_problem_set_name(pb, "group", "SO3"), SP_OK);
    cr_assert_eq(symplan_problem_set_name(pb, "space", "sphere"), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(pb, "y0", 3, y0), SP_OK);
    cr_assert_eq(symplan_problem_set_horizon(pb, 1.0), SP_OK);
    cr_assert_eq(symplan_problem_set_steps(pb, 100), SP_OK);
    cr_assert_eq(symplan_problem_set_name(pb, "scheme", "hohp_sv"), SP_OK);
    cr_assert_eq(symplan_problem_set_name(pb, "retraction", "cayley"), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(pb, "xi0", 3, xi0), SP_OK);
    cr_assert_eq(symplan_problem_set_weight(pb, 0.1), SP_OK);
    for (int i = 0; i < 4; ++i) cr_assert_eq(symplan_problem_add_point_target(pb, 0.25 * (i + 1), targets[i]), SP_OK);
    return pb;
}

/* Two results with the same numbers: every array of the trajectory equal, the cost to
 * round-off. */
static void assert_same_result(symplan_result *a, symplan_result *b, const char *const *arrays)
{
    cr_assert_eq(symplan_result_status(a), symplan_result_status(b));
    const double ca = symplan_result_cost(a), cb = symplan_result_cost(b);
    cr_assert((isnan(ca) && isnan(cb)) || fabs(ca - cb) <= 1e-14 * fabs(ca), "%.17g %.17g", ca, cb);
    for (const char *const *name = arrays; *name; ++name) {
        size_t ra, ca_, rb, cb_;
        const double *da, *db;
        cr_assert_eq(symplan_result_trajectory(a, *name, &ra, &ca_, &da), SP_OK, "%s", *name);
        cr_assert_eq(symplan_result_trajectory(b, *name, &rb, &cb_, &db), SP_OK, "%s", *name);
        cr_assert(ra == rb && ca_ == cb_ && ra > 0, "%s", *name);
        for (size_t i = 0; i < ra * ca_; ++i) cr_assert_eq(da[i], db[i], "%s[%zu]", *name, i);
    }
}

Test(api, a_plan_by_setters_equals_the_file)
{
    symplan_problem *built = sphere_plan_by_setters(), *read = read_problem(DATA("sphere_interpolation.json"));
    symplan_result *a = solve(built), *b = solve(read);
    cr_assert_eq(symplan_result_status(a), SYMPLAN_CONVERGED, "%s", symplan_result_message(a));
    cr_assert_str_eq(symplan_result_message(a), "");
    cr_assert_float_eq(symplan_result_cost(a), 2.06590801846, 1e-10);
    const char *const arrays[] = {"t", "q", "xi", "y", NULL};
    assert_same_result(a, b, arrays);

    /* getters: the shapes of the trajectory, numbers by path, a borrowed array kept */
    size_t rows, cols;
    const double *t, *t2, *q;
    cr_assert_eq(symplan_result_trajectory(a, "t", &rows, &cols, &t), SP_OK);
    cr_assert(rows == 101 && cols == 1 && t[0] == 0.0 && t[100] == 1.0, "%zu x %zu", rows, cols);
    cr_assert_eq(symplan_result_array(a, "trajectory.t", &rows, &cols, &t2), SP_OK);
    cr_assert_eq(t2, t);
    cr_assert_eq(symplan_result_trajectory(a, "q", &rows, &cols, &q), SP_OK);
    cr_assert(rows == 101 && cols == 9);
    cr_assert_eq(q[0], 1.0);
    double d, iterations, drift;
    cr_assert_eq(symplan_result_number(a, "targets[3].distance", &d), SP_OK);
    cr_assert(d >= 0.0 && d < 0.1, "%g", d);
    cr_assert_eq(symplan_result_number(a, "iterations", &iterations), SP_OK);
    cr_assert(iterations >= 1.0);
    cr_assert_eq(symplan_result_number(a, "diagnostics.momentum_map_drift", &drift), SP_OK);
    cr_assert_eq(symplan_result_number(a, "targets[4].distance", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_number(a, "targets[x].distance", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_number(a, "targets[0]", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_number(a, "status", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_number(a, "diagnostics.", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_number(a, "", &d), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_array(a, "targets", &rows, &cols, &t2), SP_ERR_INVALID); /* not numbers */
    cr_assert_eq(symplan_result_array(a, "cost", &rows, &cols, &t2), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_trajectory(a, "no_such", &rows, &cols, &t2), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_trajectory(a, "t.x", &rows, &cols, &t2), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_samples(a, "t", &rows, &cols, &t2), SP_ERR_INVALID); /* none asked for */

    /* the curve: handed over once, through the nodes of the trajectory */
    sp_plan_curve *curve = symplan_result_take_curve(a);
    cr_assert_not_null(curve);
    cr_assert_null(symplan_result_take_curve(a));
    cr_assert_eq(sp_plan_curve_kind(curve), SP_PLAN_CURVE_SPHERE);
    double R[9];
    cr_assert_eq(sp_plan_curve_sample(curve, 1, &t[50], R, NULL, NULL), SP_TEXT_OK);
    for (int k = 0; k < 9; ++k) cr_assert_float_eq(R[k], q[50 * 9 + k], 1e-12);
    symplan_result_free(a); /* the curve outlives its result */
    cr_assert_eq(sp_plan_curve_sample(curve, 1, &(double){0.3}, R, NULL, NULL), SP_TEXT_OK);
    sp_plan_curve_free(curve);
    symplan_result_free(b);
    symplan_problem_free(built);
    symplan_problem_free(read);
}

Test(api, samples_and_a_plan_on_the_group)
{
    symplan_problem *pb = read_problem(DATA("keyframes_se3.json"));
    cr_assert_eq(symplan_problem_set_number(pb, "output.sample_rate", 10), SP_OK);
    symplan_result *r = solve(pb);
    cr_assert(symplan_status_done(symplan_result_status(r)), "%s", symplan_result_message(r));
    size_t rows, cols;
    const double *t, *omega;
    cr_assert_eq(symplan_result_samples(r, "t", &rows, &cols, &t), SP_OK);
    cr_assert(rows == 51 && cols == 1, "%zu x %zu", rows, cols);
    cr_assert_eq(symplan_result_samples(r, "omega", &rows, &cols, &omega), SP_OK);
    cr_assert(rows == 51 && cols == 3, "%zu x %zu", rows, cols);
    sp_plan_curve *curve = symplan_result_take_curve(r);
    cr_assert_not_null(curve);
    cr_assert_eq(sp_plan_curve_kind(curve), SP_PLAN_CURVE_POSE);
    double w[6];
    cr_assert_eq(sp_plan_curve_sample(curve, 1, &t[7], NULL, w, NULL), SP_TEXT_OK);
    for (int k = 0; k < 3; ++k) cr_assert_float_eq(w[k], omega[7 * 3 + k], 1e-12);
    sp_plan_curve_free(curve);
    symplan_result_free(r);
    symplan_problem_free(pb);
}

/* A simulation of each family read from its file, shortened, equals the same built by
 * setters; a simulation has no curve and no cost. */
Test(api, simulations_by_setters_equal_their_files)
{
    /* holonomic: data/planar_pendulum.json */
    symplan_problem *read = read_problem(DATA("planar_pendulum.json"));
    cr_assert_eq(symplan_problem_set_steps(read, 200), SP_OK);
    symplan_problem *built = new_problem(SYMPLAN_SIMULATE, "planar_pendulum");
    const double q0[2] = {0.8414709848078965, -0.5403023058681398}, p0[2] = {0, 0};
    cr_assert_eq(symplan_problem_set_name(built, "description", "Planar pendulum: m = g = l = 1, released at rest from 1 rad, RATTLE triple jump (order 4), h = 0.01 over [0, 100]"), SP_OK);
    cr_assert_eq(symplan_problem_set_param(built, "m", 1), SP_OK);
    cr_assert_eq(symplan_problem_set_param(built, "g", 1), SP_OK);
    cr_assert_eq(symplan_problem_set_param(built, "l", 1), SP_OK);
    cr_assert_eq(symplan_problem_set_name(built, "scheme", "rattle_tj4"), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(built, "q0", 2, q0), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(built, "p0", 2, p0), SP_OK);
    cr_assert_eq(symplan_problem_set_step_size(built, 0.01), SP_OK);
    cr_assert_eq(symplan_problem_set_steps(built, 200), SP_OK);
    cr_assert_eq(symplan_problem_set_number(built, "record_every", 10), SP_OK);
    cr_assert_eq(symplan_problem_set_flag(built, "symplecticity_defect", 1), SP_OK);
    symplan_result *a = solve(built), *b = solve(read);
    cr_assert_eq(symplan_result_status(a), SYMPLAN_OK, "%s", symplan_result_message(a));
    cr_assert(isnan(symplan_result_cost(a)));
    cr_assert_null(symplan_result_take_curve(a));
    const char *const hol[] = {"t", "q", "p", NULL};
    assert_same_result(a, b, hol);
    size_t rows, cols;
    const double *t;
    cr_assert_eq(symplan_result_trajectory(a, "t", &rows, &cols, &t), SP_OK);
    cr_assert(rows == 21 && fabs(t[20] - 2.0) < 1e-12, "%zu rows, last %g", rows, t[rows - 1]);
    double newton;
    cr_assert_eq(symplan_result_number(a, "work.attempted_steps", &newton), SP_OK);
    cr_assert_eq(newton, 200.0);
    /* the same document: the built one says what the file says */
    char *ta = symplan_problem_json(built, 0), *tb = symplan_problem_json(read, 0);
    cJSON *da = cJSON_Parse(ta), *db = cJSON_Parse(tb);
    cr_assert(cJSON_Compare(da, db, 1), "%s\n%s", ta, tb);
    cJSON_Delete(da), cJSON_Delete(db), sp_free_text(ta), sp_free_text(tb);
    symplan_result_free(a), symplan_result_free(b);
    symplan_problem_free(built), symplan_problem_free(read);

    /* vakonomic: data/heisenberg.json; nonholonomic: data/knife_edge.json */
    struct {
        const char *file, *model, *scheme;
        int stages;
        double q0[3], p0[3], h;
    } family[] = {{DATA("heisenberg.json"), "heisenberg", "gauss", 2, {0, 0, 0}, {0.1, 0.3, 1}, 0.1},
                  {DATA("knife_edge.json"), "knife_edge", "lobatto", 3, {0, 0, 0}, {0, 0, 1}, 0.05}};
    for (size_t f = 0; f < 2; ++f) {
        read = read_problem(family[f].file);
        cr_assert_eq(symplan_problem_set_steps(read, 40), SP_OK);
        built = new_problem(SYMPLAN_SIMULATE, family[f].model);
        cr_assert_eq(symplan_problem_set_name(built, "scheme", family[f].scheme), SP_OK);
        cr_assert_eq(symplan_problem_set_number(built, "stages", family[f].stages), SP_OK);
        cr_assert_eq(symplan_problem_set_vector(built, "q0", 3, family[f].q0), SP_OK);
        cr_assert_eq(symplan_problem_set_vector(built, "p0", 3, family[f].p0), SP_OK);
        cr_assert_eq(symplan_problem_set_step_size(built, family[f].h), SP_OK);
        cr_assert_eq(symplan_problem_set_steps(built, 40), SP_OK);
        if (f == 0) cr_assert_eq(symplan_problem_set_flag(built, "symplecticity_defect", 1), SP_OK);
        if (f == 1) {
            cr_assert_eq(symplan_problem_set_param(built, "m", 1), SP_OK);
            cr_assert_eq(symplan_problem_set_param(built, "J", 1), SP_OK);
            cr_assert_eq(symplan_problem_set_param(built, "g_sin_alpha", 1), SP_OK);
            cr_assert_eq(symplan_problem_set_name(built, "lambda1", "carry"), SP_OK);
        }
        a = solve(built), b = solve(read);
        cr_assert_eq(symplan_result_status(a), SYMPLAN_OK, "%s: %s", family[f].model, symplan_result_message(a));
        const char *const arrays[] = {"t", "q", "p", NULL};
        assert_same_result(a, b, arrays);
        symplan_result_free(a), symplan_result_free(b);
        symplan_problem_free(built), symplan_problem_free(read);
    }
}

Test(api, a_car_plan_by_setters_equals_the_file)
{
    symplan_problem *read = read_problem(DATA("car/straight.json"));
    symplan_problem *built = new_problem(SYMPLAN_PLAN, "car");
    const double start[3] = {0, 0, 0}, goal[3] = {10, 0, 0};
    const double lane1[8] = {-5, 1.5, 20, 1.5, 20, 2.5, -5, 2.5}, lane2[8] = {-5, -1.5, 20, -1.5, 20, -2.5, -5, -2.5};
    cr_assert_eq(symplan_problem_set_number(built, "vehicle.wheelbase", 2.8), SP_OK);
    cr_assert_eq(symplan_problem_set_number(built, "vehicle.front_overhang", 0.96), SP_OK);
    cr_assert_eq(symplan_problem_set_number(built, "vehicle.rear_overhang", 0.929), SP_OK);
    cr_assert_eq(symplan_problem_set_number(built, "vehicle.width", 1.942), SP_OK);
    cr_assert_eq(symplan_problem_set_number(built, "vehicle.max_steering", 0.75), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(built, "start", 3, start), SP_OK);
    cr_assert_eq(symplan_problem_set_vector(built, "goal", 3, goal), SP_OK);
    cr_assert_eq(symplan_problem_add_obstacle(built, 4, lane1), SP_OK);
    cr_assert_eq(symplan_problem_add_obstacle(built, 4, lane2), SP_OK);
    symplan_result *a = solve(built), *b = solve(read);
    cr_assert(symplan_status_done(symplan_result_status(a)), "%s", symplan_result_message(a));
    const char *const arrays[] = {"t", NULL};
    assert_same_result(a, b, arrays);
    symplan_result_free(a), symplan_result_free(b);
    symplan_problem_free(built), symplan_problem_free(read);
}

Test(api, the_json_written_is_the_commands_result)
{
    char dir[PATH_SIZE], by_command[PATH_SIZE], by_api[PATH_SIZE];
    sp_test_scratch_dir(dir, "api", "json");
    join(by_command, dir, "command.json");
    join(by_api, dir, "api.json");
    run_result rr;
    run(dir, (const char *const[]){"solve", DATA("sphere_interpolation.json"), "-o", by_command, NULL}, &rr);
    cr_assert_eq(rr.status, 0, "%s", rr.err);
    run_free(&rr);

    symplan_problem *pb = read_problem(DATA("sphere_interpolation.json"));
    symplan_result *r = solve(pb);
    char error[256] = "untouched";
    cr_assert_eq(symplan_result_write(r, by_api, error, sizeof error), SP_OK, "%s", error);
    cr_assert_str_eq(error, "");
    cJSON *command = read_json(by_command), *api = read_json(by_api);
    char *text = symplan_result_json(r, 0);
    cr_assert_not_null(text);
    cJSON *printed = cJSON_Parse(text);
    sp_free_text(text);
    /* equal but for the wall-clock seconds, which differ from run to run */
    cJSON_Delete(sp_result_detach_wall_clock(command));
    cJSON_Delete(sp_result_detach_wall_clock(api));
    cJSON_Delete(sp_result_detach_wall_clock(printed));
    cr_assert(cJSON_Compare(command, api, 1));
    cr_assert(cJSON_Compare(printed, api, 1));
    cr_assert_not_null(cJSON_GetObjectItem(api, "input"));
    /* an unusable path is a status with the reason; the result stays readable */
    char missing[PATH_SIZE];
    join(missing, dir, "no/such/folder/result.json");
    cr_assert_eq(symplan_result_write(r, missing, error, sizeof error), SP_ERR_IO);
    cr_assert(strlen(error) > 0);
    cr_assert_eq(symplan_result_write(r, "", error, sizeof error), SP_ERR_INVALID);
    cr_assert_eq(symplan_result_status(r), SYMPLAN_CONVERGED);
    cJSON_Delete(command), cJSON_Delete(api), cJSON_Delete(printed);
    symplan_result_free(r);
    symplan_problem_free(pb);
    remove_tree(dir);
}

Test(api, a_result_that_is_not_done_says_why)
{
    symplan_problem *pb = read_problem(DATA("sphere_interpolation.json"));
    cr_assert_eq(symplan_problem_set_name(pb, "method", "single_shooting"), SP_OK);
    cr_assert_eq(symplan_problem_set_optimizer(pb, "LD_LBFGS", 2), SP_OK);
    symplan_result *r = solve(pb);
    cr_assert_eq(symplan_result_status(r), SYMPLAN_MAXEVAL_REACHED, "%s", symplan_status_name(symplan_result_status(r)));
    cr_assert(starts_with(symplan_result_message(r), symplan_status_name(symplan_result_status(r))), "%s",
              symplan_result_message(r));
    symplan_result_free(r);

    /* a stop requested before the solve starts */
    volatile sig_atomic_t stop = 1;
    cr_assert_eq(symplan_solve(pb, &stop, &r, NULL, 0), SP_OK);
    cr_assert_eq(symplan_result_status(r), SYMPLAN_INTERRUPTED);
    symplan_result_free(r);
    symplan_problem_free(pb);
}
