/* Keyframe plans on SE(3): a screw motion planned at no cost; left invariance under a
 * rigid motion of every keyframe; the reduction to the SO(3) plan when every position is
 * the origin; the difference from SO3xR3 on the same keyframes; weighted plans and the
 * chordal target terms against central differences; the order of the discrete optimum
 * of the θ = ½ scheme, weighted and exact; the weighted metric a|ω|² + b|v|² (the unit
 * weights given, the scaled unit plan read back, screw motions, the cost as the integral
 * of the samples, its fall with b, the curve read through the text interface); bad
 * input. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/cubic/sp_plan.h"
#include "planner/sp_solve.h"
#include "planner/api/sp_text_api.h"
#include "tests/plan_support.h"
#include "tests/support.h"

#define DOC_SIZE 16384

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

/* A plan document on `group` from the identity through random walk number `walk` of m
 * poses (steps of about 0.8) into doc; the poses into g (16 m numbers) unless NULL. */
static void walk_plan(char *doc, const char *group, unsigned long walk, int m, const char *extra, double *g)
{
    const sp_group *G = sp_group_se3;
    double g0[16], *poses = malloc(16 * (size_t)m * sizeof *poses);
    cr_assert_not_null(poses);
    G->identity(G, g0);
    random_walk(walk, m, 0.8, g0, poses);
    pose_plan(doc, group, g0, poses, m, extra);
    if (g) memcpy(g, poses, 16 * (size_t)m * sizeof *g);
    free(poses);
}

/* Two plans through one random walk: on group_a with the fields extra_a and on group_b
 * with extra_b; both must converge. */
static void solve_pair(unsigned long walk, int m, const char *group_a, const char *extra_a, const char *group_b,
                       const char *extra_b, cJSON **ra, cJSON **rb)
{
    static char a[DOC_SIZE], b[DOC_SIZE];
    walk_plan(a, group_a, walk, m, extra_a, NULL);
    walk_plan(b, group_b, walk, m, extra_b, NULL);
    char what[512];
    snprintf(what, sizeof what, "%s: %s; %s: %s", group_a, extra_a, group_b, extra_b);
    solve_converged_pair(what, a, b, ra, rb);
}

/* From the identity to exp(ξ̂) with free ends: the screw motion exp(tξ̂) has constant body
 * twist and costs nothing, so the plan finds it, in the unit metric and in a weighted one
 * (`metric`: the file's metric field, or ""): ξ̇ = 0 costs nothing in any. */
