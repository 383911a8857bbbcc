/* The holonomic models (sp_hol_models.h): spherical and planar
 * pendulum, heavy top, and the S³ contact example, with the schemes they run with. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/holonomic/sp_hol_models.h"
#include "lie/sp_registry.h"
#include "integrators/sp_symplecticity.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"
#include "problems/custom/sp_custom_model.h"

/* ---- schemes */

static const sp_hol_scheme schemes[] = {
    {"se_a", SP_HOL_FAMILY_CONSTRAINED, 1, "se_a", 1, 1, "constrained symplectic Euler A (kick, drift, project)"},
    {"se_b", SP_HOL_FAMILY_CONSTRAINED, 1, "se_b", 1, 1, "constrained symplectic Euler B (drift, kick, project)"},
    {"se_ab", SP_HOL_FAMILY_CONSTRAINED, 2, "se_ab", 1, 1, "SE-B(h/2) after SE-A(h/2), symmetric"},
    {"rattle", SP_HOL_FAMILY_CONSTRAINED, 2, "rattle", 1, 1, "RATTLE"},
    {"shake", SP_HOL_FAMILY_CONSTRAINED, 2, "shake", 1, 0, "SHAKE (two-step; momenta are half-step values)"},
    {"rattle_tj4", SP_HOL_FAMILY_CONSTRAINED, 4, "rattle_tj4", 1, 1, "RATTLE, triple-jump composition"},
    {"rattle_suzuki5", SP_HOL_FAMILY_CONSTRAINED, 4, "rattle_suzuki5", 1, 1, "RATTLE, Suzuki 5-stage composition"},
    {"rattle_tj6", SP_HOL_FAMILY_CONSTRAINED, 6, "rattle_tj6", 1, 1, "RATTLE, triple jump of the triple jump"},
    {"rattle_kl8", SP_HOL_FAMILY_CONSTRAINED, 8, "rattle_kl8", 1, 1, "RATTLE, Kahan-Li 17-stage composition"},
    {"rattle_kl10", SP_HOL_FAMILY_CONSTRAINED, 10, "rattle_kl10", 1, 1, "RATTLE, Kahan-Li 35-stage composition"},
    {"lobatto3", SP_HOL_FAMILY_CONSTRAINED, 4, "lobatto3", 1, 1, "Lobatto IIIA-IIIB, 3 stages"},
    {"lobatto4", SP_HOL_FAMILY_CONSTRAINED, 6, "lobatto4", 1, 1, "Lobatto IIIA-IIIB, 4 stages"},
    {"lobatto5", SP_HOL_FAMILY_CONSTRAINED, 8, "lobatto5", 1, 1, "Lobatto IIIA-IIIB, 5 stages"},
    {"feedback_euler", SP_HOL_FAMILY_FEEDBACK, 1, "euler", 0, 1, "feedback integrator, explicit Euler"},
    {"feedback_rk4", SP_HOL_FAMILY_FEEDBACK, 4, "rk4", 0, 1, "feedback integrator, classical RK4"},
    {"feedback_dop853", SP_HOL_FAMILY_FEEDBACK, 8, "dop853", 0, 1,
     "feedback integrator, adaptive Dormand-Prince 8(5,3) (rtol, atol)"},
    {"lie_trotter", SP_HOL_FAMILY_SPLITTING, 1, "lie_trotter", 0, 1, "Lie-Trotter splitting, exact flows"},
    {"strang", SP_HOL_FAMILY_SPLITTING, 2, "strang", 0, 1, "Strang splitting, exact flows"},
    {"lie_rattle", SP_HOL_FAMILY_LIE, 2, "lie_rattle", 1, 1, "RATTLE on SO(3), left trivialised (retraction)"},
    {"lie_rattle_suzuki5", SP_HOL_FAMILY_LIE, 4, "rattle_suzuki5", 1, 1, "RATTLE on SO(3), Suzuki 5-stage composition"},
    {"lie_rattle_kl8", SP_HOL_FAMILY_LIE, 8, "rattle_kl8", 1, 1, "RATTLE on SO(3), Kahan-Li 17-stage composition"},
    {"prop7", SP_HOL_FAMILY_PROP7, 2, "prop7", 1, 1, "RATTLE outside, implicit midpoint inside (Prop. 7)"},
};

SP_REGISTRY_OF_TABLES(sp_hol_scheme, schemes, sp_hol_scheme_at, sp_hol_scheme_by_name)

