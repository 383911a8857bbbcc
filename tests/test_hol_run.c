/* Simulations of the holonomic models (planner/holonomic/sp_hol_run.h, problems/holonomic/sp_hol_models.h):
 * the diagnostics of every result against known values (the spherical-pendulum set-up of
 * Chang, Perlmutter & Vankerschaver (2022); the heavy top and S³), the scheme dispatch
 * against the integrators called directly, the symplecticity defect of every scheme through the
 * library's one implementation, the initial-state projection, recording and failures. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/holonomic/sp_hol_run.h"
#include "planner/sp_solve.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"

#define PENDULUM                                                                                                       \
    "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1],"                \
    " \"h\": 0.1, \"steps\": 10"
#define TOP                                                                                                            \
    "{\"task\": \"simulate\", \"model\": \"heavy_top\","                                                               \
    " \"R0\": [[0.867579908675799, -0.4840182648401826, -0.11415525114155253],"                                        \
    "          [0.4292237442922375, 0.8447488584474886, -0.319634703196347],"                                          \
    "          [0.25114155251141557, 0.22831050228310504, 0.9406392694063928]],"                                       \
    " \"omega0\": [0.4, -0.7, 1.1], \"h\": 0.1, \"steps\": 10"
#define S3 "{\"task\": \"simulate\", \"model\": \"s3_contact\", \"q0\": [1, 0, 0, 0], \"p0\": [0, 0.3, 0.8, 0], \"h\": 0.2, \"steps\": 10"

static void parse(const char *text, sp_problem *pb)
{
    sp_input_error err;
    sp_status st = sp_problem_parse(text, strlen(text), pb, &err);
    cr_assert_eq(st, SP_OK, "%s: %s\n%s", err.path, err.message, text);
    cr_assert_eq(pb->kind, SP_KIND_HOLONOMIC);
}

static void read_data(const char *name, sp_problem *pb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, name);
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(path, pb, &err), SP_OK, "%s: %s: %s", name, err.path, err.message);
}

/* Integrates a problem without recording; the system is heap-allocated (it points into itself). */
static sp_hol_run run_problem(const sp_problem *pb)
{
    sp_hol_system *sys = malloc(sizeof *sys);
    cr_assert_not_null(sys);
    cr_assert_eq(sp_hol_system_init(sys, pb), SP_OK);
    sp_hol_run run;
    cr_expect_eq(sp_hol_integrate(sys, 0, &run), SP_OK);
    sp_hol_run_release(&run);
    sp_hol_system_release(sys);
    free(sys);
    return run;
}

/* The feedback paper's set-up with RATTLE (data/spherical_pendulum.json, 10⁵ steps): the
 * constraint and the hidden constraint at every step to 1e-14, |ΔH| ≤ 1e-6 (an independent
 * Python implementation: 7.0e-7), L₃ to 1e-11 (D5 of test_feedback.c). */
Test(hol_run, rattle_on_the_feedback_paper_set_up_keeps_the_constraints_at_every_step)
{
    sp_problem pb;
    read_data("spherical_pendulum.json", &pb);
    cr_assert_eq(pb.steps, 100000);
    cr_assert_float_eq(pb.T, 100.0, 1e-12);
    sp_hol_run r = run_problem(&pb);
    cr_log_info("rattle: |g| %.2e, |G M^-1 p| %.2e, |dH| %.2e, ||q|^2-1| %.2e, |q.p| %.2e, |dL3| %.2e",
                r.constraint_residual, r.hidden_residual, r.energy_error, r.monitor_drift[0], r.monitor_drift[1],
                r.integral_drift[0]);
    cr_expect_eq(r.steps_done, 100000);
    cr_expect_leq(r.constraint_residual, 1e-14);
    cr_expect_leq(r.hidden_residual, 1e-14);
    cr_expect_leq(r.monitor_drift[0], 1e-14);
    cr_expect_leq(r.monitor_drift[1], 1e-14);
    cr_expect_leq(r.energy_error, 1e-6);
    cr_expect_geq(r.energy_error, 1e-7, "RATTLE is not exact: its energy error is about 7e-7");
    cr_expect_leq(r.integral_drift[0], 1e-11);
    cr_expect_float_eq(r.H0, 1.0, 1e-15);
    cr_expect_float_eq(r.integral0[0], -1.0, 1e-15);
}

