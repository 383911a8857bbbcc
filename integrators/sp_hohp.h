/* Discrete higher-order Hamilton–Pontryagin (HOHP) integrators for Riemannian cubics on
 * a Lie group with bi-invariant metric (Burnett, Holm & Meier, "Geometric integrators
 * for higher-order mechanics on Lie groups", arXiv:1112.6037, 2011; their θ-family step map).
 *
 * Node state (g, ξ, ν, p): group element, body velocity, and the discrete
 * Legendre–Ostrogradsky momenta ν ≈ −ξ̈ (conjugate to g) and p ≈ ξ̇ (conjugate to ξ).
 * One step of size h with retraction τ:
 *     Δ   = h((1−θ)ξ_k + θξ_{k+1})          ξ_{k+1} = ξ_k + h p_k − h²(1−θ) dτ_Δᵀ ν_k
 *     μ   = dτ_Δᵀ ν_k,   π = p_k − h(1−θ)μ   (interval momenta; π is the control η_k)
 *     R   = τ(Δ),  g_{k+1} = g_k R,  ν_{k+1} = Ad*_R ν_k,  p_{k+1} = π − hθμ.
 * θ = 0 and θ = 1 are explicit and of order 1 (and adjoint to each other); θ = ½ is
 * the symmetric, implicit, order-2 Störmer–Verlet-type scheme. The spatial momentum
 * map Ad*_{g⁻¹}ν, the right-action momentum −ad*_ξ p − ν and |ν| are conserved
 * exactly (discrete Noether). */
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
 * The implicit solve (0 < θ < 1) starts from the guess dτ ≈ I, unless the step continues
 * the last ones: `in` is bitwise the state the last successful step returned, |h| is at
 * most twice the last step, and the extrapolation made for the last step came closer to
 * its solution than this guess (so from the fourth step of a chain on). Then it starts
 * from the interval momentum extrapolated along those steps (hohp.c, predict_mu), and
 * falls back to the plain guess if that solve fails. Newton, which gains only from a
 * prediction within its tolerance (h ≲ 1e-3 on instance A: one update instead of two),
 * pauses predicting after one that was not. Either start converges to the same solution
 * within the solver tolerance; a kick to ν (a keyframe), a new initial state or
 * sp_hohp_reset breaks the chain. Newton stops by its quadratic rate as well (its
 * Jacobian is exact), whatever solve.rate_stop says. */
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
