/* The system of the round-sphere condensed solver (sp_round.h): the knot states, one
 * sweep over every segment with the rows of the pinned or free layout, the start and end
 * residuals, the band's factors, and the knot frames of the unknowns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/round_internal.h"

/* The rotation by the smallest angle taking the unit vector a to b, applied to g from the
 * left: the lift, carried across a segment by the integrator, is put back onto the knot
 * exactly (g y0 = y_i), a correction of the order of the integration error. */
void sp_rs_align(const double *a, const double *b, double *g)
{
    double k[3], R[9], out[9];
    sp_cross(a, b, k);
    /* sine and cosine of the angle (a and b need not be unit vectors: R must be a rotation) */
    const double ab = sp_vec_norm(3, a) * sp_vec_norm(3, b);
    const double s = sp_vec_norm(3, k) / ab, c = dot3(a, b) / ab;
    if (!(s > 0.0)) return;
    for (int q = 0; q < 3; ++q) k[q] /= s * ab;
    const double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    double K2[9];
    sp_mat_mul(3, 3, 3, K, K, K2);
    for (int q = 0; q < 9; ++q) R[q] = (q % 4 == 0 ? 1.0 : 0.0) + s * K[q] + (1.0 - c) * K2[q];
    sp_mat_mul(3, 3, 3, R, g, out);
    memcpy(g, out, sizeof out);
}

/* The knot points and bases of the unknowns w. A free knot's point is y(p) = (ŷ + P)/|ŷ + P|,
 * P = p1 e1 + p2 e2, and its basis the reference basis turned by the least rotation taking ŷ
 * to y(p): to first order in p, y = ŷ + P and δe_k = −ŷ p_k, which the Jacobian uses (it is
 * taken at p = 0, the references moved onto the knots after every step: rebase). */
void sp_rs_frames(round_solver *e, const double *w)
{
    const size_t n = (size_t)e->K + 1;
    if (!e->free_knots) {
        memcpy(e->Yc, e->Y, n * 3 * sizeof *e->Yc), memcpy(e->Ec, e->E, n * 6 * sizeof *e->Ec);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const double *yh = e->Y + 3 * i, *E = e->E + 6 * i, *p = w + e->nw * i + FP;
        double z[3], G[9];
        for (int k = 0; k < 3; ++k) z[k] = yh[k] + p[0] * E[k] + p[1] * E[3 + k];
        const double s = sp_vec_norm(3, z);
        for (int k = 0; k < 3; ++k) {
            e->Yc[3 * i + k] = z[k] / s;
            G[3 * k] = E[k], G[3 * k + 1] = E[3 + k], G[3 * k + 2] = yh[k];
        }
        sp_rs_align(yh, e->Yc + 3 * i, G);
        for (int k = 0; k < 3; ++k) e->Ec[6 * i + k] = G[3 * k], e->Ec[6 * i + 3 + k] = G[3 * k + 1];
    }
}

/* The embedded state leaving knot i (cost 0), in the frames of the unknowns last swept; a
 * pinned knot's j is μ_i of mu (none: 0), a free knot's its own μ. */
void sp_rs_knot_state(const round_solver *e, const double *w, const double *mu, int i, double *x)
{
    memset(x, 0, SP_RS_PLAIN * sizeof *x);
    sp_vec_copy(3, e->Yc + 3 * i, x + SP_RS_Y);
    from_basis(e, i, w + e->nw * i + FV, x + SP_RS_V);
    from_basis(e, i, w + e->nw * i + FA, x + SP_RS_A);
    if (e->free_knots) from_basis(e, i, w + e->nw * i + FM, x + SP_RS_J);
    else if (mu) from_basis(e, i, mu + NG * i, x + SP_RS_J);
}

/* The knot states leaving knots 0 … K−1, NX each. */
void sp_rs_knot_states(const round_solver *e, const double *w, const double *mu, double *out)
{
    for (int i = 0; i < e->K; ++i) {
        double x[SP_RS_PLAIN];
        sp_rs_knot_state(e, w, mu, i, x);
        memcpy(out + (size_t)NX * i, x, NX * sizeof *x);
    }
}

/* Inverts the 2 x 2 matrix A in place; -1 if singular. */
static int invert2(double *A)
{
    const double d = A[0] * A[3] - A[1] * A[2];
    if (!(fabs(d) > 0.0) || !isfinite(d)) return -1;
    const double a = A[0];
    A[0] = A[3] / d, A[1] = -A[1] / d, A[2] = -A[2] / d, A[3] = a / d;
    return 0;
}

