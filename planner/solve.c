/* The dispatch of a problem to its family's task (sp_solve.h). */
#include "planner/sp_family.h"
#include "planner/sp_solve.h"

cJSON *sp_family_simulate(const sp_family *f, const sp_problem *pb, const sp_progress *progress)
{
    sp_stepper stepper;
    sp_status st;
    void *self = f->simulation->open(pb, progress, &stepper, &st);
    if (!self) return NULL;
    const sp_run_settings settings = sp_run_settings_of(pb, progress);
    sp_run run;
    cJSON *result = NULL;
    if (sp_run_drive(&stepper, &settings, &run) != SP_ERR_NOMEM && (result = sp_run_result(pb, &stepper, &run)))
        f->simulation->report(self, &run, result);
    sp_run_release(&run);
    f->simulation->close(self);
    return result;
}

cJSON *sp_solve_json(const sp_problem *pb, const sp_progress *progress)
{
    const sp_family *f = sp_family_of(pb->kind);
    if (!f) return NULL;
    cJSON *result = NULL;
    if (pb->task == SP_TASK_PLAN && f->plan)
        result = f->plan(pb, progress);
    else if (pb->task == SP_TASK_SIMULATE && f->simulation)
        result = sp_family_simulate(f, pb, progress);
    if (result) sp_result_refuse_nonfinite(result);
    return result;
}
