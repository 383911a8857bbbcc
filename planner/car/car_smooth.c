/* The smoothing stage of the car's plan (sp_car_plan.h): the energy
 * ∫ (w_v v² + w_s δ̇²) dt over paths of the kinematic bicycle that keep the clearance and
 * join start and goal, minimised locally from the route by a direct transcription
 * (car_tx.c) solved by the augmented Lagrangian of car_al.c, by SLSQP (D. Kraft, A
 * software package for sequential quadratic programming, DFVLR-FB 88-28, 1988; NLopt's
 * LD_SLSQP) up to AL_ABOVE unknowns where it fails, and by the interior-point method of
 * car_ip.c from the route laid out by its pieces (first where the route leaves a
 * confined pose, last elsewhere); finished by Newton's method on the
 * KKT conditions (car_kkt.c). The swept footprint is checked densely after each solve;
 * where it dips below the clearance between the checked points, the constraints are
 * tightened by a margin, or where that was done before, made to hold over the arcs
 * between the points, and the problem solved again from there. */
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
#include "planner/sp_clock.h"
#include "problems/car/sp_car_geometry.h"

/* Pairs of a checked point and a polygon nearer than this beyond the clearance are
 * constrained; pairs found near a failed point are added later. */
#define NEAR 0.3

/* Where the route does not leave a confined pose, the augmented Lagrangian (car_al.c)
 * solves first, its steps kept near the clearance (guarded); where it fails, SLSQP solves
 * again from the route. Above AL_ABOVE unknowns SLSQP is not tried (its dense
 * subproblem's cost grows with their square: TPCAP case 19, 273 unknowns, took 50 to 70
 * ms an iteration): the augmented Lagrangian without the guard solves first and the
 * guarded one second. The first method may use FIRST_SHARE of the budgets, the second up
 * to FALLBACK_SHARE of them, and the interior-point method the rest (at least 40 %: with
 * 30 % left, scenes 100079 and 700108 were lost to the time). Where the route leaves a
 * confined pose, the interior-point method has TIGHT_FIRST_SHARE (with half, scene
 * 400100's three solves, 3.7 s, ran out of time; with 0.7, TPCAP case 7, whose route
 * takes 1.7 to 2.7 s of the budget, had 4.9 to 5.4 s for the 4.3 to 4.8 s it needs: the
 * tight scenes all converge by this method alone, in under 1.2 s), the augmented
 * Lagrangian up to TIGHT_SHARE and the second method the rest. The augmented Lagrangian
 * stops at AL_TOLERANCE, for car_kkt_polish to finish (at 1e-11, case 19's solve reached
 * 9e-11 with the inner problem solved, then ρ grew to 10⁹ and the inner steps stalled). */
#define AL_ABOVE 250
#define AL_TOLERANCE 1e-10
#define FIRST_SHARE 0.5
#define FALLBACK_SHARE 0.6
#define TIGHT_FIRST_SHARE 0.85
#define TIGHT_SHARE 0.95
/* A route whose way out of a confined pose took car_escape more than this many poses
 * leaves a tight slot: its smoothing begins with the interior-point method. (One found
 * in a few poses is a corner, not a slot: TPCAP case 20's, one pose, laid out by its
 * pieces as 553 unknowns where the even layout has 158, took the interior-point method
 * 5.4 s against 0.7 s for the augmented Lagrangian.) */
#define TIGHT_ESCAPE 10
/* Newton's steps on the KKT conditions go on below the tolerance, to POLISH times it:
 * they converge quadratically, and the defects the augmented Lagrangian leaves (up to
 * AL_TOLERANCE) are the goal's error and the path's length's */
#define POLISH 1e-6

/* A path keeps the clearance when its swept footprint comes no nearer than this inside
 * it (rounding). Only an interval that comes nearer is tightened: an interval whose
 * swept clearance is the clearance itself, its rows active at the checked points, needs
 * no margin (TPCAP case 7's first solve had 185 such intervals against one real dip of
 * 1.1 cm; the 2 mm margins it gave them made the next solve start 2 mm outside on every
 * one). */
#define DIP_TOL 1e-9

/* Processor time kept back from the smoothing for what the plan does after it (the rows
 * of the result, its swept clearance: 7 ms on TPCAP case 7's 27 m). */
