/* HOHP θ-scheme of sp_hohp.h (Burnett, Holm & Meier, "Geometric integrators for
 * higher-order mechanics on Lie groups", 2011). Written against the group interface only. */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_hohp.h"
#include "lie/sp_registry.h"
#include "integrators/sp_linsolve.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

static const sp_hohp_scheme schemes[] = {
    {"hohp_euler", 0.0, 1, NULL},
    {"hohp_sv", 0.5, 2, NULL},
    {"hohp_euler_adjoint", 1.0, 1, NULL},
};

SP_REGISTRY_OF_TABLES(sp_hohp_scheme, schemes, sp_hohp_scheme_at, sp_hohp_scheme_by_name)

const char *sp_hohp_solver_name(sp_hohp_solver s) { return s == SP_HOHP_FIXED_POINT ? "fixed_point" : "newton"; }

int sp_hohp_solver_from_name(const char *name, sp_hohp_solver *s)
{
    if (name && strcmp(name, "newton") == 0)
        *s = SP_HOHP_NEWTON;
    else if (name && strcmp(name, "fixed_point") == 0)
        *s = SP_HOHP_FIXED_POINT;
    else
        return -1;
    return 0;
}

/* Interval momenta the predictor keeps: a cubic through the last four (see predict_mu); a
 * power of two (the ring's index is masked). */
#define HISTORY 4
/* Newton skips the predictor for at most this many steps after it did not pay (see
 * judge_prediction). */
#define MAX_SKIP 64

struct sp_hohp {
    sp_hohp_config config;
    sp_newton *newton;
    /* the predictor: the last steps of the trajectory that ends in `last`, in a ring of
     * HISTORY slots, the newest at `head` */
    int history; /* steps kept (0: the next step starts plain) */
    int head;
    double mu[HISTORY][SP_LIE_MAX_DIM]; /* their interval momenta μ */
    double h[HISTORY];                  /* and sizes, all of one sign */
    sp_hohp_state last;                 /* what the newest of them returned */
    int trusted;                        /* the last prediction beat the plain guess */
    int skip, backoff;                  /* Newton: steps to go without predicting, and the next such pause */
    /* the extrapolation weights last computed, newest step first, for steps of the sizes
     * key (newest first, 0 past the steps kept) to one of size key_h: steps of one size
     * reuse them rather than recompute a dozen quotients (a whole step costs 0.3 to 0.5 µs,
     * and the predictor must cost less than the update it saves) */
    double weights[HISTORY], key[HISTORY], key_h;
};

/* The data of one implicit solve for x = ξ_{k+1}. */
typedef struct implicit_step {
    const sp_hohp *s;
    double h;
    const double *xi, *nu;
    double base[SP_LIE_MAX_DIM]; /* ξ_k + h p_k */
} implicit_step;

sp_hohp_config sp_hohp_config_default(const sp_group *G)
{
    return (sp_hohp_config){.group = G,
                            .retraction = sp_retraction_cayley,
                            .theta = 0.5,
                            .solver = SP_HOHP_NEWTON,
                            .solve = sp_newton_options_default()};
}

sp_hohp *sp_hohp_alloc(const sp_hohp_config *config)
{
    if (!config || !config->group || !config->retraction || !(config->theta >= 0.0 && config->theta <= 1.0))
        return NULL;
    sp_hohp *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->config = *config;
    const sp_newton_options def = sp_newton_options_default();
    if (s->config.solve.tol <= 0.0) s->config.solve.tol = def.tol;
    if (s->config.solve.max_iter <= 0) s->config.solve.max_iter = def.max_iter;
    /* Newton's matrix I + h³θ(1−θ) D_τ is the exact Jacobian of the residual, so the solve
     * may also stop by Newton's quadratic rate: one evaluation fewer when the start is far
     * enough off to need three updates by their size alone */
    if (s->config.solver == SP_HOHP_NEWTON) s->config.solve.rate_stop = SP_NEWTON_STOP_BY_QUADRATIC_RATE;
    s->backoff = 1;
    s->newton = sp_newton_alloc(config->group->dim);
    if (!s->newton) {
        free(s);
        return NULL;
    }
    return s;
}

void sp_hohp_free(sp_hohp *s)
{
    if (!s) return;
    sp_newton_free(s->newton);
    free(s);
}

const sp_hohp_config *sp_hohp_get_config(const sp_hohp *s) { return &s->config; }
void sp_hohp_reset(sp_hohp *s) { s->history = s->trusted = s->skip = 0, s->backoff = 1; }

