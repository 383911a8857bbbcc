/* Planner acceptance tests: the discrete adjoint against
 * central differences and the reference values, the planning optimum of instance A for
 * every scheme and retraction, rotation targets, uneven grids, derivative-free
 * algorithms, the order at which the discrete optimum approaches the continuous one, and
 * the quaternions of a result: their order ("quaternion_order") and their signs along the
 * curve. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/cubic/sp_plan.h"

/* Instance A (data/sphere_interpolation.json) with the targets' times, scheme, retraction, steps and
 * optimizer block as parameters. */
static void instance_a(char *doc, size_t size, const char *scheme, const char *retraction, int steps,
                       const double *times, const char *optimizer)
{
    double y[4][3];
    for (int i = 0; i < 4; ++i) {
        double t = 0.25 * (i + 1), v[3] = {cos(SP_PI * t / 2), sin(SP_PI * t / 2), 0.2 * sin(SP_PI * t)};
        double n = sp_vec_norm(3, v);
        for (int j = 0; j < 3; ++j) y[i][j] = v[j] / n;
    }
    static const double grid_times[4] = {0.25, 0.5, 0.75, 1.0};
    if (!times) times = grid_times;
    snprintf(doc, size,
             "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"y0\": [1, 0, 0],"
             " \"T\": 1, \"steps\": %d, \"scheme\": \"%s\", \"retraction\": \"%s\", \"xi0\": [0, 0, 1],"
             " \"sigma\": 0.1, \"method\": \"single_shooting\", \"targets\": ["
             "{\"t\": %.17g, \"y\": [%.17g, %.17g, %.17g]}, {\"t\": %.17g, \"y\": [%.17g, %.17g, %.17g]},"
             "{\"t\": %.17g, \"y\": [%.17g, %.17g, %.17g]}, {\"t\": %.17g, \"y\": [%.17g, %.17g, %.17g]}],"
             " \"optimizer\": %s}",
             steps, scheme, retraction, times[0], y[0][0], y[0][1], y[0][2], times[1], y[1][0], y[1][1], y[1][2],
             times[2], y[2][0], y[2][1], y[2][2], times[3], y[3][0], y[3][1], y[3][2],
             optimizer ? optimizer : "{\"algorithm\": \"LD_LBFGS\", \"xtol_rel\": 1e-13, \"ftol_rel\": 1e-16}");
}

static void parse(const char *doc, sp_problem *pb)
{
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), pb, &e);
    cr_assert_eq(st, SP_OK, "problem rejected: %s: %s", e.path, e.message);
}

/* Largest relative difference between the adjoint gradient and central differences
 * (ε = 1e-6·max(1, |x_j|)) at x. */
static double gradient_error(sp_shooting *s, const double *x)
{
    int n = sp_shooting_dim(s);
    double J, grad[12], fd[12], xs[12];
    cr_assert_eq(sp_shooting_gradient(s, x, &J, grad), SP_OK);
    sp_vec_copy(n, x, xs);
    for (int j = 0; j < n; ++j) {
        double e = 1e-6 * fmax(1.0, fabs(x[j])), Jp, Jm;
        xs[j] = x[j] + e;
        cr_assert_eq(sp_shooting_cost(s, xs, &Jp), SP_OK);
        xs[j] = x[j] - e;
        cr_assert_eq(sp_shooting_cost(s, xs, &Jm), SP_OK);
        xs[j] = x[j];
        fd[j] = (Jp - Jm) / (2 * e);
    }
    return sp_vec_dist(n, grad, fd) / sp_vec_norm(n, fd);
}

static const double probe_points[3][6] = {
    {0.1, -0.2, 0.3, 0.4, -0.5, 0.6},
    {3.2, -11.4, 9.8, -0.2, -3.2, 3.4},
    {-2.5, 1.7, 4.1, 1.3, 0.8, -1.9},
};

