/* Riemannian cubics of the round sphere in R³ (see sp_round_sphere.h). */
#include <math.h>
#include <string.h>

#include "integrators/sp_round_sphere.h"
#include "integrators/sp_tableau.h"

sp_status sp_round_sphere_init(sp_round_sphere *s)
{
    sp_tableau_explicit t;
    sp_status st = sp_tableau_explicit_get("dop853", &t);
    if (st != SP_OK) return st;
    memset(s, 0, sizeof *s);
    s->stages = t.stages;
    for (int i = 0; i < t.stages; ++i) {
        s->b[i] = t.b[i], s->c[i] = t.c[i];
        for (int k = 0; k < i; ++k) s->A[i][k] = t.A[i][k];
    }
    return SP_OK;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void sp_round_sphere_rhs(const double *x, int lift, double *dx)
{
    const double *y = x + SP_RS_Y, *v = x + SP_RS_V, *a = x + SP_RS_A, *j = x + SP_RS_J;
    const double vv = dot3(v, v), av = dot3(a, v), jv = dot3(j, v);
    for (int k = 0; k < 3; ++k) {
        dx[SP_RS_Y + k] = v[k];
        dx[SP_RS_V + k] = a[k] - vv * y[k];
        dx[SP_RS_A + k] = j[k] - av * y[k];
        dx[SP_RS_J + k] = -vv * a[k] + av * v[k] - jv * y[k];
    }
    dx[SP_RS_COST] = 0.5 * dot3(a, a);
    if (!lift) return;
    /* ġ = W g with W = (y × v)^, the spatial angular velocity of the horizontal lift */
    const double w[3] = {y[1] * v[2] - y[2] * v[1], y[2] * v[0] - y[0] * v[2], y[0] * v[1] - y[1] * v[0]};
    const double W[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    const double *g = x + SP_RS_G;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            dx[SP_RS_G + 3 * r + c] = W[3 * r] * g[c] + W[3 * r + 1] * g[3 + c] + W[3 * r + 2] * g[6 + c];
}

/* The derivative of the right-hand side at x applied to the tangent d (12 entries). */
static void rhs_tangent(const double *x, const double *d, double *out)
{
    const double *y = x + SP_RS_Y, *v = x + SP_RS_V, *a = x + SP_RS_A, *j = x + SP_RS_J;
    const double *dy = d + SP_RS_Y, *dv = d + SP_RS_V, *da = d + SP_RS_A, *dj = d + SP_RS_J;
    const double vv = dot3(v, v), av = dot3(a, v), jv = dot3(j, v);
    const double dvv = 2.0 * dot3(v, dv), dav = dot3(da, v) + dot3(a, dv), djv = dot3(dj, v) + dot3(j, dv);
    for (int k = 0; k < 3; ++k) {
        out[SP_RS_Y + k] = dv[k];
        out[SP_RS_V + k] = da[k] - dvv * y[k] - vv * dy[k];
        out[SP_RS_A + k] = dj[k] - dav * y[k] - av * dy[k];
        out[SP_RS_J + k] = -dvv * a[k] - vv * da[k] + dav * v[k] + av * dv[k] - djv * y[k] - jv * dy[k];
    }
}

/* The step for a state of n components (SP_RS_PLAIN or SP_RS_DIM, a constant where it is
 * called, so that the stage loops have fixed lengths). */
static inline sp_status step_n(const sp_round_sphere *s, double h, const double *in, double *out, const int n, int cols,
                               double *dx)
{
    enum { S = 12, D = SP_RS_DIM, T = SP_RS_TANGENT };
    const int lift = n == SP_RS_DIM;
    double K[S][D], X[D], dK[S][SP_RS_MAX_COLS][T], dX[T];
    if (cols > SP_RS_MAX_COLS) return SP_ERR_INVALID;
    for (int i = 0; i < s->stages; ++i) {
        memcpy(X, in, (size_t)n * sizeof *X);
        for (int q = 0; q < i; ++q) {
            const double c = h * s->A[i][q];
            if (c != 0.0)
                for (int k = 0; k < n; ++k) X[k] += c * K[q][k];
        }
        sp_round_sphere_rhs(X, lift, K[i]);
        for (int col = 0; col < cols; ++col) {
            memcpy(dX, dx + (size_t)col * T, sizeof dX);
            for (int q = 0; q < i; ++q) {
                const double c = h * s->A[i][q];
                if (c != 0.0)
                    for (int k = 0; k < T; ++k) dX[k] += c * dK[q][col][k];
            }
            rhs_tangent(X, dX, dK[i][col]);
        }
    }
    double next[D];
    memcpy(next, in, (size_t)n * sizeof *next);
    for (int i = 0; i < s->stages; ++i) {
        const double c = h * s->b[i];
        if (c != 0.0)
            for (int k = 0; k < n; ++k) next[k] += c * K[i][k];
    }
    for (int k = 0; k < n; ++k)
        if (!isfinite(next[k])) return SP_ERR_NONFINITE;
    memcpy(out, next, (size_t)n * sizeof *out);
    for (int col = 0; col < cols; ++col) {
        double *d = dx + (size_t)col * T;
        for (int i = 0; i < s->stages; ++i) {
            const double c = h * s->b[i];
            if (c != 0.0)
                for (int k = 0; k < T; ++k) d[k] += c * dK[i][col][k];
        }
    }
    return SP_OK;
}

sp_status sp_round_sphere_step(const sp_round_sphere *s, double h, const double *in, double *out, int lift, int cols,
                               double *dx)
{
    return lift ? step_n(s, h, in, out, SP_RS_DIM, cols, dx) : step_n(s, h, in, out, SP_RS_PLAIN, cols, dx);
}
