/* Long arrays read packed (problems/sp_json_packed.h): a problem with thousands of
 * keyframes and sample times reads to the very numbers a whole cJSON tree of the same text
 * gives, prints back byte for byte as that tree does, refuses malformed text with the line
 * and column, and names the keyframe at fault with the same path and message. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/sp_json_packed.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"

#define KEYFRAMES 5000

/* A text written piece by piece into a buffer large enough for it. */
typedef struct text {
    char *data;
    size_t length, size;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t->length += (size_t)vsnprintf(t->data + t->length, t->size - t->length, fmt, ap);
    va_end(ap);
    cr_assert_lt(t->length, t->size);
}

/* A plan through n quaternion keyframes and n sample times, the numbers of every kind
 * JSON writes (integers, decimals, exponents, 17 digits), keyframe i on line 4 + i. The
 * keyframe `broken` (-1: none) gets `edit` in place of its "q" array. */
static char *keyframe_text(int n, int broken, const char *edit)
{
    text out = {.data = malloc(512 + (size_t)n * 200), .size = 512 + (size_t)n * 200};
    cr_assert_not_null(out.data);
    add(&out, "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3\", \"space\": \"group\",\n");
    add(&out, " \"T\": %d, \"steps\": %d, \"sigma\": 0.01, \"xi0\": [0, 0, 0],\n", n, 2 * n);
    add(&out, " \"targets\": [\n");
    unsigned long long state = 12345;
    for (int i = 0; i < n; ++i) {
        double q[4], norm = 0.0;
        for (int k = 0; k < 4; ++k) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            q[k] = (double)(state >> 11) / 9007199254740992.0 - 0.5;
            norm += q[k] * q[k];
        }
        for (int k = 0; k < 4; ++k) q[k] /= sqrt(norm);
        char qs[160];
        if (i == broken)
            snprintf(qs, sizeof qs, "%s", edit);
        else if (i % 3 == 0)
            snprintf(qs, sizeof qs, "[%.17g, %.17g, %.17g, %.17g]", q[0], q[1], q[2], q[3]);
        else if (i % 3 == 1)
            snprintf(qs, sizeof qs, "[%.6f, %.5e, %.9g, %.4E]", q[0], q[1], q[2], q[3]);
        else
            snprintf(qs, sizeof qs, "[%.12g,%.12g,%.12g,%.12g]", q[0], q[1], q[2], q[3]);
        add(&out, "  {\"t\": %d.5, \"q\": %s}%s\n", i, qs, i + 1 < n ? "," : "");
    }
    add(&out, " ],\n \"output\": {\"orientation\": \"quaternion\", \"sample_times\": [");
    for (int i = 0; i < n; ++i) add(&out, "%s%.17g", i ? ", " : "", (double)n * i / (n + 7.0));
    add(&out, "]}}\n");
    return out.data;
}

static const sp_limits *many_targets(sp_limits *limits)
{
    *limits = sp_limits_default();
    limits->targets = 1000000;
    return limits;
}

/* The problem of a whole cJSON tree of the text: what the readers gave before. */
static sp_status read_whole(const char *text, sp_problem *pb, sp_input_error *err)
{
    sp_limits limits;
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc);
    sp_status st = sp_problem_from_document(doc, many_targets(&limits), pb, err);
    cJSON_Delete(doc);
    return st;
}