static void expect_screw_motion(const char *metric)
{
    const sp_group *G = sp_group_se3;
    const double xi[6] = {0.3, -0.5, 0.8, 1.0, 0.4, -0.7}, half[6] = {0.15, -0.25, 0.4, 0.5, 0.2, -0.35};
    double g0[16], g1[16], gh[16], Rh[9], xh[3];
    G->identity(G, g0);
    G->exp(G, xi, g1);
    G->exp(G, half, gh);
    sp_se3_to_pose(gh, Rh, xh);
    static char doc[DOC_SIZE];
    char extra[256];
    snprintf(extra, sizeof extra, "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_times\": [0.5]}%s", metric);
    pose_plan(doc, "SE3", g0, g1, 1, extra);
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

Test(se3_plan, screw_motion_costs_nothing) { expect_screw_motion(""); }

Test(se3_plan, weighted_screw_motion_costs_nothing)
{
    expect_screw_motion(", \"metric\": {\"rotation\": 3, \"translation\": 0.2}");
}

/* Left-multiplying the start and every keyframe by one rigid motion M moves the plan by M:
 * the cost is left-invariant (`metric`: the file's metric field, or ""). */
static void expect_left_invariant(const char *metric)
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
    char extra[256];
    snprintf(extra, sizeof extra, "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_rate\": 4}%s", metric);
    pose_plan(a, "SE3", g0, g, M_KEYS, extra);
    pose_plan(b, "SE3", Mg0, Mg, M_KEYS, extra);
    cJSON *ra, *rb;
    solve_converged_pair("moved by M", a, b, &ra, &rb);
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

Test(se3_plan, plans_are_left_invariant, .timeout = 120) { expect_left_invariant(""); }

Test(se3_plan, weighted_plans_are_left_invariant, .timeout = 120)
{
    expect_left_invariant(", \"metric\": {\"rotation\": 2.5, \"translation\": 0.3}");
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
    cJSON *ra, *rb;
    solve_converged_pair("SE(3) and SO(3)", a, so3, &ra, &rb);
    free(so3);
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
    const char *extra = "\"xi0\": [0, 0, 0, 0, 0, 0], \"xiT\": [0, 0, 0, 0, 0, 0], \"sigma\": 0";
    cJSON *ra, *rb;
    solve_pair(3, 8, "SE3", extra, "SO3xR3", extra, &ra, &rb);
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
    static char a[DOC_SIZE];
    walk_plan(a, "SE3", 5, 5, "\"xi0\": [0, 0, 0, 0, 0, 0], \"sigma\": 0.1, \"steps\": 100", NULL);
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

/* The discrete optimum of the θ = ½ scheme approaches the continuous one at order 2, for
 * a weighted plan and for exact interpolation (σ = 0, whose Newton iteration needs the
 * 6 x 6 derivative of the interpolation condition). */
Test(se3_plan, theta_half_optimum_converges_at_order_two, .timeout = 120)
{
    double J[3];
    const double sigmas[2] = {0.05, 0.0};
    for (int q = 0; q < 2; ++q) {
        for (int r = 0; r < 3; ++r) {
            static char a[DOC_SIZE];
            char extra[256];
            snprintf(extra, sizeof extra,
                     "\"xi0\": [0, 0, 0, 0, 0, 0], \"xiT\": [0, 0, 0, 0, 0, 0], \"sigma\": %g, \"scheme\": "
                     "\"hohp_sv\", \"steps\": %d",
                     sigmas[q], 30 << r);
            walk_plan(a, "SE3", 9, 3, extra, NULL);
            cJSON *res = solve_doc(a);
            cr_expect_str_eq(string(res, "status"), "converged", "sigma %g, %d steps: residual %.2e", sigmas[q],
                             30 << r, number(res, "optimality_residual"));
            J[r] = number(res, "cost");
            cJSON_Delete(res);
        }
        const double order = log2((J[0] - J[1]) / (J[1] - J[2]));
        cr_expect(fabs(order - 2.0) < 0.1, "sigma %g: order %.3f (costs %.12g %.12g %.12g)", sigmas[q], order, J[0],
                  J[1], J[2]);
        cr_log_info("sigma %g: order %.3f (costs %.12g %.12g %.12g)", sigmas[q], order, J[0], J[1], J[2]);
    }
}

/* ---- the weighted metric a|ω|² + b|v|² ---- */

/* Number i of row k of samples[key]. */
static double at_row(const cJSON *samples, const char *key, int k, int i)
{
    return cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(samples, key), k), i)->valuedouble;
}

static const cJSON *member(const cJSON *o, const char *path)
{
    char key[64];
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        o = cJSON_GetObjectItem(o, key);
        path = dot + 1;
    }
    return cJSON_GetObjectItem(o, path);
}

/* Largest |a_k[i] − f_i b_k[i]| over rows k of the row arrays at `path` in two results,
 * f_i = f_lo for i < 3 and f_hi after (one factor for the rotation's part of a row, one for
 * the position's). */
static double rows_apart(const cJSON *ra, const cJSON *rb, const char *path, double f_lo, double f_hi)
{
    const cJSON *a = member(ra, path), *b = member(rb, path), *x, *y = b ? b->child : NULL;
    cr_assert(cJSON_GetArraySize(a) > 0 && cJSON_GetArraySize(a) == cJSON_GetArraySize(b), "%s", path);
    double worst = 0.0;
    cJSON_ArrayForEach(x, a)
    {
        const int n = cJSON_GetArraySize(x);
        cr_assert_eq(n, cJSON_GetArraySize(y), "%s", path);
        for (int i = 0; i < n; ++i)
            worst = fmax(worst, fabs(cJSON_GetArrayItem(x, i)->valuedouble -
                                     (i < 3 ? f_lo : f_hi) * cJSON_GetArrayItem(y, i)->valuedouble));
        y = y->next;
    }
    return worst;
}