/* D4 and D5 of test_feedback.c for the other three methods of the comparison, from their
 * data files. */
Test(hol_run, feedback_and_splitting_on_the_feedback_paper_set_up)
{
    static const struct {
        const char *file;
        double monitor, energy_lo, energy_hi, integral;
    } cases[] = {
        {"spherical_pendulum_feedback_euler.json", 1e-4, 1e-5, 1e-4, 1e-4},
        {"spherical_pendulum_lie_trotter.json", 1e-12, 5e-4, 2e-3, 1e-11},
        {"spherical_pendulum_strang.json", 1e-12, 1e-7, 1e-6, 1e-11},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sp_problem pb;
        read_data(cases[c].file, &pb);
        sp_hol_run r = run_problem(&pb);
        cr_log_info("%s: ||q|^2-1| %.2e, |q.p| %.2e, |dH| %.2e, |dL3| %.2e, work %ld", cases[c].file,
                    r.monitor_drift[0], r.monitor_drift[1], r.energy_error, r.integral_drift[0], r.work);
        cr_expect_leq(r.monitor_drift[0], cases[c].monitor, "%s", cases[c].file);
        cr_expect_leq(r.monitor_drift[1], cases[c].monitor, "%s", cases[c].file);
        cr_expect(r.energy_error >= cases[c].energy_lo && r.energy_error <= cases[c].energy_hi, "%s: |dH| %.3e",
                  cases[c].file, r.energy_error);
        cr_expect_leq(r.integral_drift[0], cases[c].integral, "%s", cases[c].file);
    }
}

/* The negative control of D4 (test_feedback.c): the Dirac field without feedback (gains {}) drifts. */
Test(hol_run, euler_without_feedback_drifts)
{
    sp_problem pb;
    parse("{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1],"
          " \"scheme\": \"feedback_euler\", \"gains\": {}, \"h\": 1e-3, \"steps\": 100000}",
          &pb);
    sp_hol_run r = run_problem(&pb);
    cr_log_info("euler without feedback: |dH| %.2e (independent value 0.40)", r.energy_error);
    cr_expect_gt(r.energy_error, 0.1);
}

/* Where feedback hurts: RK4 at h = 0.01 on the planar pendulum keeps the
 * energy to ~4e-10 without feedback and only to ~4.5e-5 with gains 50. */
Test(hol_run, feedback_hurts_rk4_on_the_planar_pendulum)
{
    sp_problem with, without;
    read_data("planar_pendulum_feedback_rk4.json", &with);
    read_data("planar_pendulum_feedback_rk4.json", &without);
    without.hol.gains = (sp_feedback_gains){0};
    sp_hol_run a = run_problem(&with), b = run_problem(&without);
    cr_log_info("planar RK4 h=0.01: |dH| %.2e with feedback, %.2e without", a.energy_error, b.energy_error);
    cr_expect(a.energy_error > 1e-5 && a.energy_error < 1e-4, "with feedback %.3e (independent value 4.5e-5)",
              a.energy_error);
    cr_expect_lt(b.energy_error, 1e-9, "without feedback %.3e (independent value 4.1e-10)", b.energy_error);
}

