/* Lobatto IIIA–IIIB nonholonomic integrators on Lie groups: the Runge–Kutta–Munthe-Kaas
 * transposition of the vector-space method of sp_nonholonomic.h (Sato Martín de Almagro &
 * Martín de Diego, "High-order geometric nonholonomic
 * integrators on vector spaces and Lie groups", after Bogfjellmo & Marthinsen's
 * symplectic RKMK methods, Found. Comput. Math. 2016).
 *
 * The system lives on G × g* in left trivialisation: g ∈ G, the body velocity ξ = g⁻¹ġ,
 * the body momentum μ = 𝕁(ξ) = ∂ℓ/∂ξ of ℓ(g, ξ) = T(ξ) − V(g), and m linear constraints
 * on the body velocity, ⟨α_a(g), ξ⟩ = 0 (a = 1..m). With f(g) the left-trivialised
 * gradient of V (⟨f(g), η⟩ = dV(g)·(g η̂)), the Euler–Poincaré–d'Alembert equations are
 *
 *     ġ = g ξ̂,   μ̇ = ad*_ξ μ − f(g) + α(g)ᵀλ,   0 = α(g) ξ,   μ = 𝕁(ξ).
 *
 * Energy is conserved (the constraints are linear and homogeneous).
 *
 * The method (s = 2, 3, 4 stages; a = Lobatto IIIA, b its weights, sp_tableau.h). A
 * retraction τ (exp or Cayley, chosen by name) parametrises the step from g_k:
 * g^i = g_k τ(ξ^i). Write d^Lτ_ξ for the LEFT-trivialised differential of τ
 * (T_ξτ·η = τ(ξ) (d^Lτ_ξ η)^); for τ(−ξ) = τ(ξ)⁻¹ it is the right-trivialised dτ_{−ξ} of
 * sp_lie.h. The unknowns are the algebra velocities η_1..η_s and the multipliers
 * Λ_2..Λ_s; Λ_1 = λ_k is carried over from the previous step. Then
 *
 *     ξ^i = h Σ_j a_ij η_j,   ξ̄ = h Σ_j b_j η_j (= ξ^s),   g^i = g_k τ(ξ^i),   g_{k+1} = g_k τ(ξ̄),
 *     V^i = d^Lτ_{ξ^i} η_i          (the body velocity of stage i),   μ_i = 𝕁(V^i),
 *     F_i = −f(g^i) + α(g^i)ᵀΛ_i     (the force at stage i, body frame),
 *     P_i = (d^Lτ_{ξ^i})ᵀ μ_i,       W_i = (d^Lτ_{ξ^i})ᵀ F_i + ∂_ξ⟨μ_i, d^Lτ_ξ η_i⟩|_{ξ=ξ^i},
 *     (d^Lτ⁻¹_{−ξ̄})ᵀ ν = μ_k + h Σ_j b_j Ad*_{τ(−ξ^j)} F_j,
 *     P_i = ν − h Σ_j (b_j a_ji / b_i) W_j                                  (i = 1..s),
 *     Ad*_{τ(−ξ^i)} μ̃_i = μ_k + h Σ_j a_ij Ad*_{τ(−ξ^j)} F_j,   ⟨α(g^i), 𝕁⁻¹(μ̃_i)⟩ = 0   (i = 2..s),
 *     μ_{k+1} = μ̃_s = (d^Lτ⁻¹_{ξ̄})ᵀ ν,   λ_{k+1} = Λ_s.
 *
 * This is the system of that paper: its ξ_{k,k+1}, ξ^i_k, N^i_k = (d^Lτ_{ξ^i})ᵀ F_i and
 * M^i_k = P_i + h Σ_j (b_j a_ji/b_i) (dd^Lτ_{ξ^j})ᵀ(η_j, P_j), and its carried momentum
 * μ_k (the chart momentum ν of the previous step) enters through the body momentum
 * (d^Lτ⁻¹_{ξ_{k−1,k}})ᵀ μ_k, which is the state kept here. The IIIB stage equations
 * P_i = … are the paper's M-equations, multiplied out, with the ratio a_ji/b_j of its
 * N-term read as a_ji/b_i, as in its own dd-term (b_j a_ji/b_i: the variational, IIIB,
 * coefficient; a_ji/b_j would not reduce to Lobatto IIIB on Rⁿ). The IIIA-type stage
 * momenta μ̃_i (the paper's μ^i_k, on which the constraint is imposed) transport the
 * momentum balance to the frame of g_k with the IIIA coefficients: μ̃_1 = μ_k and
 * μ̃_s = μ_{k+1}, so the constraint holds at every stage AND at every step point (the
 * paper's line for μ^i_k, garbled in its text, would not: on Rⁿ it must reduce to the
 * p̃^i of sp_nonholonomic.h, and this one does). On Rⁿ (τ = +, Ad = I) every line reduces
 * to the vector-space method of sp_nonholonomic.h.
 * Order 2s − 2 in (g, μ).
 *
 * Properties (measured in tests/test_nh_lie.c):
 *  - g stays on the group up to round-off (it is only ever a product of retractions;
 *    SE(2) keeps its last row exactly (0, 0, 1)); the constraint holds to the Newton
 *    tolerance at every stage and step point;
 *  - on an abelian group (Rⁿ) the map (g, μ, λ) ↦ (g', μ', λ') is the vector-space method
 *    and symmetric to round-off. On a non-abelian group it is NOT exactly symmetric: the
 *    RKMK chart is anchored at g_k, and Φ_{−h}∘Φ_h − id on (g, μ) is a local error of
 *    about O(h^(2s)) (so the energy error of long runs can drift, slowly);
 *  - the carried Λ_1 has a parasitic mode: a perturbation δ of Λ_1 returns as Λ_s = ρδ,
 *    ρ = ρ₀(1 + h c) + O(h²), ρ₀ = ±1. On Rⁿ with constant constraints c = 0; on a group
 *    the stage-1 force, applied at g_k and carried to the frame of g_{k+1} by Ad*, gives
 *    (one constraint, α constant in the body frame, linear 𝕁)
 *        c = ⟨𝕁⁻¹αᵀ, ad*_ξ αᵀ⟩ / ⟨α, 𝕁⁻¹αᵀ⟩,
 *    which need not average out: for the Chaplygin sleigh moving forward at speed V,
 *    c = V m a/(I + m a²); for the Suslov body in its final steady rotation c > 0. The
 *    mode then grows like e^(c t) and ruins long runs (the sleigh ends up driving
 *    backwards). SP_NH_LIE_LAMBDA_RECOMPUTE has no such mode (same order, constraint
 *    still exact); use it for long runs on groups.
 *
 * The stage system, (s·dim + (s−1)·m) equations, is solved by the shared Newton solver
 * (sp_newton.h) with a central finite-difference Jacobian (step
 * 1e-7·max(1, |x_j|)), computed at the first iterate of a step and recomputed only when
 * the residual stops falling by a factor 10 (the exact Jacobian would need third
 * derivatives of τ). The initial guess is η_i = 𝕁⁻¹(μ_k), Λ_i = Λ_1, unless the step
 * continues the last one: (g, μ) and the carried λ are bitwise what the last successful
 * step returned. Then (s ≥ 3, |h| at most twice the last step) the last step's body
 * velocities V^i and multipliers Λ_i are extrapolated to the new stage times and the chart
 * velocities η_i follow from V^i (nh_lie.c, predict); if that solve fails, the step starts
 * again from the plain guess.
 * With opt.newton.warm_start a continuing step solves by simplified Newton with the
 * factorised Jacobian kept from earlier steps while its measured contraction makes that
 * cheaper than a fresh one (sp_newton_solve_simplified; opt.newton.stale_updates, 12 by
 * default, prices a fresh Jacobian in updates). Either way the stages are converged to
 * the Newton tolerance.
 *
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
