/* Expression models (sp_custom_model.h): storage, symbolic derivatives, and the
 * callbacks the integrators call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "problems/custom/sp_custom_model.h"

static const char *const kind_names[] = {"holonomic", "nonholonomic", "vakonomic"};

const char *sp_custom_kind_name(sp_custom_kind kind) { return kind_names[kind]; }

int sp_custom_kind_by_name(const char *name)
{
    for (int k = 0; k < 3; ++k)
        if (name && strcmp(name, kind_names[k]) == 0) return k;
    return -1;
}

sp_custom_model *sp_custom_new(sp_custom_kind kind)
{
    sp_custom_model *c = calloc(1, sizeof *c);
    if (c) {
        c->kind = kind;
        c->prm.custom = c;
    }
    return c;
}

static void free_all(sp_expr **e, size_t count)
{
    for (size_t i = 0; e && i < count; ++i) sp_expr_free(e[i]);
    free(e);
}

void sp_custom_free(sp_custom_model *c)
{
    if (!c) return;
    const size_t n = (size_t)c->n, m = (size_t)c->m;
    free_all(c->M, n * n);
    free_all(c->dM, n * n * n);
    free_all(c->d2M, n * n * n * n);
    sp_expr_free(c->V);
    free_all(c->dV, n);
    free_all(c->d2V, n * n);
    free_all(c->g, m);
    free_all(c->G, m * n);
    free_all(c->d2g, m * n * n);
    free_all(c->R, m * n);
    free_all(c->dR, m * n * n);
    free_all(c->d2R, m * n * n * n);
    for (int i = 0; i < c->n_integrals; ++i) sp_expr_free(c->integral[i]);
    free(c->dM_nonzero);
    free(c->d2M_nonzero);
    free(c->dM_index);
    free(c->d2M_index);
    sp_expr_set_free(c->nh_first);
    sp_expr_set_free(c->nh_second);
    free(c->nh_at_values);
    free(c->nh_second_values);
    free(c);
}

/* The symbol table: coordinates, momenta, parameters, each name unique. */
static int known_symbol(const sp_custom_model *c, const char *name)
{
    for (int i = 0; i < c->n; ++i)
        if (strcmp(c->coordinate[i], name) == 0 || strcmp(c->momentum_name[i], name) == 0) return 1;
    for (int i = 0; i < c->n_params; ++i)
        if (strcmp(c->param_name[i], name) == 0) return 1;
    return 0;
}

static sp_status add_name(const sp_custom_model *c, const char *name, char *dest, char *why, size_t size)
{
    if (!sp_expr_valid_symbol(name, why, size)) return SP_ERR_INVALID;
    if (strlen(name) >= SP_CUSTOM_NAME_MAX) {
        snprintf(why, size, "'%s' is longer than %d characters", name, SP_CUSTOM_NAME_MAX - 1);
        return SP_ERR_INVALID;
    }
    if (known_symbol(c, name)) {
        snprintf(why, size, "'%s' is named twice (coordinates, their momenta p_<q> and parameters share one list)",
                 name);
        return SP_ERR_INVALID;
    }
    strcpy(dest, name);
    return SP_OK;
}

sp_status sp_custom_add_coordinate(sp_custom_model *c, const char *name, char *why, size_t size)
{
    if (c->n >= SP_CUSTOM_MAX_N) {
        snprintf(why, size, "has more than %d coordinates", SP_CUSTOM_MAX_N);
        return SP_ERR_INVALID;
    }
    sp_status st = add_name(c, name, c->coordinate[c->n], why, size);
    if (st != SP_OK) return st;
    snprintf(c->momentum_name[c->n], sizeof c->momentum_name[c->n], "p_%s", name);
    for (int i = 0; i < c->n; ++i) /* (a name that is an earlier coordinate's momentum add_name refused) */
        if (strcmp(c->coordinate[i], c->momentum_name[c->n]) == 0) {
            snprintf(why, size, "'%s' would be the momentum of '%s', but it is a coordinate", c->coordinate[i], name);
            c->coordinate[c->n][0] = c->momentum_name[c->n][0] = '\0';
            return SP_ERR_INVALID;
        }
    c->coordinate_names[c->n] = c->coordinate[c->n];
    c->n++;
    return SP_OK;
}

