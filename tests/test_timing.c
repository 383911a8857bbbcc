/* The "timing" block of plans (keyframes and vakonomic endpoints) and of simulations (every
 * family, step selection included) adds up: its parts (start, plain sweeps, derivative
 * sweeps, linear algebra, NLopt's own work, the curve or the result built from the rows,
 * other) are never negative and sum to solve_seconds, "other" (what no part holds) is a
 * small share, and the part a method spends its time in is the one that shows it: the
 * sweeps for Newton's methods, NLopt's own work for a direct-form L-BFGS run, the stepping
 * for a simulation. Every member of the block is described in the result schema. Shares of
 * one run (measured again, up to three runs, when another process visibly took its time),
 * not wall-clock limits; problems of tens of milliseconds, so that the parts are measured
 * above the clock's grain. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "tests/keyframe_reference.h"
#include "tests/plan_support.h"
#include "tests/support.h"

static const char *const parts[] = {"start_seconds",          "plain_sweep_seconds", "derivative_sweep_seconds",
                                    "linear_algebra_seconds", "optimizer_seconds",   "output_seconds",
                                    "other_seconds"};
#define N_PARTS (sizeof parts / sizeof parts[0])

static double part(const cJSON *timing, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(timing, name);
    cr_assert(cJSON_IsNumber(v), "timing has no %s", name);
    return v->valuedouble;
}

/* The members the result schema describes in its timing block (by name, not by pattern). */
static cJSON *schema_timing_names(void)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, "../schema/result.schema.json");
    cJSON *schema = read_json(path);
    const cJSON *timing = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "timing");
    cJSON *names = cJSON_Duplicate(cJSON_GetObjectItem(timing, "properties"), 1);
    cJSON_Delete(schema);
    cr_assert(cJSON_IsObject(names), "the result schema names no member of timing");
    return names;
}

/* Solves `doc` once and checks the sum; returns the timing block's shares of the solve in
 * share[] and the number of plain sweeps (runs, for a simulation). */
static double timed_solve(const char *what, const char *doc, double *share)
{
    sp_problem pb;
    sp_input_error e;
    cr_assert_eq(sp_problem_parse(doc, strlen(doc), &pb, &e), SP_OK, "%s: %s: %s", what, e.path, e.message);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    const cJSON *timing = cJSON_GetObjectItem(res, "timing");
    const double solve = part(timing, "solve_seconds");
    cr_assert_gt(solve, 0.0, "%s: no solve time", what);
    double sum = 0.0;
    for (size_t k = 0; k < N_PARTS; ++k) {
        const double p = part(timing, parts[k]);
        cr_expect_geq(p, 0.0, "%s: %s = %g is negative", what, parts[k], p);
        share[k] = p / solve;
        sum += p;
    }
    cr_expect_leq(fabs(sum - solve), 1e-9 * fmax(1.0, solve), "%s: the parts sum to %.9g, the solve took %.9g", what,
                  sum, solve);
    const cJSON *sweeps = cJSON_GetObjectItem(timing, "plain_sweeps");
    cr_expect(cJSON_IsNumber(sweeps), "%s: no sweep count", what);
    const double plain_sweeps = cJSON_IsNumber(sweeps) ? sweeps->valuedouble : -1.0;
    cJSON *described = schema_timing_names();
    for (const cJSON *m = timing->child; m; m = m->next)
        cr_expect(cJSON_HasObjectItem(described, m->string), "%s: timing.%s is not described in the result schema",
                  what, m->string);
    cJSON_Delete(described);
    cJSON_Delete(res);
    sp_problem_free(&pb);
    return plain_sweeps;
}

/* timed_solve, and for a `large` problem (above a few milliseconds, where the clock's grain
 * and one page fault do not count) the check that little of the solve is in no part. The
 * shares are of wall time, which another process on the machine can take at any moment:
 * a run whose shares show such a disturbance (a quarter in no part, or half of it not in
 * parts part_a and part_b, -1 for none) is measured again, up to three runs, and the last
 * is the one checked. The sum is checked on every run. */
static double check_timing(const char *what, const char *doc, int large, int part_a, int part_b, double *share)
{
    double runs = 0.0;
    for (int attempt = 0; attempt < 3; ++attempt) {
        runs = timed_solve(what, doc, share);
        const double held = part_a < 0 ? 1.0 : share[part_a] + (part_b < 0 ? 0.0 : share[part_b]);
        if (!large || (share[N_PARTS - 1] < 0.25 && held > 0.5)) break;
        cr_log_info("%s: %.0f %% in no part, %.0f %% in the method's parts: measured again", what,
                    100 * share[N_PARTS - 1], 100 * held);
    }
    if (large)
        cr_expect_lt(share[N_PARTS - 1], 0.25, "%s: %.0f %% of the solve is in no part", what, 100 * share[N_PARTS - 1]);
    return runs;
}

static char *data_doc(const char *file, const char *changes)
{
    char path[PATH_SIZE];
    join(path, SP_TEST_DATA, file);
    cJSON *doc = read_json(path), *edit = cJSON_Parse(changes);
    for (cJSON *c = edit ? edit->child : NULL; c; c = c->next) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, c->string);
        cJSON_AddItemToObject(doc, c->string, cJSON_Duplicate(c, 1));
    }
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc), cJSON_Delete(edit);
    return text;
}

