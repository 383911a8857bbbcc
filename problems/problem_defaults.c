/* The defaults of a problem (sp_problem.h), in one place: the problem reader starts
 * from them and a program that builds a problem in C calls the same function, so the
 * two cannot drift apart. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrators/sp_explicit_rk.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"

void sp_optimizer_defaults(sp_optimizer_settings *o)
{
    *o = (sp_optimizer_settings){.xtol_rel = 1e-12,
                                 .ftol_rel = 1e-15,
                                 .gtol = 1e-6,
                                 .maxeval = 1000,
                                 .bound = 100.0,
                                 .stopval = -HUGE_VAL};
    snprintf(o->algorithm, sizeof o->algorithm, "LD_LBFGS");
    snprintf(o->local_algorithm, sizeof o->local_algorithm, "LD_LBFGS");
}

const char *sp_stage_solver_at(size_t i)
{
    static const char *const names[] = {[SP_STAGE_NEWTON] = "newton",
                                        [SP_STAGE_SIMPLIFIED_NEWTON] = "simplified_newton",
                                        [SP_STAGE_FIXED_POINT] = "fixed_point",
                                        [SP_STAGE_AUTO] = "auto"};
    return i < sizeof names / sizeof *names ? names[i] : NULL;
}

void sp_problem_defaults(sp_problem *p)
{
    memset(p, 0, sizeof *p);
    p->task = SP_TASK_PLAN;
    p->kind = SP_KIND_CUBIC;
    snprintf(p->model, sizeof p->model, "cubic_spline");
    p->scheme = sp_hohp_scheme_by_name("hohp_sv");
    p->retraction = sp_retraction_by_name("cayley");
    p->solver = SP_HOHP_NEWTON;
    p->stage_solver = SP_STAGE_NEWTON;
    /* an exact solve, as for every stepper used alone */
    p->solver_tol = sp_newton_options_default().tol;
    p->record_every = 1;
    p->step_budget = sp_limits_default().steps;
    p->memory_budget = sp_limits_default().memory;

    p->cubic.group = sp_group_so3;
    p->cubic.space = SP_SPACE_SPHERE;
    p->cubic.se3_metric = (sp_se3_metric){1.0, 1.0};
    p->cubic.group->identity(p->cubic.group, p->g0);
    sp_optimizer_defaults(&p->optimizer);
    p->plan.method = SP_METHOD_MULTIPLE_SHOOTING;
    p->plan.tolerance = 1e-10;
    p->plan.max_iterations = 100;
    p->plan.block_steps = 64;

    p->vak.stages = 2;
    p->vak.tolerance = 1e-10;
    p->vak.starts = 32;

    const sp_erk_control erk = sp_erk_control_default();
    p->hol.retraction = p->retraction;
    p->hol.rtol = erk.rtol;
    p->hol.atol = erk.atol;

    p->nh.stages = 3;
    p->nh.retraction = p->retraction;
}
