/* S³ with the standard contact constraint (sp_s3_contact.h; an independent Python
 * implementation served as reference). */
#include <math.h>
#include <string.h>

#include "problems/holonomic/sp_s3_contact.h"

sp_status sp_s3_contact_init(sp_s3_contact *prm, double c1, double c4)
{
    if (!prm || !isfinite(c1) || !isfinite(c4)) return SP_ERR_INVALID;
    *prm = (sp_s3_contact){.c1 = c1, .c4 = c4, .mass = {1, 1, 1, 1}};
    return SP_OK;
}

static int s3_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    const sp_s3_contact *prm = params;
    if (V) *V = prm->c1 * (q[0] * q[0] + q[1] * q[1]) + prm->c4 * q[3];
    if (grad) grad[0] = 2 * prm->c1 * q[0], grad[1] = 2 * prm->c1 * q[1], grad[2] = 0.0, grad[3] = prm->c4;
    if (hess) {
        memset(hess, 0, 16 * sizeof *hess);
        hess[0] = hess[5] = 2 * prm->c1;
    }
    return 0;
}

/* G = (−q₂, q₁, −q₄, q₃): dG[i n + k] = ∂G_i/∂q_k is constant, d2G = 0. */
static int contact_constraint(const double *q, double *G, double *dG, double *d2G, void *params)
{
    (void)params;
    if (G) G[0] = -q[1], G[1] = q[0], G[2] = -q[3], G[3] = q[2];
    if (dG) {
        memset(dG, 0, 16 * sizeof *dG);
        dG[0 * 4 + 1] = -1.0, dG[1 * 4 + 0] = 1.0, dG[2 * 4 + 3] = -1.0, dG[3 * 4 + 2] = 1.0;
    }
    if (d2G) memset(d2G, 0, 64 * sizeof *d2G);
    return 0;
}

static int unit_sphere(const double *q, double *h, double *Dh, double *D2h, void *params)
{
    (void)params;
    if (h) h[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0);
    if (Dh) memcpy(Dh, q, 4 * sizeof *Dh);
    if (D2h) {
        memset(D2h, 0, 16 * sizeof *D2h);
        D2h[0] = D2h[5] = D2h[10] = D2h[15] = 1.0;
    }
    return 0;
}

void sp_s3_contact_model(const sp_s3_contact *prm, sp_prop7_model *model)
{
    *model = (sp_prop7_model){
        .vak = {.n = 4,
                .m = 1,
                .mass = prm->mass,
                .potential = s3_potential,
                .constraints = contact_constraint,
                .params = (void *)prm},
        .k = 1,
        .holonomic = unit_sphere,
        .params = NULL,
    };
}
