/* Every failure path of `symplan solve`, provoked on purpose (issue 7). Each test checks
 * the four promises of the command for its failure:
 *
 *   - the documented exit code (docs/command.md, "Exit codes and failures"): 1 the result could not be
 *     written, 2 bad input or a resource limit, 3 the result is written but did not
 *     converge, 4 the result is written but the computation failed, 128 + the signal when
 *     interrupted;
 *   - exactly one line on stderr, "FILE: status: what happened …" (or the path at fault);
 *   - a result whose "status" names what happened (where a result is written);
 *   - no partial or corrupt output: a written result is one whole JSON document without a
 *     non-finite number, a result that could not be written leaves the destination as it
 *     was, and no temporary file stays behind.
 *
 * Problems are the shipped examples of data/ with a few fields changed, one integrator
 * family after the other; a family whose example is missing is skipped with a note. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/keyframe_reference.h"
#include "tests/support.h"

enum { EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2, EXIT_NOT_CONVERGED = 3, EXIT_FAILED = 4 };

static void scratch_dir(char *dir, const char *test) { sp_test_scratch_dir(dir, "failures", test); }

/* ------------------------------------------------------------- helpers -- */

/* data/<file> with the members of `changes` (a JSON object) set, a null removing one,
 * written to dir/<name>; 0 when the example is not in data/. */
static int derived_problem(const char *dir, const char *file, const char *changes, const char *name, char *path)
{
    char source[PATH_SIZE];
    join(source, SP_TEST_DATA, file);
    if (access(source, R_OK) != 0) {
        cr_log_warn("%s is not in data/: skipped", file);
        return 0;
    }
    cJSON *doc = read_json(source), *edit = cJSON_Parse(changes);
    cr_assert_not_null(edit, "changes do not parse: %s", changes);
    for (const cJSON *c = edit->child; c; c = c->next) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, c->string);
        if (!cJSON_IsNull(c)) cJSON_AddItemToObject(doc, c->string, cJSON_Duplicate(c, 1));
    }
    join(path, dir, name);
    write_json(path, doc);
    cJSON_Delete(doc);
    cJSON_Delete(edit);
    return 1;
}

/* "nan" or "inf" as a word of its own */
static int has_nonfinite_word(const char *text)
{
    for (const char *p = text; *p; ++p) {
        if (p != text && isalpha((unsigned char)p[-1])) continue;
        if ((strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) && !isalpha((unsigned char)p[3])) return 1;
    }
    return 0;
}

/* The result at path: one whole JSON document ending in "}\n", without non-finite
 * numbers, with the status `status`; returned parsed. */
static cJSON *whole_result(const char *path, const char *status, const char *what)
{
    char *text = slurp(path);
    size_t n = strlen(text);
    cr_assert(n >= 2 && strcmp(text + n - 2, "}\n") == 0, "%s: the result does not end in }\\n", what);
    cr_expect(!has_nonfinite_word(text), "%s: a non-finite number in the result", what);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "%s: the result is not one JSON document", what);
    free(text);
    const char *got = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "status"));
    cr_assert_not_null(got, "%s: no status", what);
    cr_expect_str_eq(got, status, "%s: status", what);
    return doc;
}

/* The one line "FILE: STATUS: …(result written to OUT)" of a result that is not done. */
static void expect_status_line(const char *err, const char *file, const char *status, const char *out, const char *what)
{
    cr_expect(is_one_line(err), "%s: not one line on stderr:\n%s", what, err);
    char prefix[PATH_SIZE + 64];
    snprintf(prefix, sizeof prefix, "%s: %s: ", file, status);
    cr_expect(starts_with(err, prefix), "%s: stderr '%s' does not start with '%s'", what, err, prefix);
    char tail[PATH_SIZE + 32];
    snprintf(tail, sizeof tail, "(result written to %s)\n", out);
    size_t n = strlen(err), m = strlen(tail);
    cr_expect(n >= m && strcmp(err + n - m, tail) == 0, "%s: stderr '%s' does not end with '%s'", what, err, tail);
}

/* Solves `problem` into dir/result.json and expects a written result with `status`,
 * the exit code `code` and its one line; returns the result. */
static cJSON *solve_expecting(const char *dir, const char *problem, const char *status, int code, const char *what)
{
    char out[PATH_SIZE];
    join(out, dir, "result.json");
    unlink(out);
    run_result r;
    run(dir, (const char *[]){"solve", problem, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, code, "%s: exit %d, expected %d; stderr: %s", what, r.status, code, r.err);
    expect_status_line(r.err, problem, status, out, what);
    cr_expect_str_empty(r.out, "%s", what);
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0, "%s: a temporary file was left behind", what);
    return whole_result(out, status, what);
}

/* data/<file> with `changes` as dir/<name>, solved by solve_expecting; NULL when the
 * example is not in data/ (a test that needs it asserts the result). */
