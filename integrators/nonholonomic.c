/* Lobatto IIIA–IIIB for nonholonomic systems (see sp_nonholonomic.h). Stages are
 * numbered from 0 here (stage 0 is stage 1 of the formulas in sp_nonholonomic.h).
 * Unknowns x = (Q_1..Q_{s-1}, P_0..P_{s-1}, Λ_k0..Λ_{s-1}), k0 = 1 (IIIA placement) or 0
 * (IIIB placement); equations in the same order: R_Q,i (i ≥ 1), R_P,i (all i), one
 * constraint block per unknown Λ_i.
 *
 * With warm_start in the Newton options, a step that continues the last one starts from
 * the last step's stages extrapolated to the new stage times and solves by simplified
 * Newton with a factorisation kept from earlier steps (sp_newton.h); see sp_nh_step. */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_linsolve.h"
#include "integrators/sp_nonholonomic.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"

#define NMAX SP_NH_MAX_N
#define MMAX SP_NH_MAX_M
#define SMAX SP_NH_MAX_STAGES

/* ------------------------------------------------------------ model helpers -- */

static sp_status call_hamiltonian(const sp_nh_model *md, const double *q, const double *p,
                                  const sp_nh_hamiltonian_out *out)
{
    return md->hamiltonian(q, p, out, md->params) == 0 ? SP_OK : SP_ERR_CALLBACK;
}

static sp_status call_constraints(const sp_nh_model *md, const double *q, double *mu, double *dmu)
{
    return md->constraints(q, mu, dmu, md->params) == 0 ? SP_OK : SP_ERR_CALLBACK;
}

static int model_valid(const sp_nh_model *md)
{
    return md && md->hamiltonian && md->constraints && md->n >= 2 && md->n <= NMAX && md->m >= 1 &&
           md->m < md->n && md->m <= MMAX;
}

/* Ψ_q (m x n) at a point where μ, Dμ, W = H_p and H_qp are known:
 * (Ψ_q)_ak = Σ_i ∂μ_ai/∂q_k W_i + Σ_i μ_ai ∂²H/∂q_k∂p_i. */
static void psi_q(int n, int m, const double *mu, const double *dmu, const double *W, const double *Hqp, double *out)
{
    for (int a = 0; a < m; ++a)
        for (int k = 0; k < n; ++k) {
            double s = 0.0;
            for (int i = 0; i < n; ++i) s += dmu[(a * n + i) * n + k] * W[i] + mu[a * n + i] * Hqp[k * n + i];
            out[a * n + k] = s;
        }
}

sp_status sp_nh_energy(const sp_nh_model *md, const double *q, const double *p, double *H)
{
    if (!model_valid(md) || !H) return SP_ERR_INVALID;
    double v = NAN;
    sp_status st = call_hamiltonian(md, q, p, &(sp_nh_hamiltonian_out){.H = &v});
    if (st != SP_OK) return st;
    if (!isfinite(v)) return SP_ERR_NONFINITE;
    *H = v;
    return SP_OK;
}

sp_status sp_nh_constraint(const sp_nh_model *md, const double *q, const double *p, double *psi)
{
    if (!model_valid(md) || !psi) return SP_ERR_INVALID;
    double Hp[NMAX], mu[MMAX * NMAX];
    sp_status st = call_hamiltonian(md, q, p, &(sp_nh_hamiltonian_out){.Hp = Hp});
    if (st == SP_OK) st = call_constraints(md, q, mu, NULL);
    if (st != SP_OK) return st;
    double r[MMAX];
    sp_mat_vec(md->m, md->n, mu, Hp, r);
    if (!sp_vec_isfinite(md->m, r)) return SP_ERR_NONFINITE;
    sp_vec_copy(md->m, r, psi);
    return SP_OK;
}

sp_status sp_nh_constraint_residual(const sp_nh_model *md, const double *q, const double *p, double *residual)
{
    if (!residual) return SP_ERR_INVALID;
    double psi[MMAX];
    sp_status st = sp_nh_constraint(md, q, p, psi);
    if (st != SP_OK) return st;
    double r = 0.0;
    for (int a = 0; a < md->m; ++a) r = fmax(r, fabs(psi[a]));
    *residual = r;
    return SP_OK;
}

