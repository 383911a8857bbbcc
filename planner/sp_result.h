/* What every result shares, whatever its family and task: the head of a simulate
 * result, how a result ended (its outcome and a one-line explanation), and the clean-up
 * of non-finite and wall-clock numbers. Below the families, which build their results on
 * it, and the dispatch that runs them (sp_solve.h). */
#ifndef SP_RESULT_H
#define SP_RESULT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_problem.h"

/* The head every simulate result starts with: task, model, status and, when the run
 * stopped early, the message and the step it stopped at (failed_at_step, or
 * interrupted_at_step after a stop request); then the number of steps done. */
cJSON *sp_simulate_result_new(const sp_problem *pb, sp_status status, int steps_done);

/* Marks a result with the library that computed it: "symplan_version" as its first
 * member (sp_solve_json does it for every result). */
void sp_result_stamp(cJSON *result);
/* Adds a copy of the problem document a result solved, as "input" (the command adds its
 * file's; a study's case files carry theirs in "case"). */
void sp_result_add_input(cJSON *result, const cJSON *input);
/* The same without a copy: the result takes the document, which is deleted when there is
 * no result or it cannot be added. */
void sp_result_take_input(cJSON *result, cJSON *input);
/* The problem a result solved, read back from its "input" (or a study case file's
 * "case.problem"): how pictures rebuild an expression model, whose functions only the
 * problem holds. SP_ERR_INVALID with err set when there is none or it does not read;
 * free with sp_problem_free. */
sp_status sp_result_input_problem(const cJSON *result, sp_problem *pb, sp_input_error *err);
/* Whether a result is of an expression model ("model": "custom"). */
int sp_result_is_custom(const char *model);

/* How a result ended, from its "status":
 *   DONE        "converged", "ok", "stopval_reached": the task did what was asked;
 *   STOPPED     "stalled", "maxeval_reached", "maxtime_reached", "target_not_reached":
 *               it ran to its end without reaching the goal (a usable result);
 *   INTERRUPTED "interrupted": stopped by the caller, the result is partial;
 *   FAILED      anything else ("newton_failed", "singular_matrix", "non_finite",
 *               "optimizer_failed", …): the computation broke down. */
typedef enum { SP_OUTCOME_DONE, SP_OUTCOME_STOPPED, SP_OUTCOME_INTERRUPTED, SP_OUTCOME_FAILED } sp_outcome;
sp_outcome sp_result_outcome(const cJSON *result);
/* One line saying how a result that is not DONE ended: "newton_failed: the implicit solve
 * did not converge at step 3". */
void sp_result_explain(const cJSON *result, char *out, size_t size);
/* Replaces every non-finite number of a result by null; when there were any, adds
 * "non_finite_values" (their count) and "non_finite_at" (the JSON path of the first)
 * and, unless the result had already failed, sets "status" to "non_finite" with a
 * "message". */
void sp_result_refuse_nonfinite(cJSON *result);

/* Wall-clock numbers in results are the members whose name ends in "_seconds" (the
 * "timing" block's forward_seconds and adjoint_seconds); everything else in a result is
 * a function of the problem alone, bitwise equal from run to run. This removes those
 * members wherever they are in the tree and returns them in a new flat object (first
 * of each name kept; NULL when out of memory, in which case the result is unchanged). */
cJSON *sp_result_detach_wall_clock(cJSON *result);

#endif
