/* Cubics of the round sphere through keyframes: the curve y(t) on S² of least
 * ½∫|∇ₜẏ|² + Σ_i E_i(y(t_i)) (sp_round_sphere.h), E_i = |y − y_i|²/(2σ²) the target term of
 * every sphere plan (exact interpolation at σ = 0), in the condensed multiple-shooting form
 * of sp_exact.h.
 *
 * The curve is integrated in the embedding R³ (y, v = ẏ, a = ∇ₜẏ, j = ∇ₜ²ẏ) by DOP853's
 * order-8 table, each segment between knots started on the sphere. The knots are the start,
 * every keyframe and, when the last keyframe is before T, the end T of a free tail.
 *
 * Pinned knots (σ = 0, the last keyframe at T): y_i is the keyframe, the unknowns at knot i
 * are w_i = (v_i, a_i), tangent vectors in an orthonormal basis (e1, e2) of T_{y_i}S²,
 * continuous across the knot, and μ_i = j_i, the third derivative leaving it (its jump at a
 * keyframe is the multiplier of the interpolation condition). Conditions: each segment ends
 * at y_{i+1} (two rows: the mismatch in the basis at y_{i+1}), with the velocity and
 * covariant acceleration w_{i+1} (four rows); the start (prescribed v_0, or a_0 = 0 for a
 * free start) and the end (a_K = 0 natural, or v_K = 0 at rest). Newton's system is
 * condensed segment by segment as in sp_exact.h: the two position rows give δμ_i from δw_i,
 * leaving the recurrence δw_{i+1} = Φ_i δw_i + c_i, a band of four unknowns per knot.
 *
 * Free knots (σ > 0, or a tail): the knot's point is an unknown too, y(p) = (ŷ + P)/|ŷ + P|
 * for P = p1 e1 + p2 e2 in the basis at a reference point ŷ, and w_i = (v, a, p, μ) with μ
 * the j leaving the knot: eight unknowns, nothing condensed. Each segment's eight rows match
 * v, a and the point at the next knot, and either pin it (p = 0, an exact keyframe before a
 * tail) or set the jump of j: μ_{i+1} = j_end + P_y(y_i)/σ² at a weighted keyframe, μ = j_end
 * at the tail's end (methods §3.4e). The start adds p_0 = 0, the end μ_K = 0. The Jacobian
 * is taken at p = 0: after every Newton step the references move onto the knots (ŷ ← y(p),
 * the basis turned with them, p ← 0).
 *
 * In both the Jacobian is exact: the tangent map of the discrete step. Newton is simplified
 * (factors kept while steps contract), with step halving when a step does not reduce the
 * residual.
 *
 * The start is the C² cubic spline of R³ through the points (natural or clamped ends as
 * the plan's; a tail continues its last velocity), its derivatives at the knots projected
 * onto the tangent planes; a weighted plan that does not converge from it starts over at
 * σ = min(σ, 0.1) and doubles σ a stage. The resolution is that of sp_exact.h: coarse grid, a grid twice
 * as fine from its solution, the distance between the two curves' points over 2^(p−4) as
 * the error estimate of the finer (exact.c's 2^(p−2) fell short of the true error at the
 * few steps per segment that these plans take), refinement where the estimate misses the
 * accuracy. A step count given fixes the grid (the keyframes on its nodes, as every plan's
 * grid): it is solved once, its estimate the distance to the solution on twice the steps.
 *
 * A velocity prescribed at T other than rest is not taken: the body velocity of the
 * horizontal lift at T depends on the holonomy of the whole curve, and its optimum is no
 * longer a cubic between keyframes (methods §3.4e). */
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
