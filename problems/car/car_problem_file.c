/* Problem files of the car among obstacles (model "car", plan tasks only). Everything
 * is read relative to the start position (the scene's origin), so that scenes far from
 * the origin (TPCAP's cases 13–15 lie 4·10⁹ m out) keep their digits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lie/sp_linalg.h"
#include "problems/car/sp_car_geometry.h"
#include "problems/problem_family.h"

void sp_car_settings_defaults(sp_car_settings *s)
{
    *s = (sp_car_settings){.travel_weight = 1.0,
                           .steering_weight = 1.0,
                           .gear_change_cost = 0.0,
                           .speed = 1.0,
                           .max_nodes = 300000,
                           .max_seconds = 8.0,
                           .max_evaluations = 20000,
                           .max_unknowns = 5000,
                           .tolerance = 1e-6,
                           .smooth = 1};
}

void sp_car_problem_free(sp_car_problem *c)
{
    free(c->scene.first);
    free(c->scene.vertices);
    c->scene.first = NULL;
    c->scene.vertices = NULL;
    c->scene.n_obstacles = 0;
}

static int read_vehicle(const json_input *root, sp_car_vehicle *v)
{
    json_input in = json_member(root, "vehicle");
    if (!in.node) return json_fail(root, "vehicle", "missing: give wheelbase, front_overhang, rear_overhang, width, max_steering");
    static const char *const keys[] = {"wheelbase", "front_overhang", "rear_overhang", "width", "max_steering",
                                       "max_steering_rate", NULL};
    if (json_require_object(&in) != 1 || json_only_keys(&in, keys) != 1) return -1;
    if (json_positive(&in, "wheelbase", 1, &v->wheelbase) != 1 || json_positive(&in, "width", 1, &v->width) != 1 ||
        json_positive(&in, "front_overhang", 1, &v->front_overhang) != 1 ||
        json_positive(&in, "rear_overhang", 1, &v->rear_overhang) != 1 ||
        json_positive(&in, "max_steering", 1, &v->max_steering) != 1 ||
        json_positive(&in, "max_steering_rate", 0, &v->max_steering_rate) < 0)
        return -1;
    if (!(v->max_steering < 0.5 * SP_PI))
        return json_fail(&in, "max_steering", "must be below π/2 (got %.17g)", v->max_steering);
    return 1;
}

/* A polygon: at least three [x, y] points, shifted by the origin. */
static int read_polygon(const json_input *poly, const double origin[2], double *xy, size_t *n)
{
    if (!cJSON_IsArray(poly->node)) return json_fail(poly, NULL, "must be an array of [x, y] points");
    const int m = cJSON_GetArraySize(poly->node);
    if (m < 3) return json_fail(poly, NULL, "a polygon needs at least 3 vertices (got %d)", m);
    for (int i = 0; i < m; ++i) {
        json_input pt = json_element(poly, i);
        const cJSON *a = pt.node;
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(a, 0)) ||
            !cJSON_IsNumber(cJSON_GetArrayItem(a, 1)) || !isfinite(cJSON_GetArrayItem(a, 0)->valuedouble) ||
            !isfinite(cJSON_GetArrayItem(a, 1)->valuedouble))
            return json_fail(&pt, NULL, "must be a point [x, y] of two finite numbers");
        xy[2 * i] = cJSON_GetArrayItem(a, 0)->valuedouble - origin[0];
        xy[2 * i + 1] = cJSON_GetArrayItem(a, 1)->valuedouble - origin[1];
    }
    *n = (size_t)m;
    return 1;
}

