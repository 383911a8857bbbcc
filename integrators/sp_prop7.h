/* Holonomic plus index-1 (vakonomic) constraints: "RATTLE outer, midpoint inner" (a
 * reconstruction of Prop. 7 of McLachlan, Modin, Verdier & Wilkins, SIAM J. Sci. Comput. 35
 * (2013) A2150; docs/methods.md §5.7). One step (q0, p0) ↦ (q1, p1) is an impulse at q0, one
 * implicit-midpoint step of the index-1 Hamiltonian, an impulse at q1: one Newton solve and
 * one k x k linear solve. Symplectic on T*Q, symmetric, order 2. */
#ifndef SP_PROP7_H
#define SP_PROP7_H

#include "integrators/sp_newton.h"
#include "integrators/sp_vakonomic.h"

#define SP_PROP7_MAX_K 6

typedef struct sp_prop7_model {
    sp_vakonomic_model vak; /* n, m, mass, V and the velocity constraints G (with dG, d2G) */
    int k;                  /* number of holonomic constraints, 1 ≤ k ≤ SP_PROP7_MAX_K */
    /* h(q) (k), Dh (k x n, row-major), D2h[(a n + i) n + j] = ∂²h_a/∂q_i∂q_j; any output
     * may be NULL (the step does not ask for D2h). */
    int (*holonomic)(const double *q, double *h, double *Dh, double *D2h, void *params);
    void *params; /* for `holonomic`; vak carries its own */
} sp_prop7_model;

typedef struct sp_prop7 sp_prop7;

/* Borrows the model. NULL on an invalid model or out of memory. */
sp_prop7 *sp_prop7_alloc(const sp_prop7_model *model);
void sp_prop7_free(sp_prop7 *s);
void sp_prop7_set_options(sp_prop7 *s, const sp_newton_options *opt); /* default 1e-15, 50 */

/* One step of size h (negative allowed), in place on (q, p). A failure returns its
 * status and leaves (q, p) untouched.
 *
 * Newton starts from the plain guess, or, when the step continues a chain of steps, from
 * the chain extrapolated (docs/methods.md §5.7), falling back to the plain guess; either
 * start converges to the same solution within the Newton tolerance. */
sp_status sp_prop7_step(sp_prop7 *s, double h, double *q, double *p);
int sp_prop7_iterations(const sp_prop7 *s); /* Newton iterations of the last step (both starts) */
/* Forgets the steps taken: the next step starts from the plain guess, as the first does. */
void sp_prop7_reset(sp_prop7 *s);

/* The residual of the Newton solve at x = (q1, p_{1/2}, ν0) from (q0, p0) and, when J is
 * not NULL, its (2n + k) x (2n + k) Jacobian; exposed for tests. */
sp_status sp_prop7_residual(sp_prop7 *s, double h, const double *q0, const double *p0, const double *x, double *F,
                            double *J);

/* max |h(q)| and max |Dh(q) H_p(q, p, λ(q, p))| at (q, p). */
sp_status sp_prop7_residuals(sp_prop7 *s, const double *q, const double *p, double *position, double *hidden);
/* Ĥ(q, p) and (when not NULL) λ(q, p). */
sp_status sp_prop7_energy(sp_prop7 *s, const double *q, const double *p, double *H, double *lam);

#endif
