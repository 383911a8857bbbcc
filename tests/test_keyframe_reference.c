/* The keyframe reference (keyframe_reference.h) checked on its own: its adjoint gradient
 * against central differences over every space, scheme, retraction and end condition;
 * its problem files against its own reader; and its optima on the keyframe schedules of
 * tests/keyframes/, whose best costs (tests/keyframes/best.json) were found independently
 * by L-BFGS from several starts. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/keyframe_reference.h"

#define KEYFRAMES SP_TEST_FUZZ "/../keyframes/"

/* A deterministic, non-smooth-looking velocity sequence near the geodesic start, so that
 * every term of the gradient is exercised away from any optimum. */
static void perturbed_velocities(const kf_schedule *s, double *xi)
{
    kf_start(s, KF_START_GEODESIC, xi);
    for (int k = 0; k <= s->steps; ++k)
        for (int c = 0; c < 3; ++c) {
            if ((k == 0 && !s->xi0_free) || (k == s->steps && s->has_xiT)) continue;
            xi[3 * k + c] += 0.3 * sin(1.7 * k + 2.3 * c + 0.4);
        }
}

/* The largest difference between the gradient and central differences over the free
 * velocities, relative to the largest gradient entry. Fixed velocities must have a zero
 * gradient entry. */
static double gradient_error(const kf_schedule *s)
{
    const int m = 3 * (s->steps + 1);
    double *xi = malloc(m * sizeof *xi), *g = malloc(m * sizeof *g);
    cr_assert(xi && g);
    perturbed_velocities(s, xi);
    double J = kf_cost(s, xi, NULL, g);
    cr_assert(isfinite(J));
    double err = 0.0, gmax = 0.0;
    for (int i = 0; i < m; ++i) {
        int fixed = (i < 3 && !s->xi0_free) || (i >= m - 3 && s->has_xiT);
        if (fixed) {
            cr_assert_eq(g[i], 0.0, "entry %d of a fixed velocity has gradient %g", i, g[i]);
            continue;
        }
        const double eps = 1e-6, x = xi[i];
        xi[i] = x + eps;
        double Jp = kf_cost(s, xi, NULL, NULL);
        xi[i] = x - eps;
        double Jm = kf_cost(s, xi, NULL, NULL);
        xi[i] = x;
        err = fmax(err, fabs(g[i] - (Jp - Jm) / (2.0 * eps)));
        gmax = fmax(gmax, fabs(g[i]));
    }
    free(xi);
    free(g);
    return err / gmax;
}

Test(keyframe_reference, gradient_matches_central_differences)
{
    static const double thetas[] = {0.5, 0.0, 1.0};
    for (int sphere = 0; sphere < 2; ++sphere)
        for (int ti = 0; ti < 3; ++ti)
            for (int use_exp = 0; use_exp < 2; ++use_exp)
                for (int ends = 0; ends < 2; ++ends) {
                    kf_schedule s;
                    kf_random_schedule(11 + 7 * sphere + ti, sphere, 3, 0.9, 6, 0.3, &s);
                    cr_assert(s.t);
                    s.theta = thetas[ti];
                    s.exp_retraction = use_exp;
                    if (ends) { /* free start velocity, prescribed end velocity */
                        static const double xiT[3] = {0.15, -0.25, 0.05};
                        s.xi0_free = 1;
                        s.has_xiT = 1;
                        memcpy(s.xiT, xiT, sizeof xiT);
                    }
                    double e = gradient_error(&s);
                    cr_assert_leq(e, 1e-6, "%s, θ = %g, %s, %s: relative gradient error %.3e",
                                  sphere ? "sphere" : "group", s.theta, use_exp ? "exp" : "Cayley",
                                  ends ? "free xi0 and prescribed xiT" : "prescribed xi0", e);
                    kf_schedule_free(&s);
                }
}

