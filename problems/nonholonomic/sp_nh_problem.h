/* Problems of the nonholonomic models: simulations with the
 * Lobatto IIIA–IIIB method of integrators/sp_nonholonomic.h on the vector-space models of
 * sp_nh_models.h (knife_edge, rolling_disk, contact_oscillator, chaplygin_sleigh), and
 * with its RKMK transposition of integrators/sp_nh_lie.h on the Lie-group models of
 * sp_nh_lie_models.h, registered here by name:
 *
 *   sleigh_se2   the Chaplygin sleigh on SE(2): params m, a, I, slope (1, 0.5, 0.3, 0);
 *                g = [[R(θ), (x, y)], [0, 1]], body velocity ξ = (θ̇, v_x, v_y), constraint
 *                v_y = 0; coordinates q = (x, y, theta) with p = M(θ) q̇ as in
 *                chaplygin_sleigh;
 *   suslov       the Suslov problem on SO(3): params J (principal moments, (1, 2, 3.5))
 *                and e (the body-fixed vector, (0.3, 0.5, 0.8)); constraint ⟨e, Ω⟩ = 0.
 *
 * The multiplier Λ₁ of each step is carried over from the last stage of the step before
 * (the map is then symmetric and, on vector spaces, the energy error stays
 * bounded) or recomputed from the hidden constraint; the Lie-group models recompute it by
 * default, because on a non-abelian group the carried multiplier has a parasitic mode
 * that grows like e^(c t) once the motion settles into a steady one (the sleigh
 * straightening out, the Suslov body in its final rotation): see sp_nh_lie.h. */
#ifndef SP_NH_PROBLEM_H
#define SP_NH_PROBLEM_H

#include <stddef.h>

#include "problems/nonholonomic/sp_nh_lie_models.h"
#include "problems/nonholonomic/sp_nh_models.h"

/* A Lie-group model bound to its parameters. It points into itself: bind it where it
 * stays (no copies). */
typedef struct sp_nh_lie_bound {
    sp_sleigh_se2 sleigh;
    sp_suslov suslov;
    sp_nh_lie_model model;
} sp_nh_lie_bound;

typedef struct sp_nh_lie_type {
    const char *name, *description;
    const char *group_name; /* "SE2", "SO3" (sp_group_by_name) */
    const sp_param *params;
    size_t n_params;
    const char *const *potential_names; /* NULL: neither model has a choice of potential */
    sp_param_check_fn check_params;     /* e must not vanish (suslov) */
    sp_status (*bind)(const sp_param_values *prm, sp_nh_lie_bound *b);
    /* Names of the group element's entries (elem_size of them, row-major). */
    const char *const *element_names;
    /* The model's configuration in coordinates, where it has some (NULL otherwise): n
     * names, and (q, p) from (g, μ), q continuous along a trajectory through q_hint (the
     * previous q; NULL at the first point). */
    int n_coordinates;
    const char *const *coordinates;
    void (*to_coordinates)(const sp_nh_lie_bound *b, const double *g, const double *mu, const double *q_hint, double *q,
                           double *p);
    /* Distance of an element from the group (max-abs entry of the defect): |RᵀR − I| for
     * the rotation part, and |last row − (0, …, 0, 1)| for SE(2). */
    double (*group_error)(const double *g);
} sp_nh_lie_type;

extern const sp_nh_lie_type sp_nh_lie_sleigh_se2;
extern const sp_nh_lie_type sp_nh_lie_suslov;

/* The registry: by name (NULL if unknown, NULL name included), or the i-th (NULL past the end). */
const sp_nh_lie_type *sp_nh_lie_type_by_name(const char *name);
const sp_nh_lie_type *sp_nh_lie_type_at(size_t i);

/* Whether a model name is a nonholonomic one (either registry). */
int sp_nh_is_model(const char *name);

/* A simulation of a nonholonomic model: kind SP_KIND_NONHOLONOMIC (type, params, q0, p0)
 * or SP_KIND_NH_LIE (lie_type, lie_params, retraction, g0, mu0); the problem's T, steps
 * and solver_tol apply. */
typedef struct sp_nh_problem {
    const sp_nh_model_type *type;
    sp_param_values params;
    double q0[SP_NH_MAX_N], p0[SP_NH_MAX_N]; /* on the constraint: Ψ(q0, p0) = 0 to round-off */

    const sp_nh_lie_type *lie_type;
    sp_param_values lie_params;
    const sp_retraction *retraction;
    double g0[SP_LIE_MAX_ELEM], mu0[SP_LIE_MAX_DIM]; /* g0 on the group, ⟨α(g0), 𝕁⁻¹μ0⟩ = 0 */

    int stages;       /* 2, 3, 4: order 2s − 2 */
    int recompute;    /* Λ₁ recomputed every step (1) or carried over (0) */
} sp_nh_problem;

#endif
