/* Nonholonomic expression models ("model": "custom", "kind": "nonholonomic";
 * problems/custom/, read by nh_read_problem):
 *
 *   - the knife edge, the rolling disk and the Chaplygin sleigh written as expressions
 *     (data/custom/) run as their built-in models do: the same trajectory and the same
 *     diagnostics to 1e-12;
 *   - a particle in cylindrical coordinates (r, θ, z) with M(q) = diag(m, m r², m) and
 *     the nonholonomic constraint ż = r θ̇ converges at the method's order 2s − 2 against
 *     DOP853 with a tiny step on the index-reduced ODE, keeps the constraint at round-off
 *     and its energy error bounded;
 *   - what an expression model gives at a point does not depend on the points it was asked
 *     about before (it keeps its values at the last few points);
 *   - bad files name the place: a row of the wrong length, an unknown symbol, a singular
 *     mass matrix; the command exits with status 2 and one line.
 * Every check prints what it measured. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_nonholonomic.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "planner/sp_solve.h"
#include "problems/sp_problem.h"
#include "tests/support.h"

static void read_data(const char *name, sp_problem *pb)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, name);
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(path, pb, &err), SP_OK, "%s: %s: %s", name, err.path, err.message);
}

static void parse(const char *text, sp_problem *pb)
{
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), pb, &err), SP_OK, "%s: %s\n%s", err.path, err.message, text);
}

/* Runs a problem through the library; the result must be ok. */
static cJSON *solve(const sp_problem *pb)
{
    cJSON *res = sp_solve_json(pb, NULL);
    cr_assert_not_null(res);
    cr_assert_str_eq(cJSON_GetStringValue(result_member(res, "status")), "ok");
    return res;
}

/* max |a − b| over two JSON arrays of numbers or of rows of numbers, which must have
 * the same shape; infinity when they do not. */
static double max_json_diff(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return fabs(a->valuedouble - b->valuedouble);
    if (!cJSON_IsArray(a) || !cJSON_IsArray(b) || cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return INFINITY;
    double d = 0.0;
    for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next) d = fmax(d, max_json_diff(x, y));
    return isnan(d) ? INFINITY : d;
}

/* The last row of trajectory field `key` into out (n values). */
static void last_row(const cJSON *res, const char *key, int n, double *out)
{
    const cJSON *rows = result_member(result_member(res, "trajectory"), key);
    const cJSON *row = cJSON_GetArrayItem(rows, cJSON_GetArraySize(rows) - 1);
    cr_assert_eq(cJSON_GetArraySize(row), n);
    for (int i = 0; i < n; ++i) out[i] = cJSON_GetArrayItem(row, i)->valuedouble;
}

/* ------------------------------------------------------------ equal to the built-ins -- */

#define EQUAL_TOL 1e-12

/* data/custom/<name>.json and data/<name>.json: the trajectories (q, p, λ) and every
 * diagnostic of the built-in model, the initial energy and the quarters agree. */
static void expect_equal_runs(const char *name)
{
    char custom_file[128], builtin_file[128];
    snprintf(custom_file, sizeof custom_file, "custom/%s.json", name);
    snprintf(builtin_file, sizeof builtin_file, "%s.json", name);
    sp_problem a, b;
    read_data(custom_file, &a);
    read_data(builtin_file, &b);
    cr_assert_eq(a.kind, SP_KIND_NONHOLONOMIC);
    cJSON *ra = solve(&a), *rb = solve(&b);
    const cJSON *ta = result_member(ra, "trajectory"), *tb = result_member(rb, "trajectory");
    static const char *const fields[] = {"t", "q", "p", "lambda"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; ++i) {
        const double d = max_json_diff(result_member(ta, fields[i]), result_member(tb, fields[i]));
        cr_log_info("%s as expressions: max |Δ%s| = %.3g", name, fields[i], d);
        cr_expect_leq(d, EQUAL_TOL, "%s: %s differs by %.3g", name, fields[i], d);
    }
    const cJSON *da = result_member(ra, "diagnostics"), *db = result_member(rb, "diagnostics");
    cr_expect_eq(cJSON_GetArraySize(da), cJSON_GetArraySize(db), "%s: not the same diagnostics", name);
    for (const cJSON *x = db->child; x; x = x->next) {
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(da, x->string);
        cr_expect_not_null(y, "%s: the expression model has no %s", name, x->string);
        if (!y) continue;
        const double d = max_json_diff(y, x);
        cr_log_info("%s: %s %.6e, built-in %.6e (Δ %.3g)", name, x->string, y->valuedouble, x->valuedouble, d);
        cr_expect_leq(d, EQUAL_TOL, "%s: %s differs by %.3g", name, x->string, d);
    }
    static const char *const more[] = {"initial_energy", "energy_error_quarters"};
    for (size_t i = 0; i < sizeof more / sizeof *more; ++i)
        cr_expect_leq(max_json_diff(result_member(ra, more[i]), result_member(rb, more[i])), EQUAL_TOL, "%s: %s", name, more[i]);
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    sp_problem_free(&a);
    sp_problem_free(&b);
}

