/* What the car's test suites share (tests/test_car.c, tests/test_car_scenes.c): reading
 * a result, the checks every plan of model car must pass, a route smoothed by one solver. */
#ifndef SP_TEST_CAR_SUPPORT_H
#define SP_TEST_CAR_SUPPORT_H

#include <cjson/cJSON.h>

#include "planner/car/sp_car_plan.h"

/* The number `key` of a result, asserted to be there. */
double car_result_number(const cJSON *r, const char *key);

/* The plan r of the problem document `input`, checked: converged or stalled, at the goal
 * to 1e-6 in position and heading, from the start; every pair of rows joined by the
 * bicycle's arc (no sideways slip, the heading turning as tan δ / L), at most 0.1 m of
 * travel apart, |δ| within max_steering; the footprint on 21 poses of each arc at least
 * the clearance less 1 mm from every obstacle, and the reported min_clearance within 2 cm
 * of that. */
void car_check_plan(const cJSON *r, const cJSON *input);

/* search.max_seconds of the problem document `doc` set to `seconds` (the tests give 1000
 * where only the counted limits should bind). */
void car_set_max_seconds(cJSON *doc, double seconds);

/* The route of the problem file `text` smoothed by one solver (car_smooth_by; `how` a
 * car_smooth_method), as the plan does it: the goal's heading unwrapped to the route's
 * end; with route_cpu ≥ 0 as if the route search had taken that much processor time. */
void car_smooth_after(const char *text, car_smooth_method how, double route_cpu, car_smooth_out *out);

#endif