/* Δ(x) = h((1−θ)ξ_k + θx) */
static void interval_delta(int n, double h, double theta, const double *xi, const double *x, double *delta)
{
    for (int i = 0; i < n; ++i) delta[i] = h * ((1.0 - theta) * xi[i] + theta * x[i]);
}

/* μ = dτ_Δᵀ ν, with B = dτ_Δ returned for reuse. */
static void interval_momentum(const sp_group *G, const sp_retraction *tau, const double *delta, const double *nu,
                              double *B, double *mu)
{
    tau->dtau(G, delta, B);
    sp_mat_tvec(G->dim, G->dim, B, nu, mu);
}

/* Φ(x) = ξ_k + h p_k − h²(1−θ) dτᵀ_{Δ(x)} ν_k */
static sp_status fixed_point_map(void *ctx, const double *x, double *x_new)
{
    const implicit_step *c = ctx;
    const sp_group *G = c->s->config.group;
    int n = G->dim;
    double theta = c->s->config.theta, delta[SP_LIE_MAX_DIM] = {0}, B[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM],
           mu[SP_LIE_MAX_DIM];
    interval_delta(n, c->h, theta, c->xi, x, delta);
    interval_momentum(G, c->s->config.retraction, delta, c->nu, B, mu);
    for (int i = 0; i < n; ++i) x_new[i] = c->base[i] - c->h * c->h * (1.0 - theta) * mu[i];
    return SP_OK;
}

/* r(x) = x − Φ(x), J = I + h³θ(1−θ) D_τ(Δ(x), ν_k) */
static sp_status newton_residual(void *ctx, const double *x, double *r, double *J)
{
    const implicit_step *c = ctx;
    const sp_group *G = c->s->config.group;
    int n = G->dim;
    double theta = c->s->config.theta, phi[SP_LIE_MAX_DIM];
    fixed_point_map(ctx, x, phi);
    for (int i = 0; i < n; ++i) r[i] = x[i] - phi[i];
    if (J) {
        double delta[SP_LIE_MAX_DIM] = {0}, h = c->h, f = h * h * h * theta * (1.0 - theta);
        interval_delta(n, h, theta, c->xi, x, delta);
        c->s->config.retraction->dtau_T_deriv(G, delta, c->nu, J);
        for (int i = 0; i < n * n; ++i) J[i] *= f;
        for (int i = 0; i < n; ++i) J[i * n + i] += 1.0;
    }
    return SP_OK;
}

/* Does the step from `in` continue the last one: is `in` bitwise the state it returned? */
static SP_ALWAYS_INLINE int continues(const sp_hohp *s, const sp_hohp_state *in, const int n)
{
    const sp_hohp_state *z = &s->last;
    return s->history > 0 && sp_vec_equal(n, in->xi, z->xi) && sp_vec_equal(n, in->nu, z->nu) &&
           sp_vec_equal(n, in->p, z->p) && sp_vec_equal(s->config.group->elem_size, in->g, z->g);
}

/* The slot of the j-th newest step kept. */
static SP_ALWAYS_INLINE int slot(const sp_hohp *s, int j) { return (s->head - j) & (HISTORY - 1); }

/* The predictor of a step of size h that continues the last ones. The unknown solves
 * ξ_{k+1} = ξ_k + h p_k − h²(1−θ) μ with μ = dτᵀ_Δ ν_k, so a guess of μ is a guess of ξ_{k+1}
 * whose error is h²(1−θ) times smaller. The interval momenta of consecutive steps lie on a
 * smooth curve of time (μ ≈ ν at the middle of the interval); the polynomial through the
 * last ones at their midpoints, taken at the midpoint of the new interval, predicts μ to
 * O(h⁴) from four of them, and ξ_{k+1} to O(h⁶): within round-off of the solution for
 * h ≲ 1e-3, where Newton then confirms it in one update instead of two (the plain guess
 * dτ ≈ I is off by O(h³)). Times are counted from the end of the last step; at least two
 * steps are needed, and a step more than twice as long as the last one is not
 * extrapolated. Returns 0 when it makes no prediction. */
