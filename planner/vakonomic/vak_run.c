/* Integration of vakonomic models with their diagnostics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

sp_status sp_vak_system_init(sp_vak_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    sp_vak_model_bind(pb->vak.type, &pb->vak.params, sys->mass, &sys->model);
    sp_tableau tab;
    if (sp_tableau_get("gauss", pb->vak.stages, &tab) != SP_OK) return SP_ERR_INVALID;
    sys->stepper = sp_index1_alloc(&sys->model, &tab);
    sys->point = sp_vakonomic_point_alloc(&sys->model);
    if (!sys->stepper || !sys->point) {
        sp_vak_system_release(sys);
        return SP_ERR_NOMEM;
    }
    sp_index1_set_options(sys->stepper, &(sp_newton_options){.tol = pb->solver_tol, .max_iter = 50});
    return SP_OK;
}

void sp_vak_system_release(sp_vak_system *sys)
{
    sp_index1_free(sys->stepper);
    sp_vakonomic_point_free(sys->point);
    sys->stepper = NULL;
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

sp_status sp_vak_integrate(sp_vak_system *sys, const double *q0, const double *p0, int record, int sensitivity,
                           sp_vak_run *run)
{
    const sp_problem *pb = sys->pb;
    const sp_vak_model_type *type = pb->vak.type;
    const int n = sys->model.n, m = sys->model.m, N = pb->steps, n2 = 2 * n;
    const double h = pb->T / N;
    memset(run, 0, sizeof *run);
    if (record) {
        /* zeroed: a run that fails at its first point still reports a defined row 0 */
        run->t = calloc((size_t)N + 1, sizeof *run->t);
        run->q = calloc(((size_t)N + 1) * (size_t)n, sizeof *run->q);
        run->p = calloc(((size_t)N + 1) * (size_t)n, sizeof *run->p);
        run->lam = calloc(((size_t)N + 1) * (size_t)(m ? m : 1), sizeof *run->lam);
        if (!run->t || !run->q || !run->p || !run->lam) return run->status = SP_ERR_NOMEM;
    }
    double S[2 * SP_VAK_MAX_N * SP_VAK_MAX_N], Phi[4 * SP_VAK_MAX_N * SP_VAK_MAX_N];
    if (sensitivity) {
        run->jacobian = calloc((size_t)n2 * (size_t)n, sizeof *run->jacobian);
        if (!run->jacobian) return run->status = SP_ERR_NOMEM;
        memset(S, 0, sizeof S); /* ∂z0/∂p0 = [0; I] */
        for (int i = 0; i < n; ++i) S[(n + i) * n + i] = 1.0;
    }
    double q[SP_VAK_MAX_N], p[SP_VAK_MAX_N], lam[SP_VAK_MAX_M] = {0}, I[SP_VAK_MAX_INTEGRALS];
    double residual, kinetic, kinetic_prev, H;
    sp_vec_copy(n, q0, q);
    sp_vec_copy(n, p0, p);
    if (record) {
        sp_vec_copy(n, q, run->q);
        sp_vec_copy(n, p, run->p);
    }
    sp_status st = point_values(sys, q, p, &run->H0, lam, &run->constraint_residual, &kinetic_prev);
    if (st != SP_OK) return run->status = st;
    run->n_integrals = type->integrals(q, p, &pb->vak.params, run->integral0, NULL);
    if (record) {
        run->t[0] = 0.0;
        sp_vec_copy(n, q, run->q);
        sp_vec_copy(n, p, run->p);
        sp_vec_copy(m, lam, run->lam);
    }
    long iterations = 0;
    for (int k = 0; k < N; ++k) {
        if (sys->stop && *sys->stop) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        st = sp_index1_step(sys->stepper, h, q, p, q, p, NULL);
        if (st == SP_OK && sensitivity) st = sp_index1_step_jacobian(sys->stepper, Phi);
        if (st == SP_OK) st = point_values(sys, q, p, &H, lam, &residual, &kinetic);
        if (st != SP_OK) break;
        if (sensitivity) { /* S ← Φ S */
            double T[2 * SP_VAK_MAX_N * SP_VAK_MAX_N];
            sp_mat_mul(n2, n2, n, Phi, S, T);
            sp_vec_copy(n2 * n, T, S);
        }
        int it = sp_index1_iterations(sys->stepper);
        iterations += it;
        if (it > run->max_iterations) run->max_iterations = it;
        run->steps_done = k + 1;
        run->energy_error = fmax(run->energy_error, fabs(H - run->H0));
        run->constraint_residual = fmax(run->constraint_residual, residual);
        type->integrals(q, p, &pb->vak.params, I, NULL);
        for (size_t i = 0; i < run->n_integrals; ++i)
            run->integral_drift[i] = fmax(run->integral_drift[i], fabs(I[i] - run->integral0[i]));
        run->energy += 0.5 * h * (kinetic_prev + kinetic);
        run->length += 0.5 * h * (sqrt(2.0 * kinetic_prev) + sqrt(2.0 * kinetic));
        kinetic_prev = kinetic;
        if (record) {
            run->t[k + 1] = (k + 1) * h;
            sp_vec_copy(n, q, run->q + (size_t)(k + 1) * n);
            sp_vec_copy(n, p, run->p + (size_t)(k + 1) * n);
            sp_vec_copy(m, lam, run->lam + (size_t)(k + 1) * m);
        }
    }
    run->mean_iterations = run->steps_done ? (double)iterations / run->steps_done : 0.0;
    sp_vec_copy(n, q, run->q_end);
    sp_vec_copy(n, p, run->p_end);
    if (sensitivity && st == SP_OK) sp_vec_copy(n2 * n, S, run->jacobian);
    return run->status = st;
}

