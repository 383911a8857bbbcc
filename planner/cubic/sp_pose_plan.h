/* Pose plans (group SO3xR3): keyframes (R_i, x_i) of a rigid body. With the product
 * metric the cost ½∫|ω̇|² + ½∫|v̇|² + Σ E_i and every end condition separate into an
 * orientation plan on SO(3) and a position plan on R³, which are solved side by side and
 * reported as one result: velocities ξ = (ω, v), momenta and kicks likewise stacked. */
#ifndef SP_POSE_PLAN_H
#define SP_POSE_PLAN_H

#include <cjson/cJSON.h>

#include "problems/sp_problem.h"

/* The orientation part (parts[0]) and the position part (parts[1]) of a pose plan; each
 * owns a copy of the targets. SP_ERR_NOMEM leaves nothing to free. */
sp_status sp_pose_split(const sp_problem *pb, sp_problem parts[2]);
void sp_pose_parts_free(sp_problem parts[2]);

/* One result from the results of the two parts (both deleted). NULL when out of memory. */
cJSON *sp_pose_merge(cJSON *orientation, cJSON *position);

#endif
