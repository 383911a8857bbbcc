/* Feedback integrators for mechanical systems with holonomic constraints (Chang,
 * Perlmutter & Vankerschaver, Sensors 22 (2022) 6487).
 *
 * For a holonomic model (sp_holonomic.h) H = ½ pᵀM⁻¹p + V(q) with constraints g(q) = 0 ∈ Rᵐ,
 * the second-class constraints are φ = (g(q), ψ(q, p)), ψ = G(q) M⁻¹ p. Dirac's formula
 * extends the constrained dynamics from T*Q to all of R²ⁿ (where W = G M⁻¹ Gᵀ is invertible):
 *
 *     ż = X(z) = X_H − Σ_ij X_{φ_i} C^{ij} {φ_j, H},   C_ij = {φ_i, φ_j}.
 *
 * With v = M⁻¹p, S_ab = {ψ_a, ψ_b} = (g''_a v)·M⁻¹G_bᵀ − (g''_b v)·M⁻¹G_aᵀ and
 * c_a = {ψ_a, H} = g''_a[v, v] − (G M⁻¹ ∇V)_a, the blocks of C⁻¹ give the multipliers
 *
 *     μ_ψ = W⁻¹ ψ,   μ_g = W⁻¹ (S μ_ψ − c),
 *     q̇ = M⁻¹p − M⁻¹Gᵀ μ_ψ,   ṗ = −∇V + Gᵀ μ_g + Σ_a μ_ψ,a g''_a v.
 *
 * Every φ_i and H are first integrals of X on all of R²ⁿ (so is any first integral of the
 * constrained system that Poisson-commutes with the constraints, such as L₃ for the
 * spherical pendulum). For the spherical pendulum, g = ½(|q|² − l²), M = mI, this is the
 * field of Chang, Perlmutter & Vankerschaver (2022).
 *
 * The feedback integrator is ż = X(z) − ∇V_fb(z) with
 *
 *     V_fb = ½k₁|s₁ g(q)|² + ½k₂|s₂ ψ(q, p)|² + ½k₃(H − H₀)² + ½k₄(I − I₀)²,
 *
 * I an optional extra first integral given by a callback (L₃ for the pendulum). Since
 * ∇V_fb·X = 0, V̇_fb = −|∇V_fb|² along the flow and {V_fb = 0} attracts. The scales s₁, s₂
 * let V_fb use the normalisation of that paper whatever the model's g: for the pendulum
 * with g = ½(|q|² − l²), s₁ = 2 gives |q|² − l² and s₂ = m gives q·p.
 *
 * sp_feedback_rhs is an ODE callback (sp_explicit_rk.h): feedback + Euler, RK4, DOP853.
 * Explicit steps are stable only for roughly h·4k₁l² < 2. */
#ifndef SP_FEEDBACK_H
#define SP_FEEDBACK_H

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_holonomic.h"

/* An extra first integral I(q, p) with its gradient (∂I/∂q: n entries, then ∂I/∂p: n);
 * grad may be NULL. Returns 0 on success. */
typedef struct sp_first_integral {
    int (*value)(const double *q, const double *p, double *I, double *grad, void *params);
    void *params;
} sp_first_integral;

typedef struct sp_feedback_gains {
    double k1, k2, k3, k4; /* constraint, hidden constraint, energy, extra integral; ≥ 0, 0 omits a term */
    double g_scale;        /* s₁ (0 is read as 1) */
    double hidden_scale;   /* s₂ (0 is read as 1) */
} sp_feedback_gains;

/* Holds the workspace of its evaluations: use one object per thread. */
typedef struct sp_feedback sp_feedback;

/* Borrows the model and the integral (which may be NULL). The reference values H₀, I₀
 * start at 0: set them with sp_feedback_set_reference. NULL for an invalid model, negative
 * or non-finite gains, or out of memory. */
sp_feedback *sp_feedback_alloc(const sp_holonomic_model *model, const sp_feedback_gains *gains,
                               const sp_first_integral *integral);
void sp_feedback_free(sp_feedback *fb);
int sp_feedback_dim(const sp_feedback *fb); /* 2n */

/* Gains may change between steps (then call sp_erk_reset on a stepper that caches F). */
sp_status sp_feedback_set_gains(sp_feedback *fb, const sp_feedback_gains *gains);
sp_feedback_gains sp_feedback_get_gains(const sp_feedback *fb);
/* H₀ = H(z0) and I₀ = I(z0). */
sp_status sp_feedback_set_reference(sp_feedback *fb, const double *z0);
void sp_feedback_set_reference_values(sp_feedback *fb, double H0, double I0);

/* The Dirac-extended field X(z); z = (q, p) and X have 2n entries. SP_ERR_SINGULAR where
 * G M⁻¹ Gᵀ is singular, SP_ERR_CALLBACK when the model fails. */
sp_status sp_feedback_field(sp_feedback *fb, const double *z, double *X);
/* V_fb(z) and ∇V_fb(z) (either may be NULL). */
sp_status sp_feedback_potential(sp_feedback *fb, const double *z, double *V, double *grad);
/* X(z) − ∇V_fb(z). */
sp_status sp_feedback_eval(sp_feedback *fb, const double *z, double *dz);

/* The ODE callback: params is the sp_feedback. Returns 0, 1 where X is undefined
 * (recoverable: an adaptive step retries smaller) or −1 when the model fails. */
int sp_feedback_rhs(const double *z, double *dz, void *params);
/* Without feedback (ż = X): the negative control. */
int sp_feedback_rhs_plain(const double *z, double *dz, void *params);
/* {sp_feedback_rhs or sp_feedback_rhs_plain, 2n, fb}, for sp_erk_alloc. */
sp_ode_system sp_feedback_system(sp_feedback *fb, int with_feedback);

/* The quantities V_fb drives to zero, at z: dev[0] = max_a |s₁ g_a|, dev[1] = max_a |s₂ ψ_a|,
 * dev[2] = H − H₀, dev[3] = I − I₀ (0 without an integral). */
sp_status sp_feedback_deviations(sp_feedback *fb, const double *z, double dev[4]);

#endif
