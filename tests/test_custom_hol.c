/* Holonomic expression models ("model": "custom", "kind": "holonomic"): the spherical
 * pendulum written as expressions against the built-in model, the double spherical
 * pendulum and the bead on a torus against an independent reference (DOP853 at tight
 * tolerance on the index-reduced ODE built from the same expressions), their invariants,
 * and the reader's refusals of bad expressions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_linsolve.h"
#include "planner/holonomic/sp_hol_run.h"
#include "problems/custom/sp_custom_model.h"
#include "problems/sp_problem.h"
#include "support.h"

static void read_data(const char *name, sp_problem *pb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, name);
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(path, pb, &err), SP_OK, "%s: %s: %s", name, err.path, err.message);
}

/* A run with every step recorded (or not); the system is on the heap (it points into itself). */
static sp_hol_run run_problem(const sp_problem *pb, int record)
{
    sp_hol_system *sys = malloc(sizeof *sys);
    cr_assert_not_null(sys);
    cr_assert_eq(sp_hol_system_init(sys, pb), SP_OK);
    sp_hol_run run;
    cr_assert_eq(sp_hol_integrate(sys, record, &run), SP_OK);
    sp_hol_system_release(sys);
    free(sys);
    return run;
}

Test(custom_hol, the_spherical_pendulum_as_expressions_equals_the_built_in_model)
{
    sp_problem builtin, custom;
    read_data("spherical_pendulum.json", &builtin);
    read_data("custom/spherical_pendulum.json", &custom);
    builtin.steps = custom.steps;
    builtin.T = custom.T;
    builtin.record_every = custom.record_every = 1;
    cr_assert_eq(custom.hol.scheme, builtin.hol.scheme);
    sp_hol_run a = run_problem(&builtin, 1), b = run_problem(&custom, 1);
    cr_assert_eq(a.rows, b.rows);
    double dq = 0.0, dp = 0.0;
    for (int i = 0; i < 3 * a.rows; ++i) {
        dq = fmax(dq, fabs(a.q[i] - b.q[i]));
        dp = fmax(dp, fabs(a.p[i] - b.p[i]));
    }
    cr_log_info("spherical pendulum, %d steps: max |dq| %.2e, max |dp| %.2e\n", custom.steps, dq, dp);
    cr_expect_leq(dq, 1e-12);
    cr_expect_leq(dp, 1e-12);
    cr_expect_leq(fabs(a.energy_error - b.energy_error), 1e-12);
    cr_expect_leq(fabs(a.constraint_residual - b.constraint_residual), 1e-12);
    cr_assert_eq(b.n_integrals, 1); /* L3, declared in the file */
    cr_expect_leq(fabs(a.integral_drift[0] - b.integral_drift[0]), 1e-12);
    sp_hol_run_release(&a);
    sp_hol_run_release(&b);
    sp_problem_free(&builtin);
    sp_problem_free(&custom);
}

/* A full constant mass matrix: the spherical pendulum in the skew coordinates y = A⁻¹q has
 * M_y = m AᵀA, the constraint ½(|Ay|² − l²) and V = m g (Ay)_3. RATTLE commutes with linear
 * changes of coordinates (q = Ay, p_y = Aᵀp), so A y_k must be the built-in model's q_k. */
