/* The processor time the car's budgets count, and the pace of the solvers' steps against
 * it (sp_car_plan.h), apart from the stages that use them so that none of them calls
 * another through them. */
#include <math.h>
#include <time.h>

#include "planner/car/sp_car_plan.h"

double car_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double car_solve_seconds(const double *waited) { return car_cpu_seconds() + (waited ? *waited : 0.0); }

void car_wait_add(double *waited, double helpers, double own)
{
    if (waited) *waited += fmax(0.0, helpers - own);
}

int car_pace_late(car_pace *p, double deadline)
{
    const double now = car_solve_seconds(p->waited);
    if (p->last >= 0.0) p->longest = fmax(p->longest, now - p->last);
    p->last = now;
    return now + p->longest > deadline;
}