Test(json_packed, thousands_of_keyframes_read_as_a_whole_tree_reads_them)
{
    char *text = keyframe_text(KEYFRAMES, -1, NULL);
    sp_limits limits;
    cJSON *doc;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse_document(text, strlen(text), many_targets(&limits), &doc, &err), SP_OK, "%s",
                 err.message);
    const cJSON *targets = cJSON_GetObjectItem(doc, "targets");
    const cJSON *times = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "output"), "sample_times");
    cr_assert(sp_json_is_packed(targets), "the keyframes were not packed");
    cr_assert(sp_json_is_packed(times), "the sample times were not packed");
    cr_expect_eq(sp_json_array_size(targets), KEYFRAMES);
    cr_expect_eq(sp_json_array_size(times), KEYFRAMES);
    cr_expect(!sp_json_is_packed(cJSON_GetObjectItem(doc, "xi0")), "a short array was packed");

    sp_problem packed, whole;
    cr_assert_eq(sp_problem_from_document(doc, &limits, &packed, &err), SP_OK, "%s: %s", err.path, err.message);
    cr_assert_eq(read_whole(text, &whole, &err), SP_OK, "%s: %s", err.path, err.message);
    cr_assert_eq(packed.cubic.n_targets, (size_t)KEYFRAMES);
    cr_assert_eq(whole.cubic.n_targets, (size_t)KEYFRAMES);
    cr_expect_eq(memcmp(packed.cubic.targets, whole.cubic.targets, KEYFRAMES * sizeof *packed.cubic.targets), 0,
                 "the keyframes differ from a whole tree's");
    cr_assert_eq(packed.plan.n_sample_times, (size_t)KEYFRAMES);
    cr_expect_eq(memcmp(packed.plan.sample_times, whole.plan.sample_times, KEYFRAMES * sizeof(double)), 0,
                 "the sample times differ from a whole tree's");
    /* and the numbers are those written: strtod's */
    cr_expect_eq(packed.cubic.targets[KEYFRAMES - 1].t, strtod("4999.5", NULL));
    cr_expect_eq(packed.plan.sample_times[3], strtod("2.9958058717795087", NULL));
    sp_problem_free(&packed);
    sp_problem_free(&whole);

    /* printed back, formatted or not, as the whole tree prints */
    cJSON *tree = cJSON_Parse(text);
    for (int formatted = 0; formatted < 2; ++formatted) {
        char *a = sp_json_print(doc, formatted, NULL), *b = sp_json_print(tree, formatted, NULL);
        cr_assert(a && b);
        cr_expect_str_eq(a, b, "printed %s, the packed document differs", formatted ? "formatted" : "unformatted");
        free(a), free(b);
    }
    /* a copy is a copy, and compares equal */
    cJSON *copy = cJSON_Duplicate(doc, 1);
    cr_expect(cJSON_Compare(copy, doc, 1));
    cJSON_Delete(copy);
    cJSON_Delete(tree);
    cJSON_Delete(doc);
    free(text);
}

