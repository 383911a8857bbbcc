/* Nonholonomic models on Lie groups for integrators/sp_nh_lie.h.
 *
 * Chaplygin sleigh on SE(2). A rigid body in the plane resting on a knife edge at the
 * contact point (x, y), with its mass centre at distance a along the body axis; the
 * knife edge cannot slide sideways. The configuration is g = [[R(θ), (x, y)], [0, 1]]
 * (lie/se2.c), the body velocity ξ = g⁻¹ġ = (θ̇, v_x, v_y) with (v_x, v_y) = R(θ)ᵀ(ẋ, ẏ)
 * the velocity of the contact point in the body frame, and
 *
 *     ℓ(g, ξ) = ½ ξᵀ 𝕀 ξ − V(g),   𝕀 = [[I + m a², 0, m a], [0, m, 0], [m a, 0, m]],
 *     constraint  v_y = 0          (α = (0, 0, 1), constant in the body frame),
 *
 * with I the moment of inertia about the mass centre. An optional slope tilts the plane
 * so that gravity pulls along +x: V = −m·slope·x, f(g) = (0, −m·slope·R₀₀, −m·slope·R₀₁).
 * slope = 0 is the chaplygin_sleigh of sp_nh_models.h (m = 1, a = 0.5, I = 0.3); a = 0, m = I = 1,
 * slope = 1 is its knife_edge on an inclined plane (exact solution there).
 *
 * The coordinate picture (chaplygin_sleigh of sp_nh_models.h): q = (x, y, θ), p = M(θ) q̇ with
 *     M(θ) = [[m, 0, −m a sin θ], [0, m, m a cos θ], [−m a sin θ, m a cos θ, I + m a²]],
 * μ(q) = (−sin θ, cos θ, 0). With B(θ) = [[0, 0, 1], [cos θ, sin θ, 0], [−sin θ, cos θ, 0]]
 * (orthogonal) ξ = B q̇, M = Bᵀ 𝕀 B, the body momentum is π = 𝕀ξ = B p, and the
 * multipliers of the two pictures coincide (μ(q) = α B).
 *
 * Suslov problem on SO(3). A rigid body with principal moments J (body frame) whose
 * angular velocity Ω = J⁻¹π must stay orthogonal to a body-fixed vector e: ⟨e, Ω⟩ = 0
 * (α = eᵀ, m = 1), no potential. Energy ½⟨π, Ω⟩ is conserved. */
#ifndef SP_NH_LIE_MODELS_H
#define SP_NH_LIE_MODELS_H

#include "integrators/sp_nh_lie.h"

typedef struct sp_sleigh_se2 {
    double m;     /* mass (> 0) */
    double a;     /* offset of the mass centre along the body axis */
    double I;     /* moment of inertia about the mass centre (> 0) */
    double slope; /* g sin(incline) along +x; 0 for a level plane */
} sp_sleigh_se2;

/* Fills *model (group SE(2), m = 1, `sleigh` as params, which must outlive it).
 * SP_ERR_INVALID for NULL or non-finite data, m ≤ 0 or I ≤ 0. */
sp_status sp_sleigh_se2_model(const sp_sleigh_se2 *sleigh, sp_nh_lie_model *model);
/* The body inertia 𝕀 (3x3 row-major) and the coordinate mass matrix M(θ) above. */
void sp_sleigh_se2_inertia(const sp_sleigh_se2 *sleigh, double *Ib);
void sp_sleigh_se2_mass_matrix(const sp_sleigh_se2 *sleigh, double theta, double *M);

/* (q, p) = ((x, y, θ), M(θ)q̇) ↦ (g, π) = ([[R(θ), (x, y)], [0, 1]], B(θ) p), and back,
 * with θ = atan2(R₁₀, R₀₀) + 2πk the angle closest to theta_hint (pass the previous θ
 * of a trajectory to unwrap it). */
void sp_sleigh_se2_from_coordinates(const double *q, const double *p, double *g, double *mu);
void sp_sleigh_se2_to_coordinates(const double *g, const double *mu, double theta_hint, double *q, double *p);

typedef struct sp_suslov {
    double J[3]; /* principal moments of inertia (> 0) */
    double e[3]; /* the body-fixed vector orthogonal to Ω (≠ 0) */
} sp_suslov;

/* Fills *model (group SO(3), diagonal inertia J, m = 1, `suslov` as params, which must
 * outlive it). SP_ERR_INVALID for NULL or non-finite data, J ≤ 0 or e = 0. */
sp_status sp_suslov_model(const sp_suslov *suslov, sp_nh_lie_model *model);

#endif
