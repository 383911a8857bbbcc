/* Step selection by Richardson extrapolation over whole runs (sp_step_selection.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_step_selection.h"
#include "problems/sp_limits.h"

/* A first pair of 16 and 32 steps costs little next to any run worth a tolerance, and is
 * fine enough for the estimate of most problems to be in its asymptotic range. */
#define START_STEPS 16
/* Aim 10 % below the tolerance in steps (2^p·… below in error), so that the run that
 * checks a prediction passes at once. */
#define SAFETY 1.1
/* A trial run that breaks down (an implicit solve that does not converge at a large
 * step) is retried with this many times the steps. */
#define FAILURE_GROWTH 4

/* What a trial run leaves: its final state without the multipliers, and its effort. */
typedef struct trial_end {
    double *z;
    int n;
    sp_run_work work;
    int steps_done;
    double seconds, start_seconds;
} trial_end;

static void keep_final_state(void *ctx, void *self, const sp_stepper *s, const sp_run *run)
{
    (void)self;
    trial_end *end = ctx;
    end->work = run->work;
    end->steps_done = run->steps_done;
    end->seconds = run->seconds;
    end->start_seconds = run->start_seconds;
    int width = 0;
    for (int f = 0; f < s->n_fields; ++f) width += s->fields[f].width;
    double *row = malloc((size_t)(width > 0 ? width : 1) * sizeof *row);
    end->z = malloc((size_t)(width > 0 ? width : 1) * sizeof *end->z);
    if (!row || !end->z) {
        free(row);
        free(end->z);
        end->z = NULL;
        return;
    }
    double *out[SP_RUN_MAX_FIELDS];
    for (int f = 0, at = 0; f < s->n_fields; at += s->fields[f].width, ++f) out[f] = row + at;
    s->row(s->self, out);
    end->n = 0;
    for (int f = 0; f < s->n_fields; ++f)
        if (!s->fields[f].multiplier)
            for (int i = 0; i < s->fields[f].width; ++i) end->z[end->n++] = out[f][i];
    free(row);
}

/* A run of `steps` steps without rows, counted into sel; end->z is its final state (NULL
 * when it failed). */
static sp_status trial(const sp_family *f, const sp_problem *pb, const sp_progress *progress, int steps,
                       sp_step_selection *sel, trial_end *end)
{
    const sp_run_settings settings = {.T = pb->T,
                                      .steps = steps,
                                      .record = 0,
                                      .budget = pb->step_budget > 0 ? pb->step_budget - sel->work.attempts : 0,
                                      .progress = progress};
    memset(end, 0, sizeof *end);
    sp_status st = sp_family_run(f, pb, &settings, keep_final_state, end);
    if (st == SP_OK && !end->z) st = SP_ERR_NOMEM;
    if (st != SP_OK) {
        free(end->z);
        end->z = NULL;
    }
    sp_run_work_add(&sel->work, &end->work);
    sel->steps_done += end->steps_done;
    sel->parts.start += end->start_seconds;
    sel->parts.plain_sweeps += end->seconds;
    if (sel->n_trials < SP_STEP_SELECTION_MAX_TRIALS)
        sel->trials[sel->n_trials++] =
            (sp_step_trial){.steps = steps, .status = st, .error = -1.0, .seconds = end->seconds};
    return st;
}

/* Whether a failed trial run says the step was too large (retry with more steps) rather
 * than that the search must stop. */
static int step_too_large(sp_status st)
{
    return st == SP_ERR_NO_CONVERGENCE || st == SP_ERR_SINGULAR || st == SP_ERR_NONFINITE || st == SP_ERR_DOMAIN ||
           st == SP_ERR_CALLBACK;
}

static double max_difference(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return isnan(d) ? INFINITY : d;
}

/* One round: the pair (N, 2N). SP_OK with *error the estimate for 2N. */
static sp_status pair(const sp_family *f, const sp_problem *pb, const sp_progress *progress, int N,
                      sp_step_selection *sel, double *error)
{
    trial_end coarse, fine;
    sp_status st = trial(f, pb, progress, N, sel, &coarse);
    if (st != SP_OK) return st;
    st = trial(f, pb, progress, 2 * N, sel, &fine);
    if (st == SP_OK) {
        *error = max_difference(coarse.n, coarse.z, fine.z) / (ldexp(1.0, sel->order) - 1.0);
        sel->trials[sel->n_trials - 1].error = *error;
    }
    free(coarse.z);
    free(fine.z);
    return st;
}

