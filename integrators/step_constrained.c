/* The step types of mechanical systems with holonomic constraints: the RATTLE family and
 * Lobatto IIIA–IIIB (sp_holonomic.h), RATTLE on Lie groups and its compositions
 * (sp_lie_rattle.h), the Prop. 7 step (sp_prop7.h), feedback integrators on explicit
 * Runge–Kutta (sp_feedback.h) and splitting with exact flows (sp_splitting.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_holonomic.h"
#include "integrators/sp_lie_rattle.h"
#include "integrators/sp_prop7.h"
#include "integrators/sp_splitting.h"
#include "integrators/sp_step_types.h"

/* ---- the RATTLE family and Lobatto IIIA–IIIB on (q, p) */

/* SHAKE's momenta are half-step values: aux. */
static void layout_qp(sp_step_layout *layout, int n, int half_step_momenta)
{
    sp_step_layout_add(layout, "q", n, 0);
    sp_step_layout_add(layout, "p", n, half_step_momenta);
}

/* A stepper on (q, p) with its n. */
typedef struct qp_step {
    void *s;
    int n;
} qp_step;

static void *qp_wrap(void *s, int n, int half_step_momenta, sp_step_layout *layout, void (*free_stepper)(void *))
{
    qp_step *w = s ? malloc(sizeof *w) : NULL;
    if (!w) {
        if (s) free_stepper(s);
        return NULL;
    }
    *w = (qp_step){s, n};
    layout_qp(layout, n, half_step_momenta);
    return w;
}

static void hol_free_stepper(void *s) { sp_holonomic_free(s); }

static void *hol_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_step_layout *layout,
                       sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_holonomic_model *m = model;
    sp_holonomic *s = sp_holonomic_alloc(m, sp_holonomic_method_by_name(type->data));
    if (!s) return NULL;
    const sp_newton_options newton = sp_step_newton_options(opt);
    sp_holonomic_set_options(s, &newton);
    return qp_wrap(s, m->n, strcmp(type->data, "shake") == 0, layout, hol_free_stepper);
}

static sp_status hol_step(void *self, double h, double *x, sp_step_stats *stats)
{
    qp_step *w = self;
    sp_status st = sp_holonomic_step(w->s, h, x, x + w->n);
    sp_step_count_newton(stats, sp_holonomic_iterations(w->s), 0);
    return st;
}

static void hol_reset(void *self) { sp_holonomic_reset(((qp_step *)self)->s); }

static void hol_free(void *self)
{
    if (self) sp_holonomic_free(((qp_step *)self)->s);
    free(self);
}

/* |g(q)| and |G M⁻¹ p|, both kept to the solver tolerance. */
static sp_status hol_residuals(void *self, const double *x, double *values, int *count)
{
    qp_step *w = self;
    *count = 2;
    return sp_holonomic_residuals(w->s, x, x + w->n, &values[0], &values[1]);
}

/* SHAKE's momenta are half-step values, not tangent to T*Q: only the position constraint. */
static sp_status shake_residuals(void *self, const double *x, double *values, int *count)
{
    sp_status st = hol_residuals(self, x, values, count);
    *count = 1;
    return st;
}

#define HOL(name, order, flags, invariant)                                                                             \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_HOLONOMIC, SP_STEP_IMPLICIT | (flags), SP_STEP_KEEPS_ZERO, 1e-10, name, hol_alloc,  \
            hol_step, hol_reset, hol_free, invariant, NULL, NULL, NULL                                                 \
    }

