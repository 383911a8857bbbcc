/* The dispatch of a problem to its family's task (sp_solve.h). */
#include <stdlib.h>

#include "planner/sp_family.h"
#include "planner/sp_solve.h"

cJSON *sp_family_simulate(const sp_family *f, const sp_problem *pb, const sp_progress *progress)
{
    const sp_simulation_ops *ops = f->simulation;
    sp_stepper stepper;
    void *self = calloc(1, ops->size);
    if (!self) return NULL;
    if (ops->init(self, pb, &stepper) != SP_OK) {
        ops->release(self);
        free(self);
        return NULL;
    }
    const sp_run_settings settings = sp_run_settings_of(pb, progress);
    sp_run run;
    cJSON *result = NULL;
    if (sp_run_drive(&stepper, &settings, &run) != SP_ERR_NOMEM && (result = sp_run_result(pb, &stepper, &run)))
        ops->report(self, &run, result);
    sp_run_release(&run);
    ops->release(self);
    free(self);
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
    if (result) {
        sp_result_refuse_nonfinite(result);
        sp_result_stamp(result);
    }
    return result;
}
