/* The parts of `make bench` (one program, build/symplan-bench; main() is in bench.c). */
#ifndef SP_BENCH_H
#define SP_BENCH_H

/* Gauss–Legendre on index-1 (vakonomic) constraints (bench/index1_bench.c): cost per step
 * for s = 1, 2, 3, a work-precision table on the Heisenberg problem, and classical RK4 on
 * the eliminated ODE as the non-geometric baseline. Prints; asserts nothing. */
void bench_index1(void);

#endif
