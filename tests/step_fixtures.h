/* Fixture models shared by the tests: one per model kind of integrators/sp_step.h, each
 * with a consistent initial state laid out as the step types of that kind lay theirs,
 * and a switch that makes every model callback fail. Also the spherical pendulum as a
 * holonomic model for the tests of the holonomic integrators. */
#ifndef STEP_FIXTURES_H
#define STEP_FIXTURES_H

#include "integrators/sp_holonomic.h"
#include "integrators/sp_index1.h"
#include "integrators/sp_lie_rattle.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_nonholonomic.h"
#include "integrators/sp_prop7.h"
#include "integrators/sp_splitting.h"
#include "integrators/sp_step.h"
#include "problems/holonomic/sp_rigid_body.h"
#include "problems/holonomic/sp_s3_contact.h"
#include "problems/nonholonomic/sp_nh_lie_models.h"
#include "problems/sp_params.h"

/* The spherical pendulum with m = g = ℓ = 1: V = q₃, g(q) = ½(|q|² − 1), M = I; params
 * NULL, or an int that, when not zero, every callback returns (a failing model). */
int fixture_pendulum_potential(const double *q, double *V, double *grad, double *hess, void *params);
int fixture_sphere_constraint(const double *q, double *g, double *G, double *d2g, void *params);
extern const sp_holonomic_model fixture_pendulum;
extern const double fixture_pendulum_q0[3], fixture_pendulum_p0[3];

/* A planar double pendulum in Cartesian coordinates q = (x1, y1, x2, y2), masses 1 and 2
 * (M = fixture_double_mass), unit rods, unit gravity along −y: V = y1 + 2 y2,
 * g1 = ½(x1² + y1² − 1), g2 = ½(|r2 − r1|² − 1); q0 at rest with the rods at 0.5 and 0.3 rad
 * from the downward vertical. params NULL, or a long that counts the calls (the model
 * evaluations a benchmark reports). */
int fixture_double_potential(const double *q, double *V, double *grad, double *hess, void *params);
int fixture_double_constraints(const double *q, double *g, double *G, double *d2g, void *params);
extern const double fixture_double_mass[4], fixture_double_q0[4];

/* fmax that lets a NaN through, so that a NaN error cannot pass as a small one; the
 * largest |a_i − b_i| and |a_i| with the same rule. */
double fixture_worse(double a, double b);
double fixture_max_abs_diff(int n, const double *a, const double *b);
double fixture_max_abs(int n, const double *a);

/* The symplecticity defect (integrators/sp_symplecticity.h) on T*S² ⊂ R⁶ of the map
 * z ↦ map(ctx, h, z), which returns 0 when it steps, at z0 = (q, p), with DC the 2 x 6
 * Jacobian of the two constraints there; *dim receives the dimension of ker DC found. */
typedef int (*fixture_step_map)(void *ctx, double h, double *z);
sp_status fixture_ts2_defect(fixture_step_map map, void *ctx, double h, const double *z0, const double *DC,
                             double *defect, int *dim);

/* A model of one kind bound in place (it points into itself: never copy it). */
typedef struct step_fixture {
    sp_step_model_kind kind;
    const void *model; /* what sp_step_alloc takes */
    int dim;
    double x0[SP_STEP_MAX_DIM]; /* the initial state */
    double T;                   /* a span the order is measured over */
    int callbacks;              /* the model calls back: `fail` makes it fail */
    int fail;                   /* returned by every callback when not zero */
    sp_step_options options;    /* the defaults, with feedback gains and reference */
    /* what the models are made of */
    const sp_group *group;
    sp_holonomic_model holonomic;
    sp_heavy_top top;
    sp_lie_rattle_model lie, lie_inner;
    sp_s3_contact s3;
    sp_prop7_model prop7, prop7_inner;
    sp_param_values prm;
    double mass[SP_VAK_MAX_N];
    sp_vakonomic_model vak, vak_inner;
    sp_nh_model nh, nh_inner;
    sp_suslov suslov;
    sp_nh_lie_model nh_lie, nh_lie_inner;
    sp_spherical_pendulum pendulum;
    sp_split_system split;
    sp_ode_system ode;
} step_fixture;

/* Binds the fixture of `kind` into *f; SP_ERR_INVALID for a kind without one. */
sp_status step_fixture_init(step_fixture *f, sp_step_model_kind kind);

#endif
