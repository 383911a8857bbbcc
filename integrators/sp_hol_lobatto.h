/* Lobatto IIIA–IIIB for mechanical systems with holonomic constraints (L. O. Jay,
 * "Symplectic partitioned Runge–Kutta methods for constrained Hamiltonian systems", SIAM
 * J. Numer. Anal. 33, 1996; Hairer, Lubich & Wanner, Geometric Numerical Integration, 2nd
 * ed., 2006, Sect. VII.1.4): the stage solver behind the methods lobatto3, lobatto4 and
 * lobatto5 of sp_holonomic.h, for H = ½pᵀM⁻¹p + V(q), g(q) = 0, G = Dg, M constant.
 *
 * With a = Lobatto IIIA, â = Lobatto IIIB (sp_tableau.h), s stages and F_j = ∇V(Q_j) + G(Q_j)ᵀΛ_j:
 *
 *     Q_i = q0 + h Σ_j a_ij M⁻¹P_j,   P_i = p0 − h Σ_j â_ij F_j,   g(Q_i) = 0   (i = 1..s),
 *     q1 = Q_s,   p1 = p0 − h Σ_j b_j F_j,   G(q1) M⁻¹ p1 = 0.
 *
 * IIIA's first row is zero (Q_1 = q0, so g(Q_1) = 0 holds already) and IIIB's last column
 * is zero: Λ_s enters p1 alone, where the hidden constraint fixes it — p1 is the projection
 * of p0 − h Σ_{j<s} b_j F_j − h b_s ∇V(q1) onto the cotangent space at q1. The method is
 * symmetric, symplectic on T*Q, of order 2s − 2, and keeps g = 0 and G M⁻¹p = 0 to the
 * solver tolerance; s = 2 is RATTLE.
 *
 * The stage equations are solved in condensed form. Inserting P_j into Q_i gives
 *
 *     Q_i = q0 + h c_i M⁻¹p0 − Σ_{k<s} d_ik M⁻¹ (h²∇V(Q_k) + G(Q_k)ᵀY_k),   d = a â,
 *
 * with the position corrections Y_k = h²Λ_k (k = 1..s−1; d's last column is zero since
 * â's is): unknowns Q_2..Q_s and Y_1..Y_{s−1}, equations these and g(Q_i) = 0 (i = 2..s),
 * (n + m)(s − 1) in all, solved by the shared Newton solver (sp_newton.h). As for RATTLE's
 * multiplier solve (holonomic.c), Y is a position and is resolved to round-off relative
 * to q whatever h. The Newton matrix takes the curvature terms
 * d_ik M⁻¹(h²∇²V + Σ_a Y_ka ∇²g_a)(Q_k) by forward differences of ∇V and G, so the model's
 * second derivatives (which its callbacks need not provide) are never asked for. Without
 * them the iteration contracts only linearly, at a rate of order (hω)², with rates that
 * vary from one iteration to the next, and the solver's rate-based stop then left errors
 * of 1e-13 in the stages (spherical pendulum, s = 5, h = 0.2: L₃ drifting by 3e-10 over
 * 5000 steps); with them the stages are exact to the tolerance (L₃ to 2e-14).
 *
 * A step that continues the last one (from the state it ended in) starts from the last
 * step's forces and multipliers extrapolated to the new stage times and solves by
 * simplified Newton with one matrix made there; any other step starts from
 * Q_i = q0 + h c_i M⁻¹p0, Y = 0, and solves by full Newton, and so does a step whose
 * prediction led nowhere. The momentum is formed from the model evaluated at the converged
 * stages. Failures come back as a status with (q, p) untouched.
 *
 * Steps beyond hω ≈ 1 may converge to another solution of the stage equations than the
 * one that tends to the flow as h → 0 (spherical pendulum with a full mass matrix,
 * s = 5, h = 0.6: an error of order one, with the constraints kept): no reason to take
 * them with an order-8 method, but nothing detects it. */
#ifndef SP_HOL_LOBATTO_H
#define SP_HOL_LOBATTO_H

#include "integrators/sp_holonomic.h"

#define SP_HOL_LOBATTO_MAX_STAGES 5

typedef struct sp_hol_lobatto sp_hol_lobatto;

/* s = 2..5 stages (order 2s − 2); borrows the model, whose sizes and masses
 * sp_holonomic_alloc checks (positive definiteness of a full M included). NULL for
 * another s, sizes out of range, a missing, non-positive or singular mass, or out of memory. */
sp_hol_lobatto *sp_hol_lobatto_alloc(const sp_holonomic_model *model, int stages);
void sp_hol_lobatto_free(sp_hol_lobatto *L); /* NULL is a no-op */
/* Forgets the last step: the next starts from its own data only. */
void sp_hol_lobatto_reset(sp_hol_lobatto *L);

/* One step of size h (finite, non-zero, either sign) in place on (q, p), with the Newton
 * options opt; *iterations (may be NULL) gets the Newton iterations it took. */
sp_status sp_hol_lobatto_step(sp_hol_lobatto *L, double h, double *q, double *p, const sp_newton_options *opt,
                              int *iterations);

#endif
