/* symplan study STUDY.json -o DIR [-j N] [-v]: runs every case of a study (planner/
 * sp_study.h) into DIR, in worker processes on one machine or over MPI ranks, skipping
 * the cases whose complete result DIR already holds, and keeps DIR/summary.json and
 * DIR/summary.csv up to date as cases finish.
 *
 * On one machine the parent forks up to N workers (default: the online processors);
 * each runs one case into its file and exits, and the parent collects them with
 * waitpid. What the summary needs of a case (its figures, or why it failed) comes back
 * through a pipe, so that the parent never holds a whole result. Built with
 * -DSP_HAVE_MPI (`make mpi`, build/symplan-mpi) and started by mpirun or srun with more
 * than one rank, the cases still to do are dealt out in turn (the j-th to rank j mod K),
 * each rank runs its own one at a time, and rank 0 (which runs its share too) collects
 * the completions and writes the summary. Case files are the same bytes either way. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SP_HAVE_MPI
#include <mpi.h>
#endif
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#include "planner/sp_clock.h"
#include "planner/cli/sp_commands.h"
#include "planner/study/sp_study.h"
#include "problems/sp_result_file.h"

enum { EXIT_DONE = 0, EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2 };

static void usage(void)
{
    fputs("usage: symplan study STUDY.json -o DIR [-j N] [-v] [--max-cases N] [--max-steps N] ...\n", stderr);
}

/* "where: [cases[i]: ][path: ]message" on one line (sp_cmd_error). */
static void error_line(const char *where, long case_index, const char *path, const char *message)
{
    char at[256];
    if (case_index >= 0)
        snprintf(at, sizeof at, "cases[%ld]%s%.200s", case_index, path && path[0] ? ": " : "", path ? path : "");
    else
        snprintf(at, sizeof at, "%.200s", path ? path : "");
    sp_cmd_error(where, at, message);
}

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

/* ------------------------------------------------------------ progress -- */

typedef struct study_run {
    const char *file, *dir;
    sp_study *study;
    sp_study_summary *summary;
    int verbose, terminal, status_line_open;
    sigset_t worker_mask;    /* the signal mask workers start with */
    size_t to_run, finished; /* cases to compute in this run, and computed so far */
    double start;
    int summary_failed, summary_dirty;
    double summary_written; /* when the summary was last written */
} study_run;

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
static void report_case(study_run *r, size_t i, const char *status, double wall)
{
    if (!r->verbose && !r->terminal) return;
    if (!status && r->verbose) return;
    size_t total = sp_study_case_count(r->study);
    size_t done = sp_study_summary_done(r->summary) + sp_study_summary_failed(r->summary);
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
                status, wall, sp_study_summary_failed(r->summary), el, left);
    } else {
        fprintf(stderr, "\r%s: %zu/%zu cases done, %zu failed, elapsed %s%s\033[K", sp_study_name(r->study), done,
                total, sp_study_summary_failed(r->summary), el, left);
        r->status_line_open = 1;
    }
    fflush(stderr);
}

static void end_report(study_run *r)
{
    if (r->status_line_open) fputc('\n', stderr);
    r->status_line_open = 0;
    if (!r->verbose && !r->terminal) return;
    char el[32];
    format_seconds(sp_clock_seconds() - r->start, el, sizeof el);
    fprintf(stderr, "%s: %zu of %zu cases done, %zu failed, %zu computed in %s; summary in %s/summary.csv\n",
            sp_study_name(r->study), sp_study_summary_done(r->summary), sp_study_case_count(r->study),
            sp_study_summary_failed(r->summary), r->finished, el, r->dir);
}

/* Writes the summary when `force`d, or when it has changed and was last written a
 * second ago or more (a study of many quick cases does not spend its time rewriting
 * it). A failure to write is reported once and makes the study fail. */
static void refresh_summary(study_run *r, int force)
{
    double now = sp_clock_seconds();
    if (!force && (!r->summary_dirty || now - r->summary_written < 1.0)) return;
    char why[512];
    if (sp_study_summary_write(r->summary, r->dir, why, sizeof why) != SP_OK) {
        if (!r->summary_failed) error_line(r->file, -1, NULL, why);
        r->summary_failed = 1;
    }
    r->summary_dirty = 0;
    r->summary_written = now;
}

/* How a case ended, as text that can cross a pipe or an MPI message: "R" and the
 * result's figures as compact JSON (sp_study_result_figures), or "E" and why it failed.
 * Figures longer than a pipe holds are left out ("R" alone): the file is read instead. */
#define OUTCOME_MAX 60000

