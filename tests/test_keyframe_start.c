/* The spline start of keyframe plans (planner/cubic/sp_keyframe_start.h): a curve through
 * the keyframes whose body velocity and acceleration are continuous on the group (the
 * same from both sides of every keyframe), with ξ̇ = 0 at free ends and the given ξ at a
 * prescribed one; on Rⁿ (any n) the natural cubic spline. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/keyframe_reference.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_solve.h"

static void parse(const char *doc, sp_problem *pb)
{
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), pb, &e);
    cr_assert_eq(st, SP_OK, "problem refused: %s: %s\n%.300s", e.path, e.message, doc);
}

static double dist(int n, const double *a, const double *b) { return sp_vec_dist(n, a, b); }

/* Left and right limits at every keyframe agree in g, ξ and ξ̇; the curve passes through
 * the keyframes; ξ̇ vanishes at a free end. */
static void check_c2(const sp_problem *pb, int xi0_free)
{
    sp_start_curve *c = sp_start_curve_new(pb, SP_START_SPLINE);
    cr_assert_not_null(c);
    const sp_group *G = pb->cubic.group;
    const int n = G->dim, e = G->elem_size, K = (int)pb->cubic.n_targets;
    double worst_g = 0.0, worst_xi = 0.0, worst_p = 0.0, scale = 0.0;
    for (int i = 0; i < K; ++i) {
        const double t = pb->cubic.targets[i].t, t_prev = i ? pb->cubic.targets[i - 1].t : 0.0;
        sp_hohp_state left, right;
        sp_start_curve_eval(c, t - 1e-10 * (t - t_prev), &left);
        sp_start_curve_eval(c, t, &right);
        worst_g = fmax(worst_g, dist(e, right.g, pb->cubic.targets[i].R));
        if (i + 1 == K) break; /* the last keyframe has one side */
        worst_xi = fmax(worst_xi, dist(n, left.xi, right.xi));
        worst_p = fmax(worst_p, dist(n, left.p, right.p));
        scale = fmax(scale, sp_vec_norm(n, right.p));
    }
    cr_expect_lt(worst_g, 1e-12, "keyframe missed by %g", worst_g);
    cr_expect_lt(worst_xi, 1e-8, "body velocity jumps by %g", worst_xi);
    cr_expect_lt(worst_p, 1e-6 * fmax(1.0, scale), "body acceleration jumps by %g (size %g)", worst_p, scale);
    cr_expect_gt(scale, 0.1, "a curve that does not accelerate tests nothing");
    sp_hohp_state z;
    sp_start_curve_eval(c, 0.0, &z);
    if (xi0_free)
        cr_expect_lt(sp_vec_norm(n, z.p), 1e-8, "ξ̇(0) = %g at a free start", sp_vec_norm(n, z.p));
    else
        cr_expect_lt(dist(n, z.xi, pb->xi0), 1e-12, "ξ(0) is not the prescribed one");
    sp_start_curve_eval(c, pb->cubic.targets[K - 1].t * (1.0 - 1e-12), &z);
    cr_expect_lt(sp_vec_norm(n, z.p), 1e-6, "ξ̇(T) = %g at a free end", sp_vec_norm(n, z.p));
    sp_start_curve_free(c);
}

/* A random walk on SO(3) at uneven times (0.3 to 2.3 apart), 0.9 rad per keyframe. */
static char *uneven_walk(unsigned long seed, int K, int xi0_free)
{
    kf_schedule s;
    kf_random_schedule(seed, 0, K, 0.9, 4, 0.0, &s);
    cr_assert_not_null(s.t);
    double t = 0.0;
    for (int i = 0; i < K; ++i) t += 0.3 + 2.0 * fabs(sin(1.7 * i + (double)seed)), s.t[i] = t;
    s.T = t;
    s.xi0_free = xi0_free;
    char *doc = kf_schedule_json(&s);
    kf_schedule_free(&s);
    cr_assert_not_null(doc);
    return doc;
}

Test(keyframe_start, c2_on_so3_free_and_prescribed_ends)
{
    for (int free_start = 0; free_start < 2; ++free_start) {
        char *doc = uneven_walk(11 + free_start, 40, free_start);
        sp_problem pb;
        parse(doc, &pb);
        check_c2(&pb, free_start);
        sp_problem_free(&pb);
        free(doc);
    }
}

/* Rⁿ for every n the reader accepts (the start once kept three coordinates, whatever n). */
Test(keyframe_start, natural_spline_on_rn_of_any_dimension)
{
    for (int n = 1; n <= 6; ++n) {
        char doc[8192];
        int len = snprintf(doc, sizeof doc,
                           "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R%d\", \"space\": \"group\", "
                           "\"T\": 9, \"xi0\": \"free\", \"sigma\": 0, \"g0\": [",
                           n);
        for (int k = 0; k < n; ++k) len += snprintf(doc + len, sizeof doc - (size_t)len, "%s0", k ? ", " : "");
        len += snprintf(doc + len, sizeof doc - (size_t)len, "], \"targets\": [");
        for (int i = 1; i <= 9; ++i) {
            len += snprintf(doc + len, sizeof doc - (size_t)len, "%s{\"t\": %d, \"x\": [", i > 1 ? ", " : "", i);
            for (int k = 0; k < n; ++k)
                len += snprintf(doc + len, sizeof doc - (size_t)len, "%s%.6f", k ? ", " : "", sin(1.3 * i + k));
            len += snprintf(doc + len, sizeof doc - (size_t)len, "]}");
        }
        snprintf(doc + len, sizeof doc - (size_t)len, "]}");
        sp_problem pb;
        parse(doc, &pb);
        check_c2(&pb, 1);
        /* the natural spline is the optimum: the plan needs no Newton step from it */
        cJSON *res = sp_solve_json(&pb, NULL);
        cr_assert_not_null(res);
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "status"));
        cr_expect(status && strcmp(status, "converged") == 0, "R%d: %s", n, status ? status : "no status");
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(res, "iterations");
        cr_expect(cJSON_IsNumber(it) && it->valueint == 0, "R%d: %g Newton steps from the natural spline", n,
                  cJSON_IsNumber(it) ? it->valuedouble : NAN);
        cJSON_Delete(res);
        sp_problem_free(&pb);
    }
}
