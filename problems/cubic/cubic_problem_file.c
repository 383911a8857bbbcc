/* The problem files of cubic splines: simulations from an initial state, and plans
 * through keyframes on S², SO(3), Rⁿ, SO(3) x R³ and SE(3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"
#include "integrators/sp_hohp_rk.h"

static const char *group_name_at(size_t i) { return sp_group_at(i) ? sp_group_at(i)->name : NULL; }
/* The θ-family, then the RKMK scheme. */
static const sp_hohp_scheme *scheme_at(size_t i)
{
    const sp_hohp_scheme *s = sp_hohp_scheme_at(i);
    return s ? s : sp_hohp_scheme_at(i - 1) ? &sp_hohp_scheme_rkmk8 : NULL;
}
static const char *scheme_name_at(size_t i) { return scheme_at(i) ? scheme_at(i)->name : NULL; }
static const char *retraction_name_at(size_t i) { return sp_retraction_at(i) ? sp_retraction_at(i)->name : NULL; }
static const char *solver_name_at(size_t i) { return i == 0 ? "newton" : i == 1 ? "fixed_point" : NULL; }
static const char *space_name_at(size_t i) { return i == 0 ? "sphere" : i == 1 ? "group" : NULL; }

/* Reads a direction (any non-zero vector, normalised). */
static int json_direction(const json_input *in, const char *key, int required, double *y)
{
    int st = json_vector(in, key, required, 3, y);
    if (st != 1) return st;
    double n = sp_vec_norm(3, y);
    if (!(n > 1e-12) || !isfinite(n)) return json_fail(in, key, "must be a non-zero direction");
    for (int i = 0; i < 3; ++i) y[i] /= n;
    return 1;
}

/* g0 for any group: a rotation (a matrix, or a quaternion in order xyzw) for SO(3), a
 * vector for Rⁿ; for SE(3) its orientation alone, at the origin (the position is "x0",
 * as in SO3xR3 files). */
static int json_group_element(const json_input *in, const char *key, const sp_group *G, int format, double *g)
{
    G->identity(G, g);
    if (G == sp_group_so3) return json_rotation(in, key, 0, format, g);
    if (G == sp_group_se3) {
        double R[9];
        const double origin[3] = {0, 0, 0};
        sp_group_so3->identity(sp_group_so3, R);
        int st = json_rotation(in, key, 0, format, R);
        sp_se3_from_pose(R, origin, g);
        return st;
    }
    return json_vector(in, key, 0, G->elem_size, g);
}

/* Keyframe i of the targets, after keyframe i - 1. */
static int read_target(const json_input *tg, sp_problem *p, int i)
{
    const int sphere = p->cubic.space == SP_SPACE_SPHERE, se3 = p->cubic.group == sp_group_se3;
    const int rotations = p->cubic.group == sp_group_so3 || se3, poses = p->plan.pose || se3;
    const char *const sphere_keys[] = {"t", "y", NULL}, *const group_keys[] = {"t", "R", "q", NULL},
                      *const point_keys[] = {"t", "x", NULL}, *const pose_keys[] = {"t", "R", "q", "x", NULL};
    const char *const *keys = sphere ? sphere_keys : poses ? pose_keys : rotations ? group_keys : point_keys;
    sp_cubic_target *t = &p->cubic.targets[i];
    if (json_require_object(tg) != 1 || json_only_keys(tg, keys) != 1 || json_number(tg, "t", 1, &t->t) != 1)
        return -1;
    if (t->t == 0.0)
        return json_fail(tg, "t", "must be after 0: the curve starts at t = 0 from g0 (or y0 on the sphere), "
                                  "so a keyframe at 0 belongs there");
    if (!(t->t > 0.0 && t->t <= p->T)) return json_fail(tg, "t", "must be within (0, T=%.17g]", p->T);
    if (i > 0 && !(t->t > t[-1].t)) {
        char now[40], before[40]; /* as the file writes them, not rounded to look equal */
        sp_format_double(t->t, now, sizeof now);
        sp_format_double(t[-1].t, before, sizeof before);
        return json_fail(tg, "t", "must be later than targets[%d].t = %s: keyframe times must increase (got %s)",
                         i - 1, before, now);
    }
    if (sphere) return json_direction(tg, "y", 1, t->y);
    if (!rotations) return json_vector(tg, "x", 1, p->cubic.group->dim, t->R); /* a point of Rⁿ */
    int has_R = json_member(tg, "R").node != NULL, has_q = json_member(tg, "q").node != NULL;
    if (has_R && has_q) return json_fail(tg, "q", "give the orientation as R or as q, not both");
    if (!has_R && !has_q) return json_fail(tg, "R", "missing required field (the orientation, as R or as q)");
    t->quaternion = has_q;
    const int format = p->plan.rotation_format;
    int st = has_q ? json_quaternion(tg, "q", 1, format, t->R) : json_rotation(tg, "R", 1, format, t->R);
    if (st == 1 && poses) st = json_vector(tg, "x", 1, 3, t->x);
    if (st == 1 && se3) {
        double R[9];
        memcpy(R, t->R, sizeof R);
        sp_se3_from_pose(R, t->x, t->R);
    }
    return st;
}

