/* The check of car_threads.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/sp_car_plan.h"
#include "problems/sp_problem.h"
#include "tests/car_threads.h"

/* What one number of threads finds. */
typedef struct found {
    double *f, *val, *h, *hc, depth; /* hc: the convexified Hessian */
    long *col;
} found;

static void found_free(found *r) { free(r->f), free(r->val), free(r->h), free(r->hc), free(r->col); }

static int evaluate(car_tx *t, const double *x, const double *w, int workers, found *r)
{
    const size_t m = car_tx_n_constraints(t), ld = CAR_TX_BAND + 1;
    t->workers = workers, t->parallel_work = workers > 1 ? 0.0 : CAR_PARALLEL_WORK;
    *r = (found){.f = malloc(m * sizeof *r->f), .val = malloc(m * CAR_TX_NZ * sizeof *r->val),
                 .h = calloc(ld * t->n, sizeof *r->h), .hc = calloc(ld * t->n, sizeof *r->hc),
                 .col = malloc(m * CAR_TX_NZ * sizeof *r->col)};
    if (!r->f || !r->val || !r->h || !r->hc || !r->col) return -1;
    car_tx_constraints_sparse(t, x, r->f, r->col, r->val);
    const sp_status st = car_tx_hessian(t, x, w, CAR_HESSIAN_WHOLE, r->h),
                    sc = car_tx_hessian(t, x, w, CAR_HESSIAN_CONVEX, r->hc);
    r->depth = car_tx_depth(t, x);
    return st == SP_OK && sc == SP_OK ? 0 : -1;
}

static int differ(const void *a, const void *b, size_t bytes, const char *what, int *count, char *why, size_t n)
{
    if (memcmp(a, b, bytes) == 0) return 0;
    if (!(*count)++) snprintf(why, n, "%s differ", what);
    return 1;
}

/* The comparison on transcription t of route r. */
static int compare(car_tx *t, const car_route *r, int workers, char *why, size_t why_size)
{
    const size_t n = t->n, ld = CAR_TX_BAND + 1;
    double *x = malloc(n * sizeof *x);
    if (!x) return -1;
    car_tx_guess(t, r, x);
    unsigned state = 7;
    for (size_t i = 0; i < n; ++i) {
        state = state * 1103515245u + 12345u;
        x[i] += 0.02 * ((double)(state >> 8) / 16777216.0 - 0.5);
    }
    for (size_t k = 0; k < t->N; k += 4) t->swept[k] = 1;
    const size_t m = car_tx_select(t, x, 0.3) == SP_OK ? car_tx_n_constraints(t) : 0;
    double *wt = m ? malloc(m * sizeof *wt) : NULL;
    found one = {0}, many = {0};
    int failures = -1;
    if (wt) {
        for (size_t i = 0; i < m; ++i) wt[i] = sin(1.0 + (double)i);
        if (evaluate(t, x, wt, 1, &one) == 0 && evaluate(t, x, wt, workers, &many) == 0) {
            failures = 0;
            differ(one.f, many.f, m * sizeof *one.f, "the rows' values", &failures, why, why_size);
            differ(one.val, many.val, m * CAR_TX_NZ * sizeof *one.val, "the rows' derivatives", &failures, why,
                   why_size);
            differ(one.col, many.col, m * CAR_TX_NZ * sizeof *one.col, "the rows' columns", &failures, why, why_size);
            differ(one.h, many.h, ld * n * sizeof *one.h, "the Hessians", &failures, why, why_size);
            differ(one.hc, many.hc, ld * n * sizeof *one.hc, "the convexified Hessians", &failures, why, why_size);
            differ(&one.depth, &many.depth, sizeof one.depth, "the depths", &failures, why, why_size);
        }
    }
    found_free(&one), found_free(&many);
    free(x), free(wt);
    return failures;
}

int car_threads_check(const char *data_dir, int workers, char *why, size_t why_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/car/parallel_slot.json", data_dir);
    snprintf(why, why_size, "%s cannot be read or planned", path);
    sp_problem pb;
    sp_input_error err;
    if (sp_problem_read_file(path, &pb, &err) != SP_OK) return -1;
    pb.car.settings.max_seconds = 1000.0; /* (the counted limits bind: the same route on any machine) */
    car_world w;
    car_route r = {0};
    car_tx t = {0};
    int failures = -1;
    if (car_world_init(&w, &pb.car) == SP_OK) {
        if (car_route_search(&w, &pb.car, NULL, &r) == SP_OK && r.found &&
            car_tx_init(&t, &w, &pb.car, &r, pb.car.scene.goal) == SP_OK)
            failures = compare(&t, &r, workers, why, why_size);
        car_tx_free(&t);
        car_route_free(&r);
        car_world_free(&w);
    }
    sp_problem_free(&pb);
    return failures;
}
