/* Simulations of nonholonomic models with their diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/sp_solve.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

sp_status sp_nh_system_init(sp_nh_system *sys, const sp_problem *pb)
{
    memset(sys, 0, sizeof *sys);
    sys->pb = pb;
    const sp_nh_problem *np = &pb->nh;
    const sp_newton_options newton = {.tol = pb->solver_tol > 0.0 ? pb->solver_tol : 1e-15, .max_iter = 50};
    if (pb->kind == SP_KIND_NONHOLONOMIC_LIE) {
        sys->lie = 1;
        sp_status st = np->lie_type->bind(&np->lie_params, &sys->bound);
        if (st != SP_OK) return st;
        sp_nh_lie_options opt = sp_nh_lie_options_default();
        opt.lambda1 = np->recompute ? SP_NH_LIE_LAMBDA_RECOMPUTE : SP_NH_LIE_LAMBDA_CARRY;
        opt.newton = newton;
        sys->n = sys->bound.model.group->elem_size;
        sys->dim = sys->bound.model.group->dim;
        sys->m = sys->bound.model.m;
        sys->lie_stepper = sp_nh_lie_alloc(&sys->bound.model, np->retraction, np->stages, &opt);
        return sys->lie_stepper ? SP_OK : SP_ERR_NOMEM;
    }
    if (pb->kind != SP_KIND_NONHOLONOMIC || !np->type) return SP_ERR_INVALID;
    sp_nh_model_bind(np->type, &np->params, &sys->model);
    sp_nh_options opt = sp_nh_options_default();
    opt.lambda1 = np->recompute ? SP_NH_LAMBDA_RECOMPUTE : SP_NH_LAMBDA_CARRY;
    opt.newton = newton;
    sys->n = sys->dim = np->type->n;
    sys->m = np->type->m;
    sys->stepper = sp_nh_alloc(&sys->model, np->stages, &opt);
    return sys->stepper ? SP_OK : SP_ERR_NOMEM;
}

void sp_nh_system_release(sp_nh_system *sys)
{
    sp_nh_free(sys->stepper);
    sp_nh_lie_free(sys->lie_stepper);
    sys->stepper = NULL;
    sys->lie_stepper = NULL;
}

void sp_nh_run_release(sp_nh_run *run)
{
    free(run->t);
    free(run->q);
    free(run->p);
    free(run->g);
    free(run->mu);
    free(run->lam);
    run->t = run->q = run->p = run->g = run->mu = run->lam = NULL;
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
    size_t k = sys->pb->nh.type->integrals(x, y, &sys->pb->nh.params, all, NULL);
    for (size_t i = 1; i < k; ++i) v->integral[i - 1] = all[i];
    return SP_OK;
}

/* ---- recording */

static sp_status record_alloc(const sp_nh_system *sys, sp_nh_run *run, int rows)
{
    const sp_nh_problem *np = &sys->pb->nh;
    const size_t r = (size_t)rows;
    run->t = calloc(r, sizeof *run->t);
    run->lam = calloc(r * (size_t)sys->m, sizeof *run->lam);
    if (!run->t || !run->lam) return SP_ERR_NOMEM;
    const int coords = sys->lie ? np->lie_type->n_coordinates : sys->n;
    if (coords > 0) {
        run->q = calloc(r * (size_t)coords, sizeof *run->q);
        run->p = calloc(r * (size_t)coords, sizeof *run->p);
        if (!run->q || !run->p) return SP_ERR_NOMEM;
    }
    if (sys->lie) {
        run->g = calloc(r * (size_t)sys->n, sizeof *run->g);
        run->mu = calloc(r * (size_t)sys->dim, sizeof *run->mu);
        if (!run->g || !run->mu) return SP_ERR_NOMEM;
    }
    return SP_OK;
}

/* Writes row `row` at time t; *q_prev carries the sleigh's coordinates from step to step
 * (θ unwrapped continuously), updated by the caller through coordinates(). */
static void record_row(const sp_nh_system *sys, sp_nh_run *run, int row, double t, const double *x, const double *y,
                       const double *lam, const double *qc, const double *pc)
{
    const size_t k = (size_t)row;
    run->t[k] = t;
    sp_vec_copy(sys->m, lam, run->lam + k * (size_t)sys->m);
    if (sys->lie) {
        sp_vec_copy(sys->n, x, run->g + k * (size_t)sys->n);
        sp_vec_copy(sys->dim, y, run->mu + k * (size_t)sys->dim);
        const int c = sys->pb->nh.lie_type->n_coordinates;
        if (c > 0) {
            sp_vec_copy(c, qc, run->q + k * (size_t)c);
            sp_vec_copy(c, pc, run->p + k * (size_t)c);
        }
    } else {
        sp_vec_copy(sys->n, x, run->q + k * (size_t)sys->n);
        sp_vec_copy(sys->n, y, run->p + k * (size_t)sys->n);
    }
}