Test(custom_nh, knife_edge_as_expressions_equals_the_built_in) { expect_equal_runs("knife_edge"); }

Test(custom_nh, rolling_disk_as_expressions_equals_the_built_in) { expect_equal_runs("rolling_disk"); }

/* M(θ) is not diagonal here: the expression model inverts it by LU, the built-in by
 * cofactors, so the runs agree to round-off rather than bit for bit. */
Test(custom_nh, chaplygin_sleigh_as_expressions_equals_the_built_in, .timeout = 60)
{
    expect_equal_runs("chaplygin_sleigh");
}

/* ---------------------------------------------- a configuration-dependent mass matrix -- */

/* A particle in cylindrical coordinates, T = ½(ṙ² + r²θ̇² + ż²) m, in a well about r = 1
 * and z = 0, with the non-integrable constraint ż = r θ̇ (ω ∧ dω ≠ 0 for ω = dz − r dθ);
 * the well keeps r within [0.5, 1.7], away from the singular M at r = 0.
 * q0 = (1, 0, 0), q̇0 = (0.3, 1, 1), so p0 = M(q0) q̇0 = (0.3, 1, 1). */
static void particle(int stages, double h, int steps, sp_problem *pb)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"nonholonomic\","
             " \"coordinates\": [\"r\", \"th\", \"z\"], \"params\": {\"m\": 1.5, \"k\": 4},"
             " \"mass\": [\"m\", \"m*r^2\", \"m\"], \"potential\": \"0.5*k*(r - 1)^2 + 0.5*z^2\","
             " \"constraints\": [[0, \"-r\", 1]], \"integrals\": {\"slip\": \"p_z - p_th/r\"},"
             " \"q0\": [1, 0, 0], \"p0\": [0.45, 1.5, 1.5],"
             " \"stages\": %d, \"h\": %.17g, \"steps\": %d}",
             stages, h, steps);
    parse(text, pb);
}

#define PARTICLE_T 2.0

/* (q, p) at T by DOP853 on the index-reduced ODE with 4000 steps (error ~1e-15). */
static void particle_reference(double *y)
{
    sp_problem pb;
    particle(2, 0.1, 20, &pb);
    sp_nh_model md;
    sp_nh_model_bind(pb.nh.type, &pb.nh.params, &md);
    memcpy(y, pb.nh.q0, 3 * sizeof *y);
    memcpy(y + 3, pb.nh.p0, 3 * sizeof *y);
    sp_erk *rk = sp_erk_alloc("dop853", &(sp_ode_system){sp_nh_reduced_field, 6, &md});
    cr_assert_not_null(rk);
    cr_assert_eq(sp_erk_fixed(rk, 0.0, PARTICLE_T, 4000, y), SP_OK);
    sp_erk_free(rk);
    sp_problem_free(&pb);
}

/* The error at T of the file run with s stages and step h, max over q and p. */
static double particle_error(int stages, double h, const double *ref)
{
    sp_problem pb;
    particle(stages, h, (int)lround(PARTICLE_T / h), &pb);
    cJSON *res = solve(&pb);
    double y[6];
    last_row(res, "q", 3, y);
    last_row(res, "p", 3, y + 3);
    double e = 0.0;
    for (int i = 0; i < 6; ++i) e = fmax(e, fabs(y[i] - ref[i]));
    cJSON_Delete(res);
    sp_problem_free(&pb);
    return e;
}

Test(custom_nh, q_dependent_mass_converges_at_the_method_order, .timeout = 60)
{
    double ref[6];
    particle_reference(ref);
    for (int s = 2; s <= 4; ++s) {
        /* s = 4 from h = 0.2: at h = 0.025 its error (~3e-13) meets the round-off */
        const double h0 = s == 4 ? 0.2 : 0.1, h[3] = {h0, h0 / 2, h0 / 4};
        double e[3];
        for (int i = 0; i < 3; ++i) e[i] = particle_error(s, h[i], ref);
        for (int i = 0; i < 2; ++i) {
            const double order = log2(e[i] / e[i + 1]);
            cr_log_info("particle in cylindrical coordinates, s = %d: error %.3e at h = %g, %.3e at h = %g: order %.3f "
                        "(theory %d)",
                        s, e[i], h[i], e[i + 1], h[i + 1], order, 2 * s - 2);
            cr_expect(fabs(order - (2 * s - 2)) <= 0.3, "s = %d: observed order %.3f, expected %d", s, order,
                      2 * s - 2);
        }
    }
}

