/* One step type for every integrator of the library, in the manner of GSL's
 * gsl_odeiv2_step_type: a constant table per method (name, declared order, the model it
 * steps, the layout of its state, alloc/step/reset/free) and a registry of them. A
 * stepper made from a table steps one flat state vector x in place, whatever the method;
 * sp_step_apply only forwards, with the checks every method shares:
 *
 *   - h = 0 and a non-finite h are refused with SP_ERR_INVALID;
 *   - a failed step (its status, or a non-finite result: SP_ERR_NONFINITE) leaves x
 *     bitwise as it was;
 *   - the work of every step is counted in one sp_step_stats.
 *
 * Model callbacks, wherever a model calls back, follow one convention (as SUNDIALS):
 * 0 is success, > 0 a recoverable failure (an adaptive step retries smaller; a fixed step
 * reports SP_ERR_CALLBACK), < 0 a fatal one (SP_ERR_CALLBACK). */
#ifndef SP_STEP_H
#define SP_STEP_H

#include <stddef.h>

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_feedback.h"
#include "integrators/sp_hohp.h"
#include "integrators/sp_newton.h"
#include "lie/sp_lie.h"
#include "lie/sp_status.h"

/* What a type's alloc takes as its model (the pointer's type, borrowed by the stepper). */
typedef enum {
    SP_STEP_MODEL_GROUP,        /* const sp_group: Riemannian cubics on a Lie group (sp_hohp.h) */
    SP_STEP_MODEL_HOLONOMIC,    /* sp_holonomic_model (sp_holonomic.h) */
    SP_STEP_MODEL_LIE_RATTLE,   /* sp_lie_rattle_model (sp_lie_rattle.h) */
    SP_STEP_MODEL_VAKONOMIC,    /* sp_vakonomic_model (sp_vakonomic.h) */
    SP_STEP_MODEL_PROP7,        /* sp_prop7_model (sp_prop7.h) */
    SP_STEP_MODEL_NONHOLONOMIC, /* sp_nh_model (sp_nonholonomic.h) */
    SP_STEP_MODEL_NH_LIE,       /* sp_nh_lie_model (sp_nh_lie.h) */
    SP_STEP_MODEL_SPLIT,        /* sp_split_system (sp_splitting.h) */
    SP_STEP_MODEL_ODE,          /* sp_ode_system (sp_explicit_rk.h) */
    SP_STEP_MODEL_ROUND_SPHERE, /* none (NULL): cubics of the round sphere (sp_round_sphere.h) */
    SP_STEP_MODEL_KINDS
} sp_step_model_kind;

/* The state: named parts laid one after another in x. An `aux` part is not the state at
 * the step point whose error the method's order bounds: a multiplier λ (carried or
 * recomputed), SHAKE's half-step momenta. */
#define SP_STEP_MAX_PARTS 6
#define SP_STEP_MAX_DIM 64
typedef struct sp_step_part {
    const char *name;
    int size;
    int aux;
} sp_step_part;
typedef struct sp_step_layout {
    int n_parts;
    sp_step_part part[SP_STEP_MAX_PARTS];
    int dim; /* the sum of the sizes */
} sp_step_layout;

/* Work, summed over the steps since alloc. */
typedef struct sp_step_stats {
    long steps;             /* attempted steps (an adaptive method's rejected ones too) */
    long newton_iterations; /* implicit methods */
    int max_iterations;     /* most Newton iterations in one step */
    long factorizations;    /* LU factorisations of the Newton matrix, where counted */
    long rhs_evaluations;   /* explicit methods */
    long rejected_steps;    /* adaptive methods */
    long exact_flows;       /* splitting methods */
} sp_step_stats;

/* Options every type reads at alloc (the fields it has no use for are ignored). Zero is
 * the default throughout: sp_step_options_default() spells it out. */
typedef struct sp_step_options {
    sp_newton_options newton;        /* implicit solves; tol 0 reads as 1e-15, max_iter 0 as 50 */
    const sp_retraction *retraction; /* Lie-group methods; NULL: Cayley */
    sp_hohp_solver hohp_solver;      /* θ = ½ of the HOHP family */
    int index1_solver;               /* sp_index1_solver */
    int nh_lambda1;                  /* sp_nh_lambda1 / sp_nh_lie_lambda1: carry (0) or recompute */
    /* feedback methods: the gains, an extra first integral (may be NULL), the state whose
     * H and I the feedback holds (NULL: H₀ = I₀ = 0) */
    sp_feedback_gains gains;
    const sp_first_integral *integral;
    const double *reference;
    sp_erk_control control; /* adaptive methods: zero rtol and atol read as sp_erk_control_default() */
} sp_step_options;

