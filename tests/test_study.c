/* Studies (planner/study/sp_study.h and `symplan study`): field paths and overrides, the
 * expansion order of "vary", validation of every case before anything runs (exit 2,
 * one line naming the case and the JSON path, nothing written), a 12-case sweep equal to
 * 12 separate `symplan solve` runs, identical case files for -j 1 and -j 2, resuming
 * after deleted, corrupted and stale results and after a SIGKILL of the whole run,
 * progress only when asked, and MPI equal to the serial run (skipped without
 * build/symplan-mpi). The command runs as a child process in a scratch directory. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "planner/sp_solve.h"
#include "planner/study/sp_study.h"

#include "tests/support.h"

/* ------------------------------------------------------------- helpers -- */

static void scratch_dir(char *dir, const char *test) { sp_test_scratch_dir(dir, "study", test); }

static cJSON *parse(const char *text)
{
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "test JSON does not parse: %s", text);
    return doc;
}

static char *compact(const cJSON *node)
{
    char *text = cJSON_PrintUnformatted(node);
    cr_assert_not_null(text);
    return text;
}

static void case_path(char *out, const char *dir, size_t i)
{
    char name[64];
    sp_study_case_file(i, name, sizeof name);
    join(out, dir, name);
}

/* Case i's file is the same, byte for byte, in two output folders (`runs` names them). */
static void expect_same_case_file(const char *out1, const char *out2, size_t i, const char *runs)
{
    char p1[PATH_SIZE], p2[PATH_SIZE];
    case_path(p1, out1, i);
    case_path(p2, out2, i);
    char *a = slurp(p1), *b = slurp(p2);
    cr_expect_str_eq(a, b, "case %zu differs between %s", i, runs);
    free(a);
    free(b);
}

/* The 12-case sweep of data/sphere_interpolation.json, written into dir/name. */
static void write_sweep(const char *dir, const char *name, char *path)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{ \"name\": \"sweep\", \"base\": \"%s/sphere_interpolation.json\",\n"
             "  \"vary\": {\"steps\": [20, 40, 80], \"scheme\": [\"hohp_euler\", \"hohp_sv\"],\n"
             "            \"retraction\": [\"cayley\", \"exp\"]} }\n",
             SP_TEST_DATA);
    join(path, dir, name);
    write_text(path, text);
}

/* A result without what says where it came from: a study's "case" block, the "input" a
 * solve adds, and the wall-clock times. */
static char *comparable(cJSON *result)
{
    cJSON_DeleteItemFromObjectCaseSensitive(result, "case");
    cJSON_DeleteItemFromObjectCaseSensitive(result, "input");
    cJSON_Delete(sp_result_detach_wall_clock(result));
    return compact(result);
}

/* ------------------------------------------------- paths and overrides -- */

static void expect_set(cJSON *root, const char *path, const char *value_json)
{
    cJSON *value = parse(value_json);
    char why[256] = "";
    cr_expect_eq(sp_json_set_path(root, path, value, why, sizeof why), 0, "%s: %s", path, why);
    cJSON_Delete(value);
}

static void expect_set_fails(const char *path, const char *what)
{
    cJSON *root = parse("{\"a\": 1, \"o\": {\"x\": 1}, \"arr\": [1, 2]}");
    cJSON *value = parse("7");
    char why[256] = "";
    cr_expect_eq(sp_json_set_path(root, path, value, why, sizeof why), -1, "'%s' was accepted", path);
    cr_expect(strstr(why, what) != NULL, "'%s': message '%s' lacks '%s'", path, why, what);
    char *text = compact(root);
    cr_expect_str_eq(text, "{\"a\":1,\"o\":{\"x\":1},\"arr\":[1,2]}", "a failed set changed the tree");
    free(text);
    cJSON_Delete(value);
    cJSON_Delete(root);
}

Test(study, field_paths_replace_create_and_append)
{
    cJSON *root = parse("{\"a\": 1, \"o\": {\"x\": 1, \"y\": 2}, \"arr\": [{\"t\": 1}, {\"t\": 2}]}");
    expect_set(root, "a", "\"two\"");
    expect_set(root, "o.x", "[1, 2]");
    expect_set(root, "new.deep.k", "4");
    expect_set(root, "arr[1].t", "0.5");
    expect_set(root, "arr[2]", "{\"t\": 3}");
    expect_set(root, "o", "{\"z\": null}");
    char *text = compact(root);
    cr_expect_str_eq(text, "{\"a\":\"two\",\"o\":{\"z\":null},\"arr\":[{\"t\":1},{\"t\":0.5},{\"t\":3}],"
                           "\"new\":{\"deep\":{\"k\":4}}}");
    free(text);
    cJSON_Delete(root);

    expect_set_fails("arr[3]", "no element 3 in 'arr' (it has 2)");
    expect_set_fails("arr[2].t", "no element 2");
    expect_set_fails("a.b", "'a' is not an object");
    expect_set_fails("o[0]", "'o' is not an array");
    expect_set_fails("missing[0]", "no array 'missing'");
    expect_set_fails("new.deep[0].t", "no array 'new.deep'");
    expect_set_fails("o.y.z[1]", "no array 'o.y.z'");
    static const char *const malformed[] = {"",      ".a",   "a.",    "a..b", "a[",   "a[]",
                                            "a[-1]", "a[x]", "a[1]b", "[0]",  "a[ 1]"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; ++i) expect_set_fails(malformed[i], "malformed");
}

/* A small valid plan, inline. */
#define BASE_PLAN                                                                                                      \
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"y0\": [1, 0, 0], \"T\": 1, \"steps\": 10, "                   \
    "\"xi0\": [0, 0, 1], \"sigma\": 0.1, \"targets\": [{\"t\": 0.5, \"y\": [0, 1, 0]}, {\"t\": 1, \"y\": [0, 0, "      \
    "1]}], "                                                                                                           \
    "\"optimizer\": {\"algorithm\": \"LD_LBFGS\", \"maxeval\": 50}}"

static sp_study *study_from(const char *text, const char *base_dir)
{
    sp_study *s = NULL;
    sp_study_error err;
    sp_status st = sp_study_parse(text, strlen(text), base_dir, &s, &err);
    cr_assert_eq(st, SP_OK, "study rejected: case %ld, %s: %s", err.case_index, err.input.path, err.input.message);
    return s;
}