/* The same for the vectors at `path` of every element of the arrays `list`. */
static double list_apart(const cJSON *ra, const cJSON *rb, const char *list, const char *path, double f_lo,
                         double f_hi)
{
    cJSON *a = cJSON_CreateArray(), *b = cJSON_CreateArray();
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(ra, list)) cJSON_AddItemToArray(a, cJSON_Duplicate(member(e, path), 1));
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(rb, list)) cJSON_AddItemToArray(b, cJSON_Duplicate(member(e, path), 1));
    cJSON *wa = cJSON_CreateObject(), *wb = cJSON_CreateObject();
    cJSON_AddItemToObject(wa, "v", a), cJSON_AddItemToObject(wb, "v", b);
    const double d = rows_apart(wa, wb, "v", f_lo, f_hi);
    cJSON_Delete(wa), cJSON_Delete(wb);
    return d;
}

/* Multiplies the position of every pose by f. */
static void scale_positions(double *g, int count, double f)
{
    for (int k = 0; k < count; ++k) g[16 * k + 3] *= f, g[16 * k + 7] *= f, g[16 * k + 11] *= f;
}

/* The weights given as 1 and 1 are the default: the same plan. */
Test(se3_plan, metric_of_one_and_one_is_the_default, .timeout = 120)
{
    const char *extra = "\"xi0\": \"free\", \"sigma\": 0, \"output\": {\"sample_rate\": 4}";
    char weighted[256];
    snprintf(weighted, sizeof weighted, "%s, \"metric\": {\"rotation\": 1, \"translation\": 1}", extra);
    cJSON *ra, *rb;
    solve_pair(13, 8, "SE3", extra, "SE3", weighted, &ra, &rb);
    const double ja = number(ra, "cost"), jb = number(rb, "cost");
    cr_expect_leq(fabs(ja - jb), 1e-12 * ja, "costs %.17g and %.17g", ja, jb);
    static const char *const rows[] = {"samples.x", "samples.velocity", "samples.acceleration", "samples.omega",
                                       "samples.omega_dot", "trajectory.xi", "trajectory.p"};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
        const double d = rows_apart(ra, rb, rows[k], 1.0, 1.0);
        cr_expect_leq(d, 1e-12, "%s apart by %.2e", rows[k], d);
    }
    cr_expect_eq(number(member(rb, "settings.metric"), "rotation"), 1.0);
    cr_expect_eq(number(member(rb, "settings.metric"), "translation"), 1.0);
    cJSON_Delete(ra), cJSON_Delete(rb);
}

/* The plan in the metric (a, b) on keyframes x is the unit plan on the keyframes s x,
 * s = √(b/a), read back: positions, linear velocities and accelerations over s, momenta and
 * kicks a (1, s) times the unit plan's, costs a times. Weighted (σ > 0: the misses weigh
 * a|ΔR|² + b|Δx|²) with a step count and a start twist, and exact on the chosen grid. */
