/* Simulations of holonomic models with their diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_family.h"
#include "planner/sp_run.h"
#include "planner/sp_step_advance.h"
#include "planner/holonomic/sp_hol_run.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

/* The model a scheme's step type takes, as the bound model carries it. */
static const void *model_of(sp_hol_system *sys, sp_step_model_kind kind)
{
    switch (kind) {
    case SP_STEP_MODEL_HOLONOMIC:
        return &sys->bound.holonomic;
    case SP_STEP_MODEL_LIE_RATTLE:
        return &sys->bound.lie;
    case SP_STEP_MODEL_PROP7:
        return &sys->bound.prop7;
    case SP_STEP_MODEL_SPLIT:
        sys->split = sp_spherical_pendulum_split(&sys->bound.pendulum);
        return &sys->split;
    default:
        return NULL;
    }
}

sp_status sp_hol_system_init(sp_hol_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    const sp_hol_problem *hp = &pb->hol;
    sp_status st = sp_hol_model_bind(hp->type, &hp->params, &sys->bound);
    if (st != SP_OK) return st;
    sys->scheme = hp->scheme;
    sys->n = hp->type->n;
    sys->type = sp_step_type_named(hp->scheme->name);
    if (!sys->type) return SP_ERR_INVALID;
    sys->lie = sys->type->model == SP_STEP_MODEL_LIE_RATTLE;
    sys->native = sys->lie ? 12 : 2 * sys->n;
    sp_step_options opt = sp_step_options_default();
    opt.newton.tol = pb->solver_tol > 0.0 ? pb->solver_tol : 1e-15;
    opt.retraction = hp->retraction;
    opt.gains = hp->gains;
    opt.gains.g_scale = sys->bound.scales.g_scale;
    opt.gains.hidden_scale = sys->bound.scales.hidden_scale;
    opt.integral = sys->bound.has_integral ? &sys->bound.integral : NULL;
    double z0[2 * SP_HOL_MAX_N];
    sp_vec_copy(sys->n, hp->q0, z0);
    sp_vec_copy(sys->n, hp->p0, z0 + sys->n);
    opt.reference = z0;
    opt.control.rtol = hp->rtol;
    opt.control.atol = hp->atol;
    opt.control.h_max = pb->T / pb->steps;
    sys->step = sp_step_alloc(sys->type, model_of(sys, sys->type->model), &opt, &st);
    return st;
}

void sp_hol_system_release(sp_hol_system *sys)
{
    sp_step_free(sys->step);
    sys->step = NULL;
}

/* ---- the stepper's own state x and the state (q, p) on T*Q */

static void native_to_qp(const sp_hol_system *sys, const double *x, double *q, double *p)
{
    if (sys->lie) {
        sp_heavy_top_embed(&sys->bound.top, x, x + 9, q, p);
        return;
    }
    sp_vec_copy(sys->n, x, q);
    sp_vec_copy(sys->n, x + sys->n, p);
}

static void qp_to_native(const sp_hol_system *sys, const double *q, const double *p, double *x)
{
    if (sys->lie) {
        sp_heavy_top_matrix_to_body(&sys->bound.top, q, p, x, x + 9);
        return;
    }
    sp_vec_copy(sys->n, q, x);
    sp_vec_copy(sys->n, p, x + sys->n);
}

static void initial_native(const sp_hol_system *sys, double *x)
{
    const sp_hol_problem *hp = &sys->pb->hol;
    if (sys->lie)
        sp_heavy_top_lie_state(&sys->bound.top, hp->R0, hp->omega0, x, x + 9);
    else
        qp_to_native(sys, hp->q0, hp->p0, x);
}

sp_status sp_hol_step_qp(sp_hol_system *sys, double h, double *z)
{
    double x[2 * SP_HOL_MAX_N];
    qp_to_native(sys, z, z + sys->n, x);
    sp_status st = sp_step_apply(sys->step, h, x);
    if (st == SP_OK) native_to_qp(sys, x, z, z + sys->n);
    return st;
}

/* ---- runs: the family's stepper for the loop of planner/sp_run.h */

