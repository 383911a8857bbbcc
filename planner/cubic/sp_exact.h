/* Exact interpolation (σ = 0) of keyframes on SO(3), SE(3), Rⁿ or S² with the order-8
 * scheme, in a condensed form that costs a few sweeps of the grid.
 *
 * With g pinned to the keyframe at every knot, the unknowns are the body velocity and
 * momenta at the knots: w_i = (ξ_i, π_i) and the momentum μ_i that leaves knot i (its jump
 * at a keyframe is the interpolation multiplier, free). The conditions are those of the
 * multiple-shooting system (sp_multiple_shooting.h) for this case: each segment, integrated
 * from (R_i, ξ_i, μ_i, π_i), ends at R_{i+1} with the velocity ξ_{i+1} and π_{i+1}; the
 * start and end conditions. Newton's linear system is condensed segment by segment: the
 * three rows g_end = R_{i+1} give δμ_i in terms of δw_i (their 3 x 3 block ∂g_end/∂μ_i is
 * invertible, about −h³/6 I), which leaves the recurrence δw_{i+1} = Φ_i δw_i + c_i: a
 * banded system of 2·dim unknowns per knot. Newton is simplified (the factors are kept
 * while each step contracts the next by a factor 4 or more) and starts from the C² spline
 * through the keyframes (sp_keyframe_start.h).
 *
 * The resolution: solved on `steps` per segment and again on twice as many from that
 * solution; the distance between the two curves (at the finer grid's nodes) over 2^(p−2)
 * (four times Richardson's estimate for order p) estimates the error of the finer, which
 * is returned; segments above the accuracy get more steps and the round repeats.
 *
 * Points on the sphere (the rotation metric): a keyframe y_i fixes the knot's rotation
 * only up to a turn about y0, and a weighted keyframe (σ > 0) not at all. The knots then
 * move, R_i = L_i exp(θ_i), along y0 alone (exact) or every axis (weighted), and the moves
 * are the unknowns of an outer problem: minimise J(θ) = the cost of the orientation plan
 * through the moved knots plus the weighted keyframes' terms, by Newton's method with a
 * trust region (sp_trust_region.h). The gradient is the target terms' minus the kicks along
 * the free directions, the Hessian its derivative with the orientation plan re-solved (its
 * band, which holds it to round-off: a solve with the kept factors per direction and 61
 * keyframes). The start is the lift of the C² spline start with its best spin, through the
 * points, and every accepted step lowers J. */
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
    double error_estimate; /* see above */
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
