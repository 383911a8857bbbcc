/* What the condensed solver of round-sphere plans shares between its files (round.c: the
 * solver, its start and its solve; round_system.c: the knot states, the sweeps with their
 * rows and the banded factors). Internal to planner/cubic/; the contract is sp_round.h. */
#ifndef SP_ROUND_INTERNAL_H
#define SP_ROUND_INTERNAL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "integrators/sp_round_sphere.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_round.h"
#include "planner/sp_clock.h"
#include "planner/sp_parallel.h"

/* NG, NW: the pinned layout's eliminated and kept unknowns a knot; FW: the free layout's
 * unknowns a knot, (v, a, p, μ) in that order (FV, FA, FP, FM their offsets). */
enum { NG = 2, NW = 4, NX = SP_RS_TANGENT, COLS = NW + NG, FW = 8, FV = 0, FA = 2, FP = 4, FM = 6 };

/* What one segment's linearisation leaves for the condensed solve: δμ = −Ainv (r_g + Aw δw),
 * and B_μ to carry r_g into the recurrence. */
typedef struct segment {
    double Ainv[NG * NG], Aw[NG * NW], Bmu[NW * NG];
} segment;

typedef struct round_solver {
    const sp_problem *pb;
    sp_round_sphere rk;
    int workers;
    int K;        /* segments: one a keyframe, and a free tail when the last keyframe is before T */
    int targets;  /* keyframes: knots 1 … targets */
    /* the layout: pinned knots (exact interpolation through a last keyframe at T), w = (v, a)
     * and μ = j eliminated a segment; or free knots (weighted keyframes, a tail), w = (v, a,
     * p, μ) with nothing eliminated. nw unknowns a knot, ne eliminated a segment, nb rows at
     * each end. */
    int free_knots, nw, ne, nb;
    double inv_s2; /* 1/σ² of weighted keyframes, 0 for exact ones */
    double *tk;   /* K+1 knot times */
    double *Y;    /* K+1 reference points ŷ (the knot points themselves when pinned) */
    double *E;    /* K+1 tangent bases (e1, e2) at ŷ */
    double *Yc, *Ec; /* the knot points and bases of the unknowns last swept: those of p */
    double *target; /* the keyframes, unit vectors */
    double *w;    /* (K+1)·nw unknowns at the knots, tangent vectors in their bases */
    double *mu;   /* K·ne: j leaving every knot but the last (pinned) */
    double *r;    /* K·(ne + nw) residuals */
    double *xend; /* K·NX: the state at the end of every segment */
    double *seg_run, *seg_worst;
    int *cost;
    size_t *first_node;
    segment *seg;
    sp_band *band;
    double *rhs, *dw, *dmu, *w_old, *mu_old;
    double start_v[3]; /* prescribed ẏ(0), in R³ */
    double target_cost; /* Σ E_i at the knots last swept */
    int stages;         /* σ stages of a continuation (first_solve), 0 without one */
    int iterations, jacobians, sweeps;
    sp_time_parts times;
} round_solver;

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Coordinates of the R³ vector u in the basis of knot i (of the unknowns last swept). */
static inline void to_basis(const round_solver *e, int i, const double *u, double *c)
{
    c[0] = dot3(e->Ec + 6 * i, u), c[1] = dot3(e->Ec + 6 * i + 3, u);
}

static inline void from_basis(const round_solver *e, int i, const double *c, double *u)
{
    const double *e1 = e->Ec + 6 * i, *e2 = e1 + 3;
    for (int k = 0; k < 3; ++k) u[k] = c[0] * e1[k] + c[1] * e2[k];
}

/* round.c: the solver set up for a problem (freed by sp_rs_free), its start (the C²
 * spline of R³ through the keyframes, projected). */
sp_status sp_rs_init(round_solver *e, const sp_problem *pb);
void sp_rs_free(round_solver *e);
sp_status sp_rs_spline_start(round_solver *e);

/* round_system.c: the rotation by the smallest angle taking a to b applied to g from the
 * left; the knot points and bases of the unknowns w; the embedded state leaving knot i (and every knot's, into out); the
 * start and end residuals k; the band's LU factors; one sweep over every segment from
 * (w, mu) with the given steps, its rows and, with `linearise`, the band. */
void sp_rs_align(const double *a, const double *b, double *g);
void sp_rs_frames(round_solver *e, const double *w);
void sp_rs_knot_state(const round_solver *e, const double *w, const double *mu, int i, double *x);
void sp_rs_knot_states(const round_solver *e, const double *w, const double *mu, double *out);
double sp_rs_start_residual(const round_solver *e, const double *w, int k);
double sp_rs_end_residual(const round_solver *e, const double *w, int k);
sp_status sp_rs_factor(round_solver *e);
sp_status sp_rs_sweep(round_solver *e, const int *steps, const double *w, const double *mu, int linearise,
                       double *scaled, double *cost, double *nodes);

#endif
