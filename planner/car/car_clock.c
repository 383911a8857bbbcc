/* The processor time the car's budgets count (sp_car_plan.h), apart from the stages
 * that use it so that none of them calls another through it. */
#include <time.h>

#include "planner/car/sp_car_plan.h"

double car_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