static cJSON *derived_failure(const char *dir, const char *file, const char *changes, const char *name,
                              const char *status, int code, const char *what)
{
    char problem[PATH_SIZE];
    if (!derived_problem(dir, file, changes, name, problem)) return NULL;
    return solve_expecting(dir, problem, status, code, what);
}

/* A run refused before anything is written: exit code, one line starting with
 * `prefix` and containing `part`, the existing output untouched, no temporary. */
static void expect_refused(const char *dir, const char *const *args, const char *out, int code, const char *prefix,
                           const char *part, const char *what)
{
    static const char previous[] = "{\"previous\": \"result\"}\n";
    if (out) write_text(out, previous);
    run_result r;
    run(dir, args, &r);
    cr_expect_eq(r.status, code, "%s: exit %d, expected %d; stderr: %s", what, r.status, code, r.err);
    cr_expect(is_one_line(r.err), "%s: not one line on stderr:\n%s", what, r.err);
    cr_expect(starts_with(r.err, prefix), "%s: stderr '%s' does not start with '%s'", what, r.err, prefix);
    cr_expect(strstr(r.err, part) != NULL, "%s: stderr '%s' does not say '%s'", what, r.err, part);
    cr_expect_str_empty(r.out, "%s", what);
    run_free(&r);
    if (out) {
        char *now = slurp(out);
        cr_expect_str_eq(now, previous, "%s: the existing output changed", what);
        free(now);
    }
    cr_expect_eq(count_temporaries(dir), 0, "%s: a temporary file was left behind", what);
}

/* ------------------------------------------- Newton not converging -- */

/* One implicit family after the other, each from its example with a step far too large
 * for its Newton iteration. */
typedef struct newton_case {
    const char *family, *file, *changes;
} newton_case;

static const newton_case newton_cases[] = {
    {"HOHP (hohp_sv, exp retraction)", "sphere_simulate.json",
     "{\"retraction\": \"exp\", \"xi0\": [30, -20, 25], \"p0\": [3, 6, -4], \"nu0\": [5, -4, 3], \"T\": null, "
     "\"h\": 20, \"steps\": 5}"},
    {"Gauss-Legendre index-1 (vakonomic)", "heisenberg.json", "{\"h\": 1000, \"steps\": 3}"},
    {"RATTLE (holonomic)", "spherical_pendulum.json",
     "{\"h\": 10, \"steps\": 3, \"record_every\": null, \"symplecticity_defect\": null}"},
    {"RATTLE triple jump (composition)", "planar_pendulum.json",
     "{\"h\": 10, \"steps\": 3, \"record_every\": null, \"symplecticity_defect\": null}"},
    {"RATTLE on SO(3)", "free_rigid_body.json",
     "{\"h\": 10, \"steps\": 3, \"record_every\": null, \"symplecticity_defect\": null}"},
    {"Prop. 7 step (contact)", "s3_contact.json",
     "{\"h\": 10, \"steps\": 3, \"record_every\": null, \"symplecticity_defect\": null}"},
};

Test(failures, newton_fails_with_a_step_too_large_in_every_implicit_family, .timeout = 120)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "newton");
    for (size_t i = 0; i < sizeof newton_cases / sizeof newton_cases[0]; ++i) {
        const newton_case *c = &newton_cases[i];
        cJSON *res = derived_failure(dir, c->file, c->changes, "problem.json", "newton_failed", EXIT_FAILED, c->family);
        if (!res) continue;
        const cJSON *step = cJSON_GetObjectItem(res, "failed_at_step");
        cr_expect(cJSON_IsNumber(step), "%s: no failed_at_step", c->family);
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "message")),
                         "the implicit solve did not converge", "%s", c->family);
        /* what was computed before the failure is kept: the steps before it */
        const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
        cr_expect_geq(cJSON_GetArraySize(t), 1, "%s: no trajectory", c->family);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* ------------------------------------------------ singular matrices -- */

/* The parking car with a wheelbase of 1e-200: both constraint rows are (sin θ, −cos θ, 0,
 * 0) to round-off when θ = φ, and G M⁻¹ Gᵀ is singular. */
Test(failures, a_singular_constraint_matrix_is_reported)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "singular");
    cJSON *res =
        derived_failure(dir, "parking_straight.json", "{\"params\": {\"L\": 1e-200, \"alpha\": 1, \"beta\": 1}}",
                        "problem.json", "singular_matrix", EXIT_FAILED, "parking with L = 1e-200");
    cr_assert_not_null(res);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "message")), "a linear system was singular");
    cJSON_Delete(res);
    remove_tree(dir);
}

/* -------------------------------------------- NaN and infinity -- */

/* A potential that overflows: the spherical pendulum with m g l beyond the largest
 * double, and the planner's target potential |g y0 − y_i|²/(2σ²) with σ = 1e-200. */
