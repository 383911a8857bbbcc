/* Cubics of the round sphere through keyframes: the curve y(t) on S² of least
 * ½∫|∇ₜẏ|² + Σ_i E_i(y(t_i)), E_i = |y − y_i|²/(2σ²) the target term of every sphere plan
 * (exact interpolation at σ = 0), by the condensed multiple shooting of sp_exact.h with
 * knots pinned (σ = 0, last keyframe at T) or free (σ > 0, or a tail after the last
 * keyframe), refined until the error estimate meets the accuracy, or on the fixed grid of
 * a step count. The formulation, the knot unknowns and rows, the start and the estimate
 * are in docs/methods.md §3.4e. A velocity prescribed at T other than rest is not taken
 * (the reader refuses it, for the reason given there). */
#ifndef SP_ROUND_H
#define SP_ROUND_H

#include "integrators/sp_hohp.h"
#include "planner/sp_clock.h"
#include "planner/sp_progress.h"
#include "problems/sp_problem.h"

/* Whether sp_round_solve takes this problem (the reader has refused the rest). */
int sp_round_applies(const sp_problem *pb);

typedef struct sp_round_solution {
    int converged;
    double residual;       /* scaled optimality residual of the returned grid */
    double error_estimate; /* of the returned grid (docs/methods.md §3.4e); HUGE_VAL when unknown */
    double cost;           /* ½∫|∇ₜẏ|² + Σ E_i of the returned grid's curve */
    double running;        /* ½∫|∇ₜẏ|² alone */
    int rounds, iterations, jacobians, sweeps;
    int stages; /* σ stages of the continuation of a weighted plan, 0 when its spline start sufficed */
    sp_time_parts times; /* where the solve's time went */
    int *segment_steps; /* of the returned grid (one a segment: n_targets, and the tail), malloc'd */
    int *target_node;   /* node index of every keyframe */
    int node_count;     /* nodes of the returned grid, times t */
    double *t;
    /* the state at every node as the lift (g, ξ, ν, π): g·y0 = y, ξ = gᵀ(y × ẏ) ⊥ y0 the
     * body velocity without spin, π = ξ̇ = gᵀ(y × ∇ₜẏ), ν = −ξ̈ = −gᵀ(y × ∇ₜ²ẏ) (after the
     * jump at a keyframe) */
    sp_hohp_state *nodes;
    double *kicks;      /* n_targets x 3: the jump of ν at each keyframe */
    double terminal[6]; /* (ν(T) with free knots, else 0; the end condition's quantity: π(T) natural, ξ(T) at rest):
                           what the end rows set to 0 */
    double start_velocity[3], end_velocity[3]; /* ẏ at 0 and T, in R³ */
} sp_round_solution;

/* Solves from the spline start into *out, whose arrays the caller frees with
 * sp_round_solution_free. Not converging is reported in out->converged; a non-OK status
 * is an allocation failure or an interruption. */
sp_status sp_round_solve(const sp_problem *pb, const sp_progress *progress, sp_round_solution *out);
void sp_round_solution_free(sp_round_solution *s);

/* For the tests: the free layout's Jacobian (sigma > 0 or a tail) at the spline start, its
 * unknowns v, a, μ moved by shake·sin(1 + 3.7q), on three steps a segment, against central
 * differences of step delta of its rows: the largest |J − FD|/max(1, |J|) over the whole
 * matrix (outside the band too) in *worst. SP_ERR_INVALID for a pinned plan. */
sp_status sp_round_jacobian_check(const sp_problem *pb, double shake, double delta, double *worst);

/* The embedded state (y, v, a, j, cost 0, g) of a lift state z, and back (g put back on
 * SO(3) with g·y0 on the unit sphere: a step keeps both to its local error only). */
void sp_round_from_lift(const double *y0, const sp_hohp_state *z, double *x);
void sp_round_to_lift(const double *y0, const double *x, sp_hohp_state *z);

#endif
