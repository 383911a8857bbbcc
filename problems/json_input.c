#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "problems/json_input.h"

/* Appends src to the string in dst (capacity size); returns 0 if it had to cut it short. */
static int append(char *dst, size_t size, const char *src)
{
    size_t used = strlen(dst), room = size - 1 - used, len = strlen(src);
    const int whole = len <= room;
    if (!whole) len = room;
    memcpy(dst + used, src, len);
    dst[used + len] = '\0';
    return whole;
}

/* Ends a path that was cut short with an ellipsis, on a whole UTF-8 character, so that
 * the reader sees it is not the whole path. The error line prints the reason after the
 * path in full whatever the path's length. */
static void mark_cut(char *path, size_t size)
{
    static const char ellipsis[] = "\u2026";
    size_t end = size - sizeof ellipsis; /* room for the ellipsis and its NUL */
    while (end > 0 && ((unsigned char)path[end] & 0xC0) == 0x80) --end;
    memcpy(path + end, ellipsis, sizeof ellipsis);
}

/* parent.key; paths longer than the buffer are cut short and end in an ellipsis. */
static void join_path(char *dst, size_t size, const char *parent, const char *key)
{
    dst[0] = '\0';
    int whole = append(dst, size, parent);
    if (key && parent[0]) whole = whole && append(dst, size, ".");
    if (key) whole = whole && append(dst, size, key);
    if (!whole) mark_cut(dst, size);
}

int json_fail(const json_input *in, const char *key, const char *fmt, ...)
{
    join_path(in->err->path, sizeof in->err->path, in->path, key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->err->message, sizeof in->err->message, fmt, ap);
    va_end(ap);
    return -1;
}

json_input json_member(const json_input *in, const char *key)
{
    json_input m = {.node = cJSON_GetObjectItemCaseSensitive(in->node, key), .err = in->err};
    join_path(m.path, sizeof m.path, in->path, key);
    return m;
}

json_input json_element(const json_input *in, int i) { return json_element_node(in, cJSON_GetArrayItem(in->node, i), i); }

json_input json_element_node(const json_input *in, const cJSON *node, int i)
{
    json_input m = {.node = node, .err = in->err};
    char index[16];
    snprintf(index, sizeof index, "[%d]", i);
    if (!append(m.path, sizeof m.path, in->path) || !append(m.path, sizeof m.path, index))
        mark_cut(m.path, sizeof m.path);
    return m;
}

int json_require_object(const json_input *in)
{
    if (!cJSON_IsObject(in->node)) return json_fail(in, NULL, "must be an object");
    return 1;
}

int json_only_keys(const json_input *in, const char *const *allowed) { return json_only_keys_of(in, allowed, NULL); }

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short
 * names, capped: anything above 3 is 4. */
static int distance(const char *a, const char *b)
{
    enum { CAP = 4, LONGEST = 40 };
    const size_t m = strlen(a), n = strlen(b);
    if (m > LONGEST || n > LONGEST) return CAP;
    int d[LONGEST + 1][LONGEST + 1];
    for (size_t i = 0; i <= m; ++i) d[i][0] = (int)i;
    for (size_t j = 0; j <= n; ++j) d[0][j] = (int)j;
    for (size_t i = 1; i <= m; ++i)
        for (size_t j = 1; j <= n; ++j) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[m][n] < CAP ? d[m][n] : CAP;
}

/* The allowed name nearest to a misspelt one (a third of its letters at most), or NULL. */
static const char *nearest(const char *name, const char *const *allowed, const char *const *more)
{
    const char *best = NULL;
    int best_d = (int)strlen(name) / 3 < 3 ? (int)strlen(name) / 3 + 1 : 4;
    for (int list = 0; list < 2; ++list)
        for (const char *const *a = list ? more : allowed; a && *a; ++a) {
            const int d = distance(name, *a);
            if (d < best_d) best = *a, best_d = d;
        }
    return best;
}

int json_only_keys_of(const json_input *in, const char *const *allowed, const char *const *more)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, in->node)
    {
        int known = 0;
        for (const char *const *a = allowed; *a && !known; ++a) known = strcmp(*a, item->string) == 0;
        for (const char *const *a = more; a && *a && !known; ++a) known = strcmp(*a, item->string) == 0;
        if (!known) {
            const char *near = nearest(item->string, allowed, more);
            return near ? json_fail(in, item->string, "unknown field (did you mean \"%s\"?)", near)
                        : json_fail(in, item->string, "unknown field");
        }
        /* cJSON keeps both members of {"T": 1, "T": 2} and look-ups see the first:
         * a silent choice the author may not have meant. */
        for (const cJSON *prev = in->node->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, item->string) == 0) return json_fail(in, item->string, "duplicate field");
    }
    return 1;
}

