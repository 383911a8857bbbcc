/* The registry of step types and the forwarding stepper of sp_step.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_step.h"
#include "integrators/sp_step_types.h"

static const sp_step_type_list *const lists[] = {
    &sp_step_types_hohp,     &sp_step_types_holonomic, &sp_step_types_lie_rattle,   &sp_step_types_prop7,
    &sp_step_types_feedback, &sp_step_types_splitting, &sp_step_types_index1,       &sp_step_types_nonholonomic,
    &sp_step_types_nh_lie,   &sp_step_types_explicit,  &sp_step_types_round_sphere,
};

const sp_step_type *sp_step_type_at(size_t i)
{
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; ++l) {
        if (i < lists[l]->count) return &lists[l]->types[i];
        i -= lists[l]->count;
    }
    return NULL;
}

const sp_step_type *sp_step_type_named(const char *name)
{
    const sp_step_type *t;
    for (size_t i = 0; name && (t = sp_step_type_at(i)); ++i)
        if (strcmp(t->name, name) == 0) return t;
    return NULL;
}

sp_step_options sp_step_options_default(void)
{
    sp_step_options o = {0};
    o.newton = sp_newton_options_default();
    o.retraction = sp_retraction_cayley;
    o.control = sp_erk_control_default();
    return o;
}

struct sp_step {
    const sp_step_type *type;
    void *self;
    sp_step_layout layout;
    sp_step_stats stats;
    double backup[SP_STEP_MAX_DIM]; /* the state before a step, restored when it fails */
};

sp_step *sp_step_alloc(const sp_step_type *type, const void *model, const sp_step_options *opt, sp_status *why)
{
    sp_status status = SP_ERR_NOMEM;
    if (!why) why = &status;
    *why = SP_ERR_NOMEM;
    if (!type) return NULL;
    const sp_step_options d = sp_step_options_default();
    sp_step_options o = opt ? *opt : d;
    if (!o.retraction) o.retraction = d.retraction;
    if (o.control.rtol == 0.0 && o.control.atol == 0.0) o.control = d.control;
    sp_step *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->type = type;
    s->self = type->alloc(type, model, &o, &s->layout, why);
    if (!s->self || s->layout.dim > SP_STEP_MAX_DIM) {
        if (s->self) type->free(s->self);
        free(s);
        return NULL;
    }
    *why = SP_OK;
    return s;
}

void sp_step_free(sp_step *s)
{
    if (!s) return;
    s->type->free(s->self);
    free(s);
}

const sp_step_type *sp_step_type_of(const sp_step *s) { return s->type; }
const sp_step_layout *sp_step_layout_of(const sp_step *s) { return &s->layout; }
sp_step_stats sp_step_stats_of(const sp_step *s) { return s->stats; }
void sp_step_reset(sp_step *s) { s->type->reset(s->self); }

/* The shared end of a step: a failure or a non-finite result puts the state back. */
static sp_status settle(sp_step *s, sp_status st, double *x)
{
    const int n = s->layout.dim;
    for (int i = 0; st == SP_OK && i < n; ++i)
        if (!isfinite(x[i])) st = SP_ERR_NONFINITE;
    if (st != SP_OK) memcpy(x, s->backup, (size_t)n * sizeof *x);
    return st;
}

sp_status sp_step_apply(sp_step *s, double h, double *x)
{
    if (h == 0.0 || !isfinite(h) || !x) return SP_ERR_INVALID;
    memcpy(s->backup, x, (size_t)s->layout.dim * sizeof *x);
    s->stats.steps += 1;
    return settle(s, s->type->step(s->self, h, x, &s->stats), x);
}

sp_status sp_step_evolve(sp_step *s, double *t, double t1, double *h, long max_attempts, double *x)
{
    if (!s->type->evolve || !t || !h || !x || !isfinite(*t) || !isfinite(t1) || !isfinite(*h)) return SP_ERR_INVALID;
    memcpy(s->backup, x, (size_t)s->layout.dim * sizeof *x);
    const double t0 = *t;
    sp_status st = settle(s, s->type->evolve(s->self, t, t1, h, max_attempts, x, &s->stats), x);
    if (st != SP_OK) *t = t0;
    return st;
}

sp_status sp_step_invariant(sp_step *s, const double *x, double *values, int *count)
{
    *count = 0;
    return s->type->invariant ? s->type->invariant(s->self, x, values, count) : SP_OK;
}

double sp_step_stage_residual(const sp_step *s)
{
    return s->type->stage_residual ? s->type->stage_residual(s->self) : 0.0;
}

sp_status sp_step_jacobian(sp_step *s, double *Phi)
{
    return s->type->step_jacobian ? s->type->step_jacobian(s->self, Phi) : SP_ERR_INVALID;
}
