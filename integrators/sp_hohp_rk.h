/* The continuous HOHP equations of a Riemannian cubic on a Lie group with a bi-invariant
 * metric, ġ = g ξ̂, ξ̇ = π, π̇ = −μ, μ̇ = ad*_ξ μ, integrated by an explicit Runge–Kutta–
 * Munthe-Kaas method of order 8 (DOP853's weights; docs/methods.md §2.6).
 * The state is an sp_hohp_state read as (g, ξ, μ, π) in its fields (g, xi, nu, p). A step
 * also returns the running cost ∫½|π|² over it and carries tangent vectors
 * (δθ, δξ, δμ, δπ), g perturbed on the right, through the exact derivative of the discrete
 * step. A step is explicit: it cannot fail but on non-finite numbers. */
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
