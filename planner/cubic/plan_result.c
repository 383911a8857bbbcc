/* The result tree of a cubic plan (sp_plan_result_json, sp_plan.h): what every method
 * reports (targets, kicks, trajectory, samples, resolution, work and timing), written from
 * the solved plan object of plan.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/result_view.h"
#include "planner/cubic/plan_internal.h"
#include "planner/cubic/sp_pose_plan.h"
#include "planner/cubic/sp_samples.h"
#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/sp_result_file.h"

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

/* The quaternion q = [w, x, y, z] as the file asked for it: in its "quaternion_order". */
static cJSON *quaternion_json(const double *q, const sp_plan_settings *s)
{
    double written[4];
    sp_quaternion_to_order(q, s->quaternion_xyzw, written);
    return sp_json_vector(4, written);
}

/* A result that writes quaternions (targets, reached points and trajectory rows) says
 * first in which order: "quaternion_order": "wxyz" or "xyzw". */
static void add_quaternion_order(cJSON *root, const sp_problem *pb)
{
    if (pb->plan.quaternion_output)
        cJSON_AddStringToObject(root, "quaternion_order", sp_quaternion_order_at((size_t)pb->plan.quaternion_xyzw));
}

/* The orientation R as the user asked for it: rows of a matrix, or a quaternion on the
 * sheet of `near` (a quaternion [w, x, y, z]; NULL: the one with w ≥ 0), written in the
 * file's order; the quaternion, as [w, x, y, z], also goes to q. */
static void add_orientation(cJSON *o, const char *name, const double *R, const sp_plan_settings *s, const double *near,
                            double *q)
{
    if (!s->quaternion_output) {
        sp_json_add_rows(o, name, 3, 3, R, 3);
        return;
    }
    sp_quaternion_from_rotation(R, q);
    if (near) sp_quaternion_follow(q, near);
    cJSON_AddItemToObject(o, name, quaternion_json(q, s));
}

/* Per keyframe its time, grid step, the target, the reached point and the distance;
 * and the momentum kick there. g of keyframe i at target_g + i·elem_size. */
static void add_targets(cJSON *root, const sp_problem *pb, const double *target_g, const int *steps,
                        const double *kicks)
{
    const sp_cubic_spline *c = &pb->cubic;
    const sp_group *G = c->group;
    const int n = G->dim;
    cJSON *targets = cJSON_AddArrayToObject(root, "targets");
    cJSON *kick_list = cJSON_AddArrayToObject(root, "kicks");
    for (size_t i = 0; i < c->n_targets; ++i) {
        const double *g = target_g + i * (size_t)G->elem_size;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", c->targets[i].t);
        cJSON_AddNumberToObject(o, "step", steps[i]);
        if (c->space == SP_SPACE_SPHERE) {
            double y[3];
            G->act(G, g, c->y0, y);
            sp_json_add_vector(o, "target", 3, c->targets[i].y);
            sp_json_add_vector(o, "reached", 3, y);
        } else if (G == sp_group_se3) {
            /* as SO3xR3 results: the orientation's fields, the position's under position_* */
            double R[9], x[3], Rr[9], xr[3], target_q[4], reached_q[4];
            sp_se3_to_pose(c->targets[i].R, R, x);
            sp_se3_to_pose(g, Rr, xr);
            add_orientation(o, "target", R, &pb->plan, NULL, target_q);
            add_orientation(o, "reached", Rr, &pb->plan, target_q, reached_q);
            cJSON_AddNumberToObject(o, "distance", sp_rotation_angle_between(R, Rr));
            sp_json_add_vector(o, "position_target", 3, x);
            sp_json_add_vector(o, "position_reached", 3, xr);
            cJSON_AddNumberToObject(o, "position_distance", sp_vec_dist(3, x, xr));
        } else if (G != sp_group_so3) {
            sp_json_add_vector(o, "target", G->elem_size, c->targets[i].R); /* points of Rⁿ */
            sp_json_add_vector(o, "reached", G->elem_size, g);
        } else {
            double target_q[4], reached_q[4]; /* the reached quaternion on the target's sheet */
            add_orientation(o, "target", c->targets[i].R, &pb->plan, NULL, target_q);
            add_orientation(o, "reached", g, &pb->plan, target_q, reached_q);
        }
        if (G != sp_group_se3) cJSON_AddNumberToObject(o, "distance", sp_cubic_target_distance(c, i, g));
        cJSON_AddItemToArray(targets, o);

        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "t", c->targets[i].t);
        sp_json_add_vector(k, "kick", n, kicks + i * (size_t)n);
        cJSON_AddItemToArray(kick_list, k);
    }
}

