/* Forward sweep with kicks and its discrete adjoint, written against the group
 * interface. */
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/cubic/sp_shooting.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

struct sp_shooting {
    const sp_problem *pb;
    const sp_group *G;
    sp_hohp *stepper;
    int N, n;
    sp_plan_grid grid;
    sp_hohp_state *state; /* N+1 states of the last sweep that recorded them */
    double *target_g;     /* g at each target, for the adjoint's kicks */
    sp_hohp_interval *tape;
    double *kick;
    double running_cost;
    double residual[2 * SP_LIE_MAX_DIM];
    sp_shooting_timing timing;
};

sp_shooting *sp_shooting_alloc(const sp_problem *pb)
{
    sp_shooting *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->pb = pb;
    s->G = pb->cubic.group;
    s->N = pb->steps;
    s->n = s->G->dim;
    sp_hohp_config cfg = {.group = s->G,
                          .retraction = pb->retraction,
                          .theta = pb->scheme->theta,
                          .solver = pb->solver,
                          .solve = {.tol = pb->solver_tol, .max_iter = 50}};
    size_t N = (size_t)s->N;
    s->stepper = sp_hohp_alloc(&cfg);
    s->state = malloc((N + 1) * sizeof *s->state);
    s->tape = malloc(N * sizeof *s->tape);
    s->kick = calloc(pb->cubic.n_targets * (size_t)s->n, sizeof *s->kick);
    s->target_g = calloc(pb->cubic.n_targets * (size_t)s->G->elem_size, sizeof *s->target_g);
    if (!s->stepper || sp_plan_grid_init(&s->grid, &pb->cubic, pb->T, s->N) != SP_OK || !s->state || !s->tape ||
        !s->kick || !s->target_g) {
        sp_shooting_free(s);
        return NULL;
    }
    return s;
}

void sp_shooting_free(sp_shooting *s)
{
    if (!s) return;
    sp_hohp_free(s->stepper);
    sp_plan_grid_free(&s->grid);
    free(s->state);
    free(s->tape);
    free(s->kick);
    free(s->target_g);
    free(s);
}

int sp_shooting_dim(const sp_shooting *s) { return 2 * s->n; }
int sp_shooting_steps(const sp_shooting *s) { return s->N; }

/* What a forward sweep keeps: nothing (cost only), what the adjoint needs (the steps'
 * interval records, g and the kick at each target), or that and every state. */
typedef enum { RECORD_NOTHING, RECORD_TAPE, RECORD_STATES } record_level;

static sp_status forward(sp_shooting *s, const double *x, record_level record, double *J)
{
    const sp_group *G = s->G;
    const sp_cubic_spline *c = &s->pb->cubic;
    const int n = s->n;
    double t0 = sp_clock_seconds();
    sp_hohp_state z;
    sp_vec_copy(G->elem_size, s->pb->g0, z.g);
    sp_vec_copy(n, s->pb->xi0, z.xi);
    sp_vec_copy(n, x, z.nu);
    sp_vec_copy(n, x + n, z.p);
    double running = 0.0, penalty = 0.0;
    sp_status st = SP_OK;
    if (record == RECORD_STATES) s->state[0] = z;
    for (int k = 0; k < s->N && st == SP_OK; ++k) {
        sp_hohp_interval local, *iv = record ? &s->tape[k] : &local;
        st = sp_hohp_step(s->stepper, s->grid.h[k], &z, &z, iv);
        if (st != SP_OK) break;
        running += 0.5 * s->grid.h[k] * sp_vec_dot(n, iv->pi, iv->pi);
        if (record == RECORD_STATES) s->state[k + 1] = z;
        int i = s->grid.target_at[k + 1];
        if (i >= 0) {
            double grad[SP_LIE_MAX_DIM];
            penalty += sp_cubic_target_cost(c, (size_t)i, z.g);
            sp_cubic_target_gradient(c, (size_t)i, z.g, grad);
            sp_vec_axpy(n, 1.0, grad, z.nu);
            if (record) {
                sp_vec_copy(n, grad, s->kick + (size_t)i * n);
                sp_vec_copy(G->elem_size, z.g, s->target_g + (size_t)i * G->elem_size);
            }
        }
    }
    *J = running + penalty;
    if (st == SP_OK && !isfinite(*J)) st = SP_ERR_NONFINITE;
    if (record) {
        s->running_cost = running;
        sp_vec_copy(n, z.nu, s->residual);
        sp_vec_copy(n, z.p, s->residual + n);
    }
    s->timing.forward_seconds += sp_clock_seconds() - t0;
    s->timing.forward_sweeps++;
    return st;
}

sp_status sp_shooting_cost(sp_shooting *s, const double *x, double *J) { return forward(s, x, RECORD_NOTHING, J); }

sp_status sp_shooting_trajectory(sp_shooting *s, const double *x, double *J) { return forward(s, x, RECORD_STATES, J); }

/* Adds the target terms at step k to λ_g: ∇E_i(g_k) + K_iᵀ λ_ν. */
static void adjoint_kick(const sp_shooting *s, int k, double *lam_g, const double *lam_nu)
{
    int i = s->grid.target_at[k];
    if (i < 0) return;
    double grad[SP_LIE_MAX_DIM], kt[SP_LIE_MAX_DIM];
    const double *g = s->target_g + (size_t)i * s->G->elem_size;
    sp_cubic_target_gradient(&s->pb->cubic, (size_t)i, g, grad);
    sp_cubic_target_jacobian_T(&s->pb->cubic, (size_t)i, g, lam_nu, kt);
    for (int j = 0; j < s->n; ++j) lam_g[j] += grad[j] + kt[j];
}

