/* Problem files of expression models ("model": "custom"): the model's part of the file
 * (kind, coordinates, params, mass, potential, constraints, integrals) is read here into
 * an sp_custom_model; the rest (scheme, horizon, initial state, plan settings) by the
 * reader of the kind's family, given the model's table. Every expression is checked where
 * it is written: it parses, names only known symbols, reads what its place allows, and is
 * finite at the initial state together with its first derivatives; the constraint rows
 * must be independent there and a mass matrix positive definite. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "problems/custom/sp_custom_model.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"

/* The fields this reader takes, besides the family's. */
static const char *const custom_keys[] = {"kind", "coordinates", "params", "mass", "potential", "constraints",
                                          "integrals", NULL};

/* An expression written as a string, or a plain number, at in[key] (key NULL: in itself). */
static int read_expression(const json_input *in, const char *key, sp_custom_model *c, int positions_only,
                           sp_expr **out)
{
    json_input at = key ? json_member(in, key) : *in;
    char why[256];
    if (cJSON_IsNumber(at.node)) {
        if (!isfinite(at.node->valuedouble)) return json_fail(&at, NULL, "must be a finite number");
        *out = sp_expr_constant(at.node->valuedouble);
        return *out ? 1 : json_fail(&at, NULL, "out of memory");
    }
    if (!cJSON_IsString(at.node)) return json_fail(&at, NULL, "must be an expression (a string) or a number");
    sp_status st = sp_custom_parse(c, at.node->valuestring, positions_only, out, why, sizeof why);
    if (st == SP_ERR_NOMEM) return json_fail(&at, NULL, "out of memory");
    if (st != SP_OK) return json_fail(&at, NULL, "%s", why);
    return 1;
}

static int read_coordinates(const json_input *root, sp_custom_model *c)
{
    json_input in = json_member(root, "coordinates");
    if (!in.node) return json_fail(root, "coordinates", "missing required field (the names of the coordinates)");
    if (!cJSON_IsArray(in.node) || cJSON_GetArraySize(in.node) < 1)
        return json_fail(&in, NULL, "must be a non-empty array of names");
    for (int i = 0; i < cJSON_GetArraySize(in.node); ++i) {
        json_input e = json_element(&in, i);
        char why[256];
        if (!cJSON_IsString(e.node)) return json_fail(&e, NULL, "must be a name (a string)");
        sp_status st = sp_custom_add_coordinate(c, e.node->valuestring, why, sizeof why);
        if (st != SP_OK) return json_fail(st == SP_ERR_INVALID && c->n >= SP_CUSTOM_MAX_N ? &in : &e, NULL, "%s", why);
    }
    return 1;
}

static int read_custom_params(const json_input *root, sp_custom_model *c)
{
    json_input in = json_member(root, "params");
    if (!in.node) return 1;
    if (!cJSON_IsObject(in.node)) return json_fail(&in, NULL, "must be an object of named numbers");
    for (const cJSON *item = in.node->child; item; item = item->next) {
        json_input e = json_member(&in, item->string);
        double v;
        char why[256];
        if (json_number(&in, item->string, 1, &v) != 1) return -1;
        if (sp_custom_add_param(c, item->string, v, why, sizeof why) != SP_OK) return json_fail(&e, NULL, "%s", why);
    }
    return 1;
}

/* "mass": n entries (the diagonal) or n rows of n (the matrix); absent: the identity.
 * Holonomic and vakonomic models take a constant diagonal. */