/* λ(q, p) = (Ψ_p μᵀ)⁻¹ (Ψ_p H_q − Ψ_q H_p), with H_q, H_p also returned (either may be NULL). */
static sp_status multiplier(const sp_nh_model *md, const double *q, const double *p, double *lam, double *Hq_out,
                            double *Hp_out, double *mu_out)
{
    const int n = md->n, m = md->m;
    double Hq[NMAX], Hp[NMAX], Hqp[NMAX * NMAX], Hpp[NMAX * NMAX], mu[MMAX * NMAX], dmu[MMAX * NMAX * NMAX];
    sp_status st = call_hamiltonian(md, q, p, &(sp_nh_hamiltonian_out){.Hq = Hq, .Hp = Hp, .Hqp = Hqp, .Hpp = Hpp});
    if (st == SP_OK) st = call_constraints(md, q, mu, dmu);
    if (st != SP_OK) return st;
    double Pp[MMAX * NMAX], Pq[MMAX * NMAX], A[MMAX * MMAX], rhs[MMAX];
    sp_mat_mul(m, n, n, mu, Hpp, Pp);
    psi_q(n, m, mu, dmu, Hp, Hqp, Pq);
    for (int a = 0; a < m; ++a) {
        for (int c = 0; c < m; ++c) A[a * m + c] = sp_vec_dot(n, Pp + a * n, mu + c * n);
        rhs[a] = sp_vec_dot(n, Pp + a * n, Hq) - sp_vec_dot(n, Pq + a * n, Hp);
    }
    int piv[MMAX];
    st = sp_linsolve(m, A, rhs, 1, piv, 0);
    if (st != SP_OK) return st;
    sp_vec_copy(m, rhs, lam);
    if (Hq_out) sp_vec_copy(n, Hq, Hq_out);
    if (Hp_out) sp_vec_copy(n, Hp, Hp_out);
    if (mu_out) sp_vec_copy(m * n, mu, mu_out);
    return SP_OK;
}

sp_status sp_nh_multiplier(const sp_nh_model *md, const double *q, const double *p, double *lam)
{
    if (!model_valid(md) || !lam) return SP_ERR_INVALID;
    return multiplier(md, q, p, lam, NULL, NULL, NULL);
}

int sp_nh_reduced_field(const double *y, double *dy, void *model)
{
    const sp_nh_model *md = model;
    if (!model_valid(md)) return -1;
    const int n = md->n, m = md->m;
    double lam[MMAX], Hq[NMAX], Hp[NMAX], mu[MMAX * NMAX];
    if (multiplier(md, y, y + n, lam, Hq, Hp, mu) != SP_OK) return -1;
    for (int i = 0; i < n; ++i) {
        double f = -Hq[i];
        for (int a = 0; a < m; ++a) f += mu[a * n + i] * lam[a];
        dy[i] = Hp[i];
        dy[n + i] = f;
    }
    return 0;
}

/* ------------------------------------------------------------------ stepper -- */

/* The model at one stage (Q_j, P_j), and at (Q_j, p̃^j) for the constraint. */
typedef struct stage {
    double *Hq, *Hp, *Hqq, *Hqp, *Hpp; /* at (Q, P) */
    double *mu, *dmu;                  /* at Q */
    double *F, *DFq;                   /* F = −H_q + μᵀΛ, ∂F/∂Q = −H_qq + Σ_a Λ_a ∂μ_a/∂q */
    double *Pt, *W, *Wqp, *Wpp;        /* p̃, and H_p, H_qp, H_pp at (Q, p̃) */
    double *psi;                       /* the constraint residual of this stage's row */
} stage;

