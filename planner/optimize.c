#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <string.h>

#include "planner/sp_optimize.h"
#include "lie/sp_linalg.h"

#include <stdlib.h>
/* NLopt's random generator is seeded with this before every search (sp_optimize.h). */
#define OPTIMIZE_SEED 20111229UL

typedef struct search {
    const sp_optimizer_settings *s;
    sp_objective_fn f;
    void *ctx;
    nlopt_opt opt;
    double scale;
    int evaluations, budget_spent;
    sp_status failure;
    const sp_progress *progress;
    int start;
    int have_best;                    /* the best point evaluated so far, kept for an interrupted search */
    double best_f, *best_x, *scratch; /* n doubles each */
} search;

static sp_status central_difference_gradient(search *z, int n, const double *x, double *f, double *grad)
{
    double *xs = z->scratch, fp, fm;
    sp_vec_copy(n, x, xs);
    sp_status st = z->f(z->ctx, x, f, NULL);
    for (int j = 0; j < n && st == SP_OK; ++j) {
        double e = 1e-6 * fmax(1.0, fabs(x[j]));
        xs[j] = x[j] + e;
        st = z->f(z->ctx, xs, &fp, NULL);
        xs[j] = x[j] - e;
        if (st == SP_OK) st = z->f(z->ctx, xs, &fm, NULL);
        xs[j] = x[j];
        grad[j] = (fp - fm) / (2.0 * e);
    }
    return st;
}

/* One evaluation of f (with its gradient when grad is not NULL), counted and reported. */
static sp_status evaluate(search *z, int n, const double *x, double *f, double *grad)
{
    sp_status st =
        grad && z->s->central_differences ? central_difference_gradient(z, n, x, f, grad) : z->f(z->ctx, x, f, grad);
    z->evaluations++;
    if (st == SP_OK && isfinite(*f) && (!z->have_best || *f < z->best_f)) {
        z->have_best = 1;
        z->best_f = *f;
        sp_vec_copy(n, x, z->best_x);
    }
    if (st == SP_OK && z->progress) {
        sp_progress_info info = {.start = z->start,
                                 .evaluation = z->evaluations,
                                 .cost = *f,
                                 .gradient_norm = grad ? sp_vec_norm(n, grad) : NAN};
        sp_progress_report(z->progress, &info);
    }
    return st;
}

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    search *z = data;
    /* The caller asked to stop (SIGINT): NLopt returns its best point so far. */
    if (sp_progress_stopped(z->progress)) {
        z->failure = SP_ERR_INTERRUPTED;
        nlopt_force_stop(z->opt);
        if (grad) sp_vec_zero((int)n, grad);
        return HUGE_VAL;
    }
    /* NLopt checks maxeval only after an evaluation; keep the budget exactly. */
    if (z->evaluations >= z->s->maxeval) {
        z->budget_spent = 1;
        nlopt_force_stop(z->opt);
        if (grad) sp_vec_zero((int)n, grad);
        return HUGE_VAL;
    }
    double f = HUGE_VAL;
    sp_status st = evaluate(z, (int)n, x, &f, grad);
    if (st != SP_OK) {
        z->failure = st;
        nlopt_force_stop(z->opt);
        if (grad) sp_vec_zero((int)n, grad);
        return HUGE_VAL;
    }
    if (grad)
        for (unsigned j = 0; j < n; ++j) grad[j] /= z->scale;
    return f / z->scale;
}

/* Global algorithms search a box, which NLopt requires them to have. */
static int needs_bounds(const char *name) { return name[0] == 'G' || strstr(name, "MLSL") != NULL; }
static int needs_local_optimizer(const char *name) { return strstr(name, "MLSL") || strstr(name, "AUGLAG"); }

