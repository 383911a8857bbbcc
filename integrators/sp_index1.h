/* Symplectic Runge–Kutta for index-1 constrained Hamiltonian systems
 * (McLachlan, Modin, Verdier & Wilkins, SIAM J. Sci. Comput. 35 (2013) A2150):
 * s-stage Gauss–Legendre (order 2s) applied to q̇ = H_p, ṗ = −H_q, 0 = H_λ of a
 * vakonomic model, solving the stage values (Q_i, P_i) and stage multipliers Λ_i together
 * by Newton's method with the analytic Jacobian:
 *
 *   Q_i = q0 + h Σ_j a_ij H_p(Q_j, P_j, Λ_j),  P_i = p0 − h Σ_j a_ij H_q(…),  0 = H_λ(Q_i, P_i, Λ_i),
 *   q1  = q0 + h Σ_j b_j H_p(…),               p1  = p0 − h Σ_j b_j H_q(…).
 *
 * The map is symplectic on all of R²ⁿ, keeps linear and quadratic first integrals exactly
 * and Ĥ without drift. The multiplier is not state: λ0 only seeds Newton. */
#ifndef SP_INDEX1_H
#define SP_INDEX1_H

#include "integrators/sp_newton.h"
#include "integrators/sp_tableau.h"
#include "integrators/sp_vakonomic.h"

typedef struct sp_index1 sp_index1;

/* Borrows the model, which must outlive the stepper. NULL on an invalid model, a table
 * that is not available, or out of memory. */
sp_index1 *sp_index1_alloc(const sp_vakonomic_model *model, const sp_tableau *tableau);
void sp_index1_free(sp_index1 *s);
void sp_index1_set_options(sp_index1 *s, const sp_newton_options *opt); /* default tol 1e-15, 50 iterations */

/* How a step solves its stage equations (to the tolerance of the options, whichever):
 *   SP_INDEX1_NEWTON             full Newton from the plain start (q0, p0, λ(q0, p0)), a
 *                                fresh Jacobian at every iteration; the default;
 *   SP_INDEX1_SIMPLIFIED_NEWTON  a step that continues the last one starts from a
 *                                prediction and solves by simplified Newton with a
 *                                factorisation kept from earlier steps while its measured
 *                                contraction allows (sp_newton_solve_simplified); what
 *                                sp_newton_options.warm_start asks for with SP_INDEX1_NEWTON;
 *   SP_INDEX1_FIXED_POINT        from the prediction (or the plain start), the fixed-point
 *                                iteration of the stage equations with every stage's
 *                                multiplier solved from its (Q_i, P_i) at each sweep, which
 *                                needs neither Jacobian nor linear solve of the stage system;
 *                                a sweep that stops contracting (θ ≥ 1: large h, a stiff
 *                                stretch) hands the step to simplified Newton;
 *   SP_INDEX1_AUTO               the fixed point, handing over to simplified Newton as soon
 *                                as its measured rate predicts more sweeps than a step by
 *                                Newton is worth; after a hand-over, a few steps by Newton
 *                                before the fixed point is tried again.
 * The predictive solvers: a step from exactly where the last successful one ended starts
 * from the last step's stage derivatives extrapolated and integrated by the method's own
 * weights (O(h^(s+2)) from the solution); any other step (the first, one after a failure,
 * a jump, one more than twice the last) starts plainly with a fresh Jacobian. They are not
 * the default, with which a step depends on its own data alone. */
typedef enum { SP_INDEX1_NEWTON, SP_INDEX1_SIMPLIFIED_NEWTON, SP_INDEX1_FIXED_POINT, SP_INDEX1_AUTO } sp_index1_solver;
void sp_index1_set_solver(sp_index1 *s, sp_index1_solver solver);

/* One step of size h from (q0, p0) to (q1, p1) (which may alias the inputs); lam1, when
 * not NULL, receives λ(q1, p1). A failed solve returns its status and leaves the outputs
 * untouched. The stages are solved as sp_index1_set_solver chose. */
sp_status sp_index1_step(sp_index1 *s, double h, const double *q0, const double *p0, double *q1, double *p1,
                         double *lam1);
/* Updates of the last step (Newton iterations and fixed-point sweeps), the fixed-point
 * sweeps among them, and its LU factorisations. */
int sp_index1_iterations(const sp_index1 *s);
int sp_index1_sweeps(const sp_index1 *s);
/* How far the last step's start was from its solved stages, max |Δ| over the Q_i and P_i:
 * the error of the prediction on a continued step (NaN after a failed step). */
double sp_index1_start_distance(const sp_index1 *s);
int sp_index1_factorizations(const sp_index1 *s);
/* The exact derivative ∂(q1, p1)/∂(q0, p0) of the last successful step (2n x 2n,
 * row-major), by the implicit function theorem on the converged stage equations. */
sp_status sp_index1_step_jacobian(sp_index1 *s, double *Phi);

#endif
