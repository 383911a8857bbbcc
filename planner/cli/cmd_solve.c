/* symplan solve, check and list: the commands that read one problem (or study) file. */
#include <math.h>
#include <nlopt.h>
#include <signal.h>
#include <sys/time.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/sp_clock.h"
#include "planner/cli/sp_commands.h"
#include "planner/sp_solve.h"
#include "problems/sp_result_file.h"

/* Exit codes (docs/command.md, "Exit codes and failures"): a solve that wrote its result exits with the
 * code of how the result ended; an interrupted one with 128 + the signal. */
enum {
    EXIT_RESULT = 0,        /* result written: converged / ok */
    EXIT_INTERNAL = 1,      /* out of memory, or the result could not be written */
    EXIT_BAD_INPUT = 2,     /* bad file or option, limit exceeded, unusable output path */
    EXIT_NOT_CONVERGED = 3, /* result written: stalled, maxeval_reached, target_not_reached, … */
    EXIT_FAILED = 4,        /* result written: newton_failed, singular_matrix, non_finite, … */
    EXIT_SIGNAL = 128       /* + the signal: interrupted, the partial result written */
};

/* ------------------------------------------------------------ signals -- */

/* The signal (SIGINT, SIGTERM, SIGALRM) that asked the running solve to stop; the library polls
 * it through sp_progress.stop. The command's own state, not the library's. */
static volatile sig_atomic_t stop_signal;

/* SIGINT, SIGTERM, and the alarm of --max-seconds (whose result then says that the time
 * ran out). The first names the exit status; more of them change nothing: `timeout`
 * signals the child and then its process group, and a batch system may repeat itself,
 * and each of them expects the partial result. */
static void on_stop_signal(int sig)
{
    if (!stop_signal) stop_signal = sig;
}

static void catch_signal(int sig)
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_stop_signal;
    sigemptyset(&act.sa_mask);
    sigaction(sig, &act, NULL);
}

/* The alarm that stops the run after `seconds` of wall time. */
static void start_clock(double seconds)
{
    catch_signal(SIGALRM);
    struct itimerval t = {.it_value = {.tv_sec = (time_t)seconds,
                                       .tv_usec = (suseconds_t)((seconds - floor(seconds)) * 1e6)}};
    if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &t, NULL);
}

/* From here on SIGINT and SIGTERM (what a batch system sends before its time limit)
 * stop the solve at its next check and have the partial result written. */
static void catch_stop_signals(void)
{
    catch_signal(SIGINT);
    catch_signal(SIGTERM);
}

/* One line naming the file, the JSON path and what is wrong; exit 2, or 1 when what
 * failed was an allocation (the file may well be good). */
static int bad_input(const char *file, sp_status st, const sp_input_error *e)
{
    sp_cmd_error(file, e->path, e->message);
    return st == SP_ERR_NOMEM ? EXIT_INTERNAL : EXIT_BAD_INPUT;
}

/* The file's text, read once: what is checked, solved and echoed in the result all
 * come from it, so a file edited during a run changes nothing, and a pipe works. */
static int read_text(const char *file, char **text, size_t *length)
{
    sp_input_error e;
    sp_status st = sp_text_read_file(file, SP_PROBLEM_FILE_MAX_BYTES, text, length, &e);
    return st == SP_OK ? EXIT_RESULT : bad_input(file, st, &e);
}

typedef struct check_args {
    const char *file;
    sp_limits limits;
} check_args;

static int cmd_check(int argc, char **argv);

const sp_command sp_command_check = {
    .name = "check",
    .summary = "validate a problem file, or a study file and every case it expands to, without running anything",
    .description = "Validates a file without running anything, under the same resource limits as `solve`. A problem "
                   "file prints `ok`. A study file (one with `base`, `vary` or `cases`) is expanded and every case's "
                   "problem is read and validated as `study` would before it runs anything; it prints "
                   "\"*FILE.json*: ok (*N* cases)\". A bad file or case exits 2 with one line naming the file, the "
                   "case and the JSON path:\n\n"
                   "    study.json: cases[3]: steps: must be between 1 and 1000000000 (got 0)",
    SP_CMD_OPERAND(check_args, file, "FILE.json",
                   "the problem or study file; prints 'ok', or for a study 'FILE.json: ok (N cases)'"),
    SP_CMD_LIMITS(check_args),
    .run = cmd_check};

