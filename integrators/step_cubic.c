/* The step types of Riemannian cubics: the HOHP θ-family and its RKMK partner on a Lie
 * group (sp_hohp.h, sp_hohp_rk.h), on (g, ξ, ν, p) laid flat; DOP853 on the round sphere
 * (sp_round_sphere.h), on (y, v, a, j, cost). */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_hohp.h"
#include "integrators/sp_hohp_rk.h"
#include "integrators/sp_round_sphere.h"
#include "integrators/sp_step_types.h"
#include "lie/sp_linalg.h"

typedef struct hohp_step {
    const sp_group *G;
    sp_hohp *s;     /* the θ-family */
    sp_hohp_rk *rk; /* or the RKMK scheme */
} hohp_step;

static void hohp_free(void *self)
{
    hohp_step *c = self;
    if (!c) return;
    sp_hohp_free(c->s);
    sp_hohp_rk_free(c->rk);
    free(c);
}

static void *hohp_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_step_layout *layout,
                        sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_group *G = model;
    const sp_hohp_scheme *scheme =
        strcmp(type->data, sp_hohp_scheme_rkmk8.name) == 0 ? &sp_hohp_scheme_rkmk8 : sp_hohp_scheme_by_name(type->data);
    hohp_step *c = G && scheme ? calloc(1, sizeof *c) : NULL;
    if (!c) return NULL;
    c->G = G;
    if (scheme->rk_table) {
        c->rk = sp_hohp_rk_alloc(G, scheme->rk_table);
    } else {
        sp_hohp_config cfg = sp_hohp_config_default(G);
        cfg.retraction = opt->retraction;
        cfg.theta = scheme->theta;
        cfg.solver = opt->hohp_solver;
        cfg.solve = sp_step_newton_options(opt);
        c->s = sp_hohp_alloc(&cfg);
    }
    if (!c->s && !c->rk) {
        hohp_free(c);
        return NULL;
    }
    sp_step_layout_add(layout, "g", G->elem_size, 0);
    sp_step_layout_add(layout, "xi", G->dim, 0);
    sp_step_layout_add(layout, "nu", G->dim, 0);
    sp_step_layout_add(layout, "p", G->dim, 0);
    return c;
}

static void unpack(const sp_group *G, const double *x, sp_hohp_state *z)
{
    memset(z, 0, sizeof *z);
    sp_vec_copy(G->elem_size, x, z->g);
    sp_vec_copy(G->dim, x + G->elem_size, z->xi);
    sp_vec_copy(G->dim, x + G->elem_size + G->dim, z->nu);
    sp_vec_copy(G->dim, x + G->elem_size + 2 * G->dim, z->p);
}

static void pack(const sp_group *G, const sp_hohp_state *z, double *x)
{
    sp_vec_copy(G->elem_size, z->g, x);
    sp_vec_copy(G->dim, z->xi, x + G->elem_size);
    sp_vec_copy(G->dim, z->nu, x + G->elem_size + G->dim);
    sp_vec_copy(G->dim, z->p, x + G->elem_size + 2 * G->dim);
}

static sp_status hohp_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    hohp_step *c = self;
    sp_hohp_state z;
    unpack(c->G, x, &z);
    sp_status st;
    if (c->rk) {
        st = sp_hohp_rk_step(c->rk, h, &z, &z, NULL, 0, NULL);
        stats->rhs_evaluations += 12; /* DOP853's stages */
    } else {
        sp_hohp_interval iv;
        st = sp_hohp_step(c->s, h, &z, &z, &iv);
        sp_step_count_newton(stats, st == SP_OK ? iv.iterations : 0, 0);
        if (st == SP_OK && iv.iterations == 0) stats->rhs_evaluations += 1; /* an explicit member */
    }
    if (st == SP_OK) pack(c->G, &z, x);
    return st;
}

static void hohp_reset(void *self)
{
    hohp_step *c = self;
    if (c->s) sp_hohp_reset(c->s);
}

/* The spatial momentum map Ad*_{g⁻¹} ν. */
static sp_status hohp_momentum(void *self, const double *x, double *values, int *count)
{
    hohp_step *c = self;
    sp_hohp_state z;
    unpack(c->G, x, &z);
    sp_hohp_momentum_map(c->G, &z, values);
    *count = c->G->dim;
    return SP_OK;
}

#define HOHP(name, order, flags, tol)                                                                                  \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_GROUP, flags, SP_STEP_KEEPS_CONSERVED, tol, name, hohp_alloc, hohp_step_fn,         \
            hohp_reset, hohp_free, hohp_momentum, NULL, NULL, NULL                                                     \
    }

/* The continuous equations of the RKMK scheme keep the momentum map to the local error. */
static const sp_step_type hohp_types[] = {
    HOHP("hohp_euler", 1, 0, 1e-10),
    HOHP("hohp_sv", 2, SP_STEP_IMPLICIT | SP_STEP_SYMMETRIC, 1e-10),
    HOHP("hohp_euler_adjoint", 1, 0, 1e-10),
    HOHP("hohp_rkmk8", 8, 0, 1e-8),
};
const sp_step_type_list sp_step_types_hohp = {hohp_types, sizeof hohp_types / sizeof hohp_types[0]};

/* ---- the round sphere */

static void *sphere_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                          sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    (void)type, (void)model, (void)opt;
    sp_round_sphere *s = malloc(sizeof *s);
    if (!s || sp_round_sphere_init(s) != SP_OK) {
        free(s);
        return NULL;
    }
    static const char *const names[] = {"y", "v", "a", "j"};
    for (int i = 0; i < 4; ++i) sp_step_layout_add(layout, names[i], 3, 0);
    sp_step_layout_add(layout, "cost", 1, 0);
    return s;
}

static sp_status sphere_step(void *self, double h, double *x, sp_step_stats *stats)
{
    const sp_round_sphere *s = self;
    stats->rhs_evaluations += s->stages;
    return sp_round_sphere_step(s, h, x, x, 0, 0, NULL);
}

static void sphere_reset(void *self) { (void)self; }

/* |y|² − 1 and y·v: the point stays on the sphere, the velocity tangent to it. */
static sp_status sphere_invariant(void *self, const double *x, double *values, int *count)
{
    (void)self;
    values[0] = sp_vec_dot(3, x + SP_RS_Y, x + SP_RS_Y) - 1.0;
    values[1] = sp_vec_dot(3, x + SP_RS_Y, x + SP_RS_V);
    *count = 2;
    return SP_OK;
}

static const sp_step_type round_sphere_types[] = {
    {"round_sphere_dop853", 8, SP_STEP_MODEL_ROUND_SPHERE, 0, SP_STEP_KEEPS_ZERO, 1e-9, NULL, sphere_alloc, sphere_step,
     sphere_reset, free, sphere_invariant, NULL, NULL, NULL},
};
const sp_step_type_list sp_step_types_round_sphere = {round_sphere_types, 1};
