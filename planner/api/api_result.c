/* The public result object (sp_api.h): the result tree the solver built, read through
 * typed getters. Arrays are converted to rows of doubles when first asked for and kept
 * until the result is freed, so a getter's pointer stays valid and a second call costs
 * nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/api/sp_api.h"
#include "planner/api/sp_api_internal.h"
#include "planner/sp_result.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* An array already converted: its path, its shape and its numbers. */
typedef struct converted {
    struct converted *next;
    char *path;
    size_t rows, cols;
    double *data;
} converted;

struct symplan_result {
    cJSON *tree;
    sp_plan_curve *curve;
    symplan_status status;
    char message[512];
    converted *arrays;
};

static const char *const status_names[] = {
#define SYMPLAN_STATUS_NAME(code, name) name,
    SYMPLAN_STATUS_LIST(SYMPLAN_STATUS_NAME)
#undef SYMPLAN_STATUS_NAME
};

const char *symplan_status_name(symplan_status status)
{
    return (unsigned)status < SYMPLAN_STATUS_COUNT ? status_names[status] : NULL;
}

sp_status symplan_status_from_name(const char *name, symplan_status *status)
{
    for (int i = 0; name && status && i < SYMPLAN_STATUS_COUNT; ++i)
        if (strcmp(name, status_names[i]) == 0) {
            *status = (symplan_status)i;
            return SP_OK;
        }
    return SP_ERR_INVALID;
}

int symplan_status_done(symplan_status status) { return (unsigned)status <= SYMPLAN_STOPVAL_REACHED; }

sp_status sp_api_result_new(cJSON *tree, sp_plan_curve *curve, symplan_result **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        cJSON_Delete(tree);
        sp_plan_curve_free(curve);
        return SP_ERR_NOMEM;
    }
    symplan_result *r = *out;
    r->tree = tree;
    r->curve = curve;
    /* every status the library writes has its name in the list; anything else would be a
     * broken tree, reported as the failure it is */
    if (symplan_status_from_name(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tree, "status")), &r->status) !=
        SP_OK)
        r->status = SYMPLAN_INVALID_ARGUMENT;
    if (sp_result_outcome(tree) != SP_OUTCOME_DONE) sp_result_explain(tree, r->message, sizeof r->message);
    return SP_OK;
}

void symplan_result_free(symplan_result *r)
{
    if (!r) return;
    for (converted *a = r->arrays, *next; a; a = next) {
        next = a->next;
        free(a->path);
        free(a->data);
        free(a);
    }
    sp_plan_curve_free(r->curve);
    cJSON_Delete(r->tree);
    free(r);
}

symplan_status symplan_result_status(const symplan_result *r) { return r ? r->status : SYMPLAN_INVALID_ARGUMENT; }
const char *symplan_result_message(const symplan_result *r) { return r ? r->message : ""; }

/* The node at a dotted path: object members by name, an array's element by "[i]"
 * ("targets[1].distance"). NULL when there is none. */
static const cJSON *find(const cJSON *node, const char *path)
{
    if (!path || !*path) return NULL;
    for (const char *p = path; node && *p;) {
        const size_t len = strcspn(p, ".[");
        if (len > 0) {
            const cJSON *child = cJSON_IsObject(node) ? node->child : NULL;
            while (child && !(child->string && strlen(child->string) == len && strncmp(child->string, p, len) == 0))
                child = child->next;
            node = child;
            p += len;
        } else if (*p == '[') {
            char *end;
            const long i = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || i < 0 || !cJSON_IsArray(node) || sp_json_is_packed(node)) return NULL;
            node = cJSON_GetArrayItem(node, (int)i);
            p = end + 1;
        } else {
            return NULL; /* an empty name */
        }
        if (*p == '.') {
            if (!*++p) return NULL;
        } else if (*p && *p != '[') {
            return NULL;
        }
    }
    return node;
}

double symplan_result_cost(const symplan_result *r)
{
    double cost;
    return symplan_result_number(r, "cost", &cost) == SP_OK ? cost : NAN;
}

sp_status symplan_result_number(const symplan_result *r, const char *path, double *value)
{
    const cJSON *node = r && value ? find(r->tree, path) : NULL;
    if (!cJSON_IsNumber(node)) return SP_ERR_INVALID;
    *value = node->valuedouble;
    return SP_OK;
}

/* A number of an array; null (a value that was not finite) reads as NaN. */
static int element_number(const cJSON *e, double *x)
{
    if (cJSON_IsNumber(e)) *x = e->valuedouble;
    else if (cJSON_IsNull(e)) *x = NAN;
    else return 0;
    return 1;
}