#define RESULT_RESERVE 0.05
/* The route's processor time that leaves the smoothing its whole budget: beyond it, the
 * smoothing gets that much less, so that a plan ends within search.max_seconds +
 * ROUTE_GRACE (9.5 s by default: under 10 s of wall time with the process around it). */
#define ROUTE_GRACE 1.5

/* NLopt's callbacks */
typedef struct smooth_ctx {
    car_tx *t;
    const sp_progress *progress;
    nlopt_opt opt;
    int evaluations;
    double deadline; /* of car_solve_seconds */
    int out_of_time;
} smooth_ctx;

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    (void)n;
    smooth_ctx *s = data;
    ++s->evaluations;
    /* the caller's stop flag, checked before each evaluation (sp_progress.h) */
    if (sp_progress_stopped(s->progress)) nlopt_force_stop(s->opt);
    if (car_solve_seconds(s->t->waited) > s->deadline) {
        s->out_of_time = 1;
        nlopt_force_stop(s->opt);
    }
    return car_tx_energy(s->t, x, grad);
}

static void defects_cb(unsigned m, double *f, unsigned n, const double *x, double *grad, void *data)
{
    (void)m, (void)n;
    smooth_ctx *s = data;
    car_tx_defects(s->t, x, f, grad);
}

static void clearance_cb(unsigned m, double *f, unsigned n, const double *x, double *grad, void *data)
{
    (void)m, (void)n;
    smooth_ctx *s = data;
    car_tx_clearance(s->t, x, f, grad);
}

/* |δ_{k+1} − δ_k| ≤ h · max_steering_rate, two linear constraints per interval */
static void rate_cb(unsigned m, double *f, unsigned n, const double *x, double *grad, void *data)
{
    (void)m, (void)n;
    smooth_ctx *s = data;
    car_tx_rate(s->t, x, f, grad);
}

/* One SLSQP solve from x (in place) within the processor time `deadline` and
 * evals_left evaluations: *res NLopt's result (NLOPT_MAXTIME_REACHED when the deadline
 * stopped it), *evaluations, *out_of_time. SP_ERR_NOMEM or SP_OK. */
static sp_status slsqp(car_tx *t, double *x, const double *lb, const double *ub, const double *tol,
                       const sp_progress *progress, double deadline, long evals_left, nlopt_result *res,
                       int *evaluations, int *out_of_time)
{
    const size_t n = t->n;
    nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, (unsigned)n);
    if (!opt) {
        return SP_ERR_NOMEM;
    }
    smooth_ctx ctx = {.t = t, .progress = progress, .opt = opt, .deadline = deadline};
    nlopt_set_min_objective(opt, objective, &ctx);
    nlopt_set_lower_bounds(opt, lb);
    nlopt_set_upper_bounds(opt, ub);
    nlopt_add_equality_mconstraint(opt, (unsigned)(3 * t->N), defects_cb, &ctx, tol);
    double *itol = calloc(t->n_obs + 2 * t->N + 1, sizeof *itol);
    if (!itol) {
        nlopt_destroy(opt);
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < t->n_obs + 2 * t->N; ++i) itol[i] = 1e-10;
    if (t->n_obs) nlopt_add_inequality_mconstraint(opt, (unsigned)t->n_obs, clearance_cb, &ctx, itol);
    if (t->c->vehicle.max_steering_rate > 0)
        nlopt_add_inequality_mconstraint(opt, (unsigned)(2 * t->N), rate_cb, &ctx, itol);
    nlopt_set_ftol_rel(opt, 1e-14);
    nlopt_set_xtol_rel(opt, 1e-12);
    nlopt_set_maxeval(opt, (int)(evals_left < 600 ? evals_left : 600));
    double fval = 0.0;
    *res = nlopt_optimize(opt, x, &fval);
    if (ctx.out_of_time && *res == NLOPT_FORCED_STOP) *res = NLOPT_MAXTIME_REACHED; /* as NLopt's own time limit */
    *evaluations = ctx.evaluations, *out_of_time = ctx.out_of_time;
    nlopt_destroy(opt);
    free(itol);
    return SP_OK;
}

