/* Initial curves through the keyframes (see sp_keyframe_start.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_keyframe_start.h"
#include "lie/sp_linalg.h"

struct sp_start_curve {
    const sp_group *G;
    int e; /* doubles per group element */
    sp_start_kind kind;
    int n;      /* keyframes; knots 0…n with knot 0 the start (t = 0, g0) */
    double *tk; /* n+1 knot times */
    double *R;  /* n+1 rotations (9 each) */
    double *x;  /* n+1 points of the rolled-out chain, 3 each */
    double *M;  /* n+1 second derivatives of the spline, 3 each */
    double xi0[3];
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

/* Second derivatives of the cubic spline through (t_i, y_i), i = 0…n, per coordinate
 * (stride 3): clamped ends where a slope is given, natural ends otherwise. */
static void spline_moments(int n, const double *t, const double *y, const double *slope0, const double *slopeN,
                           double *M, double *work)
{
    const int m = n + 1;
    double *a = work, *b = work + m, *c = work + 2 * m, *d = work + 3 * m;
    for (int q = 0; q < 3; ++q) {
        for (int i = 0; i < m; ++i) {
            a[i] = c[i] = d[i] = 0.0;
            b[i] = 1.0;
        }
        for (int i = 1; i < n; ++i) {
            double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
            a[i] = h0, b[i] = 2.0 * (h0 + h1), c[i] = h1;
            d[i] = 6.0 * ((y[3 * (i + 1) + q] - y[3 * i + q]) / h1 - (y[3 * i + q] - y[3 * (i - 1) + q]) / h0);
        }
        double h0 = t[1] - t[0], hn = t[n] - t[n - 1];
        if (slope0) b[0] = 2.0 * h0, c[0] = h0, d[0] = 6.0 * ((y[3 + q] - y[q]) / h0 - slope0[q]);
        if (slopeN) a[n] = hn, b[n] = 2.0 * hn, d[n] = 6.0 * (slopeN[q] - (y[3 * n + q] - y[3 * (n - 1) + q]) / hn);
        /* Thomas algorithm (diagonally dominant) */
        for (int i = 1; i < m; ++i) {
            double w = a[i] / b[i - 1];
            b[i] -= w * c[i - 1];
            d[i] -= w * d[i - 1];
        }
        M[3 * n + q] = d[n] / b[n];
        for (int i = n - 1; i >= 0; --i) M[3 * i + q] = (d[i] - c[i] * M[3 * (i + 1) + q]) / b[i];
    }
}

sp_start_curve *sp_start_curve_new(const sp_problem *pb, sp_start_kind kind)
{
    const sp_cubic_spline *cs = &pb->cubic;
    const sp_group *G = cs->group;
    sp_start_curve *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->G = G;
    c->e = G->elem_size;
    c->kind = kind;
    c->n = (int)cs->n_targets;
    size_t m = (size_t)c->n + 1;
    c->tk = malloc(m * sizeof *c->tk);
    c->R = malloc((size_t)c->e * m * sizeof *c->R);
    c->x = malloc(3 * m * sizeof *c->x);
    c->M = calloc(3 * m, sizeof *c->M);
    double *work = malloc(4 * m * sizeof *work);
    if (!c->tk || !c->R || !c->x || !c->M || !work) {
        free(work);
        sp_start_curve_free(c);
        return NULL;
    }
    if (!pb->plan.xi0_free) sp_vec_copy(3, pb->xi0, c->xi0);
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
    /* the chain of body displacements, each the short way round */
    sp_vec_zero(3, c->x);
    for (int i = 1; i <= c->n; ++i) {
        double Ri[SP_LIE_MAX_ELEM], A[SP_LIE_MAX_ELEM], d[3] = {0, 0, 0};
        G->inverse(G, c->R + c->e * (i - 1), Ri);
        G->compose(G, Ri, c->R + c->e * i, A);
        if (G->log(G, A, d) != SP_OK) sp_vec_zero(3, d);
        for (int q = 0; q < 3; ++q) c->x[3 * i + q] = c->x[3 * (i - 1) + q] + d[q];
    }
    int ends_at_T = c->n > 0 && fabs(c->tk[c->n] - pb->T) <= 1e-9 * pb->T;
    if (c->n > 0)
        spline_moments(c->n, c->tk, c->x, pb->plan.xi0_free ? NULL : pb->xi0,
                       pb->plan.has_xiT && ends_at_T ? pb->plan.xiT : NULL, c->M, work);
    free(work);
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
    free(c->tk), free(c->R), free(c->x), free(c->M);
    free(c->tau), free(c->psi), free(c->omega);
    free(c);
}

