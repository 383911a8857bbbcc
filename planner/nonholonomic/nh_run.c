/* Simulations of nonholonomic models with their diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_family.h"
#include "planner/sp_run.h"
#include "planner/sp_step_advance.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

sp_status sp_nh_system_init(sp_nh_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    const sp_nh_problem *np = &pb->nh;
    sp_step_options opt = sp_step_options_default();
    opt.newton.tol = pb->solver_tol > 0.0 ? pb->solver_tol : 1e-15;
    opt.nh_lambda1 = np->recompute; /* carry (0) or recompute (1), on groups as on vector spaces */
    opt.retraction = np->retraction;
    const void *model;
    char name[32];
    if (pb->kind == SP_KIND_NONHOLONOMIC_LIE) {
        sys->lie = 1;
        sp_status st = np->lie_type->bind(&np->lie_params, &sys->bound);
        if (st != SP_OK) return st;
        sys->n = sys->bound.model.group->elem_size;
        sys->dim = sys->bound.model.group->dim;
        sys->m = sys->bound.model.m;
        model = &sys->bound.model;
        snprintf(name, sizeof name, "nh_lie_lobatto%d", np->stages);
    } else {
        if (pb->kind != SP_KIND_NONHOLONOMIC || !np->type) return SP_ERR_INVALID;
        sp_nh_model_bind(np->type, &np->params, &sys->model);
        opt.newton.warm_start = pb->stage_solver == SP_STAGE_SIMPLIFIED_NEWTON;
        sys->n = sys->dim = np->type->n;
        sys->m = np->type->m;
        model = &sys->model;
        snprintf(name, sizeof name, "nh_lobatto%d", np->stages);
    }
    const sp_step_type *type = sp_step_type_named(name);
    if (!type) return SP_ERR_INVALID;
    sp_status st;
    sys->step = sp_step_alloc(type, model, &opt, &st);
    return st;
}

void sp_nh_system_release(sp_nh_system *sys)
{
    sp_step_free(sys->step);
    sys->step = NULL;
}

/* ---- the invariants at one state */

typedef struct point_values {
    double energy, constraint, group;
    double integral[SP_NH_MAX_INTEGRALS]; /* besides the energy */
} point_values;

static sp_status values_at(const sp_nh_system *sys, const double *x, const double *y, point_values *v)
{
    sp_status st;
    memset(v, 0, sizeof *v);
    if (sys->lie) {
        const sp_nh_lie_model *md = &sys->bound.model;
        if ((st = sp_nh_lie_energy(md, x, y, &v->energy)) != SP_OK ||
            (st = sp_nh_lie_constraint_residual(md, x, y, &v->constraint)) != SP_OK)
            return st;
        v->group = sys->pb->nh.lie_type->group_error(x);
        return SP_OK;
    }
    if ((st = sp_nh_energy(&sys->model, x, y, &v->energy)) != SP_OK ||
        (st = sp_nh_constraint_residual(&sys->model, x, y, &v->constraint)) != SP_OK)
        return st;
    double all[SP_NH_MAX_INTEGRALS];
    size_t k = sys->pb->nh.type->integrals(x, y, &sys->pb->nh.params, all);
    for (size_t i = 1; i < k; ++i) v->integral[i - 1] = all[i];
    return SP_OK;
}

/* The coordinates of a Lie-group state (the sleigh's (x, y, θ), M(θ)q̇), continuous through q_prev. */
static void coordinates(const sp_nh_system *sys, const double *g, const double *mu, const double *q_prev, double *qc,
                        double *pc)
{
    const sp_nh_lie_type *type = sys->pb->nh.lie_type;
    if (sys->lie && type->to_coordinates) type->to_coordinates(&sys->bound, g, mu, q_prev, qc, pc);
}

/* ---- runs: the family's stepper for the loop of planner/sp_run.h */

/* A run in progress: the state (q, p), or (g, μ) on groups, with the multiplier and the
 * sleigh's coordinates, and the maxima of the invariants' deviation over every step. */
typedef struct nh_stepping {
    sp_nh_system *sys;
    double z[SP_STEP_MAX_DIM]; /* the stepper's state: x, y and λ one after another */
    double *x, *y, *lam;
    double qc[SP_LIE_MAX_ELEM], pc[SP_LIE_MAX_ELEM];
    double H0; /* energy at t = 0 */
    double energy_error, constraint_residual, stage_residual, group_error;
    double energy_quarter[4]; /* max |H − H0| over each quarter of the steps */
    size_t n_integrals;       /* declared first integrals besides the energy */
    const char *integral_names[SP_NH_MAX_INTEGRALS];
    double integral0[SP_NH_MAX_INTEGRALS], integral_drift[SP_NH_MAX_INTEGRALS];
} nh_stepping;

