/* One entry point for every task of every model: the command's `solve` and `study` both
 * run problems through it, so a model or task added to the problem reader and
 * dispatched here is picked up by both without further change. */
#ifndef SP_SOLVE_H
#define SP_SOLVE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "planner/sp_progress.h"
#include "planner/sp_result.h"
#include "planner/api/sp_text_api.h"
#include "problems/sp_problem.h"

/* Runs the problem's task (plan or simulate) for its model and returns the result tree
 * in the JSON form of docs/results.md, "Results" (NULL when out of memory). Optimisers report every
 * evaluation to `progress` (may be NULL); its stop flag ends the task early with status
 * "interrupted" and what was computed so far. A non-finite number never leaves: each is
 * replaced by null (sp_result_refuse_nonfinite), so the tree can always be written. */
cJSON *sp_solve_json(const sp_problem *pb, const sp_progress *progress);

/* sp_solve_json that also attaches `input`, the problem document solved, as the result's
 * "input" (taken: deleted when there is no result), and with `curve` non-NULL hands over
 * the plan's curve (*curve NULL when the result has none; sp_text_api.h). NULL when out of
 * memory, nothing then to free. */
cJSON *sp_solve_json_input(const sp_problem *pb, const sp_progress *progress, cJSON *input, sp_plan_curve **curve);

/* An input error as the one line "path: message" (only the message for the whole
 * document), cut to error_size bytes with the message kept whole. */
void sp_input_error_line(const sp_input_error *e, char *error, size_t error_size);

#endif
