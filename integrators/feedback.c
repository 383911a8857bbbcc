/* The Dirac-extended field and the feedback potential of sp_feedback.h. One
 * evaluation calls the model once (g, G, g'' and ∇V) and builds, with
 * v = M⁻¹p, the blocks of C = {φ_i, φ_j} for φ = (g, ψ), ψ = G v:
 *
 *     {g_a, g_b} = 0,   {g_a, ψ_b} = W_ab = (G M⁻¹ Gᵀ)_ab,   {ψ_a, ψ_b} = S_ab,
 *     C = [[0, W], [−W, S]],   C⁻¹ = [[W⁻¹SW⁻¹, −W⁻¹], [W⁻¹, 0]],
 *
 * and {g, H} = ψ, {ψ_a, H} = c_a. Then μ = C⁻¹{φ, H} and X = X_H − Σ μ_i X_{φ_i} with
 * X_{g_a} = (0, −G_aᵀ), X_{ψ_a} = (M⁻¹G_aᵀ, −g''_a v). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_feedback.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

#define NMAX SP_HOL_MAX_N
#define MMAX SP_HOL_MAX_M

struct sp_feedback {
    const sp_holonomic_model *model;
    sp_first_integral integral;
    int has_integral;
    sp_feedback_gains gains;
    double s1, s2; /* resolved scales */
    double H0, I0;
    double minv[NMAX];
    /* workspace of one evaluation */
    double g[MMAX], G[MMAX * NMAX], d2g[MMAX * NMAX * NMAX], gradV[NMAX], V;
    double v[NMAX], gv[MMAX * NMAX], psi[MMAX], W[MMAX * MMAX], Wf[MMAX * MMAX], S[MMAX * MMAX], c[MMAX];
    double mu_psi[MMAX], mu_g[MMAX], gradI[2 * NMAX];
    int piv[MMAX];
};

static int gains_ok(const sp_feedback_gains *k)
{
    return k && k->k1 >= 0.0 && k->k2 >= 0.0 && k->k3 >= 0.0 && k->k4 >= 0.0 && isfinite(k->k1) && isfinite(k->k2) &&
           isfinite(k->k3) && isfinite(k->k4) && isfinite(k->g_scale) && isfinite(k->hidden_scale);
}

sp_status sp_feedback_set_gains(sp_feedback *fb, const sp_feedback_gains *gains)
{
    if (!gains_ok(gains)) return SP_ERR_INVALID;
    fb->gains = *gains;
    fb->s1 = gains->g_scale != 0.0 ? gains->g_scale : 1.0;
    fb->s2 = gains->hidden_scale != 0.0 ? gains->hidden_scale : 1.0;
    return SP_OK;
}

sp_feedback_gains sp_feedback_get_gains(const sp_feedback *fb) { return fb->gains; }

sp_feedback *sp_feedback_alloc(const sp_holonomic_model *model, const sp_feedback_gains *gains,
                               const sp_first_integral *integral)
{
    /* (a diagonal mass only: the feedback field is written with M⁻¹ as a vector) */
    if (!model || model->n < 1 || model->n > NMAX || model->m < 1 || model->m > MMAX || !model->mass ||
        model->mass_matrix || !model->constraints || !gains_ok(gains) || (integral && !integral->value))
        return NULL;
    for (int i = 0; i < model->n; ++i)
        if (!(model->mass[i] > 0.0) || !isfinite(model->mass[i])) return NULL;
    sp_feedback *fb = calloc(1, sizeof *fb);
    if (!fb) return NULL;
    fb->model = model;
    if (integral) {
        fb->integral = *integral;
        fb->has_integral = 1;
    }
    for (int i = 0; i < model->n; ++i) fb->minv[i] = 1.0 / model->mass[i];
    sp_feedback_set_gains(fb, gains);
    return fb;
}

void sp_feedback_free(sp_feedback *fb) { free(fb); }
int sp_feedback_dim(const sp_feedback *fb) { return 2 * fb->model->n; }

void sp_feedback_set_reference_values(sp_feedback *fb, double H0, double I0)
{
    fb->H0 = H0;
    fb->I0 = I0;
}

