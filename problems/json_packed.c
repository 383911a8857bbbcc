/* Documents with packed arrays (sp_json_packed.h). The text is checked strictly first
 * (json_strict.h), so every walk below reads JSON known to be well formed. The tree is
 * built from the root down only through the objects on the way to a path of the list;
 * every other value is handed whole to cJSON, and an array at a listed path with enough
 * elements is copied as text. The same walk runs twice: once to count what the tree will
 * take (for the memory limit, before anything is allocated), once to build it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/json_strict.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

const char *const sp_json_pack_problem[] = {"targets", "output.sample_times", NULL};
const char *const sp_json_pack_result[] = {"trajectory.*", "samples.*", "targets", "input.targets",
                                           "input.output.sample_times", NULL};

/* Longest path of member names the walk follows: more than any list names. */
#define WALK_DEPTH 8

typedef struct walk {
    const char *s;
    size_t n;
    const char *const *pack;
    int build;   /* 0: count what the tree takes; 1: build it */
    int outline; /* the root's members only, each value null */
    const char *key[WALK_DEPTH];
    size_t key_len[WALK_DEPTH];
    int depth;                 /* member names on the way from the root */
    json_strict_size tree;     /* counted: the values, strings and string bytes of the tree */
    int out_of_memory;
} walk;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Just past the string that opens at s[at]. */
static size_t string_end(const char *s, size_t at)
{
    for (++at; s[at] != '"'; ++at)
        if (s[at] == '\\') ++at;
    return at + 1;
}

/* Just past the value that starts at s[at] (checked text: it ends before n). */
static size_t value_end(const char *s, size_t n, size_t at)
{
    if (s[at] == '"') return string_end(s, at);
    if (s[at] != '[' && s[at] != '{') {
        while (at < n && !is_space(s[at]) && s[at] != ',' && s[at] != ']' && s[at] != '}') ++at;
        return at;
    }
    int depth = 0;
    for (;;) {
        const char c = s[at];
        if (c == '"') {
            at = string_end(s, at);
            continue;
        }
        ++at;
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && --depth == 0) return at;
    }
}

/* Whether the names on the way match a pattern of the list whole (`whole`), or begin
 * one that goes on deeper. */
static int on_list(const walk *w, int whole)
{
    for (const char *const *p = w->pack; p && *p; ++p) {
        int parts = 1;
        for (const char *c = *p; *c; ++c) parts += *c == '.';
        if (whole ? parts != w->depth : parts <= w->depth) continue;
        const char *pat = *p;
        int matched = 1;
        for (int i = 0; i < w->depth && matched; ++i) {
            const size_t len = strcspn(pat, ".");
            matched = (len == 1 && pat[0] == '*') || (len == w->key_len[i] && memcmp(pat, w->key[i], len) == 0);
            pat += len + (pat[len] == '.');
        }
        if (matched) return 1;
    }
    return 0;
}

/* The array s[start, end) without its white space into out (NULL: only measured);
 * returns the length and sets *count to its number of elements, and *numeric to whether
 * it holds no string but member names. */
static size_t pack_text(const char *s, size_t start, size_t end, char *out, int *count, int *numeric)
{
    size_t len = 0;
    int depth = 0, commas = 0, empty = 1;
    *numeric = 1;
    for (size_t at = start; at < end;) {
        const char c = s[at];
        if (is_space(c)) {
            ++at;
            continue;
        }
        if (depth == 1 && c != ']') empty = 0;
        const size_t stop = c == '"' ? string_end(s, at) : at + 1;
        if (c == '"') {
            size_t next = stop;
            while (is_space(s[next])) ++next;
            if (s[next] != ':') *numeric = 0;
        }
        if (out) memcpy(out + len, s + at, stop - at);
        len += stop - at;
        at = stop;
        depth += c == '[' || c == '{' ? 1 : c == ']' || c == '}' ? -1 : 0;
        if (depth == 1 && c == ',') ++commas;
    }
    *count = empty ? 0 : commas + 1;
    return len;
}

/* An array at a listed path as a packed node (counted only, when not building); NULL
 * when it is too short to pack. */