/* Over T = 500 with s = 3 and the carried multiplier: the constraint at round-off at
 * every step and stage, the energy error small and flat between the quarters. */
Test(custom_nh, q_dependent_mass_keeps_the_constraint_and_a_bounded_energy_error, .timeout = 60)
{
    sp_problem pb;
    particle(3, 0.05, 10000, &pb);
    cJSON *res = solve(&pb);
    const cJSON *diag = result_member(res, "diagnostics"), *quarters = result_member(res, "energy_error_quarters");
    const double energy = result_member(diag, "energy_error")->valuedouble;
    const double constraint = result_member(diag, "constraint_residual")->valuedouble;
    double q[4];
    for (int i = 0; i < 4; ++i) q[i] = cJSON_GetArrayItem(quarters, i)->valuedouble;
    cr_log_info("particle T = 500, h = 0.05, s = 3: max|ΔH| %.3e, per quarter %.2e %.2e %.2e %.2e; constraint %.2e; "
                "slip drift %.2e",
                energy, q[0], q[1], q[2], q[3], constraint, result_member(diag, "slip_drift")->valuedouble);
    cr_expect_leq(constraint, 1e-13);
    cr_expect_leq(energy, 1e-6);
    cr_expect_leq(q[3], 1.2 * q[0], "the energy error grows: %.3e then %.3e", q[0], q[3]);
    cJSON_Delete(res);
    sp_problem_free(&pb);
}

/* ------------------------------------------------------------------------ bad input -- */

#define BAD_BASE                                                                                                       \
    "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"nonholonomic\","                                      \
    " \"coordinates\": [\"x\", \"y\", \"phi\"], \"params\": {\"m\": 1},"                                               \
    " \"q0\": [0, 0, 0], \"h\": 0.1, \"steps\": 10, "

/* A mass that is positive definite at q0 but not along the run (the knife edge's inertia
 * J (1.5 − φ) vanishes at φ = 1.5, reached at t = 1.5 as it turns at unit rate): the run
 * fails there with the model's status, not `ok` with an energy that is no longer one. */
/* Everything the sleigh of data/custom/ gives at (q, p), with every output asked for. */
typedef struct nh_values {
    double H, Hq[3], Hp[3], Hqq[9], Hqp[9], Hpp[9], mu[3], dmu[9];
} nh_values;

static void nh_values_at(const sp_nh_model *md, const double *q, const double *p, nh_values *v)
{
    memset(v, 0, sizeof *v);
    const sp_nh_hamiltonian_out out = {&v->H, v->Hq, v->Hp, v->Hqq, v->Hqp, v->Hpp};
    cr_assert_eq(md->hamiltonian(q, p, &out, md->params), 0);
    cr_assert_eq(md->constraints(q, v->mu, v->dmu, md->params), 0);
}

/* An expression model keeps its values at the last few points asked about (the stages of
 * a step): at twelve points, asked in three orders, one instance gives to the bit what a
 * fresh instance gives at each point alone, with what the stepper asks for in between
 * (H_p alone, the constraints alone) too. */
Test(custom_nh, values_at_a_point_do_not_depend_on_the_points_before, .timeout = 60)
{
    enum { POINTS = 12 };
    sp_problem pb;
    read_data("custom/chaplygin_sleigh.json", &pb);
    sp_nh_system kept;
    cr_assert_eq(sp_nh_system_init(&kept, &pb), SP_OK);
    double q[POINTS][3], p[POINTS][3];
    nh_values alone[POINTS];
    for (int i = 0; i < POINTS; ++i) {
        q[i][0] = 0.1 * i, q[i][1] = -0.2 * i, q[i][2] = 0.37 * i - 1.0;
        p[i][0] = 1.0, p[i][1] = 0.5 - 0.1 * i, p[i][2] = 0.3 + 0.01 * i;
        sp_nh_system fresh;
        cr_assert_eq(sp_nh_system_init(&fresh, &pb), SP_OK);
        nh_values_at(&fresh.model, q[i], p[i], &alone[i]);
        sp_nh_system_release(&fresh);
    }
    int differ = 0;
    for (int order = 0; order < 3; ++order)
        for (int k = 0; k < POINTS; ++k) {
            const int i = order == 0 ? k : order == 1 ? POINTS - 1 - k : (5 * k) % POINTS;
            double Hp[3], mu[3];
            kept.model.hamiltonian(q[(i + 3) % POINTS], p[i], &(sp_nh_hamiltonian_out){.Hp = Hp}, kept.model.params);
            kept.model.constraints(q[(i + 7) % POINTS], mu, NULL, kept.model.params);
            nh_values v;
            nh_values_at(&kept.model, q[i], p[i], &v);
            if (memcmp(&v, &alone[i], sizeof v) != 0) {
                ++differ;
                cr_log_error("point %d (order %d): H %.17g against %.17g alone", i, order, v.H, alone[i].H);
            }
        }
    cr_expect_eq(differ, 0, "%d of %d evaluations differ from a fresh instance's", differ, 3 * POINTS);
    sp_nh_system_release(&kept);
    sp_problem_free(&pb);
}