/* The dispatch: one step of each scheme through the run equals the integrator itself. */
Test(hol_run, one_step_of_each_scheme_is_the_integrators_step)
{
    static const double golden_rattle[6] = {0.1, 0.9904418206033103, 0.095, 0.9909168206033104, -0.18554540135213432,
                                            0.8913709795731448}; /* golden, B1 of test_holonomic.c */
    for (size_t i = 0; sp_hol_scheme_at(i); ++i) {
        const sp_hol_scheme *sc = sp_hol_scheme_at(i);
        if (!sp_hol_model_accepts(&sp_hol_spherical_pendulum, sc)) continue;
        char text[512];
        snprintf(text, sizeof text, PENDULUM ", \"scheme\": \"%s\"%s}", sc->name,
                 sc->family == SP_HOL_FAMILY_FEEDBACK ? ", \"gains\": {\"k1\": 5, \"k2\": 5, \"k3\": 5, \"k4\": 5}"
                                                      : "");
        sp_problem pb;
        parse(text, &pb);
        sp_hol_system *sys = malloc(sizeof *sys);
        cr_assert_eq(sp_hol_system_init(sys, &pb), SP_OK, "%s", sc->name);
        double z[6] = {0, 1, 0, 1, 0, 1}, ref[6] = {0, 1, 0, 1, 0, 1};
        cr_assert_eq(sp_hol_step_qp(sys, 0.1, z), SP_OK, "%s", sc->name);
        /* the same step by the integrator's own interface */
        if (sc->family == SP_HOL_FAMILY_CONSTRAINED) {
            sp_holonomic *s = sp_holonomic_alloc(&sys->bound.holonomic, sp_holonomic_method_by_name(sc->method));
            cr_assert_eq(sp_holonomic_step(s, 0.1, ref, ref + 3), SP_OK);
            sp_holonomic_free(s);
        } else if (sc->family == SP_HOL_FAMILY_SPLITTING) {
            sp_spherical_pendulum P = {1, 1, 1};
            sp_split_system split = sp_spherical_pendulum_split(&P);
            cr_assert_eq(sp_splitting_step(sp_splitting_method_by_name(sc->method), &split, 0.1, ref), SP_OK);
        } else {
            sp_holonomic_model md = sys->bound.holonomic;
            sp_first_integral L3 = sys->bound.integral;
            sp_feedback *fb = sp_feedback_alloc(&md, &(sp_feedback_gains){5, 5, 5, 5, 2, 1}, &L3);
            cr_assert_eq(sp_feedback_set_reference(fb, ref), SP_OK);
            sp_ode_system ode = sp_feedback_system(fb, 1);
            sp_erk *e = sp_erk_alloc(sc->method, &ode);
            cr_assert_eq(sp_erk_step(e, 0.1, ref), SP_OK);
            sp_erk_free(e);
            sp_feedback_free(fb);
        }
        for (int k = 0; k < 6; ++k) cr_expect_eq(z[k], ref[k], "%s: component %d", sc->name, k);
        if (strcmp(sc->name, "rattle") == 0)
            for (int k = 0; k < 6; ++k) cr_expect_float_eq(z[k], golden_rattle[k], 1e-13, "golden B1, %d", k);
        sp_hol_system_release(sys);
        free(sys);
        sp_problem_free(&pb);
    }
}

/* The symplecticity defect on T*Q for every one-step scheme of every model, through
 * sp_hol_symplecticity_defect (the library's one implementation): the symplectic maps
 * ≤ 1e-8, the feedback integrators (not symplectic) ≥ 1e-4. */
Test(hol_run, symplecticity_defect_of_every_scheme)
{
    const char *bases[] = {PENDULUM, "{\"task\": \"simulate\", \"model\": \"planar_pendulum\","
                                     " \"q0\": [0.8414709848078965, -0.5403023058681398], \"p0\": [0.3, 0.46726],"
                                     " \"project\": true, \"h\": 0.1, \"steps\": 10",
                           TOP, S3};
    const sp_hol_model_type *types[] = {&sp_hol_spherical_pendulum, &sp_hol_planar_pendulum, &sp_hol_heavy_top,
                                        &sp_hol_s3_contact};
    int measured = 0;
    for (int m = 0; m < 4; ++m)
        for (size_t i = 0; sp_hol_scheme_at(i); ++i) {
            const sp_hol_scheme *sc = sp_hol_scheme_at(i);
            if (!sp_hol_model_accepts(types[m], sc) || !sc->one_step) continue;
            char text[1024];
            snprintf(text, sizeof text, "%s, \"scheme\": \"%s\"%s}", bases[m], sc->name,
                     sc->family == SP_HOL_FAMILY_FEEDBACK ? ", \"gains\": {\"k1\": 5, \"k2\": 5, \"k3\": 5}" : "");
            sp_problem pb;
            parse(text, &pb);
            sp_hol_system *sys = malloc(sizeof *sys);
            cr_assert_eq(sp_hol_system_init(sys, &pb), SP_OK);
            double d;
            cr_assert_eq(sp_hol_symplecticity_defect(sys, pb.T / pb.steps, &d), SP_OK, "%s %s", types[m]->name,
                         sc->name);
            cr_log_info("%-18s %-16s defect %.2e", types[m]->name, sc->name, d);
            if (sc->family == SP_HOL_FAMILY_FEEDBACK)
                cr_expect_geq(d, 1e-4, "%s %s: defect %.2e", types[m]->name, sc->name, d);
            else
                cr_expect_leq(d, 1e-8, "%s %s: defect %.2e", types[m]->name, sc->name, d);
            ++measured;
            sp_hol_system_release(sys);
            free(sys);
        }
    cr_expect_eq(measured, 17 + 15 + 15 + 1, "every scheme of every model (got %d)", measured);
}

