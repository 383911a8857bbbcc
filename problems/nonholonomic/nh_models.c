/* The nonholonomic models: knife edge on an inclined plane,
 * vertical rolling disk, contact oscillator and Chaplygin sleigh (see sp_nh_models.h).
 * Exact solutions: the knife edge integrated by hand (its default initial data are the
 * case q0 = 0, p0 = (0, 0, Jω), ω = 1); the rolling disk from odelab. */
#include <math.h>
#include <string.h>

#include "problems/nonholonomic/sp_nh_models.h"
#include "lie/sp_registry.h"
#include "lie/sp_linalg.h"

static void zero(double *x, int count)
{
    if (x) memset(x, 0, (size_t)count * sizeof *x);
}

/* M = diag(d) with d from the model's masses (n ≤ 4 here) */
static void diagonal_mass(int n, void (*masses)(const sp_param_values *, double *), const sp_param_values *prm,
                          double *M)
{
    double d[4];
    masses(prm, d);
    memset(M, 0, (size_t)(n * n) * sizeof *M);
    for (int i = 0; i < n; ++i) M[i * n + i] = d[i];
}

/* H = ½ Σ p_i² / d_i + V with V given by the caller; fills H_p and H_pp. */
static void diagonal_kinetic(int n, const double *d, const double *p, const sp_nh_hamiltonian_out *out, double V)
{
    double T = 0.0;
    for (int i = 0; i < n; ++i) T += 0.5 * p[i] * p[i] / d[i];
    if (out->H) *out->H = T + V;
    if (out->Hp)
        for (int i = 0; i < n; ++i) out->Hp[i] = p[i] / d[i];
    if (out->Hpp) {
        zero(out->Hpp, n * n);
        for (int i = 0; i < n; ++i) out->Hpp[i * n + i] = 1.0 / d[i];
    }
    zero(out->Hqp, n * n);
}

/* Every model conserves its energy, named first; the sleigh has no other integral. */
static size_t energy_names(const sp_param_values *prm, const char **names)
{
    (void)prm;
    names[0] = "energy";
    return 1;
}

/* the knife edge and the disk turn freely about the vertical */
static size_t p_phi_names(const sp_param_values *prm, const char **names)
{
    energy_names(prm, names);
    names[1] = "p_phi";
    return 2;
}

/* The energy H(q, p) of a model, the first of its integrals. */
static double energy_of(int (*hamiltonian)(const double *, const double *, const sp_nh_hamiltonian_out *, void *),
                        const double *q, const double *p, const sp_param_values *prm)
{
    double H = 0.0;
    hamiltonian(q, p, &(sp_nh_hamiltonian_out){.H = &H}, (void *)prm);
    return H;
}

/* max |Ψ| small against the size of the data */
static int constrained(const sp_nh_model_type *type, const sp_param_values *prm, const double *q, const double *p)
{
    sp_nh_model md;
    sp_nh_model_bind(type, prm, &md);
    double r;
    if (sp_nh_constraint_residual(&md, q, p, &r) != SP_OK) return 0;
    double scale = 1.0;
    for (int i = 0; i < type->n; ++i) scale = fmax(scale, fabs(p[i]));
    return r <= 1e-12 * scale;
}

/* ------------------------------------------------------------- knife edge -- */

enum { KE_M, KE_J, KE_G };

static void knife_masses(const sp_param_values *prm, double *d)
{
    d[0] = d[1] = prm->value[KE_M];
    d[2] = prm->value[KE_J];
}

static int knife_hamiltonian(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    const sp_param_values *prm = params;
    double d[3];
    knife_masses(prm, d);
    const double mG = prm->value[KE_M] * prm->value[KE_G];
    diagonal_kinetic(3, d, p, out, -mG * q[0]);
    if (out->Hq) out->Hq[0] = -mG, out->Hq[1] = out->Hq[2] = 0.0;
    zero(out->Hqq, 9);
    return 0;
}

static int knife_constraints(const double *q, double *mu, double *dmu, void *params)
{
    (void)params;
    const double s = sin(q[2]), c = cos(q[2]);
    if (mu) mu[0] = s, mu[1] = -c, mu[2] = 0.0;
    if (dmu) { /* dmu[(a n + i) n + k] = ∂μ_ai/∂q_k; only k = φ */
        zero(dmu, 9);
        dmu[0 * 3 + 2] = c;
        dmu[1 * 3 + 2] = s;
    }
    return 0;
}

