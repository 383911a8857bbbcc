/* The car among obstacles (model car; README "Parking a car"): the footprint–polygon
 * distance against brute force and its gradient against differences; plans whose rows
 * obey the bicycle kinematics (checked arc by arc from the rows themselves), keep the
 * clearance along the swept footprint (checked here on poses between the rows), reach the
 * goal to 1e-6; a goal no route reaches is reported promptly; bad files name their JSON
 * path; a few TPCAP cases (data/tpcap) are solved. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
#include "planner/sp_solve.h"
#include "problems/car/sp_car_geometry.h"
#include "problems/car/sp_car_tpcap.h"
#include "tests/car_support.h"
#include "tests/car_threads.h"

#include <lapacke.h>

static const sp_car_vehicle tpcap_car = {2.8, 0.96, 0.929, 1.942, 0.75, 0.0};

/* The distance between two polygons' boundaries by sampling both densely: an upper
 * bound within half the sample step of the truth. */
static double brute_distance(const double *a, int na, const double *b, int nb, int samples)
{
    double best = HUGE_VAL;
    for (int i = 0; i < na; ++i)
        for (int s = 0; s < samples; ++s) {
            const double u = (double)s / samples, p[2] = {a[2 * i] + u * (a[2 * ((i + 1) % na)] - a[2 * i]),
                                                          a[2 * i + 1] + u * (a[2 * ((i + 1) % na) + 1] - a[2 * i + 1])};
            for (int j = 0; j < nb; ++j) {
                double c[2];
                best = fmin(best, sp_car_segment_distance(p, b + 2 * j, b + 2 * ((j + 1) % nb), c));
            }
        }
    return best;
}

static double uniform(unsigned *state, double lo, double hi)
{
    *state = *state * 1103515245u + 12345u;
    return lo + (hi - lo) * ((*state >> 8) & 0xFFFF) / 65535.0;
}

/* A random polygon of n vertices (star-shaped about a random centre, not necessarily
 * convex) near the car, and a random pose of the car. */
static void random_scene(unsigned *st, int n, double *poly, double pose[3])
{
    const double cx = uniform(st, -4, 8), cy = uniform(st, -4, 4);
    for (int k = 0; k < n; ++k) {
        const double a = 2 * 3.14159265358979 * (k + uniform(st, 0, 0.8)) / n, r = uniform(st, 0.3, 2.0);
        poly[2 * k] = cx + r * cos(a), poly[2 * k + 1] = cy + r * sin(a);
    }
    pose[0] = uniform(st, -1, 1), pose[1] = uniform(st, -1, 1), pose[2] = uniform(st, -3, 3);
}

Test(car, footprint_polygon_distance_matches_brute_force_and_its_gradient_differences)
{
    unsigned st = 7;
    int apart = 0, overlapping = 0;
    for (int trial = 0; trial < 300; ++trial) {
        /* a random triangle or quadrilateral (not necessarily convex) near the car */
        const int n = 3 + trial % 2;
        double poly[8], pose[3];
        random_scene(&st, n, poly, pose);
        double grad[3], car[8];
        const double d = sp_car_polygon_distance(&tpcap_car, pose, poly, (size_t)n, grad, NULL);
        sp_car_footprint(&tpcap_car, pose, car);
        if (d > 0) {
            ++apart;
            const double b = brute_distance(car, 4, poly, n, 2000);
            cr_expect(d <= b + 1e-12 && b - d <= 3e-3, "trial %d: %.6f vs brute force %.6f", trial, d, b);
            if (d > 1e-3) {
                for (int i = 0; i < 3; ++i) {
                    double qp[3] = {pose[0], pose[1], pose[2]}, qm[3] = {pose[0], pose[1], pose[2]};
                    qp[i] += 1e-7, qm[i] -= 1e-7;
                    const double fd = (sp_car_polygon_distance(&tpcap_car, qp, poly, (size_t)n, NULL, NULL) -
                                       sp_car_polygon_distance(&tpcap_car, qm, poly, (size_t)n, NULL, NULL)) / 2e-7;
                    cr_expect(fabs(fd - grad[i]) <= 1e-5 * (1 + fabs(fd)), "trial %d, d/dq%d: %.8f vs %.8f", trial, i,
                              grad[i], fd);
                }
            }
        } else {
            ++overlapping;
            /* overlap: some corner inside the polygon, some vertex inside the car, or
             * crossing edges; the brute force then finds touching boundaries */
            const int inside = sp_car_point_in_polygon(poly, car, 4) || sp_car_point_in_polygon(car, poly, (size_t)n);
            cr_expect(inside || brute_distance(car, 4, poly, n, 2000) < 5e-3, "trial %d: overlap not seen by brute force",
                      trial);
        }
    }
    cr_expect(apart > 50 && overlapping > 20, "%d apart, %d overlapping", apart, overlapping);
}

/* Feature f of the random scene (−1: the whole distance; 0…3 a corner's; 4 + j vertex
 * j's) with its derivatives. */
static double piece_distance(const double pose[3], const double *poly, int n, int f, double grad[3], double hess[9])
{
    if (f < 0) return sp_car_polygon_distance(&tpcap_car, pose, poly, (size_t)n, grad, hess);
    if (f < 4) return sp_car_corner_distance(&tpcap_car, pose, f, poly, (size_t)n, grad, hess);
    return sp_car_vertex_distance(&tpcap_car, pose, poly + 2 * (f - 4), grad, hess);
}

/* The pieces of the distance (sp_car_corner_distance, sp_car_vertex_distance): their least
 * is the footprint–polygon distance when apart. The distance and each piece, apart and
 * overlapping, have first and second derivatives in the pose that match central
 * differences (of the value, of the gradient) wherever the two one-sided differences
 * agree: a piece is smooth off the polygon's medial axis, and its curvature is that of
 * its pair of closest points while the pair keeps its kind. All three kinds occur (two
 * vertices; a corner and a polygon's edge; a polygon's vertex and a car's edge), and
 * their curvatures differ. */
Test(car, distances_and_their_pieces_match_central_differences_to_second_order)
{
    unsigned st = 5;
    int apart = 0, overlapping = 0, checked[2] = {0, 0}, skipped[2] = {0, 0};
    double worst[2] = {0.0, 0.0};
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 3 + trial % 3;
        double poly[10], pose[3];
        random_scene(&st, n, poly, pose);
        const double d = sp_car_polygon_distance(&tpcap_car, pose, poly, (size_t)n, NULL, NULL);
        if (d > 1e-3) {
            ++apart;
            double least = HUGE_VAL;
            for (int f = 0; f < 4 + n; ++f) least = fmin(least, piece_distance(pose, poly, n, f, NULL, NULL));
            cr_expect(fabs(least - d) <= 1e-12, "trial %d: least piece %.15f, distance %.15f", trial, least, d);
        }
        overlapping += d < 0.0;
        for (int f = -1; f < 4 + n; ++f) {
            double grad[3], hess[9];
            const double e = piece_distance(pose, poly, n, f, grad, hess);
            if (fabs(e) < 1e-3) continue;
            for (int j = 0; j < 3; ++j) {
                const double h = 1e-6;
                double qp[3] = {pose[0], pose[1], pose[2]}, qm[3] = {pose[0], pose[1], pose[2]}, gp[3], gm[3];
                qp[j] += h, qm[j] -= h;
                const double ep = piece_distance(qp, poly, n, f, gp, NULL);
                const double em = piece_distance(qm, poly, n, f, gm, NULL);
                if (fabs((ep - e) - (e - em)) / h > 1e-3) {
                    ++skipped[0];
                } else {
                    ++checked[0];
                    worst[0] = fmax(worst[0], fabs((ep - em) / (2 * h) - grad[j]) / (1 + fabs(grad[j])));
                }
                for (int i = 0; i < 3; ++i) {
                    if (fabs((gp[i] - grad[i]) - (grad[i] - gm[i])) / h > 1e-3) {
                        ++skipped[1];
                        continue;
                    }
                    ++checked[1];
                    const double c = hess[3 * i + j];
                    worst[1] = fmax(worst[1], fabs((gp[i] - gm[i]) / (2 * h) - c) / (1 + fabs(c)));
                }
            }
        }
    }
    cr_expect_gt(apart, 100);
    cr_expect_gt(overlapping, 20);
    for (int o = 0; o < 2; ++o)
        cr_expect_gt(checked[o], 20 * skipped[o], "order %d: %d derivatives checked, %d skipped at kinks", o + 1,
                     checked[o], skipped[o]);
    cr_expect_leq(worst[0], 1e-6, "gradient off by %.2e", worst[0]);
    cr_expect_leq(worst[1], 1e-5, "second derivative off by %.2e", worst[1]);
}

