/* Exact interpolation by the order-8 scheme in condensed form (see sp_exact.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "integrators/sp_hohp_rk.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_exact.h"
#include "planner/cubic/sp_keyframe_start.h"
#include "planner/sp_clock.h"
#include "planner/sp_parallel.h"
#include "planner/sp_trust_region.h"

#include "planner/cubic/exact_internal.h"


int sp_exact_applies(const sp_problem *pb)
{
    const sp_cubic_spline *c = &pb->cubic;
    const sp_group *G = c->group;
    /* sphere keyframes may be weighted (their knots then move in every direction) */
    const int sphere = c->space == SP_SPACE_SPHERE && c->metric == SP_SPHERE_ROTATION && G == sp_group_so3;
    const int group = c->space == SP_SPACE_GROUP && c->sigma == 0.0 &&
                      (G == sp_group_so3 || G == sp_group_se3 || G == sp_group_rn(G->dim));
    return pb->task == SP_TASK_PLAN && !pb->plan.pose && (sphere || group) && pb->steps == 0 && pb->scheme->rk_table &&
           pb->plan.method == SP_METHOD_MULTIPLE_SHOOTING && c->n_targets > 0 &&
           sp_cubic_segments(c, pb->T) == c->n_targets;
}



static void exact_free(exact *e)
{
    for (int w = 0; w < SP_PARALLEL_MAX; ++w) sp_hohp_rk_free(e->rk[w]);
    free(e->lift), free(e->turned), free(e->psi), free(e->move_rhs);
    free(e->seg_run), free(e->seg_worst), free(e->cost), free(e->first_node);
    free(e->tk), free(e->R), free(e->w), free(e->mu), free(e->r);
    free(e->ends), free(e->seg), sp_band_free(e->band), free(e->dw), free(e->dmu);
}

static sp_status exact_init(exact *e, const sp_problem *pb)
{
    memset(e, 0, sizeof *e);
    e->pb = pb;
    e->G = pb->cubic.group;
    e->n = e->G->dim;
    e->K = (int)pb->cubic.n_targets;
    const size_t K = (size_t)e->K, n = (size_t)e->n;
    e->workers = sp_parallel_workers();
    int steppers = 1;
    for (int w = 0; w < e->workers; ++w) steppers &= (e->rk[w] = sp_hohp_rk_alloc(e->G, pb->scheme->rk_table)) != NULL;
    e->seg_run = malloc(K * sizeof *e->seg_run);
    e->seg_worst = malloc(K * sizeof *e->seg_worst);
    e->cost = malloc(K * sizeof *e->cost);
    e->first_node = malloc((K + 1) * sizeof *e->first_node);
    e->tk = malloc((K + 1) * sizeof *e->tk);
    e->R = malloc((K + 1) * sizeof *e->R);
    e->w = malloc((K + 1) * 2 * n * sizeof *e->w);
    e->mu = malloc(K * n * sizeof *e->mu);
    e->r = malloc(K * 3 * n * sizeof *e->r);
    e->seg = malloc(K * sizeof *e->seg);
    e->ends = malloc(K * sizeof *e->ends);
    e->dw = malloc((K + 1) * 2 * n * sizeof *e->dw);
    e->dmu = malloc(K * n * sizeof *e->dmu);
    e->move_rhs = malloc(K * n * sizeof *e->move_rhs);
    /* rows: start (n), segment i (2n), end (n); unknowns w_0 … w_K, 2n each */
    e->band = sp_band_alloc((int)((K + 1) * 2 * n), 3 * e->n - 1, 3 * e->n - 1);
    if (!steppers || !e->seg_run || !e->seg_worst || !e->cost || !e->first_node || !e->tk || !e->R || !e->w || !e->mu || !e->r || !e->ends || !e->seg || !e->dw || !e->move_rhs ||
        !e->dmu || !e->band) {
        exact_free(e);
        return SP_ERR_NOMEM;
    }
    e->tk[0] = 0.0, e->R[0] = pb->g0;
    for (size_t i = 0; i < K; ++i) e->tk[i + 1] = pb->cubic.targets[i].t, e->R[i + 1] = pb->cubic.targets[i].R;
    e->spin = pb->cubic.space != SP_SPACE_SPHERE ? 0 : pb->cubic.sigma > 0.0 ? 3 : 1;
    if (e->spin) {
        const size_t es = (size_t)e->G->elem_size;
        sp_vec_copy(3, pb->cubic.y0, e->y0);
        if (e->spin == 1) sp_vec_copy(3, e->y0, e->dir[0]);
        else sp_mat_identity(3, &e->dir[0][0]);
        e->lift = malloc((K + 1) * es * sizeof *e->lift);
        e->turned = malloc((K + 1) * es * sizeof *e->turned);
        e->psi = calloc((K + 1) * (size_t)e->spin, sizeof *e->psi);
        if (!e->lift || !e->turned || !e->psi) {
            exact_free(e);
            return SP_ERR_NOMEM;
        }
        for (size_t i = 0; i <= K; ++i) e->R[i] = e->turned + i * es;
    }
    return SP_OK;
}

