/* make bench, part curve: the planner's continuous curve against scipy's RotationSpline.
 *
 * Plans without "steps" (the order-8 scheme on a grid the planner chooses for its default
 * accuracy, 1e-6 rad), σ = 0 and natural ends ("xi0": "free"), through random walks of
 * kf_random_schedule (tests/keyframe_reference.h: one keyframe per unit time, 0.7 rad
 * apart) of 10, 50, 200 and 1000 keyframes and through a camera path built here (30
 * keyframes at uneven times, mostly small pans and tilts, three whip pans of 2.5 rad).
 *
 * For each: RotationSpline's construction time (bench/rotation_spline_bench.py under
 * /usr/bin/python3, the minimum over repeated runs; run first, before anything here is
 * timed) and its energy ½∫|ω̇|² (tests/rotation_spline_cost.py's per-interval quad); our
 * solve time (the result's timing.solve_seconds, the minimum over a few in-process runs);
 * our energy from the result's samples (output.sample_times at 8 Gauss–Legendre points per
 * interval, ½|ω̇|² summed with the Gauss weights) and the solver's running_cost; the
 * relative difference of our energy to RotationSpline's; and the resolution the planner
 * chose (error estimate, steps). Prints; asserts nothing. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/cubic/sp_plan.h"
#include "tests/keyframe_reference.h"
#include "bench/bench.h"

#define SCHEDULE_NUMBER 20240601UL /* the random walks (the keyframes part uses the same) */
#define CAMERA_NUMBER 7UL          /* the camera path's generator */
#define STEP_ANGLE 0.7
#define SPLINE_SCRIPT "bench/rotation_spline_bench.py"
#define RUNS_MIN 2    /* solves of each schedule: at least this many … */
#define RUNS_MAX 7    /* … at most this many … */
#define RUNS_BUDGET 3.0 /* … and more than RUNS_MIN only while they stay under this (s) */

/* 8-point Gauss–Legendre rule on [−1, 1]. */
#define GAUSS 8
static const double gauss_x[GAUSS] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290,
                                      -0.1834346424956498, 0.1834346424956498,  0.5255324099163290,
                                      0.7966664774136267,  0.9602898564975363};
static const double gauss_w[GAUSS] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873,
                                      0.3626837833783620, 0.3626837833783620, 0.3137066458778873,
                                      0.2223810344533745, 0.1012285362903763};

static const int walk_sizes[] = {10, 50, 200, 1000};
#define N_WALKS ((int)(sizeof walk_sizes / sizeof walk_sizes[0]))
#define N_ROWS (N_WALKS + 1) /* the walks, then the camera path */

/* ------------------------------------------------------------ the camera path -- */

/* splitmix64 (the camera path's own: the reference's generator is private to it). */
static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double signed01(uint64_t *state) { return 2.0 * uniform01(state) - 1.0; }

/* R = exp(ŵ) by Rodrigues' formula, row-major. */
static void rotation_exp(const double *w, double *R)
{
    const double a = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double s = a > 0 ? sin(a) / a : 1.0, c = a > 0 ? (1.0 - cos(a)) / (a * a) : 0.5;
    const double W[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double W2 = 0.0;
            for (int k = 0; k < 3; ++k) W2 += W[3 * i + k] * W[3 * k + j];
            R[3 * i + j] = (i == j) + s * W[3 * i + j] + c * W2;
        }
}

/* A camera path of 30 keyframes, all of it from one fixed generator: each keyframe turns
 * the camera in its own frame (R_i = R_{i−1} exp(θ u)) by 0.08–0.4 rad, about an axis
 * mostly along the pan axis z, partly the tilt axis y, a little roll, 0.4–2.5 s after the
 * previous one; keyframes 8, 17 and 25 are whip pans of 2.5 rad (pan axis with a little
 * tilt) 1.2 s after theirs. Starts at rest orientation g0 = I at t = 0; σ = 0, natural
 * ends. out->t is NULL when out of memory. */