/* The heavy top: both forms start from the same state and keep their invariants (B6,
 * B7 of test_lie_rattle.c over a short run); the Lie form records R, μ and its embedding. */
Test(hol_run, heavy_top_in_both_forms)
{
    sp_problem a, b;
    read_data("heavy_top.json", &a);
    read_data("heavy_top_lie.json", &b);
    cr_assert_eq(b.hol.scheme->family, SP_HOL_FAMILY_LIE);
    cr_assert_eq(b.hol.retraction, sp_retraction_cayley);
    a.steps = b.steps = 400; /* T = 20 */
    a.T = b.T = 20;
    sp_hol_run ra = run_problem(&a), rb = run_problem(&b);
    cr_expect_float_eq(ra.H0, rb.H0, 1e-14, "the same initial energy in both forms");
    cr_expect_float_eq(ra.integral0[0], rb.integral0[0], 1e-14, "the same vertical momentum");
    cr_expect_leq(ra.constraint_residual, 1e-14);
    cr_expect_leq(ra.hidden_residual, 1e-14);
    cr_expect_leq(rb.constraint_residual, 1e-13, "R^T R - I of the Lie form");
    cr_expect_leq(ra.integral_drift[0], 1e-12);
    cr_expect_leq(rb.integral_drift[0], 1e-12);
    cr_expect_leq(ra.energy_error, 2.5e-3);
    cr_expect_leq(rb.energy_error, 2.5e-3);
    /* the free body keeps the whole spatial momentum */
    sp_problem f;
    read_data("free_rigid_body.json", &f);
    f.steps = 400;
    f.T = 20;
    sp_hol_run rf = run_problem(&f);
    cr_assert_eq(rf.n_integrals, 3);
    for (int i = 0; i < 3; ++i) cr_expect_leq(rf.integral_drift[i], 1e-12, "spatial momentum %d", i);
    /* the Lie-form result holds R, mu and the embedded (q, p) */
    b.steps = 20;
    b.T = 1;
    cJSON *res = sp_solve_json(&b, NULL);
    cr_assert_not_null(res);
    const cJSON *tr = cJSON_GetObjectItem(res, "trajectory");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "R")), 3);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "mu")), 3);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(tr, "q"), 0)), 9);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "settings"), "retraction")),
                     "cayley");
    cJSON_Delete(res);
}

/* A9 of test_lie_rattle.c over the data file's run (T = 500, h = 0.1) and λ for the Hopf-invariant potential. */
Test(hol_run, s3_contact_keeps_the_sphere_and_lambda)
{
    sp_problem pb, hopf;
    read_data("s3_contact.json", &pb);
    read_data("s3_contact_hopf.json", &hopf);
    sp_hol_run r = run_problem(&pb), rh = run_problem(&hopf);
    cr_log_info("s3: |h| %.2e, |q.p| %.2e, |dH| %.2e; hopf: |dlambda| %.2e", r.constraint_residual, r.hidden_residual,
                r.energy_error, rh.integral_drift[0]);
    cr_expect_leq(r.constraint_residual, 1e-14);
    cr_expect_leq(r.hidden_residual, 1e-14);
    cr_expect_leq(r.energy_error, 1.5e-3);
    cr_expect_eq(r.n_integrals, 0, "the tilted potential has no lambda integral");
    cr_assert_eq(rh.n_integrals, 1);
    cr_expect_leq(rh.integral_drift[0], 1e-13);
}

