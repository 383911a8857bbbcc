/* Splitting methods as data, and the exact sub-flows of the spherical pendulum on T*S²
 * (Hairer, Lubich & Wanner, Geometric Numerical Integration, §II.5). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "integrators/sp_splitting.h"
#include "lie/sp_registry.h"
#include "lie/sp_linalg.h"

static const int lie_trotter_part[2] = {0, 1};
static const double lie_trotter_fraction[2] = {1.0, 1.0};
static const int strang_part[3] = {1, 0, 1};
static const double strang_fraction[3] = {0.5, 1.0, 0.5};

static const sp_splitting_method methods[] = {
    {"lie_trotter", 1, 2, lie_trotter_part, lie_trotter_fraction},
    {"strang", 2, 3, strang_part, strang_fraction},
};

SP_REGISTRY_OF_TABLES(sp_splitting_method, methods, sp_splitting_method_at, sp_splitting_method_by_name)

sp_status sp_splitting_step(const sp_splitting_method *method, const sp_split_system *sys, double h, double *z)
{
    if (!method || !sys || !z || sys->dim < 1 || sys->parts < 1 || sys->parts > SP_SPLIT_MAX_PARTS || !isfinite(h))
        return SP_ERR_INVALID;
    for (int i = 0; i < method->stages; ++i) {
        const int part = method->part[i];
        if (part < 0 || part >= sys->parts || !sys->flow[part]) return SP_ERR_INVALID;
    }
    for (int i = 0; i < method->stages; ++i)
        if (sys->flow[method->part[i]](method->fraction[i] * h, z, sys->params) != 0) return SP_ERR_CALLBACK;
    return sp_vec_isfinite(sys->dim, z) ? SP_OK : SP_ERR_NONFINITE;
}

static int pendulum_ok(const sp_spherical_pendulum *P)
{
    return P && P->m > 0.0 && P->l > 0.0 && isfinite(P->m) && isfinite(P->l) && isfinite(P->g);
}

int sp_spherical_pendulum_flow_kinetic(double t, double *z, void *params)
{
    const sp_spherical_pendulum *P = params;
    if (!pendulum_ok(P)) return -1;
    double *q = z, *p = z + 3;
    const double pn = sp_vec_norm(3, p);
    if (pn == 0.0) return 0;
    const double w = pn / (P->m * P->l), c = cos(w * t), s = sin(w * t), a = s * P->l / pn, b = s * pn / P->l;
    for (int i = 0; i < 3; ++i) {
        const double qi = q[i], pi = p[i];
        q[i] = c * qi + a * pi;
        p[i] = c * pi - b * qi;
    }
    return 0;
}

int sp_spherical_pendulum_flow_gravity(double t, double *z, void *params)
{
    const sp_spherical_pendulum *P = params;
    if (!pendulum_ok(P)) return -1;
    const double *q = z;
    double *p = z + 3;
    const double f = t * P->m * P->g, r = q[2] / (P->l * P->l);
    p[0] -= f * (0.0 - r * q[0]);
    p[1] -= f * (0.0 - r * q[1]);
    p[2] -= f * (1.0 - r * q[2]);
    return 0;
}

sp_split_system sp_spherical_pendulum_split(const sp_spherical_pendulum *pendulum)
{
    sp_split_system sys = {
        6, 2, {sp_spherical_pendulum_flow_kinetic, sp_spherical_pendulum_flow_gravity, NULL, NULL}, (void *)pendulum};
    return sys;
}