void sp_hol_run_release(sp_hol_run *run)
{
    free(run->t);
    free(run->q);
    free(run->p);
    free(run->R);
    free(run->mu);
    free(run->lam);
    run->t = run->q = run->p = run->R = run->mu = run->lam = NULL;
}

/* A run in progress: the stepper's own state x, the state (q, p) on T*Q with its values,
 * and the run whose maxima it updates. */
typedef struct hol_stepping {
    sp_hol_system *sys;
    sp_hol_run *run;
    double x[2 * SP_HOL_MAX_N], q[SP_HOL_MAX_N], p[SP_HOL_MAX_N];
    sp_hol_values v;
} hol_stepping;

static void accumulate(sp_hol_run *run, const sp_hol_values *v)
{
    run->energy_error = fmax(run->energy_error, fabs(v->energy - run->H0));
    run->constraint_residual = fmax(run->constraint_residual, v->constraint);
    run->hidden_residual = fmax(run->hidden_residual, v->hidden);
    for (size_t i = 0; i < v->n_monitors; ++i) run->monitor_drift[i] = fmax(run->monitor_drift[i], fabs(v->monitor[i]));
    for (size_t i = 0; i < v->n_integrals; ++i)
        run->integral_drift[i] = fmax(run->integral_drift[i], fabs(v->integral[i] - run->integral0[i]));
}

static sp_status hol_begin(void *self)
{
    hol_stepping *r = self;
    sp_hol_system *sys = r->sys;
    initial_native(sys, r->x);
    native_to_qp(sys, r->x, r->q, r->p);
    sp_status st = sp_hol_values_at(&sys->bound, r->q, r->p, &r->v);
    if (st != SP_OK) return st;
    sp_hol_run *run = r->run;
    run->H0 = r->v.energy;
    run->n_monitors = r->v.n_monitors;
    run->n_integrals = r->v.n_integrals;
    memcpy(run->integral0, r->v.integral, sizeof r->v.integral);
    accumulate(run, &r->v);
    sys->h_proposal = 0.0;
    return SP_OK;
}

static sp_status hol_advance(void *self, const sp_run_interval *iv, sp_run_work *work)
{
    hol_stepping *r = self;
    sp_hol_system *sys = r->sys;
    sp_status st = sp_step_advance(sys->step, iv, &sys->h_proposal, r->x, work);
    if (st != SP_OK) return st;
    native_to_qp(sys, r->x, r->q, r->p);
    if ((st = sp_hol_values_at(&sys->bound, r->q, r->p, &r->v)) != SP_OK) return st;
    accumulate(r->run, &r->v);
    return SP_OK;
}

static void hol_row(const void *self, double *const *out)
{
    const hol_stepping *r = self;
    const sp_hol_system *sys = r->sys;
    int f = 0;
    sp_vec_copy(sys->n, r->q, out[f++]);
    sp_vec_copy(sys->n, r->p, out[f++]);
    if (sys->lie) {
        sp_vec_copy(9, r->x, out[f++]);
        sp_vec_copy(3, r->x + 9, out[f++]);
    }
    if (sys->type->model == SP_STEP_MODEL_PROP7) out[f][0] = r->v.lambda;
}

/* The stepper of a run: fields q, p; (R, μ) for lie_rattle; the contact multiplier λ. */
static sp_stepper hol_stepper(hol_stepping *r)
{
    const sp_hol_system *sys = r->sys;
    sp_stepper s = {.self = r, .begin = hol_begin, .advance = hol_advance, .row = hol_row};
    s.work_kind = sp_step_work_kind(sys->type);
    s.fields[s.n_fields++] = (sp_run_field){"q", sys->n, 0, 0};
    s.fields[s.n_fields++] = (sp_run_field){"p", sys->n, 0, 0};
    if (sys->lie) {
        s.fields[s.n_fields++] = (sp_run_field){"R", 9, 0, 0};
        s.fields[s.n_fields++] = (sp_run_field){"mu", 3, 0, 0};
    }
    if (sys->type->model == SP_STEP_MODEL_PROP7) s.fields[s.n_fields++] = (sp_run_field){"lambda", 1, 1, 1};
    if (sys->bound.type->coordinates) {
        s.coordinates = sys->bound.type->coordinates;
        s.n_coordinates = sys->n;
    }
    return s;
}