static sp_status nh_begin(void *self)
{
    nh_stepping *r = self;
    const sp_nh_system *sys = r->sys;
    const sp_nh_problem *np = &sys->pb->nh;
    sp_status st;
    r->x = r->z;
    r->y = r->z + sys->n;
    r->lam = r->z + sys->n + sys->dim;
    if (sys->lie) {
        sp_vec_copy(sys->n, np->g0, r->x);
        sp_vec_copy(sys->dim, np->mu0, r->y);
        coordinates(sys, r->x, r->y, NULL, r->qc, r->pc);
        st = sp_nh_lie_multiplier(&sys->bound.model, r->x, r->y, r->lam);
    } else {
        sp_vec_copy(sys->n, np->q0, r->x);
        sp_vec_copy(sys->n, np->p0, r->y);
        st = sp_nh_multiplier(&sys->model, r->x, r->y, r->lam);
    }
    point_values v0;
    if (st == SP_OK) st = values_at(sys, r->x, r->y, &v0);
    if (st != SP_OK) return st;
    r->H0 = v0.energy;
    r->constraint_residual = v0.constraint;
    r->group_error = v0.group;
    if (!sys->lie) {
        const char *names[SP_NH_MAX_INTEGRALS];
        size_t k = np->type->integral_names(&np->params, names);
        r->n_integrals = k > 0 ? k - 1 : 0;
        for (size_t i = 0; i < r->n_integrals; ++i) r->integral_names[i] = names[i + 1];
        sp_vec_copy((int)r->n_integrals, v0.integral, r->integral0);
    }
    return SP_OK;
}

static sp_status nh_advance(void *self, const sp_run_interval *iv, sp_run_work *work)
{
    nh_stepping *r = self;
    const sp_nh_system *sys = r->sys;
    sp_status st = sp_step_advance(sys->step, iv, NULL, r->z, work);
    const double stage = sp_step_stage_residual(sys->step);
    point_values v;
    if (st == SP_OK) st = values_at(sys, r->x, r->y, &v);
    if (st != SP_OK) return st;
    const double dH = fabs(v.energy - r->H0);
    r->energy_error = fmax(r->energy_error, dH);
    const int quarter = (int)(4L * iv->index / iv->count);
    r->energy_quarter[quarter] = fmax(r->energy_quarter[quarter], dH);
    /* the constraint holds at the stages and at the step points alike */
    r->constraint_residual = fmax(r->constraint_residual, fmax(v.constraint, stage));
    r->stage_residual = fmax(r->stage_residual, stage);
    r->group_error = fmax(r->group_error, v.group);
    for (size_t i = 0; i < r->n_integrals; ++i)
        r->integral_drift[i] = fmax(r->integral_drift[i], fabs(v.integral[i] - r->integral0[i]));
    if (sys->lie) {
        double q_prev[SP_LIE_MAX_ELEM];
        sp_vec_copy(SP_LIE_MAX_ELEM, r->qc, q_prev);
        coordinates(sys, r->x, r->y, q_prev, r->qc, r->pc);
    }
    return SP_OK;
}

/* The coordinates of a Lie-group model (none for Suslov's problem): their number. */
static int coordinate_count(const sp_nh_system *sys) { return sys->lie ? sys->pb->nh.lie_type->n_coordinates : sys->n; }

static void nh_row(const void *self, double *const *out)
{
    const nh_stepping *r = self;
    const sp_nh_system *sys = r->sys;
    const int c = coordinate_count(sys);
    int f = 0;
    if (!sys->lie) {
        sp_vec_copy(sys->n, r->x, out[f++]);
        sp_vec_copy(sys->n, r->y, out[f++]);
    } else {
        if (c > 0) {
            sp_vec_copy(c, r->qc, out[f++]);
            sp_vec_copy(c, r->pc, out[f++]);
        }
        sp_vec_copy(sys->n, r->x, out[f++]);
        sp_vec_copy(sys->dim, r->y, out[f++]);
    }
    sp_vec_copy(sys->m, r->lam, out[f]);
}

/* Fields q, p (on groups the model's coordinates, when it has some), g and μ on groups,
 * and the multiplier λ carried out of each step. */
