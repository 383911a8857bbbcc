/* The "timing" block of plans (keyframes and vakonomic endpoints) adds up: its parts (start, plain sweeps, derivative
 * sweeps, linear algebra, NLopt's own work, the curve, other) are never negative and sum to
 * solve_seconds, "other" (what no part holds) is a small share, and the part a method
 * spends its time in is the one that shows it: the sweeps for Newton's methods, NLopt's own
 * work for a direct-form L-BFGS run. Shares of one run, not wall-clock limits; problems of
 * tens of milliseconds, so that the parts are measured above the clock's grain. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "tests/keyframe_reference.h"
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

/* Solves `doc` and checks the sum; returns the timing block's shares of the solve in share[]. */
static void check_timing(const char *what, const char *doc, int large, double *share)
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
    if (large) /* above a few milliseconds, where the clock's grain and one page fault do not count */
        cr_expect_lt(share[N_PARTS - 1], 0.25, "%s: %.0f %% of the solve is in no part", what, 100 * share[N_PARTS - 1]);
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(timing, "plain_sweeps")), "%s: no sweep count", what);
    cJSON_Delete(res);
    sp_problem_free(&pb);
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
    double share[N_PARTS];
    /* the exact solver of order 8 on 400 keyframes: sweeps first */
    kf_schedule s;
    kf_random_schedule(17UL, 0, 400, 0.7, 1, 0.0, &s);
    s.xi0_free = 1;
    char *text = kf_schedule_json(&s);
    kf_schedule_free(&s);
    cJSON *root = cJSON_Parse(text);
    cJSON_DeleteItemFromObject(root, "steps");
    cJSON_DeleteItemFromObject(root, "scheme");
    char *exact = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(text);
    check_timing("exact plan", exact, 1, share);
    cr_expect_gt(share[1] + share[2], 0.5, "exact plan: sweeps are %.0f %%", 100 * (share[1] + share[2]));
    free(exact);
    /* the θ-scheme with a step count and weighted keyframes: Newton on the general system */
    char *theta = data_doc("keyframes_so3.json", "{}");
    check_timing("theta-scheme plan", theta, 1, share);
    cr_expect_gt(share[1] + share[2], 0.5, "theta-scheme plan: sweeps are %.0f %%", 100 * (share[1] + share[2]));
    free(theta);
    /* NLopt's L-BFGS on the direct form: its own work shows as the optimiser's */
    char *direct = data_doc("sphere_interpolation.json",
                            "{\"method\": \"direct\", \"optimizer\": {\"algorithm\": \"LD_LBFGS\", \"maxeval\": 500}}");
    check_timing("direct form", direct, 1, share);
    cr_expect_gt(share[4] + share[2], 0.5, "direct form: optimiser and gradients are %.0f %%", 100 * (share[4] + share[2]));
    free(direct);
    /* a vakonomic endpoint plan: NLopt over the initial momenta, its sweeps carrying the
     * Jacobian of the end point */
    char *parking = data_doc("parallel_parking.json", "{}");
    check_timing("endpoint plan", parking, 1, share);
    cr_expect_gt(share[1] + share[2], 0.5, "endpoint plan: sweeps are %.0f %%", 100 * (share[1] + share[2]));
    free(parking);
    /* single shooting and the round sphere (a millisecond each): the sum holds */
    char *single = data_doc("sphere_interpolation.json", "{\"method\": \"single_shooting\"}");
    check_timing("single shooting", single, 0, share);
    free(single);
    char *round = data_doc("sphere_round.json", "{}");
    check_timing("round sphere", round, 0, share);
    free(round);
}
