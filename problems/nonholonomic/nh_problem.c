/* The Lie-group nonholonomic models by name (sp_nh_problem.h): parameters, binding,
 * coordinates and the distance from the group. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/nonholonomic/sp_nh_problem.h"
#include "lie/sp_registry.h"
#include "lie/sp_linalg.h"

/* max-abs entry of AᵀA − I for a k x k block of a row-major matrix with `stride` columns */
static double orthogonality_defect(const double *g, int k, int stride)
{
    double worst = 0.0;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            double s = 0.0;
            for (int r = 0; r < k; ++r) s += g[r * stride + i] * g[r * stride + j];
            worst = fmax(worst, fabs(s - (i == j ? 1.0 : 0.0)));
        }
    return isnan(worst) ? INFINITY : worst;
}

/* ---------------------------------------------------------------- the sleigh -- */

static const sp_param sleigh_params[] = {
    {.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0}},
    {.name = "a", .size = 1, .defaults = {0.5}},
    {.name = "I", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {0.3}},
    {.name = "slope", .size = 1, .defaults = {0.0}},
};
static const char *const sleigh_elements[] = {"R11", "R12", "x", "R21", "R22", "y", "g31", "g32", "g33"};
static const char *const sleigh_coordinates[] = {"x", "y", "theta"};

static sp_status sleigh_bind(const sp_param_values *prm, sp_nh_lie_bound *b)
{
    memset(b, 0, sizeof *b);
    b->sleigh = (sp_sleigh_se2){.m = prm->value[0], .a = prm->value[1], .I = prm->value[2], .slope = prm->value[3]};
    return sp_sleigh_se2_model(&b->sleigh, &b->model);
}

static void sleigh_to_coordinates(const sp_nh_lie_bound *b, const double *g, const double *mu, const double *q_hint,
                                  double *q, double *p)
{
    (void)b;
    sp_sleigh_se2_to_coordinates(g, mu, q_hint ? q_hint[2] : 0.0, q, p);
}

static double sleigh_group_error(const double *g)
{
    double e = orthogonality_defect(g, 2, 3);
    e = fmax(e, fmax(fabs(g[6]), fmax(fabs(g[7]), fabs(g[8] - 1.0))));
    return isnan(e) ? INFINITY : e;
}

const sp_nh_lie_type sp_nh_lie_sleigh_se2 = {
    .name = "sleigh_se2",
    .description = "Chaplygin sleigh on SE(2): body velocity (theta', v_x, v_y), v_y = 0",
    .group_name = "SE2",
    .params = sleigh_params,
    .n_params = 4,
    .bind = sleigh_bind,
    .element_names = sleigh_elements,
    .n_coordinates = 3,
    .coordinates = sleigh_coordinates,
    .to_coordinates = sleigh_to_coordinates,
    .group_error = sleigh_group_error,
};

/* ------------------------------------------------------------------ Suslov -- */

static const sp_param suslov_params[] = {
    {.name = "J", .size = 3, .lower = {SP_BOUND_OPEN, 0.0}, .defaults = {1.0, 2.0, 3.5}},
    {.name = "e", .size = 3, .defaults = {0.3, 0.5, 0.8}},
};
static const char *const suslov_elements[] = {"R11", "R12", "R13", "R21", "R22", "R23", "R31", "R32", "R33"};

/* e gives the constraint ⟨e, Ω⟩ = 0, which the zero vector does not. */
static int suslov_check(const sp_param_values *prm, char *why, size_t size)
{
    if (!(sp_vec_norm(3, prm->value + 3) > 0.0)) {
        snprintf(why, size, "must not be the zero vector");
        return 1;
    }
    return -1;
}

static sp_status suslov_bind(const sp_param_values *prm, sp_nh_lie_bound *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 3; ++i) b->suslov.J[i] = prm->value[i], b->suslov.e[i] = prm->value[3 + i];
    return sp_suslov_model(&b->suslov, &b->model);
}

static double suslov_group_error(const double *g) { return orthogonality_defect(g, 3, 3); }

const sp_nh_lie_type sp_nh_lie_suslov = {
    .name = "suslov",
    .description = "Suslov problem on SO(3): rigid body with body angular velocity orthogonal to e",
    .group_name = "SO3",
    .params = suslov_params,
    .n_params = 2,
    .check_params = suslov_check,
    .bind = suslov_bind,
    .element_names = suslov_elements,
    .group_error = suslov_group_error,
};

/* ---------------------------------------------------------------- registry -- */

static const sp_nh_lie_type *const registry[] = {&sp_nh_lie_sleigh_se2, &sp_nh_lie_suslov};

SP_REGISTRY_OF_POINTERS(sp_nh_lie_type, registry, sp_nh_lie_type_at, sp_nh_lie_type_by_name)

int sp_nh_is_model(const char *name) { return sp_nh_model_by_name(name) || sp_nh_lie_type_by_name(name); }
