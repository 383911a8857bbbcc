/* The index-1 Hamiltonian of sp_vakonomic.h and its derivatives. */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_vakonomic.h"
#include "lie/sp_linalg.h"

sp_vakonomic_point *sp_vakonomic_point_alloc(const sp_vakonomic_model *model)
{
    if (!model || model->n < 1 || model->n > SP_VAK_MAX_N || model->m < 0 || model->m > SP_VAK_MAX_M ||
        !model->mass || (model->m > 0 && !model->constraints))
        return NULL;
    const size_t n = (size_t)model->n, m = (size_t)model->m;
    for (size_t i = 0; i < n; ++i)
        if (!(model->mass[i] > 0.0) || !isfinite(model->mass[i])) return NULL;
    const size_t sizes[] = {m * n, m * n * n, m * n * n * n, n, n, m, n * n, n * n, n * n, n * m, m * n, m * m, n, n * n};
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) total += sizes[i];
    sp_vakonomic_point *pt = calloc(1, sizeof *pt);
    double *buf = calloc(total ? total : 1, sizeof *buf);
    if (!pt || !buf) {
        free(pt);
        free(buf);
        return NULL;
    }
    pt->n = model->n, pt->m = model->m;
    double **slots[] = {&pt->G,   &pt->dG,  &pt->d2G, &pt->v,  &pt->Hq, &pt->Hl,   &pt->Vq,
                        &pt->Hqq, &pt->Hqp, &pt->Hql, &pt->Cq, &pt->Cl, &pt->minv, &pt->scratch};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; ++i) {
        *slots[i] = buf;
        buf += sizes[i];
    }
    for (size_t i = 0; i < n; ++i) pt->minv[i] = 1.0 / model->mass[i];
    return pt;
}

void sp_vakonomic_point_free(sp_vakonomic_point *pt)
{
    if (!pt) return;
    free(pt->G); /* the first slot owns the buffer */
    free(pt);
}

/* Model data at q: G, dG (and d2G), V, ∇V (and ∇²V into hess when not NULL). */
static sp_status model_data(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q, double *grad,
                            double *hess, int second)
{
    const int n = pt->n, m = pt->m;
    if (m > 0 && model->constraints(q, pt->G, pt->dG, second ? pt->d2G : NULL, model->params) != 0)
        return SP_ERR_CALLBACK;
    pt->V = 0.0;
    sp_vec_zero(n, grad);
    if (hess) sp_vec_zero(n * n, hess);
    if (model->potential && model->potential(q, &pt->V, grad, hess, model->params) != 0) return SP_ERR_CALLBACK;
    if (!sp_vec_isfinite(m * n, pt->G) || !sp_vec_isfinite(m * n * n, pt->dG) || !isfinite(pt->V) ||
        !sp_vec_isfinite(n, grad))
        return SP_ERR_NONFINITE;
    return SP_OK;
}

/* v, H_q and H_λ at (p, λ) from the model data at q already in pt, ∇V already in pt->Hq;
 * W = Σ_j λ_j ∂G_j/∂q is left in pt->scratch for the derivatives. */
static void fields(sp_vakonomic_point *pt, const double *p, const double *lam)
{
    const int n = pt->n, m = pt->m;
    const double *G = pt->G, *dG = pt->dG, *minv = pt->minv;
    double *W = pt->scratch; /* W[k][i] = Σ_j λ_j ∂G_ji/∂q_k */
    for (int i = 0; i < n; ++i) {
        double w = p[i];
        for (int j = 0; j < m; ++j) w += G[j * n + i] * lam[j];
        pt->v[i] = minv[i] * w;
    }
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            double w = 0.0;
            for (int j = 0; j < m; ++j) w += lam[j] * dG[(j * n + i) * n + k];
            W[k * n + i] = w;
        }
    for (int k = 0; k < n; ++k) pt->Hq[k] += sp_vec_dot(n, W + k * n, pt->v); /* ∇V already there */
    for (int j = 0; j < m; ++j) pt->Hl[j] = sp_vec_dot(n, G + j * n, pt->v);
}