static void knife_mass(const double *q, const sp_param_values *prm, double *M)
{
    (void)q;
    diagonal_mass(3, knife_masses, prm, M);
}

static size_t knife_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    out[0] = energy_of(knife_hamiltonian, q, p, prm);
    out[1] = p[2];
    return 2;
}

/* From rest, φ̇ = ω = 1: q0 = 0, p0 = (0, 0, J). */
static void knife_initial(const sp_param_values *prm, double *q0, double *p0)
{
    q0[0] = q0[1] = q0[2] = 0.0;
    p0[0] = p0[1] = 0.0;
    p0[2] = prm->value[KE_J];
}

/* φ = φ0 + ωt (ω = p_φ/J); the speed along the blade v obeys v̇ = G cos φ (G = g sin α), so
 * v = c + (G/ω) sin φ with c = v0 − (G/ω) sin φ0, and
 *   x = x0 + (c/ω)(sin φ − sin φ0) + (G/2ω²)(sin²φ − sin²φ0),
 *   y = y0 − (c/ω)(cos φ − cos φ0) + (G/ω)(t/2 − (sin 2φ − sin 2φ0)/4ω),
 * p = (m v cos φ, m v sin φ, Jω). For ω = 0 exactly: v = v0 + G t cos φ0 along a line. */
static sp_status knife_exact(double t, const double *q0, const double *p0, const sp_param_values *prm, double *q,
                             double *p)
{
    if (!constrained(&sp_nh_knife_edge, prm, q0, p0)) return SP_ERR_DOMAIN;
    const double m = prm->value[KE_M], J = prm->value[KE_J], G = prm->value[KE_G];
    const double w = p0[2] / J, f0 = q0[2], f = f0 + w * t;
    const double v0 = (p0[0] * cos(f0) + p0[1] * sin(f0)) / m;
    double v;
    if (w == 0.0) {
        v = v0 + G * t * cos(f0);
        const double s = v0 * t + 0.5 * G * cos(f0) * t * t;
        q[0] = q0[0] + s * cos(f0);
        q[1] = q0[1] + s * sin(f0);
    } else {
        const double c = v0 - G / w * sin(f0);
        v = c + G / w * sin(f);
        q[0] = q0[0] + c / w * (sin(f) - sin(f0)) + G / (2 * w * w) * (sin(f) * sin(f) - sin(f0) * sin(f0));
        q[1] = q0[1] - c / w * (cos(f) - cos(f0)) + G / w * (0.5 * t - (sin(2 * f) - sin(2 * f0)) / (4 * w));
    }
    q[2] = f;
    p[0] = m * v * cos(f);
    p[1] = m * v * sin(f);
    p[2] = p0[2];
    return SP_OK;
}

static const char *const knife_coordinates[] = {"x", "y", "phi"};
static const sp_param knife_params[] = {
    {.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "J", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "g_sin_alpha", .size = 1, .defaults = {1.0}},
};

const sp_nh_model_type sp_nh_knife_edge = {
    .name = "knife_edge",
    .description = "knife edge on an inclined plane: q = (x, y, phi), x' sin phi - y' cos phi = 0",
    .n = 3,
    .m = 1,
    .coordinates = knife_coordinates,
    .params = knife_params,
    .n_params = 3,
    .mass_matrix = knife_mass,
    .hamiltonian = knife_hamiltonian,
    .constraints = knife_constraints,
    .integral_names = p_phi_names,
    .integrals = knife_integrals,
    .initial = knife_initial,
    .exact = knife_exact,
};

/* ----------------------------------------------------------- rolling disk -- */

enum { RD_R, RD_M, RD_IF, RD_IR };

static void disk_masses(const sp_param_values *prm, double *d)
{
    d[0] = d[1] = prm->value[RD_M];
    d[2] = prm->value[RD_IF];
    d[3] = prm->value[RD_IR];
}

static int disk_hamiltonian(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    (void)q;
    double d[4];
    disk_masses(params, d);
    diagonal_kinetic(4, d, p, out, 0.0);
    zero(out->Hq, 4);
    zero(out->Hqq, 16);
    return 0;
}