static SP_ALWAYS_INLINE int predict_mu(sp_hohp *s, double h, const int n, double *mu)
{
    const int k = s->history;
    if (k < 2 || !(fabs(h) <= 2.0 * fabs(s->h[s->head]))) return 0;
    double sizes[HISTORY]; /* by age, newest first; 0 past k */
    int slots[HISTORY];
    for (int j = 0; j < HISTORY; ++j) slots[j] = slot(s, j), sizes[j] = j < k ? s->h[slots[j]] : 0.0;
    if (h != s->key_h || !sp_vec_equal(HISTORY, sizes, s->key)) {
        double t[HISTORY], start = 0.0;
        for (int j = 0; j < k; ++j) {
            start -= sizes[j];
            t[j] = start + 0.5 * sizes[j];
        }
        sp_lagrange_weights(k, t, 0.5 * h, s->weights);
        for (int j = k; j < HISTORY; ++j) s->weights[j] = 0.0;
        s->key_h = h;
        memcpy(s->key, sizes, sizeof s->key);
    }
    /* every slot, those past k with weight 0 (they hold finite momenta of earlier steps,
     * or zeros): a sum of fixed length, unrolled, in a register */
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < HISTORY; ++j) acc += s->weights[j] * s->mu[slots[j]][i];
        mu[i] = acc;
    }
    return sp_vec_isfinite(n, mu);
}

/* Judges the prediction mu_guess made for a step whose interval momentum came out mu, from
 * the state `in` (before out, which may alias it, is written). The next steps use a
 * prediction only if this one came closer to the solution than the plain guess ν_k did:
 * where the steps are too long for the polynomial to follow μ (|ν| ten times that of the
 * test data at h = 0.1, exp) it is off by more and cost the fixed point up to two
 * iterations more. Newton gains only from a prediction within its tolerance, which one
 * update then confirms; from anything else it takes two updates whichever the start
 * (h = 0.01 on instance A: the prediction 3e-10 off, the plain guess 1e-6), and there the
 * predictor costs a tenth of a step for nothing: after a prediction that would not have
 * paid, Newton skips predicting for 1, 2, 4, …, MAX_SKIP steps. */
static SP_ALWAYS_INLINE void judge_prediction(sp_hohp *s, double h, const double *mu_guess, const double *mu,
                                              const sp_hohp_state *in, const double *xi1, const int n)
{
    double e_guess = 0.0, e_plain = 0.0;
    for (int i = 0; i < n; ++i) {
        e_guess += (mu_guess[i] - mu[i]) * (mu_guess[i] - mu[i]);
        e_plain += (in->nu[i] - mu[i]) * (in->nu[i] - mu[i]);
    }
    s->trusted = e_guess < e_plain;
    if (s->config.solver != SP_HOHP_NEWTON) return;
    const double off = h * h * (1.0 - s->config.theta) * sqrt(e_guess), scale = fmax(1.0, sp_vec_norm(n, xi1));
    if (off <= s->config.solve.tol * scale) {
        s->backoff = 1;
    } else {
        s->skip = s->backoff;
        s->backoff = s->backoff < MAX_SKIP ? 2 * s->backoff : MAX_SKIP;
    }
}

/* Keeps the step just taken (size h, its interval momentum mu, the state out it returned)
 * for the predictor. A step against the direction of the ones kept starts a new history:
 * the midpoints of a trajectory that turns back would not be distinct. */
static SP_ALWAYS_INLINE void remember(sp_hohp *s, double h, const double *mu, const sp_hohp_state *out, int continued,
                                      const int n)
{
    if (!continued || (h > 0.0) != (s->h[s->head] > 0.0)) s->history = 0, s->trusted = 0, s->skip = 0;
    s->head = slot(s, -1);
    sp_vec_copy(n, mu, s->mu[s->head]);
    s->h[s->head] = h;
    if (s->history < HISTORY) ++s->history;
    /* copies of a fixed size, inlined: the state's used entries are fewer, but copying
     * them by count calls memmove, which cost more than the copy */
    memcpy(s->last.g, out->g, sizeof out->g);
    memcpy(s->last.xi, out->xi, sizeof out->xi);
    memcpy(s->last.nu, out->nu, sizeof out->nu);
    memcpy(s->last.p, out->p, sizeof out->p);
}

