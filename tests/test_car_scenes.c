/* Parking scenes no one tuned the planner for (tests/car_scenes.h): the generator is
 * reproducible and writes valid problem files whose start and goal keep clear of every
 * obstacle; four scenes of every kind, their seeds fixed beforehand (1 to 4) and slots of
 * moderate size, are planned to convergence and pass the checks every car plan passes
 * (tests/car_support.h): at the goal to 1e-6, the bicycle's arcs between rows at most
 * 0.1 m apart, |δ| within its bound, the swept footprint clear. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "problems/car/sp_car_geometry.h"
#include "tests/car_scenes.h"
#include "tests/car_support.h"
#include "tests/plan_support.h"

/* The problem of a scene, asserted valid; sp_problem_free it. */
static void parse_scene(const cJSON *doc, sp_problem *pb)
{
    char *text = cJSON_PrintUnformatted(doc);
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, strlen(text), pb, &err), SP_OK, "%s: %s", err.path, err.message);
    free(text);
}

static double least_distance(const sp_car_problem *c, const double pose[3])
{
    double d = HUGE_VAL;
    for (size_t i = 0; i < c->scene.n_obstacles; ++i)
        d = fmin(d, sp_car_polygon_distance(&c->vehicle, pose, c->scene.vertices + 2 * c->scene.first[i],
                                            c->scene.first[i + 1] - c->scene.first[i], NULL, NULL));
    return d;
}

Test(car_scenes, the_generator_is_reproducible_and_its_scenes_are_valid_problem_files)
{
    int kinds[CAR_SCENE_KINDS] = {0}, far = 0, reverse = 0, others = 0, clutter = 0;
    for (unsigned long seed = 1; seed <= 160; ++seed) {
        car_scene_info a, b;
        cJSON *da = car_scene_draw(seed, CAR_SCENE_KINDS, 0, &a), *db = car_scene_draw(seed, CAR_SCENE_KINDS, 0, &b);
        char *ta = cJSON_PrintUnformatted(da), *tb = cJSON_PrintUnformatted(db);
        cr_expect_str_eq(ta, tb, "seed %lu drawn twice differs", seed);
        cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
        ++kinds[a.kind], far += a.distance > 1e3, reverse += a.reverse_job, others += a.other_vehicle;
        clutter += a.clutter;
        sp_problem pb;
        parse_scene(da, &pb);
        const sp_car_problem *c = &pb.car;
        cr_expect_geq(least_distance(c, c->scene.start), c->scene.clearance + 0.1 - 1e-6, "seed %lu: start", seed);
        cr_expect_geq(least_distance(c, c->scene.goal), c->scene.clearance + 0.1 - 1e-6, "seed %lu: goal", seed);
        /* the slot is a slot: its pose has an obstacle (kerb, back wall, neighbour) within 1.5 m */
        const double *slot = a.reverse_job ? c->scene.start : c->scene.goal;
        cr_expect_leq(least_distance(c, slot), 1.5, "seed %lu: the slot is open space", seed);
        if (a.slot == CAR_SCENE_PARALLEL) cr_expect_geq(a.play, 0.8 - 0.1, "seed %lu: play %.3f", seed, a.play);
        else cr_expect(a.play >= 0.35 && a.play <= 1.2, "seed %lu: play %.3f", seed, a.play);
        sp_problem_free(&pb);
        if (seed <= 20) {
            /* another seed, another scene */
            cJSON *dn = car_scene_draw(seed + 1000, CAR_SCENE_KINDS, 0, NULL);
            char *tn = cJSON_PrintUnformatted(dn);
            cr_expect_str_neq(ta, tn);
            cJSON_free(tn);
            cJSON_Delete(dn);
        }
        cJSON_free(ta), cJSON_free(tb);
        cJSON_Delete(da), cJSON_Delete(db);
    }
    for (int k = 0; k < CAR_SCENE_KINDS; ++k) cr_expect_gt(kinds[k], 20, "%s: %d", car_scene_kind_name(k), kinds[k]);
    cr_expect(far > 10 && reverse > 10 && others > 10 && clutter > 20, "far %d, reverse %d, other vehicles %d, clutter %d",
              far, reverse, others, clutter);
}

/* The problem's search.max_seconds set to `seconds`. */
/* Scene `seed` of `kind` (of the moderate ranges or not) planned, with search.max_seconds
 * set when positive: converged to the tolerance, and the checks of every plan. The
 * result; *doc gets the problem (both the caller's to delete). */