/* An initial state off T*Q is projected when the file asks for it, and the result says by how much. */
Test(hol_run, project_moves_the_state_onto_the_manifold_with_a_note)
{
    sp_problem pb;
    parse("{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 2, 0], \"p0\": [1, 0.5, 1],"
          " \"project\": true, \"h\": 0.01, \"steps\": 5}",
          &pb);
    cr_expect_float_eq(pb.hol.q0[1], 1.0, 1e-15);
    cr_expect_float_eq(pb.hol.p0[1], 0.0, 1e-15);
    cr_expect_float_eq(pb.hol.projection_q, 1.0, 1e-15);
    cr_expect_float_eq(pb.hol.projection_p, 0.5, 1e-15);
    cJSON *res = sp_solve_json(&pb, NULL);
    const cJSON *proj = cJSON_GetObjectItem(res, "initial_projection");
    cr_assert_not_null(proj);
    cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(proj, "q0_change")), 1.0, 1e-15);
    cr_expect_not_null(cJSON_GetStringValue(cJSON_GetObjectItem(proj, "note")));
    cJSON_Delete(res);
    /* a state on T*Q up to round-off needs no flag and gets no note */
    parse("{\"task\": \"simulate\", \"model\": \"planar_pendulum\", \"q0\": [0.8414709848078965, -0.5403023058681398],"
          " \"p0\": [0, 0], \"h\": 0.01, \"steps\": 5}",
          &pb);
    res = sp_solve_json(&pb, NULL);
    cr_expect_null(cJSON_GetObjectItem(res, "initial_projection"));
    cr_expect_leq(fabs(sp_vec_dot(2, pb.hol.q0, pb.hol.q0) - 1.0), 2.3e-16);
    cJSON_Delete(res);
}

/* record_every thins the trajectory (the last step always recorded); the maxima still
 * cover every step; the adaptive scheme lands on the grid and counts its work. */
Test(hol_run, recording_and_adaptive_grid)
{
    sp_problem pb;
    parse(PENDULUM ", \"scheme\": \"rattle\", \"record_every\": 3}", &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_assert_eq(cJSON_GetArraySize(t), 5, "rows at steps 0, 3, 6, 9, 10");
    cr_expect_float_eq(cJSON_GetArrayItem(t, 3)->valuedouble, 0.9, 1e-15);
    cr_expect_eq(cJSON_GetArrayItem(t, 4)->valuedouble, 1.0);
    cr_expect_gt(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "work"), "newton_iterations")), 0);
    cJSON_Delete(res);

    parse(PENDULUM ", \"scheme\": \"feedback_dop853\", \"gains\": {\"k1\": 1}, \"rtol\": 1e-10, \"atol\": 1e-12}", &pb);
    res = sp_solve_json(&pb, NULL);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "ok");
    t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_assert_eq(cJSON_GetArraySize(t), 11);
    for (int k = 0; k <= 10; ++k) cr_expect_float_eq(cJSON_GetArrayItem(t, k)->valuedouble, 0.1 * k, 1e-15);
    const cJSON *work = cJSON_GetObjectItem(res, "work");
    cr_expect_geq(cJSON_GetNumberValue(cJSON_GetObjectItem(work, "rhs_evaluations")), 120, "at least one step per interval");
    cr_expect_leq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "diagnostics"), "energy_error")),
                  1e-9);
    cJSON_Delete(res);
}

/* The step budget (the resource limit --max-steps) bounds every run, an adaptive one's
 * attempts, rejected steps included, too: a tolerance that needs more steps than the
 * budget allows stops with "too_many_steps" after exactly that many attempts, with the
 * trajectory up to the last interval reached; the same problem with room finishes. */
Test(hol_run, the_step_budget_bounds_adaptive_runs)
{
    const char *text = "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0],"
                       " \"p0\": [1, 0, 1], \"h\": 2, \"steps\": 10, \"scheme\": \"feedback_dop853\","
                       " \"gains\": {\"k1\": 1}, \"rtol\": 1e-12, \"atol\": 1e-14}";
    sp_limits limits = sp_limits_default();
    limits.steps = 40;
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse_limited(text, strlen(text), &limits, &pb, &err), SP_OK, "%s: %s", err.path,
                 err.message);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "too_many_steps");
    const cJSON *work = cJSON_GetObjectItem(res, "work");
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(work, "attempted_steps")), 40);
    const double done = cJSON_GetNumberValue(cJSON_GetObjectItem(res, "steps"));
    cr_expect_lt(done, 10);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_expect_eq(cJSON_GetArraySize(t), (int)done + 1, "rows up to the last interval reached");
    cJSON_Delete(res);

    limits.steps = 100000;
    cr_assert_eq(sp_problem_parse_limited(text, strlen(text), &limits, &pb, &err), SP_OK);
    res = sp_solve_json(&pb, NULL);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "ok");
    const double used = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "work"), "attempted_steps"));
    cr_expect_gt(used, 40, "the tolerance needs more than the small budget (%g attempts)", used);
    cJSON_Delete(res);
}

