/* Studies: expansion of a study file into cases, their validation, one case run into
 * its file, recognition of complete results, and the summary tables (sp_study.h). */
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
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* Largest study and base file read. */
#define STUDY_FILE_MAX_BYTES (64L << 20)
/* Largest number of steps in one field path ("a.b[2].c" has four). */
#define PATH_MAX_TOKENS 32

struct sp_study {
    char name[128];
    int named;    /* the file gave "name" */
    cJSON *base;  /* the base problem */
    cJSON *vary;  /* {path: [values]}, or NULL */
    cJSON *cases; /* [{path: value}], or NULL */
    size_t n_cases;
    cJSON *parameters; /* [path], first appearance order */
    sp_limits limits;  /* on the cases, and on each case's problem */
    long read_cap;     /* the largest case file sp_study_load_case reads back */
    /* Every value of "cases", or of the lists of "vary" one key after the other (key j's
     * from first[j] to first[j + 1]), by position: a cJSON array is a linked list, and
     * walking it to case i would make each case cost its index. */
    const cJSON **item;
    const cJSON **keys; /* the keys of "vary" */
    size_t *first, n_keys;
};

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

/* The case block of a result file: index, values and the full problem. */
static cJSON *case_block(const sp_study *s, size_t i, cJSON *problem)
{
    cJSON *block = cJSON_CreateObject();
    if (!block) return NULL;
    cJSON_AddNumberToObject(block, "index", (double)i);
    cJSON_AddItemToObject(block, "values", sp_study_case_values(s, i));
    cJSON_AddItemToObject(block, "problem", problem);
    return block;
}

static void join(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir && dir[0] ? dir : ".", name);
}

/* How a finished case file is put in place by sp_study_run_case_locked. */
typedef struct publisher {
    int (*still_wanted)(void *ctx);
    void *ctx;
} publisher;

