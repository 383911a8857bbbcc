/* Keyframe plans (multiple shooting with the banded Newton solver, the direct form, pose
 * plans): the Newton system against a dense solve and against central differences; the
 * direct form's gradient against central differences; the optimum against single
 * shooting and against an independent multi-start L-BFGS over the velocity sequence
 * (keyframe_reference.h) on the schedules of tests/keyframes/ and on random schedules of
 * 50 keyframes; exact interpolation; natural ends against scipy's RotationSpline; the
 * momentum map between kicks; the order of the discrete optimum in h; poses and
 * quaternions. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/keyframe_reference.h"
#include "tests/plan_support.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_direct.h"
#include "planner/cubic/sp_plan.h"

#define KEYFRAMES SP_TEST_FUZZ "/../keyframes/"
#define ROTATION_SPLINE SP_TEST_FUZZ "/../rotation_spline_cost.py"

static void parse(const char *doc, sp_problem *pb)
{
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), pb, &e);
    cr_assert_eq(st, SP_OK, "problem refused: %s: %s\n%.300s", e.path, e.message, doc);
}

/* Solves a plan; the result tree (caller deletes). */
static cJSON *solve(const sp_problem *pb)
{
    sp_plan *plan = sp_plan_new(pb);
    cr_assert_not_null(plan);
    sp_plan_result r;
    sp_plan_solve(plan, &r);
    cJSON *res = sp_plan_result_json(plan, &r);
    sp_plan_free(plan);
    cr_assert_not_null(res);
    return res;
}

static cJSON *solve_text(const char *doc)
{
    sp_problem pb;
    parse(doc, &pb);
    cJSON *res = solve(&pb);
    sp_problem_free(&pb);
    return res;
}

/* A problem file with `extra` fields inserted after the opening brace. */
static char *with_fields(const char *doc, const char *extra)
{
    size_t n = strlen(doc) + strlen(extra) + 4;
    char *out = malloc(n);
    cr_assert_not_null(out);
    snprintf(out, n, "{%s, %s", extra, doc + 1);
    return out;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* ---------------------------------------------------------- the Newton system -- */

/* Small plans covering every branch of the optimality system: sphere, rotation and SE(3)
 * keyframes, weighted and exact, prescribed or free start, prescribed end, every scheme
 * and both retractions, uneven grids and a stretch after the last keyframe. */
static const char *const small_plans[] = {
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"y0\": [1, 0, 0], \"T\": 1.2,"
     " \"steps\": 37, \"xi0\": [0, 0.3, 1], \"sigma\": 0.2, \"block_steps\": 5, \"targets\": [{\"t\": 0.3, \"y\":"
     " [0.9, 0.4, 0.1]}, {\"t\": 0.7, \"y\": [0.6, 0.7, 0.3]}, {\"t\": 1.0, \"y\": [0.1, 0.9, 0.4]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"y0\": [0, 0, 1], \"T\": 1,"
     " \"steps\": 30, \"scheme\": \"hohp_euler\", \"retraction\": \"exp\", \"xi0\": \"free\", \"sigma\": 0,"
     " \"xiT\": [0.2, 0, 0], \"targets\": [{\"t\": 0.5, \"y\": [0.3, 0.2, 0.9]}, {\"t\": 1, \"y\": [0.5, 0.5, 0.7]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 2, \"steps\": 40,"
     " \"normalize\": true, \"scheme\": \"hohp_euler_adjoint\", \"xi0\": [0.1, 0.2, 0.3], \"sigma\": 0.1, \"xiT\": [0, 0, 0],"
     " \"targets\": [{\"t\": 0.5, \"q\": [0.95, 0.1, 0.2, 0.1]}, {\"t\": 1.5, \"q\": [0.8, 0.3, 0.4, 0.2]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 2, \"steps\": 40,"
     " \"normalize\": true, \"retraction\": \"exp\", \"xi0\": \"free\", \"sigma\": 0, \"targets\": [{\"t\": 0.5, \"q\": [0.95, 0.1, 0.2,"
     " 0.1]}, {\"t\": 1.0, \"q\": [0.8, 0.3, 0.4, 0.2]}, {\"t\": 2.0, \"q\": [0.6, 0.5, 0.4, 0.3]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R3\", \"T\": 3, \"steps\": 30, \"xi0\": [1, 0,"
     " 0], \"sigma\": 0.3, \"targets\": [{\"t\": 1, \"x\": [1, 1, 0]}, {\"t\": 2, \"x\": [0, 2, 1]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SE3\", \"T\": 2, \"steps\": 24, \"x0\": [2, -1,"
     " 3], \"xi0\": \"free\", \"sigma\": 0, \"xiT\": [0, 0, 0, 0, 0, 0], \"normalize\": true, \"targets\": [{\"t\": 0.7,"
     " \"q\": [0.95, 0.1, 0.2, 0.1], \"x\": [2.5, -0.5, 3.2]}, {\"t\": 2, \"q\": [0.8, 0.3, 0.4, 0.2], \"x\": [3, 0.5,"
     " 2.5]}]}"),
    ("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SE3\", \"T\": 2, \"steps\": 24, \"xi0\": [0.1,"
     " 0, 0.2, 0.5, 0, 0], \"sigma\": 0.2, \"normalize\": true, \"targets\": [{\"t\": 1, \"q\": [0.95, 0.1, 0.2, 0.1],"
     " \"x\": [0.5, 0.5, 0.2]}, {\"t\": 1.5, \"q\": [0.8, 0.3, 0.4, 0.2], \"x\": [1, 0.5, -0.5]}]}"),
};
#define SMALL_PLANS (sizeof small_plans / sizeof small_plans[0])

/* Small plan q at a point away from any solution, where every term of the Jacobian is at
 * work: the problem, its system, its number of unknowns and its dense Jacobian. */
typedef struct perturbed {
    sp_problem pb;
    sp_ms *ms;
    int nx;
    double *J;
} perturbed;

