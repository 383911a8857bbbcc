/* Problem files of the holonomic models (spherical_pendulum, planar_pendulum, heavy_top,
 * s3_contact): simulations with any scheme the model runs with.
 *
 * The initial state must lie on T*Q: q0 on the constraint and p0 tangent to it, each to
 * 1e-9 (relative); within that it is rounded onto T*Q exactly. A state further off is an
 * error naming q0 or p0, unless the file sets "project": true — then it is projected
 * (radially, then the momentum onto the tangent space) and the result says by how much.
 * The heavy top starts from R0 (a rotation, rounded onto SO(3)) and the body angular
 * velocity omega0, which give a state on T*SO(3) in either form. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/custom/sp_custom_model.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"
#include "lie/sp_linalg.h"

#define ON_MANIFOLD_TOL 1e-9

static const char *scheme_name_at(size_t i) { return sp_hol_scheme_at(i) ? sp_hol_scheme_at(i)->name : NULL; }
static const char *retraction_name_at(size_t i) { return sp_retraction_at(i) ? sp_retraction_at(i)->name : NULL; }

static int forbid(const json_input *root, const char *const *fields, const char *fmt, const char *arg)
{
    for (; *fields; ++fields)
        if (json_member(root, *fields).node) return json_fail(root, *fields, fmt, arg);
    return 1;
}

/* "gains": {"k1": 50, "k2": 50, "k3": 50, "k4": 50}; absent members are 0. */
static int read_gains(const json_input *root, const sp_hol_model_type *type, sp_feedback_gains *k)
{
    json_input in = json_member(root, "gains");
    if (!in.node || cJSON_IsNull(in.node))
        return json_fail(root, "gains",
                         "missing: feedback schemes need the gains {\"k1\", \"k2\", \"k3\", \"k4\"} "
                         "(write {} for the Dirac field without feedback)");
    if (json_require_object(&in) != 1) return -1;
    static const char *const keys[] = {"k1", "k2", "k3", "k4", NULL};
    if (json_only_keys(&in, keys) != 1) return -1;
    double *dest[4] = {&k->k1, &k->k2, &k->k3, &k->k4};
    for (int i = 0; i < 4; ++i) {
        *dest[i] = 0.0;
        int st = json_number(&in, keys[i], 0, dest[i]);
        if (st < 0) return -1;
        if (*dest[i] < 0.0) return json_fail(&in, keys[i], "must not be negative (got %.17g)", *dest[i]);
        if (i == 3 && st == 1 && type != &sp_hol_spherical_pendulum)
            return json_fail(&in, "k4", "%s declares no first integral to feed back (k4 is for L3)", type->name);
    }
    return 1;
}

static int read_scheme(const json_input *root, sp_problem *p)
{
    sp_hol_problem *v = &p->hol;
    const char *name = v->type == &sp_hol_s3_contact ? "prop7" : "rattle";
    if (json_name(root, "scheme", 0, scheme_name_at, "scheme", &name) < 0) return -1;
    v->scheme = sp_hol_scheme_by_name(name);
    if (!sp_hol_model_accepts(v->type, v->scheme)) {
        char known[400] = "";
        for (size_t i = 0; sp_hol_scheme_at(i); ++i)
            if (sp_hol_model_accepts(v->type, sp_hol_scheme_at(i))) {
                if (known[0]) strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, sp_hol_scheme_at(i)->name, sizeof known - strlen(known) - 1);
            }
        return json_fail(root, "scheme", "%s does not run with '%s' (its schemes: %s)", v->type->name, name, known);
    }
    const sp_hol_family fam = v->scheme->family;
    static const char *const retraction[] = {"retraction", NULL}, *const gains[] = {"gains", NULL},
                             *const tolerances[] = {"rtol", "atol", NULL}, *const solver[] = {"solver_tol", NULL};
    if (fam != SP_HOL_FAMILY_LIE &&
        forbid(root, retraction, "only lie_rattle takes a retraction (scheme %s)", name) != 1)
        return -1;
    if (fam != SP_HOL_FAMILY_FEEDBACK && forbid(root, gains, "only feedback schemes take gains (scheme %s)", name) != 1)
        return -1;
    if (strcmp(name, "feedback_dop853") != 0 &&
        forbid(root, tolerances, "only feedback_dop853 takes error tolerances (scheme %s)", name) != 1)
        return -1;
    static const char *const tolerance[] = {"error_tolerance", NULL};
    if (strcmp(name, "feedback_dop853") == 0 &&
        forbid(root, tolerance, "%s chooses its own steps from rtol and atol: error_tolerance is for fixed-step schemes",
               name) != 1)
        return -1;
    if (!v->scheme->implicit && forbid(root, solver, "scheme %s is explicit: it has no implicit solve", name) != 1)
        return -1;
    const char *r = v->retraction->name;
    if (json_name(root, "retraction", 0, retraction_name_at, "retraction", &r) < 0) return -1;
    v->retraction = sp_retraction_by_name(r);
    if (json_positive(root, "solver_tol", 0, &p->solver_tol) < 0) return -1;
    if (p->solver_tol >= 1e-2) return json_fail(root, "solver_tol", "must be below 1e-2");
    if (fam == SP_HOL_FAMILY_FEEDBACK && read_gains(root, v->type, &v->gains) != 1) return -1;
    if (json_positive(root, "rtol", 0, &v->rtol) < 0 || json_positive(root, "atol", 0, &v->atol) < 0) return -1;
    return 1;
}

