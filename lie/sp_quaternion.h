/* Unit quaternions as a way of writing rotations of SO(3) (lie/quaternion.c): the one
 * place that turns a rotation matrix into a quaternion and back, keeps the quaternions
 * of a sampled curve on one sheet of the double cover, and writes them in the order a
 * file asks for.
 *
 * Conventions: a quaternion in memory is always [w, x, y, z] (scalar first), the
 * rotation R(q) = (w² − |v|²) I + 2 v vᵀ + 2 w v̂ with v = (x, y, z); rotation matrices
 * are row-major 3 x 3. q and −q are one rotation. Files may write the scalar last
 * ([x, y, z, w], as ROS messages, scipy's Rotation.as_quat and Eigen's coeffs() do): an
 * order is an int, 0 for "wxyz" and 1 for "xyzw", as sp_quaternion_order_at names them.
 * Internal to the library (not installed). */
#ifndef SP_QUATERNION_H
#define SP_QUATERNION_H

#include <stddef.h>

/* The unit quaternion [w, x, y, z] of the rotation matrix R, the one with w ≥ 0 (from
 * w when the trace is positive, else from the component of the largest diagonal entry,
 * so that no digits are lost to cancellation near a half turn). */
void sp_quaternion_from_rotation(const double *R, double *q);

/* The rotation matrix R of the quaternion q = [w, x, y, z], normalised first. Returns 1;
 * 0, R untouched, when |q| ≤ 1e-12 or q is not finite (no rotation). */
int sp_quaternion_to_rotation(const double *q, double *R);

/* Keeps a curve's quaternions continuous: negates q (the same rotation) when it points
 * away from the previous one of the curve (q · previous < 0), so that consecutive
 * quaternions are the nearer of the two that stand for each rotation. Call it on every
 * quaternion after the first, in the order of the curve. */
void sp_quaternion_follow(double *q, const double *previous);

/* The names of the orders a file may write quaternions in: index 0 "wxyz", 1 "xyzw";
 * NULL past the end. The index is the order's int. */
const char *sp_quaternion_order_at(size_t i);

/* How a quaternion in order `xyzw` is written, for messages: "[w, x, y, z]" (0) or
 * "[x, y, z, w]" (1). */
const char *sp_quaternion_order_layout(int xyzw);

/* out = the quaternion q = [w, x, y, z] written in order `xyzw` (0: [w, x, y, z],
 * 1: [x, y, z, w]). out may alias q. */
void sp_quaternion_to_order(const double *q, int xyzw, double *out);

/* q = [w, x, y, z] of a quaternion written in order `xyzw` (the inverse of
 * sp_quaternion_to_order). q may alias in. */
void sp_quaternion_from_order(const double *in, int xyzw, double *q);

#endif