sp_status sp_custom_add_param(sp_custom_model *c, const char *name, double value, char *why, size_t size)
{
    if (c->n_params >= SP_CUSTOM_MAX_PARAMS) {
        snprintf(why, size, "has more than %d parameters", SP_CUSTOM_MAX_PARAMS);
        return SP_ERR_INVALID;
    }
    sp_status st = add_name(c, name, c->param_name[c->n_params], why, size);
    if (st != SP_OK) return st;
    c->param_value[c->n_params++] = value;
    return SP_OK;
}

/* Fixes the symbol table once the coordinates and parameters are known. */
static void symbols_of(sp_custom_model *c, sp_expr_symbols *s)
{
    const int n = c->n;
    for (int i = 0; i < n; ++i) {
        c->symbol[i] = c->coordinate[i];
        c->symbol[n + i] = c->momentum_name[i];
    }
    for (int i = 0; i < c->n_params; ++i) {
        c->symbol[2 * n + i] = c->param_name[i];
        c->values[2 * n + i] = c->param_value[i];
    }
    c->n_symbols = 2 * n + c->n_params;
    /* the parameters do not change once read: expressions fold them in as constants */
    *s = (sp_expr_symbols){c->n_symbols, c->symbol, c->values, 2 * n};
}

sp_status sp_custom_parse(sp_custom_model *c, const char *text, int positions_only, sp_expr **out, char *why,
                          size_t size)
{
    sp_expr_symbols s;
    symbols_of(c, &s);
    sp_status st = sp_expr_parse(text, &s, out, why, size);
    if (st != SP_OK || !positions_only) return st;
    for (int i = 0; i < c->n; ++i)
        if (sp_expr_reads(*out, c->n + i)) {
            snprintf(why, size, "reads the momentum '%s' (only first integrals may)", c->momentum_name[i]);
            sp_expr_free(*out);
            *out = NULL;
            return SP_ERR_INVALID;
        }
    return SP_OK;
}

sp_status sp_custom_alloc_functions(sp_custom_model *c, int m)
{
    const size_t n = (size_t)c->n;
    c->m = m;
    c->M = calloc(n * n, sizeof *c->M);
    if (c->kind == SP_CUSTOM_HOLONOMIC)
        c->g = calloc(m ? (size_t)m : 1, sizeof *c->g);
    else
        c->R = calloc((size_t)m * n + 1, sizeof *c->R);
    return c->M && (c->g || c->R) ? SP_OK : SP_ERR_NOMEM;
}

/* d[i·n + k] = ∂f_i/∂q_k for i < count (zero where f_i is absent). */
static sp_status jacobian(sp_custom_model *c, sp_expr *const *f, size_t count, sp_expr ***d)
{
    const int n = c->n;
    sp_expr_symbols s = {c->n_symbols, c->symbol, c->values, 2 * n};
    *d = calloc(count * (size_t)n + 1, sizeof **d);
    if (!*d) return SP_ERR_NOMEM;
    for (size_t i = 0; i < count; ++i)
        for (int k = 0; k < n; ++k) {
            (*d)[i * (size_t)n + (size_t)k] = f[i] ? sp_expr_derivative(f[i], &s, k) : sp_expr_constant(0.0);
            if (!(*d)[i * (size_t)n + (size_t)k]) return SP_ERR_NOMEM;
        }
    return SP_OK;
}

static size_t prm_integral_names(const sp_param_values *prm, const char **names);
static size_t prm_integrals(const double *q, const double *p, const sp_param_values *prm, double *out);
static int potential_cb(const double *q, double *V, double *grad, double *hess, void *params);
static int vak_constraints_cb(const double *q, double *G, double *dG, double *d2G, void *params);
static int nh_hamiltonian_cb(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params);
static int nh_constraints_cb(const double *q, double *mu, double *dmu, void *params);
static void nh_mass_matrix(const double *q, const sp_param_values *prm, double *M);
static void vak_mass(const sp_param_values *prm, double *mass);
static void nh_initial(const sp_param_values *prm, double *q0, double *p0);

