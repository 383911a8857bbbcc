/* Progress of a long computation, reported through a callback that the caller owns:
 * the library calls it and never prints; the command decides what reaches the
 * terminal. A NULL sp_progress (or one whose report is NULL) reports nothing. */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

/* One evaluation of an optimiser's objective. */
typedef struct sp_progress_info {
    int start;            /* 0, or the starting point (1, 2, …) of a multi-start search */
    int evaluation;       /* 1, 2, … within the current optimisation */
    double cost;          /* the objective at this evaluation, in the problem's units */
    double gradient_norm; /* |∇f| there; NaN when this evaluation had no gradient */
} sp_progress_info;

typedef struct sp_progress {
    void (*report)(void *ctx, const sp_progress_info *info);
    void *ctx;
} sp_progress;

/* Calls p->report when there is one. */
static inline void sp_progress_report(const sp_progress *p, const sp_progress_info *info)
{
    if (p && p->report) p->report(p->ctx, info);
}

#endif