Test(custom_hol, a_full_mass_matrix_in_skew_coordinates_gives_the_same_motion)
{
    static const double A[3][3] = {{1, 0.5, 0}, {0, 1, 0.3}, {0.2, 0, 1}};
    /* y0 = A⁻¹q0 for q0 = (0, 1, 0), p_y0 = Aᵀp0 for p0 = (1, 0, 1), solved by hand below */
    double Minv_q[3] = {0, 1, 0}, y0[3], py0[3];
    double L[9] = {1, 0.5, 0, 0, 1, 0.3, 0.2, 0, 1};
    int piv[3];
    memcpy(y0, Minv_q, sizeof y0);
    cr_assert_eq(sp_linsolve(3, L, y0, 1, piv, 0), SP_OK);
    const double p0[3] = {1, 0, 1};
    for (int j = 0; j < 3; ++j) py0[j] = A[0][j] * p0[0] + A[1][j] * p0[1] + A[2][j] * p0[2];
    double M[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[i][j] = A[0][i] * A[0][j] + A[1][i] * A[1][j] + A[2][i] * A[2][j];
    char text[2048];
    snprintf(text, sizeof text,
             "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"holonomic\", \"scheme\": \"rattle\","
             " \"coordinates\": [\"a\", \"b\", \"c\"],"
             " \"mass\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]],"
             " \"potential\": \"0.2*a + c\", \"constraints\": [\"0.5*((a + 0.5*b)^2 + (b + 0.3*c)^2 + (0.2*a + c)^2 - 1)\"],"
             " \"q0\": [%.17g, %.17g, %.17g], \"p0\": [%.17g, %.17g, %.17g], \"h\": 0.001, \"steps\": 5000}",
             M[0][0], M[0][1], M[0][2], M[1][0], M[1][1], M[1][2], M[2][0], M[2][1], M[2][2], y0[0], y0[1], y0[2],
             py0[0], py0[1], py0[2]);
    sp_problem custom, builtin;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &custom, &err), SP_OK, "%s: %s", err.path, err.message);
    cr_assert(custom.custom->mass_full);
    static const char *const pendulum = "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"scheme\": "
                                        "\"rattle\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1], \"h\": 0.001, \"steps\": 5000}";
    cr_assert_eq(sp_problem_parse(pendulum, strlen(pendulum), &builtin, &err), SP_OK, "%s", err.message);
    sp_hol_run a = run_problem(&builtin, 1), b = run_problem(&custom, 1);
    cr_assert_eq(a.rows, b.rows);
    double dq = 0.0;
    for (int r = 0; r < a.rows; ++r)
        for (int i = 0; i < 3; ++i) {
            const double *y = b.q + 3 * r;
            dq = fmax(dq, fabs(a.q[3 * r + i] - (A[i][0] * y[0] + A[i][1] * y[1] + A[i][2] * y[2])));
        }
    cr_log_info("full mass matrix, 5000 RATTLE steps: max |q - A y| %.2e; energy errors %.3e and %.3e\n", dq,
                a.energy_error, b.energy_error);
    cr_expect_leq(dq, 1e-12);
    cr_expect_leq(fabs(a.energy_error - b.energy_error), 1e-12);
    cr_expect_leq(b.constraint_residual, 1e-14);
    cr_expect_leq(b.hidden_residual, 1e-14);
    sp_hol_run_release(&a);
    sp_hol_run_release(&b);
    sp_problem_free(&custom);
    sp_problem_free(&builtin);
}

/* The index-reduced ODE of a holonomic model, y = (q, p): q̇ = M⁻¹p, ṗ = −∇V − Gᵀλ with
 * λ from d/dt (G M⁻¹ p) = 0: (G M⁻¹ Gᵀ) λ = ∂²g(v, v) − G M⁻¹ ∇V, v = M⁻¹p. */
static int reduced_field(const double *y, double *dy, void *params)
{
    const sp_holonomic_model *md = params;
    const int n = md->n, m = md->m;
    const double *q = y, *p = y + n;
    double v[SP_HOL_MAX_N], dV[SP_HOL_MAX_N] = {0}, G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    double d2g[SP_HOL_MAX_M * SP_HOL_MAX_N * SP_HOL_MAX_N], A[SP_HOL_MAX_M * SP_HOL_MAX_M], lam[SP_HOL_MAX_M];
    int piv[SP_HOL_MAX_M];
    for (int i = 0; i < n; ++i) v[i] = p[i] / md->mass[i];
    if (md->potential(q, NULL, dV, NULL, md->params) || md->constraints(q, NULL, G, d2g, md->params)) return -1;
    for (int a = 0; a < m; ++a) {
        double s = 0.0;
        for (int k = 0; k < n; ++k)
            for (int l = 0; l < n; ++l) s += d2g[(a * n + k) * n + l] * v[k] * v[l];
        for (int i = 0; i < n; ++i) s -= G[a * n + i] * dV[i] / md->mass[i];
        lam[a] = s;
        for (int c = 0; c < m; ++c) {
            A[a * m + c] = 0.0;
            for (int i = 0; i < n; ++i) A[a * m + c] += G[a * n + i] * G[c * n + i] / md->mass[i];
        }
    }
    if (sp_linsolve(m, A, lam, 1, piv, 0) != SP_OK) return -1;
    for (int i = 0; i < n; ++i) {
        dy[i] = v[i];
        dy[n + i] = -dV[i];
        for (int a = 0; a < m; ++a) dy[n + i] -= G[a * n + i] * lam[a];
    }
    return 0;
}

