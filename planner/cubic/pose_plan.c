/* Pose plans as an orientation plan and a position plan (see sp_pose_plan.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_pose_plan.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

sp_status sp_pose_split(const sp_problem *pb, sp_problem parts[2])
{
    const size_t m = pb->cubic.n_targets;
    for (int k = 0; k < 2; ++k) {
        parts[k] = *pb;
        parts[k].plan.pose = 0;
        parts[k].cubic.targets = malloc((m ? m : 1) * sizeof *parts[k].cubic.targets);
    }
    if (!parts[0].cubic.targets || !parts[1].cubic.targets) {
        sp_pose_parts_free(parts);
        return SP_ERR_NOMEM;
    }
    sp_problem *rot = &parts[0], *pos = &parts[1];
    memcpy(rot->cubic.targets, pb->cubic.targets, m * sizeof *pb->cubic.targets);
    for (size_t i = 0; i < m; ++i) {
        pos->cubic.targets[i] = pb->cubic.targets[i];
        memset(pos->cubic.targets[i].R, 0, sizeof pos->cubic.targets[i].R);
        sp_vec_copy(3, pb->cubic.targets[i].x, pos->cubic.targets[i].R);
    }
    /* ξ = (ω, v): the first three components go to the orientation, the rest to the position */
    pos->cubic.group = sp_group_rn(3);
    memset(pos->g0, 0, sizeof pos->g0);
    sp_vec_copy(3, pb->plan.x0, pos->g0);
    memset(rot->xi0 + 3, 0, 3 * sizeof *rot->xi0);
    memset(rot->plan.xiT + 3, 0, 3 * sizeof *rot->plan.xiT);
    memset(pos->xi0, 0, sizeof pos->xi0);
    memset(pos->plan.xiT, 0, sizeof pos->plan.xiT);
    sp_vec_copy(3, pb->xi0 + 3, pos->xi0);
    sp_vec_copy(3, pb->plan.xiT + 3, pos->plan.xiT);
    pos->plan.quaternion_output = 0;
    return SP_OK;
}

void sp_pose_parts_free(sp_problem parts[2])
{
    for (int k = 0; k < 2; ++k) {
        free(parts[k].cubic.targets);
        parts[k].cubic.targets = NULL;
    }
}

static double number(const cJSON *o, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItem(o, key)); }

/* o[key] = a[key] + b[key], where both are numbers. */
static void add_numbers(cJSON *o, const cJSON *b, const char *key)
{
    cJSON *x = cJSON_GetObjectItem(o, key);
    const cJSON *y = cJSON_GetObjectItem(b, key);
    if (cJSON_IsNumber(x) && cJSON_IsNumber(y)) cJSON_SetNumberValue(x, x->valuedouble + y->valuedouble);
}

static void max_numbers(cJSON *o, const cJSON *b, const char *key)
{
    cJSON *x = cJSON_GetObjectItem(o, key);
    const cJSON *y = cJSON_GetObjectItem(b, key);
    if (cJSON_IsNumber(x) && cJSON_IsNumber(y)) cJSON_SetNumberValue(x, fmax(x->valuedouble, y->valuedouble));
}

/* Appends the numbers of the array b to the array a. */
static void append_numbers(cJSON *a, const cJSON *b)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, b) cJSON_AddItemToArray(a, cJSON_CreateNumber(v->valuedouble));
}

/* Row by row: a[k] ← a[k] ++ b[k] for the row arrays a = o[key], b = p[key]. */
static void append_rows(cJSON *o, const cJSON *p, const char *key)
{
    cJSON *a = cJSON_GetObjectItem(o, key), *ra;
    const cJSON *rb = cJSON_GetArrayItem(cJSON_GetObjectItem(p, key), 0);
    cJSON_ArrayForEach(ra, a)
    {
        append_numbers(ra, rb);
        rb = rb ? rb->next : NULL;
    }
}