/* The trajectory block, with orientations as quaternions when asked: each row's
 * quaternion the one nearer the row before (the first with w ≥ 0), so that a smooth
 * curve gives smooth rows. SE(3) poses are written as SO3xR3 writes them: the rotation's
 * rows in q, the position in x (ξ, ν and π stay the body twist's and its momenta). */
static cJSON *plan_trajectory(const sp_problem *pb, const sp_hohp_state *z, const double *t, int count)
{
    const sp_cubic_spline *c = &pb->cubic;
    const int se3 = c->group == sp_group_se3;
    cJSON *tr = sp_trajectory_json(c->group, z, t, count, c->space == SP_SPACE_SPHERE ? c->y0 : NULL);
    if (tr && se3) {
        cJSON *q = cJSON_CreateArray(), *x = cJSON_AddArrayToObject(tr, "x");
        for (int k = 0; q && x && k < count; ++k) {
            double R[9], p[3];
            sp_se3_to_pose(z[k].g, R, p);
            cJSON_AddItemToArray(q, sp_json_vector(9, R));
            cJSON_AddItemToArray(x, sp_json_vector(3, p));
        }
        cJSON_ReplaceItemInObjectCaseSensitive(tr, "q", q);
    }
    if (tr && pb->plan.quaternion_output) {
        cJSON_DeleteItemFromObjectCaseSensitive(tr, "q");
        cJSON *rows = cJSON_AddArrayToObject(tr, "quaternion");
        double q[4], previous[4], R[9], p[3];
        for (int k = 0; rows && k < count; ++k) {
            if (se3) sp_se3_to_pose(z[k].g, R, p);
            sp_quaternion_from_rotation(se3 ? R : z[k].g, q);
            if (k > 0) sp_quaternion_follow(q, previous);
            memcpy(previous, q, sizeof q);
            cJSON_AddItemToArray(rows, quaternion_json(q, &pb->plan));
        }
        /* the position last, as in SO3xR3 rows */
        if (se3) cJSON_AddItemToObject(tr, "x", cJSON_DetachItemFromObjectCaseSensitive(tr, "x"));
    }
    return tr;
}

static void add_terminal(cJSON *root, int n, const double *residual, double norm)
{
    cJSON *term = cJSON_AddObjectToObject(root, "terminal_residual");
    sp_json_add_vector(term, "nu", n, residual);
    sp_json_add_vector(term, "p", n, residual + n);
    cJSON_AddNumberToObject(term, "norm", norm);
}

/* What Newton reached and what it took, at the top and in "work" (returned, for more). */
static cJSON *add_newton_effort(cJSON *root, const sp_plan *plan, const sp_plan_result *res, int derivative_sweeps)
{
    cJSON_AddNumberToObject(root, "optimality_residual", res->gradient_norm);
    cJSON_AddNumberToObject(root, "tolerance", plan->pb->plan.tolerance);
    cJSON_AddNumberToObject(root, "iterations", plan->iterations);
    cJSON_AddNumberToObject(root, "factorizations", plan->factorizations);
    cJSON_AddNumberToObject(root, "sweeps", plan->sweeps);
    cJSON *work = cJSON_AddObjectToObject(root, "work");
    cJSON_AddNumberToObject(work, "newton_iterations", plan->iterations);
    cJSON_AddNumberToObject(work, "factorizations", plan->factorizations);
    cJSON_AddNumberToObject(work, "sweeps", plan->sweeps);
    cJSON_AddNumberToObject(work, "derivative_sweeps", derivative_sweeps);
    return work;
}

