/* Numbers in, numbers out (issue 7): every double symplan writes to JSON reads back as the
 * same bits, the layout is cJSON's, and a non-finite number never reaches a file — it
 * turns the result's status into "non_finite" instead.
 *
 * cJSON's own printer tries 15 significant digits and keeps them when they read back
 * within a relative DBL_EPSILON, which is not equality: 0.1 + 0.2 comes back as 0.3.
 * sp_json_print (problems/sp_result_file.h) prints the shortest of 15, 16 and 17 digits
 * that strtod turns back into the same bits. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support.h"
#include "planner/sp_solve.h"
#include "problems/sp_result_file.h"

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* splitmix64: a fixed sequence, so a failure repeats */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const double special[] = {0.0,
                                 -0.0,
                                 1.0,
                                 -1.0,
                                 0.1,
                                 0.1 + 0.2,
                                 1.0 / 3.0,
                                 2.0 / 3.0,
                                 DBL_MIN,
                                 -DBL_MIN,
                                 DBL_MAX,
                                 -DBL_MAX,
                                 DBL_EPSILON,
                                 4.9406564584124654e-324, /* the smallest subnormal */
                                 -4.9406564584124654e-324,
                                 2.2250738585072009e-308, /* the largest subnormal */
                                 1e-310,
                                 9007199254740992.0, /* 2^53 */
                                 9007199254740993.0,
                                 9007199254740991.0,
                                 2147483647.0,
                                 2147483648.0,
                                 -2147483649.0,
                                 1e15,
                                 1e16,
                                 1e17,
                                 1e21,
                                 1e22,
                                 1e23,
                                 5e-324,
                                 1.7976931348623157e308,
                                 0.30000000000000004,
                                 2.06590801846492,
                                 123456789012345678.0,
                                 0.37891306029417393};

/* Prints an array of the values both ways, reads it back with cJSON's parser and
 * expects the same bits everywhere; returns how many it checked. */
static size_t expect_round_trip(const double *x, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; ++i) cJSON_AddItemToArray(arr, cJSON_CreateNumber(x[i]));
    for (int formatted = 0; formatted <= 1; ++formatted) {
        size_t length = 0;
        char *text = sp_json_print(arr, formatted, &length);
        cr_assert_not_null(text);
        cr_assert_eq(length, strlen(text));
        cJSON *back = cJSON_ParseWithLength(text, length);
        cr_assert_not_null(back, "the printed array does not parse");
        cr_assert_eq((size_t)cJSON_GetArraySize(back), n);
        size_t i = 0;
        for (const cJSON *v = back->child; v; v = v->next, ++i)
            cr_assert_eq(bits_of(v->valuedouble), bits_of(x[i]), "%.17g (bits %016llx) read back as %.17g", x[i],
                         (unsigned long long)bits_of(x[i]), v->valuedouble);
        cJSON_Delete(back);
        free(text);
    }
    cJSON_Delete(arr);
    return n;
}

Test(numbers, special_values_round_trip_bitwise)
{
    expect_round_trip(special, sizeof special / sizeof special[0]);
}

/* Random bit patterns cover every exponent, subnormals included, uniformly. */
Test(numbers, random_bit_patterns_round_trip_bitwise)
{
    enum { N = 100000 };
    double *x = malloc(N * sizeof *x);
    cr_assert_not_null(x);
    uint64_t state = 20260707;
    size_t n = 0;
    while (n < N) {
        double v = from_bits(next(&state));
        if (isfinite(v)) x[n++] = v;
    }
    expect_round_trip(x, n);
    /* subnormals on their own: the uniform draw above rarely lands there */
    for (size_t i = 0; i < N; ++i) x[i] = from_bits(next(&state) & 0x800FFFFFFFFFFFFFull);
    expect_round_trip(x, N);
    free(x);
}

/* Values like the ones results hold: sums, products and quotients of short decimals,
 * trigonometric values, and numbers near powers of ten. */
