/* `symplan study -j 2` whose parent is killed (planner/study/study_local.c): killed alone
 * (kill(pid, …), its workers spared by the sender) with SIGKILL, SIGTERM or SIGINT at
 * random moments of the run, 24 times from a fixed seed, and killed with its process
 * group by ^C. After each kill: no worker of that run is left within a grace period, the
 * folder does not change afterwards (no orphan adds a file), every case file there is
 * complete and the bytes an uninterrupted run writes, and summary.json and summary.csv,
 * when present, list exactly the case files there (after SIGINT or SIGTERM they are
 * present, and nothing temporary is left). Then the same command resumes the study: it
 * computes only the missing cases, keeps the others' files as they were, and ends with
 * the case files and the summary (but for wall times) of the uninterrupted run.
 *
 * The workers of a run are found in /proc by their command line, which they share with
 * their parent and which names the run's own output folder. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "planner/study/sp_study.h"

#include "tests/support.h"

#define N_CASES 12
#define ROUNDS 24
/* The seed of the kill moments; SP_TEST_KILL_SEED (a number) draws others, to search
 * for failures. */
#define SEED 0x5eed2024u
/* How long the workers of a killed parent may take to go, and how long the folder is
 * then watched for late writes. */
#define GRACE_SECONDS 0.5
#define WATCH_SECONDS 0.15

/* Twelve cases of some 20–40 ms each, different enough to give different files. */
static void write_study(const char *dir, char *file)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"kill\", \"base\": \"%s/sphere_interpolation.json\",\n"
             " \"vary\": {\"steps\": [300, 310, 320, 330, 340, 350, 360, 370, 380, 390, 400, 410]}}\n",
             SP_TEST_DATA);
    join(file, dir, "kill.json");
    write_text(file, text);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
}

/* xorshift64*: the same draws on every machine for one seed. */
static double uniform01(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (double)((*state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

/* A signal ignored here would be ignored by the command too (it keeps SIG_IGN). */
static void unignore(int sig)
{
    struct sigaction now;
    if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_IGN) signal(sig, SIG_DFL);
}

static void case_path(char *out, const char *dir, size_t i)
{
    char name[64];
    sp_study_case_file(i, name, sizeof name);
    join(out, dir, name);
}

/* ------------------------------------------------------------- workers -- */

/* Whether /proc/PID/cmdline has `arg` as one of its arguments. */
static int has_argument(const char *pid, const char *arg)
{
    char path[300], buf[8192];
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    FILE *f = fopen(path, "rb");
    if (!f) return 0; /* gone meanwhile */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t k = 0; k < n; k += strlen(buf + k) + 1)
        if (strcmp(buf + k, arg) == 0) return 1;
    return 0;
}

/* The state letter of /proc/PID/stat ('Z' for a zombie, which can write nothing). */
static char process_state(const char *pid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 'X';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold anything */
    return paren && paren[1] == ' ' ? paren[2] : 'X';
}

/* Live processes (not this one) whose command line names the run's output folder:
 * the parent and its workers, wherever the workers have been reparented to. */
static int live_processes_of(const char *out)
{
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    int n = 0;
    const struct dirent *de;
    while ((de = readdir(d))) {
        if (!isdigit((unsigned char)de->d_name[0]) || atol(de->d_name) == (long)getpid()) continue;
        if (!has_argument(de->d_name, out)) continue;
        char state = process_state(de->d_name);
        n += state != 'Z' && state != 'X';
    }
    closedir(d);
    return n;
}

/* ------------------------------------------------------------- folders -- */

static int count_cases(const char *out)
{
    int n = 0;
    for (size_t i = 0; i < N_CASES; ++i) {
        char path[PATH_SIZE];
        case_path(path, out, i);
        n += access(path, F_OK) == 0;
    }
    return n;
}

/* Waits until `k` case files are in `out` (the run makes them all unless it is broken). */
static void wait_for_cases(const char *out, int k)
{
    double t0 = now_seconds();
    while (count_cases(out) < k) {
        cr_assert_lt(now_seconds() - t0, 60.0, "fewer than %d case files after a minute in %s", k, out);
        sleep_seconds(0.001);
    }
}

typedef struct file_id {
    int present;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime; /* ctime: when it was renamed into place */
} file_id;

/* What the folder holds: the identity of every case file, and every name. */
typedef struct folder {
    file_id cases[N_CASES];
    int n_cases;
    char *names; /* sorted, one a line */
} folder;

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *sorted_names(const char *dir)
{
    char *list[256];
    size_t n = 0, length = 1;
    DIR *d = opendir(dir);
    cr_assert(d || errno == ENOENT, "cannot read %s", dir); /* killed before it made the folder */
    const struct dirent *de;
    while (d && (de = readdir(d)) && n < 256) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        list[n] = strdup(de->d_name);
        length += strlen(de->d_name) + 1;
        ++n;
    }
    if (d) closedir(d);
    qsort(list, n, sizeof list[0], compare_names);
    char *names = calloc(1, length);
    cr_assert_not_null(names);
    for (size_t k = 0; k < n; ++k) {
        strcat(names, list[k]);
        strcat(names, "\n");
        free(list[k]);
    }
    return names;
}

