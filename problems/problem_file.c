/* The problem-file reader: every field of the problem-file contract (README.md, "Problem
 * files"), checked before anything runs. */
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/json_input.h"
#include "problems/problem_readers.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"
#include "lie/sp_linalg.h"

/* Largest problem file read, and largest step count accepted. */
#define PROBLEM_FILE_MAX_BYTES (64L << 20)

static const sp_model_info models[] = {
    {"cubic_spline", "plan, simulate",
     "Riemannian cubic on a Lie group (HOHP integrators); plans through targets on S² or SO(3)"},
};

const sp_model_info *sp_model_at(size_t i) { return i < sizeof models / sizeof models[0] ? &models[i] : NULL; }

static const char *task_name_at(size_t i)
{
    static const char *const tasks[] = {"plan", "simulate"};
    return i < 2 ? tasks[i] : NULL;
}
/* cubic_spline, then the vakonomic, holonomic and nonholonomic models */
static const char *model_name_at(size_t i)
{
    if (i == 0) return "cubic_spline";
    size_t v = 0;
    while (sp_vak_model_at(v)) ++v;
    if (i - 1 < v) return sp_vak_model_at(i - 1)->name;
    size_t k = i - 1 - v;
    for (size_t j = 0; sp_hol_model_at(j); ++j, --k)
        if (k == 0) return sp_hol_model_at(j)->name;
    for (size_t j = 0; sp_nh_model_at(j); ++j, --k) /* then the nonholonomic ones */
        if (k == 0) return sp_nh_model_at(j)->name;
    return sp_nh_lie_type_at(k) ? sp_nh_lie_type_at(k)->name : NULL;
}
static const char *group_name_at(size_t i) { return sp_group_at(i) ? sp_group_at(i)->name : NULL; }
static const char *scheme_name_at(size_t i) { return sp_hohp_scheme_at(i) ? sp_hohp_scheme_at(i)->name : NULL; }
static const char *retraction_name_at(size_t i) { return sp_retraction_at(i) ? sp_retraction_at(i)->name : NULL; }
static const char *solver_name_at(size_t i) { return i == 0 ? "newton" : i == 1 ? "fixed_point" : NULL; }
static const char *gradient_name_at(size_t i) { return i == 0 ? "adjoint" : i == 1 ? "central_difference" : NULL; }
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

/* The rotation of a unit quaternion (w, x, y, z). */
static void quaternion_to_rotation(const double *q, double *R)
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* Reads a unit quaternion [w, x, y, z] (normalised; q and −q are one orientation) as a
 * rotation matrix. */
int json_quaternion(const json_input *in, const char *key, int required, double *R)
{
    double q[4];
    int st = json_vector(in, key, required, 4, q);
    if (st != 1) return st;
    double n = sp_vec_norm(4, q);
    if (!(n > 1e-12) || !isfinite(n)) return json_fail(in, key, "must be a non-zero quaternion [w, x, y, z]");
    for (int i = 0; i < 4; ++i) q[i] /= n;
    quaternion_to_rotation(q, R);
    return 1;
}

/* Reads a rotation: a 3 x 3 matrix with |RᵀR − I| ≤ 1e-6 and det R > 0, rounded onto
 * SO(3) by the polar iteration R ← ½(R + R⁻ᵀ) so typed-in digits lose nothing; or a
 * unit quaternion [w, x, y, z]. */
