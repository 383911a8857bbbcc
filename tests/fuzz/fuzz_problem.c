/* The libFuzzer harness over the whole file path (issue 7): a byte string is read as a
 * problem file under a small run budget and, when it validates, run through the one
 * dispatch of every task (sp_solve_json, so models added later are fuzzed without a
 * change here); its result is printed, read back and drawn. An input that is no
 * problem is tried as a study (expanded and validated, its first case run) and as a
 * result or summary for `plot` and `export`. Properties checked on every input, besides
 * what the sanitizers catch:
 *
 *   - a refused file has an error message;
 *   - a result has a status, no non-finite number, prints, and reads back equal, every
 *     number bitwise;
 *   - pictures and CSV of our own results hold no "nan" or "inf".
 *
 * `make fuzz` links this with -fsanitize=fuzzer,address,undefined; `make test` compiles
 * it into the test binary without libFuzzer and replays tests/fuzz/regress/ and
 * tests/fuzz/corpus/ through LLVMFuzzerTestOneInput (tests/test_fuzz.c). */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "planner/plot/sp_plot.h"
#include "problems/sp_json_packed.h"
#include "planner/sp_solve.h"
#include "planner/study/sp_study.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The budget of one input, so that each runs in milliseconds: the resource limits of
 * the file format, set low. */
static sp_limits fuzz_limits(void)
{
    sp_limits L = sp_limits_default();
    L.steps = 200;
    L.evaluations = 20;
    L.targets = 16;
    L.cases = 8;
    L.memory = 64.0 * 1024 * 1024;
    return L;
}

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_problem: property violated: %s (%s:%d)\n", #cond, __FILE__, __LINE__);               \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Two trees equal member for member, strings byte for byte, numbers bit for bit. */
static int same_tree(const cJSON *a, const cJSON *b)
{
    if ((a->type & 0xFF) != (b->type & 0xFF)) return 0;
    if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string) != 0)) return 0;
    if (cJSON_IsNumber(a)) return memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) == 0;
    if (cJSON_IsString(a)) return strcmp(a->valuestring, b->valuestring) == 0;
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        if (!same_tree(x, y)) return 0;
    return x == NULL && y == NULL;
}

/* "nan" or "inf" as a word of its own (any case) */
static int has_nonfinite_word(const char *text)
{
    for (const char *p = text; *p; ++p) {
        if (p != text && isalpha((unsigned char)p[-1])) continue;
        if ((strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) && !isalpha((unsigned char)p[3]))
            return 1;
    }
    return 0;
}

/* A result the library wrote: its status, its numbers, its text, its picture. */
static void check_result(cJSON *result)
{
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "status")));
    CHECK(sp_json_count_nonfinite(result) == 0);
    char line[512];
    sp_result_explain(result, line, sizeof line);
    CHECK(line[0] != '\0');
    for (int formatted = 0; formatted <= 1; ++formatted) {
        size_t length;
        char *text = sp_json_print(result, formatted, &length);
        if (!text) continue; /* out of memory */
        cJSON *back = cJSON_ParseWithLength(text, length);
        CHECK(back != NULL);
        CHECK(same_tree(result, back));
        cJSON_Delete(back);
        free(text);
    }
    char *svg = NULL, *csv = NULL;
    size_t csv_length = 0;
    sp_input_error err;
    if (sp_plot_result(result, &svg, &err) == SP_OK) CHECK(!has_nonfinite_word(svg));
    if (sp_export_csv(result, &csv, &csv_length, &err) == SP_OK) CHECK(!has_nonfinite_word(csv));
    free(svg);
    free(csv);
}

/* A run may take at most RUN_CPU_MICROSECONDS of processor time: then the stop flag of
 * sp_progress.h is raised, as by the command's SIGINT handler, and the task ends with
 * status "interrupted" (so the fuzzer exercises that path too). Legitimately long runs
 * (an endpoint search's continuation, an adaptive integrator asked for a tolerance of
 * 1e-18) stay within libFuzzer's -timeout; a loop that never checks the flag does not. */
#define RUN_CPU_MICROSECONDS 250000
static volatile sig_atomic_t run_stop;

static void on_run_budget(int sig)
{
    (void)sig;
    run_stop = 1;
}

static void arm_run_budget(void)
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_run_budget;
    sigemptyset(&act.sa_mask);
    sigaction(SIGVTALRM, &act, NULL);
    run_stop = 0;
    struct itimerval budget = {{0, 0}, {RUN_CPU_MICROSECONDS / 1000000, RUN_CPU_MICROSECONDS % 1000000}};
    setitimer(ITIMER_VIRTUAL, &budget, NULL);
}

static void disarm_run_budget(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_VIRTUAL, &off, NULL);
    run_stop = 0;
}

static cJSON *solve_within_budget(const sp_problem *pb)
{
    sp_progress progress = {.stop = &run_stop};
    arm_run_budget();
    cJSON *result = sp_solve_json(pb, &progress);
    disarm_run_budget();
    return result;
}

