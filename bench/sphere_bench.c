/* make bench, part sphere: points on the sphere beside orientations of the same size.
 *
 * Random walks from kf_random_schedule (tests/keyframe_reference.h) of 30, 60 and 100
 * keyframes 0.6 rad apart, a keyframe per unit time, exact (σ = 0), natural ends, default
 * settings (no steps): an orientation plan on SO(3), a sphere plan in the rotation metric
 * (the default) and one in the round metric, and a weighted sphere plan (σ = 0.05, at
 * rest). Each row: status, solve time (best of a few repeats when short), sweeps of the
 * grid, cost, and the time over the orientation plan's. Prints; asserts nothing. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/sp_solve.h"
#include "tests/keyframe_reference.h"
#include "bench/bench.h"

#define REPEAT_BELOW 0.25 /* solves shorter than this (s) are repeated … */
#define REPEAT_MAX 5      /* … up to this many times */

typedef struct figures {
    char status[32];
    double seconds, cost, sweeps;
} figures;

/* The problem text solved (best time of a few repeats when short). */
static figures solve_text(const char *text)
{
    figures f = {.seconds = HUGE_VAL, .cost = NAN};
    snprintf(f.status, sizeof f.status, "refused");
    for (int r = 0; r < REPEAT_MAX; ++r) {
        sp_problem pb;
        sp_input_error e;
        if (sp_problem_parse(text, strlen(text), &pb, &e) != SP_OK) return f;
        const double t0 = sp_clock_seconds();
        cJSON *res = sp_solve_json(&pb, NULL);
        const double dt = sp_clock_seconds() - t0;
        sp_problem_free(&pb);
        if (!res) return f;
        f.seconds = fmin(f.seconds, dt);
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(res, "status"));
        snprintf(f.status, sizeof f.status, "%s", st ? st : "?");
        f.cost = cJSON_GetNumberValue(cJSON_GetObjectItem(res, "cost"));
        f.sweeps = cJSON_GetNumberValue(cJSON_GetObjectItem(res, "sweeps"));
        cJSON_Delete(res);
        if (dt * (r + 1) > REPEAT_BELOW) break;
    }
    return f;
}

/* The schedule as a default-settings problem text: no steps or scheme, free ends unless
 * `rest`, in the space and metric given (metric NULL: the default). */
static char *problem_text(const kf_schedule *s, const char *space, const char *metric, double sigma, int rest)
{
    char *json = kf_schedule_json(s);
    cJSON *d = json ? cJSON_Parse(json) : NULL;
    free(json);
    if (!d) return NULL;
    static const char *const drop[] = {"steps", "scheme", "retraction", "xi0", "xiT", "sigma", "space"};
    for (size_t k = 0; k < sizeof drop / sizeof drop[0]; ++k) cJSON_DeleteItemFromObject(d, drop[k]);
    cJSON_AddStringToObject(d, "space", space);
    if (metric) cJSON_AddStringToObject(d, "metric", metric);
    cJSON_AddNumberToObject(d, "sigma", sigma);
    if (rest) cJSON_AddItemToObject(d, "xi0", cJSON_CreateDoubleArray((const double[]){0, 0, 0}, 3));
    else cJSON_AddStringToObject(d, "xi0", "free");
    char *text = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    return text;
}

static void row(const char *what, int n, const figures *f, double reference)
{
    printf("%-36s %6d %-16s %10.2f %8.0f %16.10g %8.2f\n", what, n, f->status, 1e3 * f->seconds, f->sweeps, f->cost,
           f->seconds / reference);
}

void bench_sphere(void)
{
    printf("\nsphere: points on S^2 beside orientations, random walks 0.6 rad apart, exact, default settings\n");
    printf("%-36s %6s %-16s %10s %8s %16s %8s\n", "plan", "points", "status", "time [ms]", "sweeps", "cost",
           "x orient");
    static const int sizes[] = {30, 60, 100};
    for (int q = 0; q < 3; ++q) {
        kf_schedule rot, pts;
        kf_random_schedule(20261126UL + (unsigned long)q, 0, sizes[q], 0.6, 10, 0.0, &rot);
        kf_random_schedule(20261126UL + (unsigned long)q, 1, sizes[q], 0.6, 10, 0.0, &pts);
        char *texts[5] = {problem_text(&rot, "group", NULL, 0.0, 0), problem_text(&pts, "sphere", NULL, 0.0, 0),
                          problem_text(&pts, "sphere", NULL, 0.0, 1), problem_text(&pts, "sphere", "round", 0.0, 0),
                          problem_text(&pts, "sphere", NULL, 0.05, 1)};
        static const char *const what[5] = {"orientations (SO3), free ends", "sphere, rotation metric, free ends",
                                            "sphere, rotation metric, at rest", "sphere, round metric, free ends",
                                            "sphere, rotation metric, sigma 0.05"};
        double reference = NAN;
        for (int k = 0; k < 5; ++k) {
            figures f = texts[k] ? solve_text(texts[k]) : (figures){.status = "out of memory", .seconds = NAN};
            if (k == 0) reference = f.seconds;
            row(what[k], sizes[q], &f, reference);
            free(texts[k]);
        }
        kf_schedule_free(&rot), kf_schedule_free(&pts);
    }
    printf("(sweeps: of the grid, with or without derivatives; x orient: time over the orientation plan's)\n");
}