/* Position, velocity, acceleration and jerk of the spline at t on segment i (knots i,
 * i+1), relative to x_i. */
static void spline_eval(const sp_start_curve *c, int i, double t, double *u, double *v, double *a, double *j)
{
    const double t0 = c->tk[i], t1 = c->tk[i + 1], hh = t1 - t0, A = t1 - t, B = t - t0;
    for (int q = 0; q < 3; ++q) {
        double M0 = c->M[3 * i + q], M1 = c->M[3 * (i + 1) + q];
        double y0 = 0.0, y1 = c->x[3 * (i + 1) + q] - c->x[3 * i + q];
        double C0 = y0 / hh - M0 * hh / 6.0, C1 = y1 / hh - M1 * hh / 6.0;
        u[q] = M0 * A * A * A / (6 * hh) + M1 * B * B * B / (6 * hh) + C0 * A + C1 * B;
        v[q] = -M0 * A * A / (2 * hh) + M1 * B * B / (2 * hh) - C0 + C1;
        a[q] = (M0 * A + M1 * B) / hh;
        j[q] = (M1 - M0) / hh;
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
    memset(z, 0, sizeof *z);
    if (c->kind == SP_START_UNIFORM || c->n == 0) {
        double v[3];
        for (int q = 0; q < 3; ++q) v[q] = t * c->xi0[q];
        double E[SP_LIE_MAX_ELEM];
        G->exp(G, v, E);
        G->compose(G, c->R, E, z->g);
        sp_vec_copy(3, c->xi0, z->xi);
        return;
    }
    /* the segment that starts at or before t (right-sided at knots) */
    int lo = knot_at(c->tk, c->n, t);
    double u[3], v[3], a[3] = {0, 0, 0}, j[3] = {0, 0, 0};
    if (lo == c->n) {
        /* after the last keyframe: carry on with the end velocity */
        int i = c->n - 1;
        double u1[3], v1[3], a1[3], j1[3];
        if (c->kind == SP_START_SPLINE) {
            spline_eval(c, i, c->tk[c->n], u1, v1, a1, j1);
        } else {
            for (int q = 0; q < 3; ++q) v1[q] = (c->x[3 * c->n + q] - c->x[3 * i + q]) / (c->tk[c->n] - c->tk[i]);
        }
        for (int q = 0; q < 3; ++q) u[q] = (t - c->tk[c->n]) * v1[q], v[q] = v1[q];
    } else if (c->kind == SP_START_SPLINE) {
        spline_eval(c, lo, t, u, v, a, j);
    } else {
        double hh = c->tk[lo + 1] - c->tk[lo];
        for (int q = 0; q < 3; ++q) {
            v[q] = (c->x[3 * (lo + 1) + q] - c->x[3 * lo + q]) / hh;
            u[q] = (t - c->tk[lo]) * v[q];
        }
    }
    /* g = R_lo exp(u); body velocity dexp_{−u} u̇ */
    double E[SP_LIE_MAX_ELEM], D[9], mu[3];
    G->exp(G, u, E);
    G->compose(G, c->R + c->e * lo, E, z->g);
    for (int q = 0; q < 3; ++q) mu[q] = -u[q];
    G->dexp(G, mu, D);
    sp_mat_vec(3, 3, D, v, z->xi);
    sp_vec_copy(3, a, z->p);
    /* ν ≈ −ξ̈ with ξ = dexp_{−u} u̇ = u̇ − ½[u, u̇] + …: at a knot (u = 0) ξ̇ = ü and
     * ξ̈ = u⃛ − ½[u̇, ü] exactly, which the momentum takes everywhere */
    double bracket[3];
    G->ad(G, v, a, bracket);
    for (int q = 0; q < 3; ++q) z->nu[q] = -j[q] + 0.5 * bracket[q];
}