/* The coordinates of a Lie-group state (the sleigh's (x, y, θ), M(θ)q̇), continuous through q_prev. */
static void coordinates(const sp_nh_system *sys, const double *g, const double *mu, const double *q_prev, double *qc,
                        double *pc)
{
    const sp_nh_lie_type *type = sys->pb->nh.lie_type;
    if (sys->lie && type->to_coordinates) type->to_coordinates(&sys->bound, g, mu, q_prev, qc, pc);
}

sp_status sp_nh_integrate(sp_nh_system *sys, int record, sp_nh_run *run)
{
    const sp_problem *pb = sys->pb;
    const sp_nh_problem *np = &pb->nh;
    const int N = pb->steps, every = np->record_every > 0 ? np->record_every : 1, m = sys->m;
    const double h = pb->T / N;
    memset(run, 0, sizeof *run);
    run->rows = N / every + 1 + (N % every != 0);
    if (record && record_alloc(sys, run, run->rows) != SP_OK) return run->status = SP_ERR_NOMEM;
    run->rows = 0;

    double x[SP_LIE_MAX_ELEM], y[SP_LIE_MAX_ELEM], lam[SP_NH_MAX_M] = {0};
    double qc[SP_LIE_MAX_ELEM] = {0}, pc[SP_LIE_MAX_ELEM] = {0};
    sp_status st;
    if (sys->lie) {
        sp_vec_copy(sys->n, np->g0, x);
        sp_vec_copy(sys->dim, np->mu0, y);
        st = sp_nh_lie_multiplier(&sys->bound.model, x, y, lam);
        coordinates(sys, x, y, NULL, qc, pc);
    } else {
        sp_vec_copy(sys->n, np->q0, x);
        sp_vec_copy(sys->n, np->p0, y);
        st = sp_nh_multiplier(&sys->model, x, y, lam);
    }
    point_values v0, v;
    if (st == SP_OK) st = values_at(sys, x, y, &v0);
    if (st != SP_OK) return run->status = st;
    run->H0 = v0.energy;
    run->constraint_residual = v0.constraint;
    run->group_error = v0.group;
    if (!sys->lie) {
        const char *names[SP_NH_MAX_INTEGRALS];
        double all[SP_NH_MAX_INTEGRALS];
        size_t k = np->type->integrals(x, y, &np->params, all, names);
        run->n_integrals = k > 0 ? k - 1 : 0;
        for (size_t i = 0; i < run->n_integrals; ++i) run->integral_names[i] = names[i + 1];
        sp_vec_copy((int)run->n_integrals, v0.integral, run->integral0);
    }
    if (record) record_row(sys, run, run->rows++, 0.0, x, y, lam, qc, pc);

    const double start = sp_clock_seconds();
    for (int k = 0; k < N; ++k) {
        if (sys->stop && *sys->stop) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        int it;
        double stage;
        if (sys->lie) {
            st = sp_nh_lie_step(sys->lie_stepper, h, x, y, lam);
            sp_nh_lie_step_info info = sp_nh_lie_last_step(sys->lie_stepper);
            it = info.iterations, stage = info.stage_residual;
        } else {
            st = sp_nh_step(sys->stepper, h, x, y, lam);
            sp_nh_step_info info = sp_nh_last_step(sys->stepper);
            it = info.iterations, stage = info.stage_residual;
        }
        if (st == SP_OK) st = values_at(sys, x, y, &v);
        if (st != SP_OK) break;
        run->steps_done = k + 1;
        run->iterations += it;
        if (it > run->max_iterations) run->max_iterations = it;
        const double dH = fabs(v.energy - run->H0);
        run->energy_error = fmax(run->energy_error, dH);
        const int quarter = (int)(4L * k / N);
        run->energy_quarter[quarter] = fmax(run->energy_quarter[quarter], dH);
        run->constraint_residual = fmax(run->constraint_residual, v.constraint);
        run->stage_residual = fmax(run->stage_residual, stage);
        run->group_error = fmax(run->group_error, v.group);
        for (size_t i = 0; i < run->n_integrals; ++i)
            run->integral_drift[i] = fmax(run->integral_drift[i], fabs(v.integral[i] - run->integral0[i]));
        if (sys->lie) {
            double q_prev[SP_LIE_MAX_ELEM];
            sp_vec_copy(SP_LIE_MAX_ELEM, qc, q_prev);
            coordinates(sys, x, y, q_prev, qc, pc);
        }
        if (record && ((k + 1) % every == 0 || k + 1 == N))
            record_row(sys, run, run->rows++, (k + 1) * h, x, y, lam, qc, pc);
    }
    run->seconds = sp_clock_seconds() - start;
    /* the constraint holds at the stages and at the step points alike */
    run->constraint_residual = fmax(run->constraint_residual, run->stage_residual);
    sp_vec_copy(sys->n, x, run->q_end);
    sp_vec_copy(sys->dim, y, run->p_end);
    sp_vec_copy(m, lam, run->lam_end);
    return run->status = st;
}

/* ---- the result */