/* ---- pendulums: q ∈ Rᵈ (d = 3 or 2), M = m I, V = m g q_d, g(q) = ½(|q|² − l²) */

enum { PEND_M, PEND_G, PEND_L };

static const sp_param pendulum_params[] = {
    {.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "g", .size = 1, .defaults = {1.0}},
    {.name = "l", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
};

static int pendulum_potential(int d, const double *q, double *V, double *grad, double *hess, const sp_param_values *prm)
{
    const double mg = prm->value[PEND_M] * prm->value[PEND_G];
    if (V) *V = mg * q[d - 1];
    if (grad) {
        memset(grad, 0, (size_t)d * sizeof *grad);
        grad[d - 1] = mg;
    }
    if (hess) memset(hess, 0, (size_t)d * d * sizeof *hess);
    return 0;
}

static int pendulum_constraint(int d, const double *q, double *g, double *G, double *d2g, const sp_param_values *prm)
{
    const double l = prm->value[PEND_L];
    if (g) g[0] = 0.5 * (sp_vec_dot(d, q, q) - l * l);
    if (G) memcpy(G, q, (size_t)d * sizeof *G);
    if (d2g) {
        memset(d2g, 0, (size_t)d * d * sizeof *d2g);
        for (int i = 0; i < d; ++i) d2g[i * d + i] = 1.0;
    }
    return 0;
}

static int spherical_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    return pendulum_potential(3, q, V, grad, hess, params);
}
static int spherical_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    return pendulum_constraint(3, q, g, G, d2g, params);
}
static int planar_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    return pendulum_potential(2, q, V, grad, hess, params);
}
static int planar_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    return pendulum_constraint(2, q, g, G, d2g, params);
}

/* L₃ = q₁p₂ − q₂p₁ with its gradient (∂/∂q, ∂/∂p), for the feedback gain k4. */
static int vertical_momentum(const double *q, const double *p, double *I, double *grad, void *params)
{
    (void)params;
    *I = q[0] * p[1] - q[1] * p[0];
    if (grad) {
        const double g[6] = {p[1], -p[0], 0.0, -q[1], q[0], 0.0};
        memcpy(grad, g, sizeof g);
    }
    return 0;
}

/* L₃ for the spherical pendulum (rotations about the vertical); the planar one declares none. */
static size_t spherical_integral_names(const sp_param_values *prm, const char **names)
{
    (void)prm;
    names[0] = "L3";
    return 1;
}

static size_t no_integral_names(const sp_param_values *prm, const char **names)
{
    (void)prm, (void)names;
    return 0;
}

static const char *const none_potential[] = {"gravity", NULL};
static const char *const pendulum_monitors[] = {"q_squared", "q_dot_p", NULL};
static const char *const pendulum_monitor_labels[] = {"|q|² − l²", "q·p", NULL};
static const char *const spherical_coordinates[] = {"x", "y", "z"};
static const char *const planar_coordinates[] = {"x", "y"};

const sp_hol_model_type sp_hol_spherical_pendulum = {
    .name = "spherical_pendulum",
    .description = "spherical pendulum q in R^3, |q| = l, V = m g q_3 (params m, g, l)",
    .n = 3,
    .coordinates = spherical_coordinates,
    .params = pendulum_params,
    .n_params = 3,
    .potential_names = none_potential,
    .families = SP_HOL_FAMILY_CONSTRAINED | SP_HOL_FAMILY_FEEDBACK | SP_HOL_FAMILY_SPLITTING,
    .initial = SP_HOL_INITIAL_QP,
    .monitor_names = pendulum_monitors,
    .monitor_labels = pendulum_monitor_labels,
    .integral_names = spherical_integral_names,
};

const sp_hol_model_type sp_hol_planar_pendulum = {
    .name = "planar_pendulum",
    .description = "planar pendulum q in R^2, |q| = l, V = m g q_2 (params m, g, l)",
    .n = 2,
    .coordinates = planar_coordinates,
    .params = pendulum_params,
    .n_params = 3,
    .potential_names = none_potential,
    .families = SP_HOL_FAMILY_CONSTRAINED | SP_HOL_FAMILY_FEEDBACK,
    .initial = SP_HOL_INITIAL_QP,
    .monitor_names = pendulum_monitors,
    .monitor_labels = pendulum_monitor_labels,
    .integral_names = no_integral_names,
};

/* ---- heavy top: J (3), mgl, chi (3) */