static int disk_constraints(const double *q, double *mu, double *dmu, void *params)
{
    const double R = ((const sp_param_values *)params)->value[RD_R], s = sin(q[2]), c = cos(q[2]);
    if (mu) {
        const double v[8] = {1, 0, 0, -R * c, 0, 1, 0, -R * s};
        memcpy(mu, v, sizeof v);
    }
    if (dmu) { /* only μ_{a,θ} varies, with φ */
        zero(dmu, 32);
        dmu[(0 * 4 + 3) * 4 + 2] = R * s;
        dmu[(1 * 4 + 3) * 4 + 2] = -R * c;
    }
    return 0;
}

static void disk_mass(const double *q, const sp_param_values *prm, double *M)
{
    (void)q;
    diagonal_mass(4, disk_masses, prm, M);
}

static size_t disk_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    out[0] = energy_of(disk_hamiltonian, q, p, prm);
    out[1] = p[2];
    return 2;
}

/* q0 = 0, ω_φ = 2, ω_θ = 1: p0 = (m R ω_θ, 0, I_flip ω_φ, I_roll ω_θ). */
static void disk_initial(const sp_param_values *prm, double *q0, double *p0)
{
    zero(q0, 4);
    p0[0] = prm->value[RD_M] * prm->value[RD_R];
    p0[1] = 0.0;
    p0[2] = 2.0 * prm->value[RD_IF];
    p0[3] = prm->value[RD_IR];
}

static double sinc(double u) { return fabs(u) < 1e-4 ? 1.0 - u * u / 6.0 * (1.0 - u * u / 20.0) : sin(u) / u; }

/* φ and θ turn uniformly (ω_φ = p_φ/I_flip, ω_θ = p_θ/I_roll) and the contact point runs
 * on a circle of radius ρ = R ω_θ/ω_φ: x = x0 + ρ(sin φ − sin φ0), y = y0 − ρ(cos φ − cos φ0),
 * written as R ω_θ t sinc(ω_φ t/2)(cos, sin)(φ0 + ω_φ t/2) so that ω_φ = 0 is included. */
static sp_status disk_exact(double t, const double *q0, const double *p0, const sp_param_values *prm, double *q,
                            double *p)
{
    if (!constrained(&sp_nh_rolling_disk, prm, q0, p0)) return SP_ERR_DOMAIN;
    const double R = prm->value[RD_R], wf = p0[2] / prm->value[RD_IF], wt = p0[3] / prm->value[RD_IR];
    const double f = q0[2] + wf * t, mid = q0[2] + 0.5 * wf * t, len = R * wt * t * sinc(0.5 * wf * t);
    q[0] = q0[0] + len * cos(mid);
    q[1] = q0[1] + len * sin(mid);
    q[2] = f;
    q[3] = q0[3] + wt * t;
    p[0] = prm->value[RD_M] * R * wt * cos(f);
    p[1] = prm->value[RD_M] * R * wt * sin(f);
    p[2] = p0[2];
    p[3] = p0[3];
    return SP_OK;
}

static const char *const disk_coordinates[] = {"x", "y", "phi", "theta"};
static const sp_param disk_params[] = {
    {.name = "R", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "I_flip", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "I_roll", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
};

const sp_nh_model_type sp_nh_rolling_disk = {
    .name = "rolling_disk",
    .description = "vertical rolling disk: q = (x, y, phi, theta), x' = R theta' cos phi, y' = R theta' sin phi",
    .n = 4,
    .m = 2,
    .coordinates = disk_coordinates,
    .params = disk_params,
    .n_params = 4,
    .mass_matrix = disk_mass,
    .hamiltonian = disk_hamiltonian,
    .constraints = disk_constraints,
    .integral_names = p_phi_names,
    .integrals = disk_integrals,
    .initial = disk_initial,
    .exact = disk_exact,
};

/* ----------------------------------------------------- contact oscillator -- */

static int contact_hamiltonian(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    const double eps = ((const sp_param_values *)params)->value[0];
    const double x = q[0], y = q[1], z = q[2];
    static const double unit[3] = {1, 1, 1};
    diagonal_kinetic(3, unit, p, out, 0.5 * (x * x + y * y + z * z) + 0.5 * eps * x * x * z * z);
    if (out->Hq) out->Hq[0] = x + eps * x * z * z, out->Hq[1] = y, out->Hq[2] = z + eps * x * x * z;
    if (out->Hqq) {
        const double v[9] = {1 + eps * z * z, 0, 2 * eps * x * z, 0, 1, 0, 2 * eps * x * z, 0, 1 + eps * x * x};
        memcpy(out->Hqq, v, sizeof v);
    }
    return 0;
}

static int contact_constraints(const double *q, double *mu, double *dmu, void *params)
{
    (void)params;
    if (mu) mu[0] = 1.0, mu[1] = 0.0, mu[2] = q[1];
    if (dmu) {
        zero(dmu, 9);
        dmu[2 * 3 + 1] = 1.0; /* ∂μ_z/∂y */
    }
    return 0;
}

static void unit_mass3(const double *q, const sp_param_values *prm, double *M)
{
    (void)q, (void)prm;
    sp_mat_identity(3, M);
}

/* energy and H_y = (y² + ẏ²)/2: the y-motion is a decoupled oscillator */
static size_t contact_integral_names(const sp_param_values *prm, const char **names)
{
    energy_names(prm, names);
    names[1] = "H_y";
    return 2;
}

static size_t contact_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    out[0] = energy_of(contact_hamiltonian, q, p, prm);
    out[1] = 0.5 * (q[1] * q[1] + p[1] * p[1]);
    return 2;
}