Test(numbers, computed_values_round_trip_bitwise)
{
    enum { N = 100000 };
    double *x = malloc(N * sizeof *x);
    cr_assert_not_null(x);
    uint64_t state = 42;
    for (size_t i = 0; i < N; ++i) {
        double a = (double)(next(&state) % 100000) / 1000.0, b = (double)(next(&state) % 1000 + 1) / 100.0;
        switch (i % 5) {
        case 0: x[i] = a + b; break;
        case 1: x[i] = a * b; break;
        case 2: x[i] = a / b; break;
        case 3: x[i] = sin(a) * cos(b); break;
        default: x[i] = nextafter(pow(10.0, (double)((int)(next(&state) % 600) - 300)), (i & 8) ? INFINITY : 0.0);
        }
    }
    expect_round_trip(x, N);
    free(x);
}

/* The shortest form: what a person typed comes back as they typed it. */
Test(numbers, the_shortest_digits_that_round_trip)
{
    static const struct {
        double x;
        const char *text;
    } cases[] = {{0.1, "0.1"},    {0.25, "0.25"},   {3.0, "3"},          {-0.0, "-0"},
                 {1e300, "1e+300"}, {1e-5, "1e-05"}, {2.5e-7, "2.5e-07"},
                 {100.0, "100"},  {0.1 + 0.2, "0.30000000000000004"},   {1.0 / 3.0, "0.3333333333333333"},
                 {NAN, "null"},   {INFINITY, "null"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char text[40];
        sp_format_double(cases[i].x, text, sizeof text);
        cr_expect_str_eq(text, cases[i].text, "%.17g", cases[i].x);
    }
}

/* Where cJSON is exact, the text is byte for byte cJSON's (the layout of every result
 * file and summary is unchanged): nesting, empty containers, escapes, literals. */
Test(numbers, the_layout_is_cjsons)
{
    static const char doc[] =
        "{\"task\": \"plan\", \"n\": [1, -2.5, 1e+300, 0.125, 3e-05], \"e\": {}, \"a\": [], \"nested\": "
        "[{\"x\": {\"y\": [[], {}, [1, [2, []]]]}}, {}], \"s\": \"quote \\\" backslash \\\\ slash / tab \\t nl \\n "
        "cr \\r bs \\b ff \\f ctl \\u0001 del \\u007f utf8 \\u00e9\", \"t\": true, \"f\": false, \"z\": null, "
        "\"\": \"empty key\"}";
    cJSON *tree = cJSON_Parse(doc);
    cr_assert_not_null(tree);
    for (int formatted = 0; formatted <= 1; ++formatted) {
        char *ours = sp_json_print(tree, formatted, NULL);
        char *theirs = formatted ? cJSON_Print(tree) : cJSON_PrintUnformatted(tree);
        cr_expect_str_eq(ours, theirs, "formatted %d", formatted);
        free(ours);
        free(theirs);
    }
    cJSON_Delete(tree);
}

/* cJSON's printer loses bits (the reason for sp_json_print): logged, not asserted, so
 * that a cJSON that prints exactly one day does not fail the suite. */
Test(numbers, cjsons_own_printer_is_not_exact)
{
    cJSON *n = cJSON_CreateNumber(0.1 + 0.2);
    char *text = cJSON_PrintUnformatted(n);
    cr_log_info("cJSON prints 0.1 + 0.2 as %s", text);
    free(text);
    cJSON_Delete(n);
}

/* Through a result file: written by sp_output_commit, read back by the reader the
 * commands use. */
Test(numbers, result_files_round_trip_bitwise)
{
    char dir[PATH_SIZE], path[PATH_SIZE];
    sp_test_scratch_dir(dir, "numbers", "file");
    join(path, dir, "numbers.json");
    enum { N = 20000 };
    double x[N];
    uint64_t state = 7;
    for (size_t i = 0; i < N; ++i) {
        double v;
        do v = from_bits(next(&state));
        while (!isfinite(v));
        x[i] = v;
    }
    cJSON *root = cJSON_CreateObject();
    sp_json_add_rows(root, "rows", N / 4, 4, x, 4);
    sp_output out;
    char why[256];
    cr_assert_eq(sp_output_open(&out, path, why, sizeof why), SP_OK, "%s", why);
    cr_assert_eq(sp_output_commit(&out, root, why, sizeof why), SP_OK, "%s", why);
    cJSON_Delete(root);
    cJSON *doc;
    sp_input_error err;
    cr_assert_eq(sp_json_read_document(path, 1L << 30, &doc, &err), SP_OK, "%s", err.message);
    size_t i = 0;
    const cJSON *row, *v;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "rows")) cJSON_ArrayForEach(v, row)
    {
        cr_assert_lt(i, (size_t)N);
        cr_assert_eq(bits_of(v->valuedouble), bits_of(x[i]), "number %zu: %.17g read back as %.17g", i, x[i],
                     v->valuedouble);
        ++i;
    }
    cr_expect_eq(i, (size_t)N);
    cJSON_Delete(doc);
    remove_tree(dir);
}

