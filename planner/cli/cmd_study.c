/* symplan study STUDY.json -o DIR [-j N] [--max-seconds S] [-v] [LIMITS]: the command's
 * arguments and the reading of the study; the run itself (the folder, its log, the
 * summary, the workers on this machine or the MPI ranks) is planner/study/sp_study_run.h.
 * Built with -DSP_HAVE_MPI (`make mpi`, build/symplan-mpi) the command runs the cases
 * over MPI ranks when started by mpirun or srun with more than one rank. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/sp_clock.h"
#include "planner/cli/sp_commands.h"
#include "planner/study/sp_study.h"
#include "planner/study/sp_study_run.h"

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
    SP_CMD_OPERAND(study_args, file, "STUDY.json", "the study file: a base problem and the settings to vary"),
    .options = study_options,
    SP_CMD_LIMITS(study_args),
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
    if (st == SP_OK) return SP_STUDY_EXIT_DONE;
    if (speak) error_line(file, err.case_index, err.input.path, err.input.message);
    return st == SP_ERR_NOMEM ? SP_STUDY_EXIT_INTERNAL : SP_STUDY_EXIT_BAD_INPUT;
}

int sp_cmd_is_study_text(const char *text, size_t length)
{
    int study;
    sp_input_error err;
    return sp_study_text_is_study(text, length, &study, &err) == SP_OK && study;
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

static void run_error(const char *where, const char *message) { error_line(where, -1, NULL, message); }

static int cmd_study(int argc, char **argv)
{
    study_args a;
    int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0) return parsed;
    /* the budget is the whole command's, reading and resuming included */
    a.deadline = a.seconds > 0.0 ? sp_clock_seconds() + a.seconds : 0.0;
#ifdef SP_HAVE_MPI
    const sp_study_executor *ex = &sp_study_mpi_executor;
#else
    const sp_study_executor *ex = &sp_study_local_executor;
#endif
    sp_study_job job = {.file = a.file,
                        .dir = a.dir,
                        .jobs = (int)a.jobs,
                        .verbose = a.verbose,
                        .seconds = a.seconds,
                        .deadline = a.deadline,
                        .error = run_error};
    ex->start(&job.rank, &job.size);
    sp_study *study = NULL;
    int stop = 0;
    int rc = sp_cmd_load_study(a.file, NULL, 0, &a.limits, job.rank == 0, &study);
    if (!rc) rc = sp_study_execute(&job, study, ex, &stop);
    ex->finish();
    if (stop) die_of(stop);
    return rc;
}
