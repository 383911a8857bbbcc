/* Quaternions as a way of writing rotations (lie/sp_quaternion.h), against references
 * computed here: rotations built from an axis and an angle by Rodrigues' formula, whose
 * quaternion is ±[cos(a/2), sin(a/2) n]; angles swept across the half turn, where w
 * changes sign and the matrix-to-quaternion conversion must switch its pivot. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"

/* R = cos a I + sin a n̂ + (1 − cos a) n nᵀ, n a unit vector. */
static void rodrigues(const double *n, double a, double *R)
{
    const double c = cos(a), s = sin(a), v = 1 - c;
    R[0] = c + v * n[0] * n[0], R[1] = v * n[0] * n[1] - s * n[2], R[2] = v * n[0] * n[2] + s * n[1];
    R[3] = v * n[1] * n[0] + s * n[2], R[4] = c + v * n[1] * n[1], R[5] = v * n[1] * n[2] - s * n[0];
    R[6] = v * n[2] * n[0] - s * n[1], R[7] = v * n[2] * n[1] + s * n[0], R[8] = c + v * n[2] * n[2];
}

/* A unit axis that turns with i, so every octant and the coordinate axes come up. */
static void axis(int i, double *n)
{
    static const double fixed[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}};
    if (i < 4) {
        memcpy(n, fixed[i], sizeof fixed[i]);
        return;
    }
    n[0] = sin(1.3 * i), n[1] = cos(0.7 * i), n[2] = sin(0.31 * i + 1);
    const double r = sp_vec_norm(3, n);
    for (int k = 0; k < 3; ++k) n[k] /= r;
}

Test(quaternion, from_rotation_is_the_half_angle_quaternion_with_w_at_least_zero)
{
    double worst = 0.0, worst_back = 0.0;
    for (int i = 0; i < 40; ++i)
        for (int j = 0; j <= 64; ++j) {
            double n[3], R[9], q[4], back[9];
            const double a = 2 * SP_PI * j / 64 - SP_PI + 1e-3 * (i % 3); /* (−π, π], through ±π */
            axis(i, n);
            rodrigues(n, a, R);
            sp_quaternion_from_rotation(R, q);
            cr_assert_geq(q[0], 0.0, "axis %d angle %g: w = %g", i, a, q[0]);
            const double ref[4] = {cos(a / 2), sin(a / 2) * n[0], sin(a / 2) * n[1], sin(a / 2) * n[2]};
            const double sign = sp_vec_dot(4, q, ref) < 0 ? -1.0 : 1.0;
            for (int k = 0; k < 4; ++k) worst = fmax(worst, fabs(q[k] - sign * ref[k]));
            cr_assert(sp_quaternion_to_rotation(q, back));
            worst_back = fmax(worst_back, sp_mat_dist(9, back, R));
        }
    cr_log_info("quaternion of R: worst %.3g; R of it: worst %.3g\n", worst, worst_back);
    cr_expect_leq(worst, 1e-15);
    cr_expect_leq(worst_back, 4e-15);
}

Test(quaternion, to_rotation_normalises_and_refuses_zero)
{
    double n[3], R[9], q[4], scaled[4], S[9];
    axis(7, n);
    rodrigues(n, 2.0, R);
    sp_quaternion_from_rotation(R, q);
    for (int k = 0; k < 4; ++k) scaled[k] = -3.5 * q[k]; /* −q is the same rotation */
    cr_assert(sp_quaternion_to_rotation(scaled, S));
    cr_expect_leq(sp_mat_dist(9, S, R), 1e-15);
    double untouched[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7}, copy[9];
    memcpy(copy, untouched, sizeof copy);
    cr_expect_not(sp_quaternion_to_rotation((const double[4]){0, 0, 0, 0}, untouched));
    cr_expect_not(sp_quaternion_to_rotation((const double[4]){1e-13, 0, 0, 0}, untouched));
    cr_expect_not(sp_quaternion_to_rotation((const double[4]){NAN, 0, 0, 1}, untouched));
    cr_expect_not(sp_quaternion_to_rotation((const double[4]){INFINITY, 0, 0, 1}, untouched));
    cr_expect_eq(memcmp(untouched, copy, sizeof copy), 0, "R changed by a refused quaternion");
}