/* The model at q (g, G, g'', V, ∇V) and the products with v = M⁻¹p: g''v, ψ, W, S, c. */
static sp_status model_at(sp_feedback *fb, const double *z)
{
    const sp_holonomic_model *md = fb->model;
    const int n = md->n, m = md->m;
    const double *q = z, *p = z + n;
    memset(fb->d2g, 0, (size_t)(m * n * n) * sizeof *fb->d2g);
    if (md->constraints(q, fb->g, fb->G, fb->d2g, md->params) != 0) return SP_ERR_CALLBACK;
    fb->V = 0.0;
    sp_vec_zero(n, fb->gradV);
    if (md->potential && md->potential(q, &fb->V, fb->gradV, NULL, md->params) != 0) return SP_ERR_CALLBACK;
    for (int k = 0; k < n; ++k) fb->v[k] = fb->minv[k] * p[k];
    for (int a = 0; a < m; ++a) {
        sp_mat_vec(n, n, fb->d2g + (size_t)a * n * n, fb->v, fb->gv + a * n);
        fb->psi[a] = sp_vec_dot(n, fb->G + a * n, fb->v);
        double ca = sp_vec_dot(n, fb->gv + a * n, fb->v);
        for (int k = 0; k < n; ++k) ca -= fb->G[a * n + k] * fb->minv[k] * fb->gradV[k];
        fb->c[a] = ca;
    }
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) {
            double w = 0.0, s = 0.0;
            for (int k = 0; k < n; ++k) {
                w += fb->G[a * n + k] * fb->minv[k] * fb->G[b * n + k];
                s += fb->gv[a * n + k] * fb->minv[k] * fb->G[b * n + k] -
                     fb->gv[b * n + k] * fb->minv[k] * fb->G[a * n + k];
            }
            fb->W[a * m + b] = w;
            fb->S[a * m + b] = s;
        }
    return SP_OK;
}

/* X from the quantities of model_at. */
static sp_status field(sp_feedback *fb, const double *z, double *X)
{
    const int n = fb->model->n, m = fb->model->m;
    (void)z;
    /* μ_ψ = W⁻¹ψ */
    memcpy(fb->Wf, fb->W, (size_t)(m * m) * sizeof *fb->W);
    sp_vec_copy(m, fb->psi, fb->mu_psi);
    sp_status st = sp_linsolve(m, fb->Wf, fb->mu_psi, 1, fb->piv, 0);
    if (st != SP_OK) return st;
    /* μ_g = W⁻¹(S μ_ψ − c) */
    for (int a = 0; a < m; ++a) fb->mu_g[a] = sp_vec_dot(m, fb->S + a * m, fb->mu_psi) - fb->c[a];
    memcpy(fb->Wf, fb->W, (size_t)(m * m) * sizeof *fb->W);
    st = sp_linsolve(m, fb->Wf, fb->mu_g, 1, fb->piv, 0);
    if (st != SP_OK) return st;
    double *qd = X, *pd = X + n;
    for (int k = 0; k < n; ++k) {
        double gt_mupsi = 0.0, gt_mug = 0.0, curv = 0.0;
        for (int a = 0; a < m; ++a) {
            gt_mupsi += fb->G[a * n + k] * fb->mu_psi[a];
            gt_mug += fb->G[a * n + k] * fb->mu_g[a];
            curv += fb->mu_psi[a] * fb->gv[a * n + k];
        }
        qd[k] = fb->v[k] - fb->minv[k] * gt_mupsi;
        pd[k] = -fb->gradV[k] + gt_mug + curv;
    }
    return SP_OK;
}

