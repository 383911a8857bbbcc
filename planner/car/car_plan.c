/* The plan task of model car: the route (car_route.c), then the smoothing of its energy
 * among the obstacles (car_smooth.c), then the result: rows at most 0.1 m of travel
 * apart, in the file's coordinates, with the clearance measured along the swept
 * footprint. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
#include "planner/sp_clock.h"
#include "problems/sp_result_file.h"

/* Longest interval of one steering value the smoothing may change, and the travel
 * between rows of the result. */
#define CAR_INTERVAL 0.5
#define CAR_ROW 0.04

/* The route's pieces as a path. The search and the way out of a slot keep their steering
 * in single precision, whose rounding of ±max_steering can pass the bound by a few 1e-8
 * rad; the path keeps the bound (the arcs move by less than 1e-6 m, far inside the
 * margin the search kept from the obstacles). */
static sp_status route_path(const car_route *r, const sp_car_vehicle *v, car_path *p)
{
    size_t K = 0;
    for (size_t i = 0; i < r->n; ++i) K += (size_t)ceil(r->pieces[i].length / CAR_INTERVAL);
    if (car_path_alloc(p, K) != SP_OK) return SP_ERR_NOMEM;
    K = 0;
    for (size_t i = 0; i < r->n; ++i) {
        const int n = (int)ceil(r->pieces[i].length / CAR_INTERVAL);
        for (int j = 0; j < n; ++j, ++K) {
            p->delta[K] = fmax(-v->max_steering, fmin(v->max_steering, r->pieces[i].delta));
            p->s[K] = r->pieces[i].gear * r->pieces[i].length / n;
            p->m[K] = (int)ceil(fabs(p->s[K]) / CAR_ROW);
            if (p->m[K] < 1) p->m[K] = 1;
        }
    }
    return SP_OK;
}

double car_path_energy(const car_path *p, const sp_car_settings *set, double h)
{
    double e = set->gear_change_cost * car_path_gear_changes(p);
    for (size_t k = 0; k < p->K; ++k) {
        e += set->travel_weight * p->s[k] * p->s[k] / h;
        if (k > 0) e += set->steering_weight * (p->delta[k] - p->delta[k - 1]) * (p->delta[k] - p->delta[k - 1]) / h;
    }
    return e;
}

