/* Plan task. The default solves the discrete optimality system of the whole plan by
 * multiple shooting with a banded Newton solver, from initial curves built through the
 * keyframes, and returns the lowest-cost solution found; single shooting lets NLopt
 * minimise J_d over the initial momenta with the adjoint gradient of sp_shooting
 * (derivative-free algorithms get the cost alone). Both share the step map; the result
 * tree of a solved plan is written by plan_result.c. */
#include <limits.h>
#include <nlopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/result_view.h"
#include "planner/sp_clock.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_direct.h"
#include "planner/cubic/sp_exact.h"
#include "planner/cubic/sp_samples.h"
#include "planner/cubic/sp_multiple_shooting.h"
#include "planner/sp_optimize.h"
#include "planner/cubic/sp_pose_plan.h"
#include "planner/cubic/sp_plan.h"
#include "planner/cubic/sp_round.h"
#include "planner/cubic/sp_se3_metric.h"
#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/sp_result_file.h"

#include "planner/cubic/plan_internal.h"

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
    plan->error_estimate = HUGE_VAL; /* unknown until a resolution check */
    if (pb->plan.pose) {
        if (sp_pose_split(pb, plan->parts) != SP_OK) {
            free(plan);
            return NULL;
        }
        plan->sub[0] = sp_plan_new(&plan->parts[0]);
        plan->sub[1] = sp_plan_new(&plan->parts[1]);
        if (!plan->sub[0] || !plan->sub[1]) {
            sp_plan_free(plan);
            return NULL;
        }
        return plan;
    }
    if (sp_se3_scaling_of(pb, &plan->scaling)) {
        plan->weighted = 1;
        if (sp_se3_scaled_problem(pb, &plan->scaling, &plan->parts[0]) != SP_OK ||
            !(plan->sub[0] = sp_plan_new(&plan->parts[0]))) {
            sp_plan_free(plan);
            return NULL;
        }
        return plan;
    }
    if (pb->plan.method != SP_METHOD_SINGLE_SHOOTING) return plan;
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
    if (plan->pb->plan.pose || plan->weighted) {
        sp_plan_free(plan->sub[0]);
        sp_plan_free(plan->sub[1]);
        sp_pose_parts_free(plan->parts); /* the copies of the targets */
    }
    sp_shooting_free(plan->shooting);
    sp_ms_free(plan->ms);
    sp_curve_free(plan->curve);
    sp_round_solution_free(&plan->round);
    free(plan->segment_steps);
    sp_ms_report_free(&plan->report);
    free(plan);
}

sp_shooting *sp_plan_shooting(sp_plan *plan) { return plan->shooting; }

void sp_plan_take_curves(sp_plan *plan, sp_curve *curves[2])
{
    if (plan->weighted) {
        sp_plan_take_curves(plan->sub[0], curves);
        return;
    }
    if (plan->pb->plan.pose) {
        sp_curve *position[2];
        sp_plan_take_curves(plan->sub[0], curves);
        sp_plan_take_curves(plan->sub[1], position);
        curves[1] = position[0];
        return;
    }
    curves[0] = plan->curve, curves[1] = NULL;
    plan->curve = NULL;
}

/* A weighted SE(3) plan's progress: the cost of its unit-metric plan, times a. */
static void report_weighted(void *ctx, const sp_progress_info *info)
{
    const sp_plan *plan = ctx;
    sp_progress_info weighted = *info;
    weighted.cost *= plan->scaling.a;
    sp_progress_report(&plan->progress, &weighted);
}

void sp_plan_set_progress(sp_plan *plan, const sp_progress *progress)
{
    plan->progress = progress ? *progress : (sp_progress){0};
    if (plan->weighted) {
        const sp_progress scaled = {.report = report_weighted, .ctx = plan, .stop = plan->progress.stop};
        sp_plan_set_progress(plan->sub[0], &scaled);
        return;
    }
    for (int k = 0; k < 2; ++k)
        if (plan->sub[k]) sp_plan_set_progress(plan->sub[k], progress);
}

/* A sphere plan in the round metric: the condensed solver alone (no general system holds
 * this cost); its nodes are lift states, so the curve, samples and extremes read it as
 * any plan's. */