Test(custom_nh, a_mass_that_stops_being_positive_definite_fails_the_run)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, "custom/knife_edge.json");
    char *text = slurp(path);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc);
    cJSON_ReplaceItemInObject(doc, "mass", cJSON_Parse("[\"m\", \"m\", \"J*(1.5-phi)\"]"));
    cJSON_ReplaceItemInObject(doc, "steps", cJSON_CreateNumber(60)); /* to t = 3 with h = 0.05 */
    char *changed = cJSON_PrintUnformatted(doc);
    sp_problem pb;
    parse(changed, &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    cr_expect_str_eq(cJSON_GetStringValue(result_member(res, "status")), "model_failed");
    const double at = cJSON_GetNumberValue(result_member(res, "failed_at_step"));
    cr_expect(at >= 25 && at <= 30, "failed at step %g, not where φ reaches 1.5 (step 30)", at);
    cJSON_Delete(res);
    sp_problem_free(&pb);
    free(changed), free(text);
    cJSON_Delete(doc);
}

static const struct bad_file {
    const char *what, *fields, *path, *says;
    const char *p0; /* NULL: (0, 0, 1), on the constraint */
} bad_files[] = {
    {"a constraint row of the wrong length",
     "\"mass\": [\"m\", \"m\", 1], \"constraints\": [[\"sin(phi)\", \"-cos(phi)\"]]}", "constraints[0]",
     "row of 3 entries", NULL},
    {"an unknown symbol", "\"mass\": [\"m\", \"m\", 1], \"constraints\": [[\"sin(phi)\", \"-cos(psi)\", 0]]}",
     "constraints[0][1]", "unknown symbol 'psi' at position 6", NULL},
    {"a mass matrix singular at q0",
     "\"mass\": [\"m\", \"m\", \"x\"], \"constraints\": [[\"sin(phi)\", \"-cos(phi)\", 0]]}", "mass",
     "positive definite", NULL},
    {"an initial momentum off the constraint",
     "\"mass\": [\"m\", \"m\", 1], \"constraints\": [[\"sin(phi)\", \"-cos(phi)\", 0]]}", "p0",
     "violates the constraint", "[0, 1, 1]"},
};

static void bad_text(const struct bad_file *b, char *text, size_t size)
{
    snprintf(text, size, "%s\"p0\": %s, %s", BAD_BASE, b->p0 ? b->p0 : "[0, 0, 1]", b->fields);
}

Test(custom_nh, bad_files_name_the_place)
{
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; ++i) {
        const struct bad_file *b = &bad_files[i];
        char text[1024];
        bad_text(b, text, sizeof text);
        sp_problem pb;
        sp_input_error err;
        sp_status st = sp_problem_parse(text, strlen(text), &pb, &err);
        cr_log_info("%s: %s: %s", b->what, err.path, err.message);
        cr_expect_neq(st, SP_OK, "%s: accepted", b->what);
        cr_expect_str_eq(err.path, b->path, "%s", b->what);
        cr_expect(strstr(err.message, b->says) != NULL, "%s: '%s' does not say '%s'", b->what, err.message, b->says);
        if (st == SP_OK) sp_problem_free(&pb);
    }
}

Test(custom_nh, the_command_refuses_bad_files_with_one_line)
{
    char dir[PATH_SIZE];
    sp_test_scratch_dir(dir, "custom_nh", "command");
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; ++i) {
        const struct bad_file *b = &bad_files[i];
        char text[1024], in[PATH_SIZE], out[PATH_SIZE];
        bad_text(b, text, sizeof text);
        join(in, dir, "bad.json");
        join(out, dir, "result.json");
        write_text(in, text);
        run_result r;
        run(dir, (const char *[]){"solve", in, "-o", out, NULL}, &r);
        cr_expect_eq(r.status, 2, "%s: exit %d; stderr: %s", b->what, r.status, r.err);
        cr_expect(is_one_line(r.err), "%s: not one line:\n%s", b->what, r.err);
        char prefix[PATH_SIZE + 64];
        snprintf(prefix, sizeof prefix, "%s: %s: ", in, b->path);
        cr_expect(starts_with(r.err, prefix), "%s: '%s' does not start with '%s'", b->what, r.err, prefix);
        cr_expect_str_empty(r.out);
        cr_expect_eq(count_named(dir, "result"), 0, "%s: a result was written", b->what);
        run_free(&r);
    }
    remove_tree(dir);
}