#define CAMERA_KEYFRAMES 30
static void camera_schedule(kf_schedule *out)
{
    memset(out, 0, sizeof *out);
    const int n = CAMERA_KEYFRAMES;
    out->t = malloc((size_t)n * sizeof *out->t);
    out->R = malloc((size_t)n * 9 * sizeof *out->R);
    if (!out->t || !out->R) {
        kf_schedule_free(out);
        return;
    }
    out->n = n;
    out->g0[0] = out->g0[4] = out->g0[8] = 1.0;
    out->theta = 0.5;
    out->xi0_free = 1;
    uint64_t state = CAMERA_NUMBER;
    double t = 0.0, prev[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < n; ++i) {
        const int whip = i == 7 || i == 16 || i == 24;
        double u[3], angle, dt;
        if (whip) {
            u[0] = 0.05 * signed01(&state), u[1] = 0.2 * signed01(&state), u[2] = uniform01(&state) < 0.5 ? -1 : 1;
            angle = 2.5, dt = 1.2;
        } else {
            u[0] = 0.15 * signed01(&state), u[1] = 0.6 * signed01(&state), u[2] = signed01(&state);
            angle = 0.08 + 0.32 * uniform01(&state), dt = 0.4 + 2.1 * uniform01(&state);
        }
        const double norm = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        double w[3], E[9];
        for (int k = 0; k < 3; ++k) w[k] = angle * u[k] / norm;
        rotation_exp(w, E);
        double *R = out->R + 9 * i;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                R[3 * r + c] = prev[3 * r] * E[c] + prev[3 * r + 1] * E[3 + c] + prev[3 * r + 2] * E[6 + c];
        memcpy(prev, R, sizeof prev);
        t += dt;
        out->t[i] = round(t * 100.0) / 100.0; /* keyframe times on a 10 ms clock */
    }
    out->T = out->t[n - 1];
    out->steps = n; /* removed from the problem text: the planner chooses */
}

/* ------------------------------------------------------------ problem texts -- */

/* The schedule as a problem without "steps" and "scheme", asking for samples at the 8
 * Gauss–Legendre points of every interval [t_{i−1}, t_i] (t_0 = 0). malloc'd; NULL when
 * out of memory. */
static char *problem_text(const kf_schedule *s)
{
    char *base = kf_schedule_json(s);
    if (!base) return NULL;
    cJSON *doc = cJSON_Parse(base);
    free(base);
    if (!doc) return NULL;
    cJSON_DeleteItemFromObject(doc, "steps");
    cJSON_DeleteItemFromObject(doc, "scheme");
    cJSON *output = cJSON_AddObjectToObject(doc, "output");
    cJSON *times = cJSON_AddArrayToObject(output, "sample_times");
    double a = 0.0;
    for (int i = 0; i < s->n; ++i) {
        const double b = s->t[i];
        for (int q = 0; q < GAUSS; ++q)
            cJSON_AddItemToArray(times, cJSON_CreateNumber(0.5 * (a + b) + 0.5 * (b - a) * gauss_x[q]));
        a = b;
    }
    return bench_json_text(doc);
}

/* ------------------------------------------------------------ RotationSpline -- */

typedef struct schedule_list {
    const kf_schedule *s;
    int count;
} schedule_list;

/* The script's input: every schedule's rotations. */
static void write_schedules(FILE *f, const void *ctx)
{
    const schedule_list *l = ctx;
    fprintf(f, "{\"schedules\": [");
    for (int q = 0; q < l->count; ++q) {
        if (q) fprintf(f, ", ");
        kf_schedule_write_rotations(f, &l->s[q]);
    }
    fprintf(f, "]}\n");
}

/* RotationSpline's construction seconds and energy for every schedule (NaN where python3,
 * scipy or the script is not available); 0 when the script answered for all. */
static int rotation_spline(const kf_schedule *s, int count, double *seconds, double *energy)
{
    for (int q = 0; q < count; ++q) seconds[q] = energy[q] = NAN;
    const schedule_list list = {s, count};
    double read[2 * N_ROWS];
    const int n = count <= N_ROWS ? bench_python_numbers(SPLINE_SCRIPT, write_schedules, &list, read, 2 * count) : -1;
    for (int q = 0; q < n / 2; ++q) seconds[q] = read[2 * q], energy[q] = read[2 * q + 1];
    return n == 2 * count ? 0 : -1;
}