typedef struct sweep_job {
    round_solver *e;
    const int *steps;
    const double *w, *mu;
    int linearise;
    double *nodes; /* NX per node, or NULL */
} sweep_job;

/* The pinned layout's rows of segment i from its end state x and tangent columns dx
 * (δv, δa of w_i, then δj of μ_i): the position rows condensed away (sp_round.h). */
static sp_status pinned_rows(const sweep_job *job, int i, const double *x, const double *dx)
{
    round_solver *e = job->e;
    double *r = e->r + (size_t)(NG + NW) * i, d[3];
    const double *w1 = job->w + NW * (i + 1);
    for (int k = 0; k < 3; ++k) d[k] = x[SP_RS_Y + k] - e->Yc[3 * (i + 1) + k];
    to_basis(e, i + 1, d, r);
    to_basis(e, i + 1, x + SP_RS_V, r + NG);
    to_basis(e, i + 1, x + SP_RS_A, r + NG + 2);
    double worst = 0.0;
    for (int k = 0; k < NW; ++k) r[NG + k] -= w1[k];
    /* the tangential part of the mismatch: its normal part is the step's drift off the
     * sphere (its local error, which the error estimate measures), not a condition */
    worst = fmax(worst, fmax(fabs(r[0]), fabs(r[1])));
    for (int k = 0; k < NW; ++k) worst = fmax(worst, fabs(r[NG + k]) / fmax(1.0, fabs(w1[k])));
    e->seg_worst[i] = worst;
    if (!job->linearise) return SP_OK;
    segment *sg = &e->seg[i];
    const double *E1 = e->Ec + 6 * (i + 1);
    double A[NG * COLS], Bw[NW * NW];
    for (int c = 0; c < COLS; ++c) {
        const double *col = dx + c * NX;
        for (int a = 0; a < NG; ++a) A[a * COLS + c] = dot3(E1 + 3 * a, col + SP_RS_Y);
        for (int a = 0; a < NW; ++a) {
            const double s = dot3(E1 + 3 * (a % 2), col + (a < 2 ? SP_RS_V : SP_RS_A));
            if (c < NW)
                Bw[a * NW + c] = s;
            else
                sg->Bmu[a * NG + (c - NW)] = s;
        }
    }
    for (int a = 0; a < NG; ++a) {
        for (int c = 0; c < NW; ++c) sg->Aw[a * NW + c] = A[a * COLS + c];
        for (int c = 0; c < NG; ++c) sg->Ainv[a * NG + c] = A[a * COLS + NW + c];
    }
    if (invert2(sg->Ainv) != 0) return SP_ERR_SINGULAR;
    /* rows NG + NW·i …: −Φ δw_i + δw_{i+1} */
    sp_band_add_transfer(e->band, NG + NW * i, NW * i, NG, NW, sg->Ainv, sg->Aw, sg->Bmu, Bw);
    return SP_OK;
}

/* The free layout's rows of segment i, in the basis of knot i+1 (all tangential):
 *     v_end − v_{i+1},  a_end − a_{i+1},  y_end (its components along the basis of y(p_{i+1}),
 *     which is normal to them: the position match),
 * and at a pinned keyframe p_{i+1} = 0, else the jump j_end + P(y_i)/σ² − μ_{i+1} (the target
 * term of a weighted keyframe: methods §3.4e; none at the tail's end). The band gets −∂r,
 * the columns of x_i from the tangent columns dx, those of x_{i+1} from the frame's first
 * order δe_k = −ŷ δp_k: ∂⟨e_k, u⟩/∂p_m = −δ_km ⟨ŷ, u⟩. */