static void add_rows(cJSON *root, const car_path *p, const sp_car_problem *c, double h)
{
    cJSON *traj = cJSON_AddObjectToObject(root, "trajectory");
    cJSON *t = cJSON_AddArrayToObject(traj, "t"), *q = cJSON_AddArrayToObject(traj, "q");
    cJSON *gear = cJSON_AddArrayToObject(root, "gear");
    const double *o = c->scene.origin;
    double pose[3] = {c->scene.start[0], c->scene.start[1], c->scene.start[2]};
    for (size_t k = 0; k < p->K; ++k) {
        const double kappa = tan(p->delta[k]) / c->vehicle.wheelbase;
        double r[3];
        for (int j = 0; j < p->m[k] + (k + 1 == p->K); ++j) {
            car_arc(pose, kappa, p->s[k] * j / p->m[k], r);
            const double row[4] = {r[0] + o[0], r[1] + o[1], r[2], p->delta[k]};
            cJSON_AddItemToArray(t, cJSON_CreateNumber(h * ((double)k + (double)j / p->m[k])));
            cJSON_AddItemToArray(q, cJSON_CreateDoubleArray(row, 4));
            cJSON_AddItemToArray(gear, cJSON_CreateNumber(p->s[k] > 0 ? 1 : -1));
        }
        car_arc(pose, kappa, p->s[k], pose);
    }
    cJSON_AddItemToObject(traj, "gear", cJSON_Duplicate(gear, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(root, "gear");
}

static void add_figures(cJSON *root, const car_path *p, const car_world *w, const sp_car_problem *c, double h,
                        const double goal[3])
{
    double end[3], largest = 0.0, rate = 0.0, where = 0.0;
    car_path_end(p, &c->vehicle, c->scene.start, end);
    for (size_t k = 0; k < p->K; ++k) {
        largest = fmax(largest, fabs(p->delta[k]));
        if (k > 0) rate = fmax(rate, fabs(p->delta[k] - p->delta[k - 1]) / h);
    }
    const double clearance = car_path_min_clearance(p, w, c->scene.start, 0.005, &where);
    const double *o = c->scene.origin;
    const double reached[3] = {end[0] + o[0], end[1] + o[1], end[2]}, target[3] = {goal[0] + o[0], goal[1] + o[1], goal[2]};
    sp_json_add_vector(root, "goal", 3, target);
    sp_json_add_vector(root, "reached", 3, reached);
    cJSON_AddNumberToObject(root, "goal_error", fmax(hypot(end[0] - goal[0], end[1] - goal[1]), fabs(end[2] - goal[2])));
    cJSON_AddNumberToObject(root, "length", car_path_length(p));
    cJSON_AddNumberToObject(root, "gear_changes", car_path_gear_changes(p));
    cJSON_AddNumberToObject(root, "min_clearance", clearance);
    cJSON_AddNumberToObject(root, "min_clearance_at", where);
    cJSON_AddNumberToObject(root, "largest_steering", largest);
    cJSON_AddNumberToObject(root, "largest_steering_rate", rate);
    cJSON_AddNumberToObject(root, "energy", car_path_energy(p, &c->settings, h));
    cJSON_AddNumberToObject(root, "T", h * (double)p->K);
}

static void add_settings(cJSON *root, const sp_car_problem *c)
{
    cJSON *s = cJSON_AddObjectToObject(root, "settings");
    const sp_car_settings *set = &c->settings;
    cJSON_AddNumberToObject(s, "travel_weight", set->travel_weight);
    cJSON_AddNumberToObject(s, "steering_weight", set->steering_weight);
    cJSON_AddNumberToObject(s, "gear_change_cost", set->gear_change_cost);
    cJSON_AddNumberToObject(s, "speed", set->speed);
    cJSON_AddNumberToObject(s, "clearance", c->scene.clearance);
    cJSON_AddNumberToObject(s, "tolerance", set->tolerance);
    sp_json_add_vector(s, "origin", 2, c->scene.origin);
}

cJSON *sp_car_plan_json(const sp_problem *pb, const sp_progress *progress)
{
    const double t0 = sp_clock_seconds();
    const sp_car_problem *c = &pb->car;
    car_world w;
    if (car_world_init(&w, c) != SP_OK) return NULL;
    car_route r;
    sp_status st = car_route_search(&w, c, progress, &r);
    if (st == SP_ERR_NOMEM) {
        car_world_free(&w);
        return NULL;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "task", "plan");
    cJSON_AddStringToObject(root, "model", pb->model);
    cJSON *status = cJSON_AddStringToObject(root, "status", "stalled");
    cJSON *work = cJSON_CreateObject(), *timing = cJSON_CreateObject();
    cJSON *rw = cJSON_AddObjectToObject(work, "route");
    cJSON_AddNumberToObject(rw, "expanded_nodes", (double)r.expanded);
    cJSON_AddNumberToObject(rw, "generated_nodes", (double)r.generated);
    cJSON_AddNumberToObject(rw, "escape_nodes", (double)r.escape_nodes);
    cJSON_AddNumberToObject(rw, "max_nodes", (double)c->settings.max_nodes);
    cJSON_AddNumberToObject(rw, "max_seconds", c->settings.max_seconds);
    cJSON_AddNumberToObject(timing, "route_seconds", r.seconds);
    cJSON_AddNumberToObject(timing, "route_cpu_seconds", r.cpu_seconds);
    car_path path = {0};
    if (st == SP_ERR_INTERRUPTED) {
        cJSON_SetValuestring(status, "interrupted");
    } else if (!r.found) {
        cJSON_SetValuestring(status, "target_not_reached");
        cJSON_AddStringToObject(root, "failed_stage", "route");
        cJSON_AddStringToObject(root, "message", r.message);
    } else if (route_path(&r, &c->vehicle, &path) != SP_OK) {
        cJSON_Delete(root), cJSON_Delete(work), cJSON_Delete(timing);
        car_route_free(&r), car_world_free(&w);
        return NULL;
    } else {
        double end[3];
        car_path_end(&path, &c->vehicle, c->scene.start, end);
        /* the goal's heading as the route reaches it, unwrapped */
        const double g = c->scene.goal[2], goal[3] = {c->scene.goal[0], c->scene.goal[1],
                                                      g + 2.0 * SP_PI * round((end[2] - g) / (2.0 * SP_PI))};
        const double duration = car_route_duration(&r, c), h = duration / (double)(path.K ? path.K : 1);
        const double route_energy = car_path_energy(&path, &c->settings, h);
        double hp = h;
        if (c->settings.smooth) {
            car_path smooth = {0};
            car_smooth_out so;
            st = car_smooth(&w, c, &r, goal, progress, &smooth, &so);
            if (st == SP_ERR_NOMEM) {
                cJSON_Delete(root), cJSON_Delete(work), cJSON_Delete(timing);
                car_path_free(&path), car_route_free(&r), car_world_free(&w);
                return NULL;
            }
            cJSON *sw = cJSON_AddObjectToObject(work, "smooth");
            cJSON_AddNumberToObject(sw, "unknowns", so.unknowns);
            cJSON_AddNumberToObject(sw, "constraints", so.constraints);
            cJSON_AddNumberToObject(sw, "solves", so.solves);
            cJSON_AddNumberToObject(sw, "evaluations", so.iterations);
            cJSON_AddNumberToObject(sw, "max_evaluations", (double)c->settings.max_evaluations);
            cJSON_AddNumberToObject(sw, "max_unknowns", (double)c->settings.max_unknowns);
            cJSON_AddNumberToObject(sw, "max_seconds", so.max_seconds);
            if (so.budget) cJSON_AddStringToObject(sw, "budget_used_up", so.budget);
            cJSON_AddNumberToObject(sw, "newton_steps", so.newton_steps);
            cJSON_AddNumberToObject(sw, "stationarity", so.stationarity);
            cJSON_AddNumberToObject(sw, "violation", so.violation);
            cJSON_AddNumberToObject(sw, "clearance_margin", so.margin);
            cJSON_AddNumberToObject(sw, "swept_intervals", so.swept);
            cJSON_AddNumberToObject(sw, "route_energy", route_energy);
            cJSON_AddNumberToObject(timing, "smooth_seconds", so.seconds);
            cJSON_AddNumberToObject(timing, "smooth_cpu_seconds", so.cpu_seconds);
            const double hs = duration / (double)(smooth.K ? smooth.K : 1);
            /* never worse than the route: the smoothed path is kept only when its energy
             * (measured as the route's) is no larger, but for rounding (a straight route is
             * already optimal, and its smoothing may come out 1e-15 above it) */
            if (st == SP_ERR_INTERRUPTED) {
                cJSON_SetValuestring(status, "interrupted");
                cJSON_AddStringToObject(root, "message", "interrupted during the smoothing; the path is the route");
            } else if (so.used && car_path_energy(&smooth, &c->settings, hs) <= route_energy * (1.0 + 1e-12)) {
                car_path_free(&path);
                path = smooth;
                smooth = (car_path){0};
                hp = hs;
                cJSON_AddNumberToObject(root, "optimality_residual", so.residual);
                if (so.converged) cJSON_SetValuestring(status, "converged");
                cJSON_AddStringToObject(root, "message", so.message);
            } else {
                char msg[300];
                snprintf(msg, sizeof msg, "%s; the path is the route, optimality not claimed",
                         so.used ? "smooth: the optimised energy is above the route's" : so.message);
                cJSON_AddStringToObject(root, "message", msg);
            }
            car_path_free(&smooth);
        } else {
            cJSON_AddStringToObject(root, "message", "smooth: off (\"smooth\": false); the path is the route of the "
                                                     "search, collision-free and at the goal, optimality not claimed");
        }
        add_figures(root, &path, &w, c, hp, goal);
        add_rows(root, &path, c, hp);
    }
    add_settings(root, c);
    cJSON_AddItemToObject(root, "work", work);
    cJSON_AddNumberToObject(timing, "solve_seconds", sp_clock_seconds() - t0);
    cJSON_AddItemToObject(root, "timing", timing);
    car_path_free(&path);
    car_route_free(&r);
    car_world_free(&w);
    return root;
}
