/* Lie groups as values.
 *
 * A group is a constant table of functions (in the manner of a GSL step type); every
 * function takes the table itself first, so one implementation can serve a family of
 * groups (Rⁿ for every n). Integrators and planners only ever talk to a group through
 * this table.
 *
 * Conventions, fixed for every group:
 *  - An element is stored as `elem_size` doubles (a row-major matrix for matrix
 *    groups, a vector for Rⁿ). Algebra vectors have `dim` components; `hat` maps them
 *    to `mat_dim` x `mat_dim` row-major matrices and `vee` back.
 *  - The algebra is identified with its dual by the Euclidean pairing of coordinates
 *    (the bi-invariant metric for SO(3)). Hence Ad*_g = (Ad_g)ᵀ and ad*_x = (ad_x)ᵀ.
 *  - Differentials of a retraction τ are RIGHT-trivialised:
 *        d/ds τ(x + s y)|₀ = (dτ_x y)^ τ(x),
 *    and D_τ(x, v) = ∂/∂x [dτ_xᵀ v] is the derivative Newton solvers and adjoints need.
 *  - n x n matrices are row-major.
 */
#ifndef SP_LIE_H
#define SP_LIE_H

#include <stddef.h>

#include "lie/sp_status.h"

/* Largest algebra dimension and element size any registered group uses; callers may
 * size scratch arrays with these to avoid allocating in stepping loops. */
#define SP_LIE_MAX_DIM 6
#define SP_LIE_MAX_ELEM 16
#define SP_LIE_MAX_MAT 7 /* largest mat_dim (R6 as 7 x 7 affine matrices) */

typedef struct sp_group sp_group;

struct sp_group {
    const char *name;
    int dim;       /* dimension of the Lie algebra */
    int elem_size; /* doubles stored per group element */
    int mat_dim;   /* size of the matrices produced by hat */
    int act_dim;   /* dimension of the space the group acts on */

    void (*identity)(const sp_group *G, double *g);
    void (*compose)(const sp_group *G, const double *a, const double *b, double *ab);
    void (*inverse)(const sp_group *G, const double *g, double *g_inv);
    /* y = g · x, with x, y in R^act_dim (y may alias x). */
    void (*act)(const sp_group *G, const double *g, const double *x, double *y);

    void (*hat)(const sp_group *G, const double *xi, double *X);
    void (*vee)(const sp_group *G, const double *X, double *xi);

    void (*exp)(const sp_group *G, const double *xi, double *g);
    /* Principal logarithm; SP_ERR_DOMAIN where it is not defined. */
    sp_status (*log)(const sp_group *G, const double *g, double *xi);
    void (*cay)(const sp_group *G, const double *xi, double *g);
    /* Inverse Cayley map; SP_ERR_DOMAIN where it is not defined (rotations by π). */
    sp_status (*cay_inv)(const sp_group *G, const double *g, double *xi);

    void (*dexp)(const sp_group *G, const double *x, double *M);
    void (*dexp_inv)(const sp_group *G, const double *x, double *M);
    void (*dcay)(const sp_group *G, const double *x, double *M);
    void (*dcay_inv)(const sp_group *G, const double *x, double *M);
    /* M = ∂/∂x [dτ_xᵀ v] for τ = exp and τ = cay. */
    void (*dexp_T_deriv)(const sp_group *G, const double *x, const double *v, double *M);
    void (*dcay_T_deriv)(const sp_group *G, const double *x, const double *v, double *M);

    void (*ad)(const sp_group *G, const double *x, const double *y, double *out);
    /* Optional (NULL: none): out = Σ_{j < terms} c_j ad_x^j y in closed form, for groups
     * whose ad powers repeat (on so(3), ad_x³ = −|x|² ad_x), where the integrators would
     * otherwise evaluate the series (dexp⁻¹'s, truncated) by Horner's rule. */
    void (*ad_series)(const sp_group *G, int terms, const double *c, const double *x, const double *y, double *out);
    void (*ad_star)(const sp_group *G, const double *x, const double *m, double *out);
    void (*Ad)(const sp_group *G, const double *g, const double *x, double *out);
    void (*Ad_star)(const sp_group *G, const double *g, const double *m, double *out);
};

extern const sp_group *const sp_group_so3;
/* SE(2) as 3x3 homogeneous matrices, algebra ordered (ω, v_x, v_y) (lie/se2.c). */
extern const sp_group *const sp_group_se2;
/* SE(3) as 4x4 homogeneous matrices, algebra ordered (ω, v): angular, then body linear
 * velocity (lie/se3.c). */
extern const sp_group *const sp_group_se3;
/* The SE(3) element g = [[R, x], [0, 1]] of a rotation R (3 x 3, row-major) and a
 * translation x, and back: poses cross the file boundary in these two parts. */
void sp_se3_from_pose(const double *R, const double *x, double *g);
void sp_se3_to_pose(const double *g, double *R, double *x);
/* Rⁿ under addition, for 1 ≤ n ≤ SP_LIE_MAX_DIM; NULL otherwise. */
const sp_group *sp_group_rn(int n);

/* Registry: look a group up by name ("SO3", "SE2", "SE3", "R1" … "R6"); NULL when unknown. */
const sp_group *sp_group_by_name(const char *name);

/* r = log(a⁻¹b), the mismatch of b against a, with its derivatives (n x n, row-major; each
 * may be NULL) under right perturbations a → a exp(δ), b → b exp(δ):
 * Da = −dexp⁻¹_r, Db = dexp⁻¹_r Ad_{a⁻¹b}. SP_ERR_DOMAIN where log is not defined. */
sp_status sp_group_log_mismatch(const sp_group *G, const double *a, const double *b, double *r, double *Da,
                                double *Db);
/* The i-th registered group, NULL past the end (for listings and conformance tests). */
const sp_group *sp_group_at(size_t i);

/* A retraction τ: g → G chosen by name, with its trivialised differentials. */
typedef struct sp_retraction {
    const char *name;
    void (*tau)(const sp_group *G, const double *x, double *g);
    sp_status (*tau_inv)(const sp_group *G, const double *g, double *x);
    void (*dtau)(const sp_group *G, const double *x, double *M);
    void (*dtau_inv)(const sp_group *G, const double *x, double *M);
    void (*dtau_T_deriv)(const sp_group *G, const double *x, const double *v, double *M);
} sp_retraction;

extern const sp_retraction *const sp_retraction_exp;
extern const sp_retraction *const sp_retraction_cayley;
/* The retraction named `name` (NULL when unknown); the i-th of the registry (NULL past
 * the end). Both are static tables: nothing to free. */
const sp_retraction *sp_retraction_by_name(const char *name);
const sp_retraction *sp_retraction_at(size_t i);

#endif