static cJSON *converged_plan(car_scene_kind kind, unsigned long seed, int moderate, double max_seconds, cJSON **doc)
{
    car_scene_info info;
    *doc = car_scene_draw(seed, kind, moderate, &info);
    if (max_seconds > 0) car_set_max_seconds(*doc, max_seconds);
    char *text = cJSON_PrintUnformatted(*doc);
    cJSON *r = solve_doc(text);
    cJSON_free(text);
    cr_expect_str_eq(string(r, "status"), "converged", "%s %lu: %s", car_scene_kind_name(kind), seed, string(r, "message"));
    car_check_plan(r, *doc);
    cr_expect_leq(car_result_number(r, "optimality_residual"), 1e-6);
    return r;
}

/* Scene `seed` of `kind`, moderate, planned: converged, and the checks of every plan. */
static void plan_scene(car_scene_kind kind, unsigned long seed)
{
    cJSON *doc;
    cJSON *r = converged_plan(kind, seed, 1, 0.0, &doc);
    const cJSON *veh = cJSON_GetObjectItem(doc, "vehicle");
    cr_expect_leq(car_result_number(r, "largest_steering"), car_result_number(veh, "max_steering") + 1e-12);
    cJSON_Delete(r);
    cJSON_Delete(doc);
}

/* every kind, seeds 1 to 4 */
typedef struct scene_case {
    car_scene_kind kind;
    unsigned long seed;
} scene_case;

ParameterizedTestParameters(car_scenes, a_scene_of_our_own_converges_and_passes_the_plan_checks)
{
    static scene_case cases[4 * CAR_SCENE_KINDS];
    for (int k = 0; k < CAR_SCENE_KINDS; ++k)
        for (int j = 0; j < 4; ++j) cases[4 * k + j] = (scene_case){(car_scene_kind)k, (unsigned long)j + 1};
    return cr_make_param_array(scene_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(scene_case *c, car_scenes, a_scene_of_our_own_converges_and_passes_the_plan_checks)
{
    plan_scene(c->kind, c->seed);
}

/* The interior-point method alone on the problem `text`, from the route laid out by its
 * pieces: converged to the tolerance. Its figures. */
/* Scene `seed` of `kind` planned with a budget of 1000 s, so that only the counted limits
 * bind, and converged (converged_plan): its figure work.<stage>.<field>. */
static double work_of_converged_plan(car_scene_kind kind, unsigned long seed, const char *stage, const char *field)
{
    cJSON *doc;
    cJSON *r = converged_plan(kind, seed, 0, 1000.0, &doc);
    const double v = car_result_number(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), stage), field);
    cJSON_Delete(r);
    cJSON_Delete(doc);
    return v;
}

static car_smooth_out interior_point_alone(const char *text)
{
    car_smooth_out ip;
    car_smooth_after(text, CAR_SMOOTH_IP, -1.0, &ip);
    cr_expect(ip.used && ip.converged, "%s", ip.message);
    cr_expect(strstr(ip.message, "interior-point") != NULL, "%s", ip.message);
    cr_expect_leq(ip.residual, 1e-6);
    return ip;
}

/* A slot among clutter with three gear changes (scene 100116 of the bench): the
 * interior-point method alone, from the route laid out by its pieces, converges; and the
 * plan converges. A budget of 1000 s, so that only the counted limits bind: the method's
 * first solve stalls in its first barrier problem (4842 evaluations, 1.8 s; 13 s under
 * the sanitizers, past the default 8 s), where the filter turns down every longer step
 * for an earlier point better in both measures, and the second converges in 21. */
Test(car_scenes, a_slot_among_clutter_is_smoothed_by_the_interior_point_method_alone)
{
    car_scene_info info;
    cJSON *doc = car_scene_draw(100116, CAR_SCENE_CLUTTER, 0, &info);
    car_set_max_seconds(doc, 1000.0);
    char *text = cJSON_PrintUnformatted(doc);
    interior_point_alone(text);
    cJSON *r = solve_doc(text);
    cr_expect_str_eq(string(r, "status"), "converged", "%s", string(r, "message"));
    car_check_plan(r, doc);
    cJSON_Delete(r);
    cJSON_free(text);
    cJSON_Delete(doc);
}