/* ------------------------------------------------------- non-finite -- */

Test(numbers, non_finite_numbers_become_null_with_their_path)
{
    cJSON *root = cJSON_Parse("{\"status\": \"ok\", \"a\": 1, \"d\": {\"e\": 2, \"rows\": [[1, 2], [3, 4]]}}");
    cr_assert_not_null(root);
    cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "d"), "rows");
    cJSON_SetNumberValue(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 0), NAN);
    cJSON_SetNumberValue(cJSON_GetObjectItem(root, "a"), -INFINITY);
    cr_assert_eq(sp_json_count_nonfinite(root), 2);
    char first[160];
    cr_expect_eq(sp_json_nullify_nonfinite(root, first, sizeof first), 2);
    cr_expect_str_eq(first, "a");
    cr_expect_eq(sp_json_count_nonfinite(root), 0);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(root, "a")));
    cr_expect(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 0)));
    cJSON_Delete(root);

    root = cJSON_Parse("{\"d\": {\"rows\": [[1, 2], [3, 4]]}}");
    rows = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "d"), "rows");
    cJSON_SetNumberValue(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 1), INFINITY);
    cr_expect_eq(sp_json_nullify_nonfinite(root, first, sizeof first), 1);
    cr_expect_str_eq(first, "d.rows[1][1]");
    cJSON_Delete(root);
}

/* A result with a non-finite number is a failed result: the status says so, the
 * message names the first, and the tree can then be written. */
Test(numbers, a_non_finite_result_gets_the_status_non_finite)
{
    cJSON *root = cJSON_Parse("{\"task\": \"simulate\", \"status\": \"ok\", \"diagnostics\": {\"energy_error\": 1}}");
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "diagnostics"), "energy_error"), NAN);
    sp_result_refuse_nonfinite(root);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "status")), "non_finite");
    cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(root, "message")), "diagnostics.energy_error") != NULL);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "non_finite_values")), 1);
    cr_expect_eq(sp_json_count_nonfinite(root), 0);
    cr_expect_eq(sp_result_outcome(root), SP_OUTCOME_FAILED);
    /* the status stays the first member after "task", as it was */
    cr_expect_str_eq(root->child->next->string, "status");
    cJSON_Delete(root);

    /* a failure keeps its own status: it says more */
    root = cJSON_Parse("{\"status\": \"newton_failed\", \"message\": \"m\", \"x\": 1}");
    cJSON_SetNumberValue(cJSON_GetObjectItem(root, "x"), INFINITY);
    sp_result_refuse_nonfinite(root);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "status")), "newton_failed");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "message")), "m");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "non_finite_at")), "x");
    cJSON_Delete(root);
}

Test(numbers, outcomes_of_the_statuses)
{
    static const struct {
        const char *status;
        sp_outcome outcome;
    } cases[] = {{"converged", SP_OUTCOME_DONE},         {"ok", SP_OUTCOME_DONE},
                 {"stopval_reached", SP_OUTCOME_DONE},   {"stalled", SP_OUTCOME_STOPPED},
                 {"maxeval_reached", SP_OUTCOME_STOPPED}, {"maxtime_reached", SP_OUTCOME_STOPPED},
                 {"target_not_reached", SP_OUTCOME_STOPPED}, {"interrupted", SP_OUTCOME_INTERRUPTED},
                 {"newton_failed", SP_OUTCOME_FAILED},   {"singular_matrix", SP_OUTCOME_FAILED},
                 {"non_finite", SP_OUTCOME_FAILED},      {"optimizer_failed", SP_OUTCOME_FAILED},
                 {"something_new", SP_OUTCOME_FAILED}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "status", cases[i].status);
        cr_expect_eq(sp_result_outcome(r), cases[i].outcome, "%s", cases[i].status);
        char line[256];
        sp_result_explain(r, line, sizeof line);
        cr_expect(starts_with(line, cases[i].status), "%s: %s", cases[i].status, line);
        cr_expect_null(strchr(line, '\n'));
        cJSON_Delete(r);
    }
}
