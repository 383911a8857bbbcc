/* The public problem object (sp_api.h): the problem document itself, which setters edit
 * member by member and which the problem reader checks whole. Holding the document rather
 * than a filled sp_problem keeps one reader for files and for programs: a problem built by
 * setters is read, checked and solved exactly as the same file would be, for every model
 * family, and the result carries it as its "input". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/api/sp_api.h"
#include "planner/api/sp_api_internal.h"
#include "planner/sp_solve.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

/* the longest member name a setter takes, dots included */
#define NAME_MAX_LENGTH 256
/* the longest vector a setter takes (a problem file is at most 64 MiB anyway) */
#define VECTOR_MAX (1u << 22)

static const char *const task_names[] = {"plan", "simulate"};

const char *symplan_task_name(symplan_task task)
{
    return (unsigned)task < sizeof task_names / sizeof task_names[0] ? task_names[task] : NULL;
}

sp_status symplan_task_from_name(const char *name, symplan_task *task)
{
    for (size_t i = 0; name && task && i < sizeof task_names / sizeof task_names[0]; ++i)
        if (strcmp(name, task_names[i]) == 0) {
            *task = (symplan_task)i;
            return SP_OK;
        }
    return SP_ERR_INVALID;
}

static void clear_error(char *error, size_t error_size)
{
    if (error && error_size > 0) error[0] = '\0';
}

static sp_status fail(sp_status st, const sp_input_error *e, char *error, size_t error_size)
{
    if (error) sp_input_error_line(e, error, error_size);
    return st;
}

/* The problem of a document, checked whole; `error` says what is wrong. */
static sp_status read_document(cJSON *doc, symplan_problem **out, char *error, size_t error_size)
{
    sp_problem pb;
    sp_input_error e;
    sp_status st = sp_problem_from_document(doc, NULL, &pb, &e);
    if (st != SP_OK) {
        cJSON_Delete(doc);
        return fail(st, &e, error, error_size);
    }
    sp_problem_free(&pb);
    *out = malloc(sizeof **out);
    if (!*out) {
        cJSON_Delete(doc);
        return fail(SP_ERR_NOMEM, &(sp_input_error){.message = "out of memory"}, error, error_size);
    }
    (*out)->doc = doc;
    return SP_OK;
}

/* A problem from a file (`file` set: `source` is its path) or from `length` bytes of text. */
static sp_status read_problem(const char *source, size_t length, int file, symplan_problem **out, char *error,
                              size_t error_size)
{
    clear_error(error, error_size);
    if (!out) return SP_ERR_INVALID;
    *out = NULL;
    if (!source) return SP_ERR_INVALID;
    cJSON *doc;
    sp_input_error e;
    const sp_status st = file ? sp_json_read_document(source, SP_PROBLEM_FILE_MAX_BYTES, &doc, &e)
                              : sp_json_parse_document(source, length, &doc, &e);
    return st == SP_OK ? read_document(doc, out, error, error_size) : fail(st, &e, error, error_size);
}

sp_status symplan_problem_read_json(const char *text, size_t length, symplan_problem **out, char *error,
                                    size_t error_size)
{
    return read_problem(text, length, 0, out, error, error_size);
}

sp_status symplan_problem_read_file(const char *path, symplan_problem **out, char *error, size_t error_size)
{
    return read_problem(path, 0, 1, out, error, error_size);
}

/* Whether a model of that name is known to the reader. */
static int known_model(const char *name)
{
    sp_model_info info;
    for (size_t i = 0; sp_model_info_at(i, &info); ++i)
        if (strcmp(info.name, name) == 0) return 1;
    return 0;
}

sp_status symplan_problem_new(symplan_task task, const char *model, symplan_problem **out)
{
    if (!out) return SP_ERR_INVALID;
    *out = NULL;
    if (!symplan_task_name(task) || !model || !known_model(model)) return SP_ERR_INVALID;
    symplan_problem *pb = malloc(sizeof *pb);
    cJSON *doc = cJSON_CreateObject();
    if (!pb || !doc || !cJSON_AddStringToObject(doc, "task", symplan_task_name(task)) ||
        !cJSON_AddStringToObject(doc, "model", model)) {
        free(pb);
        cJSON_Delete(doc);
        return SP_ERR_NOMEM;
    }
    pb->doc = doc;
    *out = pb;
    return SP_OK;
}

void symplan_problem_free(symplan_problem *pb)
{
    if (!pb) return;
    cJSON_Delete(pb->doc);
    free(pb);
}

symplan_task symplan_problem_task(const symplan_problem *pb)
{
    symplan_task task = SYMPLAN_PLAN;
    if (pb) symplan_task_from_name(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pb->doc, "task")), &task);
    return task;
}

const char *symplan_problem_model(const symplan_problem *pb)
{
    return pb ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pb->doc, "model")) : NULL;
}

/* The parts of a dotted name, cut in buf: their count, 0 for a malformed name (empty, too
 * long, an empty part). */
