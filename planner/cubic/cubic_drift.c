/* The invariants of a cubic-spline result along its recorded trajectory (sp_plan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_hohp.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_plan.h"

/* Cubic splines: the invariants of the HOHP schemes, relative to their size at t = 0. */
sp_status sp_cubic_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                         sp_input_error *err)
{
    (void)model;
    const char *gname = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "settings"), "group"));
    const sp_group *G = sp_group_by_name(gname ? gname : "SO3");
    if (!G) return sp_input_fail(err, "settings.group", "unknown group '%s'", gname);
    char why[64];
    snprintf(why, sizeof why, "the states of a cubic on %s", G->name);
    const sp_traj_field *q, *xi, *nu, *p;
    sp_status st;
    if ((st = sp_traj_need(tr, "q", G->elem_size, why, err, &q)) != SP_OK ||
        (st = sp_traj_need(tr, "xi", G->dim, why, err, &xi)) != SP_OK ||
        (st = sp_traj_need(tr, "nu", G->dim, why, err, &nu)) != SP_OK ||
        (st = sp_traj_need(tr, "p", G->dim, why, err, &p)) != SP_OK)
        return st;
    const int n = G->dim, rows = tr->rows;
    double *mm = add(ctx, "momentum map Ad*(g⁻¹)ν", rows), *rm = add(ctx, "right momentum −ad*(ξ)p − ν", rows),
           *cas = add(ctx, "Casimir |ν|", rows), *en = add(ctx, "energy ⟨ν,ξ⟩ + ½|p|²", rows);
    if (!mm || !rm || !cas || !en) return sp_input_fail(err, "trajectory", "out of memory");
    double M0[SP_LIE_MAX_DIM], C0[SP_LIE_MAX_DIM], c0 = 0, H0 = 0;
    for (int k = 0; k < rows; ++k) {
        sp_hohp_state z;
        memset(&z, 0, sizeof z);
        sp_vec_copy(G->elem_size, q->data + (size_t)k * G->elem_size, z.g);
        sp_vec_copy(n, xi->data + (size_t)k * n, z.xi);
        sp_vec_copy(n, nu->data + (size_t)k * n, z.nu);
        sp_vec_copy(n, p->data + (size_t)k * n, z.p);
        double M[SP_LIE_MAX_DIM], C[SP_LIE_MAX_DIM];
        sp_hohp_momentum_map(G, &z, M);
        sp_hohp_right_momentum(G, &z, C);
        double casimir = sp_vec_norm(n, z.nu), H = sp_hohp_energy(G, &z);
        if (k == 0) sp_vec_copy(n, M, M0), sp_vec_copy(n, C, C0), c0 = casimir, H0 = H;
        const double tiny = 1e-300, c_scale = sp_vec_norm(n, z.xi) * sp_vec_norm(n, z.p) + casimir;
        mm[k] = sp_vec_dist(n, M, M0) / fmax(sp_vec_norm(n, M0), tiny);
        rm[k] = sp_vec_dist(n, C, C0) / fmax(c_scale, tiny);
        cas[k] = fabs(casimir - c0) / fmax(c0, tiny);
        en[k] = fabs(H - H0);
    }
    return SP_OK;
}