/* The grid chosen for the accuracy asked, and the error estimated on it. */
static void add_resolution(cJSON *root, const sp_plan *plan)
{
    const double accuracy = sp_plan_accuracy(plan->pb);
    cJSON *acc = cJSON_AddObjectToObject(root, "resolution");
    cJSON_AddNumberToObject(acc, "accuracy", accuracy);
    if (isfinite(plan->error_estimate)) cJSON_AddNumberToObject(acc, "error_estimate", plan->error_estimate);
    cJSON_AddBoolToObject(acc, "reached", plan->error_estimate <= accuracy);
    cJSON_AddNumberToObject(acc, "steps", plan->steps);
    cJSON_AddNumberToObject(acc, "rounds", plan->resolution_rounds);
}

/* Every start the plan ran: how it ended, at what cost, after how much work. */
static void add_starts(cJSON *root, const sp_plan *plan)
{
    cJSON *starts = cJSON_AddArrayToObject(root, "starts");
    for (int q = 0; q < plan->n_starts; ++q) {
        const plan_start *r = &plan->starts[q];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "start", r->name);
        cJSON_AddStringToObject(o, "status", r->status);
        if (isfinite(r->cost)) cJSON_AddNumberToObject(o, "cost", r->cost);
        cJSON_AddNumberToObject(o, "optimality_residual", r->residual);
        cJSON_AddNumberToObject(o, "iterations", r->iterations);
        cJSON_AddNumberToObject(o, "sigma_stages", r->stages);
        if (r->direct_evaluations) cJSON_AddNumberToObject(o, "direct_evaluations", r->direct_evaluations);
        cJSON_AddItemToArray(starts, o);
    }
}

/* The result of a round-metric sphere plan: the fields of every keyframe plan, from the
 * condensed solution (sp_round.h). */
static cJSON *round_json(sp_plan *plan, const sp_plan_result *res, cJSON *root)
{
    const sp_problem *pb = plan->pb;
    const sp_round_solution *sol = &plan->round;
    cJSON_AddStringToObject(root, "method", "multiple_shooting");
    if (isfinite(res->cost)) {
        cJSON_AddNumberToObject(root, "cost", res->cost);
        cJSON_AddNumberToObject(root, "running_cost", sol->running);
        cJSON_AddNumberToObject(root, "target_cost", res->cost - sol->running);
    }
    add_newton_effort(root, plan, res, plan->linearised);
    add_starts(root, plan);
    if (sol->nodes) {
        const int K = (int)pb->cubic.n_targets;
        sp_json_add_vector(root, "initial_momenta", 6, res->x);
        sp_json_add_vector(root, "initial_velocity", 3, sol->nodes[0].xi);
        sp_json_add_vector(root, "final_velocity", 3, sol->nodes[sol->node_count - 1].xi);
        add_terminal(root, 3, sol->terminal, res->residual_norm);
        double *target_g = malloc((size_t)K * 9 * sizeof *target_g);
        if (target_g) {
            for (int i = 0; i < K; ++i) sp_vec_copy(9, sol->nodes[sol->target_node[i]].g, target_g + 9 * i);
            add_targets(root, pb, target_g, sol->target_node, sol->kicks);
        }
        free(target_g);
        /* rows every record_every nodes, at every keyframe (before its jump, as other plans
         * write them) and at T */
        const int every = pb->record_every > 0 ? pb->record_every : 1;
        sp_hohp_state *rows = malloc((size_t)sol->node_count * sizeof *rows);
        double *t = malloc((size_t)sol->node_count * sizeof *t);
        int count = 0;
        for (int k = 0, next = 0; rows && t && k < sol->node_count; ++k) {
            const int keyframe = next < K && sol->target_node[next] == k;
            if (k % every == 0 || keyframe || k + 1 == sol->node_count) {
                rows[count] = sol->nodes[k];
                if (keyframe) sp_vec_axpy(3, -1.0, sol->kicks + 3 * next, rows[count].nu);
                t[count++] = sol->t[k];
            }
            if (keyframe) ++next;
        }
        if (rows && t) cJSON_AddItemToObject(root, "trajectory", plan_trajectory(pb, rows, t, count));
        free(rows), free(t);
        add_resolution(root, plan);
    }
    if (plan->curve && sp_samples_add(root, pb, plan->curve) != SP_OK)
        cJSON_AddStringToObject(root, "samples_error", "a step of the curve failed");
    sp_result_add_timing(root, plan->seconds, &plan->times, plan->sweeps - plan->linearised, plan->linearised);
    return root;
}