static void run_problem(const sp_problem *pb)
{
    cJSON *result = solve_within_budget(pb);
    if (!result) return; /* out of memory */
    check_result(result);
    cJSON_Delete(result);
}

/* A study with its base inline (a base named by path would read files of the machine). */
static void try_study(const char *text, size_t size, const cJSON *doc, const sp_limits *L)
{
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(doc, "base");
    if (!cJSON_IsObject(base)) return;
    sp_study *s = NULL;
    sp_study_error err;
    if (sp_study_parse_limited(text, size, NULL, L, &s, &err) != SP_OK) {
        CHECK(s == NULL);
        CHECK(err.input.message[0] != '\0');
        return;
    }
    CHECK(sp_study_case_count(s) >= 1 && sp_study_case_count(s) <= (size_t)L->cases);
    sp_study_summary *sum = sp_study_summary_new(s);
    cJSON *problem = sp_study_case_problem(s, 0, &err);
    char *problem_text = problem ? sp_json_print(problem, 0, NULL) : NULL;
    sp_problem pb;
    sp_input_error in;
    if (problem_text && sp_problem_parse_limited(problem_text, strlen(problem_text), L, &pb, &in) == SP_OK) {
        cJSON *result = solve_within_budget(&pb);
        if (result && sum) {
            cJSON_Delete(sp_result_detach_wall_clock(result));
            check_result(result);
            sp_study_summary_set_result(sum, 0, result, 0.5);
        }
        cJSON_Delete(result);
        sp_problem_free(&pb);
    }
    free(problem_text);
    cJSON_Delete(problem);
    if (sum && sp_study_case_count(s) > 1) sp_study_summary_set_failed(sum, 1, "fuzzed failure", 0.25);
    sp_study_summary_free(sum);
    sp_study_free(s);
}

/* Any JSON document as the input of `plot` and `export`. */
static void try_plot(const cJSON *doc)
{
    char *out = NULL;
    size_t length = 0;
    sp_input_error err;
    if (sp_plot_is_study_summary(doc)) {
        sp_study_plot_options opt = {0};
        if (sp_plot_study(doc, &opt, &out, &err) != SP_OK) CHECK(err.message[0] != '\0');
        free(out);
        out = NULL;
        opt.error = 1;
        if (sp_plot_study(doc, &opt, &out, &err) != SP_OK) CHECK(err.message[0] != '\0');
        free(out);
        return;
    }
    if (sp_plot_result(doc, &out, &err) != SP_OK) CHECK(err.message[0] != '\0');
    free(out);
    out = NULL;
    if (sp_export_csv(doc, &out, &length, &err) != SP_OK) CHECK(err.message[0] != '\0');
    free(out);
}

/* The same text read as the command reads results, its long arrays packed
 * (problems/sp_json_packed.h): the same picture and CSV as the whole tree, or the same
 * refusal at the same path. */
static void try_plot_packed(const char *text, size_t size, const cJSON *doc)
{
    cJSON *packed;
    sp_input_error err, packed_err;
    if (sp_json_parse_packed(text, size, sp_json_pack_result, 0.0, &packed, &err) != SP_OK) return;
    char *out = NULL, *packed_out = NULL;
    size_t length = 0, packed_length = 0;
    sp_status st = sp_plot_result(doc, &out, &err), packed_st = sp_plot_result(packed, &packed_out, &packed_err);
    if (st != SP_ERR_NOMEM && packed_st != SP_ERR_NOMEM) {
        CHECK(st == packed_st);
        CHECK(st != SP_OK || strcmp(out, packed_out) == 0);
        CHECK(st == SP_OK || (strcmp(err.path, packed_err.path) == 0 && strcmp(err.message, packed_err.message) == 0));
    }
    free(out), free(packed_out);
    out = packed_out = NULL;
    st = sp_export_csv(doc, &out, &length, &err);
    packed_st = sp_export_csv(packed, &packed_out, &packed_length, &packed_err);
    if (st != SP_ERR_NOMEM && packed_st != SP_ERR_NOMEM) {
        CHECK(st == packed_st);
        CHECK(st != SP_OK || (length == packed_length && memcmp(out, packed_out, length) == 0));
        CHECK(st == SP_OK || (strcmp(err.path, packed_err.path) == 0 && strcmp(err.message, packed_err.message) == 0));
    }
    free(out), free(packed_out);
    cJSON_Delete(packed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const sp_limits L = fuzz_limits();
    sp_problem pb;
    sp_input_error err;
    if (sp_problem_parse_limited(text, size, &L, &pb, &err) == SP_OK) {
        run_problem(&pb);
        sp_problem_free(&pb);
        return 0;
    }
    CHECK(err.message[0] != '\0');
    cJSON *doc;
    if (sp_json_parse_document(text, size, &doc, &err) != SP_OK) return 0;
    if (cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, "base"))
        try_study(text, size, doc, &L);
    else if (!sp_plot_is_study_summary(doc))
        try_plot(doc), try_plot_packed(text, size, doc);
    else
        try_plot(doc);
    cJSON_Delete(doc);
    return 0;
}