Test(failures, an_overflowing_potential_gives_non_finite)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "overflow");
    cJSON_Delete(derived_failure(dir, "spherical_pendulum.json",
                                 "{\"params\": {\"m\": 1e10, \"g\": 1e308, \"l\": 1e10}, \"q0\": [0, 1e10, 0], "
                                 "\"steps\": 10, \"record_every\": null, \"symplecticity_defect\": null}",
                                 "problem.json", "non_finite", EXIT_FAILED, "pendulum, g = 1e308"));
    cJSON *res = derived_failure(dir, "sphere_interpolation.json", "{\"sigma\": 1e-200}", "plan.json", "non_finite",
                                 EXIT_FAILED, "plan, sigma = 1e-200");
    cr_assert_not_null(res);
    cJSON_Delete(res);
    remove_tree(dir);
}

/* A number of the result that is not finite although every step was (the relative energy
 * error over an energy of 1e-320) is written as null and the result says "non_finite". */
Test(failures, a_non_finite_number_never_reaches_the_file)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "nonfinite");
    cJSON *res = derived_failure(dir, "sphere_simulate.json",
                                 "{\"xi0\": [1e-310, 2, 0], \"p0\": [0, 0, 0], \"nu0\": [1e-10, 0, 1.5], \"T\": 10, "
                                 "\"steps\": 10}",
                                 "problem.json", "non_finite", EXIT_FAILED, "energy 1e-320");
    cr_assert_not_null(res);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "non_finite_at")),
                     "diagnostics.energy_error_relative");
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "diagnostics"), "energy_error_relative")));
    cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(res, "message")), "written as null") != NULL);
    cJSON_Delete(res);
    remove_tree(dir);
}

/* ------------------------------------------------------ the optimiser -- */

Test(failures, the_optimiser_stops_on_its_evaluation_limit)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "maxeval");
    cJSON *res = derived_failure(dir, "sphere_interpolation.json",
                                 "{\"optimizer\": {\"maxeval\": 3}, \"method\": \"single_shooting\"}", "plan.json",
                                 "maxeval_reached", EXIT_NOT_CONVERGED, "cubic plan, maxeval 3");
    cr_assert_not_null(res);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "iterations")), 3, "the budget is kept exactly");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(res, "cost")), "the best point is reported");
    cr_expect_not_null(cJSON_GetObjectItem(res, "trajectory"));
    cJSON_Delete(res);
    /* an endpoint plan with one start and two evaluations does not reach its target */
    res = derived_failure(dir, "parallel_parking.json", "{\"starts\": 1, \"optimizer\": {\"maxeval\": 2}}", "park.json",
                          "target_not_reached", EXIT_NOT_CONVERGED, "parking, one start");
    if (res) {
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "starts")), 1);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* AUGLAG with a global local optimiser that needs bounds it is not given: NLopt answers
 * INVALID_ARGS. */
Test(failures, the_optimiser_fails)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "optimizer");
    cJSON *res = derived_failure(dir, "sphere_interpolation.json",
                                 "{\"optimizer\": {\"algorithm\": \"AUGLAG\", \"local_algorithm\": \"GN_CRS2_LM\"},"
                                 " \"method\": \"single_shooting\"}",
                                 "plan.json", "optimizer_failed", EXIT_FAILED, "AUGLAG + GN_CRS2_LM");
    cr_assert_not_null(res);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "optimizer_result")), "INVALID_ARGS");
    cJSON_Delete(res);
    remove_tree(dir);
}

/* ------------------------------------------------ unwritable output -- */

typedef enum { AS_IS, AS_NOBODY, FILE_SIZE_LIMIT } child_setup;

/* Runs symplan (`program`, or SP_TEST_BIN when NULL) with args in a child set up as
 * asked: as the user nobody (root writes anywhere, so a read-only directory needs another
 * user), or under `ulimit -f` of 8 KiB (a disk that fills up: writes past it fail with
 * EFBIG). stdout goes to `stdout_path` (dir/captured-stdout when NULL); both captures are
 * opened before the child gives up root. Not under valgrind: the child's set-up is the
 * test. */
static void run_in(const char *dir, child_setup setup, const char *program, const char *stdout_path,
                   const char *const *args, run_result *r)
{
    if (!program) program = SP_TEST_BIN;
    char out_path[PATH_SIZE], err_path[PATH_SIZE];
    join(out_path, dir, "captured-stdout");
    join(err_path, dir, "captured-stderr");
    const char *argv[16] = {program};
    int argc = 1;
    for (; args[argc - 1]; ++argc) argv[argc] = args[argc - 1];
    argv[argc] = NULL;
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int out = open(stdout_path ? stdout_path : out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) _exit(120);
        if (setup == AS_NOBODY && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(121);
        if (setup == FILE_SIZE_LIMIT) {
            struct rlimit lim = {8192, 8192};
            if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(122);
        }
        execv(program, (char *const *)argv);
        _exit(123);
    }
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    r->out = stdout_path ? calloc(1, 1) : slurp(out_path);
    r->err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    cr_assert(WIFEXITED(ws), "symplan died by signal %d; stderr: %s", WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, r->err);
    r->status = WEXITSTATUS(ws);
    cr_assert(r->status < 120, "the child could not be set up (%d)", r->status);
}