/* θ_i = Σ_a θ_ia u_a of a move given by its d coordinates. */
static void move_of(const exact *e, const double *coords, double *theta)
{
    for (int q = 0; q < 3; ++q) {
        theta[q] = 0.0;
        for (int a = 0; a < e->spin; ++a) theta[q] += coords[a] * e->dir[a][q];
    }
}

/* R_i = L_i exp(θ_i) for every knot of a sphere plan. */
static void turn_knots(exact *e)
{
    const size_t es = (size_t)e->G->elem_size;
    for (int i = 0; i <= e->K; ++i) {
        double v[3], E[SP_LIE_MAX_ELEM];
        move_of(e, e->psi + (size_t)e->spin * i, v);
        e->G->exp(e->G, v, E);
        e->G->compose(e->G, e->lift + i * es, E, e->turned + i * es);
    }
}

/* The knot states of the C² spline through the keyframes. */
static sp_status start(exact *e)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    sp_start_curve *c = sp_start_curve_new(e->pb, SP_START_SPLINE);
    if (!c) return SP_ERR_NOMEM;
    const int n = e->n;
    for (int i = 0; i <= e->K; ++i) {
        sp_hohp_state z;
        sp_start_curve_eval(c, e->tk[i], &z);
        /* a sphere keyframe's lift: where the start curve passes (its spin the best of
         * the lift by smallest rotations) */
        if (e->spin) sp_vec_copy(e->G->elem_size, z.g, e->lift + (size_t)e->G->elem_size * i);
        memcpy(e->w + 2 * n * i, z.xi, (size_t)n * sizeof *e->w);
        memcpy(e->w + 2 * n * i + n, z.p, (size_t)n * sizeof *e->w);
        if (i < e->K) memcpy(e->mu + n * i, z.nu, (size_t)n * sizeof *e->mu);
    }
    sp_start_curve_free(c);
    if (e->spin) turn_knots(e);
    e->times.start += sp_clock_seconds() - t0;
    return SP_OK;
}


/* The gradient of a sphere plan's outer cost along the free directions, from the last
 * sweep, into grad (K·d values): −κ_ja + ∂E_j/∂θ_ja, with κ_ja = u_a·(μ_j − μ_end(j−1)) the
 * jump of μ at keyframe j along u_a (in the knot's body frame: the multiplier of the knot's
 * pinning, so ∂J/∂θ_ja = −κ_ja) and E_j the keyframe's target term when it is weighted.
 * For exact interpolation the only free direction is y0, which y(t_j) = y_j does not hold:
 * at an optimum the jump has no y0-component. Returns the largest |grad|. */
static double outer_gradient(const exact *e, double *grad)
{
    const int n = e->n, d = e->spin;
    const sp_cubic_spline *c = &e->pb->cubic;
    double worst = 0.0;
    for (int j = 1; j <= e->K; ++j) {
        double jump[MAXN], dE[3] = {0, 0, 0};
        for (int k = 0; k < n; ++k) jump[k] = (j < e->K ? e->mu[n * j + k] : 0.0) - e->ends[j - 1].nu[k];
        if (c->sigma > 0.0) sp_cubic_target_gradient(c, (size_t)j - 1, elem(e, j), dE);
        for (int a = 0; a < d; ++a) {
            double *g = grad + (size_t)d * (j - 1) + a;
            *g = sp_vec_dot(3, e->dir[a], dE) - sp_vec_dot(n, e->dir[a], jump);
            worst = fmax(worst, fabs(*g));
        }
    }
    return worst;
}

/* The outer cost: the orientation plan's running cost and the weighted keyframes' terms. */
static double outer_cost(const exact *e, double running)
{
    const sp_cubic_spline *c = &e->pb->cubic;
    for (int j = 1; c->sigma > 0.0 && j <= e->K; ++j) running += sp_cubic_target_cost(c, (size_t)j - 1, elem(e, j));
    return running;
}

