/* The TPCAP parking cases of data/tpcap/ (B. Li et al., Trajectory Planning Competition
 * for Automated Parking) read as problems of model car, for the parking bench and its
 * OMPL peer (which is C++ and sees the car's scene only). Run from the top folder. */
#ifndef SP_BENCH_TPCAP_CASE_H
#define SP_BENCH_TPCAP_CASE_H

#include "problems/car/sp_car.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_problem sp_problem;

/* Case k (1 … 20) into *pb; 0 on success, else -1 with the reason printed. */
int bench_tpcap_read(int k, sp_problem *pb);

/* Case k's car (vehicle, scene, settings), kept by an object of its own: NULL on failure
 * (the reason printed); bench_tpcap_close frees it. */
typedef struct bench_tpcap_case bench_tpcap_case;
bench_tpcap_case *bench_tpcap_open(int k, const sp_car_problem **car);
void bench_tpcap_close(bench_tpcap_case *c);

#ifdef __cplusplus
}
#endif

#endif
