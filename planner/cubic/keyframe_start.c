/* Initial curves through the keyframes (see sp_keyframe_start.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_keyframe_start.h"
#include "integrators/sp_band.h"
#include "lie/sp_linalg.h"

struct sp_start_curve {
    const sp_group *G;
    int e; /* doubles per group element */
    sp_start_kind kind;
    int dim;    /* of the algebra */
    int n;      /* keyframes; knots 0…n with knot 0 the start (t = 0, g0) */
    double *tk; /* n+1 knot times */
    double *R;  /* n+1 group elements */
    double *d;  /* n displacements log(R_i⁻¹ R_{i+1}), dim each */
    double *w;  /* n+1 body velocities at the knots, dim each */
    double *b;  /* n chart velocities u̇ at the segments' ends, dim each */
    int xi0_given;
    double xi0[SP_LIE_MAX_DIM];
    /* sphere plans: the spin ψ(t) about y0 added to the lifted curve, as values ψ and
     * rates ω = ψ̇ at K+1 times τ (NULL otherwise) */
    int K;
    double *tau, *psi, *omega;
    double y0[3];
};

static void untwisted_eval(const sp_start_curve *c, double t, sp_hohp_state *z);

/* The last of the increasing knots x[0…n] at or before t (0 before the first, n from the
 * last on): the interval t lies in, right-sided at knots. */