Test(se3_plan, weighted_plan_is_the_scaled_unit_plan_read_back, .timeout = 240)
{
    enum { M_KEYS = 6 };
    const sp_group *G = sp_group_se3;
    const double A = 2.0, B = 0.3, S = sqrt(B / A);
    const double start[6] = {0.2, -0.1, 0.3, 1.5, -0.7, 0.4};
    double g0[16], g[16 * M_KEYS], sg0[16], sg[16 * M_KEYS];
    G->exp(G, start, g0);
    random_walk(21, M_KEYS, 0.8, g0, g);
    memcpy(sg0, g0, sizeof g0), memcpy(sg, g, sizeof g);
    scale_positions(sg0, 1, S), scale_positions(sg, M_KEYS, S);
    const double xi0[6] = {0.1, -0.2, 0.3, 0.5, -0.4, 0.2};
    const char *cases[2] = {"\"sigma\": 0.1, \"steps\": 120", "\"sigma\": 0, \"xiT\": [0, 0, 0, 0, 0, 0]"};
    for (int q = 0; q < 2; ++q) {
        static char a[DOC_SIZE], b[DOC_SIZE];
        char extra[512], unit[512];
        snprintf(extra, sizeof extra,
                 "%s, \"xi0\": [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g], \"metric\": {\"rotation\": %.17g, "
                 "\"translation\": %.17g}, \"output\": {\"sample_rate\": 5}",
                 cases[q], xi0[0], xi0[1], xi0[2], xi0[3], xi0[4], xi0[5], A, B);
        pose_plan(a, "SE3", g0, g, M_KEYS, extra);
        /* the unit plan's start twist: v times s */
        snprintf(unit, sizeof unit,
                 "%s, \"xi0\": [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g], \"output\": {\"sample_rate\": 5}", cases[q],
                 xi0[0], xi0[1], xi0[2], S * xi0[3], S * xi0[4], S * xi0[5]);
        pose_plan(b, "SE3", sg0, sg, M_KEYS, unit);
        cJSON *rw, *ru;
        solve_converged_pair(cases[q], a, b, &rw, &ru);
        const double jw = number(rw, "cost"), ju = number(ru, "cost");
        cr_expect_leq(fabs(jw - A * ju), 1e-9 * jw, "case %d: cost %.15g, a times the unit plan's %.15g", q, jw, A * ju);
        cr_expect_leq(fabs(number(rw, "target_cost") - A * number(ru, "target_cost")), 1e-9 * jw, "case %d", q);
        if (q == 0) cr_expect_gt(number(rw, "target_cost"), 1e-4 * jw, "the keyframes are weighted, not met");
        /* what is read back, and how: (factor of the rotation's part, of the position's) */
        const struct {
            const char *path;
            double lo, hi, tol;
        } rows[] = {{"samples.x", 1 / S, 1 / S, 1e-8},         {"samples.velocity", 1 / S, 1 / S, 1e-8},
                    {"samples.acceleration", 1 / S, 1 / S, 1e-7}, {"samples.omega", 1, 1, 1e-8},
                    {"samples.omega_dot", 1, 1, 1e-7},            {"trajectory.x", 1 / S, 1 / S, 1e-8},
                    {"trajectory.xi", 1, 1 / S, 1e-8},            {"trajectory.nu", A, A * S, 1e-7},
                    {"trajectory.p", A, A * S, 1e-7}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
            const double d = rows_apart(rw, ru, rows[k].path, rows[k].lo, rows[k].hi);
            cr_expect_leq(d, rows[k].tol, "case %d: %s off by %.2e", q, rows[k].path, d);
        }
        const double dk = list_apart(rw, ru, "kicks", "kick", A, A * S);
        cr_expect_leq(dk, 1e-7 * A, "case %d: kicks off by %.2e", q, dk);
        const double dr = list_apart(rw, ru, "targets", "position_reached", 1 / S, 1 / S);
        cr_expect_leq(dr, 1e-8, "case %d: reached positions off by %.2e", q, dr);
        const cJSON *tw, *tu = cJSON_GetArrayItem(cJSON_GetObjectItem(ru, "targets"), 0);
        cJSON_ArrayForEach(tw, cJSON_GetObjectItem(rw, "targets"))
        {
            cr_expect_leq(fabs(number(tw, "position_distance") - number(tu, "position_distance") / S), 1e-8);
            tu = tu->next;
        }
        /* the start: the weighted plan's own x0 and twist */
        double v0[6];
        for (int i = 0; i < 6; ++i) v0[i] = cJSON_GetArrayItem(cJSON_GetObjectItem(rw, "initial_velocity"), i)->valuedouble;
        cr_expect_leq(sp_vec_dist(6, v0, xi0), 1e-12, "case %d: the start twist off by %.2e", q, sp_vec_dist(6, v0, xi0));
        double R[9], x[3], R0[9], x0[3];
        sample_pose(cJSON_GetObjectItem(rw, "samples"), 0, R, x);
        sp_se3_to_pose(g0, R0, x0);
        cr_expect_leq(sp_vec_dist(3, x, x0), 1e-12, "case %d: x(0) off by %.2e", q, sp_vec_dist(3, x, x0));
        cr_log_info("case %d: cost %.15g = %.15g x %.15g", q, jw, A, ju);
        cJSON_Delete(rw), cJSON_Delete(ru);
    }
}

