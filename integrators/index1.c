/* Gauss–Legendre RK on the index-1 DAE (McLachlan, Modin, Verdier & Wilkins, "Symplectic
 * integrators for index one constraints", 2013). Unknowns are laid out as
 * x = (Q_1 … Q_s, P_1 … P_s, Λ_1 … Λ_s).
 *
 * A step that continues the last one starts from a prediction built on the last step's
 * stage derivatives (predict) and solves by simplified Newton with the Jacobian factored
 * at an earlier step (sp_newton.h), or by the fixed-point iteration of the eliminated
 * stage equations (sweep); see sp_index1_step. */
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_index1.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

/* SP_INDEX1_AUTO: the fixed point gives a step to Newton once its measured rate predicts
 * more than AUTO_SWEEPS(s) further sweeps. A simplified Newton update with its share of
 * factorisations costs what 2 (s = 1) to 6 (s = 6) sweeps cost on the built-in models,
 * the stage system growing as s² and its LU as s³ while a sweep grows as s, and such a
 * step takes 4 to 8 updates (bench/index1_bench.c); the budget follows that. After k
 * hand-overs in a row the next 2^(k−1) − 1 steps (k ≤ AUTO_MAX_FAILS) go straight to
 * Newton: an isolated hard step costs nothing more, a stretch where the fixed point cannot
 * contract costs a few sweeps now and then, not at every step. */
#define AUTO_SWEEPS(s) (10 + 2 * (s))
#define AUTO_MAX_FAILS 7

/* A step more than this many times the last one starts plainly: the prediction's error
 * grows as the ratio to the power s + 2, and from a start that far off Newton can settle
 * on another root of the stage equations (Heisenberg, s = 1, h = 2 after h = 0.1: a root
 * 1e167 away, the plain start finds the one full Newton finds). */
#define PREDICT_MAX_RATIO 2.0

struct sp_index1 {
    const sp_vakonomic_model *model;
    sp_tableau tab;
    int n, m, s, N; /* N = s(2n + m) unknowns */
    sp_vakonomic_point *stage[SP_TABLEAU_MAX_STAGES];
    sp_newton *newton; /* on x */
    sp_newton *fixed;  /* the fixed point, on the stages (Q, P) alone: the first 2sn entries of x */
    sp_newton_options opt;
    sp_index1_solver solver;
    double *x, *J, *X; /* unknowns; Jacobian; sensitivities N x 2n */
    double *x_start;   /* the start of the last solve: for a fallback, and start_distance */
    int *pivots;
    double h, q0[SP_VAK_MAX_N], p0[SP_VAK_MAX_N];
    int iterations, sweeps, factorizations, have_step;
    double start_distance;
    int newton_last;           /* the last step was solved by Newton: the factors it kept fit the next */
    int auto_skip, auto_fails; /* SP_INDEX1_AUTO: steps left to go to Newton; hand-overs in a row */
    /* The last successful step, for the predictor: its stage derivatives (v_j, H_q,j), its
     * size and where it ended. */
    int have_prev;
    double prev_v[SP_TABLEAU_MAX_STAGES][SP_VAK_MAX_N], prev_hq[SP_TABLEAU_MAX_STAGES][SP_VAK_MAX_N], prev_h;
    double prev_q1[SP_VAK_MAX_N], prev_p1[SP_VAK_MAX_N];
};

sp_index1 *sp_index1_alloc(const sp_vakonomic_model *model, const sp_tableau *tableau)
{
    if (!model || !tableau || tableau->stages < 1 || tableau->stages > SP_TABLEAU_MAX_STAGES) return NULL;
    sp_index1 *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    s->tab = *tableau;
    s->n = model->n, s->m = model->m, s->s = tableau->stages;
    s->N = s->s * (2 * s->n + s->m);
    s->opt = sp_newton_options_default();
    int ok = 1;
    for (int i = 0; i < s->s; ++i) ok &= (s->stage[i] = sp_vakonomic_point_alloc(model)) != NULL;
    size_t N = (size_t)s->N;
    s->newton = sp_newton_alloc(s->N);
    s->fixed = sp_newton_alloc(2 * s->s * s->n);
    s->x = malloc(N * sizeof *s->x);
    s->x_start = malloc(N * sizeof *s->x_start);
    s->J = malloc(N * N * sizeof *s->J);
    s->X = malloc(N * 2 * (size_t)s->n * sizeof *s->X);
    s->pivots = malloc(N * sizeof *s->pivots);
    if (!ok || !s->newton || !s->fixed || !s->x || !s->x_start || !s->J || !s->X || !s->pivots) {
        sp_index1_free(s);
        return NULL;
    }
    return s;
}

