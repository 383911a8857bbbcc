/* Keyframe plans on SE(3): a screw motion planned at no cost; left invariance under a
 * rigid motion of every keyframe; the reduction to the SO(3) plan when every position is
 * the origin; the difference from SO3xR3 on the same keyframes; weighted plans and the
 * chordal target terms against central differences; the order of the discrete optimum
 * of the θ = ½ scheme; bad input. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/cubic/sp_plan.h"
#include "planner/sp_solve.h"
#include "tests/support.h"

#define DOC_SIZE 16384

/* The result of a problem given as text (the caller deletes it). */
static cJSON *solve_doc(const char *doc)
{
    sp_problem pb;
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), &pb, &e);
    cr_assert_eq(st, SP_OK, "problem refused: %s: %s\n%.300s", e.path, e.message, doc);
    cJSON *res = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cr_assert_not_null(res);
    return res;
}

static double number(const cJSON *o, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItem(o, key)); }
static const char *string(const cJSON *o, const char *key) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, key)); }

/* Appends `"key": [[R rows]], "x": [x]` of the pose g (4 x 4) to doc. */
static void append_pose(char *doc, const char *rkey, const char *xkey, const double *g)
{
    double R[9], x[3];
    sp_se3_to_pose(g, R, x);
    size_t n = strlen(doc);
    snprintf(doc + n, DOC_SIZE - n,
             "\"%s\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]], \"%s\": [%.17g, %.17g, "
             "%.17g]",
             rkey, R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8], xkey, x[0], x[1], x[2]);
}

static void append(char *doc, const char *text)
{
    size_t n = strlen(doc);
    snprintf(doc + n, DOC_SIZE - n, "%s", text);
}

/* A plan document on `group` from g0 through the poses g[0..m-1] at t = 1, 2, …, m. */
static void pose_plan(char *doc, const char *group, const double *g0, const double *g, int m, const char *extra)
{
    snprintf(doc, DOC_SIZE, "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"%s\", \"T\": %d, %s, ",
             group, m, extra);
    append_pose(doc, "g0", "x0", g0);
    append(doc, ", \"targets\": [");
    for (int i = 0; i < m; ++i) {
        size_t n = strlen(doc);
        snprintf(doc + n, DOC_SIZE - n, "%s{\"t\": %d, ", i ? ", " : "", i + 1);
        append_pose(doc, "R", "x", g + 16 * i);
        append(doc, "}");
    }
    append(doc, "]}");
}

/* A random walk of m poses from g0, steps of about `size` (a fixed linear congruence). */
static void random_walk(unsigned long seed, int m, double size, const double *g0, double *g)
{
    const sp_group *G = sp_group_se3;
    const double *prev = g0;
    for (int i = 0; i < m; ++i) {
        double xi[6], step[16];
        for (int k = 0; k < 6; ++k) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            xi[k] = size * (2.0 * (double)(seed >> 11) / 9007199254740992.0 - 1.0);
        }
        G->exp(G, xi, step);
        G->compose(G, prev, step, g + 16 * i);
        prev = g + 16 * i;
    }
}

static void sample_pose(const cJSON *samples, int k, double *R, double *x)
{
    const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(samples, "R"), k);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(samples, "x"), k);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) R[3 * i + j] = cJSON_GetArrayItem(cJSON_GetArrayItem(m, i), j)->valuedouble;
        x[i] = cJSON_GetArrayItem(p, i)->valuedouble;
    }
}

/* From the identity to exp(ξ̂) with free ends: the screw motion exp(tξ̂) has constant body
 * twist and costs nothing, so the plan finds it. */
