/* The scene as the planner measures it (sp_car_plan.h): the obstacles and the bounds,
 * the latter as four walls one metre thick just outside them, so that one distance
 * keeps the footprint off both. Bounding boxes reject far polygons before any edge is
 * looked at. */
#include <math.h>
#include <stdlib.h>

#include "planner/car/sp_car_plan.h"
#include "problems/car/sp_car_geometry.h"

static sp_status build_grid(car_world *w)
{
    w->gres = 0.1;
    w->gcap = 3.0;
    w->gx = (int)ceil((w->bounds[2] - w->bounds[0]) / w->gres) + 1;
    w->gy = (int)ceil((w->bounds[3] - w->bounds[1]) / w->gres) + 1;
    while ((double)w->gx * w->gy > 2e7) { /* very large scenes: a coarser grid */
        w->gres *= 2.0;
        w->gx = (int)ceil((w->bounds[2] - w->bounds[0]) / w->gres) + 1;
        w->gy = (int)ceil((w->bounds[3] - w->bounds[1]) / w->gres) + 1;
    }
    const long n = (long)w->gx * w->gy;
    w->grid = malloc((size_t)n * sizeof *w->grid);
    if (!w->grid) return SP_ERR_NOMEM;
    for (long i = 0; i < n; ++i) w->grid[i] = (float)w->gcap;
    for (size_t i = 0; i < w->n; ++i) {
        const double *b = w->box + 4 * i, *poly = w->xy + 2 * w->first[i];
        const size_t m = w->first[i + 1] - w->first[i];
        const int i0 = (int)floor((b[0] - w->gcap - w->bounds[0]) / w->gres), i1 = (int)ceil((b[2] + w->gcap - w->bounds[0]) / w->gres);
        const int j0 = (int)floor((b[1] - w->gcap - w->bounds[1]) / w->gres), j1 = (int)ceil((b[3] + w->gcap - w->bounds[1]) / w->gres);
        for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < w->gy; ++j)
            for (int k = i0 < 0 ? 0 : i0; k <= i1 && k < w->gx; ++k) {
                const double p[2] = {w->bounds[0] + k * w->gres, w->bounds[1] + j * w->gres};
                float *g = &w->grid[(long)j * w->gx + k];
                if (*g == 0.0f) continue;
                if (sp_car_point_in_polygon(p, poly, m)) {
                    *g = 0.0f;
                    continue;
                }
                for (size_t e = 0; e < m; ++e) {
                    double cl[2];
                    const double d = sp_car_segment_distance(p, poly + 2 * e, poly + 2 * ((e + 1) % m), cl);
                    if (d < *g) *g = (float)d;
                }
            }
    }
    return SP_OK;
}

/* A lower bound of the distance from p to the obstacles: the nearest grid node's value
 * less the distance to that node (the distance is 1-Lipschitz). */
static double grid_lower(const car_world *w, double x, double y)
{
    const int k = (int)floor((x - w->bounds[0]) / w->gres + 0.5), j = (int)floor((y - w->bounds[1]) / w->gres + 0.5);
    if (k < 0 || j < 0 || k >= w->gx || j >= w->gy) return 0.0;
    const double dx = x - (w->bounds[0] + k * w->gres), dy = y - (w->bounds[1] + j * w->gres);
    return w->grid[(long)j * w->gx + k] - sqrt(dx * dx + dy * dy);
}

int car_world_clear(const car_world *w, const double pose[3], double need)
{
    const sp_car_vehicle *v = w->vehicle;
    const double len = v->rear_overhang + v->wheelbase + v->front_overhang, r = hypot(len / 6.0, 0.5 * v->width);
    const double c = cos(pose[2]), s = sin(pose[2]);
    int quick = 1;
    for (int i = 0; i < 3 && quick; ++i) {
        const double a = -v->rear_overhang + len * (2 * i + 1) / 6.0;
        quick = grid_lower(w, pose[0] + a * c, pose[1] + a * s) - r >= need;
    }
    return quick || car_world_distance(w, pose, need, NULL) >= need;
}