Test(study, vary_expands_as_nested_loops_first_key_outermost)
{
    sp_study *s = study_from("{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": [10, 20], "
                             "\"scheme\": [\"hohp_euler\", \"hohp_sv\", \"hohp_euler_adjoint\"]}}",
                             NULL);
    cr_assert_eq(sp_study_case_count(s), 6);
    static const char *const want[] = {"{\"steps\":10,\"scheme\":\"hohp_euler\"}",
                                       "{\"steps\":10,\"scheme\":\"hohp_sv\"}",
                                       "{\"steps\":10,\"scheme\":\"hohp_euler_adjoint\"}",
                                       "{\"steps\":20,\"scheme\":\"hohp_euler\"}",
                                       "{\"steps\":20,\"scheme\":\"hohp_sv\"}",
                                       "{\"steps\":20,\"scheme\":\"hohp_euler_adjoint\"}"};
    for (size_t i = 0; i < 6; ++i) {
        cJSON *values = sp_study_case_values(s, i);
        char *text = compact(values);
        cr_expect_str_eq(text, want[i], "case %zu", i);
        free(text);
        sp_study_error err;
        cJSON *problem = sp_study_case_problem(s, i, &err);
        cr_assert_not_null(problem);
        cr_expect(cJSON_Compare(cJSON_GetObjectItem(problem, "steps"), cJSON_GetObjectItem(values, "steps"), 1));
        cr_expect(cJSON_Compare(cJSON_GetObjectItem(problem, "scheme"), cJSON_GetObjectItem(values, "scheme"), 1));
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(problem, "targets")), 2, "the rest of the base is kept");
        cJSON_Delete(problem);
        cJSON_Delete(values);
    }
    char *params = compact(sp_study_parameters(s));
    cr_expect_str_eq(params, "[\"steps\",\"scheme\"]");
    free(params);
    cr_expect_null(sp_study_case_values(s, 6));
    sp_study_free(s);
}

Test(study, cases_override_nested_fields_and_keep_the_rest)
{
    sp_study *s = study_from("{\"name\": \"c\", \"base\": " BASE_PLAN ", \"cases\": [{\"steps\": 12}, "
                             "{\"optimizer.algorithm\": \"LD_MMA\", \"targets[0].t\": 0.25}, {}]}",
                             NULL);
    cr_assert_eq(sp_study_case_count(s), 3);
    cr_expect_str_eq(sp_study_name(s), "c");
    char *params = compact(sp_study_parameters(s));
    cr_expect_str_eq(params, "[\"steps\",\"optimizer.algorithm\",\"targets[0].t\"]");
    free(params);
    sp_study_error err;
    cJSON *p = sp_study_case_problem(s, 1, &err);
    cr_assert_not_null(p);
    char *text = compact(cJSON_GetObjectItem(p, "optimizer"));
    cr_expect_str_eq(text, "{\"algorithm\":\"LD_MMA\",\"maxeval\":50}");
    free(text);
    cr_expect_eq(
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "targets"), 0), "t")), 0.25);
    cJSON_Delete(p);
    /* the empty override is the base itself */
    cJSON *base = parse(BASE_PLAN);
    p = sp_study_case_problem(s, 2, &err);
    cr_expect(cJSON_Compare(p, base, 1));
    cJSON_Delete(p);
    cJSON_Delete(base);
    sp_study_free(s);
}

Test(study, a_relative_base_is_read_beside_the_study)
{
    sp_study *s = study_from("{\"base\": \"sphere_interpolation.json\", \"vary\": {\"steps\": [30]}}", SP_TEST_DATA);
    sp_study_error err;
    cJSON *p = sp_study_case_problem(s, 0, &err);
    cr_assert_not_null(p);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "steps")), 30);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p, "targets")), 4);
    cJSON_Delete(p);
    sp_study_free(s);
}

typedef struct bad_study {
    const char *text;
    long case_index;
    const char *path, *message;
} bad_study;

Test(study, every_case_is_validated_and_errors_name_the_case_and_path)
{
    static const bad_study bad[] = {
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"scheme\": [\"hohp_sv\"], \"steps\": [10, 0]}}", 1, "steps",
         "must be between"},
        {"{\"base\": " BASE_PLAN ", \"cases\": [{}, {}, {\"targets[5].t\": 0.5}]}", 2, "targets[5].t",
         "no element 5 in 'targets'"},
        {"{\"base\": " BASE_PLAN ", \"cases\": [{\"targets[1].t\": 3}]}", 0, "targets[1].t", "within"},
        {"{\"base\": " BASE_PLAN ", \"cases\": [{\"stepz\": 3}]}", 0, "stepz", "unknown field"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"optimizer.algorithm\": [\"LD_LBFGS\", \"LD_NOPE\"]}}", 1,
         "optimizer.algorithm", "unknown NLopt algorithm"},
        {"{\"base\": " BASE_PLAN ", \"cases\": [{\"a..b\": 1}]}", 0, "a..b", "malformed field path"},
        {"{\"base\": " BASE_PLAN ", \"cases\": [3]}", 0, "", "must be an object"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": []}}", -1, "vary.steps", "non-empty list"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": 10}}", -1, "vary.steps", "non-empty list"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {}}", -1, "vary", "must be an object"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": [10]}, \"cases\": [{}]}", -1, "cases", "not both"},
        {"{\"base\": " BASE_PLAN "}", -1, "vary", "give \"vary\" or \"cases\""},
        {"{\"vary\": {\"steps\": [10]}}", -1, "base", "missing required field"},
        {"{\"base\": 3, \"vary\": {\"steps\": [10]}}", -1, "base", "problem file's path or a problem object"},
        {"{\"base\": \"no-such-file.json\", \"vary\": {\"steps\": [10]}}", -1, "base", "cannot read"},
        {"{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": [10]}, \"colour\": 1}", -1, "colour", "unknown field"},
        {"{\"base\": " BASE_PLAN ", \"name\": 5, \"vary\": {\"steps\": [10]}}", -1, "name", "non-empty string"},
        {"[1, 2]", -1, "", "must be a JSON object"},
        {"{\"base\": ", -1, "", "malformed JSON"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        sp_study *s = (sp_study *)1;
        sp_study_error err;
        sp_status st = sp_study_parse(bad[k].text, strlen(bad[k].text), SP_TEST_TMP, &s, &err);
        cr_expect_neq(st, SP_OK, "bad study %zu accepted", k);
        cr_expect_null(s, "bad study %zu: no study is returned", k);
        cr_expect_eq(err.case_index, bad[k].case_index, "bad study %zu: case %ld", k, err.case_index);
        cr_expect_str_eq(err.input.path, bad[k].path, "bad study %zu", k);
        cr_expect(strstr(err.input.message, bad[k].message) != NULL, "bad study %zu: message '%s' lacks '%s'", k,
                  err.input.message, bad[k].message);
    }
}

/* In process: a case runs into its file, reads back as complete, is not taken for a
 * changed case, and the summary lists it. */
