/* Rⁿ under addition: elements are n-vectors, the algebra is Rⁿ itself, and every
 * retraction is the identity map. It is the flat test case of the group interface
 * (an HOHP integrator on Rⁿ is a plain variational integrator for splines) and the
 * configuration space of models in coordinates. As a matrix group it is the
 * translations of Rⁿ, so hat gives (n+1) x (n+1) affine matrices. */
#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

static void rn_identity(const sp_group *G, double *g) { sp_vec_zero(G->dim, g); }

static void rn_compose(const sp_group *G, const double *a, const double *b, double *ab)
{
    for (int i = 0; i < G->dim; ++i) ab[i] = a[i] + b[i];
}

static void rn_inverse(const sp_group *G, const double *g, double *g_inv)
{
    for (int i = 0; i < G->dim; ++i) g_inv[i] = -g[i];
}

static void rn_hat(const sp_group *G, const double *x, double *X)
{
    int m = G->mat_dim;
    sp_vec_zero(m * m, X);
    for (int i = 0; i < G->dim; ++i) X[i * m + G->dim] = x[i];
}

static void rn_vee(const sp_group *G, const double *X, double *x)
{
    for (int i = 0; i < G->dim; ++i) x[i] = X[i * G->mat_dim + G->dim];
}

static void rn_copy(const sp_group *G, const double *x, double *y) { sp_vec_copy(G->dim, x, y); }

static sp_status rn_copy_status(const sp_group *G, const double *x, double *y)
{
    rn_copy(G, x, y);
    return SP_OK;
}

static void rn_unit_matrix(const sp_group *G, const double *x, double *M)
{
    (void)x;
    sp_mat_identity(G->dim, M);
}

static void rn_zero_matrix(const sp_group *G, const double *x, const double *v, double *M)
{
    (void)x, (void)v;
    sp_vec_zero(G->dim * G->dim, M);
}

static void rn_zero_bracket(const sp_group *G, const double *x, const double *y, double *out)
{
    (void)x, (void)y;
    sp_vec_zero(G->dim, out);
}

static void rn_copy_second(const sp_group *G, const double *g, const double *x, double *out)
{
    (void)g;
    rn_copy(G, x, out);
}

#define RN_TYPE(n)                                                                                                     \
    {                                                                                                                  \
        .name = "R" #n, .dim = n, .elem_size = n, .mat_dim = n + 1, .act_dim = n, .identity = rn_identity,             \
        .compose = rn_compose, .inverse = rn_inverse, .act = rn_compose, .hat = rn_hat, .vee = rn_vee, .exp = rn_copy, \
        .log = rn_copy_status, .cay = rn_copy, .cay_inv = rn_copy_status, .dexp = rn_unit_matrix,                      \
        .dexp_inv = rn_unit_matrix, .dcay = rn_unit_matrix, .dcay_inv = rn_unit_matrix,                                \
        .dexp_T_deriv = rn_zero_matrix, .dcay_T_deriv = rn_zero_matrix, .ad = rn_zero_bracket,                         \
        .ad_star = rn_zero_bracket, .Ad = rn_copy_second, .Ad_star = rn_copy_second,                                   \
    }

static const sp_group rn_types[SP_LIE_MAX_DIM] = {RN_TYPE(1), RN_TYPE(2), RN_TYPE(3),
                                                  RN_TYPE(4), RN_TYPE(5), RN_TYPE(6)};

const sp_group *sp_group_rn(int n) { return n >= 1 && n <= SP_LIE_MAX_DIM ? &rn_types[n - 1] : NULL; }