static int read_obstacles(const json_input *root, sp_car_scene *s)
{
    json_input in = json_member(root, "obstacles");
    s->first = calloc(1, sizeof *s->first);
    if (!s->first) return json_fail(root, "obstacles", "out of memory");
    if (!in.node) return 1;
    if (!cJSON_IsArray(in.node)) return json_fail(&in, NULL, "must be an array of polygons");
    const int n = cJSON_GetArraySize(in.node);
    size_t total = 0;
    for (int i = 0; i < n; ++i) total += (size_t)cJSON_GetArraySize(cJSON_GetArrayItem(in.node, i));
    free(s->first);
    s->first = malloc(((size_t)n + 1) * sizeof *s->first);
    s->vertices = malloc((2 * total + 1) * sizeof *s->vertices);
    if (!s->first || !s->vertices) return json_fail(&in, NULL, "out of memory");
    s->first[0] = 0;
    for (int i = 0; i < n; ++i) {
        json_input poly = json_element(&in, i);
        size_t m = 0;
        if (read_polygon(&poly, s->origin, s->vertices + 2 * s->first[i], &m) != 1) return -1;
        s->first[i + 1] = s->first[i] + m;
        s->n_obstacles = (size_t)i + 1;
    }
    return 1;
}

/* The pose's footprint must lie inside the bounds and keep the clearance from every
 * obstacle. */
static int check_pose(const json_input *root, const char *key, const sp_car_problem *c, const double pose[3])
{
    const sp_car_scene *s = &c->scene;
    double corners[8];
    sp_car_footprint(&c->vehicle, pose, corners);
    for (int k = 0; k < 4; ++k)
        if (corners[2 * k] < s->bounds[0] || corners[2 * k] > s->bounds[2] || corners[2 * k + 1] < s->bounds[1] ||
            corners[2 * k + 1] > s->bounds[3])
            return json_fail(root, key, "the car's footprint here is out of bounds");
    for (size_t i = 0; i < s->n_obstacles; ++i) {
        const double d = sp_car_polygon_distance(&c->vehicle, pose, s->vertices + 2 * s->first[i],
                                                 s->first[i + 1] - s->first[i], NULL, NULL);
        if (d < 0.0) return json_fail(root, key, "the car's footprint here is inside obstacles[%zu]", i);
        if (d < s->clearance)
            return json_fail(root, key, "the car's footprint here is %.3g m from obstacles[%zu], less than the clearance %g",
                             d, i, s->clearance);
    }
    return 1;
}

/* Without bounds: the box around the obstacles and both footprints, widened by two
 * turning radii and a car length, room enough to turn around. */