int sp_study_lock(const char *dir)
{
    int fd = open(dir && dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

void sp_study_unlock(int lock)
{
    if (lock >= 0) close(lock); /* the lock goes with the last descriptor of its opening */
}

/* Renames the complete file `staged` to `path` under DIR's lock, the summaries removed
 * first: a summary is either absent or written after the rename, by someone holding the
 * lock. On failure the staged file is removed. */
static sp_status publish(const publisher *pub, const char *staged, const char *path, const char *dir, char *why,
                         size_t why_size)
{
    char summary[4096];
    int lock = sp_study_lock(dir);
    sp_status st = SP_OK;
    if (pub->still_wanted && !pub->still_wanted(pub->ctx)) {
        snprintf(why, why_size, "the study stopped before %s was put in place", path);
        st = SP_ERR_INTERRUPTED;
    } else {
        join(summary, sizeof summary, dir, "summary.json");
        unlink(summary);
        join(summary, sizeof summary, dir, "summary.csv");
        unlink(summary);
        if (rename(staged, path) != 0) {
            snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
            st = SP_ERR_IO;
        }
    }
    sp_study_unlock(lock);
    if (st != SP_OK) unlink(staged);
    return st;
}

/* Runs case i into its file: straight through its output when `pub` is NULL, else
 * staged and published. */
static sp_status run_case(const sp_study *s, size_t i, const char *dir, const publisher *pub, cJSON **figures,
                          char *why, size_t why_size)
{
    if (figures) *figures = NULL;
    sp_study_error err;
    cJSON *problem = sp_study_case_problem(s, i, &err);
    if (!problem) {
        snprintf(why, why_size, "%s%s%s", err.input.path, err.input.path[0] ? ": " : "", err.input.message);
        return SP_ERR_INVALID;
    }
    char *text = sp_json_print(problem, 0, NULL);
    sp_problem pb;
    sp_status st = text ? sp_problem_parse_limited(text, strlen(text), &s->limits, &pb, &err.input) : SP_ERR_NOMEM;
    free(text);
    if (st != SP_OK) {
        cJSON_Delete(problem);
        snprintf(why, why_size, "%s%s%s", err.input.path, err.input.path[0] ? ": " : "",
                 st == SP_ERR_NOMEM ? "out of memory" : err.input.message);
        return st;
    }
    char name[64], path[4096], staged[4096 + 64];
    sp_study_case_file(i, name, sizeof name);
    join(path, sizeof path, dir, name);
    /* one process stages one case at a time: its pid makes the name unique */
    snprintf(staged, sizeof staged, "%s.tmp-staged-%ld", path, (long)getpid());
    sp_output out;
    st = sp_output_open(&out, pub ? staged : path, why, why_size);
    if (st != SP_OK) {
        cJSON_Delete(problem);
        sp_problem_free(&pb);
        return st;
    }
    cJSON *result = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cJSON *wall = result ? sp_result_detach_wall_clock(result) : NULL;
    cJSON *block = wall ? case_block(s, i, problem) : NULL;
    if (!block) {
        cJSON_Delete(problem);
        cJSON_Delete(result);
        cJSON_Delete(wall);
        sp_output_abandon(&out);
        snprintf(why, why_size, "out of memory");
        return SP_ERR_NOMEM;
    }
    cJSON_Delete(wall);
    cJSON_AddItemToObject(result, "case", block);
    st = sp_output_commit(&out, result, why, why_size);
    if (st == SP_OK && pub) st = publish(pub, staged, path, dir, why, why_size);
    if (st == SP_OK && figures) *figures = sp_study_result_figures(result);
    cJSON_Delete(result);
    return st;
}

sp_status sp_study_run_case(const sp_study *s, size_t i, const char *dir, cJSON **figures, char *why, size_t why_size)
{
    return run_case(s, i, dir, NULL, figures, why, why_size);
}

sp_status sp_study_run_case_locked(const sp_study *s, size_t i, const char *dir, int (*still_wanted)(void *ctx),
                                   void *ctx, cJSON **figures, char *why, size_t why_size)
{
    const publisher pub = {.still_wanted = still_wanted, .ctx = ctx};
    return run_case(s, i, dir, &pub, figures, why, why_size);
}

cJSON *sp_study_load_case(const sp_study *s, size_t i, const char *dir)
{
    char name[64], path[4096];
    sp_study_case_file(i, name, sizeof name);
    join(path, sizeof path, dir, name);
    if (access(path, F_OK) != 0) return NULL;
    cJSON *doc = NULL;
    sp_input_error in;
    if (sp_json_read_document(path, s->read_cap, &doc, &in) != SP_OK) return NULL;
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(doc, "case");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(block, "index");
    int ok = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "status")) && cJSON_IsNumber(index) &&
             index->valuedouble == (double)i;
    if (ok) {
        /* the same problem, compared as text: numbers print the same only when equal */
        sp_study_error err;
        cJSON *problem = sp_study_case_problem(s, i, &err);
        char *want = problem ? sp_json_print(problem, 0, NULL) : NULL;
        char *have = sp_json_print(cJSON_GetObjectItemCaseSensitive(block, "problem"), 0, NULL);
        ok = want && have && strcmp(want, have) == 0;
        free(want);
        free(have);
        cJSON_Delete(problem);
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

int sp_study_remove_temporaries(const char *dir)
{
    DIR *d = opendir(dir && dir[0] ? dir : ".");
    if (!d) return 0;
    int removed = 0;
    const struct dirent *de;
    char path[4096];
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        if ((strncmp(n, "case-", 5) == 0 || strncmp(n, "summary.", 8) == 0) && strstr(n, ".tmp-")) {
            join(path, sizeof path, dir, n);
            removed += unlink(path) == 0;
        }
    }
    closedir(d);
    return removed;
}

/* ----------------------------------------------------------- summary -- */

struct sp_study_summary {
    const sp_study *study;
    cJSON *rows; /* array, one object per case */
    cJSON **row; /* row[i] is case i's object in rows: a cJSON array is a list, and
                  * finding row i by walking it would make every update O(i) */
    size_t done, failed;
};

/* 64-bit FNV-1a of n bytes, as 16 hex digits. */
static void fnv1a_hex(const char *text, size_t n, char *out, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; ++k) {
        h ^= (unsigned char)text[k];
        h *= 0x100000001b3ull;
    }
    snprintf(out, size, "%016llx", (unsigned long long)h);
}

/* The FNV-1a of the case's problem as compact JSON. */
static void input_hash(const sp_study *s, size_t i, char *out, size_t size)
{
    sp_study_error err;
    cJSON *problem = sp_study_case_problem(s, i, &err);
    char *text = problem ? sp_json_print(problem, 0, NULL) : NULL;
    fnv1a_hex(text ? text : "", text ? strlen(text) : 0, out, size);
    free(text);
    cJSON_Delete(problem);
}