static void perturbed_system(size_t q, perturbed *p)
{
    parse(small_plans[q], &p->pb);
    sp_ms *ms = p->ms = sp_ms_alloc(&p->pb, p->pb.cubic.sigma);
    cr_assert_not_null(ms);
    cr_assert_eq(sp_ms_start(ms, SP_START_SPLINE), SP_OK);
    const int nx = p->nx = sp_ms_unknowns(ms);
    double *dx = malloc((size_t)nx * sizeof *dx);
    for (int c = 0; c < nx; ++c) dx[c] = 0.05 * sin(1.3 * c + 0.7);
    sp_ms_move(ms, dx, 1.0);
    free(dx);
    p->J = malloc((size_t)nx * nx * sizeof *p->J);
    cr_assert_not_null(p->J);
    cr_assert_eq(sp_ms_jacobian_dense(ms, p->J), SP_OK);
}

static void perturbed_free(perturbed *p)
{
    free(p->J);
    sp_ms_free(p->ms);
    sp_problem_free(&p->pb);
}

/* The banded Jacobian against central differences of the residual, column by column. */
Test(keyframes, newton_jacobian_against_central_differences)
{
    for (size_t q = 0; q < SMALL_PLANS; ++q) {
        perturbed p;
        perturbed_system(q, &p);
        sp_ms *ms = p.ms;
        const int nx = p.nx;
        const double *J = p.J;
        double *Fp = malloc((size_t)nx * sizeof *Fp), *Fm = malloc((size_t)nx * sizeof *Fm),
               *e = calloc((size_t)nx, sizeof *e);
        double worst = 0.0, scale = 0.0;
        for (int i = 0; i < nx * nx; ++i) scale = fmax(scale, fabs(J[i]));
        for (int c = 0; c < nx; ++c) {
            const double eps = 1e-6;
            e[c] = 1.0;
            sp_ms_move(ms, e, eps);
            cr_assert_eq(sp_ms_residual(ms, Fp), SP_OK);
            sp_ms_move(ms, e, -2.0 * eps);
            cr_assert_eq(sp_ms_residual(ms, Fm), SP_OK);
            sp_ms_move(ms, e, eps);
            e[c] = 0.0;
            for (int r = 0; r < nx; ++r)
                worst = fmax(worst, fabs((Fp[r] - Fm[r]) / (2.0 * eps) - J[(size_t)r * nx + c]));
        }
        cr_expect_leq(worst, 1e-7 * scale, "plan %zu: Jacobian off by %.2e (scale %.2e)", q, worst, scale);
        free(Fp), free(Fm), free(e);
        perturbed_free(&p);
    }
}

/* Gaussian elimination with partial pivoting, the test's own dense solve. */
static void dense_solve(int n, double *A, double *b)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[(size_t)i * n + k]) > fabs(A[(size_t)p * n + k])) p = i;
        for (int j = 0; j < n; ++j) {
            double t = A[(size_t)k * n + j];
            A[(size_t)k * n + j] = A[(size_t)p * n + j], A[(size_t)p * n + j] = t;
        }
        double t = b[k];
        b[k] = b[p], b[p] = t;
        for (int i = k + 1; i < n; ++i) {
            double f = A[(size_t)i * n + k] / A[(size_t)k * n + k];
            for (int j = k; j < n; ++j) A[(size_t)i * n + j] -= f * A[(size_t)k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        for (int j = k + 1; j < n; ++j) b[k] -= A[(size_t)k * n + j] * b[j];
        b[k] /= A[(size_t)k * n + k];
    }
}

/* The banded LU's Newton correction equals a dense solve of J Δx = −F. */
Test(keyframes, banded_newton_step_equals_a_dense_solve)
{
    for (size_t q = 0; q < SMALL_PLANS; ++q) {
        perturbed p;
        perturbed_system(q, &p);
        const int nx = p.nx;
        double *F = malloc((size_t)nx * sizeof *F), *dx = malloc((size_t)nx * sizeof *dx);
        cr_assert_eq(sp_ms_residual(p.ms, F), SP_OK);
        for (int r = 0; r < nx; ++r) F[r] = -F[r];
        dense_solve(nx, p.J, F);
        cr_assert_eq(sp_ms_correction(p.ms, dx), SP_OK);
        cr_expect_leq(sp_vec_dist(nx, dx, F), 1e-10 * fmax(1.0, sp_vec_norm(nx, F)), "plan %zu: banded %.3e", q,
                      sp_vec_dist(nx, dx, F));
        free(F), free(dx);
        perturbed_free(&p);
    }
}

/* The direct form's gradient (its costate sweep) against central differences. */
Test(keyframes, direct_gradient_against_central_differences)
{
    for (size_t q = 0; q < SMALL_PLANS; ++q) {
        sp_problem pb;
        parse(small_plans[q], &pb);
        const double sigma = pb.cubic.sigma > 0.0 ? pb.cubic.sigma : 0.05;
        sp_direct *d = sp_direct_alloc(&pb, sigma);
        cr_assert_not_null(d);
        const int n = sp_direct_dim(d);
        double *x = malloc((size_t)n * sizeof *x), *g = malloc((size_t)n * sizeof *g), J, Jp, Jm;
        cr_assert_eq(sp_direct_start(d, SP_START_GEODESIC, x), SP_OK);
        for (int i = 0; i < n; ++i) x[i] += 0.2 * cos(0.9 * i);
        cr_assert_eq(sp_direct_cost(d, x, &J, g), SP_OK);
        double worst = 0.0, gmax = 0.0;
        for (int i = 0; i < n; ++i) {
            const double eps = 1e-6, xi = x[i];
            x[i] = xi + eps;
            sp_direct_cost(d, x, &Jp, NULL);
            x[i] = xi - eps;
            sp_direct_cost(d, x, &Jm, NULL);
            x[i] = xi;
            worst = fmax(worst, fabs((Jp - Jm) / (2.0 * eps) - g[i]));
            gmax = fmax(gmax, fabs(g[i]));
        }
        cr_expect_leq(worst, 1e-7 * gmax, "plan %zu: gradient off by %.2e of %.2e", q, worst, gmax);
        free(x), free(g);
        sp_direct_free(d);
        sp_problem_free(&pb);
    }
}