/* The keyframes, read one at a time: a long list comes packed (sp_json_packed.h). */
static int read_targets(const json_input *root, sp_problem *p)
{
    json_input in = json_member(root, "targets");
    if (!in.node) return json_fail(root, "targets", "missing required field");
    int n = sp_json_array_size(in.node);
    if (!sp_json_is_array(in.node) || n < 1) return json_fail(&in, NULL, "must be a non-empty array of targets");
    p->cubic.targets = calloc((size_t)n, sizeof *p->cubic.targets);
    if (!p->cubic.targets) return json_fail(&in, NULL, "out of memory");
    p->cubic.n_targets = (size_t)n;
    sp_json_items items;
    sp_json_items_begin(&items, in.node);
    int st = 1;
    for (int i = 0; i < n && st == 1; ++i) {
        const cJSON *node = sp_json_items_next(&items);
        json_input tg = json_element_node(&in, node, i);
        st = node ? read_target(&tg, p, i) : json_fail(&in, NULL, "out of memory");
    }
    sp_json_items_end(&items);
    if (st != 1) return -1;
    size_t segments = sp_cubic_segments(&p->cubic, p->T);
    if (p->steps > 0 && (size_t)p->steps < segments)
        return json_fail(root, "steps", "must be at least %zu, one step per segment between targets", segments);
    return 1;
}

#define POSE_GROUP "SO3xR3"

/* "output": "sample_times" (any times in [0, T]) or "sample_rate" (r per unit time from 0,
 * T included): where the result reads the planned curve. */
static int read_samples(const json_input *out, sp_problem *p)
{
    sp_plan_settings *s = &p->plan;
    json_input times = json_member(out, "sample_times");
    if (times.node && json_member(out, "sample_rate").node)
        return json_fail(out, "sample_rate", "give sample_times or sample_rate, not both");
    if (json_positive(out, "sample_rate", 0, &s->sample_rate) < 0) return -1;
    if (s->sample_rate > 0.0 && !(s->sample_rate * p->T <= SP_PLAN_MAX_SAMPLES))
        return json_fail(out, "sample_rate", "asks for %.3g samples over T = %.17g; at most %d", s->sample_rate * p->T,
                         p->T, SP_PLAN_MAX_SAMPLES);
    if (!times.node) return 1;
    int n = sp_json_array_size(times.node);
    if (!sp_json_is_array(times.node)) return json_fail(&times, NULL, "must be an array of times in [0, T]");
    if (n > SP_PLAN_MAX_SAMPLES) return json_fail(&times, NULL, "has %d times; at most %d", n, SP_PLAN_MAX_SAMPLES);
    s->sample_times = malloc((n ? (size_t)n : 1) * sizeof *s->sample_times);
    if (!s->sample_times) return json_fail(&times, NULL, "out of memory");
    s->n_sample_times = (size_t)n;
    s->has_sample_times = 1;
    sp_json_items items;
    sp_json_items_begin(&items, times.node);
    int st = 1;
    for (int i = 0; i < n && st == 1; ++i) {
        json_input e = json_element_node(&times, sp_json_items_next(&items), i);
        const double t = cJSON_IsNumber(e.node) ? e.node->valuedouble : NAN;
        if (items.out_of_memory)
            st = json_fail(&times, NULL, "out of memory");
        else if (!isfinite(t))
            st = json_fail(&e, NULL, "must be a finite number (a time in [0, T])");
        else if (!(t >= 0.0 && t <= p->T))
            st = json_fail(&e, NULL, "must be within [0, T=%.17g] (got %.17g)", p->T, t);
        else
            s->sample_times[i] = t;
    }
    sp_json_items_end(&items);
    return st;
}

