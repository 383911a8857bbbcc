/* Footprint–polygon distances (sp_car_geometry.h). Between two polygons that do not
 * overlap, the closest pair of points always involves a vertex of one and an edge of the
 * other, so the distance is the least vertex–edge distance either way round; that pair
 * also gives the gradient (the envelope theorem: the closest points may slide, the
 * distance's derivative is that of the fixed pair). */
#include <math.h>

#include "problems/car/sp_car_geometry.h"

void sp_car_footprint(const sp_car_vehicle *v, const double pose[3], double corners[8])
{
    const double c = cos(pose[2]), s = sin(pose[2]), w = 0.5 * v->width;
    const double along[4] = {-v->rear_overhang, v->wheelbase + v->front_overhang, v->wheelbase + v->front_overhang,
                             -v->rear_overhang};
    const double across[4] = {-w, -w, w, w};
    for (int i = 0; i < 4; ++i) {
        corners[2 * i] = pose[0] + c * along[i] - s * across[i];
        corners[2 * i + 1] = pose[1] + s * along[i] + c * across[i];
    }
}

double sp_car_footprint_radius(const sp_car_vehicle *v)
{
    return 0.5 * hypot(v->rear_overhang + v->wheelbase + v->front_overhang, v->width);
}

void sp_car_footprint_centre(const sp_car_vehicle *v, const double pose[3], double c[2])
{
    const double a = 0.5 * (v->wheelbase + v->front_overhang - v->rear_overhang);
    c[0] = pose[0] + a * cos(pose[2]);
    c[1] = pose[1] + a * sin(pose[2]);
}

double sp_car_segment_distance(const double p[2], const double a[2], const double b[2], double closest[2])
{
    const double ex = b[0] - a[0], ey = b[1] - a[1], ee = ex * ex + ey * ey;
    double t = ee > 0.0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / ee : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    closest[0] = a[0] + t * ex;
    closest[1] = a[1] + t * ey;
    /* sqrt, not hypot: the numbers are metres, and glibc's careful hypot took half of the
     * route search's time */
    const double dx = p[0] - closest[0], dy = p[1] - closest[1];
    return sqrt(dx * dx + dy * dy);
}

int sp_car_point_in_polygon(const double p[2], const double *poly, size_t n)
{
    int inside = 0;
    for (size_t i = 0, j = n - 1; i < n; j = i++) {
        const double *a = poly + 2 * i, *b = poly + 2 * j;
        if ((a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0])
            inside = !inside;
    }
    return inside;
}

