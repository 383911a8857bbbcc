/* make bench, part expression models (holonomic): the cost of a RATTLE step of a model
 * written as expressions against the same model compiled in — the spherical pendulum
 * (data/custom/spherical_pendulum.json against spherical_pendulum) — and the cost per step
 * of the double spherical pendulum, through the library's run of each problem. Times are
 * the best of 5 batches of at least 20 ms. No verdicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "planner/holonomic/sp_hol_run.h"
#include "problems/sp_problem.h"

#define REPEATS 5
#define MIN_BATCH 0.02

typedef struct run_ctx {
    sp_problem pb;
    sp_hol_system *sys;
} run_ctx;

static void one_run(void *ctx)
{
    run_ctx *r = ctx;
    sp_hol_run run;
    sp_hol_integrate(r->sys, 0, &run);
    sp_hol_run_release(&run);
}

/* Seconds per step of a problem (given as JSON text), or a negative number if it fails. */
static double seconds_per_step(const char *text, int *iterations)
{
    run_ctx r;
    sp_input_error err;
    if (sp_problem_parse(text, strlen(text), &r.pb, &err) != SP_OK) {
        printf("  (cannot read: %s: %s)\n", err.path, err.message);
        return -1.0;
    }
    r.sys = malloc(sizeof *r.sys);
    double t = -1.0;
    if (r.sys && sp_hol_system_init(r.sys, &r.pb) == SP_OK) {
        sp_hol_run run;
        sp_hol_integrate(r.sys, 0, &run);
        *iterations = r.pb.steps ? (int)(run.work / r.pb.steps) : 0;
        sp_hol_run_release(&run);
        t = bench_best_time(one_run, &r, REPEATS, MIN_BATCH) / r.pb.steps;
        sp_hol_system_release(r.sys);
    }
    free(r.sys);
    sp_problem_free(&r.pb);
    return t;
}

#define STEPS "\"h\": 0.001, \"steps\": 2000"
#define PENDULUM_STATE "\"q0\": [0, 1, 0], \"p0\": [1, 0, 1], "

void bench_custom_hol(void)
{
    static const char *const builtin =
        "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"scheme\": \"%s\", " PENDULUM_STATE STEPS "}";
    static const char *const custom =
        "{\"task\": \"simulate\", \"model\": \"custom\", \"kind\": \"holonomic\", \"scheme\": \"%s\","
        " \"coordinates\": [\"x\", \"y\", \"z\"], \"params\": {\"m\": 1, \"g\": 1, \"l\": 1},"
        " \"mass\": [\"m\", \"m\", \"m\"], \"potential\": \"m*g*z\", \"constraints\": [\"0.5*(x^2 + y^2 + z^2 - l^2)\"], "
        PENDULUM_STATE STEPS "}";
    static const char *const schemes[] = {"rattle", "rattle_suzuki5"};
    printf("\nExpression models, holonomic (cost per step through the library's run, h = 1e-3):\n");
    printf("%-34s %-16s %12s %12s %8s\n", "model", "scheme", "built-in us", "custom us", "ratio");
    for (int k = 0; k < 2; ++k) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, builtin, schemes[k]);
        snprintf(b, sizeof b, custom, schemes[k]);
        int ia = 0, ib = 0;
        double ta = seconds_per_step(a, &ia), tb = seconds_per_step(b, &ib);
        printf("%-34s %-16s %12.2f %12.2f %8.2f   (Newton iterations a step %d, %d)\n", "spherical pendulum",
               schemes[k], 1e6 * ta, 1e6 * tb, tb / ta, ia, ib);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", "data/custom/double_pendulum.json");
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char text[8192];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    int it = 0;
    double t = seconds_per_step(text, &it);
    printf("%-34s %-16s %12s %12.2f %8s   (Newton iterations a step %d)\n", "double spherical pendulum (n = 6)",
           "rattle_suzuki5", "-", 1e6 * t, "-", it);
}
