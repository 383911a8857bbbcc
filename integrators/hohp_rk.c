/* RKMK stepper for the continuous HOHP equations (see sp_hohp_rk.h). Written against the
 * group interface only: the chart equation needs ad, the step exp, Ad and dexp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_hohp_rk.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

#define MAX_STAGES SP_TABLEAU_EXPLICIT_MAX_STAGES
#define MAX_Z (4 * SP_LIE_MAX_DIM)
/* Terms of the truncated dexp⁻¹ series kept for order p: j = 0 … p − 2 (at most 8). */
#define MAX_TERMS 9

const sp_hohp_scheme sp_hohp_scheme_rkmk8 = {"hohp_rkmk8", 0.5, 8, "dop853"};

struct sp_hohp_rk {
    const sp_group *G;
    sp_tableau_explicit tab;
    int n, nz, terms;
    double coef[MAX_TERMS]; /* B_j / j! */
    /* the algebra's structure constants, read from the group once: ad_x = Σ_k x_k C_k and
     * ad*_x = Σ_k x_k S_k (n x n matrices, row-major), for the stage Jacobians */
    double C[SP_LIE_MAX_DIM][SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], S[SP_LIE_MAX_DIM][SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    /* one step's stages: state Y_i, slope K_i, the Horner values of Θ̇ (for tangents) */
    double Y[MAX_STAGES][MAX_Z], K[MAX_STAGES][MAX_Z];
    double A[MAX_STAGES][SP_LIE_MAX_DIM * SP_LIE_MAX_DIM]; /* ad_{−Θ} of each stage */
    double horner[MAX_STAGES][MAX_TERMS][SP_LIE_MAX_DIM];
    /* tangents: the columns' start, stage values and slopes, and end, count·4·dim each */
    double dy0[SP_HOHP_RK_MAX_TANGENTS * MAX_Z], dY[SP_HOHP_RK_MAX_TANGENTS * MAX_Z];
    double dy1[SP_HOHP_RK_MAX_TANGENTS * MAX_Z], dK[MAX_STAGES][SP_HOHP_RK_MAX_TANGENTS * MAX_Z];
};

/* The matrix of the linear map v ↦ op(x, v) (n x n, row-major). */
static void matrix_of(const sp_group *G, void (*op)(const sp_group *, const double *, const double *, double *),
                      const double *x, double *M)
{
    const int n = G->dim;
    for (int c = 0; c < n; ++c) {
        double e[SP_LIE_MAX_DIM] = {0}, col[SP_LIE_MAX_DIM];
        e[c] = 1.0;
        op(G, x, e, col);
        for (int r = 0; r < n; ++r) M[r * n + c] = col[r];
    }
}

sp_hohp_rk *sp_hohp_rk_alloc(const sp_group *G, const char *table)
{
    if (!G) return NULL;
    sp_hohp_rk *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (sp_tableau_explicit_get(table, &s->tab) != SP_OK || s->tab.order + 1 > MAX_TERMS + 2) {
        free(s);
        return NULL;
    }
    s->G = G;
    s->n = G->dim;
    s->nz = 4 * G->dim;
    /* B_j / j! for j = 0 … 8 (B_1 = −½; odd B_j vanish beyond it) */
    static const double bernoulli_over_factorial[MAX_TERMS] = {
        1.0, -0.5, 1.0 / 12.0, 0.0, -1.0 / 720.0, 0.0, 1.0 / 30240.0, 0.0, -1.0 / 1209600.0};
    s->terms = s->tab.order - 1 > 1 ? s->tab.order - 1 : 1;
    memcpy(s->coef, bernoulli_over_factorial, sizeof s->coef);
    for (int k = 0; k < s->n; ++k) {
        double e[SP_LIE_MAX_DIM] = {0};
        e[k] = 1.0;
        matrix_of(G, G->ad, e, s->C[k]);
        matrix_of(G, G->ad_star, e, s->S[k]);
    }
    return s;
}

void sp_hohp_rk_free(sp_hohp_rk *s) { free(s); }

int sp_hohp_rk_order(const sp_hohp_rk *s) { return s->tab.order; }

/* Layout of a stage vector y: [Θ | ξ | μ | π], n each (the tangent layout of sp_hohp.h).
 *
 * The kernels below are written once for any algebra dimension n and instantiated with a
 * constant n for so(3) and se(3) (sp_hohp_rk_step dispatches), so that their small loops
 * unroll: a step is a few hundred multiply-adds and any call or loop overhead shows. */

/* M = Σ_k x_k B_k for the n matrices B (n x n): ad_x or ad*_x from the structure constants. */
static SP_ALWAYS_INLINE void combine(int n, const double (*B)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], const double *x,
                                     double *restrict M)
{
    const int nn = n * n;
    for (int r = 0; r < nn; ++r) M[r] = x[0] * B[0][r];
    for (int k = 1; k < n; ++k)
        for (int r = 0; r < nn; ++r) M[r] += x[k] * B[k][r];
}