/* ------------------------------------------------------- the optimum itself -- */

/* On the bundled instance (four sphere keyframes), the default, the direct form and
 * single shooting reach one optimum, J* = 2.06590801846492 of the independent Python
 * implementation, and the default's optimality residual is at round-off. */
Test(keyframes, every_method_reaches_the_single_shooting_optimum)
{
    char *doc = read_text(SP_TEST_DATA "/sphere_interpolation.json");
    static const char *const methods[] = {"multiple_shooting", "direct", "single_shooting"};
    double cost[3];
    for (int m = 0; m < 3; ++m) {
        char field[64];
        snprintf(field, sizeof field, "\"method\": \"%s\"", methods[m]);
        char *text = with_fields(doc, field);
        cJSON *res = solve_text(text);
        cr_expect_str_eq(string(res, "status"), "converged", "%s", methods[m]);
        cost[m] = number(res, "cost");
        if (m == 0) cr_expect_leq(number(res, "optimality_residual"), 1e-10);
        cJSON_Delete(res);
        free(text);
    }
    for (int m = 0; m < 3; ++m)
        cr_expect_leq(fabs(cost[m] - 2.06590801846492), 1e-10 * 2.066, "%s: %.15g", methods[m], cost[m]);
    free(doc);
}

/* The best costs of tests/keyframes/best.json (L-BFGS from zero, geodesic and spline
 * starts), reached from nothing but the keyframes; exact interpolation within 1e-10. */
Test(keyframes, published_schedules_reach_their_best_costs)
{
    static const struct {
        const char *name;
        double best, tol;
    } cases[] = {{"so3_8", 7.66197, 1e-6},
                 {"so3_16", 20.9331, 1e-6},
                 {"sphere_8", 2.13678, 1e-6},
                 {"so3_8_exact_free", 6.76964, 1e-5}};
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; ++q) {
        char path[512];
        snprintf(path, sizeof path, KEYFRAMES "%s.json", cases[q].name);
        char *doc = read_text(path);
        cJSON *res = solve_text(doc);
        cr_expect_str_eq(string(res, "status"), "converged", "%s", cases[q].name);
        double cost = number(res, "cost");
        /* the published figures carry six digits: allow half a unit of the sixth */
        double allowed = cases[q].tol * cases[q].best + 0.5e-5 * pow(10.0, floor(log10(cases[q].best)));
        cr_expect_leq(fabs(cost - cases[q].best), allowed, "%s: cost %.10g, best known %.6g", cases[q].name, cost,
                      cases[q].best);
        if (strstr(cases[q].name, "exact"))
            cr_expect_leq(worst_miss(res), 1e-10, "%s: misses %.2e", cases[q].name, worst_miss(res));
        cr_expect_leq(number(cJSON_GetObjectItem(res, "diagnostics"), "momentum_map_drift"), 1e-12);
        cJSON_Delete(res);
        free(doc);
    }
}

/* A random schedule against the independent reference: converged, optimality residual
 * within the tolerance, and a cost no higher than the lowest of L-BFGS from zero, from
 * geodesics and from a spline (relative `tol`; for σ = 0 the reference's running cost at
 * σ = 1e-4). */
static void against_reference(unsigned long seed, int n, double sigma, int ends, double tol)
{
    kf_schedule s;
    kf_random_schedule(seed, 0, n, 0.7, 20, sigma, &s);
    if (ends == 1) s.xi0_free = 1;
    if (ends == 2) {
        s.has_xiT = 1;
        for (int c = 0; c < 3; ++c) s.xi0[c] = s.xiT[c] = 0.0;
    }
    kf_reference ref;
    cr_assert_eq(kf_reference_solve(&s, &ref), 0);
    char *doc = kf_schedule_json(&s);
    cJSON *res = solve_text(doc);
    const char *what = ends == 1 ? "free ends" : ends == 2 ? "rest to rest" : "prescribed start";
    cr_expect_str_eq(string(res, "status"), "converged", "seed %lu (%s, sigma %g)", seed, what, sigma);
    cr_expect_leq(number(res, "optimality_residual"), 1e-10);
    double ours = sigma > 0.0 ? number(res, "cost") : number(res, "running_cost");
    cr_expect_leq(
        ours, ref.best * (1.0 + tol),
        "seed %lu (%s, sigma %g): %.10g against the reference's %.10g (zero %.6g, geodesic %.6g, spline %.6g)", seed,
        what, sigma, ours, ref.best, ref.cost[KF_START_ZERO], ref.cost[KF_START_GEODESIC], ref.cost[KF_START_SPLINE]);
    if (sigma == 0.0) cr_expect_leq(worst_miss(res), 1e-10, "seed %lu: misses %.2e", seed, worst_miss(res));
    if (ends == 2) {
        const cJSON *v = cJSON_GetObjectItem(res, "final_velocity");
        for (int c = 0; c < 3; ++c) cr_expect_leq(fabs(cJSON_GetArrayItem(v, c)->valuedouble), 1e-12);
    }
    cJSON_Delete(res);
    free(doc);
    kf_reference_free(&ref);
    kf_schedule_free(&s);
}

Test(keyframes, random_50_keyframes_reach_the_lowest_cost, .timeout = 600)
{
    against_reference(101, 50, 0.05, 0, 1e-6);
    against_reference(102, 50, 0.05, 0, 1e-6);
    against_reference(103, 50, 0.05, 2, 1e-6);
}

Test(keyframes, random_50_exact_keyframes_free_ends_reach_the_lowest_cost, .timeout = 600)
{
    against_reference(201, 50, 0.0, 1, 1e-5);
}

Test(keyframes, random_50_exact_keyframes_rest_to_rest_reach_the_lowest_cost, .timeout = 600)
{
    against_reference(301, 50, 0.0, 2, 1e-5);
}

