/* The MPI executor of a study run (sp_study_run.h), in the command built by `make mpi`
 * (build/symplan-mpi) only, compiled with -DSP_HAVE_MPI. Started by mpirun or srun with
 * more than one rank, the cases still to do are dealt out in turn (the j-th to rank j
 * mod K), each rank runs its own one at a time, and rank 0 (which runs its share too)
 * collects the completions and writes the summary. Case files are the same bytes as the
 * local executor's. With one rank the local executor's workers run the cases. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/study/study_run_internal.h"

/* A completion message: the case index and wall time as two doubles, then the outcome
 * text with its NUL. A rank whose --max-seconds ran out sends −1 and the number of its
 * cases it left undone instead, once. */
enum { TAG_DONE = 17 };

/* Receives one message; returns how many of the cases rank 0 waits for it accounts for
 * (0: none had come). */
static size_t receive_one(sp_study_run *r, int blocking)
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
        r->error(r->file, "out of memory");
        MPI_Abort(MPI_COMM_WORLD, SP_STUDY_EXIT_INTERNAL);
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
            sp_study_record_outcome(r, (size_t)head[0], (size_t)count > sizeof head ? buf + sizeof head : NULL, head[1]);
        }
    }
    free(buf);
    return accounted;
}

/* Whether --max-seconds has run out. Over MPI it is looked at between cases: a rank's
 * case under way runs to its end. */
static int out_of_time(const sp_study_run *r) { return r->deadline > 0.0 && sp_clock_seconds() >= r->deadline; }

/* Deals the cases still to do over the ranks (the j-th to rank j mod size); rank 0
 * records every completion. */
static void run_mpi(sp_study_run *r, int rank, int size, const size_t *todo, size_t n)
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
        char *outcome = sp_study_run_one(r, todo[j], IN_MPI_RANK);
        double wall = sp_clock_seconds() - t0;
        if (rank == 0) {
            sp_study_record_outcome(r, todo[j], outcome, wall);
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
static int share_and_run(sp_study_run *r, int rank, int size, size_t *todo, int ready)
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

/* MPI starts threads, which inherit the signal mask: started with the stop signals
 * blocked, they leave them to this thread, which takes them while workers run (the
 * local executor) instead of the process dying before its summary is written. Ranks are
 * started one per core: a rank's solves use no more threads than that, unless the user
 * says otherwise. */
static void mpi_start(int *rank, int *size)
{
    sigset_t stops, unblocked;
    sp_study_stop_signals(&stops);
    sigaddset(&stops, SIGALRM); /* --max-seconds's alarm, taken by this thread too */
    sigprocmask(SIG_BLOCK, &stops, &unblocked);
    MPI_Init(NULL, NULL);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (*size > 1) setenv("SYMPLAN_THREADS", "1", 0);
}

static void mpi_agree(int *rc, int size)
{
    if (size > 1) MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static int mpi_run(sp_study_run *r, size_t *todo, int ready)
{
    if (r->size <= 1) return sp_study_local_executor.run(r, todo, ready);
    return share_and_run(r, r->rank, r->size, todo, ready);
}

static void mpi_finish(void) { MPI_Finalize(); }

const sp_study_executor sp_study_mpi_executor = {
    .name = "mpi", .start = mpi_start, .agree = mpi_agree, .run = mpi_run, .finish = mpi_finish};
