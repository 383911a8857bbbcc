/* The study file: reading it, expanding it into cases and validating every case
 * (sp_study.h); the store and the summary are study_store.c and study_summary.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h> /* flock */
#include <sys/stat.h>
#include <unistd.h>

#include "planner/sp_clock.h"
#include "planner/sp_solve.h"
#include "planner/study/sp_study.h"
#include "planner/study/study_internal.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* Largest number of steps in one field path ("a.b[2].c" has four). */
#define PATH_MAX_TOKENS 32

/* Fills s->item (and for "vary" s->keys and s->first). */
static int index_values(sp_study *s)
{
    const cJSON *lists = s->vary;
    size_t n_items = s->vary ? 0 : s->n_cases, n_keys = 0;
    for (const cJSON *key = lists ? lists->child : NULL; key; key = key->next, ++n_keys)
        n_items += (size_t)cJSON_GetArraySize(key);
    s->item = malloc((n_items ? n_items : 1) * sizeof *s->item);
    s->keys = malloc((n_keys ? n_keys : 1) * sizeof *s->keys);
    s->first = malloc((n_keys + 1) * sizeof *s->first);
    if (!s->item || !s->keys || !s->first) return 0;
    size_t k = 0, j = 0;
    if (!lists)
        for (const cJSON *c = s->cases->child; c; c = c->next) s->item[k++] = c;
    for (const cJSON *key = lists ? lists->child : NULL; key; key = key->next, ++j) {
        s->keys[j] = key;
        s->first[j] = k;
        for (const cJSON *v = key->child; v; v = v->next) s->item[k++] = v;
    }
    s->first[n_keys] = k;
    s->n_keys = n_keys;
    return 1;
}

static sp_status case_problem(const sp_study *s, size_t i, cJSON **out, sp_study_error *err);

/* ------------------------------------------------------------- errors -- */