static const char *method_name_at(size_t i)
{
    return i == 0 ? "multiple_shooting" : i == 1 ? "direct" : i == 2 ? "single_shooting" : NULL;
}
static const char *orientation_name_at(size_t i) { return i == 0 ? "matrix" : i == 1 ? "quaternion" : NULL; }

/* The method, end conditions and output of a cubic-spline plan. A file that names an
 * optimiser but no method has NLopt run on the direct form. */
static int read_plan_settings(const json_input *root, sp_problem *p)
{
    sp_plan_settings *s = &p->plan;
    const int has_optimizer = json_member(root, "optimizer").node != NULL;
    const char *name = has_optimizer ? "direct" : "multiple_shooting";
    if (json_name(root, "method", 0, method_name_at, "method", &name) < 0) return -1;
    s->method = strcmp(name, "single_shooting") == 0 ? SP_METHOD_SINGLE_SHOOTING
                : strcmp(name, "direct") == 0        ? SP_METHOD_DIRECT
                                                     : SP_METHOD_MULTIPLE_SHOOTING;
    const int n = s->pose ? 6 : p->cubic.group->dim;
    int st = json_vector(root, "xiT", 0, n, s->xiT);
    if (st < 0) return -1;
    s->has_xiT = st == 1;
    if (json_positive(root, "tolerance", 0, &s->tolerance) < 0 ||
        json_integer(root, "max_iterations", 0, 1, 1000000, &s->max_iterations) < 0 ||
        json_integer(root, "block_steps", 0, 1, PROBLEM_MAX_STEPS, &s->block_steps) < 0)
        return -1;
    json_input out = json_member(root, "output");
    if (out.node) {
        static const char *const keys[] = {"orientation", "sample_times", "sample_rate", NULL};
        const char *o = "matrix";
        if (json_require_object(&out) != 1 || json_only_keys(&out, keys) != 1 ||
            json_name(&out, "orientation", 0, orientation_name_at, "orientation", &o) < 0 ||
            read_samples(&out, p) != 1)
            return -1;
        s->quaternion_output = strcmp(o, "quaternion") == 0;
    }
    if (json_positive(root, "accuracy", 0, &s->accuracy) < 0) return -1;
    if (s->accuracy > 0.0 && s->accuracy < 1e-13)
        return json_fail(root, "accuracy", "must be at least 1e-13 (a curve is not resolved beyond round-off; got %g)",
                         s->accuracy);
    if (p->steps > 0 && json_member(root, "accuracy").node)
        return json_fail(root, "accuracy", "chooses the steps: give steps or accuracy, not both");
    if (p->steps == 0 && s->method != SP_METHOD_MULTIPLE_SHOOTING)
        return json_fail(root, "steps", "missing: the method %s needs a step count (only multiple_shooting chooses "
                         "its own)", s->method == SP_METHOD_DIRECT ? "direct" : "single_shooting");
    if (p->scheme->rk_table && s->method != SP_METHOD_MULTIPLE_SHOOTING)
        return json_fail(root, "scheme", "%s needs the method multiple_shooting (the others optimise the discrete "
                         "cost of a θ-scheme)", p->scheme->name);
    if (s->method == SP_METHOD_SINGLE_SHOOTING) {
        if (s->pose) return json_fail(root, "method", POSE_GROUP " plans take the methods multiple_shooting or direct");
        if (p->cubic.sigma == 0.0)
            return json_fail(root, "sigma", "exact interpolation (sigma 0) needs the method multiple_shooting");
        if (s->xi0_free) return json_fail(root, "xi0", "a free initial velocity needs the method multiple_shooting");
        if (s->has_xiT) return json_fail(root, "xiT", "a prescribed final velocity needs the method multiple_shooting");
        static const char *const ms_only[] = {"tolerance", "max_iterations", "block_steps"};
        for (size_t i = 0; i < sizeof ms_only / sizeof ms_only[0]; ++i)
            if (json_member(root, ms_only[i]).node)
                return json_fail(root, ms_only[i], "only the method multiple_shooting takes this field");
    } else if (json_member(root, "initial_momenta").node) {
        return json_fail(root, "initial_momenta", "only the method single_shooting starts from given momenta");
    } else if (s->method == SP_METHOD_DIRECT && p->cubic.sigma == 0.0) {
        return json_fail(root, "sigma",
                         "exact interpolation (sigma 0) needs the method multiple_shooting (the direct form weights "
                         "the keyframes)");
    }
    return 1;
}