/* One step in dimension n; instantiated below for n = 3 and for any n. */
static SP_ALWAYS_INLINE sp_status hohp_step(sp_hohp *s, double h, const sp_hohp_state *in, sp_hohp_state *out,
                                            sp_hohp_interval *interval, const int n)
{
    const sp_group *G = s->config.group;
    const sp_retraction *tau = s->config.retraction;
    const double theta = s->config.theta;
    double xi1[SP_LIE_MAX_DIM] = {0}, delta[SP_LIE_MAX_DIM] = {0}, mu[SP_LIE_MAX_DIM], pi[SP_LIE_MAX_DIM];
    double B[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    int iterations = 0, continued = 0, predicted = 0;
    double mu_guess[SP_LIE_MAX_DIM];

    if (theta == 0.0) {
        for (int i = 0; i < n; ++i) delta[i] = h * in->xi[i];
        interval_momentum(G, tau, delta, in->nu, B, mu);
        for (int i = 0; i < n; ++i) pi[i] = in->p[i] - h * mu[i];
        for (int i = 0; i < n; ++i) xi1[i] = in->xi[i] + h * pi[i];
    } else {
        if (theta == 1.0) {
            for (int i = 0; i < n; ++i) xi1[i] = in->xi[i] + h * in->p[i];
        } else {
            implicit_step c = {.s = s, .h = h, .xi = in->xi, .nu = in->nu};
            for (int i = 0; i < n; ++i) c.base[i] = in->xi[i] + h * in->p[i];
            continued = continues(s, in, n);
            if (continued && s->skip > 0)
                --s->skip;
            else
                predicted = continued && predict_mu(s, h, n, mu_guess);
            sp_status st = SP_ERR_NO_CONVERGENCE;
            for (int attempt = predicted && s->trusted ? 0 : 1; attempt < 2 && st != SP_OK; ++attempt) {
                /* the prediction, then (first step, or the prediction led nowhere) the plain
                 * guess dτ ≈ I, i.e. μ ≈ ν_k */
                const double *guess = attempt == 0 ? mu_guess : in->nu;
                for (int i = 0; i < n; ++i) xi1[i] = c.base[i] - h * h * (1.0 - theta) * guess[i];
                int it = 0;
                st = s->config.solver == SP_HOHP_FIXED_POINT
                         ? sp_fixed_point_solve(s->newton, fixed_point_map, &c, xi1, &s->config.solve, &it)
                         : sp_newton_solve(s->newton, newton_residual, &c, xi1, &s->config.solve, &it);
                iterations += it;
            }
            if (st != SP_OK) return st;
        }
        interval_delta(n, h, theta, in->xi, xi1, delta);
        interval_momentum(G, tau, delta, in->nu, B, mu);
        for (int i = 0; i < n; ++i) pi[i] = in->p[i] - h * (1.0 - theta) * mu[i];
    }

    double R[SP_LIE_MAX_ELEM], g1[SP_LIE_MAX_ELEM], nu1[SP_LIE_MAX_DIM];
    tau->tau(G, delta, R);
    G->compose(G, in->g, R, g1);
    G->Ad_star(G, R, in->nu, nu1);
    if (!sp_vec_isfinite(n, xi1) || !sp_vec_isfinite(n, nu1) || !sp_vec_isfinite(n, pi) ||
        !sp_vec_isfinite(G->elem_size, g1))
        return SP_ERR_NONFINITE;

    if (predicted) judge_prediction(s, h, mu_guess, mu, in, xi1, n);
    if (interval) {
        interval->h = h;
        interval->iterations = iterations;
        sp_vec_copy(n, delta, interval->delta);
        sp_vec_copy(n, mu, interval->mu);
        sp_vec_copy(n, pi, interval->pi);
        sp_vec_copy(n, in->nu, interval->nu);
        sp_vec_copy(G->elem_size, R, interval->R);
        sp_vec_copy(n * n, B, interval->B);
    }
    for (int i = 0; i < n; ++i) out->p[i] = pi[i] - h * theta * mu[i];
    sp_vec_copy(n, xi1, out->xi);
    sp_vec_copy(n, nu1, out->nu);
    sp_vec_copy(G->elem_size, g1, out->g);
    if (theta > 0.0 && theta < 1.0) remember(s, h, mu, out, continued, n);
    return SP_OK;
}

sp_status sp_hohp_step(sp_hohp *s, double h, const sp_hohp_state *in, sp_hohp_state *out, sp_hohp_interval *interval)
{
    return s->config.group->dim == 3 ? hohp_step(s, h, in, out, interval, 3)
                                     : hohp_step(s, h, in, out, interval, s->config.group->dim);
}

/* Linearised step (δξ₁, δΔ, δμ from the step's equations):
 *   A δξ₁ = (I − h³(1−θ)²D) δξ + h δp − h²(1−θ) Bᵀδν,   A = I + h³θ(1−θ)D,  D = D_τ(Δ, ν)
 *   δΔ = h(1−θ)δξ + hθ δξ₁,   δμ = Bᵀδν + D δΔ,   δp₁ = δp − h δμ
 *   δθ₁ = Ad_{R⁻¹}(δθ + B δΔ),   δν₁ = Ad*_R(δν + ad*_{BδΔ} ν). */
sp_status sp_hohp_tangent(const sp_hohp *s, const sp_hohp_interval *iv, int count, double *dz)
{
    const sp_group *G = s->config.group;
    const int n = G->dim;
    const double th = s->config.theta, a = 1.0 - th, h = iv->h, h3 = h * h * h;
    double D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], A[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], R_inv[SP_LIE_MAX_ELEM];
    double N[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM]; /* N ε = ad*_ε ν */
    int piv[SP_LIE_MAX_DIM];
    s->config.retraction->dtau_T_deriv(G, iv->delta, iv->nu, D);
    for (int j = 0; j < n; ++j) {
        double e[SP_LIE_MAX_DIM] = {0}, col[SP_LIE_MAX_DIM];
        e[j] = 1.0;
        G->ad_star(G, e, iv->nu, col);
        for (int i = 0; i < n; ++i) N[i * n + j] = col[i];
    }
    G->inverse(G, iv->R, R_inv);
    const int implicit = th > 0.0 && th < 1.0;
    double rhs_local[SP_LIE_MAX_DIM * 4 * SP_LIE_MAX_DIM];
    for (int c0 = 0; c0 < count; c0 += 4 * SP_LIE_MAX_DIM) {
        int m = count - c0 < 4 * SP_LIE_MAX_DIM ? count - c0 : 4 * SP_LIE_MAX_DIM;
        /* right-hand sides of the implicit equation for δξ₁, solved together */
        for (int c = 0; c < m; ++c) {
            const double *z = dz + (size_t)(c0 + c) * 4 * n;
            const double *dxi = z + n, *dnu = z + 2 * n, *dp = z + 3 * n;
            double Dx[SP_LIE_MAX_DIM], Bn[SP_LIE_MAX_DIM];
            sp_mat_vec(n, n, D, dxi, Dx);
            sp_mat_tvec(n, n, iv->B, dnu, Bn);
            for (int i = 0; i < n; ++i)
                rhs_local[c * n + i] = dxi[i] - h3 * a * a * Dx[i] + h * dp[i] - h * h * a * Bn[i];
        }
        if (implicit) {
            for (int i = 0; i < n * n; ++i) A[i] = h3 * th * a * D[i];
            for (int i = 0; i < n; ++i) A[i * n + i] += 1.0;
            sp_status st = sp_linsolve(n, A, rhs_local, m, piv, 0);
            if (st != SP_OK) return st;
        }
        for (int c = 0; c < m; ++c) {
            double *z = dz + (size_t)(c0 + c) * 4 * n;
            double *dth = z, *dxi = z + n, *dnu = z + 2 * n, *dp = z + 3 * n;
            const double *dxi1 = rhs_local + c * n;
            double dD[SP_LIE_MAX_DIM], dmu[SP_LIE_MAX_DIM], BdD[SP_LIE_MAX_DIM], v[SP_LIE_MAX_DIM];
            for (int i = 0; i < n; ++i) dD[i] = h * a * dxi[i] + h * th * dxi1[i];
            sp_mat_tvec(n, n, iv->B, dnu, dmu);
            sp_mat_vec(n, n, D, dD, v);
            sp_vec_axpy(n, 1.0, v, dmu);
            sp_mat_vec(n, n, iv->B, dD, BdD);
            for (int i = 0; i < n; ++i) dp[i] -= h * dmu[i];
            for (int i = 0; i < n; ++i) v[i] = dth[i] + BdD[i];
            G->Ad(G, R_inv, v, dth);
            sp_mat_vec(n, n, N, BdD, v);
            for (int i = 0; i < n; ++i) v[i] += dnu[i];
            G->Ad_star(G, iv->R, v, dnu);
            sp_vec_copy(n, dxi1, dxi);
        }
    }
    return SP_OK;
}

void sp_hohp_momentum_map(const sp_group *G, const sp_hohp_state *z, double *M)
{
    double g_inv[SP_LIE_MAX_ELEM];
    G->inverse(G, z->g, g_inv);
    G->Ad_star(G, g_inv, z->nu, M);
}

void sp_hohp_right_momentum(const sp_group *G, const sp_hohp_state *z, double *C)
{
    double ad[SP_LIE_MAX_DIM];
    G->ad_star(G, z->xi, z->p, ad);
    for (int i = 0; i < G->dim; ++i) C[i] = -ad[i] - z->nu[i];
}

double sp_hohp_energy(const sp_group *G, const sp_hohp_state *z)
{
    return sp_vec_dot(G->dim, z->nu, z->xi) + 0.5 * sp_vec_dot(G->dim, z->p, z->p);
}
