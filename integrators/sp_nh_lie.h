/* Lobatto IIIA–IIIB nonholonomic integrators on Lie groups (the RKMK form of
 * sp_nonholonomic.h; docs/methods.md §6.5): a system on G × g* with linear constraints on the
 * body velocity, stepped in place on (g, μ, λ) with s = 2, 3, 4 stages, order 2s − 2.
 * The stepper borrows the model and the retraction and owns its work space; a step solves the
 * stage system by the shared Newton solver (sp_newton.h) and allocates nothing.
 * Failures come back as a status and leave the caller's state untouched:
 *   SP_ERR_NO_CONVERGENCE   Newton (or the inversion of a nonlinear 𝕁) did not converge;
 *   SP_ERR_SINGULAR         a singular Newton matrix or α 𝕁⁻¹ αᵀ;
 *   SP_ERR_NONFINITE        a non-finite iterate or result;
 *   SP_ERR_CALLBACK         a model callback returned non-zero;
 *   SP_ERR_INVALID          bad arguments (h = 0 or not finite, NULL where required). */
#ifndef SP_NH_LIE_H
#define SP_NH_LIE_H

#include "integrators/sp_newton.h"
#include "lie/sp_lie.h"

#define SP_NH_LIE_MIN_STAGES 2
#define SP_NH_LIE_MAX_STAGES 4

/* A nonholonomic model on G × g*. Callbacks return 0 on success and anything else on
 * failure (reported as SP_ERR_CALLBACK); any output pointer they get may be NULL (not
 * wanted). */
typedef struct sp_nh_lie_model {
    const sp_group *group;
    int m; /* number of constraints, 1 ≤ m < group->dim */
    /* The inertia: a diagonal 𝕁 (dim entries > 0; μ = 𝕁ξ), used when `inertia` is NULL,
     * or μ = 𝕁(ξ) with its Jacobian D𝕁(ξ) (dim x dim, row-major), which must be
     * invertible. The energy functions assume a linear 𝕁 (T = ½⟨𝕁ξ, ξ⟩). */
    const double *inertia_diag;
    int (*inertia)(const double *xi, double *mu, double *dmu, void *params);
    /* V(g) and its left-trivialised gradient f(g) (dim). NULL: V = 0. */
    int (*potential)(const double *g, double *V, double *f, void *params);
    /* α(g) (m x dim, row-major): the constraints ⟨α_a(g), ξ⟩ = 0. dalpha, needed only by
     * sp_nh_lie_multiplier: dalpha[(a·dim + i)·dim + k] = d/dε α_ai(g exp(ε e_k)) at 0. */
    int (*constraints)(const double *g, double *alpha, double *dalpha, void *params);
    void *params;
} sp_nh_lie_model;

/* ---- Model-level helpers (no allocation). ---- */

/* ξ = 𝕁⁻¹(μ) (Newton from xi_guess, or from 0 when xi_guess is NULL, for a callback 𝕁). */
sp_status sp_nh_lie_velocity(const sp_nh_lie_model *model, const double *mu, const double *xi_guess, double *xi);
/* E = ½⟨μ, 𝕁⁻¹μ⟩ + V(g) (linear 𝕁). */
sp_status sp_nh_lie_energy(const sp_nh_lie_model *model, const double *g, const double *mu, double *E);
/* ψ(g, μ) = α(g) 𝕁⁻¹(μ) (m values), and its max-abs. */
sp_status sp_nh_lie_constraint(const sp_nh_lie_model *model, const double *g, const double *mu, double *psi);
sp_status sp_nh_lie_constraint_residual(const sp_nh_lie_model *model, const double *g, const double *mu,
                                        double *residual);
/* The continuous multiplier of the hidden constraint d/dt ψ = 0 (m values):
 *     λ = (α D𝕁⁻¹ αᵀ)⁻¹ [α D𝕁⁻¹ (f(g) − ad*_ξ μ) − (Dα[ξ]) ξ],   ξ = 𝕁⁻¹(μ),
 * with (Dα[ξ])_ai = Σ_k dalpha[(a·dim + i)·dim + k] ξ_k. SP_ERR_SINGULAR when
 * α D𝕁⁻¹ αᵀ is singular. */
