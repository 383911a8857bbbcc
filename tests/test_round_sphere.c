/* Sphere plans in the round metric ("metric": "round"): the Riemannian cubic of the unit
 * sphere through or near keyframes. A geodesic is planned at no cost; random walks converge
 * and pass their points; the sampled curve solves the Euler–Lagrange equation with ẏ and ∇ₜẏ
 * continuous at the keyframes; the cost is below that of the rotation metric's curve and
 * of a projected chordal spline through the same points, measured in the round metric;
 * the error estimate holds against a run ten times as accurate; an independent solve_bvp
 * reference (tests/round_sphere_reference.py) gives the same cost, exact and weighted, with
 * and without a tail; weighted plans tend to the exact one as σ → 0 and cost no more; the
 * free layout's Jacobian matches central differences; a free tail, a step count and rest
 * at T do what they say; bad input exits 2 naming its field; the solve times next to
 * orientation plans of the same size. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lie/sp_linalg.h"
#include "planner/cubic/sp_round.h"
#include "planner/sp_solve.h"
#include "tests/support.h"
#include "tests/keyframe_reference.h"
#include "tests/plan_support.h"

#define ROUND_REFERENCE SP_TEST_FUZZ "/../round_sphere_reference.py"

/* ------------------------------------------------------------------ helpers -- */

/* "output": sample times m + 1 to a segment (Simpson's nodes, 2·half intervals), every
 * segment of the knots. */
static char *simpson_output(const double *knots, int segments, int half)
{
    size_t cap = (size_t)segments * (2 * half + 1) * 26 + 64, n = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    n += (size_t)snprintf(out + n, cap - n, "\"output\": {\"sample_times\": [");
    for (int i = 0; i < segments; ++i)
        for (int k = 0; k <= 2 * half; ++k) {
            const double t = knots[i] + (knots[i + 1] - knots[i]) * k / (2.0 * half);
            n += (size_t)snprintf(out + n, cap - n, "%s%.17g", i || k ? ", " : "", t);
        }
    snprintf(out + n, cap - n, "]}");
    return out;
}

/* ½∫|∇ₜẏ|² of a result's samples taken by simpson_output: ∇ₜẏ is the tangential part of
 * the sampled acceleration ÿ. */
static double round_cost_of_samples(const cJSON *res, const double *knots, int segments, int half)
{
    const cJSON *s = cJSON_GetObjectItem(res, "samples");
    const cJSON *Y = cJSON_GetObjectItem(s, "y"), *A = cJSON_GetObjectItem(s, "acceleration");
    cr_assert_eq(cJSON_GetArraySize(Y), segments * (2 * half + 1));
    double total = 0.0;
    for (int i = 0, k0 = 0; i < segments; ++i, k0 += 2 * half + 1) {
        const double h = (knots[i + 1] - knots[i]) / (2.0 * half);
        for (int k = 0; k <= 2 * half; ++k) {
            double y[3], a[3];
            row3(Y, k0 + k, y);
            row3(A, k0 + k, a);
            const double n = sp_vec_dot(3, a, y);
            for (int q = 0; q < 3; ++q) a[q] -= n * y[q];
            const double w = k == 0 || k == 2 * half ? 1.0 : k % 2 ? 4.0 : 2.0;
            total += w * h / 3.0 * 0.5 * sp_vec_dot(3, a, a);
        }
    }
    return total;
}

static double angle(const double *a, const double *b)
{
    double c[3];
    sp_cross(a, b, c);
    return atan2(sp_vec_norm(3, c), sp_vec_dot(3, a, b));
}

/* The largest angle between the sampled points y of two results (the same sample times). */
static double samples_apart(const cJSON *a, const cJSON *b)
{
    const cJSON *ya = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "samples"), "y"),
                *yb = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "samples"), "y");
    cr_assert_eq(cJSON_GetArraySize(ya), cJSON_GetArraySize(yb));
    double dist = 0.0;
    for (int k = 0; k < cJSON_GetArraySize(ya); ++k) {
        double u[3], w[3];
        row3(ya, k, u), row3(yb, k, w);
        dist = fmax(dist, angle(u, w));
    }
    return dist;
}

/* ------------------------------------------------------------------- tests -- */

/* Points at equal steps along a great circle (tilted), passed at constant speed with
 * natural ends: the geodesic is a cubic of zero cost, and the plan finds it. */
