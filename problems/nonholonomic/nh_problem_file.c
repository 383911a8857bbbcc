/* Problem files of the nonholonomic models (sp_nh_problem.h): simulations with the Lobatto
 * IIIA–IIIB method, on vector spaces (knife_edge, rolling_disk, contact_oscillator,
 * chaplygin_sleigh) and on Lie groups (sleigh_se2, suslov).
 *
 * The initial state must satisfy the constraint: |Ψ(q0, p0)| (vector spaces) or
 * |⟨α(g0), ξ0⟩| (groups) at most 1e-9·max(1, |velocity|); within that it is projected
 * onto the constraint exactly (along M⁻¹μᵀ, resp. 𝕁⁻¹αᵀ), so that the run starts at
 * round-off. A velocity is mapped to the momentum by p = M(q0) v0 (μ0 = 𝕁 ξ0).
 *
 * Expression models of kind nonholonomic (problems/custom/) are read here too, through
 * nh_read_problem with the model's table: they start from q0 and p0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/custom/sp_custom_model.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

#define ON_CONSTRAINT_TOL 1e-9

_Static_assert(SP_NH_MAX_N <= SP_LIE_MAX_ELEM, "the bound sizes below assume small models");

static const char *scheme_name_at(size_t i) { return i == 0 ? "lobatto" : NULL; }
static const char *lambda1_name_at(size_t i) { return i == 0 ? "carry" : i == 1 ? "recompute" : NULL; }
static const char *retraction_name_at(size_t i) { return sp_retraction_at(i) ? sp_retraction_at(i)->name : NULL; }

static int forbid(const json_input *root, const char *const *fields, const char *fmt, const char *arg)
{
    for (; *fields; ++fields)
        if (json_member(root, *fields).node) return json_fail(root, *fields, fmt, arg);
    return 1;
}

/* ------------------------------------------------------------ settings -- */

/* scheme, stages, lambda1, solver (vector spaces), solver_tol, steps, h / T, record_every. */
static int read_settings(const json_input *root, sp_problem *p, int lie)
{
    sp_nh_problem *v = &p->nh;
    const char *name = "lobatto";
    if (json_name(root, "scheme", 0, scheme_name_at, "scheme", &name) < 0) return -1;
    const int smin = lie ? SP_NH_LIE_MIN_STAGES : SP_NH_MIN_STAGES, smax = lie ? SP_NH_LIE_MAX_STAGES : SP_NH_MAX_STAGES;
    if (json_integer(root, "stages", 0, smin, smax, &v->stages) < 0) return -1;
    name = lie ? "recompute" : "carry";
    if (json_name(root, "lambda1", 0, lambda1_name_at, "lambda1 rule", &name) < 0) return -1;
    v->recompute = strcmp(name, "recompute") == 0;
    if (!lie && read_stage_solver(root, p) != 1) return -1;
    if (json_positive(root, "solver_tol", 0, &p->solver_tol) < 0) return -1;
    if (p->solver_tol >= 1e-2) return json_fail(root, "solver_tol", "must be below 1e-2");
    if (read_steps(root, p) != 1) return -1;
    if (read_horizon(root, p, "h") != 1) return -1;
    if (read_record_every(root, p) != 1) return -1;
    if (lie) {
        const char *r = v->retraction->name;
        if (json_name(root, "retraction", 0, retraction_name_at, "retraction", &r) < 0) return -1;
        v->retraction = sp_retraction_by_name(r);
    }
    return 1;
}

/* ------------------------------------------------- vector-space initial state -- */

/* Moves p onto Ψ(q, p) = 0 along H_pp μᵀ (exact for H quadratic in p); *psi_max is
 * max |Ψ| before, *v_norm |H_p| before. Returns 0, or −1 when the model fails here. */