/* Fills *err (case −1: the study file itself) and returns st. */
static sp_status fail(sp_study_error *err, long case_index, const char *path, sp_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static sp_status fail(sp_study_error *err, long case_index, const char *path, sp_status st, const char *fmt, ...)
{
    err->case_index = case_index;
    snprintf(err->input.path, sizeof err->input.path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->input.message, sizeof err->input.message, fmt, ap);
    va_end(ap);
    return st;
}

/* --------------------------------------------------------- field paths -- */

typedef struct path_token {
    int is_index;
    long index;
    char name[sizeof((sp_input_error *)0)->path];
} path_token;

/* Splits "a.b[2].c" into a, b, [2], c. Returns the number of tokens, or −1. */
static int tokenize(const char *path, path_token *tok, int max, char *why, size_t why_size)
{
    int n = 0;
    const char *p = path;
    for (;;) {
        size_t len = strcspn(p, ".[]");
        if (len == 0 || len >= sizeof tok->name || n == max) {
            snprintf(why, why_size, "malformed field path (expected name, name.name or name[index])");
            return -1;
        }
        tok[n].is_index = 0;
        memcpy(tok[n].name, p, len);
        tok[n].name[len] = '\0';
        ++n, p += len;
        while (*p == '[') {
            char *end;
            errno = 0;
            long i = strtol(p + 1, &end, 10);
            if (!isdigit((unsigned char)p[1]) || *end != ']' || errno || i > 1000000000L || n == max) {
                snprintf(why, why_size, "malformed array index in field path");
                return -1;
            }
            tok[n++] = (path_token){.is_index = 1, .index = i};
            p = end + 1;
        }
        if (*p == '\0') return n;
        if (*p != '.') {
            snprintf(why, why_size, "malformed field path (expected name, name.name or name[index])");
            return -1;
        }
        ++p;
    }
}

/* The text of tokens 0…k, for messages ("targets[7]"). */
static void path_prefix(const path_token *tok, int k, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int j = 0; j <= k && used < size; ++j) {
        int w = tok[j].is_index ? snprintf(out + used, size - used, "[%ld]", tok[j].index)
                                : snprintf(out + used, size - used, "%s%s", j ? "." : "", tok[j].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* A deep copy without the key it may carry from its parent. */
static cJSON *bare_copy(const cJSON *value)
{
    cJSON *copy = cJSON_Duplicate(value, 1);
    if (copy && copy->string) {
        if (!(copy->type & cJSON_StringIsConst)) cJSON_free(copy->string);
        copy->string = NULL;
        copy->type &= ~cJSON_StringIsConst;
    }
    return copy;
}

int sp_json_set_path(cJSON *root, const char *path, const cJSON *value, char *why, size_t why_size)
{
    path_token tok[PATH_MAX_TOKENS];
    int n = tokenize(path, tok, PATH_MAX_TOKENS, why, why_size);
    if (n < 0) return -1;
    if (!cJSON_IsObject(root)) {
        snprintf(why, why_size, "the problem is not an object");
        return -1;
    }
    char where[sizeof tok->name];
    cJSON *node = root;
    for (int k = 0; k < n; ++k) {
        const int last = k == n - 1;
        cJSON *child;
        if (tok[k].is_index) {
            path_prefix(tok, k - 1, where, sizeof where);
            if (!cJSON_IsArray(node)) {
                snprintf(why, why_size, "'%s' is not an array", where);
                return -1;
            }
            long size = (long)cJSON_GetArraySize(node);
            if (tok[k].index > size || (tok[k].index == size && !last)) {
                snprintf(why, why_size, "no element %ld in '%s' (it has %ld)", tok[k].index, where, size);
                return -1;
            }
            if (last) {
                cJSON *copy = bare_copy(value);
                if (!copy) goto nomem;
                if (tok[k].index == size ? !cJSON_AddItemToArray(node, copy)
                                         : !cJSON_ReplaceItemInArray(node, (int)tok[k].index, copy)) {
                    cJSON_Delete(copy);
                    goto nomem;
                }
                return 0;
            }
            child = cJSON_GetArrayItem(node, (int)tok[k].index);
        } else {
            if (!cJSON_IsObject(node)) {
                path_prefix(tok, k - 1, where, sizeof where);
                snprintf(why, why_size, "'%s' is not an object", where);
                return -1;
            }
            child = cJSON_GetObjectItemCaseSensitive(node, tok[k].name);
            if (last) {
                cJSON *copy = bare_copy(value);
                if (!copy) goto nomem;
                if (child ? !cJSON_ReplaceItemInObjectCaseSensitive(node, tok[k].name, copy)
                          : !cJSON_AddItemToObject(node, tok[k].name, copy)) {
                    cJSON_Delete(copy);
                    goto nomem;
                }
                return 0;
            }
            if (!child || cJSON_IsNull(child)) {
                /* missing objects on the way are created, arrays cannot be guessed: refuse
                 * before creating anything, so that a failed set leaves the tree as it was */
                for (int j = k + 1; j < n; ++j)
                    if (tok[j].is_index) {
                        path_prefix(tok, j - 1, where, sizeof where);
                        snprintf(why, why_size, "no array '%s' to index", where);
                        return -1;
                    }
                cJSON *made = cJSON_CreateObject();
                if (!made) goto nomem;
                if (child ? !cJSON_ReplaceItemInObjectCaseSensitive(node, tok[k].name, made)
                          : !cJSON_AddItemToObject(node, tok[k].name, made)) {
                    cJSON_Delete(made);
                    goto nomem;
                }
                child = made;
            }
        }
        node = child;
    }
    return 0; /* not reached: the last token returns above */
nomem:
    snprintf(why, why_size, "out of memory");
    return -1;
}

/* ------------------------------------------------------------- reading -- */

/* Appends path to the parameter list unless it is there. */
static int add_parameter(cJSON *params, const char *path)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, params) if (strcmp(p->valuestring, path) == 0) return 1;
    return cJSON_AddItemToArray(params, cJSON_CreateString(path));
}

/* Checks the keys of an override object (well-formed paths, no key twice). */
static sp_status check_keys(const cJSON *obj, const char *where, long case_index, cJSON *params, sp_study_error *err)
{
    path_token tok[PATH_MAX_TOKENS];
    char why[256];
    for (const cJSON *item = obj->child; item; item = item->next) {
        if (tokenize(item->string, tok, PATH_MAX_TOKENS, why, sizeof why) < 0)
            return case_index >= 0 ? fail(err, case_index, item->string, SP_ERR_INVALID, "%s", why)
                                   : fail(err, -1, where, SP_ERR_INVALID, "'%s': %s", item->string, why);
        for (const cJSON *prev = obj->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, item->string) == 0)
                return case_index >= 0 ? fail(err, case_index, item->string, SP_ERR_INVALID, "field given twice")
                                       : fail(err, -1, where, SP_ERR_INVALID, "'%s' given twice", item->string);
        if (!add_parameter(params, item->string)) return fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    }
    return SP_OK;
}

