/* Results read back: the trajectory as numeric columns (result_view.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_quaternion.h"
#include "planner/result_view.h"
#include "problems/sp_json_packed.h"

sp_status sp_input_fail(sp_input_error *err, const char *path, const char *fmt, ...)
{
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* an allocation that failed is not a fault of the file */
    return strcmp(err->message, "out of memory") == 0 ? SP_ERR_NOMEM : SP_ERR_INVALID;
}

sp_status sp_result_check(const cJSON *root, sp_input_error *err)
{
    memset(err, 0, sizeof *err);
    if (!cJSON_IsObject(root)) return sp_input_fail(err, "", "not a result: expected a JSON object");
    if (!cJSON_IsString(cJSON_GetObjectItem(root, "status"))) {
        if (cJSON_GetObjectItem(root, "task") && !cJSON_GetObjectItem(root, "trajectory"))
            return sp_input_fail(err, "status",
                                 "missing: this is a problem file, not a result (run `symplan solve` on it)");
        return sp_input_fail(err, "status", "missing: not a result");
    }
    if (!cJSON_IsString(cJSON_GetObjectItem(root, "task"))) return sp_input_fail(err, "task", "missing: not a result");
    return SP_OK;
}

const sp_traj_field *sp_traj_get(const sp_traj *tr, const char *name)
{
    for (int i = 0; i < tr->n_fields; ++i)
        if (strcmp(tr->field[i].name, name) == 0) return &tr->field[i];
    return NULL;
}

void sp_traj_release(sp_traj *tr)
{
    for (int i = 0; i < tr->n_fields; ++i) free(tr->field[i].data);
    memset(tr, 0, sizeof *tr);
}

/* Width of a row: 0 for a number, the count for an array of numbers, −1 otherwise. */
static int row_width(const cJSON *row)
{
    if (cJSON_IsNumber(row)) return 0;
    if (!cJSON_IsArray(row)) return -1;
    int w = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, row)
    {
        if (!cJSON_IsNumber(x)) return -1;
        ++w;
    }
    return w;
}

/* A member of "trajectory", packed or not (problems/sp_json_packed.h), row by row. */
static sp_status read_field(const cJSON *member, int rows, sp_traj_field *f, sp_input_error *err)
{
    char path[160];
    snprintf(path, sizeof path, "trajectory.%s", member->string);
    if (!sp_json_is_array(member)) return sp_input_fail(err, path, "must be an array of rows");
    int count = sp_json_array_size(member);
    if (rows >= 0 && count != rows) return sp_input_fail(err, path, "has %d rows but t has %d", count, rows);
    if (count == 0) return sp_input_fail(err, path, "is empty");
    sp_json_items items;
    sp_json_items_begin(&items, member);
    sp_status st = SP_OK;
    int width = 0;
    for (int k = 0; k < count && st == SP_OK; ++k) {
        const cJSON *row = sp_json_items_next(&items);
        if (!row) {
            st = sp_input_fail(err, path, "out of memory");
            break;
        }
        if (k == 0) {
            width = row_width(row);
            if (width < 0 || width > SP_TRAJ_MAX_WIDTH || (width == 0 && !cJSON_IsNumber(row))) {
                snprintf(path + strlen(path), sizeof path - strlen(path), "[0]");
                st = sp_input_fail(err, path, "must be a number or an array of at most %d numbers", SP_TRAJ_MAX_WIDTH);
                break;
            }
            f->name = member->string;
            f->width = width;
            f->data = malloc((size_t)count * (size_t)(width ? width : 1) * sizeof *f->data);
            if (!f->data) {
                st = sp_input_fail(err, path, "out of memory");
                break;
            }
        }
        if (row_width(row) != width || (width == 0) != cJSON_IsNumber(row)) {
            snprintf(path + strlen(path), sizeof path - strlen(path), "[%d]", k);
            st = width == 0 ? sp_input_fail(err, path, "must be a number like the rows before it")
                            : sp_input_fail(err, path, "must be an array of %d numbers like the rows before it", width);
        } else if (width == 0) {
            f->data[k] = row->valuedouble;
        } else {
            int j = 0;
            const cJSON *x;
            cJSON_ArrayForEach(x, row) f->data[(size_t)k * width + j++] = x->valuedouble;
        }
    }
    sp_json_items_end(&items);
    if (st != SP_OK) {
        free(f->data);
        f->data = NULL;
    }
    return st;
}

