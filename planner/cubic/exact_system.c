/* The system of the exact plans' condensed solver (sp_exact.h): one sweep over every
 * segment with its linearisation, the condensed banded system and its response, and
 * simplified Newton on it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/exact_internal.h"

void sp_exact_knot_state(const exact *e, const double *w, const double *mu, int i, sp_hohp_state *z)
{
    const int n = e->n;
    memset(z, 0, sizeof *z);
    memcpy(z->g, elem(e, i), (size_t)e->G->elem_size * sizeof *z->g);
    memcpy(z->xi, w + 2 * n * i, (size_t)n * sizeof *z->xi);
    memcpy(z->p, w + 2 * n * i + n, (size_t)n * sizeof *z->p);
    if (mu) memcpy(z->nu, mu + n * i, (size_t)n * sizeof *z->nu);
}

/* Inverts a small matrix in place by Gauss–Jordan with partial pivoting; -1 if singular. */
static int invert(int n, double *A)
{
    double I[MAXN * MAXN];
    sp_mat_identity(n, I);
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
        if (!(fabs(A[p * n + c]) > 0.0)) return -1;
        for (int k = 0; k < n; ++k) {
            double t = A[c * n + k];
            A[c * n + k] = A[p * n + k], A[p * n + k] = t;
            t = I[c * n + k], I[c * n + k] = I[p * n + k], I[p * n + k] = t;
        }
        const double d = A[c * n + c];
        for (int k = 0; k < n; ++k) A[c * n + k] /= d, I[c * n + k] /= d;
        for (int r = 0; r < n; ++r)
            if (r != c) {
                const double f = A[r * n + c];
                for (int k = 0; k < n; ++k) A[r * n + k] -= f * A[c * n + k], I[r * n + k] -= f * I[c * n + k];
            }
    }
    memcpy(A, I, (size_t)n * n * sizeof *A);
    return 0;
}

/* What a sweep's pieces share. */
typedef struct sweep_job {
    exact *e;
    const int *steps;
    const double *w, *mu;
    int linearise;
    sp_hohp_state *nodes;
} sweep_job;

/* Segment i of a sweep on the stepper `rk`: its residuals, running cost and largest scaled
 * residual; with `linearise` also its blocks and band rows (rows of its own). */
