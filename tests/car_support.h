/* What the car's test suites share (tests/test_car.c, tests/test_car_scenes.c): reading
 * a result, and the checks every plan of model car must pass. */
#ifndef SP_TEST_CAR_SUPPORT_H
#define SP_TEST_CAR_SUPPORT_H

#include <cjson/cJSON.h>

/* The number `key` of a result, asserted to be there. */
double car_result_number(const cJSON *r, const char *key);

/* The plan r of the problem document `input`, checked: converged or stalled, at the goal
 * to 1e-6 in position and heading, from the start; every pair of rows joined by the
 * bicycle's arc (no sideways slip, the heading turning as tan δ / L), at most 0.1 m of
 * travel apart, |δ| within max_steering; the footprint on 21 poses of each arc at least
 * the clearance less 1 mm from every obstacle, and the reported min_clearance within 2 cm
 * of that. */
void car_check_plan(const cJSON *r, const cJSON *input);

#endif