/* The scale of the kicks' tolerance: the largest momentum at a knot (at least 1). */
static double momentum_scale(const exact *e)
{
    double s = 1.0;
    for (size_t k = 0; k < (size_t)e->n * e->K; ++k) s = fmax(s, fabs(e->mu[k]));
    return s;
}

/* The band kept of the outer Hessian: its entries fall by about a factor 4 per keyframe
 * away from the diagonal (the reach of a cubic spline's keyframe), so 30 keyframes away
 * they are below the round-off of the diagonal's. */
#define TURN_BAND 30

/* What a rejected trial of turns() puts back. */
typedef struct turn_keep {
    double *w, *mu, *r;
    segment *seg;
    sp_band *band;
} turn_keep;

static void keep_free(turn_keep *k) { free(k->w), free(k->mu), free(k->r), free(k->seg), sp_band_free(k->band); }

static sp_status keep_alloc(turn_keep *k, const exact *e)
{
    const size_t K = (size_t)e->K, n = (size_t)e->n;
    k->w = malloc((K + 1) * 2 * n * sizeof *k->w);
    k->mu = malloc(K * n * sizeof *k->mu);
    k->r = malloc(K * 3 * n * sizeof *k->r);
    k->seg = malloc(K * sizeof *k->seg);
    k->band = sp_band_alloc((int)((K + 1) * 2 * n), 3 * e->n - 1, 3 * e->n - 1);
    if (k->w && k->mu && k->r && k->seg && k->band) return SP_OK;
    keep_free(k);
    return SP_ERR_NOMEM;
}

/* Copies the solver's point and linearisation into k (`save`) or back (the knots then
 * return to their last accepted elements). */
static void keep_swap(exact *e, turn_keep *k, int save)
{
    const size_t K = (size_t)e->K, n = (size_t)e->n;
    struct { void *mine, *kept; size_t bytes; } part[] = {
        {e->w, k->w, (K + 1) * 2 * n * sizeof *k->w}, {e->mu, k->mu, K * n * sizeof *k->mu},
        {e->r, k->r, K * 3 * n * sizeof *k->r},       {e->seg, k->seg, K * sizeof *k->seg}};
    for (size_t q = 0; q < sizeof part / sizeof part[0]; ++q)
        memcpy(save ? part[q].kept : part[q].mine, save ? part[q].mine : part[q].kept, part[q].bytes);
    sp_band_copy(save ? k->band : e->band, save ? e->band : k->band);
    if (!save) {
        memset(e->psi, 0, (K + 1) * (size_t)e->spin * sizeof *e->psi);
        turn_knots(e);
    }
}

/* The knots' move accepted: the moved elements become the lifts (θ = 0 again). */
static void accept_move(exact *e)
{
    const size_t K = (size_t)e->K;
    memcpy(e->lift, e->turned, (K + 1) * (size_t)e->G->elem_size * sizeof *e->lift);
    memset(e->psi, 0, (K + 1) * (size_t)e->spin * sizeof *e->psi);
}

/* The knot states of a trial moved by δθ, from Newton's linear prediction (δw, δμ): every
 * body vector v of knot i (ξ_i, π_i, μ_i) becomes exp(−δθ_i)(v + δv + δθ_i×v), which
 * agrees with v + δv to first order but turns the frame exactly. Trials turn knots by
 * radians, and the frame's turn is what the linear prediction gets wrong there. */
static void predict_turned(exact *e, const double *dpsi)
{
    const int n = e->n;
    for (int i = 0; i <= e->K; ++i) {
        double v[3], E[SP_LIE_MAX_ELEM];
        move_of(e, dpsi + (size_t)e->spin * i, v);
        double minus[3] = {-v[0], -v[1], -v[2]};
        e->G->exp(e->G, minus, E); /* exp(−δθ_i) */
        double *vec[3] = {e->w + 2 * n * i, e->w + 2 * n * i + n, i < e->K ? e->mu + n * i : NULL};
        const double *dv[3] = {e->dw + 2 * n * i, e->dw + 2 * n * i + n, i < e->K ? e->dmu + n * i : NULL};
        for (int k = 0; k < 3 && vec[k]; ++k) {
            double x[3], u[3];
            sp_cross(v, vec[k], x);
            for (int q = 0; q < 3; ++q) u[q] = vec[k][q] + dv[k][q] + x[q];
            sp_mat_vec(3, 3, E, u, vec[k]);
        }
    }
}

