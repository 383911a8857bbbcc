/* symplan study STUDY.json -o DIR [-j N] [-v] [LIMITS]: runs every case of a study (planner/
 * sp_study.h) into DIR, in worker processes on one machine or over MPI ranks, skipping
 * the cases that DIR/cases.log (or, for a file it does not list, the file) shows
 * finished, appends a record to that log as each case finishes, and writes
 * DIR/summary.json and DIR/summary.csv from what is recorded at the start and at the
 * end. The log's lock keeps a second study out of DIR while this one runs.
 *
 * On one machine the parent forks up to N workers (default: the online processors),
 * once each: a worker takes case after case from its pipe and runs it into its file, and
 * what the summary needs of a case (its figures, or why it failed) comes back through a
 * second pipe, so that the parent never holds a whole result. A worker that dies (a
 * crash, a kill) loses its case only: the case is recorded as failed with the signal and
 * a new worker takes the next one. Built with
 * -DSP_HAVE_MPI (`make mpi`, build/symplan-mpi) and started by mpirun or srun with more
 * than one rank, the cases still to do are dealt out in turn (the j-th to rank j mod K),
 * each rank runs its own one at a time, and rank 0 (which runs its share too) collects
 * the completions and writes the summary. Case files are the same bytes either way.
 *
 * Workers do not outlive their parent, and the summary never disagrees with the case
 * files: a worker adds its file under DIR's lock after removing the summary, which the
 * parent writes under the lock once no worker runs (sp_study_run_case_locked), and a
 * worker whose parent has gone adds nothing. SIGINT, SIGTERM and SIGHUP stop a local
 * run: the parent ends its workers, writes the summary of the cases done and dies of the
 * signal. --max-seconds stops it the same way when its time runs out (exit 3). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SP_HAVE_MPI
#include <mpi.h>
#endif
#ifdef __linux__
#include <sys/prctl.h> /* PR_SET_PDEATHSIG */
#endif
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#include "planner/sp_clock.h"
#include "planner/cli/sp_commands.h"
#include "planner/study/sp_study.h"
#include "problems/sp_result_file.h"

/* (3: stopped by --max-seconds, as a solve whose time ran out) */
enum { EXIT_DONE = 0, EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2, EXIT_OUT_OF_TIME = 3 };

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

/* A worker process, forked once, and the cases handed to it (see "local workers" below).
 * Behind the case it runs one more may wait, when its cases are short: the worker then
 * starts it without waiting for the parent's turn to run. */
#define WORKER_QUEUE 2
typedef struct worker {
    pid_t pid;                  /* 0: a free slot */
    int queued;                 /* cases handed to it whose outcome has not come back */
    size_t cases[WORKER_QUEUE]; /* those, in the order it runs them */
    double start;               /* when the first of them started, as far as the parent knows */
    double last_wall;           /* how long its last case took (infinite before the first) */
    int to_fd;                  /* write end: the index of its next case */
    int from_fd;                /* read end (non-blocking): each case's outcome, as a frame */
    char *frame;                /* what has come of the outcome so far */
    size_t got, size;
} worker;