sp_step_options sp_step_options_default(void);

/* The quantity a method keeps, as its invariant function measures it (up to
 * SP_STEP_MAX_INVARIANTS values): ZERO values stay at most invariant_tol in size,
 * CONSERVED ones within invariant_tol of their start (exact or bounded conservation). */
#define SP_STEP_MAX_INVARIANTS 8
typedef enum { SP_STEP_KEEPS_NOTHING, SP_STEP_KEEPS_ZERO, SP_STEP_KEEPS_CONSERVED } sp_step_keeps;

enum {
    SP_STEP_SYMMETRIC = 1,            /* the one-step map is symmetric: a step of h then of −h returns */
    SP_STEP_ADAPTIVE = 2,             /* the type has an error-controlled evolve */
    SP_STEP_IMPLICIT = 4,             /* steps solve equations (reads options.newton) */
    SP_STEP_COUNTS_FACTORIZATIONS = 8 /* its statistics count the Newton matrix's factorisations */
};

typedef struct sp_step_type sp_step_type;
struct sp_step_type {
    const char *name;
    int order; /* declared */
    sp_step_model_kind model;
    unsigned flags;
    sp_step_keeps keeps;
    double invariant_tol;
    const void *data; /* the method's own constant data (a scheme, a table, a stage count) */
    /* The stepper of `model` with `opt` (never NULL); fills *layout. NULL on an invalid
     * model or options, or out of memory; *why may then be set to a more telling status
     * (a model that fails where the stepper starts). */
    void *(*alloc)(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_step_layout *layout,
                   sp_status *why);
    /* One step of size h in place on x, adding its work to *stats (steps are counted by
     * the caller). May leave x changed on failure: sp_step_apply restores it. */
    sp_status (*step)(void *self, double h, double *x, sp_step_stats *stats);
    /* Forgets the steps taken (warm starts, cached evaluations, a two-step history). */
    void (*reset)(void *self);
    void (*free)(void *self);
    /* The kept quantities at x (*count of them), or NULL for a type that keeps none. */
    sp_status (*invariant)(void *self, const double *x, double *values, int *count);
    /* Adaptive types: one accepted step from *t towards t1 (never beyond) with *h the
     * proposal on entry and on return, at most max_attempts attempts. NULL otherwise. */
    sp_status (*evolve)(void *self, double *t, double t1, double *h, long max_attempts, double *x,
                        sp_step_stats *stats);
    /* Types that keep a constraint at internal stages: its largest residual there over
     * the last successful step. NULL otherwise. */
    double (*stage_residual)(const void *self);
    /* Types that offer it: the exact derivative of the last successful step with respect
     * to the parts before the aux ones (row-major, square). NULL otherwise. */
    sp_status (*step_jacobian)(void *self, double *Phi);
};

/* The registry: the i-th type (NULL past the end) and the type of a name (NULL if none). */
const sp_step_type *sp_step_type_at(size_t i);
const sp_step_type *sp_step_type_named(const char *name);

/* A stepper: a type's state with its layout and statistics. */
typedef struct sp_step sp_step;

/* Borrows the model (which must outlive the stepper); copies the options (NULL: defaults).
 * NULL when the type refuses the model or memory runs out; then *why (when not NULL)
 * says which: SP_ERR_NOMEM, or what the model reported. */
sp_step *sp_step_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_status *why);
void sp_step_free(sp_step *s); /* NULL is a no-op */
const sp_step_type *sp_step_type_of(const sp_step *s);
const sp_step_layout *sp_step_layout_of(const sp_step *s);

/* One step of size h (either sign) in place on x (layout dim numbers); see the top. */
sp_status sp_step_apply(sp_step *s, double h, double *x);
/* Adaptive types: one accepted step towards t1 (sp_step_type.evolve), with the same
 * guarantees; SP_ERR_INVALID for a fixed-step type. */
sp_status sp_step_evolve(sp_step *s, double *t, double t1, double *h, long max_attempts, double *x);
void sp_step_reset(sp_step *s); /* the statistics are kept */
/* sp_step_type.stage_residual of the last successful step; 0 for a type without one. */
double sp_step_stage_residual(const sp_step *s);
/* sp_step_type.step_jacobian; SP_ERR_INVALID for a type without one. */
sp_status sp_step_jacobian(sp_step *s, double *Phi);
sp_step_stats sp_step_stats_of(const sp_step *s);
/* The kept quantities at x; *count 0 for a type that keeps none. */
sp_status sp_step_invariant(sp_step *s, const double *x, double *values, int *count);

#endif