static int read_sphere_metric(const json_input *root, sp_problem *p);
static int read_se3_metric(const json_input *root, sp_problem *p);

static int read_cubic(const json_input *root, sp_problem *p)
{
    const char *s;
    p->kind = SP_KIND_CUBIC;
    static const char *const keys[] = {"task",
                                       "model",
                                       "group",
                                       "space",
                                       "y0",
                                       "g0",
                                       "xi0",
                                       "p0",
                                       "nu0",
                                       "T",
                                       "h",
                                       "steps",
                                       "scheme",
                                       "retraction",
                                       "solver",
                                       "solver_tol",
                                       "sigma",
                                       "targets",
                                       "initial_momenta",
                                       "optimizer",
                                       "description",
                                       "xiT",
                                       "method",
                                       "tolerance",
                                       "max_iterations",
                                       "block_steps",
                                       "accuracy",
                                       "record_every",
                                       "output",
                                       "x0",
                                       "quaternion_order",
                                       "normalize",
                                       "orthonormalize",
                                       "metric",
                                       NULL};
    if (json_only_keys(root, keys) != 1) return -1;

    /* SO3xR3: poses, planned as an orientation and a position with the product metric */
    s = p->cubic.group->name;
    const cJSON *group = cJSON_GetObjectItemCaseSensitive(root->node, "group");
    if (p->task == SP_TASK_PLAN && cJSON_IsString(group) && strcmp(group->valuestring, POSE_GROUP) == 0)
        p->plan.pose = 1;
    else if (json_name(root, "group", 0, group_name_at, "group", &s) < 0)
        return -1;
    const sp_group *G = p->cubic.group = sp_group_by_name(s);
    /* The Riemannian cubic equations integrated here hold for a bi-invariant metric only.
     * SE(3) has none, but a plan on it is still an optimal-control problem: the least
     * trivialised acceleration ½∫|ξ̇|² in the left-invariant metric (a Lie quadratic), whose
     * curves of zero cost are the screw motions. */
    const int se3 = G == sp_group_se3;
    if (G != sp_group_so3 && G != sp_group_rn(G->dim) && !(se3 && p->task == SP_TASK_PLAN))
        return json_fail(root, "group",
                         "%s has no bi-invariant metric, which Riemannian cubics need (their momenta would not be "
                         "conserved); use SO3, R1…R6, or SE3 or " POSE_GROUP " (plans)",
                         G->name);
    const int dim = p->plan.pose ? 6 : G->dim; /* of ξ0 and ξ_T */
    s = p->scheme->name;
    if (json_name(root, "scheme", 0, scheme_name_at, "scheme", &s) < 0) return -1;
    for (size_t i = 0; scheme_at(i); ++i)
        if (strcmp(scheme_at(i)->name, s) == 0) p->scheme = scheme_at(i);
    s = p->retraction->name;
    if (json_name(root, "retraction", 0, retraction_name_at, "retraction", &s) < 0) return -1;
    p->retraction = sp_retraction_by_name(s);
    s = sp_hohp_solver_name(p->solver);
    if (json_name(root, "solver", 0, solver_name_at, "solver", &s) < 0) return -1;
    sp_hohp_solver_from_name(s, &p->solver);
    if (json_positive(root, "solver_tol", 0, &p->solver_tol) < 0) return -1;
    if (p->solver_tol >= 1e-2) return json_fail(root, "solver_tol", "must be below 1e-2");

    /* plans without a step count choose it for an accuracy on the curve, by default with
     * the order-8 scheme */
    const int steps_given = json_integer(root, "steps", p->task != SP_TASK_PLAN, 1, PROBLEM_MAX_STEPS, &p->steps);
    if (steps_given < 0) return -1;
    if (steps_given == 0 && !json_member(root, "scheme").node) p->scheme = &sp_hohp_scheme_rkmk8;
    /* how the file's quaternions are written (plans of orientations only: checked below) */
    s = sp_quaternion_order_at(0);
    if (json_name(root, "quaternion_order", 0, sp_quaternion_order_at, "quaternion order", &s) < 0) return -1;
    p->plan.quaternion_xyzw = strcmp(s, sp_quaternion_order_at(1)) == 0;
    int normalize = 0, orthonormalize = 0;
    if (json_boolean(root, "normalize", 0, &normalize) < 0 || json_boolean(root, "orthonormalize", 0, &orthonormalize) < 0)
        return -1;
    p->plan.rotation_format = (p->plan.quaternion_xyzw ? SP_ROTATION_XYZW : 0) |
                              (normalize ? SP_ROTATION_NORMALIZE : 0) | (orthonormalize ? SP_ROTATION_ORTHONORMALIZE : 0);
    if (json_group_element(root, "g0", G, p->plan.rotation_format, p->g0) < 0) return -1;
    const cJSON *xi0 = cJSON_GetObjectItemCaseSensitive(root->node, "xi0");
    if (p->task == SP_TASK_PLAN && cJSON_IsString(xi0)) {
        if (strcmp(xi0->valuestring, "free") != 0)
            return json_fail(root, "xi0", "must be a body velocity [x, y, z] or \"free\" (got \"%s\")",
                             xi0->valuestring);
        p->plan.xi0_free = 1;
    } else if (json_vector(root, "xi0", 1, dim, p->xi0) != 1) {
        return -1;
    }
    if (!p->plan.pose && !se3 && json_member(root, "x0").node)
        return json_fail(root, "x0", "only plans on SE3 or %s take a start position", POSE_GROUP);
    if ((p->plan.pose || se3) && json_vector(root, "x0", 0, 3, p->plan.x0) < 0) return -1;
    if (se3) {
        double R[9], origin[3];
        sp_se3_to_pose(p->g0, R, origin);
        sp_se3_from_pose(R, p->plan.x0, p->g0);
    }

    if (read_record_every(root, p) != 1) return -1;
    if (p->task == SP_TASK_SIMULATE) {
        static const char *const plan_only[] = {
            "targets", "sigma",     "space",          "y0",          "initial_momenta", "optimizer",       "xiT",
            "method",  "tolerance", "max_iterations", "block_steps", "output",          "quaternion_order", "accuracy",
            "metric"};
        for (size_t i = 0; i < sizeof plan_only / sizeof plan_only[0]; ++i)
            if (json_member(root, plan_only[i]).node)
                return json_fail(root, plan_only[i], "only plan tasks take this field");
        if (p->scheme->rk_table)
            return json_fail(root, "scheme", "%s integrates plans; simulations take hohp_euler, hohp_sv or "
                             "hohp_euler_adjoint", p->scheme->name);
        if (json_vector(root, "p0", 1, G->dim, p->p0) != 1 || json_vector(root, "nu0", 1, G->dim, p->nu0) != 1)
            return -1;
        if (read_horizon(root, p, "T") != 1) return -1;
        return 1;
    }

    if (json_member(root, "h").node) return json_fail(root, "h", "plan tasks take the horizon T, not h");
    if (json_member(root, "p0").node || json_member(root, "nu0").node)
        return json_fail(root, json_member(root, "p0").node ? "p0" : "nu0",
                         "plan tasks optimise the momenta; give a starting guess as initial_momenta");
    if (json_positive(root, "T", 1, &p->T) != 1 || json_number(root, "sigma", 1, &p->cubic.sigma) != 1) return -1;
    if (p->cubic.sigma < 0.0) return json_fail(root, "sigma", "must not be negative (0 asks for exact interpolation)");
    if (read_plan_settings(root, p) != 1) return -1;
    s = G == sp_group_so3 && !p->plan.pose ? "sphere" : "group";
    if (json_name(root, "space", 0, space_name_at, "space", &s) < 0) return -1;
    p->cubic.space = strcmp(s, "sphere") == 0 ? SP_SPACE_SPHERE : SP_SPACE_GROUP;
    if (p->cubic.space == SP_SPACE_SPHERE && (G != sp_group_so3 || p->plan.pose))
        return json_fail(root, "space", "sphere targets need group SO3");
    if (p->cubic.space == SP_SPACE_SPHERE) {
        /* orientation keyframes under the default space: the fix is the space, not y0 */
        sp_json_items items;
        sp_json_items_begin(&items, json_member(root, "targets").node);
        const cJSON *first = sp_json_items_next(&items);
        const int orientations = cJSON_IsObject(first) && (cJSON_HasObjectItem(first, "R") || cJSON_HasObjectItem(first, "q"));
        sp_json_items_end(&items);
        if (!json_member(root, "y0").node && !json_member(root, "space").node && orientations)
            return json_fail(root, "space",
                             "missing: the targets are orientations (R or q), which \"space\": \"group\" plans; "
                             "the default, \"sphere\", plans points y with a start point y0");
        if (json_direction(root, "y0", 1, p->cubic.y0) != 1) return -1;
    } else if (json_member(root, "y0").node) {
        return json_fail(root, "y0", "only sphere targets take y0");
    }
    static const char *const orientation_only[] = {"quaternion_order", "normalize", "orthonormalize"};
    for (size_t i = 0; i < sizeof orientation_only / sizeof orientation_only[0]; ++i)
        if ((p->cubic.space == SP_SPACE_SPHERE || (G != sp_group_so3 && !se3)) &&
            json_member(root, orientation_only[i]).node)
            return json_fail(root, orientation_only[i],
                             "only plans of orientations (space group on SO3, SE3 or " POSE_GROUP ") take this field");
    int st = json_vector(root, "initial_momenta", 0, 2 * G->dim, p->initial_momenta);
    if (st < 0) return -1;
    p->has_initial_momenta = st == 1;
    if (read_optimizer(root, &p->optimizer) != 1) return -1;
    if (read_targets(root, p) != 1) return -1;
    return se3 ? read_se3_metric(root, p) : read_sphere_metric(root, p);
}