static int read_mass(const json_input *root, sp_custom_model *c)
{
    const int n = c->n, constant = c->kind != SP_CUSTOM_NONHOLONOMIC;
    json_input in = json_member(root, "mass");
    if (!in.node) {
        for (int i = 0; i < n; ++i)
            if (!(c->M[i * n + i] = sp_expr_constant(1.0))) return json_fail(root, "mass", "out of memory");
        return 1;
    }
    if (!cJSON_IsArray(in.node) || cJSON_GetArraySize(in.node) != n)
        return json_fail(&in, NULL, "must have %d entries (the diagonal) or %d rows of %d", n, n, n);
    const int rows = cJSON_IsArray(cJSON_GetArrayItem(in.node, 0));
    if (rows && c->kind == SP_CUSTOM_VAKONOMIC)
        return json_fail(&in, NULL, "vakonomic models take a constant diagonal mass (%d entries)", n);
    for (int i = 0; i < n; ++i) {
        json_input r = json_element(&in, i);
        if (!rows) {
            if (read_expression(&r, NULL, c, 1, &c->M[i * n + i]) != 1) return -1;
            continue;
        }
        if (!cJSON_IsArray(r.node) || cJSON_GetArraySize(r.node) != n)
            return json_fail(&r, NULL, "must be a row of %d entries", n);
        for (int j = 0; j < n; ++j) {
            json_input e = json_element(&r, j);
            if (read_expression(&e, NULL, c, 1, &c->M[i * n + j]) != 1) return -1;
        }
    }
    for (int i = 0; i < n * n && constant; ++i)
        for (int k = 0; k < n; ++k)
            if (c->M[i] && sp_expr_reads(c->M[i], k)) {
                json_input r = json_element(&in, i / n), e = rows ? json_element(&r, i % n) : r;
                return json_fail(&e, NULL, "must be constant for a %s model (it reads the coordinate '%s')",
                                 sp_custom_kind_name(c->kind), c->coordinate[k]);
            }
    return 1;
}

/* holonomic: "constraints": m expressions g_j(q); the others: m rows of n entries. */
static int read_constraints(const json_input *root, sp_custom_model *c)
{
    const int n = c->n, rows = c->kind != SP_CUSTOM_HOLONOMIC;
    json_input in = json_member(root, "constraints");
    if (!in.node) return json_fail(root, "constraints", "missing required field");
    const int m = cJSON_IsArray(in.node) ? cJSON_GetArraySize(in.node) : -1;
    if (m < 1 || m >= n || m > SP_CUSTOM_MAX_M)
        return json_fail(&in, NULL, "must be an array of 1 to %d %s (fewer than the %d coordinates)",
                         n - 1 < SP_CUSTOM_MAX_M ? n - 1 : SP_CUSTOM_MAX_M,
                         rows ? "rows" : "expressions", n);
    if (sp_custom_alloc_functions(c, m) != SP_OK) return json_fail(&in, NULL, "out of memory");
    for (int a = 0; a < m; ++a) {
        json_input r = json_element(&in, a);
        if (!rows) {
            if (read_expression(&r, NULL, c, 1, &c->g[a]) != 1) return -1;
            continue;
        }
        if (!cJSON_IsArray(r.node) || cJSON_GetArraySize(r.node) != n)
            return json_fail(&r, NULL, "must be a row of %d entries (one per coordinate)", n);
        for (int i = 0; i < n; ++i) {
            json_input e = json_element(&r, i);
            if (read_expression(&e, NULL, c, 1, &c->R[a * n + i]) != 1) return -1;
        }
    }
    return 1;
}

static int read_integrals(const json_input *root, sp_custom_model *c)
{
    json_input in = json_member(root, "integrals");
    if (!in.node) return 1;
    if (!cJSON_IsObject(in.node)) return json_fail(&in, NULL, "must be an object of named expressions in (q, p)");
    const int most = SP_CUSTOM_MAX_INTEGRALS - (c->kind == SP_CUSTOM_NONHOLONOMIC); /* energy comes first there */
    for (const cJSON *item = in.node->child; item; item = item->next) {
        json_input e = json_member(&in, item->string);
        char why[256];
        if (c->n_integrals >= most) return json_fail(&e, NULL, "more than %d first integrals", most);
        if (!sp_expr_valid_symbol(item->string, why, sizeof why) || strlen(item->string) >= SP_CUSTOM_NAME_MAX ||
            strcmp(item->string, "energy") == 0)
            return json_fail(&e, NULL, "is not a usable name for an integral (a name, not 'energy')");
        if (read_expression(&in, item->string, c, 0, &c->integral[c->n_integrals]) != 1) return -1;
        strcpy(c->integral_name[c->n_integrals++], item->string);
    }
    return 1;
}

/* The first place, in file order, where a function or a first derivative is not finite
 * at (q0, p0); its JSON path into where. */