enum { TOP_J = 0, TOP_MGL = 3, TOP_CHI = 4 };

static const sp_param top_params[] = {
    {.name = "J", .size = 3, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {2.0, 3.0, 4.0}},
    {.name = "mgl", .size = 1, .defaults = {1.0}},
    {.name = "chi", .size = 3, .defaults = {0.3, 0.2, 1.0}},
};

/* Principal moments of a body (each positive by its bounds) obey the triangle inequality. */
static int top_check(const sp_param_values *prm, char *why, size_t size)
{
    const double *J = prm->value + TOP_J;
    for (int k = 0; k < 3; ++k)
        if (!(J[(k + 1) % 3] + J[(k + 2) % 3] > J[k]))
            return snprintf(why, size, "must satisfy the triangle inequality (J[%d] = %g >= J[%d] + J[%d])", k, J[k],
                            (k + 1) % 3, (k + 2) % 3),
                   0;
    return -1;
}

/* The vertical angular momentum (gravity keeps it) and, for the free body (mgl = 0), the
 * other two components of the spatial one. */
static size_t top_integral_names(const sp_param_values *prm, const char **names)
{
    names[0] = "vertical_momentum";
    if (prm->value[TOP_MGL] != 0.0) return 1;
    names[1] = "spatial_momentum_x";
    names[2] = "spatial_momentum_y";
    return 3;
}

static const char *const top_potentials[] = {"gravity", NULL};
static const char *const no_monitors[] = {NULL};

const sp_hol_model_type sp_hol_heavy_top = {
    .name = "heavy_top",
    .description = "heavy top (free rigid body when mgl = 0) as Q in R^{3x3}, Q^T Q = I, or on SO(3) "
                   "(params J, mgl, chi; R0, omega0)",
    .n = 9,
    .params = top_params,
    .n_params = 3,
    .potential_names = top_potentials,
    .families = SP_HOL_FAMILY_CONSTRAINED | SP_HOL_FAMILY_LIE,
    .initial = SP_HOL_INITIAL_ROTATION,
    .monitor_names = no_monitors,
    .monitor_labels = no_monitors,
    .check_params = top_check,
    .integral_names = top_integral_names,
};

/* ---- S³ with the contact constraint: c1, c4; potential "tilted" (c1(q₁² + q₂²) + c4 q₄) or
 * "hopf_invariant" (no q₄ term) */

enum { S3_C1, S3_C4 };
enum { S3_TILTED, S3_HOPF };

static const sp_param s3_params[] = {
    {.name = "c1", .size = 1, .defaults = {0.5}},
    {.name = "c4", .size = 1, .defaults = {0.1}},
};

/* A file that chooses the Hopf-invariant potential and still writes c4 means something
 * the model would silently drop. */
static int s3_check(const sp_param_values *prm, char *why, size_t size)
{
    if (prm->potential == S3_HOPF && sp_param_given(prm, S3_C4))
        return snprintf(why, size, "the hopf_invariant potential has no q4 term: leave c4 out"), S3_C4;
    return -1;
}

/* The contact multiplier λ, conserved once the potential has no q₄ term. */
static size_t s3_integral_names(const sp_param_values *prm, const char **names)
{
    if (prm->potential != S3_HOPF && prm->value[S3_C4] != 0.0) return 0;
    names[0] = "lambda";
    return 1;
}

static const char *const s3_potentials[] = {"tilted", "hopf_invariant", NULL};
static const char *const s3_coordinates[] = {"q1", "q2", "q3", "q4"};

const sp_hol_model_type sp_hol_s3_contact = {
    .name = "s3_contact",
    .description = "S^3 in R^4 with the contact constraint (Prop. 7 example); V = c1 (q1^2 + q2^2) + c4 q4 "
                   "(potential tilted) or without the q4 term (hopf_invariant)",
    .n = 4,
    .coordinates = s3_coordinates,
    .params = s3_params,
    .n_params = 2,
    .potential_names = s3_potentials,
    .families = SP_HOL_FAMILY_PROP7,
    .initial = SP_HOL_INITIAL_QP,
    .monitor_names = pendulum_monitors,
    .monitor_labels = pendulum_monitor_labels,
    .check_params = s3_check,
    .integral_names = s3_integral_names,
};

static const sp_hol_model_type *const registry[] = {&sp_hol_spherical_pendulum, &sp_hol_planar_pendulum,
                                                    &sp_hol_heavy_top, &sp_hol_s3_contact};