struct sp_nh {
    const sp_nh_model *model;
    sp_nh_options opt;
    int n, m, s, N, k0;
    double A[SMAX][SMAX], B[SMAX][SMAX], b[SMAX], c[SMAX];
    sp_newton *newton;
    stage st[SMAX];
    double *block; /* everything below and in st[] */
    double *x, *Q, *P, *L; /* unknowns; unpacked stage values (s x n, s x n, s x m) */
    double *K, *T;         /* scratch m x n and m x n */
    /* the step being solved */
    double h, q0[NMAX], p0[NMAX], lam1[MMAX];
    /* the last successful step */
    int have_step;
    sp_nh_step_info info;
    double *lastQ, *lastP, *lastPt, *lastL;
    double *lastHp, *lastF; /* H_p and F at its stages (s x n each), for the predictor */
    /* for the predictor: the last step continued only if it succeeded (have_prev), its
     * size and where it ended */
    int have_prev;
    double last_h, last_q1[NMAX], last_p1[NMAX];
};

sp_nh_options sp_nh_options_default(void)
{
    sp_nh_options o = {
        .placement = SP_NH_PLACE_IIIA, .lambda1 = SP_NH_LAMBDA_CARRY, .newton = sp_newton_options_default()};
    /* With the warm start: a factorisation (the Jacobian of every stage, then LU) costs
     * about four updates (a residual of every stage and a solve) at s = 4, more at s = 6;
     * a fresh Jacobian converges in two or three. So kept factors are refreshed once they
     * would need more than six further updates: on the rolling disk at h = 0.1 (turning
     * 0.2 rad a step, a kept Jacobian contracts at θ ≈ 0.1) that is every step, on the
     * knife edge hardly ever (bench/nh_bench.c). */
    o.newton.stale_updates = 6;
    return o;
}

sp_nh *sp_nh_alloc(const sp_nh_model *model, int stages, const sp_nh_options *opt)
{
    if (!model_valid(model) || stages < SP_NH_MIN_STAGES || stages > SMAX) return NULL;
    sp_nh_options o = opt ? *opt : sp_nh_options_default();
    if ((o.placement != SP_NH_PLACE_IIIA && o.placement != SP_NH_PLACE_IIIB) ||
        (o.lambda1 != SP_NH_LAMBDA_CARRY && o.lambda1 != SP_NH_LAMBDA_RECOMPUTE) || !(o.newton.tol > 0.0) ||
        o.newton.max_iter < 1)
        return NULL;
    sp_tableau ta, tb;
    if (sp_tableau_get("lobatto_iiia", stages, &ta) != SP_OK || sp_tableau_get("lobatto_iiib", stages, &tb) != SP_OK)
        return NULL;
    sp_nh *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->opt = o;
    const int n = model->n, m = model->m, S = stages;
    s->n = n, s->m = m, s->s = S;
    s->k0 = o.placement == SP_NH_PLACE_IIIA ? 1 : 0;
    s->N = (2 * S - 1) * n + (S - s->k0) * m;
    for (int i = 0; i < S; ++i) {
        s->b[i] = ta.b[i], s->c[i] = ta.c[i];
        for (int j = 0; j < S; ++j) s->A[i][j] = ta.A[i][j], s->B[i][j] = tb.A[i][j];
    }
    /* one block: per stage 5n + 6n² + mn + mn² + m, then x, Q, P, L, K, T, last stages */
    const size_t per_stage = (size_t)(5 * n + 6 * n * n + m * n + m * n * n + m);
    const size_t total = (size_t)S * per_stage + (size_t)s->N + (size_t)(2 * S * n + S * m) + (size_t)(2 * m * n) +
                         (size_t)(5 * S * n + S * m);
    s->block = calloc(total, sizeof *s->block);
    s->newton = sp_newton_alloc(s->N);
    if (!s->block || !s->newton) {
        sp_nh_free(s);
        return NULL;
    }
    double *w = s->block;
#define TAKE(ptr, count) ((ptr) = w, w += (count))
    for (int j = 0; j < S; ++j) {
        stage *g = &s->st[j];
        TAKE(g->Hq, n), TAKE(g->Hp, n), TAKE(g->F, n), TAKE(g->Pt, n), TAKE(g->W, n);
        TAKE(g->Hqq, n * n), TAKE(g->Hqp, n * n), TAKE(g->Hpp, n * n), TAKE(g->DFq, n * n);
        TAKE(g->Wqp, n * n), TAKE(g->Wpp, n * n);
        TAKE(g->mu, m * n), TAKE(g->dmu, m * n * n), TAKE(g->psi, m);
    }
    TAKE(s->x, s->N), TAKE(s->Q, S * n), TAKE(s->P, S * n), TAKE(s->L, S * m);
    TAKE(s->K, m * n), TAKE(s->T, m * n);
    TAKE(s->lastQ, S * n), TAKE(s->lastP, S * n), TAKE(s->lastPt, S * n), TAKE(s->lastL, S * m);
    TAKE(s->lastHp, S * n), TAKE(s->lastF, S * n);
#undef TAKE
    return s;
}