void sp_index1_free(sp_index1 *s)
{
    if (!s) return;
    for (int i = 0; i < SP_TABLEAU_MAX_STAGES; ++i) sp_vakonomic_point_free(s->stage[i]);
    sp_newton_free(s->newton);
    sp_newton_free(s->fixed);
    free(s->x);
    free(s->x_start);
    free(s->J);
    free(s->X);
    free(s->pivots);
    free(s);
}

void sp_index1_set_options(sp_index1 *s, const sp_newton_options *opt) { s->opt = *opt; }
void sp_index1_set_solver(sp_index1 *s, sp_index1_solver solver) { s->solver = solver; }
int sp_index1_iterations(const sp_index1 *s) { return s->iterations; }
int sp_index1_sweeps(const sp_index1 *s) { return s->sweeps; }
double sp_index1_start_distance(const sp_index1 *s) { return s->start_distance; }
int sp_index1_factorizations(const sp_index1 *s) { return s->factorizations; }

static double *stage_Q(const sp_index1 *s, double *x, int i) { return x + i * s->n; }
static double *stage_P(const sp_index1 *s, double *x, int i) { return x + (s->s + i) * s->n; }
static double *stage_L(const sp_index1 *s, double *x, int i) { return x + 2 * s->s * s->n + i * s->m; }

/* Evaluates every stage at x (with Jacobian blocks when asked). */
static sp_status eval_stages(sp_index1 *s, const double *x, int derivatives)
{
    for (int i = 0; i < s->s; ++i) {
        double *xx = (double *)x;
        sp_status st = sp_vakonomic_eval(s->model, s->stage[i], stage_Q(s, xx, i), stage_P(s, xx, i),
                                         stage_L(s, xx, i), derivatives);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The Jacobian of the stage equations at the evaluated stages (row-major N x N). */
static void stage_jacobian(const sp_index1 *s, double h, double *J)
{
    const int n = s->n, m = s->m, S = s->s, N = s->N;
    memset(J, 0, (size_t)N * (size_t)N * sizeof *J);
    for (int i = 0; i < S; ++i) {
        const int rQ = i * n, rP = (S + i) * n, rL = 2 * S * n + i * m;
        for (int j = 0; j < S; ++j) {
            const sp_vakonomic_point *pt = s->stage[j];
            const double ha = h * s->tab.A[i][j];
            const int cQ = j * n, cP = (S + j) * n, cL = 2 * S * n + j * m;
            for (int r = 0; r < n; ++r) {
                /* R_Q = Q_i − q0 − h Σ a_ij v_j */
                for (int c = 0; c < n; ++c) {
                    J[(rQ + r) * N + cQ + c] -= ha * pt->Vq[r * n + c];
                    J[(rP + r) * N + cQ + c] += ha * pt->Hqq[r * n + c];
                    J[(rP + r) * N + cP + c] += ha * pt->Hqp[r * n + c];
                }
                J[(rQ + r) * N + cP + r] -= ha * pt->minv[r];
                for (int c = 0; c < m; ++c) {
                    J[(rQ + r) * N + cL + c] -= ha * pt->minv[r] * pt->G[c * n + r];
                    J[(rP + r) * N + cL + c] += ha * pt->Hql[r * m + c];
                }
            }
        }
        const sp_vakonomic_point *pt = s->stage[i];
        for (int r = 0; r < n; ++r) J[(rQ + r) * N + rQ + r] += 1.0, J[(rP + r) * N + rP + r] += 1.0;
        /* R_Λ = H_λ(Q_i, P_i, Λ_i) */
        for (int r = 0; r < m; ++r) {
            for (int c = 0; c < n; ++c) {
                J[(rL + r) * N + rQ + c] = pt->Cq[r * n + c];
                J[(rL + r) * N + rP + c] = pt->G[r * n + c] * pt->minv[c];
            }
            for (int c = 0; c < m; ++c) J[(rL + r) * N + rL + c] = pt->Cl[r * m + c];
        }
    }
}

static sp_status residual(void *ctx, const double *x, double *r, double *J)
{
    sp_index1 *s = ctx;
    const int n = s->n, m = s->m, S = s->s;
    sp_status st = eval_stages(s, x, J != NULL);
    if (st != SP_OK) return st;
    double *xx = (double *)x;
    for (int i = 0; i < S; ++i) {
        double *rQ = r + i * n, *rP = r + (S + i) * n, *rL = r + 2 * S * n + i * m;
        const double *Q = stage_Q(s, xx, i), *P = stage_P(s, xx, i);
        for (int k = 0; k < n; ++k) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) {
                dq += s->tab.A[i][j] * s->stage[j]->v[k];
                dp += s->tab.A[i][j] * s->stage[j]->Hq[k];
            }
            rQ[k] = Q[k] - s->q0[k] - s->h * dq;
            rP[k] = P[k] - s->p0[k] + s->h * dp;
        }
        sp_vec_copy(m, s->stage[i]->Hl, rL);
    }
    if (J) stage_jacobian(s, s->h, J);
    return SP_OK;
}

