/* Multiple shooting for cubic-spline plans (docs/methods.md §3.4): the horizon cut into
 * blocks (at every keyframe, long stretches into blocks of at most `block_steps` steps),
 * each started from its own HOHP node state s_j = (g_j, ξ_j, ν_j, p_j), and the discrete
 * optimality system of the whole plan (the step map in every block, continuity and kicks at
 * the joins, the end conditions) solved by damped Newton on its banded Jacobian. An sp_ms
 * borrows its problem and owns its block states, grid and factors. */
#ifndef SP_MULTIPLE_SHOOTING_H
#define SP_MULTIPLE_SHOOTING_H

#include "planner/sp_progress.h"
#include "integrators/sp_hohp.h"
#include "problems/sp_problem.h"

typedef struct sp_ms sp_ms;

/* Initial curves built from the keyframes alone (sp_keyframe_start.h). */
typedef enum { SP_START_SPLINE, SP_START_GEODESIC, SP_START_UNIFORM, SP_START_COUNT } sp_start_kind;
const char *sp_start_name(sp_start_kind kind);

typedef struct sp_ms_stats {
    int iterations;     /* Newton iterations */
    int factorizations; /* banded LU factorisations */
    int evaluations;    /* sweeps over the grid (each with or without tangents) */
    int linearised;     /* of them, sweeps that also carried the block Jacobians */
    double forward_seconds, linearised_seconds, algebra_seconds; /* plain and derivative sweeps, band LU and solves */
    double residual; /* scaled optimality residual (largest component) */
    double cost, running_cost;
    int converged;
} sp_ms_stats;

/* Borrows the problem; `sigma` replaces its σ (continuation). NULL when out of memory. */
sp_ms *sp_ms_alloc(const sp_problem *pb, double sigma);
/* The same on the grid with segment_steps[i] steps between keyframes i−1 and i (NULL: the
 * problem's own steps). */
sp_ms *sp_ms_alloc_segments(const sp_problem *pb, double sigma, const int *segment_steps);
void sp_ms_free(sp_ms *ms);

/* Sets every block state from an initial curve through the keyframes. */
sp_status sp_ms_start(sp_ms *ms, sp_start_kind kind);
/* The grid nodes where the blocks start (count = blocks), and the block states to set
 * there (for starts computed elsewhere, such as the direct form's). */
const int *sp_ms_block_nodes(const sp_ms *ms, int *count);
void sp_ms_set_states(sp_ms *ms, const sp_hohp_state *S);
/* The multipliers of exact interpolation from the kicks (the jumps of μ, n_targets x dim)
 * of a solution computed elsewhere: their components in the multiplier directions (all
 * of them on a group; across y0 on the sphere, where the component along y0 vanishes at
 * a solution). A weighted plan has no multipliers: nothing is set. */
void sp_ms_set_kicks(sp_ms *ms, const double *kicks);
/* The end state and running cost of every block integrated from the states set (when the
 * caller has them from a sweep of its own on the same grid, one block per segment): the
 * next sp_ms_solve evaluates its conditions on them instead of sweeping again. -1 (and
 * nothing kept) when the blocks are not the segments. */
int sp_ms_set_ends(sp_ms *ms, const sp_hohp_state *E, const double *running, int count);
/* Takes over the block states (and multipliers, when both are exact) of another
 * object of the same problem. */
void sp_ms_take_states(sp_ms *ms, const sp_ms *from);

/* Sets every block state from the solved curve of `from`, an object of the same problem on
 * another grid (its multipliers too when both are exact). */
struct sp_curve;
void sp_ms_take_curve(sp_ms *ms, const sp_ms *from, struct sp_curve *curve);

/* Takes the factored Newton matrix of `from` (same blocks and multipliers, another grid)
 * as the start of the next solve's simplified Newton; 0 when the systems differ. */
int sp_ms_take_factors(sp_ms *ms, const sp_ms *from);

/* Caps the Newton iterations of the next solves below the problem's own limit. */
void sp_ms_cap_iterations(sp_ms *ms, int max_iterations);
/* Newton from the current states. The outcome is in *stats (converged or not); a
 * non-OK return is a failure that left no usable iterate (or SP_ERR_INTERRUPTED). */
sp_status sp_ms_solve(sp_ms *ms, const sp_progress *progress, sp_ms_stats *stats);

/* The unknowns: their number, the residual at the current states, a Newton
 * correction Δx (J Δx = −F, banded), the dense Jacobian (unknowns² doubles, row-major;
 * for tests), and the retraction x ⊕ αΔx (g ← g exp(αΔθ), the rest added). */
int sp_ms_unknowns(const sp_ms *ms);
sp_status sp_ms_residual(sp_ms *ms, double *F);
sp_status sp_ms_correction(sp_ms *ms, double *dx);
sp_status sp_ms_jacobian_dense(sp_ms *ms, double *J);
void sp_ms_move(sp_ms *ms, const double *dx, double alpha);
double sp_ms_sigma(const sp_ms *ms);

/* What a solved plan reports, from one recording sweep from the block states. */
typedef struct sp_ms_report {
    int count;             /* recorded rows */
    sp_hohp_state *states; /* count rows (pre-kick at keyframes) */
    double *t;             /* their times */
    double *target_g;      /* g at every keyframe (n_targets x elem_size) */
    double *kicks;         /* the momentum kick at every keyframe (n_targets x dim) */
    int *target_step;      /* grid index of every keyframe */
    double momentum_map_drift;
    double initial_momenta[2 * SP_LIE_MAX_DIM]; /* (ν_0, p_0) */
    double initial_velocity[SP_LIE_MAX_DIM], final_velocity[SP_LIE_MAX_DIM];
    double terminal[2 * SP_LIE_MAX_DIM]; /* (ν_N⁺, p_N) */
} sp_ms_report;
/* Records every record_every-th row into *out, whose arrays the caller frees with
 * sp_ms_report_free; a non-OK status when a step fails or memory runs out. */
sp_status sp_ms_report_build(sp_ms *ms, int record_every, sp_ms_report *out);

/* The state at every grid node, nodes[0..N] (after the momentum kick at a keyframe), from
 * the current block states, and the grid with its step count N. */
sp_status sp_ms_nodes(sp_ms *ms, sp_hohp_state *nodes);
const sp_plan_grid *sp_ms_grid(const sp_ms *ms, int *steps);
void sp_ms_report_free(sp_ms_report *r);

#endif
