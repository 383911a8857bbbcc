#include <stdlib.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_newton.h"
#include "lie/sp_linalg.h"

struct sp_newton {
    int n;
    double *r, *J, *x_new, *x0;
    int *pivots;
    int have_lu;        /* J and pivots hold LU factors that a simplified solve may reuse */
    int factorizations; /* in the last solve */
    double theta;       /* the largest contraction rate measured in the last simplified solve */
    double stale_theta; /* with stale_updates: the largest rate of factors kept from an earlier
                           call, measured in the last solve that used them (0: none) */
};

/* Above this measured contraction rate simplified Newton refactors: at θ = 1/2 a fresh
 * Jacobian costs less than the iterations a slow rate would take (Hairer & Wanner, 1996,
 * Sect. IV.8, use a similar bound). */
#define THETA_MAX 0.5
/* A kept factorisation is used for the next call only if it contracted at least this well
 * in the last one; RADAU5's default for its parameter THET (Hairer & Wanner, 1996,
 * Sect. IV.8). Beyond it, a fresh Jacobian at the next initial guess saves more iterations
 * than its factorisation costs. */
#define THETA_KEEP 1e-3

sp_newton *sp_newton_alloc(int n)
{
    if (n < 1) return NULL;
    sp_newton *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->n = n;
    w->r = malloc((size_t)n * sizeof *w->r);
    w->x_new = malloc((size_t)n * sizeof *w->x_new);
    w->x0 = malloc((size_t)n * sizeof *w->x0);
    w->J = malloc((size_t)n * (size_t)n * sizeof *w->J);
    w->pivots = malloc((size_t)n * sizeof *w->pivots);
    if (!w->r || !w->x_new || !w->x0 || !w->J || !w->pivots) {
        sp_newton_free(w);
        return NULL;
    }
    return w;
}

void sp_newton_free(sp_newton *w)
{
    if (!w) return;
    free(w->r);
    free(w->x_new);
    free(w->x0);
    free(w->J);
    free(w->pivots);
    free(w);
}

int sp_newton_dim(const sp_newton *w) { return w->n; }
void sp_newton_forget_jacobian(sp_newton *w) { w->have_lu = 0, w->theta = w->stale_theta = 0.0; }
int sp_newton_factorizations(const sp_newton *w) { return w->factorizations; }

sp_newton_options sp_newton_options_default(void) { return (sp_newton_options){.tol = 1e-15, .max_iter = 50}; }

typedef enum { ITERATE_GO_ON, ITERATE_CONVERGED, ITERATE_GIVE_UP } iterate_verdict;

/* The shared stopping rule of sp_newton.h, applied after x has taken a step of size
 * `step`; `previous` is the size of the step before (INFINITY at first). */
static iterate_verdict stopping_rule(int n, const double *x, double step, double previous, double tol, int rate_stop)
{
    double scale = fmax(1.0, sp_vec_norm(n, x));
    if (step <= tol * scale) return ITERATE_CONVERGED;
    /* The measured rate θ bounds what the steps still to come add up to, θ/(1 − θ)·step
     * (Hairer & Wanner, Solving ODEs II, 1996, Sect. IV.8): below the tolerance, x is
     * already within it of the solution and one more evaluation would only confirm it. */
    const double theta = step / previous;
    if (rate_stop && isfinite(previous) && theta < 0.5 && theta / (1.0 - theta) * step <= tol * scale)
        return ITERATE_CONVERGED;
    /* Newton's own rate: near a regular root with the exact Jacobian the updates shrink
     * quadratically, step_{k+1} ≈ K step_k² with K ≈ step_k/step_{k−1}², so what remains
     * after this update is about θ²·step. Trusted only once θ is small, where the
     * quadratic regime has begun (a linear rate of 0.1 would make it optimistic by 10). */
    if (rate_stop == SP_NEWTON_STOP_BY_QUADRATIC_RATE && isfinite(previous) && theta <= 0.1 &&
        theta * theta * step <= tol * scale)
        return ITERATE_CONVERGED;
    if (step >= previous && step <= 1e3 * tol * scale) return ITERATE_CONVERGED; /* round-off floor */
    return ITERATE_GO_ON;
}

