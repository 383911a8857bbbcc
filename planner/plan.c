/* Plan task: NLopt minimises J_d over the initial momenta (HOHP spec §4.6) with the
 * adjoint gradient of sp_shooting; derivative-free algorithms get the cost alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_optimize.h"
#include "sp_plan.h"
#include "../lie/sp_linalg.h"
#include "../problems/sp_result_file.h"

struct sp_plan {
    const sp_problem *pb;
    sp_shooting *shooting;
    sp_progress progress; /* {NULL, NULL} unless set */
};

static sp_status objective(void *ctx, const double *x, double *J, double *grad)
{
    sp_plan *plan = ctx;
    return grad ? sp_shooting_gradient(plan->shooting, x, J, grad) : sp_shooting_cost(plan->shooting, x, J);
}

sp_plan *sp_plan_new(const sp_problem *pb)
{
    sp_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return NULL;
    plan->pb = pb;
    plan->shooting = sp_shooting_alloc(pb);
    if (!plan->shooting) {
        sp_plan_free(plan);
        return NULL;
    }
    return plan;
}

void sp_plan_free(sp_plan *plan)
{
    if (!plan) return;
    sp_shooting_free(plan->shooting);
    free(plan);
}

sp_shooting *sp_plan_shooting(sp_plan *plan) { return plan->shooting; }

void sp_plan_set_progress(sp_plan *plan, const sp_progress *progress)
{
    plan->progress = progress ? *progress : (sp_progress){0};
}

sp_status sp_plan_solve(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    const int n = sp_shooting_dim(plan->shooting);
    memset(res, 0, sizeof *res);
    if (pb->has_initial_momenta) sp_vec_copy(n, pb->initial_momenta, res->x);
    sp_optimize_result opt;
    sp_status st = sp_optimize(&pb->optimizer, n, objective, plan, res->x, &plan->progress, 0, &opt);
    if (st != SP_OK) return st;
    snprintf(res->optimizer_code, sizeof res->optimizer_code, "%s", opt.code_name);
    res->evaluations = opt.evaluations;
    res->failure = opt.failure;

    /* Re-evaluate at the returned point: cost, gradient and the recorded trajectory. */
    double grad[2 * SP_LIE_MAX_DIM], residual[2 * SP_LIE_MAX_DIM];
    st = opt.failure;
    if (st == SP_OK) st = sp_shooting_gradient(plan->shooting, res->x, &res->cost, grad);
    if (st == SP_OK) st = sp_shooting_trajectory(plan->shooting, res->x, &res->cost);
    if (st != SP_OK) {
        if (res->failure == SP_OK) res->failure = st;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(res->failure));
        /* record what can be recorded at the best point for the report; an interrupted
         * search reports its best point in full, gradient and terminal residual too */
        double J;
        if (res->failure == SP_ERR_INTERRUPTED && sp_shooting_gradient(plan->shooting, res->x, &J, grad) == SP_OK)
            res->gradient_norm = sp_vec_norm(n, grad);
        res->cost = sp_shooting_trajectory(plan->shooting, res->x, &J) == SP_OK ? J : HUGE_VAL;
        if (isfinite(res->cost)) {
            sp_shooting_terminal_residual(plan->shooting, residual);
            res->residual_norm = sp_vec_norm(n, residual);
        }
        return res->failure;
    }
    res->gradient_norm = sp_vec_norm(n, grad);
    sp_shooting_terminal_residual(plan->shooting, residual);
    res->residual_norm = sp_vec_norm(n, residual);
    snprintf(res->status, sizeof res->status, "%s",
             sp_optimize_status(&opt, res->gradient_norm, res->cost, pb->optimizer.gtol));
    return SP_OK;
}

/* Largest change of the spatial momentum map Ad*_{g⁻¹}ν within each stretch between
 * kicks, relative to its size: the scheme keeps it to round-off there. */
static double momentum_map_drift_between_kicks(const sp_shooting *s, const sp_group *G, int N, size_t targets)
{
    const sp_hohp_state *z = sp_shooting_states(s);
    const int *steps = sp_shooting_target_steps(s);
    double worst = 0.0, M0[SP_LIE_MAX_DIM], M[SP_LIE_MAX_DIM];
    size_t next = 0;
    sp_hohp_momentum_map(G, &z[0], M0);
    for (int k = 1; k <= N; ++k) {
        sp_hohp_momentum_map(G, &z[k], M);
        double scale = fmax(sp_vec_norm(G->dim, M0), 1e-300);
        worst = fmax(worst, sp_vec_dist(G->dim, M, M0) / scale);
        if (next < targets && steps[next] == k) {
            /* the kick at k changes ν: restart from the post-kick value */
            sp_hohp_state after = z[k];
            sp_vec_axpy(G->dim, 1.0, sp_shooting_kicks(s) + (size_t)next * G->dim, after.nu);
            sp_hohp_momentum_map(G, &after, M0);
            ++next;
        }
    }
    return worst;
}

