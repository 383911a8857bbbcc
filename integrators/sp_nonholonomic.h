/* Lobatto IIIA–IIIB partitioned Runge–Kutta methods for nonholonomic mechanical systems
 * (Martín de Diego & Sato Martín de Almagro; docs/methods.md §6.1–6.4): a Hamiltonian
 * H(q, p) with m linear velocity constraints, stepped in place on (q, p, λ) with s = 2, 3, 4
 * stages, order 2s − 2, the constraint kept at every stage and step point.
 * The stepper borrows the model and owns its work space; a step solves the stage system by
 * the shared Newton solver (sp_newton.h) with the analytic Jacobian and allocates nothing.
 * Two variants exist for comparison only:
 *   SP_NH_LAMBDA_RECOMPUTE   Λ_1 = λ(q_k, p_k) at every step (not symmetric);
 *   SP_NH_PLACE_IIIB         the constraint on the IIIB momenta (order s − 1).
 * Failures come back as a status and leave the caller's state untouched:
 *   SP_ERR_NO_CONVERGENCE   Newton did not converge;
 *   SP_ERR_SINGULAR         a singular Newton matrix or Ψ_p μᵀ (rank-deficient constraints);
 *   SP_ERR_NONFINITE        a non-finite iterate or result;
 *   SP_ERR_CALLBACK         a model callback returned non-zero;
 *   SP_ERR_INVALID          bad arguments (h = 0 or not finite, NULL where required). */
#ifndef SP_NONHOLONOMIC_H
#define SP_NONHOLONOMIC_H

#include "integrators/sp_newton.h"

/* Larger models are refused (the model-level helpers keep their scratch on the stack). */
#define SP_NH_MAX_N 12
#define SP_NH_MAX_M 6
/* Stages: s = 2 … SP_NH_MAX_STAGES (orders 2 … 10). */
#define SP_NH_MIN_STAGES 2
#define SP_NH_MAX_STAGES 6

/* Where a Hamiltonian callback writes; any pointer may be NULL (not wanted). Matrices are
 * n x n, row-major: Hqq[i n + j] = ∂²H/∂q_i∂q_j, Hqp[i n + j] = ∂²H/∂q_i∂p_j,
 * Hpp[i n + j] = ∂²H/∂p_i∂p_j. */
typedef struct sp_nh_hamiltonian_out {
    double *H;
    double *Hq, *Hp;
    double *Hqq, *Hqp, *Hpp;
} sp_nh_hamiltonian_out;

/* A nonholonomic model. Callbacks return 0 on success and anything else on failure
 * (reported as SP_ERR_CALLBACK). */
typedef struct sp_nh_model {
    int n, m; /* configuration dimension, number of constraints (1 ≤ m < n) */
    int (*hamiltonian)(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params);
    /* μ(q) (m x n, row-major) and dmu[(a n + i) n + k] = ∂μ_ai/∂q_k; either may be NULL. */
    int (*constraints)(const double *q, double *mu, double *dmu, void *params);
    void *params;
} sp_nh_model;

/* ---- Model-level helpers (no allocation; the model must satisfy the size limits). ---- */

/* H(q, p). */
sp_status sp_nh_energy(const sp_nh_model *model, const double *q, const double *p, double *H);
/* Ψ(q, p) = μ(q) H_p(q, p) (m values). */
sp_status sp_nh_constraint(const sp_nh_model *model, const double *q, const double *p, double *psi);
/* max_a |Ψ_a(q, p)| into *residual. */
sp_status sp_nh_constraint_residual(const sp_nh_model *model, const double *q, const double *p, double *residual);
/* The continuous multiplier λ(q, p) = (Ψ_p μᵀ)⁻¹ (Ψ_p H_q − Ψ_q H_p) (m values); SP_ERR_SINGULAR when
 * Ψ_p μᵀ = μ H_pp μᵀ is singular. */
sp_status sp_nh_multiplier(const sp_nh_model *model, const double *q, const double *p, double *lam);
/* The index-reduced ODE ẏ = (H_p, −H_q + μᵀλ(q, p)), y = (q, p), as an sp_ode_fn of
 * sp_explicit_rk.h with params = (sp_nh_model *): the non-geometric baseline (RK4 on it
 * drifts off the constraint). Returns 0, or −1 on any failure. */
