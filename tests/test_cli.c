/* The symplan command end to end (docs/command.md; docs/reference.md):
 * `list`, `check` and `solve` on the shipped examples, and on malformed files the
 * contract's promise: exit status 2, exactly one line on stderr naming the file and
 * the JSON path, an existing -o file left byte for byte as it was and no temporary
 * file left beside it. The binary runs as a child process; its stdout and stderr go
 * to files in a scratch directory of its own. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <nlopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lie/sp_lie.h"
#include "tests/support.h"

/* A scratch directory per test and process, so that parallel jobs never share one. */
static void scratch_dir(char *dir, const char *test) { sp_test_scratch_dir(dir, "cli", test); }
static void remove_dir(const char *dir) { remove_tree(dir); }

/* Runs the command with args in dir into *r, which the caller frees, and asserts its
 * exit status. */
static void run_expecting(const char *dir, const char *const *args, int code, run_result *r)
{
    run(dir, args, r);
    const char *command = args[0] ? args[0] : "(no command)", *first = args[0] && args[1] ? args[1] : "";
    cr_assert_eq(r->status, code, "%s %s: exit %d, expected %d: %s", command, first, r->status, code, r->err);
}

/* --------------------------------------------------------------------- list -- */

Test(cli, list_names_everything_a_file_can_name)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "list");
    run_result r;
    run_expecting(dir, (const char *[]){"list", NULL}, 0, &r);
    cr_expect_str_empty(r.err);
    static const char *const names[] = {
        "groups:",  "SO3",     "R3",         "retractions:", "cayley",       "exp",
        "schemes:", "hohp_sv", "hohp_euler", "models:",      "cubic_spline", "LD_LBFGS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        cr_expect(strstr(r.out, names[i]) != NULL, "list does not mention %s", names[i]);
    /* the groups line names every registered group (SE2 too: problem files refuse it for
     * cubics, but the library has it) */
    const char *groups = strstr(r.out, "groups:"), *end = groups ? strchr(groups, '\n') : NULL;
    cr_assert(groups && end, "no groups line");
    for (size_t i = 0; sp_group_at(i); ++i) {
        char word[32];
        snprintf(word, sizeof word, " %s", sp_group_at(i)->name);
        const char *at = strstr(groups, word);
        cr_expect(at && at < end && (at[strlen(word)] == ' ' || at[strlen(word)] == '\n'),
                  "the groups line does not name %s", sp_group_at(i)->name);
    }
    cr_expect_not_null(sp_group_by_name("SE3"));
    for (int a = 0; a < NLOPT_NUM_ALGORITHMS; ++a) {
        const char *name = nlopt_algorithm_to_string((nlopt_algorithm)a);
        cr_expect(strstr(r.out, name) != NULL, "list does not mention the NLopt algorithm %s", name);
    }
    run_free(&r);
    remove_dir(dir);
}

/* The vakonomic models, their scheme and stages, are listed with the others. */
Test(cli, list_names_the_vakonomic_models)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "list-vak");
    run_result r;
    run_expecting(dir, (const char *[]){"list", NULL}, 0, &r);
    const char *models = strstr(r.out, "models:");
    cr_assert_not_null(models, "no models section:\n%s", r.out);
    static const char *const names[] = {"heisenberg", "parking", "gauss"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        cr_expect(strstr(models, names[i]) != NULL, "list does not mention %s among the models", names[i]);
    run_free(&r);
    remove_dir(dir);
}

/* The holonomic models, each with its schemes, and the schemes with their orders. */
Test(cli, list_names_the_holonomic_models_and_schemes)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "list-hol");
    run_result r;
    run_expecting(dir, (const char *[]){"list", NULL}, 0, &r);
    static const char *const names[] = {"spherical_pendulum", "planar_pendulum", "heavy_top", "s3_contact",
                                        "holonomic schemes:", "rattle_tj6", "feedback_dop853", "lie_trotter",
                                        "strang", "lie_rattle", "prop7", "shake", "se_ab"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        cr_expect(strstr(r.out, names[i]) != NULL, "list does not mention %s", names[i]);
    run_free(&r);
    remove_dir(dir);
}

/* The nonholonomic models, on vector spaces and on Lie groups, with the scheme and its options. */
Test(cli, list_names_the_nonholonomic_models)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "list-nh");
    run_result r;
    run_expecting(dir, (const char *[]){"list", NULL}, 0, &r);
    static const char *const names[] = {"knife_edge", "rolling_disk", "contact_oscillator", "chaplygin_sleigh",
                                        "sleigh_se2", "suslov",       "lobatto",            "lambda1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        cr_expect(strstr(r.out, names[i]) != NULL, "list does not mention %s", names[i]);
    run_free(&r);
    remove_dir(dir);
}

/* -------------------------------------------------------------------- check -- */

Test(cli, check_accepts_every_data_file)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "check");
    DIR *data = opendir(SP_TEST_DATA);
    cr_assert_not_null(data);
    int files = 0;
    const struct dirent *de;
    while ((de = readdir(data))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0) continue;
        char path[PATH_SIZE];
        join(path, SP_TEST_DATA, de->d_name);
        run_result r;
        run_expecting(dir, (const char *[]){"check", path, NULL}, 0, &r);
        cr_expect_str_eq(r.out, "ok\n", "%s", de->d_name);
        cr_expect_str_empty(r.err, "%s", de->d_name);
        run_free(&r);
        ++files;
    }
    closedir(data);
    cr_expect_geq(files, 3);
    remove_dir(dir);
}

/* -------------------------------------------------------------------- solve -- */

/* Runs `solve in -o out` (no -o when out is NULL) in dir, as run_expecting. */
static void solve_expecting_exit(const char *dir, const char *in, const char *out, int code, run_result *r)
{
    if (out)
        run_expecting(dir, (const char *[]){"solve", in, "-o", out, NULL}, code, r);
    else
        run_expecting(dir, (const char *[]){"solve", in, NULL}, code, r);
}

/* in = folder/<file> and out = dir/<out_name>, then `solve in -o out` as solve_expecting_exit. */
static void solve_paths(const char *dir, const char *folder, const char *file, char *in, const char *out_name,
                        char *out, int code, run_result *r)
{
    join(in, folder, file);
    join(out, dir, out_name);
    solve_expecting_exit(dir, in, out, code, r);
}

/* Solves a data file into dir/name and returns the parsed result. */
static cJSON *solve_data(const char *dir, const char *file, const char *name)
{
    char in[PATH_SIZE], out[PATH_SIZE];
    run_result r;
    solve_paths(dir, SP_TEST_DATA, file, in, name, out, 0, &r);
    cr_expect_str_empty(r.err);
    cr_expect_str_empty(r.out, "with -o nothing goes to stdout");
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0, "a temporary file was left behind");
    return read_json(out);
}

/* The opening of a solve test: the scratch folder dir for `test`, data/<file> solved into
 * dir/result.json (solve_data) and, when status is not NULL, its status expected. */
static cJSON *scratch_solve(char *dir, const char *test, const char *file, const char *status)
{
    scratch_dir(dir, test);
    cJSON *res = solve_data(dir, file, "result.json");
    if (status) cr_expect_str_eq(string_at(res, "status"), status, "%s", file);
    return res;
}

/* Instance A: J_d* = 2.06590801846492 (Cayley, θ = ½, N = 100), the optimum an independent
 * Python implementation finds. */