/* V_fb and, when grad is not NULL, ∇V_fb from the quantities of model_at. */
static sp_status feedback(sp_feedback *fb, const double *z, double *Vfb, double *grad)
{
    const int n = fb->model->n, m = fb->model->m;
    const double *q = z, *p = z + n;
    const sp_feedback_gains *k = &fb->gains;
    const double s1 = fb->s1, s2 = fb->s2;
    double H = 0.5 * sp_vec_dot(n, p, fb->v) + fb->V, dH = H - fb->H0, I = 0.0, dI = 0.0;
    if (fb->has_integral && k->k4 != 0.0) {
        if (fb->integral.value(q, p, &I, grad ? fb->gradI : NULL, fb->integral.params) != 0) return SP_ERR_CALLBACK;
        dI = I - fb->I0;
    }
    double V = 0.5 * k->k3 * dH * dH + 0.5 * k->k4 * dI * dI;
    for (int a = 0; a < m; ++a) {
        double ga = s1 * fb->g[a], pa = s2 * fb->psi[a];
        V += 0.5 * k->k1 * ga * ga + 0.5 * k->k2 * pa * pa;
    }
    if (Vfb) *Vfb = V;
    if (!grad) return SP_OK;
    double *gq = grad, *gp = grad + n;
    for (int i = 0; i < n; ++i) {
        gq[i] = k->k3 * dH * fb->gradV[i];
        gp[i] = k->k3 * dH * fb->v[i];
    }
    for (int a = 0; a < m; ++a) {
        const double wg = k->k1 * s1 * s1 * fb->g[a], wp = k->k2 * s2 * s2 * fb->psi[a];
        for (int i = 0; i < n; ++i) {
            gq[i] += wg * fb->G[a * n + i] + wp * fb->gv[a * n + i];
            gp[i] += wp * fb->minv[i] * fb->G[a * n + i];
        }
    }
    if (dI != 0.0)
        for (int i = 0; i < 2 * n; ++i) grad[i] += k->k4 * dI * fb->gradI[i];
    return SP_OK;
}

sp_status sp_feedback_field(sp_feedback *fb, const double *z, double *X)
{
    sp_status st = model_at(fb, z);
    return st != SP_OK ? st : field(fb, z, X);
}

sp_status sp_feedback_potential(sp_feedback *fb, const double *z, double *V, double *grad)
{
    sp_status st = model_at(fb, z);
    return st != SP_OK ? st : feedback(fb, z, V, grad);
}

sp_status sp_feedback_eval(sp_feedback *fb, const double *z, double *dz)
{
    const int n2 = 2 * fb->model->n;
    double grad[2 * NMAX];
    sp_status st = model_at(fb, z);
    if (st == SP_OK) st = field(fb, z, dz);
    if (st == SP_OK) st = feedback(fb, z, NULL, grad);
    if (st != SP_OK) return st;
    for (int i = 0; i < n2; ++i) dz[i] -= grad[i];
    return SP_OK;
}

static int rhs_code(sp_status st) { return st == SP_OK ? 0 : st == SP_ERR_SINGULAR ? 1 : -1; }

int sp_feedback_rhs(const double *z, double *dz, void *params) { return rhs_code(sp_feedback_eval(params, z, dz)); }

int sp_feedback_rhs_plain(const double *z, double *dz, void *params)
{
    return rhs_code(sp_feedback_field(params, z, dz));
}

sp_ode_system sp_feedback_system(sp_feedback *fb, int with_feedback)
{
    sp_ode_system sys = {with_feedback ? sp_feedback_rhs : sp_feedback_rhs_plain, 2 * fb->model->n, fb};
    return sys;
}

sp_status sp_feedback_set_reference(sp_feedback *fb, const double *z0)
{
    const int n = fb->model->n;
    sp_status st = model_at(fb, z0);
    if (st != SP_OK) return st;
    fb->H0 = 0.5 * sp_vec_dot(n, z0 + n, fb->v) + fb->V;
    fb->I0 = 0.0;
    if (fb->has_integral && fb->integral.value(z0, z0 + n, &fb->I0, NULL, fb->integral.params) != 0)
        return SP_ERR_CALLBACK;
    return SP_OK;
}

sp_status sp_feedback_deviations(sp_feedback *fb, const double *z, double dev[4])
{
    const int n = fb->model->n, m = fb->model->m;
    sp_status st = model_at(fb, z);
    if (st != SP_OK) return st;
    dev[0] = dev[1] = dev[3] = 0.0;
    for (int a = 0; a < m; ++a) {
        dev[0] = fmax(dev[0], fabs(fb->s1 * fb->g[a]));
        dev[1] = fmax(dev[1], fabs(fb->s2 * fb->psi[a]));
    }
    dev[2] = 0.5 * sp_vec_dot(n, z + n, fb->v) + fb->V - fb->H0;
    if (fb->has_integral) {
        double I;
        if (fb->integral.value(z, z + n, &I, NULL, fb->integral.params) != 0) return SP_ERR_CALLBACK;
        dev[3] = I - fb->I0;
    }
    return SP_OK;
}
