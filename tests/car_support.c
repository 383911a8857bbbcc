/* The car's plans: a solve, the checks of tests/test_car.c and tests/test_car_scenes.c, a
 * route smoothed by one solver. */
#include "tests/car_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/sp_solve.h"
#include "problems/car/sp_car_geometry.h"

double car_result_number(const cJSON *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(r, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

/* The rows against the kinematics, the clearance between rows, the goal. */
void car_check_plan(const cJSON *r, const cJSON *input)
{
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
    cr_assert(status && (strcmp(status, "converged") == 0 || strcmp(status, "stalled") == 0), "status %s", status);
    cr_expect_leq(car_result_number(r, "goal_error"), 1e-6);
    sp_problem pb;
    sp_input_error err;
    char *text = cJSON_PrintUnformatted(input);
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_OK, "%s: %s", err.path, err.message);
    free(text);
    const sp_car_problem *c = &pb.car;
    const double L = c->vehicle.wheelbase, *o = c->scene.origin;
    /* rows are in the file's coordinates: far from the origin (TPCAP's cases lie 4e9 m
     * out) a coordinate holds its value only to half the spacing of doubles there, and
     * the relations between rows hold to a few such spacings */
    const double far = fmax(fabs(o[0]), fabs(o[1])), tol = 1e-9 + 8.0 * (nextafter(far, HUGE_VAL) - far);
    const cJSON *traj = cJSON_GetObjectItem(r, "trajectory"), *q = cJSON_GetObjectItem(traj, "q"),
                *gear = cJSON_GetObjectItem(traj, "gear");
    const int n = cJSON_GetArraySize(q);
    cr_assert_gt(n, 2);
    cr_assert_eq(cJSON_GetArraySize(gear), n);
    double row[4], next[4], least = HUGE_VAL;
    for (int k = 0; k < 4; ++k) row[k] = cJSON_GetArrayItem(cJSON_GetArrayItem(q, 0), k)->valuedouble;
    cr_expect_leq(hypot(row[0] - o[0] - c->scene.start[0], row[1] - o[1] - c->scene.start[1]), 1e-9);
    for (int i = 1; i < n; ++i) {
        for (int k = 0; k < 4; ++k) next[k] = cJSON_GetArrayItem(cJSON_GetArrayItem(q, i), k)->valuedouble;
        const int g = cJSON_GetArrayItem(gear, i - 1)->valueint;
        cr_assert(g == 1 || g == -1);
        cr_expect_leq(fabs(row[3]), c->vehicle.max_steering + 1e-12);
        /* the arc of curvature tan δ / L from this row through the next one's heading */
        const double kappa = tan(row[3]) / L, dth = next[2] - row[2], chord = hypot(next[0] - row[0], next[1] - row[1]);
        const double phi = 0.5 * dth, s = g * chord / (fabs(phi) < 1e-8 ? 1.0 : sin(phi) / phi);
        cr_expect_leq(fabs(s), 0.1 + 1e-12, "rows %d, %d are %.3f m of travel apart", i - 1, i, fabs(s));
        cr_expect_leq(fabs(dth - kappa * s), tol, "row %d: heading change %.3e, the bicycle's %.3e", i, dth, kappa * s);
        /* the chord leaves at half the turn, along the gear */
        const double a = row[2] + phi;
        cr_expect_leq(fabs((next[0] - row[0]) - s * (fabs(phi) < 1e-8 ? 1.0 : sin(phi) / phi) * cos(a)) +
                          fabs((next[1] - row[1]) - s * (fabs(phi) < 1e-8 ? 1.0 : sin(phi) / phi) * sin(a)),
                      tol, "row %d: sideways slip", i);
        /* clearance on 20 poses of the arc between the rows */
        for (int j = 0; j <= 20; ++j) {
            const double u = s * j / 20.0, ph = 0.5 * kappa * u, ch = u * (fabs(ph) < 1e-8 ? 1.0 : sin(ph) / ph);
            const double pose[3] = {row[0] - o[0] + ch * cos(row[2] + ph), row[1] - o[1] + ch * sin(row[2] + ph),
                                    row[2] + 2 * ph};
            for (size_t b = 0; b < c->scene.n_obstacles; ++b)
                least = fmin(least, sp_car_polygon_distance(&c->vehicle, pose, c->scene.vertices + 2 * c->scene.first[b],
                                                            c->scene.first[b + 1] - c->scene.first[b], NULL, NULL));
        }
        memcpy(row, next, sizeof row);
    }
    cr_expect_geq(least, c->scene.clearance - 1e-3, "least clearance between rows %.4f", least);
    cr_expect_leq(fabs(least - car_result_number(r, "min_clearance")), 0.02);
    const double *goal = c->scene.goal;
    cr_expect_leq(hypot(row[0] - o[0] - goal[0], row[1] - o[1] - goal[1]), 1e-6);
    cr_expect_leq(fabs(remainder(row[2] - goal[2], 2 * 3.14159265358979323846)), 1e-6);
    sp_problem_free(&pb);
}

void car_set_max_seconds(cJSON *doc, double seconds)
{
    cJSON *search = cJSON_GetObjectItem(doc, "search");
    if (!search) search = cJSON_AddObjectToObject(doc, "search");
    cJSON_DeleteItemFromObject(search, "max_seconds");
    cJSON_AddNumberToObject(search, "max_seconds", seconds);
}

void car_smooth_after(const char *text, car_smooth_method how, double route_cpu, car_smooth_out *out)
{
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_OK, "%s", err.message);
    const sp_car_problem *c = &pb.car;
    car_world w;
    cr_assert_eq(car_world_init(&w, c), SP_OK);
    car_route r;
    cr_assert_eq(car_route_search(&w, c, NULL, &r), SP_OK);
    cr_assert(r.found, "%s", r.message);
    if (route_cpu >= 0) r.cpu_seconds = route_cpu;
    double end[3] = {c->scene.start[0], c->scene.start[1], c->scene.start[2]};
    for (size_t i = 0; i < r.n; ++i)
        car_arc(end, tan(r.pieces[i].delta) / c->vehicle.wheelbase, r.pieces[i].gear * r.pieces[i].length, end);
    const double g = c->scene.goal[2], goal[3] = {c->scene.goal[0], c->scene.goal[1],
                                                  g + 2.0 * SP_PI * round((end[2] - g) / (2.0 * SP_PI))};
    car_path p = {0};
    cr_assert_eq(car_smooth_by(&w, c, &r, goal, NULL, how, &p, out), SP_OK);
    car_path_free(&p);
    car_route_free(&r);
    car_world_free(&w);
    sp_problem_free(&pb);
}
