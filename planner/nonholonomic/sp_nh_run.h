/* Simulations of nonholonomic models (problems/nonholonomic/sp_nh_problem.h): the Lobatto IIIA–IIIB
 * method on a vector-space model, or its RKMK version on a
 * Lie-group model, from the problem's initial state, recording the trajectory and, at
 * every step, the invariants the method keeps: the constraint at the step point and at
 * every stage, the energy and each declared first integral, and (on groups) the distance
 * of the element from the group. */
#ifndef SP_NH_RUN_H
#define SP_NH_RUN_H

#include <cjson/cJSON.h>

#include "planner/sp_progress.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_nonholonomic.h"
#include "problems/sp_problem.h"

/* A problem's model bound to its parameters with its stepper. It points into itself:
 * initialise it where it stays (no copies). */
typedef struct sp_nh_system {
    const sp_problem *pb;
    int lie;           /* kind SP_KIND_NONHOLONOMIC_LIE */
    sp_nh_model model; /* vector spaces */
    sp_nh *stepper;
    sp_nh_lie_bound bound; /* Lie groups */
    sp_nh_lie *lie_stepper;
    int n;                             /* numbers of the configuration: n, or the group's elem_size */
    int dim;                           /* numbers of the momentum: n, or the algebra dimension */
    int m;                             /* constraints */
    const volatile sig_atomic_t *stop; /* sp_progress.h's stop flag, checked every step (NULL: none) */
} sp_nh_system;

sp_status sp_nh_system_init(sp_nh_system *sys, const sp_problem *pb);
void sp_nh_system_release(sp_nh_system *sys);

/* What a run keeps: the rows it records (every record_every steps and the last) and the
 * maxima over every step of the invariants' deviation. */
typedef struct sp_nh_run {
    int steps_done, rows;
    sp_status status;
    double *t;      /* rows */
    double *q, *p;  /* rows x n: vector spaces, and the sleigh's coordinates (x, y, θ), M(θ)q̇ */
    double *g, *mu; /* Lie groups: rows x elem_size, rows x dim */
    double *lam;    /* rows x m: the multiplier carried out of each step (Λ_s; λ0 at t = 0) */
    double H0;      /* energy at t = 0 */
    double energy_error, constraint_residual, stage_residual, group_error;
    double energy_quarter[4]; /* max |H − H0| over each quarter of the steps */
    size_t n_integrals;       /* declared first integrals besides the energy */
    const char *integral_names[SP_NH_MAX_INTEGRALS];
    double integral0[SP_NH_MAX_INTEGRALS], integral_drift[SP_NH_MAX_INTEGRALS];
    long iterations; /* Newton iterations, all steps */
    int max_iterations;
    double seconds;                                                              /* wall time of the integration */
    double q_end[SP_LIE_MAX_ELEM], p_end[SP_LIE_MAX_ELEM], lam_end[SP_NH_MAX_M]; /* the last state (g, μ on groups) */
} sp_nh_run;

/* Integrates pb->steps steps of size pb->T/pb->steps from the problem's initial state.
 * With `record` the trajectory arrays are allocated (free with sp_nh_run_release). A
 * failed step ends the run with its status, and so does a raised sys->stop
 * (SP_ERR_INTERRUPTED). */
sp_status sp_nh_integrate(sp_nh_system *sys, int record, sp_nh_run *run);
void sp_nh_run_release(sp_nh_run *run);

/* The simulate task's result (NULL when out of memory); a stop asked through `progress`
 * (may be NULL) ends it with status "interrupted" and the steps taken so far. */
cJSON *sp_nh_simulate_json(const sp_problem *pb, const sp_progress *progress);

#endif
