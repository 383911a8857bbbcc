/* Problem files of the vakonomic models (heisenberg, parking, and expression models of
 * kind vakonomic): simulate and endpoint plans. */
#include <math.h>
#include <stdio.h>

#include "problems/custom/sp_custom_model.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

_Static_assert(2 * SP_LIE_MAX_DIM >= SP_VAK_MAX_N, "initial_momenta must hold p0 of every vakonomic model");

static const char *scheme_name_at(size_t i) { return i == 0 ? "gauss" : NULL; }

/* p0 directly, or from a velocity and multiplier by p = M v − Gᵀλ; the velocity must
 * satisfy the constraints G(q0) v0 = 0. */
static int read_initial_momentum(const json_input *root, sp_problem *p)
{
    sp_vak_problem *v = &p->vak;
    const int n = v->type->n, m = v->type->m;
    int has_p = json_member(root, "p0").node != NULL, has_v = json_member(root, "v0").node != NULL;
    if (has_p && (has_v || json_member(root, "lambda0").node))
        return json_fail(root, has_v ? "v0" : "lambda0", "give either p0, or v0 and lambda0, not both");
    if (has_p) return json_vector(root, "p0", 1, n, v->p0);
    if (!has_v) return json_fail(root, "p0", "missing: give p0, or v0 and lambda0");
    double v0[SP_VAK_MAX_N], lam0[SP_VAK_MAX_M], mass[SP_VAK_MAX_N], G[SP_VAK_MAX_M * SP_VAK_MAX_N];
    if (json_vector(root, "v0", 1, n, v0) != 1 || json_vector(root, "lambda0", 1, m, lam0) != 1) return -1;
    v->type->mass(&v->params, mass);
    if (v->type->constraints(v->q0, G, NULL, NULL, &v->params) != 0)
        return json_fail(root, "q0", "the model cannot evaluate its constraints here");
    double worst = 0.0;
    for (int j = 0; j < m; ++j) worst = fmax(worst, fabs(sp_vec_dot(n, G + j * n, v0)));
    if (!(worst <= 1e-9 * (1.0 + sp_vec_norm(n, v0))))
        return json_fail(root, "v0", "violates the constraints at q0 (|G(q0) v0| = %.3g)", worst);
    for (int i = 0; i < n; ++i) {
        v->p0[i] = mass[i] * v0[i];
        for (int j = 0; j < m; ++j) v->p0[i] -= G[j * n + i] * lam0[j];
    }
    if (!sp_vec_isfinite(n, v->p0)) return json_fail(root, "v0", "gives a non-finite momentum");
    return 1;
}

static int forbid(const json_input *root, const char *const *fields, const char *why)
{
    for (; *fields; ++fields)
        if (json_member(root, *fields).node) return json_fail(root, *fields, "%s", why);
    return 1;
}

int vak_read_problem(const json_input *root, sp_problem *p, const sp_vak_model_type *type, const char *const *more_keys)
{
    sp_vak_problem *v = &p->vak;
    p->kind = SP_KIND_VAKONOMIC;
    v->type = type;
    const int n = v->type->n;
    static const char *const keys[] = {"task",
                                       "model",
                                       "description",
                                       "params",
                                       "q0",
                                       "p0",
                                       "v0",
                                       "lambda0",
                                       "scheme",
                                       "stages",
                                       "h",
                                       "T",
                                       "steps",
                                       "error_tolerance",
                                       "solver",
                                       "solver_tol",
                                       "symplecticity_defect",
                                       "q1",
                                       "initial_momenta",
                                       "optimizer",
                                       "tolerance",
                                       "starts",
                                       "record_every",
                                       NULL};
    if (json_only_keys_of(root, keys, more_keys) != 1) return -1;
    if (p->custom)
        v->params = p->custom->prm; /* read with the model */
    else if (read_params(root, SP_PARAM_SPEC(v->type), &v->params) != 1)
        return -1;
    const char *scheme = "gauss";
    if (json_name(root, "scheme", 0, scheme_name_at, "scheme", &scheme) < 0) return -1;
    if (json_integer(root, "stages", 0, 1, 6, &v->stages) < 0) return -1;
    if (read_gauss_stage_solver(root, p) != 1 || json_positive(root, "solver_tol", 0, &p->solver_tol) < 0) return -1;
    if (p->solver_tol >= 1e-2) return json_fail(root, "solver_tol", "must be below 1e-2");
    if (read_steps(root, p) != 1) return -1;
    if (json_coordinates(root, "q0", 1, n, v->type->coordinates, v->q0) != 1 || read_record_every(root, p) != 1)
        return -1;

    if (p->task == SP_TASK_SIMULATE) {
        static const char *const plan_only[] = {"q1", "initial_momenta", "optimizer", "tolerance", "starts", NULL};
        if (forbid(root, plan_only, "only plan tasks take this field") != 1) return -1;
        if (read_initial_momentum(root, p) != 1) return -1;
        if (json_boolean(root, "symplecticity_defect", 0, &v->symplecticity_defect) < 0) return -1;
        if (read_horizon(root, p, "h") != 1) return -1;
        return 1;
    }

    static const char *const momenta[] = {"p0", "v0", "lambda0", NULL}, *const step[] = {"h", NULL},
                             *const simulate_only[] = {"symplecticity_defect", NULL};
    if (forbid(root, momenta, "plan tasks find the momenta; give a starting guess as initial_momenta") != 1 ||
        forbid(root, step, "plan tasks take the horizon T, not h") != 1 ||
        forbid(root, simulate_only, "only simulate tasks take this field") != 1)
        return -1;
    if (json_vector(root, "q1", 1, n, v->q1) != 1 || json_positive(root, "T", 1, &p->T) != 1) return -1;
    int st = json_vector(root, "initial_momenta", 0, n, p->initial_momenta);
    if (st < 0) return -1;
    p->has_initial_momenta = st == 1;
    if (json_positive(root, "tolerance", 0, &v->tolerance) < 0 ||
        json_integer(root, "starts", 0, 1, 10000, &v->starts) < 0)
        return -1;
    return read_optimizer(root, &p->optimizer);
}

static int read_vakonomic(const json_input *root, sp_problem *p)
{
    return vak_read_problem(root, p, sp_vak_model_by_name(p->model), NULL);
}

static int vak_model(size_t i, sp_model_info *out)
{
    const sp_vak_model_type *t = sp_vak_model_at(i);
    return problem_family_model(out, t ? t->name : NULL, t ? t->description : NULL,
                                "scheme gauss, stages 1-6, solver newton|simplified_newton|fixed_point|auto");
}

const problem_family vakonomic_problem_family = {"vakonomic", SP_KIND_FLAG(SP_KIND_VAKONOMIC), SP_TASK_FLAG(SP_TASK_PLAN) | SP_TASK_FLAG(SP_TASK_SIMULATE),
                                                 vak_model, read_vakonomic};