static sp_stepper nh_stepper(nh_stepping *r)
{
    const sp_nh_system *sys = r->sys;
    const sp_nh_problem *np = &sys->pb->nh;
    const int c = coordinate_count(sys);
    sp_stepper s = {.self = r, .work_kind = SP_WORK_IMPLICIT, .begin = nh_begin, .advance = nh_advance, .row = nh_row};
    if (c > 0) {
        s.fields[s.n_fields++] = (sp_run_field){"q", c, 0, 0};
        s.fields[s.n_fields++] = (sp_run_field){"p", c, 0, 0};
    }
    if (sys->lie) {
        s.fields[s.n_fields++] = (sp_run_field){"g", sys->n, 0, 0};
        s.fields[s.n_fields++] = (sp_run_field){"mu", sys->dim, 0, 0};
    }
    s.fields[s.n_fields++] = (sp_run_field){"lambda", sys->m, 0, 1};
    s.coordinates = !sys->lie ? np->type->coordinates : c > 0 ? np->lie_type->coordinates : np->lie_type->element_names;
    s.n_coordinates = c > 0 ? c : sys->n;
    return s;
}

/* ---- the result */

/* Lobatto IIIA–IIIB with s stages has order 2s − 2. */
static int nh_order(const sp_problem *pb) { return 2 * pb->nh.stages - 2; }

static void settings_json(const sp_problem *pb, cJSON *result)
{
    const sp_nh_problem *np = &pb->nh;
    cJSON *settings = cJSON_AddObjectToObject(result, "settings");
    cJSON_AddStringToObject(settings, "scheme", "lobatto");
    cJSON_AddNumberToObject(settings, "stages", np->stages);
    cJSON_AddNumberToObject(settings, "order", nh_order(pb));
    cJSON_AddStringToObject(settings, "lambda1", np->recompute ? "recompute" : "carry");
    if (!np->lie_type) cJSON_AddStringToObject(settings, "solver", sp_stage_solver_at((size_t)pb->stage_solver));
    if (np->lie_type) {
        cJSON_AddStringToObject(settings, "group", np->lie_type->group_name);
        cJSON_AddStringToObject(settings, "retraction", np->retraction->name);
    }
    cJSON_AddNumberToObject(settings, "h", pb->T / pb->steps);
    cJSON_AddNumberToObject(settings, "steps", pb->steps);
    cJSON_AddNumberToObject(settings, "record_every", pb->record_every);
    cJSON_AddNumberToObject(settings, "solver_tol", pb->solver_tol);
    if (np->lie_type)
        sp_params_add_json(settings, SP_PARAM_SPEC(np->lie_type), &np->lie_params);
    else
        sp_params_add_json(settings, SP_PARAM_SPEC(np->type), &np->params);
}

static void diagnostics_json(const nh_stepping *r, cJSON *result)
{
    cJSON *diag = cJSON_AddObjectToObject(result, "diagnostics");
    cJSON_AddNumberToObject(diag, "constraint_residual", r->constraint_residual);
    cJSON_AddNumberToObject(diag, "energy_error", r->energy_error);
    if (r->H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", r->energy_error / fabs(r->H0));
    char name[96];
    for (size_t i = 0; i < r->n_integrals; ++i) {
        snprintf(name, sizeof name, "%s_drift", r->integral_names[i]);
        cJSON_AddNumberToObject(diag, name, r->integral_drift[i]);
    }
    if (r->sys->lie) cJSON_AddNumberToObject(diag, "group_error", r->group_error);
    sp_json_add_vector(result, "energy_error_quarters", 4, r->energy_quarter);
}

/* ---- the family */

/* A simulation: the system (which points into itself) and the run, in one block. */
typedef struct nh_simulation {
    sp_nh_system sys;
    nh_stepping stepping;
} nh_simulation;

static sp_status nh_init(void *self, const sp_problem *pb, sp_stepper *s)
{
    nh_simulation *sim = self;
    sp_status st = sp_nh_system_init(&sim->sys, pb);
    if (st != SP_OK) return st;
    sim->stepping.sys = &sim->sys;
    *s = nh_stepper(&sim->stepping);
    return SP_OK;
}

static void nh_report(void *self, const sp_run *run, cJSON *root)
{
    (void)run;
    nh_simulation *sim = self;
    cJSON_AddNumberToObject(root, "initial_energy", sim->stepping.H0);
    diagnostics_json(&sim->stepping, root);
    settings_json(sim->sys.pb, root);
}

static void nh_release(void *self) { sp_nh_system_release(&((nh_simulation *)self)->sys); }

const sp_family sp_nonholonomic_family = {
    .name = "nonholonomic",
    .kinds = SP_KIND_FLAG(SP_KIND_NONHOLONOMIC) | SP_KIND_FLAG(SP_KIND_NONHOLONOMIC_LIE),
    .simulation =
        &(const sp_simulation_ops){
            .size = sizeof(nh_simulation),
            .init = nh_init,
            .report = nh_report,
            .release = nh_release,
            .order = nh_order},
    .drift = sp_nh_drift,
    .planar = sp_nh_planar,
};
