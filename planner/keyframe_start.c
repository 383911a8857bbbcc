/* Initial curves through the keyframes (see sp_keyframe_start.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_keyframe_start.h"
#include "../lie/sp_linalg.h"

struct sp_start_curve {
    const sp_group *G;
    sp_start_kind kind;
    int n;      /* keyframes; knots 0…n with knot 0 the start (t = 0, g0) */
    double *tk; /* n+1 knot times */
    double *R;  /* n+1 rotations (9 each) */
    double *x;  /* n+1 points of the rolled-out chain, 3 each */
    double *M;  /* n+1 second derivatives of the spline, 3 each */
    double xi0[3];
};

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
        if (slopeN)
            a[n] = hn, b[n] = 2.0 * hn, d[n] = 6.0 * (slopeN[q] - (y[3 * n + q] - y[3 * (n - 1) + q]) / hn);
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
    c->kind = kind;
    c->n = (int)cs->n_targets;
    size_t m = (size_t)c->n + 1;
    c->tk = malloc(m * sizeof *c->tk);
    c->R = malloc(9 * m * sizeof *c->R);
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
    sp_vec_copy(9, pb->g0, c->R);
    for (int i = 1; i <= c->n; ++i) {
        const sp_cubic_target *tg = &cs->targets[i - 1];
        c->tk[i] = tg->t;
        if (cs->space == SP_SPACE_GROUP) {
            sp_vec_copy(9, tg->R, c->R + 9 * i);
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
        double Ri[9], A[9], d[3] = {0, 0, 0};
        G->inverse(G, c->R + 9 * (i - 1), Ri);
        G->compose(G, Ri, c->R + 9 * i, A);
        if (G->log(G, A, d) != SP_OK) sp_vec_zero(3, d);
        for (int q = 0; q < 3; ++q) c->x[3 * i + q] = c->x[3 * (i - 1) + q] + d[q];
    }
    int ends_at_T = c->n > 0 && fabs(c->tk[c->n] - pb->T) <= 1e-9 * pb->T;
    if (c->n > 0)
        spline_moments(c->n, c->tk, c->x, pb->plan.xi0_free ? NULL : pb->xi0,
                       pb->plan.has_xiT && ends_at_T ? pb->plan.xiT : NULL, c->M, work);
    free(work);
    return c;
}

void sp_start_curve_free(sp_start_curve *c)
{
    if (!c) return;
    free(c->tk), free(c->R), free(c->x), free(c->M);
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
    const sp_group *G = c->G;
    memset(z, 0, sizeof *z);
    if (c->kind == SP_START_UNIFORM || c->n == 0) {
        double v[3];
        for (int q = 0; q < 3; ++q) v[q] = t * c->xi0[q];
        double E[9];
        G->exp(G, v, E);
        G->compose(G, c->R, E, z->g);
        sp_vec_copy(3, c->xi0, z->xi);
        return;
    }
    /* the segment that starts at or before t (right-sided at knots) */
    int lo = 0, hi = c->n;
    if (t >= c->tk[c->n]) {
        lo = c->n;
    } else {
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (c->tk[mid] <= t) lo = mid;
            else hi = mid;
        }
    }
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
    double E[9], D[9], mu[3];
    G->exp(G, u, E);
    G->compose(G, c->R + 9 * lo, E, z->g);
    for (int q = 0; q < 3; ++q) mu[q] = -u[q];
    G->dexp(G, mu, D);
    sp_mat_vec(3, 3, D, v, z->xi);
    sp_vec_copy(3, a, z->p);
    for (int q = 0; q < 3; ++q) z->nu[q] = -j[q];
}
