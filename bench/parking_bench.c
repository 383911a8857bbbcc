/* make bench, part parking: the 20 TPCAP cases (data/tpcap/, B. Li et al., Trajectory
 * Planning Competition for Automated Parking) through `import tpcap` and the car's plan:
 * per case the path length, gear changes, least swept clearance, goal error, largest
 * steering rate, energy (the route's and the result's), KKT residual of the smoothing,
 * the times of the route search, of the smoothing and in all, the processor time of
 * both stages (what the budgets count; the wall time grows with the machine's load), and
 * the status, then the median and largest time and the processor time in all. Run from
 * the top folder
 * (build/symplan-bench parking). No verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/tpcap_case.h"
#include "planner/sp_clock.h"
#include "planner/sp_solve.h"

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_parking(void)
{
    printf("symplan bench: TPCAP parking cases (data/tpcap), model car\n\n");
    printf("%-6s %9s %6s %10s %10s %8s %8s %8s %9s %8s %8s %9s %8s  %s\n", "case", "length", "gears", "clearance",
           "goal err", "max rate", "E route", "E", "KKT res", "route s", "smooth s", "time [s]", "cpu [s]", "status");
    double times[20], cpus[20], cpu_total = 0.0;
    int n = 0;
    for (int k = 1; k <= 20; ++k) {
        sp_problem pb;
        if (bench_tpcap_read(k, &pb) != 0) continue;
        const double t0 = sp_clock_seconds();
        cJSON *r = sp_solve_json(&pb, NULL);
        const double t = sp_clock_seconds() - t0;
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
        const cJSON *L = cJSON_GetObjectItem(r, "length"), *g = cJSON_GetObjectItem(r, "gear_changes"),
                    *c = cJSON_GetObjectItem(r, "min_clearance"), *e = cJSON_GetObjectItem(r, "goal_error");
        const cJSON *work = cJSON_GetObjectItem(r, "work"), *timing = cJSON_GetObjectItem(r, "timing");
        const cJSON *sw = cJSON_GetObjectItem(work, "smooth"), *res = cJSON_GetObjectItem(r, "optimality_residual");
        const cJSON *rs = cJSON_GetObjectItem(timing, "route_seconds"), *ss = cJSON_GetObjectItem(timing, "smooth_seconds");
        const cJSON *er = cJSON_GetObjectItem(sw, "route_energy"), *en = cJSON_GetObjectItem(r, "energy");
        const cJSON *rate = cJSON_GetObjectItem(r, "largest_steering_rate");
        const cJSON *rc = cJSON_GetObjectItem(timing, "route_cpu_seconds"), *sc = cJSON_GetObjectItem(timing, "smooth_cpu_seconds");
        const double cpu = (rc ? rc->valuedouble : 0.0) + (sc ? sc->valuedouble : 0.0);
        cpu_total += cpu;
        cpus[n] = cpu, times[n++] = t;
        if (L)
            printf("%-6d %9.2f %6d %10.3f %10.1e %8.3f %8.2f %8.2f %9.1e %8.3f %8.3f %9.3f %8.3f  %s\n", k, L->valuedouble,
                   g->valueint, c->valuedouble, e->valuedouble, rate ? rate->valuedouble : NAN,
                   er ? er->valuedouble : NAN, en ? en->valuedouble : NAN, res ? res->valuedouble : NAN,
                   rs ? rs->valuedouble : NAN, ss ? ss->valuedouble : NAN, t, cpu, status);
        else
            printf("%-6d %9s %6s %10s %10s %9.3f %8.3f  %s\n", k, "-", "-", "-", "-", t, cpu, status ? status : "?");
        fflush(stdout);
        cJSON_Delete(r);
        sp_problem_free(&pb);
    }
    if (n > 0) {
        qsort(times, (size_t)n, sizeof times[0], by_value);
        qsort(cpus, (size_t)n, sizeof cpus[0], by_value);
        printf("\nmedian time %.3f s, largest %.3f s; processor time median %.3f s, largest %.3f s, %.2f s in all\n\n",
               n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]), times[n - 1],
               n % 2 ? cpus[n / 2] : 0.5 * (cpus[n / 2 - 1] + cpus[n / 2]), cpus[n - 1], cpu_total);
    }
}
