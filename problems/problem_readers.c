/* Readers shared by the problem files of every model family (problem_readers.h). */
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/problem_readers.h"

static const char *gradient_name_at(size_t i) { return i == 0 ? "adjoint" : i == 1 ? "central_difference" : NULL; }

int json_coordinates(const json_input *in, const char *key, int required, int n, const char *const *names, double *out)
{
    const cJSON *v = in->node ? cJSON_GetObjectItemCaseSensitive(in->node, key) : NULL;
    if (names && cJSON_IsArray(v) && cJSON_GetArraySize(v) != n) {
        char list[256];
        size_t len = 0;
        for (int i = 0; i < n && len < sizeof list; ++i)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
        return json_fail(in, key, "must be an array of %d numbers, one per coordinate: %s (got %d)", n, list,
                         cJSON_GetArraySize(v));
    }
    return json_vector(in, key, required, n, out);
}

/* Reads a unit quaternion (in the order of `format`) as a rotation matrix: q and −q are
 * one orientation. Components typed with two decimals leave the norm up to about 1e-2
 * from 1, and are normalised; farther (a norm of 2, or 0.9) is a typo or another
 * convention, refused unless the file says "normalize". */
#define QUATERNION_NORM_TOLERANCE 1e-2

int json_quaternion(const json_input *in, const char *key, int required, int format, double *R)
{
    double q[4];
    const int xyzw = format & SP_ROTATION_XYZW;
    int st = json_vector(in, key, required, 4, q);
    if (st != 1) return st;
    sp_quaternion_from_order(q, xyzw, q);
    const double norm = sp_vec_norm(4, q);
    if (!(fabs(norm - 1.0) <= QUATERNION_NORM_TOLERANCE) && !(format & SP_ROTATION_NORMALIZE) && norm > 0.0 &&
        isfinite(norm))
        return json_fail(in, key,
                         "must be a unit quaternion %s (its norm is %.6g, more than %g from 1); \"normalize\": "
                         "true takes any non-zero quaternion as its direction",
                         sp_quaternion_order_layout(xyzw), norm, QUATERNION_NORM_TOLERANCE);
    if (!sp_quaternion_to_rotation(q, R))
        return json_fail(in, key, "must be a non-zero quaternion %s", sp_quaternion_order_layout(xyzw));
    return 1;
}

/* Reads a rotation: a 3 x 3 matrix with |RᵀR − I| ≤ ROTATION_TOLERANCE and det R > 0,
 * rounded onto SO(3) by the polar iteration R ← ½(R + R⁻ᵀ) (quadratic near SO(3): six
 * rounds take 1e-4 to round-off) so typed-in digits lose nothing; or a unit quaternion.
 * The tolerance takes matrices printed with 5 significant digits (entries off by 5e-6,
 * |RᵀR − I| up to about 3e-5) and still refuses a shear of 1e-3; with "orthonormalize"
 * any matrix of positive determinant is taken as the nearest rotation (its polar factor,
 * the iteration run to convergence). */
#define ROTATION_TOLERANCE 1e-4

int json_rotation(const json_input *in, const char *key, int required, int format, double *R)
{
    const cJSON *v = in->node ? cJSON_GetObjectItemCaseSensitive(in->node, key) : NULL;
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 4 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)))
        return json_quaternion(in, key, required, format, R);
    int st = json_matrix(in, key, required, 3, R);
    if (st != 1) return st;
    double RtR[9], Rt[9], I[9];
    sp_mat_transpose(3, R, Rt);
    sp_mat_mul(3, 3, 3, Rt, R, RtR);
    sp_mat_identity(3, I);
    double err = sp_mat_dist(9, RtR, I);
    double det =
        R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
    const int project = format & SP_ROTATION_ORTHONORMALIZE;
    if (!(det > 0.0) || !isfinite(err) || (!(err <= ROTATION_TOLERANCE) && !project))
        return json_fail(in, key,
                         "must be a rotation matrix (|R^T R - I| = %.2g, at most %g; det = %.6g) or a quaternion %s%s",
                         err, ROTATION_TOLERANCE, det, sp_quaternion_order_layout(format & SP_ROTATION_XYZW),
                         det > 0.0 && !project ? "; \"orthonormalize\": true takes it as the nearest rotation" : "");
    for (int it = 0; it < 100; ++it) {
        /* R⁻ᵀ = cof(R)/det(R) */
        double C[9] = {R[4] * R[8] - R[5] * R[7], R[5] * R[6] - R[3] * R[8], R[3] * R[7] - R[4] * R[6],
                       R[2] * R[7] - R[1] * R[8], R[0] * R[8] - R[2] * R[6], R[1] * R[6] - R[0] * R[7],
                       R[1] * R[5] - R[2] * R[4], R[2] * R[3] - R[0] * R[5], R[0] * R[4] - R[1] * R[3]};
        double d = R[0] * C[0] + R[1] * C[1] + R[2] * C[2], change = 0.0;
        for (int k = 0; k < 9; ++k) {
            const double next = 0.5 * (R[k] + C[k] / d);
            change = fmax(change, fabs(next - R[k]));
            R[k] = next;
        }
        if (it >= 5 && change <= 1e-16) break;
    }
    return 1;
}