/* Reads a member that must be a finite number. */
static int finite_number(const json_input *in, const cJSON *v, const char *key, double *out)
{
    if (!cJSON_IsNumber(v)) return json_fail(in, key, "must be a number");
    if (!isfinite(v->valuedouble)) return json_fail(in, key, "must be a finite number");
    *out = v->valuedouble;
    return 1;
}

static const cJSON *present(const json_input *in, const char *key, int required, int *status)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->node, key);
    *status = 1;
    if (!v || cJSON_IsNull(v)) *status = required ? json_fail(in, key, "missing required field") : 0;
    return v;
}

int json_number(const json_input *in, const char *key, int required, double *out)
{
    int st;
    const cJSON *v = present(in, key, required, &st);
    return st == 1 ? finite_number(in, v, key, out) : st;
}

int json_positive(const json_input *in, const char *key, int required, double *out)
{
    int st = json_number(in, key, required, out);
    if (st == 1 && !(*out > 0.0)) return json_fail(in, key, "must be positive (got %.17g)", *out);
    return st;
}

int json_integer(const json_input *in, const char *key, int required, long min, long max, int *out)
{
    double x = 0.0;
    int st = json_number(in, key, required, &x);
    if (st != 1) return st;
    if (x != floor(x)) return json_fail(in, key, "must be an integer (got %.17g)", x);
    if (x < (double)min || x > (double)max)
        return json_fail(in, key, "must be between %ld and %ld (got %.17g)", min, max, x);
    *out = (int)x;
    return 1;
}

int json_string(const json_input *in, const char *key, int required, const char **out)
{
    int st;
    const cJSON *v = present(in, key, required, &st);
    if (st != 1) return st;
    if (!cJSON_IsString(v)) return json_fail(in, key, "must be a string");
    *out = v->valuestring;
    return 1;
}

int json_boolean(const json_input *in, const char *key, int required, int *out)
{
    int st;
    const cJSON *v = present(in, key, required, &st);
    if (st != 1) return st;
    if (!cJSON_IsBool(v)) return json_fail(in, key, "must be true or false");
    *out = cJSON_IsTrue(v);
    return 1;
}

/* Reads the numbers of an array node into out[0..n). */
static int number_array(const json_input *arr, int n, const char *shape, double *out)
{
    if (!cJSON_IsArray(arr->node) || cJSON_GetArraySize(arr->node) != n)
        return json_fail(arr, NULL, "must be %s", shape);
    for (int i = 0; i < n; ++i) {
        json_input el = json_element(arr, i);
        if (finite_number(&el, el.node, NULL, &out[i]) != 1) return -1;
    }
    return 1;
}

int json_vector(const json_input *in, const char *key, int required, int n, double *out)
{
    int st;
    present(in, key, required, &st);
    if (st != 1) return st;
    char shape[64];
    snprintf(shape, sizeof shape, "an array of %d numbers", n);
    json_input arr = json_member(in, key);
    return number_array(&arr, n, shape, out);
}

int json_matrix(const json_input *in, const char *key, int required, int n, double *out)
{
    int st;
    const cJSON *v = present(in, key, required, &st);
    if (st != 1) return st;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return json_fail(in, key, "must be a %d x %d matrix (an array of %d rows)", n, n, n);
    json_input rows = json_member(in, key);
    char shape[64];
    snprintf(shape, sizeof shape, "a row of %d numbers", n);
    for (int i = 0; i < n; ++i) {
        json_input row = json_element(&rows, i);
        if (number_array(&row, n, shape, out + i * n) != 1) return -1;
    }
    return 1;
}

int json_name(const json_input *in, const char *key, int required, json_name_at_fn name_at, const char *what,
              const char **out)
{
    int st = json_string(in, key, required, out);
    if (st != 1) return st;
    for (size_t i = 0; name_at(i); ++i)
        if (strcmp(name_at(i), *out) == 0) return 1;
    char known[200] = "";
    for (size_t i = 0; name_at(i); ++i) {
        if (strlen(known) + strlen(name_at(i)) + 3 >= sizeof known) break;
        if (i) strcat(known, ", ");
        strcat(known, name_at(i));
    }
    /* the name cut short, so that the list of known ones always fits the message */
    return json_fail(in, key, "unknown %s '%.40s%s' (known: %s)", what, *out, strlen(*out) > 40 ? "\u2026" : "",
                     known);
}