Test(cli, solve_sphere_interpolation_reaches_the_reference_optimum)
{
    char dir[PATH_SIZE];
    cJSON *res = scratch_solve(dir, "solve-sphere", "sphere_interpolation.json", "converged");
    double cost = number_at(res, "cost");
    cr_expect_leq(fabs(cost - 2.06590801846492), 1e-6 * 2.06590801846492, "cost %.15g", cost);
    const cJSON *targets = cJSON_GetObjectItem(res, "targets");
    cr_assert_eq(cJSON_GetArraySize(targets), 4);
    /* distances of the independent Python implementation's solution: 0.0948, 0.0637, 0.0107, 0.0258 */
    static const double distance[4] = {9.480388e-02, 6.373567e-02, 1.071008e-02, 2.577389e-02};
    for (int i = 0; i < 4; ++i)
        cr_expect_float_eq(number_at(cJSON_GetArrayItem(targets, i), "distance"), distance[i], 1e-5, "target %d", i);
    const cJSON *timing = cJSON_GetObjectItem(res, "timing");
    cr_expect_geq(number_at(timing, "plain_sweeps"), 1);
    cr_expect_geq(number_at(timing, "derivative_sweeps"), 1);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "initial_momenta")), 6);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t")), 101);
    cJSON_Delete(res);
    remove_dir(dir);
}

/* The slew of data/so3_orientations.json, cross-checked against an independent
 * Python implementation (with the same rotation targets): J_d* = 7.10360003567475. */
Test(cli, solve_so3_orientations_converges)
{
    char dir[PATH_SIZE];
    cJSON *res = scratch_solve(dir, "solve-so3", "so3_orientations.json", "converged");
    cr_expect_float_eq(number_at(res, "cost"), 7.10360003567475, 1e-6 * 7.1036);
    const cJSON *target;
    int n = 0;
    cJSON_ArrayForEach(target, cJSON_GetObjectItem(res, "targets"))
    {
        /* a geodesic angle: the spline passes within 10 degrees of every attitude */
        double d = number_at(target, "distance");
        cr_expect(d > 0.0 && d < 0.17453292519943295, "target %d missed by %g rad", n, d);
        ++n;
    }
    cr_expect_eq(n, 4);
    cJSON_Delete(res);
    remove_dir(dir);
}

/* The simulate task keeps the momentum map and the Casimir to round-off. */
Test(cli, solve_simulate_reports_invariants)
{
    char dir[PATH_SIZE];
    cJSON *res = scratch_solve(dir, "simulate", "sphere_simulate.json", "ok");
    const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
    cr_expect_leq(number_at(diag, "momentum_map_drift"), 1e-12);
    cr_expect_leq(number_at(diag, "casimir_drift"), 1e-12);
    /* the θ = ½ scheme is second order: the energy is not exact but stays small */
    double energy = number_at(diag, "energy_error");
    cr_expect(energy >= 0.0 && energy < 1e-3, "energy_error %g", energy);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_assert_eq(cJSON_GetArraySize(t), 201);
    cr_expect_float_eq(cJSON_GetArrayItem(t, 200)->valuedouble, 2.0, 1e-12);
    cJSON_Delete(res);
    remove_dir(dir);
}

Test(cli, solve_without_o_writes_the_result_to_stdout)
{
    char dir[PATH_SIZE], in[PATH_SIZE];
    scratch_dir(dir, "stdout");
    join(in, SP_TEST_DATA, "sphere_simulate.json");
    run_result r;
    solve_expecting_exit(dir, in, NULL, 0, &r);
    cJSON *res = cJSON_Parse(r.out);
    cr_assert_not_null(res, "stdout is not one JSON document");
    cr_expect_str_eq(string_at(res, "task"), "simulate");
    cJSON_Delete(res);
    run_free(&r);
    remove_dir(dir);
}

/* A successful solve replaces an existing result whole. */
Test(cli, solve_replaces_an_existing_result)
{
    char dir[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "replace");
    join(out, dir, "result.json");
    write_text(out, "old result\n");
    cJSON *res = solve_data(dir, "sphere_simulate.json", "result.json");
    cr_expect_str_eq(string_at(res, "task"), "simulate");
    cJSON_Delete(res);
    remove_dir(dir);
}

/* The vakonomic examples: each solves, and its diagnostics
 * hold what the Gauss–Legendre scheme keeps: the constraints G(q) q̇ = 0 to round-off,
 * the first integrals the model declares for its potential (linear and quadratic, so
 * exactly), Ĥ within the reference bound for the step and order, and a symplecticity
 * defect at round-off level where the file asks for it. */
typedef struct vak_file {
    const char *file, *status;
    double energy_error; /* bound on the energy error (tables of an independent Python implementation) */
    const char *integrals[4], *absent[3];
    int defect; /* the file asks for the symplecticity defect */
} vak_file;

static const vak_file vak_files[] = {
    {"heisenberg.json", "ok", 6e-8, {"p_z", "L_z"}, {"p_x", "rotation_momentum"}, 1},
    {"parking_straight.json", "ok", 1e-14, {"rotation_momentum", "p_x", "p_y"}, {"p_z"}, 0},
    {"parking_circle.json", "ok", 1e-14, {"rotation_momentum", "p_x", "p_y"}, {0}, 0},
    {"parking_fig3.json", "ok", 6e-5, {"rotation_momentum", "p_x", "p_y"}, {0}, 1},
    /* the bowl keeps rotations about the origin, not translations */
    {"parking_fig3_bowl.json", "ok", 5.4e-10, {"rotation_momentum"}, {"p_x", "p_y"}, 1},
    /* Ĥ = 13.4 on the planned path, kept to 1e-3 of itself at h = 0.02 */
    {"parallel_parking.json", "converged", 2e-2, {"rotation_momentum", "p_x", "p_y"}, {0}, 0},
};

