/* The monotonic clock in seconds, for the timing fields of results and progress. */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock (for durations only). */
static inline double sp_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Where a solve's time goes, in seconds, for the "timing" block of a result: parts that
 * add up to the solve (what none of them holds is reported as "other"). */
typedef struct sp_time_parts {
    double start;             /* initial curves */
    double plain_sweeps;      /* integrations of the scheme alone */
    double derivative_sweeps; /* integrations carrying tangents or adjoints */
    double linear_algebra;    /* factorisations and solves of Newton's systems */
    double optimizer;         /* NLopt's own work between its evaluations */
    double output;            /* the curve built from the solution */
} sp_time_parts;

/* to += from, part by part. */
static inline void sp_time_parts_add(sp_time_parts *to, const sp_time_parts *from)
{
    to->start += from->start, to->plain_sweeps += from->plain_sweeps;
    to->derivative_sweeps += from->derivative_sweeps, to->linear_algebra += from->linear_algebra;
    to->optimizer += from->optimizer, to->output += from->output;
}

#endif