/* Whether a member of "trajectory" is state: an array of numbers or of rows. */
static int is_state(const cJSON *member)
{
    sp_json_items items;
    sp_json_items_begin(&items, member);
    const cJSON *first = sp_json_items_next(&items);
    const int state = cJSON_IsNumber(first) || cJSON_IsArray(first);
    sp_json_items_end(&items);
    return state;
}

sp_status sp_traj_read(const cJSON *root, sp_traj *tr, sp_input_error *err)
{
    memset(tr, 0, sizeof *tr);
    memset(err, 0, sizeof *err);
    const cJSON *traj = cJSON_GetObjectItem(root, "trajectory");
    if (!traj) return sp_input_fail(err, "trajectory", "missing: this result has no trajectory");
    if (!cJSON_IsObject(traj)) return sp_input_fail(err, "trajectory", "must be an object");
    const cJSON *order = cJSON_GetObjectItem(root, "quaternion_order");
    if (order) {
        const char *name = cJSON_GetStringValue(order);
        int known = 0;
        for (size_t i = 0; name && sp_quaternion_order_at(i); ++i)
            if (strcmp(name, sp_quaternion_order_at(i)) == 0) known = 1, tr->quaternion_xyzw = (int)i;
        if (!known)
            return sp_input_fail(err, "quaternion_order", "must be \"%s\" or \"%s\"", sp_quaternion_order_at(0),
                                 sp_quaternion_order_at(1));
    }
    const cJSON *t = cJSON_GetObjectItem(traj, "t");
    if (!t) return sp_input_fail(err, "trajectory.t", "missing");
    /* "t" first, then the other members in file order */
    sp_status st = read_field(t, -1, &tr->field[0], err);
    if (st != SP_OK) return st;
    tr->n_fields = 1;
    if (tr->field[0].width != 0) {
        sp_traj_release(tr);
        return sp_input_fail(err, "trajectory.t", "must be an array of numbers");
    }
    tr->rows = sp_json_array_size(t);
    tr->t = tr->field[0].data;
    const cJSON *member;
    cJSON_ArrayForEach(member, traj)
    {
        if (member == t) continue;
        if (strcmp(member->string, "coordinates") == 0) {
            const cJSON *name;
            int i = 0;
            cJSON_ArrayForEach(name, member)
            {
                if (!cJSON_IsString(name) || i >= SP_TRAJ_MAX_WIDTH) {
                    sp_traj_release(tr);
                    return sp_input_fail(err, "trajectory.coordinates", "must be an array of at most %d names",
                                         SP_TRAJ_MAX_WIDTH);
                }
                tr->coordinates[i++] = name->valuestring;
            }
            tr->n_coordinates = i;
            continue;
        }
        /* only arrays of numbers or of rows are state; names, units and the like are not */
        if (!is_state(member)) continue;
        if (tr->n_fields == SP_TRAJ_MAX_FIELDS) {
            sp_traj_release(tr);
            return sp_input_fail(err, "trajectory", "more than %d members", SP_TRAJ_MAX_FIELDS);
        }
        st = read_field(member, tr->rows, &tr->field[tr->n_fields], err);
        if (st != SP_OK) {
            sp_traj_release(tr);
            return st;
        }
        ++tr->n_fields;
    }
    return SP_OK;
}

sp_status sp_traj_need(const sp_traj *tr, const char *name, int width, const char *why, sp_input_error *err,
                       const sp_traj_field **out)
{
    char path[64];
    snprintf(path, sizeof path, "trajectory.%s", name);
    *out = sp_traj_get(tr, name);
    if (!*out) return sp_input_fail(err, path, "missing (%s)", why);
    if ((*out)->width != width) return sp_input_fail(err, path, "rows must have %d numbers (%s)", width, why);
    return SP_OK;
}
