/* Helpers of the plan tests (see plan_support.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "tests/plan_support.h"

double number(const cJSON *o, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItem(o, key)); }
const char *string(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    return s ? s : "";
}

void row3(const cJSON *rows, int k, double *out)
{
    const cJSON *r = cJSON_GetArrayItem(rows, k);
    for (int q = 0; q < 3; ++q) out[q] = cJSON_GetArrayItem(r, q)->valuedouble;
}

cJSON *solve_doc(const char *doc)
{
    sp_problem pb;
    sp_input_error e;
    sp_status st = sp_problem_parse(doc, strlen(doc), &pb, &e);
    cr_assert_eq(st, SP_OK, "problem refused: %s: %s\n%.300s", e.path, e.message, doc);
    cJSON *res = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cr_assert_not_null(res);
    return res;
}

void solve_converged_pair(const char *what, const char *doc_a, const char *doc_b, cJSON **ra, cJSON **rb)
{
    *ra = solve_doc(doc_a), *rb = solve_doc(doc_b);
    cr_assert_str_eq(string(*ra, "status"), "converged", "%s: the first plan", what);
    cr_assert_str_eq(string(*rb, "status"), "converged", "%s: the second plan", what);
}

char *sphere_doc(const kf_schedule *s, const char *metric, const char *extra)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "task", "plan");
    cJSON_AddStringToObject(d, "model", "cubic_spline");
    cJSON_AddStringToObject(d, "space", "sphere");
    if (metric) cJSON_AddStringToObject(d, "metric", metric);
    cJSON_AddItemToObject(d, "y0", cJSON_CreateDoubleArray(s->y0, 3));
    cJSON_AddNumberToObject(d, "T", s->T);
    cJSON_AddNumberToObject(d, "sigma", s->sigma);
    cJSON *targets = cJSON_AddArrayToObject(d, "targets");
    for (int i = 0; i < s->n; ++i) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "t", s->t[i]);
        cJSON_AddItemToObject(t, "y", cJSON_CreateDoubleArray(s->y + 3 * i, 3));
        cJSON_AddItemToArray(targets, t);
    }
    /* the extra members, parsed from `{extra}` (xi0 "free" unless they give one) */
    char buf[1 << 16];
    snprintf(buf, sizeof buf, "{%s}", extra ? extra : "");
    cJSON *more = cJSON_Parse(buf);
    cr_assert_not_null(more, "bad extra members: %s", buf);
    if (!cJSON_GetObjectItem(more, "xi0")) cJSON_AddStringToObject(d, "xi0", "free");
    cJSON *m;
    cJSON_ArrayForEach(m, more) cJSON_AddItemToObject(d, m->string, cJSON_Duplicate(m, 1));
    cJSON_Delete(more);
    char *text = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    return text;
}

char *default_plan_doc(unsigned long seed, int n, const char *output)
{
    kf_schedule s;
    kf_random_schedule(seed, 0, n, 0.7, 1, 0.0, &s);
    s.xi0_free = 1;
    char *doc = kf_schedule_json(&s);
    kf_schedule_free(&s);
    cr_assert_not_null(doc);
    cJSON *d = cJSON_Parse(doc);
    free(doc);
    cJSON_DeleteItemFromObject(d, "steps");
    cJSON_DeleteItemFromObject(d, "scheme");
    if (output) cJSON_AddItemToObject(d, "output", cJSON_Parse(output));
    char *text = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    return text;
}

void knots_of(const kf_schedule *s, double *knots)
{
    knots[0] = 0.0;
    for (int i = 0; i < s->n; ++i) knots[i + 1] = s->t[i];
}

double samples_worst(const cJSON *a, const cJSON *b, const char *name, row_distance_fn apart, const void *ctx)
{
    const cJSON *rows_a = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "samples"), name);
    const cJSON *rows_b = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "samples"), name);
    cr_assert_eq(cJSON_GetArraySize(rows_a), cJSON_GetArraySize(rows_b), "samples.%s differ in length", name);
    double worst = 0.0;
    for (int k = 0; k < cJSON_GetArraySize(rows_a); ++k) worst = fmax(worst, apart(rows_a, rows_b, k, ctx));
    return worst;
}

double worst_miss(const cJSON *res)
{
    double worst = 0.0;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(res, "targets")) worst = fmax(worst, number(t, "distance"));
    return worst;
}