/* Sphere plans: the knots' moves along the free directions, by Newton's method with a
 * trust region on the outer cost J(θ), the running cost of the orientation plan through
 * the moved knots (which sp_exact_newton() solves at every θ) plus the weighted keyframes' terms.
 *
 * Why not Newton on the whole system: J hardly changes under slow twists of the curve
 * about its points, so its Hessian has eigenvalues from tens down to 1e-4 and, away from
 * the optimum, a few negative ones; Newton's steps along those directions are tens of
 * radians, and the whole system's model is wrong there. The outer problem sees each trial
 * through its true cost: the gradient is outer_gradient(), the Hessian its derivative with
 * every other unknown re-solved (a band of it: a solve with the kept factors per direction
 * for every 61 keyframes' columns) plus the target terms' own, and the trust-region step
 * (sp_trust_region.h) follows negative curvature instead of climbing it. A step is kept
 * when J falls by at least a tenth of what the model promised; each kept step lowers J, so
 * the plan never costs more than the orientation plan through the start's knots (for
 * weighted keyframes, the exact lift, whose target terms vanish). Near the optimum the
 * steps are Newton's and converge quadratically. */
static sp_status turns(exact *e, const int *steps, int have_factors, double tol, const sp_progress *progress,
                       int *converged, double *residual, double *running, sp_hohp_state *nodes)
{
    const int K = e->K, d = e->spin, m = K * d, reach = K - 1 < TURN_BAND ? K - 1 : TURN_BAND;
    const int kd = (reach + 1) * d - 1, stride = 2 * reach + 1;
    const size_t nwk = (size_t)(2 * e->n * (K + 1)), nm = (size_t)(e->n * K), band = (size_t)(kd + 1) * m;
    const sp_cubic_spline *cs = &e->pb->cubic;
    double *H = malloc(band * sizeof *H), *grad = malloc((size_t)m * sizeof *grad);
    double *p = malloc((size_t)m * sizeof *p), *dpsi = calloc((size_t)(K + 1) * d, sizeof *dpsi);
    double *col = malloc((size_t)m * sizeof *col), *scratch = malloc((size_t)m * sizeof *scratch);
    double *tw = malloc(nwk * sizeof *tw), *tmu = malloc((nm ? nm : 1) * sizeof *tmu);
    turn_keep keep = {0};
    sp_status st = H && grad && p && dpsi && col && scratch && tw && tmu ? keep_alloc(&keep, e) : SP_ERR_NOMEM;
    /* the trials compare costs, which a residual r leaves uncertain by about r: the orientation
     * plans are solved well below the tolerance (a sweep or two more each) */
    const double inner_tol = fmax(1e-3 * tol, 1e-12);
    int inner = 0;
    *converged = 0;
    if (st == SP_OK) st = sp_exact_newton(e, steps, have_factors, inner_tol, progress, &inner, residual, running, nodes);
    inner = inner || *residual <= tol;
    double radius = 0.5; /* radians of turn */
    for (int outer = 0; st == SP_OK && inner; ++outer) {
        const double worst = outer_gradient(e, grad);
        if (*residual <= tol && worst <= tol * momentum_scale(e)) {
            *converged = 1;
            break;
        }
        if (outer >= 200) break;
        if (sp_progress_stopped(progress)) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        double res, J;
        st = sp_exact_sweep(e, steps, e->w, e->mu, 1, &res, &J, NULL);
        if (st == SP_OK) st = sp_exact_factor(e);
        if (st != SP_OK) break;
        J = outer_cost(e, J);
        /* the Hessian's band, from the kicks' response to unit moves: columns of knots
         * l ≡ c (mod 2·reach + 1) along one direction share a solve (their bands do not
         * overlap, and each column's tail beyond `reach` keyframes is below round-off); each
         * pair averages the two columns' values (symmetry) */
        memset(H, 0, band * sizeof *H);
        for (int c = 0; st == SP_OK && c < stride && c < K; ++c)
            for (int a = 0; st == SP_OK && a < d; ++a) {
                for (int l = c; l < K; l += stride) dpsi[(size_t)d * (l + 1) + a] = 1.0;
                st = sp_exact_respond(e, e->w, 0, dpsi, tw, tmu, col);
                for (int l = c; l < K; l += stride) {
                    dpsi[(size_t)d * (l + 1) + a] = 0.0;
                    const int u = l * d + a;
                    for (int j = l - reach > 0 ? l - reach : 0; j <= l + reach && j < K; ++j)
                        for (int b = 0; b < d; ++b) {
                            const int r = j * d + b;
                            H[sp_sym_band_index(kd, r < u ? r : u, r < u ? u : r)] -= (r == u ? 1.0 : 0.5) * col[r];
                        }
                }
            }
        /* the weighted keyframes' own: the derivative K_j of ∇E_j, symmetrised */
        for (int j = 0; cs->sigma > 0.0 && j < K; ++j)
            for (int a = 0; a < d; ++a) {
                double Ka[3];
                sp_cubic_target_jacobian_T(cs, (size_t)j, elem(e, j + 1), e->dir[a], Ka); /* Kᵀu_a */
                for (int b = 0; b < d; ++b) {
                    const int r = j * d + a, u = j * d + b;
                    H[sp_sym_band_index(kd, r < u ? r : u, r < u ? u : r)] +=
                        (r == u ? 1.0 : 0.5) * sp_vec_dot(3, Ka, e->dir[b]);
                }
            }
        keep_swap(e, &keep, 1);
        int accepted = 0;
        for (int trial = 0; st == SP_OK && !accepted && trial < 10; ++trial) {
            sp_trust_step info;
            const double t0 = sp_clock_seconds();
            st = sp_trust_region_step(m, kd, H, grad, radius, p, &info);
            e->times.linear_algebra += sp_clock_seconds() - t0;
            if (st != SP_OK) break;
            memcpy(dpsi + d, p, (size_t)m * sizeof *p);
            st = sp_exact_respond(e, e->w, 1, dpsi, e->dw, e->dmu, NULL);
            if (st == SP_OK) predict_turned(e, dpsi);
            memcpy(e->psi, dpsi, (size_t)(K + 1) * d * sizeof *dpsi);
            memset(dpsi, 0, (size_t)(K + 1) * d * sizeof *dpsi);
            turn_knots(e);
            if (st == SP_OK) st = sp_exact_newton(e, steps, 1, inner_tol, progress, &inner, residual, running, nodes);
            if (st == SP_ERR_DOMAIN) st = SP_OK, inner = 0; /* a trial too far for the mismatch's logarithm */
            if (st != SP_OK) break;
            inner = inner || *residual <= tol;
            const double Jt = outer_cost(e, *running), rho = (J - Jt) / info.predicted;
            const double after = outer_gradient(e, scratch);
            /* The kicks are the gradient of the continuous cost, J that of the grid's: they
             * agree to the grid's accuracy, so close to the optimum J cannot judge a step.
             * There a Newton step (H positive definite, inside the region) that halves the
             * gradient is taken, when it does not raise J beyond that accuracy. */
            const int newton_step = info.interior && after <= 0.5 * worst && Jt <= J + 1e-6 * (1.0 + fabs(J));
            accepted = inner && (rho >= 0.1 || newton_step);
            if (accepted) {
                accept_move(e);
                if (rho > 0.75 && info.length > 0.99 * radius) radius = fmin(2.0 * radius, 1e3);
                else if (rho < 0.25) radius = 0.5 * info.length;
            } else {
                keep_swap(e, &keep, 0);
                radius = 0.25 * info.length;
                inner = 1;
            }
        }
        e->iterations++;
        if (!accepted) break;
    }
    free(H), free(grad), free(p), free(dpsi), free(col), free(scratch), free(tw), free(tmu);
    keep_free(&keep);
    return st;
}

