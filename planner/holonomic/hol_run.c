/* Simulations of holonomic models with their diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/sp_solve.h"
#include "planner/holonomic/sp_hol_run.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

sp_status sp_hol_system_init(sp_hol_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    const sp_hol_problem *hp = &pb->hol;
    sp_status st = sp_hol_model_bind(hp->type, &hp->params, &sys->bound);
    if (st != SP_OK) return st;
    sys->scheme = hp->scheme;
    sys->n = hp->type->n;
    sys->native = 2 * sys->n;
    const sp_newton_options opt = {.tol = pb->solver_tol > 0.0 ? pb->solver_tol : 1e-15, .max_iter = 50};
    const char *method = hp->scheme->method;
    switch (hp->scheme->family) {
    case SP_HOL_FAMILY_CONSTRAINED:
        sys->hol = sp_holonomic_alloc(&sys->bound.holonomic, sp_holonomic_method_by_name(method));
        if (!sys->hol) break;
        sp_holonomic_set_options(sys->hol, &opt);
        return SP_OK;
    case SP_HOL_FAMILY_FEEDBACK: {
        sp_feedback_gains k = hp->gains;
        k.g_scale = sys->bound.scales.g_scale;
        k.hidden_scale = sys->bound.scales.hidden_scale;
        sys->fb = sp_feedback_alloc(&sys->bound.holonomic, &k, sys->bound.has_integral ? &sys->bound.integral : NULL);
        if (!sys->fb) break;
        double z0[2 * SP_HOL_MAX_N];
        sp_vec_copy(sys->n, hp->q0, z0);
        sp_vec_copy(sys->n, hp->p0, z0 + sys->n);
        if ((st = sp_feedback_set_reference(sys->fb, z0)) != SP_OK) {
            sp_hol_system_release(sys);
            return st;
        }
        sp_ode_system ode = sp_feedback_system(sys->fb, 1);
        sys->erk = sp_erk_alloc(method, &ode);
        if (!sys->erk) break;
        sys->control = sp_erk_control_default();
        sys->control.rtol = hp->rtol;
        sys->control.atol = hp->atol;
        sys->control.h_max = pb->T / pb->steps;
        return SP_OK;
    }
    case SP_HOL_FAMILY_SPLITTING:
        sys->splitting = sp_splitting_method_by_name(method);
        sys->split = sp_spherical_pendulum_split(&sys->bound.pendulum);
        return sys->splitting ? SP_OK : SP_ERR_INVALID;
    case SP_HOL_FAMILY_LIE:
        sys->native = 12;
        sys->lie = sp_lie_rattle_alloc(&sys->bound.lie, hp->retraction);
        if (!sys->lie) break;
        sp_lie_rattle_set_options(sys->lie, &opt);
        return SP_OK;
    case SP_HOL_FAMILY_PROP7:
        sys->prop7 = sp_prop7_alloc(&sys->bound.prop7);
        if (!sys->prop7) break;
        sp_prop7_set_options(sys->prop7, &opt);
        return SP_OK;
    }
    sp_hol_system_release(sys);
    return SP_ERR_NOMEM;
}

void sp_hol_system_release(sp_hol_system *sys)
{
    sp_holonomic_free(sys->hol);
    sp_erk_free(sys->erk);
    sp_feedback_free(sys->fb);
    sp_lie_rattle_free(sys->lie);
    sp_prop7_free(sys->prop7);
    sys->hol = NULL;
    sys->erk = NULL;
    sys->fb = NULL;
    sys->lie = NULL;
    sys->prop7 = NULL;
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

/* One fixed step of size h on x; *iterations gets the Newton iterations of implicit steps. */
static sp_status native_step(sp_hol_system *sys, double h, double *x, int *iterations)
{
    const int n = sys->n;
    *iterations = 0;
    sp_status st;
    switch (sys->scheme->family) {
    case SP_HOL_FAMILY_CONSTRAINED:
        st = sp_holonomic_step(sys->hol, h, x, x + n);
        *iterations = sp_holonomic_iterations(sys->hol);
        return st;
    case SP_HOL_FAMILY_FEEDBACK:
        return sp_erk_step(sys->erk, h, x);
    case SP_HOL_FAMILY_SPLITTING: {
        double z[2 * SP_HOL_MAX_N];
        sp_vec_copy(2 * n, x, z);
        st = sp_splitting_step(sys->splitting, &sys->split, h, z);
        if (st == SP_OK) sp_vec_copy(2 * n, z, x);
        return st;
    }
    case SP_HOL_FAMILY_LIE:
        st = sp_lie_rattle_step(sys->lie, h, x, x + 9);
        *iterations = sp_lie_rattle_iterations(sys->lie);
        return st;
    case SP_HOL_FAMILY_PROP7:
        st = sp_prop7_step(sys->prop7, h, x, x + n);
        *iterations = sp_prop7_iterations(sys->prop7);
        return st;
    }
    return SP_ERR_INVALID;
}

/* The step of a run from t0 to t1: adaptive for feedback_dop853 (the error control picks
 * the steps in between, the state lands on t1 exactly), else one fixed step. */
