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
/* The results of two problem texts that must both converge (asserted, naming `what`);
 * cJSON_Delete them. */
void solve_converged_pair(const char *what, const char *doc_a, const char *doc_b, cJSON **ra, cJSON **rb);
/* A sphere plan through the schedule's points (exact, natural ends unless `extra` says
 * otherwise), in the metric given (NULL: the default), with the extra members; cJSON_free
 * the text. */
char *sphere_doc(const kf_schedule *s, const char *metric, const char *extra);
/* A random walk of n keyframes 0.7 rad apart (σ = 0, natural ends, free start) without a
 * step count or scheme, so that the planner picks its default (the exact solver of order
 * 8) and the grid, with `output` (JSON text, NULL: none) as its output block; free the text. */
char *default_plan_doc(unsigned long seed, int n, const char *output);
/* The keyframe times of a schedule with 0 in front: knots[0..n]. */
void knots_of(const kf_schedule *s, double *knots);
/* The largest distance `apart` between rows k of the sampled arrays `name` (samples.name)
 * of two results, asserted to be as many rows. */
typedef double (*row_distance_fn)(const cJSON *rows_a, const cJSON *rows_b, int k, const void *ctx);
double samples_worst(const cJSON *a, const cJSON *b, const char *name, row_distance_fn apart, const void *ctx);
/* The largest distance from a target in a plan's result. */
double worst_miss(const cJSON *res);

#endif