void sp_nh_free(sp_nh *s)
{
    if (!s) return;
    sp_newton_free(s->newton);
    free(s->block);
    free(s);
}

int sp_nh_stages(const sp_nh *s) { return s->s; }
int sp_nh_order(const sp_nh *s) { return s->opt.placement == SP_NH_PLACE_IIIA ? 2 * s->s - 2 : s->s - 1; }
sp_nh_options sp_nh_get_options(const sp_nh *s) { return s->opt; }
int sp_nh_unknowns(const sp_nh *s) { return s->N; }
sp_nh_step_info sp_nh_last_step(const sp_nh *s) { return s->info; }

static int col_Q(const sp_nh *s, int j) { return (j - 1) * s->n; }
static int col_P(const sp_nh *s, int j) { return (s->s - 1 + j) * s->n; }
static int col_L(const sp_nh *s, int j) { return (2 * s->s - 1) * s->n + (j - s->k0) * s->m; }
/* Is the constraint of row i imposed on p̃^i (else on P_i)? */
static int on_tilde(const sp_nh *s, int i) { return s->opt.placement == SP_NH_PLACE_IIIA || i == s->s - 1; }

/* Unpacks x into Q, P, Λ and evaluates every stage (with derivatives when asked). */
static sp_status eval_stages(sp_nh *s, const double *x, int derivatives)
{
    const sp_nh_model *md = s->model;
    const int n = s->n, m = s->m, S = s->s;
    for (int j = 0; j < S; ++j) {
        sp_vec_copy(n, j == 0 ? s->q0 : x + col_Q(s, j), s->Q + j * n);
        sp_vec_copy(n, x + col_P(s, j), s->P + j * n);
        sp_vec_copy(m, j < s->k0 ? s->lam1 : x + col_L(s, j), s->L + j * m);
    }
    for (int j = 0; j < S; ++j) {
        stage *g = &s->st[j];
        const double *Q = s->Q + j * n, *Lj = s->L + j * m;
        sp_nh_hamiltonian_out out = {.Hq = g->Hq, .Hp = g->Hp};
        if (derivatives) out.Hqq = g->Hqq, out.Hqp = g->Hqp, out.Hpp = g->Hpp;
        sp_status st = call_hamiltonian(md, Q, s->P + j * n, &out);
        if (st == SP_OK) st = call_constraints(md, Q, g->mu, derivatives ? g->dmu : NULL);
        if (st != SP_OK) return st;
        for (int r = 0; r < n; ++r) {
            double f = -g->Hq[r];
            for (int a = 0; a < m; ++a) f += g->mu[a * n + r] * Lj[a];
            g->F[r] = f;
        }
        if (derivatives)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    double d = -g->Hqq[r * n + c];
                    for (int a = 0; a < m; ++a) d += Lj[a] * g->dmu[(a * n + r) * n + c];
                    g->DFq[r * n + c] = d;
                }
    }
    /* IIIA-type momenta p̃^i and the constraint rows */
    for (int i = 0; i < S; ++i) {
        stage *g = &s->st[i];
        for (int r = 0; r < n; ++r) {
            double d = 0.0;
            for (int j = 0; j < S; ++j) d += s->A[i][j] * s->st[j].F[r];
            g->Pt[r] = s->p0[r] + s->h * d;
        }
        if (i < s->k0) continue;
        const double *W = g->Hp;
        if (on_tilde(s, i)) {
            sp_nh_hamiltonian_out out = {.Hp = g->W};
            if (derivatives) out.Hqp = g->Wqp, out.Hpp = g->Wpp;
            sp_status st = call_hamiltonian(md, s->Q + i * n, g->Pt, &out);
            if (st != SP_OK) return st;
            W = g->W;
        }
        sp_mat_vec(m, n, g->mu, W, g->psi);
    }
    return SP_OK;
}