static cJSON *multiple_shooting_json(sp_plan *plan, const sp_plan_result *res, cJSON *root)
{
    if (plan->has_round) return round_json(plan, res, root);
    const sp_problem *pb = plan->pb;
    const int n = pb->cubic.group->dim;
    const int direct = pb->plan.method == SP_METHOD_DIRECT;
    cJSON_AddStringToObject(root, "method", direct ? "direct" : "multiple_shooting");
    if (isfinite(res->cost)) {
        cJSON_AddNumberToObject(root, "cost", res->cost);
        cJSON_AddNumberToObject(root, "running_cost", plan->stats.running_cost);
        cJSON_AddNumberToObject(root, "target_cost", res->cost - plan->stats.running_cost);
    }
    if (direct) {
        cJSON_AddStringToObject(root, "optimizer_result", res->optimizer_code);
        cJSON_AddNumberToObject(root, "evaluations", res->evaluations);
    }
    cJSON *work = add_newton_effort(root, plan, res, plan->linearised + plan->direct_gradients);
    if (direct) cJSON_AddNumberToObject(work, "optimizer_evaluations", res->evaluations);
    add_starts(root, plan);
    if (!plan->ms || !plan->report.states) return root;
    const sp_ms_report *rep = &plan->report;
    sp_json_add_vector(root, "initial_momenta", 2 * n, rep->initial_momenta);
    sp_json_add_vector(root, "initial_velocity", n, rep->initial_velocity);
    sp_json_add_vector(root, "final_velocity", n, rep->final_velocity);
    add_terminal(root, n, rep->terminal, res->residual_norm);
    add_quaternion_order(root, pb);
    add_targets(root, pb, rep->target_g, rep->target_step, rep->kicks);
    cJSON_AddItemToObject(root, "trajectory", plan_trajectory(pb, rep->states, rep->t, rep->count));
    if (pb->steps == 0) add_resolution(root, plan);
    if (plan->curve && sp_samples_add(root, pb, plan->curve) != SP_OK) cJSON_AddStringToObject(root, "samples_error", "a step of the curve failed");
    cJSON *diag = cJSON_AddObjectToObject(root, "diagnostics");
    cJSON_AddNumberToObject(diag, "momentum_map_drift", rep->momentum_map_drift);
    /* derivative sweeps: the block Jacobians, or the direct form's costates with its cost */
    sp_result_add_timing(root, plan->seconds, &plan->times, plan->sweeps - plan->linearised - plan->direct_gradients,
               plan->linearised + plan->direct_gradients);
    return root;
}

