/* What the executors of a study run share with its bookkeeping (study_run.c): the run's
 * state, how one case is run into its file and its outcome told as text, and how a
 * finished case is recorded. Not installed; see sp_study_run.h. */
#ifndef SP_STUDY_RUN_INTERNAL_H
#define SP_STUDY_RUN_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "planner/study/sp_study_run.h"

struct sp_study_run {
    const char *file, *dir;
    void (*error)(const char *where, const char *message); /* the job's */
    sp_study *study;
    sp_study_summary *summary; /* at the start and at the end of the run only (sp_study_execute) */
    size_t done, failed;       /* cases with a result, and failed ones, meanwhile */
    sp_study_log *log;         /* DIR/cases.log, whose lock this run holds (rank 0) */
    int verbose, terminal, status_line_open;
    sigset_t worker_mask;    /* the signal mask workers start with */
    size_t to_run, finished; /* cases to compute in this run, and computed so far */
    double start;
    int summary_failed, log_failed;
    pid_t parent;    /* the process that starts the workers */
    struct study_worker *workers; /* their slots while they run (NULL over MPI) */
    int slots;
    int stop;         /* the signal that stopped the study (SIGALRM: --max-seconds), or 0 */
    double deadline;  /* sp_clock_seconds() at which --max-seconds stops the study; 0: none */
    size_t *todo;     /* the cases of this run (held here also so that a worker, a fork of
                         this process, can reach every block it inherited until it exits) */
    size_t *returned; /* cases handed to a worker that died before it started them */
    size_t n_returned;
    struct sigaction saved_chld, saved_usr1, saved_pipe; /* as the command had them */
    int masked;         /* the stop signals are blocked by the run (worker_mask: as before) */
    int jobs;           /* the most workers at once */
    int rank, size;     /* this process among the run's (0 of 1 on one machine) */
};

/* How a case ends, as text that can cross a pipe or an MPI message: "R" and the
 * result's figures as compact JSON (sp_study_result_figures), or "E" and why it failed.
 * Figures longer than OUTCOME_MAX (about what a pipe holds) are left out ("R" alone):
 * the file is read instead. */
#define OUTCOME_MAX 60000

/* Where a case runs, which decides how its file is put in place: by a worker while its
 * parent lives, or by the parent itself, in step with the summary; over MPI straight
 * (ranks on other machines share no lock, and only rank 0 writes the summary). */
typedef enum case_runner { IN_WORKER, IN_PARENT, IN_MPI_RANK } case_runner;

/* Runs case i into its file; returns its outcome text (NULL: out of memory), to free. */
char *sp_study_run_one(sp_study_run *r, size_t i, case_runner runner);
/* Records a finished case: with its figures (not kept), or failed for `why`. */
void sp_study_record(sp_study_run *r, size_t i, const cJSON *figures, const char *why, double wall);
/* Records a finished case from its outcome text (NULL: out of memory). */
void sp_study_record_outcome(sp_study_run *r, size_t i, const char *outcome, double wall);
/* Case i's figures from its file in DIR, when the file is there and complete (to free). */
cJSON *sp_study_figures_from_file(const sp_study_run *r, size_t i);
/* The progress after case i ended with `status`; `status` NULL: the once-a-second
 * refresh of the status line. */
void sp_study_report(sp_study_run *r, size_t i, const char *status, double wall);
/* The stop signals (SIGINT, SIGTERM, SIGHUP) not ignored: a study started with SIGHUP
 * ignored (nohup) runs on (study_local.c). */
void sp_study_stop_signals(sigset_t *set);

#endif