/* A curve through the half turn: the canonical quaternions (w ≥ 0) jump to their
 * negatives where w crosses 0; followed, consecutive ones stay near each other, and each
 * is still ± the canonical one (the same rotation). */
Test(quaternion, follow_keeps_a_curve_on_one_sheet)
{
    double n[3], prev[4] = {0}, prev_canonical[4] = {0}, flips = 0;
    axis(5, n);
    for (int k = 0; k <= 200; ++k) {
        const double a = 4 * SP_PI * k / 200; /* two full turns: w = cos(a/2) changes sign twice */
        double R[9], q[4], canonical[4];
        rodrigues(n, a, R);
        sp_quaternion_from_rotation(R, canonical);
        memcpy(q, canonical, sizeof q);
        if (k > 0) {
            sp_quaternion_follow(q, prev);
            cr_assert_gt(sp_vec_dot(4, q, prev), 0.99, "step %d: %g", k, sp_vec_dot(4, q, prev));
            if (sp_vec_dot(4, canonical, prev_canonical) < 0) ++flips;
        }
        const double d = sp_vec_dot(4, q, canonical);
        cr_assert(fabs(fabs(d) - 1.0) < 1e-15, "step %d: not ± the canonical quaternion", k);
        memcpy(prev, q, sizeof q);
        memcpy(prev_canonical, canonical, sizeof canonical);
    }
    cr_expect_eq(flips, 2, "the canonical quaternions should jump at the two half turns (%g)", flips);
    /* q itself is kept when it already points along the previous one, negated otherwise */
    double q[4] = {0.5, 0.5, -0.5, 0.5}, same[4] = {0.1, 0.9, 0, 0}, opposite[4] = {-0.1, -0.9, 0, 0};
    sp_quaternion_follow(q, same);
    cr_expect(q[0] == 0.5 && q[1] == 0.5 && q[2] == -0.5 && q[3] == 0.5);
    sp_quaternion_follow(q, opposite);
    cr_expect(q[0] == -0.5 && q[1] == -0.5 && q[2] == 0.5 && q[3] == -0.5);
}

Test(quaternion, orders_write_and_read_back)
{
    cr_expect_str_eq(sp_quaternion_order_at(0), "wxyz");
    cr_expect_str_eq(sp_quaternion_order_at(1), "xyzw");
    cr_expect_null(sp_quaternion_order_at(2));
    cr_expect_str_eq(sp_quaternion_order_layout(0), "[w, x, y, z]");
    cr_expect_str_eq(sp_quaternion_order_layout(1), "[x, y, z, w]");
    const double q[4] = {0.1, 0.2, 0.3, 0.4};
    double out[4], back[4];
    sp_quaternion_to_order(q, 1, out);
    cr_expect(out[0] == 0.2 && out[1] == 0.3 && out[2] == 0.4 && out[3] == 0.1, "xyzw: %g %g %g %g", out[0], out[1],
              out[2], out[3]);
    sp_quaternion_from_order(out, 1, back);
    cr_expect_eq(memcmp(back, q, sizeof q), 0);
    sp_quaternion_to_order(q, 0, out);
    cr_expect_eq(memcmp(out, q, sizeof q), 0, "wxyz is the order in memory");
    sp_quaternion_from_order(out, 0, back);
    cr_expect_eq(memcmp(back, q, sizeof q), 0);
    double inplace[4] = {0.1, 0.2, 0.3, 0.4};
    sp_quaternion_to_order(inplace, 1, inplace);
    sp_quaternion_from_order(inplace, 1, inplace);
    cr_expect_eq(memcmp(inplace, q, sizeof q), 0, "in place");
}