static sp_status run_step(sp_hol_system *sys, double t0, double t1, double *x, int *iterations)
{
    if (sys->erk && sp_erk_adaptive(sys->erk)) {
        *iterations = 0;
        double t = t0;
        while (t != t1) {
            /* each call is one accepted step, as many as the error control wants: a stop
             * (sp_progress.h) is checked between them, not only between output steps */
            if (sys->stop && *sys->stop) return SP_ERR_INTERRUPTED;
            sp_status st = sp_erk_evolve(sys->erk, &sys->control, &t, t1, &sys->h_proposal, x);
            if (st != SP_OK) return st;
        }
        return SP_OK;
    }
    return native_step(sys, t1 - t0, x, iterations);
}

sp_status sp_hol_step_qp(sp_hol_system *sys, double h, double *z)
{
    double x[2 * SP_HOL_MAX_N];
    int it;
    qp_to_native(sys, z, z + sys->n, x);
    sp_status st = native_step(sys, h, x, &it);
    if (st == SP_OK) native_to_qp(sys, x, z, z + sys->n);
    return st;
}

/* ---- runs */

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

static void record_row(const sp_hol_system *sys, sp_hol_run *run, double t, const double *x, const double *q,
                       const double *p, double lam)
{
    const int n = sys->n, r = run->rows++;
    run->t[r] = t;
    sp_vec_copy(n, q, run->q + (size_t)r * n);
    sp_vec_copy(n, p, run->p + (size_t)r * n);
    if (run->R) sp_vec_copy(9, x, run->R + (size_t)r * 9), sp_vec_copy(3, x + 9, run->mu + (size_t)r * 3);
    if (run->lam) run->lam[r] = lam;
}

static void accumulate(sp_hol_run *run, const sp_hol_values *v)
{
    run->energy_error = fmax(run->energy_error, fabs(v->energy - run->H0));
    run->constraint_residual = fmax(run->constraint_residual, v->constraint);
    run->hidden_residual = fmax(run->hidden_residual, v->hidden);
    for (size_t i = 0; i < v->n_monitors; ++i) run->monitor_drift[i] = fmax(run->monitor_drift[i], fabs(v->monitor[i]));
    for (size_t i = 0; i < v->n_integrals; ++i)
        run->integral_drift[i] = fmax(run->integral_drift[i], fabs(v->integral[i] - run->integral0[i]));
}

sp_status sp_hol_integrate(sp_hol_system *sys, int record, sp_hol_run *run)
{
    const sp_problem *pb = sys->pb;
    const int n = sys->n, N = pb->steps, every = pb->hol.record_every > 0 ? pb->hol.record_every : 1;
    const double h = pb->T / N;
    memset(run, 0, sizeof *run);
    if (record) {
        const size_t rows = (size_t)(N / every) + 1 + (N % every != 0);
        run->t = calloc(rows, sizeof *run->t);
        run->q = calloc(rows * (size_t)n, sizeof *run->q);
        run->p = calloc(rows * (size_t)n, sizeof *run->p);
        int ok = run->t && run->q && run->p;
        if (ok && sys->lie) {
            run->R = calloc(rows * 9, sizeof *run->R);
            run->mu = calloc(rows * 3, sizeof *run->mu);
            ok = run->R && run->mu;
        }
        if (ok && sys->prop7) ok = (run->lam = calloc(rows, sizeof *run->lam)) != NULL;
        if (!ok) return run->status = SP_ERR_NOMEM;
    }
    double x[2 * SP_HOL_MAX_N], q[SP_HOL_MAX_N], p[SP_HOL_MAX_N];
    initial_native(sys, x);
    native_to_qp(sys, x, q, p);
    sp_hol_values v;
    sp_status st = sp_hol_values_at(&sys->bound, q, p, &v);
    if (st != SP_OK) return run->status = st;
    run->H0 = v.energy;
    run->n_monitors = v.n_monitors;
    run->n_integrals = v.n_integrals;
    memcpy(run->integral0, v.integral, sizeof v.integral);
    accumulate(run, &v);
    if (record) record_row(sys, run, 0.0, x, q, p, v.lambda);
    if (sys->erk) sp_erk_reset_stats(sys->erk);
    sys->h_proposal = 0.0;
    const double start = sp_clock_seconds();
    long iterations = 0;
    for (int k = 0; k < N; ++k) {
        if (sys->stop && *sys->stop) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        int it = 0;
        const double t1 = k + 1 == N ? pb->T : (k + 1) * h;
        st = run_step(sys, k == 0 ? 0.0 : k * h, t1, x, &it);
        if (st == SP_OK) {
            native_to_qp(sys, x, q, p);
            st = sp_hol_values_at(&sys->bound, q, p, &v);
        }
        if (st != SP_OK) break;
        iterations += it;
        if (it > run->max_iterations) run->max_iterations = it;
        run->steps_done = k + 1;
        accumulate(run, &v);
        if (record && ((k + 1) % every == 0 || k + 1 == N)) record_row(sys, run, t1, x, q, p, v.lambda);
    }
    run->seconds = sp_clock_seconds() - start;
    if (sys->erk) {
        sp_erk_stats s = sp_erk_get_stats(sys->erk);
        run->work = s.evaluations;
        run->rejected = s.rejected;
    } else if (sys->splitting) {
        run->work = (long)run->steps_done * sys->splitting->stages;
    } else {
        run->work = iterations;
    }
    sp_vec_copy(n, q, run->q_end);
    sp_vec_copy(n, p, run->p_end);
    return run->status = st;
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
    cJSON_AddNumberToObject(settings, "record_every", hp->record_every);
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
    cJSON *params = cJSON_AddObjectToObject(settings, "params");
    for (size_t i = 0; i < type->n_params; ++i) {
        const sp_hol_param *pa = &type->params[i];
        if (pa->size == 1)
            cJSON_AddNumberToObject(params, pa->name, hp->params.value[pa->offset]);
        else
            sp_json_add_vector(params, pa->name, pa->size, hp->params.value + pa->offset);
    }
    cJSON_AddStringToObject(params, "potential", type->potential_names[hp->params.potential]);
}