/* y = M x (n x n). */
static SP_ALWAYS_INLINE void mat_vec(int n, const double *restrict M, const double *restrict x, double *restrict y)
{
    for (int r = 0; r < n; ++r) {
        double t = 0.0;
        for (int c = 0; c < n; ++c) t += M[r * n + c] * x[c];
        y[r] = t;
    }
}

/* C = A B (n x n). */
static SP_ALWAYS_INLINE void mat_mul(int n, const double *restrict A, const double *restrict B, double *restrict C)
{
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            double t = 0.0;
            for (int k = 0; k < n; ++k) t += A[r * n + k] * B[k * n + c];
            C[r * n + c] = t;
        }
}

/* K = f(Y), keeping ad_a (a = −Θ) and the Horner values of Θ̇ = Σ c_j ad_a^j ξ:
 * v_q = c_q ξ, v_j = c_j ξ + ad_a v_{j+1}, Θ̇ = v_0. */
static SP_ALWAYS_INLINE void slope(const sp_hohp_rk *s, int n, const double *restrict y, double *restrict k,
                                   double *restrict A, double (*restrict horner)[SP_LIE_MAX_DIM], int tangents)
{
    const sp_group *G = s->G;
    const int q = s->terms - 1;
    const double *theta = y, *xi = y + n, *mu = y + 2 * n, *pi = y + 3 * n;
    double a[SP_LIE_MAX_DIM], M[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    for (int r = 0; r < n; ++r) a[r] = -theta[r];
    if (G->ad_series) G->ad_series(G, s->terms, s->coef, a, xi, k); /* Θ̇ in closed form */
    if (!G->ad_series || tangents) {
        /* the Horner values (the tangents differentiate the recurrence) */
        for (int r = 0; r < n; ++r) horner[q][r] = s->coef[q] * xi[r];
        combine(n, (const double(*)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM])s->C, a, A);
        for (int j = q - 1; j >= 0; --j) {
            double w[SP_LIE_MAX_DIM];
            mat_vec(n, A, horner[j + 1], w);
            for (int r = 0; r < n; ++r) horner[j][r] = s->coef[j] * xi[r] + w[r];
        }
        if (!G->ad_series)
            for (int r = 0; r < n; ++r) k[r] = horner[0][r];
    }
    combine(n, (const double(*)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM])s->S, xi, M); /* ad*_ξ */
    for (int r = 0; r < n; ++r) k[n + r] = pi[r], k[3 * n + r] = -mu[r];
    mat_vec(n, M, mu, k + 2 * n);
}

/* The blocks of f'(Y) that are not identities, once per stage (every tangent column
 * then costs a few small matrix-vector products):
 *   Θ̇ = v_0(a, ξ) with a = −Θ: Dξ = ∂v_0/∂ξ, Da = ∂v_0/∂a by the Horner recurrence
 *       ∂v_j/∂ξ = c_j I + ad_a ∂v_{j+1}/∂ξ,   ∂v_j/∂a = ad_a ∂v_{j+1}/∂a − ad_{v_{j+1}};
 *   μ̇ = ad*_ξ μ: Mxi = ∂/∂ξ, Mmu = ad*_ξ. */