Test(adjoint, matches_central_differences_every_scheme_and_retraction)
{
    for (size_t s = 0; sp_hohp_scheme_at(s); ++s)
        for (size_t r = 0; sp_retraction_at(r); ++r) {
            char doc[4096];
            sp_problem pb;
            instance_a(doc, sizeof doc, sp_hohp_scheme_at(s)->name, sp_retraction_at(r)->name, 100, NULL, NULL);
            parse(doc, &pb);
            sp_shooting *sh = sp_shooting_alloc(&pb);
            for (int p = 0; p < 3; ++p) {
                double err = gradient_error(sh, probe_points[p]);
                cr_expect_leq(err, 1e-7, "%s/%s point %d: |adjoint - FD|/|FD| = %.2e", sp_hohp_scheme_at(s)->name,
                              sp_retraction_at(r)->name, p, err);
            }
            sp_shooting_free(sh);
            sp_problem_free(&pb);
        }
}

/* The adjoint gradient against reference values computed independently (an independent
 * Python implementation). */
Test(adjoint, reproduces_reference_values)
{
    static const struct {
        const char *scheme, *retraction;
        double J, grad[6];
    } ref[] = {
        {"hohp_euler",
         "cayley",
         138.83196256155878,
         {-6.19925731841691, 3.8856646620583084, -3.4817581303490446, 8.9878980818936967, 16.053657123745769,
          -32.169296378575794}},
        {"hohp_sv",
         "cayley",
         136.49600821178853,
         {-6.2433017495876362, 3.9452873416556549, -3.6403698308304748, 9.126740274054864, 16.419014366020548,
          -32.199297234105636}},
        {"hohp_euler",
         "exp",
         138.90873417757106,
         {-6.1998737409963267, 3.8857800227740209, -3.4836200780222186, 8.9828351490135603, 16.076530510375466,
          -32.212379624614421}},
        {"hohp_sv",
         "exp",
         136.57087848231248,
         {-6.2439909124362263, 3.9454866632199592, -3.6424302168237901, 9.1218379529402522, 16.441808034385623,
          -32.242144385212633}},
    };
    for (size_t c = 0; c < sizeof ref / sizeof ref[0]; ++c) {
        char doc[4096];
        sp_problem pb;
        instance_a(doc, sizeof doc, ref[c].scheme, ref[c].retraction, 100, NULL, NULL);
        parse(doc, &pb);
        sp_shooting *sh = sp_shooting_alloc(&pb);
        double J, grad[6];
        cr_assert_eq(sp_shooting_gradient(sh, probe_points[0], &J, grad), SP_OK);
        cr_expect_leq(fabs(J - ref[c].J) / ref[c].J, 1e-12, "%s/%s J_d = %.17g, reference %.17g", ref[c].scheme,
                      ref[c].retraction, J, ref[c].J);
        double err = sp_vec_dist(6, grad, ref[c].grad) / sp_vec_norm(6, ref[c].grad);
        cr_expect_leq(err, 1e-12, "%s/%s gradient off by %.2e relative", ref[c].scheme, ref[c].retraction, err);
        sp_shooting_free(sh);
        sp_problem_free(&pb);
    }
}