/* The loop's outcome in the run: status, steps, work and time, and the recorded rows. */
static void take_outcome(const sp_hol_system *sys, sp_run *loop, sp_hol_run *run)
{
    run->status = loop->status;
    run->steps_done = loop->steps_done;
    run->seconds = loop->seconds;
    run->rejected = loop->work.rejected_steps;
    run->max_iterations = loop->work.max_iterations;
    const sp_work_kind kind = sp_step_work_kind(sys->type);
    run->work = kind == SP_WORK_EXPLICIT    ? loop->work.rhs_evaluations
                : kind == SP_WORK_SPLITTING ? loop->work.exact_flows
                                            : loop->work.newton_iterations;
    run->rows = loop->rows;
    run->t = loop->t;
    int f = 0;
    run->q = loop->field[f++];
    run->p = loop->field[f++];
    if (sys->lie) run->R = loop->field[f++], run->mu = loop->field[f++];
    if (sys->type->model == SP_STEP_MODEL_PROP7) run->lam = loop->field[f];
    sp_run_disown(loop);
}

sp_status sp_hol_integrate(sp_hol_system *sys, int record, sp_hol_run *run)
{
    memset(run, 0, sizeof *run);
    hol_stepping r = {.sys = sys, .run = run};
    sp_stepper s = hol_stepper(&r);
    sp_run_settings set = sp_run_settings_of(sys->pb, sys->progress);
    set.record = record;
    sp_run loop;
    sp_run_drive(&s, &set, &loop);
    take_outcome(sys, &loop, run);
    sp_vec_copy(sys->n, r.q, run->q_end);
    sp_vec_copy(sys->n, r.p, run->p_end);
    return run->status;
}

typedef struct defect_ctx {
    sp_hol_system *sys;
    double h;
} defect_ctx;

static sp_status defect_map(void *ctx, double *z)
{
    defect_ctx *c = ctx;
    return sp_hol_step_qp(c->sys, c->h, z);
}

sp_status sp_hol_symplecticity_defect(sp_hol_system *sys, double h, double *defect)
{
    const int n = sys->n;
    const sp_hol_problem *hp = &sys->pb->hol;
    double z0[2 * SP_HOL_MAX_N], DC[4 * SP_HOL_MAX_M * SP_HOL_MAX_N];
    int rows;
    sp_vec_copy(n, hp->q0, z0);
    sp_vec_copy(n, hp->p0, z0 + n);
    sp_status st = sp_hol_manifold_jacobian(&sys->bound, z0, z0 + n, DC, &rows);
    if (st != SP_OK) return st;
    defect_ctx ctx = {sys, h};
    return sp_symplecticity_defect(defect_map, &ctx, n, z0, rows, DC, 1e-6, defect, NULL);
}

/* ---- the result */

static void settings_json(const sp_problem *pb, cJSON *result)
{
    const sp_hol_problem *hp = &pb->hol;
    const sp_hol_model_type *type = hp->type;
    cJSON *settings = cJSON_AddObjectToObject(result, "settings");
    cJSON_AddStringToObject(settings, "scheme", hp->scheme->name);
    cJSON_AddNumberToObject(settings, "order", hp->scheme->order);
    if (hp->scheme->family == SP_HOL_FAMILY_LIE) cJSON_AddStringToObject(settings, "retraction", hp->retraction->name);
    cJSON_AddNumberToObject(settings, "h", pb->T / pb->steps);
    cJSON_AddNumberToObject(settings, "steps", pb->steps);
    cJSON_AddNumberToObject(settings, "record_every", pb->record_every);
    if (hp->scheme->family == SP_HOL_FAMILY_FEEDBACK) {
        cJSON *g = cJSON_AddObjectToObject(settings, "gains");
        cJSON_AddNumberToObject(g, "k1", hp->gains.k1);
        cJSON_AddNumberToObject(g, "k2", hp->gains.k2);
        cJSON_AddNumberToObject(g, "k3", hp->gains.k3);
        if (type == &sp_hol_spherical_pendulum) cJSON_AddNumberToObject(g, "k4", hp->gains.k4);
        if (sp_hol_scheme_by_name("feedback_dop853") == hp->scheme) {
            cJSON_AddNumberToObject(settings, "rtol", hp->rtol);
            cJSON_AddNumberToObject(settings, "atol", hp->atol);
        }
    }
    sp_params_add_json(settings, SP_PARAM_SPEC(type), &hp->params);
}

