/* One entry point for every task of every model: the command's `solve` and `study` both
 * run problems through it, so a model or task added to the problem reader and
 * dispatched here is picked up by both without further change. */
#ifndef SP_SOLVE_H
#define SP_SOLVE_H

#include <cjson/cJSON.h>

#include "sp_progress.h"
#include "../problems/sp_problem.h"

/* Runs the problem's task (plan or simulate) for its model and returns the result tree
 * in the JSON contract of DESIGN.md (NULL when out of memory). Optimisers report every
 * evaluation to `progress` (may be NULL). */
cJSON *sp_solve_json(const sp_problem *pb, const sp_progress *progress);

/* Wall-clock numbers in results are the members whose name ends in "_seconds" (the
 * "timing" block's forward_seconds and adjoint_seconds); everything else in a result is
 * a function of the problem alone, bitwise equal from run to run. This removes those
 * members wherever they are in the tree and returns them in a new flat object (first
 * of each name kept; NULL when out of memory, in which case the result is unchanged). */
cJSON *sp_result_detach_wall_clock(cJSON *result);

#endif