Test(round_sphere, points_on_a_great_circle_give_the_geodesic)
{
    const double u[3] = {0.6, 0.0, 0.8}, w[3] = {0.0, 1.0, 0.0}, omega = 0.5;
    double nrm[3];
    sp_cross(u, w, nrm);
    kf_schedule s = {.sphere = 1, .T = 8.0, .n = 8};
    double t[8], y[24];
    s.t = t, s.y = y;
    sp_vec_copy(3, u, s.y0);
    for (int i = 0; i < 8; ++i) {
        t[i] = i + 1.0;
        for (int q = 0; q < 3; ++q) y[3 * i + q] = cos(omega * t[i]) * u[q] + sin(omega * t[i]) * w[q];
    }
    char *doc = sphere_doc(&s, "round", "\"output\": {\"sample_rate\": 10}");
    cJSON *res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    cr_expect_leq(number(res, "cost"), 1e-14, "cost %g", number(res, "cost"));
    cr_expect_leq(worst_miss(res), 1e-10);
    const cJSON *smp = cJSON_GetObjectItem(res, "samples");
    const cJSON *Y = cJSON_GetObjectItem(smp, "y"), *V = cJSON_GetObjectItem(smp, "velocity");
    const int m = cJSON_GetArraySize(Y);
    cr_assert_eq(m, 81);
    for (int k = 0; k < m; ++k) {
        double yk[3], vk[3], expect[3];
        const double tk = cJSON_GetArrayItem(cJSON_GetObjectItem(smp, "t"), k)->valuedouble;
        row3(Y, k, yk), row3(V, k, vk);
        for (int q = 0; q < 3; ++q) expect[q] = cos(omega * tk) * u[q] + sin(omega * tk) * w[q];
        cr_expect_leq(fabs(sp_vec_dot(3, yk, nrm)), 1e-9, "off the circle at t = %g", tk);
        cr_expect_leq(sp_vec_dist(3, yk, expect), 1e-8, "not at the circle's point at t = %g", tk);
        cr_expect_leq(fabs(sp_vec_norm(3, vk) - omega), 1e-8, "speed %g at t = %g", sp_vec_norm(3, vk), tk);
    }
    cJSON_Delete(res);
    cJSON_free(doc);
}

/* Random walks of three sizes, points 0.6 rad apart, natural ends, at σ: converged to the
 * tolerance, the accuracy reached, and at σ = 0 every point passed to 1e-10. */
static void random_walks(const int *sizes, unsigned long seed, double sigma)
{
    for (int q = 0; q < 3; ++q) {
        kf_schedule s;
        kf_random_schedule(seed + q, 1, sizes[q], 0.6, 10, sigma, &s);
        cr_assert_not_null(s.t);
        char *doc = sphere_doc(&s, "round", NULL);
        cJSON *res = solve_doc(doc);
        cr_expect_str_eq(string(res, "status"), "converged", "%d points", sizes[q]);
        cr_expect_leq(number(res, "optimality_residual"), 1e-10, "%d points", sizes[q]);
        if (sigma == 0.0) cr_expect_leq(worst_miss(res), 1e-10, "%d points: miss %g", sizes[q], worst_miss(res));
        const cJSON *r = cJSON_GetObjectItem(res, "resolution");
        cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(r, "reached")), "%d points", sizes[q]);
        cr_expect_leq(number(r, "error_estimate"), 1e-6);
        cr_log_info("%d points at sigma %g: cost %.10g (targets %.4g), largest miss %.3g, residual %.2g, %g steps, "
                    "%g Newton iterations, %.3f ms",
                    sizes[q], sigma, number(res, "cost"), number(res, "target_cost"), worst_miss(res),
                    number(res, "optimality_residual"), number(r, "steps"), number(res, "iterations"),
                    1e3 * number(cJSON_GetObjectItem(res, "timing"), "solve_seconds"));
        cJSON_Delete(res);
        cJSON_free(doc);
        kf_schedule_free(&s);
    }
}

/* Exact walks of 10, 30 and 60 points pass them; weighted ones (σ = 0.05) of 30, 60 and 100
 * points converge as well. */
Test(round_sphere, random_walks_converge_exact_and_weighted, .timeout = 120)
{
    static const int exact[] = {10, 30, 60}, weighted[] = {30, 60, 100};
    random_walks(exact, 40, 0.0);
    random_walks(weighted, 220, 0.05);
}

/* The sampled curve solves the Euler–Lagrange equation: with a = ∇ₜẏ (the tangential part
 * of ÿ) the equation ∇ₜ³ẏ + |ẏ|²∇ₜẏ − ⟨∇ₜẏ, ẏ⟩ẏ = 0 reads P(ä) + |ẏ|² a = 0 (P the
 * projection onto the tangent plane: ∇ₜ²a = P(ä) + ⟨a, ẏ⟩ẏ), checked by a five-point
 * second difference inside every segment. ẏ and ∇ₜẏ are continuous at the keyframes,
 * ∇ₜ²ẏ jumps there (the kicks). */
