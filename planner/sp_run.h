/* The one stepping loop of every simulation. A model family hands it an sp_stepper — its
 * own state behind `self`, the fields of a trajectory row, and three functions: begin,
 * advance one output interval, write the current row — and the loop does the rest the
 * same way for every family: the stop flag and progress of sp_progress.h, the work
 * budget, recording every `record_every` steps (and the last), timing, and the result's
 * common blocks ("trajectory", "work"). */
#ifndef SP_RUN_H
#define SP_RUN_H

#include <cjson/cJSON.h>

#include "planner/sp_progress.h"
#include "problems/sp_problem.h"

#define SP_RUN_MAX_FIELDS 8

/* One field of a trajectory row: its name in the result ("q", "lambda") and how many
 * numbers it has; `flat` writes a one-number field as a plain vector, not as rows;
 * `multiplier` marks a Lagrange multiplier, which is not part of the state whose error
 * step selection bounds (sp_step_selection.h). */
typedef struct sp_run_field {
    const char *name;
    int width;
    int flat;
    int multiplier;
} sp_run_field;

/* What a run spent, in the units of its stepper. Every step attempted counts once in
 * `attempts` (an adaptive method's rejected steps too): that is what the budget bounds. */
typedef enum { SP_WORK_IMPLICIT, SP_WORK_EXPLICIT, SP_WORK_SPLITTING } sp_work_kind;
typedef struct sp_run_work {
    long attempts;
    long newton_iterations; /* implicit steps */
    int max_iterations;     /* most Newton iterations in one step */
    long factorizations;    /* LU factorisations of the Newton matrix, reported only when */
    int counts_factorizations; /* the stepper counts them (non-zero) */
    long rhs_evaluations;   /* explicit steps */
    long rejected_steps;    /* adaptive explicit steps */
    long exact_flows;       /* splitting methods */
} sp_run_work;

/* One output interval: from t0 to t1 (t1 is T exactly at the end), nominal step h = T/N. */
typedef struct sp_run_interval {
    int index, count; /* the index-th of count intervals */
    double t0, t1, h;
    long budget;                 /* steps the stepper may still attempt (> 0) */
    const sp_progress *progress; /* for a stepper that takes many steps in one interval */
} sp_run_interval;

typedef struct sp_stepper {
    void *self;
    sp_work_kind work_kind;
    int n_fields;
    sp_run_field fields[SP_RUN_MAX_FIELDS];
    /* Names of the entries of the first field (the model's coordinates), or NULL. */
    const char *const *coordinates;
    int n_coordinates;
    /* Sets the initial state (first, so that a row can be written even when what
     * follows fails) and starts the diagnostics there. */
    sp_status (*begin)(void *self);
    /* Advances over one interval, updating the diagnostics and *work; an adaptive stepper
     * that would pass iv->budget attempts stops with SP_ERR_TOO_MANY_STEPS. */
    sp_status (*advance)(void *self, const sp_run_interval *iv, sp_run_work *work);
    /* Writes the current state: out[f] receives fields[f].width numbers. */
    void (*row)(const void *self, double *const *out);
} sp_stepper;

typedef struct sp_run_settings {
    double T;
    int steps;
    int record;       /* keep trajectory rows */
    int record_every; /* a row every this many steps, and the last (< 1: every step) */
    long budget;      /* most steps attempted in all (<= 0: no bound) */
    const sp_progress *progress;
} sp_run_settings;

/* The settings of a problem: its T, steps, record_every and step budget; recording on. */
sp_run_settings sp_run_settings_of(const sp_problem *pb, const sp_progress *progress);

typedef struct sp_run {
    sp_status status;
    int steps_done;
    sp_run_work work;
    double start_seconds; /* wall time before the first step: the rows allocated, the initial state
                             (sp_family_run adds the binding of the model) */
    double seconds;       /* wall time of the stepping, the rows kept along it included */
    int rows;
    double *t;                        /* rows */
    double *field[SP_RUN_MAX_FIELDS]; /* rows x fields[f].width each */
} sp_run;

/* Runs the loop; every outcome, failures included, lands in run->status (the recorded
 * rows end with the last state reached). SP_ERR_NOMEM when the rows cannot be kept.
 * Free with sp_run_release. */
sp_status sp_run_drive(const sp_stepper *s, const sp_run_settings *set, sp_run *run);
void sp_run_release(sp_run *run);
/* Hands the arrays to the caller, who frees them (run no longer owns them). */
void sp_run_disown(sp_run *run);

/* The common blocks, for results assembled by hand (an endpoint plan's final run). */
void sp_run_add_trajectory(const sp_stepper *s, const sp_run *run, cJSON *result);
void sp_run_add_work(const sp_stepper *s, const sp_run *run, cJSON *result);
/* total += w (the most iterations in one step is a maximum). */
void sp_run_work_add(sp_run_work *total, const sp_run_work *w);
/* The members of a "work" object for effort summed by hand (several runs of a plan);
 * steps_done divides the Newton iterations into their mean. */
void sp_run_work_json(sp_work_kind kind, const sp_run_work *w, long steps_done, cJSON *work);

/* The result of a simulation: the head of sp_result.h, then "trajectory" (when rows were
 * kept) and "work". The family adds its diagnostics and settings, the caller the
 * "timing" (sp_family_simulate). */
cJSON *sp_run_result(const sp_problem *pb, const sp_stepper *s, const sp_run *run);

#endif
