/* SE(3) plans in the weighted left-invariant metric a|ω|² + b|v|²: the weighted plan is
 * the automorphism φ(R, x) = (R, √(b/a) x) taken back from the unit-metric plan through
 * the scaled keyframes (docs/methods.md §3.4d, which also says how each quantity reads
 * back: positions and linear velocities divided by the scale, covectors and costs
 * multiplied back by the weights). */
#ifndef SP_SE3_METRIC_H
#define SP_SE3_METRIC_H

#include "integrators/sp_hohp.h"
#include "problems/sp_problem.h"

typedef struct sp_se3_scaling {
    double a; /* the weight of rotation: the factor of the cost */
    double s; /* the scale of positions, √(b/a) */
} sp_se3_scaling;

/* The weights of pb's metric, unset ones (0) read as 1. */
sp_se3_metric sp_se3_metric_of(const sp_problem *pb);
/* Whether pb is an SE(3) plan in a metric other than the unit one; then its scaling. */
int sp_se3_scaling_of(const sp_problem *pb, sp_se3_scaling *k);

/* The unit-metric plan of the scaled positions: a copy of pb with its own copy of the
 * targets (freed with sp_se3_scaled_free). SP_ERR_NOMEM leaves nothing to free. */
sp_status sp_se3_scaled_problem(const sp_problem *pb, const sp_se3_scaling *k, sp_problem *out);
void sp_se3_scaled_free(sp_problem *scaled);

/* The scaled plan's quantities read back as the weighted plan's, in place: a pose (the
 * 4 x 4 matrix), a twist (ω, v), a covector, and a whole state (g, ξ, ν, p). */
void sp_se3_unscale_pose(const sp_se3_scaling *k, double *g);
void sp_se3_unscale_twist(const sp_se3_scaling *k, double *xi);
void sp_se3_unscale_covector(const sp_se3_scaling *k, double *mu);
void sp_se3_unscale_state(const sp_se3_scaling *k, sp_hohp_state *z);

#endif
