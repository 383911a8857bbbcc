/* Riemannian cubics of the unit sphere S² ⊂ R³ (the round metric), integrated in the
 * embedding by DOP853's order-8 table (docs/methods.md §3.4e). The state is (y, v, a, j) in
 * R¹² (point, velocity, covariant acceleration and jerk), the running cost c = ∫½|a|², and
 * optionally the horizontal lift g ∈ SO(3). A step keeps the sphere's invariants to its local
 * error (callers start every segment on the sphere), and its tangent map (the variational
 * equations integrated by the same table) is available for the twelve components (y, v, a, j). */
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