static int first_non_finite(sp_custom_model *c, const double *q0, const double *p0, char *where, size_t size)
{
    const int n = c->n, m = c->m;
    memcpy(c->values, q0, (size_t)n * sizeof *q0);
    memcpy(c->values + n, p0, (size_t)n * sizeof *p0);
#define CHECK(e, ...)                                                                                                  \
    do {                                                                                                               \
        if ((e) && !isfinite(sp_expr_eval((e), c->values))) {                                                         \
            snprintf(where, size, __VA_ARGS__);                                                                        \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) CHECK(c->M[i * n + j], c->kind == SP_CUSTOM_NONHOLONOMIC || c->mass_full ? "mass[%d][%d]" : "mass[%d]", i, j);
    CHECK(c->V, "potential");
    for (int k = 0; k < n; ++k) CHECK(c->dV[k], "potential");
    for (int a = 0; a < m; ++a) {
        if (c->g) {
            CHECK(c->g[a], "constraints[%d]", a);
            for (int k = 0; k < n; ++k) CHECK(c->G[a * n + k], "constraints[%d]", a);
        } else {
            for (int i = 0; i < n; ++i) {
                CHECK(c->R[a * n + i], "constraints[%d][%d]", a, i);
                for (int k = 0; k < n; ++k) CHECK(c->dR[(a * n + i) * n + k], "constraints[%d][%d]", a, i);
            }
        }
    }
    for (int i = 0; i < c->n_integrals; ++i) CHECK(c->integral[i], "integrals.%s", c->integral_name[i]);
#undef CHECK
    return 0;
}

/* Whether the constraint rows at q0 (G, or μ) are independent: R M⁻¹ Rᵀ invertible. */
static int rows_independent(sp_custom_model *c, const double *q0)
{
    const int n = c->n, m = c->m;
    double R[SP_CUSTOM_MAX_M * SP_CUSTOM_MAX_N], M[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N], A[SP_CUSTOM_MAX_M * SP_CUSTOM_MAX_M];
    double Rt[SP_CUSTOM_MAX_M * SP_CUSTOM_MAX_N];
    int piv[SP_CUSTOM_MAX_N];
    memcpy(c->values, q0, (size_t)n * sizeof *q0);
    for (int i = 0; i < m * n; ++i) R[i] = sp_expr_eval(c->g ? c->G[i] : c->R[i], c->values);
    sp_custom_mass_matrix(c, q0, M);
    memcpy(Rt, R, sizeof R); /* M X = Rᵀ: the columns of Rᵀ are the rows of R */
    if (sp_linsolve(n, M, Rt, m, piv, 0) != SP_OK) return 0;
    double scale = 0.0;
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) {
            double s = 0.0;
            for (int i = 0; i < n; ++i) s += R[a * n + i] * Rt[b * n + i];
            A[a * m + b] = s;
            scale = fmax(scale, fabs(s));
        }
    if (!(scale > 0.0)) return 0;
    for (int a = 0; a < m * m; ++a) A[a] /= scale;
    /* a determinant relative to the largest entry: dependent rows give round-off */
    double b[SP_CUSTOM_MAX_M] = {0};
    if (sp_linsolve(m, A, b, 1, piv, 0) != SP_OK) return 0;
    double det = 1.0;
    for (int a = 0; a < m; ++a) det *= fabs(A[a * m + a]);
    return det > 1e-12;
}