static int knot_at(const double *x, int n, double t)
{
    if (t >= x[n]) return n;
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (x[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
static int spin_profile(sp_start_curve *c, const sp_problem *pb);

/* The smallest rotation taking the unit vector a to the unit vector b. */
static void smallest_rotation(const sp_group *G, const double *a, const double *b, double *Q)
{
    double axis[3];
    sp_cross(a, b, axis);
    double s = sp_vec_norm(3, axis), c = sp_vec_dot(3, a, b), angle = atan2(s, c);
    if (s < 1e-12) {
        if (c > 0.0) {
            G->identity(G, Q);
            return;
        }
        double e[3] = {fabs(a[0]) < 0.6 ? 1.0 : 0.0, fabs(a[0]) < 0.6 ? 0.0 : 1.0, 0.0};
        sp_cross(a, e, axis);
        s = sp_vec_norm(3, axis);
    }
    for (int k = 0; k < 3; ++k) axis[k] *= angle / s;
    G->exp(G, axis, Q);
}

/* N = the derivative of dexp_{−u(t)} along the curve applied to u̇: the part of ξ̇ that
 * the chart's acceleration does not give (a central difference: enough for a start). */
static void dexp_drift(const sp_group *G, const double *u, const double *v, double *N)
{
    const int n = G->dim;
    const double eps = 1e-5 / fmax(1.0, sp_vec_norm(n, v));
    double xp[SP_LIE_MAX_DIM] = {0}, xm[SP_LIE_MAX_DIM] = {0}, Dp[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM],
        Dm[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], vp[SP_LIE_MAX_DIM], vm[SP_LIE_MAX_DIM];
    for (int k = 0; k < n; ++k) xp[k] = -u[k] - eps * v[k], xm[k] = -u[k] + eps * v[k];
    G->dexp(G, xp, Dp), G->dexp(G, xm, Dm);
    sp_mat_vec(n, n, Dp, v, vp), sp_mat_vec(n, n, Dm, v, vm);
    for (int k = 0; k < n; ++k) N[k] = (vp[k] - vm[k]) / (2.0 * eps);
}

/* ξ̇ = dexp_{−u} ü + N of g = R exp(u(t)). */
static void curve_acceleration(const sp_group *G, const double *u, const double *v, const double *a, double *xidot)
{
    const int n = G->dim;
    double minus[SP_LIE_MAX_DIM], D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], N[SP_LIE_MAX_DIM];
    for (int k = 0; k < n; ++k) minus[k] = -u[k];
    G->dexp(G, minus, D);
    sp_mat_vec(n, n, D, a, xidot);
    dexp_drift(G, u, v, N);
    for (int k = 0; k < n; ++k) xidot[k] += N[k];
}

/* The body velocities at the knots that make the curve C² on the group.
 *
 * Segment i is g(t) = R_i exp(u(t)) with u the cubic of u(0) = 0, u̇(0) = ω_i, u(h_i) = d_i
 * and u̇(h_i) = b_i = B_i ω_{i+1}, B_i = dexp⁻¹_{−d_i}, so the body velocity
 * ξ = dexp_{−u} u̇ is ω at every knot from both sides. Its derivative from the left at
 * knot i+1 is D_i ü(h_i) + N_i (D_i = dexp_{−d_i}; N_i = the derivative of dexp_{−u}
 * along the curve applied to u̇, a term quadratic in the velocity), from the right ü(0):
 * equating the two at every interior knot, with ξ̇ = 0 at a free end or ω given at a
 * prescribed one, is linear in ω once N is fixed. N is taken from the previous iterate
 * (zero at first, which gives the cubic spline of the rolled-out chain) until ω settles:
 * the construction of RotationSpline (SciPy) in body velocities. On Rⁿ, D = B = I and
 * N = 0: the natural (or clamped) cubic spline. */
static int solve_rates(sp_start_curve *c, const double *xiT)
{
    const sp_group *G = c->G;
    const int n = c->dim, K = c->n, N = (K + 1) * n, nn = n * n;
    double *D = malloc((size_t)K * nn * sizeof *D), *B = malloc((size_t)K * nn * sizeof *B);
    double *Nq = calloc((size_t)K * n, sizeof *Nq), *rhs = malloc((size_t)N * sizeof *rhs);
    sp_band *band = sp_band_alloc(N, 2 * n - 1, 2 * n - 1);
    int ok = D && B && Nq && rhs && band;
    for (int i = 0; ok && i < K; ++i) {
        double minus[SP_LIE_MAX_DIM];
        for (int k = 0; k < n; ++k) minus[k] = -c->d[i * n + k];
        G->dexp(G, minus, D + (size_t)i * nn);
        G->dexp_inv(G, minus, B + (size_t)i * nn);
    }
    /* a prescribed end velocity replaces its knot's row; the matrix does not change
     * between rounds (only N, on the right, does): it is factored once */
    const int fixed0 = c->xi0_given, fixedK = xiT != NULL;
    if (ok) {
        sp_band_zero(band);
        for (int r = 0; r < n; ++r) {
            if (fixed0) sp_band_add(band, r, r, 1.0);
            if (fixedK) sp_band_add(band, K * n + r, K * n + r, 1.0);
        }
        /* segment i adds to the rows of knots i (its right side) and i+1 (its left) */
        for (int i = 0; i < K; ++i) {
            const double h = c->tk[i + 1] - c->tk[i];
            const double *Di = D + (size_t)i * nn, *Bi = B + (size_t)i * nn;
            const int right = !(i == 0 && fixed0), left = !(i + 1 == K && fixedK);
            for (int r = 0; r < n; ++r) {
                const int ri = i * n + r, rj = (i + 1) * n + r;
                if (right) {
                    sp_band_add(band, ri, ri, 4.0 / h);
                    for (int q = 0; q < n; ++q) sp_band_add(band, ri, (i + 1) * n + q, 2.0 / h * Bi[r * n + q]);
                }
                if (left) {
                    sp_band_add(band, rj, rj, 4.0 / h);
                    for (int q = 0; q < n; ++q) sp_band_add(band, rj, i * n + q, 2.0 / h * Di[r * n + q]);
                }
            }
        }
        ok = sp_band_factor(band) == SP_OK;
    }
    for (int iter = 0; ok && iter < 30; ++iter) {
        for (int k = 0; k < N; ++k) rhs[k] = 0.0;
        for (int r = 0; r < n; ++r) {
            if (fixed0) rhs[r] = c->xi0[r];
            if (fixedK) rhs[K * n + r] = xiT[r];
        }
        for (int i = 0; i < K; ++i) {
            const double h = c->tk[i + 1] - c->tk[i];
            const int right = !(i == 0 && fixed0), left = !(i + 1 == K && fixedK);
            for (int r = 0; r < n; ++r) {
                if (right) rhs[i * n + r] += 6.0 * c->d[i * n + r] / (h * h);
                if (left) rhs[(i + 1) * n + r] += 6.0 * c->d[i * n + r] / (h * h) - Nq[i * n + r];
            }
        }
        ok = sp_band_solve(band, rhs) == SP_OK && sp_vec_isfinite(N, rhs);
        if (!ok) break;
        double change = iter == 0 ? HUGE_VAL : 0.0;
        for (int k = 0; iter > 0 && k < N; ++k) change = fmax(change, fabs(rhs[k] - c->w[k]) / (1.0 + fabs(rhs[k])));
        sp_vec_copy(N, rhs, c->w);
        /* the end slopes and the curvature terms at this iterate */
        for (int i = 0; i < K; ++i) {
            double *bi = c->b + (size_t)i * n;
            sp_mat_vec(n, n, B + (size_t)i * nn, c->w + (size_t)(i + 1) * n, bi);
            dexp_drift(G, c->d + (size_t)i * n, bi, Nq + (size_t)i * n);
        }
        if (change <= 1e-9) break;
    }
    free(D), free(B), free(Nq), free(rhs), sp_band_free(band);
    return ok ? 0 : -1;
}

sp_start_curve *sp_start_curve_new(const sp_problem *pb, sp_start_kind kind)
{
    const sp_cubic_spline *cs = &pb->cubic;
    const sp_group *G = cs->group;
    sp_start_curve *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->G = G;
    c->e = G->elem_size;
    c->dim = G->dim;
    c->kind = kind;
    c->n = (int)cs->n_targets;
    const size_t m = (size_t)c->n + 1, dim = (size_t)c->dim;
    c->tk = malloc(m * sizeof *c->tk);
    c->R = malloc((size_t)c->e * m * sizeof *c->R);
    c->d = calloc(dim * m, sizeof *c->d);
    c->w = calloc(dim * m, sizeof *c->w);
    c->b = calloc(dim * m, sizeof *c->b);
    if (!c->tk || !c->R || !c->d || !c->w || !c->b) {
        sp_start_curve_free(c);
        return NULL;
    }
    c->xi0_given = !pb->plan.xi0_free;
    if (c->xi0_given) sp_vec_copy(c->dim, pb->xi0, c->xi0);
    c->tk[0] = 0.0;
    sp_vec_copy(c->e, pb->g0, c->R);
    for (int i = 1; i <= c->n; ++i) {
        const sp_cubic_target *tg = &cs->targets[i - 1];
        c->tk[i] = tg->t;
        if (cs->space == SP_SPACE_GROUP) {
            sp_vec_copy(c->e, tg->R, c->R + c->e * i);
        } else {
            double y[3], Q[9];
            G->act(G, c->R + 9 * (i - 1), cs->y0, y);
            smallest_rotation(G, y, tg->y, Q);
            G->compose(G, Q, c->R + 9 * (i - 1), c->R + 9 * i);
        }
    }
    /* the body displacements, each the short way round */
    for (int i = 0; i < c->n; ++i) {
        double Ri[SP_LIE_MAX_ELEM], A[SP_LIE_MAX_ELEM];
        G->inverse(G, c->R + c->e * i, Ri);
        G->compose(G, Ri, c->R + c->e * (i + 1), A);
        if (G->log(G, A, c->d + dim * i) != SP_OK) sp_vec_zero(c->dim, c->d + dim * i);
    }
    const int ends_at_T = c->n > 0 && fabs(c->tk[c->n] - pb->T) <= 1e-9 * pb->T;
    if (kind == SP_START_SPLINE && c->n > 0 &&
        solve_rates(c, pb->plan.has_xiT && ends_at_T ? pb->plan.xiT : NULL) != 0) {
        sp_start_curve_free(c);
        return NULL;
    }
    if (cs->space == SP_SPACE_SPHERE && kind != SP_START_UNIFORM && c->n > 0 && spin_profile(c, pb) != 0) {
        sp_start_curve_free(c);
        return NULL;
    }
    return c;
}

/* Sphere keyframes fix the curve's points g·y0 but not its spin about y0, and a spin
 * ψ(t) added to a curve (g → g exp(ψ ŷ0)) changes its cost in closed form: with
 * ξ' = exp(−ψŷ0)ξ + ψ̇ y0,
 *     |ξ̇'|² = |ξ̇ + ψ̇ ξ×y0|² + 2ψ̈ y0·ξ̇ + ψ̈²,
 * a quadratic in ω = ψ̇. Over a long horizon the best spin winds a long way from the
 * lift by smallest rotations (it follows the turning of the path), and Newton, for
 * which the spin is a nearly free direction, cannot travel that far; so the start is
 * given its best spin at once: ∫ω̇² + 2ω̇ y0·ξ̇ + ω²|ξ×y0|² + 2ω ξ̇·(ξ×y0) is minimised
 * on a fine grid (a tridiagonal system), with ω(0) = 0 when ξ0 is prescribed and
 * ω(T) = 0 when ξ_T is. */
static int spin_profile(sp_start_curve *c, const sp_problem *pb)
{
    const int per = 16, tail = pb->T > c->tk[c->n] * (1.0 + 1e-12);
    const int K = per * (c->n + tail);
    c->K = K;
    sp_vec_copy(3, pb->cubic.y0, c->y0);
    c->tau = malloc((size_t)(K + 1) * sizeof *c->tau);
    c->psi = malloc((size_t)(K + 1) * sizeof *c->psi);
    c->omega = malloc((size_t)(K + 1) * sizeof *c->omega);
    double *work = malloc(6 * (size_t)(K + 1) * sizeof *work);
    if (!c->tau || !c->psi || !c->omega || !work) {
        free(work);
        return -1;
    }
    for (int i = 0; i < c->n + tail; ++i) {
        double t0 = c->tk[i], t1 = i < c->n ? c->tk[i + 1] : pb->T;
        for (int q = 0; q < per; ++q) c->tau[i * per + q] = t0 + (t1 - t0) * q / per;
    }
    c->tau[K] = tail ? pb->T : c->tk[c->n];
    double *a = work, *b = work + (K + 1), *cy = work + 2 * (K + 1);
    double *lo = work + 3 * (K + 1), *di = work + 4 * (K + 1), *rh = work + 5 * (K + 1);
    for (int k = 0; k <= K; ++k) {
        sp_hohp_state z;
        /* one-sided at knots: the left limit at an interval's end */
        untwisted_eval(c, k > 0 && k % per == 0 ? c->tau[k] - 1e-9 * (c->tau[k] - c->tau[k - 1]) : c->tau[k], &z);
        double x[3];
        sp_cross(z.xi, c->y0, x);
        a[k] = sp_vec_dot(3, x, x);
        b[k] = sp_vec_dot(3, z.p, x);
        cy[k] = sp_vec_dot(3, c->y0, z.p);
    }
    for (int k = 0; k <= K; ++k) lo[k] = di[k] = rh[k] = 0.0;
    for (int k = 0; k < K; ++k) {
        const double d = c->tau[k + 1] - c->tau[k], cm = 0.5 * (cy[k] + cy[k + 1]);
        /* ∫ω̇² + 2ω̇·c over the interval, and the trapezoid of a ω² + 2 b ω */
        di[k] += 1.0 / d + 0.5 * d * a[k], di[k + 1] += 1.0 / d + 0.5 * d * a[k + 1];
        lo[k + 1] = -1.0 / d;
        rh[k] += cm - 0.5 * d * b[k], rh[k + 1] += -cm - 0.5 * d * b[k + 1];
    }
    /* ω(0) = 0 for a prescribed ξ0, ω(T) = 0 for a prescribed ξ_T */
    int fix0 = !pb->plan.xi0_free, fixK = pb->plan.has_xiT;
    if (fix0) di[0] = 1.0, rh[0] = 0.0; /* row 0: ω0 = 0 (its super-diagonal is cleared below) */
    /* symmetric tridiagonal (sub = super = lo), solved by elimination */
    double *up = a; /* reuse: super-diagonal of row k is lo[k+1] */
    for (int k = 0; k < K; ++k) up[k] = fix0 && k == 0 ? 0.0 : lo[k + 1];
    if (fixK) di[K] = 1.0, rh[K] = 0.0, lo[K] = 0.0;
    for (int k = 1; k <= K; ++k) {
        double m = lo[k] / di[k - 1];
        di[k] -= m * up[k - 1];
        rh[k] -= m * rh[k - 1];
    }
    c->omega[K] = rh[K] / di[K];
    for (int k = K - 1; k >= 0; --k) c->omega[k] = (rh[k] - up[k] * c->omega[k + 1]) / di[k];
    c->psi[0] = 0.0;
    for (int k = 0; k < K; ++k)
        c->psi[k + 1] = c->psi[k] + 0.5 * (c->tau[k + 1] - c->tau[k]) * (c->omega[k] + c->omega[k + 1]);
    free(work);
    return 0;
}

const double *sp_start_curve_rotation(const sp_start_curve *c, size_t i) { return c->R + (size_t)c->e * (i + 1); }

void sp_start_curve_free(sp_start_curve *c)
{
    if (!c) return;
    free(c->tk), free(c->R), free(c->d), free(c->w), free(c->b);
    free(c->tau), free(c->psi), free(c->omega);
    free(c);
}

/* Chart position, velocity, acceleration and jerk at t on segment i (knots i, i+1): the
 * cubic u with u(0) = 0, u̇(0) = ω_i, u(h) = d_i, u̇(h) = b_i. */
static void spline_eval(const sp_start_curve *c, int i, double t, double *u, double *v, double *a, double *j)
{
    const int n = c->dim;
    const double h = c->tk[i + 1] - c->tk[i], s = t - c->tk[i];
    const double *w = c->w + (size_t)i * n, *d = c->d + (size_t)i * n, *b = c->b + (size_t)i * n;
    for (int q = 0; q < n; ++q) {
        const double c2 = (3.0 * d[q] - (2.0 * w[q] + b[q]) * h) / (h * h);
        const double c3 = ((w[q] + b[q]) * h - 2.0 * d[q]) / (h * h * h);
        u[q] = ((c3 * s + c2) * s + w[q]) * s;
        v[q] = (3.0 * c3 * s + 2.0 * c2) * s + w[q];
        a[q] = 6.0 * c3 * s + 2.0 * c2;
        j[q] = 6.0 * c3;
    }
}

void sp_start_curve_eval(const sp_start_curve *c, double t, sp_hohp_state *z)
{
    untwisted_eval(c, t, z);
    if (!c->tau) return;
    /* the spin at t: ω piecewise linear, ψ its integral */
    int lo = knot_at(c->tau, c->K, t);
    if (lo == c->K) lo = c->K - 1; /* at the end: the last interval */
    const double d = c->tau[lo + 1] - c->tau[lo], r = t - c->tau[lo];
    const double wdot = (c->omega[lo + 1] - c->omega[lo]) / d, w = c->omega[lo] + wdot * r;
    const double psi = c->psi[lo] + c->omega[lo] * r + 0.5 * wdot * r * r;
    const sp_group *G = c->G;
    double v[3], Rm[9], E[9], x[3], g[9];
    for (int k = 0; k < 3; ++k) v[k] = psi * c->y0[k];
    G->exp(G, v, E);
    G->compose(G, z->g, E, g);
    sp_vec_copy(9, g, z->g);
    sp_mat_transpose(3, E, Rm); /* exp(−ψŷ0) */
    sp_cross(z->xi, c->y0, x);
    for (int k = 0; k < 3; ++k) v[k] = z->p[k] + w * x[k];
    sp_mat_vec(3, 3, Rm, v, z->p);
    sp_vec_axpy(3, wdot, c->y0, z->p);
    sp_mat_vec(3, 3, Rm, z->xi, v);
    for (int k = 0; k < 3; ++k) z->xi[k] = v[k] + w * c->y0[k];
    sp_mat_vec(3, 3, Rm, z->nu, v);
    sp_vec_copy(3, v, z->nu);
}

static void untwisted_eval(const sp_start_curve *c, double t, sp_hohp_state *z)
{
    const sp_group *G = c->G;
    const int n = c->dim;
    memset(z, 0, sizeof *z);
    if (c->kind == SP_START_UNIFORM || c->n == 0) {
        double v[SP_LIE_MAX_DIM];
        for (int q = 0; q < n; ++q) v[q] = t * c->xi0[q];
        double E[SP_LIE_MAX_ELEM];
        G->exp(G, v, E);
        G->compose(G, c->R, E, z->g);
        sp_vec_copy(n, c->xi0, z->xi);
        return;
    }
    /* the segment that starts at or before t (right-sided at knots) */
    int lo = knot_at(c->tk, c->n, t);
    double u[SP_LIE_MAX_DIM] = {0}, v[SP_LIE_MAX_DIM] = {0}, a[SP_LIE_MAX_DIM] = {0}, j[SP_LIE_MAX_DIM] = {0};
    if (lo == c->n) {
        /* after the last keyframe: carry on with the end velocity */
        const int i = c->n - 1;
        const double *vend = c->kind == SP_START_SPLINE ? c->w + (size_t)c->n * n : NULL;
        for (int q = 0; q < n; ++q) {
            v[q] = vend ? vend[q] : c->d[(size_t)i * n + q] / (c->tk[c->n] - c->tk[i]);
            u[q] = (t - c->tk[c->n]) * v[q];
        }
    } else if (c->kind == SP_START_SPLINE) {
        spline_eval(c, lo, t, u, v, a, j);
    } else {
        const double hh = c->tk[lo + 1] - c->tk[lo];
        for (int q = 0; q < n; ++q) {
            v[q] = c->d[(size_t)lo * n + q] / hh;
            u[q] = (t - c->tk[lo]) * v[q];
        }
    }
    /* g = R_lo exp(u); body velocity dexp_{−u} u̇ */
    double E[SP_LIE_MAX_ELEM], D[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM], minus[SP_LIE_MAX_DIM];
    G->exp(G, u, E);
    G->compose(G, c->R + c->e * lo, E, z->g);
    for (int q = 0; q < n; ++q) minus[q] = -u[q];
    G->dexp(G, minus, D);
    sp_mat_vec(n, n, D, v, z->xi);
    curve_acceleration(G, u, v, a, z->p);
    /* ν ≈ −ξ̈ with ξ = dexp_{−u} u̇ = u̇ − ½[u, u̇] + …: at a knot (u = 0) ξ̇ = ü and
     * ξ̈ = u⃛ − ½[u̇, ü] exactly, which the momentum takes everywhere */
    double bracket[SP_LIE_MAX_DIM];
    G->ad(G, v, a, bracket);
    for (int q = 0; q < n; ++q) z->nu[q] = -j[q] + 0.5 * bracket[q];
}
