/* The JSON text entry points for foreign callers (planner/sp_text_api.h): their codes,
 * the one error line (and its truncation), problems and studies told apart by check, the
 * stop flag of solve and study. The Python package's tests (python/tests/) drive them
 * further and compare with the command. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "planner/sp_text_api.h"

#include "tests/support.h"

#define HEISENBERG "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1], " \
                   "\"scheme\": \"gauss\", \"stages\": 2, \"h\": 0.1, \"steps\": %s}"

static const char *problem(const char *steps)
{
    static char text[512];
    snprintf(text, sizeof text, HEISENBERG, steps);
    return text;
}

/* A study over steps with the problem inline (no base file to find). */
static const char *study(const char *steps_list)
{
    static char text[1024];
    char base[512];
    snprintf(base, sizeof base, HEISENBERG, "10");
    snprintf(text, sizeof text, "{\"name\": \"t\", \"base\": %s, \"vary\": {\"steps\": %s}}", base, steps_list);
    return text;
}

Test(text_api, solve_returns_the_result)
{
    char *result = NULL, error[256] = "untouched";
    const char *text = problem("20");
    cr_assert_eq(sp_solve_text(text, strlen(text), NULL, &result, error, sizeof error), SP_TEXT_OK);
    cr_assert_not_null(result);
    cr_assert(strstr(result, "\"status\":\"ok\"") && strstr(result, "\"steps\":20"), "%s", result);
    cr_assert_str_eq(error, "untouched");
    sp_free_text(result);
    sp_free_text(NULL);
}

Test(text_api, bad_input_is_one_line_with_the_path)
{
    char *result = (char *)"not NULL", error[256];
    const char *text = problem("-1");
    cr_assert_eq(sp_solve_text(text, strlen(text), NULL, &result, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert_null(result);
    cr_assert(strncmp(error, "steps: ", 7) == 0, "%s", error);
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strncmp(error, "steps: ", 7) == 0, "%s", error);
    /* truncated, and terminated; no buffer at all is allowed */
    char tiny[5];
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, tiny, sizeof tiny), SP_TEXT_BAD_INPUT);
    cr_assert_str_eq(tiny, "step");
    cr_assert_eq(sp_check_text(text, strlen(text), NULL, NULL, 0), SP_TEXT_BAD_INPUT);
    cr_assert_eq(sp_check_text("{\"task\": ", 9, NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strstr(error, "malformed JSON at line 1"), "%s", error);
}

Test(text_api, check_tells_a_study_by_its_base)
{
    char error[256];
    const char *good = study("[10, 20]");
    cr_assert_eq(sp_check_text(good, strlen(good), NULL, error, sizeof error), SP_TEXT_OK);
    const char *bad = study("[10, 0]");
    cr_assert_eq(sp_check_text(bad, strlen(bad), NULL, error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert(strncmp(error, "cases[1]: steps: ", 17) == 0, "%s", error);
    const char *missing = "{\"base\": \"absent.json\", \"vary\": {\"steps\": [1]}}";
    cr_assert_eq(sp_check_text(missing, strlen(missing), "/nonexistent", error, sizeof error), SP_TEXT_BAD_INPUT);
    cr_assert_str_eq(error, "base: /nonexistent/absent.json: cannot read: No such file or directory");
}

Test(text_api, stop_flag)
{
    volatile sig_atomic_t stop = 1; /* set before the start: nothing runs */
    char *result = NULL, error[256];
    const char *text = problem("20");
    cr_assert_eq(sp_solve_text(text, strlen(text), &stop, &result, error, sizeof error), SP_TEXT_OK);
    cr_assert(strstr(result, "\"status\":\"interrupted\""), "%s", result);
    sp_free_text(result);

    char dir[PATH_SIZE], path[PATH_SIZE];
    sp_test_scratch_dir(dir, "text_api", "stop_flag");
    const char *s = study("[10, 20]");
    cr_assert_eq(sp_study_text(s, strlen(s), NULL, dir, &stop, error, sizeof error), SP_TEXT_INTERRUPTED);
    join(path, dir, "summary.json");
    cr_assert_eq(access(path, F_OK), 0, "the summary of a stopped study is written");
    join(path, dir, "case-0000.json");
    cr_assert_neq(access(path, F_OK), 0, "no case ran");
    stop = 0; /* the same call resumes */
    cr_assert_eq(sp_study_text(s, strlen(s), NULL, dir, &stop, error, sizeof error), SP_TEXT_OK);
    cr_assert_eq(access(path, F_OK), 0);
    remove_tree(dir);
}