static int split_name(const char *name, char buf[NAME_MAX_LENGTH], char *parts[NAME_MAX_LENGTH])
{
    const size_t length = name ? strlen(name) : 0;
    if (length == 0 || length >= NAME_MAX_LENGTH) return 0;
    memcpy(buf, name, length + 1);
    int n = 0;
    for (char *part = buf; part; ++n) {
        char *dot = strchr(part, '.');
        if (dot) *dot = '\0';
        if (*part == '\0') return 0;
        parts[n] = part;
        part = dot ? dot + 1 : NULL;
    }
    return n;
}

/* Puts `value` (taken; NULL after a failed allocation) at the member `name`, replacing
 * what was there and making the objects on the way that are missing. */
static sp_status set_member(symplan_problem *pb, const char *name, cJSON *value)
{
    char buf[NAME_MAX_LENGTH], *parts[NAME_MAX_LENGTH];
    int n = pb ? split_name(name, buf, parts) : 0;
    /* a part of the way that is there must be an object: checked before anything changes */
    const cJSON *on_way = pb ? pb->doc : NULL;
    for (int i = 0; i + 1 < n && on_way; ++i) {
        on_way = cJSON_GetObjectItemCaseSensitive(on_way, parts[i]);
        if (on_way && !cJSON_IsObject(on_way)) n = 0;
    }
    if (n == 0 || !value) {
        cJSON_Delete(value);
        return n == 0 ? SP_ERR_INVALID : SP_ERR_NOMEM;
    }
    cJSON *obj = pb->doc;
    for (int i = 0; i + 1 < n && obj; ++i) {
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, parts[i]);
        obj = child ? child : cJSON_AddObjectToObject(obj, parts[i]);
    }
    const char *last = parts[n - 1];
    const int done = obj && (cJSON_GetObjectItemCaseSensitive(obj, last)
                                 ? cJSON_ReplaceItemInObjectCaseSensitive(obj, last, value)
                                 : cJSON_AddItemToObject(obj, last, value));
    if (!done) cJSON_Delete(value);
    return done ? SP_OK : SP_ERR_NOMEM;
}

