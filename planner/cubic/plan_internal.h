/* What the plan task (plan.c) and the writing of its result (plan_result.c) share: the
 * plan object itself. Internal to planner/cubic/; not installed. */
#ifndef SP_PLAN_INTERNAL_H
#define SP_PLAN_INTERNAL_H

#include "planner/sp_clock.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_multiple_shooting.h"
#include "planner/cubic/sp_plan.h"
#include "planner/cubic/sp_round.h"
#include "planner/cubic/sp_se3_metric.h"

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

#endif
