/* Sphere plans in the rotation metric (the default): the curve g(t)·y0 of least ½∫|ξ̇|²
 * through points on S². The trust-region step they use is the minimiser of its model in the
 * ball; random walks of 30 to 300 points, exact with free ends and at rest, converge in a
 * bounded number of sweeps, pass their points to 1e-10 and cost no more than the C² spline
 * through the points' lift with its best spin, and so do a camera's viewing directions;
 * weighted plans (σ up to 1) converge and cost no more than exact interpolation of the same
 * points; a rotation of the whole problem rotates the plan. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_trust_region.h"
#include "tests/plan_support.h"

/* ------------------------------------------------------------------ helpers -- */

static unsigned long long next_random(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in (−1, 1). */
static double uniform(unsigned long long *s) { return 2.0 * ((double)(next_random(s) >> 11) / 9007199254740992.0) - 1.0; }

/* m(p) = gᵀp + ½ pᵀHp. */
static double model(int n, const double *H, const double *g, const double *p)
{
    double m = 0.0;
    for (int r = 0; r < n; ++r) {
        m += g[r] * p[r];
        for (int c = 0; c < n; ++c) m += 0.5 * p[r] * H[r * n + c] * p[c];
    }
    return m;
}

/* A dense symmetric matrix in the band storage of sp_trust_region.h (kd = n − 1). */
static void to_band(int n, const double *H, double *band)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) band[sp_sym_band_index(n - 1, i, j)] = H[i * n + j];
}

/* The trust-region step of (H, g, Δ) is checked against its characterisation: inside the
 * ball; no lower model value at 20 000 random points of the ball and of its boundary, nor
 * along the line through p; the promised decrease is −m(p); an interior step solves Hp = −g. */
static void check_step(int n, const double *H, const double *g, double radius, unsigned long long seed,
                       const char *what)
{
    double band[64];
    to_band(n, H, band);
    double p[8], q[8];
    sp_trust_step info;
    cr_assert_eq(sp_trust_region_step(n, n - 1, band, g, radius, p, &info), SP_OK);
    const double mp = model(n, H, g, p), scale = 1.0 + fabs(mp);
    cr_expect_leq(sp_vec_norm(n, p), radius * (1.0 + 1e-12), "%s: |p| %g outside %g", what, sp_vec_norm(n, p), radius);
    cr_expect_leq(fabs(info.predicted + mp), 1e-12 * scale, "%s: promised %g, model %g", what, info.predicted, -mp);
    cr_expect_leq(fabs(info.length - sp_vec_norm(n, p)), 1e-12 * radius, "%s", what);
    double worst = HUGE_VAL;
    unsigned long long s = seed;
    for (int k = 0; k < 20000; ++k) {
        for (int r = 0; r < n; ++r) q[r] = uniform(&s);
        const double len = sp_vec_norm(n, q), to = (k % 2 ? 1.0 : fabs(uniform(&s))) * radius / len;
        for (int r = 0; r < n; ++r) q[r] *= to;
        worst = fmin(worst, model(n, H, g, q));
    }
    cr_expect_geq(worst, mp - 1e-12 * scale, "%s: a point of the ball is lower (%.15g < %.15g)", what, worst, mp);
    if (info.interior) {
        double r[8];
        sp_mat_vec(n, n, H, p, r);
        for (int k = 0; k < n; ++k) r[k] += g[k];
        cr_expect_leq(sp_vec_norm(n, r), 1e-12 * (1.0 + sp_vec_norm(n, g)), "%s: interior but Hp + g = %g", what,
                      sp_vec_norm(n, r));
    }
}

/* The C² spline start through a plan's points with its best spin (the curve the planner
 * starts from, a feasible curve through the points): ½∫|ξ̇|² by three-point Gauss–Legendre
 * on each of the 64 pieces of every segment (the spin's rate is piecewise linear on a
 * sixteenth of a segment, so no piece straddles a kink). */
