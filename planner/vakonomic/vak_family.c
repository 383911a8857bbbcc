/* The vakonomic family's table: the simulate task (vak_run.c) and the endpoint plan
 * (endpoint.c), which runs on the same integration. */
#include "planner/vakonomic/sp_vak_run.h"

/* Every vakonomic model's q starts with a position in the plane. */
static int sp_vak_planar(const char *model)
{
    (void)model;
    return 1;
}

const sp_family sp_vakonomic_family = {
    .name = "vakonomic",
    .kinds = SP_KIND_FLAG(SP_KIND_VAKONOMIC),
    .simulation = &sp_vak_simulation,
    .plan = sp_vak_plan_json_progress,
    .drift = sp_vak_drift,
    .planar = sp_vak_planar,
};
