/* An independent reference for keyframe planning on SO(3): the discrete cost J_d of a
 * body-velocity sequence, its exact gradient, and a multi-start L-BFGS (NLopt) minimiser.
 * The tests use it to check that the planner lands on the best optimum of a schedule, not
 * on some other local minimum. It shares no code with the library: everything it needs
 * (hat, Cayley, Rodrigues, the principal logarithm, the differentials) is written here.
 *
 * The discrete problem. A uniform grid of N = steps intervals, h = T/N; keyframe i sits
 * on node k_i = round(t_i/h). The unknowns are the body velocities ξ_0 … ξ_N ∈ R³ (ξ_0 is
 * the prescribed xi0 unless xi0_free, ξ_N the prescribed xiT when has_xiT). With θ the
 * scheme parameter and τ the retraction (Cayley or exp),
 *     Δ_k = h((1 − θ) ξ_k + θ ξ_{k+1}),   g_{k+1} = g_k τ(Δ_k),   g_0 = g0,
 *     J_d = Σ_{k<N} h/2 |(ξ_{k+1} − ξ_k)/h|²  +  Σ_i E_i(g_{k_i}),
 * with E_i(g) = |g y0 − y_i|²/(2σ²) for points on the sphere and |g − R_i|_F²/(2σ²) for
 * rotations. The first sum is the running cost.
 *
 * σ = 0 asks for exact interpolation: the reference then minimises J_d for σ = 1e-2,
 * 1e-3 and 1e-4 in turn, each from the previous optimum, and reports the running cost of
 * the last stage. */
#ifndef SP_TEST_KEYFRAME_REFERENCE_H
#define SP_TEST_KEYFRAME_REFERENCE_H

#include <stdio.h>

/* The continuation used for σ = 0, from the first stage to the last. */
#define KF_EXACT_STAGES 3
extern const double kf_exact_sigmas[KF_EXACT_STAGES];

typedef struct kf_schedule {
    int sphere;           /* 1: targets are points y_i on S² (start point y0); 0: rotations R_i */
    double y0[3], g0[9];  /* g0 row-major */
    double xi0[3];
    int xi0_free;         /* ξ_0 is optimised too (xi0 is then ignored) */
    double xiT[3];
    int has_xiT;          /* ξ_N is fixed to xiT */
    double T;
    int steps;
    double sigma;         /* 0: exact interpolation (continuation, see above) */
    double theta;         /* 0, 0.5 or 1 */
    int exp_retraction;   /* 0: Cayley, 1: exp */
    int n;                /* number of keyframes, in increasing time */
    double *t;            /* n times */
    double *y;            /* 3n points on the sphere (sphere), else NULL */
    double *R;            /* 9n row-major rotations (group), else NULL */
} kf_schedule;

/* Frees the arrays of a schedule (not the struct); NULL is a no-op. */
void kf_schedule_free(kf_schedule *s);

/* A deterministic random walk (splitmix64 started from the given number): keyframes at
 * t = 1, 2, …, n, T = n, steps = n·steps_per_unit, g0 = identity, θ = 0.5, Cayley. Each keyframe is
 * `step_angle` away from the previous one (the first from the start): rotations
 * R_i = R_{i−1} exp(step_angle·u) with u a random unit axis; points y_i = y_{i−1} rotated
 * by step_angle about a random axis orthogonal to y_{i−1}, from y0 = (0, 0, 1). xi0 is a
 * random vector of norm 0.2, prescribed (set xi0_free afterwards for a free start), and
 * no end velocity is prescribed. When out of memory, out->t is NULL. */
void kf_random_schedule(unsigned long seed, int sphere, int n_keyframes, double step_angle, int steps_per_unit,
                        double sigma, kf_schedule *out);

/* The schedule as a symplan problem file (a cubic_spline plan task on SO3), every number
 * printed with %.17g; a malloc'd string, NULL when out of memory. */
char *kf_schedule_json(const kf_schedule *s);

/* The schedule's rotations as {"t": [0, t…], "R": [g0, R…]} (9 numbers each, row-major),
 * the input of tests/rotation_spline_cost.py and bench/rotation_spline_bench.py. */
void kf_schedule_write_rotations(FILE *f, const kf_schedule *s);

/* Reads a problem file of that form (text, or a file by its path) into *out; 0 on
 * success, -1 when the text is not such a problem (then *out holds nothing to free). */
int kf_schedule_parse(const char *text, kf_schedule *out);
int kf_schedule_read(const char *path, kf_schedule *out);

/* J_d of the velocities xi[(N+1)*3], taken as given (the entries of fixed velocities
 * included). *running_cost (when not NULL) receives the running cost. grad (when not
 * NULL, (N+1)*3 entries) receives the gradient of J_d with respect to the free
 * velocities, zero in the entries of fixed ones. For σ = 0 the penalty is that of the
 * last continuation stage (σ = 1e-4). Returns NaN when out of memory. */
double kf_cost(const kf_schedule *s, const double *xi, double *running_cost, double *grad);

/* The three starts, in the order of kf_reference.cost. */
enum { KF_START_ZERO, KF_START_GEODESIC, KF_START_SPLINE, KF_STARTS };

/* Fills xi[(N+1)*3] with a starting velocity sequence (see keyframe_reference.c); leaves
 * it untouched when out of memory. */
void kf_start(const kf_schedule *s, int start, double *xi);

typedef struct kf_reference {
    double cost[KF_STARTS]; /* J_d at the optimum from each start (σ = 0: the running cost) */
    double best;            /* the lowest of them */
    int best_start;         /* its start */
    int evaluations;        /* cost evaluations, all starts and stages together */
    double *xi;             /* (N+1)*3 velocities of the best optimum */
} kf_reference;

/* The best of L-BFGS runs from the zero, geodesic and spline starts; 0 on success, -1
 * when out of memory or when NLopt refuses the problem. */
int kf_reference_solve(const kf_schedule *s, kf_reference *out);
void kf_reference_free(kf_reference *r);

#endif
