/* Paths of intervals of constant steering (sp_car_plan.h). Each interval is an arc of
 * the bicycle model, integrated exactly: the kinematic constraints hold at every point
 * of the path, not only at its rows. */
#include <math.h>
#include <stdlib.h>

#include "planner/car/sp_car_plan.h"

sp_status car_path_alloc(car_path *p, size_t K)
{
    p->K = K;
    p->delta = calloc(K ? K : 1, sizeof *p->delta);
    p->s = calloc(K ? K : 1, sizeof *p->s);
    p->m = calloc(K ? K : 1, sizeof *p->m);
    if (!p->delta || !p->s || !p->m) {
        car_path_free(p);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

void car_path_free(car_path *p)
{
    free(p->delta);
    free(p->s);
    free(p->m);
    p->delta = p->s = NULL;
    p->m = NULL;
    p->K = 0;
}

/* sin φ / φ, accurate near 0 */
static double sinc(double phi) { return fabs(phi) < 1e-4 ? 1.0 - phi * phi / 6.0 : sin(phi) / phi; }

void car_arc(const double from[3], double kappa, double s, double to[3])
{
    /* the chord of the arc leaves at half the turn: no division by a small curvature */
    const double phi = 0.5 * kappa * s, chord = s * sinc(phi), a = from[2] + phi;
    to[0] = from[0] + chord * cos(a);
    to[1] = from[1] + chord * sin(a);
    to[2] = from[2] + 2.0 * phi;
}

void car_path_end(const car_path *p, const sp_car_vehicle *v, const double start[3], double end[3])
{
    double q[3] = {start[0], start[1], start[2]};
    for (size_t k = 0; k < p->K; ++k) car_arc(q, tan(p->delta[k]) / v->wheelbase, p->s[k], q);
    end[0] = q[0], end[1] = q[1], end[2] = q[2];
}

double car_path_length(const car_path *p)
{
    double L = 0.0;
    for (size_t k = 0; k < p->K; ++k) L += fabs(p->s[k]);
    return L;
}

int car_path_gear_changes(const car_path *p)
{
    int changes = 0;
    for (size_t k = 1; k < p->K; ++k) changes += (p->s[k] > 0) != (p->s[k - 1] > 0);
    return changes;
}

double car_path_min_clearance(const car_path *p, const car_world *w, const double start[3], double step,
                              double *where)
{
    const sp_car_vehicle *v = w->vehicle;
    /* the farthest point of the footprint from the rear-axle midpoint */
    const double far = hypot(fmax(v->wheelbase + v->front_overhang, v->rear_overhang), 0.5 * v->width);
    double q[3] = {start[0], start[1], start[2]}, best = car_world_distance(w, q, HUGE_VAL, NULL), travel = 0.0;
    if (where) *where = 0.0;
    for (size_t k = 0; k < p->K; ++k) {
        const double kappa = tan(p->delta[k]) / v->wheelbase;
        const int n = (int)ceil(fabs(p->s[k]) * (1.0 + fabs(kappa) * far) / step);
        double r[3] = {q[0], q[1], q[2]};
        for (int j = 1; j <= n; ++j) {
            car_arc(q, kappa, p->s[k] * j / n, r);
            double d = car_world_distance(w, r, best, NULL);
            if (d < best) {
                best = d;
                if (where) *where = travel + fabs(p->s[k]) * j / n;
            }
        }
        travel += fabs(p->s[k]);
        q[0] = r[0], q[1] = r[1], q[2] = r[2];
        if (n == 0) car_arc(q, kappa, p->s[k], q);
    }
    return best;
}