SP_REGISTRY_OF_POINTERS(sp_hol_model_type, registry, sp_hol_model_at, sp_hol_model_by_name)

int sp_hol_model_accepts(const sp_hol_model_type *type, const sp_hol_scheme *scheme)
{
    return type && scheme && (type->families & (unsigned)scheme->family) != 0;
}

/* ---- binding */

sp_status sp_hol_model_bind(const sp_hol_model_type *type, const sp_param_values *prm, sp_hol_bound *b)
{
    memset(b, 0, sizeof *b);
    if (!type || !prm) return SP_ERR_INVALID;
    char why[128];
    if (sp_params_check(SP_PARAM_SPEC(type), prm, why, sizeof why) >= 0) return SP_ERR_INVALID;
    b->type = type;
    b->prm = *prm;
    if (prm->custom) { /* an expression model: its own callbacks, no monitors or feedback scales */
        sp_custom_holonomic_model(prm->custom, &b->holonomic);
        memcpy(b->mass, b->holonomic.mass, (size_t)type->n * sizeof *b->mass);
        b->scales = (sp_feedback_gains){.g_scale = 1.0, .hidden_scale = 1.0};
        return SP_OK;
    }
    if (type == &sp_hol_spherical_pendulum || type == &sp_hol_planar_pendulum) {
        const int d = type->n;
        const double m = prm->value[PEND_M];
        for (int i = 0; i < d; ++i) b->mass[i] = m;
        b->holonomic = (sp_holonomic_model){.n = d,
                                            .m = 1,
                                            .mass = b->mass,
                                            .potential = d == 3 ? spherical_potential : planar_potential,
                                            .constraints = d == 3 ? spherical_constraint : planar_constraint,
                                            .params = &b->prm};
        b->scales = (sp_feedback_gains){.g_scale = 2.0, .hidden_scale = m}; /* |q|² − l² and q·p */
        if (d == 3) {
            b->pendulum = (sp_spherical_pendulum){.m = m, .g = prm->value[PEND_G], .l = prm->value[PEND_L]};
            b->has_integral = 1;
            b->integral = (sp_first_integral){.value = vertical_momentum, .params = NULL};
        }
        return SP_OK;
    }
    if (type == &sp_hol_heavy_top) {
        if (sp_heavy_top_init(&b->top, prm->value + TOP_J, prm->value[TOP_MGL], prm->value + TOP_CHI) != SP_OK)
            return SP_ERR_INVALID;
        sp_heavy_top_matrix_model(&b->top, &b->holonomic);
        sp_heavy_top_lie_model(&b->top, &b->lie);
        memcpy(b->mass, b->top.mass, sizeof b->top.mass);
        return SP_OK;
    }
    if (type == &sp_hol_s3_contact) {
        const double c4 = prm->potential == S3_HOPF ? 0.0 : prm->value[S3_C4];
        if (sp_s3_contact_init(&b->s3, prm->value[S3_C1], c4) != SP_OK) return SP_ERR_INVALID;
        sp_s3_contact_model(&b->s3, &b->prop7);
        for (int i = 0; i < 4; ++i) b->mass[i] = 1.0;
        return SP_OK;
    }
    return SP_ERR_INVALID;
}

/* ---- what a run watches */

/* tr(Pᵀ ê_i Q), the spatial angular momentum (momentum map of rotations Q ↦ e^{sê_i}Q). */
static double spatial_momentum(int i, const double *q, const double *p)
{
    const int a = (i + 1) % 3, c = (i + 2) % 3; /* ê_i Q has rows a ← −Q_c, c ← Q_a */
    double s = 0.0;
    for (int k = 0; k < 3; ++k) s += -p[3 * a + k] * q[3 * c + k] + p[3 * c + k] * q[3 * a + k];
    return s;
}

/* S³: λ(q, p) = −(g·p)/|g|², g = (−q₂, q₁, −q₄, q₃); H_p = p + λg (M = I). */
static double s3_lambda(const double *q, const double *p, double *Hp)
{
    const double g[4] = {-q[1], q[0], -q[3], q[2]}, gg = sp_vec_dot(4, g, g);
    const double lam = gg > 0.0 ? -sp_vec_dot(4, g, p) / gg : 0.0;
    for (int i = 0; i < 4; ++i) Hp[i] = p[i] + lam * g[i];
    return lam;
}