Test(round_sphere, samples_solve_the_euler_lagrange_equation, .timeout = 60)
{
    kf_schedule s;
    kf_random_schedule(11, 1, 8, 0.6, 10, 0.0, &s);
    cr_assert_not_null(s.t);
    double knots[9];
    knots_of(&s, knots);
    const double d = 0.01, eps = 1e-9;
    /* per segment: its quarter points ± 2d (five each), then t ± eps at every interior knot */
    char out[1 << 15];
    size_t n = (size_t)snprintf(out, sizeof out, "\"accuracy\": 1e-10, \"output\": {\"sample_times\": [");
    for (int i = 0, first = 1; i < 8; ++i)
        for (int q = 1; q <= 3; ++q)
            for (int k = -2; k <= 2; ++k, first = 0)
                n += (size_t)snprintf(out + n, sizeof out - n, "%s%.17g", first ? "" : ", ",
                                      knots[i] + 0.25 * q * (knots[i + 1] - knots[i]) + k * d);
    for (int i = 1; i < 8; ++i)
        n += (size_t)snprintf(out + n, sizeof out - n, ", %.17g, %.17g", knots[i] - eps, knots[i] + eps);
    snprintf(out + n, sizeof out - n, "]}");
    char *doc = sphere_doc(&s, "round", out);
    cJSON *res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const cJSON *smp = cJSON_GetObjectItem(res, "samples");
    const cJSON *Y = cJSON_GetObjectItem(smp, "y"), *V = cJSON_GetObjectItem(smp, "velocity"),
                *A = cJSON_GetObjectItem(smp, "acceleration");
    double worst = 0.0;
    for (int g = 0; g < 8 * 3; ++g) {
        double a[5][3], y[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int k = 0; k < 5; ++k) {
            double yk[3], vk[3], ak[3];
            row3(Y, 5 * g + k, yk), row3(V, 5 * g + k, vk), row3(A, 5 * g + k, ak);
            const double vv = sp_vec_dot(3, vk, vk);
            for (int q = 0; q < 3; ++q) a[k][q] = ak[q] + vv * yk[q]; /* ÿ = a − |ẏ|² y */
            if (k == 2) sp_vec_copy(3, yk, y), sp_vec_copy(3, vk, v);
        }
        double r[3];
        for (int q = 0; q < 3; ++q)
            r[q] = (-a[0][q] + 16.0 * a[1][q] - 30.0 * a[2][q] + 16.0 * a[3][q] - a[4][q]) / (12.0 * d * d);
        const double rn = sp_vec_dot(3, r, y), vv = sp_vec_dot(3, v, v);
        for (int q = 0; q < 3; ++q) r[q] += -rn * y[q] + vv * a[2][q];
        const double scale = fmax(1.0, vv * sp_vec_norm(3, a[2]));
        worst = fmax(worst, sp_vec_norm(3, r) / scale);
    }
    cr_expect_leq(worst, 1e-6, "Euler–Lagrange residual %g", worst);
    cr_log_info("Euler–Lagrange residual of the samples: %.2g", worst);
    double jump_v = 0.0, jump_a = 0.0;
    for (int i = 0; i < 7; ++i) {
        const int k = 8 * 3 * 5 + 2 * i;
        double v0[3], v1[3], a0[3], a1[3], y0[3], y1[3];
        row3(Y, k, y0), row3(Y, k + 1, y1), row3(V, k, v0), row3(V, k + 1, v1), row3(A, k, a0), row3(A, k + 1, a1);
        jump_v = fmax(jump_v, sp_vec_dist(3, v0, v1));
        jump_a = fmax(jump_a, sp_vec_dist(3, a0, a1));
    }
    cr_expect_leq(jump_v, 1e-7, "velocity jumps by %g at a keyframe", jump_v);
    cr_expect_leq(jump_a, 1e-7, "covariant acceleration jumps by %g at a keyframe", jump_a);
    double kicks = 0.0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(res, "kicks"))
    {
        const cJSON *kv = cJSON_GetObjectItem(k, "kick");
        double s2 = 0.0;
        for (int q = 0; q < 3; ++q) s2 += pow(cJSON_GetArrayItem(kv, q)->valuedouble, 2);
        kicks = fmax(kicks, sqrt(s2));
    }
    cr_expect_gt(kicks, 1e-3, "the third derivative should jump at keyframes (largest kick %g)", kicks);
    cJSON_Delete(res);
    cJSON_free(doc);
    kf_schedule_free(&s);
}

/* The natural cubic spline of R³ through the points (the start and the schedule's),
 * projected onto the sphere, y = s/|s|: a C² curve through them; its ½∫|∇ₜẏ|² by Simpson
 * with the acceleration from central differences of y. */
