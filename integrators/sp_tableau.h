/* Runge–Kutta coefficient tables, loaded by family name and number of stages.
 *
 *  "gauss"        Gauss–Legendre collocation, s = 1…6, order 2s (symplectic). Computed
 *                 in extended precision from the Legendre nodes and rounded once, so
 *                 every coefficient is correct to round-off.
 *  "lobatto_iiia" Lobatto IIIA, s = 2…6, order 2s − 2 (s ≥ 5 computed in extended
 *                 precision from the Lobatto nodes, like the Gauss tables).
 *  "lobatto_iiib" Lobatto IIIB, s = 2…6 (the partner of IIIA; same b and c).
 *
 * Explicit tables, with their embedded error estimators, are loaded by name with
 * sp_tableau_explicit_get (a separate struct: DOP853 has 12 stages and two estimators):
 *
 *  "euler"        explicit Euler, 1 stage, order 1.
 *  "rk4"          the classical Runge–Kutta method, 4 stages, order 4 (A&S 25.5.10).
 *  "dop853"       Dormand–Prince 8(5,3), 12 stages, order 8, with the embedded order-5 and
 *                 order-3 error estimators of Hairer's DOP853 (Hairer, Nørsett & Wanner,
 *                 Solving ODEs I, 2nd ed., §II.10; coefficients of Hairer's dop853.f).
 */
#ifndef SP_TABLEAU_H
#define SP_TABLEAU_H

#include "lie/sp_status.h"

#define SP_TABLEAU_MAX_STAGES 6

typedef struct sp_tableau {
    const char *family;
    int stages;
    int order;
    double A[SP_TABLEAU_MAX_STAGES][SP_TABLEAU_MAX_STAGES];
    double b[SP_TABLEAU_MAX_STAGES];
    double c[SP_TABLEAU_MAX_STAGES];
} sp_tableau;

/* Fills *t; SP_ERR_INVALID for an unknown family or a number of stages it lacks. */
sp_status sp_tableau_get(const char *family, int stages, sp_tableau *t);

/* Lagrange weights: the polynomial of degree < k through values y_i at the k distinct
 * nodes t[i] takes at tau the value Σ_i w[i] y_i. Used to predict the stages of a step
 * from the stages of the last one (Hairer, Lubich & Wanner, Geometric Numerical
 * Integration, 2nd ed., 2006, Sect. VIII.6.1). */
void sp_lagrange_weights(int k, const double *t, double tau, double *w);

#define SP_TABLEAU_EXPLICIT_MAX_STAGES 12

/* An explicit table (A strictly lower triangular, c_1 = 0) with up to two embedded error
 * estimators, given as weight differences: the estimate of the local error of the step
 * y₁ = y₀ + h Σ b_i k_i is h Σ e_i k_i (and h Σ e2_i k_i for the second one).
 *
 *   estimators = 0   fixed-step only;
 *   estimators = 1   err = ‖h Σ e_i k_i / sk‖_rms;
 *   estimators = 2   Hairer's DOP853 norm: with E5 = Σ_i (h Σ_j e_j k_j,i / sk_i)² and E3 the
 *                    same with e2, err = E5 / sqrt(n (E5 + 0.01 E3)).
 *
 * err behaves like h^control_order; step-size control uses the exponent 1/control_order
 * (8 for DOP853: E5 ~ h¹², E3 ~ h⁸). */
typedef struct sp_tableau_explicit {
    const char *name;
    int stages;
    int order;
    int estimators;
    int control_order;
    double A[SP_TABLEAU_EXPLICIT_MAX_STAGES][SP_TABLEAU_EXPLICIT_MAX_STAGES];
    double b[SP_TABLEAU_EXPLICIT_MAX_STAGES];
    double c[SP_TABLEAU_EXPLICIT_MAX_STAGES];
    double e[SP_TABLEAU_EXPLICIT_MAX_STAGES];  /* b − b̂ of the first estimator */
    double e2[SP_TABLEAU_EXPLICIT_MAX_STAGES]; /* b − b̂ of the second estimator */
} sp_tableau_explicit;

/* Fills *t with the table called `name` ("euler", "rk4", "dop853"); SP_ERR_INVALID for an
 * unknown name (NULL included). */
sp_status sp_tableau_explicit_get(const char *name, sp_tableau_explicit *t);

#endif
