/* SE(3) plans in a weighted metric, solved as unit-metric plans of scaled positions
 * (see sp_se3_metric.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_se3_metric.h"

sp_se3_metric sp_se3_metric_of(const sp_problem *pb)
{
    const sp_se3_metric m = pb->cubic.se3_metric;
    return (sp_se3_metric){m.rotation > 0.0 ? m.rotation : 1.0, m.translation > 0.0 ? m.translation : 1.0};
}

int sp_se3_scaling_of(const sp_problem *pb, sp_se3_scaling *k)
{
    if (pb->cubic.group != sp_group_se3) return 0;
    const sp_se3_metric m = sp_se3_metric_of(pb);
    *k = (sp_se3_scaling){.a = m.rotation, .s = sqrt(m.translation / m.rotation)};
    return m.rotation != 1.0 || m.translation != 1.0;
}

/* The position x of a pose (4 x 4, row-major) times f. */
static void scale_pose(double *g, double f) { g[3] *= f, g[7] *= f, g[11] *= f; }

sp_status sp_se3_scaled_problem(const sp_problem *pb, const sp_se3_scaling *k, sp_problem *out)
{
    const size_t m = pb->cubic.n_targets;
    *out = *pb;
    out->cubic.targets = malloc((m ? m : 1) * sizeof *out->cubic.targets);
    if (!out->cubic.targets) return SP_ERR_NOMEM;
    memcpy(out->cubic.targets, pb->cubic.targets, m * sizeof *pb->cubic.targets);
    for (size_t i = 0; i < m; ++i) {
        scale_pose(out->cubic.targets[i].R, k->s);
        for (int c = 0; c < 3; ++c) out->cubic.targets[i].x[c] *= k->s;
    }
    scale_pose(out->g0, k->s);
    for (int c = 0; c < 3; ++c) {
        out->plan.x0[c] *= k->s;
        out->xi0[3 + c] *= k->s;
        out->plan.xiT[3 + c] *= k->s;
    }
    out->cubic.se3_metric = (sp_se3_metric){1.0, 1.0};
    /* the optimiser's values of the cost (the direct form's NLopt run), in the unit plan's */
    out->optimizer.stopval /= k->a;
    out->optimizer.ftol_abs /= k->a;
    return SP_OK;
}

void sp_se3_scaled_free(sp_problem *scaled)
{
    free(scaled->cubic.targets);
    scaled->cubic.targets = NULL;
}

void sp_se3_unscale_pose(const sp_se3_scaling *k, double *g) { scale_pose(g, 1.0 / k->s); }

void sp_se3_unscale_twist(const sp_se3_scaling *k, double *xi)
{
    for (int c = 3; c < 6; ++c) xi[c] /= k->s;
}

void sp_se3_unscale_covector(const sp_se3_scaling *k, double *mu)
{
    for (int c = 0; c < 6; ++c) mu[c] *= c < 3 ? k->a : k->a * k->s;
}

void sp_se3_unscale_state(const sp_se3_scaling *k, sp_hohp_state *z)
{
    sp_se3_unscale_pose(k, z->g);
    sp_se3_unscale_twist(k, z->xi);
    sp_se3_unscale_covector(k, z->nu);
    sp_se3_unscale_covector(k, z->p);
}