/* Copies the file `from` to `to` with the permission bits `mode`. */
static void copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY);
    cr_assert_geq(in, 0, "cannot read %s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
    cr_assert_geq(out, 0, "cannot create %s: %s", to, strerror(errno));
    char buf[1 << 16];
    ssize_t got;
    while ((got = read(in, buf, sizeof buf)) > 0)
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(out, buf + done, (size_t)(got - done));
            cr_assert_gt(put, 0, "cannot write %s: %s", to, strerror(errno));
            done += put;
        }
    cr_assert_eq(got, 0, "cannot read %s: %s", from, strerror(errno));
    close(in);
    cr_assert_eq(close(out), 0);
    cr_assert_eq(chmod(to, mode), 0); /* open's mode went through the umask */
}

/* The user nobody must reach everything its run touches: the command, the problem and
 * the output directory. The checkout (and with it build/ and data/) may sit below a
 * directory only root can enter, e.g. a clone inside `mktemp -d`, so the child gets its
 * own copies in a fresh directory under /tmp that everybody may enter and read. The
 * captured stdout and stderr stay in the scratch directory: they are opened before the
 * child gives up root. */
Test(failures, an_output_in_a_read_only_directory_is_refused_before_the_run)
{
    char dir[PATH_SIZE], pub[] = "/tmp/symplan-nobody-XXXXXX", bin[PATH_SIZE], ro[PATH_SIZE], out[PATH_SIZE],
                         in[PATH_SIZE], data[PATH_SIZE];
    scratch_dir(dir, "readonly");
    cr_assert_not_null(mkdtemp(pub), "cannot create a directory in /tmp: %s", strerror(errno));
    cr_assert_eq(chmod(pub, 0755), 0);
    join(bin, pub, "symplan");
    copy_file(SP_TEST_BIN, bin, 0755);
    join(data, SP_TEST_DATA, "sphere_simulate.json");
    join(in, pub, "sphere_simulate.json");
    copy_file(data, in, 0644);
    join(ro, pub, "ro");
    cr_assert_eq(mkdir(ro, 0755), 0);
    join(out, ro, "result.json");
    write_text(out, "{\"previous\": \"result\"}\n");
    cr_assert_eq(chmod(ro, 0555), 0);
    run_result r;
    run_in(dir, AS_NOBODY, bin, NULL, (const char *[]){"solve", in, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, EXIT_BAD_INPUT, "stderr: %s", r.err);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(starts_with(r.err, out), "the line must name the output: %s", r.err);
    cr_expect(strstr(r.err, "Permission denied") != NULL, "got %s", r.err);
    run_free(&r);
    char *now = slurp(out);
    cr_expect_str_eq(now, "{\"previous\": \"result\"}\n");
    free(now);
    cr_expect_eq(count_temporaries(ro), 0);
    chmod(ro, 0755);
    remove_tree(pub);
    remove_tree(dir);
}

Test(failures, an_output_in_a_missing_directory_is_refused_before_the_run)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE], prefix[PATH_SIZE + 8];
    scratch_dir(dir, "missing");
    join(in, SP_TEST_DATA, "sphere_simulate.json");
    join(out, dir, "no-such-folder/result.json");
    snprintf(prefix, sizeof prefix, "%s: ", out);
    expect_refused(dir, (const char *[]){"solve", in, "-o", out, NULL}, NULL, EXIT_BAD_INPUT, prefix,
                   "No such file or directory", "missing folder");
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "nothing is created");
    remove_tree(dir);
}

/* A disk that fills up while the result is written: the temporary file is removed and
 * the previous result stays whole. */
Test(failures, a_full_disk_leaves_the_previous_result_whole)
{
    char dir[PATH_SIZE], in[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "full");
    join(in, SP_TEST_DATA, "sphere_simulate.json"); /* about 60 KB of result */
    join(out, dir, "result.json");
    static const char previous[] = "{\"previous\": \"result\"}\n";
    write_text(out, previous);
    run_result r;
    run_in(dir, FILE_SIZE_LIMIT, NULL, NULL, (const char *[]){"solve", in, "-o", out, NULL}, &r);
    cr_expect_eq(r.status, EXIT_INTERNAL, "stderr: %s", r.err);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(starts_with(r.err, in), "the line names the problem file: %s", r.err);
    cr_expect(strstr(r.err, "File too large") != NULL, "got %s", r.err);
    run_free(&r);
    char *now = slurp(out);
    cr_expect_str_eq(now, previous, "the previous result changed");
    free(now);
    cr_expect_eq(count_temporaries(dir), 0, "the temporary file was left behind");

    /* standard output on a full device */
    run_in(dir, AS_IS, NULL, "/dev/full", (const char *[]){"solve", in, NULL}, &r);
    cr_expect_eq(r.status, EXIT_INTERNAL, "stderr: %s", r.err);
    cr_expect(is_one_line(r.err), "not one line:\n%s", r.err);
    cr_expect(strstr(r.err, "cannot write to standard output: No space left on device") != NULL, "got %s", r.err);
    run_free(&r);
    remove_tree(dir);
}

