/* Footprint–polygon distances (sp_car_geometry.h). Between two polygons that do not
 * overlap, the closest pair of points always involves a vertex of one and an edge of the
 * other, so the distance is the least vertex–edge distance either way round; that pair
 * also gives the gradient (the envelope theorem: the closest points may slide, the
 * distance's derivative is that of the fixed pair). */
#include <math.h>
#include <string.h>

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

/* Where along the segment a–b (0 at a, 1 at b, beyond them outside) the foot of the
 * perpendicular from p falls. */
static double segment_foot(const double p[2], const double a[2], const double b[2])
{
    const double ex = b[0] - a[0], ey = b[1] - a[1], ee = ex * ex + ey * ey;
    return ee > 0.0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / ee : 0.0;
}

/* sp_car_segment_distance, and in *inside whether the closest point lies inside the
 * segment (not at an end): there the distance is p's from the segment's line. */
static double segment_closest(const double p[2], const double a[2], const double b[2], double closest[2], int *inside)
{
    double t = segment_foot(p, a, b);
    *inside = t > 0.0 && t < 1.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    closest[0] = a[0] + t * (b[0] - a[0]);
    closest[1] = a[1] + t * (b[1] - a[1]);
    /* sqrt, not hypot: the numbers are metres, and glibc's careful hypot took half of the
     * route search's time */
    const double dx = p[0] - closest[0], dy = p[1] - closest[1];
    return sqrt(dx * dx + dy * dy);
}

double sp_car_segment_distance(const double p[2], const double a[2], const double b[2], double closest[2])
{
    int inside;
    return segment_closest(p, a, b, closest, &inside);
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

/* A pair of points whose distance measures the footprint's against a polygon: p on or in
 * the car, o on or in the polygon, and which of them slides along an edge as the car
 * moves (the distance's curvature depends on it). */
typedef enum { PAIR_POINTS, PAIR_POLYGON_EDGE, PAIR_CAR_EDGE } pair_kind;
typedef struct pair {
    double p[2], o[2];
    pair_kind kind; /* two vertices; p a corner, o inside an edge of the polygon; o a vertex, p inside a car's edge */
} pair;

/* The squared distance from p to the segment a–b (the searches compare these: the root
 * and the closest point are found for the winner alone). */
static double segment_distance2(const double p[2], const double a[2], const double b[2])
{
    double t = segment_foot(p, a, b);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    const double dx = p[0] - (a[0] + t * (b[0] - a[0])), dy = p[1] - (a[1] + t * (b[1] - a[1]));
    return dx * dx + dy * dy;
}

/* The pair of a vertex (of the car when car_vertex, else of the polygon) and the closest
 * point of an edge (of the other), and their distance. */
static double vertex_edge_pair(const double v[2], const double a[2], const double b[2], int car_vertex, pair *pr)
{
    double q[2];
    int inside;
    const double d = segment_closest(v, a, b, q, &inside);
    if (car_vertex)
        *pr = (pair){{v[0], v[1]}, {q[0], q[1]}, inside ? PAIR_POLYGON_EDGE : PAIR_POINTS};
    else
        *pr = (pair){{q[0], q[1]}, {v[0], v[1]}, inside ? PAIR_CAR_EDGE : PAIR_POINTS};
    return d;
}

/* The closest pair between the boundaries; returns |p − o|. */
static double closest_pair(const double *car, const double *poly, size_t n, pair *best_pair)
{
    double best = HUGE_VAL;
    size_t bi = 0, bj = 0;
    int car_vertex = 1;
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < n; ++j) {
            const double d = segment_distance2(car + 2 * i, poly + 2 * j, poly + 2 * ((j + 1) % n));
            if (d < best) best = d, bi = i, bj = j;
        }
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < 4; ++i) {
            const double d = segment_distance2(poly + 2 * j, car + 2 * i, car + 2 * ((i + 1) % 4));
            if (d < best) best = d, bi = i, bj = j, car_vertex = 0;
        }
    return car_vertex ? vertex_edge_pair(car + 2 * bi, poly + 2 * bj, poly + 2 * ((bj + 1) % n), 1, best_pair)
                      : vertex_edge_pair(poly + 2 * bj, car + 2 * bi, car + 2 * ((bi + 1) % 4), 0, best_pair);
}

/* The deepest vertex of either shape inside the other: its depth (0 when none), and the
 * pair whose separation measures it. */
static double deepest(const double *car, const double *poly, size_t n, pair *deep)
{
    double depth = 0.0, q[2];
    int inside;
    for (int i = 0; i < 4; ++i)
        if (sp_car_point_in_polygon(car + 2 * i, poly, n)) {
            double nearest = HUGE_VAL;
            pair near = {{0, 0}, {0, 0}, PAIR_POINTS};
            for (size_t k = 0; k < n; ++k) {
                double e = segment_closest(car + 2 * i, poly + 2 * k, poly + 2 * ((k + 1) % n), q, &inside);
                if (e < nearest)
                    nearest = e, near = (pair){{car[2 * i], car[2 * i + 1]}, {q[0], q[1]},
                                               inside ? PAIR_POLYGON_EDGE : PAIR_POINTS};
            }
            if (nearest > depth) depth = nearest, *deep = near;
        }
    for (size_t j = 0; j < n; ++j)
        if (sp_car_point_in_polygon(poly + 2 * j, car, 4)) {
            double nearest = HUGE_VAL;
            pair near = {{0, 0}, {0, 0}, PAIR_POINTS};
            for (int i = 0; i < 4; ++i) {
                double e = segment_closest(poly + 2 * j, car + 2 * i, car + 2 * ((i + 1) % 4), q, &inside);
                if (e < nearest)
                    nearest = e,
                    near = (pair){{q[0], q[1]}, {poly[2 * j], poly[2 * j + 1]}, inside ? PAIR_CAR_EDGE : PAIR_POINTS};
            }
            if (nearest > depth) depth = nearest, *deep = near;
        }
    return depth;
}