Test(cli, solve_vakonomic_examples_reports_their_invariants)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "solve-vak");
    for (size_t i = 0; i < sizeof vak_files / sizeof vak_files[0]; ++i) {
        const vak_file *f = &vak_files[i];
        cJSON *res = solve_data(dir, f->file, "result.json");
        cr_expect_str_eq(string_at(res, "status"), f->status, "%s", f->file);
        const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
        cr_assert_not_null(diag, "%s: no diagnostics", f->file);
        double energy = number_at(diag, "energy_error");
        cr_expect(energy >= 0.0 && energy <= f->energy_error, "%s: energy_error %g above %g", f->file, energy,
                  f->energy_error);
        cr_expect_leq(number_at(diag, "constraint_residual"), 1e-12, "%s", f->file);
        for (int k = 0; k < 4 && f->integrals[k]; ++k) {
            char key[64];
            snprintf(key, sizeof key, "%s_drift", f->integrals[k]);
            cr_expect_leq(number_at(diag, key), 1e-12, "%s: %s", f->file, key);
        }
        for (int k = 0; k < 3 && f->absent[k]; ++k) {
            char key[64];
            snprintf(key, sizeof key, "%s_drift", f->absent[k]);
            cr_expect_null(cJSON_GetObjectItem(diag, key), "%s: %s is not an integral of this model", f->file, key);
        }
        const cJSON *defect = cJSON_GetObjectItem(diag, "symplecticity_defect");
        if (f->defect)
            cr_expect(cJSON_IsNumber(defect) && defect->valuedouble <= 1e-8, "%s: symplecticity_defect %g", f->file,
                      cJSON_IsNumber(defect) ? defect->valuedouble : NAN);
        else
            cr_expect_null(defect, "%s: a defect nobody asked for", f->file);
        /* the trajectory: one row per step point, from t = 0 to T */
        const cJSON *tr = cJSON_GetObjectItem(res, "trajectory");
        cr_assert_not_null(tr, "%s: no trajectory", f->file);
        const cJSON *t = cJSON_GetObjectItem(tr, "t");
        int rows = cJSON_GetArraySize(t);
        const cJSON *settings = cJSON_GetObjectItem(res, "settings");
        cr_expect_eq(rows, (int)number_at(settings, "steps") + 1, "%s", f->file);
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "q")), rows, "%s", f->file);
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "p")), rows, "%s", f->file);
        cr_expect_eq(cJSON_GetArrayItem(t, 0)->valuedouble, 0.0, "%s", f->file);
        cr_expect_float_eq(cJSON_GetArrayItem(t, rows - 1)->valuedouble,
                           number_at(settings, "steps") * number_at(settings, "h"), 1e-12, "%s", f->file);
        cr_expect_str_eq(string_at(settings, "scheme"), "gauss", "%s", f->file);
        if (strcmp(f->status, "converged") == 0) { /* a plan: q_N is the target */
            const cJSON *reached = cJSON_GetObjectItem(res, "reached"), *target = cJSON_GetObjectItem(res, "target");
            const cJSON *last = cJSON_GetArrayItem(cJSON_GetObjectItem(tr, "q"), rows - 1);
            cr_assert_eq(cJSON_GetArraySize(reached), cJSON_GetArraySize(target), "%s", f->file);
            cr_expect_leq(number_at(res, "residual"), 1e-9, "%s", f->file);
            for (int k = 0; k < cJSON_GetArraySize(target); ++k) {
                double r = cJSON_GetArrayItem(reached, k)->valuedouble;
                cr_expect_leq(fabs(r - cJSON_GetArrayItem(target, k)->valuedouble), 1e-9, "%s: reached[%d]", f->file,
                              k);
                cr_expect_eq(r, cJSON_GetArrayItem(last, k)->valuedouble, "%s: the trajectory ends elsewhere", f->file);
            }
            cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "initial_momenta")), cJSON_GetArraySize(target));
        }
        cJSON_Delete(res);
    }
    remove_dir(dir);
}

/* The straight drive (as in test_index1.c's A4 check): q(T) = q0 + T v0 to 1e-13. */
Test(cli, solve_parking_straight_drives_straight)
{
    char dir[PATH_SIZE];
    cJSON *res = scratch_solve(dir, "solve-straight", "parking_straight.json", NULL);
    const cJSON *q = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "q");
    const cJSON *last = cJSON_GetArrayItem(q, cJSON_GetArraySize(q) - 1);
    const double T = 10.0, v = 1.3, theta = 0.7;
    const double exact[4] = {0.1 + T * v * cos(theta), -0.2 + T * v * sin(theta), theta, theta};
    for (int i = 0; i < 4; ++i)
        cr_expect_leq(fabs(cJSON_GetArrayItem(last, i)->valuedouble - exact[i]), 1e-13, "q[%d](T) = %.17g, exact %.17g",
                      i, cJSON_GetArrayItem(last, i)->valuedouble, exact[i]);
    cJSON_Delete(res);
    remove_dir(dir);
}

/* Every holonomic data file solves, and its diagnostics hold what its scheme keeps:
 * the constraint and hidden constraint to round-off for the projection methods, bounded
 * energy errors, the declared first integrals, a defect below 1e-8 where the file asks
 * for it (symplectic schemes only), and the trajectory rows the file's record_every gives. */
typedef struct hol_file {
    const char *file;
    double constraint, hidden, energy_lo, energy_hi;
    const char *integrals[3];
    double integral;
    const char *monitors[2];
    int defect;
    int rows;
} hol_file;

static const hol_file hol_files[] = {
    {"spherical_pendulum.json", 1e-14, 1e-14, 1e-7, 1e-6, {"L3"}, 1e-11, {"q_squared", "q_dot_p"}, 1, 1001},
    {"spherical_pendulum_feedback_euler.json", 1e-4, 1e-4, 1e-5, 1e-4, {"L3"}, 1e-4, {"q_squared", "q_dot_p"}, 0,
     1001},
    {"spherical_pendulum_lie_trotter.json", 1e-12, 1e-12, 5e-4, 2e-3, {"L3"}, 1e-11, {"q_squared", "q_dot_p"}, 1,
     1001},
    {"spherical_pendulum_strang.json", 1e-12, 1e-12, 1e-7, 1e-6, {"L3"}, 1e-11, {"q_squared", "q_dot_p"}, 1, 1001},
    {"planar_pendulum.json", 1e-14, 1e-14, 1e-10, 1e-8, {0}, 0, {"q_squared", "q_dot_p"}, 1, 1001},
    {"planar_pendulum_feedback_rk4.json", 1e-4, 1e-4, 1e-5, 1e-4, {0}, 0, {"q_squared", "q_dot_p"}, 0, 1001},
    {"planar_pendulum_dop853.json", 1e-4, 1e-4, 0, 1e-4, {0}, 0, {"q_squared", "q_dot_p"}, 0, 1001},
    {"heavy_top.json", 1e-14, 1e-14, 1e-4, 2.5e-3, {"vertical_momentum"}, 1e-12, {0}, 1, 401},
    {"heavy_top_lie.json", 1e-13, 1e-13, 1e-4, 2.5e-3, {"vertical_momentum"}, 1e-12, {0}, 1, 401},
    {"free_rigid_body.json", 1e-13, 1e-13, 0, 1e-3, {"vertical_momentum", "spatial_momentum_x", "spatial_momentum_y"},
     1e-12, {0}, 1, 401},
    {"s3_contact.json", 1e-14, 1e-14, 1e-4, 1.5e-3, {0}, 0, {"q_squared", "q_dot_p"}, 1, 501},
    {"s3_contact_hopf.json", 1e-14, 1e-14, 0, 1.5e-3, {"lambda"}, 1e-13, {"q_squared", "q_dot_p"}, 0, 501},
};

