/* Integration of vakonomic models with their diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_family.h"
#include "planner/sp_run.h"
#include "planner/sp_step_advance.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

static sp_index1_solver index1_solver(sp_stage_solver s)
{
    switch (s) {
    case SP_STAGE_SIMPLIFIED_NEWTON:
        return SP_INDEX1_SIMPLIFIED_NEWTON;
    case SP_STAGE_FIXED_POINT:
        return SP_INDEX1_FIXED_POINT;
    case SP_STAGE_AUTO:
        return SP_INDEX1_AUTO;
    default:
        return SP_INDEX1_NEWTON;
    }
}

sp_status sp_vak_system_init(sp_vak_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    sp_vak_model_bind(pb->vak.type, &pb->vak.params, sys->mass, &sys->model);
    char name[32];
    snprintf(name, sizeof name, "index1_gauss%d", pb->vak.stages);
    const sp_step_type *type = sp_step_type_named(name);
    if (!type) return SP_ERR_INVALID;
    sp_step_options opt = sp_step_options_default();
    opt.newton.tol = pb->solver_tol;
    opt.index1_solver = (int)index1_solver(pb->stage_solver);
    sys->step = sp_step_alloc(type, &sys->model, &opt, NULL);
    sys->point = sp_vakonomic_point_alloc(&sys->model);
    if (!sys->step || !sys->point) {
        sp_vak_system_release(sys);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

void sp_vak_system_release(sp_vak_system *sys)
{
    sp_step_free(sys->step);
    sp_vakonomic_point_free(sys->point);
    sys->step = NULL;
    sys->point = NULL;
}

void sp_vak_run_release(sp_vak_run *run)
{
    free(run->t);
    free(run->q);
    free(run->p);
    free(run->lam);
    free(run->jacobian);
    run->t = run->q = run->p = run->lam = run->jacobian = NULL;
}

/* Ĥ, λ, the constraint residual |G v|∞ and the kinetic energy ½vᵀMv at a step point. */
static sp_status point_values(sp_vak_system *sys, const double *q, const double *p, double *H, double *lam,
                              double *residual, double *kinetic)
{
    const int n = sys->model.n, m = sys->model.m;
    double v[SP_VAK_MAX_N];
    sp_status st = sp_vakonomic_hamiltonian(&sys->model, sys->point, q, p, H, lam, v);
    if (st != SP_OK) return st;
    *residual = 0.0;
    for (int j = 0; j < m; ++j) *residual = fmax(*residual, fabs(sp_vec_dot(n, sys->point->G + j * n, v)));
    *kinetic = 0.0;
    for (int i = 0; i < n; ++i) *kinetic += 0.5 * sys->mass[i] * v[i] * v[i];
    return SP_OK;
}

/* A run in progress: the state, and the run whose maxima and integrals it updates. */
typedef struct vak_stepping {
    sp_vak_system *sys;
    sp_vak_run *run;
    const double *q0, *p0;
    int sensitivity;
    double z[2 * SP_VAK_MAX_N + SP_VAK_MAX_M]; /* the stepper's state: q, p and λ one after another */
    double *q, *p, *lam;
    double kinetic;                            /* ½ q̇ᵀMq̇ at the last step point */
    double S[2 * SP_VAK_MAX_N * SP_VAK_MAX_N]; /* ∂z/∂p0, when asked */
} vak_stepping;

static sp_status vak_begin(void *self)
{
    vak_stepping *r = self;
    sp_vak_system *sys = r->sys;
    sp_vak_run *run = r->run;
    const int n = sys->model.n;
    sp_vec_copy(n, r->q0, r->q);
    sp_vec_copy(n, r->p0, r->p);
    if (r->sensitivity) { /* ∂z0/∂p0 = [0; I] */
        memset(r->S, 0, sizeof r->S);
        for (int i = 0; i < n; ++i) r->S[(n + i) * n + i] = 1.0;
    }
    sp_status st = point_values(sys, r->q, r->p, &run->H0, r->lam, &run->constraint_residual, &r->kinetic);
    if (st != SP_OK) return st;
    run->n_integrals = sys->pb->vak.type->integrals(r->q, r->p, &sys->pb->vak.params, run->integral0);
    return SP_OK;
}