/* The optimum of instance A, N = 100, from zero momenta. */
Test(plan, instance_a_optimum_every_scheme_and_retraction)
{
    static const struct {
        const char *scheme, *retraction;
        double J, x[6];
    } ref[] = {
        {"hohp_sv",
         "cayley",
         2.06590801846492,
         {3.2284239098123333, -11.454355893700846, 9.818131732740083, -0.2279304995895447, -3.2284239098123377,
          3.3820862659784732}},
        {"hohp_euler",
         "cayley",
         2.121459343705,
         {3.3225480103443021, -11.72251456955294, 10.127955745531519, -0.21449371193329964, -3.3225480103442999,
          3.4914681295961851}},
        {"hohp_sv",
         "exp",
         2.06579213356296,
         {3.2284019626814757, -11.454067882408948, 9.8174499129496819, -0.22792881693775752, -3.2284019626814748,
          3.3819532944610753}},
        {"hohp_euler",
         "exp",
         2.12134079964326,
         {3.322525621377312, -11.722222868251212, 10.12725819256238, -0.21449211019946138, -3.3225256213773124,
          3.4913318584028974}},
    };
    for (size_t c = 0; c < sizeof ref / sizeof ref[0]; ++c) {
        char doc[4096];
        sp_problem pb;
        instance_a(doc, sizeof doc, ref[c].scheme, ref[c].retraction, 100, NULL, NULL);
        parse(doc, &pb);
        sp_plan *plan = sp_plan_new(&pb);
        sp_plan_result res;
        cr_assert_eq(sp_plan_solve(plan, &res), SP_OK);
        cr_expect_str_eq(res.status, "converged");
        cr_expect_leq(fabs(res.cost - ref[c].J) / ref[c].J, 1e-9, "%s/%s J* = %.15g, reference %.15g", ref[c].scheme,
                      ref[c].retraction, res.cost, ref[c].J);
        double dx = sp_vec_dist(6, res.x, ref[c].x) / sp_vec_norm(6, ref[c].x);
        cr_expect_leq(dx, 1e-6, "%s/%s x* off by %.2e relative", ref[c].scheme, ref[c].retraction, dx);
        cr_expect_leq(res.residual_norm, 1e-6, "terminal residual %.2e", res.residual_norm);
        cr_expect_leq(res.evaluations, 60, "took %d evaluations", res.evaluations);

        /* kick identities: ν0 = σ⁻² Σ y_{k_i} × y_i and (ξ0 × p0 − ν0)·y0 = 0 */
        sp_shooting *sh = sp_plan_shooting(plan);
        const sp_hohp_state *z = sp_shooting_states(sh);
        const int *steps = sp_shooting_target_steps(sh);
        double sum[3] = {0, 0, 0};
        for (size_t i = 0; i < pb.cubic.n_targets; ++i) {
            double y[3], c3[3];
            sp_mat_vec(3, 3, z[steps[i]].g, pb.cubic.y0, y);
            sp_cross(y, pb.cubic.targets[i].y, c3);
            sp_vec_axpy(3, 1.0 / (pb.cubic.sigma * pb.cubic.sigma), c3, sum);
        }
        cr_expect_leq(sp_vec_dist(3, sum, res.x), 1e-6, "kick identity off by %.2e", sp_vec_dist(3, sum, res.x));
        double xp[3];
        sp_cross(pb.xi0, res.x + 3, xp);
        double along = sp_vec_dot(3, xp, pb.cubic.y0) - sp_vec_dot(3, res.x, pb.cubic.y0);
        cr_expect_leq(fabs(along), 1e-6, "(xi0 x p0 - nu0).y0 = %.2e", along);
        sp_plan_free(plan);
        sp_problem_free(&pb);
    }
}

/* Targets off the grid: each segment gets its own even step; the adjoint stays exact
 * and the grid lands on every target time. */
Test(plan, uneven_grid_between_targets)
{
    static const double times[4] = {0.213, 0.45, 0.7771, 0.95};
    char doc[4096];
    sp_problem pb;
    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 100, times, NULL);
    parse(doc, &pb);
    sp_shooting *sh = sp_shooting_alloc(&pb);
    double J;
    cr_assert_eq(sp_shooting_trajectory(sh, probe_points[0], &J), SP_OK);
    const double *t = sp_shooting_times(sh);
    const int *steps = sp_shooting_target_steps(sh);
    for (int i = 0; i < 4; ++i) cr_expect_eq(t[steps[i]], times[i], "target %d at t = %.17g", i, t[steps[i]]);
    cr_expect_eq(t[100], 1.0);
    for (int k = 0; k < 100; ++k) cr_expect_gt(t[k + 1], t[k]);
    for (int p = 0; p < 3; ++p) {
        double err = gradient_error(sh, probe_points[p]);
        cr_expect_leq(err, 1e-7, "uneven grid, point %d: gradient error %.2e", p, err);
    }
    sp_shooting_free(sh);
    sp_problem_free(&pb);
}