/* The KKT residual at x (car_kkt_eval). */
static sp_status kkt_residual(const car_tx *t, const double *x, const double *lb, const double *ub, double *stat,
                              double *viol, double *residual)
{
    car_kkt k;
    if (car_kkt_eval(t, x, lb, ub, &k) != SP_OK) return SP_ERR_NOMEM;
    *stat = k.stationarity, *viol = k.violation, *residual = k.residual;
    car_kkt_free(&k);
    return SP_OK;
}

/* Whether x's path keeps the clearance along the swept footprint and ends at the goal;
 * dip[k] gets how far interval k's swept footprint comes inside the clearance (negative:
 * it keeps it). */
static int path_ok(const car_tx *t, const double *x, double *least, double *dip, int *nomem)
{
    car_path p = {0};
    *nomem = 0;
    if (car_tx_path(t, x, &p) != SP_OK) {
        *nomem = 1;
        return 0;
    }
    double q[3] = {t->start[0], t->start[1], t->start[2]}, where;
    *least = HUGE_VAL;
    for (size_t k = 0; k < t->N; ++k) {
        const car_path v = {.K = CAR_SUB, .delta = p.delta + k * CAR_SUB, .s = p.s + k * CAR_SUB, .m = p.m + k * CAR_SUB};
        const double l = car_path_min_clearance(&v, t->w, q, 0.005, &where);
        dip[k] = t->w->clearance - l;
        *least = fmin(*least, l);
        /* at the checked points themselves (the joints of the arcs) the clearance holds
         * unless a pair was not constrained: then the dip is marked infinite */
        double a[3] = {q[0], q[1], q[2]};
        for (int j = 0; j < CAR_SUB && dip[k] > DIP_TOL; ++j) {
            car_arc(a, tan(v.delta[j]) / t->c->vehicle.wheelbase, v.s[j], a);
            if (car_world_distance(t->w, a, HUGE_VAL, NULL) < t->w->clearance - 1e-6) dip[k] = HUGE_VAL;
        }
        car_path_end(&v, &t->c->vehicle, q, q);
    }
    car_path_free(&p);
    const double err = fmax(hypot(q[0] - t->goal[0], q[1] - t->goal[1]), fabs(q[2] - t->goal[2]));
    return err <= 1e-7 && *least >= t->w->clearance - DIP_TOL;
}

typedef enum { AL_GUARDED, SLSQP, AL_FREE, IP } method;
static const char *const method_name[] = {"the augmented Lagrangian", "SLSQP", "the augmented Lagrangian (unguarded)",
                                          "the interior-point method"};

/* The solves of one method from the starting point x0 into best, within the processor
 * time `until` and `evals` evaluations; out's counters add up over the methods. *have 1
 * when best holds a path that keeps the clearance. SP_ERR_NOMEM, SP_ERR_INTERRUPTED or
 * SP_OK. */
