/* A study run's bookkeeping, whatever runs its cases (sp_study_run.h): the folder, its
 * log and lock, the cases finished before, the summary at the start and at the end, the
 * progress on stderr, one case run into its file with its outcome as text, and the
 * record of each case as it ends.
 *
 * The summary never disagrees with the case files: a worker adds its file under DIR's
 * lock after removing the summary, which the run writes under the lock once no worker
 * runs (sp_study_run_case_locked), and a worker whose parent has gone adds nothing. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#include "planner/sp_clock.h"
#include "planner/study/sp_study.h"
#include "planner/study/sp_study_run.h"
#include "planner/study/study_run_internal.h"
#include "problems/sp_result_file.h"

/* mkdir -p */
static int make_dir(const char *dir, char *why, size_t why_size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(why, why_size, "path too long");
        return -1;
    }
    for (char *p = path + 1;; ++p) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            snprintf(why, why_size, "cannot create %.300s: %s", path, strerror(errno));
            return -1;
        }
        *p = c;
        if (c == '\0') break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "not a directory");
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, why_size, "cannot write: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* "steps=40 scheme=hohp_sv", cut short past `size`. */
static void describe_values(const sp_study *s, size_t i, char *out, size_t size)
{
    cJSON *values = sp_study_case_values(s, i);
    size_t used = 0;
    out[0] = '\0';
    const cJSON *v;
    cJSON_ArrayForEach(v, values)
    {
        char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
        int w = snprintf(out + used, size - used, "%s%s=%s", used ? " " : "", v->string,
                         text ? text : (v->valuestring ? v->valuestring : ""));
        free(text);
        if (w < 0 || (size_t)w >= size - used) break;
        used += (size_t)w;
    }
    cJSON_Delete(values);
}

static void format_seconds(double s, char *out, size_t size)
{
    if (s < 60.0)
        snprintf(out, size, "%.1f s", s);
    else if (s < 3600.0)
        snprintf(out, size, "%d min %02d s", (int)(s / 60.0), (int)fmod(s, 60.0));
    else
        snprintf(out, size, "%d h %02d min", (int)(s / 3600.0), (int)fmod(s / 60.0, 60.0));
}

/* After each case: with -v one line per case; on a terminal (without -v) one status
 * line rewritten in place, also once a second while cases run (`status` NULL). */
void sp_study_report(sp_study_run *r, size_t i, const char *status, double wall)
{
    if (!r->verbose && !r->terminal) return;
    if (!status && r->verbose) return;
    size_t total = sp_study_case_count(r->study);
    size_t done = r->done + r->failed;
    double elapsed = sp_clock_seconds() - r->start;
    char el[32], left[48] = "", values[160];
    format_seconds(elapsed, el, sizeof el);
    if (r->finished < r->to_run && r->finished > 0) {
        char t[32];
        format_seconds(elapsed / (double)r->finished * (double)(r->to_run - r->finished), t, sizeof t);
        snprintf(left, sizeof left, ", about %s left", t);
    }
    if (r->verbose) {
        describe_values(r->study, i, values, sizeof values);
        fprintf(stderr, "[%zu/%zu] case %zu (%s): %s in %.2f s; %zu failed, elapsed %s%s\n", done, total, i, values,
                status, wall, r->failed, el, left);
    } else {
        fprintf(stderr, "\r%s: %zu/%zu cases done, %zu failed, elapsed %s%s\033[K", sp_study_name(r->study), done,
                total, r->failed, el, left);
        r->status_line_open = 1;
    }
    fflush(stderr);
}

static void end_report(sp_study_run *r)
{
    if (r->status_line_open) fputc('\n', stderr);
    r->status_line_open = 0;
    if (!r->verbose && !r->terminal) return;
    char el[32];
    format_seconds(sp_clock_seconds() - r->start, el, sizeof el);
    fprintf(stderr, "%s: %zu of %zu cases done, %zu failed, %zu computed in %s; summary in %s/summary.csv\n",
            sp_study_name(r->study), r->done, sp_study_case_count(r->study), r->failed, r->finished, el, r->dir);
}

cJSON *sp_study_figures_from_file(const sp_study_run *r, size_t i)
{
    cJSON *result = sp_study_load_case(r->study, i, r->dir);
    cJSON *figures = result ? sp_study_result_figures(result) : NULL;
    cJSON_Delete(result);
    return figures;
}