typedef struct study_run {
    const char *file, *dir;
    sp_study *study;
    sp_study_summary *summary; /* at the start and at the end of the run only (run_study) */
    size_t done, failed;       /* cases with a result, and failed ones, meanwhile */
    sp_study_log *log;         /* DIR/cases.log, whose lock this run holds (rank 0) */
    int verbose, terminal, status_line_open;
    sigset_t worker_mask;    /* the signal mask workers start with */
    size_t to_run, finished; /* cases to compute in this run, and computed so far */
    double start;
    int summary_failed, log_failed;
    pid_t parent;    /* the process that starts the workers */
    worker *workers; /* their slots while they run (NULL over MPI) */
    int slots;
    int stop;         /* the signal that stopped the study (SIGALRM: --max-seconds), or 0 */
    double deadline;  /* sp_clock_seconds() at which --max-seconds stops the study; 0: none */
    size_t *todo;     /* the cases of this run (held here also so that a worker, a fork of
                         this process, can reach every block it inherited until it exits) */
    size_t *returned; /* cases handed to a worker that died before it started them */
    size_t n_returned;
    struct sigaction saved_chld, saved_usr1, saved_pipe; /* as the command had them */
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

static void end_report(study_run *r)
{
    if (r->status_line_open) fputc('\n', stderr);
    r->status_line_open = 0;
    if (!r->verbose && !r->terminal) return;
    char el[32];
    format_seconds(sp_clock_seconds() - r->start, el, sizeof el);
    fprintf(stderr, "%s: %zu of %zu cases done, %zu failed, %zu computed in %s; summary in %s/summary.csv\n",
            sp_study_name(r->study), r->done, sp_study_case_count(r->study), r->failed, r->finished, el, r->dir);
}

/* Case i's figures from its file in DIR, when the file is there and complete. */
static cJSON *figures_from_file(const study_run *r, size_t i)
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
static void write_summary(study_run *r)
{
    char why[512];
    int lock = sp_study_lock(r->dir);
    sp_status st = sp_study_summary_write(r->summary, r->dir, why, sizeof why);
    sp_study_unlock(lock);
    if (st != SP_OK) {
        if (!r->summary_failed) error_line(r->file, -1, NULL, why);
        r->summary_failed = 1;
    }
}

/* How a case ends, as text that can cross a pipe or an MPI message: "R" and the
 * result's figures as compact JSON (sp_study_result_figures), or "E" and why it failed.
 * Figures longer than OUTCOME_MAX (about what a pipe holds) are left out ("R" alone):
 * the file is read instead. */
#define OUTCOME_MAX 60000

/* Where a case runs, which decides how its file is put in place: by a worker while its
 * parent lives, or by the parent itself, in step with the summary; over MPI straight
 * (ranks on other machines share no lock, and only rank 0 writes the summary). */
typedef enum case_runner { IN_WORKER, IN_PARENT, IN_MPI_RANK } case_runner;

/* A worker whose parent has gone belongs to no study any more: nothing would list what
 * it adds (getppid changes when the parent dies). */
static int parent_alive(void *ctx) { return getppid() == ((const study_run *)ctx)->parent; }

static char *run_case(study_run *r, size_t i, case_runner runner)
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

/* Records a finished case: with its figures (not kept), or failed for `why`. */
static void record(study_run *r, size_t i, const cJSON *figures, const char *why, double wall)
{
    const char *status = figures ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(figures, "status")) : "failed";
    char problem[512];
    if (sp_study_log_record(r->log, NULL, i, figures, why, wall, problem, sizeof problem) != SP_OK && !r->log_failed) {
        error_line(r->file, -1, NULL, problem);
        r->log_failed = 1;
    }
    r->finished++;
    *(figures ? &r->done : &r->failed) += 1;
    report_case(r, i, status ? status : "?", wall);
}

/* Records a finished case from its outcome text (NULL: out of memory). The parent keeps
 * no result tree: the figures come with the outcome, the file is read only when they
 * could not be sent. */
static void record_case(study_run *r, size_t i, const char *outcome, double wall)
{
    if (outcome && outcome[0] == 'R') {
        cJSON *figures = outcome[1] ? cJSON_Parse(outcome + 1) : NULL;
        if (!figures) figures = figures_from_file(r, i);
        record(r, i, figures, "the result file cannot be read back", wall);
        cJSON_Delete(figures);
    } else {
        record(r, i, NULL, outcome && outcome[0] ? outcome + 1 : "out of memory", wall);
    }
}

/* ------------------------------------------------------- local workers -- */

/* SIGCHLD (a worker ended) and SIGUSR1 (a worker has written how its case ended) are
 * blocked while workers run and taken by sigtimedwait with the stop signals, so that the
 * parent waits for all of them in one place, with a timeout that refreshes the status
 * line. Their handler does nothing: it only keeps them from being discarded (SIGCHLD's
 * default) or from ending the parent (SIGUSR1's) when one is still pending as the run
 * unblocks them. */
static void on_event(int sig) { (void)sig; }

/* The signals that stop a study (^C, kill, a closed terminal). They are blocked while
 * the workers run and taken by sigtimedwait with the events above: the parent then ends
 * its workers, writes the summary of what is done and dies of the signal. */
static const int stop_signal_list[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof stop_signal_list / sizeof stop_signal_list[0])

/* The stop signals not ignored: a study started with SIGHUP ignored (nohup) runs on. */
static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    for (size_t k = 0; k < N_STOP_SIGNALS; ++k) {
        struct sigaction now;
        if (sigaction(stop_signal_list[k], NULL, &now) == 0 && now.sa_handler != SIG_IGN)
            sigaddset(set, stop_signal_list[k]);
    }
}

static int stop_signal_pending(void)
{
    sigset_t pending;
    if (sigpending(&pending) != 0) return 0; /* (ignored ones are never pending) */
    for (size_t k = 0; k < N_STOP_SIGNALS; ++k)
        if (sigismember(&pending, stop_signal_list[k]) == 1) return 1;
    return 0;
}

/* A worker must not outlive its parent: one left running would add case files that no
 * summary lists. On Linux the kernel kills it when the parent dies; the parent may have
 * died before it was asked to, hence the check (and parent_alive before the worker puts
 * its file in place, which also holds where there is no such request). */
static void end_with_parent(pid_t parent)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL);
#endif
    if (getppid() != parent) _exit(EXIT_INTERNAL);
}

/* Writes all n bytes (0), or fails (−1: the other end is gone). */
static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* The worker's body: reads a case index, runs the case, writes back its outcome as a
 * frame — the text's length, the case's wall time, then the text — and rings the parent
 * (SIGUSR1: a signal, so that the parent waits for outcomes, ended workers, stop signals
 * and its alarm in one sigtimedwait), until the parent closes `in` (then it exits 0).
 * The parent reads a frame as it comes, in pieces if need be: a worker killed in the
 * middle of one leaves a frame cut short, which the parent takes for no word at all. */