static sp_status free_rows(const sweep_job *job, int i, const double *x, const double *dx)
{
    round_solver *e = job->e;
    double *r = e->r + (size_t)FW * i;
    const double *w1 = job->w + FW * (i + 1), *y1 = e->Yc + 3 * (i + 1);
    const int keyframe = i + 1 <= e->targets, pinned = keyframe && e->inv_s2 == 0.0;
    const double *target = keyframe ? e->target + 3 * i : NULL;
    double jt[3] = {0, 0, 0}; /* j_end plus the target's pull */
    for (int k = 0; k < 3; ++k) jt[k] = x[SP_RS_J + k] + (target && !pinned ? e->inv_s2 * target[k] : 0.0);
    to_basis(e, i + 1, x + SP_RS_V, r + FV);
    to_basis(e, i + 1, x + SP_RS_A, r + FA);
    to_basis(e, i + 1, x + SP_RS_Y, r + FP);
    to_basis(e, i + 1, jt, r + FM);
    double worst = 0.0;
    for (int k = 0; k < 2; ++k) {
        r[FV + k] -= w1[FV + k], r[FA + k] -= w1[FA + k];
        if (pinned) r[FM + k] = w1[FP + k];
        else r[FM + k] -= w1[FM + k];
        worst = fmax(worst, fabs(r[FP + k]));
        worst = fmax(worst, fabs(r[FV + k]) / fmax(1.0, fabs(w1[FV + k])));
        worst = fmax(worst, fabs(r[FA + k]) / fmax(1.0, fabs(w1[FA + k])));
        /* the jump's terms are of the size of 1/σ², to round-off of that size: measured as the
         * miss σ²(μ − j_end) it sets, to which it is equivalent */
        worst = fmax(worst, fabs(r[FM + k]) / fmax(fmax(1.0, fabs(w1[FM + k])), e->inv_s2));
    }
    e->seg_worst[i] = worst;
    if (!job->linearise) return SP_OK;
    const double *E1 = e->Ec + 6 * (i + 1);
    const int row = e->nb + FW * i;
    static const int part[4] = {SP_RS_V, SP_RS_A, SP_RS_Y, SP_RS_J}; /* of the rows FV, FA, FP, FM */
    for (int a = 0; a < FW; ++a) {
        const int q = a / 2;
        if (!(pinned && q == 3))
            for (int c = 0; c < FW; ++c)
                sp_band_add(e->band, row + a, FW * i + c, -dot3(E1 + 3 * (a % 2), dx + c * NX + part[q]));
    }
    const double along[4] = {dot3(y1, x + SP_RS_V), dot3(y1, x + SP_RS_A), dot3(y1, x + SP_RS_Y), dot3(y1, jt)};
    for (int k = 0; k < 2; ++k) {
        const int col = FW * (i + 1);
        for (int q = 0; q < 3; ++q) sp_band_add(e->band, row + 2 * q + k, col + FP + k, along[q]);
        sp_band_add(e->band, row + FV + k, col + FV + k, 1.0);
        sp_band_add(e->band, row + FA + k, col + FA + k, 1.0);
        if (pinned) {
            sp_band_add(e->band, row + FM + k, col + FP + k, -1.0);
        } else {
            sp_band_add(e->band, row + FM + k, col + FP + k, along[3]);
            sp_band_add(e->band, row + FM + k, col + FM + k, 1.0);
        }
    }
    return SP_OK;
}

static sp_status sweep_segment(const sweep_job *job, int i)
{
    round_solver *e = job->e;
    const int linearise = job->linearise, cols = e->free_knots ? FW : COLS;
    double x[SP_RS_PLAIN], dx[SP_RS_MAX_COLS * NX];
    sp_rs_knot_state(e, job->w, job->mu, i, x);
    if (linearise) {
        /* columns, each along a basis vector e_k: δv (2), δa (2) of w_i, then δj (2) of μ_i
         * (pinned), or δp (2) and δμ (2) (free: y moves along e_k, and the vectors, kept
         * tangent, by −ŷ times their k-th coordinate) */
        memset(dx, 0, sizeof dx);
        const double *E = e->Ec + 6 * i, *yh = e->Yc + 3 * i;
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k) {
                dx[c * NX + SP_RS_V + k] = E[3 * c + k];
                dx[(2 + c) * NX + SP_RS_A + k] = E[3 * c + k];
                if (!e->free_knots) {
                    dx[(4 + c) * NX + SP_RS_J + k] = E[3 * c + k];
                    continue;
                }
                const double *wi = job->w + FW * i;
                double *dp = dx + (FP + c) * NX;
                dp[SP_RS_Y + k] = E[3 * c + k];
                dp[SP_RS_V + k] = -yh[k] * wi[FV + c];
                dp[SP_RS_A + k] = -yh[k] * wi[FA + c];
                dp[SP_RS_J + k] = -yh[k] * wi[FM + c];
                dx[(FM + c) * NX + SP_RS_J + k] = E[3 * c + k];
            }
    }
    const int steps = job->steps[i];
    const double h = (e->tk[i + 1] - e->tk[i]) / steps;
    double *node = job->nodes ? job->nodes + NX * e->first_node[i] : NULL;
    for (int k = 0; k < steps; ++k) {
        if (node) memcpy(node, x, NX * sizeof *x), node += NX;
        sp_status st = sp_round_sphere_step(&e->rk, h, x, x, 0, linearise ? cols : 0, dx);
        if (st != SP_OK) return st;
    }
    memcpy(e->xend + (size_t)NX * i, x, NX * sizeof *x);
    e->seg_run[i] = x[SP_RS_COST];
    return e->free_knots ? free_rows(job, i, x, dx) : pinned_rows(job, i, x, dx);
}