static char *run_case(study_run *r, size_t i)
{
    char why[512] = "";
    cJSON *figures = NULL;
    sp_status st = sp_study_run_case(r->study, i, r->dir, &figures, why, sizeof why);
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

/* Records a finished case from its outcome text (NULL: out of memory). The parent keeps
 * no result tree: the figures come with the outcome, the file is read only when they
 * could not be sent. */
static void record_case(study_run *r, size_t i, const char *outcome, double wall)
{
    const char *status = "failed";
    cJSON *figures = NULL;
    if (outcome && outcome[0] == 'R') {
        figures = outcome[1] ? cJSON_Parse(outcome + 1) : NULL;
        if (!figures) {
            cJSON *result = sp_study_load_case(r->study, i, r->dir);
            figures = result ? sp_study_result_figures(result) : NULL;
            cJSON_Delete(result);
        }
        if (figures) {
            sp_study_summary_set_figures(r->summary, i, figures, wall);
            status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(figures, "status"));
        } else {
            sp_study_summary_set_failed(r->summary, i, "the result file cannot be read back", wall);
        }
    } else {
        sp_study_summary_set_failed(r->summary, i, outcome && outcome[0] ? outcome + 1 : "out of memory", wall);
    }
    r->finished++;
    r->summary_dirty = 1;
    refresh_summary(r, 0);
    report_case(r, i, status ? status : "?", wall);
    cJSON_Delete(figures);
}

/* ------------------------------------------------------- local workers -- */

/* SIGCHLD is blocked while workers run, so that the parent can wait for the next one
 * to end with a timeout (sigtimedwait) and refresh the status line meanwhile. */
static void on_sigchld(int sig) { (void)sig; }

typedef struct worker {
    pid_t pid;
    size_t case_index;
    double start;
    int pipe_fd; /* read end: the outcome */
} worker;

/* The worker's body: runs case i, writes its outcome to fd, exits 0 (1 on failure). */
static void run_worker(study_run *r, size_t i, int fd)
{
    char *outcome = run_case(r, i);
    const char *p = outcome ? outcome : "Eout of memory";
    size_t n = strlen(p);
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        p += w, n -= (size_t)w;
    }
    close(fd);
    _exit(outcome && outcome[0] == 'R' ? 0 : 1);
}

/* Reads what a worker wrote before it ended (it fits in the pipe). */
static void read_outcome(int fd, char *text, size_t size)
{
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && ((n = read(fd, text + got, size - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
        if (n > 0) got += (size_t)n;
    text[got] = '\0';
    close(fd);
}

static int start_worker(study_run *r, size_t i, worker *w)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        sigprocmask(SIG_SETMASK, &r->worker_mask, NULL);
        run_worker(r, i, fds[1]);
    }
    close(fds[1]);
    *w = (worker){.pid = pid, .case_index = i, .start = sp_clock_seconds(), .pipe_fd = fds[0]};
    return 0;
}

static void finish_worker(study_run *r, worker *w, int wait_status)
{
    char outcome[OUTCOME_MAX + 2];
    read_outcome(w->pipe_fd, outcome, sizeof outcome);
    int ok = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0 && outcome[0] == 'R';
    if (!ok && outcome[0] != 'E') {
        if (WIFSIGNALED(wait_status))
            snprintf(outcome, sizeof outcome, "Ethe worker was killed by signal %d", WTERMSIG(wait_status));
        else
            snprintf(outcome, sizeof outcome, "Ethe worker exited with status %d", WEXITSTATUS(wait_status));
    }
    record_case(r, w->case_index, outcome, sp_clock_seconds() - w->start);
    w->pid = 0;
}

/* Runs the listed cases with up to `jobs` workers at a time. */
static void run_local(study_run *r, const size_t *todo, size_t n, int jobs)
{
    if ((size_t)jobs > n) jobs = (int)n;
    worker *workers = calloc((size_t)(jobs > 0 ? jobs : 1), sizeof *workers);
    if (!workers) {
        for (size_t k = 0; k < n; ++k) record_case(r, todo[k], NULL, NAN);
        return;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    struct sigaction act = {.sa_handler = on_sigchld}, old_act;
    sigemptyset(&act.sa_mask);
    sigaction(SIGCHLD, &act, &old_act);
    sigprocmask(SIG_BLOCK, &chld, &r->worker_mask);
    size_t next = 0;
    int running = 0;
    while (next < n || running > 0) {
        for (int slot = 0; slot < jobs && next < n; ++slot) {
            if (workers[slot].pid) continue;
            if (start_worker(r, todo[next], &workers[slot]) != 0) {
                if (running > 0) break; /* no process to spare now: wait for one */
                /* none at all: run the case here */
                double t0 = sp_clock_seconds();
                char *outcome = run_case(r, todo[next]);
                record_case(r, todo[next], outcome, sp_clock_seconds() - t0);
                free(outcome);
            } else {
                ++running;
            }
            ++next;
        }
        if (running == 0) continue;
        int ws;
        pid_t pid = waitpid(-1, &ws, WNOHANG);
        if (pid == 0) {
            /* none has ended: wait for SIGCHLD, at most a second */
            struct timespec second = {1, 0};
            if (sigtimedwait(&chld, NULL, &second) < 0 && errno == EAGAIN) {
                refresh_summary(r, 0);
                report_case(r, 0, NULL, 0.0);
            }
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR) continue;
            break; /* ECHILD: nothing left to wait for */
        }
        for (int slot = 0; slot < jobs; ++slot)
            if (workers[slot].pid == pid) {
                finish_worker(r, &workers[slot], ws);
                --running;
            }
    }
    sigprocmask(SIG_SETMASK, &r->worker_mask, NULL);
    sigaction(SIGCHLD, &old_act, NULL);
    free(workers);
}

/* ----------------------------------------------------------------- MPI -- */

#ifdef SP_HAVE_MPI
/* A completion message: the case index and wall time as two doubles, then the outcome
 * text with its NUL. */
enum { TAG_DONE = 17 };

static void receive_one(study_run *r, int blocking)
{
    int flag = 1, count = 0;
    MPI_Status status;
    if (blocking)
        MPI_Probe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &status);
    else
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return;
    MPI_Get_count(&status, MPI_BYTE, &count);
    char *buf = malloc((size_t)count + 1);
    if (!buf) {
        error_line(r->file, -1, NULL, "out of memory");
        MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL);
    }
    MPI_Recv(buf, count, MPI_BYTE, status.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf[count] = '\0';
    double head[2];
    if ((size_t)count >= sizeof head) {
        memcpy(head, buf, sizeof head);
        record_case(r, (size_t)head[0], (size_t)count > sizeof head ? buf + sizeof head : NULL, head[1]);
    }
    free(buf);
}