int sp_newton_converged(int n, const double *x, double step, double previous, const sp_newton_options *opt)
{
    return stopping_rule(n, x, step, previous, opt->tol, opt->rate_stop) == ITERATE_CONVERGED;
}

/* The updates a linear iteration of rate theta (0 < theta < 1) still needs, after one of
 * size step, until its predicted distance to the solution is within target. */
static double iterations_to_go(double theta, double step, double target)
{
    return log(target * (1.0 - theta) / (theta * step)) / log(theta);
}

/* One of the two iterations: Newton (f and its Jacobian) or fixed point (phi); a guarded
 * fixed point gives up once it stops contracting (sp_fixed_point_solve_guarded). */
typedef struct iteration {
    sp_newton_fn f;
    sp_fixed_point_fn phi;
    void *ctx;
    int guarded, max_to_go;
    double first, rate; /* guarded: the first update; the mean rate since */
} iteration;

/* Where the guarded fixed point stops (sp_fixed_point_solve_guarded). Its error after an
 * update is about θ times that update, and of the same sign step after step (the
 * iteration's dominant mode), so stopping at an update of tol, as Newton may, leaves a
 * bias the steps add up: on the Heisenberg data (s = 3, h = 0.1, 10⁴ steps) the energy
 * error then grew by 5e-13 where Newton's stays within 1e-15. It stops once what is still
 * to come is predicted below FIXED_POINT_REST·tol (the same drift within 1e-14, for 1.7
 * sweeps more a step), or once its updates stop shrinking within FIXED_POINT_FLOOR·tol
 * (round-off: they need not shrink monotonically before, a rotating mode of the
 * iteration; with the shared rule's 1e3 it stopped up to 1e-12 from the solution on the
 * vehicle of bench/index1_bench.c). */
#define FIXED_POINT_REST 1e-2
#define FIXED_POINT_FLOOR 10.0

/* The guarded fixed point's verdict on its k-th update, of size step (the one before was
 * previous). It judges contraction by the mean rate since the first update,
 * θ̄ = (|Δx_k|/|Δx_1|)^(1/(k−1)): single ratios of a fixed point jump about (by 10x between
 * consecutive updates on the vehicle at h = 0.2), and one of them ≥ 1, or predicting many
 * more updates, would give up on iterations that converge; a single small one would stop
 * them early. */
static iterate_verdict guarded_rule(iteration *m, const double *x, int n, int k, double step, double previous,
                                    double tol)
{
    const double scale = fmax(1.0, sp_vec_norm(n, x));
    if (step == 0.0 || (step >= previous && step <= FIXED_POINT_FLOOR * tol * scale)) return ITERATE_CONVERGED;
    if (k == 1) {
        m->first = step;
        return ITERATE_GO_ON;
    }
    m->rate = pow(step / m->first, 1.0 / (k - 1));
    const double theta = fmax(m->rate, step / previous);
    if (theta < 1.0 && theta / (1.0 - theta) * step <= FIXED_POINT_REST * tol * scale) return ITERATE_CONVERGED;
    if (!(m->rate < 1.0)) return ITERATE_GIVE_UP; /* no net contraction */
    if (m->max_to_go > 0 && k >= 3 && iterations_to_go(m->rate, step, tol * scale) > m->max_to_go)
        return ITERATE_GIVE_UP;
    return ITERATE_GO_ON;
}

/* The next iterate: x − J⁻¹r(x) for Newton, Φ(x) for the fixed point. */
static sp_status next_iterate(sp_newton *w, const iteration *m, const double *x, double *x_next)
{
    const int n = w->n;
    if (m->phi) return m->phi(m->ctx, x, x_next);
    sp_status st = m->f(m->ctx, x, w->r, w->J);
    if (st == SP_OK) ++w->factorizations, st = sp_linsolve(n, w->J, w->r, 1, w->pivots, 0);
    if (st == SP_OK)
        for (int i = 0; i < n; ++i) x_next[i] = x[i] - w->r[i];
    return st;
}

