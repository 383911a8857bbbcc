/* Simulations of holonomic models (problems/holonomic/sp_hol_models.h): integrating a problem's
 * model from its initial state on T*Q with the problem's scheme — constrained symplectic
 * Euler, RATTLE, SHAKE and their compositions; RATTLE on SO(3); the Prop. 7 step; the
 * feedback integrator on Euler, RK4 or adaptive DOP853; Lie–Trotter and Strang splitting
 * — recording the trajectory and the invariants at every step. */
#ifndef SP_HOL_RUN_H
#define SP_HOL_RUN_H

#include <cjson/cJSON.h>

#include "planner/sp_family.h"
#include "integrators/sp_splitting.h"
#include "integrators/sp_step.h"
#include "problems/sp_problem.h"

/* A problem's model bound to its parameters with the stepper of its scheme. It points
 * into itself: initialise it where it stays (no copies). */
typedef struct sp_hol_system {
    const sp_problem *pb;
    sp_hol_bound bound;
    const sp_hol_scheme *scheme;
    int n;      /* q and p have n numbers each; the heavy top's are its matrix form */
    int native; /* numbers of the stepper's own state: 2n, or 12 = (R, μ) for RATTLE on SO(3) */
    int lie;    /* the stepper's state is (R, μ) */
    const sp_step_type *type; /* the scheme's step type (integrators/sp_step.h) */
    sp_step *step;
    sp_split_system split;  /* splitting schemes: the exact flows of the model */
    double h_proposal;      /* adaptive schemes: the next step the error control proposes */
    const sp_progress *progress; /* its stop flag is checked every step, and adaptive sub-steps (NULL: none) */
} sp_hol_system;

/* Binds the problem's model (the problem is borrowed and must outlive sys) and allocates
 * its stepper; a non-OK status when the problem is not of this family or memory runs out.
 * The release function frees what a bound system holds. */
sp_status sp_hol_system_init(sp_hol_system *sys, const sp_problem *pb);
void sp_hol_system_release(sp_hol_system *sys);

/* One step of size h from the state (q, p) ∈ T*Q, in place (for RATTLE on SO(3) through
 * the embedding (R, μ) ↔ (Q, P); an adaptive scheme takes one fixed step of its main
 * solution). For the symplecticity defect and for tests. */
sp_status sp_hol_step_qp(sp_hol_system *sys, double h, double *z);

/* What a run keeps: the rows it records (every record_every steps and the last) and the
 * maxima over every step of the invariants' deviation. */
typedef struct sp_hol_run {
    int steps_done, rows;
    sp_status status;
    double *t, *q, *p; /* rows x 1, n, n */
    double *R, *mu;    /* lie_rattle: rows x 9, 3 */
    double *lam;       /* s3_contact: the contact multiplier λ(q, p) */
    double H0, energy_error, constraint_residual, hidden_residual;
    size_t n_monitors, n_integrals;
    double monitor_drift[SP_HOL_MAX_MONITORS];
    double integral0[SP_HOL_MAX_INTEGRALS], integral_drift[SP_HOL_MAX_INTEGRALS];
    long work;          /* right-hand-side evaluations (feedback), flows (splitting), Newton iterations */
    long rejected;      /* feedback_dop853: rejected steps */
    int max_iterations; /* implicit schemes: most Newton iterations in a step */
    double seconds;     /* wall time of the integration */
    double q_end[SP_HOL_MAX_N], p_end[SP_HOL_MAX_N];
} sp_hol_run;

/* Integrates pb->steps steps of size pb->T/pb->steps from the problem's initial state.
 * With `record` the trajectory arrays are allocated (free with sp_hol_run_release). A
 * failed step ends the run with its status, and so does a stop asked through sys->progress
 * (SP_ERR_INTERRUPTED). */
sp_status sp_hol_integrate(sp_hol_system *sys, int record, sp_hol_run *run);
void sp_hol_run_release(sp_hol_run *run);

/* The symplecticity defect (integrators/sp_symplecticity.h) of
 * one step of size h at the initial state, on T*Q. */
sp_status sp_hol_symplecticity_defect(sp_hol_system *sys, double h, double *defect);

/* For pictures (sp_family.h): the quantities that vanish on T*Q, |H − H0| and the drift of
 * each declared first integral along a result's trajectory. */
sp_status sp_hol_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                       sp_input_error *err);

/* The family: simulate tasks of every holonomic model. */
extern const sp_family sp_holonomic_family;

#endif