static void look(const char *out, folder *f)
{
    f->n_cases = 0;
    for (size_t i = 0; i < N_CASES; ++i) {
        char path[PATH_SIZE];
        case_path(path, out, i);
        struct stat st;
        file_id *id = &f->cases[i];
        id->present = stat(path, &st) == 0;
        if (!id->present) continue;
        id->ino = st.st_ino;
        id->size = st.st_size;
        id->mtime = st.st_mtim;
        id->ctime = st.st_ctim;
        f->n_cases++;
    }
    f->names = sorted_names(out);
}

static int same_file(const file_id *a, const file_id *b)
{
    return a->present == b->present && (!a->present || (a->ino == b->ino && a->size == b->size &&
                                                         a->mtime.tv_sec == b->mtime.tv_sec &&
                                                         a->mtime.tv_nsec == b->mtime.tv_nsec));
}

/* ------------------------------------------------------------- results -- */

/* The uninterrupted run: its case files and its summary without wall times. */
typedef struct reference {
    char *cases[N_CASES];
    cJSON *summary;
    double seconds;
} reference;

static cJSON *summary_without_wall_times(const char *out)
{
    char path[PATH_SIZE];
    join(path, out, "summary.json");
    cJSON *summary = read_json(path);
    cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(summary, "rows")) cJSON_DeleteItemFromObject(row, "wall_seconds");
    return summary;
}

static void run_reference(const char *dir, const char *file, reference *ref)
{
    char out[PATH_SIZE];
    join(out, dir, "reference");
    run_result r;
    double t0 = now_seconds();
    run(dir, (const char *[]){"study", file, "-o", out, "-j", "2", NULL}, &r);
    ref->seconds = now_seconds() - t0;
    cr_assert_eq(r.status, 0, "the uninterrupted run failed: %s", r.err);
    run_free(&r);
    for (size_t i = 0; i < N_CASES; ++i) {
        char path[PATH_SIZE];
        case_path(path, out, i);
        ref->cases[i] = slurp(path);
    }
    ref->summary = summary_without_wall_times(out);
    cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(ref->summary, "done")), N_CASES);
}

static void free_reference(reference *ref)
{
    for (size_t i = 0; i < N_CASES; ++i) free(ref->cases[i]);
    cJSON_Delete(ref->summary);
}

/* Every case file there is the uninterrupted run's, byte for byte (so complete). */
static void expect_complete_cases(const char *out, const folder *f, const reference *ref, const char *when)
{
    for (size_t i = 0; i < N_CASES; ++i) {
        if (!f->cases[i].present) continue;
        char path[PATH_SIZE];
        case_path(path, out, i);
        char *text = slurp(path);
        cr_expect_str_eq(text, ref->cases[i], "%s: case %zu is not the uninterrupted run's", when, i);
        free(text);
    }
}

