/* The bookkeeping of `symplan study` (bench/study_bench.c): studies of 500, 2000 and 10^4
 * trivial cases (5 steps of the Heisenberg geodesic each), run by the command with one
 * worker, against the same cases run one after the other in this process into their
 * files (sp_study_run_case: the solve and the writing of the result, nothing else). The
 * ratio is what a case costs in a study over what it costs alone; it stays the same
 * from 500 to 10^4 cases when the bookkeeping costs the same per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "planner/study/sp_study.h"

#define STUDY_BASE                                                                                                     \
    "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1], "                   \
    "\"scheme\": \"gauss\", \"stages\": 2, \"h\": 0.1, \"steps\": 5}"

/* A study of n cases differing in their step h, as text (malloc'd). */
static char *trivial_study(int n)
{
    size_t size = 512 + 16 * (size_t)n, used;
    char *text = malloc(size);
    if (!text) return NULL;
    used = (size_t)snprintf(text, size, "{\"name\": \"trivial\", \"base\": %s, \"vary\": {\"h\": [", STUDY_BASE);
    for (int k = 0; k < n; ++k)
        used += (size_t)snprintf(text + used, size - used, "%s%.7f", k ? ", " : "", 0.1 + 1e-7 * k);
    snprintf(text + used, size - used, "]}}");
    return text;
}

/* Seconds of `symplan study FILE -o OUT -j 1`, or a negative number when it fails. */
static double time_command(const char *symplan, const char *file, const char *out)
{
    double t0 = bench_clock();
    pid_t pid = fork();
    if (pid == 0) {
        execl(symplan, symplan, "study", file, "-o", out, "-j", "1", (char *)NULL);
        _exit(127);
    }
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) return -1.0;
    return bench_clock() - t0;
}

/* Seconds of every case run into its file in this process, or a negative number. */
static double time_cases(const char *text, const char *out)
{
    sp_study *s;
    sp_study_error err;
    if (sp_study_parse(text, strlen(text), NULL, &s, &err) != SP_OK) return -1.0;
    char why[512];
    double t0 = bench_clock(), seconds;
    size_t i = 0, n = sp_study_case_count(s);
    while (i < n && sp_study_run_case(s, i, out, NULL, why, sizeof why) == SP_OK) ++i;
    seconds = i == n ? bench_clock() - t0 : -1.0;
    sp_study_free(s);
    return seconds;
}

void bench_study(const char *symplan)
{
    /* $TMPDIR when set: a busy disk under /tmp can drown what is measured (TMPDIR=/dev/shm) */
    const char *tmp = getenv("TMPDIR");
    char top[4096];
    snprintf(top, sizeof top, "%s/symplan-bench-study-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(top)) {
        printf("study: cannot make a scratch folder\n");
        return;
    }
    printf("study bookkeeping: trivial cases (Heisenberg, 5 steps), `symplan study -j 1` against the cases\n"
           "run one after the other in-process into their files\n");
    printf("%8s %12s %12s %14s %8s\n", "cases", "study [s]", "cases [s]", "per case [ms]", "ratio");
    static const int sizes[] = {500, 2000, 10000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        char file[4200], own[4200], run[4200], command[8500];
        snprintf(file, sizeof file, "%s/study-%d.json", top, sizes[k]);
        snprintf(own, sizeof own, "%s/alone-%d", top, sizes[k]);
        snprintf(run, sizeof run, "%s/study-%d", top, sizes[k]);
        char *text = trivial_study(sizes[k]);
        FILE *f = text ? fopen(file, "w") : NULL;
        int ok = f && fputs(text, f) >= 0;
        if (f) ok = fclose(f) == 0 && ok;
        ok = ok && mkdir(own, 0755) == 0;
        double alone = ok ? time_cases(text, own) : -1.0, study = ok ? time_command(symplan, file, run) : -1.0;
        free(text);
        if (alone <= 0.0 || study <= 0.0)
            printf("%8d   failed (%s)\n", sizes[k], alone <= 0.0 ? "the cases alone" : "the study");
        else
            printf("%8d %12.2f %12.2f %14.3f %8.2f\n", sizes[k], study, alone, 1e3 * study / sizes[k], study / alone);
        snprintf(command, sizeof command, "rm -rf '%s' '%s'", own, run);
        if (system(command) != 0) printf("study: cannot remove %s\n", run);
        unlink(file);
    }
    rmdir(top);
    printf("(ratio = the study's time over its cases' own; the goal is at most 3, the same at every size)\n\n");
}