static sp_status sweep_piece(void *ctx, int begin, int end, int worker)
{
    (void)worker; /* the stepper is a table read by every thread */
    const sweep_job *job = ctx;
    for (int i = begin; i < end; ++i) {
        sp_status st = sweep_segment(job, i);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

/* The start and end rows: their residual (what the plan sets to zero) and columns. */
/* The start and end rows: their residual (what the plan sets to zero) and columns. The
 * start: v_0 prescribed or a_0 = 0 (free), and with free knots p_0 = 0 (y(0) is given). The
 * end: v_K = 0 at rest or a_K = 0 (natural), and with free knots μ_K = 0 (nothing pulls
 * past T: with a weighted keyframe at T, μ_K holds its jump). */
static int start_column(const round_solver *e, int k)
{
    return k < 2 ? (e->pb->plan.xi0_free ? FA + k : FV + k) : FP + k - 2;
}
double sp_rs_start_residual(const round_solver *e, const double *w, int k)
{
    double c[2];
    to_basis(e, 0, e->start_v, c);
    return w[start_column(e, k)] - (k < 2 && !e->pb->plan.xi0_free ? c[k] : 0.0);
}
static int end_column(const round_solver *e, int k)
{
    return e->nw * e->K + (k < 2 ? (e->pb->plan.has_xiT ? FV + k : FA + k) : FM + k - 2);
}
double sp_rs_end_residual(const round_solver *e, const double *w, int k) { return w[end_column(e, k)]; }

/* One sweep over every segment from (w, μ): the residuals, the largest scaled one, the
 * cost; with `linearise` the condensed band (unfactored) and the segments' blocks. */
/* LU of the condensed band, its time counted in e->times. */
sp_status sp_rs_factor(round_solver *e)
{
    const double t0 = sp_clock_seconds();
    sp_status st = sp_band_factor(e->band);
    e->jacobians++;
    e->times.linear_algebra += sp_clock_seconds() - t0;
    return st;
}

sp_status sp_rs_sweep(round_solver *e, const int *steps, const double *w, const double *mu, int linearise,
                       double *scaled, double *cost, double *nodes)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    if (linearise) sp_band_zero(e->band);
    sp_rs_frames(e, w);
    e->first_node[0] = 0;
    for (int i = 0; i < e->K; ++i) e->first_node[i + 1] = e->first_node[i] + (size_t)steps[i];
    for (int i = 0; i < e->K; ++i) e->cost[i] = steps[i] * (linearise ? (e->free_knots ? 8 : 6) : 1);
    sweep_job job = {.e = e, .steps = steps, .w = w, .mu = mu, .linearise = linearise, .nodes = nodes};
    sp_status st = sp_parallel_run(e->workers, e->K, e->cost, sweep_piece, &job);
    e->sweeps++;
    if (st != SP_OK) return st;
    double worst = 0.0, run = 0.0;
    for (int i = 0; i < e->K; ++i) run += e->seg_run[i], worst = fmax(worst, e->seg_worst[i]);
    if (nodes) {
        double x[SP_RS_PLAIN];
        sp_rs_knot_state(e, w, NULL, e->K, x);
        memcpy(nodes + NX * e->first_node[e->K], x, NX * sizeof *x);
    }
    for (int k = 0; k < e->nb; ++k) {
        worst = fmax(worst, fmax(fabs(sp_rs_start_residual(e, w, k)), fabs(sp_rs_end_residual(e, w, k))));
        if (linearise) {
            sp_band_add(e->band, k, start_column(e, k), 1.0);
            sp_band_add(e->band, e->nb + e->nw * e->K + k, end_column(e, k), 1.0);
        }
    }
    /* the target terms E_i = |y − y_i|²/(2σ²) at the knots (sp_cubic_target_cost's) */
    e->target_cost = 0.0;
    for (int i = 0; e->inv_s2 > 0.0 && i < e->targets; ++i) {
        const double d = sp_vec_dist(3, e->Yc + 3 * (i + 1), e->target + 3 * i);
        e->target_cost += 0.5 * d * d * e->inv_s2;
    }
    *scaled = worst, *cost = run + e->target_cost;
    *(linearise ? &e->times.derivative_sweeps : &e->times.plain_sweeps) += sp_clock_seconds() - t0;
    return isfinite(run) && isfinite(worst) ? SP_OK : SP_ERR_NONFINITE;
}


/* The correction (δw, δμ) from the kept factors and the residuals of the last sweep (with
 * free knots nothing is condensed: ne = 0). */