/* The base problem: an inline object, or a file relative to base_dir. */
static sp_status read_base(sp_study *s, const cJSON *base, const char *base_dir, sp_study_error *err)
{
    if (cJSON_IsObject(base)) {
        s->base = cJSON_Duplicate(base, 1);
        return s->base ? SP_OK : fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    }
    if (!cJSON_IsString(base) || !base->valuestring[0])
        return fail(err, -1, "base", SP_ERR_INVALID, "must be a problem file's path or a problem object");
    const char *name = base->valuestring;
    size_t need = strlen(name) + (base_dir ? strlen(base_dir) : 0) + 2;
    char *path = malloc(need);
    if (!path) return fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    if (name[0] == '/' || !base_dir || !base_dir[0])
        snprintf(path, need, "%s", name);
    else
        snprintf(path, need, "%s/%s", base_dir, name);
    sp_input_error in;
    sp_status st = sp_json_read_document(path, STUDY_FILE_MAX_BYTES, &s->base, &in);
    if (st == SP_OK && !cJSON_IsObject(s->base)) {
        st = SP_ERR_INVALID;
        snprintf(in.message, sizeof in.message, "must be an object");
        in.path[0] = '\0';
    }
    if (st != SP_OK) {
        fail(err, -1, "base", st, "%s: %s", path, in.message);
        free(path);
        return st;
    }
    free(path);
    return SP_OK;
}

/* The members of the study file, its "vary" or "cases", and the case count. */
int sp_study_document_is_study(const cJSON *doc)
{
    static const char *const only_in_studies[] = {"base", "vary", "cases"};
    int study = 0;
    for (size_t k = 0; k < sizeof only_in_studies / sizeof only_in_studies[0]; ++k)
        study |= cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, only_in_studies[k]) != NULL;
    return study;
}

sp_status sp_study_text_is_study(const char *text, size_t length, int *is_study, sp_input_error *err)
{
    cJSON *doc;
    *is_study = 0;
    sp_status st = sp_json_parse_outline(text, length, &doc, err);
    if (st == SP_OK) *is_study = sp_study_document_is_study(doc);
    cJSON_Delete(doc);
    return st;
}

static sp_status read_study(sp_study *s, const cJSON *doc, const char *base_dir, sp_study_error *err)
{
    if (!cJSON_IsObject(doc)) return fail(err, -1, NULL, SP_ERR_INVALID, "a study must be a JSON object");
    static const char *const known[] = {"name", "description", "base", "vary", "cases", NULL};
    for (const cJSON *item = doc->child; item; item = item->next) {
        int ok = 0;
        for (int k = 0; known[k]; ++k) ok |= strcmp(item->string, known[k]) == 0;
        if (!ok) return fail(err, -1, item->string, SP_ERR_INVALID, "unknown field");
        for (const cJSON *prev = doc->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, item->string) == 0)
                return fail(err, -1, item->string, SP_ERR_INVALID, "duplicate field");
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    if (name && !cJSON_IsNull(name)) {
        if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) >= sizeof s->name)
            return fail(err, -1, "name", SP_ERR_INVALID, "must be a non-empty string of fewer than %zu bytes",
                        sizeof s->name);
        snprintf(s->name, sizeof s->name, "%s", name->valuestring);
        s->named = 1;
    }
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(doc, "base");
    if (!base || cJSON_IsNull(base)) return fail(err, -1, "base", SP_ERR_INVALID, "missing required field");
    sp_status st = read_base(s, base, base_dir, err);
    if (st != SP_OK) return st;

    const cJSON *vary = cJSON_GetObjectItemCaseSensitive(doc, "vary");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    if (vary && cases) return fail(err, -1, "cases", SP_ERR_INVALID, "give either \"vary\" or \"cases\", not both");
    if (!vary && !cases) return fail(err, -1, "vary", SP_ERR_INVALID, "missing: give \"vary\" or \"cases\"");
    s->parameters = cJSON_CreateArray();
    if (!s->parameters) return fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    if (vary) {
        if (!cJSON_IsObject(vary) || !vary->child)
            return fail(err, -1, "vary", SP_ERR_INVALID, "must be an object of field paths to lists of values");
        st = check_keys(vary, "vary", -1, s->parameters, err);
        if (st != SP_OK) return st;
        size_t count = 1;
        for (const cJSON *item = vary->child; item; item = item->next) {
            char where[sizeof err->input.path];
            snprintf(where, sizeof where, "vary.%s", item->string);
            size_t m = cJSON_IsArray(item) ? (size_t)cJSON_GetArraySize(item) : 0;
            if (m == 0) return fail(err, -1, where, SP_ERR_INVALID, "must be a non-empty list of values");
            if (count > (size_t)s->limits.cases / m)
                return fail(err, -1, "vary", SP_ERR_INVALID,
                            "more than %ld cases, the limit (raise it with --max-cases)", s->limits.cases);
            count *= m;
        }
        s->vary = cJSON_Duplicate(vary, 1);
        s->n_cases = count;
        return s->vary && index_values(s) ? SP_OK : fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    }
    if (!cJSON_IsArray(cases) || !cases->child)
        return fail(err, -1, "cases", SP_ERR_INVALID, "must be a non-empty list of override objects");
    size_t count = (size_t)cJSON_GetArraySize(cases);
    if (count > (size_t)s->limits.cases)
        return fail(err, -1, "cases", SP_ERR_INVALID, "%zu cases exceed the limit %ld (raise it with --max-cases)",
                    count, s->limits.cases);
    long i = 0;
    for (const cJSON *c = cases->child; c; c = c->next, ++i) {
        if (!cJSON_IsObject(c)) return fail(err, i, NULL, SP_ERR_INVALID, "must be an object of field paths to values");
        st = check_keys(c, NULL, i, s->parameters, err);
        if (st != SP_OK) return st;
    }
    s->cases = cJSON_Duplicate(cases, 1);
    s->n_cases = count;
    return s->cases && index_values(s) ? SP_OK : fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
}