void sp_step_select(const sp_family *f, const sp_problem *pb, const sp_progress *progress, sp_step_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    sel->tolerance = pb->error_tolerance;
    sel->order = f->simulation->order(pb);
    sel->estimated_error = INFINITY;
    const long budget = pb->step_budget > 0 ? pb->step_budget : LONG_MAX;
    int N = START_STEPS;
    /* two runs a round */
    while (sel->n_trials + 2 <= SP_STEP_SELECTION_MAX_TRIALS) {
        /* the pair and a final run of 2N steps must fit in what is left */
        if ((double)sel->work.attempts + 5.0 * N > (double)budget || N > INT_MAX / 2) {
            sel->status = SP_ERR_TOO_MANY_STEPS;
            return;
        }
        sp_problem final = *pb;
        final.steps = 2 * N;
        const double memory = sp_problem_memory_estimate(&final);
        if (pb->memory_budget > 0.0 && memory > pb->memory_budget) {
            sel->status = SP_ERR_TOO_MANY_STEPS;
            sel->memory_steps = 2 * N;
            sel->memory_needed = memory;
            sel->memory_limit = pb->memory_budget;
            return;
        }
        double error = INFINITY;
        sp_status st = pair(f, pb, progress, N, sel, &error);
        if (st != SP_OK && !step_too_large(st)) {
            sel->status = st;
            return;
        }
        if (st == SP_OK && error < sel->estimated_error) {
            sel->steps = 2 * N;
            sel->estimated_error = error;
        }
        if (st == SP_OK && error <= sel->tolerance) {
            sel->status = SP_OK;
            sel->reached = 1;
            return;
        }
        /* the error model err(M) = C (T/M)^p fitted at 2N, solved for M with a margin; a
         * broken-down or non-finite run only says "more steps" */
        const double M = isfinite(error) ? ceil(2.0 * N * pow(error / sel->tolerance, 1.0 / sel->order) * SAFETY)
                                         : (double)FAILURE_GROWTH * N;
        N = M / 2.0 > INT_MAX / 2 ? INT_MAX : (int)ceil(M / 2.0);
    }
    /* the rounds ran out: the best tried, if any run pair succeeded */
    sel->status = sel->steps > 0 ? SP_OK : SP_ERR_NO_CONVERGENCE;
}

void sp_step_selection_json(const sp_step_selection *sel, double T, cJSON *result)
{
    cJSON *block = cJSON_AddObjectToObject(result, "step_selection");
    cJSON_AddNumberToObject(block, "tolerance", sel->tolerance);
    cJSON_AddNumberToObject(block, "order", sel->order);
    if (sel->steps > 0) {
        cJSON_AddNumberToObject(block, "steps", sel->steps);
        cJSON_AddNumberToObject(block, "h", T / sel->steps);
        cJSON_AddNumberToObject(block, "estimated_error", sel->estimated_error);
    }
    cJSON_AddBoolToObject(block, "reached", sel->reached);
    if (sel->memory_needed > 0.0) {
        char need[32], limit[32], text[320];
        sp_format_bytes(sel->memory_needed, need, sizeof need);
        sp_format_bytes(sel->memory_limit, limit, sizeof limit);
        snprintf(text, sizeof text,
                 "%d steps would need about %s for the trajectory and the result, above the limit %s (raise it "
                 "with --max-memory, or record fewer rows with record_every)",
                 sel->memory_steps, need, limit);
        cJSON_DeleteItemFromObjectCaseSensitive(result, "message");
        cJSON_AddStringToObject(result, "message", text);
    }
    cJSON *trials = cJSON_AddArrayToObject(block, "trial_runs");
    for (int i = 0; i < sel->n_trials; ++i) {
        const sp_step_trial *t = &sel->trials[i];
        cJSON *item = cJSON_CreateObject();
        cJSON_AddNumberToObject(item, "steps", t->steps);
        cJSON_AddStringToObject(item, "status", sp_status_name(t->status));
        if (t->error >= 0.0) cJSON_AddNumberToObject(item, "estimated_error", t->error);
        cJSON_AddNumberToObject(item, "integrate_seconds", t->seconds);
        cJSON_AddItemToArray(trials, item);
    }
}