/* One sweep of the fixed-point iteration z ← Φ(z) on the stages z = (Q, P). Since
 * H_λ = G(q) M⁻¹(p + G(q)ᵀλ) is affine in λ with G M⁻¹ Gᵀ positive definite, the multiplier
 * equation of a stage holds exactly for Λ_i = λ(Q_i, P_i): the stage equations of the DAE
 * are those of Gauss on the eliminated ODE ż = F(z) = (v, −H_q)(z, λ(z)), with the same
 * solution. The sweep solves the m x m multiplier system of every stage at the current
 * (Q_i, P_i), keeping Λ_i in x, and takes Q_i ← q0 + h Σ a_ij v_j, P_i ← p0 − h Σ a_ij H_q,j
 * (Hairer, Lubich & Wanner, Geometric Numerical Integration, 2006, Sect. VIII.6). The
 * multipliers are not iterated, so they neither enter the convergence test nor need a
 * start. The sweep contracts at a rate of about h ρ(A) times the Lipschitz constant of F:
 * for moderate steps of a non-stiff problem, where a sweep (s evaluations, no Jacobian,
 * no linear solve) is cheaper than a Newton update. */
static sp_status sweep(void *ctx, const double *z, double *z_new)
{
    sp_index1 *s = ctx;
    const int n = s->n, S = s->s;
    double *zz = (double *)z;
    for (int j = 0; j < S; ++j) {
        sp_status st =
            sp_vakonomic_eval_reduced(s->model, s->stage[j], stage_Q(s, zz, j), stage_P(s, zz, j), stage_L(s, s->x, j));
        if (st != SP_OK) return st;
    }
    for (int i = 0; i < S; ++i) {
        double *Q = stage_Q(s, z_new, i), *P = stage_P(s, z_new, i);
        for (int k = 0; k < n; ++k) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) {
                dq += s->tab.A[i][j] * s->stage[j]->v[k];
                dp += s->tab.A[i][j] * s->stage[j]->Hq[k];
            }
            Q[k] = s->q0[k] + s->h * dq;
            P[k] = s->p0[k] - s->h * dp;
        }
    }
    return SP_OK;
}

/* Evaluates the stages of a converged fixed point, with each Λ_i set to λ(Q_i, P_i) so
 * that the multiplier equations hold to round-off. */