static sp_status vak_advance(void *self, const sp_run_interval *iv, sp_run_work *work)
{
    vak_stepping *r = self;
    sp_vak_system *sys = r->sys;
    sp_vak_run *run = r->run;
    const int n = sys->model.n, n2 = 2 * n;
    const double h = iv->h;
    double Phi[4 * SP_VAK_MAX_N * SP_VAK_MAX_N], H, residual, kinetic, I[SP_VAK_MAX_INTEGRALS];
    sp_status st = sp_step_advance(sys->step, iv, NULL, r->z, work);
    if (st == SP_OK && r->sensitivity) st = sp_step_jacobian(sys->step, Phi);
    if (st == SP_OK) st = point_values(sys, r->q, r->p, &H, r->lam, &residual, &kinetic);
    if (st != SP_OK) return st;
    if (r->sensitivity) { /* S ← Φ S */
        double T[2 * SP_VAK_MAX_N * SP_VAK_MAX_N];
        sp_mat_mul(n2, n2, n, Phi, r->S, T);
        sp_vec_copy(n2 * n, T, r->S);
    }
    run->energy_error = fmax(run->energy_error, fabs(H - run->H0));
    run->constraint_residual = fmax(run->constraint_residual, residual);
    sys->pb->vak.type->integrals(r->q, r->p, &sys->pb->vak.params, I);
    for (size_t i = 0; i < run->n_integrals; ++i)
        run->integral_drift[i] = fmax(run->integral_drift[i], fabs(I[i] - run->integral0[i]));
    run->energy += 0.5 * h * (r->kinetic + kinetic);
    run->length += 0.5 * h * (sqrt(2.0 * r->kinetic) + sqrt(2.0 * kinetic));
    r->kinetic = kinetic;
    return SP_OK;
}

static void vak_row(const void *self, double *const *out)
{
    const vak_stepping *r = self;
    const int n = r->sys->model.n;
    sp_vec_copy(n, r->q, out[0]);
    sp_vec_copy(n, r->p, out[1]);
    sp_vec_copy(r->sys->model.m, r->lam, out[2]);
}

static sp_stepper vak_stepper(vak_stepping *r)
{
    const sp_vak_system *sys = r->sys;
    r->q = r->z;
    r->p = r->z + sys->model.n;
    r->lam = r->z + 2 * sys->model.n;
    sp_stepper s = {
        .self = r, .work_kind = SP_WORK_IMPLICIT, .begin = vak_begin, .advance = vak_advance, .row = vak_row};
    s.fields[s.n_fields++] = (sp_run_field){"q", sys->model.n, 0, 0};
    s.fields[s.n_fields++] = (sp_run_field){"p", sys->model.n, 0, 0};
    s.fields[s.n_fields++] = (sp_run_field){"lambda", sys->model.m, 0, 1};
    s.coordinates = sys->pb->vak.type->coordinates;
    s.n_coordinates = sys->model.n;
    return s;
}

/* The loop's outcome and the last state in the run; the rows move into it. */
static void take_outcome(const vak_stepping *r, sp_run *loop, sp_vak_run *run)
{
    const int n = r->sys->model.n;
    run->status = loop->status;
    run->steps_done = loop->steps_done;
    run->work = loop->work;
    run->rows = loop->rows;
    run->mean_iterations = loop->steps_done ? (double)loop->work.newton_iterations / loop->steps_done : 0.0;
    run->max_iterations = loop->work.max_iterations;
    run->t = loop->t;
    run->q = loop->field[0];
    run->p = loop->field[1];
    run->lam = loop->field[2];
    sp_run_disown(loop);
    sp_vec_copy(n, r->q, run->q_end);
    sp_vec_copy(n, r->p, run->p_end);
}

sp_status sp_vak_integrate(sp_vak_system *sys, const double *q0, const double *p0, int record, int sensitivity,
                           sp_vak_run *run)
{
    const int n = sys->model.n;
    memset(run, 0, sizeof *run);
    if (sensitivity && !(run->jacobian = calloc((size_t)(2 * n * n), sizeof *run->jacobian)))
        return run->status = SP_ERR_NOMEM;
    vak_stepping r = {.sys = sys, .run = run, .q0 = q0, .p0 = p0, .sensitivity = sensitivity};
    const sp_stepper s = vak_stepper(&r);
    sp_run_settings set = sp_run_settings_of(sys->pb, sys->progress);
    set.record = record;
    sp_run loop;
    sp_run_drive(&s, &set, &loop);
    take_outcome(&r, &loop, run);
    if (sensitivity && run->status == SP_OK) sp_vec_copy(2 * n * n, r.S, run->jacobian);
    return run->status;
}

typedef struct vak_defect_ctx {
    sp_vak_system *sys;
    double h;
} vak_defect_ctx;

static sp_status vak_step_map(void *ctx, double *z)
{
    vak_defect_ctx *c = ctx;
    const int n = c->sys->model.n;
    double x[2 * SP_VAK_MAX_N + SP_VAK_MAX_M] = {0};
    sp_vec_copy(2 * n, z, x);
    sp_status st = sp_step_apply(c->sys->step, c->h, x);
    if (st == SP_OK) sp_vec_copy(2 * n, x, z);
    return st;
}

