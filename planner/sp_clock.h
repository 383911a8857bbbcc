/* The monotonic clock in seconds, for the timing fields of results and progress. */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <time.h>

static inline double sp_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