/* Writes the summary from what the run has recorded (which is what the log holds). It
 * is written at the start and at the end of a run only: a rewrite costs every row, so
 * rewriting it as cases finish made a study's bookkeeping grow with the square of its
 * cases. A worker removes it before it adds a case file, so that a summary present in
 * DIR lists exactly the case files there; it is written under DIR's lock for the same
 * reason. A failure to write is reported once and makes the study fail. */
static void write_summary(sp_study_run *r)
{
    char why[512];
    int lock = sp_study_lock(r->dir);
    sp_status st = sp_study_summary_write(r->summary, r->dir, why, sizeof why);
    sp_study_unlock(lock);
    if (st != SP_OK) {
        if (!r->summary_failed) r->error(r->file, why);
        r->summary_failed = 1;
    }
}

/* A worker whose parent has gone belongs to no study any more: nothing would list what
 * it adds (getppid changes when the parent dies). */
static int parent_alive(void *ctx) { return getppid() == ((const sp_study_run *)ctx)->parent; }

char *sp_study_run_one(sp_study_run *r, size_t i, case_runner runner)
{
    char why[512] = "";
    cJSON *figures = NULL;
    sp_status st = runner == IN_MPI_RANK
                       ? sp_study_run_case(r->study, i, r->dir, &figures, why, sizeof why)
                       : sp_study_run_case_locked(r->study, i, r->dir, runner == IN_WORKER ? parent_alive : NULL, r,
                                                  &figures, why, sizeof why);
    char *json = st == SP_OK && figures ? sp_json_print(figures, 0, NULL) : NULL; /* exact numbers */
    cJSON_Delete(figures);
    const char *body = st == SP_OK ? (json && strlen(json) < OUTCOME_MAX ? json : "") : why;
    size_t n = strlen(body);
    char *text = malloc(n + 2);
    if (text) {
        text[0] = st == SP_OK ? 'R' : 'E';
        memcpy(text + 1, body, n + 1);
    }
    free(json);
    return text;
}

void sp_study_record(sp_study_run *r, size_t i, const cJSON *figures, const char *why, double wall)
{
    const char *status = figures ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(figures, "status")) : "failed";
    char problem[512];
    if (sp_study_log_record(r->log, NULL, i, figures, why, wall, problem, sizeof problem) != SP_OK && !r->log_failed) {
        r->error(r->file, problem);
        r->log_failed = 1;
    }
    r->finished++;
    *(figures ? &r->done : &r->failed) += 1;
    sp_study_report(r, i, status ? status : "?", wall);
}

/* Records a finished case from its outcome text (NULL: out of memory). The parent keeps
 * no result tree: the figures come with the outcome, the file is read only when they
 * could not be sent. */
void sp_study_record_outcome(sp_study_run *r, size_t i, const char *outcome, double wall)
{
    if (outcome && outcome[0] == 'R') {
        cJSON *figures = outcome[1] ? cJSON_Parse(outcome + 1) : NULL;
        if (!figures) figures = sp_study_figures_from_file(r, i);
        sp_study_record(r, i, figures, "the result file cannot be read back", wall);
        cJSON_Delete(figures);
    } else {
        sp_study_record(r, i, NULL, outcome && outcome[0] ? outcome + 1 : "out of memory", wall);
    }
}

/* The cases without a complete result in DIR (their list in todo, count returned);
 * the others go into the summary as the log (or, for files it does not list, the file)
 * has them. */
static size_t pending_cases(sp_study_run *r, size_t *todo)
{
    size_t n = sp_study_log_resume(r->log, r->summary, todo);
    r->done = sp_study_summary_done(r->summary);
#ifdef __GLIBC__
    /* The results just read leave freed memory all over the heap; workers forked now
     * would copy every page of it they touch again (copy-on-write): give it back. */
    malloc_trim(0);
#endif
    return n;
}

/* Until the workers start a stop signal ends the process at once (nothing is under way);
 * over MPI, stopping is left to mpirun or the batch system, which signal every rank. */