Test(se3_plan, screw_motion_costs_nothing)
{
    const sp_group *G = sp_group_se3;
    const double xi[6] = {0.3, -0.5, 0.8, 1.0, 0.4, -0.7}, half[6] = {0.15, -0.25, 0.4, 0.5, 0.2, -0.35};
    double g0[16], g1[16], gh[16], Rh[9], xh[3];
    G->identity(G, g0);
    G->exp(G, xi, g1);
    G->exp(G, half, gh);
    sp_se3_to_pose(gh, Rh, xh);
    static char doc[DOC_SIZE];
    pose_plan(doc, "SE3", g0, g1, 1, "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_times\": [0.5]}");
    cJSON *res = solve_doc(doc);
    cr_expect_str_eq(string(res, "status"), "converged");
    cr_expect_leq(fabs(number(res, "running_cost")), 1e-10, "running cost %g", number(res, "running_cost"));
    double R[9], x[3];
    sample_pose(cJSON_GetObjectItem(res, "samples"), 0, R, x);
    cr_expect_leq(sp_vec_dist(9, R, Rh), 1e-8, "R off by %g", sp_vec_dist(9, R, Rh));
    cr_expect_leq(sp_vec_dist(3, x, xh), 1e-8, "x off by %g", sp_vec_dist(3, x, xh));
    /* the fixed-frame velocity of the position is R v */
    const cJSON *vel = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "samples"), "velocity"), 0);
    double v[3], Rv[3];
    for (int k = 0; k < 3; ++k) v[k] = cJSON_GetArrayItem(vel, k)->valuedouble;
    sp_mat_vec(3, 3, Rh, xi + 3, Rv);
    cr_expect_leq(sp_vec_dist(3, v, Rv), 1e-8, "velocity off by %g", sp_vec_dist(3, v, Rv));
    cJSON_Delete(res);
}

/* Left-multiplying the start and every keyframe by one rigid motion M moves the plan by M:
 * the cost is left-invariant. */
Test(se3_plan, plans_are_left_invariant, .timeout = 120)
{
    enum { M_KEYS = 12 };
    const sp_group *G = sp_group_se3;
    double g0[16], g[16 * M_KEYS], Mg0[16], Mg[16 * M_KEYS], M[16];
    const double start[6] = {0.1, 0.2, -0.3, 0.5, 0.0, 1.0}, motion[6] = {0.7, -1.1, 0.4, 3.0, -2.0, 0.5};
    G->exp(G, start, g0);
    random_walk(7, M_KEYS, 0.6, g0, g);
    G->exp(G, motion, M);
    G->compose(G, M, g0, Mg0);
    for (int i = 0; i < M_KEYS; ++i) G->compose(G, M, g + 16 * i, Mg + 16 * i);
    static char a[DOC_SIZE], b[DOC_SIZE];
    const char *extra = "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_rate\": 4}";
    pose_plan(a, "SE3", g0, g, M_KEYS, extra);
    pose_plan(b, "SE3", Mg0, Mg, M_KEYS, extra);
    cJSON *ra = solve_doc(a), *rb = solve_doc(b);
    cr_expect_str_eq(string(ra, "status"), "converged");
    cr_expect_str_eq(string(rb, "status"), "converged");
    const double ja = number(ra, "cost"), jb = number(rb, "cost");
    cr_expect_leq(fabs(ja - jb), 1e-9 * ja, "costs %.15g and %.15g", ja, jb);
    const cJSON *sa = cJSON_GetObjectItem(ra, "samples"), *sb = cJSON_GetObjectItem(rb, "samples");
    const int n = cJSON_GetArraySize(cJSON_GetObjectItem(sa, "t"));
    cr_assert_eq(n, 4 * M_KEYS + 1);
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        double R[9], x[3], Rb[9], xb[3], ga[16], moved[16], gb[16];
        sample_pose(sa, k, R, x);
        sp_se3_from_pose(R, x, ga);
        G->compose(G, M, ga, moved);
        sample_pose(sb, k, Rb, xb);
        sp_se3_from_pose(Rb, xb, gb);
        worst = fmax(worst, sp_vec_dist(16, moved, gb));
    }
    cr_expect_leq(worst, 1e-8, "samples apart by %g", worst);
    cJSON_Delete(ra), cJSON_Delete(rb);
}

/* With every position at the origin the plan never translates: it is the SO(3) plan of
 * the same rotations. */