static void set_stopping(nlopt_opt o, const sp_optimizer_settings *s, double scale)
{
    nlopt_set_xtol_rel(o, s->xtol_rel);
    if (s->xtol_abs > 0.0) nlopt_set_xtol_abs1(o, s->xtol_abs);
    if (s->ftol_rel > 0.0) nlopt_set_ftol_rel(o, s->ftol_rel);
    if (s->ftol_abs > 0.0) nlopt_set_ftol_abs(o, s->ftol_abs / scale);
    if (s->maxtime > 0.0) nlopt_set_maxtime(o, s->maxtime);
    nlopt_set_stopval(o, s->stopval / scale);
    nlopt_set_maxeval(o, s->maxeval);
}

sp_status sp_optimize(const sp_optimizer_settings *s, int n, sp_objective_fn f, void *ctx, double *x,
                      const sp_progress *progress, int start, sp_optimize_result *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1) return SP_ERR_INVALID;
    search z = {.s = s, .f = f, .ctx = ctx, .scale = 1.0, .progress = progress, .start = start};
    z.best_x = malloc((size_t)n * sizeof *z.best_x);
    z.scratch = malloc((size_t)n * sizeof *z.scratch);
    if (!z.best_x || !z.scratch) {
        free(z.best_x), free(z.scratch);
        return SP_ERR_NOMEM;
    }
    /* the scaling of sp_optimize.h, at the cost of one evaluation of the budget */
    if (strncmp(s->algorithm, "LD_", 3) == 0 && s->maxeval >= 2) {
        double f0, *g0 = malloc((size_t)n * sizeof *g0);
        if (g0 && evaluate(&z, n, x, &f0, g0) == SP_OK) z.scale = fmax(1.0, sp_vec_norm(n, g0));
        free(g0);
    }
    z.opt = nlopt_create(nlopt_algorithm_from_string(s->algorithm), (unsigned)n);
    if (!z.opt) {
        free(z.best_x), free(z.scratch);
        return SP_ERR_NOMEM;
    }
    nlopt_set_min_objective(z.opt, objective, &z);
    /* NLopt's quasi-Newton methods otherwise keep up to n correction pairs (as many as fit
     * in its memory heuristic): for the thousands of unknowns of a direct form that makes
     * every iteration cost O(n²); 200 pairs keep the curvature the flat valleys of sphere
     * plans need (measured on a 20-point sphere plan: 20 pairs stall, 200 converge in as
     * few evaluations as n pairs at a sixth of the time) */
    if (n > 200) nlopt_set_vector_storage(z.opt, 200);
    set_stopping(z.opt, s, z.scale);
    if (needs_bounds(s->algorithm)) {
        nlopt_set_lower_bounds1(z.opt, -s->bound);
        nlopt_set_upper_bounds1(z.opt, s->bound);
    }
    if (needs_local_optimizer(s->algorithm)) {
        nlopt_opt local = nlopt_create(nlopt_algorithm_from_string(s->local_algorithm), (unsigned)n);
        if (local) {
            set_stopping(local, s, z.scale);
            nlopt_set_local_optimizer(z.opt, local);
            nlopt_destroy(local);
        }
    }
    double fbest = HUGE_VAL;
    nlopt_srand(OPTIMIZE_SEED);
    nlopt_result r = nlopt_optimize(z.opt, x, &fbest);
    nlopt_destroy(z.opt);
    if (z.budget_spent && z.failure == SP_OK) r = NLOPT_MAXEVAL_REACHED;
    if (z.failure == SP_ERR_INTERRUPTED && z.have_best) {
        /* NLopt may hand back the point it was about to evaluate: give the best one */
        sp_vec_copy(n, z.best_x, x);
        fbest = z.best_f / z.scale;
    }
    out->code = (int)r;
    snprintf(out->code_name, sizeof out->code_name, "%s", nlopt_result_to_string(r));
    out->evaluations = z.evaluations;
    out->failure = z.failure;
    out->f = fbest * z.scale;
    free(z.best_x), free(z.scratch);
    return SP_OK;
}

const char *sp_optimize_status(const sp_optimize_result *r, double gradient_norm, double f, double gtol)
{
    if (r->failure != SP_OK) return sp_status_name(r->failure);
    int stationary = gradient_norm <= gtol * fmax(1.0, fabs(f));
    switch ((nlopt_result)r->code) {
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