/* A tight parallel slot, the car leaving it (scene 500052 of the bench: 0.87 m of play,
 * 5 gear changes), which neither the augmented Lagrangian nor SLSQP converge on: the
 * interior-point method alone does, in some 200 evaluations (800 before it judged its
 * steps by a filter), with a budget of 1000 s so that only the counted limits bind. Before its bounds were rows of the barrier, its
 * shifts taken down with the step and its penalty let follow the multipliers down, it
 * gave up after 9 s with its path off the goal (with the bounds as rows but the penalty
 * kept at its largest, 3100, the first barrier problem took 430 steps, most of them cut
 * to a few per cent). */
Test(car_scenes, a_tight_parallel_slot_is_smoothed_by_the_interior_point_method_alone)
{
    cJSON *doc = car_scene_draw(500052, CAR_SCENE_PARALLEL, 0, NULL);
    car_set_max_seconds(doc, 1000.0);
    char *text = cJSON_PrintUnformatted(doc);
    cr_expect_leq(interior_point_alone(text).iterations, 1000);
    cJSON_free(text);
    cJSON_Delete(doc);
}

/* A parallel slot the search from the start does not reach (scene 100048 of the bench) is
 * found by the search from the goal, which takes turns with it once the search from the
 * start has had its 8000 nodes alone: 8045 nodes in all. A budget of 1000 s, so that only
 * the counts decide: before, the search from the start had a share of the time, and with
 * that budget it went on to its 100000 nodes (5.7 s) before the search from the goal
 * began. */
Test(car_scenes, a_route_the_search_from_the_start_misses_is_found_from_the_goal_in_turns)
{
    cr_expect_leq(work_of_converged_plan(CAR_SCENE_PARALLEL, 100048, "route", "expanded_nodes"), 20000);
}

/* A reverse job out of a parallel slot with 0.92 m of play (scene 200000 of the bench),
 * whose way out took 3399 poses: the interior-point method smooths it first, and it
 * converges (230 evaluations, about 1 s), on the method's own multipliers. Before, the
 * augmented Lagrangian and SLSQP spent 60 % of the budget on it first, and the plan
 * returned a path at stationarity 0.84 or, beside another process, the route. A budget
 * of 1000 s, so that only the counted limits bind. */
Test(car_scenes, a_route_out_of_a_tight_slot_is_smoothed_by_the_interior_point_method_first)
{
    cJSON *doc;
    cJSON *r = converged_plan(CAR_SCENE_PARALLEL, 200000, 0, 1000.0, &doc);
    const cJSON *work = cJSON_GetObjectItem(r, "work");
    cr_expect_gt(car_result_number(cJSON_GetObjectItem(work, "route"), "escape_nodes"), 10);
    cr_expect(strstr(string(r, "message"), "interior-point") != NULL, "%s", string(r, "message"));
    cr_expect_leq(car_result_number(cJSON_GetObjectItem(work, "smooth"), "evaluations"), 2000);
    cJSON_Delete(r);
    cJSON_Delete(doc);
}

/* A slot among clutter whose plan dips between checked points twice in one interval
 * (scene 100095 of the bench): the second time that interval's constraints are made to
 * hold along its arcs (work.smooth.swept_intervals), and the plan converges and keeps the
 * clearance along its whole swept footprint. */
Test(car_scenes, a_slot_whose_dip_recurs_converges_with_the_rows_of_that_interval_along_its_arcs)
{
    cJSON *doc;
    cJSON *r = converged_plan(CAR_SCENE_CLUTTER, 100095, 0, 0.0, &doc);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth");
    cr_expect_geq(car_result_number(sw, "swept_intervals"), 1.0);
    cr_expect_geq(car_result_number(r, "min_clearance"), 0.05 - 1e-9);
    cJSON_Delete(r);
    cJSON_Delete(doc);
}

/* A tight parallel slot (scene 400072 of the bench: 0.99 m of play, 7 gear changes)
 * whose first solve, the augmented Lagrangian's, converges after some 5100 evaluations:
 * within the default budget of 20000 (it was left to the fallbacks, and the route
 * returned, when the budget was 3600). A budget of 1000 s, so that only the counted
 * limits bind. */
Test(car_scenes, a_tight_parallel_slot_converges_within_the_default_evaluations)
{
    cr_expect_leq(work_of_converged_plan(CAR_SCENE_PARALLEL, 400072, "smooth", "evaluations"), 20000);
}
