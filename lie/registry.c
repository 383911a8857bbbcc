/* Name registries of groups and retractions. Adding a group means adding one line to
 * the table below; `symplan list` and the conformance tests pick it up from here. */
#include <string.h>

#include "lie/sp_lie.h"
#include "lie/sp_registry.h"

static const sp_group *group_table(size_t i)
{
    if (i == 0) return sp_group_so3;
    if (i == 1) return sp_group_se2;
    if (i == 2) return sp_group_se3;
    return sp_group_rn((int)i - 2); /* R1 … R6, then NULL */
}

const sp_group *sp_group_at(size_t i) { return group_table(i); }

const sp_group *sp_group_by_name(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; sp_group_at(i); ++i)
        if (strcmp(sp_group_at(i)->name, name) == 0) return sp_group_at(i);
    return NULL;
}

static void exp_tau(const sp_group *G, const double *x, double *g) { G->exp(G, x, g); }
static sp_status exp_tau_inv(const sp_group *G, const double *g, double *x) { return G->log(G, g, x); }
static void exp_dtau(const sp_group *G, const double *x, double *M) { G->dexp(G, x, M); }
static void exp_dtau_inv(const sp_group *G, const double *x, double *M) { G->dexp_inv(G, x, M); }
static void exp_deriv(const sp_group *G, const double *x, const double *v, double *M) { G->dexp_T_deriv(G, x, v, M); }

static void cay_tau(const sp_group *G, const double *x, double *g) { G->cay(G, x, g); }
static sp_status cay_tau_inv(const sp_group *G, const double *g, double *x) { return G->cay_inv(G, g, x); }
static void cay_dtau(const sp_group *G, const double *x, double *M) { G->dcay(G, x, M); }
static void cay_dtau_inv(const sp_group *G, const double *x, double *M) { G->dcay_inv(G, x, M); }
static void cay_deriv(const sp_group *G, const double *x, const double *v, double *M) { G->dcay_T_deriv(G, x, v, M); }

static const sp_retraction retractions[] = {
    {"cayley", cay_tau, cay_tau_inv, cay_dtau, cay_dtau_inv, cay_deriv},
    {"exp", exp_tau, exp_tau_inv, exp_dtau, exp_dtau_inv, exp_deriv},
};

const sp_retraction *const sp_retraction_cayley = &retractions[0];
const sp_retraction *const sp_retraction_exp = &retractions[1];

SP_REGISTRY_OF_TABLES(sp_retraction, retractions, sp_retraction_at, sp_retraction_by_name)