int json_rotation(const json_input *in, const char *key, int required, double *R)
{
    const cJSON *v = in->node ? cJSON_GetObjectItemCaseSensitive(in->node, key) : NULL;
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 4 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)))
        return json_quaternion(in, key, required, R);
    int st = json_matrix(in, key, required, 3, R);
    if (st != 1) return st;
    double RtR[9], Rt[9], I[9];
    sp_mat_transpose(3, R, Rt);
    sp_mat_mul(3, 3, 3, Rt, R, RtR);
    sp_mat_identity(3, I);
    double err = sp_mat_dist(9, RtR, I);
    double det =
        R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
    if (!(err <= 1e-6) || !(det > 0.0))
        return json_fail(in, key,
                         "must be a rotation matrix (|R^T R - I| = %.2g, det = %.6g) or a quaternion [w, x, y, z]", err,
                         det);
    for (int it = 0; it < 6; ++it) {
        /* R⁻ᵀ = cof(R)/det(R) */
        double C[9] = {R[4] * R[8] - R[5] * R[7], R[5] * R[6] - R[3] * R[8], R[3] * R[7] - R[4] * R[6],
                       R[2] * R[7] - R[1] * R[8], R[0] * R[8] - R[2] * R[6], R[1] * R[6] - R[0] * R[7],
                       R[1] * R[5] - R[2] * R[4], R[2] * R[3] - R[0] * R[5], R[0] * R[4] - R[1] * R[3]};
        double d = R[0] * C[0] + R[1] * C[1] + R[2] * C[2];
        for (int k = 0; k < 9; ++k) R[k] = 0.5 * (R[k] + C[k] / d);
    }
    return 1;
}

/* g0 for any group: a rotation matrix for SO(3), a vector for Rⁿ. */
static int json_group_element(const json_input *in, const char *key, const sp_group *G, double *g)
{
    G->identity(G, g);
    if (G == sp_group_so3) return json_rotation(in, key, 0, g);
    return json_vector(in, key, 0, G->elem_size, g);
}

int read_optimizer(const json_input *root, sp_optimizer_settings *o)
{
    snprintf(o->algorithm, sizeof o->algorithm, "LD_LBFGS");
    snprintf(o->local_algorithm, sizeof o->local_algorithm, "LD_LBFGS");
    o->xtol_rel = 1e-12;
    o->ftol_rel = 1e-15;
    o->gtol = 1e-6;
    o->maxeval = 1000;
    o->bound = 100.0;
    o->stopval = -HUGE_VAL;
    json_input in = json_member(root, "optimizer");
    if (!in.node || cJSON_IsNull(in.node)) return 1; /* null means "defaults", as for every optional field */
    if (json_require_object(&in) != 1) return -1;
    static const char *const keys[] = {"algorithm", "local_algorithm", "xtol_rel", "xtol_abs", "ftol_rel", "ftol_abs",
                                       "stopval",   "maxeval",         "maxtime",  "bound",    "gradient", "gtol",
                                       NULL};
    if (json_only_keys(&in, keys) != 1) return -1;
    const char *names[2] = {NULL, NULL};
    const char *fields[2] = {"algorithm", "local_algorithm"};
    char *dest[2] = {o->algorithm, o->local_algorithm};
    for (int i = 0; i < 2; ++i) {
        int st = json_string(&in, fields[i], 0, &names[i]);
        if (st < 0) return -1;
        if (st == 0) continue;
        int a = (int)nlopt_algorithm_from_string(names[i]);
        if (a < 0 || strlen(names[i]) >= SP_NAME_MAX)
            return json_fail(&in, fields[i], "unknown NLopt algorithm '%s' (see `symplan list`)", names[i]);
        /* NLopt keeps the names of algorithms left out of its build (StoGO, Nocedal's
         * L-BFGS) and only fails with INVALID_ARGS when they run: refuse them here. */
        if (strstr(nlopt_algorithm_name((nlopt_algorithm)a), "NOT COMPILED"))
            return json_fail(&in, fields[i], "NLopt algorithm '%s' is not compiled into this NLopt", names[i]);
        snprintf(dest[i], SP_NAME_MAX, "%s", names[i]);
    }
    if (json_number(&in, "xtol_rel", 0, &o->xtol_rel) < 0 || json_number(&in, "xtol_abs", 0, &o->xtol_abs) < 0 ||
        json_number(&in, "ftol_rel", 0, &o->ftol_rel) < 0 || json_number(&in, "ftol_abs", 0, &o->ftol_abs) < 0 ||
        json_number(&in, "stopval", 0, &o->stopval) < 0 || json_positive(&in, "maxtime", 0, &o->maxtime) < 0 ||
        json_positive(&in, "bound", 0, &o->bound) < 0 || json_positive(&in, "gtol", 0, &o->gtol) < 0 ||
        json_integer(&in, "maxeval", 0, 1, 100000000L, &o->maxeval) < 0)
        return -1;
    const char *gradient = "adjoint";
    if (json_name(&in, "gradient", 0, gradient_name_at, "gradient", &gradient) < 0) return -1;
    o->central_differences = strcmp(gradient, "central_difference") == 0;
    const char *nonneg[] = {"xtol_rel", "xtol_abs", "ftol_rel", "ftol_abs"};
    const double vals[] = {o->xtol_rel, o->xtol_abs, o->ftol_rel, o->ftol_abs};
    for (int i = 0; i < 4; ++i)
        if (vals[i] < 0.0) return json_fail(&in, nonneg[i], "must not be negative");
    return 1;
}

