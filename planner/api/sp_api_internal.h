/* What the public problem and result objects (sp_api.h) share inside the library. */
#ifndef SP_API_INTERNAL_H
#define SP_API_INTERNAL_H

#include <cjson/cJSON.h>

#include "planner/api/sp_api.h"

/* A problem: its document, as a problem file holds it (owned). */
struct symplan_problem {
    cJSON *doc;
};

/* A result over a result tree and the plan's curve (may be NULL), both taken: freed on
 * failure (SP_ERR_NOMEM, *out NULL) too. */
sp_status sp_api_result_new(cJSON *tree, sp_plan_curve *curve, symplan_result **out);

#endif
