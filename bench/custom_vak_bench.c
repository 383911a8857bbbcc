/* make bench, part expression models (vakonomic): what writing a model as expressions
 * costs. The Heisenberg problem and the two-wheeled vehicle, each once as the built-in
 * model and once as the expression model of data/custom/ (the same problem: the same
 * steps, stages and Newton iterations), run through the simulate task's integration
 * without recording; the time per step of each, and the ratio expression / built-in.
 * The difference is the evaluation of the model's functions and their derivatives by
 * the expression engine's instruction lists against compiled C. Times are the best of 5 batches of
 * ≥ 20 ms. No verdicts. */
#include <math.h>
#include <stdio.h>

#include "bench/bench.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "problems/sp_problem.h"

#define REPEATS 5
#define MIN_BATCH 0.02

typedef struct timed_run {
    sp_vak_system sys;
    sp_status status;
    int iterations;
} timed_run;

static void integrate(void *ctx)
{
    timed_run *r = ctx;
    sp_vak_run run;
    r->status = sp_vak_integrate(&r->sys, r->sys.pb->vak.q0, r->sys.pb->vak.p0, 0, 0, &run);
    r->iterations = (int)run.work.newton_iterations;
    sp_vak_run_release(&run);
}

/* Seconds per step of the problem in `path` (NaN when it cannot be read or run). */
static double seconds_per_step(const char *path, double *iterations_per_step)
{
    sp_problem pb;
    sp_input_error err;
    if (sp_problem_read_file(path, &pb, &err) != SP_OK) {
        printf("  %s: %s: %s\n", path, err.path, err.message);
        return NAN;
    }
    timed_run r = {0};
    double t = NAN;
    if (sp_vak_system_init(&r.sys, &pb) == SP_OK) {
        t = bench_best_time(integrate, &r, REPEATS, MIN_BATCH) / pb.steps;
        *iterations_per_step = (double)r.iterations / pb.steps;
        if (r.status != SP_OK) t = NAN;
    }
    sp_vak_system_release(&r.sys);
    sp_problem_free(&pb);
    return t;
}

void bench_custom_vak(void)
{
    static const struct {
        const char *name, *builtin, *custom;
    } pairs[] = {{"heisenberg (s=2, h=0.1)", "data/heisenberg.json", "data/custom/heisenberg.json"},
                 {"parking (s=2, h=0.05)", "data/parking_fig3.json", "data/custom/parking.json"}};
    printf("\nvakonomic expression models (problems/custom/): cost per step against the built-in models, best of %d\n",
           REPEATS);
    printf("%-26s %14s %14s %14s %8s\n", "problem", "built-in us", "expression us", "Newton it/step", "ratio");
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
        double it_b = 0.0, it_c = 0.0;
        const double tb = seconds_per_step(pairs[k].builtin, &it_b), tc = seconds_per_step(pairs[k].custom, &it_c);
        printf("%-26s %14.2f %14.2f %7.2f/%-6.2f %8.2f\n", pairs[k].name, 1e6 * tb, 1e6 * tc, it_b, it_c, tc / tb);
    }
}
