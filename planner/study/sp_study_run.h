/* Running a study's cases into its folder: the bookkeeping every way of running them
 * shares (the folder, its log and lock, the summary at the start and at the end, the
 * progress on stderr, the messages of a stop), and the executors that run the cases
 * themselves behind one interface: worker processes on this machine (study_local.c) or
 * MPI ranks (study_mpi.c, in the command built by `make mpi` only). The command
 * (`symplan study`) reads its arguments and the study, picks the executor and calls
 * sp_study_execute. Not installed. */
#ifndef SP_STUDY_RUN_H
#define SP_STUDY_RUN_H

#include <stddef.h>

#include "planner/study/sp_study.h"

/* What a study run ends with, the command's exit codes (3: stopped by --max-seconds, as a
 * solve whose time ran out). */
enum { SP_STUDY_EXIT_DONE = 0, SP_STUDY_EXIT_INTERNAL = 1, SP_STUDY_EXIT_BAD_INPUT = 2, SP_STUDY_EXIT_OUT_OF_TIME = 3 };

typedef struct sp_study_run sp_study_run;

/* One way of running the cases. start gives this process its rank among size (on one
 * machine: 0 of 1) before the study is read; agree makes every rank's *rc rank 0's; run
 * runs the cases todo[0…r->to_run) of a run that every rank has `ready` (rank 0 holds the
 * list; a rank that is not ready makes all run nothing) and returns whether it ran; it
 * sets the run's stop when a signal or --max-seconds stopped it. finish ends what start
 * began. */
typedef struct sp_study_executor {
    const char *name;
    void (*start)(int *rank, int *size);
    void (*agree)(int *rc, int size);
    int (*run)(sp_study_run *r, size_t *todo, int ready);
    void (*finish)(void);
} sp_study_executor;

/* Worker processes forked by this one, up to the job's `jobs` (study_local.c). */
extern const sp_study_executor sp_study_local_executor;
#ifdef SP_HAVE_MPI
/* The cases dealt over MPI ranks, rank 0 recording them; with one rank, the local
 * executor's workers (study_mpi.c). */
extern const sp_study_executor sp_study_mpi_executor;
#endif

/* What the command asks of a run. */
typedef struct sp_study_job {
    const char *file, *dir; /* the study file (for messages) and the folder of its results */
    int jobs;               /* the most workers at once on this machine */
    int verbose;            /* one line per case on stderr */
    double seconds;         /* --max-seconds as given (for the message of a stop) */
    double deadline;        /* sp_clock_seconds() at which the run stops; 0: none */
    int rank, size;         /* as the executor's start gave them */
    /* prints the one line of a failure, "where: message" */
    void (*error)(const char *where, const char *message);
} sp_study_job;

/* Runs `study` (taken, and freed) into job->dir with executor `ex`: creates the folder,
 * takes its log's lock, skips the cases finished before, runs the others, writes the
 * summary and reports. Returns the exit code; *stop receives the signal that stopped the
 * run (0: none, or --max-seconds, which is the exit code 3), which the caller dies of
 * once everything is written. */
int sp_study_execute(const sp_study_job *job, sp_study *study, const sp_study_executor *ex, int *stop);

#endif