/* J[rows r0.., cols c0..] += coef · M (nr x nc, row-major, or its transpose when t) */
static void add_block(double *J, int N, int r0, int c0, int nr, int nc, double coef, const double *M, int t)
{
    for (int r = 0; r < nr; ++r)
        for (int c = 0; c < nc; ++c) J[(size_t)(r0 + r) * N + c0 + c] += coef * (t ? M[c * nr + r] : M[r * nc + c]);
}

/* The analytic Jacobian of the stage equations at the evaluated stages. Per stage j:
 * ∂H_p/∂Q = H_qpᵀ, ∂H_p/∂P = H_pp, ∂F/∂Q = DFq, ∂F/∂P = −H_qp, ∂F/∂Λ = μᵀ; a constraint
 * row on p̃^i = p + h Σ_j a_ij F_j picks up h a_ij K ∂F_j/∂(Q_j, P_j, Λ_j), K = μ(Q_i) H_pp(Q_i, p̃^i). */
static void jacobian(sp_nh *s, double *J)
{
    const int n = s->n, m = s->m, S = s->s, N = s->N;
    const double h = s->h;
    memset(J, 0, (size_t)N * (size_t)N * sizeof *J);
    for (int i = 0; i < S; ++i) {
        /* R_Q,i = Q_i − q − h Σ_j a_ij H_p,j   (i ≥ 1) */
        if (i >= 1) {
            const int row = col_Q(s, i);
            for (int r = 0; r < n; ++r) J[(size_t)(row + r) * N + row + r] += 1.0;
            for (int j = 0; j < S; ++j) {
                const double c = -h * s->A[i][j];
                if (c == 0.0) continue;
                const stage *g = &s->st[j];
                if (j >= 1) add_block(J, N, row, col_Q(s, j), n, n, c, g->Hqp, 1); /* ∂H_p/∂q = H_qpᵀ */
                add_block(J, N, row, col_P(s, j), n, n, c, g->Hpp, 0);
            }
        }
        /* R_P,i = P_i − p − h Σ_j â_ij F_j */
        {
            const int row = col_P(s, i);
            for (int r = 0; r < n; ++r) J[(size_t)(row + r) * N + row + r] += 1.0;
            for (int j = 0; j < S; ++j) {
                const double c = -h * s->B[i][j];
                if (c == 0.0) continue;
                const stage *g = &s->st[j];
                if (j >= 1) add_block(J, N, row, col_Q(s, j), n, n, c, g->DFq, 0);
                add_block(J, N, row, col_P(s, j), n, n, -c, g->Hqp, 0);
                if (j >= s->k0) add_block(J, N, row, col_L(s, j), n, m, c, g->mu, 1);
            }
        }
    }
    /* constraint rows */
    for (int i = s->k0; i < S; ++i) {
        const stage *g = &s->st[i];
        const int row = col_L(s, i);
        if (on_tilde(s, i)) {
            /* Ψ = μ(Q_i) H_p(Q_i, p̃^i): direct Q_i dependence, and K = μ W_pp through p̃^i */
            if (i >= 1) {
                psi_q(n, m, g->mu, g->dmu, g->W, g->Wqp, s->T);
                add_block(J, N, row, col_Q(s, i), m, n, 1.0, s->T, 0);
            }
            sp_mat_mul(m, n, n, g->mu, g->Wpp, s->K);
            for (int j = 0; j < S; ++j) {
                const double c = h * s->A[i][j];
                if (c == 0.0) continue;
                const stage *gj = &s->st[j];
                if (j >= 1) {
                    sp_mat_mul(m, n, n, s->K, gj->DFq, s->T);
                    add_block(J, N, row, col_Q(s, j), m, n, c, s->T, 0);
                }
                /* (∂F/∂P)_rc = −∂H_q,r/∂p_c = −Hqp[r n + c], so K ∂F/∂P = −K Hqp */
                sp_mat_mul(m, n, n, s->K, gj->Hqp, s->T);
                add_block(J, N, row, col_P(s, j), m, n, -c, s->T, 0);
                if (j >= s->k0)
                    for (int a = 0; a < m; ++a)
                        for (int b = 0; b < m; ++b)
                            J[(size_t)(row + a) * N + col_L(s, j) + b] += c * sp_vec_dot(n, s->K + a * n, gj->mu + b * n);
            }
        } else {
            /* Ψ = μ(Q_i) H_p(Q_i, P_i) */
            if (i >= 1) {
                psi_q(n, m, g->mu, g->dmu, g->Hp, g->Hqp, s->T);
                add_block(J, N, row, col_Q(s, i), m, n, 1.0, s->T, 0);
            }
            sp_mat_mul(m, n, n, g->mu, g->Hpp, s->K);
            add_block(J, N, row, col_P(s, i), m, n, 1.0, s->K, 0);
        }
    }
}