static sp_status eval_stages_reduced(sp_index1 *s)
{
    for (int i = 0; i < s->s; ++i) {
        sp_status st = sp_vakonomic_eval_reduced(s->model, s->stage[i], stage_Q(s, s->x, i), stage_P(s, s->x, i),
                                                 stage_L(s, s->x, i));
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The stages of a step of size h that continues the last one (of size h_last, r = h/h_last).
 * In units of the last step the derivative of the exact solution is interpolated at
 * c_1 … c_s, 1 by the polynomial through the stage derivatives F_j of the last step and
 * F(y1) at its end (which the step evaluates anyway, for λ(q0, p0)); the prediction takes
 * it at the new stage times 1 + r c_j and integrates with the method's own weights,
 *   Y_i = y0 + h Σ_j a_ij F̃_j,   F̃_j = Σ_k ℓ_k(1 + r c_j) F_k.
 * This is the collocation polynomial of the new step up to O(h^(s+2)): its derivative is
 * the degree s − 1 interpolant at the nodes of the derivative, and the data F_j, taken at
 * stages O(h^(s+1)) from the solution, are off by O(h^(s+1)) only, as is the interpolant of
 * degree s. Extrapolating the last collocation polynomial itself (Hairer, Lubich & Wanner,
 * 2006, Sect. VIII.6.1) is O(h^(s+1)) off: this is one order more for one evaluation fewer
 * than a sweep, and on the Heisenberg data (h = 0.1, s = 3) 15x closer. The multipliers
 * follow from the predicted (Q_i, P_i): Λ_i = λ(Q_i, P_i) when with_multipliers (Newton;
 * the fixed point computes them itself). */
static sp_status predict(sp_index1 *s, double h, const double *v0, const double *hq0, int with_multipliers)
{
    const int n = s->n, S = s->s;
    double t[SP_TABLEAU_MAX_STAGES + 1], w[SP_TABLEAU_MAX_STAGES + 1];
    double v[SP_TABLEAU_MAX_STAGES][SP_VAK_MAX_N], hq[SP_TABLEAU_MAX_STAGES][SP_VAK_MAX_N];
    for (int i = 0; i < S; ++i) t[i] = s->tab.c[i];
    t[S] = 1.0;
    for (int j = 0; j < S; ++j) {
        sp_lagrange_weights(S + 1, t, 1.0 + h / s->prev_h * s->tab.c[j], w);
        for (int k = 0; k < n; ++k) {
            double a = w[S] * v0[k], b = w[S] * hq0[k];
            for (int i = 0; i < S; ++i) a += w[i] * s->prev_v[i][k], b += w[i] * s->prev_hq[i][k];
            v[j][k] = a, hq[j][k] = b;
        }
    }
    for (int i = 0; i < S; ++i) {
        double *Q = stage_Q(s, s->x, i), *P = stage_P(s, s->x, i);
        for (int k = 0; k < n; ++k) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) dq += s->tab.A[i][j] * v[j][k], dp += s->tab.A[i][j] * hq[j][k];
            Q[k] = s->q0[k] + h * dq;
            P[k] = s->p0[k] - h * dp;
        }
        if (with_multipliers) {
            sp_status st = sp_vakonomic_multiplier(s->model, s->stage[i], Q, P, stage_L(s, s->x, i));
            if (st != SP_OK) return st;
        }
    }
    return SP_OK;
}

/* The solver a step uses: sp_newton_options.warm_start asks for simplified Newton. */
static sp_index1_solver solver_of(const sp_index1 *s)
{
    return s->solver == SP_INDEX1_NEWTON && s->opt.warm_start ? SP_INDEX1_SIMPLIFIED_NEWTON : s->solver;
}

/* Whether the step starts with the fixed point. */
static int tries_fixed_point(const sp_index1 *s, sp_index1_solver solver)
{
    return solver == SP_INDEX1_FIXED_POINT || (solver == SP_INDEX1_AUTO && s->auto_skip == 0);
}

/* Newton from x, counted. Factors kept from a step before the last are dropped: after
 * fixed-point steps they belong to another stretch of the solution. */
static sp_status solve_newton(sp_index1 *s, sp_index1_solver solver)
{
    int it = 0;
    if (!s->newton_last) sp_newton_forget_jacobian(s->newton);
    sp_status st = solver == SP_INDEX1_NEWTON ? sp_newton_solve(s->newton, residual, s, s->x, &s->opt, &it)
                                              : sp_newton_solve_simplified(s->newton, residual, s, s->x, &s->opt, &it);
    s->iterations += it;
    s->factorizations += sp_newton_factorizations(s->newton);
    s->newton_last = st == SP_OK;
    return st;
}

/* Solves the stage equations from the start in x; *fixed_point tells whether the solution
 * came from the fixed point (its multipliers are then λ(Q_i, P_i) only after
 * eval_stages_reduced). A fixed point that gives up hands over to simplified Newton: from
 * its last iterate when it was contracting (too slowly for AUTO), else from the start. */
