/* Discrete higher-order Hamilton–Pontryagin (HOHP) integrators for Riemannian cubics on
 * a Lie group with bi-invariant metric (Burnett, Holm & Meier, arXiv:1112.6037, 2011; the
 * θ-family step map of docs/methods.md §2.3). Node state (g, ξ, ν, p): group element, body
 * velocity and the discrete momenta ν ≈ −ξ̈, p ≈ ξ̇. θ = 0 and 1 are explicit, order 1;
 * θ = ½ is symmetric, implicit, order 2. The spatial momentum map, the right-action momentum
 * and |ν| are conserved exactly.
 * A stepper owns its configuration copy and work space; steps allocate nothing. */
#ifndef SP_HOHP_H
#define SP_HOHP_H

#include <stddef.h>

#include "lie/sp_lie.h"
#include "integrators/sp_newton.h"

/* A named member of the θ-family. */
typedef struct sp_hohp_scheme {
    const char *name; /* "hohp_euler", "hohp_sv", "hohp_euler_adjoint"; "hohp_rkmk8" (sp_hohp_rk.h) */
    double theta;
    int order;
    /* NULL for the θ-family; else the explicit table with which sp_hohp_rk.h integrates
     * the continuous equations ("hohp_rkmk8": DOP853's order-8 weights; θ unused) */
    const char *rk_table;
} sp_hohp_scheme;

/* The θ-family (the RKMK scheme is sp_hohp_rk.h's sp_hohp_scheme_rkmk8). */
const sp_hohp_scheme *sp_hohp_scheme_by_name(const char *name);
const sp_hohp_scheme *sp_hohp_scheme_at(size_t i);

typedef enum { SP_HOHP_NEWTON, SP_HOHP_FIXED_POINT } sp_hohp_solver;
const char *sp_hohp_solver_name(sp_hohp_solver s);
/* Returns 0 and sets *s for "newton" or "fixed_point"; -1 otherwise. */
int sp_hohp_solver_from_name(const char *name, sp_hohp_solver *s);

typedef struct sp_hohp_state {
    double g[SP_LIE_MAX_ELEM];
    double xi[SP_LIE_MAX_DIM], nu[SP_LIE_MAX_DIM], p[SP_LIE_MAX_DIM];
} sp_hohp_state;

/* What one step leaves behind: the interval quantities, and B = dτ_Δ (row-major
 * n x n) for adjoint sweeps, which rebuild D_τ(Δ, ν_k) from delta and nu when they
 * need it rather than make every forward step pay for it. */
typedef struct sp_hohp_interval {
    double h;
    double delta[SP_LIE_MAX_DIM], mu[SP_LIE_MAX_DIM], pi[SP_LIE_MAX_DIM];
    double nu[SP_LIE_MAX_DIM]; /* ν_k that entered the step */
    double R[SP_LIE_MAX_ELEM];
    double B[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    int iterations; /* of the implicit solve; 0 for explicit steps */
} sp_hohp_interval;

typedef struct sp_hohp sp_hohp;

typedef struct sp_hohp_config {
    const sp_group *group;
    const sp_retraction *retraction;
    double theta;            /* in [0, 1] */
    sp_hohp_solver solver;   /* for 0 < θ < 1 */
    sp_newton_options solve; /* tol 1e-15 and 50 iterations when zero */
} sp_hohp_config;

/* The configuration of hohp_sv on G: the Cayley retraction, θ = ½, Newton's method with
 * sp_newton_options_default. */
sp_hohp_config sp_hohp_config_default(const sp_group *G);

/* NULL on invalid configuration or out of memory. */
sp_hohp *sp_hohp_alloc(const sp_hohp_config *config);
void sp_hohp_free(sp_hohp *s);
const sp_hohp_config *sp_hohp_get_config(const sp_hohp *s);

/* Advances `in` by one step of size h (negative h steps backwards) into `out` (which
 * may alias `in`). When `interval` is not NULL it receives the step's interval record.
 * A failed implicit solve returns its status and leaves `out` untouched.
 *
 * The implicit solve (0 < θ < 1) starts from the guess dτ ≈ I, or, when the step continues
 * a chain of steps (`in` bitwise the last result, |h| at most twice the last step), from
 * the interval momentum extrapolated along it; either start converges to the same solution
 * within the solver tolerance (docs/methods.md §2.4). sp_hohp_reset breaks the chain. */
sp_status sp_hohp_step(sp_hohp *s, double h, const sp_hohp_state *in, sp_hohp_state *out, sp_hohp_interval *interval);

/* Forgets the steps taken: the next step starts from the plain guess, as the first does. */
void sp_hohp_reset(sp_hohp *s);

/* The linearisation of the step recorded in `iv` (which must come from a converged step
 * of `s`), applied in place to `count` tangent vectors stored one after another, 4·dim
 * doubles each: (δθ, δξ, δν, δp), with g perturbed on the right, g → g exp(δθ).
 * Multiple shooting propagates the columns of a block's Jacobian with it. */
sp_status sp_hohp_tangent(const sp_hohp *s, const sp_hohp_interval *iv, int count, double *dz);

/* The invariants of the scheme. */
void sp_hohp_momentum_map(const sp_group *G, const sp_hohp_state *z, double *M);   /* Ad*_{g⁻¹} ν */
void sp_hohp_right_momentum(const sp_group *G, const sp_hohp_state *z, double *C); /* −ad*_ξ p − ν */
double sp_hohp_energy(const sp_group *G, const sp_hohp_state *z);                  /* ⟨ν,ξ⟩ + ½|p|² */

#endif