static int project_momentum(const sp_nh_model *md, const double *q, double *p, double *psi_max, double *v_norm)
{
    const int n = md->n, m = md->m;
    double Hp[SP_NH_MAX_N], Hpp[SP_NH_MAX_N * SP_NH_MAX_N], mu[SP_NH_MAX_M * SP_NH_MAX_N];
    sp_nh_hamiltonian_out out = {.Hp = Hp, .Hpp = Hpp};
    if (md->hamiltonian(q, p, &out, md->params) != 0 || md->constraints(q, mu, NULL, md->params) != 0) return -1;
    double psi[SP_NH_MAX_M], W[SP_NH_MAX_M * SP_NH_MAX_N], A[SP_NH_MAX_M * SP_NH_MAX_M];
    int piv[SP_NH_MAX_M];
    sp_mat_vec(m, n, mu, Hp, psi);
    *psi_max = 0.0;
    for (int a = 0; a < m; ++a) *psi_max = fmax(*psi_max, fabs(psi[a]));
    *v_norm = sp_vec_norm(n, Hp);
    for (int a = 0; a < m; ++a) sp_mat_vec(n, n, Hpp, mu + a * n, W + a * n); /* rows of (H_pp μᵀ)ᵀ */
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) A[a * m + b] = sp_vec_dot(n, mu + a * n, W + b * n);
    if (!sp_vec_isfinite(m, psi) || sp_linsolve(m, A, psi, 1, piv, 0) != SP_OK) return -1;
    for (int a = 0; a < m; ++a) sp_vec_axpy(n, -psi[a], mu + a * n, p);
    return sp_vec_isfinite(n, p) ? 0 : -1;
}

static int read_vector_state(const json_input *root, sp_problem *p)
{
    sp_nh_problem *v = &p->nh;
    const sp_nh_model_type *type = v->type;
    const int n = type->n;
    if (json_coordinates(root, "q0", 1, n, type->coordinates, v->q0) != 1) return -1;
    int has_p = json_member(root, "p0").node != NULL, has_v = json_member(root, "v0").node != NULL;
    if (has_p && has_v) return json_fail(root, "v0", "give either p0 or v0, not both");
    if (!has_p && !has_v)
        return json_fail(root, "p0", p->custom ? "missing required field" : "missing: give p0, or the velocity v0");
    const char *key = has_p ? "p0" : "v0";
    if (has_p) {
        if (json_coordinates(root, "p0", 1, n, type->coordinates, v->p0) != 1) return -1;
    } else {
        double v0[SP_NH_MAX_N], M[SP_NH_MAX_N * SP_NH_MAX_N];
        if (json_coordinates(root, "v0", 1, n, type->coordinates, v0) != 1) return -1;
        type->mass_matrix(v->q0, &v->params, M);
        sp_mat_vec(n, n, M, v0, v->p0);
        if (!sp_vec_isfinite(n, v->p0)) return json_fail(root, "v0", "gives a non-finite momentum M(q0) v0");
    }
    sp_nh_model md;
    sp_nh_model_bind(type, &v->params, &md);
    double psi, speed;
    if (project_momentum(&md, v->q0, v->p0, &psi, &speed) != 0)
        return json_fail(root, key, "the model cannot be evaluated at (q0, %s)", key);
    if (!(psi <= ON_CONSTRAINT_TOL * fmax(1.0, speed)))
        return json_fail(root, key,
                         has_p ? "violates the constraint at q0 (|Psi(q0, p0)| = %.3g; Psi = mu(q) H_p)"
                               : "violates the constraint at q0 (|mu(q0) v0| = %.3g)",
                         psi);
    return 1;
}

/* ------------------------------------------------------ Lie-group initial state -- */

/* μ = 𝕁(ξ) and D𝕁 (dim x dim). */
static int lie_inertia(const sp_nh_lie_model *md, const double *xi, double *mu, double *D)
{
    const int d = md->group->dim;
    if (md->inertia) return md->inertia(xi, mu, D, md->params);
    sp_vec_zero(d * d, D);
    for (int i = 0; i < d; ++i) D[i * d + i] = md->inertia_diag[i], mu[i] = md->inertia_diag[i] * xi[i];
    return 0;
}

