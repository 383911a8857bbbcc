/* The check that the car's smoothing finds the same numbers, to the bit, whatever the
 * number of threads its evaluations are shared among: shared by the car suite
 * (tests/test_car.c) and the standalone program of `make tsan` (tests/tsan/threads_main.c),
 * which runs it under ThreadSanitizer. */
#ifndef SP_TEST_CAR_THREADS_H
#define SP_TEST_CAR_THREADS_H

#include <stddef.h>

/* The transcription of data/car/parallel_slot.json's route (the even layout, some
 * intervals' rows over their arcs), at a point moved off the route: every row with its
 * derivative, the Lagrangian's Hessian, whole and convexified (car_tx_hessian), and
 * car_tx_depth, found by one thread and then by `workers` with every evaluation shared
 * whatever its size. Returns the number of those that differ (−1 when the problem cannot
 * be read or planned), with `why` naming the first. */
int car_threads_check(const char *data_dir, int workers, char *why, size_t why_size);

#endif
