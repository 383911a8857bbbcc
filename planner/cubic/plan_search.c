/* The multiple-shooting search of a plan (plan.c): each start (the direct form, then
 * Newton through the stages of σ), the grid's first resolution and its refinement until
 * the accuracy asked, and the exact plans (sp_exact.h). */
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

/* NLopt's objective on the direct form, the time of its gradient sweeps kept. */
typedef struct direct_call {
    sp_direct *d;
    double seconds;
} direct_call;

static sp_status direct_objective(void *ctx, const double *x, double *f, double *grad)
{
    direct_call *c = ctx;
    const double t0 = sp_clock_seconds();
    sp_status st = sp_direct_cost(c->d, x, f, grad);
    c->seconds += sp_clock_seconds() - t0;
    return st;
}

/* NLopt on the direct form: its evaluations' sweeps and its own work between them. */
static sp_status optimize_direct(sp_plan *plan, const sp_optimizer_settings *o, sp_direct *d, double *x,
                                 sp_optimize_result *opt)
{
    direct_call call = {.d = d};
    const double t0 = sp_clock_seconds();
    sp_status st = sp_optimize(o, sp_direct_dim(d), direct_objective, &call, x, &plan->progress, 0, opt);
    plan->times.derivative_sweeps += call.seconds;
    plan->times.optimizer += sp_clock_seconds() - t0 - call.seconds;
    return st;
}

static void add_work(sp_plan *plan, plan_start *rec, const sp_ms_stats *st)
{
    plan->iterations += st->iterations, plan->factorizations += st->factorizations, plan->sweeps += st->evaluations;
    plan->linearised += st->linearised;
    plan->times.plain_sweeps += st->forward_seconds, plan->times.derivative_sweeps += st->linearised_seconds;
    plan->times.linear_algebra += st->algebra_seconds;
    rec->iterations += st->iterations;
}

/* For a weighted plan whose Newton iteration cannot finish from the start curve (sphere
 * plans over long horizons, whose spin about y0 is a nearly free direction): L-BFGS on
 * the direct form from the same curve, in rounds, each followed by a short Newton polish
 * from the states the direct form's costates give. L-BFGS walks the flat valley that
 * Newton's linear model cannot; Newton finishes to round-off once it is close. */
static sp_status direct_then_newton(sp_plan *plan, sp_ms *ms, sp_start_kind kind, plan_start *rec, sp_ms_stats *stats)
{
    enum { ROUNDS = 6, ROUND_EVALUATIONS = 1500, POLISH_ITERATIONS = 12 };
    const sp_problem *pb = plan->pb;
    int M;
    const int *nodes = sp_ms_block_nodes(ms, &M);
    sp_direct *d = sp_direct_alloc_segments(pb, sp_ms_sigma(ms), plan->segment_steps);
    double *x = d ? malloc((size_t)sp_direct_dim(d) * sizeof *x) : NULL;
    sp_hohp_state *S = malloc((size_t)M * sizeof *S);
    const double t_start = sp_clock_seconds();
    sp_status st = d && x && S ? sp_direct_start(d, kind, x) : SP_ERR_NOMEM;
    plan->times.start += sp_clock_seconds() - t_start;
    sp_optimizer_settings o = {.algorithm = "LD_LBFGS",
                               .local_algorithm = "LD_LBFGS",
                               .xtol_rel = 1e-15,
                               .ftol_rel = 1e-15,
                               .stopval = -HUGE_VAL,
                               .maxeval = ROUND_EVALUATIONS,
                               .gtol = 1e-6,
                               .bound = 100.0};
    for (int r = 0; r < ROUNDS && st == SP_OK; ++r) {
        sp_optimize_result opt;
        st = optimize_direct(plan, &o, d, x, &opt);
        plan->sweeps += opt.evaluations, plan->direct_gradients += opt.evaluations;
        rec->direct_evaluations += opt.evaluations;
        if (st == SP_OK && opt.failure != SP_OK) st = opt.failure;
        if (st == SP_OK) st = sp_direct_node_states(d, x, nodes, M, S);
        if (st != SP_OK) break;
        sp_ms_set_states(ms, S);
        sp_ms_cap_iterations(ms, POLISH_ITERATIONS);
        st = sp_ms_solve(ms, &plan->progress, stats);
        add_work(plan, rec, stats);
        if (st != SP_OK || stats->converged) break;
    }
    sp_ms_cap_iterations(ms, INT_MAX);
    sp_direct_free(d);
    free(x), free(S);
    return st;
}

