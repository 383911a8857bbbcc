/* The direct form of a cubic-spline plan (docs/methods.md §3.5): the unknowns are the
 * body velocities ξ_k at the grid nodes (ξ_0 when it is free, ξ_N unless it is
 * prescribed), the curve follows from them step by step, and the discrete cost J_d — the
 * same discrete problem as shooting and multiple shooting solve — comes with its exact
 * gradient from one backward sweep of two costates (at a stationary point the HOHP momenta).
 * Weighted plans only (σ > 0). An sp_direct borrows its problem and owns its sweep records. */
#ifndef SP_DIRECT_H
#define SP_DIRECT_H

#include "planner/cubic/sp_multiple_shooting.h"

typedef struct sp_direct sp_direct;

/* Borrows the problem; `sigma` (> 0) replaces its σ. NULL when out of memory. */
sp_direct *sp_direct_alloc(const sp_problem *pb, double sigma);
/* The same on the grid of segment_steps[i] steps between keyframes (NULL: the file's
 * steps), as sp_ms_alloc_segments: the grid of a plan without steps. */
sp_direct *sp_direct_alloc_segments(const sp_problem *pb, double sigma, const int *segment_steps);
void sp_direct_free(sp_direct *d);
int sp_direct_dim(const sp_direct *d);

/* J_d(x) and, when grad is not NULL, its gradient. */
sp_status sp_direct_cost(sp_direct *d, const double *x, double *J, double *grad);
/* x from an initial curve through the keyframes (its velocities at the nodes). */
sp_status sp_direct_start(sp_direct *d, sp_start_kind kind, double *x);
/* The HOHP node states (g, ξ, ν after any kick, p) of the curve x at the grid nodes
 * `nodes` (count of them, increasing), from the costates of one gradient sweep. */
sp_status sp_direct_node_states(sp_direct *d, const double *x, const int *nodes, int count, sp_hohp_state *out);

#endif
