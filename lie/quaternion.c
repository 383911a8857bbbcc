/* Unit quaternions as a way of writing rotations (sp_quaternion.h). */
#include <math.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"

void sp_quaternion_from_rotation(const double *R, double *q)
{
    const double tr = R[0] + R[4] + R[8];
    if (tr > 0.0) {
        double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s, q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = 0.25 * s;
    }
    if (q[0] < 0.0)
        for (int k = 0; k < 4; ++k) q[k] = -q[k];
}

int sp_quaternion_to_rotation(const double *q, double *R)
{
    const double n = sp_vec_norm(4, q);
    if (!(n > 1e-12) || !isfinite(n)) return 0;
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
    return 1;
}

void sp_quaternion_follow(double *q, const double *previous)
{
    if (sp_vec_dot(4, q, previous) < 0.0)
        for (int k = 0; k < 4; ++k) q[k] = -q[k];
}

const char *sp_quaternion_order_at(size_t i) { return i == 0 ? "wxyz" : i == 1 ? "xyzw" : NULL; }

const char *sp_quaternion_order_layout(int xyzw) { return xyzw ? "[x, y, z, w]" : "[w, x, y, z]"; }

/* The component of q = (w, x, y, z) written at each place of an order: wxyz, xyzw. */
static const int order_component[2][4] = {{0, 1, 2, 3}, {1, 2, 3, 0}};

void sp_quaternion_to_order(const double *q, int xyzw, double *out)
{
    const int *c = order_component[xyzw != 0];
    const double t[4] = {q[c[0]], q[c[1]], q[c[2]], q[c[3]]}; /* out may alias q */
    for (int k = 0; k < 4; ++k) out[k] = t[k];
}

void sp_quaternion_from_order(const double *in, int xyzw, double *q)
{
    const int *c = order_component[xyzw != 0];
    const double t[4] = {in[0], in[1], in[2], in[3]}; /* q may alias in */
    for (int k = 0; k < 4; ++k) q[c[k]] = t[k];
}
