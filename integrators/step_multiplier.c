/* The step types whose state carries a multiplier λ: Gauss–Legendre for index-1
 * (vakonomic) systems (sp_index1.h), on (q, p, λ) with λ recomputed at the step's end;
 * Lobatto IIIA–IIIB for nonholonomic systems on vector spaces (sp_nonholonomic.h), on
 * (q, p, λ), and on Lie groups (sp_nh_lie.h), on (g, μ, λ), with λ carried. */
#include <stdlib.h>

#include "integrators/sp_index1.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_nonholonomic.h"
#include "integrators/sp_step_types.h"

static const int stage_counts[] = {0, 1, 2, 3, 4, 5, 6};

/* ---- index-1: Gauss–Legendre with s stages */

typedef struct index1_step {
    sp_index1 *s;
    sp_vakonomic_point *pt;
    const sp_vakonomic_model *model;
} index1_step;

static void index1_free(void *self)
{
    index1_step *v = self;
    if (!v) return;
    sp_index1_free(v->s);
    sp_vakonomic_point_free(v->pt);
    free(v);
}

static void *index1_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                          sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_vakonomic_model *m = model;
    sp_tableau tab;
    index1_step *v =
        m && sp_tableau_get("gauss", *(const int *)type->data, &tab) == SP_OK ? calloc(1, sizeof *v) : NULL;
    if (!v) return NULL;
    v->model = m;
    v->s = sp_index1_alloc(m, &tab);
    v->pt = sp_vakonomic_point_alloc(m);
    if (!v->s || !v->pt) {
        index1_free(v);
        return NULL;
    }
    const sp_newton_options newton = sp_step_newton_options(opt);
    sp_index1_set_options(v->s, &newton);
    sp_index1_set_solver(v->s, (sp_index1_solver)opt->index1_solver);
    sp_step_layout_add(layout, "q", m->n, 0);
    sp_step_layout_add(layout, "p", m->n, 0);
    sp_step_layout_add(layout, "lambda", m->m, 1);
    return v;
}

static sp_status index1_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    index1_step *v = self;
    const int n = v->model->n;
    sp_status st = sp_index1_step(v->s, h, x, x + n, x, x + n, x + 2 * n);
    sp_step_count_newton(stats, sp_index1_iterations(v->s), sp_index1_factorizations(v->s));
    return st;
}

/* A step that does not continue the last one starts plainly (sp_index1.h): nothing to forget. */
static void index1_reset(void *self) { (void)self; }

static sp_status index1_jacobian(void *self, double *Phi)
{
    return sp_index1_step_jacobian(((index1_step *)self)->s, Phi);
}

/* The reduced Hamiltonian Ĥ, kept without drift. */
static sp_status index1_energy(void *self, const double *x, double *values, int *count)
{
    index1_step *v = self;
    *count = 1;
    return sp_vakonomic_hamiltonian(v->model, v->pt, x, x + v->model->n, values, NULL, NULL);
}

#define GAUSS(name, s)                                                                                                 \
    {                                                                                                                  \
        name, 2 * (s), SP_STEP_MODEL_VAKONOMIC, SP_STEP_IMPLICIT | SP_STEP_SYMMETRIC | SP_STEP_COUNTS_FACTORIZATIONS,  \
            SP_STEP_KEEPS_CONSERVED, 1e-4, &stage_counts[s], index1_alloc, index1_step_fn, index1_reset, index1_free,  \
            index1_energy, NULL, NULL, index1_jacobian                                                                 \
    }

static const sp_step_type index1_types[] = {
    GAUSS("index1_gauss1", 1), GAUSS("index1_gauss2", 2), GAUSS("index1_gauss3", 3),
    GAUSS("index1_gauss4", 4), GAUSS("index1_gauss5", 5), GAUSS("index1_gauss6", 6),
};
const sp_step_type_list sp_step_types_index1 = {index1_types, sizeof index1_types / sizeof index1_types[0]};

/* ---- nonholonomic Lobatto IIIA–IIIB on a vector space */

typedef struct nh_step {
    sp_nh *s;
    const sp_nh_model *model;
} nh_step;

static void nh_free(void *self)
{
    nh_step *v = self;
    if (v) sp_nh_free(v->s);
    free(v);
}

static void *nh_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_step_layout *layout,
                      sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_nh_model *m = model;
    sp_nh_options o = sp_nh_options_default();
    sp_step_merge_newton(&o.newton, opt);
    o.lambda1 = (sp_nh_lambda1)opt->nh_lambda1;
    nh_step *v = m ? calloc(1, sizeof *v) : NULL;
    if (!v) return NULL;
    v->model = m;
    if (!(v->s = sp_nh_alloc(m, *(const int *)type->data, &o))) {
        nh_free(v);
        return NULL;
    }
    sp_step_layout_add(layout, "q", m->n, 0);
    sp_step_layout_add(layout, "p", m->n, 0);
    sp_step_layout_add(layout, "lambda", m->m, 1);
    return v;
}

