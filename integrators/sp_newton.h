/* The one nonlinear solver of symplan: Newton's method with LAPACK solves, and the
 * fixed-point iteration some implicit steps prefer, sharing one stopping rule (the guarded
 * fixed point, sp_fixed_point_solve_guarded, has its own).
 *
 * Stopping rule: the update is small, |Δx| ≤ tol·max(1, |x|); or the iteration has
 * stagnated at round-off (the update stopped shrinking while already below
 * 1000·tol·max(1, |x|)). Anything else after max_iter iterations is a failure,
 * reported as SP_ERR_NO_CONVERGENCE. */
#ifndef SP_NEWTON_H
#define SP_NEWTON_H

#include "lie/sp_status.h"

/* Values of sp_newton_options.rate_stop. */
enum { SP_NEWTON_STOP_BY_STEP = 0, SP_NEWTON_STOP_BY_RATE = 1, SP_NEWTON_STOP_BY_QUADRATIC_RATE = 2 };

typedef struct sp_newton_options {
    double tol;      /* relative size of the last update; ~1e-15 for exact adjoints */
    int max_iter;    /* iterations before giving up */
    int warm_start;  /* read by sp_index1.h and sp_nonholonomic.h only: non-zero lets a step
                        start from the last step's extrapolated stages and reuse its factored
                        Jacobian (simplified Newton below); zero, the default, is full Newton
                        from a plain start at every step */
    int rate_stop;   /* non-zero: also stop once the measured rate θ = |Δx_k|/|Δx_{k-1}| bounds
                        the corrections still to come, θ/(1 − θ)|Δx_k|, by tol (one
                        evaluation fewer from a good start); SP_NEWTON_STOP_BY_QUADRATIC_RATE
                        also by θ²|Δx_k| once θ ≤ 0.1, which holds only for Newton with the
                        exact Jacobian (the RATTLE family's multiplier solve sets it) */
    int stale_updates; /* simplified Newton: the price of a fresh factorisation, in updates:
                          factors are refreshed at the current iterate once their measured
                          rate θ predicts more than this many further updates to the
                          tolerance (see sp_newton_solve_simplified); 0 (the default) keeps
                          them while θ < 1/2 and carries them to the next call only if they
                          contracted at θ ≤ 1e-3 */
} sp_newton_options;

/* tol 1e-15 and 50 iterations: what every stepper of symplan starts from, and what a
 * zero sp_hohp_config.solve stands for. */
sp_newton_options sp_newton_options_default(void);

/* Residual r(x) and, when J is not NULL, its row-major n x n Jacobian. A non-zero
 * status aborts the solve and is passed back. */
typedef sp_status (*sp_newton_fn)(void *ctx, const double *x, double *r, double *J);

/* Fixed-point map x ← Φ(x). */
typedef sp_status (*sp_fixed_point_fn)(void *ctx, const double *x, double *x_new);

typedef struct sp_newton sp_newton;

sp_newton *sp_newton_alloc(int n);
void sp_newton_free(sp_newton *w);
int sp_newton_dim(const sp_newton *w);

/* Solves r(x) = 0 from the initial guess in x; on return x holds the last iterate and
 * *iterations (may be NULL) the number of updates taken. */
sp_status sp_newton_solve(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                          int *iterations);
sp_status sp_fixed_point_solve(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x, const sp_newton_options *opt,
                               int *iterations);
/* The fixed point for a caller with another solver to fall back on, with its own stopping
 * rule in place of the shared one (opt->rate_stop is not read). Its updates need not
 * shrink monotonically, so it judges contraction by the mean rate since the first update,
 * θ̄_k = (|Δx_k|/|Δx_1|)^(1/(k−1)), with scale = max(1, |x|):
 *   - converged once θ = max(θ̄_k, |Δx_k|/|Δx_{k−1}|) predicts what is still to come,
 *     θ/(1 − θ)|Δx_k|, below tol·scale/100 (its error has the same sign step after step,
 *     so it is taken well below the tolerance), or once an update did not shrink while
 *     within 10·tol·scale (round-off);
 *   - it gives up (SP_ERR_NO_CONVERGENCE, x at the last iterate) once θ̄_k ≥ 1 (no net
 *     contraction), or, when max_to_go > 0 and k ≥ 3, once θ̄_k predicts more than
 *     max_to_go further updates to tol·scale.
 * *rate (may be NULL) receives the last θ̄ (0 when fewer than two updates were taken). */
sp_status sp_fixed_point_solve_guarded(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x,
                                       const sp_newton_options *opt, int max_to_go, double *rate, int *iterations);

/* The stopping rule above for a solver that runs its own loop (a small system solved in
 * place): non-zero once x, just changed by an update of norm `step`, has converged;
 * `previous` is the norm of the update before (INFINITY after the first). */
int sp_newton_converged(int n, const double *x, double step, double previous, const sp_newton_options *opt);

/* Simplified Newton (Hairer & Wanner, Solving Ordinary Differential Equations II, 2nd ed.,
 * 1996, Sect. IV.8): x ← x − J⁻¹r(x) with one LU factorisation of J kept in w across
 * iterations and across calls, for a sequence of similar systems such as the stage
 * equations of consecutive steps. f is asked for J only when a factorisation is due.
 *
 * The contraction rate θ_k = |Δx_k|/|Δx_{k−1}| is measured at every iteration:
 *   - converged by the shared rule above, or once the predicted distance to the solution
 *     θ/(1 − θ)|Δx| of a linearly converging iteration is within tol·max(1, |x|);
 *   - θ ≥ 1/2: the kept Jacobian is too far off; refactor at the current iterate;
 *   - with opt->stale_updates > 0 (the costed rules): refactor also when the factors would
 *     need more than stale_updates further updates at their rate; factors kept from an
 *     earlier call are judged after the first update by the rate they had when last kept,
 *     and carried to the next call while that rate is below 1/2; a ratio of two updates at
 *     the round-off floor (within 1000 tol) is noise and judges nothing; an update that fell
 *     from a full Newton step to within 10 tol at a ratio below 1e-3 ends the solve;
 *   - the rate of the update after a fresh factorisation (a full Newton step) is not used
 *     for the error estimate: it says how well that step did, not how the kept factors
 *     contract;
 *   - a kept factorisation from an earlier call that diverges (θ ≥ 1), fails or runs out
 *     of iterations: restart from the initial guess with a fresh Jacobian, with max_iter
 *     iterations of its own, before reporting failure.
 * A failed solve drops the factorisation. *iterations counts every update taken. */
sp_status sp_newton_solve_simplified(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                                     int *iterations);
/* Drops the kept factorisation: the next simplified solve factors afresh. */
void sp_newton_forget_jacobian(sp_newton *w);
/* LU factorisations of the last solve (either kind; sp_fixed_point_solve takes none). */
int sp_newton_factorizations(const sp_newton *w);

#endif
