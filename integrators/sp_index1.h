/* Symplectic Runge–Kutta for index-1 constrained Hamiltonian systems
 * (McLachlan, Modin, Verdier & Wilkins, SIAM J. Sci. Comput. 35 (2013) A2150): s-stage
 * Gauss–Legendre (order 2s) on q̇ = H_p, ṗ = −H_q, 0 = H_λ of a vakonomic model, the stage
 * values and stage multipliers solved together by Newton's method with the analytic
 * Jacobian (the stage equations: docs/methods.md §4.2). Symplectic on R²ⁿ, keeps linear
 * and quadratic first integrals exactly and Ĥ without drift. The multiplier is not state.
 * The stepper borrows the model and owns its work space. */
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

/* How a step solves its stage equations; every choice converges to the same solution
 * within the tolerance of the options (how each works, and its prediction of a continued
 * step: docs/methods.md §4.2):
 *   SP_INDEX1_NEWTON             full Newton from the plain start, a fresh Jacobian at
 *                                every iteration; the default, with which a step depends
 *                                on its own data alone (also what warm_start asks for);
 *   SP_INDEX1_SIMPLIFIED_NEWTON  a continued step from a prediction, by simplified Newton
 *                                with a factorisation kept while it contracts;
 *   SP_INDEX1_FIXED_POINT        the fixed-point iteration of the stage equations, handing
 *                                a step it cannot contract to simplified Newton;
 *   SP_INDEX1_AUTO               the fixed point, handed over to simplified Newton as soon
 *                                as its measured rate makes Newton cheaper.
 * A step continues the last one when it starts exactly where the last successful one
 * ended and is at most twice as long; any other starts plainly with a fresh Jacobian. */
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