static sp_status residual(void *ctx, const double *x, double *r, double *J)
{
    sp_nh *s = ctx;
    const int n = s->n, m = s->m, S = s->s;
    sp_status st = eval_stages(s, x, J != NULL);
    if (st != SP_OK) return st;
    const double h = s->h;
    for (int i = 0; i < S; ++i) {
        for (int k = 0; k < n; ++k) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) dq += s->A[i][j] * s->st[j].Hp[k], dp += s->B[i][j] * s->st[j].F[k];
            if (i >= 1) r[col_Q(s, i) + k] = s->Q[i * n + k] - s->q0[k] - h * dq;
            r[col_P(s, i) + k] = s->P[i * n + k] - s->p0[k] - h * dp;
        }
        if (i >= s->k0) sp_vec_copy(m, s->st[i].psi, r + col_L(s, i));
    }
    if (J) jacobian(s, J);
    return SP_OK;
}

static void set_step(sp_nh *s, double h, const double *q, const double *p, const double *lam1)
{
    s->h = h;
    sp_vec_copy(s->n, q, s->q0);
    sp_vec_copy(s->n, p, s->p0);
    sp_vec_copy(s->m, lam1, s->lam1);
}

sp_status sp_nh_stage_system(sp_nh *s, double h, const double *q, const double *p, const double *lam,
                             const double *x, double *r, double *J)
{
    if (!s || !q || !p || !x || !r || (!lam && s->k0 == 1)) return SP_ERR_INVALID;
    double zero[MMAX] = {0};
    set_step(s, h, q, p, lam ? lam : zero);
    return residual(s, x, r, J);
}

/* Every stage at (q, p, Λ_1). */
static void plain_start(sp_nh *s, const double *q, const double *p, const double *lam1)
{
    for (int j = 0; j < s->s; ++j) {
        if (j >= 1) sp_vec_copy(s->n, q, s->x + col_Q(s, j));
        sp_vec_copy(s->n, p, s->x + col_P(s, j));
        if (j >= s->k0) sp_vec_copy(s->m, lam1, s->x + col_L(s, j));
    }
}