/* The rows of an array of numbers or of arrays of numbers, converted into *a. */
static sp_status convert(const cJSON *array, converted *a)
{
    const int n = sp_json_array_size(array);
    sp_json_items items;
    sp_json_items_begin(&items, array);
    sp_status st = SP_OK;
    for (int i = 0; i < n && st == SP_OK; ++i) {
        const cJSON *e = sp_json_items_next(&items);
        if (!e) {
            st = items.out_of_memory ? SP_ERR_NOMEM : SP_ERR_INVALID;
            break;
        }
        const size_t cols = cJSON_IsArray(e) ? (size_t)cJSON_GetArraySize(e) : 1;
        if (i == 0) {
            a->rows = (size_t)n, a->cols = cols;
            a->data = malloc((a->rows * cols + 1) * sizeof *a->data);
            if (!a->data) st = SP_ERR_NOMEM;
        }
        if (st != SP_OK) break;
        if (cols != a->cols || (cJSON_IsArray(e) && cols == 0)) {
            st = SP_ERR_INVALID; /* rows of different lengths */
            break;
        }
        double *row = a->data + (size_t)i * cols;
        if (!cJSON_IsArray(e)) {
            if (!element_number(e, row)) st = SP_ERR_INVALID;
            continue;
        }
        size_t k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, e) if (!element_number(x, row + k++)) st = SP_ERR_INVALID;
    }
    sp_json_items_end(&items);
    if (st == SP_OK && n == 0 && !(a->data = malloc(sizeof *a->data))) st = SP_ERR_NOMEM;
    return st;
}

sp_status symplan_result_array(symplan_result *r, const char *path, size_t *rows, size_t *cols, const double **data)
{
    if (!r || !path || !rows || !cols || !data) return SP_ERR_INVALID;
    for (const converted *a = r->arrays; a; a = a->next)
        if (strcmp(a->path, path) == 0) {
            *rows = a->rows, *cols = a->cols, *data = a->data;
            return SP_OK;
        }
    const cJSON *array = find(r->tree, path);
    if (!sp_json_is_array(array)) return SP_ERR_INVALID;
    converted *a = calloc(1, sizeof *a);
    sp_status st = a && (a->path = malloc(strlen(path) + 1)) ? convert(array, a) : SP_ERR_NOMEM;
    if (st != SP_OK) {
        if (a) free(a->path), free(a->data);
        free(a);
        return st;
    }
    memcpy(a->path, path, strlen(path) + 1);
    a->next = r->arrays;
    r->arrays = a;
    *rows = a->rows, *cols = a->cols, *data = a->data;
    return SP_OK;
}

/* The array member `name` of the block `block` ("trajectory", "samples"). */
static sp_status block_array(symplan_result *r, const char *block, const char *name, size_t *rows, size_t *cols,
                             const double **data)
{
    char path[128];
    if (!name || !*name || strchr(name, '.') || strchr(name, '[') ||
        (size_t)snprintf(path, sizeof path, "%s.%s", block, name) >= sizeof path)
        return SP_ERR_INVALID;
    return symplan_result_array(r, path, rows, cols, data);
}

sp_status symplan_result_trajectory(symplan_result *r, const char *name, size_t *rows, size_t *cols,
                                    const double **data)
{
    return block_array(r, "trajectory", name, rows, cols, data);
}

sp_status symplan_result_samples(symplan_result *r, const char *name, size_t *rows, size_t *cols, const double **data)
{
    return block_array(r, "samples", name, rows, cols, data);
}

char *symplan_result_json(const symplan_result *r, int formatted)
{
    return r ? sp_json_print(r->tree, formatted, NULL) : NULL;
}

sp_status symplan_result_write(const symplan_result *r, const char *path, char *error, size_t error_size)
{
    char why[512] = "";
    sp_output out;
    sp_status st = !r || !path || !*path ? SP_ERR_INVALID : sp_output_open(&out, path, why, sizeof why);
    if (st == SP_OK) st = sp_output_commit(&out, r->tree, why, sizeof why);
    if (st == SP_ERR_INVALID) snprintf(why, sizeof why, "no result or no path");
    if (error && error_size > 0) snprintf(error, error_size, "%s", st == SP_OK ? "" : why);
    return st;
}

sp_plan_curve *symplan_result_take_curve(symplan_result *r)
{
    if (!r) return NULL;
    sp_plan_curve *c = r->curve;
    r->curve = NULL;
    return c;
}
