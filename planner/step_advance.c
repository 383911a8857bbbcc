/* A step type in the simulation loop (sp_step_advance.h). */
#include "planner/sp_step_advance.h"

sp_work_kind sp_step_work_kind(const sp_step_type *type)
{
    return type->model == SP_STEP_MODEL_SPLIT ? SP_WORK_SPLITTING
           : type->flags & SP_STEP_IMPLICIT   ? SP_WORK_IMPLICIT
                                              : SP_WORK_EXPLICIT;
}

/* Each call of the evolve is one accepted step, as many as the error control wants; the
 * state lands on t1 exactly. */
static sp_status evolve_over(sp_step *s, const sp_run_interval *iv, double *h_proposal, double *x)
{
    double t = iv->t0;
    const long before = sp_step_stats_of(s).steps;
    sp_status st = SP_OK;
    while (t != iv->t1 && st == SP_OK) {
        if (sp_progress_stopped(iv->progress)) return SP_ERR_INTERRUPTED;
        const long left = iv->budget - (sp_step_stats_of(s).steps - before);
        st = left < 1 ? SP_ERR_TOO_MANY_STEPS : sp_step_evolve(s, &t, iv->t1, h_proposal, left, x);
    }
    return st;
}

sp_status sp_step_advance(sp_step *s, const sp_run_interval *iv, double *h_proposal, double *x, sp_run_work *work)
{
    const sp_step_stats a = sp_step_stats_of(s);
    const sp_status st =
        sp_step_type_of(s)->flags & SP_STEP_ADAPTIVE ? evolve_over(s, iv, h_proposal, x) : sp_step_apply(s, iv->h, x);
    const sp_step_stats b = sp_step_stats_of(s);
    const long iterations = b.newton_iterations - a.newton_iterations;
    work->attempts += b.steps - a.steps;
    work->newton_iterations += iterations;
    if (iterations > work->max_iterations) work->max_iterations = (int)iterations;
    work->factorizations += b.factorizations - a.factorizations;
    if (sp_step_type_of(s)->flags & SP_STEP_COUNTS_FACTORIZATIONS) work->counts_factorizations = 1;
    work->rhs_evaluations += b.rhs_evaluations - a.rhs_evaluations;
    work->rejected_steps += b.rejected_steps - a.rejected_steps;
    work->exact_flows += b.exact_flows - a.exact_flows;
    return st;
}
