/* What the adapters of the step types share (sp_step_types.h); apart from the registry,
 * so that the registry and its tables call in one direction only. */
#include "integrators/sp_step_types.h"

sp_newton_options sp_step_newton_options(const sp_step_options *opt)
{
    sp_newton_options n = opt->newton;
    const sp_newton_options d = sp_newton_options_default();
    if (!(n.tol > 0.0)) n.tol = d.tol;
    if (n.max_iter < 1) n.max_iter = d.max_iter;
    return n;
}

void sp_step_merge_newton(sp_newton_options *newton, const sp_step_options *opt)
{
    const sp_newton_options n = sp_step_newton_options(opt);
    newton->tol = n.tol;
    newton->max_iter = n.max_iter;
    newton->warm_start = n.warm_start;
    newton->rate_stop = n.rate_stop;
    if (n.stale_updates) newton->stale_updates = n.stale_updates;
}

void sp_step_count_newton(sp_step_stats *stats, int iterations, int factorizations)
{
    stats->newton_iterations += iterations;
    if (iterations > stats->max_iterations) stats->max_iterations = iterations;
    stats->factorizations += factorizations;
}

void sp_step_layout_add(sp_step_layout *layout, const char *name, int size, int aux)
{
    layout->part[layout->n_parts++] = (sp_step_part){name, size, aux};
    layout->dim += size;
}