static sp_status sweep_segment(const sweep_job *job, int i, sp_hohp_rk *rk)
{
    exact *e = job->e;
    const sp_group *G = e->G;
    const int n = e->n, nw = 2 * n, nz = 4 * n, cols = 3 * n + e->spin, linearise = job->linearise;
    const double *w = job->w;
    sp_hohp_state z;
    sp_exact_knot_state(e, w, job->mu, i, &z);
    double dz[(3 * MAXN + 3) * 4 * MAXN];
    if (linearise) {
        /* columns: δξ, δπ, δμ of the knot state (δθ = 0: g is pinned), and on the sphere
         * the knot's moves along the free directions, g → g exp(δθ_a u_a) */
        memset(dz, 0, (size_t)cols * nz * sizeof *dz);
        for (int c = 0; c < n; ++c) {
            dz[c * nz + n + c] = 1.0;               /* ξ */
            dz[(n + c) * nz + 3 * n + c] = 1.0;     /* π */
            dz[(2 * n + c) * nz + 2 * n + c] = 1.0; /* μ */
        }
        for (int a = 0; a < e->spin; ++a) sp_vec_copy(n, e->dir[a], dz + (3 * n + a) * nz);
    }
    const int steps = job->steps[i];
    const double h = (e->tk[i + 1] - e->tk[i]) / steps;
    double run = 0.0, worst = 0.0;
    sp_hohp_state *node = job->nodes ? job->nodes + e->first_node[i] : NULL;
    for (int k = 0; k < steps; ++k) {
        if (node) *node++ = z;
        double c;
        sp_status st = sp_hohp_rk_step(rk, h, &z, &z, &c, linearise ? cols : 0, dz);
        if (st != SP_OK) return st;
        run += c;
    }
    e->ends[i] = z;
    double *r = e->r + (size_t)i * 3 * n, D[MAXN * MAXN], Da[MAXN * MAXN];
    sp_status st = sp_group_log_mismatch(G, elem(e, i + 1), z.g, r, linearise && e->spin ? Da : NULL,
                                         linearise ? D : NULL);
    if (st != SP_OK) return st;
    const double *w1 = w + nw * (i + 1);
    for (int k = 0; k < n; ++k) {
        r[n + k] = z.xi[k] - w1[k];
        r[2 * n + k] = z.p[k] - w1[n + k];
        worst = fmax(worst, fabs(r[k]));
        worst = fmax(worst, fabs(r[n + k]) / fmax(1.0, fabs(w1[k])));
        worst = fmax(worst, fabs(r[2 * n + k]) / fmax(1.0, fabs(w1[n + k])));
    }
    e->seg_run[i] = run, e->seg_worst[i] = worst;
    if (!linearise) return SP_OK;
    segment *sg = &e->seg[i];
    double A[MAXN * (3 * MAXN + 3)]; /* ∂r_g/∂(ξ, π, μ, θ) = D · (δθ rows) */
    for (int a = 0; a < n; ++a)
        for (int c = 0; c < cols; ++c) {
            double s = 0.0;
            for (int q = 0; q < n; ++q) s += D[a * n + q] * dz[c * nz + q];
            A[a * cols + c] = s;
        }
    for (int a = 0; a < n; ++a) {
        for (int c = 0; c < nw; ++c) sg->Aw[a * nw + c] = A[a * cols + c];
        for (int c = 0; c < n; ++c) sg->Ainv[a * n + c] = A[a * cols + nw + c];
    }
    if (invert(n, sg->Ainv) != 0) return SP_ERR_SINGULAR;
    /* rows of (ξ, π) at the end: B_w, B_μ */
    double Bw[MAXW * MAXW];
    for (int a = 0; a < nw; ++a) {
        const int q = a < n ? n + a : 3 * n + (a - n); /* ξ rows, then π rows of the state */
        for (int c = 0; c < nw; ++c) Bw[a * nw + c] = dz[c * nz + q];
        for (int c = 0; c < n; ++c) sg->Bmu[a * n + c] = dz[(nw + c) * nz + q];
        for (int c = 0; c < e->spin; ++c) sg->Bpsi[a * e->spin + c] = dz[(3 * n + c) * nz + q];
    }
    for (int c = 0; c < e->spin; ++c) {
        for (int a = 0; a < n; ++a) {
            sg->Ag[a * e->spin + c] = A[a * cols + 3 * n + c];
            sg->Ae[a * e->spin + c] = sp_vec_dot(n, Da + a * n, e->dir[c]);
        }
        for (int k = 0; k < cols; ++k) sg->Kend[c * cols + k] = sp_vec_dot(n, e->dir[c], dz + k * nz + 2 * n);
    }
    /* rows n + nw·i …: −Φ δw_i + δw_{i+1} */
    sp_band_add_transfer(e->band, n + nw * i, nw * i, n, nw, sg->Ainv, sg->Aw, sg->Bmu, Bw);
    return SP_OK;
}