Test(study, case_files_are_recognised_only_for_the_same_problem)
{
    char dir[PATH_SIZE], why[512];
    scratch_dir(dir, "inproc");
    sp_study *s = study_from("{\"base\": " BASE_PLAN ", \"vary\": {\"steps\": [10, 12]}}", NULL);
    cr_assert_eq(sp_study_run_case(s, 1, dir, NULL, why, sizeof why), SP_OK, "%s", why);
    cr_expect_null(sp_study_load_case(s, 0, dir), "case 0 has not run");
    cJSON *result = sp_study_load_case(s, 1, dir);
    cr_assert_not_null(result);
    cJSON *block = cJSON_GetObjectItem(result, "case");
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(block, "index")), 1);
    char *values = compact(cJSON_GetObjectItem(block, "values"));
    cr_expect_str_eq(values, "{\"steps\":12}");
    free(values);
    cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "timing"), "plain_sweep_seconds"),
                   "wall-clock numbers stay out of case files");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "timing"), "plain_sweeps")));

    sp_study_summary *sum = sp_study_summary_new(s);
    cr_assert_not_null(sum);
    cr_expect_eq(sp_study_summary_set_result(sum, 1, result, 0.25), SP_OK);
    cr_expect_eq(sp_study_summary_set_failed(sum, 0, "it broke", NAN), SP_OK);
    cr_expect_eq(sp_study_summary_done(sum), 1);
    cr_expect_eq(sp_study_summary_failed(sum), 1);
    cr_assert_eq(sp_study_summary_write(sum, dir, why, sizeof why), SP_OK, "%s", why);
    sp_study_summary_free(sum);
    cJSON_Delete(result);

    char path[PATH_SIZE];
    join(path, dir, "summary.csv");
    char *csv = slurp(path);
    const char *header = "case,file,steps,status,wall_seconds,cost,";
    cr_expect(strncmp(csv, header, strlen(header)) == 0, "CSV header: %.200s", csv);
    cr_expect(strstr(csv, "\n0,case-0000.json,10,failed,,") != NULL, "%s", csv);
    cr_expect(strstr(csv, "\n1,case-0001.json,12,converged,0.25,") != NULL, "%s", csv);
    free(csv);
    join(path, dir, "summary.json");
    cJSON *summary = read_json(path);
    cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "rows"), 1);
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "cost")));
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "momentum_map_drift")), "diagnostics are in the row");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "terminal_residual.norm")));
    cr_expect_str_eq(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "rows"), 0), "error")),
        "it broke");
    cJSON_Delete(summary);
    sp_study_free(s);

    /* the same file under a changed study (another base) is stale */
    s = study_from("{\"base\": " BASE_PLAN ", \"cases\": [{\"steps\": 10}, {\"steps\": 12, \"sigma\": 0.2}]}", NULL);
    cr_expect_null(sp_study_load_case(s, 1, dir), "a result for another problem was reused");
    sp_study_free(s);
    remove_tree(dir);
}

/* ------------------------------------------------------------ the command -- */

/* Runs `symplan study file -o out [extra…]` and expects exit 0 with nothing on stderr. */
static void run_study(const char *dir, const char *file, const char *out, const char *jobs)
{
    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, "-j", jobs, NULL}, &r);
    cr_assert_eq(r.status, 0, "study failed: %s", r.err);
    cr_expect_str_empty(r.err, "quiet without -v when stderr is not a terminal");
    cr_expect_str_empty(r.out);
    run_free(&r);
}

/* Runs the example study data/studies/NAME with two workers in a scratch folder `dir`
 * for `test`, into the folder `out` (DIR/out). */
static cJSON *run_example_study(char *dir, const char *test, const char *name, char *out)
{
    char file[PATH_SIZE], studies[PATH_SIZE], summary[PATH_SIZE];
    scratch_dir(dir, test);
    join(studies, SP_TEST_DATA, "studies");
    join(file, studies, name);
    join(out, dir, "out");
    run_study(dir, file, out, "2");
    join(summary, out, "summary.json");
    return read_json(summary);
}

Test(study, twelve_cases_equal_twelve_solves_for_any_j, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out1[PATH_SIZE], out2[PATH_SIZE];
    scratch_dir(dir, "twelve");
    write_sweep(dir, "sweep.json", file);
    join(out1, dir, "j1");
    join(out2, dir, "j2/nested"); /* the output folder is created with its parents */
    run_study(dir, file, out1, "1");
    run_study(dir, file, out2, "2");

    char base_path[PATH_SIZE];
    join(base_path, SP_TEST_DATA, "sphere_interpolation.json");
    static const int steps[] = {20, 40, 80};
    static const char *const schemes[] = {"hohp_euler", "hohp_sv"}, *const retractions[] = {"cayley", "exp"};
    for (size_t i = 0; i < 12; ++i) {
        expect_same_case_file(out1, out2, i, "-j 1 and -j 2");
        char p1[PATH_SIZE];
        case_path(p1, out1, i);

        /* the same case by hand, solved on its own */
        cJSON *problem = read_json(base_path);
        cJSON_ReplaceItemInObject(problem, "steps", cJSON_CreateNumber(steps[i / 4]));
        cJSON_ReplaceItemInObject(problem, "scheme", cJSON_CreateString(schemes[i / 2 % 2]));
        cJSON_ReplaceItemInObject(problem, "retraction", cJSON_CreateString(retractions[i % 2]));
        char pfile[PATH_SIZE], rfile[PATH_SIZE];
        join(pfile, dir, "problem.json");
        join(rfile, dir, "solved.json");
        write_json(pfile, problem);
        run_result r;
        run(dir, (const char *[]){"solve", pfile, "-o", rfile, NULL}, &r);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);

        cJSON *study_result = read_json(p1), *solved = read_json(rfile);
        cJSON *block = cJSON_GetObjectItem(study_result, "case");
        cr_expect(cJSON_Compare(cJSON_GetObjectItem(block, "problem"), problem, 1), "case %zu: problem differs", i);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(block, "index")), (double)i);
        char *x = comparable(study_result), *y = comparable(solved);
        cr_expect_str_eq(x, y, "case %zu differs from its solve", i);
        free(x);
        free(y);
        cJSON_Delete(study_result);
        cJSON_Delete(solved);
        cJSON_Delete(problem);
    }

    char path[PATH_SIZE];
    join(path, out2, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 12);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "failed")), 0);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(summary, "study")), "sweep");
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(summary, "rows"))
    {
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "status")), "converged");
        cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "wall_seconds")));
    }
    cJSON_Delete(summary);
    join(path, out2, "summary.csv");
    char *csv = slurp(path);
    int lines = 0;
    for (const char *c = csv; *c; ++c) lines += *c == '\n';
    cr_expect_eq(lines, 13, "a header and 12 rows");
    cr_expect(strncmp(csv, "case,file,steps,scheme,retraction,status,wall_seconds,", 54) == 0, "%.100s", csv);
    free(csv);
    cr_expect_eq(count_named(out1, ".tmp-"), 0);
    cr_expect_eq(count_named(out2, ".tmp-"), 0);
    remove_tree(dir);
}

typedef struct file_id {
    ino_t ino;
    struct timespec mtime;
} file_id;

static int file_identity(const char *path, file_id *id)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    id->ino = st.st_ino;
    id->mtime = st.st_mtim;
    return 0;
}