/* A pending row: case, file, input hash, values, status. */
static cJSON *pending_row(const sp_study *s, size_t i)
{
    cJSON *row = cJSON_CreateObject();
    if (!row) return NULL;
    char name[64], hash[32];
    sp_study_case_file(i, name, sizeof name);
    input_hash(s, i, hash, sizeof hash);
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
    join(path, sizeof path, dir, "summary.json");
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
    join(path, sizeof path, dir, "summary.json");
    sp_status st = sp_output_open(&out, path, why, why_size);
    if (st == SP_OK) st = sp_output_commit(&out, doc, why, why_size);
    cJSON_Delete(doc);
    if (st != SP_OK) return st;

    size_t length = 0;
    char *csv = summary_csv(sum, &length);
    if (!csv) goto nomem;
    join(path, sizeof path, dir, "summary.csv");
    st = sp_output_open(&out, path, why, why_size);
    if (st == SP_OK) st = sp_output_commit_text(&out, csv, length, why, why_size);
    free(csv);
    return st;
nomem:
    snprintf(why, why_size, "out of memory while writing the summary");
    return SP_ERR_NOMEM;
}

/* ------------------------------------------------------------- the log -- */

struct sp_study_log {
    const sp_study *study;
    char *dir;
    int fd;
    cJSON **last;     /* per case, its latest intact record (NULL: none) */
    size_t *at;       /* and where in the file it starts */
    size_t run_start; /* the size of the log when this run opened it */
    int unsynced;     /* records written since the last sync */
    double synced_at;
};

/* How long a record may wait for its sync. Every record is on its way to the disk the
 * moment it is written (a kill loses none); only a crash of the machine can lose the
 * unsynced ones, and then their cases are read back from their files on resume. A sync
 * per record would cost trivial cases more than the cases themselves. */
#define LOG_SYNC_SECONDS 1.0

/* A record's line: its compact JSON, a space, the FNV-1a of that JSON, a newline. */
#define LOG_CHECK_CHARS 16

/* The record in line[0…n) (without its newline), or NULL when it is torn or damaged. */
static cJSON *parse_record(const char *line, size_t n, size_t n_cases)
{
    if (n < LOG_CHECK_CHARS + 2 || line[n - LOG_CHECK_CHARS - 1] != ' ') return NULL;
    const size_t json = n - LOG_CHECK_CHARS - 1;
    char check[LOG_CHECK_CHARS + 1];
    fnv1a_hex(line, json, check, sizeof check);
    if (memcmp(check, line + json + 1, LOG_CHECK_CHARS) != 0) return NULL;
    cJSON *rec = cJSON_ParseWithLength(line, json);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(rec, "case");
    if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble >= (double)n_cases ||
        c->valuedouble != (double)(size_t)c->valuedouble) {
        cJSON_Delete(rec);
        return NULL;
    }
    return rec;
}

/* Reads the whole log; keeps each case's latest intact record and cuts the file after
 * the last one, so that what a kill left half-written is dropped and the next record
 * starts on a line of its own. */
static sp_status read_log(sp_study_log *log, const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (fstat(log->fd, &st) != 0) goto io;
    size_t size = (size_t)st.st_size, got = 0;
    char *text = malloc(size + 1);
    if (!text) {
        snprintf(why, why_size, "out of memory while reading %s", path);
        return SP_ERR_NOMEM;
    }
    while (got < size) {
        ssize_t n = pread(log->fd, text + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    size_t kept = 0;
    for (size_t at = 0; at < got;) {
        const char *end = memchr(text + at, '\n', got - at);
        if (!end) break;
        size_t n = (size_t)(end - (text + at));
        cJSON *rec = parse_record(text + at, n, log->study->n_cases);
        at += n + 1;
        if (!rec) continue;
        size_t i = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "case"));
        cJSON_Delete(log->last[i]);
        log->last[i] = rec;
        log->at[i] = at - n - 1;
        kept = at;
    }
    free(text);
    if (kept < size && ftruncate(log->fd, (off_t)kept) != 0) goto io;
    return SP_OK;
io:
    snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
    return SP_ERR_IO;
}