static double spline_start_cost(const char *doc, const double *knots, int segments)
{
    sp_problem pb;
    sp_input_error e;
    cr_assert_eq(sp_problem_parse(doc, strlen(doc), &pb, &e), SP_OK, "%s: %s", e.path, e.message);
    sp_start_curve *c = sp_start_curve_new(&pb, SP_START_SPLINE);
    cr_assert_not_null(c);
    static const double node[3] = {-0.7745966692414834, 0.0, 0.7745966692414834}, weight[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    double total = 0.0;
    for (int i = 0; i < segments; ++i) {
        const double h = (knots[i + 1] - knots[i]) / 64.0;
        for (int k = 0; k < 64; ++k)
            for (int q = 0; q < 3; ++q) {
                sp_hohp_state z;
                sp_start_curve_eval(c, knots[i] + h * (k + 0.5 + 0.5 * node[q]), &z);
                total += 0.5 * h * weight[q] * 0.5 * sp_vec_dot(3, z.p, z.p);
            }
    }
    sp_start_curve_free(c);
    sp_problem_free(&pb);
    return total;
}

/* ------------------------------------------------------------------- tests -- */

Test(sphere_plan, trust_region_step_minimises_the_model_in_the_ball)
{
    unsigned long long s = 7;
    for (int trial = 0; trial < 12; ++trial) {
        const int n = 2 + trial % 5;
        double A[64], H[64], g[8];
        for (int k = 0; k < n * n; ++k) A[k] = uniform(&s);
        /* AᵀA shifted: positive definite for the first four, indefinite after */
        const double shift = trial < 4 ? 0.1 : -1.5;
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                double v = r == c ? shift : 0.0;
                for (int k = 0; k < n; ++k) v += A[k * n + r] * A[k * n + c];
                H[r * n + c] = v;
            }
        for (int r = 0; r < n; ++r) g[r] = uniform(&s);
        char what[64];
        for (int k = 0; k < 3; ++k) {
            const double radius = k == 0 ? 0.05 : k == 1 ? 1.0 : 100.0;
            snprintf(what, sizeof what, "trial %d, radius %g", trial, radius);
            check_step(n, H, g, radius, 100 + trial, what);
        }
    }
    /* the hard case: g has no part along the eigenvector of the negative eigenvalue, and
     * the boundary is out of reach of every λ above −λ_min */
    const double H[9] = {-1, 0, 0, 0, 2, 0, 0, 0, 3}, g[3] = {0, 1, 1};
    check_step(3, H, g, 2.0, 5, "hard case");
    double p[3], band[9];
    sp_trust_step info;
    to_band(3, H, band);
    sp_trust_region_step(3, 2, band, g, 2.0, p, &info);
    cr_expect_float_eq(sp_vec_norm(3, p), 2.0, 1e-12, "the hard case's step ends on the boundary");
    cr_expect_float_eq(info.shift, 1.0, 1e-9, "the hard case's λ is −λ_min = 1 (got %.12g)", info.shift);
    /* a positive definite model whose Newton step lies inside */
    const double P[4] = {2, 0.5, 0.5, 1}, q[2] = {0.1, -0.2};
    to_band(2, P, band);
    sp_trust_region_step(2, 1, band, q, 10.0, p, &info);
    cr_expect(info.interior);
}

/* A matrix with few diagonals gives the same step from its band as from the whole of it
 * (n = 40, 3 super-diagonals; positive definite and indefinite, inside and on the boundary). */
Test(sphere_plan, trust_region_step_of_a_band_is_that_of_the_whole_matrix)
{
    enum { N = 40, KD = 3 };
    unsigned long long s = 11;
    for (int trial = 0; trial < 4; ++trial) {
        static double narrow[(KD + 1) * N], wide[N * N], g[N], p[N], q[N];
        memset(narrow, 0, sizeof narrow), memset(wide, 0, sizeof wide);
        for (int j = 0; j < N; ++j)
            for (int i = j - KD > 0 ? j - KD : 0; i <= j; ++i) {
                const double v = i == j ? (trial % 2 ? 0.5 : 3.0) + uniform(&s) : 0.6 * uniform(&s);
                narrow[sp_sym_band_index(KD, i, j)] = v, wide[sp_sym_band_index(N - 1, i, j)] = v;
            }
        for (int k = 0; k < N; ++k) g[k] = uniform(&s);
        const double radius = trial < 2 ? 0.3 : 50.0;
        sp_trust_step a, b;
        cr_assert_eq(sp_trust_region_step(N, KD, narrow, g, radius, p, &a), SP_OK);
        cr_assert_eq(sp_trust_region_step(N, N - 1, wide, g, radius, q, &b), SP_OK);
        cr_expect_leq(sp_vec_dist(N, p, q), 1e-10 * (1.0 + sp_vec_norm(N, q)), "trial %d: steps differ by %g", trial,
                      sp_vec_dist(N, p, q));
        cr_expect_float_eq(a.shift, b.shift, 1e-9 * (1.0 + b.shift), "trial %d", trial);
        cr_expect_float_eq(a.predicted, b.predicted, 1e-10 * (1.0 + fabs(b.predicted)), "trial %d", trial);
        cr_log_info("band of %d, trial %d: λ %.3g, |p| %.3g, interior %d", N, trial, a.shift, a.length,
                    a.interior);
    }
}

