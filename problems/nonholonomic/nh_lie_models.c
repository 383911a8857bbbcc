/* The Chaplygin sleigh on SE(2) and the Suslov problem on SO(3) (sp_nh_lie_models.h). */
#include <math.h>

#include "problems/nonholonomic/sp_nh_lie_models.h"
#include "lie/sp_linalg.h"

/* ---------------------------------------------------------------- the sleigh -- */

void sp_sleigh_se2_inertia(const sp_sleigh_se2 *sl, double *Ib)
{
    const double ma = sl->m * sl->a;
    Ib[0] = sl->I + ma * sl->a, Ib[1] = 0.0, Ib[2] = ma;
    Ib[3] = 0.0, Ib[4] = sl->m, Ib[5] = 0.0;
    Ib[6] = ma, Ib[7] = 0.0, Ib[8] = sl->m;
}

void sp_sleigh_se2_mass_matrix(const sp_sleigh_se2 *sl, double theta, double *M)
{
    const double ma = sl->m * sl->a, s = sin(theta), c = cos(theta);
    M[0] = sl->m, M[1] = 0.0, M[2] = -ma * s;
    M[3] = 0.0, M[4] = sl->m, M[5] = ma * c;
    M[6] = -ma * s, M[7] = ma * c, M[8] = sl->I + ma * sl->a;
}

static int sleigh_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    double Ib[9];
    sp_sleigh_se2_inertia(params, Ib);
    if (mu) sp_mat_vec(3, 3, Ib, xi, mu);
    if (dmu) sp_vec_copy(9, Ib, dmu);
    return 0;
}

/* V = −m·slope·t_x; d/dε V(g exp(ε e_k)) = −m·slope·(R e_k)_x for the translations. */
static int sleigh_potential(const double *g, double *V, double *f, void *params)
{
    const sp_sleigh_se2 *sl = params;
    const double w = sl->m * sl->slope;
    if (V) *V = -w * g[2];
    if (f) f[0] = 0.0, f[1] = -w * g[0], f[2] = -w * g[1];
    return 0;
}

/* α = (0, 0, 1): no sideways velocity of the contact point, in the body frame. */
static int sleigh_constraints(const double *g, double *alpha, double *dalpha, void *params)
{
    (void)g, (void)params;
    if (alpha) alpha[0] = 0.0, alpha[1] = 0.0, alpha[2] = 1.0;
    if (dalpha) sp_vec_zero(9, dalpha);
    return 0;
}

sp_status sp_sleigh_se2_model(const sp_sleigh_se2 *sl, sp_nh_lie_model *model)
{
    if (!sl || !model) return SP_ERR_INVALID;
    if (!(sl->m > 0.0) || !(sl->I > 0.0) || !isfinite(sl->m) || !isfinite(sl->I) || !isfinite(sl->a) ||
        !isfinite(sl->slope))
        return SP_ERR_INVALID;
    *model = (sp_nh_lie_model){
        .group = sp_group_se2,
        .m = 1,
        .inertia = sleigh_inertia,
        .potential = sl->slope != 0.0 ? sleigh_potential : NULL,
        .constraints = sleigh_constraints,
        .params = (void *)sl,
    };
    return SP_OK;
}

void sp_sleigh_se2_from_coordinates(const double *q, const double *p, double *g, double *mu)
{
    const double c = cos(q[2]), s = sin(q[2]);
    g[0] = c, g[1] = -s, g[2] = q[0];
    g[3] = s, g[4] = c, g[5] = q[1];
    g[6] = 0.0, g[7] = 0.0, g[8] = 1.0;
    const double m0 = p[2], m1 = c * p[0] + s * p[1], m2 = -s * p[0] + c * p[1];
    mu[0] = m0, mu[1] = m1, mu[2] = m2;
}

void sp_sleigh_se2_to_coordinates(const double *g, const double *mu, double theta_hint, double *q, double *p)
{
    double theta = atan2(g[3], g[0]);
    theta += 2.0 * SP_PI * nearbyint((theta_hint - theta) / (2.0 * SP_PI));
    const double c = g[0], s = g[3];
    const double p0 = c * mu[1] - s * mu[2], p1 = s * mu[1] + c * mu[2], p2 = mu[0];
    q[0] = g[2], q[1] = g[5], q[2] = theta;
    p[0] = p0, p[1] = p1, p[2] = p2;
}

/* ------------------------------------------------------------------ Suslov -- */

static int suslov_constraints(const double *g, double *alpha, double *dalpha, void *params)
{
    (void)g;
    const sp_suslov *su = params;
    if (alpha) sp_vec_copy(3, su->e, alpha);
    if (dalpha) sp_vec_zero(9, dalpha);
    return 0;
}

sp_status sp_suslov_model(const sp_suslov *su, sp_nh_lie_model *model)
{
    if (!su || !model) return SP_ERR_INVALID;
    for (int i = 0; i < 3; ++i)
        if (!(su->J[i] > 0.0) || !isfinite(su->J[i]) || !isfinite(su->e[i])) return SP_ERR_INVALID;
    if (!(sp_vec_norm(3, su->e) > 0.0)) return SP_ERR_INVALID;
    *model = (sp_nh_lie_model){
        .group = sp_group_so3,
        .m = 1,
        .inertia_diag = su->J,
        .constraints = suslov_constraints,
        .params = (void *)su,
    };
    return SP_OK;
}
