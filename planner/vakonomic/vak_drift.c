/* The invariants of a vakonomic result along its recorded trajectory (sp_vak_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/sp_result.h"
#include "planner/vakonomic/sp_vak_run.h"

/* Vakonomic models: |Ĥ − Ĥ0|, |I − I0| for each first integral and |G(q) q̇|∞, with the
 * model bound to the result's parameters. */
static sp_status drift_of(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err);

static sp_status bind(const cJSON *settings, sp_problem *pb, sp_input_error *err)
{
    pb->kind = SP_KIND_VAKONOMIC;
    if (!(pb->vak.type = sp_vak_model_by_name(pb->model)))
        return sp_input_fail(err, "model", "'%s' is not a vakonomic model", pb->model);
    return sp_params_from_json(settings, SP_PARAM_SPEC(pb->vak.type), &pb->vak.params, err);
}

sp_status sp_vak_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                       sp_input_error *err)
{
    return sp_family_drift(root, model, SP_KIND_VAKONOMIC, bind, drift_of, tr, add, ctx, err);
}

static sp_status drift_of(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err)
{
    const sp_vak_model_type *type = pb->vak.type;
    sp_param_values prm = pb->vak.params;
    sp_status st;
    const sp_traj_field *q, *p;
    char why[64];
    snprintf(why, sizeof why, "the state of the %s model", type->name);
    if ((st = sp_traj_need(tr, "q", type->n, why, err, &q)) != SP_OK ||
        (st = sp_traj_need(tr, "p", type->n, why, err, &p)) != SP_OK)
        return st;
    double mass[SP_VAK_MAX_N];
    sp_vakonomic_model bound;
    sp_vak_model_bind(type, &prm, mass, &bound);
    sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&bound);
    const char *names[SP_VAK_MAX_INTEGRALS];
    double I0[SP_VAK_MAX_INTEGRALS], I[SP_VAK_MAX_INTEGRALS];
    size_t ni = type->integral_names(&prm, names);
    type->integrals(q->data, p->data, &prm, I0);
    double *H = add(ctx, "energy |Ĥ − Ĥ0|", tr->rows), *integral[SP_VAK_MAX_INTEGRALS];
    int ok = pt && H;
    for (size_t i = 0; ok && i < ni; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s drift", names[i]);
        ok = (integral[i] = add(ctx, name, tr->rows)) != NULL;
    }
    double *res = ok ? add(ctx, "constraint |G(q) q̇|", tr->rows) : NULL;
    if (!res) {
        sp_vakonomic_point_free(pt);
        return sp_input_fail(err, "trajectory", "out of memory");
    }
    const int n = type->n, m = type->m;
    double H0 = NAN;
    for (int k = 0; k < tr->rows; ++k) {
        const double *qk = q->data + (size_t)k * n, *pk = p->data + (size_t)k * n;
        double h, v[SP_VAK_MAX_N];
        if (sp_vakonomic_hamiltonian(&bound, pt, qk, pk, &h, NULL, v) != SP_OK) {
            H[k] = res[k] = NAN; /* breaks the lines */
        } else {
            if (k == 0) H0 = h;
            H[k] = fabs(h - H0);
            res[k] = 0.0;
            for (int j = 0; j < m; ++j) res[k] = fmax(res[k], fabs(sp_vec_dot(n, pt->G + j * n, v)));
        }
        type->integrals(qk, pk, &prm, I);
        for (size_t i = 0; i < ni; ++i) integral[i][k] = fabs(I[i] - I0[i]);
    }
    sp_vakonomic_point_free(pt);
    return SP_OK;
}