/* The car parallel to a kerb, both right-hand corners 0.3 m from it: the least distance
 * kinks in θ there (turning one way brings the front corner nearer, the other way the rear
 * one), while each corner's own distance is smooth: the reason the smoothing constrains
 * the pieces where two of them tie. */
Test(car, two_corners_along_a_kerb_kink_the_distance_but_not_its_pieces)
{
    const double w = 0.5 * tpcap_car.width, kerb[8] = {-10, -w - 0.3, 10, -w - 0.3, 10, -w - 1.3, -10, -w - 1.3};
    const double h = 1e-6, pose[3] = {0, 0, 0}, up[3] = {0, 0, h}, down[3] = {0, 0, -h};
    const double d0 = sp_car_polygon_distance(&tpcap_car, pose, kerb, 4, NULL, NULL);
    const double right = (sp_car_polygon_distance(&tpcap_car, up, kerb, 4, NULL, NULL) - d0) / h;
    const double left = (d0 - sp_car_polygon_distance(&tpcap_car, down, kerb, 4, NULL, NULL)) / h;
    cr_expect_leq(fabs(d0 - 0.3), 1e-12, "distance %.15f", d0);
    cr_expect_gt(fabs(right - left), 1.0, "one-sided slopes %.6f and %.6f: no kink", left, right);
    for (int corner = 0; corner < 2; ++corner) {
        double grad[3];
        const double c0 = sp_car_corner_distance(&tpcap_car, pose, corner, kerb, 4, grad, NULL);
        const double r = (sp_car_corner_distance(&tpcap_car, up, corner, kerb, 4, NULL, NULL) - c0) / h;
        const double l = (c0 - sp_car_corner_distance(&tpcap_car, down, corner, kerb, 4, NULL, NULL)) / h;
        cr_expect_leq(fabs(c0 - 0.3), 1e-12, "corner %d: %.15f", corner, c0);
        cr_expect_leq(fabs(r - l), 1e-5, "corner %d: one-sided slopes %.8f and %.8f", corner, l, r);
        cr_expect_leq(fabs(grad[2] - 0.5 * (r + l)), 1e-5, "corner %d: dθ %.8f vs %.8f", corner, grad[2],
                      0.5 * (r + l));
    }
}

static cJSON *solve_text(const char *text, sp_input_error *err, sp_status *st)
{
    sp_problem pb;
    *st = sp_problem_parse(text, strlen(text), &pb, err);
    if (*st != SP_OK) return NULL;
    cJSON *r = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    return r;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The text of data/car/<name>, the caller's to free. */
static char *car_file_text(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/car/%s", SP_TEST_DATA, name);
    return slurp(path);
}

/* The problem of data/car/<name> and its world, both the caller's to free. */
static void car_file_world(const char *name, sp_problem *pb, car_world *w)
{
    char *text = car_file_text(name);
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), pb, &err), SP_OK, "%s", err.message);
    free(text);
    /* only the counted limits bind, so that the route is the same on any processor (under
     * the sanitizers, narrow_slot.json's took more than its 8 s of processor time) */
    pb->car.settings.max_seconds = 1000.0;
    cr_assert_eq(car_world_init(w, &pb->car), SP_OK);
}

/* The plan of data/car/<name>, with search.max_seconds set when `budget` is positive,
 * checked by check_plan; the result is the caller's. */
static cJSON *plan_result_within(const char *name, double budget)
{
    char *text = car_file_text(name);
    cJSON *input = cJSON_Parse(text);
    cr_assert_not_null(input);
    if (budget > 0) {
        car_set_max_seconds(input, budget);
        free(text);
        text = cJSON_PrintUnformatted(input);
    }
    sp_input_error err;
    sp_status st;
    cJSON *r = solve_text(text, &err, &st);
    cr_assert_eq(st, SP_OK, "%s: %s", err.path, err.message);
    car_check_plan(r, input);
    cJSON_Delete(input);
    free(text);
    return r;
}

static cJSON *plan_result(const char *name) { return plan_result_within(name, 0.0); }

static void plan_file(const char *name, double length, int gears)
{
    cJSON *r = plan_result(name);
    if (length > 0) cr_expect_leq(fabs(car_result_number(r, "length") - length), 1e-9);
    if (gears >= 0) cr_expect_eq((int)car_result_number(r, "gear_changes"), gears);
    cJSON_Delete(r);
}

Test(car, a_straight_drive_is_the_straight_line) { plan_file("straight.json", 10.0, 0); }

Test(car, parallel_parking_between_two_cars_keeps_the_clearance) { plan_file("parallel_slot.json", 0, -1); }

Test(car, a_goal_walled_in_is_target_not_reached_at_once)
{
    char *text = car_file_text("walled_in.json");
    sp_input_error err;
    sp_status st;
    cJSON *r = solve_text(text, &err, &st);
    cr_assert_not_null(r);
    /* at once: refused before the search expands a node */
    const cJSON *route = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "route");
    cr_expect_eq(car_result_number(route, "expanded_nodes"), 0);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "target_not_reached");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "failed_stage")), "route");
    cJSON_Delete(r);
    free(text);
}

static void expect_refused(const char *text, const char *path, const char *words)
{
    sp_problem pb;
    sp_input_error err;
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &err), SP_ERR_INVALID, "accepted: %s", text);
    cr_expect_str_eq(err.path, path, "%s", err.message);
    cr_expect(strstr(err.message, words) != NULL, "%s: %s", err.path, err.message);
}

#define VEHICLE "\"vehicle\": {\"wheelbase\": 2.8, \"front_overhang\": 0.96, \"rear_overhang\": 0.929, \"width\": 1.942, "
Test(car, bad_files_name_their_json_path)
{
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", " VEHICLE "\"max_steering\": 0.75}, \"start\": [0, 0, 0], "
                   "\"goal\": [10, 0, 0], \"obstacles\": [[[20, 0], [21, 0]]]}",
                   "obstacles[0]", "at least 3 vertices");
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", " VEHICLE "\"max_steering\": 0.75}, \"start\": [0, 0, 0], "
                   "\"goal\": [10, 0, 0], \"obstacles\": [[[-1, -1], [1, -1], [1, 1], [-1, 1]]]}",
                   "start", "inside obstacles[0]");
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", " VEHICLE "\"max_steering\": 0.75}, \"start\": [0, 0, 0], "
                   "\"goal\": [10, 0, 0], \"obstacles\": [[[9, -1], [11, -1], [11, 1], [9, 1]]]}",
                   "goal", "inside obstacles[0]");
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", " VEHICLE "\"max_steering\": 1.6}, \"start\": [0, 0, 0], "
                   "\"goal\": [10, 0, 0]}",
                   "vehicle.max_steering", "below");
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", \"vehicle\": {\"wheelbase\": 2.8, \"front_overhang\": 0.96, "
                   "\"rear_overhang\": 0.929, \"width\": -1, \"max_steering\": 0.7}, \"start\": [0, 0, 0], \"goal\": [10, 0, 0]}",
                   "vehicle.width", "positive");
    expect_refused("{\"task\": \"plan\", \"model\": \"car\", " VEHICLE "\"max_steering\": 0.75}, \"start\": [0, 0, 0], "
                   "\"goal\": [10, 0, 0], \"bounds\": [-2, -3, 8, 3]}",
                   "goal", "out of bounds");
}

/* TPCAP case k through `import tpcap`, as a problem file (the caller frees it); `budget`
 * (not 0) replaces the 8 s of the search and the smoothing, so that only their counted
 * limits (nodes, the smoothing's evaluations) bind; `evaluations` (not 0) replaces the
 * smoothing's budget of evaluations. *doc (may be NULL) gets the problem as a tree. */
static char *tpcap_text(int k, double budget, long evaluations, cJSON **doc_out)
{
    char path[512], name[16];
    snprintf(path, sizeof path, "%s/tpcap/Case%d.csv", SP_TEST_DATA, k);
    snprintf(name, sizeof name, "Case%d", k);
    char *text = slurp(path);
    cJSON *doc;
    sp_input_error err;
    cr_assert_eq(sp_car_tpcap_problem(text, strlen(text), name, &doc, &err), SP_OK, "%s", err.message);
    if (budget > 0) car_set_max_seconds(doc, budget);
    if (evaluations > 0)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(doc, "smoothing"), "max_evaluations", (double)evaluations);
    char *json = cJSON_PrintUnformatted(doc);
    free(text);
    if (doc_out)
        *doc_out = doc;
    else
        cJSON_Delete(doc);
    return json;
}

/* The plan of TPCAP case k (tpcap_text), checked by check_plan; smooth 0 asks for the
 * route alone ("smooth": false). The result is the caller's. */