/* (q, p) at T by DOP853 at rtol = atol = 1e-14 on the reduced ODE. */
static void reference(sp_problem *pb, double *y)
{
    sp_holonomic_model md;
    sp_custom_holonomic_model(pb->custom, &md);
    const int n = md.n;
    memcpy(y, pb->hol.q0, (size_t)n * sizeof *y);
    memcpy(y + n, pb->hol.p0, (size_t)n * sizeof *y);
    sp_ode_system sys = {reduced_field, 2 * n, &md};
    sp_erk *rk = sp_erk_alloc("dop853", &sys);
    cr_assert_not_null(rk);
    sp_erk_control ctl = sp_erk_control_default();
    ctl.rtol = ctl.atol = 1e-14;
    ctl.max_steps = 10000000;
    double t = 0.0;
    cr_assert_eq(sp_erk_integrate(rk, &ctl, &t, pb->T, y), SP_OK);
    sp_erk_free(rk);
}

/* The observed order of a scheme on a file's model over [0, T]: errors in (q, p) at T for
 * N and 2N steps against the reference. */
static void expect_order(const char *file, const char *scheme, double T, int N, double order)
{
    sp_problem pb;
    read_data(file, &pb);
    pb.hol.scheme = sp_hol_scheme_by_name(scheme);
    pb.T = T;
    const int n = pb.custom->n;
    double y[2 * SP_HOL_MAX_N], err[2];
    reference(&pb, y);
    for (int k = 0; k < 2; ++k) {
        pb.steps = N << k;
        sp_hol_run r = run_problem(&pb, 0);
        err[k] = 0.0;
        for (int i = 0; i < n; ++i) err[k] = fmax(err[k], fmax(fabs(r.q_end[i] - y[i]), fabs(r.p_end[i] - y[n + i])));
        cr_expect_leq(r.constraint_residual, 1e-13, "%s: the constraint is kept to round-off", scheme);
    }
    const double observed = log2(err[0] / err[1]);
    cr_log_info("%s, %s: errors %.3e (N = %d), %.3e (N = %d), order %.2f\n", file, scheme, err[0], N, err[1], 2 * N,
                observed);
    cr_expect(fabs(observed - order) <= 0.3, "%s %s: observed order %.2f, expected %.0f", file, scheme, observed, order);
    sp_problem_free(&pb);
}

Test(custom_hol, the_double_pendulum_converges_at_each_schemes_order, .timeout = 120)
{
    expect_order("custom/double_pendulum.json", "rattle", 1.0, 200, 2.0);
    expect_order("custom/double_pendulum.json", "rattle_tj4", 1.0, 100, 4.0);
    expect_order("custom/double_pendulum.json", "rattle_suzuki5", 1.0, 50, 4.0);
    expect_order("custom/double_pendulum.json", "rattle_tj6", 1.0, 100, 6.0);
}

Test(custom_hol, the_bead_on_a_torus_converges_at_each_schemes_order, .timeout = 120)
{
    expect_order("custom/torus_bead.json", "rattle", 1.0, 200, 2.0);
    expect_order("custom/torus_bead.json", "rattle_suzuki5", 1.0, 50, 4.0);
}

/* Long runs keep the constraint at round-off, the energy error bounded and the declared
 * vertical angular momentum (both models are symmetric about the vertical axis). */
Test(custom_hol, long_runs_keep_the_invariants)
{
    static const char *const files[] = {"custom/double_pendulum.json", "custom/torus_bead.json"};
    for (int f = 0; f < 2; ++f) {
        sp_problem pb;
        read_data(files[f], &pb);
        sp_hol_run r = run_problem(&pb, 0);
        cr_log_info("%s, %d steps: constraint %.1e, hidden %.1e, energy error %.2e, L3 drift %.1e\n", files[f],
                    pb.steps, r.constraint_residual, r.hidden_residual, r.energy_error, r.integral_drift[0]);
        cr_expect_leq(r.constraint_residual, 1e-13);
        cr_expect_leq(r.hidden_residual, 1e-13);
        cr_expect_leq(r.energy_error, 1e-6 * fmax(1.0, fabs(r.H0)));
        cr_expect_leq(r.integral_drift[0], 1e-11);
        sp_problem_free(&pb);
    }
}

/* ---- bad input */

#define HOL_HEAD "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"holonomic\", \"h\": 0.01, \"steps\": 10, "
#define PENDULUM_BODY                                                                                                  \
    "\"coordinates\": [\"x\", \"y\", \"z\"], \"params\": {\"l\": 1}, \"q0\": [0, 1, 0], \"p0\": [1, 0, 1]"

typedef struct refusal {
    const char *name, *text, *path, *message;
} refusal;