static void settings_json(const sp_problem *pb, cJSON *result)
{
    const sp_nh_problem *np = &pb->nh;
    cJSON *settings = cJSON_AddObjectToObject(result, "settings");
    cJSON_AddStringToObject(settings, "scheme", "lobatto");
    cJSON_AddNumberToObject(settings, "stages", np->stages);
    cJSON_AddNumberToObject(settings, "order", 2 * np->stages - 2);
    cJSON_AddStringToObject(settings, "lambda1", np->recompute ? "recompute" : "carry");
    if (np->lie_type) {
        cJSON_AddStringToObject(settings, "group", np->lie_type->group_name);
        cJSON_AddStringToObject(settings, "retraction", np->retraction->name);
    }
    cJSON_AddNumberToObject(settings, "h", pb->T / pb->steps);
    cJSON_AddNumberToObject(settings, "steps", pb->steps);
    cJSON_AddNumberToObject(settings, "record_every", np->record_every);
    cJSON_AddNumberToObject(settings, "solver_tol", pb->solver_tol);
    cJSON *params = cJSON_AddObjectToObject(settings, "params");
    if (np->lie_type) {
        for (size_t i = 0; i < np->lie_type->n_params; ++i) {
            const sp_nh_lie_param *pa = &np->lie_type->params[i];
            if (pa->size == 1)
                cJSON_AddNumberToObject(params, pa->name, np->lie_params.value[pa->offset]);
            else
                sp_json_add_vector(params, pa->name, pa->size, np->lie_params.value + pa->offset);
        }
    } else {
        for (size_t i = 0; i < np->type->n_params; ++i)
            cJSON_AddNumberToObject(params, np->type->param_names[i], np->params.value[i]);
    }
}

static void names_json(cJSON *tr, int count, const char *const *names)
{
    cJSON *arr = cJSON_AddArrayToObject(tr, "coordinates");
    for (int i = 0; i < count; ++i) cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
}

static void run_json(const sp_nh_system *sys, const sp_nh_run *run, cJSON *result)
{
    const sp_nh_problem *np = &sys->pb->nh;
    if (run->t) {
        cJSON *tr = cJSON_AddObjectToObject(result, "trajectory");
        sp_json_add_vector(tr, "t", run->rows, run->t);
        const int c = sys->lie ? np->lie_type->n_coordinates : sys->n;
        if (run->q) {
            sp_json_add_rows(tr, "q", run->rows, c, run->q, c);
            sp_json_add_rows(tr, "p", run->rows, c, run->p, c);
        }
        if (sys->lie) {
            sp_json_add_rows(tr, "g", run->rows, sys->n, run->g, sys->n);
            sp_json_add_rows(tr, "mu", run->rows, sys->dim, run->mu, sys->dim);
        }
        sp_json_add_rows(tr, "lambda", run->rows, sys->m, run->lam, sys->m);
        if (!sys->lie)
            names_json(tr, c, np->type->coordinates);
        else if (c > 0)
            names_json(tr, c, np->lie_type->coordinates);
        else
            names_json(tr, sys->n, np->lie_type->element_names);
    }
    cJSON *diag = cJSON_AddObjectToObject(result, "diagnostics");
    cJSON_AddNumberToObject(diag, "constraint_residual", run->constraint_residual);
    cJSON_AddNumberToObject(diag, "energy_error", run->energy_error);
    if (run->H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", run->energy_error / fabs(run->H0));
    char name[96];
    for (size_t i = 0; i < run->n_integrals; ++i) {
        snprintf(name, sizeof name, "%s_drift", run->integral_names[i]);
        cJSON_AddNumberToObject(diag, name, run->integral_drift[i]);
    }
    if (sys->lie) cJSON_AddNumberToObject(diag, "group_error", run->group_error);
    sp_json_add_vector(result, "energy_error_quarters", 4, run->energy_quarter);
    cJSON *work = cJSON_AddObjectToObject(result, "work");
    cJSON_AddNumberToObject(work, "newton_iterations", (double)run->iterations);
    cJSON_AddNumberToObject(work, "mean_iterations", run->steps_done ? (double)run->iterations / run->steps_done : 0.0);
    cJSON_AddNumberToObject(work, "max_iterations", run->max_iterations);
    cJSON *timing = cJSON_AddObjectToObject(result, "timing");
    cJSON_AddNumberToObject(timing, "integrate_seconds", run->seconds);
}

cJSON *sp_nh_simulate_json(const sp_problem *pb, const sp_progress *progress)
{
    sp_nh_system *sys = malloc(sizeof *sys); /* it points into itself */
    if (!sys) return NULL;
    sp_status st = sp_nh_system_init(sys, pb);
    if (st != SP_OK) {
        sp_nh_system_release(sys);
        free(sys);
        return NULL;
    }
    sys->stop = progress ? progress->stop : NULL;
    sp_nh_run run;
    st = sp_nh_integrate(sys, 1, &run);
    cJSON *root = NULL;
    if (st != SP_ERR_NOMEM) {
        root = sp_simulate_result_new(pb, st, run.steps_done);
        cJSON_AddNumberToObject(root, "initial_energy", run.H0);
        run_json(sys, &run, root);
        settings_json(pb, root);
    }
    sp_nh_run_release(&run);
    sp_nh_system_release(sys);
    free(sys);
    return root;
}