/* z0 = 0.5, ż0 = 0.3, y0 = 1, ẏ0 = 0, ẋ0 = −y0 ż0, and x0 > 0 from H0 = 1.5. */
static void contact_initial(const sp_param_values *prm, double *q0, double *p0)
{
    const double eps = prm->value[0], z0 = 0.5, zd0 = 0.3, H0 = 1.5;
    q0[0] = sqrt((2 * H0 - 2 * zd0 * zd0 - z0 * z0 - 1) / (1 + eps * z0 * z0));
    q0[1] = 1.0;
    q0[2] = z0;
    p0[0] = -zd0;
    p0[1] = 0.0;
    p0[2] = zd0;
}

static const char *const contact_coordinates[] = {"x", "y", "z"};
static const sp_param contact_params[] = {
    {.name = "eps", .size = 1, .lower = {SP_BOUND_CLOSED, 0.0}, .defaults = {0.5}},
};

const sp_nh_model_type sp_nh_contact_oscillator = {
    .name = "contact_oscillator",
    .description = "contact oscillator (McLachlan-Perlmutter 2006): q = (x, y, z), x' + y z' = 0",
    .n = 3,
    .m = 1,
    .coordinates = contact_coordinates,
    .params = contact_params,
    .n_params = 1,
    .mass_matrix = unit_mass3,
    .hamiltonian = contact_hamiltonian,
    .constraints = contact_constraints,
    .integral_names = contact_integral_names,
    .integrals = contact_integrals,
    .initial = contact_initial,
};

/* ------------------------------------------------------- Chaplygin sleigh -- */

enum { CS_M, CS_A, CS_I };

/* M(θ) and its first two θ-derivatives */
static void sleigh_matrices(double th, const sp_param_values *prm, double *M, double *dM, double *d2M)
{
    const double m = prm->value[CS_M], a = prm->value[CS_A], I = prm->value[CS_I];
    const double s = sin(th), c = cos(th), ma = m * a;
    if (M) {
        const double v[9] = {m, 0, -ma * s, 0, m, ma * c, -ma * s, ma * c, I + ma * a};
        memcpy(M, v, sizeof v);
    }
    if (dM) {
        const double v[9] = {0, 0, -ma * c, 0, 0, -ma * s, -ma * c, -ma * s, 0};
        memcpy(dM, v, sizeof v);
    }
    if (d2M) {
        const double v[9] = {0, 0, ma * s, 0, 0, -ma * c, ma * s, -ma * c, 0};
        memcpy(d2M, v, sizeof v);
    }
}

/* the inverse of a symmetric 3 x 3 matrix by cofactors (det M = m² I > 0 here) */
static void inverse3(const double *M, double *Mi)
{
    const double c00 = M[4] * M[8] - M[5] * M[7], c01 = M[5] * M[6] - M[3] * M[8], c02 = M[3] * M[7] - M[4] * M[6];
    const double det = M[0] * c00 + M[1] * c01 + M[2] * c02;
    const double v[9] = {c00, M[2] * M[7] - M[1] * M[8], M[1] * M[5] - M[2] * M[4],
                         c01, M[0] * M[8] - M[2] * M[6], M[2] * M[3] - M[0] * M[5],
                         c02, M[1] * M[6] - M[0] * M[7], M[0] * M[4] - M[1] * M[3]};
    for (int i = 0; i < 9; ++i) Mi[i] = v[i] / det;
}