Test(timing, the_parts_add_up_to_the_solve, .timeout = 300)
{
    /* each plan with the two parts its method spends its time in (-1: too short to tell) */
    static const struct {
        const char *what, *file, *changes;
        int large, part_a, part_b;
        const char *parts_are;
    } plans[] = {
        /* the exact solver of order 8 on 400 keyframes: sweeps first */
        {"exact plan", NULL, NULL, 1, 1, 2, "sweeps"},
        /* the θ-scheme with a step count and weighted keyframes: Newton on the general system */
        {"theta-scheme plan", "keyframes_so3.json", "{}", 1, 1, 2, "sweeps"},
        /* NLopt's L-BFGS on the direct form: its own work shows as the optimiser's */
        {"direct form", "sphere_interpolation.json",
         "{\"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LD_LBFGS\", \"maxeval\": 500}}", 1, 4, 2,
         "optimiser and gradients"},
        /* a vakonomic endpoint plan: NLopt over the initial momenta, its sweeps carrying the
         * Jacobian of the end point */
        {"endpoint plan", "parallel_parking.json", "{}", 1, 1, 2, "sweeps"},
        /* single shooting and the round sphere (a millisecond each): the sum holds */
        {"single shooting", "sphere_interpolation.json", "{\"method\": \"single_shooting\"}", 0, -1, -1, NULL},
        {"round sphere", "sphere_round.json", "{}", 0, -1, -1, NULL},
    };
    double share[N_PARTS];
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; ++i) {
        char *doc = plans[i].file ? data_doc(plans[i].file, plans[i].changes) : default_plan_doc(17UL, 400, NULL);
        check_timing(plans[i].what, doc, plans[i].large, plans[i].part_a, plans[i].part_b, share);
        free(doc);
        if (plans[i].part_a < 0) continue;
        const double held = share[plans[i].part_a] + share[plans[i].part_b];
        cr_expect_gt(held, 0.5, "%s: %s are %.0f %%", plans[i].what, plans[i].parts_are, 100 * held);
    }
}

/* Simulations: the stepping is where the time goes, one run each (a run whose step the
 * tolerance chooses: its trial runs too), nothing in the parts they do not have. */
Test(timing, a_simulation_adds_up, .timeout = 300)
{
    static const struct {
        const char *file, *changes;
        int large;
    } runs[] = {
        {"heavy_top.json", "{\"steps\": 40000, \"record_every\": 10}", 1}, /* holonomic, RATTLE */
        {"spherical_pendulum_strang.json", "{}", 1},                      /* holonomic, a splitting */
        {"planar_pendulum_dop853.json", "{}", 0},                         /* explicit, adaptive */
        {"rolling_disk.json", "{\"steps\": 20000}", 1},                   /* nonholonomic, Lobatto */
        {"sleigh_se2.json", "{\"steps\": 20000}", 1},                     /* nonholonomic on SE(2) */
        {"s3_contact.json", "{}", 1},                                     /* contact on S3 */
        {"contact_oscillator.json", "{}", 1},                             /* contact with a drift */
        {"custom/rolling_disk.json", "{\"steps\": 4000}", 1},             /* an expression model */
        {"parking_fig3.json", "{\"steps\": 4000}", 1},                    /* vakonomic, Gauss-Legendre */
        {"sphere_simulate.json", "{}", 0},                                /* the cubic family's HOHP */
    };
    double share[N_PARTS];
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        char *doc = data_doc(runs[i].file, runs[i].changes);
        const double sweeps = check_timing(runs[i].file, doc, runs[i].large, 1, -1, share);
        free(doc);
        cr_expect_eq(sweeps, 1.0, "%s: %g runs counted, one made", runs[i].file, sweeps);
        for (size_t k = 2; k <= 4; ++k) /* derivative sweeps, linear algebra, optimiser */
            cr_expect_eq(share[k], 0.0, "%s: %s holds %.0f %%", runs[i].file, parts[k], 100 * share[k]);
        if (runs[i].large)
            cr_expect_gt(share[1], 0.5, "%s: the stepping is %.0f %%", runs[i].file, 100 * share[1]);
    }
    /* rows kept at every step: building the result from them is the output */
    char *rows = data_doc("heavy_top.json", "{\"steps\": 40000, \"record_every\": 1}");
    check_timing("heavy top, every row", rows, 1, -1, -1, share);
    free(rows);
    cr_expect_gt(share[5], 0.0, "heavy top, every row: no time in the output");
    /* a step chosen by the error tolerance: the trial runs count as runs and as stepping */
    char *chosen = data_doc("spherical_pendulum_tolerance.json", "{}");
    sp_problem pb;
    sp_input_error e;
    cr_assert_eq(sp_problem_parse(chosen, strlen(chosen), &pb, &e), SP_OK, "%s: %s", e.path, e.message);
    cJSON *res = sp_solve_json(&pb, NULL);
    const int trials = cJSON_GetArraySize(
        cJSON_GetObjectItem(cJSON_GetObjectItem(res, "step_selection"), "trial_runs"));
    cJSON_Delete(res);
    sp_problem_free(&pb);
    cr_assert_gt(trials, 0, "no trial runs");
    const double sweeps = check_timing("step selection", chosen, 1, 1, -1, share);
    free(chosen);
    cr_expect_eq(sweeps, trials + 1.0, "step selection: %g runs counted, %d trial runs and the run made", sweeps,
                 trials);
    cr_expect_gt(share[1], 0.5, "step selection: the stepping is %.0f %%", 100 * share[1]);
}
