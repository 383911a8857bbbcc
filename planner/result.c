/* What every result shares (sp_result.h): its head, how it ended, and the clean-up of
 * numbers that cannot be written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_version.h"
#include "planner/result_view.h"
#include "planner/sp_result.h"
#include "problems/sp_result_file.h"

static const char *const done_statuses[] = {"converged", "ok", "stopval_reached", NULL};
static const char *const stopped_statuses[] = {"stalled", "maxeval_reached", "maxtime_reached", "target_not_reached",
                                               NULL};

static int listed(const char *const *list, const char *s)
{
    for (; *list; ++list)
        if (strcmp(*list, s) == 0) return 1;
    return 0;
}

static const char *status_of(const cJSON *result)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status"));
}

sp_outcome sp_result_outcome(const cJSON *result)
{
    const char *status = status_of(result);
    if (!status) return SP_OUTCOME_FAILED;
    if (listed(done_statuses, status)) return SP_OUTCOME_DONE;
    if (listed(stopped_statuses, status)) return SP_OUTCOME_STOPPED;
    if (strcmp(status, sp_status_name(SP_ERR_INTERRUPTED)) == 0) return SP_OUTCOME_INTERRUPTED;
    return SP_OUTCOME_FAILED;
}

void sp_result_stamp(cJSON *result)
{
    if (!result) return;
    cJSON *version = cJSON_CreateString(sp_version());
    if (version && cJSON_AddItemToObject(result, "symplan_version", version)) {
        /* first, where a reader looks: moved from the end to the front */
        cJSON_DetachItemViaPointer(result, version);
        cJSON_InsertItemInArray(result, 0, version);
    } else {
        cJSON_Delete(version);
    }
}

void sp_result_add_input(cJSON *result, const cJSON *input)
{
    sp_result_take_input(result, result && input ? cJSON_Duplicate(input, 1) : NULL);
}

void sp_result_take_input(cJSON *result, cJSON *input)
{
    if (!result || !cJSON_AddItemToObject(result, "input", input)) cJSON_Delete(input);
}

sp_status sp_result_input_problem(const cJSON *result, sp_problem *pb, sp_input_error *err)
{
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(result, "input");
    if (!cJSON_IsObject(input))
        input = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "case"), "problem");
    if (!cJSON_IsObject(input)) return sp_input_fail(err, "input", "missing: the result does not carry its problem");
    char *text = cJSON_PrintUnformatted(input);
    if (!text) return sp_input_fail(err, "input", "out of memory");
    sp_input_error inner;
    sp_status st = sp_problem_parse(text, strlen(text), pb, &inner);
    free(text);
    if (st != SP_OK) return sp_input_fail(err, "input", "the problem does not read: %s: %s", inner.path, inner.message);
    return SP_OK;
}

int sp_result_is_custom(const char *model) { return model && strcmp(model, "custom") == 0; }

/* The message of a status named in a result: the optimiser's stops, else the status
 * code's own message. */
static const char *status_message(const char *status)
{
    static const struct {
        const char *name, *message;
    } stops[] = {
        {"stalled", "the optimiser stopped on a tolerance where the gradient is not small"},
        {"maxeval_reached", "the solver used its limit (optimizer.maxeval for NLopt, max_iterations for Newton) before "
                            "converging"},
        {"maxtime_reached", "the run used its time limit (optimizer.maxtime, or the command's --max-seconds) before "
                            "it finished"},
        {"target_not_reached", "no start reached the target within the tolerance"},
        {"interrupted", "stopped on request; the result holds what was computed until then"},
    };
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; ++i)
        if (strcmp(stops[i].name, status) == 0) return stops[i].message;
    for (int c = 0; strcmp(sp_status_name((sp_status)c), "unknown") != 0; ++c)
        if (strcmp(sp_status_name((sp_status)c), status) == 0) return sp_status_message((sp_status)c);
    return "the task failed";
}