Test(se3_plan, positions_at_the_origin_reduce_to_the_so3_plan, .timeout = 120)
{
    enum { M_KEYS = 6 };
    const sp_group *G = sp_group_se3;
    double g0[16], g[16 * M_KEYS];
    G->identity(G, g0);
    random_walk(11, M_KEYS, 0.7, g0, g);
    for (int i = 0; i < M_KEYS; ++i) g[16 * i + 3] = g[16 * i + 7] = g[16 * i + 11] = 0.0;
    static char a[DOC_SIZE], b[DOC_SIZE];
    pose_plan(a, "SE3", g0, g, M_KEYS, "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_rate\": 4}");
    /* the SO(3) file: the same document without positions */
    pose_plan(b, "SO3", g0, g, M_KEYS,
              "\"space\": \"group\", \"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_rate\": 4}");
    cJSON *d = cJSON_Parse(b);
    cJSON_DeleteItemFromObject(d, "x0");
    const cJSON *tg;
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(d, "targets")) cJSON_DeleteItemFromObject((cJSON *)tg, "x");
    char *so3 = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    cJSON *ra = solve_doc(a), *rb = solve_doc(so3);
    free(so3);
    cr_expect_str_eq(string(ra, "status"), "converged");
    cr_expect_str_eq(string(rb, "status"), "converged");
    const double ja = number(ra, "cost"), jb = number(rb, "cost");
    cr_expect_leq(fabs(ja - jb), 1e-9 * jb, "costs %.15g and %.15g", ja, jb);
    const cJSON *sa = cJSON_GetObjectItem(ra, "samples"), *sb = cJSON_GetObjectItem(rb, "samples");
    const int n = cJSON_GetArraySize(cJSON_GetObjectItem(sa, "t"));
    cr_assert_eq(n, cJSON_GetArraySize(cJSON_GetObjectItem(sb, "t")));
    double worst = 0.0, moved = 0.0;
    for (int k = 0; k < n; ++k) {
        double R[9], x[3], Rb[9];
        sample_pose(sa, k, R, x);
        const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(sb, "R"), k);
        for (int i = 0; i < 9; ++i) Rb[i] = cJSON_GetArrayItem(cJSON_GetArrayItem(m, i / 3), i % 3)->valuedouble;
        worst = fmax(worst, sp_vec_dist(9, R, Rb));
        moved = fmax(moved, sp_vec_norm(3, x));
    }
    cr_expect_leq(worst, 1e-8, "orientations apart by %g", worst);
    cr_expect_leq(moved, 1e-10, "the position left the origin by %g", moved);
    cJSON_Delete(ra), cJSON_Delete(rb);
}

/* SE3 and SO3xR3 on the same keyframes: both pass through every pose; the screw-coupled
 * curve is another curve, at another cost. */
Test(se3_plan, differs_from_the_product_plan_through_the_same_poses, .timeout = 120)
{
    enum { M_KEYS = 8 };
    const sp_group *G = sp_group_se3;
    double g0[16], g[16 * M_KEYS];
    G->identity(G, g0);
    random_walk(3, M_KEYS, 0.8, g0, g);
    static char a[DOC_SIZE], b[DOC_SIZE];
    const char *extra = "\"xi0\": [0, 0, 0, 0, 0, 0], \"xiT\": [0, 0, 0, 0, 0, 0], \"sigma\": 0";
    pose_plan(a, "SE3", g0, g, M_KEYS, extra);
    pose_plan(b, "SO3xR3", g0, g, M_KEYS, extra);
    cJSON *ra = solve_doc(a), *rb = solve_doc(b);
    cr_expect_str_eq(string(ra, "status"), "converged");
    cr_expect_str_eq(string(rb, "status"), "converged");
    const double ja = number(ra, "cost"), jb = number(rb, "cost");
    cr_expect_gt(fabs(ja - jb), 1e-3 * jb, "costs %.15g and %.15g", ja, jb);
    const cJSON *res[2] = {ra, rb};
    for (int r = 0; r < 2; ++r) {
        const cJSON *tg;
        cJSON_ArrayForEach(tg, cJSON_GetObjectItem(res[r], "targets"))
        {
            cr_expect_leq(number(tg, "distance"), 1e-9, "%s: t = %g", r ? "SO3xR3" : "SE3", number(tg, "t"));
            cr_expect_leq(number(tg, "position_distance"), 1e-9, "%s: t = %g", r ? "SO3xR3" : "SE3", number(tg, "t"));
        }
    }
    cJSON_Delete(ra), cJSON_Delete(rb);
}

