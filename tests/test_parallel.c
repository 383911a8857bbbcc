/* Sweeps on threads (planner/sp_parallel.h):
 *   - sp_parallel_run covers every item exactly once, in contiguous pieces of about equal
 *     cost, one worker each; below the threshold it stays on the calling thread; the status
 *     of the first failing piece in item order comes back;
 *   - a keyframe plan gives the same result, to the last bit, on one thread and on two or
 *     three (SYMPLAN_THREADS): the exact solver of order 8 without a step count (300
 *     keyframes: its finer sweeps are split) and the θ-scheme with a step count (the
 *     general multiple-shooting system, σ > 0). */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_parallel.h"
#include "planner/sp_solve.h"
#include "tests/keyframe_reference.h"
#include "tests/plan_support.h"

#define ITEMS 1000

typedef struct coverage {
    int seen[ITEMS];
    int worker_of[ITEMS];
    int fail_at; /* an item whose piece fails, or −1 */
} coverage;

static sp_status mark(void *ctx, int begin, int end, int worker)
{
    coverage *c = ctx;
    sp_status st = SP_OK;
    for (int i = begin; i < end; ++i) {
        c->seen[i]++, c->worker_of[i] = worker;
        if (i == c->fail_at) st = worker % 2 ? SP_ERR_NONFINITE : SP_ERR_SINGULAR;
    }
    return st;
}

Test(parallel, pieces_cover_every_item_once_in_order)
{
    static int cost[ITEMS];
    for (int i = 0; i < ITEMS; ++i) cost[i] = 1 + (i % 7 == 0 ? 20 : 0);
    for (int workers = 1; workers <= SP_PARALLEL_MAX + 2; ++workers) {
        coverage c = {.fail_at = -1};
        cr_assert_eq(sp_parallel_run(workers, ITEMS, cost, mark, &c), SP_OK);
        int used = 1;
        for (int i = 0; i < ITEMS; ++i) {
            cr_assert_eq(c.seen[i], 1, "workers %d: item %d done %d times", workers, i, c.seen[i]);
            if (i > 0) {
                cr_assert_geq(c.worker_of[i], c.worker_of[i - 1], "pieces are not contiguous");
                used += c.worker_of[i] != c.worker_of[i - 1];
            }
        }
        const int expected = workers < SP_PARALLEL_MAX ? workers : SP_PARALLEL_MAX;
        cr_assert_eq(used, expected, "workers %d: %d pieces", workers, used);
        /* balanced by cost: no piece holds more than its share and the largest item */
        long total = 0, share[SP_PARALLEL_MAX] = {0};
        for (int i = 0; i < ITEMS; ++i) total += cost[i], share[c.worker_of[i]] += cost[i];
        for (int w = 0; w < expected; ++w)
            cr_assert_leq(share[w], total / expected + 21, "worker %d has %ld of %ld", w, share[w], total);
    }
}

Test(parallel, small_work_stays_on_the_calling_thread)
{
    coverage c = {.fail_at = -1};
    cr_assert_eq(sp_parallel_run(4, 10, NULL, mark, &c), SP_OK);
    for (int i = 0; i < 10; ++i) cr_assert_eq(c.worker_of[i], 0);
    cr_assert_eq(sp_parallel_run(4, 0, NULL, mark, &c), SP_OK);
}

Test(parallel, the_first_failure_in_item_order_comes_back)
{
    /* item 900 lies in the last of four pieces (worker 3: SP_ERR_NONFINITE), item 10 in the
     * first (worker 0: SP_ERR_SINGULAR) */
    coverage c = {.fail_at = 900};
    cr_assert_eq(sp_parallel_run(4, ITEMS, NULL, mark, &c), SP_ERR_NONFINITE);
    coverage d = {.fail_at = 10};
    cr_assert_eq(sp_parallel_run(4, ITEMS, NULL, mark, &d), SP_ERR_SINGULAR);
}

Test(parallel, workers_from_the_environment)
{
    setenv("SYMPLAN_THREADS", "3", 1);
    cr_assert_eq(sp_parallel_workers(), 3);
    setenv("SYMPLAN_THREADS", "1000", 1);
    cr_assert_eq(sp_parallel_workers(), SP_PARALLEL_MAX);
    setenv("SYMPLAN_THREADS", "two", 1);
    cr_assert_geq(sp_parallel_workers(), 1);
    unsetenv("SYMPLAN_THREADS");
    cr_assert_geq(sp_parallel_workers(), 1);
}

/* The result without its wall-clock times, printed. */
static char *solved_text(const char *doc, const char *threads)
{
    setenv("SYMPLAN_THREADS", threads, 1);
    sp_problem pb;
    sp_input_error e;
    cr_assert_eq(sp_problem_parse(doc, strlen(doc), &pb, &e), SP_OK, "%s: %s", e.path, e.message);
    cJSON *res = sp_solve_json(&pb, NULL);
    cr_assert_not_null(res);
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "status"));
    cr_assert(status && strcmp(status, "converged") == 0, "threads %s: %s", threads, status ? status : "?");
    cJSON_DeleteItemFromObjectCaseSensitive(res, "timing");
    char *text = cJSON_PrintUnformatted(res);
    cJSON_Delete(res);
    sp_problem_free(&pb);
    unsetenv("SYMPLAN_THREADS");
    return text;
}

static void same_on_any_threads(const char *doc)
{
    char *one = solved_text(doc, "1"), *two = solved_text(doc, "2"), *three = solved_text(doc, "3");
    cr_assert_str_eq(one, two, "one thread and two differ");
    cr_assert_str_eq(one, three, "one thread and three differ");
    free(one), free(two), free(three);
}

Test(parallel, exact_plan_same_on_any_threads, .timeout = 120)
{
    char *doc = default_plan_doc(20261126UL, 300, NULL); /* the exact solver of order 8 */
    same_on_any_threads(doc);
    free(doc);
}

Test(parallel, theta_scheme_plan_same_on_any_threads, .timeout = 120)
{
    kf_schedule s;
    kf_random_schedule(7UL, 0, 60, 0.7, 20, 0.05, &s);
    char *doc = kf_schedule_json(&s);
    kf_schedule_free(&s);
    cr_assert_not_null(doc);
    same_on_any_threads(doc);
    free(doc);
}