static sp_status run(car_tx *t, method how, const double *x0, const double *lb, const double *ub, const double *tol,
                     const sp_progress *progress, double until, long evals, double *x, double *best, double *x0n,
                     double *dip, int *have, car_smooth_out *out)
{
    const size_t n = t->n;
    const sp_car_problem *c = t->c;
    const car_world *w = t->w;
    const long evals0 = out->iterations;
    *have = 0;
    memcpy(x, x0, n * sizeof *x);
    memset(t->margin, 0, t->N * sizeof *t->margin);
    memset(t->swept, 0, t->N);
    int polish = 0, solves = 0;
    /* the problem's version (margins, swept intervals, pairs), and the one the last solve
     * from the route had */
    unsigned version = 0, restarted = ~0u;
    /* Where the swept footprint dips inside the clearance between the checked points (a
     * corner of the car passing a vertex of an obstacle: between two points d apart the
     * dip can reach √(c² + d²/4) − c), that interval's constraints ask for the dip more,
     * and the problem is solved again from where it stopped. Where the same interval dips
     * again (in a tight slot the margin moves the dip rather than removing it), its rows
     * hold over the whole of its arcs instead (car_tx's swept rows, exact but dearer: a
     * one-dimensional search a row), and only a third dip there raises the margin again. */
    /* Then, while the KKT residual is above the tolerance, the solver starts again from
     * its last point (SLSQP with a fresh quasi-Newton matrix, which often takes it the
     * rest of the way), up to twice. All of it within the work budget (energy evaluations
     * over all solves: the same result on a loaded machine) and the processor time; the
     * one that ran out is reported. */
    for (int attempt = 0; attempt < 6; ++attempt) {
        const double left = until - car_solve_seconds(t->waited);
        const long evals_left = evals - (out->iterations - evals0);
        if (left <= 0.2) {
            out->budget = "max_seconds";
            break;
        }
        if (evals_left <= 0) {
            out->budget = "max_evaluations";
            break;
        }
        if (car_tx_select(t, x, NEAR) != SP_OK) return SP_ERR_NOMEM;
        int evaluations = 0, out_of_time = 0;
        nlopt_result res;
        /* the KKT conditions with the method's own multipliers (the interior-point method's) */
        double own_stat = HUGE_VAL, own_viol = HUGE_VAL;
        if (how != SLSQP) {
            /* a solve after the first starts near a solution: a large penalty keeps it there;
             * the interior-point method's barrier problem may take hundreds of steps (TPCAP
             * case 7's first, on 1888 unknowns, 525), the evaluations and the time bound it */
            const car_al_limits lim = {.tolerance = AL_TOLERANCE, .deadline = until, .near = NEAR,
                                       .rho = solves ? 1e5 : how == AL_GUARDED ? 1e3 : 1e2,
                                       .guard = how == AL_GUARDED ? fmax(1e-3, 0.4 * w->clearance) : HUGE_VAL,
                                       .max_outer = 60, .max_inner = how == IP ? 2000 : 60,
                                       .max_evaluations = (int)evals_left,
                                       .progress = progress};
            car_al_out ao;
            if ((how == IP ? car_ip_solve : car_al_solve)(t, x, lb, ub, &lim, &ao) != SP_OK) return SP_ERR_NOMEM;
            evaluations = ao.evaluations;
            own_stat = ao.own_stationarity, own_viol = ao.own_violation;
            out_of_time = ao.out_of_budget && car_solve_seconds(t->waited) > until;
            res = ao.converged ? NLOPT_SUCCESS
                  : ao.out_of_budget ? (out_of_time ? NLOPT_MAXTIME_REACHED : NLOPT_MAXEVAL_REACHED)
                                     : NLOPT_FAILURE;
        } else if (slsqp(t, x, lb, ub, tol, progress, until, evals_left, &res, &evaluations, &out_of_time) != SP_OK) {
            return SP_ERR_NOMEM;
        }
        if (out_of_time) out->budget = "max_seconds";
        if (res == NLOPT_MAXEVAL_REACHED && evaluations >= evals_left) out->budget = "max_evaluations";
        out->iterations += evaluations;
        out->solves++, solves++;
        out->constraints = (int)(3 * t->N + t->n_obs + (c->vehicle.max_steering_rate > 0 ? 2 * t->N : 0));
        if (sp_progress_stopped(progress)) return SP_ERR_INTERRUPTED;
        double least = 0.0;
        int nomem = 0;
        const int ok = path_ok(t, x, &least, dip, &nomem);
        if (nomem) return SP_ERR_NOMEM;
        if (ok) {
            /* Newton's method finishes on the solver's active set; its path is checked
             * again. Where the solver's own multipliers meet the KKT conditions already,
             * they are the certificate: the least-squares ones car_kkt_eval finds may break
             * the sign where the active rows are degenerate (see car_ip.c). */
            double stat = own_stat, viol = own_viol, resid = fmax(own_stat, own_viol);
            if (!(resid <= c->settings.tolerance)) {
                memcpy(x0n, x, n * sizeof *x);
                int steps = 0;
                if (car_kkt_polish(t, x, lb, ub, POLISH * c->settings.tolerance, 4, until, &steps) != SP_OK)
                    return SP_ERR_NOMEM;
                out->newton_steps += steps;
                if (steps > 0 && !path_ok(t, x, &least, dip, &nomem)) memcpy(x, x0n, n * sizeof *x);
                if (nomem) return SP_ERR_NOMEM;
                double s2, v2, r2;
                if (kkt_residual(t, x, lb, ub, &s2, &v2, &r2) != SP_OK) return SP_ERR_NOMEM;
                /* (the method's own conditions hold at its point only) */
                if (r2 <= resid || memcmp(x, x0n, n * sizeof *x) != 0) stat = s2, viol = v2, resid = r2;
            }
            /* a restart that did not lower the residual: keep the path before it */
            if (*have && resid >= out->residual) break;
            *have = 1;
            memcpy(best, x, n * sizeof *x);
            out->margin = 0.0, out->swept = 0;
            for (size_t k = 0; k < t->N; ++k) out->margin = fmax(out->margin, t->margin[k]), out->swept += t->swept[k];
            out->stationarity = stat, out->violation = viol, out->residual = resid;
            /* the KKT conditions decide, whatever stopped the solver: a solve that failed but
             * whose Newton steps then met them (scene 500051: 3e-11) has converged */
            out->converged = out->residual <= c->settings.tolerance;
            snprintf(out->message, sizeof out->message, "smooth: %s %s after %d evaluations; KKT residual %.2e%s",
                     method_name[how], res > 0 || out->converged ? "stopped" : "failed", evaluations, out->residual,
                     out->converged ? "" : " (above the tolerance)");
            if (out->converged || res <= 0 || ++polish > 2) break;
        } else if (*have) {
            /* a restart that lost the clearance: keep the path before it */
            memcpy(x, best, n * sizeof *x);
            break;
        } else {
            snprintf(out->message, sizeof out->message, "smooth: %s (code %d) left a path %s (least swept clearance %.4f m)",
                     method_name[how], (int)res,
                     least < w->clearance - DIP_TOL ? "that dips below the clearance between the checked points"
                                                  : "off the goal",
                     least);
            /* (no margin where a checked point itself is inside the clearance: there a
             * pair was not constrained) */
            int deep = !sp_vec_isfinite((int)n, x);
            for (size_t k = 0; k < t->N; ++k) {
                if (dip[k] > DIP_TOL && isfinite(dip[k])) {
                    if (t->margin[k] > 0.0 && !t->swept[k]) t->swept[k] = 1;
                    else t->margin[k] += dip[k] + 2e-3;
                    ++version;
                }
                deep |= !isfinite(dip[k]);
            }
            /* After shallow dips the solve goes on from where it stopped; after a deep one
             * the pairs near the failed point join those near the start (a pair the solver
             * did not know it may have driven straight through) and it starts again from
             * the route. A solve from the route of the problem the last one had would
             * repeat it step for step (the solver failed with every pair known: on tight
             * slots, 3 mm inside the clearance at the checked points): the budget is left
             * to the next method. */
            if (deep) {
                const size_t known = t->n_obs;
                if (sp_vec_isfinite((int)n, x) && car_tx_select(t, x, NEAR) != SP_OK) return SP_ERR_NOMEM;
                version += t->n_obs != known;
                if (version == restarted) break;
                restarted = version;
                memcpy(x, x0, n * sizeof *x);
            }
        }
    }
    return SP_OK;
}