/* An orientation slew through three rotations R_i = exp(a_i), written out in full. */
static void rotation_problem(char *doc, size_t size, const char *scheme, const char *retraction)
{
    static const double a[3][3] = {{0.2, 0.1, 0.3}, {0.5, 0.1, 0.6}, {0.6, 0.4, 0.8}};
    double R[3][9];
    for (int i = 0; i < 3; ++i) sp_group_so3->exp(sp_group_so3, a[i], R[i]);
    int len = snprintf(doc, size,
                       "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 1.5,"
                       " \"steps\": 60, \"scheme\": \"%s\", \"retraction\": \"%s\", \"xi0\": [0.3, 0, 0.5],"
                       " \"sigma\": 0.2, \"method\": \"single_shooting\", \"targets\": [",
                       scheme, retraction);
    for (int i = 0; i < 3; ++i) {
        const double *r = R[i];
        len += snprintf(doc + len, size - (size_t)len,
                        "%s{\"t\": %g, \"R\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]}",
                        i ? ", " : "", 0.5 * (i + 1), r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
    }
    snprintf(doc + len, size - (size_t)len, "]}");
}

/* Rotation targets, their gradient and kick Jacobian, then the
 * adjoint through them. */
Test(plan, rotation_targets_gradient_and_optimum)
{
    char doc[2048];
    sp_problem pb;
    rotation_problem(doc, sizeof doc, "hohp_sv", "cayley");
    parse(doc, &pb);

    /* ∇E_i and K_iᵀ against central differences along g exp(εe_j) */
    double g[9], x0[3] = {0.4, -1.1, 0.7}, v[3] = {0.3, -0.2, 0.9};
    sp_group_so3->exp(sp_group_so3, x0, g);
    double grad[3], kt[3], fd_grad[3], fd_kt[3] = {0, 0, 0};
    sp_cubic_target_gradient(&pb.cubic, 0, g, grad);
    sp_cubic_target_jacobian_T(&pb.cubic, 0, g, v, kt);
    for (int j = 0; j < 3; ++j) {
        double e = 1e-6, dp[3] = {0, 0, 0}, dm[3] = {0, 0, 0}, Ep[9], Em[9], gp[3], gm[3];
        dp[j] = e, dm[j] = -e;
        sp_group_so3->exp(sp_group_so3, dp, Ep);
        sp_group_so3->exp(sp_group_so3, dm, Em);
        sp_group_so3->compose(sp_group_so3, g, Ep, Ep);
        sp_group_so3->compose(sp_group_so3, g, Em, Em);
        fd_grad[j] = (sp_cubic_target_cost(&pb.cubic, 0, Ep) - sp_cubic_target_cost(&pb.cubic, 0, Em)) / (2 * e);
        sp_cubic_target_gradient(&pb.cubic, 0, Ep, gp);
        sp_cubic_target_gradient(&pb.cubic, 0, Em, gm);
        for (int i = 0; i < 3; ++i) fd_kt[j] += (gp[i] - gm[i]) / (2 * e) * v[i]; /* (Kᵀv)_j = Σ_i K_ij v_i */
    }
    cr_expect_leq(sp_vec_dist(3, grad, fd_grad), 1e-7 * sp_vec_norm(3, grad), "gradE off by %.2e",
                  sp_vec_dist(3, grad, fd_grad));
    cr_expect_leq(sp_vec_dist(3, kt, fd_kt), 1e-7 * sp_vec_norm(3, kt), "K^T v off by %.2e", sp_vec_dist(3, kt, fd_kt));
    sp_problem_free(&pb);

    for (size_t s = 0; sp_hohp_scheme_at(s); ++s)
        for (size_t r = 0; sp_retraction_at(r); ++r) {
            rotation_problem(doc, sizeof doc, sp_hohp_scheme_at(s)->name, sp_retraction_at(r)->name);
            parse(doc, &pb);
            sp_plan *plan = sp_plan_new(&pb);
            for (int p = 0; p < 3; ++p) {
                double err = gradient_error(sp_plan_shooting(plan), probe_points[p]);
                cr_expect_leq(err, 1e-7, "rotation targets %s/%s point %d: gradient error %.2e",
                              sp_hohp_scheme_at(s)->name, sp_retraction_at(r)->name, p, err);
            }
            sp_plan_result res;
            cr_assert_eq(sp_plan_solve(plan, &res), SP_OK);
            cr_expect_str_eq(res.status, "converged");
            cr_expect_leq(res.residual_norm, 1e-5, "terminal residual %.2e", res.residual_norm);
            sp_plan_free(plan);
            sp_problem_free(&pb);
        }
}

/* A derivative-free algorithm reaches the optimum the gradient-based one finds. */
Test(plan, derivative_free_algorithm_reaches_same_optimum)
{
    char doc[4096];
    sp_problem pb;
    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 50, NULL,
               "{\"algorithm\": \"LN_BOBYQA\", \"xtol_rel\": 1e-12, \"maxeval\": 4000}");
    parse(doc, &pb);
    sp_plan *plan = sp_plan_new(&pb);
    sp_plan_result free_res, lbfgs_res;
    cr_assert_eq(sp_plan_solve(plan, &free_res), SP_OK);
    sp_plan_free(plan);
    sp_problem_free(&pb);

    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 50, NULL, NULL);
    parse(doc, &pb);
    plan = sp_plan_new(&pb);
    cr_assert_eq(sp_plan_solve(plan, &lbfgs_res), SP_OK);
    cr_expect_str_eq(free_res.status, "converged");
    cr_expect_leq(fabs(free_res.cost - lbfgs_res.cost) / lbfgs_res.cost, 1e-9, "BOBYQA %.15g vs L-BFGS %.15g",
                  free_res.cost, lbfgs_res.cost);
    sp_plan_free(plan);
    sp_problem_free(&pb);
}