typedef struct stage_jacobian {
    double Da[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], Dxi[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    double Mxi[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], Mmu[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
} stage_jacobian;

static SP_ALWAYS_INLINE void stage_jacobian_of(const sp_hohp_rk *s, int n, const double *y, const double *A,
                                               const double (*horner)[SP_LIE_MAX_DIM], stage_jacobian *J)
{
    const int q = s->terms - 1, nn = n * n;
    const double(*C)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM] = (const double(*)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM])s->C;
    const double(*S)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM] = (const double(*)[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM])s->S;
    double V[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], T1[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    double T2[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    for (int k = 0; k < nn; ++k) J->Da[k] = 0.0, J->Dxi[k] = 0.0;
    for (int r = 0; r < n; ++r) J->Dxi[r * n + r] = s->coef[q];
    for (int j = q - 1; j >= 0; --j) {
        combine(n, C, horner[j + 1], V);
        mat_mul(n, A, J->Dxi, T1);
        mat_mul(n, A, J->Da, T2);
        for (int k = 0; k < nn; ++k) J->Dxi[k] = T1[k], J->Da[k] = T2[k] - V[k];
        for (int r = 0; r < n; ++r) J->Dxi[r * n + r] += s->coef[j];
    }
    /* Mxi: column c is ad*_{e_c} μ = S_c μ; Mmu = ad*_ξ */
    const double *mu = y + 2 * n;
    for (int c = 0; c < n; ++c) {
        double col[SP_LIE_MAX_DIM];
        mat_vec(n, S[c], mu, col);
        for (int r = 0; r < n; ++r) J->Mxi[r * n + c] = col[r];
    }
    combine(n, S, y + n, J->Mmu);
}

/* dk = f'(Y) dy. */
static SP_ALWAYS_INLINE void slope_tangent(int n, const stage_jacobian *restrict J, const double *restrict dy,
                                           double *restrict dk)
{
    const double *dtheta = dy, *dxi = dy + n, *dmu = dy + 2 * n, *dpi = dy + 3 * n;
    for (int r = 0; r < n; ++r) {
        double t = 0.0, m = 0.0;
        for (int c = 0; c < n; ++c)
            t += J->Dxi[r * n + c] * dxi[c] - J->Da[r * n + c] * dtheta[c],
                m += J->Mxi[r * n + c] * dxi[c] + J->Mmu[r * n + c] * dmu[c];
        dk[r] = t, dk[n + r] = dpi[r], dk[2 * n + r] = m, dk[3 * n + r] = -dmu[r];
    }
}

/* y += a x over len numbers. */
static SP_ALWAYS_INLINE void axpy(int len, double a, const double *restrict x, double *restrict y)
{
    for (int r = 0; r < len; ++r) y[r] += a * x[r];
}

/* The tangent columns through the step whose stages are in s (see sp_hohp_rk_step). */
static SP_ALWAYS_INLINE void tangents(sp_hohp_rk *s, int n, double h, const double *R, const double *y1, int count,
                                      double *dz)
{
    const sp_group *G = s->G;
    const sp_tableau_explicit *t = &s->tab;
    const int nz = 4 * n, S = t->stages, len = count * nz;
    /* the same table on the variational equations; Θ starts at 0 unperturbed */
    double Rinv[SP_LIE_MAX_ELEM], D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], minus[SP_LIE_MAX_DIM];
    G->inverse(G, R, Rinv);
    for (int r = 0; r < n; ++r) minus[r] = -y1[r];
    G->dexp(G, minus, D);
    stage_jacobian J[MAX_STAGES];
    for (int i = 0; i < S; ++i)
        stage_jacobian_of(s, n, s->Y[i], s->A[i], (const double(*)[SP_LIE_MAX_DIM])s->horner[i], &J[i]);
    /* all columns at once, stage by stage: the combinations run over count·nz numbers */
    double *restrict dy0 = s->dy0, *restrict dY = s->dY, *restrict dy1 = s->dy1;
    for (int c = 0; c < count; ++c) {
        for (int r = 0; r < n; ++r) dy0[c * nz + r] = 0.0;
        for (int r = n; r < nz; ++r) dy0[c * nz + r] = dz[(size_t)c * nz + r];
    }
    memcpy(dy1, dy0, (size_t)len * sizeof *dy1);
    for (int i = 0; i < S; ++i) {
        memcpy(dY, dy0, (size_t)len * sizeof *dY);
        for (int j = 0; j < i; ++j)
            if (t->A[i][j] != 0.0) axpy(len, h * t->A[i][j], s->dK[j], dY);
        for (int c = 0; c < count; ++c) slope_tangent(n, &J[i], dY + c * nz, s->dK[i] + c * nz);
        if (t->b[i] != 0.0) axpy(len, h * t->b[i], s->dK[i], dy1);
    }
    for (int c = 0; c < count; ++c) {
        /* g0 exp(δθ0) exp(Θ + δΘ) = g1 exp(Ad_{R⁻¹} δθ0 + dexp_{−Θ} δΘ) to first order */
        double *z = dz + (size_t)c * nz, v[SP_LIE_MAX_DIM], w[SP_LIE_MAX_DIM];
        G->Ad(G, Rinv, z, v);
        mat_vec(n, D, dy1 + c * nz, w);
        for (int r = 0; r < n; ++r) z[r] = v[r] + w[r];
        memcpy(z + n, dy1 + c * nz + n, (size_t)(nz - n) * sizeof *z);
    }
}