/* A study is checked case by case as `study` reads it before it runs anything. */
static int check_study(const char *file, const char *text, size_t length, const sp_limits *limits)
{
    sp_study *study;
    int rc = sp_cmd_load_study(file, text, length, limits, 1, &study);
    if (rc) return rc;
    printf("%s: ok (%zu cases)\n", file, sp_study_case_count(study));
    sp_study_free(study);
    return EXIT_RESULT;
}

static int cmd_check(int argc, char **argv)
{
    check_args a = {.limits = sp_limits_default()};
    int rc = sp_cmd_parse(&sp_command_check, argc, argv, &a);
    if (rc >= 0) return rc;
    char *text;
    size_t length;
    rc = read_text(a.file, &text, &length);
    if (rc) return rc;
    if (sp_cmd_is_study_text(text, length)) {
        rc = check_study(a.file, text, length, &a.limits);
        free(text);
        return rc;
    }
    sp_problem pb;
    sp_input_error e;
    cJSON *doc;
    sp_status st = sp_problem_parse_document(text, length, &a.limits, &doc, &e);
    free(text); /* before the problem is read: the text and the problem's arrays are not held at once */
    if (st == SP_OK) st = sp_problem_from_document(doc, &a.limits, &pb, &e);
    cJSON_Delete(doc);
    if (st != SP_OK) return bad_input(a.file, st, &e);
    sp_problem_free(&pb);
    puts("ok");
    return EXIT_RESULT;
}

static double number_at(const cJSON *obj, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(obj, key));
}

/* "heisenberg simulate (gauss, 2 stages, 100 steps, h = 0.1): ok": the model, the task,
 * what the result's settings name of how it ran, and the status — the same for every
 * family, from the result alone. */
static void print_headline(FILE *f, const sp_problem *pb, const cJSON *result)
{
    const cJSON *settings = cJSON_GetObjectItem(result, "settings");
    char how[256] = "";
    size_t used = 0;
    static const char *const names[] = {"scheme", "group", "retraction", "lambda1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < sizeof how; ++i) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(settings, names[i]));
        if (v && i == 3)
            used += (size_t)snprintf(how + used, sizeof how - used, "lambda1 %s, ", v);
        else if (v)
            used += (size_t)snprintf(how + used, sizeof how - used, "%s, ", v);
        if (i == 0 && cJSON_IsNumber(cJSON_GetObjectItem(settings, "stages")) && used < sizeof how)
            used += (size_t)snprintf(how + used, sizeof how - used, "%d stages, ",
                                     (int)number_at(settings, "stages"));
    }
    /* a step chosen from error_tolerance is the result's, not the file's */
    const double chosen = number_at(settings, "steps");
    const int steps = pb->steps > 0 ? pb->steps : isfinite(chosen) ? (int)chosen : 0;
    fprintf(f, "%s %s (%s%d steps, h = %g): %s\n", pb->model, pb->task == SP_TASK_PLAN ? "plan" : "simulate", how,
            steps, pb->T / steps, cJSON_GetStringValue(cJSON_GetObjectItem(result, "status")));
}