static cJSON *tpcap_result_within(int k, double budget, long evaluations, int smooth)
{
    cJSON *doc;
    char *json = tpcap_text(k, budget, evaluations, &doc);
    if (!smooth) {
        free(json);
        cJSON_AddFalseToObject(doc, "smooth");
        json = cJSON_PrintUnformatted(doc);
    }
    sp_input_error err;
    sp_status st;
    cJSON *r = solve_text(json, &err, &st);
    cr_assert_eq(st, SP_OK, "%s: %s", err.path, err.message);
    car_check_plan(r, doc);
    cJSON_Delete(doc);
    free(json);
    return r;
}

static cJSON *tpcap_result(int k, double budget) { return tpcap_result_within(k, budget, 0, 1); }

static void tpcap_case(int k) { cJSON_Delete(tpcap_result(k, 0)); }

/* a reverse bay, a slot entered forwards, and one of the cases 4·10⁹ m out */
Test(car, tpcap_case_1) { tpcap_case(1); }
Test(car, tpcap_case_5) { tpcap_case(5); }
Test(car, tpcap_case_13) { tpcap_case(13); }
Test(car, tpcap_case_16) { tpcap_case(16); }

static void smooth_alone(const char *text, car_smooth_method how, car_smooth_out *out)
{
    car_smooth_after(text, how, -1.0, out);
}

/* A plan ends within search.max_seconds + 1.5 of processor time: the smoothing gets
 * search.max_seconds, less what the route took beyond 1.5 s and 0.05 s for the result,
 * and at least 2 s. */
Test(car, the_smoothing_gets_the_time_the_route_left)
{
    char *text = car_file_text("straight.json");
    const double took[] = {0.0, 1.0, 4.0, 7.0, 9.0}, given[] = {8.0, 8.0, 5.45, 2.45, 2.0};
    for (int i = 0; i < 5; ++i) {
        car_smooth_out out;
        car_smooth_after(text, CAR_SMOOTH_AUTO, took[i], &out);
        cr_expect_float_eq(out.max_seconds, given[i], 1e-12, "route %.1f s: smoothing given %g s", took[i], out.max_seconds);
        cr_expect(out.used && out.converged, "%s", out.message);
    }
    free(text);
    cJSON *r = plan_result("parallel_slot.json");
    const double route = car_result_number(cJSON_GetObjectItem(r, "timing"), "route_cpu_seconds");
    const double smooth = car_result_number(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth"), "max_seconds");
    cr_expect_float_eq(smooth, fmax(2.0, fmin(8.0, 9.45 - route)), 1e-12);
    cJSON_Delete(r);
}

/* Case 12 (23 m along a kerb): SLSQP stops on its step test with the stationarity near
 * 1e-5 (its merit function rejects full steps near the solution); Newton's steps on the
 * KKT conditions of its active set take the residual below the tolerance. The plan (the
 * augmented Lagrangian first) converges too. A budget of 1000 s: only the evaluation
 * limits bind. */
Test(car, tpcap_case_12_converges_with_newton_steps_after_slsqp)
{
    cJSON *r = tpcap_result(12, 1000);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")));
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_lt(car_result_number(r, "energy"), car_result_number(sw, "route_energy"));
    cJSON_Delete(r);
    char *text = tpcap_text(12, 1000, 0, NULL);
    car_smooth_out so;
    smooth_alone(text, CAR_SMOOTH_SLSQP, &so);
    free(text);
    cr_expect(so.converged, "%s", so.message);
    cr_expect(strstr(so.message, "SLSQP") != NULL, "%s", so.message);
    cr_expect_leq(so.residual, 1e-6);
    cr_expect_geq(so.newton_steps, 1);
}

/* The augmented Lagrangian alone, on routes where it used to stall (the bounds penalised,
 * the multipliers moved from far outside, the footprint pushed into an obstacle before
 * its pair held): converged to the KKT tolerance, with no other solver's help. */
static void al_alone_converges(const char *text)
{
    car_smooth_out so;
    smooth_alone(text, CAR_SMOOTH_AL, &so);
    cr_expect(so.used && so.converged, "%s", so.message);
    cr_expect(strstr(so.message, "augmented Lagrangian") != NULL, "%s", so.message);
    cr_expect_leq(so.residual, 1e-6);
    cr_expect_null(so.budget);
}

Test(car, the_augmented_lagrangian_alone_converges_on_tpcap_cases_1_and_13)
{
    for (int k = 1; k <= 13; k += 12) {
        char *text = tpcap_text(k, 1000, 0, NULL);
        al_alone_converges(text);
        free(text);
    }
}

Test(car, the_augmented_lagrangian_alone_converges_on_the_parallel_slot)
{
    char *text = car_file_text("parallel_slot.json");
    al_alone_converges(text);
    free(text);
}

/* The route laid out by its pieces (car_tx_init_pieces) starts where the interior-point
 * method needs it: on the route itself, every defect zero and every checked point at
 * least the clearance from every polygon, with a joint wherever the steering or the gear
 * changes. */
Test(car, the_route_laid_out_by_its_pieces_is_the_route)
{
    sp_problem pb;
    car_world w;
    car_file_world("narrow_slot.json", &pb, &w);
    car_route r;
    cr_assert_eq(car_route_search(&w, &pb.car, NULL, &r), SP_OK);
    cr_assert(r.found);
    double goal[3] = {pb.car.scene.start[0], pb.car.scene.start[1], pb.car.scene.start[2]};
    size_t changes = 0;
    for (size_t i = 0; i < r.n; ++i) {
        car_arc(goal, tan(r.pieces[i].delta) / pb.car.vehicle.wheelbase, r.pieces[i].gear * r.pieces[i].length, goal);
        changes += i > 0 && (r.pieces[i].delta != r.pieces[i - 1].delta || r.pieces[i].gear != r.pieces[i - 1].gear);
    }
    car_tx t;
    cr_assert_eq(car_tx_init_pieces(&t, &w, &pb.car, &r, goal), SP_OK);
    size_t joints = 0;
    for (size_t k = 0; k < t.N; ++k) joints += t.joint[k];
    cr_expect_eq(joints, changes);
    double *x = calloc(t.n, sizeof *x), *lb = calloc(t.n, sizeof *lb), *ub = calloc(t.n, sizeof *ub);
    car_tx_guess(&t, &r, x);
    car_tx_bounds(&t, lb, ub);
    for (size_t j = 0; j < t.n; ++j) cr_expect(x[j] >= lb[j] - 1e-7 && x[j] <= ub[j] + 1e-7, "unknown %zu off its bounds", j);
    double *f = calloc(3 * t.N, sizeof *f);
    car_tx_defects(&t, x, f, NULL);
    double worst = 0.0;
    for (size_t i = 0; i < 3 * t.N; ++i) worst = fmax(worst, fabs(f[i]));
    cr_expect_leq(worst, 1e-12, "defect %.2e", worst);
    cr_expect_leq(car_tx_depth(&t, x), 1e-9);
    free(x), free(lb), free(ub), free(f);
    car_tx_free(&t);
    car_route_free(&r);
    car_world_free(&w);
    sp_problem_free(&pb);
}

/* The interior-point method alone (from the route laid out by its pieces) converges on
 * TPCAP case 1 to the KKT tolerance, on its own transcription. */
Test(car, the_interior_point_method_alone_converges_on_tpcap_case_1)
{
    char *text = tpcap_text(1, 1000, 0, NULL);
    car_smooth_out so;
    smooth_alone(text, CAR_SMOOTH_IP, &so);
    free(text);
    cr_expect(so.used && so.converged, "%s", so.message);
    cr_expect(strstr(so.message, "interior-point") != NULL, "%s", so.message);
    cr_expect_leq(so.residual, 1e-6);
}

/* Case 11 (31 m along a kerb, 173 unknowns): the smoothing converges within a budget
 * of 400 evaluations of the energy (it needs about 190, the augmented Lagrangian given
 * half of them first), with no time limit that could bind; the budget and what was used
 * are reported. */
Test(car, tpcap_case_11_converges_within_a_budget_of_evaluations)
{
    cJSON *r = tpcap_result_within(11, 1000, 400, 1);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")));
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_eq(car_result_number(sw, "max_evaluations"), 400);
    cr_expect_leq(car_result_number(sw, "evaluations"), 400);
    cr_expect_geq(car_result_number(sw, "evaluations"), 1);
    cr_expect_null(cJSON_GetObjectItem(sw, "budget_used_up"));
    cr_expect_lt(car_result_number(r, "energy"), car_result_number(sw, "route_energy"));
    cJSON_Delete(r);
}

/* The same case with 20 evaluations: the budget runs out, says so, and the plan is still
 * a collision-free path to the goal (check_plan). */
Test(car, a_smoothing_budget_of_evaluations_that_runs_out_is_reported)
{
    cJSON *r = tpcap_result_within(11, 1000, 20, 1);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_leq(car_result_number(sw, "evaluations"), 20);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(sw, "budget_used_up")), "max_evaluations");
    cr_expect_str_neq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged");
    cJSON_Delete(r);
}

