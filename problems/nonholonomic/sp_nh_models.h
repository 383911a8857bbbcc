/* Nonholonomic models known by name: their coordinates,
 * parameters, Hamiltonian and constraint callbacks, mass matrix, declared first integrals,
 * default initial data and, where one is known, the exact solution. Each is a
 * constant table; a problem holds the parameter values, and sp_nh_model_bind() turns both
 * into the callback model of integrators/sp_nonholonomic.h.
 *
 *   knife_edge          q = (x, y, phi); params m, J, g_sin_alpha (1, 1, 1);
 *                       H = (p_x² + p_y²)/2m + p_phi²/2J − m g sin α x, μ = (sin φ, −cos φ, 0).
 *   rolling_disk        q = (x, y, phi, theta); params R, m, I_flip, I_roll (1, 1, 1, 1);
 *                       H = p_x²/2m + p_y²/2m + p_phi²/2I_flip + p_theta²/2I_roll,
 *                       μ = [1 0 0 −R cos φ; 0 1 0 −R sin φ].
 *   contact_oscillator  q = (x, y, z); param eps (0.5); H = |p|²/2 + |q|²/2 + eps x² z²/2,
 *                       μ = (1, 0, y)  (ẋ + y ż = 0; McLachlan & Perlmutter 2006 §5.2).
 *   chaplygin_sleigh    q = (x, y, theta), (x, y) the contact point; params m, a, I
 *                       (1, 0.5, 0.3); H = pᵀM(θ)⁻¹p/2 (non-separable), μ = (−sin θ, cos θ, 0).
 *
 * Momenta are p = M(q) q̇ throughout (mass_matrix gives M). */
#ifndef SP_NH_MODELS_H
#define SP_NH_MODELS_H

#include <stddef.h>

#include "integrators/sp_nonholonomic.h"
#include "problems/sp_params.h"

#define SP_NH_MAX_INTEGRALS 4

typedef struct sp_nh_model_type {
    const char *name, *description;
    int n, m;
    const char *const *coordinates; /* n names */
    const sp_param *params;         /* numbers only, so value[i] is parameter i */
    size_t n_params;
    const char *const *potential_names; /* NULL: none of these models has a choice of potential */
    sp_param_check_fn check_params;     /* NULL: the bounds say it all */

    /* M(q), n x n row-major, with p = M(q) q̇. */
    void (*mass_matrix)(const double *q, const sp_param_values *prm, double *M);
    /* The callbacks of sp_nh_model; their params are a (const sp_param_values *). */
    int (*hamiltonian)(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params);
    int (*constraints)(const double *q, double *mu, double *dmu, void *params);
    /* The declared first integrals: their names, and their values at (q, p) into out;
     * each returns how many (≤ SP_NH_MAX_INTEGRALS). The first is always "energy". */
    sp_integral_names_fn integral_names;
    size_t (*integrals)(const double *q, const double *p, const sp_param_values *prm, double *out);
    /* The default initial data (q0, p0: n values each). */
    void (*initial)(const sp_param_values *prm, double *q0, double *p0);
    /* The exact solution at time t through (q0, p0), which must satisfy the constraint
     * (else SP_ERR_DOMAIN); NULL for models without one (contact oscillator, sleigh). */
    sp_status (*exact)(double t, const double *q0, const double *p0, const sp_param_values *prm, double *q, double *p);
} sp_nh_model_type;

extern const sp_nh_model_type sp_nh_knife_edge;
extern const sp_nh_model_type sp_nh_rolling_disk;
extern const sp_nh_model_type sp_nh_contact_oscillator;
extern const sp_nh_model_type sp_nh_chaplygin_sleigh;

/* The registry: by name (NULL if unknown, NULL name included), or the i-th (NULL past the end). */
const sp_nh_model_type *sp_nh_model_by_name(const char *name);
const sp_nh_model_type *sp_nh_model_at(size_t i);

/* The callback model of a type with parameters prm, which must outlive the model. */
void sp_nh_model_bind(const sp_nh_model_type *type, const sp_param_values *prm, sp_nh_model *model);

#endif
