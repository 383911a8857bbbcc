/* Simulations of nonholonomic models (problems/nonholonomic/sp_nh_problem.h): the Lobatto IIIA–IIIB
 * method on a vector-space model, or its RKMK version on a
 * Lie-group model, from the problem's initial state, recording the trajectory and, at
 * every step, the invariants the method keeps: the constraint at the step point and at
 * every stage, the energy and each declared first integral, and (on groups) the distance
 * of the element from the group. */
#ifndef SP_NH_RUN_H
#define SP_NH_RUN_H

#include <cjson/cJSON.h>

#include "planner/sp_family.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_nonholonomic.h"
#include "integrators/sp_step.h"
#include "problems/sp_problem.h"

/* A problem's model bound to its parameters with its stepper. It points into itself:
 * initialise it where it stays (no copies). */
typedef struct sp_nh_system {
    const sp_problem *pb;
    int lie;           /* kind SP_KIND_NONHOLONOMIC_LIE */
    sp_nh_model model;     /* vector spaces */
    sp_nh_lie_bound bound; /* Lie groups */
    sp_step *step;         /* the problem's Lobatto IIIA–IIIB step type (integrators/sp_step.h) */
    int n;                             /* numbers of the configuration: n, or the group's elem_size */
    int dim;                           /* numbers of the momentum: n, or the algebra dimension */
    int m;                             /* constraints */
} sp_nh_system;

/* Binds the problem's model (the problem is borrowed and must outlive sys) and allocates
 * its stepper; a non-OK status when the problem is not of this family or memory runs out.
 * The release function frees what a bound system holds. */
sp_status sp_nh_system_init(sp_nh_system *sys, const sp_problem *pb);
void sp_nh_system_release(sp_nh_system *sys);

/* For pictures (sp_family.h): the invariants recomputed along a result's trajectory —
 * |H − H0|, |I − I0| for each declared first integral besides the energy and the
 * constraint |Ψ(q, p)| (vector spaces, from q and p); |E − E0|, |⟨α(g), 𝕁⁻¹μ⟩| and the
 * distance from the group (Lie groups, from g and mu) — with the model bound to the
 * result's settings.params; and whether q starts with a position in the plane (knife
 * edge, rolling disk, the sleighs). */
sp_status sp_nh_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                      sp_input_error *err);
int sp_nh_planar(const char *model);

/* The family: simulate tasks of every nonholonomic model, on vector spaces and on groups. */
extern const sp_family sp_nonholonomic_family;

#endif