cJSON *sp_plan_result_json(sp_plan *plan, const sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    const sp_cubic_spline *c = &pb->cubic;
    const sp_group *G = c->group;
    const int n = G->dim, N = pb->steps;
    sp_shooting *s = plan->shooting;
    const sp_hohp_state *z = sp_shooting_states(s);
    const int *steps = sp_shooting_target_steps(s);
    const double *t = sp_shooting_times(s);

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "task", "plan");
    cJSON_AddStringToObject(root, "model", pb->model);
    cJSON_AddStringToObject(root, "status", res->status);
    cJSON_AddStringToObject(root, "optimizer_result", res->optimizer_code);
    if (isfinite(res->cost)) {
        cJSON_AddNumberToObject(root, "cost", res->cost);
        cJSON_AddNumberToObject(root, "running_cost", sp_shooting_running_cost(s));
        cJSON_AddNumberToObject(root, "target_cost", res->cost - sp_shooting_running_cost(s));
    }
    cJSON_AddNumberToObject(root, "iterations", res->evaluations);
    cJSON_AddNumberToObject(root, "gradient_norm", res->gradient_norm);
    sp_json_add_vector(root, "initial_momenta", 2 * n, res->x);
    if (!isfinite(res->cost)) return root; /* nothing sound to report beyond this */

    double residual[2 * SP_LIE_MAX_DIM];
    sp_shooting_terminal_residual(s, residual);
    cJSON *term = cJSON_AddObjectToObject(root, "terminal_residual");
    sp_json_add_vector(term, "nu", n, residual);
    sp_json_add_vector(term, "p", n, residual + n);
    cJSON_AddNumberToObject(term, "norm", res->residual_norm);

    cJSON *targets = cJSON_AddArrayToObject(root, "targets");
    cJSON *kicks = cJSON_AddArrayToObject(root, "kicks");
    for (size_t i = 0; i < c->n_targets; ++i) {
        const double *g = z[steps[i]].g;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", c->targets[i].t);
        cJSON_AddNumberToObject(o, "step", steps[i]);
        if (c->space == SP_SPACE_SPHERE) {
            double y[3];
            G->act(G, g, c->y0, y);
            sp_json_add_vector(o, "target", 3, c->targets[i].y);
            sp_json_add_vector(o, "reached", 3, y);
        } else {
            sp_json_add_rows(o, "target", 3, 3, c->targets[i].R, 3);
            sp_json_add_rows(o, "reached", 3, 3, g, 3);
        }
        cJSON_AddNumberToObject(o, "distance", sp_cubic_target_distance(c, i, g));
        cJSON_AddItemToArray(targets, o);

        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "t", c->targets[i].t);
        sp_json_add_vector(k, "kick", n, sp_shooting_kicks(s) + i * (size_t)n);
        cJSON_AddItemToArray(kicks, k);
    }

    cJSON_AddItemToObject(root, "trajectory",
                          sp_trajectory_json(G, z, t, N + 1, c->space == SP_SPACE_SPHERE ? c->y0 : NULL));
    cJSON *diag = cJSON_AddObjectToObject(root, "diagnostics");
    cJSON_AddNumberToObject(diag, "momentum_map_drift", momentum_map_drift_between_kicks(s, G, N, c->n_targets));

    sp_shooting_timing tm = sp_shooting_get_timing(s);
    cJSON *timing = cJSON_AddObjectToObject(root, "timing");
    cJSON_AddNumberToObject(timing, "forward_seconds", tm.forward_seconds);
    cJSON_AddNumberToObject(timing, "forward_sweeps", (double)tm.forward_sweeps);
    cJSON_AddNumberToObject(timing, "adjoint_seconds", tm.adjoint_seconds);
    cJSON_AddNumberToObject(timing, "adjoint_sweeps", (double)tm.adjoint_sweeps);

    cJSON *settings = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddStringToObject(settings, "scheme", pb->scheme->name);
    cJSON_AddStringToObject(settings, "retraction", pb->retraction->name);
    cJSON_AddStringToObject(settings, "algorithm", pb->optimizer.algorithm);
    cJSON_AddStringToObject(settings, "gradient", pb->optimizer.central_differences ? "central_difference" : "adjoint");
    cJSON_AddNumberToObject(settings, "steps", N);
    return root;
}
