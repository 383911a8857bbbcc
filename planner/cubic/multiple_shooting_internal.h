/* What the files of the multiple-shooting solver share (multiple_shooting.c: the object
 * and its Newton and Levenberg–Marquardt iterations; multiple_shooting_system.c: the
 * sweeps and the banded system; multiple_shooting_report.c: the trajectory it reports).
 * Not installed; the contract is sp_multiple_shooting.h. */
#ifndef SP_MS_INTERNAL_H
#define SP_MS_INTERNAL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_parallel.h"
#include "integrators/sp_band.h"
#include "integrators/sp_band_lm.h"
#include "integrators/sp_hohp_rk.h"
#include "planner/cubic/sp_multiple_shooting.h"
#include "lie/sp_linalg.h"
#include "lie/sp_lie.h"

#define NZ_MAX (4 * SP_LIE_MAX_DIM)

struct sp_ms {
    const sp_problem *pb;
    sp_cubic_spline cubic; /* the problem's, with the σ of this object */
    const sp_group *G;
    int workers;                          /* threads of a sweep (sp_parallel.h), each with */
    sp_hohp *stepper[SP_PARALLEL_MAX];    /* a stepper of the θ-family, or */
    sp_hohp_rk *rk[SP_PARALLEL_MAX];      /* of the RKMK scheme of the continuous equations */
    double *block_run;                    /* per block: running cost of the last sweep */
    int *block_cost;                      /* per block: its steps (for sp_parallel_run) */
    int n, nz, N, M; /* algebra dim, 4n, steps, blocks */
    int exact, nc;   /* σ = 0; rows of one interpolation condition (3, or 2 on the sphere) */
    sp_plan_grid grid;
    int *kb; /* M+1 block boundaries (grid indices) */
    /* unknowns */
    int nx;
    int *off_s;   /* offset of s_j in x */
    int *off_lam; /* per keyframe: offset of its multiplier (exact), else −1 */
    sp_hohp_state *S, *S_trial;
    double *lam, *lam_trial; /* n_targets x nc */
    double W[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM]; /* n x nc, columns: multiplier directions (y0⊥ on the sphere) */
    /* per block: end state and Jacobian ∂e_j/∂s_j (nz x nz, column c at c·nz) */
    sp_hohp_state *E, *E_trial;
    double *Jb, *Jb_trial;
    double running, running_trial;
    /* banded system */
    int kl, ku;
    sp_band *band;
    double *F, *dx, *dxb, *weight;
    double *rscale;  /* scale of every residual row (optimality residual, LM merit) */
    sp_band_lm *lm;  /* Levenberg–Marquardt steps, allocated when first needed */
    double lm_trial_seconds; /* in the trial sweeps of the last LM step */
    int max_iterations; /* Newton iterations allowed (the problem's unless capped) */
    int kept_factors;   /* the band holds factors taken from another object (sp_ms_take_factors) */
    int band_factored;  /* the band holds LU factors (else J or nothing) */
    int ends_given;     /* E and block_run hold the sweep from S (sp_ms_set_ends) */
    sp_ms_stats stats;
};


/* What the pieces of a sweep share. */
typedef struct sweep_job {
    sp_ms *ms;
    const sp_hohp_state *S;
    sp_hohp_state *E;
    double *J;
    sp_hohp_state *nodes; /* or every node instead of E and J (sp_ms_nodes) */
} sweep_job;

/* Orthonormal basis of the plane ⊥ u (columns a, b). */
void sp_ms_plane_basis(const double *u, double *a, double *b);
/* One step of the plan's scheme in place, with its running cost and, when J is not NULL,
 * the nz tangent columns of J carried along. */
sp_status sp_ms_step(sp_ms *ms, int worker, double h, sp_hohp_state *z, double *running, double *J);
/* The blocks [begin, end) of a sweep_job (an sp_parallel_run piece). */
sp_status sp_ms_sweep_piece(void *ctx, int begin, int end, int worker);
/* Integrates every block from S (and its tangents when J is not NULL) into E, J. */
sp_status sp_ms_sweep(sp_ms *ms, const sp_hohp_state *S, sp_hohp_state *E, double *J, double *running);
/* Kick κ at keyframe i reached at g (σ > 0) and its Jacobian K (n x n, row-major). */
void sp_ms_kick(const sp_ms *ms, size_t i, const double *g, double *kappa, double *K);
/* The multiplier kick W λ_i (exact). */
void sp_ms_multiplier_kick(const sp_ms *ms, const double *lam, size_t i, double *kappa);
/* Residual F of the whole system at (S, λ) with block ends E; with `assemble` also the
 * banded Jacobian from the block Jacobians Jb. Also sets the scale of every row for
 * the optimality residual (returned). */
sp_status sp_ms_system_residual(sp_ms *ms, const sp_hohp_state *S, const double *lam, const sp_hohp_state *E,
                                const double *Jb, double *F, int assemble, double *scaled);
/* Applies x ⊕ αΔx from (S, λ) into (S', λ'). */
void sp_ms_retract(const sp_ms *ms, const sp_hohp_state *S, const double *lam, const double *dx, double alpha,
                   sp_hohp_state *S1, double *lam1);

#endif
