/* The invariants of a nonholonomic result recomputed along its recorded trajectory (sp_nh_run.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner/nonholonomic/sp_nh_run.h"
#include "planner/sp_result.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_nonholonomic.h"
#include "problems/nonholonomic/sp_nh_problem.h"

int sp_nh_planar(const char *model)
{
    const sp_nh_model_type *t = sp_nh_model_by_name(model);
    return t == &sp_nh_knife_edge || t == &sp_nh_rolling_disk || t == &sp_nh_chaplygin_sleigh ||
           sp_nh_lie_type_by_name(model) == &sp_nh_lie_sleigh_se2;
}

/* Below this a residual is zero in double precision (the sleigh's sideways velocity decays
 * like e^(−αt) to 1e-100 and less): drawn as an exact zero. */
#define NEGLIGIBLE 1e-20
static double shown(double x) { return x < NEGLIGIBLE ? 0.0 : x; }

static sp_status out_of_memory(sp_input_error *err) { return sp_input_fail(err, "trajectory", "out of memory"); }

static sp_status vector_drift(const sp_param_values *prm, const sp_nh_model_type *type, const sp_traj *tr,
                              sp_drift_add_fn add, void *ctx, sp_input_error *err)
{
    const sp_traj_field *q, *p;
    sp_status st;
    char why[64];
    snprintf(why, sizeof why, "the state of the %s model", type->name);
    if ((st = sp_traj_need(tr, "q", type->n, why, err, &q)) != SP_OK ||
        (st = sp_traj_need(tr, "p", type->n, why, err, &p)) != SP_OK)
        return st;
    sp_nh_model md;
    sp_nh_model_bind(type, prm, &md);
    const char *names[SP_NH_MAX_INTEGRALS];
    double I0[SP_NH_MAX_INTEGRALS], I[SP_NH_MAX_INTEGRALS], H0 = NAN;
    const size_t ni = type->integral_names(prm, names);
    type->integrals(q->data, p->data, prm, I0);
    double *H = add(ctx, "energy |H − H0|", tr->rows), *integral[SP_NH_MAX_INTEGRALS] = {0};
    if (!H) return out_of_memory(err);
    for (size_t i = 1; i < ni; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s drift", names[i]);
        if (!(integral[i] = add(ctx, name, tr->rows))) return out_of_memory(err);
    }
    double *psi = add(ctx, "constraint |Ψ(q, p)|", tr->rows);
    if (!psi) return out_of_memory(err);
    const int n = type->n;
    for (int k = 0; k < tr->rows; ++k) {
        const double *qk = q->data + (size_t)k * n, *pk = p->data + (size_t)k * n;
        double e, r;
        if (sp_nh_energy(&md, qk, pk, &e) != SP_OK || sp_nh_constraint_residual(&md, qk, pk, &r) != SP_OK) {
            H[k] = psi[k] = NAN; /* breaks the lines */
        } else {
            if (k == 0) H0 = e;
            H[k] = shown(fabs(e - H0));
            psi[k] = shown(r);
        }
        type->integrals(qk, pk, prm, I);
        for (size_t i = 1; i < ni; ++i) integral[i][k] = shown(fabs(I[i] - I0[i]));
    }
    return SP_OK;
}

static sp_status lie_drift(const sp_param_values *prm, const sp_nh_lie_type *type, const sp_traj *tr,
                           sp_drift_add_fn add, void *ctx, sp_input_error *err)
{
    sp_nh_lie_bound b;
    if (type->bind(prm, &b) != SP_OK)
        return sp_input_fail(err, "settings.params", "invalid parameters for %s", type->name);
    const sp_group *G = b.model.group;
    const sp_traj_field *g, *mu;
    sp_status st;
    char why[64];
    snprintf(why, sizeof why, "the state of the %s model", type->name);
    if ((st = sp_traj_need(tr, "g", G->elem_size, why, err, &g)) != SP_OK ||
        (st = sp_traj_need(tr, "mu", G->dim, why, err, &mu)) != SP_OK)
        return st;
    double *E = add(ctx, "energy |E − E0|", tr->rows), *psi = add(ctx, "constraint |⟨α, 𝕁⁻¹μ⟩|", tr->rows),
           *grp = add(ctx, "distance from the group", tr->rows);
    if (!E || !psi || !grp) return out_of_memory(err);
    double E0 = NAN;
    for (int k = 0; k < tr->rows; ++k) {
        const double *gk = g->data + (size_t)k * G->elem_size, *mk = mu->data + (size_t)k * G->dim;
        double e, r;
        if (sp_nh_lie_energy(&b.model, gk, mk, &e) != SP_OK ||
            sp_nh_lie_constraint_residual(&b.model, gk, mk, &r) != SP_OK) {
            E[k] = psi[k] = NAN;
        } else {
            if (k == 0) E0 = e;
            E[k] = shown(fabs(e - E0));
            psi[k] = shown(r);
        }
        grp[k] = shown(type->group_error(gk));
    }
    return SP_OK;
}

/* A model on a vector space, or on a group. */
static sp_status drift_of(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err)
{
    return pb->kind == SP_KIND_NONHOLONOMIC ? vector_drift(&pb->nh.params, pb->nh.type, tr, add, ctx, err)
                                             : lie_drift(&pb->nh.lie_params, pb->nh.lie_type, tr, add, ctx, err);
}

static sp_status bind(const cJSON *settings, sp_problem *pb, sp_input_error *err)
{
    if ((pb->nh.type = sp_nh_model_by_name(pb->model))) {
        pb->kind = SP_KIND_NONHOLONOMIC;
        return sp_params_from_json(settings, SP_PARAM_SPEC(pb->nh.type), &pb->nh.params, err);
    }
    if ((pb->nh.lie_type = sp_nh_lie_type_by_name(pb->model))) {
        pb->kind = SP_KIND_NONHOLONOMIC_LIE;
        return sp_params_from_json(settings, SP_PARAM_SPEC(pb->nh.lie_type), &pb->nh.lie_params, err);
    }
    return sp_input_fail(err, "model", "'%s' is not a nonholonomic model", pb->model);
}

sp_status sp_nh_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                      sp_input_error *err)
{
    return sp_family_drift(root, model, SP_KIND_NONHOLONOMIC, bind, drift_of, tr, add, ctx, err);
}