static SP_ALWAYS_INLINE sp_status step_n(sp_hohp_rk *s, int n, double h, const sp_hohp_state *in,
                                         sp_hohp_state *out, double *running, int count, double *dz)
{
    const sp_group *G = s->G;
    const sp_tableau_explicit *t = &s->tab;
    const int nz = 4 * n, S = t->stages;
    double y0[MAX_Z], y1[MAX_Z];
    for (int r = 0; r < n; ++r) y0[r] = 0.0, y0[n + r] = in->xi[r], y0[2 * n + r] = in->nu[r], y0[3 * n + r] = in->p[r];
    double run = 0.0;
    for (int r = 0; r < nz; ++r) y1[r] = y0[r];
    for (int i = 0; i < S; ++i) {
        double *restrict Y = s->Y[i];
        for (int r = 0; r < nz; ++r) Y[r] = y0[r];
        for (int j = 0; j < i; ++j)
            if (t->A[i][j] != 0.0) axpy(nz, h * t->A[i][j], s->K[j], Y);
        slope(s, n, Y, s->K[i], s->A[i], s->horner[i], count > 0);
        double pp = 0.0;
        for (int r = 0; r < n; ++r) pp += Y[3 * n + r] * Y[3 * n + r];
        run += t->b[i] * 0.5 * pp;
        if (t->b[i] != 0.0) axpy(nz, h * t->b[i], s->K[i], y1);
    }
    run *= h;
    if (!sp_vec_isfinite(nz, y1) || !isfinite(run)) return SP_ERR_NONFINITE;

    double R[SP_LIE_MAX_ELEM], g1[SP_LIE_MAX_ELEM];
    G->exp(G, y1, R);
    G->compose(G, in->g, R, g1);
    if (count > 0) tangents(s, n, h, R, y1, count, dz);
    memcpy(out->g, g1, (size_t)G->elem_size * sizeof *g1);
    for (int r = 0; r < n; ++r) out->xi[r] = y1[n + r], out->nu[r] = y1[2 * n + r], out->p[r] = y1[3 * n + r];
    if (running) *running = run;
    return SP_OK;
}

sp_status sp_hohp_rk_step(sp_hohp_rk *s, double h, const sp_hohp_state *in, sp_hohp_state *out, double *running,
                          int count, double *dz)
{
    switch (s->n) {
    case 3: return step_n(s, 3, h, in, out, running, count, dz);
    case 6: return step_n(s, 6, h, in, out, running, count, dz);
    default: return step_n(s, s->n, h, in, out, running, count, dz);
    }
}