static int read_targets(const json_input *root, sp_problem *p)
{
    json_input in = json_member(root, "targets");
    if (!in.node) return json_fail(root, "targets", "missing required field");
    int n = cJSON_GetArraySize(in.node);
    if (!cJSON_IsArray(in.node) || n < 1) return json_fail(&in, NULL, "must be a non-empty array of targets");
    p->cubic.targets = calloc((size_t)n, sizeof *p->cubic.targets);
    if (!p->cubic.targets) return json_fail(&in, NULL, "out of memory");
    p->cubic.n_targets = (size_t)n;
    const int sphere = p->cubic.space == SP_SPACE_SPHERE, rotations = p->cubic.group == sp_group_so3;
    const char *const sphere_keys[] = {"t", "y", NULL}, *const group_keys[] = {"t", "R", "q", NULL},
                      *const point_keys[] = {"t", "x", NULL}, *const pose_keys[] = {"t", "R", "q", "x", NULL};
    const char *const *keys = sphere ? sphere_keys : p->plan.pose ? pose_keys : rotations ? group_keys : point_keys;
    for (int i = 0; i < n; ++i) {
        json_input tg = json_element(&in, i);
        sp_cubic_target *t = &p->cubic.targets[i];
        if (json_require_object(&tg) != 1 || json_only_keys(&tg, keys) != 1 || json_number(&tg, "t", 1, &t->t) != 1)
            return -1;
        if (!(t->t > 0.0 && t->t <= p->T)) return json_fail(&tg, "t", "must be within (0, T=%.17g]", p->T);
        if (i > 0 && !(t->t > t[-1].t))
            return json_fail(&tg, "t", "must be later than targets[%d].t (two keyframes at one time)", i - 1);
        int st;
        if (sphere) {
            st = json_direction(&tg, "y", 1, t->y);
        } else if (!rotations) {
            st = json_vector(&tg, "x", 1, p->cubic.group->dim, t->R); /* a point of Rⁿ */
        } else {
            int has_R = json_member(&tg, "R").node != NULL, has_q = json_member(&tg, "q").node != NULL;
            if (has_R && has_q) return json_fail(&tg, "q", "give the orientation as R or as q, not both");
            if (!has_R && !has_q) return json_fail(&tg, "R", "missing required field (the orientation, as R or as q)");
            t->quaternion = has_q;
            st = has_q ? json_quaternion(&tg, "q", 1, t->R) : json_rotation(&tg, "R", 1, t->R);
            if (st == 1 && p->plan.pose) st = json_vector(&tg, "x", 1, 3, t->x);
        }
        if (st != 1) return -1;
    }
    size_t segments = sp_cubic_segments(&p->cubic, p->T);
    if ((size_t)p->steps < segments)
        return json_fail(root, "steps", "must be at least %zu, one step per segment between targets", segments);
    return 1;
}

#define POSE_GROUP "SO3xR3"

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
    s->tolerance = 1e-10;
    s->max_iterations = 100;
    s->block_steps = 64;
    s->record_every = 1;
    if (json_positive(root, "tolerance", 0, &s->tolerance) < 0 ||
        json_integer(root, "max_iterations", 0, 1, 1000000, &s->max_iterations) < 0 ||
        json_integer(root, "block_steps", 0, 1, PROBLEM_MAX_STEPS, &s->block_steps) < 0 ||
        json_integer(root, "record_every", 0, 1, PROBLEM_MAX_STEPS, &s->record_every) < 0)
        return -1;
    json_input out = json_member(root, "output");
    if (out.node) {
        static const char *const keys[] = {"orientation", NULL};
        const char *o = "matrix";
        if (json_require_object(&out) != 1 || json_only_keys(&out, keys) != 1 ||
            json_name(&out, "orientation", 0, orientation_name_at, "orientation", &o) < 0)
            return -1;
        s->quaternion_output = strcmp(o, "quaternion") == 0;
    }
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