static int same_file(const file_id *a, const file_id *b)
{
    return a->ino == b->ino && a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* Writes DIR/NAME, a study of the sphere interpolation over the steps listed (`steps`:
 * the inside of the JSON list), its path into file, and its output folder DIR/out into out. */
static void write_steps_study(const char *dir, const char *name, const char *steps, char *file, char *out)
{
    char text[1024];
    join(file, dir, name);
    join(out, dir, "out");
    snprintf(text, sizeof text, "{\"base\": \"%s/sphere_interpolation.json\", \"vary\": {\"steps\": [%s]}}",
             SP_TEST_DATA, steps);
    write_text(file, text);
}

/* Which of the first n case files are in out (have[i], kept[i] their identity); returns
 * how many. */
static int cases_present(const char *out, int n, file_id *kept, int *have)
{
    char path[PATH_SIZE];
    int done = 0;
    for (int i = 0; i < n; ++i) {
        case_path(path, out, (size_t)i);
        have[i] = file_identity(path, &kept[i]) == 0;
        done += have[i];
    }
    return done;
}

/* Runs the stopped study of n cases again (with -j jobs unless NULL, and -v): it says
 * that the `done` cases had a result already and the rest are to run, ends with every
 * case file there, and leaves those present before untouched. */
static void expect_resumed(const char *dir, const char *file, const char *out, const char *jobs, int n, int done,
                           const file_id *kept, const int *have)
{
    run_result r;
    if (jobs)
        run(dir, (const char *[]){"study", file, "-o", out, "-j", jobs, "-v", NULL}, &r);
    else
        run(dir, (const char *[]){"study", file, "-o", out, "-v", NULL}, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char expect[64], path[PATH_SIZE];
    snprintf(expect, sizeof expect, "%d with a result already, %d to run", done, n - done);
    cr_expect(strstr(r.err, expect) != NULL, "-v does not say '%s':\n%s", expect, r.err);
    run_free(&r);
    for (int i = 0; i < n; ++i) {
        case_path(path, out, (size_t)i);
        file_id now;
        cr_assert_eq(file_identity(path, &now), 0, "case %d missing", i);
        if (have[i]) cr_expect(same_file(&kept[i], &now), "case %d was computed again", i);
    }
}

static const char resume_study[] =
    "{\"base\": \"%s/sphere_interpolation.json\", \"cases\": [{\"steps\": 20}, {\"steps\": 24}, {\"steps\": 28}, "
    "{\"steps\": 32}, {\"steps\": 36}, {\"steps\": %d}]}";

/* The resume study (last case of `last` steps) written into a scratch folder `test` and
 * run with `jobs` workers into dir/out. */
static void run_resume_study(char *dir, const char *test, char *file, char *out, int last, const char *jobs)
{
    char text[1024];
    scratch_dir(dir, test);
    join(file, dir, "cases.json");
    join(out, dir, "out");
    snprintf(text, sizeof text, resume_study, SP_TEST_DATA, last);
    write_text(file, text);
    run_study(dir, file, out, jobs);
}

Test(study, resume_recomputes_only_missing_corrupt_and_stale_cases, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], text[1024], path[PATH_SIZE];
    run_resume_study(dir, "resume", file, out, 40, "2");

    file_id before[6], after[6];
    char *original[6];
    for (size_t i = 0; i < 6; ++i) {
        case_path(path, out, i);
        cr_assert_eq(file_identity(path, &before[i]), 0);
        original[i] = slurp(path);
    }
    /* case 1 deleted, case 3 cut short, case 5 changed in the study, a temporary left */
    case_path(path, out, 1);
    unlink(path);
    case_path(path, out, 3);
    cr_assert_eq(truncate(path, (off_t)(strlen(original[3]) / 2)), 0);
    cr_assert_eq(file_identity(path, &before[3]), 0);
    snprintf(text, sizeof text, resume_study, SP_TEST_DATA, 44);
    write_text(file, text);
    join(path, out, "case-0004.json.tmp-AbCdEf");
    write_text(path, "{\"partial\":");
    struct timespec pause = {0, 20 * 1000 * 1000}; /* so that a rewritten file gets another mtime */
    nanosleep(&pause, NULL);

    run_study(dir, file, out, "2");
    for (size_t i = 0; i < 6; ++i) {
        case_path(path, out, i);
        cr_assert_eq(file_identity(path, &after[i]), 0, "case %zu missing after the resume", i);
        int recomputed = !same_file(&before[i], &after[i]);
        cr_expect_eq(recomputed, i == 1 || i == 3 || i == 5, "case %zu %s", i,
                     recomputed ? "was recomputed needlessly" : "was not recomputed");
        char *now = slurp(path);
        if (i != 5) cr_expect_str_eq(now, original[i], "case %zu is not what the first run wrote", i);
        if (i == 5) cr_expect_str_neq(now, original[i], "case 5 is still the stale result");
        free(now);
        free(original[i]);
    }
    cr_expect_eq(count_named(out, ".tmp-"), 0, "the stale temporary file was not removed");
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 6);
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(summary, "rows"))
        cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "wall_seconds")), "a reused case keeps its wall time");
    cJSON_Delete(summary);
    remove_tree(dir);
}

/* A whole run (the command and its workers) killed mid-way leaves only complete case
 * files; the rerun computes the rest and keeps those. */
Test(study, a_killed_study_resumes, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    scratch_dir(dir, "kill");
    /* cases of about a tenth of a second each, one at a time */
    write_steps_study(dir, "slow.json", "2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007", file, out);
    pid_t pid = start(dir, NULL, (const char *[]){"study", file, "-o", out, "-j", "1", NULL}, 1);
    struct timespec tick = {0, 1000 * 1000};
    int seen = 0;
    for (int waited = 0; waited < 60000 && seen < 2; ++waited) {
        nanosleep(&tick, NULL);
        seen = count_named(out, ".json") - count_named(out, ".tmp-") - count_named(out, "summary.");
    }
    cr_assert_geq(seen, 2, "no case finished within a minute");
    cr_assert_eq(kill(-pid, SIGKILL), 0);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_expect(WIFSIGNALED(ws), "the study ended before it was killed");

    file_id kept[8];
    int have[8];
    const int done = cases_present(out, 8, kept, have);
    for (size_t i = 0; i < 8; ++i) {
        if (!have[i]) continue;
        case_path(path, out, i);
        cJSON *doc = read_json(path); /* every file there is complete */
        cr_expect(cJSON_IsString(cJSON_GetObjectItem(doc, "status")));
        cJSON_Delete(doc);
    }
    cr_log_info("killed after %d of 8 cases", done);
    cr_expect(done >= 2 && done < 8, "%d cases done when killed", done);

    expect_resumed(dir, file, out, NULL, 8, done, kept, have);
    cr_expect_eq(count_named(out, ".tmp-"), 0);
    remove_tree(dir);
}

/* The children of process `parent` (found in /proc by their parent's pid), at most `max`. */
static int children_of(pid_t parent, pid_t *kids, int max)
{
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    int n = 0;
    const struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* gone meanwhile */
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = '\0';
        const char *paren = strrchr(buf, ')'); /* the command name may hold anything */
        long ppid;
        char state;
        if (paren && sscanf(paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)parent)
            kids[n++] = (pid_t)atol(de->d_name);
    }
    closedir(d);
    return n;
}

/* How the case of a worker that took SIGSEGV fails: AddressSanitizer (`make asan`, which
 * builds the command as it builds the tests) catches the signal, reports it and exits 1. */
#if defined(__SANITIZE_ADDRESS__)
#define CRASHED_WORKER "the worker exited with status 1"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRASHED_WORKER "the worker exited with status 1"
#endif
#endif
#ifndef CRASHED_WORKER
#define CRASHED_WORKER "the worker was killed by signal 11"
#endif

/* A worker runs case after case; one that crashes in the middle of a case (SIGSEGV from
 * outside, as a bug would) loses that case only: it is recorded as failed with the
 * signal, a new worker runs the cases after it, and the rerun computes it alone. */