sp_status sp_hol_values_at(const sp_hol_bound *b, const double *q, const double *p, sp_hol_values *v)
{
    memset(v, 0, sizeof *v);
    const sp_hol_model_type *type = b->type;
    if (type == &sp_hol_s3_contact) {
        double Hp[4], V = 0.0, h[1], Dh[4];
        v->lambda = s3_lambda(q, p, Hp);
        if (b->prop7.vak.potential(q, &V, NULL, NULL, b->prop7.vak.params) != 0 ||
            b->prop7.holonomic(q, h, Dh, NULL, b->prop7.params) != 0)
            return SP_ERR_CALLBACK;
        v->energy = 0.5 * sp_vec_dot(4, Hp, Hp) + V;
        v->constraint = fabs(h[0]);
        v->hidden = fabs(sp_vec_dot(4, Dh, Hp));
        v->monitor[0] = sp_vec_dot(4, q, q) - 1.0;
        v->monitor[1] = sp_vec_dot(4, q, p);
        v->n_monitors = 2;
        if (b->s3.c4 == 0.0) v->integral[0] = v->lambda, v->n_integrals = 1;
    } else {
        const sp_holonomic_model *md = &b->holonomic;
        const int n = md->n, m = md->m;
        double g[SP_HOL_MAX_M], G[SP_HOL_MAX_M * SP_HOL_MAX_N], V = 0.0;
        if (md->constraints(q, g, G, NULL, md->params) != 0 ||
            (md->potential && md->potential(q, &V, NULL, NULL, md->params) != 0))
            return SP_ERR_CALLBACK;
        double T = 0.0, Mp[SP_HOL_MAX_N]; /* M⁻¹p (a full M: the custom models') */
        if (md->mass_matrix && sp_holonomic_apply_minv(md, p, Mp) != SP_OK) return SP_ERR_SINGULAR;
        for (int i = 0; i < n; ++i) T += md->mass_matrix ? p[i] * Mp[i] : p[i] * p[i] / md->mass[i];
        v->energy = 0.5 * T + V;
        for (int a = 0; a < m; ++a) {
            double s = 0.0;
            for (int i = 0; i < n; ++i) s += md->mass_matrix ? G[a * n + i] * Mp[i] : G[a * n + i] * p[i] / md->mass[i];
            v->constraint = fmax(v->constraint, fabs(g[a]));
            v->hidden = fmax(v->hidden, fabs(s));
        }
        if (b->prm.custom) {
            v->n_integrals = sp_custom_integrals(b->prm.custom, q, p, v->integral);
        } else if (type == &sp_hol_heavy_top) {
            v->integral[0] = spatial_momentum(2, q, p);
            v->n_integrals = 1;
            if (b->top.mgl == 0.0) {
                v->integral[1] = spatial_momentum(0, q, p);
                v->integral[2] = spatial_momentum(1, q, p);
                v->n_integrals = 3;
            }
        } else {
            const double l = b->prm.value[PEND_L];
            v->monitor[0] = sp_vec_dot(n, q, q) - l * l;
            v->monitor[1] = sp_vec_dot(n, q, p);
            v->n_monitors = 2;
            if (type == &sp_hol_spherical_pendulum) v->integral[0] = q[0] * p[1] - q[1] * p[0], v->n_integrals = 1;
        }
    }
    double all[3 + SP_HOL_MAX_MONITORS + SP_HOL_MAX_INTEGRALS] = {v->energy, v->constraint, v->hidden};
    memcpy(all + 3, v->monitor, sizeof v->monitor);
    memcpy(all + 3 + SP_HOL_MAX_MONITORS, v->integral, sizeof v->integral);
    return sp_vec_isfinite((int)(sizeof all / sizeof all[0]), all) ? SP_OK : SP_ERR_NONFINITE;
}

sp_status sp_hol_manifold_jacobian(const sp_hol_bound *b, const double *q, const double *p, double *DC, int *rows)
{
    if (b->type == &sp_hol_s3_contact) { /* C = (½(|q|² − 1), q·p): the hidden constraint q·H_p is q·p since q·g = 0 */
        memset(DC, 0, 2 * 8 * sizeof *DC);
        for (int i = 0; i < 4; ++i) DC[i] = q[i], DC[8 + i] = p[i], DC[8 + 4 + i] = q[i];
        *rows = 2;
        return SP_OK;
    }
    *rows = 2 * b->holonomic.m;
    return sp_holonomic_manifold_jacobian(&b->holonomic, q, p, DC);
}