/* E = ½|g − T|²_F/σ²: its body gradient and the transposed Jacobian of that gradient
 * against central differences under g → g exp(εÊ_k). */
Test(se3_plan, target_terms_against_central_differences)
{
    const sp_group *G = sp_group_se3;
    const double a[6] = {0.4, -0.9, 0.3, 1.2, -0.5, 0.8}, b[6] = {-0.6, 0.2, 1.1, -0.4, 0.9, 0.3};
    const double v[6] = {0.3, -0.7, 0.2, 0.5, 1.0, -0.4};
    sp_cubic_target tg = {.t = 1.0};
    double g[16];
    G->exp(G, a, g);
    G->exp(G, b, tg.R);
    const sp_cubic_spline c = {.group = G, .space = SP_SPACE_GROUP, .sigma = 0.3, .n_targets = 1, .targets = &tg};
    const double eps = 1e-6;
    double grad[6], K[36], Ktv[6];
    sp_cubic_target_gradient(&c, 0, g, grad);
    sp_cubic_target_jacobian_T(&c, 0, g, v, Ktv);
    for (int j = 0; j < 6; ++j) {
        double e[6] = {0}, step[16], gp[16], gm[16], dp[6], dm[6];
        e[j] = eps;
        G->exp(G, e, step);
        G->compose(G, g, step, gp);
        e[j] = -eps;
        G->exp(G, e, step);
        G->compose(G, g, step, gm);
        const double fd = (sp_cubic_target_cost(&c, 0, gp) - sp_cubic_target_cost(&c, 0, gm)) / (2 * eps);
        cr_expect_leq(fabs(fd - grad[j]), 1e-6 * fmax(1.0, fabs(grad[j])), "grad[%d] %.12g, fd %.12g", j, grad[j], fd);
        sp_cubic_target_gradient(&c, 0, gp, dp);
        sp_cubic_target_gradient(&c, 0, gm, dm);
        for (int k = 0; k < 6; ++k) K[6 * k + j] = (dp[k] - dm[k]) / (2 * eps); /* K_kj = ∂grad_k/∂δ_j */
    }
    for (int j = 0; j < 6; ++j) {
        double fd = 0.0;
        for (int k = 0; k < 6; ++k) fd += K[6 * k + j] * v[k];
        cr_expect_leq(fabs(fd - Ktv[j]), 1e-5 * fmax(1.0, fabs(Ktv[j])), "(Kᵀv)[%d] %.12g, fd %.12g", j, Ktv[j], fd);
    }
}

/* A weighted plan (σ > 0) converges, and its keyframes are near but not on the curve. */
Test(se3_plan, weighted_plan_converges, .timeout = 120)
{
    enum { M_KEYS = 5 };
    const sp_group *G = sp_group_se3;
    double g0[16], g[16 * M_KEYS];
    G->identity(G, g0);
    random_walk(5, M_KEYS, 0.8, g0, g);
    static char a[DOC_SIZE];
    pose_plan(a, "SE3", g0, g, M_KEYS, "\"xi0\": [0, 0, 0, 0, 0, 0], \"sigma\": 0.1, \"steps\": 100");
    cJSON *ra = solve_doc(a);
    cr_expect_str_eq(string(ra, "status"), "converged");
    cr_expect_gt(number(ra, "target_cost"), 0.0);
    const cJSON *tg;
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(ra, "targets"))
    {
        cr_expect_gt(number(tg, "distance") + number(tg, "position_distance"), 1e-6);
        cr_expect_leq(number(tg, "distance") + number(tg, "position_distance"), 0.5);
    }
    cJSON_Delete(ra);
}