static void run_json(const sp_hol_system *sys, const sp_hol_run *run, cJSON *result)
{
    const sp_hol_model_type *type = sys->bound.type;
    const int n = sys->n;
    if (run->t) {
        cJSON *tr = cJSON_AddObjectToObject(result, "trajectory");
        sp_json_add_vector(tr, "t", run->rows, run->t);
        sp_json_add_rows(tr, "q", run->rows, n, run->q, n);
        sp_json_add_rows(tr, "p", run->rows, n, run->p, n);
        if (run->R) {
            sp_json_add_rows(tr, "R", run->rows, 9, run->R, 9);
            sp_json_add_rows(tr, "mu", run->rows, 3, run->mu, 3);
        }
        if (run->lam) sp_json_add_vector(tr, "lambda", run->rows, run->lam);
        if (type->coordinates) {
            cJSON *names = cJSON_AddArrayToObject(tr, "coordinates");
            for (int i = 0; i < n; ++i) cJSON_AddItemToArray(names, cJSON_CreateString(type->coordinates[i]));
        }
    }
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
    size_t ni = sp_hol_integral_names(&sys->bound, names);
    for (size_t i = 0; i < run->n_integrals && i < ni; ++i) {
        snprintf(name, sizeof name, "%s_drift", names[i]);
        cJSON_AddNumberToObject(diag, name, run->integral_drift[i]);
    }
    cJSON *work = cJSON_AddObjectToObject(result, "work");
    switch (sys->scheme->family) {
    case SP_HOL_FAMILY_FEEDBACK:
        cJSON_AddNumberToObject(work, "rhs_evaluations", (double)run->work);
        if (sp_erk_adaptive(sys->erk)) cJSON_AddNumberToObject(work, "rejected_steps", (double)run->rejected);
        break;
    case SP_HOL_FAMILY_SPLITTING:
        cJSON_AddNumberToObject(work, "exact_flows", (double)run->work);
        break;
    default:
        cJSON_AddNumberToObject(work, "newton_iterations", (double)run->work);
        cJSON_AddNumberToObject(work, "mean_iterations", run->steps_done ? (double)run->work / run->steps_done : 0.0);
        cJSON_AddNumberToObject(work, "max_iterations", run->max_iterations);
    }
    cJSON *timing = cJSON_AddObjectToObject(result, "timing");
    cJSON_AddNumberToObject(timing, "integrate_seconds", run->seconds);
}

cJSON *sp_hol_simulate_json(const sp_problem *pb, const sp_progress *progress)
{
    sp_hol_system *sys = malloc(sizeof *sys); /* large, and it points into itself */
    if (!sys) return NULL;
    sp_status st = sp_hol_system_init(sys, pb);
    if (st != SP_OK) {
        free(sys);
        return NULL;
    }
    sys->stop = progress ? progress->stop : NULL;
    sp_hol_run run;
    st = sp_hol_integrate(sys, 1, &run);
    cJSON *root = NULL;
    if (st != SP_ERR_NOMEM) {
        root = sp_simulate_result_new(pb, st, run.steps_done);
        cJSON_AddNumberToObject(root, "initial_energy", run.H0);
        if (pb->hol.projected) {
            cJSON *proj = cJSON_AddObjectToObject(root, "initial_projection");
            cJSON_AddNumberToObject(proj, "q0_change", pb->hol.projection_q);
            cJSON_AddNumberToObject(proj, "p0_change", pb->hol.projection_p);
            cJSON_AddStringToObject(proj, "note",
                                    "q0 and p0 were projected onto T*Q (\"project\": true); the run starts there");
        }
        run_json(sys, &run, root);
        if (pb->hol.symplecticity_defect && st != SP_ERR_INTERRUPTED) {
            double defect;
            if (sp_hol_symplecticity_defect(sys, pb->T / pb->steps, &defect) == SP_OK)
                cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "diagnostics"), "symplecticity_defect", defect);
        }
        settings_json(pb, root);
    }
    sp_hol_run_release(&run);
    sp_hol_system_release(sys);
    free(sys);
    return root;
}