/* One plan at the weight of `ms`, from the states of `from` or else from the start
 * curve: Newton, then for a weighted plan the direct form when Newton stalls. */
static sp_status solve_stage(sp_plan *plan, sp_ms *ms, sp_start_kind kind, const sp_ms *from, plan_start *rec,
                             sp_ms_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    sp_status st = SP_OK;
    const double t0 = sp_clock_seconds();
    if (from)
        sp_ms_take_states(ms, from);
    else
        st = sp_ms_start(ms, kind);
    plan->times.start += sp_clock_seconds() - t0;
    const int fallback = !from && sp_ms_sigma(ms) > 0.0;
    if (fallback) sp_ms_cap_iterations(ms, 30);
    if (st == SP_OK) st = sp_ms_solve(ms, &plan->progress, stats);
    sp_ms_cap_iterations(ms, INT_MAX);
    add_work(plan, rec, stats);
    if (fallback && !stats->converged && (st == SP_OK || st == SP_ERR_NO_CONVERGENCE || st == SP_ERR_SINGULAR))
        st = direct_then_newton(plan, ms, kind, rec, stats);
    return st;
}

/* One start: the plan itself, and when that does not converge, continuation in σ from a
 * weaker weighting down to the plan's own (σ = 0: to 1e-3, then exact). Returns the
 * solved object (converged or not; NULL on a failure that left nothing). */
sp_ms *sp_plan_run_start(sp_plan *plan, sp_start_kind kind, plan_start *rec, sp_status *failure)
{
    const sp_problem *pb = plan->pb;
    const double sigma = pb->cubic.sigma;
    rec->name = sp_start_name(kind);
    rec->sigma = sigma;
    rec->stages = 1;
    sp_ms_stats stats = {0};
    sp_ms *ms = sp_ms_alloc_segments(pb, sigma, plan->segment_steps);
    sp_status st = ms ? solve_stage(plan, ms, kind, NULL, rec, &stats) : SP_ERR_NOMEM;
    if (st != SP_ERR_INTERRUPTED && st != SP_ERR_NOMEM && !stats.converged) {
        const sp_ms_stats own = stats; /* of ms, should the continuation not reach the plan's σ */
        double hi = fmax(0.3, 8.0 * sigma), lo = sigma > 0.0 ? sigma : 1e-3;
        int stages = (int)ceil(log(hi / lo) / log(2.0));
        sp_ms *prev = NULL;
        sp_status cs = SP_OK;
        for (int k = 0; k <= stages + (sigma == 0.0) && cs != SP_ERR_INTERRUPTED; ++k) {
            double s_k = k > stages ? 0.0 : hi * pow(lo / hi, (double)k / stages);
            sp_ms *next = sp_ms_alloc_segments(pb, s_k, plan->segment_steps);
            if (!next) {
                cs = SP_ERR_NOMEM;
                break;
            }
            sp_ms_stats cstats;
            cs = solve_stage(plan, next, kind, prev, rec, &cstats);
            rec->stages++;
            sp_ms_free(prev);
            prev = next;
            stats = cstats;
            if (cs != SP_OK || !cstats.converged) break;
        }
        if (prev && sp_ms_sigma(prev) == sigma) {
            sp_ms_free(ms);
            ms = prev, st = cs;
        } else {
            sp_ms_free(prev);
            stats = own; /* the start reports the curve it returns, not the stage that failed */
        }
    }
    rec->cost = stats.cost, rec->running = stats.running_cost, rec->residual = stats.residual;
    snprintf(rec->status, sizeof rec->status, "%s",
             st != SP_OK       ? sp_status_name(st)
             : stats.converged ? "converged"
                               : "stalled");
    if (st != SP_OK && st != SP_ERR_INTERRUPTED) {
        *failure = st;
        if (!isfinite(stats.cost)) {
            sp_ms_free(ms);
            return NULL;
        }
    }
    if (st == SP_ERR_INTERRUPTED) *failure = st;
    return ms;
}

/* The file's NLopt algorithm and stopping rules on the direct form from the spline
 * start, finished by Newton on the optimality system from the curve it returns. */