static double projected_spline_cost(const kf_schedule *s, const double *knots)
{
    const int K = s->n, n = K + 1;
    double P[64][3], M[64][3] = {{0}}, dd[64][3] = {{0}};
    cr_assert_leq(n, 64);
    sp_vec_copy(3, s->y0, P[0]);
    for (int i = 0; i < K; ++i) sp_vec_copy(3, s->y + 3 * i, P[i + 1]);
    /* natural ends: M_0 = M_K = 0; interior rows by Thomas's algorithm */
    double diag[64], sub[64], sup[64];
    for (int i = 1; i < K; ++i) {
        const double h0 = knots[i] - knots[i - 1], h1 = knots[i + 1] - knots[i];
        sub[i] = i > 1 ? h0 : 0.0, sup[i] = i + 1 < K ? h1 : 0.0, diag[i] = 2.0 * (h0 + h1);
        for (int q = 0; q < 3; ++q) dd[i][q] = 6.0 * ((P[i + 1][q] - P[i][q]) / h1 - (P[i][q] - P[i - 1][q]) / h0);
    }
    for (int i = 2; i < K; ++i) {
        const double f = sub[i] / diag[i - 1];
        diag[i] -= f * sup[i - 1];
        for (int q = 0; q < 3; ++q) dd[i][q] -= f * dd[i - 1][q];
    }
    for (int i = K - 1; i >= 1; --i)
        for (int q = 0; q < 3; ++q) M[i][q] = (dd[i][q] - (i + 1 < K ? sup[i] * M[i + 1][q] : 0.0)) / diag[i];
    double total = 0.0;
    const int half = 100;
    const double delta = 1e-4;
    for (int i = 0; i < K; ++i) {
        const double h = knots[i + 1] - knots[i];
        for (int k = 0; k <= 2 * half; ++k) {
            double yk[3][3];
            for (int e = -1; e <= 1; ++e) {
                /* segment i's cubic at local time τ (continued past its ends for the stencil) */
                const double tau = h * k / (2.0 * half) + e * delta;
                const double A = (h - tau) / h, B = tau / h;
                double sv[3];
                for (int q = 0; q < 3; ++q)
                    sv[q] = A * P[i][q] + B * P[i + 1][q] +
                            ((A * A * A - A) * M[i][q] + (B * B * B - B) * M[i + 1][q]) * h * h / 6.0;
                const double r = sp_vec_norm(3, sv);
                for (int q = 0; q < 3; ++q) yk[e + 1][q] = sv[q] / r;
            }
            double acc[3];
            for (int q = 0; q < 3; ++q) acc[q] = (yk[0][q] - 2.0 * yk[1][q] + yk[2][q]) / (delta * delta);
            const double nn = sp_vec_dot(3, acc, yk[1]);
            for (int q = 0; q < 3; ++q) acc[q] -= nn * yk[1][q];
            const double w = k == 0 || k == 2 * half ? 1.0 : k % 2 ? 4.0 : 2.0;
            total += w * h / (6.0 * half) * 0.5 * sp_vec_dot(3, acc, acc);
        }
    }
    return total;
}

/* The round optimum costs no more, in the round metric, than the rotation metric's curve
 * through the same points (its samples' ½∫|∇ₜẏ|²) nor than the projected chordal spline. */
Test(round_sphere, cost_is_below_the_rotation_metric_curve_and_a_c2_spline, .timeout = 120)
{
    for (int q = 0; q < 2; ++q) {
        kf_schedule s;
        kf_random_schedule(60 + q, 1, 6 + 4 * q, 0.6, 10, 0.0, &s);
        cr_assert_not_null(s.t);
        double knots[16];
        knots_of(&s, knots);
        enum { HALF = 60 };
        char *output = simpson_output(knots, s.n, HALF);
        char *round_doc = sphere_doc(&s, "round", output), *rotation_doc = sphere_doc(&s, NULL, output);
        cJSON *round, *rotation;
        solve_converged_pair("round and rotation metrics", round_doc, rotation_doc, &round, &rotation);
        const double ours = number(round, "cost");
        const double sampled = round_cost_of_samples(round, knots, s.n, HALF);
        const double theirs = round_cost_of_samples(rotation, knots, s.n, HALF);
        const double spline = projected_spline_cost(&s, knots);
        /* Simpson on the samples measures the optimum's own cost to its quadrature error */
        cr_expect_leq(fabs(sampled - ours), 1e-6 * ours, "cost %.12g, its samples %.12g", ours, sampled);
        cr_expect_leq(ours, theirs, "case %d: round %.10g above the rotation metric's curve %.10g", q, ours, theirs);
        cr_expect_leq(ours, spline, "case %d: round %.10g above the projected spline %.10g", q, ours, spline);
        cr_log_info("%d points: round %.8g, rotation metric's curve %.8g (its own cost %.8g), projected spline %.8g",
                    s.n, ours, theirs, number(rotation, "cost"), spline);
        cJSON_Delete(round), cJSON_Delete(rotation);
        cJSON_free(round_doc), cJSON_free(rotation_doc);
        free(output);
        kf_schedule_free(&s);
    }
}