/* Every case's problem must read as a valid problem before anything runs. */
static sp_status validate_cases(const sp_study *s, sp_study_error *err)
{
    for (size_t i = 0; i < s->n_cases; ++i) {
        cJSON *problem;
        sp_status st = case_problem(s, i, &problem, err);
        if (st != SP_OK) return st;
        char *text = sp_json_print(problem, 0, NULL);
        cJSON_Delete(problem);
        if (!text) return fail(err, (long)i, NULL, SP_ERR_NOMEM, "out of memory");
        sp_problem pb;
        st = sp_problem_parse_limited(text, strlen(text), &s->limits, &pb, &err->input);
        free(text);
        if (st != SP_OK) {
            err->case_index = (long)i;
            return st;
        }
        sp_problem_free(&pb);
    }
    return SP_OK;
}

sp_status sp_study_parse(const char *text, size_t length, const char *base_dir, sp_study **out, sp_study_error *err)
{
    return sp_study_parse_limited(text, length, base_dir, NULL, out, err);
}

sp_status sp_study_parse_limited(const char *text, size_t length, const char *base_dir, const sp_limits *limits,
                                 sp_study **out, sp_study_error *err)
{
    *out = NULL;
    memset(err, 0, sizeof *err);
    err->case_index = -1;
    cJSON *doc;
    sp_status st = sp_json_parse_within(text, length, limits ? limits->memory : sp_limits_default().memory, &doc,
                                        &err->input);
    if (st != SP_OK) return st;
    sp_study *s = calloc(1, sizeof *s);
    if (!s) {
        cJSON_Delete(doc);
        return fail(err, -1, NULL, SP_ERR_NOMEM, "out of memory");
    }
    snprintf(s->name, sizeof s->name, "study");
    s->limits = limits ? *limits : sp_limits_default();
    s->read_cap = STUDY_FILE_MAX_BYTES;
    st = read_study(s, doc, base_dir, err);
    cJSON_Delete(doc);
    if (st == SP_OK) st = validate_cases(s, err);
    if (st != SP_OK) {
        sp_study_free(s);
        return st;
    }
    *out = s;
    return SP_OK;
}

sp_status sp_study_read_file(const char *path, sp_study **out, sp_study_error *err)
{
    return sp_study_read_file_limited(path, NULL, out, err);
}

sp_status sp_study_read_file_limited(const char *path, const sp_limits *limits, sp_study **out, sp_study_error *err)
{
    *out = NULL;
    memset(err, 0, sizeof *err);
    err->case_index = -1;
    char *text;
    size_t length;
    sp_status st = sp_text_read_file(path, STUDY_FILE_MAX_BYTES, &text, &length, &err->input);
    if (st == SP_OK) st = sp_study_parse_file_text(path, text, length, limits, out, err);
    free(text);
    return st;
}

