/* Plan task: NLopt minimises J_d over the initial momenta (HOHP spec §4.6) with the
 * adjoint gradient of sp_shooting; derivative-free algorithms get the cost alone. */
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#include "sp_plan.h"
#include "../lie/sp_linalg.h"
#include "../problems/sp_result_file.h"

struct sp_plan {
    const sp_problem *pb;
    sp_shooting *shooting;
    nlopt_opt opt;
    int evaluations;
    sp_status failure; /* first evaluation failure, which stops the optimiser */
    int budget_spent;  /* the optimiser asked for more than maxeval evaluations */
    double scale;      /* the optimiser sees J/scale (see objective_scale) */
};

/* Gradient by central differences, step 1e-6·max(1, |x_j|): for comparison with the
 * adjoint (benchmarks, users checking a result), never the default. */
static sp_status central_difference_gradient(sp_shooting *s, const double *x, double *J, double *grad)
{
    const int n = sp_shooting_dim(s);
    double xs[2 * SP_LIE_MAX_DIM], Jp, Jm;
    sp_vec_copy(n, x, xs);
    sp_status st = sp_shooting_cost(s, x, J);
    for (int j = 0; j < n && st == SP_OK; ++j) {
        double e = 1e-6 * fmax(1.0, fabs(x[j]));
        xs[j] = x[j] + e;
        st = sp_shooting_cost(s, xs, &Jp);
        xs[j] = x[j] - e;
        if (st == SP_OK) st = sp_shooting_cost(s, xs, &Jm);
        xs[j] = x[j];
        grad[j] = (Jp - Jm) / (2.0 * e);
    }
    return st;
}

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    sp_plan *plan = data;
    double J = HUGE_VAL;
    /* NLopt checks maxeval only after an evaluation; keep the budget exactly. */
    if (plan->evaluations >= plan->pb->optimizer.maxeval) {
        plan->budget_spent = 1;
        nlopt_force_stop(plan->opt);
        if (grad) sp_vec_zero((int)n, grad);
        return HUGE_VAL;
    }
    sp_status st = !grad                                     ? sp_shooting_cost(plan->shooting, x, &J)
                   : plan->pb->optimizer.central_differences ? central_difference_gradient(plan->shooting, x, &J, grad)
                                                             : sp_shooting_gradient(plan->shooting, x, &J, grad);
    if (st == SP_OK && grad)
        for (unsigned j = 0; j < n; ++j) grad[j] /= plan->scale;
    plan->evaluations++;
    if (st != SP_OK) {
        plan->failure = st;
        nlopt_force_stop(plan->opt);
        if (grad) sp_vec_zero((int)n, grad);
        return HUGE_VAL;
    }
    return J / plan->scale;
}

/* Local gradient methods (NLopt's L-BFGS in particular) take a first trial step as long
 * as the gradient at the start, which for momenta weighted by 1/σ² throws the search
 * tens or thousands of units away, often into a far worse basin. Dividing J by
 * max(1, |∇J(x0)|) makes that first step unit length; minimisers are unchanged and the
 * tolerances given in units of J are rescaled to match. Returns 1 and uses one
 * evaluation of the budget, or 0 where no scaling applies. */
static int objective_scale(sp_plan *plan, const double *x0)
{
    const sp_optimizer_settings *s = &plan->pb->optimizer;
    plan->scale = 1.0;
    if (strncmp(s->algorithm, "LD_", 3) != 0 || s->maxeval < 2) return 0;
    double J, grad[2 * SP_LIE_MAX_DIM];
    plan->evaluations++;
    if (sp_shooting_gradient(plan->shooting, x0, &J, grad) != SP_OK) return 0;
    plan->scale = fmax(1.0, sp_vec_norm(sp_shooting_dim(plan->shooting), grad));
    if (s->ftol_abs > 0.0) nlopt_set_ftol_abs(plan->opt, s->ftol_abs / plan->scale);
    nlopt_set_stopval(plan->opt, s->stopval / plan->scale);
    return 1;
}

/* Global algorithms search a box, which NLopt requires them to have. */
static int needs_bounds(const char *name) { return name[0] == 'G' || strstr(name, "MLSL") != NULL; }
static int needs_local_optimizer(const char *name) { return strstr(name, "MLSL") || strstr(name, "AUGLAG"); }

static void set_stopping(nlopt_opt o, const sp_optimizer_settings *s)
{
    nlopt_set_xtol_rel(o, s->xtol_rel);
    if (s->xtol_abs > 0.0) nlopt_set_xtol_abs1(o, s->xtol_abs);
    if (s->ftol_rel > 0.0) nlopt_set_ftol_rel(o, s->ftol_rel);
    if (s->ftol_abs > 0.0) nlopt_set_ftol_abs(o, s->ftol_abs);
    if (s->maxtime > 0.0) nlopt_set_maxtime(o, s->maxtime);
    nlopt_set_stopval(o, s->stopval);
    nlopt_set_maxeval(o, s->maxeval);
}

