/* Timing helpers shared by every part of `make bench`. */
#include <math.h>
#include <time.h>

#include "bench/bench.h"

double bench_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_best_time(void (*f)(void *), void *ctx, int repeats, double min_batch)
{
    double best = INFINITY;
    int reps = 1;
    for (int batch = 0; batch < repeats; ++batch) {
        const double t0 = bench_clock();
        for (int r = 0; r < reps; ++r) f(ctx);
        const double dt = bench_clock() - t0;
        if (dt < min_batch && reps < (1 << 20)) {
            reps *= 2, --batch; /* too short to time: retry larger */
            continue;
        }
        best = fmin(best, dt / reps);
    }
    return best;
}

double bench_max_abs_diff(int n, const double *a, const double *b)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}
