/* The cubic-spline family (sp_plan.h): the simulate task — the HOHP initial value problem
 * from (g0, ξ0, ν0, p0) with the drift of every invariant the scheme keeps — and the plan
 * task. */
#include <math.h>
#include <stdlib.h>

#include "planner/cubic/sp_plan.h"
#include "planner/sp_family.h"
#include "lie/sp_linalg.h"

typedef struct drift {
    double M0[SP_LIE_MAX_DIM], C0[SP_LIE_MAX_DIM], casimir0, H0;
    double momentum_map, right_momentum, casimir, energy;
} drift;

static void drift_start(drift *d, const sp_group *G, const sp_hohp_state *z)
{
    *d = (drift){0};
    sp_hohp_momentum_map(G, z, d->M0);
    sp_hohp_right_momentum(G, z, d->C0);
    d->casimir0 = sp_vec_norm(G->dim, z->nu);
    d->H0 = sp_hohp_energy(G, z);
}

/* Relative changes, measured against the size of each quantity at the start
 * (|ξ||p| + |ν| for the right-action momentum). */
static void drift_update(drift *d, const sp_group *G, const sp_hohp_state *z)
{
    const int n = G->dim;
    double M[SP_LIE_MAX_DIM], C[SP_LIE_MAX_DIM];
    sp_hohp_momentum_map(G, z, M);
    sp_hohp_right_momentum(G, z, C);
    double tiny = 1e-300;
    d->momentum_map = fmax(d->momentum_map, sp_vec_dist(n, M, d->M0) / fmax(sp_vec_norm(n, d->M0), tiny));
    double c_scale = sp_vec_norm(n, z->xi) * sp_vec_norm(n, z->p) + sp_vec_norm(n, z->nu);
    d->right_momentum = fmax(d->right_momentum, sp_vec_dist(n, C, d->C0) / fmax(c_scale, tiny));
    d->casimir = fmax(d->casimir, fabs(sp_vec_norm(n, z->nu) - d->casimir0) / fmax(d->casimir0, tiny));
    d->energy = fmax(d->energy, fabs(sp_hohp_energy(G, z) - d->H0));
}

/* ---- the stepper for the loop of planner/sp_run.h */

typedef struct cubic_simulation {
    const sp_problem *pb;
    sp_hohp *stepper;
    sp_hohp_state z;
    drift d;
} cubic_simulation;

static sp_status cubic_begin(void *self)
{
    cubic_simulation *c = self;
    const sp_problem *pb = c->pb;
    const sp_group *G = pb->cubic.group;
    sp_vec_copy(G->elem_size, pb->g0, c->z.g);
    sp_vec_copy(G->dim, pb->xi0, c->z.xi);
    sp_vec_copy(G->dim, pb->nu0, c->z.nu);
    sp_vec_copy(G->dim, pb->p0, c->z.p);
    drift_start(&c->d, G, &c->z);
    return SP_OK;
}

static sp_status cubic_advance(void *self, const sp_run_interval *iv, sp_run_work *work)
{
    cubic_simulation *c = self;
    sp_hohp_interval info;
    sp_status st = sp_hohp_step(c->stepper, iv->h, &c->z, &c->z, &info);
    work->attempts += 1;
    if (st != SP_OK) return st;
    work->newton_iterations += info.iterations;
    if (info.iterations > work->max_iterations) work->max_iterations = info.iterations;
    drift_update(&c->d, c->pb->cubic.group, &c->z);
    return SP_OK;
}

static void cubic_row(const void *self, double *const *out)
{
    const cubic_simulation *c = self;
    const sp_group *G = c->pb->cubic.group;
    sp_vec_copy(G->elem_size, c->z.g, out[0]);
    sp_vec_copy(G->dim, c->z.xi, out[1]);
    sp_vec_copy(G->dim, c->z.nu, out[2]);
    sp_vec_copy(G->dim, c->z.p, out[3]);
}

static sp_status cubic_init(void *self, const sp_problem *pb, sp_stepper *s)
{
    cubic_simulation *c = self;
    const sp_group *G = pb->cubic.group;
    const sp_hohp_config cfg = {.group = G,
                                .retraction = pb->retraction,
                                .theta = pb->scheme->theta,
                                .solver = pb->solver,
                                .solve = {.tol = pb->solver_tol, .max_iter = 50}};
    c->pb = pb;
    if (!(c->stepper = sp_hohp_alloc(&cfg))) return SP_ERR_NOMEM;
    *s = (sp_stepper){.self = c,
                      .work_kind = SP_WORK_IMPLICIT,
                      .n_fields = 4,
                      .fields = {{.name = "q", .width = G->elem_size},
                                 {.name = "xi", .width = G->dim},
                                 {.name = "nu", .width = G->dim},
                                 {.name = "p", .width = G->dim}},
                      .begin = cubic_begin,
                      .advance = cubic_advance,
                      .row = cubic_row};
    return SP_OK;
}

static void cubic_report(void *self, const sp_run *run, cJSON *root)
{
    (void)run;
    const cubic_simulation *c = self;
    const sp_problem *pb = c->pb;
    cJSON_AddNumberToObject(root, "h", pb->T / pb->steps);
    cJSON *diag = cJSON_AddObjectToObject(root, "diagnostics");
    cJSON_AddNumberToObject(diag, "momentum_map_drift", c->d.momentum_map);
    cJSON_AddNumberToObject(diag, "right_momentum_drift", c->d.right_momentum);
    cJSON_AddNumberToObject(diag, "casimir_drift", c->d.casimir);
    cJSON_AddNumberToObject(diag, "energy_error", c->d.energy);
    if (c->d.H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", c->d.energy / fabs(c->d.H0));
    cJSON_AddStringToObject(cJSON_GetObjectItem(root, "work"), "solver", sp_hohp_solver_name(pb->solver));
    cJSON *settings = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddStringToObject(settings, "group", pb->cubic.group->name);
    cJSON_AddStringToObject(settings, "scheme", pb->scheme->name);
    cJSON_AddStringToObject(settings, "retraction", pb->retraction->name);
    cJSON_AddNumberToObject(settings, "record_every", pb->record_every);
}

static void cubic_release(void *self) { sp_hohp_free(((cubic_simulation *)self)->stepper); }

/* The plan task: every outcome, failures included, lands in the result. With `curves`
 * the solved curve is handed over too (sp_plan_take_curves; none without a result). */
static cJSON *cubic_plan_curve(const sp_problem *pb, const sp_progress *progress, sp_curve *curves[2])
{
    if (curves) curves[0] = curves[1] = NULL;
    sp_plan *plan = sp_plan_new(pb);
    if (!plan) return NULL;
    sp_plan_set_progress(plan, progress);
    sp_plan_result res;
    sp_plan_solve(plan, &res);
    cJSON *result = sp_plan_result_json(plan, &res);
    if (curves && result) sp_plan_take_curves(plan, curves);
    sp_plan_free(plan);
    return result;
}

static cJSON *cubic_plan(const sp_problem *pb, const sp_progress *progress)
{
    return cubic_plan_curve(pb, progress, NULL);
}

const sp_family sp_cubic_family = {
    .name = "cubic_spline",
    .kinds = SP_KIND_FLAG(SP_KIND_CUBIC),
    .simulation =
        &(const sp_simulation_ops){
            .size = sizeof(cubic_simulation), .init = cubic_init, .report = cubic_report, .release = cubic_release},
    .plan = cubic_plan,
    .plan_curve = cubic_plan_curve,
    .drift = sp_cubic_drift,
    .figure = sp_cubic_figure,
};