/* The error estimate bounds the distance to a run ten times as accurate. */
Test(round_sphere, error_estimate_is_honest, .timeout = 60)
{
    static const double accuracy[] = {1e-5, 1e-6, 1e-7, 1e-8};
    for (int q = 0; q < 4; ++q) {
        kf_schedule s;
        kf_random_schedule(70 + q, 1, 12, 0.6, 10, 0.0, &s);
        cr_assert_not_null(s.t);
        char a[256], b[256];
        snprintf(a, sizeof a, "\"accuracy\": %g, \"output\": {\"sample_rate\": 40}", accuracy[q]);
        snprintf(b, sizeof b, "\"accuracy\": %g, \"output\": {\"sample_rate\": 40}", accuracy[q] / 10);
        char *da = sphere_doc(&s, "round", a), *db = sphere_doc(&s, "round", b);
        cJSON *ra, *rb;
        solve_converged_pair("two accuracies", da, db, &ra, &rb);
        const double estimate = number(cJSON_GetObjectItem(ra, "resolution"), "error_estimate");
        const double finer = number(cJSON_GetObjectItem(rb, "resolution"), "error_estimate");
        const double dist = samples_apart(ra, rb);
        cr_expect_leq(dist, estimate + finer, "accuracy %g: distance %g to the finer run, estimate %g", accuracy[q],
                      dist, estimate);
        cr_expect_leq(estimate, accuracy[q]);
        cr_log_info("accuracy %g: estimate %.3g, distance to the run at a tenth %.3g", accuracy[q], estimate, dist);
        cJSON_Delete(ra), cJSON_Delete(rb);
        cJSON_free(da), cJSON_free(db);
        kf_schedule_free(&s);
    }
}

/* tests/round_sphere_reference.py's cost for a problem document, or −1 when python3 with
 * scipy is not there or solve_bvp failed. */
static double reference_cost(const char *doc)
{
    char cmd[1024], out[512];
    snprintf(out, sizeof out, "%s/round_sphere-%ld.out", SP_TEST_TMP, (long)getpid());
    /* one BLAS thread: the reference's small dense solves only lose to threads started for them */
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=1 /usr/bin/python3 %s > %s", ROUND_REFERENCE, out);
    FILE *p = popen(cmd, "w");
    cr_assert_not_null(p);
    fputs(doc, p);
    const int rc = pclose(p);
    FILE *f = fopen(out, "r");
    double v = -1.0;
    if (rc != 0 || !f || fscanf(f, "%lf", &v) != 1) v = -1.0;
    if (f) fclose(f);
    remove(out);
    return v;
}

/* An independent solution: solve_bvp on the same equations (tests/round_sphere_reference.py)
 * gives the same cost to 1e-6: natural ends, a prescribed start velocity brought to rest,
 * rest to rest. */
Test(round_sphere, cost_agrees_with_a_solve_bvp_reference, .timeout = 120)
{
    static const char *const ends[] = {NULL, "\"xi0\": [0.3, -0.2, 0.1], \"xiT\": [0, 0, 0]",
                                       "\"xi0\": [0, 0, 0], \"xiT\": [0, 0, 0]"};
    for (int q = 0; q < 3; ++q) {
        kf_schedule s;
        kf_random_schedule(80 + q, 1, 4 + q, 0.6, 10, 0.0, &s);
        cr_assert_not_null(s.t);
        char extra[256];
        snprintf(extra, sizeof extra, "\"accuracy\": 1e-9%s%s", ends[q] ? ", " : "", ends[q] ? ends[q] : "");
        char *doc = sphere_doc(&s, "round", extra);
        const double reference = reference_cost(doc);
        cr_assert_geq(reference, 0.0, "python3 with scipy is needed (apt-get install python3-scipy)");
        cJSON *res = solve_doc(doc);
        cr_assert_str_eq(string(res, "status"), "converged");
        const double ours = number(res, "cost");
        cr_expect_leq(fabs(ours - reference), 1e-6 * reference, "case %d: %.12g against solve_bvp's %.12g", q, ours,
                      reference);
        cr_log_info("%d points: %.12g, solve_bvp %.12g", s.n, ours, reference);
        cJSON_Delete(res);
        cJSON_free(doc);
        kf_schedule_free(&s);
    }
}

/* The least solve time of three runs of a document (the first run of a process, or one
 * after an idle spell, also pays for waking the processors its threads land on). */
static cJSON *solve_timed(const char *doc, double *seconds)
{
    cJSON *res = NULL;
    *seconds = HUGE_VAL;
    for (int k = 0; k < 3; ++k) {
        cJSON_Delete(res);
        res = solve_doc(doc);
        *seconds = fmin(*seconds, number(cJSON_GetObjectItem(res, "timing"), "solve_seconds"));
    }
    return res;
}

/* The solve times at 30, 60 and 100 points, exact and weighted (σ = 0.05), next to exact
 * orientation plans (SO(3), the condensed solver) of as many keyframes: logged. */