/* Random walks of 30, 60, 100 and 300 points 0.6 rad apart, a point per unit time, exact,
 * free ends and at rest (ξ0 = 0), default settings: converged with the general system's
 * check, through every point to 1e-10, in at most 150 sweeps up to 100 points (55–124
 * measured; 300 at 300 points, 252 measured), and no
 * dearer than the C² spline start through the points (the lift by smallest rotations with
 * its best spin). */
Test(sphere_plan, random_walks_converge_through_their_points, .timeout = 240)
{
    static const int sizes[] = {30, 60, 100, 300};
    for (int q = 0; q < 4; ++q)
        for (int rest = 0; rest < 2; ++rest) {
            if (sizes[q] == 300 && rest) continue; /* one long walk is enough */
            kf_schedule s;
            kf_random_schedule(70 + q, 1, sizes[q], 0.6, 10, 0.0, &s);
            cr_assert_not_null(s.t);
            double *knots = malloc((size_t)(s.n + 1) * sizeof *knots);
            cr_assert_not_null(knots);
            knots_of(&s, knots);
            char *doc = sphere_doc(&s, NULL, rest ? "\"xi0\": [0, 0, 0]" : NULL);
            cJSON *res = solve_doc(doc);
            const char *ends = rest ? "at rest" : "free ends";
            cr_expect_str_eq(string(res, "status"), "converged", "%d points, %s", sizes[q], ends);
            cr_expect_leq(number(res, "optimality_residual"), 1e-10, "%d points, %s", sizes[q], ends);
            cr_expect_leq(worst_miss(res), 1e-10, "%d points, %s: miss %g", sizes[q], ends, worst_miss(res));
            const int budget = sizes[q] <= 100 ? 150 : 300;
            cr_expect_leq(number(res, "sweeps"), budget, "%d points, %s: %g sweeps", sizes[q], ends,
                          number(res, "sweeps"));
            const double spline = spline_start_cost(doc, knots, s.n), ours = number(res, "running_cost");
            cr_expect_leq(ours, spline, "%d points, %s: %.10g above the spline start's %.10g", sizes[q], ends, ours,
                          spline);
            cr_log_info("%d points, %s: cost %.10g (spline start %.10g), %g sweeps, %.1f ms", sizes[q], ends, ours,
                        spline, number(res, "sweeps"), 1e3 * number(cJSON_GetObjectItem(res, "timing"), "solve_seconds"));
            cJSON_Delete(res);
            cJSON_free(doc);
            free(knots);
            kf_schedule_free(&s);
        }
}

/* Real-looking data: the viewing directions of a camera that circles a scene and looks at a
 * slowly moving target, 80 frames at uneven times (0.5–1.5 apart), exact with free ends:
 * converged through every direction, within the sweep budget, no dearer than the spline
 * start. */
Test(sphere_plan, a_cameras_viewing_directions, .timeout = 60)
{
    enum { N = 80 };
    double t[N], y[3 * N], knots[N + 1];
    unsigned long long seed = 5;
    double now = 0.0;
    kf_schedule s = {.sphere = 1, .n = N - 1, .t = t, .y = y};
    for (int k = 0; k < N; ++k) {
        const double pos[3] = {5.0 * cos(0.3 * now), 4.0 * sin(0.23 * now), 2.0 + 1.5 * sin(0.11 * now)};
        const double at[3] = {0.5 * sin(0.2 * now), 0.0, 0.3};
        double dir[3];
        for (int q = 0; q < 3; ++q) dir[q] = at[q] - pos[q];
        const double len = sp_vec_norm(3, dir);
        for (int q = 0; q < 3; ++q) dir[q] /= len;
        if (k == 0) sp_vec_copy(3, dir, s.y0);
        else t[k - 1] = now, sp_vec_copy(3, dir, y + 3 * (k - 1));
        now += 1.0 + 0.5 * uniform(&seed);
    }
    s.T = t[N - 2];
    knots_of(&s, knots);
    char *doc = sphere_doc(&s, NULL, NULL);
    cJSON *res = solve_doc(doc);
    cr_assert_str_eq(string(res, "status"), "converged");
    cr_expect_leq(worst_miss(res), 1e-10, "miss %g", worst_miss(res));
    cr_expect_leq(number(res, "sweeps"), 150, "%g sweeps", number(res, "sweeps"));
    const double spline = spline_start_cost(doc, knots, s.n), ours = number(res, "running_cost");
    cr_expect_leq(ours, spline, "%.10g above the spline start's %.10g", ours, spline);
    cr_log_info("camera, %d directions: cost %.10g (spline start %.10g), %g sweeps", N, ours, spline,
                number(res, "sweeps"));
    cJSON_Delete(res);
    cJSON_free(doc);
}