cJSON *sp_simulate_result_new(const sp_problem *pb, sp_status status, int steps_done)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "task", "simulate");
    cJSON_AddStringToObject(root, "model", pb->model);
    cJSON_AddStringToObject(root, "status", sp_status_name(status));
    if (status != SP_OK) {
        cJSON_AddStringToObject(root, "message", sp_status_message(status));
        cJSON_AddNumberToObject(root, status == SP_ERR_INTERRUPTED ? "interrupted_at_step" : "failed_at_step",
                                steps_done);
    }
    cJSON_AddNumberToObject(root, "steps", steps_done);
    return root;
}

void sp_result_explain(const cJSON *result, char *out, size_t size)
{
    const char *status = status_of(result);
    if (!status) {
        snprintf(out, size, "the result has no status");
        return;
    }
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "message"));
    if (!message || strcmp(status, sp_status_name(SP_ERR_INTERRUPTED)) == 0) message = status_message(status);
    char where[96] = "";
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(result, "failed_at_step");
    if (!cJSON_IsNumber(step)) step = cJSON_GetObjectItemCaseSensitive(result, "interrupted_at_step");
    if (cJSON_IsNumber(step)) snprintf(where, sizeof where, " at step %.0f", step->valuedouble);
    if (strcmp(status, sp_status_name(SP_ERR_INTERRUPTED)) == 0) {
        snprintf(out, size, "%s: stopped on request%s; the result holds what was computed until then", status, where);
        return;
    }
    const char *nlopt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "optimizer_result"));
    char detail[96] = "";
    if (strcmp(status, "optimizer_failed") == 0 && nlopt) snprintf(detail, sizeof detail, " (NLopt: %s)", nlopt);
    snprintf(out, size, "%s: %s%s%s", status, message, where, detail);
}

void sp_result_refuse_nonfinite(cJSON *result)
{
    char first[160] = "";
    int count = sp_json_nullify_nonfinite(result, first, sizeof first);
    if (count == 0) return;
    const char *status = status_of(result);
    sp_outcome outcome = sp_result_outcome(result);
    int failed = status && (outcome == SP_OUTCOME_FAILED || outcome == SP_OUTCOME_INTERRUPTED);
    char message[256];
    snprintf(message, sizeof message, "%d non-finite number%s (the first at %s) written as null", count,
             count == 1 ? "" : "s", first);
    if (!failed) { /* in place, so the members keep their order */
        if (status)
            cJSON_ReplaceItemInObjectCaseSensitive(result, "status",
                                                   cJSON_CreateString(sp_status_name(SP_ERR_NONFINITE)));
        else
            cJSON_AddStringToObject(result, "status", sp_status_name(SP_ERR_NONFINITE));
        if (cJSON_GetObjectItemCaseSensitive(result, "message"))
            cJSON_ReplaceItemInObjectCaseSensitive(result, "message", cJSON_CreateString(message));
        else
            cJSON_AddStringToObject(result, "message", message);
    }
    cJSON_AddNumberToObject(result, "non_finite_values", count);
    cJSON_AddStringToObject(result, "non_finite_at", first);
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

void sp_result_add_timing(cJSON *result, double solve_seconds, const sp_time_parts *p, double plain_sweeps,
                          double derivative_sweeps)
{
    const struct {
        const char *name;
        double seconds;
    } parts[] = {{"start_seconds", p->start},
                 {"plain_sweep_seconds", p->plain_sweeps},
                 {"derivative_sweep_seconds", p->derivative_sweeps},
                 {"linear_algebra_seconds", p->linear_algebra},
                 {"optimizer_seconds", p->optimizer},
                 {"output_seconds", p->output}};
    cJSON *timing = cJSON_AddObjectToObject(result, "timing");
    cJSON_AddNumberToObject(timing, "solve_seconds", solve_seconds);
    double sum = 0.0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k) {
        cJSON_AddNumberToObject(timing, parts[k].name, parts[k].seconds);
        sum += parts[k].seconds;
    }
    cJSON_AddNumberToObject(timing, "other_seconds", solve_seconds - sum);
    cJSON_AddNumberToObject(timing, "plain_sweeps", plain_sweeps);
    cJSON_AddNumberToObject(timing, "derivative_sweeps", derivative_sweeps);
}
