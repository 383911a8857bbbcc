/* One run of a family's simulate task (sp_family.h). */
#include <stdlib.h>

#include "planner/sp_clock.h"
#include "planner/sp_family.h"

sp_status sp_family_run(const sp_family *f, const sp_problem *pb, const sp_run_settings *settings,
                        sp_family_finish_fn finish, void *ctx)
{
    const double begun = sp_clock_seconds();
    const sp_simulation_ops *ops = f->simulation;
    sp_stepper stepper;
    void *self = calloc(1, ops->size);
    if (!self) return SP_ERR_NOMEM;
    sp_status st = SP_ERR_NOMEM;
    sp_run run;
    if (ops->init(self, pb, &stepper) == SP_OK) {
        const double bound = sp_clock_seconds();
        st = sp_run_drive(&stepper, settings, &run);
        run.start_seconds += bound - begun;
        if (st != SP_ERR_NOMEM) finish(ctx, self, &stepper, &run);
        sp_run_release(&run);
    }
    ops->release(self);
    free(self);
    return st;
}