/* H = ½ vᵀM v with v = M⁻¹p; H_θ = −½ vᵀM'v; ∂v/∂θ = −M⁻¹M'v =: u;
 * H_θθ = vᵀM'M⁻¹M'v − ½ vᵀM''v; ∂H_θ/∂p = u; H_pp = M⁻¹. */
static int sleigh_hamiltonian(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    double M[9], dM[9], d2M[9], Mi[9], v[3], w[3], u[3], t[3];
    sleigh_matrices(q[2], params, M, dM, d2M);
    inverse3(M, Mi);
    sp_mat_vec(3, 3, Mi, p, v);
    sp_mat_vec(3, 3, dM, v, w); /* M'v */
    sp_mat_vec(3, 3, Mi, w, u);
    for (int i = 0; i < 3; ++i) u[i] = -u[i];
    if (out->H) *out->H = 0.5 * sp_vec_dot(3, p, v);
    if (out->Hp) sp_vec_copy(3, v, out->Hp);
    if (out->Hq) out->Hq[0] = out->Hq[1] = 0.0, out->Hq[2] = -0.5 * sp_vec_dot(3, v, w);
    if (out->Hpp) sp_vec_copy(9, Mi, out->Hpp);
    if (out->Hqp) {
        zero(out->Hqp, 9);
        sp_vec_copy(3, u, out->Hqp + 6);
    }
    if (out->Hqq) {
        zero(out->Hqq, 9);
        sp_mat_vec(3, 3, d2M, v, t);
        out->Hqq[8] = -sp_vec_dot(3, w, u) - 0.5 * sp_vec_dot(3, v, t);
    }
    return 0;
}

static int sleigh_constraints(const double *q, double *mu, double *dmu, void *params)
{
    (void)params;
    const double s = sin(q[2]), c = cos(q[2]);
    if (mu) mu[0] = -s, mu[1] = c, mu[2] = 0.0;
    if (dmu) {
        zero(dmu, 9);
        dmu[0 * 3 + 2] = -c;
        dmu[1 * 3 + 2] = -s;
    }
    return 0;
}

static void sleigh_mass(const double *q, const sp_param_values *prm, double *M)
{
    sleigh_matrices(q[2], prm, M, NULL, NULL);
}

static size_t sleigh_integrals(const double *q, const double *p, const sp_param_values *prm, double *out)
{
    out[0] = energy_of(sleigh_hamiltonian, q, p, prm);
    return 1;
}

/* q0 = 0, q̇0 = (1, 0, 1), p0 = M(0) q̇0 = (1, 0.5, 0.55) for the defaults. */
static void sleigh_initial(const sp_param_values *prm, double *q0, double *p0)
{
    static const double qd0[3] = {1.0, 0.0, 1.0};
    double M[9];
    zero(q0, 3);
    sleigh_matrices(0.0, prm, M, NULL, NULL);
    sp_mat_vec(3, 3, M, qd0, p0);
}

static const char *const sleigh_coordinates[] = {"x", "y", "theta"};
static const sp_param sleigh_params[] = {
    {.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "a", .size = 1, .defaults = {0.5}},
    {.name = "I", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {0.3}},
};

const sp_nh_model_type sp_nh_chaplygin_sleigh = {
    .name = "chaplygin_sleigh",
    .description = "Chaplygin sleigh: q = (x, y, theta) of the contact point, -x' sin theta + y' cos theta = 0",
    .n = 3,
    .m = 1,
    .coordinates = sleigh_coordinates,
    .params = sleigh_params,
    .n_params = 3,
    .mass_matrix = sleigh_mass,
    .hamiltonian = sleigh_hamiltonian,
    .constraints = sleigh_constraints,
    .integral_names = energy_names,
    .integrals = sleigh_integrals,
    .initial = sleigh_initial,
};

/* --------------------------------------------------------------- registry -- */

static const sp_nh_model_type *const registry[] = {&sp_nh_knife_edge, &sp_nh_rolling_disk, &sp_nh_contact_oscillator,
                                                   &sp_nh_chaplygin_sleigh};

SP_REGISTRY_OF_POINTERS(sp_nh_model_type, registry, sp_nh_model_at, sp_nh_model_by_name)

void sp_nh_model_bind(const sp_nh_model_type *type, const sp_param_values *prm, sp_nh_model *model)
{
    *model = (sp_nh_model){.n = type->n,
                           .m = type->m,
                           .hamiltonian = type->hamiltonian,
                           .constraints = type->constraints,
                           .params = (void *)prm};
}