Test(study, a_crashed_worker_fails_its_case_only, .timeout = 120)
{
    if (access("/proc/self/stat", R_OK) != 0) cr_skip_test("no /proc to find the worker in");
    if (getenv("SP_TEST_VALGRIND") && getenv("SP_TEST_VALGRIND")[0])
        cr_skip_test("the signal would reach valgrind, not the worker's code");
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the crash is on purpose */
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    scratch_dir(dir, "crash");
    /* case 1 runs for a second or more; the others for some milliseconds */
    write_steps_study(dir, "crash.json", "300, 40000, 310, 320, 330", file, out);
    pid_t pid = start(dir, NULL, (const char *[]){"study", file, "-o", out, "-j", "1", NULL}, 1);
    struct timespec tick = {0, 1000 * 1000};
    for (int waited = 0; waited < 60000 && count_named(out, "case-0001.json.tmp-") == 0; ++waited)
        nanosleep(&tick, NULL);
    cr_assert_eq(count_named(out, "case-0001.json.tmp-"), 1, "case 1 did not start within a minute");
    pid_t kids[4];
    cr_assert_eq(children_of(pid, kids, 4), 1, "-j 1 runs one worker");
    cr_assert_eq(kill(kids[0], SIGSEGV), 0);
    run_result r;
    finish(dir, pid, &r);
    cr_expect_eq(r.status, 1, "a failed case is exit 1: %s", r.err);
    cr_expect(strstr(r.err, "1 of 5 cases failed"), "%s", r.err);
    run_free(&r);
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 4);
    const cJSON *rows = cJSON_GetObjectItem(summary, "rows");
    for (int i = 0; i < 5; ++i) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(row, "status"));
        cr_expect_str_eq(status, i == 1 ? "failed" : "converged", "case %d", i);
        if (i == 1) cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "error")), CRASHED_WORKER);
    }
    cJSON_Delete(summary);
    case_path(path, out, 1);
    cr_expect_neq(access(path, F_OK), 0, "the crashed case has a file");
    cr_expect_eq(count_named(out, ".tmp-"), 0);

    run(dir, (const char *[]){"study", file, "-o", out, "-j", "2", "-v", NULL}, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "4 with a result already, 1 to run"), "%s", r.err);
    run_free(&r);
    cr_expect_eq(access(path, F_OK), 0, "the rerun did not compute case 1");
    remove_tree(dir);
}

/* --max-seconds stops a study as SIGTERM does, but with exit status 3: the cases
 * finished are kept, the summary lists them, nothing temporary is left, and the same
 * command without the budget ends the study, computing only the rest. */
Test(study, max_seconds_stops_the_study_and_it_resumes, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    scratch_dir(dir, "max_seconds");
    /* cases of about a tenth of a second each: more than 0.4 s of work on two workers */
    write_steps_study(dir, "slow.json",
                      "3000, 3001, 3002, 3003, 3004, 3005, 3006, 3007, 3008, 3009, 3010, 3011, 3012, 3013, 3014, 3015",
                      file, out);
    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, "-j", "2", "--max-seconds", "0.4", NULL}, &r);
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(is_one_line(r.err), "%s", r.err);
    cr_expect(strstr(r.err, "stopped after --max-seconds 0.4 with ") &&
                  strstr(r.err, " of 16 cases done; the same command resumes the study"),
              "%s", r.err);
    run_free(&r);
    cr_expect_eq(count_named(out, ".tmp-"), 0, "temporary files left");
    file_id kept[16];
    int have[16];
    const int done = cases_present(out, 16, kept, have);
    cr_expect_lt(done, 16, "the study ran to its end within 0.4 s");
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), done);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "failed")), 0, "a case cut short failed");
    cJSON_Delete(summary);

    expect_resumed(dir, file, out, "2", 16, done, kept, have);
    remove_tree(dir);
}

Test(study, a_bad_case_fails_up_front_and_writes_nothing)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], text[1024], expect[PATH_SIZE + 128];
    scratch_dir(dir, "bad");
    join(file, dir, "bad.json");
    join(out, dir, "out");
    snprintf(text, sizeof text,
             "{\"base\": \"%s/sphere_interpolation.json\", \"vary\": {\"scheme\": [\"hohp_sv\"], "
             "\"steps\": [20, 40, 0, 80]}}",
             SP_TEST_DATA);
    write_text(file, text);
    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect(is_one_line(r.err), "not one line: %s", r.err);
    snprintf(expect, sizeof expect, "%s: cases[2]: steps: must be between", file);
    cr_expect(strncmp(r.err, expect, strlen(expect)) == 0, "stderr: %s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "the output folder was created");

    /* an existing output folder is left as it was */
    cr_assert_eq(mkdir(out, 0755), 0);
    snprintf(text, sizeof text,
             "{\"base\": \"%s/sphere_interpolation.json\", \"cases\": [{\"steps\": 20}, {\"targets[7].t\": 0.5}]}",
             SP_TEST_DATA);
    write_text(file, text);
    run(dir, (const char *[]){"study", file, "-o", out, "-j", "2", NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect(is_one_line(r.err), "not one line: %s", r.err);
    snprintf(expect, sizeof expect, "%s: cases[1]: targets[7].t: no element 7 in 'targets'", file);
    cr_expect(strncmp(r.err, expect, strlen(expect)) == 0, "stderr: %s", r.err);
    run_free(&r);
    cr_expect_eq(count_named(out, "."), 2, "files appeared in the output folder"); /* . and .. */

    /* bad arguments */
    static const char *const usages[][8] = {
        {"study", NULL},
        {"study", "x.json", NULL},
        {"study", "x.json", "-o", "d", "-j", "0", NULL},
        {"study", "x.json", "-o", "d", "-j", "two", NULL},
        {"study", "x.json", "-o", "d", "--frobnicate", NULL},
    };
    for (size_t k = 0; k < sizeof usages / sizeof usages[0]; ++k) {
        run(dir, usages[k], &r);
        cr_expect_eq(r.status, 2, "arguments %zu", k);
        run_free(&r);
    }
    remove_tree(dir);
}

/* A case whose file cannot be written fails alone: the others are kept, its row says
 * why, and the command exits 1 with one line. */
Test(study, a_case_that_cannot_be_written_fails_alone)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE], expect[2 * PATH_SIZE + 64];
    scratch_dir(dir, "fail");
    write_steps_study(dir, "three.json", "20, 30, 40", file, out);
    cr_assert_eq(mkdir(out, 0755), 0);
    case_path(path, out, 1);
    cr_assert_eq(mkdir(path, 0755), 0); /* case-0001.json is a folder */
    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, 1);
    cr_expect(is_one_line(r.err), "not one line: %s", r.err);
    snprintf(expect, sizeof expect, "%s: 1 of 3 cases failed (see %s/summary.json)\n", file, out);
    cr_expect_str_eq(r.err, expect);
    run_free(&r);
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 2);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "failed")), 1);
    const cJSON *rows = cJSON_GetObjectItem(summary, "rows");
    for (int i = 0; i < 3; ++i) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "status")), i == 1 ? "failed" : "converged");
    }
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "error"));
    cr_expect(why && strstr(why, "case-0001.json"), "the failure does not say which file: %s", why ? why : "(none)");
    cJSON_Delete(summary);
    remove_tree(dir);
}

