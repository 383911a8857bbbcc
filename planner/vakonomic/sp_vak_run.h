/* Runs of vakonomic models: integrating a problem's model from (q0, p0) with the
 * Gauss–Legendre index-1 scheme, recording the trajectory and the invariants the
 * scheme keeps, and the tasks built on it (simulate; endpoint plans). */
#ifndef SP_VAK_RUN_H
#define SP_VAK_RUN_H

#include <cjson/cJSON.h>

#include "planner/sp_family.h"
#include "integrators/sp_index1.h"
#include "integrators/sp_step.h"
#include "problems/sp_problem.h"

/* A model bound to a problem's parameters with its stepper; the problem must outlive it. */
typedef struct sp_vak_system {
    const sp_problem *pb;
    sp_vakonomic_model model;
    double mass[SP_VAK_MAX_N];
    sp_step *step;                     /* the Gauss–Legendre step type of the problem (integrators/sp_step.h) */
    sp_vakonomic_point *point;         /* for λ(q, p), Ĥ and diagnostics */
    const sp_progress *progress; /* its stop flag is checked every step (NULL: none) */
} sp_vak_system;

/* Binds the problem's model (the problem is borrowed and must outlive sys) and allocates
 * its stepper; a non-OK status when the problem is not of this family or memory runs out.
 * The release function frees what a bound system holds. */
sp_status sp_vak_system_init(sp_vak_system *sys, const sp_problem *pb);
void sp_vak_system_release(sp_vak_system *sys);

/* What a run keeps: every step's state when `record` is set (N+1 rows), and always the
 * maxima of the invariants' drift. */
typedef struct sp_vak_run {
    int steps_done, rows;
    sp_status status;
    double *t, *q, *p, *lam; /* rows of 1, n, n, m when recorded (every record_every steps and the last) */
    sp_run_work work;
    double H0, energy_error, constraint_residual;
    size_t n_integrals; /* the model's first integrals, as declared for its parameters */
    double integral0[SP_VAK_MAX_INTEGRALS], integral_drift[SP_VAK_MAX_INTEGRALS];
    double length, energy; /* ∫ |q̇|_M dt and ∫ ½ q̇ᵀMq̇ dt by the trapezoidal rule */
    double mean_iterations;
    int max_iterations;
    double *jacobian;                                /* ∂z_N/∂p0 (2n x n, row-major) when asked */
    double q_end[SP_VAK_MAX_N], p_end[SP_VAK_MAX_N]; /* the last state reached */
} sp_vak_run;

/* Integrates pb->steps steps of size pb->T/pb->steps from (q0, p0). With `record` the
 * trajectory arrays are allocated (free with sp_vak_run_release); with `sensitivity` the
 * exact ∂z_N/∂p0 is propagated. A failed step ends the run with its status, and so does
 * a stop asked through sys->progress (SP_ERR_INTERRUPTED). */
sp_status sp_vak_integrate(sp_vak_system *sys, const double *q0, const double *p0, int record, int sensitivity,
                           sp_vak_run *run);
void sp_vak_run_release(sp_vak_run *run);

/* The symplecticity defect of one step of size h at (q0, p0)
 * (‖DΦᵀ J DΦ − J‖∞ with DΦ by central differences, ε = 1e-6; the vakonomic flow is
 * symplectic on all of R²ⁿ). */
sp_status sp_vak_symplecticity_defect(sp_vak_system *sys, const double *q0, const double *p0, double h, double *defect);

/* Adds "trajectory" (when recorded), "diagnostics" and "work" of a run to a result. */
void sp_vak_run_json(sp_vak_system *sys, const sp_vak_run *run, cJSON *result);

/* Adds the "settings" block (scheme, stages, h, params) of a vakonomic problem. */
void sp_vak_settings_json(const sp_problem *pb, cJSON *result);


/* The endpoint plan's result (NULL when out of memory): p0 such that the discrete
 * geodesic from q0 reaches q1 at T (see planner/vakonomic/endpoint.c). */
cJSON *sp_vak_plan_json(const sp_problem *pb);
/* The same, reporting every evaluation of each start's search to `progress`; a stop
 * asked through it ends the search with status "interrupted" and the best point so far. */
cJSON *sp_vak_plan_json_progress(const sp_problem *pb, const sp_progress *progress);

/* For pictures (sp_family.h): |Ĥ − Ĥ0|, the drift of each first integral and the
 * constraint |G(q) q̇| along a result's trajectory. */
sp_status sp_vak_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                       sp_input_error *err);

/* The simulate task, for the family table (vak_family.c). */
extern const sp_simulation_ops sp_vak_simulation;

/* The family: simulate and endpoint-plan tasks of every vakonomic model. */
extern const sp_family sp_vakonomic_family;

#endif