static sp_status solve_round(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    const double t0 = sp_clock_seconds();
    sp_round_solution *sol = &plan->round;
    sp_status st = sp_round_solve(pb, &plan->progress, sol);
    plan->has_round = 1;
    plan->iterations = sol->iterations, plan->factorizations = sol->jacobians, plan->sweeps = sol->sweeps;
    plan->linearised = sol->jacobians;
    plan->times = sol->times;
    plan->error_estimate = sol->error_estimate, plan->resolution_rounds = sol->rounds;
    const int solved = st == SP_OK && sol->converged;
    if (solved) {
        const double t_curve = sp_clock_seconds();
        plan->steps = sol->node_count - 1;
        plan->curve = sp_curve_new(pb, plan->steps, sol->t, sol->nodes);
        if (!plan->curve) st = SP_ERR_NOMEM;
        plan->times.output += sp_clock_seconds() - t_curve;
    }
    plan_start *rec = &plan->starts[plan->n_starts++];
    rec->name = "spline";
    rec->sigma = pb->cubic.sigma, rec->stages = sol->stages > 0 ? sol->stages : 1, rec->iterations = sol->iterations;
    rec->cost = sol->cost, rec->running = sol->running, rec->residual = sol->residual;
    snprintf(rec->status, sizeof rec->status, "%s",
             st != SP_OK ? sp_status_name(st)
             : solved    ? "converged"
                         : "stalled");
    plan->stats =
        (sp_ms_stats){.cost = sol->cost, .running_cost = sol->running, .residual = sol->residual, .converged = solved};
    plan->seconds = sp_clock_seconds() - t0;
    res->evaluations = plan->sweeps;
    snprintf(res->optimizer_code, sizeof res->optimizer_code, "newton");
    res->cost = solved && st == SP_OK ? sol->cost : HUGE_VAL;
    res->gradient_norm = sol->residual;
    if (st != SP_OK) {
        res->failure = st;
        snprintf(res->status, sizeof res->status, "%s", st == SP_ERR_INTERRUPTED ? "interrupted" : sp_status_name(st));
        return st;
    }
    if (!solved) {
        /* Newton did not reach the tolerance from the spline start */
        snprintf(res->status, sizeof res->status, "stalled");
        return SP_OK;
    }
    res->residual_norm = sp_vec_norm(6, sol->terminal);
    sp_vec_copy(3, sol->nodes[0].nu, res->x);
    sp_vec_copy(3, sol->nodes[0].p, res->x + 3);
    snprintf(res->status, sizeof res->status, "converged");
    return SP_OK;
}

/* Every start from the keyframes (or NLopt's run on the direct form); the converged
 * solution of lowest cost wins. */