int sp_nh_reduced_field(const double *y, double *dy, void *model);

/* ---- The stepper. ---- */

typedef enum {
    SP_NH_PLACE_IIIA = 0, /* the method: constraint on the IIIA momenta p̃^i (default) */
    SP_NH_PLACE_IIIB = 1  /* negative control: constraint on the IIIB momenta P_i */
} sp_nh_placement;

typedef enum {
    SP_NH_LAMBDA_CARRY = 0,    /* Λ_1 = the λ passed in (the last Λ_s): symmetric (default) */
    SP_NH_LAMBDA_RECOMPUTE = 1 /* Λ_1 = λ(q_k, p_k) every step: energy drifts */
} sp_nh_lambda1;

typedef struct sp_nh_options {
    sp_nh_placement placement;
    sp_nh_lambda1 lambda1;
    sp_newton_options newton; /* default tol 1e-15, 50 iterations, warm_start off,
                                 stale_updates 6 (used with warm_start only) */
} sp_nh_options;

sp_nh_options sp_nh_options_default(void);

typedef struct sp_nh sp_nh;

/* An s-stage stepper (s = 2 … 6; order 2s − 2) for `model`, which it borrows and which
 * must outlive it. opt may be NULL (defaults). NULL for an invalid model (sizes, missing
 * callbacks), an unavailable s, or out of memory. */
sp_nh *sp_nh_alloc(const sp_nh_model *model, int stages, const sp_nh_options *opt);
void sp_nh_free(sp_nh *s); /* NULL is a no-op */
int sp_nh_stages(const sp_nh *s);
int sp_nh_order(const sp_nh *s); /* 2s − 2 for the IIIA placement */
sp_nh_options sp_nh_get_options(const sp_nh *s);

/* One step of size h (either sign), in place: (q, p, lam) ← (q', p', Λ_s). lam (m values)
 * holds Λ_1 on entry; with SP_NH_LAMBDA_RECOMPUTE it is ignored on entry and may be NULL
 * (then only q, p advance); with SP_NH_PLACE_IIIB, Λ_1 is an unknown and lam only seeds
 * Newton. On failure q, p and lam are untouched.
 * By default Newton starts every stage at (q, p, Λ_1) with a fresh Jacobian at every
 * iteration; with opt.newton.warm_start a step that continues the last successful one
 * starts from its extrapolation and solves by simplified Newton (docs/methods.md §6.3),
 * falling back to the plain start. Either way the stages are converged to the tolerance
 * of the options. */
sp_status sp_nh_step(sp_nh *s, double h, double *q, double *p, double *lam);

/* What the last successful step left. */
typedef struct sp_nh_step_info {
    int iterations;          /* Newton iterations */
    int factorizations;      /* LU factorisations of the Newton matrix */
    double stage_residual;   /* max_{i,a} |Ψ_a(Q_i, p̃^i)| over i = 1..s and over (q', p') */
    double iiib_residual;    /* max_{i,a} |Ψ_a(Q_i, P_i)|, i = 1..s (not zero: a diagnostic) */
} sp_nh_step_info;
sp_nh_step_info sp_nh_last_step(const sp_nh *s);

/* The stage values of the last successful step, each s x n (Lambda: s x m), row i for
 * stage i; any pointer may be NULL. SP_ERR_INVALID before the first successful step. */
sp_status sp_nh_last_stages(const sp_nh *s, double *Q, double *P, double *Ptilde, double *Lambda);

/* ---- The stage equations themselves, for checks. ----
 * The unknowns are x = (Q_2..Q_s, P_1..P_s, Λ_k0..Λ_s) with k0 = 2 for the IIIA placement
 * and 1 for the IIIB one; sp_nh_unknowns() tells their number. sp_nh_stage_system
 * evaluates the residual r(x) of the step from (q, p) with Λ_1 = lam (ignored for IIIB)
 * and, when J is not NULL, its analytic Jacobian (row-major). */
int sp_nh_unknowns(const sp_nh *s);
sp_status sp_nh_stage_system(sp_nh *s, double h, const double *q, const double *p, const double *lam,
                             const double *x, double *r, double *J);

#endif