sp_status car_world_init(car_world *w, const sp_car_problem *c)
{
    const sp_car_scene *s = &c->scene;
    *w = (car_world){.vehicle = &c->vehicle, .clearance = s->clearance, .radius = sp_car_footprint_radius(&c->vehicle)};
    for (int i = 0; i < 4; ++i) w->bounds[i] = s->bounds[i];
    const size_t nv = s->first[s->n_obstacles];
    w->n = s->n_obstacles + 4;
    w->first = malloc((w->n + 1) * sizeof *w->first);
    w->xy = malloc((2 * nv + 32) * sizeof *w->xy);
    w->box = malloc(4 * w->n * sizeof *w->box);
    if (!w->first || !w->xy || !w->box) {
        car_world_free(w);
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i <= s->n_obstacles; ++i) w->first[i] = s->first[i];
    for (size_t k = 0; k < 2 * nv; ++k) w->xy[k] = s->vertices[k];
    const double *b = s->bounds, t = 1.0;
    const double walls[4][4] = {{b[0] - t, b[1] - t, b[0], b[3] + t},
                                {b[2], b[1] - t, b[2] + t, b[3] + t},
                                {b[0] - t, b[1] - t, b[2] + t, b[1]},
                                {b[0] - t, b[3], b[2] + t, b[3] + t}};
    size_t at = 2 * nv;
    for (int i = 0; i < 4; ++i) {
        const double *r = walls[i];
        const double xy[8] = {r[0], r[1], r[2], r[1], r[2], r[3], r[0], r[3]};
        for (int k = 0; k < 8; ++k) w->xy[at++] = xy[k];
        w->first[s->n_obstacles + i + 1] = at / 2;
    }
    for (size_t i = 0; i < w->n; ++i) {
        double *bx = w->box + 4 * i;
        bx[0] = bx[1] = HUGE_VAL;
        bx[2] = bx[3] = -HUGE_VAL;
        for (size_t k = w->first[i]; k < w->first[i + 1]; ++k) {
            bx[0] = fmin(bx[0], w->xy[2 * k]), bx[2] = fmax(bx[2], w->xy[2 * k]);
            bx[1] = fmin(bx[1], w->xy[2 * k + 1]), bx[3] = fmax(bx[3], w->xy[2 * k + 1]);
        }
    }
    return build_grid(w);
}

void car_world_free(car_world *w)
{
    free(w->grid);
    w->grid = NULL;
    free(w->first);
    free(w->xy);
    free(w->box);
    w->first = NULL, w->xy = NULL, w->box = NULL;
}

double car_world_polygon_distance(const car_world *w, size_t i, const double pose[3], double grad[3])
{
    return car_world_feature_distance(w, i, -1, pose, grad, NULL);
}

double car_world_feature_distance(const car_world *w, size_t i, int feature, const double pose[3], double grad[3],
                                  double hess[9])
{
    const double *poly = w->xy + 2 * w->first[i];
    const size_t n = w->first[i + 1] - w->first[i];
    if (feature < 0) return sp_car_polygon_distance(w->vehicle, pose, poly, n, grad, hess);
    if (feature < 4) return sp_car_corner_distance(w->vehicle, pose, feature, poly, n, grad, hess);
    return sp_car_vertex_distance(w->vehicle, pose, poly + 2 * (feature - 4), grad, hess);
}

double car_world_distance(const car_world *w, const double pose[3], double cutoff, long *which)
{
    double c[2], best = cutoff;
    sp_car_footprint_centre(w->vehicle, pose, c);
    if (which) *which = -1;
    for (size_t i = 0; i < w->n; ++i) {
        const double *b = w->box + 4 * i;
        /* the box's distance to the footprint's disc bounds the polygon's from below */
        const double dx = fmax(0.0, fmax(b[0] - c[0], c[0] - b[2])), dy = fmax(0.0, fmax(b[1] - c[1], c[1] - b[3]));
        if (sqrt(dx * dx + dy * dy) - w->radius >= best) continue;
        const double d = car_world_polygon_distance(w, i, pose, NULL);
        if (d < best) {
            best = d;
            if (which) *which = (long)i;
        }
    }
    return best;
}