static const char *const no_names[] = {NULL};

/* The indices of the entries of e[0..count) that are not the constant 0, ascending (so
 * sums over them add in the order a loop over every entry would); NULL when memory runs
 * out. */
static int *nonzero_entries(sp_expr *const *e, size_t count, int *n_nonzero)
{
    int *list = malloc((count ? count : 1) * sizeof *list);
    *n_nonzero = 0;
    for (size_t i = 0; list && i < count; ++i)
        if (!sp_expr_is_zero(e[i])) list[(*n_nonzero)++] = (int)i;
    return list;
}

static int invert_mass(int n, const double *M, double *W);

/* The members of e[0..count) listed in `which` (all when NULL) appended to list at *at. */
static void gather(sp_expr **list, int *at, sp_expr *const *e, int count, const int *which)
{
    for (int i = 0; i < count; ++i) list[(*at)++] = e[which ? which[i] : i];
}

/* The sets of nh_at and H_qq (sp_custom_model.h), with their offsets. */
static sp_status nh_sets(sp_custom_model *c)
{
    const int n = c->n, m = c->m, varying = !c->mass_inverse_known;
    const int first = 1 + n + (varying ? n * n : 0) + c->n_dM_nonzero + m * n + m * n * n,
              second = n * n + c->n_d2M_nonzero;
    sp_expr **list = malloc((size_t)(first > second ? first : second) * sizeof *list);
    c->nh_at_count = first;
    c->nh_at_values = malloc((size_t)first * SP_CUSTOM_NH_POINTS * sizeof *c->nh_at_values);
    c->nh_second_values = malloc((size_t)second * sizeof *c->nh_second_values);
    if (!list || !c->nh_at_values || !c->nh_second_values) {
        free(list);
        return SP_ERR_NOMEM;
    }
    int at = 0;
    list[at++] = c->V;
    c->nh_at_dV = at, gather(list, &at, c->dV, n, NULL);
    c->nh_at_M = varying ? at : -1;
    if (varying) gather(list, &at, c->M, n * n, NULL);
    c->nh_at_dM = at, gather(list, &at, c->dM, c->n_dM_nonzero, c->dM_nonzero);
    c->nh_at_R = at, gather(list, &at, c->R, m * n, NULL);
    c->nh_at_dR = at, gather(list, &at, c->dR, m * n * n, NULL);
    c->nh_first = sp_expr_set_new(list, at);
    at = 0;
    gather(list, &at, c->d2V, n * n, NULL);
    gather(list, &at, c->d2M, c->n_d2M_nonzero, c->d2M_nonzero);
    c->nh_second = sp_expr_set_new(list, at);
    free(list);
    return c->nh_first && c->nh_second ? SP_OK : SP_ERR_NOMEM;
}

/* The nonholonomic Hamiltonian's tables: the nonzero derivatives of M, M⁻¹ when M is
 * constant (if M is not positive definite it is left to fail where the Hamiltonian is
 * evaluated, as a varying M does), and the sets evaluated at each q. */