/* Keyframes that share a grid node, one on the first node and one short of the end. */
Test(keyframe_reference, gradient_with_crowded_keyframes)
{
    kf_schedule s;
    kf_random_schedule(5, 0, 4, 1.1, 5, 0.2, &s);
    cr_assert(s.t);
    s.T = 5.0;
    s.steps = 25;
    s.t[0] = 0.0, s.t[1] = 2.0, s.t[2] = 2.0, s.t[3] = 4.0;
    double e = gradient_error(&s);
    cr_assert_leq(e, 1e-6, "relative gradient error %.3e", e);
    kf_schedule_free(&s);
}

Test(keyframe_reference, random_schedules_are_deterministic_walks)
{
    for (int sphere = 0; sphere < 2; ++sphere) {
        kf_schedule a, b;
        kf_random_schedule(42, sphere, 6, 0.7, 4, 0.1, &a);
        kf_random_schedule(42, sphere, 6, 0.7, 4, 0.1, &b);
        cr_assert(a.t && b.t);
        cr_assert_eq(a.steps, 24);
        cr_assert_eq(a.T, 6.0);
        cr_assert_float_eq(sqrt(a.xi0[0] * a.xi0[0] + a.xi0[1] * a.xi0[1] + a.xi0[2] * a.xi0[2]), 0.2, 1e-15);
        cr_assert_eq(memcmp(a.xi0, b.xi0, sizeof a.xi0), 0);
        const double *p = sphere ? a.y : a.R, *q = sphere ? b.y : b.R;
        const int size = sphere ? 3 : 9;
        cr_assert_eq(memcmp(p, q, (size_t)(size * a.n) * sizeof *p), 0, "the same generator state gives another schedule");
        for (int i = 0; i < a.n; ++i) {
            cr_assert_eq(a.t[i], i + 1.0);
            double angle;
            if (sphere) { /* the angle between consecutive points */
                const double *u = i ? a.y + 3 * i - 3 : a.y0, *v = a.y + 3 * i;
                double c = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
                double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
                angle = atan2(sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), c);
            } else { /* the angle of R_{i−1}ᵀ R_i */
                static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
                const double *U = i ? a.R + 9 * i - 9 : I, *V = a.R + 9 * i;
                double tr = 0.0;
                for (int j = 0; j < 9; ++j) tr += U[j] * V[j];
                angle = acos(fmin(1.0, fmax(-1.0, 0.5 * (tr - 1.0))));
            }
            cr_assert_float_eq(angle, 0.7, 1e-12, "keyframe %d is %.15g from the previous one", i, angle);
        }
        kf_schedule_free(&b);
        kf_random_schedule(43, sphere, 6, 0.7, 4, 0.1, &b);
        cr_assert_neq(memcmp(p, sphere ? b.y : b.R, (size_t)(size * a.n) * sizeof *p), 0);
        kf_schedule_free(&a);
        kf_schedule_free(&b);
    }
}

/* kf_schedule_json then kf_schedule_parse gives back the same schedule, bit for bit. */
Test(keyframe_reference, problem_file_round_trip)
{
    for (int sphere = 0; sphere < 2; ++sphere)
        for (int ends = 0; ends < 2; ++ends) {
            kf_schedule a, b;
            kf_random_schedule(7 + sphere, sphere, 4, 1.3, 10, ends ? 0.0 : 0.05, &a);
            cr_assert(a.t);
            if (ends) {
                a.xi0_free = 1, a.has_xiT = 1;
                a.xiT[0] = 0.1, a.xiT[1] = 1.0 / 3.0, a.xiT[2] = -0.7;
                a.theta = 0.0, a.exp_retraction = 1;
            }
            char *text = kf_schedule_json(&a);
            cr_assert(text);
            cJSON *doc = cJSON_Parse(text);
            cr_assert(doc, "not JSON: %s", text);
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "scheme")), ends ? "hohp_euler" : "hohp_sv");
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "space")), sphere ? "sphere" : "group");
            cr_assert_eq(cJSON_HasObjectItem(doc, "xiT"), ends);
            cJSON_Delete(doc);
            cr_assert_eq(kf_schedule_parse(text, &b), 0, "cannot read back %s", text);
            free(text);
            cr_assert(a.sphere == b.sphere && a.xi0_free == b.xi0_free && a.has_xiT == b.has_xiT);
            cr_assert(a.T == b.T && a.steps == b.steps && a.sigma == b.sigma && a.theta == b.theta);
            cr_assert(a.exp_retraction == b.exp_retraction && a.n == b.n);
            cr_assert_eq(memcmp(a.g0, b.g0, sizeof a.g0), 0);
            if (!a.xi0_free) cr_assert_eq(memcmp(a.xi0, b.xi0, sizeof a.xi0), 0);
            if (a.has_xiT) cr_assert_eq(memcmp(a.xiT, b.xiT, sizeof a.xiT), 0);
            if (sphere) cr_assert_eq(memcmp(a.y0, b.y0, sizeof a.y0), 0);
            cr_assert_eq(memcmp(a.t, b.t, (size_t)a.n * sizeof *a.t), 0);
            if (sphere)
                cr_assert_eq(memcmp(a.y, b.y, 3 * (size_t)a.n * sizeof *a.y), 0);
            else
                cr_assert_eq(memcmp(a.R, b.R, 9 * (size_t)a.n * sizeof *a.R), 0);
            kf_schedule_free(&a);
            kf_schedule_free(&b);
        }
}

