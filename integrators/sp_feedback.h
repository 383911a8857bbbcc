/* Feedback integrators for mechanical systems with holonomic constraints (Chang,
 * Perlmutter & Vankerschaver, Sensors 22 (2022) 6487; docs/methods.md §5.8): the
 * constrained dynamics of a holonomic model (sp_holonomic.h) extended to all of R²ⁿ by
 * Dirac's formula, minus the gradient of a feedback potential V_fb that makes the constraint
 * set and the chosen first integrals attracting. sp_feedback_rhs is an ODE callback for
 * sp_explicit_rk.h (Euler, RK4, DOP853); explicit steps are stable only for roughly
 * h·4k₁l² < 2. */
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