/* "metric" of an SE3 plan: {"rotation": a, "translation": b}, the weights of the
 * left-invariant metric a|ω|² + b|v|² (both positive, default 1), which weigh the
 * keyframes' misses alike (planner/cubic/sp_se3_metric.h). */
static int read_se3_metric(const json_input *root, sp_problem *p)
{
    const json_input metric = json_member(root, "metric");
    sp_se3_metric *m = &p->cubic.se3_metric;
    *m = (sp_se3_metric){1.0, 1.0};
    if (!metric.node || cJSON_IsNull(metric.node)) return 1; /* null: the default, as for every field */
    static const char *const keys[] = {"rotation", "translation", NULL};
    if (!cJSON_IsObject(metric.node))
        return json_fail(root, "metric", "SE3 plans take the weights of a|ω|² + b|v|² as {\"rotation\": a, "
                         "\"translation\": b}");
    if (json_only_keys(&metric, keys) != 1 || json_positive(&metric, "rotation", 0, &m->rotation) < 0 ||
        json_positive(&metric, "translation", 0, &m->translation) < 0)
        return -1;
    /* positions are scaled by √(b/a) to solve: keep them well inside the doubles */
    const double ratio = m->translation / m->rotation;
    if (!(ratio >= 1e-12 && ratio <= 1e12))
        return json_fail(&metric, "translation", "must be within 1e-12 to 1e12 times rotation (got %.17g and %.17g)",
                         m->translation, m->rotation);
    if (p->plan.method == SP_METHOD_SINGLE_SHOOTING && (m->rotation != 1.0 || m->translation != 1.0))
        return json_fail(root, "method", "a weighted SE3 metric takes the methods multiple_shooting or direct");
    return 1;
}