/* A parallel slot 0.6 m longer than the car and 0.23 m from the kerb: at the goal none
 * of the search's arcs is free, so the way out of the slot (car_escape.c) starts the
 * search from the goal; the plan keeps the clearance along its swept footprint and ends
 * at the goal (check_plan), with the gear changes the manoeuvre needs. */
Test(car, a_narrow_parallel_slot_is_left_by_short_moves_at_full_lock)
{
    /* a budget of 1000 s, so that only the counted limits bind (under the sanitizers the
     * route alone took more than the default 8 s) */
    cJSON *r = plan_result_within("narrow_slot.json", 1000.0);
    const cJSON *route = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "route");
    cr_expect_gt(car_result_number(route, "escape_nodes"), 0);
    cr_expect_geq(car_result_number(r, "gear_changes"), 4);
    /* S-bends within one gear and gear changes counted first: 18 (once 156) */
    cr_expect_leq(car_result_number(r, "gear_changes"), 30);
    cr_expect_geq(car_result_number(r, "min_clearance"), 0.05 - 1e-9);
    /* smoothed, the interior-point method first (the route leaves a confined pose), to a
     * local optimum: 168 evaluations. Before its filter it took 4540 and 12 s for its
     * first solve, and its solution's least-squares multipliers broke the sign (0.12) where
     * its own certify it (8e-11); the plan was stalled. */
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")));
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    const cJSON *smooth = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_leq(car_result_number(smooth, "evaluations"), 2000);
    cJSON_Delete(r);
}

/* TPCAP case 7, a parallel slot 0.5 m longer than the car and 0.17 m from the kerb, at
 * the default clearance of 0.05 m (0.4 m of play along the car, 0.12 m towards the
 * kerb): the way out of the slot is found and the plan keeps the clearance to the goal
 * (check_plan). The route is returned as it is (the smoothing does not yet converge on
 * a route of this many pieces and would spend its whole budget). The search takes about
 * 2 s of the default budget of 8 s; the budget here is 30 s, so that a slower build (the
 * sanitizers') finds it too. */
Test(car, tpcap_case_7_leaves_its_slot_at_the_default_clearance)
{
    cJSON *r = tpcap_result_within(7, 30, 0, 0);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "stalled");
    const cJSON *route = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "route");
    cr_expect_gt(car_result_number(route, "escape_nodes"), 0);
    cr_expect_geq(car_result_number(r, "gear_changes"), 4);
    cr_expect_leq(car_result_number(r, "gear_changes"), 120); /* 69 */
    cr_expect_geq(car_result_number(r, "min_clearance"), 0.05 - 1e-9);
    cJSON_Delete(r);
}

/* Out of the slot, for the escape's test below: a forward arc of 0.6 m at either full
 * lock keeps the clearance. */
static int can_drive_out(void *ctx, const double q[3])
{
    const car_world *w = ctx;
    const sp_car_vehicle *v = w->vehicle;
    for (int side = -1; side <= 1; side += 2) {
        int clear = 1;
        for (int j = 1; j <= 30 && clear; ++j) {
            double r[3];
            car_arc(q, side * tan(v->max_steering) / v->wheelbase, 0.02 * j, r);
            clear = car_world_clear(w, r, w->clearance);
        }
        if (clear) return 1;
    }
    return 0;
}

/* The way out of a confined pose (car_escape.c) from the goal of the narrow slot: every
 * move is a real one (positive length at most 0.6 m, steering within the lock, a move
 * of the same gear as the last at another steering), the whole sweep of the moves keeps
 * the clearance, the last pose is out and no earlier end of a move is; a deadline
 * already past leaves it found 0, never a partial way. */
Test(car, the_way_out_of_a_slot_is_clear_along_its_whole_sweep)
{
    sp_problem pb;
    car_world w;
    car_file_world("narrow_slot.json", &pb, &w);
    const sp_car_problem *c = &pb.car;
    const double *from = c->scene.goal;
    cr_assert(!can_drive_out(&w, from));
    car_route r;
    cr_assert_eq(car_escape(&w, from, 200000, car_cpu_seconds() + 1000.0, can_drive_out, &w, &r), SP_OK);
    cr_assert(r.found);
    cr_assert_gt(r.n, 1);
    cr_expect_gt(r.expanded, 0);
    car_path p;
    cr_assert_eq(car_path_alloc(&p, r.n), SP_OK);
    double q[3] = {from[0], from[1], from[2]};
    for (size_t k = 0; k < r.n; ++k) {
        const car_piece *m = &r.pieces[k];
        cr_expect_gt(m->length, 0.0);
        cr_expect_leq(m->length, 0.6 + 1e-9);
        cr_expect(m->gear == 1 || m->gear == -1);
        cr_expect_leq(fabs(m->delta), c->vehicle.max_steering + 1e-6);
        if (k > 0) cr_expect(m->gear != r.pieces[k - 1].gear || m->delta != r.pieces[k - 1].delta, "move %zu", k);
        p.delta[k] = m->delta, p.s[k] = m->gear * m->length, p.m[k] = 1;
        car_arc(q, tan(m->delta) / c->vehicle.wheelbase, m->gear * m->length, q);
        cr_expect_eq(can_drive_out(&w, q), k + 1 == r.n, "move %zu", k);
    }
    cr_expect_geq(car_path_min_clearance(&p, &w, from, 0.002, NULL), c->scene.clearance);
    cr_expect_leq(car_path_gear_changes(&p), 30);
    car_path_free(&p);
    car_route_free(&r);
    cr_assert_eq(car_escape(&w, from, 200000, car_cpu_seconds() - 1.0, can_drive_out, &w, &r), SP_OK);
    cr_expect(!r.found);
    cr_expect_eq(r.n, 0);
    car_route_free(&r);
    car_world_free(&w);
    sp_problem_free(&pb);
}

/* The transcription of the route of data/car/<name>, and what it rests on. */
typedef struct tx_fixture {
    sp_problem pb;
    car_world w;
    car_route r;
    car_tx t;
} tx_fixture;

static void tx_setup(const char *name, tx_fixture *fx)
{
    car_file_world(name, &fx->pb, &fx->w);
    cr_assert_eq(car_route_search(&fx->w, &fx->pb.car, NULL, &fx->r), SP_OK);
    cr_assert(fx->r.found);
    cr_assert_eq(car_tx_init(&fx->t, &fx->w, &fx->pb.car, &fx->r, fx->pb.car.scene.goal), SP_OK);
}

static void tx_teardown(tx_fixture *fx)
{
    car_tx_free(&fx->t);
    car_route_free(&fx->r);
    car_world_free(&fx->w);
    sp_problem_free(&fx->pb);
}

/* The smoothing stage's transcription (planner/car/car_tx.c): its energy, defects and
 * clearance constraints against central differences, at the route's starting point moved
 * a little off it (so that the defects are not all zero). */
/* The transcription's energy, defects and clearance rows against central differences, at
 * points rows (swept 0) or with every interval's rows over their arcs (swept 1). */