static const refusal refusals[] = {
    {"unknown_symbol", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2 + y^2 + zz^2 - l^2\"]}", "constraints[0]",
     "unknown symbol 'zz' at position 13"},
    {"syntax", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2 + (y^2 + z^2 - l^2\"]}", "constraints[0]",
     "unmatched '(' at position 7"},
    {"operator_missing", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2 + y z - l^2\"]}", "constraints[0]",
     "'z' at position 9 right after a value"},
    {"power_as_stars", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x**2 + y^2 + z^2 - l^2\"]}", "constraints[0]",
     "'**' at position 2"},
    {"power_chain", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2^1 + y^2 + z^2 - l^2\"]}", "constraints[0]",
     "second '^' at position 4"},
    {"unary_plus", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"+x^2 + y^2 + z^2 - l^2\"]}", "constraints[0]",
     "'+' at position 1 where a value is expected"},
    {"unknown_function", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"sqr(x) + y^2 + z^2 - l^2\"]}", "constraints[0]",
     "unknown function 'sqr'"},
    {"momentum_in_constraint", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x*p_x + y^2 + z^2 - l^2\"]}",
     "constraints[0]", "reads the momentum 'p_x'"},
    {"mass_reads_q", HOL_HEAD PENDULUM_BODY ", \"mass\": [1, \"1 + x^2\", 1], \"constraints\": [\"x^2+y^2+z^2-l^2\"]}",
     "mass[1]", "must be constant"},
    {"mass_negative", HOL_HEAD PENDULUM_BODY ", \"mass\": [1, \"-l\", 1], \"constraints\": [\"x^2+y^2+z^2-l^2\"]}",
     "mass[1]", "must be positive"},
    {"not_finite_at_q0", HOL_HEAD PENDULUM_BODY ", \"potential\": \"log(z)\", \"constraints\": [\"x^2+y^2+z^2-l^2\"]}",
     "potential", "not finite at the initial state"},
    {"dependent", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2+y^2+z^2-l^2\", \"2*(x^2+y^2+z^2-l^2)\"]}",
     "constraints", "dependent at q0"},
    {"too_many_constraints", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x\", \"y\", \"z\"]}", "constraints",
     "1 to 2 expressions"},
    {"duplicate_name", HOL_HEAD "\"coordinates\": [\"x\", \"y\", \"x\"], \"q0\": [0, 1, 0], \"constraints\": [\"x\"]}",
     "coordinates[2]", "named twice"},
    {"function_as_name", HOL_HEAD "\"coordinates\": [\"x\", \"sin\"], \"q0\": [0, 1], \"constraints\": [\"x\"]}",
     "coordinates[1]", "function or constant"},
    {"q0_length", HOL_HEAD "\"coordinates\": [\"x\", \"y\"], \"q0\": [0, 1, 0], \"constraints\": [\"x\"]}", "q0",
     "2"},
    {"off_the_constraint",
     HOL_HEAD "\"coordinates\": [\"x\", \"y\", \"z\"], \"q0\": [0, 2, 0], \"p0\": [1, 0, 1], "
              "\"constraints\": [\"x^2+y^2+z^2-1\"]}",
     "q0", "off the constraint"},
    {"project", HOL_HEAD "\"coordinates\": [\"x\", \"y\", \"z\"], \"q0\": [0, 2, 0], \"p0\": [1, 1, 1], "
                "\"constraints\": [\"x^2+y^2+z^2-1\"], \"project\": true, \"potential\": \"-1/(x - 3)\"}",
     NULL, NULL},
    {"unknown_kind", "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"rheonomic\"}", "kind",
     "unknown kind 'rheonomic'"},
    {"plan_of_holonomic", "{\"task\": \"plan\", \"model\": \"custom\", \"kind\": \"holonomic\"}", "task",
     "plan tasks are for vakonomic models"},
    {"unknown_field", HOL_HEAD PENDULUM_BODY ", \"constraints\": [\"x^2+y^2+z^2-l^2\"], \"potentail\": \"z\"}",
     "potentail", "unknown field"},
};

/* Expressions past the documented size are refused before the expression library sees
 * them (their second derivatives would grow as the cube of the size); one just inside
 * the bounds is taken. */
Test(custom_hol, expressions_past_their_size_are_refused_by_path)
{
    enum { TEXT = 4096 };
    for (int k = 0; k < 4; ++k) {
        char potential[TEXT] = "", doc[TEXT + 512];
        size_t len = 0;
        if (k < 2) { /* a product of x's: 2·factors − 1 tokens */
            const int factors = k == 0 ? (SP_EXPR_MAX_TOKENS + 1) / 2 : (SP_EXPR_MAX_TOKENS + 2) / 2;
            for (int f = 0; f < factors; ++f) len += (size_t)snprintf(potential + len, TEXT - len, f ? "*x" : "x");
        } else { /* sin(sin(…(x)…)) */
            const int depth = k == 2 ? SP_EXPR_MAX_DEPTH : SP_EXPR_MAX_DEPTH + 1;
            for (int d = 0; d < depth; ++d) len += (size_t)snprintf(potential + len, TEXT - len, "sin(");
            len += (size_t)snprintf(potential + len, TEXT - len, "x");
            for (int d = 0; d < depth; ++d) len += (size_t)snprintf(potential + len, TEXT - len, ")");
        }
        snprintf(doc, sizeof doc, HOL_HEAD PENDULUM_BODY ", \"potential\": \"%s\", \"constraints\": [\"x^2+y^2+z^2-l^2\"]}",
                 potential);
        sp_problem pb;
        sp_input_error err;
        sp_status st = sp_problem_parse(doc, strlen(doc), &pb, &err);
        if (k == 0 || k == 2) {
            cr_expect_eq(st, SP_OK, "case %d: %s: %s", k, err.path, err.message);
            if (st == SP_OK) sp_problem_free(&pb);
            continue;
        }
        cr_expect_eq(st, SP_ERR_INVALID, "case %d accepted", k);
        cr_expect_str_eq(err.path, "potential");
        cr_expect(strstr(err.message, k == 1 ? "is longer than 300 numbers, names and operators"
                                             : "nests parentheses deeper than 40") != NULL,
                  "case %d: %s", k, err.message);
    }
}

Test(custom_hol, bad_expressions_are_refused_with_their_path_and_position)
{
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; ++i) {
        const refusal *r = &refusals[i];
        sp_problem pb;
        sp_input_error err;
        sp_status st = sp_problem_parse(r->text, strlen(r->text), &pb, &err);
        if (!r->path) { /* accepted: "project": true puts the state on T*Q */
            cr_expect_eq(st, SP_OK, "%s: %s: %s", r->name, err.path, err.message);
            if (st == SP_OK) {
                cr_expect_float_eq(pb.hol.q0[1], 1.0, 1e-15);
                cr_expect_float_eq(pb.hol.p0[1], 0.0, 1e-15);
                cr_expect_gt(pb.hol.projection_q, 0.9);
                sp_problem_free(&pb);
            }
            continue;
        }
        cr_expect_eq(st, SP_ERR_INVALID, "%s: accepted", r->name);
        if (st != SP_ERR_INVALID) {
            sp_problem_free(&pb);
            continue;
        }
        cr_expect_str_eq(err.path, r->path, "%s: path %s (%s)", r->name, err.path, err.message);
        cr_expect(strstr(err.message, r->message) != NULL, "%s: message '%s' lacks '%s'", r->name, err.message,
                  r->message);
    }
}