/* An output that is a device or a FIFO (/dev/null, /dev/stdout, a named pipe) is written
 * in place: renaming a temporary file onto it would replace it with a regular file (as
 * root, `-o /dev/null` once turned /dev/null into one). */
Test(failures, a_pipe_or_device_output_is_written_in_place_not_replaced)
{
    char dir[PATH_SIZE], problem[PATH_SIZE], fifo[PATH_SIZE];
    scratch_dir(dir, "fifo");
    cr_assert(derived_problem(dir, "sphere_simulate.json", "{\"steps\": 5}", "problem.json", problem));
    join(fifo, dir, "result.fifo");
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so that the writer's open succeeds */
    cr_assert_geq(reader, 0);
    run_result r;
    run(dir, (const char *[]){"solve", problem, "-o", fifo, NULL}, &r);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_str_empty(r.err);
    run_free(&r);
    static char text[65536];
    ssize_t got = read(reader, text, sizeof text - 1);
    close(reader);
    cr_assert_gt(got, 0, "nothing came through the pipe");
    text[got] = '\0';
    cJSON *doc = cJSON_Parse(text);
    cr_expect_not_null(doc, "the pipe did not carry one JSON document");
    cJSON_Delete(doc);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced by a file");
    cr_expect_eq(count_temporaries(dir), 0);
    remove_tree(dir); /* (not tried on /dev/null itself: a regression would break the machine) */
}

/* ------------------------------------------------------------ SIGINT -- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Whether dir/captured-stderr holds `part` yet. */
static int stderr_says(const char *dir, const char *part)
{
    char path[PATH_SIZE];
    join(path, dir, "captured-stderr");
    char *text = slurp(path);
    int found = strstr(text, part) != NULL;
    free(text);
    return found;
}

/* Starts a long solve into dir/result.json (over an older result), waits until it runs —
 * its temporary output exists, and with `ready` that stderr says so — and `delay` seconds
 * more (a simulation's steps take well under a second: it is signalled soon after its
 * first progress line), sends `sig` `count` times in a row, and expects exit 128 + sig,
 * one line, and a whole result with status "interrupted". */
static cJSON *interrupt_times(const char *dir, const char *problem, const char *ready, double delay, int sig,
                              int count, const char *what)
{
    char out[PATH_SIZE];
    join(out, dir, "result.json");
    write_text(out, "{\"previous\": \"result\"}\n");
    pid_t pid = start(dir, NULL, (const char *[]){"solve", problem, "-o", out, "-v", NULL}, 0);
    double t0 = now_seconds();
    while ((count_temporaries(dir) == 0 || (ready && !stderr_says(dir, ready))) && now_seconds() - t0 < 120.0)
        sleep_seconds(0.01);
    if (count_temporaries(dir) == 0 || (ready && !stderr_says(dir, ready))) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        cr_assert_fail("%s: the solve did not start", what);
    }
    sleep_seconds(delay);
    for (int k = 0; k < count; ++k) cr_assert_eq(kill(pid, sig), 0);
    run_result r;
    finish(dir, pid, &r);
    cr_expect_eq(r.status, 128 + sig, "%s: exit %d; stderr: %s", what, r.status, r.err);
    /* -v progress lines come first; the last line is the interruption */
    const char *last = r.err;
    for (const char *p = r.err; *p; ++p)
        if (*p == '\n' && p[1]) last = p + 1;
    expect_status_line(last, problem, "interrupted", out, what);
    cr_expect(strstr(last, "stopped on request") != NULL, "%s: %s", what, last);
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0, "%s: a temporary file was left behind", what);
    return whole_result(out, "interrupted", what);
}

static cJSON *interrupt(const char *dir, const char *problem, const char *ready, double delay, int sig,
                        const char *what)
{
    return interrupt_times(dir, problem, ready, delay, sig, 1, what);
}

