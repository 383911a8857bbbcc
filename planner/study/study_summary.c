/* The summary of a study: one row per case (its values, status, wall time and figures),
 * written as summary.json and summary.csv (sp_study.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/study/sp_study.h"
#include "planner/study/study_internal.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* A pending row: case, file, input hash, values, status. */
static cJSON *pending_row(const sp_study *s, size_t i)
{
    cJSON *row = cJSON_CreateObject();
    if (!row) return NULL;
    char name[64], hash[32];
    sp_study_case_file(i, name, sizeof name);
    sp_study_input_hash(s, i, hash, sizeof hash);
    cJSON_AddNumberToObject(row, "case", (double)i);
    cJSON_AddStringToObject(row, "file", name);
    cJSON_AddStringToObject(row, "input_hash", hash);
    cJSON_AddItemToObject(row, "values", sp_study_case_values(s, i));
    cJSON_AddStringToObject(row, "status", "pending");
    cJSON_AddNullToObject(row, "wall_seconds");
    return row;
}

sp_study_summary *sp_study_summary_new(const sp_study *s)
{
    sp_study_summary *sum = calloc(1, sizeof *sum);
    if (!sum) return NULL;
    sum->study = s;
    sum->rows = cJSON_CreateArray();
    sum->row = calloc(s->n_cases ? s->n_cases : 1, sizeof *sum->row);
    if (!sum->rows || !sum->row) {
        sp_study_summary_free(sum);
        return NULL;
    }
    for (size_t i = 0; i < s->n_cases; ++i) {
        cJSON *row = pending_row(s, i);
        if (!row || !cJSON_AddItemToArray(sum->rows, row)) {
            cJSON_Delete(row);
            sp_study_summary_free(sum);
            return NULL;
        }
        sum->row[i] = row;
    }
    return sum;
}

void sp_study_summary_free(sp_study_summary *sum)
{
    if (!sum) return;
    cJSON_Delete(sum->rows);
    free(sum->row);
    free(sum);
}

/* Resets row i to pending and keeps the counts right; returns the row. */
static cJSON *reset_row(sp_study_summary *sum, size_t i)
{
    cJSON *old = sum->row[i];
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(old, "status"));
    if (status && strcmp(status, "failed") == 0)
        sum->failed--;
    else if (status && strcmp(status, "pending") != 0)
        sum->done--;
    cJSON *row = pending_row(sum->study, i);
    if (!row) return NULL;
    cJSON_ReplaceItemViaPointer(sum->rows, old, row);
    sum->row[i] = row;
    return row;
}

static void set_wall(cJSON *row, double wall_seconds)
{
    cJSON *w = isfinite(wall_seconds) ? cJSON_CreateNumber(wall_seconds) : cJSON_CreateNull();
    if (w) cJSON_ReplaceItemInObjectCaseSensitive(row, "wall_seconds", w);
}

/* A number under `name`, unless `into` has that name already. */
static void add_figure(cJSON *into, const char *name, double x)
{
    if (isfinite(x) && !cJSON_GetObjectItemCaseSensitive(into, name)) cJSON_AddNumberToObject(into, name, x);
}

cJSON *sp_study_result_figures(const cJSON *result)
{
    cJSON *f = cJSON_CreateObject();
    if (!f) return NULL;
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status"));
    cJSON_AddStringToObject(f, "status", status ? status : "unknown");
    const cJSON *m, *obj;
    cJSON_ArrayForEach(m, result) if (cJSON_IsNumber(m)) add_figure(f, m->string, m->valuedouble);
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(result, "diagnostics")) if (cJSON_IsNumber(m))
        add_figure(f, m->string, m->valuedouble);
    cJSON_ArrayForEach(obj, result)
    {
        if (!cJSON_IsObject(obj) || strcmp(obj->string, "diagnostics") == 0 || strcmp(obj->string, "case") == 0)
            continue;
        cJSON_ArrayForEach(m, obj) if (cJSON_IsNumber(m))
        {
            char name[256];
            snprintf(name, sizeof name, "%s.%s", obj->string, m->string);
            add_figure(f, name, m->valuedouble);
        }
    }
    return f;
}