static void gradients_match(int swept)
{
    tx_fixture fx;
    tx_setup("parallel_slot.json", &fx);
    memset(fx.t.swept, swept, fx.t.N);
    const size_t n = fx.t.n, me = 3 * fx.t.N;
    double *x = calloc(n, sizeof *x), *g = calloc(n, sizeof *g);
    car_tx_guess(&fx.t, &fx.r, x);
    unsigned state = 11;
    for (size_t i = 0; i < n; ++i) x[i] += uniform(&state, -0.02, 0.02);
    /* near: every polygon within 0.5 m of a checked point gives a constraint */
    cr_assert_eq(car_tx_select(&fx.t, x, 0.5), SP_OK);
    const size_t mi = fx.t.n_obs;
    cr_assert_gt(mi, 10);
    double *jd = calloc(me * n, sizeof *jd), *jc = calloc(mi * n, sizeof *jc);
    double *fp = calloc(me + mi, sizeof *fp), *fm = calloc(me + mi, sizeof *fm), *f0 = calloc(me + mi, sizeof *f0);
    car_tx_energy(&fx.t, x, g);
    car_tx_defects(&fx.t, x, f0, jd);
    car_tx_clearance(&fx.t, x, f0 + me, jc);
    double worst_d = 0, worst_c = 0, worst_e = 0;
    const double eps = 1e-6;
    for (size_t j = 0; j < n; ++j) {
        const double keep = x[j];
        x[j] = keep + eps;
        const double ep = car_tx_energy(&fx.t, x, NULL);
        car_tx_defects(&fx.t, x, fp, NULL);
        car_tx_clearance(&fx.t, x, fp + me, NULL);
        x[j] = keep - eps;
        const double em = car_tx_energy(&fx.t, x, NULL);
        car_tx_defects(&fx.t, x, fm, NULL);
        car_tx_clearance(&fx.t, x, fm + me, NULL);
        x[j] = keep;
        worst_e = fmax(worst_e, fabs((ep - em) / (2 * eps) - g[j]) / (1 + fabs(g[j])));
        for (size_t i = 0; i < me; ++i)
            worst_d = fmax(worst_d, fabs((fp[i] - fm[i]) / (2 * eps) - jd[i * n + j]));
        /* the distance is only piecewise smooth (the closest pair may switch): a
         * difference across a switch is skipped, seen as the two one-sided ones disagreeing */
        for (size_t i = 0; i < mi; ++i) {
            const double a = (fp[me + i] - f0[me + i]) / eps, b = (f0[me + i] - fm[me + i]) / eps;
            if (fabs(a - b) > 1e-3) continue;
            worst_c = fmax(worst_c, fabs((fp[me + i] - fm[me + i]) / (2 * eps) - jc[i * n + j]));
        }
    }
    cr_expect_leq(worst_e, 1e-6, "energy gradient off by %.2e", worst_e);
    cr_expect_leq(worst_d, 1e-6, "defect Jacobian off by %.2e", worst_d);
    cr_expect_leq(worst_c, 1e-6, "clearance Jacobian off by %.2e", worst_c);
    /* the sparse rows (car_tx_constraints_sparse) are the dense Jacobian's, and every row
     * lies within the band of the unknowns numbered interval by interval */
    const size_t m = car_tx_n_constraints(&fx.t);
    double *fs = calloc(m, sizeof *fs), *fd = calloc(m, sizeof *fd), *jall = calloc(m * n, sizeof *jall);
    double *val = calloc(m * CAR_TX_NZ, sizeof *val);
    long *col = calloc(m * CAR_TX_NZ, sizeof *col);
    car_tx_constraints(&fx.t, x, fd, jall);
    car_tx_constraints_sparse(&fx.t, x, fs, col, val);
    double worst_s = 0.0;
    size_t width = 0, nonzeros = 0;
    for (size_t i = 0; i < m; ++i) {
        worst_s = fmax(worst_s, fabs(fs[i] - fd[i]));
        size_t lo = n, hi = 0;
        for (int e = 0; e < CAR_TX_NZ; ++e) {
            const long j = col[i * CAR_TX_NZ + (size_t)e];
            if (j < 0) continue;
            cr_assert_lt((size_t)j, n);
            jall[i * n + (size_t)j] -= val[i * CAR_TX_NZ + (size_t)e];
            const size_t pj = car_tx_place(&fx.t, (size_t)j);
            lo = pj < lo ? pj : lo, hi = pj > hi ? pj : hi;
            ++nonzeros;
        }
        if (hi >= lo) width = hi - lo > width ? hi - lo : width;
    }
    for (size_t i = 0; i < m * n; ++i) worst_s = fmax(worst_s, fabs(jall[i]));
    cr_expect_leq(worst_s, 1e-12, "sparse rows off the dense ones by %.2e", worst_s);
    cr_expect_leq(width, CAR_TX_BAND);
    cr_expect_gt(nonzeros, 3 * m);
    /* car_tx_place numbers the unknowns once each */
    char *seen = calloc(n, 1);
    for (size_t j = 0; j < n; ++j) {
        cr_assert_lt(car_tx_place(&fx.t, j), n);
        cr_expect_eq(seen[car_tx_place(&fx.t, j)]++, 0);
    }
    free(seen), free(fs), free(fd), free(jall), free(val), free(col);
    free(x), free(g), free(jd), free(jc), free(fp), free(fm), free(f0);
    tx_teardown(&fx);
}

Test(car, the_transcriptions_gradients_match_central_differences) { gradients_match(0); }
Test(car, the_swept_rows_gradients_match_central_differences) { gradients_match(1); }

/* A swept row is the least distance of its feature along the whole arc after its point:
 * 400 poses sampled along the arc come no nearer than the row says, and the nearest of
 * them is within 1e-6 m of it (the minimum is found, not an end taken for it). Some of
 * the minima lie inside the arcs, where a point row would miss them. */
Test(car, a_swept_row_is_the_least_distance_along_its_arc)
{
    tx_fixture fx;
    tx_setup("parallel_slot.json", &fx);
    const size_t n = fx.t.n, me = 3 * fx.t.N;
    double *x = calloc(n, sizeof *x);
    car_tx_guess(&fx.t, &fx.r, x);
    unsigned state = 5;
    for (size_t i = 0; i < n; ++i) x[i] += uniform(&state, -0.02, 0.02);
    memset(fx.t.swept, 1, fx.t.N);
    cr_assert_eq(car_tx_select(&fx.t, x, 0.5), SP_OK);
    const size_t mi = fx.t.n_obs;
    double *f = calloc(me + mi, sizeof *f);
    car_tx_defects(&fx.t, x, f, NULL);
    car_tx_clearance(&fx.t, x, f + me, NULL);
    car_path path = {0};
    cr_assert_eq(car_tx_path(&fx.t, x, &path), SP_OK);
    const car_world *w = fx.t.w;
    const double L = fx.t.c->vehicle.wheelbase;
    double worst_below = 0.0, worst_above = 0.0;
    int inside = 0;
    for (size_t i = 0; i < mi; ++i) {
        const size_t p = fx.t.obs_point[i];
        const double row = w->clearance - f[me + i]; /* the row's distance (no margins here) */
        double a[3], least = HUGE_VAL, at = 0.0;
        car_tx_point(&fx.t, x, p, a, NULL);
        for (int q = 0; q <= 400; ++q) {
            double b[3];
            car_arc(a, tan(path.delta[p]) / L, q / 400.0 * path.s[p], b);
            const double d = car_world_feature_distance(w, fx.t.obs_poly[i], fx.t.obs_feature[i], b, NULL, NULL);
            if (d < least) least = d, at = q / 400.0;
        }
        worst_below = fmax(worst_below, row - least);
        worst_above = fmax(worst_above, least - row);
        inside += at > 0.0 && at < 1.0;
    }
    cr_expect_leq(worst_below, 1e-12, "a sampled pose nearer than its row by %.2e m", worst_below);
    cr_expect_leq(worst_above, 1e-6, "the nearest sample %.2e m beyond its row", worst_above);
    cr_expect_geq(inside, 3, "%d of %zu rows with their minimum inside the arc", inside, mi);
    car_path_free(&path);
    free(x), free(f);
    tx_teardown(&fx);
}

/* Smoothing the parallel-slot plan: converged (KKT to the tolerance), collision-free on
 * the swept footprint and kinematically exact (check_plan), its energy no larger than the
 * route's, its steering rate finite and, with a bound given, within it. */
static cJSON *smoothed_slot(const char *rate, cJSON **input)
{
    char *text = car_file_text("parallel_slot.json");
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (rate) cJSON_AddItemToObject(cJSON_GetObjectItem(doc, "vehicle"), "max_steering_rate", cJSON_Parse(rate));
    char *json = cJSON_PrintUnformatted(doc);
    sp_input_error err;
    sp_status st;
    cJSON *r = solve_text(json, &err, &st);
    cr_assert_eq(st, SP_OK, "%s: %s", err.path, err.message);
    free(json);
    *input = doc;
    return r;
}

static void expect_smoothed(const cJSON *r, const cJSON *input, double rate)
{
    car_check_plan(r, input);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")));
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_assert_not_null(sw);
    cr_expect_leq(car_result_number(r, "energy"), car_result_number(sw, "route_energy"));
    const double largest = car_result_number(r, "largest_steering_rate");
    cr_expect(isfinite(largest));
    if (rate > 0) cr_expect_leq(largest, rate + 1e-9);
    cr_expect_geq(car_result_number(r, "min_clearance"), 0.05 - 1e-9);
}

/* Case 19 (45 m, 5 gear changes, 273 unknowns): above the size where SLSQP's dense
 * subproblem fits the budget, the augmented Lagrangian (planner/car/car_al.c) smooths the
 * route to its KKT conditions. A budget of 1000 s: only the evaluation limits bind (it
 * needs about 2900 of the 20000). */
