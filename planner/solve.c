/* The dispatch of a problem to its family's task (sp_solve.h). */
#include <stdlib.h>

#include "planner/sp_clock.h"
#include "planner/sp_family.h"
#include "planner/sp_solve.h"
#include "planner/sp_step_selection.h"

/* The result of a finished run: the common blocks and the family's, what the run spent
 * (for a total over trial runs) and where its time went. */
typedef struct simulate_result {
    const sp_family *f;
    const sp_problem *pb;
    cJSON *result;
    sp_work_kind work_kind;
    sp_run_work work;
    int steps_done;
    sp_time_parts parts;
} simulate_result;

static void build_result(void *ctx, void *self, const sp_stepper *stepper, const sp_run *run)
{
    const double begun = sp_clock_seconds();
    simulate_result *r = ctx;
    r->work_kind = stepper->work_kind;
    r->work = run->work;
    r->steps_done = run->steps_done;
    r->parts.start += run->start_seconds;
    r->parts.plain_sweeps += run->seconds;
    if ((r->result = sp_run_result(r->pb, stepper, run))) r->f->simulation->report(self, run, r->result);
    r->parts.output += sp_clock_seconds() - begun;
}

/* The "timing" block of a simulation begun at `begun` after `runs` runs (trial runs
 * included): binding the model and the initial states (start), the stepping (plain
 * sweeps), the result built from the rows with the family's diagnostics (output). */
static void add_timing(cJSON *result, double begun, const sp_time_parts *parts, int runs)
{
    if (result) sp_result_add_timing(result, sp_clock_seconds() - begun, parts, runs, 0);
}

/* Which step the tolerance chose and what finding it cost: the "step_selection" block,
 * and "work" over the trial runs and the run shown. A search that ran out of rounds
 * before an estimate met the tolerance shows its best run as "target_not_reached". */
static void add_selection(const sp_step_selection *sel, const simulate_result *r)
{
    cJSON *result = r->result;
    sp_step_selection_json(sel, r->pb->T, result);
    sp_run_work total = sel->work;
    sp_run_work_add(&total, &r->work);
    cJSON *work = cJSON_CreateObject();
    sp_run_work_json(r->work_kind, &total, sel->steps_done + r->steps_done, work);
    cJSON_ReplaceItemInObjectCaseSensitive(result, "work", work);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(result, "status");
    if (!sel->reached && cJSON_IsString(status) && sp_result_outcome(result) == SP_OUTCOME_DONE) {
        cJSON_ReplaceItemInObjectCaseSensitive(result, "status", cJSON_CreateString("target_not_reached"));
        cJSON_AddStringToObject(result, "message",
                                "the trial runs did not bring the estimated error down to error_tolerance; this is "
                                "the run of the smallest estimate");
    }
}

/* A simulation whose step the error tolerance chooses (sp_step_selection.h): the search,
 * then the run with that fixed step, recorded as usual. */
static cJSON *simulate_to_tolerance(const sp_family *f, const sp_problem *pb, const sp_progress *progress)
{
    const double begun = sp_clock_seconds();
    sp_step_selection sel;
    sp_step_select(f, pb, progress, &sel);
    if (sel.status == SP_ERR_NOMEM) return NULL;
    if (sel.status != SP_OK) {
        cJSON *result = sp_simulate_result_new(pb, sel.status, 0);
        if (result) sp_step_selection_json(&sel, pb->T, result);
        add_timing(result, begun, &sel.parts, sel.n_trials);
        return result;
    }
    sp_problem chosen = *pb;
    chosen.steps = sel.steps;
    if (pb->step_budget > 0) chosen.step_budget = pb->step_budget - sel.work.attempts;
    const sp_run_settings settings = sp_run_settings_of(&chosen, progress);
    simulate_result r = {.f = f, .pb = &chosen, .parts = sel.parts};
    sp_family_run(f, &chosen, &settings, build_result, &r);
    if (!r.result) return NULL;
    add_selection(&sel, &r);
    add_timing(r.result, begun, &r.parts, sel.n_trials + 1);
    return r.result;
}

cJSON *sp_family_simulate(const sp_family *f, const sp_problem *pb, const sp_progress *progress)
{
    if (pb->error_tolerance > 0.0) return simulate_to_tolerance(f, pb, progress);
    const double begun = sp_clock_seconds();
    const sp_run_settings settings = sp_run_settings_of(pb, progress);
    simulate_result r = {.f = f, .pb = pb};
    sp_family_run(f, pb, &settings, build_result, &r); /* no result when out of memory */
    add_timing(r.result, begun, &r.parts, 1);
    return r.result;
}

cJSON *sp_solve_json_curve(const sp_problem *pb, const sp_progress *progress, sp_curve *curves[2])
{
    if (curves) curves[0] = curves[1] = NULL;
    const sp_family *f = sp_family_of(pb->kind);
    if (!f) return NULL;
    cJSON *result = NULL;
    if (pb->task == SP_TASK_PLAN && curves && f->plan_curve)
        result = f->plan_curve(pb, progress, curves);
    else if (pb->task == SP_TASK_PLAN && f->plan)
        result = f->plan(pb, progress);
    else if (pb->task == SP_TASK_SIMULATE && f->simulation)
        result = sp_family_simulate(f, pb, progress);
    if (result) {
        sp_result_refuse_nonfinite(result);
        sp_result_stamp(result);
    }
    return result;
}

cJSON *sp_solve_json(const sp_problem *pb, const sp_progress *progress) { return sp_solve_json_curve(pb, progress, NULL); }