/* Whether a summary status says the case has its result. */
static int has_result(const char *status)
{
    return status && strcmp(status, "pending") != 0 && strcmp(status, "failed") != 0;
}

/* summary.json, when there, lists exactly the case files present; no case failed. */
static void expect_json_agrees(const char *out, const folder *f, const char *when)
{
    char path[PATH_SIZE];
    join(path, out, "summary.json");
    if (access(path, F_OK) != 0) return;
    cJSON *summary = read_json(path);
    const cJSON *rows = cJSON_GetObjectItem(summary, "rows");
    cr_assert_eq(cJSON_GetArraySize(rows), N_CASES, "%s: summary.json has %d rows", when, cJSON_GetArraySize(rows));
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), f->n_cases,
                 "%s: summary.json says done: %g with %d case files there", when,
                 cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "done")), f->n_cases);
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "failed")), 0, "%s: a case failed", when);
    for (int i = 0; i < N_CASES; ++i) {
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, i), "status"));
        cr_expect_eq(has_result(status), f->cases[i].present, "%s: summary.json says case %d is %s, its file is %s",
                     when, i, status ? status : "?", f->cases[i].present ? "there" : "missing");
    }
    cJSON_Delete(summary);
}

/* The index of the "status" column in the CSV header. */
static int status_column(const char *header)
{
    int k = 0;
    for (const char *c = header; c && *c != '\n'; c = strchr(c, ','), c = c ? c + 1 : NULL, ++k)
        if (strncmp(c, "status,", 7) == 0) return k;
    return -1;
}

/* summary.csv, when there, the same (its cells hold no commas in this study). */
static void expect_csv_agrees(const char *out, const folder *f, const char *when)
{
    char path[PATH_SIZE];
    join(path, out, "summary.csv");
    if (access(path, F_OK) != 0) return;
    char *csv = slurp(path);
    int col = status_column(csv);
    cr_assert_geq(col, 0, "%s: summary.csv has no status column: %.200s", when, csv);
    const char *line = strchr(csv, '\n');
    int i = 0;
    for (; line && line[1]; line = strchr(line + 1, '\n'), ++i) {
        const char *cell = line + 1;
        for (int k = 0; k < col && cell; ++k) cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
        cr_assert_not_null(cell, "%s: summary.csv row %d is short", when, i);
        char status[32];
        size_t len = strcspn(cell, ",\n");
        snprintf(status, sizeof status, "%.*s", (int)(len < 31 ? len : 31), cell);
        cr_assert_lt(i, N_CASES, "%s: summary.csv has too many rows", when);
        cr_expect_eq(has_result(status), f->cases[i].present, "%s: summary.csv says case %d is %s, its file is %s",
                     when, i, status, f->cases[i].present ? "there" : "missing");
    }
    cr_expect_eq(i, N_CASES, "%s: summary.csv has %d rows", when, i);
    free(csv);
}

/* ---------------------------------------------------------------- runs -- */

