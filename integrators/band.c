/* Banded LU with partial pivoting (see sp_band.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"

struct sp_band {
    int n, kl, ku, ldab;
    double *ab; /* column-major, ldab = 2kl + ku + 1 rows: kl extra rows hold the LU's fill */
    int *piv; /* row interchanged with row j at step j */
};

sp_band *sp_band_alloc(int n, int kl, int ku)
{
    sp_band *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->n = n, b->kl = kl, b->ku = ku, b->ldab = 2 * kl + ku + 1;
    b->ab = calloc((size_t)b->ldab * (size_t)n, sizeof *b->ab);
    b->piv = malloc((size_t)n * sizeof *b->piv);
    if (!b->ab || !b->piv) {
        sp_band_free(b);
        return NULL;
    }
    return b;
}

void sp_band_free(sp_band *b)
{
    if (!b) return;
    free(b->ab);
    free(b->piv);
    free(b);
}

int sp_band_copy(sp_band *dst, const sp_band *src)
{
    if (dst->n != src->n || dst->kl != src->kl || dst->ku != src->ku) return -1;
    memcpy(dst->ab, src->ab, (size_t)src->ldab * (size_t)src->n * sizeof *src->ab);
    memcpy(dst->piv, src->piv, (size_t)src->n * sizeof *src->piv);
    return 0;
}

void sp_band_zero(sp_band *b) { memset(b->ab, 0, (size_t)b->ldab * (size_t)b->n * sizeof *b->ab); }

void sp_band_add(sp_band *b, int r, int c, double v)
{
    b->ab[(size_t)c * b->ldab + (size_t)(b->kl + b->ku + r - c)] += v;
}

void sp_band_add_transfer(sp_band *b, int row, int col, int n, int nw, const double *Ainv, const double *Aw,
                          const double *Bmu, const double *Bw)
{
    double y[SP_BAND_TRANSFER_MAX_N]; /* column c of A⁻¹ A_w */
    for (int c = 0; c < nw; ++c) {
        for (int q = 0; q < n; ++q) {
            double s = 0.0;
            for (int r = 0; r < n; ++r) s += Ainv[q * n + r] * Aw[r * nw + c];
            y[q] = s;
        }
        for (int a = 0; a < nw; ++a) {
            double s = Bw[a * nw + c];
            for (int q = 0; q < n; ++q) s -= Bmu[a * n + q] * y[q];
            sp_band_add(b, row + a, col + c, -s);
        }
    }
    for (int a = 0; a < nw; ++a) sp_band_add(b, row + a, col + nw + a, 1.0);
}

double sp_band_get(const sp_band *b, int r, int c)
{
    if (r - c > b->kl || c - r > b->ku) return 0.0;
    return b->ab[(size_t)c * b->ldab + (size_t)(b->kl + b->ku + r - c)];
}

/* The entry A(i, j) in the band layout (valid for −kl − ku ≤ i − j ≤ kl, the top kl rows
 * holding the fill of U). */
static double *entry(const sp_band *b, int i, int j) { return b->ab + (size_t)j * b->ldab + (b->kl + b->ku + i - j); }

/* LAPACK's unblocked band LU (dgbtf2) written out: the bands here are a few dozen wide at
 * most, where calling BLAS once per column costs more than the arithmetic. Same pivots,
 * same operations, in the same order. */
sp_status sp_band_factor(sp_band *b)
{
    const int n = b->n, kl = b->kl, ku = b->ku, kv = kl + ku;
    /* the fill rows above the super-diagonals start at zero */
    for (int j = ku + 1; j < n && j < kv; ++j)
        for (int r = kv - j; r < kl; ++r) b->ab[(size_t)j * b->ldab + r] = 0.0;
    int ju = 0; /* the last column the row interchanges so far reach */
    for (int j = 0; j < n; ++j) {
        if (j + kv < n)
            for (int r = 0; r < kl; ++r) b->ab[(size_t)(j + kv) * b->ldab + r] = 0.0;
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        double *col = entry(b, j, j); /* A(j .. j + km, j) */
        int p = 0;
        for (int i = 1; i <= km; ++i)
            if (fabs(col[i]) > fabs(col[p])) p = i;
        b->piv[j] = j + p;
        if (col[p] == 0.0) return SP_ERR_SINGULAR;
        const int reach = j + ku + p < n - 1 ? j + ku + p : n - 1;
        if (reach > ju) ju = reach;
        if (p != 0)
            for (int c = j; c <= ju; ++c) {
                double *x = entry(b, j, c), *y = entry(b, j + p, c), t = *x;
                *x = *y, *y = t;
            }
        const double inv = 1.0 / col[0];
        for (int i = 1; i <= km; ++i) col[i] *= inv;
        for (int c = j + 1; c <= ju; ++c) {
            const double u = *entry(b, j, c);
            if (u == 0.0) continue;
            double *target = entry(b, j + 1, c);
            for (int i = 1; i <= km; ++i) target[i - 1] -= col[i] * u;
        }
    }
    return SP_OK;
}

sp_status sp_band_solve(const sp_band *b, double *x)
{
    const int n = b->n, kl = b->kl, kv = b->kl + b->ku;
    /* L, with the row interchanges in the order they were made */
    for (int j = 0; j + 1 < n && kl > 0; ++j) {
        const int lm = kl < n - 1 - j ? kl : n - 1 - j, l = b->piv[j];
        if (l != j) {
            const double t = x[l];
            x[l] = x[j], x[j] = t;
        }
        const double xj = x[j], *col = entry(b, j, j);
        for (int i = 1; i <= lm; ++i) x[j + i] -= xj * col[i];
    }
    /* U, of kl + ku super-diagonals, column by column from the last */
    for (int j = n - 1; j >= 0; --j) {
        if (x[j] == 0.0) continue;
        x[j] /= *entry(b, j, j);
        const double xj = x[j];
        for (int i = j - 1; i >= 0 && i >= j - kv; --i) x[i] -= xj * *entry(b, i, j);
    }
    for (int k = 0; k < n; ++k)
        if (!(x[k] - x[k] == 0.0)) return SP_ERR_NONFINITE;
    return SP_OK;
}