static sp_status sweep_piece(void *ctx, int begin, int end, int worker)
{
    const sweep_job *job = ctx;
    for (int i = begin; i < end; ++i) {
        sp_status st = sweep_segment(job, i, job->e->rk[worker]);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The segments' work for sp_parallel_run: a step carrying tangents costs about five. */
const int *sp_exact_segment_cost(exact *e, const int *steps, int linearise)
{
    for (int i = 0; i < e->K; ++i) e->cost[i] = steps[i] * (linearise ? 5 : 1);
    return e->cost;
}

/* LU of the condensed band, its time counted in e->times. */
sp_status sp_exact_factor(exact *e)
{
    const double t0 = sp_clock_seconds();
    sp_status st = sp_band_factor(e->band);
    e->jacobians++;
    e->times.linear_algebra += sp_clock_seconds() - t0;
    return st;
}

/* One sweep over every segment from (w, μ) on `steps`: the residuals r, the largest scaled
 * one, the running cost; with `linearise` also the condensed band (unfactored) and the
 * segments' blocks. `nodes` (optional) receives the state at every grid node. */
sp_status sp_exact_sweep(exact *e, const int *steps, const double *w, const double *mu, int linearise, double *scaled,
                       double *running, sp_hohp_state *nodes)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    const int n = e->n, nw = 2 * n;
    if (linearise) sp_band_zero(e->band);
    e->first_node[0] = 0;
    for (int i = 0; i < e->K; ++i) e->first_node[i + 1] = e->first_node[i] + (size_t)steps[i];
    sweep_job job = {.e = e, .steps = steps, .w = w, .mu = mu, .linearise = linearise, .nodes = nodes};
    sp_status st = sp_parallel_run(e->workers, e->K, sp_exact_segment_cost(e, steps, linearise), sweep_piece, &job);
    if (st != SP_OK) return st;
    double worst = 0.0, run = 0.0;
    for (int i = 0; i < e->K; ++i) run += e->seg_run[i], worst = fmax(worst, e->seg_worst[i]);
    if (nodes) sp_exact_knot_state(e, w, NULL, e->K, &nodes[e->first_node[e->K]]);
    /* the start and end rows */
    const sp_problem *pb = e->pb;
    for (int k = 0; k < n; ++k) {
        const double s = pb->plan.xi0_free ? w[n + k] : w[k] - pb->xi0[k];
        const double t = pb->plan.has_xiT ? w[nw * e->K + k] - pb->plan.xiT[k] : w[nw * e->K + n + k];
        worst = fmax(worst, fmax(fabs(s), fabs(t)));
        if (linearise) {
            sp_band_add(e->band, k, pb->plan.xi0_free ? n + k : k, 1.0);
            sp_band_add(e->band, n + nw * e->K + k, nw * e->K + (pb->plan.has_xiT ? k : n + k), 1.0);
        }
    }
    e->sweeps++;
    *scaled = worst;
    *running = run;
    *(linearise ? &e->times.derivative_sweeps : &e->times.plain_sweeps) += sp_clock_seconds() - t0;
    return isfinite(run) && isfinite(worst) ? SP_OK : SP_ERR_NONFINITE;
}


/* The response of the linearised conditions (the kept factors and blocks) to the residuals
 * of the last sweep (with `residual`; Newton's correction) and to moves δθ of the knots
 * ((K+1)·d coordinates, δθ_0 = 0; NULL: none): (δw, δμ), and with `dkick` the change of the
 * kicks along the free directions (K·d values, see outer_gradient()). */
sp_status sp_exact_respond(exact *e, const double *w, int residual, const double *dpsi, double *dw, double *dmu,
                         double *dkick)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    const sp_problem *pb = e->pb;
    const int n = e->n, nw = 2 * n, d = e->spin, cols = 3 * n + d;
    for (int k = 0; k < n; ++k) {
        dw[k] = residual ? -(pb->plan.xi0_free ? w[n + k] : w[k] - pb->xi0[k]) : 0.0;
        dw[n + nw * e->K + k] =
            residual ? -(pb->plan.has_xiT ? w[nw * e->K + k] - pb->plan.xiT[k] : w[nw * e->K + n + k]) : 0.0;
    }
    /* per segment: δμ_i = −Ainv (r_g + Aw δw_i + Ag δθ_i + Ae δθ_{i+1}), which leaves
     * δw_{i+1} − Φ δw_i = r_w + Bθ δθ_i − B_μ Ainv (r_g + Ag δθ_i + Ae δθ_{i+1}) */
    double *v = e->move_rhs; /* n per segment: r_g + Ag δθ_i + Ae δθ_{i+1} */
    for (int i = 0; i < e->K; ++i) {
        const segment *sg = &e->seg[i];
        const double *r = e->r + (size_t)i * 3 * n, *m0 = dpsi ? dpsi + (size_t)d * i : NULL, *m1 = m0 ? m0 + d : NULL;
        double *vi = v + (size_t)n * i, y[MAXN];
        for (int k = 0; k < n; ++k) {
            vi[k] = residual ? r[k] : 0.0;
            for (int c = 0; m0 && c < d; ++c) vi[k] += sg->Ag[k * d + c] * m0[c] + sg->Ae[k * d + c] * m1[c];
        }
        sp_mat_vec(n, n, sg->Ainv, vi, y);
        for (int a = 0; a < nw; ++a) {
            double s = residual ? r[n + a] : 0.0;
            for (int c = 0; m0 && c < d; ++c) s += sg->Bpsi[a * d + c] * m0[c];
            for (int q = 0; q < n; ++q) s -= sg->Bmu[a * n + q] * y[q];
            dw[n + nw * i + a] = s;
        }
    }
    sp_status st = sp_band_solve(e->band, dw);
    for (int i = 0; st == SP_OK && i < e->K; ++i) {
        const segment *sg = &e->seg[i];
        double u[MAXN], y[MAXN];
        sp_mat_vec(n, nw, sg->Aw, dw + nw * i, u);
        for (int k = 0; k < n; ++k) u[k] += v[(size_t)n * i + k];
        sp_mat_vec(n, n, sg->Ainv, u, y);
        for (int k = 0; k < n; ++k) dmu[n * i + k] = -y[k];
    }
    /* δκ_ja = u_a·δμ_j − u_a·δμ_end(j−1) (no μ leaves the last knot) */
    for (int j = 1; st == SP_OK && dkick && j <= e->K; ++j) {
        const segment *sg = &e->seg[j - 1];
        for (int a = 0; a < d; ++a) {
            const double *row = sg->Kend + a * cols;
            double s = j < e->K ? sp_vec_dot(n, e->dir[a], dmu + n * j) : 0.0;
            s -= sp_vec_dot(nw, row, dw + nw * (j - 1)) + sp_vec_dot(n, row + nw, dmu + n * (j - 1));
            for (int c = 0; dpsi && c < d; ++c) s -= row[3 * n + c] * dpsi[(size_t)d * (j - 1) + c];
            dkick[(size_t)d * (j - 1) + a] = s;
        }
    }
    e->times.linear_algebra += sp_clock_seconds() - t0;
    return st;
}