static sp_status solve_multiple_shooting(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    if (pb->cubic.space == SP_SPACE_SPHERE && pb->cubic.metric == SP_SPHERE_ROUND) {
        if (sp_round_applies(pb)) return solve_round(plan, res);
        /* a problem built in code past the reader's checks: the rotation metric's solver
         * would answer another question */
        res->failure = SP_ERR_INVALID, res->cost = HUGE_VAL;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(res->failure));
        return res->failure;
    }
    const double t0 = sp_clock_seconds();
    static const sp_start_kind kinds[] = {SP_START_SPLINE, SP_START_GEODESIC, SP_START_UNIFORM};
    sp_ms *best = NULL;
    int best_converged = 0;
    sp_status failure = SP_OK;
    sp_optimize_result opt = {0};
    const int direct = pb->plan.method == SP_METHOD_DIRECT;
    int condensed = 0;
    if (sp_exact_applies(pb) && !plan->grid_given) {
        plan_start *rec = &plan->starts[plan->n_starts];
        best = sp_plan_solve_exact(plan, rec, &failure);
        if (best) plan->n_starts++, best_converged = 1, condensed = 1;
        if (failure == SP_ERR_INTERRUPTED) condensed = 1; /* nothing more to run */
        else failure = SP_OK;
    }
    if (!condensed && pb->steps == 0 && !plan->segment_steps && sp_plan_first_resolution(plan, 0.5) != SP_OK) {
        res->failure = SP_ERR_NOMEM;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(res->failure));
        return res->failure;
    }
    if (direct) {
        plan_start *rec = &plan->starts[plan->n_starts++];
        best = sp_plan_run_direct(plan, rec, &failure, &opt);
        best_converged = best && strcmp(rec->status, "converged") == 0;
        plan->stats = (sp_ms_stats){
            .cost = rec->cost, .running_cost = rec->running, .residual = rec->residual, .converged = best_converged};
    }
    for (size_t q = 0; !direct && !condensed && q < sizeof kinds / sizeof kinds[0] && failure != SP_ERR_INTERRUPTED;
         ++q) {
        /* the uniform rotation only when no curve through the keyframes has converged */
        if (kinds[q] == SP_START_UNIFORM && best_converged) break;
        plan_start *rec = &plan->starts[plan->n_starts++];
        sp_status f = SP_OK;
        sp_ms *ms = sp_plan_run_start(plan, kinds[q], rec, &f);
        if (f == SP_ERR_INTERRUPTED) failure = f;
        int conv = strcmp(rec->status, "converged") == 0;
        if (ms && (!best || (conv && !best_converged) || (conv == best_converged && rec->cost < plan->stats.cost))) {
            sp_ms_free(best);
            best = ms, best_converged = conv;
            plan->stats = (sp_ms_stats){
                .cost = rec->cost, .running_cost = rec->running, .residual = rec->residual, .converged = conv};
        } else {
            sp_ms_free(ms);
        }
        if (!best && f != SP_OK && failure == SP_OK) failure = f;
    }
    if (best && best_converged && pb->steps == 0 && !plan->grid_given && !condensed && failure == SP_OK) {
        sp_ms_stats fs = plan->stats;
        sp_status rs = sp_plan_refine_resolution(plan, &best, &fs);
        if (rs == SP_ERR_INTERRUPTED) failure = rs;
        plan->stats = (sp_ms_stats){
            .cost = fs.cost, .running_cost = fs.running_cost, .residual = fs.residual, .converged = fs.converged};
        best_converged = fs.converged;
    }
    plan->ms = best;
    if (best) sp_ms_grid(best, &plan->steps);
    if (best && !plan->curve) plan->curve = sp_plan_curve_of(plan, best);
    plan->seconds = sp_clock_seconds() - t0;
    res->evaluations = direct ? opt.evaluations : plan->sweeps;
    snprintf(res->optimizer_code, sizeof res->optimizer_code, "%s", direct ? opt.code_name : "newton");
    if (!best) {
        res->failure = failure != SP_OK ? failure : SP_ERR_NO_CONVERGENCE;
        res->cost = HUGE_VAL;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(res->failure));
        return res->failure;
    }
    sp_status st = sp_ms_report_build(best, pb->record_every, &plan->report);
    if (st != SP_OK) {
        res->failure = st;
        snprintf(res->status, sizeof res->status, "%s", sp_status_name(st));
        return st;
    }
    const int n = pb->cubic.group->dim;
    res->cost = plan->stats.cost;
    res->gradient_norm = plan->stats.residual;
    res->residual_norm = sp_vec_norm(2 * n, plan->report.terminal);
    sp_vec_copy(2 * n, plan->report.initial_momenta, res->x);
    if (failure == SP_ERR_INTERRUPTED) {
        res->failure = failure;
        snprintf(res->status, sizeof res->status, "interrupted");
        return failure;
    }
    const int budget_spent =
        direct ? opt.code == (int)NLOPT_MAXEVAL_REACHED : plan->starts[0].iterations >= pb->plan.max_iterations;
    snprintf(res->status, sizeof res->status, "%s",
             best_converged ? "converged"
             : budget_spent ? "maxeval_reached"
                            : "stalled");
    return SP_OK;
}

/* A pose plan: both parts; the first failure or non-converged status speaks for both. */
static sp_status solve_pose(sp_plan *plan, sp_plan_result *res)
{
    memset(res, 0, sizeof *res);
    sp_status st = SP_OK;
    for (int k = 0; k < 2; ++k) {
        /* one grid for both parts (the position part, a cubic polynomial per segment, is
         * exact on any) */
        if (k == 1 && plan->pb->steps == 0 && plan->sub[0]->segment_steps) {
            const size_t segments = sp_cubic_segments(&plan->pb->cubic, plan->pb->T);
            plan->sub[1]->segment_steps = malloc(segments * sizeof *plan->sub[1]->segment_steps);
            if (!plan->sub[1]->segment_steps) return SP_ERR_NOMEM;
            memcpy(plan->sub[1]->segment_steps, plan->sub[0]->segment_steps, segments * sizeof(int));
            plan->sub[1]->grid_given = 1;
        }
        sp_status sk = sp_plan_solve(plan->sub[k], &plan->sub_result[k]);
        if (st == SP_OK) st = sk;
    }
    const sp_plan_result *a = &plan->sub_result[0], *b = &plan->sub_result[1];
    *res = strcmp(a->status, "converged") != 0 ? *a : *b;
    res->cost = a->cost + b->cost;
    res->gradient_norm = fmax(a->gradient_norm, b->gradient_norm);
    res->residual_norm = hypot(a->residual_norm, b->residual_norm);
    res->evaluations = a->evaluations + b->evaluations;
    res->failure = a->failure != SP_OK ? a->failure : b->failure;
    return st;
}