/* scipy's RotationSpline through the start and the keyframes: ½∫|ω̇|², or −1 when
 * python3 with scipy is not there. Its output file is named by this process, as tests
 * run side by side. */
static double rotation_spline_cost(const cJSON *problem)
{
    char cmd[1024], out[512];
    snprintf(out, sizeof out, "%s/rotation_spline-%ld.out", SP_TEST_TMP, (long)getpid());
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s > %s", ROTATION_SPLINE, out);
    cJSON *in = cJSON_CreateObject();
    cJSON *t = cJSON_AddArrayToObject(in, "t"), *R = cJSON_AddArrayToObject(in, "R");
    cJSON_AddItemToArray(t, cJSON_CreateNumber(0.0));
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    cJSON_AddItemToArray(R, cJSON_CreateDoubleArray(identity, 9));
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(problem, "targets"))
    {
        cJSON_AddItemToArray(t, cJSON_CreateNumber(number(k, "t")));
        double m[9];
        const cJSON *row;
        int i = 0;
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(k, "R"))
        {
            for (int j = 0; j < 3; ++j) m[3 * i + j] = cJSON_GetArrayItem(row, j)->valuedouble;
            ++i;
        }
        cJSON_AddItemToArray(R, cJSON_CreateDoubleArray(m, 9));
    }
    char *text = cJSON_PrintUnformatted(in);
    cJSON_Delete(in);
    FILE *p = popen(cmd, "w");
    cr_assert_not_null(p);
    fputs(text, p);
    free(text);
    int rc = pclose(p);
    if (rc != 0) {
        remove(out);
        return -1.0;
    }
    char *s = read_text(out);
    double v = atof(s);
    free(s);
    remove(out);
    return v;
}

/* With free ends and exact interpolation the plan minimises the functional that scipy's
 * RotationSpline only approximates: its cost is no higher than RotationSpline's. */
Test(keyframes, natural_exact_curves_cost_no_more_than_rotation_spline, .timeout = 300)
{
    static const unsigned long seeds[] = {7, 8};
    for (int q = 0; q < 3; ++q) {
        char *doc;
        if (q == 0) {
            doc = read_text(KEYFRAMES "so3_8_exact_free.json");
        } else {
            kf_schedule s;
            kf_random_schedule(seeds[q - 1], 0, 8 + 8 * q, 0.7, 20, 0.0, &s);
            s.xi0_free = 1;
            doc = kf_schedule_json(&s);
            kf_schedule_free(&s);
        }
        cJSON *problem = cJSON_Parse(doc);
        double spline = rotation_spline_cost(problem);
        cr_assert_geq(spline, 0.0, "python3 with scipy is needed (apt-get install python3-scipy)");
        cJSON *res = solve_text(doc);
        cr_expect_str_eq(string(res, "status"), "converged");
        double ours = number(res, "running_cost");
        cr_expect_leq(ours, spline, "case %d: %.8g against RotationSpline's %.8g", q, ours, spline);
        cr_expect_leq(worst_miss(res), 1e-10);
        cr_log_info("case %d: %.8g against RotationSpline's %.8g (%.2f %% lower)", q, ours, spline,
                    100.0 * (1.0 - ours / spline));
        cJSON_Delete(res);
        cJSON_Delete(problem);
        free(doc);
    }
}

/* A plan without steps whose Newton iteration stalls falls back on the direct form on the
 * grid the plan chose (it once sized the direct form by the file's steps, 0 here, and
 * wrote past its arrays). */
Test(keyframes, plan_without_steps_falls_back_on_its_own_grid)
{
    const char *doc =
        "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 4, \"xi0\": \"free\","
        " \"sigma\": 0, \"max_iterations\": 1, \"targets\": [{\"t\": 1, \"q\": [0.92, -0.2, -0.33, -0.06]},"
        " {\"t\": 2, \"q\": [0.99, -0.05, 0.03, -0.05]}, {\"t\": 3, \"q\": [0.93, -0.23, -0.2, 0.21]},"
        " {\"t\": 4, \"q\": [0.71, -0.66, -0.14, -0.19]}]}";
    cJSON *res = solve_text(doc);
    cr_expect_str_neq(string(res, "status"), "converged");
    const cJSON *start = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "starts"), 0);
    cr_expect_gt(number(start, "direct_evaluations"), 0.0, "the direct form ran");
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_expect_eq(cJSON_GetArraySize(t), (int)number(cJSON_GetObjectItem(res, "settings"), "steps") + 1);
    cJSON_Delete(res);
}

/* The discrete optimum of a plan on R³ (exact interpolation, rest to rest: a clamped
 * cubic spline) converges at order 2 in h, as the scheme does. */
Test(keyframes, euclidean_plan_converges_at_order_two)
{
    double J[3];
    for (int r = 0; r < 3; ++r) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R3\", \"T\": 4, \"steps\": %d,"
                 " \"xi0\": [0, 0, 0], \"xiT\": [0, 0, 0], \"sigma\": 0, \"targets\": [{\"t\": 1, \"x\": [1, 0, 0]},"
                 " {\"t\": 2, \"x\": [1, 1, 0]}, {\"t\": 3, \"x\": [0, 1, 1]}, {\"t\": 4, \"x\": [0, 0, 0]}]}",
                 40 << r);
        cJSON *res = solve_text(doc);
        cr_expect_str_eq(string(res, "status"), "converged");
        J[r] = number(res, "cost");
        cJSON_Delete(res);
    }
    /* the clamped cubic spline through these points has ½∫|ẍ|² = 135/7; the discrete
     * costs approach it at order 2, and their Richardson extrapolation to far better */
    double order = log2((J[0] - J[1]) / (J[1] - J[2]));
    cr_expect(fabs(order - 2.0) < 0.05, "order %.3f (costs %.10g %.10g %.10g)", order, J[0], J[1], J[2]);
    double extrapolated = J[2] + (J[2] - J[1]) / 3.0;
    cr_expect_leq(fabs(extrapolated - 135.0 / 7.0), 1e-4, "%.10g against %.10g", extrapolated, 135.0 / 7.0);
}