static int read_problem(const json_input *root, sp_problem *p)
{
    const char *s;
    if (json_require_object(root) != 1) return -1;
    if (json_name(root, "task", 1, task_name_at, "task", &s) != 1) return -1;
    p->task = strcmp(s, "plan") == 0 ? SP_TASK_PLAN : SP_TASK_SIMULATE;
    if (json_name(root, "model", 1, model_name_at, "model", &s) != 1) return -1;
    snprintf(p->model, sizeof p->model, "%s", s);
    if (json_string(root, "description", 0, &s) < 0) return -1;
    if (sp_vak_model_by_name(p->model)) return read_vakonomic(root, p);
    if (sp_hol_model_by_name(p->model)) {
        if (p->task != SP_TASK_SIMULATE)
            return json_fail(root, "task", "%s has simulate tasks only (got plan)", p->model);
        return read_holonomic(root, p);
    }
    if (sp_nh_is_model(p->model)) return read_nonholonomic(root, p);

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
                                       "record_every",
                                       "output",
                                       "x0",
                                       NULL};
    if (json_only_keys(root, keys) != 1) return -1;

    /* SO3xR3: poses, planned as an orientation and a position with the product metric */
    s = "SO3";
    const cJSON *group = cJSON_GetObjectItemCaseSensitive(root->node, "group");
    if (p->task == SP_TASK_PLAN && cJSON_IsString(group) && strcmp(group->valuestring, POSE_GROUP) == 0)
        p->plan.pose = 1;
    else if (json_name(root, "group", 0, group_name_at, "group", &s) < 0)
        return -1;
    const sp_group *G = p->cubic.group = sp_group_by_name(s);
    /* the Riemannian cubic equations integrated here hold for a bi-invariant metric only */
    if (G != sp_group_so3 && G != sp_group_rn(G->dim))
        return json_fail(root, "group",
                         "%s has no bi-invariant metric, which Riemannian cubics need (their momenta would not be "
                         "conserved); use SO3, R1…R6 or " POSE_GROUP " (plans)",
                         G->name);
    const int dim = p->plan.pose ? 6 : G->dim; /* of ξ0 and ξ_T */
    s = "hohp_sv";
    if (json_name(root, "scheme", 0, scheme_name_at, "scheme", &s) < 0) return -1;
    p->scheme = sp_hohp_scheme_by_name(s);
    s = "cayley";
    if (json_name(root, "retraction", 0, retraction_name_at, "retraction", &s) < 0) return -1;
    p->retraction = sp_retraction_by_name(s);
    s = "newton";
    if (json_name(root, "solver", 0, solver_name_at, "solver", &s) < 0) return -1;
    sp_hohp_solver_from_name(s, &p->solver);
    p->solver_tol = 1e-15;
    if (json_positive(root, "solver_tol", 0, &p->solver_tol) < 0) return -1;
    if (p->solver_tol >= 1e-2) return json_fail(root, "solver_tol", "must be below 1e-2");

    if (json_integer(root, "steps", 1, 1, PROBLEM_MAX_STEPS, &p->steps) != 1) return -1;
    if (json_group_element(root, "g0", G, p->g0) < 0) return -1;
    const cJSON *xi0 = cJSON_GetObjectItemCaseSensitive(root->node, "xi0");
    if (p->task == SP_TASK_PLAN && cJSON_IsString(xi0)) {
        if (strcmp(xi0->valuestring, "free") != 0)
            return json_fail(root, "xi0", "must be a body velocity [x, y, z] or \"free\" (got \"%s\")",
                             xi0->valuestring);
        p->plan.xi0_free = 1;
    } else if (json_vector(root, "xi0", 1, dim, p->xi0) != 1) {
        return -1;
    }
    if (!p->plan.pose && json_member(root, "x0").node)
        return json_fail(root, "x0", "only plans on %s take a start position", POSE_GROUP);
    if (p->plan.pose && json_vector(root, "x0", 0, 3, p->plan.x0) < 0) return -1;

    if (p->task == SP_TASK_SIMULATE) {
        static const char *const plan_only[] = {"targets",     "sigma",        "space",  "y0",        "initial_momenta",
                                                "optimizer",   "xiT",          "method", "tolerance", "max_iterations",
                                                "block_steps", "record_every", "output"};
        for (size_t i = 0; i < sizeof plan_only / sizeof plan_only[0]; ++i)
            if (json_member(root, plan_only[i]).node)
                return json_fail(root, plan_only[i], "only plan tasks take this field");
        if (json_vector(root, "p0", 1, G->dim, p->p0) != 1 || json_vector(root, "nu0", 1, G->dim, p->nu0) != 1)
            return -1;
        double h = 0.0;
        int has_T = json_positive(root, "T", 0, &p->T), has_h = json_positive(root, "h", 0, &h);
        if (has_T < 0 || has_h < 0) return -1;
        if (!has_T && !has_h) return json_fail(root, "T", "missing: give the horizon T or the step h");
        if (has_T && has_h && fabs(h * p->steps - p->T) > 1e-12 * p->T)
            return json_fail(root, "h", "is inconsistent with T/steps = %.17g", p->T / p->steps);
        if (!has_T) p->T = h * p->steps;
        if (!isfinite(p->T)) return json_fail(root, "h", "gives a horizon h*steps that overflows");
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
        if (json_direction(root, "y0", 1, p->cubic.y0) != 1) return -1;
    } else if (json_member(root, "y0").node) {
        return json_fail(root, "y0", "only sphere targets take y0");
    }
    int st = json_vector(root, "initial_momenta", 0, 2 * G->dim, p->initial_momenta);
    if (st < 0) return -1;
    p->has_initial_momenta = st == 1;
    if (read_optimizer(root, &p->optimizer) != 1) return -1;
    return read_targets(root, p);
}

