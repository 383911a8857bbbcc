/* Initial curves for a cubic-spline plan, built from the keyframes alone. Plans on
 * SO(3) and S² are non-convex: their local minima take extra turns between keyframes.
 * Every curve here joins neighbouring keyframes the short way round (the principal
 * logarithm of the relative rotation, so a quaternion and its negative are one
 * orientation), which puts Newton in the basin of the natural optimum:
 *   - spline: a curve that is C² on the group, g(t) = R_i exp(u(t)) between keyframes i
 *     and i+1 with u a cubic, its body velocities at the keyframes solved for so that
 *     body velocity and acceleration are continuous, ξ̇ = 0 at a free end (the curve of
 *     SciPy's RotationSpline; on Rⁿ the natural or clamped cubic spline);
 *   - geodesic: the piecewise geodesic through the keyframes (constant body velocity
 *     between neighbours);
 *   - uniform: the uniform rotation with the initial velocity (the start of single
 *     shooting from zero momenta).
 * Sphere keyframes are lifted to rotations first: each by the smallest rotation that
 * takes the previous point to the next. */
#ifndef SP_KEYFRAME_START_H
#define SP_KEYFRAME_START_H

#include "planner/cubic/sp_multiple_shooting.h"

typedef struct sp_start_curve sp_start_curve;

/* The start curve of that kind through the problem's keyframes (the problem is borrowed);
 * NULL when out of memory. Freed with sp_start_curve_free. */
sp_start_curve *sp_start_curve_new(const sp_problem *pb, sp_start_kind kind);
void sp_start_curve_free(sp_start_curve *c);
/* The HOHP node state (g, ξ, ν ≈ −ξ̈, p ≈ ξ̇) of the curve at time t (right-sided at a
 * keyframe). */
void sp_start_curve_eval(const sp_start_curve *c, double t, sp_hohp_state *z);

/* The rotation the curve passes through at keyframe i (0-based; lifted on the sphere). */
const double *sp_start_curve_rotation(const sp_start_curve *c, size_t i);

#endif