/* A pose plan is its orientation plan and its position plan side by side. */
Test(keyframes, pose_plan_is_orientation_and_position_side_by_side)
{
    const char *pose =
        "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3xR3\", \"T\": 3, \"steps\": 60,"
        " \"xi0\": [0.1, 0, 0, 0.5, 0, 0], \"sigma\": 0.1, \"x0\": [0, 0, 1], \"normalize\": true,"
        " \"targets\": [{\"t\": 1, \"q\": [0.9, 0.1, 0.3, 0], \"x\": [1, 0, 1]}, {\"t\": 2, \"q\": [0.7, 0.5, 0.2,"
        " 0.1], \"x\": [1, 1, 1]}, {\"t\": 3, \"q\": [0.5, 0.5, -0.5, 0.5], \"x\": [0, 1, 2]}]}";
    const char *rot = "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\", \"T\": 3, \"steps\": 60,"
                      " \"xi0\": [0.1, 0, 0], \"sigma\": 0.1, \"normalize\": true, \"targets\": [{\"t\": 1, \"q\": [0.9, 0.1, 0.3, 0]},"
                      " {\"t\": 2, \"q\": [-0.7, -0.5, -0.2, -0.1]}, {\"t\": 3, \"q\": [0.5, 0.5, -0.5, 0.5]}]}";
    const char *pos = "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R3\", \"T\": 3, \"steps\": 60,"
                      " \"xi0\": [0.5, 0, 0], \"g0\": [0, 0, 1], \"sigma\": 0.1, \"targets\": [{\"t\": 1, \"x\": [1, 0,"
                      " 1]}, {\"t\": 2, \"x\": [1, 1, 1]}, {\"t\": 3, \"x\": [0, 1, 2]}]}";
    cJSON *a = solve_text(pose), *b = solve_text(rot), *c = solve_text(pos);
    cr_expect_str_eq(string(a, "status"), "converged");
    cr_expect_str_eq(string(b, "status"), "converged");
    cr_expect_str_eq(string(c, "status"), "converged");
    /* −q in the orientation plan is the same orientation */
    cr_expect_leq(fabs(number(a, "cost") - number(b, "cost") - number(c, "cost")), 1e-10 * number(a, "cost"));
    const cJSON *tr = cJSON_GetObjectItem(a, "trajectory");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(tr, "xi"), 0)), 6);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(tr, "x"), 0)), 3);
    const cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "targets"), 2);
    cr_expect_leq(fabs(number(k0, "position_distance") -
                       number(cJSON_GetArrayItem(cJSON_GetObjectItem(c, "targets"), 2), "distance")),
                  1e-12);
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(c);
}

/* Quaternion output: unit quaternions that are the orientations written as matrices,
 * the first with w ≥ 0 and each one on the side of the one before; record_every keeps
 * every k-th row, the keyframes and the end. */
Test(keyframes, quaternion_output_and_record_every)
{
    char *doc = read_text(KEYFRAMES "so3_8.json");
    char *quat = with_fields(doc, "\"output\": {\"orientation\": \"quaternion\"}, \"record_every\": 7");
    cJSON *m = solve_text(doc), *q = solve_text(quat);
    const cJSON *tm = cJSON_GetObjectItem(m, "trajectory"), *tq = cJSON_GetObjectItem(q, "trajectory");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(tm, "t")), 161);
    const cJSON *times = cJSON_GetObjectItem(tq, "t"), *rows = cJSON_GetObjectItem(tq, "quaternion");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(times));
    cr_expect_eq(cJSON_GetArraySize(times), 160 / 7 + 1 + 8 - 1, "rows %d",
                 cJSON_GetArraySize(times)); /* t = 7 is k = 140 */
    const cJSON *t, *row = cJSON_GetArrayItem(rows, 0);
    double before[4] = {1, 0, 0, 0}; /* the first row has w ≥ 0 */
    cJSON_ArrayForEach(t, times)
    {
        double w = cJSON_GetArrayItem(row, 0)->valuedouble, x = cJSON_GetArrayItem(row, 1)->valuedouble,
               y = cJSON_GetArrayItem(row, 2)->valuedouble, z = cJSON_GetArrayItem(row, 3)->valuedouble;
        cr_expect_leq(fabs(w * w + x * x + y * y + z * z - 1.0), 1e-14);
        cr_expect_gt(w * before[0] + x * before[1] + y * before[2] + z * before[3], 0.0, "t = %g: a sign flip",
                     t->valuedouble);
        before[0] = w, before[1] = x, before[2] = y, before[3] = z;
        /* the matrix row at the same time (every row of the full trajectory is at k·h) */
        int k = (int)lround(t->valuedouble / 0.05);
        const cJSON *mr = cJSON_GetArrayItem(cJSON_GetObjectItem(tm, "q"), k);
        double R[9];
        for (int i = 0; i < 9; ++i) R[i] = cJSON_GetArrayItem(mr, i)->valuedouble;
        cr_expect_leq(fabs(R[1] - 2 * (x * y - w * z)), 1e-14);
        cr_expect_leq(fabs(R[5] - 2 * (y * z - w * x)), 1e-14);
        cr_expect_leq(fabs(R[8] - (1 - 2 * (x * x + y * y))), 1e-14);
        row = row->next;
    }
    cJSON_Delete(m), cJSON_Delete(q);
    free(doc), free(quat);
}

/* ------------------------------------------------------ curves read at any time -- */

static void matrix_at(const cJSON *rows, int k, double *R)
{
    const cJSON *m = cJSON_GetArrayItem(rows, k);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) R[3 * i + j] = cJSON_GetArrayItem(cJSON_GetArrayItem(m, i), j)->valuedouble;
}

static void vector_at(const cJSON *rows, int k, int n, double *v)
{
    for (int j = 0; j < n; ++j) v[j] = cJSON_GetArrayItem(cJSON_GetArrayItem(rows, k), j)->valuedouble;
}

