/* The cubic family's plan task. sp_plan_new borrows the problem (which must outlive the
 * plan); sp_plan_solve solves it and puts every outcome into the caller's sp_plan_result.
 * The solver follows the problem (docs/methods.md §3): exact interpolation on SO(3), SE(3)
 * and Rⁿ, and sphere plans in the rotation metric, by the condensed solver (sp_exact.h),
 * its solution checked by the general system; sphere plans in the round metric by
 * sp_round.h alone; every other plan, and any the condensed solver does not finish, by
 * multiple shooting (sp_multiple_shooting.h) from curves built through the keyframes;
 * `"method": "direct"` by NLopt on the direct form (sp_direct.h), finished by that Newton
 * iteration, and `"single_shooting"` by NLopt on the initial momenta (sp_shooting.h).
 * sp_plan_result_json builds the result tree of docs/results.md, owned by the caller. The
 * family table and the trajectory block shared with the simulate task are declared here. */
#ifndef SP_PLAN_H
#define SP_PLAN_H

#include <cjson/cJSON.h>

#include "planner/sp_family.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_shooting.h"

typedef struct sp_plan_result {
    char status[32];         /* "converged", "maxeval_reached", "newton_failed", … */
    char optimizer_code[40]; /* NLopt's own result name, or "newton" for the Newton solvers */
    sp_status failure;       /* SP_OK unless an evaluation failed */
    double cost, gradient_norm, residual_norm;
    int evaluations;
    double x[2 * SP_LIE_MAX_DIM]; /* optimised (ν0, p0) */
} sp_plan_result;

typedef struct sp_plan sp_plan;

sp_plan *sp_plan_new(const sp_problem *problem);
void sp_plan_free(sp_plan *plan);
/* Reports every evaluation of the optimiser to `progress` (copied; NULL: none). */
void sp_plan_set_progress(sp_plan *plan, const sp_progress *progress);
/* Solves the plan; never fails silently: every outcome lands in *result. */
sp_status sp_plan_solve(sp_plan *plan, sp_plan_result *result);
/* The result tree of a solved plan (NULL when out of memory). */
cJSON *sp_plan_result_json(sp_plan *plan, const sp_plan_result *result);
/* Hands the solved curve (sp_curve.h) over to the caller, who frees it with
 * sp_curve_free; the plan keeps none. curves[0] is the plan's curve (a pose plan's
 * orientation part), curves[1] a pose plan's position part (NULL for other plans); each
 * NULL where the solve produced none (single shooting, a failure that left no solution).
 * The result tree is to be built first: it reads its samples and extremes on the curve. */
void sp_plan_take_curves(sp_plan *plan, sp_curve *curves[2]);
/* The shooting object behind a single-shooting plan (for benchmarks and tests); NULL for
 * the other methods. Owned by the plan. */
sp_shooting *sp_plan_shooting(sp_plan *plan);

/* For pictures (sp_family.h): the HOHP invariants along a result's trajectory, relative
 * to their size at t = 0. */
sp_status sp_cubic_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                         sp_input_error *err);

/* The picture of a plan (sp_family.h's figure; planner/cubic/figures.c). */
sp_status sp_cubic_figure(const cJSON *result, const sp_traj *tr, char **svg, sp_input_error *err);

/* The family: simulate and plan tasks of cubic splines. */
extern const sp_family sp_cubic_family;

/* The trajectory block shared by both tasks: rows at t, q (g flattened), xi, nu, p,
 * and y = g·y0 when y0 is not NULL. */
cJSON *sp_trajectory_json(const sp_group *G, const sp_hohp_state *states, const double *t, int count, const double *y0);

#endif