/* The best cost of `name` in tests/keyframes/best.json. */
static double published_best(const char *name)
{
    FILE *f = fopen(KEYFRAMES "best.json", "rb");
    cr_assert(f, "cannot open %s", KEYFRAMES "best.json");
    char text[4096];
    size_t m = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[m] = '\0';
    cJSON *doc = cJSON_Parse(text);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name);
    cr_assert(cJSON_IsNumber(v), "best.json has no cost for %s", name);
    double x = v->valuedouble;
    cJSON_Delete(doc);
    return x;
}

/* The reference's best optimum on tests/keyframes/<name>.json equals the published best
 * within rel (relative), beyond the rounding of the published figure to six significant
 * digits; the optimum is a stationary point of J_d. */
static void check_schedule(const char *name, double rel)
{
    char path[4096];
    snprintf(path, sizeof path, KEYFRAMES "%s.json", name);
    kf_schedule s;
    cr_assert_eq(kf_schedule_read(path, &s), 0, "cannot read %s", path);
    kf_reference r;
    cr_assert_eq(kf_reference_solve(&s, &r), 0, "%s: the reference failed", name);
    const double best = published_best(name);
    const double rounding = 0.5 * pow(10.0, floor(log10(best)) - 5.0);
    cr_assert_leq(fabs(r.best - best), rel * best + rounding,
                  "%s: best %.9g (from zero %.9g, geodesic %.9g, spline %.9g), published %.9g", name, r.best,
                  r.cost[0], r.cost[1], r.cost[2], best);
    for (int i = 0; i < KF_STARTS; ++i) cr_assert_geq(r.cost[i], r.best);
    cr_assert_eq(r.cost[r.best_start], r.best);

    /* a stationary point, and J_d (or, for σ = 0, its running cost) of the returned velocities */
    const int m = 3 * (s.steps + 1);
    double *g = malloc(m * sizeof *g), running, gn = 0.0;
    cr_assert(g);
    double J = kf_cost(&s, r.xi, &running, g);
    for (int i = 0; i < m; ++i) gn += g[i] * g[i];
    cr_assert_float_eq(s.sigma > 0.0 ? J : running, r.best, 1e-14 * r.best);
    cr_assert_leq(sqrt(gn), s.sigma > 0.0 ? 1e-4 : 1e-2, "%s: |∇J_d| = %.3e at the optimum", name, sqrt(gn));
    if (!s.xi0_free) cr_assert_eq(memcmp(r.xi, s.xi0, sizeof s.xi0), 0);
    free(g);
    kf_reference_free(&r);
    kf_schedule_free(&s);
}

Test(keyframe_reference, so3_8_published_best) { check_schedule("so3_8", 1e-6); }
Test(keyframe_reference, so3_16_published_best) { check_schedule("so3_16", 1e-6); }
Test(keyframe_reference, sphere_8_published_best) { check_schedule("sphere_8", 1e-6); }
Test(keyframe_reference, so3_8_exact_free_published_best) { check_schedule("so3_8_exact_free", 1e-5); }