/* The body rotation vector log(Aᵀ B). */
static void relative_log(const double *A, const double *B, double *x)
{
    double At[9], X[9];
    sp_mat_transpose(3, A, At);
    sp_mat_mul(3, 3, 3, At, B, X);
    cr_assert_eq(sp_group_so3->log(sp_group_so3, X, x), SP_OK);
}

/* The rotation angle between the sampled orientations k of two results. */
static double orientations_apart(const cJSON *Ra, const cJSON *Rb, int k, const void *ctx)
{
    (void)ctx;
    double A[9], B[9], x[3];
    matrix_at(Ra, k, A), matrix_at(Rb, k, B);
    relative_log(A, B, x);
    return sp_vec_norm(3, x);
}

/* The largest rotation angle between the sampled orientations of two results. */
static double samples_apart(const cJSON *a, const cJSON *b)
{
    return samples_worst(a, b, "R", orientations_apart, NULL);
}

/* Samples of a plan of 20 keyframes: through the keyframes, ω against central
 * differences of the sampled orientations and ω̇ against those of ω (both
 * Richardson-extrapolated from steps 1e-3 and 5e-4), and the energy ½∫|ω̇|² by
 * Gauss–Legendre quadrature of the samples (20 points an interval) against the solver's own running cost and
 * against scipy's RotationSpline through the same keyframes. */
static void check_samples(double accuracy)
{
    enum { N = 20 };
    /* sample times: the keyframes; five Gauss points per interval; t ± h, t ± h/2 at 7
     * probe times */
    static const double gauss[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                                    0.9061798459386640};
    static const double weight[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                                     0.2369268850561891};
    const double h = 1e-3;
    cJSON *times = cJSON_CreateArray();
    for (int i = 0; i <= N; ++i) cJSON_AddItemToArray(times, cJSON_CreateNumber(i));
    /* Gauss–Legendre with 5 points on each quarter of an interval */
    for (int i = 0; i < 4 * N; ++i)
        for (int q = 0; q < 5; ++q) cJSON_AddItemToArray(times, cJSON_CreateNumber(0.25 * (i + 0.5 + 0.5 * gauss[q])));
    double probes[7];
    for (int k = 0; k < 7; ++k) {
        probes[k] = 1.3 + 2.65 * k; /* away from keyframes, where ω̈ jumps */
        const double offsets[5] = {-h, -h / 2, 0, h / 2, h};
        for (int q = 0; q < 5; ++q) cJSON_AddItemToArray(times, cJSON_CreateNumber(probes[k] + offsets[q]));
    }
    cJSON *output = cJSON_CreateObject();
    cJSON_AddItemToObject(output, "sample_times", times);
    char *out_text = cJSON_PrintUnformatted(output);
    cJSON_Delete(output);
    char *plain = default_plan_doc(11, N, out_text), extra[64];
    free(out_text);
    snprintf(extra, sizeof extra, "\"accuracy\": %g", accuracy);
    char *doc = with_fields(plain, extra);
    free(plain);
    cJSON *problem = cJSON_Parse(doc);
    cJSON *res = solve_text(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const cJSON *samples = cJSON_GetObjectItem(res, "samples");
    const cJSON *R = cJSON_GetObjectItem(samples, "R"), *w = cJSON_GetObjectItem(samples, "omega"),
                *wd = cJSON_GetObjectItem(samples, "omega_dot");
    cr_assert_eq(cJSON_GetArraySize(R), (N + 1) + 20 * N + 35);

    /* through the keyframes */
    double worst_key = 0.0;
    int i = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(problem, "targets"))
    {
        double target[9], g[9], x[3];
        const cJSON *row;
        int r = 0;
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(k, "R"))
        {
            for (int j = 0; j < 3; ++j) target[3 * r + j] = cJSON_GetArrayItem(row, j)->valuedouble;
            ++r;
        }
        matrix_at(R, ++i, g);
        relative_log(target, g, x);
        worst_key = fmax(worst_key, sp_vec_norm(3, x));
    }
    cr_expect_leq(worst_key, 1e-9, "samples at the keyframes miss them by %.2e rad", worst_key);

    /* derivatives against central differences */
    double worst_w = 0.0, worst_wd = 0.0;
    for (int p = 0; p < 7; ++p) {
        const int base = (N + 1) + 20 * N + 5 * p;
        double Rm[9], Rmh[9], Rph[9], Rp[9], d1[3], d2[3], w0[3], wm[3], wmh[3], wph[3], wp[3], wd0[3];
        matrix_at(R, base, Rm), matrix_at(R, base + 1, Rmh), matrix_at(R, base + 3, Rph), matrix_at(R, base + 4, Rp);
        vector_at(w, base + 2, 3, w0), vector_at(wd, base + 2, 3, wd0);
        vector_at(w, base, 3, wm), vector_at(w, base + 1, 3, wmh), vector_at(w, base + 3, 3, wph),
            vector_at(w, base + 4, 3, wp);
        relative_log(Rm, Rp, d1);  /* ≈ 2h ω (body frame at the midpoint, to O(h²)) */
        relative_log(Rmh, Rph, d2); /* ≈ h ω */
        for (int r = 0; r < 3; ++r) {
            const double fd = (4.0 * d2[r] / h - d1[r] / (2 * h)) / 3.0;
            const double fdd = (4.0 * (wph[r] - wmh[r]) / h - (wp[r] - wm[r]) / (2 * h)) / 3.0;
            worst_w = fmax(worst_w, fabs(fd - w0[r]));
            worst_wd = fmax(worst_wd, fabs(fdd - wd0[r]));
        }
    }
    /* the curve is accurate to `accuracy`, its derivatives to about as much per unit time */
    cr_expect_leq(worst_w, accuracy, "ω against differences of the orientations: %.2e", worst_w);
    cr_expect_leq(worst_wd, 10 * accuracy, "ω̇ against differences of ω: %.2e", worst_wd);

    /* energy */
    double energy = 0.0;
    for (int iv = 0; iv < 4 * N; ++iv)
        for (int q = 0; q < 5; ++q) {
            double a[3];
            vector_at(wd, N + 1 + 5 * iv + q, 3, a);
            energy += 0.125 * weight[q] * 0.5 * sp_vec_dot(3, a, a);
        }
    const double solver = number(res, "running_cost");
    cr_expect_leq(fabs(energy - solver), accuracy * solver, "energy of the samples %.12g, the solver's %.12g", energy,
                  solver);
    const double spline = rotation_spline_cost(problem);
    cr_assert_geq(spline, 0.0, "python3 with scipy is needed (apt-get install python3-scipy)");
    cr_expect_lt(energy, spline, "energy %.10g against RotationSpline's %.10g", energy, spline);
    cr_log_info("20 keyframes, accuracy %.0e: energy %.10g (solver %.10g), RotationSpline %.10g; ω %.1e, ω̇ %.1e "
                "off differences",
                accuracy, energy, solver, spline, worst_w, worst_wd);
    cJSON_Delete(res);
    cJSON_Delete(problem);
    free(doc);
}

