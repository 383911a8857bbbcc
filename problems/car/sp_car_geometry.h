/* The car's footprint and its distances to polygons: exact, with the gradient in the
 * pose, so that the route search, the smoothing and the checks all measure the same. */
#ifndef SP_CAR_GEOMETRY_H
#define SP_CAR_GEOMETRY_H

#include <stddef.h>

#include "problems/car/sp_car.h"

/* The footprint's corners (x, y pairs, counter-clockwise) at pose (x, y, θ): the
 * rectangle from −rear_overhang to wheelbase + front_overhang along the heading, ±width/2
 * across, about the rear-axle midpoint. */
void sp_car_footprint(const sp_car_vehicle *v, const double pose[3], double corners[8]);

/* The signed distance between the footprint at `pose` and the polygon of n vertices
 * (x, y pairs, either orientation, convex or not): the Euclidean distance when apart;
 * when they overlap, minus the depth of the deepest vertex of one inside the other (a
 * small negative number when only edges cross). grad (may be NULL) receives its
 * derivative in (x, y, θ), from the pair of closest points, and hess (may be NULL) its
 * second derivative (3 × 3, row-major), where the pair of closest points stays the same
 * kind (two vertices, or a vertex and an edge). */
double sp_car_polygon_distance(const sp_car_vehicle *v, const double pose[3], const double *poly, size_t n,
                               double grad[3], double hess[9]);

/* The pieces of that distance, each smooth where the footprint keeps clear of the
 * polygon (the least of them is the distance whenever no edges cross without a vertex
 * inside): the signed distance from corner `corner` (0…3, as sp_car_footprint's) to the
 * polygon (negative inside it), and from a vertex of the polygon to the footprint
 * (negative inside it); grad and hess (may be NULL) their first and second derivatives
 * in (x, y, θ), as sp_car_polygon_distance's. Two corners against one edge, as along a
 * kerb, make the least distance kink where they are equally near; one constraint per
 * piece has no kink there. */
double sp_car_corner_distance(const sp_car_vehicle *v, const double pose[3], int corner, const double *poly, size_t n,
                              double grad[3], double hess[9]);
double sp_car_vertex_distance(const sp_car_vehicle *v, const double pose[3], const double vertex[2], double grad[3],
                              double hess[9]);

/* Whether the point lies inside the polygon (even–odd rule). */
int sp_car_point_in_polygon(const double p[2], const double *poly, size_t n);

/* The distance from p to the segment a–b, and the closest point on it. */
double sp_car_segment_distance(const double p[2], const double a[2], const double b[2], double closest[2]);

/* The footprint's half-diagonal about its centre, and that centre at a pose: the disc
 * that holds the footprint, for cheap rejections. */
double sp_car_footprint_radius(const sp_car_vehicle *v);
void sp_car_footprint_centre(const sp_car_vehicle *v, const double pose[3], double c[2]);

#endif