/* Moves ξ onto α(g) ξ = 0 along 𝕁⁻¹αᵀ and sets μ = 𝕁(ξ); *psi_max is max |αξ| before. */
static int project_velocity(const sp_nh_lie_model *md, const double *g, double *xi, double *mu, double *psi_max)
{
    const int d = md->group->dim, m = md->m;
    double alpha[SP_NH_MAX_M * SP_LIE_MAX_DIM], D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], W[SP_NH_MAX_M * SP_LIE_MAX_DIM];
    double psi[SP_NH_MAX_M], A[SP_NH_MAX_M * SP_NH_MAX_M], LU[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    int piv[SP_LIE_MAX_DIM];
    if (m > SP_NH_MAX_M || md->constraints(g, alpha, NULL, md->params) != 0 || lie_inertia(md, xi, mu, D) != 0)
        return -1;
    sp_mat_vec(m, d, alpha, xi, psi);
    *psi_max = 0.0;
    for (int a = 0; a < m; ++a) *psi_max = fmax(*psi_max, fabs(psi[a]));
    sp_vec_copy(m * d, alpha, W);
    sp_vec_copy(d * d, D, LU);
    if (sp_linsolve(d, LU, W, m, piv, 0) != SP_OK) return -1; /* W_a = 𝕁⁻¹ α_aᵀ */
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) A[a * m + b] = sp_vec_dot(d, alpha + a * d, W + b * d);
    if (!sp_vec_isfinite(m, psi) || sp_linsolve(m, A, psi, 1, piv, 0) != SP_OK) return -1;
    for (int a = 0; a < m; ++a) sp_vec_axpy(d, -psi[a], W + a * d, xi);
    if (lie_inertia(md, xi, mu, D) != 0) return -1;
    return sp_vec_isfinite(d, mu) ? 0 : -1;
}

/* The sleigh's g0: [x, y, theta], or an SE(2) matrix (rotation block within 1e-6 of
 * orthogonal, det > 0, last row (0, 0, 1)), rounded onto SE(2). */
static int read_se2(const json_input *root, double *g)
{
    json_input in = json_member(root, "g0");
    if (in.node && cJSON_IsNull(in.node)) in.node = NULL; /* null means the default, as everywhere */
    double q[3] = {0, 0, 0}, mu[3], zero[3] = {0, 0, 0};
    if (in.node && cJSON_IsArray(in.node) && cJSON_GetArraySize(in.node) == 3 && cJSON_IsArray(in.node->child)) {
        double G[9];
        if (json_matrix(root, "g0", 1, 3, G) != 1) return -1;
        double e = sp_nh_lie_sleigh_se2.group_error(G), det = G[0] * G[4] - G[1] * G[3];
        if (!(e <= 1e-6) || !(det > 0.0))
            return json_fail(root, "g0",
                             "must be an SE(2) matrix [[cos, -sin, x], [sin, cos, y], [0, 0, 1]] (defect %.2g, "
                             "det %.6g)",
                             e, det);
        q[0] = G[2], q[1] = G[5], q[2] = atan2(G[3], G[0]);
    } else if (in.node) {
        if (!cJSON_IsArray(in.node) || cJSON_GetArraySize(in.node) != 3)
            return json_fail(root, "g0", "must be [x, y, theta] or a 3 x 3 SE(2) matrix");
        if (json_vector(root, "g0", 1, 3, q) != 1) return -1;
    }
    sp_sleigh_se2_from_coordinates(q, zero, g, mu);
    return 1;
}

static int read_lie_state(const json_input *root, sp_problem *p)
{
    sp_nh_problem *v = &p->nh;
    const sp_nh_lie_type *type = v->lie_type;
    sp_nh_lie_bound b;
    if (type->bind(&v->lie_params, &b) != SP_OK)
        return json_fail(root, "params", "the %s model refuses these parameters", type->name);
    const sp_group *G = b.model.group;
    G->identity(G, v->g0);
    if (type == &sp_nh_lie_sleigh_se2) {
        if (read_se2(root, v->g0) != 1) return -1;
    } else if (json_rotation(root, "g0", 0, 0, v->g0) < 0) {
        return -1;
    }
    int has_mu = json_member(root, "mu0").node != NULL, has_xi = json_member(root, "xi0").node != NULL;
    if (has_mu && has_xi) return json_fail(root, "xi0", "give either mu0 or xi0, not both");
    if (!has_mu && !has_xi)
        return json_fail(root, "mu0", "missing: give the body momentum mu0, or the body velocity xi0");
    const char *key = has_mu ? "mu0" : "xi0";
    double x[SP_LIE_MAX_DIM], xi[SP_LIE_MAX_DIM];
    if (json_vector(root, key, 1, G->dim, x) != 1) return -1;
    if (has_mu) {
        if (sp_nh_lie_velocity(&b.model, x, NULL, xi) != SP_OK)
            return json_fail(root, "mu0", "gives no body velocity (the inertia cannot be inverted)");
    } else {
        sp_vec_copy(G->dim, x, xi);
    }
    double psi;
    if (project_velocity(&b.model, v->g0, xi, v->mu0, &psi) != 0)
        return json_fail(root, key, "the model cannot be evaluated at this state");
    if (!(psi <= ON_CONSTRAINT_TOL * fmax(1.0, sp_vec_norm(G->dim, xi))))
        return json_fail(root, key, "violates the constraint (|alpha(g0) xi0| = %.3g)", psi);
    return 1;
}