sp_ms *sp_plan_run_direct(sp_plan *plan, plan_start *rec, sp_status *failure, sp_optimize_result *opt)
{
    const sp_problem *pb = plan->pb;
    rec->name = sp_start_name(SP_START_SPLINE);
    rec->sigma = pb->cubic.sigma;
    rec->stages = 1;
    memset(opt, 0, sizeof *opt);
    sp_ms *ms = sp_ms_alloc(pb, pb->cubic.sigma);
    sp_direct *d = sp_direct_alloc(pb, pb->cubic.sigma);
    int M = 0;
    const int *nodes = ms ? sp_ms_block_nodes(ms, &M) : NULL;
    double *x = d ? malloc((size_t)sp_direct_dim(d) * sizeof *x) : NULL;
    sp_hohp_state *S = malloc((size_t)(M ? M : 1) * sizeof *S);
    const double t_start = sp_clock_seconds();
    sp_status st = ms && d && x && S ? sp_direct_start(d, SP_START_SPLINE, x) : SP_ERR_NOMEM;
    plan->times.start += sp_clock_seconds() - t_start;
    if (st == SP_OK)
        st = optimize_direct(plan, &pb->optimizer, d, x, opt);
    if (st == SP_OK) st = opt->failure;
    plan->sweeps += opt->evaluations, plan->direct_gradients += opt->evaluations; /* each with its gradient */
    rec->direct_evaluations = opt->evaluations;
    sp_ms_stats stats = {0};
    if (st == SP_OK) st = sp_direct_node_states(d, x, nodes, M, S);
    if (st == SP_OK) {
        sp_ms_set_states(ms, S);
        st = sp_ms_solve(ms, &plan->progress, &stats);
        add_work(plan, rec, &stats);
    }
    sp_direct_free(d);
    free(x), free(S);
    rec->cost = stats.cost, rec->running = stats.running_cost, rec->residual = stats.residual;
    snprintf(rec->status, sizeof rec->status, "%s",
             st != SP_OK       ? sp_status_name(st)
             : stats.converged ? "converged"
                               : "stalled");
    if (st != SP_OK) {
        *failure = st;
        if (st != SP_ERR_INTERRUPTED || !(stats.cost < HUGE_VAL)) {
            sp_ms_free(ms);
            return NULL;
        }
    }
    return ms;
}


/* First steps per segment: the distance between neighbouring keyframes over the largest
 * step that the order-p scheme takes to `accuracy` on a random walk of a keyframe per
 * unit time (0.5 rad at 1e-6 with p = 8), the rest left to the refinement. */
sp_status sp_plan_first_resolution(sp_plan *plan, double step_at_1e6)
{
    const sp_problem *pb = plan->pb;
    const sp_cubic_spline *c = &pb->cubic;
    const sp_group *G = c->group;
    const size_t segments = sp_cubic_segments(c, pb->T);
    plan->segment_steps = malloc(segments * sizeof *plan->segment_steps);
    if (!plan->segment_steps) return SP_ERR_NOMEM;
    const double step = step_at_1e6 * pow(sp_plan_accuracy(pb) / 1e-6, 1.0 / pb->scheme->order);
    double a[SP_LIE_MAX_ELEM], b[SP_LIE_MAX_ELEM];
    sp_vec_copy(G->elem_size, pb->g0, a);
    if (c->space == SP_SPACE_SPHERE) G->act(G, pb->g0, c->y0, a);
    for (size_t i = 0; i < segments; ++i) {
        double d = 0.0;
        if (i < c->n_targets) {
            if (c->space == SP_SPACE_SPHERE) {
                sp_vec_copy(3, c->targets[i].y, b);
                d = acos(fmax(-1.0, fmin(1.0, sp_vec_dot(3, a, b))));
            } else {
                sp_vec_copy(G->elem_size, c->targets[i].R, b);
                double x[SP_LIE_MAX_DIM];
                d = sp_group_log_mismatch(G, a, b, x, NULL, NULL) == SP_OK ? sp_vec_norm(G->dim, x) : SP_PI;
            }
            sp_vec_copy(G->elem_size, b, a);
        }
        /* Rⁿ cubics are polynomials, which one step of the scheme resolves exactly */
        plan->segment_steps[i] = G != sp_group_rn(G->dim) ? (int)fmin(64.0, fmax(1.0, ceil(d / step))) : 1;
    }
    return SP_OK;
}

