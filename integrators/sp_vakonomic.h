/* Mechanical systems with linear velocity constraints treated variationally (vakonomic
 * or sub-Riemannian problems), as index-1 Hamiltonian systems
 * (McLachlan, Modin, Verdier & Wilkins, SIAM J. Sci. Comput. 35 (2013) A2150):
 *
 *     H(q, p, λ) = ½ (p + Gᵀλ)ᵀ M⁻¹ (p + Gᵀλ) + V(q),
 *     q̇ = H_p = M⁻¹(p + Gᵀλ) =: v,   ṗ = −H_q,   0 = H_λ = G(q) v,
 *
 * with (H_q)_k = Σ_j λ_j Σ_i ∂G_ji/∂q_k v_i + ∂V/∂q_k. Since H_λλ = G M⁻¹ Gᵀ is positive
 * definite, λ(q, p) = −(G M⁻¹ Gᵀ)⁻¹ G M⁻¹ p and the reduced Hamiltonian
 * Ĥ(q, p) = H(q, p, λ(q, p)) is a first integral. The momentum convention is
 * p = M q̇ − Gᵀλ.
 *
 * A model is given by callbacks; each returns 0 on success and anything else to
 * report a failure (which solvers pass back as SP_ERR_CALLBACK). */
#ifndef SP_VAKONOMIC_H
#define SP_VAKONOMIC_H

#include "lie/sp_status.h"

/* Sizes above these are refused (they keep per-point scratch on the stack). */
#define SP_VAK_MAX_N 12
#define SP_VAK_MAX_M 6

typedef struct sp_vakonomic_model {
    int n, m;            /* configuration dimension, number of constraints */
    const double *mass;  /* diagonal of the constant mass matrix M (n entries, > 0) */
    /* V(q), ∇V (n) and ∇²V (n x n, row-major); any output may be NULL. NULL callback: V = 0. */
    int (*potential)(const double *q, double *V, double *grad, double *hess, void *params);
    /* G (m x n, rows g_jᵀ), dG[(j n + i) n + k] = ∂G_ji/∂q_k, and
     * d2G[((j n + i) n + k) n + l] = ∂²G_ji/∂q_k∂q_l; any output may be NULL. */
    int (*constraints)(const double *q, double *G, double *dG, double *d2G, void *params);
    void *params;
} sp_vakonomic_model;

/* Everything the Hamiltonian gives at one point (q, p, λ), with the derivatives a
 * Newton solve or a sensitivity needs when asked for. Row-major throughout. */
typedef struct sp_vakonomic_point {
    int n, m;
    double V;
    double *G, *dG, *d2G;    /* model data at q */
    double *v, *Hq, *Hl;     /* H_p = v, H_q, H_λ = G v */
    double *Vq;              /* ∂v/∂q (n x n); ∂v/∂p = M⁻¹, ∂v/∂λ = M⁻¹Gᵀ */
    double *Hqq, *Hqp, *Hql; /* ∂H_q/∂(q, p, λ): n x n, n x n, n x m */
    double *Cq, *Cl;         /* ∂H_λ/∂q (m x n), ∂H_λ/∂λ = G M⁻¹ Gᵀ (m x m); ∂H_λ/∂p = G M⁻¹ */
    double *minv;            /* 1/mass */
    double *scratch;         /* λ·dG, n x n */
} sp_vakonomic_point;

/* NULL when the model is invalid (sizes, masses) or memory runs out. */
sp_vakonomic_point *sp_vakonomic_point_alloc(const sp_vakonomic_model *model);
void sp_vakonomic_point_free(sp_vakonomic_point *pt);

/* Evaluates at (q, p, λ); with `derivatives` also the Jacobian blocks. */
sp_status sp_vakonomic_eval(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q, const double *p,
                            const double *lam, int derivatives);

/* λ(q, p); SP_ERR_SINGULAR if G M⁻¹ Gᵀ is singular (rank-deficient constraints). */
sp_status sp_vakonomic_multiplier(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                  const double *p, double *lam);
/* λ = λ(q, p) and the fields at (q, p, λ) (v, H_q, H_λ; no derivatives) with one call of
 * the model: the right-hand side of the eliminated ODE q̇ = v, ṗ = −H_q. */
sp_status sp_vakonomic_eval_reduced(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                    const double *p, double *lam);
/* Ĥ(q, p), and (when not NULL) λ(q, p) and the velocity v(q, p). */
sp_status sp_vakonomic_hamiltonian(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                   const double *p, double *H, double *lam, double *v);

#endif