static int later_than(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* After the parent of the run writing into `out` has died (it was reaped at `dead`, on
 * the clock of file times): its workers go within the grace period, no case file was
 * put in place after it died (file times come from a clock a tick behind, so a later
 * time is a later rename), and the folder then stays as it is, holding only complete
 * case files and a summary that agrees with them. *after receives what it holds. */
static void expect_quiet_and_true(const char *out, const struct timespec *dead, const reference *ref, folder *after,
                                  const char *when)
{
    double t0 = now_seconds();
    int live;
    while ((live = live_processes_of(out)) > 0 && now_seconds() - t0 < GRACE_SECONDS) sleep_seconds(0.005);
    cr_expect_eq(live, 0, "%s: %d processes of the run still alive %.1f s after its parent died", when, live,
                 GRACE_SECONDS);
    folder later;
    look(out, after);
    sleep_seconds(WATCH_SECONDS);
    look(out, &later);
    cr_expect_str_eq(later.names, after->names, "%s: the folder changed after the parent died", when);
    for (size_t i = 0; i < N_CASES; ++i)
        cr_expect(same_file(&after->cases[i], &later.cases[i]), "%s: case %zu was written after the parent died",
                  when, i);
    free(later.names);
    for (size_t i = 0; i < N_CASES; ++i)
        cr_expect(!after->cases[i].present || !later_than(&after->cases[i].ctime, dead),
                  "%s: case %zu was put in place after the parent died", when, i);
    expect_complete_cases(out, after, ref, when);
    expect_json_agrees(out, after, when);
    expect_csv_agrees(out, after, when);
}

/* A parent that handled SIGINT or SIGTERM (one that did run workers) left the summary
 * and no temporary file. */
static void expect_tidy(const char *out, const folder *f, const char *when)
{
    if (f->n_cases == 0) return; /* it may have died before it blocked the signal */
    char path[PATH_SIZE];
    join(path, out, "summary.json");
    cr_expect_eq(access(path, F_OK), 0, "%s: no summary.json after the parent stopped", when);
    join(path, out, "summary.csv");
    cr_expect_eq(access(path, F_OK), 0, "%s: no summary.csv after the parent stopped", when);
    cr_expect_eq(count_temporaries(out), 0, "%s: temporary files left:\n%s", when, f->names);
}

/* Runs the same command again: it reuses every case file there, computes the rest and
 * ends as the uninterrupted run. */
static void expect_resume(const char *dir, const char *file, const char *out, const folder *before,
                          const reference *ref, const char *when)
{
    run_result r;
    run(dir, (const char *[]){"study", file, "-o", out, "-j", "2", "-v", NULL}, &r);
    cr_assert_eq(r.status, 0, "%s: the resumed run failed: %s", when, r.err);
    char expect[96];
    snprintf(expect, sizeof expect, "%d with a result already, %d to run", before->n_cases, N_CASES - before->n_cases);
    cr_expect(strstr(r.err, expect) != NULL, "%s: the resumed run does not say '%s':\n%s", when, expect, r.err);
    run_free(&r);
    folder now;
    look(out, &now);
    cr_expect_eq(now.n_cases, N_CASES, "%s: %d case files after the resumed run", when, now.n_cases);
    for (size_t i = 0; i < N_CASES; ++i)
        if (before->cases[i].present)
            cr_expect(same_file(&before->cases[i], &now.cases[i]), "%s: case %zu was computed again", when, i);
    expect_complete_cases(out, &now, ref, when);
    cr_expect_eq(count_temporaries(out), 0, "%s: temporary files left after the resumed run:\n%s", when, now.names);
    free(now.names);
    cJSON *summary = summary_without_wall_times(out);
    cr_expect(cJSON_Compare(summary, ref->summary, 1), "%s: the resumed summary differs from the uninterrupted one",
              when);
    cJSON_Delete(summary);
}

/* How the parent ended: by the signal, or on its own (it had finished). */
static void expect_ended_by(int ws, int sig, const char *when)
{
    cr_expect((WIFSIGNALED(ws) && WTERMSIG(ws) == sig) || (WIFEXITED(ws) && WEXITSTATUS(ws) == 0),
              "%s: the parent ended with status %#x", when, ws);
}

static void skip_unless_possible(void)
{
    if (access("/proc/self/cmdline", R_OK) != 0) cr_skip_test("no /proc to find the workers in");
    if (getenv("SP_TEST_VALGRIND") && getenv("SP_TEST_VALGRIND")[0])
        cr_skip_test("the kills are timed against a run at full speed (study/* covers the code under valgrind)");
    unignore(SIGINT);
    unignore(SIGTERM);
}

Test(study_kill, killing_the_parent_alone_at_random_moments, .timeout = 240)
{
    skip_unless_possible();
    char dir[PATH_SIZE], file[PATH_SIZE];
    sp_test_scratch_dir(dir, "study_kill", "alone");
    write_study(dir, file);
    reference ref;
    run_reference(dir, file, &ref);
    cr_log_info("the uninterrupted run took %.3f s", ref.seconds);
    static const int signals[] = {SIGKILL, SIGTERM, SIGINT};
    const char *seed = getenv("SP_TEST_KILL_SEED");
    uint64_t rng = seed && seed[0] ? strtoull(seed, NULL, 0) | 1u : SEED;
    cr_log_info("seed %#llx", (unsigned long long)rng);
    int mid_run = 0;
    for (int round = 0; round < ROUNDS; ++round) {
        /* a moment of the run, whatever the machine's load: after a number of case files
         * (0 to N − 1), then up to two cases' time more */
        const int sig = signals[round % 3];
        const int after = (int)(uniform01(&rng) * N_CASES);
        const double delay = 2.0 * ref.seconds / N_CASES * uniform01(&rng);
        char out[PATH_SIZE], name[32], when[128];
        snprintf(name, sizeof name, "round-%02d", round);
        join(out, dir, name);
        snprintf(when, sizeof when, "round %d (signal %d %.3f s after %d case files)", round, sig, delay, after);

        pid_t pid = start(dir, NULL, (const char *[]){"study", file, "-o", out, "-j", "2", NULL}, 0);
        wait_for_cases(out, after);
        sleep_seconds(delay);
        cr_assert_eq(kill(pid, sig), 0);
        int ws;
        struct timespec dead;
        cr_assert_eq(waitpid(pid, &ws, 0), pid);
        clock_gettime(CLOCK_REALTIME, &dead);
        expect_ended_by(ws, sig, when);

        folder f;
        expect_quiet_and_true(out, &dead, &ref, &f, when);
        if (sig != SIGKILL && WIFSIGNALED(ws)) expect_tidy(out, &f, when);
        cr_log_info("%s: %d of %d cases there", when, f.n_cases, N_CASES);
        mid_run += f.n_cases > 0 && f.n_cases < N_CASES;
        expect_resume(dir, file, out, &f, &ref, when);
        free(f.names);
        remove_tree(out);
    }
    /* not a measure of speed: the kills must fall inside runs for the test to test */
    cr_expect_geq(mid_run, ROUNDS / 2, "only %d of %d kills came in the middle of a run", mid_run, ROUNDS);
    free_reference(&ref);
    remove_tree(dir);
}

/* ^C in a terminal: SIGINT to the parent and its workers at once. The interrupted cases
 * are pending, not failed. */
Test(study_kill, a_sigint_to_the_process_group_stops_the_study_cleanly, .timeout = 120)
{
    skip_unless_possible();
    char dir[PATH_SIZE], file[PATH_SIZE], out[PATH_SIZE];
    sp_test_scratch_dir(dir, "study_kill", "group");
    write_study(dir, file);
    reference ref;
    run_reference(dir, file, &ref);
    join(out, dir, "interrupted");
    pid_t pid = start(dir, NULL, (const char *[]){"study", file, "-o", out, "-j", "2", NULL}, 1);
    wait_for_cases(out, N_CASES / 2);
    cr_assert_eq(kill(-pid, SIGINT), 0);
    int ws;
    struct timespec dead;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    clock_gettime(CLOCK_REALTIME, &dead);
    expect_ended_by(ws, SIGINT, "^C");
    folder f;
    expect_quiet_and_true(out, &dead, &ref, &f, "^C");
    if (WIFSIGNALED(ws)) {
        expect_tidy(out, &f, "^C");
        char path[PATH_SIZE];
        join(path, dir, "captured-stderr");
        char *err = slurp(path);
        cr_expect(strstr(err, "stopped by signal 2") && strstr(err, "the same command resumes the study"),
                  "^C: the command does not say that it stopped: %s", err);
        free(err);
    }
    cr_log_info("^C: %d of %d cases there", f.n_cases, N_CASES);
    expect_resume(dir, file, out, &f, &ref, "^C");
    free(f.names);
    free_reference(&ref);
    remove_tree(dir);
}