sp_plan *sp_plan_new(const sp_problem *pb)
{
    sp_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return NULL;
    plan->pb = pb;
    plan->scale = 1.0;
    plan->shooting = sp_shooting_alloc(pb);
    const sp_optimizer_settings *s = &pb->optimizer;
    unsigned n = plan->shooting ? (unsigned)sp_shooting_dim(plan->shooting) : 0;
    if (n) plan->opt = nlopt_create(nlopt_algorithm_from_string(s->algorithm), n);
    if (!plan->opt) {
        sp_plan_free(plan);
        return NULL;
    }
    nlopt_set_min_objective(plan->opt, objective, plan);
    set_stopping(plan->opt, s);
    if (needs_bounds(s->algorithm)) {
        nlopt_set_lower_bounds1(plan->opt, -s->bound);
        nlopt_set_upper_bounds1(plan->opt, s->bound);
    }
    if (needs_local_optimizer(s->algorithm)) {
        nlopt_opt local = nlopt_create(nlopt_algorithm_from_string(s->local_algorithm), n);
        if (local) {
            set_stopping(local, s);
            nlopt_set_local_optimizer(plan->opt, local);
            nlopt_destroy(local);
        }
    }
    return plan;
}

void sp_plan_free(sp_plan *plan)
{
    if (!plan) return;
    nlopt_destroy(plan->opt);
    sp_shooting_free(plan->shooting);
    free(plan);
}

sp_shooting *sp_plan_shooting(sp_plan *plan) { return plan->shooting; }

/* The status word of a finished optimisation. "converged" is claimed only where the
 * gradient at the returned point is negligible (|∇J| ≤ gtol·max(1, |J|)): NLopt's
 * tolerance tests can fire while far from a stationary point ("stalled"), and its
 * L-BFGS often ends "roundoff limited" at the optimum itself (converged). */
static const char *plan_status(nlopt_result r, const sp_plan_result *res, double gtol)
{
    int stationary = res->gradient_norm <= gtol * fmax(1.0, fabs(res->cost));
    switch (r) {
    case NLOPT_SUCCESS:
    case NLOPT_FTOL_REACHED:
    case NLOPT_XTOL_REACHED:
    case NLOPT_ROUNDOFF_LIMITED:
        return stationary ? "converged" : "stalled";
    case NLOPT_STOPVAL_REACHED:
        return "stopval_reached";
    case NLOPT_MAXEVAL_REACHED:
        return stationary ? "converged" : "maxeval_reached";
    case NLOPT_MAXTIME_REACHED:
        return stationary ? "converged" : "maxtime_reached";
    case NLOPT_OUT_OF_MEMORY:
        return "out_of_memory";
    default:
        return "optimizer_failed";
    }
}

sp_status sp_plan_solve(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    const int n = sp_shooting_dim(plan->shooting);
    memset(res, 0, sizeof *res);
    if (pb->has_initial_momenta) sp_vec_copy(n, pb->initial_momenta, res->x);
    plan->evaluations = 0;
    plan->failure = SP_OK;
    plan->budget_spent = 0;
    objective_scale(plan, res->x);
    double f = HUGE_VAL;
    nlopt_result r = nlopt_optimize(plan->opt, res->x, &f);
    if (plan->budget_spent && plan->failure == SP_OK) r = NLOPT_MAXEVAL_REACHED;
    snprintf(res->optimizer_code, sizeof res->optimizer_code, "%s", nlopt_result_to_string(r));
    res->evaluations = plan->evaluations;
    res->failure = plan->failure;

    /* Re-evaluate at the returned point: cost, gradient and the recorded trajectory. */
    double grad[2 * SP_LIE_MAX_DIM], residual[2 * SP_LIE_MAX_DIM];
    sp_status st = plan->failure;
    if (st == SP_OK) st = sp_shooting_gradient(plan->shooting, res->x, &res->cost, grad);
    if (st == SP_OK) st = sp_shooting_trajectory(plan->shooting, res->x, &res->cost);
    if (st != SP_OK) {
        if (res->failure == SP_OK) res->failure = st;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(res->failure));
        /* record what can be recorded at the starting point for the report */
        double J;
        if (sp_shooting_trajectory(plan->shooting, res->x, &J) == SP_OK)
            res->cost = J;
        else
            res->cost = HUGE_VAL;
        return res->failure;
    }
    res->gradient_norm = sp_vec_norm(n, grad);
    sp_shooting_terminal_residual(plan->shooting, residual);
    res->residual_norm = sp_vec_norm(n, residual);
    snprintf(res->status, sizeof res->status, "%s", plan_status(r, res, pb->optimizer.gtol));
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
