/* Pieces of a sweep on threads (see sp_parallel.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "planner/sp_parallel.h"

int sp_parallel_workers(void)
{
    const char *env = getenv("SYMPLAN_THREADS");
    long n = 0;
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end) n = 0; /* not a number: the default */
    }
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > SP_PARALLEL_MAX ? SP_PARALLEL_MAX : (int)n;
}

typedef struct piece {
    sp_piece_fn fn;
    void *ctx;
    int begin, end, worker;
    sp_status status;
} piece;

static void *run_piece(void *arg)
{
    piece *p = arg;
    p->status = p->fn(p->ctx, p->begin, p->end, p->worker);
    return NULL;
}

sp_status sp_parallel_run(int workers, int count, const int *cost, sp_piece_fn fn, void *ctx)
{
    if (count <= 0) return SP_OK;
    long total = 0;
    for (int i = 0; i < count; ++i) total += cost ? cost[i] : 1;
    if (workers > SP_PARALLEL_MAX) workers = SP_PARALLEL_MAX;
    if (workers > count) workers = count;
    if (workers <= 1 || total < SP_PARALLEL_MIN_COST) return fn(ctx, 0, count, 0);
    /* cut where the running cost passes w·total/workers */
    piece pieces[SP_PARALLEL_MAX];
    long run = 0;
    int at = 0;
    for (int w = 0; w < workers; ++w) {
        pieces[w] = (piece){.fn = fn, .ctx = ctx, .begin = at, .worker = w, .status = SP_OK};
        const long goal = total * (w + 1) / workers;
        while (at < count && (w + 1 == workers || run + (cost ? cost[at] : 1) <= goal || at == pieces[w].begin))
            run += cost ? cost[at] : 1, ++at;
        pieces[w].end = at;
    }
    pthread_t ids[SP_PARALLEL_MAX];
    int started[SP_PARALLEL_MAX] = {0};
    for (int w = 1; w < workers; ++w)
        if (pieces[w].begin < pieces[w].end) started[w] = pthread_create(&ids[w], NULL, run_piece, &pieces[w]) == 0;
    run_piece(&pieces[0]);
    for (int w = 1; w < workers; ++w) {
        if (started[w])
            pthread_join(ids[w], NULL);
        else if (pieces[w].begin < pieces[w].end)
            run_piece(&pieces[w]); /* no thread: done here */
    }
    for (int w = 0; w < workers; ++w)
        if (pieces[w].status != SP_OK) return pieces[w].status;
    return SP_OK;
}