static void serve_cases(study_run *r, int in, int out)
{
    for (;;) {
        uint64_t index;
        size_t got = 0;
        while (got < sizeof index) {
            ssize_t n = read(in, (char *)&index + got, sizeof index - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(EXIT_DONE); /* no more cases */
            got += (size_t)n;
        }
        double t0 = sp_clock_seconds();
        char *outcome = run_case(r, (size_t)index, IN_WORKER);
        double seconds = sp_clock_seconds() - t0;
        const char *text = outcome ? outcome : "Eout of memory";
        uint32_t length = (uint32_t)strlen(text);
        int ok = write_all(out, &length, sizeof length) == 0 && write_all(out, &seconds, sizeof seconds) == 0 &&
                 write_all(out, text, length) == 0;
        free(outcome);
        if (!ok) _exit(EXIT_INTERNAL);
        kill(r->parent, SIGUSR1);
    }
}

/* A frame's head: the text's length (uint32_t) and the case's wall time (double). */
#define FRAME_HEAD (sizeof(uint32_t) + sizeof(double))

/* Reads what a worker has written of its frame so far, without blocking. Returns 1 when
 * the frame is complete (w->frame + FRAME_HEAD holds its text, NUL-terminated), 0 when
 * more is to come, −1 when nothing more will (end of file, a read error, a frame no
 * worker writes). */
static int read_frame(worker *w)
{
    for (;;) {
        size_t want = FRAME_HEAD;
        if (w->got >= want) {
            uint32_t length;
            memcpy(&length, w->frame, sizeof length);
            if (length > OUTCOME_MAX + 1) return -1;
            want += length;
            if (w->got == want) {
                w->frame[w->got] = '\0';
                return 1;
            }
        }
        if (want + 1 > w->size) { /* room for the text and its NUL */
            size_t size = want + 1 > 256 ? want + 1 : 256;
            char *frame = realloc(w->frame, size);
            if (!frame) return -1;
            w->frame = frame, w->size = size;
        }
        ssize_t n = read(w->from_fd, w->frame + w->got, want - w->got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) return -1;
        w->got += (size_t)n;
    }
}

/* Frees a worker's slot once the process is collected. */
static void close_worker(worker *w)
{
    close(w->to_fd);
    close(w->from_fd);
    w->pid = 0;
    w->queued = 0;
    w->got = 0;
}

static void finish_dead_worker(study_run *r, worker *w, int wait_status);

/* Sends a worker case i, to run after those it has. Returns 0, or −1 when the worker
 * cannot take it (it has died): then it is collected, and its slot is free. */
static int give_case(study_run *r, worker *w, size_t i)
{
    uint64_t index = i;
    if (write_all(w->to_fd, &index, sizeof index) != 0) {
        kill(w->pid, SIGKILL);
        int ws = 0;
        while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR) continue;
        finish_dead_worker(r, w, ws);
        return -1;
    }
    if (w->queued == 0) w->start = sp_clock_seconds();
    w->cases[w->queued++] = i;
    return 0;
}

/* Forks a worker into the free slot. Returns 0, or −1 when no process can be made. The
 * worker keeps none of its siblings' pipes: a sibling holding the write end of a
 * worker's case pipe would keep it from seeing the end of its cases. It runs with the
 * signal mask and actions the command started with, and, when it is one of several,
 * with the planner's threads off (SYMPLAN_THREADS=1) unless the user chose a count:
 * N workers that each start a thread per processor would share the processors N times
 * over. */
