/* Riemannian cubics of the unit sphere S² ⊂ R³ (the round metric), integrated in the
 * embedding by the order-8 table of Dormand and Prince (DOP853's main solution; Hairer,
 * Nørsett & Wanner, Solving ODEs I, §II.10).
 *
 * A cubic minimises ½∫|∇ₜẏ|² along y(t) on S²; between keyframes it solves
 *     ∇ₜ³ẏ + R(∇ₜẏ, ẏ)ẏ = 0,   R(X, Y)Z = ⟨Y, Z⟩X − ⟨X, Z⟩Y on the unit sphere
 * (Noakes, Heinzinger & Paden, "Cubic splines on curved spaces", 1989; Crouch & Silva
 * Leite, "The dynamic interpolation problem: on Riemannian manifolds, Lie groups, and
 * symmetric spaces", 1995). With v = ẏ, a = ∇ₜẏ, j = ∇ₜ²ẏ (tangent vectors at y, written
 * in R³) and the covariant derivative of a tangent field being the tangential part of its
 * derivative, the system is the polynomial ODE in R¹²
 *     ẏ = v,   v̇ = a − |v|² y,   ȧ = j − ⟨a, v⟩ y,   j̇ = −|v|² a + ⟨a, v⟩ v − ⟨j, v⟩ y,
 * whose normal terms keep |y| = 1 and ⟨y, v⟩ = ⟨y, a⟩ = ⟨y, j⟩ = 0 invariant. A Runge–Kutta
 * step keeps them to its local error (not to round-off); callers start every segment on
 * the sphere. The state also carries the running cost c with ċ = ½|a|², and optionally
 * the horizontal lift g ∈ SO(3), ġ = (y × v)^ g: the rotation without spin about the
 * point (its spatial angular velocity y × v is normal to y) that carries y(0) along, so
 * that g y0 = y when g(0) y0 = y(0).
 *
 * The step's tangent map (the derivative of the discrete step itself: the variational
 * equations integrated by the same table, stage by stage) is available for the twelve
 * components (y, v, a, j), for Newton's method on shooting systems. */
#ifndef SP_ROUND_SPHERE_H
#define SP_ROUND_SPHERE_H

#include "lie/sp_status.h"

/* Layout of a state: y, v, a, j (3 each), the running cost, then g (row-major 3 x 3). */
enum {
    SP_RS_Y = 0,
    SP_RS_V = 3,
    SP_RS_A = 6,
    SP_RS_J = 9,
    SP_RS_COST = 12,
    SP_RS_G = 13,
    SP_RS_TANGENT = 12, /* components with tangents: y, v, a, j */
    SP_RS_PLAIN = 13,   /* a state without the lift */
    SP_RS_DIM = 22      /* with it */
};

/* Most tangent columns a step carries. */
#define SP_RS_MAX_COLS 8

/* The table of a stepper (no allocation: a value, cheap to copy per thread). */
typedef struct sp_round_sphere {
    int stages;
    double A[12][12], b[12], c[12];
} sp_round_sphere;

/* Loads DOP853's order-8 table; SP_ERR_INVALID if it is missing. */
sp_status sp_round_sphere_init(sp_round_sphere *s);

/* The right-hand side at x (SP_RS_PLAIN components, or SP_RS_DIM with `lift`). */
void sp_round_sphere_rhs(const double *x, int lift, double *dx);

/* One step of size h from `in` into `out` (may alias): SP_RS_DIM components with `lift`,
 * else SP_RS_PLAIN. With cols > 0, dx holds cols tangent columns of SP_RS_TANGENT entries
 * each (column-major: column c at dx + c·SP_RS_TANGENT), advanced in place by the step's
 * own derivative. SP_ERR_NONFINITE when a stage is not finite (out untouched). */
sp_status sp_round_sphere_step(const sp_round_sphere *s, double h, const double *in, double *out, int lift, int cols,
                               double *dx);

#endif