typedef struct vak_defect_ctx {
    sp_vak_system *sys;
    double h;
} vak_defect_ctx;

static sp_status vak_step_map(void *ctx, double *z)
{
    vak_defect_ctx *c = ctx;
    const int n = c->sys->model.n;
    return sp_index1_step(c->sys->stepper, c->h, z, z + n, z, z + n, NULL);
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

void sp_vak_run_json(const sp_vak_system *sys, const sp_vak_run *run, cJSON *result)
{
    const sp_vak_model_type *type = sys->pb->vak.type;
    const int n = sys->model.n, m = sys->model.m, rows = run->steps_done + 1;
    if (run->t) {
        cJSON *tr = cJSON_AddObjectToObject(result, "trajectory");
        sp_json_add_vector(tr, "t", rows, run->t);
        sp_json_add_rows(tr, "q", rows, n, run->q, n);
        sp_json_add_rows(tr, "p", rows, n, run->p, n);
        sp_json_add_rows(tr, "lambda", rows, m, run->lam, m);
        cJSON *names = cJSON_AddArrayToObject(tr, "coordinates");
        for (int i = 0; i < n; ++i) cJSON_AddItemToArray(names, cJSON_CreateString(type->coordinates[i]));
    }
    cJSON *diag = cJSON_AddObjectToObject(result, "diagnostics");
    cJSON_AddNumberToObject(diag, "energy_error", run->energy_error);
    if (run->H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", run->energy_error / fabs(run->H0));
    cJSON_AddNumberToObject(diag, "constraint_residual", run->constraint_residual);
    const char *names[SP_VAK_MAX_INTEGRALS];
    double values[SP_VAK_MAX_INTEGRALS];
    type->integrals(sys->pb->vak.q0, sys->pb->vak.p0, &sys->pb->vak.params, values, names); /* for the names */
    for (size_t i = 0; i < run->n_integrals; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s_drift", names[i]);
        cJSON_AddNumberToObject(diag, name, run->integral_drift[i]);
    }
    cJSON_AddNumberToObject(diag, "hamiltonian", run->H0);
    cJSON *solve = cJSON_AddObjectToObject(result, "implicit_solve");
    cJSON_AddNumberToObject(solve, "mean_iterations", run->mean_iterations);
    cJSON_AddNumberToObject(solve, "max_iterations", run->max_iterations);
}

void sp_vak_settings_json(const sp_problem *pb, cJSON *result)
{
    cJSON *settings = cJSON_AddObjectToObject(result, "settings");
    cJSON_AddStringToObject(settings, "scheme", "gauss");
    cJSON_AddNumberToObject(settings, "stages", pb->vak.stages);
    cJSON_AddNumberToObject(settings, "order", 2 * pb->vak.stages);
    cJSON_AddNumberToObject(settings, "h", pb->T / pb->steps);
    cJSON_AddNumberToObject(settings, "steps", pb->steps);
    cJSON *params = cJSON_AddObjectToObject(settings, "params");
    const sp_vak_model_type *type = pb->vak.type;
    for (size_t i = 0; i < type->n_params; ++i)
        cJSON_AddNumberToObject(params, type->param_names[i], pb->vak.params.value[i]);
    cJSON_AddStringToObject(params, "potential", type->potential_names[pb->vak.params.potential]);
}

cJSON *sp_vak_simulate_json(const sp_problem *pb, const sp_progress *progress)
{
    sp_vak_system sys;
    if (sp_vak_system_init(&sys, pb) != SP_OK) return NULL;
    sys.stop = progress ? progress->stop : NULL;
    sp_vak_run run;
    sp_status st = sp_vak_integrate(&sys, pb->vak.q0, pb->vak.p0, 1, 0, &run);
    cJSON *root = NULL;
    if (st != SP_ERR_NOMEM) {
        root = sp_simulate_result_new(pb, st, run.steps_done);
        sp_vak_run_json(&sys, &run, root);
        if (pb->vak.symplecticity_defect && st != SP_ERR_INTERRUPTED) {
            double defect;
            if (sp_vak_symplecticity_defect(&sys, pb->vak.q0, pb->vak.p0, pb->T / pb->steps, &defect) == SP_OK)
                cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "diagnostics"), "symplecticity_defect", defect);
        }
        sp_vak_settings_json(pb, root);
    }
    sp_vak_run_release(&run);
    sp_vak_system_release(&sys);
    return root;
}