Test(study, progress_only_when_asked)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], text[PATH_SIZE + 256], result[PATH_SIZE], problem[PATH_SIZE];
    scratch_dir(dir, "progress");
    join(problem, SP_TEST_DATA, "sphere_interpolation.json");
    join(result, dir, "r.json");
    run_result r;
    run(dir, (const char *[]){"solve", problem, "-o", result, "-v", NULL}, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "evaluation 1: cost ") != NULL, "no first evaluation in: %s", r.err);
    cr_expect(strstr(r.err, "|gradient| ") != NULL, "%s", r.err);
    /* the last line is the last evaluation, at the optimum of instance A (data/sphere_interpolation.json) */
    const char *last = r.err + strlen(r.err);
    while (last > r.err && last[-1] == '\n') --last;
    while (last > r.err && last[-1] != '\n') --last;
    cr_expect(strncmp(last, "evaluation ", 11) == 0 && strstr(last, ": cost 2.0659080184") != NULL,
              "the last line is not the last evaluation at the optimum: %s", last);
    run_free(&r);
    run(dir, (const char *[]){"solve", problem, "-o", result, NULL}, &r);
    cr_expect_str_empty(r.err, "progress without -v to a file");
    run_free(&r);

    join(file, dir, "two.json");
    join(out, dir, "out");
    snprintf(text, sizeof text, "{\"base\": \"%s\", \"vary\": {\"steps\": [20, 30]}}", problem);
    write_text(file, text);
    run(dir, (const char *[]){"study", file, "-o", out, "-v", "-j", "1", NULL}, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "two: 2 cases, 0 with a result already, 2 to run\n") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "[1/2] case 0 (steps=20): converged in ") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "about ") != NULL, "no estimate of the time left: %s", r.err);
    cr_expect(strstr(r.err, "[2/2] case 1 (steps=30): converged in ") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "two: 2 of 2 cases done, 0 failed, 2 computed in ") != NULL, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
}

/* The example of the README and docs/studies.md: data/studies/convergence.json, whose
 * costs converge at the order of each scheme. */
Test(study, the_convergence_example_converges_at_the_orders_of_the_schemes, .timeout = 120)
{
    char dir[PATH_SIZE], out[PATH_SIZE];
    cJSON *summary = run_example_study(dir, "convergence", "convergence.json", out);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(summary, "study")), "convergence");
    cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 10);
    const cJSON *rows = cJSON_GetObjectItem(summary, "rows");
    static const char *const schemes[] = {"hohp_euler", "hohp_sv"};
    static const int steps[] = {50, 100, 200, 400, 800};
    for (int s = 0; s < 2; ++s) {
        double J[5];
        for (int k = 0; k < 5; ++k) {
            const cJSON *row = cJSON_GetArrayItem(rows, 5 * s + k);
            const cJSON *values = cJSON_GetObjectItem(row, "values");
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(values, "scheme")), schemes[s]);
            cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(values, "steps")), steps[k]);
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "status")), "converged");
            J[k] = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "cost"));
        }
        double order = log2((J[2] - J[3]) / (J[3] - J[4]));
        cr_log_info("%s: observed order %.3f", schemes[s], order);
        cr_expect(fabs(order - (s + 1)) < 0.05, "%s converges at order %.3f", schemes[s], order);
    }
    cJSON_Delete(summary);
    remove_tree(dir);
}

/* The comparison of Chang, Perlmutter & Vankerschaver (2022) (checks D4–D5 of
 * test_feedback.c) from its one command: the summary table has four columns, the maxima
 * of ||q|² − l²|, |q·p|, |H − H0| and |L3 − L3(0)|, one row per method, with the values an
 * independent Python implementation gives. */
Test(study, the_pendulum_comparison_gives_the_four_column_table, .timeout = 120)
{
    char dir[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    cJSON *summary = run_example_study(dir, "pendulum", "pendulum_comparison.json", out);
    join(path, out, "summary.csv");
    char *csv = slurp(path);
    static const char *const columns[] = {"q_squared_drift", "q_dot_p_drift", "energy_error", "L3_drift"};
    char *nl = strchr(csv, '\n');
    cr_assert_not_null(nl);
    *nl = '\0';
    int col[4];
    for (int c = 0; c < 4; ++c) { /* the column index of each figure in the header */
        col[c] = -1;
        int k = 0;
        for (const char *f = csv; f; f = strchr(f, ','), f = f ? f + 1 : NULL, ++k) {
            size_t len = strcspn(f, ",");
            if (len == strlen(columns[c]) && strncmp(f, columns[c], len) == 0) col[c] = k;
        }
        cr_expect_geq(col[c], 0, "summary.csv has no column %s: %s", columns[c], csv);
    }
    free(csv);
    const cJSON *rows = cJSON_GetObjectItem(summary, "rows");
    cr_assert_eq(cJSON_GetArraySize(rows), 4);
    /* bounds: D4 (feedback + Euler ≤ 1e-4 each) and D5 of test_feedback.c, energy as measured ×1.5 */
    static const struct {
        const char *scheme;
        double bound[4], floor[4];
    } expect[] = {
        {"feedback_euler", {1e-4, 1e-4, 1e-4, 1e-4}, {1e-6, 1e-6, 1e-6, 1e-6}},
        {"rattle", {1e-14, 1e-14, 1.05e-6, 1e-11}, {0, 0, 1e-7, 0}},
        {"lie_trotter", {1e-12, 1e-12, 2e-3, 1e-11}, {0, 0, 5e-4, 0}},
        {"strang", {1e-12, 1e-12, 1e-6, 1e-11}, {0, 0, 1e-7, 0}},
    };
    for (int r = 0; r < 4; ++r) {
        const cJSON *row = cJSON_GetArrayItem(rows, r);
        cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(row, "values"), "scheme")),
                         expect[r].scheme);
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "status")), "ok");
        for (int c = 0; c < 4; ++c) {
            const cJSON *x = cJSON_GetObjectItem(row, columns[c]);
            cr_assert(cJSON_IsNumber(x), "%s: no %s", expect[r].scheme, columns[c]);
            cr_log_info("%-15s %-16s %.2e", expect[r].scheme, columns[c], x->valuedouble);
            cr_expect(x->valuedouble <= expect[r].bound[c] && x->valuedouble >= expect[r].floor[c],
                      "%s: %s = %.3e outside [%.1e, %.1e]", expect[r].scheme, columns[c], x->valuedouble,
                      expect[r].floor[c], expect[r].bound[c]);
        }
    }
    cJSON_Delete(summary);
    remove_tree(dir);
}

/* ----------------------------------------------------------- the log -- */

/* FNV-1a of n bytes, as the log's 16 hex digits. */
static void fnv1a_hex(const char *text, size_t n, char out[17])
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; ++k) {
        h ^= (unsigned char)text[k];
        h *= 0x100000001b3ull;
    }
    snprintf(out, 17, "%016llx", h);
}