/* Solves on the grid of `counts` from the curve of `from`. */
static sp_ms *solve_on(sp_plan *plan, const int *counts, const sp_ms *from, sp_curve *curve, sp_ms_stats *stats,
                       sp_status *st)
{
    sp_ms *ms = sp_ms_alloc_segments(plan->pb, plan->pb->cubic.sigma, counts);
    if (!ms) {
        *st = SP_ERR_NOMEM;
        return NULL;
    }
    sp_ms_take_curve(ms, from, curve);
    sp_ms_take_factors(ms, from); /* the same system to O(h^p): simplified Newton from its factors */
    *st = sp_ms_solve(ms, &plan->progress, stats);
    plan_start dummy = {0};
    add_work(plan, &dummy, stats);
    return ms;
}

/* The curve of a solved object (NULL when out of memory or a step failed). */
sp_curve *sp_plan_curve_of(sp_plan *plan, sp_ms *ms)
{
    const double t0 = sp_clock_seconds();
    int N;
    const sp_plan_grid *grid = sp_ms_grid(ms, &N);
    sp_hohp_state *nodes = malloc(((size_t)N + 1) * sizeof *nodes);
    sp_curve *c = nodes && sp_ms_nodes(ms, nodes) == SP_OK ? sp_curve_new(plan->pb, N, grid->t, nodes) : NULL;
    free(nodes);
    plan->times.output += sp_clock_seconds() - t0;
    return c;
}

/* Doubles the steps of the best solution's grid and solves again from it; the distance
 * between the two curves (at the finer grid's nodes and midpoints) estimates the error
 * of the coarser, and the finer, about 2^p times more accurate, is kept. Segments still
 * farther apart than the accuracy get steps in proportion to (distance/accuracy)^{1/p}
 * and the round repeats. */
sp_status sp_plan_refine_resolution(sp_plan *plan, sp_ms **best, sp_ms_stats *best_stats)
{
    const sp_problem *pb = plan->pb;
    const size_t segments = sp_cubic_segments(&pb->cubic, pb->T);
    const double tol = sp_plan_accuracy(pb);
    const int p = pb->scheme->order;
    int *fine = malloc(segments * sizeof *fine);
    double *dist = malloc(segments * sizeof *dist);
    sp_status st = fine && dist ? SP_OK : SP_ERR_NOMEM;
    plan->error_estimate = HUGE_VAL;
    for (int round = 0; st == SP_OK && round < 6; ++round) {
        plan->resolution_rounds++;
        for (size_t i = 0; i < segments; ++i) fine[i] = 2 * plan->segment_steps[i];
        sp_curve *coarse = sp_plan_curve_of(plan, *best);
        sp_ms_stats fs;
        sp_ms *f = coarse ? solve_on(plan, fine, *best, coarse, &fs, &st) : NULL;
        sp_curve *fc = f && st == SP_OK && fs.converged ? sp_plan_curve_of(plan, f) : NULL;
        if (!fc) {
            sp_curve_free(coarse), sp_ms_free(f);
            if (st == SP_OK) st = coarse ? SP_OK : SP_ERR_NOMEM;
            break; /* the finer grid did not converge: keep what we have, its error unknown */
        }
        int N;
        st = sp_curve_distance(coarse, fc, sp_ms_grid(f, &N), pb->cubic.n_targets, dist);
        sp_curve_free(coarse), sp_curve_free(fc);
        if (st != SP_OK) {
            sp_ms_free(f);
            break;
        }
        double worst = 0.0;
        for (size_t i = 0; i < segments; ++i) worst = fmax(worst, dist[i]);
        sp_ms_free(*best);
        *best = f, *best_stats = fs;
        memcpy(plan->segment_steps, fine, segments * sizeof *fine);
        plan->error_estimate = worst;
        if (worst <= tol) break;
        /* the next round starts from the coarser grid that should reach the accuracy */
        for (size_t i = 0; i < segments; ++i) {
            int m = fine[i] / 2;
            if (dist[i] > tol) m = (int)ceil(m * 1.2 * pow(dist[i] / tol, 1.0 / p));
            if (m > SP_PLAN_MAX_SEGMENT_STEPS / 2) m = SP_PLAN_MAX_SEGMENT_STEPS / 2;
            plan->segment_steps[i] = m;
        }
        sp_curve *fcurve = sp_plan_curve_of(plan, *best);
        sp_ms *next = fcurve ? solve_on(plan, plan->segment_steps, *best, fcurve, &fs, &st) : NULL;
        sp_curve_free(fcurve);
        if (!next || st != SP_OK || !fs.converged) {
            sp_ms_free(next);
            memcpy(plan->segment_steps, fine, segments * sizeof *fine);
            break;
        }
        sp_ms_free(*best);
        *best = next, *best_stats = fs;
    }
    free(fine), free(dist);
    return st;
}