Test(round_sphere, solve_times_next_to_orientation_plans, .timeout = 120)
{
    static const int sizes[] = {30, 60, 100};
    for (int q = 0; q < 3; ++q) {
        kf_schedule s, r;
        kf_random_schedule(90 + q, 1, sizes[q], 0.6, 10, 0.0, &s);
        kf_random_schedule(90 + q, 0, sizes[q], 0.6, 10, 0.0, &r);
        cr_assert(s.t && r.t);
        r.xi0_free = 1;
        char *doc = sphere_doc(&s, "round", NULL), *text = kf_schedule_json(&r);
        s.sigma = 0.05;
        char *wdoc = sphere_doc(&s, "round", NULL);
        cJSON *orientation_doc = cJSON_Parse(text);
        cJSON_DeleteItemFromObject(orientation_doc, "steps"); /* the grid chosen, as the round plan's */
        cJSON_DeleteItemFromObject(orientation_doc, "scheme");
        char *odoc = cJSON_PrintUnformatted(orientation_doc);
        double t_round, t_weighted, t_so3;
        cJSON *res = solve_timed(doc, &t_round), *wres = solve_timed(wdoc, &t_weighted),
              *ores = solve_timed(odoc, &t_so3);
        cr_expect_str_eq(string(res, "status"), "converged");
        cr_expect_str_eq(string(wres, "status"), "converged");
        cr_expect_str_eq(string(ores, "status"), "converged");
        cr_log_info("%d points: round sphere %.2f ms (%g steps), weighted %.2f ms (%g steps), SO(3) orientations "
                    "%.2f ms (%g steps)",
                    sizes[q], 1e3 * t_round, number(cJSON_GetObjectItem(res, "resolution"), "steps"),
                    1e3 * t_weighted, number(cJSON_GetObjectItem(wres, "resolution"), "steps"), 1e3 * t_so3,
                    number(cJSON_GetObjectItem(ores, "resolution"), "steps"));
        cJSON_Delete(res), cJSON_Delete(wres), cJSON_Delete(ores), cJSON_Delete(orientation_doc);
        cJSON_free(doc), cJSON_free(wdoc), cJSON_free(odoc);
        free(text);
        kf_schedule_free(&s), kf_schedule_free(&r);
    }
}

/* ------------------------------------------------ weighted keyframes, tails, grids -- */

/* A random walk of n points 0.6 rad apart (keyframe_reference.h) at σ. */
static kf_schedule sphere_walk(unsigned long seed, int n, double sigma)
{
    kf_schedule s;
    kf_random_schedule(seed, 1, n, 0.6, 10, sigma, &s);
    cr_assert_not_null(s.t);
    return s;
}

/* The plans of the free layout the next tests take: natural ends at σ = 0.1; a prescribed
 * start brought to rest at σ = 0.05; a free tail (of that length) after exact keyframes, at
 * rest; a weighted plan with a natural tail; σ = 0.3 from rest to rest; and weights too
 * loose for the spline start, solved by continuation in σ: σ = 1 with a tail, σ = 30 from a
 * prescribed start. */
typedef struct end_case {
    double sigma, tail;
    const char *ends;
} end_case;
enum { END_CASES = 7 };
static const end_case end_cases[END_CASES] = {{0.1, 0.0, NULL},
                                              {0.05, 0.0, "\"xi0\": [0.3, -0.2, 0.1], \"xiT\": [0, 0, 0]"},
                                              {0.0, 0.7, "\"xiT\": [0, 0, 0]"},
                                              {0.2, 0.5, NULL},
                                              {0.3, 0.0, "\"xi0\": [0, 0, 0], \"xiT\": [0, 0, 0]"},
                                              {1.0, 0.3, NULL},
                                              {30.0, 0.0, "\"xi0\": [0.3, -0.2, 0.1]"}};

/* The weighted cost (and its exact-with-a-tail variant) against solve_bvp: the same number
 * to 1e-9 of it, for every end case. */
Test(round_sphere, weighted_cost_agrees_with_a_solve_bvp_reference, .timeout = 240)
{
    const end_case *cases = end_cases;
    for (int q = 0; q < END_CASES; ++q) {
        kf_schedule s = sphere_walk(180 + q, 4 + q % 3, 0.0);
        s.sigma = cases[q].sigma, s.T += cases[q].tail;
        char extra[256];
        snprintf(extra, sizeof extra, "\"accuracy\": 1e-10%s%s", cases[q].ends ? ", " : "",
                 cases[q].ends ? cases[q].ends : "");
        char *doc = sphere_doc(&s, "round", extra);
        const double reference = reference_cost(doc);
        cr_assert_geq(reference, 0.0, "python3 with scipy is needed (apt-get install python3-scipy)");
        cJSON *res = solve_doc(doc);
        cr_assert_str_eq(string(res, "status"), "converged", "case %d", q);
        const double ours = number(res, "cost");
        cr_expect_leq(fabs(ours - reference), 1e-9 * reference, "case %d: %.14g against solve_bvp's %.14g", q, ours,
                      reference);
        cr_expect_leq(fabs(number(res, "running_cost") + number(res, "target_cost") - ours), 1e-12 * ours);
        cr_log_info("case %d (%d points, sigma %g, tail %g): %.14g, solve_bvp %.14g, relative %.2g, %g sigma stages",
                    q, s.n, s.sigma, cases[q].tail, ours, reference, fabs(ours - reference) / reference,
                    number(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "starts"), 0), "sigma_stages"));
        cJSON_Delete(res);
        cJSON_free(doc);
        kf_schedule_free(&s);
    }
}