Test(failures, sigint_during_a_long_simulation_writes_the_partial_result, .timeout = 300)
{
    char dir[PATH_SIZE], problem[PATH_SIZE];
    scratch_dir(dir, "sigint-simulate");
    cr_assert(derived_problem(dir, "sphere_simulate.json", "{\"T\": 1000, \"steps\": 1000000}", "long.json", problem));
    cJSON *res = interrupt(dir, problem, "step ", 0.05, SIGINT, "cubic simulation");
    const cJSON *steps = cJSON_GetObjectItem(res, "steps");
    cr_assert(cJSON_IsNumber(steps));
    /* (under the sanitizers or valgrind the signal may come before the first step) */
    cr_expect(steps->valuedouble >= 0 && steps->valuedouble < 1000000, "interrupted after %g steps",
              steps->valuedouble);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "interrupted_at_step")), steps->valuedouble);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t");
    cr_expect_eq(cJSON_GetArraySize(t), (int)steps->valuedouble + 1, "the trajectory up to the last step");
    cJSON_Delete(res);
    /* the vakonomic integrator stops the same way */
    if (derived_problem(dir, "heisenberg.json", "{\"steps\": 2000000, \"symplecticity_defect\": null}", "heis.json",
                        problem)) {
        res = interrupt(dir, problem, "step ", 0.05, SIGINT, "heisenberg simulation");
        cr_expect_lt(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "steps")), 2000000);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* --max-seconds stops a run as a signal would, and the result says the time ran out:
 * exit 3, status maxtime_reached, the trajectory up to the last step, nothing left over. */
Test(failures, max_seconds_stops_the_run_and_writes_what_it_has, .timeout = 300)
{
    char dir[PATH_SIZE], problem[PATH_SIZE], out[PATH_SIZE];
    scratch_dir(dir, "max-seconds");
    cr_assert(derived_problem(dir, "sphere_simulate.json", "{\"T\": 1000, \"steps\": 1000000}", "long.json", problem));
    join(out, dir, "result.json");
    run_result r;
    run(dir, (const char *[]){"solve", problem, "-o", out, "--max-seconds", "0.3", NULL}, &r);
    cr_expect_eq(r.status, 3, "exit %d: %s", r.status, r.err);
    expect_status_line(r.err, problem, "maxtime_reached", out, "--max-seconds");
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0, "a temporary file was left behind");
    cJSON *res = whole_result(out, "maxtime_reached", "--max-seconds");
    const double steps = cJSON_GetNumberValue(cJSON_GetObjectItem(res, "steps"));
    cr_expect(steps >= 0 && steps < 1000000, "stopped after %g steps", steps);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "t")), (int)steps + 1);
    cJSON_Delete(res);
    remove_tree(dir);
}

/* A plan stops between two evaluations and reports its best point in full. */
Test(failures, sigint_during_a_long_plan_writes_the_best_point_so_far, .timeout = 300)
{
    char dir[PATH_SIZE], problem[PATH_SIZE];
    scratch_dir(dir, "sigint-plan");
    cr_assert(derived_problem(dir, "sphere_interpolation.json",
                              "{\"steps\": 20000, \"method\": \"single_shooting\", \"optimizer\": {\"algorithm\": "
                              "\"LN_NELDERMEAD\", \"maxeval\": 100000,"
                              " \"xtol_rel\": 0, \"ftol_rel\": 0}}",
                              "plan.json", problem));
    cJSON *res = interrupt(dir, problem, "evaluation ", 0.5, SIGINT, "cubic plan");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(res, "cost")), "the best point's cost");
    cr_expect_geq(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "iterations")), 1);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "initial_momenta")), 6);
    cr_expect_not_null(cJSON_GetObjectItem(res, "trajectory"));
    cJSON_Delete(res);
    /* SIGTERM, what a batch system sends at its time limit, does the same: exit 143 */
    res = interrupt(dir, problem, "evaluation ", 0.5, SIGTERM, "cubic plan, SIGTERM");
    cJSON_Delete(res);
    /* `timeout` signals the child, then its process group: two SIGTERMs in a row, and the
     * partial result is still written (three, for a batch system that repeats itself) */
    res = interrupt_times(dir, problem, "evaluation ", 0.5, SIGTERM, 2, "cubic plan, two SIGTERMs");
    cJSON_Delete(res);
    res = interrupt_times(dir, problem, "evaluation ", 0.5, SIGINT, 3, "cubic plan, three SIGINTs");
    cJSON_Delete(res);
    /* an endpoint plan: its search and its sweeps stop */
    if (derived_problem(dir, "parallel_parking.json",
                        "{\"steps\": 20000, \"starts\": 1, \"optimizer\": {\"algorithm\": \"LN_NELDERMEAD\", "
                        "\"maxeval\": 100000}}",
                        "park.json", problem)) {
        res = interrupt(dir, problem, "evaluation ", 0.5, SIGINT, "endpoint plan");
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "starts")), 1);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* A keyframe plan stops between two Newton iterations and reports its iterate in full:
 * 200 keyframes over 2·10⁵ steps, so that the signal lands in the middle of the search. */