/* ------------------------------------------------------------ our solves -- */

typedef struct curve_row {
    int ok;
    char status[32];
    double seconds;      /* timing.solve_seconds, the minimum over the runs */
    double energy;       /* ½∫|ω̇|² from the samples */
    double running_cost; /* the solver's */
    double estimate;     /* resolution.error_estimate (NaN when not reported) */
    int steps, runs;
} curve_row;

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ½∫|ω̇|² from omega_dot at the Gauss points of every interval; NaN when the samples are
 * not all there. */
static double sample_energy(const cJSON *res, const kf_schedule *s)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(res, "samples");
    const cJSON *wd = cJSON_GetObjectItemCaseSensitive(samples, "omega_dot");
    if (!cJSON_IsArray(wd) || cJSON_GetArraySize(wd) != GAUSS * s->n) return NAN;
    double energy = 0.0, a = 0.0;
    const cJSON *row = wd->child;
    for (int i = 0; i < s->n; ++i) {
        const double b = s->t[i];
        double interval = 0.0;
        for (int q = 0; q < GAUSS; ++q, row = row->next) {
            double sq = 0.0;
            int k = 0;
            for (const cJSON *x = row->child; x; x = x->next, ++k) sq += x->valuedouble * x->valuedouble;
            if (k != 3) return NAN;
            interval += gauss_w[q] * 0.5 * sq;
        }
        energy += 0.5 * (b - a) * interval;
        a = b;
    }
    return energy;
}

static curve_row solve(const kf_schedule *s)
{
    curve_row row = {0};
    snprintf(row.status, sizeof row.status, "not run");
    row.seconds = row.energy = row.running_cost = row.estimate = NAN;
    char *text = s->t ? problem_text(s) : NULL;
    sp_problem pb;
    sp_input_error e;
    if (!text || sp_problem_parse(text, strlen(text), &pb, &e) != SP_OK) {
        if (text) fprintf(stderr, "curve bench: problem rejected at '%s': %s\n", e.path, e.message);
        free(text);
        return row;
    }
    double best = INFINITY, spent = 0.0;
    for (int r = 0; r < RUNS_MAX; ++r) {
        const double t0 = bench_clock();
        sp_plan_result res;
        sp_plan *plan = bench_plan_solved(&pb, &res);
        if (!plan) break;
        cJSON *json = sp_plan_result_json(plan, &res);
        sp_plan_free(plan);
        spent += bench_clock() - t0;
        if (!json) break;
        const double dt = number(cJSON_GetObjectItemCaseSensitive(json, "timing"), "solve_seconds");
        if (isfinite(dt)) best = fmin(best, dt);
        row.runs = r + 1;
        const int last = r + 1 >= RUNS_MIN && (spent * (r + 2) / (r + 1) > RUNS_BUDGET || r == RUNS_MAX - 1);
        if (last) {
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(json, "status");
            snprintf(row.status, sizeof row.status, "%s", cJSON_IsString(st) ? st->valuestring : "?");
            row.running_cost = number(json, "running_cost");
            row.energy = sample_energy(json, s);
            const cJSON *resolution = cJSON_GetObjectItemCaseSensitive(json, "resolution");
            row.estimate = number(resolution, "error_estimate");
            const double steps = number(resolution, "steps");
            row.steps = isfinite(steps) ? (int)steps : -1;
            row.ok = 1;
        }
        cJSON_Delete(json);
        if (last) break;
    }
    row.seconds = best;
    sp_problem_free(&pb);
    free(text);
    return row;
}

/* ------------------------------------------------------------ the part -- */