int read_optimizer(const json_input *root, sp_optimizer_settings *o)
{
    sp_optimizer_defaults(o);
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

/* Below this an absolute error at T is lost in the rounding of a long run. */
#define ERROR_TOLERANCE_MIN 1e-13

int read_steps(const json_input *root, sp_problem *p)
{
    int has_tol = json_positive(root, "error_tolerance", 0, &p->error_tolerance);
    if (has_tol < 0) return -1;
    if (!has_tol) return json_integer(root, "steps", 1, 1, PROBLEM_MAX_STEPS, &p->steps) == 1 ? 1 : -1;
    if (p->task != SP_TASK_SIMULATE)
        return json_fail(root, "error_tolerance", "only simulate tasks choose their step from an error tolerance");
    if (json_member(root, "steps").node)
        return json_fail(root, "steps", "give steps or error_tolerance, not both (error_tolerance chooses the steps)");
    if (p->error_tolerance < ERROR_TOLERANCE_MIN)
        return json_fail(root, "error_tolerance", "must be at least %g (rounding dominates below)",
                         ERROR_TOLERANCE_MIN);
    return 1;
}

int read_horizon(const json_input *root, sp_problem *p, const char *missing_key)
{
    if (p->error_tolerance > 0.0) {
        if (json_member(root, "h").node)
            return json_fail(root, "h", "is chosen from error_tolerance: give the horizon T alone");
        return json_positive(root, "T", 1, &p->T) == 1 ? 1 : -1;
    }
    double h = 0.0;
    int has_T = json_positive(root, "T", 0, &p->T), has_h = json_positive(root, "h", 0, &h);
    if (has_T < 0 || has_h < 0) return -1;
    if (!has_T && !has_h)
        return json_fail(root, missing_key, "missing: give %s",
                         strcmp(missing_key, "T") == 0 ? "the horizon T or the step h" : "the step h or the horizon T");
    if (has_T && has_h && fabs(h * p->steps - p->T) > 1e-12 * p->T)
        return json_fail(root, "h", "is inconsistent with T/steps = %.17g", p->T / p->steps);
    if (!has_T) p->T = h * p->steps;
    if (!isfinite(p->T)) return json_fail(root, "h", "gives a horizon h*steps that overflows");
    return 1;
}

/* The Newton solvers, the first two of sp_stage_solver_at. */
static const char *newton_stage_solver_at(size_t i)
{
    return i <= SP_STAGE_SIMPLIFIED_NEWTON ? sp_stage_solver_at(i) : NULL;
}

static int read_solver_among(const json_input *root, sp_problem *p, json_name_at_fn name_at)
{
    const char *name = sp_stage_solver_at((size_t)p->stage_solver);
    if (json_name(root, "solver", 0, name_at, "solver", &name) < 0) return -1;
    for (size_t i = 0; name_at(i); ++i)
        if (strcmp(name, name_at(i)) == 0) p->stage_solver = (sp_stage_solver)i;
    return 1;
}

int read_stage_solver(const json_input *root, sp_problem *p)
{
    return read_solver_among(root, p, newton_stage_solver_at);
}

int read_gauss_stage_solver(const json_input *root, sp_problem *p)
{
    return read_solver_among(root, p, sp_stage_solver_at);
}

int read_record_every(const json_input *root, sp_problem *p)
{
    return json_integer(root, "record_every", 0, 1, PROBLEM_MAX_STEPS, &p->record_every) < 0 ? -1 : 1;
}

/* The members of "params": the parameters, and "potential" for a model that has some. */
static int only_param_keys(const json_input *in, sp_param_spec s)
{
    const char *keys[SP_PARAM_MAX + 2];
    size_t k = 0;
    for (size_t i = 0; i < s.n_params; ++i) keys[k++] = s.params[i].name;
    if (s.potential_names) keys[k++] = "potential";
    keys[k] = NULL;
    return json_only_keys(in, keys);
}

static int read_potential(const json_input *in, sp_param_spec s, int *potential)
{
    const char *name = NULL;
    int st = json_string(in, "potential", 0, &name);
    if (st != 1) return st < 0 ? -1 : 1;
    char why[256];
    *potential = sp_param_potential(s, name, why, sizeof why);
    return *potential < 0 ? json_fail(in, "potential", "%s", why) : 1;
}

/* What the "params" object says, over the defaults in v. */
static int read_given_params(const json_input *in, sp_param_spec s, sp_param_values *v)
{
    if (json_require_object(in) != 1 || only_param_keys(in, s) != 1) return -1;
    for (size_t i = 0; i < s.n_params; ++i) {
        const sp_param *p = &s.params[i];
        double *x = v->value + sp_param_offset(s, i);
        int st = p->size == 1 ? json_number(in, p->name, 0, x) : json_vector(in, p->name, 0, p->size, x);
        if (st < 0) return -1;
        if (st == 1) v->given |= 1u << i;
    }
    return s.potential_names ? read_potential(in, s, &v->potential) : 1;
}

int read_params(const json_input *root, sp_param_spec s, sp_param_values *v)
{
    sp_params_default(s, v);
    json_input in = json_member(root, "params");
    if (in.node && !cJSON_IsNull(in.node) && read_given_params(&in, s, v) != 1) return -1;
    char why[256];
    int bad = sp_params_check(s, v, why, sizeof why);
    return bad < 0 ? 1 : json_fail(&in, s.params[bad].name, "%s", why);
}
