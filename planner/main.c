/* The symplan command: the only place that talks to the terminal. */
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sp_commands.h"
#include "sp_solve.h"
#include "../problems/sp_result_file.h"

enum { EXIT_RESULT = 0, EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2 };

static void usage(FILE *f)
{
    fputs("usage: symplan solve FILE.json [-o OUT.json] [--summary] [-v]\n"
          "       symplan check FILE.json\n"
          "       symplan list\n"
          "       symplan study STUDY.json -o DIR [-j N] [-v]\n"
          "       symplan plot RESULT.json|DIR -o FIG.svg\n"
          "       symplan export RESULT.json --csv FILE\n",
          f);
}

/* Writes s with its control characters escaped: a file name or a string quoted from
 * the file ("unknown scheme 'a<newline>b'") must not break the one-line error. */
static void put_escaped(const char *s)
{
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n')
            fputs("\\n", stderr);
        else if (c == '\t')
            fputs("\\t", stderr);
        else if (c < 0x20 || c == 0x7f)
            fprintf(stderr, "\\x%02x", c);
        else
            fputc(c, stderr);
    }
}

/* The one line on stderr for every failure: "where: path: message" (no path part
 * when path is NULL or empty). */
static void error_line(const char *where, const char *path, const char *message)
{
    put_escaped(where);
    fputs(": ", stderr);
    if (path && path[0]) {
        put_escaped(path);
        fputs(": ", stderr);
    }
    put_escaped(message);
    fputc('\n', stderr);
}

/* One line naming the file, the JSON path and what is wrong. */
static int bad_input(const char *file, const sp_input_error *e)
{
    error_line(file, e->path, e->message);
    return EXIT_BAD_INPUT;
}

static int read_problem(const char *file, sp_problem *pb)
{
    sp_input_error e;
    if (sp_problem_read_file(file, pb, &e) != SP_OK) return bad_input(file, &e);
    return EXIT_RESULT;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    sp_problem pb;
    int rc = read_problem(argv[0], &pb);
    if (rc) return rc;
    sp_problem_free(&pb);
    puts("ok");
    return EXIT_RESULT;
}

static double number_at(const cJSON *obj, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItem(obj, key)); }

/* A few human lines about a result; everything else is in the JSON. */
static void print_summary(FILE *f, const sp_problem *pb, const cJSON *result, const char *where)
{
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(result, "status"));
    if (pb->kind == SP_KIND_VAKONOMIC)
        fprintf(f, "%s %s (gauss, %d stages, %d steps): %s\n", pb->model, pb->task == SP_TASK_PLAN ? "plan" : "simulate",
                pb->vak.stages, pb->steps, status);
    else
        fprintf(f, "%s (%s, %s, %d steps): %s\n", pb->model, pb->scheme->name, pb->retraction->name, pb->steps, status);
    if (cJSON_IsNumber(cJSON_GetObjectItem(result, "cost")))
        fprintf(f, "  cost %.12g after %d evaluations, |gradient| %.2g, terminal residual %.2g\n",
                number_at(result, "cost"), (int)number_at(result, "iterations"), number_at(result, "gradient_norm"),
                number_at(cJSON_GetObjectItem(result, "terminal_residual"), "norm"));
    if (cJSON_IsNumber(cJSON_GetObjectItem(result, "residual")))
        fprintf(f, "  endpoint residual %.2g after %d starts; path length %.6g, energy %.6g\n",
                number_at(result, "residual"), (int)number_at(result, "starts"), number_at(result, "length"),
                number_at(result, "energy"));
    const cJSON *tg;
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(result, "targets"))
        fprintf(f, "  t = %-6g distance to target %.6f\n", number_at(tg, "t"), number_at(tg, "distance"));
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(result, "diagnostics")) fprintf(f, "  %s %.3g\n", d->string, d->valuedouble);
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

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_progress(solve_progress *p)
{
    const sp_progress_info *i = &p->last;
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
    double now = monotonic_seconds();
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

static int cmd_solve(int argc, char **argv)
{
    const char *file = NULL, *out_path = NULL;
    int summary = 0, verbose = 0;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--summary") == 0)
            summary = 1;
        else if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (!file && argv[i][0] != '-')
            file = argv[i];
        else {
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (!file) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    sp_problem pb;
    int rc = read_problem(file, &pb);
    if (rc) return rc;

    char why[512];
    sp_output out;
    if (sp_output_open(&out, out_path, why, sizeof why) != SP_OK) {
        error_line(out_path, NULL, why);
        sp_problem_free(&pb);
        return EXIT_BAD_INPUT;
    }

    solve_progress progress = {.terminal = isatty(STDERR_FILENO), .last_print = -1.0};
    sp_progress reporter = {on_progress, &progress};
    cJSON *result = sp_solve_json(&pb, progress.terminal || verbose ? &reporter : NULL);
    end_progress(&progress);
    if (!result) {
        error_line(file, NULL, "out of memory");
        sp_output_abandon(&out);
        sp_problem_free(&pb);
        return EXIT_INTERNAL;
    }
    rc = EXIT_RESULT;
    if (sp_output_commit(&out, result, why, sizeof why) != SP_OK) {
        error_line(file, NULL, why);
        rc = EXIT_INTERNAL;
    } else if (summary) {
        /* never mix the summary into a JSON result on standard output */
        print_summary(out_path ? stdout : stderr, &pb, result, out_path ? out_path : "standard output");
    }
    cJSON_Delete(result);
    sp_problem_free(&pb);
    return rc;
}

static int cmd_list(void)
{
    printf("groups:");
    for (size_t i = 0; sp_group_at(i); ++i) printf(" %s", sp_group_at(i)->name);
    printf("\nretractions:");
    for (size_t i = 0; sp_retraction_at(i); ++i) printf(" %s", sp_retraction_at(i)->name);
    printf("\nschemes:");
    for (size_t i = 0; sp_hohp_scheme_at(i); ++i)
        printf(" %s (theta=%g, order %d)", sp_hohp_scheme_at(i)->name, sp_hohp_scheme_at(i)->theta,
               sp_hohp_scheme_at(i)->order);
    printf("\nmodels:\n");
    for (size_t i = 0; sp_model_at(i); ++i)
        printf("  %-14s [%s] %s\n", sp_model_at(i)->name, sp_model_at(i)->tasks, sp_model_at(i)->description);
    for (size_t i = 0; sp_vak_model_at(i); ++i)
        printf("  %-14s [plan, simulate; scheme gauss, stages 1-6] %s\n", sp_vak_model_at(i)->name,
               sp_vak_model_at(i)->description);
    printf("algorithms (NLopt):\n");
    for (int a = 0; a < NLOPT_NUM_ALGORITHMS; ++a)
        printf("  %-24s %s\n", nlopt_algorithm_to_string((nlopt_algorithm)a), nlopt_algorithm_name((nlopt_algorithm)a));
    return EXIT_RESULT;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "solve") == 0) return cmd_solve(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0) return cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "list") == 0) return cmd_list();
    if (strcmp(argv[1], "study") == 0) return sp_cmd_study(argc - 2, argv + 2);
    if (strcmp(argv[1], "plot") == 0) return sp_cmd_plot(argc - 2, argv + 2);
    if (strcmp(argv[1], "export") == 0) return sp_cmd_export(argc - 2, argv + 2);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return EXIT_RESULT;
    }
    char message[128];
    snprintf(message, sizeof message, "unknown command '%.64s'", argv[1]);
    error_line("symplan", NULL, message);
    usage(stderr);
    return EXIT_BAD_INPUT;
}