/* What the pieces of a distance share. */
typedef struct distance_job {
    exact *e;
    const int *coarse;
    const double *wc, *muc;
    const double *elems; /* the coarser curve's knot elements (its turns, on the sphere), or NULL */
    const sp_hohp_state *fine_nodes;
    double *dist;
} distance_job;

static sp_status distance_piece(void *ctx, int begin, int end, int worker)
{
    const distance_job *job = ctx;
    exact *e = job->e;
    sp_hohp_rk *rk = e->rk[worker];
    for (int i = begin; i < end; ++i) {
        sp_hohp_state zc, zh;
        sp_exact_knot_state(e, job->wc, job->muc, i, &zc);
        if (job->elems) sp_vec_copy(e->G->elem_size, job->elems + (size_t)e->G->elem_size * i, zc.g);
        const int steps = job->coarse[i];
        const double hc = (e->tk[i + 1] - e->tk[i]) / steps;
        const sp_hohp_state *fine = job->fine_nodes + 2 * e->first_node[i];
        double d = 0.0;
        for (int j = 0; j < steps; ++j) {
            for (int half = 1; half >= 0; --half) {
                if (!half && j + 1 == steps) break; /* the next knot */
                sp_status st = half ? sp_hohp_rk_step(rk, hc / 2, &zc, &zh, NULL, 0, NULL)
                                    : sp_hohp_rk_step(rk, hc, &zc, &zc, NULL, 0, NULL);
                double r[MAXN];
                if (st == SP_OK)
                    st = sp_group_log_mismatch(e->G, half ? zh.g : zc.g, fine[2 * (size_t)j + (half ? 1 : 2)].g, r,
                                               NULL, NULL);
                if (st != SP_OK) return st;
                d = fmax(d, sp_vec_norm(e->n, r));
            }
        }
        job->dist[i] = d;
    }
    return SP_OK;
}

