/* Single shooting for cubic-spline plans (docs/methods.md §3.6): the unknowns are the
 * initial momenta x = (ν0, p0); a forward sweep integrates the HOHP scheme with the
 * momentum kick ν ← ν + ∇E_i(g) at every target, accumulating
 *     J_d(x) = Σ_k h_k/2 |π_k|² + Σ_i E_i(g_{k_i}),
 * and a backward sweep through the recorded steps gives its exact gradient (the discrete
 * adjoint). The grid is the plan's (sp_plan_grid). The object owns the sweeps' records. */
#ifndef SP_SHOOTING_H
#define SP_SHOOTING_H

#include "integrators/sp_hohp.h"
#include "problems/sp_problem.h"

typedef struct sp_shooting sp_shooting;

typedef struct sp_shooting_timing {
    double forward_seconds, adjoint_seconds;
    long forward_sweeps, adjoint_sweeps;
} sp_shooting_timing;

/* Borrows the problem, which must outlive the object. NULL when out of memory. */
sp_shooting *sp_shooting_alloc(const sp_problem *problem);
void sp_shooting_free(sp_shooting *s);

int sp_shooting_dim(const sp_shooting *s); /* number of unknowns, 2·dim g */
int sp_shooting_steps(const sp_shooting *s);

/* J_d(x) by one forward sweep, recording nothing. */
sp_status sp_shooting_cost(sp_shooting *s, const double *x, double *J);
/* J_d(x) and its gradient: a recorded forward sweep and the adjoint sweep. */
sp_status sp_shooting_gradient(sp_shooting *s, const double *x, double *J, double *grad);
/* A forward sweep that records every state, to read the trajectory below. */
sp_status sp_shooting_trajectory(sp_shooting *s, const double *x, double *J);

/* The states at the N+1 grid times (before any kick) of the last trajectory sweep; the
 * times; the step index of each target; and, of the last gradient or trajectory sweep,
 * the kick applied at each target (n_targets x dim), the running part of the cost and
 * the terminal residual (ν_N⁺, p_N). */
const sp_hohp_state *sp_shooting_states(const sp_shooting *s);
const double *sp_shooting_times(const sp_shooting *s);
const int *sp_shooting_target_steps(const sp_shooting *s);
const double *sp_shooting_kicks(const sp_shooting *s);
double sp_shooting_running_cost(const sp_shooting *s);
void sp_shooting_terminal_residual(const sp_shooting *s, double *residual);

/* The time spent in, and the number of, forward and adjoint sweeps so far. */
sp_shooting_timing sp_shooting_get_timing(const sp_shooting *s);

#endif