Test(failures, sigint_during_a_long_keyframe_plan_writes_the_current_iterate, .timeout = 300)
{
    char dir[PATH_SIZE], problem[PATH_SIZE];
    scratch_dir(dir, "sigint-keyframes");
    kf_schedule s;
    kf_random_schedule(17, 0, 200, 0.7, 1000, 0.05, &s);
    char *doc = kf_schedule_json(&s);
    cJSON *tree = cJSON_Parse(doc);
    cJSON_AddNumberToObject(tree, "record_every", 100);
    char *text = cJSON_Print(tree);
    join(problem, dir, "keyframes.json");
    write_text(problem, text);
    cJSON *res = interrupt(dir, problem, "evaluation ", 0.5, SIGINT, "keyframe plan");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(res, "cost")), "the iterate's cost");
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(res, "optimality_residual")));
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "targets")), 200);
    cr_expect_not_null(cJSON_GetObjectItem(res, "trajectory"));
    cJSON_Delete(res);
    free(text), free(doc);
    cJSON_Delete(tree);
    kf_schedule_free(&s);
    remove_tree(dir);
}

/* --------------------------------------------------- resource limits -- */

typedef struct limit_case {
    const char *what, *file, *changes;
    const char *path;     /* the JSON path the line names */
    const char *message;  /* part of the line */
    const char *raise[4]; /* options that let it pass */
} limit_case;

static const limit_case limit_cases[] = {
    {"steps",
     "heisenberg.json",
     "{\"steps\": 200000000}",
     "steps",
     "200000000 exceeds the limit 10000000 (raise it with --max-steps)",
     {"--max-steps", "1e9", "--max-memory", "1T"}},
    {"memory",
     "sphere_simulate.json",
     "{\"steps\": 5000000}",
     "steps",
     "above the limit 4.0 GiB (raise it with --max-memory)",
     {"--max-memory", "64G"}},
    {"evaluations",
     "sphere_interpolation.json",
     "{\"optimizer\": {\"maxeval\": 2000000}}",
     "optimizer.maxeval",
     "2000000 exceeds the limit 1000000 (raise it with --max-evaluations)",
     {"--max-evaluations", "2000000"}},
    /* the optimiser's own memory: Nelder–Mead's simplex over the direct form's 18003
     * velocities would take 4.8 GiB */
    {"optimizer memory",
     "sphere_interpolation.json",
     "{\"steps\": 6000, \"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LN_NELDERMEAD\"}}",
     "optimizer.algorithm",
     "LN_NELDERMEAD on the direct form's 18003 variables (6000 steps) needs about",
     {"--max-memory", "64G"}},
    {"starts x evaluations",
     "parallel_parking.json",
     "{\"starts\": 10000, \"optimizer\": {\"maxeval\": 1000}}",
     "starts",
     "make 10000000, above the limit 1000000 (raise it with --max-evaluations)",
     {"--max-evaluations=1e7"}},
};

/* The NLopt algorithms with a dense model of the unknowns (NEWUOA, SLSQP, …) spend O(n³)
 * between evaluations, deaf to signals: on the direct form they take at most 500 variables,
 * as the algorithm itself or as the local one of AUGLAG; below that they run. */