/* Checks that DIR/cases.log holds only intact records (JSON, a space, its FNV-1a, a
 * newline) and returns how many; hits[i] counts the records of case i. */
static int intact_records(const char *out, int *hits, int n_cases)
{
    char path[PATH_SIZE];
    join(path, out, SP_STUDY_LOG_FILE);
    char *text = slurp(path);
    size_t length = strlen(text);
    cr_assert(length == 0 || text[length - 1] == '\n', "the log ends in a torn record");
    int n = 0;
    for (char *line = text, *end; *line; line = end + 1, ++n) {
        end = strchr(line, '\n');
        size_t len = (size_t)(end - line);
        cr_assert_gt(len, 17, "record %d is too short", n);
        char check[17];
        fnv1a_hex(line, len - 17, check);
        cr_assert(line[len - 17] == ' ' && strncmp(line + len - 16, check, 16) == 0, "record %d is damaged: %.*s", n,
                  (int)len, line);
        cJSON *rec = cJSON_ParseWithLength(line, len - 17);
        double i = cJSON_GetNumberValue(cJSON_GetObjectItem(rec, "case"));
        cr_assert(i >= 0 && i < n_cases, "record %d names case %g", n, i);
        hits[(int)i]++;
        cJSON_Delete(rec);
    }
    free(text);
    return n;
}

/* The bookkeeping of a case costs the same however many cases the study has: one record
 * appended to the log, while the summary (all rows) is written only at the start and at
 * the end. The folder is watched while 2000 trivial cases run: no more than those two
 * versions of summary.json may ever be seen (rewritten after every case, as it once was,
 * it shows hundreds). Time is not measured here: `make bench` reports it. */
Test(study, bookkeeping_appends_one_record_per_case_and_writes_the_summary_twice, .timeout = 300)
{
    if (getenv("SP_TEST_VALGRIND") && getenv("SP_TEST_VALGRIND")[0])
        cr_skip_test("2000 processes under valgrind take too long (the other study tests run the same code)");
    enum { N = 2000 };
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    scratch_dir(dir, "linear");
    join(file, dir, "trivial.json");
    join(out, dir, "out");
    /* one value list of N entries: the study also must not walk it to each case */
    size_t size = 256 + 16 * (size_t)N;
    char *text = malloc(size), *at = text;
    at += snprintf(at, size, "{\"base\": \"%s/heisenberg.json\", \"vary\": {\"steps\": [5], \"h\": [", SP_TEST_DATA);
    for (int k = 0; k < N; ++k) at += snprintf(at, size - (size_t)(at - text), "%s%.6f", k ? ", " : "", 0.1 + 1e-6 * k);
    snprintf(at, size - (size_t)(at - text), "]}}");
    write_text(file, text);
    free(text);

    pid_t pid = start(dir, NULL, (const char *[]){"study", file, "-o", out, "-j", "2", NULL}, 0);
    join(path, out, "summary.json");
    struct stat seen[8];
    int versions = 0, ws = 0;
    while (waitpid(pid, &ws, WNOHANG) == 0) {
        struct stat st;
        if (stat(path, &st) == 0) {
            int known = 0;
            for (int k = 0; k < versions && k < 8; ++k)
                known |= seen[k].st_ino == st.st_ino && seen[k].st_mtim.tv_sec == st.st_mtim.tv_sec &&
                         seen[k].st_mtim.tv_nsec == st.st_mtim.tv_nsec;
            if (!known && versions++ < 8) seen[versions - 1] = st;
        }
        struct timespec tick = {0, 200 * 1000};
        nanosleep(&tick, NULL);
    }
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the study failed (%#x)", ws);
    cr_expect_leq(versions, 2, "summary.json was written %d times or more while %d cases ran", versions, N);

    static int hits[N];
    memset(hits, 0, sizeof hits);
    cr_expect_eq(intact_records(out, hits, N), N, "not one record per case");
    for (int i = 0; i < N; ++i) cr_expect_eq(hits[i], 1, "case %d has %d records", i, hits[i]);
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), N);
    cJSON_Delete(summary);
    remove_tree(dir);
}

/* A kill -9 while a record is being appended leaves it torn: the resumed run ignores it,
 * cuts it off, and decides that case from its file (there: kept; gone: computed again). */
Test(study, a_record_torn_by_a_kill_is_ignored_on_resume, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], path[PATH_SIZE];
    run_resume_study(dir, "torn", file, out, 40, "1");
    join(path, out, "summary.json");
    cJSON *reference = read_json(path);
    cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(reference, "rows")) cJSON_DeleteItemFromObject(row, "wall_seconds");
    file_id before[6];
    for (size_t i = 0; i < 6; ++i) {
        case_path(path, out, i);
        cr_assert_eq(file_identity(path, &before[i]), 0);
    }

    for (int round = 0; round < 2; ++round) {
        /* round 0: the last record cut in the middle, its case file kept (the kill came
         * after the rename); round 1: a record begun for case 2, whose file then went */
        char log_path[PATH_SIZE];
        join(log_path, out, SP_STUDY_LOG_FILE);
        char *log = slurp(log_path);
        size_t length = strlen(log);
        if (round == 0) {
            const char *last = log + length - 1;
            while (last > log && last[-1] != '\n') --last;
            cr_assert_eq(truncate(log_path, (off_t)(last - log + (log + length - last) / 2)), 0);
        } else {
            FILE *f = fopen(log_path, "a");
            fputs("{\"case\":2,\"input_hash\":\"0123", f);
            fclose(f);
            case_path(path, out, 2);
            cr_assert_eq(unlink(path), 0);
        }
        free(log);

        run_result r;
        run(dir, (const char *[]){"study", file, "-o", out, "-v", NULL}, &r);
        cr_assert_eq(r.status, 0, "round %d: %s", round, r.err);
        const char *expect = round == 0 ? "6 with a result already, 0 to run" : "5 with a result already, 1 to run";
        cr_expect(strstr(r.err, expect) != NULL, "round %d: -v does not say '%s':\n%s", round, expect, r.err);
        run_free(&r);
        int hits[6] = {0};
        intact_records(out, hits, 6);
        for (int i = 0; i < 6; ++i) cr_expect_geq(hits[i], 1, "round %d: case %d has no intact record", round, i);
        for (size_t i = 0; i < 6; ++i) {
            file_id now;
            case_path(path, out, i);
            cr_assert_eq(file_identity(path, &now), 0);
            cr_expect_eq(same_file(&before[i], &now), !(round == 1 && i == 2), "round %d: case %zu %s", round, i,
                         same_file(&before[i], &now) ? "was not computed again" : "was computed again");
        }
        join(path, out, "summary.json");
        cJSON *summary = read_json(path);
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(summary, "rows")) cJSON_DeleteItemFromObject(row, "wall_seconds");
        cr_expect(cJSON_Compare(summary, reference, 1), "round %d: the summary differs from the first run's", round);
        cJSON_Delete(summary);
    }
    cJSON_Delete(reference);
    remove_tree(dir);
}

/* Completion comes from the log, not from reading the result back: results larger than
 * the loader takes (64 MiB by default; here a cap below these files) are kept on
 * resume, with their figures and wall times. Without the log they would be computed again. */
