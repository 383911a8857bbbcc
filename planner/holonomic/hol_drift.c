/* The invariants of a holonomic result along its recorded trajectory (sp_hol_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/holonomic/sp_hol_run.h"
#include "planner/sp_result.h"

/* Holonomic models: the quantities that vanish on T*Q (|q|² − l² and q·p for the
 * pendulums and S³; else max |g(q)| and max |G(q)M⁻¹p|), |H − H0| and |I − I0| for each
 * declared first integral, with the model bound to the result's parameters. */
static sp_status drift_of(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err);

static sp_status bind(const cJSON *settings, sp_problem *pb, sp_input_error *err)
{
    pb->kind = SP_KIND_HOLONOMIC;
    if (!(pb->hol.type = sp_hol_model_by_name(pb->model)))
        return sp_input_fail(err, "model", "'%s' is not a holonomic model", pb->model);
    return sp_params_from_json(settings, SP_PARAM_SPEC(pb->hol.type), &pb->hol.params, err);
}

sp_status sp_hol_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                       sp_input_error *err)
{
    return sp_family_drift(root, model, SP_KIND_HOLONOMIC, bind, drift_of, tr, add, ctx, err);
}

static sp_status drift_of(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err)
{
    const sp_hol_model_type *type = pb->hol.type;
    sp_param_values prm = pb->hol.params;
    sp_status st;
    sp_hol_bound *b = malloc(sizeof *b); /* it points into itself: bound where it stays */
    if (!b) return sp_input_fail(err, "trajectory", "out of memory");
    if (sp_hol_model_bind(type, &prm, b) != SP_OK) {
        free(b);
        return sp_input_fail(err, "settings.params", "invalid parameters for %s", type->name);
    }
    const sp_traj_field *q, *p;
    char why[64];
    snprintf(why, sizeof why, "the state of the %s model", type->name);
    if ((st = sp_traj_need(tr, "q", type->n, why, err, &q)) != SP_OK ||
        (st = sp_traj_need(tr, "p", type->n, why, err, &p)) != SP_OK) {
        free(b);
        return st;
    }
    const int n = type->n, rows = tr->rows;
    sp_hol_values v0, v;
    if (sp_hol_values_at(b, q->data, p->data, &v0) != SP_OK) memset(&v0, 0, sizeof v0);
    const char *inames[SP_HOL_MAX_INTEGRALS];
    size_t ni = type->integral_names(&prm, inames), nm = 0;
    while (type->monitor_names[nm]) ++nm;
    double *line[2 + SP_HOL_MAX_INTEGRALS + 2] = {0};
    int lines = 0, ok = 1;
    if (nm) {
        for (size_t i = 0; ok && i < nm; ++i) ok = (line[lines++] = add(ctx, type->monitor_labels[i], rows)) != NULL;
    } else {
        ok = (line[lines++] = add(ctx, "constraint |g(q)|", rows)) != NULL &&
             (line[lines++] = add(ctx, "hidden constraint |G(q) M⁻¹p|", rows)) != NULL;
    }
    if (ok) ok = (line[lines++] = add(ctx, "energy |H − H0|", rows)) != NULL;
    for (size_t i = 0; ok && i < ni; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s drift", inames[i]);
        ok = (line[lines++] = add(ctx, name, rows)) != NULL;
    }
    if (!ok) {
        free(b);
        return sp_input_fail(err, "trajectory", "out of memory");
    }
    for (int k = 0; k < rows; ++k) {
        int j = 0;
        if (sp_hol_values_at(b, q->data + (size_t)k * n, p->data + (size_t)k * n, &v) != SP_OK) {
            for (int i = 0; i < lines; ++i) line[i][k] = NAN; /* breaks the lines */
            continue;
        }
        if (nm) {
            for (size_t i = 0; i < nm; ++i) line[j++][k] = fabs(v.monitor[i]);
        } else {
            line[j++][k] = v.constraint;
            line[j++][k] = v.hidden;
        }
        line[j++][k] = fabs(v.energy - v0.energy);
        for (size_t i = 0; i < ni; ++i) line[j++][k] = fabs(v.integral[i] - v0.integral[i]);
    }
    free(b);
    return SP_OK;
}
