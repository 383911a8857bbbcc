#include <stdlib.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_newton.h"
#include "lie/sp_linalg.h"

struct sp_newton {
    int n;
    double *r, *J, *x_new;
    int *pivots;
};

sp_newton *sp_newton_alloc(int n)
{
    if (n < 1) return NULL;
    sp_newton *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->n = n;
    w->r = malloc((size_t)n * sizeof *w->r);
    w->x_new = malloc((size_t)n * sizeof *w->x_new);
    w->J = malloc((size_t)n * (size_t)n * sizeof *w->J);
    w->pivots = malloc((size_t)n * sizeof *w->pivots);
    if (!w->r || !w->x_new || !w->J || !w->pivots) {
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
    free(w->J);
    free(w->pivots);
    free(w);
}

int sp_newton_dim(const sp_newton *w) { return w->n; }

sp_newton_options sp_newton_options_default(void) { return (sp_newton_options){.tol = 1e-15, .max_iter = 50}; }

typedef enum { ITERATE_GO_ON, ITERATE_CONVERGED } iterate_verdict;

/* The shared stopping rule of sp_newton.h, applied after x has taken a step of size
 * `step`; `previous` is the size of the step before (INFINITY at first). */
static iterate_verdict stopping_rule(int n, const double *x, double step, double previous, double tol)
{
    double scale = fmax(1.0, sp_vec_norm(n, x));
    if (step <= tol * scale) return ITERATE_CONVERGED;
    if (step >= previous && step <= 1e3 * tol * scale) return ITERATE_CONVERGED; /* round-off floor */
    return ITERATE_GO_ON;
}

/* One of the two iterations: Newton (f and its Jacobian) or fixed point (phi). */
typedef struct iteration {
    sp_newton_fn f;
    sp_fixed_point_fn phi;
    void *ctx;
} iteration;

/* The next iterate: x − J⁻¹r(x) for Newton, Φ(x) for the fixed point. */
static sp_status next_iterate(sp_newton *w, const iteration *m, const double *x, double *x_next)
{
    const int n = w->n;
    if (m->phi) return m->phi(m->ctx, x, x_next);
    sp_status st = m->f(m->ctx, x, w->r, w->J);
    if (st == SP_OK) st = sp_linsolve(n, w->J, w->r, 1, w->pivots, 0);
    if (st == SP_OK)
        for (int i = 0; i < n; ++i) x_next[i] = x[i] - w->r[i];
    return st;
}

static sp_status iterate(sp_newton *w, const iteration *m, double *x, const sp_newton_options *opt, int *iterations)
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
        if (stopping_rule(n, x, step, previous, opt->tol) == ITERATE_CONVERGED) {
            st = SP_OK;
            break;
        }
        previous = step;
    }
    if (iterations) *iterations = it;
    return st;
}

sp_status sp_newton_solve(sp_newton *w, sp_newton_fn f, void *ctx, double *x, const sp_newton_options *opt,
                          int *iterations)
{
    iteration m = {.f = f, .ctx = ctx};
    return iterate(w, &m, x, opt, iterations);
}

sp_status sp_fixed_point_solve(sp_newton *w, sp_fixed_point_fn phi, void *ctx, double *x, const sp_newton_options *opt,
                               int *iterations)
{
    iteration m = {.phi = phi, .ctx = ctx};
    return iterate(w, &m, x, opt, iterations);
}