static const char *sphere_metric_at(size_t i) { return i == 0 ? "rotation" : i == 1 ? "round" : NULL; }

/* "metric" of a sphere plan: "rotation" (the default, ½∫|ξ̇|² of the rotation carrying
 * y0) or "round" (½∫|∇ₜẏ|² of the curve itself). The round cubic takes weighted and exact
 * keyframes, a free tail after the last one, a grid chosen or a step count
 * (planner/cubic/sp_round.h); what it cannot take is refused here, with the field to change. */
static int read_sphere_metric(const json_input *root, sp_problem *p)
{
    const json_input metric = json_member(root, "metric");
    if (!metric.node) return 1;
    if (p->cubic.space != SP_SPACE_SPHERE)
        return json_fail(root, "metric", "only sphere plans (\"space\": \"sphere\", a metric \"rotation\" or "
                         "\"round\") and SE3 plans ({\"rotation\": a, \"translation\": b}) take a metric");
    const char *s = sphere_metric_at(0);
    if (json_name(root, "metric", 0, sphere_metric_at, "metric", &s) < 0) return -1;
    p->cubic.metric = strcmp(s, "round") == 0 ? SP_SPHERE_ROUND : SP_SPHERE_ROTATION;
    if (p->cubic.metric != SP_SPHERE_ROUND) return 1;
    if (json_member(root, "scheme").node && !p->scheme->rk_table)
        return json_fail(root, "scheme", "the round metric is integrated by its own order-8 scheme: remove scheme "
                         "(steps alone fix its grid)");
    if (p->plan.method != SP_METHOD_MULTIPLE_SHOOTING)
        return json_fail(root, "method", "the round metric is solved by multiple shooting only");
    if (p->plan.has_xiT) {
        /* ξ(T) of the horizontal lift g: ẏ(T) = g(T)(ξ × y0), the lift without spin about y0 */
        const double along = sp_vec_dot(3, p->plan.xiT, p->cubic.y0), size = sp_vec_norm(3, p->plan.xiT);
        if (fabs(along) > 1e-12 * fmax(1.0, size))
            return json_fail(root, "xiT", "the round metric's lift has no spin about y0: the component of xiT "
                             "along y0 must be 0 (got %.17g)", along);
        if (size != 0.0)
            return json_fail(root, "xiT", "the round metric takes only rest at T ([0, 0, 0]): a moving end "
                             "ẏ(T) = g(T)(xiT × y0) turns with the holonomy of the horizontal lift g over the "
                             "whole curve, and the least cost under it is no cubic between keyframes; end at rest, "
                             "leave xiT out (natural end), or plan in the rotation metric");
    }
    return 1;
}

static int cubic_model(size_t i, sp_model_info *out)
{
    return problem_family_model(out, i == 0 ? "cubic_spline" : NULL,
                                "Riemannian cubic on a Lie group (HOHP integrators); plans through keyframes on S², "
                                "SO(3), Rⁿ, SO(3) x R³ and SE(3)",
                                "groups, schemes and retractions as listed above");
}

const problem_family cubic_problem_family = {"cubic_spline", SP_KIND_FLAG(SP_KIND_CUBIC), SP_TASK_FLAG(SP_TASK_PLAN) | SP_TASK_FLAG(SP_TASK_SIMULATE), cubic_model,
                                             read_cubic};