/* The unknowns of a step of size h that continues the last one, from the last step's
 * derivatives H_p,k and F_k at its stages (nodes c_k in units of its step): the
 * polynomials through them, evaluated at the new stage times 1 + (h/h_last) c_j, give
 * Ĥ_p,j and F̂_j, and the stage equations with these derivatives and the new step's start
 * (q, p) give
 *     Q_i = q + h Σ_j a_ij Ĥ_p,j,   P_i = p + h Σ_j â_ij F̂_j.
 * The Q are the IIIA collocation polynomial continued (Hairer, Lubich & Wanner, Geometric
 * Numerical Integration, 2nd ed., 2006, Sect. VIII.6.1). The IIIB momenta P_i, a
 * discontinuous collocation polynomial of degree s − 2 that jumps by O(h^{s−1}) at every
 * step point, are not extrapolated themselves: built on the exact p from F̂ their error
 * is h times smaller (rolling disk, s = 4, h = 0.1: 1e-5 instead of 3e-3). The multipliers
 * Λ are extrapolated as values. Only a guess: Newton makes it exact. */
static void predict(sp_nh *s, double h)
{
    const int n = s->n, m = s->m, S = s->s;
    double w[SMAX][SMAX], Hp[SMAX * NMAX], F[SMAX * NMAX];
    for (int j = 0; j < S; ++j) {
        sp_lagrange_weights(S, s->c, 1.0 + h / s->last_h * s->c[j], w[j]);
        sp_vec_zero(n, Hp + j * n);
        sp_vec_zero(n, F + j * n);
        for (int k = 0; k < S; ++k) {
            sp_vec_axpy(n, w[j][k], s->lastHp + k * n, Hp + j * n);
            sp_vec_axpy(n, w[j][k], s->lastF + k * n, F + j * n);
        }
    }
    for (int i = 0; i < S; ++i) {
        double *Q = i >= 1 ? s->x + col_Q(s, i) : NULL, *P = s->x + col_P(s, i);
        if (Q) sp_vec_copy(n, s->q0, Q);
        sp_vec_copy(n, s->p0, P);
        for (int j = 0; j < S; ++j) {
            if (Q) sp_vec_axpy(n, h * s->A[i][j], Hp + j * n, Q);
            sp_vec_axpy(n, h * s->B[i][j], F + j * n, P);
        }
        if (i >= s->k0) {
            double *L = s->x + col_L(s, i);
            sp_vec_zero(m, L);
            for (int k = 0; k < S; ++k) sp_vec_axpy(m, w[i][k], s->lastL + k * m, L);
        }
    }
}

static double max_abs(int n, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i) r = isnan(x[i]) ? NAN : fmax(r, fabs(x[i]));
    return r;
}