static int start_worker(study_run *r, int slot)
{
    int cases[2], outcomes[2];
    if (pipe(cases) != 0) return -1;
    if (pipe(outcomes) != 0) {
        close(cases[0]);
        close(cases[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(cases[0]);
        close(cases[1]);
        close(outcomes[0]);
        close(outcomes[1]);
        return -1;
    }
    if (pid == 0) {
        end_with_parent(r->parent);
        for (int k = 0; k < r->slots; ++k)
            if (r->workers[k].pid) {
                close(r->workers[k].to_fd);
                close(r->workers[k].from_fd);
            }
        close(cases[1]);
        close(outcomes[0]);
        sigaction(SIGCHLD, &r->saved_chld, NULL);
        sigaction(SIGUSR1, &r->saved_usr1, NULL);
        sigaction(SIGPIPE, &r->saved_pipe, NULL);
        if (r->slots > 1) setenv("SYMPLAN_THREADS", "1", 0);
        sigprocmask(SIG_SETMASK, &r->worker_mask, NULL);
        serve_cases(r, cases[0], outcomes[1]);
    }
    close(cases[0]);
    close(outcomes[1]);
    /* the parent reads outcomes as they come, from every worker in turn */
    fcntl(outcomes[0], F_SETFL, fcntl(outcomes[0], F_GETFL) | O_NONBLOCK);
    worker *w = &r->workers[slot];
    char *frame = w->frame; /* kept from the slot's last worker */
    *w = (worker){
        .pid = pid, .last_wall = INFINITY, .to_fd = cases[1], .from_fd = outcomes[0], .frame = frame, .size = w->size};
    return 0;
}

/* Removes what a worker that died left of case i: the temporaries named after its file,
 * which no other process writes while the case is that worker's. (The other workers' are
 * left alone: they are still writing them.) */
static void remove_case_temporaries(const study_run *r, size_t i)
{
    char name[64], prefix[80], path[4096];
    sp_study_case_file(i, name, sizeof name);
    snprintf(prefix, sizeof prefix, "%s.tmp-", name);
    DIR *d = opendir(r->dir);
    if (!d) return;
    const struct dirent *de;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 &&
            snprintf(path, sizeof path, "%s/%s", r->dir, de->d_name) < (int)sizeof path)
            unlink(path);
    closedir(d);
}

/* Records the outcome at the head of a worker's queue, whose frame is complete. */
static void take_outcome(study_run *r, worker *w)
{
    double seconds;
    memcpy(&seconds, w->frame + sizeof(uint32_t), sizeof seconds);
    record_case(r, w->cases[0], w->frame + FRAME_HEAD, seconds);
    w->last_wall = seconds;
    w->queued--;
    memmove(w->cases, w->cases + 1, (size_t)w->queued * sizeof w->cases[0]);
    w->start = sp_clock_seconds(); /* (about when the worker started the next) */
    w->got = 0;
}

/* Records the cases of a worker that has ended. The outcomes it wrote are taken at their
 * word. The case it was running when it ended without a whole word was killed: its file,
 * when in place, is its result; else it failed with the signal (the worker's other cases
 * are not touched), or stays pending when the study is being stopped. A case queued
 * behind it had not started: it goes back to be handed out again. */
static void finish_dead_worker(study_run *r, worker *w, int wait_status)
{
    while (w->queued > 0 && read_frame(w) == 1) take_outcome(r, w);
    if (w->queued > 0) {
        double wall = sp_clock_seconds() - w->start;
        size_t i = w->cases[0];
        remove_case_temporaries(r, i);
        cJSON *figures = figures_from_file(r, i);
        if (figures || (!r->stop && !stop_signal_pending())) {
            char why[96];
            if (WIFSIGNALED(wait_status))
                snprintf(why, sizeof why, "the worker was killed by signal %d", WTERMSIG(wait_status));
            else
                snprintf(why, sizeof why, "the worker exited with status %d", WEXITSTATUS(wait_status));
            record(r, i, figures, why, wall);
        }
        cJSON_Delete(figures);
        for (int k = 1; k < w->queued; ++k) r->returned[r->n_returned++] = w->cases[k];
    }
    close_worker(w);
}

/* Runs case i in this process, when no worker can be started at all. */
static void run_here(study_run *r, size_t i)
{
    double t0 = sp_clock_seconds();
    char *outcome = run_case(r, i, IN_PARENT);
    record_case(r, i, outcome, sp_clock_seconds() - t0);
    free(outcome);
}

static int busy_workers(const study_run *r)
{
    int busy = 0;
    for (int slot = 0; slot < r->slots; ++slot) busy += r->workers[slot].queued > 0;
    return busy;
}

/* A case is queued behind a worker's running one only when its last case took less than
 * this: then the hand-over (the parent's turn to run, then the worker's) weighs against
 * the case; a long case queued behind another could wait while a worker idles. */
#define QUEUE_BELOW_SECONDS 0.05

/* The next case to hand out: one a dead worker had not started, else todo[*next]. */
static int next_case(study_run *r, const size_t *todo, size_t *next, size_t n, size_t *i)
{
    if (r->n_returned > 0) {
        *i = r->returned[--r->n_returned];
        return 1;
    }
    if (*next >= n) return 0;
    *i = todo[(*next)++];
    return 1;
}

/* A case taken by next_case that no worker could take goes back. */
static void put_back(study_run *r, size_t i) { r->returned[r->n_returned++] = i; }

/* Hands cases out to the workers that can take one, and starts workers in free slots
 * while cases are left. Returns the index of the next case of todo to hand out. */
static size_t hand_out_cases(study_run *r, const size_t *todo, size_t next, size_t n)
{
    size_t i;
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        while (w->pid && (w->queued == 0 || (w->queued < WORKER_QUEUE && w->last_wall < QUEUE_BELOW_SECONDS)) &&
               next_case(r, todo, &next, n, &i))
            if (give_case(r, w, i) != 0) put_back(r, i);
    }
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        if (w->pid) continue;
        if (!next_case(r, todo, &next, n, &i)) break;
        if (start_worker(r, slot) == 0) {
            if (give_case(r, w, i) != 0) put_back(r, i);
        } else if (busy_workers(r) > 0) {
            put_back(r, i);
            break; /* no process to spare now: wait for one */
        } else {
            run_here(r, i);
        }
    }
    return next;
}