/* The optimiser's evaluation limit is a status, not an error. */
Test(plan, evaluation_limit_is_reported)
{
    char doc[4096];
    sp_problem pb;
    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 50, NULL, "{\"algorithm\": \"LD_LBFGS\", \"maxeval\": 3}");
    parse(doc, &pb);
    sp_plan *plan = sp_plan_new(&pb);
    sp_plan_result res;
    cr_assert_eq(sp_plan_solve(plan, &res), SP_OK);
    cr_expect_str_eq(res.status, "maxeval_reached");
    cr_expect_eq(res.evaluations, 3);
    cr_expect(isfinite(res.cost));
    sp_plan_free(plan);
    sp_problem_free(&pb);
}

/* The discrete optimum tends to the continuous one,
 * x_c = (3.22778080, −11.45185688, 9.81578117, −0.22785081, −3.22778080, 3.38157816),
 * J_c = 2.065466324697, at order 2 for θ = ½ and order 1 for θ = 0. */
Test(plan, discrete_optimum_converges_at_the_scheme_order, .timeout = 120)
{
    static const double xc[6] = {3.22778080, -11.45185688, 9.81578117, -0.22785081, -3.22778080, 3.38157816};
    static const struct {
        const char *scheme;
        double order;
    } cases[] = {{"hohp_sv", 2.0}, {"hohp_euler", 1.0}};
    for (size_t c = 0; c < 2; ++c) {
        double err[3];
        for (int l = 0; l < 3; ++l) {
            char doc[4096];
            sp_problem pb;
            instance_a(doc, sizeof doc, cases[c].scheme, "cayley", 100 << l, NULL, NULL);
            parse(doc, &pb);
            sp_plan *plan = sp_plan_new(&pb);
            sp_plan_result res;
            cr_assert_eq(sp_plan_solve(plan, &res), SP_OK);
            double d = 0.0;
            for (int j = 0; j < 6; ++j) d = fmax(d, fabs(res.x[j] - xc[j]));
            err[l] = d;
            sp_plan_free(plan);
            sp_problem_free(&pb);
        }
        for (int l = 0; l < 2; ++l) {
            double order = log2(err[l] / err[l + 1]);
            cr_expect_leq(fabs(order - cases[c].order), 0.05, "%s: errors %.3e -> %.3e, order %.3f", cases[c].scheme,
                          err[l], err[l + 1], order);
        }
    }
}

/* A target time that rounds just below T (59·(T/59) in floating point) is at T: it gets
 * the last step, not the one before, and the cost is the one with the target at T. */
Test(plan, target_rounding_below_horizon_counts_as_horizon)
{
    static const double times[4] = {0.25, 0.5, 0.75, 0.9999999999999999};
    char doc[4096];
    sp_problem at_T, below_T;
    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 100, NULL, NULL);
    parse(doc, &at_T);
    instance_a(doc, sizeof doc, "hohp_sv", "cayley", 100, times, NULL);
    parse(doc, &below_T);
    sp_shooting *a = sp_shooting_alloc(&at_T), *b = sp_shooting_alloc(&below_T);
    double Ja, Jb;
    cr_assert_eq(sp_shooting_trajectory(a, probe_points[0], &Ja), SP_OK);
    cr_assert_eq(sp_shooting_trajectory(b, probe_points[0], &Jb), SP_OK);
    cr_expect_eq(sp_shooting_target_steps(b)[3], 100);
    cr_expect_leq(fabs(Ja - Jb), 1e-12 * Ja, "J = %.17g with the target at T, %.17g just below", Ja, Jb);
    sp_shooting_free(a);
    sp_shooting_free(b);
    sp_problem_free(&at_T);
    sp_problem_free(&below_T);
}

