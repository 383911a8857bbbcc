/* Nonholonomic models on Lie groups for integrators/sp_nh_lie.h: the Chaplygin sleigh on
 * SE(2) (a knife edge with an optional slope) and the Suslov problem on SO(3). Their
 * Lagrangians, constraints and the correspondence with the coordinate sleigh of
 * sp_nh_models.h are in docs/methods.md §6.5. */
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
/* The body inertia 𝕀 (3x3 row-major) and the coordinate sleigh's mass matrix M(θ)
 * (docs/methods.md §6.5). */
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
