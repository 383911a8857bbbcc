/* make bench, part scenes: random parking scenes of our own (tests/car_scenes.h:
 * parallel, perpendicular and angled slots, and slots among clutter, in turn), planned
 * with the default settings: per scene its kind, the slot's play, the path length, gear
 * changes, least swept clearance, KKT residual, status, the processor time of the route
 * and of the smoothing and the nodes of the route search, with the failed stage or the
 * budget used up; then per kind the converged, planned (a path, not converged) and failed
 * counts and the median and largest processor time. `build/symplan-bench scenes [N]
 * [seed]` (60 scenes, seed 1 unless given); with SYMPLAN_SCENES_DIR set, every scene's
 * problem file is written there as <kind>-<seed>.json for `build/symplan solve`. No
 * verdicts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "planner/sp_solve.h"
#include "tests/car_scenes.h"

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void write_scene(const char *dir, const char *name, const cJSON *doc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    char *text = cJSON_Print(doc);
    FILE *f = text ? fopen(path, "w") : NULL;
    if (f) {
        fputs(text, f);
        fputc('\n', f);
        fclose(f);
    } else {
        fprintf(stderr, "scenes: cannot write %s\n", path);
    }
    cJSON_free(text);
}

/* What went wrong, in a few words: the stage that failed and why, or the budget used up. */
static void note_of(const cJSON *r, const char *status, char *out, size_t size)
{
    const char *stage = cJSON_GetStringValue(cJSON_GetObjectItem(r, "failed_stage"));
    const char *budget = cJSON_GetStringValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "work"), "smooth"), "budget_used_up"));
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItem(r, "message"));
    if (!strcmp(status, "converged")) *out = '\0';
    else if (stage) snprintf(out, size, "%.90s", message ? message : stage);
    else if (budget) snprintf(out, size, "budget %s", budget);
    else snprintf(out, size, "%.80s", message ? message : "");
}

void bench_scenes(int n, unsigned long seed)
{
    const char *dir = getenv("SYMPLAN_SCENES_DIR");
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "scenes: cannot make %s\n", dir);
        dir = NULL;
    }
    printf("symplan bench: %d random parking scenes (tests/car_scenes.c), seed %lu, model car%s%s\n\n", n, seed,
           dir ? ", files in " : "", dir ? dir : "");
    printf("%6s %-22s %6s %4s %3s %5s %8s %5s %9s %8s %7s %6s %9s %10s  %-18s %s\n", "seed", "kind", "play", "in", "rev", "far",
           "length", "gears", "clearance", "KKT", "nodes", "escape", "route cpu", "smooth cpu", "status", "note");
    double *cpu[CAR_SCENE_KINDS];
    int count[CAR_SCENE_KINDS] = {0}, converged[CAR_SCENE_KINDS] = {0}, planned[CAR_SCENE_KINDS] = {0};
    for (int k = 0; k < CAR_SCENE_KINDS; ++k) cpu[k] = calloc((size_t)n + 1, sizeof *cpu[k]);
    for (int i = 0; i < n; ++i) {
        const unsigned long s = seed * 100000ul + (unsigned long)i;
        const car_scene_kind kind = (car_scene_kind)(i % CAR_SCENE_KINDS);
        car_scene_info info;
        cJSON *doc = car_scene_draw(s, kind, 0, &info);
        char name[64], label[40];
        snprintf(name, sizeof name, "%s-%lu", car_scene_kind_name(kind), s);
        if (dir) write_scene(dir, name, doc);
        char *text = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        sp_problem pb;
        sp_input_error err;
        if (!text || sp_problem_parse(text, strlen(text), &pb, &err) != SP_OK) {
            printf("%6lu %-22s refused: %s: %s\n", s, car_scene_kind_name(kind), err.path, err.message);
            cJSON_free(text);
            continue;
        }
        cJSON_free(text);
        cJSON *r = sp_solve_json(&pb, NULL);
        sp_problem_free(&pb);
        const char *status = r ? cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")) : NULL;
        if (!status) status = "?";
        const cJSON *work = cJSON_GetObjectItem(r, "work"), *timing = cJSON_GetObjectItem(r, "timing");
        const cJSON *route = cJSON_GetObjectItem(work, "route");
        const double rc = member(timing, "route_cpu_seconds"), sc = member(timing, "smooth_cpu_seconds");
        cpu[kind][count[kind]++] = (isnan(rc) ? 0.0 : rc) + (isnan(sc) ? 0.0 : sc);
        converged[kind] += !strcmp(status, "converged");
        planned[kind] += cJSON_GetObjectItem(r, "length") != NULL;
        char note[120];
        note_of(r, status, note, sizeof note);
        snprintf(label, sizeof label, "%s%s%s%s", car_scene_kind_name(kind),
                 kind == CAR_SCENE_CLUTTER ? "/" : "", kind == CAR_SCENE_CLUTTER ? car_scene_kind_name(info.slot) : "",
                 info.angle > 0 && info.angle < 90 ? (info.angle < 50 ? " 45" : info.angle < 70 ? " 60" : " 75") : "");
        printf("%6lu %-22s %6.2f %4s %3s %5.0e %8.2f %5.0f %9.3f %8.1e %7.0f %6.0f %9.3f %10.3f  %-18s %s\n", s, label, info.play,
               info.slot == CAR_SCENE_PARALLEL ? "-" : info.facing_out ? "out" : "in", info.reverse_job ? "yes" : "no", info.distance,
               member(r, "length"), member(r, "gear_changes"), member(r, "min_clearance"),
               member(r, "optimality_residual"), member(route, "expanded_nodes"), member(route, "escape_nodes"), rc,
               sc, status, note);
        fflush(stdout);
        cJSON_Delete(r);
    }
    printf("\n%-14s %6s %9s %7s %6s %12s %12s\n", "kind", "scenes", "converged", "planned", "failed", "median cpu s",
           "largest cpu s");
    for (int k = 0; k < CAR_SCENE_KINDS; ++k) {
        const int m = count[k];
        if (m == 0) continue;
        qsort(cpu[k], (size_t)m, sizeof *cpu[k], by_value);
        printf("%-14s %6d %9d %7d %6d %12.3f %12.3f\n", car_scene_kind_name(k), m, converged[k],
               planned[k] - converged[k], m - planned[k], m % 2 ? cpu[k][m / 2] : 0.5 * (cpu[k][m / 2 - 1] + cpu[k][m / 2]),
               cpu[k][m - 1]);
        free(cpu[k]);
    }
    printf("\n");
}