/* ------------------------------------------------------------ quaternions -- */

/* Solves a plan given as text; its result tree (the caller deletes it). */
static cJSON *solve_json(const char *doc)
{
    sp_problem pb;
    parse(doc, &pb);
    sp_plan *plan = sp_plan_new(&pb);
    cr_assert_not_null(plan);
    sp_plan_result r;
    sp_plan_solve(plan, &r);
    cJSON *res = sp_plan_result_json(plan, &r);
    sp_plan_free(plan);
    sp_problem_free(&pb);
    cr_assert_not_null(res);
    return res;
}

/* The 4 numbers of a JSON array, in place of a written quaternion. */
static void json_quaternion(const cJSON *a, double *q)
{
    cr_assert_eq(cJSON_GetArraySize(a), 4);
    for (int i = 0; i < 4; ++i) q[i] = cJSON_GetArrayItem(a, i)->valuedouble;
}

/* [w, x, y, z] of [x, y, z, w] */
static void wxyz_of_xyzw(const double *in, double *q) { q[0] = in[3], q[1] = in[0], q[2] = in[1], q[3] = in[2]; }

/* R = (w² − |v|²) I + 2 v vᵀ + 2 w v̂ of a unit quaternion [w, v] (computed here, not by the library). */
static void rotation_of(const double *q, double *R)
{
    const double w = q[0], *v = q + 1, hat[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0};
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            R[3 * r + k] = (r == k) * (w * w - sp_vec_dot(3, v, v)) + 2 * v[r] * v[k] + 2 * w * hat[3 * r + k];
}

/* The quaternion [cos(θ/2), sin(θ/2) a] of the rotation by θ about the unit axis a. */
static void axis_angle(const double *a, double theta, double *q)
{
    q[0] = cos(theta / 2);
    for (int i = 0; i < 3; ++i) q[i + 1] = sin(theta / 2) * a[i];
}

/* Keyframe i of a slow tumble through more than a whole turn: the angle 0.21 i about an
 * axis that wanders, so that w = cos(θ/2) crosses 0 near i = 15. */
static void tumble(int i, double *q)
{
    double a[3] = {1.0, 0.3 * sin(0.4 * i), 0.3 * cos(0.3 * i)};
    const double n = sp_vec_norm(3, a);
    for (int k = 0; k < 3; ++k) a[k] /= n;
    axis_angle(a, 0.21 * i, q);
}

/* A plan on SO(3) through `n` keyframes at t = 1…n (20 steps each), with g0 and the
 * keyframes as quaternions written in the order `order` ("wxyz", "xyzw", NULL for no
 * "quaternion_order" member) and the output `output` ("quaternion" or "matrix"). */
static char *quaternion_plan(int n, double sigma, const char *order, const char *output)
{
    size_t size = 512 + 160 * (size_t)n, len = 0;
    char *doc = malloc(size);
    cr_assert_not_null(doc);
    const int xyzw = order && strcmp(order, "xyzw") == 0;
    double g0[4], w[4];
    axis_angle((const double[3]){0, 0.6, 0.8}, 0.3, g0);
    for (int k = 0; k < 4; ++k) w[k] = xyzw ? g0[(k + 1) % 4] : g0[k];
    len +=
        (size_t)snprintf(doc + len, size - len,
                         "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": %d, "
                         "\"steps\": %d, \"xi0\": \"free\", \"sigma\": %.17g, \"output\": {\"orientation\": \"%s\"}, "
                         "\"g0\": [%.17g, %.17g, %.17g, %.17g], ",
                         n, 20 * n, sigma, output, w[0], w[1], w[2], w[3]);
    if (order) len += (size_t)snprintf(doc + len, size - len, "\"quaternion_order\": \"%s\", ", order);
    len += (size_t)snprintf(doc + len, size - len, "\"targets\": [");
    for (int i = 1; i <= n; ++i) {
        double q[4];
        tumble(i, q);
        for (int k = 0; k < 4; ++k) w[k] = xyzw ? q[(k + 1) % 4] : q[k];
        len += (size_t)snprintf(doc + len, size - len, "%s{\"t\": %d, \"q\": [%.17g, %.17g, %.17g, %.17g]}",
                                i > 1 ? ", " : "", i, w[0], w[1], w[2], w[3]);
    }
    snprintf(doc + len, size - len, "]}");
    cr_assert_lt(strlen(doc) + 1, size);
    return doc;
}