Test(cli, solve_holonomic_examples_reports_their_invariants, .timeout = 180)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "solve-hol");
    for (size_t i = 0; i < sizeof hol_files / sizeof hol_files[0]; ++i) {
        const hol_file *f = &hol_files[i];
        cJSON *res = solve_data(dir, f->file, "result.json");
        cr_expect_str_eq(string_at(res, "status"), "ok", "%s", f->file);
        const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
        cr_assert_not_null(diag, "%s: no diagnostics", f->file);
        cr_expect_leq(number_at(diag, "constraint_residual"), f->constraint, "%s", f->file);
        cr_expect_leq(number_at(diag, "hidden_constraint_residual"), f->hidden, "%s", f->file);
        double energy = number_at(diag, "energy_error");
        cr_expect(energy >= f->energy_lo && energy <= f->energy_hi, "%s: energy_error %g outside [%g, %g]", f->file,
                  energy, f->energy_lo, f->energy_hi);
        int integrals = 0;
        for (int k = 0; k < 3 && f->integrals[k]; ++k, ++integrals) {
            char key[64];
            snprintf(key, sizeof key, "%s_drift", f->integrals[k]);
            cr_expect_leq(number_at(diag, key), f->integral, "%s: %s", f->file, key);
        }
        int monitors = 0;
        for (int k = 0; k < 2 && f->monitors[k]; ++k, ++monitors) {
            char key[64];
            snprintf(key, sizeof key, "%s_drift", f->monitors[k]);
            cr_expect_leq(number_at(diag, key), 2 * f->constraint, "%s: %s", f->file, key);
        }
        /* nothing else but the three residuals, the monitors, the integrals and the defect */
        const cJSON *d;
        int count = 0;
        cJSON_ArrayForEach(d, diag)++ count;
        const cJSON *defect = cJSON_GetObjectItem(diag, "symplecticity_defect");
        cr_expect_eq(count, 3 + monitors + integrals + (defect != NULL), "%s: %d diagnostics", f->file, count);
        if (f->defect)
            cr_expect(cJSON_IsNumber(defect) && defect->valuedouble <= 1e-8, "%s: symplecticity_defect %g", f->file,
                      cJSON_IsNumber(defect) ? defect->valuedouble : NAN);
        else if (defect)
            cr_expect_geq(defect->valuedouble, 1e-4, "%s: a feedback defect", f->file);
        const cJSON *tr = cJSON_GetObjectItem(res, "trajectory");
        const cJSON *t = cJSON_GetObjectItem(tr, "t");
        cr_expect_eq(cJSON_GetArraySize(t), f->rows, "%s: rows", f->file);
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "q")), f->rows, "%s", f->file);
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "p")), f->rows, "%s", f->file);
        const cJSON *settings = cJSON_GetObjectItem(res, "settings");
        cr_expect_float_eq(cJSON_GetArrayItem(t, f->rows - 1)->valuedouble,
                           number_at(settings, "steps") * number_at(settings, "h"), 1e-9, "%s", f->file);
        cr_expect_not_null(cJSON_GetObjectItem(res, "work"), "%s", f->file);
        cJSON_Delete(res);
    }
    remove_dir(dir);
}

/* Every nonholonomic data file solves: the constraint holds at every step and stage to
 * round-off (as in test_nonholonomic.c's C5 check), the energy error is within the reference
 * figures for the file's step and order, the declared first integrals are reported, and
 * on groups the element stays on the group. */
typedef struct nh_file {
    const char *file;
    double energy_lo, energy_hi; /* the energy error, measured / reference */
    const char *integrals[2];
    double integral; /* bound on their drift */
    int lie, rows;
} nh_file;

static const nh_file nh_files[] = {
    /* s = 3, h = 0.05, T = 30 from rest: |ΔH| 4.3e-8; p_phi exact (no torque) */
    {"knife_edge.json", 1e-9, 1e-7, {"p_phi"}, 1e-14, 0, 601},
    {"rolling_disk.json", 1e-8, 1e-6, {"p_phi"}, 1e-14, 0, 401},
    /* test_nonholonomic.c's C7 check (s = 3, h = 0.1, T = 2000): 1.69e-6; H_y is not kept exactly */
    {"contact_oscillator.json", 1e-6, 2e-6, {"H_y"}, 1e-6, 0, 1001},
    /* an independent Python implementation: T = 200, h = 0.1, recomputed Λ1, s = 3: 8.2e-8 */
    {"chaplygin_sleigh.json", 5e-8, 1e-7, {0}, 0, 0, 401},
    {"sleigh_se2.json", 5e-8, 1e-6, {0}, 0, 1, 401},
    /* T = 500: the energy error of the non-symmetric RKMK step grows linearly, ~2e-9 per unit time */
    {"suslov.json", 1e-7, 2e-6, {0}, 0, 1, 501},
};

Test(cli, solve_nonholonomic_examples_reports_their_invariants, .timeout = 180)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "solve-nh");
    for (size_t i = 0; i < sizeof nh_files / sizeof nh_files[0]; ++i) {
        const nh_file *f = &nh_files[i];
        cJSON *res = solve_data(dir, f->file, "result.json");
        cr_expect_str_eq(string_at(res, "status"), "ok", "%s", f->file);
        const cJSON *diag = cJSON_GetObjectItem(res, "diagnostics");
        cr_assert_not_null(diag, "%s: no diagnostics", f->file);
        double constraint = number_at(diag, "constraint_residual"), energy = number_at(diag, "energy_error");
        cr_log_info("%s: constraint_residual %.2e, energy_error %.2e", f->file, constraint, energy);
        cr_expect(constraint >= 0.0 && constraint <= 1e-14, "%s: constraint_residual %g", f->file, constraint);
        cr_expect(energy >= f->energy_lo && energy <= f->energy_hi, "%s: energy_error %g outside [%g, %g]", f->file,
                  energy, f->energy_lo, f->energy_hi);
        int count = 3; /* constraint_residual, energy_error, energy_error_relative */
        for (int k = 0; k < 2 && f->integrals[k]; ++k, ++count) {
            char key[64];
            snprintf(key, sizeof key, "%s_drift", f->integrals[k]);
            cr_expect_leq(number_at(diag, key), f->integral, "%s: %s", f->file, key);
        }
        if (f->lie) {
            cr_expect_leq(number_at(diag, "group_error"), 1e-13, "%s: group_error", f->file);
            ++count;
        }
        const cJSON *d;
        int n = 0;
        cJSON_ArrayForEach(d, diag)++ n;
        cr_expect_eq(n, count, "%s: %d diagnostics", f->file, n);
        const cJSON *tr = cJSON_GetObjectItem(res, "trajectory"), *t = cJSON_GetObjectItem(tr, "t");
        cr_expect_eq(cJSON_GetArraySize(t), f->rows, "%s: rows", f->file);
        static const char *const fields[2][3] = {{"q", "p", "lambda"}, {"g", "mu", "lambda"}};
        for (int k = 0; k < 3; ++k)
            cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, fields[f->lie][k])), f->rows, "%s: %s", f->file,
                         fields[f->lie][k]);
        cr_expect_not_null(cJSON_GetObjectItem(tr, "coordinates"), "%s", f->file);
        const cJSON *settings = cJSON_GetObjectItem(res, "settings");
        cr_expect_str_eq(string_at(settings, "scheme"), "lobatto", "%s", f->file);
        cr_expect_float_eq(cJSON_GetArrayItem(t, f->rows - 1)->valuedouble,
                           number_at(settings, "steps") * number_at(settings, "h"), 1e-9, "%s", f->file);
        cJSON_Delete(res);
    }
    remove_dir(dir);
}

/* ------------------------------------------------------------ bad input -- */

/* A valid plan whose fields the cases below break one at a time. */
static const char plan_doc[] =
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"y0\": [1, 0, 0],\n"
    " \"T\": 1, \"steps\": 40, \"scheme\": \"hohp_sv\", \"retraction\": \"cayley\", \"xi0\": [0, 0, 1],\n"
    " \"sigma\": 0.1, \"targets\": [{\"t\": 0.5, \"y\": [1, 1, 0]}, {\"t\": 1, \"y\": [0, 1, 0]}],\n"
    " \"optimizer\": {\"algorithm\": \"LD_LBFGS\", \"maxeval\": 50}}\n";

static const char group_doc[] =
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"xi0\": [0, 0, 1], \"T\": 1,\n"
    " \"steps\": 40, \"sigma\": 0.1, \"targets\": [{\"t\": 1, \"R\": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]}]}\n";

static const char simulate_doc[] =
    "{\"task\": \"simulate\", \"model\": \"cubic_spline\", \"xi0\": [1, -0.5, 0.8], \"p0\": [0.3, 0.6, -0.4],\n"
    " \"nu0\": [0.5, -0.4, 0.3], \"T\": 2, \"steps\": 20}\n";

static const char heis_doc[] =
    "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1],\n"
    " \"stages\": 2, \"h\": 0.1, \"steps\": 10, \"symplecticity_defect\": true}\n";