sp_status sp_study_parse_file_text(const char *path, const char *text, size_t length, const sp_limits *limits,
                                   sp_study **out, sp_study_error *err)
{
    /* the base path is relative to the study file's folder */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    sp_status st = sp_study_parse_limited(text, length, dir, limits, out, err);
    if (st == SP_OK && !(*out)->named) {
        /* no "name": the file's name without its folder and .json */
        sp_study *s = *out;
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t len = strlen(base);
        if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
        if (len >= sizeof s->name) len = sizeof s->name - 1;
        if (len > 0) {
            memcpy(s->name, base, len);
            s->name[len] = '\0';
        }
    }
    return st;
}

void sp_study_free(sp_study *s)
{
    if (!s) return;
    cJSON_Delete(s->base);
    cJSON_Delete(s->vary);
    cJSON_Delete(s->cases);
    cJSON_Delete(s->parameters);
    free(s->item);
    free(s->keys);
    free(s->first);
    free(s);
}

const char *sp_study_name(const sp_study *s) { return s->name; }
size_t sp_study_case_count(const sp_study *s) { return s->n_cases; }
const cJSON *sp_study_parameters(const sp_study *s) { return s->parameters; }
void sp_study_set_read_cap(sp_study *s, long bytes) { s->read_cap = bytes > 0 ? bytes : STUDY_FILE_MAX_BYTES; }

void sp_study_case_file(size_t i, char *name, size_t size) { snprintf(name, size, "case-%04zu.json", i); }

/* ------------------------------------------------------------- cases -- */

cJSON *sp_study_case_values(const sp_study *s, size_t i)
{
    if (i >= s->n_cases) return NULL;
    if (s->cases) return cJSON_Duplicate(s->item[i], 1);
    /* nested loops, first key outermost: the last key's index changes fastest */
    cJSON *values = cJSON_CreateObject();
    cJSON **picked = calloc(s->n_keys, sizeof *picked);
    int ok = values && picked;
    size_t rest = i;
    for (size_t j = s->n_keys; ok && j-- > 0;) {
        size_t m = s->first[j + 1] - s->first[j];
        picked[j] = cJSON_Duplicate(s->item[s->first[j] + rest % m], 1);
        ok = picked[j] != NULL;
        rest /= m;
    }
    for (size_t j = 0; ok && j < s->n_keys; ++j) {
        ok = cJSON_AddItemToObject(values, s->keys[j]->string, picked[j]);
        if (ok) picked[j] = NULL;
    }
    for (size_t j = 0; picked && j < s->n_keys; ++j) cJSON_Delete(picked[j]);
    free(picked);
    if (!ok) {
        cJSON_Delete(values);
        return NULL;
    }
    return values;
}

/* Case i's problem in *out, or the status with *err filled. */
static sp_status case_problem(const sp_study *s, size_t i, cJSON **out, sp_study_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    cJSON *values = sp_study_case_values(s, i);
    cJSON *problem = values ? cJSON_Duplicate(s->base, 1) : NULL;
    if (!problem) {
        cJSON_Delete(values);
        return fail(err, (long)i, NULL, SP_ERR_NOMEM, "out of memory");
    }
    for (const cJSON *v = values->child; v; v = v->next) {
        char why[256];
        if (sp_json_set_path(problem, v->string, v, why, sizeof why) != 0) {
            sp_status st = strcmp(why, "out of memory") == 0 ? SP_ERR_NOMEM : SP_ERR_INVALID;
            fail(err, (long)i, v->string, st, "%s", why);
            cJSON_Delete(problem);
            cJSON_Delete(values);
            return st;
        }
    }
    cJSON_Delete(values);
    *out = problem;
    return SP_OK;
}

cJSON *sp_study_case_problem(const sp_study *s, size_t i, sp_study_error *err)
{
    cJSON *problem;
    case_problem(s, i, &problem, err);
    return problem;
}

void sp_study_fnv1a_hex(const char *text, size_t n, char *out, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; ++k) {
        h ^= (unsigned char)text[k];
        h *= 0x100000001b3ull;
    }
    snprintf(out, size, "%016llx", (unsigned long long)h);
}

void sp_study_input_hash(const sp_study *s, size_t i, char *out, size_t size)
{
    sp_study_error err;
    cJSON *problem = sp_study_case_problem(s, i, &err);
    char *text = problem ? sp_json_print(problem, 0, NULL) : NULL;
    sp_study_fnv1a_hex(text ? text : "", text ? strlen(text) : 0, out, size);
    free(text);
    cJSON_Delete(problem);
}

void sp_study_join(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir && dir[0] ? dir : ".", name);
}
