/* The continuous HOHP equations of a Riemannian cubic on a Lie group with a bi-invariant
 * metric, integrated to high order by a Runge–Kutta–Munthe-Kaas (RKMK) method.
 *
 * Between keyframes the optimal curve obeys
 *     ġ = g ξ̂,   ξ̇ = π,   π̇ = −μ,   μ̇ = ad*_ξ μ,
 * (Burnett, Holm & Meier, "Geometric integrators for higher-order mechanics on Lie
 * groups", 2011: the Hamilton–Pontryagin form of ½∫|ξ̇|²), whose θ-family discretisations
 * are sp_hohp.h. This stepper integrates the same equations with an explicit Runge–Kutta
 * table of order p in the chart g = g_k exp(Θ), Θ(0) = 0, where
 *     Θ̇ = dexp⁻¹_{−Θ} ξ = Σ_{j ≤ p−2} (B_j / j!) ad_{−Θ}^j ξ
 * (Bernoulli numbers B_j; the series truncated after order p − 2 keeps the order p:
 * Munthe-Kaas, "High order Runge–Kutta methods on manifolds", Appl. Numer. Math. 29, 1999).
 * The momenta and velocity (ξ, μ, π) live in the algebra and are stepped as vectors.
 * With DOP853's order-8 weights (Hairer, Nørsett & Wanner, Solving ODEs I, §II.10) one
 * step of size h has a local error O(h⁹); on Rⁿ the equations are linear with polynomial
 * solutions of degree 3 and every step is exact.
 *
 * The state is an sp_hohp_state read as (g, ξ, μ, π) in its fields (g, xi, nu, p): the
 * continuous momenta, to which the θ-schemes' node momenta (ν, p) converge. A step
 * also returns the running cost ∫½|π|² over it by the method's own quadrature, and
 * carries tangent vectors (δθ, δξ, δμ, δπ), g perturbed on the right (g → g exp(δθ)),
 * through the exact derivative of the discrete step (the table applied to the
 * variational equations), so that Newton's method on a plan sees the Jacobian of the
 * very map it solves. A step is explicit: it cannot fail but on non-finite numbers. */
#ifndef SP_HOHP_RK_H
#define SP_HOHP_RK_H

#include "integrators/sp_hohp.h"

/* The scheme as problem files name it: "hohp_rkmk8", order 8 (table "dop853"). */
extern const sp_hohp_scheme sp_hohp_scheme_rkmk8;

typedef struct sp_hohp_rk sp_hohp_rk;

/* The stepper on G with the explicit table `table` ("dop853": order 8; "rk4": order 4;
 * sp_tableau.h). NULL for an unknown table or out of memory. */
sp_hohp_rk *sp_hohp_rk_alloc(const sp_group *G, const char *table);
void sp_hohp_rk_free(sp_hohp_rk *s);
int sp_hohp_rk_order(const sp_hohp_rk *s);

/* Most tangent vectors one step carries. */
#define SP_HOHP_RK_MAX_TANGENTS (4 * SP_LIE_MAX_DIM)

/* Advances `in` by h into `out` (may alias `in`). `running` (may be NULL) receives
 * ∫½|π|² over the step. The `count` tangent vectors in dz (4·dim doubles each, one
 * after another; count ≤ SP_HOHP_RK_MAX_TANGENTS) are advanced in place. SP_ERR_NONFINITE
 * leaves `out` and dz untouched. */
sp_status sp_hohp_rk_step(sp_hohp_rk *s, double h, const sp_hohp_state *in, sp_hohp_state *out, double *running,
                          int count, double *dz);

#endif
