/* Progress of a long computation, reported through a callback that the caller owns:
 * the library calls it and never prints; the command decides what reaches the
 * terminal. A NULL sp_progress (or one whose report is NULL) reports nothing.
 *
 * The same struct carries the one way to stop a running task early: `stop` points to a
 * flag the caller owns (the command sets it from its SIGINT handler, which is why it is
 * a volatile sig_atomic_t). Every long loop of a task checks it — before each optimiser
 * evaluation, each integration step of a simulation, each start and each sweep of an
 * endpoint search — and, once it is non-zero, ends with the status SP_ERR_INTERRUPTED
 * ("interrupted") and a result that holds what was computed so far: the trajectory up
 * to the last step, the best point of a search. The library keeps no flag of its own. */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

#include <signal.h>

/* One evaluation of an optimiser's objective, or (steps > 0) a simulation's progress. */
typedef struct sp_progress_info {
    int start;            /* 0, or the starting point (1, 2, …) of a multi-start search */
    int evaluation;       /* 1, 2, … within the current optimisation */
    double cost;          /* the objective at this evaluation, in the problem's units */
    double gradient_norm; /* |∇f| there; NaN when this evaluation had no gradient */
    long step, steps;     /* simulations: steps done of all (0 of 0 for optimisers) */
} sp_progress_info;

typedef struct sp_progress {
    void (*report)(void *ctx, const sp_progress_info *info);
    void *ctx;
    const volatile sig_atomic_t *stop; /* non-zero: stop at the next check (NULL: never) */
} sp_progress;

/* Calls p->report when there is one. */
static inline void sp_progress_report(const sp_progress *p, const sp_progress_info *info)
{
    if (p && p->report) p->report(p->ctx, info);
}

/* Whether the caller has asked the task to stop. */
static inline int sp_progress_stopped(const sp_progress *p) { return p && p->stop && *p->stop; }

#endif
