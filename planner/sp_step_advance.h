/* A step type (integrators/sp_step.h) in the simulation loop of sp_run.h, written once for
 * every family: one output interval advanced by one fixed step, or, for an adaptive type,
 * by as many accepted steps as its error control takes (a stop asked through the
 * interval's progress is honoured between them, and every attempt counts against the
 * interval's budget), with the work of the interval added to the run's. */
#ifndef SP_STEP_ADVANCE_H
#define SP_STEP_ADVANCE_H

#include "integrators/sp_step.h"
#include "planner/sp_run.h"

/* The kind of work a type reports: splitting, implicit or explicit. */
sp_work_kind sp_step_work_kind(const sp_step_type *type);

/* Advances x over iv; *h_proposal carries an adaptive type's next step between intervals
 * (0 at the start of a run: the type's own starting step). Returns the step's status
 * (SP_ERR_TOO_MANY_STEPS when the budget runs out, SP_ERR_INTERRUPTED on a stop); the
 * work done is added to *work either way. */
sp_status sp_step_advance(sp_step *s, const sp_run_interval *iv, double *h_proposal, double *x, sp_run_work *work);

#endif