Test(custom_hol, the_command_refuses_a_bad_expression_with_exit_2_and_one_line)
{
    char dir[4096], file[4096], out[4096];
    sp_test_scratch_dir(dir, "custom_hol", "command");
    join(file, dir, "bad.json");
    join(out, dir, "out.json");
    write_text(file, refusals[0].text);
    const char *args[] = {"solve", file, "-o", out, NULL};
    run_result r;
    run(dir, args, &r);
    cr_expect_eq(r.status, 2);
    cr_expect(is_one_line(r.err), "one line: %s", r.err);
    cr_expect(strstr(r.err, "constraints[0]") && strstr(r.err, "'zz'"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
}

/* Pictures rebuild an expression model from the problem its result carries: the drift
 * panel has the declared integral. */
Test(custom_hol, a_picture_of_a_result_draws_the_declared_integral)
{
    char dir[4096], problem[4096], result[4096], svg[4096];
    sp_test_scratch_dir(dir, "custom_hol", "picture");
    snprintf(problem, sizeof problem, "%s/custom/torus_bead.json", SP_TEST_DATA);
    join(result, dir, "result.json");
    join(svg, dir, "picture.svg");
    const char *solve[] = {"solve", problem, "-o", result, NULL}, *plot[] = {"plot", result, "-o", svg, NULL};
    run_result r;
    run(dir, solve, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run(dir, plot, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *text = slurp(svg);
    cr_expect(strstr(text, "L3 drift") != NULL, "the picture draws the declared integral's drift");
    cr_expect(strstr(text, "constraint |g(q)|") != NULL, "and the constraint");
    free(text);
    remove_tree(dir);
}
