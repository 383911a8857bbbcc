/* The vakonomic family's table: the simulate task (vak_run.c) and the endpoint plan
 * (endpoint.c), which runs on the same integration. */
#include "planner/vakonomic/sp_vak_run.h"

const sp_family sp_vakonomic_family = {
    .name = "vakonomic",
    .kinds = SP_FAMILY_KIND(SP_KIND_VAKONOMIC),
    .simulation = &sp_vak_simulation,
    .plan = sp_vak_plan_json_progress,
};