/* Newton's correction (δw, δμ) from the kept factors and the residuals of the last sweep. */
static sp_status correction(exact *e, const double *w) { return sp_exact_respond(e, w, 1, NULL, e->dw, e->dmu, NULL); }

static double step_norm(const exact *e)
{
    double s = 0.0;
    const size_t nwk = (size_t)(2 * e->n * (e->K + 1)), nm = (size_t)(e->n * e->K);
    for (size_t k = 0; k < nwk; ++k) s = fmax(s, fabs(e->dw[k]) / fmax(1.0, fabs(e->w[k])));
    for (size_t k = 0; k < nm; ++k) s = fmax(s, fabs(e->dmu[k]) / fmax(1.0, fabs(e->mu[k])));
    return s;
}

/* Simplified Newton on `steps` from the current (w, μ): the factors are refreshed when a
 * step contracts the next by less than 4 (or at the start, when there are none). Returns
 * with *converged set when the scaled residual is below tol. */
sp_status sp_exact_newton(exact *e, const int *steps, int have_factors, double tol, const sp_progress *progress,
                        int *converged, double *residual, double *running, sp_hohp_state *nodes)
{
    /* the file's limit on Newton iterations, else 40 (simplified Newton takes a few more
     * than full Newton) */
    const int max_iterations = e->pb->plan.max_iterations > 0 ? e->pb->plan.max_iterations : 40;
    *converged = 0;
    double res, last = HUGE_VAL;
    sp_status st = sp_exact_sweep(e, steps, e->w, e->mu, !have_factors, &res, running, nodes);
    if (st == SP_OK && !have_factors) st = sp_exact_factor(e);
    for (int it = 0; st == SP_OK && it < max_iterations; ++it) {
        if (res <= tol) {
            *converged = 1;
            break;
        }
        if (sp_progress_stopped(progress)) return SP_ERR_INTERRUPTED;
        st = correction(e, e->w);
        if (st != SP_OK) break;
        const double size = step_norm(e);
        if (!(size < 0.05 * last) && it > 0) {
            /* too slow: the factors at this point instead */
            st = sp_exact_sweep(e, steps, e->w, e->mu, 1, &res, running, NULL);
            if (st == SP_OK) st = sp_exact_factor(e);
            if (st == SP_OK) st = correction(e, e->w);
            if (st != SP_OK) break;
            last = HUGE_VAL;
        } else {
            last = size;
        }
        e->iterations++;
        const size_t nwk = (size_t)(2 * e->n * (e->K + 1)), nm = (size_t)(e->n * e->K);
        for (size_t k = 0; k < nwk; ++k) e->w[k] += e->dw[k];
        for (size_t k = 0; k < nm; ++k) e->mu[k] += e->dmu[k];
        st = sp_exact_sweep(e, steps, e->w, e->mu, 0, &res, running, nodes);
        if (st == SP_OK && !(res < 1e3)) st = SP_ERR_NO_CONVERGENCE; /* diverging: leave it to the general solver */
    }
    *residual = res;
    if (st == SP_ERR_NO_CONVERGENCE || st == SP_ERR_NONFINITE || st == SP_ERR_SINGULAR) st = SP_OK, *converged = 0;
    return st;
}
