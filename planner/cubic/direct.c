/* The direct form over the node velocities (see sp_direct.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_direct.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "lie/sp_linalg.h"

struct sp_direct {
    const sp_problem *pb;
    sp_cubic_spline cubic; /* the problem's, with the σ of this object */
    const sp_group *G;
    int N, n, k_lo, k_hi; /* free nodes k_lo…k_hi */
    double theta;
    sp_plan_grid grid;
    double *xi;    /* (N+1)·n velocities, fixed ones included */
    double *R, *B; /* per step τ(Δ_k) and dτ_Δk, for the backward sweep */
    double *g;     /* (N+1) group elements */
    double *full;  /* gradient over every node */
};

sp_direct *sp_direct_alloc(const sp_problem *pb, double sigma) { return sp_direct_alloc_segments(pb, sigma, NULL); }

sp_direct *sp_direct_alloc_segments(const sp_problem *pb, double sigma, const int *segment_steps)
{
    sp_direct *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->pb = pb;
    d->G = pb->cubic.group;
    d->n = d->G->dim;
    if (sp_plan_setup(pb, sigma, segment_steps, &d->cubic, &d->N, &d->grid) != SP_OK) {
        free(d);
        return NULL;
    }
    d->theta = pb->scheme->theta;
    d->k_lo = pb->plan.xi0_free ? 0 : 1;
    d->k_hi = pb->plan.has_xiT ? d->N - 1 : d->N;
    const size_t N = (size_t)d->N, n = (size_t)d->n, e = (size_t)d->G->elem_size;
    d->xi = calloc((N + 1) * n, sizeof *d->xi);
    d->R = malloc(N * e * sizeof *d->R);
    d->B = malloc(N * n * n * sizeof *d->B);
    d->g = malloc((N + 1) * e * sizeof *d->g);
    d->full = malloc((N + 1) * n * sizeof *d->full);
    if (!d->xi || !d->R || !d->B || !d->g || !d->full) {
        sp_direct_free(d);
        return NULL;
    }
    if (!pb->plan.xi0_free) sp_vec_copy(d->n, pb->xi0, d->xi);
    if (pb->plan.has_xiT) sp_vec_copy(d->n, pb->plan.xiT, d->xi + N * n);
    return d;
}

void sp_direct_free(sp_direct *d)
{
    if (!d) return;
    sp_plan_grid_free(&d->grid), free(d->xi), free(d->R), free(d->B);
    free(d->g), free(d->full);
    free(d);
}

int sp_direct_dim(const sp_direct *d) { return d->n * (d->k_hi - d->k_lo + 1); }

/* The curve of x: node velocities, steps and group elements; J_d and its running part. */
static sp_status forward(sp_direct *d, const double *x, double *J)
{
    const sp_group *G = d->G;
    const sp_retraction *tau = d->pb->retraction;
    const int n = d->n, e = G->elem_size;
    memcpy(d->xi + (size_t)d->k_lo * n, x, (size_t)sp_direct_dim(d) * sizeof *x);
    sp_vec_copy(e, d->pb->g0, d->g);
    double cost = 0.0;
    for (int k = 0; k < d->N; ++k) {
        const double *x0 = d->xi + (size_t)k * n, *x1 = x0 + n;
        double delta[SP_LIE_MAX_DIM], eta[SP_LIE_MAX_DIM];
        for (int a = 0; a < n; ++a) {
            delta[a] = d->grid.h[k] * ((1.0 - d->theta) * x0[a] + d->theta * x1[a]);
            eta[a] = (x1[a] - x0[a]) / d->grid.h[k];
        }
        cost += 0.5 * d->grid.h[k] * sp_vec_dot(n, eta, eta);
        double *R = d->R + (size_t)k * e;
        tau->tau(G, delta, R);
        tau->dtau(G, delta, d->B + (size_t)k * n * n);
        G->compose(G, d->g + (size_t)k * e, R, d->g + (size_t)(k + 1) * e);
        int i = d->grid.target_at[k + 1];
        if (i >= 0) cost += sp_cubic_target_cost(&d->cubic, (size_t)i, d->g + (size_t)(k + 1) * e);
    }
    *J = cost;
    return isfinite(cost) ? SP_OK : SP_ERR_NONFINITE;
}