Test(car, tpcap_case_19_converges_with_the_augmented_lagrangian)
{
    cJSON *r = tpcap_result(19, 1000);
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItem(r, "message"));
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s", message);
    cr_expect(strstr(message, "augmented Lagrangian") != NULL, "%s", message);
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_gt(car_result_number(sw, "unknowns"), 250);
    cr_expect_null(cJSON_GetObjectItem(sw, "budget_used_up"));
    cr_expect_lt(car_result_number(r, "energy"), 0.8 * car_result_number(sw, "route_energy"));
    cJSON_Delete(r);
}

Test(car, a_smoothed_parallel_slot_plan_converges_clear_of_the_cars)
{
    cJSON *input;
    cJSON *r = smoothed_slot(NULL, &input);
    expect_smoothed(r, input, 0);
    cJSON_Delete(r);
    cJSON_Delete(input);
}

Test(car, a_steering_rate_bound_is_kept)
{
    cJSON *input;
    cJSON *r = smoothed_slot("0.6", &input);
    expect_smoothed(r, input, 0.6);
    cJSON_Delete(r);
    cJSON_Delete(input);
}

/* A bound on the steering rate too tight for the route's length at the speed (0.2 rad/s:
 * the route turns the wheel through 4.75 rad, 24 s at the bound, in 10.6 s of travel):
 * the time is the travel's and the turning's, and the plan converges within the bound (in
 * the travel's time alone it ended stalled, the route returned with rates of 3.4 rad/s). */
Test(car, a_tight_steering_rate_bound_is_met_with_the_time_to_turn_the_wheel)
{
    cJSON *input;
    cJSON *r = smoothed_slot("0.2", &input);
    expect_smoothed(r, input, 0.2);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "trajectory"), "t");
    const double end = cJSON_GetArrayItem(t, cJSON_GetArraySize(t) - 1)->valuedouble;
    cr_expect_gt(end, 2.0 * car_result_number(r, "length") / 1.0); /* the speed: 1 m/s */
    cJSON_Delete(r);
    cJSON_Delete(input);
}

/* The parallel slot with "smooth": false (and the steering limit given, when not NULL):
 * the route itself, checked by car_check_plan; the result and *input are the caller's. */
static cJSON *unsmoothed_slot(const char *max_steering, cJSON **input)
{
    char *text = car_file_text("parallel_slot.json");
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (max_steering)
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "vehicle"), "max_steering", cJSON_Parse(max_steering));
    cJSON_AddFalseToObject(doc, "smooth");
    char *json = cJSON_PrintUnformatted(doc);
    sp_input_error err;
    sp_status st;
    cJSON *r = solve_text(json, &err, &st);
    cr_assert_eq(st, SP_OK, "%s: %s", err.path, err.message);
    free(json);
    car_check_plan(r, doc);
    *input = doc;
    return r;
}

/* "smooth": false returns the route itself: stalled, its steering jumping between arcs. */
Test(car, without_smoothing_the_route_is_returned_stalled)
{
    cJSON *doc;
    cJSON *r = unsmoothed_slot(NULL, &doc);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "stalled");
    cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth"));
    cr_expect_null(cJSON_GetObjectItem(r, "optimality_residual"));
    cJSON_Delete(r);
    cJSON_Delete(doc);
}

/* A steering limit that single precision rounds up (0.6 as a float is 0.600000024): the
 * route, returned unsmoothed, drives at full lock and keeps |δ| ≤ max_steering to the
 * last digit (car_check_plan), and its largest steering is the limit. */
Test(car, a_route_at_full_lock_keeps_a_steering_limit_that_a_float_rounds_up)
{
    cr_assert_gt((double)(float)0.6, 0.6);
    cJSON *doc;
    cJSON *r = unsmoothed_slot("0.6", &doc);
    cr_expect_leq(car_result_number(r, "largest_steering"), 0.6);
    cr_expect_geq(car_result_number(r, "largest_steering"), 0.6 - 1e-12);
    cJSON_Delete(r);
    cJSON_Delete(doc);
}