int sp_study_execute(const sp_study_job *job, sp_study *study, const sp_study_executor *ex, int *stop)
{
    const int rank = job->rank, size = job->size;
    int rc = SP_STUDY_EXIT_DONE;
    char why[512];
    sp_study_log *log = NULL;
    if (rank == 0 && make_dir(job->dir, why, sizeof why) != 0) {
        job->error(job->dir, why);
        rc = SP_STUDY_EXIT_BAD_INPUT;
    }
    if (rank == 0 && !rc) {
        /* the log's lock keeps a second study out of the folder until this one ends */
        sp_status st = sp_study_log_open(study, job->dir, &log, why, sizeof why);
        if (st != SP_OK) {
            job->error(job->dir, why);
            rc = st == SP_ERR_INVALID ? SP_STUDY_EXIT_BAD_INPUT : SP_STUDY_EXIT_INTERNAL;
        }
    }
    ex->agree(&rc, size);
    if (rc) {
        sp_study_free(study);
        return rc;
    }
    sp_study_run r = {.file = job->file,
                      .dir = job->dir,
                      .error = job->error,
                      .study = study,
                      .log = log,
                      .verbose = job->verbose && rank == 0,
                      .terminal = rank == 0 && isatty(STDERR_FILENO),
                      .start = sp_clock_seconds(),
                      .deadline = job->deadline,
                      .jobs = job->jobs,
                      .rank = rank,
                      .size = size};
    size_t total = sp_study_case_count(study);
    size_t *todo = r.todo = malloc((total ? total : 1) * sizeof *todo);
    r.summary = rank == 0 ? sp_study_summary_new(study) : NULL;
    int ready = todo && (rank != 0 || r.summary);
    if (rank == 0 && ready) {
        sp_study_remove_temporaries(job->dir);
        r.to_run = pending_cases(&r, todo);
        write_summary(&r);
        /* Every worker is a fork of this process, whose page tables the kernel copies:
         * rows of 10^5 cases held through the run made each case cost more as the study
         * grew. The log has what they would hold; the summary is built again at the end. */
        sp_study_summary_free(r.summary);
        r.summary = NULL;
        if (r.verbose)
            fprintf(stderr, "%s: %zu cases, %zu with a result already, %zu to run\n", sp_study_name(study), total,
                    total - r.to_run, r.to_run);
    }
    ready = ex->run(&r, todo, ready);

    rc = SP_STUDY_EXIT_DONE;
    if (!ready) {
        if (rank == 0) job->error(job->file, "out of memory");
        rc = SP_STUDY_EXIT_INTERNAL;
    } else if (rank == 0) {
        r.summary = sp_study_summary_new(study);
        sp_status st = r.summary ? sp_study_log_summary(log, r.summary, why, sizeof why) : SP_ERR_NOMEM;
        if (st == SP_OK)
            write_summary(&r);
        else
            job->error(job->file, r.summary ? why : "out of memory");
        r.summary_failed |= st != SP_OK;
        end_report(&r);
        size_t failed = r.summary ? sp_study_summary_failed(r.summary) : r.failed;
        if (failed > 0) {
            char message[4400];
            snprintf(message, sizeof message, "%zu of %zu cases failed (see %s/summary.json)", failed, total, job->dir);
            job->error(job->file, message);
            rc = SP_STUDY_EXIT_INTERNAL;
        }
        const size_t done = r.summary ? sp_study_summary_done(r.summary) : r.done;
        if (r.stop == SIGALRM) {
            char message[256];
            snprintf(message, sizeof message,
                     "stopped after --max-seconds %g with %zu of %zu cases done; the same command resumes the study",
                     job->seconds, done, total);
            job->error(job->file, message);
            rc = SP_STUDY_EXIT_OUT_OF_TIME;
        } else if (r.stop) {
            char message[256];
            snprintf(message, sizeof message,
                     "stopped by signal %d (%s) with %zu of %zu cases done; the same command resumes the study", r.stop,
                     strsignal(r.stop), done, total);
            job->error(job->file, message);
            rc = SP_STUDY_EXIT_INTERNAL;
        }
        if (r.summary_failed || r.log_failed) rc = SP_STUDY_EXIT_INTERNAL;
    }
    ex->agree(&rc, size);
    free(todo);
    sp_study_summary_free(r.summary);
    sp_study_log_close(log);
    sp_study_free(study);
    /* a stop signal that came after the workers ends the process here, all written */
    if (r.masked) sigprocmask(SIG_SETMASK, &r.worker_mask, NULL);
    *stop = r.stop == SIGALRM ? 0 : r.stop; /* the clock's stop is an exit status, not a death */
    return rc;
}