/* Deals the cases still to do over the ranks (the j-th to rank j mod size); rank 0
 * records every completion. */
static void run_mpi(study_run *r, int rank, int size, const size_t *todo, size_t n)
{
    size_t expected = 0; /* completions rank 0 waits for from the others */
    for (size_t j = 0; j < n; ++j) {
        int owner = (int)(j % (size_t)size);
        if (owner != rank) {
            if (rank == 0) ++expected;
            continue;
        }
        double t0 = sp_clock_seconds();
        char *outcome = run_case(r, todo[j]);
        double wall = sp_clock_seconds() - t0;
        if (rank == 0) {
            record_case(r, todo[j], outcome, wall);
            while (expected > 0) { /* what has come from the others meanwhile */
                size_t before = r->finished;
                receive_one(r, 0);
                if (r->finished == before) break;
                --expected;
            }
        } else {
            const char *text = outcome ? outcome : "Eout of memory";
            double head[2] = {(double)todo[j], wall};
            size_t n_text = strlen(text) + 1;
            char *msg = malloc(sizeof head + n_text);
            if (msg) {
                memcpy(msg, head, sizeof head);
                memcpy(msg + sizeof head, text, n_text);
            }
            /* without memory for the message, rank 0 still hears of the case */
            MPI_Send(msg ? msg : (char *)head, (int)(msg ? sizeof head + n_text : sizeof head), MPI_BYTE, 0, TAG_DONE,
                     MPI_COMM_WORLD);
            free(msg);
        }
        free(outcome);
    }
    if (rank == 0)
        for (; expected > 0; --expected) receive_one(r, 1);
}

/* Rank 0 tells every rank the cases to do (its list in todo), then all run their
 * share. Returns 0, running nothing, when any rank is not ready. */
static int share_and_run(study_run *r, int rank, int size, size_t *todo, int ready)
{
    int all_ready = 0;
    MPI_Allreduce(&ready, &all_ready, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ready) return 0;
    unsigned long long count = r->to_run;
    MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    unsigned long long *list = malloc((count ? count : 1) * sizeof *list);
    int have = list != NULL, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        free(list);
        return 0;
    }
    if (rank == 0)
        for (size_t k = 0; k < count; ++k) list[k] = todo[k];
    MPI_Bcast(list, (int)count, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    for (size_t k = 0; k < count; ++k) todo[k] = (size_t)list[k];
    free(list);
    r->to_run = (size_t)count;
    run_mpi(r, rank, size, todo, r->to_run);
    return 1;
}
#endif

/* ----------------------------------------------------------------- main -- */

typedef struct study_args {
    const char *file, *dir;
    int jobs, verbose;
    sp_limits limits;
} study_args;