static sp_status nh_tables(sp_custom_model *c)
{
    const size_t n = (size_t)c->n;
    c->dM_nonzero = nonzero_entries(c->dM, n * n * n, &c->n_dM_nonzero);
    c->d2M_nonzero = nonzero_entries(c->d2M, n * n * n * n, &c->n_d2M_nonzero);
    if (!c->dM_nonzero || !c->d2M_nonzero) return SP_ERR_NOMEM;
    c->dM_index = malloc((size_t)(c->n_dM_nonzero + 1) * sizeof *c->dM_index);
    c->d2M_index = malloc((size_t)(c->n_d2M_nonzero + 1) * sizeof *c->d2M_index);
    if (!c->dM_index || !c->d2M_index) return SP_ERR_NOMEM;
    for (int z = 0, at; z < c->n_dM_nonzero; ++z)
        at = c->dM_nonzero[z], c->dM_index[z] = (struct sp_custom_index){at / (int)(n * n), at / (int)n % (int)n,
                                                                         at % (int)n, 0};
    for (int z = 0, at; z < c->n_d2M_nonzero; ++z)
        at = c->d2M_nonzero[z],
        c->d2M_index[z] = (struct sp_custom_index){at / (int)(n * n * n), at / (int)(n * n) % (int)n,
                                                   at / (int)n % (int)n, at % (int)n};
    double q[SP_CUSTOM_MAX_N] = {0}, M[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    sp_custom_mass_matrix(c, q, M);
    if (c->n_dM_nonzero == 0 && invert_mass(c->n, M, c->mass_inverse)) c->mass_inverse_known = 1;
    return nh_sets(c);
}

sp_status sp_custom_finish(sp_custom_model *c)
{
    sp_expr_symbols s;
    symbols_of(c, &s);
    const size_t n = (size_t)c->n, m = (size_t)c->m;
    if (!c->V && !(c->V = sp_expr_constant(0.0))) return SP_ERR_NOMEM;
    for (size_t i = 0; i < n * n; ++i)
        if (!c->M[i] && !(c->M[i] = sp_expr_constant(0.0))) return SP_ERR_NOMEM;
    if (jacobian(c, &c->V, 1, &c->dV) != SP_OK || jacobian(c, c->dV, n, &c->d2V) != SP_OK) return SP_ERR_NOMEM;
    for (size_t i = 0; i < n; ++i) c->mass_diagonal[i] = sp_expr_eval(c->M[i * n + i], c->values);
    if (c->kind == SP_CUSTOM_HOLONOMIC) /* constant: its values at the parameters */
        for (size_t i = 0; i < n * n; ++i) {
            c->mass_matrix[i] = sp_expr_eval(c->M[i], c->values);
            c->mass_full |= i / n != i % n && c->mass_matrix[i] != 0.0;
        }
    switch (c->kind) {
    case SP_CUSTOM_HOLONOMIC:
        if (jacobian(c, c->g, m, &c->G) != SP_OK || jacobian(c, c->G, m * n, &c->d2g) != SP_OK) return SP_ERR_NOMEM;
        c->hol_type = (sp_hol_model_type){.name = "custom",
                                          .description = "a holonomic model written in the problem file",
                                          .n = c->n,
                                          .coordinates = c->coordinate_names,
                                          .families = SP_HOL_FAMILY_CONSTRAINED,
                                          .initial = SP_HOL_INITIAL_QP,
                                          .monitor_names = no_names,
                                          .monitor_labels = no_names,
                                          .integral_names = prm_integral_names};
        break;
    case SP_CUSTOM_NONHOLONOMIC:
        if (jacobian(c, c->M, n * n, &c->dM) != SP_OK || jacobian(c, c->dM, n * n * n, &c->d2M) != SP_OK ||
            jacobian(c, c->R, m * n, &c->dR) != SP_OK || nh_tables(c) != SP_OK)
            return SP_ERR_NOMEM;
        c->nh_type = (sp_nh_model_type){.name = "custom",
                                        .description = "a nonholonomic model written in the problem file",
                                        .n = c->n,
                                        .m = c->m,
                                        .coordinates = c->coordinate_names,
                                        .mass_matrix = nh_mass_matrix,
                                        .hamiltonian = nh_hamiltonian_cb,
                                        .constraints = nh_constraints_cb,
                                        .integral_names = prm_integral_names,
                                        .integrals = prm_integrals,
                                        .initial = nh_initial};
        break;
    case SP_CUSTOM_VAKONOMIC:
        if (jacobian(c, c->R, m * n, &c->dR) != SP_OK || jacobian(c, c->dR, m * n * n, &c->d2R) != SP_OK)
            return SP_ERR_NOMEM;
        c->vak_type = (sp_vak_model_type){.name = "custom",
                                          .description = "a vakonomic model written in the problem file",
                                          .n = c->n,
                                          .m = c->m,
                                          .coordinates = c->coordinate_names,
                                          .mass = vak_mass,
                                          .potential = potential_cb,
                                          .constraints = vak_constraints_cb,
                                          .integral_names = prm_integral_names,
                                          .integrals = prm_integrals};
        break;
    }
    return SP_OK;
}

/* ---- evaluation */

static sp_custom_model *of(void *params) { return ((const sp_param_values *)params)->custom; }

static void set_q(sp_custom_model *c, const double *q) { memcpy(c->values, q, (size_t)c->n * sizeof *q); }

static void eval_into(sp_custom_model *c, sp_expr **f, size_t count, double *out)
{
    for (size_t i = 0; i < count; ++i) out[i] = sp_expr_eval(f[i], c->values);
}

static int potential_cb(const double *q, double *V, double *grad, double *hess, void *params)
{
    sp_custom_model *c = of(params);
    const size_t n = (size_t)c->n;
    set_q(c, q);
    if (V) *V = sp_expr_eval(c->V, c->values);
    if (grad) eval_into(c, c->dV, n, grad);
    if (hess) eval_into(c, c->d2V, n * n, hess);
    return 0;
}

static int hol_constraints_cb(const double *q, double *g, double *G, double *d2g, void *params)
{
    sp_custom_model *c = of(params);
    const size_t n = (size_t)c->n, m = (size_t)c->m;
    set_q(c, q);
    if (g) eval_into(c, c->g, m, g);
    if (G) eval_into(c, c->G, m * n, G);
    if (d2g) eval_into(c, c->d2g, m * n * n, d2g);
    return 0;
}

static int vak_constraints_cb(const double *q, double *G, double *dG, double *d2G, void *params)
{
    sp_custom_model *c = of(params);
    const size_t n = (size_t)c->n, m = (size_t)c->m;
    set_q(c, q);
    if (G) eval_into(c, c->R, m * n, G);
    if (dG) eval_into(c, c->dR, m * n * n, dG);
    if (d2G) eval_into(c, c->d2R, m * n * n * n, d2G);
    return 0;
}

/* The nonholonomic set at q (sp_custom_model.h): its values and the point they are kept
 * in, evaluated unless q is one of the points kept. */
static const double *nh_at(sp_custom_model *c, const double *q, struct sp_custom_nh_point **point)
{
    const size_t bytes = (size_t)c->n * sizeof *q;
    int k = 0;
    while (k < SP_CUSTOM_NH_POINTS && !(c->nh_point[k].valid && memcmp(c->nh_point[k].q, q, bytes) == 0)) ++k;
    double *values = c->nh_at_values + (size_t)c->nh_at_count * (size_t)(k < SP_CUSTOM_NH_POINTS ? k : c->nh_next_point);
    if (k == SP_CUSTOM_NH_POINTS) {
        k = c->nh_next_point;
        c->nh_next_point = (k + 1) % SP_CUSTOM_NH_POINTS;
        set_q(c, q);
        sp_expr_set_eval(c->nh_first, c->values, values);
        memcpy(c->nh_point[k].q, q, bytes);
        c->nh_point[k].valid = 1;
        c->nh_point[k].W_state = 0;
    }
    if (point) *point = &c->nh_point[k];
    return values;
}

static int nh_constraints_cb(const double *q, double *mu, double *dmu, void *params)
{
    sp_custom_model *c = of(params);
    const size_t n = (size_t)c->n, m = (size_t)c->m;
    const double *f = nh_at(c, q, NULL);
    if (mu) memcpy(mu, f + c->nh_at_R, m * n * sizeof *mu);
    if (dmu) memcpy(dmu, f + c->nh_at_dR, m * n * n * sizeof *dmu);
    return 0;
}

void sp_custom_mass_matrix(sp_custom_model *c, const double *q, double *M)
{
    set_q(c, q);
    eval_into(c, c->M, (size_t)c->n * (size_t)c->n, M);
}

static void nh_mass_matrix(const double *q, const sp_param_values *prm, double *M)
{
    sp_custom_mass_matrix(prm->custom, q, M);
}

/* W = M⁻¹; 0 where M is not positive definite. */
static int invert_mass(int n, const double *M, double *W)
{
    double L[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    /* a mass that depends on q may stop being positive definite anywhere along the run (it
     * was checked at q0 only): the model fails there instead of running on with a
     * kinetic energy that is no longer one */
    if (!sp_cholesky_factor(n, M, L)) return 0;
    for (int j = 0; j < n; ++j) { /* column j of M⁻¹, its row j (symmetric) */
        double *e = W + j * n;
        for (int i = 0; i < n; ++i) e[i] = i == j ? 1.0 : 0.0;
        sp_cholesky_solve(n, L, e);
    }
    return 1;
}

/* H = ½ pᵀM(q)⁻¹p + V(q). With W = M⁻¹, v = W p and u_k = (∂_k M) v:
 *   H_p = v,  H_q[k] = −½ vᵀu_k + V_k,  H_pp = W,  H_qp[k][j] = −(W u_k)_j,
 *   H_qq[k][l] = u_lᵀ W u_k − ½ vᵀ(∂_k∂_l M)v + V_kl. */
static int nh_hamiltonian_cb(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    sp_custom_model *c = of(params);
    const int n = c->n;
    /* a constant M asked for H_p and H_pp only: nothing of q to evaluate */
    const int of_q = !c->mass_inverse_known || out->H || out->Hq || out->Hqp || out->Hqq;
    struct sp_custom_nh_point *point = NULL;
    const double *f = of_q ? nh_at(c, q, &point) : NULL;
    double v[SP_CUSTOM_MAX_N];
    const double *W = c->mass_inverse;
    if (!c->mass_inverse_known) { /* once per point */
        if (!point->W_state) point->W_state = invert_mass(n, f + c->nh_at_M, point->W) ? 1 : -1;
        if (point->W_state < 0) return -1;
        W = point->W;
    }
    for (int i = 0; i < n; ++i) {
        v[i] = 0.0;
        for (int j = 0; j < n; ++j) v[i] += W[i * n + j] * p[j];
    }
    if (out->Hp)
        for (int i = 0; i < n; ++i) out->Hp[i] = v[i];
    if (out->Hpp) memcpy(out->Hpp, W, (size_t)(n * n) * sizeof *W);
    if (!of_q) return 0;
    const double *dV = f + c->nh_at_dV, *dM = f + c->nh_at_dM;
    if (out->H) {
        double t = 0.0;
        for (int i = 0; i < n; ++i) t += p[i] * v[i];
        *out->H = 0.5 * t + f[0];
    }
    if (!out->Hq && !out->Hqp && !out->Hqq) return 0;
    if (c->n_dM_nonzero == 0) { /* M constant: u = 0 below, the terms in ∂M are zeros (their signs kept) */
        if (out->Hq)
            for (int k = 0; k < n; ++k) out->Hq[k] = dV[k];
        if (out->Hqp)
            for (int k = 0; k < n * n; ++k) out->Hqp[k] = -0.0;
        if (out->Hqq) {
            set_q(c, q);
            sp_expr_set_eval(c->nh_second, c->values, c->nh_second_values);
            for (int k = 0; k < n * n; ++k) out->Hqq[k] = 0.0 + c->nh_second_values[k];
        }
        return 0;
    }
    double u[SP_CUSTOM_MAX_N][SP_CUSTOM_MAX_N], Wu[SP_CUSTOM_MAX_N][SP_CUSTOM_MAX_N];
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) u[k][i] = 0.0;
    for (int z = 0; z < c->n_dM_nonzero; ++z) { /* u[k][i] += ∂_k M_ij v_j, over j ascending */
        const struct sp_custom_index *x = &c->dM_index[z];
        u[x->k][x->i] += dM[z] * v[x->j];
    }
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) s += W[i * n + j] * u[k][j];
            Wu[k][i] = s;
        }
    if (out->Hq)
        for (int k = 0; k < n; ++k) {
            double s = 0.0;
            for (int i = 0; i < n; ++i) s += v[i] * u[k][i];
            out->Hq[k] = -0.5 * s + dV[k];
        }
    if (out->Hqp)
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j) out->Hqp[k * n + j] = -Wu[k][j];
    if (out->Hqq) {
        double *second = c->nh_second_values, t[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
        set_q(c, q);
        sp_expr_set_eval(c->nh_second, c->values, second);
        const double *hess = second, *d2M = second + n * n;
        for (int i = 0; i < n * n; ++i) t[i] = 0.0;
        for (int z = 0; z < c->n_d2M_nonzero; ++z) { /* t[k][l] += v_i ∂_k∂_l M_ij v_j, over (i, j) ascending */
            const struct sp_custom_index *x = &c->d2M_index[z];
            t[x->k * n + x->l] += v[x->i] * d2M[z] * v[x->j];
        }
        for (int k = 0; k < n; ++k)
            for (int l = 0; l < n; ++l) {
                double s = 0.0;
                for (int i = 0; i < n; ++i) s += u[l][i] * Wu[k][i];
                out->Hqq[k * n + l] = s - 0.5 * t[k * n + l] + hess[k * n + l];
            }
    }
    return 0;
}