sp_status sp_study_summary_set_figures(sp_study_summary *sum, size_t i, const cJSON *figures, double wall_seconds)
{
    if (i >= sum->study->n_cases) return SP_ERR_INVALID;
    cJSON *row = reset_row(sum, i);
    if (!row) return SP_ERR_NOMEM;
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(figures, "status"));
    cJSON_ReplaceItemInObjectCaseSensitive(row, "status", cJSON_CreateString(status ? status : "unknown"));
    set_wall(row, wall_seconds);
    /* the row's own members (case, file, values, status, …) keep their place */
    const cJSON *m;
    cJSON_ArrayForEach(m, figures) if (cJSON_IsNumber(m)) add_figure(row, m->string, m->valuedouble);
    sum->done++;
    return SP_OK;
}

sp_status sp_study_summary_set_result(sp_study_summary *sum, size_t i, const cJSON *result, double wall_seconds)
{
    cJSON *figures = sp_study_result_figures(result);
    if (!figures) return SP_ERR_NOMEM;
    sp_status st = sp_study_summary_set_figures(sum, i, figures, wall_seconds);
    cJSON_Delete(figures);
    return st;
}

sp_status sp_study_summary_set_failed(sp_study_summary *sum, size_t i, const char *why, double wall_seconds)
{
    if (i >= sum->study->n_cases) return SP_ERR_INVALID;
    cJSON *row = reset_row(sum, i);
    if (!row) return SP_ERR_NOMEM;
    cJSON_ReplaceItemInObjectCaseSensitive(row, "status", cJSON_CreateString("failed"));
    set_wall(row, wall_seconds);
    cJSON_AddStringToObject(row, "error", why ? why : "failed");
    sum->failed++;
    return SP_OK;
}

void sp_study_summary_reuse_wall_times(sp_study_summary *sum, const char *dir)
{
    char path[4096];
    sp_study_join(path, sizeof path, dir, "summary.json");
    cJSON *old = NULL;
    sp_input_error in;
    if (access(path, F_OK) != 0 || sp_json_read_document(path, STUDY_FILE_MAX_BYTES, &old, &in) != SP_OK) return;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(old, "rows"))
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "case");
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "wall_seconds");
        if (!cJSON_IsNumber(c) || !cJSON_IsNumber(w) || c->valuedouble < 0 ||
            c->valuedouble >= (double)sum->study->n_cases)
            continue;
        cJSON *row = sum->row[(size_t)c->valuedouble];
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "status"));
        const char *h1 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "input_hash"));
        const char *h2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "input_hash"));
        if (status && strcmp(status, "pending") != 0 && strcmp(status, "failed") != 0 && h1 && h2 &&
            strcmp(h1, h2) == 0 && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "wall_seconds")))
            set_wall(row, w->valuedouble);
    }
    cJSON_Delete(old);
}

size_t sp_study_summary_done(const sp_study_summary *sum) { return sum->done; }
size_t sp_study_summary_failed(const sp_study_summary *sum) { return sum->failed; }

/* A growing text buffer for the CSV. */
typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1) cap *= 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->s = grown, t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void puts_csv(text *t, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        put(t, s, strlen(s));
        return;
    }
    put(t, "\"", 1);
    for (; *s; ++s) put(t, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    put(t, "\"", 1);
}

/* A cell: numbers as sp_json_print prints them (they read back bitwise equal), strings
 * as they are, anything else as compact JSON; nothing for a missing or null value. */
static void put_cell(text *t, const cJSON *v)
{
    if (!v || cJSON_IsNull(v)) return;
    if (cJSON_IsString(v)) {
        puts_csv(t, v->valuestring);
        return;
    }
    char *s = sp_json_print(v, 0, NULL);
    if (!s) {
        t->failed = 1;
        return;
    }
    puts_csv(t, s);
    free(s);
}

static int has_string(const cJSON *arr, const char *s)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) if (strcmp(x->valuestring, s) == 0) return 1;
    return 0;
}

