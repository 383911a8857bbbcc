/* The local executor of a study run (sp_study_run.h): worker processes on this machine.
 *
 * The parent forks up to N workers, once each: a worker takes case after case from its
 * pipe and runs it into its file, and what the summary needs of a case (its figures, or
 * why it failed) comes back through a second pipe, so that the parent never holds a
 * whole result. A worker that dies (a crash, a kill) loses its case only: the case is
 * recorded as failed with the signal and a new worker takes the next one. Workers do not
 * outlive their parent. SIGINT, SIGTERM and SIGHUP stop the run: the parent ends its
 * workers and the run writes the summary of the cases done; --max-seconds stops it the
 * same way when its time runs out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h> /* PR_SET_PDEATHSIG */
#endif

#include "planner/sp_clock.h"
#include "planner/study/sp_study.h"
#include "planner/study/study_run_internal.h"

/* ------------------------------------------------------------ progress -- */

/* A worker process, forked once, and the cases handed to it (see "local workers" below).
 * Behind the case it runs one more may wait, when its cases are short: the worker then
 * starts it without waiting for the parent's turn to run. */
#define WORKER_QUEUE 2
typedef struct study_worker {
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

void sp_study_stop_signals(sigset_t *set)
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
    if (getppid() != parent) _exit(SP_STUDY_EXIT_INTERNAL);
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
static void serve_cases(sp_study_run *r, int in, int out)
{
    for (;;) {
        uint64_t index;
        size_t got = 0;
        while (got < sizeof index) {
            ssize_t n = read(in, (char *)&index + got, sizeof index - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(SP_STUDY_EXIT_DONE); /* no more cases */
            got += (size_t)n;
        }
        double t0 = sp_clock_seconds();
        char *outcome = sp_study_run_one(r, (size_t)index, IN_WORKER);
        double seconds = sp_clock_seconds() - t0;
        const char *text = outcome ? outcome : "Eout of memory";
        uint32_t length = (uint32_t)strlen(text);
        int ok = write_all(out, &length, sizeof length) == 0 && write_all(out, &seconds, sizeof seconds) == 0 &&
                 write_all(out, text, length) == 0;
        free(outcome);
        if (!ok) _exit(SP_STUDY_EXIT_INTERNAL);
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

static void finish_dead_worker(sp_study_run *r, worker *w, int wait_status);

/* Waits for a worker that is ending (told so, or killed) and records its cases. */
static void wait_worker(sp_study_run *r, worker *w)
{
    int ws = 0;
    while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR) continue;
    finish_dead_worker(r, w, ws);
}

/* The same for every worker still counted. */
static void wait_workers(sp_study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot)
        if (r->workers[slot].pid) wait_worker(r, &r->workers[slot]);
}

/* Sends a worker case i, to run after those it has. Returns 0, or −1 when the worker
 * cannot take it (it has died): then it is collected, and its slot is free. */
static int give_case(sp_study_run *r, worker *w, size_t i)
{
    uint64_t index = i;
    if (write_all(w->to_fd, &index, sizeof index) != 0) {
        kill(w->pid, SIGKILL);
        wait_worker(r, w);
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
static int start_worker(sp_study_run *r, int slot)
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
static void remove_case_temporaries(const sp_study_run *r, size_t i)
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
static void take_outcome(sp_study_run *r, worker *w)
{
    double seconds;
    memcpy(&seconds, w->frame + sizeof(uint32_t), sizeof seconds);
    sp_study_record_outcome(r, w->cases[0], w->frame + FRAME_HEAD, seconds);
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
static void finish_dead_worker(sp_study_run *r, worker *w, int wait_status)
{
    while (w->queued > 0 && read_frame(w) == 1) take_outcome(r, w);
    if (w->queued > 0) {
        double wall = sp_clock_seconds() - w->start;
        size_t i = w->cases[0];
        remove_case_temporaries(r, i);
        cJSON *figures = sp_study_figures_from_file(r, i);
        if (figures || (!r->stop && !stop_signal_pending())) {
            char why[96];
            if (WIFSIGNALED(wait_status))
                snprintf(why, sizeof why, "the worker was killed by signal %d", WTERMSIG(wait_status));
            else
                snprintf(why, sizeof why, "the worker exited with status %d", WEXITSTATUS(wait_status));
            sp_study_record(r, i, figures, why, wall);
        }
        cJSON_Delete(figures);
        for (int k = 1; k < w->queued; ++k) r->returned[r->n_returned++] = w->cases[k];
    }
    close_worker(w);
}

/* Runs case i in this process, when no worker can be started at all. */
static void run_here(sp_study_run *r, size_t i)
{
    double t0 = sp_clock_seconds();
    char *outcome = sp_study_run_one(r, i, IN_PARENT);
    sp_study_record_outcome(r, i, outcome, sp_clock_seconds() - t0);
    free(outcome);
}

static int busy_workers(const sp_study_run *r)
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
static int next_case(sp_study_run *r, const size_t *todo, size_t *next, size_t n, size_t *i)
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
static void put_back(sp_study_run *r, size_t i) { r->returned[r->n_returned++] = i; }

/* Hands cases out to the workers that can take one, and starts workers in free slots
 * while cases are left. Returns the index of the next case of todo to hand out. */
static size_t hand_out_cases(sp_study_run *r, const size_t *todo, size_t next, size_t n)
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
static void collect_outcomes(sp_study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot) {
        worker *w = &r->workers[slot];
        while (w->queued > 0 && read_frame(w) == 1) take_outcome(r, w);
    }
}

/* Collects the workers that have ended (a crash, a kill) and frees their slots: a new
 * worker takes the next case. Returns −1 when a worker is still counted but there is no
 * process left to wait for. */
static int reap_workers(sp_study_run *r)
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
static void ending_signals(const sp_study_run *r, sigset_t *set)
{
    sp_study_stop_signals(set);
    if (r->deadline > 0.0) sigaddset(set, SIGALRM);
}

/* Waits for a worker's outcome, a worker's end or a stop signal, at most a second (then
 * the status line is redrawn). */
static void wait_for_event(sp_study_run *r, const sigset_t *events)
{
    struct timespec second = {1, 0};
    int sig = sigtimedwait(events, NULL, &second);
    if (sig > 0 && sig != SIGCHLD && sig != SIGUSR1)
        r->stop = sig;
    else if (sig < 0 && errno == EAGAIN)
        sp_study_report(r, 0, NULL, 0.0);
}

/* Ends the workers when the study is stopped: a case cut short is computed again on
 * resume, one that finished first keeps its result. Then removes the files they were
 * writing. */
static void stop_workers(sp_study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot)
        if (r->workers[slot].pid) kill(r->workers[slot].pid, SIGKILL);
    wait_workers(r);
    sp_study_remove_temporaries(r->dir);
}

/* Ends the workers when every case is done: the end of their case pipes tells them. */
static void end_workers(sp_study_run *r)
{
    for (int slot = 0; slot < r->slots; ++slot)
        if (r->workers[slot].pid) {
            close(r->workers[slot].to_fd);
            r->workers[slot].to_fd = -1;
        }
    wait_workers(r);
}

/* A signal that ends the run and is pending (0: none), taken. */
static int take_stop_signal(const sp_study_run *r)
{
    sigset_t stops;
    ending_signals(r, &stops);
    const struct timespec now = {0, 0};
    int sig = sigtimedwait(&stops, NULL, &now);
    return sig > 0 ? sig : 0;
}

/* Arms the alarm of --max-seconds for the time left (none left: the run stops at once). */
static void start_clock(sp_study_run *r)
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
static void stop_clock(const sp_study_run *r)
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
static void run_local(sp_study_run *r, const size_t *todo, size_t n, int jobs)
{
    if ((size_t)jobs > n) jobs = (int)n;
    worker *workers = calloc((size_t)(jobs > 0 ? jobs : 1), sizeof *workers);
    /* (no more cases are out at a time than the workers' queues hold) */
    r->returned = malloc((size_t)(jobs > 0 ? jobs : 1) * WORKER_QUEUE * sizeof *r->returned);
    r->n_returned = 0;
    if (!workers || !r->returned) {
        for (size_t k = 0; k < n; ++k) sp_study_record_outcome(r, todo[k], NULL, NAN);
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

static void local_start(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
}

static void local_agree(int *rc, int size)
{
    (void)rc;
    (void)size;
}

/* The stop signals stay blocked until the run has written everything (sp_study_execute
 * restores the mask): one that comes after the workers then ends the process. */
static int local_run(sp_study_run *r, size_t *todo, int ready)
{
    if (!ready) return 0;
    sigset_t stops;
    sp_study_stop_signals(&stops);
    sigprocmask(SIG_BLOCK, &stops, &r->worker_mask);
    r->masked = 1;
    run_local(r, todo, r->to_run, r->jobs);
    return 1;
}

static void local_finish(void) {}

const sp_study_executor sp_study_local_executor = {
    .name = "local", .start = local_start, .agree = local_agree, .run = local_run, .finish = local_finish};
