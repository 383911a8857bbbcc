/* The dispatch of a problem to its task: cubic-spline plans (NLopt over the initial
 * momenta with the discrete adjoint), cubic-spline simulations, and the vakonomic
 * models' simulations and endpoint plans. */
#include <string.h>

#include "sp_plan.h"
#include "sp_solve.h"
#include "sp_vak_run.h"

cJSON *sp_solve_json(const sp_problem *pb, const sp_progress *progress)
{
    if (pb->kind == SP_KIND_VAKONOMIC)
        return pb->task == SP_TASK_PLAN ? sp_vak_plan_json_progress(pb, progress) : sp_vak_simulate_json(pb);
    if (pb->task == SP_TASK_SIMULATE) return sp_simulate_json(pb);
    sp_plan *plan = sp_plan_new(pb);
    if (!plan) return NULL;
    sp_plan_set_progress(plan, progress);
    sp_plan_result res;
    sp_plan_solve(plan, &res); /* every outcome, failures included, lands in res */
    cJSON *result = sp_plan_result_json(plan, &res);
    sp_plan_free(plan);
    return result;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void detach_from(cJSON *node, cJSON *into)
{
    cJSON *child = node->child;
    while (child) {
        cJSON *next = child->next;
        if (child->string && cJSON_IsNumber(child) && ends_with(child->string, "_seconds")) {
            cJSON_DetachItemViaPointer(node, child);
            if (cJSON_GetObjectItemCaseSensitive(into, child->string))
                cJSON_Delete(child);
            else
                cJSON_AddItemToObject(into, child->string, child);
        } else if (cJSON_IsObject(child) || cJSON_IsArray(child)) {
            detach_from(child, into);
        }
        child = next;
    }
}

cJSON *sp_result_detach_wall_clock(cJSON *result)
{
    cJSON *into = cJSON_CreateObject();
    if (into && result) detach_from(result, into);
    return into;
}
