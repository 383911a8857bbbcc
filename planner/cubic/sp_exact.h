/* Exact interpolation of keyframes on SO(3), SE(3) and Rⁿ, and sphere plans exact or
 * weighted, with the order-8 scheme in a condensed form that costs a few sweeps of the
 * grid (docs/methods.md §3.4c, and §3.4f for points on the sphere in the rotation metric:
 * the knots' free rotations solved as an outer problem). Newton's linear system is
 * condensed segment by segment into a banded system of 2·dim unknowns per knot; the
 * resolution is refined until the Richardson estimate of the error meets the accuracy. */
#ifndef SP_EXACT_H
#define SP_EXACT_H

#include "integrators/sp_hohp.h"
#include "planner/sp_clock.h"
#include "planner/sp_progress.h"
#include "problems/sp_problem.h"

/* Whether sp_exact_solve takes this problem: a plan on SO(3), SE(3) or Rⁿ with σ = 0, or on
 * the sphere in the rotation metric with any σ, the last keyframe at T, the order-8 scheme
 * and no step count. */
int sp_exact_applies(const sp_problem *pb);

typedef struct sp_exact_solution {
    int converged;
    double residual;       /* scaled optimality residual of the returned grid */
    double error_estimate; /* of the finer of two grids (docs/methods.md §3.4b) */
    int rounds, iterations, jacobians, sweeps;
    sp_time_parts times; /* where the solve's time went */
    int *segment_steps;   /* of the returned grid (n_targets), malloc'd */
    sp_hohp_state *knots; /* n_targets + 1 states leaving each knot (μ after the jump) */
    double *kicks;        /* n_targets multipliers: the jump of μ at each keyframe */
    sp_hohp_state *ends;      /* n_targets: every segment's end state (μ before the jump) … */
    double *segment_running;  /* … and its running cost, from the last sweep */
    int node_count;       /* the state at every node of the returned grid (μ after the jump) */
    sp_hohp_state *nodes;
} sp_exact_solution;

/* Solves from the C² spline start with first_steps per segment (n_targets of them). A
 * failure to converge is reported in out->converged (the caller falls back to the general
 * solver); a non-OK status is an allocation failure or an interruption. */
sp_status sp_exact_solve(const sp_problem *pb, const int *first_steps, const sp_progress *progress,
                         sp_exact_solution *out);
void sp_exact_solution_free(sp_exact_solution *s);

#endif