static sp_status iterate(sp_newton *w, iteration *m, double *x, const sp_newton_options *opt, int *iterations)
{
    const int n = w->n;
    int it = 0;
    double previous = INFINITY;
    sp_status st = SP_ERR_NO_CONVERGENCE;
    while (it < opt->max_iter) {
        sp_status fs = next_iterate(w, m, x, w->x_new);
        if (fs != SP_OK) {
            st = fs;
            break;
        }
        ++it;
        double step = sp_vec_dist(n, x, w->x_new);
        sp_vec_copy(n, w->x_new, x);
        if (!sp_vec_isfinite(n, x)) {
            st = SP_ERR_NONFINITE;
            break;
        }
        const iterate_verdict v = m->guarded ? guarded_rule(m, x, n, it, step, previous, opt->tol)
                                             : stopping_rule(n, x, step, previous, opt->tol, opt->rate_stop);
        if (v == ITERATE_CONVERGED) {
            st = SP_OK;
            break;
        }
        if (v == ITERATE_GIVE_UP) break;
        previous = step;
    }
    if (iterations) *iterations = it;
    return st;
}

sp_status sp_newton_solve(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                          int *iterations)
{
    iteration m = {.f = f, .ctx = ctx};
    w->factorizations = 0;
    w->have_lu = 0; /* J now holds factors of some iterate's Jacobian, not one to reuse */
    return iterate(w, &m, x, opt, iterations);
}

sp_status sp_fixed_point_solve(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x, const sp_newton_options *opt,
                               int *iterations)
{
    iteration m = {.phi = phi, .ctx = ctx};
    w->factorizations = 0;
    return iterate(w, &m, x, opt, iterations);
}

sp_status sp_fixed_point_solve_guarded(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x,
                                       const sp_newton_options *opt, int max_to_go, double *rate, int *iterations)
{
    iteration m = {.phi = phi, .ctx = ctx, .guarded = 1, .max_to_go = max_to_go};
    w->factorizations = 0;
    sp_status st = iterate(w, &m, x, opt, iterations);
    if (rate) *rate = m.rate;
    return st;
}

/* Simplified Newton from x with the kept factors (or fresh ones when none are kept),
 * adding the updates it takes to *it. See sp_newton_solve_simplified. */