/* ½∫(a|ω̇|² + b|v̇|²) of a result's samples at Gauss–Legendre points (5 on each quarter of
 * the unit intervals of [0, m]), with v = Rᵀẋ and v̇ = Rᵀẍ − ω × v. */
static double sampled_cost(const cJSON *res, int m, double a, double b)
{
    static const double weight[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                                     0.2369268850561891};
    const cJSON *s = cJSON_GetObjectItem(res, "samples");
    double J = 0.0;
    for (int k = 0; k < 20 * m; ++k) {
        double R[9], x[3], w[3], wd[3], xd[3], xdd[3], v[3], acc[3], wv[3];
        sample_pose(s, k, R, x);
        for (int i = 0; i < 3; ++i) {
            w[i] = at_row(s, "omega", k, i), wd[i] = at_row(s, "omega_dot", k, i);
            xd[i] = at_row(s, "velocity", k, i), xdd[i] = at_row(s, "acceleration", k, i);
        }
        sp_mat_tvec(3, 3, R, xd, v);
        sp_mat_tvec(3, 3, R, xdd, acc);
        sp_cross(w, v, wv);
        for (int i = 0; i < 3; ++i) acc[i] -= wv[i]; /* v̇ */
        J += 0.125 * weight[k % 5] * 0.5 * (a * sp_vec_dot(3, wd, wd) + b * sp_vec_dot(3, acc, acc));
    }
    return J;
}

/* The output block asking for the samples of sampled_cost. */
static void gauss_times(char *out, size_t size, int m)
{
    static const double gauss[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                                    0.9061798459386640};
    size_t n = (size_t)snprintf(out, size, "\"output\": {\"sample_times\": [");
    for (int k = 0; k < 20 * m && n < size; ++k)
        n += (size_t)snprintf(out + n, size - n, "%s%.17g", k ? ", " : "", 0.25 * (k / 5 + 0.5 + 0.5 * gauss[k % 5]));
    if (n < size) snprintf(out + n, size - n, "]}");
}

/* The weighted plan's running cost is ½∫(a|ω̇|² + b|v̇|²) of its own samples (their ω̇ and
 * fixed-frame ẍ read back); and each plan is the cheaper one in its own metric: the
 * weighted curve costs more than the unit plan in |ω|² + |v|², and the unit curve more than
 * the weighted plan in a|ω|² + b|v|². */