/* The backward sweep of the costates: gradient over every node into d->full and, at the
 * requested nodes, the HOHP states. a_g is the costate of g (body), a_x that of ξ with
 * the controls η held (so that a_x = −p). */
static void backward(sp_direct *d, const int *nodes, int count, sp_hohp_state *out)
{
    const sp_group *G = d->G;
    const int n = d->n, e = G->elem_size, N = d->N;
    double a_g[SP_LIE_MAX_DIM] = {0}, a_x[SP_LIE_MAX_DIM] = {0}, u[SP_LIE_MAX_DIM], v[SP_LIE_MAX_DIM];
    memset(d->full, 0, (size_t)(N + 1) * n * sizeof *d->full);
    int i = d->grid.target_at[N];
    if (i >= 0) sp_cubic_target_gradient(&d->cubic, (size_t)i, d->g + (size_t)N * e, a_g);
    int q = count - 1;
    for (int k = N - 1; k >= 0; --k) {
        const double *x0 = d->xi + (size_t)k * n, *x1 = x0 + n;
        const double *R = d->R + (size_t)k * e, *B = d->B + (size_t)k * n * n;
        /* a_g ← Ad_{R⁻¹}ᵀ a_g (the costate carried back through g_{k+1} = g_k R) */
        double R_inv[SP_LIE_MAX_ELEM];
        G->inverse(G, R, R_inv);
        G->Ad_star(G, R_inv, a_g, v);
        sp_vec_copy(n, v, a_g);
        sp_mat_tvec(n, n, B, a_g, u); /* ∂J/∂Δ_k */
        if (k == N - 1 && d->pb->plan.has_xiT) {
            /* ξ_N is fixed: its costate is the multiplier that makes η_{N−1} stationary */
            for (int a = 0; a < n; ++a) a_x[a] = -(x1[a] - x0[a]) / d->grid.h[k] - d->grid.h[k] * d->theta * u[a];
        }
        for (int a = 0; a < n; ++a) {
            double eta = (x1[a] - x0[a]) / d->grid.h[k];
            d->full[(size_t)k * n + a] += d->grid.h[k] * (1.0 - d->theta) * u[a] - eta;
            d->full[(size_t)(k + 1) * n + a] += d->grid.h[k] * d->theta * u[a] + eta;
            a_x[a] += d->grid.h[k] * u[a];
        }
        if (q >= 0 && nodes[q] == k) {
            sp_hohp_state *z = &out[q--];
            sp_vec_copy(e, d->g + (size_t)k * e, z->g);
            sp_vec_copy(n, x0, z->xi);
            for (int a = 0; a < n; ++a) z->nu[a] = -a_g[a], z->p[a] = -a_x[a];
        }
        i = k > 0 ? d->grid.target_at[k] : -1;
        if (i >= 0) {
            sp_cubic_target_gradient(&d->cubic, (size_t)i, d->g + (size_t)k * e, v);
            sp_vec_axpy(n, 1.0, v, a_g);
        }
    }
}

sp_status sp_direct_cost(sp_direct *d, const double *x, double *J, double *grad)
{
    sp_status st = forward(d, x, J);
    if (st != SP_OK || !grad) return st;
    backward(d, NULL, 0, NULL);
    memcpy(grad, d->full + (size_t)d->k_lo * d->n, (size_t)sp_direct_dim(d) * sizeof *grad);
    return sp_vec_isfinite(sp_direct_dim(d), grad) ? SP_OK : SP_ERR_NONFINITE;
}

sp_status sp_direct_start(sp_direct *d, sp_start_kind kind, double *x)
{
    sp_start_curve *c = sp_start_curve_new(d->pb, kind);
    if (!c) return SP_ERR_NOMEM;
    for (int k = d->k_lo; k <= d->k_hi; ++k) {
        sp_hohp_state z;
        sp_start_curve_eval(c, d->grid.t[k], &z);
        sp_vec_copy(d->n, z.xi, x + (size_t)(k - d->k_lo) * d->n);
    }
    sp_start_curve_free(c);
    return SP_OK;
}

sp_status sp_direct_node_states(sp_direct *d, const double *x, const int *nodes, int count, sp_hohp_state *out)
{
    double J;
    sp_status st = forward(d, x, &J);
    if (st != SP_OK) return st;
    backward(d, nodes, count, out);
    return SP_OK;
}
