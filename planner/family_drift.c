/* The model of a result bound to its parameters, for every family's drift (sp_family.h). */
#include <stdio.h>

#include "planner/sp_family.h"
#include "planner/sp_result.h"

/* The name of the family that reads problems of `kind` ("holonomic"). */
static const char *family_name(sp_model_kind kind)
{
    sp_model_info m;
    for (size_t i = 0; sp_model_info_at(i, &m); ++i)
        if (m.kinds & SP_KIND_FLAG(kind)) return m.family;
    return "";
}

sp_status sp_family_drift(const cJSON *result, const char *model, sp_model_kind custom_kind, sp_model_bind_fn bind,
                          sp_problem_drift_fn drift, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err)
{
    sp_problem pb;
    sp_status st;
    if (sp_result_is_custom(model)) { /* an expression model: rebuilt from the problem it solved */
        if ((st = sp_result_input_problem(result, &pb, err)) != SP_OK) return st;
        if (pb.kind != custom_kind) st = sp_input_fail(err, "input.kind", "is not %s", family_name(custom_kind));
    } else {
        sp_problem_defaults(&pb);
        snprintf(pb.model, sizeof pb.model, "%s", model ? model : "(none)");
        st = bind(cJSON_GetObjectItem(result, "settings"), &pb, err);
    }
    if (st == SP_OK) st = drift(&pb, tr, add, ctx, err);
    sp_problem_free(&pb);
    return st;
}