static sp_status solve_stages(sp_index1 *s, int *fixed_point)
{
    const sp_index1_solver solver = solver_of(s);
    *fixed_point = 0;
    sp_vec_copy(s->N, s->x, s->x_start);
    if (!tries_fixed_point(s, solver)) {
        if (solver == SP_INDEX1_AUTO) --s->auto_skip;
        return solve_newton(s, solver == SP_INDEX1_AUTO ? SP_INDEX1_SIMPLIFIED_NEWTON : solver);
    }
    double rate = 0.0;
    int sweeps = 0;
    /* FIXED_POINT gives up on sweeps it could not finish within max_iter anyway */
    sp_status st =
        sp_fixed_point_solve_guarded(s->fixed, sweep, s, s->x, &s->opt,
                                     solver == SP_INDEX1_AUTO ? AUTO_SWEEPS(s->s) : s->opt.max_iter, &rate, &sweeps);
    s->sweeps += sweeps, s->iterations += sweeps;
    if (st == SP_OK) {
        *fixed_point = 1;
        s->newton_last = 0, s->auto_fails = 0;
        return SP_OK;
    }
    if (solver == SP_INDEX1_AUTO) {
        if (s->auto_fails < AUTO_MAX_FAILS) ++s->auto_fails;
        s->auto_skip = (1 << (s->auto_fails - 1)) - 1;
    }
    if (!(rate < 1.0) || !sp_vec_isfinite(s->N, s->x)) sp_vec_copy(s->N, s->x_start, s->x);
    /* Newton starts from multipliers consistent with its stages */
    for (int i = 0; i < s->s; ++i) {
        st = sp_vakonomic_multiplier(s->model, s->stage[i], stage_Q(s, s->x, i), stage_P(s, s->x, i),
                                     stage_L(s, s->x, i));
        if (st != SP_OK) return st;
    }
    return solve_newton(s, SP_INDEX1_SIMPLIFIED_NEWTON);
}

sp_status sp_index1_step(sp_index1 *s, double h, const double *q0, const double *p0, double *q1, double *p1,
                         double *lam1)
{
    const int n = s->n, m = s->m, S = s->s;
    const sp_index1_solver solver = solver_of(s);
    const int predictive = solver != SP_INDEX1_NEWTON;
    /* a step that fails before its solve reports 0; a failed step is not continued */
    s->have_step = 0, s->iterations = 0, s->sweeps = 0, s->factorizations = 0, s->start_distance = NAN;
    const int continues = s->have_prev && predictive && fabs(h / s->prev_h) <= PREDICT_MAX_RATIO &&
                          sp_vec_equal(n, q0, s->prev_q1) && sp_vec_equal(n, p0, s->prev_p1);
    s->have_prev = 0;
    /* a step that does not continue the last one owes nothing to it: its result depends on
     * its own data only */
    if (!continues) sp_newton_forget_jacobian(s->newton), s->auto_skip = s->auto_fails = 0;
    s->h = h;
    sp_vec_copy(n, q0, s->q0);
    sp_vec_copy(n, p0, s->p0);
    /* λ(q0, p0), and with it F(q0, p0) for the prediction */
    double lam0[SP_VAK_MAX_M] = {0}, v0[SP_VAK_MAX_N], hq0[SP_VAK_MAX_N];
    sp_status st = continues ? sp_vakonomic_eval_reduced(s->model, s->stage[0], q0, p0, lam0)
                             : sp_vakonomic_multiplier(s->model, s->stage[0], q0, p0, lam0);
    if (st != SP_OK) return st;
    sp_vec_copy(n, s->stage[0]->v, v0), sp_vec_copy(n, s->stage[0]->Hq, hq0);
    int fixed_point = 0;
    if (continues) {
        st = predict(s, h, v0, hq0, !tries_fixed_point(s, solver));
        if (st == SP_OK) st = solve_stages(s, &fixed_point);
    }
    if (!continues || st != SP_OK) { /* the plain start; also when a prediction led nowhere */
        if (continues) sp_newton_forget_jacobian(s->newton);
        for (int i = 0; i < S; ++i) {
            sp_vec_copy(n, q0, stage_Q(s, s->x, i));
            sp_vec_copy(n, p0, stage_P(s, s->x, i));
            sp_vec_copy(m, lam0, stage_L(s, s->x, i));
        }
        st = solve_stages(s, &fixed_point);
    }
    if (st == SP_OK) st = fixed_point ? eval_stages_reduced(s) : eval_stages(s, s->x, 0);
    if (st != SP_OK) return st;
    s->start_distance = 0.0;
    for (int i = 0; i < 2 * S * n; ++i) s->start_distance = fmax(s->start_distance, fabs(s->x[i] - s->x_start[i]));
    double q[SP_VAK_MAX_N], p[SP_VAK_MAX_N];
    for (int k = 0; k < n; ++k) {
        double dq = 0.0, dp = 0.0;
        for (int j = 0; j < S; ++j) {
            dq += s->tab.b[j] * s->stage[j]->v[k];
            dp += s->tab.b[j] * s->stage[j]->Hq[k];
        }
        q[k] = q0[k] + h * dq;
        p[k] = p0[k] - h * dp;
    }
    if (!sp_vec_isfinite(n, q) || !sp_vec_isfinite(n, p)) return SP_ERR_NONFINITE;
    /* what the next step needs to continue this one */
    for (int j = 0; j < S; ++j) {
        sp_vec_copy(n, s->stage[j]->v, s->prev_v[j]);
        sp_vec_copy(n, s->stage[j]->Hq, s->prev_hq[j]);
    }
    if (lam1) {
        st = sp_vakonomic_multiplier(s->model, s->stage[0], q, p, lam1);
        if (st != SP_OK) return st;
    }
    sp_vec_copy(n, q, s->prev_q1), sp_vec_copy(n, p, s->prev_p1);
    s->prev_h = h;
    s->have_prev = 1;
    sp_vec_copy(n, q, q1);
    sp_vec_copy(n, p, p1);
    s->have_step = 1;
    return SP_OK;
}

