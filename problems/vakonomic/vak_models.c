/* The vakonomic models: the Heisenberg sub-Riemannian
 * problem and the two-wheeled vehicle ("parallel parking"). */
#include <math.h>
#include <string.h>

#include "problems/vakonomic/sp_vak_models.h"
#include "lie/sp_registry.h"

/* ---- Heisenberg: q = (x, y, z), M = I, V = 0, constraint ż = y ẋ − x ẏ, i.e. g = (−y, x, 1). */

static int heisenberg_constraints(const double *q, double *G, double *dG, double *d2G, void *params)
{
    (void)params;
    if (G) G[0] = -q[1], G[1] = q[0], G[2] = 1.0;
    if (dG) {
        memset(dG, 0, 9 * sizeof *dG);
        dG[0 * 3 + 1] = -1.0; /* ∂G_x/∂y */
        dG[1 * 3 + 0] = 1.0;  /* ∂G_y/∂x */
    }
    if (d2G) memset(d2G, 0, 27 * sizeof *d2G);
    return 0;
}

static void unit_mass(const sp_param_values *prm, double *mass)
{
    (void)prm;
    mass[0] = mass[1] = mass[2] = 1.0;
}

/* p_z (z is cyclic) and L_z = x p_y − y p_x (rotations about the z-axis). */
static size_t heisenberg_integral_names(const sp_param_values *prm, const char **names)
{
    (void)prm;
    names[0] = "p_z", names[1] = "L_z";
    return 2;
}

static size_t heisenberg_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    (void)prm;
    out[0] = p[2];
    out[1] = q[0] * p[1] - q[1] * p[0];
    return 2;
}

static const char *const heisenberg_coordinates[] = {"x", "y", "z"};
static const char *const heisenberg_potentials[] = {"none", NULL};

const sp_vak_model_type sp_vak_heisenberg = {
    .name = "heisenberg",
    .description = "Heisenberg sub-Riemannian geodesics: q = (x, y, z), z' = y x' - x y'",
    .n = 3,
    .m = 1,
    .coordinates = heisenberg_coordinates,
    .potential_names = heisenberg_potentials,
    .mass = unit_mass,
    .constraints = heisenberg_constraints,
    .integral_names = heisenberg_integral_names,
    .integrals = heisenberg_integrals,
};

/* ---- Two-wheeled vehicle: q = (x, y, θ, φ), M = diag(1, 1, α, β), length L,
 * g1 = (sin φ, −cos φ, 0, 0), g2 = (sin θ, −cos θ, L, 0); optional V = −cos r. */

enum { PARK_L, PARK_ALPHA, PARK_BETA };

static int parking_constraints(const double *q, double *G, double *dG, double *d2G, void *params)
{
    const sp_param_values *prm = params;
    const double st = sin(q[2]), ct = cos(q[2]), sf = sin(q[3]), cf = cos(q[3]);
    if (G) {
        const double g[8] = {sf, -cf, 0, 0, st, -ct, prm->value[PARK_L], 0};
        memcpy(G, g, sizeof g);
    }
    if (dG) { /* dG[(j n + i) n + k]: g1 varies with φ (k = 3), g2 with θ (k = 2) */
        memset(dG, 0, 32 * sizeof *dG);
        dG[(0 * 4 + 0) * 4 + 3] = cf, dG[(0 * 4 + 1) * 4 + 3] = sf;
        dG[(1 * 4 + 0) * 4 + 2] = ct, dG[(1 * 4 + 1) * 4 + 2] = st;
    }
    if (d2G) {
        memset(d2G, 0, 128 * sizeof *d2G);
        d2G[((0 * 4 + 0) * 4 + 3) * 4 + 3] = -sf, d2G[((0 * 4 + 1) * 4 + 3) * 4 + 3] = cf;
        d2G[((1 * 4 + 0) * 4 + 2) * 4 + 2] = -st, d2G[((1 * 4 + 1) * 4 + 2) * 4 + 2] = ct;
    }
    return 0;
}