/* ------------------------------------------------------------------ reader -- */

/* The vector-space reader of a model type (a built-in one, or an expression model's when
 * p->custom is set: its parameters are already read, and it starts from q0 and p0). */
int nh_read_problem(const json_input *root, sp_problem *p, const sp_nh_model_type *type, const char *const *more_keys)
{
    sp_nh_problem *v = &p->nh;
    v->type = type;
    v->lie_type = NULL;
    p->kind = SP_KIND_NONHOLONOMIC;
    static const char *const lie_only[] = {"g0", "mu0", "xi0", "retraction", NULL}, *const velocity[] = {"v0", NULL};
    char takes[96];
    snprintf(takes, sizeof takes, "%s takes q0 and p0%s", type->name, p->custom ? "" : " or v0");
    if (forbid(root, lie_only, "only the Lie-group models (sleigh_se2, suslov) take this field (%s)", takes) != 1)
        return -1;
    if (p->custom &&
        forbid(root, velocity, "%s models start from q0 and p0 (write the momentum p0 = M(q0) v0)", type->name) != 1)
        return -1;
    static const char *const keys[] = {"task",   "model",      "description",  "params",         "q0",
                                       "p0",     "v0",         "scheme",       "stages",         "lambda1",
                                       "solver", "solver_tol", "h",            "T",              "steps",
                                       "record_every", "error_tolerance", NULL};
    if (json_only_keys_of(root, keys, more_keys) != 1) return -1;
    if (p->custom)
        v->params = p->custom->prm; /* read with the model */
    else if (read_params(root, SP_PARAM_SPEC(type), &v->params) != 1)
        return -1;
    if (read_settings(root, p, 0) != 1) return -1;
    return read_vector_state(root, p);
}

static int read_lie(const json_input *root, sp_problem *p)
{
    sp_nh_problem *v = &p->nh;
    v->type = NULL;
    v->lie_type = sp_nh_lie_type_by_name(p->model);
    p->kind = SP_KIND_NONHOLONOMIC_LIE;
    static const char *const vector_state[] = {"q0", "p0", "v0", NULL};
    if (forbid(root, vector_state, "%s starts from g0 and mu0 or xi0", p->model) != 1) return -1;
    static const char *const solver[] = {"solver", NULL};
    if (forbid(root, solver, "%s solves its steps by full Newton (the models in coordinates take a solver)",
               p->model) != 1)
        return -1;
    static const char *const keys[] = {"task", "model",  "description", "params",       "g0",         "mu0",
                                       "xi0",  "scheme", "stages",      "lambda1",      "retraction", "solver_tol",
                                       "h",    "T",      "steps",       "record_every", "error_tolerance", NULL};
    if (json_only_keys(root, keys) != 1) return -1;
    if (read_params(root, SP_PARAM_SPEC(v->lie_type), &v->lie_params) != 1) return -1;
    if (read_settings(root, p, 1) != 1) return -1;
    return read_lie_state(root, p);
}

static int read_nonholonomic(const json_input *root, sp_problem *p)
{
    const sp_nh_model_type *type = sp_nh_model_by_name(p->model);
    return type ? nh_read_problem(root, p, type, NULL) : read_lie(root, p);
}

/* The models on vector spaces, then those on Lie groups. */
static int nh_model(size_t i, sp_model_info *out)
{
    size_t n = 0;
    while (sp_nh_model_at(n)) ++n;
    if (i < n)
        return problem_family_model(out, sp_nh_model_at(i)->name, sp_nh_model_at(i)->description,
                                    "scheme lobatto, stages 2-6, lambda1 carry|recompute, solver newton|simplified_newton");
    const sp_nh_lie_type *t = sp_nh_lie_type_at(i - n);
    return problem_family_model(out, t ? t->name : NULL, t ? t->description : NULL,
                                "on %s; scheme lobatto, stages 2-4, lambda1 recompute|carry, retraction",
                                t ? t->group_name : "");
}

const problem_family nonholonomic_problem_family = {
    "nonholonomic", SP_KIND_FLAG(SP_KIND_NONHOLONOMIC) | SP_KIND_FLAG(SP_KIND_NONHOLONOMIC_LIE), SP_TASK_FLAG(SP_TASK_SIMULATE), nh_model,
    read_nonholonomic};
