/* The stepping loop of every simulation (sp_run.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/sp_result.h"
#include "planner/sp_run.h"
#include "problems/sp_result_file.h"

sp_run_settings sp_run_settings_of(const sp_problem *pb, const sp_progress *progress)
{
    return (sp_run_settings){.T = pb->T,
                             .steps = pb->steps,
                             .record = 1,
                             .record_every = pb->record_every,
                             .budget = pb->step_budget,
                             .progress = progress};
}

void sp_run_release(sp_run *run)
{
    free(run->t);
    run->t = NULL;
    for (int f = 0; f < SP_RUN_MAX_FIELDS; ++f) {
        free(run->field[f]);
        run->field[f] = NULL;
    }
}

void sp_run_disown(sp_run *run)
{
    run->t = NULL;
    memset(run->field, 0, sizeof run->field);
}

/* Zeroed, so that a run failing at its first point still has a defined row 0. */
static sp_status allocate_rows(const sp_stepper *s, int rows, sp_run *run)
{
    run->t = calloc((size_t)rows, sizeof *run->t);
    if (!run->t) return SP_ERR_NOMEM;
    for (int f = 0; f < s->n_fields; ++f) {
        const size_t width = s->fields[f].width > 0 ? (size_t)s->fields[f].width : 1;
        if (!(run->field[f] = calloc((size_t)rows * width, sizeof *run->field[f]))) return SP_ERR_NOMEM;
    }
    return SP_OK;
}

static void record_row(const sp_stepper *s, double t, sp_run *run)
{
    double *out[SP_RUN_MAX_FIELDS];
    for (int f = 0; f < s->n_fields; ++f) out[f] = run->field[f] + (size_t)run->rows * (size_t)s->fields[f].width;
    run->t[run->rows++] = t;
    s->row(s->self, out);
}

/* A few hundred progress reports over a run, and the last step always. */
static void report_step(const sp_run_settings *set, int done)
{
    if (!set->progress || !set->progress->report) return;
    const int every = set->steps / 256 > 0 ? set->steps / 256 : 1;
    if (done % every != 0 && done != set->steps) return;
    sp_progress_info info = {.evaluation = 0, .cost = 0.0, .gradient_norm = 0.0, .step = done, .steps = set->steps};
    sp_progress_report(set->progress, &info);
}

sp_status sp_run_drive(const sp_stepper *s, const sp_run_settings *set, sp_run *run)
{
    const double begun = sp_clock_seconds();
    const int N = set->steps, every = set->record_every > 0 ? set->record_every : 1;
    const double h = set->T / N;
    memset(run, 0, sizeof *run);
    if (set->record && allocate_rows(s, N / every + 1 + (N % every != 0), run) != SP_OK)
        return run->status = SP_ERR_NOMEM;
    sp_status st = s->begin(s->self);
    if (set->record) record_row(s, 0.0, run);
    const double start = sp_clock_seconds();
    run->start_seconds = start - begun;
    if (st != SP_OK) return run->status = st;
    for (int k = 0; k < N; ++k) {
        if (sp_progress_stopped(set->progress)) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        const long left = set->budget > 0 ? set->budget - run->work.attempts : LONG_MAX;
        if (left <= 0) {
            st = SP_ERR_TOO_MANY_STEPS;
            break;
        }
        const sp_run_interval iv = {.index = k,
                                    .count = N,
                                    .t0 = k * h,
                                    .t1 = k + 1 == N ? set->T : (k + 1) * h,
                                    .h = h,
                                    .budget = left,
                                    .progress = set->progress};
        st = s->advance(s->self, &iv, &run->work);
        if (st != SP_OK) break;
        run->steps_done = k + 1;
        if (set->record && ((k + 1) % every == 0 || k + 1 == N)) record_row(s, iv.t1, run);
        report_step(set, k + 1);
    }
    run->seconds = sp_clock_seconds() - start;
    return run->status = st;
}

void sp_run_add_trajectory(const sp_stepper *s, const sp_run *run, cJSON *result)
{
    cJSON *tr = cJSON_AddObjectToObject(result, "trajectory");
    sp_json_add_vector(tr, "t", run->rows, run->t);
    for (int f = 0; f < s->n_fields; ++f) {
        const sp_run_field *fd = &s->fields[f];
        if (fd->flat)
            sp_json_add_vector(tr, fd->name, run->rows, run->field[f]);
        else
            sp_json_add_rows(tr, fd->name, run->rows, fd->width, run->field[f], fd->width);
    }
    if (s->coordinates) {
        cJSON *names = cJSON_AddArrayToObject(tr, "coordinates");
        for (int i = 0; i < s->n_coordinates; ++i) cJSON_AddItemToArray(names, cJSON_CreateString(s->coordinates[i]));
    }
}

void sp_run_work_add(sp_run_work *total, const sp_run_work *w)
{
    total->attempts += w->attempts;
    total->newton_iterations += w->newton_iterations;
    if (w->max_iterations > total->max_iterations) total->max_iterations = w->max_iterations;
    total->factorizations += w->factorizations;
    total->counts_factorizations |= w->counts_factorizations;
    total->rhs_evaluations += w->rhs_evaluations;
    total->rejected_steps += w->rejected_steps;
    total->exact_flows += w->exact_flows;
}

void sp_run_work_json(sp_work_kind kind, const sp_run_work *w, long steps_done, cJSON *work)
{
    cJSON_AddNumberToObject(work, "attempted_steps", (double)w->attempts);
    switch (kind) {
    case SP_WORK_IMPLICIT:
        cJSON_AddNumberToObject(work, "newton_iterations", (double)w->newton_iterations);
        cJSON_AddNumberToObject(work, "mean_iterations", steps_done ? (double)w->newton_iterations / steps_done : 0.0);
        cJSON_AddNumberToObject(work, "max_iterations", w->max_iterations);
        if (w->counts_factorizations) cJSON_AddNumberToObject(work, "factorizations", (double)w->factorizations);
        break;
    case SP_WORK_EXPLICIT:
        cJSON_AddNumberToObject(work, "rhs_evaluations", (double)w->rhs_evaluations);
        cJSON_AddNumberToObject(work, "rejected_steps", (double)w->rejected_steps);
        break;
    case SP_WORK_SPLITTING:
        cJSON_AddNumberToObject(work, "exact_flows", (double)w->exact_flows);
        break;
    }
}

void sp_run_add_work(const sp_stepper *s, const sp_run *run, cJSON *result)
{
    sp_run_work_json(s->work_kind, &run->work, run->steps_done, cJSON_AddObjectToObject(result, "work"));
}

cJSON *sp_run_result(const sp_problem *pb, const sp_stepper *s, const sp_run *run)
{
    cJSON *root = sp_simulate_result_new(pb, run->status, run->steps_done);
    if (!root) return NULL;
    if (run->t) sp_run_add_trajectory(s, run, root);
    sp_run_add_work(s, run, root);
    return root;
}