sp_status sp_study_log_open(const sp_study *s, const char *dir, sp_study_log **out, char *why, size_t why_size)
{
    *out = NULL;
    char path[4096];
    join(path, sizeof path, dir, SP_STUDY_LOG_FILE);
    sp_study_log *log = calloc(1, sizeof *log);
    if (log) {
        log->study = s;
        log->fd = -1;
        log->dir = strdup(dir && dir[0] ? dir : ".");
        log->last = calloc(s->n_cases ? s->n_cases : 1, sizeof *log->last);
        log->at = calloc(s->n_cases ? s->n_cases : 1, sizeof *log->at);
    }
    if (!log || !log->dir || !log->last || !log->at) {
        sp_study_log_close(log);
        snprintf(why, why_size, "out of memory");
        return SP_ERR_NOMEM;
    }
    log->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log->fd < 0) {
        snprintf(why, why_size, "cannot open %s: %s", path, strerror(errno));
        sp_study_log_close(log);
        return SP_ERR_IO;
    }
    /* A record lock (not flock): it belongs to this process alone, so that workers forked
     * from it do not hold it after it dies, and it goes when the process ends, however. */
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(log->fd, F_SETLK, &whole) != 0 && (errno == EACCES || errno == EAGAIN)) {
        snprintf(why, why_size, "another study is running in this folder (it holds the lock on %s)", path);
        sp_study_log_close(log);
        return SP_ERR_INVALID;
    }
    sp_status st = read_log(log, path, why, why_size);
    if (st != SP_OK) {
        sp_study_log_close(log);
        return st;
    }
    log->synced_at = sp_clock_seconds();
    struct stat st_log;
    log->run_start = fstat(log->fd, &st_log) == 0 ? (size_t)st_log.st_size : 0;
    *out = log;
    return SP_OK;
}

int sp_study_log_sync(sp_study_log *log, int now)
{
    if (!log->unsynced || (!now && sp_clock_seconds() - log->synced_at < LOG_SYNC_SECONDS)) return 0;
    if (fdatasync(log->fd) != 0) return -1;
    log->unsynced = 0;
    log->synced_at = sp_clock_seconds();
    return 0;
}

void sp_study_log_close(sp_study_log *log)
{
    if (!log) return;
    if (log->fd >= 0) {
        sp_study_log_sync(log, 1);
        close(log->fd);
    }
    for (size_t i = 0; log->last && i < log->study->n_cases; ++i) cJSON_Delete(log->last[i]);
    free(log->last);
    free(log->at);
    free(log->dir);
    free(log);
}

/* Appends one line whole: a single write, continued only if the system cut it short. */
static int append_line(int fd, const char *line, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, line, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        line += w, n -= (size_t)w;
    }
    return 0;
}

sp_status sp_study_log_record(sp_study_log *log, sp_study_summary *sum, size_t i, const cJSON *figures,
                              const char *failure, double wall_seconds, char *why, size_t why_size)
{
    sp_status st = !sum      ? SP_OK
                   : figures ? sp_study_summary_set_figures(sum, i, figures, wall_seconds)
                             : sp_study_summary_set_failed(sum, i, failure, wall_seconds);
    if (st != SP_OK) {
        snprintf(why, why_size, "cannot record case %zu: %s", i, sp_status_message(st));
        return st;
    }
    char hash[32];
    input_hash(log->study, i, hash, sizeof hash);
    cJSON *rec = cJSON_CreateObject();
    if (rec) {
        cJSON_AddNumberToObject(rec, "case", (double)i);
        cJSON_AddStringToObject(rec, "input_hash", hash);
        cJSON_AddItemToObject(rec, "wall_seconds",
                              isfinite(wall_seconds) ? cJSON_CreateNumber(wall_seconds) : cJSON_CreateNull());
        if (figures) {
            /* the size the file had when it was put in place, which a resumed run checks
             * instead of reading the file back */
            char name[64], path[4096];
            struct stat fs;
            sp_study_case_file(i, name, sizeof name);
            join(path, sizeof path, log->dir, name);
            cJSON_AddNumberToObject(rec, "bytes", stat(path, &fs) == 0 ? (double)fs.st_size : -1.0);
            cJSON_AddItemReferenceToObject(rec, "figures", (cJSON *)figures);
        } else {
            cJSON_AddStringToObject(rec, "error", failure ? failure : "failed");
        }
    }
    size_t n = 0;
    char *json = rec ? sp_json_print(rec, 0, &n) : NULL;
    cJSON_Delete(rec);
    char *line = json ? realloc(json, n + LOG_CHECK_CHARS + 3) : NULL;
    if (!line) {
        free(json);
        snprintf(why, why_size, "out of memory while recording case %zu", i);
        return SP_ERR_NOMEM;
    }
    line[n] = ' ';
    fnv1a_hex(line, n, line + n + 1, LOG_CHECK_CHARS + 1);
    line[n + 1 + LOG_CHECK_CHARS] = '\n';
    int ok = append_line(log->fd, line, n + LOG_CHECK_CHARS + 2) == 0;
    free(line);
    log->unsynced += ok;
    ok = ok && sp_study_log_sync(log, 0) == 0;
    if (!ok) {
        snprintf(why, why_size, "cannot append to %s/%s: %s", log->dir, SP_STUDY_LOG_FILE, strerror(errno));
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* Whether case i's latest record says its file was put in place for the case as it is
 * now, and the file is there with the size it had then. */
static const cJSON *finished_figures(const sp_study_log *log, const sp_study_summary *sum, size_t i)
{
    const cJSON *rec = log->last[i];
    const cJSON *figures = cJSON_GetObjectItemCaseSensitive(rec, "figures");
    const char *h1 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "input_hash"));
    const char *h2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sum->row[i], "input_hash"));
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(rec, "bytes");
    if (!cJSON_IsObject(figures) || !h1 || !h2 || strcmp(h1, h2) != 0 || !cJSON_IsNumber(bytes)) return NULL;
    char name[64], path[4096];
    struct stat fs;
    sp_study_case_file(i, name, sizeof name);
    join(path, sizeof path, log->dir, name);
    return stat(path, &fs) == 0 && (double)fs.st_size == bytes->valuedouble ? figures : NULL;
}