static const char park_doc[] =
    "{\"task\": \"simulate\", \"model\": \"parking\", \"params\": {\"L\": 0.3, \"alpha\": 1, \"beta\": 1},\n"
    " \"q0\": [0.1, -0.2, 0.7, 0.7], \"p0\": [0, 0, 1.09, 1], \"scheme\": \"gauss\", \"stages\": 2, \"T\": 1,\n"
    " \"steps\": 10}\n";

static const char park_plan_doc[] =
    "{\"task\": \"plan\", \"model\": \"parking\", \"q0\": [0, 0, 0, 0], \"q1\": [0, 0.5, 0, 0], \"T\": 1,\n"
    " \"steps\": 20, \"optimizer\": {\"algorithm\": \"LD_LBFGS\"}}\n";

static const char pend_doc[] =
    "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"scheme\": \"rattle\", \"q0\": [0, 1, 0],\n"
    " \"p0\": [1, 0, 1], \"h\": 0.01, \"steps\": 10}\n";

typedef struct cli_case {
    const char *base;
    const char *from, *to; /* the first `from` in base becomes `to` */
    const char *path;      /* JSON path the error line must name ("" for none) */
} cli_case;

static const cli_case cli_cases[] = {
    {plan_doc, "\"T\": 1,", "\"T\": 1", ""},                              /* bad JSON: missing comma */
    {plan_doc, "\"steps\": 40", "\"steps\": \"40\"", "steps"},            /* wrong type */
    {plan_doc, "hohp_sv", "hohp_rk4", "scheme"},                          /* unknown scheme */
    {plan_doc, "\"LD_LBFGS\"", "\"LD_NEWTON\"", "optimizer.algorithm"},   /* unknown NLopt algorithm */
    {plan_doc, "\"sigma\": 0.1,", "", "sigma"},                           /* missing field */
    {plan_doc, "\"sigma\": 0.1", "\"sigma\": 1e999", "sigma"},            /* overflow */
    {plan_doc, "\"T\": 1", "\"T\": -1", "T"},                             /* non-positive T */
    {plan_doc, "\"t\": 1,", "\"t\": 1.25,", "targets[1].t"},              /* target time after T */
    {plan_doc, "\"t\": 1,", "\"t\": 0.5,", "targets[1].t"},               /* non-increasing times */
    {plan_doc, "[1, 1, 0]", "[1, 1]", "targets[0].y"},                    /* wrong vector length */
    {plan_doc, "\"y0\": [1, 0, 0]", "\"y0\": [0, 0, 0]", "y0"},           /* zero direction */
    {group_doc, "[0, 0, 1]]", "[0, 0, -1]]", "targets[0].R"},             /* a reflection, not a rotation */
    {group_doc, "\"T\": 1,", "\"T\": 1, \"quaternion_order\": \"w-x-y-z\",", "quaternion_order"}, /* unknown order */
    {plan_doc, "\"T\": 1,", "\"T\": 1, \"quaternion_order\": \"xyzw\",", "quaternion_order"}, /* on a sphere plan */
    {simulate_doc, "\"T\": 2", "\"T\": 2, \"sigma\": 0.1", "sigma"},      /* plan-only field */
    {simulate_doc, "\"steps\": 20", "\"steps\": 20.5", "steps"},          /* non-integer steps */
    {group_doc, "\"space\"", "\"group\": \"SE2\", \"space\"", "group"},   /* no cubics on SE(2) */
    {simulate_doc, "\"T\": 2", "\"group\": \"SE3\", \"T\": 2", "group"}, /* (no bi-invariant metric) */
    {plan_doc, "hohp_sv", "hohp\\nsv", "scheme"},                         /* a newline inside the message */
    {plan_doc, "\"steps\": 40", "\"steps\": 40, \"steps\": 80", "steps"}, /* duplicate key */
    /* vakonomic models */
    {park_doc, "\"L\": 0.3", "\"L\": 0", "params.L"},                                            /* non-positive L */
    {park_doc, "\"beta\": 1}", "\"beta\": -1}", "params.beta"},                                  /* non-positive beta */
    {park_doc, "\"alpha\": 1", "\"alpha\": 1, \"gamma\": 2", "params.gamma"},                    /* unknown parameter */
    {park_doc, "\"beta\": 1}", "\"beta\": 1, \"potential\": \"harmonic\"}", "params.potential"}, /* unknown potential */
    {heis_doc, "\"q0\": [0, 0, 0]", "\"q0\": [0, 0]", "q0"},                                     /* wrong q0 length */
    {park_doc, "\"p0\": [0, 0, 1.09, 1]", "\"p0\": [0, 0, 1.09, 1], \"v0\": [0, 0, 0, 1], \"lambda0\": [0, 0]", "v0"},
    {park_doc, "\"p0\": [0, 0, 1.09, 1], ", "", "p0"},                                        /* neither p0 nor v0 */
    {park_doc, "\"p0\": [0, 0, 1.09, 1]", "\"v0\": [0, 0, 0, 1]", "lambda0"},                 /* v0 without lambda0 */
    {park_doc, "\"p0\": [0, 0, 1.09, 1]", "\"v0\": [1, 0, 0, 0], \"lambda0\": [0, 0]", "v0"}, /* v0 across the wheels */
    {heis_doc, "\"stages\": 2", "\"stages\": 7", "stages"},                                   /* stages out of 1..6 */
    {park_doc, "\"stages\": 2", "\"stages\": 0", "stages"},
    {park_doc, "\"gauss\"", "\"lobatto\"", "scheme"},            /* scheme other than gauss */
    {heis_doc, "true", "1", "symplecticity_defect"},             /* not a boolean */
    {park_plan_doc, "\"T\": 1,", "\"T\": 1, \"h\": 0.05,", "h"}, /* simulate-only in a plan */
    {park_plan_doc, "\"T\": 1,", "\"T\": 1, \"p0\": [0, 0, 0, 0],", "p0"},
    {heis_doc, "\"steps\": 10", "\"steps\": 10, \"q1\": [0, 0, 1]", "q1"}, /* plan-only in a simulation */
    {park_doc, "\"steps\": 10", "\"steps\": 10, \"starts\": 4", "starts"},
    {park_plan_doc, "\"q1\": [0, 0.5, 0, 0], ", "", "q1"}, /* a plan without q1 */
    {park_plan_doc, "\"T\": 1,", "", "T"},                 /* a plan without T */
    /* holonomic models */
    {pend_doc, "[0, 1, 0]", "[0, 2, 0]", "q0"},                                 /* off the sphere */
    {pend_doc, "[1, 0, 1]", "[1, 1, 1]", "p0"},                                 /* not tangent */
    {pend_doc, "\"rattle\"", "\"prop7\"", "scheme"},                           /* a scheme of another model */
    {pend_doc, "\"rattle\"", "\"feedback_euler\"", "gains"},                   /* feedback without gains */
    {pend_doc, "\"steps\": 10", "\"steps\": 10, \"retraction\": \"exp\"", "retraction"}, /* not lie_rattle */
    /* text that cJSON would take but we could not write back, or would read otherwise */
    {heis_doc, "\"steps\": 10", "\"steps\": 010", ""},                                 /* a leading zero */
    {heis_doc, "\"h\": 0.1,", "\"h\": 0.1, \"description\": \"caf\xc3\",", ""},       /* invalid UTF-8 */
    {heis_doc, "\"h\": 0.1,", "\"h\": 0.1, \"description\": \"bell\x07\",", ""},      /* a raw control character */
    {heis_doc, "\"heisenberg\"", "\"heisenberg\\u0000garbage\"", ""},                  /* an escaped NUL */
    {heis_doc, "\"h\": 0.1,", "\"h\": 0.1, \"description\": \"\\ud83d\",", ""},     /* half a surrogate pair */
    {plan_doc, "\"t\": 1,", "\"t\": 0.25,", "targets[1].t"},                           /* decreasing times */
};