static void diagnostics_json(const sp_hol_system *sys, const sp_hol_run *run, cJSON *result)
{
    const sp_hol_model_type *type = sys->bound.type;
    cJSON *diag = cJSON_AddObjectToObject(result, "diagnostics");
    cJSON_AddNumberToObject(diag, "constraint_residual", run->constraint_residual);
    cJSON_AddNumberToObject(diag, "hidden_constraint_residual", run->hidden_residual);
    cJSON_AddNumberToObject(diag, "energy_error", run->energy_error);
    char name[96];
    for (size_t i = 0; i < run->n_monitors; ++i) {
        snprintf(name, sizeof name, "%s_drift", type->monitor_names[i]);
        cJSON_AddNumberToObject(diag, name, run->monitor_drift[i]);
    }
    const char *names[SP_HOL_MAX_INTEGRALS];
    size_t ni = type->integral_names(&sys->bound.prm, names);
    for (size_t i = 0; i < run->n_integrals && i < ni; ++i) {
        snprintf(name, sizeof name, "%s_drift", names[i]);
        cJSON_AddNumberToObject(diag, name, run->integral_drift[i]);
    }
}

/* ---- the family */

/* A simulation: the system, the run's maxima and the stepping state, in one block (the
 * system points into itself, so it stays where it is allocated). */
typedef struct hol_simulation {
    sp_hol_system sys;
    sp_hol_run run;
    hol_stepping stepping;
} hol_simulation;

static sp_status hol_init(void *self, const sp_problem *pb, sp_stepper *s)
{
    hol_simulation *sim = self;
    sp_status st = sp_hol_system_init(&sim->sys, pb);
    if (st != SP_OK) return st;
    sim->stepping = (hol_stepping){.sys = &sim->sys, .run = &sim->run};
    *s = hol_stepper(&sim->stepping);
    return SP_OK;
}

static void hol_report(void *self, const sp_run *loop, cJSON *root)
{
    hol_simulation *sim = self;
    const sp_problem *pb = sim->sys.pb;
    cJSON_AddNumberToObject(root, "initial_energy", sim->run.H0);
    if (pb->hol.projected) {
        cJSON *proj = cJSON_AddObjectToObject(root, "initial_projection");
        cJSON_AddNumberToObject(proj, "q0_change", pb->hol.projection_q);
        cJSON_AddNumberToObject(proj, "p0_change", pb->hol.projection_p);
        cJSON_AddStringToObject(proj, "note",
                                "q0 and p0 were projected onto T*Q (\"project\": true); the run starts there");
    }
    diagnostics_json(&sim->sys, &sim->run, root);
    if (pb->hol.symplecticity_defect && loop->status != SP_ERR_INTERRUPTED) {
        double defect;
        if (sp_hol_symplecticity_defect(&sim->sys, pb->T / pb->steps, &defect) == SP_OK)
            cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "diagnostics"), "symplecticity_defect", defect);
    }
    settings_json(pb, root);
}

static void hol_release(void *self) { sp_hol_system_release(&((hol_simulation *)self)->sys); }

static int hol_order(const sp_problem *pb) { return pb->hol.scheme->order; }

const sp_family sp_holonomic_family = {
    .name = "holonomic",
    .kinds = SP_KIND_FLAG(SP_KIND_HOLONOMIC),
    .simulation =
        &(const sp_simulation_ops){
            .size = sizeof(hol_simulation),
            .init = hol_init,
            .report = hol_report,
            .release = hol_release,
            .order = hol_order},
    .drift = sp_hol_drift,
};
