/* The symplecticity defect on a constraint manifold (sp_symplecticity.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"

/* Orthonormal basis U (rows, N numbers each) of ker DC by Gram–Schmidt, twice, of the
 * rows of DC and then the unit vectors; `ortho` holds the accepted vectors. Returns the
 * number of kernel vectors. */
static int kernel_basis(int N, int k, const double *DC, double *ortho, double *U, double *w)
{
    int count = 0, found = 0;
    for (int v = 0; v < k + N; ++v) {
        for (int j = 0; j < N; ++j) w[j] = v < k ? DC[(size_t)v * N + j] : (double)(v - k == j);
        double n0 = sp_vec_norm(N, w);
        if (!(n0 > 0.0)) continue;
        for (int pass = 0; pass < 2; ++pass)
            for (int u = 0; u < count; ++u) sp_vec_axpy(N, -sp_vec_dot(N, w, ortho + (size_t)u * N), ortho + (size_t)u * N, w);
        double n = sp_vec_norm(N, w);
        if (!(n > 1e-8 * n0)) continue;
        for (int j = 0; j < N; ++j) ortho[(size_t)count * N + j] = w[j] / n;
        if (v >= k) sp_vec_copy(N, ortho + (size_t)count * N, U + (size_t)found++ * N);
        ++count;
    }
    return found;
}

sp_status sp_symplecticity_defect(sp_step_map map, void *ctx, int n, const double *z0, int k, const double *DC,
                                  double eps, double *defect, int *dim)
{
    if (!map || n < 1 || k < 0 || (k > 0 && !DC) || !z0 || !defect) return SP_ERR_INVALID;
    if (!(eps > 0.0)) eps = 1e-6;
    const int N = 2 * n;
    /* ortho: (k + N) x N, U and DU: N x N, zp, zm, w: N each */
    double *work = malloc(((size_t)(k + 3 * N) * N + 3 * (size_t)N) * sizeof *work);
    if (!work) return SP_ERR_NOMEM;
    double *ortho = work, *U = ortho + (size_t)(k + N) * N, *DU = U + (size_t)N * N, *zp = DU + (size_t)N * N,
           *zm = zp + N, *w = zm + N;
    int d = kernel_basis(N, k, DC, ortho, U, w);
    if (dim) *dim = d;
    sp_status st = SP_OK;
    for (int c = 0; c < d && st == SP_OK; ++c) {
        const double *u = U + (size_t)c * N;
        for (int j = 0; j < N; ++j) zp[j] = z0[j] + eps * u[j], zm[j] = z0[j] - eps * u[j];
        st = map(ctx, zp);
        if (st == SP_OK) st = map(ctx, zm);
        for (int j = 0; st == SP_OK && j < N; ++j) DU[(size_t)c * N + j] = (zp[j] - zm[j]) / (2.0 * eps);
    }
    if (st == SP_OK) {
        double worst = 0.0;
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) {
                const double *xa = DU + (size_t)a * N, *xb = DU + (size_t)b * N, *ua = U + (size_t)a * N,
                             *ub = U + (size_t)b * N;
                double w1 = 0.0, w0 = 0.0; /* xᵀJy = x_q·y_p − x_p·y_q */
                for (int i = 0; i < n; ++i) {
                    w1 += xa[i] * xb[n + i] - xa[n + i] * xb[i];
                    w0 += ua[i] * ub[n + i] - ua[n + i] * ub[i];
                }
                worst = fmax(worst, fabs(w1 - w0));
            }
        *defect = worst;
        if (!isfinite(worst)) st = SP_ERR_NONFINITE;
    }
    free(work);
    return st;
}

sp_status sp_holonomic_manifold_jacobian(const sp_holonomic_model *model, const double *q, const double *p,
                                         double *DC)
{
    if (!model || !model->constraints || model->n < 1 || model->n > SP_HOL_MAX_N || model->m < 1 ||
        model->m > SP_HOL_MAX_M)
        return SP_ERR_INVALID;
    const int n = model->n, m = model->m, N = 2 * n;
    double g[SP_HOL_MAX_M], G[SP_HOL_MAX_M * SP_HOL_MAX_N];
    double *d2g = malloc((size_t)m * n * n * sizeof *d2g);
    if (!d2g) return SP_ERR_NOMEM;
    memset(d2g, 0, (size_t)m * n * n * sizeof *d2g);
    int rc = model->constraints(q, g, G, d2g, model->params);
    if (rc != 0) {
        free(d2g);
        return SP_ERR_CALLBACK;
    }
    /* the hidden constraint G(q) v with v = M⁻¹p: ∂/∂q_l = Σ_i ∂G_ri/∂q_l v_i, ∂/∂p = (M⁻¹G_r)ᵀ */
    double v[SP_HOL_MAX_N], w[SP_HOL_MAX_M * SP_HOL_MAX_N];
    sp_status st = sp_holonomic_apply_minv(model, p, v);
    for (int r = 0; r < m && st == SP_OK; ++r) st = sp_holonomic_apply_minv(model, G + r * n, w + r * n);
    if (st != SP_OK) {
        free(d2g);
        return st;
    }
    memset(DC, 0, (size_t)2 * m * N * sizeof *DC);
    for (int r = 0; r < m; ++r)
        for (int l = 0; l < n; ++l) {
            DC[(size_t)r * N + l] = G[r * n + l];
            double s = 0.0;
            for (int i = 0; i < n; ++i) s += d2g[((size_t)r * n + i) * n + l] * v[i];
            DC[(size_t)(m + r) * N + l] = s;
            DC[(size_t)(m + r) * N + n + l] = w[r * n + l];
        }
    free(d2g);
    return sp_vec_isfinite(2 * m * N, DC) ? SP_OK : SP_ERR_NONFINITE;
}