/* The discrete optimum of the θ = ½ scheme (a weighted plan) approaches the continuous one
 * at order 2. */
Test(se3_plan, theta_half_optimum_converges_at_order_two, .timeout = 120)
{
    enum { M_KEYS = 3 };
    const sp_group *G = sp_group_se3;
    double g0[16], g[16 * M_KEYS], J[3];
    G->identity(G, g0);
    random_walk(9, M_KEYS, 0.8, g0, g);
    for (int r = 0; r < 3; ++r) {
        static char a[DOC_SIZE];
        char extra[256];
        snprintf(extra, sizeof extra,
                 "\"xi0\": [0, 0, 0, 0, 0, 0], \"xiT\": [0, 0, 0, 0, 0, 0], \"sigma\": 0.05, \"scheme\": \"hohp_sv\", "
                 "\"steps\": %d",
                 30 << r);
        pose_plan(a, "SE3", g0, g, M_KEYS, extra);
        cJSON *res = solve_doc(a);
        cr_expect_str_eq(string(res, "status"), "converged");
        J[r] = number(res, "cost");
        cJSON_Delete(res);
    }
    const double order = log2((J[0] - J[1]) / (J[1] - J[2]));
    cr_expect(fabs(order - 2.0) < 0.1, "order %.3f (costs %.12g %.12g %.12g)", order, J[0], J[1], J[2]);
}

static void expect_refused(const char *doc, const char *path)
{
    sp_problem pb;
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), &pb, &e);
    cr_expect_neq(st, SP_OK, "accepted: %s", doc);
    if (st == SP_OK) sp_problem_free(&pb);
    else
        cr_expect_str_eq(e.path, path, "%s", e.message);
}

Test(se3_plan, bad_input_names_the_field)
{
    const char *head = "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SE3\", \"T\": 2, "
                       "\"xi0\": [0, 0, 0, 0, 0, 0], \"sigma\": 0, ";
    const char *key0 = "{\"t\": 1, \"q\": [1, 0, 0, 0], \"x\": [1, 0, 0]}";
    char doc[1024];
    snprintf(doc, sizeof doc, "%s\"targets\": [%s, {\"t\": 2, \"q\": [1, 0, 0, 0]}]}", head, key0);
    expect_refused(doc, "targets[1].x");
    snprintf(doc, sizeof doc, "%s\"targets\": [%s, {\"t\": 2, \"q\": [1, 0, 0, 0], \"x\": [1, 0]}]}", head, key0);
    expect_refused(doc, "targets[1].x");
    snprintf(doc, sizeof doc, "%s\"x0\": [0, 0], \"targets\": [%s]}", head, key0);
    expect_refused(doc, "x0");
    snprintf(doc, sizeof doc, "%s\"space\": \"sphere\", \"y0\": [0, 0, 1], \"targets\": [%s]}", head, key0);
    expect_refused(doc, "space");
    snprintf(doc, sizeof doc, "%s\"metric\": {\"rotation\": 1, \"translation\": 2}, \"targets\": [%s]}", head, key0);
    expect_refused(doc, "metric");
    snprintf(doc, sizeof doc, "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SE3\", \"T\": 2, "
                              "\"xi0\": [0, 0, 0], \"sigma\": 0, \"targets\": [%s]}", key0);
    expect_refused(doc, "xi0");

    /* the command: exit 2, one line naming the file and the path */
    char dir[4096], bad[4096];
    sp_test_scratch_dir(dir, "se3_plan", "bad_input");
    join(bad, dir, "bad.json");
    snprintf(doc, sizeof doc, "%s\"targets\": [%s, {\"t\": 2, \"R\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}]}", head, key0);
    write_text(bad, doc);
    run_result r;
    run(dir, (const char *[]){"solve", bad, NULL}, &r);
    cr_expect_eq(r.status, 2, "solve exited %d", r.status);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(strstr(r.err, "targets[1].x: ") != NULL, "got %s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    remove_tree(dir);
}