void bench_curve(void)
{
    const double t_part = bench_clock();
    printf("\ncurve: plans without steps (hohp_rkmk8 on a grid chosen for accuracy 1e-6 rad), sigma = 0, natural "
           "ends, against scipy's RotationSpline\n");
    printf("  walks: kf_random_schedule, one keyframe per unit time, %.1f rad apart; camera: %d keyframes at uneven "
           "times, small pans and tilts, 3 whip pans of 2.5 rad\n",
           STEP_ANGLE, CAMERA_KEYFRAMES);
    printf("  RotSpl build: RotationSpline(times, rotations), min over repeated runs; solve: timing.solve_seconds, "
           "min of %d-%d runs;\n",
           RUNS_MIN, RUNS_MAX);
    printf("  energy: 1/2 int |dw/dt|^2 from samples at %d Gauss-Legendre points per interval; running: the solver's "
           "running_cost;\n",
           GAUSS);
    printf("  vs RotSpl: energy / RotationSpline's (per-interval quad) - 1, negative = ours lower\n");

    kf_schedule s[N_ROWS];
    for (int q = 0; q < N_WALKS; ++q) {
        kf_random_schedule(SCHEDULE_NUMBER, 0, walk_sizes[q], STEP_ANGLE, 1, 0.0, &s[q]);
        s[q].xi0_free = 1;
        s[q].has_xiT = 0;
    }
    camera_schedule(&s[N_WALKS]);
    int built = 1;
    for (int q = 0; q < N_ROWS; ++q) built &= s[q].t != NULL;

    /* RotationSpline first, alone: nothing else runs while it is timed, nor it while we are */
    double spline_seconds[N_ROWS], spline_energy[N_ROWS];
    const int spline_ok = built && rotation_spline(s, N_ROWS, spline_seconds, spline_energy) == 0;
    const double t_spline = bench_clock() - t_part;

    printf("\n%-11s %13s %11s %8s %15s %15s %15s %10s %9s %6s  %s\n", "keyframes", "RotSpl build", "solve",
           "ours/RS", "energy", "running", "RotSpl energy", "vs RotSpl", "estimate", "steps", "status");
    for (int q = 0; q < N_ROWS; ++q) {
        char label[32];
        if (q < N_WALKS)
            snprintf(label, sizeof label, "%d", walk_sizes[q]);
        else
            snprintf(label, sizeof label, "%d camera", CAMERA_KEYFRAMES);
        if (!s[q].t) {
            printf("%-11s out of memory\n", label);
            continue;
        }
        const curve_row r = solve(&s[q]);
        char build[32], ratio[32], theirs[32], vs[32], est[32];
        if (isfinite(spline_energy[q]))
            snprintf(theirs, sizeof theirs, "%.10g", spline_energy[q]);
        else
            snprintf(theirs, sizeof theirs, "n/a");
        if (isfinite(spline_seconds[q])) {
            snprintf(build, sizeof build, "%.2f ms", 1e3 * spline_seconds[q]);
            snprintf(ratio, sizeof ratio, "%.2f", r.seconds / spline_seconds[q]);
        } else {
            snprintf(build, sizeof build, "n/a");
            snprintf(ratio, sizeof ratio, "n/a");
        }
        if (isfinite(spline_energy[q]) && spline_energy[q] > 0 && isfinite(r.energy))
            snprintf(vs, sizeof vs, "%+.3f%%", 100.0 * (r.energy / spline_energy[q] - 1.0));
        else
            snprintf(vs, sizeof vs, "n/a");
        if (isfinite(r.estimate))
            snprintf(est, sizeof est, "%.1e", r.estimate);
        else
            snprintf(est, sizeof est, "-");
        printf("%-11s %13s %8.2f ms %8s %15.10g %15.10g %15s %10s %9s %6d  %s\n", label, build, 1e3 * r.seconds,
               ratio, r.energy, r.running_cost, theirs, vs, est, r.steps, r.status);
    }
    if (!spline_ok)
        printf("  (RotationSpline n/a: %s with scipy, or %s, is not available)\n", BENCH_PYTHON, SPLINE_SCRIPT);
    for (int q = 0; q < N_ROWS; ++q) kf_schedule_free(&s[q]);
    printf("  (curve part: %.1f s, of which RotationSpline %.1f s)\n", bench_clock() - t_part, t_spline);
}