/* The wall time of case i's latest record (NaN: none). */
static double record_wall(const sp_study_log *log, size_t i)
{
    const cJSON *wall = cJSON_GetObjectItemCaseSensitive(log->last[i], "wall_seconds");
    return cJSON_IsNumber(wall) ? wall->valuedouble : NAN;
}

static void forget_records(sp_study_log *log)
{
    for (size_t i = 0; i < log->study->n_cases; ++i) {
        cJSON_Delete(log->last[i]);
        log->last[i] = NULL;
    }
}

size_t sp_study_log_resume(sp_study_log *log, sp_study_summary *sum, size_t *todo)
{
    const size_t total = log->study->n_cases;
    size_t n = 0, n_read = 0;
    for (size_t i = 0; i < total; ++i) {
        const cJSON *figures = finished_figures(log, sum, i);
        if (figures) {
            sp_study_summary_set_figures(sum, i, figures, record_wall(log, i));
            continue;
        }
        /* a file the log does not vouch for (an older folder, a record lost with the
         * machine) is read back; its figures wait in its slot, its index at the end of
         * todo, until it is recorded below */
        cJSON *result = sp_study_load_case(log->study, i, log->dir);
        cJSON *found = result ? sp_study_result_figures(result) : NULL;
        cJSON_Delete(result);
        cJSON_Delete(log->last[i]);
        log->last[i] = found;
        if (found) {
            sp_study_summary_set_figures(sum, i, found, NAN);
            todo[total - ++n_read] = i;
        } else {
            todo[n++] = i;
        }
    }
    /* the wall times of files read back come from the summary of the run that made them,
     * and go into their records, so that each is read once (a record that cannot be
     * written only means reading the file again next time) */
    sp_study_summary_reuse_wall_times(sum, log->dir);
    for (size_t k = total - n_read; k < total; ++k) {
        const cJSON *wall = cJSON_GetObjectItemCaseSensitive(sum->row[todo[k]], "wall_seconds");
        char why[256];
        sp_study_log_record(log, NULL, todo[k], log->last[todo[k]], NULL,
                            cJSON_IsNumber(wall) ? wall->valuedouble : NAN, why, sizeof why);
    }
    forget_records(log);
    return n;
}

sp_status sp_study_log_summary(sp_study_log *log, sp_study_summary *sum, char *why, size_t why_size)
{
    char path[4096];
    join(path, sizeof path, log->dir, SP_STUDY_LOG_FILE);
    sp_status st = read_log(log, path, why, why_size);
    for (size_t i = 0; st == SP_OK && i < log->study->n_cases; ++i) {
        const cJSON *figures = finished_figures(log, sum, i);
        const char *error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log->last[i], "error"));
        const char *h1 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log->last[i], "input_hash"));
        const char *h2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sum->row[i], "input_hash"));
        if (figures)
            st = sp_study_summary_set_figures(sum, i, figures, record_wall(log, i));
        else if (error && log->at[i] >= log->run_start && h1 && h2 && strcmp(h1, h2) == 0)
            st = sp_study_summary_set_failed(sum, i, error, record_wall(log, i)); /* failed in this run */
    }
    forget_records(log);
    if (st == SP_ERR_NOMEM) snprintf(why, why_size, "out of memory while building the summary");
    return st;
}