/* The cost of the round plan through a schedule's points, asserted converged. */
static double converged_cost(const kf_schedule *s, const char *extra)
{
    char *doc = sphere_doc(s, "round", extra);
    cJSON *res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const double cost = number(res, "cost");
    cJSON_Delete(res);
    cJSON_free(doc);
    return cost;
}

/* As σ → 0 the weighted optimum tends to the exact one: its cost is never above the exact
 * plan's (that curve is a candidate with no target cost), the gap shrinks with σ, and the
 * misses shrink like σ². */
Test(round_sphere, weighted_plans_tend_to_the_exact_plan, .timeout = 120)
{
    kf_schedule s = sphere_walk(200, 12, 0.0);
    const double exact = converged_cost(&s, "\"accuracy\": 1e-9");
    char *doc;
    cJSON *res;
    static const double sigmas[] = {0.3, 0.1, 0.03, 0.01, 0.003, 1e-3, 1e-4};
    double gap_before = HUGE_VAL;
    for (int q = 0; q < 7; ++q) {
        s.sigma = sigmas[q];
        doc = sphere_doc(&s, "round", "\"accuracy\": 1e-9");
        res = solve_doc(doc);
        cr_assert_str_eq(string(res, "status"), "converged", "sigma %g", sigmas[q]);
        const double cost = number(res, "cost"), gap = exact - cost, miss = worst_miss(res);
        cr_expect_leq(cost, exact * (1.0 + 1e-12), "sigma %g: %.14g above the exact plan's %.14g", sigmas[q], cost,
                      exact);
        cr_expect_lt(gap, gap_before, "sigma %g: the gap %g did not shrink", sigmas[q], gap);
        cr_expect_leq(miss, 50.0 * sigmas[q] * sigmas[q], "sigma %g: miss %g", sigmas[q], miss);
        cr_log_info("sigma %g: cost %.12g, exact %.12g, gap %.3g, largest miss %.3g", sigmas[q], cost, exact, gap, miss);
        gap_before = gap;
        cJSON_Delete(res);
        cJSON_free(doc);
    }
    cr_expect_leq(gap_before, 1e-5 * exact, "at sigma 1e-4 the gap is %g", gap_before);
    kf_schedule_free(&s);
}

/* The free layout's Jacobian (weighted keyframes, a tail) is the exact derivative of its
 * rows: central differences agree to their own error, for every end case. */
Test(round_sphere, free_layout_jacobian_matches_central_differences, .timeout = 60)
{
    const end_case *cases = end_cases;
    for (int q = 0; q < END_CASES; ++q) {
        kf_schedule s = sphere_walk(210 + q, 4, 0.0);
        s.sigma = cases[q].sigma, s.T += cases[q].tail;
        char *doc = sphere_doc(&s, "round", cases[q].ends);
        sp_problem pb;
        sp_input_error err;
        cr_assert_eq(sp_problem_parse(doc, strlen(doc), &pb, &err), SP_OK, "%s: %s", err.path, err.message);
        double worst;
        cr_assert_eq(sp_round_jacobian_check(&pb, 0.3, 1e-6, &worst), SP_OK);
        cr_expect_leq(worst, 1e-6, "case %d: Jacobian and central differences differ by %g", q, worst);
        cr_log_info("case %d: largest difference to central differences %.2g", q, worst);
        sp_problem_free(&pb);
        cJSON_free(doc);
        kf_schedule_free(&s);
    }
}

/* A free tail: after exact keyframes with a natural end the tail is the geodesic that
 * continues the last keyframe's velocity, at no cost (the plan costs what it costs to the
 * last keyframe); brought to rest at T, the end velocity is 0 to 1e-10 and the tail costs. */
Test(round_sphere, a_free_tail_continues_or_comes_to_rest, .timeout = 60)
{
    kf_schedule s = sphere_walk(230, 8, 0.0);
    const double to_last = converged_cost(&s, "\"accuracy\": 1e-9");
    const double last = s.T;
    s.T += 1.5;
    char *doc = sphere_doc(&s, "round", "\"accuracy\": 1e-9, \"output\": {\"sample_rate\": 10}");
    cJSON *res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    cr_expect_leq(fabs(number(res, "cost") - to_last), 1e-9 * to_last, "tail: %.14g, to the last keyframe %.14g",
                  number(res, "cost"), to_last);
    cr_expect_leq(worst_miss(res), 1e-10);
    /* constant speed along the tail */
    const cJSON *smp = cJSON_GetObjectItem(res, "samples");
    const cJSON *ts = cJSON_GetObjectItem(smp, "t"), *V = cJSON_GetObjectItem(smp, "velocity");
    double lo = HUGE_VAL, hi = 0.0;
    for (int k = 0; k < cJSON_GetArraySize(ts); ++k) {
        if (cJSON_GetArrayItem(ts, k)->valuedouble < last) continue;
        double v[3];
        row3(V, k, v);
        lo = fmin(lo, sp_vec_norm(3, v)), hi = fmax(hi, sp_vec_norm(3, v));
    }
    cr_expect_leq(hi - lo, 1e-8 * hi, "the tail's speed varies from %g to %g", lo, hi);
    cJSON_Delete(res);
    cJSON_free(doc);
    s.sigma = 0.05;
    doc = sphere_doc(&s, "round", "\"xiT\": [0, 0, 0]");
    res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    const cJSON *fv = cJSON_GetObjectItem(res, "final_velocity");
    double end[3];
    for (int q = 0; q < 3; ++q) end[q] = cJSON_GetArrayItem(fv, q)->valuedouble;
    cr_expect_leq(sp_vec_norm(3, end), 1e-10, "the end velocity is %g", sp_vec_norm(3, end));
    cr_expect_gt(number(res, "running_cost"), to_last * 0.5);
    cr_log_info("tail: natural %.12g (to the last keyframe %.12g), speed %.9g to %.9g; weighted at rest: cost %.10g, "
                "|xi(T)| %.2g", to_last, to_last, lo, hi, number(res, "cost"), sp_vec_norm(3, end));
    cJSON_Delete(res);
    cJSON_free(doc);
    kf_schedule_free(&s);
}

