/* What the tests of plans share: reading result members, solving a problem text, and
 * writing a sphere plan through a schedule's points. */
#ifndef SP_TEST_PLAN_SUPPORT_H
#define SP_TEST_PLAN_SUPPORT_H

#include <cjson/cJSON.h>

#include "tests/keyframe_reference.h"

double number(const cJSON *o, const char *key);
const char *string(const cJSON *o, const char *key);
/* Row k of a result array of 3-vectors. */
void row3(const cJSON *rows, int k, double *out);
/* The result of a problem text (asserts that it is accepted); cJSON_Delete it. */
cJSON *solve_doc(const char *doc);
/* A sphere plan through the schedule's points (exact, natural ends unless `extra` says
 * otherwise), in the metric given (NULL: the default), with the extra members; cJSON_free
 * the text. */
char *sphere_doc(const kf_schedule *s, const char *metric, const char *extra);
/* The keyframe times of a schedule with 0 in front: knots[0..n]. */
void knots_of(const kf_schedule *s, double *knots);
/* The largest distance from a target in a plan's result. */
double worst_miss(const cJSON *res);

#endif