static const char *string_of(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    return s ? s : "(none)";
}

/* A file in [x, y, z, w] and its twin in [w, x, y, z] are one plan: the same cost, and
 * every quaternion of the result (trajectory rows, targets, reached points) the same
 * numbers in the other order; each result says its order. */
Test(plan, quaternion_order_xyzw_is_the_wxyz_plan_permuted)
{
    char *a_doc = quaternion_plan(6, 0.05, NULL, "quaternion"), *b_doc = quaternion_plan(6, 0.05, "xyzw", "quaternion");
    cJSON *a = solve_json(a_doc), *b = solve_json(b_doc);
    cr_expect_str_eq(string_of(a, "status"), "converged");
    cr_expect_str_eq(string_of(b, "status"), "converged");
    cr_expect_str_eq(string_of(a, "quaternion_order"), "wxyz");
    cr_expect_str_eq(string_of(b, "quaternion_order"), "xyzw");
    const double ca = cJSON_GetObjectItem(a, "cost")->valuedouble, cb = cJSON_GetObjectItem(b, "cost")->valuedouble;
    cr_expect_leq(fabs(ca - cb), 1e-13 * ca, "cost %.17g in wxyz, %.17g in xyzw", ca, cb);
    const cJSON *ra = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "trajectory"), "quaternion"),
                *rb = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "trajectory"), "quaternion");
    cr_assert_eq(cJSON_GetArraySize(ra), 121);
    cr_assert_eq(cJSON_GetArraySize(rb), 121);
    double worst = 0.0, qa[4], qb[4], pb[4];
    for (const cJSON *x = ra->child, *y = rb->child; x && y; x = x->next, y = y->next) {
        json_quaternion(x, qa);
        json_quaternion(y, pb);
        wxyz_of_xyzw(pb, qb);
        worst = fmax(worst, sp_vec_dist(4, qa, qb));
    }
    cr_expect_leq(worst, 1e-13, "rows differ by %.3g up to the permutation", worst);
    const cJSON *ta = cJSON_GetObjectItem(a, "targets")->child, *tb = cJSON_GetObjectItem(b, "targets")->child;
    for (int i = 0; ta && tb; ta = ta->next, tb = tb->next, ++i) {
        static const char *const keys[2] = {"target", "reached"};
        for (int k = 0; k < 2; ++k) {
            json_quaternion(cJSON_GetObjectItem(ta, keys[k]), qa);
            json_quaternion(cJSON_GetObjectItem(tb, keys[k]), pb);
            wxyz_of_xyzw(pb, qb);
            cr_expect_leq(sp_vec_dist(4, qa, qb), 1e-13, "targets[%d].%s", i, keys[k]);
        }
    }
    cJSON_Delete(a), cJSON_Delete(b);
    free(a_doc), free(b_doc);
}

/* Quaternions written in [x, y, z, w] read back as keyframes in that order are the
 * orientations of the curve: those of the same plan written as matrices. */