sp_status sp_nh_lie_multiplier(const sp_nh_lie_model *model, const double *g, const double *mu, double *lam);

/* ---- The stepper. ---- */

typedef enum {
    SP_NH_LIE_LAMBDA_CARRY = 0,    /* Λ_1 = the λ passed in (the last Λ_s): as on vector spaces, default */
    SP_NH_LIE_LAMBDA_RECOMPUTE = 1 /* Λ_1 = sp_nh_lie_multiplier(g_k, μ_k): for long runs */
} sp_nh_lie_lambda1;

typedef struct sp_nh_lie_options {
    sp_nh_lie_lambda1 lambda1;
    sp_newton_options newton; /* default tol 1e-15, 50 iterations, warm_start off,
                                 stale_updates 12 (used with warm_start only) */
} sp_nh_lie_options;

sp_nh_lie_options sp_nh_lie_options_default(void);

typedef struct sp_nh_lie sp_nh_lie;

/* An s-stage stepper (s = 2, 3, 4; order 2s − 2) for `model` with the retraction
 * (sp_retraction_by_name("cayley" / "exp")); both are borrowed and must outlive it. opt
 * may be NULL (defaults). NULL for an invalid model (no group, sizes beyond
 * SP_LIE_MAX_DIM / SP_LIE_MAX_ELEM, m outside 1..dim−1, no constraints callback, no or
 * non-positive inertia), a NULL retraction, an unavailable s, or out of memory. */
sp_nh_lie *sp_nh_lie_alloc(const sp_nh_lie_model *model, const sp_retraction *retraction, int stages,
                           const sp_nh_lie_options *opt);
void sp_nh_lie_free(sp_nh_lie *s); /* NULL is a no-op */
int sp_nh_lie_stages(const sp_nh_lie *s);
int sp_nh_lie_order(const sp_nh_lie *s); /* 2s − 2 */
sp_nh_lie_options sp_nh_lie_get_options(const sp_nh_lie *s);
void sp_nh_lie_set_options(sp_nh_lie *s, const sp_nh_lie_options *opt);

/* One step of size h (either sign), in place: (g, μ, λ) ← (g_k τ(ξ̄), μ̃_s, Λ_s); g has
 * elem_size doubles, μ dim, λ m. λ holds Λ_1 on entry (with SP_NH_LIE_LAMBDA_RECOMPUTE it
 * is ignored on entry and may be NULL). On failure g, μ and λ are untouched. */
sp_status sp_nh_lie_step(sp_nh_lie *s, double h, double *g, double *mu, double *lam);
/* Forgets the last step: the next one starts from the plain guess, as the first does. */
void sp_nh_lie_reset(sp_nh_lie *s);

/* What the last successful step left. */
typedef struct sp_nh_lie_step_info {
    int iterations;        /* Newton iterations (from both starts, when the prediction failed) */
    int jacobians;         /* finite-difference Jacobians (2 · unknowns evaluations each) */
    double stage_residual; /* max_{i,a} |⟨α_a(g^i), 𝕁⁻¹(μ̃_i)⟩| over i = 1..s (μ̃_s = μ_{k+1}) */
} sp_nh_lie_step_info;
sp_nh_lie_step_info sp_nh_lie_last_step(const sp_nh_lie *s);

/* The stage values of the last successful step, row i for stage i: g^i (s x elem_size),
 * the IIIA momenta μ̃_i (s x dim), the body velocities V^i (s x dim) and Λ_i (s x m);
 * any pointer may be NULL. SP_ERR_INVALID before the first successful step. */
sp_status sp_nh_lie_last_stages(const sp_nh_lie *s, double *g_stages, double *mu_tilde, double *velocity,
                                double *Lambda);

/* The stage system itself, for checks: the unknowns x = (η_1..η_s, Λ_2..Λ_s)
 * (sp_nh_lie_unknowns() of them) and the residual r(x) of the step of size h from
 * (g, μ) with Λ_1 = lam. */
int sp_nh_lie_unknowns(const sp_nh_lie *s);
sp_status sp_nh_lie_stage_system(sp_nh_lie *s, double h, const double *g, const double *mu, const double *lam,
                                 const double *x, double *r);

#endif
