/* Two threads can run two problems at once: one small problem of every model family
 * (tests/threads_scenarios.c: cubic-spline plans and simulation, vakonomic simulations
 * and endpoint plans, holonomic schemes, nonholonomic models in coordinates and on Lie
 * groups, and NLopt searches that draw random numbers) is solved first on this thread,
 * then by THREADS_COUNT threads started together, each solving its share THREADS_ROUNDS
 * times over. Every result, printed or written as the command writes it, must equal its
 * sequential reference byte for byte once the wall-clock members are removed. `make tsan`
 * runs the same check under ThreadSanitizer (tests/tsan/threads_main.c). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "tests/support.h"
#include "tests/threads_scenarios.h"

Test(threads, every_family_at_once_prints_what_one_thread_prints, .timeout = 120)
{
    char why[2048] = "", dir[PATH_SIZE];
    sp_test_scratch_dir(dir, "threads", "every_family");
    int failures = threads_check(SP_TEST_DATA, dir, THREADS_COUNT, THREADS_ROUNDS, why, sizeof why);
    cr_expect_eq(failures, 0, "%d failures; the first: %s", failures, why);
    cr_log_info("threads: %zu problems, %d threads, %d rounds: %d failures", threads_scenario_count, THREADS_COUNT,
                THREADS_ROUNDS, failures);
    remove_tree(dir);
}
