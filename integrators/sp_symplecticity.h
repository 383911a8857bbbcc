/* The symplecticity defect of a one-step map on a constraint manifold, the one
 * implementation every caller uses (tests, the simulate task of every
 * model kind).
 *
 * For a map Φ on R²ⁿ (z = (q, p), J = [0 I; −I 0]) and a constraint manifold
 * 𝓜 = {C(z) = 0} through z0 with Jacobian DC (k x 2n), take an orthonormal basis U of
 * ker DC(z0) (Gram–Schmidt, twice, of the rows of DC followed by the unit vectors; U = I
 * when k = 0), form DΦ U by central differences,
 *
 *     (DΦ U)_j = [Φ(z0 + ε u_j) − Φ(z0 − ε u_j)] / (2ε),
 *
 * and return δ = ‖(DΦU)ᵀ J (DΦU) − Uᵀ J U‖∞. Maps symplectic on 𝓜 give δ ≈ 1e-11…1e-9
 * with ε = 1e-6; non-symplectic ones δ ≳ 1e-5. The test is meaningful when 𝓜
 * is a symplectic submanifold of (R²ⁿ, J), as T*Q = {g(q) = 0, G(q)M⁻¹p = 0} is. */
#ifndef SP_SYMPLECTICITY_H
#define SP_SYMPLECTICITY_H

#include "integrators/sp_holonomic.h"

/* A one-step map, in place on z (2n numbers); any status but SP_OK ends the measurement
 * with that status. */
typedef sp_status (*sp_step_map)(void *ctx, double *z);

/* The defect δ of `map` at z0 (2n numbers) on ker DC (k x 2n, row-major; k may be 0 and
 * DC NULL), with the difference step eps (≤ 0: 1e-6). `dim` (may be NULL) receives the
 * dimension of the kernel basis found (2n − rank DC). SP_ERR_INVALID for n < 1 or k < 0,
 * SP_ERR_NOMEM, or the map's status. */
sp_status sp_symplecticity_defect(sp_step_map map, void *ctx, int n, const double *z0, int k, const double *DC,
                                  double eps, double *defect, int *dim);

/* DC (2m x 2n, row-major) of C(q, p) = (g(q), G(q)M⁻¹p) for a holonomic model at (q, p):
 * rows [G, 0] and [∂(G M⁻¹p)/∂q, G M⁻¹], the second from the model's d2g. */
sp_status sp_holonomic_manifold_jacobian(const sp_holonomic_model *model, const double *q, const double *p,
                                         double *DC);

#endif