static double max_change(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static int read_initial_state(const json_input *root, sp_problem *p)
{
    sp_hol_problem *v = &p->hol;
    sp_hol_bound b;
    if (sp_hol_model_bind(v->type, &v->params, &b) != SP_OK)
        return json_fail(root, "params", "the %s model refuses these parameters", v->type->name);
    if (v->type->initial == SP_HOL_INITIAL_ROTATION) {
        static const char *const qp[] = {"q0", "p0", "project", NULL};
        if (forbid(root, qp, "%s starts from R0 and omega0", v->type->name) != 1) return -1;
        if (json_rotation(root, "R0", 1, 0, v->R0) != 1 || json_vector(root, "omega0", 1, 3, v->omega0) != 1) return -1;
        sp_heavy_top_matrix_state(&b.top, v->R0, v->omega0, v->q0, v->p0);
        return 1;
    }
    static const char *const rotation[] = {"R0", "omega0", NULL};
    if (forbid(root, rotation, "only the heavy top starts from R0 and omega0 (%s takes q0 and p0)", v->type->name) != 1)
        return -1;
    const int n = v->type->n;
    if (json_coordinates(root, "q0", 1, n, v->type->coordinates, v->q0) != 1 ||
        json_coordinates(root, "p0", 1, n, v->type->coordinates, v->p0) != 1)
        return -1;
    if (json_boolean(root, "project", 0, &v->projected) < 0) return -1;
    double off_q, off_p;
    if (sp_hol_off_manifold(&b, v->q0, v->p0, &off_q, &off_p) != SP_OK)
        return json_fail(root, "q0", "the model cannot be evaluated at this state");
    if (!v->projected && !(off_q <= ON_MANIFOLD_TOL))
        return json_fail(root, "q0",
                         "is off the constraint (relative |g(q0)| = %.3g > %.0e): give a point on it, or set "
                         "\"project\": true",
                         off_q, ON_MANIFOLD_TOL);
    if (!v->projected && !(off_p <= ON_MANIFOLD_TOL))
        return json_fail(root, "p0",
                         "is not tangent to the constraint at q0 (relative |G(q0) M^-1 p0| = %.3g > %.0e): give a "
                         "tangent momentum, or set \"project\": true",
                         off_p, ON_MANIFOLD_TOL);
    double q[SP_HOL_MAX_N], pp[SP_HOL_MAX_N];
    sp_vec_copy(n, v->q0, q);
    sp_vec_copy(n, v->p0, pp);
    if (sp_hol_project(&b, v->q0, v->p0) != SP_OK) return json_fail(root, "q0", "must not be the origin");
    v->projection_q = max_change(n, q, v->q0);
    v->projection_p = max_change(n, pp, v->p0);
    return 1;
}

int hol_read_problem(const json_input *root, sp_problem *p, const sp_hol_model_type *type, const char *const *more_keys)
{
    sp_hol_problem *v = &p->hol;
    p->kind = SP_KIND_HOLONOMIC;
    v->type = type;
    static const char *const keys[] = {"task",    "model",      "description",  "params",
                                       "scheme",  "retraction", "solver_tol",   "gains",
                                       "rtol",    "atol",       "q0",           "p0",
                                       "project", "R0",         "omega0",       "h",
                                       "T",       "steps",      "record_every", "symplecticity_defect",
                                       "error_tolerance", NULL};
    if (json_only_keys_of(root, keys, more_keys) != 1) return -1;
    if (p->custom)
        v->params = p->custom->prm; /* read with the model */
    else if (read_params(root, SP_PARAM_SPEC(v->type), &v->params) != 1)
        return -1;
    if (read_scheme(root, p) != 1) return -1;
    if (read_steps(root, p) != 1) return -1;
    if (read_horizon(root, p, "h") != 1) return -1;
    if (read_record_every(root, p) != 1) return -1;
    if (json_boolean(root, "symplecticity_defect", 0, &v->symplecticity_defect) < 0) return -1;
    if (v->symplecticity_defect && !v->scheme->one_step)
        return json_fail(root, "symplecticity_defect",
                         "%s is a two-step method: it has no one-step symplecticity defect", v->scheme->name);
    return read_initial_state(root, p);
}

static int read_holonomic(const json_input *root, sp_problem *p)
{
    return hol_read_problem(root, p, sp_hol_model_by_name(p->model), NULL);
}

/* The notes name the schemes the model runs with. */
static int hol_model(size_t i, sp_model_info *out)
{
    const sp_hol_model_type *t = sp_hol_model_at(i);
    if (!problem_family_model(out, t ? t->name : NULL, t ? t->description : NULL, "schemes:")) return 0;
    size_t used = strlen(out->notes);
    for (size_t j = 0; sp_hol_scheme_at(j) && used < sizeof out->notes; ++j)
        if (sp_hol_model_accepts(t, sp_hol_scheme_at(j)))
            used += (size_t)snprintf(out->notes + used, sizeof out->notes - used, " %s", sp_hol_scheme_at(j)->name);
    return 1;
}

const problem_family holonomic_problem_family = {"holonomic", SP_KIND_FLAG(SP_KIND_HOLONOMIC), SP_TASK_FLAG(SP_TASK_SIMULATE), hol_model,
                                                 read_holonomic};
