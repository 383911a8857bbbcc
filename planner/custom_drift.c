/* The drift of an expression model's result (sp_family.h): the same for every family. */
#include "planner/sp_family.h"
#include "planner/sp_result.h"

sp_status sp_custom_drift(const cJSON *result, sp_model_kind kind, const char *kind_name, sp_problem_drift_fn drift,
                          const sp_traj *tr, sp_drift_add_fn add, void *ctx, sp_input_error *err)
{
    sp_problem pb;
    sp_status st = sp_result_input_problem(result, &pb, err);
    if (st != SP_OK) return st;
    st = pb.kind == kind ? drift(&pb, tr, add, ctx, err) : sp_input_fail(err, "input.kind", "is not %s", kind_name);
    sp_problem_free(&pb);
    return st;
}
