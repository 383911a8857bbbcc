/* Step selection for fixed-step structure-preserving runs: the user asks for a global
 * error at T ("error_tolerance") and the planner picks the one step h = T/N the whole run
 * keeps. A step that varied inside the run would spoil what the symplectic, reversible
 * schemes are chosen for, their long-time behaviour (Hairer, Lubich & Wanner, "Geometric
 * Numerical Integration", 2006, ch. VIII: variable steps break the backward error
 * analysis); so the error is estimated over whole runs instead, by Richardson
 * extrapolation (Richardson, "The deferred approach to the limit", 1927): two runs of N
 * and 2N steps of a scheme of order p end at states z_N and z_2N, and
 *     err(2N) ≈ max |z_2N − z_N| / (2^p − 1)
 * over the state (the multipliers left out). Starting from N = 16 the count moves to
 * ceil(2N (err/tol)^(1/p) · 1.1) until the finer run of a pair meets the tolerance; that
 * run's N is the one chosen. */
#ifndef SP_STEP_SELECTION_H
#define SP_STEP_SELECTION_H

#include <cjson/cJSON.h>

#include "planner/sp_clock.h"
#include "planner/sp_family.h"

#define SP_STEP_SELECTION_MAX_TRIALS 16

/* One run without recording; error is the estimate of its global error, or < 0 for the
 * coarse run of a pair, which has none. */
typedef struct sp_step_trial {
    int steps;
    sp_status status;
    double error;
    double seconds;
} sp_step_trial;

typedef struct sp_step_selection {
    double tolerance;
    int order;
    /* SP_OK with steps chosen and its estimated_error ≤ tolerance; reached = 0 when the
     * rounds ran out first (steps is then the best tried); any other status ends the
     * search without a choice (budget spent, interrupted, out of memory, every trial
     * run failing). */
    sp_status status;
    int reached;
    int steps;
    double estimated_error;
    int n_trials;
    sp_step_trial trials[SP_STEP_SELECTION_MAX_TRIALS];
    sp_run_work work; /* of every trial run */
    long steps_done;  /* by every trial run */
    sp_time_parts parts; /* of every trial run: binding the model and the initial state (start),
                            the stepping (plain sweeps) */
    /* SP_ERR_TOO_MANY_STEPS for memory: the final run the search asked for (memory_steps
     * steps) would need memory_needed bytes, above pb->memory_budget; 0 otherwise */
    int memory_steps;
    double memory_needed, memory_limit;
} sp_step_selection;

/* Searches the step count for pb->error_tolerance within pb->step_budget, leaving what
 * the final run may still spend to the caller (step_budget − sel->work.attempts), and for
 * a final run whose trajectory fits pb->memory_budget. */
void sp_step_select(const sp_family *f, const sp_problem *pb, const sp_progress *progress, sp_step_selection *sel);

/* The "step_selection" block of a result. */
void sp_step_selection_json(const sp_step_selection *sel, double T, cJSON *result);

#endif
