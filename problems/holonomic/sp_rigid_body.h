/* The heavy top (a rigid body with a fixed point in a uniform gravity field; the free
 * rigid body when mgl = 0) in two forms:
 *
 *  (a) matrix form: a holonomic model on R⁹ for integrators/sp_holonomic.h, q = vec(Q)
 *      row-major with QᵀQ = I (the 6 independent entries of QᵀQ − I, diagonal ones
 *      halved, in the order (0,0), (1,1), (2,2), (0,1), (0,2), (1,2)), P = Q̇ J_d with
 *      J_d = ½ tr(J) I − J, mass diagonal I₃ ⊗ J_d (entry (i, k) is J_d,k), and
 *      V(Q) = mgl e₃ᵀQχ;
 *  (b) Lie-group form: a model on SO(3) for integrators/sp_lie_rattle.h, state (R, μ)
 *      with μ = Jω the body angular momentum, f(R) = mgl χ × (Rᵀe₃).
 *
 * J = diag(J₁, J₂, J₃) are the principal moments (body frame), χ the body-frame vector
 * from the fixed point to the centre of mass (scaled with mgl), e₃ the vertical. The
 * embedding (R, μ) ↦ (Q, P) = (R, R (J⁻¹μ)^ J_d) links the two; it preserves the
 * pairing tr(PᵀR η̂) = μ·η. */
#ifndef SP_RIGID_BODY_H
#define SP_RIGID_BODY_H

#include "integrators/sp_holonomic.h"
#include "integrators/sp_lie_rattle.h"

typedef struct sp_heavy_top {
    double J[3];   /* principal moments of inertia */
    double mgl;    /* m g ℓ; 0 for the free rigid body */
    double chi[3]; /* centre-of-mass direction in the body frame */
    /* derived by sp_heavy_top_init: */
    double Jd[3];   /* J_d = ½ tr(J) − J (all > 0 for a physical body) */
    double mass[9]; /* the R⁹ mass diagonal: J_d repeated for each row of Q */
} sp_heavy_top;

/* Fills the parameters and derived data. SP_ERR_INVALID for non-finite values or
 * moments that violate the strict triangle inequality (some J_d,k ≤ 0). */
sp_status sp_heavy_top_init(sp_heavy_top *top, const double J[3], double mgl, const double chi[3]);

/* The two models; `top` is their params and must outlive them. */
void sp_heavy_top_matrix_model(const sp_heavy_top *top, sp_holonomic_model *model);
void sp_heavy_top_lie_model(const sp_heavy_top *top, sp_lie_rattle_model *model);

/* Initial states from an attitude R0 (row-major rotation) and body angular velocity ω0:
 * (Q, P) = (R0, R0 ω̂0 J_d) and (R, μ) = (R0, J ω0). */
void sp_heavy_top_matrix_state(const sp_heavy_top *top, const double *R0, const double *omega0, double *q, double *p);
void sp_heavy_top_lie_state(const sp_heavy_top *top, const double *R0, const double *omega0, double *R, double *mu);

/* (R, μ) ↦ (Q, P) = (R, R (J⁻¹μ)^ J_d), and back: R = Q, μ = J vee(QᵀP J_d⁻¹) (the
 * body momentum of a matrix state; exact inverse on T*SO(3)). */
void sp_heavy_top_embed(const sp_heavy_top *top, const double *R, const double *mu, double *q, double *p);
void sp_heavy_top_matrix_to_body(const sp_heavy_top *top, const double *q, const double *p, double *R, double *mu);

/* Energies: ½ tr(P J_d⁻¹ Pᵀ) + mgl e₃ᵀQχ and ½ μᵀJ⁻¹μ + mgl e₃ᵀRχ. */
double sp_heavy_top_matrix_energy(const sp_heavy_top *top, const double *q, const double *p);
double sp_heavy_top_lie_energy(const sp_heavy_top *top, const double *R, const double *mu);

/* The vertical angular momentum (momentum map of rotations about e₃): tr(Pᵀ ê₃ Q) in
 * matrix form, e₃·(Rμ) in Lie form. */
double sp_heavy_top_matrix_vertical_momentum(const double *q, const double *p);
double sp_heavy_top_lie_vertical_momentum(const double *R, const double *mu);

#endif
