/* RATTLE on a Lie group (docs/methods.md §5.6): the variational Störmer–Verlet integrator
 * of a left-invariant mechanical system in left trivialisation, state (g, μ) ∈ G × g*, with
 * a retraction τ chosen by name. The implicit velocity equation is solved by the shared
 * Newton solver with the analytic Jacobian. Symplectic, symmetric (for τ(−x) = τ(x)⁻¹),
 * order 2; keeps momentum maps of symmetries of V and, on SO(3), RᵀR = I to round-off.
 * Model callbacks return 0 on success; the stepper borrows the model. */
#ifndef SP_LIE_RATTLE_H
#define SP_LIE_RATTLE_H

#include "integrators/sp_newton.h"
#include "lie/sp_lie.h"

typedef struct sp_lie_rattle_model {
    const sp_group *group;
    /* The inertia: either a diagonal J (dim entries > 0; μ = Jξ), used when `inertia`
     * is NULL, or μ = 𝕁(ξ) with its Jacobian D𝕁(ξ) (dim x dim, row-major; either output
     * may be NULL). A nonlinear 𝕁 must be invertible near the solution. */
    const double *inertia_diag;
    int (*inertia)(const double *xi, double *mu, double *dmu, void *params);
    /* V(g) and the left-trivialised gradient f(g) (dim); either output may be NULL.
     * NULL callback: V = 0 (free motion). */
    int (*potential)(const double *g, double *V, double *f, void *params);
    void *params;
} sp_lie_rattle_model;

typedef struct sp_lie_rattle sp_lie_rattle;

/* Borrows the model and the retraction (sp_retraction_by_name("cayley" / "exp")).
 * NULL on an invalid model (no group, no inertia, non-positive inertia), a NULL
 * retraction, or out of memory. */
sp_lie_rattle *sp_lie_rattle_alloc(const sp_lie_rattle_model *model, const sp_retraction *retraction);
void sp_lie_rattle_free(sp_lie_rattle *s);
void sp_lie_rattle_set_options(sp_lie_rattle *s, const sp_newton_options *opt); /* default 1e-15, 50 */

/* One step of size h (negative allowed), in place on (g, μ) (elem_size and dim
 * doubles). A failure (Newton, a callback, a non-finite value) returns its status and
 * leaves (g, μ) untouched. The stepper remembers the force at the configuration its last
 * step ended on, for the step that starts there: a model whose parameters change needs a
 * new stepper. */
sp_status sp_lie_rattle_step(sp_lie_rattle *s, double h, double *g, double *mu);
/* Newton iterations and the algebra velocity ξ of the last successful step. */
int sp_lie_rattle_iterations(const sp_lie_rattle *s);
void sp_lie_rattle_velocity(const sp_lie_rattle *s, double *xi);

/* The residual F(ξ) = 𝕁(ξ) − dτ_{hξ}ᵀ r the step solves and, when K is not NULL, its
 * Jacobian (dim x dim, row-major); exposed for tests and sensitivities. */
sp_status sp_lie_rattle_residual(sp_lie_rattle *s, double h, const double *r, const double *xi, double *F, double *K);

/* E = ½ μᵀJ⁻¹μ + V(g); SP_ERR_INVALID for a model with a nonlinear inertia. */
sp_status sp_lie_rattle_energy(sp_lie_rattle *s, const double *g, const double *mu, double *E);

#endif
