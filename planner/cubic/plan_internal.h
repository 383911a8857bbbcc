/* What the plan task (plan.c), its multiple-shooting search (plan_search.c) and the
 * writing of its result (plan_result.c) share: the plan object itself and the steps of
 * the search. Internal to planner/cubic/; not installed. */
#ifndef SP_PLAN_INTERNAL_H
#define SP_PLAN_INTERNAL_H

#include "planner/sp_clock.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_multiple_shooting.h"
#include "planner/cubic/sp_plan.h"
#include "planner/cubic/sp_round.h"
#include "planner/cubic/sp_se3_metric.h"
#include "planner/sp_optimize.h"

#define PLAN_MAX_STARTS 32

/* One start of the multiple-shooting search, as the result reports it. */
typedef struct plan_start {
    const char *name;
    char status[32];
    double cost, running, residual, sigma;
    int iterations, stages, direct_evaluations;
} plan_start;

struct sp_plan {
    const sp_problem *pb;
    sp_shooting *shooting; /* single shooting */
    sp_ms *ms;             /* multiple shooting: the solution returned */
    sp_ms_report report;
    sp_ms_stats stats;
    int iterations, factorizations, sweeps; /* over every start */
    int linearised, direct_gradients;       /* sweeps with tangents; direct-form gradients */
    sp_time_parts times; /* where the solve's time went (the result's "timing") */
    plan_start starts[PLAN_MAX_STARTS];
    int n_starts;
    double seconds;
    sp_progress progress; /* {NULL, NULL} unless set */
    /* the grid: steps per segment between keyframes (NULL: the file's steps), chosen for
     * the accuracy asked when the file gives no steps; the solved curve */
    int *segment_steps;
    int steps;
    double error_estimate; /* between the returned curve and the one on a grid half as fine */
    int resolution_rounds;
    int grid_given; /* segment_steps set by the caller: not refined */
    sp_curve *curve;
    /* pose plans: the orientation and position parts, each a plan of its own; SE(3) plans
     * in a weighted metric: the unit-metric plan of the scaled positions (parts[0], sub[0]),
     * which speaks for this one once solved and read back */
    sp_problem parts[2];
    sp_plan *sub[2];
    sp_plan_result sub_result[2];
    int weighted;
    sp_se3_scaling scaling;
    /* sphere plans in the round metric: the condensed solver's solution (sp_round.h) */
    int has_round;
    sp_round_solution round;
};

/* The accuracy asked of a plan without steps (rad, or length on Rⁿ): the file's, else 1e-6. */
static inline double sp_plan_accuracy(const sp_problem *pb) { return pb->plan.accuracy > 0.0 ? pb->plan.accuracy : 1e-6; }

/* The search (plan_search.c). One start: the plan itself, and when that does not
 * converge, continuation in σ from a weaker weighting down to the plan's own (σ = 0: to
 * 1e-3, then exact). Returns the solved object (converged or not; NULL on a failure that
 * left nothing). */
sp_ms *sp_plan_run_start(sp_plan *plan, sp_start_kind kind, plan_start *rec, sp_status *failure);
/* The file's NLopt algorithm and stopping rules on the direct form from the spline
 * start, finished by Newton on the optimality system from the curve it returns. */
sp_ms *sp_plan_run_direct(sp_plan *plan, plan_start *rec, sp_status *failure, sp_optimize_result *opt);
/* First steps per segment for the accuracy asked (the rest left to the refinement). */
sp_status sp_plan_first_resolution(sp_plan *plan, double step_at_1e6);
/* The curve of a solved object (NULL when out of memory or a step failed). */
sp_curve *sp_plan_curve_of(sp_plan *plan, sp_ms *ms);
/* Refines the grid of the best solution until the error estimate meets the accuracy;
 * *best becomes the finer solution. */
sp_status sp_plan_refine_resolution(sp_plan *plan, sp_ms **best, sp_ms_stats *best_stats);
/* Exact interpolation by the condensed solver (sp_exact.h), checked by the general
 * system: the object holding it, or NULL when the condensed solver did not converge. */
sp_ms *sp_plan_solve_exact(sp_plan *plan, plan_start *rec, sp_status *failure);

#endif