/* The arrays the solves of one transcription work in, and their start: the route
 * (car_tx_guess) within the bounds. */
typedef struct work {
    double *x, *best, *lb, *ub, *x0, *x0n, *dip, *tol;
} work;

static void work_free(work *s)
{
    free(s->x), free(s->best), free(s->lb), free(s->ub), free(s->x0), free(s->x0n), free(s->dip), free(s->tol);
    *s = (work){0};
}

static sp_status work_begin(const car_tx *t, const car_route *r, work *s)
{
    const size_t n = t->n;
    *s = (work){.x = malloc(n * sizeof *s->x), .best = malloc(n * sizeof *s->best), .lb = malloc(n * sizeof *s->lb),
                .ub = malloc(n * sizeof *s->ub), .x0 = malloc(n * sizeof *s->x0), .x0n = malloc(n * sizeof *s->x0n),
                .dip = malloc(t->N * sizeof *s->dip), .tol = malloc(3 * t->N * sizeof *s->tol)};
    if (!s->x || !s->best || !s->lb || !s->ub || !s->x0 || !s->x0n || !s->dip || !s->tol) {
        work_free(s);
        return SP_ERR_NOMEM;
    }
    car_tx_guess(t, r, s->x0);
    car_tx_bounds(t, s->lb, s->ub);
    for (size_t i = 0; i < n; ++i) s->x0[i] = fmin(s->ub[i], fmax(s->lb[i], s->x0[i]));
    for (size_t i = 0; i < 3 * t->N; ++i) s->tol[i] = 1e-10;
    return SP_OK;
}

/* out as the stage whose path is kept left it (keep), but for the work counted over all
 * stages and the budget that ran out last. */