/* A few human lines about a result; everything else is in the JSON. */
static void print_summary(FILE *f, const sp_problem *pb, const cJSON *result, const char *where)
{
    print_headline(f, pb, result);
    const cJSON *optimality = cJSON_GetObjectItem(result, "optimality_residual");
    if (cJSON_IsNumber(cJSON_GetObjectItem(result, "cost")) && cJSON_IsNumber(optimality))
        fprintf(f, "  cost %.12g (running %.12g), optimality residual %.2g after %d Newton iterations, %d sweeps\n",
                number_at(result, "cost"), number_at(result, "running_cost"), optimality->valuedouble,
                (int)number_at(result, "iterations"), (int)number_at(result, "sweeps"));
    else if (cJSON_IsNumber(cJSON_GetObjectItem(result, "cost")))
        fprintf(f, "  cost %.12g after %d evaluations, |gradient| %.2g, terminal residual %.2g\n",
                number_at(result, "cost"), (int)number_at(result, "iterations"), number_at(result, "gradient_norm"),
                number_at(cJSON_GetObjectItem(result, "terminal_residual"), "norm"));
    if (cJSON_IsNumber(cJSON_GetObjectItem(result, "residual")))
        fprintf(f, "  endpoint residual %.2g after %d starts; path length %.6g, energy %.6g\n",
                number_at(result, "residual"), (int)number_at(result, "starts"), number_at(result, "length"),
                number_at(result, "energy"));
    /* every target while there are few; then the count and the worst miss */
    const cJSON *tg, *targets = cJSON_GetObjectItem(result, "targets");
    if (cJSON_GetArraySize(targets) <= 12) {
        cJSON_ArrayForEach(tg, targets)
            fprintf(f, "  t = %-6g distance to target %.6g\n", number_at(tg, "t"), number_at(tg, "distance"));
    } else {
        double worst = 0.0, at = 0.0;
        cJSON_ArrayForEach(tg, targets) if (number_at(tg, "distance") >= worst) worst = number_at(tg, "distance"),
                                                                                at = number_at(tg, "t");
        fprintf(f, "  %d keyframes, largest distance %.6g at t = %g\n", cJSON_GetArraySize(targets), worst, at);
    }
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(result, "diagnostics"))
        fprintf(f, "  %s %.3g\n", d->string, d->valuedouble);
    fprintf(f, "result written to %s\n", where);
}

/* Progress of a solve on stderr: on a terminal one line rewritten in place, with -v to
 * a pipe or file one line at a time, at most ten a second (the first and the last
 * evaluation always shown). */
typedef struct solve_progress {
    int terminal;
    double last_print; /* seconds on the monotonic clock; < 0 before the first line */
    int pending;       /* `last` has not been printed */
    sp_progress_info last;
} solve_progress;

static void print_progress(solve_progress *p)
{
    const sp_progress_info *i = &p->last;
    if (i->steps > 0) {
        fprintf(stderr, "%sstep %ld of %ld (%.0f%%)%s", p->terminal ? "\r" : "", i->step, i->steps,
                100.0 * (double)i->step / (double)i->steps, p->terminal ? "\033[K" : "\n");
        fflush(stderr);
        p->pending = 0;
        return;
    }
    char start[32] = "";
    if (i->start > 0) snprintf(start, sizeof start, "start %d, ", i->start);
    char grad[32] = "-";
    if (!isnan(i->gradient_norm)) snprintf(grad, sizeof grad, "%.3g", i->gradient_norm);
    fprintf(stderr, "%s%sevaluation %d: cost %.12g, |gradient| %s%s", p->terminal ? "\r" : "", start, i->evaluation,
            i->cost, grad, p->terminal ? "\033[K" : "\n");
    fflush(stderr);
    p->pending = 0;
}

static void on_progress(void *ctx, const sp_progress_info *info)
{
    solve_progress *p = ctx;
    p->last = *info;
    p->pending = 1;
    double now = sp_clock_seconds();
    if (p->last_print < 0.0 || now - p->last_print >= 0.1) {
        p->last_print = now;
        print_progress(p);
    }
}

static void end_progress(solve_progress *p)
{
    if (p->pending) print_progress(p);
    if (p->terminal && p->last_print >= 0.0) fputc('\n', stderr);
}