static int parse_args(int argc, char **argv, study_args *a)
{
    *a = (study_args){.limits = sp_limits_default()};
    for (int i = 0; i < argc; ++i) {
        int limit = sp_cmd_limit_option(argc, argv, &i, &a->limits);
        if (limit < 0) return -1;
        if (limit > 0) continue;
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            a->dir = argv[++i];
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            char *end;
            long j = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || j < 1 || j > 4096) {
                error_line("symplan study", -1, "-j", "must be a number of workers from 1 to 4096");
                return -1;
            }
            a->jobs = (int)j;
        } else if (strcmp(argv[i], "-v") == 0) {
            a->verbose = 1;
        } else if (!a->file && argv[i][0] != '-') {
            a->file = argv[i];
        } else {
            usage();
            return -1;
        }
    }
    if (!a->file || !a->dir || !a->dir[0]) {
        usage();
        return -1;
    }
    if (a->jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        a->jobs = cpus > 0 ? (int)(cpus < 4096 ? cpus : 4096) : 1;
    }
    return 0;
}

/* Reads and validates the study; prints the one error line (when `speak`). */
static int load_study(const study_args *a, sp_study **study, int speak)
{
    sp_study_error err;
    if (sp_study_read_file_limited(a->file, &a->limits, study, &err) == SP_OK) return EXIT_DONE;
    if (speak) error_line(a->file, err.case_index, err.input.path, err.input.message);
    return EXIT_BAD_INPUT;
}

/* The cases without a complete result in DIR (their list in todo, count returned);
 * the others go into the summary as they are. */
static size_t pending_cases(study_run *r, size_t *todo)
{
    size_t n = 0, total = sp_study_case_count(r->study);
    for (size_t i = 0; i < total; ++i) {
        cJSON *result = sp_study_load_case(r->study, i, r->dir);
        if (result)
            sp_study_summary_set_result(r->summary, i, result, NAN);
        else
            todo[n++] = i;
        cJSON_Delete(result);
    }
    sp_study_summary_reuse_wall_times(r->summary, r->dir);
#ifdef __GLIBC__
    /* The results just read leave freed memory all over the heap; workers forked now
     * would copy every page of it they touch again (copy-on-write): give it back. */
    malloc_trim(0);
#endif
    return n;
}

static int run_study(const study_args *a, int rank, int size)
{
    (void)size;
    sp_study *study = NULL;
    int rc = load_study(a, &study, rank == 0);
    if (rc) return rc;
    char why[512];
    if (rank == 0 && make_dir(a->dir, why, sizeof why) != 0) {
        error_line(a->dir, -1, NULL, why);
        rc = EXIT_BAD_INPUT;
    }
#ifdef SP_HAVE_MPI
    if (size > 1) MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    if (rc) {
        sp_study_free(study);
        return rc;
    }
    study_run r = {.file = a->file,
                   .dir = a->dir,
                   .study = study,
                   .verbose = a->verbose && rank == 0,
                   .terminal = rank == 0 && isatty(STDERR_FILENO),
                   .start = sp_clock_seconds()};
    size_t total = sp_study_case_count(study);
    size_t *todo = malloc(total * sizeof *todo);
    r.summary = rank == 0 ? sp_study_summary_new(study) : NULL;
    int ready = todo && (rank != 0 || r.summary);
    if (rank == 0 && ready) {
        sp_study_remove_temporaries(a->dir);
        r.to_run = pending_cases(&r, todo);
        refresh_summary(&r, 1);
        if (r.verbose)
            fprintf(stderr, "%s: %zu cases, %zu with a result already, %zu to run\n", sp_study_name(study), total,
                    total - r.to_run, r.to_run);
    }
    int use_mpi = 0;
#ifdef SP_HAVE_MPI
    use_mpi = size > 1;
    if (use_mpi) ready = share_and_run(&r, rank, size, todo, ready);
#endif
    if (ready && !use_mpi) run_local(&r, todo, r.to_run, a->jobs);

    rc = EXIT_DONE;
    if (!ready) {
        if (rank == 0) error_line(a->file, -1, NULL, "out of memory");
        rc = EXIT_INTERNAL;
    } else if (rank == 0) {
        refresh_summary(&r, 1);
        end_report(&r);
        size_t failed = sp_study_summary_failed(r.summary);
        if (failed > 0) {
            char message[4400];
            snprintf(message, sizeof message, "%zu of %zu cases failed (see %s/summary.json)", failed, total, a->dir);
            error_line(a->file, -1, NULL, message);
            rc = EXIT_INTERNAL;
        }
        if (r.summary_failed) rc = EXIT_INTERNAL;
    }
#ifdef SP_HAVE_MPI
    if (size > 1) MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    free(todo);
    sp_study_summary_free(r.summary);
    sp_study_free(study);
    return rc;
}

int sp_cmd_study(int argc, char **argv)
{
    study_args a;
    if (parse_args(argc, argv, &a) != 0) return EXIT_BAD_INPUT;
    int rank = 0, size = 1;
#ifdef SP_HAVE_MPI
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    int rc = run_study(&a, rank, size);
#ifdef SP_HAVE_MPI
    MPI_Finalize();
#endif
    return rc;
}