Test(study, a_result_beyond_the_read_cap_is_not_computed_again)
{
    char dir[PATH_SIZE], why[512], path[PATH_SIZE];
    scratch_dir(dir, "cap");
    /* files of some 200 KB, and the loader's cap at 64 KiB (it reads in 64 KiB steps) */
    enum { CAP = 64 << 10 };
    sp_study *s =
        study_from("{\"base\": \"heisenberg.json\", \"vary\": {\"steps\": [2000, 2100, 2200]}}", SP_TEST_DATA);
    sp_study_set_read_cap(s, CAP);
    size_t todo[3];
    sp_study_log *log;
    sp_study_summary *sum = sp_study_summary_new(s);
    cr_assert_eq(sp_study_log_open(s, dir, &log, why, sizeof why), SP_OK, "%s", why);
    cr_assert_eq(sp_study_log_resume(log, sum, todo), 3);
    for (size_t i = 0; i < 3; ++i) {
        cJSON *figures;
        cr_assert_eq(sp_study_run_case(s, i, dir, &figures, why, sizeof why), SP_OK, "%s", why);
        cr_assert_eq(sp_study_log_record(log, sum, i, figures, NULL, 0.5 + (double)i, why, sizeof why), SP_OK, "%s",
                     why);
        cJSON_Delete(figures);
        struct stat st;
        case_path(path, dir, i);
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_gt(st.st_size, CAP, "case %zu's file is within the cap", i);
        cr_expect_null(sp_study_load_case(s, i, dir), "the loader read a file beyond its cap");
    }
    sp_study_log_close(log);
    sp_study_summary_free(sum);

    sum = sp_study_summary_new(s);
    cr_assert_eq(sp_study_log_open(s, dir, &log, why, sizeof why), SP_OK, "%s", why);
    cr_expect_eq(sp_study_log_resume(log, sum, todo), 0, "a finished case beyond the cap is computed again");
    cr_expect_eq(sp_study_summary_done(sum), 3);
    sp_study_log_close(log);
    cr_assert_eq(sp_study_summary_write(sum, dir, why, sizeof why), SP_OK, "%s", why);
    sp_study_summary_free(sum);
    join(path, dir, "summary.json");
    cJSON *summary = read_json(path);
    for (int i = 0; i < 3; ++i) {
        const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "rows"), i);
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "status")), "ok");
        cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(row, "energy_error")), "case %d's figures are missing", i);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(row, "wall_seconds")), 0.5 + i);
    }
    cJSON_Delete(summary);

    join(path, dir, SP_STUDY_LOG_FILE);
    cr_assert_eq(unlink(path), 0);
    sum = sp_study_summary_new(s);
    cr_assert_eq(sp_study_log_open(s, dir, &log, why, sizeof why), SP_OK, "%s", why);
    cr_expect_eq(sp_study_log_resume(log, sum, todo), 3, "without the log the loader's cap decides");
    sp_study_log_close(log);
    sp_study_summary_free(sum);
    sp_study_free(s);
    remove_tree(dir);
}

/* One study at a time in a folder: a second one is refused with exit 2 and one line
 * naming the folder, while the first runs on to its end. */
Test(study, a_second_study_on_a_locked_folder_is_refused, .timeout = 120)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], first[PATH_SIZE], expect[PATH_SIZE + 64];
    scratch_dir(dir, "locked");
    join(first, dir, "first"); /* the first run's captured output, apart from the second's */
    cr_assert_eq(mkdir(first, 0755), 0);
    write_steps_study(dir, "slow.json", "2000, 2001, 2002, 2003", file, out);
    pid_t pid = start(first, NULL, (const char *[]){"study", file, "-o", out, "-j", "1", NULL}, 0);
    struct timespec tick = {0, 1000 * 1000};
    for (int waited = 0; waited < 60000 && count_named(out, "case-0000.json") == 0; ++waited) nanosleep(&tick, NULL);
    cr_assert_eq(count_named(out, "case-0000.json"), 1, "the first study made no case within a minute");

    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, "-j", "1", NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect(is_one_line(r.err), "not one line: %s", r.err);
    snprintf(expect, sizeof expect, "%s: another study is running in this folder", out);
    cr_expect(starts_with(r.err, expect), "stderr: %s", r.err);
    run_free(&r);

    finish(first, pid, &r);
    cr_expect_eq(r.status, 0, "the first study failed: %s", r.err);
    run_free(&r);
    char path[PATH_SIZE];
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), 4);
    cJSON_Delete(summary);

    /* the lock of a library user (this process) is the same lock */
    sp_study *s = NULL;
    sp_study_error err;
    cr_assert_eq(sp_study_read_file(file, &s, &err), SP_OK);
    sp_study_log *log;
    char why[512];
    cr_assert_eq(sp_study_log_open(s, out, &log, why, sizeof why), SP_OK, "%s", why);
    run(dir, (const char *[]){"study", file, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, 2, "a folder locked by another process was not refused: %s", r.err);
    run_free(&r);
    sp_study_log_close(log);
    run(dir, (const char *[]){"study", file, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, 0, "the folder stayed locked: %s", r.err);
    run_free(&r);
    sp_study_free(s);
    remove_tree(dir);
}

/* ---------------------------------------------------------------- MPI -- */

Test(study, mpi_run_equals_the_serial_run, .timeout = 180)
{
    char mpi_bin[PATH_SIZE];
    snprintf(mpi_bin, sizeof mpi_bin, "%s-mpi", SP_TEST_BIN);
    if (access(mpi_bin, X_OK) != 0) cr_skip_test("%s not built (make mpi)", mpi_bin);
    char dir[PATH_SIZE], file[PATH_SIZE], serial[PATH_SIZE], mpi[PATH_SIZE];
    scratch_dir(dir, "mpi");
    write_sweep(dir, "sweep.json", file);
    join(serial, dir, "serial");
    join(mpi, dir, "mpi");
    run_study(dir, file, serial, "1");

    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    pid_t pid = start(dir, "mpirun",
                      (const char *[]){"-n", "2", "--oversubscribe", mpi_bin, "study", file, "-o", mpi, NULL}, 0);
    run_result r;
    finish(dir, pid, &r);
    if (r.status == 127 && strstr(r.err, "mpirun")) cr_skip_test("mpirun not found");
    cr_assert_eq(r.status, 0, "mpirun failed (%d): %s\n%s", r.status, r.err, r.out);
    run_free(&r);

    for (size_t i = 0; i < 12; ++i) expect_same_case_file(serial, mpi, i, "the serial and the MPI run");
    /* the summaries agree but for the wall times */
    char a[PATH_SIZE], b[PATH_SIZE];
    join(a, serial, "summary.json");
    join(b, mpi, "summary.json");
    cJSON *sa = read_json(a), *sb = read_json(b);
    cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(sa, "rows")) cJSON_DeleteItemFromObject(row, "wall_seconds");
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(sb, "rows")) cJSON_DeleteItemFromObject(row, "wall_seconds");
    cr_expect(cJSON_Compare(sa, sb, 1), "the summaries differ");
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(sb, "done")), 12);
    cJSON_Delete(sa);
    cJSON_Delete(sb);
    remove_tree(dir);
}
