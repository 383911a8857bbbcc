/* What a plan's result says of its curve read at the times the file asks for
 * ("output": {"sample_times"} or {"sample_rate"}) and of its largest rates. */
#ifndef SP_SAMPLES_H
#define SP_SAMPLES_H

#include <cjson/cJSON.h>

#include "planner/cubic/sp_curve.h"

/* The times the file asks for (malloc'd, *count of them; NULL with *count 0 when it asks
 * for none, or when out of memory: then *st is SP_ERR_NOMEM). */
double *sp_sample_times(const sp_problem *pb, size_t *count, sp_status *st);

/* Adds "samples" (when the file asks for them) and "extremes" to a plan's result:
 *   orientations: "t", "q" (quaternions, each of the sign nearer the last) or "R", "omega"
 *                 (ω = (g⁻¹ġ)^∨), "omega_dot";
 *   points on S²: "t", "y", "velocity", "acceleration" (of y = g·y0);
 *   points of Rⁿ: "t", "x", "velocity", "acceleration";
 *   SE(3) poses:  both, as SO3xR3 results write them: the orientation's rows, and the
 *                 position x with velocity ẋ and acceleration ẍ in the fixed frame;
 * extremes: the largest |ω| and |ω̇| (|velocity| and |acceleration| on Rⁿ; both pairs for
 * SE(3) poses) with their times. */
sp_status sp_samples_add(cJSON *root, const sp_problem *pb, sp_curve *curve);

#endif