/* Reads the problem in a parsed document and deletes the document. */
/* Reads the problem in a parsed document under the limits and deletes the document. */
static sp_status problem_from_document(cJSON *doc, const sp_limits *limits, sp_problem *out, sp_input_error *err)
{
    const sp_limits def = sp_limits_default();
    if (!limits) limits = &def;
    json_input root = {.node = doc, .err = err};
    /* the one array a problem allocates by its length: refused before it is read */
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(doc, "targets");
    int st = 1;
    if (cJSON_IsArray(targets) && cJSON_GetArraySize(targets) > limits->targets)
        st = json_fail(&root, "targets", "%d targets exceed the limit %ld (raise it with --max-targets)",
                       cJSON_GetArraySize(targets), limits->targets);
    if (st == 1) st = read_problem(&root, out);
    cJSON_Delete(doc);
    if (st == 1 && sp_problem_check_limits(out, limits, err) != SP_OK) st = -1;
    if (st != 1) {
        sp_problem_free(out);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status sp_problem_parse_limited(const char *text, size_t length, const sp_limits *limits, sp_problem *out,
                                   sp_input_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *doc;
    sp_status st = sp_json_parse_document(text, length, &doc, err);
    return st == SP_OK ? problem_from_document(doc, limits, out, err) : st;
}

sp_status sp_problem_read_file_limited(const char *path, const sp_limits *limits, sp_problem *out, sp_input_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *doc;
    sp_status st = sp_json_read_document(path, PROBLEM_FILE_MAX_BYTES, &doc, err);
    return st == SP_OK ? problem_from_document(doc, limits, out, err) : st;
}

sp_status sp_problem_parse(const char *text, size_t length, sp_problem *out, sp_input_error *err)
{
    return sp_problem_parse_limited(text, length, NULL, out, err);
}

sp_status sp_problem_read_file(const char *path, sp_problem *out, sp_input_error *err)
{
    return sp_problem_read_file_limited(path, NULL, out, err);
}

void sp_problem_free(sp_problem *p)
{
    if (!p) return;
    free(p->cubic.targets);
    p->cubic.targets = NULL;
    p->cubic.n_targets = 0;
}