sp_status sp_index1_step_jacobian(sp_index1 *s, double *Phi)
{
    if (!s->have_step) return SP_ERR_INVALID;
    const int n = s->n, m = s->m, S = s->s, N = s->N, n2 = 2 * n;
    sp_status st = eval_stages(s, s->x, 1);
    if (st != SP_OK) return st;
    stage_jacobian(s, s->h, s->J);
    /* ∂R/∂(q0, p0) = −[I 0; 0 I; 0 0], so dx/dz0 solves J X = [I 0; 0 I; 0 0]: one LU
     * and 2n right-hand sides; column c of X is stored at X + c N. */
    memset(s->X, 0, (size_t)N * (size_t)n2 * sizeof *s->X);
    for (int c = 0; c < n2; ++c)
        for (int i = 0; i < S; ++i) s->X[(size_t)c * N + (c < n ? i * n : (S + i) * n) + c % n] = 1.0;
    st = sp_linsolve(N, s->J, s->X, n2, s->pivots, 0);
    if (st != SP_OK) return st;
    /* q1 = q0 + h Σ b_j v_j, p1 = p0 − h Σ b_j H_q,j: chain rule through the stages */
    const double h = s->h;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n2; ++c) {
            double dq = 0.0, dp = 0.0;
            for (int j = 0; j < S; ++j) {
                const sp_vakonomic_point *pt = s->stage[j];
                const double *X = s->X + (size_t)c * N;
                const double *XQ = X + j * n, *XP = X + (S + j) * n, *XL = X + 2 * S * n + j * m;
                double vq = pt->minv[r] * XP[r], hq = 0.0;
                for (int k = 0; k < n; ++k) {
                    vq += pt->Vq[r * n + k] * XQ[k];
                    hq += pt->Hqq[r * n + k] * XQ[k] + pt->Hqp[r * n + k] * XP[k];
                }
                for (int k = 0; k < m; ++k) {
                    vq += pt->minv[r] * pt->G[k * n + r] * XL[k];
                    hq += pt->Hql[r * m + k] * XL[k];
                }
                dq += s->tab.b[j] * vq;
                dp += s->tab.b[j] * hq;
            }
            Phi[r * n2 + c] = (r == c ? 1.0 : 0.0) + h * dq;
            Phi[(n + r) * n2 + c] = (n + r == c ? 1.0 : 0.0) - h * dp;
        }
    return SP_OK;
}
