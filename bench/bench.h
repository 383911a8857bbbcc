/* The parts of `make bench` (one program, build/symplan-bench; main() is in bench.c). */
#ifndef SP_BENCH_H
#define SP_BENCH_H

#include <stdio.h>

/* Gauss–Legendre on index-1 (vakonomic) constraints (bench/index1_bench.c): cost per step
 * for s = 1 … 6 with each stage solver, a work-precision table on the Heisenberg problem,
 * and classical RK4 on the eliminated ODE as the non-geometric baseline. Prints; asserts
 * nothing. */
void bench_index1(void);
/* The TPCAP parking cases with the car model (bench/parking_bench.c). */
void bench_parking(void);
/* Random parking scenes of our own (bench/scenes_bench.c, tests/car_scenes.c): n scenes
 * from `seed`, the kinds in turn. Prints; asserts nothing. */
void bench_scenes(int n, unsigned long seed);

/* Lobatto IIIA–IIIB on nonholonomic constraints (bench/nh_bench.c): cost per step for
 * s = 2, 3, 4, work-precision on the contact oscillator and the rolling disk, and the
 * constraint drift, with classical RK4 on the index-reduced ODE as the baseline. Prints;
 * asserts nothing. */
void bench_nonholonomic(void);

/* Nonholonomic expression models (bench/custom_nh_bench.c): the cost per Lobatto step of
 * the knife edge, rolling disk and Chaplygin sleigh written as expressions (data/custom/)
 * against the built-in models, and the ratio. Prints; asserts nothing. */
void bench_custom_nh(void);

/* Holonomic constraints (bench/hol_bench.c): work-precision on the planar pendulum over one
 * period (RATTLE and its compositions, feedback on Euler, RK4 and DOP853), and on the
 * spherical pendulum against GSL's rk8pd on the index-reduced ODE (time to a global error
 * of 1e-6, 1e-8, 1e-10 and the constraint drift left). Prints; asserts nothing. Links GSL. */
void bench_holonomic(void);

/* Lobatto IIIA–IIIB for holonomic constraints (bench/hol_lobatto_bench.c): lobatto3,
 * lobatto4, lobatto5 against rattle_kl8 and rattle_kl10 on the spherical pendulum and a
 * planar double pendulum, T = 10: the cheapest run of each reaching a global error of 1e-8
 * and 1e-10, its time per step, evaluations and Newton iterations per step, and its time
 * over rattle_kl8's. Prints; asserts nothing. */
void bench_holonomic_lobatto(void);

/* Keyframe planning on SO(3) (bench/keyframe_bench.c): random schedules of 10, 50 and 200
 * orientation keyframes solved by multiple shooting, single shooting and the direct form,
 * set against the independent reference of tests/keyframe_reference.c and scipy's
 * RotationSpline, plus one plan on 10^6 steps with its peak memory. Prints; asserts
 * nothing. Links tests/keyframe_reference.c. */
void bench_keyframes(void);

/* Plans without steps against scipy's RotationSpline (bench/curve_bench.c): random walks
 * of 10, 50, 200 and 1000 orientation keyframes and a camera path of 30 at uneven times,
 * σ = 0, natural ends: RotationSpline's construction time against our solve time, the
 * energy ½∫|ω̇|² of both curves (ours from the result's samples), and the grid the planner
 * chose. Runs bench/rotation_spline_bench.py under /usr/bin/python3. Prints; asserts
 * nothing. */
void bench_curve(void);

/* Points on the sphere beside orientations of the same size (bench/sphere_bench.c): random
 * walks of 30, 60 and 100 keyframes, exact, default settings: orientation plans, sphere
 * plans in the rotation metric (free ends, at rest, σ = 0.05) and in the round metric; time,
 * sweeps, cost and the time over the orientation plan's. Prints; asserts nothing. */
void bench_sphere(void);

/* Expression models, holonomic (bench/custom_hol_bench.c): the cost per step of the spherical
 * pendulum written as expressions against the built-in model (ratio), and of the double
 * spherical pendulum. Prints; asserts nothing. Run from the top folder (reads data/custom/). */
void bench_custom_hol(void);
/* Vakonomic expression models (bench/custom_vak_bench.c): cost per step of the Heisenberg
 * and parking models written as expressions (data/custom/) against the built-ins, and
 * the ratio. Prints; asserts nothing. */
void bench_custom_vak(void);

/* The warm start of the implicit steps (bench/warm_bench.c): HOHP θ = ½, Prop. 7 and the
 * Lie-group nonholonomic Lobatto stepper, each from the plain start at every step and
 * from the last steps (and, for the last, with simplified Newton): iterations, Jacobians
 * and µs per step, and the time ratio. Prints; asserts nothing. */
void bench_warm_start(void);

/* The bookkeeping of studies (bench/study_bench.c): `symplan study -j 1` (the program at
 * `symplan`) on 500, 2000 and 10^4 trivial cases against the same cases run alone in
 * this process, and the ratio of the two times. Prints; asserts nothing. */
void bench_study(const char *symplan);

/* Timing (bench/timing.c): a monotonic clock in seconds; the seconds per call of f as the
 * best of `repeats` batches, each repeated until it lasts at least `min_batch` seconds;
 * and the largest absolute difference of two vectors. */
double bench_clock(void);
/* The document as compact JSON text in malloc'd memory (the caller frees it; NULL when out
 * of memory); the document is deleted. */
struct cJSON;
char *bench_json_text(struct cJSON *doc);
/* A plan of the problem (borrowed) solved into *res (sp_plan_new, then sp_plan_solve,
 * whose outcome *res holds); NULL when out of memory. The caller frees it (sp_plan_free). */
struct sp_problem;
struct sp_plan;
struct sp_plan_result;
struct sp_plan *bench_plan_solved(const struct sp_problem *pb, struct sp_plan_result *res);
/* The numbers a Python script prints (up to max, into out) when it reads on stdin what
 * `write` puts into a temporary file: how many were read; -1 when BENCH_PYTHON or the
 * script is missing, the file cannot be written or the script fails. */
#define BENCH_PYTHON "/usr/bin/python3"
int bench_python_numbers(const char *script, void (*write)(FILE *f, const void *ctx), const void *ctx, double *out,
                         int max);
double bench_best_time(void (*f)(void *), void *ctx, int repeats, double min_batch);
double bench_max_abs_diff(int n, const double *a, const double *b);

#endif
