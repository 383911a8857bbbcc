/* make bench, part expression models: the cost per Lobatto IIIA–IIIB step of a
 * nonholonomic model written as expressions (data/custom/<name>.json, evaluated with its
 * symbolic derivatives by the expression engine, problems/custom/) against the same built-in model
 * (data/<name>.json, compiled C), both with the file's scheme, stages and step, from its
 * initial state, through the run's own stepper (planner/nonholonomic/sp_nh_run.h).
 * Microseconds per step, best of several repeats, and the ratio. No verdicts. */
#include <stdio.h>

#include "bench/bench.h"
#include "lie/sp_linalg.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "problems/sp_problem.h"

#define REPEATS 5
#define MIN_BATCH 0.02 /* seconds */
#define TIMED_STEPS 200

typedef struct timed_run {
    sp_nh_system sys;
    sp_status status;
} timed_run;

/* TIMED_STEPS steps from the problem's initial state, through the run's step type: its
 * state is q, p and λ one after another. */
static void steps(void *ctx)
{
    timed_run *r = ctx;
    const sp_nh_problem *np = &r->sys.pb->nh;
    double z[SP_STEP_MAX_DIM];
    double *q = z, *p = z + r->sys.n, *lam = z + 2 * r->sys.n;
    sp_vec_copy(r->sys.n, np->q0, q);
    sp_vec_copy(r->sys.n, np->p0, p);
    r->status = sp_nh_multiplier(&r->sys.model, q, p, lam);
    const double h = r->sys.pb->T / r->sys.pb->steps;
    for (int k = 0; k < TIMED_STEPS && r->status == SP_OK; ++k) r->status = sp_step_apply(r->sys.step, h, z);
}

/* Seconds per step of the problem in `path`; a negative number when it cannot run. */
static double seconds_per_step(const char *path)
{
    sp_problem pb;
    sp_input_error err;
    if (sp_problem_read_file(path, &pb, &err) != SP_OK) {
        printf("  %s: %s: %s\n", path, err.path, err.message);
        return -1.0;
    }
    timed_run r = {.status = SP_OK};
    double t = -1.0;
    if (sp_nh_system_init(&r.sys, &pb) == SP_OK) {
        t = bench_best_time(steps, &r, REPEATS, MIN_BATCH) / TIMED_STEPS;
        if (r.status != SP_OK) t = -1.0;
    }
    sp_nh_system_release(&r.sys);
    sp_problem_free(&pb);
    return t;
}

void bench_custom_nh(void)
{
    static const char *const models[] = {"knife_edge", "rolling_disk", "chaplygin_sleigh"};
    printf("\nnonholonomic expression models (model custom) against the built-in models: cost per Lobatto step, "
           "%d steps from each file's initial state, best of %d\n",
           TIMED_STEPS, REPEATS);
    printf("%-20s %16s %16s %10s\n", "model", "expressions [us]", "built-in [us]", "ratio");
    for (size_t i = 0; i < sizeof models / sizeof *models; ++i) {
        char custom[128], builtin[128];
        snprintf(custom, sizeof custom, "data/custom/%s.json", models[i]);
        snprintf(builtin, sizeof builtin, "data/%s.json", models[i]);
        const double tc = seconds_per_step(custom), tb = seconds_per_step(builtin);
        if (tc < 0.0 || tb < 0.0) {
            printf("%-20s failed to run\n", models[i]);
            continue;
        }
        printf("%-20s %16.2f %16.2f %10.1f\n", models[i], 1e6 * tc, 1e6 * tb, tc / tb);
    }
    printf("(ratio = expressions over built-in: the price of evaluating the model as expressions)\n");
}