static void default_bounds(sp_car_problem *c)
{
    sp_car_scene *s = &c->scene;
    double b[4] = {HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, corners[8];
    const double *poses[2] = {s->start, s->goal};
    for (int p = 0; p < 2; ++p) {
        sp_car_footprint(&c->vehicle, poses[p], corners);
        for (int k = 0; k < 4; ++k) {
            b[0] = fmin(b[0], corners[2 * k]), b[2] = fmax(b[2], corners[2 * k]);
            b[1] = fmin(b[1], corners[2 * k + 1]), b[3] = fmax(b[3], corners[2 * k + 1]);
        }
    }
    for (size_t k = 0; k < s->first[s->n_obstacles]; ++k) {
        b[0] = fmin(b[0], s->vertices[2 * k]), b[2] = fmax(b[2], s->vertices[2 * k]);
        b[1] = fmin(b[1], s->vertices[2 * k + 1]), b[3] = fmax(b[3], s->vertices[2 * k + 1]);
    }
    const sp_car_vehicle *v = &c->vehicle;
    const double margin = fmin(2.0 * v->wheelbase / tan(v->max_steering), 50.0) + v->wheelbase + v->front_overhang;
    s->bounds[0] = b[0] - margin, s->bounds[1] = b[1] - margin, s->bounds[2] = b[2] + margin, s->bounds[3] = b[3] + margin;
}

static int read_settings(const json_input *root, sp_car_settings *s)
{
    if (json_positive(root, "travel_weight", 0, &s->travel_weight) < 0 ||
        json_positive(root, "steering_weight", 0, &s->steering_weight) < 0 ||
        json_number(root, "gear_change_cost", 0, &s->gear_change_cost) < 0 ||
        json_positive(root, "speed", 0, &s->speed) < 0 || json_positive(root, "tolerance", 0, &s->tolerance) < 0 ||
        json_boolean(root, "smooth", 0, &s->smooth) < 0)
        return -1;
    if (s->gear_change_cost < 0)
        return json_fail(root, "gear_change_cost", "must not be negative (got %.17g)", s->gear_change_cost);
    json_input sm = json_member(root, "smoothing");
    if (sm.node) {
        static const char *const skeys[] = {"max_evaluations", "max_unknowns", NULL};
        int evals = (int)s->max_evaluations, unknowns = (int)s->max_unknowns;
        if (json_require_object(&sm) != 1 || json_only_keys(&sm, skeys) != 1 ||
            json_integer(&sm, "max_evaluations", 0, 1, 100000000, &evals) < 0 ||
            json_integer(&sm, "max_unknowns", 0, 1, 100000000, &unknowns) < 0)
            return -1;
        s->max_evaluations = evals, s->max_unknowns = unknowns;
    }
    json_input in = json_member(root, "search");
    if (!in.node) return 1;
    static const char *const keys[] = {"max_nodes", "max_seconds", NULL};
    int nodes = (int)s->max_nodes;
    if (json_require_object(&in) != 1 || json_only_keys(&in, keys) != 1 ||
        json_integer(&in, "max_nodes", 0, 1, 100000000, &nodes) < 0 ||
        json_positive(&in, "max_seconds", 0, &s->max_seconds) < 0)
        return -1;
    s->max_nodes = nodes;
    return 1;
}

static int read_car(const json_input *root, sp_problem *p)
{
    static const char *const keys[] = {"task", "model", "description", "vehicle", "start", "goal", "obstacles",
                                       "clearance", "bounds", "travel_weight", "steering_weight", "gear_change_cost",
                                       "speed", "tolerance", "smooth", "search", "smoothing", NULL};
    if (json_only_keys(root, keys) != 1) return -1;
    p->kind = SP_KIND_CAR;
    sp_car_problem *c = &p->car;
    sp_car_settings_defaults(&c->settings);
    c->scene.clearance = 0.05;
    if (read_vehicle(root, &c->vehicle) != 1) return -1;
    double start[3], goal[3];
    if (json_vector(root, "start", 1, 3, start) != 1 || json_vector(root, "goal", 1, 3, goal) != 1) return -1;
    sp_car_scene *s = &c->scene;
    s->origin[0] = start[0], s->origin[1] = start[1];
    s->start[0] = 0.0, s->start[1] = 0.0, s->start[2] = start[2];
    s->goal[0] = goal[0] - start[0], s->goal[1] = goal[1] - start[1], s->goal[2] = goal[2];
    if (json_number(root, "clearance", 0, &s->clearance) < 0) return -1;
    if (!(s->clearance >= 0.0)) return json_fail(root, "clearance", "must not be negative (got %.17g)", s->clearance);
    if (read_obstacles(root, s) != 1 || read_settings(root, &c->settings) != 1) return -1;
    double b[4];
    int st = json_vector(root, "bounds", 0, 4, b);
    if (st < 0) return -1;
    if (st == 1) {
        if (!(b[0] < b[2] && b[1] < b[3])) return json_fail(root, "bounds", "must be [xmin, ymin, xmax, ymax] with xmin < xmax, ymin < ymax");
        s->has_bounds = 1;
        s->bounds[0] = b[0] - start[0], s->bounds[1] = b[1] - start[1];
        s->bounds[2] = b[2] - start[0], s->bounds[3] = b[3] - start[1];
    } else {
        default_bounds(c);
    }
    if (check_pose(root, "start", c, s->start) != 1 || check_pose(root, "goal", c, s->goal) != 1) return -1;
    return 1;
}

static int car_model(size_t i, sp_model_info *out)
{
    return problem_family_model(
        out, i == 0 ? "car" : NULL, "a car (kinematic bicycle, q = (x, y, theta, delta)) parked among polygonal obstacles",
        "plan: hybrid A* route with Reeds-Shepp expansions, then local optimisation of the control energy");
}

const problem_family car_problem_family = {"car", SP_KIND_FLAG(SP_KIND_CAR), SP_TASK_FLAG(SP_TASK_PLAN), car_model, read_car};