/* A dense solve with partial pivoting, the band solve's reference (A row-major, b in place). */
static int dense_solve(size_t n, double *A, double *b)
{
    for (size_t k = 0; k < n; ++k) {
        size_t piv = k;
        for (size_t i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;
        if (A[piv * n + k] == 0.0) return -1;
        for (size_t j = 0; j < n; ++j) {
            const double a = A[k * n + j];
            A[k * n + j] = A[piv * n + j], A[piv * n + j] = a;
        }
        const double bb = b[k];
        b[k] = b[piv], b[piv] = bb;
        for (size_t i = k + 1; i < n; ++i) {
            const double l = A[i * n + k] / A[k * n + k];
            for (size_t j = k; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
            b[i] -= l * b[k];
        }
    }
    for (size_t k = n; k-- > 0;) {
        for (size_t j = k + 1; j < n; ++j) b[k] -= A[k * n + j] * b[j];
        b[k] /= A[k * n + k];
    }
    return 0;
}

/* The band solve (planner/car/car_band.c) against a dense one, on random systems that are
 * banded once the variables are renumbered (unequal bandwidths, small diagonals that need
 * pivoting, entries given in two parts), and a singular one that it must refuse. */
Test(car, the_band_solve_matches_a_dense_one)
{
    unsigned state = 5;
    for (int trial = 0; trial < 6; ++trial) {
        const size_t n = 40 + 7 * (size_t)trial, kl = 1 + (size_t)trial % 3, ku = 2 + (size_t)trial % 4;
        size_t *order = malloc(n * sizeof *order), *place_of = malloc(n * sizeof *place_of);
        size_t *ri = malloc(4 * n * (kl + ku + 1) * sizeof *ri), *ci = malloc(4 * n * (kl + ku + 1) * sizeof *ci);
        double *v = malloc(4 * n * (kl + ku + 1) * sizeof *v), *A = calloc(n * n, sizeof *A);
        double *b = malloc(n * sizeof *b), *z = malloc(n * sizeof *z), *b0 = malloc(n * sizeof *b0);
        double *A0 = malloc(n * n * sizeof *A0);
        /* a random numbering: variable i sits at place order[i] */
        for (size_t i = 0; i < n; ++i) place_of[i] = i;
        for (size_t i = n - 1; i > 0; --i) {
            const size_t j = (size_t)uniform(&state, 0, (double)i + 0.999);
            const size_t a = place_of[i];
            place_of[i] = place_of[j], place_of[j] = a;
        }
        for (size_t i = 0; i < n; ++i) order[place_of[i]] = i; /* variable at place p: place_of[p] */
        size_t nz = 0;
        for (size_t p = 0; p < n; ++p)
            for (size_t q = p > kl ? p - kl : 0; q <= p + ku && q < n; ++q) {
                if (p != q && uniform(&state, 0, 1) < 0.3) continue;
                const double a = p == q && trial % 2 ? uniform(&state, -0.1, 0.1) : uniform(&state, -1, 1);
                const size_t r = place_of[p], c = place_of[q];
                ri[nz] = r, ci[nz] = c, v[nz++] = 0.25 * a;
                ri[nz] = r, ci[nz] = c, v[nz++] = 0.75 * a;
                A[r * n + c] += a;
            }
        for (size_t i = 0; i < n; ++i) b[i] = z[i] = b0[i] = uniform(&state, -1, 1);
        memcpy(A0, A, n * n * sizeof *A);
        cr_assert_eq(dense_solve(n, A, b), 0);
        cr_assert_eq(car_band_solve(n, nz, ri, ci, v, order, z), 0);
        /* the same solution (to the system's condition) and a residual at rounding level */
        double worst = 0.0, resid = 0.0, scale = 0.0;
        for (size_t i = 0; i < n; ++i) {
            double r = -b0[i], s = fabs(b0[i]);
            for (size_t j = 0; j < n; ++j) r += A0[i * n + j] * z[j], s += fabs(A0[i * n + j] * z[j]);
            resid = fmax(resid, fabs(r)), scale = fmax(scale, s);
            worst = fmax(worst, fabs(z[i] - b[i]) / (1.0 + fabs(b[i])));
        }
        cr_expect_leq(resid, 1e-12 * scale, "trial %d: residual %.2e", trial, resid);
        cr_expect_leq(worst, 1e-4, "trial %d: off the dense solution by %.2e", trial, worst);
        /* a variable no entry touches: singular */
        size_t kept = 0;
        for (size_t e = 0; e < nz; ++e)
            if (ri[e] != 3 && ci[e] != 3) ri[kept] = ri[e], ci[kept] = ci[e], v[kept++] = v[e];
        cr_expect_eq(car_band_solve(n, kept, ri, ci, v, order, z), -1);
        free(order), free(place_of), free(ri), free(ci), free(v), free(A), free(b), free(z), free(b0), free(A0);
    }
}

/* The Lagrangian of the transcription with fixed random weights (car_band_grad_fn). */
typedef struct weighted {
    const car_tx *t;
    const double *w;
    double *f, *val;
    long *col;
    size_t m;
} weighted;

static void weighted_gradient(const weighted *a, const double *x, double *g)
{
    car_tx_energy(a->t, x, g);
    car_tx_constraints_sparse(a->t, x, a->f, a->col, a->val);
    for (size_t i = 0; i < a->m * CAR_TX_NZ; ++i)
        if (a->col[i] >= 0) g[a->col[i]] += a->w[i / CAR_TX_NZ] * a->val[i];
}

/* The reference: the Lagrangian's Hessian by central differences of its whole gradient,
 * one unknown at a time (step h·max(1, |x_j|)), into hb's band (car_tx_hessian's layout). */
static void differenced_hessian(const weighted *a, const double *x, double h, double *hb)
{
    const car_tx *t = a->t;
    const size_t n = t->n, ld = CAR_TX_BAND + 1;
    double *y = malloc(n * sizeof *y), *gp = malloc(n * sizeof *gp), *gm = malloc(n * sizeof *gm);
    memcpy(y, x, n * sizeof *y);
    for (size_t j = 0; j < n; ++j) {
        const double e = h * fmax(1.0, fabs(x[j]));
        y[j] = x[j] + e;
        weighted_gradient(a, y, gp);
        y[j] = x[j] - e;
        weighted_gradient(a, y, gm);
        y[j] = x[j];
        const size_t pj = car_tx_place(t, j);
        for (size_t i = 0; i < n; ++i) {
            const size_t pi = car_tx_place(t, i);
            const double d = (gp[i] - gm[i]) / (2.0 * e);
            if (d == 0.0) continue;
            cr_assert(pi + CAR_TX_BAND >= pj && pj + CAR_TX_BAND >= pi, "%zu and %zu share a term off the band", i, j);
            /* (each entry is met from both of its columns: the mean of the two) */
            if (pi >= pj) hb[(pi - pj) + pj * ld] += 0.5 * d;
            if (pj >= pi) hb[(pj - pi) + pi * ld] += 0.5 * d;
        }
    }
    free(y), free(gp), free(gm);
}

/* The Hessian from the rows' structure (car_tx_hessian: the distances' curvature in the
 * pose, the arcs' by differences of their derivative) is the one differenced column by
 * column from the whole gradient, on a route moved off itself with random weights, every
 * third interval swept and every third plain: every entry of the band, whatever kind of
 * closest pair each row has. The convexified one is checked against it. */
Test(car, the_hessian_from_the_rows_matches_the_one_differenced)
{
    tx_fixture fx;
    tx_setup("parallel_slot.json", &fx);
    const size_t n = fx.t.n, ld = CAR_TX_BAND + 1;
    double *x = calloc(n, sizeof *x);
    car_tx_guess(&fx.t, &fx.r, x);
    unsigned state = 9;
    for (size_t i = 0; i < n; ++i) x[i] += uniform(&state, -0.02, 0.02);
    for (size_t k = 1; k < fx.t.N; k += 3) fx.t.swept[k] = 1;
    cr_assert_eq(car_tx_select(&fx.t, x, 0.3), SP_OK);
    const size_t m = car_tx_n_constraints(&fx.t);
    double *wt = malloc(m * sizeof *wt), *f = malloc(m * sizeof *f), *val = malloc(m * CAR_TX_NZ * sizeof *val);
    long *col = malloc(m * CAR_TX_NZ * sizeof *col);
    for (size_t i = 0; i < m; ++i) wt[i] = uniform(&state, -2, 2);
    weighted a = {.t = &fx.t, .w = wt, .f = f, .val = val, .col = col, .m = m};
    double *h1 = calloc(ld * n, sizeof *h1), *h2 = calloc(ld * n, sizeof *h2);
    cr_assert_eq(car_tx_hessian(&fx.t, x, wt, CAR_HESSIAN_WHOLE, h1), SP_OK);
    differenced_hessian(&a, x, 1e-5, h2);
    double worst = 0.0, big = 0.0;
    for (size_t i = 0; i < ld * n; ++i) worst = fmax(worst, fabs(h1[i] - h2[i])), big = fmax(big, fabs(h2[i]));
    cr_expect_gt(fx.t.n_obs, 50, "%zu rows", fx.t.n_obs);
    cr_expect_gt(big, 1.0);
    cr_expect_leq(worst, 1e-6 * big, "Hessian off by %.2e (largest entry %.2e)", worst, big);
    /* The convexified Hessian C (the interior-point method's far from a solution) is
     * positive semidefinite, and it only adds curvature to the model M without the
     * distances' own: M is the whole Hessian less −Σ w_i Jᵢᵀ ∇²d_i Jᵢ over the rows at
     * points (the swept rows keep theirs), each row's pose derivative J found alone
     * (car_tx_point). So neither C nor C − M has a negative eigenvalue, and with random
     * weights, which bend the arcs either way, C is not M. */
    memcpy(h2, h1, ld * n * sizeof *h2);
    const size_t me = 3 * fx.t.N;
    for (size_t i = 0; i < fx.t.n_obs; ++i) {
        const size_t p = fx.t.obs_point[i], k = p / CAR_SUB;
        if (fx.t.swept[k]) continue;
        double pose[3], J[18], g[3], H[9];
        car_tx_point(&fx.t, x, p, pose, J);
        car_world_feature_distance(&fx.w, fx.t.obs_poly[i], fx.t.obs_feature[i], pose, g, H);
        for (int a = 0; a < 6; ++a)
            for (int b = 0; b < 6; ++b) {
                /* (a row at a node: the node's pose alone) */
                const size_t node = car_tx_pose(&fx.t, k);
                const long u = p % CAR_SUB ? car_tx_column(&fx.t, k, a) : a < 3 ? (long)(node + (size_t)a) : -1;
                const long v = p % CAR_SUB ? car_tx_column(&fx.t, k, b) : b < 3 ? (long)(node + (size_t)b) : -1;
                if (u < 0 || v < 0 || car_tx_place(&fx.t, (size_t)u) < car_tx_place(&fx.t, (size_t)v)) continue;
                double q = 0.0;
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) q += J[6 * r + a] * H[3 * r + c] * J[6 * c + b];
                const size_t pu = car_tx_place(&fx.t, (size_t)u), pv = car_tx_place(&fx.t, (size_t)v);
                h2[(pu - pv) + pv * ld] += wt[me + i] * q;
            }
    }
    double *hc = calloc(ld * n, sizeof *hc), *dense = malloc(n * n * sizeof *dense), *ev = malloc(n * sizeof *ev);
    cr_assert_eq(car_tx_hessian(&fx.t, x, wt, CAR_HESSIAN_CONVEX, hc), SP_OK);
    double least[2], added = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        /* (the band, in its places' order, as a dense symmetric matrix: the eigenvalues
         * do not depend on the order) */
        memset(dense, 0, n * n * sizeof *dense);
        for (size_t q = 0; q < n; ++q)
            for (size_t r = 0; r < ld && q + r < n; ++r)
                dense[(q + r) * n + q] = dense[q * n + q + r] = hc[r + q * ld] - (pass ? h2[r + q * ld] : 0.0);
        cr_assert_eq(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, dense, (lapack_int)n, ev), 0);
        least[pass] = ev[0];
    }
    for (size_t i = 0; i < ld * n; ++i) added = fmax(added, fabs(hc[i] - h2[i]));
    cr_expect_geq(least[0], -1e-9 * big, "the convexified Hessian has the eigenvalue %.3e", least[0]);
    cr_expect_geq(least[1], -1e-9 * big, "it takes curvature away: C − M has the eigenvalue %.3e", least[1]);
    cr_expect_gt(added, 1e-3 * big, "nothing was convexified (%.2e)", added);
    free(hc), free(dense), free(ev);
    free(wt), free(f), free(val), free(col), free(h1), free(h2), free(x);
    tx_teardown(&fx);
}

/* car_tx_depth, which walks each interval's arcs once, is how far the deepest of the
 * checked points (the nodes but the start and the goal, and the poses between an
 * interval's arcs, each found alone by car_tx_point) comes inside the clearance: a route
 * moved until some points are inside, and moved back until none is. */