Test(plan, quaternions_written_xyzw_read_back_as_targets)
{
    char *q_doc = quaternion_plan(6, 0.05, "xyzw", "quaternion"), *m_doc = quaternion_plan(6, 0.05, "xyzw", "matrix");
    cJSON *q = solve_json(q_doc), *m = solve_json(m_doc);
    const cJSON *tq = cJSON_GetObjectItem(q, "trajectory"), *tm = cJSON_GetObjectItem(m, "trajectory");
    const cJSON *rows = cJSON_GetObjectItem(tq, "quaternion"), *times = cJSON_GetObjectItem(tq, "t");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(cJSON_GetObjectItem(tm, "q")));
    /* every 11th row (times off the keyframes) as the keyframes of a new plan */
    char doc[8192];
    int len = snprintf(doc, sizeof doc,
                       "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 6, \"steps\": "
                       "120, \"xi0\": \"free\", \"sigma\": 0, \"quaternion_order\": \"xyzw\", \"targets\": [");
    int picked[16], n = 0;
    for (int k = 11; k < cJSON_GetArraySize(rows); k += 11) {
        double p[4];
        json_quaternion(cJSON_GetArrayItem(rows, k), p);
        len += snprintf(doc + len, sizeof doc - (size_t)len, "%s{\"t\": %.17g, \"q\": [%.17g, %.17g, %.17g, %.17g]}",
                        n ? ", " : "", cJSON_GetArrayItem(times, k)->valuedouble, p[0], p[1], p[2], p[3]);
        picked[n++] = k;
    }
    snprintf(doc + len, sizeof doc - (size_t)len, "]}");
    cr_assert_lt(strlen(doc) + 1, sizeof doc);
    sp_problem pb;
    parse(doc, &pb);
    cr_assert_eq(pb.cubic.n_targets, (size_t)n);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(tm, "q"), picked[i]);
        double R[9];
        for (int j = 0; j < 9; ++j) R[j] = cJSON_GetArrayItem(row, j)->valuedouble;
        worst = fmax(worst, sp_mat_dist(9, pb.cubic.targets[i].R, R));
    }
    cr_expect_leq(worst, 1e-14, "keyframes read back %.3g from the curve's rotations", worst);
    sp_problem_free(&pb);
    cJSON_Delete(q), cJSON_Delete(m);
    free(q_doc), free(m_doc);
}

/* A smooth curve through 30 keyframes whose quaternions cross w = 0: the rows carry no
 * sign flips (each row points along the one before), so some rows have w < 0; they are
 * still the curve's orientations (those written as matrices), and each reached point is
 * written on the side of its target. */
Test(plan, quaternion_rows_follow_a_curve_through_w_zero)
{
    char *q_doc = quaternion_plan(30, 0, NULL, "quaternion"), *m_doc = quaternion_plan(30, 0, NULL, "matrix");
    cJSON *q = solve_json(q_doc), *m = solve_json(m_doc);
    cr_expect_str_eq(string_of(q, "status"), "converged");
    const cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(q, "trajectory"), "quaternion"),
                *mats = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "trajectory"), "q");
    cr_assert_eq(cJSON_GetArraySize(rows), 601);
    cr_assert_eq(cJSON_GetArraySize(mats), 601);
    double before[4], now[4], least_dot = 1.0, worst = 0.0;
    int negative_w = 0, k = 0;
    for (const cJSON *x = rows->child, *y = mats->child; x && y; x = x->next, y = y->next, ++k) {
        json_quaternion(x, now);
        if (k == 0)
            cr_expect_geq(now[0], 0.0, "the first row has w < 0");
        else
            least_dot = fmin(least_dot, sp_vec_dot(4, now, before));
        negative_w += now[0] < 0;
        double R[9], M[9];
        rotation_of(now, R);
        for (int j = 0; j < 9; ++j) M[j] = cJSON_GetArrayItem(y, j)->valuedouble;
        worst = fmax(worst, sp_mat_dist(9, R, M));
        memcpy(before, now, sizeof now);
    }
    cr_expect_gt(least_dot, 0.0, "a sign flip between rows (least q_k · q_k-1 = %g)", least_dot);
    cr_expect_gt(least_dot, 0.99, "rows too far apart for a smooth curve (least q_k · q_k-1 = %g)", least_dot);
    cr_expect_gt(negative_w, 100, "the curve should cross w = 0 (%d rows with w < 0)", negative_w);
    cr_expect_leq(worst, 1e-14, "rows are other orientations than the matrices (%.3g)", worst);
    int i = 0;
    const cJSON *tg;
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(q, "targets"))
    {
        double target[4], reached[4];
        json_quaternion(cJSON_GetObjectItem(tg, "target"), target);
        json_quaternion(cJSON_GetObjectItem(tg, "reached"), reached);
        cr_expect_gt(sp_vec_dot(4, target, reached), 0.0, "targets[%d]: reached written on the other side", i++);
    }
    cJSON_Delete(q), cJSON_Delete(m);
    free(q_doc), free(m_doc);
}