Test(se3_plan, weighted_cost_is_the_integral_of_the_samples, .timeout = 240)
{
    enum { M_KEYS = 6 };
    const double A = 2.0, B = 0.3;
    static char times[DOC_SIZE / 4], unit[DOC_SIZE / 2], weighted[DOC_SIZE / 2];
    gauss_times(times, sizeof times, M_KEYS);
    snprintf(unit, sizeof unit, "\"xi0\": \"free\", \"sigma\": 0, \"accuracy\": 1e-9, %s", times);
    snprintf(weighted, sizeof weighted,
             "\"xi0\": \"free\", \"sigma\": 0, \"accuracy\": 1e-9, \"metric\": {\"rotation\": %g, \"translation\": %g}, %s",
             A, B, times);
    cJSON *ru, *rw;
    solve_pair(17, M_KEYS, "SE3", unit, "SE3", weighted, &ru, &rw);
    const double jw = number(rw, "running_cost"), ju = number(ru, "running_cost");
    const double qw = sampled_cost(rw, M_KEYS, A, B), qu = sampled_cost(ru, M_KEYS, 1, 1);
    cr_expect_leq(fabs(qw - jw), 1e-7 * jw, "weighted: samples %.12g, solver %.12g", qw, jw);
    cr_expect_leq(fabs(qu - ju), 1e-7 * ju, "unit: samples %.12g, solver %.12g", qu, ju);
    const double w_in_unit = sampled_cost(rw, M_KEYS, 1, 1), u_in_weighted = sampled_cost(ru, M_KEYS, A, B);
    cr_expect_gt(w_in_unit, ju * (1 + 1e-6), "the weighted curve in the unit metric %.12g, the unit plan %.12g",
                 w_in_unit, ju);
    cr_expect_gt(u_in_weighted, jw * (1 + 1e-6), "the unit curve in the weighted metric %.12g, the weighted plan %.12g",
                 u_in_weighted, jw);
    cr_log_info("weighted %.12g (samples %.12g), unit %.12g (samples %.12g); crossed %.12g and %.12g", jw, qw, ju, qu,
                u_in_weighted, w_in_unit);
    cJSON_Delete(ru), cJSON_Delete(rw);
}

/* The least cost is a minimum of costs affine in b over the curves: it falls as b falls,
 * and is concave in b. */
Test(se3_plan, weighted_cost_falls_with_the_translation_weight, .timeout = 240)
{
    double J[3];
    const double b[3] = {4.0, 1.0, 0.25};
    for (int k = 0; k < 3; ++k) {
        static char doc[DOC_SIZE];
        char extra[256];
        snprintf(extra, sizeof extra,
                 "\"xi0\": [0, 0, 0, 0, 0, 0], \"xiT\": [0, 0, 0, 0, 0, 0], \"sigma\": 0, \"metric\": "
                 "{\"translation\": %g}",
                 b[k]);
        walk_plan(doc, "SE3", 19, 6, extra, NULL);
        cJSON *res = solve_doc(doc);
        cr_expect_str_eq(string(res, "status"), "converged");
        J[k] = number(res, "cost");
        cJSON_Delete(res);
    }
    cr_expect_gt(J[0], J[1] * (1 + 1e-3), "b 4: %.12g, b 1: %.12g", J[0], J[1]);
    cr_expect_gt(J[1], J[2] * (1 + 1e-3), "b 1: %.12g, b 0.25: %.12g", J[1], J[2]);
    /* 1 = 0.2·4 + 0.8·0.25 */
    cr_expect_geq(J[1], 0.2 * J[0] + 0.8 * J[2], "not concave: %.12g %.12g %.12g", J[0], J[1], J[2]);
    cr_log_info("costs at b = 4, 1, 0.25: %.12g %.12g %.12g", J[0], J[1], J[2]);
}

/* The curve of a weighted plan read through the text interface (what Python calls): the
 * result's samples, and the keyframes' positions at their times. */
