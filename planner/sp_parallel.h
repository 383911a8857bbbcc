/* Work over independent items (the segments of a plan's sweep) split across threads.
 *
 * A range [0, count) is cut into contiguous pieces of about equal cost, one per worker;
 * worker 0 is the calling thread and the others are threads started for the call and
 * joined before it returns, so nothing outlives a call and no state is shared between
 * calls. Callers keep whatever a piece writes per item (a segment's residual, its share
 * of a sum) and reduce it afterwards in item order: the result is then the same, to the
 * last bit, for any number of workers.
 *
 * The number of workers: the environment variable SYMPLAN_THREADS when it is a positive
 * integer (1 turns threads off, as a study's worker processes do), else the processors
 * online, at most SP_PARALLEL_MAX. Starting a thread costs some tens of microseconds, so
 * sweeps below SP_PARALLEL_MIN_COST (in units of about a microsecond of work) run on the
 * calling thread alone. */
#ifndef SP_PARALLEL_H
#define SP_PARALLEL_H

#include "lie/sp_status.h"

#define SP_PARALLEL_MAX 8
#define SP_PARALLEL_MIN_COST 150

/* Does items [begin, end) on worker `worker` (0 … workers−1). */
typedef sp_status (*sp_piece_fn)(void *ctx, int begin, int end, int worker);

/* Workers a sweep may use (see above): at least 1, at most SP_PARALLEL_MAX. */
int sp_parallel_workers(void);

/* Runs fn over [0, count) in at most `workers` pieces balanced by cost[i] (the work of item
 * i; NULL: one each), on one thread when the total cost is below SP_PARALLEL_MIN_COST. A
 * thread that cannot be started leaves its piece to the calling thread. Returns the
 * status of the first piece, in item order, that did not return SP_OK. */
sp_status sp_parallel_run(int workers, int count, const int *cost, sp_piece_fn fn, void *ctx);

#endif