Test(car, the_depth_is_that_of_the_deepest_checked_point)
{
    tx_fixture fx;
    tx_setup("parallel_slot.json", &fx);
    const size_t n = fx.t.n;
    double *x = malloc(n * sizeof *x);
    const double c = fx.pb.car.scene.clearance;
    unsigned state = 11;
    for (int trial = 0; trial < 2; ++trial) {
        car_tx_guess(&fx.t, &fx.r, x);
        for (size_t i = 0; i < n && !trial; ++i) x[i] += uniform(&state, -0.05, 0.05);
        double worst = 0.0;
        for (size_t p = 1; p < CAR_SUB * fx.t.N; ++p) {
            double pose[3];
            car_tx_point(&fx.t, x, p, pose, NULL);
            worst = fmax(worst, c - car_world_distance(&fx.w, pose, c, NULL));
        }
        cr_expect_eq(car_tx_depth(&fx.t, x), worst, "trial %d: %.17g against %.17g", trial, car_tx_depth(&fx.t, x),
                     worst);
        if (!trial) cr_expect_gt(worst, 0.0, "the moved route should come inside the clearance");
    }
    free(x);
    tx_teardown(&fx);
}

/* Every evaluation the smoothing shares among threads (the rows, the Hessian's intervals,
 * car_tx_depth) gives the same numbers, to the bit, by three threads as by one: the
 * results of a plan do not depend on the processors it ran on (tests/car_threads.h). */
Test(car, the_evaluations_are_the_same_by_three_threads_as_by_one)
{
    char why[512];
    cr_expect_eq(car_threads_check(SP_TEST_DATA, 3, why, sizeof why), 0, "%s", why);
}

/* The clearance rows picked again at points the path has moved to (car_tx_select): where
 * a polygon's pieces tie at a point, its row of the whole polygon, whose distance has a
 * kink there, is split into the pieces' rows (t.refined counts them), and no pair keeps a
 * row of the whole polygon beside the row of its least piece. */
Test(car, a_row_of_a_whole_polygon_is_split_where_its_pieces_tie)
{
    tx_fixture fx;
    tx_setup("narrow_slot.json", &fx);
    const size_t n = fx.t.n, points = CAR_SUB * fx.t.N;
    double *x0 = calloc(n, sizeof *x0), *x = malloc(n * sizeof *x);
    car_tx_guess(&fx.t, &fx.r, x0);
    cr_assert_eq(car_tx_select(&fx.t, x0, 0.3), SP_OK);
    unsigned state = 7;
    size_t tied_pairs = 0;
    for (int trial = 0; trial < 8; ++trial) {
        for (size_t j = 0; j < n; ++j) x[j] = x0[j] + uniform(&state, -0.03, 0.03);
        cr_assert_eq(car_tx_select(&fx.t, x, 0.3), SP_OK);
        for (size_t o = 0; o < fx.t.n_obs; ++o) {
            if (fx.t.obs_feature[o] >= 0) continue;
            const size_t p = fx.t.obs_point[o], i = fx.t.obs_poly[o];
            double pose[3];
            car_tx_point(&fx.t, x, p, pose, NULL);
            if (p >= points || car_world_polygon_distance(&fx.w, i, pose, NULL) >= fx.w.clearance + 0.3) continue;
            int least = 0;
            double d1 = HUGE_VAL, d2 = HUGE_VAL;
            for (int f = 0; f < car_world_features(&fx.w, i); ++f) {
                const double d = car_world_feature_distance(&fx.w, i, f, pose, NULL, NULL);
                if (d < d1) d2 = d1, d1 = d, least = f;
                else if (d < d2) d2 = d;
            }
            cr_expect_geq(d2 - d1, 1e-3, "trial %d: point %zu keeps a row of polygon %zu whose pieces tie (%.1e)",
                          trial, p, i, d2 - d1);
            for (size_t e = 0; e < fx.t.n_obs; ++e)
                cr_expect(!(fx.t.obs_point[e] == p && fx.t.obs_poly[e] == i && fx.t.obs_feature[e] == least),
                          "trial %d: point %zu has polygon %zu's row beside its least piece's", trial, p, i);
        }
        for (size_t o = 0; o < fx.t.n_obs; ++o) tied_pairs += fx.t.obs_feature[o] >= 0;
    }
    /* (the moves made some pieces tie, and some whole rows were split) */
    cr_expect_gt(tied_pairs, 0);
    cr_expect_gt(fx.t.refined, 0);
    free(x0), free(x);
    tx_teardown(&fx);
}

/* The interior-point method alone on the narrow slot's route laid out by its pieces: it
 * converges, and its own multipliers (car_al_out.own_*) meet the KKT conditions at its
 * solution, stationarity with complementarity and every row, to rounding. At the start,
 * with the multipliers it begins from, they do not. */
Test(car, the_interior_point_method_s_own_multipliers_meet_the_kkt_conditions_at_its_solution)
{
    tx_fixture fx;
    tx_setup("narrow_slot.json", &fx);
    car_tx_free(&fx.t);
    cr_assert_eq(car_tx_init_pieces(&fx.t, &fx.w, &fx.pb.car, &fx.r, fx.pb.car.scene.goal), SP_OK);
    const size_t n = fx.t.n;
    double *x = calloc(n, sizeof *x), *lb = malloc(n * sizeof *lb), *ub = malloc(n * sizeof *ub);
    car_tx_guess(&fx.t, &fx.r, x);
    car_tx_bounds(&fx.t, lb, ub);
    for (size_t j = 0; j < n; ++j) x[j] = fmin(ub[j], fmax(lb[j], x[j]));
    car_al_limits lim = {.tolerance = 1e-10, .deadline = HUGE_VAL, .near = 0.3, .max_outer = 60, .max_inner = 400,
                         .max_evaluations = 0};
    car_al_out ao;
    cr_assert_eq(car_ip_solve(&fx.t, x, lb, ub, &lim, &ao), SP_OK);
    cr_expect_gt(fmax(ao.own_stationarity, ao.own_violation), 1e-3, "at the start: %.2e, %.2e", ao.own_stationarity,
                 ao.own_violation);
    lim.max_evaluations = 20000;
    cr_assert_eq(car_ip_solve(&fx.t, x, lb, ub, &lim, &ao), SP_OK);
    cr_expect(ao.converged);
    cr_expect_leq(ao.own_stationarity, 1e-9);
    cr_expect_leq(ao.own_violation, 1e-9);
    free(x), free(lb), free(ub);
    tx_teardown(&fx);
}

/* A route of some 160 m through a lot (903 unknowns, above the dense solvers' reach):
 * smoothed on the band, converged to the KKT tolerance (the residual itself found on the
 * band) within the work budget, where it used to be returned unsmoothed. */
Test(car, a_long_route_through_a_lot_is_smoothed_on_the_band)
{
    cJSON *r = plan_result("long_lot.json");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "converged", "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")));
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    cr_expect_gt(car_result_number(r, "length"), 150.0);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_gt(car_result_number(sw, "unknowns"), 600);
    cr_expect_leq(car_result_number(sw, "evaluations"), 1500);
    cr_expect_lt(car_result_number(r, "energy"), car_result_number(sw, "route_energy"));
    cJSON_Delete(r);
}

/* Newton's steps on the KKT conditions on the band (above 600 unknowns): from where the
 * augmented Lagrangian stops short (violation 1e-6), they lower the full KKT residual. */
Test(car, newtons_kkt_steps_on_the_band_lower_the_residual_of_a_long_route)
{
    tx_fixture fx;
    tx_setup("long_lot.json", &fx);
    const size_t n = fx.t.n;
    cr_assert_gt(n, 600);
    double *x = calloc(n, sizeof *x), *lb = malloc(n * sizeof *lb), *ub = malloc(n * sizeof *ub);
    car_tx_guess(&fx.t, &fx.r, x);
    car_tx_bounds(&fx.t, lb, ub);
    cr_assert_eq(car_tx_select(&fx.t, x, 0.3), SP_OK);
    const car_al_limits lim = {.tolerance = 1e-6, .deadline = HUGE_VAL, .near = 0.3, .rho = 1e2, .guard = HUGE_VAL,
                               .max_outer = 60, .max_inner = 60, .max_evaluations = 100000};
    car_al_out ao;
    cr_assert_eq(car_al_solve(&fx.t, x, lb, ub, &lim, &ao), SP_OK);
    car_kkt k0, k1;
    cr_assert_eq(car_kkt_eval(&fx.t, x, lb, ub, &k0), SP_OK);
    int steps = 0;
    cr_assert_eq(car_kkt_polish(&fx.t, x, lb, ub, 1e-12, 4, HUGE_VAL, &steps), SP_OK);
    cr_assert_eq(car_kkt_eval(&fx.t, x, lb, ub, &k1), SP_OK);
    cr_expect_gt(k0.residual, 1e-10, "the augmented Lagrangian left nothing to do (%.2e)", k0.residual);
    cr_expect_geq(steps, 1);
    cr_expect_lt(k1.residual, 0.1 * k0.residual, "residual %.2e -> %.2e", k0.residual, k1.residual);
    car_kkt_free(&k0), car_kkt_free(&k1);
    free(x), free(lb), free(ub);
    tx_teardown(&fx);
}