/* Whether M(q0) is symmetric positive definite (Cholesky). */
static int mass_positive_definite(sp_custom_model *c, const double *q0, int *row)
{
    const int n = c->n;
    double M[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    sp_custom_mass_matrix(c, q0, M);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (fabs(M[i * n + j] - M[j * n + i]) > 1e-12 * (fabs(M[i * n + j]) + fabs(M[j * n + i]) + 1e-300)) {
                *row = i;
                return 0;
            }
    for (int j = 0; j < n; ++j) {
        double d = M[j * n + j];
        for (int k = 0; k < j; ++k) d -= M[j * n + k] * M[j * n + k];
        if (!(d > 0.0)) {
            *row = j;
            return 0;
        }
        d = sqrt(d);
        M[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = M[i * n + j];
            for (int k = 0; k < j; ++k) s -= M[i * n + k] * M[j * n + k];
            M[i * n + j] = s / d;
        }
    }
    return 1;
}

static int read_custom(const json_input *root, sp_problem *p)
{
    const char *kind_name;
    if (json_string(root, "kind", 1, &kind_name) != 1) return -1;
    const int kind = sp_custom_kind_by_name(kind_name);
    if (kind < 0)
        return json_fail(root, "kind", "unknown kind '%s' (known: holonomic, nonholonomic, vakonomic)", kind_name);
    if (p->task == SP_TASK_PLAN && kind != SP_CUSTOM_VAKONOMIC)
        return json_fail(root, "task", "plan tasks are for vakonomic models (this one is %s)", kind_name);
    sp_custom_model *c = sp_custom_new((sp_custom_kind)kind);
    if (!c) return json_fail(root, NULL, "out of memory");
    p->custom = c;
    if (read_coordinates(root, c) != 1 || read_custom_params(root, c) != 1) return -1;
    const int n = c->n;
    if (read_constraints(root, c) != 1 || read_mass(root, c) != 1) return -1;
    if (json_member(root, "potential").node && read_expression(root, "potential", c, 1, &c->V) != 1) return -1;
    if (read_integrals(root, c) != 1) return -1;
    if (sp_custom_finish(c) != SP_OK) return json_fail(root, NULL, "out of memory");
    for (int i = 0; i < n && kind != SP_CUSTOM_NONHOLONOMIC && !c->mass_full; ++i)
        if (!(c->mass_diagonal[i] > 0.0)) {
            json_input mass = json_member(root, "mass");
            json_input e = json_element(&mass, i);
            return json_fail(mass.node ? &e : root, mass.node ? NULL : "mass", "must be positive (got %.17g)",
                             c->mass_diagonal[i]);
        }

    /* the initial state, read here for the checks at q0 (the family reads it again) */
    double q0[SP_CUSTOM_MAX_N] = {0}, p0[SP_CUSTOM_MAX_N] = {0};
    if (json_coordinates(root, "q0", 1, n, c->coordinate_names, q0) != 1) return -1;
    if (json_member(root, "p0").node && json_coordinates(root, "p0", 1, n, c->coordinate_names, p0) != 1) return -1;
    char where[96];
    if (first_non_finite(c, q0, p0, where, sizeof where)) {
        json_input at = {.node = root->node, .err = root->err};
        snprintf(at.path, sizeof at.path, "%s", where);
        return json_fail(&at, NULL, "is not finite at the initial state (q0, p0), nor is its first derivative");
    }
    int row;
    if (!mass_positive_definite(c, q0, &row))
        return json_fail(root, "mass", "is not symmetric positive definite at q0 (row %d); the mass matrix must be",
                         row);
    if (!rows_independent(c, q0))
        return json_fail(root, "constraints",
                         "the constraint %s dependent at q0 (%s M^-1 %s^T is singular): drop or change one",
                         kind == SP_CUSTOM_HOLONOMIC ? "gradients are" : "rows are",
                         kind == SP_CUSTOM_HOLONOMIC ? "G" : "R", kind == SP_CUSTOM_HOLONOMIC ? "G" : "R");
    switch (kind) {
    case SP_CUSTOM_HOLONOMIC:
        return hol_read_problem(root, p, &c->hol_type, custom_keys);
    case SP_CUSTOM_NONHOLONOMIC:
        return nh_read_problem(root, p, &c->nh_type, custom_keys);
    case SP_CUSTOM_VAKONOMIC:
        return vak_read_problem(root, p, &c->vak_type, custom_keys);
    default: /* sp_custom_kind_by_name admits the three kinds above only */
        return json_fail(root, "kind", "unknown kind '%s'", kind_name);
    }
}

static int custom_model(size_t i, sp_model_info *out)
{
    return problem_family_model(out, i == 0 ? "custom" : NULL,
                                "a model written in the problem file: coordinates, parameters and expressions",
                                "kind holonomic (RATTLE and its compositions), nonholonomic (Lobatto IIIA-IIIB), "
                                "vakonomic (Gauss-Legendre; plan and simulate)");
}

/* Its kinds are the file's: holonomic, nonholonomic or vakonomic. */
const problem_family custom_problem_family = {"custom", 0, SP_TASK_FLAG(SP_TASK_PLAN) | SP_TASK_FLAG(SP_TASK_SIMULATE), custom_model, read_custom};