sp_status sp_nh_step(sp_nh *s, double h, double *q, double *p, double *lam)
{
    if (!s || !q || !p || !isfinite(h) || h == 0.0) return SP_ERR_INVALID;
    if (!lam && s->opt.lambda1 == SP_NH_LAMBDA_CARRY) return SP_ERR_INVALID;
    const sp_nh_model *md = s->model;
    const int n = s->n, m = s->m, S = s->s;
    double lam1[MMAX];
    sp_status st = SP_OK;
    if (s->opt.lambda1 == SP_NH_LAMBDA_RECOMPUTE || !lam)
        st = multiplier(md, q, p, lam1, NULL, NULL, NULL);
    else
        sp_vec_copy(m, lam, lam1);
    if (st != SP_OK) return st;
    if (!sp_vec_isfinite(n, q) || !sp_vec_isfinite(n, p) || !sp_vec_isfinite(m, lam1)) return SP_ERR_NONFINITE;
    const int continues = s->have_prev && s->opt.newton.warm_start && isfinite(h / s->last_h) &&
                          sp_vec_equal(n, q, s->last_q1) && sp_vec_equal(n, p, s->last_p1);
    s->have_prev = 0;
    /* a step that does not continue the last one owes nothing to it: its result depends on
     * its own data only */
    if (!continues) sp_newton_forget_jacobian(s->newton);
    set_step(s, h, q, p, lam1);
    int it = 0, lu = 0;
    if (continues) {
        predict(s, h);
        st = sp_newton_solve_simplified(s->newton, residual, s, s->x, &s->opt.newton, &it);
        lu = sp_newton_factorizations(s->newton);
    }
    /* The plain start, also when a prediction led nowhere, by full Newton: a step that does
     * not continue the last one is solved as without the warm start, and simplified Newton
     * from a poor start can stop where full Newton goes on to converge (contact oscillator,
     * s = 4, h = 100: a singular refactorisation at a far iterate, where full Newton
     * converges in 30 iterations). */
    if (!continues || st != SP_OK) {
        int it_plain = 0;
        plain_start(s, q, p, lam1);
        st = sp_newton_solve(s->newton, residual, s, s->x, &s->opt.newton, &it_plain);
        it += it_plain;
        lu += sp_newton_factorizations(s->newton);
    }
    if (st == SP_OK) st = eval_stages(s, s->x, 0);
    if (st != SP_OK) return st;
    double q1[NMAX], p1[NMAX], l1[MMAX];
    for (int k = 0; k < n; ++k) {
        double dq = 0.0, dp = 0.0;
        for (int j = 0; j < S; ++j) dq += s->b[j] * s->st[j].Hp[k], dp += s->b[j] * s->st[j].F[k];
        q1[k] = q[k] + h * dq;
        p1[k] = p[k] + h * dp;
    }
    sp_vec_copy(m, s->L + (S - 1) * m, l1);
    if (!sp_vec_isfinite(n, q1) || !sp_vec_isfinite(n, p1) || !sp_vec_isfinite(m, l1)) return SP_ERR_NONFINITE;
    /* diagnostics: Ψ at (Q_i, p̃^i) for the later stages and at (q', p'); Ψ at (Q_i, P_i) */
    double psi[MMAX], res = 0.0, res_b = 0.0;
    for (int i = 1; i < S && st == SP_OK; ++i) {
        /* the constraint rows on p̃^i hold this Ψ already (eval_stages above) */
        if (i >= s->k0 && on_tilde(s, i))
            sp_vec_copy(m, s->st[i].psi, psi);
        else
            st = sp_nh_constraint(md, s->Q + i * n, s->st[i].Pt, psi);
        res = fmax(res, max_abs(m, psi));
    }
    if (st == SP_OK) st = sp_nh_constraint(md, q1, p1, psi);
    if (st != SP_OK) return st;
    res = fmax(res, max_abs(m, psi));
    for (int i = 0; i < S; ++i) {
        sp_mat_vec(m, n, s->st[i].mu, s->st[i].Hp, psi);
        res_b = fmax(res_b, max_abs(m, psi));
    }
    s->info = (sp_nh_step_info){.iterations = it, .factorizations = lu, .stage_residual = res, .iiib_residual = res_b};
    sp_vec_copy(S * n, s->Q, s->lastQ);
    sp_vec_copy(S * n, s->P, s->lastP);
    for (int i = 0; i < S; ++i) sp_vec_copy(n, s->st[i].Pt, s->lastPt + i * n);
    sp_vec_copy(S * m, s->L, s->lastL);
    for (int i = 0; i < S; ++i) {
        sp_vec_copy(n, s->st[i].Hp, s->lastHp + i * n);
        sp_vec_copy(n, s->st[i].F, s->lastF + i * n);
    }
    s->have_step = 1;
    s->have_prev = 1, s->last_h = h;
    sp_vec_copy(n, q1, s->last_q1), sp_vec_copy(n, p1, s->last_p1);
    sp_vec_copy(n, q1, q);
    sp_vec_copy(n, p1, p);
    if (lam) sp_vec_copy(m, l1, lam);
    return SP_OK;
}

sp_status sp_nh_last_stages(const sp_nh *s, double *Q, double *P, double *Ptilde, double *Lambda)
{
    if (!s || !s->have_step) return SP_ERR_INVALID;
    const int n = s->n, m = s->m, S = s->s;
    if (Q) sp_vec_copy(S * n, s->lastQ, Q);
    if (P) sp_vec_copy(S * n, s->lastP, P);
    if (Ptilde) sp_vec_copy(S * n, s->lastPt, Ptilde);
    if (Lambda) sp_vec_copy(S * m, s->lastL, Lambda);
    return SP_OK;
}