static void vak_mass(const sp_param_values *prm, double *mass)
{
    memcpy(mass, prm->custom->mass_diagonal, (size_t)prm->custom->n * sizeof *mass);
}

static void nh_initial(const sp_param_values *prm, double *q0, double *p0)
{
    memset(q0, 0, (size_t)prm->custom->n * sizeof *q0);
    memset(p0, 0, (size_t)prm->custom->n * sizeof *p0);
}

void sp_custom_holonomic_model(sp_custom_model *c, sp_holonomic_model *out)
{
    *out = (sp_holonomic_model){.n = c->n,
                                .m = c->m,
                                .mass = c->mass_diagonal,
                                .potential = potential_cb,
                                .constraints = hol_constraints_cb,
                                .params = &c->prm,
                                .mass_matrix = c->mass_full ? c->mass_matrix : NULL};
}

void sp_custom_nh_model(sp_custom_model *c, sp_nh_model *out) { sp_nh_model_bind(&c->nh_type, &c->prm, out); }

void sp_custom_vak_model(sp_custom_model *c, sp_vakonomic_model *out)
{
    sp_vak_model_bind(&c->vak_type, &c->prm, c->mass_diagonal, out);
}

/* The nonholonomic family's first integral is always the energy, then the declared ones. */
static size_t prm_integral_names(const sp_param_values *prm, const char **names)
{
    const sp_custom_model *c = prm->custom;
    size_t k = 0;
    if (c->kind == SP_CUSTOM_NONHOLONOMIC) names[k++] = "energy";
    for (int i = 0; i < c->n_integrals; ++i) names[k++] = c->integral_name[i];
    return k;
}

size_t sp_custom_integral_names(const sp_custom_model *c, const char **names)
{
    return prm_integral_names(&c->prm, names);
}

size_t sp_custom_integrals(sp_custom_model *c, const double *q, const double *p, double *out)
{
    size_t k = 0;
    if (c->kind == SP_CUSTOM_NONHOLONOMIC) {
        sp_nh_hamiltonian_out h = {.H = &out[k++]};
        nh_hamiltonian_cb(q, p, &h, &c->prm);
    }
    set_q(c, q);
    memcpy(c->values + c->n, p, (size_t)c->n * sizeof *p);
    for (int i = 0; i < c->n_integrals; ++i) out[k++] = sp_expr_eval(c->integral[i], c->values);
    return k;
}

static size_t prm_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    return sp_custom_integrals(prm->custom, q, p, out);
}