/* base with its first `from` replaced by `to` (static buffer, one case at a time). */
static const char *replaced(const cli_case *c)
{
    static char doc[2048];
    const char *at = strstr(c->base, c->from);
    cr_assert_not_null(at, "'%s' not in the base document", c->from);
    int n = snprintf(doc, sizeof doc, "%.*s%s%s", (int)(at - c->base), c->base, c->to, at + strlen(c->from));
    cr_assert_lt((size_t)n, sizeof doc);
    return doc;
}

/* The one error line: "FILE: PATH: message". */
static void expect_error_line(const char *err, const char *file, const char *path, const char *what)
{
    cr_expect(is_one_line(err), "%s: not exactly one line on stderr:\n%s", what, err);
    char prefix[PATH_SIZE + 200];
    snprintf(prefix, sizeof prefix, "%s: %s%s", file, path, path[0] ? ": " : "");
    cr_expect(starts_with(err, prefix), "%s: stderr '%s' does not start with '%s'", what, err, prefix);
}

static void set_old_mtime(const char *path)
{
    /* a time far from now, so that any rewrite would show even within one second */
    const struct timespec times[2] = {{1000000000, 123456789}, {1000000000, 123456789}};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* `symplan solve bad -o out` over an existing result: exits 2 with nothing on stdout and
 * the one error line naming bad and the JSON path `path`, and leaves out as it was (its
 * text, its inode and its time) with no temporary file beside it. *r is the run, to
 * free. */
static void expect_refused_keeping_output(const char *dir, const char *bad, const char *out, const char *path,
                                          const char *what, run_result *r)
{
    static const char previous[] = "{\"previous\": \"result\"}\n";
    write_text(out, previous);
    set_old_mtime(out);
    struct stat before;
    cr_assert_eq(stat(out, &before), 0);

    run(dir, (const char *[]){"solve", bad, "-o", out, NULL}, r);
    cr_expect_eq(r->status, 2, "%s: solve exited %d", what, r->status);
    expect_error_line(r->err, bad, path, what);
    cr_expect_str_empty(r->out, "%s", what);

    struct stat after;
    cr_assert_eq(stat(out, &after), 0);
    char *now = slurp(out);
    cr_expect_str_eq(now, previous, "%s: the existing -o file changed", what);
    free(now);
    cr_expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec &&
                  after.st_ino == before.st_ino,
              "%s: the existing -o file was rewritten", what);
    cr_expect_eq(count_temporaries(dir), 0, "%s: a temporary file was left behind", what);
}

Test(cli, bad_input_exits_2_with_one_line_and_leaves_output_alone)
{
    char dir[PATH_SIZE], bad[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "bad-input");
    join(bad, dir, "bad.json");
    join(out, dir, "result.json");
    for (size_t i = 0; i < sizeof cli_cases / sizeof cli_cases[0]; ++i) {
        const cli_case *c = &cli_cases[i];
        char what[128];
        snprintf(what, sizeof what, "case %zu (%s -> %s)", i, c->from, c->to);
        write_text(bad, replaced(c));
        run_result r;
        expect_refused_keeping_output(dir, bad, out, c->path, what, &r);
        run_free(&r);

        run_expecting(dir, (const char *[]){"check", bad, NULL}, 2, &r);
        expect_error_line(r.err, bad, c->path, what);
        cr_expect_null(strstr(r.out, "ok"), "%s: check said ok", what);
        run_free(&r);
    }
    remove_dir(dir);
}

/* A file name with a newline in it still gives one line. */
Test(cli, error_line_escapes_control_characters_in_the_file_name)
{
    char dir[PATH_SIZE], bad[PATH_SIZE];
    scratch_dir(dir, "newline-name");
    join(bad, dir, "bad\nname.json");
    write_text(bad, "{\"task\": 1}");
    run_result r;
    run_expecting(dir, (const char *[]){"check", bad, NULL}, 2, &r);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(strstr(r.err, "bad\\nname.json: task: must be a string") != NULL, "got %s", r.err);
    run_free(&r);
    remove_dir(dir);
}

Test(cli, missing_input_file_exits_2)
{
    char dir[PATH_SIZE], missing[PATH_SIZE];
    scratch_dir(dir, "missing-input");
    join(missing, dir, "does-not-exist.json");
    run_result r;
    solve_expecting_exit(dir, missing, NULL, 2, &r);
    expect_error_line(r.err, missing, "", "missing input");
    cr_expect(strstr(r.err, "cannot read") != NULL, "got %s", r.err);
    run_free(&r);
    remove_dir(dir);
}

/* An unusable output path is refused before anything runs, and nothing is created. */
Test(cli, output_in_missing_directory_exits_2)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "missing-dir");
    run_result r;
    solve_paths(dir, SP_TEST_DATA, "sphere_simulate.json", in, "no-such-dir/result.json", out, 2, &r);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(starts_with(r.err, out), "the error must name the output path: %s", r.err);
    cr_expect(strstr(r.err, "No such file or directory") != NULL, "got %s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    struct stat st;
    cr_expect_neq(stat(out, &st), 0);
    remove_dir(dir);
}

Test(cli, output_that_is_a_directory_exits_2)
{
    char dir[PATH_SIZE], in[PATH_SIZE], sub[PATH_SIZE];
    scratch_dir(dir, "out-is-dir");
    join(in, SP_TEST_DATA, "sphere_simulate.json");
    join(sub, dir, "results");
    cr_assert_eq(mkdir(sub, 0755), 0);
    run_result r;
    solve_expecting_exit(dir, in, sub, 2, &r);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(strstr(r.err, "Is a directory") != NULL, "got %s", r.err);
    cr_expect_eq(count_temporaries(dir), 0, "a temporary file was left beside the directory");
    run_free(&r);
    rmdir(sub);
    remove_dir(dir);
}

Test(cli, unknown_subcommand_exits_2)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "unknown-command");
    run_result r;
    run_expecting(dir, (const char *[]){"optimise", "data.json", NULL}, 2, &r);
    cr_expect(strstr(r.err, "unknown command 'optimise'") != NULL, "got %s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    run_expecting(dir, (const char *[]){NULL}, 2, &r);
    cr_expect(strstr(r.err, "usage") != NULL, "got %s", r.err);
    run_free(&r);
    remove_dir(dir);
}

/* ---------------------------------------------------------- hostile input -- */

/* Runs `script` with bash (pipes, redirections, process substitution), the command's
 * path in $SYMPLAN. */
static void run_shell(const char *dir, const char *script, run_result *r)
{
    char line[4 * PATH_SIZE];
    snprintf(line, sizeof line, "SYMPLAN='%s'; %s", SP_TEST_BIN, script);
    finish(dir, start(dir, "bash", (const char *[]){"-c", line, NULL}, 0), r);
}

/* The problem file's text as a JSON tree, for comparing with a result's input block. */
static cJSON *input_of(const char *result_text)
{
    cJSON *doc = cJSON_Parse(result_text);
    cr_assert_not_null(doc, "the result is not JSON");
    cJSON *input = cJSON_DetachItemFromObjectCaseSensitive(doc, "input");
    cJSON_Delete(doc);
    return input;
}