/* The radius of the sphere the model's q lies on (pendulums, S³). */
static double radius(const sp_hol_bound *b) { return b->type == &sp_hol_s3_contact ? 1.0 : b->prm.value[PEND_L]; }

sp_status sp_hol_off_manifold(const sp_hol_bound *b, const double *q, const double *p, double *position,
                              double *momentum)
{
    if (b->type == &sp_hol_heavy_top || b->prm.custom) {
        sp_hol_values v;
        sp_status st = sp_hol_values_at(b, q, p, &v);
        *position = v.constraint;
        *momentum = v.hidden / fmax(1.0, sp_vec_norm(9, p));
        return st;
    }
    const int n = b->type->n;
    const double l = radius(b), qq = sp_vec_dot(n, q, q), np = sp_vec_norm(n, p);
    *position = fabs(qq - l * l) / (l * l);
    *momentum = np > 0.0 && qq > 0.0 ? fabs(sp_vec_dot(n, q, p)) / (sqrt(qq) * np) : 0.0;
    return isfinite(*position) && isfinite(*momentum) ? SP_OK : SP_ERR_NONFINITE;
}

/* Onto T*Q of any holonomic model: Gauss–Newton steps q ← q − Gᵀ(GGᵀ)⁻¹g(q) (the
 * smallest correction to first order) until g no longer shrinks, then the momentum
 * p ← p − Gᵀν with G M⁻¹(p − Gᵀν) = 0. SP_ERR_DOMAIN when GGᵀ is singular. */
static sp_status project_general(const sp_holonomic_model *md, double *q, double *p)
{
    const int n = md->n, m = md->m;
    double g[SP_HOL_MAX_M], G[SP_HOL_MAX_M * SP_HOL_MAX_N], A[SP_HOL_MAX_M * SP_HOL_MAX_M], nu[SP_HOL_MAX_M];
    int piv[SP_HOL_MAX_M];
    double previous = HUGE_VAL;
    for (int it = 0; it < 100; ++it) {
        if (md->constraints(q, g, G, NULL, md->params) != 0) return SP_ERR_CALLBACK;
        const double size = sp_vec_norm(m, g);
        if (!(size < previous) || size == 0.0) break;
        previous = size;
        for (int a = 0; a < m; ++a)
            for (int c = 0; c < m; ++c) A[a * m + c] = sp_vec_dot(n, G + a * n, G + c * n);
        if (sp_linsolve(m, A, g, 1, piv, 0) != SP_OK) return SP_ERR_DOMAIN;
        for (int a = 0; a < m; ++a) sp_vec_axpy(n, -g[a], G + a * n, q);
    }
    if (md->constraints(q, g, G, NULL, md->params) != 0) return SP_ERR_CALLBACK;
    double Mp[SP_HOL_MAX_N], MG[SP_HOL_MAX_M * SP_HOL_MAX_N];
    if (sp_holonomic_apply_minv(md, p, Mp) != SP_OK) return SP_ERR_SINGULAR;
    for (int a = 0; a < m; ++a)
        if (sp_holonomic_apply_minv(md, G + a * n, MG + a * n) != SP_OK) return SP_ERR_SINGULAR;
    for (int a = 0; a < m; ++a) {
        nu[a] = sp_vec_dot(n, G + a * n, Mp);
        for (int c = 0; c < m; ++c) A[a * m + c] = sp_vec_dot(n, G + a * n, MG + c * n);
    }
    if (sp_linsolve(m, A, nu, 1, piv, 0) != SP_OK) return SP_ERR_DOMAIN;
    for (int a = 0; a < m; ++a) sp_vec_axpy(n, -nu[a], G + a * n, p);
    return sp_vec_isfinite(n, q) && sp_vec_isfinite(n, p) ? SP_OK : SP_ERR_NONFINITE;
}

sp_status sp_hol_project(const sp_hol_bound *b, double *q, double *p)
{
    if (b->prm.custom) return project_general(&b->holonomic, q, p);
    if (b->type == &sp_hol_heavy_top) return SP_ERR_INVALID;
    const int n = b->type->n;
    const double nq = sp_vec_norm(n, q), l = radius(b);
    if (!(nq > 0.0) || !isfinite(nq)) return SP_ERR_DOMAIN;
    for (int i = 0; i < n; ++i) q[i] *= l / nq;
    const double along = sp_vec_dot(n, q, p) / (l * l);
    for (int i = 0; i < n; ++i) p[i] -= along * q[i];
    return SP_OK;
}