/* Weighted plans (σ = 0.05 at rest, σ = 0.3 and 1 with free ends; 60 and 100 points)
 * converge within 400 sweeps, and cost no more than exact interpolation of the same points
 * (which misses nothing). */
Test(sphere_plan, weighted_walks_converge_below_the_exact_plan, .timeout = 120)
{
    static const double sigma[] = {0.05, 0.3, 1.0};
    static const int points[] = {60, 60, 100};
    static const char *const extra[] = {"\"xi0\": [0, 0, 0]", NULL, NULL};
    for (int q = 0; q < 3; ++q) {
        kf_schedule s;
        kf_random_schedule(90 + q, 1, points[q], 0.6, 10, 0.0, &s);
        cr_assert_not_null(s.t);
        char *exact = sphere_doc(&s, NULL, extra[q]);
        s.sigma = sigma[q];
        char *weighted = sphere_doc(&s, NULL, extra[q]);
        cJSON *w, *x;
        char what[64];
        snprintf(what, sizeof what, "weighted (σ = %g) and exact", sigma[q]);
        solve_converged_pair(what, weighted, exact, &w, &x);
        cr_expect_leq(number(w, "optimality_residual"), 1e-10, "σ = %g", sigma[q]);
        cr_expect_leq(number(w, "sweeps"), 400, "σ = %g: %g sweeps", sigma[q], number(w, "sweeps"));
        cr_expect_leq(number(w, "cost"), number(x, "cost"), "σ = %g: %.10g above exact interpolation's %.10g",
                      sigma[q], number(w, "cost"), number(x, "cost"));
        cr_log_info("%d points, σ = %g: cost %.10g (exact %.10g), %g sweeps, %.1f ms", points[q], sigma[q],
                    number(w, "cost"), number(x, "cost"), number(w, "sweeps"),
                    1e3 * number(cJSON_GetObjectItem(w, "timing"), "solve_seconds"));
        cJSON_Delete(w), cJSON_Delete(x);
        cJSON_free(weighted), cJSON_free(exact);
        kf_schedule_free(&s);
    }
}

/* The distance between point k of the first samples turned by the rotation ctx (3 x 3)
 * and point k of the second. */
static double rotated_apart(const cJSON *Ya, const cJSON *Yb, int k, const void *ctx)
{
    double ya[3], yb[3], qa[3];
    row3(Ya, k, ya), row3(Yb, k, yb);
    sp_mat_vec(3, 3, ctx, ya, qa);
    return sp_vec_dist(3, qa, yb);
}

/* The cost ½∫|ξ̇|² is invariant under g → Q g Qᵀ, which takes y0 to Q y0 and the curve
 * g y0 to Q g y0: rotating the start and every point by Q rotates the plan's samples and
 * leaves its cost. */
Test(sphere_plan, a_rotated_problem_gives_the_rotated_plan, .timeout = 60)
{
    kf_schedule s;
    kf_random_schedule(81, 1, 40, 0.6, 10, 0.0, &s);
    cr_assert_not_null(s.t);
    const double axis[3] = {0.3, -0.8, 0.52};
    double Q[9], v[3];
    for (int k = 0; k < 3; ++k) v[k] = 1.1 * axis[k] / sp_vec_norm(3, axis);
    sp_group_so3->exp(sp_group_so3, v, Q);
    kf_schedule r = s;
    double y0[3], *y = malloc(3 * (size_t)s.n * sizeof *y);
    cr_assert_not_null(y);
    sp_mat_vec(3, 3, Q, s.y0, y0);
    sp_vec_copy(3, y0, r.y0);
    for (int i = 0; i < s.n; ++i) sp_mat_vec(3, 3, Q, s.y + 3 * i, y + 3 * i);
    r.y = y;
    const char *out = "\"output\": {\"sample_rate\": 4}";
    char *da = sphere_doc(&s, NULL, out), *db = sphere_doc(&r, NULL, out);
    cJSON *a, *b;
    solve_converged_pair("rotated", da, db, &a, &b);
    const double ca = number(a, "cost"), cb = number(b, "cost");
    cr_expect_leq(fabs(ca - cb), 1e-9 * ca, "costs %.12g and %.12g", ca, cb);
    const double worst = samples_worst(a, b, "y", rotated_apart, Q);
    cr_expect_leq(worst, 1e-7, "samples differ by %g after the rotation", worst);
    cr_log_info("rotated problem: costs %.12g and %.12g, samples within %.2g", ca, cb, worst);
    cJSON_Delete(a), cJSON_Delete(b);
    cJSON_free(da), cJSON_free(db);
    free(y);
    kf_schedule_free(&s);
}