Test(keyframes, samples_follow_the_curve_and_its_derivatives, .timeout = 300)
{
    check_samples(1e-6);
    check_samples(1e-10);
}

/* The grid the planner picks meets the accuracy it is asked for: the curve against one
 * solved on a grid of 16 order-8 steps per interval, at 200 times. */
static void check_accuracy(unsigned long seed, int n, double accuracy)
{
    char output[128];
    snprintf(output, sizeof output, "{\"sample_rate\": %g}", 200.0 / n);
    char *doc = default_plan_doc(seed, n, output);
    char extra[64];
    snprintf(extra, sizeof extra, "\"accuracy\": %g", accuracy);
    char *asked = with_fields(doc, extra);
    char fine_fields[64];
    snprintf(fine_fields, sizeof fine_fields, "\"steps\": %d, \"scheme\": \"hohp_rkmk8\"", 16 * n);
    char *fine_doc = with_fields(doc, fine_fields);
    cJSON *a = solve_text(asked), *b = solve_text(fine_doc);
    cr_assert_str_eq(string(a, "status"), "converged");
    cr_assert_str_eq(string(b, "status"), "converged");
    const double worst = samples_apart(a, b);
    const cJSON *resolution = cJSON_GetObjectItem(a, "resolution");
    const double estimate = number(resolution, "error_estimate");
    cr_expect_leq(worst, accuracy, "%d keyframes: %.2e rad from the fine curve, asked %.0e", n, worst, accuracy);
    cr_expect_leq(worst, fmax(estimate, 1e-12), "%d keyframes: %.2e rad from the fine curve, estimated %.2e", n, worst,
                  estimate);
    cr_log_info("%d keyframes, accuracy %.0e: %d steps, estimate %.2e, actual %.2e", n, accuracy,
                (int)number(resolution, "steps"), estimate, worst);
    cJSON_Delete(a), cJSON_Delete(b);
    free(doc), free(asked), free(fine_doc);
}

Test(keyframes, default_resolution_meets_its_accuracy, .timeout = 300)
{
    check_accuracy(21, 30, 1e-6);
    check_accuracy(22, 12, 1e-9);
    check_accuracy(23, 12, 1e-4);
}

/* On R³ the optimum through points with rest at both ends is the clamped cubic spline:
 * the samples, velocity and acceleration against its values computed here (second
 * derivatives M_i from the tridiagonal system of the clamped spline). */