/* The exit code of a written result, and its one line on stderr when it is not done. */
static int result_exit(const char *file, const char *where, const cJSON *result)
{
    sp_outcome outcome = sp_result_outcome(result);
    if (outcome == SP_OUTCOME_DONE) return EXIT_RESULT;
    char why[400], line[512];
    sp_result_explain(result, why, sizeof why);
    snprintf(line, sizeof line, "%s (result written to %s)", why, where);
    sp_cmd_error(file, NULL, line);
    switch (outcome) {
    case SP_OUTCOME_STOPPED:
        return EXIT_NOT_CONVERGED;
    case SP_OUTCOME_INTERRUPTED:
        return EXIT_SIGNAL + (stop_signal ? stop_signal : SIGINT);
    default:
        return EXIT_FAILED;
    }
}

typedef struct solve_args {
    const char *file, *out;
    int summary, verbose;
    double seconds;
    sp_limits limits;
} solve_args;

static const sp_cmd_option solve_options[] = {
    {.name = "-o",
     .value = "OUT.json",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(solve_args, out),
     .meaning = "write the result to OUT.json ('-': standard output), whole or not at all",
     .fallback = "standard output",
     .detail = "An existing file is replaced only once the new result is complete."},
    {.name = "--summary",
     .offset = offsetof(solve_args, summary),
     .meaning = "print a few lines about the result (on stderr when the result goes to stdout)",
     .fallback = "off",
     .detail = "The model, the scheme, the status, the cost and the invariants."},
    {.name = "--max-seconds",
     .value = "S",
     .kind = SP_OPT_SECONDS,
     .offset = offsetof(solve_args, seconds),
     .meaning = "stop the run after S seconds and write what it has, with status maxtime_reached (exit 3)",
     .fallback = "no limit",
     .detail = "*S* is a decimal number. The run stops as a signal would stop it and writes the trajectory up to the "
               "last step, or a plan's best point."},
    {.name = "-v",
     .offset = offsetof(solve_args, verbose),
     .meaning = "print progress on stderr, one line at a time, also when it is not a terminal",
     .fallback = "only on a terminal",
     .detail = "Each optimiser evaluation, or the steps of a simulation; on a terminal without `-v`, one line "
               "rewritten in place."},
    {.name = NULL}};

static int cmd_solve(int argc, char **argv);

const sp_command sp_command_solve = {.name = "solve",
                                     .summary = "run a problem's task (plan or simulate) and write its result as JSON",
                                     .description = "Runs the problem's task, a plan or a simulation, and writes its "
                                                    "result as JSON.",
                                     SP_CMD_OPERAND(solve_args, file, "FILE.json", "the problem file"),
                                     .options = solve_options,
                                     SP_CMD_LIMITS(solve_args),
                                     .run = cmd_solve};