Test(failures, dense_model_optimizers_are_refused_past_their_size)
{
    char dir[PATH_SIZE], problem[PATH_SIZE], prefix[PATH_SIZE + 64];
    scratch_dir(dir, "limits-dense");
    static const struct {
        const char *changes, *path, *message;
    } cases[] = {
        {"{\"steps\": 1000, \"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LN_NEWUOA\"}}",
         "optimizer.algorithm",
         "LN_NEWUOA keeps a dense model of the direct form's 3003 variables (1000 steps) and can spend seconds "
         "between evaluations, unable to answer a signal or --max-seconds; it takes at most 500 variables (165 "
         "steps here): use LD_LBFGS, or fewer steps"},
        {"{\"steps\": 3000, \"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LD_SLSQP\"}}",
         "optimizer.algorithm", "LD_SLSQP keeps a dense model of the direct form's 9003 variables"},
        {"{\"steps\": 400, \"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LD_AUGLAG\", "
         "\"local_algorithm\": \"LN_BOBYQA\"}}",
         "optimizer.local_algorithm", "LN_BOBYQA keeps a dense model of the direct form's 1203 variables"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cr_assert(derived_problem(dir, "sphere_interpolation.json", cases[i].changes, "problem.json", problem));
        snprintf(prefix, sizeof prefix, "%s: %s: ", problem, cases[i].path);
        expect_refused(dir, (const char *[]){"check", problem, "--max-memory", "64G", NULL}, NULL, EXIT_BAD_INPUT,
                       prefix, cases[i].message, cases[i].changes);
    }
    cr_assert(derived_problem(dir, "sphere_interpolation.json",
                              "{\"steps\": 165, \"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LN_NEWUOA\"}}",
                              "problem.json", problem));
    run_result r;
    run(dir, (const char *[]){"check", problem, NULL}, &r);
    cr_expect_eq(r.status, 0, "NEWUOA on 498 variables: %s", r.err);
    run_free(&r);
    remove_tree(dir);
}

/* Only the recorded rows count: 5·10⁶ steps of a vakonomic run that keeps every 1000th
 * fit in 64 MiB; keeping every one does not. */
Test(failures, the_memory_estimate_counts_the_recorded_rows)
{
    char dir[PATH_SIZE], problem[PATH_SIZE];
    scratch_dir(dir, "limits-recorded");
    for (int every = 0; every < 2; ++every) {
        cr_assert(derived_problem(dir, "heisenberg.json",
                                  every ? "{\"steps\": 5000000, \"record_every\": 1000}" : "{\"steps\": 5000000}",
                                  "problem.json", problem));
        run_result r;
        run(dir, (const char *[]){"check", problem, "--max-memory", "64M", NULL}, &r);
        cr_expect_eq(r.status, every ? 0 : EXIT_BAD_INPUT, "record_every %s: exit %d: %s", every ? "1000" : "unset",
                     r.status, r.err);
        run_free(&r);
    }
    remove_tree(dir);
}

Test(failures, resource_limits_refuse_a_problem_with_the_option_that_raises_them)
{
    char dir[PATH_SIZE], problem[PATH_SIZE], out[PATH_SIZE], prefix[PATH_SIZE + 64];
    scratch_dir(dir, "limits");
    join(out, dir, "result.json");
    for (size_t i = 0; i < sizeof limit_cases / sizeof limit_cases[0]; ++i) {
        const limit_case *c = &limit_cases[i];
        if (!derived_problem(dir, c->file, c->changes, "problem.json", problem)) continue;
        snprintf(prefix, sizeof prefix, "%s: %s: ", problem, c->path);
        expect_refused(dir, (const char *[]){"solve", problem, "-o", out, NULL}, out, EXIT_BAD_INPUT, prefix,
                       c->message, c->what);
        expect_refused(dir, (const char *[]){"check", problem, NULL}, NULL, EXIT_BAD_INPUT, prefix, c->message,
                       c->what);
        const char *args[8] = {"check", problem};
        int n = 2;
        for (int k = 0; k < 4 && c->raise[k]; ++k) args[n++] = c->raise[k];
        args[n] = NULL;
        run_result r;
        run(dir, args, &r);
        cr_expect_eq(r.status, 0, "%s: the option does not raise the limit: %s", c->what, r.err);
        cr_expect_str_eq(r.out, "ok\n", "%s", c->what);
        run_free(&r);
    }
    /* more targets than allowed, and a lower memory limit */
    cr_assert(derived_problem(dir, "sphere_interpolation.json", "{}", "problem.json", problem));
    snprintf(prefix, sizeof prefix, "%s: targets: ", problem);
    expect_refused(dir, (const char *[]){"check", problem, "--max-targets", "3", NULL}, NULL, EXIT_BAD_INPUT, prefix,
                   "4 targets exceed the limit 3 (raise it with --max-targets)", "targets");
    snprintf(prefix, sizeof prefix, "%s: steps: ", problem);
    expect_refused(dir, (const char *[]){"check", problem, "--max-memory", "100K", NULL}, NULL, EXIT_BAD_INPUT, prefix,
                   "above the limit 100 KiB", "--max-memory 100K");
    /* a bad value of an option */
    expect_refused(dir, (const char *[]){"solve", problem, "--max-steps", "many", NULL}, NULL, EXIT_BAD_INPUT,
                   "symplan solve: --max-steps: ", "positive whole number", "--max-steps many");
    expect_refused(dir, (const char *[]){"check", problem, "--max-memory", "8X", NULL}, NULL, EXIT_BAD_INPUT,
                   "symplan check: --max-memory: ", "size in bytes", "--max-memory 8X");
    remove_tree(dir);
}

/* A study larger than --max-cases is refused whole, before its folder is created. */
Test(failures, a_study_beyond_its_case_limit_is_refused)
{
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE], text[1024], prefix[PATH_SIZE + 32];
    scratch_dir(dir, "cases");
    join(file, dir, "study.json");
    snprintf(text, sizeof text,
             "{\"base\": \"%s/sphere_simulate.json\", \"vary\": {\"steps\": [10, 20], \"scheme\": [\"hohp_euler\", "
             "\"hohp_sv\"]}}",
             SP_TEST_DATA);
    write_text(file, text);
    join(out, dir, "out");
    snprintf(prefix, sizeof prefix, "%s: vary: ", file);
    expect_refused(dir, (const char *[]){"study", file, "-o", out, "--max-cases", "3", NULL}, NULL, EXIT_BAD_INPUT,
                   prefix, "more than 3 cases, the limit (raise it with --max-cases)", "--max-cases 3");
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "the study folder was created");
    /* a case beyond the step limit names the case */
    snprintf(prefix, sizeof prefix, "%s: cases[2]: steps: ", file); /* (20, hohp_euler): the first key outermost */
    expect_refused(dir, (const char *[]){"study", file, "-o", out, "--max-steps", "15", NULL}, NULL, EXIT_BAD_INPUT,
                   prefix, "20 exceeds the limit 15", "--max-steps 15 in a study");
    cr_expect_neq(stat(out, &st), 0, "the study folder was created");
    remove_tree(dir);
}