/* Takes the outcomes the workers have written, whole frames only (a frame cut short
 * waits for its end). */
static void collect_outcomes(study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        while (w->queued > 0 && read_frame(w) == 1) take_outcome(r, w);
    }
}

/* Collects the workers that have ended (a crash, a kill) and frees their slots: a new
 * worker takes the next case. Returns −1 when a worker is still counted but there is no
 * process left to wait for. */
static int reap_workers(study_run *r)
{
    for (;;) {
        int ws;
        pid_t pid = waitpid(-1, &ws, WNOHANG);
        if (pid == 0) return 0;
        if (pid < 0) {
            if (errno == EINTR) continue;
            for (int slot = 0; slot < r->slots; ++slot)
                if (r->workers[slot].pid) return -1; /* ECHILD */
            return 0;
        }
        for (int slot = 0; slot < r->slots; ++slot)
            if (r->workers[slot].pid == pid) finish_dead_worker(r, &r->workers[slot], ws);
    }
}

/* The signals that end the run: the stop signals, and the alarm of --max-seconds. */
static void ending_signals(const study_run *r, sigset_t *set)
{
    stop_signals(set);
    if (r->deadline > 0.0) sigaddset(set, SIGALRM);
}

/* Waits for a worker's outcome, a worker's end or a stop signal, at most a second (then
 * the status line is redrawn). */
static void wait_for_event(study_run *r, const sigset_t *events)
{
    struct timespec second = {1, 0};
    int sig = sigtimedwait(events, NULL, &second);
    if (sig > 0 && sig != SIGCHLD && sig != SIGUSR1)
        r->stop = sig;
    else if (sig < 0 && errno == EAGAIN)
        report_case(r, 0, NULL, 0.0);
}

/* Ends the workers when the study is stopped: a case cut short is computed again on
 * resume, one that finished first keeps its result. Then removes the files they were
 * writing. */
static void stop_workers(study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot)
        if (r->workers[slot].pid) kill(r->workers[slot].pid, SIGKILL);
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        if (!w->pid) continue;
        int ws = 0;
        while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR) continue;
        finish_dead_worker(r, w, ws);
    }
    sp_study_remove_temporaries(r->dir);
}

/* Ends the workers when every case is done: the end of their case pipes tells them. */
static void end_workers(study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot)
        if (r->workers[slot].pid) {
            close(r->workers[slot].to_fd);
            r->workers[slot].to_fd = -1;
        }
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        if (!w->pid) continue;
        int ws = 0;
        while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR) continue;
        finish_dead_worker(r, w, ws);
    }
}

/* A signal that ends the run and is pending (0: none), taken. */
static int take_stop_signal(const study_run *r)
{
    sigset_t stops;
    ending_signals(r, &stops);
    const struct timespec now = {0, 0};
    int sig = sigtimedwait(&stops, NULL, &now);
    return sig > 0 ? sig : 0;
}

/* Arms the alarm of --max-seconds for the time left (none left: the run stops at once). */
static void start_clock(study_run *r)
{
    if (r->deadline <= 0.0) return;
    double left = r->deadline - sp_clock_seconds();
    if (left <= 0.0) {
        r->stop = SIGALRM;
        return;
    }
    struct itimerval t = {.it_value = {.tv_sec = (time_t)left, .tv_usec = (suseconds_t)((left - floor(left)) * 1e6)}};
    if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &t, NULL);
}

/* Disarms it, and drops an alarm that came after the last case: it would end the process
 * once unblocked. */
static void stop_clock(const study_run *r)
{
    if (r->deadline <= 0.0) return;
    setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    const struct timespec now = {0, 0};
    while (sigtimedwait(&alarm, NULL, &now) == SIGALRM) continue;
}

/* Runs the listed cases with up to `jobs` workers, until they are done or a stop signal
 * (which the caller blocks) or the alarm comes: then r->stop is set. The workers are
 * forked once each and run case after case (again only after one has died): a fork per
 * case cost more than a small case itself. */
