/* The one NLopt glue of the planner: any algorithm by name, the file's stopping
 * criteria, an evaluation budget kept exactly, and failures of an evaluation (a Newton
 * solve that does not converge) stopping the search and coming back as a status. */
#ifndef SP_OPTIMIZE_H
#define SP_OPTIMIZE_H

#include "planner/sp_progress.h"
#include "problems/sp_problem.h"

/* f(x) and, when grad is not NULL, its gradient. A non-SP_OK status stops the search. */
typedef sp_status (*sp_objective_fn)(void *ctx, const double *x, double *f, double *grad);

typedef struct sp_optimize_result {
    int code;           /* NLopt's nlopt_result; MAXEVAL_REACHED also when the budget stopped it */
    char code_name[40]; /* NLopt's name of it */
    int evaluations;    /* of f, each with or without its gradient */
    sp_status failure;  /* the evaluation failure that stopped the search, or SP_OK */
    double f;           /* best value found */
} sp_optimize_result;

/* Minimises f over R^n from x, which receives the best point found. With
 * settings->central_differences the gradient is taken by central differences of f
 * (step 1e-6·max(1, |x_j|)) instead of f's own. Gradient-based local algorithms (LD_*)
 * see f divided by max(1, |∇f(x0)|): NLopt's L-BFGS takes a first trial step as long as
 * the gradient, which for costs weighted by 1/σ² throws the search far into worse
 * basins; minimisers are unchanged and tolerances in units of f are rescaled to match.
 * Every evaluation is reported to `progress` (may be NULL) with the unscaled f and |∇f|,
 * tagged with `start` (0 for a single search). Stochastic algorithms (CRS, ISRES, MLSL,
 * ESCH, PRAXIS…) draw from NLopt's generator, seeded with the same number before every
 * search, so that a problem solved twice (or by any worker of a study) ends the same.
 * Debian's NLopt keeps that generator per thread, so threads searching at once each end
 * as they would alone (`make tsan` checks it); an NLopt built without thread-local
 * storage shares one generator, and concurrent stochastic searches would then race on
 * it. The seed replaces the calling thread's own: a program that seeds NLopt for its
 * own searches seeds again after a solve.
 * A stop asked through `progress` (sp_progress.h) ends the search before its next
 * evaluation with out->failure = SP_ERR_INTERRUPTED and x the best point evaluated.
 * Returns SP_ERR_NOMEM when NLopt cannot be set up; every other outcome is in *out. */
sp_status sp_optimize(const sp_optimizer_settings *settings, int n, sp_objective_fn f, void *ctx, double *x,
                      const sp_progress *progress, int start, sp_optimize_result *out);

/* The status word of an optimisation that ended at a point with gradient norm
 * `gradient_norm` and value `f`: "converged" only where |∇f| ≤ gtol·max(1, |f|) (NLopt's
 * tolerance tests can fire far from a stationary point: "stalled"; its L-BFGS often ends
 * "roundoff limited" at the optimum itself), else what stopped it. */
const char *sp_optimize_status(const sp_optimize_result *r, double gradient_norm, double f, double gtol);

#endif