/* The distance between the curves of (wc, μc) on `coarse` and the solution on `fine` (twice
 * as many steps; its nodes `fine_nodes` from its last sweep) at the finer grid's nodes, per
 * segment: the coarser curve stepped there (by half its step at the midpoints). Its knots
 * are pinned on both curves and not compared. */
static sp_status distance(exact *e, const int *coarse, const double *wc, const double *muc, const double *elems,
                          const sp_hohp_state *fine_nodes, double *dist)
{
    const double t0 = sp_clock_seconds(); /* counted in e->times */
    e->first_node[0] = 0;
    for (int i = 0; i < e->K; ++i) e->first_node[i + 1] = e->first_node[i] + (size_t)coarse[i];
    distance_job job = {
        .e = e, .coarse = coarse, .wc = wc, .muc = muc, .elems = elems, .fine_nodes = fine_nodes, .dist = dist};
    sp_status st = sp_parallel_run(e->workers, e->K, sp_exact_segment_cost(e, coarse, 0), distance_piece, &job);
    e->times.plain_sweeps += sp_clock_seconds() - t0;
    return st;
}


/* The solution in the caller's terms: the knot states, the jumps of μ, the grid. */
static sp_status export_solution(const exact *e, const int *steps, double residual, sp_exact_solution *out)
{
    const int n = e->n, K = e->K;
    out->knots = malloc(((size_t)K + 1) * sizeof *out->knots);
    out->kicks = malloc((size_t)K * n * sizeof *out->kicks);
    out->segment_steps = malloc((size_t)K * sizeof *out->segment_steps);
    out->ends = malloc((size_t)K * sizeof *out->ends);
    out->segment_running = malloc((size_t)K * sizeof *out->segment_running);
    if (!out->knots || !out->kicks || !out->segment_steps || !out->ends || !out->segment_running) return SP_ERR_NOMEM;
    /* the ends are those of the last sweep, which was at this solution on these steps */
    memcpy(out->ends, e->ends, (size_t)K * sizeof *out->ends);
    memcpy(out->segment_running, e->seg_run, (size_t)K * sizeof *out->segment_running);
    for (int i = 0; i <= K; ++i) sp_exact_knot_state(e, e->w, i < K ? e->mu : NULL, i, &out->knots[i]);
    for (int i = 0; i < K; ++i)
        for (int k = 0; k < n; ++k)
            out->kicks[(size_t)i * n + k] =
                (i + 1 < K ? e->mu[(size_t)(i + 1) * n + k] : 0.0) - e->ends[i].nu[k];
    memcpy(out->segment_steps, steps, (size_t)K * sizeof *steps);
    out->residual = residual;
    return SP_OK;
}

/* The solution on `steps`: Newton's method, and on the sphere the turns as well. */
static sp_status solve_on(exact *e, const int *steps, int have_factors, double tol, const sp_progress *progress,
                          int *converged, double *residual, double *running, sp_hohp_state *nodes)
{
    return e->spin ? turns(e, steps, have_factors, tol, progress, converged, residual, running, nodes)
                   : sp_exact_newton(e, steps, have_factors, tol, progress, converged, residual, running, nodes);
}