/* The vakonomic flow is symplectic on all of R²ⁿ: the defect with U = I (no constraint rows). */
sp_status sp_vak_symplecticity_defect(sp_vak_system *sys, const double *q0, const double *p0, double h, double *defect)
{
    const int n = sys->model.n;
    double z0[2 * SP_VAK_MAX_N];
    sp_vec_copy(n, q0, z0);
    sp_vec_copy(n, p0, z0 + n);
    vak_defect_ctx ctx = {sys, h};
    return sp_symplecticity_defect(vak_step_map, &ctx, n, z0, 0, NULL, 1e-6, defect, NULL);
}

static void diagnostics_json(const sp_vak_system *sys, const sp_vak_run *run, cJSON *result)
{
    const sp_vak_model_type *type = sys->pb->vak.type;
    cJSON *diag = cJSON_AddObjectToObject(result, "diagnostics");
    cJSON_AddNumberToObject(diag, "energy_error", run->energy_error);
    if (run->H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", run->energy_error / fabs(run->H0));
    cJSON_AddNumberToObject(diag, "constraint_residual", run->constraint_residual);
    const char *names[SP_VAK_MAX_INTEGRALS];
    type->integral_names(&sys->pb->vak.params, names);
    for (size_t i = 0; i < run->n_integrals; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s_drift", names[i]);
        cJSON_AddNumberToObject(diag, name, run->integral_drift[i]);
    }
    cJSON_AddNumberToObject(diag, "hamiltonian", run->H0);
}

void sp_vak_run_json(sp_vak_system *sys, const sp_vak_run *run, cJSON *result)
{
    vak_stepping r = {.sys = sys};
    const sp_stepper s = vak_stepper(&r);
    const sp_run view = {.status = run->status,
                         .steps_done = run->steps_done,
                         .work = run->work,
                         .rows = run->rows,
                         .t = run->t,
                         .field = {run->q, run->p, run->lam}};
    if (run->t) sp_run_add_trajectory(&s, &view, result);
    diagnostics_json(sys, run, result);
    sp_run_add_work(&s, &view, result);
}

/* Gauss–Legendre with s stages has order 2s. */
static int vak_order(const sp_problem *pb) { return 2 * pb->vak.stages; }

void sp_vak_settings_json(const sp_problem *pb, cJSON *result)
{
    cJSON *settings = cJSON_AddObjectToObject(result, "settings");
    cJSON_AddStringToObject(settings, "scheme", "gauss");
    cJSON_AddNumberToObject(settings, "stages", pb->vak.stages);
    cJSON_AddNumberToObject(settings, "order", vak_order(pb));
    cJSON_AddStringToObject(settings, "solver", sp_stage_solver_at((size_t)pb->stage_solver));
    cJSON_AddNumberToObject(settings, "h", pb->T / pb->steps);
    cJSON_AddNumberToObject(settings, "steps", pb->steps);
    cJSON_AddNumberToObject(settings, "record_every", pb->record_every);
    sp_params_add_json(settings, SP_PARAM_SPEC(pb->vak.type), &pb->vak.params);
}

/* ---- the family */

/* A simulation: the system, the run's maxima and the stepping state, in one block. */
typedef struct vak_simulation {
    sp_vak_system sys;
    sp_vak_run run;
    vak_stepping stepping;
} vak_simulation;

static sp_status vak_init(void *self, const sp_problem *pb, sp_stepper *s)
{
    vak_simulation *sim = self;
    sp_status st = sp_vak_system_init(&sim->sys, pb);
    if (st != SP_OK) return st;
    sim->stepping = (vak_stepping){.sys = &sim->sys, .run = &sim->run, .q0 = pb->vak.q0, .p0 = pb->vak.p0};
    *s = vak_stepper(&sim->stepping);
    return SP_OK;
}

static void vak_report(void *self, const sp_run *loop, cJSON *root)
{
    vak_simulation *sim = self;
    const sp_problem *pb = sim->sys.pb;
    diagnostics_json(&sim->sys, &sim->run, root);
    if (pb->vak.symplecticity_defect && loop->status != SP_ERR_INTERRUPTED) {
        double defect;
        if (sp_vak_symplecticity_defect(&sim->sys, pb->vak.q0, pb->vak.p0, pb->T / pb->steps, &defect) == SP_OK)
            cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "diagnostics"), "symplecticity_defect", defect);
    }
    sp_vak_settings_json(pb, root);
}

static void vak_release(void *self) { sp_vak_system_release(&((vak_simulation *)self)->sys); }

const sp_simulation_ops sp_vak_simulation = {
    .size = sizeof(vak_simulation), .init = vak_init, .report = vak_report, .release = vak_release, .order = vak_order};