/* The stacked momenta (ν_rot, ν_pos, p_rot, p_pos) of two (ν, p) arrays of 3 + 3. */
static void stack_momenta(cJSON *o, const cJSON *p, const char *key)
{
    const cJSON *a = cJSON_GetObjectItem(o, key), *b = cJSON_GetObjectItem(p, key);
    if (cJSON_GetArraySize(a) != 6 || cJSON_GetArraySize(b) != 6) return;
    double v[12];
    for (int k = 0; k < 3; ++k) {
        v[k] = cJSON_GetArrayItem(a, k)->valuedouble;
        v[3 + k] = cJSON_GetArrayItem(b, k)->valuedouble;
        v[6 + k] = cJSON_GetArrayItem(a, 3 + k)->valuedouble;
        v[9 + k] = cJSON_GetArrayItem(b, 3 + k)->valuedouble;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    sp_json_add_vector(o, key, 12, v);
}

static const char *combined_status(const char *a, const char *b)
{
    if (!a) return b ? b : "failed";
    if (!b) return a;
    return strcmp(a, "converged") != 0 ? a : b;
}

cJSON *sp_pose_merge(cJSON *rot, cJSON *pos)
{
    if (!rot || !pos) {
        cJSON_Delete(rot);
        cJSON_Delete(pos);
        return NULL;
    }
    cJSON *o = rot;
    /* the two parts' own accounts: status, cost, starts */
    cJSON *parts = cJSON_CreateObject();
    cJSON *part[2] = {cJSON_AddObjectToObject(parts, "orientation"), cJSON_AddObjectToObject(parts, "position")};
    cJSON *src[2] = {rot, pos};
    for (int k = 0; k < 2; ++k) {
        cJSON_AddItemToObject(part[k], "status", cJSON_Duplicate(cJSON_GetObjectItem(src[k], "status"), 1));
        if (cJSON_IsNumber(cJSON_GetObjectItem(src[k], "cost")))
            cJSON_AddNumberToObject(part[k], "cost", number(src[k], "cost"));
        cJSON *starts = cJSON_DetachItemFromObjectCaseSensitive(src[k], "starts");
        if (starts) cJSON_AddItemToObject(part[k], "starts", starts);
    }
    cJSON *st = cJSON_GetObjectItem(o, "status");
    const char *status =
        combined_status(cJSON_GetStringValue(st), cJSON_GetStringValue(cJSON_GetObjectItem(pos, "status")));
    if (st && status != st->valuestring) cJSON_SetValuestring(st, status); /* never onto itself */
    static const char *const sums[] = {"cost",           "running_cost", "target_cost", "iterations",
                                       "factorizations", "sweeps",       "evaluations"};
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; ++k) add_numbers(o, pos, sums[k]);
    const cJSON *pwork = cJSON_GetObjectItem(pos, "work"), *w;
    cJSON_ArrayForEach(w, pwork) add_numbers(cJSON_GetObjectItem(o, "work"), pwork, w->string);
    max_numbers(o, pos, "optimality_residual");
    stack_momenta(o, pos, "initial_momenta");
    append_numbers(cJSON_GetObjectItem(o, "initial_velocity"), cJSON_GetObjectItem(pos, "initial_velocity"));
    append_numbers(cJSON_GetObjectItem(o, "final_velocity"), cJSON_GetObjectItem(pos, "final_velocity"));
    cJSON *term = cJSON_GetObjectItem(o, "terminal_residual");
    const cJSON *pterm = cJSON_GetObjectItem(pos, "terminal_residual");
    if (term && pterm) {
        append_numbers(cJSON_GetObjectItem(term, "nu"), cJSON_GetObjectItem(pterm, "nu"));
        append_numbers(cJSON_GetObjectItem(term, "p"), cJSON_GetObjectItem(pterm, "p"));
        cJSON_SetNumberValue(cJSON_GetObjectItem(term, "norm"), hypot(number(term, "norm"), number(pterm, "norm")));
    }
    /* samples: the orientation's rows and the position's (x, velocity, acceleration) */
    cJSON *samples = cJSON_GetObjectItem(o, "samples"), *psamples = cJSON_GetObjectItem(pos, "samples");
    if (samples && psamples) {
        static const char *const moved[] = {"x", "velocity", "acceleration"};
        for (size_t k = 0; k < 3; ++k) {
            cJSON *rows = cJSON_DetachItemFromObjectCaseSensitive(psamples, moved[k]);
            if (rows) cJSON_AddItemToObject(samples, moved[k], rows);
        }
    }
    cJSON *extremes = cJSON_GetObjectItem(o, "extremes"), *pextremes = cJSON_GetObjectItem(pos, "extremes");
    if (extremes && pextremes) {
        cJSON *e;
        cJSON_ArrayForEach(e, pextremes) cJSON_AddItemToObject(extremes, e->string, cJSON_Duplicate(e, 1));
    }
    /* keyframes: the orientation's fields, and the position's under position_* */
    cJSON *tg;
    const cJSON *ptg = cJSON_GetArrayItem(cJSON_GetObjectItem(pos, "targets"), 0);
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(o, "targets"))
    {
        if (!ptg) break;
        cJSON_AddItemToObject(tg, "position_target", cJSON_Duplicate(cJSON_GetObjectItem(ptg, "target"), 1));
        cJSON_AddItemToObject(tg, "position_reached", cJSON_Duplicate(cJSON_GetObjectItem(ptg, "reached"), 1));
        cJSON_AddNumberToObject(tg, "position_distance", number(ptg, "distance"));
        ptg = ptg->next;
    }
    cJSON *kick;
    const cJSON *pkick = cJSON_GetArrayItem(cJSON_GetObjectItem(pos, "kicks"), 0);
    cJSON_ArrayForEach(kick, cJSON_GetObjectItem(o, "kicks"))
    {
        if (!pkick) break;
        append_numbers(cJSON_GetObjectItem(kick, "kick"), cJSON_GetObjectItem(pkick, "kick"));
        pkick = pkick->next;
    }
    /* trajectory: orientation rows as asked, the position as x, velocities and momenta stacked */
    cJSON *tr = cJSON_GetObjectItem(o, "trajectory");
    cJSON *ptr = cJSON_GetObjectItem(pos, "trajectory");
    if (tr && ptr) {
        cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(ptr, "q");
        if (x) cJSON_AddItemToObject(tr, "x", x);
        append_rows(tr, ptr, "xi");
        append_rows(tr, ptr, "nu");
        append_rows(tr, ptr, "p");
    }
    max_numbers(cJSON_GetObjectItem(o, "diagnostics"), cJSON_GetObjectItem(pos, "diagnostics"), "momentum_map_drift");
    cJSON *timing = cJSON_GetObjectItem(o, "timing");
    const cJSON *ptiming = cJSON_GetObjectItem(pos, "timing");
    const cJSON *t;
    cJSON_ArrayForEach(t, ptiming) add_numbers(timing, ptiming, t->string);
    cJSON_AddItemToObject(o, "parts", parts);
    cJSON *settings = cJSON_GetObjectItem(o, "settings");
    if (settings) cJSON_AddStringToObject(settings, "group", "SO3xR3");
    cJSON_Delete(pos);
    return o;
}
