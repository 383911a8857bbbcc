/* The samples and extremes blocks of a plan's result (see sp_samples.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "planner/cubic/sp_samples.h"
#include "problems/sp_result_file.h"

double *sp_sample_times(const sp_problem *pb, size_t *count, sp_status *st)
{
    const sp_plan_settings *s = &pb->plan;
    *count = 0;
    *st = SP_OK;
    size_t n = s->has_sample_times ? s->n_sample_times : 0;
    double last = 0.0;
    if (!s->has_sample_times && s->sample_rate > 0.0) {
        /* k / r for k = 0, 1, … up to T, and T itself when it is not among them */
        n = (size_t)floor(pb->T * s->sample_rate * (1.0 + 1e-12)) + 1;
        last = (double)(n - 1) / s->sample_rate;
        if (pb->T - last > 1e-9 * pb->T) ++n;
    }
    if (n == 0) return NULL;
    double *t = malloc(n * sizeof *t);
    if (!t) {
        *st = SP_ERR_NOMEM;
        return NULL;
    }
    for (size_t k = 0; k < n; ++k)
        t[k] = s->has_sample_times ? s->sample_times[k] : fmin(pb->T, k + 1 == n ? pb->T : (double)k / s->sample_rate);
    *count = n;
    return t;
}

typedef enum { KIND_ROTATION, KIND_SPHERE, KIND_POINT, KIND_POSE } sample_kind;

static sample_kind kind_of(const sp_problem *pb)
{
    return pb->cubic.space == SP_SPACE_SPHERE ? KIND_SPHERE
           : pb->cubic.group == sp_group_so3  ? KIND_ROTATION
           : pb->cubic.group == sp_group_se3  ? KIND_POSE
                                              : KIND_POINT;
}

/* The names of the rows of a sample: the point, its first and second derivative; for
 * poses the orientation's three, then the position's. Returns how many. */
static int names_of(const sp_problem *pb, const char *names[6])
{
    const char *orientation = pb->plan.quaternion_output ? "q" : "R";
    switch (kind_of(pb)) {
    case KIND_ROTATION:
        names[0] = orientation, names[1] = "omega", names[2] = "omega_dot";
        return 3;
    case KIND_SPHERE:
        names[0] = "y", names[1] = "velocity", names[2] = "acceleration";
        return 3;
    case KIND_POINT:
        names[0] = "x", names[1] = "velocity", names[2] = "acceleration";
        return 3;
    case KIND_POSE:
        names[0] = orientation, names[1] = "omega", names[2] = "omega_dot";
        names[3] = "x", names[4] = "velocity", names[5] = "acceleration";
        return 6;
    }
    return 0;
}

/* Appends three rows of n numbers: a point and its two derivatives. */
static void add_rows(cJSON *rows[3], int n, const double *x, const double *v, const double *a)
{
    cJSON_AddItemToArray(rows[0], sp_json_vector(n, x));
    cJSON_AddItemToArray(rows[1], sp_json_vector(n, v));
    cJSON_AddItemToArray(rows[2], sp_json_vector(n, a));
}

/* Appends an orientation R as asked (q_last carries the sign of the last quaternion),
 * with its ω and ω̇. */
static void add_rotation(const sp_problem *pb, const double *R, const double *omega, const double *omega_dot,
                         cJSON *rows[3], double *q_last, int first)
{
    if (pb->plan.quaternion_output) {
        double q[4], out[4];
        sp_quaternion_from_rotation(R, q); /* w ≥ 0 */
        if (!first) sp_quaternion_follow(q, q_last);
        sp_vec_copy(4, q, q_last);
        sp_quaternion_to_order(q, pb->plan.quaternion_xyzw, out);
        cJSON_AddItemToArray(rows[0], sp_json_vector(4, out));
    } else {
        cJSON *m = cJSON_CreateArray();
        for (int r = 0; r < 3; ++r) cJSON_AddItemToArray(m, sp_json_vector(3, R + 3 * r));
        cJSON_AddItemToArray(rows[0], m);
    }
    cJSON_AddItemToArray(rows[1], sp_json_vector(3, omega));
    cJSON_AddItemToArray(rows[2], sp_json_vector(3, omega_dot));
}

/* Appends one sample's rows; q_last carries the sign of the last quaternion. */
static void add_sample(const sp_problem *pb, const sp_curve_point *p, cJSON *rows[6], double *q_last, int first)
{
    switch (kind_of(pb)) {
    case KIND_ROTATION:
        add_rotation(pb, p->g, p->omega, p->omega_dot, rows, q_last, first);
        break;
    case KIND_SPHERE: {
        /* y = g y0, ẏ = g (ω × y0), ÿ = g (ω × (ω × y0) + ω̇ × y0) */
        const double *y0 = pb->cubic.y0;
        double y[3], a[3], b[3], c[3], v[3], acc[3];
        sp_mat_vec(3, 3, p->g, y0, y);
        sp_cross(p->omega, y0, a);
        sp_mat_vec(3, 3, p->g, a, v);
        sp_cross(p->omega, a, b);
        sp_cross(p->omega_dot, y0, c);
        for (int k = 0; k < 3; ++k) b[k] += c[k];
        sp_mat_vec(3, 3, p->g, b, acc);
        add_rows(rows, 3, y, v, acc);
        break;
    }
    case KIND_POINT:
        add_rows(rows, pb->cubic.group->dim, p->g, p->omega, p->omega_dot);
        break;
    case KIND_POSE: {
        sp_curve_pose pose;
        sp_curve_point_pose(p, &pose);
        add_rotation(pb, pose.R, pose.omega, pose.omega_dot, rows, q_last, first);
        add_rows(rows + 3, 3, pose.x, pose.velocity, pose.acceleration);
        break;
    }
    }
}

static void add_extreme(cJSON *e, const char *name, double value, double at)
{
    cJSON *o = cJSON_AddObjectToObject(e, name);
    cJSON_AddNumberToObject(o, "max", value);
    cJSON_AddNumberToObject(o, "t", at);
}

sp_status sp_samples_add(cJSON *root, const sp_problem *pb, sp_curve *curve)
{
    const char *names[6];
    const int n_rows = names_of(pb, names);
    sp_curve_extremes ex;
    sp_status st = sp_curve_find_extremes(curve, &ex);
    if (st != SP_OK) return st;
    cJSON *e = cJSON_AddObjectToObject(root, "extremes");
    const int point = kind_of(pb) == KIND_POINT;
    add_extreme(e, point ? "velocity" : "omega", ex.omega, ex.t_omega);
    add_extreme(e, point ? "acceleration" : "omega_dot", ex.omega_dot, ex.t_omega_dot);
    if (ex.has_position) {
        add_extreme(e, "velocity", ex.velocity, ex.t_velocity);
        add_extreme(e, "acceleration", ex.acceleration, ex.t_acceleration);
    }

    size_t count;
    double *t = sp_sample_times(pb, &count, &st);
    if (!t) return st;
    cJSON *s = cJSON_AddObjectToObject(root, "samples");
    cJSON_AddItemToObject(s, "t", sp_json_vector((int)count, t));
    cJSON *rows[6];
    for (int k = 0; k < n_rows; ++k) rows[k] = cJSON_AddArrayToObject(s, names[k]);
    double q_last[4] = {1, 0, 0, 0};
    for (size_t i = 0; i < count && st == SP_OK; ++i) {
        sp_curve_point p;
        st = sp_curve_eval(curve, t[i], &p);
        if (st == SP_OK) add_sample(pb, &p, rows, q_last, i == 0);
    }
    free(t);
    return st;
}