/* The columns after status and wall_seconds: every figure name in order of first
 * appearance, without the parameters' names and the row's own members. */
static cJSON *figure_columns(const sp_study_summary *sum)
{
    static const char *const own[] = {"case", "file", "input_hash", "values", "status", "error", "wall_seconds", NULL};
    cJSON *cols = cJSON_CreateArray();
    const cJSON *row, *m;
    cJSON_ArrayForEach(row, sum->rows) cJSON_ArrayForEach(m, row)
    {
        int skip = has_string(sum->study->parameters, m->string) || has_string(cols, m->string);
        for (int k = 0; own[k] && !skip; ++k) skip = strcmp(m->string, own[k]) == 0;
        if (!skip) cJSON_AddItemToArray(cols, cJSON_CreateString(m->string));
    }
    return cols;
}

static char *summary_csv(const sp_study_summary *sum, size_t *length)
{
    text t = {0};
    cJSON *cols = figure_columns(sum);
    if (!cols) return NULL;
    const cJSON *p, *c, *row;
    put(&t, "case,file", 9);
    cJSON_ArrayForEach(p, sum->study->parameters)
    {
        put(&t, ",", 1);
        puts_csv(&t, p->valuestring);
    }
    put(&t, ",status,wall_seconds", 20);
    cJSON_ArrayForEach(c, cols)
    {
        put(&t, ",", 1);
        puts_csv(&t, c->valuestring);
    }
    put(&t, "\n", 1);
    cJSON_ArrayForEach(row, sum->rows)
    {
        put_cell(&t, cJSON_GetObjectItemCaseSensitive(row, "case"));
        put(&t, ",", 1);
        put_cell(&t, cJSON_GetObjectItemCaseSensitive(row, "file"));
        const cJSON *values = cJSON_GetObjectItemCaseSensitive(row, "values");
        cJSON_ArrayForEach(p, sum->study->parameters)
        {
            put(&t, ",", 1);
            put_cell(&t, cJSON_GetObjectItemCaseSensitive(values, p->valuestring));
        }
        put(&t, ",", 1);
        put_cell(&t, cJSON_GetObjectItemCaseSensitive(row, "status"));
        put(&t, ",", 1);
        put_cell(&t, cJSON_GetObjectItemCaseSensitive(row, "wall_seconds"));
        cJSON_ArrayForEach(c, cols)
        {
            put(&t, ",", 1);
            put_cell(&t, cJSON_GetObjectItemCaseSensitive(row, c->valuestring));
        }
        put(&t, "\n", 1);
    }
    cJSON_Delete(cols);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    *length = t.len;
    return t.s;
}

sp_status sp_study_summary_write(const sp_study_summary *sum, const char *dir, char *why, size_t why_size)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc) goto nomem;
    cJSON_AddStringToObject(doc, "study", sum->study->name);
    cJSON_AddNumberToObject(doc, "cases", (double)sum->study->n_cases);
    cJSON_AddNumberToObject(doc, "done", (double)sum->done);
    cJSON_AddNumberToObject(doc, "failed", (double)sum->failed);
    cJSON_AddItemReferenceToObject(doc, "parameters", sum->study->parameters);
    cJSON_AddItemReferenceToObject(doc, "rows", sum->rows);
    char path[4096];
    sp_output out;
    sp_study_join(path, sizeof path, dir, "summary.json");
    sp_status st = sp_output_open(&out, path, why, why_size);
    if (st == SP_OK) st = sp_output_commit(&out, doc, why, why_size);
    cJSON_Delete(doc);
    if (st != SP_OK) return st;

    size_t length = 0;
    char *csv = summary_csv(sum, &length);
    if (!csv) goto nomem;
    sp_study_join(path, sizeof path, dir, "summary.csv");
    st = sp_output_open(&out, path, why, why_size);
    if (st == SP_OK) st = sp_output_commit_text(&out, csv, length, why, why_size);
    free(csv);
    return st;
nomem:
    snprintf(why, why_size, "out of memory while writing the summary");
    return SP_ERR_NOMEM;
}