/* V = −cos r, r = |(x, y)|: ∇V = (sin r / r)(x, y), and the Hessian
 * ∇²V = (sin r / r) I + ((r cos r − sin r)/r³) (x, y)(x, y)ᵀ, both by series near r = 0. */
static int cos_bowl(const double *q, double *V, double *grad, double *hess, void *params)
{
    const sp_param_values *prm = params;
    if (prm->potential == 0) return 0; /* "none": V = 0, outputs already zeroed */
    const double r2 = q[0] * q[0] + q[1] * q[1], r = sqrt(r2);
    double sinc, d; /* sin r / r and (r cos r − sin r)/r³ */
    if (r < 1e-2) {
        sinc = 1.0 - r2 / 6.0 * (1.0 - r2 / 20.0 * (1.0 - r2 / 42.0));
        d = -1.0 / 3.0 + r2 / 30.0 * (1.0 - r2 / 28.0 * (1.0 - r2 / 54.0));
    } else {
        sinc = sin(r) / r;
        d = (r * cos(r) - sin(r)) / (r2 * r);
    }
    if (V) *V = -cos(r);
    if (grad) grad[0] = sinc * q[0], grad[1] = sinc * q[1], grad[2] = grad[3] = 0.0;
    if (hess) {
        memset(hess, 0, 16 * sizeof *hess);
        hess[0] = sinc + d * q[0] * q[0];
        hess[1] = hess[4] = d * q[0] * q[1];
        hess[5] = sinc + d * q[1] * q[1];
    }
    return 0;
}

static void parking_mass(const sp_param_values *prm, double *mass)
{
    mass[0] = mass[1] = 1.0;
    mass[2] = prm->value[PARK_ALPHA];
    mass[3] = prm->value[PARK_BETA];
}

/* 𝒥 = x p_y − y p_x + p_θ + p_φ (rotations about the origin, which the bowl keeps too)
 * and, without a potential, p_x and p_y (translations). */
static size_t parking_integral_names(const sp_param_values *prm, const char **names)
{
    names[0] = "rotation_momentum";
    if (prm->potential != 0) return 1;
    names[1] = "p_x", names[2] = "p_y";
    return 3;
}

static size_t parking_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    out[0] = q[0] * p[1] - q[1] * p[0] + p[2] + p[3];
    if (prm->potential != 0) return 1;
    out[1] = p[0];
    out[2] = p[1];
    return 3;
}

static const char *const parking_coordinates[] = {"x", "y", "theta", "phi"};
static const sp_param parking_params[] = {
    {.name = "L", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {0.3}},
    {.name = "alpha", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "beta", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
};
static const char *const parking_potentials[] = {"none", "cos_bowl", NULL};

const sp_vak_model_type sp_vak_parking = {
    .name = "parking",
    .description = "two-wheeled vehicle q = (x, y, theta, phi) with rolling constraints (parallel parking)",
    .n = 4,
    .m = 2,
    .coordinates = parking_coordinates,
    .params = parking_params,
    .n_params = 3,
    .potential_names = parking_potentials,
    .mass = parking_mass,
    .potential = cos_bowl,
    .constraints = parking_constraints,
    .integral_names = parking_integral_names,
    .integrals = parking_integrals,
};

static const sp_vak_model_type *const registry[] = {&sp_vak_heisenberg, &sp_vak_parking};

SP_REGISTRY_OF_POINTERS(sp_vak_model_type, registry, sp_vak_model_at, sp_vak_model_by_name)

void sp_vak_model_bind(const sp_vak_model_type *type, const sp_param_values *prm, double *mass,
                       sp_vakonomic_model *model)
{
    type->mass(prm, mass);
    *model = (sp_vakonomic_model){.n = type->n,
                                  .m = type->m,
                                  .mass = mass,
                                  .potential = type->potential,
                                  .constraints = type->constraints,
                                  .params = (void *)prm};
}