static int cmd_solve(int argc, char **argv)
{
    solve_args a = {.limits = sp_limits_default()};
    int rc = sp_cmd_parse(&sp_command_solve, argc, argv, &a);
    if (rc >= 0) return rc;
    const char *file = a.file, *out_path = a.out;
    rc = sp_cmd_check_output(out_path, file);
    if (rc) return rc;
    catch_stop_signals(); /* before anything runs, so that no interrupt is lost */
    char *text;
    size_t length;
    rc = read_text(file, &text, &length);
    if (rc) return rc;
    sp_problem pb;
    sp_input_error e;
    cJSON *input; /* the problem as the text gives it, which the result carries */
    sp_status st = sp_problem_parse_document(text, length, &a.limits, &input, &e);
    free(text);
    if (st == SP_OK) st = sp_problem_from_document(input, &a.limits, &pb, &e);
    if (st != SP_OK) {
        cJSON_Delete(input);
        return bad_input(file, st, &e);
    }

    char why[512];
    sp_output out;
    sp_output_remove_stale(out_path);
    if (sp_output_open(&out, out_path, why, sizeof why) != SP_OK) {
        sp_cmd_error(out_path, NULL, why);
        cJSON_Delete(input);
        sp_problem_free(&pb);
        return EXIT_BAD_INPUT;
    }

    solve_progress progress = {.terminal = isatty(STDERR_FILENO), .last_print = -1.0};
    sp_progress reporter = {
        .report = progress.terminal || a.verbose ? on_progress : NULL, .ctx = &progress, .stop = &stop_signal};
    if (a.seconds > 0.0) start_clock(a.seconds);
    cJSON *result = sp_solve_json(&pb, &reporter);
    if (a.seconds > 0.0) setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
    end_progress(&progress);
    /* stopped by the clock, not by a signal: say so */
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(result, "status");
    if (stop_signal == SIGALRM && cJSON_IsString(status) && strcmp(status->valuestring, "interrupted") == 0)
        cJSON_ReplaceItemInObjectCaseSensitive(result, "status", cJSON_CreateString("maxtime_reached"));
    sp_result_take_input(result, input); /* not copied: it may be long */
    if (!result) {
        sp_cmd_error(file, NULL, "out of memory");
        sp_output_abandon(&out);
        sp_problem_free(&pb);
        return EXIT_INTERNAL;
    }
    rc = EXIT_RESULT;
    const int to_stdout = !out_path || strcmp(out_path, "-") == 0;
    const char *where = to_stdout ? "standard output" : out_path;
    if (sp_output_commit(&out, result, why, sizeof why) != SP_OK) {
        sp_cmd_error(file, NULL, why);
        rc = EXIT_INTERNAL;
    } else {
        /* never mix the summary into a JSON result on standard output */
        if (a.summary) print_summary(to_stdout ? stderr : stdout, &pb, result, where);
        rc = result_exit(file, where, result);
    }
    cJSON_Delete(result);
    sp_problem_free(&pb);
    return rc;
}

static int cmd_list(int argc, char **argv);

const sp_command sp_command_list = {
    .name = "list",
    .summary = "list the groups, retractions, schemes, models and NLopt algorithms a problem file can name",
    .description = "Lists what a problem file can name: the groups, retractions, schemes, models (with their "
                   "family, tasks and notes), the holonomic schemes and the NLopt algorithms. It takes no options.",
    .run = cmd_list};

static int cmd_list(int argc, char **argv)
{
    int rc = sp_cmd_parse(&sp_command_list, argc, argv, NULL);
    if (rc >= 0) return rc;
    printf("groups:");
    for (size_t i = 0; sp_group_at(i); ++i) printf(" %s", sp_group_at(i)->name);
    printf("\nretractions:");
    for (size_t i = 0; sp_retraction_at(i); ++i) printf(" %s", sp_retraction_at(i)->name);
    printf("\nschemes:");
    for (size_t i = 0; sp_hohp_scheme_at(i); ++i)
        printf(" %s (theta=%g, order %d)", sp_hohp_scheme_at(i)->name, sp_hohp_scheme_at(i)->theta,
               sp_hohp_scheme_at(i)->order);
    printf("\nmodels:\n");
    sp_model_info m;
    for (size_t i = 0; sp_model_info_at(i, &m); ++i) {
        printf("  %-18s [%s: ", m.name, m.family);
        for (size_t t = 0, n = 0; sp_task_name(t); ++t)
            if (m.tasks & SP_TASK_FLAG(t)) printf("%s%s", n++ ? ", " : "", sp_task_name(t));
        printf("] %s\n  %-18s   %s\n", m.description, "", m.notes);
    }
    printf("holonomic schemes:\n");
    for (size_t j = 0; sp_hol_scheme_at(j); ++j)
        printf("  %-16s order %d  %s\n", sp_hol_scheme_at(j)->name, sp_hol_scheme_at(j)->order,
               sp_hol_scheme_at(j)->description);
    printf("algorithms (NLopt):\n");
    for (int a = 0; a < NLOPT_NUM_ALGORITHMS; ++a)
        printf("  %-24s %s\n", nlopt_algorithm_to_string((nlopt_algorithm)a), nlopt_algorithm_name((nlopt_algorithm)a));
    return EXIT_RESULT;
}