static double cross(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Whether the closed segments a–b and c–d meet. */
static int segments_cross(const double a[2], const double b[2], const double c[2], const double d[2])
{
    const double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
    return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 && d4 != 0;
}

/* The closest pair between the boundaries: a point p of the car, a point o of the
 * polygon; returns |p − o|. */
static double closest_pair(const double *car, const double *poly, size_t n, double p[2], double o[2])
{
    double best = HUGE_VAL, q[2];
    for (int i = 0; i < 4; ++i)
        for (size_t j = 0; j < n; ++j) {
            const double *a = poly + 2 * j, *b = poly + 2 * ((j + 1) % n);
            double d = sp_car_segment_distance(car + 2 * i, a, b, q);
            if (d < best) {
                best = d;
                p[0] = car[2 * i], p[1] = car[2 * i + 1], o[0] = q[0], o[1] = q[1];
            }
        }
    for (size_t j = 0; j < n; ++j)
        for (int i = 0; i < 4; ++i) {
            double d = sp_car_segment_distance(poly + 2 * j, car + 2 * i, car + 2 * ((i + 1) % 4), q);
            if (d < best) {
                best = d;
                o[0] = poly[2 * j], o[1] = poly[2 * j + 1], p[0] = q[0], p[1] = q[1];
            }
        }
    return best;
}

/* The deepest vertex of either shape inside the other: its depth (0 when none), and the
 * pair (p on or in the car, o on or in the polygon) whose separation measures it. */
static double deepest(const double *car, const double *poly, size_t n, double p[2], double o[2])
{
    double depth = 0.0, q[2] = {0, 0};
    for (int i = 0; i < 4; ++i)
        if (sp_car_point_in_polygon(car + 2 * i, poly, n)) {
            double nearest = HUGE_VAL, r[2];
            for (size_t k = 0; k < n; ++k) {
                double e = sp_car_segment_distance(car + 2 * i, poly + 2 * k, poly + 2 * ((k + 1) % n), r);
                if (e < nearest) nearest = e, q[0] = r[0], q[1] = r[1];
            }
            if (nearest > depth) depth = nearest, p[0] = car[2 * i], p[1] = car[2 * i + 1], o[0] = q[0], o[1] = q[1];
        }
    for (size_t j = 0; j < n; ++j)
        if (sp_car_point_in_polygon(poly + 2 * j, car, 4)) {
            double nearest = HUGE_VAL, r[2];
            for (int i = 0; i < 4; ++i) {
                double e = sp_car_segment_distance(poly + 2 * j, car + 2 * i, car + 2 * ((i + 1) % 4), r);
                if (e < nearest) nearest = e, q[0] = r[0], q[1] = r[1];
            }
            if (nearest > depth) depth = nearest, o[0] = poly[2 * j], o[1] = poly[2 * j + 1], p[0] = q[0], p[1] = q[1];
        }
    return depth;
}

/* The derivative in the pose (x, y, θ) of sign · |p − o|, p a point of the car (moving
 * with it), o a fixed point of the obstacle. */
static void pair_gradient(const double pose[3], const double p[2], const double o[2], double sign, double grad[3])
{
    const double dx = p[0] - o[0], dy = p[1] - o[1], r = hypot(dx, dy);
    const double nx = r > 0 ? sign * dx / r : 0.0, ny = r > 0 ? sign * dy / r : 0.0;
    /* p = (x, y) + R(θ) b moves with θ as ∂p/∂θ = (−(p_y − y), p_x − x) */
    grad[0] = nx;
    grad[1] = ny;
    grad[2] = -nx * (p[1] - pose[1]) + ny * (p[0] - pose[0]);
}

static int overlap(const double *car, const double *poly, size_t n)
{
    for (int i = 0; i < 4; ++i)
        for (size_t j = 0; j < n; ++j)
            if (segments_cross(car + 2 * i, car + 2 * ((i + 1) % 4), poly + 2 * j, poly + 2 * ((j + 1) % n))) return 1;
    return sp_car_point_in_polygon(car, poly, n) || sp_car_point_in_polygon(poly, car, 4);
}

double sp_car_polygon_distance(const sp_car_vehicle *v, const double pose[3], const double *poly, size_t n,
                               double grad[3])
{
    double car[8], p[2] = {0, 0}, o[2] = {0, 0}, d, sign = 1.0;
    sp_car_footprint(v, pose, car);
    if (!overlap(car, poly, n)) {
        d = closest_pair(car, poly, n, p, o);
    } else {
        sign = -1.0;
        d = deepest(car, poly, n, p, o);
        if (d == 0.0) { /* only edges cross: a thin overlap, measured by nothing better */
            if (grad) grad[0] = grad[1] = grad[2] = 0.0;
            return -1e-3;
        }
    }
    if (grad) pair_gradient(pose, p, o, sign, grad);
    return sign * d;
}

double sp_car_corner_distance(const sp_car_vehicle *v, const double pose[3], int corner, const double *poly, size_t n,
                              double grad[3])
{
    double car[8], o[2] = {0, 0}, q[2], best = HUGE_VAL;
    sp_car_footprint(v, pose, car);
    const double *p = car + 2 * corner;
    for (size_t j = 0; j < n; ++j) {
        const double d = sp_car_segment_distance(p, poly + 2 * j, poly + 2 * ((j + 1) % n), q);
        if (d < best) best = d, o[0] = q[0], o[1] = q[1];
    }
    const double sign = sp_car_point_in_polygon(p, poly, n) ? -1.0 : 1.0;
    if (grad) pair_gradient(pose, p, o, sign, grad);
    return sign * best;
}

double sp_car_vertex_distance(const sp_car_vehicle *v, const double pose[3], const double vertex[2], double grad[3])
{
    double car[8], p[2] = {0, 0}, q[2], best = HUGE_VAL;
    sp_car_footprint(v, pose, car);
    for (int i = 0; i < 4; ++i) {
        const double d = sp_car_segment_distance(vertex, car + 2 * i, car + 2 * ((i + 1) % 4), q);
        if (d < best) best = d, p[0] = q[0], p[1] = q[1];
    }
    const double sign = sp_car_point_in_polygon(vertex, car, 4) ? -1.0 : 1.0;
    if (grad) pair_gradient(pose, p, vertex, sign, grad);
    return sign * best;
}