/* A run that blows up ends with its status and the step it failed at. */
Test(hol_run, a_failed_run_says_where)
{
    sp_problem pb;
    parse("{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1],"
          " \"scheme\": \"feedback_euler\", \"gains\": {\"k1\": 1e6}, \"h\": 0.01, \"steps\": 1000}",
          &pb);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(res, "status"));
    cr_expect_str_neq(status, "ok");
    double at = cJSON_GetNumberValue(cJSON_GetObjectItem(res, "failed_at_step"));
    cr_expect(at >= 0 && at < 1000, "failed_at_step %g", at);
    cr_expect_eq(sp_json_count_nonfinite(res), 0, "nothing non-finite reaches the result");
    cJSON_Delete(res);
}

/* Small steps: the multiplier solves of RATTLE and of the Prop. 7 step are posed in
 * unknowns that the constraint fixes to round-off whatever h (x = hΛ; w = hν0), so steps
 * far below the ones the examples use still converge (they failed from h ≈ 1e-4 on when
 * Newton solved for Λ itself). */
Test(hol_run, small_steps_converge)
{
    static const char *const docs[] = {
        PENDULUM ", \"scheme\": \"rattle\"}",        PENDULUM ", \"scheme\": \"rattle_tj6\"}",
        PENDULUM ", \"scheme\": \"se_a\"}",          PENDULUM ", \"scheme\": \"shake\"}",
        TOP ", \"scheme\": \"rattle\"}",             TOP ", \"scheme\": \"lie_rattle\"}",
        S3 ", \"scheme\": \"prop7\"}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; ++i)
        for (double h = 1e-4; h >= 1e-7; h /= 10) {
            sp_problem pb;
            parse(docs[i], &pb);
            pb.steps = 200;
            pb.T = 200 * h;
            sp_hol_run r = run_problem(&pb);
            cr_expect_eq(r.status, SP_OK, "%s at h = %g: %s after %d steps", pb.hol.scheme->name, h,
                         sp_status_name(r.status), r.steps_done);
            /* RᵀR − I of the Lie form gathers round-off from the products R τ(hξ) (B7 of
             * test_lie_rattle.c: 1e-13) */
            const double bound = pb.hol.scheme->family == SP_HOL_FAMILY_LIE ? 1e-13 : 1e-14;
            cr_expect_leq(r.constraint_residual, bound, "%s at h = %g: %.2e", pb.hol.scheme->name, h,
                          r.constraint_residual);
        }
}

/* RATTLE on SO(3) composed (Suzuki's order 4, Kahan & Li's order 8) on the heavy top:
 * the orders measured against the order-8 composition at four times the finest step. */
Test(hol_run, lie_rattle_compositions_reach_their_orders, .timeout = 60)
{
    static const struct {
        const char *scheme;
        int N;
        double order;
    } cases[] = {{"lie_rattle", 160, 2}, {"lie_rattle_suzuki5", 40, 4}, {"lie_rattle_kl8", 10, 8}};
    sp_problem pb;
    parse(TOP ", \"scheme\": \"lie_rattle_kl8\"}", &pb);
    pb.T = 2.0;
    pb.steps = 320;
    sp_hol_run ref = run_problem(&pb);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        pb.hol.scheme = sp_hol_scheme_by_name(cases[c].scheme);
        double err[2];
        for (int k = 0; k < 2; ++k) {
            pb.steps = cases[c].N << k;
            sp_hol_run r = run_problem(&pb);
            err[k] = 0.0;
            for (int i = 0; i < 9; ++i)
                err[k] = fmax(err[k], fmax(fabs(r.q_end[i] - ref.q_end[i]), fabs(r.p_end[i] - ref.p_end[i])));
        }
        const double order = log2(err[0] / err[1]);
        cr_log_info("%s: errors %.3e (N = %d), %.3e, order %.2f\n", cases[c].scheme, err[0], cases[c].N, err[1], order);
        cr_expect(fabs(order - cases[c].order) <= 0.4, "%s: order %.2f, expected %.0f", cases[c].scheme, order,
                  cases[c].order);
    }
    sp_problem_free(&pb);
}