static void restore(car_smooth_out *out, const car_smooth_out *keep)
{
    const int iterations = out->iterations, solves = out->solves, newton = out->newton_steps;
    const char *budget_used = out->budget;
    *out = *keep;
    out->iterations = iterations, out->solves = solves, out->newton_steps = newton;
    out->budget = budget_used ? budget_used : keep->budget;
}

/* The interior-point method on the route laid out by its pieces (car_tx_init_pieces),
 * from the route itself, within the time `until` (of car_solve_seconds, the helpers' work
 * beyond the solve's thread counted in *waited) and `evals` evaluations. *have 1 when it found a path that keeps the
 * clearance: the path is in p (allocated here), out its figures (out->converged says
 * whether it is optimal); otherwise out's counters have grown and the rest of it is the
 * caller's to restore. SP_ERR_NOMEM, SP_ERR_INTERRUPTED or SP_OK. */
static sp_status by_pieces(const car_world *w, const sp_car_problem *c, const car_route *r, const double goal[3],
                           const sp_progress *progress, double until, long evals, double *waited, car_path *p,
                           car_smooth_out *out, int *have)
{
    *have = 0;
    car_tx t;
    work s = {0};
    sp_status st = car_tx_init_pieces(&t, w, c, r, goal);
    t.waited = waited;
    /* (a layout larger than the work budget allows is not tried, as the even one's) */
    if (st == SP_OK && (long)t.n <= c->settings.max_unknowns && (st = work_begin(&t, r, &s)) == SP_OK) {
        int found = 0;
        out->budget = NULL, out->converged = 0, out->residual = 0.0;
        st = run(&t, IP, s.x0, s.lb, s.ub, s.tol, progress, until, evals, s.x, s.best, s.x0n, s.dip, &found, out);
        if (st == SP_OK && found) {
            out->energy = car_tx_energy(&t, s.best, NULL);
            out->unknowns = (int)t.n;
            st = car_tx_path(&t, s.best, p);
            *have = st == SP_OK;
        }
    }
    work_free(&s);
    car_tx_free(&t);
    return st;
}

sp_status car_smooth(const car_world *w, const sp_car_problem *c, const car_route *r, const double goal[3],
                     const sp_progress *progress, car_path *p, car_smooth_out *out)
{
    return car_smooth_by(w, c, r, goal, progress, CAR_SMOOTH_AUTO, p, out);
}

/* One stage of the smoothing: a method, and the share of the budgets it may use up to. */
typedef struct stage {
    method how;
    double share;
} stage;