static sp_status nh_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    nh_step *v = self;
    const int n = v->model->n;
    sp_status st = sp_nh_step(v->s, h, x, x + n, x + 2 * n);
    if (st == SP_OK) {
        const sp_nh_step_info info = sp_nh_last_step(v->s);
        sp_step_count_newton(stats, info.iterations, info.factorizations);
    }
    return st;
}

static double nh_stage_residual(const void *self) { return sp_nh_last_step(((const nh_step *)self)->s).stage_residual; }

/* Only a step from exactly where the last one ended continues it (sp_nonholonomic.h). */
static void nh_reset(void *self) { (void)self; }

static sp_status nh_constraint(void *self, const double *x, double *values, int *count)
{
    nh_step *v = self;
    *count = 1;
    return sp_nh_constraint_residual(v->model, x, x + v->model->n, values);
}

#define NH(name, s)                                                                                                    \
    {                                                                                                                  \
        name, 2 * (s)-2, SP_STEP_MODEL_NONHOLONOMIC,                                                                   \
            SP_STEP_IMPLICIT | SP_STEP_SYMMETRIC | SP_STEP_COUNTS_FACTORIZATIONS, SP_STEP_KEEPS_ZERO, 1e-10,           \
            &stage_counts[s], nh_alloc, nh_step_fn, nh_reset, nh_free, nh_constraint, NULL, nh_stage_residual, NULL    \
    }

static const sp_step_type nonholonomic_types[] = {
    NH("nh_lobatto2", 2), NH("nh_lobatto3", 3), NH("nh_lobatto4", 4), NH("nh_lobatto5", 5), NH("nh_lobatto6", 6),
};
const sp_step_type_list sp_step_types_nonholonomic = {nonholonomic_types,
                                                      sizeof nonholonomic_types / sizeof nonholonomic_types[0]};

/* ---- nonholonomic Lobatto IIIA–IIIB on a Lie group */

typedef struct nh_lie_step {
    sp_nh_lie *s;
    const sp_nh_lie_model *model;
} nh_lie_step;

static void nh_lie_free(void *self)
{
    nh_lie_step *v = self;
    if (v) sp_nh_lie_free(v->s);
    free(v);
}

static void *nh_lie_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                          sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_nh_lie_model *m = model;
    sp_nh_lie_options o = sp_nh_lie_options_default();
    sp_step_merge_newton(&o.newton, opt);
    o.lambda1 = (sp_nh_lie_lambda1)opt->nh_lambda1;
    nh_lie_step *v = m && m->group ? calloc(1, sizeof *v) : NULL;
    if (!v) return NULL;
    v->model = m;
    if (!(v->s = sp_nh_lie_alloc(m, opt->retraction, *(const int *)type->data, &o))) {
        nh_lie_free(v);
        return NULL;
    }
    sp_step_layout_add(layout, "g", m->group->elem_size, 0);
    sp_step_layout_add(layout, "mu", m->group->dim, 0);
    sp_step_layout_add(layout, "lambda", m->m, 1);
    return v;
}

static sp_status nh_lie_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    nh_lie_step *v = self;
    const sp_group *G = v->model->group;
    sp_status st = sp_nh_lie_step(v->s, h, x, x + G->elem_size, x + G->elem_size + G->dim);
    if (st == SP_OK) sp_step_count_newton(stats, sp_nh_lie_last_step(v->s).iterations, 0);
    return st;
}

static double nh_lie_stage_residual(const void *self)
{
    return sp_nh_lie_last_step(((const nh_lie_step *)self)->s).stage_residual;
}

static void nh_lie_reset(void *self) { sp_nh_lie_reset(((nh_lie_step *)self)->s); }

static sp_status nh_lie_constraint(void *self, const double *x, double *values, int *count)
{
    nh_lie_step *v = self;
    *count = 1;
    return sp_nh_lie_constraint_residual(v->model, x, x + v->model->group->elem_size, values);
}

/* The chart is anchored at the step's start: symmetric only on abelian groups. */
#define NH_LIE(name, s)                                                                                                \
    {                                                                                                                  \
        name, 2 * (s)-2, SP_STEP_MODEL_NH_LIE, SP_STEP_IMPLICIT, SP_STEP_KEEPS_ZERO, 1e-10, &stage_counts[s],          \
            nh_lie_alloc, nh_lie_step_fn, nh_lie_reset, nh_lie_free, nh_lie_constraint, NULL, nh_lie_stage_residual,   \
            NULL                                                                                                       \
    }

static const sp_step_type nh_lie_types[] = {
    NH_LIE("nh_lie_lobatto2", 2),
    NH_LIE("nh_lie_lobatto3", 3),
    NH_LIE("nh_lie_lobatto4", 4),
};
const sp_step_type_list sp_step_types_nh_lie = {nh_lie_types, sizeof nh_lie_types / sizeof nh_lie_types[0]};
