/* `make tsan`: the check of the threads suite (tests/threads_scenarios.h) as a program of
 * its own, for ThreadSanitizer. Criterion's runner cannot run under it (its shared-memory
 * arena for the test workers fails to map), and the check needs nothing of Criterion.
 * Exits 0 when every result equals its sequential reference, 1 otherwise; a
 * ThreadSanitizer report ends it with TSAN_OPTIONS's exit code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/car_threads.h"
#include "tests/threads_scenarios.h"

int main(void)
{
    char dir[4096], why[2048] = "";
    snprintf(dir, sizeof dir, "%s/threads-tsan-XXXXXX", SP_TEST_TMP);
    if ((mkdir(SP_TEST_TMP, 0755) != 0 && errno != EEXIST) || !mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int failures = threads_check(SP_TEST_DATA, dir, THREADS_COUNT, THREADS_ROUNDS, why, sizeof why);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rmdir(dir); /* threads_check leaves it empty */
    printf("threads: %zu problems, %d threads, %d rounds: %d failures in %.1f s\n", threads_scenario_count,
           THREADS_COUNT, THREADS_ROUNDS, failures, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    if (failures) fprintf(stderr, "threads: the first failure: %s\n", why);
    /* the car's evaluations shared among threads within one solve */
    const int car = car_threads_check(SP_TEST_DATA, 4, why, sizeof why);
    printf("threads: the car's evaluations by 1 and by 4 threads: %d differ\n", car);
    if (car) fprintf(stderr, "threads: %s\n", why);
    return failures || car ? 1 : 0;
}