static void run_local(study_run *r, const size_t *todo, size_t n, int jobs)
{
    if ((size_t)jobs > n) jobs = (int)n;
    worker *workers = calloc((size_t)(jobs > 0 ? jobs : 1), sizeof *workers);
    /* (no more cases are out at a time than the workers' queues hold) */
    r->returned = malloc((size_t)(jobs > 0 ? jobs : 1) * WORKER_QUEUE * sizeof *r->returned);
    r->n_returned = 0;
    if (!workers || !r->returned) {
        for (size_t k = 0; k < n; ++k) record_case(r, todo[k], NULL, NAN);
        free(workers);
        free(r->returned);
        r->returned = NULL;
        return;
    }
    sigset_t events, saved;
    ending_signals(r, &events);
    sigaddset(&events, SIGCHLD);
    sigaddset(&events, SIGUSR1);
    struct sigaction act = {.sa_handler = on_event}, ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&act.sa_mask);
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGCHLD, &act, &r->saved_chld);
    sigaction(SIGUSR1, &act, &r->saved_usr1);
    /* a worker that died is found by waitpid; a write to its pipe fails instead */
    sigaction(SIGPIPE, &ignore, &r->saved_pipe);
    sigprocmask(SIG_BLOCK, &events, &saved);
    r->parent = getpid();
    r->workers = workers;
    r->slots = jobs;
    if (n > 0) start_clock(r); /* (a study with nothing left to run has not been stopped) */
    size_t next = 0;
    for (;;) {
        if (!r->stop) r->stop = take_stop_signal(r); /* one that came before the workers */
        if (!r->stop) next = hand_out_cases(r, todo, next, n);
        if (r->stop || (busy_workers(r) == 0 && next == n && r->n_returned == 0)) break;
        if (busy_workers(r) == 0) continue; /* no worker could start: the cases ran here */
        wait_for_event(r, &events);
        sp_study_log_sync(r->log, 0); /* the records of a second without new ones */
        collect_outcomes(r);
        if (reap_workers(r) < 0) break;
    }
    if (r->stop)
        stop_workers(r);
    else
        end_workers(r);
    stop_clock(r);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    sigaction(SIGCHLD, &r->saved_chld, NULL);
    sigaction(SIGUSR1, &r->saved_usr1, NULL);
    sigaction(SIGPIPE, &r->saved_pipe, NULL);
    for (int slot = 0; slot < jobs; ++slot) free(workers[slot].frame);
    r->workers = NULL;
    free(workers);
    free(r->returned);
    r->returned = NULL;
}

/* ----------------------------------------------------------------- MPI -- */

#ifdef SP_HAVE_MPI
/* A completion message: the case index and wall time as two doubles, then the outcome
 * text with its NUL. A rank whose --max-seconds ran out sends −1 and the number of its
 * cases it left undone instead, once. */
enum { TAG_DONE = 17 };

/* Receives one message; returns how many of the cases rank 0 waits for it accounts for
 * (0: none had come). */
static size_t receive_one(study_run *r, int blocking)
{
    int flag = 1, count = 0;
    MPI_Status status;
    if (blocking)
        MPI_Probe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &status);
    else
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    char *buf = malloc((size_t)count + 1);
    if (!buf) {
        error_line(r->file, -1, NULL, "out of memory");
        MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL);
    }
    MPI_Recv(buf, count, MPI_BYTE, status.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf[count] = '\0';
    double head[2];
    size_t accounted = 1;
    if ((size_t)count >= sizeof head) {
        memcpy(head, buf, sizeof head);
        if (head[0] < 0.0) {
            r->stop = SIGALRM;
            accounted = (size_t)head[1];
        } else {
            record_case(r, (size_t)head[0], (size_t)count > sizeof head ? buf + sizeof head : NULL, head[1]);
        }
    }
    free(buf);
    return accounted;
}

/* Whether --max-seconds has run out. Over MPI it is looked at between cases: a rank's
 * case under way runs to its end. */
static int out_of_time(const study_run *r) { return r->deadline > 0.0 && sp_clock_seconds() >= r->deadline; }

/* Deals the cases still to do over the ranks (the j-th to rank j mod size); rank 0
 * records every completion. */
