/* What the condensed solver of exact plans shares between its files (exact.c: the solver,
 * its start, the turns of sphere knots and the solve; exact_system.c: the sweeps, the
 * condensed system and Newton on it). Internal to planner/cubic/; the contract is
 * sp_exact.h. */
#ifndef SP_EXACT_INTERNAL_H
#define SP_EXACT_INTERNAL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "integrators/sp_hohp_rk.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_exact.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_clock.h"
#include "planner/sp_parallel.h"
#include "planner/sp_trust_region.h"

#define MAXN SP_LIE_MAX_DIM
#define MAXW (2 * SP_LIE_MAX_DIM)

/* What one segment's linearisation leaves for the condensed solve (kept while the factors
 * are): δμ = −Ainv (r_g + Aw δw), and B_μ to carry r_g into the recurrence. */
typedef struct segment {
    double Ainv[MAXN * MAXN]; /* (∂r_g/∂μ)⁻¹ */
    double Aw[MAXN * MAXW];   /* ∂r_g/∂w */
    double Bmu[MAXW * MAXN];  /* ∂(ξ, π)_end/∂μ */
    /* sphere plans: the derivatives in the moves θ_i of the segment's start knot and θ_{i+1}
     * of its end's, d each (row-major, d columns), and those of u_a·μ_end in (ξ_i, π_i, μ_i,
     * θ_i) (3n + d columns per direction a) */
    double Ag[MAXN * 3], Ae[MAXN * 3]; /* ∂r_g/∂θ_i, ∂r_g/∂θ_{i+1} */
    double Bpsi[MAXW * 3];             /* ∂(ξ, π)_end/∂θ_i */
    double Kend[3 * (3 * MAXN + 3)];   /* ∂(u_a·μ_end)/∂(ξ_i, π_i, μ_i, θ_i) */
} segment;

typedef struct exact {
    const sp_problem *pb;
    const sp_group *G;
    int workers;                       /* threads of a sweep (sp_parallel.h) */
    sp_hohp_rk *rk[SP_PARALLEL_MAX];   /* a stepper (its scratch) per worker */
    int n, K;         /* algebra dim, keyframes (segments) */
    double *tk;       /* K+1 knot times */
    const double **R; /* K+1 knot elements (g0, the keyframes) */
    /* sphere plans: the knot element R_i = L_i exp(θ_i), θ_i = Σ_a θ_ia u_a, moves along
     * `spin` free directions u_a, the unknowns of the outer problem: y0 alone (the turn about
     * the point) for exact interpolation, the three axes for weighted keyframes. L_i is the
     * last accepted element, θ a trial's move (θ_0 = 0: g0 is given). */
    int spin;
    double y0[3], dir[3][3];
    double *lift, *turned, *psi; /* L_i and R_i (K+1 elements each), θ ((K+1)·spin) */
    double *move_rhs;            /* respond()'s scratch, n per segment */
    /* unknowns: w_i = (ξ_i, π_i) for i = 0…K, μ_i for i < K */
    double *w, *mu;
    /* residuals: per segment r_g (n) then r_w (2n) */
    double *r;
    sp_hohp_state *ends; /* every segment's end state (μ before the keyframe's jump) */
    /* per segment, from the last sweep: running cost and largest scaled residual (summed
     * in segment order afterwards, so the threads do not change a bit), and the work */
    double *seg_run, *seg_worst;
    int *cost;
    size_t *first_node; /* K+1: the node index of every knot on the grid of a sweep */
    segment *seg;
    sp_band *band;
    double *dw, *dmu;
    int jacobians, sweeps, iterations;
    sp_time_parts times;
} exact;

static inline const double *elem(const exact *e, int i) { return e->R[i]; }

/* exact_system.c: the state leaving knot i; the work of each segment's sweep (for
 * sp_parallel_run); the band's factors; one sweep from (w, μ) with the given steps (the
 * residuals, with `linearise` the segments' linearisations, the scaled residual and the
 * running cost, every node when `nodes` is not NULL); the response of the condensed
 * system to residuals or to moves of the knots; simplified Newton on `steps`, *converged
 * set when the scaled residual is below tol. */
void sp_exact_knot_state(const exact *e, const double *w, const double *mu, int i, sp_hohp_state *z);
const int *sp_exact_segment_cost(exact *e, const int *steps, int linearise);
sp_status sp_exact_factor(exact *e);
sp_status sp_exact_sweep(exact *e, const int *steps, const double *w, const double *mu, int linearise, double *scaled,
                       double *running, sp_hohp_state *nodes);
sp_status sp_exact_respond(exact *e, const double *w, int residual, const double *dpsi, double *dw, double *dmu,
                         double *dkick);
sp_status sp_exact_newton(exact *e, const int *steps, int have_factors, double tol, const sp_progress *progress,
                        int *converged, double *residual, double *running, sp_hohp_state *nodes);

#endif
