/* A planned curve as a function of time. The solver's grid holds the state (g, ξ, μ, π)
 * at every node; between nodes the curve is the plan's own scheme stepped once from the
 * node before t by the remaining time t − t_k. At τ = t_{k+1} − t_k that step is the very
 * step of the discrete solution, so the curve passes through every node, and g, the
 * body velocity ω = ξ and its derivative ω̇ = π are continuous in t (smooth between
 * nodes). With the order-8 scheme each point carries the local error of one step,
 * O(h⁹), on top of the node's own error. Sphere plans in the round metric hold their
 * horizontal lift at the nodes (sp_round.h) and are stepped by their own order-8 scheme
 * in R³ (sp_round_sphere.h), the lift carried along.
 *
 * Evaluation allocates nothing; one curve object is not to be evaluated from two threads
 * at once (it keeps its stepper's work space). */
#ifndef SP_CURVE_H
#define SP_CURVE_H

#include "integrators/sp_hohp.h"
#include "planner/cubic/sp_se3_metric.h"
#include "problems/sp_problem.h"

typedef struct sp_curve sp_curve;

/* The point of a curve: g (the group element: a rotation row-major, a point of Rⁿ, or an
 * SE(3) pose as its 4 x 4 matrix), its
 * body velocity ω = (g⁻¹ġ)^∨ and ω̇. */
typedef struct sp_curve_point {
    double g[SP_LIE_MAX_ELEM];
    double omega[SP_LIE_MAX_DIM], omega_dot[SP_LIE_MAX_DIM];
} sp_curve_point;

/* Copies the node times t[0..N] (increasing) and states (after the momentum kick at a
 * keyframe) of a solution of pb's scheme. NULL when out of memory. */
sp_curve *sp_curve_new(const sp_problem *pb, int N, const double *t, const sp_hohp_state *nodes);
void sp_curve_free(sp_curve *c);

/* From here on the curve reads out the weighted SE(3) plan whose scaled, unit-metric plan
 * it was built from (sp_se3_metric.h): positions, ξ and ω̇ = ξ̇ of the weighted plan, and
 * from sp_curve_state its momenta. Set once the solver is done with the curve. */
void sp_curve_read_weighted(sp_curve *c, const sp_se3_scaling *k);

/* The curve's group and the interval [start, end] it is defined on. */
const sp_group *sp_curve_group(const sp_curve *c);
double sp_curve_start(const sp_curve *c);
double sp_curve_end(const sp_curve *c);

/* The point at t (clamped to [start, end]). A failed step (non-finite numbers, or the
 * implicit solve of a θ-scheme) is returned as its status. */
sp_status sp_curve_eval(sp_curve *c, double t, sp_curve_point *out);
/* The whole state (g, ξ, μ, π) at t (after the kick at a keyframe). */
sp_status sp_curve_state(sp_curve *c, double t, sp_hohp_state *z);
/* The same at n times, into out[n]. */
sp_status sp_curve_eval_many(sp_curve *c, size_t n, const double *t, sp_curve_point *out);

/* A point of an SE(3) curve as a pose, with the meanings SO3xR3 results give its parts:
 * the orientation R (row-major) with the body angular velocity ω and ω̇, and the
 * position x with its velocity ẋ = R v and acceleration ẍ = R (ω × v + v̇) in the fixed
 * frame (ξ = (ω, v) the body twist). */
typedef struct sp_curve_pose {
    double R[9], x[3], omega[3], omega_dot[3], velocity[3], acceleration[3];
} sp_curve_pose;
/* The pose of a point read on an SE(3) curve, into *out. */
void sp_curve_point_pose(const sp_curve_point *p, sp_curve_pose *out);

/* Largest |ω| and |ω̇| along the whole curve and the times where they occur: every
 * step scanned at 4 points, the best refined by golden-section search. On SE(3) ω is the
 * angular part alone, and the position's largest |ẋ| and |ẍ| (fixed frame) come too. */
typedef struct sp_curve_extremes {
    double omega, t_omega, omega_dot, t_omega_dot;
    int has_position; /* SE(3): velocity and acceleration are set */
    double velocity, t_velocity, acceleration, t_acceleration;
} sp_curve_extremes;
/* Fills *out; a non-OK status when a step between nodes fails or memory runs out. */
sp_status sp_curve_find_extremes(sp_curve *c, sp_curve_extremes *out);

/* Largest distance between a and b at the nodes of b and halfway between them, per
 * segment between keyframes: dist[s] for the segments of `grid` (b's grid), whose
 * target_step tells where segments end. Distance: the angle of g_a⁻¹ g_b on SO(3), |x_a −
 * x_b| on Rⁿ. */
sp_status sp_curve_distance(sp_curve *a, sp_curve *b, const sp_plan_grid *grid, size_t n_targets, double *dist);

#endif
