/* Cubics of the round sphere through keyframes: exact interpolation (σ = 0) of points y_i
 * on S² at their times by the curve of least ½∫|∇ₜẏ|² (sp_round_sphere.h), in the
 * condensed multiple-shooting form of sp_exact.h.
 *
 * The curve is integrated in the embedding R³ (y, v = ẏ, a = ∇ₜẏ, j = ∇ₜ²ẏ) by DOP853's
 * order-8 table, each segment between keyframes started on the sphere. Unknowns at knot i
 * (the start and every keyframe, y_i pinned there): w_i = (v_i, a_i), tangent vectors in
 * an orthonormal basis (e1, e2) of T_{y_i}S², continuous across the knot, and μ_i = j_i,
 * the third derivative leaving it (its jump at a keyframe is the multiplier of the
 * interpolation condition). Conditions: each segment ends at y_{i+1} (two rows: the
 * mismatch in the basis at y_{i+1}), with the velocity and covariant acceleration
 * w_{i+1} (four rows); the start (prescribed v_0, or a_0 = 0 for a free start) and the end
 * (a_K = 0 natural, or v_K = 0 at rest). Newton's system is condensed segment by segment
 * as in sp_exact.h: the two position rows give δμ_i from δw_i, leaving the recurrence
 * δw_{i+1} = Φ_i δw_i + c_i, a band of four unknowns per knot. The Jacobian is exact: the
 * tangent map of the discrete step. Newton is simplified (factors kept while steps
 * contract), with step halving when a step does not reduce the residual.
 *
 * The start is the C² cubic spline of R³ through the points (natural or clamped ends as
 * the plan's), its derivatives at the knots projected onto the tangent planes. The
 * resolution is that of sp_exact.h: coarse grid, a grid twice as fine from its solution,
 * the distance between the two curves' points over 2^(p−4) as the error estimate of the
 * finer (exact.c's 2^(p−2) fell short of the true error at the few steps per segment that
 * these plans take), refinement where the estimate misses the accuracy. */
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
    double error_estimate; /* see above; HUGE_VAL when unknown */
    double cost;           /* ½∫|∇ₜẏ|² of the returned grid's curve */
    int rounds, iterations, jacobians, sweeps;
    sp_time_parts times; /* where the solve's time went */
    int *segment_steps; /* of the returned grid (n_targets), malloc'd */
    int *target_node;   /* node index of every keyframe */
    int node_count;     /* nodes of the returned grid, times t */
    double *t;
    /* the state at every node as the lift (g, ξ, ν, π): g·y0 = y, ξ = gᵀ(y × ẏ) ⊥ y0 the
     * body velocity without spin, π = ξ̇ = gᵀ(y × ∇ₜẏ), ν = −ξ̈ = −gᵀ(y × ∇ₜ²ẏ) (after the
     * jump at a keyframe) */
    sp_hohp_state *nodes;
    double *kicks;      /* n_targets x 3: the jump of ν at each keyframe */
    double terminal[6]; /* (0, the end condition's quantity: π(T) natural, ξ(T) at rest): what the end rows set to 0 */
    double start_velocity[3], end_velocity[3]; /* ẏ at 0 and T, in R³ */
} sp_round_solution;

sp_status sp_round_solve(const sp_problem *pb, const sp_progress *progress, sp_round_solution *out);
void sp_round_solution_free(sp_round_solution *s);

/* The embedded state (y, v, a, j, cost 0, g) of a lift state z, and back (g put back on
 * SO(3) with g·y0 on the unit sphere: a step keeps both to its local error only). */
void sp_round_from_lift(const double *y0, const sp_hohp_state *z, double *x);
void sp_round_to_lift(const double *y0, const double *x, sp_hohp_state *z);

#endif
