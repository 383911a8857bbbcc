/* The memory estimate (problems/sp_limits.h) against the peak a run measures, family by
 * family: never more than 10 % under it (a limit must not let a run past it), and at most
 * five times over (a limit must not refuse what fits). Each test runs the command once
 * on a problem large enough for its arrays to dwarf the process's own few MiB, in its
 * own test process, so that the children's peak (getrusage) is this run's. Skipped under
 * the sanitizers and valgrind, whose memory is not the program's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "tests/support.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* The peak of `symplan solve` on data/FILE with its members replaced by `changes`,
 * against the estimate; the baseline is a `check` of the same file (the process before
 * any step). */
static void expect_estimate(const char *file, const char *changes)
{
    if (SANITIZED || (getenv("SP_TEST_VALGRIND") && getenv("SP_TEST_VALGRIND")[0]))
        cr_skip_test("the memory of an instrumented run is not the program's");
    char dir[PATH_SIZE], in[PATH_SIZE], problem[PATH_SIZE], out[PATH_SIZE];
    sp_test_scratch_dir(dir, "estimates", file);
    join(in, SP_TEST_DATA, file);
    cJSON *doc = read_json(in), *edit = cJSON_Parse(changes);
    cr_assert_not_null(edit);
    for (cJSON *c = edit->child; c; c = c->next) {
        cJSON *copy = cJSON_Duplicate(c, 1);
        if (cJSON_GetObjectItemCaseSensitive(doc, c->string))
            cJSON_ReplaceItemInObjectCaseSensitive(doc, c->string, copy);
        else
            cJSON_AddItemToObject(doc, c->string, copy);
    }
    join(problem, dir, "problem.json");
    join(out, dir, "result.json");
    write_json(problem, doc);
    char *text = cJSON_PrintUnformatted(doc);
    sp_problem pb;
    sp_input_error e;
    cr_assert_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_OK, "%s: %s: %s", file, e.path, e.message);
    const double estimate = sp_problem_memory_estimate(&pb);
    sp_problem_free(&pb);
    run_result r;
    run(dir, (const char *[]){"check", problem, NULL}, &r);
    cr_assert_eq(r.status, 0, "%s: check: %s", file, r.err);
    run_free(&r);
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    run(dir, (const char *[]){"solve", problem, "-o", out, NULL}, &r);
    getrusage(RUSAGE_CHILDREN, &after);
    cr_assert(r.status == 0 || r.status == 3, "%s: solve exit %d: %s", file, r.status, r.err);
    run_free(&r);
    const double peak = 1024.0 * (double)(after.ru_maxrss - before.ru_maxrss); /* beyond the check's */
    cr_assert_gt(peak, 16.0 * 1024 * 1024, "%s: a peak of %.0f bytes above the check's is too small to judge", file,
                 peak);
    cr_expect_geq(estimate, 0.9 * peak, "%s: estimate %.0f MB, measured %.0f MB", file, estimate / 1048576,
                  peak / 1048576);
    cr_expect_leq(estimate, 5.0 * peak, "%s: estimate %.0f MB, measured %.0f MB", file, estimate / 1048576,
                  peak / 1048576);
    cr_log_info("%s: estimate %.0f MB, measured %.0f MB", file, estimate / 1048576, peak / 1048576);
    free(text);
    cJSON_Delete(edit), cJSON_Delete(doc);
    remove_tree(dir);
}

Test(estimates, cubic_simulation) { expect_estimate("sphere_simulate.json", "{\"steps\": 100000}"); }

/* one step per block: the blocks' states, Jacobians and band dominate */
Test(estimates, keyframe_plan_of_one_step_blocks)
{
    expect_estimate("keyframes_exact.json", "{\"steps\": 4000, \"block_steps\": 1}");
}

Test(estimates, pose_plan_of_one_step_blocks)
{
    expect_estimate("keyframes_pose.json", "{\"steps\": 3000, \"block_steps\": 1}");
}

Test(estimates, vakonomic_simulation) { expect_estimate("heisenberg.json", "{\"steps\": 100000}"); }

Test(estimates, holonomic_simulation) { expect_estimate("spherical_pendulum.json", "{\"steps\": 100000, \"record_every\": 1}"); }

Test(estimates, nonholonomic_simulation) { expect_estimate("knife_edge.json", "{\"steps\": 100000}"); }

Test(estimates, nonholonomic_simulation_on_a_group) { expect_estimate("suslov.json", "{\"steps\": 40000, \"record_every\": 1}"); }

Test(estimates, holonomic_simulation_on_a_group) { expect_estimate("heavy_top_lie.json", "{\"steps\": 50000, \"record_every\": 1}"); }