/* λ(q, p) from the G at q already in pt: G M⁻¹ Gᵀ λ = −G M⁻¹ p. */
static sp_status multiplier_of(const sp_vakonomic_point *pt, const double *p, double *lam)
{
    const int n = pt->n, m = pt->m;
    double A[SP_VAK_MAX_M * SP_VAK_MAX_M];
    int piv[SP_VAK_MAX_M];
    for (int j = 0; j < m; ++j) {
        double r = 0.0;
        for (int i = 0; i < n; ++i) r += pt->G[j * n + i] * pt->minv[i] * p[i];
        lam[j] = -r;
        for (int k = 0; k < m; ++k) {
            double a = 0.0;
            for (int i = 0; i < n; ++i) a += pt->G[j * n + i] * pt->minv[i] * pt->G[k * n + i];
            A[j * m + k] = a;
        }
    }
    return m ? sp_linsolve(m, A, lam, 1, piv, 0) : SP_OK;
}

sp_status sp_vakonomic_eval(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q, const double *p,
                            const double *lam, int derivatives)
{
    const int n = pt->n, m = pt->m;
    const double *G = pt->G, *dG = pt->dG, *minv = pt->minv;
    double *W = pt->scratch;
    sp_status st = model_data(model, pt, q, pt->Hq, derivatives ? pt->Hqq : NULL, derivatives);
    if (st != SP_OK) return st;
    fields(pt, p, lam);
    if (!derivatives) return SP_OK;

    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) pt->Vq[i * n + k] = minv[i] * W[k * n + i];
    for (int k = 0; k < n; ++k) {
        for (int l = 0; l < n; ++l) {
            double a = 0.0; /* Hqq already holds ∇²V */
            for (int j = 0; j < m; ++j)
                for (int i = 0; i < n; ++i) a += lam[j] * pt->d2G[((j * n + i) * n + k) * n + l] * pt->v[i];
            for (int i = 0; i < n; ++i) a += W[k * n + i] * pt->Vq[i * n + l];
            pt->Hqq[k * n + l] += a;
            pt->Hqp[k * n + l] = W[k * n + l] * minv[l];
        }
        for (int j = 0; j < m; ++j) {
            double a = 0.0;
            for (int i = 0; i < n; ++i) a += dG[(j * n + i) * n + k] * pt->v[i] + W[k * n + i] * minv[i] * G[j * n + i];
            pt->Hql[k * m + j] = a;
        }
    }
    for (int j = 0; j < m; ++j) {
        for (int l = 0; l < n; ++l) {
            double a = 0.0;
            for (int i = 0; i < n; ++i) a += dG[(j * n + i) * n + l] * pt->v[i] + G[j * n + i] * pt->Vq[i * n + l];
            pt->Cq[j * n + l] = a;
        }
        for (int k = 0; k < m; ++k) {
            double a = 0.0;
            for (int i = 0; i < n; ++i) a += G[j * n + i] * minv[i] * G[k * n + i];
            pt->Cl[j * m + k] = a;
        }
    }
    if (!sp_vec_isfinite(n * n, pt->Hqq) || !sp_vec_isfinite(n * m, pt->Hql) || !sp_vec_isfinite(m * n, pt->Cq))
        return SP_ERR_NONFINITE;
    return SP_OK;
}

sp_status sp_vakonomic_multiplier(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                  const double *p, double *lam)
{
    if (pt->m == 0) return SP_OK;
    double grad[SP_VAK_MAX_N];
    sp_status st = model_data(model, pt, q, grad, NULL, 0);
    return st == SP_OK ? multiplier_of(pt, p, lam) : st;
}

sp_status sp_vakonomic_eval_reduced(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                    const double *p, double *lam)
{
    sp_status st = model_data(model, pt, q, pt->Hq, NULL, 0);
    if (st == SP_OK) st = multiplier_of(pt, p, lam);
    if (st == SP_OK) fields(pt, p, lam);
    return st;
}

sp_status sp_vakonomic_hamiltonian(const sp_vakonomic_model *model, sp_vakonomic_point *pt, const double *q,
                                   const double *p, double *H, double *lam, double *v)
{
    double l[SP_VAK_MAX_M] = {0};
    sp_status st = sp_vakonomic_multiplier(model, pt, q, p, l);
    if (st == SP_OK) st = sp_vakonomic_eval(model, pt, q, p, l, 0);
    if (st != SP_OK) return st;
    double T = 0.0;
    for (int i = 0; i < pt->n; ++i) T += pt->v[i] * pt->v[i] / pt->minv[i];
    if (H) *H = 0.5 * T + pt->V;
    if (lam) sp_vec_copy(pt->m, l, lam);
    if (v) sp_vec_copy(pt->n, pt->v, v);
    return SP_OK;
}