static cJSON *packed(walk *w, size_t start, size_t end, int *done)
{
    int count, numeric;
    const size_t len = pack_text(w->s, start, end, NULL, &count, &numeric);
    *done = numeric && count >= SP_JSON_PACK_MIN;
    if (!*done) return NULL;
    if (!w->build) {
        ++w->tree.values, ++w->tree.strings, w->tree.string_bytes += len + 1;
        return NULL;
    }
    /* cJSON frees a raw node's text through its allocator: the text comes from it too */
    char *text = cJSON_malloc(len + 1);
    cJSON *node = text ? cJSON_CreateRaw("") : NULL;
    if (!node) {
        cJSON_free(text);
        w->out_of_memory = 1;
        return NULL;
    }
    pack_text(w->s, start, end, text, &count, &numeric);
    text[len] = '\0';
    cJSON_free(node->valuestring);
    node->valuestring = text;
    node->valueint = count;
    node->valuedouble = count;
    node->type |= SP_JSON_PACKED;
    return node;
}

/* A value the walk does not enter: cJSON's tree of it, or its size. */
static cJSON *whole(walk *w, size_t start, size_t end)
{
    if (w->build) {
        cJSON *node = cJSON_ParseWithLengthOpts(w->s + start, end - start, NULL, 0);
        if (!node) w->out_of_memory = 1; /* the text is JSON: only an allocation fails */
        return node;
    }
    json_strict_size size;
    sp_input_error ignored;
    if (json_strict_check(w->s + start, end - start, &size, &ignored) == SP_OK) {
        w->tree.values += size.values;
        w->tree.strings += size.strings;
        w->tree.string_bytes += size.string_bytes;
    }
    return NULL;
}

static size_t skip_space(const walk *w, size_t at)
{
    while (at < w->n && is_space(w->s[at])) ++at;
    return at;
}

static cJSON *value(walk *w, size_t *at);