/* A step count fixes the grid: N steps with the keyframes on nodes, solved once; the
 * estimate bounds the distance to the plan whose grid is chosen for 1e-10 (at 60 samples
 * a unit of time, between the nodes too). */
Test(round_sphere, a_step_count_fixes_the_grid, .timeout = 60)
{
    kf_schedule s = sphere_walk(240, 6, 0.05);
    char extra[160];
    char *fine = sphere_doc(&s, "round", "\"accuracy\": 1e-10, \"output\": {\"sample_rate\": 60}");
    cJSON *ref = solve_doc(fine);
    cr_assert_str_eq(string(ref, "status"), "converged");
    static const int steps[] = {12, 30, 90};
    for (int q = 0; q < 3; ++q) {
        snprintf(extra, sizeof extra, "\"steps\": %d, \"output\": {\"sample_rate\": 60}", steps[q]);
        char *doc = sphere_doc(&s, "round", extra);
        cJSON *res = solve_doc(doc);
        cr_assert_str_eq(string(res, "status"), "converged", "%d steps", steps[q]);
        const cJSON *r = cJSON_GetObjectItem(res, "resolution");
        cr_expect_eq((int)number(r, "steps"), steps[q]);
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t")),
                     steps[q] + 1, "%d steps: rows", steps[q]);
        const double dist = samples_apart(res, ref);
        const double estimate = number(r, "error_estimate");
        cr_expect_leq(dist, estimate + 1e-10, "%d steps: distance %g to the accurate plan, estimate %g", steps[q],
                      dist, estimate);
        cr_log_info("%d steps: estimate %.3g, distance to the plan at 1e-10 %.3g, cost %.12g (chosen grid %.12g)",
                    steps[q], estimate, dist, number(res, "cost"), number(ref, "cost"));
        cJSON_Delete(res);
        cJSON_free(doc);
    }
    cJSON_Delete(ref);
    cJSON_free(fine);
    kf_schedule_free(&s);
}

/* What the round metric cannot take exits 2 with the field's JSON path: a moving end, a
 * spin about y0 at T, a scheme, a method other than multiple shooting. */
Test(round_sphere, bad_input_exits_2_naming_the_field)
{
    static const struct {
        const char *extra, *path, *says;
    } cases[] = {{"\"xiT\": [0, 0.3, 0.1]", "xiT", "only rest at T"},
                 {"\"xiT\": [0.5, 0, 0]", "xiT", "no spin about y0"},
                 {"\"scheme\": \"hohp_sv\", \"steps\": 40", "scheme", "its own order-8 scheme"},
                 {"\"method\": \"direct\", \"steps\": 40", "method", "multiple shooting only"}};
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE];
    sp_test_scratch_dir(dir, "round_sphere", "bad_input");
    join(file, dir, "bad.json");
    join(out, dir, "out.json");
    kf_schedule s = sphere_walk(250, 4, 0.1);
    s.y0[0] = 1.0, s.y0[1] = s.y0[2] = 0.0;
    for (int q = 0; q < 4; ++q) {
        char *doc = sphere_doc(&s, "round", cases[q].extra);
        write_text(file, doc);
        run_result r;
        run(dir, (const char *[]){"solve", file, "-o", out, NULL}, &r);
        cr_expect_eq(r.status, 2, "case %d: exit %d", q, r.status);
        char field[64];
        snprintf(field, sizeof field, ": %s: ", cases[q].path);
        cr_expect(strstr(r.err, field) != NULL, "case %d: %s", q, r.err);
        cr_expect(strstr(r.err, cases[q].says) != NULL, "case %d: %s", q, r.err);
        run_free(&r);
        cJSON_free(doc);
    }
    kf_schedule_free(&s);
    remove_tree(dir);
}