sp_status car_smooth_by(const car_world *w, const sp_car_problem *c, const car_route *r, const double goal[3],
                        const sp_progress *progress, car_smooth_method how, car_path *p, car_smooth_out *out)
{
    const double t0 = sp_clock_seconds(), c0 = car_cpu_seconds();
    *out = (car_smooth_out){0};
    if (r->n == 0) { /* the start is the goal: nothing to smooth (and no intervals to do it on) */
        snprintf(out->message, sizeof out->message, "smooth: the route is empty");
        return SP_OK;
    }
    car_tx t;
    if ((how == CAR_SMOOTH_IP ? car_tx_init_pieces : car_tx_init)(&t, w, c, r, goal) != SP_OK) return SP_ERR_NOMEM;
    /* the processor time this solve's helpers worked beyond its thread (car_solve_seconds) */
    double waited = 0.0;
    t.waited = &waited;
    const size_t n = t.n;
    work s;
    sp_status st = work_begin(&t, r, &s);
    if (st != SP_OK) goto done;
    /* the time budget: the search's max_seconds, but no more than what the route left of
     * max_seconds + ROUTE_GRACE, less RESULT_RESERVE for the result's rows and figures (a
     * route found late, out of a tight slot, would otherwise add a whole smoothing budget
     * to its own), at least 2 s */
    const double budget = fmax(
        2.0, fmin(c->settings.max_seconds, c->settings.max_seconds + ROUTE_GRACE - RESULT_RESERVE - r->cpu_seconds));
    out->max_seconds = budget;
    out->unknowns = (int)n;
    if ((long)n > c->settings.max_unknowns) {
        /* a work budget: the augmented Lagrangian's and the KKT finish's work grows with
         * the intervals (car_band.c), but a route longer still is left as it is. The
         * route stands. */
        snprintf(out->message, sizeof out->message,
                 "smooth: not tried: %zu unknowns, above the budget max_unknowns = %ld", n, c->settings.max_unknowns);
        out->budget = "max_unknowns";
        goto done;
    }
    const long evals = c->settings.max_evaluations;
    /* The stages. Above AL_ABOVE unknowns the unguarded augmented Lagrangian comes first:
     * on TPCAP case 19 (273 unknowns) it converged in 1300 evaluations and 2.3 s where the
     * guarded one, its Hessian needing a damping τ of about 5 throughout, had not in 1800;
     * below, the unguarded one left 3 of the 6 routes the guarded one converges on to
     * SLSQP. Each stage after the first starts again from the route. A route out of a
     * confined pose (car_escape: a tight slot) goes to the interior-point method first:
     * there the others leave the route and seldom find their way back, and it converges
     * from it, mostly sooner and on a lower energy (bench scenes 100000–800119, the 22
     * routes whose way out took more than TIGHT_ESCAPE poses: alone it converged on 20,
     * on a lower energy than the other order on 12 and a higher one on one, and the
     * order took 53 s in all for the 52 routes with a way out, against 75 s). */
    const method first = n > AL_ABOVE ? AL_FREE : AL_GUARDED, fallback = n > AL_ABOVE ? AL_GUARDED : SLSQP;
    const method alone = how == CAR_SMOOTH_SLSQP ? SLSQP : how == CAR_SMOOTH_IP ? IP : AL_GUARDED;
    const stage tight[] = {{IP, TIGHT_FIRST_SHARE}, {first, TIGHT_SHARE}, {fallback, 1.0}};
    const stage open[] = {{first, FIRST_SHARE}, {fallback, FALLBACK_SHARE}, {IP, 1.0}};
    const stage single[] = {{alone, 1.0}};
    const stage *plan = how != CAR_SMOOTH_AUTO ? single : r->escape_nodes > TIGHT_ESCAPE ? tight : open;
    const int stages = how != CAR_SMOOTH_AUTO ? 1 : 3;
    /* the best path so far: a converged one ends the stages; otherwise the one nearest
     * to optimal (the least KKT residual) that keeps the clearance is kept */
    car_path kept = {0};
    car_smooth_out best = {0};
    int have = 0;
    for (int k = 0; k < stages && st == SP_OK && !(have && best.converged); ++k) {
        const double until = c0 + plan[k].share * budget;
        const long allowed = (k + 1 < stages ? (long)(plan[k].share * (double)evals) : evals) - out->iterations;
        out->budget = NULL, out->converged = 0, out->residual = 0.0;
        int found = 0;
        car_path cand = {0};
        if (plan[k].how == IP && how == CAR_SMOOTH_AUTO) {
            /* the interior-point method, from the route laid out by its pieces: one that
             * never leaves the route (the others do, in tight slots, and seldom find their
             * way back) */
            st = by_pieces(w, c, r, goal, progress, until, allowed, &waited, &cand, out, &found);
        } else {
            st = run(&t, plan[k].how, s.x0, s.lb, s.ub, s.tol, progress, until, allowed, s.x, s.best, s.x0n, s.dip,
                     &found, out);
            if (st == SP_OK && found) {
                out->energy = car_tx_energy(&t, s.best, NULL);
                out->unknowns = (int)n;
                st = car_tx_path(&t, s.best, &cand);
                found = st == SP_OK;
            }
        }
        if (!found) continue;
        /* a path that keeps the clearance with continuous steering serves better than the
         * route's steps of steering, optimal or not (scene 200000: the interior-point
         * method's path kept the clearance at stationarity 0.84 where the other methods
         * had none) */
        if (!have || out->converged || out->residual < best.residual) {
            car_path_free(&kept);
            kept = cand;
            best = *out;
            have = 1;
        } else {
            car_path_free(&cand);
        }
    }
    if (st != SP_OK) {
        car_path_free(&kept);
        goto done;
    }
    if (have) {
        restore(out, &best);
        *p = kept;
        out->used = 1;
    }
done:
    out->seconds = sp_clock_seconds() - t0;
    out->cpu_seconds = car_cpu_seconds() - c0;
    work_free(&s);
    car_tx_free(&t);
    return st;
}