/* Whether x holds n finite numbers, n at least 1 and not absurdly many. */
static int finite_vector(size_t n, const double *x)
{
    if (!x || n == 0 || n > VECTOR_MAX) return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* obj[key] = [x0, …, xn−1]; 0 when out of memory. */
static int add_vector(cJSON *obj, const char *key, size_t n, const double *x)
{
    cJSON *v = sp_json_vector((int)n, x);
    if (v && cJSON_AddItemToObject(obj, key, v)) return 1;
    cJSON_Delete(v);
    return 0;
}

sp_status symplan_problem_set_number(symplan_problem *pb, const char *name, double value)
{
    if (!isfinite(value)) return SP_ERR_INVALID;
    return set_member(pb, name, cJSON_CreateNumber(value));
}

sp_status symplan_problem_set_flag(symplan_problem *pb, const char *name, int value)
{
    return set_member(pb, name, cJSON_CreateBool(value != 0));
}

sp_status symplan_problem_set_name(symplan_problem *pb, const char *name, const char *value)
{
    if (!value) return SP_ERR_INVALID;
    return set_member(pb, name, cJSON_CreateString(value));
}

sp_status symplan_problem_set_vector(symplan_problem *pb, const char *name, size_t n, const double *x)
{
    return finite_vector(n, x) ? set_member(pb, name, sp_json_vector((int)n, x)) : SP_ERR_INVALID;
}

sp_status symplan_problem_set_horizon(symplan_problem *pb, double T)
{
    return T > 0.0 ? symplan_problem_set_number(pb, "T", T) : SP_ERR_INVALID;
}

sp_status symplan_problem_set_steps(symplan_problem *pb, int steps)
{
    return steps >= 1 ? symplan_problem_set_number(pb, "steps", steps) : SP_ERR_INVALID;
}

sp_status symplan_problem_set_step_size(symplan_problem *pb, double h)
{
    return h > 0.0 ? symplan_problem_set_number(pb, "h", h) : SP_ERR_INVALID;
}

sp_status symplan_problem_set_weight(symplan_problem *pb, double sigma)
{
    return sigma >= 0.0 ? symplan_problem_set_number(pb, "sigma", sigma) : SP_ERR_INVALID;
}

sp_status symplan_problem_set_param(symplan_problem *pb, const char *name, double value)
{
    if (!name || !*name || strchr(name, '.') || strlen(name) > NAME_MAX_LENGTH - 8) return SP_ERR_INVALID;
    char path[NAME_MAX_LENGTH];
    memcpy(path, "params.", 7);
    memcpy(path + 7, name, strlen(name) + 1);
    return symplan_problem_set_number(pb, path, value);
}

sp_status symplan_problem_set_optimizer(symplan_problem *pb, const char *algorithm, int maxeval)
{
    if (!pb || !algorithm || !*algorithm || maxeval < 0) return SP_ERR_INVALID;
    sp_status st = symplan_problem_set_name(pb, "optimizer.algorithm", algorithm);
    if (st == SP_OK && maxeval > 0) st = symplan_problem_set_number(pb, "optimizer.maxeval", maxeval);
    return st;
}

/* Appends `item` (taken; NULL after a failed allocation) to the array member `name`,
 * made when missing. */
static sp_status append(symplan_problem *pb, const char *name, cJSON *item)
{
    cJSON *list = pb ? cJSON_GetObjectItemCaseSensitive(pb->doc, name) : NULL;
    if (!pb || (list && !cJSON_IsArray(list))) {
        cJSON_Delete(item);
        return SP_ERR_INVALID;
    }
    if (!item || (!list && !(list = cJSON_AddArrayToObject(pb->doc, name))) || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(item);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

/* A keyframe {"t": t, key: x[n], key2: x2[n2]} (no key2 when NULL). */
static sp_status add_target(symplan_problem *pb, double t, const char *key, size_t n, const double *x,
                            const char *key2, size_t n2, const double *x2)
{
    if (!pb || !isfinite(t) || !finite_vector(n, x) || (key2 && !finite_vector(n2, x2))) return SP_ERR_INVALID;
    cJSON *target = cJSON_CreateObject();
    if (target && !(cJSON_AddNumberToObject(target, "t", t) && add_vector(target, key, n, x) &&
                    (!key2 || add_vector(target, key2, n2, x2)))) {
        cJSON_Delete(target);
        target = NULL;
    }
    return append(pb, "targets", target);
}

sp_status symplan_problem_add_point_target(symplan_problem *pb, double t, const double y[3])
{
    return add_target(pb, t, "y", 3, y, NULL, 0, NULL);
}

sp_status symplan_problem_add_rotation_target(symplan_problem *pb, double t, const double R[9])
{
    return add_target(pb, t, "R", 9, R, NULL, 0, NULL);
}

sp_status symplan_problem_add_pose_target(symplan_problem *pb, double t, const double R[9], const double x[3])
{
    return add_target(pb, t, "R", 9, R, "x", 3, x);
}

sp_status symplan_problem_add_position_target(symplan_problem *pb, double t, size_t n, const double *x)
{
    return add_target(pb, t, "x", n, x, NULL, 0, NULL);
}

sp_status symplan_problem_clear_targets(symplan_problem *pb)
{
    if (!pb) return SP_ERR_INVALID;
    cJSON_DeleteItemFromObjectCaseSensitive(pb->doc, "targets");
    return SP_OK;
}

sp_status symplan_problem_add_obstacle(symplan_problem *pb, size_t n, const double *xy)
{
    if (!pb || n > VECTOR_MAX / 2 || !finite_vector(2 * n, xy)) return SP_ERR_INVALID;
    cJSON *polygon = cJSON_CreateArray();
    for (size_t i = 0; polygon && i < n; ++i) {
        cJSON *corner = sp_json_vector(2, xy + 2 * i);
        if (!corner || !cJSON_AddItemToArray(polygon, corner)) {
            cJSON_Delete(corner);
            cJSON_Delete(polygon);
            polygon = NULL;
        }
    }
    return append(pb, "obstacles", polygon);
}

sp_status symplan_problem_check(const symplan_problem *pb, char *error, size_t error_size)
{
    clear_error(error, error_size);
    if (!pb) return SP_ERR_INVALID;
    sp_problem p;
    sp_input_error e;
    const sp_status st = sp_problem_from_document(pb->doc, NULL, &p, &e);
    if (st != SP_OK) return fail(st, &e, error, error_size);
    sp_problem_free(&p);
    return SP_OK;
}

char *symplan_problem_json(const symplan_problem *pb, int formatted)
{
    return pb ? sp_json_print(pb->doc, formatted, NULL) : NULL;
}

sp_status symplan_solve(const symplan_problem *pb, const volatile sig_atomic_t *stop, symplan_result **out, char *error,
                        size_t error_size)
{
    clear_error(error, error_size);
    if (!out) return SP_ERR_INVALID;
    *out = NULL;
    if (!pb) return SP_ERR_INVALID;
    sp_problem p;
    sp_input_error e;
    sp_status st = sp_problem_from_document(pb->doc, NULL, &p, &e);
    if (st != SP_OK) return fail(st, &e, error, error_size);
    cJSON *input = cJSON_Duplicate(pb->doc, 1);
    const sp_progress progress = {.stop = stop};
    sp_plan_curve *curve = NULL;
    cJSON *result = input ? sp_solve_json_input(&p, &progress, input, &curve) : NULL;
    sp_problem_free(&p);
    st = result ? sp_api_result_new(result, curve, out) : SP_ERR_NOMEM;
    if (st != SP_OK) fail(st, &(sp_input_error){.message = "out of memory"}, error, error_size);
    return st;
}