sp_status sp_exact_solve(const sp_problem *pb, const int *first_steps, const sp_progress *progress,
                         sp_exact_solution *out)
{
    memset(out, 0, sizeof *out);
    out->error_estimate = HUGE_VAL;
    exact e;
    sp_status st = exact_init(&e, pb);
    if (st != SP_OK) return st;
    const size_t K = (size_t)e.K, nw = (size_t)(2 * e.n * (e.K + 1)), nm = (size_t)(e.n * e.K);
    const double tol = pb->plan.tolerance > 0.0 ? pb->plan.tolerance : 1e-10;
    const double accuracy = pb->plan.accuracy > 0.0 ? pb->plan.accuracy : 1e-6;
    const int p = pb->scheme->order;
    /* The coarser grid's solution serves as the finer one's start and as the reference of
     * the error estimate, which compares curves some 2^(p−2)·accuracy apart: converged to
     * a twentieth of that it serves both as well as to tol, and saves a sweep or two. */
    const double coarse_tol = fmax(tol, 0.05 * accuracy * ldexp(1.0, p - 2));
    int *coarse = malloc(K * sizeof *coarse), *fine = malloc(K * sizeof *fine);
    double *wc = malloc(nw * sizeof *wc), *muc = malloc((nm ? nm : 1) * sizeof *muc), *dist = malloc(K * sizeof *dist);
    const size_t es = (size_t)e.G->elem_size * (K + 1);
    double *elems = e.spin ? malloc(es * sizeof *elems) : NULL; /* the coarser grid's turned knots */
    if (!coarse || !fine || !wc || !muc || !dist || (e.spin && !elems)) st = SP_ERR_NOMEM;
    if (st == SP_OK) st = start(&e);
    int converged = 0;
    double residual = HUGE_VAL, running;
    if (st == SP_OK) {
        memcpy(coarse, first_steps, K * sizeof *coarse);
        st = solve_on(&e, coarse, 0, coarse_tol, progress, &converged, &residual, &running, NULL);
    }
    for (int round = 0; st == SP_OK && converged && round < 6; ++round) {
        out->rounds++;
        size_t count = 1;
        for (size_t i = 0; i < K; ++i) fine[i] = 2 * coarse[i], count += (size_t)fine[i];
        free(out->nodes);
        out->nodes = malloc(count * sizeof *out->nodes);
        out->node_count = out->nodes ? (int)count : 0;
        if (!out->nodes) {
            st = SP_ERR_NOMEM;
            break;
        }
        memcpy(wc, e.w, nw * sizeof *wc), memcpy(muc, e.mu, nm * sizeof *muc);
        if (elems) memcpy(elems, e.turned, es * sizeof *elems);
        st = solve_on(&e, fine, 1, tol, progress, &converged, &residual, &running, out->nodes);
        if (st == SP_OK && converged) st = distance(&e, coarse, wc, muc, elems, out->nodes, dist);
        if (st != SP_OK || !converged) break;
        if (st != SP_OK) break;
        double worst = 0.0;
        for (size_t i = 0; i < K; ++i) worst = fmax(worst, dist[i]);
        out->error_estimate = worst / ldexp(1.0, p - 2);
        if (out->error_estimate <= accuracy) break;
        /* more steps where the estimate is above the accuracy, and solve there */
        for (size_t i = 0; i < K; ++i) {
            const double est = dist[i] / ldexp(1.0, p - 2);
            coarse[i] = est > accuracy ? (int)ceil(fine[i] * 0.55 * pow(est / accuracy, 1.0 / p)) : fine[i] / 2;
            coarse[i] = coarse[i] < 1                               ? 1
                        : coarse[i] > SP_PLAN_MAX_SEGMENT_STEPS / 2 ? SP_PLAN_MAX_SEGMENT_STEPS / 2
                                                                    : coarse[i];
        }
        st = solve_on(&e, coarse, 1, coarse_tol, progress, &converged, &residual, &running, NULL);
    }
    out->converged = converged && out->error_estimate < HUGE_VAL;
    if (st == SP_OK && out->converged) st = export_solution(&e, fine, residual, out);
    out->iterations = e.iterations, out->jacobians = e.jacobians, out->sweeps = e.sweeps, out->times = e.times;
    free(coarse), free(fine), free(wc), free(muc), free(dist), free(elems);
    exact_free(&e);
    return st;
}

void sp_exact_solution_free(sp_exact_solution *s)
{
    if (!s) return;
    free(s->segment_steps), free(s->knots), free(s->kicks), free(s->nodes), free(s->ends), free(s->segment_running);
    memset(s, 0, sizeof *s);
}