/* The file is read once: from a pipe, /dev/stdin or process substitution the problem
 * is checked and solved, and the result's input block is the text that was read (a
 * second read, as the input block once had, finds the pipe empty). */
Test(cli, check_and_solve_read_a_pipe_once)
{
    char dir[PATH_SIZE], file[PATH_SIZE], script[3 * PATH_SIZE];
    scratch_dir(dir, "pipe");
    join(file, SP_TEST_DATA, "heisenberg.json");
    cJSON *expected = read_json(file);
    static const char *const scripts[] = {"\"$SYMPLAN\" check /dev/stdin < '%s'", "\"$SYMPLAN\" check <(cat '%s')",
                                          "cat '%s' | \"$SYMPLAN\" check /dev/stdin"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; ++i) {
        run_result r;
        snprintf(script, sizeof script, scripts[i], file);
        run_shell(dir, script, &r);
        cr_expect_eq(r.status, 0, "%s: exit %d, %s", scripts[i], r.status, r.err);
        cr_expect_str_eq(r.out, "ok\n", "%s", scripts[i]);
        run_free(&r);
    }
    static const char *const solves[] = {"cat '%s' | \"$SYMPLAN\" solve /dev/stdin", "\"$SYMPLAN\" solve <(cat '%s')"};
    for (size_t i = 0; i < sizeof solves / sizeof solves[0]; ++i) {
        run_result r;
        snprintf(script, sizeof script, solves[i], file);
        run_shell(dir, script, &r);
        cr_expect_eq(r.status, 0, "%s: exit %d, %s", solves[i], r.status, r.err);
        cJSON *input = input_of(r.out);
        cr_expect(cJSON_Compare(input, expected, 1), "%s: the input block is not the file's problem", solves[i]);
        cJSON_Delete(input);
        run_free(&r);
    }
    cJSON_Delete(expected);
    remove_dir(dir);
}

typedef struct hostile_file {
    const char *name; /* in tests/fuzz/corpus/ */
    const char *what; /* in the error line */
} hostile_file;

static const hostile_file hostile_files[] = {
    {"hostile-invalid-utf8.json", "line 2, column 21: invalid UTF-8 in a string"},
    {"hostile-nul-in-string.json", "line 3, column 22: NUL byte in a string"},
    {"hostile-nul-after-document.json", "content after the document (a NUL byte)"},
    {"hostile-escaped-nul.json", "\\u0000 in a string"},
    {"hostile-control-char.json", "line 2, column 22: raw control character in a string"},
    {"hostile-lone-surrogate.json", "high surrogate escape without its low half"},
    {"hostile-leading-zero.json", "line 17, column 11: number with a leading zero"},
    {"hostile-long-number.json", "number longer than 63 characters"},
    {"hostile-deep-nesting.json", "nested deeper than 1000"},
};

/* What cJSON would read otherwise than written, or we could not write back, is refused
 * with the line and column and what is wrong; the existing output stays as it was. */
Test(cli, hostile_text_exits_2_naming_where_and_what)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], name[PATH_SIZE];
    scratch_dir(dir, "hostile");
    join(out, dir, "result.json");
    for (size_t i = 0; i < sizeof hostile_files / sizeof hostile_files[0]; ++i) {
        const hostile_file *h = &hostile_files[i];
        snprintf(name, sizeof name, "corpus/%s", h->name);
        join(file, SP_TEST_FUZZ, name);
        run_result r;
        expect_refused_keeping_output(dir, file, out, "", h->name, &r);
        cr_expect(strstr(r.err, h->what) != NULL, "%s: '%s' not in %s", h->name, h->what, r.err);
        run_free(&r);
    }
    remove_dir(dir);
}

/* Escaped control characters are JSON: accepted, and written back escaped. */
Test(cli, escaped_control_characters_are_kept_and_written_escaped)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "escaped");
    run_result r;
    solve_paths(dir, SP_TEST_FUZZ, "corpus/hostile-escaped-control.json", file, "result.json", out, 0, &r);
    run_free(&r);
    char *text = slurp(out);
    cr_expect(strstr(text, "bell \\u0007 and \\u001f escaped") != NULL, "not written back escaped");
    cJSON *doc = cJSON_Parse(text);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "input"), "description")),
                     "bell \a and \x1f escaped");
    cJSON_Delete(doc);
    free(text);
    remove_dir(dir);
}

/* A file whose tree would exceed --max-memory is refused before the tree is built. */
Test(cli, a_file_too_large_for_the_memory_limit_is_refused_at_once)
{
    char dir[PATH_SIZE], file[PATH_SIZE];
    scratch_dir(dir, "memory-limit");
    join(file, dir, "big.json");
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("{\"task\": \"simulate\", \"model\": \"heisenberg\", \"x\": [0", f);
    for (int i = 0; i < 1000000; ++i) fputs(",0", f);
    fputs("]}", f);
    fclose(f);
    run_result r;
    run_expecting(dir, (const char *[]){"check", file, "--max-memory", "16M", NULL}, 2, &r);
    expect_error_line(r.err, file, "", "memory limit");
    cr_expect(strstr(r.err, "more than the memory limit 16 MiB (raise it with --max-memory)") != NULL, "got %s",
              r.err);
    run_free(&r);
    remove_dir(dir);
}

/* A plan through n quaternion keyframes, about 70 bytes of text each. */
static void write_keyframes(const char *file, int n)
{
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"task\":\"plan\",\"model\":\"cubic_spline\",\"group\":\"SO3\",\"space\":\"group\",\"T\":%d,"
               "\"steps\":%d,\"sigma\":0.01,\"xi0\":[0,0,0],\"targets\":[\n",
            n, n);
    for (int i = 0; i < n; ++i)
        fprintf(f, "{\"t\":%d,\"q\":[%.9f,%.9f,%.9f,0]}%s\n", i + 1, cos(1e-3 * i), 0.6 * sin(1e-3 * i),
                0.8 * sin(1e-3 * i), i + 1 < n ? "," : "");
    fputs("]}\n", f);
    fclose(f);
}

/* Running out of memory while building the tree is an internal failure (exit 1) that
 * says so, not a malformed file; so is running out while reading keyframes, in their
 * packed text or in the problem's own arrays. 150 000 keyframes (10 MB of text) are read
 * within 100 MB of address space, the program's own included: they come packed, not as
 * seven cJSON nodes each (which took about 12 times the text). The address space is
 * limited with ulimit -v, which the sanitizers' shadow memory cannot live with. */
Test(cli, out_of_memory_while_reading_exits_1)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("ulimit -v and AddressSanitizer do not mix");
#endif
    char dir[PATH_SIZE], zeros[PATH_SIZE], keyframes[PATH_SIZE], script[2 * PATH_SIZE];
    scratch_dir(dir, "out-of-memory");
    join(zeros, dir, "big.json");
    FILE *f = fopen(zeros, "w");
    cr_assert_not_null(f);
    fputs("{\"task\": \"simulate\", \"model\": \"heisenberg\", \"x\": [0", f);
    for (int i = 0; i < 2000000; ++i) fputs(",0", f); /* about 150 MiB of tree */
    fputs("]}", f);
    fclose(f);
    join(keyframes, dir, "keyframes.json");
    write_keyframes(keyframes, 150000);
    const struct {
        const char *file;
        int kilobytes, status;
    } runs[] = {{zeros, 100000, 1}, {keyframes, 100000, 0}, {keyframes, 50000, 1}, {keyframes, 40000, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        snprintf(script, sizeof script,
                 "ulimit -v %d && exec \"$SYMPLAN\" check --max-targets 1000000 --max-memory 64G '%s'",
                 runs[i].kilobytes, runs[i].file);
        run_result r;
        run_shell(dir, script, &r);
        cr_expect_eq(r.status, runs[i].status, "%s under ulimit -v %d: exit %d: %s", runs[i].file, runs[i].kilobytes,
                     r.status, r.err);
        if (runs[i].status == 0) {
            cr_expect_str_eq(r.out, "ok\n");
        } else {
            expect_error_line(r.err, runs[i].file, "", "out of memory");
            cr_expect(strstr(r.err, "out of memory") != NULL, "got %s", r.err);
        }
        run_free(&r);
    }
    remove_dir(dir);
}

