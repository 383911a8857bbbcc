/* Mechanical systems with holonomic constraints g(q) = 0 (Barbero Liñán,
 * Martín de Diego & Sato Martín de Almagro, arXiv:2306.06786, 2023):
 *
 *     H = ½ pᵀM⁻¹p + V(q),   g(q) = 0 ∈ Rᵐ,   G = Dg,
 *
 * on T*Q = {g(q) = 0, G(q)M⁻¹p = 0}. The methods here keep both the constraint and the
 * hidden constraint to round-off at every step and are symplectic on T*Q:
 *
 *   se_a    constrained symplectic Euler A (kick, drift, project), order 1
 *   se_b    its adjoint B (drift, kick, project), order 1
 *   se_ab   SE-B(h/2) ∘ SE-A(h/2), symmetric, order 2
 *   rattle  RATTLE, symmetric, order 2
 *   shake   SHAKE (two-step positions, started by one RATTLE step), order 2
 *   rattle_tj4, rattle_suzuki5, rattle_tj6
 *           symmetric compositions of RATTLE (triple jump and Suzuki's 5-stage, order 4;
 *           triple jump of the triple jump, order 6), coefficients as data;
 *   rattle_kl8, rattle_kl10
 *           Kahan & Li's symmetric compositions with 17 stages (order 8) and 35 stages
 *           (order 10), Math. Comp. 66 (1997).
 *   lobatto3, lobatto4, lobatto5
 *           the Lobatto IIIA–IIIB partitioned Runge–Kutta methods with 3, 4, 5 stages (Jay,
 *           SIAM J. Numer. Anal. 33, 1996), symmetric, orders 4, 6, 8 (sp_hol_lobatto.h).
 *
 * A model is given by callbacks that return 0 on success. */
#ifndef SP_HOLONOMIC_H
#define SP_HOLONOMIC_H

#include <stddef.h>

#include "integrators/sp_newton.h"

#define SP_HOL_MAX_N 16
#define SP_HOL_MAX_M 8

typedef struct sp_holonomic_model {
    int n, m;
    const double *mass; /* diagonal of the constant mass matrix (n entries, > 0) */
    /* V(q), ∇V (n), ∇²V (n x n); any output may be NULL. NULL callback: V = 0. */
    int (*potential)(const double *q, double *V, double *grad, double *hess, void *params);
    /* g(q) (m), G = Dg (m x n, row-major), d2g[(j n + k) n + l] = ∂²g_j/∂q_k∂q_l; any output may be NULL. */
    int (*constraints)(const double *q, double *g, double *G, double *d2g, void *params);
    void *params;
    /* A full constant mass matrix instead of `mass` (n x n, row-major, symmetric positive
     * definite), or NULL: M is the diagonal `mass`. Last, so that initialisers written
     * before it existed keep their meaning. */
    const double *mass_matrix;
} sp_holonomic_model;

/* A method: one of the base maps, composed with the coefficients γ (steps γ_i h).
 * SP_HOL_LOBATTO is Lobatto IIIA–IIIB with order/2 + 1 stages. */
typedef enum { SP_HOL_SE_A, SP_HOL_SE_B, SP_HOL_SE_AB, SP_HOL_RATTLE, SP_HOL_SHAKE, SP_HOL_LOBATTO } sp_holonomic_base;

typedef struct sp_holonomic_method {
    const char *name;
    sp_holonomic_base base;
    int order;
    size_t stages;        /* number of composition coefficients (1: the base map itself) */
    const double *gamma;
} sp_holonomic_method;

const sp_holonomic_method *sp_holonomic_method_by_name(const char *name);
const sp_holonomic_method *sp_holonomic_method_at(size_t i);

typedef struct sp_holonomic sp_holonomic;

/* Borrows the model. NULL on an invalid model or out of memory. */
sp_holonomic *sp_holonomic_alloc(const sp_holonomic_model *model, const sp_holonomic_method *method);
void sp_holonomic_free(sp_holonomic *s);
void sp_holonomic_set_options(sp_holonomic *s, const sp_newton_options *opt); /* default 1e-15, 50 */

/* One step of size h (negative allowed; 0 is the identity), in place on (q, p). A failed
 * solve returns its status and leaves (q, p) untouched (SP_ERR_INVALID for a non-finite h).
 * SHAKE remembers the previous position between calls and returns the half-step momentum
 * M(q_{n+1} − q_n)/h, which is not tangent to T*Q. Every method remembers G and ∇V at the
 * position its last step ended on, for the step that starts there, and the last multiplier
 * as the next solve's start; sp_holonomic_reset forgets all of it (call it after changing
 * the model's parameters). */
sp_status sp_holonomic_step(sp_holonomic *s, double h, double *q, double *p);
void sp_holonomic_reset(sp_holonomic *s);
int sp_holonomic_iterations(const sp_holonomic *s); /* Newton iterations of the last step */

/* The projection Π_q(p) = p − Gᵀν with G M⁻¹ Π_q(p) = 0, in place. */
sp_status sp_holonomic_project(sp_holonomic *s, const double *q, double *p);
/* max |g(q)| and max |G(q) M⁻¹ p| at (q, p). */
sp_status sp_holonomic_residuals(sp_holonomic *s, const double *q, const double *p, double *position,
                                 double *hidden);
/* M⁻¹x for a model's mass matrix, diagonal or full (out may not alias x);
 * SP_ERR_SINGULAR when a full M is not positive definite. */
sp_status sp_holonomic_apply_minv(const sp_holonomic_model *model, const double *x, double *out);
/* H(q, p) = ½ pᵀM⁻¹p + V(q). */
sp_status sp_holonomic_energy(sp_holonomic *s, const double *q, const double *p, double *H);

#endif