/* A keyframe at fault deep in a packed list is named as a whole tree names it. */
Test(json_packed, a_bad_keyframe_is_named_with_its_path)
{
    static const struct {
        const char *edit, *path, *message;
    } cases[] = {
        {"[1, 0, 0]", "targets[4321].q", "must be"},
        {"\"north\"", "targets[4321].q", "must be"},
        {"[1, 0, 0, null]", "targets[4321].q[3]", "must be"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char *text = keyframe_text(KEYFRAMES, 4321, cases[c].edit);
        sp_limits limits;
        sp_problem pb, whole;
        cJSON *input;
        sp_input_error err, whole_err;
        cr_expect_eq(sp_problem_parse_input(text, strlen(text), many_targets(&limits), &pb, &input, &err),
                     SP_ERR_INVALID, "%s was read", cases[c].edit);
        cr_expect_str_eq(err.path, cases[c].path, "%s", cases[c].edit);
        cr_expect(strstr(err.message, cases[c].message) != NULL, "%s: %s", cases[c].edit, err.message);
        cr_expect_eq(read_whole(text, &whole, &whole_err), SP_ERR_INVALID);
        cr_expect_str_eq(err.path, whole_err.path);
        cr_expect_str_eq(err.message, whole_err.message);
        free(text);
    }
}

/* Malformed text in a long array is refused before any tree, at its line and column. */
Test(json_packed, malformed_text_in_a_long_array_names_its_line_and_column)
{
    static const struct {
        const char *edit, *message;
        int at; /* where in the edit the text goes wrong */
    } cases[] = {
        {"[1, 0, 0 0]", "expected ',' or ']'", 9},
        {"[1, 0, 0, 01]", "number with a leading zero", 10},
        {"[1, 0, 0, 1.]", "a number needs a digit after its decimal point", 12},
        {"[1, 0, 0, \"\x01\"]", "raw control character in a string", 11},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char *text = keyframe_text(KEYFRAMES, 4321, cases[c].edit);
        cJSON *doc;
        sp_input_error err;
        cr_expect_eq(sp_json_parse_packed(text, strlen(text), sp_json_pack_problem, 0.0, &doc, &err), SP_ERR_INVALID);
        cr_expect_null(doc);
        /* the keyframe is on line 4 + its index */
        const char *line = text;
        for (int l = 1; l < 4 + 4321; ++l) line = strchr(line, '\n') + 1;
        const int column = (int)(strstr(line, cases[c].edit) - line) + cases[c].at + 1;
        char expected[200];
        snprintf(expected, sizeof expected, "malformed JSON at line %d, column %d: %s", 4 + 4321, column,
                 cases[c].message);
        cr_expect(strncmp(err.message, expected, strlen(expected)) == 0, "%s: got '%s', expected '%s'",
                  cases[c].edit, err.message, expected);
        free(text);
    }
}

/* The memory limit counts the packed tree: the file is refused before it is built when
 * even that is too much, and read when the whole tree would be but the packed one is not. */
Test(json_packed, the_memory_limit_counts_the_packed_tree)
{
    char *text = keyframe_text(KEYFRAMES, -1, NULL);
    const size_t length = strlen(text);
    cJSON *doc;
    sp_input_error err;
    /* a whole tree takes about 7 nodes of 80 bytes a keyframe; packed, about its text */
    cr_expect_eq(sp_json_parse_within(text, length, 4.0 * (double)length, &doc, &err), SP_ERR_INVALID);
    cr_expect(strstr(err.message, "more than the memory limit") != NULL, "%s", err.message);
    cr_expect_eq(sp_json_parse_packed(text, length, sp_json_pack_problem, 4.0 * (double)length, &doc, &err), SP_OK,
                 "%s", err.message);
    cJSON_Delete(doc);
    cr_expect_eq(sp_json_parse_packed(text, length, sp_json_pack_problem, 1.5 * (double)length, &doc, &err),
                 SP_ERR_INVALID);
    cr_expect(strstr(err.message, "more than the memory limit") != NULL, "%s", err.message);
    free(text);
}

/* Arrays holding strings, short arrays and arrays off the list stay trees. */
Test(json_packed, only_long_numeric_arrays_on_the_list_are_packed)
{
    char text[8192] = "{\"targets\": [\"a\"", *p = text + strlen(text);
    for (int i = 0; i < 100; ++i) p += sprintf(p, ", %d", i);
    p += sprintf(p, "], \"trajectory\": {\"t\": [0");
    for (int i = 1; i < 100; ++i) p += sprintf(p, ", %d", i);
    p += sprintf(p, "], \"coordinates\": [\"x\"");
    for (int i = 1; i < 100; ++i) p += sprintf(p, ", \"x%d\"", i);
    p += sprintf(p, "], \"short\": [1, 2]}, \"other\": [0");
    for (int i = 1; i < 100; ++i) p += sprintf(p, ", %d", i);
    sprintf(p, "]}");
    cJSON *doc;
    sp_input_error err;
    cr_assert_eq(sp_json_parse_packed(text, strlen(text), sp_json_pack_result, 0.0, &doc, &err), SP_OK, "%s",
                 err.message);
    const cJSON *traj = cJSON_GetObjectItem(doc, "trajectory");
    cr_expect(cJSON_IsArray(cJSON_GetObjectItem(doc, "targets")), "an array with a string was packed");
    cr_expect(sp_json_is_packed(cJSON_GetObjectItem(traj, "t")));
    cr_expect(cJSON_IsArray(cJSON_GetObjectItem(traj, "coordinates")));
    cr_expect(cJSON_IsArray(cJSON_GetObjectItem(traj, "short")));
    cr_expect(cJSON_IsArray(cJSON_GetObjectItem(doc, "other")));
    sp_json_items it;
    sp_json_items_begin(&it, cJSON_GetObjectItem(traj, "t"));
    int n = 0;
    for (const cJSON *e; (e = sp_json_items_next(&it)); ++n) cr_expect_eq(e->valuedouble, (double)n);
    sp_json_items_end(&it);
    cr_expect_eq(n, 100);
    cJSON_Delete(doc);
}