Test(keyframes, euclidean_curve_is_the_clamped_cubic_spline)
{
    enum { N = 6 };
    const double t[N + 1] = {0, 0.7, 1.5, 2.1, 3.4, 4.0, 5.2};
    const double x[N + 1][3] = {{0, 0, 0},  {1, -0.5, 0.3}, {1.8, 0.4, -0.2}, {0.9, 1.6, 0.1},
                                {-0.4, 2.2, 1.0}, {0.3, 1.1, 0.6}, {1.1, 0.2, -0.4}};
    char doc[4096];
    int len = snprintf(doc, sizeof doc,
                       "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R3\", \"space\": \"group\","
                       " \"T\": %.17g, \"xi0\": [0, 0, 0], \"xiT\": [0, 0, 0], \"sigma\": 0, \"g0\": [0, 0, 0],"
                       " \"output\": {\"sample_rate\": 10}, \"targets\": [",
                       t[N]);
    for (int i = 1; i <= N; ++i)
        len += snprintf(doc + len, sizeof doc - (size_t)len, "%s{\"t\": %.17g, \"x\": [%.17g, %.17g, %.17g]}",
                        i > 1 ? ", " : "", t[i], x[i][0], x[i][1], x[i][2]);
    snprintf(doc + len, sizeof doc - (size_t)len, "]}");
    cJSON *res = solve_text(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const cJSON *s = cJSON_GetObjectItem(res, "samples");
    /* the clamped spline, coordinate by coordinate: A M = d with M the second derivatives */
    double M[3][N + 1];
    for (int c = 0; c < 3; ++c) {
        double A[(N + 1) * (N + 1)] = {0}, d[N + 1];
        for (int i = 0; i <= N; ++i) {
            const double hl = i > 0 ? t[i] - t[i - 1] : 0.0, hr = i < N ? t[i + 1] - t[i] : 0.0;
            const double sl = i > 0 ? (x[i][c] - x[i - 1][c]) / hl : 0.0, sr = i < N ? (x[i + 1][c] - x[i][c]) / hr : 0.0;
            if (i > 0) A[i * (N + 1) + i - 1] = hl;
            if (i < N) A[i * (N + 1) + i + 1] = hr;
            A[i * (N + 1) + i] = 2.0 * (hl + hr);
            d[i] = 6.0 * (sr - sl); /* clamped: zero end slopes */
        }
        dense_solve(N + 1, A, d);
        for (int i = 0; i <= N; ++i) M[c][i] = d[i];
    }
    double worst = 0.0;
    const cJSON *ts = cJSON_GetObjectItem(s, "t");
    for (int q = 0; q < cJSON_GetArraySize(ts); ++q) {
        const double tq = cJSON_GetArrayItem(ts, q)->valuedouble;
        int i = 0;
        while (i + 1 < N && tq > t[i + 1]) ++i;
        const double hh = t[i + 1] - t[i], a = (t[i + 1] - tq) / hh, b = (tq - t[i]) / hh;
        double xs[3], v[3], acc[3];
        vector_at(cJSON_GetObjectItem(s, "x"), q, 3, xs);
        vector_at(cJSON_GetObjectItem(s, "velocity"), q, 3, v);
        vector_at(cJSON_GetObjectItem(s, "acceleration"), q, 3, acc);
        for (int c = 0; c < 3; ++c) {
            const double m0 = M[c][i], m1 = M[c][i + 1];
            const double pos = a * x[i][c] + b * x[i + 1][c] + ((a * a * a - a) * m0 + (b * b * b - b) * m1) * hh * hh / 6;
            const double vel = (x[i + 1][c] - x[i][c]) / hh + ((1 - 3 * a * a) * m0 + (3 * b * b - 1) * m1) * hh / 6;
            const double ac = a * m0 + b * m1;
            worst = fmax(worst, fmax(fabs(pos - xs[c]), fmax(fabs(vel - v[c]), fabs(ac - acc[c]))));
        }
    }
    cr_expect_leq(worst, 1e-10, "samples against the clamped cubic spline: %.2e", worst);
    cJSON_Delete(res);
}

/* The condensed solver of exact interpolation (sp_exact.h, taken by plans without steps)
 * against the general multiple-shooting system on the very grid it chose: the same
 * discrete optimum, natural and prescribed ends. */
Test(keyframes, condensed_exact_solver_matches_the_general_system, .timeout = 120)
{
    for (int ends = 0; ends < 2; ++ends) {
        char *plain = default_plan_doc(31 + ends, 25, "{\"sample_rate\": 4}");
        char *doc = ends ? with_fields(plain, "\"xiT\": [0.1, -0.2, 0.3]") : with_fields(plain, "\"tolerance\": 1e-11");
        cJSON *a = solve_text(doc);
        cr_assert_str_eq(string(a, "status"), "converged");
        const int steps = (int)number(cJSON_GetObjectItem(a, "resolution"), "steps");
        cr_assert_eq(steps % 25, 0, "a random walk of even steps gets the same steps in every segment");
        char extra[96];
        snprintf(extra, sizeof extra, "\"steps\": %d, \"scheme\": \"hohp_rkmk8\"", steps);
        char *general_doc = with_fields(doc, extra);
        cJSON *b = solve_text(general_doc);
        cr_assert_str_eq(string(b, "status"), "converged");
        cr_expect_eq(cJSON_GetObjectItem(b, "resolution"), NULL, "a file with steps keeps them");
        const double ca = number(a, "running_cost"), cb = number(b, "running_cost");
        cr_expect_leq(fabs(ca - cb), 1e-10 * cb, "ends %d: condensed %.15g, general %.15g", ends, ca, cb);
        const double worst = samples_apart(a, b);
        cr_expect_leq(worst, 1e-9, "ends %d: curves %.2e rad apart", ends, worst);
        cJSON_Delete(a), cJSON_Delete(b);
        free(plain), free(doc), free(general_doc);
    }
}

/* At the size users work at: 200 keyframes, default settings. The curve converges through
 * the condensed solver, passes through every keyframe, reports an error estimate within
 * the accuracy, and its energy is below RotationSpline's through the same keyframes. */
Test(keyframes, two_hundred_keyframes_with_default_settings, .timeout = 300)
{
    char *doc = default_plan_doc(41, 200, NULL);
    cJSON *problem = cJSON_Parse(doc);
    cJSON *res = solve_text(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    cr_expect_leq(worst_miss(res), 1e-10);
    const cJSON *resolution = cJSON_GetObjectItem(res, "resolution");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(resolution, "reached")));
    cr_expect_leq(number(resolution, "error_estimate"), 1e-6);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "starts")), 1, "the condensed solver, one start");
    const double spline = rotation_spline_cost(problem);
    cr_assert_geq(spline, 0.0, "python3 with scipy is needed (apt-get install python3-scipy)");
    const double ours = number(res, "running_cost");
    cr_expect_lt(ours, spline, "200 keyframes: %.10g against RotationSpline's %.10g", ours, spline);
    cr_log_info("200 keyframes: %.10g against RotationSpline's %.10g (%.3f %% lower), %d steps, estimate %.2e", ours,
                spline, 100.0 * (1.0 - ours / spline), (int)number(resolution, "steps"),
                number(resolution, "error_estimate"));
    cJSON_Delete(res);
    cJSON_Delete(problem);
    free(doc);
}

/* A weighted sphere plan without steps: the general solver on the chosen grid, its estimate
 * reported, and a plan that did not converge says its error is unknown. */
Test(keyframes, resolution_of_weighted_sphere_plans)
{
    const char *doc = "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"y0\": [0, 0, 1],"
                      " \"T\": 3, \"xi0\": [0, 0, 0], \"sigma\": 0.05, \"targets\": [{\"t\": 1, \"y\": [0.5, 0, 0.8]},"
                      " {\"t\": 2, \"y\": [0.6, 0.6, 0.5]}, {\"t\": 3, \"y\": [0, 1, 0.2]}]}";
    cJSON *res = solve_text(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const cJSON *resolution = cJSON_GetObjectItem(res, "resolution");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(resolution, "reached")));
    cr_expect_leq(number(resolution, "error_estimate"), 1e-6);
    cJSON_Delete(res);
    char *stopped = with_fields(doc, "\"max_iterations\": 1");
    res = solve_text(stopped);
    cr_expect_str_neq(string(res, "status"), "converged");
    resolution = cJSON_GetObjectItem(res, "resolution");
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(resolution, "reached")));
    cr_expect_null(cJSON_GetObjectItem(resolution, "error_estimate"));
    cJSON_Delete(res);
    free(stopped);
}