/* The derivatives in the pose (x, y, θ) of sign · |p − o| for the pair: grad, and hess
 * (3 × 3, row-major; either may be NULL). With r = p − (x, y) and u = (p − o)/|p − o|, p
 * moves with the car as ∂p/∂θ = a = (−r_y, r_x), ∂a/∂θ = −r; the closest points may
 * slide, but the distance's gradient is that of the fixed pair (the envelope theorem).
 * Its curvature is not: where o slides along a polygon's edge, the distance is u · (p −
 * o) with u fixed, and where p slides along a car's edge, u turns with the car. */
static void pair_derivatives(const double pose[3], const pair *pr, double sign, double grad[3], double hess[9])
{
    const double dx = pr->p[0] - pr->o[0], dy = pr->p[1] - pr->o[1], d = hypot(dx, dy);
    const double ux = d > 0 ? dx / d : 0.0, uy = d > 0 ? dy / d : 0.0;
    const double rx = pr->p[0] - pose[0], ry = pr->p[1] - pose[1], ax = -ry, ay = rx;
    if (grad) {
        grad[0] = sign * ux;
        grad[1] = sign * uy;
        grad[2] = sign * (ux * ax + uy * ay);
    }
    if (!hess) return;
    double h[9] = {0};
    const double ur = ux * rx + uy * ry;
    if (pr->kind == PAIR_POINTS) {
        /* |p − o|: (I − u uᵀ)/d in p */
        if (d > 0) {
            const double pxx = (1.0 - ux * ux) / d, pxy = -ux * uy / d, pyy = (1.0 - uy * uy) / d;
            const double pax = pxx * ax + pxy * ay, pay = pxy * ax + pyy * ay;
            h[0] = pxx, h[1] = h[3] = pxy, h[4] = pyy;
            h[2] = h[6] = pax, h[5] = h[7] = pay;
            h[8] = ax * pax + ay * pay - ur;
        }
    } else if (pr->kind == PAIR_POLYGON_EDGE) {
        h[8] = -ur;
    } else {
        /* u turns with the car: ∂u/∂θ = (−u_y, u_x) */
        h[2] = h[6] = -uy, h[5] = h[7] = ux;
        h[8] = ur - d;
    }
    for (int i = 0; i < 9; ++i) hess[i] = sign * h[i];
}

static int overlap(const double *car, const double *poly, size_t n)
{
    for (int i = 0; i < 4; ++i)
        for (size_t j = 0; j < n; ++j)
            if (segments_cross(car + 2 * i, car + 2 * ((i + 1) % 4), poly + 2 * j, poly + 2 * ((j + 1) % n))) return 1;
    return sp_car_point_in_polygon(car, poly, n) || sp_car_point_in_polygon(poly, car, 4);
}

double sp_car_polygon_distance(const sp_car_vehicle *v, const double pose[3], const double *poly, size_t n,
                               double grad[3], double hess[9])
{
    double car[8], d, sign = 1.0;
    pair pr = {{0, 0}, {0, 0}, PAIR_POINTS};
    sp_car_footprint(v, pose, car);
    if (!overlap(car, poly, n)) {
        d = closest_pair(car, poly, n, &pr);
    } else {
        sign = -1.0;
        d = deepest(car, poly, n, &pr);
        if (d == 0.0) { /* only edges cross: a thin overlap, measured by nothing better */
            if (grad) grad[0] = grad[1] = grad[2] = 0.0;
            if (hess) memset(hess, 0, 9 * sizeof *hess);
            return -1e-3;
        }
    }
    pair_derivatives(pose, &pr, sign, grad, hess);
    return sign * d;
}

double sp_car_corner_distance(const sp_car_vehicle *v, const double pose[3], int corner, const double *poly, size_t n,
                              double grad[3], double hess[9])
{
    double car[8], best = HUGE_VAL;
    size_t bj = 0;
    sp_car_footprint(v, pose, car);
    const double *p = car + 2 * corner;
    for (size_t j = 0; j < n; ++j) {
        const double d = segment_distance2(p, poly + 2 * j, poly + 2 * ((j + 1) % n));
        if (d < best) best = d, bj = j;
    }
    pair pr;
    const double d = vertex_edge_pair(p, poly + 2 * bj, poly + 2 * ((bj + 1) % n), 1, &pr);
    const double sign = sp_car_point_in_polygon(p, poly, n) ? -1.0 : 1.0;
    pair_derivatives(pose, &pr, sign, grad, hess);
    return sign * d;
}

double sp_car_vertex_distance(const sp_car_vehicle *v, const double pose[3], const double vertex[2], double grad[3],
                              double hess[9])
{
    double car[8], best = HUGE_VAL;
    size_t bi = 0;
    sp_car_footprint(v, pose, car);
    for (size_t i = 0; i < 4; ++i) {
        const double d = segment_distance2(vertex, car + 2 * i, car + 2 * ((i + 1) % 4));
        if (d < best) best = d, bi = i;
    }
    pair pr;
    const double d = vertex_edge_pair(vertex, car + 2 * bi, car + 2 * ((bi + 1) % 4), 0, &pr);
    const double sign = sp_car_point_in_polygon(vertex, car, 4) ? -1.0 : 1.0;
    pair_derivatives(pose, &pr, sign, grad, hess);
    return sign * d;
}