static cJSON *single_shooting_json(sp_plan *plan, const sp_plan_result *res, cJSON *root)
{
    const sp_problem *pb = plan->pb;
    const sp_cubic_spline *c = &pb->cubic;
    const sp_group *G = c->group;
    const int n = G->dim, N = pb->steps;
    sp_shooting *s = plan->shooting;
    const sp_hohp_state *z = sp_shooting_states(s);
    const int *steps = sp_shooting_target_steps(s);
    const double *t = sp_shooting_times(s);

    cJSON_AddStringToObject(root, "optimizer_result", res->optimizer_code);
    if (isfinite(res->cost)) {
        cJSON_AddNumberToObject(root, "cost", res->cost);
        cJSON_AddNumberToObject(root, "running_cost", sp_shooting_running_cost(s));
        cJSON_AddNumberToObject(root, "target_cost", res->cost - sp_shooting_running_cost(s));
    }
    cJSON_AddNumberToObject(root, "iterations", res->evaluations);
    cJSON_AddNumberToObject(root, "gradient_norm", res->gradient_norm);
    sp_shooting_timing tm = sp_shooting_get_timing(s);
    cJSON *work = cJSON_AddObjectToObject(root, "work");
    cJSON_AddNumberToObject(work, "optimizer_evaluations", res->evaluations);
    cJSON_AddNumberToObject(work, "sweeps", (double)(tm.forward_sweeps + tm.adjoint_sweeps));
    cJSON_AddNumberToObject(work, "derivative_sweeps", (double)tm.adjoint_sweeps);
    sp_json_add_vector(root, "initial_momenta", 2 * n, res->x);
    if (!isfinite(res->cost)) return root; /* nothing sound to report beyond this */

    double residual[2 * SP_LIE_MAX_DIM];
    sp_shooting_terminal_residual(s, residual);
    add_terminal(root, n, residual, res->residual_norm);

    double *target_g = malloc((c->n_targets ? c->n_targets : 1) * (size_t)G->elem_size * sizeof *target_g);
    if (!target_g) return root;
    for (size_t i = 0; i < c->n_targets; ++i)
        sp_vec_copy(G->elem_size, z[steps[i]].g, target_g + i * (size_t)G->elem_size);
    add_quaternion_order(root, pb);
    add_targets(root, pb, target_g, steps, sp_shooting_kicks(s));
    free(target_g);

    cJSON_AddItemToObject(root, "trajectory", plan_trajectory(pb, z, t, N + 1));
    cJSON *diag = cJSON_AddObjectToObject(root, "diagnostics");
    cJSON_AddNumberToObject(diag, "momentum_map_drift", momentum_map_drift_between_kicks(s, G, N, c->n_targets));

    plan->times.plain_sweeps = tm.forward_seconds, plan->times.derivative_sweeps = tm.adjoint_seconds;
    sp_result_add_timing(root, plan->seconds, &plan->times, (double)tm.forward_sweeps, (double)tm.adjoint_sweeps);

    return root;
}

cJSON *sp_plan_result_json(sp_plan *plan, const sp_plan_result *res)
{
    const sp_problem *pb = plan->pb;
    if (plan->weighted) return sp_plan_result_json(plan->sub[0], res);
    if (pb->plan.pose)
        return sp_pose_merge(sp_plan_result_json(plan->sub[0], &plan->sub_result[0]),
                             sp_plan_result_json(plan->sub[1], &plan->sub_result[1]));
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "task", "plan");
    cJSON_AddStringToObject(root, "model", pb->model);
    cJSON_AddStringToObject(root, "status", res->status);
    if (pb->plan.method != SP_METHOD_SINGLE_SHOOTING) {
        multiple_shooting_json(plan, res, root);
    } else {
        cJSON_AddStringToObject(root, "method", "single_shooting");
        single_shooting_json(plan, res, root);
    }
    cJSON *settings = cJSON_AddObjectToObject(root, "settings");
    /* the round metric's curve is integrated by DOP853's order-8 table in R³, not an HOHP scheme */
    cJSON_AddStringToObject(settings, "scheme", plan->has_round ? "dop853" : pb->scheme->name);
    cJSON_AddStringToObject(settings, "retraction", pb->retraction->name);
    if (pb->cubic.space == SP_SPACE_SPHERE)
        cJSON_AddStringToObject(settings, "metric", pb->cubic.metric == SP_SPHERE_ROUND ? "round" : "rotation");
    if (pb->cubic.group == sp_group_se3) {
        /* the weights of a|ω|² + b|v|² */
        const sp_se3_metric m = sp_se3_metric_of(pb);
        cJSON *metric = cJSON_AddObjectToObject(settings, "metric");
        cJSON_AddNumberToObject(metric, "rotation", m.rotation);
        cJSON_AddNumberToObject(metric, "translation", m.translation);
    }
    if (pb->plan.method != SP_METHOD_MULTIPLE_SHOOTING) {
        cJSON_AddStringToObject(settings, "algorithm", pb->optimizer.algorithm);
        cJSON_AddStringToObject(settings, "gradient",
                                pb->optimizer.central_differences ? "central_difference" : "adjoint");
    }
    cJSON_AddNumberToObject(settings, "steps", plan->steps > 0 ? plan->steps : pb->steps);
    return root;
}