/* One backward step k of the exact transpose of the linearised sweep,
 * in group-generic form: Rλ becomes Ad*_{R⁻¹}λ or Ad_R λ, and (Rλ_ν) × ν becomes
 * −ad*_{Ad_R λ_ν} ν. Instantiated for n = 3 and for any n. */
static SP_ALWAYS_INLINE sp_status adjoint_step(const sp_shooting *s, const sp_hohp_interval *iv, double *lg, double *lx,
                                               double *ln, double *lp, const int n)
{
    const sp_group *G = s->G;
    const double th = s->pb->scheme->theta, a = 1.0 - th;
    const double h = iv->h, h3 = h * h * h;
    double b_pi[SP_LIE_MAX_DIM], b_mu[SP_LIE_MAX_DIM], u[SP_LIE_MAX_DIM], v[SP_LIE_MAX_DIM];
    double c_D[SP_LIE_MAX_DIM], w[SP_LIE_MAX_DIM], R_inv[SP_LIE_MAX_ELEM], Rln[SP_LIE_MAX_DIM];
    double D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    s->pb->retraction->dtau_T_deriv(G, iv->delta, iv->nu, D);
    for (int j = 0; j < n; ++j) {
        b_pi[j] = lp[j] + h * iv->pi[j];
        b_mu[j] = -h * th * lp[j] - h * a * b_pi[j];
    }
    /* λ_g' = Ad*_{R⁻¹} λ_g; u = λ_g' − ad*_{Ad_R λ_ν} ν_k */
    G->inverse(G, iv->R, R_inv);
    G->Ad_star(G, R_inv, lg, lg);
    G->Ad(G, iv->R, ln, Rln);
    G->ad_star(G, Rln, iv->nu, v);
    for (int j = 0; j < n; ++j) u[j] = lg[j] - v[j];
    /* c_D = Bᵀu + Dᵀb_μ */
    sp_mat_tvec(n, n, iv->B, u, c_D);
    sp_mat_tvec(n, n, D, b_mu, v);
    sp_vec_axpy(n, 1.0, v, c_D);
    /* w = A⁻ᵀ(λ_ξ + hθ c_D), A = I + h³θ(1−θ)D */
    for (int j = 0; j < n; ++j) w[j] = lx[j] + h * th * c_D[j];
    if (th > 0.0 && th < 1.0) {
        double A[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
        int piv[SP_LIE_MAX_DIM];
        for (int j = 0; j < n * n; ++j) A[j] = h3 * th * a * D[j];
        for (int j = 0; j < n; ++j) A[j * n + j] += 1.0;
        sp_status st = sp_linsolve(n, A, w, 1, piv, 1);
        if (st != SP_OK) return st;
    }
    /* λ_ν' = Ad_R λ_ν + B(b_μ − h²(1−θ)w) */
    for (int j = 0; j < n; ++j) v[j] = b_mu[j] - h * h * a * w[j];
    sp_mat_vec(n, n, iv->B, v, ln);
    sp_vec_axpy(n, 1.0, Rln, ln);
    /* λ_p' = b_π + h w;  λ_ξ' = h(1−θ)c_D + (I − h³(1−θ)²D)ᵀ w */
    for (int j = 0; j < n; ++j) lp[j] = b_pi[j] + h * w[j];
    sp_mat_tvec(n, n, D, w, v);
    for (int j = 0; j < n; ++j) lx[j] = h * a * c_D[j] + w[j] - h3 * a * a * v[j];
    return SP_OK;
}

static sp_status adjoint(sp_shooting *s, double *grad)
{
    const int n = s->n;
    double t0 = sp_clock_seconds();
    double lg[SP_LIE_MAX_DIM] = {0}, lx[SP_LIE_MAX_DIM] = {0}, ln[SP_LIE_MAX_DIM] = {0}, lp[SP_LIE_MAX_DIM] = {0};
    adjoint_kick(s, s->N, lg, ln);
    sp_status st = SP_OK;
    for (int k = s->N - 1; k >= 0 && st == SP_OK; --k) {
        st = n == 3 ? adjoint_step(s, &s->tape[k], lg, lx, ln, lp, 3) : adjoint_step(s, &s->tape[k], lg, lx, ln, lp, n);
        if (k > 0) adjoint_kick(s, k, lg, ln);
    }
    sp_vec_copy(n, ln, grad);
    sp_vec_copy(n, lp, grad + n);
    if (st == SP_OK && !sp_vec_isfinite(2 * n, grad)) st = SP_ERR_NONFINITE;
    s->timing.adjoint_seconds += sp_clock_seconds() - t0;
    s->timing.adjoint_sweeps++;
    return st;
}

sp_status sp_shooting_gradient(sp_shooting *s, const double *x, double *J, double *grad)
{
    sp_status st = forward(s, x, RECORD_TAPE, J);
    return st != SP_OK ? st : adjoint(s, grad);
}

const sp_hohp_state *sp_shooting_states(const sp_shooting *s) { return s->state; }
const double *sp_shooting_times(const sp_shooting *s) { return s->grid.t; }
const int *sp_shooting_target_steps(const sp_shooting *s) { return s->grid.target_step; }
const double *sp_shooting_kicks(const sp_shooting *s) { return s->kick; }
double sp_shooting_running_cost(const sp_shooting *s) { return s->running_cost; }
void sp_shooting_terminal_residual(const sp_shooting *s, double *residual)
{
    sp_vec_copy(2 * s->n, s->residual, residual);
}
sp_shooting_timing sp_shooting_get_timing(const sp_shooting *s) { return s->timing; }