/* An object on the way to a listed path, member by member. */
static cJSON *object(walk *w, size_t *at)
{
    cJSON *obj = w->build ? cJSON_CreateObject() : NULL;
    if (w->build && !obj) {
        w->out_of_memory = 1;
        return NULL;
    }
    ++w->tree.values;
    size_t i = skip_space(w, *at + 1);
    while (w->s[i] != '}' && !w->out_of_memory) {
        const size_t key = i, key_end = string_end(w->s, i);
        i = skip_space(w, key_end) + 1; /* past the colon */
        w->key[w->depth] = w->s + key + 1, w->key_len[w->depth] = key_end - key - 2;
        ++w->depth;
        cJSON *member = value(w, &i);
        --w->depth;
        ++w->tree.strings, w->tree.string_bytes += key_end - key;
        if (w->build && !w->out_of_memory) {
            /* the name decoded by cJSON, escapes and all */
            cJSON *name = cJSON_ParseWithLengthOpts(w->s + key, key_end - key, NULL, 0);
            if (!name || !cJSON_AddItemToObject(obj, name->valuestring, member)) {
                cJSON_Delete(member);
                w->out_of_memory = 1;
            }
            cJSON_Delete(name);
        }
        i = skip_space(w, i);
        if (w->s[i] == ',') i = skip_space(w, i + 1);
    }
    *at = i + 1;
    if (w->out_of_memory) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

static cJSON *value(walk *w, size_t *at)
{
    const size_t start = skip_space(w, *at);
    if (w->s[start] == '{' && w->depth < WALK_DEPTH && ((w->outline && w->depth == 0) || on_list(w, 0))) {
        *at = start;
        return object(w, at);
    }
    const size_t end = value_end(w->s, w->n, start);
    *at = end;
    if (w->outline && w->depth > 0) {
        cJSON *node = w->build ? cJSON_CreateNull() : NULL;
        w->out_of_memory |= w->build && !node;
        return node;
    }
    if (w->s[start] == '[' && w->depth > 0 && on_list(w, 1)) {
        int done;
        cJSON *node = packed(w, start, end, &done);
        if (done) return node;
    }
    return whole(w, start, end);
}

/* The document of a checked text as `w` reads it (its pack list and outline set), after
 * a first walk that counts its size (unless `known` is its size already). */
static sp_status build(walk *w, const char *text, size_t length, const json_strict_size *known, size_t values,
                       double max_memory, cJSON **doc, sp_input_error *err)
{
    const size_t first = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* a byte-order mark */
    size_t at = first;
    if (known)
        w->tree = *known;
    else
        value(w, &at);
    /* the text stays in memory beside its tree while the tree is built */
    const double need = json_strict_tree_bytes(&w->tree) + (double)length;
    if (max_memory > 0 && need > max_memory) {
        char needed[32], limit[32];
        sp_format_bytes(need, needed, sizeof needed);
        sp_format_bytes(max_memory, limit, sizeof limit);
        snprintf(err->message, sizeof err->message,
                 "reading its %zu JSON values takes about %s, more than the memory limit %s (raise it with "
                 "--max-memory)",
                 values, needed, limit);
        return SP_ERR_INVALID;
    }
    w->build = 1;
    at = first;
    *doc = value(w, &at);
    if (!*doc) {
        snprintf(err->message, sizeof err->message, "out of memory while reading %zu JSON values", values);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

sp_status sp_json_parse_packed(const char *text, size_t length, const char *const *pack, double max_memory,
                               cJSON **doc, sp_input_error *err)
{
    memset(err, 0, sizeof *err);
    *doc = NULL;
    json_strict_size size;
    sp_status st = json_strict_check(text, length, &size, err);
    if (st != SP_OK) return st;
    walk w = {.s = text, .n = length, .pack = pack};
    /* nothing to pack: the tree is cJSON's of the whole text, which the check counted */
    return build(&w, text, length, pack ? NULL : &size, size.values, max_memory, doc, err);
}

sp_status sp_json_parse_outline(const char *text, size_t length, cJSON **doc, sp_input_error *err)
{
    memset(err, 0, sizeof *err);
    *doc = NULL;
    json_strict_size size;
    sp_status st = json_strict_check(text, length, &size, err);
    if (st != SP_OK) return st;
    walk w = {.s = text, .n = length, .outline = 1};
    return build(&w, text, length, NULL, size.values, 0.0, doc, err);
}

int sp_json_is_packed(const cJSON *node) { return node && (node->type & SP_JSON_PACKED) && cJSON_IsRaw(node); }

int sp_json_is_array(const cJSON *node) { return cJSON_IsArray(node) || sp_json_is_packed(node); }

int sp_json_array_size(const cJSON *node) { return sp_json_is_packed(node) ? node->valueint : cJSON_GetArraySize(node); }

void sp_json_items_begin(sp_json_items *it, const cJSON *array)
{
    *it = (sp_json_items){0};
    if (sp_json_is_packed(array))
        it->text = array->valuestring + 1; /* past its '[' */
    else if (cJSON_IsArray(array))
        it->next = array->child;
}

const cJSON *sp_json_items_next(sp_json_items *it)
{
    if (!it->text) {
        const cJSON *e = it->next;
        if (e) it->next = e->next;
        return e;
    }
    cJSON_Delete(it->element);
    it->element = NULL;
    if (*it->text == ']') return NULL;
    /* packed text has no white space: an element ends at the first ',' or ']' outside
     * its own brackets and strings */
    const char *s = it->text;
    size_t end = 0;
    for (int depth = 0; depth > 0 || (s[end] != ',' && s[end] != ']');) {
        if (s[end] == '"') {
            end = string_end(s, end);
            continue;
        }
        depth += s[end] == '[' || s[end] == '{' ? 1 : s[end] == ']' || s[end] == '}' ? -1 : 0;
        ++end;
    }
    it->element = cJSON_ParseWithLengthOpts(s, end, NULL, 0);
    if (!it->element) {
        it->out_of_memory = 1;
        it->text = "]";
        return NULL;
    }
    it->text = s + end + (s[end] == ',');
    return it->element;
}

void sp_json_items_end(sp_json_items *it)
{
    cJSON_Delete(it->element);
    *it = (sp_json_items){0};
}