/* An output that is the input, or empty, is refused before anything runs. */
Test(cli, output_that_is_the_input_or_empty_is_refused_at_once)
{
    char dir[PATH_SIZE], in[PATH_SIZE], link[PATH_SIZE], result[PATH_SIZE];
    scratch_dir(dir, "out-is-in");
    join(in, dir, "problem.json");
    join(link, dir, "link.json");
    join(result, dir, "result.json");
    char *text = slurp(SP_TEST_FUZZ "/corpus/heisenberg-small.json");
    write_text(in, text);
    cr_assert_eq(symlink(in, link), 0);
    const char *const outs[] = {in, link};
    for (size_t i = 0; i < 2; ++i) {
        set_old_mtime(in);
        run_result r;
        run_expecting(dir, (const char *[]){"solve", in, "-o", outs[i], NULL}, 2, &r);
        cr_expect(is_one_line(r.err) && starts_with(r.err, outs[i]), "got %s", r.err);
        cr_expect(strstr(r.err, "is the input file") != NULL, "got %s", r.err);
        run_free(&r);
        char *now = slurp(in);
        cr_expect_str_eq(now, text, "the input changed");
        free(now);
        struct stat st;
        cr_assert_eq(stat(in, &st), 0);
        cr_expect_eq(st.st_mtim.tv_sec, 1000000000, "the input was rewritten");
    }
    run_result r;
    run_expecting(dir, (const char *[]){"solve", in, "-o", "", NULL}, 2, &r);
    cr_expect(is_one_line(r.err) && strstr(r.err, "the output path is empty"), "got %s", r.err);
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0);

    solve_expecting_exit(dir, in, result, 0, &r);
    run_free(&r);
    char *before = slurp(result);
    run_expecting(dir, (const char *[]){"export", result, "--csv", result, NULL}, 2, &r);
    cr_expect(is_one_line(r.err) && strstr(r.err, "is the input file"), "got %s", r.err);
    run_free(&r);
    char *after = slurp(result);
    cr_expect_str_eq(after, before, "export replaced the result");
    free(before), free(after), free(text);
    remove_dir(dir);
}

/* Any name the file system takes works as an output, 255 bytes included: the
 * temporary's name is cut to fit. */
Test(cli, output_names_up_to_the_file_system_limit_work)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE], name[256];
    scratch_dir(dir, "long-name");
    join(in, SP_TEST_FUZZ, "corpus/heisenberg-small.json");
    const size_t lengths[] = {245, 250, 255};
    for (size_t i = 0; i < 3; ++i) {
        memset(name, 'n', lengths[i]);
        memcpy(name + lengths[i] - 5, ".json", 5);
        name[lengths[i]] = '\0';
        join(out, dir, name);
        run_result r;
        solve_expecting_exit(dir, in, out, 0, &r);
        run_free(&r);
        struct stat st;
        cr_expect_eq(stat(out, &st), 0, "no output of %zu bytes", lengths[i]);
    }
    cr_expect_eq(count_temporaries(dir), 0);
    remove_dir(dir);
}

/* The temporary a killed writer left (kill -9 leaves OUT.tmp-PID.XXXXXX) is removed by
 * the next run writing the same output, once that pid is gone; a live writer's and
 * another output's are left alone. */
Test(cli, temporaries_of_killed_writers_are_removed)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE], stale[PATH_SIZE], live[PATH_SIZE], other[PATH_SIZE],
        name[128];
    scratch_dir(dir, "stale");
    join(in, SP_TEST_FUZZ, "corpus/heisenberg-small.json");
    join(out, dir, "result.json");
    pid_t gone = fork();
    cr_assert_geq(gone, 0);
    if (gone == 0) _exit(0);
    cr_assert_eq(waitpid(gone, NULL, 0), gone);
    snprintf(name, sizeof name, "result.json.tmp-%ld.AbCdEf", (long)gone);
    join(stale, dir, name);
    snprintf(name, sizeof name, "result.json.tmp-%ld.AbCdEf", (long)getpid());
    join(live, dir, name);
    snprintf(name, sizeof name, "other.json.tmp-%ld.AbCdEf", (long)gone);
    join(other, dir, name);
    write_text(stale, "");
    write_text(live, "");
    write_text(other, "");
    run_result r;
    solve_expecting_exit(dir, in, out, 0, &r);
    run_free(&r);
    cr_expect_neq(access(stale, F_OK), 0, "the dead writer's temporary is still there");
    cr_expect_eq(access(live, F_OK), 0, "a live writer's temporary was removed");
    cr_expect_eq(access(other, F_OK), 0, "another output's temporary was removed");
    unlink(live), unlink(other);
    remove_dir(dir);
}

/* Keyframe times that decrease are named with both times. */
Test(cli, decreasing_keyframe_times_name_both_times)
{
    char dir[PATH_SIZE], bad[PATH_SIZE];
    scratch_dir(dir, "decreasing");
    join(bad, dir, "bad.json");
    write_text(bad, replaced(&(cli_case){plan_doc, "\"t\": 1,", "\"t\": 0.25,", "targets[1].t"}));
    run_result r;
    run_expecting(dir, (const char *[]){"check", bad, NULL}, 2, &r);
    expect_error_line(r.err, bad, "targets[1].t", "decreasing");
    cr_expect(strstr(r.err, "targets[1].t: must be later than targets[0].t = 0.5: keyframe times must increase (got 0.25)") != NULL, "got %s",
              r.err);
    run_free(&r);
    remove_dir(dir);
}

/* A path too long for the line is cut, with an ellipsis; the reason is printed whole. */
Test(cli, a_long_json_path_keeps_the_reason_whole)
{
    char dir[PATH_SIZE], bad[PATH_SIZE], key[400], doc[1024];
    scratch_dir(dir, "long-path");
    join(bad, dir, "bad.json");
    memset(key, 'k', 300);
    key[300] = '\0';
    snprintf(doc, sizeof doc, "{\"task\": \"simulate\", \"model\": \"parking\", \"params\": {\"%s\": 1}}", key);
    write_text(bad, doc);
    run_result r;
    run_expecting(dir, (const char *[]){"check", bad, NULL}, 2, &r);
    cr_expect(is_one_line(r.err), "got %s", r.err);
    cr_expect(strstr(r.err, "\xe2\x80\xa6: unknown field\n") != NULL, "got %s", r.err);
    run_free(&r);
    snprintf(doc, sizeof doc, "{\"task\": \"simulate\", \"model\": \"%s\"}", key);
    write_text(bad, doc);
    run_expecting(dir, (const char *[]){"check", bad, NULL}, 2, &r);
    cr_expect(strstr(r.err, "custom)\n") != NULL, "the list of models was cut: %s", r.err);
    run_free(&r);
    remove_dir(dir);
}