static const sp_step_type holonomic_types[] = {
    HOL("se_a", 1, 0, hol_residuals),
    HOL("se_b", 1, 0, hol_residuals),
    HOL("se_ab", 2, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("rattle", 2, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("shake", 2, 0, shake_residuals),
    HOL("rattle_tj4", 4, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("rattle_suzuki5", 4, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("rattle_tj6", 6, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("rattle_kl8", 8, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("rattle_kl10", 10, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("lobatto3", 4, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("lobatto4", 6, SP_STEP_SYMMETRIC, hol_residuals),
    HOL("lobatto5", 8, SP_STEP_SYMMETRIC, hol_residuals),
};
const sp_step_type_list sp_step_types_holonomic = {holonomic_types, sizeof holonomic_types / sizeof holonomic_types[0]};

/* ---- RATTLE on a Lie group on (g, μ), alone or composed with the coefficients of a
 * RATTLE composition (the substeps γ_i h) */

typedef struct lie_rattle_step {
    sp_lie_rattle *s;
    const sp_holonomic_method *composition; /* NULL: RATTLE itself */
    int elem;
} lie_rattle_step;

static void *lie_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_step_layout *layout,
                       sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_lie_rattle_model *m = model;
    lie_rattle_step *r = calloc(1, sizeof *r);
    if (!r || !m || !m->group) {
        free(r);
        return NULL;
    }
    r->composition = type->data ? sp_holonomic_method_by_name(type->data) : NULL;
    r->s = sp_lie_rattle_alloc(m, opt->retraction);
    if (!r->s) {
        free(r);
        return NULL;
    }
    const sp_newton_options newton = sp_step_newton_options(opt);
    sp_lie_rattle_set_options(r->s, &newton);
    r->elem = m->group->elem_size;
    sp_step_layout_add(layout, "g", m->group->elem_size, 0);
    sp_step_layout_add(layout, "mu", m->group->dim, 0);
    return r;
}

static sp_status lie_step(void *self, double h, double *x, sp_step_stats *stats)
{
    lie_rattle_step *r = self;
    const sp_holonomic_method *c = r->composition;
    int iterations = 0;
    sp_status st = SP_OK;
    for (size_t i = 0; st == SP_OK && i < (c ? c->stages : 1); ++i) {
        st = sp_lie_rattle_step(r->s, (c ? c->gamma[i] : 1.0) * h, x, x + r->elem);
        iterations += sp_lie_rattle_iterations(r->s);
    }
    sp_step_count_newton(stats, iterations, 0);
    return st;
}

/* The force the stepper remembers belongs to the configuration its last step ended on,
 * which a step from anywhere else recomputes: nothing else to forget. */
static void lie_reset(void *self) { (void)self; }

static void lie_free(void *self)
{
    lie_rattle_step *r = self;
    if (!r) return;
    sp_lie_rattle_free(r->s);
    free(r);
}

static sp_status lie_energy(void *self, const double *x, double *values, int *count)
{
    lie_rattle_step *r = self;
    *count = 1;
    return sp_lie_rattle_energy(r->s, x, x + r->elem, values);
}

/* The energy stays bounded at the level of the method's error. */
#define LIE(name, order, composition, tol)                                                                             \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_LIE_RATTLE, SP_STEP_IMPLICIT | SP_STEP_SYMMETRIC, SP_STEP_KEEPS_CONSERVED, tol,     \
            composition, lie_alloc, lie_step, lie_reset, lie_free, lie_energy, NULL, NULL, NULL                        \
    }

static const sp_step_type lie_rattle_types[] = {
    LIE("lie_rattle", 2, NULL, 1e-3),
    LIE("lie_rattle_tj4", 4, "rattle_tj4", 1e-4),
    LIE("lie_rattle_suzuki5", 4, "rattle_suzuki5", 1e-4),
    LIE("lie_rattle_tj6", 6, "rattle_tj6", 1e-6),
    LIE("lie_rattle_kl8", 8, "rattle_kl8", 1e-7),
    LIE("lie_rattle_kl10", 10, "rattle_kl10", 1e-7),
};
const sp_step_type_list sp_step_types_lie_rattle = {lie_rattle_types,
                                                    sizeof lie_rattle_types / sizeof lie_rattle_types[0]};

/* ---- Prop. 7: holonomic plus index-1 constraints on (q, p) */

static void prop7_free_stepper(void *s) { sp_prop7_free(s); }

static void *prop7_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                         sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    (void)type;
    const sp_prop7_model *m = model;
    sp_prop7 *s = sp_prop7_alloc(m);
    if (!s) return NULL;
    const sp_newton_options newton = sp_step_newton_options(opt);
    sp_prop7_set_options(s, &newton);
    return qp_wrap(s, m->vak.n, 0, layout, prop7_free_stepper);
}

static sp_status prop7_step(void *self, double h, double *x, sp_step_stats *stats)
{
    qp_step *w = self;
    sp_status st = sp_prop7_step(w->s, h, x, x + w->n);
    sp_step_count_newton(stats, sp_prop7_iterations(w->s), 0);
    return st;
}

static void prop7_reset(void *self) { sp_prop7_reset(((qp_step *)self)->s); }

static void prop7_free(void *self)
{
    if (self) sp_prop7_free(((qp_step *)self)->s);
    free(self);
}

static sp_status prop7_residuals(void *self, const double *x, double *values, int *count)
{
    qp_step *w = self;
    *count = 2;
    return sp_prop7_residuals(w->s, x, x + w->n, &values[0], &values[1]);
}

static const sp_step_type prop7_types[] = {
    {"prop7", 2, SP_STEP_MODEL_PROP7, SP_STEP_IMPLICIT | SP_STEP_SYMMETRIC, SP_STEP_KEEPS_ZERO, 1e-10, NULL,
     prop7_alloc, prop7_step, prop7_reset, prop7_free, prop7_residuals, NULL, NULL, NULL},
};
const sp_step_type_list sp_step_types_prop7 = {prop7_types, 1};

/* ---- feedback integrators: explicit Runge–Kutta on the feedback field of a holonomic model */

typedef struct feedback_step {
    sp_feedback *fb;
    sp_erk *erk;
    sp_erk_control control;
} feedback_step;

static void feedback_free(void *self)
{
    feedback_step *f = self;
    if (!f) return;
    sp_erk_free(f->erk);
    sp_feedback_free(f->fb);
    free(f);
}

static void *feedback_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                            sp_step_layout *layout, sp_status *why)
{
    const sp_holonomic_model *m = model;
    feedback_step *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->control = opt->control;
    f->fb = sp_feedback_alloc(m, &opt->gains, opt->integral);
    sp_status st = f->fb && opt->reference ? sp_feedback_set_reference(f->fb, opt->reference) : SP_OK;
    if (!f->fb || st != SP_OK) {
        if (st != SP_OK) *why = st; /* the model failed at the reference state */
        feedback_free(f);
        return NULL;
    }
    const sp_ode_system ode = sp_feedback_system(f->fb, 1);
    if (!(f->erk = sp_erk_alloc(type->data, &ode))) {
        feedback_free(f);
        return NULL;
    }
    layout_qp(layout, m->n, 0);
    return f;
}

/* The explicit stepper's own counts, as a difference over one call. */
static void count_erk(sp_step_stats *stats, sp_erk_stats before, sp_erk_stats after, int count_steps)
{
    stats->rhs_evaluations += after.evaluations - before.evaluations;
    stats->rejected_steps += after.rejected - before.rejected;
    if (count_steps) stats->steps += after.steps - before.steps;
}

static sp_status erk_step(sp_erk *erk, double h, double *x, sp_step_stats *stats)
{
    const sp_erk_stats before = sp_erk_get_stats(erk);
    sp_status st = sp_erk_step(erk, h, x);
    count_erk(stats, before, sp_erk_get_stats(erk), 0);
    return st;
}

static sp_status erk_evolve(sp_erk *erk, sp_erk_control control, double *t, double t1, double *h, long max_attempts,
                            double *x, sp_step_stats *stats)
{
    const sp_erk_stats before = sp_erk_get_stats(erk);
    control.max_steps = max_attempts;
    sp_status st = sp_erk_evolve(erk, &control, t, t1, h, x);
    count_erk(stats, before, sp_erk_get_stats(erk), 1);
    return st;
}

static sp_status feedback_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    return erk_step(((feedback_step *)self)->erk, h, x, stats);
}

static sp_status feedback_evolve(void *self, double *t, double t1, double *h, long max_attempts, double *x,
                                 sp_step_stats *stats)
{
    feedback_step *f = self;
    return erk_evolve(f->erk, f->control, t, t1, h, max_attempts, x, stats);
}

static void feedback_reset(void *self) { sp_erk_reset(((feedback_step *)self)->erk); }

/* The constraint and the hidden constraint, which the feedback holds near zero. */
static sp_status feedback_deviations(void *self, const double *x, double *values, int *count)
{
    double dev[4];
    sp_status st = sp_feedback_deviations(((feedback_step *)self)->fb, x, dev);
    values[0] = dev[0];
    values[1] = dev[1];
    *count = 2;
    return st;
}

/* The deviations stay bounded at the level of the method's local error. */
#define FEEDBACK(name, order, table, flags, tol, evolve)                                                               \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_HOLONOMIC, flags, SP_STEP_KEEPS_ZERO, tol, table, feedback_alloc, feedback_step_fn, \
            feedback_reset, feedback_free, feedback_deviations, evolve, NULL, NULL                                     \
    }

static const sp_step_type feedback_types[] = {
    FEEDBACK("feedback_euler", 1, "euler", 0, 1e-1, NULL),
    FEEDBACK("feedback_rk4", 4, "rk4", 0, 1e-4, NULL),
    FEEDBACK("feedback_dop853", 8, "dop853", SP_STEP_ADAPTIVE, 1e-9, feedback_evolve),
};
const sp_step_type_list sp_step_types_feedback = {feedback_types, sizeof feedback_types / sizeof feedback_types[0]};

/* ---- splitting methods with the exact flows of a split system, on z */

typedef struct splitting_step {
    const sp_splitting_method *method;
    const sp_split_system *system;
} splitting_step;

static void *splitting_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                             sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    (void)opt;
    const sp_split_system *system = model;
    splitting_step *s = system && system->dim > 0 ? calloc(1, sizeof *s) : NULL;
    if (!s) return NULL;
    *s = (splitting_step){sp_splitting_method_by_name(type->data), system};
    sp_step_layout_add(layout, "z", system->dim, 0);
    return s;
}

static sp_status splitting_step_fn(void *self, double h, double *x, sp_step_stats *stats)
{
    const splitting_step *s = self;
    stats->exact_flows += s->method->stages;
    return sp_splitting_step(s->method, s->system, h, x);
}

static void splitting_reset(void *self) { (void)self; }

#define SPLITTING(name, order, flags)                                                                                  \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_SPLIT, flags, SP_STEP_KEEPS_NOTHING, 0.0, name, splitting_alloc, splitting_step_fn, \
            splitting_reset, free, NULL, NULL, NULL, NULL                                                              \
    }