/* Exact interpolation on SO(3), SE(3) or Rⁿ, and sphere plans exact or weighted, by the
 * condensed solver (sp_exact.h), its solution checked by the general system: the object
 * holding it, or NULL when the condensed solver did not converge (the general search then
 * runs). */
sp_ms *sp_plan_solve_exact(sp_plan *plan, plan_start *rec, sp_status *failure)
{
    const sp_problem *pb = plan->pb;
    /* one step per radian between keyframes at 1e-6: the finer grid of the check (two) is
     * returned. A sphere plan's rotations also spin about y0, which the points do not show:
     * twice as many first steps keep its first grid's kicks close enough to the cost's
     * gradient for the outer iteration over the turns (sp_exact.h) */
    if (sp_plan_first_resolution(plan, pb->cubic.space == SP_SPACE_SPHERE ? 0.5 : 1.0) != SP_OK) {
        *failure = SP_ERR_NOMEM;
        return NULL;
    }
    sp_exact_solution sol;
    sp_status st = sp_exact_solve(pb, plan->segment_steps, &plan->progress, &sol);
    plan->iterations += sol.iterations, plan->factorizations += sol.jacobians, plan->sweeps += sol.sweeps;
    sp_time_parts_add(&plan->times, &sol.times);
    plan->linearised += sol.jacobians;
    const int block = pb->plan.block_steps > 0 ? pb->plan.block_steps : 64;
    int fits = st == SP_OK && sol.converged;
    for (size_t i = 0; fits && i < pb->cubic.n_targets; ++i) fits = sol.segment_steps[i] <= block;
    sp_ms *ms = NULL;
    sp_ms_stats stats = {0};
    if (fits) {
        memcpy(plan->segment_steps, sol.segment_steps, pb->cubic.n_targets * sizeof *plan->segment_steps);
        ms = sp_ms_alloc_segments(pb, pb->cubic.sigma, plan->segment_steps);
        if (ms) {
            sp_ms_set_states(ms, sol.knots);
            sp_ms_set_kicks(ms, sol.kicks);
            /* the general system's conditions on the solver's own last sweep */
            sp_ms_set_ends(ms, sol.ends, sol.segment_running, (int)pb->cubic.n_targets);
            st = sp_ms_solve(ms, &plan->progress, &stats);
            add_work(plan, rec, &stats);
            int N;
            const sp_plan_grid *grid = sp_ms_grid(ms, &N);
            const double t0 = sp_clock_seconds();
            if (st == SP_OK && stats.converged && N + 1 == sol.node_count)
                plan->curve = sp_curve_new(pb, N, grid->t, sol.nodes); /* the nodes of the last sweep */
            plan->times.output += sp_clock_seconds() - t0;
        } else {
            st = SP_ERR_NOMEM;
        }
    }
    plan->error_estimate = sol.error_estimate, plan->resolution_rounds = sol.rounds;
    rec->name = "spline";
    rec->sigma = pb->cubic.sigma, rec->stages = 1;
    rec->iterations += sol.iterations;
    sp_exact_solution_free(&sol);
    if (st != SP_OK) *failure = st;
    if (!ms || !stats.converged) {
        sp_ms_free(ms);
        free(plan->segment_steps);
        plan->segment_steps = NULL;
        plan->error_estimate = HUGE_VAL, plan->resolution_rounds = 0;
        return NULL;
    }
    rec->cost = stats.cost, rec->running = stats.running_cost, rec->residual = stats.residual;
    snprintf(rec->status, sizeof rec->status, "converged");
    plan->stats = (sp_ms_stats){
        .cost = stats.cost, .running_cost = stats.running_cost, .residual = stats.residual, .converged = 1};
    return ms;
}