static sp_status simplified_run(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                                int *it)
{
    const int n = w->n;
    const int costed = opt->stale_updates > 0; /* the reuse rules weighed against a refactorisation */
    int stale = w->have_lu; /* factors from an earlier call, not yet refreshed */
    const double stale_before = w->stale_theta;
    int stale_measured = 0; /* a rate of the kept factors measured in this call replaces it */
    int stale_before_update = 0; /* the previous update used factors from an earlier call */
    double previous = INFINITY;
    int newton_before = 0; /* the previous update used factors made at its own iterate */
    for (int k = 0; k < opt->max_iter; ++k) {
        const int factor = !w->have_lu;
        sp_status st = f(ctx, x, w->r, factor ? w->J : NULL);
        if (st == SP_OK && factor) {
            ++w->factorizations;
            st = sp_lu_factor(n, w->J, w->pivots);
            w->have_lu = st == SP_OK;
            stale = 0;
        }
        if (st == SP_OK) st = sp_lu_solve(n, w->J, w->r, 1, w->pivots, 0);
        if (st != SP_OK) return st;
        for (int i = 0; i < n; ++i) x[i] -= w->r[i];
        ++*it;
        if (!sp_vec_isfinite(n, x)) return SP_ERR_NONFINITE;
        const double step = sp_vec_norm(n, w->r);
        if (stopping_rule(n, x, step, previous, opt->tol, 0) == ITERATE_CONVERGED) return SP_OK;
        /* The measured rate (0 at the first update, where nothing is measured yet). */
        const double theta = isfinite(previous) ? step / previous : 0.0;
        /* The ratio to a full Newton step (factors made where it started) tells how well that
         * step did, not how fast the kept factors contract: near the round-off tolerance the
         * estimate waits for a rate between two updates with the same kept factors
         * (measured on the Lobatto IIIA–IIIB contact oscillator, s = 3: a ratio of 5e-7 to the
         * Newton step, then 5e-5, and a multiplier 1e-13 off had the first ratio been trusted). */
        const double target = opt->tol * fmax(1.0, sp_vec_norm(n, x));
        /* With the costed rules, a ratio of two updates at the round-off floor of the
         * stopping rule is noise (9e-15 after 1.5e-14 is no rate of 0.6): it neither
         * condemns the factors nor counts as their rate. */
        const int noise = costed && previous <= 1e3 * target;
        if (!noise) w->theta = fmax(w->theta, theta);
        /* the ratio tells how far the previous update left x from the solution: it rates
         * that update's factors, also when this one was made with fresh ones */
        if (stale_before_update && !noise && theta > 0.0) {
            w->stale_theta = stale_measured ? fmax(w->stale_theta, theta) : theta;
            stale_measured = 1;
        }
        if (!newton_before && theta > 0.0 && theta < 1.0 && theta / (1.0 - theta) * step <= target) return SP_OK;
        /* With the costed rules: an update that fell from a full Newton step to the round-off
         * floor (within ten times the tolerance, at a ratio below THETA_KEEP) leaves an error
         * far below the tolerance, since the fresh factors contract at least as well again;
         * waiting for the floor's own noise to stagnate took one to three more updates
         * (rolling disk, s = 4, h = 0.1). */
        if (costed && newton_before && theta < THETA_KEEP && step <= 10.0 * target) return SP_OK;
        if (theta >= 1.0 && stale) return SP_ERR_NO_CONVERGENCE; /* the caller starts again, fresh */
        if (theta >= THETA_MAX && !noise) w->have_lu = 0;         /* refactor at this iterate */
        if (costed) {
            /* Factors are refreshed once the updates still to go at their rate would cost more
             * than a fresh Jacobian (which converges in two or three), stale_updates counting
             * that price in updates. Kept factors' rate in the last call that used them stands
             * in until this call measures one, so the decision comes after the first update;
             * a slow rate right after a fresh factorisation means a start far from the
             * solution, where refreshing again pays as well (Chaplygin sleigh, s = 3, an
             * extrapolated multiplier far off: 13 updates on one factorisation). */
            const double rate = factor ? 0.0 /* it rates the factors before these */
                                : theta > 0.0 ? theta
                                : stale ? stale_before
                                        : 0.0;
            if (rate >= THETA_MAX || (rate > 0.0 && iterations_to_go(rate, step, target) > opt->stale_updates))
                w->have_lu = 0;
        }
        previous = step;
        newton_before = factor;
        stale_before_update = stale;
    }
    return SP_ERR_NO_CONVERGENCE;
}

sp_status sp_newton_solve_simplified(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                                     int *iterations)
{
    int it = 0;
    w->factorizations = 0;
    /* Kept factors: without stale_updates, those that contracted at θ ≤ THETA_KEEP in the
     * last call; with it, those whose rate when last kept was below 1/2, judged again after
     * the first update of this call (simplified_run). */
    if (opt->stale_updates > 0 ? w->stale_theta >= THETA_MAX : w->theta > THETA_KEEP) w->have_lu = 0;
    if (!w->have_lu) w->stale_theta = 0.0;
    w->theta = 0.0;
    sp_status st = SP_ERR_NO_CONVERGENCE;
    if (w->have_lu) {
        sp_vec_copy(w->n, x, w->x0);
        st = simplified_run(w, f, ctx, x, opt, &it);
        if (st != SP_OK) { /* a stale Jacobian let us down: the same start, a fresh Jacobian */
            sp_vec_copy(w->n, w->x0, x);
            w->have_lu = 0;
        }
    }
    if (st != SP_OK) st = simplified_run(w, f, ctx, x, opt, &it);
    if (st != SP_OK) w->have_lu = 0;
    if (iterations) *iterations = it;
    return st;
}