Test(se3_plan, weighted_curve_reads_back_through_the_text_interface, .timeout = 120)
{
    enum { M_KEYS = 5 };
    double g[16 * M_KEYS];
    static char doc[DOC_SIZE];
    walk_plan(doc, "SE3", 23, M_KEYS,
              "\"xi0\": \"free\", \"sigma\": 0, \"metric\": {\"rotation\": 0.5, \"translation\": 3}, "
              "\"output\": {\"sample_rate\": 3}",
              g);
    char *text = NULL, error[256];
    sp_plan_curve *c = NULL;
    cr_assert_eq(sp_plan_curve_text(doc, strlen(doc), NULL, &text, &c, error, sizeof error), SP_TEXT_OK, "%s", error);
    cJSON *res = cJSON_Parse(text);
    sp_free_text(text);
    cr_expect_str_eq(string(res, "status"), "converged");
    const cJSON *s = cJSON_GetObjectItem(res, "samples");
    const int n = cJSON_GetArraySize(cJSON_GetObjectItem(s, "t"));
    cr_assert_eq(sp_plan_curve_kind(c), SP_PLAN_CURVE_POSE);
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        const double t = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "t"), k)->valuedouble;
        double pg[12], w[6], wd[6];
        cr_assert_eq(sp_plan_curve_sample(c, 1, &t, pg, w, wd), SP_TEXT_OK);
        for (int i = 0; i < 3; ++i) {
            worst = fmax(worst, fabs(pg[9 + i] - at_row(s, "x", k, i)));
            worst = fmax(worst, fabs(w[3 + i] - at_row(s, "velocity", k, i)));
            worst = fmax(worst, fabs(wd[3 + i] - at_row(s, "acceleration", k, i)));
            worst = fmax(worst, fabs(w[i] - at_row(s, "omega", k, i)));
        }
    }
    cr_expect_leq(worst, 0.0, "the curve and the samples apart by %.2e", worst);
    double miss = 0.0;
    for (int i = 0; i < M_KEYS; ++i) {
        const double t = i + 1;
        double pg[12], R[9], x[3];
        cr_assert_eq(sp_plan_curve_sample(c, 1, &t, pg, NULL, NULL), SP_TEXT_OK);
        sp_se3_to_pose(g + 16 * i, R, x);
        miss = fmax(miss, sp_vec_dist(3, pg + 9, x));
    }
    cr_expect_leq(miss, 1e-9, "the curve misses a keyframe's position by %.2e", miss);
    sp_plan_curve_free(c);
    cJSON_Delete(res);
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
    /* the metric: its weights positive numbers, its keys known, single shooting unweighted */
    static const char *const bad_metrics[][2] = {
        {"{\"rotation\": 0, \"translation\": 2}", "metric.rotation"},
        {"{\"rotation\": -1}", "metric.rotation"},
        {"{\"translation\": 0}", "metric.translation"},
        {"{\"rotation\": 1, \"translation\": -2}", "metric.translation"},
        {"{\"rotation\": \"1\"}", "metric.rotation"},
        {"{\"rotation\": 1, \"translation\": [2]}", "metric.translation"},
        {"{\"rotation\": 1, \"scale\": 2}", "metric.scale"},
        {"{\"rotation\": 1e-7, \"translation\": 1e6}", "metric.translation"},
        {"\"round\"", "metric"},
        {"[1, 2]", "metric"},
    };
    for (size_t k = 0; k < sizeof bad_metrics / sizeof bad_metrics[0]; ++k) {
        snprintf(doc, sizeof doc, "%s\"metric\": %s, \"targets\": [%s]}", head, bad_metrics[k][0], key0);
        expect_refused(doc, bad_metrics[k][1]);
    }
    snprintf(doc, sizeof doc,
             "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SE3\", \"T\": 2, \"steps\": 20, "
             "\"xi0\": [0, 0, 0, 0, 0, 0], \"sigma\": 0.1, \"method\": \"single_shooting\", \"metric\": "
             "{\"translation\": 2}, \"targets\": [%s]}",
             key0);
    expect_refused(doc, "method");
    snprintf(doc, sizeof doc,
             "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3xR3\", \"T\": 2, "
             "\"xi0\": [0, 0, 0, 0, 0, 0], \"sigma\": 0, \"metric\": {\"translation\": 2}, \"targets\": [%s]}",
             key0);
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
    snprintf(doc, sizeof doc, "%s\"metric\": {\"rotation\": 1, \"translation\": 0}, \"targets\": [%s]}", head, key0);
    write_text(bad, doc);
    run(dir, (const char *[]){"solve", bad, NULL}, &r);
    cr_expect_eq(r.status, 2, "solve exited %d", r.status);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(strstr(r.err, "bad.json") != NULL && strstr(r.err, "metric.translation: must be positive") != NULL,
              "got %s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    remove_tree(dir);
}
