/* A plan built in C, without a problem file: a Riemannian cubic on the sphere S² that
 * starts at y0 = (1, 0, 0) with body velocity (0, 0, 1) and passes near two keyframes.
 * The setters name what a problem file would say; everything left out takes the default a
 * file would get (scheme, retraction, tolerances). The planned curve is then read between
 * the grid's nodes.
 *
 *     cc plan_in_c.c $(pkg-config --cflags --libs symplan) -o plan_in_c && ./plan_in_c
 *
 * Exits 0 when the plan converged. */
#include <stdio.h>

#include <symplan/symplan.h>

/* The problem: every setter copies what it is given. */
static sp_status build(symplan_problem *pb)
{
    static const double y0[3] = {1.0, 0.0, 0.0}, xi0[3] = {0.0, 0.0, 1.0};
    static const double y1[3] = {0.6, 0.8, 0.0}, y2[3] = {0.0, 1.0, 0.0};
    sp_status st = symplan_problem_set_name(pb, "group", "SO3");
    if (st == SP_OK) st = symplan_problem_set_name(pb, "space", "sphere");
    if (st == SP_OK) st = symplan_problem_set_vector(pb, "y0", 3, y0);
    if (st == SP_OK) st = symplan_problem_set_vector(pb, "xi0", 3, xi0);
    if (st == SP_OK) st = symplan_problem_set_horizon(pb, 1.0);
    if (st == SP_OK) st = symplan_problem_set_steps(pb, 100);
    if (st == SP_OK) st = symplan_problem_set_weight(pb, 0.1); /* 0 asks for exact interpolation */
    if (st == SP_OK) st = symplan_problem_add_point_target(pb, 0.5, y1);
    if (st == SP_OK) st = symplan_problem_add_point_target(pb, 1.0, y2);
    return st;
}

int main(void)
{
    symplan_problem *pb;
    if (symplan_problem_new(SYMPLAN_PLAN, "cubic_spline", &pb) != SP_OK) return 1;
    char error[512];
    symplan_result *result = NULL;
    sp_status st = build(pb);
    if (st == SP_OK) st = symplan_solve(pb, NULL, &result, error, sizeof error);
    symplan_problem_free(pb); /* the result does not need it */
    if (st != SP_OK) {
        fprintf(stderr, "%s\n", st == SP_ERR_INVALID ? error : sp_status_message(st));
        return 1;
    }
    const symplan_status status = symplan_result_status(result);
    printf("plan on S^2: %s, cost %.12g%s%s\n", symplan_status_name(status), symplan_result_cost(result),
           symplan_status_done(status) ? "" : " — ", symplan_result_message(result));
    /* the distance to each keyframe */
    for (int i = 0;; ++i) {
        char t_path[32], d_path[32];
        double t, d;
        snprintf(t_path, sizeof t_path, "targets[%d].t", i);
        snprintf(d_path, sizeof d_path, "targets[%d].distance", i);
        if (symplan_result_number(result, t_path, &t) != SP_OK || symplan_result_number(result, d_path, &d) != SP_OK)
            break;
        printf("  t = %-4g distance %.6g\n", t, d);
    }
    /* the curve, ours from here on: the point y(t) = R(t) y0 halfway between two nodes */
    sp_plan_curve *curve = symplan_result_take_curve(result);
    double R[9], y0[3];
    const double t = 0.255;
    if (curve && sp_plan_curve_y0(curve, y0) && sp_plan_curve_sample(curve, 1, &t, R, NULL, NULL) == SP_TEXT_OK)
        printf("  y(%g) = (%.6f, %.6f, %.6f)\n", t, R[0] * y0[0] + R[1] * y0[1] + R[2] * y0[2],
               R[3] * y0[0] + R[4] * y0[1] + R[5] * y0[2], R[6] * y0[0] + R[7] * y0[1] + R[8] * y0[2]);
    sp_plan_curve_free(curve);
    const int ok = symplan_status_done(status) && curve;
    symplan_result_free(result);
    return ok ? 0 : 1;
}