/* An SE(3) plan in a weighted metric: the unit-metric plan of the scaled positions,
 * solved, then read back as this plan's (sp_se3_metric.h): its report, curve, costs and
 * momenta. From then on the sub-plan holds this plan's solution, and answers for the
 * file's own problem. */
static sp_status solve_weighted(sp_plan *plan, sp_plan_result *res)
{
    sp_plan *sub = plan->sub[0];
    const sp_se3_scaling *k = &plan->scaling;
    sp_status st = sp_plan_solve(sub, res);
    res->cost *= k->a;
    sp_se3_unscale_covector(k, res->x);
    sp_se3_unscale_covector(k, res->x + 6);
    sub->stats.cost *= k->a, sub->stats.running_cost *= k->a;
    for (int q = 0; q < sub->n_starts; ++q) sub->starts[q].cost *= k->a, sub->starts[q].running *= k->a;
    sp_ms_report *rep = &sub->report;
    if (rep->states) {
        for (int r = 0; r < rep->count; ++r) sp_se3_unscale_state(k, &rep->states[r]);
        for (size_t i = 0; i < plan->pb->cubic.n_targets; ++i) {
            sp_se3_unscale_pose(k, rep->target_g + 16 * i);
            sp_se3_unscale_covector(k, rep->kicks + 6 * i);
        }
        sp_se3_unscale_covector(k, rep->initial_momenta);
        sp_se3_unscale_covector(k, rep->initial_momenta + 6);
        sp_se3_unscale_twist(k, rep->initial_velocity);
        sp_se3_unscale_twist(k, rep->final_velocity);
        sp_se3_unscale_covector(k, rep->terminal);
        sp_se3_unscale_covector(k, rep->terminal + 6);
        res->residual_norm = sp_vec_norm(12, rep->terminal);
    }
    if (sub->curve) sp_curve_read_weighted(sub->curve, k);
    sub->pb = plan->pb;
    return st;
}

static sp_status solve_single_shooting(sp_plan *plan, sp_plan_result *res);

sp_status sp_plan_solve(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    if (plan->weighted) return solve_weighted(plan, res);
    if (pb->plan.pose) return solve_pose(plan, res);
    memset(res, 0, sizeof *res);
    if (pb->plan.method != SP_METHOD_SINGLE_SHOOTING) return solve_multiple_shooting(plan, res);
    const double t0 = sp_clock_seconds();
    sp_status st = solve_single_shooting(plan, res);
    plan->seconds = sp_clock_seconds() - t0;
    return st;
}

/* NLopt on the initial momenta (single shooting), then the trajectory at its answer. */
static sp_status solve_single_shooting(sp_plan *plan, sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    const int n = sp_shooting_dim(plan->shooting);
    memset(res, 0, sizeof *res);
    if (pb->has_initial_momenta) sp_vec_copy(n, pb->initial_momenta, res->x);
    sp_optimize_result opt;
    const sp_shooting_timing before = sp_shooting_get_timing(plan->shooting);
    const double t0 = sp_clock_seconds();
    sp_status st = sp_optimize(&pb->optimizer, n, objective, plan, res->x, &plan->progress, 0, &opt);
    {
        const sp_shooting_timing after = sp_shooting_get_timing(plan->shooting);
        const double sweeps = (after.forward_seconds - before.forward_seconds) +
                              (after.adjoint_seconds - before.adjoint_seconds);
        plan->times.optimizer += sp_clock_seconds() - t0 - sweeps;
    }
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
    /* a small gradient of J over the six momenta is not yet optimality of the plan: the end
     * conditions ν_N⁺ = 0, p_N = 0 must hold too (relative to the momenta's size) */
    const char *status = sp_optimize_status(&opt, res->gradient_norm, res->cost, pb->optimizer.gtol);
    if (strcmp(status, "converged") == 0 && res->residual_norm > pb->optimizer.gtol * fmax(1.0, sp_vec_norm(n, res->x)))
        status = "stalled";
    snprintf(res->status, sizeof res->status, "%s", status);
    return SP_OK;
}