static const sp_step_type splitting_types[] = {
    SPLITTING("lie_trotter", 1, 0),
    SPLITTING("strang", 2, SP_STEP_SYMMETRIC),
};
const sp_step_type_list sp_step_types_splitting = {splitting_types, sizeof splitting_types / sizeof splitting_types[0]};

/* ---- explicit Runge–Kutta on an ODE ẏ = F(y) */

static void *explicit_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt,
                            sp_step_layout *layout, sp_status *why)
{
    (void)why; /* only out of memory or an invalid model: the caller's default */
    const sp_ode_system *ode = model;
    feedback_step *f = ode ? calloc(1, sizeof *f) : NULL;
    if (!f) return NULL;
    f->control = opt->control;
    if (!(f->erk = sp_erk_alloc(type->data, ode))) {
        free(f);
        return NULL;
    }
    sp_step_layout_add(layout, "y", ode->dim, 0);
    return f;
}

#define EXPLICIT(name, order, table, flags, evolve)                                                                    \
    {                                                                                                                  \
        name, order, SP_STEP_MODEL_ODE, flags, SP_STEP_KEEPS_NOTHING, 0.0, table, explicit_alloc, feedback_step_fn,    \
            feedback_reset, feedback_free, NULL, evolve, NULL, NULL                                                    \
    }

static const sp_step_type explicit_types[] = {
    EXPLICIT("euler", 1, "euler", 0, NULL),
    EXPLICIT("rk4", 4, "rk4", 0, NULL),
    EXPLICIT("dop853", 8, "dop853", SP_STEP_ADAPTIVE, feedback_evolve),
};
const sp_step_type_list sp_step_types_explicit = {explicit_types, sizeof explicit_types / sizeof explicit_types[0]};