static void run_mpi(study_run *r, int rank, int size, const size_t *todo, size_t n)
{
    size_t expected = 0, skipped = 0; /* completions rank 0 waits for from the others; cases left undone */
    for (size_t j = 0; j < n; ++j) {
        int owner = (int)(j % (size_t)size);
        if (owner != rank) {
            if (rank == 0) ++expected;
            continue;
        }
        if (skipped || out_of_time(r)) {
            ++skipped;
            continue;
        }
        double t0 = sp_clock_seconds();
        char *outcome = run_case(r, todo[j], IN_MPI_RANK);
        double wall = sp_clock_seconds() - t0;
        if (rank == 0) {
            record_case(r, todo[j], outcome, wall);
            for (size_t got; expected > 0 && (got = receive_one(r, 0)) > 0;) /* what has come meanwhile */
                expected -= got < expected ? got : expected;
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
    if (skipped && rank == 0) r->stop = SIGALRM;
    if (skipped && rank != 0) {
        double head[2] = {-1.0, (double)skipped};
        MPI_Send(head, (int)sizeof head, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
    }
    if (rank == 0)
        while (expected > 0) {
            size_t got = receive_one(r, 1);
            expected -= got < expected ? got : expected;
        }
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
    long jobs;
    int verbose;
    double seconds;  /* --max-seconds (0: no limit) */
    double deadline; /* when it runs out, from the command's start */
    sp_limits limits;
} study_args;

/* More workers than this on one machine is a typo. */
#define MAX_JOBS 4096

static int cmd_study(int argc, char **argv);

static const sp_cmd_option study_options[] = {
    {.name = "-o",
     .value = "DIR",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(study_args, dir),
     .required = 1,
     .meaning = "the folder of the case files and the summary (created; complete cases are kept)"},
    {.name = "-j",
     .value = "N",
     .kind = SP_OPT_COUNT,
     .offset = offsetof(study_args, jobs),
     .max = MAX_JOBS,
     .meaning = "run up to N cases at once in worker processes",
     .fallback = "the online processors",
     .detail = "From 1 to 4096. With more than one worker each runs with `SYMPLAN_THREADS=1` (one thread per case) "
               "unless `SYMPLAN_THREADS` is set in the environment."},
    {.name = "--max-seconds",
     .value = "S",
     .kind = SP_OPT_SECONDS,
     .offset = offsetof(study_args, seconds),
     .meaning = "stop the study after S seconds as SIGTERM would (finished cases kept, resumable; exit 3)",
     .fallback = "no limit",
     .detail = "*S* is a decimal number of seconds of wall time, counted from the command's start. The summary is "
               "written, the cases under way are left pending, and the same command resumes the study. Over MPI "
               "the time is looked at between cases."},
    {.name = "-v",
     .offset = offsetof(study_args, verbose),
     .meaning = "print one line per case on stderr",
     .fallback = "a status line on a terminal only",
     .detail = "Its values, its status, its time, and the time elapsed and left."},
    {.name = NULL}};

const sp_command sp_command_study = {
    .name = "study",
    .summary = "run every case of a study into DIR, in parallel and resumable, with DIR/summary.json and .csv",
    .description =
        "Runs every case of a study into *DIR*/case-*NNNN*.json, and keeps *DIR*/summary.json and "
        "*DIR*/summary.csv up to date as cases finish. Every case is validated before any runs. Cases whose "
        "complete result *DIR* already holds are kept, so the same command resumes an interrupted study. SIGINT, "
        "SIGTERM and SIGHUP stop the study: the summary of the cases done is written and the command dies of the "
        "signal. A worker runs case after case; one that crashes or is killed loses only its case, which is "
        "recorded as failed with the signal, and a new worker takes the next case. Built with MPI and started by "
        "`mpirun` or `srun` with more than one rank, the cases are dealt out over the ranks.",
    .operand = "STUDY.json",
    .operand_meaning = "the study file: a base problem and the settings to vary",
    .operand_offset = offsetof(study_args, file),
    .options = study_options,
    .limits = 1,
    .limits_offset = offsetof(study_args, limits),
    .run = cmd_study};

static int parse_args(int argc, char **argv, study_args *a)
{
    *a = (study_args){.limits = sp_limits_default()};
    int rc = sp_cmd_parse(&sp_command_study, argc, argv, a);
    if (rc >= 0) return rc;
    if (!a->dir[0]) return sp_cmd_usage_error(&sp_command_study, "option '-o' needs a folder's name");
    if (a->jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        a->jobs = cpus > 0 ? (cpus < MAX_JOBS ? cpus : MAX_JOBS) : 1;
    }
    return -1;
}

int sp_cmd_load_study(const char *file, const char *text, size_t length, const sp_limits *limits, int speak,
                      sp_study **study)
{
    sp_study_error err;
    sp_status st = text ? sp_study_parse_file_text(file, text, length, limits, study, &err)
                        : sp_study_read_file_limited(file, limits, study, &err);
    if (st == SP_OK) return EXIT_DONE;
    if (speak) error_line(file, err.case_index, err.input.path, err.input.message);
    return st == SP_ERR_NOMEM ? EXIT_INTERNAL : EXIT_BAD_INPUT;
}

int sp_cmd_is_study_text(const char *text, size_t length)
{
    int study;
    sp_input_error err;
    return sp_study_text_is_study(text, length, &study, &err) == SP_OK && study;
}

/* The cases without a complete result in DIR (their list in todo, count returned);
 * the others go into the summary as the log (or, for files it does not list, the file)
 * has them. */
static size_t pending_cases(study_run *r, size_t *todo)
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

/* Ends the process by the signal that stopped the study, as if it had not been caught,
 * so that whatever started it (a shell, a batch system) sees how it ended. */
static void die_of(int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    signal(sig, SIG_DFL);
    raise(sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Runs the study; *stop receives the signal that stopped it (0: none). Until the workers
 * start a stop signal ends the process at once (nothing is under way); over MPI,
 * stopping is left to mpirun or the batch system, which signal every rank. */
static int run_study(const study_args *a, int rank, int size, int *stop)
{
    (void)size;
    sp_study *study = NULL;
    int rc = sp_cmd_load_study(a->file, NULL, 0, &a->limits, rank == 0, &study);
    if (rc) return rc;
    char why[512];
    sp_study_log *log = NULL;
    if (rank == 0 && make_dir(a->dir, why, sizeof why) != 0) {
        error_line(a->dir, -1, NULL, why);
        rc = EXIT_BAD_INPUT;
    }
    if (rank == 0 && !rc) {
        /* the log's lock keeps a second study out of the folder until this one ends */
        sp_status st = sp_study_log_open(study, a->dir, &log, why, sizeof why);
        if (st != SP_OK) {
            error_line(a->dir, -1, NULL, why);
            rc = st == SP_ERR_INVALID ? EXIT_BAD_INPUT : EXIT_INTERNAL;
        }
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
                   .log = log,
                   .verbose = a->verbose && rank == 0,
                   .terminal = rank == 0 && isatty(STDERR_FILENO),
                   .start = sp_clock_seconds(),
                   .deadline = a->deadline};
    size_t total = sp_study_case_count(study);
    size_t *todo = r.todo = malloc((total ? total : 1) * sizeof *todo);
    r.summary = rank == 0 ? sp_study_summary_new(study) : NULL;
    int ready = todo && (rank != 0 || r.summary);
    if (rank == 0 && ready) {
        sp_study_remove_temporaries(a->dir);
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
    int use_mpi = 0;
#ifdef SP_HAVE_MPI
    use_mpi = size > 1;
    if (use_mpi) ready = share_and_run(&r, rank, size, todo, ready);
#endif
    sigset_t stops;
    stop_signals(&stops);
    const int local = ready && !use_mpi;
    if (local) {
        sigprocmask(SIG_BLOCK, &stops, &r.worker_mask);
        run_local(&r, todo, r.to_run, (int)a->jobs);
    }

    rc = EXIT_DONE;
    if (!ready) {
        if (rank == 0) error_line(a->file, -1, NULL, "out of memory");
        rc = EXIT_INTERNAL;
    } else if (rank == 0) {
        r.summary = sp_study_summary_new(study);
        sp_status st = r.summary ? sp_study_log_summary(log, r.summary, why, sizeof why) : SP_ERR_NOMEM;
        if (st == SP_OK)
            write_summary(&r);
        else
            error_line(a->file, -1, NULL, r.summary ? why : "out of memory");
        r.summary_failed |= st != SP_OK;
        end_report(&r);
        size_t failed = r.summary ? sp_study_summary_failed(r.summary) : r.failed;
        if (failed > 0) {
            char message[4400];
            snprintf(message, sizeof message, "%zu of %zu cases failed (see %s/summary.json)", failed, total, a->dir);
            error_line(a->file, -1, NULL, message);
            rc = EXIT_INTERNAL;
        }
        const size_t done = r.summary ? sp_study_summary_done(r.summary) : r.done;
        if (r.stop == SIGALRM) {
            char message[256];
            snprintf(message, sizeof message,
                     "stopped after --max-seconds %g with %zu of %zu cases done; the same command resumes the study",
                     a->seconds, done, total);
            error_line(a->file, -1, NULL, message);
            rc = EXIT_OUT_OF_TIME;
        } else if (r.stop) {
            char message[256];
            snprintf(message, sizeof message,
                     "stopped by signal %d (%s) with %zu of %zu cases done; the same command resumes the study", r.stop,
                     strsignal(r.stop), done, total);
            error_line(a->file, -1, NULL, message);
            rc = EXIT_INTERNAL;
        }
        if (r.summary_failed || r.log_failed) rc = EXIT_INTERNAL;
    }
#ifdef SP_HAVE_MPI
    if (size > 1) MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    free(todo);
    sp_study_summary_free(r.summary);
    sp_study_log_close(log);
    sp_study_free(study);
    /* a stop signal that came after the workers ends the process here, all written */
    if (local) sigprocmask(SIG_SETMASK, &r.worker_mask, NULL);
    *stop = r.stop == SIGALRM ? 0 : r.stop; /* the clock's stop is an exit status, not a death */
    return rc;
}

static int cmd_study(int argc, char **argv)
{
    study_args a;
    int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0) return parsed;
    /* the budget is the whole command's, reading and resuming included */
    a.deadline = a.seconds > 0.0 ? sp_clock_seconds() + a.seconds : 0.0;
    int rank = 0, size = 1;
#ifdef SP_HAVE_MPI
    /* MPI starts threads, which inherit the signal mask: started with the stop signals
     * blocked, they leave them to this thread, which takes them while workers run
     * (run_local) instead of the process dying before its summary is written. */
    sigset_t stops, unblocked;
    stop_signals(&stops);
    sigaddset(&stops, SIGALRM); /* --max-seconds's alarm, taken by this thread too */
    sigprocmask(SIG_BLOCK, &stops, &unblocked);
    MPI_Init(NULL, NULL);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* ranks are started one per core: a rank's solves use no more threads than that,
     * unless the user says otherwise */
    if (size > 1) setenv("SYMPLAN_THREADS", "1", 0);
#endif
    int stop = 0;
    int rc = run_study(&a, rank, size, &stop);
#ifdef SP_HAVE_MPI
    MPI_Finalize();
#endif
    if (stop) die_of(stop);
    return rc;
}
